//! `odd-even` (Chiu 2000, the minimal ROUTE function): no turn from east to north or south in an even column, none
//! from north or south to west in an odd column. One VC suffices; mesh only. The route depends on the packet's
//! source column, so the simulator computes it per packet instead of tabulating it.

use super::{productive, step_x, step_y, Route, RouteQuery};
use crate::topology::{Direction, Mesh};

pub(super) fn route_odd_even(mesh: &Mesh, q: &RouteQuery) -> Route {
    let (x_step, y_step) = (step_x(mesh, q), step_y(mesh, q));
    match (x_step, y_step) {
        (None, _) | (_, None) => productive(mesh, q, true, true),
        (Some(Direction::East), Some(_)) => {
            // Turning from east to north/south is forbidden in even columns, except in the source column, where
            // the packet has not travelled east yet. East is kept unless it would arrive in an even destination
            // column one hop away and have to turn there.
            let may_turn = q.x % 2 == 1 || q.x == q.src_x;
            let may_go_east = q.dst_x % 2 == 1 || q.dst_x - q.x != 1;
            productive(mesh, q, may_go_east, may_turn)
        }
        (Some(_), Some(_)) => {
            // Westbound: turning from north/south to west is forbidden in odd columns, so leave the x-dimension
            // only in an even column.
            productive(mesh, q, true, q.x % 2 == 0)
        }
    }
}
