/*
 * traps.S: machine-mode traps on a nocmsg core (no runtime; link with -nostdlib -T runtime/nocmsg.ld, RV64IM).
 *
 * Installs a trap handler, raises one exception of each kind in machine mode, drops to user mode with mret and
 * raises two more there, then compares what the handler logged (mcause, mepc, mtval, mstatus.MPP of each trap)
 * with the expected table. Exit status (semihosting): 0 if all is as the privileged specification says,
 * 10 * trap + field (field 1 mcause, 2 mepc, 3 mtval, 4 MPP) for the first difference, 99 for a wrong number of
 * traps, 98 if user mode could read a machine CSR.
 *
 * Variants: -DNO_HANDLER leaves mtvec at 0, so the first exception stops the core with the simulator's report;
 * -DBAD_HANDLER points mtvec at an illegal instruction, which the core must report instead of trapping forever.
 */
    .section .text.init.enter, "ax"
    .globl _start
_start:
#if defined(BAD_HANDLER)
    la      t0, bad_handler
    csrw    mtvec, t0
#elif !defined(NO_HANDLER)
    la      t0, handler
    csrw    mtvec, t0
#endif

    /* Machine mode. */
t_illegal:
    unimp                           /* csrrw x0, cycle, x0: writes a read-only CSR */
t_satp:
    csrr    a0, satp                /* no S-mode, so no satp */
    la      a2, data
t_misaligned:
    ld      a1, 1(a2)               /* load address misaligned */
    li      a2, 0x1000
t_access:
    sd      a1, 8(a2)               /* store outside memory: store/AMO access fault */
    la      t0, t_jump_target
    addi    t0, t0, 2
t_jump:
    jalr    x0, 0(t0)               /* target 2 mod 4 without C: instruction address misaligned */
t_jump_target:
    nop
t_ebreak:
    ebreak                          /* not a semihosting sequence: breakpoint */
t_ecall_m:
    ecall                           /* environment call from M-mode */

    /* To user mode: MPP = U (it is already, after the handler's mret), mepc = user code. */
    li      t0, 0x1800
    csrc    mstatus, t0
    la      t0, user
    csrw    mepc, t0
    mret

user:
    li      a0, 0x55
t_user_csr:
    csrr    a0, mstatus             /* a machine CSR from user mode: illegal, a0 unchanged */
    li      t0, 0x55
    bne     a0, t0, leaked
t_user_ecall:
    ecall                           /* environment call from U-mode: the handler returns to `check` in M-mode */
    j       leaked

leaked:
    li      a1, 98
    j       exit

    /* Compare the log with the expected table. */
check:
    la      s0, log_count
    ld      s1, 0(s0)
    li      t0, 9                   /* entries in the expected table */
    li      a1, 99
    bne     s1, t0, exit
    la      s2, log
    la      s3, expected
    li      s4, 1                   /* trap number */
1:  li      s5, 1                   /* field number */
2:  ld      t0, 0(s2)
    ld      t1, 0(s3)
    li      a1, 10
    mul     a1, a1, s4
    add     a1, a1, s5
    bne     t0, t1, exit
    addi    s2, s2, 8
    addi    s3, s3, 8
    addi    s5, s5, 1
    li      t0, 5
    bne     s5, t0, 2b
    addi    s4, s4, 1
    ble     s4, s1, 1b
    li      a1, 0

/* Semihosting SYS_EXIT_EXTENDED with status a1. */
exit:
    la      t0, exit_block
    sd      a1, 8(t0)
    li      a0, 0x20
    mv      a1, t0
    slli    x0, x0, 0x1f
    ebreak
    srai    x0, x0, 7
1:  j       1b

/* Logs mcause, mepc, mtval and mstatus.MPP, then resumes after the trapping instruction, except after the ecall
 * from user mode, which returns to `check` in machine mode. */
    .balign 4
handler:
    la      t3, log_count
    ld      t4, 0(t3)
    slli    t5, t4, 5
    la      t6, log
    add     t6, t6, t5
    csrr    t0, mcause
    sd      t0, 0(t6)
    csrr    t1, mepc
    sd      t1, 8(t6)
    csrr    t2, mtval
    sd      t2, 16(t6)
    csrr    t2, mstatus
    srli    t2, t2, 11
    andi    t2, t2, 3
    sd      t2, 24(t6)
    addi    t4, t4, 1
    sd      t4, 0(t3)
    li      t2, 8
    beq     t0, t2, 1f
    addi    t1, t1, 4
    csrw    mepc, t1
    mret
1:  li      t0, 0x1800
    csrs    mstatus, t0             /* MPP = M */
    la      t0, check
    csrw    mepc, t0
    mret

bad_handler:
    .word   0                       /* illegal */

    .data
    .balign 8
exit_block:
    .dword  0x20026                 /* ADP_Stopped_ApplicationExit */
    .dword  0
data:
    .dword  0x0123456789abcdef, 0
log_count:
    .dword  0
/* mcause, mepc, mtval, MPP (the mode trapped from: 3 machine, 0 user) */
expected:
    .dword  2,  t_illegal,    0xc0001073,        3
    .dword  2,  t_satp,       0x18002573,        3
    .dword  4,  t_misaligned, data + 1,          3
    .dword  7,  t_access,     0x1008,            3
    .dword  0,  t_jump,       t_jump_target + 2, 3
    .dword  3,  t_ebreak,     t_ebreak,          3
    .dword  11, t_ecall_m,    0,                 3
    .dword  2,  t_user_csr,   0x30002573,        0
    .dword  8,  t_user_ecall, 0,                 0
expected_end:
log:
    .fill   32 * 16, 1, 0
