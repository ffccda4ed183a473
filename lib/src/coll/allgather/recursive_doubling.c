/* allgather/recursive_doubling.c: log2 n steps, exchanging with rank ^ 2^k all blocks gathered so far (a range
 * that doubles each step). For other rank counts the ranks fold in pairs first (as allreduce/fold.h) and unfold
 * at the end. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"
#include "../allreduce/fold.h"

int allgather_recursive_doubling(const void *sendbuf, void *recvbuf, size_t bytes, struct comm *c)
{
    int n = c->size, r = c->rank, err = NOCMSG_SUCCESS;
    struct fold f = fold_of(r, n);
    unsigned char *out = recvbuf;
    if (out + (size_t)r * bytes != sendbuf)
        memmove(out + (size_t)r * bytes, sendbuf, bytes);
    /* Folded pairs: 2i hands its block to 2i + 1, which then stands for both (blocks 2i and 2i + 1 are adjacent). */
    if (r < 2 * f.extra) {
        if (f.newrank < 0)
            err = coll_send(out + (size_t)r * bytes, bytes, r + 1, TAG_ALLGATHER, c);
        else
            err = coll_recv(out + (size_t)(r - 1) * bytes, bytes, r - 1, TAG_ALLGATHER, c);
    }
    if (f.newrank >= 0) {
        /* New rank v owns the blocks of real ranks [first(v), first(v + 1)). */
#define FIRST(v) ((v) < f.extra ? 2 * (v) : (v) + f.extra)
        for (int mask = 1; mask < f.p && err == NOCMSG_SUCCESS; mask <<= 1) {
            int v = f.newrank, partner_new = v ^ mask;
            int mine = v & ~(mask - 1), theirs = partner_new & ~(mask - 1);
            size_t m0 = (size_t)FIRST(mine), m1 = (size_t)FIRST(mine + mask);
            size_t t0 = (size_t)FIRST(theirs), t1 = (size_t)FIRST(theirs + mask);
            err = coll_sendrecv(out + m0 * bytes, (m1 - m0) * bytes, fold_rank(&f, partner_new), out + t0 * bytes,
                                (t1 - t0) * bytes, fold_rank(&f, partner_new), TAG_ALLGATHER, c);
        }
#undef FIRST
    }
    if (err == NOCMSG_SUCCESS && r < 2 * f.extra) {
        if (f.newrank < 0)
            err = coll_recv(out, (size_t)n * bytes, r + 1, TAG_ALLGATHER, c);
        else
            err = coll_send(out, (size_t)n * bytes, r - 1, TAG_ALLGATHER, c);
    }
    return err;
}
