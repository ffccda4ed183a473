/* bcast/mpb.c: the SCC study's MPB broadcast: the root puts each chunk into its MPB once and flags every other rank,
 * which all read it from there at once; the next chunk goes into the other slot meanwhile. MPB chips only. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
int bcast_mpb(void *buf, size_t bytes, int root, struct comm *c)
{
    return scc_bcast_star(buf, bytes, root, c, SCC_MPB, 0);
}
#endif
