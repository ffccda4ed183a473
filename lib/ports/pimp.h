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

/* nocmsg_port_push_bytes for a misaligned buffer: each word is shifted together from the two aligned blocks it spans
 * (never reading a block that holds none of the message's bytes). Out of line, so that the aligned case needs no
 * stack frame. */
__attribute__((noinline)) static size_t nocmsg_pimp_push_skewed(int dest, const void *buf, size_t bytes, size_t from)
{
    typedef uint64_t u64 __attribute__((may_alias));
    size_t words = (bytes + 7) / 8;
    unsigned skew = (unsigned)((uintptr_t)buf & 7), lo_shift = 8 * skew, hi_shift = 64 - lo_shift;
    const u64 *block = (const u64 *)((uintptr_t)buf - skew) + from;
    for (size_t i = from; i < words; i++, block++) {
        /* Word i is message bytes 8i..8i+7: the top of block i and, if the message goes on, the bottom of i + 1. */
        uint64_t w = block[0] >> lo_shift;
        if (8 * i + 8 - skew < bytes)
            w |= block[1] << hi_shift;
        if (!nocmsg_port_push1(dest, w))
            return i;
    }
    return words;
}

/* Payload words [from, (bytes + 7) / 8) of a `bytes`-byte message at buf, as far as the send FIFO takes them; returns
 * the position reached. An aligned buffer goes word by word through the assembly loop, its last part word read whole:
 * the 8-byte block that holds a message's last byte lies in the core's memory, and the receiver never stores the
 * bytes past the message. */
static inline size_t nocmsg_port_push_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    if (__builtin_expect(((uintptr_t)buf & 7) != 0, 0))
        return nocmsg_pimp_push_skewed(dest, buf, bytes, from);
    const uint64_t *p = (const uint64_t *)buf;
    return (size_t)(nocmsg_pimp_send_words((uint64_t)dest, p + from, p + (bytes + 7) / 8) - p);
}

/* A header, then the payload of a `bytes`-byte message at buf (nocmsg_port_push_bytes); returns how many words were
 * taken, header included. */
static inline size_t nocmsg_port_push_message(int dest, uint64_t header, const void *buf, size_t bytes)
{
    if (!nocmsg_port_push1(dest, header))
        return 0;
    return 1 + nocmsg_port_push_bytes(dest, buf, bytes, 0);
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

/* One word of src's stream into *word, waiting for it (asleep) as nocmsg_port_pull_wait does: 1, or 0 if another
 * source's word is next. */
static inline int nocmsg_port_take(int src, uint64_t *word)
{
    return nocmsg_pimp_take_from((uint64_t)src, word);
}

/* Like nocmsg_port_pull, but waits (asleep) for words that have not arrived yet; stops early only when a word
 * from another source is next. */
static inline size_t nocmsg_port_pull_wait(int src, uint64_t *words, size_t n)
{
    return (size_t)(nocmsg_pimp_recv_words((uint64_t)src, words, words + n, 1) - words);
}

/* nocmsg_port_pull_bytes for a misaligned buffer: whole aligned blocks, each joined from two words, and part blocks
 * at its ends (out of line, as nocmsg_pimp_push_skewed). */
__attribute__((noinline)) static size_t nocmsg_pimp_pull_skewed(int src, void *buf, size_t bytes)
{
    typedef uint64_t u64 __attribute__((may_alias));
    size_t words = (bytes + 7) / 8;
    if (words == 0)
        return 0;
    /* Block j (aligned) holds message bytes 8j - skew .. 8j - skew + 7: the top `skew` bytes of word j - 1 and the
     * bottom 8 - skew of word j. */
    unsigned skew = (unsigned)((uintptr_t)buf & 7), head = 8 - skew, lo_shift = 8 * head, hi_shift = 8 * skew;
    u64 *block = (u64 *)((uintptr_t)buf - skew);
    uint64_t prev, w;
    if (!nocmsg_pimp_take_from((uint64_t)src, &prev))
        return 0;
    nocmsg_pimp_store_bytes(buf, prev, bytes < head ? (unsigned)bytes : head);
    for (size_t j = 1; j < words; j++) {
        size_t start = 8 * j - skew; /* message offset of block j */
        if (!nocmsg_pimp_take_from((uint64_t)src, &w)) {
            /* Store what word j - 1 still holds, so that every byte of the words taken is in place. */
            nocmsg_pimp_store_tail((void *)&block[j], prev >> lo_shift, skew);
            return j;
        }
        uint64_t b = (prev >> lo_shift) | (w << hi_shift);
        if (start + 8 <= bytes)
            block[j] = b;
        else
            nocmsg_pimp_store_tail((void *)&block[j], b, (unsigned)(bytes - start));
        prev = w;
    }
    size_t start = 8 * words - skew;
    if (start < bytes)
        nocmsg_pimp_store_tail((void *)&block[words], prev >> lo_shift, (unsigned)(bytes - start));
    return words;
}

/* The payload of a `bytes`-byte message from src into buf (any alignment), from its first word, waiting for words on
 * their way; stops early only when another source's word is next. Returns the words taken, every byte of which is
 * stored (and nothing at or past buf + bytes). */
static inline size_t nocmsg_port_pull_bytes(int src, void *buf, size_t bytes)
{
    if (__builtin_expect(((uintptr_t)buf & 7) != 0, 0))
        return nocmsg_pimp_pull_skewed(src, buf, bytes);
    uint64_t *p = (uint64_t *)buf, w;
    size_t whole = bytes / 8, k = (size_t)(nocmsg_pimp_recv_words((uint64_t)src, p, p + whole, 1) - p);
    if (__builtin_expect((bytes & 7) != 0, 0) && k == whole && nocmsg_pimp_take_from((uint64_t)src, &w)) {
        nocmsg_pimp_store_tail(p + whole, w, (unsigned)(bytes & 7));
        k++;
    }
    return k;
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

/* Like nocmsg_port_push_bytes, but waits for room while no word arrives: returns (bytes + 7) / 8 when it is all out,
 * or where it stopped because a word arrived while the FIFO was full. */
static inline size_t nocmsg_port_stream_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    size_t words = (bytes + 7) / 8;
    if (__builtin_expect(((uintptr_t)buf & 7) != 0, 0)) {
        for (;;) {
            from = nocmsg_pimp_push_skewed(dest, buf, bytes, from);
            if (from == words || nocmsg_pimp_has_message())
                return from;
            nocmsg_port_wait(1);
        }
    }
    const uint64_t *p = (const uint64_t *)buf;
    return (size_t)(nocmsg_pimp_stream_words((uint64_t)dest, p + from, p + words) - p);
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
