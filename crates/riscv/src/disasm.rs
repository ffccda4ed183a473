//! Disassembly in GNU `objdump` style with ABI register names, for fault reports and traces.

use crate::decode::{csr_number, csr_zimm, decode, Decoded, F0};
use crate::hart::{csr, ABI_NAMES, FP_ABI_NAMES};
use crate::isa::{Format, Op};

/// An x register (0..31) or an f register (from [`F0`]) by its ABI name.
fn reg(r: u8) -> &'static str {
    if r >= F0 {
        FP_ABI_NAMES[usize::from(r - F0) & 31]
    } else {
        ABI_NAMES[r as usize]
    }
}

/// The rounding-mode operand as objdump shows it: nothing for the dynamic mode.
fn rm(d: &Decoded) -> &'static str {
    [", rne", ", rtz", ", rdn", ", rup", ", rmm", ", 5", ", 6", ""][(d.imm & 7) as usize]
}

fn csr_text(number: u16) -> String {
    csr::name(number).map_or_else(|| format!("{number:#x}"), str::to_string)
}

/// Disassembles a decoded instruction at `pc` (branch and jump targets are shown as absolute addresses).
pub fn disassemble(d: &Decoded, pc: u64) -> String {
    let name = d.op.name();
    let target = pc.wrapping_add(d.imm as i64 as u64);
    match d.op.spec().format {
        Format::R => format!("{name} {}, {}, {}", reg(d.rd), reg(d.rs1), reg(d.rs2)),
        Format::I if matches!(d.op, Op::Lb | Op::Lh | Op::Lw | Op::Ld | Op::Lbu | Op::Lhu | Op::Lwu | Op::Jalr) => {
            format!("{name} {}, {}({})", reg(d.rd), d.imm, reg(d.rs1))
        }
        Format::I | Format::Shift64 | Format::Shift32 => format!("{name} {}, {}, {}", reg(d.rd), reg(d.rs1), d.imm),
        Format::S => format!("{name} {}, {}({})", reg(d.rs2), d.imm, reg(d.rs1)),
        Format::B => format!("{name} {}, {}, {target:#x}", reg(d.rs1), reg(d.rs2)),
        Format::U => format!("{name} {}, {:#x}", reg(d.rd), (d.imm as u32) >> 12),
        Format::J => format!("{name} {}, {target:#x}", reg(d.rd)),
        Format::Csr => format!("{name} {}, {}, {}", reg(d.rd), csr_text(csr_number(d)), reg(d.rs1)),
        Format::CsrImm => format!("{name} {}, {}, {}", reg(d.rd), csr_text(csr_number(d)), csr_zimm(d)),
        Format::Fence | Format::None => name.to_string(),
        Format::Rd => format!("{name} {}", reg(d.rd)),
        Format::Rs1Rs2 => format!("{name} {}, {}", reg(d.rs1), reg(d.rs2)),
        Format::BranchOffset => format!("{name} {target:#x}"),
        Format::Amo => format!("{name} {}, {}, ({})", reg(d.rd), reg(d.rs2), reg(d.rs1)),
        Format::Lr => format!("{name} {}, ({})", reg(d.rd), reg(d.rs1)),
        Format::FLoad => format!("{name} {}, {}({})", reg(d.rd), d.imm, reg(d.rs1)),
        Format::FStore => format!("{name} {}, {}({})", reg(d.rs2), d.imm, reg(d.rs1)),
        // A fixed funct3 (sign injection, min/max) is no rounding mode: such rows fix it in their mask.
        Format::FRrr if d.op.spec().mask & 0x7000 != 0 => format!("{name} {}, {}, {}", reg(d.rd), reg(d.rs1), reg(d.rs2)),
        Format::FRrr => format!("{name} {}, {}, {}{}", reg(d.rd), reg(d.rs1), reg(d.rs2), rm(d)),
        Format::FR4 => format!("{name} {}, {}, {}, {}{}", reg(d.rd), reg(d.rs1), reg(d.rs2), reg(d.rs3), rm(d)),
        Format::FCmp => format!("{name} {}, {}, {}", reg(d.rd), reg(d.rs1), reg(d.rs2)),
        Format::FRr | Format::FToX | Format::XToF if d.op.spec().mask & 0x7000 != 0 => {
            format!("{name} {}, {}", reg(d.rd), reg(d.rs1))
        }
        Format::FRr | Format::FToX | Format::XToF => format!("{name} {}, {}{}", reg(d.rd), reg(d.rs1), rm(d)),
    }
}

/// Disassembles a raw word (a compressed parcel as the instruction it expands to); words that are not instructions
/// show as `.word`.
pub fn disassemble_word(word: u32, pc: u64) -> String {
    let expanded = if word & 3 != 3 && word <= 0xffff { crate::rvc::expand(word as u16) } else { Some(word) };
    match expanded.and_then(decode) {
        Some(d) => disassemble(&d, pc),
        None => format!(".word {word:#010x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objdump_style() {
        let cases = [
            (0xfff5_0513, "addi a0, a0, -1"),
            (0x0011_3423, "sd ra, 8(sp)"),
            (0x0081_3083, "ld ra, 8(sp)"),
            (0xfeb5_0ee3, "beq a0, a1, 0x7ffffffc"),
            (0x0010_00ef, "jal ra, 0x80000800"),
            (0x8000_0537, "lui a0, 0x80000"),
            (0xf140_2573, "csrrs a0, mhartid, zero"),
            (0x0000_0073, "ecall"),
            (0x00b5_000b, "send a0, a1"),
            (0x0000_150b, "recv a0"),
            (0x0000_102b, "bns 0x80000000"),
            (0x0000_0000, ".word 0x00000000"),
            (0x6ac5_8543, "fmadd.d fa0, fa1, fa2, fa3, rne"),
            (0x0081_3507, "fld fa0, 8(sp)"),
            (0xc205_1553, "fcvt.w.d a0, fa0, rtz"),
            (0x02b5_7553, "fadd.d fa0, fa0, fa1"),
            (0x22b5_0553, "fsgnj.d fa0, fa0, fa1"),
            (0xe205_0553, "fmv.x.d a0, fa0"),
            (0x06b6_352f, "amoadd.d a0, a1, (a2)"),
            (0x1005_352f, "lr.d a0, (a0)"),
            (0x4515, "addi a0, zero, 5"),
            (0x3020_0073, "mret"),
            (0x1050_0073, "wfi"),
            (0x3052_9073, "csrrw zero, mtvec, t0"),
            (0x3420_2f73, "csrrs t5, mcause, zero"),
            (0x1800_5073, "csrrwi zero, 0x180, 0"),
        ];
        for (word, text) in cases {
            assert_eq!(disassemble_word(word, 0x8000_0000), text, "{word:#010x}");
        }
    }
}
