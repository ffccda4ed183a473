/* Freeing objects that pending operations use (MPI 3.1 5.9.5, 4.1.9, 6.4.3, 3.7.3): MPI_Op_free, MPI_Type_free,
 * MPI_Comm_free and MPI_Request_free only mark the object for deallocation, and the operations complete normally. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PROGRAM "pending_free"
#include "check.h"

static int size;

static void sum_ints(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Request req;

    /* A user operation freed while an MPI_Ireduce and an MPI_Iallreduce that use it are pending: the non-root ranks
     * start late, so the root's reduction cannot have finished when it frees the operation. */
    MPI_Op op;
    MPI_Op_create(sum_ints, 1, &op);
    int in[3] = {rank, 1, 2 * rank}, out[3] = {0, 0, 0};
    if (rank != 0)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request both[2];
    MPI_Ireduce(in, out, 3, MPI_INT, op, 0, MPI_COMM_WORLD, &both[0]);
    int all[3];
    MPI_Iallreduce(in, all, 3, MPI_INT, op, MPI_COMM_WORLD, &both[1]);
    MPI_Op_free(&op);
    CHECK(op == MPI_OP_NULL, "MPI_Op_free sets the handle to MPI_OP_NULL");
    if (rank == 0)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status sts[2];
    MPI_Waitall(2, both, sts);
    CHECK(rank != 0 || (out[0] == size * (size - 1) / 2 && out[1] == size), "MPI_Ireduce with a freed operation");
    CHECK(all[2] == size * (size - 1), "MPI_Iallreduce with a freed operation");
    report("MPI_Op_free while non-blocking reductions use the operation");

    /* A datatype freed while an MPI_Igather and an MPI_Irecv that use it are pending. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int mine[2] = {rank, -rank}, *gathered = malloc(2 * sizeof(int) * (size_t)size);
    if (rank != 0)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Igather(mine, 1, pair, gathered, 1, pair, 0, MPI_COMM_WORLD, &req);
    MPI_Type_free(&pair);
    CHECK(pair == MPI_DATATYPE_NULL, "MPI_Type_free sets the handle to MPI_DATATYPE_NULL");
    if (rank == 0)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int r = 0; rank == 0 && r < size; r++)
        CHECK(gathered[2 * r] == r && gathered[2 * r + 1] == -r, "MPI_Igather with a freed datatype");
    MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int strided[4] = {-1, -1, -1, -1}, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Irecv(strided, 1, pair, prev, 3, MPI_COMM_WORLD, &req);
    MPI_Type_free(&pair);
    MPI_Send(mine, 2, MPI_INT, next, 3, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(strided[0] == prev && strided[1] == -1 && strided[2] == -prev, "MPI_Irecv into a freed vector type");
    free(gathered);
    report("MPI_Type_free while a non-blocking collective and a receive use the type");

    /* A communicator freed while receives on it are pending: they complete, with the source's rank in it. Ranks are
     * reversed in it, so a world rank would show. Half the ranks free it before the message comes. */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    int me, from = -1, v = -1;
    MPI_Comm_rank(rev, &me);
    MPI_Request rs[2];
    MPI_Status st[2];
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, rev, &rs[0]);
    int w = 100 + me, to = (me + 1) % size;
    if (me % 2) {
        MPI_Isend(&w, 1, MPI_INT, to, 5, rev, &rs[1]);
        MPI_Comm_free(&rev);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Isend(&w, 1, MPI_INT, to, 5, rev, &rs[1]);
        MPI_Comm_free(&rev);
    }
    CHECK(rev == MPI_COMM_NULL, "MPI_Comm_free sets the handle to MPI_COMM_NULL");
    MPI_Waitall(2, rs, st);
    from = (me + size - 1) % size;
    CHECK(v == 100 + from && st[0].MPI_SOURCE == from && st[0].MPI_TAG == 5,
          "a receive on a freed communicator completes with the source's rank in it");
    /* Its context is not taken by a new communicator while the receives are pending, nor after. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int x = rank;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, dup);
    CHECK(x == size * (size - 1) / 2, "a communicator made after the free works");
    MPI_Comm_free(&dup);
    report("MPI_Comm_free while receives on the communicator are pending");

    /* A request freed while its send is pending: the message is still delivered. */
    int big = 50000, *data = malloc(sizeof(int) * (size_t)big), *got = malloc(sizeof(int) * (size_t)big);
    for (int i = 0; i < big; i++)
        data[i] = i + rank;
    MPI_Isend(data, big, MPI_INT, next, 6, MPI_COMM_WORLD, &req);
    MPI_Request_free(&req);
    CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free sets the handle to MPI_REQUEST_NULL");
    MPI_Recv(got, big, MPI_INT, prev, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got[0] == prev && got[big - 1] == big - 1 + prev, "a freed send request's message arrives");
    MPI_Barrier(MPI_COMM_WORLD); /* the send has been received, so its buffer is free */
    free(data);
    free(got);
    report("MPI_Request_free while the send is pending");

    if (rank == 0)
        printf("pending_free: done\n");
    MPI_Finalize();
    return 0;
}
