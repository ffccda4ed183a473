/*
 * test_barrier.c: barrier with every algorithm (and "auto"): no rank leaves a barrier before the last one has
 * entered it.
 *
 * One rank at a time is late: it waits a while before entering, watching for messages the other ranks send (on a
 * private duplicate of WORLD) as soon as they leave the barrier. A correct barrier cannot let any of them out before
 * the late rank enters, so any such message seen while waiting is a failure. Each late rank is tested in two
 * barriers in a row, so a barrier that lets ranks through on messages of the previous one fails too. Then a run of
 * back-to-back barriers with nothing in between.
 *
 * Barriers count their tokens and read the network interface directly while the library is otherwise idle
 * (lib/src/coll/token.h), so they are also run with the library busy: user messages arriving in the middle of
 * them (which the barrier must hand to the progress engine, intact and in order), a receive posted across them
 * (the engine's way throughout), and algorithms switched between consecutive barriers (a fast rank's token for
 * the next barrier arriving during the current one).
 */
#include <stdlib.h>

#include "check.h"

enum { TAG_LEFT = 11, TAG_TRAFFIC = 12 };

/* How long the late rank waits: long enough for any early leaver's message to arrive (about 20,000 cycles on the
 * simulated chips, where a barrier round takes a few hundred). */
#define T_LATE_SECONDS (T_SIM ? 20e-6 : 2e-3)

static void late_rank(const t_comm *c, nocmsg_comm watch, int late)
{
    nocmsg_status st;
    if (c->rank == late) {
        double start = nocmsg_wtime();
        while (nocmsg_wtime() - start < T_LATE_SECONDS) {
            int flag = 0;
            CHECK_OK(nocmsg_iprobe(NOCMSG_ANY_SOURCE, TAG_LEFT, watch, &flag, &st));
            if (flag) {
                t_fail(__FILE__, __LINE__, "rank %d left the barrier before rank %d entered it", st.source, late);
                break;
            }
        }
    }
    t_calls++;
    CHECK_OK(nocmsg_barrier(c->comm));
    if (c->rank != late) {
        CHECK_OK(nocmsg_send(NULL, 0, NOCMSG_BYTE, late, TAG_LEFT, watch));
        return;
    }
    for (int i = 1; i < c->size; i++) {
        CHECK_OK(nocmsg_recv(NULL, 0, NOCMSG_BYTE, NOCMSG_ANY_SOURCE, TAG_LEFT, watch, &st));
        CHECK(st.source != late && st.count_bytes == 0, "unexpected message from %d", st.source);
    }
}

void check_barrier(const t_comm *c)
{
    t_case("barrier[%s] on %s", t_alg_label("barrier", 0, c->comm), c->name);
    t_calls++;
    CHECK_OK(nocmsg_barrier(c->comm));
}

/* Messages of 0, 8, 40 and 600 bytes (eager and rendezvous on PIMP) to the right neighbour, sent before the
 * barriers and received after them: the barriers see their headers first. */
static void user_traffic(nocmsg_comm watch)
{
    static const int sizes[] = {0, 8, 40, 600};
    enum { N = sizeof sizes / sizeof sizes[0] };
    unsigned char *out[N], *in[N];
    nocmsg_request sends[N];
    for (int i = 0; i < N; i++) {
        out[i] = t_alloc((size_t)sizes[i] + 1);
        in[i] = t_alloc((size_t)sizes[i] + 1);
        t_fill(out[i], (size_t)sizes[i], t_key(t_rank, (uint64_t)i, 5));
        CHECK_OK(nocmsg_isend(out[i], sizes[i], NOCMSG_BYTE, t_right, TAG_TRAFFIC + i, watch, &sends[i]));
    }
    for (int b = 0; b < 3; b++) {
        t_calls++;
        CHECK_OK(nocmsg_barrier(NOCMSG_COMM_WORLD));
    }
    for (int i = N - 1; i >= 0; i--) {
        nocmsg_status st;
        CHECK_OK(nocmsg_recv(in[i], sizes[i], NOCMSG_BYTE, t_left, TAG_TRAFFIC + i, watch, &st));
        CHECK_STATUS(st, t_left, TAG_TRAFFIC + i, sizes[i]);
        CHECK_PAYLOAD(in[i], sizes[i], t_key(t_left, (uint64_t)i, 5), "message %d from the left", i);
    }
    CHECK_OK(nocmsg_waitall(N, sends, NOCMSG_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
        free(out[i]);
        free(in[i]);
    }
}

/* A receive posted across barriers, matched only after them. */
static void posted_receive(nocmsg_comm watch)
{
    long got = -1, sent = t_rank;
    nocmsg_request r;
    CHECK_OK(nocmsg_irecv(&got, 1, NOCMSG_LONG, t_left, TAG_TRAFFIC, watch, &r));
    for (int b = 0; b < 3; b++) {
        t_calls++;
        CHECK_OK(nocmsg_barrier(NOCMSG_COMM_WORLD));
    }
    CHECK_OK(nocmsg_send(&sent, 1, NOCMSG_LONG, t_right, TAG_TRAFFIC, watch));
    CHECK_OK(nocmsg_wait(&r, NOCMSG_STATUS_IGNORE));
    CHECK(got == t_left, "posted receive got %ld, not %d", got, t_left);
}

void test_barrier(void)
{
    nocmsg_comm watch = NOCMSG_COMM_NULL;
    CHECK_OK(nocmsg_comm_dup(NOCMSG_COMM_WORLD, &watch));
    const char *algs[T_MAX_ALGS];
    int n = t_algorithms("barrier", algs);
    for (int a = 0; a < n; a++) {
        t_use("barrier", algs[a]);
        for (int late = 0; late < t_size; late++) {
            t_case("barrier[%s] on WORLD, rank %d late", t_alg_label("barrier", 0, NOCMSG_COMM_WORLD), late);
            late_rank(&t_world, watch, late);
            late_rank(&t_world, watch, late);
        }
        for (int i = 0; i < 20; i++)
            check_barrier(&t_world);
        t_case("barrier[%s] on WORLD with user messages arriving", t_alg_label("barrier", 0, NOCMSG_COMM_WORLD));
        user_traffic(watch);
        t_case("barrier[%s] on WORLD with a receive posted", t_alg_label("barrier", 0, NOCMSG_COMM_WORLD));
        posted_receive(watch);
    }
    /* Every pair of algorithms, alternating: no rank waits between barriers, so tokens of one algorithm arrive
     * while the other runs. */
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            t_case("barrier alternating %s and %s", algs[a], algs[b]);
            for (int i = 0; i < 4; i++) {
                t_use("barrier", i % 2 ? algs[b] : algs[a]);
                t_calls++;
                CHECK_OK(nocmsg_barrier(NOCMSG_COMM_WORLD));
            }
        }
    CHECK_OK(nocmsg_comm_free(&watch));
}
