/*
 * kernels.S - three small kernels whose cycle counts the timing model must reproduce exactly. Written in assembly
 * so their instruction streams do not depend on the compiler; kernels.c times them with rdcycle/rdinstret.
 */
    .text
    .option norvc

/* uint64_t kernel_sum(const uint64_t *a, uint64_t n): loads feeding the next instruction (load-use stalls) and
 * a taken backward branch per element. */
    .globl kernel_sum
kernel_sum:
    li      t0, 0
1:  ld      t1, 0(a0)
    add     t0, t0, t1          /* uses t1 right after the load: one load-use stall */
    addi    a0, a0, 8
    addi    a1, a1, -1
    bnez    a1, 1b              /* taken n-1 times */
    mv      a0, t0
    ret

/* uint64_t kernel_muldiv(uint64_t x, uint64_t n): multiplies and 64- and 32-bit divisions. */
    .globl kernel_muldiv
kernel_muldiv:
    li      t0, 7
    li      t2, 0
1:  mul     t1, a0, t0
    addi    t1, t1, 13
    div     t1, t1, t0
    divw    t3, t1, t0
    remu    t4, t1, t0
    add     t2, t2, t3
    add     t2, t2, t4
    addi    a0, a0, 3
    addi    a1, a1, -1
    bnez    a1, 1b
    mv      a0, t2
    ret

/* void kernel_bubble(int32_t *a, uint64_t n): data-dependent branches (bubble sort). */
    .globl kernel_bubble
kernel_bubble:
    addi    a1, a1, -1
    blez    a1, 4f
1:  mv      t0, a0              /* outer: one pass */
    mv      t1, a1
    li      t4, 0               /* swapped? */
2:  lw      t2, 0(t0)
    lw      t3, 4(t0)
    ble     t2, t3, 3f          /* load-use on t3 */
    sw      t3, 0(t0)
    sw      t2, 4(t0)
    li      t4, 1
3:  addi    t0, t0, 4
    addi    t1, t1, -1
    bnez    t1, 2b
    beqz    t4, 4f
    addi    a1, a1, -1
    bnez    a1, 1b
4:  ret
