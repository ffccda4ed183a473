/*
 * engine.c: the progress engine. A polling work loop, as in NoCMsg: push what can be pushed of the outgoing
 * packets, drain every incoming word into the message it belongs to, repeat. It never waits on a send while
 * words are arriving, so two ranks streaming large messages at each other cannot jam the network.
 *
 * Flow control: messages up to the port's eager limit travel at once and are buffered by the receiver if no
 * receive is posted yet; larger (and synchronous) ones announce themselves (RTS), wait for the receiver to post a
 * matching receive (CTS), and then stream straight into the receive buffer (DATA). So unexpected data is bounded
 * by eager messages, and every program that is correct under MPI's rules completes.
 */
#include "engine.h"
#include "fc.h"
#include "wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct engine nocmsg_eng;
struct nocmsg_fast_state nocmsg__fast;

/* Appends `item` to the singly linked queue (head, tail) through its `next` field. */
#define QUEUE_APPEND(head, tail, item)                                                                          \
    do {                                                                                                        \
        (item)->next = NULL;                                                                                    \
        if (tail)                                                                                               \
            (tail)->next = (item);                                                                              \
        else                                                                                                    \
            (head) = (item);                                                                                    \
        (tail) = (item);                                                                                        \
    } while (0)
#define eng nocmsg_eng

/* Publishes whether the fast paths may bypass the engine; every entry point ends with it. A receive may bypass it
 * when nothing is queued to send (it would wait at the port without pushing), no packet is partly taken (the next
 * word of every source is a header) and, on its context, nothing is unexpected or posted (nocmsg_engine_lean_ok);
 * nocmsg__fast.recv_ranks says so for NOCMSG_COMM_WORLD's context, 0, which the inline paths use. */
#ifdef NOCMSG_PORT_UDN
unsigned nocmsg__coll_send_ranks, nocmsg__coll_recv_idle;
#endif

static void settle(void)
{
    unsigned ranks = eng.up ? (unsigned)nocmsg_lib.size : 0;
#ifdef NOCMSG_PORT_UDN
    nocmsg__coll_send_ranks = eng.tx_head ? 0 : ranks;
    nocmsg__coll_recv_idle = eng.midpacket || eng.hold ? 0 : nocmsg__coll_send_ranks;
    if (nocmsg__fc_on) /* profiling or a plan: the program's calls take the general path, where the hooks are */
        ranks = 0;
#endif
    unsigned idle = eng.tx_head ? 0 : ranks;
    nocmsg__fast.send_ranks = idle;
    nocmsg__fast.recv_idle = eng.midpacket || eng.hold ? 0 : idle;
    nocmsg__fast.recv_ranks = nocmsg__fast.busy[CTX_SLOT(0)] ? 0 : nocmsg__fast.recv_idle;
}

void nocmsg_engine_hold(int delta)
{
    eng.hold += delta;
    settle();
}

/* Moves src's reassembly to `phase`, counting the streams that are between a header and the packet's end. */
static void set_phase(struct rx *x, int phase)
{
    eng.midpacket += (phase != RX_HEADER) - (x->phase != RX_HEADER);
    x->phase = phase;
}

int nocmsg_engine_init(int size)
{
    memset(&eng, 0, sizeof eng);
    memset(nocmsg__fast.busy, 0, sizeof nocmsg__fast.busy);
    eng.rx = calloc((size_t)size, sizeof *eng.rx);
    eng.blocked_pass = calloc((size_t)size, sizeof *eng.blocked_pass);
    if (!eng.rx || !eng.blocked_pass)
        return NOCMSG_ERR_NO_MEM;
    return NOCMSG_SUCCESS;
}

void nocmsg_engine_start(int up)
{
    eng.up = up;
    settle();
}

void nocmsg_engine_finalize(void)
{
    WAIT_UNTIL(!eng.tx_head, eng.tx_head->dest, "nocmsg_finalize");
    for (struct unexpected *u = eng.ux_head, *next; u; u = next) {
        next = u->next;
        free(u->data);
        free(u);
    }
    for (int src = 0; eng.rx && src < nocmsg_lib.size; src++)
        free(eng.rx[src]);
    free(eng.rx);
    free(eng.blocked_pass);
    memset(&eng, 0, sizeof eng);
    memset(nocmsg__fast.busy, 0, sizeof nocmsg__fast.busy);
    settle();
}

void nocmsg_engine_complete(struct nocmsg_request_s *req, int error)
{
#ifdef NOCMSG_PORT_UDN
    if (req->fc_seq)
        nocmsg_fc_completed(req);
#endif
    req->error = error;
    req->status.error = error;
    req->done = 1;
    if (req->user_freed)
        free(req);
}

/* Running out of memory for an unexpected message would lose it; stop loudly instead. */
__attribute__((noreturn)) static void fatal_no_memory(size_t bytes, int src)
{
    fprintf(stderr, "nocmsg: rank %d: out of memory buffering an unexpected message of %zu bytes from rank %d\n",
            nocmsg_lib.rank, bytes, src);
    nocmsg_port_abort(1);
}

/* src's reassembly state, made on its first packet. Without it the stream from src cannot be followed. */
__attribute__((noinline, cold)) static struct rx *rx_new(int src)
{
    struct rx *x = calloc(1, sizeof *x);
    if (!x) {
        fprintf(stderr, "nocmsg: rank %d: out of memory receiving from rank %d\n", nocmsg_lib.rank, src);
        nocmsg_port_abort(1);
    }
    eng.rx[src] = x;
    return x;
}

static inline struct rx *rx_of(int src)
{
    struct rx *x = eng.rx[src];
    return x ? x : rx_new(src);
}

/* ---- sending ---------------------------------------------------------------------------------------- */

/* Pushes what the port takes of p; returns 1 when the packet is complete. */
static int tx_push(struct txpkt *p)
{
    while (p->head_sent < p->nhead) {
        size_t k = nocmsg_port_push(p->dest, p->head + p->head_sent, (size_t)(p->nhead - p->head_sent));
        if (k == 0)
            return 0;
        p->head_sent += (int)k;
    }
    size_t words = (p->bytes + 7) / 8;
    while (p->words_sent < words) {
        const unsigned char *at = p->payload + p->words_sent * 8;
        size_t full = p->bytes / 8;
        if (p->words_sent < full && ((uintptr_t)at & 7) == 0) {
            size_t k = nocmsg_port_push(p->dest, (const uint64_t *)(const void *)at, full - p->words_sent);
            if (k == 0)
                return 0;
            p->words_sent += k;
        } else {
            uint64_t w = 0;
            size_t left = p->bytes - p->words_sent * 8;
            memcpy(&w, at, left < 8 ? left : 8);
            if (nocmsg_port_push(p->dest, &w, 1) == 0)
                return 0;
            p->words_sent++;
        }
    }
    return 1;
}

static int tx_enqueue(int dest, const uint64_t *head, int nhead, const void *payload, size_t bytes,
                      struct nocmsg_request_s *req)
{
    struct txpkt *p = malloc(sizeof *p);
    if (!p)
        return NOCMSG_ERR_NO_MEM;
    p->dest = dest;
    p->nhead = nhead;
    p->head_sent = 0;
    if (nhead) /* the rest of a fast send has no header words (head is NULL) */
        memcpy(p->head, head, (size_t)nhead * sizeof(uint64_t));
    p->payload = payload;
    p->bytes = bytes;
    p->words_sent = 0;
    p->req = req;
    QUEUE_APPEND(eng.tx_head, eng.tx_tail, p);
    return NOCMSG_SUCCESS;
}

/* Sends a packet: straight into the port when nothing is queued before it, else behind the queue. */
static int tx_send(int dest, const uint64_t *head, int nhead, const void *payload, size_t bytes,
                   struct nocmsg_request_s *req)
{
    if (!eng.tx_head) {
        struct txpkt p = {dest, nhead, 0, {0, 0, 0}, payload, bytes, 0, req, NULL};
        memcpy(p.head, head, (size_t)nhead * sizeof(uint64_t));
        if (tx_push(&p)) {
            if (req)
                nocmsg_engine_complete(req, NOCMSG_SUCCESS);
            return NOCMSG_SUCCESS;
        }
        int err = tx_enqueue(dest, p.head, nhead, payload, bytes, req);
        if (err == NOCMSG_SUCCESS) {
            eng.tx_tail->head_sent = p.head_sent;
            eng.tx_tail->words_sent = p.words_sent;
        }
        return err;
    }
    return tx_enqueue(dest, head, nhead, payload, bytes, req);
}

/* One pass over the queued packets. Packets to one destination leave in order; a stalled destination does not
 * hold up the others. */
static int tx_progress(void)
{
    int did = 0;
    eng.pass++;
    struct txpkt **link = &eng.tx_head, *prev = NULL;
    while (*link) {
        struct txpkt *p = *link;
        if (eng.blocked_pass[p->dest] == eng.pass) {
            prev = p;
            link = &p->next;
            continue;
        }
        int head_before = p->head_sent;
        size_t words_before = p->words_sent;
        int complete = tx_push(p);
        if (p->head_sent != head_before || p->words_sent != words_before)
            did = 1;
        if (!complete) {
            eng.blocked_pass[p->dest] = eng.pass;
            prev = p;
            link = &p->next;
            continue;
        }
        *link = p->next;
        if (eng.tx_tail == p)
            eng.tx_tail = prev;
        if (p->req)
            nocmsg_engine_complete(p->req, NOCMSG_SUCCESS);
        free(p);
    }
    return did;
}

/* Whether a send of req in `mode` goes eager. */
static int send_eager(const struct nocmsg_request_s *req, int mode)
{
    return mode >= SEND_XFER ? req->bytes < EAGER_MAX : mode == SEND_STANDARD && req->bytes <= nocmsg_lib.eager_limit;
}

int nocmsg_engine_send(struct nocmsg_request_s *req, int mode)
{
    int err;
#ifdef NOCMSG_PORT_UDN
    /* Raw: straight into the network with stalling writes, when nothing is queued before it (the order of a rank's
     * messages to a peer must hold), and not to itself (it would have to read what it writes while it writes). */
    if (mode == SEND_RAW && !eng.tx_head && req->bytes < EAGER_MAX && req->peer != nocmsg_lib.rank &&
        nocmsg_port_write_message(req->peer, MAKE_HDR(PK_EAGER, req->ctx, req->tag, req->bytes), req->buf, req->bytes)) {
        nocmsg_engine_complete(req, NOCMSG_SUCCESS);
        settle();
        return NOCMSG_SUCCESS;
    }
#endif
    if (send_eager(req, mode)) {
        uint64_t h = MAKE_HDR(PK_EAGER, req->ctx, req->tag, req->bytes);
        err = tx_send(req->peer, &h, 1, req->buf, req->bytes, req);
    } else {
        uint64_t h[3] = {MAKE_HDR(PK_RTS, req->ctx, req->tag, 0), (uint64_t)req->bytes, (uint64_t)(uintptr_t)req};
        /* The request completes when its DATA packet has been pushed, after the CTS arrives. */
        err = tx_send(req->peer, h, 3, NULL, 0, NULL);
    }
    settle();
    return err;
}

uint64_t nocmsg_engine_send_id(struct nocmsg_request_s *req, int mode, uint64_t id, int *err)
{
    if (!send_eager(req, mode) || mode == SEND_RAW) {
        *err = nocmsg_engine_send(req, mode);
        return (uint64_t)(uintptr_t)req;
    }
    uint64_t h[2] = {MAKE_HDR(PK_EAGER_ID, req->ctx, req->tag, req->bytes), id};
    *err = tx_send(req->peer, h, 2, req->buf, req->bytes, req);
    settle();
    return id;
}

int nocmsg_engine_cancel_send(int dest, uint64_t key, volatile int *answer)
{
    uint64_t h[3] = {MAKE_HDR(PK_CANCEL, 0, 0, 0), key, (uint64_t)(uintptr_t)answer};
    int err = tx_send(dest, h, 3, NULL, 0, NULL);
    settle();
    return err;
}

/* ---- matching --------------------------------------------------------------------------------------- */

static int matches(int ctx, int src, int tag, const struct nocmsg_request_s *r)
{
    return r->ctx == ctx && (r->peer == NOCMSG_ANY_SOURCE || r->peer == src) && (r->tag == NOCMSG_ANY_TAG || r->tag == tag);
}

static struct nocmsg_request_s *take_posted(int ctx, int src, int tag)
{
    struct nocmsg_request_s **link = &eng.posted_head, *prev = NULL;
    for (; *link; prev = *link, link = &(*link)->next) {
        struct nocmsg_request_s *r = *link;
        if (matches(ctx, src, tag, r)) {
            *link = r->next;
            if (eng.posted_tail == r)
                eng.posted_tail = prev;
            r->next = NULL;
            nocmsg__fast.busy[CTX_SLOT(r->ctx)]--;
            return r;
        }
    }
    return NULL;
}

static void set_status(struct nocmsg_request_s *r, int src_world, int tag, size_t msg_bytes)
{
    struct comm *c = nocmsg_comm_get(r->comm);
    r->msg_bytes = msg_bytes;
    r->status.source = c ? c->local_of[src_world] : src_world;
    r->status.tag = tag;
    r->status.count_bytes = msg_bytes < r->bytes ? msg_bytes : r->bytes;
}

static int truncation(const struct nocmsg_request_s *r)
{
    return r->msg_bytes > r->bytes ? NOCMSG_ERR_TRUNCATE : NOCMSG_SUCCESS;
}

/* A matched rendezvous: tell the sender to go ahead. */
static void send_cts(struct nocmsg_request_s *r, int src, uint64_t sender_req)
{
    uint64_t h[3] = {MAKE_HDR(PK_CTS, 0, 0, 0), sender_req, (uint64_t)(uintptr_t)r};
    if (tx_send(src, h, 3, NULL, 0, NULL) != NOCMSG_SUCCESS)
        nocmsg_engine_complete(r, NOCMSG_ERR_NO_MEM);
    else
        eng.awaiting_data++;
}

struct unexpected *nocmsg_engine_probe(int ctx, int src, int tag)
{
    struct nocmsg_request_s probe = {0};
    probe.ctx = ctx;
    probe.peer = src;
    probe.tag = tag;
    for (struct unexpected *u = eng.ux_head; u; u = u->next)
        if (!u->matched && matches(u->ctx, u->src, u->tag, &probe))
            return u;
    return NULL;
}

static void ux_remove(struct unexpected *u)
{
    struct unexpected **link = &eng.ux_head, *prev = NULL;
    while (*link != u) {
        prev = *link;
        link = &(*link)->next;
    }
    *link = u->next;
    if (eng.ux_tail == u)
        eng.ux_tail = prev;
    nocmsg__fast.busy[CTX_SLOT(u->ctx)]--;
}

/* Hands a complete unexpected eager message to the receive that matched it. */
static void ux_deliver(struct unexpected *u, struct nocmsg_request_s *r)
{
    size_t n = u->bytes < r->bytes ? u->bytes : r->bytes;
    if (n)
        memcpy(r->buf, u->data, n);
    nocmsg_engine_complete(r, truncation(r));
    free(u->data);
    free(u);
}

void nocmsg_engine_recv(struct nocmsg_request_s *r)
{
    struct unexpected *u = nocmsg_engine_probe(r->ctx, r->peer, r->tag);
    if (u) {
        set_status(r, u->src, u->tag, u->bytes);
        if (u->kind == PK_RTS) {
            ux_remove(u);
            uint64_t sender_req = u->sender_req;
            int src = u->src;
            free(u);
            send_cts(r, src, sender_req);
        } else if (u->complete) {
            ux_remove(u);
            ux_deliver(u, r);
        } else {
            /* Still arriving: it completes r when its last word lands. */
            ux_remove(u);
            u->matched = r;
        }
    } else {
        QUEUE_APPEND(eng.posted_head, eng.posted_tail, r);
        nocmsg__fast.busy[CTX_SLOT(r->ctx)]++;
    }
    settle();
}

int nocmsg_engine_cancel_recv(struct nocmsg_request_s *r)
{
    struct nocmsg_request_s **link = &eng.posted_head, *prev = NULL;
    for (; *link; prev = *link, link = &(*link)->next)
        if (*link == r) {
            *link = r->next;
            if (eng.posted_tail == r)
                eng.posted_tail = prev;
            r->next = NULL;
            nocmsg__fast.busy[CTX_SLOT(r->ctx)]--;
            settle();
            return 1;
        }
    return 0;
}

/* ---- receiving -------------------------------------------------------------------------------------- */

/* The packet from src is complete. */
static void rx_finish(struct rx *x)
{
    if (x->req) {
        nocmsg_engine_complete(x->req, truncation(x->req));
    } else if (x->ux) {
        struct unexpected *u = x->ux;
        u->complete = 1;
        if (u->matched)
            ux_deliver(u, u->matched);
    }
    set_phase(x, RX_HEADER);
    x->req = NULL;
    x->ux = NULL;
}

/* Sets up the payload phase of an EAGER or DATA packet into req (or into a new unexpected entry). */
static void rx_begin_payload(struct rx *x)
{
    x->received = 0;
    if ((x->msg_bytes + 7) / 8 == 0)
        rx_finish(x);
    else
        set_phase(x, RX_PAYLOAD);
}

/* A header (and its extra words) has arrived from src. */
static void rx_header(int src, struct rx *x)
{
    uint64_t h = x->hdr;
    int kind = HDR_KIND(h), ctx = HDR_CTX(h), tag = HDR_TAG(h);
    x->req = NULL;
    x->ux = NULL;
    switch (kind) {
    case PK_EAGER:
    case PK_EAGER_ID: {
        x->msg_bytes = HDR_LEN(h);
        struct nocmsg_request_s *r = take_posted(ctx, src, tag);
        if (r) {
            set_status(r, src, tag, x->msg_bytes);
            x->req = r;
            x->dst = r->buf;
            x->dst_bytes = r->bytes;
        } else {
            struct unexpected *u = calloc(1, sizeof *u);
            unsigned char *data = x->msg_bytes ? malloc(x->msg_bytes) : NULL;
            if (!u || (x->msg_bytes && !data))
                fatal_no_memory(x->msg_bytes, src);
            u->kind = PK_EAGER;
            u->sender_req = kind == PK_EAGER_ID ? x->extra[0] : 0; /* its name, for a cancel */
            u->ctx = ctx;
            u->src = src;
            u->tag = tag;
            u->bytes = x->msg_bytes;
            u->data = data;
            QUEUE_APPEND(eng.ux_head, eng.ux_tail, u);
            nocmsg__fast.busy[CTX_SLOT(ctx)]++;
            x->ux = u;
            x->dst = data;
            x->dst_bytes = x->msg_bytes;
        }
        rx_begin_payload(x);
        return;
    }
    case PK_RTS: {
        size_t bytes = (size_t)x->extra[0];
        uint64_t sender_req = x->extra[1];
        struct nocmsg_request_s *r = take_posted(ctx, src, tag);
        if (r) {
            set_status(r, src, tag, bytes);
            send_cts(r, src, sender_req);
        } else {
            struct unexpected *u = calloc(1, sizeof *u);
            if (!u)
                fatal_no_memory(sizeof *u, src);
            u->kind = PK_RTS;
            u->ctx = ctx;
            u->src = src;
            u->tag = tag;
            u->bytes = bytes;
            u->sender_req = sender_req;
            u->complete = 1;
            QUEUE_APPEND(eng.ux_head, eng.ux_tail, u);
            nocmsg__fast.busy[CTX_SLOT(ctx)]++;
        }
        return;
    }
    case PK_CTS: {
        struct nocmsg_request_s *s = (struct nocmsg_request_s *)(uintptr_t)x->extra[0];
        uint64_t h2[2] = {MAKE_HDR(PK_DATA, 0, 0, 0), x->extra[1]};
        if (tx_send(src, h2, 2, s->buf, s->bytes, s) != NOCMSG_SUCCESS)
            nocmsg_engine_complete(s, NOCMSG_ERR_NO_MEM);
        return;
    }
    case PK_CANCEL: {
        /* The sender asks to drop a message it sent before this packet (so it has arrived): the one named
         * extra[0] if no receive has matched it. Names are unique among a sender's live messages; the last one is
         * taken should an old one be left over. */
        struct unexpected *hit = NULL;
        for (struct unexpected *u = eng.ux_head; u; u = u->next)
            if (u->src == src && u->sender_req == x->extra[0] && u->complete && !u->matched)
                hit = u;
        if (hit) {
            ux_remove(hit);
            free(hit->data);
            free(hit);
        }
        uint64_t ack[2] = {MAKE_HDR(PK_CANCEL_ACK, 0, hit != NULL, 0), x->extra[1]};
        if (tx_send(src, ack, 2, NULL, 0, NULL) != NOCMSG_SUCCESS)
            fatal_no_memory(sizeof(struct txpkt), src);
        return;
    }
    case PK_CANCEL_ACK:
        *(volatile int *)(uintptr_t)x->extra[0] = tag;
        return;
    case PK_DATA: {
        struct nocmsg_request_s *r = (struct nocmsg_request_s *)(uintptr_t)x->extra[0];
        eng.awaiting_data--;
        x->req = r;
        x->msg_bytes = r->msg_bytes;
        x->dst = r->buf;
        x->dst_bytes = r->bytes;
        rx_begin_payload(x);
        return;
    }
    default:
        /* A corrupt stream cannot be resynchronised. */
        fprintf(stderr, "nocmsg: rank %d: corrupt packet header %#llx from rank %d\n", nocmsg_lib.rank,
                (unsigned long long)h, src);
        nocmsg_port_abort(1);
    }
}

static int extra_words(int kind)
{
    switch (kind) {
    case PK_RTS:
    case PK_CTS:
    case PK_CANCEL:
        return 2;
    case PK_DATA:
    case PK_EAGER_ID:
    case PK_CANCEL_ACK:
        return 1;
    default:
        return 0;
    }
}

/* Consumes payload words from src; returns 1 if the packet completed. */
static int rx_payload(int src, struct rx *x)
{
    size_t words = (x->msg_bytes + 7) / 8;
    size_t done = x->received / 8;
    while (done < words) {
        size_t room_words = x->dst && x->dst_bytes > x->received ? (x->dst_bytes - x->received) / 8 : 0;
        size_t direct = words - done < room_words ? words - done : room_words;
        /* A word at the end of the message may hold fewer bytes than 8: it never goes direct. */
        if (direct && done + direct == words && x->msg_bytes % 8)
            direct--;
        if (direct && ((uintptr_t)(x->dst + x->received) & 7) == 0) {
            size_t k = nocmsg_port_pull(src, (uint64_t *)(void *)(x->dst + x->received), direct);
            done += k;
            x->received = done * 8;
            if (k < direct)
                return 0;
            continue;
        }
        uint64_t w;
        if (nocmsg_port_pull(src, &w, 1) == 0)
            return 0;
        if (x->dst && x->dst_bytes > x->received) {
            size_t n = x->dst_bytes - x->received;
            size_t in_msg = x->msg_bytes - x->received;
            if (n > 8)
                n = 8;
            if (n > in_msg)
                n = in_msg;
            memcpy(x->dst + x->received, &w, n);
        }
        done++;
        x->received = done * 8;
    }
    return 1;
}

/* Consumes what has arrived from src. */
static void rx_feed(int src)
{
    struct rx *x = rx_of(src);
    for (;;) {
        if (x->phase == RX_HEADER) {
            if (nocmsg_port_pull(src, &x->hdr, 1) == 0)
                return;
            x->extra_need = extra_words(HDR_KIND(x->hdr));
            x->extra_have = 0;
            if (x->extra_need == 0) {
                rx_header(src, x);
                continue;
            }
            set_phase(x, RX_EXTRA);
        }
        if (x->phase == RX_EXTRA) {
            size_t k = nocmsg_port_pull(src, x->extra + x->extra_have, (size_t)(x->extra_need - x->extra_have));
            x->extra_have += (int)k;
            if (x->extra_have < x->extra_need)
                return;
            set_phase(x, RX_HEADER);
            rx_header(src, x);
            continue;
        }
        if (!rx_payload(src, x))
            return;
        rx_finish(x);
    }
}

/* A fast path took header h and `have` of its extra words from src: the engine carries on from there. */
static void rx_resume(int src, uint64_t h, const uint64_t *extra, int have)
{
    struct rx *x = rx_of(src);
    x->hdr = h;
    x->extra_need = extra_words(HDR_KIND(h));
    x->extra_have = have;
    for (int i = 0; i < have; i++)
        x->extra[i] = extra[i];
    if (have < x->extra_need)
        set_phase(x, RX_EXTRA);
    else
        rx_header(src, x);
    rx_feed(src);
    settle();
}

static int rx_progress(void)
{
    int did = 0, src;
    /* Bounded, so a flood of incoming words cannot starve our own sends. */
    for (int round = 0; round < 64 && nocmsg_port_poll(&src); round++) {
        rx_feed(src);
        did = 1;
    }
    return did;
}

int nocmsg_engine_progress(void)
{
    int did = eng.tx_head ? tx_progress() : 0;
    did |= rx_progress();
    settle();
    return did;
}

void (*nocmsg_engine_idle)(void);
int (*nocmsg_engine_idle_busy)(void);

void nocmsg_engine_block(void)
{
    if (nocmsg_engine_idle)
        nocmsg_engine_idle();
    if (!nocmsg_engine_progress())
        nocmsg_port_wait(eng.tx_head != NULL);
    else
        nocmsg_wait_progress();
}

/* ---- fast paths ------------------------------------------------------------------------------------- */
/* The common case of a blocking send or receive of a small message, with nothing else going on, goes straight
 * to the port: these decide the latency the benchmarks report. Anything unusual falls back to the general
 * machinery above, which gives the same results. */

/* The port took only the first `sent` payload words: queue the rest, to complete r when it is out of the buffer. */
void nocmsg_engine_queue_rest(int dest, const void *buf, size_t bytes, size_t sent, struct nocmsg_request_s *r)
{
    r->done = 0;
    r->user_freed = 0;
    r->error = NOCMSG_SUCCESS;
    /* Part of the packet is already out: without the rest the receiver's stream from this rank would never find
     * its next header again, so running out of memory here is fatal, as in fatal_no_memory. */
    if (tx_enqueue(dest, NULL, 0, buf, bytes, r) != NOCMSG_SUCCESS) {
        fprintf(stderr, "nocmsg: rank %d: out of memory finishing a %zu-byte message to rank %d\n", nocmsg_lib.rank,
                bytes, dest);
        nocmsg_port_abort(1);
    }
    eng.tx_tail->words_sent = sent;
    settle();
}

/* The port took only the first `sent` payload words: queue the rest and wait until it is out of the buffer. */
__attribute__((noinline)) int nocmsg_engine_send_rest(int dest, const void *buf, size_t bytes, size_t sent)
{
    struct nocmsg_request_s r;
    nocmsg_engine_queue_rest(dest, buf, bytes, sent, &r);
    WAIT_UNTIL(r.done, dest, "nocmsg_send");
    return r.error;
}

/* A header the fast receive cannot take: the general machinery handles it. */
__attribute__((noinline)) void nocmsg_engine_rx_handoff(int src, uint64_t h)
{
    rx_resume(src, h, NULL, 0);
}

/* The payload from src is still on its way after `got` words: let the engine finish it into a request of ours,
 * then report it. */
__attribute__((noinline)) int nocmsg_engine_recv_rest(int src, void *buf, size_t cap, uint64_t hdr, size_t got,
                                                      const struct comm *c, nocmsg_status *status)
{
    struct rx *x = rx_of(src);
    size_t len = HDR_LEN(hdr);
    struct nocmsg_request_s r;
    r.done = 0;
    r.user_freed = 0;
    r.bytes = cap;
    r.msg_bytes = len;
    x->req = &r;
    x->ux = NULL;
    x->dst = buf;
    x->dst_bytes = cap;
    x->msg_bytes = len;
    x->received = got * 8;
    set_phase(x, RX_PAYLOAD);
    settle();
    WAIT_UNTIL(r.done, src, "nocmsg_recv");
    if (status) {
        status->source = c->local_of[src];
        status->tag = HDR_TAG(hdr);
        status->error = NOCMSG_SUCCESS;
        status->count_bytes = len;
    }
    return NOCMSG_SUCCESS;
}

/* ---- the lean rendezvous ------------------------------------------------------------------------------ */
/* Blocking sends over the eager limit and the receives that take their RTS, while the engine is idle: the handshake
 * and the data go straight between the port and the user's buffers, as the eager fast paths do, instead of through
 * queued packets (which cost a few thousand cycles per kilobyte on a PIMP core). Their requests are the engine's
 * lean_tx and lean_rx (a rank is in one blocking call at a time), whose addresses travel in the RTS and CTS as any
 * request's do; so whatever the lean way hands over mid-way (a word it does not expect, a full FIFO while words
 * arrive), the engine completes exactly as if it had run from the start. The lean way waits only when the engine
 * would (nothing to push, nothing arrived), and pushes each control packet before it does its bookkeeping, which
 * the packet's flight hides (the engine sees the requests only when these functions call it). */

/* What is left of a packet a fast path pushed in part goes behind nothing (the queue was empty) in the queue. Part of
 * the packet may be out, so running out of memory here is fatal, as in fatal_no_memory. */
static void tx_queue_rest(int dest, const uint64_t *head, int nhead, int head_sent, const void *payload, size_t bytes,
                          size_t words_sent, struct nocmsg_request_s *req)
{
    if (tx_enqueue(dest, head, nhead, payload, bytes, req) != NOCMSG_SUCCESS) {
        fprintf(stderr, "nocmsg: rank %d: out of memory finishing a %zu-byte message to rank %d\n", nocmsg_lib.rank,
                bytes, dest);
        nocmsg_port_abort(1);
    }
    eng.tx_tail->head_sent = head_sent;
    eng.tx_tail->words_sent = words_sent;
    settle();
}

/* Lets the engine finish a request a lean path started. */
static int wait_request(struct nocmsg_request_s *r)
{
    settle();
    while (!r->done)
        nocmsg_engine_block();
    return r->error;
}

static void lean_request(struct nocmsg_request_s *r, int kind, int ctx, int peer, int tag, void *buf, size_t bytes)
{
    r->kind = kind;
    r->done = 0;
    r->error = NOCMSG_SUCCESS;
    r->user_freed = 0;
    r->ctx = ctx;
    r->comm = NOCMSG_COMM_NULL;
    r->peer = peer;
    r->tag = tag;
    r->buf = buf;
    r->bytes = bytes;
    r->msg_bytes = 0;
    r->status.source = peer;
    r->status.tag = tag;
    r->status.error = NOCMSG_SUCCESS;
    r->status.count_bytes = 0;
    r->next = NULL;
}

__attribute__((noinline)) int nocmsg_engine_rdv_send(int to, int ctx, int tag, const void *buf, size_t bytes,
                                                     size_t rts_pushed)
{
    struct nocmsg_request_s *s = &eng.lean_tx;
    lean_request(s, REQ_SEND, ctx, to, tag, (void *)buf, bytes);
    if (__builtin_expect(rts_pushed < 3, 0)) {
        uint64_t rts[3] = {MAKE_HDR(PK_RTS, ctx, tag, 0), (uint64_t)bytes, (uint64_t)(uintptr_t)s};
        tx_queue_rest(to, rts, 3, (int)rts_pushed, NULL, 0, 0, NULL);
        return wait_request(s);
    }
    /* Nothing else to do until the CTS: wait for the next word, and take it if it is the CTS for s. */
    int src = nocmsg_port_next();
    if (__builtin_expect(src != to, 0))
        return wait_request(s);
    uint64_t h = nocmsg_port_pull1_from(src), extra[2] = {0, 0};
    int got = 0;
    if (__builtin_expect(HDR_KIND(h) == PK_CTS, 1) && nocmsg_port_take(src, &extra[0]) && ++got &&
        nocmsg_port_take(src, &extra[1]))
        got++;
    if (__builtin_expect(got < 2 || extra[0] != (uint64_t)(uintptr_t)s, 0)) {
        rx_resume(src, h, extra, got);
        return wait_request(s);
    }
    /* The DATA packet, for the receiver's request extra[1]: pushed while the FIFO has room, waiting for room while
     * nothing arrives; when words arrive on a full FIFO, the engine takes the rest (it drains them meanwhile). */
    size_t at = 0, words = (bytes + 7) / 8;
    int head_sent = 0;
#if defined(NOCMSG_PORT_MPB) || defined(NOCMSG_PORT_UDN)
    /* One publication for the two header words (on the MPB each push is a write to the receiver's MPB; on the UDN
     * each push of a new run is a packet). */
    uint64_t data_head[2] = {MAKE_HDR(PK_DATA, 0, 0, 0), extra[1]};
    if ((head_sent = (int)nocmsg_port_push(to, data_head, 2)) == 2) {
#else
    if (nocmsg_port_push1(to, MAKE_HDR(PK_DATA, 0, 0, 0)) && ++head_sent && nocmsg_port_push1(to, extra[1])) {
        head_sent++;
#endif
        at = nocmsg_port_stream_bytes(to, buf, bytes, 0);
        if (__builtin_expect(at == words, 1))
            return NOCMSG_SUCCESS;
    }
    uint64_t head[2] = {MAKE_HDR(PK_DATA, 0, 0, 0), extra[1]};
    tx_queue_rest(to, head, 2, head_sent, buf, bytes, at, s);
    return wait_request(s);
}

/* The outcome of a receive the engine finished. */
static int finish_recv(struct nocmsg_request_s *r, nocmsg_status *status)
{
    int err = wait_request(r);
    if (status)
        *status = r->status;
    return err;
}

/* Where a lean rendezvous receive hands over to the engine. */
enum rdv_stop {
    RDV_RTS,     /* the RTS's extra words are still arriving (eng.lean_got of them taken) */
    RDV_CTS,     /* the CTS went in part (eng.lean_pushed of its words) */
    RDV_OTHER,   /* another source's word came before the DATA packet (nothing of it taken) */
    RDV_HEADER,  /* a header eng.lean_hdr came from the sender instead of our DATA packet (eng.lean_got extra words) */
    RDV_PAYLOAD, /* the DATA packet is in part (eng.lean_got words) */
};

/* The engine finishes a lean rendezvous receive (its arguments in eng.lean_args): eng.lean_rx becomes a real request
 * (it was not one yet: the engine sees it only from here on) and the engine carries on from where the lean way
 * stopped. */
__attribute__((noinline, cold)) static int rdv_recv_slow(int stop)
{
    const struct lean_args *a = &eng.lean_args;
    struct nocmsg_request_s *r = &eng.lean_rx;
    int src = a->src;
    lean_request(r, REQ_RECV, HDR_CTX(a->h), src, HDR_TAG(a->h), a->buf, a->cap);
    r->comm = a->comm;
    if (stop == RDV_RTS) {
        /* Post r, which is the receive the RTS header was taken for (nothing else is posted on its context), and let
         * the engine match the two. */
        QUEUE_APPEND(eng.posted_head, eng.posted_tail, r);
        nocmsg__fast.busy[CTX_SLOT(r->ctx)]++;
        rx_resume(src, a->h, eng.lean_extra, (int)eng.lean_got);
        return finish_recv(r, a->status);
    }
    size_t bytes = (size_t)eng.lean_extra[0];
    set_status(r, src, r->tag, bytes);
    if (stop == RDV_CTS) {
        uint64_t cts[3] = {MAKE_HDR(PK_CTS, 0, 0, 0), eng.lean_extra[1], (uint64_t)(uintptr_t)r};
        tx_queue_rest(src, cts, 3, (int)eng.lean_pushed, NULL, 0, 0, NULL);
        eng.awaiting_data++; /* the engine takes the DATA packet (case PK_DATA) */
    } else if (stop == RDV_OTHER) {
        eng.awaiting_data++; /* the engine takes the DATA packet (case PK_DATA) */
    } else if (stop == RDV_HEADER) {
        eng.awaiting_data++; /* rx_resume's PK_DATA counts it off */
        rx_resume(src, eng.lean_hdr, &eng.lean_rreq, (int)eng.lean_got);
    } else if (stop == RDV_PAYLOAD) {
        struct rx *x = rx_of(src);
        x->req = r;
        x->ux = NULL;
        x->dst = a->buf;
        x->dst_bytes = a->cap;
        x->msg_bytes = bytes;
        x->received = eng.lean_got * 8;
        set_phase(x, RX_PAYLOAD);
    }
    return finish_recv(r, a->status);
}

static int rdv_recv_payload(int src, void *buf, size_t bytes);
static inline int rdv_recv_done(int src, size_t bytes);

/* The rest of nocmsg_engine_rdv_recv, once the CTS is out (a function of its own, whose set-up the CTS's flight
 * hides; its other arguments are in eng.lean_args, so that few registers are live while the DATA packet comes). */
__attribute__((noinline)) static int rdv_recv_data(int src, void *buf, size_t cap)
{
    /* Nothing to do until the DATA packet: wait for the next word. */
    size_t bytes = (size_t)eng.lean_extra[0];
    uint64_t rreq = 0;
    if (__builtin_expect(nocmsg_port_next() != src, 0))
        return rdv_recv_slow(RDV_OTHER);
    uint64_t dh = nocmsg_port_pull1_from(src);
    int got = HDR_KIND(dh) == PK_DATA && nocmsg_port_take(src, &rreq);
    if (__builtin_expect(!got || rreq != (uint64_t)(uintptr_t)&eng.lean_rx || bytes > cap, 0)) {
        eng.lean_hdr = dh;
        eng.lean_rreq = rreq;
        eng.lean_got = (size_t)got;
        return rdv_recv_slow(RDV_HEADER);
    }
    /* A misaligned buffer takes a function of its own, which keeps this one free of calls that return here (and so
     * of saving registers while the DATA packet waits). */
    if (__builtin_expect(((uintptr_t)buf & 7) != 0, 0))
        return rdv_recv_payload(src, buf, bytes);
    size_t words = (bytes + 7) / 8, at = nocmsg_port_pull_bytes(src, buf, bytes);
    if (__builtin_expect(at < words, 0)) {
        eng.lean_got = at;
        return rdv_recv_slow(RDV_PAYLOAD);
    }
    return rdv_recv_done(src, bytes);
}

/* The payload of the DATA packet into a misaligned buffer. */
__attribute__((noinline)) static int rdv_recv_payload(int src, void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8, at = nocmsg_port_pull_bytes(src, buf, bytes);
    if (at < words) {
        eng.lean_got = at;
        return rdv_recv_slow(RDV_PAYLOAD);
    }
    return rdv_recv_done(src, bytes);
}

/* The end of a lean rendezvous receive: its status. */
static inline int rdv_recv_done(int src, size_t bytes)
{
    nocmsg_status *status = eng.lean_args.status;
    if (status) {
        const struct comm *c = nocmsg_comm_get(eng.lean_args.comm);
        status->source = c ? c->local_of[src] : src;
        status->tag = HDR_TAG(eng.lean_args.h);
        status->error = NOCMSG_SUCCESS;
        status->count_bytes = bytes;
    }
    return NOCMSG_SUCCESS;
}

/* A receive that took a matching RTS: the CTS names eng.lean_rx, which the engine sees only if rdv_recv_slow makes it
 * a request; on the lean way nothing but the words moves. */
__attribute__((noinline)) int nocmsg_engine_rdv_recv(int src, uint64_t h, void *buf, size_t cap, nocmsg_comm comm,
                                                     nocmsg_status *status)
{
    uint64_t sender_req = 0, bytes64 = 0;
    size_t took = 0;
    if (nocmsg_port_take(src, &bytes64) && ++took && nocmsg_port_take(src, &sender_req))
        took++;
    /* The CTS at once, word by word (on the MPB in one push: one publication). */
    size_t k = 0;
#if defined(NOCMSG_PORT_MPB) || defined(NOCMSG_PORT_UDN)
    uint64_t cts[3] = {MAKE_HDR(PK_CTS, 0, 0, 0), sender_req, (uint64_t)(uintptr_t)&eng.lean_rx};
    if (__builtin_expect(took == 2, 1))
        k = nocmsg_port_push(src, cts, 3);
#else
    if (__builtin_expect(took == 2, 1) && nocmsg_port_push1(src, MAKE_HDR(PK_CTS, 0, 0, 0)) && ++k &&
        nocmsg_port_push1(src, sender_req) && ++k && nocmsg_port_push1(src, (uint64_t)(uintptr_t)&eng.lean_rx))
        k++;
#endif
    struct lean_args *a = &eng.lean_args;
    a->src = src;
    a->h = h;
    a->buf = buf;
    a->cap = cap;
    a->comm = comm;
    a->status = status;
    eng.lean_extra[0] = bytes64;
    eng.lean_extra[1] = sender_req;
    if (__builtin_expect(took < 2, 0)) {
        eng.lean_got = took;
        return rdv_recv_slow(RDV_RTS);
    }
    if (__builtin_expect(k < 3, 0)) {
        eng.lean_pushed = k;
        return rdv_recv_slow(RDV_CTS);
    }
    return rdv_recv_data(src, buf, cap);
}
