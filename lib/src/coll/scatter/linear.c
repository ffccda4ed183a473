/* scatter/linear.c: the root sends every rank its block (the reference). */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int scatter_linear(const void *sendbuf, void *recvbuf, size_t bytes, int root, struct comm *c)
{
    if (c->rank != root)
        return coll_recv(recvbuf, bytes, root, TAG_SCATTER, c);
    struct nocmsg_request_s *r = calloc((size_t)c->size, sizeof *r);
    if (!r)
        return NOCMSG_ERR_NO_MEM;
    const unsigned char *in = sendbuf;
    int err = NOCMSG_SUCCESS;
    for (int i = 0; i < c->size; i++) {
        r[i].done = 1;
        if (i == root)
            memmove(recvbuf, in + (size_t)i * bytes, bytes);
        else if (err == NOCMSG_SUCCESS && (err = coll_xisend(in + (size_t)i * bytes, bytes, i, TAG_SCATTER, c, &r[i])) != NOCMSG_SUCCESS)
            r[i].done = 1;
    }
    int werr = coll_waitall(c->size, r);
    free(r);
    return err != NOCMSG_SUCCESS ? err : werr;
}
