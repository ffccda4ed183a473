/* scatter/binomial.c: a binomial tree over ranks relative to the root; each rank receives its whole subtree's
 * blocks in one message and hands the children theirs: log2 n steps. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int scatter_binomial(const void *sendbuf, void *recvbuf, size_t bytes, int root, struct comm *c)
{
    int n = c->size, v = (c->rank - root + n) % n, err = NOCMSG_SUCCESS;
    int span = coll_binomial_span(v, n);
    unsigned char *tmp = malloc((size_t)span * bytes + 1);
    if (!tmp)
        return NOCMSG_ERR_NO_MEM;
    int mask = 1;
    if (v == 0) {
        /* Rank order to relative order. */
        const unsigned char *in = sendbuf;
        for (int i = 0; i < n; i++)
            memcpy(tmp + (size_t)i * bytes, in + (size_t)((i + root) % n) * bytes, bytes);
        while (mask < n)
            mask <<= 1;
    } else {
        while (!(v & mask))
            mask <<= 1;
        err = coll_recv(tmp, (size_t)span * bytes, (v - mask + root) % n, TAG_SCATTER, c);
    }
    for (mask >>= 1; mask > 0 && err == NOCMSG_SUCCESS; mask >>= 1) {
        if (v + mask < n) {
            int give = v + 2 * mask <= n ? mask : n - v - mask;
            err = coll_xsend(tmp + (size_t)mask * bytes, (size_t)give * bytes, (v + mask + root) % n, TAG_SCATTER, c);
        }
    }
    if (err == NOCMSG_SUCCESS)
        memcpy(recvbuf, tmp, bytes);
    free(tmp);
    return err;
}
