//! Statistics: per-packet timestamps, per-link flit counts and exact latency histograms.

use crate::types::{Cycle, NodeId, PacketId};
use serde::Serialize;

/// The life of one packet, reported once its tail has been drained by the destination node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Delivery {
    pub packet: PacketId,
    pub src: NodeId,
    pub dst: NodeId,
    pub flits: u16,
    /// Cycle the packet was queued at the source.
    pub created: Cycle,
    /// Cycle its head flit entered the injection channel.
    pub injected: Cycle,
    /// Cycle its tail flit entered the destination's ejection queue.
    pub ejected: Cycle,
    /// Cycle the destination node took the tail out of the ejection queue.
    pub drained: Cycle,
    pub payload: u64,
    pub tag: u64,
}

impl Delivery {
    /// Creation to tail ejection: includes source queueing.
    pub fn packet_latency(&self) -> u64 {
        self.ejected.0 - self.created.0
    }

    /// Head injection to tail ejection.
    pub fn network_latency(&self) -> u64 {
        self.ejected.0 - self.injected.0
    }
}

/// Flits carried by every router output (mesh links, and ejection channels on local ports).
#[derive(Clone, Debug)]
pub struct LinkStats {
    pub(crate) ports: usize,
    pub(crate) flits: Vec<u64>,
}

impl LinkStats {
    pub(crate) fn new(routers: usize, ports: usize) -> LinkStats {
        LinkStats { ports, flits: vec![0; routers * ports] }
    }

    /// Flits that left `router` through `port` since the network was built.
    pub fn flits(&self, router: usize, port: usize) -> u64 {
        self.flits[router * self.ports + port]
    }

    pub fn ports(&self) -> usize {
        self.ports
    }

    /// A copy of all counters, `router * ports + port`, for computing differences over a window.
    pub fn snapshot(&self) -> Vec<u64> {
        self.flits.clone()
    }
}

/// An exact histogram of integer latencies (one counter per value), giving exact percentiles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
}

impl Histogram {
    pub fn record(&mut self, value: u64) {
        let v = value as usize;
        if v >= self.counts.len() {
            self.counts.resize(v + 1, 0);
        }
        self.counts[v] += 1;
        self.total += 1;
        self.sum += u128::from(value);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn mean(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum as f64 / self.total as f64)
    }

    pub fn max(&self) -> Option<u64> {
        self.counts.iter().rposition(|&c| c > 0).map(|v| v as u64)
    }

    /// The smallest value `v` such that at least `q` (in 0..=1) of the samples are `<= v` (nearest rank).
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (v, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(v as u64);
            }
        }
        unreachable!("rank is at most the total count")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_use_nearest_rank() {
        let mut h = Histogram::default();
        assert_eq!(h.quantile(0.5), None);
        assert_eq!(h.mean(), None);
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.count(), 100);
        assert_eq!(h.quantile(0.5), Some(50));
        assert_eq!(h.quantile(0.99), Some(99));
        assert_eq!(h.quantile(1.0), Some(100));
        assert_eq!(h.quantile(0.0), Some(1));
        assert_eq!(h.max(), Some(100));
        assert_eq!(h.mean(), Some(50.5));
    }

    #[test]
    fn histogram_of_one_value() {
        let mut h = Histogram::default();
        h.record(7);
        h.record(7);
        assert_eq!(h.quantile(0.99), Some(7));
        assert_eq!(h.max(), Some(7));
    }
}
