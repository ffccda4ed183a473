//! Adaptive routing adapts: a head whose x-direction port is blocked by a packet stream into a node that never
//! drains takes its other productive port, where dimension order waits behind the blockage for ever.

use noc::routing::Routing;
use noc::{Cycle, DrainPolicy, Network, NetworkConfig, NodeId};

/// On a 3x2 mesh with two nodes per router, node 0 (router (0,0)) floods node 2 (router (1,0)), which never drains,
/// so the east port of router (0,0) is held. Then node 1 (also router (0,0)) sends one packet to node 8 (router
/// (1,1)): east then south, or south then east. Returns whether it arrived within 2000 cycles.
fn detour_arrives(routing: Routing, vcs: u32) -> bool {
    let cfg = NetworkConfig { width: 3, height: 2, concentration: 2, vcs, routing, buffer_depth_flits: 2, eject_queue_flits: 2, watchdog_cycles: 0, ..Default::default() };
    let mut net = Network::new(cfg).unwrap();
    net.set_drain(NodeId(2), DrainPolicy::Never);
    for i in 0..40 {
        net.enqueue(NodeId(0), NodeId(2), 1, i, 0);
    }
    net.run_until(Cycle(200)).unwrap();
    net.enqueue(NodeId(1), NodeId(8), 4, 99, 0);
    for _ in 0..2000 {
        net.step().unwrap();
        if net.take_delivered().any(|d| d.payload == 99) {
            return true;
        }
    }
    false
}

#[test]
fn adaptive_heads_go_around_a_blocked_port() {
    assert!(!detour_arrives(Routing::Xy, 1), "xy waits behind the blockage");
    assert!(!detour_arrives(Routing::Xy, 2), "xy waits behind the blockage on every VC");
    assert!(detour_arrives(Routing::WestFirst, 1));
    assert!(detour_arrives(Routing::OddEven, 1));
    assert!(detour_arrives(Routing::MinAdaptive, 2));
    assert!(detour_arrives(Routing::MinAdaptive, 3));
}
