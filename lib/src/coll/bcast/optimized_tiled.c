/* bcast/optimized_tiled.c: the SCC study's optimized tiled parallel broadcast: the tiled tree grown from the leader
 * nearest the centre, which gets the data from the root first. MPB chips only. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
int bcast_optimized_tiled(void *buf, size_t bytes, int root, struct comm *c)
{
    return scc_bcast_tiled(buf, bytes, root, c, 1);
}
#endif
