//! `min-adaptive` (Duato): both productive directions are candidates; the router gives them the adaptive VCs
//! `1..vcs` and offers the escape VC 0 on the first (`xy`) port only ([`super::VcPolicy::Escape`]). Mesh only, two
//! VCs or more.

use super::{productive, Route, RouteQuery};
use crate::topology::Mesh;

pub(super) fn route_min_adaptive(mesh: &Mesh, q: &RouteQuery) -> Route {
    productive(mesh, q, true, true)
}
