/*
 * test_comms.c: every operation with every algorithm (and "auto") on WORLD and on communicators other than WORLD:
 * a duplicate of WORLD, the even and odd ranks (split by parity; both halves run their collectives at the same time),
 * all ranks in reverse order (split with keys size - rank, so roots and ranks are not world ranks) and
 * NOCMSG_COMM_SELF. Each algorithm runs twice, once with a point-to-point receive with NOCMSG_ANY_SOURCE and
 * NOCMSG_ANY_TAG posted on the same communicator and once with unreceived messages with tags 1 to 31 and
 * NOCMSG_TAG_UB waiting there (t_isolate_*): collectives must neither take those messages nor deliver theirs to that
 * receive.
 */
#include <stdio.h>
#include <string.h>

#include "red.h"

/* One operation's two calls on c, around the isolation steps. */
static void isolated(const t_comm *c, const char *op, const t_red_data *sum, const t_red_data *order)
{
    const t_move *small = &t_moves[2], *medium = &t_moves[5];
    int last = c->size - 1, mid = c->size / 2;
    t_case("isolation on %s around %s[%s]", c->name, op, t_alg_label(op, 8, c->comm));
    t_isolation *iso = t_isolate_begin(c);
    if (!strcmp(op, "barrier")) {
        check_barrier(c);
    } else if (!strcmp(op, "bcast")) {
        check_bcast(c, small, last);
    } else if (!strcmp(op, "gather")) {
        check_gather(c, small, last, 0);
    } else if (!strcmp(op, "scatter")) {
        check_scatter(c, small, last, 0);
    } else if (!strcmp(op, "allgather")) {
        check_allgather(c, small, 0);
    } else if (!strcmp(op, "alltoall")) {
        check_alltoall(c, small);
    } else if (!strcmp(op, "reduce")) {
        check_reduce(c, sum, last, 0);
    } else if (!strcmp(op, "allreduce")) {
        check_allreduce(c, sum, 0);
    } else if (!strcmp(op, "reduce_scatter")) {
        check_reduce_scatter(c, sum, 1, 0);
    } else if (!strcmp(op, "scan")) {
        check_scan(c, sum, 0);
    }
    t_case("isolation on %s around %s[%s]", c->name, op, t_alg_label(op, 8, c->comm));
    t_isolate_middle(iso);
    if (!strcmp(op, "barrier")) {
        check_barrier(c);
    } else if (!strcmp(op, "bcast")) {
        check_bcast(c, medium, mid);
    } else if (!strcmp(op, "gather")) {
        check_gatherv(c, medium, mid, 1);
    } else if (!strcmp(op, "scatter")) {
        check_scatterv(c, medium, mid, 1);
    } else if (!strcmp(op, "allgather")) {
        check_allgatherv(c, medium, 1);
    } else if (!strcmp(op, "alltoall")) {
        check_alltoallv(c, medium);
    } else if (!strcmp(op, "reduce")) {
        check_reduce(c, order, mid, 1);
    } else if (!strcmp(op, "allreduce")) {
        check_allreduce(c, order, 1);
    } else if (!strcmp(op, "reduce_scatter")) {
        check_reduce_scatter(c, order, 0, 1);
    } else if (!strcmp(op, "scan")) {
        check_scan(c, order, 1);
    }
    t_case("isolation on %s around %s[%s]", c->name, op, t_alg_label(op, 8, c->comm));
    t_isolate_end(iso);
}

static void on_comm(const t_comm *c)
{
    static const t_red sum_rd = {NOCMSG_INT, NOCMSG_SUM, T_BUILTIN};
    static const t_red order_rd = {NOCMSG_2INT, NOCMSG_OP_NULL, T_USER_ORDER};
    t_red_data sum, order;
    t_red_prepare(&sum, c, &sum_rd, 7);
    t_red_prepare(&order, c, &order_rd, 300);
    for (int o = 0; o < T_OPERATIONS; o++) {
        const char *op = t_operations[o];
        const char *algs[T_MAX_ALGS];
        int n = t_algorithms(op, algs);
        for (int a = 0; a < n; a++) {
            t_use(op, algs[a]);
            isolated(c, op, &sum, &order);
        }
        t_use(op, "auto");
    }
    t_red_release(&sum);
    t_red_release(&order);
}

void test_comms(void)
{
    t_user_ops_create();
    nocmsg_comm dup = NOCMSG_COMM_NULL, half = NOCMSG_COMM_NULL, reversed = NOCMSG_COMM_NULL;
    t_comm c;
    char name[64];

    on_comm(&t_world);
    t_section_end("communicators: WORLD");

    CHECK_OK(nocmsg_comm_dup(NOCMSG_COMM_WORLD, &dup));
    t_comm_init(&c, dup, "dup(WORLD)");
    on_comm(&c);
    t_section_end("communicators: dup(WORLD)");

    CHECK_OK(nocmsg_comm_split(NOCMSG_COMM_WORLD, t_rank % 2, t_rank, &half));
    snprintf(name, sizeof name, "split(%s ranks)", t_rank % 2 ? "odd" : "even");
    t_comm_init(&c, half, name);
    CHECK(c.size == (t_size + 1 - t_rank % 2) / 2 && c.rank == t_rank / 2, "%s: rank %d of %d", name, c.rank, c.size);
    on_comm(&c);
    t_section_end("communicators: split by parity");

    CHECK_OK(nocmsg_comm_split(NOCMSG_COMM_WORLD, 0, t_size - t_rank, &reversed));
    t_comm_init(&c, reversed, "split(reversed)");
    CHECK(c.size == t_size && c.rank == t_size - 1 - t_rank, "split(reversed): rank %d of %d", c.rank, c.size);
    on_comm(&c);
    t_section_end("communicators: reversed");

    t_comm_init(&c, NOCMSG_COMM_SELF, "SELF");
    on_comm(&c);
    t_section_end("communicators: SELF");

    CHECK_OK(nocmsg_comm_free(&dup));
    CHECK_OK(nocmsg_comm_free(&half));
    CHECK_OK(nocmsg_comm_free(&reversed));
    t_user_ops_free();
}
