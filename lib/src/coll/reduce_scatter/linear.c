/* reduce_scatter/linear.c: reduce everything to rank 0 in rank order (reduce/linear.c), then rank 0 sends each
 * rank its piece (the reference; right for any operation). */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int reduce_scatter_linear(const void *sendbuf, void *recvbuf, const size_t *counts, const struct coll_reduction *red,
                          struct comm *c)
{
    size_t total = 0;
    for (int i = 0; i < c->size; i++)
        total += counts[i];
    unsigned char *all = c->rank == 0 ? malloc(total * red->elem) : NULL;
    if (c->rank == 0 && !all)
        return NOCMSG_ERR_NO_MEM;
    int err = reduce_linear(sendbuf, all, total, red, 0, c);
    if (c->rank != 0)
        return err != NOCMSG_SUCCESS ? err : coll_recv(recvbuf, counts[c->rank] * red->elem, 0, TAG_REDUCE_SCATTER, c);
    size_t at = 0;
    for (int i = 0; i < c->size && err == NOCMSG_SUCCESS; i++) {
        size_t n = counts[i] * red->elem;
        if (i == 0)
            memcpy(recvbuf, all, n);
        else
            err = coll_send(all + at, n, i, TAG_REDUCE_SCATTER, c);
        at += n;
    }
    free(all);
    return err;
}
