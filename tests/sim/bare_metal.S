/*
 * bare_metal.S: a program without the nocmsg runtime (no boot block, its own _start), which the simulator must
 * still load and run: it exits through semihosting with status 5. Link with -nostdlib -T runtime/nocmsg.ld.
 */
    .section .text.init.enter, "ax"
    .globl _start
_start:
    li      a0, 0x20                /* SYS_EXIT_EXTENDED */
    la      a1, exit_block
    slli    x0, x0, 0x1f
    ebreak
    srai    x0, x0, 7
1:  j       1b

    .data
    .balign 8
exit_block:
    .dword  0x20026                 /* ADP_Stopped_ApplicationExit */
    .dword  5
