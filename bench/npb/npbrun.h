/* npbrun.h: what the NAS kernels of bench/npb (is, cg, ft, mg) and the tfidf application share: the NAS random
 * number generator, the command line, the timers that split a run into communication and computation, and the
 * report line. Plain MPI and the C library only, so the same source builds with MPICH's mpicc, nocmsg-cc-native
 * and nocmsg-cc.
 *
 * The generator (Bailey et al., "The NAS Parallel Benchmarks", RNR-94-007, its pseudorandom number generator; the
 * same in NPB 2 and 3) is the linear congruential sequence x[k+1] = a x[k] mod 2^46 with a = 5^13 = 1220703125, and
 * returns x[k+1] / 2^46. NPB computes it in double precision, splitting the operands into 23-bit halves so that
 * every product is exact; the product mod 2^46 is the same number as the unsigned 64-bit product masked to 46 bits
 * (2^46 divides 2^64), which is what npb_randlc does: the same sequence, bit for bit, and cheap on cores without an
 * FPU.
 *
 * Every program reads `prog CLASS` (S, W or A: the NPB problem sizes) or `prog weak N` (a fixed problem per rank,
 * N being the program's own size parameter), times one section on every rank between two barriers, charging the
 * time spent inside MPI communication calls (NPB_COMM) to communication, and rank 0 prints one CSV line:
 *     kernel,class,ranks,total_seconds,comm_seconds,compute_seconds,verified
 * with the maxima over ranks of each time (so compute is not total - comm of the line), class "S", "W", "A" or
 * "weak:N", and verified "yes" or "no:<reason>". The closing barrier counts as communication: it is where a rank
 * waits for the slowest. The exit status is 0 when verified, 1 when not, 2 for bad arguments or rank counts.
 * Diagnostics (checksums per step and the like) go to stderr only with NPB_VERBOSE=1 in the environment. */
#ifndef NPBRUN_H
#define NPBRUN_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The NAS generator ---- */

#define NPB_A 1220703125u     /* 5^13 */
#define NPB_SEED 314159265u   /* the seed of IS, CG, FT and MG */
#define NPB_MASK46 ((UINT64_C(1) << 46) - 1)
#define NPB_2M46 (1.0 / 70368744177664.0) /* 2^-46, exact */

/* Advances *x by one step with multiplier a and returns the new value in (0, 1). */
static inline double npb_randlc(uint64_t *x, uint64_t a)
{
    *x = (*x * a) & NPB_MASK46;
    return (double)*x * NPB_2M46;
}

/* Fills y[0..n) with the next n numbers of the sequence (NPB's vranlc). */
static inline void npb_vranlc(long n, uint64_t *x, uint64_t a, double *y)
{
    uint64_t s = *x;
    for (long i = 0; i < n; i++) {
        s = (s * a) & NPB_MASK46;
        y[i] = (double)s * NPB_2M46;
    }
    *x = s;
}

/* a^n mod 2^46: the multiplier that skips n steps of the sequence at once. */
static inline uint64_t npb_pow46(uint64_t a, uint64_t n)
{
    uint64_t r = 1;
    a &= NPB_MASK46;
    while (n) {
        if (n & 1)
            r = (r * a) & NPB_MASK46;
        a = (a * a) & NPB_MASK46;
        n >>= 1;
    }
    return r;
}

/* ---- Diagnostics ---- */

/* Prints to stderr when the environment has NPB_VERBOSE set (not empty, not "0"); else nothing. Off by default
 * because on the simulated chips picolibc has one console stream, so stderr lands on the simulator's stdout next to
 * the report line (`nocmsg run --env NPB_VERBOSE=1` turns them on there). */
static inline void npb_note(const char *fmt, ...)
{
    static int verbose = -1;
    if (verbose < 0) {
        const char *v = getenv("NPB_VERBOSE");
        verbose = v && *v && strcmp(v, "0") != 0;
    }
    if (!verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* ---- Failing ---- */

/* Ends the whole run (out of memory and the like): every rank's exit status is 2. */
static inline void npb_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static inline void *npb_alloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        npb_die("out of memory: %zu bytes for %s", bytes, what);
    return p;
}

static inline void *npb_zalloc(size_t bytes, const char *what)
{
    void *p = npb_alloc(bytes, what);
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

/* ---- The command line ---- */

struct npb_args {
    char cls;     /* 'S', 'W', 'A', or 'w' for weak scaling */
    long weak_n;  /* N of `weak N` */
    char label[32]; /* the class column: "S" or "weak:N" */
};

/* Reads `CLASS` or `weak N` into *a; 0 if they are not one of these (the caller reports the usage). */
static inline int npb_parse_args(int argc, char **argv, struct npb_args *a)
{
    memset(a, 0, sizeof *a);
    if (argc == 2 && argv[1][0] && !argv[1][1]) {
        char c = argv[1][0];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if (c != 'S' && c != 'W' && c != 'A')
            return 0;
        a->cls = c;
        a->label[0] = c;
        return 1;
    }
    if (argc == 3 && strcmp(argv[1], "weak") == 0) {
        char *end;
        long n = strtol(argv[2], &end, 10);
        if (*end || end == argv[2] || n <= 0)
            return 0;
        a->cls = 'w';
        a->weak_n = n;
        snprintf(a->label, sizeof a->label, "weak:%ld", n);
        return 1;
    }
    return 0;
}

/* Rank 0 prints the message to stderr; the caller then finalizes and exits with status 2 on every rank (all ranks
 * see the same arguments and rank count, so they all take this path). */
static inline int npb_usage(const char *fmt, ...)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    MPI_Finalize();
    return 2;
}

static inline int npb_is_pow2(long n) { return n > 0 && (n & (n - 1)) == 0; }

static inline int npb_log2(long n)
{
    int l = 0;
    while ((1L << l) < n)
        l++;
    return l;
}

/* ---- Timers ---- */

/* Seconds this rank spent inside communication calls since npb_timer_start. */
static double npb_comm_seconds;

/* Runs one MPI communication call and charges its time to communication. */
#define NPB_COMM(call)                                                                                            \
    do {                                                                                                          \
        double npb_t0_ = MPI_Wtime();                                                                             \
        call;                                                                                                     \
        npb_comm_seconds += MPI_Wtime() - npb_t0_;                                                                \
    } while (0)

/* ---- NoCMsg's hand-eliminated flow control (-DNPB_XCHG, nocmsg builds only) ----
 *
 * NoCMsg's Fig. 11 compares the kernels with flow control against versions whose exchanges were rewritten by hand
 * with its non-flow-controlled calls. Built with -DNPB_XCHG (and nocmsg-cc), the kernels do that: CG's transpose
 * exchange, FT's transposes and IS's key exchange become pairwise exchanges in rank order (the lower rank streams
 * first with nocmsg_xsend, the higher receives first: relaxation C1), the all-to-alls over the XOR schedule (rank
 * r meets r ^ k in step k, which needs a power-of-two rank count; otherwise the kernel keeps its MPI call). Like the
 * paper's, this is the programmer's claim that the pattern cannot deadlock, not a checked one (docs/fc-plan.md). */
#ifdef NPB_XCHG
#include <nocmsg.h>

/* Sends `sbytes` to `peer` and receives up to `rbytes` from it, in rank order without flow control. */
static inline void npb_xchg(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int peer)
{
    int me = 0, err = NOCMSG_SUCCESS;
    nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
    if (me < peer)
        err = nocmsg_xsend(sbuf, (int)sbytes, NOCMSG_BYTE, peer, 77, NOCMSG_COMM_WORLD);
    if (err == NOCMSG_SUCCESS)
        err = nocmsg_recv(rbuf, (int)rbytes, NOCMSG_BYTE, peer, 77, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
    if (err == NOCMSG_SUCCESS && me > peer)
        err = nocmsg_xsend(sbuf, (int)sbytes, NOCMSG_BYTE, peer, 77, NOCMSG_COMM_WORLD);
    if (err != NOCMSG_SUCCESS) {
        fprintf(stderr, "npb: exchange with rank %d failed (%d)\n", peer, err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Block i of an all-to-all buffer: its offset and size in bytes, by counts and displacements in elements of `elem`
 * bytes, or (counts NULL) one element each, block i the i-th. */
static inline size_t npb_block(const int *counts, const int *displs, int i, size_t elem, size_t *bytes)
{
    *bytes = (size_t)(counts ? counts[i] : 1) * elem;
    return (size_t)(counts ? displs[i] : i) * elem;
}

/* MPI_Alltoallv (counts and displacements in elements of `elem` bytes; NULL counts: MPI_Alltoall of `elem`-byte
 * blocks) over the XOR schedule with npb_xchg; 0 if the rank count is not a power of two (the caller then uses
 * MPI). */
static inline int npb_xchg_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, void *rbuf,
                                     const int *rcounts, const int *rdispls, size_t elem)
{
    int me = 0, p = 0;
    nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
    nocmsg_comm_size(NOCMSG_COMM_WORLD, &p);
    if (p & (p - 1))
        return 0;
    const char *s = sbuf;
    char *r = rbuf;
    size_t sn, rn, so = npb_block(scounts, sdispls, me, elem, &sn), ro = npb_block(rcounts, rdispls, me, elem, &rn);
    memcpy(r + ro, s + so, sn);
    for (int k = 1; k < p; k++) {
        int peer = me ^ k;
        so = npb_block(scounts, sdispls, peer, elem, &sn);
        ro = npb_block(rcounts, rdispls, peer, elem, &rn);
        npb_xchg(s + so, sn, r + ro, rn, peer);
    }
    return 1;
}

/* MPI_Alltoall of `bytes` per rank pair, the same way; 0 if the rank count is not a power of two. */
static inline int npb_xchg_alltoall(const void *sbuf, void *rbuf, size_t bytes)
{
    return npb_xchg_alltoallv(sbuf, NULL, NULL, rbuf, NULL, NULL, bytes);
}
#endif

struct npb_timer {
    double start, total, comm; /* comm: npb_comm_seconds when the clock stopped */
};

/* The opening barrier (not counted), then the clock starts. */
static inline void npb_timer_start(struct npb_timer *t)
{
    MPI_Barrier(MPI_COMM_WORLD);
    npb_comm_seconds = 0.0;
    t->start = MPI_Wtime();
}

/* The closing barrier (counted as communication), then the clock stops. */
static inline void npb_timer_stop(struct npb_timer *t)
{
    NPB_COMM(MPI_Barrier(MPI_COMM_WORLD));
    t->total = MPI_Wtime() - t->start;
    t->comm = npb_comm_seconds;
}

/* ---- The report ---- */

/* Rank 0 prints the CSV line. `ok` is this rank's verdict and `why` its reason when not; the run is verified when
 * every rank says so, and the line gives rank 0's reason (or names the first rank that failed). Returns the exit
 * status, the same on every rank. */
static inline int npb_report(const char *kernel, const char *label, const struct npb_timer *t, int ok,
                             const char *why)
{
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double mine[3] = {t->total, t->comm, t->total - t->comm}, worst[3];
    MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* The lowest failing rank, or n when all verified. */
    int failing = ok ? n : me, first_failing;
    MPI_Allreduce(&failing, &first_failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (me == 0) {
        char verdict[200];
        if (first_failing == n)
            snprintf(verdict, sizeof verdict, "yes");
        else if (first_failing == 0)
            snprintf(verdict, sizeof verdict, "no:%s", why && *why ? why : "failed");
        else
            snprintf(verdict, sizeof verdict, "no:failed on rank %d", first_failing);
        for (char *c = verdict; *c; c++)
            if (*c == ',' || *c == '\n')
                *c = ';'; /* keep the line one line of seven fields */
        printf("%s,%s,%d,%.6f,%.6f,%.6f,%s\n", kernel, label, n, worst[0], worst[1], worst[2], verdict);
        fflush(stdout);
    }
    return first_failing == n ? 0 : 1;
}

#endif
