/* allreduce/reduce_bcast.c: a reduce to rank 0 and a broadcast from it, each with the algorithm the selector (or
 * the setting) picks for it: the reference, and PIMP's centralized allreduce. */
#include "../coll.h"

int allreduce_reduce_bcast(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red,
                           struct comm *c)
{
    size_t bytes = count * red->elem;
    reduce_fn *reduce = (reduce_fn *)coll_pick(OP_REDUCE, bytes, c, red->commutative)->fn;
    int err = reduce(sendbuf, recvbuf, count, red, 0, c);
    if (err != NOCMSG_SUCCESS)
        return err;
    bcast_fn *bcast = (bcast_fn *)coll_pick(OP_BCAST, bytes, c, 1)->fn;
    return bcast(recvbuf, bytes, 0, c);
}
