//! One physical network: routers, links, credits, and the injection/ejection side of every node.
//!
//! All state lives in flat arrays indexed by (router, port, virtual channel), so stepping the network allocates
//! nothing. A channel is not an object: when a flit wins switch allocation it is written straight into the
//! downstream buffer, stamped with the cycle it arrives there, and stays invisible to the downstream router until
//! then. Credits travel back the same way, stamped with their arrival cycle. Because every value written into
//! another router is stamped with a later cycle, the order in which routers are visited within a cycle cannot
//! change the result, which is what lets [`Network::step`] visit only the routers and nodes that have work due.
//! Who is due when is kept in a timing wheel (the `calendar` module), so a step costs nothing for idle routers.

mod calendar;

use crate::config::{ConfigError, NetworkConfig};
use crate::routing::{Route, RouteFn, RouteQuery, VcPolicy};
use crate::stats::{Delivery, LinkStats};
use crate::sw_alloc::Crossbar;
use crate::topology::{Direction, Mesh, MESH_PORTS};
use crate::types::{Cycle, NodeId, PacketId, PortId, RouterId, VcId};
use crate::watchdog::{self, DeadlockReport};
use calendar::Calendar;
use std::collections::VecDeque;

pub(crate) const NO_OWNER: u16 = u16::MAX;
/// Route-table entry: the destination router is this one; leave through the destination's local port.
const ARRIVED: u8 = u8::MAX;
/// Largest mesh whose routing decisions are tabulated (1 MiB of table); larger meshes call the function.
const ROUTE_TABLE_MAX_ROUTERS: usize = 1024;
pub(crate) const HEAD: u8 = 1;
pub(crate) const TAIL: u8 = 2;

/// What a node does with flits that reach its ejection queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum DrainPolicy {
    /// The network drains one flit per cycle and reports finished packets through [`Network::take_delivered`].
    Auto,
    /// Like `Auto`, but only while the node has nothing left to inject: a core that receives only after its own
    /// send has completed (the situation behind NoCMsg's deadlock example).
    WhenSourceIdle,
    /// The node never drains: its queue fills and back-pressures the network.
    Never,
    /// The owner of the node (a network interface model) pops flits with [`Network::eject_pop`].
    Manual,
    /// The network drains one flit per cycle while the receive buffer the flit's packet goes to has room (TilePro's
    /// UDN demultiplexing queues): a packet's class is its `tag` (below [`DRAIN_CLASSES`]; higher tags drain
    /// freely), and each class has a room count the owner sets and refills ([`Network::add_drain_room`]) as it
    /// empties the buffer. A head flit of a packet whose tag has [`HEAD_NEEDS_NO_ROOM`] set drains without room
    /// (the buffer strips headers). Every drained flit is recorded ([`Network::take_drained_flits`]), so the
    /// owner sees each word at the cycle it lands, not only whole packets.
    Budgeted,
}

/// Receive-buffer classes of [`DrainPolicy::Budgeted`] nodes.
pub const DRAIN_CLASSES: usize = 8;
/// Tag bit of a packet whose head flit needs no room in its class (see [`DrainPolicy::Budgeted`]).
pub const HEAD_NEEDS_NO_ROOM: u64 = 1 << 8;

/// A flit a [`DrainPolicy::Budgeted`] node drained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrainedFlit {
    /// The cycle it was drained.
    pub cycle: Cycle,
    pub src: NodeId,
    /// Its packet's payload and tag, as enqueued.
    pub payload: u64,
    pub tag: u64,
    /// Position in the packet, 0 for the head.
    pub seq: u16,
    /// The packet record, on the tail flit.
    pub delivery: Option<Delivery>,
}

/// A flit as stored in a buffer: 16 bytes, never heap-allocated on its own. Its destination is in the packet
/// record; a head flit also carries the output port it takes at the router whose buffer holds it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Flit {
    /// Cycle from which the flit is visible in the buffer holding it.
    pub arrival: u64,
    pub packet: u32,
    pub seq: u16,
    pub flags: u8,
    /// Head flits: the route computed for the router holding the flit (a [`Route`]: its output port, or two
    /// candidate ports with adaptive routing). Routing is a pure function of router, destination and (for
    /// `odd-even`) source, so it is looked up when the flit is sent there (lookahead), off the path of the visit
    /// that uses it; the route computation stage keeps its timing.
    pub route: u8,
}

impl Flit {
    pub fn is_head(&self) -> bool {
        self.flags & HEAD != 0
    }
    pub fn is_tail(&self) -> bool {
        self.flags & TAIL != 0
    }
}

/// A flit handed to the node by [`Network::eject_pop`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EjectedFlit {
    pub packet: PacketId,
    pub vc: VcId,
    /// Position of the flit in its packet, 0 for the head.
    pub seq: u16,
    pub head: bool,
    pub tail: bool,
    /// Cycle the flit entered the ejection queue.
    pub arrival: Cycle,
    /// The packet record, on the tail flit only (the packet id is free for reuse after this call).
    pub delivery: Option<Delivery>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VcState {
    /// No packet owns the VC; a head flit at the front starts route computation (its route, which it brought
    /// along, is copied to `out_port` when it reaches the front).
    Idle,
    /// Route computed, waiting for VC allocation (again from `ready_at` after a loss: every cycle, or every
    /// `vc_alloc_delay_cycles`).
    Routed,
    /// Holds `out_port`/`out_vc` until its tail leaves; flits compete for the switch from `ready_at` (the VC's
    /// next switch bid: after its VC allocation, after its last bid with `sw_alloc_delay_cycles`).
    Active,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct InputVc {
    /// Where the flits behind the front one start in the VC's ring in `Network::buf`.
    pub head: u16,
    /// Flits held, the front one included.
    pub len: u16,
    pub state: VcState,
    pub out_port: u8,
    pub out_vc: u8,
    /// Its front flit is ready for the switch but the output VC had no credit: a returning credit wakes it.
    pub waiting_credit: bool,
    pub ready_at: u64,
    /// The earliest cycle at which it may have something to do (see `router`); `u64::MAX` when empty.
    pub due_at: u64,
    /// The front flit (when `len > 0`). It is the only flit of most VCs that hold one, and every stage reads it,
    /// so it lives here with the state the router step reads anyway.
    pub front: Flit,
}

/// The sender side of a channel: who owns the downstream VC, how many credits are usable, and credits in flight
/// back (their landing cycles: the oldest here, the others in a ring in `Network::ovc_pending`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct OutputVc {
    pub owner: u16,
    pub credits: u16,
    /// Where the credits in flight behind the oldest one start in the ring.
    pub pend_head: u16,
    /// Credits in flight, the oldest included.
    pub pend_len: u16,
    /// When the oldest credit in flight lands (if `pend_len > 0`). Usually it is the only one, so returning and
    /// collecting credits seldom needs the ring.
    pub first_landing: u64,
    /// The first cycle whose VC allocation may hand the VC out again: the cycle after its last tail left. (VC
    /// allocation can be evaluated after that cycle's traversals, see `router`.)
    pub free_from: u64,
}

/// A packet while it is in flight.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PacketRecord {
    pub src: u32,
    pub dst: u32,
    pub len: u16,
    pub created: u64,
    pub injected: u64,
    pub ejected: u64,
    pub payload: u64,
    pub tag: u64,
}

/// Marks a link end that is a node rather than a router.
pub(crate) const NO_ROUTER: u32 = u32::MAX;

/// What feeds a router input port: the sender's output VCs (`ovc` is the first), which belong to router `router`
/// or, for a local port, to the injecting node (`router` is [`NO_ROUTER`]). Unused at a mesh edge.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InLink {
    pub router: u32,
    pub ovc: u32,
}

/// Where a router output port leads: the first input VC (`first`) of the facing port of router `router`, or for a
/// local port (`router` is [`NO_ROUTER`]) the first ejection queue of node `node`. Unused at a mesh edge.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OutLink {
    pub router: u32,
    pub first: u32,
    pub node: u32,
}

/// Per node: the packet being injected, the source queue behind it and the VC round-robin pointer.
#[derive(Clone, Debug)]
pub(crate) struct NodeState {
    pub source: VecDeque<u32>,
    /// Flits of the source queue not yet injected (for saturation detection and stats).
    pub queued_flits: u64,
    /// VC the front packet is being injected on, and the next flit's sequence number.
    pub inj_vc: Option<u8>,
    pub inj_seq: u16,
    pub inj_rr: u8,
    pub drain_rr: u8,
    pub drain: Option<DrainPolicy>,
    /// Position in `Network::active_nodes` while the source queue is not empty.
    pub active_slot: u32,
    /// The last packet of the source queue while its owner is still writing it ([`Network::enqueue_open`]), or
    /// `u32::MAX`; `released` of its flits are written. Flits not yet written are not in `queued_flits`.
    pub open: u32,
    pub released: u16,
}

impl Default for NodeState {
    fn default() -> Self {
        NodeState {
            source: VecDeque::new(),
            queued_flits: 0,
            inj_vc: None,
            inj_seq: 0,
            inj_rr: 0,
            drain_rr: 0,
            drain: None,
            active_slot: u32::MAX,
            open: u32::MAX,
            released: 0,
        }
    }
}

/// Where a node is, resolved once so the hot path never divides.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeLoc {
    pub router: u32,
    pub port: u8,
    pub x: u32,
    pub y: u32,
}

/// Pipeline timing, derived once from the configuration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    /// Cycles between a head flit's stages (RC -> VA -> SA) and between a body flit's write and its switch bid.
    pub stage_gap: u64,
    /// Cycles from winning the switch to leaving the router: `crossbar_delay_cycles` with `4stage` (0 with `1stage`) plus
    /// `output_delay_cycles`.
    pub traversal: u64,
    /// Cycles from winning the switch to being visible in the next router's input buffer.
    pub to_next_buffer: u64,
    /// Cycles from winning the switch to being in the destination's ejection queue.
    pub to_eject: u64,
    pub credit_delay: u64,
    /// Cycles from injection to the router's input buffer.
    pub inject: u64,
    /// Cycles from a body flit's write into an input buffer to its first switch bid.
    pub body_gap: u64,
    /// Cycles from VC allocation to the switch bid of the VC it grants: `stage_gap`, or 0 with speculative switch
    /// allocation (a `4stage` head bids in the cycle of its VC allocation).
    pub va_gap: u64,
    /// Cycles from a head reaching the front of an idle VC (route computation) to its switch bid.
    pub head_gap: u64,
    /// Cycles one VC allocation attempt takes (`vc_alloc_delay_cycles`; a loser tries again this much later).
    pub va_attempt: u64,
    /// Cycles one switch allocation bid takes (`sw_alloc_delay_cycles`): a winner leaves the buffer in the bid's
    /// last cycle, and a VC bids again this much later.
    pub sa_attempt: u64,
    /// The longest a flit may wait in an output queue (only with `output_speedup`): the queue holds no more flits
    /// than the downstream buffers have credits.
    pub queue_wait: u64,
}

impl Timing {
    pub(crate) fn of(cfg: &NetworkConfig) -> Timing {
        // Between a head's stages and from a body flit's write to its bid: one cycle with `4stage`, none with `1stage`.
        let stage_gap = match cfg.pipeline {
            crate::config::RouterPipeline::OneStage => 0,
            crate::config::RouterPipeline::FourStage => 1,
        };
        let va_attempt = u64::from(cfg.vc_alloc_delay_cycles);
        let va_gap = if cfg.speculative_switch_allocation { 0 } else { stage_gap * va_attempt };
        Timing {
            stage_gap,
            traversal: cfg.traversal_cycles(),
            to_next_buffer: cfg.switch_to_next_buffer_cycles(),
            to_eject: cfg.switch_to_eject_cycles(),
            credit_delay: u64::from(cfg.credit_delay_cycles),
            inject: u64::from(cfg.injection_channel_cycles),
            body_gap: if cfg.body_bids_on_arrival { 0 } else { stage_gap },
            va_gap,
            head_gap: stage_gap * u64::from(cfg.routing_delay_cycles) + va_gap,
            va_attempt,
            sa_attempt: u64::from(cfg.sw_alloc_delay_cycles),
            queue_wait: if cfg.output_speedup > 1 {
                u64::from(cfg.vcs) * u64::from(cfg.buffer_depth_flits.max(cfg.eject_queue_flits))
            } else {
                0
            },
        }
    }

    /// Cycles ahead that a router or node may be filed in a calendar: nothing is filed further ahead than a flit's
    /// trip to the next buffer (from the last cycle of its switch bid, with its wait in an output queue) or from
    /// its injection plus a head's wait for its switch bid (`head_gap`; the span takes at least `stage_gap +
    /// traversal` and `2 * stage_gap` for it, which the default router's `head_gap` of 2 never exceeds), or a
    /// credit's return (`stage_gap + credit_delay` after the bid's last cycle, rounded up to the VC's next bid), or
    /// a retried allocation (`va_attempt`, `sa_attempt`).
    fn calendar_span(&self) -> u64 {
        let bid = self.sa_attempt - 1;
        let flit = self.to_next_buffer + bid + self.queue_wait + self.head_gap.max(self.stage_gap + self.traversal) + self.credit_delay + bid;
        flit.max(self.inject + self.head_gap.max(2 * self.stage_gap)).max(self.va_attempt).max(self.sa_attempt)
    }
}

/// Slots of each input VC's flit ring and of each output VC's credit ring (powers of two, see `buf_mask`).
fn ring_slots(depth: usize, eject_depth: usize) -> (usize, usize) {
    ((depth - 1).max(1).next_power_of_two(), depth.max(eject_depth).next_power_of_two())
}

/// What a network of some configuration holds in memory ([`NetworkConfig::memory`]), known before it is built so
/// that a configuration too large for the machine can be refused instead of aborting on an allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetworkMemory {
    /// Allocated when the network is built, whatever the traffic: the flit buffer of every port and VC, credit
    /// rings, channels, per-node state and ejection queues, the routing table, the calendars, link statistics, and
    /// the list of packets delivered in one cycle.
    pub fixed_bytes: u64,
    /// Added by each packet queued at a source or in flight: its record, its source-queue entry and, once
    /// delivered, its slot in the free list (records are reused, so this counts the most packets alive at once).
    pub bytes_per_packet: u64,
    /// Flit slots of all input VC buffers and ejection queues.
    pub buffer_flits: u64,
    /// Input VC buffers and ejection queues.
    pub buffers: u64,
}

impl NetworkMemory {
    /// The most packets of `packet_flits` flits the buffers can hold at once: a buffer of `d` flits holds at most
    /// `d / packet_flits` whole packets and the ends of two more.
    pub fn packets_in_buffers(&self, packet_flits: u64) -> u64 {
        self.buffer_flits / packet_flits.max(1) + 2 * self.buffers
    }
}

/// Bytes of the arrays [`Network::new`] allocates, computed from the same sizes and formulas.
fn built_bytes(cfg: &NetworkConfig) -> u64 {
    use std::mem::size_of;
    let mesh = cfg.mesh();
    let (routers, nodes, ports, vcs) = (mesh.routers() as u64, mesh.nodes() as u64, mesh.ports() as u64, u64::from(cfg.vcs));
    let (buf_slots, credit_slots) = ring_slots(cfg.buffer_depth_flits as usize, cfg.eject_queue_flits as usize);
    let (buf_slots, credit_slots) = (buf_slots as u64, credit_slots as u64);
    let n_ivc = routers * ports * vcs;
    let n_ovc = n_ivc + nodes * vcs;
    let channels = routers * ports;
    let span = Timing::of(cfg).calendar_span();
    let bytes = |count: u64, each: usize| count.saturating_mul(each as u64);
    let route_table = if tabulated(cfg) { routers * routers } else { 0 };
    [
        bytes(n_ivc, size_of::<InputVc>()),
        bytes(n_ivc * buf_slots, size_of::<Flit>()),
        bytes(n_ovc, size_of::<OutputVc>()),
        bytes(n_ovc * credit_slots, size_of::<u64>()),
        bytes(channels, size_of::<InLink>() + size_of::<OutLink>()),
        bytes(routers, size_of::<(u32, u32)>()),
        bytes(nodes, size_of::<NodeLoc>()),
        Calendar::bytes(span, routers as usize),
        Calendar::bytes(span, nodes as usize),
        route_table,
        bytes(2 * channels + 2 * n_ivc + 2 * routers + routers * ports * u64::from(2 * cfg.input_speedup + cfg.output_speedup), size_of::<u8>()),
        bytes(if cfg.output_speedup > 1 { channels } else { 0 }, size_of::<u64>()),
        size_of::<Crossbar>() as u64,
        bytes(nodes * vcs * u64::from(cfg.eject_queue_flits), size_of::<Flit>()),
        bytes(2 * nodes * vcs, size_of::<u16>()),
        bytes(nodes, size_of::<NodeState>()),
        bytes(channels, size_of::<u64>()),
    ]
    .into_iter()
    .fold(0u64, u64::saturating_add)
}

/// Whether the routing decisions of `cfg` are precomputed: for networks up to [`ROUTE_TABLE_MAX_ROUTERS`] routers
/// whose routing function does not depend on the packet's source.
fn tabulated(cfg: &NetworkConfig) -> bool {
    cfg.mesh().routers() <= ROUTE_TABLE_MAX_ROUTERS && !cfg.routing.requirements().needs_source
}

/// See [`NetworkConfig::memory`].
pub(crate) fn memory(cfg: &NetworkConfig) -> NetworkMemory {
    use std::mem::size_of;
    let mesh = cfg.mesh();
    let (routers, nodes, ports, vcs) = (mesh.routers() as u64, mesh.nodes() as u64, mesh.ports() as u64, u64::from(cfg.vcs));
    let (n_ivc, n_ej) = (routers * ports * vcs, nodes * vcs);
    NetworkMemory {
        // Each node drains at most one flit per cycle, so at most one delivery per node is listed per cycle.
        fixed_bytes: built_bytes(cfg).saturating_add(nodes.saturating_mul(size_of::<Delivery>() as u64)),
        bytes_per_packet: (size_of::<PacketRecord>() + size_of::<u32>() + size_of::<u32>()) as u64,
        buffer_flits: n_ivc * u64::from(cfg.buffer_depth_flits) + n_ej * u64::from(cfg.eject_queue_flits),
        buffers: n_ivc + n_ej,
    }
}

/// When `flit`, at the front of input VC `vc`, may next act, judged from the VC's state alone: VC allocation for
/// the head of an idle VC (route computation is folded into it), VC allocation again after a loss, the switch bid
/// otherwise. VC allocation of cycle `t` is evaluated in the visit of cycle `t + va_gap`, together with the
/// switch bids of that cycle (see `router`), so the head of an idle VC is due `head_gap` after it reached the front. A body flit bids `body_gap`
/// cycles after it was written (`stage_gap`, or 0 with `body_bids_on_arrival`).
#[inline]
pub(crate) fn flit_due(vc: &InputVc, flit: &Flit, head_gap: u64, body_gap: u64) -> u64 {
    match vc.state {
        VcState::Idle => flit.arrival.max(vc.ready_at) + head_gap,
        VcState::Routed => vc.ready_at,
        VcState::Active if flit.is_head() => vc.ready_at,
        VcState::Active => (flit.arrival + body_gap).max(vc.ready_at),
    }
}

/// The first cycle at or after `at` at which a VC whose next switch bid is at `ready_at` bids, bidding every
/// `attempt` cycles.
#[inline(always)]
pub(crate) fn next_bid(ready_at: u64, at: u64, attempt: u64) -> u64 {
    if at <= ready_at {
        ready_at
    } else {
        ready_at + (at - ready_at).div_ceil(attempt) * attempt
    }
}

/// Wraps a ring-buffer index without a division.
#[inline]
pub(crate) fn wrap(i: usize, len: usize) -> usize {
    if i >= len {
        i - len
    } else {
        i
    }
}

/// A cycle-level model of one wormhole-switched mesh network with credit-based flow control.
pub struct Network {
    pub(crate) cfg: NetworkConfig,
    pub(crate) mesh: Mesh,
    pub(crate) route: RouteFn,
    /// Visits the routers due in a cycle, compiled for this configuration class.
    pub(crate) step_routers: crate::router::StepRoutersFn,
    pub(crate) timing: Timing,
    pub(crate) now: u64,
    pub(crate) ports: usize,
    pub(crate) vcs: usize,
    pub(crate) depth: usize,
    pub(crate) eject_depth: usize,
    /// Slots per input VC ring less one: rings have a power-of-two number of slots (at least `depth - 1`, as the
    /// front flit is kept in the VC record and credits keep at most `depth` flits in a VC), so positions wrap
    /// with a mask.
    pub(crate) buf_mask: usize,
    /// Slots per credit ring less one (a power of two, like `buf_mask`).
    pub(crate) credit_mask: usize,
    /// Per input VC (`(router * ports + port) * vcs + vc`).
    pub(crate) ivc: Vec<InputVc>,
    /// The flits behind the front one of each input VC, in a ring per VC laid out slot-major: slot `k` of input
    /// VC `i` is `buf[k * ivc.len() + i]` (see [`Network::slot`]). A ring that empties starts again at slot 0, so
    /// the few slots in use share cache lines.
    pub(crate) buf: Vec<Flit>,
    pub(crate) routers: usize,
    /// Output VCs: routers first (`(router * ports + port) * vcs + vc`), then injection (`base + node * vcs + vc`).
    pub(crate) ovc: Vec<OutputVc>,
    /// Landing cycles of the credits in flight per output VC behind the oldest one, a ring of `credit_mask + 1`
    /// slots laid out slot-major like `buf` (slot `k` of output VC `o` is `ovc_pending[k * ovc.len() + o]`);
    /// landed credits are collected whenever one is returned, so the ring is seldom used.
    pub(crate) ovc_pending: Vec<u64>,
    pub(crate) inject_ovc_base: usize,
    /// Per (router, port): the channel feeding this input port (where its credits go back to).
    pub(crate) in_link: Vec<InLink>,
    /// Per (router, port): where this output port leads.
    pub(crate) out_link: Vec<OutLink>,
    pub(crate) router_xy: Vec<(u32, u32)>,
    pub(crate) node_loc: Vec<NodeLoc>,
    /// Input port of each bit of a router's occupancy mask.
    pub(crate) port_of_bit: [u8; 64],
    /// How the routers' ports map onto their crossbars (input and output speedup). Boxed: held inline, its 240
    /// bytes pushed the hot fields apart and cost 10-15% on 16x16 and 32x32 meshes.
    pub(crate) xbar: Box<Crossbar>,
    /// With `output_speedup`: per (router, output port), the first cycle whose switch winners find the output queue
    /// empty (a flit that wins in cycle `t` leaves the queue `max(t, this) - t` cycles late). Empty otherwise.
    pub(crate) out_queue_free: Vec<u64>,
    /// Routers and nodes, filed under the cycles at which they may have something to do.
    pub(crate) router_calendar: Calendar,
    pub(crate) node_calendar: Calendar,
    /// Routing decisions precomputed for meshes up to [`ROUTE_TABLE_MAX_ROUTERS`] routers:
    /// `route_table[here * routers + destination router]` is the output mesh port, or [`ARRIVED`].
    pub(crate) route_table: Vec<u8>,
    /// Round-robin pointers: VC allocation per output port, switch allocation per crossbar input and per crossbar
    /// output (`xbar`; per input and output port without speedup).
    pub(crate) rr_va: Vec<u8>,
    pub(crate) rr_sa_in: Vec<u8>,
    pub(crate) rr_sa_out: Vec<u8>,
    /// Per (router, output port): the output VC that VC allocation tries first (round-robin VC selection).
    pub(crate) rr_ovc: Vec<u8>,
    /// iSLIP VC allocation pointers: grant pointer per router output VC (indexed like `ovc`), accept pointer per
    /// input VC (indexed like `ivc`).
    pub(crate) va_grant_ptr: Vec<u8>,
    pub(crate) va_accept_ptr: Vec<u8>,
    /// iSLIP switch allocation: accept pointer per (router, crossbar input) over crossbar outputs.
    pub(crate) sa_accept_ptr: Vec<u8>,
    /// Wavefront allocators: each router's priority diagonal for VC and for switch allocation.
    pub(crate) va_wavefront: Vec<u8>,
    pub(crate) sa_wavefront: Vec<u8>,
    /// Speculative switch allocation (`speculative_switch_allocation` with `4stage`).
    pub(crate) speculative: bool,
    /// Whether routers take the one-VC path (one VC per port, and allocators for which it is exact).
    pub(crate) one_vc_path: bool,
    /// Whether heads choose among candidate ports or are limited to a class of VCs (adaptive routing, torus
    /// datelines): VC allocation then goes through `choose_output`, and the one-VC shortcut is off.
    /// False for dimension order on a mesh, which does none of this work.
    pub(crate) route_choice: bool,
    pub(crate) vc_policy: VcPolicy,
    /// VCs a head may be allocated, by the kind `choose_output` gives it: 0 any VC of the port; with
    /// [`VcPolicy::Dateline`] 1 class 0 (lower half) and 2 class 1 (upper half); with [`VcPolicy::Escape`] 1 the
    /// escape VC 0 and 2 the adaptive VCs.
    pub(crate) kind_masks: [u64; 3],
    /// Ejection queues per (node, vc).
    pub(crate) ej_buf: Vec<Flit>,
    pub(crate) ej_head: Vec<u16>,
    pub(crate) ej_len: Vec<u16>,
    pub(crate) nodes: Vec<NodeState>,
    pub(crate) default_drain: DrainPolicy,
    pub(crate) packets: Vec<PacketRecord>,
    pub(crate) free_packets: Vec<u32>,
    /// The nodes whose source queue is not empty, in no particular order.
    pub(crate) active_nodes: Vec<u32>,
    pub(crate) visit_all: bool,
    pub(crate) delivered: Vec<Delivery>,
    /// [`DrainPolicy::Budgeted`] nodes: room per receive-buffer class, and the flits drained and not yet taken.
    pub(crate) drain_room: Vec<[u32; DRAIN_CLASSES]>,
    pub(crate) drained_flits: Vec<Vec<DrainedFlit>>,
    pub(crate) links: LinkStats,
    /// Flits injected but not yet drained by their destination node.
    pub(crate) flits_in_network: u64,
    pub(crate) flits_drained: u64,
    pub(crate) last_progress: u64,
}

/// The network stopped making progress; see [`DeadlockReport`].
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct Deadlock(pub Box<DeadlockReport>);

impl Network {
    pub fn new(cfg: NetworkConfig) -> Result<Network, ConfigError> {
        cfg.validate()?;
        let mesh = cfg.mesh();
        let ports = mesh.ports();
        let vcs = cfg.vcs as usize;
        let depth = cfg.buffer_depth_flits as usize;
        let eject_depth = cfg.eject_queue_flits as usize;
        let routers = mesh.routers();
        let nodes = mesh.nodes();
        let n_ivc = routers * ports * vcs;
        let inject_ovc_base = n_ivc;
        let (buf_slots, credit_slots) = ring_slots(depth, eject_depth);
        let idle_ovc =
            OutputVc { owner: NO_OWNER, credits: depth as u16, pend_head: 0, pend_len: 0, first_landing: 0, free_from: 0 };
        let mut ovc = vec![idle_ovc; n_ivc + nodes * vcs];
        let unused = (InLink { router: NO_ROUTER, ovc: u32::MAX }, OutLink { router: NO_ROUTER, first: u32::MAX, node: u32::MAX });
        let mut in_link = vec![unused.0; routers * ports];
        let mut out_link = vec![unused.1; routers * ports];
        for r in 0..routers {
            let rid = RouterId(r as u32);
            for p in 0..ports {
                let port = PortId(p as u8);
                match Direction::from_port(port) {
                    Some(dir) => {
                        if let Some(n) = mesh.neighbor(rid, dir) {
                            // The neighbour's port facing us is both where our output goes and what feeds our input.
                            let facing = ((n.0 as usize * ports + dir.opposite() as usize) * vcs) as u32;
                            in_link[r * ports + p] = InLink { router: n.0, ovc: facing };
                            out_link[r * ports + p] = OutLink { router: n.0, first: facing, node: u32::MAX };
                        }
                    }
                    None => {
                        let node = mesh.node_at(rid, port).expect("local port").0 as usize;
                        in_link[r * ports + p] = InLink { router: NO_ROUTER, ovc: (inject_ovc_base + node * vcs) as u32 };
                        out_link[r * ports + p] = OutLink { router: NO_ROUTER, first: (node * vcs) as u32, node: node as u32 };
                    }
                }
                if p >= MESH_PORTS {
                    for v in 0..vcs {
                        ovc[(r * ports + p) * vcs + v].credits = eject_depth as u16;
                    }
                }
            }
        }
        let timing = Timing::of(&cfg);
        let speculative = cfg.speculative_switch_allocation && cfg.pipeline == crate::config::RouterPipeline::FourStage;
        let vc_policy = cfg.routing.vc_policy(cfg.topology);
        let route_choice = vc_policy != VcPolicy::Any || cfg.routing.requirements().adaptive;
        let all = (1u64 << vcs) - 1;
        let kind_masks = match vc_policy {
            VcPolicy::Any => [all, 0, 0],
            VcPolicy::Dateline => [all, (1u64 << (vcs / 2)) - 1, all & !((1u64 << (vcs / 2)) - 1)],
            VcPolicy::Escape => [all, 1, all & !1],
        };
        let one_vc_path = vcs == 1
            && !route_choice
            && !speculative
            && !cfg.wait_for_tail_credit
            && cfg.input_speedup == 1
            && cfg.output_speedup == 1
            && cfg.vc_alloc_delay_cycles == 1
            && cfg.sw_alloc_delay_cycles == 1
            && cfg.vc_allocator.row().one_vc_round_robin
            && cfg.sw_allocator.row().one_vc_round_robin;
        let xbar = Crossbar::new(ports, vcs, cfg.input_speedup as usize, cfg.output_speedup as usize);
        let mut port_of_bit = [0u8; 64];
        for (bit, port) in port_of_bit.iter_mut().enumerate().take(ports * vcs) {
            *port = (bit / vcs) as u8;
        }
        let mut net = Network {
            route: cfg.routing.function(),
            step_routers: crate::router::step_routers_fn(one_vc_path, timing.stage_gap, ports),
            timing,
            mesh,
            now: 0,
            ports,
            vcs,
            depth,
            eject_depth,
            buf_mask: buf_slots - 1,
            credit_mask: credit_slots - 1,
            ivc: vec![
                InputVc {
                    head: 0,
                    len: 0,
                    state: VcState::Idle,
                    out_port: 0,
                    out_vc: 0,
                    waiting_credit: false,
                    ready_at: 0,
                    due_at: u64::MAX,
                    front: Flit::default(),
                };
                n_ivc
            ],
            buf: vec![Flit::default(); n_ivc * buf_slots],
            routers,
            ovc_pending: vec![0; ovc.len() * credit_slots],
            ovc,
            inject_ovc_base,
            in_link,
            out_link,
            router_xy: (0..routers as u32).map(|r| mesh.coords(RouterId(r))).collect(),
            node_loc: (0..nodes as u32)
                .map(|n| {
                    let router = mesh.router_of(NodeId(n));
                    let (x, y) = mesh.coords(router);
                    NodeLoc { router: router.0, port: mesh.local_port(NodeId(n)).0, x, y }
                })
                .collect(),
            port_of_bit,
            out_queue_free: if cfg.output_speedup > 1 { vec![0; routers * ports] } else { Vec::new() },
            router_calendar: Calendar::new(timing.calendar_span(), routers),
            node_calendar: Calendar::new(timing.calendar_span(), nodes),
            route_table: Vec::new(),
            rr_va: vec![0; routers * ports],
            rr_sa_in: vec![0; routers * xbar.inputs],
            rr_sa_out: vec![0; routers * xbar.outputs],
            rr_ovc: vec![0; routers * ports],
            va_grant_ptr: vec![0; routers * ports * vcs],
            va_accept_ptr: vec![0; routers * ports * vcs],
            sa_accept_ptr: vec![0; routers * xbar.inputs],
            xbar: Box::new(xbar),
            va_wavefront: vec![0; routers],
            sa_wavefront: vec![0; routers],
            one_vc_path,
            route_choice,
            vc_policy,
            kind_masks,
            speculative,
            ej_buf: vec![Flit::default(); nodes * vcs * eject_depth],
            ej_head: vec![0; nodes * vcs],
            ej_len: vec![0; nodes * vcs],
            nodes: vec![NodeState::default(); nodes],
            default_drain: DrainPolicy::Auto,
            packets: Vec::new(),
            free_packets: Vec::new(),
            active_nodes: Vec::new(),
            visit_all: false,
            delivered: Vec::new(),
            drain_room: vec![[0; DRAIN_CLASSES]; nodes],
            drained_flits: vec![Vec::new(); nodes],
            links: LinkStats::new(routers, ports),
            flits_in_network: 0,
            flits_drained: 0,
            last_progress: 0,
            cfg,
        };
        if tabulated(&net.cfg) {
            // Ask the routing function once per (router, destination router); the hot path then looks decisions
            // up without branching on coordinates.
            let mut table = vec![ARRIVED; routers * routers];
            for here in 0..routers {
                for dst in 0..routers {
                    let node = (dst as u32) * mesh.concentration;
                    let route = net.route_port_uncached(here, node, 0);
                    if (Route(route).first().0 as usize) < MESH_PORTS {
                        table[here * routers + dst] = route;
                    }
                }
            }
            net.route_table = table;
        }
        Ok(net)
    }

    pub fn config(&self) -> &NetworkConfig {
        &self.cfg
    }

    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// The cycle the next call to [`Network::step`] simulates.
    pub fn now(&self) -> Cycle {
        Cycle(self.now)
    }

    /// Debug clocking: visit every router and node every cycle instead of only the busy ones. Results must be
    /// identical either way; the differential tests hold the fast path to that.
    pub fn set_visit_all(&mut self, on: bool) {
        self.visit_all = on;
    }

    /// Turns the VC classes of the routing function off (dateline classes on a torus, the escape VC of
    /// `min-adaptive`): every head may take any VC of its port. Deadlock-prone by design; only for tests showing
    /// what the classes prevent.
    #[doc(hidden)]
    pub fn disable_vc_classes_for_tests(&mut self) {
        self.vc_policy = VcPolicy::Any;
        self.kind_masks = [self.kind_masks[0], 0, 0];
    }

    /// Sets the drain policy of every node that has no policy of its own.
    pub fn set_default_drain(&mut self, policy: DrainPolicy) {
        self.default_drain = policy;
    }

    pub fn set_drain(&mut self, node: NodeId, policy: DrainPolicy) {
        self.nodes[node.0 as usize].drain = Some(policy);
        self.wake_node(node.0 as usize, self.now);
    }

    pub fn drain_policy(&self, node: NodeId) -> DrainPolicy {
        self.nodes[node.0 as usize].drain.unwrap_or(self.default_drain)
    }

    /// Queues a packet of `flits` flits at `src` for `dst`, created in the current cycle. It enters the network as
    /// soon as the node's earlier packets have and a credit is available (possibly in this very cycle).
    /// `tag` is carried untouched to the [`Delivery`] (the traffic generator marks measured packets with it).
    pub fn enqueue(&mut self, src: NodeId, dst: NodeId, flits: u16, payload: u64, tag: u64) -> PacketId {
        let nodes = self.nodes.len() as u32;
        assert!(src.0 < nodes && dst.0 < nodes, "node out of range: {src} -> {dst} on {nodes} nodes");
        assert!(flits >= 1, "a packet has at least one flit");
        let rec = PacketRecord {
            src: src.0,
            dst: dst.0,
            len: flits,
            created: self.now,
            injected: u64::MAX,
            ejected: u64::MAX,
            payload,
            tag,
        };
        let id = match self.free_packets.pop() {
            Some(id) => {
                self.packets[id as usize] = rec;
                id
            }
            None => {
                self.packets.push(rec);
                (self.packets.len() - 1) as u32
            }
        };
        let node = &mut self.nodes[src.0 as usize];
        if node.source.is_empty() {
            node.active_slot = self.active_nodes.len() as u32;
            self.active_nodes.push(src.0);
        }
        node.source.push_back(id);
        node.queued_flits += u64::from(flits);
        self.wake_node(src.0 as usize, self.now);
        PacketId(id)
    }

    /// Queues a packet of `flits` flits at `src` whose flits its owner has yet to write, one by one
    /// ([`Network::release_flits`]), as a core writing words into a network port does: only written flits can be
    /// injected, so the head may travel while the core still writes the body (wormhole). Until it is complete no
    /// other packet may be queued at `src`.
    pub fn enqueue_open(&mut self, src: NodeId, dst: NodeId, flits: u16, payload: u64, tag: u64) -> PacketId {
        assert_eq!(self.nodes[src.0 as usize].open, u32::MAX, "node {src} is still writing a packet");
        let id = self.enqueue(src, dst, flits, payload, tag);
        let node = &mut self.nodes[src.0 as usize];
        node.queued_flits -= u64::from(flits);
        node.open = id.0;
        node.released = 0;
        id
    }

    /// Flits of the packet being written at `node` ([`Network::enqueue_open`]) not written yet (0 if none).
    pub fn open_flits_left(&self, node: NodeId) -> u16 {
        let n = &self.nodes[node.0 as usize];
        if n.open == u32::MAX {
            0
        } else {
            self.packets[n.open as usize].len - n.released
        }
    }

    /// The owner of `node` has written `flits` more flits of its open packet; they may be injected from now on.
    pub fn release_flits(&mut self, node: NodeId, flits: u16) {
        let n = node.0 as usize;
        assert!(flits <= self.open_flits_left(node), "node {node} releases {flits} flits its packet does not have");
        let st = &mut self.nodes[n];
        st.released += flits;
        st.queued_flits += u64::from(flits);
        if st.released == self.packets[st.open as usize].len {
            st.open = u32::MAX;
        }
        self.wake_node(n, self.now);
    }

    /// [`DrainPolicy::Budgeted`]: room for `flits` more flits in receive-buffer class `class` of `node`.
    pub fn add_drain_room(&mut self, node: NodeId, class: usize, flits: u32) {
        self.drain_room[node.0 as usize][class] += flits;
        self.wake_node(node.0 as usize, self.now);
    }

    /// [`DrainPolicy::Budgeted`]: the room left in class `class` of `node`.
    pub fn drain_room(&self, node: NodeId, class: usize) -> u32 {
        self.drain_room[node.0 as usize][class]
    }

    /// [`DrainPolicy::Budgeted`]: the flits `node` has drained since the last call, oldest first.
    pub fn take_drained_flits(&mut self, node: NodeId) -> std::vec::Drain<'_, DrainedFlit> {
        self.drained_flits[node.0 as usize].drain(..)
    }

    /// [`DrainPolicy::Budgeted`]: the flits `node` has drained and nobody has taken yet.
    pub fn drained_flits(&self, node: NodeId) -> &[DrainedFlit] {
        &self.drained_flits[node.0 as usize]
    }

    /// Flits waiting in `node`'s source queue (not yet injected).
    pub fn source_queue_flits(&self, node: NodeId) -> u64 {
        self.nodes[node.0 as usize].queued_flits
    }

    /// Flits waiting in all source queues.
    pub fn total_source_queue_flits(&self) -> u64 {
        self.nodes.iter().map(|n| n.queued_flits).sum()
    }

    /// Flits injected and not yet drained by their destination.
    pub fn flits_in_network(&self) -> u64 {
        self.flits_in_network
    }

    /// Flits taken out of ejection queues by their destination nodes since the network was built.
    pub fn flits_drained(&self) -> u64 {
        self.flits_drained
    }

    /// True when no packet is queued, in flight or waiting in an ejection queue.
    pub fn is_empty(&self) -> bool {
        self.flits_in_network == 0 && self.nodes.iter().all(|n| n.source.is_empty())
    }

    /// Packets whose tail has been drained since the last call, in drain order (nodes with the `Manual` policy get
    /// the record from [`Network::eject_pop`] instead).
    pub fn take_delivered(&mut self) -> std::vec::Drain<'_, Delivery> {
        self.delivered.drain(..)
    }

    pub fn link_stats(&self) -> &LinkStats {
        &self.links
    }

    /// The oldest flit in `node`'s ejection queues that has arrived, round-robin over VCs (for `Manual` nodes).
    pub fn eject_pop(&mut self, node: NodeId) -> Option<EjectedFlit> {
        self.drain_one(node.0 as usize)
    }

    /// Simulates one cycle. Fails when the deadlock watchdog fires.
    pub fn step(&mut self) -> Result<(), Deadlock> {
        let now = self.now;
        for k in 0..self.node_calendar.words() {
            let mut due = self.node_calendar.take(now, k);
            if self.visit_all {
                // Everything is visited; each visit files its next wake-up as usual, so the calendar stays valid.
                due = u64::MAX >> (64 - (self.nodes.len() - 64 * k).min(64));
            }
            while due != 0 {
                let n = 64 * k + due.trailing_zeros() as usize;
                due &= due - 1;
                self.step_node(n, now);
            }
        }
        (self.step_routers)(self, now);
        self.now += 1;
        let limit = self.cfg.watchdog_cycles;
        if limit > 0 && self.flits_in_network > 0 && self.now - self.last_progress > limit {
            return Err(Deadlock(Box::new(watchdog::diagnose(self))));
        }
        Ok(())
    }

    /// Steps until `cycle` (exclusive).
    pub fn run_until(&mut self, cycle: Cycle) -> Result<(), Deadlock> {
        while self.now < cycle.0 {
            self.step()?;
        }
        Ok(())
    }

    /// Node `n` may have something to do at cycle `at` (`u64::MAX`: nothing to do).
    #[inline]
    pub(crate) fn wake_node(&mut self, n: usize, at: u64) {
        debug_assert!(at == u64::MAX || (at >= self.now && at - self.now <= self.node_calendar.span()), "node wake-up out of range");
        self.node_calendar.file(at, n);
    }

    /// Whether output VC `o` has a usable credit at `now`. Credits in flight are collected only when none is
    /// left, so the common case (credits to spare) needs no look at the in-flight ring.
    #[inline]
    pub(crate) fn has_credit(&mut self, o: usize, now: u64) -> bool {
        if self.ovc[o].credits > 0 {
            return true;
        }
        self.collect_credits(o, now) > 0
    }

    /// Moves the credits of output VC `o` that have arrived by `now` to the usable count, and returns it.
    pub(crate) fn collect_credits(&mut self, o: usize, now: u64) -> u16 {
        let (mask, stride) = (self.credit_mask, self.ovc.len());
        let vc = &mut self.ovc[o];
        while vc.pend_len > 0 && vc.first_landing <= now {
            vc.credits += 1;
            vc.pend_len -= 1;
            if vc.pend_len > 0 {
                // The next one moves up from the ring; an emptied ring starts again at slot 0 (see `ovc_pending`).
                let head = vc.pend_head as usize;
                vc.first_landing = self.ovc_pending[head * stride + o];
                vc.pend_head = if vc.pend_len > 1 { ((head + 1) & mask) as u16 } else { 0 };
            }
        }
        vc.credits
    }

    /// Sends a credit back on output VC `o`, usable from cycle `at`.
    #[inline(always)]
    pub(crate) fn return_credit(&mut self, o: usize, at: u64) {
        // Collecting the credits that have landed first keeps the ring short (it changes no count of usable
        // credits, only where they are kept).
        self.collect_credits(o, self.now);
        let (mask, stride) = (self.credit_mask, self.ovc.len());
        let vc = &mut self.ovc[o];
        if vc.pend_len == 0 {
            vc.first_landing = at;
        } else {
            let slot = (vc.pend_head as usize + vc.pend_len as usize - 1) & mask;
            self.ovc_pending[slot * stride + o] = at;
        }
        vc.pend_len += 1;
    }

    /// Sends a credit back to output VC `o` of router `r` and makes sure the router looks at it when it lands.
    #[inline]
    pub(crate) fn return_credit_to_router(&mut self, r: usize, o: usize, at: u64) {
        self.return_credit(o, at);
        self.wake_credit_owner(r, self.ports * self.vcs, o, at);
    }

    /// A credit landing at `at` on output VC `o` of router `r` (which has `vcs_per_router` input VCs) wakes the
    /// input VC owning that output VC if it waits for a credit; no other VC can be waiting for this one.
    #[inline(always)]
    pub(crate) fn wake_credit_owner(&mut self, r: usize, vcs_per_router: usize, o: usize, at: u64) {
        let owner = self.ovc[o].owner;
        if owner != NO_OWNER {
            let vc = &mut self.ivc[r * vcs_per_router + owner as usize];
            if vc.waiting_credit && at < vc.due_at {
                // It bids again at its first bid cycle (`ready_at`, then every `sa_attempt`) from the landing on.
                let attempt = self.timing.sa_attempt;
                let at = if attempt == 1 { at } else { next_bid(vc.ready_at, at, attempt) };
                vc.due_at = at;
                self.wake(r, at);
            }
        }
    }

    /// Router `r` may have something to do at cycle `at` (`u64::MAX`: nothing to do).
    #[inline]
    pub(crate) fn wake(&mut self, r: usize, at: u64) {
        debug_assert!(
            at == u64::MAX || self.visit_all || (at > self.now && at - self.now <= self.router_calendar.span()),
            "router wake-up out of range"
        );
        self.router_calendar.file(at, r);
    }

    /// The route (see [`Route`]: the output port, or two candidates for adaptive routing) a head flit of
    /// `packet` takes at router `r`.
    #[inline]
    pub(crate) fn route_port(&self, r: usize, packet: u32) -> u8 {
        let dst = self.packets[packet as usize].dst;
        let d = self.node_loc[dst as usize];
        if self.route_table.is_empty() {
            return self.route_port_uncached(r, dst, self.packets[packet as usize].src);
        }
        let port = self.route_table[r * self.routers + d.router as usize];
        if port == ARRIVED {
            d.port
        } else {
            port
        }
    }

    fn route_port_uncached(&self, r: usize, dst: u32, src: u32) -> u8 {
        let (x, y) = self.router_xy[r];
        let d = self.node_loc[dst as usize];
        let src_x = self.node_loc[src as usize].x;
        (self.route)(&self.mesh, &RouteQuery { x, y, dst_x: d.x, dst_y: d.y, dst_port: PortId(d.port), src_x }).0
    }

    /// Appends a flit to input VC `i` of router `r`.
    #[inline]
    pub(crate) fn push_input(&mut self, r: usize, i: usize, flit: Flit) {
        let (mask, n_ivc) = (self.buf_mask, self.ivc.len());
        let vc = &mut self.ivc[i];
        debug_assert!((vc.len as usize) < self.depth, "credit protocol let a buffer overflow");
        let behind = vc.len as usize;
        vc.len += 1;
        if behind == 0 {
            vc.front = flit;
            let due = flit_due(vc, &flit, self.timing.head_gap, self.timing.body_gap);
            vc.due_at = due;
            if vc.state == VcState::Idle {
                // A head reached the front: its route is the VC's output port from now on.
                vc.out_port = flit.route;
            }
            self.wake(r, due);
        } else {
            let slot = (vc.head as usize + behind - 1) & mask;
            self.buf[slot * n_ivc + i] = flit;
        }
    }

    /// Index in `buf` of ring slot `slot` of input VC `i`.
    #[inline]
    pub(crate) fn slot(&self, i: usize, slot: u16) -> usize {
        slot as usize * self.ivc.len() + i
    }

    /// When the front flit of input VC `i` may next act (see [`flit_due`]); `u64::MAX` for an empty VC.
    #[inline]
    pub(crate) fn front_due(&self, i: usize) -> u64 {
        let vc = &self.ivc[i];
        if vc.len == 0 {
            return u64::MAX;
        }
        flit_due(vc, &vc.front, self.timing.head_gap, self.timing.body_gap)
    }

    fn step_node(&mut self, n: usize, now: u64) {
        let node = &self.nodes[n];
        let policy = node.drain.unwrap_or(self.default_drain);
        let drains = match policy {
            DrainPolicy::Auto => true,
            DrainPolicy::WhenSourceIdle => node.source.is_empty(),
            DrainPolicy::Never | DrainPolicy::Manual => false,
            DrainPolicy::Budgeted => {
                self.drain_budgeted(n, now);
                false
            }
        };
        if drains {
            if let Some((_, flit)) = self.pop_ejected(n) {
                if flit.is_tail() {
                    let d = self.finish_packet(flit.packet);
                    self.delivered.push(d);
                }
            }
        }
        // Flits written and not injected (a packet still being written may have none yet).
        if self.nodes[n].queued_flits > 0 {
            self.inject_one(n, now);
        }
        // Next visit: every cycle while there is something to send (a credit may have come back), and when the
        // next flit reaches an ejection queue this node drains itself.
        let mut next = if self.nodes[n].queued_flits == 0 { u64::MAX } else { now + 1 };
        if policy == DrainPolicy::Budgeted {
            next = next.min(self.budgeted_wake(n, now));
        } else if matches!(policy, DrainPolicy::Auto | DrainPolicy::WhenSourceIdle) {
            let vcs = self.vcs;
            for q in n * vcs..(n + 1) * vcs {
                if self.ej_len[q] > 0 {
                    next = next.min(self.ej_buf[q * self.eject_depth + self.ej_head[q] as usize].arrival.max(now + 1));
                }
            }
        }
        self.wake_node(n, next);
    }

    /// The receive-buffer class of packet `id` and whether its flit `head` needs room there (`None`: drains
    /// freely), for [`DrainPolicy::Budgeted`].
    #[inline]
    fn drain_class(&self, id: u32, head: bool) -> Option<usize> {
        let tag = self.packets[id as usize].tag;
        let class = (tag & !HEAD_NEEDS_NO_ROOM) as usize;
        (class < DRAIN_CLASSES && !(head && tag & HEAD_NEEDS_NO_ROOM != 0)).then_some(class)
    }

    /// The ejection queue of budgeted node `n` whose front flit has arrived and has room, round-robin over VCs.
    fn budgeted_front(&self, n: usize, now: u64) -> Option<usize> {
        let (vcs, depth) = (self.vcs, self.eject_depth);
        let start = self.nodes[n].drain_rr as usize;
        (0..vcs).map(|k| n * vcs + wrap(start + k, vcs)).find(|&q| {
            if self.ej_len[q] == 0 {
                return false;
            }
            let f = self.ej_buf[q * depth + self.ej_head[q] as usize];
            f.arrival <= now && self.drain_class(f.packet, f.is_head()).map_or(true, |c| self.drain_room[n][c] > 0)
        })
    }

    /// Drains one flit of budgeted node `n`, if one has arrived and has room, and records it.
    fn drain_budgeted(&mut self, n: usize, now: u64) {
        let Some(q) = self.budgeted_front(n, now) else { return };
        // `pop_ejected` takes the round-robin choice: point it at the queue chosen here.
        self.nodes[n].drain_rr = (q - n * self.vcs) as u8;
        let (_, flit) = self.pop_ejected(n).expect("the front flit has arrived");
        if let Some(c) = self.drain_class(flit.packet, flit.is_head()) {
            self.drain_room[n][c] -= 1;
        }
        let rec = self.packets[flit.packet as usize];
        let delivery = flit.is_tail().then(|| self.finish_packet(flit.packet));
        self.drained_flits[n].push(DrainedFlit {
            cycle: Cycle(now),
            src: NodeId(rec.src),
            payload: rec.payload,
            tag: rec.tag,
            seq: flit.seq,
            delivery,
        });
    }

    /// The next cycle budgeted node `n` may drain: the next cycle for an arrived flit with room, the arrival of
    /// one on its way; a flit without room waits for [`Network::add_drain_room`], which wakes the node.
    fn budgeted_wake(&self, n: usize, now: u64) -> u64 {
        let (vcs, depth) = (self.vcs, self.eject_depth);
        let mut next = u64::MAX;
        for q in n * vcs..(n + 1) * vcs {
            if self.ej_len[q] == 0 {
                continue;
            }
            let f = self.ej_buf[q * depth + self.ej_head[q] as usize];
            if f.arrival > now {
                next = next.min(f.arrival);
            } else if self.drain_class(f.packet, f.is_head()).map_or(true, |c| self.drain_room[n][c] > 0) {
                next = next.min(now + 1);
            }
        }
        next
    }

    fn inject_one(&mut self, n: usize, now: u64) {
        let Some(&pid) = self.nodes[n].source.front() else { return };
        let base = self.inject_ovc_base + n * self.vcs;
        let vc = match self.nodes[n].inj_vc {
            Some(v) => {
                if !self.has_credit(base + v as usize, now) {
                    return;
                }
                v
            }
            None => {
                // A new packet takes the first VC with a free slot, searching round-robin.
                let start = self.nodes[n].inj_rr as usize;
                let vcs = self.vcs;
                let Some(v) = (0..vcs).map(|k| wrap(start + k, vcs)).find(|&v| self.has_credit(base + v, now)) else {
                    return;
                };
                self.nodes[n].inj_rr = wrap(v + 1, self.vcs) as u8;
                self.nodes[n].inj_vc = Some(v as u8);
                self.nodes[n].inj_seq = 0;
                self.packets[pid as usize].injected = now;
                v as u8
            }
        };
        let len = self.packets[pid as usize].len;
        let seq = self.nodes[n].inj_seq;
        let mut flags = 0;
        if seq == 0 {
            flags |= HEAD;
        }
        if seq + 1 == len {
            flags |= TAIL;
        }
        self.ovc[base + vc as usize].credits -= 1;
        let loc = self.node_loc[n];
        let (router, port) = (loc.router as usize, loc.port as usize);
        let i = (router * self.ports + port) * self.vcs + vc as usize;
        let route = if seq == 0 { self.route_port(router, pid) } else { 0 };
        self.push_input(router, i, Flit { arrival: now + self.timing.inject, packet: pid, seq, flags, route });
        self.flits_in_network += 1;
        self.last_progress = now;
        let node = &mut self.nodes[n];
        node.queued_flits -= 1;
        if flags & TAIL != 0 {
            node.source.pop_front();
            node.inj_vc = None;
            if node.source.is_empty() {
                let slot = std::mem::replace(&mut node.active_slot, u32::MAX);
                self.active_nodes.swap_remove(slot as usize);
                if let Some(&moved) = self.active_nodes.get(slot as usize) {
                    self.nodes[moved as usize].active_slot = slot;
                }
            }
        } else {
            node.inj_seq = seq + 1;
        }
    }

    /// Removes the oldest arrived flit from node `n`'s ejection queues (round-robin over VCs) and returns its
    /// credit to the router.
    fn drain_one(&mut self, n: usize) -> Option<EjectedFlit> {
        let (v, flit) = self.pop_ejected(n)?;
        let delivery = if flit.is_tail() {
            let d = self.finish_packet(flit.packet);
            if self.drain_policy(NodeId(n as u32)) != DrainPolicy::Manual {
                self.delivered.push(d);
            }
            Some(d)
        } else {
            None
        };
        Some(EjectedFlit {
            packet: PacketId(flit.packet),
            vc: VcId(v as u8),
            seq: flit.seq,
            head: flit.is_head(),
            tail: flit.is_tail(),
            arrival: Cycle(flit.arrival),
            delivery,
        })
    }

    /// Takes the oldest arrived flit out of node `n`'s ejection queues (round-robin over VCs), returns its credit
    /// to the router and counts it as drained. Gives the VC it came from and the flit.
    #[inline]
    fn pop_ejected(&mut self, n: usize) -> Option<(usize, Flit)> {
        let now = self.now;
        let (vcs, eject_depth) = (self.vcs, self.eject_depth);
        let arrived = |q: usize| self.ej_len[q] > 0 && self.ej_buf[q * eject_depth + self.ej_head[q] as usize].arrival <= now;
        let v = if vcs == 1 {
            if !arrived(n) {
                return None;
            }
            0
        } else {
            let start = self.nodes[n].drain_rr as usize;
            (0..vcs).map(|k| wrap(start + k, vcs)).find(|&v| arrived(n * vcs + v))?
        };
        let q = n * vcs + v;
        let head = self.ej_head[q] as usize;
        let flit = self.ej_buf[q * eject_depth + head];
        self.ej_len[q] -= 1;
        // An emptied queue starts again at its first slot, which keeps the slots in use few and warm.
        self.ej_head[q] = if self.ej_len[q] == 0 { 0 } else { wrap(head + 1, eject_depth) as u16 };
        self.nodes[n].drain_rr = wrap(v + 1, vcs) as u8;
        let loc = self.node_loc[n];
        let (router, port) = (loc.router as usize, loc.port as usize);
        self.return_credit_to_router(router, (router * self.ports + port) * vcs + v, now + self.timing.credit_delay);
        self.flits_in_network -= 1;
        self.flits_drained += 1;
        self.last_progress = now;
        Some((v, flit))
    }

    /// The record of packet `id`, whose tail has just been drained; the id is free for reuse afterwards.
    fn finish_packet(&mut self, id: u32) -> Delivery {
        let rec = &self.packets[id as usize];
        let d = Delivery {
            packet: PacketId(id),
            src: NodeId(rec.src),
            dst: NodeId(rec.dst),
            flits: rec.len,
            created: Cycle(rec.created),
            injected: Cycle(rec.injected),
            ejected: Cycle(rec.ejected),
            drained: Cycle(self.now),
            payload: rec.payload,
            tag: rec.tag,
        };
        self.free_packets.push(id);
        d
    }

    /// Checks the flow-control bookkeeping: for every channel, usable credits + credits in flight + flits in the
    /// downstream buffer equal the buffer depth, and no buffer exceeds its depth. Used by the property tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        let (ports, vcs) = (self.ports, self.vcs);
        for r in 0..self.routers {
            for p in 0..ports {
                for v in 0..vcs {
                    let i = (r * ports + p) * vcs + v;
                    let len = self.ivc[i].len as usize;
                    if len > self.depth {
                        return Err(format!("router {r} port {p} vc {v}: {len} flits in a {}-flit buffer", self.depth));
                    }
                    let up = self.in_link[r * ports + p].ovc;
                    if up != u32::MAX {
                        self.check_channel(up as usize + v, len, self.depth, &format!("into router {r} port {p} vc {v}"))?;
                    }
                    if p >= MESH_PORTS {
                        let node = self.mesh.node_at(RouterId(r as u32), PortId(p as u8)).unwrap().0 as usize;
                        let q = node * vcs + v;
                        self.check_channel(i, self.ej_len[q] as usize, self.eject_depth, &format!("ejection of node {node} vc {v}"))?;
                    }
                }
            }
        }
        Ok(())
    }

    fn check_channel(&self, o: usize, downstream_flits: usize, capacity: usize, what: &str) -> Result<(), String> {
        let vc = self.ovc[o];
        let total = vc.credits as usize + vc.pend_len as usize + downstream_flits;
        if total != capacity || vc.credits as usize > capacity {
            return Err(format!(
                "channel {what}: {} credits + {} in flight + {downstream_flits} buffered != depth {capacity}",
                vc.credits, vc.pend_len
            ));
        }
        Ok(())
    }

    /// True when every credit is back with its sender (or arrives there by the current cycle) and no output VC is
    /// owned by a packet: the state of a drained network.
    pub fn all_credits_home(&self) -> bool {
        (0..self.ovc.len()).all(|o| {
            let vc = self.ovc[o];
            let is_eject = o < self.inject_ovc_base && (o / self.vcs) % self.ports >= MESH_PORTS;
            let cap = if is_eject { self.eject_depth } else { self.depth };
            self.credits_landed(o) == cap && vc.owner == NO_OWNER
        })
    }

    /// Whether all `cap` credits of output VC `o` are usable by cycle `cycle`: none is out, and the last in flight
    /// (credits land in the order they were sent) lands by then.
    pub(crate) fn credits_home_by(&self, o: usize, cap: usize, cycle: u64) -> bool {
        let vc = self.ovc[o];
        if vc.credits as usize + vc.pend_len as usize != cap {
            return false;
        }
        let last = match vc.pend_len {
            0 => return true,
            1 => vc.first_landing,
            k => self.ovc_pending[((vc.pend_head as usize + k as usize - 2) & self.credit_mask) * self.ovc.len() + o],
        };
        last <= cycle
    }

    /// Credits of output VC `o` usable now: the collected ones plus those in flight that have landed (read-only,
    /// unlike [`Network::collect_credits`]).
    pub(crate) fn credits_landed(&self, o: usize) -> usize {
        self.credits_by(o, self.now)
    }

    /// Credits of output VC `o` usable at `cycle` (not before the last credit collected), read-only.
    pub(crate) fn credits_by(&self, o: usize, cycle: u64) -> usize {
        let vc = self.ovc[o];
        let ring = (1..vc.pend_len as usize).map(|k| self.ovc_pending[((vc.pend_head as usize + k - 1) & self.credit_mask) * self.ovc.len() + o]);
        let landed = (vc.pend_len > 0).then_some(vc.first_landing).into_iter().chain(ring).filter(|&at| at <= cycle).count();
        vc.credits as usize + landed
    }
}

#[cfg(test)]
mod memory_tests {
    use super::*;
    use crate::config::RouterPipeline;

    /// Heap bytes a built network holds, from the capacities of its arrays.
    fn heap_bytes(net: &Network) -> u64 {
        fn b<T>(v: &Vec<T>) -> u64 {
            (v.capacity() * std::mem::size_of::<T>()) as u64
        }
        let nodes_extra: u64 = net.nodes.iter().map(|n| (n.source.capacity() * 4) as u64).sum();
        b(&net.ivc)
            + b(&net.buf)
            + b(&net.ovc)
            + b(&net.ovc_pending)
            + b(&net.in_link)
            + b(&net.out_link)
            + b(&net.router_xy)
            + b(&net.node_loc)
            + net.router_calendar.heap_bytes()
            + net.node_calendar.heap_bytes()
            + b(&net.route_table)
            + b(&net.rr_va)
            + b(&net.rr_sa_in)
            + b(&net.rr_sa_out)
            + b(&net.rr_ovc)
            + b(&net.va_grant_ptr)
            + b(&net.va_accept_ptr)
            + b(&net.sa_accept_ptr)
            + b(&net.va_wavefront)
            + b(&net.sa_wavefront)
            + b(&net.out_queue_free)
            + std::mem::size_of_val(&*net.xbar) as u64
            + b(&net.ej_buf)
            + b(&net.ej_head)
            + b(&net.ej_len)
            + b(&net.nodes)
            + nodes_extra
            + b(&net.links.flits)
            + b(&net.packets)
            + b(&net.free_packets)
            + b(&net.active_nodes)
            + b(&net.delivered)
    }

    /// The estimate counts exactly what `Network::new` allocates, for every shape of the arrays: concentration,
    /// VCs, buffer and ejection depths (ring rounding), both pipelines, and meshes with and without a route table.
    #[test]
    fn the_fixed_estimate_is_what_new_allocates() {
        let cases = [
            NetworkConfig::default(),
            NetworkConfig { width: 3, height: 5, concentration: 4, vcs: 3, buffer_depth_flits: 5, eject_queue_flits: 40, ..Default::default() },
            NetworkConfig { width: 33, height: 32, vcs: 8, buffer_depth_flits: 64, pipeline: RouterPipeline::OneStage, ..Default::default() },
            NetworkConfig { width: 1, height: 1, buffer_depth_flits: 1, eject_queue_flits: 1, credit_delay_cycles: 9, link_latency_cycles: 30, ..Default::default() },
            // Odd-even routes depend on the source: no route table.
            NetworkConfig { width: 4, height: 3, routing: crate::routing::Routing::OddEven, ..Default::default() },
            NetworkConfig { width: 5, height: 3, vcs: 2, topology: crate::topology::Topology::Torus, ..Default::default() },
            // Speedup: more switch pointers, output queues, and a calendar spanning a queue's wait.
            NetworkConfig { width: 3, height: 2, vcs: 4, input_speedup: 3, output_speedup: 2, buffer_depth_flits: 6, ..Default::default() },
        ];
        for cfg in cases {
            let net = Network::new(cfg.clone()).unwrap();
            let estimate = cfg.memory();
            let delivered = (cfg.mesh().nodes() * std::mem::size_of::<Delivery>()) as u64;
            assert_eq!(estimate.fixed_bytes - delivered, heap_bytes(&net), "{cfg:?}");
        }
    }

    /// Issue 14 item 8: the configuration that aborted on a 64 GiB allocation is priced before it is built.
    #[test]
    fn the_issue_configuration_needs_its_flit_buffers_and_more() {
        let cfg = NetworkConfig { width: 1024, height: 1024, concentration: 4, vcs: 8, buffer_depth_flits: 64, ..Default::default() };
        let m = cfg.memory();
        let buffers = 1024 * 1024 * 8 * 8 * 64 * 16u64; // routers x ports x VCs x 64 ring slots x 16-byte flits
        assert!(m.fixed_bytes > buffers && m.fixed_bytes < 2 * buffers, "{m:?}");
        assert_eq!(m.buffers, 1024 * 1024 * 8 * 8 + 4 * 1024 * 1024 * 8);
    }

    #[test]
    fn packets_in_buffers_bounds_whole_and_partial_packets() {
        let cfg = NetworkConfig { width: 2, height: 1, buffer_depth_flits: 4, eject_queue_flits: 4, ..Default::default() };
        let m = cfg.memory();
        assert_eq!(m.buffers, 2 * 5 + 2);
        assert_eq!(m.buffer_flits, 4 * 12);
        assert_eq!(m.packets_in_buffers(1), 48 + 24);
        assert_eq!(m.packets_in_buffers(4), 12 + 24);
    }
}
