/*
 * test_allgather.c: allgather and allgatherv with every allgather algorithm (and "auto") and every data-movement
 * case on WORLD, with and without NOCMSG_IN_PLACE (each rank's block already in its place); allgatherv with uneven
 * counts (some 0) and blocks in rotated reverse order with gaps, which must stay untouched.
 */
#include <stdlib.h>

#include "check.h"

void check_allgather(const t_comm *c, const t_move *m, int inplace)
{
    int esize = t_type_size(m->type);
    size_t bytes = (size_t)m->count * (size_t)esize, total = (size_t)c->size * bytes;
    uint64_t seed = t_next_seed();
    t_case("allgather[%s] on %s, %d x %s%s", t_alg_label("allgather", bytes, c->comm), c->name, m->count,
           t_type_name(m->type), inplace ? ", IN_PLACE" : "");
    unsigned char *send = t_alloc(bytes), *recv = t_poisoned(total);
    t_fill(send, bytes, t_key(seed, (uint64_t)c->rank, 0xa9));
    if (inplace)
        t_fill(recv + (size_t)c->rank * bytes, bytes, t_key(seed, (uint64_t)c->rank, 0xa9));
    t_calls++;
    if (CHECK_OK(nocmsg_allgather(inplace ? NOCMSG_IN_PLACE : send, inplace ? 0 : m->count, m->type, recv, m->count,
                                  m->type, c->comm)))
        for (int r = 0; r < c->size; r++)
            CHECK_PAYLOAD(recv + (size_t)r * bytes, bytes, t_key(seed, (uint64_t)r, 0xa9), "block of rank %d", r);
    CHECK_UNTOUCHED(recv + total, T_GUARD, "guard after the receive buffer");
    CHECK_PAYLOAD(send, bytes, t_key(seed, (uint64_t)c->rank, 0xa9), "the send buffer (must not change)");
    free(send);
    free(recv);
}

void check_allgatherv(const t_comm *c, const t_move *m, int inplace)
{
    int esize = t_type_size(m->type), p = c->size;
    uint64_t seed = t_next_seed();
    int *counts = t_alloc((size_t)p * sizeof *counts), *displs = t_alloc((size_t)p * sizeof *displs);
    t_uneven_counts(counts, p, m->count, seed);
    int extent = t_gapped_displs(displs, counts, p, (int)(seed % (uint64_t)p), seed);
    size_t mine = (size_t)counts[c->rank] * (size_t)esize;
    t_case("allgatherv[%s] on %s, about %d x %s (this rank %d)%s", t_alg_label("allgather", mine, c->comm), c->name,
           m->count, t_type_name(m->type), counts[c->rank], inplace ? ", IN_PLACE" : "");
    unsigned char *send = t_alloc(mine), *recv = t_poisoned((size_t)extent * (size_t)esize);
    t_fill(send, mine, t_key(seed, (uint64_t)c->rank, 0xaa));
    if (inplace)
        t_fill(recv + (size_t)displs[c->rank] * (size_t)esize, mine, t_key(seed, (uint64_t)c->rank, 0xaa));
    t_calls++;
    if (CHECK_OK(nocmsg_allgatherv(inplace ? NOCMSG_IN_PLACE : send, inplace ? 0 : counts[c->rank], m->type, recv,
                                   counts, displs, m->type, c->comm)))
        for (int r = 0; r < p; r++)
            CHECK_PAYLOAD(recv + (size_t)displs[r] * (size_t)esize, (size_t)counts[r] * (size_t)esize,
                          t_key(seed, (uint64_t)r, 0xaa), "block of rank %d (%d elements at %d)", r, counts[r],
                          displs[r]);
    CHECK_GAPS(recv, extent, counts, displs, p, esize);
    CHECK_UNTOUCHED(recv + (size_t)extent * (size_t)esize, T_GUARD, "guard after the receive buffer");
    CHECK_PAYLOAD(send, mine, t_key(seed, (uint64_t)c->rank, 0xaa), "the send buffer (must not change)");
    free(send);
    free(recv);
    free(counts);
    free(displs);
}

void test_allgather(void)
{
    const char *algs[T_MAX_ALGS];
    int n = t_algorithms("allgather", algs);
    for (int a = 0; a < n; a++) {
        t_use("allgather", algs[a]);
        for (int m = 0; m < t_num_moves; m++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                check_allgather(&t_world, &t_moves[m], inplace);
                check_allgatherv(&t_world, &t_moves[m], inplace);
            }
        }
    }
}
