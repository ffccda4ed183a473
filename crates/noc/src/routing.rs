//! Routing functions, chosen by name from a table.
//!
//! A routing function maps (topology, current router, destination, and for `odd-even` the packet's source column)
//! to a [`Route`]: one output port, or two candidate output ports for adaptive functions. The query carries
//! coordinates already resolved (the simulator keeps them in tables), so a routing function does no division in the
//! hot path; for networks up to a thousand routers the simulator tabulates every function that does not depend on
//! the source. Adding a function is one file in `routing/`, one variant of [`Routing`] and one row in
//! [`ROUTING_FUNCTIONS`]; what it needs of the network (topology, VCs) is in [`Routing::requirements`].
//!
//! * `xy`, `yx`: dimension order. On a torus or ring each dimension goes the shorter way round; when both ways are
//!   equally long (distance exactly `k/2` on a ring of `k` routers) the route names both, `+` (east, south) first,
//!   and the router takes one per packet. Deadlock-free
//!   on a mesh; on a torus with dateline VC classes (see [`VcPolicy::Dateline`]).
//! * `west-first` (Glass and Ni): a packet whose destination lies west goes west first, deterministically; every
//!   other packet routes adaptively among its productive directions (east, north, south). Forbidding the two turns
//!   into west breaks every cycle of turns; one VC suffices.
//! * `odd-even` (Chiu 2000, minimal): no east-to-north/south turn in an even column, no north/south-to-west turn in
//!   an odd column; one VC suffices. It needs the packet's source column (a packet may turn north/south in its
//!   source column even if it is even).
//! * `min-adaptive` (Duato): any productive direction on VCs `1..vcs` (adaptive), or the `xy` direction on VC 0
//!   (escape). Needs two VCs.
//!
//! Adaptive functions name up to two ports; the router picks one at VC allocation (see `router`).

mod dimension_order;
mod min_adaptive;
mod odd_even;
mod west_first;

use crate::topology::{Direction, Mesh, Topology};
use crate::types::{NodeId, PortId, RouterId};
use dimension_order::{route_xy, route_yx};
use min_adaptive::route_min_adaptive;
use odd_even::route_odd_even;
use west_first::route_west_first;

/// Where a head flit is and where it is going.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteQuery {
    pub x: u32,
    pub y: u32,
    pub dst_x: u32,
    pub dst_y: u32,
    /// The local port of the destination node on its router.
    pub dst_port: PortId,
    /// The column of the router the packet was injected at (read by `odd-even` only).
    pub src_x: u32,
}

impl RouteQuery {
    pub fn new(mesh: &Mesh, here: RouterId, src: NodeId, dst: NodeId) -> RouteQuery {
        let (x, y) = mesh.coords(here);
        let (dst_x, dst_y) = mesh.coords(mesh.router_of(dst));
        let (src_x, _) = mesh.coords(mesh.router_of(src));
        RouteQuery { x, y, dst_x, dst_y, dst_port: mesh.local_port(dst), src_x }
    }
}

/// One or two candidate output ports, packed into the byte a head flit carries: the low nibble is the first port,
/// the high nibble the second port plus one (0: none). A deterministic route is its port number unchanged. Of two
/// candidates the first is the x-direction port, which is also what `xy` would take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Route(pub u8);

impl Route {
    pub fn one(port: PortId) -> Route {
        Route(port.0)
    }

    /// `first`, then `second` when there is one.
    pub fn two(first: PortId, second: Option<PortId>) -> Route {
        Route(first.0 | second.map_or(0, |p| (p.0 + 1) << 4))
    }

    pub fn first(self) -> PortId {
        PortId(self.0 & 0x0f)
    }

    pub fn second(self) -> Option<PortId> {
        (self.0 >> 4).checked_sub(1).map(PortId)
    }

    /// The candidate ports, first one first.
    pub fn ports(self) -> impl Iterator<Item = PortId> {
        std::iter::once(self.first()).chain(self.second())
    }
}

/// Signature of a routing function.
pub type RouteFn = fn(&Mesh, &RouteQuery) -> Route;

/// Which routing function a network uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Routing {
    /// Dimension order: all the way along x, then along y (the shorter way round on a torus).
    Xy,
    /// Dimension order: all the way along y, then along x.
    Yx,
    /// The west-first turn model: west first, then adaptively east, north and south. Mesh only.
    WestFirst,
    /// Chiu's odd-even turn model, minimal. Mesh only.
    OddEven,
    /// Minimal fully adaptive with an `xy` escape VC (Duato). Mesh only, at least two VCs.
    MinAdaptive,
}

/// Every routing function: its name (as accepted on the command line and in configs) and its implementation.
pub const ROUTING_FUNCTIONS: &[(&str, Routing, RouteFn)] = &[
    ("xy", Routing::Xy, route_xy),
    ("yx", Routing::Yx, route_yx),
    ("west-first", Routing::WestFirst, route_west_first),
    ("odd-even", Routing::OddEven, route_odd_even),
    ("min-adaptive", Routing::MinAdaptive, route_min_adaptive),
];

/// How the VCs of an output port may be used by a head the routing function sends there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcPolicy {
    /// Any VC.
    Any,
    /// Dimension order on a torus: the VCs of a port form two classes, class 0 the lower half and class 1 the upper
    /// half. A head entering a dimension (or just injected) takes class 1 when its destination's coordinate in that
    /// dimension is below its own and class 0 otherwise, as BookSim2's `dim_order_torus`; continuing in the same
    /// dimension and direction, it keeps the class of the input VC it is in. Going east (south), the packets of
    /// class 1 are exactly those whose route crosses the wrap-around link; going west (north), those whose route
    /// does not. Routes are minimal, so within one direction of a ring the packets of each class all cross the
    /// wrap-around link or none does, and neither carries a cycle; dimensions are taken in order. Choosing the
    /// class per packet rather than switching at the dateline spreads packets over both halves of the VCs.
    Dateline,
    /// Duato's escape VC: VC 0 is the escape channel, used only along the `xy` port; VCs `1..vcs` are adaptive, on
    /// any productive port.
    Escape,
}

/// What a routing function needs of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requirements {
    /// Whether it may name two candidate ports.
    pub adaptive: bool,
    /// Whether it is defined on a torus or ring.
    pub wrapping_topologies: bool,
    /// Fewest VCs per port it needs on a mesh, and on a torus or ring.
    pub min_vcs_mesh: u32,
    pub min_vcs_torus: u32,
    /// Whether the route depends on the packet's source (then it is not tabulated).
    pub needs_source: bool,
}

impl Routing {
    pub fn function(self) -> RouteFn {
        ROUTING_FUNCTIONS.iter().find(|(_, r, _)| *r == self).map(|(_, _, f)| *f).expect("every variant has a table row")
    }

    pub fn name(self) -> &'static str {
        ROUTING_FUNCTIONS.iter().find(|(_, r, _)| *r == self).map(|(n, _, _)| *n).expect("every variant has a table row")
    }

    pub fn from_name(name: &str) -> Option<Routing> {
        ROUTING_FUNCTIONS.iter().find(|(n, _, _)| *n == name).map(|(_, r, _)| *r)
    }

    pub fn requirements(self) -> Requirements {
        let base = Requirements { adaptive: false, wrapping_topologies: false, min_vcs_mesh: 1, min_vcs_torus: 2, needs_source: false };
        match self {
            Routing::Xy | Routing::Yx => Requirements { wrapping_topologies: true, ..base },
            Routing::WestFirst => Requirements { adaptive: true, ..base },
            Routing::OddEven => Requirements { adaptive: true, needs_source: true, ..base },
            Routing::MinAdaptive => Requirements { adaptive: true, min_vcs_mesh: 2, ..base },
        }
    }

    /// Why this function cannot run on `topology` with `vcs` VCs per port, if it cannot.
    pub fn check(self, topology: Topology, vcs: u32) -> Result<(), String> {
        let req = self.requirements();
        if topology.wraps() && !req.wrapping_topologies {
            return Err(format!("{} is defined on a mesh only, not on a {topology} (use xy or yx)", self.name()));
        }
        let min = if topology.wraps() { req.min_vcs_torus } else { req.min_vcs_mesh };
        if vcs < min {
            let why = if topology.wraps() { "dateline VC classes" } else { "an escape VC and adaptive VCs" };
            return Err(format!("{} on a {topology} needs at least {min} VCs ({why}); vcs = {vcs}", self.name()));
        }
        Ok(())
    }

    /// How heads routed by this function on `topology` use the VCs of their output port.
    pub fn vc_policy(self, topology: Topology) -> VcPolicy {
        match self {
            Routing::MinAdaptive => VcPolicy::Escape,
            _ if topology.wraps() => VcPolicy::Dateline,
            _ => VcPolicy::Any,
        }
    }
}

/// The direction to take along one dimension of size `k` from `c` to `d`, if they differ: towards `d` on a mesh,
/// the shorter way round on a torus (`plus` on a tie; dimension order names both then).
#[inline]
fn step(wraps: bool, k: u32, c: u32, d: u32, plus: Direction, minus: Direction) -> Option<Direction> {
    if c == d {
        None
    } else if !wraps {
        Some(if d > c { plus } else { minus })
    } else {
        let forward = if d > c { d - c } else { d + k - c };
        Some(if 2 * forward <= k { plus } else { minus })
    }
}

fn step_x(mesh: &Mesh, q: &RouteQuery) -> Option<Direction> {
    step(mesh.topology.wraps(), mesh.width, q.x, q.dst_x, Direction::East, Direction::West)
}

fn step_y(mesh: &Mesh, q: &RouteQuery) -> Option<Direction> {
    step(mesh.topology.wraps(), mesh.height, q.y, q.dst_y, Direction::South, Direction::North)
}

/// The productive directions, x first (at most one per dimension on a mesh), or the local port on arrival.
fn productive(mesh: &Mesh, q: &RouteQuery, x_allowed: bool, y_allowed: bool) -> Route {
    let x = step_x(mesh, q).filter(|_| x_allowed);
    let y = step_y(mesh, q).filter(|_| y_allowed);
    match (x, y) {
        (Some(a), b) => Route::two(a.port(), b.map(Direction::port)),
        (None, Some(b)) => Route::one(b.port()),
        (None, None) => Route::one(q.dst_port),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path `routing` allows from `src` to `dst` (every adaptive choice), as routers visited, each ending with
    /// the ejection port.
    fn walks(mesh: &Mesh, routing: Routing, src: NodeId, dst: NodeId) -> Vec<(Vec<RouterId>, PortId)> {
        let route = routing.function();
        let mut done = Vec::new();
        let mut open = vec![vec![mesh.router_of(src)]];
        while let Some(path) = open.pop() {
            let here = *path.last().unwrap();
            for port in route(mesh, &RouteQuery::new(mesh, here, src, dst)).ports() {
                match Direction::from_port(port) {
                    Some(dir) => {
                        let next = mesh.neighbor(here, dir).expect("routing must not leave the network");
                        let mut longer = path.clone();
                        longer.push(next);
                        assert!(longer.len() <= mesh.routers(), "routing loops");
                        open.push(longer);
                    }
                    None => done.push((path.clone(), port)),
                }
            }
        }
        done
    }

    fn shapes() -> Vec<Mesh> {
        let m = |width, height, concentration, topology| Mesh { width, height, concentration, topology };
        vec![
            m(4, 3, 2, Topology::Mesh),
            m(5, 5, 1, Topology::Mesh),
            m(1, 4, 1, Topology::Mesh),
            m(3, 3, 1, Topology::Torus),
            m(4, 4, 2, Topology::Torus),
            m(5, 3, 1, Topology::Torus),
            m(2, 2, 1, Topology::Torus),
            m(5, 1, 1, Topology::Ring),
            m(8, 1, 2, Topology::Ring),
        ]
    }

    #[test]
    fn every_function_reaches_every_destination_on_minimal_paths_only() {
        for mesh in shapes() {
            for &(name, routing, _) in ROUTING_FUNCTIONS {
                if routing.check(mesh.topology, 8).is_err() {
                    continue;
                }
                for s in 0..mesh.nodes() as u32 {
                    for d in 0..mesh.nodes() as u32 {
                        let paths = walks(&mesh, routing, NodeId(s), NodeId(d));
                        assert!(!paths.is_empty());
                        let hops = mesh.hops(mesh.router_of(NodeId(s)), mesh.router_of(NodeId(d)));
                        for (path, port) in &paths {
                            assert_eq!(*path.last().unwrap(), mesh.router_of(NodeId(d)), "{name} {mesh:?}");
                            assert_eq!(*port, mesh.local_port(NodeId(d)));
                            assert_eq!(path.len() as u32, hops + 1, "{name} on {mesh:?}: {s} -> {d} not minimal: {path:?}");
                        }
                        if !routing.requirements().adaptive {
                            // One path, or on a ring half way round both ways (the router takes one per packet).
                            let (sx, sy) = mesh.coords(mesh.router_of(NodeId(s)));
                            let (dx, dy) = mesh.coords(mesh.router_of(NodeId(d)));
                            let half = |k: u32, a: u32, b: u32| u32::from(mesh.topology.wraps() && 2 * ((b + k - a) % k) == k);
                            let ties = half(mesh.width, sx, dx) + half(mesh.height, sy, dy);
                            assert_eq!(paths.len(), 1 << ties, "{name} on {mesh:?}: {s} -> {d}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn adaptive_functions_offer_a_choice_where_their_turn_model_allows_one() {
        let mesh = Mesh { width: 4, height: 4, concentration: 1, topology: Topology::Mesh };
        let count = |routing, s, d| walks(&mesh, routing, NodeId(s), NodeId(d)).len();
        // 0 (0,0) -> 15 (3,3): 20 minimal paths; min-adaptive and west-first (all eastward) allow all of them.
        assert_eq!(count(Routing::MinAdaptive, 0, 15), 20);
        assert_eq!(count(Routing::WestFirst, 0, 15), 20);
        // Westward: west-first goes west first, deterministically; min-adaptive may choose.
        assert_eq!(count(Routing::WestFirst, 15, 0), 1);
        assert_eq!(count(Routing::MinAdaptive, 15, 0), 20);
        assert!(count(Routing::OddEven, 0, 15) > 1 && count(Routing::OddEven, 0, 15) < 20);
        assert!(count(Routing::OddEven, 15, 0) > 1);
    }

    #[test]
    fn torus_dimension_order_goes_the_short_way_and_names_both_ways_on_a_tie() {
        let torus = Mesh { width: 4, height: 4, concentration: 1, topology: Topology::Torus };
        let first = |routing: Routing, s: u32, d: u32| {
            let q = RouteQuery::new(&torus, RouterId(s), NodeId(s), NodeId(d));
            Direction::from_port((routing.function())(&torus, &q).first())
        };
        let second = |routing: Routing, s: u32, d: u32| {
            let q = RouteQuery::new(&torus, RouterId(s), NodeId(s), NodeId(d));
            (routing.function())(&torus, &q).second().and_then(Direction::from_port)
        };
        assert_eq!((first(Routing::Xy, 0, 3), second(Routing::Xy, 0, 3)), (Some(Direction::West), None), "one hop round the back");
        assert_eq!((first(Routing::Xy, 0, 2), second(Routing::Xy, 0, 2)), (Some(Direction::East), Some(Direction::West)), "a tie (k/2): both, + first");
        assert_eq!((first(Routing::Xy, 2, 0), second(Routing::Xy, 2, 0)), (Some(Direction::East), Some(Direction::West)), "from the other side too");
        assert_eq!((first(Routing::Xy, 0, 8), second(Routing::Xy, 0, 8)), (Some(Direction::South), Some(Direction::North)), "y tie");
        assert_eq!(second(Routing::Xy, 1, 2), None, "no tie, one way");
        assert_eq!(first(Routing::Yx, 0, 13), Some(Direction::North));
        let five = Mesh { width: 5, height: 1, concentration: 1, topology: Topology::Ring };
        let q = RouteQuery::new(&five, RouterId(1), NodeId(1), NodeId(4));
        assert_eq!(route_xy(&five, &q).first(), Direction::West.port(), "1 -> 4 on a 5-ring: 2 hops west, 3 east");
    }

    #[test]
    fn routes_pack_one_or_two_ports() {
        let r = Route::two(PortId(1), Some(PortId(3)));
        assert_eq!(r.ports().collect::<Vec<_>>(), [PortId(1), PortId(3)]);
        assert_eq!(Route::one(PortId(6)), Route(6), "a deterministic route is its port");
        assert_eq!(Route::two(PortId(0), None).second(), None);
    }

    #[test]
    fn validity_is_checked_not_assumed() {
        assert!(Routing::Xy.check(Topology::Torus, 1).unwrap_err().contains("2 VCs"));
        assert!(Routing::Xy.check(Topology::Torus, 2).is_ok());
        assert!(Routing::WestFirst.check(Topology::Torus, 4).unwrap_err().contains("mesh only"));
        assert!(Routing::MinAdaptive.check(Topology::Mesh, 1).is_err());
        assert!(Routing::OddEven.check(Topology::Mesh, 1).is_ok());
    }

    #[test]
    fn names_round_trip() {
        for &(name, routing, _) in ROUTING_FUNCTIONS {
            assert_eq!(Routing::from_name(name), Some(routing));
            assert_eq!(routing.name(), name);
        }
        assert_eq!(Routing::from_name("north-last"), None);
    }
}
