//! `nocmsg fc-plan`: NoCMsg's flow-control elimination, automated (docs/fc-plan.md).
//!
//! NoCMsg (Zimmer and Mueller) drops flow control where a communication region provably cannot deadlock without it,
//! by four rules that keep it (R1-R4) and two relaxations (C1, C2); the paper applied them by hand. Here they run on
//! a communication profile (`nocmsg run --comm-profile`): for every send of every region, the plan says whether it
//! may go without flow control (written straight into the network, no handshake) or must keep it, and why.
//!
//! Without flow control a send stalls its core until the network takes its last word, and a stalled core drains
//! nothing. A region is safe when no stalled sender can wait, through the network, for a core that is itself stalled
//! sending. The rules keep flow control on every send that could be part of such a wait:
//!
//! - **R1** asynchronous communication across a collective: a non-blocking send still under way when the region's
//!   collective began (its words would meet the collective's traffic in the next region, which the plan does not see).
//! - **R2** shared sink: two or more sources send to one sink in the region (a stalled sink could hold one source's
//!   packet in its input queue while it waits for another's).
//! - **R3** shared directional link: the paths of two sends from different sources share a directional mesh link
//!   (one packet holds the link while it waits at its sink, and the other waits behind it).
//! - **R4** circular chains: the sends form a cycle of sources and sinks (A to B, B to C, C to A: each stalled on the
//!   next; a pair exchanging is a cycle of two, NoCMsg's Figure 1).
//! - **C1** relaxes R4 for a pairwise exchange ordered by rank: the lower rank sends and then receives, the higher
//!   receives and then sends (as `nocmsg_xchg` does), so one of the two is always draining.
//! - **C2** relaxes R2 and R3 among the sends into a common sink that sends nothing in the region (the collectives'
//!   gather pattern): it never stalls, so it drains every packet, and a path blocked behind one of them moves on.
//! - **C3** (ours; the paper rewrote such code by hand with `xchg`) releases an all-to-all (`alltoall`,
//!   `alltoallv`) that ends a region, whose transfers are library code the profile does not list: the library runs
//!   it as pairwise exchanges (XOR or round-robin schedule) without flow control, in chunks that each fit a receive
//!   queue and go raw only after the receiver's ready token, between an entry check at run time (every packet
//!   written before it has been read, no rank in the middle of a message) and an exit barrier
//!   (`lib/src/coll/alltoall/released.c` gives the argument). It needs at most 64 ranks, and at most as many ranks
//!   less one as a UDN receive queue holds words (the tokens a rank may be sent wait there).
//!
//! Synchronous sends (`ssend`) wait for their receiver anyway, and sends of a rank to itself must be drained by the
//! sender: both keep flow control. A send the program already made non-flow-controlled (`xsend`, `xchg`) is kept as
//! it is (the plan releases only what has flow control).

use crate::Exit;
use anyhow::{Context, Result};
use chip::profile::{CommProfile, Region, Transfer};
use clap::Args;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

#[derive(Args)]
pub struct FcPlanArgs {
    /// A communication profile (`nocmsg run --comm-profile FILE` on a UDN chip).
    pub profile: PathBuf,
    /// Where to write the plan (JSON; default: the profile's name with .plan.json).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// One call site of one rank in one region: the sends it made there (to one sink, with one tag) and the verdict.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Call {
    pub site: String,
    pub pc: u64,
    pub src: usize,
    pub dst: usize,
    pub tag: i64,
    /// Sends the profile saw there, and the largest.
    pub sends: usize,
    pub max_bytes: u64,
    /// "drop" (no flow control) or "keep".
    pub flow_control: &'static str,
    /// Why: the rules that keep it, or the relaxations that let it go.
    pub reasons: Vec<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RegionPlan {
    pub index: u64,
    pub ends_with: Option<String>,
    /// The verdict on the collective that ends the region, when it is one C3 may release (an all-to-all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collective: Option<CollectiveVerdict>,
    pub calls: Vec<Call>,
}

/// What the plan says of an all-to-all (rule C3): released ("drop") or not ("keep"), and why.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CollectiveVerdict {
    pub operation: String,
    pub flow_control: &'static str,
    pub reasons: Vec<String>,
}

/// The collectives C3 can release: their library code runs `lib/src/coll/alltoall/released.c`.
const RELEASABLE: [&str; 2] = ["alltoall", "alltoallv"];

/// C3: the verdict on the collective ending a region of a profile of `ranks` ranks (None: not an all-to-all).
pub fn judge_collective(profile: &CommProfile, ends_with: Option<&str>) -> Option<CollectiveVerdict> {
    let operation = ends_with.filter(|op| RELEASABLE.contains(op))?;
    let n = profile.ranks;
    let mut keep = Vec::new();
    if n < 2 {
        keep.push("C3: one rank exchanges nothing".into());
    }
    if n > 64 {
        keep.push(format!("C3 runs on up to 64 ranks, not {n}"));
    }
    match profile.demux_queue_words {
        Some(q) if n >= 1 && n - 1 > q as usize => keep.push(format!(
            "C3: a rank may be sent {} ready tokens, more than its receive queue holds ({q} words, \
             ni.udn.demux_queue_words): they would back up into the network",
            n - 1
        )),
        Some(_) => {}
        None => keep.push("C3: the profile does not give the UDN receive queues' size (an older profile)".into()),
    }
    let released = keep.is_empty();
    let reasons = if released {
        vec![format!(
            "C3: the {operation} runs as pairwise exchanges (XOR or round-robin schedule) without flow control, in chunks \
             that each fit a receive queue and go raw only after the receiver's ready token (queue 3), between an \
             entry check at run time (every packet written before it received, no rank in the middle of a message; \
             else it keeps flow control) and an exit barrier: every chunk lands whole in its receiver's queue, so \
             no raw write can wait for a stalled core"
        )]
    } else {
        keep
    };
    Some(CollectiveVerdict {
        operation: operation.to_string(),
        flow_control: if released { "drop" } else { "keep" },
        reasons,
    })
}

#[derive(Debug, Serialize)]
pub struct Plan {
    pub format: &'static str,
    pub profile: String,
    pub program: String,
    pub chip: String,
    pub ranks: usize,
    pub summary: Summary,
    /// What the library reads (lib/src/fc.c): one entry per call, `[region, pc, src, dst, tag, max_bytes, allow]`
    /// (before the regions, so that the library finds it without reading the explanations).
    pub table: Vec<[u64; 7]>,
    pub regions: Vec<RegionPlan>,
}

#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub calls: usize,
    pub dropped: usize,
    pub kept: usize,
    /// Calls kept by each rule (a call may be kept by several).
    pub kept_by: BTreeMap<String, usize>,
    /// All-to-alls that end a region, and those C3 releases.
    pub collectives: usize,
    pub collectives_released: usize,
}

/// The verdicts for one region's sends (by index into `region.transfers`): the reasons each keeps flow control
/// (empty: it may drop it), and the relaxations that applied.
pub fn judge(region: &Region) -> Vec<(Vec<String>, Vec<String>)> {
    let t = &region.transfers;
    let mut verdicts: Vec<(Vec<String>, Vec<String>)> = vec![(Vec::new(), Vec::new()); t.len()];
    // Senders per sink, and which ranks send at all.
    let mut sources_of: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    let senders: BTreeSet<usize> = t.iter().map(|x| x.src).collect();
    for x in t {
        sources_of.entry(x.dst).or_default().insert(x.src);
    }
    // C2: a sink that sends nothing in the region never stalls.
    let draining = |sink: usize| !senders.contains(&sink);
    let cycles = cycle_members(t);
    let exchanges = exchange_transfers(t, &sources_of);
    for (i, x) in t.iter().enumerate() {
        let (keep, relaxed) = &mut verdicts[i];
        if x.sync {
            keep.push("synchronous send: it waits for its receiver in any case".into());
        }
        if x.raw {
            keep.push("already without flow control in the program (xsend/xchg)".into());
        }
        if x.src == x.dst {
            keep.push("a send to itself must be drained by its own core".into());
        }
        if x.crosses_region {
            keep.push(format!(
                "R1: non-blocking send still under way when {} began",
                region.ends_with.as_deref().map_or("the next collective".into(), |c| format!("the collective ({c})"))
            ));
        }
        if exchanges.contains(&i) {
            relaxed.push(format!(
                "C1: sendrecv exchange of ranks {} and {} with nothing else in or out of them, which the library runs in rank order (the lower sends first, the receiving side always drains; relaxes R2, R3 and R4 for its own sends)",
                x.src.min(x.dst),
                x.src.max(x.dst)
            ));
            continue;
        }
        let sources = &sources_of[&x.dst];
        if sources.len() > 1 {
            let others: Vec<String> = sources.iter().filter(|&&s| s != x.src).map(usize::to_string).collect();
            if draining(x.dst) {
                relaxed.push(format!(
                    "C2: sink {} also receives from {} but sends nothing here, so it always drains (relaxes R2)",
                    x.dst,
                    others.join(", ")
                ));
            } else {
                keep.push(format!("R2: sink {} also receives from rank {} in this region", x.dst, others.join(", ")));
            }
        }
        // R3: a mesh link shared with a send from another source (same pair: the sends are serialised anyway).
        let mut shared: BTreeMap<String, BTreeSet<(usize, usize)>> = BTreeMap::new();
        // Exchange sends count as sharers too: one can stand behind another packet while it holds links upstream.
        for y in t.iter().filter(|y| y.src != x.src && (y.src, y.dst) != (x.src, x.dst)) {
            for link in x.links.iter().filter(|l| !l.starts_with("inject") && !l.starts_with("eject")) {
                if y.links.contains(link) {
                    shared.entry(link.clone()).or_default().insert((y.src, y.dst));
                }
            }
        }
        for (link, pairs) in shared {
            let pairs_text: Vec<String> = pairs.iter().map(|(s, d)| format!("{s}->{d}")).collect();
            if pairs.iter().all(|&(_, d)| d == x.dst) && draining(x.dst) {
                relaxed.push(format!(
                    "C2: link {link} is shared only with sends into sink {}, which always drains (relaxes R3)",
                    x.dst
                ));
            } else {
                keep.push(format!("R3: link {link} is shared with {}", pairs_text.join(", ")));
            }
        }
        if let Some(members) = cycles.get(&i) {
            match ordered_pair(region, x) {
                Some(why) => relaxed.push(why),
                None => keep.push(format!(
                    "R4: on a circular chain of ranks {}",
                    members.iter().map(usize::to_string).collect::<Vec<_>>().join(" -> ")
                )),
            }
        }
    }
    verdicts
}

/// The sends (indices) of sendrecv exchanges the library can run in rank order (C1): pairs of ranks whose only
/// traffic in the region is a sendrecv each way with each other.
fn exchange_transfers(t: &[Transfer], sources_of: &BTreeMap<usize, BTreeSet<usize>>) -> BTreeSet<usize> {
    let sinks_of = |r: usize| t.iter().filter(|y| y.src == r).map(|y| y.dst).collect::<BTreeSet<usize>>();
    let only = |set: &BTreeSet<usize>, r: usize| set.len() == 1 && set.contains(&r);
    t.iter()
        .enumerate()
        .filter(|(_, x)| {
            let (a, b) = (x.src, x.dst);
            a != b
                && t.iter()
                    .filter(|y| (y.src, y.dst) == (a, b) || (y.src, y.dst) == (b, a))
                    .all(|y| y.exchange && !y.sync && !y.raw && !y.crosses_region)
                && t.iter().any(|y| (y.src, y.dst) == (b, a))
                && sources_of.get(&a).is_some_and(|s| only(s, b))
                && sources_of.get(&b).is_some_and(|s| only(s, a))
                && only(&sinks_of(a), b)
                && only(&sinks_of(b), a)
        })
        .map(|(i, _)| i)
        .collect()
}

/// For each send on a cycle of the region's source-to-sink graph (a strongly connected component of more than one
/// rank), the ranks of that component.
fn cycle_members(t: &[Transfer]) -> BTreeMap<usize, Vec<usize>> {
    let ranks: BTreeSet<usize> = t.iter().flat_map(|x| [x.src, x.dst]).collect();
    let reach = |from: usize| {
        let mut seen = BTreeSet::from([from]);
        let mut stack = vec![from];
        while let Some(r) = stack.pop() {
            for x in t.iter().filter(|x| x.src == r) {
                if seen.insert(x.dst) {
                    stack.push(x.dst);
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<usize, BTreeSet<usize>> = ranks.iter().map(|&r| (r, reach(r))).collect();
    let mut out = BTreeMap::new();
    for (i, x) in t.iter().enumerate() {
        if x.src != x.dst && reachable[&x.dst].contains(&x.src) {
            // The component: ranks reachable from src that reach back to it.
            let members: Vec<usize> =
                reachable[&x.src].iter().copied().filter(|r| reachable[r].contains(&x.src)).collect();
            out.insert(i, members);
        }
    }
    out
}

/// C1: `x` is one direction of a pairwise exchange ordered by rank (the pair's only cycle): the lower rank's send
/// to the higher comes before its receive from it, and the higher rank's receive from the lower before its send.
fn ordered_pair(region: &Region, x: &Transfer) -> Option<String> {
    let (lo, hi) = (x.src.min(x.dst), x.src.max(x.dst));
    // The pair must be a cycle on its own: no other rank sends to either or receives from either in a chain with them.
    let t = &region.transfers;
    let involved = t.iter().any(|y| {
        (y.src == lo || y.src == hi || y.dst == lo || y.dst == hi)
            && !((y.src, y.dst) == (lo, hi) || (y.src, y.dst) == (hi, lo))
    });
    if involved {
        return None;
    }
    let first = |rank: usize, pred: &dyn Fn(usize) -> bool| -> Option<usize> {
        let sends = t.iter().filter(|y| y.src == rank && pred(y.dst)).map(|y| y.seq);
        sends.min()
    };
    let first_recv = |rank: usize, from: usize| {
        region.receives.iter().filter(|r| r.rank == rank && r.src == from as i64).map(|r| r.seq).min()
    };
    // One send each way: with more, a later round could find both sending at once.
    let sends = |a: usize, b: usize| t.iter().filter(|y| (y.src, y.dst) == (a, b)).count();
    if sends(lo, hi) != 1 || sends(hi, lo) != 1 {
        return None;
    }
    let lo_send = first(lo, &|d| d == hi)?;
    let hi_send = first(hi, &|d| d == lo)?;
    let lo_recv = first_recv(lo, hi)?;
    let hi_recv = first_recv(hi, lo)?;
    let blocking = t.iter().filter(|y| (y.src, y.dst) == (lo, hi) || (y.src, y.dst) == (hi, lo)).all(|y| y.blocking);
    (blocking && lo_send < lo_recv && hi_recv < hi_send).then(|| {
        format!("C1: exchange of ranks {lo} and {hi} ordered by rank (rank {lo} sends first, rank {hi} receives first; relaxes R4)")
    })
}

/// The plan for a whole profile.
pub fn plan(profile: &CommProfile, profile_name: &str) -> Plan {
    let mut regions = Vec::new();
    let mut table = Vec::new();
    let mut summary = Summary::default();
    for region in &profile.regions {
        let verdicts = judge(region);
        // Calls: sends grouped by (site, src, dst, tag); a call drops flow control only if every send of it may.
        let mut calls: BTreeMap<(u64, usize, usize, i64), Call> = BTreeMap::new();
        for (x, (keep, relaxed)) in region.transfers.iter().zip(verdicts) {
            let call = calls.entry((x.pc, x.src, x.dst, x.tag)).or_insert_with(|| Call {
                site: x.site.clone(),
                pc: x.pc,
                src: x.src,
                dst: x.dst,
                tag: x.tag,
                sends: 0,
                max_bytes: 0,
                flow_control: "drop",
                reasons: Vec::new(),
            });
            call.sends += 1;
            call.max_bytes = call.max_bytes.max(x.bytes);
            if !keep.is_empty() {
                call.flow_control = "keep";
            }
            for r in keep.into_iter().chain(relaxed) {
                if !call.reasons.contains(&r) {
                    call.reasons.push(r);
                }
            }
        }
        let mut region_calls: Vec<Call> = calls.into_values().collect();
        for call in &mut region_calls {
            if call.flow_control == "drop" {
                call.reasons.insert(
                    0,
                    "no rule keeps flow control: the send cannot be part of a cycle of stalled cores".into(),
                );
                summary.dropped += 1;
            } else {
                summary.kept += 1;
                // Only the rules that keep it count, not the relaxations.
                let keeping = call
                    .reasons
                    .iter()
                    .filter(|r| !r.starts_with('C'))
                    .filter_map(|r| r.split(':').next())
                    .map(|rule| if rule.starts_with('R') { rule.to_string() } else { "other".to_string() });
                for rule in keeping.collect::<BTreeSet<String>>() {
                    *summary.kept_by.entry(rule).or_default() += 1;
                }
            }
            summary.calls += 1;
            table.push([
                region.index,
                call.pc,
                call.src as u64,
                call.dst as u64,
                call.tag as u64,
                call.max_bytes,
                match call.flow_control {
                    "drop" if call.reasons.iter().any(|r| r.starts_with("C1: sendrecv exchange")) => 2,
                    "drop" => 1,
                    _ => 0,
                },
            ]);
        }
        let collective = judge_collective(profile, region.ends_with.as_deref());
        if let Some(v) = &collective {
            summary.collectives += 1;
            if v.flow_control == "drop" {
                summary.collectives_released += 1;
                // One entry per rank: [region, 0, rank, rank, 0, queue words, 3] (lib/src/fc.c, RELEASE).
                let q = u64::from(profile.demux_queue_words.unwrap_or(0));
                table.extend((0..profile.ranks as u64).map(|r| [region.index, 0, r, r, 0, q, 3]));
            }
        }
        regions.push(RegionPlan {
            index: region.index,
            ends_with: region.ends_with.clone(),
            collective,
            calls: region_calls,
        });
    }
    Plan {
        format: "nocmsg-fc-plan-1",
        profile: profile_name.into(),
        program: profile.program.clone(),
        chip: profile.chip.clone(),
        ranks: profile.ranks,
        summary,
        table,
        regions,
    }
}

/// Pretty JSON with every array of plain numbers on one line (`[0, 2147593274, 0, 1, 1, 800, 0]`): the table stays
/// readable, and short for the library to read.
fn compact_number_arrays(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find(['[', ']', '{', '"']);
        match close {
            Some(k) if after.as_bytes()[k] == b']' => {
                let items: Vec<&str> = after[..k].split(',').map(str::trim).collect();
                if items.iter().all(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit() || b == b'-')) {
                    out.push('[');
                    out.push_str(&items.join(", "));
                    out.push(']');
                    rest = &after[k + 1..];
                    continue;
                }
                out.push('[');
                rest = after;
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

pub fn run(args: FcPlanArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.profile)
        .map_err(|e| Exit::Usage(format!("cannot read {}: {e}", args.profile.display())))?;
    let profile: CommProfile = serde_json::from_str(&text).map_err(|e| {
        Exit::Usage(format!(
            "{} is not a communication profile (nocmsg run --comm-profile): {e}",
            args.profile.display()
        ))
    })?;
    let output = args.output.clone().unwrap_or_else(|| args.profile.with_extension("plan.json"));
    let p = plan(&profile, &args.profile.display().to_string());
    let json = compact_number_arrays(&serde_json::to_string_pretty(&p)?);
    std::fs::write(&output, json + "\n").with_context(|| format!("cannot write {}", output.display()))?;
    let s = &p.summary;
    let by: Vec<String> = s.kept_by.iter().map(|(rule, n)| format!("{rule} {n}")).collect();
    println!(
        "{}: {} calls in {} regions: {} without flow control, {} keep it ({}); {} of {} all-to-alls released (C3)",
        output.display(),
        s.calls,
        p.regions.len(),
        s.dropped,
        s.kept,
        if by.is_empty() { "none".to_string() } else { by.join(", ") },
        s.collectives_released,
        s.collectives
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chip::profile::Receive;

    /// A send from `src` to `dst` on a 4x4 mesh under XY routing (tiles = ranks), at position `seq` of its rank.
    fn send(src: usize, dst: usize, seq: usize) -> Transfer {
        let (sx, sy, dx, dy) = (src % 4, src / 4, dst % 4, dst / 4);
        let mut links = vec![format!("inject {src}")];
        let (mut x, mut y) = (sx, sy);
        while x != dx {
            let nx = if dx > x { x + 1 } else { x - 1 };
            links.push(format!("{x},{y}>{nx},{y}"));
            x = nx;
        }
        while y != dy {
            let ny = if dy > y { y + 1 } else { y - 1 };
            links.push(format!("{x},{y}>{x},{ny}"));
            y = ny;
        }
        links.push(format!("eject {dst}"));
        Transfer {
            src,
            dst,
            tag: 0,
            bytes: 800,
            blocking: true,
            sync: false,
            raw: false,
            crosses_region: false,
            exchange: false,
            seq,
            site: format!("site{src}"),
            pc: 0x1000 + src as u64,
            links,
        }
    }

    fn recv(rank: usize, src: usize, seq: usize) -> Receive {
        Receive { rank, src: src as i64, tag: 0, blocking: true, seq, site: "r".into(), pc: 0x2000 }
    }

    fn region(transfers: Vec<Transfer>, receives: Vec<Receive>) -> Region {
        Region { index: 0, ends_with: Some("barrier".into()), transfers, receives }
    }

    /// The rule (R1..R4, C1, C2, or "free") behind each send's verdict.
    fn rules(r: &Region) -> Vec<String> {
        judge(r)
            .into_iter()
            .map(|(keep, relaxed)| {
                let pick = |v: &[String]| {
                    v.iter().map(|s| s.split(':').next().unwrap().to_string()).collect::<Vec<_>>().join("+")
                };
                if !keep.is_empty() {
                    format!("keep {}", pick(&keep))
                } else if !relaxed.is_empty() {
                    format!("drop {}", pick(&relaxed))
                } else {
                    "drop".into()
                }
            })
            .collect()
    }

    #[test]
    fn lone_sends_on_separate_links_drop_flow_control() {
        // 0 -> 1 and 2 -> 3 (row 0, disjoint links), 4 -> 8 (column 0).
        let r = region(
            vec![send(0, 1, 0), send(2, 3, 0), send(4, 8, 0)],
            vec![recv(1, 0, 0), recv(3, 2, 0), recv(8, 4, 0)],
        );
        assert_eq!(rules(&r), ["drop", "drop", "drop"]);
    }

    #[test]
    fn r1_keeps_a_non_blocking_send_that_crosses_a_collective() {
        let mut t = send(0, 1, 0);
        t.blocking = false;
        t.crosses_region = true;
        let r = region(vec![t, send(2, 3, 0)], vec![]);
        assert_eq!(rules(&r), ["keep R1", "drop"]);
    }

    #[test]
    fn r2_keeps_a_shared_sink_that_also_sends_and_c2_frees_one_that_only_receives() {
        // 0 and 2 send to 1, which sends to 5: sink 1 may stall, so both keep flow control.
        let r = region(vec![send(0, 1, 0), send(2, 1, 0), send(1, 5, 2)], vec![recv(1, 0, 0), recv(1, 2, 1)]);
        assert_eq!(rules(&r)[..2], ["keep R2", "keep R2"]);
        // The same without 1's send: 1 only drains (C2).
        let r = region(vec![send(0, 1, 0), send(2, 1, 0)], vec![recv(1, 0, 0), recv(1, 2, 1)]);
        assert_eq!(rules(&r), ["drop C2", "drop C2"]);
    }

    #[test]
    fn r3_keeps_sends_whose_paths_share_a_directional_link() {
        // 0 -> 2 and 1 -> 3 both take link 1,0>2,0; their sinks differ (and send nothing): R3 holds.
        let r = region(vec![send(0, 2, 0), send(1, 3, 0)], vec![]);
        assert_eq!(rules(&r), ["keep R3", "keep R3"]);
        // Opposite directions of one row share no directional link.
        let r = region(vec![send(0, 3, 0), send(3, 1, 0)], vec![]);
        assert_eq!(rules(&r), ["drop", "drop"]);
        // Paths that meet only on the way into a common sink that only receives: C2.
        let r = region(vec![send(0, 2, 0), send(1, 2, 0)], vec![]);
        assert_eq!(rules(&r), ["drop C2+C2", "drop C2+C2"]);
    }

    #[test]
    fn r4_keeps_circular_chains_and_c1_frees_a_rank_ordered_exchange() {
        // A ring 0 -> 1 -> 5 -> 4 -> 0 (each on its own links).
        let r = region(
            vec![send(0, 1, 0), send(1, 5, 1), send(5, 4, 1), send(4, 0, 1)],
            vec![recv(1, 0, 0), recv(5, 1, 0), recv(4, 5, 0), recv(0, 4, 1)],
        );
        assert_eq!(rules(&r), ["keep R4", "keep R4", "keep R4", "keep R4"]);
        // Exchange of 0 and 1: 0 sends then receives, 1 receives then sends (C1).
        let ordered = region(vec![send(0, 1, 0), send(1, 0, 1)], vec![recv(0, 1, 1), recv(1, 0, 0)]);
        assert_eq!(rules(&ordered), ["drop C1", "drop C1"]);
        // Both send first (Figure 1): R4.
        let both = region(vec![send(0, 1, 0), send(1, 0, 0)], vec![recv(0, 1, 1), recv(1, 0, 1)]);
        assert_eq!(rules(&both), ["keep R4", "keep R4"]);
        // Ordered, but by non-blocking sends (sendrecv): not C1.
        let mut a = send(0, 1, 0);
        a.blocking = false;
        let nb = region(vec![a, send(1, 0, 1)], vec![recv(0, 1, 1), recv(1, 0, 0)]);
        assert_eq!(rules(&nb), ["keep R4", "keep R4"]);
    }

    #[test]
    fn c1_lets_isolated_sendrecv_exchanges_go_in_rank_order_even_over_shared_links() {
        // Pairs 0<->2 and 1<->3 on row 0 by sendrecv: their paths share links (1,0>2,0 and 2,0>1,0) but each pair
        // talks only to itself: both run as rank-ordered exchanges (allow 2 in the table).
        let mut t = vec![send(0, 2, 1), send(2, 0, 1), send(1, 3, 1), send(3, 1, 1)];
        t.iter_mut().for_each(|x| x.exchange = true);
        let r = region(t.clone(), vec![]);
        assert_eq!(rules(&r), ["drop C1", "drop C1", "drop C1", "drop C1"]);
        let profile = CommProfile {
            format: "nocmsg-comm-profile-1".into(),
            chip: "t".into(),
            program: "p".into(),
            ranks: 16,
            mesh: [4, 4, 1],
            routing: "xy".into(),
            rank_tiles: (0..16).collect(),
            demux_queue_words: Some(32),
            regions: vec![r],
        };
        assert!(plan(&profile, "p").table.iter().all(|row| row[6] == 2));
        // A third rank also sending to 2: not an isolated pair, so the ring rules apply again.
        t.push(send(5, 2, 0));
        let r = region(t, vec![]);
        assert!(rules(&r)[0].starts_with("keep"), "{:?}", rules(&r));
        // One side by plain send: not an exchange the library runs.
        let mut half = vec![send(0, 1, 0), send(1, 0, 1)];
        half[0].exchange = true;
        assert_eq!(rules(&region(half, vec![])), ["keep R4", "keep R4"]);
    }

    /// Regression (review of 10991a7): exchange sends were not counted as R3 sharers of other sends, and this
    /// MPI-safe program deadlocked under its plan on udn-4x4: 0 and 3 exchange by sendrecv; 2 -> 7 shares link
    /// 2,0>3,0 with 0 -> 3, and 1 -> 6 shares link 1,0>2,0 with it, while 7 sends to 1 before receiving.
    #[test]
    fn exchange_sends_still_count_as_link_sharers_of_other_sends() {
        let mut a = send(0, 3, 1);
        let mut b = send(3, 0, 1);
        a.exchange = true;
        b.exchange = true;
        let r = region(
            vec![a, b, send(7, 1, 0), send(2, 7, 0), send(1, 6, 0)],
            vec![recv(7, 2, 1), recv(1, 7, 1), recv(6, 1, 0)],
        );
        let v = rules(&r);
        assert_eq!(&v[..2], ["drop C1", "drop C1"], "{v:?}");
        assert!(v[3].starts_with("keep") && v[3].contains("R3"), "2 -> 7 shares 2,0>3,0 with the exchange: {v:?}");
        assert!(v[4].starts_with("keep") && v[4].contains("R3"), "1 -> 6 shares 1,0>2,0 with the exchange: {v:?}");
    }

    /// C1 for plain sends holds only for one send each way: with two rounds a later one may find both sending.
    #[test]
    fn c1_needs_a_single_round() {
        // lo: send, recv, send, recv; hi: recv, send, send, recv.
        let r = region(
            vec![send(0, 1, 0), send(0, 1, 2), send(1, 0, 1), send(1, 0, 2)],
            vec![recv(0, 1, 1), recv(0, 1, 3), recv(1, 0, 0), recv(1, 0, 3)],
        );
        assert!(rules(&r).iter().all(|v| v == "keep R4"), "{:?}", rules(&r));
    }

    #[test]
    fn synchronous_raw_and_self_sends_keep_their_way() {
        let mut s = send(0, 1, 0);
        s.sync = true;
        let mut x = send(2, 3, 0);
        x.raw = true;
        let r = region(vec![s, x, send(5, 5, 0)], vec![]);
        let verdicts = rules(&r);
        assert!(verdicts.iter().all(|v| v.starts_with("keep")), "{verdicts:?}");
    }

    #[test]
    fn a_call_drops_flow_control_only_if_every_send_of_it_may() {
        // Two sends of one call (same site, source, sink, tag): the second crosses the region.
        let mut late = send(0, 1, 1);
        late.blocking = false;
        late.crosses_region = true;
        let profile = CommProfile {
            format: "nocmsg-comm-profile-1".into(),
            chip: "t".into(),
            program: "p".into(),
            ranks: 16,
            mesh: [4, 4, 1],
            routing: "xy".into(),
            rank_tiles: (0..16).collect(),
            demux_queue_words: Some(32),
            regions: vec![region(vec![send(0, 1, 0), late], vec![])],
        };
        let p = plan(&profile, "p.json");
        assert_eq!(p.regions[0].calls.len(), 1);
        assert_eq!(p.regions[0].calls[0].flow_control, "keep");
        assert_eq!(p.table, vec![[0, 0x1000, 0, 1, 0, 800, 0]]);
        assert_eq!(
            p.summary,
            Summary { calls: 1, dropped: 0, kept: 1, kept_by: BTreeMap::from([("R1".to_string(), 1)]), ..Default::default() }
        );
        let text = compact_number_arrays(&serde_json::to_string_pretty(&p).unwrap());
        assert!(text.contains("[0, 4096, 0, 1, 0, 800, 0]"), "{text}");
        assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
    }

    #[test]
    fn c3_releases_all_to_alls_on_rank_counts_whose_tokens_fit_the_queue() {
        let profile = |ranks: usize, queue: Option<u32>| CommProfile {
            format: "nocmsg-comm-profile-1".into(),
            chip: "t".into(),
            program: "p".into(),
            ranks,
            mesh: [8, 8, 1],
            routing: "xy".into(),
            rank_tiles: (0..ranks).collect(),
            demux_queue_words: queue,
            regions: ["alltoall", "alltoallv", "allreduce"]
                .iter()
                .enumerate()
                .map(|(i, op)| Region {
                    index: i as u64,
                    ends_with: Some(op.to_string()),
                    transfers: vec![],
                    receives: vec![],
                })
                .collect(),
        };
        let p = plan(&profile(16, Some(32)), "p");
        let verdicts: Vec<Option<&str>> =
            p.regions.iter().map(|r| r.collective.as_ref().map(|v| v.flow_control)).collect();
        assert_eq!(verdicts, [Some("drop"), Some("drop"), None]);
        assert!(p.regions[0].collective.as_ref().unwrap().reasons[0].starts_with("C3: the alltoall runs"));
        assert_eq!((p.summary.collectives, p.summary.collectives_released), (2, 2));
        // One table entry per rank and released all-to-all, allow 3.
        assert_eq!(p.table.len(), 32);
        assert!(p.table.contains(&[1, 0, 5, 5, 0, 32, 3]));
        assert_eq!(plan(&profile(12, Some(32)), "p").summary.collectives_released, 2);
        // Kept: 64 ranks with 32-word queues (63 tokens), 128 ranks, an older profile.
        for (ranks, queue, why) in [
            (128, Some(256), "up to 64 ranks"),
            (64, Some(32), "more than its receive queue holds"),
            (16, None, "does not give"),
        ] {
            let p = plan(&profile(ranks, queue), "p");
            let v = p.regions[0].collective.as_ref().unwrap();
            assert!(v.flow_control == "keep" && v.reasons.iter().any(|r| r.contains(why)), "{ranks}: {v:?}");
            assert!(p.table.is_empty());
        }
        assert_eq!(plan(&profile(64, Some(64)), "p").summary.collectives_released, 2);
    }
}
