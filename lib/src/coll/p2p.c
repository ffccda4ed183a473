/*
 * p2p.c (collectives): the private point-to-point the algorithms use, on the communicator's private context
 * (ctx + 1), in comm ranks.
 *
 * Two ways through. The lean way goes straight to the port, as the fast paths of nocmsg_send and nocmsg_recv do,
 * whenever the progress engine is idle (nocmsg__fast.send_ranks, and nocmsg_engine_lean_ok on the private context for
 * a receive): a send pushes its EAGER packet into the port, and a receive
 * takes the next header from the port and, if it is the expected one, pulls the payload into the buffer. The
 * engine's way is everything else: the engine busy, a header from someone else or with another tag, a full FIFO, a
 * rendezvous-sized or misaligned message. Both speak the same protocol, so the lean way may give up at any word and
 * hand over to the engine (the engine's rx_handoff, send_rest and recv_rest). On a PIMP chip the lean way costs
 * tens of cycles per message and the engine's hundreds, and a collective is a chain of such messages.
 *
 * Barrier tokens. A barrier's messages are empty and interchangeable: all a receiver needs is how many have come
 * from each source. So when a token from another member arrives while a barrier waits for a particular one (which
 * is usual: in a dissemination barrier, round k + 1's token often overtakes round k's), the lean way only counts it
 * (struct comm's tokens) instead of making the engine buffer it as an unexpected message. The counts persist across
 * calls: a member that left the barrier first may already send its token for the next one. Every barrier algorithm
 * consumes exactly the tokens sent to it, so counts never grow past two.
 */
#include "coll.h"

#include <stdlib.h>
#include <string.h>

#include "../engine.h"
#include "../wait.h"
#include "token.h"

int nocmsg_coll_xfer = 1;

/* The header of an EAGER packet on c's private context, without its length (bits 40-63). */
#define LEN_SHIFT 40
static inline uint64_t private_header(const struct comm *c, int tag, size_t bytes)
{
    return MAKE_HDR(PK_EAGER, c->ctx + 1, tag, bytes);
}

/* ---- the lean way --------------------------------------------------------------------------------------- */

/* The end of a lean send whose packet did not go out in one piece: k words went (header included); a final part
 * word, or the rest of a packet the port took only in part. -1 if nothing went. */
__attribute__((noinline)) static int lean_send_end(const void *buf, size_t bytes, int to, size_t k)
{
    size_t words = bytes / 8;
    if (k == 0)
        return -1;
    if (k == words + 1) {
        uint64_t w = 0;
        memcpy(&w, (const unsigned char *)buf + words * 8, bytes % 8);
        if (nocmsg_port_push1(to, w))
            return NOCMSG_SUCCESS;
    }
    return nocmsg_engine_send_rest(to, buf, bytes, k - 1);
}

/* Pushes an EAGER packet straight into the port. Returns -1 if it could not start (the engine is busy, the
 * buffer is misaligned or the send FIFO is full), else the send's result (once started, a partial push is
 * finished by the engine). */
static inline int lean_send(const void *buf, size_t bytes, int to, uint64_t header)
{
    if (!nocmsg__fast.send_ranks || ((uintptr_t)buf & 7) != 0)
        return -1;
    size_t words = bytes / 8, k = nocmsg_port_push_packet(to, header, (const uint64_t *)buf, words);
    if (__builtin_expect(k == words + 1 && bytes % 8 == 0, 1))
        return NOCMSG_SUCCESS;
    return lean_send_end(buf, bytes, to, k);
}

/* The end of a lean receive whose payload did not come in one piece: `k` whole words have (header h from s). */
__attribute__((noinline)) static int lean_recv_end(void *buf, size_t cap, int s, uint64_t h, size_t k, struct comm *c)
{
    size_t len = HDR_LEN(h), words = len / 8;
    if (k == words) {
        uint64_t w;
        if (nocmsg_port_pull_wait(s, &w, 1)) {
            memcpy((unsigned char *)buf + words * 8, &w, len % 8);
            return NOCMSG_SUCCESS;
        }
    }
    return nocmsg_engine_recv_rest(s, buf, cap, h, k, c, NULL);
}

/* Takes the next incoming header and, if it is `want` (length aside) from world rank `from` and fits in `cap`
 * bytes, the payload into buf. Returns -1 if the engine must take over (it has been handed whatever was taken),
 * else the receive's result. */
static inline int lean_recv(void *buf, size_t cap, int from, uint64_t want, struct comm *c)
{
    if (!nocmsg_engine_lean_ok(c->ctx + 1) || ((uintptr_t)buf & 7) != 0)
        return -1;
    int s = nocmsg_wait_next(from);
    uint64_t h = nocmsg_port_pull1_from(s);
    size_t len = HDR_LEN(h);
    if (__builtin_expect(s != from || (h << (64 - LEN_SHIFT)) != (want << (64 - LEN_SHIFT)) || len > cap, 0)) {
        nocmsg_engine_rx_handoff(s, h);
        return -1;
    }
    /* The payload follows its header within a few cycles: wait for it here rather than in the engine. */
    size_t words = len / 8, k = words ? nocmsg_port_pull_wait(s, (uint64_t *)buf, words) : 0;
    if (__builtin_expect(k == words && len % 8 == 0, 1))
        return NOCMSG_SUCCESS;
    return lean_recv_end(buf, cap, s, h, k, c);
}

/* ---- requests (the engine's way) -------------------------------------------------------------------------- */

static void request_init(struct nocmsg_request_s *r, int kind, void *buf, size_t bytes, int peer, int tag,
                         struct comm *c)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->comm = NOCMSG_COMM_NULL;
    r->ctx = c->ctx + 1;
    r->peer = peer >= 0 ? c->world_of[peer] : peer;
    r->tag = tag;
    r->buf = buf;
    r->bytes = bytes;
}

static int start_send(const void *buf, size_t bytes, int dest, int tag, struct comm *c, struct nocmsg_request_s *r,
                      int mode)
{
    request_init(r, REQ_SEND, (void *)buf, bytes, dest, tag, c);
    if (dest == NOCMSG_PROC_NULL) {
        r->done = 1;
        return NOCMSG_SUCCESS;
    }
    return nocmsg_engine_send(r, mode);
}

int coll_isend(const void *buf, size_t bytes, int dest, int tag, struct comm *c, struct nocmsg_request_s *r)
{
    return start_send(buf, bytes, dest, tag, c, r, SEND_STANDARD);
}

int coll_xisend(const void *buf, size_t bytes, int dest, int tag, struct comm *c, struct nocmsg_request_s *r)
{
    return start_send(buf, bytes, dest, tag, c, r, nocmsg_coll_xfer ? SEND_XFER : SEND_STANDARD);
}

int coll_irecv(void *buf, size_t bytes, int src, int tag, struct comm *c, struct nocmsg_request_s *r)
{
    request_init(r, REQ_RECV, buf, bytes, src, tag, c);
    if (src == NOCMSG_PROC_NULL)
        r->done = 1;
    else
        nocmsg_engine_recv(r);
    return NOCMSG_SUCCESS;
}

int coll_waitall(int n, struct nocmsg_request_s *r)
{
    int err = NOCMSG_SUCCESS;
    for (int i = 0; i < n; i++) {
        WAIT_UNTIL(r[i].done, r[i].peer, NULL);
        if (err == NOCMSG_SUCCESS)
            err = r[i].error;
    }
    return err;
}

/* ---- blocking: the lean way first ------------------------------------------------------------------------ */

/* Whether a send of `bytes` in `mode` is one EAGER packet (no handshake). */
static int eager(size_t bytes, int mode)
{
    return mode == SEND_XFER ? bytes < EAGER_MAX : bytes <= nocmsg_lib.eager_limit;
}

/* The engine's way of a blocking send or receive (out of line, so that the lean way needs no stack frame). */
__attribute__((noinline)) static int engine_send(const void *buf, size_t bytes, int dest, int tag, struct comm *c,
                                                 int mode)
{
    struct nocmsg_request_s r;
    int err = start_send(buf, bytes, dest, tag, c, &r, mode);
    return err != NOCMSG_SUCCESS ? err : coll_waitall(1, &r);
}

__attribute__((noinline)) static int engine_recv(void *buf, size_t bytes, int src, int tag, struct comm *c)
{
    struct nocmsg_request_s r;
    coll_irecv(buf, bytes, src, tag, c, &r);
    return coll_waitall(1, &r);
}

static inline int blocking_send(const void *buf, size_t bytes, int dest, int tag, struct comm *c, int mode)
{
    if (dest != NOCMSG_PROC_NULL && eager(bytes, mode)) {
        int err = lean_send(buf, bytes, c->world_of[dest], private_header(c, tag, bytes));
        if (err >= 0)
            return err;
    }
    return engine_send(buf, bytes, dest, tag, c, mode);
}

int coll_send(const void *buf, size_t bytes, int dest, int tag, struct comm *c)
{
    return blocking_send(buf, bytes, dest, tag, c, SEND_STANDARD);
}

int coll_xsend(const void *buf, size_t bytes, int dest, int tag, struct comm *c)
{
    return blocking_send(buf, bytes, dest, tag, c, nocmsg_coll_xfer ? SEND_XFER : SEND_STANDARD);
}

int coll_recv(void *buf, size_t bytes, int src, int tag, struct comm *c)
{
    if (src == NOCMSG_PROC_NULL)
        return NOCMSG_SUCCESS;
    int err = lean_recv(buf, bytes, c->world_of[src], private_header(c, tag, 0), c);
    if (err >= 0)
        return err;
    return engine_recv(buf, bytes, src, tag, c);
}

int coll_forward(void *buf, size_t bytes, int from, const int *to, int n, size_t segment, int tag, struct comm *c)
{
    unsigned char *b = buf;
    int err = NOCMSG_SUCCESS;
    for (size_t at = 0; at < bytes && err == NOCMSG_SUCCESS; at += segment) {
        size_t len = bytes - at < segment ? bytes - at : segment;
        err = coll_recv(b + at, len, from, tag, c);
        for (int i = 0; i < n && err == NOCMSG_SUCCESS; i++)
            err = coll_xsend(b + at, len, to[i], tag, c);
    }
    return err;
}

int coll_sendrecv(const void *sendbuf, size_t sendbytes, int dest, void *recvbuf, size_t recvbytes, int src, int tag,
                  struct comm *c)
{
    /* A small send is one EAGER packet that needs nothing from the partner, so it may go first and the receive
     * after it, both the lean way. Larger ones post the receive first, so that the data lands in place. */
    if (sendbytes <= nocmsg_lib.eager_limit) {
        /* The receive happens even if the send failed: the partner's message must not be left for a later call. */
        int err = coll_xsend(sendbuf, sendbytes, dest, tag, c), rerr = coll_recv(recvbuf, recvbytes, src, tag, c);
        return err != NOCMSG_SUCCESS ? err : rerr;
    }
    struct nocmsg_request_s r[2];
    coll_irecv(recvbuf, recvbytes, src, tag, c, &r[0]);
    int err = coll_xisend(sendbuf, sendbytes, dest, tag, c, &r[1]);
    if (err != NOCMSG_SUCCESS) {
        r[1].done = 1;
        coll_waitall(1, r);
        return err;
    }
    return coll_waitall(2, r);
}

/* ---- barrier tokens and token plans (token.h) ------------------------------------------------------------ */

/* Appends a round with no steps yet; NULL when out of memory (p->failed says so). */
static struct token_round *plan_round(struct token_plan *p)
{
    if (p->rounds == p->cap) {
        int cap = p->cap ? 2 * p->cap : 8;
        struct token_round *grown = realloc(p->round, (size_t)cap * sizeof *grown);
        if (!grown) {
            p->failed = 1;
            return NULL;
        }
        p->round = grown;
        p->cap = cap;
    }
    struct token_round *r = &p->round[p->rounds++];
    r->send = r->wait = -1;
    return r;
}

void coll_plan_send(struct token_plan *p, int dest, const struct comm *c)
{
    /* A send opens a new round: within a round the send comes first. */
    struct token_round *r = plan_round(p);
    if (r)
        r->send = c->world_of[dest];
}

void coll_plan_wait(struct token_plan *p, int src, const struct comm *c)
{
    struct token_round *r = p->rounds && p->round[p->rounds - 1].wait < 0 ? &p->round[p->rounds - 1] : plan_round(p);
    if (r)
        r->wait = c->world_of[src];
}

void coll_tokens_release(struct comm *c)
{
    if (c->barrier) {
        free(c->barrier->round);
        free(c->barrier);
        c->barrier = NULL;
    }
}

/* The engine's way of a step (world ranks). */
static int slow_send(int to, struct comm *c)
{
    return coll_send(NULL, 0, c->local_of[to], TAG_BARRIER, c);
}

static int slow_wait(int from, struct comm *c)
{
    /* While the engine is idle, the lean loop itself waits (a round with only this wait); it stops early only
     * after handing a header to the engine, which may have left the engine busy. */
    const struct token_round wait = {-1, from};
    while (nocmsg_engine_lean_ok(c->ctx + 1)) {
        struct token_at at = {&wait, 1};
        coll_tokens_lean(&at, &wait + 1, c);
        if (at.round != &wait)
            return NOCMSG_SUCCESS;
    }
    if (!c->tokens[from])
        return coll_recv(NULL, 0, c->local_of[from], TAG_BARRIER, c);
    c->tokens[from]--;
    c->tokens_pending--;
    return NOCMSG_SUCCESS;
}

/* The steps the lean way could not take, and everything after them. */
int coll_tokens_slow(struct token_at at, const struct token_round *end, struct comm *c)
{
    while (at.round != end) {
        const struct token_round *r = at.round;
        int err = NOCMSG_SUCCESS;
        if (!at.sent && r->send >= 0)
            err = slow_send(r->send, c);
        if (err == NOCMSG_SUCCESS && r->wait >= 0)
            err = slow_wait(r->wait, c);
        if (err != NOCMSG_SUCCESS)
            return err;
        at.round++;
        at.sent = 0;
        if (nocmsg_engine_lean_ok(c->ctx + 1))
            coll_tokens_lean(&at, end, c);
    }
    return NOCMSG_SUCCESS;
}

int coll_tokens_run(struct comm *c, token_plan_fn *plan)
{
    struct token_plan *p = c->barrier;
    if (!p || p->made_by != (void *)plan) {
        if (!p && !(p = c->barrier = calloc(1, sizeof *p)))
            return NOCMSG_ERR_NO_MEM;
        p->made_by = NULL;
        p->generation = coll_generation - 1; /* not runnable until made */
        p->rounds = 0;
        p->failed = 0;
        int err = plan(c, p);
        if (err == NOCMSG_SUCCESS && p->failed)
            err = NOCMSG_ERR_NO_MEM;
        if (err != NOCMSG_SUCCESS)
            return err;
        p->made_by = (void *)plan;
    }
    p->generation = coll_generation;
    return coll_tokens_exec(c, p);
}
