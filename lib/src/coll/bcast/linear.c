/* bcast/linear.c: the root sends the whole message to every other rank in turn, as RCCE does (the reference). */
#include "../coll.h"

int bcast_linear(void *buf, size_t bytes, int root, struct comm *c)
{
    if (c->rank != root)
        return coll_recv(buf, bytes, root, TAG_BCAST, c);
    int err = NOCMSG_SUCCESS;
    for (int r = 0; r < c->size && err == NOCMSG_SUCCESS; r++)
        if (r != root)
            err = coll_xsend(buf, bytes, r, TAG_BCAST, c);
    return err;
}
