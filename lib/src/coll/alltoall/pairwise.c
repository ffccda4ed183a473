/* alltoall/pairwise.c: n - 1 steps; in step k every rank sends to rank + k and receives from rank - k, so each
 * rank has one message in and one out at a time. */
#include <string.h>

#include "../coll.h"

int alltoall_pairwise(const void *sendbuf, void *recvbuf, size_t bytes, struct comm *c)
{
    int n = c->size, r = c->rank, err = NOCMSG_SUCCESS;
    const unsigned char *in = sendbuf;
    unsigned char *out = recvbuf;
    memcpy(out + (size_t)r * bytes, in + (size_t)r * bytes, bytes);
    for (int k = 1; k < n && err == NOCMSG_SUCCESS; k++) {
        int to = (r + k) % n, from = (r - k + n) % n;
        err = coll_sendrecv(in + (size_t)to * bytes, bytes, to, out + (size_t)from * bytes, bytes, from, TAG_ALLTOALL,
                            c);
    }
    return err;
}
