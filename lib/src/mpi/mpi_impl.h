/*
 * mpi_impl.h: what the parts of the MPI layer share (not installed).
 *
 * The MPI layer (lib/src/mpi/) is MPI 3.1 on libnocmsg. Communicators are libnocmsg's; the layer adds what MPI has
 * and libnocmsg has not:
 *   env.c          init and finalize, error handlers and error strings, attributes, per-communicator state
 *   types.c        datatypes: the predefined ones, constructors, typemaps, packing
 *   p2p.c          point-to-point and requests (derived datatypes, buffered, persistent, cancel, completion)
 *   coll.c         blocking collectives (derived datatypes, user operations, Exscan, Reduce_scatter_block)
 *   nbc.c          non-blocking collectives: schedules of rounds that progress inside every MPI call
 *   comm.c         groups, communicator constructors, Cartesian topologies
 *   unsupported.c  the rest of MPI 3.1: functions that report they are missing
 *
 * The layer's own messages go on a communicator's private context (ctx + 1, where libnocmsg's collectives run),
 * with tags from MPI_TAG_BASE up, so they never match a program's messages or a collective's.
 */
#ifndef NOCMSG_MPI_IMPL_H
#define NOCMSG_MPI_IMPL_H

#include "../internal.h"
#include "../../include/mpi.h"

#include <stddef.h>

/* ---- env.c ---- */

/* Raises error `code` of function `fn` on communicator `comm` (MPI_COMM_WORLD for calls without one): runs the
 * communicator's error handler and returns the code if that returns (MPI_ERRORS_ARE_FATAL prints
 * "MPI error in <fn>: <message>" and aborts every rank). Returns MPI_SUCCESS at once for MPI_SUCCESS. */
__attribute__((cold)) int mpi_raise(MPI_Comm comm, int code, const char *fn);
/* mpi_raise under the name mpi.h's inline send and receive call it by. */
int nocmsg__mpi_raise(MPI_Comm comm, int code, const char *fn);
/* The usual ending of an MPI function: return the code, through the error handler if it is an error. */
#define MPI_RETURN(comm, code)                                                                                \
    do {                                                                                                        \
        int mpi_code_ = (code);                                                                                 \
        return __builtin_expect(mpi_code_ == MPI_SUCCESS, 1) ? MPI_SUCCESS : mpi_raise((comm), mpi_code_, __func__);\
    } while (0)

/* Whether MPI is between MPI_Init and MPI_Finalize. */
int mpi_up(void);

/* What the MPI layer keeps per communicator besides libnocmsg's struct comm: its `layer`, allocated with it
 * (MPI_Init sets nocmsg_lib.comm_layer_bytes), so it costs nothing until a communicator exists. */
struct mpi_attr;
struct mpi_topo {
    int ndims;
    int *dims, *periods; /* ndims each */
};
struct mpi_comm_state {
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    struct mpi_topo *topo; /* Cartesian topology, or NULL */
    struct mpi_attr *attrs;
    unsigned nbc_seq;      /* non-blocking collectives started on it (every member counts the same) */
    int pending;           /* point-to-point requests started on it and not yet complete */
    int free_pending;      /* MPI_Comm_free was called while some were: freed when the last completes (6.4.3) */
};
/* The state of a live communicator, or NULL when the handle is not one (or libnocmsg was started without MPI_Init,
 * so its communicators have no room for it). */
static inline struct mpi_comm_state *mpi_comm_state(MPI_Comm comm)
{
    struct comm *c = nocmsg_comm_get(comm);
    return c ? c->layer : NULL;
}
/* A communicator made from `parent` by an MPI constructor: inherits its error handler; with copy_attrs (MPI_Comm_dup)
 * its attributes through their copy functions. Names and topologies start empty (MPI_Comm_dup then copies the
 * topology itself). */
int mpi_comm_created(MPI_Comm parent, MPI_Comm comm, int copy_attrs);
/* Before a communicator is freed: runs the attributes' delete functions and drops the topology. */
int mpi_comm_freeing(MPI_Comm comm);
/* A point-to-point request on comm has completed: frees comm if MPI_Comm_free left that to its last request. */
void mpi_comm_unhold(MPI_Comm comm);

/* ---- types.c ---- */

/* Predefined types that libnocmsg reduces as they are: its basic types (the same handles). */
#define MPI_NOCMSG_TYPE(type) ((unsigned)(type)-1u < NOCMSG_BASIC_DATATYPES - 1u)
/* Predefined types that libnocmsg also moves as they are: all its basic types but the padded pairs MPI_DOUBLE_INT,
 * MPI_LONG_INT and MPI_SHORT_INT, whose C structs (libnocmsg's size) are larger than MPI's size (value + int, which
 * is what MPI sends). One test of a bit. */
#define MPI_NOCMSG_WIRE(type) NOCMSG__MPI_WIRE(type)

/* One run of an item's typemap: `count` consecutive elements of predefined type `type` at byte offset `disp`
 * from the item's start. */
struct mpi_run {
    MPI_Aint disp;
    MPI_Datatype type;
    size_t count;
};

struct mpi_type {
    int used;
    int committed;       /* predefined types are always committed */
    int predefined;
    int freed;           /* MPI_Type_free was called; the entry goes when refs drops to 0 */
    int refs;            /* pending operations and derived types that use it */
    size_t size;         /* bytes of data in one item */
    MPI_Aint lb, extent; /* an item's bounds: items of an array start `extent` bytes apart */
    MPI_Aint true_lb, true_extent;
    size_t elements;     /* predefined elements in one item */
    size_t nruns;
    struct mpi_run *runs; /* the typemap of one item, adjacent runs of one type merged */
    int contiguous;      /* count items are one block of count * size bytes at buf + true_lb */
    MPI_Datatype uniform; /* the predefined type of every element, or MPI_DATATYPE_NULL if they differ */
    int combiner;        /* MPI_COMBINER_* */
    const char *name;    /* MPI_Type_get_name's: NULL for none; a predefined type's own, or heap if name_owned */
    int name_owned;
};

/* The datatype behind a handle, or NULL when the handle is neither predefined nor a live derived type. */
const struct mpi_type *mpi_type_get(MPI_Datatype type);
/* Checks a buffer description for a transfer: a known, committed type, count >= 0; gives the type and the bytes of
 * data. MPI_ERR_TYPE / MPI_ERR_COUNT otherwise. */
int mpi_type_bytes(MPI_Datatype type, int count, const struct mpi_type **t, size_t *bytes);
/* Keeps a derived type alive while an operation uses it (no-ops for predefined types). */
void mpi_type_retain(MPI_Datatype type);
void mpi_type_release(MPI_Datatype type);
/* Copies `count` items at buf (laid out as t) into `out` as one block of count * t->size bytes, and back. */
void mpi_pack(const void *buf, size_t count, const struct mpi_type *t, void *out);
void mpi_unpack(const void *in, size_t count, const struct mpi_type *t, void *buf);
/* Unpacks the first `bytes` bytes of a packed stream of items into buf (the end of a short message: a part item is
 * filled up to where the data ends). */
void mpi_unpack_bytes(const void *in, size_t bytes, const struct mpi_type *t, void *buf);
/* Predefined elements in the first `bytes` bytes of packed items of t, or MPI_UNDEFINED if `bytes` ends inside an
 * element. */
MPI_Count mpi_type_elements(const struct mpi_type *t, size_t bytes);
/* What the built-in operation `op` reduces predefined `type` as: a C type of the same layout for the Fortran and C++
 * types (MPI_INTEGER as MPI_INT32_T, MPI_COMPLEX as MPI_C_FLOAT_COMPLEX...), the type itself otherwise (and for the
 * types only coll.c's own code reduces: MPI_INTEGER16, MPI_2REAL, MPI_2DOUBLE_PRECISION). MPI_ERR_OP when MPI 3.1
 * (section 5.9.2) does not define op on the Fortran or C++ type's class (SUM on MPI_LOGICAL, any on MPI_CHARACTER). */
int mpi_type_reduce_as(MPI_Datatype type, MPI_Op op, MPI_Datatype *as);
/* The size of a predefined type (0 if `type` is not predefined). */
size_t mpi_predefined_size(MPI_Datatype type);

/* ---- p2p.c ---- */

/* A contiguous view of a buffer description for libnocmsg, which moves bytes: either the user's memory itself
 * (contiguous types) or a packed copy (others). */
struct mpi_view {
    void *data;              /* what to send or receive into */
    size_t bytes;
    void *packed;            /* malloc'd copy to free, or NULL when data is the user's memory */
};
/* Makes a send view (packing if needed). MPI_ERR_NO_MEM when out of memory. */
int mpi_view_send(const void *buf, size_t count, const struct mpi_type *t, struct mpi_view *v);
/* Makes a receive view; after the data has arrived, mpi_view_finish unpacks `got` bytes into buf and frees. */
int mpi_view_recv(void *buf, size_t count, const struct mpi_type *t, struct mpi_view *v);
void mpi_view_finish(struct mpi_view *v, void *buf, const struct mpi_type *t, size_t got);

/* libnocmsg's status as MPI's. */
static inline void mpi_status_from(MPI_Status *s, const nocmsg_status *n)
{
    if (s) {
        s->MPI_SOURCE = n->source;
        s->MPI_TAG = n->tag;
        s->MPI_ERROR = n->error;
        s->nocmsg_cancelled = 0;
        s->nocmsg_count = n->count_bytes;
    }
}
/* The empty status of a null or inactive request. */
void mpi_status_empty(MPI_Status *s);

/* Requests. A non-blocking collective is a request of kind MREQ_NBC whose schedule nbc.c advances. */
struct mpi_nbc;
enum mpi_req_kind { MREQ_SEND = 1, MREQ_RECV, MREQ_BSEND, MREQ_NBC };
struct nocmsg_mpi_request {
    int kind;
    int persistent;
    int active;              /* started and not yet completed by a wait or test */
    int complete;            /* finished: status holds the outcome */
    int freed;               /* MPI_Request_free on an active request: free when it finishes */
    MPI_Comm comm;
    MPI_Status status;
    /* point-to-point */
    int mode;                /* send mode: SEND_STANDARD / SEND_SYNC (engine.h) or buffered */
    const void *buf;
    int count, peer, tag;
    MPI_Datatype type;
    struct mpi_view view;
    nocmsg_request inner;
    /* cancellation of a send (MPI_Cancel): what names its message to the receiver (nocmsg__isend_id; 0 when there is
     * nothing to ask), and while the receiver's answer is on its way cancel_asked is set and cancel_answer -1 */
    uint64_t cancel_key;
    int cancel_asked;
    volatile int cancel_answer;
    /* a buffered send started by MPI_Ibsend or MPI_Start: the tracked request that sends its copy (bsent, NULL once
     * that has finished), and the way back (owner) */
    struct nocmsg_mpi_request *bsent, *owner;
    int holds_comm;          /* counted in its communicator's `pending` */
    /* non-blocking collective */
    struct mpi_nbc *nbc;
    struct nocmsg_mpi_request *next_nbc; /* list of active non-blocking collectives */
};
/* A new active non-blocking collective request on comm running `nbc` (freed with it). */
int mpi_request_nbc(MPI_Comm comm, struct mpi_nbc *nbc, MPI_Request *request);
/* Advances every active non-blocking collective (called while ranks wait, so collectives progress in any MPI call). */
void mpi_progress_nbc(void);
/* Whether any request is tracked (mpi_progress_nbc has something to advance). */
int mpi_nbc_pending(void);

/* ---- coll.c ---- */

/* Applies a reduction operation: inout[i] = in[i] op inout[i] for `count` items of `type` (packed, i.e. contiguous
 * items of t->size bytes when type is derived). MPI_ERR_OP if op is not defined on the type. */
int mpi_reduce_apply(MPI_Op op, MPI_Datatype type, const void *in, void *inout, size_t count);
/* Whether op is valid (built-in or a live user operation) and commutative. */
int mpi_op_check(MPI_Op op, int *commutative);
/* Keeps a user operation alive while a pending operation uses it, as mpi_type_retain does types (MPI_Op_free then
 * only marks it; no-ops for built-in operations). */
void mpi_op_retain(MPI_Op op);
void mpi_op_release(MPI_Op op);

/* ---- nbc.c ---- */

/* Advances a schedule; returns 1 when it has finished (its error code in *err), 0 otherwise. Never blocks. */
int mpi_nbc_progress(struct mpi_nbc *nbc, int *err);
void mpi_nbc_free(struct mpi_nbc *nbc);

/* Tags of the MPI layer's messages on the private context (above the collectives' tags in coll/coll.h). */
enum {
    MPI_TAG_EXSCAN = 64,
    MPI_TAG_REDUCE,   /* reductions the layer does itself (user operations on derived types) */
    MPI_TAG_BCAST,
    MPI_TAG_NBC_BASE = 0x10000, /* + (sequence number mod 2^20) for each non-blocking collective */
};

#endif /* NOCMSG_MPI_IMPL_H */
