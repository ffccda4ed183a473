//! Canned situations that tests, the CLI and the docs share.

use crate::config::NetworkConfig;
use crate::network::{Deadlock, DrainPolicy, Network};
use crate::types::{Cycle, NodeId};

/// NoCMsg's Figure 1: nodes `a` and `b` send each other one packet of `flits` flits at the same time, and each
/// drains its ejection queue according to `drain`. With [`DrainPolicy::WhenSourceIdle`] (a core that receives
/// only after its send has completed) and packets longer than the buffering on the path, neither send can
/// complete: the watchdog fires. Returns the cycle at which both packets had been drained otherwise.
pub fn exchange(cfg: NetworkConfig, a: NodeId, b: NodeId, flits: u16, drain: DrainPolicy) -> Result<Cycle, Deadlock> {
    let mut net = Network::new(cfg).expect("caller passes a valid configuration");
    net.set_default_drain(drain);
    net.enqueue(a, b, flits, 0, 0);
    net.enqueue(b, a, flits, 0, 0);
    let mut delivered = 0;
    while delivered < 2 {
        net.step()?;
        delivered += net.take_delivered().count();
    }
    Ok(net.now())
}

/// Flits that fit on the path from `a` to `b` when nothing drains: the source's router local-input buffer,
/// one input buffer per further router on the path, and the destination's ejection queue (one VC).
pub fn path_buffering_flits(cfg: &NetworkConfig, a: NodeId, b: NodeId) -> u64 {
    let mesh = cfg.mesh();
    let routers = u64::from(mesh.hops(mesh.router_of(a), mesh.router_of(b))) + 1;
    routers * u64::from(cfg.buffer_depth_flits) + u64::from(cfg.eject_queue_flits)
}
