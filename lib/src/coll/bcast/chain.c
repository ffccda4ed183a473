/* bcast/chain.c: a pipelined chain in rank order from the root: the message goes in segments, and each rank
 * forwards segment s while segment s + 1 arrives, so a long message costs about one transfer plus n hops. */
#include "../coll.h"

/* Segments of 512 bytes: the PIMP eager limit, so each is one packet without a handshake. */
#define SEGMENT 512

int bcast_chain(void *buf, size_t bytes, int root, struct comm *c)
{
    int n = c->size, v = (c->rank - root + n) % n, err = NOCMSG_SUCCESS;
    int prev = v == 0 ? NOCMSG_PROC_NULL : (c->rank - 1 + n) % n;
    int next = v == n - 1 ? NOCMSG_PROC_NULL : (c->rank + 1) % n;
    unsigned char *b = buf;
    struct nocmsg_request_s out = {.done = 1, .error = NOCMSG_SUCCESS};
    for (size_t at = 0; at < bytes && err == NOCMSG_SUCCESS; at += SEGMENT) {
        size_t len = bytes - at < SEGMENT ? bytes - at : SEGMENT;
        if (prev != NOCMSG_PROC_NULL)
            err = coll_recv(b + at, len, prev, TAG_BCAST, c);
        /* The previous segment's send must be out before this one starts (one request in flight). */
        if (err == NOCMSG_SUCCESS)
            err = coll_waitall(1, &out);
        if (err == NOCMSG_SUCCESS)
            err = coll_xisend(b + at, len, next, TAG_BCAST, c, &out);
    }
    int werr = coll_waitall(1, &out);
    return err != NOCMSG_SUCCESS ? err : werr;
}
