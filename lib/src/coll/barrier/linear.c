/* barrier/linear.c: centralized, as RCCE does it: everyone tells rank 0, rank 0 releases everyone (the reference). */
#include "../coll.h"

int barrier_linear(struct comm *c)
{
    int err = NOCMSG_SUCCESS;
    if (c->rank != 0) {
        err = coll_send(NULL, 0, 0, TAG_BARRIER, c);
        return err != NOCMSG_SUCCESS ? err : coll_recv(NULL, 0, 0, TAG_BARRIER, c);
    }
    for (int r = 1; r < c->size && err == NOCMSG_SUCCESS; r++)
        err = coll_recv(NULL, 0, r, TAG_BARRIER, c);
    for (int r = 1; r < c->size && err == NOCMSG_SUCCESS; r++)
        err = coll_send(NULL, 0, r, TAG_BARRIER, c);
    return err;
}
