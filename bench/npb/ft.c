/* ft.c: NAS 3-D FFT PDE solver (FT), our own MPI implementation from the specification: solves the diffusion
 * equation du/dt = alpha laplacian(u) on a periodic nx x ny x nz grid spectrally.
 *
 *     ft CLASS      S: 64 x 64 x 64;  W: 128 x 128 x 32;  A: 256 x 256 x 128  (6 time steps each)
 *     ft weak N     N planes per rank: 64 x max(64, ranks) x (N ranks), 6 time steps; N x ranks a power of two
 *
 * The problem (RNR-94-007, the FT kernel; NPB 3 ft): U0(x, y, z) = r[2m+1] + i r[2m+2], m = x + nx (y + ny z), r the
 * NAS generator (seed 314159265, a = 5^13), x varying fastest. V = DFT(U0) (3-D, unnormalised), then for t = 1..6:
 * W_t(k) = exp(-4 pi^2 alpha t |kbar|^2) V(k) with alpha = 1e-6 and kbar the wavenumber folded into [-n/2, n/2),
 * X_t = inverse DFT(W_t) (unnormalised), and the checksum sum_{j=1..1024} X_t(j mod nx, 3j mod ny, 5j mod nz) /
 * (nx ny nz). The exponential is the product of one factor per dimension, computed for each t (nx + ny + nz calls of
 * exp per step), so V itself is kept. The sign convention of the transform does not change the checksums (the
 * factor is even in k). Verified: each of the 6 checksums within a relative 1e-12 (complex modulus) of the official
 * values (NPB 3's ft verify tables for classes S, W and A). Weak runs have no official values: after timing they
 * check that the inverse transform of V, divided by nx ny nz, is U0 within 1e-10 in every element.
 *
 * The transforms: our own iterative radix-2 complex FFT (bit reversal, then log2 n butterfly stages, twiddles from
 * one table of exp(-2 pi i k / n) per length), applied to every line of each dimension.
 *
 * Decomposition: 1-D slabs. Layout A (initial conditions, x and y transforms, checksums): rank r holds the planes
 * z in [r nz/p, (r+1) nz/p), stored [z][y][x]. Layout B (z transforms, the evolution): rank r holds y in
 * [r ny/p, (r+1) ny/p), stored [y][x][z], so z lines are contiguous. A -> B after the forward x and y transforms, and
 * B -> A before the inverse y and x transforms, are each one MPI_Alltoall of equal blocks (packed by destination,
 * unpacked into place), and MPI_Allreduce sums the checksum. Timed: the forward transform and the six steps (as NPB).
 *
 * Ranks: a power of two dividing ny and nz (S: up to 64, W: up to 32, A: up to 128). */
#include <math.h>

#include "npbrun.h"

#define ALPHA 1e-6
#define STEPS 6
#define CHECKSUM_EPS 1e-12
#define ROUNDTRIP_EPS 1e-10

typedef struct {
    double re, im;
} cplx;

struct ft_class {
    char cls;
    int nx, ny, nz;
    double ref_re[STEPS], ref_im[STEPS];
};

static const struct ft_class classes[] = {
    {'S', 64, 64, 64,
     {5.546087004964e+02, 5.546385409189e+02, 5.546148406171e+02, 5.545423607415e+02, 5.544255039624e+02,
      5.542683411902e+02},
     {4.845363331978e+02, 4.865304269511e+02, 4.883910722336e+02, 4.901273169046e+02, 4.917475857993e+02,
      4.932597244941e+02}},
    {'W', 128, 128, 32,
     {5.673612178944e+02, 5.631436885271e+02, 5.594024089970e+02, 5.560698047020e+02, 5.530898991250e+02,
      5.504159734538e+02},
     {5.293246849175e+02, 5.282149986629e+02, 5.270996558037e+02, 5.260027904925e+02, 5.249400845633e+02,
      5.239212247086e+02}},
    {'A', 256, 256, 128,
     {5.046735008193e+02, 5.059412319734e+02, 5.069376896287e+02, 5.077892868474e+02, 5.085233095391e+02,
      5.091487099959e+02},
     {5.114047905510e+02, 5.098809666433e+02, 5.098144042213e+02, 5.101336130759e+02, 5.104914655194e+02,
      5.107917842803e+02}},
};

/* ---- The 1-D FFT ---- */

struct fft_plan {
    int n;
    int *rev;    /* bit-reversed index */
    cplx *root;  /* root[k] = exp(-2 pi i k / n), k < n / 2 */
};

static void plan_init(struct fft_plan *pl, int n)
{
    int logn = npb_log2(n);
    pl->n = n;
    pl->rev = npb_alloc((size_t)n * sizeof(int), "fft plan");
    pl->root = npb_alloc((size_t)(n / 2 + 1) * sizeof(cplx), "fft plan");
    for (int i = 0; i < n; i++) {
        int r = 0;
        for (int b = 0; b < logn; b++)
            if (i & (1 << b))
                r |= 1 << (logn - 1 - b);
        pl->rev[i] = r;
    }
    const double two_pi = 8.0 * atan(1.0);
    for (int k = 0; k < n / 2; k++) {
        double angle = two_pi * k / n;
        pl->root[k].re = cos(angle);
        pl->root[k].im = -sin(angle);
    }
}

/* In-place unnormalised DFT of a[0..n): sign -1 (forward, exp(-2 pi i jk/n)) or +1 (inverse). */
static void fft(const struct fft_plan *pl, cplx *a, int sign)
{
    int n = pl->n;
    for (int i = 0; i < n; i++) {
        int j = pl->rev[i];
        if (i < j) {
            cplx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int half = len / 2, step = n / len;
        for (int k = 0; k < half; k++) {
            double wr = pl->root[k * step].re, wi = sign < 0 ? pl->root[k * step].im : -pl->root[k * step].im;
            for (int s = 0; s < n; s += len) {
                cplx *u = a + s + k, *v = u + half;
                double tr = v->re * wr - v->im * wi, ti = v->re * wi + v->im * wr;
                v->re = u->re - tr;
                v->im = u->im - ti;
                u->re += tr;
                u->im += ti;
            }
        }
    }
}

/* ---- The distributed 3-D transform ---- */

struct ft {
    int me, p;
    int nx, ny, nz, nzl, nyl;  /* grid; planes per rank in layout A (z) and B (y) */
    long npts;                 /* points per rank */
    struct fft_plan px, py, pz;
    cplx *line;                /* one strided line, gathered */
    cplx *V, *W, *buf;         /* spectrum (B), work, transpose buffer */
};

/* x and y transforms of a layout-A array. */
static void fft_xy(struct ft *f, cplx *a, int sign)
{
    for (int zl = 0; zl < f->nzl; zl++) {
        cplx *plane = a + (long)zl * f->ny * f->nx;
        for (int y = 0; y < f->ny; y++)
            fft(&f->px, plane + (long)y * f->nx, sign);
        for (int x = 0; x < f->nx; x++) {
            for (int y = 0; y < f->ny; y++)
                f->line[y] = plane[(long)y * f->nx + x];
            fft(&f->py, f->line, sign);
            for (int y = 0; y < f->ny; y++)
                plane[(long)y * f->nx + x] = f->line[y];
        }
    }
}

/* z transforms of a layout-B array. */
static void fft_z(struct ft *f, cplx *b, int sign)
{
    for (long l = 0; l < (long)f->nyl * f->nx; l++)
        fft(&f->pz, b + l * f->nz, sign);
}

static void alltoall(struct ft *f, cplx *send, cplx *recv)
{
    int block = (int)(2 * f->npts / f->p); /* doubles per rank pair */
#ifdef NPB_XCHG
    int done = 0;
    NPB_COMM(done = npb_xchg_alltoall(send, recv, (size_t)block * sizeof(double)));
    if (done)
        return;
#endif
    NPB_COMM(MPI_Alltoall(send, block, MPI_DOUBLE, recv, block, MPI_DOUBLE, MPI_COMM_WORLD));
}

/* Layout A in `a` -> layout B in `b` (packed into buf; `a` receives the blocks, so it is overwritten). */
static void transpose_ab(struct ft *f, cplx *a, cplx *b)
{
    long blk = f->npts / f->p;
    int nx = f->nx, ny = f->ny, nz = f->nz, nyl = f->nyl, nzl = f->nzl;
    /* block for rank s: [zl][yl][x] with y in s's range */
    for (int s = 0; s < f->p; s++)
        for (int zl = 0; zl < nzl; zl++)
            for (int yl = 0; yl < nyl; yl++)
                memcpy(f->buf + s * blk + ((long)zl * nyl + yl) * nx, a + ((long)zl * ny + s * nyl + yl) * nx,
                       (size_t)nx * sizeof(cplx));
    alltoall(f, f->buf, a);
    /* block from rank r holds z in r's range */
    for (int r = 0; r < f->p; r++) {
        const cplx *in = a + r * blk;
        for (int zl = 0; zl < nzl; zl++)
            for (int yl = 0; yl < nyl; yl++)
                for (int x = 0; x < nx; x++)
                    b[((long)yl * nx + x) * nz + r * nzl + zl] = in[((long)zl * nyl + yl) * nx + x];
    }
}

/* Layout B in `b` -> layout A in `a` (packed into buf; `b` receives the blocks; `a` may be buf). */
static void transpose_ba(struct ft *f, cplx *b, cplx *a)
{
    long blk = f->npts / f->p;
    int nx = f->nx, ny = f->ny, nz = f->nz, nyl = f->nyl, nzl = f->nzl;
    /* block for rank s: [yl][x][zl] with z in s's range */
    for (int s = 0; s < f->p; s++)
        for (long l = 0; l < (long)nyl * nx; l++)
            memcpy(f->buf + s * blk + l * nzl, b + l * nz + (long)s * nzl, (size_t)nzl * sizeof(cplx));
    alltoall(f, f->buf, b);
    for (int r = 0; r < f->p; r++) {
        const cplx *in = b + r * blk;
        for (int yl = 0; yl < nyl; yl++)
            for (int x = 0; x < nx; x++)
                for (int zl = 0; zl < nzl; zl++)
                    a[((long)zl * ny + r * nyl + yl) * nx + x] = in[((long)yl * nx + x) * nzl + zl];
    }
}

/* U0 for my planes, in layout A. */
static void initial_conditions(struct ft *f, cplx *a)
{
    long z0 = (long)f->me * f->nzl;
    uint64_t x = (NPB_SEED * npb_pow46(NPB_A, 2 * (uint64_t)f->nx * f->ny * z0)) & NPB_MASK46;
    for (long i = 0; i < f->npts; i++) {
        a[i].re = npb_randlc(&x, NPB_A);
        a[i].im = npb_randlc(&x, NPB_A);
    }
}

/* exp(-4 pi^2 alpha t kbar^2) for k = 0..n-1. */
static void evolve_factors(double *e, int n, int t)
{
    const double pi = 4.0 * atan(1.0);
    for (int k = 0; k < n; k++) {
        int kbar = k < n / 2 ? k : k - n;
        e[k] = exp(-4.0 * pi * pi * ALPHA * t * (double)kbar * (double)kbar);
    }
}

/* The checksum of a layout-A array (summed over all ranks). */
static cplx checksum(struct ft *f, const cplx *a)
{
    double local[2] = {0.0, 0.0}, sum[2];
    long z0 = (long)f->me * f->nzl;
    for (long j = 1; j <= 1024; j++) {
        long q = j % f->nx, r = 3 * j % f->ny, s = 5 * j % f->nz;
        if (s >= z0 && s < z0 + f->nzl) {
            const cplx *e = a + ((s - z0) * f->ny + r) * f->nx + q;
            local[0] += e->re;
            local[1] += e->im;
        }
    }
    NPB_COMM(MPI_Allreduce(local, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    double total = (double)f->nx * f->ny * f->nz;
    cplx c = {sum[0] / total, sum[1] / total};
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct npb_args args;
    struct ft f;
    memset(&f, 0, sizeof f);
    MPI_Comm_rank(MPI_COMM_WORLD, &f.me);
    MPI_Comm_size(MPI_COMM_WORLD, &f.p);
    if (!npb_parse_args(argc, argv, &args))
        return npb_usage("usage: ft CLASS (S, W or A) | ft weak PLANES_PER_RANK");
    const struct ft_class *k = NULL;
    if (args.cls == 'w') {
        if (!npb_is_pow2(f.p) || !npb_is_pow2(args.weak_n) || args.weak_n * f.p > 65536)
            return npb_usage("ft: weak: ranks and planes per rank must be powers of two, at most 65536 planes in all");
        f.nx = 64;
        f.ny = f.p > 64 ? f.p : 64;
        f.nz = (int)(args.weak_n * f.p);
    } else {
        for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
            if (classes[i].cls == args.cls)
                k = &classes[i];
        f.nx = k->nx;
        f.ny = k->ny;
        f.nz = k->nz;
    }
    if (!npb_is_pow2(f.p) || f.ny % f.p || f.nz % f.p)
        return npb_usage("ft: the rank count must be a power of two dividing %d and %d, not %d", f.ny, f.nz, f.p);
    f.nzl = f.nz / f.p;
    f.nyl = f.ny / f.p;
    f.npts = (long)f.nx * f.ny * f.nzl;
    plan_init(&f.px, f.nx);
    plan_init(&f.py, f.ny);
    plan_init(&f.pz, f.nz);
    size_t bytes = (size_t)f.npts * sizeof(cplx);
    f.V = npb_alloc(bytes, "spectrum");
    f.W = npb_alloc(bytes, "work array");
    f.buf = npb_alloc(bytes, "transpose buffer");
    f.line = npb_alloc((size_t)f.ny * sizeof(cplx), "line");
    double *ex = npb_alloc((size_t)f.nx * sizeof(double), "factors");
    double *ey = npb_alloc((size_t)f.ny * sizeof(double), "factors");
    double *ez = npb_alloc((size_t)f.nz * sizeof(double), "factors");
    initial_conditions(&f, f.W);

    cplx sums[STEPS];
    struct npb_timer timer;
    npb_timer_start(&timer);
    /* V = DFT(U0): x and y in layout A, z in layout B. */
    fft_xy(&f, f.W, -1);
    transpose_ab(&f, f.W, f.V);
    fft_z(&f, f.V, -1);
    for (int t = 1; t <= STEPS; t++) {
        /* W = V exp(-4 pi^2 alpha t |kbar|^2) in layout B; inverse z transforms there, then back to layout A (in
         * buf) for the inverse y and x transforms and the checksum. */
        evolve_factors(ex, f.nx, t);
        evolve_factors(ey, f.ny, t);
        evolve_factors(ez, f.nz, t);
        for (int yl = 0; yl < f.nyl; yl++) {
            double fy = ey[f.me * f.nyl + yl];
            for (int x = 0; x < f.nx; x++) {
                double fxy = ex[x] * fy;
                long l = ((long)yl * f.nx + x) * f.nz;
                for (int z = 0; z < f.nz; z++) {
                    double e = fxy * ez[z];
                    f.W[l + z].re = f.V[l + z].re * e;
                    f.W[l + z].im = f.V[l + z].im * e;
                }
            }
        }
        fft_z(&f, f.W, +1);
        transpose_ba(&f, f.W, f.buf);
        fft_xy(&f, f.buf, +1);
        sums[t - 1] = checksum(&f, f.buf);
    }
    npb_timer_stop(&timer);

    int ok = 1;
    char why[160] = "";
    for (int t = 0; t < STEPS; t++) {
        if (f.me == 0)
            npb_note("ft: T = %d checksum %.12e %.12e\n", t + 1, sums[t].re, sums[t].im);
        if (k) {
            double dr = sums[t].re - k->ref_re[t], di = sums[t].im - k->ref_im[t];
            double err = sqrt((dr * dr + di * di) / (k->ref_re[t] * k->ref_re[t] + k->ref_im[t] * k->ref_im[t]));
            if (ok && !(err <= CHECKSUM_EPS)) {
                ok = 0;
                snprintf(why, sizeof why, "checksum %d is %.12e%+.12ei (relative error %.2e)", t + 1, sums[t].re,
                         sums[t].im, err);
            }
        }
    }
    if (!k) {
        /* Weak: the inverse of V / N must give U0 back. */
        memcpy(f.W, f.V, bytes);
        fft_z(&f, f.W, +1);
        transpose_ba(&f, f.W, f.buf);
        fft_xy(&f, f.buf, +1);
        initial_conditions(&f, f.V);
        double total = (double)f.nx * f.ny * f.nz, worst = 0.0, all;
        for (long i = 0; i < f.npts; i++) {
            double d = fmax(fabs(f.buf[i].re / total - f.V[i].re), fabs(f.buf[i].im / total - f.V[i].im));
            if (!(d <= worst))
                worst = d;
        }
        MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (f.me == 0)
            npb_note("ft: inverse(forward(U0)) / N - U0: at most %.3e\n", all);
        if (!(all <= ROUNDTRIP_EPS)) {
            ok = 0;
            snprintf(why, sizeof why, "inverse(forward(U0)) differs from U0 by %.3e", all);
        }
    }
    int status = npb_report("ft", args.label, &timer, ok, why);
    struct fft_plan *plans[3] = {&f.px, &f.py, &f.pz};
    for (int d = 0; d < 3; d++) {
        free(plans[d]->rev);
        free(plans[d]->root);
    }
    free(f.V);
    free(f.W);
    free(f.buf);
    free(f.line);
    free(ex);
    free(ey);
    free(ez);
    MPI_Finalize();
    return status;
}
