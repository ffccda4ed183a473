/*
 * test_nonblocking.c: receives posted with different tags and completed out of order with waitany, test, testall
 * and waitall, while the sender sends in yet another order; null requests; request_free.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { K_NB = 60 };

enum { NB_N = 6 };
static const int nb_send_order[NB_N] = {3, 0, 5, 1, 4, 2};

static size_t nb_size(int i)
{
    static const size_t sizes[NB_N] = {0, 31, 2000, T_MEDIUM, 8, 64};
    return sizes[i];
}

/* Buffers of one round: what this rank sends right and receives from the left. */
typedef struct {
    unsigned char *out[NB_N], *in[NB_N];
    nocmsg_request sends[NB_N], recvs[NB_N];
    char done[NB_N];
} nb_round;

static void nb_start(nb_round *r, int round, int source)
{
    for (int i = 0; i < NB_N; i++) {
        r->out[i] = t_alloc(nb_size(i));
        r->in[i] = t_alloc(nb_size(i) + T_GUARD);
        t_fill(r->out[i], nb_size(i), t_key(K_NB, (uint64_t)(t_rank * 16 + round), (uint64_t)i));
        t_set_guard(r->in[i], nb_size(i));
        r->done[i] = 0;
        r->sends[i] = r->recvs[i] = NOCMSG_REQUEST_NULL;
    }
    for (int i = 0; i < NB_N; i++)
        CHECK_OK(nocmsg_irecv(r->in[i], (int)nb_size(i), NOCMSG_BYTE, source, 10 + i, NOCMSG_COMM_WORLD,
                              &r->recvs[i]));
    for (int k = 0; k < NB_N; k++) {
        int i = nb_send_order[k];
        CHECK_OK(nocmsg_isend(r->out[i], (int)nb_size(i), NOCMSG_BYTE, t_right, 10 + i, NOCMSG_COMM_WORLD,
                              &r->sends[i]));
    }
}

/* Checks receive i of a round once its request completed. */
static void nb_check(nb_round *r, int round, int i, const nocmsg_status *st)
{
    CHECK(i >= 0 && i < NB_N && !r->done[i], "round %d: receive %d completed twice or out of range", round, i);
    if (i < 0 || i >= NB_N || r->done[i])
        return;
    r->done[i] = 1;
    CHECK(r->recvs[i] == NOCMSG_REQUEST_NULL, "round %d: completed receive %d was not reset to REQUEST_NULL", round,
          i);
    CHECK_STATUS(*st, t_left, 10 + i, nb_size(i));
    CHECK_PAYLOAD(r->in[i], nb_size(i), t_key(K_NB, (uint64_t)(t_left * 16 + round), (uint64_t)i));
    CHECK_GUARD(r->in[i], nb_size(i));
}

static void nb_finish(nb_round *r, int round)
{
    for (int i = 0; i < NB_N; i++)
        CHECK(r->done[i], "round %d: receive %d never completed", round, i);
    CHECK_OK(nocmsg_waitall(NB_N, r->sends, NOCMSG_STATUSES_IGNORE));
    for (int i = 0; i < NB_N; i++) {
        CHECK(r->sends[i] == NOCMSG_REQUEST_NULL, "round %d: send %d not reset by waitall", round, i);
        free(r->out[i]);
        free(r->in[i]);
    }
}

static void round_waitany(void)
{
    nb_round r;
    nb_start(&r, 0, t_left);
    for (int k = 0; k < NB_N && !t_failures; k++) {
        int index = -1;
        nocmsg_status st;
        CHECK_OK(nocmsg_waitany(NB_N, r.recvs, &index, &st));
        nb_check(&r, 0, index, &st);
    }
    int index = -1;
    CHECK_OK(nocmsg_waitany(NB_N, r.recvs, &index, NOCMSG_STATUS_IGNORE));
    CHECK(index == NOCMSG_UNDEFINED, "waitany over null requests gave index %d", index);
    nb_finish(&r, 0);
}

static void round_test(void)
{
    nb_round r;
    nb_start(&r, 1, t_left);
    int left = NB_N;
    while (left > 0 && !t_failures) {
        for (int i = NB_N - 1; i >= 0; i--) {
            if (r.done[i])
                continue;
            int flag = -1;
            nocmsg_status st;
            CHECK_OK(nocmsg_test(&r.recvs[i], &flag, &st));
            if (flag) {
                nb_check(&r, 1, i, &st);
                left--;
            } else {
                CHECK(r.recvs[i] != NOCMSG_REQUEST_NULL, "test with flag 0 reset the request");
            }
        }
    }
    nb_finish(&r, 1);
}

static void round_testall(void)
{
    nb_round r;
    nb_start(&r, 2, t_left);
    nocmsg_status sts[NB_N];
    int flag = 0;
    while (!flag && !t_failures) {
        CHECK_OK(nocmsg_testall(NB_N, r.recvs, &flag, sts));
    }
    for (int i = 0; i < NB_N && flag; i++)
        nb_check(&r, 2, i, &sts[i]);
    nb_finish(&r, 2);
}

/* Sends and receives completed by one waitall; receives posted with NOCMSG_ANY_SOURCE (only the left neighbour
 * sends to this rank in this section). */
static void round_waitall_mixed(void)
{
    nb_round r;
    nb_start(&r, 3, NOCMSG_ANY_SOURCE);
    nocmsg_request all[2 * NB_N];
    nocmsg_status sts[2 * NB_N];
    for (int i = 0; i < NB_N; i++) {
        all[2 * i] = r.sends[i];
        all[2 * i + 1] = r.recvs[i];
        r.sends[i] = r.recvs[i] = NOCMSG_REQUEST_NULL;
    }
    CHECK_OK(nocmsg_waitall(2 * NB_N, all, sts));
    for (int i = 0; i < NB_N; i++) {
        CHECK(all[2 * i] == NOCMSG_REQUEST_NULL && all[2 * i + 1] == NOCMSG_REQUEST_NULL, "waitall left %d non-null",
              i);
        nb_check(&r, 3, i, &sts[2 * i + 1]);
    }
    nb_finish(&r, 3);
}

static void check_empty_status(const char *file, int line, const nocmsg_status *st)
{
    t_check_status(file, line, st, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, 0);
}

static void null_requests(void)
{
    nocmsg_request req = NOCMSG_REQUEST_NULL, reqs[3] = {NOCMSG_REQUEST_NULL, NOCMSG_REQUEST_NULL,
                                                          NOCMSG_REQUEST_NULL};
    nocmsg_status st, sts[3];
    int flag = -1, index = -1;
    st.source = st.tag = 99;
    st.count_bytes = 99;
    CHECK_OK(nocmsg_wait(&req, &st));
    check_empty_status(__FILE__, __LINE__, &st);
    st.source = st.tag = 99;
    CHECK_OK(nocmsg_test(&req, &flag, &st));
    CHECK(flag == 1, "test of a null request gave flag %d", flag);
    check_empty_status(__FILE__, __LINE__, &st);
    flag = -1;
    CHECK_OK(nocmsg_testall(3, reqs, &flag, sts));
    CHECK(flag == 1, "testall of null requests gave flag %d", flag);
    CHECK_OK(nocmsg_waitall(3, reqs, sts));
    for (int i = 0; i < 3; i++)
        check_empty_status(__FILE__, __LINE__, &sts[i]);
    CHECK_OK(nocmsg_waitall(0, NULL, NOCMSG_STATUSES_IGNORE));
    CHECK_OK(nocmsg_waitany(0, NULL, &index, NOCMSG_STATUS_IGNORE));
    CHECK(index == NOCMSG_UNDEFINED, "waitany of no requests gave index %d", index);
}

/* request_free on an active send: the message still arrives. The buffer is static because it must stay untouched
 * until the send completes, which this rank cannot observe (the section's barrier comes later). */
static void free_active_send(void)
{
    static uint32_t msg[64];
    for (int i = 0; i < 64; i++)
        msg[i] = (uint32_t)(t_rank * 64 + i);
    nocmsg_request req;
    CHECK_OK(nocmsg_isend(msg, 64, NOCMSG_UINT32, t_right, 20, NOCMSG_COMM_WORLD, &req));
    CHECK_OK(nocmsg_request_free(&req));
    CHECK(req == NOCMSG_REQUEST_NULL, "request_free did not reset the request");
    uint32_t in[64];
    nocmsg_status st;
    CHECK_OK(nocmsg_recv(in, 64, NOCMSG_UINT32, t_left, 20, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 20, sizeof in);
    for (int i = 0; i < 64; i++)
        CHECK(in[i] == (uint32_t)(t_left * 64 + i), "freed send: element %d is %u", i, (unsigned)in[i]);
}

void test_nonblocking(void)
{
    null_requests();
    round_waitany();
    round_test();
    round_testall();
    round_waitall_mixed();
    free_active_send();
}
