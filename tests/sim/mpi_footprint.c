/*
 * mpi_footprint.c: the heap an MPI program has lost once MPI_Init returns, on a simulated core.
 *
 * Prints, on rank 0:
 *     heap after MPI_Init: <grown> bytes grown, <in use> bytes in use
 * where `grown` is how far the heap's break (sbrk(0)) moved during MPI_Init (what the core's memory lost, freed
 * blocks included) and `in use` is what malloc still hands out (mallinfo), each the largest over the ranks.
 *
 * Built with -DNO_MPI it makes the same libc calls without MPI and prints zeros: crates/cli/tests/mpi_footprint.rs
 * compares the two builds' static data (.data, .bss and the like) to find what libnocmsg and the MPI layer add.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#ifndef NO_MPI
#include <mpi.h>
#endif

int main(int argc, char **argv)
{
    char *before = sbrk(0);
    size_t used_before = (size_t)mallinfo().uordblks;
    int rank = 0;
#ifndef NO_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#else
    (void)argc;
    (void)argv;
#endif
    long grown = (long)((char *)sbrk(0) - before);
    long in_use = (long)((size_t)mallinfo().uordblks - used_before);
#ifndef NO_MPI
    long mine[2] = {grown, in_use}, most[2];
    MPI_Reduce(mine, most, 2, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    grown = most[0];
    in_use = most[1];
#endif
    if (rank == 0)
        printf("heap after MPI_Init: %ld bytes grown, %ld bytes in use\n", grown, in_use);
#ifndef NO_MPI
    MPI_Finalize();
#endif
    return 0;
}
