//! Nanoseconds per operation of `riscv::fpu` on ordinary operands (normal values within a few binades of 1), in
//! round-to-nearest-even (the fast paths) and in round-towards-zero (the SoftFloat reference path, except for
//! conversions to integers, which are fast in every mode).
//!
//! `cargo run --release -p nocmsg-riscv --example fpu_bench`

use riscv::fpu::{self, FpResult, Rm};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;
const REPEAT: usize = 500;

fn operands(seed: u64) -> Vec<u64> {
    let mut x = seed;
    (0..N)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let exponent = 1023 - 8 + (x >> 56) % 16;
            (x & (1 << 63)) | exponent << 52 | (x & 0x000f_ffff_ffff_ffff)
        })
        .collect()
}

fn time<T>(name: &str, rm: Rm, a: &[u64], b: &[u64], c: &[u64], op: impl Fn(u64, u64, u64, Rm) -> FpResult<T>) {
    let start = Instant::now();
    let mut flags = 0;
    for _ in 0..REPEAT {
        for i in 0..N {
            let r = op(black_box(a[i]), black_box(b[i]), black_box(c[i]), black_box(rm));
            flags |= r.flags;
            black_box(r.bits);
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / (N * REPEAT) as f64;
    println!("{name:<14} {rm:?}  {ns:6.2} ns/op   (flags {flags:#04x})");
}

fn main() {
    let (a, b, c) = (operands(1), operands(2), operands(3));
    let single = |v: &[u64]| v.iter().map(|&x| fpu::f64_to_f32(x, Rm::Rne).bits as u64).collect::<Vec<_>>();
    let (sa, sb, sc) = (single(&a), single(&b), single(&c));
    for rm in [Rm::Rne, Rm::Rtz] {
        time("f64_add", rm, &a, &b, &c, |x, y, _, rm| fpu::f64_add(x, y, rm));
        time("f64_mul", rm, &a, &b, &c, |x, y, _, rm| fpu::f64_mul(x, y, rm));
        time("f64_div", rm, &a, &b, &c, |x, y, _, rm| fpu::f64_div(x, y, rm));
        time("f64_sqrt", rm, &a, &b, &c, |x, _, _, rm| fpu::f64_sqrt(x & !(1 << 63), rm));
        time("f64_madd", rm, &a, &b, &c, fpu::f64_madd);
        time("f64_to_f32", rm, &a, &b, &c, |x, _, _, rm| fpu::f64_to_f32(x, rm));
        time("f64_to_i32", rm, &a, &b, &c, |x, _, _, rm| fpu::f64_to_i32(x, rm));
        time("i64_to_f64", rm, &a, &b, &c, |x, _, _, rm| fpu::i64_to_f64(x as i64 >> 20, rm));
        time("f32_add", rm, &sa, &sb, &sc, |x, y, _, rm| fpu::f32_add(x as u32, y as u32, rm));
        time("f32_mul", rm, &sa, &sb, &sc, |x, y, _, rm| fpu::f32_mul(x as u32, y as u32, rm));
        time("f32_div", rm, &sa, &sb, &sc, |x, y, _, rm| fpu::f32_div(x as u32, y as u32, rm));
        time("f32_sqrt", rm, &sa, &sb, &sc, |x, _, _, rm| fpu::f32_sqrt(x as u32 & !(1 << 31), rm));
        time("f32_madd", rm, &sa, &sb, &sc, |x, y, z, rm| fpu::f32_madd(x as u32, y as u32, z as u32, rm));
        time("f32_to_i32", rm, &sa, &sb, &sc, |x, _, _, rm| fpu::f32_to_i32(x as u32, rm));
    }
    time("f64_lt", Rm::Rne, &a, &b, &c, |x, y, _, _| fpu::f64_lt(x, y));
    time("f64_min", Rm::Rne, &a, &b, &c, |x, y, _, _| fpu::f64_min(x, y));
    time("f64_classify", Rm::Rne, &a, &b, &c, |x, _, _, _| FpResult { bits: fpu::f64_classify(x), flags: 0 });
}
