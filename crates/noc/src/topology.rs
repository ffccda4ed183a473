//! Network geometry: topologies, router coordinates, port numbering, neighbours and hop distances.
//!
//! Routers are numbered row by row (`id = y * width + x`); `x` grows to the east and `y` to the south, so router 0
//! is the north-west corner. Each router has four mesh ports and `concentration` local ports; node `n` is attached
//! to local port `n % concentration` of router `n / concentration`.
//!
//! Three topologies share this numbering, one row each in [`TOPOLOGIES`]: the `mesh`; the `torus`, whose rows and
//! columns close into rings (the east port of the last router of a row leads to the west port of its first, and
//! likewise north/south); and the `ring`, a torus of height 1. A dimension of size 1 has no links even on a torus
//! (a router is not its own neighbour), so a `k x 1` torus is a ring. Hop distances are minimal with wrap-around.

use crate::types::{NodeId, PortId, RouterId};

/// The four mesh directions, in port order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    East = 0,
    West = 1,
    North = 2,
    South = 3,
}

/// Number of mesh (non-local) ports on every router.
pub const MESH_PORTS: usize = 4;

impl Direction {
    pub const ALL: [Direction; 4] = [Direction::East, Direction::West, Direction::North, Direction::South];

    pub fn port(self) -> PortId {
        PortId(self as u8)
    }

    /// The direction a flit leaving through `self` enters the neighbour from.
    pub fn opposite(self) -> Direction {
        match self {
            Direction::East => Direction::West,
            Direction::West => Direction::East,
            Direction::North => Direction::South,
            Direction::South => Direction::North,
        }
    }

    pub fn from_port(port: PortId) -> Option<Direction> {
        Direction::ALL.get(port.0 as usize).copied()
    }

    pub fn name(self) -> &'static str {
        match self {
            Direction::East => "east",
            Direction::West => "west",
            Direction::North => "north",
            Direction::South => "south",
        }
    }
}

/// How the routers are connected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Topology {
    /// A 2D mesh: no links leave the edges.
    #[default]
    Mesh,
    /// A 2D torus: every row and column is a ring (wrap-around links at the edges).
    Torus,
    /// A ring: a 1D torus (height 1).
    Ring,
}

/// One row per topology: its name (command line and chip files), variant, whether its rows and columns wrap around,
/// and the largest height it allows.
pub struct TopologyRow {
    pub name: &'static str,
    pub topology: Topology,
    pub wraps: bool,
    pub max_height: Option<u32>,
}

/// Every topology.
pub const TOPOLOGIES: &[TopologyRow] = &[
    TopologyRow { name: "mesh", topology: Topology::Mesh, wraps: false, max_height: None },
    TopologyRow { name: "torus", topology: Topology::Torus, wraps: true, max_height: None },
    TopologyRow { name: "ring", topology: Topology::Ring, wraps: true, max_height: Some(1) },
];

crate::named::named_by_table!(Topology, TopologyRow, TOPOLOGIES, topology, "topology", pub);

impl Topology {
    /// Whether rows and columns close into rings.
    pub fn wraps(self) -> bool {
        self.row().wraps
    }
}

/// A `width x height` network of routers with `concentration` nodes per router, connected as `topology` says
/// (the name is historical: it is a mesh, torus or ring).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mesh {
    pub width: u32,
    pub height: u32,
    pub concentration: u32,
    pub topology: Topology,
}

impl Mesh {
    pub fn routers(&self) -> usize {
        (self.width * self.height) as usize
    }

    pub fn nodes(&self) -> usize {
        self.routers() * self.concentration as usize
    }

    /// Ports per router: four mesh ports plus one local port per attached node.
    pub fn ports(&self) -> usize {
        MESH_PORTS + self.concentration as usize
    }

    pub fn coords(&self, router: RouterId) -> (u32, u32) {
        (router.0 % self.width, router.0 / self.width)
    }

    pub fn router_at(&self, x: u32, y: u32) -> RouterId {
        RouterId(y * self.width + x)
    }

    pub fn router_of(&self, node: NodeId) -> RouterId {
        RouterId(node.0 / self.concentration)
    }

    /// The local port on its router that `node` is attached to.
    pub fn local_port(&self, node: NodeId) -> PortId {
        PortId((MESH_PORTS as u32 + node.0 % self.concentration) as u8)
    }

    /// The node attached to local port `port` of `router`, or `None` for a mesh port.
    pub fn node_at(&self, router: RouterId, port: PortId) -> Option<NodeId> {
        let local = (port.0 as usize).checked_sub(MESH_PORTS)?;
        Some(NodeId(router.0 * self.concentration + local as u32))
    }

    /// The router one hop away in `dir`, or `None` at a mesh edge (or along a torus dimension of size 1).
    pub fn neighbor(&self, router: RouterId, dir: Direction) -> Option<RouterId> {
        let (x, y) = self.coords(router);
        let (w, h) = (self.width, self.height);
        let (nx, ny) = match dir {
            Direction::East if x + 1 < w => (x + 1, y),
            Direction::West if x > 0 => (x - 1, y),
            Direction::North if y > 0 => (x, y - 1),
            Direction::South if y + 1 < h => (x, y + 1),
            _ if !self.topology.wraps() => return None,
            Direction::East if w > 1 => (0, y),
            Direction::West if w > 1 => (w - 1, y),
            Direction::North if h > 1 => (x, h - 1),
            Direction::South if h > 1 => (x, 0),
            _ => return None,
        };
        Some(self.router_at(nx, ny))
    }

    /// Whether the link leaving `router` in `dir` is a wrap-around link of a torus or ring (the dateline).
    pub fn is_wrap_link(&self, router: RouterId, dir: Direction) -> bool {
        let (x, y) = self.coords(router);
        self.neighbor(router, dir).is_some()
            && match dir {
                Direction::East => x + 1 == self.width,
                Direction::West => x == 0,
                Direction::North => y == 0,
                Direction::South => y + 1 == self.height,
            }
    }

    /// The minimal distance between two routers, in links: Manhattan on a mesh, with wrap-around on a torus.
    pub fn hops(&self, a: RouterId, b: RouterId) -> u32 {
        let (ax, ay) = self.coords(a);
        let (bx, by) = self.coords(b);
        let (dx, dy) = (ax.abs_diff(bx), ay.abs_diff(by));
        if self.topology.wraps() {
            dx.min(self.width - dx) + dy.min(self.height - dy)
        } else {
            dx + dy
        }
    }

    /// A readable name for a port of this mesh: `east`, `west`, `north`, `south`, `local0`, `local1`, ...
    pub fn port_name(&self, port: PortId) -> String {
        match Direction::from_port(port) {
            Some(dir) => dir.name().to_string(),
            None => format!("local{}", port.0 as usize - MESH_PORTS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip_on_a_non_square_mesh() {
        let mesh = Mesh { width: 5, height: 3, concentration: 2, topology: Topology::Mesh };
        assert_eq!(mesh.nodes(), 30);
        assert_eq!(mesh.ports(), 6);
        for r in 0..mesh.routers() as u32 {
            let (x, y) = mesh.coords(RouterId(r));
            assert_eq!(mesh.router_at(x, y), RouterId(r));
        }
        assert_eq!(mesh.router_of(NodeId(7)), RouterId(3));
        assert_eq!(mesh.local_port(NodeId(7)), PortId(5));
        assert_eq!(mesh.node_at(RouterId(3), PortId(5)), Some(NodeId(7)));
        assert_eq!(mesh.node_at(RouterId(3), Direction::East.port()), None);
    }

    #[test]
    fn neighbours_stop_at_the_edges_and_are_symmetric() {
        let mesh = Mesh { width: 4, height: 2, concentration: 1, topology: Topology::Mesh };
        assert_eq!(mesh.neighbor(RouterId(0), Direction::West), None);
        assert_eq!(mesh.neighbor(RouterId(0), Direction::North), None);
        assert_eq!(mesh.neighbor(RouterId(3), Direction::East), None);
        assert_eq!(mesh.neighbor(RouterId(7), Direction::South), None);
        for r in 0..8 {
            for dir in Direction::ALL {
                if let Some(n) = mesh.neighbor(RouterId(r), dir) {
                    assert_eq!(mesh.neighbor(n, dir.opposite()), Some(RouterId(r)));
                    assert_eq!(mesh.hops(RouterId(r), n), 1);
                }
            }
        }
        assert_eq!(mesh.hops(RouterId(0), RouterId(7)), 4);
    }

    #[test]
    fn port_names() {
        let mesh = Mesh { width: 2, height: 2, concentration: 2, topology: Topology::Mesh };
        assert_eq!(mesh.port_name(PortId(2)), "north");
        assert_eq!(mesh.port_name(PortId(5)), "local1");
    }

    #[test]
    fn torus_and_ring_neighbours_wrap_and_hops_take_the_short_way() {
        for (w, h, topology) in [(3, 3, Topology::Torus), (4, 4, Topology::Torus), (5, 3, Topology::Torus), (5, 1, Topology::Ring), (8, 1, Topology::Ring)] {
            let mesh = Mesh { width: w, height: h, concentration: 1, topology };
            for r in 0..mesh.routers() as u32 {
                let (x, y) = mesh.coords(RouterId(r));
                assert_eq!(mesh.neighbor(RouterId(r), Direction::East), Some(mesh.router_at((x + 1) % w, y)));
                assert_eq!(mesh.neighbor(RouterId(r), Direction::West), Some(mesh.router_at((x + w - 1) % w, y)));
                let south = mesh.neighbor(RouterId(r), Direction::South);
                assert_eq!(south, (h > 1).then(|| mesh.router_at(x, (y + 1) % h)));
                assert_eq!(mesh.is_wrap_link(RouterId(r), Direction::East), x == w - 1);
                assert_eq!(mesh.is_wrap_link(RouterId(r), Direction::North), h > 1 && y == 0);
                for dir in Direction::ALL {
                    if let Some(n) = mesh.neighbor(RouterId(r), dir) {
                        assert_eq!(mesh.neighbor(n, dir.opposite()), Some(RouterId(r)));
                        assert_eq!(mesh.hops(RouterId(r), n), 1);
                    }
                }
                // Hops: a breadth-first search over the links agrees.
                let mut dist = vec![u32::MAX; mesh.routers()];
                let mut queue = std::collections::VecDeque::from([RouterId(r)]);
                dist[r as usize] = 0;
                while let Some(a) = queue.pop_front() {
                    for dir in Direction::ALL {
                        if let Some(n) = mesh.neighbor(a, dir) {
                            if dist[n.0 as usize] == u32::MAX {
                                dist[n.0 as usize] = dist[a.0 as usize] + 1;
                                queue.push_back(n);
                            }
                        }
                    }
                }
                for b in 0..mesh.routers() as u32 {
                    assert_eq!(mesh.hops(RouterId(r), RouterId(b)), dist[b as usize], "{w}x{h} {topology}: {r} -> {b}");
                }
            }
        }
        let ring = Mesh { width: 8, height: 1, concentration: 1, topology: Topology::Ring };
        assert_eq!(ring.hops(RouterId(0), RouterId(7)), 1);
        assert_eq!(ring.hops(RouterId(1), RouterId(5)), 4);
        assert_eq!(ring.neighbor(RouterId(0), Direction::North), None, "a ring has no y links");
    }

    #[test]
    fn topology_names_round_trip() {
        for row in TOPOLOGIES {
            assert_eq!(row.name.parse::<Topology>(), Ok(row.topology));
            assert_eq!(row.topology.name(), row.name);
        }
        assert!("hypercube".parse::<Topology>().unwrap_err().contains("hypercube"));
    }
}
