/*
 * slow_sender.c: rank 0 blocks in MPI_Recv while rank 1 computes before sending: not a deadlock, however long the
 * computation. Natively rank 1 computes for the given number of seconds (wall clock, default 3), longer than the
 * launcher's deadlock interval; on the simulator it computes for that many million loop iterations.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
    int rank, size, word = 0;
    double amount = argc > 1 ? atof(argv[1]) : 3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 1) {
#ifdef NOCMSG_SIM
        for (unsigned long i = 0; i < (unsigned long)(amount * 1e6); i++)
            sink += i;
#else
        double until = MPI_Wtime() + amount;
        while (MPI_Wtime() < until)
            sink++;
#endif
        word = 42;
        MPI_Send(&word, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(&word, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank 0 got %d\n", word);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
