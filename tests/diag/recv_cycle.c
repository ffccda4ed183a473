/*
 * recv_cycle.c: three ranks in a cycle of blocking receives. Rank r receives from rank r + 1 (mod 3) before
 * sending to rank r - 1, so nobody sends: the report must give the cycle rank 0 -> rank 1 -> rank 2 -> rank 0,
 * each rank in MPI_Recv. On the simulator the receive (a basic type on MPI_COMM_WORLD, into an 8-byte aligned
 * buffer) takes libnocmsg's inline fast path, so this also checks the waits that path leaves in the caller's own
 * code. Ranks beyond the third wait in a barrier that the first three never reach.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    long word = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank < 3) {
        MPI_Recv(&word, 1, MPI_LONG, (rank + 1) % 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&word, 1, MPI_LONG, (rank + 2) % 3, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
