/*
 * barrier.c - RCCE_barrier holds everyone until the last arrives: in each of many rounds every UE, after a delay
 * that differs by UE and round, writes the round number into its slot of an array in UE 0's MPB; after the barrier
 * every UE reads all slots and must see this round; a second barrier keeps the next round's writes out until all
 * have read.
 *
 *   barrier.elf [ROUNDS]                  the check (default 100 rounds)
 *   barrier.elf --cycles REPS             mean cycles of one RCCE_barrier on all UEs (for measurements)
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "nocmsg_core.h"

int RCCE_APP(int argc, char **argv)
{
    OK(RCCE_init(&argc, &argv));
    int me = RCCE_ue(), n = RCCE_num_ues();
    if (argc == 3 && strcmp(argv[1], "--cycles") == 0) {
        int reps = atoi(argv[2]);
        OK(RCCE_barrier(&RCCE_COMM_WORLD));
        uint64_t t0 = nocmsg_cycles();
        for (int r = 0; r < reps; r++) RCCE_barrier(&RCCE_COMM_WORLD);
        uint64_t t = nocmsg_cycles() - t0;
        if (me == 0) printf("barrier on %d UEs: %llu cycles (mean of %d, seen by UE 0)\n", n, (unsigned long long)(t / (uint64_t)reps), reps);
        OK(RCCE_finalize());
        return 0;
    }
    int rounds = argc > 1 ? atoi(argv[1]) : 100;
    /* One 8-byte slot per UE, 4 to a line, in UE 0's share. */
    t_vcharp slots = RCCE_malloc(8 * (size_t)n);
    CHECK(slots != NULL, "RCCE_malloc of %d bytes", 8 * n);
    volatile int64_t *at0 = (volatile int64_t *)(uintptr_t)(nocmsg_mpb(0) + (slots - (t_vcharp)nocmsg_mpb(me)));
    OK(RCCE_barrier(&RCCE_COMM_WORLD));
    for (int round = 1; round <= rounds; round++) {
        spin((unsigned long)((round * 7 + me * 13) % 11) * 40);
        at0[me] = round;
        nocmsg_mpb_flush();
        OK(RCCE_barrier(&RCCE_COMM_WORLD));
        RC_cache_invalidate();
        for (int u = 0; u < n; u++) CHECK(at0[u] == round, "round %d: UE %d's slot holds %lld after the barrier", round, u, (long long)at0[u]);
        OK(RCCE_barrier(&RCCE_COMM_WORLD));
    }
    RCCE_free(slots);
    OK(RCCE_finalize());
    if (me == 0) printf("barrier: %d rounds on %d UEs ok\n", rounds, n);
    return 0;
}
