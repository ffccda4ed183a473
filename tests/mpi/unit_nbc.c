/* unit_nbc.c: MPI's non-blocking collectives against their blocking twins and against values computed here: every
 * operation for 0, 1, 7 and 1000 elements (and 4100 for those without blocks) and every root, MPI_IN_PLACE where it
 * is allowed, several collectives outstanding at once on two communicators (completed in reverse order, by
 * MPI_Waitany and by MPI_Testall loops), MINLOC/MAXLOC on pair types, a non-commutative user operation (2x2 matrix
 * product) through Ireduce and Iallreduce, derived datatypes (vector) through Ibcast, Igather, Iscatter and
 * Ialltoall, progress while ranks sit in blocking calls, the NBX pattern (Issend, Iprobe, Ibarrier once the sends
 * are done), which only terminates if Ibarrier does not block, and argument errors. Works on any number of ranks;
 * only rank 0 prints, and nothing it prints depends on the number of ranks. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static const int counts[] = {0, 1, 7, 1000};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))
#define MAXCOUNT 1000
/* Bcast, Reduce and Allreduce also take 4100 ints: over the eager limit of every port (16 KiB natively), so the
 * schedules' messages go through the rendezvous too. */
static const int big_counts[] = {0, 1, 7, 1000, 4100};
#define NBIG ((int)(sizeof big_counts / sizeof big_counts[0]))
#define MAXBIG 4100

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL unit_nbc: ");
    vprintf(fmt, ap);
    printf(" (rank %d of %d, line %d)\n", rank, size, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)
#define OK(...) do { if (rank == 0) { printf("unit_nbc: " __VA_ARGS__); printf(" OK\n"); } } while (0)

/* Element i of rank r's data in test `salt`. */
static int val(int r, int i, int salt)
{
    return (r + 1) * 1000 + i * 7 + salt;
}

static int *ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    CHECK(p, "out of memory");
    return p;
}

static void fill(int *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++) p[i] = v;
}

static void wait1(MPI_Request *req)
{
    MPI_Status st;
    int err = MPI_Wait(req, &st);
    CHECK(err == MPI_SUCCESS, "MPI_Wait returned %d", err);
    CHECK(*req == MPI_REQUEST_NULL, "request not reset by MPI_Wait");
}

/* Compares n ints with what they should be. */
static void same(const int *got, const int *want, size_t n, const char *what, int count, int root)
{
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s count %d root %d: element %zu is %d, expected %d", what, count, root, i, got[i],
              want[i]);
}

/* ---- each operation against its blocking twin ---------------------------------------------------------------- */

static void test_bcast(void)
{
    int *a = ints(MAXBIG + 1), *b = ints(MAXBIG + 1), *want = ints(MAXBIG + 1);
    for (int k = 0; k < NBIG; k++) {
        int count = big_counts[k];
        for (int root = 0; root < size; root++) {
            for (int i = 0; i <= count; i++) want[i] = i < count ? val(root, i, 1) : -1;
            fill(a, (size_t)count + 1, -1);
            fill(b, (size_t)count + 1, -1);
            if (rank == root) {
                memcpy(a, want, (size_t)count * sizeof(int));
                memcpy(b, want, (size_t)count * sizeof(int));
            }
            MPI_Request req;
            MPI_Bcast(a, count, MPI_INT, root, MPI_COMM_WORLD);
            MPI_Ibcast(b, count, MPI_INT, root, MPI_COMM_WORLD, &req);
            wait1(&req);
            same(a, want, (size_t)count + 1, "Bcast", count, root);
            same(b, want, (size_t)count + 1, "Ibcast", count, root);
        }
    }
    OK("Ibcast = Bcast for counts 0 1 7 1000 4100 from every root");
    free(a);
    free(b);
    free(want);
}

static void test_reduce(MPI_Op op, const char *name)
{
    int *send = ints(MAXBIG), *a = ints(MAXBIG + 1), *b = ints(MAXBIG + 1), *c = ints(MAXBIG + 1);
    int *want = ints(MAXBIG + 1);
    for (int k = 0; k < NBIG; k++) {
        int count = big_counts[k];
        for (int i = 0; i < count; i++) {
            send[i] = val(rank, i, 2) * (rank % 2 ? -1 : 1);
            int w = val(0, i, 2);
            for (int r = 1; r < size; r++) {
                int v = val(r, i, 2) * (r % 2 ? -1 : 1);
                w = op == MPI_SUM ? w + v : (v > w ? v : w);
            }
            want[i] = w;
        }
        want[count] = -1;
        for (int root = 0; root < size; root++) {
            fill(a, (size_t)count + 1, -1);
            fill(b, (size_t)count + 1, -1);
            fill(c, (size_t)count + 1, -1);
            if (rank == root) memcpy(c, send, (size_t)count * sizeof(int));
            MPI_Request req[2];
            MPI_Reduce(send, a, count, MPI_INT, op, root, MPI_COMM_WORLD);
            MPI_Ireduce(send, b, count, MPI_INT, op, root, MPI_COMM_WORLD, &req[0]);
            MPI_Ireduce(rank == root ? MPI_IN_PLACE : send, c, count, MPI_INT, op, root, MPI_COMM_WORLD, &req[1]);
            wait1(&req[1]);
            wait1(&req[0]);
            if (rank == root) {
                same(a, want, (size_t)count + 1, "Reduce", count, root);
                same(b, want, (size_t)count + 1, "Ireduce", count, root);
                same(c, want, (size_t)count + 1, "Ireduce in place", count, root);
            }
        }
        fill(a, (size_t)count + 1, -1);
        fill(b, (size_t)count + 1, -1);
        memcpy(c, send, (size_t)count * sizeof(int));
        c[count] = -1;
        MPI_Request req[2];
        MPI_Allreduce(send, a, count, MPI_INT, op, MPI_COMM_WORLD);
        MPI_Iallreduce(MPI_IN_PLACE, c, count, MPI_INT, op, MPI_COMM_WORLD, &req[0]);
        MPI_Iallreduce(send, b, count, MPI_INT, op, MPI_COMM_WORLD, &req[1]);
        wait1(&req[0]);
        wait1(&req[1]);
        same(a, want, (size_t)count + 1, "Allreduce", count, -1);
        same(b, want, (size_t)count + 1, "Iallreduce", count, -1);
        same(c, want, (size_t)count + 1, "Iallreduce in place", count, -1);
    }
    OK("Ireduce = Reduce (every root, in place too) and Iallreduce = Allreduce with %s for counts 0 1 7 1000 4100",
       name);
    free(send);
    free(a);
    free(b);
    free(c);
    free(want);
}

/* The block operations (gather, scatter, allgather, alltoall) move size blocks of up to MAXCOUNT elements per
 * rank: shorts, so that three such buffers fit a simulated core's memory at 16 ranks. */
static short sval(int r, int i, int salt)
{
    return (short)(val(r, i, salt) % 32000);
}

static short *shorts(size_t n)
{
    short *p = malloc((n ? n : 1) * sizeof(short));
    CHECK(p, "out of memory");
    return p;
}

static void sfill(short *p, size_t n, short v)
{
    for (size_t i = 0; i < n; i++) p[i] = v;
}

/* Checks n blocks of `count` elements, block r holding sval(r, first + i, salt) at element i, then a -1. */
static void check_blocks(const short *got, int n, int count, int first, int salt, const char *what, int root)
{
    size_t all = (size_t)n * (size_t)count;
    for (size_t j = 0; j <= all; j++) {
        int r = (int)(j / (size_t)(count ? count : 1)), i = (int)(j % (size_t)(count ? count : 1));
        short want = j < all ? sval(r, first + i, salt) : -1;
        CHECK(got[j] == want, "%s count %d root %d: element %zu is %d, expected %d", what, count, root, j, got[j],
              want);
    }
}

static void test_gather_scatter(void)
{
    size_t all = (size_t)size * MAXCOUNT + 1;
    short *send = shorts(all), *a = shorts(all), *b = shorts(all);
    for (int k = 0; k < NCOUNTS; k++) {
        int count = counts[k];
        size_t n = (size_t)size * (size_t)count;
        for (int root = 0; root < size; root++) {
            MPI_Request req[2];
            /* Gather: block r of the root's buffer is rank r's data. */
            for (int i = 0; i < count; i++) send[i] = sval(rank, i, 3);
            sfill(a, n + 1, -1);
            MPI_Gather(send, count, MPI_SHORT, a, count, MPI_SHORT, root, MPI_COMM_WORLD);
            if (rank == root) check_blocks(a, size, count, 0, 3, "Gather", root);
            sfill(a, n + 1, -1);
            sfill(b, n + 1, -1);
            if (rank == root) memcpy(b + (size_t)root * (size_t)count, send, (size_t)count * sizeof(short));
            MPI_Igather(send, count, MPI_SHORT, a, count, MPI_SHORT, root, MPI_COMM_WORLD, &req[0]);
            MPI_Igather(rank == root ? MPI_IN_PLACE : send, count, MPI_SHORT, b, count, MPI_SHORT, root,
                        MPI_COMM_WORLD, &req[1]);
            wait1(&req[1]);
            wait1(&req[0]);
            if (rank == root) {
                check_blocks(a, size, count, 0, 3, "Igather", root);
                check_blocks(b, size, count, 0, 3, "Igather in place", root);
            }
            /* Scatter: rank r gets block r of the root's buffer (block r holds sval(r, i)). */
            for (size_t j = 0; j < n; j++) send[j] = sval((int)(j / (size_t)count), (int)(j % (size_t)count), 4);
            sfill(a, (size_t)count + 1, -1);
            MPI_Scatter(send, count, MPI_SHORT, a, count, MPI_SHORT, root, MPI_COMM_WORLD);
            for (int i = 0; i <= count; i++)
                CHECK(a[i] == (i < count ? sval(rank, i, 4) : -1), "Scatter count %d root %d element %d", count, root,
                      i);
            sfill(a, (size_t)count + 1, -1);
            sfill(b, (size_t)count + 1, -1);
            MPI_Iscatter(send, count, MPI_SHORT, a, count, MPI_SHORT, root, MPI_COMM_WORLD, &req[0]);
            MPI_Iscatter(send, count, MPI_SHORT, rank == root ? MPI_IN_PLACE : b, count, MPI_SHORT, root,
                         MPI_COMM_WORLD, &req[1]);
            wait1(&req[0]);
            wait1(&req[1]);
            for (int i = 0; i <= count; i++) {
                short want = i < count ? sval(rank, i, 4) : -1;
                CHECK(a[i] == want, "Iscatter count %d root %d element %d", count, root, i);
                CHECK(rank == root || b[i] == want, "Iscatter in place count %d root %d element %d", count, root, i);
            }
            for (size_t j = 0; j < n && rank == root; j++)
                CHECK(send[j] == sval((int)(j / (size_t)count), (int)(j % (size_t)count), 4),
                      "Iscatter changed its sendbuf, count %d root %d", count, root);
        }
    }
    OK("Igather = Gather and Iscatter = Scatter (in place too) for counts 0 1 7 1000 from every root");
    free(send);
    free(a);
    free(b);
}

static void test_allgather_alltoall(void)
{
    size_t all = (size_t)size * MAXCOUNT + 1;
    short *send = shorts(all), *a = shorts(all), *b = shorts(all);
    for (int k = 0; k < NCOUNTS; k++) {
        int count = counts[k];
        size_t n = (size_t)size * (size_t)count;
        MPI_Request req[2];
        for (int i = 0; i < count; i++) send[i] = sval(rank, i, 5);
        sfill(a, n + 1, -1);
        MPI_Allgather(send, count, MPI_SHORT, a, count, MPI_SHORT, MPI_COMM_WORLD);
        check_blocks(a, size, count, 0, 5, "Allgather", -1);
        sfill(a, n + 1, -1);
        sfill(b, n + 1, -1);
        memcpy(b + (size_t)rank * (size_t)count, send, (size_t)count * sizeof(short));
        MPI_Iallgather(MPI_IN_PLACE, count, MPI_SHORT, b, count, MPI_SHORT, MPI_COMM_WORLD, &req[0]);
        MPI_Iallgather(send, count, MPI_SHORT, a, count, MPI_SHORT, MPI_COMM_WORLD, &req[1]);
        wait1(&req[1]);
        wait1(&req[0]);
        check_blocks(a, size, count, 0, 5, "Iallgather", -1);
        check_blocks(b, size, count, 0, 5, "Iallgather in place", -1);
        /* Alltoall: block j from rank r goes to rank j and holds sval(r, j * count + i). */
        for (size_t j = 0; j < n; j++) send[j] = sval(rank, (int)j, 6);
        sfill(a, n + 1, -1);
        MPI_Alltoall(send, count, MPI_SHORT, a, count, MPI_SHORT, MPI_COMM_WORLD);
        check_blocks(a, size, count, rank * count, 6, "Alltoall", -1);
        sfill(a, n + 1, -1);
        memcpy(b, send, n * sizeof(short));
        b[n] = -1;
        MPI_Ialltoall(send, count, MPI_SHORT, a, count, MPI_SHORT, MPI_COMM_WORLD, &req[0]);
        MPI_Ialltoall(MPI_IN_PLACE, count, MPI_SHORT, b, count, MPI_SHORT, MPI_COMM_WORLD, &req[1]);
        wait1(&req[0]);
        wait1(&req[1]);
        check_blocks(a, size, count, rank * count, 6, "Ialltoall", -1);
        check_blocks(b, size, count, rank * count, 6, "Ialltoall in place", -1);
    }
    OK("Iallgather = Allgather and Ialltoall = Alltoall (in place too) for counts 0 1 7 1000");
    free(send);
    free(a);
    free(b);
}

/* ---- pair types --------------------------------------------------------------------------------------------- */

/* MINLOC and MAXLOC on MPI_DOUBLE_INT (padded: its data does not fill its extent) and MPI_2INT. Value i of rank r
 * is (r * 7 + i * 3) % 5 - i, so ties between ranks are common and the lowest rank must win them. */
static void test_pairs(void)
{
    struct { double v; int i; } dsend[7], dgot[7];
    struct { int v; int i; } isend[7], igot[7];
    struct { long v; int i; } lsend[7], lgot[7];
    for (int i = 0; i < 7; i++) {
        dsend[i].v = (rank * 7 + i * 3) % 5 - i;
        dsend[i].i = rank;
        isend[i].v = (rank * 7 + i * 3) % 5 - i;
        isend[i].i = rank;
        lsend[i].v = (rank * 7 + i * 3) % 5 - i;
        lsend[i].i = rank;
    }
    for (int root = 0; root < size; root++) {
        MPI_Request req[3];
        memset(dgot, 0, sizeof dgot);
        memset(igot, 0, sizeof igot);
        memset(lgot, 0, sizeof lgot);
        MPI_Iallreduce(dsend, dgot, 7, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD, &req[0]);
        MPI_Ireduce(isend, igot, 7, MPI_2INT, MPI_MINLOC, root, MPI_COMM_WORLD, &req[1]);
        MPI_Iallreduce(lsend, lgot, 7, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD, &req[2]);
        MPI_Status st[3];
        MPI_Waitall(3, req, st);
        for (int i = 0; i < 7; i++) {
            int max = -100, maxr = -1, min = 100, minr = -1;
            for (int r = 0; r < size; r++) {
                int v = (r * 7 + i * 3) % 5 - i;
                if (v > max) max = v, maxr = r;
                if (v < min) min = v, minr = r;
            }
            CHECK(dgot[i].v == max && dgot[i].i == maxr, "Iallreduce MAXLOC DOUBLE_INT %d: (%g, %d), expected (%d, %d)",
                  i, dgot[i].v, dgot[i].i, max, maxr);
            CHECK(rank != root || (igot[i].v == min && igot[i].i == minr),
                  "Ireduce MINLOC 2INT root %d item %d: (%d, %d), expected (%d, %d)", root, i, igot[i].v, igot[i].i,
                  min, minr);
            CHECK(lgot[i].v == min && lgot[i].i == minr, "Iallreduce MINLOC LONG_INT %d: (%ld, %d), expected (%d, %d)",
                  i, lgot[i].v, lgot[i].i, min, minr);
        }
    }
    OK("MAXLOC on MPI_DOUBLE_INT and MINLOC on MPI_LONG_INT through Iallreduce, MINLOC on MPI_2INT through Ireduce to every root");
}

/* ---- a non-commutative operation: products of 2x2 matrices ------------------------------------------------ */

/* inout = in * inout, for `len` matrices of four unsigned ints (row-major); arithmetic wraps, deterministically. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    (void)type;
    const unsigned *x = invec;
    unsigned *y = inoutvec;
    for (int k = 0; k < *len; k++, x += 4, y += 4) {
        unsigned r[4] = {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
                         x[2] * y[1] + x[3] * y[3]};
        memcpy(y, r, sizeof r);
    }
}

/* Rank r's matrix k: never commuting with the others' in general. */
static void matrix(int r, int k, unsigned *m)
{
    m[0] = 1 + (unsigned)(r + k) % 3;
    m[1] = (unsigned)r + 1;
    m[2] = (unsigned)(k % 5);
    m[3] = 2 + (unsigned)(r * k) % 7;
}

static void test_noncommutative(void)
{
    MPI_Datatype mat;
    MPI_Op op;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &op);
    unsigned *send = malloc(4 * MAXCOUNT * sizeof(unsigned)), *want = malloc(4 * MAXCOUNT * sizeof(unsigned));
    unsigned *a = malloc(4 * MAXCOUNT * sizeof(unsigned)), *b = malloc(4 * MAXCOUNT * sizeof(unsigned));
    CHECK(send && want && a && b, "out of memory");
    for (int k = 0; k < NCOUNTS; k++) {
        int count = counts[k];
        /* want = M_0 * M_1 * ... * M_{size-1}, matrix by matrix. */
        for (int j = 0; j < count; j++) {
            matrix(rank, j, send + 4 * j);
            matrix(size - 1, j, want + 4 * j);
            for (int r = size - 2; r >= 0; r--) {
                unsigned m[4];
                int one = 1;
                matrix(r, j, m);
                matmul(m, want + 4 * j, &one, &mat);
            }
        }
        for (int root = 0; root < size; root++) {
            MPI_Request req;
            memset(a, 0, 4 * (size_t)count * sizeof(unsigned));
            memset(b, 0, 4 * (size_t)count * sizeof(unsigned));
            MPI_Reduce(send, a, count, mat, op, root, MPI_COMM_WORLD);
            MPI_Ireduce(send, b, count, mat, op, root, MPI_COMM_WORLD, &req);
            wait1(&req);
            if (rank == root) {
                CHECK(!memcmp(a, want, 4 * (size_t)count * sizeof(unsigned)), "Reduce of matrices, count %d root %d",
                      count, root);
                CHECK(!memcmp(b, want, 4 * (size_t)count * sizeof(unsigned)), "Ireduce of matrices, count %d root %d",
                      count, root);
            }
        }
        MPI_Request req;
        memset(a, 0, 4 * (size_t)count * sizeof(unsigned));
        memcpy(b, send, 4 * (size_t)count * sizeof(unsigned));
        MPI_Allreduce(send, a, count, mat, op, MPI_COMM_WORLD);
        MPI_Iallreduce(MPI_IN_PLACE, b, count, mat, op, MPI_COMM_WORLD, &req);
        wait1(&req);
        CHECK(!memcmp(a, want, 4 * (size_t)count * sizeof(unsigned)), "Allreduce of matrices, count %d", count);
        CHECK(!memcmp(b, want, 4 * (size_t)count * sizeof(unsigned)), "Iallreduce of matrices, count %d", count);
    }
    OK("Ireduce (every root) and Iallreduce with a non-commutative user operation on a derived type in rank order");
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
    free(send);
    free(want);
    free(a);
    free(b);
}

/* ---- derived datatypes ------------------------------------------------------------------------------------- */

/* A vector of 3 blocks of 2 ints, 4 apart: 6 ints of data over an extent of 10 ints. */
#define VEC_INTS 10
static int in_vector(int j)
{
    return j % VEC_INTS % 4 < 2;
}

static void test_derived(void)
{
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    const int items = 5;
    size_t len = (size_t)items * VEC_INTS, all = (size_t)size * len;
    int *a = ints(all), *b = ints(all), *want = ints(all), *flat = ints(all);
    for (int root = 0; root < size; root++) {
        /* Ibcast: the root's vector elements arrive, the gaps stay as they were. */
        for (size_t j = 0; j < len; j++) want[j] = in_vector((int)j) || rank == root ? val(root, (int)j, 7) : -1;
        for (size_t j = 0; j < len; j++) a[j] = b[j] = rank == root ? val(root, (int)j, 7) : -1;
        MPI_Request req;
        MPI_Bcast(a, items, vec, root, MPI_COMM_WORLD);
        MPI_Ibcast(b, items, vec, root, MPI_COMM_WORLD, &req);
        wait1(&req);
        same(a, want, len, "Bcast of vectors", items, root);
        same(b, want, len, "Ibcast of vectors", items, root);
        /* Igather: 6 plain ints from each rank into one vector per rank at the root. */
        for (int i = 0; i < 6; i++) flat[i] = val(rank, i, 8);
        fill(a, (size_t)size * VEC_INTS, -1);
        fill(b, (size_t)size * VEC_INTS, -1);
        MPI_Gather(flat, 6, MPI_INT, a, 1, vec, root, MPI_COMM_WORLD);
        MPI_Igather(flat, 6, MPI_INT, b, 1, vec, root, MPI_COMM_WORLD, &req);
        wait1(&req);
        if (rank == root) {
            for (int r = 0, i = 0; r < size; r++)
                for (int j = 0; j < VEC_INTS; j++) want[r * VEC_INTS + j] = in_vector(j) ? val(r, i++ % 6, 8) : -1;
            same(a, want, (size_t)size * VEC_INTS, "Gather into vectors", 1, root);
            same(b, want, (size_t)size * VEC_INTS, "Igather into vectors", 1, root);
        }
        /* Iscatter: one vector per rank from the root, 6 plain ints each. */
        for (size_t j = 0; j < (size_t)size * VEC_INTS; j++) b[j] = val(root, (int)j, 9);
        fill(a, 7, -1);
        MPI_Request req2;
        MPI_Iscatter(b, 1, vec, a, 6, MPI_INT, root, MPI_COMM_WORLD, &req2);
        wait1(&req2);
        for (int i = 0, j = 0; j < VEC_INTS; j++)
            if (in_vector(j))
                CHECK(a[i++] == val(root, rank * VEC_INTS + j, 9), "Iscatter from vectors, root %d", root);
        CHECK(a[6] == -1, "Iscatter from vectors wrote past the end");
    }
    /* Ialltoall with vectors on both sides. */
    for (size_t j = 0; j < all; j++) a[j] = val(rank, (int)j, 10);
    fill(b, all, -1);
    MPI_Request req;
    MPI_Ialltoall(a, items, vec, b, items, vec, MPI_COMM_WORLD, &req);
    wait1(&req);
    for (size_t j = 0; j < all; j++) {
        int from = (int)(j / len);
        want[j] = in_vector((int)(j % len)) ? val(from, rank * (int)len + (int)(j % len), 10) : -1;
    }
    same(b, want, all, "Ialltoall of vectors", items, -1);
    OK("vector datatypes through Ibcast, Igather, Iscatter and Ialltoall");
    MPI_Type_free(&vec);
    free(a);
    free(b);
    free(want);
    free(flat);
}

/* ---- several outstanding ------------------------------------------------------------------------------------ */

/* Six collectives started on world and on a duplicate of it, alternating, whose results are checked once they
 * have all completed. */
struct batch {
    int bc[7], sum[7], mine[7], gat[16 * 7], ata[16], ata_out[16], all[16], one;
};

static void start_batch(struct batch *x, MPI_Comm dup, MPI_Request *req)
{
    memset(x, 0, sizeof *x);
    for (int i = 0; i < 7; i++) {
        x->bc[i] = rank == size - 1 ? val(size - 1, i, 11) : -1;
        x->sum[i] = x->mine[i] = val(rank, i, 12);
    }
    for (int j = 0; j < size; j++) x->ata[j] = val(rank, j, 13);
    x->one = val(rank, 0, 14);
    MPI_Ibcast(x->bc, 7, MPI_INT, size - 1, MPI_COMM_WORLD, &req[0]);
    MPI_Iallreduce(MPI_IN_PLACE, x->sum, 7, MPI_INT, MPI_SUM, dup, &req[1]);
    MPI_Ibarrier(MPI_COMM_WORLD, &req[2]);
    MPI_Igather(x->mine, 7, MPI_INT, x->gat, 7, MPI_INT, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Ialltoall(x->ata, 1, MPI_INT, x->ata_out, 1, MPI_INT, dup, &req[4]);
    MPI_Iallgather(&x->one, 1, MPI_INT, x->all, 1, MPI_INT, dup, &req[5]);
}

static void check_batch(const struct batch *x, const char *how)
{
    for (int i = 0; i < 7; i++) {
        int s = 0;
        for (int r = 0; r < size; r++) s += val(r, i, 12);
        CHECK(x->bc[i] == val(size - 1, i, 11), "%s: Ibcast element %d", how, i);
        CHECK(x->sum[i] == s, "%s: Iallreduce element %d is %d, expected %d", how, i, x->sum[i], s);
    }
    for (int r = 0; r < size && rank == 0; r++)
        for (int i = 0; i < 7; i++)
            CHECK(x->gat[r * 7 + i] == val(r, i, 12), "%s: Igather block %d element %d", how, r, i);
    for (int r = 0; r < size; r++) {
        CHECK(x->ata_out[r] == val(r, rank, 13), "%s: Ialltoall from %d", how, r);
        CHECK(x->all[r] == val(r, 0, 14), "%s: Iallgather from %d", how, r);
    }
}

static void test_outstanding(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    struct batch x;
    MPI_Request req[6];
    CHECK(size <= 16, "more than 16 ranks");

    start_batch(&x, dup, req);
    for (int i = 5; i >= 0; i--) wait1(&req[i]);
    check_batch(&x, "reverse waits");

    start_batch(&x, dup, req);
    int seen = 0;
    for (int k = 0; k < 6; k++) {
        int index;
        MPI_Status st;
        int err = MPI_Waitany(6, req, &index, &st);
        CHECK(err == MPI_SUCCESS && index >= 0 && index < 6 && !(seen & (1 << index)), "MPI_Waitany gave %d (%d)",
              index, err);
        seen |= 1 << index;
    }
    int index;
    MPI_Waitany(6, req, &index, MPI_STATUS_IGNORE);
    CHECK(index == MPI_UNDEFINED, "MPI_Waitany on no active requests gave %d", index);
    check_batch(&x, "Waitany");

    start_batch(&x, dup, req);
    int flag = 0;
    long polls = 0;
    while (!flag) {
        MPI_Status st[6];
        int err = MPI_Testall(6, req, &flag, st);
        CHECK(err == MPI_SUCCESS, "MPI_Testall returned %d", err);
        polls++;
    }
    for (int i = 0; i < 6; i++) CHECK(req[i] == MPI_REQUEST_NULL, "Testall left request %d", i);
    check_batch(&x, "Testall");
    MPI_Comm_free(&dup);
    OK("six collectives outstanding on two communicators, completed in reverse order, by Waitany and by Testall");
}

/* ---- progress inside blocking calls ------------------------------------------------------------------------ */

/* Even ranks sit in a blocking call (a receive from the next rank, a barrier, an allreduce) before they wait for a
 * broadcast; odd ranks wait for the broadcast before they make that call. Whatever ranks relay the broadcast, an
 * odd rank's data may have to pass through an even rank while that one is blocked: the broadcast must progress
 * inside every MPI call, not only in waits and tests on its own request. */
static void test_progress(void)
{
    static const char *names[] = {"MPI_Recv", "MPI_Barrier", "MPI_Allreduce"};
    int *x = ints(3000);
    for (int mode = 0; mode < 3; mode++) {
        for (int count = 1; count <= 3000; count *= 3000) {
            for (int i = 0; i < count; i++) x[i] = rank == 0 ? val(0, i, 16 + mode) : -1;
            MPI_Request req;
            int token = rank, sum = rank;
            MPI_Ibcast(x, count, MPI_INT, 0, MPI_COMM_WORLD, &req);
            if (rank % 2 == 1)
                wait1(&req);
            if (mode == 0 && rank % 2 == 1)
                MPI_Send(&token, 1, MPI_INT, rank - 1, 16, MPI_COMM_WORLD);
            if (mode == 0 && rank % 2 == 0 && rank + 1 < size) {
                MPI_Recv(&token, 1, MPI_INT, rank + 1, 16, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(token == rank + 1, "progress: received %d", token);
            }
            if (mode == 1)
                MPI_Barrier(MPI_COMM_WORLD);
            if (mode == 2) {
                MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                CHECK(sum == size * (size - 1) / 2, "progress: allreduce gave %d", sum);
            }
            if (rank % 2 == 0)
                wait1(&req);
            for (int i = 0; i < count; i++)
                CHECK(x[i] == val(0, i, 16 + mode), "progress (%s, count %d): element %d is %d", names[mode], count,
                      i, x[i]);
        }
    }
    free(x);
    OK("Ibcast progresses while ranks are blocked in MPI_Recv, MPI_Barrier and MPI_Allreduce");
}

/* ---- NBX: a sparse exchange that ends with a non-blocking barrier ------------------------------------------- */

#define NBX_TAG 77
static const int nbx_dist[] = {1, 2, 5};
#define NBX_PEERS 3

static void test_nbx(void)
{
    MPI_Request sends[NBX_PEERS], barrier = MPI_REQUEST_NULL;
    int out[NBX_PEERS], received = 0, expected = 0, sum = 0, expected_sum = 0;
    for (int k = 0; k < NBX_PEERS; k++) {
        out[k] = val(rank, k, 15);
        MPI_Issend(&out[k], 1, MPI_INT, (rank + nbx_dist[k]) % size, NBX_TAG, MPI_COMM_WORLD, &sends[k]);
        for (int r = 0; r < size; r++)
            if ((r + nbx_dist[k]) % size == rank) {
                expected++;
                expected_sum += val(r, k, 15);
            }
    }
    int done = 0, barrier_started = 0;
    while (!done) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, NBX_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, NBX_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            received++;
            sum += v;
        }
        if (!barrier_started) {
            int sent;
            MPI_Status st3[NBX_PEERS];
            MPI_Testall(NBX_PEERS, sends, &sent, st3);
            if (sent) {
                MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
                barrier_started = 1;
            }
        } else {
            MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        }
    }
    CHECK(received == expected && sum == expected_sum, "NBX received %d messages (sum %d), expected %d (sum %d)",
          received, sum, expected, expected_sum);
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, NBX_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "NBX: a message arrived after the barrier");
    OK("NBX: Issend to 3 peers, Iprobe/Recv until an Ibarrier started after the sends completes");
}

/* ---- errors ------------------------------------------------------------------------------------------------- */

static void expect_class(int err, int want, const char *what)
{
    int cls;
    CHECK(err != MPI_SUCCESS, "%s succeeded", what);
    MPI_Error_class(err, &cls);
    CHECK(cls == want, "%s: error class %d, expected %d", what, cls, want);
}

static void test_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request req = MPI_REQUEST_NULL;
    int x[4] = {0}, y[4 * 16] = {0};
    expect_class(MPI_Ibarrier(MPI_COMM_NULL, &req), MPI_ERR_COMM, "Ibarrier on MPI_COMM_NULL");
    expect_class(MPI_Ibcast(x, 1, MPI_INT, size, MPI_COMM_WORLD, &req), MPI_ERR_ROOT, "Ibcast root = size");
    expect_class(MPI_Ibcast(x, 1, MPI_INT, -1, MPI_COMM_WORLD, &req), MPI_ERR_ROOT, "Ibcast root -1");
    expect_class(MPI_Ibcast(x, -1, MPI_INT, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT, "Ibcast count -1");
    expect_class(MPI_Ibcast(x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE, "Ibcast null type");
    expect_class(MPI_Ireduce(x, y, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD, &req), MPI_ERR_OP,
                 "Ireduce MPI_OP_NULL");
    expect_class(MPI_Iallreduce(x, y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &req), MPI_ERR_OP,
                 "Iallreduce MPI_OP_NULL");
    expect_class(MPI_Ibarrier(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "Ibarrier without a request");
    expect_class(MPI_Ibcast(x, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "Ibcast without a request");
    expect_class(MPI_Igather(x, 1, MPI_INT, y, 1, MPI_INT, size, MPI_COMM_WORLD, &req), MPI_ERR_ROOT,
                 "Igather root = size");
    expect_class(MPI_Iscatter(x, 1, MPI_INT, y, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE,
                 "Iscatter null recvtype");
    expect_class(MPI_Iallgather(x, 1, MPI_INT, y, -1, MPI_INT, MPI_COMM_WORLD, &req), MPI_ERR_COUNT,
                 "Iallgather recvcount -1");
    expect_class(MPI_Ialltoall(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_NULL, &req), MPI_ERR_COMM,
                 "Ialltoall on MPI_COMM_NULL");
    CHECK(req == MPI_REQUEST_NULL, "a failed call made a request");
    /* Collectives still match after the failed calls (which started nothing). */
    x[0] = rank + 1;
    MPI_Iallreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    wait1(&req);
    CHECK(x[0] == size * (size + 1) / 2, "Iallreduce after the errors gave %d", x[0]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    OK("argument errors: MPI_ERR_COMM, ROOT, COUNT, TYPE, OP and ARG, and nothing started");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_bcast();
    test_reduce(MPI_SUM, "MPI_SUM");
    test_reduce(MPI_MAX, "MPI_MAX");
    test_gather_scatter();
    test_allgather_alltoall();
    test_pairs();
    test_noncommutative();
    test_derived();
    test_outstanding();
    test_progress();
    test_nbx();
    test_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("unit_nbc: done\n");
    MPI_Finalize();
    return 0;
}
