/* A program with one communication region of each kind the flow-control plan tells apart (crates/cli/tests/fc.rs):
 *   region 0: a ring of sendrecv (a circular chain: keeps flow control, R4)
 *   region 1: every rank sends to rank 0, which only receives (a common sink: C2 lets them go without)
 *   region 2: pairwise exchanges ordered by rank (C1 lets them go without)
 *   region 3: neighbours exchange 64 KiB, lower rank first (C1 again, large transfers)
 *   region 4: partners exchange 64 KiB with one sendrecv each (C1: the library runs it in rank order)
 * Argument "shifted" changes region 1's sink to rank 1 (which then sends to rank 0 as well): a different pattern
 * from the one a plan was made for, which the plan's checking mode must catch. Every rank checks what it got. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what, int rank)
{
    if (!ok) {
        printf("FAIL rank %d: %s\n", rank, what);
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int shifted = argc > 1 && strcmp(argv[1], "shifted") == 0;
    enum { BIG = 8192 };
    static double a[BIG], b[BIG];
    for (int i = 0; i < BIG; i++)
        a[i] = r * 1000.0 + i;

    MPI_Sendrecv(a, 100, MPI_DOUBLE, (r + 1) % n, 1, b, 100, MPI_DOUBLE, (r + n - 1) % n, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    check(b[99] == ((r + n - 1) % n) * 1000.0 + 99, "ring", r);
    MPI_Barrier(MPI_COMM_WORLD);

    int sink = shifted ? 1 : 0;
    if (r != sink)
        MPI_Send(a, 10, MPI_DOUBLE, sink, 2, MPI_COMM_WORLD);
    else
        for (int i = 0; i < n; i++)
            if (i != sink) {
                MPI_Recv(b, 10, MPI_DOUBLE, i, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                check(b[9] == i * 1000.0 + 9, "gather", r);
            }
    double s = r, total = 0;
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    check(total == n * (n - 1) / 2.0, "allreduce", r);

    for (int round = 0; round < 2; round++) {
        int words = round ? BIG : 50, p = r ^ 1;
        if (p < n) {
            if (r < p) {
                MPI_Send(a, words, MPI_DOUBLE, p, 3 + round, MPI_COMM_WORLD);
                MPI_Recv(b, words, MPI_DOUBLE, p, 3 + round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(b, words, MPI_DOUBLE, p, 3 + round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(a, words, MPI_DOUBLE, p, 3 + round, MPI_COMM_WORLD);
            }
            check(b[words - 1] == p * 1000.0 + words - 1, "exchange", r);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int p = r ^ 1;
    if (p < n) {
        MPI_Sendrecv(a, BIG, MPI_DOUBLE, p, 5, b, BIG, MPI_DOUBLE, p, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(b[BIG - 1] == p * 1000.0 + BIG - 1, "sendrecv exchange", r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int all = 0;
    MPI_Reduce(&failures, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0)
        printf("pattern%s: %s\n", shifted ? " shifted" : "", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
