/* bcast/hybrid.c: the SCC study's hybrid broadcast: one of the off-chip, MPB and ModMPB broadcasts by size. The study
 * (on the SCC) found off-chip best for small messages, MPB for medium and ModMPB for large ones; on scc-48 we measure
 * a different order (python -m experiments scc-bcast, Fig. 9; docs/collectives.md explains why): ModMPB up to
 * 256 B (its root flags 14 readers, not 47), MPB up to 64 KiB, off-chip from 256 KiB (16 KiB chunks through shared
 * memory, against 2 KiB ones through the MPB). The limits below are those crossovers. MPB chips only; without
 * off-chip shared memory large messages go by MPB. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
#ifndef HYBRID_SMALL
#define HYBRID_SMALL 512 /* bytes: ModMPB below this */
#endif
#ifndef HYBRID_LARGE
#define HYBRID_LARGE 131072 /* bytes: off-chip from here */
#endif

int bcast_hybrid(void *buf, size_t bytes, int root, struct comm *c)
{
    if (bytes < HYBRID_SMALL)
        return bcast_modmpb(buf, bytes, root, c);
    if (bytes >= HYBRID_LARGE && scc_has_dram())
        return scc_bcast_star(buf, bytes, root, c, SCC_DRAM, 0);
    return scc_bcast_star(buf, bytes, root, c, SCC_MPB, 0);
}
#endif
