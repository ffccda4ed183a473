/*
 * test_matching.c: which message a receive gets: order per source and tag (mixing small and large messages, so
 * eager and rendezvous transfers must not overtake each other), tags received out of order, wildcards, probing.
 * Parts that use wildcards are separated by barriers, so a wildcard can only see the messages meant for it.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { K_ORDER = 20, K_ORDER_PAIR, K_TAGS, K_WILD, K_PROBE };

#define ORDER_N (T_SIM ? 48 : 300)
#define ORDER_BIG ((size_t)(T_SIM ? 8192 : 65536))

/* Every 16th message is large, the others 4..63 bytes. */
static size_t order_size(int i)
{
    return i % 16 == 5 ? ORDER_BIG : 4 + (size_t)((i * 13) % 60);
}

/* Receives message number `i` of a sequence whose first 4 bytes hold the sequence number. */
static void recv_numbered(unsigned char *in, int source, int tag, int i, uint64_t key)
{
    nocmsg_status st;
    CHECK_OK(nocmsg_recv(in, (int)ORDER_BIG, NOCMSG_BYTE, source, tag, NOCMSG_COMM_WORLD, &st));
    uint32_t got = t_get_u32(in);
    CHECK(got == (uint32_t)i, "from rank %d with tag %d, message %d arrived as number %u", source, tag, i,
          (unsigned)got);
    if (got != (uint32_t)i)
        return;
    CHECK_STATUS(st, source, tag, order_size(i));
    CHECK_PAYLOAD_FROM(in, order_size(i), key, 4);
}

/* Many messages with one tag around the ring, all posted with isend before any is received. */
static void ordering_ring(void)
{
    unsigned char **out = t_alloc(ORDER_N * sizeof *out);
    nocmsg_request *reqs = t_alloc(ORDER_N * sizeof *reqs);
    for (int i = 0; i < ORDER_N; i++) {
        size_t n = order_size(i);
        out[i] = t_alloc(n);
        t_fill(out[i], n, t_key(K_ORDER, (uint64_t)t_rank, (uint64_t)i));
        t_put_u32(out[i], (uint32_t)i);
        CHECK_OK(nocmsg_isend(out[i], (int)n, NOCMSG_BYTE, t_right, 3, NOCMSG_COMM_WORLD, &reqs[i]));
    }
    unsigned char *in = t_alloc(ORDER_BIG);
    for (int i = 0; i < ORDER_N; i++)
        recv_numbered(in, t_left, 3, i, t_key(K_ORDER, (uint64_t)t_left, (uint64_t)i));
    CHECK_OK(nocmsg_waitall(ORDER_N, reqs, NOCMSG_STATUSES_IGNORE));
    for (int i = 0; i < ORDER_N; i++)
        free(out[i]);
    free(in);
    free(out);
    free(reqs);
}

/* The same with blocking sends between partners, received with NOCMSG_ANY_SOURCE. */
static void ordering_pair_blocking(void)
{
    if (t_partner == t_rank)
        return;
    if (t_rank < t_partner) {
        unsigned char *out = t_alloc(ORDER_BIG);
        for (int i = 0; i < ORDER_N; i++) {
            t_fill(out, order_size(i), t_key(K_ORDER_PAIR, (uint64_t)t_rank, (uint64_t)i));
            t_put_u32(out, (uint32_t)i);
            CHECK_OK(nocmsg_send(out, (int)order_size(i), NOCMSG_BYTE, t_partner, 4, NOCMSG_COMM_WORLD));
        }
        free(out);
        return;
    }
    unsigned char *in = t_alloc(ORDER_BIG);
    nocmsg_status st;
    for (int i = 0; i < ORDER_N; i++) {
        CHECK_OK(nocmsg_recv(in, (int)ORDER_BIG, NOCMSG_BYTE, NOCMSG_ANY_SOURCE, 4, NOCMSG_COMM_WORLD, &st));
        uint32_t got = t_get_u32(in);
        CHECK(got == (uint32_t)i && st.source == t_partner, "message %d arrived as number %u from rank %d", i,
              (unsigned)got, st.source);
        if (got == (uint32_t)i)
            CHECK_PAYLOAD_FROM(in, order_size(i), t_key(K_ORDER_PAIR, (uint64_t)t_partner, (uint64_t)i), 4);
    }
    free(in);
}

/* Messages with different tags, received with NOCMSG_ANY_TAG, arrive in send order. */
static void ordering_any_tag(void)
{
    enum { N = 20 };
    uint32_t out[N][2], in[2];
    nocmsg_request reqs[N];
    nocmsg_status st;
    for (int i = 0; i < N; i++) {
        out[i][0] = (uint32_t)i;
        out[i][1] = (uint32_t)t_rank;
        CHECK_OK(nocmsg_isend(out[i], 2, NOCMSG_UINT32, t_right, 10 + (i * 7) % 11, NOCMSG_COMM_WORLD, &reqs[i]));
    }
    for (int i = 0; i < N; i++) {
        CHECK_OK(nocmsg_recv(in, 2, NOCMSG_UINT32, t_left, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_left, 10 + (i * 7) % 11, sizeof in);
        CHECK(in[0] == (uint32_t)i && in[1] == (uint32_t)t_left, "ANY_TAG message %d arrived as {%u, %u}", i,
              (unsigned)in[0], (unsigned)in[1]);
    }
    CHECK_OK(nocmsg_waitall(N, reqs, NOCMSG_STATUSES_IGNORE));
}

/* Every other rank floods the last rank with small blocking sends; per-source order holds under ANY_SOURCE even
 * when the receiver's buffers fill up. */
static void ordering_flood(void)
{
    const int flood = T_SIM ? 16 : 200, root = t_size - 1;
    if (t_size < 2)
        return;
    if (t_rank != root) {
        for (int i = 0; i < flood; i++) {
            uint32_t msg[3] = {(uint32_t)i, (uint32_t)t_rank, (uint32_t)(i * 31 + t_rank)};
            CHECK_OK(nocmsg_send(msg, 3, NOCMSG_UINT32, root, 9, NOCMSG_COMM_WORLD));
        }
        return;
    }
    int *next = t_alloc((size_t)t_size * sizeof *next);
    memset(next, 0, (size_t)t_size * sizeof *next);
    for (int k = 0; k < flood * (t_size - 1); k++) {
        uint32_t msg[3];
        nocmsg_status st;
        CHECK_OK(nocmsg_recv(msg, 3, NOCMSG_UINT32, NOCMSG_ANY_SOURCE, 9, NOCMSG_COMM_WORLD, &st));
        int src = st.source;
        CHECK(src >= 0 && src < root && msg[1] == (uint32_t)src, "flood message from rank %u has source %d",
              (unsigned)msg[1], src);
        if (src < 0 || src >= root)
            continue;
        CHECK(msg[0] == (uint32_t)next[src] && msg[2] == (uint32_t)(next[src] * 31 + src),
              "from rank %d, flood message %d arrived as number %u", src, next[src], (unsigned)msg[0]);
        next[src]++;
    }
    free(next);
}

void test_ordering(void)
{
    ordering_ring();
    t_barrier();
    ordering_pair_blocking();
    t_barrier();
    ordering_any_tag();
    t_barrier();
    ordering_flood();
}

/* Eight messages with different tags (0 and NOCMSG_TAG_UB among them, every third one medium-sized) received in
 * reverse tag order: matching is by tag, not by arrival. */
void test_tags(void)
{
    enum { N = 8 };
    static const int tags[N] = {0, 1, 2, 17, 1000, 65535, NOCMSG_TAG_UB - 1, NOCMSG_TAG_UB};
    unsigned char *out[N];
    size_t sizes[N];
    nocmsg_request reqs[N];
    for (int i = 0; i < N; i++) {
        sizes[i] = i % 3 == 0 ? T_MEDIUM : (size_t)(50 + i);
        out[i] = t_alloc(sizes[i]);
        t_fill(out[i], sizes[i], t_key(K_TAGS, (uint64_t)t_rank, (uint64_t)i));
        CHECK_OK(nocmsg_isend(out[i], (int)sizes[i], NOCMSG_BYTE, t_right, tags[i], NOCMSG_COMM_WORLD, &reqs[i]));
    }
    unsigned char *in = t_alloc(T_MEDIUM + T_GUARD);
    for (int i = N - 1; i >= 0; i--) {
        nocmsg_status st;
        t_set_guard(in, sizes[i]);
        CHECK_OK(nocmsg_recv(in, (int)sizes[i], NOCMSG_BYTE, t_left, tags[i], NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_left, tags[i], sizes[i]);
        CHECK_PAYLOAD(in, sizes[i], t_key(K_TAGS, (uint64_t)t_left, (uint64_t)i));
        CHECK_GUARD(in, sizes[i]);
    }
    nocmsg_status sts[N];
    CHECK_OK(nocmsg_waitall(N, reqs, sts));
    for (int i = 0; i < N; i++) {
        CHECK(reqs[i] == NOCMSG_REQUEST_NULL, "waitall left request %d non-null", i);
        free(out[i]);
    }
    free(in);
}

/* Size of the message rank r sends to the root in test_wildcards: different per rank, so count_bytes tells them
 * apart too. */
static size_t wild_size(int r)
{
    return 16 + 3 * (size_t)r;
}

enum { WILD_BOTH, WILD_SOURCE, WILD_TAG };

/* One round: every rank (the root too) sends one message to root with tag 100 + rank; root receives them with
 * wildcards of the given kind. */
static void wildcard_round(int root, int kind)
{
    uint64_t key = t_key(K_WILD, (uint64_t)root * 3 + (uint64_t)kind, (uint64_t)t_rank);
    size_t n = wild_size(t_rank);
    unsigned char *out = t_alloc(n);
    t_fill(out, n, key);
    t_put_u32(out, (uint32_t)t_rank);
    nocmsg_request req;
    CHECK_OK(nocmsg_isend(out, (int)n, NOCMSG_BYTE, root, 100 + t_rank, NOCMSG_COMM_WORLD, &req));
    if (t_rank == root) {
        size_t cap = wild_size(t_size - 1);
        unsigned char *in = t_alloc(cap);
        char *seen = t_alloc((size_t)t_size);
        memset(seen, 0, (size_t)t_size);
        for (int k = 0; k < t_size; k++) {
            nocmsg_status st;
            int want_src = kind == WILD_SOURCE ? t_size - 1 - k : (k + t_size / 2) % t_size;
            if (kind == WILD_BOTH)
                CHECK_OK(nocmsg_recv(in, (int)cap, NOCMSG_BYTE, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD,
                                     &st));
            else if (kind == WILD_SOURCE)
                CHECK_OK(nocmsg_recv(in, (int)cap, NOCMSG_BYTE, NOCMSG_ANY_SOURCE, 100 + want_src, NOCMSG_COMM_WORLD,
                                     &st));
            else
                CHECK_OK(nocmsg_recv(in, (int)cap, NOCMSG_BYTE, want_src, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
            int src = st.source;
            if (kind != WILD_BOTH)
                CHECK(src == want_src, "wildcard receive (kind %d) expected source %d, status says %d", kind,
                      want_src, src);
            CHECK(src >= 0 && src < t_size, "wildcard receive gave source %d", src);
            if (src < 0 || src >= t_size)
                continue;
            CHECK(!seen[src], "wildcard receive got a second message from rank %d", src);
            seen[src] = 1;
            CHECK_STATUS(st, src, 100 + src, wild_size(src));
            CHECK(t_get_u32(in) == (uint32_t)src, "message with status source %d says it is from rank %u", src,
                  (unsigned)t_get_u32(in));
            CHECK_PAYLOAD_FROM(in, wild_size(src), t_key(K_WILD, (uint64_t)root * 3 + (uint64_t)kind, (uint64_t)src),
                               4);
        }
        free(seen);
        free(in);
    }
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));
    free(out);
    t_barrier();
}

void test_wildcards(void)
{
    const int roots[2] = {0, t_size - 1};
    for (int r = 0; r < (t_size > 1 ? 2 : 1); r++) {
        wildcard_round(roots[r], WILD_BOTH);
        wildcard_round(roots[r], WILD_SOURCE);
        wildcard_round(roots[r], WILD_TAG);
    }
}

void test_probe(void)
{
    nocmsg_status st, st2;
    int flag = -1;

    /* Nothing is ever sent with tag 777. */
    CHECK_OK(nocmsg_iprobe(t_left, 777, NOCMSG_COMM_WORLD, &flag, &st));
    CHECK(flag == 0, "iprobe found a message with a tag nobody sent");

    /* probe (twice: it does not consume) reports source, tag and size before the receive, for an empty, a small
     * and a large message. */
    enum { N = 3 };
    const size_t sizes[N] = {0, 13, T_MEDIUM};
    unsigned char *out[N];
    nocmsg_request reqs[N];
    for (int i = 0; i < N; i++) {
        out[i] = t_alloc(sizes[i]);
        t_fill(out[i], sizes[i], t_key(K_PROBE, (uint64_t)t_rank, (uint64_t)i));
        CHECK_OK(nocmsg_isend(out[i], (int)sizes[i], NOCMSG_BYTE, t_right, 40 + i, NOCMSG_COMM_WORLD, &reqs[i]));
    }
    for (int i = N - 1; i >= 0; i--) {
        CHECK_OK(nocmsg_probe(t_left, 40 + i, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_left, 40 + i, sizes[i]);
        CHECK_OK(nocmsg_probe(NOCMSG_ANY_SOURCE, 40 + i, NOCMSG_COMM_WORLD, &st2));
        CHECK_STATUS(st2, t_left, 40 + i, sizes[i]);
        int count = -1;
        CHECK_OK(nocmsg_get_count(&st, NOCMSG_BYTE, &count));
        CHECK(count == (int)sizes[i], "get_count after probe: %d", count);
        unsigned char *in = t_alloc(st.count_bytes);
        CHECK_OK(nocmsg_recv(in, count, NOCMSG_BYTE, st.source, st.tag, NOCMSG_COMM_WORLD, &st2));
        CHECK_STATUS(st2, t_left, 40 + i, sizes[i]);
        CHECK_PAYLOAD(in, sizes[i], t_key(K_PROBE, (uint64_t)t_left, (uint64_t)i));
        free(in);
    }
    CHECK_OK(nocmsg_waitall(N, reqs, NOCMSG_STATUSES_IGNORE));
    for (int i = 0; i < N; i++)
        free(out[i]);

    /* iprobe with both wildcards, polled until the message shows up, then received by what it reported. */
    uint32_t msg[50], in[50];
    for (int i = 0; i < 50; i++)
        msg[i] = (uint32_t)(t_rank * 1000 + i);
    nocmsg_request req;
    CHECK_OK(nocmsg_isend(msg, 50, NOCMSG_UINT32, t_right, 50, NOCMSG_COMM_WORLD, &req));
    flag = 0;
    while (!flag) {
        CHECK_OK(nocmsg_iprobe(NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &flag, &st));
        if (t_failures)
            break;
        if (!flag)
            CHECK_OK(nocmsg_progress());
    }
    CHECK_STATUS(st, t_left, 50, sizeof msg);
    CHECK_OK(nocmsg_recv(in, 50, NOCMSG_UINT32, st.source, st.tag, NOCMSG_COMM_WORLD, &st2));
    CHECK_STATUS(st2, t_left, 50, sizeof msg);
    for (int i = 0; i < 50; i++)
        CHECK(in[i] == (uint32_t)(t_left * 1000 + i), "element %d after iprobe is %u", i, (unsigned)in[i]);
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));

    /* A large message to self, found by a probe on COMM_SELF. */
    size_t n = T_MEDIUM;
    unsigned char *big = t_alloc(n), *bigin = t_alloc(n);
    t_fill(big, n, t_key(K_PROBE, (uint64_t)t_rank, 99));
    CHECK_OK(nocmsg_isend(big, (int)n, NOCMSG_BYTE, 0, 51, NOCMSG_COMM_SELF, &req));
    CHECK_OK(nocmsg_probe(NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_SELF, &st));
    CHECK_STATUS(st, 0, 51, n);
    CHECK_OK(nocmsg_recv(bigin, (int)n, NOCMSG_BYTE, 0, 51, NOCMSG_COMM_SELF, &st));
    CHECK_PAYLOAD(bigin, n, t_key(K_PROBE, (uint64_t)t_rank, 99));
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));
    free(big);
    free(bigin);

    /* Probing NOCMSG_PROC_NULL returns at once, as in MPI. */
    CHECK_OK(nocmsg_probe(NOCMSG_PROC_NULL, 0, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, NOCMSG_PROC_NULL, NOCMSG_ANY_TAG, 0);
    flag = 0;
    CHECK_OK(nocmsg_iprobe(NOCMSG_PROC_NULL, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &flag, &st));
    CHECK(flag == 1, "iprobe of PROC_NULL gave flag %d", flag);
    CHECK_STATUS(st, NOCMSG_PROC_NULL, NOCMSG_ANY_TAG, 0);
}
