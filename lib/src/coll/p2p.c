/*
 * p2p.c (collectives): the private point-to-point the algorithms use, on the communicator's private context
 * (ctx + 1), in comm ranks.
 *
 * Two ways through. The lean way goes straight to the port, as the fast paths of nocmsg_send and nocmsg_recv do,
 * whenever the progress engine is idle (COLL_SEND_RANKS, and nocmsg_engine_coll_lean_ok on the private context for
 * a receive): a send pushes its EAGER packet into the port, and a receive
 * takes the next header from the port and, if it is the expected one, pulls the payload into the buffer. The
 * engine's way is everything else: the engine busy, a header from someone else or with another tag, a full FIFO, a
 * rendezvous-sized or misaligned message. Both speak the same protocol, so the lean way may give up at any word and
 * hand over to the engine (the engine's rx_handoff, send_rest and recv_rest). On a PIMP chip the lean way costs
 * tens of cycles per message and the engine's hundreds, and a collective is a chain of such messages.
 *
 * Exchanges (coll_sendrecv). Both partners of a pairwise exchange send first, then receive, both the lean way. A
 * packet longer than the way to its destination holds while the destination is itself sending cannot go out in one
 * piece; instead of handing its rest to the engine, the lean exchange pushes it as room frees up and meanwhile
 * takes the partner's packet as it arrives, straight into the receive buffer (see "the lean exchange" below).
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

/* Misaligned buffers of at most this many bytes go the lean way through an aligned copy on the stack. Algorithms
 * that split a buffer of 4-byte elements into blocks meet them all the time (a ring allreduce of 256 B on 64 ranks
 * sends 0- and 4-byte blocks at offsets 4i), and the engine's way costs hundreds of cycles a message. */
#define LEAN_BOUNCE_BYTES 256

static inline int lean_send_aligned(const void *buf, size_t bytes, int to, uint64_t header)
{
    size_t words = bytes / 8, k = nocmsg_port_push_packet(to, header, (const uint64_t *)buf, words);
    if (__builtin_expect(k == words + 1 && bytes % 8 == 0, 1))
        return NOCMSG_SUCCESS;
    return lean_send_end(buf, bytes, to, k);
}

/* A lean send from a misaligned buffer of at most LEAN_BOUNCE_BYTES, through an aligned copy (a send that does not
 * go out in one piece is finished by the engine before this returns, so the copy may live on the stack). */
__attribute__((noinline)) static int lean_send_bounced(const void *buf, size_t bytes, int to, uint64_t header)
{
    uint64_t copy[LEAN_BOUNCE_BYTES / 8];
    memcpy(copy, buf, bytes);
    return lean_send_aligned(copy, bytes, to, header);
}

/* Pushes an EAGER packet straight into the port. Returns -1 if it could not start (the engine is busy, the
 * buffer is misaligned and longer than LEAN_BOUNCE_BYTES, or the send FIFO is full), else the send's result (once
 * started, a partial push is finished by the engine). */
static inline int lean_send(const void *buf, size_t bytes, int to, uint64_t header)
{
    if (!COLL_SEND_RANKS)
        return -1;
    if (__builtin_expect(((uintptr_t)buf & 7) != 0, 0))
        return bytes <= LEAN_BOUNCE_BYTES ? lean_send_bounced(buf, bytes, to, header) : -1;
    return lean_send_aligned(buf, bytes, to, header);
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

/* lean_recv into a misaligned buffer of at most LEAN_BOUNCE_BYTES: the payload goes to an aligned copy on the stack
 * (a payload that does not come in one piece is finished there by the engine before this returns), then its bytes,
 * and no others, to buf. */
__attribute__((noinline)) static int lean_recv_bounced(void *buf, size_t cap, int from, uint64_t want, struct comm *c)
{
    uint64_t copy[LEAN_BOUNCE_BYTES / 8];
    int s = nocmsg_wait_next(from);
    uint64_t h = nocmsg_port_pull1_from(s);
    size_t len = HDR_LEN(h);
    if (s != from || (h << (64 - LEN_SHIFT)) != (want << (64 - LEN_SHIFT)) || len > cap) {
        nocmsg_engine_rx_handoff(s, h);
        return -1;
    }
    size_t words = (len + 7) / 8, k = words ? nocmsg_port_pull_wait(s, copy, words) : 0;
    int err = k == words ? NOCMSG_SUCCESS : nocmsg_engine_recv_rest(s, copy, sizeof copy, h, k, c, NULL);
    memcpy(buf, copy, len);
    return err;
}

/* Takes the next incoming header and, if it is `want` (length aside) from world rank `from` and fits in `cap`
 * bytes, the payload into buf. Returns -1 if the engine must take over (it has been handed whatever was taken),
 * else the receive's result. */
static inline int lean_recv(void *buf, size_t cap, int from, uint64_t want, struct comm *c)
{
    if (!nocmsg_engine_coll_lean_ok(c->ctx + 1))
        return -1;
    if (__builtin_expect(((uintptr_t)buf & 7) != 0, 0))
        return cap <= LEAN_BOUNCE_BYTES ? lean_recv_bounced(buf, cap, from, want, c) : -1;
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

/* ---- the lean exchange ---------------------------------------------------------------------------------- */

/* Both partners of a pairwise exchange send first, then receive. When a packet is longer than what the way to its
 * destination holds while the destination is itself sending (on a PIMP chip the send FIFO, the input buffers of
 * the routers on the path and the receive FIFO: 28 + 4 x hops words on the pimp-* presets, fewer where other
 * packets share them), its push stops part way on both sides. Handing the rest to the engine, as a plain send does,
 * costs both partners about 2,000 cycles: the engine queues it, drains the partner's packet into an unexpected
 * message while it waits for room, and the receive then matches it there (bench/micro/exchange.c: 2,979 cycles for
 * 256 B between neighbours of pimp-8x8, 536 for 224 B). Instead the send goes on here, pushing as room frees up,
 * and meanwhile takes the partner's packet as it arrives straight into the receive buffer (full duplex: what the
 * engine does, without its queues). The first word it does not expect (another source's, or a header that is not
 * the one awaited) hands both halves to the engine from where they stand, which keeps the exchange as
 * deadlock-free as the engine. */

enum { XR_NONE, XR_PAYLOAD, XR_DONE };

/* The receive half of an exchange: an EAGER packet from rank src of c (world rank `from`) with tag `tag`, whose
 * header is `want` length aside, into buf (any alignment) of `cap` bytes. Once its header h is in (XR_PAYLOAD),
 * `len` bytes of payload, of which `got` words are taken. */
struct exchange_rx {
    void *buf;
    size_t cap;
    int src, tag, from, state;
    uint64_t want, h;
    size_t len, got;
    struct comm *c;
};

/* One payload word into x's buffer, no byte past the packet's end. */
static inline void exchange_store(struct exchange_rx *x, uint64_t w)
{
    size_t left = x->len - 8 * x->got;
    memcpy((unsigned char *)x->buf + 8 * x->got, &w, left < 8 ? left : 8);
    x->got++;
}

/* Takes whatever of x's payload is next in line now, without waiting. */
static void exchange_pull(struct exchange_rx *x)
{
    size_t whole = x->len / 8, words = (x->len + 7) / 8;
    int aligned = ((uintptr_t)x->buf & 7) == 0;
    if (aligned && x->got < whole)
        x->got += nocmsg_port_pull(x->from, (uint64_t *)x->buf + x->got, whole - x->got);
    uint64_t w;
    while (x->got < words && (!aligned || x->got >= whole) && nocmsg_port_pull(x->from, &w, 1))
        exchange_store(x, w);
    if (x->got == words)
        x->state = XR_DONE;
}

/* The rest of x's payload, waiting for words on their way; the receive's result, through the engine if another
 * source's word comes first. */
static int exchange_pull_wait(struct exchange_rx *x)
{
    size_t whole = x->len / 8, words = (x->len + 7) / 8;
    int aligned = ((uintptr_t)x->buf & 7) == 0;
    if (aligned && x->got < whole)
        x->got += nocmsg_port_pull_wait(x->from, (uint64_t *)x->buf + x->got, whole - x->got);
    uint64_t w;
    while (x->got < words && (!aligned || x->got >= whole) && nocmsg_port_take(x->from, &w))
        exchange_store(x, w);
    if (x->got < words)
        return nocmsg_engine_recv_rest(x->from, x->buf, x->cap, x->h, x->got, x->c, NULL);
    return NOCMSG_SUCCESS;
}

/* Takes the header that is next from x->from into x->h; 0 if it is not the one awaited (then the engine must be
 * handed it: exchange_rest). */
static int exchange_header(struct exchange_rx *x)
{
    uint64_t h = nocmsg_port_pull1_from(x->from);
    x->h = h;
    if ((h << (64 - LEN_SHIFT)) != (x->want << (64 - LEN_SHIFT)) || HDR_LEN(h) > x->cap)
        return 0;
    x->len = HDR_LEN(h);
    x->got = 0;
    x->state = x->len ? XR_PAYLOAD : XR_DONE;
    return 1;
}

/* The receive, from where x stands, once the send is out. */
static int exchange_finish(struct exchange_rx *x)
{
    if (x->state == XR_NONE)
        return coll_recv(x->buf, x->cap, x->src, x->tag, x->c);
    return x->state == XR_PAYLOAD ? exchange_pull_wait(x) : NOCMSG_SUCCESS;
}

/* The rest of a send to world rank `to` whose packet went in part (its header and `at` payload words), pushed
 * while x's packet is taken as it arrives; then the rest of the receive. Returns the send's result, or else the
 * receive's. */
static int exchange_rest(const void *buf, size_t bytes, int to, size_t at, struct exchange_rx *x)
{
    size_t words = (bytes + 7) / 8;
    int foreign_header = 0;
    while (at < words) {
        int s;
        if (!nocmsg_port_poll(&s)) {
            /* Nothing to take: push, waiting for room until a word arrives. */
            at = nocmsg_port_stream_bytes(to, buf, bytes, at);
            continue;
        }
        if (s != x->from || x->state == XR_DONE)
            break;
        if (x->state == XR_NONE) {
            if (!exchange_header(x)) {
                foreign_header = 1;
                break;
            }
        } else {
            exchange_pull(x);
        }
        at = nocmsg_port_push_bytes(to, buf, bytes, at);
    }
    if (at == words)
        return exchange_finish(x);
    /* A word the exchange does not expect: the engine takes over. The rest of the send goes first into its queue,
     * where everything the engine sends from now on lines up behind it (answering a header could push a packet to
     * `to`, which must not cut into this one). Then the receive, which the engine finishes from where it stands
     * (and meanwhile the send), then the send. */
    struct nocmsg_request_s r;
    nocmsg_engine_queue_rest(to, buf, bytes, at, &r);
    if (foreign_header)
        nocmsg_engine_rx_handoff(x->from, x->h);
    int rerr = x->state == XR_PAYLOAD ? nocmsg_engine_recv_rest(x->from, x->buf, x->cap, x->h, x->got, x->c, NULL)
                                      : exchange_finish(x);
    WAIT_UNTIL(r.done, to, NULL);
    return r.error != NOCMSG_SUCCESS ? r.error : rerr;
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

/* An exchange of a message larger than the eager limit that cannot go the lean way (the engine is busy, or the send
 * buffer is misaligned), or that needs a handshake (transfers off): the receive is posted first, so that the data
 * lands in place. */
__attribute__((noinline)) static int exchange_posted(const void *sendbuf, size_t sendbytes, int dest, void *recvbuf,
                                                     size_t recvbytes, int src, int tag, struct comm *c)
{
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

/* The slow side of an eager exchange (coll_sendrecv): the packet went in part (k words of it, header included, were
 * taken; k == SIZE_MAX: nothing was tried because sendbuf is misaligned), or the lean way is closed (k == 0; then
 * dest or src may be NOCMSG_PROC_NULL). */
__attribute__((noinline)) static int exchange_slow(const void *sendbuf, size_t sendbytes, int dest, void *recvbuf,
                                                   size_t recvbytes, int src, int tag, struct comm *c, size_t k)
{
    uint64_t copy[LEAN_BOUNCE_BYTES / 8];
    if (k == SIZE_MAX && sendbytes > nocmsg_lib.eager_limit)
        return exchange_posted(sendbuf, sendbytes, dest, recvbuf, recvbytes, src, tag, c);
    if (k == SIZE_MAX && sendbytes <= LEAN_BOUNCE_BYTES) {
        /* A misaligned buffer goes through an aligned copy, which lives until the send is out. */
        memcpy(copy, sendbuf, sendbytes);
        sendbuf = copy;
        k = nocmsg_port_push_packet(c->world_of[dest], private_header(c, tag, sendbytes), copy, sendbytes / 8);
    }
    if (k == 0 || k == SIZE_MAX) {
        /* Nothing went: the usual way. The receive happens even if the send failed: the partner's message must not be
         * left for a later call. */
        int err = coll_xsend(sendbuf, sendbytes, dest, tag, c), rerr = coll_recv(recvbuf, recvbytes, src, tag, c);
        return err != NOCMSG_SUCCESS ? err : rerr;
    }
    size_t at = k - 1;
    int to = c->world_of[dest];
    /* Only the part word is left and the port takes it: sent in one piece after all. */
    if (at == sendbytes / 8 && (at = nocmsg_port_push_bytes(to, sendbuf, sendbytes, at)) == (sendbytes + 7) / 8)
        return coll_recv(recvbuf, recvbytes, src, tag, c);
    struct exchange_rx x = {recvbuf, recvbytes, src, tag, c->world_of[src], XR_NONE, private_header(c, tag, 0), 0, 0, 0, c};
    return exchange_rest(sendbuf, sendbytes, to, at, &x);
}

int coll_sendrecv(const void *sendbuf, size_t sendbytes, int dest, void *recvbuf, size_t recvbytes, int src, int tag,
                  struct comm *c)
{
    /* A send of one EAGER packet (up to the eager limit, or of any size as a NoCMsg transfer) needs nothing from the
     * partner, so it goes first and the receive after it, both the lean way while the engine is idle; the rest of a
     * packet the way does not hold makes a lean exchange (above). */
    int eager = sendbytes <= nocmsg_lib.eager_limit || (nocmsg_coll_xfer && sendbytes < EAGER_MAX);
    if (__builtin_expect(eager && dest >= 0 && src >= 0 && nocmsg_engine_coll_lean_ok(c->ctx + 1), 1)) {
        if (__builtin_expect(((uintptr_t)sendbuf & 7) != 0, 0))
            return exchange_slow(sendbuf, sendbytes, dest, recvbuf, recvbytes, src, tag, c, SIZE_MAX);
        size_t words = sendbytes / 8;
        size_t k = nocmsg_port_push_packet(c->world_of[dest], private_header(c, tag, sendbytes), sendbuf, words);
        if (__builtin_expect(k == words + 1 && sendbytes % 8 == 0, 1))
            return coll_recv(recvbuf, recvbytes, src, tag, c);
        return exchange_slow(sendbuf, sendbytes, dest, recvbuf, recvbytes, src, tag, c, k);
    }
    /* Otherwise a message larger than the eager limit posts the receive first, so that the data lands in place. */
    if (sendbytes > nocmsg_lib.eager_limit)
        return exchange_posted(sendbuf, sendbytes, dest, recvbuf, recvbytes, src, tag, c);
    return exchange_slow(sendbuf, sendbytes, dest, recvbuf, recvbytes, src, tag, c, 0);
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
    while (nocmsg_engine_coll_lean_ok(c->ctx + 1)) {
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
        if (nocmsg_engine_coll_lean_ok(c->ctx + 1))
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
