/* bcast/chain.c: a pipelined chain in rank order from the root: the message goes in segments, and each rank
 * forwards segment s while segment s + 1 arrives, so a long message costs about one transfer plus n hops. */
#include "../coll.h"

int bcast_chain(void *buf, size_t bytes, int root, struct comm *c)
{
    int n = c->size, v = (c->rank - root + n) % n;
    int prev = v == 0 ? NOCMSG_PROC_NULL : (c->rank - 1 + n) % n, next = (c->rank + 1) % n;
    return coll_forward(buf, bytes, prev, &next, v < n - 1, BCAST_SEGMENT, TAG_BCAST, c);
}
