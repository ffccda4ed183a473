/* bcast/binomial.c: a binomial tree over ranks relative to the root: log2 n rounds, the number of holders
 * doubling each round. */
#include "../coll.h"

int bcast_binomial(void *buf, size_t bytes, int root, struct comm *c)
{
    int n = c->size, v = (c->rank - root + n) % n, mask = 1, err = NOCMSG_SUCCESS;
    /* Receive from the parent: v with its lowest set bit cleared. */
    for (; mask < n; mask <<= 1) {
        if (v & mask) {
            err = coll_recv(buf, bytes, (v - mask + root) % n, TAG_BCAST, c);
            break;
        }
    }
    /* Send to the children: v + each smaller power of two. */
    for (mask >>= 1; mask > 0 && err == NOCMSG_SUCCESS; mask >>= 1)
        if (v + mask < n)
            err = coll_xsend(buf, bytes, (v + mask + root) % n, TAG_BCAST, c);
    return err;
}
