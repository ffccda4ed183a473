//! Synthetic traffic: destination patterns, Bernoulli injection, and the warm-up / measurement / drain procedure
//! that turns one offered load into one point of a latency-throughput curve.
//!
//! Procedure for one rate (the method of Dally & Towles, ch. 23): every node creates a packet each cycle with
//! probability `rate / packet_flits` during all phases. Packets created in the measurement window are tagged; the
//! run goes on after the window until every tagged packet has been delivered (the drain phase, bounded by
//! `drain_limit_cycles`), so their latencies are measured under the same load. Accepted rate counts flits drained
//! by destinations during the window. The network is *saturated* when the source queues grow during the window
//! by more than 2% of the offered load, when tagged packets are still undelivered at the drain limit, or when the
//! source queues exceed `max_queue_flits_per_node` (the run then stops early to bound time and memory).

use crate::config::{ConfigError, NetworkConfig};
use crate::network::{Deadlock, Network};
use crate::topology::Mesh;
use crate::types::{NodeId, RouterId};
use rand::distr::{Bernoulli, Distribution};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;
use std::time::Instant;

/// How destinations are chosen.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Uniformly random over all nodes, the source included.
    Uniform,
    /// Router (x, y) sends to router (y, x); needs a square mesh.
    Transpose,
    /// Node bits inverted; needs a power-of-two node count.
    BitComplement,
    /// Node bits in reverse order; needs a power-of-two node count.
    BitReverse,
    /// Node bits rotated left by one; needs a power-of-two node count.
    Shuffle,
    /// Router (x, y) sends to (x + ceil(W/2) - 1, y + ceil(H/2) - 1), wrapping.
    Tornado,
    /// Router (x, y) sends to (x + 1, y + 1), wrapping.
    Neighbor,
    /// With probability `fraction` the destination is one of `nodes` (uniformly), otherwise uniform.
    Hotspot { nodes: Vec<u32>, fraction: f64 },
}

/// Names accepted on the command line, in documentation order.
pub const PATTERN_NAMES: &[&str] = &["uniform", "transpose", "bit-complement", "bit-reverse", "shuffle", "tornado", "neighbor", "hotspot"];

/// A traffic setting that cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum TrafficError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("pattern {pattern}: {reason}")]
    Pattern { pattern: String, reason: String },
    #[error("invalid traffic setting: {0}")]
    Setting(String),
    #[error(transparent)]
    Deadlock(#[from] Deadlock),
}

impl Pattern {
    /// The pattern called `name`; `hotspot` takes its nodes and fraction from the arguments.
    pub fn from_name(name: &str, hotspot_nodes: Vec<u32>, hotspot_fraction: f64) -> Result<Pattern, TrafficError> {
        Ok(match name {
            "uniform" => Pattern::Uniform,
            "transpose" => Pattern::Transpose,
            "bit-complement" => Pattern::BitComplement,
            "bit-reverse" => Pattern::BitReverse,
            "shuffle" => Pattern::Shuffle,
            "tornado" => Pattern::Tornado,
            "neighbor" => Pattern::Neighbor,
            "hotspot" => Pattern::Hotspot { nodes: hotspot_nodes, fraction: hotspot_fraction },
            other => {
                return Err(TrafficError::Pattern {
                    pattern: other.to_string(),
                    reason: format!("unknown pattern (expected one of {})", PATTERN_NAMES.join(", ")),
                })
            }
        })
    }

    pub fn name(&self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::Transpose => "transpose",
            Pattern::BitComplement => "bit-complement",
            Pattern::BitReverse => "bit-reverse",
            Pattern::Shuffle => "shuffle",
            Pattern::Tornado => "tornado",
            Pattern::Neighbor => "neighbor",
            Pattern::Hotspot { .. } => "hotspot",
        }
    }

    fn error(&self, reason: impl Into<String>) -> TrafficError {
        TrafficError::Pattern { pattern: self.name().to_string(), reason: reason.into() }
    }

    /// For permutations, the destination of every node; `None` for random patterns. Checks the mesh fits.
    pub fn permutation(&self, mesh: &Mesh) -> Result<Option<Vec<u32>>, TrafficError> {
        let nodes = mesh.nodes() as u32;
        let bits = nodes.trailing_zeros();
        let need_pow2 = || -> Result<(), TrafficError> {
            if nodes.is_power_of_two() {
                Ok(())
            } else {
                Err(self.error(format!("needs a power-of-two number of nodes, the mesh has {nodes}")))
            }
        };
        let by_router = |f: &dyn Fn(u32, u32) -> (u32, u32)| -> Vec<u32> {
            (0..nodes)
                .map(|n| {
                    let r = mesh.router_of(NodeId(n));
                    let (x, y) = mesh.coords(r);
                    let (dx, dy) = f(x, y);
                    mesh.router_at(dx, dy).0 * mesh.concentration + n % mesh.concentration
                })
                .collect()
        };
        let (w, h) = (mesh.width, mesh.height);
        Ok(Some(match self {
            Pattern::Uniform => return Ok(None),
            Pattern::Hotspot { nodes: hot, fraction } => {
                if hot.is_empty() {
                    return Err(self.error("needs at least one hotspot node"));
                }
                if let Some(&bad) = hot.iter().find(|&&n| n >= nodes) {
                    return Err(self.error(format!("hotspot node {bad} does not exist (the mesh has nodes 0..{})", nodes - 1)));
                }
                if !(0.0..=1.0).contains(fraction) {
                    return Err(self.error(format!("hotspot fraction {fraction} is outside [0, 1]")));
                }
                return Ok(None);
            }
            Pattern::Transpose => {
                if w != h {
                    return Err(self.error(format!("needs a square mesh, got {w}x{h}")));
                }
                by_router(&|x, y| (y, x))
            }
            Pattern::Tornado => by_router(&|x, y| ((x + w.div_ceil(2) - 1) % w, (y + h.div_ceil(2) - 1) % h)),
            Pattern::Neighbor => by_router(&|x, y| ((x + 1) % w, (y + 1) % h)),
            Pattern::BitComplement => {
                need_pow2()?;
                (0..nodes).map(|n| !n & (nodes - 1)).collect()
            }
            Pattern::BitReverse => {
                need_pow2()?;
                (0..nodes).map(|n| if bits == 0 { 0 } else { n.reverse_bits() >> (32 - bits) }).collect()
            }
            Pattern::Shuffle => {
                need_pow2()?;
                (0..nodes).map(|n| if bits == 0 { 0 } else { ((n << 1) | (n >> (bits - 1))) & (nodes - 1) }).collect()
            }
        }))
    }

    /// The probability that `src` sends to each destination (a row of the traffic matrix).
    fn destination_weights(&self, mesh: &Mesh, perm: &Option<Vec<u32>>, src: u32) -> Vec<(u32, f64)> {
        let nodes = mesh.nodes() as u32;
        match (self, perm) {
            (_, Some(p)) => vec![(p[src as usize], 1.0)],
            (Pattern::Hotspot { nodes: hot, fraction }, None) => {
                let mut w: Vec<(u32, f64)> = (0..nodes).map(|d| (d, (1.0 - fraction) / f64::from(nodes))).collect();
                for &h in hot {
                    w[h as usize].1 += fraction / hot.len() as f64;
                }
                w
            }
            _ => (0..nodes).map(|d| (d, 1.0 / f64::from(nodes))).collect(),
        }
    }

    /// Analytic zero-load packet latency averaged over the traffic matrix (every source equally likely).
    pub fn mean_zero_load_latency(&self, cfg: &NetworkConfig, packet_flits: u16) -> Result<f64, TrafficError> {
        let mesh = cfg.mesh();
        let perm = self.permutation(&mesh)?;
        let nodes = mesh.nodes() as u32;
        let mut total = 0.0;
        for s in 0..nodes {
            for (d, w) in self.destination_weights(&mesh, &perm, s) {
                let routers = u64::from(mesh.hops(mesh.router_of(NodeId(s)), mesh.router_of(NodeId(d)))) + 1;
                total += w * cfg.zero_load_latency(routers, u64::from(packet_flits)) as f64;
            }
        }
        Ok(total / f64::from(nodes))
    }
}

/// Everything about a traffic run except the rate.
#[derive(Clone, Debug, Serialize)]
pub struct TrafficSpec {
    pub network: NetworkConfig,
    /// Independent physical networks; each node sends its packets to them in turn.
    pub networks: u32,
    pub pattern: Pattern,
    pub packet_flits: u16,
    pub warmup_cycles: u64,
    pub measure_cycles: u64,
    pub drain_limit_cycles: u64,
    pub max_queue_flits_per_node: u64,
    pub seed: u64,
    /// Debug clocking (every router every cycle); results are identical, only slower.
    pub visit_all: bool,
}

impl TrafficSpec {
    pub fn new(network: NetworkConfig, pattern: Pattern) -> TrafficSpec {
        TrafficSpec {
            network,
            networks: 1,
            pattern,
            packet_flits: 1,
            warmup_cycles: 2_000,
            measure_cycles: 10_000,
            drain_limit_cycles: 20_000,
            max_queue_flits_per_node: 2_000,
            seed: 1,
            visit_all: false,
        }
    }

    pub fn validate(&self) -> Result<(), TrafficError> {
        self.network.validate()?;
        self.pattern.permutation(&self.network.mesh())?;
        if self.networks == 0 || self.networks > 16 {
            return Err(TrafficError::Setting(format!("networks = {}: must be between 1 and 16", self.networks)));
        }
        if self.packet_flits == 0 {
            return Err(TrafficError::Setting("packet_flits = 0: a packet has at least one flit".into()));
        }
        if self.measure_cycles == 0 {
            return Err(TrafficError::Setting("measure_cycles = 0: the measurement window must be at least one cycle".into()));
        }
        Ok(())
    }
}

/// One point of a latency-throughput curve. Latencies are in cycles; rates in flits per node per cycle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatePoint {
    /// The injection rate asked for.
    pub rate: f64,
    /// Flits created during the measurement window, per node per cycle.
    pub offered_rate: f64,
    /// Flits drained by destinations during the measurement window, per node per cycle.
    pub accepted_rate: f64,
    pub avg_packet_latency: Option<f64>,
    pub p50_packet_latency: Option<u64>,
    pub p99_packet_latency: Option<u64>,
    pub max_packet_latency: Option<u64>,
    pub avg_network_latency: Option<f64>,
    pub p99_network_latency: Option<u64>,
    /// Analytic zero-load latency for this pattern (what the average approaches as the rate goes to 0).
    pub zero_load_latency: f64,
    /// Mean analytic zero-load latency of the measured packets themselves; `avg_packet_latency` minus this is the
    /// average delay due to contention and queueing.
    pub avg_zero_load_latency_measured: Option<f64>,
    pub packets_measured: u64,
    pub packets_measured_delivered: u64,
    pub saturated: bool,
    /// Growth of the source queues during the measurement window, flits per node per cycle.
    pub source_queue_growth: f64,
    pub avg_link_utilization: f64,
    pub max_link_utilization: f64,
    /// Cycles simulated, all phases.
    pub simulated_cycles: u64,
    /// Host time for this point; the only field that is not deterministic.
    pub wall_seconds: f64,
}

const MEASURED: u64 = 1;

/// Seed of the random stream for one rate: independent of which other rates are in the sweep.
fn point_seed(seed: u64, rate: f64) -> u64 {
    let mut z = seed ^ rate.to_bits().rotate_left(17) ^ 0x9e37_79b9_7f4a_7c15;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Simulates one offered load. `progress` is called now and then with the fraction done (0..1).
pub fn run_rate(spec: &TrafficSpec, rate: f64, progress: &mut dyn FnMut(f64)) -> Result<RatePoint, TrafficError> {
    spec.validate()?;
    if !(0.0..=1.0).contains(&rate) || rate.is_nan() {
        return Err(TrafficError::Setting(format!("rate {rate} is outside [0, 1] flits/node/cycle")));
    }
    let started = Instant::now();
    let mesh = spec.network.mesh();
    let nodes = mesh.nodes();
    let perm = spec.pattern.permutation(&mesh)?;
    let mut nets = (0..spec.networks).map(|_| Network::new(spec.network.clone())).collect::<Result<Vec<_>, _>>()?;
    for net in &mut nets {
        net.set_visit_all(spec.visit_all);
    }
    let mut next_net = vec![0u32; nodes];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(point_seed(spec.seed, rate));
    let inject = Bernoulli::new(rate / f64::from(spec.packet_flits)).map_err(|e| TrafficError::Setting(e.to_string()))?;
    let hot_choice = match &spec.pattern {
        Pattern::Hotspot { nodes, fraction } => Some((nodes.clone(), Bernoulli::new(*fraction).expect("checked in validate"))),
        _ => None,
    };

    let window_start = spec.warmup_cycles;
    let mut window_end = spec.warmup_cycles + spec.measure_cycles;
    let mut packet_latency = crate::stats::Histogram::default();
    let mut network_latency = crate::stats::Histogram::default();
    let (mut measured, mut delivered_measured) = (0u64, 0u64);
    let (mut offered_flits, mut accepted_flits) = (0u64, 0u64);
    let (mut queue_at_start, mut queue_at_end) = (0u64, 0u64);
    let mut links_at_start: Vec<Vec<u64>> = Vec::new();
    let mut links_at_end: Vec<Vec<u64>> = Vec::new();
    let mut overflowed = false;
    let mut zero_load_sum = 0u64;
    let flits = u64::from(spec.packet_flits);
    // Router coordinates of every node, for the zero-load latency of each delivered packet.
    let node_xy: Vec<(u32, u32)> = (0..nodes as u32).map(|n| mesh.coords(mesh.router_of(NodeId(n)))).collect();
    let mut now = 0u64;
    loop {
        if now == window_start {
            queue_at_start = nets.iter().map(|n| n.total_source_queue_flits()).sum();
            links_at_start = nets.iter().map(|n| n.link_stats().snapshot()).collect();
        }
        if now == window_end {
            links_at_end = nets.iter().map(|n| n.link_stats().snapshot()).collect();
            queue_at_end = nets.iter().map(|n| n.total_source_queue_flits()).sum();
        }
        let in_window = now >= window_start && now < window_end;
        if now >= window_end && (delivered_measured == measured || now >= window_end + spec.drain_limit_cycles || overflowed) {
            break;
        }
        for src in 0..nodes {
            if !inject.sample(&mut rng) {
                continue;
            }
            let dst = match (&perm, &hot_choice) {
                (Some(p), _) => p[src],
                (None, Some((hot, choose_hot))) if choose_hot.sample(&mut rng) => hot[rng.random_range(0..hot.len())],
                _ => rng.random_range(0..nodes as u32),
            };
            let k = next_net[src] as usize;
            next_net[src] = if next_net[src] + 1 == spec.networks { 0 } else { next_net[src] + 1 };
            nets[k].enqueue(NodeId(src as u32), NodeId(dst), spec.packet_flits, 0, if in_window { MEASURED } else { 0 });
            if in_window {
                measured += 1;
                offered_flits += flits;
            }
        }
        for net in &mut nets {
            let drained_before = net.flits_drained();
            net.step()?;
            if in_window {
                accepted_flits += net.flits_drained() - drained_before;
            }
            for d in net.take_delivered() {
                if d.tag == MEASURED {
                    delivered_measured += 1;
                    let ((sx, sy), (dx, dy)) = (node_xy[d.src.0 as usize], node_xy[d.dst.0 as usize]);
                    let routers = u64::from(sx.abs_diff(dx) + sy.abs_diff(dy)) + 1;
                    zero_load_sum += spec.network.zero_load_latency(routers, u64::from(d.flits));
                    packet_latency.record(d.packet_latency());
                    network_latency.record(d.network_latency());
                }
            }
        }
        now += 1;
        if now % 256 == 0 {
            let queued: u64 = nets.iter().map(|n| n.total_source_queue_flits()).sum();
            if !overflowed && queued > spec.max_queue_flits_per_node * nodes as u64 {
                overflowed = true;
                if now < window_end {
                    // Stop measuring here: the network is far past saturation.
                    window_end = now.max(window_start + 1);
                    links_at_end = nets.iter().map(|n| n.link_stats().snapshot()).collect();
                    queue_at_end = queued;
                }
            }
            let total = (window_end + spec.drain_limit_cycles) as f64;
            progress((now as f64 / total).min(1.0));
        }
    }
    let window = (window_end - window_start) as f64;
    let node_cycles = nodes as f64 * window;
    let offered_rate = offered_flits as f64 / node_cycles;
    let accepted_rate = accepted_flits as f64 / node_cycles;
    let growth = (queue_at_end as f64 - queue_at_start as f64) / node_cycles;
    let (avg_util, max_util) = link_utilization(&mesh, &links_at_start, &links_at_end, window);
    let saturated = overflowed || delivered_measured < measured || growth > 0.02 * offered_rate;
    progress(1.0);
    Ok(RatePoint {
        rate,
        offered_rate,
        accepted_rate,
        avg_packet_latency: packet_latency.mean(),
        p50_packet_latency: packet_latency.quantile(0.5),
        p99_packet_latency: packet_latency.quantile(0.99),
        max_packet_latency: packet_latency.max(),
        avg_network_latency: network_latency.mean(),
        p99_network_latency: network_latency.quantile(0.99),
        zero_load_latency: spec.pattern.mean_zero_load_latency(&spec.network, spec.packet_flits)?,
        avg_zero_load_latency_measured: (delivered_measured > 0).then(|| zero_load_sum as f64 / delivered_measured as f64),
        packets_measured: measured,
        packets_measured_delivered: delivered_measured,
        saturated,
        source_queue_growth: growth,
        avg_link_utilization: avg_util,
        max_link_utilization: max_util,
        simulated_cycles: now,
        wall_seconds: started.elapsed().as_secs_f64(),
    })
}

/// Mean and maximum utilization (flits per cycle) of the router-to-router links over the window, all networks.
fn link_utilization(mesh: &Mesh, start: &[Vec<u64>], end: &[Vec<u64>], window: f64) -> (f64, f64) {
    let ports = mesh.ports();
    let (mut sum, mut max, mut count) = (0.0f64, 0.0f64, 0u64);
    for (s, e) in start.iter().zip(end) {
        for r in 0..mesh.routers() {
            for dir in crate::topology::Direction::ALL {
                if mesh.neighbor(RouterId(r as u32), dir).is_none() {
                    continue;
                }
                let i = r * ports + dir as usize;
                let u = (e[i] - s[i]) as f64 / window;
                sum += u;
                max = max.max(u);
                count += 1;
            }
        }
    }
    (if count > 0 { sum / count as f64 } else { 0.0 }, max)
}
