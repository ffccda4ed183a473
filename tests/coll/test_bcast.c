/*
 * test_bcast.c: broadcast with every algorithm (and "auto"), every data-movement case and every root of WORLD:
 * every rank ends with the root's bytes, the root's buffer is unchanged, nothing is written past the count.
 */
#include <stdlib.h>

#include "check.h"

void check_bcast(const t_comm *c, const t_move *m, int root)
{
    size_t bytes = (size_t)m->count * (size_t)t_type_size(m->type);
    uint64_t seed = t_next_seed(), key = t_key(seed, (uint64_t)root, 0xbc);
    t_case("bcast[%s] on %s, root %d, %d x %s", t_alg_label("bcast", bytes, c->comm), c->name, root, m->count,
           t_type_name(m->type));
    unsigned char *buf = t_poisoned(bytes);
    if (c->rank == root)
        t_fill(buf, bytes, key);
    /* A null buffer is fine with count 0. */
    void *arg = bytes == 0 && seed % 2 ? NULL : buf;
    t_calls++;
    if (CHECK_OK(nocmsg_bcast(arg, m->count, m->type, root, c->comm)))
        CHECK_PAYLOAD(buf, bytes, key, "%s", c->rank == root ? "the root's buffer" : "the received buffer");
    CHECK_UNTOUCHED(buf + bytes, T_GUARD, "guard after the buffer");
    free(buf);
}

void test_bcast(void)
{
    const char *algs[T_MAX_ALGS];
    int n = t_algorithms("bcast", algs);
    for (int a = 0; a < n; a++) {
        t_use("bcast", algs[a]);
        for (int m = 0; m < t_num_moves; m++) {
            size_t bytes = (size_t)t_moves[m].count * (size_t)t_type_size(t_moves[m].type);
            for (int root = 0; root >= 0; root = t_next_root(root, t_size, bytes))
                check_bcast(&t_world, &t_moves[m], root);
        }
    }
}
