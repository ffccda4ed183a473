/* fp.c - the double-precision kernel of issue 16: a dense matrix multiply and conjugate-gradient iterations on a
 * sparse matrix (the 5-point Laplacian of a G x G grid, CSR), the two kinds of floating-point work of NoCMsg's
 * FPU study (its NPB codes run under software floating point; an FPU changes their computation time).
 *
 *   fp.elf [ROUNDS [split]]
 *
 * ROUNDS (default 1) repeats the work. Without `split` every rank does all of it on its own (the simulator-speed
 * benchmark of `make bench`: FP MIPS); with `split` the ranks share it through libnocmsg (rows of the product,
 * rows of the sparse matrix, dot products by allreduce) as a parallel program would (`python -m experiments fpu`).
 * Rank 0 prints checksums with printf("%.10e"), so the same source gives the same output under software floating
 * point and with an FPU: every operation is IEEE double, correctly rounded either way. */
#include <nocmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 32 /* dense matrices N x N */
#define G 24 /* sparse grid G x G: n = G*G unknowns */
#define CG_ITERATIONS 8

static double a[N][N], b[N][N], c[N][N];
static double x[G * G], r[G * G], p[G * G], q[G * G], rhs[G * G];
static int row_start[G * G + 1], cols[5 * G * G];
static double vals[5 * G * G];

/* Rows [lo, hi) of `rows` for this rank (all of them when not split). */
static void share(int rows, int split, int rank, int size, int *lo, int *hi)
{
    if (!split) {
        *lo = 0;
        *hi = rows;
        return;
    }
    *lo = (int)((long)rows * rank / size);
    *hi = (int)((long)rows * (rank + 1) / size);
}

static double matmul(int split, int rank, int size)
{
    int lo, hi;
    share(N, split, rank, size, &lo, &hi);
    for (int i = lo; i < hi; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < N; k++)
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
    double local = 0.0, total = 0.0;
    for (int i = lo; i < hi; i++)
        for (int j = 0; j < N; j++)
            local += c[i][j] * (double)(i + 2 * j + 1);
    if (split)
        nocmsg_allreduce(&local, &total, 1, NOCMSG_DOUBLE, NOCMSG_SUM, NOCMSG_COMM_WORLD);
    else
        total = local;
    return total;
}

static void build_laplacian(void)
{
    int nnz = 0;
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            int row = i * G + j;
            row_start[row] = nnz;
            const int di[5] = {-1, 0, 0, 0, 1}, dj[5] = {0, -1, 0, 1, 0};
            for (int t = 0; t < 5; t++) {
                int ii = i + di[t], jj = j + dj[t];
                if (ii < 0 || ii >= G || jj < 0 || jj >= G)
                    continue;
                cols[nnz] = ii * G + jj;
                vals[nnz++] = t == 2 ? 4.0 : -1.0;
            }
            rhs[row] = 1.0 / (1.0 + row);
        }
    row_start[G * G] = nnz;
}

static double dot(const double *u, const double *v, int lo, int hi, int split)
{
    double local = 0.0, total;
    for (int i = lo; i < hi; i++)
        local += u[i] * v[i];
    if (!split)
        return local;
    nocmsg_allreduce(&local, &total, 1, NOCMSG_DOUBLE, NOCMSG_SUM, NOCMSG_COMM_WORLD);
    return total;
}

/* q = A p on rows [lo, hi); with `split` every rank then gets the whole of p for the next product. */
static void spmv(int lo, int hi)
{
    for (int i = lo; i < hi; i++) {
        double s = 0.0;
        for (int k = row_start[i]; k < row_start[i + 1]; k++)
            s += vals[k] * p[cols[k]];
        q[i] = s;
    }
}

/* The full vector v from every rank's rows (allgatherv of the shares). */
static void gather(double *v, int split, int size)
{
    if (!split)
        return;
    static int counts[4096], displs[4096];
    for (int k = 0; k < size; k++) {
        int lo, hi;
        share(G * G, 1, k, size, &lo, &hi);
        counts[k] = hi - lo;
        displs[k] = lo;
    }
    nocmsg_allgatherv(NOCMSG_IN_PLACE, 0, NOCMSG_DOUBLE, v, counts, displs, NOCMSG_DOUBLE, NOCMSG_COMM_WORLD);
}

static double conjugate_gradient(int split, int rank, int size)
{
    int lo, hi, n = G * G;
    share(n, split, rank, size, &lo, &hi);
    memset(x, 0, sizeof x);
    memcpy(r, rhs, sizeof r);
    memcpy(p, rhs, sizeof p);
    double rr = dot(r, r, lo, hi, split);
    for (int it = 0; it < CG_ITERATIONS; it++) {
        spmv(lo, hi);
        double alpha = rr / dot(p, q, lo, hi, split);
        for (int i = lo; i < hi; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        double rr_new = dot(r, r, lo, hi, split);
        double beta = rr_new / rr;
        rr = rr_new;
        for (int i = lo; i < hi; i++)
            p[i] = r[i] + beta * p[i];
        gather(p, split, size);
    }
    return rr;
}

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    int rank = nocmsg_rank(), size = nocmsg_size();
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    int split = argc > 2 && strcmp(argv[2], "split") == 0;
    if (rounds < 1 || rounds > 100000 || size > 4096) {
        if (rank == 0)
            fprintf(stderr, "usage: fp.elf [ROUNDS (1..100000) [split]] on at most 4096 ranks\n");
        nocmsg_finalize();
        return 2;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = (double)((i * 7 + j * 3) % 17) / 8.0 - 1.0;
            b[i][j] = 1.0 / (1.0 + i + j);
        }
    build_laplacian();
    double sum_mm = 0.0, residual = 0.0;
    for (int k = 0; k < rounds; k++) {
        sum_mm = matmul(split, rank, size);
        residual = conjugate_gradient(split, rank, size);
    }
    if (rank == 0)
        printf("matmul checksum %.10e, cg residual %.10e\n", sum_mm, residual);
    nocmsg_finalize();
    return 0;
}
