/* site.c: a call that fails its argument checks must not leave its calling site to the next call (the profile would
 * name the next send by the failed call's site; crates/cli/tests/fc.rs). Rank 0 makes each failing call from a
 * function of its own, then a send from `good_send`, which rank 1 receives. */
#include <mpi.h>
#include <stdio.h>

static int x[4];

__attribute__((noinline)) static void bad_sendrecv(void)
{
    if (MPI_Sendrecv(x, 1, MPI_INT, 1, -5, x + 1, 1, MPI_INT, 1, -5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS)
        printf("site: bad_sendrecv did not fail\n");
}

__attribute__((noinline)) static void bad_isend(void)
{
    MPI_Request r;
    if (MPI_Isend(x, 1, MPI_INT, 1, -5, MPI_COMM_WORLD, &r) == MPI_SUCCESS)
        printf("site: bad_isend did not fail\n");
}

__attribute__((noinline)) static void bad_replace(void)
{
    if (MPI_Sendrecv_replace(x, -1, MPI_INT, 1, 1, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS)
        printf("site: bad_replace did not fail\n");
}

__attribute__((noinline)) static void good_send(int tag)
{
    if (MPI_Send(x, 1, MPI_INT, 1, tag, MPI_COMM_WORLD) != MPI_SUCCESS) /* not a tail call: the site is good_send */
        printf("site: good_send failed\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (r == 0) {
        bad_sendrecv();
        good_send(1);
        bad_isend();
        good_send(2);
        bad_replace();
        good_send(3);
    } else if (r == 1) {
        for (int tag = 1; tag <= 3; tag++)
            MPI_Recv(x, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    if (r == 0)
        printf("site: ok\n");
    return 0;
}
