//! Deadlock freedom past saturation: tori (even and odd k) and a ring with dimension-order routing and dateline VC
//! classes, and a mesh with each adaptive routing function, under every traffic pattern defined for the shape, at
//! loads up to 1.0 flits/node/cycle (far past saturation), with 1- and 4-flit packets. The watchdog must never fire,
//! and once the sources stop every packet must be delivered.
//!
//! The router settings default (`4stage`, `lowest` and `input-first` allocators) except where a test says.
//! Sources keep a few packets queued at most, so the network stays saturated without the queues (and the drain)
//! growing without bound. Sized to run in seconds in debug builds too (`cargo test --workspace`).

use noc::routing::Routing;
use noc::topology::Topology;
use noc::traffic::PATTERN_NAMES;
use noc::{DrainPolicy, Network, NetworkConfig, NodeId, Pattern};

/// Packets a source keeps queued at most.
const QUEUE_PACKETS: u64 = 4;
const INJECT_CYCLES: u64 = 2_000;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// Runs `pattern` at `load` flits/node/cycle for [`INJECT_CYCLES`], then drains; returns the packets delivered.
fn saturate(cfg: &NetworkConfig, pattern: &Pattern, load: f64, flits: u16) -> Result<u64, String> {
    let mut net = Network::new(cfg.clone()).map_err(|e| e.to_string())?;
    net.set_default_drain(DrainPolicy::Auto);
    let mesh = *net.mesh();
    let nodes = mesh.nodes() as u32;
    let perm = pattern.permutation(&mesh).map_err(|e| e.to_string())?;
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ u64::from(flits) ^ (load * 1000.0) as u64);
    let (mut sent, mut delivered) = (0u64, 0u64);
    let what = |cycle: u64| format!("{:?} {} {:?} {} vcs, {} at {load}, {flits}-flit packets, cycle {cycle}", cfg.topology, cfg.width, cfg.routing, cfg.vcs, pattern.name());
    for cycle in 0..INJECT_CYCLES {
        for src in 0..nodes {
            if !rng.chance(load / f64::from(flits)) || net.source_queue_flits(NodeId(src)) >= QUEUE_PACKETS * u64::from(flits) {
                continue;
            }
            let dst = match (&perm, pattern) {
                (Some(p), _) => p[src as usize],
                (None, Pattern::Hotspot { nodes: hot, fraction }) if rng.chance(*fraction) => hot[(rng.next() % hot.len() as u64) as usize],
                _ => (rng.next() % u64::from(nodes)) as u32,
            };
            net.enqueue(NodeId(src), NodeId(dst), flits, 0, 0);
            sent += 1;
        }
        net.step().map_err(|d| format!("{}: deadlock: {d}", what(cycle)))?;
        delivered += net.take_delivered().count() as u64;
    }
    let stop = net.now().0;
    while !net.is_empty() {
        if net.now().0 > stop + 100_000 {
            return Err(format!("{}: not drained", what(net.now().0)));
        }
        net.step().map_err(|d| format!("{}: deadlock while draining: {d}", what(net.now().0)))?;
        delivered += net.take_delivered().count() as u64;
    }
    if delivered != sent {
        return Err(format!("{}: {sent} packets sent, {delivered} delivered", what(net.now().0)));
    }
    net.check_invariants()?;
    Ok(delivered)
}

fn sweep(cfg: NetworkConfig) {
    cfg.validate().unwrap();
    let mesh = cfg.mesh();
    let centre = mesh.router_at(mesh.width / 2, mesh.height / 2).0 * mesh.concentration;
    let mut patterns = 0;
    for name in PATTERN_NAMES {
        let pattern = Pattern::from_name(name, vec![centre], 0.2).unwrap();
        if pattern.permutation(&mesh).is_err() {
            continue; // not defined for this shape (square or power-of-two node count)
        }
        patterns += 1;
        for flits in [1u16, 4] {
            for load in [0.2, 0.35, 0.6, 1.0] {
                let delivered = saturate(&cfg, &pattern, load, flits).unwrap_or_else(|e| panic!("{e}"));
                assert!(delivered > 0);
            }
        }
    }
    assert!(patterns >= 4, "{patterns} patterns for {cfg:?}");
}

fn torus(width: u32, height: u32, routing: Routing) -> NetworkConfig {
    let topology = if height == 1 { Topology::Ring } else { Topology::Torus };
    NetworkConfig { topology, width, height, vcs: 2, buffer_depth_flits: 4, routing, watchdog_cycles: 2_000, ..Default::default() }
}

fn mesh(routing: Routing, vcs: u32) -> NetworkConfig {
    NetworkConfig { width: 5, height: 5, vcs, buffer_depth_flits: 4, routing, watchdog_cycles: 2_000, ..Default::default() }
}

#[test]
fn torus_4x4_dimension_order_never_deadlocks() {
    sweep(torus(4, 4, Routing::Xy));
    sweep(NetworkConfig { vcs: 4, ..torus(4, 4, Routing::Yx) });
}

#[test]
fn torus_5x5_dimension_order_never_deadlocks() {
    sweep(torus(5, 5, Routing::Xy));
}

#[test]
fn ring_8_dimension_order_never_deadlocks() {
    sweep(torus(8, 1, Routing::Xy));
    sweep(NetworkConfig { vcs: 3, ..torus(8, 1, Routing::Xy) });
}

#[test]
fn mesh_west_first_never_deadlocks() {
    sweep(mesh(Routing::WestFirst, 1));
}

#[test]
fn mesh_odd_even_never_deadlocks() {
    sweep(mesh(Routing::OddEven, 1));
}

#[test]
fn mesh_min_adaptive_never_deadlocks() {
    sweep(mesh(Routing::MinAdaptive, 2));
    sweep(NetworkConfig { vcs: 3, ..mesh(Routing::MinAdaptive, 2) });
}

/// The other router settings that change who gets a VC when: single-cycle routers, iSLIP allocators with
/// speculative switch allocation, waiting for tail credits.
#[test]
fn other_router_settings_never_deadlock_either() {
    use noc::{RouterPipeline, SwAllocator, VcAllocator};
    let islip = |cfg: NetworkConfig| NetworkConfig {
        vc_allocator: VcAllocator::Islip,
        sw_allocator: SwAllocator::Islip,
        speculative_switch_allocation: true,
        injection_channel_cycles: 2,
        body_bids_on_arrival: true,
        ..cfg
    };
    sweep(NetworkConfig { pipeline: RouterPipeline::OneStage, ..torus(4, 4, Routing::Xy) });
    sweep(islip(torus(5, 5, Routing::Xy)));
    sweep(NetworkConfig { pipeline: RouterPipeline::OneStage, ..mesh(Routing::OddEven, 1) });
    sweep(islip(mesh(Routing::MinAdaptive, 4)));
    sweep(NetworkConfig { wait_for_tail_credit: true, ..mesh(Routing::MinAdaptive, 2) });
    sweep(NetworkConfig { vc_allocator: VcAllocator::Wavefront, sw_allocator: SwAllocator::Wavefront, ..mesh(Routing::WestFirst, 2) });
}

/// Whether the watchdog fired, with a report naming the cycle of channels (adaptive heads wait for the VCs of
/// all their candidate ports).
fn deadlocked(step: Result<(), noc::Deadlock>) -> bool {
    match step {
        Ok(()) => false,
        Err(d) => {
            assert!(d.0.wait_cycle.len() >= 2, "the report names no cycle: {d}");
            true
        }
    }
}

/// Whether `cfg` with its VC classes turned off deadlocks at full load under uniform, tornado or neighbour traffic
/// with 1- or 4-flit packets.
fn deadlocks_without_vc_classes(cfg: &NetworkConfig) -> bool {
    let mut deadlocks = 0;
    for name in ["uniform", "tornado", "neighbor"] {
        let pattern = Pattern::from_name(name, vec![], 0.0).unwrap();
        for flits in [1u16, 4] {
            let mut net = Network::new(cfg.clone()).unwrap();
            net.disable_vc_classes_for_tests();
            let nodes = net.mesh().nodes() as u32;
            let mut rng = XorShift(7);
            let perm = pattern.permutation(net.mesh()).unwrap();
            let failed = (0..INJECT_CYCLES).any(|_| {
                for src in 0..nodes {
                    if rng.chance(1.0 / f64::from(flits)) && net.source_queue_flits(NodeId(src)) < QUEUE_PACKETS * u64::from(flits) {
                        let dst = perm.as_ref().map_or((rng.next() % u64::from(nodes)) as u32, |p| p[src as usize]);
                        net.enqueue(NodeId(src), NodeId(dst), flits, 0, 0);
                    }
                }
                deadlocked(net.step())
            }) || (0..50_000).any(|_| deadlocked(net.step()));
            deadlocks += usize::from(failed);
        }
    }
    deadlocks > 0
}

/// The sweep can fail: the same ring with the dateline classes turned off (any head may take any VC, as with
/// dimension order and no datelines) deadlocks, and so does minimal adaptive routing without its escape VC.
#[test]
fn without_datelines_or_escape_vcs_the_same_networks_deadlock() {
    let ring = torus(8, 1, Routing::Xy);
    assert!(deadlocks_without_vc_classes(&ring), "a ring without datelines should deadlock at full load");
    let one_vc = NetworkConfig { vcs: 1, ..ring };
    assert_eq!(one_vc.validate().unwrap_err().field, "routing", "and the configuration check refuses a ring without them");
    assert!(deadlocks_without_vc_classes(&mesh(Routing::MinAdaptive, 2)), "minimal adaptive routing without an escape VC should deadlock");
}
