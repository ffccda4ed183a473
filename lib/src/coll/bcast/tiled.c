/* bcast/tiled.c: the SCC study's tiled parallel broadcast: the mesh-parallel tree over one leader per router (tile),
 * each leader then passing the data to the other cores of its tile through their shared MPB. MPB chips only. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
int bcast_tiled(void *buf, size_t bytes, int root, struct comm *c)
{
    return scc_bcast_tiled(buf, bytes, root, c, 0);
}
#endif
