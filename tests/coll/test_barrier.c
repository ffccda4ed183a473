/*
 * test_barrier.c: barrier with every algorithm (and "auto"): no rank leaves a barrier before the last one has
 * entered it.
 *
 * One rank at a time is late: it waits a while before entering, watching for messages the other ranks send (on a
 * private duplicate of WORLD) as soon as they leave the barrier. A correct barrier cannot let any of them out before
 * the late rank enters, so any such message seen while waiting is a failure. Each late rank is tested in two
 * barriers in a row, so a barrier that lets ranks through on messages of the previous one fails too. Then a run of
 * back-to-back barriers with nothing in between.
 */
#include <stdlib.h>

#include "check.h"

enum { TAG_LEFT = 11 };

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
    }
    CHECK_OK(nocmsg_comm_free(&watch));
}
