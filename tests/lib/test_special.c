/*
 * test_special.c: truncation (an error the program survives), NOCMSG_PROC_NULL, synchronous sends, and both ranks
 * of a pair (or the whole ring) exchanging large messages at once, which must not deadlock.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { K_TRUNC = 40, K_SSEND, K_EXCH, K_EXCH_RING };

void test_truncate(void)
{
    unsigned char small[100], in[100 + T_GUARD];
    unsigned char *big = t_alloc(T_BIG), *bigin = t_alloc(T_BIG + T_GUARD);
    nocmsg_request req, reqs[2];
    nocmsg_status st, sts[2];
    t_fill(small, sizeof small, t_key(K_TRUNC, (uint64_t)t_rank, 1));
    t_fill(big, T_BIG, t_key(K_TRUNC, (uint64_t)t_rank, 2));

    /* A small message into a 10-byte buffer: TRUNCATE, nothing written past the buffer; the send succeeds. */
    CHECK_OK(nocmsg_isend(small, 100, NOCMSG_BYTE, t_right, 60, NOCMSG_COMM_WORLD, &req));
    t_set_guard(in, 10);
    st.source = st.tag = -99;
    CHECK_RC(nocmsg_recv(in, 10, NOCMSG_BYTE, t_left, 60, NOCMSG_COMM_WORLD, &st), NOCMSG_ERR_TRUNCATE);
    CHECK_GUARD(in, 10);
    CHECK(st.source == t_left && st.tag == 60, "truncated receive: status source %d tag %d", st.source, st.tag);
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));

    /* The largest message into 100 bytes. */
    CHECK_OK(nocmsg_isend(big, (int)T_BIG, NOCMSG_BYTE, t_right, 61, NOCMSG_COMM_WORLD, &req));
    t_set_guard(in, 100);
    CHECK_RC(nocmsg_recv(in, 100, NOCMSG_BYTE, t_left, 61, NOCMSG_COMM_WORLD, &st), NOCMSG_ERR_TRUNCATE);
    CHECK_GUARD(in, 100);
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));

    /* Through irecv and wait; the failed request is still completed and freed. */
    CHECK_OK(nocmsg_isend(small, 50, NOCMSG_BYTE, t_right, 62, NOCMSG_COMM_WORLD, &reqs[0]));
    t_set_guard(in, 5);
    CHECK_OK(nocmsg_irecv(in, 5, NOCMSG_BYTE, t_left, 62, NOCMSG_COMM_WORLD, &reqs[1]));
    CHECK_RC(nocmsg_wait(&reqs[1], &st), NOCMSG_ERR_TRUNCATE);
    CHECK(reqs[1] == NOCMSG_REQUEST_NULL, "a receive completed with TRUNCATE was not freed");
    CHECK_GUARD(in, 5);
    CHECK_OK(nocmsg_wait(&reqs[0], NOCMSG_STATUS_IGNORE));

    /* In waitall: NOCMSG_ERR_IN_STATUS, the truncated one says TRUNCATE, the other succeeded (or is pending). */
    nocmsg_request sends[2];
    unsigned char in2[20];
    CHECK_OK(nocmsg_isend(small, 50, NOCMSG_BYTE, t_right, 63, NOCMSG_COMM_WORLD, &sends[0]));
    CHECK_OK(nocmsg_isend(small + 50, 20, NOCMSG_BYTE, t_right, 64, NOCMSG_COMM_WORLD, &sends[1]));
    t_set_guard(in, 10);
    CHECK_OK(nocmsg_irecv(in, 10, NOCMSG_BYTE, t_left, 63, NOCMSG_COMM_WORLD, &reqs[0]));
    CHECK_OK(nocmsg_irecv(in2, 20, NOCMSG_BYTE, t_left, 64, NOCMSG_COMM_WORLD, &reqs[1]));
    sts[0].error = sts[1].error = -99;
    CHECK_RC(nocmsg_waitall(2, reqs, sts), NOCMSG_ERR_IN_STATUS);
    CHECK_RC(sts[0].error, NOCMSG_ERR_TRUNCATE);
    CHECK_RC2(sts[1].error, NOCMSG_SUCCESS, NOCMSG_ERR_PENDING);
    if (sts[1].error == NOCMSG_ERR_PENDING)
        CHECK_OK(nocmsg_wait(&reqs[1], &sts[1]));
    CHECK_STATUS(sts[1], t_left, 64, 20);
    unsigned char want[100];
    t_fill(want, sizeof want, t_key(K_TRUNC, (uint64_t)t_left, 1));
    CHECK(memcmp(in2, want + 50, 20) == 0, "the message next to a truncated one in waitall is wrong");
    CHECK_GUARD(in, 10);
    CHECK_OK(nocmsg_waitall(2, sends, NOCMSG_STATUSES_IGNORE));

    /* In sendrecv: the send half still happens. */
    CHECK_RC(nocmsg_sendrecv(small, 40, NOCMSG_BYTE, t_right, 65, in, 8, NOCMSG_BYTE, t_left, 65, NOCMSG_COMM_WORLD,
                             &st),
             NOCMSG_ERR_TRUNCATE);

    /* And then everything works as before, small and large. */
    CHECK_OK(nocmsg_isend(small, 100, NOCMSG_BYTE, t_right, 66, NOCMSG_COMM_WORLD, &reqs[0]));
    CHECK_OK(nocmsg_isend(big, (int)T_BIG, NOCMSG_BYTE, t_right, 67, NOCMSG_COMM_WORLD, &reqs[1]));
    CHECK_OK(nocmsg_recv(in, 100, NOCMSG_BYTE, t_left, 66, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 66, 100);
    CHECK_PAYLOAD(in, 100, t_key(K_TRUNC, (uint64_t)t_left, 1));
    t_set_guard(bigin, T_BIG);
    CHECK_OK(nocmsg_recv(bigin, (int)T_BIG, NOCMSG_BYTE, t_left, 67, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 67, T_BIG);
    CHECK_PAYLOAD(bigin, T_BIG, t_key(K_TRUNC, (uint64_t)t_left, 2));
    CHECK_GUARD(bigin, T_BIG);
    CHECK_OK(nocmsg_waitall(2, reqs, NOCMSG_STATUSES_IGNORE));
    free(big);
    free(bigin);
}

/* A receive from NOCMSG_PROC_NULL: source PROC_NULL, tag ANY_TAG, count 0, buffer untouched (as in MPI). */
static void check_null_status(const char *file, int line, const nocmsg_status *st)
{
    t_check_status(file, line, st, NOCMSG_PROC_NULL, NOCMSG_ANY_TAG, 0);
}

void test_proc_null(void)
{
    int buf[4] = {7, 7, 7, 7};
    nocmsg_status st;
    nocmsg_request reqs[2];
    CHECK_OK(nocmsg_send(buf, 4, NOCMSG_INT, NOCMSG_PROC_NULL, 5, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_ssend(buf, 4, NOCMSG_INT, NOCMSG_PROC_NULL, 5, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_recv(buf, 4, NOCMSG_INT, NOCMSG_PROC_NULL, 5, NOCMSG_COMM_WORLD, &st));
    check_null_status(__FILE__, __LINE__, &st);
    CHECK_OK(nocmsg_recv(buf, 4, NOCMSG_INT, NOCMSG_PROC_NULL, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
    check_null_status(__FILE__, __LINE__, &st);
    int count = -1;
    CHECK_OK(nocmsg_get_count(&st, NOCMSG_INT, &count));
    CHECK(count == 0, "get_count of a PROC_NULL receive is %d", count);

    CHECK_OK(nocmsg_isend(buf, 4, NOCMSG_INT, NOCMSG_PROC_NULL, 5, NOCMSG_COMM_WORLD, &reqs[0]));
    CHECK_OK(nocmsg_irecv(buf, 4, NOCMSG_INT, NOCMSG_PROC_NULL, 5, NOCMSG_COMM_WORLD, &reqs[1]));
    nocmsg_status sts[2];
    CHECK_OK(nocmsg_waitall(2, reqs, sts));
    check_null_status(__FILE__, __LINE__, &sts[1]);
    CHECK_OK(nocmsg_issend(buf, 4, NOCMSG_INT, NOCMSG_PROC_NULL, 5, NOCMSG_COMM_WORLD, &reqs[0]));
    CHECK_OK(nocmsg_wait(&reqs[0], NOCMSG_STATUS_IGNORE));

    CHECK_OK(nocmsg_sendrecv(buf, 2, NOCMSG_INT, NOCMSG_PROC_NULL, 5, buf + 2, 2, NOCMSG_INT, NOCMSG_PROC_NULL, 5,
                             NOCMSG_COMM_WORLD, &st));
    check_null_status(__FILE__, __LINE__, &st);
    CHECK_OK(nocmsg_sendrecv_replace(buf, 4, NOCMSG_INT, NOCMSG_PROC_NULL, 5, NOCMSG_PROC_NULL, 5,
                                     NOCMSG_COMM_WORLD, &st));
    check_null_status(__FILE__, __LINE__, &st);
    CHECK(buf[0] == 7 && buf[1] == 7 && buf[2] == 7 && buf[3] == 7, "a PROC_NULL receive changed the buffer");

    /* The classic use: a non-periodic shift along the ranks, the ends talking to PROC_NULL. */
    int up = t_rank + 1 < t_size ? t_rank + 1 : NOCMSG_PROC_NULL;
    int down = t_rank > 0 ? t_rank - 1 : NOCMSG_PROC_NULL;
    int out = 1000 + t_rank, got = -1;
    CHECK_OK(nocmsg_sendrecv(&out, 1, NOCMSG_INT, up, 6, &got, 1, NOCMSG_INT, down, 6, NOCMSG_COMM_WORLD, &st));
    if (down == NOCMSG_PROC_NULL) {
        check_null_status(__FILE__, __LINE__, &st);
        CHECK(got == -1, "shift from PROC_NULL wrote %d", got);
    } else {
        CHECK_STATUS(st, down, 6, sizeof got);
        CHECK(got == 1000 + down, "shift received %d", got);
    }
    int val = 2000 + t_rank;
    CHECK_OK(nocmsg_sendrecv_replace(&val, 1, NOCMSG_INT, down, 7, up, 7, NOCMSG_COMM_WORLD, &st));
    CHECK(val == (up == NOCMSG_PROC_NULL ? 2000 + t_rank : 2000 + up), "shift with replace gave %d", val);
}

void test_ssend(void)
{
    nocmsg_status st;
    nocmsg_request req, reqs[2];
    int flag = -1;

    /* An issend to self does not complete before the matching receive is posted. */
    uint64_t val = t_key(K_SSEND, (uint64_t)t_rank, 0), got = 0;
    CHECK_OK(nocmsg_issend(&val, 1, NOCMSG_UINT64, t_rank, 90, NOCMSG_COMM_WORLD, &reqs[0]));
    for (int i = 0; i < 50 && !t_failures; i++) {
        CHECK_OK(nocmsg_test(&reqs[0], &flag, NOCMSG_STATUS_IGNORE));
        CHECK(flag == 0, "issend to self completed before a receive was posted");
    }
    CHECK_OK(nocmsg_irecv(&got, 1, NOCMSG_UINT64, t_rank, 90, NOCMSG_COMM_WORLD, &reqs[1]));
    CHECK_OK(nocmsg_waitall(2, reqs, NOCMSG_STATUSES_IGNORE));
    CHECK(got == val, "issend to self delivered the wrong value");

    if (t_partner == t_rank)
        return;
    /* Between partners: the lower rank's issend stays incomplete while the higher rank waits for a "go" message
     * that is sent only after the polling, so the receive cannot have been posted yet. */
    const size_t sizes[] = {0, 100, T_MEDIUM};
    unsigned char *buf = t_alloc(T_MEDIUM);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        uint64_t key = t_key(K_SSEND, (uint64_t)t_rank, n), go = 0;
        if (t_rank < t_partner) {
            t_fill(buf, n, key);
            CHECK_OK(nocmsg_issend(buf, (int)n, NOCMSG_BYTE, t_partner, 91, NOCMSG_COMM_WORLD, &req));
            for (int i = 0; i < 200 && !t_failures; i++) {
                CHECK_OK(nocmsg_test(&req, &flag, NOCMSG_STATUS_IGNORE));
                CHECK(flag == 0, "issend of %lu bytes completed before the receiver posted a receive",
                      (unsigned long)n);
            }
            CHECK_OK(nocmsg_send(&go, 1, NOCMSG_UINT64, t_partner, 92, NOCMSG_COMM_WORLD));
            CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));
            /* Blocking ssend: returns once the partner has matched it. */
            CHECK_OK(nocmsg_ssend(buf, (int)n, NOCMSG_BYTE, t_partner, 93, NOCMSG_COMM_WORLD));
        } else {
            CHECK_OK(nocmsg_recv(&go, 1, NOCMSG_UINT64, t_partner, 92, NOCMSG_COMM_WORLD, &st));
            for (int tag = 91; tag <= 93; tag += 2) {
                memset(buf, 0, n);
                CHECK_OK(nocmsg_recv(buf, (int)n, NOCMSG_BYTE, t_partner, tag, NOCMSG_COMM_WORLD, &st));
                CHECK_STATUS(st, t_partner, tag, n);
                CHECK_PAYLOAD(buf, n, t_key(K_SSEND, (uint64_t)t_partner, n));
            }
        }
    }
    free(buf);
}

/* Both partners send each other a message of n bytes at the same time, three ways. */
static void exchange_pair(size_t n, unsigned char *out, unsigned char *in)
{
    nocmsg_request reqs[2];
    nocmsg_status sts[2], st;
    uint64_t mine = t_key(K_EXCH, (uint64_t)t_rank, n), theirs = t_key(K_EXCH, (uint64_t)t_partner, n);
    t_fill(out, n, mine);

    /* isend + irecv + waitall (posted in opposite orders on the two sides). */
    memset(in, 0, n);
    t_set_guard(in, n);
    if (t_rank % 2 == 0) {
        CHECK_OK(nocmsg_irecv(in, (int)n, NOCMSG_BYTE, t_partner, 110, NOCMSG_COMM_WORLD, &reqs[1]));
        CHECK_OK(nocmsg_isend(out, (int)n, NOCMSG_BYTE, t_partner, 110, NOCMSG_COMM_WORLD, &reqs[0]));
    } else {
        CHECK_OK(nocmsg_isend(out, (int)n, NOCMSG_BYTE, t_partner, 110, NOCMSG_COMM_WORLD, &reqs[0]));
        CHECK_OK(nocmsg_irecv(in, (int)n, NOCMSG_BYTE, t_partner, 110, NOCMSG_COMM_WORLD, &reqs[1]));
    }
    CHECK_OK(nocmsg_waitall(2, reqs, sts));
    CHECK_STATUS(sts[1], t_partner, 110, n);
    CHECK_PAYLOAD(in, n, theirs);
    CHECK_GUARD(in, n);

    /* sendrecv. */
    memset(in, 0, n);
    CHECK_OK(nocmsg_sendrecv(out, (int)n, NOCMSG_BYTE, t_partner, 111, in, (int)n, NOCMSG_BYTE, t_partner, 111,
                             NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_partner, 111, n);
    CHECK_PAYLOAD(in, n, theirs);
    CHECK_GUARD(in, n);

    /* sendrecv_replace: the buffer goes out and the partner's comes back in its place. */
    memcpy(in, out, n);
    CHECK_OK(nocmsg_sendrecv_replace(in, (int)n, NOCMSG_BYTE, t_partner, 112, t_partner, 112, NOCMSG_COMM_WORLD,
                                     &st));
    CHECK_STATUS(st, t_partner, 112, n);
    CHECK_PAYLOAD(in, n, theirs);
    CHECK_GUARD(in, n);
}

/* The whole ring at once: a cycle of blocking sendrecv and sendrecv_replace calls. */
static void exchange_ring(size_t n, unsigned char *out, unsigned char *in)
{
    nocmsg_status st;
    uint64_t mine = t_key(K_EXCH_RING, (uint64_t)t_rank, n), theirs = t_key(K_EXCH_RING, (uint64_t)t_left, n);
    t_fill(out, n, mine);
    memset(in, 0, n);
    CHECK_OK(nocmsg_sendrecv(out, (int)n, NOCMSG_BYTE, t_right, 113, in, (int)n, NOCMSG_BYTE, t_left, 113,
                             NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 113, n);
    CHECK_PAYLOAD(in, n, theirs);
    CHECK_GUARD(in, n);
    memcpy(in, out, n);
    CHECK_OK(nocmsg_sendrecv_replace(in, (int)n, NOCMSG_BYTE, t_right, 114, NOCMSG_ANY_SOURCE, 114,
                                     NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 114, n);
    CHECK_PAYLOAD(in, n, theirs);
    CHECK_GUARD(in, n);
}

void test_exchange(void)
{
    const size_t sizes[] = {100, 4096, T_MEDIUM, T_BIG};
    unsigned char *out = t_alloc(T_BIG), *in = t_alloc(T_BIG + T_GUARD);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        exchange_pair(sizes[s], out, in);
        exchange_ring(sizes[s], out, in);
    }
    free(out);
    free(in);
}
