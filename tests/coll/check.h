/*
 * check.h: the harness of the libnocmsg collectives suite (the .c files in tests/coll; see README.md).
 *
 * Like tests/lib, the suite uses only nocmsg.h and the C standard library, so the same sources build for the
 * simulated chips (bin/nocmsg-cc, -DNOCMSG_SIM) and natively (bin/nocmsg-cc-native). A failed check prints
 * `FAIL rank R: <case>: <what> (file:line)` on stderr, where <case> names the operation, algorithm, communicator,
 * root, datatype and count being checked (set with t_case); at the end of each section a rank with failures stops
 * the run with nocmsg_abort, unless the program was started with --keep-going.
 *
 * Every input is generated from a 64-bit key (splitmix64) made of a per-call seed and ranks, so each rank can
 * compute what every other rank contributed, and the expected result of any collective, on its own. The harness
 * never uses a collective: its barrier and result exchanges are point-to-point on a private duplicate of WORLD.
 */
#ifndef NOCMSG_COLL_CHECK_H
#define NOCMSG_COLL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "nocmsg.h"

/* Simulated cores are slow (~250M instructions/s for the whole chip) and have ~900 KiB of heap: the largest
 * collective message and some loops shrink there. */
#ifdef NOCMSG_SIM
#define T_SIM 1
#define T_LARGE 6144 /* bytes per rank of the largest collective case */
#else
#define T_SIM 0
#define T_LARGE (20 * 1024)
#endif
/* Largest NoCMsg transfer (xsend, xrecv, xchg), in every build. */
#define T_XFER_MAX (64 * 1024)

/* Rank and size in NOCMSG_COMM_WORLD; neighbours as in tests/lib. */
extern int t_rank, t_size;
extern int t_right, t_left;
/* Failed checks on this rank so far, and whether to go on after a failed section (--keep-going). */
extern int t_failures;
extern int t_keep_going;
/* Collective calls checked on this rank (for the summary line). */
extern long t_calls;

void t_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Names the case being checked; failure reports start with it. Build with -DNOCMSG_TEST_TRACE=2 to have every case
 * reported on stderr as it starts (to see where a run hangs). */
void t_case(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
extern char t_case_text[256];

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            t_fail(__FILE__, __LINE__, __VA_ARGS__);                                                                   \
    } while (0)

/* Checks that `expr` returns the error code `want`, naming both codes on failure. Returns whether it did. */
#define CHECK_RC(expr, want) t_check_rc(__FILE__, __LINE__, #expr, (expr), (want))
int t_check_rc(const char *file, int line, const char *expr, int rc, int want);
#define CHECK_OK(expr) CHECK_RC(expr, NOCMSG_SUCCESS)

/* Checks a completed receive's status: source, tag and byte count. */
#define CHECK_STATUS(st, src, tg, bytes) t_check_status(__FILE__, __LINE__, &(st), (src), (tg), (size_t)(bytes))
void t_check_status(const char *file, int line, const nocmsg_status *st, int source, int tag, size_t bytes);

/* Checks that buf[0..n) holds the payload of `key`; `what` names the block ("block from rank 3"). */
#define CHECK_PAYLOAD(buf, n, key, ...) t_check_payload(__FILE__, __LINE__, (buf), (size_t)(n), (key), __VA_ARGS__)
void t_check_payload(const char *file, int line, const void *buf, size_t n, uint64_t key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Bytes a collective must leave alone (guards after a buffer, gaps between v-variant blocks) hold T_POISON. */
#define T_POISON 0xa5
#define T_GUARD 16
#define CHECK_UNTOUCHED(buf, n, ...) t_check_untouched(__FILE__, __LINE__, (buf), (size_t)(n), __VA_ARGS__)
void t_check_untouched(const char *file, int line, const void *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* The name of an error code ("NOCMSG_ERR_ROOT"), or "unknown". */
const char *t_errname(int code);

/* splitmix64, as in tests/lib: the same values on every rank and in every build. */
uint64_t t_mix(uint64_t x);
uint64_t t_key(uint64_t a, uint64_t b, uint64_t c);
/* A fresh seed for the next call: every rank draws the same sequence, as long as all make the same calls. */
uint64_t t_next_seed(void);
/* Payloads: t_fill writes the bytes of `key`; t_find_mismatch returns the first wrong offset or (size_t)-1. */
void t_fill(void *buf, size_t n, uint64_t key);
size_t t_find_mismatch(const void *buf, size_t n, uint64_t key);

/* malloc that stops the run when memory runs out; t_poisoned also fills the n bytes and T_GUARD more with
 * T_POISON. NULL-safe free of either is plain free. */
void *t_alloc(size_t n);
void *t_poisoned(size_t n);

/* A communicator under test, with this rank's place in it. */
typedef struct {
    nocmsg_comm comm;
    const char *name;
    int rank, size;
    int left, right; /* ring neighbours in the communicator */
} t_comm;
/* Fills c from comm (checking comm_rank and comm_size work). */
void t_comm_init(t_comm *c, nocmsg_comm comm, const char *name);
extern t_comm t_world;

/* Collective algorithms: t_algorithms fills names with the algorithms nocmsg_coll_algorithms lists for `op`, then
 * "auto", and returns how many (at most T_MAX_ALGS); t_use selects one (on every rank, collectively consistent) and
 * checks that nocmsg_coll_choice reports it. */
#define T_MAX_ALGS 24
int t_algorithms(const char *op, const char **names);
void t_use(const char *op, const char *alg);
/* The algorithm set for op, for case names: "ring", or "auto: ring" with the selector's pick for bytes on comm. */
const char *t_alg_label(const char *op, size_t bytes, nocmsg_comm comm);
/* Every operation name nocmsg.h lists, in its order. */
extern const char *const t_operations[];
enum { T_OPERATIONS = 10 };

/* The data-movement cases (datatype and count per rank) every operation is checked with: 0, 1, 7 and 8 bytes,
 * 7 ints, 4 KiB of doubles, T_ODD bytes (odd, past the eager limit, so blocks are not word-aligned) and about T_LARGE
 * bytes of ints. */
#define T_ODD (T_SIM ? 1021 : 4093)
typedef struct {
    nocmsg_datatype type;
    int count;
} t_move;
extern const t_move t_moves[];
extern const int t_num_moves;
int t_type_size(nocmsg_datatype type);
const char *t_type_name(nocmsg_datatype type);

/* The roots a rooted operation is checked at, for cases of `bytes` per rank: every rank, except on the simulator
 * past the PIMP port's eager limit (512 bytes), where the first, the middle and the last rank stand for all (large
 * cases at every root cost more simulated time than they find). Loop with:
 * for (r = 0; r >= 0; r = t_next_root(r, size, bytes)). */
int t_next_root(int root, int size, size_t bytes);
#define T_ALL_ROOTS_UP_TO ((size_t)(T_SIM ? 512 : (size_t)-1))

/* Uneven counts for v variants: counts[i] in 0..2*per_rank, one in four of them 0, chosen from seed.
 * Displacements place the blocks in reverse rank order, starting with block (n - 1 + rotate) % n, with gaps of 0 to
 * 3 elements; returns the extent in elements. t_check_gaps checks that no byte outside the blocks was written. */
void t_uneven_counts(int *counts, int n, int per_rank, uint64_t seed);
int t_gapped_displs(int *displs, const int *counts, int n, int rotate, uint64_t seed);
#define CHECK_GAPS(buf, extent, counts, displs, n, esize)                                                              \
    t_check_gaps(__FILE__, __LINE__, (buf), (extent), (counts), (displs), (n), (esize))
void t_check_gaps(const char *file, int line, const unsigned char *buf, int extent, const int *counts,
                  const int *displs, int n, int esize);

/* A barrier built from point-to-point messages on a private duplicate of WORLD (never the barrier under test). */
void t_barrier(void);
/* Ends a test section: a rank with failures aborts the run (unless --keep-going); then all ranks meet. */
void t_section_end(const char *name);

/* Failed checks of all ranks together at rank 0 (this rank's elsewhere); collective over WORLD. */
int t_total_failures(void);

/* Isolation from point-to-point traffic: between begin and middle, a receive with NOCMSG_ANY_SOURCE and
 * NOCMSG_ANY_TAG is posted on c; between middle and end, messages with tags 1 to 31 and NOCMSG_TAG_UB (one of them
 * larger than any eager limit) from the left neighbour wait unreceived. A collective run in each interval must
 * neither take these messages nor deliver its own to the posted receive. Every rank of WORLD must call these
 * together (middle has a harness barrier), whatever its c. */
typedef struct t_isolation t_isolation;
t_isolation *t_isolate_begin(const t_comm *c);
void t_isolate_middle(t_isolation *iso);
void t_isolate_end(t_isolation *iso);

/* Test sections, in the order main runs them. */
void test_api(void);
void test_xfer(void);
void test_barrier(void);
void test_bcast(void);
void test_gather(void);
void test_scatter(void);
void test_allgather(void);
void test_alltoall(void);
void test_reductions(void);
void test_user_ops(void);
void test_comms(void);
void test_exchange(void);
void test_xfer_off(void);
void test_errors(void);
void test_xfer_errors(void);

/* One checked call of each data-movement collective on c (root where it has one; inplace: NOCMSG_IN_PLACE where
 * the operation allows it), with inputs from t_next_seed(). The v forms use uneven counts around m->count. */
void check_bcast(const t_comm *c, const t_move *m, int root);
void check_gather(const t_comm *c, const t_move *m, int root, int inplace);
void check_gatherv(const t_comm *c, const t_move *m, int root, int inplace);
void check_scatter(const t_comm *c, const t_move *m, int root, int inplace);
void check_scatterv(const t_comm *c, const t_move *m, int root, int inplace);
void check_allgather(const t_comm *c, const t_move *m, int inplace);
void check_allgatherv(const t_comm *c, const t_move *m, int inplace);
void check_alltoall(const t_comm *c, const t_move *m);
void check_alltoallv(const t_comm *c, const t_move *m);
void check_barrier(const t_comm *c);

#endif /* NOCMSG_COLL_CHECK_H */
