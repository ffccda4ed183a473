//! Random instruction words never crash the simulator: every core ends by exiting, stopping with a fault report,
//! or still running at the cycle limit. And fast clocking equals debug clocking on them too. Programs run on an
//! RV64IM chip and on an RV64GC one (every row of the table, compressed parcels, misaligned accesses faulting or
//! split).

use chip::chip::{Event, RunEnd, RunOptions};
use chip::elf::Program;
use chip::{Chip, ChipConfig};
use proptest::prelude::*;

mod common;

/// The fuzzing chip with cores of `isa`, misaligned accesses faulting or performed.
fn chip(isa: &str, misaligned: &str) -> String {
    format!(
        r#"
    name = "fuzz"
    mesh = {{ width = 2, height = 2 }}
    core = {{ frequency_mhz = 100, memory_kib = 64, stack_kib = 8, isa = "{isa}", misaligned_access = "{misaligned}" }}
"#
    )
}

const SEMIHOSTING_CALL: [u32; 3] = [0x01f0_1013, 0x0010_0073, 0x4070_5013];

/// A word: fully random, or a random instance of a table row (free bits random), or a semihosting call.
fn word() -> impl Strategy<Value = Vec<u32>> {
    prop_oneof![
        2 => any::<u32>().prop_map(|w| vec![w]),
        12 => (0..riscv::isa::INSTRUCTIONS.len(), any::<u32>()).prop_map(|(row, bits)| {
            let s = &riscv::isa::INSTRUCTIONS[row];
            vec![s.match_bits | (bits & !s.mask)]
        }),
        // Two random compressed parcels (rows of the RVC table, free bits random) in one word.
        3 => ((0..riscv::rvc::COMPRESSED.len(), any::<u16>()), (0..riscv::rvc::COMPRESSED.len(), any::<u16>())).prop_map(|(a, b)| {
            let parcel = |(row, bits): (usize, u16)| {
                let s = &riscv::rvc::COMPRESSED[row];
                u32::from(s.match_bits | (bits & !s.mask))
            };
            vec![parcel(a) | parcel(b) << 16]
        }),
        // A semihosting call with a random operation number (a1 points into memory thanks to the prologue).
        2 => (0u32..0x33).prop_map(|op| {
            let mut w = vec![op << 20 | 10 << 7 | 0x13]; // addi a0, zero, op
            w.extend(SEMIHOSTING_CALL);
            w
        }),
    ]
}

/// Points every register but `sp` into memory first (`lui r, 0x80000 + k; slli r, r, 32; srli r, r, 32`), so
/// random loads, stores and jumps often hit real memory instead of faulting at once. `sp` keeps the top of memory
/// the loader gave it: anywhere lower is below the stack reservation, which stops the core at once.
fn prologue() -> Vec<u32> {
    let mut words = Vec::new();
    for r in (1..32u32).filter(|&r| r != 2) {
        let upper = 0x80000 + (r % 16);
        words.push(upper << 12 | r << 7 | 0x37);
        words.push(32 << 20 | r << 15 | 1 << 12 | r << 7 | 0x13);
        words.push(32 << 20 | r << 15 | 5 << 12 | r << 7 | 0x13);
    }
    words
}

fn program(words: &[u32]) -> Program {
    let data: Vec<u8> = prologue().iter().chain(words).flat_map(|w| w.to_le_bytes()).collect();
    common::raw_program("random", data, riscv::isa::Isa::RV64IM)
}

fn run(words: &[u32], chip_text: &str, debug: bool, dir: &std::path::Path) -> (RunEnd, serde_json::Value, Vec<(u64, usize, Vec<u8>)>) {
    let config = ChipConfig::parse(chip_text, "fuzz").unwrap();
    let options = RunOptions { tiles: (0..4).collect(), args: vec![], debug_clocking: debug, max_cycles: 3_000, work_dir: dir.to_path_buf(), profile: false, background: vec![], env: vec![], comm_profile: false, memory: Default::default(), perturb: None };
    let mut chip = Chip::new(config, &program(words), options).unwrap();
    let mut lines = Vec::new();
    let (end, stats) = chip.run(&mut |e| {
        if let Event::Console(l) = e {
            lines.push((l.cycle, l.core, l.text.clone()));
        }
    });
    let mut json = serde_json::to_value(&stats).unwrap();
    let obj = json.as_object_mut().unwrap();
    obj.remove("host");
    obj.remove("clocking");
    (end, json, lines)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_words_never_crash_and_clockings_agree(
        words in prop::collection::vec(word(), 1..200),
        isa in prop::sample::select(vec!["rv64im", "rv64gc", "rv64imac"]),
        split in any::<bool>(),
    ) {
        let words: Vec<u32> = words.into_iter().flatten().collect();
        let chip_text = chip(isa, if split { "split" } else { "fault" });
        // Semihosting file operations of random code land in a scratch directory.
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-work-dir");
        std::fs::create_dir_all(&dir).unwrap();
        let (end, stats, lines) = run(&words, &chip_text, false, &dir);
        for core in stats["cores"].as_array().unwrap() {
            let state = core["state"].as_str().unwrap();
            prop_assert!(["exited", "faulted", "running"].contains(&state), "{core}");
            if state == "faulted" {
                prop_assert!(!core["fault"]["reason"].as_str().unwrap().is_empty());
            }
        }
        if let RunEnd::CycleLimit { cycle, .. } = &end {
            prop_assert_eq!(*cycle, 3_000);
        }
        let (end_debug, stats_debug, lines_debug) = run(&words, &chip_text, true, &dir);
        prop_assert_eq!(end, end_debug);
        prop_assert_eq!(stats, stats_debug);
        prop_assert_eq!(lines, lines_debug);
    }
}
