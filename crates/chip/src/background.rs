//! Background traffic: synthetic packets injected into a chip's network while a program runs, so the program's
//! messages share the mesh with it (the SCC broadcast study's Fig. 13). Injectors sit on chosen nodes; each sends
//! packets of a fixed length to destinations drawn from a traffic pattern, either at random times with a mean rate
//! (in flits per node per cycle, as `nocmsg traffic`) or every `interval` network cycles. Their packets are drained at
//! the destination like the interface's own and counted apart: `stats.json` reports their latency separately from
//! the program's.
//!
//! Injection times are drawn ahead (geometric gaps for a rate: the same process as a coin toss every cycle), so the
//! chip can still skip idle stretches exactly: it stops the network at the next injection.
//!
//! Written on the command line as `--background pattern=uniform,rate=0.05,flits=2,nodes=0-7,seed=1` (or
//! `interval=200` instead of `rate`); see [`BackgroundSpec::parse`].

use noc::traffic::Pattern;
use noc::{Delivery, Histogram, Mesh, Network, NodeId};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

/// The tag of background packets.
pub const BACKGROUND_TAG: u64 = 0x6267_0000_0000_0001;

/// When an injector sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Timing {
    /// Mean offered load in flits per cycle.
    Rate(f64),
    /// One packet every this many network cycles.
    Interval(u64),
}

/// One `--background` setting: injectors on `nodes`, all alike.
#[derive(Clone, Debug, PartialEq)]
pub struct BackgroundSpec {
    pub pattern: Pattern,
    pub timing: Timing,
    pub flits: u16,
    /// Network nodes carrying an injector (all nodes when not given).
    pub nodes: Option<Vec<u32>>,
    pub seed: u64,
}

impl BackgroundSpec {
    /// Parses `key=value` pairs separated by commas: `pattern` (a `nocmsg traffic` pattern, default uniform;
    /// hotspot takes `hot=` nodes and `fraction=`), exactly one of `rate` (flits per node per cycle, 0 to 1) and
    /// `interval` (network cycles between packets, at least 1), `flits` (packet length, default 1), `nodes` (list
    /// and ranges, e.g. `0-7,12`; default every node), `seed` (default 1).
    pub fn parse(text: &str) -> Result<BackgroundSpec, String> {
        let mut pattern = "uniform".to_string();
        let (mut rate, mut interval, mut flits, mut nodes, mut seed, mut hot, mut fraction) = (None, None, 1u16, None, 1u64, Vec::new(), 0.5);
        let bad = |key: &str, value: &str, why: &str| format!("--background {key}={value}: {why}");
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            // Node lists contain commas: a part without '=' continues the previous list.
            let Some((key, value)) = part.split_once('=') else {
                match nodes.as_mut() {
                    Some(list) => {
                        parse_nodes(part, list).map_err(|e| bad("nodes", part, &e))?;
                        continue;
                    }
                    None => return Err(format!("--background: '{part}' is not key=value (keys: pattern, rate, interval, flits, nodes, seed, hot, fraction)")),
                }
            };
            match key {
                "pattern" => pattern = value.to_string(),
                "rate" => {
                    let r: f64 = value.parse().map_err(|_| bad(key, value, "not a number"))?;
                    if !(r > 0.0 && r <= 1.0) {
                        return Err(bad(key, value, "must be in (0, 1] flits per node per cycle"));
                    }
                    rate = Some(r);
                }
                "interval" => {
                    let i: u64 = value.parse().map_err(|_| bad(key, value, "not a whole number"))?;
                    if i == 0 {
                        return Err(bad(key, value, "must be at least 1 cycle"));
                    }
                    interval = Some(i);
                }
                "flits" => {
                    flits = value.parse().ok().filter(|&f: &u16| (1..=256).contains(&f)).ok_or_else(|| bad(key, value, "must be 1 to 256"))?;
                }
                "nodes" => {
                    let mut list = Vec::new();
                    parse_nodes(value, &mut list).map_err(|e| bad(key, value, &e))?;
                    nodes = Some(list);
                }
                "seed" => seed = value.parse().map_err(|_| bad(key, value, "not a whole number"))?,
                "hot" => parse_nodes(value, &mut hot).map_err(|e| bad(key, value, &e))?,
                "fraction" => fraction = value.parse().ok().filter(|f: &f64| (0.0..=1.0).contains(f)).ok_or_else(|| bad(key, value, "must be in [0, 1]"))?,
                other => return Err(format!("--background: unknown key '{other}' (keys: pattern, rate, interval, flits, nodes, seed, hot, fraction)")),
            }
        }
        let timing = match (rate, interval) {
            (Some(r), None) => Timing::Rate(r),
            (None, Some(i)) => Timing::Interval(i),
            _ => return Err(format!("--background {text}: give exactly one of rate= and interval=")),
        };
        let pattern = Pattern::from_name(&pattern, hot, fraction).map_err(|e| format!("--background: {e}"))?;
        Ok(BackgroundSpec { pattern, timing, flits, nodes, seed })
    }
}

fn parse_nodes(text: &str, into: &mut Vec<u32>) -> Result<(), String> {
    for item in text.split(['+', ' ']).filter(|s| !s.is_empty()) {
        match item.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().map_err(|_| format!("'{item}' is not a node range"))?, b.parse().map_err(|_| format!("'{item}' is not a node range"))?);
                if a > b {
                    return Err(format!("range {item} is empty"));
                }
                into.extend(a..=b);
            }
            None => into.push(item.parse().map_err(|_| format!("'{item}' is not a node number"))?),
        }
    }
    Ok(())
}

/// Latency of a class of packets, in network cycles (creation to tail ejection, source queueing included).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    pub packets: u64,
    pub mean: Option<f64>,
    pub p50: Option<u64>,
    pub p99: Option<u64>,
    pub max: Option<u64>,
}

impl LatencySummary {
    pub fn of(h: &Histogram) -> LatencySummary {
        LatencySummary { packets: h.count(), mean: h.mean(), p50: h.quantile(0.5), p99: h.quantile(0.99), max: h.max() }
    }
}

/// What the background traffic did (`network.background` in `stats.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BackgroundStats {
    pub injectors: usize,
    pub packets_sent: u64,
    pub flits_sent: u64,
    /// Delivered packets and their latency.
    pub latency: LatencySummary,
}

struct Injector {
    node: u32,
    next_at: u64,
    rng: Xoshiro256PlusPlus,
    /// The spec it follows.
    spec: usize,
}

/// The chip's injectors.
pub struct Background {
    specs: Vec<BackgroundSpec>,
    perms: Vec<Option<Vec<u32>>>,
    injectors: Vec<Injector>,
    /// The earliest `next_at` of the injectors (the chip asks for it every network cycle).
    next: u64,
    nodes: u32,
    latency: Histogram,
    packets: u64,
    flits: u64,
}

impl Background {
    pub fn new(specs: &[BackgroundSpec], mesh: &Mesh) -> Result<Background, String> {
        let nodes = mesh.nodes() as u32;
        let mut perms = Vec::new();
        let mut injectors = Vec::new();
        for (k, spec) in specs.iter().enumerate() {
            perms.push(spec.pattern.permutation(mesh).map_err(|e| format!("--background: {e}"))?);
            if let Pattern::Hotspot { nodes: hot, .. } = &spec.pattern {
                if let Some(&n) = hot.iter().find(|&&n| n >= nodes) {
                    return Err(format!("--background hot={n}: the chip's network has nodes 0..{}", nodes - 1));
                }
            }
            let list: Vec<u32> = spec.nodes.clone().unwrap_or_else(|| (0..nodes).collect());
            for &node in &list {
                if node >= nodes {
                    return Err(format!("--background nodes: node {node} does not exist (the chip's network has nodes 0..{})", nodes - 1));
                }
                let seed = spec.seed ^ (u64::from(node) << 32) ^ (k as u64) << 56;
                let mut inj = Injector { node, next_at: 0, rng: Xoshiro256PlusPlus::seed_from_u64(seed), spec: k };
                // The first packet: a random phase within one interval, or a first geometric gap.
                inj.next_at = match spec.timing {
                    Timing::Interval(i) => inj.rng.random_range(0..i),
                    Timing::Rate(_) => Self::gap(&mut inj.rng, spec) - 1,
                };
                injectors.push(inj);
            }
        }
        let next = injectors.iter().map(|i| i.next_at).min().unwrap_or(u64::MAX);
        Ok(Background { specs: specs.to_vec(), perms, injectors, next, nodes, latency: Histogram::default(), packets: 0, flits: 0 })
    }

    /// Cycles to the next packet of a rate injector: geometric with success probability rate / flits, at least 1.
    fn gap(rng: &mut Xoshiro256PlusPlus, spec: &BackgroundSpec) -> u64 {
        let Timing::Rate(rate) = spec.timing else { unreachable!("interval injectors have no gaps") };
        let p = (rate / f64::from(spec.flits)).min(1.0);
        if p >= 1.0 {
            return 1;
        }
        let u: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
        (u.ln() / (1.0 - p).ln()).floor() as u64 + 1
    }

    /// The next cycle an injector sends.
    pub fn next_at(&self) -> u64 {
        self.next
    }

    /// Sends every packet due at `net.now()`.
    pub fn inject(&mut self, net: &mut Network) {
        let now = net.now().0;
        for inj in self.injectors.iter_mut().filter(|i| i.next_at <= now) {
            debug_assert_eq!(inj.next_at, now, "a background packet was left behind the network");
            let spec = &self.specs[inj.spec];
            let dst = match (&self.perms[inj.spec], &spec.pattern) {
                (Some(p), _) => p[inj.node as usize],
                (None, Pattern::Hotspot { nodes, fraction }) if inj.rng.random::<f64>() < *fraction => nodes[inj.rng.random_range(0..nodes.len())],
                _ => inj.rng.random_range(0..self.nodes),
            };
            net.enqueue(NodeId(inj.node), NodeId(dst), spec.flits, 0, BACKGROUND_TAG);
            self.packets += 1;
            self.flits += u64::from(spec.flits);
            inj.next_at = now
                + match spec.timing {
                    Timing::Interval(i) => i,
                    Timing::Rate(_) => Self::gap(&mut inj.rng, spec),
                };
        }
        self.next = self.injectors.iter().map(|i| i.next_at).min().unwrap_or(u64::MAX);
    }

    /// Counts a delivered packet if it is background traffic; returns whether it was.
    pub fn record(&mut self, d: &Delivery) -> bool {
        if d.tag != BACKGROUND_TAG {
            return false;
        }
        self.latency.record(d.packet_latency());
        true
    }

    pub fn stats(&self) -> BackgroundStats {
        BackgroundStats { injectors: self.injectors.len(), packets_sent: self.packets, flits_sent: self.flits, latency: LatencySummary::of(&self.latency) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_errors_name_the_key() {
        let s = BackgroundSpec::parse("pattern=uniform,rate=0.05,flits=2,nodes=0-3,7,seed=9").unwrap();
        assert_eq!((s.timing.clone(), s.flits, s.nodes.clone(), s.seed), (Timing::Rate(0.05), 2, Some(vec![0, 1, 2, 3, 7]), 9));
        assert_eq!(BackgroundSpec::parse("interval=100").unwrap().timing, Timing::Interval(100));
        for (text, want) in [
            ("rate=2", "--background rate=2: must be in (0, 1]"),
            ("interval=0", "interval=0: must be at least 1"),
            ("rate=0.1,interval=5", "exactly one of rate= and interval="),
            ("flits=0,rate=0.1", "flits=0: must be 1 to 256"),
            ("colour=red", "unknown key 'colour'"),
            ("pattern=zigzag,rate=0.1", "unknown pattern"),
            ("nodes=5-2,rate=0.1", "range 5-2 is empty"),
        ] {
            let err = BackgroundSpec::parse(text).unwrap_err();
            assert!(err.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn a_rate_injector_offers_its_rate_and_an_interval_one_its_interval() {
        let mesh = Mesh { width: 2, height: 2, concentration: 1, topology: noc::topology::Topology::Mesh };
        for (text, per_node) in [("rate=0.1,flits=2", 0.05), ("interval=40", 1.0 / 40.0)] {
            let mut bg = Background::new(&[BackgroundSpec::parse(text).unwrap()], &mesh).unwrap();
            let cfg = noc::NetworkConfig { width: 2, height: 2, ..noc::NetworkConfig::default() };
            let mut net = Network::new(cfg).unwrap();
            let cycles = 200_000u64;
            while net.now().0 < cycles {
                if bg.next_at() == net.now().0 {
                    bg.inject(&mut net);
                }
                net.step().unwrap();
                for d in net.take_delivered().collect::<Vec<_>>() {
                    assert!(bg.record(&d));
                }
            }
            let measured = bg.packets as f64 / 4.0 / cycles as f64;
            assert!((measured - per_node).abs() < per_node * 0.03, "{text}: {measured} packets per node per cycle, expected {per_node}");
            assert!(bg.stats().latency.packets > 0);
        }
    }
}
