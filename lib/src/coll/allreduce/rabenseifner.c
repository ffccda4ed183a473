/* allreduce/rabenseifner.c: Rabenseifner's algorithm: a reduce-scatter by recursive halving (each of log2 p steps
 * exchanges half of what is left), then an allgather by recursive doubling; about 2x the message per rank in
 * total, in log2 p steps rather than the ring's n - 1. Any rank count (fold.h); commutative operations only. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"
#include "fold.h"

int allreduce_rabenseifner(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red,
                           struct comm *c)
{
    size_t elem = red->elem, bytes = count * elem;
    int r = c->rank, err;
    struct fold f = fold_of(r, c->size);
    unsigned char *acc = recvbuf, *tmp = malloc(bytes + 1);
    if (!tmp)
        return NOCMSG_ERR_NO_MEM;
    if (acc != sendbuf)
        memcpy(acc, sendbuf, bytes);
    err = fold_in(&f, r, acc, tmp, count, red, TAG_ALLREDUCE, c);
    if (f.newrank >= 0) {
        int v = f.newrank, p = f.p;
        size_t block = (count + (size_t)p - 1) / (size_t)p;
#define AT(i) ((size_t)(i) * block < count ? (size_t)(i) * block : count)
        /* Reduce-scatter: keep the half of [lo, hi) on this rank's side of the mask, send the other half. */
        int lo = 0, hi = p;
        for (int mask = p / 2; mask > 0 && err == NOCMSG_SUCCESS; mask /= 2) {
            int partner = fold_rank(&f, v ^ mask), mid = lo + (hi - lo) / 2;
            int keep_lo = v & mask ? mid : lo, keep_hi = v & mask ? hi : mid;
            int give_lo = v & mask ? lo : mid, give_hi = v & mask ? mid : hi;
            size_t keep_n = AT(keep_hi) - AT(keep_lo);
            err = coll_sendrecv(acc + AT(give_lo) * elem, (AT(give_hi) - AT(give_lo)) * elem, partner, tmp,
                                keep_n * elem, partner, TAG_ALLREDUCE, c);
            if (err == NOCMSG_SUCCESS)
                coll_apply(red, tmp, acc + AT(keep_lo) * elem, keep_n);
            lo = keep_lo;
            hi = keep_hi;
        }
        /* Allgather: exchange aligned ranges of blocks that double each step. */
        for (int mask = 1; mask < p && err == NOCMSG_SUCCESS; mask *= 2) {
            int partner_new = v ^ mask, partner = fold_rank(&f, partner_new);
            int mine = v & ~(mask - 1), theirs = partner_new & ~(mask - 1);
            err = coll_sendrecv(acc + AT(mine) * elem, (AT(mine + mask) - AT(mine)) * elem, partner,
                                acc + AT(theirs) * elem, (AT(theirs + mask) - AT(theirs)) * elem, partner,
                                TAG_ALLREDUCE, c);
        }
#undef AT
    }
    if (err == NOCMSG_SUCCESS)
        err = fold_out(&f, r, acc, bytes, TAG_ALLREDUCE, c);
    free(tmp);
    return err;
}
