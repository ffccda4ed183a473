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
    ld      t1, 64(t0)              /* nocmsg_boot.stack_top */
    beqz    t1, .Lno_boot           /* still 0: no loader filled the block in */
    andi    sp, t1, -16
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sd      zero, 0(t0)
    addi    t0, t0, 8
    j       1b
2:  la      tp, __tls_base
    call    __nocmsg_start          /* never returns */
3:  j       3b

    /* No loader filled the boot block in (the program was stripped, or a simulator that does not know nocmsg
     * runs it): without a stack or a rank nothing can run, so say why through semihosting and exit with 1. */
.Lno_boot:
    .option push
    .option norvc
    li      a0, 0x04                /* SYS_WRITE0 */
    la      a1, .Lno_boot_message
    slli    x0, x0, 0x1f
    ebreak
    srai    x0, x0, 7
    li      a0, 0x20                /* SYS_EXIT_EXTENDED */
    la      a1, .Lno_boot_exit
    slli    x0, x0, 0x1f
    ebreak
    srai    x0, x0, 7
    .option pop
    j       .Lno_boot
    .size _start, . - _start

    .section .rodata.nocmsg_no_boot, "a"
    .balign 8
.Lno_boot_exit:
    .dword  0x20026                 /* ADP_Stopped_ApplicationExit */
    .dword  1                       /* exit status */
.Lno_boot_message:
    .asciz  "nocmsg runtime: the boot block (nocmsg_boot) was not filled in, so this core has no stack or rank: run the program with `nocmsg run`, unstripped\n"

    /* The boot block, filled in by the loader before the core starts. */
    .section .data.nocmsg_boot, "aw"
    .balign 8
    .globl nocmsg_boot
    .type nocmsg_boot, @object
nocmsg_boot:
    .zero 88
    .size nocmsg_boot, . - nocmsg_boot
