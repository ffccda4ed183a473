/* barrier/mpb.c: dissemination through the MPBs (MPB chips only): in round k every rank raises a flag in the MPB of
 * rank + 2^k and waits for the one rank - 2^k raises in its own, so log2 n rounds of one remote store and one local
 * wait (bcast/scc.h's counts, which need no clearing). */
#include "../bcast/scc.h"

#ifdef NOCMSG_PORT_MPB
int barrier_mpb(struct comm *c)
{
    return scc_barrier(c);
}
#endif
