//! Every option of every subcommand parses with a valid value, through the same derive path `main` uses.
//!
//! Issue 14 item 6: `nocmsg traffic --hotspot-nodes` panicked on every use. Clap checked the value fine; the panic
//! came when the derive code read it back into `TrafficArgs` with another type than the parser stored (a clap type
//! mismatch), so only an actual use of each option shows such a bug. The test here walks clap's command tree
//! (`Cli::command()`) rather than a list of its own, so an option added without a sample value below fails it and
//! gets covered. Options whose value matters only later (a run) are run with the real binary in
//! `tests/cli_options.rs`.

use crate::{Cli, Command};
use clap::{ArgAction, CommandFactory, FromArgMatches};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A valid value for every option (by subcommand path and argument id); flags have no value.
const SAMPLES: &[(&str, &str, &[&str])] = &[
    ("run", "chip", &["chips/pimp-4x4.toml"]),
    ("run", "cores", &["4"]),
    ("run", "tiles", &["0,2,4-7"]),
    ("run", "stats", &["stats.json"]),
    ("run", "console_dir", &["console"]),
    ("run", "no_prefix", &[]),
    ("run", "debug_clocking", &[]),
    ("run", "max_cycles", &["100000"]),
    ("run", "work_dir", &["."]),
    ("run", "profile", &["profile.json"]),
    ("run", "background", &["pattern=uniform,rate=0.05,flits=2,nodes=0-7,seed=1"]),
    ("run", "env", &["NOCMSG_BARRIER=linear"]),
    ("run", "comm_profile", &["profile.json"]),
    ("run", "memory", &["cached"]),
    ("run", "threads", &[]),
    ("run", "hash_mode", &["allbutstack"]),
    ("run", "homing", &["remote:3"]),
    ("run", "perturb", &["seed=2,skew=100,period=10000,noise=50"]),
    ("run", "jobs", &["0-3:prog.elf S"]),
    ("run", "command", &["prog.elf", "-n", "3"]),
    ("traffic", "mesh", &["4x4"]),
    ("traffic", "concentration", &["2"]),
    ("traffic", "networks", &["2"]),
    ("traffic", "pattern", &["hotspot"]),
    ("traffic", "rates", &["0.05:0.2:0.05"]),
    ("traffic", "rate", &["0.1"]),
    ("traffic", "booksim", &["../../reference/booksim2/F.cfg"]),
    ("traffic", "packet_flits", &["4"]),
    ("traffic", "buffer_flits", &["16"]),
    ("traffic", "vcs", &["2"]),
    ("traffic", "router", &["1stage"]),
    ("traffic", "routing", &["yx"]),
    // Alone (with 1 VC) only a mesh is valid; tests/cli_options.rs runs a torus and a ring.
    ("traffic", "topology", &["mesh"]),
    ("traffic", "credit_delay", &["2"]),
    ("traffic", "routing_delay", &["0"]),
    ("traffic", "crossbar_delay", &["2"]),
    ("traffic", "output_delay", &["1"]),
    ("traffic", "vc_alloc_delay", &["2"]),
    ("traffic", "sw_alloc_delay", &["2"]),
    ("traffic", "input_speedup", &["2"]),
    ("traffic", "output_speedup", &["2"]),
    ("traffic", "link_latency", &["2"]),
    ("traffic", "vc_allocator", &["islip"]),
    ("traffic", "sw_allocator", &["islip"]),
    ("traffic", "allocator_iterations", &["2"]),
    ("traffic", "speculative_switch_allocation", &[]),
    ("traffic", "wait_for_tail_credit", &[]),
    ("traffic", "injection_channel_cycles", &["2"]),
    ("traffic", "body_bids_on_arrival", &["false"]),
    ("traffic", "eject_queue_flits", &["8"]),
    ("traffic", "hotspot_nodes", &["1,2"]),
    ("traffic", "hotspot_fraction", &["0.3"]),
    ("traffic", "seed", &["7"]),
    ("traffic", "warmup", &["10"]),
    ("traffic", "measure", &["100"]),
    ("traffic", "drain_limit", &["1000"]),
    ("traffic", "max_queue_flits", &["100"]),
    ("traffic", "watchdog", &["500"]),
    ("traffic", "jobs", &["2"]),
    ("traffic", "visit_all", &[]),
    ("traffic", "json", &["out.json"]),
    ("traffic", "csv", &["out.csv"]),
    ("traffic", "quiet", &[]),
    ("deadlock-demo", "mesh", &["3x1"]),
    ("deadlock-demo", "a", &["0"]),
    ("deadlock-demo", "b", &["2"]),
    ("deadlock-demo", "packet_flits", &["16"]),
    ("deadlock-demo", "buffer_flits", &["2"]),
    ("deadlock-demo", "eject_queue_flits", &["2"]),
    ("deadlock-demo", "watchdog", &["100"]),
    ("deadlock-demo", "always_drain", &[]),
    ("deadlock-demo", "json", &["report.json"]),
    ("bench noc", "csv", &["noc.csv"]),
    ("bench noc", "measure", &["1000"]),
    ("bench noc", "runs", &["1"]),
    ("bench cores", "program", &["compute.elf"]),
    ("bench cores", "chip", &["chips/pimp-4x4.toml"]),
    ("bench cores", "rounds", &["2"]),
    ("bench cores", "csv", &["cores.csv"]),
    ("bench cores", "threads", &["none"]),
    ("bench point", "mesh", &["4x4"]),
    ("bench point", "rate", &["0.1"]),
    ("bench point", "measure", &["100"]),
    ("bench point", "visit_all", &[]),
    ("native", "ranks", &["4"]),
    ("native", "pin", &[]),
    ("native", "timeout", &["2.5"]),
    ("native", "tag_output", &[]),
    ("native", "shm_dir", &["/tmp"]),
    ("native", "command", &["./prog", "--flag"]),
    ("fc-plan", "profile", &["p.json"]),
    ("fc-plan", "output", &["plan.json"]),
];

/// The options each subcommand needs before anything parses (taken from `SAMPLES`).
const REQUIRED: &[(&str, &[&str])] = &[
    ("run", &["chip", "command"]),
    ("traffic", &["rate"]),
    ("bench cores", &["program"]),
    ("bench point", &["mesh", "rate", "measure"]),
    ("native", &["ranks", "command"]),
    ("fc-plan", &["profile"]),
];

fn sample(path: &str, id: &str) -> Option<&'static [&'static str]> {
    SAMPLES.iter().find(|(p, i, _)| *p == path && *i == id).map(|(_, _, v)| *v)
}

/// Every subcommand that takes options, with its path ("bench noc") and its clap definition.
fn leaves(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, clap::Command)>) {
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let path = if prefix.is_empty() { sub.get_name().to_string() } else { format!("{prefix} {}", sub.get_name()) };
        if sub.has_subcommands() {
            leaves(sub, &path, out);
        } else {
            out.push((path, sub.clone()));
        }
    }
}

fn user_args(cmd: &clap::Command) -> impl Iterator<Item = &clap::Arg> {
    cmd.get_arguments().filter(|a| !matches!(a.get_action(), ArgAction::Help | ArgAction::Version | ArgAction::HelpShort | ArgAction::HelpLong))
}

/// The command line for `args` of subcommand `path`: options first, then positionals.
fn command_line(path: &str, args: &[&clap::Arg]) -> Vec<String> {
    let mut line = vec!["nocmsg".to_string()];
    line.extend(path.split(' ').map(str::to_string));
    let mut positionals = Vec::new();
    for arg in args {
        let values = sample(path, arg.get_id().as_str()).unwrap_or_else(|| panic!("no sample for {path} {}", arg.get_id()));
        if arg.is_positional() {
            positionals.extend(values.iter().map(|v| v.to_string()));
            continue;
        }
        let name = match (arg.get_long(), arg.get_short()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            (None, None) => unreachable!("an option has a long or short name"),
        };
        line.push(name);
        line.extend(values.iter().map(|v| v.to_string()));
    }
    line.extend(positionals);
    line
}

/// Parses `line` as `main` does (matching, then the derive code that reads every value back), turning a panic into
/// an error.
fn parse(line: &[String]) -> Result<Cli, String> {
    let matches = Cli::command().try_get_matches_from(line).map_err(|e| format!("clap rejected it: {}", crate::one_line(&e)))?;
    catch_unwind(AssertUnwindSafe(|| Cli::from_arg_matches(&matches)))
        .map_err(|panic| {
            let msg = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
            format!("reading it back panicked: {}", msg.unwrap_or_default())
        })?
        .map_err(|e| format!("reading it back failed: {}", crate::one_line(&e)))
}

#[test]
fn the_command_definition_passes_clap_debug_asserts() {
    Cli::command().debug_assert();
}

#[test]
fn every_option_of_every_subcommand_parses_with_a_valid_value() {
    let mut subcommands = Vec::new();
    leaves(&Cli::command(), "", &mut subcommands);
    assert!(subcommands.len() >= 7, "walked too few subcommands: {:?}", subcommands.iter().map(|(p, _)| p).collect::<Vec<_>>());
    let mut failures = Vec::new();
    let mut tried = 0;
    for (path, cmd) in &subcommands {
        let required: Vec<&str> = REQUIRED.iter().find(|(p, _)| p == path).map(|(_, r)| r.to_vec()).unwrap_or_default();
        for arg in user_args(cmd) {
            let id = arg.get_id().as_str();
            if sample(path, id).is_none() {
                failures.push(format!("`nocmsg {path}` option `{id}` has no sample value in option_samples.rs SAMPLES: add a valid one"));
                continue;
            }
            // The option under test, plus the required ones it does not conflict with (--rates replaces --rate).
            let conflicts: Vec<&str> = cmd.get_arg_conflicts_with(arg).iter().map(|a| a.get_id().as_str()).collect();
            let mut args: Vec<&clap::Arg> = user_args(cmd)
                .filter(|a| a.get_id() != id && required.contains(&a.get_id().as_str()) && !conflicts.contains(&a.get_id().as_str()))
                .collect();
            args.push(arg);
            let line = command_line(path, &args);
            tried += 1;
            match parse(&line) {
                Err(why) => failures.push(format!("{}: {why}", line[1..].join(" "))),
                Ok(cli) => {
                    // What the run checks first must accept the sample too (it is meant to be a valid value).
                    if let Command::Traffic(t) = &cli.command {
                        if let Err(e) = t.spec() {
                            failures.push(format!("{}: rejected by the traffic settings: {e:#}", line[1..].join(" ")));
                        }
                    }
                }
            }
        }
    }
    for (path, id, _) in SAMPLES {
        let known = subcommands.iter().any(|(p, cmd)| p == path && user_args(cmd).any(|a| a.get_id() == *id));
        if !known {
            failures.push(format!("SAMPLES names `nocmsg {path}` option `{id}`, which does not exist"));
        }
    }
    assert!(tried >= SAMPLES.len(), "tried {tried} options");
    assert!(failures.is_empty(), "{} option(s) failed:\n{}", failures.len(), failures.join("\n"));
}
