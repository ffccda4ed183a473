/*
 * unfinalized.c: rank 1 returns from main without calling MPI_Finalize, and without sending the message rank 0
 * waits for. Natively the launcher must report rank 1 and stop the job at once (not at --timeout); on the
 * simulator the deadlock report must say that the rank rank 0 waits for has exited without finalizing. With the
 * argument "finalize" every rank finalizes and rank 0 waits for nobody: the job succeeds. With a number N, rank 2
 * first counts to N, which moves its exit (where the deadlock begins) against rank 0's wait-loop tests.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, word = 0, finalize = argc > 1 && !strcmp(argv[1], "finalize");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (finalize) {
        MPI_Finalize();
        return 0;
    }
    if (rank == 1)
        return 0;
    if (rank == 2 && argc > 1)
        for (volatile int i = 0, n = atoi(argv[1]); i < n; i++)
            ;
    if (rank == 0)
        MPI_Recv(&word, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
