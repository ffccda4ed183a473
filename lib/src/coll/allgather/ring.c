/* allgather/ring.c: n - 1 steps around the ring, each passing on the block received in the step before: every
 * link carries each block once (bandwidth-optimal for large blocks). */
#include <string.h>

#include "../coll.h"

int allgather_ring(const void *sendbuf, void *recvbuf, size_t bytes, struct comm *c)
{
    int n = c->size, r = c->rank, err = NOCMSG_SUCCESS;
    unsigned char *out = recvbuf;
    if (out + (size_t)r * bytes != sendbuf)
        memmove(out + (size_t)r * bytes, sendbuf, bytes);
    int right = (r + 1) % n, left = (r - 1 + n) % n;
    for (int k = 0; k < n - 1 && err == NOCMSG_SUCCESS; k++) {
        int sb = (r - k + n) % n, rb = (r - k - 1 + n) % n;
        err = coll_sendrecv(out + (size_t)sb * bytes, bytes, right, out + (size_t)rb * bytes, bytes, left,
                            TAG_ALLGATHER, c);
    }
    return err;
}
