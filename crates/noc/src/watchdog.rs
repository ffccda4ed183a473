//! Deadlock diagnosis. When the network holds flits and none has moved for `watchdog_cycles`, the wait-for graph
//! of its channels is built and searched for a cycle, which is what the user needs to see to understand the
//! deadlock: which router, port and VC each waits for, and which packets hold them.
//!
//! Vertices are router input VCs, node ejection queues (per VC) and node injection ports. Edges point from a
//! blocked resource to the resource it waits for:
//! * an input VC whose front flit has no credit waits for the downstream buffer (an input VC or ejection queue);
//! * an input VC waiting for VC allocation waits for the input VCs that own the output VCs it wants;
//! * an owning input VC whose buffer is empty waits for its upstream, which still holds the rest of the packet;
//! * an ejection queue of a node that drains only when its own sending is done waits for that node's injection;
//! * a node that cannot inject waits for its router's local input VC.
//!
//! A queue of a node that never drains is a dead end, and then the report gives the chain that ends there, unless the
//! node's owner says why it does not drain ([`NodeOwner`]): a core blocked on its full send FIFO takes nothing out
//! of its receive FIFO until its own words leave, so its ejection queue waits for its injection, and the report
//! then shows the whole cycle, through both cores and every router between them.

use crate::network::{DrainPolicy, InputVc, Network, VcState, NO_OWNER};
use crate::router::PendingAllocation;
use crate::topology::MESH_PORTS;
use crate::types::{NodeId, PortId, RouterId};
use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Vertex {
    Input(usize),
    Eject(usize),
    Inject(usize),
}

/// A packet occupying a blocked resource.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PacketRef {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub flits: u16,
}

/// What the owner of a node (a chip's network interface) knows about it that the network does not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeOwner {
    /// Names of the node's injection and ejection sides in the owner's terms (e.g. "core 1 (tile 1) send FIFO").
    pub injection: String,
    pub ejection: String,
    /// Set when the owner takes nothing out of the ejection queue until its own send has left (a core blocked on a
    /// full send FIFO): what the queue then waits for, in words.
    pub drains_after_send: Option<String>,
}

/// One resource in the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockedResource {
    /// `router_input`, `ejection_queue` or `injection`.
    pub kind: &'static str,
    /// For a node's queues: what its owner calls it (see [`NodeOwner`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub router: Option<u32>,
    pub x: Option<u32>,
    pub y: Option<u32>,
    pub port: Option<String>,
    pub vc: Option<u8>,
    pub node: Option<u32>,
    /// Flits held, and the buffer's capacity (for an injection port: flits still to send, capacity 0).
    pub flits: u32,
    pub capacity: u32,
    /// Packets with flits in the resource (or, for an injection port, the packet being injected).
    pub packets: Vec<PacketRef>,
    /// What the resource is waiting for, in words.
    pub waiting_for: String,
}

/// What the watchdog found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeadlockReport {
    /// Cycle at which the watchdog fired.
    pub cycle: u64,
    /// Cycles since the last flit moved.
    pub stalled_cycles: u64,
    pub flits_in_network: u64,
    /// The cycle of resources, each waiting for the next and the last for the first; empty if none was found.
    pub wait_cycle: Vec<BlockedResource>,
    /// If there is no cycle: a chain of waiting resources ending at one that will never free up.
    pub chain: Vec<BlockedResource>,
}

impl fmt::Display for BlockedResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            "router_input" => write!(
                f,
                "router {} ({},{}) input {} vc {}",
                self.router.unwrap_or(0),
                self.x.unwrap_or(0),
                self.y.unwrap_or(0),
                self.port.as_deref().unwrap_or("?"),
                self.vc.unwrap_or(0)
            )?,
            _ if self.name.is_some() => write!(f, "{}", self.name.as_deref().unwrap_or_default())?,
            "ejection_queue" => write!(f, "node {} ejection queue vc {}", self.node.unwrap_or(0), self.vc.unwrap_or(0))?,
            _ => write!(f, "node {} injection", self.node.unwrap_or(0))?,
        }
        if self.kind == "injection" {
            write!(f, " [{} flits left to send", self.flits)?;
        } else {
            write!(f, " [{}/{} flits", self.flits, self.capacity)?;
        }
        // Runs of three or more packets between the same pair (a FIFO full of one-word messages) on one entry.
        let mut k = 0;
        while k < self.packets.len() {
            let p = &self.packets[k];
            let run = self.packets[k..].iter().take_while(|q| (q.src, q.dst, q.flits) == (p.src, p.dst, p.flits)).count();
            if run >= 3 {
                let last = self.packets[k + run - 1].id;
                write!(f, "; {run} packets {}->{} ({} flits each; ids {}..{last})", p.src, p.dst, p.flits, p.id)?;
            } else {
                for q in &self.packets[k..k + run] {
                    write!(f, "; packet {} {}->{} ({} flits)", q.id, q.src, q.dst, q.flits)?;
                }
            }
            k += run;
        }
        write!(f, "] waits for {}", self.waiting_for)
    }
}

impl fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "deadlock: no flit moved for {} cycles (watchdog fired at cycle {}); {} flits in the network",
            self.stalled_cycles, self.cycle, self.flits_in_network
        )?;
        if !self.wait_cycle.is_empty() {
            writeln!(f, "cycle of blocked channels (each waits for the next, the last for the first):")?;
            for (k, r) in self.wait_cycle.iter().enumerate() {
                writeln!(f, "  {}. {r}", k + 1)?;
            }
        } else if !self.chain.is_empty() {
            writeln!(f, "no cycle: blocked chain ending at a resource that never frees:")?;
            for (k, r) in self.chain.iter().enumerate() {
                writeln!(f, "  {}. {r}", k + 1)?;
            }
        } else {
            writeln!(f, "no blocked channel found")?;
        }
        Ok(())
    }
}

struct Graph<'a> {
    net: &'a Network,
    /// Per node, what its owner says (empty: nothing).
    owners: &'a [Option<NodeOwner>],
    /// Applied on top of `net`, so the report shows the VC allocation of the last cycle as done.
    pending: PendingAllocation,
}

impl Graph<'_> {
    fn owner_of(&self, node: usize) -> Option<&NodeOwner> {
        self.owners.get(node).and_then(Option::as_ref)
    }

    fn ivc(&self, i: usize) -> InputVc {
        self.pending.vcs.get(&i).copied().unwrap_or(self.net.ivc[i])
    }

    fn owner(&self, o: usize) -> u16 {
        self.pending.owners.get(&o).copied().unwrap_or(self.net.ovc[o].owner)
    }

    fn router_of_ivc(&self, i: usize) -> usize {
        i / (self.net.ports * self.net.vcs)
    }

    /// The channel feeding input VC `i`: the upstream input VC owning it, or the injecting node.
    fn upstream(&self, i: usize) -> Option<Vertex> {
        let net = self.net;
        let r = self.router_of_ivc(i);
        let local = i - r * net.ports * net.vcs;
        let (p, v) = (local / net.vcs, local % net.vcs);
        if p >= MESH_PORTS {
            return Some(Vertex::Inject(net.mesh.node_at(RouterId(r as u32), PortId(p as u8))?.0 as usize));
        }
        let up = net.in_link[r * net.ports + p].ovc as usize + v;
        let owner = self.owner(up);
        (owner != NO_OWNER).then(|| {
            let up_router = up / (net.ports * net.vcs);
            Vertex::Input(up_router * net.ports * net.vcs + owner as usize)
        })
    }

    fn downstream(&self, r: usize, out_port: usize, out_vc: usize) -> Vertex {
        let net = self.net;
        if out_port < MESH_PORTS {
            Vertex::Input(net.out_link[r * net.ports + out_port].first as usize + out_vc)
        } else {
            let node = r * net.mesh.concentration as usize + (out_port - MESH_PORTS);
            Vertex::Eject(node * net.vcs + out_vc)
        }
    }

    /// The resources `v` waits for, and a description; empty when `v` is not blocked or is a dead end.
    fn edges(&self, v: Vertex) -> (Vec<Vertex>, String) {
        let net = self.net;
        match v {
            Vertex::Input(i) => {
                let vc = self.ivc(i);
                let r = self.router_of_ivc(i);
                let base = r * net.ports * net.vcs;
                if vc.len == 0 {
                    return match (vc.state, self.upstream(i)) {
                        (VcState::Active, Some(up)) => (vec![up], "the rest of its packet from upstream".into()),
                        _ => (vec![], "nothing".into()),
                    };
                }
                let flit = vc.front;
                let out_port = match vc.state {
                    // A head waiting for VC allocation may have two candidate ports; name the first.
                    VcState::Idle => crate::routing::Route(net.route_port(r, flit.packet)).first().0 as usize,
                    VcState::Routed => crate::routing::Route(vc.out_port).first().0 as usize,
                    VcState::Active => vc.out_port as usize,
                };
                let port_name = net.mesh.port_name(PortId(out_port as u8));
                if vc.state == VcState::Active {
                    let o = base + out_port * net.vcs + vc.out_vc as usize;
                    if self.net.credits_landed(o) == 0 {
                        let d = self.downstream(r, out_port, vc.out_vc as usize);
                        return (vec![d], format!("a credit on output {port_name} vc {}", vc.out_vc));
                    }
                    return (vec![], "the switch".into());
                }
                // The VCs the head may take: its port's, or with adaptive routing and VC classes those of its
                // candidate ports in its classes. It waits for their owners unless one is unowned.
                let local = i - base;
                let options = if net.route_choice { net.allowed_out_vcs(r, local, flit.route) } else { vec![(out_port, u64::MAX)] };
                let mut owners = Vec::new();
                for &(o, mask) in &options {
                    for ov in (0..net.vcs).filter(|&ov| mask & (1 << ov) != 0) {
                        let owner = self.owner(base + o * net.vcs + ov);
                        if owner == NO_OWNER {
                            return (vec![], "VC allocation".into());
                        }
                        owners.push(Vertex::Input(base + owner as usize));
                    }
                }
                if options.len() > 1 || options[0].1 != u64::MAX {
                    let names: Vec<String> = options.iter().map(|&(o, _)| net.mesh.port_name(PortId(o as u8))).collect();
                    return (owners, format!("a free VC of its class on output {}", names.join(" or ")));
                }
                (owners, format!("a free VC on output {port_name}"))
            }
            Vertex::Eject(q) => {
                let node = q / net.vcs;
                if let Some(why) = self.owner_of(node).and_then(|o| o.drains_after_send.as_ref()) {
                    if !net.nodes[node].source.is_empty() {
                        return (vec![Vertex::Inject(node)], why.clone());
                    }
                }
                match net.drain_policy(NodeId(node as u32)) {
                    DrainPolicy::WhenSourceIdle if !net.nodes[node].source.is_empty() => (
                        vec![Vertex::Inject(node)],
                        format!("node {node} to drain it, which it does only once its own send has left"),
                    ),
                    DrainPolicy::Never | DrainPolicy::Manual => (vec![], format!("node {node} to drain it, which it never does")),
                    _ => (vec![], "the node to drain it".into()),
                }
            }
            Vertex::Inject(n) => {
                let node = &net.nodes[n];
                if node.source.is_empty() {
                    return (vec![], "nothing".into());
                }
                let router = net.mesh.router_of(NodeId(n as u32)).0 as usize;
                let port = net.mesh.local_port(NodeId(n as u32)).0 as usize;
                let first = (router * net.ports + port) * net.vcs;
                let base = net.inject_ovc_base + n * net.vcs;
                let vcs: Vec<usize> = match node.inj_vc {
                    Some(v) => vec![v as usize],
                    None => (0..net.vcs).collect(),
                };
                if vcs.iter().any(|&v| self.net.credits_landed(base + v) > 0) {
                    return (vec![], "the injection channel".into());
                }
                let port_name = net.mesh.port_name(PortId(port as u8));
                (vcs.iter().map(|&v| Vertex::Input(first + v)).collect(), format!("a credit on router {router} input {port_name}"))
            }
        }
    }

    fn describe(&self, v: Vertex) -> BlockedResource {
        let net = self.net;
        let (_, waiting_for) = self.edges(v);
        let packet_ref = |id: u32| {
            let p = net.packets[id as usize];
            PacketRef { id, src: p.src, dst: p.dst, flits: p.len }
        };
        let distinct = |ids: Vec<u32>| {
            let mut out: Vec<PacketRef> = Vec::new();
            for id in ids {
                if out.last().map(|p| p.id) != Some(id) {
                    out.push(packet_ref(id));
                }
            }
            out
        };
        match v {
            Vertex::Input(i) => {
                let r = self.router_of_ivc(i);
                let local = i - r * net.ports * net.vcs;
                let (x, y) = net.mesh.coords(RouterId(r as u32));
                let vc = self.ivc(i);
                // The front flit, then the ring behind it.
                let behind = (1..vc.len).map(|k| net.buf[net.slot(i, (vc.head + k - 1) & net.buf_mask as u16)].packet);
                let ids = (vc.len > 0).then_some(vc.front.packet).into_iter().chain(behind).collect();
                BlockedResource {
                    kind: "router_input",
                    name: None,
                    router: Some(r as u32),
                    x: Some(x),
                    y: Some(y),
                    port: Some(net.mesh.port_name(PortId((local / net.vcs) as u8))),
                    vc: Some((local % net.vcs) as u8),
                    node: None,
                    flits: u32::from(vc.len),
                    capacity: net.depth as u32,
                    packets: distinct(ids),
                    waiting_for,
                }
            }
            Vertex::Eject(q) => {
                let len = net.ej_len[q] as usize;
                let ids = (0..len)
                    .map(|k| net.ej_buf[q * net.eject_depth + (net.ej_head[q] as usize + k) % net.eject_depth].packet)
                    .collect();
                BlockedResource {
                    kind: "ejection_queue",
                    name: self.owner_of(q / net.vcs).map(|o| o.ejection.clone()),
                    router: None,
                    x: None,
                    y: None,
                    port: None,
                    vc: Some((q % net.vcs) as u8),
                    node: Some((q / net.vcs) as u32),
                    flits: len as u32,
                    capacity: net.eject_depth as u32,
                    packets: distinct(ids),
                    waiting_for,
                }
            }
            Vertex::Inject(n) => {
                let node = &net.nodes[n];
                BlockedResource {
                    kind: "injection",
                    name: self.owner_of(n).map(|o| o.injection.clone()),
                    router: None,
                    x: None,
                    y: None,
                    port: None,
                    vc: node.inj_vc,
                    node: Some(n as u32),
                    flits: node.queued_flits as u32,
                    capacity: 0,
                    packets: node.source.front().map(|&id| distinct(vec![id])).unwrap_or_default(),
                    waiting_for,
                }
            }
        }
    }

    /// Depth-first search for a cycle in the wait-for graph, starting from each blocked resource in turn.
    fn find_cycle(&self, starts: &[Vertex]) -> Option<Vec<Vertex>> {
        use std::collections::HashMap;
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            OnStack,
            Done,
        }
        let mut mark: HashMap<Vertex, Mark> = HashMap::new();
        for &s in starts {
            if mark.contains_key(&s) {
                continue;
            }
            // Stack of (vertex, its successors, next successor to visit).
            let mut stack: Vec<(Vertex, Vec<Vertex>, usize)> = vec![(s, self.edges(s).0, 0)];
            mark.insert(s, Mark::OnStack);
            while let Some(top) = stack.last_mut() {
                if top.2 < top.1.len() {
                    let next = top.1[top.2];
                    top.2 += 1;
                    match mark.get(&next) {
                        Some(Mark::OnStack) => {
                            let from = stack.iter().position(|(v, _, _)| *v == next).expect("on stack");
                            return Some(stack[from..].iter().map(|(v, _, _)| *v).collect());
                        }
                        Some(Mark::Done) => {}
                        None => {
                            mark.insert(next, Mark::OnStack);
                            let succ = self.edges(next).0;
                            stack.push((next, succ, 0));
                        }
                    }
                } else {
                    let (v, _, _) = stack.pop().expect("non-empty");
                    mark.insert(v, Mark::Done);
                }
            }
        }
        None
    }

    /// Follows first edges from `start` until a dead end (or a repeat), for the no-cycle report.
    fn chain_from(&self, start: Vertex) -> Vec<Vertex> {
        let mut chain = vec![start];
        while let Some(&next) = self.edges(*chain.last().expect("non-empty")).0.first() {
            if chain.contains(&next) || chain.len() > 4096 {
                break;
            }
            chain.push(next);
        }
        chain
    }
}

/// Builds the report for a network that has stopped moving.
pub(crate) fn diagnose(net: &Network) -> DeadlockReport {
    diagnose_with(net, &[])
}

/// Like [`diagnose`], with what the nodes' owners know (indexed by node).
pub(crate) fn diagnose_with(net: &Network, owners: &[Option<NodeOwner>]) -> DeadlockReport {
    let graph = Graph { net, owners, pending: net.pending_allocation() };
    let mut starts: Vec<Vertex> = (0..net.nodes.len()).filter(|&n| !net.nodes[n].source.is_empty()).map(Vertex::Inject).collect();
    starts.extend((0..net.ivc.len()).filter(|&i| net.ivc[i].len > 0).map(Vertex::Input));
    starts.extend((0..net.ej_len.len()).filter(|&q| net.ej_len[q] > 0).map(Vertex::Eject));
    let (wait_cycle, chain) = match graph.find_cycle(&starts) {
        Some(cycle) => (cycle.iter().map(|&v| graph.describe(v)).collect(), Vec::new()),
        None => {
            let longest = starts.iter().map(|&s| graph.chain_from(s)).max_by_key(|c| c.len()).unwrap_or_default();
            (Vec::new(), longest.iter().map(|&v| graph.describe(v)).collect())
        }
    };
    DeadlockReport {
        cycle: net.now,
        stalled_cycles: net.now - net.last_progress,
        flits_in_network: net.flits_in_network,
        wait_cycle,
        chain,
    }
}
