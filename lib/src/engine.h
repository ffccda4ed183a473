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

struct engine {
    struct rx **rx; /* per source, made when its first packet arrives (on a large chip most never send to us) */
    struct txpkt *tx_head, *tx_tail;
    struct nocmsg_request_s *posted_head, *posted_tail;
    struct unexpected *ux_head, *ux_tail;
    unsigned *blocked_pass; /* per destination: the tx pass in which pushing to it stalled */
    unsigned pass;
    int midpacket; /* sources whose stream is not at a header */
    int up;        /* between nocmsg_init and nocmsg_finalize: the fast paths may run */
};
extern struct engine nocmsg_eng;

/* Slow ends of the fast paths in p2p.c. */
int nocmsg_engine_send_rest(int dest, const void *buf, size_t bytes, size_t sent);
void nocmsg_engine_rx_handoff(int src, uint64_t h);
int nocmsg_engine_recv_rest(int src, void *buf, size_t cap, uint64_t hdr, size_t got, const struct comm *c,
                            nocmsg_status *status);

#endif /* NOCMSG_ENGINE_H */
