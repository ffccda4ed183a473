/* scan/recursive_doubling.c: log2 n steps; in step k ranks r and r ^ 2^k exchange the reduction of their whole
 * group so far, and the higher one folds it into its prefix. The lower group is always the left operand, so the
 * order is right for any operation. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int scan_recursive_doubling(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red,
                            struct comm *c)
{
    size_t bytes = count * red->elem;
    int r = c->rank, err = NOCMSG_SUCCESS;
    unsigned char *partial = malloc(bytes), *tmp = malloc(bytes);
    if (!partial || !tmp) {
        free(partial);
        free(tmp);
        return NOCMSG_ERR_NO_MEM;
    }
    if (recvbuf != sendbuf)
        memcpy(recvbuf, sendbuf, bytes);
    memcpy(partial, sendbuf, bytes);
    for (int mask = 1; mask < c->size && err == NOCMSG_SUCCESS; mask <<= 1) {
        int partner = r ^ mask;
        if (partner >= c->size)
            continue;
        err = coll_sendrecv(partial, bytes, partner, tmp, bytes, partner, TAG_SCAN, c);
        if (err != NOCMSG_SUCCESS)
            break;
        if (partner < r) {
            coll_apply(red, tmp, partial, count);
            coll_apply(red, tmp, recvbuf, count);
        } else {
            coll_apply(red, partial, tmp, count);
            memcpy(partial, tmp, bytes);
        }
    }
    free(partial);
    free(tmp);
    return err;
}
