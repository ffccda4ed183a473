/* jacobi.c: Jacobi iterations of the 5-point Laplace stencil on an NY x NX grid with fixed integer boundary values,
 * split over a 2D process grid (MPI_Dims_create, MPI_Cart_create with reordering allowed, MPI_Cart_coords,
 * MPI_Cart_rank, MPI_Cart_shift). Halos are exchanged with MPI_Sendrecv: rows as contiguous doubles, columns as a
 * committed MPI_Type_vector; neighbours past the edge are MPI_PROC_NULL, so those receives leave the boundary values
 * in place. The L1 and max residuals come from MPI_Allreduce.
 *
 * Why the output is exact: boundary values are integers below 128 and the interior starts at 0, so after t
 * iterations every value is a multiple of 2^-2t below 128 (31 significant bits for t = 12), and sums of all 1440
 * values need at most 42 bits: every stencil result and every sum is exact in double whatever the order of the
 * additions, so results scaled by 2^24 are printed as integers. World rank 0 repeats the computation serially and
 * compares. Also checks a few MPI_Dims_create results, MPI_Cart_shift on a periodic ring, and MPI_Topo_test,
 * MPI_Cartdim_get, MPI_Cart_get and MPI_Cart_sub. Only world rank 0 prints. */
#include <mpi.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define NY 36
#define NX 40
#define ITERATIONS 12
#define SCALE 16777216.0 /* 2^(2 ITERATIONS) */

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL jacobi: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

/* Global rows 0 and NY + 1 and columns 0 and NX + 1 are the fixed boundary. */
static double boundary(int gi, int gj)
{
    if (gi == 0) return 64 + (gj % 5) * 8;
    if (gi == NY + 1) return (gj % 3) * 16;
    if (gj == 0) return 32;
    if (gj == NX + 1) return (gi % 4) * 20;
    return 0;
}

static int is_boundary(int gi, int gj) { return gi == 0 || gi == NY + 1 || gj == 0 || gj == NX + 1; }

/* Small weights keep the weighted sum exact too (3 more bits). */
static double weight(int gi, int gj) { return (double)((gi + 2 * gj) % 7 + 1); }

/* Scaled to an integer; checks that it is one. */
static long long scaled(double v)
{
    double s = v * SCALE;
    CHECK(s == floor(s) && fabs(s) < 9e15, "%.17g is not a multiple of 2^-24", v);
    return (long long)s;
}

struct result {
    double l1[ITERATIONS], max[ITERATIONS], sum, weighted;
};

static void serial(struct result *res)
{
    static double u[NY + 2][NX + 2], v[NY + 2][NX + 2];
    for (int i = 0; i < NY + 2; i++)
        for (int j = 0; j < NX + 2; j++) u[i][j] = v[i][j] = boundary(i, j);
    for (int t = 0; t < ITERATIONS; t++) {
        double l1 = 0, max = 0;
        for (int i = 1; i <= NY; i++)
            for (int j = 1; j <= NX; j++) {
                v[i][j] = (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]) * 0.25;
                double d = fabs(v[i][j] - u[i][j]);
                l1 += d;
                if (d > max) max = d;
            }
        for (int i = 1; i <= NY; i++)
            for (int j = 1; j <= NX; j++) u[i][j] = v[i][j];
        res->l1[t] = l1;
        res->max[t] = max;
    }
    res->sum = res->weighted = 0;
    for (int i = 1; i <= NY; i++)
        for (int j = 1; j <= NX; j++) {
            res->sum += u[i][j];
            res->weighted += u[i][j] * weight(i, j);
        }
}

/* The part of n items that block `coord` of `parts` holds, and where it starts. */
static void split(int n, int parts, int coord, int *count, int *start)
{
    *count = n / parts + (coord < n % parts);
    *start = coord * (n / parts) + (coord < n % parts ? coord : n % parts);
}

static void parallel(struct result *res, int dims[2])
{
    int periods[2] = {0, 0}, coords[2], cart_rank, up, down, left, right;
    MPI_Comm cart;
    MPI_Dims_create(size, 2, dims);
    CHECK(dims[0] * dims[1] == size && dims[0] >= dims[1], "Dims_create(%d, 2) gave %dx%d", size, dims[0], dims[1]);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    CHECK(cart != MPI_COMM_NULL, "Cart_create gave MPI_COMM_NULL");
    MPI_Comm_rank(cart, &cart_rank);
    MPI_Cart_coords(cart, cart_rank, 2, coords);
    int back = -1;
    MPI_Cart_rank(cart, coords, &back);
    CHECK(back == cart_rank && coords[0] >= 0 && coords[0] < dims[0] && coords[1] >= 0 && coords[1] < dims[1],
          "Cart_coords (%d, %d) of rank %d, Cart_rank gives %d", coords[0], coords[1], cart_rank, back);
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);
    int expect[4], c[2];
    c[1] = coords[1];
    c[0] = coords[0] - 1;
    if (c[0] >= 0) MPI_Cart_rank(cart, c, &expect[0]); else expect[0] = MPI_PROC_NULL;
    c[0] = coords[0] + 1;
    if (c[0] < dims[0]) MPI_Cart_rank(cart, c, &expect[1]); else expect[1] = MPI_PROC_NULL;
    c[0] = coords[0];
    c[1] = coords[1] - 1;
    if (c[1] >= 0) MPI_Cart_rank(cart, c, &expect[2]); else expect[2] = MPI_PROC_NULL;
    c[1] = coords[1] + 1;
    if (c[1] < dims[1]) MPI_Cart_rank(cart, c, &expect[3]); else expect[3] = MPI_PROC_NULL;
    CHECK(up == expect[0] && down == expect[1] && left == expect[2] && right == expect[3],
          "Cart_shift at (%d, %d): up %d down %d left %d right %d, expected %d %d %d %d", coords[0], coords[1], up, down,
          left, right, expect[0], expect[1], expect[2], expect[3]);

    /* Local block with a one-cell halo; local (i, j) is global (row0 + i, col0 + j). */
    int ly, lx, row0, col0, stride;
    split(NY, dims[0], coords[0], &ly, &row0);
    split(NX, dims[1], coords[1], &lx, &col0);
    stride = lx + 2;
    double *u = malloc(sizeof(double) * (size_t)(ly + 2) * (size_t)stride);
    double *v = malloc(sizeof(double) * (size_t)(ly + 2) * (size_t)stride);
    CHECK(u && v, "out of memory");
    for (int i = 0; i < ly + 2; i++)
        for (int j = 0; j < stride; j++) u[i * stride + j] = v[i * stride + j] = boundary(row0 + i, col0 + j);
    MPI_Datatype column;
    MPI_Type_vector(ly, 1, stride, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    for (int t = 0; t < ITERATIONS; t++) {
        /* Rows up and down, then columns left and right. */
        MPI_Sendrecv(&u[1 * stride + 1], lx, MPI_DOUBLE, up, 1, &u[(ly + 1) * stride + 1], lx, MPI_DOUBLE, down, 1,
                     cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[ly * stride + 1], lx, MPI_DOUBLE, down, 2, &u[0 * stride + 1], lx, MPI_DOUBLE, up, 2, cart,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * stride + 1], 1, column, left, 3, &u[1 * stride + lx + 1], 1, column, right, 3, cart,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * stride + lx], 1, column, right, 4, &u[1 * stride + 0], 1, column, left, 4, cart,
                     MPI_STATUS_IGNORE);
        if (t == 0)
            for (int i = 0; i < ly + 2; i++)
                for (int j = 0; j < stride; j++)
                    if (is_boundary(row0 + i, col0 + j))
                        CHECK(u[i * stride + j] == boundary(row0 + i, col0 + j),
                              "boundary cell (%d, %d) changed by a halo exchange with MPI_PROC_NULL", row0 + i,
                              col0 + j);
        double local[2] = {0, 0}, global[2];
        for (int i = 1; i <= ly; i++)
            for (int j = 1; j <= lx; j++) {
                double *p = &u[i * stride + j];
                v[i * stride + j] = (p[-stride] + p[stride] + p[-1] + p[1]) * 0.25;
                double d = fabs(v[i * stride + j] - *p);
                local[0] += d;
                if (d > local[1]) local[1] = d;
            }
        for (int i = 1; i <= ly; i++)
            for (int j = 1; j <= lx; j++) u[i * stride + j] = v[i * stride + j];
        MPI_Allreduce(&local[0], &global[0], 1, MPI_DOUBLE, MPI_SUM, cart);
        MPI_Allreduce(&local[1], &global[1], 1, MPI_DOUBLE, MPI_MAX, cart);
        res->l1[t] = global[0];
        res->max[t] = global[1];
    }
    double local[2] = {0, 0};
    for (int i = 1; i <= ly; i++)
        for (int j = 1; j <= lx; j++) {
            local[0] += u[i * stride + j];
            local[1] += u[i * stride + j] * weight(row0 + i, col0 + j);
        }
    double global[2];
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, cart);
    res->sum = global[0];
    res->weighted = global[1];
    MPI_Type_free(&column);
    CHECK(column == MPI_DATATYPE_NULL, "Type_free did not set the handle to MPI_DATATYPE_NULL");
    MPI_Comm_free(&cart);
    free(u);
    free(v);
}

/* Dims_create results the standard fixes (balanced, non-increasing, given entries kept). */
static void dims_cases(void)
{
    int a[2] = {0, 0}, b[3] = {0, 0, 0}, c[2] = {0, 0}, d[3] = {0, 3, 0}, e[3] = {0, 0, 0};
    MPI_Dims_create(12, 2, a);
    MPI_Dims_create(16, 3, b);
    MPI_Dims_create(7, 2, c);
    MPI_Dims_create(6, 3, d);
    MPI_Dims_create(1, 3, e);
    CHECK(a[0] == 4 && a[1] == 3, "Dims_create(12, 2) gave %dx%d", a[0], a[1]);
    CHECK(b[0] == 4 && b[1] == 2 && b[2] == 2, "Dims_create(16, 3) gave %dx%dx%d", b[0], b[1], b[2]);
    CHECK(c[0] == 7 && c[1] == 1, "Dims_create(7, 2) gave %dx%d", c[0], c[1]);
    CHECK(d[0] == 2 && d[1] == 3 && d[2] == 1, "Dims_create(6, 3) with (0, 3, 0) gave %dx%dx%d", d[0], d[1], d[2]);
    CHECK(e[0] == 1 && e[1] == 1 && e[2] == 1, "Dims_create(1, 3) gave %dx%dx%d", e[0], e[1], e[2]);
    if (rank == 0) printf("jacobi: Dims_create 12->4x3 16->4x2x2 7->7x1 6,(0,3,0)->2x3x1 1->1x1x1 OK\n");
}

/* A periodic 1D grid of all ranks: shifts wrap around. */
static void periodic_ring(void)
{
    int dims[1] = {size}, periods[1] = {1}, me, src, dst, src2, dst2, coord;
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &me);
    CHECK(me == rank, "Cart_create without reordering renumbered rank %d as %d", rank, me);
    MPI_Cart_coords(ring, me, 1, &coord);
    MPI_Cart_shift(ring, 0, 1, &src, &dst);
    MPI_Cart_shift(ring, 0, -2, &src2, &dst2);
    CHECK(coord == me, "periodic ring: coordinate %d", coord);
    CHECK(src == (me + size - 1) % size && dst == (me + 1) % size, "periodic shift 1: source %d dest %d", src, dst);
    CHECK(src2 == (me + 2) % size && dst2 == ((me - 2) % size + size) % size, "periodic shift -2: source %d dest %d",
          src2, dst2);
    int token = -1;
    MPI_Sendrecv(&me, 1, MPI_INT, dst, 0, &token, 1, MPI_INT, src, 0, ring, MPI_STATUS_IGNORE);
    CHECK(token == src, "periodic ring: got %d from %d", token, src);
    MPI_Comm_free(&ring);
    if (rank == 0) printf("jacobi: periodic Cart_shift by 1 and -2 wraps around OK\n");
}

/* The grid's own description (MPI_Topo_test, MPI_Cartdim_get, MPI_Cart_get) and its rows (MPI_Cart_sub). */
static void cart_queries(void)
{
    int dims[2] = {0, 0}, periods[2] = {0, 1}, status = -1, ndims = -1, got_dims[2], got_periods[2], coords[2], me;
    MPI_Comm cart, row;
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Topo_test(MPI_COMM_WORLD, &status);
    CHECK(status == MPI_UNDEFINED, "Topo_test(WORLD) is %d, not MPI_UNDEFINED", status);
    MPI_Topo_test(cart, &status);
    MPI_Cartdim_get(cart, &ndims);
    CHECK(status == MPI_CART && ndims == 2, "Topo_test %d (MPI_CART is %d), Cartdim_get %d", status, MPI_CART, ndims);
    MPI_Comm_rank(cart, &me);
    MPI_Cart_get(cart, 2, got_dims, got_periods, coords);
    CHECK(got_dims[0] == dims[0] && got_dims[1] == dims[1] && !got_periods[0] && got_periods[1] &&
              coords[0] == me / dims[1] && coords[1] == me % dims[1],
          "Cart_get: dims %dx%d periods %d %d coords (%d, %d)", got_dims[0], got_dims[1], got_periods[0], got_periods[1],
          coords[0], coords[1]);
    /* Rows keep dimension 1: a row's ranks are its members' column coordinates, and they sum to 0 + 1 + ... */
    int keep[2] = {0, 1}, row_size = -1, row_rank = -1, sum = -1, row_dim = -1;
    MPI_Cart_sub(cart, keep, &row);
    MPI_Comm_size(row, &row_size);
    MPI_Comm_rank(row, &row_rank);
    MPI_Cartdim_get(row, &row_dim);
    MPI_Allreduce(&coords[1], &sum, 1, MPI_INT, MPI_SUM, row);
    CHECK(row_size == dims[1] && row_rank == coords[1] && row_dim == 1 && sum == dims[1] * (dims[1] - 1) / 2,
          "Cart_sub row: size %d rank %d dims %d sum %d", row_size, row_rank, row_dim, sum);
    /* The row is periodic: shifting by one wraps around it. */
    int src = -1, dst = -1;
    MPI_Cart_shift(row, 0, 1, &src, &dst);
    CHECK(src == (row_rank + row_size - 1) % row_size && dst == (row_rank + 1) % row_size,
          "Cart_shift in a periodic row: %d %d", src, dst);
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);
    if (rank == 0) printf("jacobi: Topo_test, Cartdim_get, Cart_get, Cart_sub into periodic rows OK\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims_cases();
    periodic_ring();
    cart_queries();
    struct result par, ser;
    int dims[2] = {0, 0};
    parallel(&par, dims);
    if (rank == 0) {
        serial(&ser);
        printf("jacobi: %dx%d grid on a %dx%d process grid, %d iterations\n", NY, NX, dims[0], dims[1], ITERATIONS);
        for (int t = 0; t < ITERATIONS; t++) {
            CHECK(par.l1[t] == ser.l1[t] && par.max[t] == ser.max[t],
                  "iteration %d: residuals %.17g %.17g, serial %.17g %.17g", t + 1, par.l1[t], par.max[t], ser.l1[t],
                  ser.max[t]);
            if (t == 0 || t == 1 || t == ITERATIONS - 1)
                printf("jacobi: iteration %d residual L1=%lld/2^24 max=%lld/2^24 OK\n", t + 1, scaled(par.l1[t]),
                       scaled(par.max[t]));
        }
        CHECK(par.sum == ser.sum && par.weighted == ser.weighted, "grid sums %.17g %.17g, serial %.17g %.17g", par.sum,
              par.weighted, ser.sum, ser.weighted);
        printf("jacobi: final grid sum=%lld/2^24 weighted=%lld/2^24 OK\n", scaled(par.sum), scaled(par.weighted));
        printf("jacobi: done\n");
    }
    MPI_Finalize();
    return 0;
}
