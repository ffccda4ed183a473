/* collectives.c: every blocking collective against a reference each rank computes itself (every input is a
 * function of the rank and the index). Barrier; Bcast from every root; Reduce (first, middle and last root) and
 * Allreduce with SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR on MPI_INT and SUM, MIN, MAX on MPI_DOUBLE
 * (values are small multiples of 1/4, so every order of addition is exact; up to 1000 of them); MINLOC and MAXLOC
 * on MPI_DOUBLE_INT and MPI_2INT with frequent ties (the smallest index wins); Gather, Gatherv, Scatter, Scatterv,
 * Allgather, Allgatherv, Alltoall, Alltoallv, Reduce_scatter, Reduce_scatter_block, Scan, Exscan (rank 0's Exscan
 * result is undefined and not checked), v variants with zero counts, and every collective with count 0; user
 * operations from MPI_Op_create, a commutative one and a non-commutative one (products of 2x2 integer matrices
 * modulo 65521, whose value shows that operands are combined in rank order), MPI_Op_commutative, MPI_Op_free,
 * MPI_Reduce_local. Counts go from 1 to 3000 elements. Only rank 0 prints, one line per operation with a checksum
 * of its result; the checksums depend on the rank count. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL (-5555)
#define MODULUS 65521

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL collectives: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

static const int counts[] = {1, 7, 100, 3000};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

static void *allocate(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    CHECK(p != NULL, "out of memory");
    return p;
}

static int *ints(int n)
{
    int *b = allocate(sizeof(int) * (size_t)(n > 0 ? n : 0));
    for (int i = 0; i < n; i++) b[i] = SENTINEL;
    return b;
}

static long long checksum(const int *b, int n)
{
    long long s = 0;
    for (int i = 0; i < n; i++) s += (long long)b[i] * ((i & 7) + 1);
    return s;
}

/* The roots a rooted operation is checked at: first, middle and last (distinct). */
static int roots(int *out)
{
    int n = 0, cand[3] = {0, size / 2, size - 1};
    for (int k = 0; k < 3; k++) {
        int dup = 0;
        for (int j = 0; j < n; j++) dup |= out[j] == cand[k];
        if (!dup) out[n++] = cand[k];
    }
    return n;
}

static void barrier_and_bcast(void)
{
    for (int k = 0; k < 3; k++) MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("collectives: Barrier x3 OK\n");
    long long sum = 0;
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int root = 0; root < size; root++) {
            int *b = ints(n);
            if (rank == root)
                for (int i = 0; i < n; i++) b[i] = root * 7919 + i;
            MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) CHECK(b[i] == root * 7919 + i, "Bcast n=%d root %d: [%d] = %d", n, root, i, b[i]);
            sum += checksum(b, n);
            free(b);
        }
    }
    double d[5] = {0, 0, 0, 0, 0};
    if (rank == size - 1)
        for (int i = 0; i < 5; i++) d[i] = 0.125 * i - 3;
    MPI_Bcast(d, 5, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
    for (int i = 0; i < 5; i++) CHECK(d[i] == 0.125 * i - 3, "Bcast of DOUBLE: [%d] = %g", i, d[i]);
    if (rank == 0) printf("collectives: Bcast of 1, 7, 100, 3000 INT from every root, 5 DOUBLE checksum=%lld OK\n", sum);
}

/* Integer reductions: inputs that keep PROD and SUM far from overflow and make logical ones interesting. */
enum { SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR, NOPS };
static const char *op_names[NOPS] = {"SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR"};

static MPI_Op op_handle(int op)
{
    const MPI_Op ops[NOPS] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND,
                              MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    return ops[op];
}

/* Rank r's inputs for an operation, elements 0..n-1: masks rather than divisions, and one loop per operation, since
 * the references cost size x count inputs per operation on cores where a division takes 34 cycles. */
static void int_inputs(int op, int r, int n, int *x)
{
    static const int prod[4] = {2, -1, 1, 1};
    /* Logical operations: true is 1 at rank 0 and another non-zero value elsewhere, so that one rank's "reduction"
     * (its own input, unchanged in MPICH) is 0 or 1 too. */
    int t_and = r ? 5 : 1, t_or = r ? -3 : 1, t_xor = r ? 7 : 1;
    switch (op) {
    case PROD: for (int i = 0; i < n; i++) x[i] = prod[(r + i) & 3]; break;
    case LAND: for (int i = 0; i < n; i++) x[i] = ((r * 3 + i) & 15) != 0 ? t_and : 0; break; /* mostly true */
    case LOR: for (int i = 0; i < n; i++) x[i] = ((r * 3 + i) & 15) == 0 ? t_or : 0; break;   /* mostly false */
    case LXOR: for (int i = 0; i < n; i++) x[i] = ((r + i) & 3) == 0 ? t_xor : 0; break;
    case BAND: for (int i = 0; i < n; i++) x[i] = ~(1 << ((r + i) & 15)) & 0x7ffffff0; break;
    case BOR: for (int i = 0; i < n; i++) x[i] = 1 << ((r * 5 + i) & 15); break;
    case BXOR: for (int i = 0; i < n; i++) x[i] = (int)((r * 2654435761u + i * 40503u) & 0xffffff); break;
    default: for (int i = 0; i < n; i++) x[i] = ((r * 37 + i * 101) & 2047) - 1024; /* SUM, MIN, MAX */
    }
}

/* acc = acc op x, element by element. */
static void int_combine(int op, int *acc, const int *x, int n)
{
    switch (op) {
    case SUM: for (int i = 0; i < n; i++) acc[i] += x[i]; break;
    case PROD: for (int i = 0; i < n; i++) acc[i] *= x[i]; break;
    case MIN: for (int i = 0; i < n; i++) acc[i] = x[i] < acc[i] ? x[i] : acc[i]; break;
    case MAX: for (int i = 0; i < n; i++) acc[i] = x[i] > acc[i] ? x[i] : acc[i]; break;
    case LAND: for (int i = 0; i < n; i++) acc[i] = acc[i] && x[i]; break;
    case LOR: for (int i = 0; i < n; i++) acc[i] = acc[i] || x[i]; break;
    case LXOR: for (int i = 0; i < n; i++) acc[i] = !acc[i] != !x[i]; break;
    case BAND: for (int i = 0; i < n; i++) acc[i] &= x[i]; break;
    case BOR: for (int i = 0; i < n; i++) acc[i] |= x[i]; break;
    default: for (int i = 0; i < n; i++) acc[i] ^= x[i];
    }
}

static void int_reductions(void)
{
    int rts[3], nroots = roots(rts);
    for (int op = 0; op < NOPS; op++) {
        long long sum = 0;
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c], *in = ints(n), *copy = ints(n), *out = ints(n), *want = ints(n), *x = ints(n);
            int_inputs(op, rank, n, in);
            memcpy(copy, in, sizeof(int) * (size_t)n);
            int_inputs(op, 0, n, want);
            for (int r = 1; r < size; r++) {
                int_inputs(op, r, n, x);
                int_combine(op, want, x, n);
            }
            for (int k = 0; k < nroots; k++) {
                for (int i = 0; i < n; i++) out[i] = SENTINEL;
                MPI_Reduce(in, out, n, MPI_INT, op_handle(op), rts[k], MPI_COMM_WORLD);
                if (rank == rts[k])
                    for (int i = 0; i < n; i++)
                        CHECK(out[i] == want[i], "Reduce %s n=%d root %d: [%d] = %d, expected %d", op_names[op], n,
                              rts[k], i, out[i], want[i]);
            }
            for (int i = 0; i < n; i++) out[i] = SENTINEL;
            MPI_Allreduce(in, out, n, MPI_INT, op_handle(op), MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK(out[i] == want[i], "Allreduce %s n=%d: [%d] = %d, expected %d", op_names[op], n, i, out[i],
                      want[i]);
            CHECK(memcmp(in, copy, sizeof(int) * (size_t)n) == 0, "%s changed the send buffer", op_names[op]);
            sum += checksum(out, n);
            free(in);
            free(copy);
            free(out);
            free(want);
            free(x);
        }
        if (rank == 0) printf("collectives: Reduce and Allreduce %s on INT checksum=%lld OK\n", op_names[op], sum);
    }
}

/* Quarters from -8 to 7.75, from a table (soft float makes arithmetic slow on the simulated cores). */
static double double_input(int r, int i)
{
    static double quarters[64];
    if (quarters[1] == 0)
        for (int k = 0; k < 64; k++) quarters[k] = (k - 32) * 0.25;
    return quarters[(r * 13 + i * 7) & 63];
}

static void double_reductions(void)
{
    const MPI_Op ops[3] = {MPI_SUM, MPI_MIN, MPI_MAX};
    const char *names[3] = {"SUM", "MIN", "MAX"};
    int rts[3], nroots = roots(rts);
    for (int o = 0; o < 3; o++) {
        double sum = 0;
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c] > 1000 ? 1000 : counts[c]; /* soft float on the simulated cores */
            double *in = allocate(sizeof(double) * (size_t)n), *out = allocate(sizeof(double) * (size_t)n),
                   *want = allocate(sizeof(double) * (size_t)n);
            for (int i = 0; i < n; i++) {
                in[i] = double_input(rank, i);
                want[i] = double_input(0, i);
                for (int r = 1; r < size; r++) {
                    double x = double_input(r, i);
                    want[i] = o == 0 ? want[i] + x : o == 1 ? (x < want[i] ? x : want[i]) : (x > want[i] ? x : want[i]);
                }
            }
            for (int k = 0; k < nroots; k++) {
                MPI_Reduce(in, out, n, MPI_DOUBLE, ops[o], rts[k], MPI_COMM_WORLD);
                if (rank == rts[k])
                    for (int i = 0; i < n; i++)
                        CHECK(out[i] == want[i], "Reduce %s DOUBLE n=%d root %d: [%d] = %g, expected %g", names[o], n,
                              rts[k], i, out[i], want[i]);
            }
            MPI_Allreduce(in, out, n, MPI_DOUBLE, ops[o], MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK(out[i] == want[i], "Allreduce %s DOUBLE n=%d: [%d] = %g, expected %g", names[o], n, i, out[i],
                      want[i]);
            for (int i = 0; i < n; i++) sum += (i & 1) ? out[i] : 2 * out[i];
            free(in);
            free(out);
            free(want);
        }
        if (rank == 0) printf("collectives: Reduce and Allreduce %s on DOUBLE checksum=%.2f OK\n", names[o], sum);
    }
}

struct double_int {
    double value;
    int index;
};
struct int_int {
    int value;
    int index;
};

/* MINLOC and MAXLOC: values 0..3 (halves for doubles) so ties are frequent; the smallest index among equal values
 * wins. */
static void loc_reductions(void)
{
    static const double halves[4] = {0, 0.5, 1, 1.5};
    for (int maxloc = 0; maxloc < 2; maxloc++) {
        long long sum = 0;
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c];
            struct double_int *din = allocate(sizeof *din * (size_t)n), *dout = allocate(sizeof *dout * (size_t)n);
            struct int_int *iin = allocate(sizeof *iin * (size_t)n), *iout = allocate(sizeof *iout * (size_t)n);
            for (int i = 0; i < n; i++) {
                din[i].value = halves[(rank * 5 + i * 3) & 3];
                din[i].index = 1000 - 10 * rank + (i & 3);
                iin[i].value = (rank * 7 + i) & 3;
                iin[i].index = 100 * rank - i;
            }
            MPI_Allreduce(din, dout, n, MPI_DOUBLE_INT, maxloc ? MPI_MAXLOC : MPI_MINLOC, MPI_COMM_WORLD);
            MPI_Reduce(iin, iout, n, MPI_2INT, maxloc ? MPI_MAXLOC : MPI_MINLOC, size - 1, MPI_COMM_WORLD);
            MPI_Bcast(iout, 2 * n, MPI_INT, size - 1, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) {
                /* The reference compares the doubles' integer keys (soft float is slow on the simulated cores). */
                int dk = 0, di = 0, iv = 0, ii = 0;
                for (int r = 0; r < size; r++) {
                    int k = (r * 5 + i * 3) & 3, idx = 1000 - 10 * r + (i & 3), w = (r * 7 + i) & 3, widx = 100 * r - i;
                    if (r == 0 || (maxloc ? k > dk : k < dk) || (k == dk && idx < di)) dk = k, di = idx;
                    if (r == 0 || (maxloc ? w > iv : w < iv) || (w == iv && widx < ii)) iv = w, ii = widx;
                }
                double dv = halves[dk];
                CHECK(dout[i].value == dv && dout[i].index == di, "%s DOUBLE_INT n=%d: [%d] = (%g, %d), expected (%g, %d)",
                      maxloc ? "MAXLOC" : "MINLOC", n, i, dout[i].value, dout[i].index, dv, di);
                CHECK(iout[i].value == iv && iout[i].index == ii, "%s 2INT n=%d: [%d] = (%d, %d), expected (%d, %d)",
                      maxloc ? "MAXLOC" : "MINLOC", n, i, iout[i].value, iout[i].index, iv, ii);
                sum += dk * 7 + dout[i].index + iout[i].value * 3 + iout[i].index;
            }
            free(din);
            free(dout);
            free(iin);
            free(iout);
        }
        if (rank == 0)
            printf("collectives: %s on DOUBLE_INT (Allreduce) and 2INT (Reduce to the last rank) checksum=%lld OK\n",
                   maxloc ? "MAXLOC" : "MINLOC", sum);
    }
}

static int item(int from, int to, int i) { return from * 1000000 + to * 10000 + i; }

static void gathers_and_scatters(void)
{
    int rts[3], nroots = roots(rts);
    long long sums[4] = {0, 0, 0, 0};
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c] > 1000 ? 1000 : counts[c];
        /* v variants: rank r's block has n + r % 4 elements, none for rank 1 (zero counts are allowed), blocks
         * placed with a gap of 3. */
        int *vc = allocate(sizeof(int) * (size_t)size), *vd = allocate(sizeof(int) * (size_t)size), vtotal = 0;
        for (int r = 0; r < size; r++) {
            vc[r] = r == 1 ? 0 : n + r % 4;
            vd[r] = vtotal;
            vtotal += vc[r] + 3;
        }
        int *mine = ints(n + 4), *all = ints(n * size), *vall = ints(vtotal);
        for (int k = 0; k < nroots; k++) {
            int root = rts[k];
            for (int i = 0; i < n + 4; i++) mine[i] = item(rank, root, i);
            for (int i = 0; i < n * size; i++) all[i] = SENTINEL;
            for (int i = 0; i < vtotal; i++) vall[i] = SENTINEL;
            MPI_Gather(mine, n, MPI_INT, all, n, MPI_INT, root, MPI_COMM_WORLD);
            MPI_Gatherv(mine, vc[rank], MPI_INT, vall, vc, vd, MPI_INT, root, MPI_COMM_WORLD);
            if (rank == root) {
                for (int i = 0; i < n * size; i++)
                    CHECK(all[i] == item(i / n, root, i % n), "Gather n=%d root %d: [%d] = %d", n, root, i, all[i]);
                for (int r = 0; r < size; r++) {
                    for (int i = 0; i < vc[r]; i++)
                        CHECK(vall[vd[r] + i] == item(r, root, i), "Gatherv n=%d root %d: block %d [%d]", n, root, r, i);
                    for (int g = 0; g < 3; g++) CHECK(vall[vd[r] + vc[r] + g] == SENTINEL, "Gatherv wrote a gap");
                }
                if (k == 0) sums[0] += checksum(all, n * size) + checksum(vall, vtotal);
            }
            /* Scatter back what was gathered, shifted by one block. */
            if (rank == root) {
                for (int i = 0; i < n * size; i++) all[i] = item((i / n + 1) % size, root, i % n);
                for (int r = 0; r < size; r++)
                    for (int i = 0; i < vc[r]; i++) vall[vd[r] + i] = item(r, root, i) + 5;
            }
            for (int i = 0; i < n + 4; i++) mine[i] = SENTINEL;
            MPI_Scatter(all, n, MPI_INT, mine, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK(mine[i] == item((rank + 1) % size, root, i), "Scatter n=%d root %d: [%d] = %d", n, root, i, mine[i]);
            CHECK(mine[n] == SENTINEL, "Scatter wrote past the block");
            long long s = checksum(mine, n);
            for (int i = 0; i < n + 4; i++) mine[i] = SENTINEL;
            MPI_Scatterv(vall, vc, vd, MPI_INT, mine, vc[rank], MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < vc[rank]; i++)
                CHECK(mine[i] == item(rank, root, i) + 5, "Scatterv n=%d root %d: [%d] = %d", n, root, i, mine[i]);
            CHECK(mine[vc[rank]] == SENTINEL, "Scatterv wrote past the block");
            s += checksum(mine, vc[rank]);
            long long total = 0;
            MPI_Reduce(&s, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            if (k == 0) sums[1] += total;
        }
        /* Allgather(v). */
        for (int i = 0; i < n + 4; i++) mine[i] = item(rank, 99, i);
        for (int i = 0; i < n * size; i++) all[i] = SENTINEL;
        for (int i = 0; i < vtotal; i++) vall[i] = SENTINEL;
        MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD);
        MPI_Allgatherv(mine, vc[rank], MPI_INT, vall, vc, vd, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < n * size; i++) CHECK(all[i] == item(i / n, 99, i % n), "Allgather n=%d: [%d] = %d", n, i, all[i]);
        for (int r = 0; r < size; r++) {
            for (int i = 0; i < vc[r]; i++) CHECK(vall[vd[r] + i] == item(r, 99, i), "Allgatherv n=%d: block %d [%d]", n, r, i);
            for (int g = 0; g < 3; g++) CHECK(vall[vd[r] + vc[r] + g] == SENTINEL, "Allgatherv wrote a gap");
        }
        sums[2] += checksum(all, n * size) + checksum(vall, vtotal);
        free(vc);
        free(vd);
        free(mine);
        free(all);
        free(vall);
    }
    if (rank == 0) {
        printf("collectives: Gather and Gatherv (3 roots) checksum=%lld OK\n", sums[0]);
        printf("collectives: Scatter and Scatterv (3 roots) checksum=%lld OK\n", sums[1]);
        printf("collectives: Allgather and Allgatherv checksum=%lld OK\n", sums[2]);
    }
}

static void alltoalls(void)
{
    long long sum = 0;
    const int sizes[3] = {1, 7, 300};
    for (int c = 0; c < 3; c++) {
        int n = sizes[c];
        int *out = ints(n * size), *in = ints(n * size);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < n; i++) out[j * n + i] = item(rank, j, i);
        MPI_Alltoall(out, n, MPI_INT, in, n, MPI_INT, MPI_COMM_WORLD);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < n; i++)
                CHECK(in[j * n + i] == item(j, rank, i), "Alltoall n=%d: from %d [%d] = %d", n, j, i, in[j * n + i]);
        long long s = checksum(in, n * size);
        /* Alltoallv: the block from j to r has n + (2j + r) % 3 elements, none from rank 1 to rank 2 (zero counts are
         * allowed); send blocks in reverse rank order, receive
         * blocks with a gap of 2. */
        int *sc = allocate(sizeof(int) * (size_t)size), *sd = allocate(sizeof(int) * (size_t)size),
            *rc = allocate(sizeof(int) * (size_t)size), *rd = allocate(sizeof(int) * (size_t)size), st = 0, rt = 0;
        for (int j = size - 1; j >= 0; j--) {
            sc[j] = rank == 1 && j == 2 ? 0 : n + (2 * rank + j) % 3;
            sd[j] = st;
            st += sc[j];
        }
        for (int j = 0; j < size; j++) {
            rc[j] = j == 1 && rank == 2 ? 0 : n + (2 * j + rank) % 3;
            rd[j] = rt;
            rt += rc[j] + 2;
        }
        int *vout = ints(st), *vin = ints(rt);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < sc[j]; i++) vout[sd[j] + i] = item(rank, j, i) + 1;
        MPI_Alltoallv(vout, sc, sd, MPI_INT, vin, rc, rd, MPI_INT, MPI_COMM_WORLD);
        for (int j = 0; j < size; j++) {
            for (int i = 0; i < rc[j]; i++)
                CHECK(vin[rd[j] + i] == item(j, rank, i) + 1, "Alltoallv n=%d: from %d [%d] = %d", n, j, i,
                      vin[rd[j] + i]);
            CHECK(vin[rd[j] + rc[j]] == SENTINEL && vin[rd[j] + rc[j] + 1] == SENTINEL, "Alltoallv wrote a gap");
        }
        s += checksum(vin, rt);
        long long total = 0;
        MPI_Reduce(&s, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        sum += total;
        free(out);
        free(in);
        free(sc);
        free(sd);
        free(rc);
        free(rd);
        free(vout);
        free(vin);
    }
    if (rank == 0) printf("collectives: Alltoall and Alltoallv of 1, 7, 300 INT per pair, all ranks checksum=%lld OK\n", sum);
}

static int sum_input(int r, int i) { return ((r * 37 + i * 101) & 2047) - 1024; }

static void scatter_reductions_and_scans(void)
{
    long long sums[4] = {0, 0, 0, 0};
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c] > 1000 ? 1000 : counts[c];
        /* Reduce_scatter: block r has n + r % 3 elements, none for rank 1. */
        int *rc = allocate(sizeof(int) * (size_t)size), total = 0, start = 0;
        for (int r = 0; r < size; r++) {
            rc[r] = r == 1 ? 0 : n + r % 3;
            if (r < rank) start += rc[r];
            total += rc[r];
        }
        int *in = ints(total > n * size ? total : n * size), *out = ints(n + 3);
        for (int i = 0; i < total; i++) in[i] = sum_input(rank, i);
        MPI_Reduce_scatter(in, out, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        long long s = 0;
        for (int i = 0; i < rc[rank]; i++) {
            int want = 0;
            for (int r = 0; r < size; r++) want += sum_input(r, start + i);
            CHECK(out[i] == want, "Reduce_scatter n=%d: [%d] = %d, expected %d", n, i, out[i], want);
        }
        s = checksum(out, rc[rank]);
        long long t = 0;
        MPI_Reduce(&s, &t, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        sums[0] += t;

        for (int i = 0; i < n * size; i++) in[i] = sum_input(rank, i) * 3;
        for (int i = 0; i < n + 3; i++) out[i] = SENTINEL;
        MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            int want = sum_input(0, rank * n + i) * 3;
            for (int r = 1; r < size; r++)
                if (sum_input(r, rank * n + i) * 3 > want) want = sum_input(r, rank * n + i) * 3;
            CHECK(out[i] == want, "Reduce_scatter_block MAX n=%d: [%d] = %d, expected %d", n, i, out[i], want);
        }
        CHECK(out[n] == SENTINEL, "Reduce_scatter_block wrote past the block");
        s = checksum(out, n);
        MPI_Reduce(&s, &t, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        sums[1] += t;

        /* Scan and Exscan with SUM. */
        for (int i = 0; i < n; i++) in[i] = sum_input(rank, i);
        MPI_Scan(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            int want = 0;
            for (int r = 0; r <= rank; r++) want += sum_input(r, i);
            CHECK(out[i] == want, "Scan n=%d: [%d] = %d, expected %d", n, i, out[i], want);
        }
        s = checksum(out, n);
        MPI_Reduce(&s, &t, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        sums[2] += t;
        MPI_Exscan(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        s = 0;
        if (rank > 0) {
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int r = 0; r < rank; r++) want += sum_input(r, i);
                CHECK(out[i] == want, "Exscan n=%d: [%d] = %d, expected %d", n, i, out[i], want);
            }
            s = checksum(out, n);
        }
        MPI_Reduce(&s, &t, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        sums[3] += t;
        free(rc);
        free(in);
        free(out);
    }
    if (rank == 0) {
        printf("collectives: Reduce_scatter SUM, all ranks checksum=%lld OK\n", sums[0]);
        printf("collectives: Reduce_scatter_block MAX, all ranks checksum=%lld OK\n", sums[1]);
        printf("collectives: Scan SUM, all ranks checksum=%lld OK\n", sums[2]);
        printf("collectives: Exscan SUM, ranks 1 and up checksum=%lld OK\n", sums[3]);
    }
}

/* User operations. Commutative: the larger absolute value (the positive one on ties), on INT. Non-commutative: 2x2
 * matrix products modulo MODULUS, inoutvec = invec * inoutvec (invec holds the lower ranks' part). */
static void absmax(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int *a = in, *b = inout;
    CHECK(*type == MPI_INT, "absmax called with another datatype");
    for (int i = 0; i < *len; i++) {
        int x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        if (x > y || (x == y && a[i] > b[i])) b[i] = a[i];
    }
}

struct matrix {
    int m[4]; /* row-major: a b / c d */
};

static struct matrix multiply(struct matrix x, struct matrix y)
{
    struct matrix z;
    z.m[0] = (int)(((long long)x.m[0] * y.m[0] + (long long)x.m[1] * y.m[2]) % MODULUS);
    z.m[1] = (int)(((long long)x.m[0] * y.m[1] + (long long)x.m[1] * y.m[3]) % MODULUS);
    z.m[2] = (int)(((long long)x.m[2] * y.m[0] + (long long)x.m[3] * y.m[2]) % MODULUS);
    z.m[3] = (int)(((long long)x.m[2] * y.m[1] + (long long)x.m[3] * y.m[3]) % MODULUS);
    return z;
}

static void matmul_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    struct matrix *a = in, *b = inout;
    for (int i = 0; i < *len; i++) b[i] = multiply(a[i], b[i]);
}

/* Rank r's i-th matrix: shears up and down in turn, which do not commute. */
static struct matrix matrix_input(int r, int i)
{
    struct matrix x = {{1, 0, 0, 1}};
    if ((r + i) % 2) x.m[1] = r + i % 5 + 1; else x.m[2] = r + i % 7 + 2;
    return x;
}

static void user_ops(void)
{
    MPI_Op absmax_op, matmul;
    int commute = -1;
    MPI_Op_create(absmax, 1, &absmax_op);
    MPI_Op_create(matmul_op, 0, &matmul);
    MPI_Op_commutative(absmax_op, &commute);
    CHECK(commute == 1, "Op_commutative of the commutative op: %d", commute);
    MPI_Op_commutative(matmul, &commute);
    CHECK(commute == 0, "Op_commutative of the non-commutative op: %d", commute);
    MPI_Op_commutative(MPI_SUM, &commute);
    CHECK(commute == 1, "Op_commutative(MPI_SUM): %d", commute);
    if (rank == 0) printf("collectives: Op_commutative: user commutative 1, user non-commutative 0, MPI_SUM 1 OK\n");

    /* absmax on INT, Allreduce. */
    const int sizes[3] = {1, 7, 1000};
    long long sum = 0;
    for (int c = 0; c < 3; c++) {
        int n = sizes[c], *in = ints(n), *out = ints(n);
        for (int i = 0; i < n; i++) in[i] = (rank * 31 + i * 17) % 61 - 30;
        MPI_Allreduce(in, out, n, MPI_INT, absmax_op, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            int want = -30;
            for (int r = 0; r < size; r++) {
                int v = (r * 31 + i * 17) % 61 - 30, av = v < 0 ? -v : v, aw = want < 0 ? -want : want;
                if (r == 0 || av > aw || (av == aw && v > want)) want = v;
            }
            CHECK(out[i] == want, "Allreduce absmax n=%d: [%d] = %d, expected %d", n, i, out[i], want);
        }
        sum += checksum(out, n);
        free(in);
        free(out);
    }
    if (rank == 0) printf("collectives: Allreduce with a commutative user op checksum=%lld OK\n", sum);

    /* Matrix products: Reduce to every root, Allreduce, Scan, Exscan. */
    MPI_Datatype mtype;
    MPI_Type_contiguous(4, MPI_INT, &mtype);
    MPI_Type_commit(&mtype);
    const int mn = 50;
    struct matrix *in = allocate(sizeof(struct matrix) * mn), *out = allocate(sizeof(struct matrix) * mn),
                  *prefix = allocate(sizeof(struct matrix) * mn * (size_t)size);
    for (int i = 0; i < mn; i++) {
        in[i] = matrix_input(rank, i);
        prefix[i] = matrix_input(0, i);
        for (int r = 1; r < size; r++) prefix[r * mn + i] = multiply(prefix[(r - 1) * mn + i], matrix_input(r, i));
    }
    const struct matrix *all = prefix + (size - 1) * mn;
    for (int root = 0; root < size; root++) {
        memset(out, 0, sizeof(struct matrix) * mn);
        MPI_Reduce(in, out, mn, mtype, matmul, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int i = 0; i < mn; i++)
                CHECK(memcmp(&out[i], &all[i], sizeof out[i]) == 0, "Reduce matmul root %d: [%d] = {%d %d %d %d}", root,
                      i, out[i].m[0], out[i].m[1], out[i].m[2], out[i].m[3]);
    }
    memset(out, 0, sizeof(struct matrix) * mn);
    MPI_Allreduce(in, out, mn, mtype, matmul, MPI_COMM_WORLD);
    for (int i = 0; i < mn; i++)
        CHECK(memcmp(&out[i], &all[i], sizeof out[i]) == 0, "Allreduce matmul: [%d] = {%d %d %d %d}", i, out[i].m[0],
              out[i].m[1], out[i].m[2], out[i].m[3]);
    if (rank == 0)
        printf("collectives: non-commutative matrix product, Reduce at every root and Allreduce: [0]={%d %d %d %d} "
               "[49]={%d %d %d %d} OK\n",
               out[0].m[0], out[0].m[1], out[0].m[2], out[0].m[3], out[49].m[0], out[49].m[1], out[49].m[2],
               out[49].m[3]);
    MPI_Scan(in, out, mn, mtype, matmul, MPI_COMM_WORLD);
    for (int i = 0; i < mn; i++)
        CHECK(memcmp(&out[i], &prefix[rank * mn + i], sizeof out[i]) == 0, "Scan matmul: [%d] = {%d %d %d %d}", i,
              out[i].m[0], out[i].m[1], out[i].m[2], out[i].m[3]);
    MPI_Exscan(in, out, mn, mtype, matmul, MPI_COMM_WORLD);
    if (rank > 0)
        for (int i = 0; i < mn; i++)
            CHECK(memcmp(&out[i], &prefix[(rank - 1) * mn + i], sizeof out[i]) == 0,
                  "Exscan matmul: [%d] = {%d %d %d %d}", i, out[i].m[0], out[i].m[1], out[i].m[2], out[i].m[3]);
    if (rank == 0) printf("collectives: non-commutative matrix product, Scan and Exscan OK\n");

    /* Reduce_local: inout = in op inout. */
    struct matrix a = matrix_input(1, 0), b = matrix_input(2, 1), ab = multiply(a, b);
    MPI_Reduce_local(&a, &b, 1, mtype, matmul);
    CHECK(memcmp(&b, &ab, sizeof b) == 0, "Reduce_local matmul: {%d %d %d %d}", b.m[0], b.m[1], b.m[2], b.m[3]);
    int x[3] = {1, -2, 3}, y[3] = {10, 20, 30};
    MPI_Reduce_local(x, y, 3, MPI_INT, MPI_SUM);
    CHECK(y[0] == 11 && y[1] == 18 && y[2] == 33, "Reduce_local SUM: %d %d %d", y[0], y[1], y[2]);
    if (rank == 0)
        printf("collectives: Reduce_local: SUM %d %d %d, matrix product {%d %d %d %d} OK\n", y[0], y[1], y[2], b.m[0],
               b.m[1], b.m[2], b.m[3]);

    MPI_Op_free(&absmax_op);
    MPI_Op_free(&matmul);
    CHECK(absmax_op == MPI_OP_NULL && matmul == MPI_OP_NULL, "Op_free did not set MPI_OP_NULL");
    if (rank == 0) printf("collectives: Op_free sets MPI_OP_NULL OK\n");
    MPI_Type_free(&mtype);
    free(in);
    free(out);
    free(prefix);
}

/* Count 0 everywhere: every collective completes and writes nothing. */
static void zero_counts(void)
{
    int in[2] = {1, 2}, out[2] = {SENTINEL, SENTINEL}, *zeros = allocate(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++) zeros[r] = 0;
    MPI_Bcast(out, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(in, out, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(in, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Gather(in, 0, MPI_INT, out, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(in, 0, MPI_INT, out, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(in, 0, MPI_INT, out, 0, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(in, 0, MPI_INT, out, 0, MPI_INT, MPI_COMM_WORLD);
    MPI_Gatherv(in, 0, MPI_INT, out, zeros, zeros, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatterv(in, zeros, zeros, MPI_INT, out, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgatherv(in, 0, MPI_INT, out, zeros, zeros, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(in, zeros, zeros, MPI_INT, out, zeros, zeros, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce_scatter(in, out, zeros, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(in, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(in, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(in, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(out[0] == SENTINEL && out[1] == SENTINEL && in[0] == 1 && in[1] == 2, "a collective of count 0 wrote data");
    free(zeros);
    if (rank == 0) printf("collectives: every collective with count 0 completes and writes nothing OK\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    barrier_and_bcast();
    zero_counts();
    int_reductions();
    double_reductions();
    loc_reductions();
    gathers_and_scatters();
    alltoalls();
    scatter_reductions_and_scans();
    user_ops();
    if (rank == 0) printf("collectives: done\n");
    MPI_Finalize();
    return 0;
}
