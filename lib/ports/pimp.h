/*
 * pimp.h: the port for PIMP's register-level send/receive FIFOs (simulated chips with ni.kind = "pimp").
 *
 * Every word is one send or recv instruction, so everything here is inline and the loops are written in
 * assembly: they decide the cycles per word that the benchmarks report (7 to push, 9 to pull). Waiting uses a
 * branch to itself, which the simulator turns into sleep. Included by port.h when building for the simulator.
 */
#ifndef NOCMSG_PORT_PIMP_H
#define NOCMSG_PORT_PIMP_H

#include <stdlib.h>

#include <nocmsg_core.h>
#include <nocmsg_pimp.h>

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
    const uint64_t *p = words, *end = words + n;
    uint64_t w, d = (uint64_t)dest;
    if (p == end)
        return 0;
    __asm__ volatile("1:\n\t"
                     ".insn b CUSTOM_1, 1, x0, x0, 2f\n\t" /* bns: send FIFO full, stop */
                     "ld %[w], 0(%[p])\n\t"
                     "addi %[p], %[p], 8\n\t"
                     ".insn r CUSTOM_0, 0, 0, x0, %[d], %[w]\n\t" /* send */
                     "bne %[p], %[end], 1b\n"
                     "2:"
                     : [p] "+r"(p), [w] "=&r"(w)
                     : [d] "r"(d), [end] "r"(end)
                     : "memory");
    return (size_t)(p - words);
}

/* One word: 1 if the send FIFO took it. */
static inline int nocmsg_port_push1(int dest, uint64_t word)
{
    int sent;
    __asm__ volatile("li %[ok], 0\n\t"
                     ".insn b CUSTOM_1, 1, x0, x0, 1f\n\t" /* bns: full */
                     ".insn r CUSTOM_0, 0, 0, x0, %[d], %[w]\n\t"
                     "li %[ok], 1\n"
                     "1:"
                     : [ok] "=&r"(sent)
                     : [d] "r"((uint64_t)dest), [w] "r"(word)
                     : "memory");
    return sent;
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

/* Pulls words of `src` into [p, end) while they are next in the receive FIFO: `on_empty` is where `bnr` goes when
 * nothing has arrived ("2f": stop; "1b": a branch to itself, i.e. sleep until a word arrives). Leaves p past the
 * last word taken. */
#define NOCMSG_PIMP_PULL(on_empty, p, end, src)                                                                 \
    do {                                                                                                        \
        uint64_t s_, w_;                                                                                        \
        __asm__ volatile("1:\n\t"                                                                               \
                         ".insn b CUSTOM_1, 3, x0, x0, " on_empty "\n\t" /* bnr */                               \
                         ".insn r CUSTOM_0, 2, 0, %[s], x0, x0\n\t"        /* src */                               \
                         "bne %[s], %[want], 2f\n\t"                                                           \
                         ".insn r CUSTOM_0, 1, 0, %[w], x0, x0\n\t" /* recv */                                     \
                         "sd %[w], 0(%[p])\n\t"                                                                \
                         "addi %[p], %[p], 8\n\t"                                                              \
                         "bne %[p], %[end], 1b\n"                                                               \
                         "2:"                                                                                   \
                         : [p] "+r"(p), [s] "=&r"(s_), [w] "=&r"(w_)                                           \
                         : [want] "r"((uint64_t)(src)), [end] "r"(end)                                         \
                         : "memory");                                                                           \
    } while (0)

static inline size_t nocmsg_port_pull(int src, uint64_t *words, size_t n)
{
    uint64_t *p = words, *end = words + n;
    if (p != end)
        NOCMSG_PIMP_PULL("2f", p, end, src);
    return (size_t)(p - words);
}

/* Like nocmsg_port_pull, but waits (asleep) for words that have not arrived yet; stops early only when a word
 * from another source is next. */
static inline size_t nocmsg_port_pull_wait(int src, uint64_t *words, size_t n)
{
    uint64_t *p = words, *end = words + n;
    if (p != end)
        NOCMSG_PIMP_PULL("1b", p, end, src);
    return (size_t)(p - words);
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

static inline size_t nocmsg_port_eager_limit(void)
{
    return 512;
}

static inline double nocmsg_port_wtime(void)
{
    return (double)nocmsg_cycles() / (double)nocmsg_frequency_hz();
}

static inline double nocmsg_port_wtick(void)
{
    return 1.0 / (double)nocmsg_frequency_hz();
}

__attribute__((noreturn)) static inline void nocmsg_port_abort(int code)
{
    exit(code);
}

#endif /* NOCMSG_PORT_PIMP_H */
