/*
 * pimp.h: the port for PIMP's register-level send/receive FIFOs (simulated chips with ni.kind = "pimp").
 *
 * Every word is one send or recv instruction, so everything here is inline; the word loops are the assembly ones
 * of nocmsg_pimp.h (6 cycles per word to push, 8 to pull), which the inline fast paths of nocmsg_inline.h use
 * too. Waiting uses a branch to itself, which the simulator turns into sleep. Included by port.h when building
 * for the simulator.
 */
#ifndef NOCMSG_PORT_PIMP_H
#define NOCMSG_PORT_PIMP_H

#include <stdlib.h>

#include <nocmsg_core.h>
#include <nocmsg_pimp.h>
#include <nocmsg_semihost.h>

#include "../include/nocmsg.h"

static inline int nocmsg_port_init(int *rank, int *size)
{
    *rank = (int)nocmsg_core_id();
    *size = (int)nocmsg_num_cores();
    return NOCMSG_SUCCESS;
}

static inline void nocmsg_port_finalize(void) {}

static inline const char *nocmsg_port_kind(void)
{
    return "pimp";
}

static inline size_t nocmsg_port_push(int dest, const uint64_t *words, size_t n)
{
    return (size_t)(nocmsg_pimp_send_words((uint64_t)dest, words, words + n) - words);
}

/* One word: 1 if the send FIFO took it. */
static inline int nocmsg_port_push1(int dest, uint64_t word)
{
    __asm__ goto(".insn b CUSTOM_1, 1, x0, x0, %l[full]" : : : "memory" : full); /* bns */
    nocmsg_pimp_send((uint64_t)dest, word);
    return 1;
full:
    return 0;
}

static inline size_t nocmsg_port_push_packet(int dest, uint64_t header, const uint64_t *payload, size_t n)
{
    if (!nocmsg_port_push1(dest, header))
        return 0;
    return 1 + (n ? nocmsg_port_push(dest, payload, n) : 0);
}

/* The next word, which must be from the source port_poll named. */
static inline uint64_t nocmsg_port_pull1_from(int src)
{
    (void)src;
    return nocmsg_pimp_recv();
}

static inline int nocmsg_port_poll(int *src)
{
    if (!nocmsg_pimp_has_message())
        return 0;
    *src = (int)nocmsg_pimp_src();
    return 1;
}

static inline int nocmsg_port_next(void)
{
    nocmsg_pimp_wait_recv(); /* bnr to itself: falls through at once when a word is there */
    return (int)nocmsg_pimp_src();
}

static inline size_t nocmsg_port_pull(int src, uint64_t *words, size_t n)
{
    return (size_t)(nocmsg_pimp_recv_words((uint64_t)src, words, words + n, 0) - words);
}

/* Like nocmsg_port_pull, but waits (asleep) for words that have not arrived yet; stops early only when a word
 * from another source is next. */
static inline size_t nocmsg_port_pull_wait(int src, uint64_t *words, size_t n)
{
    return (size_t)(nocmsg_pimp_recv_words((uint64_t)src, words, words + n, 1) - words);
}

static inline void nocmsg_port_wait(int sending)
{
    if (!sending) {
        nocmsg_pimp_wait_recv();
        return;
    }
    /* Either FIFO may change first; no single branch waits for both, so spin on the pair. */
    __asm__ volatile("1:\n\t"
                     ".insn b CUSTOM_1, 2, x0, x0, 2f\n\t" /* bar: a word arrived */
                     ".insn b CUSTOM_1, 1, x0, x0, 1b\n"   /* bns: still full, test again */
                     "2:" ::: "memory");
}

static inline void nocmsg_port_mesh(int *width, int *height, int *concentration)
{
    *width = (int)nocmsg_boot.mesh_width;
    *height = (int)nocmsg_boot.mesh_height;
    *concentration = (int)nocmsg_boot.concentration;
}

static inline size_t nocmsg_port_eager_limit(void)
{
    return NOCMSG__PIMP_EAGER_LIMIT;
}

static inline double nocmsg_port_wtime(void)
{
    return (double)nocmsg_cycles() / (double)nocmsg_frequency_hz();
}

static inline double nocmsg_port_wtick(void)
{
    return 1.0 / (double)nocmsg_frequency_hz();
}

/* Ends the whole run, every core, with `code` (as the native launcher stops every rank), not only this core. */
__attribute__((noreturn)) static inline void nocmsg_port_abort(int code)
{
    int64_t block[1] = {code};
    nocmsg_semihost(NOCMSG_SYS_ABORT, block);
    exit(code ? code : 1); /* not reached on the simulator */
}

#endif /* NOCMSG_PORT_PIMP_H */
