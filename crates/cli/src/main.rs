//! `nocmsg`: the command-line front end of the nocmsg many-core laboratory.
//!
//! Exit codes: 0 success, 1 an operational failure (I/O), 2 bad arguments or configuration, 3 the network of
//! `traffic` or `deadlock-demo` deadlocked (the watchdog's report is on stderr). `nocmsg run` and `nocmsg native`
//! pass on the program's own exit status; their run-level failures use statuses outside the 0..=127 programs
//! use: 128 + a signal for a crash (a fault on the simulator), 124 at the cycle or time limit, 200 for a deadlock,
//! and (natively) 201 for a rank that exited without finalizing (see `run.rs`, `native.rs`).

mod args;
mod bench;
mod deadlock_demo;
mod fc_plan;
mod jobs;
mod footprint;
mod native;
mod native_watch;
#[cfg(test)]
mod option_samples;
mod run;
mod traffic;

use clap::{Parser, Subcommand};
use std::fmt;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "nocmsg", version, about = "Message passing on simulated network-on-chip many-cores")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a bare-metal RISC-V program (built with bin/nocmsg-cc) on every core of a simulated chip.
    Run(Box<run::RunArgs>),
    /// Synthetic traffic on a mesh: latency and throughput against offered load.
    Traffic(Box<traffic::TrafficArgs>),
    /// NoCMsg's Figure 1: two nodes send each other packets longer than the buffering between them while neither
    /// drains; the watchdog reports the cycle of blocked channels and the command exits with code 3.
    DeadlockDemo(deadlock_demo::DeadlockDemoArgs),
    /// Simulator speed benchmarks (written as CSV).
    Bench(bench::BenchArgs),
    /// Run N copies of a program as processes on this machine (ranks 0..N-1 sharing one shared-memory file).
    Native(Box<native::NativeArgs>),
    /// NoCMsg's flow-control elimination: from a communication profile (nocmsg run --comm-profile), the sends that
    /// may go without flow control (rules R1-R4, relaxations C1, C2), with the reason for every verdict.
    FcPlan(fc_plan::FcPlanArgs),
}

/// An error that decides the exit code.
#[derive(Debug)]
pub enum Exit {
    /// Bad arguments or configuration: exit code 2, one line.
    Usage(String),
    /// The network deadlocked: exit code 3; the message is the watchdog's report.
    Deadlock(String),
    /// A simulated program failed: this exit code, and a one-line message for stderr.
    Status(u8, String),
    /// A run ended in a way that takes a multi-line report (a deadlock): this exit code, and the report.
    Report(u8, String),
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Usage(msg) | Exit::Deadlock(msg) | Exit::Status(_, msg) | Exit::Report(_, msg) => f.write_str(msg),
        }
    }
}
impl std::error::Error for Exit {}

/// Converts library errors into the exit-code classes above.
pub fn classify(err: noc::TrafficError) -> anyhow::Error {
    match err {
        noc::TrafficError::Deadlock(d) => Exit::Deadlock(d.to_string()).into(),
        other => Exit::Usage(other.to_string()).into(),
    }
}

/// Clap's message on one line: the error and what it names, without the usage block.
fn one_line(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    let mut parts = Vec::new();
    for line in rendered.lines() {
        let line = line.trim();
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if !line.is_empty() {
            parts.push(line.trim_start_matches("error: ").to_string());
        }
    }
    parts.join(" ")
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            use clap::error::ErrorKind;
            return match err.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = err.print();
                    ExitCode::SUCCESS
                }
                _ => {
                    eprintln!("nocmsg: error: {}", one_line(&err));
                    ExitCode::from(2)
                }
            };
        }
    };
    let result = match cli.command {
        Command::Run(args) => run::run(*args),
        Command::Traffic(args) => traffic::run(*args),
        Command::DeadlockDemo(args) => deadlock_demo::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Native(args) => native::run(*args),
        Command::FcPlan(args) => fc_plan::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            match err.downcast_ref::<Exit>() {
                Some(Exit::Usage(msg)) => {
                    eprintln!("nocmsg: error: {msg}");
                    ExitCode::from(2)
                }
                Some(Exit::Deadlock(report)) => {
                    eprint!("{report}");
                    ExitCode::from(3)
                }
                Some(Exit::Status(code, msg)) => {
                    eprintln!("{msg}");
                    ExitCode::from(*code)
                }
                Some(Exit::Report(code, report)) => {
                    eprint!("{report}");
                    ExitCode::from(*code)
                }
                None => {
                    eprintln!("nocmsg: error: {err:#}");
                    ExitCode::from(1)
                }
            }
        }
    }
}
