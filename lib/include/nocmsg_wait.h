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
__asm__(".ifndef .Lnocmsg_wait_site_defined\n\t" /* once per assembly file: -flto joins the files' copies */
        ".set .Lnocmsg_wait_site_defined, 1\n\t"
        ".macro nocmsg_wait_site peer, call=\n\t"
        ".Lnocmsg_wait\\@: .insn b CUSTOM_1, 3, x0, x0, .Lnocmsg_wait\\@\n\t" /* bnr to itself */
        ".pushsection .nocmsg_waits,\"\",@progbits\n\t"
        ".balign 8\n\t"
        ".dword .Lnocmsg_wait\\@\n\t"
        ".asciz \"\\call|\\peer\"\n\t"
        ".popsection\n\t"
        ".endm\n\t"
        ".endif");

#ifdef NOCMSG_PORT_UDN
#include <nocmsg_udn.h>

/* On UDN chips a core waits for a message by reading its empty receive queue 0, and a raw send (NoCMsg's
 * non-flow-controlled transfer) by writing its full output queue: each stalls, asleep, until the network moves. The
 * same table names those reads and writes. */
__asm__(".ifndef .Lnocmsg_udn_sites_defined\n\t"
        ".set .Lnocmsg_udn_sites_defined, 1\n\t"
        ".macro nocmsg_udn_wait_site rd, peer, call=\n\t"
        ".option push\n\t.option arch, +zicsr\n\t"
        ".Lnocmsg_udn_wait\\@: csrr \\rd, 0x801\n\t" /* udn.recv0 */
        ".option pop\n\t"
        ".pushsection .nocmsg_waits,\"\",@progbits\n\t"
        ".balign 8\n\t"
        ".dword .Lnocmsg_udn_wait\\@\n\t"
        ".asciz \"\\call|\\peer\"\n\t"
        ".popsection\n\t"
        ".endm\n\t"
        ".macro nocmsg_udn_send_site rs, peer, call=\n\t"
        ".option push\n\t.option arch, +zicsr\n\t"
        ".Lnocmsg_udn_send\\@: csrw 0x800, \\rs\n\t" /* udn.send */
        ".option pop\n\t"
        ".pushsection .nocmsg_waits,\"\",@progbits\n\t"
        ".balign 8\n\t"
        ".dword .Lnocmsg_udn_send\\@\n\t"
        ".asciz \"\\call|\\peer\"\n\t"
        ".popsection\n\t"
        ".endm\n\t"
        ".endif");

/* The next word of UDN receive queue 0, waiting for it, recorded in the wait-site table like NOCMSG__WAIT_SITE_. */
#define NOCMSG__UDN_RECV_SITE_(call, peer, ...)                                                                \
    __extension__({                                                                                             \
        unsigned long nocmsg_w_;                                                                                \
        __asm__ volatile("nocmsg_udn_wait_site %[w], " peer ", " #call                                          \
                         : [w] "=r"(nocmsg_w_)                                                                  \
                         : __VA_ARGS__                                                                          \
                         : "memory");                                                                           \
        nocmsg_w_;                                                                                              \
    })

/* A word into the UDN output queue, stalling while it is full, recorded in the wait-site table. */
#define NOCMSG__UDN_SEND_SITE_(call, word, peer, ...)                                                          \
    __asm__ volatile("nocmsg_udn_send_site %[w], " peer ", " #call : : [w] "r"((unsigned long)(word)), __VA_ARGS__ \
                     : "memory")

/* A word of NoCMsg's raw send into the output queue, named as nocmsg_xsend waiting for world rank dest: the send
 * stalls while the queue is full, and neither its inline form (nocmsg_inline_udn.h) nor the library's, which the
 * public function left by a tail call (lib/ports/udn.c), has a frame of nocmsg_xsend on the stack. */
static inline __attribute__((always_inline)) void nocmsg__udn_xsend_word(unsigned long w, long dest)
{
    NOCMSG__UDN_SEND_SITE_(nocmsg_xsend, w, "%[p]", [p] "g"(dest));
}

/* Words w[0..m) of a raw send to world rank dest, four loads before four writes (as nocmsg_udn_send_words). */
static inline __attribute__((always_inline)) void nocmsg__udn_xsend_words(const nocmsg_udn_word *w, size_t m,
                                                                          long dest)
{
    const nocmsg_udn_word *end = w + m;
    for (; end - w >= 4; w += 4) {
        uint64_t a = w[0], b = w[1], c = w[2], d = w[3];
        nocmsg__udn_xsend_word(a, dest);
        nocmsg__udn_xsend_word(b, dest);
        nocmsg__udn_xsend_word(c, dest);
        nocmsg__udn_xsend_word(d, dest);
    }
    for (; w < end; w++)
        nocmsg__udn_xsend_word(*w, dest);
}
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
