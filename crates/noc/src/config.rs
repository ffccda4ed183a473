//! Network configuration: geometry, router microarchitecture and timing, all validated in one place so the
//! simulator itself never sees an impossible setting.

use crate::routing::Routing;
use crate::topology::{Mesh, Topology};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Upper bounds that keep the flat per-router bit masks within 64 bits.
pub const MAX_CONCENTRATION: u32 = 4;
pub const MAX_VCS: u32 = 8;
pub const MAX_BUFFER_DEPTH_FLITS: u32 = 4096;
pub const MAX_MESH_SIDE: u32 = 1024;
/// Crossbar inputs (ports x `input_speedup`) and outputs (ports x `output_speedup`) of a router at most.
pub const MAX_CROSSBAR_PORTS: u32 = 16;

/// How many cycles a flit spends crossing a router.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum RouterPipeline {
    /// Route computation, VC allocation, switch allocation and traversal in one cycle (single-cycle routers such
    /// as Tilera's), then one cycle on the link.
    #[serde(rename = "1stage")]
    OneStage,
    /// The canonical virtual-channel router: route computation, VC allocation, switch allocation, switch traversal,
    /// then one cycle on the link. Body flits skip the first two stages.
    #[serde(rename = "4stage")]
    FourStage,
}

impl RouterPipeline {
    pub fn name(self) -> &'static str {
        match self {
            RouterPipeline::OneStage => "1stage",
            RouterPipeline::FourStage => "4stage",
        }
    }

    /// Pipeline stages a head flit spends in a router, including switch traversal.
    pub fn stages(self) -> u64 {
        match self {
            RouterPipeline::OneStage => 1,
            RouterPipeline::FourStage => 4,
        }
    }
}

impl FromStr for RouterPipeline {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "1stage" => Ok(RouterPipeline::OneStage),
            "4stage" => Ok(RouterPipeline::FourStage),
            _ => Err(format!("unknown router pipeline '{s}' (expected 1stage or 4stage)")),
        }
    }
}

impl fmt::Display for RouterPipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The VC allocator: which requesting input VC gets which free output VC of the port its head is routed to.
///
/// The choice matters most with short packets: an output VC is free again as soon as a packet's tail has left, so an
/// allocator that always hands out the lowest free VC sends back-to-back packets into the same downstream input VC,
/// where each waits for the one ahead to leave before its own route computation and VC allocation (one packet per
/// input VC every three cycles with the `4stage` pipeline) while the other VCs stay idle. Allocators that rotate
/// over the VCs spread the packets, which is what BookSim2's curves reflect. With one VC all three are the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum VcAllocator {
    /// Separable: each output port hands its free VCs to the requesters in round-robin order, the lowest-numbered
    /// free VC first (nocmsg's behaviour before issue 15).
    #[serde(rename = "lowest")]
    Lowest,
    /// Separable like `lowest`, but each output port hands out its free VCs in round-robin order too, starting after
    /// the VC it handed out last.
    #[serde(rename = "round-robin")]
    RoundRobin,
    /// One iteration of iSLIP over input VCs and output VCs, as BookSim2's default (`vc_allocator = islip`): every
    /// requester asks for all free VCs of its output port; each free output VC grants the requester at or after its
    /// grant pointer; each requester accepts the granting VC at or after its accept pointer (over all output VCs of
    /// the router); both pointers move past an accepted match only. The default.
    #[default]
    #[serde(rename = "islip")]
    Islip,
    /// Separable output-first with round-robin arbiters (BookSim2's `separable_output_first`): each free output VC
    /// picks a requester, each requester one of the VCs that picked it; the same matches as one iteration of `islip`.
    #[serde(rename = "output-first")]
    OutputFirst,
    /// A wavefront allocator over the router's input and output VCs (BookSim2's `wavefront`), its priority diagonal
    /// moving by one each cycle the router has a request.
    #[serde(rename = "wavefront")]
    Wavefront,
}

/// The switch allocator: which bidding input VCs cross the switch in a cycle (at most one per input and output port).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum SwAllocator {
    /// Separable input-first: each input port picks one bidding VC (round-robin), then each output port picks one
    /// of the inputs whose choice asks for it (round-robin); pointers move past granted choices only. An input
    /// whose chosen VC loses at its output sends nothing that cycle (nocmsg's behaviour before issue 15).
    #[serde(rename = "input-first")]
    InputFirst,
    /// One iteration of iSLIP over ports, as BookSim2's default (`sw_allocator = islip`): each input port asks for
    /// every output port one of its VCs bids for (per pair, the VC at or after the input's round-robin pointer);
    /// each output grants the requesting input at or after its grant pointer; each input accepts the granting
    /// output at or after its accept pointer; pointers move past accepted matches only. The default.
    #[default]
    #[serde(rename = "islip")]
    Islip,
    /// Separable output-first with round-robin arbiters (BookSim2's `separable_output_first`): the same winners as
    /// one iteration of `islip`.
    #[serde(rename = "output-first")]
    OutputFirst,
    /// A wavefront allocator over input and output ports (BookSim2's `wavefront`), its priority diagonal moving by
    /// one each cycle the router has a bid.
    #[serde(rename = "wavefront")]
    Wavefront,
}

/// A setting that cannot be simulated, naming the field and the allowed range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid network configuration: {field} = {value}: {reason}")]
pub struct ConfigError {
    pub field: &'static str,
    pub value: String,
    pub reason: String,
}

/// Everything that defines one physical network.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NetworkConfig {
    /// Routers along x.
    pub width: u32,
    /// Routers along y.
    pub height: u32,
    /// Nodes (network interfaces) attached to each router.
    pub concentration: u32,
    /// Virtual channels per port.
    pub vcs: u32,
    /// Depth of each input virtual-channel buffer.
    pub buffer_depth_flits: u32,
    /// Cycles between a flit leaving an input buffer and the upstream sender being able to use the freed slot.
    pub credit_delay_cycles: u32,
    /// With `4stage`, cycles of route computation before VC allocation: 1 (default; route computation in the cycle
    /// a head reaches the front of its VC, VC allocation in the next), 0 (VC allocation in that cycle itself, as
    /// BookSim2's `routing_delay = 0`, e.g. with lookahead routing) or more (a pipelined route computation unit, up
    /// to 16). `1stage` needs 1 (it does everything in one cycle).
    pub routing_delay_cycles: u32,
    /// With `4stage`, cycles one VC allocation takes (BookSim2's `vc_alloc_delay`, default 1): an attempt is decided
    /// on the router's state in its first cycle (adaptive routing's tie-break on credits aside, see
    /// `choose_output`) (the output VC it grants is reserved from then on) and takes effect
    /// after its last, when the head bids for the switch; a head makes one attempt at a time, so one that loses
    /// tries again `vc_alloc_delay_cycles` later. Not with speculative switch allocation.
    pub vc_alloc_delay_cycles: u32,
    /// With `4stage`, cycles one switch allocation takes (BookSim2's `sw_alloc_delay`, default 1): a bid is decided
    /// in its first cycle (the credit is taken then) and the winning flit leaves the input buffer in its last, as if
    /// it had won then; a VC makes one bid at a time, so it sends at most one flit per `sw_alloc_delay_cycles` and
    /// a VC that lost, or found no credit, bids again that many cycles later. Not with speculative switch allocation.
    pub sw_alloc_delay_cycles: u32,
    /// With `4stage`, cycles of switch traversal from winning switch allocation to leaving the router: 1 (default)
    /// or more, as BookSim2's crossbar delay `st_prepare_delay + st_final_delay`. The credit of the flit's slot goes
    /// back when it wins, whatever the traversal takes, as in BookSim2. `1stage` needs 1.
    pub crossbar_delay_cycles: u32,
    /// Cycles a flit spends in the output stage between the crossbar (or the output queue, with output speedup) and
    /// the channel: 0 (default, as BookSim2's input-queued router, which has no output stage) or more, an output
    /// register of that many pipelined cycles on every output port, the ejection port included (a router that
    /// registers its outputs, or a long wire to the link driver). Only flits take it: the freed slot's credit goes
    /// back as without it. Either pipeline.
    pub output_delay_cycles: u32,
    /// Crossbar inputs per input port (BookSim2's `input_speedup`, default 1): the VCs of an input port are
    /// interleaved over this many crossbar inputs (VC `v` on input `v mod input_speedup`), so up to that many flits
    /// of different VCs leave one input port in a cycle.
    pub input_speedup: u32,
    /// Crossbar outputs per output port (BookSim2's `output_speedup`, default 1): input port `p` reaches an output
    /// through crossbar output `p mod output_speedup`, so up to that many flits enter one output port in a cycle.
    /// They wait in the output's queue, which sends one flit per cycle onto the channel (BookSim2's output buffer,
    /// unbounded but never holding more flits than the downstream credits allow).
    pub output_speedup: u32,
    /// Cycles a flit spends on a router-to-router link.
    pub link_latency_cycles: u32,
    /// Cycles from a head entering the injection channel (the cycle it counts as injected) until it is in the
    /// router's input buffer: 2 by default, as in BookSim2, whose source writes a flit onto the injection channel
    /// in one cycle and whose channel delivers it in the next, like every other channel there. Chip files default to
    /// 1: their network interfaces write straight into the router's local input buffer.
    pub injection_channel_cycles: u32,
    /// With `4stage`, whether a body flit may bid for the switch in the cycle it is written into an input buffer
    /// (BookSim2's input queuing: a flit read from the channel joins switch allocation at once; the default) rather
    /// than from the next cycle. It shortens the credit loop of a stream of body flits from 6 to 5 cycles (flit sent,
    /// traversal, link, bid downstream, credit back), which is what a buffer shallower than that loop delivers;
    /// `1stage` always bids on arrival.
    pub body_bids_on_arrival: bool,
    pub pipeline: RouterPipeline,
    /// How routers are connected: `mesh` (default), `torus` or `ring` (a torus of height 1).
    pub topology: Topology,
    /// The routing function; it must be defined for the topology and VC count (see [`Routing::check`]).
    pub routing: Routing,
    /// The VC allocator (see [`VcAllocator`]).
    pub vc_allocator: VcAllocator,
    /// The switch allocator (see [`SwAllocator`]).
    pub sw_allocator: SwAllocator,
    /// With `4stage`, whether a head flit bids for the switch in the cycle of its VC allocation (BookSim2's
    /// `speculative = 1`) rather than the cycle after: the router takes 3 cycles instead of 4. As in BookSim2 with its
    /// default `spec_sw_allocator = prio` and iSLIP, a speculative bid loses to another VC of the same input only
    /// (an input bids with a non-speculative VC when it has one), competes as an equal at the outputs, and a head
    /// that loses VC allocation although its port had a free VC with a credit still bids and wastes a grant if it
    /// wins (`spec_check_elig`, `spec_check_cred`). No effect with `1stage`, which does everything in one cycle.
    pub speculative_switch_allocation: bool,
    /// Whether an output VC may be handed out again only once the credit of the last packet's tail has come back
    /// (BookSim2's `wait_for_tail_credit = 1`) rather than from the cycle after the tail left (default, BookSim2's
    /// default 0). Waiting keeps packets from queueing behind one another in a downstream VC.
    pub wait_for_tail_credit: bool,
    /// Iterations of the `islip` allocators (VC and switch), as BookSim2's allocator names `islip(N)` (its
    /// `alloc_iters` does not reach the router's allocators, which are built without the configuration); 1 by
    /// default. Further iterations match inputs and outputs left unmatched by the earlier ones, without moving
    /// pointers.
    pub allocator_iterations: u32,
    /// Depth of each node's ejection queue (per virtual channel); a full queue back-pressures the network.
    pub eject_queue_flits: u32,
    /// Report a deadlock when flits are in the network and none has moved for this many cycles (0 disables).
    pub watchdog_cycles: u64,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            width: 8,
            height: 8,
            concentration: 1,
            vcs: 1,
            buffer_depth_flits: 8,
            credit_delay_cycles: 1,
            routing_delay_cycles: 1,
            vc_alloc_delay_cycles: 1,
            sw_alloc_delay_cycles: 1,
            crossbar_delay_cycles: 1,
            output_delay_cycles: 0,
            input_speedup: 1,
            output_speedup: 1,
            link_latency_cycles: 1,
            injection_channel_cycles: 2,
            body_bids_on_arrival: true,
            pipeline: RouterPipeline::FourStage,
            topology: Topology::Mesh,
            routing: Routing::Xy,
            vc_allocator: VcAllocator::Islip,
            sw_allocator: SwAllocator::Islip,
            allocator_iterations: 1,
            speculative_switch_allocation: false,
            wait_for_tail_credit: false,
            eject_queue_flits: 16,
            watchdog_cycles: 10_000,
        }
    }
}

fn check(field: &'static str, value: u64, min: u64, max: u64) -> Result<(), ConfigError> {
    if value < min || value > max {
        return Err(ConfigError { field, value: value.to_string(), reason: format!("must be between {min} and {max}") });
    }
    Ok(())
}

impl NetworkConfig {
    pub fn mesh(&self) -> Mesh {
        Mesh { width: self.width, height: self.height, concentration: self.concentration, topology: self.topology }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        check("width", self.width.into(), 1, MAX_MESH_SIDE.into())?;
        check("height", self.height.into(), 1, MAX_MESH_SIDE.into())?;
        check("concentration", self.concentration.into(), 1, MAX_CONCENTRATION.into())?;
        check("vcs", self.vcs.into(), 1, MAX_VCS.into())?;
        check("buffer_depth_flits", self.buffer_depth_flits.into(), 1, MAX_BUFFER_DEPTH_FLITS.into())?;
        check("credit_delay_cycles", self.credit_delay_cycles.into(), 1, 1_000)?;
        check("link_latency_cycles", self.link_latency_cycles.into(), 1, 1_000)?;
        check("routing_delay_cycles", self.routing_delay_cycles.into(), 0, 16)?;
        check("crossbar_delay_cycles", self.crossbar_delay_cycles.into(), 1, 64)?;
        check("output_delay_cycles", self.output_delay_cycles.into(), 0, 64)?;
        check("vc_alloc_delay_cycles", self.vc_alloc_delay_cycles.into(), 1, 16)?;
        check("sw_alloc_delay_cycles", self.sw_alloc_delay_cycles.into(), 1, 16)?;
        let allocation_delays = [("vc_alloc_delay_cycles", self.vc_alloc_delay_cycles), ("sw_alloc_delay_cycles", self.sw_alloc_delay_cycles)];
        if self.speculative_switch_allocation && self.pipeline == RouterPipeline::FourStage {
            if let Some((field, value)) = allocation_delays.iter().find(|(_, v)| *v != 1) {
                return Err(ConfigError {
                    field,
                    value: value.to_string(),
                    reason: "multi-cycle allocation is not modelled with speculative switch allocation; leave it at 1".into(),
                });
            }
        }
        if self.pipeline == RouterPipeline::OneStage {
            let delays = [("routing_delay_cycles", self.routing_delay_cycles), ("crossbar_delay_cycles", self.crossbar_delay_cycles)];
            for (field, value) in delays.into_iter().chain(allocation_delays) {
                if value != 1 {
                    return Err(ConfigError {
                        field,
                        value: value.to_string(),
                        reason: "applies to the 4stage router only (1stage does everything in one cycle); leave it at 1".into(),
                    });
                }
            }
        }
        let ports = self.mesh().ports() as u32;
        for (field, speedup) in [("input_speedup", self.input_speedup), ("output_speedup", self.output_speedup)] {
            check(field, speedup.into(), 1, u64::from(MAX_CROSSBAR_PORTS / ports))
                .map_err(|e| ConfigError { reason: format!("{} (a router's {ports} ports times the speedup may be at most {MAX_CROSSBAR_PORTS} crossbar ports)", e.reason), ..e })?;
        }
        check("injection_channel_cycles", self.injection_channel_cycles.into(), 1, 1_000)?;
        check("allocator_iterations", self.allocator_iterations.into(), 1, 16)?;
        check("eject_queue_flits", self.eject_queue_flits.into(), 1, MAX_BUFFER_DEPTH_FLITS.into())?;
        let nodes = u64::from(self.width) * u64::from(self.height) * u64::from(self.concentration);
        check("nodes (width x height x concentration)", nodes, 1, 1 << 22)?;
        if let Some(max) = self.topology.row().max_height {
            if self.height > max {
                let reason = format!("a {} has height {max} (a 2D network with wrap-around links is a torus)", self.topology);
                return Err(ConfigError { field: "height", value: self.height.to_string(), reason });
            }
        }
        self.routing
            .check(self.topology, self.vcs)
            .map_err(|reason| ConfigError { field: "routing", value: self.routing.name().to_string(), reason })?;
        Ok(())
    }

    /// The memory a network of this configuration needs: what it allocates when built, and what each packet in
    /// flight adds. Known before anything is allocated, so a configuration the machine cannot hold can be refused.
    pub fn memory(&self) -> crate::network::NetworkMemory {
        crate::network::memory(self)
    }

    /// Cycles from the start of switch allocation until the flit enters the next router's input buffer.
    pub(crate) fn switch_to_next_buffer_cycles(&self) -> u64 {
        self.traversal_cycles() + u64::from(self.link_latency_cycles) + 1
    }

    /// Cycles from winning switch allocation to leaving the router, output queue aside: the separate traversal stage
    /// of `4stage` (`crossbar_delay_cycles`) and the output stage (`output_delay_cycles`).
    pub(crate) fn traversal_cycles(&self) -> u64 {
        let crossbar = match self.pipeline {
            RouterPipeline::OneStage => 0,
            RouterPipeline::FourStage => u64::from(self.crossbar_delay_cycles),
        };
        crossbar + u64::from(self.output_delay_cycles)
    }

    /// Cycles a head flit spends in a router at zero load, switch traversal included: with `4stage`, route
    /// computation (`routing_delay_cycles`), VC allocation and switch allocation (`vc_alloc_delay_cycles` and
    /// `sw_alloc_delay_cycles`, or one cycle together with speculative switch allocation) and traversal
    /// (`crossbar_delay_cycles`): 4 by default; 1 with `1stage`; each plus the output stage (`output_delay_cycles`).
    pub fn router_stages(&self) -> u64 {
        let output = u64::from(self.output_delay_cycles);
        match self.pipeline {
            RouterPipeline::OneStage => 1 + output,
            RouterPipeline::FourStage => {
                let allocation = if self.speculative_switch_allocation { 1 } else { u64::from(self.vc_alloc_delay_cycles + self.sw_alloc_delay_cycles) };
                u64::from(self.routing_delay_cycles) + allocation + self.traversal_cycles()
            }
        }
    }

    /// Cycles from winning switch allocation until the flit is in the destination node's ejection queue
    /// (the ejection channel always takes one cycle).
    pub(crate) fn switch_to_eject_cycles(&self) -> u64 {
        self.traversal_cycles() + 2
    }

    /// Zero-load latency of one packet, from the cycle its head enters the injection channel to the cycle its tail
    /// is in the destination's ejection queue, when it crosses `routers` routers (`hops + 1`).
    ///
    /// Injection channel `injection_channel_cycles` (2 by default); each router [`Self::router_stages`] cycles; each
    /// link `link_latency_cycles`; ejection channel 1 cycle; the tail trails the head by `packet_flits - 1` switch
    /// allocations (`sw_alloc_delay_cycles` each, one VC sends one flit per allocation), plus one cycle per router where a head bids for the switch sooner after arriving than a body flit may (only
    /// `4stage` with `routing_delay_cycles = 0`, speculative switch allocation and body flits bidding the cycle after
    /// they arrive: the head gains a cycle on its body at every router).
    pub fn zero_load_latency(&self, routers: u64, packet_flits: u64) -> u64 {
        let links = routers - 1;
        let timing = crate::network::Timing::of(self);
        let lag = if packet_flits > 1 { routers * timing.body_gap.saturating_sub(timing.head_gap) } else { 0 };
        let serialisation = (packet_flits - 1) * timing.sa_attempt;
        u64::from(self.injection_channel_cycles) + routers * self.router_stages() + links * u64::from(self.link_latency_cycles) + 1 + serialisation + lag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid() {
        NetworkConfig::default().validate().unwrap();
    }

    #[test]
    fn out_of_range_fields_are_named() {
        let cfg = NetworkConfig { width: 0, ..Default::default() };
        let err = cfg.validate().unwrap_err();
        assert_eq!(err.field, "width");
        assert!(err.to_string().contains("width = 0"), "{err}");
        let cfg = NetworkConfig { vcs: 9, ..Default::default() };
        assert_eq!(cfg.validate().unwrap_err().field, "vcs");
        let cfg = NetworkConfig { credit_delay_cycles: 0, ..Default::default() };
        assert_eq!(cfg.validate().unwrap_err().field, "credit_delay_cycles");
        let cfg = NetworkConfig { routing_delay_cycles: 17, ..Default::default() };
        assert_eq!(cfg.validate().unwrap_err().field, "routing_delay_cycles");
        let cfg = NetworkConfig { pipeline: RouterPipeline::OneStage, crossbar_delay_cycles: 2, ..Default::default() };
        let err = cfg.validate().unwrap_err();
        assert!(err.field == "crossbar_delay_cycles" && err.reason.contains("4stage"), "{err}");
    }

    #[test]
    fn topology_and_routing_constraints_name_the_field() {
        let ring = NetworkConfig { topology: Topology::Ring, height: 2, vcs: 2, ..Default::default() };
        let err = ring.validate().unwrap_err();
        assert_eq!(err.field, "height");
        assert!(err.to_string().contains("ring"), "{err}");
        NetworkConfig { height: 1, ..ring }.validate().unwrap();
        let torus = NetworkConfig { topology: Topology::Torus, ..Default::default() };
        let err = torus.validate().unwrap_err();
        assert_eq!(err.field, "routing", "dimension order on a torus needs dateline VCs");
        assert!(err.reason.contains("2 VCs"), "{err}");
        NetworkConfig { vcs: 2, ..torus.clone() }.validate().unwrap();
        let adaptive = NetworkConfig { vcs: 4, routing: Routing::OddEven, ..torus };
        assert_eq!(adaptive.validate().unwrap_err().field, "routing");
        let duato = NetworkConfig { routing: Routing::MinAdaptive, ..Default::default() };
        assert_eq!(duato.validate().unwrap_err().field, "routing", "an escape VC needs a second VC");
        NetworkConfig { vcs: 2, ..duato }.validate().unwrap();
        NetworkConfig { routing: Routing::WestFirst, ..Default::default() }.validate().unwrap();
    }

    #[test]
    fn pipeline_names_parse() {
        assert_eq!("1stage".parse::<RouterPipeline>(), Ok(RouterPipeline::OneStage));
        assert_eq!("4stage".parse::<RouterPipeline>(), Ok(RouterPipeline::FourStage));
        assert!("3stage".parse::<RouterPipeline>().unwrap_err().contains("3stage"));
    }

    #[test]
    fn vc_allocator_names_parse() {
        for name in VcAllocator::names() {
            assert_eq!(name.parse::<VcAllocator>().unwrap().name(), name);
        }
        assert_eq!(NetworkConfig::default().vc_allocator, VcAllocator::Islip, "BookSim2's iq router is the default");
        assert!("random".parse::<VcAllocator>().unwrap_err().contains("random"));
        for name in SwAllocator::names() {
            assert_eq!(name.parse::<SwAllocator>().unwrap().name(), name);
        }
        assert_eq!(NetworkConfig::default().sw_allocator, SwAllocator::Islip, "BookSim2's iq router is the default");
    }

    #[test]
    fn zero_load_latency_formula() {
        // 4-stage, one router (source and destination share it): inject 2 + router 4 + eject 1.
        let cfg = NetworkConfig::default();
        assert_eq!(cfg.zero_load_latency(1, 1), 7);
        // Each extra hop costs 4 router stages + 1 link cycle; each extra flit one cycle.
        assert_eq!(cfg.zero_load_latency(3, 1), 17, "BookSim2's 3-router trip (watched packet: 17 cycles)");
        assert_eq!(cfg.zero_load_latency(3, 4), 20);
        let short = NetworkConfig { injection_channel_cycles: 1, ..Default::default() };
        assert_eq!(short.zero_load_latency(3, 1), 16);
        let spec = NetworkConfig { speculative_switch_allocation: true, ..Default::default() };
        assert_eq!(spec.zero_load_latency(3, 1), 14, "speculative switch allocation: 3 cycles per router");
        let lookahead = NetworkConfig { routing_delay_cycles: 0, ..Default::default() };
        assert_eq!(lookahead.zero_load_latency(3, 1), 14, "routing_delay 0: 3 cycles per router");
        let racing = NetworkConfig { routing_delay_cycles: 0, speculative_switch_allocation: true, body_bids_on_arrival: false, ..Default::default() };
        assert_eq!(racing.zero_load_latency(3, 1), 2 + 3 * 2 + 2 + 1, "a 2-cycle router");
        assert_eq!(racing.zero_load_latency(3, 4), 2 + 3 * 2 + 2 + 1 + 3 + 3, "its head gains a cycle per router on its body");
        let slow = NetworkConfig { crossbar_delay_cycles: 3, ..Default::default() };
        assert_eq!(slow.zero_load_latency(3, 1), 23, "a 3-cycle crossbar: 6 cycles per router");
        let one = NetworkConfig { pipeline: RouterPipeline::OneStage, injection_channel_cycles: 1, ..Default::default() };
        assert_eq!(one.zero_load_latency(1, 1), 3);
        assert_eq!(one.zero_load_latency(3, 1), 7);
    }
}
