/* reduce/linear.c: the root receives every contribution in rank order and combines them in that order, so it is
 * right for any operation (the reference). */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int reduce_linear(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red, int root,
                  struct comm *c)
{
    size_t bytes = count * red->elem;
    if (c->rank != root)
        return coll_send(sendbuf, bytes, root, TAG_REDUCE, c);
    /* acc holds ranks 0..r-1 combined; tmp receives rank r and becomes acc op tmp. */
    unsigned char *acc = malloc(bytes), *tmp = malloc(bytes);
    int err = acc && tmp ? NOCMSG_SUCCESS : NOCMSG_ERR_NO_MEM;
    for (int r = 0; r < c->size && err == NOCMSG_SUCCESS; r++) {
        if (r == root)
            memcpy(tmp, sendbuf, bytes);
        else
            err = coll_recv(tmp, bytes, r, TAG_REDUCE, c);
        if (err != NOCMSG_SUCCESS)
            break;
        if (r > 0)
            coll_apply(red, acc, tmp, count);
        unsigned char *t = acc;
        acc = tmp;
        tmp = t;
    }
    if (err == NOCMSG_SUCCESS)
        memcpy(recvbuf, acc, bytes);
    free(acc);
    free(tmp);
    return err;
}
