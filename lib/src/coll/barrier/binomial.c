/* barrier/binomial.c: a binomial tree to rank 0 and back: log2 n levels up, log2 n down. */
#include "../coll.h"

int barrier_binomial(struct comm *c)
{
    int err = NOCMSG_SUCCESS, r = c->rank, n = c->size, mask = 1;
    /* Up: hear from every child (r + mask for the low zero bits of r), then tell the parent. */
    for (; mask < n; mask <<= 1) {
        if (r & mask) {
            err = coll_send(NULL, 0, r - mask, TAG_BARRIER, c);
            if (err == NOCMSG_SUCCESS)
                err = coll_recv(NULL, 0, r - mask, TAG_BARRIER, c);
            break;
        }
        if (r + mask < n && (err = coll_recv(NULL, 0, r + mask, TAG_BARRIER, c)) != NOCMSG_SUCCESS)
            return err;
    }
    /* Down: release the children in reverse order. */
    for (mask >>= 1; mask > 0 && err == NOCMSG_SUCCESS; mask >>= 1)
        if (r + mask < n)
            err = coll_send(NULL, 0, r + mask, TAG_BARRIER, c);
    return err;
}
