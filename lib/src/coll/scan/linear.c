/* scan/linear.c: a chain in rank order: rank r combines the prefix of ranks 0..r-1 with its own data and passes
 * the result on (the reference; right for any operation). */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int scan_linear(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red, struct comm *c)
{
    size_t bytes = count * red->elem;
    int err = NOCMSG_SUCCESS;
    if (recvbuf != sendbuf)
        memcpy(recvbuf, sendbuf, bytes);
    if (c->rank > 0) {
        unsigned char *prefix = malloc(bytes);
        if (!prefix)
            return NOCMSG_ERR_NO_MEM;
        err = coll_recv(prefix, bytes, c->rank - 1, TAG_SCAN, c);
        if (err == NOCMSG_SUCCESS)
            coll_apply(red, prefix, recvbuf, count);
        free(prefix);
    }
    if (err == NOCMSG_SUCCESS && c->rank + 1 < c->size)
        err = coll_xsend(recvbuf, bytes, c->rank + 1, TAG_SCAN, c);
    return err;
}
