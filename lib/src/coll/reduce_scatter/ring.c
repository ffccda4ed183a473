/* reduce_scatter/ring.c: n - 1 steps around the ring, each rank folding the piece it receives into its copy and
 * passing it on, so that rank r ends with piece r fully reduced. Combines in ring order: commutative only. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int reduce_scatter_ring(const void *sendbuf, void *recvbuf, const size_t *counts, const struct coll_reduction *red,
                        struct comm *c)
{
    int n = c->size, r = c->rank, err = NOCMSG_SUCCESS;
    size_t elem = red->elem, total = 0, most = 0;
    size_t *at = malloc(((size_t)n + 1) * sizeof *at);
    if (!at)
        return NOCMSG_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        at[i] = total;
        total += counts[i];
        most = counts[i] > most ? counts[i] : most;
    }
    at[n] = total;
    unsigned char *acc = malloc(total * elem + 1), *tmp = malloc(most * elem + 1);
    if (!acc || !tmp) {
        err = NOCMSG_ERR_NO_MEM;
        goto done;
    }
    memcpy(acc, sendbuf, total * elem);
    int right = (r + 1) % n, left = (r - 1 + n) % n;
    for (int k = 0; k < n - 1 && err == NOCMSG_SUCCESS; k++) {
        int sb = (r - k - 1 + 2 * n) % n, rb = (r - k - 2 + 2 * n) % n;
        err = coll_sendrecv(acc + at[sb] * elem, counts[sb] * elem, right, tmp, counts[rb] * elem, left,
                            TAG_REDUCE_SCATTER, c);
        if (err == NOCMSG_SUCCESS)
            coll_apply(red, tmp, acc + at[rb] * elem, counts[rb]);
    }
    if (err == NOCMSG_SUCCESS)
        memcpy(recvbuf, acc + at[r] * elem, counts[r] * elem);
done:
    free(at);
    free(acc);
    free(tmp);
    return err;
}
