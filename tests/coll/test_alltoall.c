/*
 * test_alltoall.c: alltoall and alltoallv with every alltoall algorithm (and "auto") and every data-movement case on
 * WORLD: the block from rank s to rank d is the payload of (seed, s, d). alltoallv gets a different count for every
 * pair (one in four 0) and send and receive layouts in different orders with gaps, which must stay untouched.
 */
#include <stdlib.h>

#include "check.h"

static uint64_t block_key(uint64_t seed, int from, int to)
{
    return t_key(seed, (uint64_t)from, (uint64_t)to + 0xa2a0000);
}

void check_alltoall(const t_comm *c, const t_move *m)
{
    int esize = t_type_size(m->type);
    size_t bytes = (size_t)m->count * (size_t)esize, total = (size_t)c->size * bytes;
    uint64_t seed = t_next_seed();
    t_case("alltoall[%s] on %s, %d x %s", t_alg_label("alltoall", bytes, c->comm), c->name, m->count,
           t_type_name(m->type));
    unsigned char *send = t_alloc(total), *recv = t_poisoned(total);
    for (int d = 0; d < c->size; d++)
        t_fill(send + (size_t)d * bytes, bytes, block_key(seed, c->rank, d));
    t_calls++;
    if (CHECK_OK(nocmsg_alltoall(send, m->count, m->type, recv, m->count, m->type, c->comm)))
        for (int s = 0; s < c->size; s++)
            CHECK_PAYLOAD(recv + (size_t)s * bytes, bytes, block_key(seed, s, c->rank), "block from rank %d", s);
    CHECK_UNTOUCHED(recv + total, T_GUARD, "guard after the receive buffer");
    for (int d = 0; d < c->size; d++)
        CHECK_PAYLOAD(send + (size_t)d * bytes, bytes, block_key(seed, c->rank, d),
                      "block %d of the send buffer (must not change)", d);
    free(send);
    free(recv);
}

void check_alltoallv(const t_comm *c, const t_move *m)
{
    int esize = t_type_size(m->type), p = c->size, me = c->rank;
    uint64_t seed = t_next_seed();
    /* pair[s * p + d]: elements from s to d. */
    int *pair = t_alloc((size_t)p * (size_t)p * sizeof *pair);
    int *scounts = t_alloc((size_t)p * sizeof(int)), *sdispls = t_alloc((size_t)p * sizeof(int));
    int *rcounts = t_alloc((size_t)p * sizeof(int)), *rdispls = t_alloc((size_t)p * sizeof(int));
    t_uneven_counts(pair, p * p, m->count, seed);
    for (int i = 0; i < p; i++) {
        scounts[i] = pair[me * p + i];
        rcounts[i] = pair[i * p + me];
    }
    int sextent = t_gapped_displs(sdispls, scounts, p, me, seed ^ 1);
    int rextent = t_gapped_displs(rdispls, rcounts, p, 2 * me + 1, seed ^ 2);
    t_case("alltoallv[%s] on %s, about %d x %s per pair", t_alg_label("alltoall", (size_t)m->count * (size_t)esize,
           c->comm), c->name, m->count, t_type_name(m->type));
    unsigned char *send = t_poisoned((size_t)sextent * (size_t)esize);
    unsigned char *recv = t_poisoned((size_t)rextent * (size_t)esize);
    for (int d = 0; d < p; d++)
        t_fill(send + (size_t)sdispls[d] * (size_t)esize, (size_t)scounts[d] * (size_t)esize, block_key(seed, me, d));
    t_calls++;
    if (CHECK_OK(nocmsg_alltoallv(send, scounts, sdispls, m->type, recv, rcounts, rdispls, m->type, c->comm)))
        for (int s = 0; s < p; s++)
            CHECK_PAYLOAD(recv + (size_t)rdispls[s] * (size_t)esize, (size_t)rcounts[s] * (size_t)esize,
                          block_key(seed, s, me), "block from rank %d (%d elements at %d)", s, rcounts[s], rdispls[s]);
    CHECK_GAPS(recv, rextent, rcounts, rdispls, p, esize);
    CHECK_UNTOUCHED(recv + (size_t)rextent * (size_t)esize, T_GUARD, "guard after the receive buffer");
    for (int d = 0; d < p; d++)
        CHECK_PAYLOAD(send + (size_t)sdispls[d] * (size_t)esize, (size_t)scounts[d] * (size_t)esize,
                      block_key(seed, me, d), "block %d of the send buffer (must not change)", d);
    free(send);
    free(recv);
    free(pair);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
}

void test_alltoall(void)
{
    const char *algs[T_MAX_ALGS];
    int n = t_algorithms("alltoall", algs);
    for (int a = 0; a < n; a++) {
        t_use("alltoall", algs[a]);
        for (int m = 0; m < t_num_moves; m++) {
            check_alltoall(&t_world, &t_moves[m]);
            check_alltoallv(&t_world, &t_moves[m]);
        }
    }
}
