/* is.c: NAS Integer Sort (IS), our own MPI implementation from the specification: ranks N integer keys in [0, K)
 * by a parallel bucket sort, ten times, with the keys changed a little before each ranking.
 *
 *     is CLASS      S: N = 2^16, K = 2^11;  W: N = 2^20, K = 2^16;  A: N = 2^23, K = 2^19
 *     is weak N     N keys per rank (N x ranks in all), K = 2^16; checked by the full verification only
 *
 * Keys (RNR-94-007, the IS kernel; NPB 3 create_seq): key i = floor(K/4 (r[4i+1] + r[4i+2] + r[4i+3] +
 * r[4i+4])), r the NAS generator (npbrun.h) with seed 314159265 and a = 5^13, so the keys have a bell-shaped
 * distribution. Rank r generates the keys with global indices [N r / p, N (r+1) / p), jumping ahead 4 N r / p steps,
 * so the key sequence is the same for every rank count. Before ranking number `it` (1..10) key `it` becomes `it`
 * and key `it + 10` becomes K - it (global indices: the rank holding them changes them).
 *
 * Ranking, one iteration:
 *   1. every rank counts its keys into B = 1024 buckets (bucket = key >> log2(K / B));
 *   2. MPI_Allreduce sums the bucket counts (and carries the five test keys of the partial verification from the
 *      ranks holding them); every rank then splits the buckets into p contiguous ranges holding about N / p keys
 *      each, the same split on every rank;
 *   3. each rank orders its keys by bucket, MPI_Alltoall exchanges the counts and MPI_Alltoallv the keys, so rank
 *      j receives every key of its bucket range;
 *   4. each rank counts its received keys per key value; the prefix sums plus the number of keys of the lower
 *      buckets (known from step 2) give the rank of every key value: the number of keys smaller than it.
 * Partial verification (timed, as in NPB): the rank owning key value k - 1 checks that the rank of each test key k
 * is the specification's value, adjusted by the iteration as NPB 3 adjusts it (per class, below): 5 tests in each
 * of the 10 timed iterations, 50 passes in all. Full verification (after timing): every rank places its keys by
 * their ranks and checks the result is sorted; rank 0 checks that the ranks' key ranges follow each other and that no
 * key was lost (count and sum of all keys before and after the exchange).
 *
 * As NPB does, one ranking (iteration 1) runs untimed first, then the ten timed ones.
 *
 * Sources: sizes, generator, key modifications and test keys from Bailey et al., "The NAS Parallel Benchmarks",
 * RNR-94-007 (1994) and the NPB 3 IS documentation; the test indices, ranks and per-iteration adjustments are the
 * values of NPB 3.x's is.c (S_/W_/A_test_index_array and test_rank_array, identical in every NPB 3 version).
 *
 * Ranks: any number from 1 to 1024 (the buckets are the unit of distribution; ranks may receive no keys). */
#include "npbrun.h"

#define ITERATIONS 10
#define BUCKETS_LOG2 10
#define TESTS 5

struct is_class {
    char cls;
    int keys_log2, max_key_log2;
    long test_index[TESTS], test_rank[TESTS];
};

static const struct is_class classes[] = {
    {'S', 16, 11, {48427, 17148, 23627, 62548, 4431}, {0, 18, 346, 64917, 65463}},
    {'W', 20, 16, {357773, 934767, 875723, 898999, 404505}, {1249, 11698, 1039987, 1043896, 1048018}},
    {'A', 23, 19, {2112377, 662041, 5336171, 3642833, 4250760}, {104, 17523, 123928, 8288932, 8388264}},
};

/* The rank test key `t` must have in iteration `it` (NPB 3's partial_verify: the key modifications move the small
 * test keys up and the large ones down, by amounts that depend on where the modified keys fall). */
static long expected_rank(char cls, const long *test_rank, int t, int it)
{
    switch (cls) {
    case 'S': return t <= 2 ? test_rank[t] + it : test_rank[t] - it;
    case 'W': return t < 2 ? test_rank[t] + (it - 2) : test_rank[t] - it;
    default: return t <= 2 ? test_rank[t] + (it - 1) : test_rank[t] - (it - 1);
    }
}

/* One run's state on one rank. */
struct is_state {
    int me, p;
    long total_keys;
    int max_key, bucket_shift, nbuckets;
    long lo, hi;             /* global indices of this rank's keys */
    int *keys;               /* hi - lo generated keys */
    int *sendbuf;            /* the same keys ordered by bucket */
    int *recvbuf;            /* the keys of this rank's buckets, after the exchange */
    long recv_capacity, nrecv;
    long *bucket_counts;     /* local counts, then (after the allreduce) global counts + test keys */
    long *bucket_global;
    int *bucket_first;       /* bucket_first[j]: first bucket of rank j; bucket_first[p] = nbuckets */
    int *sendcounts, *sdispls, *recvcounts, *rdispls;
    long *bucket_pos;        /* scratch: where each bucket's keys go in sendbuf */
    int *rank_of;            /* rank_of[k - key_lo] = number of keys <= k (after step 4) */
    int key_lo, key_hi;      /* this rank's key values [key_lo, key_hi) */
    long keys_below;         /* keys on lower ranks */
    /* partial verification */
    const struct is_class *cls;
    long passed;
};

/* Generates this rank's keys (NPB create_seq on global indices [lo, hi)). */
static void generate_keys(struct is_state *s)
{
    uint64_t x = (NPB_SEED * npb_pow46(NPB_A, 4 * (uint64_t)s->lo)) & NPB_MASK46;
    double quarter = (double)(s->max_key / 4);
    for (long i = 0; i < s->hi - s->lo; i++) {
        double r = npb_randlc(&x, NPB_A);
        r += npb_randlc(&x, NPB_A);
        r += npb_randlc(&x, NPB_A);
        r += npb_randlc(&x, NPB_A);
        s->keys[i] = (int)(quarter * r);
    }
}

/* Splits the buckets into p contiguous ranges of about total / p keys (the same on every rank). */
static void split_buckets(struct is_state *s)
{
    int j = 0;
    long acc = 0;
    s->bucket_first[0] = 0;
    for (int b = 0; b < s->nbuckets; b++) {
        acc += s->bucket_global[b];
        /* bucket b is rank j's; rank j is full once the keys so far reach its share */
        while (j < s->p - 1 && acc * s->p >= (long)(j + 1) * s->total_keys)
            s->bucket_first[++j] = b + 1;
    }
    while (j < s->p)
        s->bucket_first[++j] = s->nbuckets;
}

/* One ranking (iteration `it`); checks the test keys when `check` is set. */
static void rank_keys(struct is_state *s, int it, int check)
{
    long n = s->hi - s->lo;
    int nb = s->nbuckets, p = s->p;
    /* The modifications of this iteration, on whichever rank holds those keys. */
    if (it >= s->lo && it < s->hi)
        s->keys[it - s->lo] = it;
    if (it + ITERATIONS >= s->lo && it + ITERATIONS < s->hi)
        s->keys[it + ITERATIONS - s->lo] = s->max_key - it;

    /* 1. Local bucket counts; the test keys ride along at the end of the array. */
    long *cnt = s->bucket_counts;
    memset(cnt, 0, (size_t)(nb + TESTS) * sizeof *cnt);
    for (long i = 0; i < n; i++)
        cnt[s->keys[i] >> s->bucket_shift]++;
    if (s->cls)
        for (int t = 0; t < TESTS; t++) {
            long g = s->cls->test_index[t];
            if (g >= s->lo && g < s->hi)
                cnt[nb + t] = s->keys[g - s->lo];
        }

    /* 2. Global counts, and the split of the buckets among the ranks. */
    NPB_COMM(MPI_Allreduce(cnt, s->bucket_global, nb + TESTS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    split_buckets(s);

    /* 3. Order the keys by bucket, then exchange. */
    long pos = 0;
    for (int b = 0; b < nb; b++) {
        s->bucket_pos[b] = pos;
        pos += cnt[b];
    }
    for (int j = 0; j < p; j++) {
        long c = 0;
        for (int b = s->bucket_first[j]; b < s->bucket_first[j + 1]; b++)
            c += cnt[b];
        s->sendcounts[j] = (int)c;
    }
    s->sdispls[0] = 0;
    for (int j = 1; j < p; j++)
        s->sdispls[j] = s->sdispls[j - 1] + s->sendcounts[j - 1];
    for (long i = 0; i < n; i++) {
        int k = s->keys[i];
        s->sendbuf[s->bucket_pos[k >> s->bucket_shift]++] = k;
    }
    NPB_COMM(MPI_Alltoall(s->sendcounts, 1, MPI_INT, s->recvcounts, 1, MPI_INT, MPI_COMM_WORLD));
    long nrecv = 0;
    for (int j = 0; j < p; j++) {
        s->rdispls[j] = (int)nrecv;
        nrecv += s->recvcounts[j];
    }
    if (nrecv > s->recv_capacity) {
        free(s->recvbuf);
        s->recv_capacity = nrecv + nrecv / 8;
        s->recvbuf = npb_alloc((size_t)s->recv_capacity * sizeof(int), "received keys");
    }
    s->nrecv = nrecv;
#ifdef NPB_XCHG
    int done = 0;
    NPB_COMM(done = npb_xchg_alltoallv(s->sendbuf, s->sendcounts, s->sdispls, s->recvbuf, s->recvcounts, s->rdispls,
                                       sizeof(int)));
    if (!done)
#endif
    NPB_COMM(MPI_Alltoallv(s->sendbuf, s->sendcounts, s->sdispls, MPI_INT, s->recvbuf, s->recvcounts, s->rdispls,
                           MPI_INT, MPI_COMM_WORLD));

    /* 4. Ranks of the key values of my buckets. */
    s->key_lo = s->bucket_first[s->me] << s->bucket_shift;
    s->key_hi = s->bucket_first[s->me + 1] << s->bucket_shift;
    s->keys_below = 0;
    for (int b = 0; b < s->bucket_first[s->me]; b++)
        s->keys_below += s->bucket_global[b];
    int range = s->key_hi - s->key_lo;
    int *hist = s->rank_of;
    memset(hist, 0, (size_t)(range > 0 ? range : 1) * sizeof *hist);
    for (long i = 0; i < nrecv; i++)
        hist[s->recvbuf[i] - s->key_lo]++;
    for (int k = 1; k < range; k++)
        hist[k] += hist[k - 1];

    /* Partial verification: the rank of test key k is the number of keys < k, found where k - 1 lives. */
    if (check && s->cls)
        for (int t = 0; t < TESTS; t++) {
            long k = s->bucket_global[nb + t];
            if (k > 0 && k <= s->total_keys - 1 && k - 1 >= s->key_lo && k - 1 < s->key_hi) {
                long rank = s->keys_below + hist[k - 1 - s->key_lo];
                if (rank == expected_rank(s->cls->cls, s->cls->test_rank, t, it))
                    s->passed++;
                else
                    npb_note("is: iteration %d: test key %d (value %ld) has rank %ld, expected %ld\n", it, t, k,
                             rank, expected_rank(s->cls->cls, s->cls->test_rank, t, it));
            }
        }
}

/* The full verification; fills why and returns 1 if all is well on this rank (rank 0 also checks the whole). */
static int full_verify(struct is_state *s, long long key_sum_before, char *why, size_t why_len)
{
    int ok = 1;
    /* Place every received key by its rank (rank_of counts keys <= k, so the last key of value k goes to
     * rank_of[k] - 1) and check the result is sorted. */
    int *sorted = npb_alloc((size_t)(s->nrecv ? s->nrecv : 1) * sizeof(int), "sorted keys");
    long long sum_after = 0;
    for (long i = 0; i < s->nrecv; i++) {
        int k = s->recvbuf[i];
        long at = --s->rank_of[k - s->key_lo];
        if (at < 0 || at >= s->nrecv) {
            ok = 0;
            snprintf(why, why_len, "key %d ranked outside rank %d", k, s->me);
            break;
        }
        sorted[at] = k;
        sum_after += k;
    }
    for (long i = 1; ok && i < s->nrecv; i++)
        if (sorted[i - 1] > sorted[i]) {
            ok = 0;
            snprintf(why, why_len, "keys not sorted on rank %d at %ld", s->me, i);
        }
    /* The whole: per rank (count, first, last), and the sums before and after. */
    long long mine[3] = {s->nrecv, s->nrecv ? sorted[0] : -1, s->nrecv ? sorted[s->nrecv - 1] : -1};
    long long *all = s->me == 0 ? npb_alloc((size_t)s->p * sizeof mine, "ranges") : NULL;
    MPI_Gather(mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    long long sums[2] = {key_sum_before, sum_after}, total_sums[2];
    MPI_Reduce(sums, total_sums, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (s->me == 0 && ok) {
        long long count = 0, last = -1;
        for (int j = 0; j < s->p && ok; j++) {
            count += all[3 * j];
            if (all[3 * j] == 0)
                continue;
            if (all[3 * j + 1] < last) {
                ok = 0;
                snprintf(why, why_len, "rank %d starts at key %lld below %lld", j, all[3 * j + 1], last);
            }
            last = all[3 * j + 2];
        }
        if (ok && count != s->total_keys) {
            ok = 0;
            snprintf(why, why_len, "%lld keys after the exchange instead of %ld", count, s->total_keys);
        }
        if (ok && total_sums[0] != total_sums[1]) {
            ok = 0;
            snprintf(why, why_len, "key sum %lld after the exchange instead of %lld", total_sums[1], total_sums[0]);
        }
    }
    free(all);
    free(sorted);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct npb_args args;
    struct is_state s;
    memset(&s, 0, sizeof s);
    MPI_Comm_rank(MPI_COMM_WORLD, &s.me);
    MPI_Comm_size(MPI_COMM_WORLD, &s.p);
    if (!npb_parse_args(argc, argv, &args))
        return npb_usage("usage: is CLASS (S, W or A) | is weak KEYS_PER_RANK");
    if (s.p > 1024)
        return npb_usage("is: at most 1024 ranks (one bucket each at least), not %d", s.p);
    int max_key_log2;
    if (args.cls == 'w') {
        if (args.weak_n > (1L << 26))
            return npb_usage("is: at most 2^26 keys per rank");
        s.total_keys = args.weak_n * s.p;
        max_key_log2 = 16;
        if (s.total_keys <= 2 * ITERATIONS)
            return npb_usage("is: weak: more than %d keys in all needed (the key modifications)", 2 * ITERATIONS);
    } else {
        for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
            if (classes[c].cls == args.cls)
                s.cls = &classes[c];
        s.total_keys = 1L << s.cls->keys_log2;
        max_key_log2 = s.cls->max_key_log2;
    }
    s.max_key = 1 << max_key_log2;
    s.nbuckets = 1 << BUCKETS_LOG2;
    s.bucket_shift = max_key_log2 - BUCKETS_LOG2;
    s.lo = s.total_keys * s.me / s.p;
    s.hi = s.total_keys * (s.me + 1) / s.p;
    long n = s.hi - s.lo;

    s.keys = npb_alloc((size_t)(n ? n : 1) * sizeof(int), "keys");
    s.sendbuf = npb_alloc((size_t)(n ? n : 1) * sizeof(int), "send buffer");
    s.recv_capacity = n + n / 4 + 16;
    s.recvbuf = npb_alloc((size_t)s.recv_capacity * sizeof(int), "receive buffer");
    s.bucket_counts = npb_alloc((size_t)(s.nbuckets + TESTS) * sizeof(long), "bucket counts");
    s.bucket_global = npb_alloc((size_t)(s.nbuckets + TESTS) * sizeof(long), "bucket counts");
    s.bucket_pos = npb_alloc((size_t)s.nbuckets * sizeof(long), "bucket positions");
    s.bucket_first = npb_alloc((size_t)(s.p + 1) * sizeof(int), "bucket split");
    s.sendcounts = npb_alloc((size_t)s.p * sizeof(int), "counts");
    s.sdispls = npb_alloc((size_t)s.p * sizeof(int), "counts");
    s.recvcounts = npb_alloc((size_t)s.p * sizeof(int), "counts");
    s.rdispls = npb_alloc((size_t)s.p * sizeof(int), "counts");
    s.rank_of = npb_alloc((size_t)s.max_key * sizeof(int), "key ranks");

    generate_keys(&s);
    long long key_sum = 0; /* of the keys as the last iteration leaves them, for the full verification */

    /* One untimed ranking, as NPB does, then the ten timed ones. */
    rank_keys(&s, 1, 0);
    struct npb_timer timer;
    npb_timer_start(&timer);
    for (int it = 1; it <= ITERATIONS; it++)
        rank_keys(&s, it, 1);
    npb_timer_stop(&timer);

    for (long i = 0; i < n; i++)
        key_sum += s.keys[i];
    char why[160] = "";
    int ok = full_verify(&s, key_sum, why, sizeof why);
    long passed = 0;
    MPI_Reduce(&s.passed, &passed, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (s.me == 0 && ok && s.cls && passed != TESTS * ITERATIONS) {
        ok = 0;
        snprintf(why, sizeof why, "partial verification passed %ld of %d", passed, TESTS * ITERATIONS);
    }
    int status = npb_report("is", args.label, &timer, ok, why);
    free(s.keys);
    free(s.sendbuf);
    free(s.recvbuf);
    free(s.bucket_counts);
    free(s.bucket_global);
    free(s.bucket_pos);
    free(s.bucket_first);
    free(s.sendcounts);
    free(s.sdispls);
    free(s.recvcounts);
    free(s.rdispls);
    free(s.rank_of);
    MPI_Finalize();
    return status;
}
