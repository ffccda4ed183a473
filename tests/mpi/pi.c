/* pi.c: pi as the integral of 4 / (1 + x^2) over [0, 1] by the midpoint rule. Rank 0 chooses the number of
 * intervals and broadcasts it (MPI_Bcast); every rank sums the intervals i = rank, rank + size, ...; MPI_Reduce adds
 * the partial sums at rank 0. The order of that addition depends on the rank count and the implementation, which
 * changes the last bits only: 10 decimals (%.10f) are far above them. Only rank 0 prints. */
#include <mpi.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#define PI_25 3.141592653589793238462643

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL pi: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

/* The midpoint rule's error for this integrand is about 1 / (12 n^2) (f'(1) - f'(0) = -2, times h^2 / 24). */
static void integrate(int chosen)
{
    int n = rank == 0 ? chosen : -1;
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(n == chosen, "Bcast gave n=%d, expected %d", n, chosen);
    double h = 1.0 / (double)n, partial = 0.0;
    for (int i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        partial += 4.0 / (1.0 + x * x);
    }
    partial *= h;
    double pi = -1.0;
    MPI_Reduce(&partial, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double error = fabs(pi - PI_25), bound = 1.0 / (12.0 * (double)n * (double)n);
        CHECK(error < 1.01 * bound && error > 0.99 * bound, "n=%d: pi=%.16f, error %.3e, expected about %.3e", n, pi,
              error, bound);
        printf("pi: n=%d pi=%.10f OK\n", n, pi);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sizes[] = {10, 100, 1000, 20000};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) integrate(sizes[k]);
    if (rank == 0) printf("pi: done\n");
    MPI_Finalize();
    return 0;
}
