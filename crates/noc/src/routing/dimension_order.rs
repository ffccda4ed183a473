//! `xy` and `yx`: dimension order, all of one dimension and then the other. On a torus or ring each dimension goes
//! the shorter way round; when both ways are equally long (distance `k/2`) the route names both, the `+` way (east,
//! south) first, and the router picks one per packet at VC allocation, as BookSim2 picks at random; deadlock
//! freedom there comes from the dateline VC classes ([`super::VcPolicy::Dateline`]).

use super::{step_x, step_y, Route, RouteQuery};
use crate::topology::{Direction, Mesh};

/// Whether going `dir` from `c` to `d` on a ring of `k` is exactly half way round (either way is minimal).
fn half_way(mesh: &Mesh, k: u32, c: u32, d: u32) -> bool {
    mesh.topology.wraps() && 2 * ((d + k - c) % k) == k
}

fn along_x(mesh: &Mesh, q: &RouteQuery) -> Option<(Direction, bool)> {
    step_x(mesh, q).map(|dir| (dir, half_way(mesh, mesh.width, q.x, q.dst_x)))
}

fn along_y(mesh: &Mesh, q: &RouteQuery) -> Option<(Direction, bool)> {
    step_y(mesh, q).map(|dir| (dir, half_way(mesh, mesh.height, q.y, q.dst_y)))
}

fn route(step: Option<(Direction, bool)>, q: &RouteQuery) -> Route {
    match step {
        Some((dir, tie)) => Route::two(dir.port(), tie.then(|| dir.opposite().port())),
        None => Route::one(q.dst_port),
    }
}

pub(super) fn route_xy(mesh: &Mesh, q: &RouteQuery) -> Route {
    route(along_x(mesh, q).or_else(|| along_y(mesh, q)), q)
}

pub(super) fn route_yx(mesh: &Mesh, q: &RouteQuery) -> Route {
    route(along_y(mesh, q).or_else(|| along_x(mesh, q)), q)
}
