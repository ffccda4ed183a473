/* inplace.c: MPI_IN_PLACE in every collective that accepts it: Reduce (at the root), Allreduce, Gather and Gatherv
 * (at the root), Scatter and Scatterv (at the root), Allgather, Allgatherv, Alltoall, Alltoallv, Reduce_scatter,
 * Reduce_scatter_block, Scan and Exscan (rank 0's Exscan result is undefined and is not checked). Each runs at
 * several counts (1, 3 and 1000 ints per block) and, where there is one, at every root; every rank checks its
 * own result, including that the root's block is where it belongs and that nothing else was written. Only rank 0
 * prints (one line per operation, with a checksum of rank 0's last result). */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define SENTINEL (-99999)

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL inplace: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

static const int counts[] = {1, 3, 1000};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

/* Rank r's i-th input value. Small enough that sums over 16 ranks stay far from overflow. */
static int value(int r, int i) { return (r + 1) * 1000 + (i * 37) % 101 - 50; }

static int *buffer(int n)
{
    int *b = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    CHECK(b != NULL, "out of memory");
    for (int i = 0; i < n; i++) b[i] = SENTINEL;
    return b;
}

static long long checksum(const int *b, int n)
{
    long long s = 0;
    for (int i = 0; i < n; i++) s += (long long)b[i] * (i % 7 + 1);
    return s;
}

/* The sum of value(r, i) over ranks first..last. */
static int sum_over(int first, int last, int i)
{
    int s = 0;
    for (int r = first; r <= last; r++) s += value(r, i);
    return s;
}

static void report(const char *what, long long sum)
{
    if (rank == 0) printf("inplace: %s checksum=%lld OK\n", what, sum);
}

/* MPICH 4.0 (Debian 12's) crashes in MPI_Reduce with MPI_IN_PLACE at a root other than 0 once the message is long
 * enough for its reduce-scatter-gather algorithm (more than 2048 bytes): pmodels/mpich issue 6540, fixed in 4.1.2.
 * So 1000 ints are reduced to root 0 only, and 500 ints (2000 bytes, still past the simulator's 512-byte eager
 * limit) to every root. */
static void reduce(void)
{
    static const int reduce_counts[] = {1, 3, 500, 1000};
    long long sum = 0;
    for (int c = 0; c < 4; c++) {
        int n = reduce_counts[c];
        for (int root = 0; root < (n > 500 ? 1 : size); root++) {
            int *b = buffer(n);
            for (int i = 0; i < n; i++) b[i] = value(rank, i);
            if (rank == root)
                MPI_Reduce(MPI_IN_PLACE, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
            else
                MPI_Reduce(b, NULL, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK(b[i] == (rank == root ? sum_over(0, size - 1, i) : value(rank, i)),
                      "Reduce n=%d root %d: b[%d] = %d", n, root, i, b[i]);
            if (rank == 0 && root == 0) sum = checksum(b, n);
            free(b);
        }
    }
    report("Reduce (IN_PLACE at each root) SUM", sum);
}

static void allreduce(void)
{
    long long sum = 0;
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c], *b = buffer(n);
        for (int i = 0; i < n; i++) b[i] = value(rank, i);
        MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) CHECK(b[i] == value(size - 1, i), "Allreduce n=%d: b[%d] = %d", n, i, b[i]);
        sum = checksum(b, n);
        free(b);
    }
    report("Allreduce MAX", sum);
}

/* Gather and Gatherv: the root's own block is already in place in the receive buffer. Gatherv's block r
 * has 2r more ints than Gather's, with a gap of 2 after each block. */
static void gathers(void)
{
    long long sum[2] = {0, 0};
    for (int v = 0; v < 2; v++)
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c];
            int *rc = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size), total = 0;
            for (int r = 0; r < size; r++) {
                rc[r] = v ? n + 2 * r : n;
                displs[r] = total;
                total += rc[r] + (v ? 2 : 0);
            }
            for (int root = 0; root < size; root++) {
                int *b = buffer(rank == root ? total : 0), *mine = buffer(rc[rank]);
                for (int i = 0; i < rc[rank]; i++) mine[i] = value(rank, i);
                if (rank == root) {
                    for (int i = 0; i < rc[rank]; i++) b[displs[rank] + i] = value(rank, i);
                    if (v)
                        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, rc, displs, MPI_INT, root, MPI_COMM_WORLD);
                    else
                        MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, root, MPI_COMM_WORLD);
                    for (int r = 0, at = 0; r < size; r++) {
                        for (int i = 0; i < rc[r]; i++, at++)
                            CHECK(b[at] == value(r, i), "%s n=%d root %d: block %d [%d] = %d", v ? "Gatherv" : "Gather",
                                  n, root, r, i, b[at]);
                        for (int g = 0; v && g < 2; g++, at++)
                            CHECK(b[at] == SENTINEL, "Gatherv n=%d root %d: gap after block %d written", n, root, r);
                    }
                    if (root == 0) sum[v] = checksum(b, total);
                } else if (v) {
                    MPI_Gatherv(mine, rc[rank], MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD);
                } else {
                    MPI_Gather(mine, n, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD);
                }
                free(b);
                free(mine);
            }
            free(rc);
            free(displs);
        }
    report("Gather (IN_PLACE at each root)", sum[0]);
    report("Gatherv (IN_PLACE at each root)", sum[1]);
}

/* Scatter and Scatterv: the root keeps its block in the send buffer and receives nothing. */
static void scatters(void)
{
    long long sum[2] = {0, 0};
    for (int v = 0; v < 2; v++)
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c];
            int *sc = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size), total = 0;
            for (int r = 0; r < size; r++) {
                sc[r] = v ? n + size - r : n;
                displs[r] = total;
                total += sc[r] + (v ? 1 : 0);
            }
            for (int root = 0; root < size; root++) {
                int *b = buffer(total), *mine = buffer(sc[rank] + 1);
                if (rank == root) {
                    for (int r = 0; r < size; r++)
                        for (int i = 0; i < sc[r]; i++) b[displs[r] + i] = value(r, i) + root;
                    if (v)
                        MPI_Scatterv(b, sc, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
                    else
                        MPI_Scatter(b, n, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
                    for (int r = 0; r < size; r++)
                        for (int i = 0; i < sc[r]; i++)
                            CHECK(b[displs[r] + i] == value(r, i) + root, "%s root %d: send buffer changed",
                                  v ? "Scatterv" : "Scatter", root);
                    CHECK(mine[0] == SENTINEL, "%s root %d: root's other buffer written", v ? "Scatterv" : "Scatter",
                          root);
                } else {
                    if (v)
                        MPI_Scatterv(NULL, NULL, NULL, MPI_INT, mine, sc[rank], MPI_INT, root, MPI_COMM_WORLD);
                    else
                        MPI_Scatter(NULL, 0, MPI_INT, mine, n, MPI_INT, root, MPI_COMM_WORLD);
                    for (int i = 0; i < sc[rank]; i++)
                        CHECK(mine[i] == value(rank, i) + root, "%s n=%d root %d: [%d] = %d", v ? "Scatterv" : "Scatter",
                              n, root, i, mine[i]);
                    CHECK(mine[sc[rank]] == SENTINEL, "%s root %d: wrote past the block", v ? "Scatterv" : "Scatter",
                          root);
                }
                if (root == size - 1) {
                    long long s = rank == root ? checksum(b + displs[rank], sc[rank]) : checksum(mine, sc[rank]), all = 0;
                    MPI_Reduce(&s, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
                    if (rank == 0) sum[v] = all;
                }
                free(b);
                free(mine);
            }
            free(sc);
            free(displs);
        }
    report("Scatter (IN_PLACE at each root), all blocks", sum[0]);
    report("Scatterv (IN_PLACE at each root), all blocks", sum[1]);
}

static void allgathers(void)
{
    long long sum[2] = {0, 0};
    for (int v = 0; v < 2; v++)
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c];
            int *rc = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size), total = 0;
            for (int r = 0; r < size; r++) {
                rc[r] = v ? n + r % 3 : n;
                displs[r] = total;
                total += rc[r] + (v ? 1 : 0);
            }
            int *b = buffer(total);
            for (int i = 0; i < rc[rank]; i++) b[displs[rank] + i] = value(rank, i);
            if (v)
                MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, rc, displs, MPI_INT, MPI_COMM_WORLD);
            else
                MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, MPI_COMM_WORLD);
            for (int r = 0, at = 0; r < size; r++) {
                for (int i = 0; i < rc[r]; i++, at++)
                    CHECK(b[at] == value(r, i), "%s n=%d: block %d [%d] = %d", v ? "Allgatherv" : "Allgather", n, r, i,
                          b[at]);
                if (v) CHECK(b[at++] == SENTINEL, "Allgatherv n=%d: gap after block %d written", n, r);
            }
            sum[v] = checksum(b, total);
            free(b);
            free(rc);
            free(displs);
        }
    report("Allgather", sum[0]);
    report("Allgatherv", sum[1]);
}

/* Alltoall and Alltoallv: block j of rank r's buffer goes to rank j and is replaced by rank j's block r. */
static int a2a(int from, int to, int i) { return from * 100000 + to * 1000 + i % 1000; }

static void alltoalls(void)
{
    long long sum[2] = {0, 0};
    for (int v = 0; v < 2; v++)
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c] > 100 ? 100 : counts[c];
            /* Alltoallv: the block between ranks j and r has n + (j + r) % 3 ints either way (so both sides agree),
             * with one int of gap after each block. */
            int *cnt = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size), total = 0;
            for (int j = 0; j < size; j++) {
                cnt[j] = v ? n + (j + rank) % 3 : n;
                displs[j] = total;
                total += cnt[j] + (v ? 1 : 0);
            }
            int *b = buffer(total);
            for (int j = 0; j < size; j++)
                for (int i = 0; i < cnt[j]; i++) b[displs[j] + i] = a2a(rank, j, i);
            if (v)
                MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, cnt, displs, MPI_INT, MPI_COMM_WORLD);
            else
                MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, MPI_COMM_WORLD);
            for (int j = 0; j < size; j++) {
                for (int i = 0; i < cnt[j]; i++)
                    CHECK(b[displs[j] + i] == a2a(j, rank, i), "%s n=%d: block from %d [%d] = %d",
                          v ? "Alltoallv" : "Alltoall", n, j, i, b[displs[j] + i]);
                if (v) CHECK(b[displs[j] + cnt[j]] == SENTINEL, "Alltoallv n=%d: gap after block %d written", n, j);
            }
            long long s = checksum(b, total), all = 0;
            MPI_Reduce(&s, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            sum[v] = all;
            free(b);
            free(cnt);
            free(displs);
        }
    report("Alltoall, all ranks", sum[0]);
    report("Alltoallv, all ranks", sum[1]);
}

/* Reduce_scatter (block r has n + r ints) and Reduce_scatter_block: the input is in the receive buffer. */
static void reduce_scatters(void)
{
    long long sum[2] = {0, 0};
    for (int v = 0; v < 2; v++)
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c];
            int *cnt = malloc(sizeof(int) * (size_t)size), total = 0, start = 0;
            for (int r = 0; r < size; r++) {
                cnt[r] = v ? n : n + r;
                if (r < rank) start += cnt[r];
                total += cnt[r];
            }
            int *b = buffer(total + 1);
            for (int i = 0; i < total; i++) b[i] = value(rank, i);
            if (v)
                MPI_Reduce_scatter_block(MPI_IN_PLACE, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            else
                MPI_Reduce_scatter(MPI_IN_PLACE, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < cnt[rank]; i++)
                CHECK(b[i] == sum_over(0, size - 1, start + i), "%s n=%d: [%d] = %d",
                      v ? "Reduce_scatter_block" : "Reduce_scatter", n, i, b[i]);
            CHECK(b[total] == SENTINEL, "wrote past the buffer");
            long long s = checksum(b, cnt[rank]), all = 0;
            MPI_Reduce(&s, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            sum[v] = all;
            free(b);
            free(cnt);
        }
    report("Reduce_scatter SUM, all ranks", sum[0]);
    report("Reduce_scatter_block SUM, all ranks", sum[1]);
}

static void scans(void)
{
    long long sum[2] = {0, 0};
    for (int ex = 0; ex < 2; ex++)
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c], *b = buffer(n);
            for (int i = 0; i < n; i++) b[i] = value(rank, i);
            if (ex)
                MPI_Exscan(MPI_IN_PLACE, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            else
                MPI_Scan(MPI_IN_PLACE, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            long long s = 0;
            if (!ex || rank > 0) {
                for (int i = 0; i < n; i++)
                    CHECK(b[i] == sum_over(0, ex ? rank - 1 : rank, i), "%s n=%d: [%d] = %d", ex ? "Exscan" : "Scan",
                          n, i, b[i]);
                s = checksum(b, n);
            }
            long long all = 0;
            MPI_Reduce(&s, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            sum[ex] = all;
            free(b);
        }
    report("Scan SUM, all ranks", sum[0]);
    report("Exscan SUM, ranks 1 and up", sum[1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    reduce();
    allreduce();
    gathers();
    scatters();
    allgathers();
    alltoalls();
    reduce_scatters();
    scans();
    if (rank == 0) printf("inplace: done\n");
    MPI_Finalize();
    return 0;
}
