//! `nocmsg traffic`: a latency/throughput sweep of synthetic traffic.

use crate::args::{parse_rate, MeshSize, NodeList, RateRange};
use crate::{classify, Exit};
use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use noc::topology::Topology;
use noc::{NetworkConfig, SwAllocator, VcAllocator, Pattern, RatePoint, RouterPipeline, Routing, TrafficSpec};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[derive(Args, Debug, Clone)]
pub struct TrafficArgs {
    /// Router mesh, WxH.
    #[arg(long, default_value = "8x8", value_name = "WxH")]
    pub mesh: MeshSize,
    /// Nodes attached to each router.
    #[arg(long, default_value_t = 1)]
    pub concentration: u32,
    /// Independent physical networks; each node uses them in turn.
    #[arg(long, default_value_t = 1)]
    pub networks: u32,
    /// uniform, transpose, bit-complement, bit-reverse, shuffle, tornado, neighbor or hotspot.
    #[arg(long, default_value = "uniform")]
    pub pattern: String,
    /// A BookSim2 configuration file (`key = value;`): the network, pattern, packet size, warm-up and measurement
    /// windows and seed come from it, BookSim2's defaults where it is silent (docs/noc.md has the mapping); a setting
    /// nocmsg does not model is an error. Its injection_rate is the rate unless --rate or --rates is given.
    #[arg(long, value_name = "FILE", conflicts_with_all = BOOKSIM_SETS)]
    pub booksim: Option<PathBuf>,
    /// Sweep of injection rates in flits/node/cycle, START:STOP:STEP (STOP included).
    #[arg(long, value_name = "START:STOP:STEP", conflicts_with = "rate", required_unless_present_any = ["rate", "booksim"], allow_hyphen_values = true)]
    pub rates: Option<RateRange>,
    /// A single injection rate in flits/node/cycle.
    #[arg(long, value_parser = parse_rate, allow_hyphen_values = true)]
    pub rate: Option<f64>,
    #[arg(long, default_value_t = 1)]
    pub packet_flits: u16,
    /// Depth of each input VC buffer.
    #[arg(long, default_value_t = 8)]
    pub buffer_flits: u32,
    #[arg(long, default_value_t = 1)]
    pub vcs: u32,
    /// Router pipeline: 1stage or 4stage.
    #[arg(long, default_value = "4stage")]
    pub router: RouterPipeline,
    /// Topology: mesh, torus or ring (a torus of height 1: --mesh Kx1). On a torus or ring xy and yx need 2 VCs.
    #[arg(long, default_value = "mesh")]
    pub topology: Topology,
    /// Routing function: xy, yx (dimension order), west-first, odd-even (turn models, mesh only) or min-adaptive
    /// (Duato, mesh only, 2 VCs or more).
    #[arg(long, default_value = "xy", value_parser = parse_routing)]
    pub routing: Routing,
    /// VC allocator: islip (BookSim2's default), lowest (separable, lowest free VC first; nocmsg before issue 15),
    /// round-robin (separable, rotating over the VCs), output-first (separable) or wavefront.
    #[arg(long, default_value = "islip")]
    pub vc_allocator: VcAllocator,
    /// Switch allocator: islip (BookSim2's default), input-first (separable; nocmsg before issue 15), output-first
    /// (separable) or wavefront.
    #[arg(long, default_value = "islip")]
    pub sw_allocator: SwAllocator,
    /// Iterations of the islip allocators (BookSim2's islip(N)).
    #[arg(long, default_value_t = 1)]
    pub allocator_iterations: u32,
    /// 4stage: a head bids for the switch in the cycle of its VC allocation (BookSim2's speculative = 1).
    #[arg(long)]
    pub speculative_switch_allocation: bool,
    /// Hand an output VC out again only once its last tail's credit is back (BookSim2's wait_for_tail_credit = 1).
    #[arg(long)]
    pub wait_for_tail_credit: bool,
    #[arg(long, default_value_t = 1)]
    pub credit_delay: u32,
    /// 4stage: cycles of route computation before VC allocation, 0 to 16 (BookSim2's routing_delay; 0 and 1 as there).
    #[arg(long, default_value_t = 1)]
    pub routing_delay: u32,
    /// 4stage: cycles of one VC allocation; a head that loses tries again that much later (BookSim2's vc_alloc_delay).
    #[arg(long, default_value_t = 1)]
    pub vc_alloc_delay: u32,
    /// 4stage: cycles of one switch allocation; a VC bids (and sends) at most once per that many cycles (BookSim2's
    /// sw_alloc_delay).
    #[arg(long, default_value_t = 1)]
    pub sw_alloc_delay: u32,
    /// 4stage: cycles of switch traversal (BookSim2's st_prepare_delay + st_final_delay).
    #[arg(long, default_value_t = 1)]
    pub crossbar_delay: u32,
    /// Cycles of an output stage between the crossbar and the channel, on every output port (0: none, as BookSim2).
    #[arg(long, default_value_t = 0)]
    pub output_delay: u32,
    /// Crossbar inputs per input port: VC v uses input v mod N (BookSim2's input_speedup).
    #[arg(long, default_value_t = 1)]
    pub input_speedup: u32,
    /// Crossbar outputs per output port, with an output queue sending one flit per cycle (BookSim2's output_speedup).
    #[arg(long, default_value_t = 1)]
    pub output_speedup: u32,
    #[arg(long, default_value_t = 1)]
    pub link_latency: u32,
    /// Cycles from injection to the router's input buffer (2 as in BookSim2; 1 before issue 15).
    #[arg(long, default_value_t = 2)]
    pub injection_channel_cycles: u32,
    /// 4stage: body flits bid for the switch in the cycle they are written (BookSim2; true, also the bare flag) or
    /// the next (false, before issue 15).
    #[arg(long, default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set, value_name = "BOOL")]
    pub body_bids_on_arrival: bool,
    /// Depth of each node's ejection queue (per VC).
    #[arg(long, default_value_t = 16)]
    pub eject_queue_flits: u32,
    /// Nodes receiving the extra traffic of the hotspot pattern (default: the node nearest the mesh centre).
    #[arg(long, value_name = "N,N,...")]
    pub hotspot_nodes: Option<NodeList>,
    /// Fraction of packets sent to a hotspot node.
    #[arg(long, default_value_t = 0.2)]
    pub hotspot_fraction: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value_t = 2_000)]
    pub warmup: u64,
    #[arg(long, default_value_t = 10_000)]
    pub measure: u64,
    /// Longest drain phase before the point is declared saturated.
    #[arg(long, default_value_t = 20_000)]
    pub drain_limit: u64,
    /// Source-queue flits per node beyond which the run stops early as saturated.
    #[arg(long, default_value_t = 2_000)]
    pub max_queue_flits: u64,
    /// Cycles without any flit moving before the deadlock watchdog fires (0: never).
    #[arg(long, default_value_t = 10_000)]
    pub watchdog: u64,
    /// Rates simulated in parallel (each is deterministic on its own).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Debug clocking: visit every router every cycle (identical results, slower).
    #[arg(long)]
    pub visit_all: bool,
    /// Write all points as a JSON array.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write all points as CSV (simulated quantities only, so the file is byte-identical across runs).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Print nothing on stdout.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The options a BookSim2 file (`--booksim`) sets, so they cannot be given beside it.
const BOOKSIM_SETS: [&str; 30] = [
    "mesh",
    "topology",
    "concentration",
    "networks",
    "pattern",
    "packet_flits",
    "buffer_flits",
    "vcs",
    "router",
    "routing",
    "vc_allocator",
    "sw_allocator",
    "allocator_iterations",
    "speculative_switch_allocation",
    "wait_for_tail_credit",
    "credit_delay",
    "routing_delay",
    "crossbar_delay",
    "output_delay",
    "vc_alloc_delay",
    "sw_alloc_delay",
    "input_speedup",
    "output_speedup",
    "link_latency",
    "injection_channel_cycles",
    "body_bids_on_arrival",
    "hotspot_nodes",
    "seed",
    "warmup",
    "measure",
];

fn parse_routing(s: &str) -> Result<Routing, String> {
    Routing::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = noc::routing::ROUTING_FUNCTIONS.iter().map(|(n, _, _)| *n).collect();
        format!("unknown routing '{s}' (expected one of {})", names.join(", "))
    })
}

/// One output row: the point and the settings that produced it, flat so pandas reads it directly.
#[derive(Serialize)]
struct Row<'a> {
    mesh: String,
    concentration: u32,
    networks: u32,
    pattern: &'a str,
    router: &'a str,
    routing: &'a str,
    vcs: u32,
    buffer_flits: u32,
    packet_flits: u16,
    seed: u64,
    #[serde(flatten)]
    point: &'a RatePoint,
}

impl TrafficArgs {
    /// The BookSim2 configuration of `--booksim`, read.
    fn booksim_run(&self) -> Result<Option<noc::booksim::BookSimRun>> {
        let Some(path) = &self.booksim else { return Ok(None) };
        let text = std::fs::read_to_string(path).map_err(|e| Exit::Usage(format!("--booksim {}: {e}", path.display())))?;
        let run = noc::booksim::read(&text).map_err(|e| Exit::Usage(format!("--booksim {}: {e}", path.display())))?;
        Ok(Some(run))
    }

    pub fn spec(&self) -> Result<TrafficSpec> {
        if let Some(run) = self.booksim_run()? {
            let mut spec = run.spec;
            spec.network.eject_queue_flits = self.eject_queue_flits;
            spec.network.watchdog_cycles = self.watchdog;
            spec.drain_limit_cycles = self.drain_limit;
            spec.max_queue_flits_per_node = self.max_queue_flits;
            spec.visit_all = self.visit_all;
            spec.validate().map_err(classify)?;
            return Ok(spec);
        }
        let network = NetworkConfig {
            topology: self.topology,
            width: self.mesh.width,
            height: self.mesh.height,
            concentration: self.concentration,
            vcs: self.vcs,
            buffer_depth_flits: self.buffer_flits,
            credit_delay_cycles: self.credit_delay,
            routing_delay_cycles: self.routing_delay,
            crossbar_delay_cycles: self.crossbar_delay,
            output_delay_cycles: self.output_delay,
            vc_alloc_delay_cycles: self.vc_alloc_delay,
            sw_alloc_delay_cycles: self.sw_alloc_delay,
            input_speedup: self.input_speedup,
            output_speedup: self.output_speedup,
            link_latency_cycles: self.link_latency,
            injection_channel_cycles: self.injection_channel_cycles,
            body_bids_on_arrival: self.body_bids_on_arrival,
            pipeline: self.router,
            routing: self.routing,
            vc_allocator: self.vc_allocator,
            sw_allocator: self.sw_allocator,
            allocator_iterations: self.allocator_iterations,
            speculative_switch_allocation: self.speculative_switch_allocation,
            wait_for_tail_credit: self.wait_for_tail_credit,
            eject_queue_flits: self.eject_queue_flits,
            watchdog_cycles: self.watchdog,
        };
        let mesh = network.mesh();
        let hotspot = self.hotspot_nodes.clone().map(|list| list.0).unwrap_or_else(|| {
            let centre = mesh.router_at(mesh.width / 2, mesh.height / 2);
            vec![centre.0 * mesh.concentration]
        });
        let pattern = Pattern::from_name(&self.pattern, hotspot, self.hotspot_fraction).map_err(classify)?;
        let spec = TrafficSpec {
            networks: self.networks,
            packet_flits: self.packet_flits,
            warmup_cycles: self.warmup,
            measure_cycles: self.measure,
            drain_limit_cycles: self.drain_limit,
            max_queue_flits_per_node: self.max_queue_flits,
            seed: self.seed,
            visit_all: self.visit_all,
            ..TrafficSpec::new(network, pattern)
        };
        spec.validate().map_err(classify)?;
        Ok(spec)
    }

    pub fn rate_list(&self) -> Result<Vec<f64>> {
        match (&self.rates, self.rate) {
            (Some(r), _) => Ok(r.0.clone()),
            (None, Some(r)) => Ok(vec![r]),
            (None, None) => match self.booksim_run()?.and_then(|run| run.rate) {
                Some(r) => Ok(vec![r]),
                None => Err(Exit::Usage("the BookSim2 file gives no injection_rate: pass --rate or --rates".into()).into()),
            },
        }
    }
}

/// Runs every rate, `jobs` at a time, and returns the points in rate order.
pub fn sweep(spec: &TrafficSpec, rates: &[f64], jobs: usize) -> Result<Vec<RatePoint>> {
    const TICKS: u64 = 1000;
    let bar = ProgressBar::new(rates.len() as u64 * TICKS);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {percent:>3}% {msg}").expect("valid template"),
    );
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<RatePoint, noc::TrafficError>>>> = Mutex::new((0..rates.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, rates.len().max(1)) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= rates.len() {
                    break;
                }
                let mut done = 0u64;
                let result = noc::run_rate(spec, rates[k], &mut |fraction| {
                    let now = (fraction * TICKS as f64) as u64;
                    if now > done {
                        bar.inc(now - done);
                        done = now;
                    }
                });
                bar.inc(TICKS.saturating_sub(done));
                bar.set_message(format!("rate {} done", rates[k]));
                let failed = result.is_err();
                results.lock().expect("no panics while holding the lock")[k] = Some(result);
                if failed {
                    next.store(rates.len(), Ordering::Relaxed);
                }
            });
        }
    });
    bar.finish_and_clear();
    let mut points = Vec::with_capacity(rates.len());
    for r in results.into_inner().expect("threads finished") {
        match r {
            Some(Ok(p)) => points.push(p),
            Some(Err(e)) => return Err(classify(e)),
            None => {}
        }
    }
    Ok(points)
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}

/// The memory a sweep needs at its peak, in bytes: the process, and for each point running at once its networks,
/// its packets and its bookkeeping; with a description of where it goes.
pub fn memory_needed(spec: &TrafficSpec, rates: &[f64], jobs: usize) -> (u64, String) {
    let net = spec.network.memory();
    let mesh = spec.network.mesh();
    let (nodes, channels) = (mesh.nodes() as u64, (mesh.routers() * mesh.ports()) as u64);
    let networks = u64::from(spec.networks);
    let flits = u64::from(spec.packet_flits);
    let rate = rates.iter().copied().fold(0.0, f64::max);
    // The longest a point runs: warm-up, window, drain, and the 256 cycles between two checks of the queues.
    let cycles = spec.warmup_cycles.saturating_add(spec.measure_cycles).saturating_add(spec.drain_limit_cycles).saturating_add(256);
    // Packets alive at once: queued at the sources and held in the buffers (one packet per node may be half
    // injected), but never more than are created (10% above the mean, against the randomness of injection). The
    // run stops when the queued flits exceed --max-queue-flits per node, checked every 256 cycles, but not before
    // the warm-up has ended, so during the warm-up the queues grow as fast as packets are created.
    let per_node = |cycles: u64| (1.1 * rate * cycles as f64).ceil() as u64;
    let queue_bound = spec.max_queue_flits_per_node.saturating_add(per_node(256)).max(per_node(spec.warmup_cycles + 1));
    let queued_flits = nodes.saturating_mul(queue_bound);
    let alive = (queued_flits / flits + nodes).saturating_add(networks.saturating_mul(net.packets_in_buffers(flits)));
    let created = (1.1 * rate / flits as f64 * nodes as f64 * cycles as f64) as u64 + 64;
    // Records and queues grow by doubling: in place, or into new arrays while the heap keeps the smaller ones left
    // behind (up to twice their size). The first point of a thread grows mostly in place (a saturated 16x16 point
    // peaked at 0.9x the packets' own bytes); points that follow one another in a thread reuse a heap the earlier
    // ones fragmented (a sweep of ten 16x16 points: 1.75x). Counted at 1.25x and 1.75x.
    let parallel = jobs.clamp(1, rates.len().max(1)) as u64;
    let growth_quarters = if rates.len() as u64 > parallel { 7 } else { 5 };
    let packets = alive.min(created).saturating_mul(net.bytes_per_packet).saturating_mul(growth_quarters) / 4;
    // Per node: the next network to use, router coordinates, the permutation and a row of the traffic matrix; link
    // counters snapshotted at the window's start and end; a latency histogram of packets and one of the network.
    let bookkeeping = nodes * (4 + 8 + 4 + 16) + networks * channels * 8 * 3 + 2 * 8 * cycles;
    let networks_bytes = networks.saturating_mul(net.fixed_bytes);
    let point = networks_bytes.saturating_add(packets).saturating_add(bookkeeping);
    let total = crate::footprint::PROCESS_BASE_BYTES.saturating_add(parallel.saturating_mul(point));
    let human = crate::footprint::human;
    let mut why = format!(
        "{} for the network{} and {} for packets queued or in flight, which --max-queue-flits ({} per node) bounds",
        human(networks_bytes),
        if networks > 1 { "s" } else { "" },
        human(packets),
        spec.max_queue_flits_per_node
    );
    if parallel > 1 {
        why = format!("{why}, for each of {parallel} rates run at once (--jobs)");
    }
    (total, why)
}

/// "a 1024x1024 mesh with concentration 4, 8 VCs of 64 flits"
fn describe(spec: &TrafficSpec) -> String {
    let n = &spec.network;
    // "an 8x8", "an 18x18", "a 16x16"
    let w = n.width.to_string();
    let vowel = w.starts_with('8') || ((w.starts_with("11") || w.starts_with("18")) && w.len() % 3 == 2);
    let mut text = format!("{} {}x{} {}", if vowel { "an" } else { "a" }, n.width, n.height, n.topology);
    if n.concentration > 1 {
        text += &format!(" with concentration {}", n.concentration);
    }
    text += &format!(", {} VC{} of {} flits", n.vcs, if n.vcs > 1 { "s" } else { "" }, n.buffer_depth_flits);
    if spec.networks > 1 {
        text += &format!(", {} networks", spec.networks);
    }
    text
}

pub fn run(args: TrafficArgs) -> Result<()> {
    let spec = args.spec()?;
    if args.jobs == 0 {
        return Err(Exit::Usage("--jobs must be at least 1".into()).into());
    }
    let rates = args.rate_list()?;
    let (needed, why) = memory_needed(&spec, &rates, args.jobs);
    crate::footprint::check(needed, &describe(&spec), &why)?;
    let points = sweep(&spec, &rates, args.jobs)?;
    // The mesh column names a torus or ring after the shape ("4x4 torus"), so existing CSVs keep their columns.
    let mesh = match spec.network.topology {
        Topology::Mesh => format!("{}x{}", spec.network.width, spec.network.height),
        other => format!("{}x{} {other}", spec.network.width, spec.network.height),
    };
    let rows: Vec<Row> = points
        .iter()
        .map(|p| Row {
            mesh: mesh.clone(),
            concentration: spec.network.concentration,
            networks: spec.networks,
            pattern: spec.pattern.name(),
            router: spec.network.pipeline.name(),
            routing: spec.network.routing.name(),
            vcs: spec.network.vcs,
            buffer_flits: spec.network.buffer_depth_flits,
            packet_flits: spec.packet_flits,
            seed: spec.seed,
            point: p,
        })
        .collect();
    if let Some(path) = &args.json {
        let file = std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut w = std::io::BufWriter::new(file);
        serde_json::to_writer_pretty(&mut w, &rows)?;
        writeln!(w)?;
    }
    if let Some(path) = &args.csv {
        write_csv(path, &rows)?;
    }
    if !args.quiet {
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "# {mesh} {} {} routing {}, {} VC x {} flits ({} VC allocator), {}-flit packets; zero-load latency {:.2} cycles",
            spec.pattern.name(),
            spec.network.pipeline,
            spec.network.routing.name(),
            spec.network.vcs,
            spec.network.buffer_depth_flits,
            spec.network.vc_allocator,
            spec.packet_flits,
            points.first().map(|p| p.zero_load_latency).unwrap_or(f64::NAN)
        )?;
        writeln!(out, "{:>7} {:>8} {:>8} {:>9} {:>5} {:>5} {:>6} {:>9} {:>5}", "rate", "offered", "accepted", "avg_lat", "p50", "p99", "max", "net_lat", "sat")?;
        for p in &points {
            writeln!(
                out,
                "{:>7.4} {:>8.4} {:>8.4} {:>9} {:>5} {:>5} {:>6} {:>9} {:>5}",
                p.rate,
                p.offered_rate,
                p.accepted_rate,
                opt(p.avg_packet_latency.map(|v| format!("{v:.2}"))),
                opt(p.p50_packet_latency),
                opt(p.p99_packet_latency),
                opt(p.max_packet_latency),
                opt(p.avg_network_latency.map(|v| format!("{v:.2}"))),
                if p.saturated { "yes" } else { "no" }
            )?;
        }
    }
    Ok(())
}

/// CSV with every column of the JSON except `wall_seconds`, so equal runs give equal files.
fn write_csv(path: &std::path::Path, rows: &[Row]) -> Result<()> {
    let mut w = csv::Writer::from_path(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut header_written = false;
    for row in rows {
        let value = serde_json::to_value(row)?;
        let obj = value.as_object().expect("a row is an object");
        let keys: Vec<&String> = obj.keys().filter(|k| k.as_str() != "wall_seconds").collect();
        if !header_written {
            w.write_record(keys.iter().map(|k| k.as_str()))?;
            header_written = true;
        }
        w.write_record(keys.iter().map(|k| match &obj[k.as_str()] {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        }))?;
    }
    w.flush()?;
    Ok(())
}
