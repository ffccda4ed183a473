/* check.c: failure reports, payload generation, the barrier and section ends of the libnocmsg test suite. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int t_rank = -1, t_size = 0;
int t_right, t_left, t_partner;
nocmsg_comm t_sync_comm = NOCMSG_COMM_NULL;
int t_failures;

void t_fail(const char *file, int line, const char *fmt, ...)
{
    /* One write per line, so lines of different ranks sharing a terminal do not interleave; stderr because it is
     * unbuffered natively and so survives nocmsg_abort. */
    char what[400], text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(text, sizeof text, "FAIL rank %d: %s (%s:%d)\n", t_rank, what, file, line);
    fflush(stdout);
    fputs(text, stderr);
    fflush(stderr);
    t_failures++;
}

void t_check_status(const char *file, int line, const nocmsg_status *st, int source, int tag, size_t bytes)
{
    if (st->source != source || st->tag != tag || st->count_bytes != bytes)
        t_fail(file, line, "status {source %d, tag %d, count_bytes %lu}, expected {source %d, tag %d, count_bytes %lu}",
               st->source, st->tag, (unsigned long)st->count_bytes, source, tag, (unsigned long)bytes);
}

void t_check_payload(const char *file, int line, const void *buf, size_t n, uint64_t key, size_t from)
{
    size_t bad = t_find_mismatch_from(buf, n, key, from);
    if (bad != (size_t)-1)
        t_fail(file, line, "payload of %lu bytes differs at offset %lu (got 0x%02x)", (unsigned long)n,
               (unsigned long)bad, ((const unsigned char *)buf)[bad]);
}

void t_set_guard(void *buf, size_t n)
{
    memset((unsigned char *)buf + n, 0xa5, T_GUARD);
}

void t_check_guard(const char *file, int line, const unsigned char *guard)
{
    for (int i = 0; i < T_GUARD; i++) {
        if (guard[i] != 0xa5) {
            t_fail(file, line, "receive wrote past the end of its buffer (guard byte %d is 0x%02x)", i, guard[i]);
            return;
        }
    }
}

const char *t_errname(int code)
{
    static const char *const names[] = {
        "NOCMSG_SUCCESS",        "NOCMSG_ERR_BUFFER",     "NOCMSG_ERR_COUNT",           "NOCMSG_ERR_TYPE",
        "NOCMSG_ERR_TAG",        "NOCMSG_ERR_COMM",       "NOCMSG_ERR_RANK",            "NOCMSG_ERR_TRUNCATE",
        "NOCMSG_ERR_REQUEST",    "NOCMSG_ERR_ARG",        "NOCMSG_ERR_NOT_INITIALIZED", "NOCMSG_ERR_NO_MEM",
        "NOCMSG_ERR_IN_STATUS",  "NOCMSG_ERR_PENDING",    "NOCMSG_ERR_UNSUPPORTED",     "NOCMSG_ERR_INTERN",
        "NOCMSG_ERR_OP",         "NOCMSG_ERR_ROOT",
    };
    _Static_assert(sizeof names / sizeof names[0] == NOCMSG_ERR_LASTCODE, "one name per error code");
    if (code < 0 || code >= NOCMSG_ERR_LASTCODE)
        return "unknown";
    return names[code];
}

uint64_t t_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t t_key(uint64_t a, uint64_t b, uint64_t c)
{
    return t_mix(t_mix(t_mix(a + 0x9e3779b97f4a7c15ULL) ^ b) + c);
}

void t_rng_seed(t_rng *rng, uint64_t seed)
{
    rng->state = t_mix(seed);
}

uint64_t t_rng_next(t_rng *rng)
{
    rng->state += 0x9e3779b97f4a7c15ULL;
    return t_mix(rng->state);
}

uint32_t t_rng_below(t_rng *rng, uint32_t n)
{
    return (uint32_t)(((t_rng_next(rng) >> 32) * (uint64_t)n) >> 32);
}

/* Whole 8-byte words are read and written directly when the buffer is 8-byte aligned and the host little-endian
 * (both builds, in practice): about three times faster on the simulated cores, which trap on misaligned access.
 * Otherwise bytes are taken by shifts. Either way the bytes are the same. */
typedef uint64_t __attribute__((may_alias)) t_word;

static int words_ok(const void *p)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1 && (uintptr_t)p % 8 == 0;
}

void t_fill(void *buf, size_t n, uint64_t key)
{
    unsigned char *p = buf;
    uint64_t s = key;
    int fast = words_ok(p);
    for (size_t i = 0; i < n; i += 8) {
        s += 0x9e3779b97f4a7c15ULL;
        uint64_t w = t_mix(s);
        if (fast && i + 8 <= n) {
            *(t_word *)(p + i) = w;
            continue;
        }
        for (size_t b = 0; b < 8 && i + b < n; b++)
            p[i + b] = (unsigned char)(w >> (8 * b));
    }
}

size_t t_find_mismatch_from(const void *buf, size_t n, uint64_t key, size_t from)
{
    const unsigned char *p = buf;
    uint64_t s = key;
    int fast = words_ok(p);
    for (size_t i = 0; i < n; i += 8) {
        s += 0x9e3779b97f4a7c15ULL;
        if (i + 8 <= from)
            continue;
        uint64_t w = t_mix(s);
        if (fast && i >= from && i + 8 <= n && *(const t_word *)(p + i) == w)
            continue;
        for (size_t b = 0; b < 8 && i + b < n; b++)
            if (i + b >= from && p[i + b] != (unsigned char)(w >> (8 * b)))
                return i + b;
    }
    return (size_t)-1;
}

size_t t_find_mismatch(const void *buf, size_t n, uint64_t key)
{
    return t_find_mismatch_from(buf, n, key, 0);
}

uint64_t t_hash(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint64_t h = 0x84222325cbf29ce4ULL ^ n;
    size_t i = 0;
    int fast = words_ok(p);
    for (; i + 8 <= n; i += 8) {
        uint64_t w = 0;
        if (fast) {
            w = *(const t_word *)(p + i);
        } else {
            for (int b = 0; b < 8; b++)
                w |= (uint64_t)p[i + b] << (8 * b);
        }
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return t_mix(h);
}

void *t_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        t_fail(__FILE__, __LINE__, "out of memory allocating %lu bytes", (unsigned long)n);
        nocmsg_abort(NOCMSG_COMM_WORLD, 1);
    }
    return p;
}

/* Dissemination barrier: in round k every rank sends to rank + 2^k and receives from rank - 2^k (mod size), so it
 * works for any size. Within one round the source is fixed, so per-source ordering keeps rounds of successive
 * barriers apart; the tag names the round as well. */
void t_barrier(void)
{
    for (int k = 0, dist = 1; dist < t_size; k++, dist *= 2) {
        int to = (t_rank + dist) % t_size;
        int from = (t_rank - dist % t_size + t_size) % t_size;
        nocmsg_status st;
        CHECK_OK(nocmsg_sendrecv(NULL, 0, NOCMSG_BYTE, to, k, NULL, 0, NOCMSG_BYTE, from, k, t_sync_comm, &st));
        CHECK_STATUS(st, from, k, 0);
    }
}

void t_section_end(const char *name)
{
    if (t_failures) {
        fflush(stdout);
        fprintf(stderr, "FAIL rank %d: section %s had %d failed checks; stopping (%s:%d)\n", t_rank, name, t_failures,
                __FILE__, __LINE__);
        fflush(stderr);
        nocmsg_abort(NOCMSG_COMM_WORLD, 1);
    }
#ifdef NOCMSG_TEST_TRACE
    /* Build with -DNOCMSG_TEST_TRACE to see how far each rank got when a run hangs. */
    fprintf(stderr, "rank %d: section %s done\n", t_rank, name);
#endif
    t_barrier();
    if (t_failures) {
        fprintf(stderr, "FAIL rank %d: barrier after section %s failed (%s:%d)\n", t_rank, name, __FILE__, __LINE__);
        nocmsg_abort(NOCMSG_COMM_WORLD, 1);
    }
}

void t_put_u32(void *p, uint32_t v)
{
    unsigned char *b = p;
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

uint32_t t_get_u32(const void *p)
{
    const unsigned char *b = p;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
