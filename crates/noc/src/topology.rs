//! Mesh geometry: router coordinates, port numbering, neighbours and hop distances.
//!
//! Routers are numbered row by row (`id = y * width + x`); `x` grows to the east and `y` to the south, so router 0
//! is the north-west corner. Each router has four mesh ports and `concentration` local ports; node `n` is attached
//! to local port `n % concentration` of router `n / concentration`.

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

/// A `width x height` mesh of routers with `concentration` nodes per router.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mesh {
    pub width: u32,
    pub height: u32,
    pub concentration: u32,
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

    /// The router one hop away in `dir`, or `None` at the mesh edge.
    pub fn neighbor(&self, router: RouterId, dir: Direction) -> Option<RouterId> {
        let (x, y) = self.coords(router);
        let (nx, ny) = match dir {
            Direction::East if x + 1 < self.width => (x + 1, y),
            Direction::West if x > 0 => (x - 1, y),
            Direction::North if y > 0 => (x, y - 1),
            Direction::South if y + 1 < self.height => (x, y + 1),
            _ => return None,
        };
        Some(self.router_at(nx, ny))
    }

    /// Manhattan distance between two routers, in links.
    pub fn hops(&self, a: RouterId, b: RouterId) -> u32 {
        let (ax, ay) = self.coords(a);
        let (bx, by) = self.coords(b);
        ax.abs_diff(bx) + ay.abs_diff(by)
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
        let mesh = Mesh { width: 5, height: 3, concentration: 2 };
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
        let mesh = Mesh { width: 4, height: 2, concentration: 1 };
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
        let mesh = Mesh { width: 2, height: 2, concentration: 2 };
        assert_eq!(mesh.port_name(PortId(2)), "north");
        assert_eq!(mesh.port_name(PortId(5)), "local1");
    }
}
