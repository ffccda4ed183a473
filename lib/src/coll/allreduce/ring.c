/* allreduce/ring.c: a ring reduce-scatter (n - 1 steps, each rank ending with one block fully reduced) and a ring
 * allgather (n - 1 steps): every link carries about 2x the message, the bandwidth-optimal schedule for large
 * messages. Combines in ring order: commutative operations only. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int allreduce_ring(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red,
                   struct comm *c)
{
    int n = c->size, r = c->rank, err = NOCMSG_SUCCESS;
    size_t elem = red->elem, block = (count + (size_t)n - 1) / (size_t)n;
    unsigned char *acc = recvbuf, *tmp = malloc(block * elem + 1);
    if (!tmp)
        return NOCMSG_ERR_NO_MEM;
    if (acc != sendbuf)
        memcpy(acc, sendbuf, count * elem);
#define AT(i) ((size_t)(i) * block < count ? (size_t)(i) * block : count)
#define LEN(i) (AT((i) + 1) - AT(i))
    int right = (r + 1) % n, left = (r - 1 + n) % n;
    /* Reduce-scatter: in step k send block r - k, receive block r - k - 1 and fold it in. */
    for (int k = 0; k < n - 1 && err == NOCMSG_SUCCESS; k++) {
        int sb = (r - k + n) % n, rb = (r - k - 1 + n) % n;
        err = coll_sendrecv(acc + AT(sb) * elem, LEN(sb) * elem, right, tmp, LEN(rb) * elem, left, TAG_ALLREDUCE, c);
        if (err == NOCMSG_SUCCESS)
            coll_apply(red, tmp, acc + AT(rb) * elem, LEN(rb));
    }
    /* Block r + 1 is complete here; allgather: pass on block r + 1 - k, receive block r - k. */
    for (int k = 0; k < n - 1 && err == NOCMSG_SUCCESS; k++) {
        int sb = (r + 1 - k + n) % n, rb = (r - k + n) % n;
        err = coll_sendrecv(acc + AT(sb) * elem, LEN(sb) * elem, right, acc + AT(rb) * elem, LEN(rb) * elem, left,
                            TAG_ALLREDUCE, c);
    }
#undef AT
#undef LEN
    free(tmp);
    return err;
}
