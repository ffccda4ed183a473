#!/usr/bin/env python3
"""Regenerates rvc_vectors.txt, the golden (parcel, expansion) pairs for crates/riscv/src/rvc.rs.

Each vector is a compressed instruction and the base instruction the RISC-V specification says it expands to. The
GNU assembler encodes both sides: the compressed one with -march=rv64gc, the base one with -march=rv64g, so the
immediate scrambling and the field layouts under test come from the toolchain, not from our code. Immediates are
chosen at the boundaries (minimum, maximum) and with each scrambled bit set alone; since every immediate bit lands in
its own place, one vector per bit pins the whole permutation.

As a check of the pairing itself, the base side is also assembled with -march=rv64gc: wherever the assembler
compresses it on its own, it must pick the same parcel, or another compressed instruction with the same effect
listed in SAME_EFFECT (it leaves HINTs, jumps and `jalr` uncompressed).

Usage (needs riscv64-unknown-elf-as and -objdump; the tests only read the committed output):
    python3 crates/riscv/tests/data/rvc_vectors.py > crates/riscv/tests/data/rvc_vectors.txt
"""

import os
import re
import subprocess
import sys
import tempfile

AS = "riscv64-unknown-elf-as"
OBJDUMP = "riscv64-unknown-elf-objdump"

PRIME = ["s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5"]  # x8..x15, the registers of the 3-bit fields
FULL = ["ra", "sp", "gp", "a0", "s11", "t6"]  # x1, x2, x3, x10, x27, x31
FPRIME = ["fs0", "fs1", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5"]
FFULL = ["ft0", "fs0", "fa5", "ft11"]  # f0, f8, f15, f31


def bits_alone(lo, hi):
    return [1 << b for b in range(lo, hi + 1)]


def cycle(regs, i):
    return regs[i % len(regs)]


SIMM6 = [-32, -16, -1, 1, 2, 4, 8, 16, 31]  # every bit of a 6-bit signed immediate alone (bit 5 is -32)


def vectors():
    """(compressed source, base source) pairs, one per line of the output."""
    v = []
    # Quadrant 0
    for i, imm in enumerate(bits_alone(2, 9) + [1020]):
        rd = cycle(PRIME, i)
        v.append((f"c.addi4spn {rd}, sp, {imm}", f"addi {rd}, sp, {imm}"))
    for c, base, regs, scale_bits, top in [
        ("c.fld", "fld", FPRIME, (3, 7), 248),
        ("c.lw", "lw", PRIME, (2, 6), 124),
        ("c.ld", "ld", PRIME, (3, 7), 248),
        ("c.fsd", "fsd", FPRIME, (3, 7), 248),
        ("c.sw", "sw", PRIME, (2, 6), 124),
        ("c.sd", "sd", PRIME, (3, 7), 248),
    ]:
        for i, imm in enumerate([0] + bits_alone(*scale_bits) + [top]):
            r, base_reg = cycle(regs, i), cycle(PRIME, i + 3)
            v.append((f"{c} {r}, {imm}({base_reg})", f"{base} {r}, {imm}({base_reg})"))
    # Quadrant 1
    v.append(("c.nop", "addi zero, zero, 0"))
    for imm in SIMM6:  # HINTs
        v.append((f"c.nop {imm}", f"addi zero, zero, {imm}"))
    for i, imm in enumerate(SIMM6 + [0]):  # imm 0 is a HINT
        rd = cycle(FULL, i)
        v.append((f"c.addi {rd}, {imm}", f"addi {rd}, {rd}, {imm}"))
    for i, imm in enumerate(SIMM6 + [0]):  # rd = sp is fine for c.addiw
        rd = cycle(FULL, i)
        v.append((f"c.addiw {rd}, {imm}", f"addiw {rd}, {rd}, {imm}"))
    for i, imm in enumerate(SIMM6 + [0]):
        rd = cycle(["zero"] + FULL, i)  # rd = x0 is a HINT
        v.append((f"c.li {rd}, {imm}", f"addi {rd}, zero, {imm}"))
    for imm in [-512, -16] + bits_alone(4, 8) + [496]:
        v.append((f"c.addi16sp sp, {imm}", f"addi sp, sp, {imm}"))
    lui_values = bits_alone(0, 4) + [31, 0xFFFE0, 0xFFFFF, 0xFFFF0]  # 0xfffe0 sets the sign bit (nzimm[17]) alone
    for i, imm in enumerate(lui_values):
        rd = cycle(["zero", "ra", "gp", "a0", "s11", "t6"], i)  # rd = x0 is a HINT; rd = sp is c.addi16sp
        v.append((f"c.lui {rd}, {imm:#x}", f"lui {rd}, {imm:#x}"))
    for c, base in [("c.srli", "srli"), ("c.srai", "srai")]:
        for i, sh in enumerate(bits_alone(0, 5) + [63]):
            rd = cycle(PRIME, i)
            v.append((f"{c} {rd}, {sh}", f"{base} {rd}, {rd}, {sh}"))
        v.append((f"{c}64 a5", f"{base} a5, a5, 0"))  # shamt 0 is a HINT on RV64
    for i, imm in enumerate(SIMM6 + [0]):
        rd = cycle(PRIME, i)
        v.append((f"c.andi {rd}, {imm}", f"andi {rd}, {rd}, {imm}"))
    for c in ["sub", "xor", "or", "and", "subw", "addw"]:
        for rd, rs2 in [("s0", "a5"), ("a5", "s0"), ("a0", "a0")]:
            v.append((f"c.{c} {rd}, {rs2}", f"{c} {rd}, {rd}, {rs2}"))
    for off in [-2048, -2, 0] + bits_alone(1, 10) + [2046]:
        v.append((f"c.j .{off:+d}", f"jal zero, .{off:+d}"))
    for c, base in [("c.beqz", "beq"), ("c.bnez", "bne")]:
        for i, off in enumerate([-256, -2, 0] + bits_alone(1, 7) + [254]):
            rs1 = cycle(PRIME, i)
            v.append((f"{c} {rs1}, .{off:+d}", f"{base} {rs1}, zero, .{off:+d}"))
    # Quadrant 2
    for i, sh in enumerate(bits_alone(0, 5) + [63]):
        rd = cycle(["zero"] + FULL, i)  # rd = x0 is a HINT
        v.append((f"c.slli {rd}, {sh}", f"slli {rd}, {rd}, {sh}"))
    for rd in ["zero", "t6"]:
        v.append((f"c.slli64 {rd}", f"slli {rd}, {rd}, 0"))
    for c, base, regs, scale_bits, top in [
        ("c.fldsp", "fld", FFULL, (3, 8), 504),
        ("c.lwsp", "lw", FULL, (2, 7), 252),
        ("c.ldsp", "ld", FULL, (3, 8), 504),
        ("c.fsdsp", "fsd", FFULL, (3, 8), 504),
        ("c.swsp", "sw", ["zero"] + FULL, (2, 7), 252),
        ("c.sdsp", "sd", ["zero"] + FULL, (3, 8), 504),
    ]:
        for i, imm in enumerate([0] + bits_alone(*scale_bits) + [top]):
            r = cycle(regs, i)
            v.append((f"{c} {r}, {imm}(sp)", f"{base} {r}, {imm}(sp)"))
    for rs1 in ["ra", "a0", "t6"]:
        v.append((f"c.jr {rs1}", f"jalr zero, 0({rs1})"))
        v.append((f"c.jalr {rs1}", f"jalr ra, 0({rs1})"))
    for rd, rs2 in [("zero", "a0"), ("ra", "t6"), ("t6", "ra"), ("sp", "sp")]:  # rd = x0 is a HINT
        v.append((f"c.mv {rd}, {rs2}", f"add {rd}, zero, {rs2}"))
        v.append((f"c.add {rd}, {rs2}", f"add {rd}, {rd}, {rs2}"))
    v.append(("c.ebreak", "ebreak"))
    return v


# (base mnemonic, what the assembler may compress it to instead of ours): it turns `addi rd, rs, 0` (`mv`) into
# c.mv, and `addi sp, sp, imm` with a 6-bit imm into c.addi rather than c.addi16sp.
SAME_EFFECT = {("addi", "c.mv"), ("addi", "c.addi")}


def assemble(lines, march):
    """The encodings, one per source line (2 or 4 bytes each), in order."""
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = os.path.join(tmp, "v.s"), os.path.join(tmp, "v.o")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run([AS, f"-march={march}", "-mno-relax", src, "-o", obj], check=True)
        dump = subprocess.run([OBJDUMP, "-d", "-M", "no-aliases", obj], check=True, capture_output=True, text=True)
    words = []
    for line in dump.stdout.splitlines():
        m = re.match(r"^\s+[0-9a-f]+:\s+([0-9a-f]{4}|[0-9a-f]{8})\s+(\S+)", line)
        if m:
            words.append((int(m.group(1), 16), len(m.group(1)) // 2, m.group(2)))
    if len(words) != len(lines):
        sys.exit(f"{march}: {len(lines)} lines gave {len(words)} instructions")
    return words


def main():
    pairs = vectors()
    compressed = assemble([c for c, _ in pairs], "rv64gc")
    base = assemble([b for _, b in pairs], "rv64g")
    auto = assemble([b for _, b in pairs], "rv64gc")
    version = subprocess.run([AS, "--version"], check=True, capture_output=True, text=True).stdout.splitlines()[0]
    print("# Golden RV64C expansions: parcel, expected 32-bit base instruction, then the sources of both.")
    print(f"# Generated by crates/riscv/tests/data/rvc_vectors.py with {version}; do not edit by hand.")
    agreed = 0
    for (c_src, b_src), (parcel, c_len, _), (word, b_len, _), (auto_word, auto_len, auto_name) in zip(
        pairs, compressed, base, auto
    ):
        if c_len != 2 or b_len != 4:
            sys.exit(f"{c_src!r} / {b_src!r}: sizes {c_len} and {b_len}")
        if auto_len == 2:
            if auto_word == parcel:
                agreed += 1
            elif auto_name == c_src.split()[0] or (b_src.split()[0], auto_name) not in SAME_EFFECT:
                sys.exit(f"{b_src!r}: the assembler compresses it to {auto_word:04x} ({auto_name}), not {parcel:04x}")
        print(f"{parcel:04x} {word:08x}  {c_src} | {b_src}")
    print(f"{len(pairs)} vectors, {agreed} compressed identically by the assembler itself", file=sys.stderr)


if __name__ == "__main__":
    main()
