/* bcast/offchip.c: the SCC study's off-chip broadcast: the root writes each chunk (up to 16 KiB) into its slots in
 * off-chip shared memory and the readers' counts beside them (a line per 16 readers); all poll their counts and read
 * the chunk from shared memory at once, through the memory controller that holds it. MPB chips with shared memory only (without, it runs as mpb, and
 * rank 0 says so once). */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
#include <stdio.h>

int bcast_offchip(void *buf, size_t bytes, int root, struct comm *c)
{
    static int warned;
    if (!scc_has_dram()) {
        if (!warned && nocmsg_lib.rank == 0)
            fprintf(stderr, "nocmsg: bcast offchip: this chip has no room in off-chip shared memory ([memory] "
                            "shared_mib); the mpb broadcast runs instead\n");
        warned = 1;
        return scc_bcast_star(buf, bytes, root, c, SCC_MPB, 0);
    }
    return scc_bcast_star(buf, bytes, root, c, SCC_DRAM, 0);
}
#endif
