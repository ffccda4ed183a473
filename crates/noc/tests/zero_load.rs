//! Zero-load latency: a lone packet's latency must equal the closed form for every source/destination pair, for
//! both router pipelines, with concentration, several packet lengths and link latencies, on meshes, tori and
//! rings (minimal hops with wrap-around) and with every routing function.

use noc::{Cycle, DrainPolicy, Network, NetworkConfig, NodeId, RouterPipeline, Routing};

fn lone_packet_latency(net: &mut Network, src: u32, dst: u32, flits: u16) -> (u64, u64) {
    net.enqueue(NodeId(src), NodeId(dst), flits, 0, 0);
    for _ in 0..10_000 {
        net.step().expect("no deadlock with one packet");
        if let Some(d) = net.take_delivered().next() {
            return (d.network_latency(), d.packet_latency());
        }
    }
    panic!("packet {src}->{dst} never arrived");
}

#[test]
fn every_pair_matches_the_analytic_latency() {
    for pipeline in [RouterPipeline::OneStage, RouterPipeline::FourStage] {
        for (width, height, concentration) in [(4, 3, 1), (3, 2, 2)] {
            for link in [1, 2] {
                for ((routing, speculative), (routing_delay, crossbar, output)) in
                    [(Routing::Xy, false), (Routing::Yx, false), (Routing::Xy, true)].into_iter().flat_map(|r| {
                        // 4stage: route computation of 1 or 0 cycles (BookSim2's routing_delay), longer crossbars;
                        // an output stage on either pipeline.
                        let delays: &[(u32, u32, u32)] = if pipeline == RouterPipeline::FourStage {
                            &[(1, 1, 0), (0, 1, 0), (1, 3, 0), (0, 2, 0), (1, 1, 2)]
                        } else {
                            &[(1, 1, 0), (1, 1, 1)]
                        };
                        delays.iter().map(move |&d| (r, d))
                    })
                {
                    let cfg = NetworkConfig {
                        routing_delay_cycles: routing_delay,
                        crossbar_delay_cycles: crossbar,
                        output_delay_cycles: output,
                        width,
                        height,
                        concentration,
                        pipeline,
                        routing,
                        link_latency_cycles: link,
                        // BookSim2's two-cycle injection channel, covered along with the longer links.
                        injection_channel_cycles: link,
                        // Body flits bidding on arrival or a cycle later (the formula counts a head gaining on its body).
                        body_bids_on_arrival: link == 2,
                        buffer_depth_flits: 8,
                        // Speculative switch allocation: a 3-cycle 4stage router (no effect on 1stage).
                        speculative_switch_allocation: speculative,
                        vcs: if speculative { 2 } else { 1 },
                        ..Default::default()
                    };
                    check_every_pair(&cfg);
                }
            }
        }
    }
}

/// Every pair of `cfg`'s nodes, 1- and 4-flit packets: the latency of a lone packet is the closed form with the
/// topology's minimal hop count.
fn check_every_pair(cfg: &NetworkConfig) {
    let mut net = Network::new(cfg.clone()).unwrap();
    net.set_default_drain(DrainPolicy::Auto);
    let mesh = *net.mesh();
    for flits in [1u16, 4] {
        for s in 0..mesh.nodes() as u32 {
            for d in 0..mesh.nodes() as u32 {
                let routers = u64::from(mesh.hops(mesh.router_of(NodeId(s)), mesh.router_of(NodeId(d)))) + 1;
                let expected = cfg.zero_load_latency(routers, u64::from(flits));
                let got = lone_packet_latency(&mut net, s, d, flits);
                assert_eq!(got, (expected, expected), "{cfg:?}: {s}->{d}, {flits} flits");
                let settle = net.now().0 + 20;
                net.run_until(Cycle(settle)).unwrap();
            }
        }
    }
    assert!(net.all_credits_home());
}

#[test]
fn tori_rings_and_adaptive_routing_match_the_analytic_latency_with_minimal_hops() {
    use noc::topology::Topology::{Mesh, Ring, Torus};
    for pipeline in [RouterPipeline::OneStage, RouterPipeline::FourStage] {
        for (topology, width, height, concentration, routing, vcs) in [
            (Torus, 4, 4, 1, Routing::Xy, 2),
            (Torus, 5, 3, 2, Routing::Yx, 2),
            (Torus, 3, 3, 1, Routing::Xy, 4),
            (Ring, 5, 1, 1, Routing::Xy, 2),
            (Ring, 8, 1, 2, Routing::Xy, 3),
            // Adaptive routing at zero load: minimal, so the same latency as xy.
            (Mesh, 4, 3, 1, Routing::WestFirst, 1),
            (Mesh, 4, 3, 1, Routing::OddEven, 1),
            (Mesh, 3, 4, 2, Routing::OddEven, 2),
            (Mesh, 4, 3, 1, Routing::MinAdaptive, 2),
            (Mesh, 3, 3, 2, Routing::MinAdaptive, 4),
        ] {
            let cfg = NetworkConfig { topology, width, height, concentration, routing, vcs, pipeline, ..Default::default() };
            check_every_pair(&cfg);
        }
    }
}

/// Multi-cycle route computation, VC and switch allocation lengthen every router by their extra cycles, and a VC sends one flit per
/// switch allocation, so a packet's tail trails its head by `sw_alloc_delay_cycles` per flit; crossbar speedup
/// changes nothing for a lone packet.
#[test]
fn allocation_delays_and_speedup_match_the_analytic_latency() {
    for (va, sa, routing_delay, vcs) in [(2, 1, 1, 1), (1, 2, 1, 2), (3, 2, 0, 2), (2, 3, 1, 1), (1, 1, 3, 2)] {
        for (input_speedup, output_speedup) in [(1, 1), (2, 3)] {
            let cfg = NetworkConfig {
                width: 4,
                height: 3,
                vcs,
                vc_alloc_delay_cycles: va,
                sw_alloc_delay_cycles: sa,
                routing_delay_cycles: routing_delay,
                input_speedup,
                output_speedup,
                ..Default::default()
            };
            check_every_pair(&cfg);
        }
    }
    let slow = NetworkConfig { vc_alloc_delay_cycles: 2, sw_alloc_delay_cycles: 3, ..Default::default() };
    // Per router 1 + 2 + 3 + 1 = 7 cycles; a 4-flit packet's tail 3 * 3 cycles behind its head.
    assert_eq!(slow.zero_load_latency(3, 4), 2 + 3 * 7 + 2 + 1 + 9);
}

#[test]
fn eight_by_eight_uniform_average_is_33_25_cycles_for_4stage() {
    // 8x8, uniform including self: mean hops 2 * 63/24 = 5.25, so 6.25 routers: 2 + 6.25*4 + 5.25 + 1 = 33.25
    // (the default 2-cycle injection channel; 32.25 with 1).
    let cfg = NetworkConfig::default();
    let avg = noc::Pattern::Uniform.mean_zero_load_latency(&cfg, 1).unwrap();
    assert!((avg - 33.25).abs() < 1e-9, "{avg}");
    let short = NetworkConfig { injection_channel_cycles: 1, ..cfg };
    let avg = noc::Pattern::Uniform.mean_zero_load_latency(&short, 1).unwrap();
    assert!((avg - 32.25).abs() < 1e-9, "{avg}");
}

#[test]
fn a_lone_packet_is_counted_once_on_every_link_of_its_xy_path() {
    let mut net = Network::new(NetworkConfig { width: 4, height: 4, ..Default::default() }).unwrap();
    let mesh = *net.mesh();
    lone_packet_latency(&mut net, 0, 15, 3);
    let links = net.link_stats();
    let mut total = 0;
    for r in 0..mesh.routers() {
        for p in 0..links.ports() {
            total += links.flits(r, p);
        }
    }
    // 6 hops + the ejection channel, 3 flits each.
    assert_eq!(total, 7 * 3);
    for x in 0..3 {
        assert_eq!(links.flits(mesh.router_at(x, 0).0 as usize, noc::Direction::East as usize), 3);
    }
    for y in 0..3 {
        assert_eq!(links.flits(mesh.router_at(3, y).0 as usize, noc::Direction::South as usize), 3);
    }
}

#[test]
fn eight_by_eight_torus_uniform_average_uses_wrap_around_hops() {
    // Per dimension of 8, distances 0,1,2,3,4,3,2,1: mean 2, so 4 hops and 5 routers: 1 + 5*4 + 4 + 1 = 26.
    let cfg = NetworkConfig { topology: noc::topology::Topology::Torus, vcs: 2, injection_channel_cycles: 1, pipeline: RouterPipeline::FourStage, ..Default::default() };
    let avg = noc::Pattern::Uniform.mean_zero_load_latency(&cfg, 1).unwrap();
    assert!((avg - 26.0).abs() < 1e-9, "{avg}");
}
