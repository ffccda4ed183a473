/* vcoll.c: every collective ends a communication region of the flow-control profile, the v-operations and an
 * empty broadcast included (crates/cli/tests/fc.rs). Each region holds one send, from rank 0 to rank 1 (tag = the
 * region's number), so the test can see that the regions are where the collectives put them. */
#include <mpi.h>
#include <stdio.h>

static void mark(int r, int tag)
{
    int x = tag;
    if (r == 0)
        MPI_Send(&x, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
    else if (r == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int one[64], all[64], counts[64], displs[64];
    for (int i = 0; i < n && i < 64; i++) {
        one[i] = r;
        counts[i] = 1;
        displs[i] = i;
    }
    mark(r, 0);
    MPI_Gatherv(one, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    mark(r, 1);
    MPI_Scatterv(all, counts, displs, MPI_INT, one, 1, MPI_INT, 0, MPI_COMM_WORLD);
    mark(r, 2);
    MPI_Allgatherv(one, 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    mark(r, 3);
    MPI_Alltoallv(one, counts, displs, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    mark(r, 4);
    MPI_Bcast(one, 0, MPI_INT, 0, MPI_COMM_WORLD);
    mark(r, 5);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    mark(r, 7);
    MPI_Finalize();
    if (r == 0)
        printf("vcoll: ok\n");
    return 0;
}
