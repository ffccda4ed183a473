/*
 * nocmsg_wait.h: how a simulated core's wait loops tell the deadlock report what they wait for, at no cost. Included
 * by nocmsg_inline.h and the library; do not include it yourself.
 *
 * A core that waits for a message spins in `1: bnr 1b`, which the simulator turns into sleep. When every running
 * core sleeps like that, `nocmsg run` reports a deadlock, and for each rank names the call it is blocked in, the
 * caller, and the rank it waits for. The call and caller come from the core's stack (the chip unwinds it with the
 * program's .debug_frame); the rank it waits for comes either from the library's wait record (lib/src/wait.h, set
 * around the library's blocking loops) or, for the waits on the fast paths, from a table the assembler builds: each
 * such wait loop adds an entry to the section `.nocmsg_waits`, which is not loaded into memory, so the loop itself
 * is the same single instruction as before and costs nothing more. An entry is
 *
 *     .balign 8; .dword <address of the bnr>; .asciz "<call>|<peer>"
 *
 * where <call> names the call the loop belongs to when no library frame does (the inline fast paths live in the
 * caller's own code; empty otherwise), and <peer> is where the rank waited for is while the core sleeps: the
 * register holding it (e.g. `a5`), a stack slot (`8(sp)`) or a constant (world ranks; -1 for any source). A peer
 * given as a rank of a communicator is `<rank>/<communicator handle>`.
 */
#ifndef NOCMSG_WAIT_H
#define NOCMSG_WAIT_H

#ifdef NOCMSG_SIM
/* The loop and its table entry are one assembler macro, so that each wait is a single line of inline assembly, as
 * long as the loop itself: GCC sizes an asm by its lines, and a longer one changes how it lays out and duplicates
 * the code around it, which costs cycles elsewhere. */
__asm__(".macro nocmsg_wait_site peer, call=\n\t"
        ".Lnocmsg_wait\\@: .insn b CUSTOM_1, 3, x0, x0, .Lnocmsg_wait\\@\n\t" /* bnr to itself */
        ".pushsection .nocmsg_waits,\"\",@progbits\n\t"
        ".balign 8\n\t"
        ".dword .Lnocmsg_wait\\@\n\t"
        ".asciz \"\\call|\\peer\"\n\t"
        ".popsection\n"
        ".endm");

#ifdef NOCMSG_PORT_UDN
/* On UDN chips a core waits for a message by reading its empty receive queue 0 (the read stalls, asleep, until a
 * word lands): the same table names that read. */
__asm__(".macro nocmsg_udn_wait_site rd, peer, call=\n\t"
        ".option push\n\t.option arch, +zicsr\n\t"
        ".Lnocmsg_udn_wait\\@: csrr \\rd, 0x801\n\t" /* udn.recv0 */
        ".option pop\n\t"
        ".pushsection .nocmsg_waits,\"\",@progbits\n\t"
        ".balign 8\n\t"
        ".dword .Lnocmsg_udn_wait\\@\n\t"
        ".asciz \"\\call|\\peer\"\n\t"
        ".popsection\n"
        ".endm");

/* The next word of UDN receive queue 0, waiting for it, recorded in the wait-site table like NOCMSG__WAIT_SITE_. */
#define NOCMSG__UDN_RECV_SITE_(call, peer, ...)                                                                \
    ({                                                                                                          \
        unsigned long w_;                                                                                       \
        __asm__ volatile("nocmsg_udn_wait_site %[w], " peer ", " #call : [w] "=r"(w_) : __VA_ARGS__ : "memory"); \
        w_;                                                                                                     \
    })
#endif

/* A wait loop with its table entry: `call` a name (no quotes; empty when a library frame names the call), `peer`
 * the entry's peer text, with operands from the rest. */
#define NOCMSG__WAIT_SITE_(call, peer, ...)                                                                    \
    __asm__ volatile("nocmsg_wait_site " peer ", " #call : : __VA_ARGS__ : "memory")

/* Sleeps until a word has arrived, like nocmsg_pimp_wait_recv, recording the loop in the wait-site table: `call`
 * names the call (no quotes; empty when a library frame names it), `peer` is the world rank waited for. The operand
 * may be wherever the value already is ("g": a register, a stack slot or a constant), so that naming it never costs
 * an instruction. */
#define NOCMSG__WAIT_RECV_SITE(call, peer) NOCMSG__WAIT_SITE_(call, "%[p]", [p] "g"((long)(peer)))
#endif
#endif /* NOCMSG_WAIT_H */
