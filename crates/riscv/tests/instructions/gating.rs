//! Which instructions and CSRs a hart has: A, F and D instructions decode only on a hart with the extension (and
//! the decoder names the missing one), reserved rounding modes never decode, the FP CSRs exist only with F, and
//! `misa` names the extensions.

use crate::common::asm::{self, Insn};
use crate::common::*;
use riscv::decode::{decode_for, missing_extension};
use riscv::isa::{Extension, Isa, INSTRUCTIONS};
use riscv::{decode, Fault};

pub const GROUPS: &[Group] = &[
    ("a_f_and_d_instructions_need_their_extension", a_f_and_d_instructions_need_their_extension),
    ("reserved_rounding_modes_do_not_decode", reserved_rounding_modes_do_not_decode),
    ("fp_csrs_exist_only_with_f", fp_csrs_exist_only_with_f),
    ("misa_names_the_extensions", misa_names_the_extensions),
];

/// The harts the gating is checked on, with the A, F, D letters each has.
fn harts() -> [(Isa, &'static str); 4] {
    [
        (Isa::RV64IM, ""),
        (Isa::RV64IMAC, "a"),
        (Isa::parse("rv64imaf").expect("rv64imaf is an ISA string"), "af"),
        (Isa::RV64GC, "afd"),
    ]
}

fn letter(ext: Extension) -> char {
    match ext {
        Extension::A => 'a',
        Extension::F => 'f',
        Extension::D => 'd',
        other => panic!("{other:?} is not gated here"),
    }
}

#[test]
fn a_f_and_d_instructions_need_their_extension() {
    let all = every_afd_instruction();
    // The list has every A, F and D row of the table (so a new row without a gating case fails here).
    for spec in INSTRUCTIONS.iter().filter(|s| matches!(s.extension, Extension::A | Extension::F | Extension::D)) {
        assert!(all.iter().any(|(insn, _)| insn.op == spec.op), "{} has no gating case", spec.name);
    }
    let mut failures = Vec::new();
    for &(insn, ext) in &all {
        for (isa, letters) in harts() {
            let has = letters.contains(letter(ext));
            let decoded = decode_for(insn.word, isa).map(|d| (d.op, d.len));
            let want = has.then_some((insn.op, 4));
            if decoded != want {
                failures.push(format!("{} on {isa}: decode_for gives {decoded:?}, expected {want:?}", insn.op.name()));
            }
            let missing = missing_extension(insn.word, isa);
            let want = (!has).then_some(ext);
            if missing != want {
                failures.push(format!("{} on {isa}: missing_extension gives {missing:?}, expected {want:?}", insn.op.name()));
            }
        }
        // The ISA-independent decoder knows every instruction.
        assert_eq!(decode(insn.word).map(|d| d.op), Some(insn.op), "{}", insn.op.name());
    }
    report(failures);
}

#[test]
fn reserved_rounding_modes_do_not_decode() {
    // Every instruction with a rounding-mode field: modes 0..4 and 7 (dynamic) decode with the mode in `imm`;
    // 5 and 6 are reserved, illegal on every hart, and not a missing extension.
    let rounding: Vec<Insn> = every_afd_instruction()
        .into_iter()
        .map(|(insn, _)| insn)
        .filter(|insn| {
            let w = insn.word;
            let (opcode, funct7) = (w & 0x7f, w >> 25);
            // FMA; or OP-FP arithmetic, square root and conversions (funct7 with a free funct3).
            matches!(opcode, 0x43 | 0x47 | 0x4b | 0x4f)
                || opcode == 0x53 && matches!(funct7 >> 2, 0x00 | 0x01 | 0x02 | 0x03 | 0x08 | 0x0b | 0x18 | 0x1a)
        })
        .collect();
    assert_eq!(rounding.len(), 36, "the F and D instructions that round (or have the field regardless)");
    let mut failures = Vec::new();
    for insn in rounding {
        for mode in 0..8u32 {
            let word = insn.word & !0x7000 | mode << 12;
            let legal = !matches!(mode, 5 | 6);
            let got = decode(word).map(|d| (d.op, d.imm));
            let want = legal.then_some((insn.op, mode as i32));
            if got != want {
                let name = insn.op.name();
                failures.push(format!("{name} with rm = {mode} ({word:#010x}): decode gives {got:?}, expected {want:?}"));
            }
            if decode_for(word, Isa::RV64GC).is_some() != legal {
                failures.push(format!("{} with rm = {mode}: decode_for on rv64gc", insn.op.name()));
            }
            if !legal {
                for isa in [Isa::RV64GC, Isa::RV64IM] {
                    if let Some(ext) = missing_extension(word, isa) {
                        failures.push(format!("{} with rm = {mode} on {isa}: reported as missing {ext:?}", insn.op.name()));
                    }
                }
            }
        }
    }
    report(failures);
}

#[test]
fn fp_csrs_exist_only_with_f() {
    for (isa, letters) in harts() {
        let has_f = letters.contains('f');
        for csr in [FFLAGS, FRM, FCSR] {
            for insn in [
                asm::csrrs(A0, csr, ZERO),
                asm::csrrw(A0, csr, A1),
                asm::csrrwi(ZERO, csr, 1),
                asm::csrrci(A0, csr, 0),
            ] {
                let mut m = Machine::with_isa(isa).and(&[(A0, 0x5a5a), (A1, 3)]);
                if has_f {
                    m.next(insn);
                } else {
                    let fault = m.fault(insn);
                    assert!(
                        matches!(fault, Fault::Csr { csr: c, .. } if c == csr),
                        "{} of CSR {csr:#x} on {isa}: expected Fault::Csr, got {fault:?}",
                        insn.op.name()
                    );
                }
            }
        }
    }
}

#[test]
fn misa_names_the_extensions() {
    // MXL = 2 (bits 63..62) and one bit per letter: a = bit 0, c = 2, d = 3, f = 5, i = 8, m = 12, and u = 20 (every
    // hart has user mode).
    for (isa, want) in [
        (Isa::RV64IM, 0x8000_0000_0010_1100u64),
        (Isa::RV64IMAC, 0x8000_0000_0010_1105),
        (Isa::parse("rv64imaf").unwrap(), 0x8000_0000_0010_1121),
        (Isa::RV64GC, 0x8000_0000_0010_112d),
    ] {
        let mut m = Machine::with_isa(isa).and(&[(A1, 0)]);
        m.next(asm::csrrs(A0, MISA, ZERO));
        assert_eq!(m.get(A0), want, "misa of {isa}");
        // misa is WARL here: a write is accepted and ignored.
        m.next(asm::csrrw(ZERO, MISA, A1));
        m.next(asm::csrrs(A0, MISA, ZERO));
        assert_eq!(m.get(A0), want, "misa of {isa} after a write");
    }
}
