/* cg.c: NAS Conjugate Gradient (CG), our own MPI implementation from the specification: the inverse power method
 * for the smallest eigenvalue of a random sparse symmetric positive definite matrix, each step solving A z = x
 * with 25 iterations of unpreconditioned conjugate gradient.
 *
 *     cg CLASS      S: NA = 1400, NONZER = 7, SHIFT = 10;  W: 7000, 8, 12;  A: 14000, 11, 20  (NITER = 15 each)
 *     cg weak N     N rows per rank (NA = N x ranks), NONZER = 8, SHIFT = 12, NITER = 15
 *
 * The matrix (RNR-94-007, the CG kernel, and NPB's makea/sprnvc/vecset/sparse): after one draw of the NAS generator
 * (seed 314159265, a = 5^13), for i = 0..NA-1 a sparse vector v_i gets NONZER distinct random positions (draw a
 * value, then a position: floor(2^ceil(log2 NA) r) + 1, redrawn when beyond NA or already taken) and element i set
 * to 0.5 (added if absent); A = sum_i size_i v_i v_i^T + (RCOND - SHIFT) I with size_0 = 1, size_{i+1} = size_i
 * RCOND^(1/NA), RCOND = 0.1. Duplicate entries add up in the order of i, as in NPB.
 *
 * Iteration (15 times, timed; one untimed round first, as NPB): z = A^-1 x by 25 CG iterations, rnorm = |x - A z|,
 * zeta = SHIFT + 1 / (x . z), x = z / |z|. Verified: |zeta - zeta_ref| / zeta_ref <= 1e-10 with the official zeta of
 * the last iteration (S 8.5971775078648, W 10.362595087124, A 17.130235054029: NPB 3's cg verification values).
 * Weak runs have no official zeta: they check that every CG solve reached rnorm <= 1e-8 |x| and zeta is finite.
 *
 * Decomposition (as NPB's MPI CG): a grid of npr x npc ranks, npr the largest number with npr^2 dividing the rank
 * count, npc = m npr (a power of two count gives npc = npr or 2 npr; any other count may give npr = 1, a 1-D column
 * decomposition). Rank (i, j) holds the block of A with the rows of row block i (NA / npr rows) and the columns of
 * column block j (NA / npc columns); row block i is column blocks m i .. m i + m - 1. Every vector is held by column
 * block: rank (i, j) holds the elements of column block j (each is on npr ranks).
 * Communication per product q = A p: each rank multiplies its block by its part of p, giving partial sums for the
 * rows of row block i; MPI_Allreduce over the ranks of grid row i (a row communicator) completes them, and a
 * transpose exchange (MPI_Sendrecv) with rank (j / m, m i + j mod m) hands each rank the column block it holds.
 * With npr = 1 the two are one MPI_Reduce_scatter. Dot products: a local sum over the column block and MPI_Allreduce
 * over the grid row, whose ranks hold every column block once.
 *
 * Ranks: any number up to NA (the rows and columns need not divide evenly). */
#include <math.h>

#include "npbrun.h"

#define CG_ITERATIONS 25
#define RCOND 0.1
#define WEAK_RNORM_BOUND 1e-8

struct cg_class {
    char cls;
    int na, nonzer, niter;
    double shift, zeta_ref;
};

static const struct cg_class classes[] = {
    {'S', 1400, 7, 15, 10.0, 8.5971775078648},
    {'W', 7000, 8, 15, 12.0, 10.362595087124},
    {'A', 14000, 11, 15, 20.0, 17.130235054029},
};

/* One rank's part of the problem. */
struct cg {
    int na, me, p;
    int npr, npc, m, row, col;  /* grid and my place in it */
    long row_lo, nrows;         /* my rows: row block `row` */
    long col_lo, ncols;         /* my columns: column block `col` */
    MPI_Comm row_comm;          /* the ranks of my grid row */
    int partner;                /* transpose partner (may be me) */
    long send_off, send_len;    /* what of my row block's sums the partner needs */
    int *scatter_counts;        /* 1-D grid: column block sizes, for MPI_Reduce_scatter */
    /* my block of A, compressed rows, local column indices */
    long *rowstart;
    int *colidx;
    double *val;
    double *w, *wsum;           /* partial and complete sums for my rows */
};

static long block_lo(long n, int parts, int k) { return n * k / parts; }

/* The grid for p ranks: npr the largest number whose square divides p, npc = p / npr. */
static void make_grid(struct cg *c)
{
    c->npr = 1;
    for (int r = 1; (long)r * r <= c->p; r++)
        if (c->p % (r * r) == 0)
            c->npr = r;
    c->npc = c->p / c->npr;
    c->m = c->npc / c->npr;
    c->row = c->me / c->npc;
    c->col = c->me % c->npc;
    c->row_lo = block_lo(c->na, c->npr, c->row);
    c->nrows = block_lo(c->na, c->npr, c->row + 1) - c->row_lo;
    c->col_lo = block_lo(c->na, c->npc, c->col);
    c->ncols = block_lo(c->na, c->npc, c->col + 1) - c->col_lo;
    MPI_Comm_split(MPI_COMM_WORLD, c->row, c->col, &c->row_comm);
    /* Rank (i, j) sends column block m i + j mod m (part of its row block i) to (j / m, m i + j mod m), which holds
     * that block, and receives its own column block j (part of row block j / m) from the same rank. */
    int prow = c->col / c->m, pcol = c->m * c->row + c->col % c->m;
    c->partner = prow * c->npc + pcol;
    c->send_off = block_lo(c->na, c->npc, pcol) - c->row_lo;
    c->send_len = block_lo(c->na, c->npc, pcol + 1) - block_lo(c->na, c->npc, pcol);
    if (c->npr == 1) {
        c->scatter_counts = npb_alloc((size_t)c->npc * sizeof(int), "counts");
        for (int k = 0; k < c->npc; k++)
            c->scatter_counts[k] = (int)(block_lo(c->na, c->npc, k + 1) - block_lo(c->na, c->npc, k));
    }
}

/* NPB's sprnvc + vecset for outer index i: nonzer distinct random positions (0-based) with random values, then
 * position i set to 0.5. Returns the number of elements. */
static int sparse_vector(int na, int nonzer, int nn1, int i, uint64_t *tran, int *pos, double *v)
{
    int nzv = 0;
    while (nzv < nonzer) {
        double value = npb_randlc(tran, NPB_A);
        double where = npb_randlc(tran, NPB_A);
        int k = (int)(nn1 * where); /* 0-based: NPB's icnvrt(where, nn1) + 1, minus 1 */
        if (k >= na)
            continue;
        int taken = 0;
        for (int e = 0; e < nzv; e++)
            if (pos[e] == k)
                taken = 1;
        if (taken)
            continue;
        pos[nzv] = k;
        v[nzv] = value;
        nzv++;
    }
    for (int e = 0; e < nzv; e++)
        if (pos[e] == i) {
            v[e] = 0.5;
            return nzv;
        }
    pos[nzv] = i;
    v[nzv] = 0.5;
    return nzv + 1;
}

/* Builds my block of A. Every rank draws all NA vectors (the generator is one sequence) and keeps the products
 * that fall in its block. */
static void make_matrix(struct cg *c, int nonzer, double shift)
{
    int na = c->na, width = nonzer + 1;
    int nn1 = 1;
    do
        nn1 *= 2;
    while (nn1 < na);
    int *count = npb_alloc((size_t)na * sizeof(int), "vector sizes");
    int *pos = npb_alloc((size_t)na * width * sizeof(int), "vector positions");
    double *v = npb_alloc((size_t)na * width * sizeof(double), "vector values");
    uint64_t tran = NPB_SEED;
    npb_randlc(&tran, NPB_A); /* NPB draws zeta once before makea */
    for (int i = 0; i < na; i++)
        count[i] = sparse_vector(na, nonzer, nn1, i, &tran, pos + (long)i * width, v + (long)i * width);

    /* Pass 1: how many products land in each of my rows. */
    long *rowstart = npb_zalloc((size_t)(c->nrows + 1) * sizeof(long), "row starts");
    for (int i = 0; i < na; i++) {
        const int *pi = pos + (long)i * width;
        for (int a = 0; a < count[i]; a++) {
            long r = pi[a] - c->row_lo;
            if (r < 0 || r >= c->nrows)
                continue;
            for (int b = 0; b < count[i]; b++)
                if (pi[b] >= c->col_lo && pi[b] < c->col_lo + c->ncols)
                    rowstart[r + 1]++;
        }
    }
    for (long r = 0; r < c->nrows; r++)
        rowstart[r + 1] += rowstart[r];
    long nprod = rowstart[c->nrows];
    int *col = npb_alloc((size_t)nprod * sizeof(int), "columns");
    double *val = npb_alloc((size_t)nprod * sizeof(double), "values");
    long *fill = npb_alloc((size_t)(c->nrows + 1) * sizeof(long), "row fill");
    memcpy(fill, rowstart, (size_t)(c->nrows + 1) * sizeof(long));

    /* Pass 2: the products, in the order of i, with the diagonal shift where NPB adds it. */
    double size = 1.0, ratio = pow(RCOND, 1.0 / (double)na);
    for (int i = 0; i < na; i++) {
        const int *pi = pos + (long)i * width;
        const double *vi = v + (long)i * width;
        for (int a = 0; a < count[i]; a++) {
            long r = pi[a] - c->row_lo;
            if (r < 0 || r >= c->nrows)
                continue;
            double scale = size * vi[a];
            for (int b = 0; b < count[i]; b++) {
                if (pi[b] < c->col_lo || pi[b] >= c->col_lo + c->ncols)
                    continue;
                double value = vi[b] * scale;
                if (pi[a] == i && pi[b] == i)
                    value = value + RCOND - shift;
                col[fill[r]] = (int)(pi[b] - c->col_lo);
                val[fill[r]] = value;
                fill[r]++;
            }
        }
        size *= ratio;
    }

    /* Each row: sort by column (stable, so equal columns keep the order of i) and add up duplicates. */
    long out = 0;
    for (long r = 0; r < c->nrows; r++) {
        long s = rowstart[r], e = rowstart[r + 1];
        for (long k = s + 1; k < e; k++) {
            int kc = col[k];
            double kv = val[k];
            long t = k;
            while (t > s && col[t - 1] > kc) {
                col[t] = col[t - 1];
                val[t] = val[t - 1];
                t--;
            }
            col[t] = kc;
            val[t] = kv;
        }
        rowstart[r] = out;
        for (long k = s; k < e; k++) {
            if (k > s && col[k] == col[k - 1]) {
                val[out - 1] += val[k];
                continue;
            }
            col[out] = col[k];
            val[out] = val[k];
            out++;
        }
    }
    rowstart[c->nrows] = out;
    c->rowstart = rowstart;
    c->colidx = col;
    c->val = val;
    free(fill);
    free(count);
    free(pos);
    free(v);
}

/* The dot product of two vectors held by column block. */
static double dot(const struct cg *c, const double *a, const double *b)
{
    double local = 0.0, sum;
    for (long k = 0; k < c->ncols; k++)
        local += a[k] * b[k];
    NPB_COMM(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, c->row_comm));
    return sum;
}

/* q = A p, both held by column block. */
static void matvec(struct cg *c, const double *p, double *q)
{
    for (long r = 0; r < c->nrows; r++) {
        double s = 0.0;
        for (long k = c->rowstart[r]; k < c->rowstart[r + 1]; k++)
            s += c->val[k] * p[c->colidx[k]];
        c->w[r] = s;
    }
    if (c->p == 1) {
        memcpy(q, c->w, (size_t)c->ncols * sizeof(double));
        return;
    }
    if (c->npr == 1) {
        NPB_COMM(MPI_Reduce_scatter(c->w, q, c->scatter_counts, MPI_DOUBLE, MPI_SUM, c->row_comm));
        return;
    }
    NPB_COMM(MPI_Allreduce(c->w, c->wsum, (int)c->nrows, MPI_DOUBLE, MPI_SUM, c->row_comm));
    if (c->partner == c->me)
        memcpy(q, c->wsum + c->send_off, (size_t)c->ncols * sizeof(double));
    else
#ifdef NPB_XCHG
        NPB_COMM(npb_xchg(c->wsum + c->send_off, (size_t)c->send_len * sizeof(double), q,
                          (size_t)c->ncols * sizeof(double), c->partner));
#else
        NPB_COMM(MPI_Sendrecv(c->wsum + c->send_off, (int)c->send_len, MPI_DOUBLE, c->partner, 1, q,
                              (int)c->ncols, MPI_DOUBLE, c->partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
#endif
}

/* Work vectors of the solver. */
struct cg_vectors {
    double *x, *z, *p, *q, *r;
};

/* z = A^-1 x by 25 CG iterations from z = 0; returns |x - A z|. */
static double conj_grad(struct cg *c, struct cg_vectors *v)
{
    long n = c->ncols;
    for (long k = 0; k < n; k++) {
        v->q[k] = 0.0;
        v->z[k] = 0.0;
        v->r[k] = v->x[k];
        v->p[k] = v->r[k];
    }
    double rho = dot(c, v->r, v->r);
    for (int it = 0; it < CG_ITERATIONS; it++) {
        matvec(c, v->p, v->q);
        double alpha = rho / dot(c, v->p, v->q);
        double rho0 = rho;
        for (long k = 0; k < n; k++) {
            v->z[k] += alpha * v->p[k];
            v->r[k] -= alpha * v->q[k];
        }
        rho = dot(c, v->r, v->r);
        double beta = rho / rho0;
        for (long k = 0; k < n; k++)
            v->p[k] = v->r[k] + beta * v->p[k];
    }
    /* The residual of the solve, in r. */
    matvec(c, v->z, v->r);
    double local = 0.0, sum;
    for (long k = 0; k < n; k++) {
        double d = v->x[k] - v->r[k];
        local += d * d;
    }
    NPB_COMM(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, c->row_comm));
    return sqrt(sum);
}

/* One step of the power method: zeta from x and z, then x = z / |z|. */
static double next_x(struct cg *c, struct cg_vectors *v, double shift)
{
    double local[2] = {0.0, 0.0}, sum[2];
    for (long k = 0; k < c->ncols; k++) {
        local[0] += v->x[k] * v->z[k];
        local[1] += v->z[k] * v->z[k];
    }
    NPB_COMM(MPI_Allreduce(local, sum, 2, MPI_DOUBLE, MPI_SUM, c->row_comm));
    double inv_norm = 1.0 / sqrt(sum[1]);
    for (long k = 0; k < c->ncols; k++)
        v->x[k] = inv_norm * v->z[k];
    return shift + 1.0 / sum[0];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct npb_args args;
    struct cg c;
    memset(&c, 0, sizeof c);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.me);
    MPI_Comm_size(MPI_COMM_WORLD, &c.p);
    if (!npb_parse_args(argc, argv, &args))
        return npb_usage("usage: cg CLASS (S, W or A) | cg weak ROWS_PER_RANK");
    struct cg_class k = {'w', 0, 8, 15, 12.0, 0.0};
    if (args.cls == 'w') {
        if (args.weak_n < 2 || args.weak_n * c.p > 4000000)
            return npb_usage("cg: weak: 2 to 4000000 / ranks rows per rank");
        k.na = (int)(args.weak_n * c.p);
    } else {
        for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
            if (classes[i].cls == args.cls)
                k = classes[i];
    }
    c.na = k.na;
    if (c.p > c.na)
        return npb_usage("cg: at most NA = %d ranks", c.na);
    make_grid(&c);
    make_matrix(&c, k.nonzer, k.shift);
    c.w = npb_alloc((size_t)c.nrows * sizeof(double), "row sums");
    c.wsum = npb_alloc((size_t)c.nrows * sizeof(double), "row sums");
    struct cg_vectors v;
    size_t bytes = (size_t)c.ncols * sizeof(double);
    v.x = npb_alloc(bytes, "x");
    v.z = npb_alloc(bytes, "z");
    v.p = npb_alloc(bytes, "p");
    v.q = npb_alloc(bytes, "q");
    v.r = npb_alloc(bytes, "r");

    /* One untimed round (NPB: touches every page and the code), then x = 1 again. */
    for (long i = 0; i < c.ncols; i++)
        v.x[i] = 1.0;
    conj_grad(&c, &v);
    next_x(&c, &v, k.shift);
    for (long i = 0; i < c.ncols; i++)
        v.x[i] = 1.0;

    double zeta = 0.0, worst_rnorm = 0.0; /* worst: rnorm / |x| */
    double *rnorms = npb_alloc((size_t)k.niter * sizeof(double), "rnorms");
    double *zetas = npb_alloc((size_t)k.niter * sizeof(double), "zetas");
    struct npb_timer timer;
    npb_timer_start(&timer);
    for (int it = 1; it <= k.niter; it++) {
        double xnorm = it == 1 ? sqrt((double)c.na) : 1.0; /* x = 1 at first, then of unit length */
        double rnorm = conj_grad(&c, &v);
        zeta = next_x(&c, &v, k.shift);
        if (rnorm / xnorm > worst_rnorm || rnorm != rnorm)
            worst_rnorm = rnorm / xnorm;
        rnorms[it - 1] = rnorm;
        zetas[it - 1] = zeta;
    }
    npb_timer_stop(&timer);
    for (int it = 1; it <= k.niter && c.me == 0; it++)
        npb_note("cg: iteration %2d rnorm %.13e zeta %.13e\n", it, rnorms[it - 1], zetas[it - 1]);

    char why[160] = "";
    int ok;
    if (args.cls == 'w') {
        ok = worst_rnorm <= WEAK_RNORM_BOUND && isfinite(zeta);
        if (!ok)
            snprintf(why, sizeof why, "rnorm / |x| reached %.3e (bound %.0e) zeta %.6e", worst_rnorm,
                     WEAK_RNORM_BOUND, zeta);
    } else {
        double err = fabs(zeta - k.zeta_ref) / k.zeta_ref;
        ok = err <= 1e-10;
        if (!ok)
            snprintf(why, sizeof why, "zeta %.13e instead of %.13e (relative error %.2e)", zeta, k.zeta_ref, err);
    }
    int status = npb_report("cg", args.label, &timer, ok, why);
    free(rnorms);
    free(zetas);
    free(v.x);
    free(v.z);
    free(v.p);
    free(v.q);
    free(v.r);
    free(c.w);
    free(c.wsum);
    free(c.rowstart);
    free(c.colidx);
    free(c.val);
    free(c.scatter_counts);
    MPI_Comm_free(&c.row_comm);
    MPI_Finalize();
    return status;
}
