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

/* Queues words [p, end) for core `dest`, waiting for room in the send FIFO as long as no word arrives; returns where
 * it stopped: `end`, or earlier if a word arrived while the FIFO was full (a caller that must keep receiving, as
 * libnocmsg must, then takes it before going on). The wait is a two-branch loop, so it reacts to room within a few
 * cycles and keeps a long message flowing at the receiver's pace. */
static inline __attribute__((always_inline)) const uint64_t *nocmsg_pimp_stream_words(uint64_t dest,
                                                                                    const uint64_t *p,
                                                                                    const uint64_t *end)
{
    uint64_t w;
    if (p == end)
        return p;
    __asm__ volatile("j 2f\n"
                     "1:\n\t"
                     ".insn b CUSTOM_1, 2, x0, x0, 3f\n\t" /* bar: a word arrived, stop */
                     "2:\n\t"
                     ".insn b CUSTOM_1, 1, x0, x0, 1b\n\t" /* bns: full, wait */
                     "ld %[w], 0(%[p])\n\t"
                     "addi %[p], %[p], 8\n\t"
                     ".insn r CUSTOM_0, 0, 0, x0, %[d], %[w]\n\t" /* send */
                     "bne %[p], %[end], 2b\n"
                     "3:"
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

/* Takes the next received word if it is from core `src` (sleeping until a word arrives): 1 and the word in *word,
 * or 0 if the next word is another core's (nothing taken). */
static inline __attribute__((always_inline)) int nocmsg_pimp_take_from(uint64_t src, uint64_t *word)
{
    nocmsg_pimp_wait_recv();
    if (nocmsg_pimp_src() != src)
        return 0;
    *word = nocmsg_pimp_recv();
    return 1;
}

/* Stores the first n bytes (0-7) of `word` at p, which is 8-byte aligned: the last, part word of a message. Naturally
 * aligned stores of 4, 2 and 1 bytes; nothing at or past p + n is written. The branches are laid out for the
 * smallest messages (one byte falls straight through). */
static inline __attribute__((always_inline)) void nocmsg_pimp_store_tail(void *p, uint64_t word, unsigned n)
{
    typedef uint32_t u32 __attribute__((may_alias));
    typedef uint16_t u16 __attribute__((may_alias));
    unsigned char *q = (unsigned char *)p;
    if (__builtin_expect(n & 4, 0)) {
        *(u32 *)q = (uint32_t)word;
        word >>= 32;
        q += 4;
    }
    if (__builtin_expect(n & 2, 0)) {
        *(u16 *)q = (uint16_t)word;
        word >>= 16;
        q += 2;
    }
    if (__builtin_expect(n & 1, 1))
        *q = (unsigned char)word;
}

/* Takes the next received word if it is from core `src` (sleeping until a word arrives) and stores its first n bytes
 * (1-7) at p, which is 8-byte aligned: 1, or 0 if the next word is another core's (nothing taken). In one assembly
 * block, so that the branches are few and laid out on purpose: one byte falls straight through; otherwise the last
 * byte goes on its own, a halfword or word from p covers the start, and bytes 4-5 of six or seven follow (a byte in
 * the middle may be stored twice, with its own value: nothing outside p..p+n-1 is written). */
static inline __attribute__((always_inline)) int nocmsg_pimp_take_tail(uint64_t src, void *p, unsigned n)
{
    __asm__ goto("1:\n\t"
                 ".insn b CUSTOM_1, 3, x0, x0, 1b\n\t" /* bnr: wait */
                 ".insn r CUSTOM_0, 2, 0, t0, x0, x0\n\t" /* src */
                 "bne t0, %[s], %l[other]\n\t"
                 ".insn r CUSTOM_0, 1, 0, t0, x0, x0\n\t" /* recv */
                 "addi t1, %[n], -1\n\t"
                 "bnez t1, 2f\n\t"
                 "sb t0, 0(%[p])\n\t" /* one byte */
                 "j 4f\n"
                 "2:\n\t"
                 "slli t2, t1, 3\n\t" /* the last byte, n - 1 */
                 "srl t2, t0, t2\n\t"
                 "add t1, %[p], t1\n\t"
                 "sb t2, 0(t1)\n\t"
                 "srli t1, %[n], 2\n\t"
                 "bnez t1, 3f\n\t"
                 "sh t0, 0(%[p])\n\t" /* two or three */
                 "j 4f\n"
                 "3:\n\t"
                 "sw t0, 0(%[p])\n\t" /* four to seven */
                 "andi t1, %[n], 2\n\t"
                 "beqz t1, 4f\n\t"
                 "srli t2, t0, 32\n\t" /* six or seven: bytes 4-5 */
                 "sh t2, 4(%[p])\n"
                 "4:"
                 :
                 : [s] "r"(src), [p] "r"(p), [n] "r"(n)
                 : "t0", "t1", "t2", "memory"
                 : other);
    return 1;
other:
    return 0;
}

/* Stores the first n bytes (0-8) of `word` at p, whatever p's alignment, with naturally aligned stores: up to the
 * next 8-byte boundary in rising sizes, then in falling ones. Nothing at or past p + n is written. */
static inline void nocmsg_pimp_store_bytes(void *p, uint64_t word, unsigned n)
{
    typedef uint64_t u64 __attribute__((may_alias));
    typedef uint32_t u32 __attribute__((may_alias));
    typedef uint16_t u16 __attribute__((may_alias));
    unsigned char *q = (unsigned char *)p;
    if (((uintptr_t)q & 1) && n) {
        *q++ = (unsigned char)word;
        word >>= 8;
        n--;
    }
    if (((uintptr_t)q & 2) && n >= 2) {
        *(u16 *)q = (uint16_t)word;
        word >>= 16;
        q += 2;
        n -= 2;
    }
    if (((uintptr_t)q & 4) && n >= 4) {
        *(u32 *)q = (uint32_t)word;
        word >>= 32;
        q += 4;
        n -= 4;
    }
    if (n == 8) {
        *(u64 *)q = word;
        return;
    }
    nocmsg_pimp_store_tail(q, word, n);
}

#endif /* NOCMSG_PIMP_H */
