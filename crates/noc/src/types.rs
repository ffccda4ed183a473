//! Newtypes for the quantities the network model passes around, so a node id is never mistaken for a router id
//! and every time value is visibly a cycle count.

use serde::Serialize;
use std::fmt;

/// A point in simulated time, counted in clock cycles from the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Cycle(pub u64);

/// An endpoint of the network (a core's network interface). With concentration `c`, node `n` sits on router `n / c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct NodeId(pub u32);

/// A router of the mesh, numbered row by row: router `y * width + x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct RouterId(pub u32);

/// A router port: 0..4 are the mesh directions (see [`crate::topology::Direction`]), `4 + k` is local port `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PortId(pub u8);

/// A virtual channel index on a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct VcId(pub u8);

/// Identifies a packet while it is in flight. Ids are recycled once a packet has been delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PacketId(pub u32);

/// Newtypes print as their bare number, so reports read "router 3", not "RouterId(3)".
macro_rules! display_as_number {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    )*};
}

display_as_number!(Cycle, NodeId, RouterId, PortId, VcId, PacketId);
