/*
 * coll.c: time of one collective operation, for each of its algorithms, message sizes and roots.
 *
 * One source, two builds: bin/nocmsg-cc (simulated chip: times in cycles) and bin/nocmsg-cc-native (Linux: times
 * in nanoseconds). Run it on a subset of a chip's cores (`nocmsg run -n N`, or `--tiles`) to vary the core count.
 *
 *   coll --op OP [--alg NAME[,NAME...]|all] [--sizes B[,B...]] [--roots R[,R...]] [--iters N[,N...]]
 *        [--warmup N] [--reps N[,N...]] [--budget T] [--sync once|each] [--xfer 0|1]
 *   coll --list OP        prints OP's algorithms, one per line, as nocmsg_coll_algorithms gives them
 *
 * --alg all means every algorithm of nocmsg_coll_algorithms(OP) and then "auto" (the selector); --iters and --reps
 * give one count for every size or one per size. Prints CSV on rank 0:
 *     op,algorithm,chosen,ranks,bytes,root,iterations,sync,time,unit,xfer,status
 * chosen is nocmsg_coll_choice(OP, bytes) under that setting (the selector's pick for "auto"); time is, over --reps
 * repetitions, the best of the max over ranks of each rank's mean time per call across `iterations` calls; status is
 * "ok", "wrong" (a result check after the timing failed) or the error string of a failing call. bytes is the whole
 * buffer for bcast, reduce, allreduce and scan, and the block per rank (per pair for alltoall) for gather, scatter,
 * allgather, alltoall and reduce_scatter. Reductions use NOCMSG_SUM on 32-bit integers, or on bytes when the size is
 * not a multiple of 4. root is "-" for operations without a root.
 *
 * Two timings (--sync):
 *   each (default)  latency: every call, --warmup ones (default 2) included, follows a barrier, after which all
 *                   ranks start it at the same instant (both clocks are global; see START_MARGIN) and each times
 *                   its own call from that instant. On the simulator this is exact: the same call takes the same
 *                   cycles every iteration, so a few iterations suffice.
 *   once            back to back: one barrier, --warmup untimed calls, then `iterations` calls in a row, so
 *                   consecutive calls may overlap: a pipelined algorithm (chain) shows its throughput, and an
 *                   operation whose root falls behind (reduce) its queueing; the mean depends on the iteration
 *                   count, and short runs on how the cores left the barrier, so use many iterations and --reps.
 * With --budget T (cycles simulated, ns native) a probe (two calls, the second timed) first measures the operation
 * and the iteration count becomes T divided by its time, at least 1 and at most --iters (so that a slow algorithm
 * does not take hours); every rank uses rank 0's count.
 *
 * The barriers and the collection of times use point-to-point messages only, so that a broken or slow algorithm
 * under test does not affect the measurement around it; they send a rank nothing before it has finished its call
 * (see max_over_ranks: results flooding a rank still timing its last call cost it 100,000 cycles on pimp-8x8).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nocmsg.h>

/* Both clocks are global, so ranks can agree on an instant: every core's cycle counter counts simulated time from 0
 * (a waiting core is charged the cycles it slept), and natively CLOCK_MONOTONIC is the machine's (not nocmsg_wtime,
 * whose origin is each process's start). START_MARGIN is how far ahead rank 0 schedules a start: time enough to
 * tell every rank. */
#ifdef NOCMSG_SIM
#include <nocmsg_core.h>
/* Cycles, exactly: no conversion through the clock frequency. */
static uint64_t now(void) { return nocmsg_cycles(); }
static const char *time_unit = "cycles";
#define START_MARGIN(ranks) (500 + 50 * (uint64_t)(ranks))
#else
#include <time.h>
static uint64_t now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static const char *time_unit = "ns";
#define START_MARGIN(ranks) (5000 + 2000 * (uint64_t)(ranks))
#endif

#define MAX_LIST 64
#define TAG_SYNC 901
#define TAG_RESULT 902

enum op_kind { OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_GATHER, OP_SCATTER, OP_ALLGATHER, OP_ALLTOALL,
               OP_REDUCE_SCATTER, OP_SCAN };
static const struct {
    const char *name;
    enum op_kind kind;
} ops[] = {{"barrier", OP_BARRIER},     {"bcast", OP_BCAST},         {"reduce", OP_REDUCE},
           {"allreduce", OP_ALLREDUCE}, {"gather", OP_GATHER},       {"scatter", OP_SCATTER},
           {"allgather", OP_ALLGATHER}, {"alltoall", OP_ALLTOALL},   {"reduce_scatter", OP_REDUCE_SCATTER},
           {"scan", OP_SCAN}};

struct bench {
    enum op_kind kind;
    int me, size;
    size_t bytes;     /* as on the command line (see the file comment) */
    int root;
    nocmsg_datatype type; /* NOCMSG_BYTE for data movement; INT32 or UINT8 for reductions */
    int count;        /* elements of `type` in `bytes` */
    unsigned char *send, *recv;
    int *counts;      /* reduce_scatter: `count` for every rank */
    size_t cap;       /* bytes in each of send and recv */
};

static void die(const char *what)
{
    fprintf(stderr, "coll: %s\n", what);
    nocmsg_abort(NOCMSG_COMM_WORLD, 2);
}

/* Parses "a,b,c" into at most MAX_LIST integers; returns how many. */
static int parse_list(const char *s, long *out)
{
    int n = 0;
    while (*s && n < MAX_LIST) {
        char *end;
        out[n++] = strtol(s, &end, 10);
        if (end == s || (*end && *end != ','))
            die("bad number in a list");
        s = *end ? end + 1 : end;
    }
    return n;
}

/* Every rank gets rank 0's `value` (point to point; the others wait for it, untimed). */
static uint64_t from_rank0(uint64_t value, int me, int size)
{
    if (me == 0) {
        for (int r = 1; r < size; r++)
            nocmsg_send(&value, 1, NOCMSG_UINT64, r, TAG_RESULT, NOCMSG_COMM_WORLD);
        return value;
    }
    nocmsg_recv(&value, 1, NOCMSG_UINT64, 0, TAG_RESULT, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
    return value;
}

/* Rank 0 gets the maximum of `value` over ranks, passed along a ring 0 -> 1 -> ... -> size-1 -> 0 with a running
 * maximum. A ring, not every rank sending to rank 0: a rank gets one message, and only once the ranks before it
 * have finished, so a rank still timing its last call is not flooded with results (63 unexpected messages at
 * rank 0 cost it about 100,000 cycles on pimp-8x8). It is also the first half of sync_all. */
static uint64_t max_over_ranks(uint64_t value, int me, int size)
{
    if (size == 1)
        return value;
    uint64_t v;
    if (me != 0) {
        nocmsg_recv(&v, 1, NOCMSG_UINT64, me - 1, TAG_RESULT, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
        if (v > value)
            value = v;
    }
    nocmsg_send(&value, 1, NOCMSG_UINT64, (me + 1) % size, TAG_RESULT, NOCMSG_COMM_WORLD);
    if (me == 0) {
        nocmsg_recv(&v, 1, NOCMSG_UINT64, size - 1, TAG_RESULT, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
        if (v > value)
            value = v;
    }
    return value;
}

/* Barrier over point-to-point messages, independent of the collective under test: a ring from rank 0 round to
 * rank 0 (so a rank gets a message only once the ranks before it are done: nothing disturbs one still finishing a
 * call), then rank 0 releases the others. One-word messages with constant arguments take the inlined fast path. */
static void sync_all(int me, int size)
{
    max_over_ranks(0, me, size);
    from_rank0(0, me, size);
}

static int is_reduction(enum op_kind k)
{
    return k == OP_REDUCE || k == OP_ALLREDUCE || k == OP_REDUCE_SCATTER || k == OP_SCAN;
}

static int has_root(enum op_kind k) { return k == OP_BCAST || k == OP_REDUCE || k == OP_GATHER || k == OP_SCATTER; }

/* One call of the operation on the benchmark's buffers. */
static int call(struct bench *b)
{
    const nocmsg_comm w = NOCMSG_COMM_WORLD;
    switch (b->kind) {
    case OP_BARRIER:
        return nocmsg_barrier(w);
    case OP_BCAST:
        return nocmsg_bcast(b->send, b->count, b->type, b->root, w);
    case OP_REDUCE:
        return nocmsg_reduce(b->send, b->recv, b->count, b->type, NOCMSG_SUM, b->root, w);
    case OP_ALLREDUCE:
        return nocmsg_allreduce(b->send, b->recv, b->count, b->type, NOCMSG_SUM, w);
    case OP_SCAN:
        return nocmsg_scan(b->send, b->recv, b->count, b->type, NOCMSG_SUM, w);
    case OP_REDUCE_SCATTER:
        return nocmsg_reduce_scatter(b->send, b->recv, b->counts, b->type, NOCMSG_SUM, w);
    case OP_GATHER:
        return nocmsg_gather(b->send, b->count, b->type, b->recv, b->count, b->type, b->root, w);
    case OP_SCATTER:
        return nocmsg_scatter(b->send, b->count, b->type, b->recv, b->count, b->type, b->root, w);
    case OP_ALLGATHER:
        return nocmsg_allgather(b->send, b->count, b->type, b->recv, b->count, b->type, w);
    case OP_ALLTOALL:
        return nocmsg_alltoall(b->send, b->count, b->type, b->recv, b->count, b->type, w);
    }
    return NOCMSG_ERR_ARG;
}

/* The byte pattern that block `block` of rank `rank` carries (data-movement operations). */
static unsigned char pattern(int rank, int block, size_t i)
{
    return (unsigned char)(rank * 31 + block * 17 + (int)i * 7 + 1);
}

/* Element i of rank r's reduction input, and the sum of it over ranks lo..hi. */
static uint32_t input(int r, size_t i) { return (uint32_t)(r + 3 * i); }
static uint32_t input_sum(int lo, int hi, size_t i)
{
    uint32_t s = 0;
    for (int r = lo; r <= hi; r++)
        s += input(r, i);
    return s;
}

static void fill_reduction(struct bench *b, size_t elements)
{
    for (size_t i = 0; i < elements; i++) {
        if (b->type == NOCMSG_INT32)
            ((uint32_t *)b->send)[i] = input(b->me, i);
        else
            b->send[i] = (unsigned char)input(b->me, i);
    }
}

static int reduction_equals(struct bench *b, const unsigned char *buf, size_t i, uint32_t want)
{
    if (b->type == NOCMSG_INT32)
        return ((const uint32_t *)buf)[i] == want;
    return buf[i] == (unsigned char)want;
}

/* Fills the buffers with known data, calls the operation once and checks what this rank got: 1 if right. */
static int check(struct bench *b, int *error)
{
    int me = b->me, n = b->size;
    size_t blk = b->bytes;
    memset(b->recv, 0xee, b->cap);
    switch (b->kind) {
    case OP_BARRIER:
        return (*error = call(b)) == NOCMSG_SUCCESS;
    case OP_BCAST:
        for (size_t i = 0; i < blk; i++)
            b->send[i] = me == b->root ? pattern(b->root, 0, i) : 0;
        break;
    case OP_REDUCE:
    case OP_ALLREDUCE:
    case OP_SCAN:
        fill_reduction(b, (size_t)b->count);
        break;
    case OP_REDUCE_SCATTER:
        fill_reduction(b, (size_t)b->count * (size_t)n);
        break;
    case OP_GATHER:
    case OP_ALLGATHER:
        for (size_t i = 0; i < blk; i++)
            b->send[i] = pattern(me, 0, i);
        break;
    case OP_SCATTER:
    case OP_ALLTOALL:
        for (int d = 0; d < n; d++)
            for (size_t i = 0; i < blk; i++)
                b->send[(size_t)d * blk + i] = pattern(me, d, i);
        break;
    }
    if ((*error = call(b)) != NOCMSG_SUCCESS)
        return 0;
    int count = b->count;
    switch (b->kind) {
    case OP_BARRIER:
        break;
    case OP_BCAST:
        for (size_t i = 0; i < blk; i++)
            if (b->send[i] != pattern(b->root, 0, i))
                return 0;
        break;
    case OP_REDUCE:
    case OP_ALLREDUCE:
    case OP_SCAN:
        if (b->kind == OP_REDUCE && me != b->root)
            break;
        for (int i = 0; i < count; i++)
            if (!reduction_equals(b, b->recv, (size_t)i, input_sum(0, b->kind == OP_SCAN ? me : n - 1, (size_t)i)))
                return 0;
        break;
    case OP_REDUCE_SCATTER:
        for (int i = 0; i < count; i++)
            if (!reduction_equals(b, b->recv, (size_t)i, input_sum(0, n - 1, (size_t)me * (size_t)count + (size_t)i)))
                return 0;
        break;
    case OP_GATHER:
    case OP_ALLGATHER:
        if (b->kind == OP_GATHER && me != b->root)
            break;
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < blk; i++)
                if (b->recv[(size_t)r * blk + i] != pattern(r, 0, i))
                    return 0;
        break;
    case OP_SCATTER:
        for (size_t i = 0; i < blk; i++)
            if (b->recv[i] != pattern(b->root, me, i))
                return 0;
        break;
    case OP_ALLTOALL:
        for (int s = 0; s < n; s++)
            for (size_t i = 0; i < blk; i++)
                if (b->recv[(size_t)s * blk + i] != pattern(s, me, i))
                    return 0;
        break;
    }
    return 1;
}

/* Times `*iters` calls after `warmup` untimed ones, `reps` times; rank 0 gets the best over repetitions of the
 * max over ranks of the mean (in time units, times 10 for one decimal) and the status. With a budget, one probe
 * call first lowers *iters to what fits in it. */
static void measure(struct bench *b, int *iters_io, int warmup, int reps, int sync_each, uint64_t budget,
                    uint64_t *tenths, const char **status)
{
    int error = NOCMSG_SUCCESS;
    uint64_t best = UINT64_MAX;
    int iters = *iters_io;
    if (budget > 0) {
        /* The probe is the second of two calls: the first pays for any set-up and the barrier's uneven exit. */
        sync_all(b->me, b->size);
        error = call(b);
        uint64_t t0 = now();
        if (error == NOCMSG_SUCCESS)
            error = call(b);
        uint64_t probe = max_over_ranks(now() - t0, b->me, b->size);
        uint64_t fit = probe ? budget / probe : (uint64_t)iters;
        fit = fit < 1 ? 1 : fit > (uint64_t)iters ? (uint64_t)iters : fit;
        iters = *iters_io = (int)from_rank0(fit, b->me, b->size);
        if (warmup > iters)
            warmup = iters; /* a slow operation: the probe already warmed it up */
    }
    /* How far ahead to name a start: START_MARGIN, plus twice what telling every rank an instant takes here (on MPB
     * chips libnocmsg's point-to-point is slow enough that START_MARGIN alone would leave the last ranks starting
     * late, and a late rank's time, counted from the instant, would include its lateness). */
    uint64_t margin = START_MARGIN(b->size);
    if (sync_each) {
        sync_all(b->me, b->size);
        uint64_t t0 = now();
        from_rank0(0, b->me, b->size);
        margin = from_rank0(margin + 2 * (now() - t0), b->me, b->size);
    }
    for (int rep = 0; rep < reps; rep++) {
        uint64_t total = 0;
        if (sync_each) {
            /* One call at a time: latency. After a barrier (as in OSU's benchmarks) rank 0 names an instant just
             * ahead and every rank waits for it, so all start the call together rather than as unevenly as they
             * leave the barrier; each rank's time runs from that instant to the end of its call. */
            for (int i = -warmup; i < iters && error == NOCMSG_SUCCESS; i++) {
                max_over_ranks(0, b->me, b->size); /* the ring of sync_all */
                uint64_t start = from_rank0(now() + margin, b->me, b->size);
                while (now() < start)
                    ;
                error = call(b);
                if (i >= 0)
                    total += now() - start;
            }
        } else {
            /* Back to back after one barrier. The warm-up calls follow the barrier directly: they absorb its uneven
             * exit (and any first-call set-up), so that the timed calls start in the operation's steady state,
             * where consecutive calls may overlap (a pipelined algorithm shows its throughput). */
            sync_all(b->me, b->size);
            for (int i = 0; i < warmup && error == NOCMSG_SUCCESS; i++)
                error = call(b);
            uint64_t t0 = now();
            for (int i = 0; i < iters && error == NOCMSG_SUCCESS; i++)
                error = call(b);
            total = now() - t0;
        }
        uint64_t mean_tenths = total * 10 / (uint64_t)iters;
        uint64_t worst = max_over_ranks(mean_tenths, b->me, b->size);
        if (worst < best)
            best = worst;
    }
    int ok = 0;
    if (error == NOCMSG_SUCCESS)
        ok = check(b, &error);
    /* 0 ok, 1 wrong, 2+code an error code; rank 0 reports the first failing rank's outcome (largest code). */
    uint64_t outcome = error != NOCMSG_SUCCESS ? 2 + (uint64_t)error : !ok;
    outcome = max_over_ranks(outcome, b->me, b->size);
    *tenths = best;
    *status = outcome == 0 ? "ok" : outcome == 1 ? "wrong" : nocmsg_error_string((int)(outcome - 2));
}

static void usage(void)
{
    die("usage: coll --op OP [--alg NAME,...|all] [--sizes B,...] [--roots R,...] [--iters N,...] [--warmup N] "
        "[--reps N,...] [--budget T] [--sync once|each] [--xfer 0|1]  |  coll --list OP");
}

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    int me = nocmsg_rank(), size = nocmsg_size();
    const char *op = NULL, *algs = "auto", *list = NULL;
    long sizes[MAX_LIST] = {8}, roots[MAX_LIST] = {0}, iters[MAX_LIST] = {100}, reps[MAX_LIST] = {1};
    int nsizes = 1, nroots = 1, niters = 1, nreps = 1, warmup = 2, xfer = -1, sync_each = 1;
    uint64_t budget = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--op"))
            op = v;
        else if (!strcmp(a, "--list"))
            list = v;
        else if (!strcmp(a, "--alg"))
            algs = v;
        else if (!strcmp(a, "--sizes"))
            nsizes = parse_list(v, sizes);
        else if (!strcmp(a, "--roots"))
            nroots = parse_list(v, roots);
        else if (!strcmp(a, "--iters"))
            niters = parse_list(v, iters);
        else if (!strcmp(a, "--warmup"))
            warmup = atoi(v);
        else if (!strcmp(a, "--budget"))
            budget = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--reps"))
            nreps = parse_list(v, reps);
        else if (!strcmp(a, "--xfer"))
            xfer = atoi(v);
        else if (!strcmp(a, "--sync") && (!strcmp(v, "once") || !strcmp(v, "each")))
            sync_each = !strcmp(v, "each");
        else
            usage();
    }
    if (list) {
        const char *const *names = nocmsg_coll_algorithms(list);
        if (!names)
            die("unknown operation");
        for (int i = 0; me == 0 && names[i]; i++)
            printf("%s\n", names[i]);
        nocmsg_finalize();
        return 0;
    }
    enum op_kind kind = OP_BARRIER;
    int known = 0;
    for (size_t i = 0; op && i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op, ops[i].name)) {
            kind = ops[i].kind;
            known = 1;
        }
    if (!known || !nocmsg_coll_algorithms(op))
        usage();
    if ((niters != 1 && niters != nsizes) || (nreps != 1 && nreps != nsizes))
        die("--iters and --reps need one count, or one per size");
    if (warmup < 0)
        usage();
    if (kind == OP_BARRIER) {
        nsizes = 1;
        sizes[0] = 0;
    }
    if (!has_root(kind)) {
        nroots = 1;
        roots[0] = 0;
    }
    for (int r = 0; r < nroots; r++)
        if (roots[r] < 0 || roots[r] >= size)
            die("root outside the ranks");
    if (xfer >= 0)
        nocmsg_coll_set_xfer(xfer);
    int xfer_now = nocmsg_coll_set_xfer(1);
    nocmsg_coll_set_xfer(xfer_now);

    /* The algorithms to run: the list given, or all of them and then the selector. */
    const char *alg_list[MAX_LIST];
    int nalgs = 0;
    static char alg_buf[1024];
    if (!strcmp(algs, "all")) {
        const char *const *names = nocmsg_coll_algorithms(op);
        for (int i = 0; names[i] && nalgs < MAX_LIST - 1; i++)
            alg_list[nalgs++] = names[i];
        alg_list[nalgs++] = "auto";
    } else {
        strncpy(alg_buf, algs, sizeof alg_buf - 1);
        for (char *s = alg_buf; *s && nalgs < MAX_LIST;) {
            alg_list[nalgs++] = s;
            char *comma = strchr(s, ',');
            if (!comma)
                break;
            *comma = 0;
            s = comma + 1;
        }
    }

    size_t max_bytes = 0;
    for (int s = 0; s < nsizes; s++) {
        if (sizes[s] < 0)
            die("negative size");
        if ((size_t)sizes[s] > max_bytes)
            max_bytes = (size_t)sizes[s];
    }
    /* Per-rank blocks need `size` blocks at the root (gather, scatter) or everywhere (allgather, alltoall,
     * reduce_scatter); the other operations one buffer of the largest size (bcast works in place on `send`). */
    int blocks = kind == OP_GATHER || kind == OP_SCATTER || kind == OP_ALLGATHER || kind == OP_ALLTOALL ||
                 kind == OP_REDUCE_SCATTER;
    size_t cap = max_bytes * (size_t)(blocks ? size : 1) + 8;
    struct bench b = {.kind = kind, .me = me, .size = size};
    b.cap = cap;
    b.send = malloc(cap);
    b.recv = malloc(cap);
    b.counts = malloc(sizeof(int) * (size_t)size);
    if (!b.send || !b.recv || !b.counts)
        die("out of memory for the buffers (smaller --sizes, or fewer ranks)");
    memset(b.send, 1, cap);

    if (me == 0)
        printf("op,algorithm,chosen,ranks,bytes,root,iterations,sync,time,unit,xfer,status\n");
    for (int a = 0; a < nalgs; a++) {
        if (nocmsg_coll_set(op, alg_list[a]) != NOCMSG_SUCCESS) {
            if (me == 0)
                fprintf(stderr, "coll: %s has no algorithm %s; skipped\n", op, alg_list[a]);
            continue;
        }
        for (int s = 0; s < nsizes; s++) {
            b.bytes = (size_t)sizes[s];
            b.type = NOCMSG_BYTE;
            b.count = (int)b.bytes;
            if (is_reduction(kind) && b.bytes % 4 == 0) {
                b.type = NOCMSG_INT32;
                b.count = (int)(b.bytes / 4);
            } else if (is_reduction(kind)) {
                b.type = NOCMSG_UINT8;
            }
            for (int r = 0; r < size; r++)
                b.counts[r] = b.count;
            const char *chosen = nocmsg_coll_choice(op, b.bytes, NOCMSG_COMM_WORLD);
            int n = (int)(niters == 1 ? iters[0] : iters[s]);
            int nrep = (int)(nreps == 1 ? reps[0] : reps[s]);
            if (n < 1)
                n = 1;
            if (nrep < 1)
                nrep = 1;
            for (int r = 0; r < nroots; r++) {
                b.root = (int)roots[r];
                uint64_t tenths;
                const char *status;
                int used = n;
                measure(&b, &used, warmup, nrep, sync_each, budget, &tenths, &status);
                if (me != 0)
                    continue;
                char root_text[16];
                if (has_root(kind))
                    snprintf(root_text, sizeof root_text, "%d", b.root);
                else
                    strcpy(root_text, "-");
                printf("%s,%s,%s,%d,%lu,%s,%d,%s,%lu.%lu,%s,%d,%s\n", op, alg_list[a], chosen ? chosen : "?", size,
                       (unsigned long)b.bytes, root_text, used, sync_each ? "each" : "once",
                       (unsigned long)(tenths / 10), (unsigned long)(tenths % 10), time_unit, xfer_now, status);
            }
        }
    }
    nocmsg_coll_set(op, "auto");
    free(b.send);
    free(b.recv);
    free(b.counts);
    nocmsg_finalize();
    return 0;
}
