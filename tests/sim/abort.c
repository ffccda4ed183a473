/*
 * abort.c: an abort ends the whole MPI job, on the simulator as natively. Rank 0 computes a little, prints, and
 * calls MPI_Abort(MPI_COMM_WORLD, CODE) (`abort mpi CODE`) or C's abort() (`abort c`); meanwhile the odd ranks
 * spin in MPI_Iprobe for a message nobody sends and the even ones compute, printing a line every so often. None
 * of them would ever finish: only the abort can end the run.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "mpi";
    int code = argc > 2 ? atoi(argv[2]) : 7;
    if (rank == 0) {
        for (unsigned long i = 0; i < 20000; i++)
            sink += i * i;
        printf("rank 0 of %d aborts\n", size);
        fflush(stdout);
        if (!strcmp(mode, "c"))
            abort();
        MPI_Abort(MPI_COMM_WORLD, code);
        printf("rank 0 returned from MPI_Abort\n");
    } else if (rank % 2) {
        int flag = 0;
        MPI_Status status;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &status);
        printf("rank %d received a message nobody sent\n", rank);
    } else {
        for (unsigned long i = 0;; i++) {
            sink += i * 3;
            if ((i & 4095) == 0)
                printf("rank %d computing: %lu\n", rank, i);
        }
    }
    MPI_Finalize();
    return 0;
}
