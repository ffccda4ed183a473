//! Communication profiles for NoCMsg's flow-control elimination (`nocmsg run --comm-profile FILE`; docs/fc-plan.md).
//!
//! libnocmsg (UDN builds, `lib/src/fc.c`) reports every point-to-point send and receive of the program and every
//! collective on a communicator of all ranks through semihosting `NOCMSG_SYS_PROFILE`; each core keeps its records
//! ([`Record`]). [`CommProfile::build`] turns them into communication regions (the stretches between two such
//! collectives), each with its transfers (source, sink, tag, size, blocking or not, synchronous or not, calling site,
//! and the directional links its path takes under the chip's dimension-order routing) and receives, in every rank's
//! program order, which is what `nocmsg fc-plan` needs.

use crate::config::ChipConfig;
use crate::diagnose::Symbols;
use serde::{Deserialize, Serialize};

/// Record kinds (`lib/src/fc.c`).
pub const REC_SEND: u64 = 1;
pub const REC_RECV: u64 = 2;
pub const REC_REGION: u64 = 3;
pub const REC_CROSSED: u64 = 4;
/// Flags of a record.
pub const F_BLOCKING: u64 = 1;
pub const F_SYNC: u64 = 2;
pub const F_RAW: u64 = 4;
pub const F_ANY_SOURCE: u64 = 8;
pub const F_ANY_TAG: u64 = 16;
/// The send or receive is half of a `sendrecv`.
pub const F_EXCHANGE: u64 = 32;

/// One record, as the library reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub cycle: u64,
    pub kind: u64,
    pub region: u64,
    pub peer: u64,
    pub tag: u64,
    pub bytes: u64,
    pub flags: u64,
    pub site: u64,
    /// The collective's name, for [`REC_REGION`].
    pub name: Option<String>,
}

/// A program's communication, region by region.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommProfile {
    pub format: String,
    pub chip: String,
    pub program: String,
    pub ranks: usize,
    pub mesh: [u32; 3],
    pub routing: String,
    /// The tile each rank runs on.
    pub rank_tiles: Vec<usize>,
    /// Words each UDN receive queue holds (`ni.udn.demux_queue_words`): how many ready tokens a released all-to-all
    /// may leave waiting at a rank (`nocmsg fc-plan`, rule C3). Absent in profiles of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demux_queue_words: Option<u32>,
    pub regions: Vec<Region>,
}

/// The communication between two collectives on every rank's communicator (region `index` ends with the
/// `index + 1`-th such collective, `ends_with`; the last one ends with the program).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Region {
    pub index: u64,
    pub ends_with: Option<String>,
    pub transfers: Vec<Transfer>,
    pub receives: Vec<Receive>,
}

/// A point-to-point send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transfer {
    pub src: usize,
    pub dst: usize,
    pub tag: i64,
    pub bytes: u64,
    /// A blocking call (send, ssend, sendrecv's send...), or a non-blocking one (isend...).
    pub blocking: bool,
    /// Synchronous (ssend): it waits for the receiver in any case.
    pub sync: bool,
    /// The program asked for the non-flow-controlled path itself (xsend, xchg).
    pub raw: bool,
    /// A non-blocking send still under way when the region's collective began (rule R1).
    pub crosses_region: bool,
    /// The send half of a `sendrecv` (which the library may run as a rank-ordered exchange, relaxation C1).
    #[serde(default)]
    pub exchange: bool,
    /// Position among the sender's calls in the region (sends and receives), from 0.
    pub seq: usize,
    /// The calling site (`function+0xoffset` of the return address) and its address.
    pub site: String,
    pub pc: u64,
    /// The directional links of its path: `inject t`, `x,y>x',y'`, `eject t`.
    pub links: Vec<String>,
}

/// A point-to-point receive as posted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Receive {
    pub rank: usize,
    /// The source rank, or -1 for any source.
    pub src: i64,
    /// The tag, or -1 for any tag.
    pub tag: i64,
    pub blocking: bool,
    pub seq: usize,
    pub site: String,
    pub pc: u64,
}

/// The directional links a packet from `src` to `dst` (tiles) takes under dimension-order routing (`xy`: X first,
/// `yx`: Y first); an error for other routings, whose paths a profile cannot know in advance.
pub fn route_links(config: &ChipConfig, src: usize, dst: usize) -> Result<Vec<String>, String> {
    let (w, c) = (config.mesh.width as usize, config.mesh.concentration as usize);
    let (sr, dr) = (src / c, dst / c);
    let (mut x, mut y) = (sr % w, sr / w);
    let (dx, dy) = (dr % w, dr / w);
    let x_first = match config.network.routing.as_str() {
        "xy" => true,
        "yx" => false,
        other => {
            return Err(format!(
                "network.routing = {other}: a communication profile needs dimension-order routing (xy or yx)"
            ))
        }
    };
    let mut links = vec![format!("inject {src}")];
    let step = |links: &mut Vec<String>, nx: usize, ny: usize, x: &mut usize, y: &mut usize| {
        links.push(format!("{},{}>{},{}", x, y, nx, ny));
        *x = nx;
        *y = ny;
    };
    for phase in 0..2 {
        if (phase == 0) == x_first {
            while x != dx {
                let nx = if dx > x { x + 1 } else { x - 1 };
                step(&mut links, nx, y, &mut x, &mut y);
            }
        } else {
            while y != dy {
                let ny = if dy > y { y + 1 } else { y - 1 };
                step(&mut links, x, ny, &mut x, &mut y);
            }
        }
    }
    links.push(format!("eject {dst}"));
    Ok(links)
}

impl CommProfile {
    /// The profile of a run: `records[rank]` are the rank's records in program order.
    pub fn build(
        config: &ChipConfig,
        program: &str,
        rank_tiles: &[usize],
        records: &[Vec<Record>],
        symbols: &Symbols,
    ) -> Result<CommProfile, String> {
        let ranks = rank_tiles.len();
        // Region numbers come from the program: each must be one its rank reached by ending as many regions (a
        // corrupted number must not size the table).
        for (rank, recs) in records.iter().enumerate() {
            let mut ended = 0u64;
            for r in recs {
                if r.region > ended {
                    return Err(format!(
                        "rank {rank} reported a record in region {} after ending {ended} regions",
                        r.region
                    ));
                }
                ended += u64::from(r.kind == REC_REGION);
            }
        }
        let regions_seen = records.iter().flatten().map(|r| r.region + 1).max().unwrap_or(1);
        let mut regions: Vec<Region> = (0..regions_seen)
            .map(|index| Region { index, ends_with: None, transfers: Vec::new(), receives: Vec::new() })
            .collect();
        let site = |pc: u64| symbols.describe(pc, pc.saturating_sub(1));
        for (rank, recs) in records.iter().enumerate() {
            let mut seq = 0;
            let mut last_region = 0;
            // Send records by number (from 1), to mark those that cross a region.
            let mut sends: Vec<(usize, usize)> = Vec::new();
            for r in recs {
                if r.region != last_region {
                    seq = 0;
                    last_region = r.region;
                }
                let region = r.region as usize;
                match r.kind {
                    REC_SEND => {
                        let dst = r.peer as usize;
                        if dst >= ranks {
                            return Err(format!("rank {rank} reported a send to rank {dst} of {ranks}"));
                        }
                        let links = route_links(config, rank_tiles[rank], rank_tiles[dst])?;
                        sends.push((region, regions[region].transfers.len()));
                        regions[region].transfers.push(Transfer {
                            src: rank,
                            dst,
                            tag: r.tag as i64,
                            bytes: r.bytes,
                            blocking: r.flags & F_BLOCKING != 0,
                            sync: r.flags & F_SYNC != 0,
                            raw: r.flags & F_RAW != 0,
                            crosses_region: false,
                            exchange: r.flags & F_EXCHANGE != 0,
                            seq,
                            site: site(r.site),
                            pc: r.site,
                            links,
                        });
                        seq += 1;
                    }
                    REC_RECV => {
                        regions[region].receives.push(Receive {
                            rank,
                            src: if r.flags & F_ANY_SOURCE != 0 { -1 } else { r.peer as i64 },
                            tag: if r.flags & F_ANY_TAG != 0 { -1 } else { r.tag as i64 },
                            blocking: r.flags & F_BLOCKING != 0,
                            seq,
                            site: site(r.site),
                            pc: r.site,
                        });
                        seq += 1;
                    }
                    REC_CROSSED => {
                        let (reg, at) = *sends.get((r.peer as usize).wrapping_sub(1)).ok_or_else(|| {
                            format!("rank {rank} marked send {} as crossing a region, which it never reported", r.peer)
                        })?;
                        regions[reg].transfers[at].crosses_region = true;
                    }
                    REC_REGION => {
                        if rank == 0 {
                            regions[region].ends_with = r.name.clone();
                        }
                    }
                    other => return Err(format!("rank {rank} reported a profile record of kind {other}")),
                }
            }
        }
        Ok(CommProfile {
            format: "nocmsg-comm-profile-1".into(),
            chip: config.name.clone(),
            program: program.into(),
            ranks,
            mesh: [config.mesh.width, config.mesh.height, config.mesh.concentration],
            routing: config.network.routing.clone(),
            rank_tiles: rank_tiles.to_vec(),
            demux_queue_words: config.ni.udn.as_ref().map(|u| u.demux_queue_words),
            regions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(routing: &str, width: u32, concentration: u32) -> ChipConfig {
        let text = format!(
            "name = \"t\"\n[mesh]\nwidth = {width}\nheight = 3\nconcentration = {concentration}\n[core]\nfrequency_mhz = 1000\nmemory_kib = 64\nstack_kib = 8\n[network]\nrouting = \"{routing}\"\n[ni]\nkind = \"udn\"\n"
        );
        toml::from_str(&text).unwrap()
    }

    #[test]
    fn xy_and_yx_routes_name_every_directional_link() {
        let xy = config("xy", 3, 1);
        assert_eq!(
            route_links(&xy, 0, 8).unwrap(),
            ["inject 0", "0,0>1,0", "1,0>2,0", "2,0>2,1", "2,1>2,2", "eject 8"]
        );
        let yx = config("yx", 3, 1);
        assert_eq!(
            route_links(&yx, 8, 0).unwrap(),
            ["inject 8", "2,2>2,1", "2,1>2,0", "2,0>1,0", "1,0>0,0", "eject 0"]
        );
        // Two cores on one router: no mesh link between them.
        let conc = config("xy", 3, 2);
        assert_eq!(route_links(&conc, 0, 1).unwrap(), ["inject 0", "eject 1"]);
        assert!(route_links(&config("odd-even", 3, 1), 0, 1).unwrap_err().contains("dimension-order"));
    }

    /// Regression (review of the UDN work): a region number the program made up sized the region table (a huge
    /// allocation, or an overflow at u64::MAX); it is an error naming the rank.
    #[test]
    fn a_region_number_no_rank_reached_is_an_error_not_a_huge_table() {
        let record = |kind, region| Record {
            cycle: 0,
            kind,
            region,
            peer: 0,
            tag: 0,
            bytes: 8,
            flags: 0,
            site: 0,
            name: (kind == REC_REGION).then(|| "barrier".to_string()),
        };
        let cfg = config("xy", 3, 1);
        let ok = vec![vec![record(REC_SEND, 0), record(REC_REGION, 0), record(REC_SEND, 1)]];
        let profile = CommProfile::build(&cfg, "p", &[0], &ok, &Symbols::default()).unwrap();
        assert_eq!(profile.regions.len(), 2);
        for region in [2, 1 << 40, u64::MAX] {
            let bad = vec![vec![record(REC_REGION, 0), record(REC_SEND, region)]];
            let err = CommProfile::build(&cfg, "p", &[0], &bad, &Symbols::default()).unwrap_err();
            assert!(err.contains("rank 0 reported a record in region") && err.contains("after ending 1 regions"), "{err}");
        }
    }
}
