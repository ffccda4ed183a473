//! Channel dependency graphs: every routing function is deadlock-free by construction, checked on small networks by
//! enumerating every path it allows (every source and destination, every adaptive choice) and finding no cycle.
//!
//! * Turn models (`west-first`, `odd-even`) and dimension order on a mesh: the whole CDG over links is acyclic.
//! * Dimension order on a torus or ring: the CDG over (link, dateline class) is acyclic, with classes assigned as
//!   the router does (BookSim2's partition: entering a dimension, class 1 when the destination's coordinate is
//!   below the current one, class 0 otherwise; kept while continuing in the same direction).
//! * `min-adaptive`: Duato's extended CDG of the escape channels (VC 0 along `xy`) is acyclic: an edge from escape
//!   channel `a` to escape channel `b` whenever some packet may use `b` after `a` directly or after adaptive
//!   channels only (indirect dependencies).
//!
//! And the check catches bad routing: plain minimal adaptive routing on one VC class, and dimension order on a torus
//! without datelines, have cycles.

use noc::routing::{RouteQuery, Routing, ROUTING_FUNCTIONS};
use noc::topology::{Direction, Mesh, Topology};
use noc::{NodeId, RouterId};
use std::collections::{HashMap, HashSet};

/// A channel: the link leaving `router` in direction `dir`, with a VC class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Channel {
    router: u32,
    dir: u8,
    class: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Model {
    /// One class: the whole CDG over links.
    OneClass,
    /// Dateline classes, as the router assigns them on a torus.
    Dateline,
    /// Duato: class 0 is the escape channel (the `xy` port only), class 1 adaptive; edges only between escape
    /// channels, through any number of adaptive hops.
    Escape,
}


/// Every dependency between channels that the routing function allows on `mesh` under `model`.
fn dependencies(mesh: &Mesh, routing: Routing, model: Model) -> HashSet<(Channel, Channel)> {
    let route = routing.function();
    let xy = Routing::Xy.function();
    let mut edges = HashSet::new();
    let n = mesh.routers() as u32;
    for s in 0..n {
        for d in 0..n {
            let (src, dst) = (NodeId(s * mesh.concentration), NodeId(d * mesh.concentration));
            // States: (router, the channel the next dependency starts from): the last channel, or with Escape the
            // last escape channel (adaptive hops in between carry it along).
            let mut seen: HashSet<(u32, Option<Channel>)> = HashSet::from([(s, None)]);
            let mut open = vec![(s, None::<Channel>, None::<Channel>)];
            while let Some((r, last, last_hop)) = open.pop() {
                let here = RouterId(r);
                let q = RouteQuery::new(mesh, here, src, dst);
                let xy_port = xy(mesh, &q).first();
                for port in route(mesh, &q).ports() {
                    let Some(dir) = Direction::from_port(port) else { continue };
                    let next = mesh.neighbor(here, dir).expect("stays in the network").0;
                    let classes: Vec<u8> = match model {
                        Model::OneClass => vec![0],
                        Model::Dateline => {
                            // Continuing in the same direction keeps the class; entering a dimension takes class 1
                            // when the destination's coordinate in it is below the current one.
                            let (x, y) = mesh.coords(here);
                            let (dx, dy) = mesh.coords(mesh.router_of(dst));
                            let below = if matches!(dir, Direction::East | Direction::West) { dx < x } else { dy < y };
                            vec![last_hop.filter(|c| c.dir == dir as u8).map_or(u8::from(below), |c| c.class)]
                        }
                        Model::Escape if port == xy_port => vec![0, 1],
                        Model::Escape => vec![1],
                    };
                    for class in classes {
                        let c = Channel { router: r, dir: dir as u8, class };
                        match model {
                            Model::Escape => {
                                let escape = class == 0;
                                if let (Some(a), true) = (last, escape) {
                                    edges.insert((a, c));
                                }
                                let carried = if escape { Some(c) } else { last };
                                if seen.insert((next, carried)) {
                                    open.push((next, carried, Some(c)));
                                }
                            }
                            _ => {
                                if let Some(a) = last_hop {
                                    edges.insert((a, c));
                                }
                                if seen.insert((next, Some(c))) {
                                    open.push((next, Some(c), Some(c)));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    edges
}

/// A cycle in the graph, if there is one.
fn find_cycle(edges: &HashSet<(Channel, Channel)>) -> Option<Vec<Channel>> {
    let mut out: HashMap<Channel, Vec<Channel>> = HashMap::new();
    for &(a, b) in edges {
        out.entry(a).or_default().push(b);
        out.entry(b).or_default();
    }
    let mut nodes: Vec<Channel> = out.keys().copied().collect();
    nodes.sort();
    // 0 unvisited, 1 on the stack, 2 done.
    let mut colour: HashMap<Channel, u8> = HashMap::new();
    for &start in &nodes {
        if colour.get(&start).copied().unwrap_or(0) != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        colour.insert(start, 1);
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            if let Some(&w) = out[&v].get(*i) {
                *i += 1;
                match colour.get(&w).copied().unwrap_or(0) {
                    0 => {
                        colour.insert(w, 1);
                        stack.push((w, 0));
                    }
                    1 => {
                        let from = stack.iter().position(|&(x, _)| x == w).unwrap();
                        return Some(stack[from..].iter().map(|&(x, _)| x).collect());
                    }
                    _ => {}
                }
            } else {
                colour.insert(v, 2);
                stack.pop();
            }
        }
    }
    None
}

fn shapes() -> Vec<Mesh> {
    let m = |width, height, topology| Mesh { width, height, concentration: 1, topology };
    vec![
        m(3, 3, Topology::Mesh),
        m(4, 4, Topology::Mesh),
        m(5, 4, Topology::Mesh),
        m(3, 3, Topology::Torus),
        m(4, 4, Topology::Torus),
        m(5, 3, Topology::Torus),
        m(2, 3, Topology::Torus),
        m(5, 1, Topology::Ring),
        m(8, 1, Topology::Ring),
    ]
}

#[test]
fn every_routing_function_has_an_acyclic_channel_dependency_graph() {
    let mut checked = 0;
    for mesh in shapes() {
        for &(name, routing, _) in ROUTING_FUNCTIONS {
            if routing.check(mesh.topology, 8).is_err() {
                continue;
            }
            let model = match (routing, mesh.topology.wraps()) {
                (Routing::MinAdaptive, _) => Model::Escape,
                (_, true) => Model::Dateline,
                (_, false) => Model::OneClass,
            };
            let edges = dependencies(&mesh, routing, model);
            assert!(!edges.is_empty() || mesh.routers() < 3);
            if let Some(cycle) = find_cycle(&edges) {
                panic!("{name} on {mesh:?} ({model:?}): dependency cycle {cycle:?}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 9 * 2 + 3 * 3, "{checked}");
}

#[test]
fn the_check_finds_the_cycles_of_bad_routing() {
    let mesh = Mesh { width: 3, height: 3, concentration: 1, topology: Topology::Mesh };
    // Minimal fully adaptive routing on a single VC class: the four turns of a square close a cycle.
    assert!(find_cycle(&dependencies(&mesh, Routing::MinAdaptive, Model::OneClass)).is_some());
    // The escape model of min-adaptive is what makes it deadlock-free; the turn models need no extra VC.
    assert!(find_cycle(&dependencies(&mesh, Routing::MinAdaptive, Model::Escape)).is_none());
    // Dimension order on a torus or ring without dateline classes: each ring is a cycle (once minimal routes take
    // two hops in a dimension; with k = 3 they take one and the 3x3 torus needs no datelines).
    let small = Mesh { width: 3, height: 3, concentration: 1, topology: Topology::Torus };
    assert!(find_cycle(&dependencies(&small, Routing::Xy, Model::OneClass)).is_none());
    for (w, h, topology) in [(4, 4, Topology::Torus), (5, 3, Topology::Torus), (5, 1, Topology::Ring)] {
        let torus = Mesh { width: w, height: h, concentration: 1, topology };
        assert!(find_cycle(&dependencies(&torus, Routing::Xy, Model::OneClass)).is_some(), "{torus:?}");
        assert!(find_cycle(&dependencies(&torus, Routing::Xy, Model::Dateline)).is_none(), "{torus:?}");
    }
}
