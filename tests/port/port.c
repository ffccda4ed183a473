/*
 * port.c: what a port of libnocmsg (lib/ports/port.h) must get right under load, through the public API only, so
 * that the same program checks every port: simulated PIMP and MPB chips and natively (tests/port/README.md).
 *
 *   port [section...]     sections: sizes wrap slow exchange all2one (default: all of them)
 *
 *   sizes     messages of 0, 1, 7, 8, 31, 32, 33, 64, 255, 256, 511-513, 1024, 4 KiB, 8 KiB and 8 KiB + 1 bytes between
 *             partners, both ways at once (sendrecv), from and into buffers at offsets 0, 1 and 3
 *   wrap      a long stream of messages of mixed sizes one way between partners, then the other way: many times
 *             round the smallest receive ring of any port (224 bytes per sender on 64 MPB ranks)
 *   slow      a receiver that comes late: its partner's eager sends fill the way and must wait for room (credits)
 *             while it is busy, and go on when it drains
 *   exchange  both partners send large messages to each other at the same time (isend + irecv, sendrecv,
 *             blocking sends behind posted receives), which must not deadlock
 *   all2one   every rank sends small and large messages to rank 0, which receives them from any source in the order
 *             each source sent them
 *
 * Every payload is generated from a key (splitmix64) and checked byte by byte, with guard bytes around each receive
 * buffer. Rank 0 prints one line per section (counts that depend only on the number of ranks) and a summary;
 * failures go to stdout as `FAIL rank R: ...` and make the exit status non-zero.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nocmsg.h>

static int me, size, failures;

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        printf("FAIL rank %d: ", me);                                                                                  \
        printf(__VA_ARGS__);                                                                                           \
        printf("\n");                                                                                                  \
        failures++;                                                                                                    \
    } while (0)

#define OK(call)                                                                                                       \
    do {                                                                                                               \
        int rc_ = (call);                                                                                              \
        if (rc_ != NOCMSG_SUCCESS)                                                                                     \
            FAIL("%s returned %d (%s), line %d", #call, rc_, nocmsg_error_string(rc_), __LINE__);                     \
    } while (0)

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t key(uint64_t section, uint64_t from, uint64_t seq)
{
    return splitmix(section << 48 ^ from << 32 ^ seq);
}

static void fill(unsigned char *buf, size_t bytes, uint64_t k)
{
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (unsigned char)(splitmix(k + i / 8) >> (8 * (i % 8)));
}

/* Guard bytes around a receive buffer: nothing outside the message may be written. */
#define GUARD 8
#define GUARD_BYTE 0xa5

/* Checks a received message (at buf, GUARD bytes of guard before and after `room` bytes). */
static void check(const unsigned char *buf, size_t bytes, size_t room, uint64_t k, const char *what, int from)
{
    for (size_t i = 0; i < bytes; i++) {
        unsigned char want = (unsigned char)(splitmix(k + i / 8) >> (8 * (i % 8)));
        if (buf[i] != want) {
            FAIL("%s: %zu bytes from rank %d, byte %zu is %#x, expected %#x", what, bytes, from, i, buf[i], want);
            return;
        }
    }
    for (size_t i = 0; i < GUARD; i++)
        if (buf[-1 - (ptrdiff_t)i] != GUARD_BYTE || buf[room + i] != GUARD_BYTE) {
            FAIL("%s: %zu bytes from rank %d: a guard byte was overwritten", what, bytes, from);
            return;
        }
}

static void check_status(const nocmsg_status *st, int source, int tag, size_t bytes, const char *what)
{
    if (st->source != source || st->tag != tag || st->count_bytes != bytes)
        FAIL("%s: status source %d tag %d count %zu, expected %d %d %zu", what, st->source, st->tag,
             (size_t)st->count_bytes, source, tag, bytes);
}

/* A receive buffer of `room` bytes at offset `skew` from 8-byte alignment, with guards. */
static unsigned char *guarded(unsigned char *block, size_t room, size_t skew)
{
    unsigned char *buf = block + 16 + skew;
    memset(block, GUARD_BYTE, room + 32 + 8);
    return buf;
}

/* The partner of a pair (0-1, 2-3, ...), or -1 for the last rank of an odd size. */
static int partner(void)
{
    int p = me ^ 1;
    return p < size ? p : -1;
}

static void barrier(void)
{
    OK(nocmsg_barrier(NOCMSG_COMM_WORLD));
}

/* ---- sizes ------------------------------------------------------------------------------------------------- */

static const size_t SIZES[] = {0, 1, 7, 8, 31, 32, 33, 64, 255, 256, 511, 512, 513, 1024, 4096, 8192, 8193};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])
#define MAX_SIZE 8193

static long section_sizes(void)
{
    static unsigned char out[MAX_SIZE + 16], in[MAX_SIZE + 48];
    static const size_t skews[] = {0, 1, 3};
    int p = partner();
    for (size_t s = 0; s < NSIZES && p >= 0; s++)
        for (size_t a = 0; a < 3; a++) {
            size_t bytes = SIZES[s], skew = skews[a];
            unsigned char *src = out + skew, *dst = guarded(in, bytes, (skew * 2) % 8);
            fill(src, bytes, key(1, (uint64_t)me, s * 4 + a));
            nocmsg_status st;
            OK(nocmsg_sendrecv(src, (int)bytes, NOCMSG_BYTE, p, (int)s, dst, (int)bytes, NOCMSG_BYTE, p, (int)s,
                               NOCMSG_COMM_WORLD, &st));
            check_status(&st, p, (int)s, bytes, "sizes");
            check(dst, bytes, bytes, key(1, (uint64_t)p, s * 4 + a), "sizes", p);
            /* And one way each, with blocking calls: the even rank first. */
            for (int turn = 0; turn < 2; turn++) {
                if ((me & 1) == turn) {
                    fill(src, bytes, key(2, (uint64_t)me, s * 4 + a));
                    OK(nocmsg_send(src, (int)bytes, NOCMSG_BYTE, p, 100 + (int)s, NOCMSG_COMM_WORLD));
                } else {
                    dst = guarded(in, bytes, skew);
                    OK(nocmsg_recv(dst, (int)bytes, NOCMSG_BYTE, p, 100 + (int)s, NOCMSG_COMM_WORLD, &st));
                    check_status(&st, p, 100 + (int)s, bytes, "sizes, one way");
                    check(dst, bytes, bytes, key(2, (uint64_t)p, s * 4 + a), "sizes, one way", p);
                }
            }
        }
    return (long)NSIZES * 3 * 4 * (size / 2); /* per pair and size: two sendrecv messages, two blocking ones */
}

/* ---- wrap -------------------------------------------------------------------------------------------------- */

/* Sizes of the stream's messages, in turn: small ones, ones around a line, a few past the eager limit. */
static size_t wrap_size(int i)
{
    static const size_t cycle[] = {8, 24, 40, 0, 200, 33, 96, 1, 520, 64, 16, 300, 7, 128, 2000, 56};
    return cycle[i % (int)(sizeof cycle / sizeof cycle[0])];
}

#define WRAP_MESSAGES 160

static long section_wrap(void)
{
    static unsigned char buf[2048 + 48];
    int p = partner();
    long bytes_total = 0;
    for (int i = 0; i < WRAP_MESSAGES; i++)
        bytes_total += (long)wrap_size(i);
    if (p >= 0)
        for (int dir = 0; dir < 2; dir++) {
            int sending = (me & 1) == dir;
            for (int i = 0; i < WRAP_MESSAGES; i++) {
                size_t bytes = wrap_size(i);
                if (sending) {
                    fill(buf, bytes, key(3, (uint64_t)me, (uint64_t)i));
                    OK(nocmsg_send(buf, (int)bytes, NOCMSG_BYTE, p, i % 3, NOCMSG_COMM_WORLD));
                } else {
                    nocmsg_status st;
                    unsigned char *dst = guarded(buf, bytes, (size_t)i % 8);
                    OK(nocmsg_recv(dst, (int)bytes, NOCMSG_BYTE, p, i % 3, NOCMSG_COMM_WORLD, &st));
                    check_status(&st, p, i % 3, bytes, "wrap");
                    check(dst, bytes, bytes, key(3, (uint64_t)p, (uint64_t)i), "wrap", p);
                }
            }
        }
    return bytes_total * 2 * (size / 2);
}

/* ---- slow -------------------------------------------------------------------------------------------------- */

#define SLOW_MESSAGES 48
#define SLOW_BYTES 256

/* Keeps the rank busy outside the library for `seconds`. */
static void busy(double seconds)
{
    double until = nocmsg_wtime() + seconds;
    while (nocmsg_wtime() < until)
        ;
}

static long section_slow(void)
{
    static unsigned char buf[SLOW_BYTES + 48];
    int p = partner();
    if (p >= 0) {
        if (me & 1) {
            /* The receiver comes late, and then takes its time over every eighth message. */
            busy(100e-6);
            for (int i = 0; i < SLOW_MESSAGES; i++) {
                nocmsg_status st;
                unsigned char *dst = guarded(buf, SLOW_BYTES, 0);
                OK(nocmsg_recv(dst, SLOW_BYTES, NOCMSG_BYTE, p, 7, NOCMSG_COMM_WORLD, &st));
                check_status(&st, p, 7, SLOW_BYTES, "slow");
                check(dst, SLOW_BYTES, SLOW_BYTES, key(4, (uint64_t)p, (uint64_t)i), "slow", p);
                if (i % 8 == 7)
                    busy(20e-6);
            }
        } else {
            for (int i = 0; i < SLOW_MESSAGES; i++) {
                fill(buf, SLOW_BYTES, key(4, (uint64_t)me, (uint64_t)i));
                OK(nocmsg_send(buf, SLOW_BYTES, NOCMSG_BYTE, p, 7, NOCMSG_COMM_WORLD));
            }
        }
    }
    return (long)SLOW_MESSAGES * SLOW_BYTES * (size / 2);
}

/* ---- exchange ---------------------------------------------------------------------------------------------- */

#define EXCHANGE_BYTES (64 * 1024)

static long section_exchange(void)
{
    static unsigned char out[EXCHANGE_BYTES + 16], in[EXCHANGE_BYTES + 48];
    static const size_t sizes[] = {EXCHANGE_BYTES, 8193, 600, 4096};
    int p = partner();
    long messages = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t bytes = sizes[s];
        messages += 3 * 2 * (size / 2);
        if (p < 0)
            continue;
        nocmsg_status st;
        /* isend + irecv, completed together. */
        nocmsg_request req[2];
        unsigned char *dst = guarded(in, bytes, 0);
        fill(out, bytes, key(5, (uint64_t)me, s));
        OK(nocmsg_irecv(dst, (int)bytes, NOCMSG_BYTE, p, 1, NOCMSG_COMM_WORLD, &req[0]));
        OK(nocmsg_isend(out, (int)bytes, NOCMSG_BYTE, p, 1, NOCMSG_COMM_WORLD, &req[1]));
        nocmsg_status sts[2];
        OK(nocmsg_waitall(2, req, sts));
        check_status(&sts[0], p, 1, bytes, "exchange (isend, irecv)");
        check(dst, bytes, bytes, key(5, (uint64_t)p, s), "exchange (isend, irecv)", p);
        /* sendrecv, at a skewed offset. */
        dst = guarded(in, bytes, 5);
        fill(out + 3, bytes, key(6, (uint64_t)me, s));
        OK(nocmsg_sendrecv(out + 3, (int)bytes, NOCMSG_BYTE, p, 2, dst, (int)bytes, NOCMSG_BYTE, p, 2,
                           NOCMSG_COMM_WORLD, &st));
        check_status(&st, p, 2, bytes, "exchange (sendrecv)");
        check(dst, bytes, bytes, key(6, (uint64_t)p, s), "exchange (sendrecv)", p);
        /* A blocking send behind a posted receive, on both sides at once. */
        dst = guarded(in, bytes, 0);
        fill(out, bytes, key(7, (uint64_t)me, s));
        OK(nocmsg_irecv(dst, (int)bytes, NOCMSG_BYTE, p, 3, NOCMSG_COMM_WORLD, &req[0]));
        OK(nocmsg_send(out, (int)bytes, NOCMSG_BYTE, p, 3, NOCMSG_COMM_WORLD));
        OK(nocmsg_wait(&req[0], &st));
        check_status(&st, p, 3, bytes, "exchange (send behind irecv)");
        check(dst, bytes, bytes, key(7, (uint64_t)p, s), "exchange (send behind irecv)", p);
    }
    return messages;
}

/* ---- all2one ----------------------------------------------------------------------------------------------- */

#define ALL2ONE_MESSAGES 6

static size_t all2one_size(int i, int from)
{
    static const size_t cycle[] = {8, 0, 33, 256, 2048, 1};
    return cycle[(i + from) % (int)(sizeof cycle / sizeof cycle[0])];
}

static long section_all2one(void)
{
    static unsigned char buf[2048 + 48];
    long messages = (long)(size - 1) * ALL2ONE_MESSAGES;
    if (me != 0) {
        for (int i = 0; i < ALL2ONE_MESSAGES; i++) {
            size_t bytes = all2one_size(i, me);
            fill(buf, bytes, key(8, (uint64_t)me, (uint64_t)i));
            /* The sequence number goes in the tag: the receiver checks per-source order. */
            OK(nocmsg_send(buf, (int)bytes, NOCMSG_BYTE, 0, i, NOCMSG_COMM_WORLD));
        }
        return messages;
    }
    int *next = calloc((size_t)size, sizeof *next);
    for (long m = 0; m < messages; m++) {
        nocmsg_status st;
        nocmsg_request req;
        /* Which source comes next is up to the network: probe, then receive into a buffer of the right size. */
        OK(nocmsg_probe(NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
        int from = st.source, i = st.tag;
        if (from <= 0 || from >= size || i != next[from]) {
            FAIL("all2one: message %d from rank %d, expected message %d of it", i, from,
                 from > 0 && from < size ? next[from] : -1);
            break;
        }
        size_t bytes = all2one_size(i, from);
        unsigned char *dst = guarded(buf, bytes, (size_t)m % 8);
        OK(nocmsg_irecv(dst, (int)bytes, NOCMSG_BYTE, from, i, NOCMSG_COMM_WORLD, &req));
        OK(nocmsg_wait(&req, &st));
        check_status(&st, from, i, bytes, "all2one");
        check(dst, bytes, bytes, key(8, (uint64_t)from, (uint64_t)i), "all2one", from);
        next[from]++;
    }
    free(next);
    return messages;
}

/* ---- main -------------------------------------------------------------------------------------------------- */

static const struct {
    const char *name;
    long (*run)(void);
    const char *unit;
} SECTIONS[] = {
    {"sizes", section_sizes, "messages"},   {"wrap", section_wrap, "bytes"},
    {"slow", section_slow, "bytes"},        {"exchange", section_exchange, "messages"},
    {"all2one", section_all2one, "messages"},
};
#define NSECTIONS (sizeof SECTIONS / sizeof SECTIONS[0])

int main(int argc, char **argv)
{
    OK(nocmsg_init(&argc, &argv));
    me = nocmsg_rank();
    size = nocmsg_size();
    for (size_t s = 0; s < NSECTIONS; s++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++)
            wanted |= strcmp(argv[a], SECTIONS[s].name) == 0;
        if (!wanted)
            continue;
        barrier();
        long count = SECTIONS[s].run();
        barrier();
        if (me == 0)
            printf("port %s: %d ranks, %ld %s\n", SECTIONS[s].name, size, count, SECTIONS[s].unit);
    }
    for (int a = 1; a < argc; a++) {
        int known = 0;
        for (size_t s = 0; s < NSECTIONS; s++)
            known |= strcmp(argv[a], SECTIONS[s].name) == 0;
        if (!known && me == 0)
            FAIL("no section %s (sizes wrap slow exchange all2one)", argv[a]);
    }
    int total = 0;
    OK(nocmsg_allreduce(&failures, &total, 1, NOCMSG_INT, NOCMSG_SUM, NOCMSG_COMM_WORLD));
    if (me == 0)
        printf("port: %d ranks, %s\n", size, total ? "FAILED" : "all checks passed");
    OK(nocmsg_finalize());
    return total ? 1 : 0;
}
