/*
 * nocmsg.h: libnocmsg, an MPI-like message-passing library for network-on-chip many-cores.
 *
 * The same program builds for a simulated chip (bin/nocmsg-cc, ranks are cores talking through the chip's
 * network interface) and natively on Linux (bin/nocmsg-cc-native, ranks are processes started by
 * `nocmsg native -n N prog`, talking through shared memory). Results must not depend on which.
 *
 * Conventions, as in MPI: every call returns NOCMSG_SUCCESS or an error code (nocmsg_error_string explains it);
 * counts are in elements of a datatype; a message is matched by communicator, source and tag, and messages from
 * one source with one tag on one communicator are received in the order they were sent. Standard sends may block
 * until the receiver has posted a matching receive (large messages always do; small ones are buffered at the
 * receiver), so programs must be correct under MPI's rules, and then they never deadlock.
 *
 * Handles: communicators and datatypes are small integers (so a bad one is an error, not a crash); requests are
 * pointers, NOCMSG_REQUEST_NULL when unused. Not thread-safe: call from one thread per rank.
 */
#ifndef NOCMSG_H
#define NOCMSG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes. */
enum {
    NOCMSG_SUCCESS = 0,
    NOCMSG_ERR_BUFFER,      /* null buffer with a non-zero count */
    NOCMSG_ERR_COUNT,       /* negative count */
    NOCMSG_ERR_TYPE,        /* unknown datatype */
    NOCMSG_ERR_TAG,         /* tag outside 0..NOCMSG_TAG_UB (or ANY_TAG where not allowed) */
    NOCMSG_ERR_COMM,        /* unknown or freed communicator */
    NOCMSG_ERR_RANK,        /* rank outside the communicator (or ANY_SOURCE where not allowed) */
    NOCMSG_ERR_TRUNCATE,    /* message longer than the receive buffer */
    NOCMSG_ERR_REQUEST,     /* invalid request handle */
    NOCMSG_ERR_ARG,         /* other invalid argument (null pointer, bad color...) */
    NOCMSG_ERR_NOT_INITIALIZED, /* called before nocmsg_init or after nocmsg_finalize */
    NOCMSG_ERR_NO_MEM,      /* out of memory */
    NOCMSG_ERR_IN_STATUS,   /* see the error field of each status (waitall, testall) */
    NOCMSG_ERR_PENDING,     /* request not yet completed (in the status array of a failed waitall) */
    NOCMSG_ERR_UNSUPPORTED, /* feature not available on this port */
    NOCMSG_ERR_INTERN,      /* internal error or failed system call */
    NOCMSG_ERR_OP,          /* unknown reduction operation, or one not defined on the datatype */
    NOCMSG_ERR_ROOT,        /* root rank outside the communicator */
    NOCMSG_ERR_LASTCODE
};

/* Wildcards and special ranks. */
#define NOCMSG_ANY_SOURCE (-1)
#define NOCMSG_ANY_TAG (-1)
#define NOCMSG_PROC_NULL (-2)
#define NOCMSG_UNDEFINED (-32766)
/* Largest tag (tags travel in 24 bits of the message header). */
#define NOCMSG_TAG_UB 0x7fffff

/* Communicators. */
typedef int nocmsg_comm;
#define NOCMSG_COMM_NULL (-1)
#define NOCMSG_COMM_WORLD 0
#define NOCMSG_COMM_SELF 1

/* Basic datatypes; nocmsg_type_size gives their sizes. */
typedef int nocmsg_datatype;
enum {
    NOCMSG_DATATYPE_NULL = 0,
    NOCMSG_BYTE,
    NOCMSG_CHAR,
    NOCMSG_SIGNED_CHAR,
    NOCMSG_UNSIGNED_CHAR,
    NOCMSG_SHORT,
    NOCMSG_UNSIGNED_SHORT,
    NOCMSG_INT,
    NOCMSG_UNSIGNED,
    NOCMSG_LONG,
    NOCMSG_UNSIGNED_LONG,
    NOCMSG_LONG_LONG,
    NOCMSG_UNSIGNED_LONG_LONG,
    NOCMSG_INT8,
    NOCMSG_UINT8,
    NOCMSG_INT16,
    NOCMSG_UINT16,
    NOCMSG_INT32,
    NOCMSG_UINT32,
    NOCMSG_INT64,
    NOCMSG_UINT64,
    NOCMSG_FLOAT,
    NOCMSG_DOUBLE,
    /* Value-index pairs for NOCMSG_MINLOC and NOCMSG_MAXLOC, laid out as the C structs
     * struct { float v; int i; }, struct { double v; int i; }, struct { long v; int i; }, struct { int v; int i; }
     * and struct { short v; int i; } (padding included in the size). */
    NOCMSG_FLOAT_INT,
    NOCMSG_DOUBLE_INT,
    NOCMSG_LONG_INT,
    NOCMSG_2INT,
    NOCMSG_SHORT_INT,
    NOCMSG_BASIC_DATATYPES /* number of basic types (not a type) */
};

/* The outcome of a receive (or of any completed request). count_bytes is what arrived. */
typedef struct nocmsg_status {
    int source;
    int tag;
    int error;
    size_t count_bytes;
} nocmsg_status;
#define NOCMSG_STATUS_IGNORE ((nocmsg_status *)0)
#define NOCMSG_STATUSES_IGNORE ((nocmsg_status *)0)

typedef struct nocmsg_request_s *nocmsg_request;
#define NOCMSG_REQUEST_NULL ((nocmsg_request)0)

/* Environment. */
int nocmsg_init(int *argc, char ***argv);
int nocmsg_finalize(void);
int nocmsg_initialized(int *flag);
int nocmsg_finalized(int *flag);
/* Stops every rank with exit status `code` (never returns). */
void nocmsg_abort(nocmsg_comm comm, int code);
/* Rank and size in NOCMSG_COMM_WORLD (-1 before init). */
int nocmsg_rank(void);
int nocmsg_size(void);
/* Seconds since an arbitrary point; on the simulator, simulated time. */
double nocmsg_wtime(void);
double nocmsg_wtick(void);
/* Name of the port in use: "pimp" on simulated PIMP chips, "mpb" on simulated MPB chips, "host" natively. */
const char *nocmsg_port_name(void);
/* A static, human-readable explanation of an error code. */
const char *nocmsg_error_string(int code);

/* Communicators. dup and split are collective over `comm`. */
int nocmsg_comm_rank(nocmsg_comm comm, int *rank);
int nocmsg_comm_size(nocmsg_comm comm, int *size);
int nocmsg_comm_dup(nocmsg_comm comm, nocmsg_comm *newcomm);
/* Ranks with the same color form a communicator, ordered by key then old rank; color NOCMSG_UNDEFINED gives
 * NOCMSG_COMM_NULL. */
int nocmsg_comm_split(nocmsg_comm comm, int color, int key, nocmsg_comm *newcomm);
/* Frees a communicator made by dup or split and sets *comm to NOCMSG_COMM_NULL. */
int nocmsg_comm_free(nocmsg_comm *comm);
/* Rank in NOCMSG_COMM_WORLD of rank `rank` of `comm`. */
int nocmsg_comm_world_rank(nocmsg_comm comm, int rank, int *world_rank);

/* Datatypes. */
int nocmsg_type_size(nocmsg_datatype type, int *size);

/* Point-to-point, blocking. */
int nocmsg_send(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm);
/* Synchronous: returns once the receiver has matched the message. */
int nocmsg_ssend(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm);
int nocmsg_recv(void *buf, int count, nocmsg_datatype type, int source, int tag, nocmsg_comm comm,
                nocmsg_status *status);
int nocmsg_sendrecv(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, int dest, int sendtag,
                    void *recvbuf, int recvcount, nocmsg_datatype recvtype, int source, int recvtag,
                    nocmsg_comm comm, nocmsg_status *status);
int nocmsg_sendrecv_replace(void *buf, int count, nocmsg_datatype type, int dest, int sendtag, int source,
                            int recvtag, nocmsg_comm comm, nocmsg_status *status);

/* Point-to-point, non-blocking. Buffers must stay untouched until the request completes. */
int nocmsg_isend(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm,
                 nocmsg_request *request);
int nocmsg_issend(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm,
                  nocmsg_request *request);
int nocmsg_irecv(void *buf, int count, nocmsg_datatype type, int source, int tag, nocmsg_comm comm,
                 nocmsg_request *request);

/* Completion. A completed request is freed and set to NOCMSG_REQUEST_NULL; waiting on NOCMSG_REQUEST_NULL
 * returns at once with an empty status (source NOCMSG_ANY_SOURCE, tag NOCMSG_ANY_TAG, count 0). */
int nocmsg_wait(nocmsg_request *request, nocmsg_status *status);
int nocmsg_waitall(int count, nocmsg_request requests[], nocmsg_status statuses[]);
/* *index is the completed request's position, or NOCMSG_UNDEFINED if every request is null. */
int nocmsg_waitany(int count, nocmsg_request requests[], int *index, nocmsg_status *status);
int nocmsg_test(nocmsg_request *request, int *flag, nocmsg_status *status);
int nocmsg_testall(int count, nocmsg_request requests[], int *flag, nocmsg_status statuses[]);
/* Lets an active request complete on its own; its buffer may be reused only after that (not observable). */
int nocmsg_request_free(nocmsg_request *request);

/* Probing: status describes the first matching message without receiving it. */
int nocmsg_probe(int source, int tag, nocmsg_comm comm, nocmsg_status *status);
int nocmsg_iprobe(int source, int tag, nocmsg_comm comm, int *flag, nocmsg_status *status);
/* Elements of `type` in a status (NOCMSG_UNDEFINED if the byte count is not a multiple of the size). */
int nocmsg_get_count(const nocmsg_status *status, nocmsg_datatype type, int *count);

/* Runs the progress engine once (moves pending messages along without blocking). */
int nocmsg_progress(void);

/* Reduction operations. MINLOC and MAXLOC work on the pair types (ties: the smaller index); the logical ones on
 * integer types and the bitwise ones on integer and byte types; SUM, PROD, MIN and MAX on every number type. */
typedef int nocmsg_op;
enum {
    NOCMSG_OP_NULL = 0,
    NOCMSG_SUM,
    NOCMSG_PROD,
    NOCMSG_MIN,
    NOCMSG_MAX,
    NOCMSG_LAND,
    NOCMSG_LOR,
    NOCMSG_LXOR,
    NOCMSG_BAND,
    NOCMSG_BOR,
    NOCMSG_BXOR,
    NOCMSG_MINLOC,
    NOCMSG_MAXLOC,
    NOCMSG_BUILTIN_OPS /* number of built-in operations (not an operation) */
};
/* A user-defined operation combines *len elements of *type: inout[i] = in[i] op inout[i]. Reductions apply it in
 * rank order (in holds lower ranks' contributions); with commute = 0 no algorithm reorders operands. */
typedef void nocmsg_user_function(void *in, void *inout, int *len, nocmsg_datatype *type);
int nocmsg_op_create(nocmsg_user_function *function, int commute, nocmsg_op *op);
/* Frees a user-defined operation and sets *op to NOCMSG_OP_NULL. */
int nocmsg_op_free(nocmsg_op *op);

/* Collectives: every rank of `comm` calls them in the same order with matching arguments, as in MPI. They use the
 * communicator's private context, so they never match point-to-point messages. NOCMSG_IN_PLACE as the send buffer
 * (at the root only for reduce and gather(v); everywhere for allreduce, allgather(v), reduce_scatter and scan), or as
 * the receive buffer at the root of scatter(v), means the data is already in place. */
#define NOCMSG_IN_PLACE ((void *)-1)
int nocmsg_barrier(nocmsg_comm comm);
int nocmsg_bcast(void *buf, int count, nocmsg_datatype type, int root, nocmsg_comm comm);
int nocmsg_reduce(const void *sendbuf, void *recvbuf, int count, nocmsg_datatype type, nocmsg_op op, int root,
                  nocmsg_comm comm);
int nocmsg_allreduce(const void *sendbuf, void *recvbuf, int count, nocmsg_datatype type, nocmsg_op op,
                     nocmsg_comm comm);
int nocmsg_gather(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf, int recvcount,
                  nocmsg_datatype recvtype, int root, nocmsg_comm comm);
int nocmsg_gatherv(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], nocmsg_datatype recvtype, int root, nocmsg_comm comm);
int nocmsg_scatter(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf, int recvcount,
                   nocmsg_datatype recvtype, int root, nocmsg_comm comm);
int nocmsg_scatterv(const void *sendbuf, const int sendcounts[], const int displs[], nocmsg_datatype sendtype,
                    void *recvbuf, int recvcount, nocmsg_datatype recvtype, int root, nocmsg_comm comm);
int nocmsg_allgather(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf, int recvcount,
                     nocmsg_datatype recvtype, nocmsg_comm comm);
int nocmsg_allgatherv(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], nocmsg_datatype recvtype, nocmsg_comm comm);
int nocmsg_alltoall(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf, int recvcount,
                    nocmsg_datatype recvtype, nocmsg_comm comm);
int nocmsg_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], nocmsg_datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int rdispls[], nocmsg_datatype recvtype,
                     nocmsg_comm comm);
/* Reduces count = sum(recvcounts) elements, then rank i gets recvcounts[i] of them (in rank order). */
int nocmsg_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], nocmsg_datatype type,
                          nocmsg_op op, nocmsg_comm comm);
/* Inclusive prefix reduction: rank i gets the reduction of ranks 0..i. */
int nocmsg_scan(const void *sendbuf, void *recvbuf, int count, nocmsg_datatype type, nocmsg_op op,
                nocmsg_comm comm);

/* Choosing collective algorithms. Operations are named "barrier", "bcast", "reduce", "allreduce", "gather",
 * "scatter", "allgather", "alltoall", "reduce_scatter" and "scan" (the v variants follow their plain operation).
 * By default a selector picks by message size, communicator size and mesh geometry; an environment variable read
 * at init (NOCMSG_BCAST=mesh_center, NOCMSG_BARRIER=dissemination...) or nocmsg_coll_set fixes the algorithm of an
 * operation ("auto" returns to the selector). Every rank must make the same choice. */
int nocmsg_coll_set(const char *operation, const char *algorithm);
/* The algorithms of an operation, in a NULL-terminated list (NULL for an unknown operation). */
const char *const *nocmsg_coll_algorithms(const char *operation);
/* The algorithm `operation` would use on `comm` for `bytes` bytes per rank (the selector's pick, or the setting);
 * NULL for an unknown operation or communicator. */
const char *nocmsg_coll_choice(const char *operation, size_t bytes, nocmsg_comm comm);
/* Whether collectives may use the non-flow-controlled transfers below where that is safe (default 1; environment
 * NOCMSG_COLL_XFER=0 turns it off), so the gain can be measured. Returns the previous setting. */
int nocmsg_coll_set_xfer(int enabled);

/* NoCMsg's non-flow-controlled transfers. A standard send of a large message waits for the receiver to post its
 * receive (RTS/CTS); these skip the handshake and stream the message at once. Precondition: the receiver is
 * already in (or about to enter) the matching nocmsg_xrecv or nocmsg_xchg and has room for the whole message;
 * otherwise the message is buffered in full at the receiver, which costs its memory (not correctness). Matching,
 * ordering and errors are those of send and recv. nocmsg_xchg sends to and receives from `peer` at once (the same
 * count and type both ways); with sync = 1 it first exchanges an empty message with the peer, so that neither side
 * streams to a peer that has not yet entered the exchange. */
int nocmsg_xsend(const void *buf, int count, nocmsg_datatype type, int dest, int tag, nocmsg_comm comm);
int nocmsg_xrecv(void *buf, int count, nocmsg_datatype type, int source, int tag, nocmsg_comm comm,
                 nocmsg_status *status);
int nocmsg_xchg(const void *sendbuf, void *recvbuf, int count, nocmsg_datatype type, int peer, int tag, int sync,
                nocmsg_comm comm, nocmsg_status *status);

/* Internal, not part of the API: whether a blocking send or receive may bypass the progress engine and go straight
 * to the network interface (the fast paths in p2p.c and nocmsg_inline.h). The first three fields are the number of
 * world ranks when it may, and 0 when it may not, so that one unsigned comparison with the peer's rank checks both.
 * A receive on a context may take the next header from the network interface when recv_idle is set and nothing is
 * unexpected or posted on that context (busy, counted per context modulo NOCMSG__CTX_SLOTS; recv_ranks folds that
 * in for NOCMSG_COMM_WORLD's context, 0). */
#define NOCMSG__CTX_SLOTS 64
struct nocmsg_fast_state {
    unsigned send_ranks; /* 0 when packets are queued to send (a new one must go behind them) or the library is down */
    unsigned recv_ranks; /* recv_idle, and nothing unexpected or posted on NOCMSG_COMM_WORLD */
    unsigned recv_idle;  /* 0 also when a packet is partly taken or the engine is held */
    unsigned busy[NOCMSG__CTX_SLOTS]; /* per context slot: unexpected messages plus posted receives */
};
extern struct nocmsg_fast_state nocmsg__fast;
/* Internal: what the inline paths need to know of the communicators with handles below NOCMSG__FAST_COMMS, so that
 * a call whose communicator or datatype is not a compile-time constant takes them too. size is 0 for a handle that
 * is not a live communicator. */
#define NOCMSG__FAST_COMMS 16
struct nocmsg_fast_comm {
    unsigned size;        /* ranks */
    unsigned ctx;         /* context of point-to-point messages */
    uint64_t eager_hdr;   /* the header of an EAGER message on it, tag and length 0 */
    const int *world_of;  /* comm rank -> world rank */
    const int *local_of;  /* world rank -> comm rank */
};
extern struct nocmsg_fast_comm nocmsg__fast_comms[NOCMSG__FAST_COMMS];
/* log2 of the size of each basic datatype (all are powers of two bytes). */
extern const unsigned char nocmsg__type_shifts[NOCMSG_BASIC_DATATYPES];
/* The eager limit of the PIMP port (lib/ports/pimp.h), which nocmsg_inline.h tests at compile time. */
#define NOCMSG__PIMP_EAGER_LIMIT 512
/* The header word of an EAGER message on NOCMSG_COMM_WORLD (lib/src/internal.h describes the format). */
#define NOCMSG__EAGER_HDR(tag, bytes) (1u | ((uint64_t)(uint32_t)(tag) << 16) | ((uint64_t)(bytes) << 40))
#ifdef NOCMSG_PORT_UDN
/* Internal: the UDN port's state (lib/ports/udn.c), visible so that the fast paths of p2p.c and nocmsg_inline_udn.h
 * can test it without a call. The port writes it; the fast paths write only what taking or writing a whole packet
 * changes (the packet counts, and where a packet they began reading stands). */
struct nocmsg_udn_irq;
struct nocmsg_udn_port {
    int me, n;
    int irq_mode; /* NOCMSG_UDN_MODE=interrupt */
    struct nocmsg_udn_irq *irq;
    unsigned max_words; /* payload words of a packet, the source word included (udn.maxlen) */
    /* sending */
    int open_dest;      /* destination of the packet being written, -1 when none is */
    unsigned open_left; /* its words still to write */
    /* receiving */
    int cur_src;       /* source of the packet being taken from queue 0 */
    unsigned cur_left; /* its words not yet read from the queue */
    int ahead_valid;   /* a word of it read ahead while waiting */
    uint64_t ahead;
    /* Queue-0 packets this rank has begun writing and begun reading, in all (nocmsg_port_udn_balance). */
    uint64_t packets_out, packets_in;
};
extern struct nocmsg_udn_port nocmsg__udn;
/* The end of the inline receive when the payload of the matching EAGER message `hdr`, taken from core src, goes on in
 * later packets: the port streams it in, the engine finishes if it must. */
int nocmsg__udn_recv_pull(int src, uint64_t hdr, void *buf, size_t cap, nocmsg_comm comm, nocmsg_status *status);
#endif
/* Where the inline fast paths hand over when they cannot finish on their own. */
int nocmsg__send_rest(int dest, const void *buf, size_t bytes, size_t words_sent);
int nocmsg__recv_rest(int src, void *buf, size_t cap, uint64_t hdr, size_t words_got, nocmsg_comm comm,
                      nocmsg_status *status);
int nocmsg__recv_handoff(int src, uint64_t hdr, void *buf, int count, nocmsg_datatype type, int source, int tag,
                         nocmsg_comm comm, nocmsg_status *status);
/* The lean rendezvous: a send of `bytes` (over the eager limit) on NOCMSG_COMM_WORLD, and a receive on `comm` that
 * took the matching RTS header `hdr` from core src. */
int nocmsg__send_rdv(const void *buf, int count, nocmsg_datatype type, int dest, int tag, size_t bytes);
int nocmsg__recv_rdv(int src, uint64_t hdr, void *buf, size_t cap, nocmsg_comm comm, nocmsg_status *status);

#ifdef __cplusplus
}
#endif

/* On simulated PIMP and UDN chips, blocking send and receive (and on UDN chips NoCMsg's transfers) are inlined
 * (define NOCMSG_NO_INLINE to call the library instead). Builds for MPB chips (NOCMSG_PORT_MPB, which bin/nocmsg-cc
 * defines from the chip) call the library: their port is out of line. */
#if defined(NOCMSG_SIM) && !defined(NOCMSG_PORT_MPB) && !defined(NOCMSG_NO_INLINE)
#include "nocmsg_inline.h"
#endif

#endif /* NOCMSG_H */
