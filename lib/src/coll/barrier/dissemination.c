/* barrier/dissemination.c: in round k every rank signals rank + 2^k and waits for rank - 2^k; after
 * ceil(log2 n) rounds everyone has heard, indirectly, from everyone (any rank count). */
#include "../coll.h"

int barrier_dissemination(struct comm *c)
{
    int err = NOCMSG_SUCCESS;
    for (int dist = 1; dist < c->size && err == NOCMSG_SUCCESS; dist *= 2) {
        int to = (c->rank + dist) % c->size, from = (c->rank - dist + c->size) % c->size;
        err = coll_sendrecv(NULL, 0, to, NULL, 0, from, TAG_BARRIER, c);
    }
    return err;
}
