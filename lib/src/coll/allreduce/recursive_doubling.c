/* allreduce/recursive_doubling.c: log2 p rounds of pairwise exchange at distance 1, 2, 4...; each rank ends with
 * the full result. Any rank count (fold.h). The lower rank's data is always the left operand, so the order is
 * right for any operation. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"
#include "fold.h"

int allreduce_recursive_doubling(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red,
                                 struct comm *c)
{
    size_t bytes = count * red->elem;
    int r = c->rank, err;
    struct fold f = fold_of(r, c->size);
    unsigned char *acc = recvbuf, *tmp = malloc(bytes);
    if (!tmp)
        return NOCMSG_ERR_NO_MEM;
    if (acc != sendbuf)
        memcpy(acc, sendbuf, bytes);
    err = fold_in(&f, r, acc, tmp, count, red, TAG_ALLREDUCE, c);
    if (f.newrank >= 0) {
        for (int mask = 1; mask < f.p && err == NOCMSG_SUCCESS; mask <<= 1) {
            int partner_new = f.newrank ^ mask, partner = fold_rank(&f, partner_new);
            err = coll_sendrecv(acc, bytes, partner, tmp, bytes, partner, TAG_ALLREDUCE, c);
            if (err != NOCMSG_SUCCESS)
                break;
            if (partner_new < f.newrank) {
                coll_apply(red, tmp, acc, count);
            } else {
                coll_apply(red, acc, tmp, count);
                memcpy(acc, tmp, bytes);
            }
        }
    }
    if (err == NOCMSG_SUCCESS)
        err = fold_out(&f, r, acc, bytes, TAG_ALLREDUCE, c);
    free(tmp);
    return err;
}
