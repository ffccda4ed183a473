/* bcast/hybrid.c: the broadcast the SCC study proposes: off-chip for small messages, MPB for medium ones, ModMPB for
 * large ones. The limits are where those algorithms cross over on scc-48 (python -m experiments scc-bcast, Fig. 9;
 * docs/collectives.md). MPB chips only; without off-chip shared memory small messages go as medium ones. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
#ifndef HYBRID_SMALL
#define HYBRID_SMALL 64 /* bytes: off-chip up to here */
#endif
#ifndef HYBRID_LARGE
#define HYBRID_LARGE 16384 /* bytes: ModMPB from here */
#endif

int bcast_hybrid(void *buf, size_t bytes, int root, struct comm *c)
{
    if (bytes <= HYBRID_SMALL && scc_has_dram())
        return scc_bcast_star(buf, bytes, root, c, SCC_DRAM, 0);
    if (bytes < HYBRID_LARGE)
        return scc_bcast_star(buf, bytes, root, c, SCC_MPB, 0);
    return bcast_modmpb(buf, bytes, root, c);
}
#endif
