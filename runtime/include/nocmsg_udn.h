/*
 * nocmsg_udn.h: the Tilera-style user dynamic network (simulated chips with ni.kind = "udn";
 * crates/chip/src/ni/udn.rs, docs/udn.md) as inline functions.
 *
 * The interface is CSR-mapped:
 *   0x800 udn.send       write: a word into the output queue (a header when no packet is open, else payload)
 *   0x801..0x804         read: the oldest word of tagged receive queue 0..3
 *   0x805 udn.recvc      read: the oldest word of the catch-all queue
 *   0x806 udn.irqen      read/write: bit q set: a word in queue q raises the arrival interrupt
 *   0xcc0 udn.credits    read: free words in the output queue
 *   0xcc1 udn.avail      read: bit q set while queue q (4: catch-all) holds a word
 *   0xcc2..0xcc6         read: words in queue 0..3, catch-all
 *   0xcc7 udn.maxlen     read: the longest payload a header may announce (the chip's ni.udn.max_packet_words)
 *
 * A header is NOCMSG_UDN_HEADER(dest, length, tag): `length` payload words (1 to the chip's ni.udn.max_packet_words)
 * follow it. Tags 0..3 send the payload to that tagged queue of the destination (the header is stripped); other
 * tags go to its catch-all queue, preceded by a descriptor NOCMSG_UDN_HEADER(source, length, tag).
 *
 * As on the TilePro, writing a full output queue and reading an empty queue stall the core (the simulator lets a
 * stalled core sleep, exactly). A packet holds its path through the network from its header to its last word:
 * two cores that write long packets to each other before reading deadlock the network (NoCMsg's Figure 1).
 */
#ifndef NOCMSG_UDN_H
#define NOCMSG_UDN_H

#include <stddef.h>
#include <stdint.h>

#define NOCMSG_UDN_QUEUES 5
#define NOCMSG_UDN_CATCH_ALL 4
#define NOCMSG_UDN_HEADER(dest, length, tag) \
    ((uint64_t)(dest) | (uint64_t)(length) << 16 | (uint64_t)(tag) << 32)
#define NOCMSG_UDN_FIELD_RANK(word) ((unsigned)((word) & 0xffff))
#define NOCMSG_UDN_FIELD_LENGTH(word) ((unsigned)(((word) >> 16) & 0xffff))
#define NOCMSG_UDN_FIELD_TAG(word) ((uint32_t)((word) >> 32))

/* CSR instructions: the cores always have Zicsr, which -march=rv64imac does not name for newer assemblers. */
#define NOCMSG_UDN_ZICSR_(insn) ".option push\n\t.option arch, +zicsr\n\t" insn "\n\t.option pop"

/* Writes a word into the output queue (stalls while it is full). */
static inline __attribute__((always_inline)) void nocmsg_udn_send(uint64_t word)
{
    __asm__ volatile(NOCMSG_UDN_ZICSR_("csrw 0x800, %0") : : "r"(word) : "memory");
}

/* Reads CSR `csr`. */
#define NOCMSG_UDN_RECV_(csr)                                                                                   \
    __extension__({                                                                                             \
        uint64_t w_;                                                                                            \
        __asm__ volatile(NOCMSG_UDN_ZICSR_("csrr %0, " #csr) : "=r"(w_) : : "memory");                          \
        w_;                                                                                                     \
    })

/* Takes the oldest word of receive queue q (a constant 0..4; stalls while it is empty). */
static inline __attribute__((always_inline)) uint64_t nocmsg_udn_recv(unsigned q)
{
    switch (q) {
    case 0:
        return NOCMSG_UDN_RECV_(0x801);
    case 1:
        return NOCMSG_UDN_RECV_(0x802);
    case 2:
        return NOCMSG_UDN_RECV_(0x803);
    case 3:
        return NOCMSG_UDN_RECV_(0x804);
    default:
        return NOCMSG_UDN_RECV_(0x805);
    }
}

/* Free words in the output queue: that many writes do not stall. */
static inline __attribute__((always_inline)) uint64_t nocmsg_udn_credits(void)
{
    return NOCMSG_UDN_RECV_(0xcc0);
}

/* Bit q set while queue q holds a word. */
static inline __attribute__((always_inline)) uint64_t nocmsg_udn_avail(void)
{
    return NOCMSG_UDN_RECV_(0xcc1);
}

/* Words in receive queue q (a constant 0..4): that many reads do not stall. */
static inline __attribute__((always_inline)) uint64_t nocmsg_udn_count(unsigned q)
{
    switch (q) {
    case 0:
        return NOCMSG_UDN_RECV_(0xcc2);
    case 1:
        return NOCMSG_UDN_RECV_(0xcc3);
    case 2:
        return NOCMSG_UDN_RECV_(0xcc4);
    case 3:
        return NOCMSG_UDN_RECV_(0xcc5);
    default:
        return NOCMSG_UDN_RECV_(0xcc6);
    }
}

/* The longest payload a header may announce. */
static inline __attribute__((always_inline)) uint64_t nocmsg_udn_max_packet(void)
{
    return NOCMSG_UDN_RECV_(0xcc7);
}

/* Sets the queues whose arrivals raise the message-arrival interrupt (bit q: queue q); returns the old mask. */
static inline __attribute__((always_inline)) uint64_t nocmsg_udn_irq_enable(uint64_t mask)
{
    uint64_t old;
    __asm__ volatile(NOCMSG_UDN_ZICSR_("csrrw %0, 0x806, %1") : "=r"(old) : "r"(mask) : "memory");
    return old;
}

/* A word of a message buffer, which may hold objects of any type (the copy loops below read and write it inline in
 * the caller's code). */
typedef uint64_t __attribute__((may_alias)) nocmsg_udn_word;

/* Writes words w[0..m) into the output queue (stalling while it is full), loading four before writing them, so that
 * no write waits for its load (such loops run once per word of every message, on cores without branch prediction). */
static inline __attribute__((always_inline)) void nocmsg_udn_send_words(const nocmsg_udn_word *w, size_t m)
{
    const nocmsg_udn_word *end = w + m;
    for (; end - w >= 4; w += 4) {
        uint64_t a = w[0], b = w[1], c = w[2], d = w[3];
        nocmsg_udn_send(a);
        nocmsg_udn_send(b);
        nocmsg_udn_send(c);
        nocmsg_udn_send(d);
    }
    for (; w < end; w++)
        nocmsg_udn_send(*w);
}

/* Reads m words of receive queue 0 into w[0..m) (stalling while it is empty), four at a time. */
static inline __attribute__((always_inline)) void nocmsg_udn_recv0_words(nocmsg_udn_word *w, size_t m)
{
    nocmsg_udn_word *end = w + m;
    for (; end - w >= 4; w += 4) {
        uint64_t a = nocmsg_udn_recv(0), b = nocmsg_udn_recv(0), c = nocmsg_udn_recv(0), d = nocmsg_udn_recv(0);
        w[0] = a;
        w[1] = b;
        w[2] = c;
        w[3] = d;
    }
    for (; w < end; w++)
        *w = nocmsg_udn_recv(0);
}

/* The first n (1 to 7) bytes at p, which is 8-byte aligned, as a word with its other bytes zero: the aligned word
 * they lie in (it cannot cross into another page), masked; where a byte loop would cost a dozen cycles a byte. For
 * the last part word of a message. The load is assembly, so that reading past the object is no C access, and
 * clobbers memory, so that the compiler completes the stores to the bytes before it (an operand naming 8 bytes
 * would be out of bounds of a smaller object, which GCC reports). */
static inline __attribute__((always_inline)) uint64_t nocmsg_udn_part_word(const void *p, size_t n)
{
    uint64_t w;
    __asm__ volatile("ld %0, 0(%1)" : "=r"(w) : "r"(p) : "memory");
    return w & (~(uint64_t)0 >> (64 - 8 * n));
}

typedef uint32_t __attribute__((may_alias, aligned(4))) nocmsg_udn_u32a_;
typedef uint16_t __attribute__((may_alias, aligned(2))) nocmsg_udn_u16a_;

/* Stores the first n (1 to 7) bytes of w at p, which is 8-byte aligned: a 4-, a 2- and a 1-byte store as n needs,
 * none past p + n. */
static inline __attribute__((always_inline)) void nocmsg_udn_store_part(void *p, uint64_t w, size_t n)
{
    unsigned char *b = (unsigned char *)p;
    if (n & 4) {
        *(nocmsg_udn_u32a_ *)b = (uint32_t)w;
        b += 4;
        w >>= 32;
    }
    if (n & 2) {
        *(nocmsg_udn_u16a_ *)b = (uint16_t)w;
        b += 2;
        w >>= 16;
    }
    if (n & 1)
        *b = (unsigned char)w;
}

/* A whole packet of n words (1..max) to core dest, tag `tag`: stalls while the output queue is full. */
static inline void nocmsg_udn_send_packet(unsigned dest, uint32_t tag, const uint64_t *words, unsigned n)
{
    nocmsg_udn_send(NOCMSG_UDN_HEADER(dest, n, tag));
    for (unsigned i = 0; i < n; i++)
        nocmsg_udn_send(words[i]);
}

#endif /* NOCMSG_UDN_H */
