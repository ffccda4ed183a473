/* bcast/rcce.c: RCCE's broadcast (RCCE_bcast), the SCC study's baseline: the root sends the whole message to every
 * other rank in turn, each send RCCE's: a chunk as long as the whole MPB buffer (both slots) is put into the root's
 * MPB, the receiver is flagged, reads it and flags back, and only then does the next chunk go. MPB chips only. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
int bcast_rcce(void *buf, size_t bytes, int root, struct comm *c)
{
    return scc_bcast_star(buf, bytes, root, c, SCC_MPB, 1);
}
#endif
