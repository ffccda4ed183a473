/* allgather/linear.c: every rank sends its block to every other rank, all at once (the reference). */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int allgather_linear(const void *sendbuf, void *recvbuf, size_t bytes, struct comm *c)
{
    int n = c->size, err = NOCMSG_SUCCESS;
    struct nocmsg_request_s *r = calloc(2 * (size_t)n, sizeof *r);
    if (!r)
        return NOCMSG_ERR_NO_MEM;
    unsigned char *out = recvbuf;
    if (out + (size_t)c->rank * bytes != sendbuf)
        memmove(out + (size_t)c->rank * bytes, sendbuf, bytes);
    for (int i = 0; i < n; i++) {
        r[i].done = r[n + i].done = 1;
        if (i == c->rank)
            continue;
        coll_irecv(out + (size_t)i * bytes, bytes, i, TAG_ALLGATHER, c, &r[i]);
    }
    /* Start with the next rank up, so not everyone sends to rank 0 first. */
    for (int k = 1; k < n && err == NOCMSG_SUCCESS; k++) {
        int to = (c->rank + k) % n;
        if ((err = coll_isend(out + (size_t)c->rank * bytes, bytes, to, TAG_ALLGATHER, c, &r[n + to])) != NOCMSG_SUCCESS)
            r[n + to].done = 1;
    }
    int werr = coll_waitall(2 * n, r);
    free(r);
    return err != NOCMSG_SUCCESS ? err : werr;
}
