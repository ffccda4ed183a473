//! `west-first` (Glass and Ni's turn model): a packet whose destination lies west goes west first,
//! deterministically; every other packet chooses among its productive directions (east, north, south). No turn
//! into west is ever taken, which breaks every cycle of turns; one VC suffices. Mesh only.

use super::{productive, Route, RouteQuery};
use crate::topology::{Direction, Mesh};

pub(super) fn route_west_first(mesh: &Mesh, q: &RouteQuery) -> Route {
    if q.dst_x < q.x {
        return Route::one(Direction::West.port());
    }
    productive(mesh, q, true, true)
}
