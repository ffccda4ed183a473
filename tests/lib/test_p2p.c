/* test_p2p.c: point-to-point basics: messages to self, zero-length messages, and every message size class. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Keys: one namespace per test so payloads of different tests never look alike. */
enum { K_SELF = 1, K_SELF_COMM, K_SIZES_RING, K_SIZES_PAIR };

/* isend to self then recv; sendrecv and sendrecv_replace with self; for sizes up to T_BIG. */
static void self_sizes(void)
{
    static const size_t sizes[] = {0, 1, 100, 4096, T_MEDIUM, T_BIG};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        uint64_t key = t_key(K_SELF, (uint64_t)t_rank, n);
        unsigned char *out = t_alloc(n), *in = t_alloc(n + T_GUARD);
        t_fill(out, n, key);
        nocmsg_request req = NOCMSG_REQUEST_NULL;
        nocmsg_status st;

        memset(in, 0, n);
        t_set_guard(in, n);
        CHECK_OK(nocmsg_isend(out, (int)n, NOCMSG_BYTE, t_rank, 70, NOCMSG_COMM_WORLD, &req));
        CHECK_OK(nocmsg_recv(in, (int)n, NOCMSG_BYTE, t_rank, 70, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_rank, 70, n);
        CHECK_PAYLOAD(in, n, key);
        CHECK_GUARD(in, n);
        CHECK_OK(nocmsg_wait(&req, &st));
        CHECK(req == NOCMSG_REQUEST_NULL, "wait did not reset the request to NOCMSG_REQUEST_NULL");

        memset(in, 0, n);
        CHECK_OK(nocmsg_sendrecv(out, (int)n, NOCMSG_BYTE, t_rank, 71, in, (int)n, NOCMSG_BYTE, t_rank, 71,
                                 NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_rank, 71, n);
        CHECK_PAYLOAD(in, n, key);
        CHECK_GUARD(in, n);

        memcpy(in, out, n);
        CHECK_OK(nocmsg_sendrecv_replace(in, (int)n, NOCMSG_BYTE, t_rank, 72, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG,
                                         NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_rank, 72, n);
        CHECK_PAYLOAD(in, n, key);
        CHECK_GUARD(in, n);
        free(out);
        free(in);
    }
}

/* Twenty queued messages to self with one tag come back in order; an issend to self completes once received. */
static void self_queue(void)
{
    enum { N = 20 };
    uint32_t out[N][3], in[3];
    nocmsg_request reqs[N];
    nocmsg_status st;
    for (int i = 0; i < N; i++) {
        out[i][0] = (uint32_t)i;
        out[i][1] = (uint32_t)t_rank;
        out[i][2] = (uint32_t)(i * i);
        CHECK_OK(nocmsg_isend(out[i], 3, NOCMSG_UINT32, t_rank, 73, NOCMSG_COMM_WORLD, &reqs[i]));
    }
    for (int i = 0; i < N; i++) {
        CHECK_OK(nocmsg_recv(in, 3, NOCMSG_UINT32, NOCMSG_ANY_SOURCE, 73, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_rank, 73, sizeof in);
        CHECK(in[0] == (uint32_t)i && in[2] == (uint32_t)(i * i), "self message %d arrived as number %u", i,
              (unsigned)in[0]);
    }
    CHECK_OK(nocmsg_waitall(N, reqs, NOCMSG_STATUSES_IGNORE));

    nocmsg_request pair[2];
    uint32_t val = 0xabcdef01u, got = 0;
    CHECK_OK(nocmsg_issend(&val, 1, NOCMSG_UINT32, t_rank, 74, NOCMSG_COMM_WORLD, &pair[0]));
    CHECK_OK(nocmsg_irecv(&got, 1, NOCMSG_UINT32, t_rank, 74, NOCMSG_COMM_WORLD, &pair[1]));
    nocmsg_status sts[2];
    CHECK_OK(nocmsg_waitall(2, pair, sts));
    CHECK_STATUS(sts[1], t_rank, 74, 4);
    CHECK(got == val, "issend to self delivered 0x%x", (unsigned)got);
    CHECK(pair[0] == NOCMSG_REQUEST_NULL && pair[1] == NOCMSG_REQUEST_NULL, "waitall left a request non-null");
}

/* NOCMSG_COMM_SELF: one rank, rank 0 is this world rank, and its messages are apart from WORLD's. */
static void comm_self(void)
{
    int rank = -1, size = -1, world = -1;
    CHECK_OK(nocmsg_comm_rank(NOCMSG_COMM_SELF, &rank));
    CHECK_OK(nocmsg_comm_size(NOCMSG_COMM_SELF, &size));
    CHECK_OK(nocmsg_comm_world_rank(NOCMSG_COMM_SELF, 0, &world));
    CHECK(rank == 0 && size == 1 && world == t_rank, "COMM_SELF: rank %d, size %d, world rank %d", rank, size,
          world);
    CHECK_RC(nocmsg_comm_world_rank(NOCMSG_COMM_SELF, 1, &world), NOCMSG_ERR_RANK);

    uint64_t a = t_key(K_SELF_COMM, (uint64_t)t_rank, 1), b = t_key(K_SELF_COMM, (uint64_t)t_rank, 2), got = 0;
    nocmsg_request reqs[2];
    nocmsg_status st;
    CHECK_OK(nocmsg_isend(&b, 1, NOCMSG_UINT64, t_rank, 5, NOCMSG_COMM_WORLD, &reqs[0]));
    CHECK_OK(nocmsg_isend(&a, 1, NOCMSG_UINT64, 0, 5, NOCMSG_COMM_SELF, &reqs[1]));
    CHECK_OK(nocmsg_recv(&got, 1, NOCMSG_UINT64, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_SELF, &st));
    CHECK_STATUS(st, 0, 5, 8);
    CHECK(got == a, "COMM_SELF received the message sent on COMM_WORLD");
    CHECK_OK(nocmsg_recv(&got, 1, NOCMSG_UINT64, t_rank, 5, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_rank, 5, 8);
    CHECK(got == b, "COMM_WORLD received the message sent on COMM_SELF");
    CHECK_OK(nocmsg_waitall(2, reqs, NOCMSG_STATUSES_IGNORE));

    /* A larger one through sendrecv on COMM_SELF. */
    enum { N = 3000 };
    unsigned char *out = t_alloc(N), *in = t_alloc(N);
    t_fill(out, N, a);
    CHECK_OK(nocmsg_sendrecv(out, N, NOCMSG_BYTE, 0, 6, in, N, NOCMSG_BYTE, 0, 6, NOCMSG_COMM_SELF, &st));
    CHECK_STATUS(st, 0, 6, N);
    CHECK_PAYLOAD(in, N, a);
    free(out);
    free(in);
}

void test_self(void)
{
    self_sizes();
    self_queue();
    comm_self();
}

void test_zero_length(void)
{
    nocmsg_request req;
    nocmsg_status st;
    int count = -1;

    /* A null buffer is fine with count 0, on both sides. */
    CHECK_OK(nocmsg_isend(NULL, 0, NOCMSG_BYTE, t_right, 80, NOCMSG_COMM_WORLD, &req));
    CHECK_OK(nocmsg_recv(NULL, 0, NOCMSG_BYTE, t_left, 80, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 80, 0);
    CHECK_OK(nocmsg_get_count(&st, NOCMSG_INT, &count));
    CHECK(count == 0, "get_count of an empty message is %d", count);
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));

    /* An empty message into a non-empty buffer leaves the buffer alone. */
    unsigned char buf[10 + T_GUARD];
    memset(buf, 0x5a, 10);
    t_set_guard(buf, 10);
    CHECK_OK(nocmsg_isend(NULL, 0, NOCMSG_DOUBLE, t_right, 81, NOCMSG_COMM_WORLD, &req));
    CHECK_OK(nocmsg_recv(buf, 10, NOCMSG_BYTE, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 81, 0);
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));
    for (int i = 0; i < 10; i++)
        CHECK(buf[i] == 0x5a, "an empty message changed byte %d of the receive buffer", i);
    CHECK_GUARD(buf, 10);

    /* Several empty messages with different tags keep their order (ANY_TAG shows the order). */
    nocmsg_request reqs[5];
    for (int i = 0; i < 5; i++)
        CHECK_OK(nocmsg_isend(NULL, 0, NOCMSG_INT, t_right, 82 + i, NOCMSG_COMM_WORLD, &reqs[i]));
    for (int i = 0; i < 5; i++) {
        CHECK_OK(nocmsg_recv(NULL, 0, NOCMSG_INT, t_left, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_left, 82 + i, 0);
    }
    CHECK_OK(nocmsg_waitall(5, reqs, NOCMSG_STATUSES_IGNORE));

    /* Blocking and synchronous empty messages between partners. */
    if (t_partner != t_rank) {
        int lower = t_rank < t_partner;
        for (int round = 0; round < 2; round++) {
            if (lower == (round == 0)) {
                CHECK_OK(nocmsg_send(NULL, 0, NOCMSG_BYTE, t_partner, 87, NOCMSG_COMM_WORLD));
                CHECK_OK(nocmsg_ssend(NULL, 0, NOCMSG_BYTE, t_partner, 88, NOCMSG_COMM_WORLD));
            } else {
                CHECK_OK(nocmsg_recv(NULL, 0, NOCMSG_BYTE, t_partner, 87, NOCMSG_COMM_WORLD, &st));
                CHECK_STATUS(st, t_partner, 87, 0);
                CHECK_OK(nocmsg_recv(NULL, 0, NOCMSG_BYTE, t_partner, 88, NOCMSG_COMM_WORLD, &st));
                CHECK_STATUS(st, t_partner, 88, 0);
            }
        }
    }
}

/* The datatype whose elements divide n bytes, largest first, so sizes also exercise typed counts. */
static nocmsg_datatype type_for(size_t n, int *elem)
{
    if (n % 8 == 0) {
        *elem = 8;
        return NOCMSG_UINT64;
    }
    if (n % 4 == 0) {
        *elem = 4;
        return NOCMSG_INT;
    }
    if (n % 2 == 0) {
        *elem = 2;
        return NOCMSG_SHORT;
    }
    *elem = 1;
    return NOCMSG_BYTE;
}

static void check_counts(const nocmsg_status *st, size_t n, int elem, nocmsg_datatype type)
{
    int count = -1;
    CHECK_OK(nocmsg_get_count(st, type, &count));
    CHECK(count == (int)(n / (size_t)elem), "get_count of %lu bytes as the sent type: %d", (unsigned long)n, count);
    CHECK_OK(nocmsg_get_count(st, NOCMSG_BYTE, &count));
    CHECK(count == (int)n, "get_count of %lu bytes as BYTE: %d", (unsigned long)n, count);
    CHECK_OK(nocmsg_get_count(st, NOCMSG_INT32, &count));
    int want = n % 4 ? NOCMSG_UNDEFINED : (int)(n / 4);
    CHECK(count == want, "get_count of %lu bytes as INT32: %d, expected %d", (unsigned long)n, count, want);
}

void test_sizes(void)
{
    static const size_t sizes[] = {0,    1,    7,     8,  9,  63, 64, 65, 1000, 4096, 65536,
#ifndef NOCMSG_SIM
                                   262144, 1048576,
#endif
    };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        int elem;
        nocmsg_datatype type = type_for(n, &elem);
        int count = (int)(n / (size_t)elem);
        unsigned char *out = t_alloc(n), *in = t_alloc(n + T_GUARD);
        nocmsg_request req;
        nocmsg_status st;

        /* Around the ring: isend right, blocking receive from the left. */
        t_fill(out, n, t_key(K_SIZES_RING, (uint64_t)t_rank, n));
        memset(in, 0, n);
        t_set_guard(in, n);
        CHECK_OK(nocmsg_isend(out, count, type, t_right, 100, NOCMSG_COMM_WORLD, &req));
        CHECK_OK(nocmsg_recv(in, count, type, t_left, 100, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, t_left, 100, n);
        CHECK_PAYLOAD(in, n, t_key(K_SIZES_RING, (uint64_t)t_left, n));
        CHECK_GUARD(in, n);
        check_counts(&st, n, elem, type);
        CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));

        /* Between partners with blocking sends, both directions in turn (large ones wait for the receiver). */
        if (t_partner != t_rank) {
            int lower = t_rank < t_partner;
            t_fill(out, n, t_key(K_SIZES_PAIR, (uint64_t)t_rank, n));
            for (int round = 0; round < 2; round++) {
                if (lower == (round == 0)) {
                    CHECK_OK(nocmsg_send(out, (int)n, NOCMSG_BYTE, t_partner, 101, NOCMSG_COMM_WORLD));
                } else {
                    memset(in, 0, n);
                    CHECK_OK(nocmsg_recv(in, (int)n, NOCMSG_BYTE, t_partner, 101, NOCMSG_COMM_WORLD, &st));
                    CHECK_STATUS(st, t_partner, 101, n);
                    CHECK_PAYLOAD(in, n, t_key(K_SIZES_PAIR, (uint64_t)t_partner, n));
                    CHECK_GUARD(in, n);
                }
            }
        }
        free(out);
        free(in);
    }
}
