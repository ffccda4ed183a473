/* MPI_Comm_create with different, disjoint groups (MPI 3.1 6.4.2): each rank gets the communicator of its own
 * group, ordered as the group; ranks in no group get MPI_COMM_NULL. */
#include <mpi.h>
#include <stdio.h>

#define PROGRAM "comm_create"
#include "check.h"

static int size;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world, mine;
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    /* Even and odd ranks, each group in reverse order. */
    int last = size - 1 - (size - 1 - rank % 2) % 2; /* the highest rank of my parity */
    int range[1][3] = {{last, rank % 2, -2}};
    MPI_Group_range_incl(world, 1, range, &mine);
    MPI_Comm c;
    MPI_Comm_create(MPI_COMM_WORLD, mine, &c);
    CHECK(c != MPI_COMM_NULL, "a member gets a communicator");
    int r, s, sum;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    CHECK(s == (size + 1 - rank % 2) / 2, "the size is its group's");
    CHECK(r == (last - rank) / 2, "the rank is the rank in its group");
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    int expect = 0;
    for (int i = rank % 2; i < size; i += 2)
        expect += i;
    CHECK(sum == expect, "a collective on it spans its group only");
    MPI_Comm_free(&c);
    MPI_Group_free(&mine);
    report("disjoint groups of even and odd ranks, each reversed");

    /* Groups of one rank each, and ranks that name an empty group. */
    int one[1] = {rank};
    if (rank % 3 == 2)
        mine = MPI_GROUP_EMPTY;
    else
        MPI_Group_incl(world, 1, one, &mine);
    MPI_Comm_create(MPI_COMM_WORLD, mine, &c);
    if (rank % 3 == 2) {
        CHECK(c == MPI_COMM_NULL, "a rank in no group gets MPI_COMM_NULL");
    } else {
        MPI_Comm_size(c, &s);
        CHECK(s == 1, "a group of one rank");
        MPI_Comm_free(&c);
        MPI_Group_free(&mine);
    }
    report("groups of one rank, and ranks in none");

    MPI_Group_free(&world);
    if (rank == 0)
        printf("comm_create: done\n");
    MPI_Finalize();
    return 0;
}
