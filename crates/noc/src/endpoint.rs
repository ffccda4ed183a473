//! What a network interface model sees of its node: the front of the ejection queue without taking it, how many
//! flits have arrived there, and a clock that can jump over cycles in which the network has nothing to do.
//!
//! A core-side interface (such as PIMP's receive FIFO, which *is* the node's ejection queue) needs these to answer
//! "is there a message, and from whom" at an exact cycle; popping still goes through [`Network::eject_pop`].

use crate::network::Network;
use crate::types::{Cycle, NodeId, PacketId};
use crate::watchdog::{self, DeadlockReport, NodeOwner};

/// The flit [`Network::eject_pop`] would return next, seen without taking it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EjectFront {
    pub packet: PacketId,
    /// Source node of its packet.
    pub src: NodeId,
    /// The packet's payload word.
    pub payload: u64,
    pub head: bool,
    pub tail: bool,
}

/// A packet its destination has not drained yet, as [`Network::undrained`] lists it: still in its source queue,
/// in the network, or in the destination's ejection queue. A cycle is `None` until the event has been simulated;
/// `ejected` (its tail entering the ejection queue) may lie a cycle or two ahead of [`Network::now`] for a flit on
/// the ejection channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undrained {
    pub packet: PacketId,
    pub src: NodeId,
    pub dst: NodeId,
    pub created: Cycle,
    pub injected: Option<Cycle>,
    pub ejected: Option<Cycle>,
}

impl Network {
    /// Every packet not yet drained by its destination, by packet id (for end-of-run accounting by interface
    /// models: what was still queued when the run stopped).
    pub fn undrained(&self) -> Vec<Undrained> {
        let mut free = vec![false; self.packets.len()];
        for &id in &self.free_packets {
            free[id as usize] = true;
        }
        let known = |c: u64| (c != u64::MAX).then_some(Cycle(c));
        self.packets
            .iter()
            .enumerate()
            .filter(|&(id, _)| !free[id])
            .map(|(id, rec)| Undrained {
                packet: PacketId(id as u32),
                src: NodeId(rec.src),
                dst: NodeId(rec.dst),
                created: Cycle(rec.created),
                injected: known(rec.injected),
                ejected: known(rec.ejected),
            })
            .collect()
    }

    /// The queue `eject_pop` would take from next (round-robin over VCs, arrived flits only).
    fn eject_front_queue(&self, n: usize) -> Option<usize> {
        let start = self.nodes[n].drain_rr as usize;
        (0..self.vcs).map(|k| n * self.vcs + (start + k) % self.vcs).find(|&q| {
            self.ej_len[q] > 0 && self.ej_buf[q * self.eject_depth + self.ej_head[q] as usize].arrival <= self.now
        })
    }

    /// The flit that [`Network::eject_pop`] would return now, without removing it.
    pub fn eject_peek(&self, node: NodeId) -> Option<EjectFront> {
        let q = self.eject_front_queue(node.0 as usize)?;
        let flit = self.ej_buf[q * self.eject_depth + self.ej_head[q] as usize];
        let rec = &self.packets[flit.packet as usize];
        Some(EjectFront {
            packet: PacketId(flit.packet),
            src: NodeId(rec.src),
            payload: rec.payload,
            head: flit.is_head(),
            tail: flit.is_tail(),
        })
    }

    /// Flits in `node`'s ejection queues that have arrived by now (flits still on the ejection channel, which
    /// already hold a slot, are not counted).
    pub fn eject_arrived(&self, node: NodeId) -> usize {
        let n = node.0 as usize;
        (0..self.vcs)
            .map(|v| {
                let q = n * self.vcs + v;
                (0..self.ej_len[q] as usize)
                    .filter(|&i| self.ej_buf[q * self.eject_depth + (self.ej_head[q] as usize + i) % self.eject_depth].arrival <= self.now)
                    .count()
            })
            .sum()
    }

    /// True when no flit is queued, in flight or waiting in an ejection queue: stepping would change nothing
    /// but the clock.
    pub fn is_idle(&self) -> bool {
        // A node with a non-empty source queue is always on the active list, which is short on a quiet network. A
        // packet still being written with all its written flits injected gives the node nothing to do.
        self.flits_in_network == 0 && self.active_nodes.iter().all(|&n| self.nodes[n as usize].queued_flits == 0)
    }

    /// Moves the clock to `cycle` without visiting anything, if the network is idle (returns false, and does
    /// nothing, otherwise). Exact: an idle network's state does not depend on the cycle. Credits still on their
    /// way back carry their landing cycle and are collected by cycle stamp, so they need no visit either.
    pub fn skip_idle_to(&mut self, cycle: Cycle) -> bool {
        if !self.is_idle() {
            return false;
        }
        self.now = self.now.max(cycle.0);
        true
    }

    /// The wait-for analysis the watchdog runs, on demand (for owners that detect a stall themselves, such as a
    /// chip whose cores all wait on the network).
    pub fn diagnose(&self) -> DeadlockReport {
        watchdog::diagnose(self)
    }

    /// Like [`Network::diagnose`], with what the owners of the nodes know about them (indexed by node; see
    /// [`NodeOwner`]).
    pub fn diagnose_with(&self, owners: &[Option<NodeOwner>]) -> DeadlockReport {
        watchdog::diagnose_with(self, owners)
    }

    /// The last cycle in which a flit moved (was injected, advanced or drained).
    pub fn last_progress(&self) -> Cycle {
        Cycle(self.last_progress)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::NetworkConfig;
    use crate::network::{DrainPolicy, Network};
    use crate::types::{Cycle, NodeId};

    #[test]
    fn undrained_lists_queued_travelling_and_waiting_packets() {
        let cfg = NetworkConfig { width: 2, height: 1, buffer_depth_flits: 2, eject_queue_flits: 2, ..NetworkConfig::default() };
        let mut net = Network::new(cfg).unwrap();
        net.set_drain(NodeId(1), DrainPolicy::Manual);
        for i in 0..8 {
            net.enqueue(NodeId(0), NodeId(1), 1, i, 0);
        }
        net.run_until(Cycle(50)).unwrap();
        let left = net.undrained();
        assert_eq!(left.len(), 8, "nothing was drained");
        assert!(left.iter().all(|p| p.src == NodeId(0) && p.dst == NodeId(1) && p.created == Cycle(0)));
        // The ejection queue (2) and the buffers on the way hold some; the rest never left the source queue.
        let waiting = left.iter().filter(|p| p.ejected.is_some_and(|c| c <= net.now())).count();
        assert_eq!(waiting, net.eject_arrived(NodeId(1)));
        let queued = left.iter().filter(|p| p.injected.is_none()).count() as u64;
        assert_eq!(queued, net.source_queue_flits(NodeId(0)));
        assert!(queued > 0 && waiting == 2, "{left:?}");
        let first = net.eject_pop(NodeId(1)).unwrap().delivery.unwrap();
        assert_eq!(net.undrained().len(), 7);
        assert!(net.undrained().iter().all(|p| p.packet != first.packet));
    }

    #[test]
    fn peek_shows_what_pop_takes_and_counts_arrivals() {
        let cfg = NetworkConfig { width: 2, height: 1, ..NetworkConfig::default() };
        let mut net = Network::new(cfg).unwrap();
        net.set_drain(NodeId(1), DrainPolicy::Manual);
        assert!(net.is_idle());
        net.enqueue(NodeId(0), NodeId(1), 1, 11, 0);
        net.enqueue(NodeId(0), NodeId(1), 1, 22, 0);
        assert!(!net.is_idle());
        assert!(!net.skip_idle_to(Cycle(100)), "a busy network does not jump");
        while net.eject_arrived(NodeId(1)) < 2 {
            assert!(net.now().0 < 100, "two flits should arrive quickly");
            net.step().unwrap();
        }
        let front = net.eject_peek(NodeId(1)).unwrap();
        assert_eq!((front.src, front.payload, front.head, front.tail), (NodeId(0), 11, true, true));
        let popped = net.eject_pop(NodeId(1)).unwrap();
        assert_eq!(popped.packet, front.packet);
        assert_eq!(net.eject_arrived(NodeId(1)), 1);
        assert_eq!(net.eject_peek(NodeId(1)).unwrap().payload, 22);
        net.eject_pop(NodeId(1)).unwrap();
        assert_eq!(net.eject_peek(NodeId(1)), None);
        assert!(net.undrained().is_empty());
        assert!(net.is_idle());
        let now = net.now();
        assert!(net.skip_idle_to(Cycle(now.0 + 1000)));
        assert_eq!(net.now(), Cycle(now.0 + 1000));
    }
}
