//! Automated flow-control elimination (issue 18): `nocmsg run --comm-profile` records `tests/fc/pattern.c`'s
//! communication on udn-4x4, `nocmsg fc-plan` judges every call (R4 keeps the ring, C2 frees the gather into a sink
//! that only receives, C1 frees the rank-ordered exchanges), the library applies the plan at run time and the program
//! still passes, and with an input that changes the pattern the checking mode reports the sends the plan did not see
//! and keeps flow control on them instead of deadlocking. Also partitioned jobs (`nocmsg run --job`), whose report
//! says whether their routes share links (which voids a plan made for one job alone).

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// The work directory (the plan is read through semihosting, relative to it) with `pattern.elf`, its profile and its
/// plan, made once per test run.
fn setup() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    static LOCK: Mutex<()> = Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    DIR.get_or_init(|| {
        let dir = scratch("fc");
        build(&dir, "udn-2x2", "pattern", "pattern.elf");
        let out = run(&dir, &["--comm-profile", "pattern.profile.json"], &[]);
        assert!(out.status.success() && text(&out.stdout) == "pattern: ok\n", "{}", show(&out));
        let out = nocmsg(&dir, &["fc-plan", "pattern.profile.json", "-o", "pattern.plan.json"]);
        assert!(out.status.success(), "{}", show(&out));
        dir
    })
}

/// Builds tests/fc/NAME.c for `chip_name`, warnings as errors, into dir/ELF.
fn build(dir: &Path, chip_name: &str, name: &str, elf: &str) {
    run_checked(
        Command::new(root().join("bin/nocmsg-cc"))
            .args(["--chip", chip_name, "-O2", "-Wall", "-Wextra", "-Werror"])
            .arg(root().join(format!("tests/fc/{name}.c")))
            .arg("-o")
            .arg(dir.join(elf)),
        &format!("building tests/fc/{name}.c"),
    );
}

fn nocmsg(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(dir).output().expect("nocmsg runs")
}

/// `pattern.elf` on the 16 cores of udn-4x4 with `options`, then the program's arguments.
fn run(dir: &Path, options: &[&str], args: &[&str]) -> Output {
    let chip = chip("udn-4x4");
    let mut all = vec![
        "run",
        "--chip",
        chip.as_str(),
        "--work-dir",
        dir.to_str().unwrap(),
        "--no-prefix",
        "--max-cycles",
        "100000000",
    ];
    all.extend_from_slice(options);
    all.push("pattern.elf");
    all.extend_from_slice(args);
    nocmsg(dir, &all)
}

fn plan(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("pattern.plan.json")).unwrap()).unwrap()
}

#[test]
fn the_profile_names_every_region_transfer_and_link() {
    let dir = setup();
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("pattern.profile.json")).unwrap()).unwrap();
    assert_eq!(p["ranks"], 16);
    let regions = p["regions"].as_array().unwrap();
    // barrier, allreduce, barrier, barrier, barrier, and the reduce that ends the program's last region.
    let ends: Vec<&str> = regions.iter().filter_map(|r| r["ends_with"].as_str()).collect();
    assert_eq!(ends, ["barrier", "allreduce", "barrier", "barrier", "barrier", "reduce"]);
    // The sendrecv exchange of region 4: its halves are marked as one exchange's.
    let swap = regions[4]["transfers"].as_array().unwrap();
    assert!(swap.len() == 16 && swap.iter().all(|t| t["exchange"] == true && t["bytes"] == 65536), "{swap:?}");
    let ring = regions[0]["transfers"].as_array().unwrap();
    assert_eq!(ring.len(), 16);
    assert!(ring.iter().all(|t| t["bytes"] == 800 && t["site"].as_str().unwrap().starts_with("main+")), "{ring:?}");
    // Rank 3 -> 4 on a 4x4 mesh under XY: from (3,0) west to (0,0), then south to (0,1).
    let t34 = ring.iter().find(|t| t["src"] == 3).unwrap();
    assert_eq!(t34["links"], serde_json::json!(["inject 3", "3,0>2,0", "2,0>1,0", "1,0>0,0", "0,0>0,1", "eject 4"]));
    let gather = regions[1]["transfers"].as_array().unwrap();
    assert_eq!(gather.len(), 15);
    assert!(gather.iter().all(|t| t["dst"] == 0 && t["blocking"] == true));
}

/// Every collective ends a region, also those that do not go through the algorithm selector (the v-operations, an
/// empty broadcast, a barrier whose plan is ready): each region of tests/fc/vcoll.c holds one send, tagged with its
/// region's number.
#[test]
fn every_collective_ends_a_region_the_v_operations_included() {
    let dir = setup();
    build(dir, "udn-2x2", "vcoll", "vcoll.elf");
    let out = nocmsg(
        dir,
        &["run", "--chip", &chip("udn-2x2"), "--no-prefix", "--comm-profile", "vcoll.profile.json", "vcoll.elf"],
    );
    assert!(out.status.success() && text(&out.stdout) == "vcoll: ok\n", "{}", show(&out));
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vcoll.profile.json")).unwrap()).unwrap();
    let regions = p["regions"].as_array().unwrap();
    let ends: Vec<&str> = regions.iter().filter_map(|r| r["ends_with"].as_str()).collect();
    assert_eq!(ends, ["gatherv", "scatterv", "allgatherv", "alltoallv", "bcast", "barrier", "barrier"], "{p}");
    for (i, region) in regions.iter().enumerate() {
        let tags: Vec<i64> =
            region["transfers"].as_array().unwrap().iter().map(|t| t["tag"].as_i64().unwrap()).collect();
        assert_eq!(tags, if i == 6 { vec![] } else { vec![i as i64] }, "region {i}: {region}");
    }
}

/// No run with a plan deadlocks: tests/fc/random.c builds seeded random MPI-correct regions (matchings exchanging by
/// sendrecv or in rank order, gathers, ring shifts, chains, two at once), which the plan partly releases (C1, C2)
/// and partly keeps (R2-R4); applied with checking on, every run completes with the checksum of the run without a
/// plan and no violation, on the 16 cores of udn-4x4 (four seeds) and the 64 of tilepro-64 (one).
#[test]
fn random_patterns_run_under_their_plans_without_deadlock_on_16_and_64_cores() {
    let dir = setup();
    build(dir, "udn-2x2", "random", "random.elf");
    for (chip_name, seed) in
        [("udn-4x4", "1"), ("udn-4x4", "2"), ("udn-4x4", "3"), ("udn-4x4", "4"), ("tilepro-64", "3")]
    {
        let c = chip(chip_name);
        let base = ["run", "--chip", c.as_str(), "--work-dir", dir.to_str().unwrap(), "--no-prefix"];
        let with = |extra: &[&str]| {
            let mut args: Vec<&str> = base.to_vec();
            args.extend_from_slice(&["--max-cycles", "900000000"]);
            args.extend_from_slice(extra);
            args.extend_from_slice(&["random.elf", seed]);
            nocmsg(dir, &args)
        };
        let plain = with(&[]);
        assert!(plain.status.success() && text(&plain.stdout).contains(", ok, checksum"), "{}", show(&plain));
        let profile = format!("random-{chip_name}-{seed}.profile.json");
        let plan = format!("random-{chip_name}-{seed}.plan.json");
        let out = with(&["--comm-profile", &profile]);
        assert!(out.status.success(), "{}", show(&out));
        let out = nocmsg(dir, &["fc-plan", &profile, "-o", &plan]);
        assert!(out.status.success(), "{}", show(&out));
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(&plan)).unwrap()).unwrap();
        let dropped = summary["summary"]["dropped"].as_u64().unwrap();
        let kept = summary["summary"]["kept"].as_u64().unwrap();
        assert!(
            dropped > 0 && kept > 0,
            "{chip_name} seed {seed}: the plan should drop some calls and keep others: {}",
            summary["summary"]
        );
        let planned = with(&["--env", &format!("NOCMSG_FC_PLAN={plan}"), "--env", "NOCMSG_FC_CHECK=1"]);
        assert!(planned.status.success(), "{chip_name} seed {seed} under its plan:\n{}", show(&planned));
        assert_eq!(text(&planned.stdout), text(&plain.stdout), "{chip_name} seed {seed}");
        assert!(!text(&planned.stderr).contains("violated"), "{}", show(&planned));
    }
}

/// Regression (review): a call that failed its argument checks (sendrecv, isend, sendrecv_replace) left its site to
/// the next call, which the profile then named wrongly; tests/fc/site.c's sends must be named `good_send+...`.
#[test]
fn a_failed_call_leaves_no_site_to_the_next() {
    let dir = setup();
    build(dir, "udn-2x2", "site", "site.elf");
    let out = nocmsg(
        dir,
        &["run", "--chip", &chip("udn-2x2"), "--no-prefix", "-n", "2", "--comm-profile", "site.profile.json", "site.elf"],
    );
    assert!(out.status.success() && text(&out.stdout) == "site: ok\n", "{}", show(&out));
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("site.profile.json")).unwrap()).unwrap();
    let sends: Vec<&serde_json::Value> =
        p["regions"].as_array().unwrap().iter().flat_map(|r| r["transfers"].as_array().unwrap()).collect();
    assert_eq!(sends.len(), 3, "{p}");
    for t in sends {
        assert!(t["site"].as_str().unwrap().starts_with("good_send+"), "{t}");
    }
}

#[test]
fn the_plan_explains_each_call_by_the_rules() {
    let p = plan(setup());
    let regions = p["regions"].as_array().unwrap();
    let verdicts = |r: usize| -> Vec<(String, String)> {
        regions[r]["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["flow_control"].as_str().unwrap().to_string(),
                    c["reasons"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_str().unwrap().to_string())
                        .collect::<Vec<_>>()
                        .join("; "),
                )
            })
            .collect()
    };
    assert!(
        verdicts(0).iter().all(|(fc, why)| fc == "keep" && why.contains("R4: on a circular chain")),
        "{:?}",
        verdicts(0)
    );
    assert!(verdicts(1).iter().all(|(fc, why)| fc == "drop" && why.contains("C2: sink 0")), "{:?}", verdicts(1));
    for r in [2, 3] {
        assert!(
            verdicts(r).iter().all(|(fc, why)| fc == "drop" && why.contains("C1: exchange of ranks")),
            "{:?}",
            verdicts(r)
        );
    }
    assert!(
        verdicts(4).iter().all(|(fc, why)| fc == "drop" && why.contains("C1: sendrecv exchange")),
        "{:?}",
        verdicts(4)
    );
    assert_eq!(p["summary"]["calls"], 16 + 15 + 16 + 16 + 16);
    assert_eq!(p["summary"]["kept_by"], serde_json::json!({"R4": 16}));
    let table = p["table"].as_array().unwrap();
    assert_eq!(table.len(), 79);
    // The table says how: 0 keep, 1 raw, 2 a sendrecv run as a rank-ordered exchange.
    let allow: Vec<u64> = table.iter().map(|row| row[6].as_u64().unwrap()).collect();
    let count = |v: u64| allow.iter().filter(|&&a| a == v).count();
    assert_eq!((count(0), count(1), count(2)), (16, 47, 16));
}

#[test]
fn the_plan_applied_runs_the_program_correctly_and_checks_clean() {
    let dir = setup();
    let out = run(dir, &["--env", "NOCMSG_FC_PLAN=pattern.plan.json", "--env", "NOCMSG_FC_CHECK=1"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(text(&out.stdout), "pattern: ok\n");
    assert!(!text(&out.stderr).contains("violated"), "{}", show(&out));
    // And without checking.
    let out = run(dir, &["--env", "NOCMSG_FC_PLAN=pattern.plan.json"], &[]);
    assert!(out.status.success() && text(&out.stdout) == "pattern: ok\n", "{}", show(&out));
}

/// With the gather's sink moved to rank 1 (which then sends too), the plan's view is wrong: every rank's send to
/// the new sink is reported (once per site) and keeps flow control, and the program completes.
#[test]
fn a_changed_pattern_is_caught_in_checking_mode_instead_of_deadlocking() {
    let dir = setup();
    let out = run(dir, &["--env", "NOCMSG_FC_PLAN=pattern.plan.json", "--env", "NOCMSG_FC_CHECK=1"], &["shifted"]);
    assert!(out.status.success(), "{}", show(&out));
    // The console has the program's stdout and stderr in simulated-time order (--no-prefix).
    let err = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(err.lines().filter(|l| l.starts_with("pattern")).collect::<Vec<_>>(), ["pattern shifted: ok"], "{err}");
    let violations = err
        .lines()
        .filter(|l| {
            l.contains("flow-control plan violated")
                && l.contains("region 1: a send to rank 1 (tag 2, 80 bytes) was not in the profile")
        })
        .count();
    assert_eq!(violations, 15, "{err}");
    assert!(
        err.contains("nocmsg: rank 0: 1 calls broke the flow-control plan's assumptions and kept flow control"),
        "{err}"
    );
}

#[test]
fn bad_inputs_are_reported_not_panicked_on() {
    let dir = setup();
    let out = nocmsg(dir, &["fc-plan", "pattern.elf"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("cannot read pattern.elf"), "{}", show(&out));
    let out = nocmsg(dir, &["fc-plan", "pattern.plan.json", "-o", "x.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("pattern.plan.json is not a communication profile"), "{}", show(&out));
    let out = run(dir, &["--env", "NOCMSG_FC_PLAN=missing.json"], &[]);
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(
        !out.status.success() && all.contains("NOCMSG_FC_PLAN=missing.json: cannot open the plan"),
        "{}",
        show(&out)
    );
    // A number the parser cannot read stops MPI_Init with the reason (it once spun on it forever).
    std::fs::write(dir.join("bad.plan.json"), "{\"table\": [[1, 2, 0, 1, 0, 8, -]]}\n").unwrap();
    let out = run(dir, &["--env", "NOCMSG_FC_PLAN=bad.plan.json"], &[]);
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(
        !out.status.success() && all.contains("NOCMSG_FC_PLAN=bad.plan.json: its table has a malformed number"),
        "{}",
        show(&out)
    );
    // Profiles come from the UDN port's library.
    let pimp = dir.join("pimp.elf");
    run_checked(
        Command::new(root().join("bin/nocmsg-cc"))
            .args(["-O2"])
            .arg(root().join("tests/fc/pattern.c"))
            .arg("-o")
            .arg(&pimp),
        "pattern.c for pimp",
    );
    let out = nocmsg(dir, &["run", "--chip", &chip("pimp-2x2"), "--comm-profile", "p.json", "pimp.elf"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("--comm-profile: the program reported no communication"), "{}", show(&out));
}

/// Partitioned jobs (`nocmsg run --job`): two copies of pattern.c on the two halves of udn-4x4 (columns 0-1 and
/// 2-3) share no link under XY routing and perturb each other not at all; interleaved (even and odd tiles) their
/// routes share links and each slows the other down. Each job's output is its own, its ranks its own.
#[test]
fn partitioned_jobs_report_shared_links_and_perturbation() {
    let dir = setup();
    let chip = chip("udn-4x4");
    let run_jobs = |a: &str, b: &str| {
        let json = dir.join(format!("jobs-{}.json", a.len()));
        let out = nocmsg(
            dir,
            &[
                "run",
                "--chip",
                &chip,
                "--work-dir",
                dir.to_str().unwrap(),
                "--job",
                &format!("{a}:pattern.elf"),
                "--job",
                &format!("{b}:pattern.elf shifted"),
                "--stats",
                json.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{}", show(&out));
        let mut lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
        lines.sort();
        assert_eq!(lines, ["[job 0 rank 0] pattern: ok", "[job 1 rank 0] pattern shifted: ok"], "{}", show(&out));
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (v["jobs"].clone(), text(&out.stderr))
    };
    let (halves, err) = run_jobs("0-1,4-5,8-9,12-13", "2-3,6-7,10-11,14-15");
    for j in 0..2 {
        assert_eq!(halves[j]["cycles"], halves[j]["cycles_alone"], "{halves}");
        assert_eq!(halves[j]["shares_links_with"], serde_json::json!([]), "{halves}");
    }
    assert!(
        err.contains("nocmsg: job 0 (pattern.elf): ")
            && err.contains("(+0.00%); its routes share links with no other job"),
        "{err}"
    );
    let (mixed, err) = run_jobs("0,2,4,6,8,10,12,14", "1,3,5,7,9,11,13,15");
    for j in 0..2 {
        assert!(mixed[j]["cycles"].as_u64() > mixed[j]["cycles_alone"].as_u64(), "{mixed}");
        assert!(!mixed[j]["shares_links_with"][0]["links"].as_array().unwrap().is_empty(), "{mixed}");
    }
    assert!(err.contains("its routes share links with job 1"), "{err}");
    // Overlapping partitions are refused.
    let out = nocmsg(dir, &["run", "--chip", &chip, "--job", "0-3:pattern.elf", "--job", "3-5:pattern.elf"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("tile 3 is given to two jobs"), "{}", show(&out));
}

/// Rule C3 end to end (tests/fc/a2a.c: alltoall and alltoallv with checked blocks, some empty): profiled, planned
/// (every all-to-all released) and applied in checking mode on 12 (round-robin schedule) and 16 cores of udn-4x4
/// and 32 of tilepro-64 (XOR schedule), every block
/// arrives and nothing is reported. With a message left unreceived before the first all-to-all, its entry check
/// keeps flow control there (reported once, by rank 0), and the later ones, which find the network empty, go raw.
/// The 32-core run once hung: a rank posting a ready token while its output queue was still full of a raw block
/// slept waiting for a word that could only come after its token.
#[test]
fn released_all_to_alls_deliver_every_block_and_an_unreceived_message_keeps_flow_control() {
    let dir = setup();
    for chip_name in ["udn-4x4", "tilepro-64"] {
        build(dir, chip_name, "a2a", &format!("a2a-{chip_name}.elf"));
    }
    for (chip_name, n) in [("udn-4x4", "12"), ("udn-4x4", "16"), ("tilepro-64", "32")] {
        let elf = format!("a2a-{chip_name}.elf");
        let profile = format!("a2a-{chip_name}-{n}.profile.json");
        let plan = format!("a2a-{chip_name}-{n}.plan.json");
        let base = ["run", "--chip", &chip(chip_name), "--no-prefix", "-n", n];
        let out = nocmsg(dir, &[&base[..], &["--comm-profile", &profile, &elf]].concat());
        assert!(out.status.success(), "{}", show(&out));
        let out = nocmsg(dir, &["fc-plan", &profile, "-o", &plan]);
        assert!(text(&out.stdout).contains("6 of 6 all-to-alls released (C3)"), "{}", show(&out));
        let env = ["--env", &format!("NOCMSG_FC_PLAN={plan}"), "--env", "NOCMSG_FC_CHECK=1"];
        // The simulated cores' stderr (the library's reports) comes out with their stdout.
        let all = |out: &Output| text(&out.stdout) + &text(&out.stderr);
        let out = nocmsg(dir, &[&base[..], &env[..], &[&elf]].concat());
        assert!(out.status.success() && all(&out).contains(&format!("a2a: ok ({n} ranks)\n")), "{}", show(&out));
        assert!(!all(&out).contains("violated"), "{}", show(&out));
        let out = nocmsg(dir, &[&base[..], &env[..], &[&elf, "leftover"]].concat());
        let log = all(&out);
        assert!(out.status.success() && log.contains(&format!("a2a: ok ({n} ranks)\n")), "{}", show(&out));
        assert_eq!(log.matches("violated at the alltoall").count(), 1, "{}", show(&out));
        assert!(log.contains("region 0: messages sent before it had not all been received"), "{}", show(&out));
    }
    // From review: an erroneous program whose counts disagree gets an error, not a hang or the library reading the
    // rest of a chunk as its own; a plan made for 16 ranks keeps the all-to-alls flow-controlled on 8 (it would
    // release them on some ranks only); the interrupt-driven mode, which has no raw writes, keeps flow control.
    let (base, env) = (
        ["run", "--chip", &chip("udn-4x4"), "--no-prefix"],
        ["--env", "NOCMSG_FC_PLAN=a2a-udn-4x4-16.plan.json", "--env", "NOCMSG_FC_CHECK=1"],
    );
    let out = nocmsg(dir, &[&base[..], &env[..], &["a2a-udn-4x4.elf", "mismatch"]].concat());
    let log = text(&out.stdout) + &text(&out.stderr);
    assert!(!out.status.success() && log.contains("MPI error in MPI_Alltoallv on rank 1"), "{}", show(&out));
    let out = nocmsg(dir, &[&base[..], &["-n", "8"], &env[..], &["a2a-udn-4x4.elf"]].concat());
    let log = text(&out.stdout) + &text(&out.stderr);
    assert!(out.status.success() && log.contains("a2a: ok (8 ranks)"), "{}", show(&out));
    assert!(log.contains("the flow-control plan was made for 16 ranks, not 8"), "{}", show(&out));
    let irq = ["--env", "NOCMSG_UDN_MODE=interrupt"];
    let out = nocmsg(dir, &[&base[..], &env[..], &irq[..], &["a2a-udn-4x4.elf"]].concat());
    let log = text(&out.stdout) + &text(&out.stderr);
    assert!(out.status.success() && log.contains("a2a: ok (16 ranks)"), "{}", show(&out));
}
