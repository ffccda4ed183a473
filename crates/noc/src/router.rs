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
//! With `4stage`, VC allocation of cycle `t` is evaluated in the router's visit of cycle `t + 1`, just before the
//! switch bids of `t + 1`, which include the VCs it grants. That is exact: the allocation reads only the router's
//! own state as of cycle `t` (which VCs requested, which output VCs were free), and nothing that happens in between
//! can change that state: flits and credits from elsewhere are stamped later, and an output VC freed by a tail in
//! cycle `t` carries `free_from = t + 1`, so it is not handed out by that allocation. A lone head then costs one
//! visit per router, not two: the visit of `a + 2` allocates its VC (for `a + 1`) and lets it bid.
//!
//! VC allocation is chosen by [`VcAllocator`] and switch allocation by [`crate::config::SwAllocator`], each
//! allocator one file of [`crate::vc_alloc`] and [`crate::sw_alloc`]; with dimension-order routing a head asks for
//! one port, so each output port's VCs are allocated on their own. With `speculative_switch_allocation` the VC
//! allocation of cycle `t` runs in the visit of `t` itself and the heads it grants bid in that cycle (see
//! [`crate::NetworkConfig`]); with `wait_for_tail_credit` an output VC is free only once all its credits are home.
//! Two shortcuts compute exactly what the allocators would: a VC
//! that is due alone is the only requester in both ([`Network::step_single_vc`]), and with one VC per port (and
//! allocators that are round-robin then, every one but `wavefront`; no speculation, no waiting for tail credits)
//! the requests fit in a byte per output port and the switch allocator's input stage has nothing to choose
//! ([`Network::allocate_one_vc`]). Route computation needs no lookup here: a head flit carries its route for
//! the router holding it, looked up when it was sent there.
//!
//! Multi-cycle allocation (`vc_alloc_delay_cycles` D, `sw_alloc_delay_cycles` S) keeps that scheme. A VC
//! allocation attempt of cycle `t` is decided on the state of `t` and evaluated in the visit of `t + D` (`va_gap`),
//! where the head it grants bids; the argument above holds for D cycles as for one, since every later event is
//! stamped later and allocations are evaluated in the order of their cycles (an output VC granted in `t` is
//! reserved from `t`: no allocation of a later cycle is evaluated before it). A loser tries again at `t + D`. A
//! switch bid is decided in the visit of its first cycle, the credit taken then, and the winner's flit leaves in
//! the bid's last cycle (`traverse` stamps everything from `now + S - 1`); the VC's next bid, after a win, a loss
//! or a missing credit, is S cycles later (`ready_at`, which debug clocking reads too).
//!
//! Crossbar speedup maps a router's ports onto more crossbar ports (see [`crate::sw_alloc::Crossbar`]); the
//! switch allocators match crossbar ports, and with output speedup `traverse` queues the flits that enter one
//! output in one cycle, one per cycle onto its channel (`out_queue_free`). The one-VC path is taken only without
//! delays and speedup.
//!
//! Adaptive routing and torus datelines (`route_choice`) go through [`Network::allocate`], or for a lone due VC
//! [`Network::step_single_vc`], never the one-VC path: a route may name two candidate ports, and a head may be
//! limited to a class of VCs. Each cycle a head requests VC allocation,
//! `choose_output` picks its port and VC kind from the state as of the allocation's cycle; the heads of a port
//! are then grouped by kind and the allocator runs once per kind on that kind's free VCs (kinds are disjoint).
//! The chosen port becomes the VC's `out_port`; the route stays in the head flit for the next try.

use crate::config::{VcAllocator, MAX_CONCENTRATION, MAX_VCS};
use crate::network::{flit_due, wrap, Flit, InputVc, Network, OutputVc, VcState, NO_OWNER, NO_ROUTER};
use crate::routing::{Route, VcPolicy};
use crate::sw_alloc::{LonePointers, SwRouter};
use crate::vc_alloc::VcPort;
use crate::topology::MESH_PORTS;
use std::collections::HashMap;

pub(crate) const MAX_PORTS: usize = MESH_PORTS + MAX_CONCENTRATION as usize;

/// The lowest set bit of `mask` at or after bit `start` (< 64), wrapping around. `mask` must be non-zero.
/// Branch-free: rotating bit `start` down to bit 0 turns "first at or after start, wrapping" into "lowest".
#[inline]
pub(crate) fn round_robin_pick(mask: u64, start: u32) -> u32 {
    debug_assert!(mask != 0 && start < 64);
    (mask.rotate_right(start).trailing_zeros() + start) & 63
}

/// The VC allocation of the last simulated cycle, which with `4stage` is applied only in the next visits (see the
/// module docs): the input VCs it changes (by index) and the output VCs it hands out (index to owning input VC).
#[derive(Debug, Default)]
pub(crate) struct PendingAllocation {
    pub vcs: HashMap<usize, InputVc>,
    pub owners: HashMap<usize, u16>,
}

/// Which of the output VCs `ovcs` (bit per VC) the VC allocation of cycle `cycle` may hand out.
#[inline(always)]
fn free_vcs(ovcs: &[OutputVc], cycle: u64) -> u64 {
    let mut free = 0u64;
    for (v, ovc) in ovcs.iter().enumerate() {
        free |= u64::from(ovc.owner == NO_OWNER && ovc.free_from <= cycle) << v;
    }
    free
}

/// Visits the routers due in one cycle, specialised for one configuration class (chosen once per network).
pub(crate) type StepRoutersFn = fn(&mut Network, u64);

/// The router step for a configuration: the one-VC and pipeline cases are compiled separately so the hot loop has
/// constant VC counts and stage gaps.
pub(crate) fn step_routers_fn(one_vc_path: bool, stage_gap: u64, ports: usize) -> StepRoutersFn {
    // FIVE_PORTS: one node per router, so the per-VC loops have a constant trip count of five.
    match (one_vc_path, stage_gap, ports == 5) {
        (true, 1, true) => Network::step_routers::<true, 1, true>,
        (true, 1, false) => Network::step_routers::<true, 1, false>,
        (true, _, true) => Network::step_routers::<true, 0, true>,
        (true, _, false) => Network::step_routers::<true, 0, false>,
        (false, 1, _) => Network::step_routers::<false, 1, false>,
        (false, _, _) => Network::step_routers::<false, 0, false>,
    }
}

impl Network {
    /// Visits every router filed for cycle `now` (every router, in debug clocking).
    fn step_routers<const ONE_VC: bool, const GAP: u64, const FIVE_PORTS: bool>(&mut self, now: u64) {
        for k in 0..self.router_calendar.words() {
            let mut due = self.router_calendar.take(now, k);
            if self.visit_all {
                // Everything is visited; each visit files its next wake-up as usual, so the calendar stays valid.
                due = u64::MAX >> (64 - (self.routers - 64 * k).min(64));
            }
            while due != 0 {
                let r = 64 * k + due.trailing_zeros() as usize;
                due &= due - 1;
                self.step_router::<ONE_VC, GAP, FIVE_PORTS>(r, now);
            }
        }
    }

    #[inline(always)]
    fn step_router<const ONE_VC: bool, const GAP: u64, const FIVE_PORTS: bool>(&mut self, r: usize, now: u64) {
        let ports = if FIVE_PORTS { 5 } else { self.ports };
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
            for (l, vc) in self.ivc[base..base + n].iter().enumerate() {
                due |= u64::from(vc.due_at <= now) << l;
            }
        }
        if due.is_power_of_two() {
            // One VC due (the common case at moderate load): it is the only requester in both allocators.
            self.step_single_vc::<ONE_VC, GAP, FIVE_PORTS>(r, due.trailing_zeros() as usize, now);
        } else if ONE_VC {
            self.allocate_one_vc::<GAP, FIVE_PORTS>(r, due, now);
        } else {
            self.allocate::<GAP, FIVE_PORTS>(r, due, now);
        }
        let next = self.ivc[base..base + n].iter().fold(u64::MAX, |m, vc| m.min(vc.due_at));
        self.wake(r, next);
    }

    /// What the allocators of [`Network::allocate`] do when input VC `local` of router `r` is the only one due:
    /// it wins whatever it asks for that is free, and the round-robin pointers move past it.
    #[inline(always)]
    fn step_single_vc<const ONE_VC: bool, const GAP: u64, const FIVE_PORTS: bool>(
        &mut self,
        r: usize,
        local: usize,
        now: u64,
    ) {
        let ports = if FIVE_PORTS { 5 } else { self.ports };
        let vcs = if ONE_VC { 1 } else { self.vcs };
        let n = ports * vcs;
        let base = r * n;
        let i = base + local;
        let (p, v) = if ONE_VC { (local, 0) } else { (local / vcs, local % vcs) };
        let vc = &mut self.ivc[i];
        if vc.state != VcState::Active {
            // Route computation (see `allocate`), then VC allocation (of cycle `now - GAP`, see the module
            // docs): a free VC of the output port, chosen as `vc_allocator` says. A granted VC bids for the switch right away.
            vc.state = VcState::Routed;
            let va_gap = if ONE_VC { GAP } else { self.timing.va_gap };
            // Adaptive routing and VC classes: the port and VC kind as `allocate` chooses them (never on the
            // one-VC path, which such networks do not take).
            let (o, kind) = if !ONE_VC && self.route_choice {
                let route = vc.front.route;
                let Some(choice) = self.choose_output(r, local, route, now - va_gap) else {
                    self.retry_vc_allocation(i, now);
                    return;
                };
                self.ivc[i].out_port = choice.0 as u8;
                choice
            } else {
                (self.ivc[i].out_port as usize, 0)
            };
            let ob = base + o * vcs;
            let free = if ONE_VC {
                free_vcs(&self.ovc[ob..ob + vcs], now - va_gap)
            } else if self.route_choice {
                self.free_of_kind(ob, o, now - va_gap, kind)
            } else {
                self.free_out_vcs(ob, o, now - va_gap)
            };
            if free == 0 {
                self.retry_vc_allocation(i, now);
                return;
            }
            let ov = if ONE_VC {
                self.rr_va[r * ports + o] = wrap(local + 1, n) as u8;
                0
            } else {
                // The only requester: it gets a VC whatever the allocator.
                let pri = self.va_wavefront[r];
                let matches = crate::vc_alloc::allocate(self.cfg.vc_allocator, 1 << local, free, self.vc_port(r, o, pri));
                debug_assert_eq!(matches.as_slice().len(), 1);
                matches.pairs[0].1 as usize
            };
            let vc = &mut self.ivc[i];
            vc.state = VcState::Active;
            vc.out_vc = ov as u8;
            vc.ready_at = now;
            vc.due_at = now;
            self.ovc[ob + ov].owner = local as u16;
        }
        // Switch allocation: a bid, if the output VC has a credit, wins both stages.
        let vc = &self.ivc[i];
        let out_port = vc.out_port as usize;
        let mut bids = 0u64;
        self.bid_or_wait_for_credit(i, base + out_port * vcs + vc.out_vc as usize, now, &mut bids, local);
        if bids != 0 {
            if ONE_VC {
                self.rr_sa_out[r * ports + out_port] = wrap(p + 1, ports) as u8;
            } else {
                let (x, y) = (self.xbar.input_of_bit[local] as usize, self.xbar.output(p, out_port));
                let lone = LonePointers {
                    xbar: &self.xbar,
                    vcs,
                    in_ptr: &mut self.rr_sa_in[r * self.xbar.inputs + x],
                    out_ptr: &mut self.rr_sa_out[r * self.xbar.outputs + y],
                    accept_ptr: &mut self.sa_accept_ptr[r * self.xbar.inputs + x],
                    wavefront_pri: &mut self.sa_wavefront[r],
                };
                crate::sw_alloc::lone_winner(self.cfg.sw_allocator, x, v, y, lone);
            }
            self.traverse::<ONE_VC, FIVE_PORTS>(r, p, v, now);
        }
    }

    /// [`Network::allocate`] for one VC per port, where a VC is its port: requests are kept as one byte per output
    /// port (bit `p`: input port `p` asks for it), and the switch allocator's input stage has nothing to choose.
    #[inline(always)]
    fn allocate_one_vc<const GAP: u64, const FIVE_PORTS: bool>(&mut self, r: usize, mut due: u64, now: u64) {
        let ports = if FIVE_PORTS { 5 } else { self.ports };
        let base = r * ports;
        let mut va_req = 0u64;
        let mut sa_req = 0u64;
        while due != 0 {
            let p = due.trailing_zeros() as usize;
            due &= due - 1;
            let vc = &mut self.ivc[base + p];
            let o = vc.out_port as usize;
            if vc.state == VcState::Active {
                let mut bid = 0;
                self.bid_or_wait_for_credit(base + p, base + o, now, &mut bid, p);
                sa_req |= bid << (8 * o);
            } else {
                // Route computation (its result is already in `out_port`, see `allocate`), then VC allocation.
                vc.state = VcState::Routed;
                va_req |= 1 << (8 * o + p);
            }
        }
        // VC allocation (of cycle `now - GAP`, see the module docs): a free output VC goes to the requester next
        // in round-robin order, which bids for the switch right away.
        while va_req != 0 {
            let o = va_req.trailing_zeros() as usize / 8;
            let mut pending = (va_req >> (8 * o)) & 0xff;
            va_req &= !(0xff << (8 * o));
            if free_vcs(&self.ovc[base + o..base + o + 1], now - GAP) != 0 {
                let pick = round_robin_pick(pending, u32::from(self.rr_va[base + o])) as usize;
                pending &= !(1 << pick);
                self.ovc[base + o].owner = pick as u16;
                let v = &mut self.ivc[base + pick];
                v.state = VcState::Active;
                v.out_vc = 0;
                v.ready_at = now;
                v.due_at = now;
                self.rr_va[base + o] = wrap(pick + 1, ports) as u8;
                let mut bid = 0;
                self.bid_or_wait_for_credit(base + pick, base + o, now, &mut bid, pick);
                sa_req |= bid << (8 * o);
            }
            // Lost VC allocation: try again next cycle.
            while pending != 0 {
                let l = pending.trailing_zeros() as usize;
                pending &= pending - 1;
                self.ivc[base + l].due_at = now + 1;
            }
        }
        // Switch allocation: each output port takes the bidder next in round-robin order, which traverses.
        while sa_req != 0 {
            let o = sa_req.trailing_zeros() as usize / 8;
            let mut bids = (sa_req >> (8 * o)) & 0xff;
            sa_req &= !(0xff << (8 * o));
            let p = round_robin_pick(bids, u32::from(self.rr_sa_out[base + o])) as usize;
            bids &= !(1 << p);
            self.rr_sa_out[base + o] = wrap(p + 1, ports) as u8;
            self.traverse::<true, FIVE_PORTS>(r, p, 0, now);
            // Bids that lost go again next cycle.
            while bids != 0 {
                let l = bids.trailing_zeros() as usize;
                bids &= bids - 1;
                self.ivc[base + l].due_at = now + 1;
            }
        }
    }

    /// Route computation, VC allocation and switch allocation for the VCs of router `r` in `due`.
    #[inline(always)]
    fn allocate<const GAP: u64, const FIVE_PORTS: bool>(&mut self, r: usize, mut due: u64, now: u64) {
        let ports = if FIVE_PORTS { 5 } else { self.ports };
        let vcs = self.vcs;
        let n = ports * vcs;
        let base = r * n;
        let gap = self.timing.va_gap;
        let spec = self.speculative;
        let mut va_req = [0u64; MAX_PORTS];
        let mut va_ports = 0u32;
        // With a route choice: the heads to route, and the requests for VC kinds 1 and 2 (see `kind_masks`).
        let mut choosing = 0u64;
        let mut va_kind = [[0u64; 2]; MAX_PORTS];
        let mut sa_req = 0u64;
        // Speculative switch allocation: the bids of heads allocating their VC in this cycle, and of those among
        // them that lost it but still bid (a grant to them is wasted).
        let (mut spec_req, mut wasted) = (0u64, 0u64);

        // Route computation, and collecting VC and switch requests.
        while due != 0 {
            let local = due.trailing_zeros() as usize;
            due &= due - 1;
            let i = base + local;
            debug_assert!(self.front_due(i) <= now, "a VC was due before its front flit could act");
            let vc = &mut self.ivc[i];
            if vc.state == VcState::Active {
                let o = base + vc.out_port as usize * vcs + vc.out_vc as usize;
                self.bid_or_wait_for_credit(i, o, now, &mut sa_req, local);
            } else {
                // Idle: route computation ran in the cycle the head reached the front (its arrival, or the cycle
                // after the previous tail left); it has no contention, so it is evaluated here, when VC allocation
                // is due, saving a visit. Its result, the route the head brought along, is already in `out_port`.
                // Routed: VC allocation again after a loss.
                debug_assert!(vc.state == VcState::Routed || vc.front.route == vc.out_port);
                vc.state = VcState::Routed;
                if self.route_choice {
                    choosing |= 1 << local;
                } else {
                    let out = vc.out_port as usize;
                    va_req[out] |= 1 << local;
                    va_ports |= 1 << out;
                }
            }
        }
        // Adaptive routing and VC classes: every head picks its port and VC kind from the state before this
        // cycle's allocation (so the order of heads does not matter); one without a free VC to ask for retries.
        while choosing != 0 {
            let local = choosing.trailing_zeros() as usize;
            choosing &= choosing - 1;
            let Some((o, kind)) = self.choose_output(r, local, self.ivc[base + local].front.route, now - gap) else {
                self.retry_vc_allocation(base + local, now);
                continue;
            };
            // The route stays in the head flit for the next try; a speculative bid goes to the port chosen.
            self.ivc[base + local].out_port = o as u8;
            if kind == 0 {
                va_req[o] |= 1 << local;
            } else {
                va_kind[o][kind - 1] |= 1 << local;
            }
            va_ports |= 1 << o;
        }

        // VC allocation (of cycle `now - GAP`, see the module docs), port by port by `vc_allocator`; a granted VC
        // bids for the switch right away.
        let wavefront_pri = self.va_wavefront[r];
        while va_ports != 0 {
            let o = va_ports.trailing_zeros() as usize;
            va_ports &= va_ports - 1;
            let ob = base + o * vcs;
            // Each kind of request for the port (all VCs, or one VC class) is allocated on its own VCs.
            for kind in 0..3 {
                let mut pending = if kind == 0 { va_req[o] } else { va_kind[o][kind - 1] };
                if pending == 0 {
                    continue;
                }
                let free = self.free_of_kind(ob, o, now - gap, kind);
                if free != 0 {
                    let matches = crate::vc_alloc::allocate(self.cfg.vc_allocator, pending, free, self.vc_port(r, o, wavefront_pri));
                    for &(g, ov) in matches.as_slice() {
                        let (g, ov) = (g as usize, ov as usize);
                        pending &= !(1 << g);
                        self.ovc[ob + ov].owner = g as u16;
                        let v = &mut self.ivc[base + g];
                        v.state = VcState::Active;
                        v.out_port = o as u8;
                        v.out_vc = ov as u8;
                        v.ready_at = now;
                        v.due_at = now;
                        self.bid_or_wait_for_credit(base + g, ob + ov, now, if spec { &mut spec_req } else { &mut sa_req }, g);
                    }
                    // A loser bids anyway if the port had a free VC with a credit (BookSim2's spec_check_elig and
                    // spec_check_cred).
                    if spec && pending != 0 {
                        let mut f = free;
                        while f != 0 {
                            let ov = f.trailing_zeros() as usize;
                            f &= f - 1;
                            if self.has_credit(ob + ov, now) {
                                spec_req |= pending;
                                wasted |= pending;
                                break;
                            }
                        }
                    }
                }
                // Lost VC allocation: try again with the next attempt.
                while pending != 0 {
                    let l = pending.trailing_zeros() as usize;
                    pending &= pending - 1;
                    self.retry_vc_allocation(base + l, now);
                }
            }
        }

        // Switch allocation by `sw_allocator`: the winners traverse, the other bids go again next cycle. Speculative
        // bids take part as equals at the outputs (BookSim2's iSLIP ignores priorities); a grant to a head that
        // lost VC allocation is wasted.
        let mut bids = sa_req | spec_req;
        if bids != 0 {
            let winners = crate::sw_alloc::allocate(self.cfg.sw_allocator, bids, self.sw_router(r, spec_req));
            for &(p, v) in winners.as_slice() {
                let (p, v) = (p as usize, v as usize);
                let l = p * vcs + v;
                if wasted & (1 << l) == 0 {
                    self.traverse::<false, FIVE_PORTS>(r, p, v, now);
                    bids &= !(1 << l);
                }
            }
            // Lost bids go again with the VC's next bid.
            while bids != 0 {
                let l = bids.trailing_zeros() as usize;
                bids &= bids - 1;
                let vc = &mut self.ivc[base + l];
                vc.ready_at = now + self.timing.sa_attempt;
                vc.due_at = vc.ready_at;
            }
        }
    }

    /// Input VC `i` lost the VC allocation of its attempt in progress (or had no VC to ask for): it tries again with
    /// its next attempt, `vc_alloc_delay_cycles` after this one began (the visit `now` evaluates the attempt of
    /// `now - va_gap`).
    #[inline(always)]
    fn retry_vc_allocation(&mut self, i: usize, now: u64) {
        let attempt = self.timing.va_attempt;
        let vc = &mut self.ivc[i];
        vc.due_at = now + attempt;
        // With one-cycle attempts a routed VC is due every cycle, whatever `ready_at` says.
        if attempt > 1 {
            vc.ready_at = vc.due_at;
        }
    }

    /// Which VCs of output port `o` (the first at `ob`) the VC allocation of cycle `cycle` may hand out: by default
    /// from the cycle after a packet's tail left; with `wait_for_tail_credit` only once the tail's credit, the
    /// last of the VC's credits, has landed too (all credits are home then: nothing is sent on a VC between its
    /// tail and its next allocation, and credits come back in order).
    #[inline(always)]
    fn free_out_vcs(&self, ob: usize, o: usize, cycle: u64) -> u64 {
        let vcs = self.vcs;
        let mut free = free_vcs(&self.ovc[ob..ob + vcs], cycle);
        if self.cfg.wait_for_tail_credit {
            let cap = if o >= MESH_PORTS { self.eject_depth } else { self.depth };
            let mut f = free;
            while f != 0 {
                let ov = f.trailing_zeros() as usize;
                f &= f - 1;
                if !self.credits_home_by(ob + ov, cap, cycle) {
                    free &= !(1 << ov);
                }
            }
        }
        free
    }

    /// The output port and VC kind (an index into `kind_masks`) the head at the front of input VC `local` of router
    /// `r`, whose route is `route` (see [`Route`]), asks for in the VC allocation of cycle `cycle`; `None` when no
    /// candidate has a VC it may take free, and it waits for the next cycle.
    ///
    /// * Dateline classes (dimension order on a torus): its port (half way round a ring, one of the two by a hash of
    ///   the packet); the class of its input VC when it continues
    ///   in the same dimension and direction, else class 1 when the destination's coordinate in the new dimension
    ///   is below its own (BookSim2's partition), class 0 otherwise; any VC of a local port.
    /// * Adaptive routing: of the candidates with a free VC it may take (with an escape VC, the adaptive VCs), the
    ///   one with more free VCs, then more credits on them, then the first (x-direction) port. With an escape VC,
    ///   when no adaptive VC is free, the escape VC 0 of the first (`xy`) port if it is free.
    ///
    /// It reads which output VCs are free at `cycle` and their credits, which fast and debug clocking see alike,
    /// and `pending_allocation` calls it too. The credits are those landed by `cycle` and, since landed credits are
    /// gathered only when another is returned, possibly some landed between `cycle` and the visit evaluating it
    /// (one cycle later, or `vc_alloc_delay_cycles`): the tie-break between candidates may see those a little early.
    pub(crate) fn choose_output(&self, r: usize, local: usize, route: u8, cycle: u64) -> Option<(usize, usize)> {
        let (ports, vcs) = (self.ports, self.vcs);
        let base = r * ports * vcs;
        let route = Route(route);
        let first = route.first().0 as usize;
        if self.vc_policy == VcPolicy::Dateline {
            if first >= MESH_PORTS {
                return Some((first, 0));
            }
            // Half way round a ring either way is minimal: each packet takes one, by a hash of its id (BookSim2 draws
            // at random), so the two directions share such packets evenly.
            let packet = self.ivc[base + local].front.packet;
            let first = match route.second() {
                Some(other) if (u64::from(packet).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 63) == 1 => other.0 as usize,
                _ => first,
            };
            let (p, v) = (local / vcs, local % vcs);
            // Input port `first ^ 1` faces output port `first` (east/west, north/south): the same direction, whose
            // class the head keeps. Entering a dimension, it takes class 1 when its destination's coordinate is
            // below its own (BookSim2's dateline partition): going east or south the path wraps around then, going
            // west or north it does not. Either way, every packet of class 1 in the east (south) ring crosses the
            // wrap-around link and none of class 0 does, and in the west (north) ring the other way round, so no
            // class of a ring carries a cycle. Classes are chosen per packet for its whole run in the dimension,
            // which spreads packets over both halves of the VCs.
            let class = if p == first ^ 1 {
                usize::from(v >= vcs / 2)
            } else {
                let (x, y) = self.router_xy[r];
                let dst = self.node_loc[self.packets[self.ivc[base + local].front.packet as usize].dst as usize];
                usize::from(if first < 2 { dst.x < x } else { dst.y < y })
            };
            return Some((first, 1 + class));
        }
        let escape = self.vc_policy == VcPolicy::Escape;
        let mut best: Option<(usize, usize, (u32, usize))> = None;
        for port in route.ports() {
            let o = port.0 as usize;
            let kind = if escape && o < MESH_PORTS { 2 } else { 0 };
            let ob = base + o * vcs;
            let free = self.free_of_kind(ob, o, cycle, kind);
            if free == 0 {
                continue;
            }
            let mut credits = 0;
            let mut f = free;
            while f != 0 {
                credits += self.credits_by(ob + f.trailing_zeros() as usize, cycle);
                f &= f - 1;
            }
            let score = (free.count_ones(), credits);
            if best.map_or(true, |(_, _, b)| score > b) {
                best = Some((o, kind, score));
            }
        }
        if let Some((o, kind, _)) = best {
            return Some((o, kind));
        }
        (escape && first < MESH_PORTS && self.free_of_kind(base + first * vcs, first, cycle, 1) != 0).then_some((first, 1))
    }

    /// Every (output port, mask of its VCs) the head at the front of input VC `local` of router `r`, whose route is
    /// `route`, may be allocated, whatever is free (for the watchdog's report of what a waiting head waits for).
    pub(crate) fn allowed_out_vcs(&self, r: usize, local: usize, route: u8) -> Vec<(usize, u64)> {
        let route = Route(route);
        let first = route.first().0 as usize;
        let all = self.kind_masks[0];
        match self.vc_policy {
            VcPolicy::Dateline => {
                // The kind does not depend on what is free.
                let (o, kind) = self.choose_output(r, local, route.0, self.now).expect("dateline routing always chooses");
                vec![(o, self.kind_masks[kind])]
            }
            VcPolicy::Any => route.ports().map(|p| (p.0 as usize, all)).collect(),
            VcPolicy::Escape if first >= MESH_PORTS => vec![(first, all)],
            VcPolicy::Escape => route.ports().map(|p| (p.0 as usize, self.kind_masks[2])).chain([(first, self.kind_masks[1])]).collect(),
        }
    }

    /// The VCs of output port `o` (the first at `ob`) of kind `kind` (see `kind_masks`) that the VC allocation of
    /// cycle `cycle` may hand out. With an escape VC the adaptive VCs are allocated atomically: only once their
    /// buffer is empty and all credits are home. Otherwise a head could commit to an adaptive VC whose buffer is
    /// full of packets waiting on other adaptive VCs and wait there with its escape VC out of reach; those waits
    /// close cycles (the saturation tests found one with 1-flit packets and 3 VCs). Duato's condition holds when
    /// a head waits only for escape VCs or for VCs it can enter at once.
    #[inline(always)]
    fn free_of_kind(&self, ob: usize, o: usize, cycle: u64, kind: usize) -> u64 {
        let mut free = self.free_out_vcs(ob, o, cycle) & self.kind_masks[kind];
        if kind == 2 && self.vc_policy == VcPolicy::Escape && !self.cfg.wait_for_tail_credit {
            let mut f = free;
            while f != 0 {
                let ov = f.trailing_zeros() as usize;
                f &= f - 1;
                if !self.credits_home_by(ob + ov, self.depth, cycle) {
                    free &= !(1 << ov);
                }
            }
        }
        free
    }

    /// The VC allocator's view of output port `o` of router `r`, whose wavefront diagonal in this cycle is
    /// `wavefront_pri`.
    #[inline(always)]
    fn vc_port(&mut self, r: usize, o: usize, wavefront_pri: u8) -> VcPort<'_> {
        let (ports, vcs) = (self.ports, self.vcs);
        let n = ports * vcs;
        let (base, ob) = (r * n, r * n + o * vcs);
        VcPort {
            port: o,
            vcs,
            inputs: n,
            requester_ptr: &mut self.rr_va[r * ports + o],
            out_vc_ptr: &mut self.rr_ovc[r * ports + o],
            grant_ptr: &mut self.va_grant_ptr[ob..ob + vcs],
            accept_ptr: &mut self.va_accept_ptr[base..base + n],
            iterations: self.cfg.allocator_iterations,
            wavefront_pri,
            wavefront_next: &mut self.va_wavefront[r],
        }
    }

    /// The switch allocator's view of router `r`.
    #[inline(always)]
    fn sw_router(&mut self, r: usize, speculative: u64) -> SwRouter<'_> {
        let n = self.ports * self.vcs;
        let (xin, xout) = (self.xbar.inputs, self.xbar.outputs);
        SwRouter {
            vcs: self.vcs,
            xbar: &self.xbar,
            ivc: &self.ivc[r * n..(r + 1) * n],
            port_of_bit: &self.port_of_bit,
            in_ptr: &mut self.rr_sa_in[r * xin..(r + 1) * xin],
            out_ptr: &mut self.rr_sa_out[r * xout..(r + 1) * xout],
            accept_ptr: &mut self.sa_accept_ptr[r * xin..(r + 1) * xin],
            iterations: self.cfg.allocator_iterations,
            speculative,
            wavefront_pri: &mut self.sa_wavefront[r],
        }
    }

    /// What the VC allocation the routers' next visits evaluate decides (that of the last simulated cycle, or of
    /// `vc_alloc_delay_cycles` cycles before the next; nothing with `1stage`, which allocates in the cycle itself).
    /// Reports taken between steps apply it, so they describe the state as if each allocation had run in its own
    /// cycle; with multi-cycle VC allocation, attempts begun since then, decided but not yet evaluated, are not
    /// shown (in a deadlock every attempt keeps losing, so the report is the same).
    pub(crate) fn pending_allocation(&self) -> PendingAllocation {
        let mut out = PendingAllocation::default();
        let gap = self.timing.va_gap;
        if gap == 0 || self.now < gap {
            return out;
        }
        // The next visits evaluate the VC allocation of cycle `now - va_gap`.
        let cycle = self.now - gap;
        let (ports, vcs) = (self.ports, self.vcs);
        let n = ports * vcs;
        for r in 0..self.routers {
            let base = r * n;
            // Requests per output port and VC kind (see `kind_masks`), chosen as `allocate` does.
            let mut va_req = [[0u64; 3]; MAX_PORTS];
            for l in 0..n {
                let vc = self.ivc[base + l];
                if vc.len > 0 && vc.state != VcState::Active && self.front_due(base + l) <= self.now {
                    let choice = if self.route_choice { self.choose_output(r, l, vc.front.route, cycle) } else { Some((vc.out_port as usize, 0)) };
                    let mut routed = InputVc { state: VcState::Routed, ..vc };
                    if let Some((o, kind)) = choice {
                        va_req[o][kind] |= 1 << l;
                        routed.out_port = o as u8;
                    }
                    out.vcs.insert(base + l, routed);
                }
            }
            // The allocator runs on copies of the pointers: a report must not move them.
            let mut accept = [0u8; 64];
            accept[..n].copy_from_slice(&self.va_accept_ptr[base..base + n]);
            let (wavefront_pri, mut wavefront_next) = (self.va_wavefront[r], 0);
            for (o, kinds) in va_req.iter().enumerate().take(ports) {
                let ob = base + o * vcs;
                let (mut requester, mut out_vc) = (self.rr_va[r * ports + o], self.rr_ovc[r * ports + o]);
                let mut grant = [0u8; MAX_VCS as usize];
                grant[..vcs].copy_from_slice(&self.va_grant_ptr[ob..ob + vcs]);
                for (kind, &requests) in kinds.iter().enumerate() {
                    let free = self.free_of_kind(ob, o, cycle, kind);
                    if requests == 0 || free == 0 {
                        continue;
                    }
                    let st = VcPort {
                        port: o,
                        vcs,
                        inputs: n,
                        requester_ptr: &mut requester,
                        out_vc_ptr: &mut out_vc,
                        grant_ptr: &mut grant[..vcs],
                        accept_ptr: &mut accept[..n],
                        iterations: self.cfg.allocator_iterations,
                        wavefront_pri,
                        wavefront_next: &mut wavefront_next,
                    };
                    // The router's one-VC path allocates as `lowest` does.
                    let matches = if self.one_vc_path { (VcAllocator::Lowest.function())(requests, free, st) } else { crate::vc_alloc::allocate(self.cfg.vc_allocator, requests, free, st) };
                    for &(g, ov) in matches.as_slice() {
                        out.owners.insert(ob + ov as usize, u16::from(g));
                        let vc = out.vcs.get_mut(&(base + g as usize)).expect("a requester");
                        vc.state = VcState::Active;
                        vc.out_port = o as u8;
                        vc.out_vc = ov;
                    }
                }
            }
        }
        out
    }

    /// Input VC `i` (bit `local`) is ready for the switch on output VC `o`: bid if there is a credit, otherwise
    /// sleep until the next credit in flight lands (or one is returned, see `return_credit_to_router`).
    #[inline(always)]
    fn bid_or_wait_for_credit(&mut self, i: usize, o: usize, now: u64, sa_req: &mut u64, local: usize) {
        let has = self.has_credit(o, now);
        let wait = if has { 0 } else { self.next_credit(o) };
        let attempt = self.timing.sa_attempt;
        let vc = &mut self.ivc[i];
        vc.waiting_credit = !has;
        if has {
            *sa_req |= 1 << local;
        } else if attempt == 1 {
            vc.due_at = wait;
        } else {
            // The bid found no credit: the VC bids again with its first bid after one has landed.
            vc.ready_at = now + attempt;
            vc.due_at = if wait == u64::MAX { wait } else { crate::network::next_bid(vc.ready_at, wait, attempt) };
        }
    }

    /// When the next credit in flight on output VC `o` lands (`u64::MAX` if none is in flight).
    #[inline]
    fn next_credit(&self, o: usize) -> u64 {
        let vc = &self.ovc[o];
        if vc.pend_len == 0 {
            u64::MAX
        } else {
            vc.first_landing
        }
    }

    /// Moves the front flit of input VC (`p`, `v`) of router `r` through the switch onto its output channel.
    /// With `sw_alloc_delay_cycles` the flit leaves in the bid's last cycle: `now` is the bid's first.
    #[inline(always)]
    fn traverse<const ONE_VC: bool, const FIVE_PORTS: bool>(&mut self, r: usize, p: usize, v: usize, now: u64) {
        let bid = now;
        // The one-VC path runs without allocation delays and speedup.
        let now = if ONE_VC { now } else { now + self.timing.sa_attempt - 1 };
        let ports = if FIVE_PORTS { 5 } else { self.ports };
        let vcs = if ONE_VC { 1 } else { self.vcs };
        let (mask, n_ivc) = (self.buf_mask, self.ivc.len());
        let base = r * ports * vcs;
        let i = base + p * vcs + v;
        let vc = &mut self.ivc[i];
        let flit = vc.front;
        vc.len -= 1;
        let (out_port, out_vc) = (vc.out_port as usize, vc.out_vc as usize);
        let tail = flit.is_tail();
        // The VC bids again (which matters with multi-cycle switch allocation), or the next packet's head may start
        // route computation, from the next cycle.
        if tail || !ONE_VC {
            vc.ready_at = now + 1;
        }
        if tail {
            vc.state = VcState::Idle;
        }
        // The flit now at the front acts from the next cycle at the earliest.
        vc.due_at = if vc.len == 0 {
            u64::MAX
        } else {
            // The next flit moves up from the ring; an emptied ring starts again at slot 0 (see `Network::buf`).
            let head = vc.head as usize;
            vc.front = self.buf[head * n_ivc + i];
            vc.head = if vc.len > 1 { ((head + 1) & mask) as u16 } else { 0 };
            if tail {
                vc.out_port = vc.front.route;
            }
            flit_due(vc, &vc.front, self.timing.head_gap, self.timing.body_gap).max(now + 1)
        };
        let out = &mut self.ovc[base + out_port * vcs + out_vc];
        out.credits -= 1;
        if tail {
            out.owner = NO_OWNER;
            out.free_from = now + 1;
        }

        // The freed slot goes back upstream as a credit.
        // In the cycle after the win with `4stage` (BookSim2 sends it as the flit leaves the buffer, whatever the
        // crossbar takes), plus the credit delay.
        let credit_at = now + self.timing.stage_gap + self.timing.credit_delay;
        let up = self.in_link[r * ports + p];
        self.return_credit(up.ovc as usize + v, credit_at);
        if up.router != NO_ROUTER {
            self.wake_credit_owner(up.router as usize, ports * vcs, up.ovc as usize + v, credit_at);
        }

        self.links.flits[r * ports + out_port] += 1;
        self.last_progress = bid;
        // With output speedup, several flits may enter an output in one cycle; its queue sends one per cycle.
        let queued = if ONE_VC || self.out_queue_free.is_empty() {
            0
        } else {
            let free = &mut self.out_queue_free[r * ports + out_port];
            let slot = now.max(*free);
            *free = slot + 1;
            debug_assert!(slot - now <= self.timing.queue_wait);
            slot - now
        };
        let down = self.out_link[r * ports + out_port];
        if down.router != NO_ROUTER {
            let next = down.router as usize;
            let route = if flit.is_head() { self.route_port(next, flit.packet) } else { 0 };
            let arrival = now + queued + self.timing.to_next_buffer;
            self.push_input(next, down.first as usize + out_vc, Flit { arrival, route, ..flit });
        } else {
            let q = down.first as usize + out_vc;
            let arrival = now + queued + self.timing.to_eject;
            let eject_depth = self.eject_depth;
            debug_assert!((self.ej_len[q] as usize) < eject_depth, "ejection queue overflow");
            let slot = wrap(self.ej_head[q] as usize + self.ej_len[q] as usize, eject_depth);
            self.ej_len[q] += 1;
            self.ej_buf[q * eject_depth + slot] = Flit { arrival, ..flit };
            if tail {
                self.packets[flit.packet as usize].ejected = arrival;
            }
            self.wake_node(down.node as usize, arrival);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::round_robin_pick;
    use crate::config::{NetworkConfig, VcAllocator};
    use crate::network::{DrainPolicy, Network, NO_OWNER};
    use crate::types::{Cycle, NodeId};

    /// The ejection VCs (the last router's output VCs) that `packets` back-to-back one-flit packets from node 0 to
    /// node 1 of a 2x1 mesh with four VCs arrive on.
    fn ejection_vcs(choice: VcAllocator, packets: u64) -> Vec<u8> {
        ejection_vcs_of(NetworkConfig { vc_allocator: choice, ..NetworkConfig::default() }, packets)
    }

    fn ejection_vcs_of(cfg: NetworkConfig, packets: u64) -> Vec<u8> {
        let cfg = NetworkConfig { width: 2, height: 1, vcs: 4, ..cfg };
        let mut net = Network::new(cfg).unwrap();
        net.set_drain(NodeId(1), DrainPolicy::Manual);
        for i in 0..packets {
            net.enqueue(NodeId(0), NodeId(1), 1, i, 0);
        }
        net.run_until(Cycle(100)).unwrap();
        std::iter::from_fn(|| net.eject_pop(NodeId(1))).map(|f| f.vc.0).collect()
    }

    #[test]
    fn lowest_output_vc_reuses_the_vc_just_freed() {
        // A one-flit packet frees its output VC as its tail leaves, so the next packets get VC 0 or 1 again.
        let mut vcs = ejection_vcs(VcAllocator::Lowest, 8);
        vcs.sort();
        vcs.dedup();
        assert_eq!(vcs, [0, 1]);
    }

    #[test]
    fn waiting_for_the_tail_credit_keeps_a_vc_until_the_node_drains() {
        // Node 1 does not drain, so no credit of its ejection queues comes back: waiting for the tail's credit,
        // each VC takes one packet and the other four packets wait; without waiting, packets share VCs 0 and 1.
        let wait = NetworkConfig { wait_for_tail_credit: true, ..NetworkConfig::default() };
        assert_eq!(ejection_vcs_of(wait, 8), [0, 1, 2, 3]);
        let mut vcs = ejection_vcs(VcAllocator::Lowest, 8);
        vcs.sort();
        assert_eq!(vcs, [0, 0, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn round_robin_output_vc_spreads_back_to_back_packets() {
        let mut vcs = ejection_vcs(VcAllocator::RoundRobin, 8);
        assert_eq!(vcs.len(), 8);
        vcs.sort();
        assert_eq!(vcs, [0, 0, 1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn islip_spreads_back_to_back_packets() {
        // Each input VC's accept pointer moves past the VC it took, so every VC gets used (not evenly: the
        // pointers belong to the input VCs, not to the port).
        let mut vcs = ejection_vcs(VcAllocator::Islip, 8);
        assert_eq!(vcs.len(), 8);
        vcs.sort();
        vcs.dedup();
        assert_eq!(vcs, [0, 1, 2, 3]);
    }

    /// Network latency of one 16-flit packet across a 4x1 mesh whose 1-VC buffers hold 2 flits, so credits pace it.
    fn credit_paced_latency(body_bids_on_arrival: bool) -> u64 {
        let cfg = NetworkConfig { width: 4, height: 1, buffer_depth_flits: 2, body_bids_on_arrival, injection_channel_cycles: 1, ..NetworkConfig::default() };
        let mut net = Network::new(cfg).unwrap();
        net.enqueue(NodeId(0), NodeId(3), 16, 0, 0);
        net.run_until(Cycle(500)).unwrap();
        let latency = net.take_delivered().next().expect("delivered").network_latency();
        latency
    }

    #[test]
    fn body_flits_bidding_on_arrival_shorten_the_credit_loop() {
        // Zero-load, 16 flits unpaced: 1 + 4 * 4 + 3 + 1 + 15 = 36. A 2-flit buffer passes 2 flits per credit loop:
        // 6 cycles by default (bid, traversal, link, written, bid downstream, credit back), 5 when body flits bid on
        // arrival, so the 14 flits after the first two arrive 3 resp. 2.5 cycles apart.
        assert_eq!(credit_paced_latency(false), 36 - 15 + 1 + 14 * 3);
        assert_eq!(credit_paced_latency(true), 36 - 15 + 1 + 14 * 5 / 2);
    }

    /// `pending_allocation` (what the watchdog reports as already allocated) predicts exactly the output VCs the
    /// next visits hand out, also when heads choose among ports and VC classes.
    #[test]
    fn pending_allocation_is_what_the_next_step_allocates() {
        use crate::routing::Routing;
        use crate::topology::Topology;
        let mesh = |routing, vcs, vc_allocator| NetworkConfig { width: 4, height: 4, vcs, routing, vc_allocator, buffer_depth_flits: 3, ..NetworkConfig::default() };
        let cases = [
            mesh(Routing::Xy, 3, VcAllocator::Lowest),
            mesh(Routing::MinAdaptive, 3, VcAllocator::Islip),
            mesh(Routing::MinAdaptive, 2, VcAllocator::Wavefront),
            mesh(Routing::WestFirst, 1, VcAllocator::Lowest),
            mesh(Routing::OddEven, 2, VcAllocator::RoundRobin),
            NetworkConfig { topology: Topology::Torus, ..mesh(Routing::Xy, 4, VcAllocator::OutputFirst) },
            NetworkConfig { topology: Topology::Ring, height: 1, width: 6, ..mesh(Routing::Yx, 3, VcAllocator::Islip) },
            // Multi-cycle allocation: the next visits evaluate the attempts of two cycles before.
            NetworkConfig { vc_alloc_delay_cycles: 2, sw_alloc_delay_cycles: 3, ..mesh(Routing::Xy, 2, VcAllocator::Islip) },
            NetworkConfig { vc_alloc_delay_cycles: 3, ..mesh(Routing::MinAdaptive, 3, VcAllocator::RoundRobin) },
        ];
        for cfg in cases {
            let mut net = Network::new(cfg.clone()).unwrap();
            let nodes = net.mesh().nodes() as u64;
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let mut granted = 0;
            for _ in 0..1500 {
                for src in 0..nodes {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    if seed % 10 == 0 && net.source_queue_flits(NodeId(src as u32)) < 8 {
                        net.enqueue(NodeId(src as u32), NodeId(((seed >> 8) % nodes) as u32), 4, 0, 0);
                    }
                }
                let pending = net.pending_allocation();
                let before: Vec<u16> = net.ovc.iter().map(|o| o.owner).collect();
                net.step().unwrap();
                for (&o, &g) in &pending.owners {
                    assert_eq!(net.ovc[o].owner, g, "{cfg:?}: output VC {o}");
                }
                for (o, &was) in before.iter().enumerate() {
                    let now = net.ovc[o].owner;
                    if was == NO_OWNER && now != NO_OWNER {
                        assert_eq!(pending.owners.get(&o), Some(&now), "{cfg:?}: output VC {o} allocated unannounced");
                        granted += 1;
                    }
                }
            }
            assert!(granted > 100, "{cfg:?}: {granted}");
        }
    }

    /// Cycles between the ejections of two one-flit packets that reach the middle router of a 3x1 mesh (1 VC) in
    /// the same cycle from both sides and compete for the one ejection VC, with VC and switch allocation of
    /// `va` and `sa` cycles; the same with debug clocking.
    fn contended_ejection_gap(va: u32, sa: u32) -> u64 {
        let cfg = NetworkConfig { width: 3, height: 1, vc_alloc_delay_cycles: va, sw_alloc_delay_cycles: sa, ..NetworkConfig::default() };
        let mut gaps = Vec::new();
        for visit_all in [false, true] {
            let mut net = Network::new(cfg.clone()).unwrap();
            net.set_visit_all(visit_all);
            net.enqueue(NodeId(0), NodeId(1), 1, 0, 0);
            net.enqueue(NodeId(2), NodeId(1), 1, 0, 0);
            net.run_until(Cycle(200)).unwrap();
            let ejected: Vec<u64> = net.take_delivered().map(|d| d.ejected.0).collect();
            assert_eq!(ejected.len(), 2);
            gaps.push(ejected[0].abs_diff(ejected[1]));
        }
        assert_eq!(gaps[0], gaps[1], "debug clocking");
        gaps[0]
    }

    #[test]
    fn a_head_that_loses_vc_allocation_tries_again_an_attempt_later() {
        // Both heads ask for the ejection VC in cycle a; one wins, bids from a + D and its flit leaves in
        // a + D + S - 1, so the VC is free again from a + D + S. The loser tries at a + D, a + 2D, ..., wins the
        // first attempt at or after a + D + S (k = 1 + ceil(S / D) attempts after a) and leaves k * D cycles after
        // the winner.
        for (va, sa, gap) in [(1, 1, 2), (2, 1, 4), (3, 1, 6), (1, 2, 3), (2, 3, 6), (3, 2, 6)] {
            assert_eq!(contended_ejection_gap(va, sa), gap, "vc_alloc_delay {va}, sw_alloc_delay {sa}");
        }
    }

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
