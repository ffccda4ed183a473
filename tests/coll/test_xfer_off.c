/*
 * test_xfer_off.c: with nocmsg_coll_set_xfer(0) (collectives may not use xsend/xrecv/xchg), every algorithm of every
 * operation still gives the right results for the large cases, where transfers matter: 4 KiB and T_LARGE (on the
 * simulator 4 KiB only) on WORLD, rooted operations at the first and the last rank, reductions with SUM on INT and
 * the non-commutative user operation. Then transfers are allowed again.
 */
#include <string.h>

#include "red.h"

static void large_cases(const char *op, const t_red_data *sum, const t_red_data *order)
{
    /* The simulator runs only the second case, with 4 KiB (past the eager limit, so through the same paths). */
    const t_move *moves[2] = {&t_moves[5], T_SIM ? &t_moves[5] : &t_moves[t_num_moves - 1]};
    const t_red_data *reds[2] = {sum, order};
    for (int i = T_SIM; i < 2; i++) {
        const t_move *m = moves[i];
        const t_red_data *d = reds[i];
        int root = i ? t_size - 1 : 0;
        if (!strcmp(op, "barrier")) {
            check_barrier(&t_world);
        } else if (!strcmp(op, "bcast")) {
            check_bcast(&t_world, m, root);
        } else if (!strcmp(op, "gather")) {
            check_gather(&t_world, m, root, i);
            check_gatherv(&t_world, m, root, 0);
        } else if (!strcmp(op, "scatter")) {
            check_scatter(&t_world, m, root, i);
            check_scatterv(&t_world, m, root, 0);
        } else if (!strcmp(op, "allgather")) {
            check_allgather(&t_world, m, i);
            check_allgatherv(&t_world, m, 0);
        } else if (!strcmp(op, "alltoall")) {
            check_alltoall(&t_world, m);
            check_alltoallv(&t_world, m);
        } else if (!strcmp(op, "reduce")) {
            check_reduce(&t_world, d, root, 0);
        } else if (!strcmp(op, "allreduce")) {
            check_allreduce(&t_world, d, i);
        } else if (!strcmp(op, "reduce_scatter")) {
            check_reduce_scatter(&t_world, d, 1, 0);
        } else if (!strcmp(op, "scan")) {
            check_scan(&t_world, d, 0);
        }
    }
}

void test_xfer_off(void)
{
    static const t_red sum_rd = {NOCMSG_INT, NOCMSG_SUM, T_BUILTIN};
    static const t_red order_rd = {NOCMSG_2INT, NOCMSG_OP_NULL, T_USER_ORDER};
    t_user_ops_create();
    t_red_data sum, order;
    t_red_prepare(&sum, &t_world, &sum_rd, 4096 / 4);
    t_red_prepare(&order, &t_world, &order_rd, T_SIM ? 4096 / 8 : T_LARGE / 8 + 1);
    t_case("nocmsg_coll_set_xfer(0)");
    CHECK(nocmsg_coll_set_xfer(0) == 1, "transfers were not allowed before");
    for (int o = 0; o < T_OPERATIONS; o++) {
        const char *op = t_operations[o];
        const char *algs[T_MAX_ALGS];
        int n = t_algorithms(op, algs);
        for (int a = 0; a < n; a++) {
            t_use(op, algs[a]);
            large_cases(op, &sum, &order);
        }
        t_use(op, "auto");
    }
    t_case("nocmsg_coll_set_xfer(1)");
    CHECK(nocmsg_coll_set_xfer(1) == 0, "nocmsg_coll_set_xfer(1) did not return the previous setting 0");
    t_red_release(&sum);
    t_red_release(&order);
    t_user_ops_free();
}
