//! `nocmsg deadlock-demo`: NoCMsg's Figure 1 on the simulated network.

use crate::args::MeshSize;
use crate::Exit;
use anyhow::{Context, Result};
use clap::Args;
use noc::{DrainPolicy, NetworkConfig, NodeId};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DeadlockDemoArgs {
    #[arg(long, default_value = "2x1", value_name = "WxH")]
    pub mesh: MeshSize,
    /// The two nodes that send each other a packet.
    #[arg(long, default_value_t = 0)]
    pub a: u32,
    #[arg(long, default_value_t = 1)]
    pub b: u32,
    /// Length of each packet; deadlock needs more than the buffering on the path.
    #[arg(long, default_value_t = 32)]
    pub packet_flits: u16,
    #[arg(long, default_value_t = 4)]
    pub buffer_flits: u32,
    #[arg(long, default_value_t = 4)]
    pub eject_queue_flits: u32,
    #[arg(long, default_value_t = 1000)]
    pub watchdog: u64,
    /// Let nodes drain at all times (the network then delivers both packets).
    #[arg(long)]
    pub always_drain: bool,
    /// Also write the deadlock report as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

pub fn run(args: DeadlockDemoArgs) -> Result<()> {
    let cfg = NetworkConfig {
        width: args.mesh.width,
        height: args.mesh.height,
        buffer_depth_flits: args.buffer_flits,
        eject_queue_flits: args.eject_queue_flits,
        watchdog_cycles: args.watchdog,
        ..Default::default()
    };
    cfg.validate().map_err(|e| Exit::Usage(e.to_string()))?;
    let memory = cfg.memory();
    let needed = crate::footprint::PROCESS_BASE_BYTES + memory.fixed_bytes + 2 * memory.bytes_per_packet;
    let what = format!("a {}x{} mesh with {}-flit buffers", cfg.width, cfg.height, cfg.buffer_depth_flits);
    crate::footprint::check(needed, &what, "")?;
    let nodes = cfg.mesh().nodes() as u32;
    for (name, n) in [("--a", args.a), ("--b", args.b)] {
        if n >= nodes {
            return Err(Exit::Usage(format!("{name} {n}: the mesh has nodes 0..{}", nodes - 1)).into());
        }
    }
    if args.a == args.b || args.packet_flits == 0 {
        return Err(Exit::Usage("--a and --b must differ and --packet-flits must be at least 1".into()).into());
    }
    if args.watchdog == 0 {
        return Err(Exit::Usage("--watchdog must be at least 1 cycle here".into()).into());
    }
    let (a, b) = (NodeId(args.a), NodeId(args.b));
    let buffering = noc::scenarios::path_buffering_flits(&cfg, a, b);
    println!(
        "nodes {a} and {b} each send a {}-flit packet to the other; {buffering} flits of buffering per direction; nodes drain {}",
        args.packet_flits,
        if args.always_drain { "always" } else { "only after their own send completes" }
    );
    let policy = if args.always_drain { DrainPolicy::Auto } else { DrainPolicy::WhenSourceIdle };
    match noc::scenarios::exchange(cfg, a, b, args.packet_flits, policy) {
        Ok(cycle) => {
            println!("no deadlock: both packets delivered by cycle {cycle}");
            Ok(())
        }
        Err(deadlock) => {
            if let Some(path) = &args.json {
                let text = serde_json::to_string_pretty(&*deadlock.0)?;
                std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))?;
            }
            Err(Exit::Deadlock(deadlock.to_string()).into())
        }
    }
}
