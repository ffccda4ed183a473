/*
 * test_scatter.c: scatter and scatterv with every scatter algorithm (and "auto"), every data-movement case and every
 * root of WORLD, with and without NOCMSG_IN_PLACE as the root's receive buffer (its block then stays where it is).
 * Non-roots pass a null send buffer; scatterv gets uneven counts (some 0) and blocks in reverse order with gaps; the
 * root's send buffer must not change.
 */
#include <stdlib.h>

#include "check.h"

void check_scatter(const t_comm *c, const t_move *m, int root, int inplace)
{
    int esize = t_type_size(m->type);
    size_t bytes = (size_t)m->count * (size_t)esize;
    uint64_t seed = t_next_seed();
    int is_root = c->rank == root, in_place = inplace && is_root;
    t_case("scatter[%s] on %s, root %d, %d x %s%s", t_alg_label("scatter", bytes, c->comm), c->name, root, m->count,
           t_type_name(m->type), inplace ? ", IN_PLACE at the root" : "");
    unsigned char *send = NULL, *recv = t_poisoned(bytes);
    if (is_root) {
        send = t_alloc((size_t)c->size * bytes);
        for (int r = 0; r < c->size; r++)
            t_fill(send + (size_t)r * bytes, bytes, t_key(seed, (uint64_t)r, 0x5c));
    }
    t_calls++;
    int ok = CHECK_OK(nocmsg_scatter(send, is_root ? m->count : 0, is_root ? m->type : NOCMSG_BYTE,
                                     in_place ? NOCMSG_IN_PLACE : recv, in_place ? 0 : m->count, m->type, root,
                                     c->comm));
    if (in_place)
        CHECK_UNTOUCHED(recv, bytes, "a receive buffer the root did not pass");
    else if (ok)
        CHECK_PAYLOAD(recv, bytes, t_key(seed, (uint64_t)c->rank, 0x5c), "the received block");
    CHECK_UNTOUCHED(recv + bytes, T_GUARD, "guard after the receive buffer");
    for (int r = 0; is_root && r < c->size; r++)
        CHECK_PAYLOAD(send + (size_t)r * bytes, bytes, t_key(seed, (uint64_t)r, 0x5c),
                      "block %d of the send buffer (must not change)", r);
    free(send);
    free(recv);
}

void check_scatterv(const t_comm *c, const t_move *m, int root, int inplace)
{
    int esize = t_type_size(m->type), p = c->size;
    uint64_t seed = t_next_seed();
    int is_root = c->rank == root, in_place = inplace && is_root;
    int *counts = t_alloc((size_t)p * sizeof *counts), *displs = t_alloc((size_t)p * sizeof *displs);
    t_uneven_counts(counts, p, m->count, seed);
    int extent = t_gapped_displs(displs, counts, p, root + 1, seed);
    size_t mine = (size_t)counts[c->rank] * (size_t)esize;
    t_case("scatterv[%s] on %s, root %d, about %d x %s (this rank %d)%s", t_alg_label("scatter", mine, c->comm),
           c->name, root, m->count, t_type_name(m->type), counts[c->rank], inplace ? ", IN_PLACE at the root" : "");
    unsigned char *send = NULL, *recv = t_poisoned(mine);
    if (is_root) {
        send = t_poisoned((size_t)extent * (size_t)esize);
        for (int r = 0; r < p; r++)
            t_fill(send + (size_t)displs[r] * (size_t)esize, (size_t)counts[r] * (size_t)esize,
                   t_key(seed, (uint64_t)r, 0x5d));
    }
    t_calls++;
    int ok = CHECK_OK(nocmsg_scatterv(send, is_root ? counts : NULL, is_root ? displs : NULL,
                                      is_root ? m->type : NOCMSG_BYTE, in_place ? NOCMSG_IN_PLACE : recv,
                                      in_place ? 0 : counts[c->rank], m->type, root, c->comm));
    if (in_place)
        CHECK_UNTOUCHED(recv, mine, "a receive buffer the root did not pass");
    else if (ok)
        CHECK_PAYLOAD(recv, mine, t_key(seed, (uint64_t)c->rank, 0x5d), "the received block (%d elements)",
                      counts[c->rank]);
    CHECK_UNTOUCHED(recv + mine, T_GUARD, "guard after the receive buffer");
    for (int r = 0; is_root && r < p; r++)
        CHECK_PAYLOAD(send + (size_t)displs[r] * (size_t)esize, (size_t)counts[r] * (size_t)esize,
                      t_key(seed, (uint64_t)r, 0x5d), "block %d of the send buffer (must not change)", r);
    free(send);
    free(recv);
    free(counts);
    free(displs);
}

void test_scatter(void)
{
    const char *algs[T_MAX_ALGS];
    int n = t_algorithms("scatter", algs);
    for (int a = 0; a < n; a++) {
        t_use("scatter", algs[a]);
        for (int m = 0; m < t_num_moves; m++) {
            size_t bytes = (size_t)t_moves[m].count * (size_t)t_type_size(t_moves[m].type);
            for (int root = 0; root >= 0; root = t_next_root(root, t_size, bytes)) {
                check_scatter(&t_world, &t_moves[m], root, 0);
                check_scatterv(&t_world, &t_moves[m], root, 0);
            }
            check_scatter(&t_world, &t_moves[m], 0, 1);
            check_scatter(&t_world, &t_moves[m], t_size - 1, 1);
            check_scatterv(&t_world, &t_moves[m], t_size - 1, 1);
            check_scatterv(&t_world, &t_moves[m], 0, 1);
        }
    }
}
