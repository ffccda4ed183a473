/*
 * crt0.S - entry point of every core of a simulated nocmsg chip.
 *
 * Each core starts here with its own copy of the program in private memory. Set the global pointer, take the
 * stack the loader assigned in the boot block (the top of this core's memory), clear .tbss/.bss, point tp at the
 * thread-local block (picolibc keeps errno there), then let C do the rest (argv, main, exit).
 */
    .section .text.init.enter, "ax"
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      t0, nocmsg_boot
    ld      sp, 64(t0)              /* nocmsg_boot.stack_top */
    andi    sp, sp, -16
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sd      zero, 0(t0)
    addi    t0, t0, 8
    j       1b
2:  la      tp, __tls_base
    call    __nocmsg_start          /* never returns */
3:  j       3b
    .size _start, . - _start

    /* The boot block, filled in by the loader before the core starts. */
    .section .data.nocmsg_boot, "aw"
    .balign 8
    .globl nocmsg_boot
    .type nocmsg_boot, @object
nocmsg_boot:
    .zero 88
    .size nocmsg_boot, . - nocmsg_boot
