//! The host memory a chip needs to start a program, known before [`Chip::new`](crate::Chip::new) allocates it, so
//! that `nocmsg run` can refuse a chip the machine cannot hold instead of aborting halfway through building it.
//!
//! What counts: the network (`noc::NetworkConfig::memory`: buffers per port per VC, channels, per-node queues,
//! statistics, and the packets the buffers and send FIFOs can hold), and per core its fixed state (hart, counters,
//! console, network-interface and scheduler entries, statistics) and the resident part of its private memory: the
//! pages of the program image, which the loader copies and the runtime's start-up code (`runtime/crt0.S`) clears
//! through `.bss`, and the top of the stack. The rest of a core's memory is a lazily zeroed allocation that costs
//! nothing until the program touches it, so what a program allocates and touches while it runs (its heap, a deep
//! stack) is not in the estimate.

use crate::config::{ChipConfig, NiKind};
use crate::core::Core;
use crate::elf::Program;
use crate::ni::NiCounters;
use crate::stats::CoreStats;
use riscv::isa::OP_COUNT;
use riscv::Decoded;
use std::mem::size_of;

/// Host page size: private memory becomes resident a page at a time.
const PAGE_BYTES: u64 = 4096;
/// Stack pages a core touches before it does anything of its own (the runtime's start-up and `main`'s frame).
const STACK_PAGES: u64 = 2;
/// Per core, what the run keeps beside the core itself: the scheduler's entries, its console lines in flight and
/// its entry in `stats.json` (about 700 bytes of JSON) while the statistics are written.
const RUN_BYTES_PER_CORE: u64 = 1536;

/// Where a chip's memory goes (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChipMemory {
    pub cores: u64,
    /// Each core: its state and the resident part of its private memory.
    pub per_core_bytes: u64,
    /// The network with the packets it can hold (0 on chips without a network interface).
    pub network_bytes: u64,
    /// Once per run: the program and its decoded text, the loaded image, the placement of ranks on tiles.
    pub shared_bytes: u64,
}

impl ChipMemory {
    pub fn total_bytes(&self) -> u64 {
        self.cores.saturating_mul(self.per_core_bytes).saturating_add(self.network_bytes).saturating_add(self.shared_bytes)
    }
}

/// Pages the program image occupies (segments sharing a page count it once).
fn image_pages(program: &Program) -> u64 {
    let mut spans: Vec<(u64, u64)> = program
        .segments
        .iter()
        .map(|s| (s.address / PAGE_BYTES, (s.address.saturating_add(s.mem_size)).div_ceil(PAGE_BYTES)))
        .collect();
    spans.sort_unstable();
    let (mut pages, mut covered) = (0u64, 0u64);
    for (first, end) in spans {
        let first = first.max(covered);
        if end > first {
            pages += end - first;
            covered = end;
        }
    }
    pages
}

/// The memory `config` needs to run `program` on `cores` cores (with `profile`: a cycle counter per halfword of
/// program text per core, where an instruction may start).
pub fn estimate(config: &ChipConfig, program: &Program, cores: usize, profile: bool) -> ChipMemory {
    let cores = cores as u64;
    let text_bytes: u64 = program.segments.iter().filter(|s| s.executable).map(|s| s.data.len() as u64).sum();
    // The decoded text and the profile have an entry per halfword (compressed instructions start at any).
    let text_entries = text_bytes / 2;
    let image = image_pages(program).saturating_mul(PAGE_BYTES);
    let core_state = (size_of::<Core>() + size_of::<[u64; OP_COUNT]>() + size_of::<CoreStats>()) as u64;
    let ni_state = (size_of::<NiCounters>() + size_of::<Option<u64>>() + size_of::<u32>() + 3 * size_of::<Option<Decoded>>()) as u64;
    let per_core_bytes = core_state
        + ni_state
        + RUN_BYTES_PER_CORE
        + image.saturating_add(STACK_PAGES * PAGE_BYTES)
        + if profile { text_entries * 8 } else { 0 };
    let network_bytes = match (config.ni.kind, config.network_config()) {
        (NiKind::None, _) | (_, Err(_)) => 0,
        (_, Ok(net)) => {
            let m = net.memory();
            // PIMP words travel as one-flit packets: those the buffers hold and those queued in send FIFOs.
            let packets = m.packets_in_buffers(1).saturating_add(cores.saturating_mul(u64::from(config.ni.send_fifo_entries)));
            m.fixed_bytes.saturating_add(packets.saturating_mul(m.bytes_per_packet))
        }
    };
    // The mpb interface: every rank's MPB share and line cache, and the shared memory (host pages are only used
    // where touched, so this is an upper bound).
    let interface_bytes = if config.ni.kind == NiKind::Mpb {
        let m = config.mpb();
        let share = u64::from(m.mpb_kib) * 1024 / u64::from(config.mesh.concentration);
        cores.saturating_mul(share + u64::from(m.line_cache_kib) * 1024) + config.memory.as_ref().map_or(0, |mem| mem.shared_mib << 20)
    } else {
        0
    };
    let network_bytes = network_bytes.saturating_add(interface_bytes);
    let tiles = config.tiles() as u64;
    let file_bytes: u64 = program.segments.iter().map(|s| s.data.len() as u64).sum();
    let shared_bytes = file_bytes
        + image
        + text_entries * size_of::<Option<Decoded>>() as u64
        + tiles * (size_of::<u32>() + size_of::<bool>()) as u64;
    ChipMemory { cores, per_core_bytes, network_bytes, shared_bytes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::Segment;

    fn program(segments: &[(u64, usize, u64, bool)]) -> Program {
        Program {
            path: "p.elf".into(),
            entry: 0x8000_0000,
            segments: segments
                .iter()
                .map(|&(address, file, mem_size, executable)| Segment { address, data: vec![0; file], mem_size, executable })
                .collect(),
            tls: None,
            boot_block: None,
            image_end: 0,
            functions: Vec::new(),
            debug_frame: Vec::new(),
            wait_sites: Vec::new(),
            wait_record: None,
            library_text: None,
            isa: (riscv::isa::Isa::RV64IM, "test".into()),
        }
    }

    #[test]
    fn image_pages_count_shared_pages_once() {
        // Text 0x2000 + 0x3a0 bytes (3 pages), data from 0x8000_3000 with a .bss to 0x8000_44a0 (2 pages).
        assert_eq!(image_pages(&program(&[(0x8000_0000, 0x23a0, 0x23a0, true), (0x8000_3000, 0x88, 0x14a0, false)])), 5);
        // Two segments in one page, and one inside another.
        assert_eq!(image_pages(&program(&[(0x8000_0000, 8, 8, true), (0x8000_0100, 8, 8, false)])), 1);
        assert_eq!(image_pages(&program(&[(0x8000_0000, 0, 0x10000, false), (0x8000_1000, 8, 8, true)])), 16);
    }

    #[test]
    fn cores_pay_for_their_image_and_chips_for_their_network() {
        let chip = |mesh: &str| {
            ChipConfig::parse(
                &format!("name = \"t\"\nmesh = {{ {mesh} }}\ncore = {{ frequency_mhz = 500, memory_kib = 1024 }}\n[ni]\nkind = \"pimp\"\n"),
                "t.toml",
            )
            .unwrap()
        };
        let small = program(&[(0x8000_0000, 0x1000, 0x1000, true)]);
        let big = program(&[(0x8000_0000, 0x1000, 0x1000, true), (0x8000_1000, 0, 700 << 10, false)]);
        let c = chip("width = 4, height = 4");
        let (s, b) = (estimate(&c, &small, 16, false), estimate(&c, &big, 16, false));
        assert_eq!(b.per_core_bytes - s.per_core_bytes, 175 * PAGE_BYTES, "a 700 KiB .bss is cleared by every core");
        assert!(s.network_bytes > 0 && s.network_bytes == b.network_bytes);
        assert!(estimate(&c, &small, 16, true).per_core_bytes > s.per_core_bytes, "profiles count per core");
        // A chip of 4M tiles with a small program still needs its cores' state: refused long before it is built.
        let huge = chip("width = 1024, height = 1024, concentration = 4");
        let m = estimate(&huge, &small, huge.tiles(), false);
        assert!(m.total_bytes() > 64 << 30, "{m:?}");
    }
}
