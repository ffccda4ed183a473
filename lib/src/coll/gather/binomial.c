/* gather/binomial.c: a binomial tree over ranks relative to the root; each rank collects its subtree's blocks
 * (contiguous in relative order) and passes them up in one message: log2 n steps instead of n - 1 at the root. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int gather_binomial(const void *sendbuf, void *recvbuf, size_t bytes, int root, struct comm *c)
{
    int n = c->size, v = (c->rank - root + n) % n, err = NOCMSG_SUCCESS;
    int span = coll_binomial_span(v, n);
    unsigned char *tmp = malloc((size_t)span * bytes + 1);
    if (!tmp)
        return NOCMSG_ERR_NO_MEM;
    memcpy(tmp, sendbuf, bytes);
    int mask = 1;
    for (; mask < n; mask <<= 1) {
        if (v & mask) {
            err = coll_send(tmp, (size_t)span * bytes, (v - mask + root) % n, TAG_GATHER, c);
            break;
        }
        if (v + mask < n) {
            int got = v + 2 * mask <= n ? mask : n - v - mask;
            err = coll_recv(tmp + (size_t)mask * bytes, (size_t)got * bytes, (v + mask + root) % n, TAG_GATHER, c);
            if (err != NOCMSG_SUCCESS)
                break;
        }
    }
    if (err == NOCMSG_SUCCESS && v == 0) {
        /* Relative order to rank order: relative i is rank (i + root) % n. */
        unsigned char *out = recvbuf;
        for (int i = 0; i < n; i++)
            memcpy(out + (size_t)((i + root) % n) * bytes, tmp + (size_t)i * bytes, bytes);
    }
    free(tmp);
    return err;
}
