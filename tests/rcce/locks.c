/*
 * locks.c - RCCE_acquire_lock/RCCE_release_lock under contention: every UE adds 1, ROUNDS times, to a counter in
 * UE 0's MPB (a load, an add and a store: not atomic) holding the lock of UE 0; a second counter, in the last UE's
 * MPB, is guarded by that UE's lock. Without mutual exclusion (or with stale lines, or stores left in the
 * write-combining buffer) updates would be lost.
 */
#include <stdint.h>

#include "check.h"

#define ROUNDS 50

int RCCE_APP(int argc, char **argv)
{
    OK(RCCE_init(&argc, &argv));
    int me = RCCE_ue(), n = RCCE_num_ues();
    int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
    t_vcharp counter = RCCE_malloc(2 * RCCE_LINE_SIZE);
    CHECK(counter != NULL, "RCCE_malloc");
    size_t offset = (size_t)(counter - (t_vcharp)nocmsg_mpb(me));
    volatile int64_t *first = (volatile int64_t *)(uintptr_t)((t_vcharp)nocmsg_mpb(0) + offset);
    volatile int64_t *second = (volatile int64_t *)(uintptr_t)((t_vcharp)nocmsg_mpb(n - 1) + offset + RCCE_LINE_SIZE);
    if (me == 0) {
        *first = 0;
        nocmsg_mpb_flush();
    }
    if (me == n - 1) {
        *second = 0;
        nocmsg_mpb_flush();
    }
    OK(RCCE_barrier(&RCCE_COMM_WORLD));
    for (int r = 0; r < rounds; r++) {
        OK(RCCE_acquire_lock(0));
        int64_t v = *first;
        spin((unsigned long)((me * 5 + r) % 7) * 10);
        *first = v + 1;
        OK(RCCE_release_lock(0));
        OK(RCCE_acquire_lock(n - 1));
        *second = *second + 2;
        OK(RCCE_release_lock(n - 1));
    }
    OK(RCCE_barrier(&RCCE_COMM_WORLD));
    RC_cache_invalidate();
    CHECK(*first == (int64_t)n * rounds, "counter of lock 0 is %lld, expected %lld", (long long)*first, (long long)n * rounds);
    CHECK(*second == 2 * (int64_t)n * rounds, "counter of lock %d is %lld, expected %lld", n - 1, (long long)*second, 2LL * n * rounds);
    OK(RCCE_barrier(&RCCE_COMM_WORLD));
    RCCE_free(counter);
    OK(RCCE_finalize());
    if (me == 0) printf("locks: %d UEs x %d rounds on two locks, counters %lld and %lld ok\n", n, rounds, (long long)*first, (long long)*second);
    return 0;
}
