/*
 * test_random.c: seeded random communication patterns.
 *
 * For each seed every rank generates the same list of messages (source, destination, tag, size, receive kind,
 * standard or synchronous send) with splitmix64, posts all its sends (isend/issend) and receives (irecv) in a
 * random interleaving, then completes them in a random order with a random mix of wait, test, waitany, testall and
 * waitall. Payloads come from (seed, message index) and are checked.
 *
 * Four kinds of receive, each kind on its own communicator so that a wildcard can only match messages of its kind:
 *   exact       (source, tag) on NOCMSG_COMM_WORLD: the k-th receive posted for a (source, tag) must get the k-th
 *               message sent with them, so the receive knows its message and its exact size;
 *   any source  (NOCMSG_ANY_SOURCE, tag), any tag (source, NOCMSG_ANY_TAG), any both: the receive may get any
 *               message of its kind that fits the pattern, so those messages carry an 8-byte header (message index,
 *               seed check) and every such receive has room for the largest one it could match.
 * A barrier separates seeds, so a wildcard never sees the next seed's messages.
 *
 * Each rank sums a hash of (seed, index, content) over the messages it received; rank 0 combines the sums in rank
 * order. The generated list depends only on the seed and the number of ranks, and the compared run uses the same
 * sizes in every build, so the checksum line must be identical natively and on the simulator for one rank count.
 * Natively a second, unprinted run adds messages up to 256 KiB.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { RP_EXACT, RP_ANY_SOURCE, RP_ANY_TAG, RP_ANY_BOTH, RP_KINDS };
enum { RP_HEADER = 8 };

typedef struct {
    int src, dst, tag, kind, sync;
    size_t size;
} rp_msg;

/* The parameters of one run of seeds. */
typedef struct {
    uint64_t first_seed, seeds;
    size_t max_size;   /* largest message */
    uint32_t per_rank; /* up to per_rank * ranks + 8 messages per seed */
} rp_params;

/* Generates the messages of `seed` for `nranks` ranks. Only seed and nranks matter: every rank gets the same list. */
static int rp_generate(uint64_t seed, int nranks, const rp_params *p, rp_msg **out)
{
    t_rng rng;
    t_rng_seed(&rng, t_key(0x7a11, seed, (uint64_t)nranks));
    int n = 1 + (int)t_rng_below(&rng, p->per_rank * (uint32_t)nranks + 8);
    rp_msg *m = t_alloc((size_t)n * sizeof *m);
    for (int i = 0; i < n; i++) {
        m[i].src = (int)t_rng_below(&rng, (uint32_t)nranks);
        m[i].dst = (int)t_rng_below(&rng, (uint32_t)nranks);
        uint32_t k = t_rng_below(&rng, 8);
        m[i].kind = k < 5 ? RP_EXACT : (int)k - 4;
        /* Few tags, so many messages share a (source, tag) and their order matters. */
        m[i].tag = (int)t_rng_below(&rng, m[i].kind == RP_EXACT ? 6 : 3);
        uint32_t c = t_rng_below(&rng, 16);
        if (c < 2)
            m[i].size = 0;
        else if (c < 8)
            m[i].size = 1 + t_rng_below(&rng, 64);
        else if (c < 14)
            m[i].size = 65 + t_rng_below(&rng, 960);
        else
            m[i].size = 1025 + t_rng_below(&rng, (uint32_t)(p->max_size - 1024));
        if (m[i].kind != RP_EXACT && m[i].size < RP_HEADER)
            m[i].size += RP_HEADER;
        m[i].sync = t_rng_below(&rng, 8) == 0;
    }
    *out = m;
    return n;
}

static uint64_t rp_key(uint64_t seed, int i)
{
    return t_key(0x9a7, seed, (uint64_t)i);
}

/* One posted operation of this rank. */
typedef struct {
    int msg;     /* index of the message this operation was posted for */
    int is_recv;
    int done;
    size_t cap;  /* receive buffer size */
    unsigned char *buf;
} rp_op;

/* The state of one seed on this rank. */
typedef struct {
    uint64_t seed;
    const rp_msg *m;
    int n;
    rp_op *ops;
    nocmsg_request *reqs;
    int nops;
    char *got; /* per message: received (by any receive) */
    uint64_t checksum, received;
} rp_state;

static void rp_complete(rp_state *s, int p, int rc, const nocmsg_status *st)
{
    rp_op *op = &s->ops[p];
    const rp_msg *mine = &s->m[op->msg];
    CHECK(!op->done, "seed %llu: operation %d completed twice", (unsigned long long)s->seed, p);
    CHECK(s->reqs[p] == NOCMSG_REQUEST_NULL, "seed %llu: a completed request was not reset",
          (unsigned long long)s->seed);
    op->done = 1;
    CHECK(rc == NOCMSG_SUCCESS, "seed %llu: message %d (%s) completed with %d (%s)", (unsigned long long)s->seed,
          op->msg, op->is_recv ? "receive" : "send", rc, t_errname(rc));
    if (!op->is_recv || rc != NOCMSG_SUCCESS)
        return;

    int j = op->msg;
    if (mine->kind != RP_EXACT) {
        /* A wildcard: the header says which message arrived. */
        CHECK(st->count_bytes >= RP_HEADER && st->count_bytes <= op->cap,
              "seed %llu: wildcard receive got %lu bytes", (unsigned long long)s->seed,
              (unsigned long)st->count_bytes);
        if (st->count_bytes < RP_HEADER || st->count_bytes > op->cap)
            return;
        uint32_t idx = t_get_u32(op->buf), check = t_get_u32(op->buf + 4);
        CHECK(idx < (uint32_t)s->n && check == (uint32_t)rp_key(s->seed, (int)idx),
              "seed %llu: wildcard receive got a message with header {%u, 0x%x}", (unsigned long long)s->seed,
              (unsigned)idx, (unsigned)check);
        if (idx >= (uint32_t)s->n || check != (uint32_t)rp_key(s->seed, (int)idx))
            return;
        j = (int)idx;
        const rp_msg *got = &s->m[j];
        CHECK(got->dst == t_rank && got->kind == mine->kind, "seed %llu: message %d went to the wrong receive",
              (unsigned long long)s->seed, j);
        CHECK(mine->kind != RP_ANY_SOURCE || got->tag == mine->tag,
              "seed %llu: receive for tag %d got message %d with tag %d", (unsigned long long)s->seed, mine->tag, j,
              got->tag);
        CHECK(mine->kind != RP_ANY_TAG || got->src == mine->src,
              "seed %llu: receive for source %d got message %d from %d", (unsigned long long)s->seed, mine->src, j,
              got->src);
    }
    const rp_msg *got = &s->m[j];
    CHECK(!s->got[j], "seed %llu: message %d received twice", (unsigned long long)s->seed, j);
    s->got[j] = 1;
    CHECK_STATUS(*st, got->src, got->tag, got->size);
    if (st->count_bytes != got->size)
        return;
    CHECK_PAYLOAD_FROM(op->buf, got->size, rp_key(s->seed, j), got->kind == RP_EXACT ? 0 : RP_HEADER);
    s->checksum += t_key(rp_key(s->seed, j), t_hash(op->buf, got->size), (uint64_t)t_rank);
    s->received++;
}

static int rp_pick_pending(rp_state *s, t_rng *rng, int remaining)
{
    int k = (int)t_rng_below(rng, (uint32_t)remaining);
    for (int p = 0; p < s->nops; p++)
        if (!s->ops[p].done && k-- == 0)
            return p;
    return -1;
}

static void rp_post(rp_state *s, const rp_msg *m, int i, int is_recv, nocmsg_comm comms[RP_KINDS], size_t cap)
{
    rp_op *op = &s->ops[s->nops];
    nocmsg_request *req = &s->reqs[s->nops];
    op->msg = i;
    op->is_recv = is_recv;
    op->done = 0;
    op->cap = is_recv ? cap : m->size;
    op->buf = op->cap ? t_alloc(op->cap) : NULL;
    nocmsg_comm comm = comms[m->kind];
    if (!is_recv) {
        t_fill(op->buf, m->size, rp_key(s->seed, i));
        if (m->kind != RP_EXACT) {
            t_put_u32(op->buf, (uint32_t)i);
            t_put_u32(op->buf + 4, (uint32_t)rp_key(s->seed, i));
        }
        if (m->sync)
            CHECK_OK(nocmsg_issend(op->buf, (int)m->size, NOCMSG_BYTE, m->dst, m->tag, comm, req));
        else
            CHECK_OK(nocmsg_isend(op->buf, (int)m->size, NOCMSG_BYTE, m->dst, m->tag, comm, req));
    } else {
        int source = m->kind == RP_ANY_SOURCE || m->kind == RP_ANY_BOTH ? NOCMSG_ANY_SOURCE : m->src;
        int tag = m->kind == RP_ANY_TAG || m->kind == RP_ANY_BOTH ? NOCMSG_ANY_TAG : m->tag;
        CHECK_OK(nocmsg_irecv(op->buf, (int)op->cap, NOCMSG_BYTE, source, tag, comm, req));
    }
    s->nops++;
}

/* Runs one seed on this rank; adds to the checksum and the received count. */
static void rp_run(uint64_t seed, const rp_params *p, nocmsg_comm comms[RP_KINDS], uint64_t *checksum,
                   uint64_t *received, uint64_t *total_messages, uint64_t *total_bytes)
{
    rp_msg *m;
    int n = rp_generate(seed, t_size, p, &m);
    rp_state s = {seed, m, n, NULL, NULL, 0, NULL, 0, 0};
    s.ops = t_alloc((size_t)(2 * n) * sizeof *s.ops);
    s.reqs = t_alloc((size_t)(2 * n) * sizeof *s.reqs);
    s.got = t_alloc((size_t)n);
    memset(s.got, 0, (size_t)n);
    nocmsg_status *sts = t_alloc((size_t)(2 * n) * sizeof *sts);

    /* Room for the largest message each wildcard kind can bring to this rank. */
    size_t cap[RP_KINDS] = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        *total_bytes += m[i].size;
        if (m[i].dst == t_rank && m[i].size > cap[m[i].kind])
            cap[m[i].kind] = m[i].size;
    }
    *total_messages += (uint64_t)n;

    /* Post: receives and sends each in message order, interleaved at random. */
    t_rng rng;
    t_rng_seed(&rng, t_key(0x1ca1, seed, (uint64_t)t_rank));
    int next_recv = 0, next_send = 0;
    for (;;) {
        while (next_recv < n && m[next_recv].dst != t_rank)
            next_recv++;
        while (next_send < n && m[next_send].src != t_rank)
            next_send++;
        if (next_recv == n && next_send == n)
            break;
        int recv = next_send == n || (next_recv < n && t_rng_below(&rng, 2));
        if (recv) {
            const rp_msg *r = &m[next_recv];
            rp_post(&s, r, next_recv, 1, comms, r->kind == RP_EXACT ? r->size : cap[r->kind]);
            next_recv++;
        } else {
            rp_post(&s, &m[next_send], next_send, 0, comms, 0);
            next_send++;
        }
    }

    /* Complete in random order, by random means. */
    int remaining = s.nops;
    while (remaining > 0 && !t_failures) {
        uint32_t how = t_rng_below(&rng, 8);
        nocmsg_status st;
        if (how < 3) {
            int q = rp_pick_pending(&s, &rng, remaining);
            int rc = nocmsg_wait(&s.reqs[q], &st);
            rp_complete(&s, q, rc, &st);
            remaining--;
        } else if (how < 5) {
            int q = rp_pick_pending(&s, &rng, remaining), flag = 0, rc;
            while ((rc = nocmsg_test(&s.reqs[q], &flag, &st)) == NOCMSG_SUCCESS && !flag)
                CHECK_OK(nocmsg_progress());
            rp_complete(&s, q, rc, &st);
            remaining--;
        } else if (how < 7) {
            int q = -1;
            int rc = nocmsg_waitany(s.nops, s.reqs, &q, &st);
            CHECK(q >= 0 && q < s.nops && !s.ops[q].done, "seed %llu: waitany returned index %d",
                  (unsigned long long)seed, q);
            if (q < 0 || q >= s.nops || s.ops[q].done)
                break;
            rp_complete(&s, q, rc, &st);
            remaining--;
        } else {
            int flag = 0;
            int rc = nocmsg_testall(s.nops, s.reqs, &flag, sts);
            if (rc == NOCMSG_SUCCESS && !flag)
                rc = nocmsg_waitall(s.nops, s.reqs, sts);
            CHECK_OK(rc);
            /* The error fields are only meaningful with NOCMSG_ERR_IN_STATUS. */
            for (int q = 0; q < s.nops; q++) {
                if (!s.ops[q].done) {
                    rp_complete(&s, q, rc == NOCMSG_ERR_IN_STATUS ? sts[q].error : rc, &sts[q]);
                    remaining--;
                }
            }
        }
    }
    for (int i = 0; i < n && !t_failures; i++)
        CHECK(m[i].dst != t_rank || s.got[i], "seed %llu: message %d (from %d, kind %d, tag %d, %lu bytes) never "
              "arrived", (unsigned long long)seed, i, m[i].src, m[i].kind, m[i].tag, (unsigned long)m[i].size);

    *checksum += s.checksum;
    *received += s.received;
    for (int q = 0; q < s.nops; q++)
        free(s.ops[q].buf);
    free(sts);
    free(s.got);
    free(s.reqs);
    free(s.ops);
    free(m);
    t_barrier();
}

static void rp_series(const rp_params *p, nocmsg_comm comms[RP_KINDS], uint64_t *checksum, uint64_t *received,
                      uint64_t *total_messages, uint64_t *total_bytes)
{
    for (uint64_t seed = p->first_seed; seed < p->first_seed + p->seeds && !t_failures; seed++)
        rp_run(seed, p, comms, checksum, received, total_messages, total_bytes);
}

void test_random_patterns(uint64_t *checksum, uint64_t *messages_received, uint64_t *total_messages,
                          uint64_t *total_bytes)
{
    nocmsg_comm comms[RP_KINDS] = {NOCMSG_COMM_WORLD, NOCMSG_COMM_NULL, NOCMSG_COMM_NULL, NOCMSG_COMM_NULL};
    for (int k = 1; k < RP_KINDS; k++)
        CHECK_OK(nocmsg_comm_dup(NOCMSG_COMM_WORLD, &comms[k]));
    *checksum = *messages_received = *total_messages = *total_bytes = 0;
    if (t_failures)
        return;

    /* The compared run: the same in every build. */
    const rp_params compared = {1, T_RANDOM_SEEDS, 4096, 4};
    rp_series(&compared, comms, checksum, messages_received, total_messages, total_bytes);

#ifndef NOCMSG_SIM
    /* Natively only: larger messages and more of them; checked, not printed. */
    const rp_params large = {1001, 20, 256 * 1024, 8};
    uint64_t c = 0, r = 0, tm = 0, tb = 0;
    rp_series(&large, comms, &c, &r, &tm, &tb);
#endif

    for (int k = 1; k < RP_KINDS; k++)
        CHECK_OK(nocmsg_comm_free(&comms[k]));
}
