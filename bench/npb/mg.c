/* mg.c: NAS Multigrid (MG), our own MPI implementation from the specification: V-cycle multigrid iterations for
 * the discrete Poisson problem A u = v on a periodic 3-D grid.
 *
 *     mg CLASS      S: 32^3;  W: 128^3;  A: 256^3  (4 iterations each)
 *     mg weak N     an N^3 block per rank (the grid is N px x N py x N pz for the px x py x pz rank grid below),
 *                   4 iterations; N a power of two, at least 4
 *
 * The problem (RNR-94-007, the MG kernel; NPB 3 mg): v is 0 except +1 at the ten points where the NAS generator
 * (seed 314159265, a = 5^13, one number per point, x fastest: point x + nx (y + ny z) gets the number after
 * x + nx (y + ny z) + 1 steps) is largest and -1 at the ten where it is smallest. u = 0; each iteration is one
 * V-cycle followed by r = v - A u. The operators are 27-point stencils with one coefficient per distance class
 * (centre, 6 faces, 12 edges, 8 corners):
 *     A: a = (-8/3, 0, 1/6, 1/12)                              residual r = v - A u
 *     S: c = (-3/8, 1/32, -1/64, 0) (classes S, W, A)           smoother u = u + S r
 *     P: (1/2, 1/4, 1/8, 1/16), coarse point J at fine point 2J + 1 (0-based)        restriction (rprj3)
 *     Q: trilinear; fine 2J + 1 takes coarse J, fine 2J + 2 half of J and J + 1       prolongation (interp)
 * The V-cycle (NPB mg3P): restrict r from the finest level lt down to level 1 (2^3 points); u_1 = S r_1; for
 * k = 2..lt-1: u_k = Q u_{k-1}, r_k = r_k - A u_k, u_k = u_k + S r_k; at the top u = u + Q u_{lt-1}, r = v - A u,
 * u = u + S r. Timed (as NPB): r = v - A u, the iterations, and the norm |r|_2 = sqrt(sum r^2 / points); one
 * untimed iteration runs first, after which u and v start again. Verified: |rnm2 - ref| / ref <= 1e-8 with the
 * official norms (S 0.5307707005734e-04, W 0.6467329375339e-05, A 0.2433365309069e-05: NPB 3's mg verification
 * values). Weak runs have none: they also compute the norm after every iteration and check it decreases every time
 * and ends at most 1/10 of the initial one.
 *
 * Decomposition: a 3-D grid of px x py x pz ranks (rank count 2^m; the factors of two go to x, y, z in turn, so
 * px >= py >= pz), each holding a block of every level with one layer of ghost cells. Halo exchange (after each
 * operator, as NPB's comm3): dimension by dimension, whole planes including the ghosts of the other dimensions (so
 * edges and corners arrive too), MPI_Sendrecv with the neighbour on each side (a local periodic copy where a
 * dimension is not split). Levels too coarse to split (fewer points than ranks along a dimension) are held whole,
 * and computed identically, by every rank: at the finest such transition MPI_Allgather collects the residual of the
 * lowest split level onto every rank, and the prolongation back reads the replicated coarse grid directly.
 * MPI_Allreduce gives the norms, MPI_Allgather the candidates of the twenty +-1 points.
 *
 * Ranks: a power of two with px, py, pz at most the grid size (every count up to 1024 for all classes). */
#include <math.h>

#include "npbrun.h"

#define ITERATIONS 4
#define MAX_LEVELS 20
#define NORM_EPS 1e-8

struct mg_class {
    char cls;
    int log2n;
    double rnm2_ref;
};

static const struct mg_class classes[] = {
    {'S', 5, 0.5307707005734e-04},
    {'W', 7, 0.6467329375339e-05},
    {'A', 8, 0.2433365309069e-05},
};

static const double coef_a[4] = {-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0};
static const double coef_c[4] = {-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0};

/* One level of the grid hierarchy as this rank holds it: interior n[d] points from global offset off[d], with a
 * ghost layer: m[d] = n[d] + 2, stored x fastest. */
struct level {
    int g[3];      /* global points per dimension */
    int n[3], off[3], m[3];
    int split;     /* 1: distributed over the rank grid; 0: held whole by every rank */
    double *u, *r;
};

struct mg {
    int me, p, pd[3], coord[3], nbr[3][2]; /* rank grid; neighbours [dim][0: below, 1: above] */
    int lt, kd;                             /* levels 1..lt; kd: the lowest split level */
    struct level lev[MAX_LEVELS + 1];
    struct level whole;                     /* level kd held whole (kd > 1): its gathered residual */
    double *v;
    double *face_out, *face_in;             /* halo buffers */
    double *p1, *p2;                        /* stencil line sums */
    double *gather_out, *gather_in;         /* for the residual gather at level kd */
};

static long idx(const struct level *l, int i1, int i2, int i3)
{
    return ((long)i3 * l->m[1] + i2) * l->m[0] + i1;
}

static long points(const struct level *l) { return (long)l->m[0] * l->m[1] * l->m[2]; }

/* ---- Halo exchange ---- */

/* Copies plane `at` of dimension d of array a to or from buf (whole plane, ghosts of the other dims included). */
static void plane_copy(const struct level *l, double *a, int d, int at, double *buf, int to_buf)
{
    long stride[3] = {1, l->m[0], (long)l->m[0] * l->m[1]};
    int da = d == 0 ? 1 : 0, db = d == 2 ? 1 : 2;
    long k = 0;
    for (int ib = 0; ib < l->m[db]; ib++)
        for (int ia = 0; ia < l->m[da]; ia++) {
            long e = at * stride[d] + ia * stride[da] + ib * stride[db];
            if (to_buf)
                buf[k++] = a[e];
            else
                a[e] = buf[k++];
        }
}

/* Fills the ghost layer of array a of level l from the neighbours (NPB's comm3). */
static void exchange(struct mg *g, const struct level *l, double *a)
{
    for (int d = 0; d < 3; d++) {
        int da = d == 0 ? 1 : 0, db = d == 2 ? 1 : 2;
        int count = l->m[da] * l->m[db];
        if (!l->split || g->pd[d] == 1) {
            plane_copy(l, a, d, l->n[d], g->face_out, 1);
            plane_copy(l, a, d, 0, g->face_out, 0);
            plane_copy(l, a, d, 1, g->face_out, 1);
            plane_copy(l, a, d, l->n[d] + 1, g->face_out, 0);
            continue;
        }
        /* my top plane goes up (the neighbour above's lower ghost), my bottom plane down */
        plane_copy(l, a, d, l->n[d], g->face_out, 1);
        NPB_COMM(MPI_Sendrecv(g->face_out, count, MPI_DOUBLE, g->nbr[d][1], 2 * d, g->face_in, count, MPI_DOUBLE,
                              g->nbr[d][0], 2 * d, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        plane_copy(l, a, d, 0, g->face_in, 0);
        plane_copy(l, a, d, 1, g->face_out, 1);
        NPB_COMM(MPI_Sendrecv(g->face_out, count, MPI_DOUBLE, g->nbr[d][0], 2 * d + 1, g->face_in, count, MPI_DOUBLE,
                              g->nbr[d][1], 2 * d + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        plane_copy(l, a, d, l->n[d] + 1, g->face_in, 0);
    }
}

/* ---- The operators ---- */

/* For the line (i2, i3) of u: p1 = the four y/z face neighbours, p2 = the four y/z edge neighbours, along x. The
 * 27-point sums then come from three neighbouring entries of the line, u and p1 and p2. */
static void line_sums(const struct mg *g, const struct level *l, const double *u, int i2, int i3)
{
    long s2 = l->m[0], s3 = (long)l->m[0] * l->m[1];
    const double *c = u + idx(l, 0, i2, i3);
    for (int i1 = 0; i1 < l->m[0]; i1++) {
        g->p1[i1] = c[i1 - s2] + c[i1 + s2] + c[i1 - s3] + c[i1 + s3];
        g->p2[i1] = c[i1 - s2 - s3] + c[i1 + s2 - s3] + c[i1 - s2 + s3] + c[i1 + s2 + s3];
    }
}

/* The 27-point stencil with coefficients k at point i1 of the current line (after line_sums). */
static double stencil(const struct mg *g, const double *line, int i1, const double *k)
{
    const double *p1 = g->p1, *p2 = g->p2;
    return k[0] * line[i1] + k[1] * (line[i1 - 1] + line[i1 + 1] + p1[i1]) +
           k[2] * (p2[i1] + p1[i1 - 1] + p1[i1 + 1]) + k[3] * (p2[i1 - 1] + p2[i1 + 1]);
}

/* r = v - A u (r may be v). */
static void resid(struct mg *g, const struct level *l, const double *u, const double *v, double *r)
{
    for (int i3 = 1; i3 <= l->n[2]; i3++)
        for (int i2 = 1; i2 <= l->n[1]; i2++) {
            line_sums(g, l, u, i2, i3);
            long base = idx(l, 0, i2, i3);
            for (int i1 = 1; i1 <= l->n[0]; i1++)
                r[base + i1] = v[base + i1] - stencil(g, u + base, i1, coef_a);
        }
    exchange(g, l, r);
}

/* u = u + S r. */
static void psinv(struct mg *g, const struct level *l, const double *r, double *u)
{
    for (int i3 = 1; i3 <= l->n[2]; i3++)
        for (int i2 = 1; i2 <= l->n[1]; i2++) {
            line_sums(g, l, r, i2, i3);
            long base = idx(l, 0, i2, i3);
            for (int i1 = 1; i1 <= l->n[0]; i1++)
                u[base + i1] += stencil(g, r + base, i1, coef_c);
        }
    exchange(g, l, u);
}

/* s (coarse level c) = P r (fine level f). Coarse point J (global) sits on fine point 2J + 1; in local indices,
 * with the ghost layer at 0, that is fine index 2 (off_c + j) - off_f. */
static void rprj3(struct mg *g, const struct level *f, const double *r, const struct level *c, double *s)
{
    static const double weight[4] = {0.5, 0.25, 0.125, 0.0625};
    for (int j3 = 1; j3 <= c->n[2]; j3++) {
        int i3 = 2 * (c->off[2] + j3) - f->off[2];
        for (int j2 = 1; j2 <= c->n[1]; j2++) {
            int i2 = 2 * (c->off[1] + j2) - f->off[1];
            for (int j1 = 1; j1 <= c->n[0]; j1++) {
                int i1 = 2 * (c->off[0] + j1) - f->off[0];
                double sum[4] = {0.0, 0.0, 0.0, 0.0}; /* by number of non-zero offsets */
                for (int d3 = -1; d3 <= 1; d3++)
                    for (int d2 = -1; d2 <= 1; d2++) {
                        const double *row = r + idx(f, i1, i2 + d2, i3 + d3);
                        int k = (d3 != 0) + (d2 != 0);
                        sum[k] += row[0];
                        sum[k + 1] += row[-1] + row[1];
                    }
                s[idx(c, j1, j2, j3)] = weight[0] * sum[0] + weight[1] * sum[1] + weight[2] * sum[2] +
                                        weight[3] * sum[3];
            }
        }
    }
    exchange(g, c, s);
}

/* u (fine level f) = u + Q z (coarse level c). Along each dimension fine point F (global) takes coarse point
 * (F - 1) / 2 when F is odd, half of coarse F / 2 - 1 and F / 2 when even; lo/hi hold those local coarse indices. */
static void interp(struct mg *g, const struct level *c, const double *z, const struct level *f, double *u)
{
    int *lo[3], *hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = npb_alloc((size_t)f->m[d] * sizeof(int), "interp");
        hi[d] = npb_alloc((size_t)f->m[d] * sizeof(int), "interp");
        for (int i = 1; i <= f->n[d]; i++) {
            int fg = f->off[d] + i - 1;
            if (fg % 2) {
                lo[d][i] = hi[d][i] = (fg - 1) / 2 - c->off[d] + 1;
            } else {
                lo[d][i] = fg / 2 - 1 - c->off[d] + 1;
                hi[d][i] = lo[d][i] + 1;
            }
        }
    }
    for (int i3 = 1; i3 <= f->n[2]; i3++)
        for (int i2 = 1; i2 <= f->n[1]; i2++)
            for (int i1 = 1; i1 <= f->n[0]; i1++) {
                int c3[2] = {lo[2][i3], hi[2][i3]}, c2[2] = {lo[1][i2], hi[1][i2]}, c1[2] = {lo[0][i1], hi[0][i1]};
                int n3 = 1 + (c3[1] != c3[0]), n2 = 1 + (c2[1] != c2[0]), n1 = 1 + (c1[1] != c1[0]);
                double sum = 0.0;
                for (int a3 = 0; a3 < n3; a3++)
                    for (int a2 = 0; a2 < n2; a2++)
                        for (int a1 = 0; a1 < n1; a1++)
                            sum += z[idx(c, c1[a1], c2[a2], c3[a3])];
                /* each paired dimension halves the weight */
                int pairs = (n1 == 2) + (n2 == 2) + (n3 == 2);
                u[idx(f, i1, i2, i3)] += sum * (pairs == 0 ? 1.0 : pairs == 1 ? 0.5 : pairs == 2 ? 0.25 : 0.125);
            }
    for (int d = 0; d < 3; d++) {
        free(lo[d]);
        free(hi[d]);
    }
    exchange(g, f, u);
}

/* Gathers the residual of level kd (split) into g->whole (held whole). */
static void gather_whole(struct mg *g)
{
    const struct level *l = &g->lev[g->kd];
    struct level *w = &g->whole;
    long count = (long)l->n[0] * l->n[1] * l->n[2], k = 0;
    for (int i3 = 1; i3 <= l->n[2]; i3++)
        for (int i2 = 1; i2 <= l->n[1]; i2++)
            for (int i1 = 1; i1 <= l->n[0]; i1++)
                g->gather_out[k++] = l->r[idx(l, i1, i2, i3)];
    NPB_COMM(MPI_Allgather(g->gather_out, (int)count, MPI_DOUBLE, g->gather_in, (int)count, MPI_DOUBLE,
                           MPI_COMM_WORLD));
    for (int q = 0; q < g->p; q++) {
        int o[3] = {(q % g->pd[0]) * l->n[0], (q / g->pd[0] % g->pd[1]) * l->n[1],
                    (q / (g->pd[0] * g->pd[1])) * l->n[2]};
        const double *in = g->gather_in + q * count;
        k = 0;
        for (int i3 = 1; i3 <= l->n[2]; i3++)
            for (int i2 = 1; i2 <= l->n[1]; i2++)
                for (int i1 = 1; i1 <= l->n[0]; i1++)
                    w->r[idx(w, o[0] + i1, o[1] + i2, o[2] + i3)] = in[k++];
    }
    exchange(g, w, w->r);
}

/* One V-cycle (NPB mg3P). */
static void vcycle(struct mg *g)
{
    int lt = g->lt;
    for (int k = lt; k >= 2; k--) {
        if (k - 1 >= g->kd || k < g->kd)
            rprj3(g, &g->lev[k], g->lev[k].r, &g->lev[k - 1], g->lev[k - 1].r);
        else { /* k == kd: the coarser levels are held whole */
            gather_whole(g);
            rprj3(g, &g->whole, g->whole.r, &g->lev[k - 1], g->lev[k - 1].r);
        }
    }
    struct level *bottom = &g->lev[1];
    memset(bottom->u, 0, (size_t)points(bottom) * sizeof(double));
    psinv(g, bottom, bottom->r, bottom->u);
    for (int k = 2; k < lt; k++) {
        struct level *l = &g->lev[k];
        memset(l->u, 0, (size_t)points(l) * sizeof(double));
        interp(g, &g->lev[k - 1], g->lev[k - 1].u, l, l->u);
        resid(g, l, l->u, l->r, l->r);
        psinv(g, l, l->r, l->u);
    }
    struct level *top = &g->lev[lt];
    interp(g, &g->lev[lt - 1], g->lev[lt - 1].u, top, top->u);
    resid(g, top, top->u, g->v, top->r);
    psinv(g, top, top->r, top->u);
}

/* |r|_2 of the finest level: sqrt(sum r^2 / points). */
static double norm2(struct mg *g)
{
    const struct level *l = &g->lev[g->lt];
    double local = 0.0, sum;
    for (int i3 = 1; i3 <= l->n[2]; i3++)
        for (int i2 = 1; i2 <= l->n[1]; i2++)
            for (int i1 = 1; i1 <= l->n[0]; i1++) {
                double x = l->r[idx(l, i1, i2, i3)];
                local += x * x;
            }
    NPB_COMM(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    return sqrt(sum / ((double)l->g[0] * l->g[1] * l->g[2]));
}

/* ---- The right-hand side ---- */

#define EXTREMES 10

/* Keeps the EXTREMES largest (sign +1) or smallest (sign -1) values seen, best first; ties go to the lower index. */
static void keep_extreme(double *val, double *at, double x, double where, int sign)
{
    int k = EXTREMES;
    while (k > 0 && (at[k - 1] < 0 || sign * x > sign * val[k - 1] ||
                     (x == val[k - 1] && where < at[k - 1])))
        k--;
    if (k >= EXTREMES)
        return;
    for (int j = EXTREMES - 1; j > k; j--) {
        val[j] = val[j - 1];
        at[j] = at[j - 1];
    }
    val[k] = x;
    at[k] = where;
}

/* v: +1 at the ten largest numbers of the generator over the grid, -1 at the ten smallest (NPB zran3). */
static void make_rhs(struct mg *g)
{
    const struct level *l = &g->lev[g->lt];
    double *line = npb_alloc((size_t)l->n[0] * sizeof(double), "random line");
    /* candidates: [0,10) largest values, [10,20) their indices, [20,30) smallest, [30,40) their indices */
    double mine[4 * EXTREMES];
    for (int k = 0; k < 4 * EXTREMES; k++)
        mine[k] = -1.0;
    for (int i3 = 1; i3 <= l->n[2]; i3++)
        for (int i2 = 1; i2 <= l->n[1]; i2++) {
            long y = l->off[1] + i2 - 1, z = l->off[2] + i3 - 1;
            uint64_t first = (uint64_t)l->off[0] + (uint64_t)l->g[0] * (y + (uint64_t)l->g[1] * z);
            uint64_t x = (NPB_SEED * npb_pow46(NPB_A, first)) & NPB_MASK46;
            npb_vranlc(l->n[0], &x, NPB_A, line);
            for (int i1 = 0; i1 < l->n[0]; i1++) {
                double where = (double)(first + i1);
                keep_extreme(mine, mine + EXTREMES, line[i1], where, +1);
                keep_extreme(mine + 2 * EXTREMES, mine + 3 * EXTREMES, line[i1], where, -1);
            }
        }
    free(line);
    double *all = npb_alloc((size_t)g->p * sizeof mine, "candidates");
    MPI_Allgather(mine, 4 * EXTREMES, MPI_DOUBLE, all, 4 * EXTREMES, MPI_DOUBLE, MPI_COMM_WORLD);
    double best[4 * EXTREMES];
    for (int k = 0; k < 4 * EXTREMES; k++)
        best[k] = -1.0;
    for (int q = 0; q < g->p; q++) {
        const double *c = all + q * 4 * EXTREMES;
        for (int k = 0; k < EXTREMES; k++) {
            if (c[EXTREMES + k] >= 0)
                keep_extreme(best, best + EXTREMES, c[k], c[EXTREMES + k], +1);
            if (c[3 * EXTREMES + k] >= 0)
                keep_extreme(best + 2 * EXTREMES, best + 3 * EXTREMES, c[2 * EXTREMES + k], c[3 * EXTREMES + k], -1);
        }
    }
    free(all);
    memset(g->v, 0, (size_t)points(l) * sizeof(double));
    for (int k = 0; k < 2 * EXTREMES; k++) {
        double where = k < EXTREMES ? best[EXTREMES + k] : best[3 * EXTREMES + k - EXTREMES];
        if (where < 0)
            continue;
        long w = (long)where;
        int x = (int)(w % l->g[0]), y = (int)(w / l->g[0] % l->g[1]), z = (int)(w / l->g[0] / l->g[1]);
        x -= l->off[0];
        y -= l->off[1];
        z -= l->off[2];
        if (x >= 0 && x < l->n[0] && y >= 0 && y < l->n[1] && z >= 0 && z < l->n[2])
            g->v[idx(l, x + 1, y + 1, z + 1)] = k < EXTREMES ? 1.0 : -1.0;
    }
    exchange(g, l, g->v);
}

/* ---- Setup ---- */

static void level_init(struct level *l, const int global[3], int split, const int pd[3], const int coord[3])
{
    l->split = split;
    for (int d = 0; d < 3; d++) {
        l->g[d] = global[d];
        l->n[d] = split ? global[d] / pd[d] : global[d];
        l->off[d] = split ? coord[d] * l->n[d] : 0;
        l->m[d] = l->n[d] + 2;
    }
}

static double *level_array(const struct level *l, const char *what)
{
    return npb_zalloc((size_t)points(l) * sizeof(double), what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct npb_args args;
    struct mg g;
    memset(&g, 0, sizeof g);
    MPI_Comm_rank(MPI_COMM_WORLD, &g.me);
    MPI_Comm_size(MPI_COMM_WORLD, &g.p);
    if (!npb_parse_args(argc, argv, &args))
        return npb_usage("usage: mg CLASS (S, W or A) | mg weak BLOCK_EDGE");
    if (!npb_is_pow2(g.p))
        return npb_usage("mg: the rank count must be a power of two, not %d", g.p);
    /* The rank grid: factors of two to x, y, z in turn. */
    g.pd[0] = g.pd[1] = g.pd[2] = 1;
    for (int b = 0; (1 << b) < g.p; b++)
        g.pd[b % 3] *= 2;
    g.coord[0] = g.me % g.pd[0];
    g.coord[1] = g.me / g.pd[0] % g.pd[1];
    g.coord[2] = g.me / (g.pd[0] * g.pd[1]);
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            int c[3] = {g.coord[0], g.coord[1], g.coord[2]};
            c[d] = (c[d] + (s ? 1 : -1) + g.pd[d]) % g.pd[d];
            g.nbr[d][s] = c[0] + g.pd[0] * (c[1] + g.pd[1] * c[2]);
        }
    /* The finest grid, and the levels: each halves every dimension, the coarsest has 2 points in the smallest. */
    int top[3];
    const struct mg_class *k = NULL;
    if (args.cls == 'w') {
        if (!npb_is_pow2(args.weak_n) || args.weak_n < 4 || args.weak_n > 512)
            return npb_usage("mg: weak: the block edge must be a power of two from 4 to 512");
        for (int d = 0; d < 3; d++)
            top[d] = (int)args.weak_n * g.pd[d];
    } else {
        for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
            if (classes[i].cls == args.cls)
                k = &classes[i];
        top[0] = top[1] = top[2] = 1 << k->log2n;
        for (int d = 0; d < 3; d++)
            if (g.pd[d] > top[d])
                return npb_usage("mg: %d ranks split a dimension into %d, more than its %d points", g.p, g.pd[d],
                                 top[d]);
    }
    int smallest = top[0] < top[1] ? top[0] : top[1];
    smallest = smallest < top[2] ? smallest : top[2];
    g.lt = npb_log2(smallest);
    /* kd: the lowest level with at least one point per rank in every dimension */
    g.kd = 1;
    for (int l = g.lt; l >= 1; l--) {
        int fits = 1;
        for (int d = 0; d < 3; d++)
            if ((top[d] >> (g.lt - l)) < g.pd[d])
                fits = 0;
        if (!fits) {
            g.kd = l + 1;
            break;
        }
    }
    size_t longest_line = 0, largest_face = 0;
    for (int l = 1; l <= g.lt; l++) {
        int global[3] = {top[0] >> (g.lt - l), top[1] >> (g.lt - l), top[2] >> (g.lt - l)};
        level_init(&g.lev[l], global, l >= g.kd, g.pd, g.coord);
        g.lev[l].u = level_array(&g.lev[l], "u");
        g.lev[l].r = level_array(&g.lev[l], "r");
        if ((size_t)g.lev[l].m[0] > longest_line)
            longest_line = (size_t)g.lev[l].m[0];
        const int *m = g.lev[l].m;
        size_t faces[3] = {(size_t)m[1] * m[2], (size_t)m[0] * m[2], (size_t)m[0] * m[1]};
        for (int d = 0; d < 3; d++)
            if (faces[d] > largest_face)
                largest_face = faces[d];
    }
    if (g.kd > 1) {
        level_init(&g.whole, g.lev[g.kd].g, 0, g.pd, g.coord);
        g.whole.r = level_array(&g.whole, "whole level");
        const int *m = g.whole.m;
        size_t faces[3] = {(size_t)m[1] * m[2], (size_t)m[0] * m[2], (size_t)m[0] * m[1]};
        for (int d = 0; d < 3; d++)
            if (faces[d] > largest_face)
                largest_face = faces[d];
        if ((size_t)m[0] > longest_line)
            longest_line = (size_t)m[0];
        long count = (long)g.lev[g.kd].n[0] * g.lev[g.kd].n[1] * g.lev[g.kd].n[2];
        g.gather_out = npb_alloc((size_t)count * sizeof(double), "gather");
        g.gather_in = npb_alloc((size_t)count * g.p * sizeof(double), "gather");
    }
    g.face_out = npb_alloc(largest_face * sizeof(double), "halo");
    g.face_in = npb_alloc(largest_face * sizeof(double), "halo");
    g.p1 = npb_alloc(longest_line * sizeof(double), "line sums");
    g.p2 = npb_alloc(longest_line * sizeof(double), "line sums");
    struct level *fine = &g.lev[g.lt];
    g.v = level_array(fine, "v");
    if (g.me == 0)
        npb_note("mg: grid %d x %d x %d, ranks %d x %d x %d, levels 1..%d, split from level %d\n", top[0],
                 top[1], top[2], g.pd[0], g.pd[1], g.pd[2], g.lt, g.kd);

    /* One untimed iteration (as NPB), then u = 0 and v afresh. */
    make_rhs(&g);
    resid(&g, fine, fine->u, g.v, fine->r);
    vcycle(&g);
    resid(&g, fine, fine->u, g.v, fine->r);
    for (int l = 1; l <= g.lt; l++)
        memset(g.lev[l].u, 0, (size_t)points(&g.lev[l]) * sizeof(double));
    make_rhs(&g);

    double norms[ITERATIONS + 1];
    struct npb_timer timer;
    npb_timer_start(&timer);
    resid(&g, fine, fine->u, g.v, fine->r);
    if (!k)
        norms[0] = norm2(&g);
    for (int it = 1; it <= ITERATIONS; it++) {
        vcycle(&g);
        resid(&g, fine, fine->u, g.v, fine->r);
        if (!k && it < ITERATIONS)
            norms[it] = norm2(&g);
    }
    double rnm2 = norm2(&g);
    norms[ITERATIONS] = rnm2;
    npb_timer_stop(&timer);

    int ok = 1;
    char why[160] = "";
    if (g.me == 0)
        npb_note("mg: L2 norm %.13e\n", rnm2);
    if (k) {
        double err = fabs(rnm2 - k->rnm2_ref) / k->rnm2_ref;
        if (!(err <= NORM_EPS)) {
            ok = 0;
            snprintf(why, sizeof why, "L2 norm %.13e instead of %.13e (relative error %.2e)", rnm2, k->rnm2_ref,
                     err);
        }
    } else {
        for (int it = 1; it <= ITERATIONS && ok; it++) {
            if (g.me == 0)
                npb_note("mg: iteration %d norm %.6e\n", it, norms[it]);
            if (!(norms[it] < norms[it - 1])) {
                ok = 0;
                snprintf(why, sizeof why, "norm rose from %.6e to %.6e in iteration %d", norms[it - 1], norms[it],
                         it);
            }
        }
        if (ok && !(norms[ITERATIONS] <= 0.1 * norms[0])) {
            ok = 0;
            snprintf(why, sizeof why, "norm only fell from %.6e to %.6e", norms[0], norms[ITERATIONS]);
        }
    }
    int status = npb_report("mg", args.label, &timer, ok, why);
    for (int l = 1; l <= g.lt; l++) {
        free(g.lev[l].u);
        free(g.lev[l].r);
    }
    free(g.whole.r);
    free(g.gather_out);
    free(g.gather_in);
    free(g.face_out);
    free(g.face_in);
    free(g.p1);
    free(g.p2);
    free(g.v);
    MPI_Finalize();
    return status;
}
