/*
 * test_gather.c: gather and gatherv with every gather algorithm (and "auto"), every data-movement case and every
 * root of WORLD, with and without NOCMSG_IN_PLACE at the root. Non-roots pass a null receive buffer (it is not
 * theirs to use); gatherv gets uneven counts (some 0) and blocks in reverse order with gaps, which must stay
 * untouched; send buffers must not change.
 */
#include <stdlib.h>

#include "check.h"

void check_gather(const t_comm *c, const t_move *m, int root, int inplace)
{
    int esize = t_type_size(m->type);
    size_t bytes = (size_t)m->count * (size_t)esize;
    uint64_t seed = t_next_seed();
    int is_root = c->rank == root, in_place = inplace && is_root;
    t_case("gather[%s] on %s, root %d, %d x %s%s", t_alg_label("gather", bytes, c->comm), c->name, root, m->count,
           t_type_name(m->type), inplace ? ", IN_PLACE at the root" : "");
    unsigned char *send = t_alloc(bytes), *recv = NULL;
    t_fill(send, bytes, t_key(seed, (uint64_t)c->rank, 0x9a));
    if (is_root) {
        recv = t_poisoned((size_t)c->size * bytes);
        if (in_place)
            t_fill(recv + (size_t)root * bytes, bytes, t_key(seed, (uint64_t)root, 0x9a));
    }
    t_calls++;
    int ok = CHECK_OK(nocmsg_gather(in_place ? NOCMSG_IN_PLACE : send, in_place ? 0 : m->count, m->type, recv,
                                    is_root ? m->count : 0, is_root ? m->type : NOCMSG_BYTE, root, c->comm));
    if (is_root) {
        for (int r = 0; ok && r < c->size; r++)
            CHECK_PAYLOAD(recv + (size_t)r * bytes, bytes, t_key(seed, (uint64_t)r, 0x9a), "block of rank %d", r);
        CHECK_UNTOUCHED(recv + (size_t)c->size * bytes, T_GUARD, "guard after the receive buffer");
    }
    CHECK_PAYLOAD(send, bytes, t_key(seed, (uint64_t)c->rank, 0x9a), "the send buffer (must not change)");
    free(send);
    free(recv);
}

void check_gatherv(const t_comm *c, const t_move *m, int root, int inplace)
{
    int esize = t_type_size(m->type), p = c->size;
    uint64_t seed = t_next_seed();
    int is_root = c->rank == root, in_place = inplace && is_root;
    int *counts = t_alloc((size_t)p * sizeof *counts), *displs = t_alloc((size_t)p * sizeof *displs);
    t_uneven_counts(counts, p, m->count, seed);
    int extent = t_gapped_displs(displs, counts, p, root, seed);
    size_t mine = (size_t)counts[c->rank] * (size_t)esize;
    t_case("gatherv[%s] on %s, root %d, about %d x %s (this rank %d)%s", t_alg_label("gather", mine, c->comm),
           c->name, root, m->count, t_type_name(m->type), counts[c->rank], inplace ? ", IN_PLACE at the root" : "");
    unsigned char *send = t_alloc(mine), *recv = NULL;
    t_fill(send, mine, t_key(seed, (uint64_t)c->rank, 0x9b));
    if (is_root) {
        recv = t_poisoned((size_t)extent * (size_t)esize);
        if (in_place)
            t_fill(recv + (size_t)displs[root] * (size_t)esize, mine, t_key(seed, (uint64_t)root, 0x9b));
    }
    t_calls++;
    int ok = CHECK_OK(nocmsg_gatherv(in_place ? NOCMSG_IN_PLACE : send, in_place ? 0 : counts[c->rank], m->type,
                                     recv, is_root ? counts : NULL, is_root ? displs : NULL,
                                     is_root ? m->type : NOCMSG_BYTE, root, c->comm));
    if (is_root) {
        for (int r = 0; ok && r < p; r++)
            CHECK_PAYLOAD(recv + (size_t)displs[r] * (size_t)esize, (size_t)counts[r] * (size_t)esize,
                          t_key(seed, (uint64_t)r, 0x9b), "block of rank %d (%d elements at %d)", r, counts[r],
                          displs[r]);
        CHECK_GAPS(recv, extent, counts, displs, p, esize);
        CHECK_UNTOUCHED(recv + (size_t)extent * (size_t)esize, T_GUARD, "guard after the receive buffer");
    }
    CHECK_PAYLOAD(send, mine, t_key(seed, (uint64_t)c->rank, 0x9b), "the send buffer (must not change)");
    free(send);
    free(recv);
    free(counts);
    free(displs);
}

void test_gather(void)
{
    const char *algs[T_MAX_ALGS];
    int n = t_algorithms("gather", algs);
    for (int a = 0; a < n; a++) {
        t_use("gather", algs[a]);
        for (int m = 0; m < t_num_moves; m++) {
            size_t bytes = (size_t)t_moves[m].count * (size_t)t_type_size(t_moves[m].type);
            for (int root = 0; root >= 0; root = t_next_root(root, t_size, bytes)) {
                check_gather(&t_world, &t_moves[m], root, 0);
                check_gatherv(&t_world, &t_moves[m], root, 0);
            }
            /* In place at two roots (the first and the last rank). */
            check_gather(&t_world, &t_moves[m], 0, 1);
            check_gather(&t_world, &t_moves[m], t_size - 1, 1);
            check_gatherv(&t_world, &t_moves[m], t_size - 1, 1);
            check_gatherv(&t_world, &t_moves[m], 0, 1);
        }
    }
}
