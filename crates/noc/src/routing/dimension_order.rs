//! `xy` and `yx`: dimension order, all of one dimension and then the other. On a torus or ring each dimension goes
//! the shorter way round, the `+` way (east, south) on a tie; deadlock freedom there comes from the dateline VC
//! classes ([`super::VcPolicy::Dateline`]).

use super::{step_x, step_y, Route, RouteQuery};
use crate::topology::Mesh;

pub(super) fn route_xy(mesh: &Mesh, q: &RouteQuery) -> Route {
    match step_x(mesh, q).or_else(|| step_y(mesh, q)) {
        Some(dir) => Route::one(dir.port()),
        None => Route::one(q.dst_port),
    }
}

pub(super) fn route_yx(mesh: &Mesh, q: &RouteQuery) -> Route {
    match step_y(mesh, q).or_else(|| step_x(mesh, q)) {
        Some(dir) => Route::one(dir.port()),
        None => Route::one(q.dst_port),
    }
}
