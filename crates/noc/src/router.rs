//! The router pipeline: route computation, VC allocation, switch allocation and switch traversal for one router
//! in one cycle.
//!
//! Stages are gated by cycle stamps rather than pipeline registers: an input VC records the cycle from which its
//! next stage may run (`ready_at`; for an idle VC, the cycle after its last tail left), and a flit records the cycle
//! it arrived. With the `4stage` pipeline a head flit
//! arriving in cycle `a` does route computation in `a`, VC allocation from `a + 1`, switch allocation from `a + 2`,
//! switch traversal in the cycle after it wins, then spends a cycle on the link; a body flit may bid for the switch
//! from the cycle after it was written. With `1stage` everything happens in the arrival cycle. Within one cycle the
//! steps run in the order RC -> VA -> SA -> traversal, so an output VC freed by a tail this cycle is allocated next
//! cycle, and a VC that finished allocation this cycle (4stage) bids for the switch next cycle.
//!
//! Every input VC keeps the cycle at which it next has something to do (`due_at`: its head's VC allocation, its
//! front flit's switch bid, a retry after losing an allocation, or the landing of the credit it waits for); a
//! router sleeps until the earliest of its VCs' due times, and a visit looks only at the VCs that are due. Debug
//! clocking instead derives every VC's due time from its state each cycle, and the tests require the same results.
//!
//! Both allocators are separable and round-robin: VC allocation grants free output VCs of each output port to
//! requesters in round-robin order; switch allocation first picks one VC per input port, then one input per output
//! port, and moves a pointer only when its choice is granted.

use crate::config::MAX_CONCENTRATION;
use crate::network::{wrap, Flit, Network, VcState, NO_OWNER};
use crate::topology::MESH_PORTS;

pub(crate) const MAX_PORTS: usize = MESH_PORTS + MAX_CONCENTRATION as usize;

/// The lowest set bit of `mask` at or after bit `start` (< 64), wrapping around. `mask` must be non-zero.
/// Branch-free: rotating bit `start` down to bit 0 turns "first at or after start, wrapping" into "lowest".
#[inline]
pub(crate) fn round_robin_pick(mask: u64, start: u32) -> u32 {
    debug_assert!(mask != 0 && start < 64);
    (mask.rotate_right(start).trailing_zeros() + start) & 63
}

/// A router step specialised for one configuration class (chosen once per network).
pub(crate) type StepRouterFn = fn(&mut Network, usize, u64);

impl Network {
    /// The router step for this configuration: the one-VC and pipeline cases are compiled separately so the hot
    /// loop has constant VC counts and stage gaps.
    pub(crate) fn router_step_fn(&self) -> StepRouterFn {
        // FIVE_PORTS: one node per router, so the per-VC loops have a constant trip count of five.
        match (self.vcs == 1, self.timing.stage_gap, self.ports == 5) {
            (true, 1, true) => Network::step_router_impl::<true, 1, true>,
            (true, 1, false) => Network::step_router_impl::<true, 1, false>,
            (true, _, true) => Network::step_router_impl::<true, 0, true>,
            (true, _, false) => Network::step_router_impl::<true, 0, false>,
            (false, 1, _) => Network::step_router_impl::<false, 1, false>,
            (false, _, _) => Network::step_router_impl::<false, 0, false>,
        }
    }

    fn step_router_impl<const ONE_VC: bool, const GAP: u64, const FIVE_PORTS: bool>(&mut self, r: usize, now: u64) {
        let ports = if FIVE_PORTS { 5 } else { self.ports };
        let depth = self.depth;
        let vcs = if ONE_VC { 1 } else { self.vcs };
        let n = ports * vcs;
        let base = r * n;
        let gap = GAP;
        debug_assert_eq!(gap, self.timing.stage_gap);

        // The VCs with something due now. In debug clocking every VC's due time is derived afresh from its state,
        // so the incremental `due_at` bookkeeping of the fast path is held to it by the differential tests.
        let mut due = 0u64;
        if self.visit_all {
            for l in 0..n {
                due |= u64::from(self.front_due(base + l) <= now) << l;
            }
        } else {
            for l in 0..n {
                due |= u64::from(self.due_at[base + l] <= now) << l;
            }
        }
        let mut va_req = [0u64; MAX_PORTS];
        let mut va_ports = 0u32;
        let mut sa_req = 0u64;

        // Route computation, and collecting VC and switch requests.
        while due != 0 {
            let local = due.trailing_zeros() as usize;
            due &= due - 1;
            let i = base + local;
            let actual = self.front_due(i);
            if actual > now {
                // Woken early (a credit for a VC that is not ready yet): nothing to do before `actual`.
                self.due_at[i] = actual;
                continue;
            }
            let vc = self.ivc[i];
            match vc.state {
                VcState::Idle => {
                    // Route computation ran in the cycle the head reached the front (its arrival, or the cycle after
                    // the previous tail left); it has no contention, so it is evaluated here, when VC allocation
                    // is due, saving a visit.
                    let flit = self.buf[i * depth + vc.head as usize];
                    debug_assert!(flit.is_head(), "an idle VC must start with a head flit");
                    let out = self.route_port(r, self.packets[flit.packet as usize].dst);
                    let v = &mut self.ivc[i];
                    v.state = VcState::Routed;
                    v.out_port = out;
                    v.ready_at = now;
                    va_req[out as usize] |= 1 << local;
                    va_ports |= 1 << out;
                }
                VcState::Routed => {
                    va_req[vc.out_port as usize] |= 1 << local;
                    va_ports |= 1 << vc.out_port;
                }
                VcState::Active => {
                    let o = base + vc.out_port as usize * vcs + vc.out_vc as usize;
                    self.bid_or_wait_for_credit(i, o, now, &mut sa_req, local);
                }
            }
        }

        // VC allocation: each output port hands its free VCs to requesters in round-robin order.
        while va_ports != 0 {
            let o = va_ports.trailing_zeros() as usize;
            va_ports &= va_ports - 1;
            let ob = base + o * vcs;
            let mut free = 0u64;
            for v in 0..vcs {
                free |= u64::from(self.ovc[ob + v].owner == NO_OWNER) << v;
            }
            let mut pending = va_req[o];
            let start = u32::from(self.rr_va[r * ports + o]);
            let mut last = None;
            while free != 0 && pending != 0 {
                let pick = round_robin_pick(pending, start) as usize;
                pending &= !(1 << pick);
                let ov = free.trailing_zeros() as usize;
                free &= free - 1;
                self.ovc[ob + ov].owner = pick as u16;
                let v = &mut self.ivc[base + pick];
                v.state = VcState::Active;
                v.out_vc = ov as u8;
                v.ready_at = now + gap;
                self.due_at[base + pick] = now + gap;
                if gap == 0 {
                    self.bid_or_wait_for_credit(base + pick, ob + ov, now, &mut sa_req, pick);
                }
                last = Some(pick);
            }
            if let Some(pick) = last {
                self.rr_va[r * ports + o] = wrap(pick + 1, n) as u8;
            }
            // Lost VC allocation: try again next cycle.
            while pending != 0 {
                let l = pending.trailing_zeros() as usize;
                pending &= pending - 1;
                self.due_at[base + l] = now + 1;
            }
        }

        if sa_req != 0 {
            // Switch allocation, input stage: one VC per input port.
            let vc_mask = (1u64 << vcs) - 1;
            let mut chosen = [0u8; MAX_PORTS];
            let mut out_req = [0u64; MAX_PORTS];
            let mut out_ports = 0u32;
            let mut req = sa_req;
            while req != 0 {
                let p = self.port_of_bit[req.trailing_zeros() as usize] as usize;
                let port_bits = (req >> (p * vcs)) & vc_mask;
                req &= !(vc_mask << (p * vcs));
                let v = if vcs == 1 { 0 } else { round_robin_pick(port_bits, u32::from(self.rr_sa_in[r * ports + p])) as usize };
                chosen[p] = v as u8;
                let o = self.ivc[base + p * vcs + v].out_port as usize;
                out_req[o] |= 1 << p;
                out_ports |= 1 << o;
            }
            // Output stage: one input per output port; the winners traverse.
            while out_ports != 0 {
                let o = out_ports.trailing_zeros() as usize;
                out_ports &= out_ports - 1;
                let p = round_robin_pick(out_req[o], u32::from(self.rr_sa_out[r * ports + o])) as usize;
                self.rr_sa_out[r * ports + o] = wrap(p + 1, ports) as u8;
                let v = chosen[p] as usize;
                self.rr_sa_in[r * ports + p] = wrap(v + 1, vcs) as u8;
                self.traverse(r, p, v, now);
                sa_req &= !(1 << (p * vcs + v));
            }
            // Bids that lost go again next cycle.
            while sa_req != 0 {
                let l = sa_req.trailing_zeros() as usize;
                sa_req &= sa_req - 1;
                self.due_at[base + l] = now + 1;
            }
        }
        let mut next = u64::MAX;
        for l in 0..n {
            next = next.min(self.due_at[base + l]);
        }
        self.wake_at[r] = next;
    }

    /// Input VC `i` (bit `local`) is ready for the switch on output VC `o`: bid if there is a credit, otherwise
    /// sleep until the next credit in flight lands (or one is returned, see `return_credit_to_router`).
    #[inline]
    fn bid_or_wait_for_credit(&mut self, i: usize, o: usize, now: u64, sa_req: &mut u64, local: usize) {
        let has = self.has_credit(o, now);
        self.ivc[i].waiting_credit = !has;
        if has {
            *sa_req |= 1 << local;
        } else {
            self.due_at[i] = self.next_credit(o);
        }
    }

    /// When the next credit in flight on output VC `o` lands (`u64::MAX` if none is in flight).
    #[inline]
    fn next_credit(&self, o: usize) -> u64 {
        let vc = self.ovc[o];
        if vc.pend_len == 0 {
            u64::MAX
        } else {
            self.ovc_pending[o * self.credit_ring + vc.pend_head as usize]
        }
    }

    /// Moves the front flit of input VC (`p`, `v`) of router `r` through the switch onto its output channel.
    fn traverse(&mut self, r: usize, p: usize, v: usize, now: u64) {
        let (ports, vcs, depth) = (self.ports, self.vcs, self.depth);
        let base = r * ports * vcs;
        let i = base + p * vcs + v;
        let vc = &mut self.ivc[i];
        let flit = self.buf[i * depth + vc.head as usize];
        vc.head = wrap(vc.head as usize + 1, depth) as u16;
        vc.len -= 1;
        let (out_port, out_vc) = (vc.out_port as usize, vc.out_vc as usize);
        let o = base + out_port * vcs + out_vc;
        if flit.is_tail() {
            vc.state = VcState::Idle;
            // The next packet's head may start route computation from the next cycle.
            vc.ready_at = now + 1;
            self.ovc[o].owner = NO_OWNER;
        }

        // Clear the occupancy bit when the buffer empties, without a branch.
        self.occupied[r] &= !(u64::from(vc.len == 0) << (p * vcs + v));
        // The flit now at the front acts from the next cycle at the earliest.
        self.due_at[i] = self.front_due(i).max(now + 1);
        self.router_flits[r] -= 1;
        let credit_at = now + self.timing.traversal + self.timing.credit_delay;
        let up = self.upstream_ovc[r * ports + p] as usize + v;
        if p < MESH_PORTS {
            let up_router = self.neighbor_router[r * MESH_PORTS + p] as usize;
            self.return_credit_to_router(up_router, up, credit_at);
        } else {
            self.return_credit(up, credit_at);
        }
        self.ovc[o].credits -= 1;
        self.links.flits[r * ports + out_port] += 1;
        self.last_progress = now;
        if out_port < MESH_PORTS {
            let d = self.downstream_ivc[r * MESH_PORTS + out_port] as usize + out_vc;
            let next = self.neighbor_router[r * MESH_PORTS + out_port] as usize;
            let arrival = now + self.timing.to_next_buffer;
            self.push_input(next, d, Flit { arrival, ..flit });
        } else {
            let node = r * self.mesh.concentration as usize + (out_port - MESH_PORTS);
            let q = node * vcs + out_vc;
            let arrival = now + self.timing.to_eject;
            debug_assert!((self.ej_len[q] as usize) < self.eject_depth, "ejection queue overflow");
            let slot = wrap(self.ej_head[q] as usize + self.ej_len[q] as usize, self.eject_depth);
            self.ej_len[q] += 1;
            self.ej_buf[q * self.eject_depth + slot] = Flit { arrival, ..flit };
            if flit.is_tail() {
                self.packets[flit.packet as usize].ejected = arrival;
            }
            self.activate_node(node);
            self.wake_node(node, arrival);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::round_robin_pick;

    #[test]
    fn round_robin_wraps_and_skips_clear_bits() {
        assert_eq!(round_robin_pick(0b1010, 0), 1);
        assert_eq!(round_robin_pick(0b1010, 2), 3);
        assert_eq!(round_robin_pick(0b1010, 4), 1);
        assert_eq!(round_robin_pick(1 << 63, 63), 63);
        assert_eq!(round_robin_pick(1, 63), 0);
        assert_eq!(round_robin_pick(0b100, 3), 2);
    }
}
