//! Property tests over random meshes, tori and rings, every routing function valid for the draw, buffer depths, VC
//! counts, timings and traffic, with nodes that drain irregularly so back-pressure reaches into the network:
//! * every injected flit is ejected exactly once, at its destination, and the watchdog never fires (deadlock
//!   freedom of every routing function, adaptive ones and torus datelines included);
//! * the flits of a packet arrive in order and contiguously on their ejection VC;
//! * with one VC and deterministic routing, packets between a fixed pair arrive in the order they were sent
//!   (adaptive routing may reorder them, and so may several VCs);
//! * every cycle, credits + credits in flight + buffered flits equal the buffer depth on every channel (so credits
//!   stay within [0, depth]), and once drained every credit is back home;
//! * debug clocking (visit everything every cycle) gives exactly the same ejection log.

use noc::routing::ROUTING_FUNCTIONS;
use noc::topology::Topology;
use noc::{DrainPolicy, Network, NetworkConfig, NodeId, RouterPipeline, SwAllocator, VcAllocator};
use proptest::prelude::*;
use std::collections::HashMap;

#[derive(Clone, Debug)]
struct Scenario {
    cfg: NetworkConfig,
    /// (cycle, src, dst, flits), sorted by cycle.
    packets: Vec<(u64, u32, u32, u16)>,
    /// Node `n` skips draining on cycles where `(cycle + n) % stall_period < stall_cycles`.
    stall_period: u64,
    stall_cycles: u64,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        (1u32..=5, 1u32..=4, 1u32..=2, 1u32..=3),
        (1u32..=5, 1u32..=4, 1u32..=3, 1u32..=2),
        (any::<bool>(), 0usize..8, 0usize..3),
        (0usize..5, 0usize..4, 1u32..=3, any::<bool>(), any::<bool>()),
        (2u64..=6, 0u64..=3),
        prop::collection::vec((0u64..60, any::<u32>(), any::<u32>(), 1u16..=6), 1..50),
    )
        .prop_map(|((w, h, c, vcs), (depth, eject, credit, link), (four, routing, topology), (va, sa, iterations, speculative, wait), (period, stall), raw)| {
            let topology = [Topology::Mesh, Topology::Torus, Topology::Ring][topology];
            let h = if topology == Topology::Ring { 1 } else { h };
            // A torus needs two VCs (dateline classes); every routing function defined for the draw is drawn.
            let vcs = if topology != Topology::Mesh { vcs.max(2) } else { vcs };
            let valid: Vec<_> = ROUTING_FUNCTIONS.iter().map(|row| row.1).filter(|r| r.check(topology, vcs).is_ok()).collect();
            let cfg = NetworkConfig {
                topology,
                width: w,
                height: h,
                concentration: c,
                vcs,
                buffer_depth_flits: depth,
                eject_queue_flits: eject,
                credit_delay_cycles: credit,
                // 4stage: route computation of 0 to 2 cycles, a crossbar of 1 to 3.
                routing_delay_cycles: if four { (raw.len() % 3) as u32 } else { 1 },
                crossbar_delay_cycles: if four { 1 + (raw.len() / 3 % 3) as u32 } else { 1 },
                // An output stage of 0 to 2 cycles, either pipeline.
                output_delay_cycles: (raw.len() / 19 % 3) as u32,
                // 4stage without speculation: VC and switch allocation of 1 to 3 cycles.
                vc_alloc_delay_cycles: if four && !speculative { 1 + (raw.len() / 13 % 3) as u32 } else { 1 },
                sw_alloc_delay_cycles: if four && !speculative { 1 + (raw.len() / 17 % 3) as u32 } else { 1 },
                // Crossbar speedup of 1 or 2 on either side (at most 6 ports here, so within 16 crossbar ports).
                input_speedup: 1 + (raw.len() / 7 % 2) as u32,
                output_speedup: 1 + (raw.len() / 11 % 2) as u32,
                link_latency_cycles: link,
                injection_channel_cycles: 1 + (raw.len() % 2) as u32,
                body_bids_on_arrival: raw.len() % 5 < 2,
                sw_allocator: [SwAllocator::InputFirst, SwAllocator::Islip, SwAllocator::OutputFirst, SwAllocator::Wavefront][sa],
                allocator_iterations: iterations,
                speculative_switch_allocation: speculative,
                wait_for_tail_credit: wait,
                pipeline: if four { RouterPipeline::FourStage } else { RouterPipeline::OneStage },
                routing: valid[routing % valid.len()],
                vc_allocator: [VcAllocator::Lowest, VcAllocator::RoundRobin, VcAllocator::Islip, VcAllocator::OutputFirst, VcAllocator::Wavefront]
                    [va],
                watchdog_cycles: 5_000,
            };
            let nodes = w * h * c;
            let mut packets: Vec<_> = raw.into_iter().map(|(t, s, d, f)| (t, s % nodes, d % nodes, f)).collect();
            packets.sort_by_key(|p| p.0);
            Scenario { cfg, packets, stall_period: period, stall_cycles: stall.min(period - 1) }
        })
}

/// An ejected flit as the destination saw it: (cycle, node, vc, packet index in the scenario, seq, head, tail).
type Log = Vec<(u64, u32, u8, usize, u16, bool, bool)>;

fn run(s: &Scenario, visit_all: bool) -> Result<Log, TestCaseError> {
    let mut net = Network::new(s.cfg.clone()).unwrap();
    net.set_visit_all(visit_all);
    net.set_default_drain(DrainPolicy::Manual);
    let nodes = net.mesh().nodes() as u32;
    let mut log = Log::new();
    // Packet ids are recycled, so map live ids to the scenario's packet index.
    let mut live: HashMap<u32, usize> = HashMap::new();
    let mut next = 0;
    let mut delivered = 0;
    let mut cycle = 0u64;
    while delivered < s.packets.len() {
        prop_assert!(cycle < 50_000, "not delivered after 50k cycles");
        while next < s.packets.len() && s.packets[next].0 <= cycle {
            let (_, src, dst, flits) = s.packets[next];
            let id = net.enqueue(NodeId(src), NodeId(dst), flits, next as u64, 0);
            prop_assert!(live.insert(id.0, next).is_none(), "packet id {} reused while live", id.0);
            next += 1;
        }
        for n in 0..nodes {
            if (cycle + u64::from(n)) % s.stall_period < s.stall_cycles {
                continue;
            }
            if let Some(f) = net.eject_pop(NodeId(n)) {
                let idx = live[&f.packet.0];
                log.push((cycle, n, f.vc.0, idx, f.seq, f.head, f.tail));
                if let Some(d) = f.delivery {
                    prop_assert_eq!(d.payload, idx as u64);
                    live.remove(&f.packet.0);
                    delivered += 1;
                }
            }
        }
        if let Err(d) = net.step() {
            return Err(TestCaseError::fail(format!("unexpected deadlock: {d}")));
        }
        if let Err(e) = net.check_invariants() {
            return Err(TestCaseError::fail(format!("cycle {cycle}: {e}")));
        }
        cycle += 1;
    }
    prop_assert!(net.is_empty());
    let settle = net.now().0 + 10;
    net.run_until(noc::Cycle(settle)).unwrap();
    prop_assert!(net.all_credits_home(), "credits missing after drain");
    Ok(log)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn flits_are_delivered_once_in_order_and_credits_are_conserved(s in scenario()) {
        let log = run(&s, false)?;
        check_log(&s, &log)?;
    }

    #[test]
    fn debug_clocking_gives_the_same_ejections(s in scenario()) {
        let fast = run(&s, false)?;
        let slow = run(&s, true)?;
        prop_assert_eq!(fast, slow);
    }

    /// More cases of what is new in the draws: tori, rings and adaptive routing, where heads choose ports and VC
    /// classes at VC allocation from state that fast and debug clocking must see alike.
    #[test]
    fn tori_and_adaptive_routing_deliver_and_agree_with_debug_clocking(
        s in scenario().prop_filter("torus, ring or adaptive routing", |s| s.cfg.topology != Topology::Mesh || s.cfg.routing.requirements().adaptive)
    ) {
        let fast = run(&s, false)?;
        check_log(&s, &fast)?;
        let slow = run(&s, true)?;
        prop_assert_eq!(fast, slow);
    }
}

/// Exactly once, at the destination, in order and contiguous per ejection VC; in order per pair with one VC and
/// deterministic routing.
fn check_log(s: &Scenario, log: &Log) -> Result<(), TestCaseError> {
    {
        // Exactly once, at the destination, in order and contiguous per ejection VC.
        let mut seen = vec![0u16; s.packets.len()];
        let mut open: HashMap<(u32, u8), usize> = HashMap::new();
        for &(_, node, vc, idx, seq, head, tail) in log {
            let (_, _, dst, flits) = s.packets[idx];
            prop_assert_eq!(node, dst, "packet {} ejected at the wrong node", idx);
            prop_assert_eq!(seq, seen[idx], "packet {} flits out of order", idx);
            prop_assert_eq!(head, seq == 0);
            prop_assert_eq!(tail, seq + 1 == flits);
            seen[idx] += 1;
            match open.get(&(node, vc)) {
                Some(&cur) => prop_assert_eq!(cur, idx, "packets interleaved on node {} vc {}", node, vc),
                None => prop_assert!(head, "body flit without a head"),
            }
            if tail {
                open.remove(&(node, vc));
            } else {
                open.insert((node, vc), idx);
            }
        }
        for (idx, &(_, _, _, flits)) in s.packets.iter().enumerate() {
            prop_assert_eq!(seen[idx], flits, "packet {} incomplete", idx);
        }
        // One VC and deterministic routing: per source/destination pair, packets arrive in the order they were sent.
        if s.cfg.vcs == 1 && !s.cfg.routing.requirements().adaptive {
            let mut last: HashMap<(u32, u32), usize> = HashMap::new();
            for &(_, _, _, idx, _, _, tail) in log {
                if tail {
                    let (_, src, dst, _) = s.packets[idx];
                    if let Some(&prev) = last.get(&(src, dst)) {
                        prop_assert!(prev < idx, "packet {} overtook packet {} on {}->{}", idx, prev, src, dst);
                    }
                    last.insert((src, dst), idx);
                }
            }
        }
    }
    Ok(())
}
