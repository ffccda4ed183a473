/*
 * ssend_pair.c: an MPI program deadlocked in MPI_Ssend. Every rank synchronously sends to its right neighbour
 * before receiving from its left one, so each waits for the next to post a receive it never reaches: on 2 ranks
 * both sit in MPI_Ssend waiting for each other. The deadlock reports must name MPI_Ssend, the caller (main), the
 * rank each waits for, and the cycle.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, out = 1, in = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Ssend(&out, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d got %d\n", rank, in);
    MPI_Finalize();
    return 0;
}
