/* ring.c: a token passed around a ring of ranks for several rounds (each rank adds rank + 1), then ring shifts
 * with MPI_Sendrecv (one int, and a 1000-int block carried all the way around back to its owner). Works on any
 * number of ranks, one included (the ring is then rank 0 talking to itself). Only rank 0 prints. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 3
#define BLOCK 1000

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ring: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

/* Rounds of a token: rank 0 starts each round, every rank adds rank + 1 and passes it right. */
static void token_rounds(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int token = 0;
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Status st;
        if (rank == 0) {
            MPI_Request req;
            int out = token + 1;
            /* Isend, so a single rank can send to itself before receiving. */
            MPI_Isend(&out, 1, MPI_INT, right, round, MPI_COMM_WORLD, &req);
            MPI_Recv(&token, 1, MPI_INT, left, round, MPI_COMM_WORLD, &st);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, left, round, MPI_COMM_WORLD, &st);
            CHECK(token == round * size * (size + 1) / 2 + rank * (rank + 1) / 2, "round %d: received token %d", round,
                  token);
            token += rank + 1;
            MPI_Send(&token, 1, MPI_INT, right, round, MPI_COMM_WORLD);
        }
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == round, "round %d: status source %d tag %d", round, st.MPI_SOURCE,
              st.MPI_TAG);
        if (rank == 0)
            CHECK(token == (round + 1) * size * (size + 1) / 2, "round %d: token back at rank 0 is %d", round, token);
    }
    if (rank == 0) printf("ring: rounds=%d token=%d OK\n", ROUNDS, token);
}

/* Every rank sends 10 * rank right and receives from the left; rank 0 gathers what arrived. */
static void shift_one(int distance)
{
    int right = (rank + distance) % size, left = (rank + size - distance % size) % size;
    int out = 10 * rank, in = -1, count = -1;
    MPI_Status st;
    MPI_Sendrecv(&out, 1, MPI_INT, right, 7, &in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(in == 10 * left, "shift by %d: received %d from rank %d", distance, in, left);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7 && count == 1, "shift by %d: status source %d tag %d count %d",
          distance, st.MPI_SOURCE, st.MPI_TAG, count);
    int *all = malloc(sizeof(int) * (size_t)size);
    MPI_Gather(&in, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ring: shift by %d received", distance);
        for (int r = 0; r < size; r++) printf(" %d", all[r]);
        printf(" OK\n");
    }
    free(all);
}

/* A block travels size steps around the ring and must come back to its owner unchanged. */
static void shift_block(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *a = malloc(sizeof(int) * BLOCK), *b = malloc(sizeof(int) * BLOCK);
    for (int i = 0; i < BLOCK; i++) a[i] = rank * 100000 + i;
    for (int step = 1; step <= size; step++) {
        MPI_Sendrecv(a, BLOCK, MPI_INT, right, step, b, BLOCK, MPI_INT, left, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int owner = (rank + size - step % size) % size;
        for (int i = 0; i < BLOCK; i++)
            CHECK(b[i] == owner * 100000 + i, "block step %d: element %d is %d, expected %d", step, i, b[i],
                  owner * 100000 + i);
        int *t = a;
        a = b;
        b = t;
    }
    long long sum = 0, total = 0;
    for (int i = 0; i < BLOCK; i++) sum += a[i];
    MPI_Reduce(&sum, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("ring: block of %d ints went around and back, sum over ranks=%lld OK\n", BLOCK, total);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    token_rounds();
    shift_one(1);
    shift_one(2);
    shift_block();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("ring: done\n");
    MPI_Finalize();
    return 0;
}
