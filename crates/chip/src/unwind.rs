//! Walking a stopped core's stack with the program's call frame information (`.debug_frame`, DWARF 2 to 4), so
//! that a deadlock report can name the call a rank is blocked in and its caller.
//!
//! Why CFI and not frame pointers: the library is built with `-O2`, whose functions keep no frame pointer (and a
//! fast path often no frame at all); giving them one would cost cycles on every call, while the compiler already
//! describes every frame in `.debug_frame` for free. Only the rules GCC emits for RV64 are interpreted (offsets from
//! a CFA register, register copies, remember/restore); anything else (DWARF expressions) ends the walk there, which
//! loses only the frames beyond it.

use std::collections::HashMap;

/// The stack pointer, as DWARF numbers it on RISC-V (the return-address column comes from each CIE).
const SP: usize = 2;
/// The deepest walk (a corrupt stack must not take long).
const MAX_FRAMES: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// Unchanged from the frame inside (the default on RISC-V for callee-saved registers).
    Same,
    /// Saved at CFA + offset.
    Offset(i64),
    /// The value is CFA + offset.
    ValOffset(i64),
    /// Held in another register.
    Register(usize),
    /// Not recoverable (undefined, or a DWARF expression this walker does not evaluate).
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Row {
    cfa_reg: usize,
    cfa_offset: i64,
    /// The CFA is a DWARF expression: unusable.
    cfa_unknown: bool,
    rules: HashMap<usize, Rule>,
}

#[derive(Clone, Debug)]
struct Cie {
    code_align: u64,
    data_align: i64,
    ra_reg: usize,
    initial: Vec<u8>,
}

#[derive(Clone, Debug)]
struct Fde {
    start: u64,
    end: u64,
    cie: usize,
    instructions: Vec<u8>,
}

/// The call frame information of a program.
#[derive(Clone, Debug, Default)]
pub struct Unwinder {
    cies: Vec<Cie>,
    /// By start address.
    fdes: Vec<Fde>,
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn u8(&mut self) -> Option<u8> {
        let b = *self.data.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.data.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn uint(&mut self, n: usize) -> Option<u64> {
        let b = self.bytes(n)?;
        Some(b.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x)))
    }

    fn uleb(&mut self) -> Option<u64> {
        let (mut v, mut shift) = (0u64, 0u32);
        loop {
            let b = self.u8()?;
            if shift < 64 {
                v |= u64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
    }

    fn sleb(&mut self) -> Option<i64> {
        let (mut v, mut shift) = (0i64, 0u32);
        loop {
            let b = self.u8()?;
            if shift < 64 {
                v |= i64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                if shift < 64 && b & 0x40 != 0 {
                    v |= -1i64 << shift;
                }
                return Some(v);
            }
        }
    }

    fn cstr(&mut self) -> Option<&'a [u8]> {
        let len = self.data.get(self.at..)?.iter().position(|&b| b == 0)?;
        let s = self.bytes(len)?;
        self.at += 1;
        Some(s)
    }
}

impl Unwinder {
    /// Parses a `.debug_frame` section of a 64-bit program. Entries it cannot read (an augmentation it does not
    /// know, a 64-bit DWARF length) are skipped, so the walk stops at the functions they describe.
    pub fn parse(section: &[u8]) -> Unwinder {
        let mut cies = Vec::new();
        let mut cie_at: HashMap<usize, usize> = HashMap::new();
        let mut pending: Vec<(usize, u64, u64, Vec<u8>)> = Vec::new();
        let mut r = Reader { data: section, at: 0 };
        while r.at + 4 <= section.len() {
            let start = r.at;
            let Some(len) = r.uint(4) else { break };
            if len == 0xffff_ffff || len == 0 {
                // 64-bit DWARF is not produced for these programs; a zero length is padding.
                if len == 0 {
                    continue;
                }
                break;
            }
            let end = r.at + len as usize;
            if end > section.len() {
                break;
            }
            let body = Reader { data: &section[..end], at: r.at };
            let mut b = body;
            let Some(id) = b.uint(4) else { break };
            if id == 0xffff_ffff {
                if let Some(cie) = Self::cie(&mut b) {
                    cie_at.insert(start, cies.len());
                    cies.push(cie);
                }
            } else if let (Some(lo), Some(range)) = (b.uint(8), b.uint(8)) {
                pending.push((id as usize, lo, lo.wrapping_add(range), section[b.at..end].to_vec()));
            }
            r.at = end;
        }
        let mut fdes: Vec<Fde> = pending
            .into_iter()
            .filter_map(|(cie, start, end, instructions)| Some(Fde { start, end, cie: *cie_at.get(&cie)?, instructions }))
            .filter(|f| f.end > f.start)
            .collect();
        fdes.sort_by_key(|f| f.start);
        Unwinder { cies, fdes }
    }

    fn cie(b: &mut Reader) -> Option<Cie> {
        let version = b.u8()?;
        let augmentation = b.cstr()?;
        if !augmentation.is_empty() || !matches!(version, 1 | 3 | 4) {
            return None;
        }
        if version == 4 {
            let (address_size, segment_size) = (b.u8()?, b.u8()?);
            if address_size != 8 || segment_size != 0 {
                return None;
            }
        }
        let code_align = b.uleb()?;
        let data_align = b.sleb()?;
        let ra_reg = if version == 1 { u64::from(b.u8()?) } else { b.uleb()? } as usize;
        Some(Cie { code_align, data_align, ra_reg, initial: b.data[b.at..].to_vec() })
    }

    /// Whether any function is described.
    pub fn is_empty(&self) -> bool {
        self.fdes.is_empty()
    }

    fn fde(&self, pc: u64) -> Option<&Fde> {
        let k = self.fdes.partition_point(|f| f.start <= pc).checked_sub(1)?;
        let f = &self.fdes[k];
        (pc < f.end).then_some(f)
    }

    /// The rule row in effect at `pc`.
    fn row(&self, pc: u64) -> Option<(Row, usize)> {
        let fde = self.fde(pc)?;
        let cie = &self.cies[fde.cie];
        let mut row = Row { cfa_reg: SP, cfa_offset: 0, cfa_unknown: false, rules: HashMap::new() };
        let mut loc = fde.start;
        execute(cie, &cie.initial, &mut row, None, &mut loc, u64::MAX)?;
        let initial = row.clone();
        execute(cie, &fde.instructions, &mut row, Some(&initial), &mut loc, pc)?;
        Some((row, cie.ra_reg))
    }

    /// The addresses of a stopped core's frames, innermost first: `pc`, then each caller's return address, for as
    /// long as the frames are described. `regs` are the integer registers (x0..x31) and `load` reads 8 bytes of the
    /// core's memory.
    pub fn frames(&self, pc: u64, regs: &[u64; 32], load: &dyn Fn(u64) -> Option<u64>) -> Vec<u64> {
        let mut regs = *regs;
        let mut frames = vec![pc];
        let mut pc = pc;
        let mut lookup = pc;
        while frames.len() < MAX_FRAMES {
            let Some((row, ra_reg)) = self.row(lookup) else { break };
            if row.cfa_unknown || row.cfa_reg >= 32 {
                break;
            }
            let cfa = regs[row.cfa_reg].wrapping_add(row.cfa_offset as u64);
            let mut next = regs;
            let mut known = true;
            for (&reg, &rule) in &row.rules {
                if reg >= 32 {
                    continue;
                }
                next[reg] = match rule {
                    Rule::Same => regs[reg],
                    Rule::Offset(o) => match load(cfa.wrapping_add(o as u64)) {
                        Some(v) => v,
                        None => {
                            known &= reg != ra_reg;
                            regs[reg]
                        }
                    },
                    Rule::ValOffset(o) => cfa.wrapping_add(o as u64),
                    Rule::Register(r) if r < 32 => regs[r],
                    _ => {
                        known &= reg != ra_reg;
                        regs[reg]
                    }
                };
            }
            next[SP] = cfa;
            let ra = if ra_reg < 32 { next[ra_reg] } else { 0 };
            // A return address of 0, one that does not move on, or a stack that does not grow back up ends it.
            if !known || ra == 0 || (ra == pc && cfa <= regs[SP]) || cfa < regs[SP] {
                break;
            }
            frames.push(ra);
            regs = next;
            pc = ra;
            // A return address may lie just past the end of a function that ends in a call (noreturn).
            lookup = ra - 1;
        }
        frames
    }
}

/// Runs call frame instructions on `row` up to (not past) address `until`.
fn execute(cie: &Cie, code: &[u8], row: &mut Row, initial: Option<&Row>, loc: &mut u64, until: u64) -> Option<()> {
    let mut r = Reader { data: code, at: 0 };
    let mut stack: Vec<Row> = Vec::new();
    let factored = |v: u64| v as i64 * cie.data_align;
    // DW_CFA_restore: back to the rule the CIE's initial instructions gave (none: unchanged).
    let restore = |reg: usize, row: &mut Row| match initial.and_then(|i| i.rules.get(&reg)) {
        Some(&rule) => {
            row.rules.insert(reg, rule);
        }
        None => {
            row.rules.remove(&reg);
        }
    };
    while r.at < code.len() {
        let op = r.u8()?;
        let advance = |delta: u64, loc: &mut u64| -> bool {
            *loc = loc.wrapping_add(delta * cie.code_align);
            *loc > until
        };
        match op >> 6 {
            1 => {
                if advance(u64::from(op & 0x3f), loc) {
                    return Some(());
                }
                continue;
            }
            2 => {
                let off = r.uleb()?;
                row.rules.insert(usize::from(op & 0x3f), Rule::Offset(factored(off)));
                continue;
            }
            3 => {
                restore(usize::from(op & 0x3f), row);
                continue;
            }
            _ => {}
        }
        match op {
            0x00 => {}
            0x01 => {
                *loc = r.uint(8)?;
                if *loc > until {
                    return Some(());
                }
            }
            0x02..=0x04 => {
                let n = [1, 2, 4][usize::from(op - 2)];
                let delta = r.uint(n)?;
                if advance(delta, loc) {
                    return Some(());
                }
            }
            0x05 => {
                let (reg, off) = (r.uleb()? as usize, r.uleb()?);
                row.rules.insert(reg, Rule::Offset(factored(off)));
            }
            0x06 => {
                let reg = r.uleb()? as usize;
                restore(reg, row);
            }
            0x07 => {
                row.rules.insert(r.uleb()? as usize, Rule::Unknown);
            }
            0x08 => {
                row.rules.insert(r.uleb()? as usize, Rule::Same);
            }
            0x09 => {
                let (reg, other) = (r.uleb()? as usize, r.uleb()? as usize);
                row.rules.insert(reg, Rule::Register(other));
            }
            0x0a => stack.push(row.clone()),
            0x0b => {
                let saved = stack.pop()?;
                *row = saved;
            }
            0x0c => {
                row.cfa_reg = r.uleb()? as usize;
                row.cfa_offset = r.uleb()? as i64;
                row.cfa_unknown = false;
            }
            0x0d => row.cfa_reg = r.uleb()? as usize,
            0x0e => row.cfa_offset = r.uleb()? as i64,
            0x0f => {
                let len = r.uleb()? as usize;
                r.bytes(len)?;
                row.cfa_unknown = true;
            }
            0x10 | 0x16 => {
                let reg = r.uleb()? as usize;
                let len = r.uleb()? as usize;
                r.bytes(len)?;
                row.rules.insert(reg, Rule::Unknown);
            }
            0x11 => {
                let (reg, off) = (r.uleb()? as usize, r.sleb()?);
                row.rules.insert(reg, Rule::Offset(off * cie.data_align));
            }
            0x12 => {
                row.cfa_reg = r.uleb()? as usize;
                row.cfa_offset = r.sleb()? * cie.data_align;
                row.cfa_unknown = false;
            }
            0x13 => row.cfa_offset = r.sleb()? * cie.data_align,
            0x14 => {
                let (reg, off) = (r.uleb()? as usize, r.uleb()?);
                row.rules.insert(reg, Rule::ValOffset(factored(off)));
            }
            0x15 => {
                let (reg, off) = (r.uleb()? as usize, r.sleb()?);
                row.rules.insert(reg, Rule::ValOffset(off * cie.data_align));
            }
            0x2e => {
                r.uleb()?;
            }
            0x2f => {
                let (reg, off) = (r.uleb()? as usize, r.uleb()?);
                row.rules.insert(reg, Rule::Offset(-factored(off)));
            }
            _ => return None,
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CIE (version 3, code alignment 1, data alignment -4, ra in x1, CFA = sp) and one FDE for a function at
    /// 0x1000..0x1040 that pushes a 32-byte frame at +4 and saves ra at CFA-8 and s0 at CFA-16 at +8.
    fn section() -> Vec<u8> {
        let mut cie = vec![0xff, 0xff, 0xff, 0xff, 3, 0, 1, 0x7c, 1, 0x0c, 2, 0];
        cie.resize(12, 0);
        let mut out = (cie.len() as u32).to_le_bytes().to_vec();
        out.extend(&cie);
        let mut fde = 0u32.to_le_bytes().to_vec(); // CIE at offset 0
        fde.extend(0x1000u64.to_le_bytes());
        fde.extend(0x40u64.to_le_bytes());
        // advance 4; def_cfa_offset 32; advance 4; offset ra 2 (2 * -4 = -8); offset s0 (x8) 4 (-16)
        fde.extend([0x44, 0x0e, 32, 0x44, 0x81, 2, 0x88, 4]);
        while fde.len() % 4 != 0 {
            fde.push(0);
        }
        out.extend((fde.len() as u32).to_le_bytes());
        out.extend(fde);
        out
    }

    #[test]
    fn walks_a_frame_described_by_its_fde() {
        let u = Unwinder::parse(&section());
        assert!(!u.is_empty());
        let mut regs = [0u64; 32];
        regs[SP] = 0x8000;
        let stack: HashMap<u64, u64> = [(0x8000 + 32 - 8, 0x2004u64), (0x8000 + 32 - 16, 0x9000)].into_iter().collect();
        let load = |a: u64| stack.get(&a).copied();
        // In the body: the frame is set up, ra comes from the stack; 0x2004 has no FDE, so the walk ends there.
        assert_eq!(u.frames(0x1010, &regs, &load), vec![0x1010, 0x2004]);
        // Before the prologue: ra is still in its register.
        regs[1] = 0x3008;
        assert_eq!(u.frames(0x1000, &regs, &load), vec![0x1000, 0x3008]);
        // Outside every FDE: only the pc.
        assert_eq!(u.frames(0x5000, &regs, &load), vec![0x5000]);
    }

    #[test]
    fn garbage_is_no_frames_not_a_panic() {
        for data in [&b""[..], &[1, 2, 3][..], &[0xff; 40][..], &[8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 9, 9, 9, 9][..]] {
            let u = Unwinder::parse(data);
            assert_eq!(u.frames(0x10, &[0; 32], &|_| None), vec![0x10]);
        }
    }
}
