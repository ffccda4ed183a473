/*
 * riscv_test.h - nocmsg's test environment for the riscv-tests ISA tests (isa/rv64u*), in place of
 * riscv-test-env/p/riscv_test.h.
 *
 * The stock "p" environment boots in machine mode, writes a dozen machine-mode CSRs (some behind traps that skip
 * absent features), drops to user mode with mret and reports the result by storing to `tohost`, which the host
 * (Spike's HTIF) polls. A nocmsg core has none of that: one privilege level, no trap handler, and programs end
 * through semihosting. The user-level tests only need a core that starts at `_start`, the test number in gp and
 * a way to report pass or fail, so this environment provides exactly that:
 *
 *   RVTEST_CODE_BEGIN  zero x1, x3..x31 (the stock environment zeroes sp too), gp = 0, then the suite's `init`
 *   RVTEST_RV64U       no initialisation
 *   RVTEST_RV64UF      `csrwi fcsr, 0` (rounding mode RNE, no flags); mstatus is never written, so the
 *                      simulator must let F/D instructions run without mstatus.FS being set
 *   RVTEST_PASS        semihosting SYS_EXIT, status 0
 *   RVTEST_FAIL        semihosting SYS_EXIT, status = the failing test's number (gp), 1337 if gp is still 0
 *
 * See docs/riscv-tests.md for what the stock environment needs instead, and tools/riscv-tests/run.sh for the
 * build (link.ld beside this file places the test at 0x80000000, where every nocmsg core's memory starts).
 */
#ifndef NOCMSG_RISCV_TEST_H
#define NOCMSG_RISCV_TEST_H

#if __riscv_xlen != 64
#error "nocmsg's riscv-tests environment is for the rv64 suites only (nocmsg cores are RV64)"
#endif

/* Semihosting (the RISC-V binding of the Arm semihosting operations, crates/chip/src/semihost.rs). */
#define NOCMSG_SYS_EXIT 0x18
#define NOCMSG_ADP_STOPPED_APPLICATION_EXIT 0x20026

/* Which suite a test belongs to: each defines the `init` macro that RVTEST_CODE_BEGIN expands. */
#define RVTEST_RV64U                                                    \
  .macro init;                                                          \
  .endm

#define RVTEST_RV64UF                                                   \
  .macro init;                                                          \
  csrwi fcsr, 0;                                                        \
  .endm

#define TESTNUM gp

#define RVTEST_CODE_BEGIN                                               \
        .section .text.init, "ax", @progbits;                           \
        .balign 64;                                                     \
        .globl _start;                                                  \
_start:                                                                 \
        NOCMSG_ZERO_XREGS;                                              \
        li TESTNUM, 0;                                                  \
        init;                                                           \
        j nocmsg_test_body;                                             \
        .pushsection .data.nocmsg_exit, "aw", @progbits;                \
        .balign 8;                                                      \
nocmsg_exit_block:                                                      \
        .dword NOCMSG_ADP_STOPPED_APPLICATION_EXIT;                     \
        .dword 0;                                                       \
        .popsection;                                                    \
        .text;                                                          \
nocmsg_test_body:

#define RVTEST_CODE_END                                                 \
        unimp

/*
 * Pass and fail: SYS_EXIT with a1 pointing at {reason, status} (64-bit fields on RV64). The block is in .data
 * (RVTEST_CODE_BEGIN puts it there) because the status is stored into it. `fence` first, as the stock
 * environment does, so that every store of the test is done before the host looks.
 */
#define RVTEST_PASS                                                     \
        fence;                                                          \
        la a1, nocmsg_exit_block;                                       \
        sd zero, 8(a1);                                                 \
        NOCMSG_SEMIHOST_EXIT

#define RVTEST_FAIL                                                     \
        fence;                                                          \
        /* a0 = gp, or 1337 if gp is 0 (a failure must never exit 0) */ \
        seqz a0, TESTNUM;                                               \
        neg a0, a0;                                                     \
        andi a0, a0, 1337;                                              \
        or a0, a0, TESTNUM;                                             \
        la a1, nocmsg_exit_block;                                       \
        sd a0, 8(a1);                                                   \
        NOCMSG_SEMIHOST_EXIT

/* The three-instruction semihosting call, uncompressed as the convention requires and 4-byte aligned (nocmsg reads
 * the neighbours of the ebreak as aligned words); a0 = operation, a1 = block. The host does not return from an
 * exit; should it, the core stops on the unimp. */
#define NOCMSG_SEMIHOST_EXIT                                            \
        li a0, NOCMSG_SYS_EXIT;                                         \
        .balign 4;                                                      \
        .option push;                                                   \
        .option norvc;                                                  \
        slli x0, x0, 0x1f;                                              \
        ebreak;                                                         \
        srai x0, x0, 7;                                                 \
        .option pop;                                                    \
        unimp

/* The tests put their data between these two; begin_signature/end_signature are kept for tools that dump them. */
#define RVTEST_DATA_BEGIN                                               \
        .align 4; .global begin_signature; begin_signature:

#define RVTEST_DATA_END .align 4; .global end_signature; end_signature:

/* Every register but sp, which nocmsg's loader points at the top of memory: a nocmsg core stops a program that
 * sets sp below its stack reservation (docs/riscv-tests.md). */
#define NOCMSG_ZERO_XREGS                                               \
  li x1, 0;             li x3, 0;  li x4, 0;  li x5, 0;  li x6, 0;      \
  li x7, 0;  li x8, 0;  li x9, 0;  li x10, 0; li x11, 0; li x12, 0;     \
  li x13, 0; li x14, 0; li x15, 0; li x16, 0; li x17, 0; li x18, 0;     \
  li x19, 0; li x20, 0; li x21, 0; li x22, 0; li x23, 0; li x24, 0;     \
  li x25, 0; li x26, 0; li x27, 0; li x28, 0; li x29, 0; li x30, 0;     \
  li x31, 0;

#endif
