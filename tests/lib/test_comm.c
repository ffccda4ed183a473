/*
 * test_comm.c: communicators: dup (messages on a dup never match the original), split (by parity, with keys that
 * reverse the order, with NOCMSG_UNDEFINED, nested), comm_free, comm_world_rank, NOCMSG_COMM_SELF, and the errors
 * for freed, predefined and unknown communicators.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { K_COMM = 80 };

/* Size, rank and the world rank of every member of c; world_of[i] is the world rank of rank i of c. */
static void check_comm(nocmsg_comm c, int want_size, const int *world_of, const char *what)
{
    int size = -1, rank = -1;
    CHECK_OK(nocmsg_comm_size(c, &size));
    CHECK_OK(nocmsg_comm_rank(c, &rank));
    CHECK(size == want_size, "%s: size %d, expected %d", what, size, want_size);
    if (size != want_size)
        return;
    CHECK(rank >= 0 && rank < size && world_of[rank] == t_rank, "%s: rank %d is not world rank %d's place", what,
          rank, t_rank);
    for (int i = 0; i < size; i++) {
        int w = -1;
        CHECK_OK(nocmsg_comm_world_rank(c, i, &w));
        CHECK(w == world_of[i], "%s: rank %d is world rank %d, expected %d", what, i, w, world_of[i]);
    }
    int w;
    CHECK_RC(nocmsg_comm_world_rank(c, size, &w), NOCMSG_ERR_RANK);
}

/* A ring inside c with a decoy: the same tag is also sent on NOCMSG_COMM_WORLD to the same world rank first, and
 * each message must arrive on its own communicator. The c message is received with NOCMSG_ANY_SOURCE, so the
 * status must give the source's rank in c. */
static void ring_in(nocmsg_comm c, int tag, const char *what)
{
    int size = 0, rank = 0, wright = -1, wleft = -1;
    CHECK_OK(nocmsg_comm_size(c, &size));
    CHECK_OK(nocmsg_comm_rank(c, &rank));
    if (size < 1)
        return;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    CHECK_OK(nocmsg_comm_world_rank(c, right, &wright));
    CHECK_OK(nocmsg_comm_world_rank(c, left, &wleft));
    if (t_failures)
        return;
    uint64_t decoy = t_key(K_COMM + 1, (uint64_t)t_rank, (uint64_t)tag), out = t_key(K_COMM, (uint64_t)t_rank, (uint64_t)tag);
    uint64_t in = 0;
    nocmsg_request req;
    nocmsg_status st;
    CHECK_OK(nocmsg_isend(&decoy, 1, NOCMSG_UINT64, wright, tag, NOCMSG_COMM_WORLD, &req));
    CHECK_OK(nocmsg_sendrecv(&out, 1, NOCMSG_UINT64, right, tag, &in, 1, NOCMSG_UINT64, NOCMSG_ANY_SOURCE, tag, c,
                             &st));
    CHECK_STATUS(st, left, tag, 8);
    CHECK(in == t_key(K_COMM, (uint64_t)wleft, (uint64_t)tag), "%s: ring message from the wrong sender or comm",
          what);
    CHECK_OK(nocmsg_recv(&in, 1, NOCMSG_UINT64, wleft, tag, NOCMSG_COMM_WORLD, &st));
    CHECK(in == t_key(K_COMM + 1, (uint64_t)wleft, (uint64_t)tag), "%s: the WORLD decoy was lost or swapped", what);
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));
}

static void free_comm(nocmsg_comm *c, const char *what)
{
    CHECK_OK(nocmsg_comm_free(c));
    CHECK(*c == NOCMSG_COMM_NULL, "%s: comm_free did not reset the handle", what);
}

static void dup_world(int *identity)
{
    nocmsg_comm d = NOCMSG_COMM_NULL;
    CHECK_OK(nocmsg_comm_dup(NOCMSG_COMM_WORLD, &d));
    CHECK(d != NOCMSG_COMM_NULL && d != NOCMSG_COMM_WORLD && d != NOCMSG_COMM_SELF, "dup returned handle %d", d);
    check_comm(d, t_size, identity, "dup(WORLD)");

    /* Sent on WORLD first, then on the dup, with the same tag; received on the dup first. */
    uint64_t a = t_key(K_COMM + 2, (uint64_t)t_rank, 1), b = t_key(K_COMM + 2, (uint64_t)t_rank, 2), got = 0;
    nocmsg_request reqs[2];
    nocmsg_status st;
    CHECK_OK(nocmsg_isend(&a, 1, NOCMSG_UINT64, t_right, 7, NOCMSG_COMM_WORLD, &reqs[0]));
    CHECK_OK(nocmsg_isend(&b, 1, NOCMSG_UINT64, t_right, 7, d, &reqs[1]));
    CHECK_OK(nocmsg_recv(&got, 1, NOCMSG_UINT64, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, d, &st));
    CHECK_STATUS(st, t_left, 7, 8);
    CHECK(got == t_key(K_COMM + 2, (uint64_t)t_left, 2), "a receive on a dup got the message sent on WORLD");
    CHECK_OK(nocmsg_recv(&got, 1, NOCMSG_UINT64, t_left, 7, NOCMSG_COMM_WORLD, &st));
    CHECK(got == t_key(K_COMM + 2, (uint64_t)t_left, 1), "a receive on WORLD got the message sent on the dup");
    CHECK_OK(nocmsg_waitall(2, reqs, NOCMSG_STATUSES_IGNORE));
    ring_in(d, 8, "dup(WORLD)");

    /* A dup of the dup is apart from both. */
    nocmsg_comm dd = NOCMSG_COMM_NULL;
    CHECK_OK(nocmsg_comm_dup(d, &dd));
    CHECK(dd != d && dd != NOCMSG_COMM_NULL, "dup of a dup returned handle %d", dd);
    check_comm(dd, t_size, identity, "dup(dup(WORLD))");
    ring_in(dd, 8, "dup(dup(WORLD))");

    /* After free the handle is NOCMSG_COMM_NULL, and the old value is an error. */
    nocmsg_comm old = d;
    free_comm(&d, "dup(WORLD)");
    int n = 0;
    CHECK_RC(nocmsg_comm_size(old, &n), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_send(&n, 1, NOCMSG_INT, t_right, 0, old), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_comm_free(&old), NOCMSG_ERR_COMM);
    free_comm(&dd, "dup(dup(WORLD))");
}

static void split_parity(void)
{
    nocmsg_comm p = NOCMSG_COMM_NULL;
    int color = t_rank % 2;
    CHECK_OK(nocmsg_comm_split(NOCMSG_COMM_WORLD, color, t_rank, &p));
    int size = (t_size - color + 1) / 2;
    int *world_of = t_alloc((size_t)size * sizeof *world_of);
    for (int i = 0; i < size; i++)
        world_of[i] = 2 * i + color;
    check_comm(p, size, world_of, "split by parity");
    ring_in(p, 9, "split by parity");

    /* Nested: the lower and upper half of each parity class, then a dup of that. */
    nocmsg_comm q = NOCMSG_COMM_NULL, qd = NOCMSG_COMM_NULL;
    int prank = t_rank / 2, half = size / 2;
    int upper = prank >= half;
    CHECK_OK(nocmsg_comm_split(p, upper, 0, &q));
    int qsize = upper ? size - half : half;
    check_comm(q, qsize, world_of + (upper ? half : 0), "split of a split");
    CHECK_OK(nocmsg_comm_dup(q, &qd));
    check_comm(qd, qsize, world_of + (upper ? half : 0), "dup of a split of a split");
    ring_in(qd, 10, "dup of a split of a split");
    free_comm(&qd, "dup of a split of a split");
    free_comm(&q, "split of a split");
    free_comm(&p, "split by parity");
    free(world_of);
}

/* Color rank % 3 with key size - rank: each new communicator lists its members in reverse world order. Then every
 * member sends its world rank to rank 0 of the new communicator, which receives them with NOCMSG_ANY_SOURCE and
 * checks that comm_world_rank of each status source matches. */
static void split_reversed(void)
{
    nocmsg_comm c = NOCMSG_COMM_NULL;
    int color = t_rank % 3;
    CHECK_OK(nocmsg_comm_split(NOCMSG_COMM_WORLD, color, t_size - t_rank, &c));
    int size = 0;
    int *world_of = t_alloc((size_t)t_size * sizeof *world_of);
    for (int w = t_size - 1; w >= 0; w--)
        if (w % 3 == color)
            world_of[size++] = w;
    check_comm(c, size, world_of, "split by rank % 3, reversed");
    ring_in(c, 11, "split by rank % 3, reversed");

    int rank = -1;
    CHECK_OK(nocmsg_comm_rank(c, &rank));
    int mine = t_rank;
    nocmsg_request req;
    CHECK_OK(nocmsg_isend(&mine, 1, NOCMSG_INT, 0, 12, c, &req));
    if (rank == 0) {
        for (int k = 0; k < size; k++) {
            int w = -1, got = -1;
            nocmsg_status st;
            CHECK_OK(nocmsg_recv(&got, 1, NOCMSG_INT, NOCMSG_ANY_SOURCE, 12, c, &st));
            CHECK_OK(nocmsg_comm_world_rank(c, st.source, &w));
            CHECK(w == got, "in a split communicator, status source %d is world rank %d but world rank %d sent it",
                  st.source, w, got);
        }
    }
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));
    free_comm(&c, "split by rank % 3");
    free(world_of);
}

/* Ranks with rank % 4 == 3, and the last rank, pass NOCMSG_UNDEFINED and get NOCMSG_COMM_NULL; the others split by
 * rank % 4 with equal keys, so the old order is kept. */
static void split_undefined(void)
{
    int undefined = t_rank % 4 == 3 || t_rank == t_size - 1;
    int color = undefined ? NOCMSG_UNDEFINED : t_rank % 4;
    nocmsg_comm c = 12345;
    CHECK_OK(nocmsg_comm_split(NOCMSG_COMM_WORLD, color, 0, &c));
    if (undefined) {
        CHECK(c == NOCMSG_COMM_NULL, "split with color UNDEFINED returned handle %d", c);
        return;
    }
    int size = 0;
    int *world_of = t_alloc((size_t)t_size * sizeof *world_of);
    for (int w = 0; w < t_size; w++)
        if (w % 4 == color && !(w % 4 == 3 || w == t_size - 1))
            world_of[size++] = w;
    check_comm(c, size, world_of, "split with some UNDEFINED");
    ring_in(c, 13, "split with some UNDEFINED");
    free_comm(&c, "split with some UNDEFINED");
    free(world_of);
}

/* One color for all, key rank % 2: even world ranks first, then odd ones, each in world order. */
static void split_keys(void)
{
    nocmsg_comm c = NOCMSG_COMM_NULL;
    CHECK_OK(nocmsg_comm_split(NOCMSG_COMM_WORLD, 5, t_rank % 2, &c));
    int size = 0;
    int *world_of = t_alloc((size_t)t_size * sizeof *world_of);
    for (int parity = 0; parity < 2; parity++)
        for (int w = parity; w < t_size; w += 2)
            world_of[size++] = w;
    check_comm(c, t_size, world_of, "split with key rank % 2");
    ring_in(c, 14, "split with key rank % 2");
    free_comm(&c, "split with key rank % 2");
    free(world_of);
}

static void self_comms(void)
{
    nocmsg_comm x = NOCMSG_COMM_NULL, y = NOCMSG_COMM_NULL;
    int me = t_rank;
    CHECK_OK(nocmsg_comm_split(NOCMSG_COMM_SELF, 0, 0, &x));
    check_comm(x, 1, &me, "split(COMM_SELF)");
    CHECK_OK(nocmsg_comm_dup(NOCMSG_COMM_SELF, &y));
    check_comm(y, 1, &me, "dup(COMM_SELF)");
    ring_in(y, 15, "dup(COMM_SELF)");
    free_comm(&x, "split(COMM_SELF)");
    free_comm(&y, "dup(COMM_SELF)");
}

/* Handles are recycled without mixing up messages. */
static void dup_churn(void)
{
    const int rounds = T_SIM ? 8 : 40;
    for (int i = 0; i < rounds && !t_failures; i++) {
        nocmsg_comm c = NOCMSG_COMM_NULL;
        CHECK_OK(nocmsg_comm_dup(NOCMSG_COMM_WORLD, &c));
        ring_in(c, 16 + i, "dup/free churn");
        free_comm(&c, "dup/free churn");
    }
}

static void comm_errors(void)
{
    nocmsg_comm c = NOCMSG_COMM_WORLD;
    CHECK_RC2(nocmsg_comm_free(&c), NOCMSG_ERR_COMM, NOCMSG_ERR_ARG);
    c = NOCMSG_COMM_SELF;
    CHECK_RC2(nocmsg_comm_free(&c), NOCMSG_ERR_COMM, NOCMSG_ERR_ARG);
    c = NOCMSG_COMM_NULL;
    CHECK_RC(nocmsg_comm_free(&c), NOCMSG_ERR_COMM);
    int n = -1;
    CHECK_OK(nocmsg_comm_size(NOCMSG_COMM_WORLD, &n));
    CHECK(n == t_size, "COMM_WORLD has size %d after an attempt to free it", n);
    CHECK_OK(nocmsg_comm_size(NOCMSG_COMM_SELF, &n));
    CHECK(n == 1, "COMM_SELF has size %d after an attempt to free it", n);

    /* Collective calls with arguments that are wrong on every rank fail on every rank, without hanging. */
    CHECK_RC(nocmsg_comm_dup(NOCMSG_COMM_NULL, &c), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_comm_dup(12345, &c), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_comm_split(NOCMSG_COMM_NULL, 0, 0, &c), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_comm_split(NOCMSG_COMM_WORLD, -5, 0, &c), NOCMSG_ERR_ARG);
    CHECK_RC(nocmsg_comm_split(NOCMSG_COMM_WORLD, 0, 0, NULL), NOCMSG_ERR_ARG);
}

void test_comms(void)
{
    int *identity = t_alloc((size_t)t_size * sizeof *identity);
    for (int i = 0; i < t_size; i++)
        identity[i] = i;
    check_comm(NOCMSG_COMM_WORLD, t_size, identity, "COMM_WORLD");
    dup_world(identity);
    t_barrier();
    split_parity();
    t_barrier();
    split_reversed();
    t_barrier();
    split_undefined();
    t_barrier();
    split_keys();
    self_comms();
    dup_churn();
    comm_errors();
    free(identity);
}
