/*
 * engine.h: the progress engine's state, and the slow ends of the fast paths of blocking send and receive. Whether
 * a fast path may bypass the engine is nocmsg__fast (nocmsg.h), which the engine updates whenever it
 * changes state.
 */
#ifndef NOCMSG_ENGINE_H
#define NOCMSG_ENGINE_H

#include "internal.h"

#include "../ports/port.h"

/* An outgoing packet: header words, then payload (rounded up to whole words). */
struct txpkt {
    int dest;
    int nhead, head_sent;
    uint64_t head[3];
    const unsigned char *payload;
    size_t bytes, words_sent;
    struct nocmsg_request_s *req; /* completes when the packet is fully pushed (NULL: nothing to complete) */
    struct txpkt *next;
};

enum rx_phase { RX_HEADER, RX_EXTRA, RX_PAYLOAD };

/* Reassembly of the packet currently arriving from one source. */
struct rx {
    int phase;
    uint64_t hdr;
    uint64_t extra[2];
    int extra_need, extra_have;
    unsigned char *dst;  /* where payload bytes go (NULL: discard) */
    size_t dst_bytes;    /* room at dst */
    size_t msg_bytes;    /* payload bytes in the packet */
    size_t received;     /* payload bytes consumed so far (whole words) */
    struct nocmsg_request_s *req;
    struct unexpected *ux;
};

/* Contexts are counted in NOCMSG__CTX_SLOTS slots (a context's slot is its id modulo the count): sharing a slot only
 * ever sends a receive the engine's way. */
#define CTX_SLOT(ctx) ((unsigned)(ctx) & (NOCMSG__CTX_SLOTS - 1))

/* The arguments of a lean rendezvous receive, for where it hands over to the engine. */
struct lean_args {
    int src;
    uint64_t h;
    void *buf;
    size_t cap;
    nocmsg_comm comm;
    nocmsg_status *status;
};

struct engine {
    struct rx **rx; /* per source, made when its first packet arrives (on a large chip most never send to us) */
    struct txpkt *tx_head, *tx_tail;
    struct nocmsg_request_s *posted_head, *posted_tail;
    struct unexpected *ux_head, *ux_tail;
    unsigned *blocked_pass; /* per destination: the tx pass in which pushing to it stalled */
    unsigned pass;
    int midpacket; /* sources whose stream is not at a header */
    int awaiting_data; /* engine receives whose CTS has gone and whose DATA header has not come */
    int up;        /* between nocmsg_init and nocmsg_finalize: the fast paths may run */
    int hold;      /* nocmsg_engine_hold: while non-zero, every receive goes the engine's way */
    /* The engine also keeps nocmsg__fast.recv_idle (nothing to send, nothing partly taken, not held) and
     * nocmsg__fast.busy: per context slot, unexpected messages queued plus receives posted. While a slot is busy, a
     * message that arrives on its context may belong to an earlier receive, or an earlier message to a new one. */
    /* The requests of the lean rendezvous (nocmsg_engine_rdv_send and _recv), and where a receive stands: the RTS's
     * extra words, a header taken instead of the DATA packet's and the word after it, how many were taken or pushed. */
    struct nocmsg_request_s lean_tx, lean_rx;
    uint64_t lean_extra[2], lean_hdr, lean_rreq;
    size_t lean_got, lean_pushed;
    struct lean_args lean_args;
};
extern struct engine nocmsg_eng;

/* Whether a blocking receive on context ctx may take the next header straight from the port (the fast paths): the
 * engine has nothing to do, and nothing queued or posted on ctx could match the message before this receive does.
 * Messages and receives on other contexts do not matter: whatever arrives for them is handed to the engine. */
static inline int nocmsg_engine_lean_ok(int ctx)
{
    return nocmsg__fast.recv_idle != 0 && nocmsg__fast.busy[CTX_SLOT(ctx)] == 0;
}

/* The same for the collectives' private traffic (coll/p2p.c, coll/token.h), and whether their sends may go straight
 * to the port. They are nocmsg__fast's except on UDN chips while the program's point-to-point calls take the general
 * path for the flow-control hooks (profiling or a plan, fc.h): those hooks are for the program's calls, so the
 * collectives keep their lean way (engine.c, settle). */
#ifdef NOCMSG_PORT_UDN
extern unsigned nocmsg__coll_send_ranks, nocmsg__coll_recv_idle;
#define COLL_SEND_RANKS nocmsg__coll_send_ranks
#define COLL_RECV_IDLE nocmsg__coll_recv_idle
#else
#define COLL_SEND_RANKS nocmsg__fast.send_ranks
#define COLL_RECV_IDLE nocmsg__fast.recv_idle
#endif
static inline int nocmsg_engine_coll_lean_ok(int ctx)
{
    return COLL_RECV_IDLE != 0 && nocmsg__fast.busy[CTX_SLOT(ctx)] == 0;
}

/* Keeps every call the engine's way while held (delta +1), or lets the fast paths run again (delta -1 as many times):
 * for callers that must run in nocmsg_engine_idle while the rank waits (the MPI layer's non-blocking collectives). */
void nocmsg_engine_hold(int delta);

/* Slow ends of the fast paths in p2p.c. */
int nocmsg_engine_send_rest(int dest, const void *buf, size_t bytes, size_t sent);
/* nocmsg_engine_send_rest without the wait: r (the caller's, untouched by anyone else until done) completes when the
 * rest is out. For a lean path that must hand the engine a receive of its own before it waits for anything. */
void nocmsg_engine_queue_rest(int dest, const void *buf, size_t bytes, size_t sent, struct nocmsg_request_s *r);
void nocmsg_engine_rx_handoff(int src, uint64_t h);
int nocmsg_engine_recv_rest(int src, void *buf, size_t cap, uint64_t hdr, size_t got, const struct comm *c,
                            nocmsg_status *status);

/* The lean rendezvous of blocking calls (while nocmsg_engine_lean_ok and nothing is queued to send). A send of
 * `bytes` (over the eager limit) to world rank `to` on context ctx: the caller pushes the RTS
 * (nocmsg_engine_rts_push, which says how many of its words went), then this waits at the port for the CTS and
 * streams the DATA packet from the buffer; a receive that took a matching RTS header `h` from world rank src answers
 * with the CTS and pulls the DATA packet into its buffer (comm, source and tag as the caller's nocmsg_recv). Both
 * speak the engine's protocol, so the peer may be on any path, and both hand over to the engine at the first word
 * they do not expect (or a full FIFO while words arrive), which keeps them as deadlock-free as the engine. */
int nocmsg_engine_rdv_send(int to, int ctx, int tag, const void *buf, size_t bytes, size_t rts_pushed);
int nocmsg_engine_rdv_recv(int src, uint64_t h, void *buf, size_t cap, nocmsg_comm comm, nocmsg_status *status);

/* The RTS of a lean rendezvous send, word by word (so that the caller needs no stack frame); returns how many of its
 * three words the port took. */
static inline size_t nocmsg_engine_rts_push(int to, int ctx, int tag, size_t bytes)
{
#ifdef NOCMSG_PORT_MPB
    /* On the MPB every push publishes its words with a write to the receiver's MPB: one push, one publication. */
    uint64_t rts[3] = {MAKE_HDR(PK_RTS, ctx, tag, 0), (uint64_t)bytes, (uint64_t)(uintptr_t)&nocmsg_eng.lean_tx};
    return nocmsg_port_push(to, rts, 3);
#endif
    if (!nocmsg_port_push1(to, MAKE_HDR(PK_RTS, ctx, tag, 0)))
        return 0;
    if (!nocmsg_port_push1(to, (uint64_t)bytes))
        return 1;
    if (!nocmsg_port_push1(to, (uint64_t)(uintptr_t)&nocmsg_eng.lean_tx))
        return 2;
    return 3;
}

#endif /* NOCMSG_ENGINE_H */
