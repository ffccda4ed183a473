//! The router pipeline: route computation, VC allocation, switch allocation and switch traversal for one router
//! in one cycle.
//!
//! Stages are gated by cycle stamps rather than pipeline registers: an input VC records the cycle from which its
//! next stage may run (`ready_at`), and a flit records the cycle it arrived. With the `4stage` pipeline a head flit
//! arriving in cycle `a` does route computation in `a`, VC allocation from `a + 1`, switch allocation from `a + 2`,
//! switch traversal in the cycle after it wins, then spends a cycle on the link; a body flit may bid for the switch
//! from the cycle after it was written. With `1stage` everything happens in the arrival cycle. Within one cycle the
//! steps run in the order RC -> VA -> SA -> traversal, so an output VC freed by a tail this cycle is allocated next
//! cycle, and a VC that finished allocation this cycle (4stage) bids for the switch next cycle.
//!
//! Both allocators are separable and round-robin: VC allocation grants free output VCs of each output port to
//! requesters in round-robin order; switch allocation first picks one VC per input port, then one input per output
//! port, and moves a pointer only when its choice is granted.

use crate::config::{RouterPipeline, MAX_CONCENTRATION};
use crate::network::{Flit, Network, VcState, NO_OWNER};
use crate::topology::MESH_PORTS;
use crate::types::{NodeId, RouterId};

pub(crate) const MAX_PORTS: usize = MESH_PORTS + MAX_CONCENTRATION as usize;

/// The lowest set bit of `mask` at or after bit `start`, wrapping around. `mask` must be non-zero.
#[inline]
pub(crate) fn round_robin_pick(mask: u64, start: u32) -> u32 {
    debug_assert!(mask != 0);
    let at_or_after = if start >= 64 { 0 } else { mask & (u64::MAX << start) };
    if at_or_after != 0 {
        at_or_after.trailing_zeros()
    } else {
        mask.trailing_zeros()
    }
}

impl Network {
    /// Cycles between pipeline stages of a head flit (route -> VC allocation -> switch allocation), and between a
    /// body flit's buffer write and its switch bid.
    #[inline]
    fn stage_gap(&self) -> u64 {
        match self.cfg.pipeline {
            RouterPipeline::OneStage => 0,
            RouterPipeline::FourStage => 1,
        }
    }

    pub(crate) fn step_router(&mut self, r: usize, now: u64) {
        let mut occ = self.occupied[r];
        if occ == 0 {
            return;
        }
        let (ports, vcs, depth) = (self.ports, self.vcs, self.depth);
        let base = r * ports * vcs;
        let gap = self.stage_gap();
        let mut va_req = [0u64; MAX_PORTS];
        let mut va_ports = 0u32;
        let mut sa_req = 0u64;

        // Route computation, and collecting VC and switch requests.
        while occ != 0 {
            let local = occ.trailing_zeros() as usize;
            occ &= occ - 1;
            let i = base + local;
            let vc = self.ivc[i];
            let flit = self.buf[i * depth + vc.head as usize];
            if flit.arrival > now {
                continue;
            }
            match vc.state {
                VcState::Idle => {
                    debug_assert!(flit.is_head(), "an idle VC must start with a head flit");
                    let out = (self.route)(&self.mesh, RouterId(r as u32), NodeId(flit.dst)).0;
                    let ready = now + gap;
                    let v = &mut self.ivc[i];
                    v.state = VcState::Routed;
                    v.out_port = out;
                    v.ready_at = ready;
                    if ready <= now {
                        va_req[out as usize] |= 1 << local;
                        va_ports |= 1 << out;
                    }
                }
                VcState::Routed => {
                    if vc.ready_at <= now {
                        va_req[vc.out_port as usize] |= 1 << local;
                        va_ports |= 1 << vc.out_port;
                    }
                }
                VcState::Active => {
                    let ready = if flit.is_head() { vc.ready_at } else { flit.arrival + gap };
                    if ready <= now && self.credits(base + vc.out_port as usize * vcs + vc.out_vc as usize, now) > 0 {
                        sa_req |= 1 << local;
                    }
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
                if self.ovc[ob + v].owner == NO_OWNER {
                    free |= 1 << v;
                }
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
                if gap == 0 && self.credits(ob + ov, now) > 0 {
                    sa_req |= 1 << pick;
                }
                last = Some(pick);
            }
            if let Some(pick) = last {
                self.rr_va[r * ports + o] = ((pick + 1) % (ports * vcs)) as u8;
            }
        }

        if sa_req == 0 {
            return;
        }
        // Switch allocation, input stage: one VC per input port.
        let vc_mask = (1u64 << vcs) - 1;
        let mut chosen = [0u8; MAX_PORTS];
        let mut out_req = [0u64; MAX_PORTS];
        let mut out_ports = 0u32;
        let mut req = sa_req;
        while req != 0 {
            let p = req.trailing_zeros() as usize / vcs;
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
            self.rr_sa_out[r * ports + o] = ((p + 1) % ports) as u8;
            let v = chosen[p] as usize;
            self.rr_sa_in[r * ports + p] = ((v + 1) % vcs) as u8;
            self.traverse(r, p, v, now);
        }
    }

    /// Moves the front flit of input VC (`p`, `v`) of router `r` through the switch onto its output channel.
    fn traverse(&mut self, r: usize, p: usize, v: usize, now: u64) {
        let (ports, vcs, depth) = (self.ports, self.vcs, self.depth);
        let base = r * ports * vcs;
        let i = base + p * vcs + v;
        let vc = &mut self.ivc[i];
        let flit = self.buf[i * depth + vc.head as usize];
        vc.head = ((vc.head as usize + 1) % depth) as u16;
        vc.len -= 1;
        let (out_port, out_vc) = (vc.out_port as usize, vc.out_vc as usize);
        let o = base + out_port * vcs + out_vc;
        if flit.is_tail() {
            vc.state = VcState::Idle;
            self.ovc[o].owner = NO_OWNER;
        }
        if vc.len == 0 {
            self.occupied[r] &= !(1 << (p * vcs + v));
        }
        self.router_flits[r] -= 1;
        let traversal = self.cfg.traversal_cycles();
        let up = self.upstream_ovc[r * ports + p] as usize;
        self.return_credit(up + v, now + traversal + u64::from(self.cfg.credit_delay_cycles));
        self.ovc[o].credits -= 1;
        self.links.flits[r * ports + out_port] += 1;
        self.last_progress = now;
        if out_port < MESH_PORTS {
            let d = self.downstream_ivc[r * MESH_PORTS + out_port] as usize + out_vc;
            let next = d / (ports * vcs);
            let arrival = now + self.cfg.switch_to_next_buffer_cycles();
            self.push_input(next, d, Flit { arrival, ..flit });
        } else {
            let node = r * self.mesh.concentration as usize + (out_port - MESH_PORTS);
            let q = node * vcs + out_vc;
            let arrival = now + self.cfg.switch_to_eject_cycles();
            let slot = (self.ej_head[q] as usize + self.ej_len[q] as usize) % self.eject_depth;
            debug_assert!((self.ej_len[q] as usize) < self.eject_depth, "ejection queue overflow");
            self.ej_len[q] += 1;
            self.ej_buf[q * self.eject_depth + slot] = Flit { arrival, ..flit };
            if flit.is_tail() {
                self.packets[flit.packet as usize].ejected = arrival;
            }
            self.activate_node(node);
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
        assert_eq!(round_robin_pick(1, 64), 0);
    }
}
