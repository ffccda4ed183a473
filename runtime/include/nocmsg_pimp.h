/*
 * nocmsg_pimp.h: the PIMP network interface instructions as inline functions (simulated chips with
 * ni.kind = "pimp").
 *
 * Encoding (fixed by the architecture): custom-0 R-type funct3 0 `send rs1=destination core, rs2=word`,
 * 1 `recv rd`, 2 `src rd`; custom-1 B-type with rs1 = rs2 = x0, funct3 0 `brs` (branch if the send FIFO has room),
 * 1 `bns` (branch if it is full), 2 `bar` (branch if a word has arrived), 3 `bnr` (branch if none has).
 * Destinations and sources are core numbers as returned by nocmsg_core_id(). `recv`/`src` on an empty receive
 * FIFO and `send` on a full send FIFO stop the core with an error, so test first, or use the waiting forms: a
 * branch to itself (`1: bnr 1b`) is how a core waits, and the simulator lets such a core sleep until its FIFO
 * changes (exactly, with the same cycle counts as if it had spun).
 */
#ifndef NOCMSG_PIMP_H
#define NOCMSG_PIMP_H

#include <stdint.h>

/* Queues `word` for core `dest`. The send FIFO must have room (nocmsg_pimp_can_send or nocmsg_pimp_wait_send). */
static inline __attribute__((always_inline)) void nocmsg_pimp_send(uint64_t dest, uint64_t word)
{
    __asm__ volatile(".insn r CUSTOM_0, 0, 0, x0, %0, %1" : : "r"(dest), "r"(word) : "memory");
}

/* Takes the oldest received word. A word must have arrived. */
static inline __attribute__((always_inline)) uint64_t nocmsg_pimp_recv(void)
{
    uint64_t word;
    __asm__ volatile(".insn r CUSTOM_0, 1, 0, %0, x0, x0" : "=r"(word) : : "memory");
    return word;
}

/* The core that sent the oldest received word (not taken). A word must have arrived. */
static inline __attribute__((always_inline)) uint64_t nocmsg_pimp_src(void)
{
    uint64_t core;
    __asm__ volatile(".insn r CUSTOM_0, 2, 0, %0, x0, x0" : "=r"(core) : : "memory");
    return core;
}

/* 1 if the send FIFO has room (brs). Tested with asm goto, so that `if (nocmsg_pimp_can_send())` compiles to the
 * one branch instruction. */
static inline __attribute__((always_inline)) int nocmsg_pimp_can_send(void)
{
    __asm__ goto(".insn b CUSTOM_1, 0, x0, x0, %l[room]" : : : "memory" : room);
    return 0;
room:
    return 1;
}

/* 1 if a word has arrived (bar), likewise one branch. */
static inline __attribute__((always_inline)) int nocmsg_pimp_has_message(void)
{
    __asm__ goto(".insn b CUSTOM_1, 2, x0, x0, %l[arrived]" : : : "memory" : arrived);
    return 0;
arrived:
    return 1;
}

/* Waits until the send FIFO has room: `1: bns 1b`. */
static inline __attribute__((always_inline)) void nocmsg_pimp_wait_send(void)
{
    __asm__ volatile("1: .insn b CUSTOM_1, 1, x0, x0, 1b" : : : "memory");
}

/* Waits until a word has arrived: `1: bnr 1b`. */
static inline __attribute__((always_inline)) void nocmsg_pimp_wait_recv(void)
{
    __asm__ volatile("1: .insn b CUSTOM_1, 3, x0, x0, 1b" : : : "memory");
}

/* Queues words [p, end) for core `dest` while the send FIFO has room (never waits); returns where it stopped.
 * The first word is sent on its own, so a one-word message takes no branch; the rest go two per iteration:
 * 6 cycles per word on the default timing. */
static inline __attribute__((always_inline)) const uint64_t *nocmsg_pimp_send_words(uint64_t dest, const uint64_t *p,
                                                                                  const uint64_t *end)
{
    uint64_t w;
    if (p == end)
        return p;
    __asm__ volatile(".insn b CUSTOM_1, 1, x0, x0, 1f\n\t" /* bns: full, stop */
                     "ld %[w], 0(%[p])\n\t"
                     "addi %[p], %[p], 8\n\t"
                     ".insn r CUSTOM_0, 0, 0, x0, %[d], %[w]\n" /* send */
                     "1:"
                     : [p] "+r"(p), [w] "=&r"(w)
                     : [d] "r"(dest)
                     : "memory");
    if (__builtin_expect(p == end, 1))
        return p;
    __asm__ volatile("1:\n\t"
                     ".insn b CUSTOM_1, 1, x0, x0, 2f\n\t"
                     "ld %[w], 0(%[p])\n\t"
                     "addi %[p], %[p], 8\n\t"
                     ".insn r CUSTOM_0, 0, 0, x0, %[d], %[w]\n\t"
                     "beq %[p], %[end], 2f\n\t"
                     ".insn b CUSTOM_1, 1, x0, x0, 2f\n\t"
                     "ld %[w], 0(%[p])\n\t"
                     "addi %[p], %[p], 8\n\t"
                     ".insn r CUSTOM_0, 0, 0, x0, %[d], %[w]\n\t"
                     "bne %[p], %[end], 1b\n"
                     "2:"
                     : [p] "+r"(p), [w] "=&r"(w)
                     : [d] "r"(dest), [end] "r"(end)
                     : "memory");
    return p;
}

/* One step of nocmsg_pimp_recv_words: takes a word from `src` if it is next. `a` is where bnr goes when nothing
 * has arrived: "1b" sleeps until a word arrives (a branch to itself), "2f" gives up (2: ends the asm block). */
#define NOCMSG_PIMP_TAKE_(a)                                                                                    \
    "1:\n\t"                                                                                                   \
    ".insn b CUSTOM_1, 3, x0, x0, " a "\n\t" /* bnr */                                                         \
    ".insn r CUSTOM_0, 2, 0, %[s], x0, x0\n\t" /* src */                                                       \
    "bne %[s], %[want], 2f\n\t"                                                                                \
    ".insn r CUSTOM_0, 1, 0, %[w], x0, x0\n\t" /* recv */                                                      \
    "sd %[w], 0(%[p])\n\t"                                                                                     \
    "addi %[p], %[p], 8\n\t"
#define NOCMSG_PIMP_TAKE_WORDS_(a)                                                                           \
    do {                                                                                                       \
        __asm__ volatile(NOCMSG_PIMP_TAKE_(a) "2:"                                                             \
                         : [p] "+r"(p), [s] "=&r"(s), [w] "=&r"(w)                                             \
                         : [want] "r"(src)                                                                     \
                         : "memory");                                                                          \
        if (__builtin_expect(p != end, 0))                                                                     \
            __asm__ volatile("3:\n\t" NOCMSG_PIMP_TAKE_(a) "beq %[p], %[end], 2f\n\t" NOCMSG_PIMP_TAKE_(a)   \
                                                     "bne %[p], %[end], 3b\n"                                  \
                                                     "2:"                                                      \
                             : [p] "+r"(p), [s] "=&r"(s), [w] "=&r"(w)                                         \
                             : [want] "r"(src), [end] "r"(end)                                                 \
                             : "memory");                                                                      \
    } while (0)

/* Takes words from core `src` into [p, end) as long as the next received word is from src; returns where it
 * stopped. `wait` = 0: stops when nothing has arrived; `wait` = 1: sleeps until the next word arrives instead
 * (so it stops early only when a word from another core is next). Like nocmsg_pimp_send_words, the first word on
 * its own, then two per iteration: 8 cycles per word on the default timing. */
static inline __attribute__((always_inline)) uint64_t *nocmsg_pimp_recv_words(uint64_t src, uint64_t *p, uint64_t *end,
                                                                            int wait)
{
    uint64_t s, w;
    if (p == end)
        return p;
    if (wait)
        NOCMSG_PIMP_TAKE_WORDS_("1b");
    else
        NOCMSG_PIMP_TAKE_WORDS_("2f");
    return p;
}

#endif /* NOCMSG_PIMP_H */
