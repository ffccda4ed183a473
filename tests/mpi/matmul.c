/* matmul.c: C = A B with the rows of A distributed. Rank 0 builds A (n x k) and B (k x m) from small integers,
 * scatters the rows of A (MPI_Scatter when n divides evenly among the ranks, MPI_Scatterv otherwise), broadcasts B,
 * every rank multiplies its rows, MPI_Gatherv collects C at rank 0, which checks it against its own serial product.
 * All entries are integers far below 2^53, so every double result is exact whatever the order of the additions.
 * Only rank 0 prints. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL matmul: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

static double *matrix(int rows, int cols)
{
    double *m = malloc(sizeof(double) * (size_t)(rows > 0 ? rows : 1) * (size_t)(cols > 0 ? cols : 1));
    CHECK(m != NULL, "out of memory");
    return m;
}

static void multiply(const double *a, const double *b, double *c, int rows, int k, int m)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < m; j++) {
            double s = 0.0;
            for (int l = 0; l < k; l++) s += a[i * k + l] * b[l * m + j];
            c[i * m + j] = s;
        }
}

static void run(int n, int k, int m, int seed)
{
    double *a = NULL, *b = matrix(k, m), *c = NULL;
    if (rank == 0) {
        a = matrix(n, k);
        c = matrix(n, m);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < k; j++) a[i * k + j] = (double)((i * 7 + j * 3 + seed) % 11 - 5);
        for (int i = 0; i < k; i++)
            for (int j = 0; j < m; j++) b[i * m + j] = (double)((i * 5 + j * 2 + seed) % 13 - 6);
        for (int i = 0; i < n * m; i++) c[i] = -1e9;
    }
    /* Rows per rank: n / size, the first n % size ranks one more. */
    int *rows = malloc(sizeof(int) * (size_t)size), *send_counts = malloc(sizeof(int) * (size_t)size),
        *send_displs = malloc(sizeof(int) * (size_t)size), *recv_counts = malloc(sizeof(int) * (size_t)size),
        *recv_displs = malloc(sizeof(int) * (size_t)size);
    for (int r = 0, row = 0; r < size; r++) {
        rows[r] = n / size + (r < n % size);
        send_counts[r] = rows[r] * k;
        send_displs[r] = row * k;
        recv_counts[r] = rows[r] * m;
        recv_displs[r] = row * m;
        row += rows[r];
    }
    int mine = rows[rank];
    double *my_a = matrix(mine, k), *my_c = matrix(mine, m);
    const char *how;
    if (n % size == 0) {
        how = "Scatter";
        MPI_Scatter(a, mine * k, MPI_DOUBLE, my_a, mine * k, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    } else {
        how = "Scatterv";
        MPI_Scatterv(a, send_counts, send_displs, MPI_DOUBLE, my_a, mine * k, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    for (int i = 0; i < mine; i++)
        for (int j = 0; j < k; j++) {
            int row = send_displs[rank] / k + i;
            CHECK(my_a[i * k + j] == (double)((row * 7 + j * 3 + seed) % 11 - 5), "%s: A[%d][%d] is %g", how, row,
                  j, my_a[i * k + j]);
        }
    MPI_Bcast(b, k * m, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < m; j++)
            CHECK(b[i * m + j] == (double)((i * 5 + j * 2 + seed) % 13 - 6), "Bcast: B[%d][%d] is %g", i, j,
                  b[i * m + j]);
    multiply(my_a, b, my_c, mine, k, m);
    MPI_Gatherv(my_c, mine * m, MPI_DOUBLE, c, recv_counts, recv_displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *serial = matrix(n, m);
        multiply(a, b, serial, n, k, m);
        long long sum = 0, weighted = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++) {
                CHECK(c[i * m + j] == serial[i * m + j], "%dx%d: C[%d][%d] is %g, serial %g", n, m, i, j,
                      c[i * m + j], serial[i * m + j]);
                long long v = (long long)c[i * m + j];
                sum += v;
                weighted += v * (i * m + j + 1);
            }
        printf("matmul: (%dx%d)(%dx%d) rows by %s, C gathered: sum=%lld weighted=%lld C[0][0]=%lld C[%d][%d]=%lld OK\n",
               n, k, k, m, how, sum, weighted, (long long)c[0], n - 1, m - 1, (long long)c[n * m - 1]);
        free(serial);
    }
    free(rows);
    free(send_counts);
    free(send_displs);
    free(recv_counts);
    free(recv_displs);
    free(my_a);
    free(my_c);
    free(a);
    free(b);
    free(c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(4 * size, 12, 10, 0); /* divides evenly: Scatter */
    run(2, 5, 3, 1);          /* fewer rows than ranks when size > 2 */
    run(30, 20, 25, 2);       /* 30 rows: Scatterv unless size divides 30 */
    run(1, 1, 1, 3);
    if (rank == 0) printf("matmul: done\n");
    MPI_Finalize();
    return 0;
}
