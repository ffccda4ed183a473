/*
 * internal.h: state shared by the parts of libnocmsg (not installed).
 *
 * Layers: a port (ports/port.h) moves words; the progress engine (engine.c) turns them into messages: it frames
 * outgoing messages as packets, reassembles incoming ones per source, matches them against posted receives by
 * (context, source, tag) and keeps the rest in an unexpected queue; p2p.c is the public API over it; comm.c keeps
 * communicators.
 *
 * Wire format: every packet starts with one header word
 *     bits 0-3 kind | 4-15 context | 16-39 tag | 40-63 payload bytes (eager only)
 * followed by the kind's extra words and, for EAGER and DATA, the payload rounded up to whole words.
 *     EAGER  payload follows                           (messages up to the port's eager limit)
 *     RTS    total bytes, sender's request             (large or synchronous: ready to send?)
 *     CTS    sender's request, receiver's request      (clear to send: a matching receive is posted)
 *     DATA   receiver's request, then the payload
 *     EAGER_ID   the sender's name for the message, then the payload (an eager message that may be cancelled)
 *     CANCEL     the name of a message (EAGER_ID's, or the RTS's sender's request), where the answer goes
 *     CANCEL_ACK where the answer goes; the tag field says whether the message was dropped (1) or had matched (0)
 * Kinds other than EAGER and RTS are never what a fast receive expects, so they all go the engine's way.
 */
#ifndef NOCMSG_INTERNAL_H
#define NOCMSG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* The library defines the functions that nocmsg_inline.h would otherwise wrap. */
#define NOCMSG_NO_INLINE
#include "../include/nocmsg.h"

enum packet_kind { PK_EAGER = 1, PK_RTS = 2, PK_CTS = 3, PK_DATA = 4, PK_EAGER_ID = 5, PK_CANCEL = 6, PK_CANCEL_ACK = 7 };

#define HDR_KIND(h) ((int)((h)&0xf))
#define HDR_CTX(h) ((int)(((h) >> 4) & 0xfff))
#define HDR_TAG(h) ((int)(((h) >> 16) & 0xffffff))
#define HDR_LEN(h) ((size_t)((h) >> 40))
#define MAKE_HDR(kind, ctx, tag, len)                                                                          \
    ((uint64_t)(kind) | ((uint64_t)(ctx) << 4) | ((uint64_t)(uint32_t)(tag) << 16) | ((uint64_t)(len) << 40))
/* Context ids: communicator i uses 2i for user messages and 2i+1 for the library's own. The header's 12 bits of
 * context make MAX_COMMS the limit on live communicators; each takes memory only while it lives. */
#define MAX_COMMS 2048
#define EAGER_MAX ((size_t)1 << 24)

enum req_kind { REQ_SEND = 1, REQ_RECV = 2 };

struct unexpected;
struct token_plan;

struct nocmsg_request_s {
    int kind;
    int done;
    int error;
    int user_freed;    /* nocmsg_request_free on an active request: free on completion */
    int ctx;
    nocmsg_comm comm;
    int peer;          /* world rank (send: destination; recv: source or NOCMSG_ANY_SOURCE) */
    int tag;
    void *buf;
    size_t bytes;      /* send: length; recv: capacity */
    size_t msg_bytes;  /* recv: length of the matched message */
    nocmsg_status status;
    struct nocmsg_request_s *next; /* posted-receive queue */
#ifdef NOCMSG_PORT_UDN
    uint64_t fc_seq; /* a non-blocking send's profile record, while it is under way (fc.c) */
#endif
};

struct unexpected {
    int kind; /* PK_EAGER or PK_RTS */
    int ctx, src, tag;
    size_t bytes;
    uint64_t sender_req;
    unsigned char *data;
    int complete;
    struct nocmsg_request_s *matched;
    struct unexpected *next;
};

struct comm {
    int ctx;        /* user context; ctx + 1 is the library's (the handle is ctx / 2) */
    int size, rank;
    int *world_of;  /* comm rank -> world rank */
    int *local_of;  /* world rank -> comm rank, or -1 */
    struct coll_mesh *mesh; /* tile coordinates of the members, for mesh-aware collectives (coll/mesh.c) */
    unsigned char *tokens;  /* per world rank: barrier tokens that arrived before a barrier asked for them */
    int tokens_pending;     /* their sum */
    struct token_plan *barrier; /* this rank's steps of the last barrier algorithm run (coll/token.h) */
    void *layer; /* nocmsg_lib.comm_layer_bytes of state for the layer above (MPI's), allocated with it, or NULL */
};

struct lib_state {
    int initialized, finalized;
    int rank, size;
    size_t eager_limit;
    /* Communicators by handle: comms[h] is live communicator h, or NULL. The table has comm_slots entries (0
     * outside nocmsg_init .. nocmsg_finalize) and grows by doubling, up to MAX_COMMS, as handles are taken, so a
     * program pays for the communicators it has rather than for every possible one. */
    struct comm **comms;
    unsigned comm_slots;
    /* Bytes each communicator carries for the layer above in struct comm's `layer` (set before nocmsg_init). */
    size_t comm_layer_bytes;
};
extern struct lib_state nocmsg_lib;

/* The layouts of the pair types (nocmsg.h). */
struct nocmsg_float_int { float v; int i; };
struct nocmsg_double_int { double v; int i; };
struct nocmsg_long_int { long v; int i; };
struct nocmsg_2int { int v; int i; };
struct nocmsg_short_int { short v; int i; };

/* env.c */
extern const int nocmsg_type_sizes[NOCMSG_BASIC_DATATYPES];
/* log2 of each size (every basic type is a power of two bytes): a shift is cheaper than a multiply. Declared in
 * nocmsg.h as nocmsg__type_shifts, for the inline paths. */

/* engine.c */
int nocmsg_engine_init(int size);
/* Lets the fast paths run (up = 1, at the end of nocmsg_init) or stops them (up = 0). */
void nocmsg_engine_start(int up);
void nocmsg_engine_finalize(void);
/* Moves messages along; returns non-zero if anything happened. */
int nocmsg_engine_progress(void);
/* Progresses, and if nothing happened waits for the port. */
void nocmsg_engine_block(void);
/* Called by nocmsg_engine_block before it progresses, when set: the MPI layer's non-blocking collectives advance
 * there, so they progress while their rank waits in any other call. */
extern void (*nocmsg_engine_idle)(void);
/* Set with nocmsg_engine_idle: whether it has anything to advance (the MPB collectives' waits then keep the engine
 * moving). */
extern int (*nocmsg_engine_idle_busy)(void);
/* Takes a posted receive that has not matched a message back out of the engine: 1 if it did (the request is then
 * the caller's again), 0 if it has matched and will complete. */
int nocmsg_engine_cancel_recv(struct nocmsg_request_s *r);
/* Send modes: standard (eager up to the port's limit, then the RTS/CTS handshake), synchronous (always the
 * handshake), NoCMsg's non-flow-controlled transfer (always eager, whatever the size, up to EAGER_MAX), and the
 * same written straight into the network where the port can (SEND_RAW, UDN chips: stalling writes that bypass the
 * credit check and the work loop, as NoCMsg's xsend on the TilePro; elsewhere it is SEND_XFER). A raw send can
 * deadlock the network if the receiver is not draining it: nocmsg_xsend and the calls a flow-control plan
 * releases use it, never the collectives. */
enum send_mode { SEND_STANDARD = 0, SEND_SYNC = 1, SEND_XFER = 2, SEND_RAW = 3 };
/* Starts a send; the request completes when the buffer may be reused. */
int nocmsg_engine_send(struct nocmsg_request_s *req, int mode);
/* A send that may be cancelled (nocmsg_engine_cancel_send): an eager message carries `id` (bit 63 set, unique among
 * this rank's sends) as its name; a rendezvous is named by its request, which the RTS carries anyway. *key gets the
 * name (0 for a send to NOCMSG_PROC_NULL, which cannot be cancelled). */
int nocmsg__isend_id(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm, int mode,
                     uint64_t id, uint64_t *key, nocmsg_request *request);
/* Asks world rank dest to drop the message named key if no receive has matched it. Messages already injected
 * cannot be taken back, so the receiver decides: an unmatched message (an eager one in its unexpected queue, or the
 * RTS of a rendezvous whose CTS has not gone) is dropped and never seen by a receive. *answer becomes 1 (dropped)
 * or 0 (it has matched and completes normally) when the receiver's answer arrives, which needs the receiver in any
 * call of the library. Until then *answer must stay valid (the caller sets it to -1). */
int nocmsg_engine_cancel_send(int dest, uint64_t key, volatile int *answer);
/* nocmsg_engine_send of a send nocmsg__isend_id makes; returns its name. */
uint64_t nocmsg_engine_send_id(struct nocmsg_request_s *req, int mode, uint64_t id, int *err);
/* Posts a receive (matching the unexpected queue first). */
void nocmsg_engine_recv(struct nocmsg_request_s *req);
/* First unexpected message matching (ctx, src, tag), or NULL. */
struct unexpected *nocmsg_engine_probe(int ctx, int src, int tag);
/* Completes req, or frees it if the user already let go of it. */
void nocmsg_engine_complete(struct nocmsg_request_s *req, int error);

/* coll/tables.c: reads the NOCMSG_<OPERATION> and NOCMSG_COLL_XFER environment variables. */
void nocmsg_coll_init(void);

/* Returns NOCMSG_ERR_NOT_INITIALIZED from the calling function outside nocmsg_init .. nocmsg_finalize. */
#define CHECK_INIT()                                                                                            \
    do {                                                                                                        \
        if (!nocmsg_lib.initialized || nocmsg_lib.finalized)                                                    \
            return NOCMSG_ERR_NOT_INITIALIZED;                                                                  \
    } while (0)

/* Checks a buffer description and gives its size in bytes (NOCMSG_IN_PLACE counts as a buffer). */
static inline int nocmsg_message_bytes(const void *buf, int count, nocmsg_datatype type, size_t *bytes)
{
    if (count < 0)
        return NOCMSG_ERR_COUNT;
    if (type <= NOCMSG_DATATYPE_NULL || type >= NOCMSG_BASIC_DATATYPES)
        return NOCMSG_ERR_TYPE;
    if (!buf && count > 0)
        return NOCMSG_ERR_BUFFER;
    *bytes = (size_t)count * (size_t)nocmsg_type_sizes[type];
    return NOCMSG_SUCCESS;
}

/* comm.c */
/* The communicator behind a handle, or NULL if the handle is not a live communicator. */
static inline struct comm *nocmsg_comm_get(nocmsg_comm c)
{
    extern struct lib_state nocmsg_lib;
    return (unsigned)c < nocmsg_lib.comm_slots ? nocmsg_lib.comms[c] : NULL;
}
int nocmsg_comm_init(void);
void nocmsg_comm_finalize(void);

#endif /* NOCMSG_INTERNAL_H */
