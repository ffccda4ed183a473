/* alltoall/linear.c: every rank posts all its receives and sends at once (the reference). */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int alltoall_linear(const void *sendbuf, void *recvbuf, size_t bytes, struct comm *c)
{
    int n = c->size, err = NOCMSG_SUCCESS;
    struct nocmsg_request_s *r = calloc(2 * (size_t)n, sizeof *r);
    if (!r)
        return NOCMSG_ERR_NO_MEM;
    const unsigned char *in = sendbuf;
    unsigned char *out = recvbuf;
    memcpy(out + (size_t)c->rank * bytes, in + (size_t)c->rank * bytes, bytes);
    for (int i = 0; i < n; i++) {
        r[i].done = r[n + i].done = 1;
        if (i != c->rank)
            coll_irecv(out + (size_t)i * bytes, bytes, i, TAG_ALLTOALL, c, &r[i]);
    }
    for (int k = 1; k < n && err == NOCMSG_SUCCESS; k++) {
        int to = (c->rank + k) % n;
        if ((err = coll_isend(in + (size_t)to * bytes, bytes, to, TAG_ALLTOALL, c, &r[n + to])) != NOCMSG_SUCCESS)
            r[n + to].done = 1;
    }
    int werr = coll_waitall(2 * n, r);
    free(r);
    return err != NOCMSG_SUCCESS ? err : werr;
}
