//! Exact delivery cycles under contention, pinned to the values of the straightforward implementation that ran
//! VC allocation in its own cycle (before the router step evaluated a cycle's VC allocation at the start of the
//! next visit). Packets from both ends of a 3x1 mesh meet at the middle router and compete for its ejection VCs,
//! so output VCs freed by a tail are handed out again: an output VC freed in cycle `t` must go to a waiting head
//! no earlier than the allocation of `t + 1`.

use noc::{Network, NetworkConfig, NodeId, RouterPipeline, SwAllocator, VcAllocator};

/// (source, destination, created, injected, ejected, drained) of every packet, sorted.
type Deliveries = Vec<(u32, u32, u64, u64, u64, u64)>;

fn deliveries(pipeline: RouterPipeline, vcs: u32, visit_all: bool) -> Deliveries {
    // The router of before issue 15, whose allocation timing these cycles pin (today's defaults are BookSim2's).
    let cfg = NetworkConfig {
        width: 3,
        height: 1,
        vcs,
        pipeline,
        vc_allocator: VcAllocator::Lowest,
        sw_allocator: SwAllocator::InputFirst,
        injection_channel_cycles: 1,
        body_bids_on_arrival: false,
        ..NetworkConfig::default()
    };
    let mut net = Network::new(cfg).unwrap();
    net.set_visit_all(visit_all);
    let mut out = Vec::new();
    for cycle in 0..60u64 {
        if cycle < 2 {
            net.enqueue(NodeId(0), NodeId(1), 4, 0, 0);
            net.enqueue(NodeId(2), NodeId(1), 1, 0, 0);
            net.enqueue(NodeId(2), NodeId(1), 3, 0, 0);
        }
        if cycle == 2 {
            net.enqueue(NodeId(1), NodeId(1), 2, 0, 0);
        }
        net.step().unwrap();
        out.extend(net.take_delivered().map(|d| (d.src.0, d.dst.0, d.created.0, d.injected.0, d.ejected.0, d.drained.0)));
    }
    out.sort();
    out
}

#[test]
fn output_vcs_freed_by_a_tail_are_handed_out_from_the_next_cycle() {
    let cases: [(RouterPipeline, u32, Deliveries); 3] = [
        (
            RouterPipeline::FourStage,
            1,
            vec![
                (0, 1, 0, 0, 16, 16),
                (0, 1, 1, 4, 25, 25),
                (1, 1, 2, 2, 9, 9),
                (2, 1, 0, 0, 11, 11),
                (2, 1, 0, 1, 20, 20),
                (2, 1, 1, 4, 27, 27),
                (2, 1, 1, 5, 32, 32),
            ],
        ),
        (
            RouterPipeline::FourStage,
            2,
            vec![
                (0, 1, 0, 0, 18, 18),
                (0, 1, 1, 4, 24, 24),
                (1, 1, 2, 2, 9, 9),
                (2, 1, 0, 0, 11, 11),
                (2, 1, 0, 1, 17, 17),
                (2, 1, 1, 4, 20, 20),
                (2, 1, 1, 5, 26, 26),
            ],
        ),
        (
            RouterPipeline::OneStage,
            1,
            vec![
                (0, 1, 0, 0, 9, 9),
                (0, 1, 1, 4, 18, 18),
                (1, 1, 2, 2, 11, 11),
                (2, 1, 0, 0, 5, 5),
                (2, 1, 0, 1, 14, 14),
                (2, 1, 1, 4, 19, 19),
                (2, 1, 1, 5, 22, 22),
            ],
        ),
    ];
    for (pipeline, vcs, expected) in cases {
        for visit_all in [false, true] {
            assert_eq!(deliveries(pipeline, vcs, visit_all), expected, "{pipeline} with {vcs} VC(s), visit_all {visit_all}");
        }
    }
}
