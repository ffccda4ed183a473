/*
 * check.h: the small test harness shared by the libnocmsg test suite (the .c files in tests/lib).
 *
 * The suite uses only nocmsg.h and the C standard library, so the same sources build for the simulated chip
 * (bin/nocmsg-cc, picolibc, -DNOCMSG_SIM) and natively (bin/nocmsg-cc-native). A failed check prints
 * `FAIL rank R: <what> (file:line)` on stderr and counts; at the end of each section a rank with failures stops the
 * whole run with nocmsg_abort, before a broken section can hang the next one.
 *
 * Payloads are generated from a 64-bit key (splitmix64, bytes taken little-endian by shifts), so every build
 * produces the same bytes and a receiver can check a message knowing only its key.
 */
#ifndef NOCMSG_TEST_CHECK_H
#define NOCMSG_TEST_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "nocmsg.h"

/* Simulated cores are slow (~250M instructions/s for the whole chip) and have ~900 KiB of heap: loops and the
 * largest messages shrink there. T_BIG is the largest message every build exchanges. */
#ifdef NOCMSG_SIM
#define T_SIM 1
#define T_BIG ((size_t)64 * 1024)
#else
#define T_SIM 0
#define T_BIG ((size_t)1024 * 1024)
#endif

/* A medium size: past any plausible eager limit, still cheap on the simulator. */
#define T_MEDIUM ((size_t)(T_SIM ? 12 * 1024 : 100 * 1024))

/* Rank and size in NOCMSG_COMM_WORLD, and the ring and pair neighbours most tests use. */
extern int t_rank, t_size;
extern int t_right, t_left; /* (rank + 1) % size and (rank - 1 + size) % size: the rank itself when size is 1 */
extern int t_partner;       /* rank ^ 1, or the rank itself when that does not exist (last rank of an odd size) */
/* A private duplicate of NOCMSG_COMM_WORLD that only t_barrier uses, so barriers never match test messages. */
extern nocmsg_comm t_sync_comm;
/* Failed checks on this rank so far. */
extern int t_failures;

void t_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            t_fail(__FILE__, __LINE__, __VA_ARGS__);                                                                   \
    } while (0)

/* Checks that `expr` returns the error code `want`, naming both codes on failure. */
#define CHECK_RC(expr, want)                                                                                           \
    do {                                                                                                               \
        int t_rc_ = (expr);                                                                                            \
        int t_want_ = (want);                                                                                          \
        if (t_rc_ != t_want_)                                                                                          \
            t_fail(__FILE__, __LINE__, "%s returned %d (%s), expected %d (%s)", #expr, t_rc_, t_errname(t_rc_),       \
                   t_want_, t_errname(t_want_));                                                                       \
    } while (0)

#define CHECK_OK(expr) CHECK_RC(expr, NOCMSG_SUCCESS)

/* Checks that `expr` returns one of two acceptable codes (where nocmsg.h leaves the choice open). */
#define CHECK_RC2(expr, want1, want2)                                                                                  \
    do {                                                                                                               \
        int t_rc_ = (expr);                                                                                            \
        if (t_rc_ != (want1) && t_rc_ != (want2))                                                                      \
            t_fail(__FILE__, __LINE__, "%s returned %d (%s), expected %s or %s", #expr, t_rc_, t_errname(t_rc_),      \
                   t_errname(want1), t_errname(want2));                                                                \
    } while (0)

/* Checks a completed receive's status: source, tag and byte count. */
#define CHECK_STATUS(st, src, tg, bytes)                                                                               \
    t_check_status(__FILE__, __LINE__, &(st), (src), (tg), (size_t)(bytes))
void t_check_status(const char *file, int line, const nocmsg_status *st, int source, int tag, size_t bytes);

/* Checks that buf[0..n) holds the payload of `key` (the _FROM form skips a header of `from` bytes). */
#define CHECK_PAYLOAD(buf, n, key) t_check_payload(__FILE__, __LINE__, (buf), (size_t)(n), (key), 0)
#define CHECK_PAYLOAD_FROM(buf, n, key, from) t_check_payload(__FILE__, __LINE__, (buf), (size_t)(n), (key), (from))
void t_check_payload(const char *file, int line, const void *buf, size_t n, uint64_t key, size_t from);

/* Guard bytes after a receive buffer: a receive must never write past the count it was given. */
#define T_GUARD 16
#define CHECK_GUARD(buf, n) t_check_guard(__FILE__, __LINE__, (const unsigned char *)(buf) + (n))
void t_set_guard(void *buf, size_t n);
void t_check_guard(const char *file, int line, const unsigned char *guard);

/* The name of an error code, for messages ("NOCMSG_ERR_RANK"), or "unknown". */
const char *t_errname(int code);

/* splitmix64: a deterministic generator, the same on every rank and every build. */
typedef struct {
    uint64_t state;
} t_rng;
uint64_t t_mix(uint64_t x);
uint64_t t_key(uint64_t a, uint64_t b, uint64_t c);
void t_rng_seed(t_rng *rng, uint64_t seed);
uint64_t t_rng_next(t_rng *rng);
/* Uniform in 0..n-1 (n > 0), without division. */
uint32_t t_rng_below(t_rng *rng, uint32_t n);

/* Payloads: fill writes the bytes of `key`; find_mismatch returns the first wrong offset (at or after `from`) or
 * (size_t)-1; hash is a content hash that does not depend on the address. put/get_u32 store a header field
 * little-endian, whatever the host. */
void t_fill(void *buf, size_t n, uint64_t key);
size_t t_find_mismatch(const void *buf, size_t n, uint64_t key);
size_t t_find_mismatch_from(const void *buf, size_t n, uint64_t key, size_t from);
void t_put_u32(void *p, uint32_t v);
uint32_t t_get_u32(const void *p);
uint64_t t_hash(const void *buf, size_t n);

/* malloc that stops the run (not just the check) when memory runs out: the rest of a test would crash. */
void *t_alloc(size_t n);

/* A barrier built from point-to-point messages on t_sync_comm (the library has no collectives yet). */
void t_barrier(void);

/* Ends a test section: a rank with failures aborts the run (exit status 1); then all ranks meet in a barrier so
 * no message of one section can be matched in the next. */
void t_section_end(const char *name);

/* Test sections, in the order main runs them (each in its own file). */
void test_env_before_init(void);
void test_env(void);
void test_datatypes(void);
void test_error_strings(void);
void test_get_count(void);
void test_errors(void);
void test_self(void);
void test_zero_length(void);
void test_sizes(void);
void test_ordering(void);
void test_tags(void);
void test_wildcards(void);
void test_probe(void);
void test_truncate(void);
void test_proc_null(void);
void test_ssend(void);
void test_nonblocking(void);
void test_exchange(void);
void test_comms(void);
void test_inline(void);
void test_lean(void);
/* Returns this rank's checksum of the random patterns through the out-parameters. */
void test_random_patterns(uint64_t *checksum, uint64_t *messages_received, uint64_t *total_messages,
                          uint64_t *total_bytes);
void test_env_after_finalize(void);

/* Number of seeds of the compared random-pattern run. */
#define T_RANDOM_SEEDS 100

#endif /* NOCMSG_TEST_CHECK_H */
