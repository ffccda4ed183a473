//! The deadlock watchdog on NoCMsg's Figure 1: two nodes send each other a packet longer than the buffering on
//! the path, and each drains its receive queue only after its own send has completed. Neither send can finish.

use noc::scenarios::{exchange, path_buffering_flits};
use noc::{DrainPolicy, Network, NetworkConfig, NodeId};

fn small(width: u32, height: u32) -> NetworkConfig {
    NetworkConfig { width, height, buffer_depth_flits: 4, eject_queue_flits: 4, watchdog_cycles: 500, ..Default::default() }
}

#[test]
fn figure_1_deadlock_is_reported_as_a_cycle_of_channels() {
    let cfg = small(2, 1);
    let (a, b) = (NodeId(0), NodeId(1));
    assert_eq!(path_buffering_flits(&cfg, a, b), 12);
    let report = *exchange(cfg, a, b, 32, DrainPolicy::WhenSourceIdle).expect_err("must deadlock").0;
    let text = report.to_string();
    assert!(report.stalled_cycles > 500, "{text}");
    assert_eq!(report.flits_in_network, 24, "12 flits of each packet are stuck: {text}");
    let kinds: Vec<&str> = report.wait_cycle.iter().map(|r| r.kind).collect();
    // The cycle: node 0 injection -> router 0 local input -> router 1 west input -> node 1 ejection queue ->
    // node 1 injection -> router 1 local input -> router 0 east input -> node 0 ejection queue -> (node 0 injection).
    assert_eq!(report.wait_cycle.len(), 8, "{text}");
    assert_eq!(kinds.iter().filter(|k| **k == "injection").count(), 2, "{text}");
    assert_eq!(kinds.iter().filter(|k| **k == "ejection_queue").count(), 2, "{text}");
    assert_eq!(kinds.iter().filter(|k| **k == "router_input").count(), 4, "{text}");
    let inputs: Vec<(u32, &str)> = report
        .wait_cycle
        .iter()
        .filter(|r| r.kind == "router_input")
        .map(|r| (r.router.unwrap(), r.port.as_deref().unwrap()))
        .collect();
    for expected in [(0, "local0"), (1, "west"), (1, "local0"), (0, "east")] {
        assert!(inputs.contains(&expected), "missing router {} input {} in {text}", expected.0, expected.1);
    }
    // Each router input is full and names the packet holding it: 0->1 on router 0 local and router 1 west.
    for r in report.wait_cycle.iter().filter(|r| r.kind == "router_input") {
        assert_eq!(r.flits, 4, "{text}");
        let p = &r.packets[0];
        let from_a = (r.router, r.port.as_deref()) == (Some(0), Some("local0")) || (r.router, r.port.as_deref()) == (Some(1), Some("west"));
        assert_eq!((p.src, p.dst), if from_a { (0, 1) } else { (1, 0) }, "{text}");
        assert_eq!(p.flits, 32);
    }
    // Successive entries really wait for each other: the text says so, and it is readable.
    assert!(text.contains("cycle of blocked channels"), "{text}");
    assert!(text.contains("router 1 (1,0) input west vc 0"), "{text}");
    assert!(text.contains("only once its own send has left"), "{text}");
}

#[test]
fn the_same_exchange_completes_when_packets_fit_or_nodes_always_drain() {
    let cfg = small(2, 1);
    // 12 flits of buffering per direction: a 12-flit packet fits entirely, so both sends complete.
    exchange(cfg.clone(), NodeId(0), NodeId(1), 12, DrainPolicy::WhenSourceIdle).expect("fits in the buffers");
    exchange(cfg.clone(), NodeId(0), NodeId(1), 13, DrainPolicy::WhenSourceIdle).expect_err("one flit too many");
    exchange(cfg, NodeId(0), NodeId(1), 500, DrainPolicy::Auto).expect("nodes that always drain never deadlock");
}

#[test]
fn deadlock_across_a_longer_path_names_every_router_on_it() {
    let cfg = small(3, 2);
    let (a, b) = (NodeId(0), NodeId(5));
    let report = *exchange(cfg, a, b, 64, DrainPolicy::WhenSourceIdle).expect_err("must deadlock").0;
    // XY there (0,0)->(1,0)->(2,0)->(2,1); back (2,1)->(1,1)->(0,1)->(0,0): 4 router inputs each way.
    assert_eq!(report.wait_cycle.iter().filter(|r| r.kind == "router_input").count(), 8, "{report}");
}

#[test]
fn a_node_that_never_drains_is_reported_as_the_end_of_a_chain() {
    let mut net = Network::new(small(3, 1)).unwrap();
    net.set_drain(NodeId(2), DrainPolicy::Never);
    net.enqueue(NodeId(0), NodeId(2), 40, 0, 0);
    let report = loop {
        if let Err(d) = net.step() {
            break *d.0;
        }
        assert!(net.now().0 < 10_000, "watchdog never fired");
    };
    assert!(report.wait_cycle.is_empty(), "{report}");
    let last = report.chain.last().expect("a chain");
    assert_eq!((last.kind, last.node), ("ejection_queue", Some(2)), "{report}");
    assert!(last.waiting_for.contains("never"), "{report}");
    assert_eq!(report.chain.first().unwrap().kind, "injection", "{report}");
}
