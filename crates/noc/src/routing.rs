//! Routing functions, chosen by name from a table.
//!
//! A routing function maps (mesh, current router, destination) to the output port a head flit takes. The query
//! carries coordinates already resolved (the simulator keeps them in tables), so a routing function does no
//! division in the hot path. Adding a deterministic function is one function here and one row in
//! [`ROUTING_FUNCTIONS`].

use crate::topology::{Direction, Mesh};
use crate::types::{NodeId, PortId, RouterId};

/// Where a head flit is and where it is going.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteQuery {
    pub x: u32,
    pub y: u32,
    pub dst_x: u32,
    pub dst_y: u32,
    /// The local port of the destination node on its router.
    pub dst_port: PortId,
}

impl RouteQuery {
    pub fn new(mesh: &Mesh, here: RouterId, dst: NodeId) -> RouteQuery {
        let (x, y) = mesh.coords(here);
        let (dst_x, dst_y) = mesh.coords(mesh.router_of(dst));
        RouteQuery { x, y, dst_x, dst_y, dst_port: mesh.local_port(dst) }
    }
}

/// Signature of a deterministic routing function.
pub type RouteFn = fn(&Mesh, &RouteQuery) -> PortId;

/// Which routing function a network uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Routing {
    /// Dimension order: all the way along x, then along y. Deadlock-free on a mesh.
    Xy,
    /// Dimension order: all the way along y, then along x. Deadlock-free on a mesh.
    Yx,
}

/// Every routing function: its name (as accepted on the command line and in configs) and its implementation.
pub const ROUTING_FUNCTIONS: &[(&str, Routing, RouteFn)] = &[("xy", Routing::Xy, route_xy), ("yx", Routing::Yx, route_yx)];

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
}

fn step_x(cx: u32, dx: u32) -> Option<Direction> {
    match dx.cmp(&cx) {
        std::cmp::Ordering::Greater => Some(Direction::East),
        std::cmp::Ordering::Less => Some(Direction::West),
        std::cmp::Ordering::Equal => None,
    }
}

fn step_y(cy: u32, dy: u32) -> Option<Direction> {
    match dy.cmp(&cy) {
        std::cmp::Ordering::Greater => Some(Direction::South),
        std::cmp::Ordering::Less => Some(Direction::North),
        std::cmp::Ordering::Equal => None,
    }
}

fn route_xy(_: &Mesh, q: &RouteQuery) -> PortId {
    match step_x(q.x, q.dst_x).or_else(|| step_y(q.y, q.dst_y)) {
        Some(dir) => dir.port(),
        None => q.dst_port,
    }
}

fn route_yx(_: &Mesh, q: &RouteQuery) -> PortId {
    match step_y(q.y, q.dst_y).or_else(|| step_x(q.x, q.dst_x)) {
        Some(dir) => dir.port(),
        None => q.dst_port,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Follows a routing function from `src` and returns the routers visited and the final (ejection) port.
    fn walk(mesh: &Mesh, routing: Routing, src: NodeId, dst: NodeId) -> (Vec<RouterId>, PortId) {
        let route = routing.function();
        let mut here = mesh.router_of(src);
        let mut path = vec![here];
        loop {
            let port = route(mesh, &RouteQuery::new(mesh, here, dst));
            match Direction::from_port(port) {
                Some(dir) => {
                    here = mesh.neighbor(here, dir).expect("routing must not leave the mesh");
                    path.push(here);
                    assert!(path.len() <= mesh.routers(), "routing loops");
                }
                None => return (path, port),
            }
        }
    }

    #[test]
    fn every_function_reaches_every_destination_on_a_minimal_path() {
        let mesh = Mesh { width: 4, height: 3, concentration: 2 };
        for &(_, routing, _) in ROUTING_FUNCTIONS {
            for s in 0..mesh.nodes() as u32 {
                for d in 0..mesh.nodes() as u32 {
                    let (path, port) = walk(&mesh, routing, NodeId(s), NodeId(d));
                    assert_eq!(*path.last().unwrap(), mesh.router_of(NodeId(d)));
                    assert_eq!(port, mesh.local_port(NodeId(d)));
                    let hops = mesh.hops(mesh.router_of(NodeId(s)), mesh.router_of(NodeId(d)));
                    assert_eq!(path.len() as u32, hops + 1);
                }
            }
        }
    }

    #[test]
    fn xy_goes_along_x_first_and_yx_along_y_first() {
        let mesh = Mesh { width: 4, height: 4, concentration: 1 };
        let (xy, _) = walk(&mesh, Routing::Xy, NodeId(0), NodeId(15));
        assert_eq!(xy[1], mesh.router_at(1, 0));
        let (yx, _) = walk(&mesh, Routing::Yx, NodeId(0), NodeId(15));
        assert_eq!(yx[1], mesh.router_at(0, 1));
    }

    #[test]
    fn names_round_trip() {
        for &(name, routing, _) in ROUTING_FUNCTIONS {
            assert_eq!(Routing::from_name(name), Some(routing));
            assert_eq!(routing.name(), name);
        }
        assert_eq!(Routing::from_name("west-first"), None);
    }
}
