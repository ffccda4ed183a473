/* nbc.c: non-blocking collectives. Each of Ibarrier, Ibcast (every root), Iallreduce, Ireduce, Igather, Iscatter,
 * Iallgather and Ialltoall on its own, completed by MPI_Wait or by an MPI_Test loop; several outstanding on one
 * communicator at once, started in the same order everywhere and completed in other orders (MPI_Waitall on a
 * reversed array, single waits from the last to the first); two communicators whose collectives are started in
 * different interleavings on odd and even ranks; an Ibarrier that cannot complete before rank 0 has entered it;
 * and the NBX sparse data exchange (Hoefler et al.): MPI_Issend to a few destinations, MPI_Iprobe and MPI_Recv
 * whatever arrives, an Ibarrier once all own sends are done (MPI_Testall), finished when the Ibarrier completes.
 * NBX only terminates if the Ibarrier does not block. Only rank 0 prints. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define SENTINEL (-4242)
#define NBX_TAG 77

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL nbc: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

static int *buffer(int n)
{
    int *b = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    CHECK(b != NULL, "out of memory");
    for (int i = 0; i < n; i++) b[i] = SENTINEL;
    return b;
}

static int value(int r, int i) { return r * 10000 + i; }

/* Completes a request with an MPI_Test loop; returns how many tests it took. */
static long test_loop(MPI_Request *req)
{
    int done = 0;
    long tests = 0;
    while (!done) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        tests++;
    }
    CHECK(*req == MPI_REQUEST_NULL, "a completed request was not set to MPI_REQUEST_NULL");
    return tests;
}

static void singles(void)
{
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(req == MPI_REQUEST_NULL, "Ibarrier: request not freed by Wait");
    if (rank == 0) printf("nbc: Ibarrier + Wait OK\n");

    const int counts[] = {1, 1000};
    for (int c = 0; c < 2; c++) {
        int n = counts[c];
        for (int root = 0; root < size; root++) {
            int *b = buffer(n);
            if (rank == root)
                for (int i = 0; i < n; i++) b[i] = value(root, i);
            MPI_Ibcast(b, n, MPI_INT, root, MPI_COMM_WORLD, &req);
            if (root % 2) test_loop(&req); else MPI_Wait(&req, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++) CHECK(b[i] == value(root, i), "Ibcast n=%d root %d: [%d] = %d", n, root, i, b[i]);
            free(b);
        }
    }
    if (rank == 0) printf("nbc: Ibcast of 1 and 1000 INT from every root OK\n");

    for (int c = 0; c < 2; c++) {
        int n = counts[c], *in = buffer(n), *out = buffer(n);
        for (int i = 0; i < n; i++) in[i] = value(rank, i);
        MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        test_loop(&req);
        for (int i = 0; i < n; i++)
            CHECK(out[i] == 10000 * size * (size - 1) / 2 + size * i, "Iallreduce n=%d: [%d] = %d", n, i, out[i]);
        CHECK(in[n - 1] == value(rank, n - 1), "Iallreduce changed its send buffer");
        if (rank == 0 && c == 1) printf("nbc: Iallreduce SUM of 1000 INT, Test loop: out[999]=%d OK\n", out[999]);
        free(in);
        free(out);
    }

    for (int root = 0; root < size; root++) {
        double x = rank + 0.5, y = -1;
        MPI_Ireduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rank == root) CHECK(y == size - 0.5, "Ireduce MAX to root %d: %g", root, y);
    }
    if (rank == 0) printf("nbc: Ireduce MAX of DOUBLE to every root OK\n");

    int n = 300, *mine = buffer(n), *all = buffer(n * size);
    for (int i = 0; i < n; i++) mine[i] = value(rank, i);
    MPI_Igather(mine, n, MPI_INT, all, n, MPI_INT, size - 1, MPI_COMM_WORLD, &req);
    test_loop(&req);
    if (rank == size - 1)
        for (int i = 0; i < n * size; i++) CHECK(all[i] == value(i / n, i % n), "Igather: [%d] = %d", i, all[i]);
    if (rank == 0) printf("nbc: Igather of 300 INT to the last rank OK\n");

    for (int i = 0; i < n * size; i++) all[i] = value(i / n, i % n) + 7;
    for (int i = 0; i < n; i++) mine[i] = SENTINEL;
    MPI_Iscatter(all, n, MPI_INT, mine, n, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) CHECK(mine[i] == value(rank, i) + 7, "Iscatter: [%d] = %d", i, mine[i]);
    if (rank == 0) printf("nbc: Iscatter of 300 INT from rank 0 OK\n");

    for (int i = 0; i < n; i++) mine[i] = value(rank, i) * 2;
    for (int i = 0; i < n * size; i++) all[i] = SENTINEL;
    MPI_Iallgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD, &req);
    test_loop(&req);
    for (int i = 0; i < n * size; i++) CHECK(all[i] == value(i / n, i % n) * 2, "Iallgather: [%d] = %d", i, all[i]);
    if (rank == 0) printf("nbc: Iallgather of 300 INT OK\n");

    int *send = buffer(n * size);
    for (int i = 0; i < n * size; i++) send[i] = rank * 1000000 + (i / n) * 1000 + i % n;
    MPI_Ialltoall(send, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n * size; i++)
        CHECK(all[i] == (i / n) * 1000000 + rank * 1000 + i % n, "Ialltoall: [%d] = %d", i, all[i]);
    if (rank == 0) printf("nbc: Ialltoall of 300 INT per pair OK\n");
    free(mine);
    free(all);
    free(send);
}

/* Five collectives outstanding at once, completed in other orders than they were started. */
static void overlapped(void)
{
    const int n = 200;
    for (int round = 0; round < 2; round++) {
        int *bc = buffer(n), *in = buffer(n), *sum = buffer(n), *g = buffer(size), *a2a_in = buffer(size),
            *a2a_out = buffer(size);
        if (rank == 1 % size)
            for (int i = 0; i < n; i++) bc[i] = value(round, i);
        for (int i = 0; i < n; i++) in[i] = rank + i;
        for (int r = 0; r < size; r++) a2a_in[r] = rank * 100 + r;
        int me = rank * 3 + round;
        MPI_Request reqs[5];
        MPI_Ibcast(bc, n, MPI_INT, 1 % size, MPI_COMM_WORLD, &reqs[0]);
        MPI_Iallreduce(in, sum, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
        MPI_Ibarrier(MPI_COMM_WORLD, &reqs[2]);
        MPI_Igather(&me, 1, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[3]);
        MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, MPI_COMM_WORLD, &reqs[4]);
        if (round == 0) {
            MPI_Request reversed[5] = {reqs[4], reqs[3], reqs[2], reqs[1], reqs[0]};
            MPI_Status st[5];
            MPI_Waitall(5, reversed, st);
            for (int k = 0; k < 5; k++) CHECK(reversed[k] == MPI_REQUEST_NULL, "Waitall left request %d", k);
        } else {
            for (int k = 4; k >= 0; k--) MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
        }
        for (int i = 0; i < n; i++) {
            CHECK(bc[i] == value(round, i), "overlapped Ibcast: [%d] = %d", i, bc[i]);
            CHECK(sum[i] == size * (size - 1) / 2 + size * i, "overlapped Iallreduce: [%d] = %d", i, sum[i]);
        }
        if (rank == 0)
            for (int r = 0; r < size; r++) CHECK(g[r] == r * 3 + round, "overlapped Igather: [%d] = %d", r, g[r]);
        for (int r = 0; r < size; r++)
            CHECK(a2a_out[r] == r * 100 + rank, "overlapped Ialltoall: [%d] = %d", r, a2a_out[r]);
        if (rank == 0)
            printf("nbc: Ibcast, Iallreduce, Ibarrier, Igather, Ialltoall outstanding together, completed %s OK\n",
                   round == 0 ? "by Waitall in reverse order" : "by Wait from last to first");
        free(bc);
        free(in);
        free(sum);
        free(g);
        free(a2a_in);
        free(a2a_out);
    }
}

/* Two communicators, their collectives started in different interleavings on even and odd ranks: legal for
 * non-blocking collectives, which match per communicator in that communicator's order. */
static void two_communicators(void)
{
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    const int n = 2000;
    int *in = buffer(n), *sum = buffer(n), *bc = buffer(n);
    for (int i = 0; i < n; i++) in[i] = rank + i;
    if (rank == size - 1)
        for (int i = 0; i < n; i++) bc[i] = value(size - 1, i);
    MPI_Request reqs[3];
    if (rank % 2 == 0) {
        MPI_Iallreduce(in, sum, n, MPI_INT, MPI_SUM, a, &reqs[0]);
        MPI_Ibcast(bc, n, MPI_INT, size - 1, b, &reqs[1]);
    } else {
        MPI_Ibcast(bc, n, MPI_INT, size - 1, b, &reqs[1]);
        MPI_Iallreduce(in, sum, n, MPI_INT, MPI_SUM, a, &reqs[0]);
    }
    MPI_Ibarrier(a, &reqs[2]);
    MPI_Status st[3];
    MPI_Waitall(3, reqs, st);
    for (int i = 0; i < n; i++) {
        CHECK(sum[i] == size * (size - 1) / 2 + size * i, "Iallreduce on the first communicator: [%d] = %d", i, sum[i]);
        CHECK(bc[i] == value(size - 1, i), "Ibcast on the second communicator: [%d] = %d", i, bc[i]);
    }
    free(in);
    free(sum);
    free(bc);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    if (rank == 0) printf("nbc: Iallreduce and Ibcast on two communicators, started in other orders on odd ranks OK\n");
}

/* Ranks 1.. enter an Ibarrier and test it before telling rank 0, which enters only after hearing from all of
 * them: their tests must say not complete. */
static void barrier_waits_for_everyone(void)
{
    MPI_Request req;
    int flag = 1, token = 1;
    if (rank == 0) {
        for (int r = 1; r < size; r++) MPI_Recv(&token, 1, MPI_INT, r, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        for (int k = 0; k < 10; k++) {
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag, "Ibarrier completed before rank 0 entered it");
        }
        MPI_Send(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rank == 0) printf("nbc: Ibarrier stays incomplete until rank 0 enters OK\n");
}

/* Destinations of rank r in the sparse exchange: up to three, distinct. */
static int destinations(int r, int *dest)
{
    int cand[3] = {(r + 1) % size, (r + 3) % size, (r * 7 + 2) % size}, n = 0;
    for (int k = 0; k < 3; k++) {
        int dup = 0;
        for (int j = 0; j < n; j++) dup |= dest[j] == cand[k];
        if (!dup) dest[n++] = cand[k];
    }
    return n;
}

static void nbx(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int dest[3], ndest = destinations(rank, dest), expected = 0, received = 0, payload[3][2], msg[2];
    long long from_sum = 0, want_sum = 0;
    for (int r = 0; r < size; r++) {
        int d[3], nd = destinations(r, d);
        for (int k = 0; k < nd; k++)
            if (d[k] == rank) expected++, want_sum += r * 1000 + k;
    }
    MPI_Request sends[3], barrier = MPI_REQUEST_NULL;
    for (int k = 0; k < ndest; k++) {
        payload[k][0] = rank;
        payload[k][1] = rank * 1000 + k;
        MPI_Issend(payload[k], 2, MPI_INT, dest[k], NBX_TAG, comm, &sends[k]);
    }
    int barrier_started = 0, done = 0;
    while (!done) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, NBX_TAG, comm, &flag, &st);
        if (flag) {
            MPI_Recv(msg, 2, MPI_INT, st.MPI_SOURCE, NBX_TAG, comm, MPI_STATUS_IGNORE);
            CHECK(msg[0] == st.MPI_SOURCE, "NBX: message from %d says %d", st.MPI_SOURCE, msg[0]);
            received++;
            from_sum += msg[1];
        }
        if (!barrier_started) {
            int all_sent = 0;
            MPI_Status statuses[3];
            MPI_Testall(ndest, sends, &all_sent, statuses);
            if (all_sent) {
                MPI_Ibarrier(comm, &barrier);
                barrier_started = 1;
            }
        } else {
            MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        }
    }
    CHECK(received == expected && from_sum == want_sum, "NBX: received %d messages (sum %lld), expected %d (sum %lld)",
          received, from_sum, expected, want_sum);
    int total = 0;
    MPI_Reduce(&received, &total, 1, MPI_INT, MPI_SUM, 0, comm);
    if (rank == 0) printf("nbc: NBX sparse exchange (Issend, Iprobe, Testall, Ibarrier): %d messages OK\n", total);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    singles();
    overlapped();
    two_communicators();
    barrier_waits_for_everyone();
    nbx();
    if (rank == 0) printf("nbc: done\n");
    MPI_Finalize();
    return 0;
}
