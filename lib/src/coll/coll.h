/*
 * coll.h: what the collective algorithms share (not installed).
 *
 * Every algorithm lives in its own file, lib/src/coll/<operation>/<name>.c, and is one entry in its operation's
 * table (tables.c); the first entry of each table is the naive reference the tests compare the others with.
 * Algorithms work in bytes on the comm's private context (ctx + 1), with arguments already checked and
 * NOCMSG_IN_PLACE already resolved by coll.c, so each file holds only its communication pattern.
 */
#ifndef NOCMSG_COLL_H
#define NOCMSG_COLL_H

#include "../internal.h"

/* Tags on the private context: one per operation, so that collectives never match each other's messages (all
 * ranks issue collectives in the same order, and messages between two ranks with one tag are not overtaken). */
enum coll_tag {
    TAG_BARRIER = 16,
    TAG_BCAST,
    TAG_REDUCE,
    TAG_ALLREDUCE,
    TAG_GATHER,
    TAG_SCATTER,
    TAG_ALLGATHER,
    TAG_ALLTOALL,
    TAG_REDUCE_SCATTER,
    TAG_SCAN,
};

/* Point-to-point on the comm's private context, in comm ranks (p2p.c: straight to the port while the engine is
 * idle, through the engine otherwise). coll_send is a standard send (large messages wait
 * for the receiver's CTS). coll_xsend is NoCMsg's non-flow-controlled transfer when the switch is on
 * (nocmsg_coll_set_xfer): no handshake, so the receiver may have to buffer the whole message. Algorithms use it
 * only where a receiver expects at most a few messages at a time (trees, chains, pairwise exchanges), never for
 * fan-in from every rank, so that buffering stays bounded. */
int coll_send(const void *buf, size_t bytes, int dest, int tag, struct comm *c);
int coll_xsend(const void *buf, size_t bytes, int dest, int tag, struct comm *c);
int coll_recv(void *buf, size_t bytes, int src, int tag, struct comm *c);
/* Sends to dest and receives from src at once (either may be NOCMSG_PROC_NULL), so pairs never deadlock; the send
 * is a transfer when the switch is on (one message per partner at a time). */
int coll_sendrecv(const void *sendbuf, size_t sendbytes, int dest, void *recvbuf, size_t recvbytes, int src, int tag,
                  struct comm *c);
/* Receives `bytes` from `from` (NOCMSG_PROC_NULL: the data is already in buf) and passes them on to the n ranks of
 * `to`, in segments of `segment` bytes: each segment goes on as soon as it has arrived, so that along a tree or a
 * chain the transfers overlap instead of following one another (transfers when the switch is on). */
#ifndef BCAST_SEGMENT
#define BCAST_SEGMENT 256 /* bytes per segment of the pipelined broadcasts (mesh, mesh_center, chain) */
#endif
int coll_forward(void *buf, size_t bytes, int from, const int *to, int n, size_t segment, int tag, struct comm *c);
/* Non-blocking forms, with requests owned by the caller (usually on its stack); coll_waitall waits for n of them
 * and returns the first error. */
int coll_isend(const void *buf, size_t bytes, int dest, int tag, struct comm *c, struct nocmsg_request_s *r);
int coll_xisend(const void *buf, size_t bytes, int dest, int tag, struct comm *c, struct nocmsg_request_s *r);
int coll_irecv(void *buf, size_t bytes, int src, int tag, struct comm *c, struct nocmsg_request_s *r);
int coll_waitall(int n, struct nocmsg_request_s *r);

/* A reduction: the operation applied to `count` elements, inout[i] = in[i] op inout[i] (in from lower ranks). */
struct coll_reduction {
    nocmsg_op op;
    nocmsg_datatype type;
    size_t elem; /* bytes per element */
    int commutative;
};
void coll_apply(const struct coll_reduction *red, const void *in, void *inout, size_t count);
/* Checks that op is defined on type and describes the reduction (ops.c). */
int coll_reduction_of(nocmsg_op op, nocmsg_datatype type, struct coll_reduction *red);

/* This rank's place in the mesh-parallel broadcast tree from some source (comm ranks): its parent (-1 at the
 * source) and up to four children. */
struct coll_tree {
    int parent, nchild, children[4];
};

/* Mesh geometry of a communicator: every rank's tile coordinates (world rank r sits on tile r of the chip, or on
 * the cell r of a near-square virtual mesh natively), the member nearest the centre, and this rank's trees. */
struct coll_mesh {
    int width, height;
    const int *x, *y;        /* per comm rank */
    int center;              /* the comm rank closest to the centre of the mesh the members occupy (ties: lowest) */
    struct coll_tree *trees; /* per source, made on first use (parent -2: not yet) */
    void *family;            /* the SCC broadcast family's tiled trees (bcast/scc.c), made on first use, or NULL */
    void (*family_free)(void *);
};
/* The geometry of c (computed on first use, kept until the communicator is freed). NULL when out of memory. */
const struct coll_mesh *coll_mesh_of(struct comm *c);
void coll_mesh_release(struct comm *c);

/* Algorithm signatures, one per operation (bytes are per rank, or per block where an operation has blocks). */
typedef int barrier_fn(struct comm *c);
typedef int bcast_fn(void *buf, size_t bytes, int root, struct comm *c);
typedef int reduce_fn(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red, int root,
                      struct comm *c);
typedef int allreduce_fn(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red,
                         struct comm *c);
typedef int gather_fn(const void *sendbuf, void *recvbuf, size_t bytes, int root, struct comm *c);
typedef int scatter_fn(const void *sendbuf, void *recvbuf, size_t bytes, int root, struct comm *c);
typedef int allgather_fn(const void *sendbuf, void *recvbuf, size_t bytes, struct comm *c);
typedef int alltoall_fn(const void *sendbuf, void *recvbuf, size_t bytes, struct comm *c);
typedef int reduce_scatter_fn(const void *sendbuf, void *recvbuf, const size_t *counts, const struct coll_reduction *red,
                              struct comm *c);
typedef int scan_fn(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red,
                    struct comm *c);

/* Algorithm requirements, checked before an algorithm is used (the fallback is the operation's reference). */
enum coll_needs {
    NEEDS_COMMUTATIVE = 1, /* reorders operands */
    NEEDS_MPB_AREA = 2,    /* works on the MPBs directly (bcast/scc.h): the area must hold the rank count's counts */
};

struct coll_algorithm {
    const char *name;
    void *fn;   /* one of the *_fn types above, by operation */
    int needs;  /* coll_needs bits */
};

enum coll_op {
    OP_BARRIER,
    OP_BCAST,
    OP_REDUCE,
    OP_ALLREDUCE,
    OP_GATHER,
    OP_SCATTER,
    OP_ALLGATHER,
    OP_ALLTOALL,
    OP_REDUCE_SCATTER,
    OP_SCAN,
    COLL_OPS
};

struct coll_operation {
    const char *name;
    const struct coll_algorithm *algorithms; /* first: the reference */
    int count;
};
extern const struct coll_operation coll_operations[COLL_OPS];

/* Counts the changes of algorithm settings (nocmsg_coll_set), so that a choice remembered from an earlier call
 * can tell whether it still holds. */
extern unsigned coll_generation;

/* The algorithm to run: the setting for op, or the selector's pick for `bytes` on c; never one whose needs the
 * call does not meet. */
const struct coll_algorithm *coll_pick(enum coll_op op, size_t bytes, struct comm *c, int commutative);

/* The algorithms (each defined in its own file). */
barrier_fn barrier_linear, barrier_dissemination, barrier_recursive_doubling, barrier_binomial, barrier_tree_center;
#ifdef NOCMSG_PORT_MPB
barrier_fn barrier_mpb; /* through the MPBs (barrier/mpb.c) */
#endif
#ifdef NOCMSG_PORT_UDN
barrier_fn barrier_udn_tree; /* on the UDN's queue 1 (barrier/udn_tree.c) */
#endif
bcast_fn bcast_linear, bcast_binomial, bcast_mesh, bcast_mesh_center, bcast_scatter_allgather, bcast_chain;
#ifdef NOCMSG_PORT_MPB
/* The SCC broadcast family (bcast/scc.h), on MPB chips only. */
bcast_fn bcast_rcce, bcast_parallel, bcast_optimized_parallel, bcast_tiled, bcast_optimized_tiled, bcast_mpb,
    bcast_offchip, bcast_modmpb, bcast_hybrid;
#endif
reduce_fn reduce_linear, reduce_binomial, reduce_mesh;
#ifdef NOCMSG_PORT_MPB
reduce_fn reduce_mpb; /* through the MPBs (reduce/mpb.c) */
#endif
allreduce_fn allreduce_reduce_bcast, allreduce_recursive_doubling, allreduce_ring, allreduce_rabenseifner;
gather_fn gather_linear, gather_binomial;
scatter_fn scatter_linear, scatter_binomial;
allgather_fn allgather_linear, allgather_ring, allgather_recursive_doubling;
alltoall_fn alltoall_linear, alltoall_pairwise, alltoall_mesh_schedule;

/* An all-to-all's blocks: `bytes` each (alltoall), or by counts and displacements in elements of selem and relem
 * bytes (alltoallv; scounts non-NULL). */
struct coll_blocks {
    const unsigned char *send;
    unsigned char *recv;
    size_t bytes;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    size_t selem, relem;
};
#ifdef NOCMSG_PORT_UDN
/* The all-to-all a flow-control plan releases (rule C3, alltoall/released.c): raw pairwise exchanges in chunks
 * behind ready tokens between an entry check and an exit barrier. Returns COLL_KEEPS_FLOW_CONTROL, having moved
 * nothing, when it may not (the entry check says no, the interrupt-driven mode, over 64 ranks): the caller then runs
 * the all-to-all its usual way, on every rank alike. `operation` names it in reports; queue_words is the size of a
 * UDN receive queue (a chunk fills one). */
#define COLL_KEEPS_FLOW_CONTROL (-1)
int coll_alltoall_released(const char *operation, const struct coll_blocks *b, unsigned queue_words, struct comm *c);
#endif
reduce_scatter_fn reduce_scatter_linear, reduce_scatter_ring;
scan_fn scan_linear, scan_recursive_doubling;

/* The relative ranks [v, v + span) of v's subtree in a binomial tree over n ranks: span is v's lowest set bit (n
 * for v = 0), clipped at n. Shared by the binomial gather and scatter. */
static inline int coll_binomial_span(int v, int n)
{
    int span = 1;
    while (span < n && !(v & span))
        span <<= 1;
    return v + span > n ? n - v : span;
}

/* Shared pieces of algorithms: this rank's place in the mesh-parallel broadcast tree from `source` (mesh.c), used
 * by bcast_mesh, bcast_mesh_center, reduce_mesh and barrier_tree_center; worked out on first use per source and
 * kept with the communicator. NULL when out of memory. */
const struct coll_tree *coll_mesh_tree(struct comm *c, int source);
/* The same tree over a subset of c (the SCC family's tiled broadcasts): members[0..count) are comm ranks, source and
 * rank indices into it; parent (-1 at the source) and children come back as comm ranks. Returns the number of
 * children (at most 4), or -1 when out of memory. Worked out afresh on every call. */
int coll_mesh_subtree(struct comm *c, const int *members, int count, int source, int rank, int *parent,
                      int children[4]);

#endif /* NOCMSG_COLL_H */
