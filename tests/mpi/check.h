/* What the tests/mpi programs that include it share. CHECK(ok, what) prints a FAIL line naming the program, the
 * rank and the line, and aborts every rank; report(what) waits for every rank, then prints "PROGRAM: what ... OK" on
 * rank 0. Define PROGRAM (the name printed, a string literal) before including it; the program sets `rank` (its
 * rank in MPI_COMM_WORLD). */
#ifndef TESTS_MPI_CHECK_H
#define TESTS_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int rank;

static void check(int ok, const char *what, int line)
{
    if (!ok) {
        printf("FAIL " PROGRAM ": %s (rank %d, line %d)\n", what, rank, line);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}
#define CHECK(ok, what) check((ok), (what), __LINE__)

static void report(const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf(PROGRAM ": %s ... OK\n", what);
}

#endif
