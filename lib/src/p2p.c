/*
 * p2p.c: the point-to-point API: argument checks, requests, and waiting on the progress engine.
 */
#include "engine.h"
#include "fc.h"
#include "wait.h"

#include <stdlib.h>
#include <string.h>

static inline int valid_tag(int tag, int wildcard_ok)
{
    return (tag >= 0 && tag <= NOCMSG_TAG_UB) || (wildcard_ok && tag == NOCMSG_ANY_TAG);
}

static inline int valid_rank(const struct comm *c, int rank, int wildcard_ok)
{
    return (rank >= 0 && rank < c->size) || rank == NOCMSG_PROC_NULL || (wildcard_ok && rank == NOCMSG_ANY_SOURCE);
}

static void empty_status(nocmsg_status *status, int source)
{
    if (status) {
        status->source = source;
        status->tag = NOCMSG_ANY_TAG;
        status->error = NOCMSG_SUCCESS;
        status->count_bytes = 0;
    }
}

/* Fills in a send or receive request after checking its arguments (every field: requests are not zeroed, which
 * matters on cores where each byte costs a store). */
static inline int prepare(struct nocmsg_request_s *r, int kind, const void *buf, int count, nocmsg_datatype type, int peer,
                   int tag, nocmsg_comm comm)
{
#ifdef NOCMSG_PORT_UDN
    r->fc_seq = 0;
#endif
    CHECK_INIT();
    struct comm *c = nocmsg_comm_get(comm);
    if (!c)
        return NOCMSG_ERR_COMM;
    size_t bytes;
    int err = nocmsg_message_bytes(buf, count, type, &bytes);
    if (err != NOCMSG_SUCCESS)
        return err;
    if (!valid_rank(c, peer, kind == REQ_RECV))
        return NOCMSG_ERR_RANK;
    if (!valid_tag(tag, kind == REQ_RECV))
        return NOCMSG_ERR_TAG;
    r->kind = kind;
    r->done = 0;
    r->error = NOCMSG_SUCCESS;
    r->user_freed = 0;
    r->msg_bytes = 0;
    r->next = NULL;
    r->status.error = NOCMSG_SUCCESS;
    r->status.count_bytes = 0;
    r->comm = comm;
    r->ctx = c->ctx;
    r->peer = peer >= 0 ? c->world_of[peer] : peer;
    r->tag = tag;
    r->buf = (void *)buf;
    r->bytes = bytes;
    r->status.source = NOCMSG_ANY_SOURCE;
    r->status.tag = NOCMSG_ANY_TAG;
    return NOCMSG_SUCCESS;
}

static int start(struct nocmsg_request_s *r, int mode)
{
    if (r->peer == NOCMSG_PROC_NULL) {
        empty_status(&r->status, NOCMSG_PROC_NULL);
        r->done = 1;
        return NOCMSG_SUCCESS;
    }
    if (r->kind == REQ_SEND)
        return nocmsg_engine_send(r, mode);
    nocmsg_engine_recv(r);
    return NOCMSG_SUCCESS;
}

__attribute__((noinline, cold)) static int blocking(int kind, int mode, const void *buf, int count, nocmsg_datatype type, int peer, int tag,
                    nocmsg_comm comm, nocmsg_status *status)
{
    struct nocmsg_request_s r;
    int err = prepare(&r, kind, buf, count, type, peer, tag, comm);
#ifdef NOCMSG_PORT_UDN
    if (nocmsg__fc_on) {
        if (err != NOCMSG_SUCCESS)
            nocmsg__site = NULL; /* the call is over: the next one has a site of its own */
        else if (kind == REQ_SEND)
            mode = nocmsg_fc_send(&r, mode, 1);
        else
            nocmsg_fc_recv(&r, 1);
    }
#endif
    if (err == NOCMSG_SUCCESS)
        err = start(&r, mode);
    if (err != NOCMSG_SUCCESS)
        return err;
    /* Named here: the public function that called this may have left the stack (a tail call). */
    static const char *const call[2][4] = {{"nocmsg_send", "nocmsg_ssend", "nocmsg_xsend", "nocmsg_xsend"},
                                           {"nocmsg_recv", "nocmsg_recv", "nocmsg_recv", "nocmsg_recv"}};
    WAIT_UNTIL(r.done, r.peer, call[kind == REQ_RECV][mode]);
    if (status)
        *status = r.status;
    return r.error;
}

/* True when the arguments are plainly valid (the general path sorts out everything else, errors included).
 * Communicators exist only between init and finalize, so a live one also means the library is up. */
#define PLAIN_ARGS(c, buf, count, type, peer, tag)                                                              \
    ((c) && (unsigned)(type)-1u < NOCMSG_BASIC_DATATYPES - 1u && (count) >= 0 && ((buf) || !(count)) &&         \
     (unsigned)(peer) < (unsigned)(c)->size && (unsigned)(tag) <= NOCMSG_TAG_UB)

/* The rest of a blocking send's eager message after the fast path's push (`sent` payload words out). On the UDN,
 * whose output queue holds a few words, the push usually stops for credits a few words in: stream the rest while no
 * word arrives (what the engine's wait would do, with nothing else queued to send, at a fraction of the cost), and
 * leave the engine only what a word's arrival interrupts. */
static int send_rest(int to, const void *buf, size_t bytes, size_t sent)
{
#ifdef NOCMSG_PORT_UDN
    /* (Not in the interrupt-driven mode, whose engine sleeps in wfi while a packet waits for its ACK.) */
    if (!nocmsg__udn.irq_mode) {
        sent = nocmsg_port_stream_bytes(to, buf, bytes, sent);
        if (sent == (bytes + 7) / 8)
            return NOCMSG_SUCCESS;
    }
#endif
    return nocmsg_engine_send_rest(to, buf, bytes, sent);
}

/* The eager fast path of a misaligned buffer, out of line so that the aligned one needs no stack frame. */
__attribute__((noinline)) static int send_skewed(const void *buf, int count, nocmsg_datatype type, int dest, int tag,
                                                 nocmsg_comm comm, int to, uint64_t header)
{
    size_t bytes = HDR_LEN(header), words = (bytes + 7) / 8;
    size_t k = nocmsg_port_push_message(to, header, buf, bytes);
    if (k == words + 1)
        return NOCMSG_SUCCESS;
    if (k > 0)
        return send_rest(to, buf, bytes, k - 1);
    return blocking(REQ_SEND, SEND_STANDARD, buf, count, type, dest, tag, comm, NULL);
}

int nocmsg_send(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm)
{
    NOCMSG_FC_SITE();
    /* Fast path: with nothing queued, a message up to the eager limit goes straight into the port (any size and
     * alignment), a larger one through the lean rendezvous. Every call in here is in tail position, so the common
     * case needs no stack frame. */
    struct comm *c = nocmsg_comm_get(comm);
    if (__builtin_expect(PLAIN_ARGS(c, buf, count, type, dest, tag) && nocmsg__fast.send_ranks, 1)) {
        size_t bytes = (size_t)count << nocmsg__type_shifts[type];
        int to = c->world_of[dest];
        if (__builtin_expect(bytes <= nocmsg_lib.eager_limit, 1)) {
            uint64_t header = MAKE_HDR(PK_EAGER, c->ctx, tag, bytes);
            if (__builtin_expect(((uintptr_t)buf & 7) != 0, 0))
                return send_skewed(buf, count, type, dest, tag, comm, to, header);
            size_t words = (bytes + 7) / 8;
            size_t k = nocmsg_port_push_message(to, header, buf, bytes);
            if (__builtin_expect(k == words + 1, 1))
                return NOCMSG_SUCCESS;
            if (k > 0)
                return send_rest(to, buf, bytes, k - 1);
        } else if (nocmsg__fast.recv_idle) {
            size_t k = nocmsg_engine_rts_push(to, c->ctx, tag, bytes);
            return nocmsg_engine_rdv_send(to, c->ctx, tag, buf, bytes, k);
        }
    }
    return blocking(REQ_SEND, SEND_STANDARD, buf, count, type, dest, tag, comm, NULL);
}

int nocmsg_ssend(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm)
{
    NOCMSG_FC_SITE();
    return blocking(REQ_SEND, SEND_SYNC, buf, count, type, dest, tag, comm, NULL);
}

/* The fast receive took a header it cannot handle: the RTS of a message for this receive goes the lean rendezvous;
 * anything else to the engine, and then the general path runs. */
__attribute__((noinline, cold)) int nocmsg__recv_handoff(int src, uint64_t h, void *buf, int count,
                                                        nocmsg_datatype type, int source, int tag, nocmsg_comm comm,
                                                        nocmsg_status *status)
{
    struct comm *c = nocmsg_comm_get(comm);
    int mine = (HDR_KIND(h) == PK_RTS || HDR_KIND(h) == PK_EAGER_ID) &&
               PLAIN_ARGS(c, buf, count, type, source == NOCMSG_ANY_SOURCE ? 0 : source, tag == NOCMSG_ANY_TAG ? 0 : tag) &&
               HDR_CTX(h) == c->ctx && (tag == NOCMSG_ANY_TAG || HDR_TAG(h) == tag) &&
               (source == NOCMSG_ANY_SOURCE || src == c->world_of[source]);
    if (mine && HDR_KIND(h) == PK_RTS)
        return nocmsg_engine_rdv_recv(src, h, buf, (size_t)count << nocmsg__type_shifts[type], comm, status);
    if (mine) {
        /* The eager message of a non-blocking (cancellable) send: past its name, it is an EAGER packet, and goes
         * into the buffer as the fast path would take it. */
        size_t cap = (size_t)count << nocmsg__type_shifts[type];
        uint64_t name;
        if (HDR_LEN(h) <= cap && nocmsg_port_take(src, &name)) {
            if (HDR_LEN(h) > 0)
                return nocmsg_engine_recv_rest(src, buf, cap, h, 0, c, status);
            if (status) {
                status->source = c->local_of[src];
                status->tag = HDR_TAG(h);
                status->error = NOCMSG_SUCCESS;
                status->count_bytes = 0;
            }
            return NOCMSG_SUCCESS;
        }
    }
    nocmsg_engine_rx_handoff(src, h);
    return blocking(REQ_RECV, 0, buf, count, type, source, tag, comm, status);
}

/* The slow ends of the inline fast paths (nocmsg_inline.h). */
#ifdef NOCMSG_PORT_UDN
/* (On the UDN, the inline send of anything over a word or two ends here: the output queue holds a few words.) */
__attribute__((noinline)) int nocmsg__send_rest(int dest, const void *buf, size_t bytes, size_t words_sent)
{
    return send_rest(dest, buf, bytes, words_sent);
}
#else
__attribute__((noinline, cold)) int nocmsg__send_rest(int dest, const void *buf, size_t bytes, size_t words_sent)
{
    return nocmsg_engine_send_rest(dest, buf, bytes, words_sent);
}
#endif

__attribute__((noinline, cold)) int nocmsg__recv_rest(int src, void *buf, size_t cap, uint64_t hdr, size_t words_got,
                                                     nocmsg_comm comm, nocmsg_status *status)
{
    return nocmsg_engine_recv_rest(src, buf, cap, hdr, words_got, nocmsg_comm_get(comm), status);
}

__attribute__((noinline)) int nocmsg__send_rdv(const void *buf, int count, nocmsg_datatype type, int dest, int tag,
                                               size_t bytes)
{
    if (__builtin_expect(nocmsg__fast.recv_idle != 0, 1)) {
        size_t k = nocmsg_engine_rts_push(dest, 0, tag, bytes);
        return nocmsg_engine_rdv_send(dest, 0, tag, buf, bytes, k);
    }
    return blocking(REQ_SEND, SEND_STANDARD, buf, count, type, dest, tag, NOCMSG_COMM_WORLD, NULL);
}

__attribute__((noinline)) int nocmsg__recv_rdv(int src, uint64_t hdr, void *buf, size_t cap, nocmsg_comm comm,
                                               nocmsg_status *status)
{
    return nocmsg_engine_rdv_recv(src, hdr, buf, cap, comm, status);
}

/* The inline fast paths build EAGER headers themselves. */
_Static_assert(NOCMSG__EAGER_HDR(0x7fffff, 0xabcdef) == MAKE_HDR(PK_EAGER, 0, 0x7fffff, 0xabcdef),
               "nocmsg.h and internal.h disagree on the header format");

/* The end of the receive fast path for a misaligned buffer (out of line, as send_skewed), and on UDN chips of the
 * inline receive for a payload in later packets: the payload through the port's pull, the engine taking the rest of
 * what has not come. */
__attribute__((noinline)) static int recv_skewed(int s, uint64_t h, void *buf, size_t cap, const struct comm *c,
                                                 int source, nocmsg_status *status)
{
    size_t len = HDR_LEN(h), words = (len + 7) / 8, k = nocmsg_port_pull_bytes(s, buf, len);
    if (k < words)
        return nocmsg_engine_recv_rest(s, buf, cap, h, k, c, status);
    if (status) {
        status->source = source == NOCMSG_ANY_SOURCE ? c->local_of[s] : source;
        status->tag = HDR_TAG(h);
        status->error = NOCMSG_SUCCESS;
        status->count_bytes = len;
    }
    return NOCMSG_SUCCESS;
}

#ifdef NOCMSG_PORT_UDN
__attribute__((noinline)) int nocmsg__udn_recv_pull(int src, uint64_t hdr, void *buf, size_t cap, nocmsg_comm comm,
                                                    nocmsg_status *status)
{
    /* (The status names the source by its rank in comm, whether or not the receive named it.) */
    return recv_skewed(src, hdr, buf, cap, nocmsg_comm_get(comm), NOCMSG_ANY_SOURCE, status);
}
#endif

int nocmsg_recv(void *buf, int count, nocmsg_datatype type, int source, int tag, nocmsg_comm comm,
                nocmsg_status *status)
{
    NOCMSG_FC_SITE();
    /* Fast path: with nothing posted or unexpected on the communicator and the engine idle, match the next header
     * straight from the port and pull the payload into the buffer. Everything that does not depend on the message
     * is worked out before waiting for it, so what the message's arrival sets off is short. */
    struct comm *c = nocmsg_comm_get(comm);
    int any_source = source == NOCMSG_ANY_SOURCE, any_tag = tag == NOCMSG_ANY_TAG;
    if (__builtin_expect(PLAIN_ARGS(c, buf, count, type, any_source ? 0 : source, any_tag ? 0 : tag) &&
                             nocmsg_engine_lean_ok(c->ctx),
                         1)) {
        size_t cap = (size_t)count << nocmsg__type_shifts[type];
        int from = any_source ? -1 : c->world_of[source];
        /* The header bits that must match: kind and context, and the tag unless any will do. */
        uint64_t want = MAKE_HDR(PK_EAGER, c->ctx, any_tag ? 0 : tag, 0);
        uint64_t mask = any_tag ? 0xffff : ((uint64_t)1 << 40) - 1;
        int s;
        uint64_t h;
#ifdef NOCMSG_PORT_UDN
        /* The UDN port takes a matching eager message whole in one call once its header is there, and waits for it
         * when asked (the wait record, which the port does not know, is set here around that call). */
        int got = nocmsg__udn.irq_mode ? 0 : nocmsg_port_udn_recv_eager(from, want, mask, buf, cap, &h, &s, 0);
        if (got == 0) {
            if (!nocmsg__udn.irq_mode) {
                /* Nothing there yet: marked blocked, wait in the port, which takes the message as soon as its
                 * header lands. */
                nocmsg_wait_enter_plain(from);
                got = nocmsg_port_udn_recv_eager(from, want, mask, buf, cap, &h, &s, 1);
                nocmsg_wait_leave_plain();
            } else {
                s = nocmsg_wait_next_local(source, comm, c);
                h = nocmsg_port_pull1_from(s);
            }
        }
        if (__builtin_expect(got > 0, 1)) {
            if (status) {
                status->source = any_source ? c->local_of[s] : source;
                status->tag = HDR_TAG(h);
                status->error = NOCMSG_SUCCESS;
                status->count_bytes = HDR_LEN(h);
            }
            return NOCMSG_SUCCESS;
        }
#else
        s = nocmsg_wait_next_local(source, comm, c);
        h = nocmsg_port_pull1_from(s);
#endif
        uint64_t x = (h ^ want) & mask;
        size_t len = HDR_LEN(h);
        if (__builtin_expect(x == 0 && (any_source || s == from) && len <= cap, 1)) {
            if (__builtin_expect(((uintptr_t)buf & 7) != 0, 0))
                return recv_skewed(s, h, buf, cap, c, source, status);
            /* The payload follows the header within a few cycles: wait for it here rather than in the engine. */
            size_t words = (len + 7) / 8, k = nocmsg_port_pull_bytes(s, buf, len);
            if (__builtin_expect(k < words, 0))
                return nocmsg_engine_recv_rest(s, buf, cap, h, k, c, status);
            if (status) {
                status->source = any_source ? c->local_of[s] : source;
                status->tag = HDR_TAG(h);
                status->error = NOCMSG_SUCCESS;
                status->count_bytes = len;
            }
            return NOCMSG_SUCCESS;
        }
        if (x == (PK_EAGER ^ PK_RTS) && (any_source || s == from))
            return nocmsg_engine_rdv_recv(s, h, buf, cap, comm, status);
        return nocmsg__recv_handoff(s, h, buf, count, type, source, tag, comm, status);
    }
    return blocking(REQ_RECV, 0, buf, count, type, source, tag, comm, status);
}

static int nonblocking(int kind, int mode, const void *buf, int count, nocmsg_datatype type, int peer, int tag,
                       nocmsg_comm comm, nocmsg_request *request)
{
    struct nocmsg_request_s tmp;
    int err = request ? prepare(&tmp, kind, buf, count, type, peer, tag, comm) : NOCMSG_ERR_REQUEST;
#ifdef NOCMSG_PORT_UDN
    if (err != NOCMSG_SUCCESS && nocmsg__fc_on)
        nocmsg__site = NULL; /* the call is over: the next one has a site of its own */
#endif
    if (err != NOCMSG_SUCCESS)
        return err;
    struct nocmsg_request_s *r = malloc(sizeof *r);
    if (!r)
        return NOCMSG_ERR_NO_MEM;
    *r = tmp;
#ifdef NOCMSG_PORT_UDN
    if (nocmsg__fc_on) {
        if (kind == REQ_SEND)
            mode = nocmsg_fc_send(r, mode, 0);
        else
            nocmsg_fc_recv(r, 0);
    }
#endif
    if ((err = start(r, mode)) != NOCMSG_SUCCESS) {
#ifdef NOCMSG_PORT_UDN
        if (r->fc_seq)
            nocmsg_fc_completed(r);
#endif
        free(r);
        return err;
    }
    *request = r;
    return NOCMSG_SUCCESS;
}

int nocmsg__isend_id(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm, int mode,
                     uint64_t id, uint64_t *key, nocmsg_request *request)
{
    NOCMSG_FC_SITE();
    struct nocmsg_request_s tmp;
    int err = prepare(&tmp, REQ_SEND, buf, count, type, dest, tag, comm);
    if (err != NOCMSG_SUCCESS) {
        NOCMSG_FC_SITE_END();
        return err;
    }
    struct nocmsg_request_s *r = malloc(sizeof *r);
    if (!r) {
        NOCMSG_FC_SITE_END();
        return NOCMSG_ERR_NO_MEM;
    }
    *r = tmp;
    *key = 0;
#ifdef NOCMSG_PORT_UDN
    if (nocmsg__fc_on)
        mode = nocmsg_fc_send(r, mode, 0);
#endif
    if (r->peer == NOCMSG_PROC_NULL)
        err = start(r, mode);
    else
        *key = nocmsg_engine_send_id(r, mode, id, &err);
    if (err != NOCMSG_SUCCESS) {
#ifdef NOCMSG_PORT_UDN
        if (r->fc_seq)
            nocmsg_fc_completed(r);
#endif
        free(r);
        return err;
    }
    *request = r;
    return NOCMSG_SUCCESS;
}

int nocmsg_isend(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm,
                 nocmsg_request *request)
{
    NOCMSG_FC_SITE();
    return nonblocking(REQ_SEND, SEND_STANDARD, buf, count, type, dest, tag, comm, request);
}

int nocmsg_issend(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm,
                  nocmsg_request *request)
{
    NOCMSG_FC_SITE();
    return nonblocking(REQ_SEND, SEND_SYNC, buf, count, type, dest, tag, comm, request);
}

int nocmsg_irecv(void *buf, int count, nocmsg_datatype type, int source, int tag, nocmsg_comm comm,
                 nocmsg_request *request)
{
    NOCMSG_FC_SITE();
    return nonblocking(REQ_RECV, 0, buf, count, type, source, tag, comm, request);
}

/* Hands out a completed request's status and frees it. */
static int retire(nocmsg_request *request, nocmsg_status *status)
{
    struct nocmsg_request_s *r = *request;
    int err = r->error;
    if (status)
        *status = r->status;
    free(r);
    *request = NOCMSG_REQUEST_NULL;
    return err;
}

int nocmsg_wait(nocmsg_request *request, nocmsg_status *status)
{
    CHECK_INIT();
    if (!request)
        return NOCMSG_ERR_REQUEST;
    if (!*request) {
        empty_status(status, NOCMSG_ANY_SOURCE);
        return NOCMSG_SUCCESS;
    }
    WAIT_UNTIL((*request)->done, (*request)->peer, NULL);
    return retire(request, status);
}

int nocmsg_test(nocmsg_request *request, int *flag, nocmsg_status *status)
{
    CHECK_INIT();
    if (!request || !flag)
        return !request ? NOCMSG_ERR_REQUEST : NOCMSG_ERR_ARG;
    if (!*request) {
        *flag = 1;
        empty_status(status, NOCMSG_ANY_SOURCE);
        return NOCMSG_SUCCESS;
    }
    if (!(*request)->done)
        nocmsg_engine_progress();
    *flag = (*request)->done;
    return *flag ? retire(request, status) : NOCMSG_SUCCESS;
}

static int all_done(int count, nocmsg_request requests[])
{
    for (int i = 0; i < count; i++)
        if (requests[i] && !requests[i]->done)
            return 0;
    return 1;
}

/* The rank the first unfinished request of a set waits for (for the wait record). */
static int first_peer(int count, nocmsg_request requests[])
{
    for (int i = 0; i < count; i++)
        if (requests[i] && !requests[i]->done)
            return requests[i]->peer;
    return NOCMSG_ANY_SOURCE;
}

/* Retires every request of a completed set; NOCMSG_ERR_IN_STATUS if any failed. */
static int retire_all(int count, nocmsg_request requests[], nocmsg_status statuses[])
{
    int failed = 0;
    for (int i = 0; i < count; i++) {
        nocmsg_status *st = statuses ? &statuses[i] : NULL;
        if (!requests[i]) {
            empty_status(st, NOCMSG_ANY_SOURCE);
            continue;
        }
        if (retire(&requests[i], st) != NOCMSG_SUCCESS)
            failed = 1;
    }
    return failed ? NOCMSG_ERR_IN_STATUS : NOCMSG_SUCCESS;
}

int nocmsg_waitall(int count, nocmsg_request requests[], nocmsg_status statuses[])
{
    CHECK_INIT();
    if (count < 0)
        return NOCMSG_ERR_COUNT;
    if (count > 0 && !requests)
        return NOCMSG_ERR_REQUEST;
    WAIT_UNTIL(all_done(count, requests), first_peer(count, requests), NULL);
    return retire_all(count, requests, statuses);
}

int nocmsg_testall(int count, nocmsg_request requests[], int *flag, nocmsg_status statuses[])
{
    CHECK_INIT();
    if (count < 0)
        return NOCMSG_ERR_COUNT;
    if ((count > 0 && !requests) || !flag)
        return !flag ? NOCMSG_ERR_ARG : NOCMSG_ERR_REQUEST;
    if (!all_done(count, requests))
        nocmsg_engine_progress();
    *flag = all_done(count, requests);
    return *flag ? retire_all(count, requests, statuses) : NOCMSG_SUCCESS;
}

int nocmsg_waitany(int count, nocmsg_request requests[], int *index, nocmsg_status *status)
{
    CHECK_INIT();
    if (count < 0)
        return NOCMSG_ERR_COUNT;
    if ((count > 0 && !requests) || !index)
        return !index ? NOCMSG_ERR_ARG : NOCMSG_ERR_REQUEST;
    int entered = 0;
    for (;;) {
        int active = 0;
        for (int i = 0; i < count; i++) {
            if (!requests[i])
                continue;
            active = 1;
            if (requests[i]->done) {
                nocmsg_wait_leave(entered);
                *index = i;
                return retire(&requests[i], status);
            }
        }
        if (!active) {
            nocmsg_wait_leave(entered);
            *index = NOCMSG_UNDEFINED;
            empty_status(status, NOCMSG_ANY_SOURCE);
            return NOCMSG_SUCCESS;
        }
        if (!entered)
            entered = nocmsg_wait_enter(NOCMSG_ANY_SOURCE, NULL);
        nocmsg_engine_block();
    }
}

int nocmsg_request_free(nocmsg_request *request)
{
    CHECK_INIT();
    if (!request || !*request)
        return NOCMSG_ERR_REQUEST;
    if ((*request)->done)
        free(*request);
    else
        (*request)->user_freed = 1;
    *request = NOCMSG_REQUEST_NULL;
    return NOCMSG_SUCCESS;
}

int nocmsg_iprobe(int source, int tag, nocmsg_comm comm, int *flag, nocmsg_status *status)
{
    CHECK_INIT();
    struct comm *c = nocmsg_comm_get(comm);
    if (!c)
        return NOCMSG_ERR_COMM;
    if (!flag)
        return NOCMSG_ERR_ARG;
    if (!valid_rank(c, source, 1))
        return NOCMSG_ERR_RANK;
    if (!valid_tag(tag, 1))
        return NOCMSG_ERR_TAG;
    if (source == NOCMSG_PROC_NULL) {
        *flag = 1;
        empty_status(status, NOCMSG_PROC_NULL);
        return NOCMSG_SUCCESS;
    }
    int world = source >= 0 ? c->world_of[source] : source;
    struct unexpected *u = nocmsg_engine_probe(c->ctx, world, tag);
    if (!u) {
        nocmsg_engine_progress();
        u = nocmsg_engine_probe(c->ctx, world, tag);
    }
    *flag = u != NULL;
    if (u && status) {
        status->source = c->local_of[u->src];
        status->tag = u->tag;
        status->error = NOCMSG_SUCCESS;
        status->count_bytes = u->bytes;
    }
    return NOCMSG_SUCCESS;
}

int nocmsg_probe(int source, int tag, nocmsg_comm comm, nocmsg_status *status)
{
    int entered = 0;
    for (;;) {
        int flag = 0;
        int err = nocmsg_iprobe(source, tag, comm, &flag, status);
        if (err != NOCMSG_SUCCESS || flag) {
            nocmsg_wait_leave(entered);
            return err;
        }
        if (!entered)
            entered = nocmsg_wait_enter(source >= 0 ? nocmsg_comm_get(comm)->world_of[source] : NOCMSG_ANY_SOURCE, NULL);
        nocmsg_engine_block();
    }
}

int nocmsg_get_count(const nocmsg_status *status, nocmsg_datatype type, int *count)
{
    int size;
    if (!status || !count)
        return NOCMSG_ERR_ARG;
    if (nocmsg_type_size(type, &size) != NOCMSG_SUCCESS)
        return NOCMSG_ERR_TYPE;
    *count = status->count_bytes % (size_t)size ? NOCMSG_UNDEFINED : (int)(status->count_bytes / (size_t)size);
    return NOCMSG_SUCCESS;
}

#ifdef NOCMSG_PORT_UDN
/* A sendrecv with one partner that the flow-control plan runs as a pairwise exchange in rank order (fc.h): the
 * receive is posted, then the lower rank writes its message raw and waits for the other's, the higher waits and then
 * writes; the receiving side always drains, so the raw writes cannot deadlock (relaxation C1). Returns whether it
 * ran (then *err is its result). The halves go without the plan's hooks: the plan spoke for the call. */
static int plan_exchange(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, int peer, int sendtag, void *recvbuf,
                         int recvcount, nocmsg_datatype recvtype, int recvtag, nocmsg_comm comm, nocmsg_status *status,
                         int *err)
{
    struct comm *c = nocmsg_comm_get(comm);
    size_t bytes;
    if (!c || peer < 0 || peer >= c->size || peer == c->rank || nocmsg_message_bytes(sendbuf, sendcount, sendtype, &bytes) ||
        !nocmsg_fc_exchange_plan(c->world_of[peer], sendtag, bytes))
        return 0;
    nocmsg__site = NULL;
    nocmsg__fc_on = 0;
    nocmsg_engine_hold(0); /* the general path's hooks are off for the halves */
    nocmsg_request rq;
    *err = nocmsg_irecv(recvbuf, recvcount, recvtype, peer, recvtag, comm, &rq);
    if (*err == NOCMSG_SUCCESS) {
        if (c->rank > peer)
            *err = nocmsg_wait(&rq, status);
        int serr = *err == NOCMSG_SUCCESS ? nocmsg_xsend(sendbuf, sendcount, sendtype, peer, sendtag, comm) : NOCMSG_SUCCESS;
        if (c->rank < peer)
            *err = nocmsg_wait(&rq, status);
        if (*err == NOCMSG_SUCCESS)
            *err = serr;
    }
    nocmsg__fc_on = 1;
    nocmsg_engine_hold(0);
    return 1;
}
#endif

int nocmsg_sendrecv(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, int dest, int sendtag,
                    void *recvbuf, int recvcount, nocmsg_datatype recvtype, int source, int recvtag,
                    nocmsg_comm comm, nocmsg_status *status)
{
    NOCMSG_FC_SITE();
    /* Both halves are checked before either starts: a receive posted for a failed call would take a later
     * message meant for someone else. */
    struct nocmsg_request_s check;
    int err = prepare(&check, REQ_SEND, sendbuf, sendcount, sendtype, dest, sendtag, comm);
    if (err == NOCMSG_SUCCESS)
        err = prepare(&check, REQ_RECV, recvbuf, recvcount, recvtype, source, recvtag, comm);
    if (err != NOCMSG_SUCCESS) {
        NOCMSG_FC_SITE_END();
        return err;
    }
    nocmsg_request reqs[2];
#ifdef NOCMSG_PORT_UDN
    const void *site = nocmsg__site; /* both halves are this call's */
    if (nocmsg__fc_on && source == dest &&
        plan_exchange(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, recvtag, comm, status, &err))
        return err;
    nocmsg__fc_exchange = 1;
#endif
    if ((err = nocmsg_irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &reqs[0])) != NOCMSG_SUCCESS) {
#ifdef NOCMSG_PORT_UDN
        nocmsg__fc_exchange = 0;
#endif
        return err;
    }
#ifdef NOCMSG_PORT_UDN
    nocmsg__site = site;
#endif
    err = nocmsg_isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &reqs[1]);
#ifdef NOCMSG_PORT_UDN
    nocmsg__fc_exchange = 0;
#endif
    if (err != NOCMSG_SUCCESS) {
        /* Only running out of memory gets here; the receive stays posted. */
        nocmsg_request_free(&reqs[0]);
        return err;
    }
    nocmsg_status st[2];
    err = nocmsg_waitall(2, reqs, st);
    if (status)
        *status = st[0];
    if (err == NOCMSG_ERR_IN_STATUS)
        err = st[0].error != NOCMSG_SUCCESS ? st[0].error : st[1].error;
    return err;
}

int nocmsg_sendrecv_replace(void *buf, int count, nocmsg_datatype type, int dest, int sendtag, int source,
                            int recvtag, nocmsg_comm comm, nocmsg_status *status)
{
    NOCMSG_FC_SITE();
    CHECK_INIT();
    size_t bytes;
    int err = nocmsg_message_bytes(buf, count, type, &bytes);
    if (err != NOCMSG_SUCCESS) {
        NOCMSG_FC_SITE_END();
        return err;
    }
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy) {
        NOCMSG_FC_SITE_END();
        return NOCMSG_ERR_NO_MEM;
    }
    if (bytes)
        memcpy(copy, buf, bytes);
    err = nocmsg_sendrecv(copy, count, type, dest, sendtag, buf, count, type, source, recvtag, comm, status);
    free(copy);
    return err;
}

/* ---- NoCMsg's non-flow-controlled transfers ------------------------------------------------------------ */

#ifdef NOCMSG_PORT_UDN
/* nocmsg_xsend through the engine's raw send, out of line so that the fast path needs no stack frame. */
__attribute__((noinline)) static int xsend_general(const void *buf, int count, nocmsg_datatype type, int dest, int tag,
                                                   nocmsg_comm comm)
{
    return blocking(REQ_SEND, SEND_RAW, buf, count, type, dest, tag, comm, NULL);
}
#endif

int nocmsg_xsend(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm)
{
    NOCMSG_FC_SITE();
#ifdef NOCMSG_PORT_UDN
    /* Fast path: the engine's raw send (nocmsg_engine_send) without a request, when nothing is queued to send (so
     * the order of this rank's messages holds), the arguments are plainly valid and the peer is another rank. */
    struct comm *c = nocmsg_comm_get(comm);
    if (__builtin_expect(PLAIN_ARGS(c, buf, count, type, dest, tag) && nocmsg__fast.send_ranks, 1)) {
        size_t bytes = (size_t)count << nocmsg__type_shifts[type];
        int to = c->world_of[dest];
        if (__builtin_expect(bytes < EAGER_MAX && to != nocmsg_lib.rank && nocmsg__udn.open_dest < 0 &&
                                 !nocmsg__udn.irq_mode,
                             1))
            return nocmsg_port_udn_write_raw(to, MAKE_HDR(PK_EAGER, c->ctx, tag, bytes), buf, bytes);
    }
    return xsend_general(buf, count, type, dest, tag, comm);
#else
    return blocking(REQ_SEND, SEND_RAW, buf, count, type, dest, tag, comm, NULL);
#endif
}

int nocmsg_xrecv(void *buf, int count, nocmsg_datatype type, int source, int tag, nocmsg_comm comm,
                 nocmsg_status *status)
{
    /* The receive side of a transfer is an ordinary receive: the difference is all in how the sender sends. */
    return nocmsg_recv(buf, count, type, source, tag, comm, status);
}

int nocmsg_xchg(const void *sendbuf, void *recvbuf, int count, nocmsg_datatype type, int peer, int tag, int sync,
                nocmsg_comm comm, nocmsg_status *status)
{
    NOCMSG_FC_SITE();
    /* Check both halves before starting either: a receive left posted by a failed send would never complete. */
    struct nocmsg_request_s check;
    int err = prepare(&check, REQ_SEND, sendbuf, count, type, peer, tag, comm);
    if (err == NOCMSG_SUCCESS)
        err = prepare(&check, REQ_RECV, recvbuf, count, type, peer, tag, comm);
    if (err != NOCMSG_SUCCESS) {
        NOCMSG_FC_SITE_END();
        return err;
    }
#ifdef NOCMSG_PORT_UDN
    const void *site = nocmsg__site; /* every part is this call's */
#endif
    if (sync && (err = nocmsg_sendrecv(NULL, 0, NOCMSG_BYTE, peer, tag, NULL, 0, NOCMSG_BYTE, peer, tag, comm,
                                       NOCMSG_STATUS_IGNORE)) != NOCMSG_SUCCESS)
        return err;
    nocmsg_request recv_req;
#ifdef NOCMSG_PORT_UDN
    nocmsg__site = site;
#endif
    if ((err = nocmsg_irecv(recvbuf, count, type, peer, tag, comm, &recv_req)) != NOCMSG_SUCCESS)
        return err;
#ifdef NOCMSG_PORT_UDN
    nocmsg__site = site;
    /* The sends are raw (stalling writes that drain nothing meanwhile): two of them at once, each to the other,
     * would hold both paths and deadlock (NoCMsg's Figure 1). Ordered by rank, as NoCMsg's relaxation C1 has it,
     * the lower rank writes while the higher one drains, then the other way round. */
    int me_ = 0;
    nocmsg_comm_rank(comm, &me_);
    if (me_ > peer && (err = nocmsg_wait(&recv_req, status)) != NOCMSG_SUCCESS)
        return err;
    err = nocmsg_xsend(sendbuf, count, type, peer, tag, comm);
    int rerr = me_ > peer ? NOCMSG_SUCCESS : nocmsg_wait(&recv_req, status);
    return err != NOCMSG_SUCCESS ? err : rerr;
#else
    err = nocmsg_xsend(sendbuf, count, type, peer, tag, comm);
    int rerr = nocmsg_wait(&recv_req, status);
    return err != NOCMSG_SUCCESS ? err : rerr;
#endif
}
