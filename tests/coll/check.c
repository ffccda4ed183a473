/* check.c: failure reports, payloads, algorithm lists, the private barrier, section ends and point-to-point decoys of
 * the collectives suite. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int t_rank = -1, t_size = 0;
int t_right, t_left;
int t_failures;
int t_keep_going;
long t_calls;
t_comm t_world;
char t_case_text[256] = "setup";

/* Only t_barrier and the decoys use it, so harness messages never meet test messages. */
static nocmsg_comm sync_comm = NOCMSG_COMM_NULL;

/* A run with a broken algorithm can fail thousands of checks; the first ones say enough. */
enum { MAX_REPORTS = 40 };
static int reports;

void t_fail(const char *file, int line, const char *fmt, ...)
{
    t_failures++;
    if (++reports > MAX_REPORTS) {
        if (reports == MAX_REPORTS + 1)
            fprintf(stderr, "FAIL rank %d: more failures, not shown (%s:%d)\n", t_rank, file, line);
        return;
    }
    /* One write per line, so lines of different ranks sharing a terminal do not interleave; stderr because it is
     * unbuffered natively and so survives nocmsg_abort. */
    char what[400], text[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(text, sizeof text, "FAIL rank %d: %s: %s (%s:%d)\n", t_rank, t_case_text, what, file, line);
    fflush(stdout);
    fputs(text, stderr);
    fflush(stderr);
}

void t_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_case_text, sizeof t_case_text, fmt, ap);
    va_end(ap);
#if defined(NOCMSG_TEST_TRACE) && NOCMSG_TEST_TRACE >= 2
    fprintf(stderr, "rank %d: %s\n", t_rank, t_case_text);
#endif
}

int t_check_rc(const char *file, int line, const char *expr, int rc, int want)
{
    if (rc == want)
        return 1;
    t_fail(file, line, "%s returned %d (%s), expected %d (%s)", expr, rc, t_errname(rc), want, t_errname(want));
    return 0;
}

void t_check_status(const char *file, int line, const nocmsg_status *st, int source, int tag, size_t bytes)
{
    if (st->source != source || st->tag != tag || st->count_bytes != bytes)
        t_fail(file, line, "status {source %d, tag %d, count_bytes %lu}, expected {source %d, tag %d, count_bytes %lu}",
               st->source, st->tag, (unsigned long)st->count_bytes, source, tag, (unsigned long)bytes);
}

void t_check_payload(const char *file, int line, const void *buf, size_t n, uint64_t key, const char *fmt, ...)
{
    size_t bad = t_find_mismatch(buf, n, key);
    if (bad == (size_t)-1)
        return;
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    unsigned char *exp = t_alloc(bad + 1);
    t_fill(exp, bad + 1, key);
    t_fail(file, line, "%s: %lu bytes differ from offset %lu (got 0x%02x, expected 0x%02x)", what, (unsigned long)n,
           (unsigned long)bad, ((const unsigned char *)buf)[bad], exp[bad]);
    free(exp);
}

void t_check_untouched(const char *file, int line, const void *buf, size_t n, const char *fmt, ...)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == T_POISON)
            continue;
        char what[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        t_fail(file, line, "%s: byte %lu of %lu was written (0x%02x)", what, (unsigned long)i, (unsigned long)n, p[i]);
        return;
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

uint64_t t_next_seed(void)
{
    static uint64_t counter;
    return t_mix(++counter);
}

/* Whole 8-byte words when the buffer is 8-byte aligned and the host little-endian (about three times faster on the
 * simulated cores, which trap on misaligned access); bytes by shifts otherwise. Either way the bytes are the same. */
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

size_t t_find_mismatch(const void *buf, size_t n, uint64_t key)
{
    const unsigned char *p = buf;
    uint64_t s = key;
    int fast = words_ok(p);
    for (size_t i = 0; i < n; i += 8) {
        s += 0x9e3779b97f4a7c15ULL;
        uint64_t w = t_mix(s);
        if (fast && i + 8 <= n && *(const t_word *)(p + i) == w)
            continue;
        for (size_t b = 0; b < 8 && i + b < n; b++)
            if (p[i + b] != (unsigned char)(w >> (8 * b)))
                return i + b;
    }
    return (size_t)-1;
}

void *t_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "FAIL rank %d: %s: out of memory allocating %lu bytes (%s:%d)\n", t_rank, t_case_text,
                (unsigned long)n, __FILE__, __LINE__);
        nocmsg_abort(NOCMSG_COMM_WORLD, 1);
    }
    return p;
}

void *t_poisoned(size_t n)
{
    void *p = t_alloc(n + T_GUARD);
    memset(p, T_POISON, n + T_GUARD);
    return p;
}

void t_comm_init(t_comm *c, nocmsg_comm comm, const char *name)
{
    c->comm = comm;
    c->name = name;
    c->rank = -1;
    c->size = 0;
    CHECK_OK(nocmsg_comm_rank(comm, &c->rank));
    CHECK_OK(nocmsg_comm_size(comm, &c->size));
    if (c->size < 1 || c->rank < 0 || c->rank >= c->size) {
        t_fail(__FILE__, __LINE__, "%s: rank %d of %d", name, c->rank, c->size);
        nocmsg_abort(NOCMSG_COMM_WORLD, 1);
    }
    c->right = (c->rank + 1) % c->size;
    c->left = (c->rank - 1 + c->size) % c->size;
}

int t_algorithms(const char *op, const char **names)
{
    const char *const *list = nocmsg_coll_algorithms(op);
    int n = 0, has_auto = 0;
    CHECK(list != NULL, "nocmsg_coll_algorithms(\"%s\") returned NULL", op);
    for (; list && list[n]; n++) {
        if (n == T_MAX_ALGS - 1) {
            t_fail(__FILE__, __LINE__, "%s has more than %d algorithms", op, T_MAX_ALGS - 2);
            break;
        }
        names[n] = list[n];
        has_auto |= strcmp(list[n], "auto") == 0;
    }
    CHECK(n > 0, "%s has no algorithms", op);
    if (!has_auto)
        names[n++] = "auto";
    return n;
}

const char *const t_operations[] = {"barrier", "bcast",     "reduce",   "allreduce",      "gather",
                                    "scatter", "allgather", "alltoall", "reduce_scatter", "scan"};
_Static_assert(sizeof t_operations / sizeof t_operations[0] == T_OPERATIONS, "T_OPERATIONS names");

/* What t_use last set for each operation (NULL: nothing yet, which is "auto" unless the environment says else). */
static const char *current_alg[T_OPERATIONS];

static int operation_index(const char *op)
{
    for (int i = 0; i < T_OPERATIONS; i++)
        if (strcmp(t_operations[i], op) == 0)
            return i;
    return -1;
}

const char *t_alg_label(const char *op, size_t bytes, nocmsg_comm comm)
{
    static char text[96];
    int i = operation_index(op);
    const char *set = i >= 0 && current_alg[i] ? current_alg[i] : "auto";
    if (strcmp(set, "auto") != 0)
        return set;
    const char *choice = nocmsg_coll_choice(op, bytes, comm);
    snprintf(text, sizeof text, "auto: %s", choice ? choice : "NULL");
    return text;
}

void t_use(const char *op, const char *alg)
{
    int i = operation_index(op);
    if (i >= 0)
        current_alg[i] = alg;
    t_case("nocmsg_coll_set(\"%s\", \"%s\")", op, alg);
    CHECK_OK(nocmsg_coll_set(op, alg));
    if (strcmp(alg, "auto") == 0)
        return;
    const char *choice = nocmsg_coll_choice(op, 4096, NOCMSG_COMM_WORLD);
    CHECK(choice && strcmp(choice, alg) == 0, "after nocmsg_coll_set(\"%s\", \"%s\") the choice is %s", op, alg,
          choice ? choice : "NULL");
}

const t_move t_moves[] = {
    {NOCMSG_BYTE, 0},   {NOCMSG_BYTE, 1},      {NOCMSG_BYTE, 7},          {NOCMSG_BYTE, 8},
    {NOCMSG_INT, 7},    {NOCMSG_DOUBLE, 512}, {NOCMSG_BYTE, T_ODD}, {NOCMSG_INT, T_LARGE / 4 + 1},
};
const int t_num_moves = (int)(sizeof t_moves / sizeof t_moves[0]);

int t_next_root(int root, int size, size_t bytes)
{
    if (bytes <= T_ALL_ROOTS_UP_TO)
        return root + 1 < size ? root + 1 : -1;
    if (root < size / 2)
        return size / 2;
    return root < size - 1 ? size - 1 : -1;
}

void t_uneven_counts(int *counts, int n, int per_rank, uint64_t seed)
{
    for (int i = 0; i < n; i++) {
        uint64_t k = t_key(seed, (uint64_t)i, 0xc0);
        /* One in four is 0; the others spread over 1..2*per_rank. */
        counts[i] = per_rank == 0 || k % 4 == 0 ? 0 : 1 + (int)((k >> 8) % (uint64_t)(2 * per_rank));
    }
}

int t_gapped_displs(int *displs, const int *counts, int n, int rotate, uint64_t seed)
{
    int pos = (int)(t_key(seed, 0xd1, 0) % 3);
    for (int j = 0; j < n; j++) {
        int i = (n - 1 - j + rotate) % n;
        displs[i] = pos;
        pos += counts[i] + (int)(t_key(seed, (uint64_t)i, 0xd2) % 4);
    }
    return pos;
}

void t_check_gaps(const char *file, int line, const unsigned char *buf, int extent, const int *counts,
                  const int *displs, int n, int esize)
{
    unsigned char *covered = t_alloc((size_t)extent + 1);
    memset(covered, 0, (size_t)extent + 1);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < counts[i]; k++)
            covered[displs[i] + k] = 1;
    for (int e = 0; e < extent; e++) {
        if (covered[e])
            continue;
        const unsigned char *p = buf + (size_t)e * (size_t)esize;
        for (int b = 0; b < esize; b++) {
            if (p[b] != T_POISON) {
                t_fail(file, line, "element %d, in a gap between blocks, was written (byte 0x%02x)", e, p[b]);
                free(covered);
                return;
            }
        }
    }
    free(covered);
}

/* Dissemination barrier: in round k every rank sends to rank + 2^k and receives from rank - 2^k (mod size). */
void t_barrier(void)
{
    if (sync_comm == NOCMSG_COMM_NULL && nocmsg_comm_dup(NOCMSG_COMM_WORLD, &sync_comm) != NOCMSG_SUCCESS) {
        fprintf(stderr, "FAIL rank %d: cannot duplicate WORLD for the harness (%s:%d)\n", t_rank, __FILE__, __LINE__);
        nocmsg_abort(NOCMSG_COMM_WORLD, 1);
    }
    for (int k = 0, dist = 1; dist < t_size; k++, dist *= 2) {
        int to = (t_rank + dist) % t_size;
        int from = (t_rank - dist % t_size + t_size) % t_size;
        nocmsg_status st;
        CHECK_OK(nocmsg_sendrecv(NULL, 0, NOCMSG_BYTE, to, k, NULL, 0, NOCMSG_BYTE, from, k, sync_comm, &st));
        CHECK_STATUS(st, from, k, 0);
    }
}

void t_section_end(const char *name)
{
    static int failed_before;
    if (t_failures > failed_before) {
        fflush(stdout);
        fprintf(stderr, "FAIL rank %d: section %s had %d failed checks%s (%s:%d)\n", t_rank, name,
                t_failures - failed_before, t_keep_going ? "" : "; stopping", __FILE__, __LINE__);
        fflush(stderr);
        failed_before = t_failures;
        if (!t_keep_going)
            nocmsg_abort(NOCMSG_COMM_WORLD, 1);
    }
#ifdef NOCMSG_TEST_TRACE
    /* Build with -DNOCMSG_TEST_TRACE to see how far each rank got when a run hangs. */
    fprintf(stderr, "rank %d: section %s done at %.6f s\n", t_rank, name, nocmsg_wtime());
#endif
    t_case("after section %s", name);
    t_barrier();
}

int t_total_failures(void)
{
    enum { TAG_FAILURES = 99 };
    t_barrier(); /* makes sure the harness communicator exists */
    int total = t_failures;
    if (t_rank != 0) {
        CHECK_OK(nocmsg_send(&t_failures, 1, NOCMSG_INT, 0, TAG_FAILURES, sync_comm));
        return total;
    }
    for (int r = 1; r < t_size; r++) {
        int n = 0;
        CHECK_OK(nocmsg_recv(&n, 1, NOCMSG_INT, r, TAG_FAILURES, sync_comm, NOCMSG_STATUS_IGNORE));
        total += n;
    }
    return total;
}

/* Decoys: tag 0 (8 bytes) for the posted receive; tags 1 to ISO_TAGS - 1 (the low tags a library might pick for its
 * own messages) and NOCMSG_TAG_UB wait unreceived: 16 bytes with tag 2, ISO_LARGE bytes with tag ISO_TAG_LARGE (larger
 * than any eager limit, the PIMP port's is 512 bytes, so it waits as a request to send), nothing with the others. */
enum { ISO_TAGS = 32, ISO_LARGE = 4096 + 24, ISO_TAG_LARGE = 3 };

struct t_isolation {
    const t_comm *c;
    nocmsg_request trap, sends[ISO_TAGS + 1];
    uint64_t trap_in[8];
    uint64_t small[3];
    unsigned char *large;
    uint64_t key;
};

t_isolation *t_isolate_begin(const t_comm *c)
{
    t_isolation *iso = t_alloc(sizeof *iso);
    memset(iso, 0, sizeof *iso);
    iso->c = c;
    iso->key = t_next_seed();
    iso->large = t_alloc(ISO_LARGE);
    memset(iso->trap_in, T_POISON, sizeof iso->trap_in);
    CHECK_OK(nocmsg_irecv(iso->trap_in, (int)sizeof iso->trap_in, NOCMSG_BYTE, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG,
                          c->comm, &iso->trap));
    return iso;
}

void t_isolate_middle(t_isolation *iso)
{
    const t_comm *c = iso->c;
    /* The posted receive must still be waiting: nothing was sent to it yet. */
    int flag = 1;
    nocmsg_status st;
    CHECK_OK(nocmsg_test(&iso->trap, &flag, &st));
    if (flag) {
        t_fail(__FILE__, __LINE__,
               "a receive posted on %s with ANY_SOURCE and ANY_TAG got a message during the collective: source %d, "
               "tag %d, %lu bytes, first word 0x%016llx", c->name, st.source, st.tag, (unsigned long)st.count_bytes,
               (unsigned long long)iso->trap_in[0]);
        /* Post it again, so that the rest of the check stays in step. */
        CHECK_OK(nocmsg_irecv(iso->trap_in, (int)sizeof iso->trap_in, NOCMSG_BYTE, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG,
                              c->comm, &iso->trap));
    }
    /* Every rank is done with the first collective before any decoy is sent (the harness barrier is on WORLD, so
     * every rank calls this in step). */
    t_barrier();
    for (int i = 0; i < 3; i++)
        iso->small[i] = t_key(iso->key, (uint64_t)c->rank, (uint64_t)i);
    t_fill(iso->large, ISO_LARGE, t_key(iso->key, (uint64_t)c->rank, ISO_TAG_LARGE));
    CHECK_OK(nocmsg_isend(&iso->small[0], 1, NOCMSG_UINT64, c->right, 0, c->comm, &iso->sends[0]));
    for (int tag = 1; tag <= ISO_TAGS; tag++) {
        int t = tag == ISO_TAGS ? NOCMSG_TAG_UB : tag;
        const void *buf = t == 2 ? (const void *)&iso->small[1] : t == ISO_TAG_LARGE ? (const void *)iso->large : NULL;
        int bytes = t == 2 ? 16 : t == ISO_TAG_LARGE ? ISO_LARGE : 0;
        CHECK_OK(nocmsg_isend(buf, bytes, NOCMSG_BYTE, c->right, t, c->comm, &iso->sends[tag]));
    }
}

void t_isolate_end(t_isolation *iso)
{
    const t_comm *c = iso->c;
    nocmsg_status st;
    CHECK_OK(nocmsg_wait(&iso->trap, &st));
    CHECK_STATUS(st, c->left, 0, 8);
    CHECK(iso->trap_in[0] == t_key(iso->key, (uint64_t)c->left, 0),
          "the receive posted on %s with ANY_SOURCE and ANY_TAG got something else than the decoy", c->name);
    /* The waiting ones, in reverse tag order. */
    unsigned char *large = t_alloc(ISO_LARGE);
    for (int tag = ISO_TAGS; tag >= 1; tag--) {
        int t = tag == ISO_TAGS ? NOCMSG_TAG_UB : tag;
        uint64_t in[2] = {0, 0};
        if (t == ISO_TAG_LARGE) {
            CHECK_OK(nocmsg_recv(large, ISO_LARGE, NOCMSG_BYTE, c->left, t, c->comm, &st));
            CHECK_STATUS(st, c->left, t, ISO_LARGE);
            CHECK_PAYLOAD(large, ISO_LARGE, t_key(iso->key, (uint64_t)c->left, ISO_TAG_LARGE), "large decoy on %s",
                          c->name);
        } else if (t == 2) {
            CHECK_OK(nocmsg_recv(in, 2, NOCMSG_UINT64, c->left, t, c->comm, &st));
            CHECK_STATUS(st, c->left, t, 16);
            CHECK(in[0] == t_key(iso->key, (uint64_t)c->left, 1) && in[1] == t_key(iso->key, (uint64_t)c->left, 2),
                  "the 16-byte decoy on %s was changed", c->name);
        } else {
            CHECK_OK(nocmsg_recv(in, 2, NOCMSG_UINT64, c->left, t, c->comm, &st));
            CHECK_STATUS(st, c->left, t, 0);
        }
    }
    CHECK_OK(nocmsg_waitall(ISO_TAGS + 1, iso->sends, NOCMSG_STATUSES_IGNORE));
    /* Nothing else may be waiting on c: the collectives' own messages never show up as point-to-point ones. */
    int flag = 1;
    CHECK_OK(nocmsg_iprobe(NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, c->comm, &flag, &st));
    CHECK(flag == 0, "a message from rank %d with tag %d (%lu bytes) is waiting on %s after the collectives",
          st.source, st.tag, (unsigned long)st.count_bytes, c->name);
    free(large);
    free(iso->large);
    free(iso);
}
