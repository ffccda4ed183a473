/* reduce/binomial.c: a binomial tree to rank 0, each rank combining its subtree (lower ranks' part first, so the
 * order is right for any operation), then rank 0 passes the result to the root if that is another rank. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int reduce_binomial(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red, int root,
                    struct comm *c)
{
    size_t bytes = count * red->elem;
    int r = c->rank, n = c->size, err = NOCMSG_SUCCESS;
    unsigned char *acc = malloc(bytes), *tmp = malloc(bytes);
    if (!acc || !tmp) {
        free(acc);
        free(tmp);
        return NOCMSG_ERR_NO_MEM;
    }
    memcpy(acc, sendbuf, bytes);
    /* acc covers ranks [r, r + mask); the child r + mask brings [r + mask, r + 2 mask). */
    for (int mask = 1; mask < n && err == NOCMSG_SUCCESS; mask <<= 1) {
        if (r & mask) {
            err = coll_xsend(acc, bytes, r - mask, TAG_REDUCE, c);
            break;
        }
        if (r + mask < n) {
            err = coll_recv(tmp, bytes, r + mask, TAG_REDUCE, c);
            if (err == NOCMSG_SUCCESS) {
                coll_apply(red, acc, tmp, count);
                unsigned char *t = acc;
                acc = tmp;
                tmp = t;
            }
        }
    }
    if (err == NOCMSG_SUCCESS && root != 0) {
        if (r == 0)
            err = coll_xsend(acc, bytes, root, TAG_REDUCE, c);
        else if (r == root)
            err = coll_recv(acc, bytes, 0, TAG_REDUCE, c);
    }
    if (err == NOCMSG_SUCCESS && r == root)
        memcpy(recvbuf, acc, bytes);
    free(acc);
    free(tmp);
    return err;
}
