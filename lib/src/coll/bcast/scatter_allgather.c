/* bcast/scatter_allgather.c: for large messages (van de Geijn): the root scatters n blocks, then a ring allgather
 * puts every block everywhere. Each link carries about 2x the message instead of log2 n times it. */
#include "../coll.h"

int bcast_scatter_allgather(void *buf, size_t bytes, int root, struct comm *c)
{
    int n = c->size, v = (c->rank - root + n) % n, err = NOCMSG_SUCCESS;
    size_t block = (bytes + (size_t)n - 1) / (size_t)n;
    unsigned char *b = buf;
#define BLOCK_AT(i) ((size_t)(i) * block < bytes ? (size_t)(i) * block : bytes)
#define BLOCK_LEN(i) (BLOCK_AT((i) + 1) - BLOCK_AT(i))
    /* Scatter: relative rank i gets block i. */
    if (v == 0) {
        for (int i = 1; i < n && err == NOCMSG_SUCCESS; i++)
            if (BLOCK_LEN(i))
                err = coll_xsend(b + BLOCK_AT(i), BLOCK_LEN(i), (i + root) % n, TAG_BCAST, c);
    } else if (BLOCK_LEN(v)) {
        err = coll_recv(b + BLOCK_AT(v), BLOCK_LEN(v), root, TAG_BCAST, c);
    }
    /* Ring allgather over relative ranks: in step k pass on block v - k, receive block v - k - 1. */
    int right = (c->rank + 1) % n, left = (c->rank - 1 + n) % n;
    for (int k = 0; k < n - 1 && err == NOCMSG_SUCCESS; k++) {
        int sb = (v - k + n) % n, rb = (v - k - 1 + n) % n;
        err = coll_sendrecv(b + BLOCK_AT(sb), BLOCK_LEN(sb), right, b + BLOCK_AT(rb), BLOCK_LEN(rb), left, TAG_BCAST,
                            c);
    }
    return err;
#undef BLOCK_AT
#undef BLOCK_LEN
}
