/*
 * test_reductions.c: reduce, allreduce, reduce_scatter and scan on WORLD with every algorithm of each (and "auto").
 *
 * Four representative cases (SUM on INT, SUM on DOUBLE, BXOR on BYTE, MINLOC on DOUBLE_INT with ties) get the full
 * treatment: counts 0, 1, 7, 8, 4 KiB and T_LARGE (full_counts), reduce at every root (t_next_root), NOCMSG_IN_PLACE,
 * reduce_scatter with even and uneven (some 0) counts. Then every built-in operation on every suitable datatype with
 * 13 elements (natively also 1).
 * test_user_ops does the same for the user-defined operations, the non-commutative ones included.
 */
#include <stdio.h>

#include "red.h"

/* Element counts of the full treatment for elements of esize bytes; the simulator runs the T_LARGE count only for
 * SUM on INT and the non-commutative user-order (the others take the same paths at 4 KiB). */
static int full_counts(const t_red *rd, int *counts)
{
    int esize = t_type_size(rd->type), n = 0;
    counts[n++] = 0;
    counts[n++] = 1;
    counts[n++] = 7;
    counts[n++] = 8;
    counts[n++] = 4096 / esize;
    if (!T_SIM || rd->user == T_USER_ORDER || (rd->type == NOCMSG_INT && rd->op == NOCMSG_SUM))
        counts[n++] = T_LARGE / esize + 3;
    return n;
}

/* Every algorithm of the four operations on one prepared case; `full`: every root, IN_PLACE, both splits. */
static void all_reductions(const t_red_data *d, int full)
{
    const char *algs[T_MAX_ALGS];
    int n = t_algorithms("reduce", algs);
    for (int a = 0; a < n; a++) {
        t_use("reduce", algs[a]);
        if (full) {
            size_t bytes = (size_t)d->count * (size_t)d->esize;
            for (int root = 0; root >= 0; root = t_next_root(root, t_size, bytes))
                check_reduce(&t_world, d, root, 0);
            check_reduce(&t_world, d, 0, 1);
            check_reduce(&t_world, d, t_size - 1, 1);
        } else {
            check_reduce(&t_world, d, t_size - 1, 0);
            check_reduce(&t_world, d, t_size / 2, 0);
        }
    }
    n = t_algorithms("allreduce", algs);
    for (int a = 0; a < n; a++) {
        t_use("allreduce", algs[a]);
        check_allreduce(&t_world, d, 0);
        if (full)
            check_allreduce(&t_world, d, 1);
    }
    n = t_algorithms("reduce_scatter", algs);
    for (int a = 0; a < n; a++) {
        t_use("reduce_scatter", algs[a]);
        check_reduce_scatter(&t_world, d, 1, 0);
        if (full) {
            check_reduce_scatter(&t_world, d, 0, 0);
            check_reduce_scatter(&t_world, d, 1, 1);
        }
    }
    n = t_algorithms("scan", algs);
    for (int a = 0; a < n; a++) {
        t_use("scan", algs[a]);
        check_scan(&t_world, d, 0);
        if (full)
            check_scan(&t_world, d, 1);
    }
}

/* The full treatment of one case at every count. */
static void full_case(const t_red *rd)
{
    int counts[8];
    int n = full_counts(rd, counts);
    for (int i = 0; i < n; i++) {
        t_red_data d;
        t_case("preparing %s on %d x %s", t_red_name(rd), counts[i], t_type_name(rd->type));
        t_red_prepare(&d, &t_world, rd, counts[i]);
        all_reductions(&d, 1);
        t_red_release(&d);
    }
}

static void reset_algorithms(void)
{
    t_use("reduce", "auto");
    t_use("allreduce", "auto");
    t_use("reduce_scatter", "auto");
    t_use("scan", "auto");
}

void test_reductions(void)
{
    static const t_red full[] = {
        {NOCMSG_INT, NOCMSG_SUM, T_BUILTIN},
        {NOCMSG_DOUBLE, NOCMSG_SUM, T_BUILTIN},
        {NOCMSG_BYTE, NOCMSG_BXOR, T_BUILTIN},
        {NOCMSG_DOUBLE_INT, NOCMSG_MINLOC, T_BUILTIN},
    };
    char name[80];
    for (size_t i = 0; i < sizeof full / sizeof full[0]; i++) {
        full_case(&full[i]);
        snprintf(name, sizeof name, "reductions: %s on %s", t_red_name(&full[i]), t_type_name(full[i].type));
        t_section_end(name);
    }

    /* Every built-in operation on every datatype it is defined on (CHAR is text, not a number). */
    for (nocmsg_op op = NOCMSG_SUM; op < NOCMSG_BUILTIN_OPS; op++) {
        for (nocmsg_datatype type = NOCMSG_BYTE; type < NOCMSG_BASIC_DATATYPES; type++) {
            if (type == NOCMSG_CHAR || !t_op_defined(op, type))
                continue;
            t_red rd = {type, op, T_BUILTIN};
            /* The simulator only runs 13 (the algorithms are the same code for every operation and type). */
            static const int counts[] = {13, 1};
            for (int i = 0; i < (T_SIM ? 1 : 2); i++) {
                t_red_data d;
                t_case("preparing %s on %d x %s", t_op_name(op), counts[i], t_type_name(type));
                t_red_prepare(&d, &t_world, &rd, counts[i]);
                all_reductions(&d, 0);
                t_red_release(&d);
            }
        }
        snprintf(name, sizeof name, "reductions: %s on every type", t_op_name(op));
        t_section_end(name);
    }
    reset_algorithms();
}

void test_user_ops(void)
{
    t_user_ops_create();
    t_section_end("user operations: op_create");
    for (int u = T_USER_ORDER; u < T_USER_KINDS; u++) {
        t_red rd = {u == T_USER_ORDER ? NOCMSG_2INT : NOCMSG_UINT64, NOCMSG_OP_NULL, u};
        full_case(&rd);
        char name[80];
        snprintf(name, sizeof name, "user operations: %s", t_red_name(&rd));
        t_section_end(name);
    }
    t_user_ops_free();
    reset_algorithms();
}
