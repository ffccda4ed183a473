//! The memory an MPI program loses to libnocmsg and the MPI layer before it does anything (issue 14: the layer's
//! fixed state took about 470 KB of static data, a 2048-entry communicator table twice over, so a class S NAS IS
//! needed 2 MiB per core). It must stay within 64 KiB: the static data (`.data`, `.bss` and the like) the library
//! adds to a program, plus the heap it has taken when `MPI_Init` returns.
//!
//! `tests/sim/mpi_footprint.c` is built twice with `bin/nocmsg-cc`: as an MPI program, and with `-DNO_MPI` making
//! the same libc calls without MPI. The difference in their writable segments is the library's static data. The MPI
//! build then runs on every core of pimp-4x4 (16 ranks), pimp-8x8 (64) and a 32x32 mesh (1024: pimp-32x32 with at
//! least 1 MiB per core, since the program's code alone does not fit its smaller memory), and prints how far the
//! heap's break moved during `MPI_Init` on the rank where it moved most. Per-rank state (a table entry per peer)
//! grows with the rank count, so the largest chip is the one that counts.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The limit on static data plus heap after `MPI_Init`.
const LIMIT_BYTES: u64 = 64 * 1024;

struct Builds {
    mpi: PathBuf,
    no_mpi: PathBuf,
    dir: PathBuf,
}

fn builds() -> &'static Builds {
    static BUILDS: OnceLock<Builds> = OnceLock::new();
    BUILDS.get_or_init(|| {
        let dir = scratch("mpi-footprint");
        let source = root().join("tests/sim/mpi_footprint.c");
        let builds = Builds { mpi: dir.join("footprint.elf"), no_mpi: dir.join("footprint-no-mpi.elf"), dir };
        for (flags, out) in [(&[][..], &builds.mpi), (&["-DNO_MPI"][..], &builds.no_mpi)] {
            run_checked(
                Command::new(root().join("bin/nocmsg-cc"))
                    .args(["-O2", "-Wall", "-Werror"])
                    .args(flags)
                    .arg(&source)
                    .arg("-o")
                    .arg(out),
                &format!("nocmsg-cc {} tests/sim/mpi_footprint.c", flags.join(" ")),
            );
        }
        builds
    })
}

/// Bytes of the program's writable segments in memory: its static data, initialised and zeroed.
fn static_bytes(elf: &Path) -> u64 {
    let program = chip::Program::load(elf).unwrap_or_else(|e| panic!("{e}"));
    program.segments.iter().filter(|s| !s.executable).map(|s| s.mem_size).sum()
}

/// What libnocmsg and the MPI layer add to a program's static data.
fn library_static_bytes() -> u64 {
    let b = builds();
    static_bytes(&b.mpi) - static_bytes(&b.no_mpi)
}

/// Heap taken by `MPI_Init` on the rank where it took most, running on every core of `chip_file`.
fn heap_after_init(chip_file: &str) -> u64 {
    let out = Command::new(env!("CARGO_BIN_EXE_nocmsg"))
        .args(["run", "--chip", chip_file, "--no-prefix", "--max-cycles", "100000000"])
        .arg(&builds().mpi)
        .output()
        .expect("nocmsg runs");
    assert!(out.status.success(), "mpi_footprint on {chip_file}\n{}", show(&out));
    let stdout = text(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("heap after MPI_Init: "))
        .unwrap_or_else(|| panic!("no heap line from mpi_footprint on {chip_file}\n{}", show(&out)));
    line.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("bad heap line {line:?}"))
}

/// Static data plus heap within the limit on `ranks` ranks.
fn fits(chip_file: &str, ranks: usize) {
    let static_data = library_static_bytes();
    let heap = heap_after_init(chip_file);
    assert!(
        static_data + heap <= LIMIT_BYTES,
        "on {ranks} ranks an MPI program loses {} bytes to libnocmsg and the MPI layer ({static_data} of static data \
         + {heap} of heap after MPI_Init), over the {LIMIT_BYTES} allowed",
        static_data + heap
    );
}

#[test]
fn mpi_fixed_overhead_fits_in_64_kib_on_16_ranks() {
    fits(&chip("pimp-4x4"), 16);
}

#[test]
fn mpi_fixed_overhead_fits_in_64_kib_on_64_ranks() {
    fits(&chip("pimp-8x8"), 64);
}

#[test]
fn mpi_fixed_overhead_fits_in_64_kib_on_1024_ranks() {
    // pimp-32x32 as shipped, with at least 1 MiB per core.
    let preset = std::fs::read_to_string(chip("pimp-32x32")).expect("chips/pimp-32x32.toml");
    let mut found = false;
    let big: String = preset
        .lines()
        .map(|l| match l.trim().strip_prefix("memory_kib").and_then(|r| r.trim().strip_prefix('=')) {
            Some(kib) => {
                found = true;
                let kib: u64 = kib.split('#').next().unwrap().trim().parse().expect("memory_kib is a number");
                format!("memory_kib = {}\n", kib.max(1024))
            }
            None => format!("{l}\n"),
        })
        .collect();
    assert!(found, "chips/pimp-32x32.toml has no memory_kib line to raise");
    let file = builds().dir.join("pimp-32x32-1mib.toml");
    std::fs::write(&file, big).unwrap();
    fits(&file.display().to_string(), 1024);
}

#[test]
fn the_library_adds_little_static_data() {
    // Most of the 64 KiB is for per-rank state on large chips; the static part is the predefined datatypes and a
    // few small tables.
    let static_data = library_static_bytes();
    assert!(static_data <= 24 * 1024, "libnocmsg and the MPI layer add {static_data} bytes of static data");
}
