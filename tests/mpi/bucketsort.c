/* bucketsort.c: parallel bucket sort. N pseudo-random 20-bit integers come from one fixed 64-bit LCG (Knuth's MMIX
 * constants, not rand(), whose sequence differs between C libraries); rank r generates the r-th block of the
 * sequence. Each rank counts how many of its values fall into each rank's bucket (value range split evenly),
 * MPI_Alltoall exchanges the counts, MPI_Alltoallv the values, and each rank sorts its bucket with qsort.
 * Checks: every bucket holds only its range, buckets are globally ordered, the total count, sum and sum of squares
 * are those of the input (a permutation), and a position-weighted checksum of the sorted sequence, which depends
 * only on N and the generator, not on the rank count. Only rank 0 prints. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define VALUE_BITS 20

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL bucketsort: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

static unsigned long long lcg_state;

static int next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)(lcg_state >> (64 - VALUE_BITS));
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int bucket_of(int value) { return (int)(((long long)value * size) >> VALUE_BITS); }

static void *allocate(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    CHECK(p != NULL, "out of memory");
    return p;
}

static void sort(int n, unsigned long long seed)
{
    /* This rank's block of the global sequence: n / size values, the first n % size ranks one more. */
    int mine = n / size + (rank < n % size), first = rank * (n / size) + (rank < n % size ? rank : n % size);
    int *values = allocate(sizeof(int) * (size_t)mine);
    lcg_state = seed;
    for (int i = 0; i < first; i++) (void)next_value();
    long long in[3] = {mine, 0, 0}; /* count, sum, sum of squares */
    for (int i = 0; i < mine; i++) {
        values[i] = next_value();
        in[1] += values[i];
        in[2] += (long long)values[i] * values[i];
    }

    /* Counts to each bucket, then the values grouped by bucket. */
    int *send_counts = allocate(sizeof(int) * (size_t)size), *recv_counts = allocate(sizeof(int) * (size_t)size),
        *send_displs = allocate(sizeof(int) * (size_t)size), *recv_displs = allocate(sizeof(int) * (size_t)size),
        *fill = allocate(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++) send_counts[r] = 0;
    for (int i = 0; i < mine; i++) send_counts[bucket_of(values[i])]++;
    MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, MPI_COMM_WORLD);
    int received = 0;
    for (int r = 0, s = 0; r < size; r++) {
        send_displs[r] = s;
        fill[r] = s;
        s += send_counts[r];
        recv_displs[r] = received;
        received += recv_counts[r];
    }
    int *grouped = allocate(sizeof(int) * (size_t)mine), *bucket = allocate(sizeof(int) * (size_t)received);
    for (int i = 0; i < mine; i++) grouped[fill[bucket_of(values[i])]++] = values[i];
    free(values); /* a simulated core has 1 MiB, of which MPI programs get about 290 KB of heap on nocmsg */
    values = NULL;
    MPI_Alltoallv(grouped, send_counts, send_displs, MPI_INT, bucket, recv_counts, recv_displs, MPI_INT,
                  MPI_COMM_WORLD);
    qsort(bucket, (size_t)received, sizeof(int), compare_ints);

    /* Local checks, then this bucket's place in the global order (MPI_Scan of the counts). */
    for (int i = 0; i < received; i++) CHECK(bucket_of(bucket[i]) == rank, "value %d in bucket %d", bucket[i], rank);
    for (int i = 1; i < received; i++) CHECK(bucket[i - 1] <= bucket[i], "bucket not sorted at %d", i);
    long long count = received, end = 0;
    MPI_Scan(&count, &end, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    long long offset = end - count;
    long long out[4] = {received, 0, 0, 0}; /* count, sum, sum of squares, position-weighted sum */
    for (int i = 0; i < received; i++) {
        out[1] += bucket[i];
        out[2] += (long long)bucket[i] * bucket[i];
        out[3] += (offset + i + 1) * bucket[i];
    }
    long long in_total[3], out_total[4];
    MPI_Reduce(in, in_total, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(out, out_total, 4, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    /* Global order: every bucket's first and last value (or -1, -1 when empty) at rank 0. */
    int ends[2] = {received ? bucket[0] : -1, received ? bucket[received - 1] : -1};
    int *all_ends = allocate(sizeof(int) * 2 * (size_t)size);
    MPI_Gather(ends, 2, MPI_INT, all_ends, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int last = -1, smallest = -1, largest = -1;
        for (int r = 0; r < size; r++) {
            if (all_ends[2 * r] < 0) continue;
            CHECK(all_ends[2 * r] >= last, "bucket %d starts at %d, below the previous bucket's end %d", r,
                  all_ends[2 * r], last);
            if (smallest < 0) smallest = all_ends[2 * r];
            last = largest = all_ends[2 * r + 1];
        }
        CHECK(in_total[0] == n && out_total[0] == n, "counts: %lld generated, %lld sorted, expected %d", in_total[0],
              out_total[0], n);
        CHECK(in_total[1] == out_total[1] && in_total[2] == out_total[2],
              "not a permutation: sums %lld vs %lld, squares %lld vs %lld", in_total[1], out_total[1], in_total[2],
              out_total[2]);
        printf("bucketsort: n=%d seed=%llu sum=%lld squares=%lld min=%d max=%d OK\n", n, seed, out_total[1],
               out_total[2], smallest, largest);
        printf("bucketsort: n=%d globally sorted, weighted checksum=%lld OK\n", n, out_total[3]);
    }
    free(values);
    free(send_counts);
    free(recv_counts);
    free(send_displs);
    free(recv_displs);
    free(fill);
    free(grouped);
    free(bucket);
    free(all_ends);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sort(1, 1);
    sort(10, 2);
    sort(1000, 3);
    sort(25000, 20240601); /* on one rank: 100 KB of values, held at most twice at a time */
    if (rank == 0) printf("bucketsort: done\n");
    MPI_Finalize();
    return 0;
}
