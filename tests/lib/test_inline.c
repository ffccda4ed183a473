/*
 * test_inline.c: the cases where the inline fast paths of simulated builds (lib/include/nocmsg_inline.h) must hand
 * over to the library, and the edges of the cases they take themselves. Every call here has NOCMSG_COMM_WORLD and
 * a constant datatype and tag, which is what makes bin/nocmsg-cc inline it; natively the same calls go through the
 * library, so both builds must agree.
 */
#include <string.h>

#include "check.h"

#if defined(NOCMSG_SIM) && !defined(NOCMSG_PORT_MPB) && !defined(NOCMSG_NO_INLINE) &&                                 \
    (!defined(nocmsg_send) || !defined(nocmsg_recv))
#error "nocmsg.h should inline nocmsg_send and nocmsg_recv on simulated PIMP and UDN builds"
#endif
#if defined(NOCMSG_SIM) && defined(NOCMSG_PORT_UDN) && !defined(NOCMSG_NO_INLINE) &&                                   \
    (!defined(nocmsg_xsend) || !defined(nocmsg_xrecv))
#error "nocmsg.h should inline nocmsg_xsend and nocmsg_xrecv on simulated UDN builds"
#endif

enum { K_TYPES = 80, K_WILD, K_HANDOFF, K_ODD, K_POSTED, K_INTERLEAVE, K_FULL, K_XFER, K_COMM };

/* 16 bytes of `type` to the right and from the left (whole words: the inline path takes it), status checked. */
#define TYPE_ROUND(type, ctype, tag)                                                                            \
    do {                                                                                                        \
        uint64_t out_[2], in_[2 + T_GUARD / 8];                                                                 \
        int n_ = (int)(sizeof out_ / (sizeof(ctype)));                                                          \
        nocmsg_status st_;                                                                                      \
        t_fill(out_, sizeof out_, t_key(K_TYPES, (uint64_t)t_rank, tag));                                       \
        t_set_guard(in_, sizeof out_);                                                                          \
        CHECK_OK(nocmsg_send((ctype *)out_, n_, type, t_right, tag, NOCMSG_COMM_WORLD));                        \
        CHECK_OK(nocmsg_recv((ctype *)in_, n_, type, t_left, tag, NOCMSG_COMM_WORLD, &st_));                    \
        CHECK_STATUS(st_, t_left, tag, sizeof out_);                                                            \
        CHECK_PAYLOAD(in_, sizeof out_, t_key(K_TYPES, (uint64_t)t_left, tag));                                 \
        CHECK_GUARD(in_, sizeof out_);                                                                          \
    } while (0)

static void every_type(void)
{
    TYPE_ROUND(NOCMSG_BYTE, unsigned char, 1);
    TYPE_ROUND(NOCMSG_CHAR, char, 2);
    TYPE_ROUND(NOCMSG_SIGNED_CHAR, signed char, 3);
    TYPE_ROUND(NOCMSG_UNSIGNED_CHAR, unsigned char, 4);
    TYPE_ROUND(NOCMSG_SHORT, short, 5);
    TYPE_ROUND(NOCMSG_UNSIGNED_SHORT, unsigned short, 6);
    TYPE_ROUND(NOCMSG_INT, int, 7);
    TYPE_ROUND(NOCMSG_UNSIGNED, unsigned, 8);
    TYPE_ROUND(NOCMSG_LONG, long, 9);
    TYPE_ROUND(NOCMSG_UNSIGNED_LONG, unsigned long, 10);
    TYPE_ROUND(NOCMSG_LONG_LONG, long long, 11);
    TYPE_ROUND(NOCMSG_UNSIGNED_LONG_LONG, unsigned long long, 12);
    TYPE_ROUND(NOCMSG_INT8, int8_t, 13);
    TYPE_ROUND(NOCMSG_UINT8, uint8_t, 14);
    TYPE_ROUND(NOCMSG_INT16, int16_t, 15);
    TYPE_ROUND(NOCMSG_UINT16, uint16_t, 16);
    TYPE_ROUND(NOCMSG_INT32, int32_t, 17);
    TYPE_ROUND(NOCMSG_UINT32, uint32_t, 18);
    TYPE_ROUND(NOCMSG_INT64, int64_t, 19);
    TYPE_ROUND(NOCMSG_UINT64, uint64_t, 20);
    TYPE_ROUND(NOCMSG_FLOAT, float, 21);
    TYPE_ROUND(NOCMSG_DOUBLE, double, 22);
    /* The pair types, constants too: the inline paths must size them from the table (regression: a constant pair
     * type was shifted by -1, so 16 bytes went as none, and a receive skipped its truncation check). */
    struct fi { float v; int i; };
    struct di { double v; int i; };
    struct li { long v; int i; };
    struct ii { int v, i; };
    struct si { short v; int i; };
    TYPE_ROUND(NOCMSG_FLOAT_INT, struct fi, 23);
    TYPE_ROUND(NOCMSG_DOUBLE_INT, struct di, 24);
    TYPE_ROUND(NOCMSG_LONG_INT, struct li, 25);
    TYPE_ROUND(NOCMSG_2INT, struct ii, 26);
    TYPE_ROUND(NOCMSG_SHORT_INT, struct si, 27);
    uint64_t out[3], in[1 + T_GUARD / 8];
    nocmsg_status st;
    t_fill(out, sizeof out, t_key(K_TYPES, (uint64_t)t_rank, 28));
    t_set_guard(in, 8);
    CHECK_OK(nocmsg_send((struct ii *)out, 3, NOCMSG_2INT, t_right, 28, NOCMSG_COMM_WORLD));
    CHECK_RC(nocmsg_recv((struct ii *)in, 1, NOCMSG_2INT, t_left, 28, NOCMSG_COMM_WORLD, &st), NOCMSG_ERR_TRUNCATE);
    CHECK_GUARD(in, 8);
}

/* Wildcards, zero-length messages, the largest tag, the largest eager-sized message and a 4-byte-aligned one. */
static void shapes(void)
{
    uint64_t out[64], in[64 + T_GUARD / 8];
    nocmsg_status st;
    t_fill(out, sizeof out, t_key(K_WILD, (uint64_t)t_rank, 0));

    CHECK_OK(nocmsg_send(out, 2, NOCMSG_UINT64, t_right, 30, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(in, 2, NOCMSG_UINT64, NOCMSG_ANY_SOURCE, 30, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 30, 16);
    CHECK_PAYLOAD(in, 16, t_key(K_WILD, (uint64_t)t_left, 0));

    CHECK_OK(nocmsg_send(out, 3, NOCMSG_UINT64, t_right, 31, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(in, 4, NOCMSG_UINT64, t_left, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 31, 24);

    CHECK_OK(nocmsg_send(out, 1, NOCMSG_UINT64, t_right, NOCMSG_TAG_UB, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(in, 1, NOCMSG_UINT64, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, NOCMSG_TAG_UB, 8);

    /* Zero bytes, null buffers. */
    CHECK_OK(nocmsg_send(NULL, 0, NOCMSG_INT, t_right, 32, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(NULL, 0, NOCMSG_INT, t_left, 32, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 32, 0);

    /* 512 bytes (the simulated eager limit) into a buffer exactly that large, guard bytes behind it. */
    t_set_guard(in, sizeof out);
    CHECK_OK(nocmsg_send(out, 64, NOCMSG_UINT64, t_right, 33, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(in, 64, NOCMSG_UINT64, t_left, 33, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 33, sizeof out);
    CHECK_PAYLOAD(in, sizeof out, t_key(K_WILD, (uint64_t)t_left, 0));
    CHECK_GUARD(in, sizeof out);

    /* Buffers that are not 8-byte aligned go to the library on both ends. */
    int32_t *out4 = (int32_t *)(void *)out + 1, *in4 = (int32_t *)(void *)in + 1;
    CHECK_OK(nocmsg_send(out4, 6, NOCMSG_INT32, t_right, 34, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(in4, 6, NOCMSG_INT32, t_left, 34, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 34, 24);
    uint64_t want[4];
    t_fill(want, sizeof want, t_key(K_WILD, (uint64_t)t_left, 0));
    CHECK(memcmp(in4, (int32_t *)(void *)want + 1, 24) == 0, "misaligned message: wrong payload");
}

/* Messages the inline receive cannot take: another tag first, a length that is not whole words, one that does not
 * fit. The first header it sees goes to the library, which must still match everything in order. */
static void handoffs(void)
{
    uint64_t out[8], in[8 + T_GUARD / 8];
    nocmsg_status st;
    t_fill(out, sizeof out, t_key(K_HANDOFF, (uint64_t)t_rank, 0));

    /* Tag 41 is sent first but received second. */
    CHECK_OK(nocmsg_send(out, 2, NOCMSG_UINT64, t_right, 41, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_send(out + 2, 3, NOCMSG_UINT64, t_right, 42, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(in, 3, NOCMSG_UINT64, t_left, 42, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 42, 24);
    uint64_t want[8];
    t_fill(want, sizeof want, t_key(K_HANDOFF, (uint64_t)t_left, 0));
    CHECK(memcmp(in, want + 2, 24) == 0, "tag 42: wrong payload");
    CHECK_OK(nocmsg_recv(in, 8, NOCMSG_UINT64, t_left, 41, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 41, 16);
    CHECK(memcmp(in, want, 16) == 0, "tag 41: wrong payload");

    /* 13 bytes: not whole words. */
    t_set_guard(in, 13);
    CHECK_OK(nocmsg_send(out, 13, NOCMSG_BYTE, t_right, 43, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(in, 13, NOCMSG_BYTE, t_left, 43, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 43, 13);
    CHECK_PAYLOAD(in, 13, t_key(K_HANDOFF, (uint64_t)t_left, 0));
    CHECK_GUARD(in, 13);

    /* 32 bytes into 16: truncation, reported with source and tag, nothing written past the buffer. */
    t_set_guard(in, 16);
    CHECK_OK(nocmsg_send(out, 4, NOCMSG_UINT64, t_right, 44, NOCMSG_COMM_WORLD));
    st.source = st.tag = -99;
    CHECK_RC(nocmsg_recv(in, 2, NOCMSG_UINT64, t_left, 44, NOCMSG_COMM_WORLD, &st), NOCMSG_ERR_TRUNCATE);
    CHECK(st.source == t_left && st.tag == 44, "truncated: status source %d tag %d", st.source, st.tag);
    CHECK_GUARD(in, 16);

    /* Afterwards the inline path works again. */
    CHECK_OK(nocmsg_send(out, 1, NOCMSG_UINT64, t_right, 45, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(in, 1, NOCMSG_UINT64, t_left, 45, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 45, 8);
}

/* A receive posted earlier gets the first matching message, even though a blocking receive for the same source and
 * tag comes later and could take it straight from the network. */
static void posted_first(void)
{
    uint64_t a = t_key(K_POSTED, (uint64_t)t_rank, 1), b = t_key(K_POSTED, (uint64_t)t_rank, 2), ina = 0, inb = 0;
    nocmsg_request req;
    nocmsg_status st;
    CHECK_OK(nocmsg_irecv(&ina, 1, NOCMSG_UINT64, t_left, 50, NOCMSG_COMM_WORLD, &req));
    t_barrier();
    CHECK_OK(nocmsg_send(&a, 1, NOCMSG_UINT64, t_right, 50, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_send(&b, 1, NOCMSG_UINT64, t_right, 50, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(&inb, 1, NOCMSG_UINT64, t_left, 50, NOCMSG_COMM_WORLD, &st));
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));
    CHECK(ina == t_key(K_POSTED, (uint64_t)t_left, 1) && inb == t_key(K_POSTED, (uint64_t)t_left, 2),
          "posted receive and blocking receive got their messages in the wrong order");
}

/* Two ranks send 512-byte messages to one at the same moment, so their words interleave in its receive FIFO and
 * an inline receive finds the other sender's words in the middle of its payload. */
static void interleaved(void)
{
    if (t_size < 3)
        return;
    uint64_t buf[64 + T_GUARD / 8];
    nocmsg_status st;
    for (int round = 0; round < 4; round++) {
        t_barrier();
        if (t_rank == 1 || t_rank == 2) {
            t_fill(buf, 512, t_key(K_INTERLEAVE, (uint64_t)t_rank, (uint64_t)round));
            CHECK_OK(nocmsg_send(buf, 64, NOCMSG_UINT64, 0, 60, NOCMSG_COMM_WORLD));
        } else if (t_rank == 0) {
            for (int from = 1 + round % 2, k = 0; k < 2; k++, from = 3 - from) {
                t_set_guard(buf, 512);
                CHECK_OK(nocmsg_recv(buf, 64, NOCMSG_UINT64, from, 60, NOCMSG_COMM_WORLD, &st));
                CHECK_STATUS(st, from, 60, 512);
                CHECK_PAYLOAD(buf, 512, t_key(K_INTERLEAVE, (uint64_t)from, (uint64_t)round));
                CHECK_GUARD(buf, 512);
            }
        }
    }
}

/* A receiver that is busy elsewhere: the sender's FIFO and the network fill up in the middle of its messages. */
static void sender_stalls(void)
{
    if (t_size < 2 || t_rank > 1)
        return;
    enum { N = 6 };
    uint64_t buf[64 + T_GUARD / 8];
    nocmsg_status st;
    if (t_rank == 0) {
        for (int i = 0; i < N; i++) {
            t_fill(buf, 512, t_key(K_FULL, 0, (uint64_t)i));
            CHECK_OK(nocmsg_send(buf, 64, NOCMSG_UINT64, 1, 70, NOCMSG_COMM_WORLD));
        }
    } else {
        volatile uint64_t spin = 0;
        for (int i = 0; i < (T_SIM ? 5000 : 200000); i++)
            spin += (uint64_t)i;
        for (int i = 0; i < N; i++) {
            t_set_guard(buf, 512);
            CHECK_OK(nocmsg_recv(buf, 64, NOCMSG_UINT64, 0, 70, NOCMSG_COMM_WORLD, &st));
            CHECK_STATUS(st, 0, 70, 512);
            CHECK_PAYLOAD(buf, 512, t_key(K_FULL, 0, (uint64_t)i));
            CHECK_GUARD(buf, 512);
        }
    }
}

/* NoCMsg's transfers (inline on UDN chips) at sizes around a word, part words at the end included. */
static void transfers(void)
{
    static const int sizes[] = {0, 1, 3, 7, 8, 9, 13, 16, 40, 64};
    uint64_t out[8], in[8 + T_GUARD / 8];
    nocmsg_status st;
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        t_fill(out, sizeof out, t_key(K_XFER, (uint64_t)t_rank, (uint64_t)k));
        t_set_guard(in, (size_t)n);
        CHECK_OK(nocmsg_xsend(out, n, NOCMSG_BYTE, t_right, 90 + k, NOCMSG_COMM_WORLD));
        CHECK_OK(nocmsg_xrecv(in, n, NOCMSG_BYTE, t_left, 90 + k, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_left, 90 + k, n);
        CHECK_PAYLOAD(in, n, t_key(K_XFER, (uint64_t)t_left, (uint64_t)k));
        CHECK_GUARD(in, n);
    }
}

/* The inline paths' look-ups: a communicator whose ranks run the other way round from the world's, with the datatype
 * and tag in variables, wildcards, and NoCMsg's transfers on it. */
static void communicators(void)
{
    nocmsg_comm rev;
    CHECK_OK(nocmsg_comm_split(NOCMSG_COMM_WORLD, 0, t_size - t_rank, &rev));
    int me = -1, n = 0;
    CHECK_OK(nocmsg_comm_rank(rev, &me));
    CHECK_OK(nocmsg_comm_size(rev, &n));
    CHECK(me == t_size - 1 - t_rank && n == t_size, "split: rank %d of %d", me, n);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    volatile nocmsg_datatype vtype = NOCMSG_UINT16;
    volatile int vtag = 77;
    uint64_t out[8], in[8 + T_GUARD / 8];
    nocmsg_status st;
    for (int count = 0; count <= 32; count += 5) {
        size_t bytes = 2 * (size_t)count;
        t_fill(out, sizeof out, t_key(K_COMM, (uint64_t)me, (uint64_t)count));
        t_set_guard(in, bytes);
        CHECK_OK(nocmsg_send(out, count, vtype, right, vtag, rev));
        CHECK_OK(nocmsg_recv(in, count, vtype, count % 2 ? NOCMSG_ANY_SOURCE : left, count % 3 ? vtag : NOCMSG_ANY_TAG,
                             rev, &st));
        CHECK_STATUS(st, left, 77, bytes);
        CHECK_PAYLOAD(in, bytes, t_key(K_COMM, (uint64_t)left, (uint64_t)count));
        CHECK_GUARD(in, bytes);
        t_set_guard(in, bytes);
        CHECK_OK(nocmsg_xsend(out, count, vtype, right, vtag + 1, rev));
        CHECK_OK(nocmsg_xrecv(in, count, vtype, NOCMSG_ANY_SOURCE, vtag + 1, rev, &st));
        CHECK_STATUS(st, left, 78, bytes);
        CHECK_PAYLOAD(in, bytes, t_key(K_COMM, (uint64_t)left, (uint64_t)count));
        CHECK_GUARD(in, bytes);
    }
    CHECK_OK(nocmsg_comm_free(&rev));
}

void test_inline(void)
{
    every_type();
    shapes();
    handoffs();
    posted_first();
    interleaved();
    sender_stalls();
    transfers();
    communicators();
}
