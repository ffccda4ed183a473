/* a2a.c: all-to-alls for the flow-control plan's rule C3 (crates/cli/tests/fc.rs). Each rank sends every other a
 * block made of both ranks and the round, by MPI_Alltoall (ROUNDS times, blocks of BYTES bytes) and MPI_Alltoallv
 * (blocks of 0 to VMAX bytes, some empty, chosen from both ranks and the round: one chunk of the released
 * all-to-all or several, a partial last one; in round 1 all at most 300 bytes), and checks every block it gets.
 * With the argument `leftover`, rank 0 sends rank 1 a message before the all-to-alls that rank 1 receives only
 * after them: the released all-to-all must see it still in the network (or unreceived) and keep flow control. With
 * `mismatch`, rank 0 sends rank 1 eight bytes more in the first alltoallv than rank 1 expects (an erroneous program):
 * the call must fail with an error, not hang or read the rest as the library's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 3, BYTES = 600, VMAX = 1200 };

static unsigned char pattern(int from, int to, int round, int i)
{
    return (unsigned char)(from * 31 + to * 7 + round * 13 + i);
}

static int vbytes(int from, int to, int round)
{
    return (from * 37 + to * 11 + round * 5) % 4 == 0 ? 0 : (from * 53 + to * 29 + round * 17) % (round == 1 ? 301 : VMAX + 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n, bad = 0, leftover = argc > 1 && strcmp(argv[1], "leftover") == 0, early = 42;
    int mismatch = argc > 1 && strcmp(argv[1], "mismatch") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (leftover && me == 0)
        MPI_Send(&early, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
    unsigned char *s = malloc((size_t)n * (VMAX + 1)), *r = malloc((size_t)n * (VMAX + 1)); /* VMAX >= BYTES */
    int *sc = malloc(4 * sizeof(int) * (size_t)n), *sd = sc + n, *rc = sd + n, *rd = rc + n;
    for (int round = 0; round < ROUNDS; round++) {
        for (int p = 0; p < n; p++)
            for (int i = 0; i < BYTES; i++)
                s[p * BYTES + i] = pattern(me, p, round, i);
        memset(r, 0, (size_t)n * BYTES);
        MPI_Alltoall(s, BYTES, MPI_BYTE, r, BYTES, MPI_BYTE, MPI_COMM_WORLD);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < BYTES; i++)
                bad += r[p * BYTES + i] != pattern(p, me, round, i);
        int so = 0, ro = 0;
        for (int p = 0; p < n; p++) {
            sc[p] = vbytes(me, p, round);
            rc[p] = vbytes(p, me, round);
            sd[p] = so;
            rd[p] = ro;
            so += sc[p];
            ro += rc[p];
            for (int i = 0; i < sc[p]; i++)
                s[sd[p] + i] = pattern(me, p, round + 100, i);
        }
        if (mismatch && me == 0 && round == 0)
            sc[1] += 8; /* the displacements leave room: block 1 is followed by block 2's */
        memset(r, 0, (size_t)ro + 1);
        MPI_Alltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < rc[p]; i++)
                bad += r[rd[p] + i] != pattern(p, me, round + 100, i);
    }
    if (leftover && me == 1) {
        int got = 0;
        MPI_Recv(&got, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bad += got != 42;
    }
    int total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("a2a: %s (%d ranks)\n", total ? "WRONG" : "ok", n);
    free(s);
    free(r);
    free(sc);
    MPI_Finalize();
    return total != 0;
}
