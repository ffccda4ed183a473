//! BookSim2 configuration files: run a network that BookSim2 (github.com/booksim/booksim2, the simulator NoC papers
//! validate against) is configured for, with no hand translation.
//!
//! [`read`] turns the text of a BookSim2 configuration file (`key = value;` statements, `//` comments) into a
//! [`TrafficSpec`] and the file's `injection_rate`. Every setting nocmsg models maps onto its option (the mapping is
//! the table in docs/noc.md); a setting nocmsg does not model is an error naming it, unless its value is BookSim2's
//! default, so a file never silently means something else here. Settings that only steer BookSim2's statistics or
//! its output (convergence thresholds, watch and print options) are accepted and have no effect: nocmsg always runs
//! the warm-up and every sample period.
//!
//! Statistics: BookSim2 warms up for `warmup_periods` periods of `sample_period` cycles, then measures
//! `max_samples` periods (with `stopping_thres = 0` it runs them all); nocmsg's warm-up and measurement windows are
//! set to the same lengths. BookSim2's network latency (injection to the tail's ejection) is nocmsg's
//! `avg_network_latency`.

use crate::config::{NetworkConfig, RouterPipeline, SwAllocator, VcAllocator};
use crate::routing::Routing;
use crate::topology::Topology;
use crate::traffic::{Pattern, TrafficSpec};

/// What was wrong with a BookSim2 configuration, naming the statement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BookSimError {
    #[error("BookSim2 configuration, statement {index} ('{text}'): {reason}")]
    Syntax { index: usize, text: String, reason: String },
    #[error("BookSim2 setting {key} = {value}: {reason}")]
    Value { key: String, value: String, reason: String },
    #[error("BookSim2 setting {key} is not modelled by nocmsg: {reason}")]
    Unsupported { key: String, reason: String },
}

/// A BookSim2 run: the traffic it describes and its `injection_rate` in flits/node/cycle, if the file gives one.
#[derive(Debug, Clone)]
pub struct BookSimRun {
    pub spec: TrafficSpec,
    pub rate: Option<f64>,
}

/// Settings that only steer BookSim2's convergence tests, statistics output or tracing (nocmsg runs every sample
/// period and has its own outputs), or that BookSim2's code never reads (`alloc_iters` does not reach the router's
/// allocators; `output_delay` is defined in `booksim_config.cpp` and read nowhere, so it is not nocmsg's
/// `output_delay_cycles`).
const NO_EFFECT: &[&str] = &[
    "stopping_thres",
    "acc_stopping_thres",
    "latency_thres",
    "warmup_thres",
    "acc_warmup_thres",
    "sim_count",
    "watch_file",
    "watch_packets",
    "watch_flits",
    "watch_transactions",
    "watch_out",
    "stats_out",
    "print_activity",
    "print_csv_results",
    "print_vc_stats",
    "deadlock_warn_timeout",
    "viewer_trace",
    "sim_power",
    "power_output_file",
    "tech_file",
    "dsent_router_config",
    "dsent_link_config",
    "alloc_iters",
    "output_delay",
];

/// Settings nocmsg accepts only at BookSim2's default (its `booksim_config.cpp`), with why another value is refused.
const DEFAULT_ONLY: &[(&str, &str, &str)] = &[
    ("router", "iq", "only BookSim2's input-queued router is modelled"),
    ("classes", "1", "traffic classes are not modelled"),
    ("subnets", "1", "BookSim2's subnets are not modelled (nocmsg's `--networks` spreads packets differently)"),
    ("injection_process", "bernoulli", "only Bernoulli injection is modelled"),
    ("use_read_write", "0", "request/reply traffic is not modelled"),
    ("priority", "none", "packet priorities are not modelled"),
    ("hold_switch_for_packet", "0", "holding the switch for a whole packet is not modelled"),
    ("noq", "0", "next-hop output queueing is not modelled"),
    ("output_buffer_size", "-1", "output buffers are not modelled"),
    ("link_failures", "0", "link failures are not modelled"),
    ("spec_sw_allocator", "prio", "speculative bids compete as BookSim2's default prio allocator with iSLIP makes them"),
    // nocmsg's `crossbar_delay_cycles` agrees with BookSim2's crossbar delay for a lone head, but BookSim2 starts a
    // flit's traversal only while no earlier one is still in a multi-cycle crossbar (its `_SwitchEvaluate` stops at
    // the first scheduled entry), so flits cross in batches; nocmsg's crossbar is pipelined (docs/noc.md).
    ("st_prepare_delay", "0", "BookSim2's multi-cycle crossbar is not pipelined as nocmsg's crossbar_delay is"),
    ("st_final_delay", "1", "BookSim2's multi-cycle crossbar is not pipelined as nocmsg's crossbar_delay is"),
    ("internal_speedup", "1.0", "internal speedup is not modelled"),
    ("spec_check_elig", "1", "nocmsg's speculation always checks eligibility as BookSim2's default does"),
    ("spec_check_cred", "1", "nocmsg's speculation always checks credits as BookSim2's default does"),
    ("spec_mask_by_reqs", "0", "masking speculative requests is not modelled"),
    ("vc_prioritize_empty", "0", "VC prioritisation is not modelled"),
    ("vc_priority_donation", "0", "VC prioritisation is not modelled"),
    ("vc_shuffle_requests", "0", "VC request shuffling is not modelled"),
    ("injection_rate_uses_flits_tail", "0", "not modelled"),
];

/// Reads a BookSim2 configuration. Settings it does not give take BookSim2's defaults, which are nocmsg's.
pub fn read(text: &str) -> Result<BookSimRun, BookSimError> {
    // BookSim2's defaults for what its file format sets (booksim_config.cpp); its default of 16 VCs is beyond
    // nocmsg's 8, so a file must give num_vcs.
    let mut network = NetworkConfig { width: 8, height: 8, buffer_depth_flits: 8, ..NetworkConfig::default() };
    let (mut k, mut n) = (8u32, 2u32);
    let mut vcs_given = false;
    let mut torus = false;
    let mut noc_latency = true;
    let mut credit_delay = 0u32;
    let mut packet_flits = 1u32;
    let mut pattern_name = "uniform".to_string();
    let mut rate: Option<f64> = None;
    let mut rate_in_flits = true;
    let (mut sample_period, mut warmup_periods, mut max_samples) = (1000u64, 3u64, 10u64);
    let mut seed = 0u64;
    let mut vc_alloc: Option<(VcAllocator, u32)> = None;
    let mut sw_alloc: Option<(SwAllocator, u32)> = None;

    let stripped: String = text.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    for (index, statement) in stripped.split(';').enumerate() {
        let statement = statement.trim();
        if statement.is_empty() {
            continue;
        }
        let syntax = |reason: &str| BookSimError::Syntax { index: index + 1, text: statement.to_string(), reason: reason.to_string() };
        let (key, value) = statement.split_once('=').ok_or_else(|| syntax("expected `key = value`"))?;
        let (key, value) = (key.trim(), value.trim().trim_matches('"'));
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(syntax("expected `key = value`"));
        }
        let bad = |reason: String| BookSimError::Value { key: key.to_string(), value: value.to_string(), reason };
        let int = |min: u64, max: u64| -> Result<u64, BookSimError> {
            let v: u64 = value.parse().map_err(|_| bad(format!("expected a whole number between {min} and {max}")))?;
            if v < min || v > max {
                return Err(bad(format!("must be between {min} and {max}")));
            }
            Ok(v)
        };
        match key {
            "topology" => {
                torus = match value {
                    "mesh" => false,
                    "torus" => true,
                    _ => return Err(bad("nocmsg reads BookSim2's mesh and torus".into())),
                }
            }
            // With it (the default), BookSim2's torus channels, forward and credit, take 2 cycles (a folded layout);
            // mesh channels 1.
            "use_noc_latency" => noc_latency = int(0, 1)? == 1,
            "k" => k = int(1, u64::from(crate::config::MAX_MESH_SIDE))? as u32,
            "n" => n = int(1, 2)? as u32,
            "routing_function" => {
                if value != "dim_order" {
                    return Err(bad("nocmsg reads dimension-order routing (dim_order: x first, as nocmsg's xy; on a torus with BookSim2's dateline classes)".into()));
                }
                network.routing = Routing::Xy;
            }
            "num_vcs" => {
                network.vcs = int(1, u64::from(crate::config::MAX_VCS))? as u32;
                vcs_given = true;
            }
            "vc_buf_size" => network.buffer_depth_flits = int(1, u64::from(crate::config::MAX_BUFFER_DEPTH_FLITS))? as u32,
            "packet_size" => packet_flits = int(1, u64::from(u16::MAX))? as u32,
            "traffic" => pattern_name = value.to_string(),
            "injection_rate" => {
                let r: f64 = value.parse().map_err(|_| bad("expected a number".into()))?;
                if !(0.0..=1.0).contains(&r) {
                    return Err(bad("must be between 0 and 1".into()));
                }
                rate = Some(r);
            }
            "injection_rate_uses_flits" => rate_in_flits = int(0, 1)? == 1,
            "sample_period" => sample_period = int(1, 100_000_000)?,
            "warmup_periods" => warmup_periods = int(0, 1_000_000)?,
            "max_samples" => max_samples = int(1, 1_000_000)?,
            "seed" => seed = value.parse().map_err(|_| bad("expected a whole number (seed = time is not reproducible)".into()))?,
            "sim_type" => {
                if value != "latency" {
                    return Err(bad("nocmsg runs BookSim2's latency simulations (sim_type = latency)".into()));
                }
            }
            "vc_allocator" => vc_alloc = Some(vc_allocator(value).ok_or_else(|| bad(allocator_choices(true)))?),
            "sw_allocator" => sw_alloc = Some(sw_allocator(value).ok_or_else(|| bad(allocator_choices(false)))?),
            "speculative" => network.speculative_switch_allocation = int(0, 1)? == 1,
            "wait_for_tail_credit" => network.wait_for_tail_credit = int(0, 1)? == 1,
            // Added to the credit channel's latency below.
            "credit_delay" => credit_delay = int(0, 999)? as u32,
            // BookSim2 runs route computations of more than one cycle in batches (see docs/noc.md); nocmsg's is
            // pipelined.
            "routing_delay" => {
                if value.parse::<u64>().is_ok_and(|d| d > 1) {
                    return Err(bad("BookSim2 runs route computations of more than one cycle in batches (a route computation starts only when none is in progress), nocmsg's route computation is pipelined; only 0 and 1 mean the same in both".into()));
                }
                network.routing_delay_cycles = int(0, 1)? as u32;
            }
            // BookSim2's own multi-cycle allocators stop on an assertion as soon as two attempts overlap (see
            // docs/noc.md); nocmsg models what their code intends, one attempt at a time per VC.
            "vc_alloc_delay" => network.vc_alloc_delay_cycles = int(1, 16)? as u32,
            "sw_alloc_delay" => network.sw_alloc_delay_cycles = int(1, 16)? as u32,
            // Checked against the router's port count with the whole configuration.
            "input_speedup" => network.input_speedup = int(1, u64::from(crate::config::MAX_CROSSBAR_PORTS))? as u32,
            "output_speedup" => network.output_speedup = int(1, u64::from(crate::config::MAX_CROSSBAR_PORTS))? as u32,
            _ if NO_EFFECT.contains(&key) => {}
            _ => match DEFAULT_ONLY.iter().find(|(name, _, _)| *name == key) {
                Some((_, default, reason)) => {
                    let same = value == *default || matches!((value.parse::<f64>(), default.parse::<f64>()), (Ok(a), Ok(b)) if a == b);
                    if !same {
                        return Err(bad(format!("{reason}; only BookSim2's default, {default}, is accepted")));
                    }
                }
                None => return Err(BookSimError::Unsupported { key: key.to_string(), reason: "nocmsg does not know this setting".into() }),
            },
        }
    }

    let unsupported = |key: &str, reason: &str| BookSimError::Unsupported { key: key.to_string(), reason: reason.to_string() };
    if !vcs_given {
        return Err(unsupported("num_vcs", "BookSim2's default of 16 VCs is more than nocmsg's 8; give num_vcs"));
    }
    (network.width, network.height) = if n == 2 { (k, k) } else { (k, 1) };
    network.topology = match (torus, n) {
        (false, _) => Topology::Mesh,
        (true, 1) => Topology::Ring,
        (true, _) => Topology::Torus,
    };
    let channel = if torus && noc_latency { 2 } else { 1 };
    network.link_latency_cycles = channel;
    // BookSim2 makes a credit usable a credit channel after it is sent plus `credit_delay`; nocmsg counts the
    // credit channel in `credit_delay_cycles`.
    network.credit_delay_cycles = credit_delay + channel;
    network.pipeline = RouterPipeline::FourStage;
    network.injection_channel_cycles = 2;
    network.body_bids_on_arrival = true;
    // BookSim2's default allocators are iSLIP with one iteration.
    let (va, va_iters) = vc_alloc.unwrap_or((VcAllocator::Islip, 1));
    let (sa, sa_iters) = sw_alloc.unwrap_or((SwAllocator::Islip, 1));
    let iterations = match (va == VcAllocator::Islip, sa == SwAllocator::Islip) {
        (true, true) if va_iters != sa_iters => {
            return Err(unsupported("vc_allocator", "nocmsg's iSLIP VC and switch allocators run the same number of iterations"))
        }
        (true, _) => va_iters,
        (_, true) => sa_iters,
        _ => 1,
    };
    network.vc_allocator = va;
    network.sw_allocator = sa;
    network.allocator_iterations = iterations;
    let pattern = match pattern_name.as_str() {
        "uniform" => Pattern::Uniform,
        "transpose" => Pattern::Transpose,
        "bitcomp" => Pattern::BitComplement,
        "bitrev" => Pattern::BitReverse,
        "shuffle" => Pattern::Shuffle,
        "tornado" => Pattern::Tornado,
        "neighbor" => Pattern::Neighbor,
        other => {
            return Err(BookSimError::Value {
                key: "traffic".into(),
                value: other.into(),
                reason: "nocmsg reads uniform, transpose, bitcomp, bitrev, shuffle, tornado and neighbor".into(),
            })
        }
    };
    let rate = match rate {
        Some(r) if !rate_in_flits => {
            let flits = r * f64::from(packet_flits);
            if flits > 1.0 {
                return Err(unsupported("injection_rate", "more than one flit per node per cycle"));
            }
            Some(flits)
        }
        r => r,
    };
    let mut spec = TrafficSpec::new(network, pattern);
    spec.packet_flits = u16::try_from(packet_flits).expect("checked above");
    spec.warmup_cycles = warmup_periods * sample_period;
    spec.measure_cycles = max_samples * sample_period;
    spec.seed = seed;
    spec.validate().map_err(|e| BookSimError::Value { key: "(the whole file)".into(), value: String::new(), reason: e.to_string() })?;
    Ok(BookSimRun { spec, rate })
}

/// `islip`, `islip(N)` or another allocator's BookSim2 name, from the table of VC allocators.
fn vc_allocator(value: &str) -> Option<(VcAllocator, u32)> {
    if let Some(iters) = islip_iterations(value) {
        return Some((VcAllocator::Islip, iters));
    }
    crate::vc_alloc::VC_ALLOCATORS.iter().find(|row| row.booksim_name == Some(value)).map(|row| (row.allocator, 1))
}

fn sw_allocator(value: &str) -> Option<(SwAllocator, u32)> {
    if let Some(iters) = islip_iterations(value) {
        return Some((SwAllocator::Islip, iters));
    }
    crate::sw_alloc::SW_ALLOCATORS.iter().find(|row| row.booksim_name == Some(value)).map(|row| (row.allocator, 1))
}

fn islip_iterations(value: &str) -> Option<u32> {
    if value == "islip" {
        return Some(1);
    }
    let n: u32 = value.strip_prefix("islip(")?.strip_suffix(')')?.trim().parse().ok()?;
    (1..=16).contains(&n).then_some(n)
}

fn allocator_choices(vc: bool) -> String {
    let names: Vec<&str> = if vc {
        crate::vc_alloc::VC_ALLOCATORS.iter().filter_map(|row| row.booksim_name).collect()
    } else {
        crate::sw_alloc::SW_ALLOCATORS.iter().filter_map(|row| row.booksim_name).collect()
    };
    format!("nocmsg models islip, islip(N) and {}", names.iter().filter(|n| **n != "islip").cloned().collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: &str = "topology = mesh;\nk = 4;\nn = 2;\nrouting_function = dim_order;\nnum_vcs = 2;\nvc_buf_size = 8;\n\
        packet_size = 1;\ntraffic = uniform;\nsim_type = latency;\ninjection_rate_uses_flits = 1;\nsample_period = 5000;\n\
        warmup_periods = 1;\nmax_samples = 8;\nstopping_thres = 0.0;\nacc_stopping_thres = 0.0;\nlatency_thres = -1.0;\nseed = 7;\n";

    #[test]
    fn a_reference_file_becomes_the_default_router_with_its_sizes() {
        let run = read(&format!("// comment\n{F}injection_rate = 0.25; // trailing\n")).unwrap();
        let s = &run.spec;
        assert_eq!((s.network.width, s.network.height, s.network.vcs, s.network.buffer_depth_flits), (4, 4, 2, 8));
        assert_eq!((s.warmup_cycles, s.measure_cycles, s.seed, s.packet_flits), (5000, 40_000, 7, 1));
        assert_eq!(run.rate, Some(0.25));
        let defaults = NetworkConfig::default();
        assert_eq!(s.network, NetworkConfig { width: 4, height: 4, vcs: 2, buffer_depth_flits: 8, ..defaults });
    }

    #[test]
    fn booksim_settings_map_onto_nocmsg_options() {
        let run = read(&format!(
            "{F}vc_allocator = islip(2); sw_allocator = islip(2); speculative = 1; wait_for_tail_credit = 1;\
             credit_delay = 2; routing_delay = 0; traffic = bitcomp; packet_size = 4; injection_rate = 0.05; injection_rate_uses_flits = 0;"
        ))
        .unwrap();
        let c = &run.spec.network;
        assert_eq!((c.allocator_iterations, c.speculative_switch_allocation, c.wait_for_tail_credit, c.credit_delay_cycles), (2, true, true, 3));
        assert_eq!((c.routing_delay_cycles, c.crossbar_delay_cycles), (0, 1));
        let fast = read(&format!("{F}input_speedup = 2; output_speedup = 3;")).unwrap().spec.network;
        assert_eq!((fast.input_speedup, fast.output_speedup), (2, 3));
        let slow = read(&format!("{F}vc_alloc_delay = 2; sw_alloc_delay = 3;")).unwrap().spec.network;
        assert_eq!((slow.vc_alloc_delay_cycles, slow.sw_alloc_delay_cycles), (2, 3));
        assert!(read(&format!("{F}vc_alloc_delay = 2; speculative = 1;")).unwrap_err().to_string().contains("speculative"));
        assert_eq!(run.spec.pattern, Pattern::BitComplement);
        assert_eq!(run.rate, Some(0.2), "packets/node/cycle times packet_size");
        let wf = read(&format!("{F}vc_allocator = wavefront; sw_allocator = separable_input_first;")).unwrap();
        assert_eq!((wf.spec.network.vc_allocator, wf.spec.network.sw_allocator), (VcAllocator::Wavefront, SwAllocator::InputFirst));
        let torus = read("topology = torus; k = 4; num_vcs = 2; credit_delay = 1;").unwrap().spec.network;
        assert_eq!((torus.topology, torus.width, torus.height, torus.link_latency_cycles, torus.credit_delay_cycles), (Topology::Torus, 4, 4, 2, 3));
        let ring = read("topology = torus; n = 1; k = 8; num_vcs = 2; use_noc_latency = 0;").unwrap().spec.network;
        assert_eq!((ring.topology, ring.width, ring.height, ring.link_latency_cycles, ring.credit_delay_cycles), (Topology::Ring, 8, 1, 1, 1));
        assert!(read("topology = torus; k = 4; num_vcs = 1;").unwrap_err().to_string().contains("2 VCs"), "datelines need 2 VCs");
        let line = read("k = 8; n = 1; num_vcs = 4;").unwrap();
        assert_eq!((line.spec.network.width, line.spec.network.height, line.spec.network.vcs), (8, 1, 4));
        assert!(read("k = 8;").unwrap_err().to_string().contains("num_vcs"), "BookSim2's 16 VCs must be refused");
    }

    #[test]
    fn what_nocmsg_does_not_model_is_named() {
        let err = |extra: &str| read(&format!("{F}{extra}")).unwrap_err().to_string();
        assert!(err("topology = fly;").contains("topology = fly"));
        assert!(err("routing_delay = 2;").contains("routing_delay = 2"));
        assert!(err("vc_alloc_delay = 0;").contains("vc_alloc_delay = 0"));
        assert!(err("st_final_delay = 2;").contains("st_final_delay = 2"));
        assert!(err("input_speedup = 4;").contains("input_speedup = 4: must be between 1 and 3 (a router's 5 ports"), "{}", err("input_speedup = 4;"));
        assert!(err("traffic = randperm;").contains("randperm"));
        assert!(err("frobnicate = 3;").contains("frobnicate"));
        assert!(err("num_vcs = 0;").contains("num_vcs = 0"));
        assert!(err("k 4;").contains("statement 18 ('k 4')"), "{}", err("k 4;"));
        assert!(err("vc_allocator = islip(2); sw_allocator = islip;").contains("same number of iterations"));
        assert!(err("seed = time;").contains("seed = time"));
        assert!(err("traffic = transpose; k = 3; n = 1;").contains("square"));
        // BookSim2's defaults, spelled out, are accepted.
        read(&format!("{F}router = iq; routing_delay = 1; internal_speedup = 1; output_buffer_size = -1;")).unwrap();
        // BookSim2 reads output_delay nowhere, so a file that sets it runs as BookSim2 runs it: without an output stage.
        assert_eq!(read(&format!("{F}output_delay = 3;")).unwrap().spec.network.output_delay_cycles, 0);
    }
}
