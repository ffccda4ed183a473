/*
 * mpb.c: the port for SCC-style message-passing buffers (simulated chips with ni.kind = "mpb", built with
 * -DNOCMSG_PORT_MPB; runtime/include/nocmsg_mpb.h, crates/chip/src/ni/mpb.rs). docs/libnocmsg.md describes the
 * protocol and what it costs.
 *
 * Every rank's MPB share is laid out the same way (n ranks, L-byte lines, S bytes per share):
 *
 *     heads  n x 16 bits, rounded up to whole lines: heads[s] = words rank s has written into my ring from s
 *     acks   n x 16 bits, rounded up to whole lines: acks[r] = words rank r has taken of my stream to r
 *     rings  n rings of R = ((S - 2 x heads) / n rounded down to lines) bytes: ring[s] holds s's words to me
 *
 * A sender writes words into its ring in the receiver's share (remote stores, gathered a line at a time by the
 * write-combining buffer), then its new count into the receiver's heads[me] and flushes: the buffer writes a line
 * out before it takes a store to another line, and waits for the acknowledgement, so the data is in place before the
 * count that publishes it. Only the bytes stored are written, so the 16-bit counts of different senders share lines
 * safely. The receiver reads only its own share (local MPB, 15 cycles a line): it invalidates its line cache, reads
 * the heads, then the words they cover; every time it reads the heads it invalidates first, and it reads a ring word
 * only after reading a count that covers it, so no line it reads can be older than the count. It tells the sender
 * how much it took by writing acks[me] in the sender's share: when half a ring has been taken since the last time,
 * and before it waits for anything, so a sender never waits for room that was freed but not yet reported. A sender
 * never has more than a ring's R/8 words unacknowledged, so it never overwrites what the receiver has not taken.
 *
 * Counts are 16 bits wide and compared modulo 2^16; rings hold fewer than 2^15 words. Waiting is polling the heads
 * (and, while a send waits for room, the acks) of the own share, with a pause between polls that grows while
 * nothing changes: every poll is a few accesses the simulator serves one by one, the pause is private instructions.
 */
#include <stdlib.h>
#include <string.h>

#include <nocmsg_core.h>
#include <nocmsg_mpb.h>
#include <nocmsg_semihost.h>

#include "../include/nocmsg.h"
#include "port.h"

/* What this rank knows of one peer. Counts are modulo 2^16, positions are slots of a ring. */
struct peer {
    uint16_t head;     /* words the peer has published into my ring from it (as last read) */
    uint16_t acked;    /* my count of its words taken, as last written into its acks[me] */
    uint16_t rx_pos;   /* slot of the next word to take from my ring from it */
    uint16_t tx_count; /* words I have written into its ring from me */
    uint16_t tx_acked; /* of those, how many it has taken (as last read from my acks[peer]) */
    uint16_t tx_pos;   /* slot of the next word to write into its ring from me */
};

/* Pause between polls while nothing changes, in rounds of the spin loop (about 4 cycles each): it starts short, so a
 * wait that ends soon costs little latency, and doubles up to the maximum, so a long wait costs few accesses. */
enum { PAUSE_FIRST = 4, PAUSE_MAX = 64 };

static struct {
    int me, n;
    uintptr_t base;      /* rank 0's share */
    size_t share;        /* bytes of a share */
    size_t ctrl_bytes;   /* bytes of the heads area (and of the acks area) */
    size_t ring_bytes;   /* bytes of a ring */
    uint16_t ring_words; /* words of a ring */
    uint16_t ack_after;  /* words taken from a peer after which the count goes back to it without waiting */
    unsigned groups;     /* 8-byte words of the heads area in use: 4 counts each */
    uint16_t *tail;      /* per peer (packed as the heads area): words taken of its stream to me */
    uint64_t *acks_seen; /* the acks area as last read (groups words) */
    uint64_t *ready;     /* bitmap: peers whose words I know of and have not taken */
    uint64_t *unacked;   /* bitmap: peers with words taken that their acks[me] does not count yet */
    unsigned bitmap_words;
    struct peer *peer;
    int next; /* where the next search for a ready peer starts (round robin) */
} mpb;

/* ---- addresses ---------------------------------------------------------------------------------------------- */

static inline uintptr_t share_of(int rank)
{
    return mpb.base + (uintptr_t)rank * mpb.share;
}

/* heads[of] in rank's share. */
static inline volatile uint16_t *head_slot(int rank, int of)
{
    return (volatile uint16_t *)(share_of(rank) + 2 * (uintptr_t)of);
}

/* acks[of] in rank's share. */
static inline volatile uint16_t *ack_slot(int rank, int of)
{
    return (volatile uint16_t *)(share_of(rank) + mpb.ctrl_bytes + 2 * (uintptr_t)of);
}

/* The ring in rank's share that holds from's words. */
static inline volatile uint64_t *ring_of(int rank, int from)
{
    return (volatile uint64_t *)(share_of(rank) + 2 * mpb.ctrl_bytes + (uintptr_t)from * mpb.ring_bytes);
}

/* ---- bitmaps ------------------------------------------------------------------------------------------------ */

static inline void bit_set(uint64_t *map, int i)
{
    map[i >> 6] |= (uint64_t)1 << (i & 63);
}

static inline void bit_clear(uint64_t *map, int i)
{
    map[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

static inline int bit_test(const uint64_t *map, int i)
{
    return (int)(map[i >> 6] >> (i & 63) & 1);
}

/* Any bit set, or -1: the first at or after `from`, wrapping around. */
static int bit_next(const uint64_t *map, int from)
{
    unsigned words = mpb.bitmap_words;
    unsigned w = (unsigned)from >> 6;
    uint64_t m = map[w] & (~(uint64_t)0 << (from & 63));
    for (unsigned i = 0; i <= words; i++) {
        if (m)
            return (int)(w * 64 + (unsigned)__builtin_ctzll(m));
        w = w + 1 == words ? 0 : w + 1;
        m = map[w];
    }
    return -1;
}

static inline int bits_any(const uint64_t *map)
{
    for (unsigned i = 0; i < mpb.bitmap_words; i++)
        if (map[i])
            return 1;
    return 0;
}

/* Whether a peer other than `src` has words waiting. */
static inline int other_ready(int src)
{
    for (unsigned i = 0; i < mpb.bitmap_words; i++) {
        uint64_t m = mpb.ready[i];
        if ((unsigned)src >> 6 == i)
            m &= ~((uint64_t)1 << (src & 63));
        if (m)
            return 1;
    }
    return 0;
}

/* ---- reading the own share ---------------------------------------------------------------------------------- */

/* Reads the heads area afresh: every peer with words not yet taken becomes ready. Returns whether any is. */
static int refresh_heads(void)
{
    nocmsg_mpb_invalidate();
    const volatile uint64_t *heads = (const volatile uint64_t *)share_of(mpb.me);
    const uint64_t *tails = (const uint64_t *)(const void *)mpb.tail;
    int any = 0;
    for (unsigned g = 0; g < mpb.groups; g++) {
        uint64_t h = heads[g];
        if (h == tails[g])
            continue;
        for (unsigned lane = 0; lane < 4; lane++) {
            int s = (int)(4 * g + lane);
            uint16_t count = (uint16_t)(h >> (16 * lane));
            if (s < mpb.n && count != mpb.tail[s]) {
                mpb.peer[s].head = count;
                bit_set(mpb.ready, s);
                any = 1;
            }
        }
    }
    return any || bits_any(mpb.ready);
}

/* Reads the count of words `from` has sent me afresh (and the three others read with it). */
static void refresh_head(int from)
{
    nocmsg_mpb_invalidate();
    unsigned g = (unsigned)from / 4;
    uint64_t h = ((const volatile uint64_t *)share_of(mpb.me))[g];
    for (unsigned lane = 0; lane < 4; lane++) {
        int s = (int)(4 * g + lane);
        uint16_t count = (uint16_t)(h >> (16 * lane));
        if (s < mpb.n && count != mpb.tail[s]) {
            mpb.peer[s].head = count;
            bit_set(mpb.ready, s);
        }
    }
}

/* Reads the acks area afresh; returns whether anything changed since the last read. */
static int refresh_acks(void)
{
    nocmsg_mpb_invalidate();
    const volatile uint64_t *acks = (const volatile uint64_t *)(share_of(mpb.me) + mpb.ctrl_bytes);
    int changed = 0;
    for (unsigned g = 0; g < mpb.groups; g++) {
        uint64_t a = acks[g];
        if (a == mpb.acks_seen[g])
            continue;
        mpb.acks_seen[g] = a;
        changed = 1;
        for (unsigned lane = 0; lane < 4; lane++) {
            int r = (int)(4 * g + lane);
            if (r < mpb.n)
                mpb.peer[r].tx_acked = (uint16_t)(a >> (16 * lane));
        }
    }
    return changed;
}

/* Reads how much `to` has taken of my words afresh. */
static void refresh_ack(int to)
{
    nocmsg_mpb_invalidate();
    unsigned g = (unsigned)to / 4;
    uint64_t a = ((const volatile uint64_t *)(share_of(mpb.me) + mpb.ctrl_bytes))[g];
    mpb.acks_seen[g] = a;
    for (unsigned lane = 0; lane < 4; lane++) {
        int r = (int)(4 * g + lane);
        if (r < mpb.n)
            mpb.peer[r].tx_acked = (uint16_t)(a >> (16 * lane));
    }
}

/* ---- acknowledgements --------------------------------------------------------------------------------------- */

/* Tells `from` how many of its words I have taken. */
static void publish_ack(int from)
{
    uint16_t taken = mpb.tail[from];
    *ack_slot(from, mpb.me) = taken;
    nocmsg_mpb_flush();
    mpb.peer[from].acked = taken;
    bit_clear(mpb.unacked, from);
}

/* Reports every count not yet reported: before any wait, so that no sender waits for room already freed. */
static void publish_acks(void)
{
    for (unsigned i = 0; i < mpb.bitmap_words; i++)
        while (mpb.unacked[i])
            publish_ack((int)(i * 64 + (unsigned)__builtin_ctzll(mpb.unacked[i])));
}

/* ---- taking words ------------------------------------------------------------------------------------------- */

/* Words of `from` I know of and have not taken. */
static inline size_t known(int from)
{
    return (uint16_t)(mpb.peer[from].head - mpb.tail[from]);
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

/* `k` words (known to be there) of from's ring have been taken. */
static void taken(int from, size_t k)
{
    struct peer *p = &mpb.peer[from];
    uint16_t tail = (uint16_t)(mpb.tail[from] + k);
    mpb.tail[from] = tail;
    unsigned pos = p->rx_pos + (unsigned)k;
    p->rx_pos = (uint16_t)(pos >= mpb.ring_words ? pos - mpb.ring_words : pos);
    if (p->head == tail)
        bit_clear(mpb.ready, from);
    if ((uint16_t)(tail - p->acked) >= mpb.ack_after)
        publish_ack(from);
    else
        bit_set(mpb.unacked, from);
}

/* Copies `k` words (known to be there) from from's ring to `words`, and takes them. */
static void take_words(int from, uint64_t *words, size_t k)
{
    const volatile uint64_t *ring = ring_of(mpb.me, from);
    unsigned pos = mpb.peer[from].rx_pos;
    for (size_t i = 0; i < k; i++) {
        words[i] = ring[pos];
        if (++pos == mpb.ring_words)
            pos = 0;
    }
    taken(from, k);
}

/* The next word of from's ring (known to be there), not yet taken. */
static inline uint64_t peek_word(int from, size_t ahead)
{
    unsigned pos = mpb.peer[from].rx_pos + (unsigned)ahead;
    if (pos >= mpb.ring_words)
        pos -= mpb.ring_words;
    return ring_of(mpb.me, from)[pos];
}

/* ---- waiting ------------------------------------------------------------------------------------------------ */

static inline void pause_rounds(unsigned rounds)
{
    for (unsigned i = rounds; i; i--)
        __asm__ volatile("");
}

/* Waits until `from` has words (1) or, first, another peer has (0); reports what was taken before it waits. */
static int wait_for(int from)
{
    publish_acks();
    for (unsigned pause = PAUSE_FIRST;; pause = pause < PAUSE_MAX ? 2 * pause : PAUSE_MAX) {
        refresh_heads();
        if (bit_test(mpb.ready, from))
            return 1;
        if (other_ready(from))
            return 0;
        pause_rounds(pause);
    }
}

/* ---- writing words ------------------------------------------------------------------------------------------ */

/* Room for up to `want` words in to's ring, reading its count afresh if there is less. */
static inline size_t room(int to, size_t want)
{
    struct peer *p = &mpb.peer[to];
    size_t free_words = mpb.ring_words - (uint16_t)(p->tx_count - p->tx_acked);
    if (free_words < want) {
        refresh_ack(to);
        free_words = mpb.ring_words - (uint16_t)(p->tx_count - p->tx_acked);
    }
    return free_words < want ? free_words : want;
}

/* Writes one word into to's ring (room known), not yet published. */
static inline void put_word(int to, uint64_t w)
{
    struct peer *p = &mpb.peer[to];
    ring_of(to, mpb.me)[p->tx_pos] = w;
    p->tx_pos = (uint16_t)(p->tx_pos + 1 == mpb.ring_words ? 0 : p->tx_pos + 1);
    p->tx_count++;
}

/* Writes `k` words into to's ring (room known), not yet published. */
static void put_words(int to, const uint64_t *words, size_t k)
{
    struct peer *p = &mpb.peer[to];
    volatile uint64_t *ring = ring_of(to, mpb.me);
    unsigned pos = p->tx_pos;
    for (size_t i = 0; i < k; i++) {
        ring[pos] = words[i];
        if (++pos == mpb.ring_words)
            pos = 0;
    }
    p->tx_pos = (uint16_t)pos;
    p->tx_count = (uint16_t)(p->tx_count + k);
}

/* Words [from, from + k) of a `bytes`-byte message at buf (any alignment), into to's ring (room known). */
static void put_bytes(int to, const void *buf, size_t bytes, size_t from, size_t k)
{
    const unsigned char *b = buf;
    size_t end = from + k, whole = bytes / 8;
    if (((uintptr_t)buf & 7) == 0 && from < whole) {
        /* Whole words straight from the buffer; the part word at the end goes through w below. */
        size_t stop = end < whole ? end : whole;
        put_words(to, (const uint64_t *)buf + from, stop - from);
        from = stop;
    }
    for (; from < end; from++) {
        uint64_t w = 0;
        size_t left = bytes - 8 * from;
        memcpy(&w, b + 8 * from, left < 8 ? left : 8);
        put_word(to, w);
    }
}

/* Publishes what was written into to's ring: its count, after the data (the buffer goes out before the count
 * enters it), and flushed so that it is on its way now. */
static void publish(int to)
{
    *head_slot(to, mpb.me) = mpb.peer[to].tx_count;
    nocmsg_mpb_flush();
}

/* ---- the port ----------------------------------------------------------------------------------------------- */

int nocmsg_port_init(int *rank, int *size)
{
    int me = (int)nocmsg_core_id(), n = (int)nocmsg_num_cores();
    *rank = me;
    *size = n;
    if (mpb.peer) /* the state lives on after finalize: the counts in the MPBs do too */
        return mpb.n == n ? NOCMSG_SUCCESS : NOCMSG_ERR_INTERN;
    size_t line = nocmsg_mpb_line_bytes(), share = nocmsg_mpb_bytes();
    size_t ctrl = ((size_t)(2 * n) + line - 1) / line * line;
    size_t ring = share > 2 * ctrl ? (share - 2 * ctrl) / (size_t)n / line * line : 0;
    if (ring < line || ring / 8 >= 32768)
        return NOCMSG_ERR_INTERN; /* no room for a line per sender (or a ring too large for 16-bit counts) */
    mpb.me = me;
    mpb.n = n;
    mpb.base = (uintptr_t)nocmsg_mpb(0);
    mpb.share = share;
    mpb.ctrl_bytes = ctrl;
    mpb.ring_bytes = ring;
    mpb.ring_words = (uint16_t)(ring / 8);
    mpb.ack_after = (uint16_t)(mpb.ring_words / 2 ? mpb.ring_words / 2 : 1);
    mpb.groups = (unsigned)(n + 3) / 4;
    mpb.bitmap_words = (unsigned)(n + 63) / 64;
    mpb.tail = calloc(4 * (size_t)mpb.groups, sizeof *mpb.tail);
    mpb.acks_seen = calloc(mpb.groups, sizeof *mpb.acks_seen);
    mpb.ready = calloc(mpb.bitmap_words, sizeof *mpb.ready);
    mpb.unacked = calloc(mpb.bitmap_words, sizeof *mpb.unacked);
    mpb.peer = calloc((size_t)n, sizeof *mpb.peer);
    if (!mpb.tail || !mpb.acks_seen || !mpb.ready || !mpb.unacked || !mpb.peer)
        return NOCMSG_ERR_NO_MEM;
    return NOCMSG_SUCCESS;
}

void nocmsg_port_finalize(void)
{
    publish_acks();
}

const char *nocmsg_port_kind(void)
{
    return "mpb";
}

size_t nocmsg_port_push(int dest, const uint64_t *words, size_t n)
{
    size_t k = room(dest, n);
    if (k) {
        put_words(dest, words, k);
        publish(dest);
    }
    return k;
}

int nocmsg_port_push1(int dest, uint64_t word)
{
    if (!room(dest, 1))
        return 0;
    put_word(dest, word);
    publish(dest);
    return 1;
}

size_t nocmsg_port_push_packet(int dest, uint64_t header, const uint64_t *payload, size_t n)
{
    size_t k = room(dest, n + 1);
    if (!k)
        return 0;
    put_word(dest, header);
    put_words(dest, payload, k - 1);
    publish(dest);
    return k;
}

size_t nocmsg_port_push_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    size_t words = (bytes + 7) / 8;
    size_t k = from < words ? room(dest, words - from) : 0;
    if (k) {
        put_bytes(dest, buf, bytes, from, k);
        publish(dest);
    }
    return from + k;
}

size_t nocmsg_port_stream_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    size_t words = (bytes + 7) / 8;
    for (unsigned pause = PAUSE_FIRST;; pause = pause < PAUSE_MAX ? 2 * pause : PAUSE_MAX) {
        size_t at = nocmsg_port_push_bytes(dest, buf, bytes, from);
        if (at != from)
            pause = PAUSE_FIRST;
        from = at;
        if (from == words)
            return from;
        /* The way is full: wait for room while nothing arrives (and report what I took, so that nobody waits
         * for me). */
        publish_acks();
        if (refresh_heads())
            return from;
        pause_rounds(pause);
    }
}

size_t nocmsg_port_push_message(int dest, uint64_t header, const void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8;
    size_t k = room(dest, words + 1);
    if (!k)
        return 0;
    put_word(dest, header);
    put_bytes(dest, buf, bytes, 0, k - 1);
    publish(dest);
    return k;
}

size_t nocmsg_port_pull_bytes(int src, void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8, got = 0;
    unsigned char *b = buf;
    while (got < words) {
        size_t k = available(src, words - got);
        if (!k) {
            if (!wait_for(src))
                return got;
            continue;
        }
        if (k > words - got)
            k = words - got;
        size_t whole = bytes / 8, n = 0;
        if (((uintptr_t)buf & 7) == 0 && got < whole) {
            /* Whole words straight into the buffer. */
            n = (got + k < whole ? got + k : whole) - got;
            uint64_t *dst = (uint64_t *)buf + got;
            const volatile uint64_t *ring = ring_of(mpb.me, src);
            unsigned pos = mpb.peer[src].rx_pos;
            for (size_t i = 0; i < n; i++) {
                dst[i] = ring[pos];
                if (++pos == mpb.ring_words)
                    pos = 0;
            }
        }
        for (size_t i = n; i < k; i++) {
            uint64_t w = peek_word(src, i);
            size_t at = 8 * (got + i), left = bytes - at;
            memcpy(b + at, &w, left < 8 ? left : 8);
        }
        taken(src, k);
        got += k;
    }
    return got;
}

uint64_t nocmsg_port_pull1_from(int src)
{
    uint64_t w = 0;
    if (available(src, 1))
        take_words(src, &w, 1);
    return w;
}

int nocmsg_port_poll(int *src)
{
    int s = bit_next(mpb.ready, mpb.next);
    if (s < 0) {
        if (!refresh_heads())
            return 0;
        s = bit_next(mpb.ready, mpb.next);
    }
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
    publish_acks();
    for (unsigned pause = PAUSE_FIRST;; pause = pause < PAUSE_MAX ? 2 * pause : PAUSE_MAX) {
        if (refresh_heads())
            return;
        if (sending && refresh_acks())
            return;
        pause_rounds(pause);
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
