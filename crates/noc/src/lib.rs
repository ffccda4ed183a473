//! # nocmsg-noc: a cycle-level network-on-chip (2D mesh, torus or ring)
//!
//! Everything in nocmsg runs on this network, so it has to be exact, fast and explainable.
//!
//! * **Exact.** One global clock; routers follow a named pipeline (`1stage` or the textbook `4stage`
//!   route/VC-allocate/switch-allocate/traverse router), wormhole switching, credit-based flow control per virtual
//!   channel and a bounded ejection queue per node that back-pressures the network. Zero-load latencies match the
//!   closed form of [`NetworkConfig::zero_load_latency`] for every source/destination pair (tested).
//! * **Fast.** State lives in flat arrays; flits are 16-byte values written straight into the downstream buffer
//!   with their arrival cycle, so there are no channel objects and no per-flit allocation; only routers holding
//!   flits and nodes with work are visited. A debug mode visits everything and must agree byte for byte.
//! * **Deadlock-free by construction.** Topologies ([`topology`]: mesh, torus, ring) and routing functions
//!   ([`routing`]: dimension order, with dateline VC classes on a torus; west-first and odd-even turn models;
//!   minimal adaptive routing with a Duato escape VC) are rows of tables; each function's channel dependency graph
//!   is checked acyclic on small networks, and saturation sweeps check that the watchdog never fires.
//! * **Explainable.** When flits stop moving, the watchdog builds the wait-for graph of channels and reports the
//!   cycle (router, port, VC and the packets holding each) instead of hanging.
//!
//! The crate knows nothing of cores; `nocmsg-chip` joins it to them. Synthetic traffic lives in [`traffic`];
//! [`booksim`] reads BookSim2 configuration files into it.

pub mod booksim;
pub mod config;
mod named;
pub mod endpoint;
pub mod network;
mod router;
pub mod routing;
pub mod scenarios;
pub mod stats;
pub mod sw_alloc;
pub mod topology;
pub mod traffic;
pub mod types;
pub mod vc_alloc;
pub mod watchdog;

pub use config::{ConfigError, NetworkConfig, RouterPipeline, SwAllocator, VcAllocator};
pub use endpoint::{EjectFront, Undrained};
pub use network::{Deadlock, DrainPolicy, DrainedFlit, EjectedFlit, Network, NetworkMemory, DRAIN_CLASSES, HEAD_NEEDS_NO_ROOM};
pub use routing::Routing;
pub use stats::{Delivery, Histogram, LinkStats};
pub use topology::{Direction, Mesh};
pub use traffic::{run_rate, Pattern, RatePoint, TrafficError, TrafficSpec};
pub use types::{Cycle, NodeId, PacketId, PortId, RouterId, VcId};
pub use watchdog::{DeadlockReport, NodeOwner};
