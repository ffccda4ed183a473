/*
 * mpb.c: the port for SCC-style message-passing buffers (simulated chips with ni.kind = "mpb", built with
 * -DNOCMSG_PORT_MPB; runtime/include/nocmsg_mpb.h, crates/chip/src/ni/mpb.rs). docs/libnocmsg.md describes the
 * protocol and what it costs.
 *
 * Every rank's MPB share is laid out the same way (n ranks, L-byte lines, S bytes per share once its end,
 * NOCMSG_MPB_AREA_BYTES (port.h), is left to the SCC broadcast family, lib/src/coll/bcast/scc.c):
 *
 *     heads  n counts, rounded up to whole lines: heads[s] = words rank s has written into my ring from s
 *     acks   n counts, rounded up to whole lines: acks[r] = words rank r has taken of my stream to r
 *     rings  n rings of R = ((S - 2 x heads) / n rounded down to lines) bytes: ring[s] holds s's words to me
 *
 * A sender writes words into its ring in the receiver's share (remote stores, gathered a line at a time by the
 * write-combining buffer), then its new count into the receiver's heads[me], and flushes: the buffer writes a line
 * out, and waits for the acknowledgement, before it takes a store to another line, so the data is in place before
 * the count that publishes it. Only the bytes stored are written, so the 16-bit counts of different senders share
 * lines safely. The receiver reads only its own share (its local MPB, 15 cycles a line): it invalidates its line
 * cache before every read of the heads, and reads a ring word only after a count that covers it, so no line it
 * reads is older than the count. It tells the sender how far it has taken by writing acks[me] in the sender's share
 * once half a ring has been taken since the last report (and, before it waits, once an eighth has). A sender never
 * has more than a ring's R/8 words unreported, so it never overwrites what the receiver has not taken; and a sender
 * whose ring is full has a report coming, since the receiver reports once it has taken half of what fills it.
 *
 * Counts are modulo 2^8 where rings hold fewer than 256 words (8 ranks or more on 16 KiB shares), else modulo 2^16,
 * so that a poll reads 8 (or 4) counts with each 8-byte load: 64 ranks' heads are 2 lines. Waiting is polling the own
 * share's heads (and, while a send waits for room, its acks), with a pause between polls that grows while nothing
 * changes. Each poll is a few accesses that the simulator serves one by one; the pause is a semihosting sleep
 * (NOCMSG_SYS_SLEEP), which lets simulated time pass without simulating instructions, so a waiting rank costs the
 * simulator little more than its polls (and its stall breakdown shows the pauses as sleep).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nocmsg_core.h>
#include <nocmsg_mpb.h>
#include <nocmsg_semihost.h>

#include "../include/nocmsg.h"
#include "port.h"

/* What this rank knows of one peer, and where the words between us go. Counts are modulo 2^16, positions are
 * slots of a ring. */
struct peer {
    volatile uint64_t *tx_ring;      /* my ring in its share */
    volatile void *tx_head;          /* its heads[me]: where I publish tx_count */
    volatile void *rx_ack;           /* its acks[me]: where I report how much of its words I took */
    const volatile uint64_t *rx_ring; /* its ring in my share */
    uint16_t tx_count;               /* words I have written into its ring */
    uint16_t tx_acked;               /* of those, how many it has taken (as last read from my acks[peer]) */
    uint16_t tx_pos;                 /* slot of the next word to write into its ring */
    uint16_t head;                   /* words it has published into my ring (as last read) */
    uint16_t acked;                  /* my count of its words taken, as last reported */
    uint16_t rx_pos;                 /* slot of the next word to take from my ring from it */
    uint16_t tail;                   /* words of it I have taken */
};

/* Pause between polls while nothing changes, in cycles: it starts short, so a wait that ends soon costs little
 * latency, and doubles up to pause_max (PAUSE_BASE plus PAUSE_PER_GROUP for every four ranks: a poll then reads
 * more of the heads), so that polling takes a fraction of a long wait. */
enum { PAUSE_FIRST = 16, PAUSE_BASE = 64, PAUSE_PER_GROUP = 16 };
/* Waits in the middle of a packet (for the rest of it, or for room to send the rest) end soon: their pauses stay
 * short. */
enum { PAUSE_MID_PACKET = 32 };

/* A long write is published every PUBLISH_WORDS words (8 lines), so that the receiver takes the first words while
 * the sender writes the next ones: a publication costs a remote write, 8 lines of data eight. */
enum { PUBLISH_WORDS = 32 };

static struct {
    int me, n;
    uint16_t ring_words; /* words of a ring */
    uint16_t ack_after;  /* words taken from a peer after which they are reported at once (half a ring) */
    uint16_t ack_soon;   /* ... and before waiting (an eighth) */
    uint16_t publish_every; /* a long write is published every so many words (PUBLISH_WORDS, at most ack_after) */
    unsigned count_bits; /* 8 or 16 */
    unsigned lane_shift; /* log2 of the counts in 8 bytes (3 or 2) */
    uint16_t count_mask; /* counts are modulo count_mask + 1 */
    unsigned groups;     /* 8-byte words of the heads area in use */
    unsigned pause_max;
    uint64_t ns_per_cycle_q32; /* nanoseconds per core cycle, times 2^32 (for the sleeps) */
    const volatile uint64_t *heads; /* my heads area */
    const volatile uint64_t *acks;  /* my acks area */
    uint64_t *tails;     /* every peer's tail, packed as the heads area (groups words) */
    uint64_t *acks_seen; /* the acks area as last read (groups words) */
    uint64_t *ready;     /* bitmap: peers whose words I know of and have not taken */
    uint64_t *unacked;   /* bitmap: peers with ack_soon or more words taken that their acks[me] does not count */
    unsigned bitmap_words;
    unsigned ready_count; /* bits set in ready */
    struct peer *peer;
    int next; /* where the next search for a ready peer starts (round robin) */
    size_t area_offset, area_bytes; /* the part of every share the port leaves to the SCC broadcasts */
} mpb;

/* ---- bitmaps ------------------------------------------------------------------------------------------------ */

/* Index of the lowest set bit of m (not 0), without a library call on cores without Zbb. */
static inline unsigned lowest_bit(uint64_t m)
{
    static const unsigned char debruijn[64] = {
        0,  1,  2,  53, 3,  7,  54, 27, 4,  38, 41, 8,  34, 55, 48, 28, 62, 5,  39, 46, 44, 42,
        22, 9,  24, 35, 59, 56, 49, 18, 29, 11, 63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21,
        23, 58, 17, 10, 51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12};
    return debruijn[((m & -m) * UINT64_C(0x022fdd63cc95386d)) >> 58];
}

static inline void mark_ready(int i)
{
    uint64_t bit = (uint64_t)1 << (i & 63), *w = &mpb.ready[i >> 6];
    if (!(*w & bit)) {
        *w |= bit;
        mpb.ready_count++;
    }
}

static inline void clear_ready(int i)
{
    uint64_t bit = (uint64_t)1 << (i & 63), *w = &mpb.ready[i >> 6];
    if (*w & bit) {
        *w &= ~bit;
        mpb.ready_count--;
    }
}

static inline int is_ready(int i)
{
    return (int)(mpb.ready[i >> 6] >> (i & 63) & 1);
}

/* A ready peer (one must be), the first at or after `from`, wrapping around. */
static int next_ready(int from)
{
    unsigned w = (unsigned)from >> 6;
    uint64_t m = mpb.ready[w] & (~(uint64_t)0 << (from & 63));
    while (!m) {
        w = w + 1 == mpb.bitmap_words ? 0 : w + 1;
        m = mpb.ready[w];
    }
    return (int)(w * 64 + lowest_bit(m));
}

/* ---- reading the own share ---------------------------------------------------------------------------------- */

/* Group g of the heads area (four counts) has been read as h, which differs from the tails: its peers with words
 * not yet taken become ready. */
static void heads_changed(unsigned g, uint64_t h)
{
    uint64_t diff = h ^ mpb.tails[g];
    unsigned bits = mpb.count_bits;
    for (unsigned lane = 0; diff; lane++, diff >>= bits, h >>= bits) {
        if (diff & mpb.count_mask) {
            int s = (int)((g << mpb.lane_shift) + lane); /* below n: counts past n are never written */
            mpb.peer[s].head = (uint16_t)(h & mpb.count_mask);
            mark_ready(s);
        }
    }
}

/* Reads the heads area afresh. Returns whether any peer is ready. */
static int refresh_heads(void)
{
    nocmsg_mpb_invalidate();
    for (unsigned g = 0; g < mpb.groups; g++) {
        uint64_t h = mpb.heads[g];
        if (h != mpb.tails[g])
            heads_changed(g, h);
    }
    return mpb.ready_count != 0;
}

/* Reads afresh the count of words `from` has sent me (and the others read with it). */
static void refresh_head(int from)
{
    nocmsg_mpb_invalidate();
    unsigned g = (unsigned)from >> mpb.lane_shift;
    uint64_t h = mpb.heads[g];
    if (h != mpb.tails[g])
        heads_changed(g, h);
}

/* Group g of the acks area has been read as a. */
static void acks_read(unsigned g, uint64_t a)
{
    mpb.acks_seen[g] = a;
    unsigned lanes = 1u << mpb.lane_shift;
    for (unsigned lane = 0; lane < lanes; lane++, a >>= mpb.count_bits) {
        int r = (int)((g << mpb.lane_shift) + lane);
        if (r < mpb.n)
            mpb.peer[r].tx_acked = (uint16_t)(a & mpb.count_mask);
    }
}

/* Reads the acks area afresh; returns whether anything changed since the last read. */
static int refresh_acks(void)
{
    nocmsg_mpb_invalidate();
    int changed = 0;
    for (unsigned g = 0; g < mpb.groups; g++) {
        uint64_t a = mpb.acks[g];
        if (a != mpb.acks_seen[g]) {
            acks_read(g, a);
            changed = 1;
        }
    }
    return changed;
}

/* ---- reports ------------------------------------------------------------------------------------------------ */

/* Stores a count into its slot (in another rank's share), as wide as counts are. */
static inline void store_count(volatile void *slot, uint16_t count)
{
    if (mpb.count_bits == 8)
        *(volatile uint8_t *)slot = (uint8_t)count;
    else
        *(volatile uint16_t *)slot = count;
}

/* Tells `from` how many of its words I have taken. */
static void report(int from)
{
    uint16_t taken = mpb.peer[from].tail;
    store_count(mpb.peer[from].rx_ack, taken);
    nocmsg_mpb_flush();
    mpb.peer[from].acked = taken;
    mpb.unacked[from >> 6] &= ~((uint64_t)1 << (from & 63));
}

/* Before a wait: reports what is worth reporting (an eighth of a ring or more), so that a sender can fill the
 * room already freed while I wait. (Not needed for progress: a sender whose ring is full has been told once half of
 * it was taken.) */
static void report_before_wait(void)
{
    for (unsigned i = 0; i < mpb.bitmap_words; i++)
        while (mpb.unacked[i])
            report((int)(i * 64 + lowest_bit(mpb.unacked[i])));
}

/* ---- taking words ------------------------------------------------------------------------------------------- */

/* Words of `from` I know of and have not taken. */
static inline size_t known(int from)
{
    return (uint16_t)(mpb.peer[from].head - mpb.peer[from].tail) & mpb.count_mask;
}

/* Words of `from`, reading its count afresh if fewer than `want` are known. */
static inline size_t available(int from, size_t want)
{
    size_t k = known(from);
    if (k < want) {
        refresh_head(from);
        k = known(from);
    }
    return k;
}

/* `k` words (known to be there) of from's ring have been taken; the ring position is `pos`. */
static inline void taken(int from, size_t k, unsigned pos)
{
    struct peer *p = &mpb.peer[from];
    uint16_t tail = (uint16_t)(p->tail + k) & mpb.count_mask;
    p->tail = tail;
    unsigned g = (unsigned)from >> mpb.lane_shift;
    unsigned shift = ((unsigned)from & ((1u << mpb.lane_shift) - 1)) * mpb.count_bits;
    mpb.tails[g] = (mpb.tails[g] & ~((uint64_t)mpb.count_mask << shift)) | (uint64_t)tail << shift;
    p->rx_pos = (uint16_t)pos;
    if (p->head == tail)
        clear_ready(from);
    uint16_t unreported = (uint16_t)(tail - p->acked) & mpb.count_mask;
    if (unreported >= mpb.ack_after)
        report(from);
    else if (unreported >= mpb.ack_soon)
        mpb.unacked[from >> 6] |= (uint64_t)1 << (from & 63);
}

/* Copies `k` words (known to be there) of from's ring to `words`, and takes them. */
static void take_words(int from, uint64_t *words, size_t k)
{
    const volatile uint64_t *ring = mpb.peer[from].rx_ring;
    unsigned pos = mpb.peer[from].rx_pos, end = mpb.ring_words;
    for (size_t i = 0; i < k; i++) {
        words[i] = ring[pos];
        if (++pos == end)
            pos = 0;
    }
    taken(from, k, pos);
}

/* ---- waiting ------------------------------------------------------------------------------------------------ */

/* Lets at least `cycles` cycles pass. */
static void pause_cycles(unsigned cycles)
{
    uint64_t ns = ((uint64_t)cycles * mpb.ns_per_cycle_q32 + 0xffffffffu) >> 32;
    int64_t block[2] = {0, (int64_t)ns};
    nocmsg_semihost(NOCMSG_SYS_SLEEP, block);
}

static inline unsigned pause_next(unsigned pause)
{
    return pause < mpb.pause_max ? 2 * pause : mpb.pause_max;
}

static inline unsigned pause_next_mid_packet(unsigned pause)
{
    return pause < PAUSE_MID_PACKET ? 2 * pause : PAUSE_MID_PACKET;
}

/* Waits until `from` has words (1) or, first, another peer has (0). Polls from's count every time and the whole
 * heads area every fourth time (with many ranks it is several lines). */
static int wait_for(int from)
{
    report_before_wait();
    unsigned round = 0;
    for (unsigned pause = PAUSE_FIRST;; pause = pause_next_mid_packet(pause), round++) {
        if (round % 4 == 3 ? refresh_heads() : (refresh_head(from), mpb.ready_count != 0))
            return is_ready(from);
        pause_cycles(pause);
    }
}

/* ---- writing words ------------------------------------------------------------------------------------------ */

/* Room for up to `want` words in to's ring, reading its report afresh if there is less. */
static inline size_t room(int to, size_t want)
{
    struct peer *p = &mpb.peer[to];
    size_t free_words = mpb.ring_words - ((uint16_t)(p->tx_count - p->tx_acked) & mpb.count_mask);
    if (free_words < want) {
        nocmsg_mpb_invalidate();
        unsigned g = (unsigned)to >> mpb.lane_shift;
        acks_read(g, mpb.acks[g]);
        free_words = mpb.ring_words - ((uint16_t)(p->tx_count - p->tx_acked) & mpb.count_mask);
    }
    return free_words < want ? free_words : want;
}

/* n words to the ring, four stores at a time (a line). */
static inline void copy_to_ring(volatile uint64_t *dst, const uint64_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64_t a = src[i], b = src[i + 1], c = src[i + 2], d = src[i + 3];
        dst[i] = a;
        dst[i + 1] = b;
        dst[i + 2] = c;
        dst[i + 3] = d;
    }
    for (; i < n; i++)
        dst[i] = src[i];
}

/* n words from the ring, four loads at a time. */
static inline void copy_from_ring(uint64_t *dst, const volatile uint64_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64_t a = src[i], b = src[i + 1], c = src[i + 2], d = src[i + 3];
        dst[i] = a;
        dst[i + 1] = b;
        dst[i + 2] = c;
        dst[i + 3] = d;
    }
    for (; i < n; i++)
        dst[i] = src[i];
}

/* Writes one word into to's ring (room known), not yet published. */
static inline void put_word(struct peer *p, uint64_t w)
{
    unsigned pos = p->tx_pos;
    p->tx_ring[pos] = w;
    p->tx_pos = (uint16_t)(pos + 1 == mpb.ring_words ? 0 : pos + 1);
    p->tx_count = (uint16_t)(p->tx_count + 1) & mpb.count_mask;
}

/* Publishes what was written into p's ring: its count, after the data (the buffer goes out before the count enters
 * it), flushed so that it is on its way now. */
static inline void publish(struct peer *p)
{
    store_count(p->tx_head, p->tx_count);
    nocmsg_mpb_flush();
}

/* Writes `k` words into p's ring (room known), publishing every publish_every words so that the receiver can take
 * them (and report room) while the rest is written. Not published at the end. */
static void put_words(struct peer *p, const uint64_t *words, size_t k)
{
    volatile uint64_t *ring = p->tx_ring;
    unsigned pos = p->tx_pos, end = mpb.ring_words, chunk = 0;
    while (k) {
        /* A run that neither wraps round the ring nor passes a publication. */
        size_t run = k, left = end - pos, to_publish = mpb.publish_every - chunk;
        run = run < left ? run : left;
        run = run < to_publish ? run : to_publish;
        copy_to_ring(ring + pos, words, run);
        words += run;
        k -= run;
        pos += (unsigned)run;
        if (pos == end)
            pos = 0;
        p->tx_count = (uint16_t)(p->tx_count + run) & mpb.count_mask;
        chunk += (unsigned)run;
        if (chunk == mpb.publish_every && k) {
            chunk = 0;
            publish(p);
        }
    }
    p->tx_pos = (uint16_t)pos;
}

/* Words [from, from + k) of a `bytes`-byte message at buf (any alignment), into p's ring (room known). */
static void put_bytes(struct peer *p, const void *buf, size_t bytes, size_t from, size_t k)
{
    size_t end = from + k, whole = bytes / 8;
    if (((uintptr_t)buf & 7) == 0 && from < whole) {
        /* Whole words straight from the buffer; a part word at the end goes through w below. */
        size_t stop = end < whole ? end : whole;
        put_words(p, (const uint64_t *)buf + from, stop - from);
        from = stop;
    }
    for (; from < end; from++) {
        uint64_t w = 0;
        size_t left = bytes - 8 * from;
        memcpy(&w, (const unsigned char *)buf + 8 * from, left < 8 ? left : 8);
        put_word(p, w);
    }
}

/* The first n (1-7) bytes of `word` at p (8-byte aligned), and nothing past them. */
static inline void store_tail(void *p, uint64_t word, size_t n)
{
    typedef uint32_t u32 __attribute__((may_alias));
    typedef uint16_t u16 __attribute__((may_alias));
    unsigned char *q = p;
    if (n & 4) {
        *(u32 *)q = (uint32_t)word;
        word >>= 32;
        q += 4;
    }
    if (n & 2) {
        *(u16 *)q = (uint16_t)word;
        word >>= 16;
        q += 2;
    }
    if (n & 1)
        *q = (unsigned char)word;
}

/* The common case of sending, in one piece: a header (if `with_header`) and payload words [from, from + k) of a
 * `bytes`-byte message at an 8-byte-aligned buf, at most half a ring, published once. A part word at the end is read
 * from its aligned 8-byte block whole (which lies in the core's memory; the receiver stores only the message's
 * bytes of it). */
static inline void put_aligned(struct peer *p, int with_header, uint64_t header, const uint64_t *buf, size_t bytes,
                               size_t from, size_t k)
{
    volatile uint64_t *ring = p->tx_ring;
    unsigned pos = p->tx_pos, end = mpb.ring_words;
    p->tx_count = (uint16_t)(p->tx_count + k + (with_header != 0)) & mpb.count_mask;
    if (with_header) {
        ring[pos] = header;
        if (++pos == end)
            pos = 0;
    }
    (void)bytes;
    for (size_t i = from; i < from + k; i++) {
        ring[pos] = buf[i];
        if (++pos == end)
            pos = 0;
    }
    p->tx_pos = (uint16_t)pos;
    publish(p);
}

/* Whether the chip has MPBs. A chip without them maps nothing at the MPB control page, where a load raises an
 * access fault: a trap handler in place for that one load skips it (the simulator hands a fault to the program once
 * mtvec is set), so that the program can say what is wrong rather than stop at an address that tells its user
 * nothing. mtvec is restored afterwards. */
static int chip_has_mpb(void)
{
    uint64_t found;
    __asm__ volatile(".option push\n\t"
                     ".option arch, +zicsr\n\t"
                     "la t0, 1f\n\t"
                     "csrrw t0, mtvec, t0\n\t"
                     "li %0, 0\n\t"
                     "ld t1, 0(%1)\n\t" /* faults on a chip without MPBs */
                     "li %0, 1\n\t"
                     "j 2f\n\t"
                     ".balign 4\n"
                     "1:\n\t" /* the handler: on past the load, in machine mode as before */
                     "la t1, 2f\n\t"
                     "csrw mepc, t1\n\t"
                     "mret\n"
                     "2:\n\t"
                     "csrw mtvec, t0\n\t"
                     ".option pop"
                     : "=&r"(found)
                     : "r"(NOCMSG_MPB_CONTROL_BASE + NOCMSG_MPB_INFO_MPB_BYTES)
                     : "t0", "t1", "memory");
    return (int)found;
}

/* ---- the port ----------------------------------------------------------------------------------------------- */

int nocmsg_port_init(int *rank, int *size)
{
    int me = (int)nocmsg_core_id(), n = (int)nocmsg_num_cores();
    *rank = me;
    *size = n;
    if (mpb.peer) /* the state lives on after finalize: the counts in the MPBs do too */
        return mpb.n == n ? NOCMSG_SUCCESS : NOCMSG_ERR_INTERN;
    if (!chip_has_mpb()) {
        /* Rank 0 says so and ends the run; the others leave quietly (an abort of theirs could end it first). */
        if (me != 0)
            exit(1);
        fprintf(stderr, "libnocmsg: this program is built for the MPB port (chips with ni.kind = \"mpb\"), and this "
                        "chip has no MPBs: build it for this chip (bin/nocmsg-cc --chip CHIP, or NOCMSG_CHIP)\n");
        nocmsg_port_abort(1);
    }
    /* The end of every share (NOCMSG_MPB_AREA_BYTES, at most half, whole lines) belongs to the SCC broadcasts
     * (nocmsg_port_mpb_area); the rings and counts take the rest. Byte counts if the rings then hold fewer than 256
     * words, else 16-bit ones. */
    size_t line = nocmsg_mpb_line_bytes(), whole = nocmsg_mpb_bytes(), ctrl = 0, ring = 0, count_bytes = 1;
    size_t area = (NOCMSG_MPB_AREA_BYTES < whole / 2 ? NOCMSG_MPB_AREA_BYTES : whole / 2) / line * line, share = 0;
    /* Without room for a line per sender, the collectives' area goes back to the port (they then fall back). */
    for (int attempt = 0; attempt < 2; attempt++, area = 0) {
        share = whole - area;
        for (count_bytes = 1; count_bytes <= 2; count_bytes++) {
            ctrl = ((size_t)n * count_bytes + line - 1) / line * line;
            ring = share > 2 * ctrl ? (share - 2 * ctrl) / (size_t)n / line * line : 0;
            if (ring / 8 < ((size_t)1 << (8 * count_bytes)))
                break;
        }
        if (ring >= line && count_bytes <= 2)
            break;
    }
    if (ring < line || count_bytes > 2)
        return NOCMSG_ERR_INTERN; /* no room for a line per sender (or rings too large for 16-bit counts) */
    mpb.me = me;
    mpb.n = n;
    mpb.count_bits = 8 * (unsigned)count_bytes;
    mpb.lane_shift = count_bytes == 1 ? 3 : 2;
    mpb.count_mask = (uint16_t)((1u << mpb.count_bits) - 1);
    mpb.ring_words = (uint16_t)(ring / 8);
    mpb.ack_after = (uint16_t)(mpb.ring_words / 2 ? mpb.ring_words / 2 : 1);
    mpb.ack_soon = (uint16_t)(mpb.ring_words / 8 ? mpb.ring_words / 8 : 1);
    mpb.publish_every = mpb.ack_after < PUBLISH_WORDS ? mpb.ack_after : PUBLISH_WORDS;
    mpb.groups = (unsigned)(n + (1 << mpb.lane_shift) - 1) >> mpb.lane_shift;
    mpb.pause_max = PAUSE_BASE + PAUSE_PER_GROUP * mpb.groups;
    mpb.ns_per_cycle_q32 = ((uint64_t)1000000000 << 32) / nocmsg_frequency_hz();
    mpb.bitmap_words = (unsigned)(n + 63) / 64;
    mpb.area_offset = share;
    mpb.area_bytes = area;
    uintptr_t base = (uintptr_t)nocmsg_mpb(0), mine = base + (uintptr_t)me * whole;
    mpb.heads = (const volatile uint64_t *)mine;
    mpb.acks = (const volatile uint64_t *)(mine + ctrl);
    mpb.tails = calloc(mpb.groups, sizeof *mpb.tails);
    mpb.acks_seen = calloc(mpb.groups, sizeof *mpb.acks_seen);
    mpb.ready = calloc(mpb.bitmap_words, sizeof *mpb.ready);
    mpb.unacked = calloc(mpb.bitmap_words, sizeof *mpb.unacked);
    mpb.peer = calloc((size_t)n, sizeof *mpb.peer);
    if (!mpb.tails || !mpb.acks_seen || !mpb.ready || !mpb.unacked || !mpb.peer)
        return NOCMSG_ERR_NO_MEM;
    for (int r = 0; r < n; r++) {
        uintptr_t theirs = base + (uintptr_t)r * whole;
        struct peer *p = &mpb.peer[r];
        p->tx_ring = (volatile uint64_t *)(theirs + 2 * ctrl + (uintptr_t)me * ring);
        p->tx_head = (volatile void *)(theirs + count_bytes * (uintptr_t)me);
        p->rx_ack = (volatile void *)(theirs + ctrl + count_bytes * (uintptr_t)me);
        p->rx_ring = (const volatile uint64_t *)(mine + 2 * ctrl + (uintptr_t)r * ring);
    }
    return NOCMSG_SUCCESS;
}

void nocmsg_port_finalize(void) {}

void nocmsg_port_mpb_area(size_t *offset, size_t *bytes)
{
    *offset = mpb.area_offset;
    *bytes = mpb.area_bytes;
}

const char *nocmsg_port_kind(void)
{
    return "mpb";
}

size_t nocmsg_port_push(int dest, const uint64_t *words, size_t n)
{
    size_t k = room(dest, n);
    if (k) {
        struct peer *p = &mpb.peer[dest];
        put_words(p, words, k);
        publish(p);
    }
    return k;
}

int nocmsg_port_push1(int dest, uint64_t word)
{
    if (!room(dest, 1))
        return 0;
    struct peer *p = &mpb.peer[dest];
    put_word(p, word);
    publish(p);
    return 1;
}

size_t nocmsg_port_push_packet(int dest, uint64_t header, const uint64_t *payload, size_t n)
{
    size_t k = room(dest, n + 1);
    if (!k)
        return 0;
    struct peer *p = &mpb.peer[dest];
    put_word(p, header);
    put_words(p, payload, k - 1);
    publish(p);
    return k;
}

size_t nocmsg_port_push_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    size_t words = (bytes + 7) / 8;
    size_t k = from < words ? room(dest, words - from) : 0;
    if (k) {
        struct peer *p = &mpb.peer[dest];
        if (__builtin_expect(((uintptr_t)buf & 7) == 0 && k <= mpb.publish_every, 1)) {
            put_aligned(p, 0, 0, buf, bytes, from, k);
        } else {
            put_bytes(p, buf, bytes, from, k);
            publish(p);
        }
    }
    return from + k;
}

size_t nocmsg_port_stream_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    size_t words = (bytes + 7) / 8;
    unsigned round = 0;
    for (unsigned pause = PAUSE_FIRST;; pause = pause_next_mid_packet(pause), round++) {
        size_t at = nocmsg_port_push_bytes(dest, buf, bytes, from);
        if (at != from)
            pause = PAUSE_FIRST;
        from = at;
        if (from == words)
            return from;
        /* The way is full: wait for room (polling dest's report, in room) while nothing arrives. */
        if (round == 0)
            report_before_wait();
        if (round % 4 == 3 ? refresh_heads() : mpb.ready_count != 0)
            return from;
        pause_cycles(pause);
    }
}

size_t nocmsg_port_push_message(int dest, uint64_t header, const void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8;
    size_t k = room(dest, words + 1);
    if (!k)
        return 0;
    struct peer *p = &mpb.peer[dest];
    if (__builtin_expect(((uintptr_t)buf & 7) == 0 && k <= mpb.publish_every, 1)) {
        put_aligned(p, 1, header, buf, bytes, 0, k - 1);
    } else {
        put_word(p, header);
        put_bytes(p, buf, bytes, 0, k - 1);
        publish(p);
    }
    return k;
}

/* nocmsg_port_pull_bytes beyond the common case: words still on their way, a misaligned buffer. */
__attribute__((noinline)) static size_t pull_bytes_slow(int src, void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8, whole = bytes / 8, got = 0;
    unsigned char *b = buf;
    int aligned = ((uintptr_t)buf & 7) == 0;
    struct peer *p = &mpb.peer[src];
    while (got < words) {
        size_t k = available(src, words - got);
        if (!k) {
            if (!wait_for(src))
                return got;
            continue;
        }
        if (k > words - got)
            k = words - got;
        const volatile uint64_t *ring = p->rx_ring;
        unsigned pos = p->rx_pos, end = mpb.ring_words;
        size_t i = got, stop = got + k;
        while (aligned && i < stop && i < whole) {
            /* Whole words in runs that do not wrap round the ring. */
            size_t run = (stop < whole ? stop : whole) - i, left = end - pos;
            run = run < left ? run : left;
            copy_from_ring((uint64_t *)buf + i, ring + pos, run);
            i += run;
            pos += (unsigned)run;
            if (pos == end)
                pos = 0;
        }
        for (; i < stop; i++) {
            uint64_t w = ring[pos];
            if (++pos == end)
                pos = 0;
            if (aligned)
                store_tail(b + 8 * i, w, bytes - 8 * i);
            else
                memcpy(b + 8 * i, &w, bytes - 8 * i < 8 ? bytes - 8 * i : 8);
        }
        taken(src, k, pos);
        got += k;
    }
    return got;
}

size_t nocmsg_port_pull_bytes(int src, void *buf, size_t bytes)
{
    /* The common case: an aligned buffer, and every word known to be there. */
    struct peer *p = &mpb.peer[src];
    size_t words = (bytes + 7) / 8, whole = bytes / 8;
    if (__builtin_expect(((uintptr_t)buf & 7) != 0 || known(src) < words, 0))
        return pull_bytes_slow(src, buf, bytes);
    const volatile uint64_t *ring = p->rx_ring;
    unsigned pos = p->rx_pos, end = mpb.ring_words;
    uint64_t *dst = buf;
    for (size_t i = 0; i < whole; i++) {
        dst[i] = ring[pos];
        if (++pos == end)
            pos = 0;
    }
    if (whole < words) {
        store_tail(dst + whole, ring[pos], bytes & 7);
        if (++pos == end)
            pos = 0;
    }
    taken(src, words, pos);
    return words;
}

uint64_t nocmsg_port_pull1_from(int src)
{
    struct peer *p = &mpb.peer[src];
    if (__builtin_expect(!available(src, 1), 0))
        return 0; /* not reached: port_poll named src */
    unsigned pos = p->rx_pos;
    uint64_t w = p->rx_ring[pos];
    taken(src, 1, pos + 1 == mpb.ring_words ? 0 : pos + 1);
    return w;
}

int nocmsg_port_poll(int *src)
{
    if (!mpb.ready_count && !refresh_heads())
        return 0;
    int s = next_ready(mpb.next);
    mpb.next = s + 1 == mpb.n ? 0 : s + 1;
    *src = s;
    return 1;
}

int nocmsg_port_next(void)
{
    int s;
    while (!nocmsg_port_poll(&s))
        nocmsg_port_wait(0);
    return s;
}

size_t nocmsg_port_pull(int src, uint64_t *words, size_t n)
{
    size_t k = available(src, n);
    if (k > n)
        k = n;
    if (k)
        take_words(src, words, k);
    return k;
}

size_t nocmsg_port_pull_wait(int src, uint64_t *words, size_t n)
{
    size_t got = nocmsg_port_pull(src, words, n);
    while (got < n && wait_for(src))
        got += nocmsg_port_pull(src, words + got, n - got);
    return got;
}

int nocmsg_port_take(int src, uint64_t *word)
{
    return nocmsg_port_pull_wait(src, word, 1) == 1;
}

void nocmsg_port_wait(int sending)
{
    report_before_wait();
    for (unsigned pause = PAUSE_FIRST;; pause = pause_next(pause)) {
        if (refresh_heads())
            return;
        if (sending && refresh_acks())
            return;
        pause_cycles(pause);
    }
}

void nocmsg_port_mesh(int *width, int *height, int *concentration)
{
    *width = (int)nocmsg_boot.mesh_width;
    *height = (int)nocmsg_boot.mesh_height;
    *concentration = (int)nocmsg_boot.concentration;
}

size_t nocmsg_port_eager_limit(void)
{
    return NOCMSG__PIMP_EAGER_LIMIT; /* the same as PIMP's, so that programs behave the same on both */
}

double nocmsg_port_wtime(void)
{
    return (double)nocmsg_cycles() / (double)nocmsg_frequency_hz();
}

double nocmsg_port_wtick(void)
{
    return 1.0 / (double)nocmsg_frequency_hz();
}

void nocmsg_port_abort(int code)
{
    int64_t block[1] = {code};
    nocmsg_semihost(NOCMSG_SYS_ABORT, block);
    exit(code ? code : 1); /* not reached on the simulator */
}

struct nocmsg_wait_record *nocmsg_port_wait_slot(void)
{
    return NULL;
}
