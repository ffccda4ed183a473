/*
 * ring.c - messages around the ring of all UEs: a token passed round three times, each UE adding its id; then a
 * shift, every UE sending a block to the next and receiving one from the previous at once (even UEs send first,
 * odd ones receive first, so the synchronous sends cannot wait on each other in a cycle).
 */
#include <string.h>

#include "check.h"

#define BLOCK 1000

int RCCE_APP(int argc, char **argv)
{
    OK(RCCE_init(&argc, &argv));
    int me = RCCE_ue(), n = RCCE_num_ues();
    CHECK(n >= 2, "ring needs 2 UEs or more");
    int next = (me + 1) % n, prev = (me + n - 1) % n;

    double t0 = RCCE_wtime();
    long token = 0;
    for (int round = 0; round < 3; round++) {
        if (me == 0) {
            token += me;
            OK(RCCE_send((char *)&token, sizeof token, next));
            OK(RCCE_recv((char *)&token, sizeof token, prev));
        } else {
            OK(RCCE_recv((char *)&token, sizeof token, prev));
            token += me;
            OK(RCCE_send((char *)&token, sizeof token, next));
        }
    }
    long want = 3L * n * (n - 1) / 2;
    if (me == 0) {
        CHECK(token == want, "token %ld after three rounds, expected %ld", token, want);
        printf("ring: the token went round 3 times, sum %ld ok\n", token);
    }
    double t1 = RCCE_wtime();
    CHECK(t1 > t0 && t1 - t0 < 1.0, "RCCE_wtime went from %g to %g s over three rounds", t0, t1);

    static unsigned char out[BLOCK], in[BLOCK];
    for (int shift = 0; shift < 4; shift++) {
        for (size_t i = 0; i < BLOCK; i++) out[i] = pattern(i, BLOCK + (size_t)shift, me, next);
        memset(in, 0, sizeof in);
        if (me % 2 == 0) {
            OK(RCCE_send((char *)out, BLOCK, next));
            OK(RCCE_recv((char *)in, BLOCK, prev));
        } else {
            OK(RCCE_recv((char *)in, BLOCK, prev));
            OK(RCCE_send((char *)out, BLOCK, next));
        }
        for (size_t i = 0; i < BLOCK; i++)
            CHECK(in[i] == pattern(i, BLOCK + (size_t)shift, prev, me), "shift %d: byte %zu from %d is %u", shift, i, prev, in[i]);
    }
    OK(RCCE_finalize());
    if (me == 0) printf("ring: 4 shifts of %d bytes on %d UEs ok\n", BLOCK, n);
    return 0;
}
