/* gather/linear.c: every rank sends its block to the root, which receives them all at once (the reference). */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int gather_linear(const void *sendbuf, void *recvbuf, size_t bytes, int root, struct comm *c)
{
    if (c->rank != root)
        return coll_send(sendbuf, bytes, root, TAG_GATHER, c);
    struct nocmsg_request_s *r = calloc((size_t)c->size, sizeof *r);
    if (!r)
        return NOCMSG_ERR_NO_MEM;
    unsigned char *out = recvbuf;
    for (int i = 0; i < c->size; i++) {
        if (i == root) {
            if (out + (size_t)i * bytes != sendbuf)
                memmove(out + (size_t)i * bytes, sendbuf, bytes);
            r[i].done = 1;
        } else {
            coll_irecv(out + (size_t)i * bytes, bytes, i, TAG_GATHER, c, &r[i]);
        }
    }
    int err = coll_waitall(c->size, r);
    free(r);
    return err;
}
