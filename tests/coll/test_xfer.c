/*
 * test_xfer.c: NoCMsg's non-flow-controlled transfers (nocmsg_xsend, nocmsg_xrecv, nocmsg_xchg) under their
 * precondition (the receiver is in, or about to enter, the matching receive and has room for the message), from
 * 0 bytes to T_XFER_MAX: each transfer is repeated with ordinary send/recv or sendrecv, and buffers and statuses must
 * be the same (and the expected payload). Pairs at distances 1, 2, 4... (rank ^ d), both directions, receives with
 * and without wildcards, xchg with sync = 0 and 1, with itself and with NOCMSG_PROC_NULL; ordering with ordinary
 * messages of the same tag, isolation from another communicator, a receiver that arrives late (the message is then
 * buffered, which costs memory, not correctness). test_xfer_errors (run at the end of the suite, since a missed
 * error can hang) checks argument errors.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const int sizes[] = {0, 1, 7, 8, 512, 513, 4096, 16384, T_XFER_MAX};
enum { SIZES = sizeof sizes / sizeof sizes[0], TAG_X = 31 };

/* The datatype and count of an n-byte message: doubles when n allows, bytes otherwise. */
static nocmsg_datatype type_of(int n, int *count)
{
    if (n % 8 == 0) {
        *count = n / 8;
        return NOCMSG_DOUBLE;
    }
    *count = n;
    return NOCMSG_BYTE;
}

static void check_same_status(const char *file, int line, const nocmsg_status *x, const nocmsg_status *o)
{
    if (x->source != o->source || x->tag != o->tag || x->count_bytes != o->count_bytes)
        t_fail(file, line, "status {source %d, tag %d, %lu bytes}, send/recv gave {source %d, tag %d, %lu bytes}",
               x->source, x->tag, (unsigned long)x->count_bytes, o->source, o->tag, (unsigned long)o->count_bytes);
}
#define CHECK_SAME_STATUS(x, o) check_same_status(__FILE__, __LINE__, &(x), &(o))

/* xsend from the lower rank of each pair (rank ^ d) to the higher one, then back; then the same with send/recv. */
static void one_way(int d, int n, int wild)
{
    /* Every rank draws the seed, partner or not, so that all stay in step. */
    uint64_t seed = t_next_seed();
    int peer = t_rank ^ d;
    if (peer >= t_size)
        return;
    int count;
    nocmsg_datatype type = type_of(n, &count);
    t_case("xsend/xrecv, ranks %d and %d, %d bytes%s", t_rank < peer ? t_rank : peer, t_rank < peer ? peer : t_rank,
           n, wild ? ", receive with ANY_SOURCE and ANY_TAG" : "");
    unsigned char *out = t_alloc((size_t)n), *xin = t_poisoned((size_t)n), *in = t_poisoned((size_t)n);
    t_fill(out, (size_t)n, t_key(seed, (uint64_t)t_rank, 1));
    int src = wild ? NOCMSG_ANY_SOURCE : peer, tag = wild ? NOCMSG_ANY_TAG : TAG_X;
    nocmsg_status xst = {0, 0, 0, 0}, st = {0, 0, 0, 0};
    for (int turn = 0; turn < 2; turn++) {
        int sending = (t_rank < peer) == (turn == 0);
        if (sending)
            CHECK_OK(nocmsg_xsend(out, count, type, peer, TAG_X, NOCMSG_COMM_WORLD));
        else
            CHECK_OK(nocmsg_xrecv(xin, count, type, src, tag, NOCMSG_COMM_WORLD, &xst));
    }
    for (int turn = 0; turn < 2; turn++) {
        int sending = (t_rank < peer) == (turn == 0);
        if (sending)
            CHECK_OK(nocmsg_send(out, count, type, peer, TAG_X, NOCMSG_COMM_WORLD));
        else
            CHECK_OK(nocmsg_recv(in, count, type, src, tag, NOCMSG_COMM_WORLD, &st));
    }
    CHECK_STATUS(xst, peer, TAG_X, n);
    CHECK_SAME_STATUS(xst, st);
    CHECK_PAYLOAD(xin, (size_t)n, t_key(seed, (uint64_t)peer, 1), "the message xrecv got");
    CHECK(memcmp(xin, in, (size_t)n + T_GUARD) == 0, "xrecv and recv got different bytes");
    CHECK_UNTOUCHED(xin + n, T_GUARD, "guard after the xrecv buffer");
    CHECK_PAYLOAD(out, (size_t)n, t_key(seed, (uint64_t)t_rank, 1), "the xsend buffer (must not change)");
    free(out);
    free(xin);
    free(in);
}

/* xchg between rank and peer (which may be the rank itself or NOCMSG_PROC_NULL), compared with sendrecv. */
static void exchange(int peer, int n, int sync)
{
    int count;
    nocmsg_datatype type = type_of(n, &count);
    uint64_t seed = t_next_seed();
    t_case("xchg, rank %d with %d, %d bytes, sync %d", t_rank, peer, n, sync);
    unsigned char *out = t_alloc((size_t)n), *xin = t_poisoned((size_t)n), *in = t_poisoned((size_t)n);
    t_fill(out, (size_t)n, t_key(seed, (uint64_t)t_rank, 2));
    nocmsg_status xst = {0, 0, 0, 0}, st = {0, 0, 0, 0};
    CHECK_OK(nocmsg_xchg(out, xin, count, type, peer, TAG_X + 1, sync, NOCMSG_COMM_WORLD, &xst));
    CHECK_OK(nocmsg_sendrecv(out, count, type, peer, TAG_X + 1, in, count, type, peer, TAG_X + 1, NOCMSG_COMM_WORLD,
                             &st));
    CHECK_SAME_STATUS(xst, st);
    if (peer == NOCMSG_PROC_NULL) {
        CHECK_STATUS(xst, NOCMSG_PROC_NULL, NOCMSG_ANY_TAG, 0);
        CHECK_UNTOUCHED(xin, (size_t)n, "the receive buffer of an exchange with NOCMSG_PROC_NULL");
    } else {
        CHECK_STATUS(xst, peer, TAG_X + 1, n);
        CHECK_PAYLOAD(xin, (size_t)n, t_key(seed, (uint64_t)peer, 2), "the message xchg got");
    }
    CHECK(memcmp(xin, in, (size_t)n + T_GUARD) == 0, "xchg and sendrecv got different bytes");
    CHECK_UNTOUCHED(xin + n, T_GUARD, "guard after the xchg receive buffer");
    CHECK_PAYLOAD(out, (size_t)n, t_key(seed, (uint64_t)t_rank, 2), "the xchg send buffer (must not change)");
    free(out);
    free(xin);
    free(in);
}

/* Rank 2k sends to 2k+1: a, then b with xsend, then c, all with one tag, plus a decoy with that tag on a duplicate
 * communicator; the receiver takes them in order with recv, xrecv, recv (the last with ANY_TAG), the decoy last. */
static void ordering(nocmsg_comm dup)
{
    uint64_t seed = t_next_seed();
    int peer = t_rank ^ 1;
    if (peer >= t_size)
        return;
    t_case("ordering of send, xsend and send with one tag, ranks %d and %d", t_rank & ~1, t_rank | 1);
    enum { A = 16, B = 4096 + 8, C = 100, DECOY = 24 };
    unsigned char *buf = t_alloc(B);
    nocmsg_status st;
    if (t_rank < peer) {
        t_fill(buf, DECOY, t_key(seed, 9, 0));
        CHECK_OK(nocmsg_send(buf, DECOY, NOCMSG_BYTE, peer, TAG_X, dup));
        t_fill(buf, A, t_key(seed, 1, 0));
        CHECK_OK(nocmsg_send(buf, A, NOCMSG_BYTE, peer, TAG_X, NOCMSG_COMM_WORLD));
        t_fill(buf, B, t_key(seed, 2, 0));
        CHECK_OK(nocmsg_xsend(buf, B, NOCMSG_BYTE, peer, TAG_X, NOCMSG_COMM_WORLD));
        t_fill(buf, C, t_key(seed, 3, 0));
        CHECK_OK(nocmsg_send(buf, C, NOCMSG_BYTE, peer, TAG_X, NOCMSG_COMM_WORLD));
    } else {
        CHECK_OK(nocmsg_recv(buf, B, NOCMSG_BYTE, peer, TAG_X, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, TAG_X, A);
        CHECK_PAYLOAD(buf, A, t_key(seed, 1, 0), "the first message (send)");
        CHECK_OK(nocmsg_xrecv(buf, B, NOCMSG_BYTE, peer, TAG_X, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, TAG_X, B);
        CHECK_PAYLOAD(buf, B, t_key(seed, 2, 0), "the second message (xsend)");
        CHECK_OK(nocmsg_recv(buf, B, NOCMSG_BYTE, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, TAG_X, C);
        CHECK_PAYLOAD(buf, C, t_key(seed, 3, 0), "the third message (send)");
        CHECK_OK(nocmsg_xrecv(buf, B, NOCMSG_BYTE, peer, TAG_X, dup, &st));
        CHECK_STATUS(st, peer, TAG_X, DECOY);
        CHECK_PAYLOAD(buf, DECOY, t_key(seed, 9, 0), "the message on the duplicate communicator");
    }
    free(buf);
}

/* Outside the precondition: the receiver computes for a while before it enters xrecv. The message must still arrive
 * whole (nocmsg.h: it is then buffered at the receiver). */
static void late_receiver(int n)
{
    uint64_t seed = t_next_seed();
    int peer = t_rank ^ 1;
    if (peer >= t_size)
        return;
    t_case("xsend to a receiver that comes late, ranks %d and %d, %d bytes", t_rank & ~1, t_rank | 1, n);
    unsigned char *buf = t_poisoned((size_t)n);
    nocmsg_status st;
    if (t_rank < peer) {
        t_fill(buf, (size_t)n, t_key(seed, 5, 0));
        CHECK_OK(nocmsg_xsend(buf, n, NOCMSG_BYTE, peer, TAG_X + 2, NOCMSG_COMM_WORLD));
    } else {
        /* Busy without calling the library. */
        volatile uint64_t sink = 0;
        for (int i = 0; i < (T_SIM ? 5000 : 500000); i++)
            sink += t_mix((uint64_t)i);
        CHECK_OK(nocmsg_xrecv(buf, n, NOCMSG_BYTE, peer, TAG_X + 2, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, TAG_X + 2, n);
        CHECK_PAYLOAD(buf, (size_t)n, t_key(seed, 5, 0), "the message of the late receiver");
        CHECK_UNTOUCHED(buf + n, T_GUARD, "guard after the xrecv buffer");
    }
    free(buf);
}

void test_xfer_errors(void)
{
    t_case("xsend, xrecv and xchg with bad arguments");
    int buf[4] = {0}, in[4];
    nocmsg_status st;
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    CHECK_RC(nocmsg_xsend(buf, 1, NOCMSG_INT, t_size, 0, W), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_xsend(buf, 1, NOCMSG_INT, NOCMSG_ANY_SOURCE, 0, W), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_xsend(buf, 1, NOCMSG_INT, t_right, -5, W), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_xsend(buf, 1, NOCMSG_INT, t_right, NOCMSG_ANY_TAG, W), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_xsend(buf, -1, NOCMSG_INT, t_right, 0, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_xsend(NULL, 4, NOCMSG_INT, t_right, 0, W), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_xsend(buf, 1, NOCMSG_DATATYPE_NULL, t_right, 0, W), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_xsend(buf, 1, NOCMSG_INT, t_right, 0, NOCMSG_COMM_NULL), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_xrecv(in, 1, NOCMSG_INT, t_size, 0, W, &st), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_xrecv(in, 1, NOCMSG_INT, t_left, NOCMSG_TAG_UB + 1, W, &st), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_xrecv(in, -1, NOCMSG_INT, t_left, 0, W, &st), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_xrecv(NULL, 1, NOCMSG_INT, t_left, 0, W, &st), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_xrecv(in, 1, 999, t_left, 0, W, &st), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_xrecv(in, 1, NOCMSG_INT, t_left, 0, 12345, &st), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_xchg(buf, in, 1, NOCMSG_INT, t_size, 0, 0, W, &st), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_xchg(buf, in, 1, NOCMSG_INT, NOCMSG_ANY_SOURCE, 0, 1, W, &st), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_xchg(buf, in, 1, NOCMSG_INT, t_right, NOCMSG_ANY_TAG, 0, W, &st), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_xchg(buf, in, -2, NOCMSG_INT, t_right, 0, 0, W, &st), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_xchg(NULL, in, 4, NOCMSG_INT, t_right, 0, 0, W, &st), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_xchg(buf, NULL, 4, NOCMSG_INT, t_right, 0, 1, W, &st), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_xchg(buf, in, 1, NOCMSG_BASIC_DATATYPES, t_right, 0, 1, W, &st), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_xchg(buf, in, 1, NOCMSG_INT, t_right, 0, 0, NOCMSG_COMM_NULL, &st), NOCMSG_ERR_COMM);
    /* NOCMSG_PROC_NULL: nothing happens, as with send and recv. */
    t_case("xsend and xrecv with NOCMSG_PROC_NULL");
    CHECK_OK(nocmsg_xsend(buf, 4, NOCMSG_INT, NOCMSG_PROC_NULL, 0, W));
    memset(in, T_POISON, sizeof in);
    CHECK_OK(nocmsg_xrecv(in, 4, NOCMSG_INT, NOCMSG_PROC_NULL, 0, W, &st));
    CHECK_STATUS(st, NOCMSG_PROC_NULL, NOCMSG_ANY_TAG, 0);
    CHECK_UNTOUCHED(in, sizeof in, "the buffer of an xrecv from NOCMSG_PROC_NULL");
    /* No bad call sent anything. */
    int flag = 1;
    CHECK_OK(nocmsg_iprobe(NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, W, &flag, &st));
    CHECK(flag == 0, "a message from rank %d with tag %d is waiting after the bad calls", st.source, st.tag);
}

void test_xfer(void)
{
    for (int s = 0; s < SIZES; s++) {
        for (int d = 1; d < t_size; d *= 2) {
            one_way(d, sizes[s], 0);
            /* Wildcard receives could take a message of the next round from a rank that is ahead. */
            t_barrier();
            one_way(d, sizes[s], 1);
            t_barrier();
            /* A rank without a partner at this distance exchanges with NOCMSG_PROC_NULL meanwhile. */
            for (int sync = 0; sync < 2; sync++)
                exchange((t_rank ^ d) < t_size ? t_rank ^ d : NOCMSG_PROC_NULL, sizes[s], sync);
        }
        /* Ranks without a partner at distance 1 (the last of an odd size) and every rank once: with itself. */
        for (int sync = 0; sync < 2; sync++)
            exchange(t_rank, sizes[s], sync);
        exchange(NOCMSG_PROC_NULL, sizes[s], s % 2);
    }
    t_section_end("xfer: pairs, exchanges");
    nocmsg_comm dup = NOCMSG_COMM_NULL;
    CHECK_OK(nocmsg_comm_dup(NOCMSG_COMM_WORLD, &dup));
    for (int i = 0; i < 3; i++)
        ordering(dup);
    CHECK_OK(nocmsg_comm_free(&dup));
    late_receiver(4096);
    late_receiver(16384);
    t_section_end("xfer: ordering, late receiver");
}
