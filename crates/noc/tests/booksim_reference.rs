//! Issue 15: agreement with BookSim2 under load. Every configuration of `reference/booksim2/` (BookSim2's curves
//! with the exact configuration files that produced them, from the issue) and of `reference/booksim2-extra/`
//! (seventeen more, tori, a ring and crossbar speedup among them, measured with BookSim2 built here) is read with `noc::booksim::read` and run at every load of its curve, as
//! BookSim2 ran it (warm-up 5000 cycles, 8 samples of 5000, seed 7):
//!
//! * average network latency within 5% of BookSim2's at every load up to 90% of BookSim2's saturation throughput
//!   (the highest accepted rate of its curve);
//! * accepted rate within 5% at every load, saturated ones included, so the saturation throughput agrees too.
//!
//! Measured (docs/noc.md has the table): every latency within 1.3%, every accepted rate within 2.4%.

use noc::booksim;
use noc::traffic::run_rate;
use std::path::PathBuf;

fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../reference/booksim2")
}

fn extra_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../reference/booksim2-extra")
}

/// (offered rate, average network latency, accepted rate) of every point of `config`'s BookSim2 curve in `dir`.
fn curve_in(dir: &std::path::Path, config: &str) -> Vec<(f64, f64, f64)> {
    let text = std::fs::read_to_string(dir.join("booksim2_curves.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (c, offered, nlat, accepted) = (col("config"), col("offered_rate"), col("avg_network_latency"), col("accepted_rate"));
    let points: Vec<(f64, f64, f64)> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[c] == config)
        .map(|f| (f[offered].parse().unwrap(), f[nlat].parse().unwrap(), f[accepted].parse().unwrap()))
        .collect();
    assert!(points.len() >= 2, "{config}: {} points", points.len());
    points
}

fn check(config: &str) {
    check_in(&reference_dir(), config);
}

fn check_in(dir: &std::path::Path, config: &str) {
    let cfg = std::fs::read_to_string(dir.join(format!("{config}.cfg"))).unwrap();
    let points = curve_in(dir, config);
    let saturation = points.iter().map(|p| p.2).fold(0.0, f64::max);
    let mut failures = Vec::new();
    let mut table = String::new();
    for &(rate, booksim_latency, booksim_accepted) in &points {
        let run = booksim::read(&format!("{cfg}\ninjection_rate = {rate};")).unwrap();
        assert_eq!(run.rate, Some(rate));
        assert_eq!((run.spec.warmup_cycles, run.spec.measure_cycles, run.spec.seed), (5000, 40_000, 7));
        let p = run_rate(&run.spec, rate, &mut |_| {}).unwrap();
        let latency = p.avg_network_latency.unwrap();
        let (dl, da) = (latency / booksim_latency - 1.0, p.accepted_rate / booksim_accepted - 1.0);
        table += &format!("{config} {rate}: latency {latency:.2} vs {booksim_latency:.2} ({:+.1}%), accepted {:.4} vs {booksim_accepted:.4} ({:+.1}%)\n", 100.0 * dl, p.accepted_rate, 100.0 * da);
        if rate <= 0.9 * saturation && dl.abs() > 0.05 {
            failures.push(format!("{config} at {rate}: network latency {latency:.2}, BookSim2 {booksim_latency:.2}"));
        }
        if da.abs() > 0.05 {
            failures.push(format!("{config} at {rate}: accepted {:.4}, BookSim2 {booksim_accepted:.4}", p.accepted_rate));
        }
    }
    print!("{table}");
    assert!(failures.is_empty(), "{}\n{table}", failures.join("\n"));
}

#[test]
fn f_4x4_uniform_1_flit_2_vcs() {
    check("F");
}

#[test]
fn g_8x8_uniform_4_flits_2_vcs_of_4() {
    check("G");
}

#[test]
fn h_8x8_uniform_1_flit_4_vcs() {
    check("H");
}

#[test]
fn i_8x8_transpose_1_flit_2_vcs() {
    check("I");
}

/// Ten more mesh configurations (4x4 to 16x16, every pattern BookSim2 and nocmsg share, 1- to 8-flit packets, 1 to
/// 8 VCs, 2- to 16-flit buffers), four tori and rings (BookSim2's `topology = torus` with `dim_order`: its
/// dateline classes, 2-cycle folded-torus channels) and three meshes with input and/or output speedup, measured
/// with BookSim2 built here.
#[test]
fn configurations_beyond_the_reference() {
    for k in 1..=17 {
        check_in(&extra_dir(), &format!("X{k}"));
    }
}

/// The reference configurations, read by `nocmsg`'s BookSim2 reader, are its default router: nothing in them
/// needs an option.
#[test]
fn the_reference_files_are_read_as_the_default_router() {
    for config in ["F", "G", "H", "I"] {
        let cfg = std::fs::read_to_string(reference_dir().join(format!("{config}.cfg"))).unwrap();
        let run = booksim::read(&cfg).unwrap();
        let n = &run.spec.network;
        let default = noc::NetworkConfig::default();
        assert_eq!((n.vc_allocator, n.sw_allocator, n.injection_channel_cycles, n.body_bids_on_arrival), (default.vc_allocator, default.sw_allocator, default.injection_channel_cycles, default.body_bids_on_arrival), "{config}");
        assert_eq!(run.rate, None);
    }
}
