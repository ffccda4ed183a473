/* bucketsort.c: bucket sort of 32-bit keys, the two algorithms of the SCC broadcast study:
 *
 *   broadcast  rank 0 broadcasts all keys; every rank keeps the keys of its bucket (an equal share of the key
 *              range), sorts them, and rank 0 gathers the sorted buckets in order;
 *   scatter    rank 0 scatters the keys in equal blocks and broadcasts bucket boundaries taken from a sample of
 *              the keys; every rank splits its block by bucket, an all-to-all exchange brings every rank its
 *              bucket, which it sorts, and rank 0 gathers the sorted buckets in order.
 *
 *     bucketsort KEYS broadcast|scatter BCAST
 *
 * Communication: every collective; computation: selecting, splitting and sorting (radix sort, 8 bits a pass).
 * Rank 0 checks that the result is sorted and is a permutation of the keys. Prints apptime.h's line. */
#include "apptime.h"

static uint32_t key_of(long i) { return (uint32_t)app_mix((uint64_t)i * 2654435761u); }

/* LSD radix sort of n keys, 8 bits a pass, through tmp. */
static void radix_sort(uint32_t *k, uint32_t *tmp, long n)
{
    for (int shift = 0; shift < 32; shift += 8) {
        long count[257] = {0};
        for (long i = 0; i < n; i++)
            count[((k[i] >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (long i = 0; i < n; i++)
            tmp[count[(k[i] >> shift) & 0xff]++] = k[i];
        memcpy(k, tmp, (size_t)n * 4);
    }
}

/* The bucket of key k among p buckets with boundaries bound[0..p-2] (bucket b holds bound[b-1] <= k < bound[b]). */
static int bucket_of(uint32_t k, const uint32_t *bound, int p)
{
    int lo = 0, hi = p - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (k < bound[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    if (argc != 4 || (strcmp(argv[2], "broadcast") && strcmp(argv[2], "scatter")))
        app_die("usage: bucketsort KEYS broadcast|scatter BCAST");
    long n = app_arg(argv[1], "bucketsort: KEYS must be a positive integer");
    int scatter = !strcmp(argv[2], "scatter");
    app_use_bcast(argv[3]);
    int me, p;
    nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
    nocmsg_comm_size(NOCMSG_COMM_WORLD, &p);
    uint32_t *keys = malloc((size_t)n * 4), *mine = malloc((size_t)n * 4), *tmp = malloc((size_t)n * 4);
    uint32_t *bound = malloc((size_t)p * 4);
    int *counts = calloc((size_t)p, sizeof(int)), *displs = calloc((size_t)p, sizeof(int));
    int *rcounts = calloc((size_t)p, sizeof(int)), *rdispls = calloc((size_t)p, sizeof(int));
    if (!keys || !mine || !tmp || !bound || !counts || !displs || !rcounts || !rdispls)
        app_die("bucketsort: out of memory");
    if (me == 0)
        for (long i = 0; i < n; i++)
            keys[i] = key_of(i);
    struct app_clock clock = {0, 0, 0};
    nocmsg_barrier(NOCMSG_COMM_WORLD);
    uint64_t start = app_now();
    app_start(&clock);
    long have = 0;
    if (!scatter) {
        nocmsg_bcast(keys, (int)n, NOCMSG_UINT32, 0, NOCMSG_COMM_WORLD);
        app_charge(&clock, 1);
        uint64_t lo = ((uint64_t)1 << 32) * (uint64_t)me / (uint64_t)p;
        uint64_t hi = ((uint64_t)1 << 32) * (uint64_t)(me + 1) / (uint64_t)p;
        for (long i = 0; i < n; i++)
            if (keys[i] >= lo && keys[i] < hi)
                mine[have++] = keys[i];
    } else {
        /* Equal blocks; rank 0 picks boundaries from a sample of 32 keys per bucket. */
        for (int r = 0; r < p; r++) {
            counts[r] = (int)(n * (r + 1) / p - n * r / p);
            displs[r] = (int)(n * r / p);
        }
        if (me == 0) {
            long samples = 32 * (long)p < n ? 32 * (long)p : n;
            for (long s = 0; s < samples; s++)
                tmp[s] = keys[s * n / samples];
            radix_sort(tmp, mine, samples);
            for (int b = 0; b < p - 1; b++)
                bound[b] = tmp[(b + 1) * samples / p];
        }
        app_charge(&clock, 0);
        nocmsg_scatterv(keys, counts, displs, NOCMSG_UINT32, me == 0 ? NOCMSG_IN_PLACE : keys + displs[me],
                        counts[me], NOCMSG_UINT32, 0, NOCMSG_COMM_WORLD);
        nocmsg_bcast(bound, p - 1, NOCMSG_UINT32, 0, NOCMSG_COMM_WORLD);
        app_charge(&clock, 1);
        /* Split my block by bucket (counting sort by bucket into tmp). */
        const uint32_t *block = keys + displs[me];
        int *send = calloc((size_t)p, sizeof(int)), *sdispl = calloc((size_t)p, sizeof(int));
        if (!send || !sdispl)
            app_die("bucketsort: out of memory");
        for (int i = 0; i < counts[me]; i++)
            send[bucket_of(block[i], bound, p)]++;
        for (int b = 1; b < p; b++)
            sdispl[b] = sdispl[b - 1] + send[b - 1];
        int *fill = calloc((size_t)p, sizeof(int));
        if (!fill)
            app_die("bucketsort: out of memory");
        for (int i = 0; i < counts[me]; i++) {
            int b = bucket_of(block[i], bound, p);
            tmp[sdispl[b] + fill[b]++] = block[i];
        }
        app_charge(&clock, 0);
        nocmsg_alltoall(send, 1, NOCMSG_INT, rcounts, 1, NOCMSG_INT, NOCMSG_COMM_WORLD);
        for (int r = 1; r < p; r++)
            rdispls[r] = rdispls[r - 1] + rcounts[r - 1];
        have = rdispls[p - 1] + rcounts[p - 1];
        nocmsg_alltoallv(tmp, send, sdispl, NOCMSG_UINT32, mine, rcounts, rdispls, NOCMSG_UINT32,
                         NOCMSG_COMM_WORLD);
        app_charge(&clock, 1);
        free(send);
        free(sdispl);
        free(fill);
    }
    radix_sort(mine, tmp, have);
    app_charge(&clock, 0);
    /* Gather the sorted buckets in rank order at rank 0. */
    int count = (int)have;
    nocmsg_gather(&count, 1, NOCMSG_INT, counts, 1, NOCMSG_INT, 0, NOCMSG_COMM_WORLD);
    if (me == 0)
        for (int r = 1; r < p; r++)
            displs[r] = displs[r - 1] + counts[r - 1];
    nocmsg_gatherv(mine, count, NOCMSG_UINT32, keys, counts, displs, NOCMSG_UINT32, 0, NOCMSG_COMM_WORLD);
    app_charge(&clock, 1);
    int ok = 1;
    char why[160] = "";
    if (me == 0) {
        displs[0] = 0;
        long total = (long)displs[p - 1] + counts[p - 1];
        uint64_t sum = 0, want = 0;
        for (long i = 0; i < n; i++) {
            want += app_mix(key_of(i));
            if (i < total)
                sum += app_mix(keys[i]);
        }
        if (total != n)
            snprintf(why, sizeof why, "%ld keys came back, expected %ld", total, n), ok = 0;
        for (long i = 1; i < n && ok; i++)
            if (keys[i - 1] > keys[i])
                snprintf(why, sizeof why, "keys %ld and %ld are out of order", i - 1, i), ok = 0;
        if (ok && sum != want)
            snprintf(why, sizeof why, "the keys are not the ones sorted"), ok = 0;
    }
    app_report("bucketsort", argv[2], argv[3], n, start, &clock, ok, why);
    nocmsg_finalize();
    return 0;
}
