/*
 * nbc.c: MPI's non-blocking collectives as schedules that progress inside every MPI call.
 *
 * A schedule is a list of rounds. A round posts a set of point-to-point sends and receives on the communicator's
 * private context at once (coll_isend / coll_irecv, with the requests kept in the schedule) and, when all of them
 * have completed, runs its local steps (a reduction, an unpack) in order; the next round starts only then. So a
 * rank that is waiting for its parent in a tree has nothing in flight towards its children yet, and the data it
 * forwards is the data it received. mpi_nbc_progress does what can be done now and returns: it never waits. It
 * runs in every test and wait, and in libnocmsg's blocking calls through the engine's idle hook; while schedules
 * run, a never-matched receive keeps those calls off their lean way to the port, which bypasses the hook.
 *
 * Matching. Each collective takes the next sequence number of its communicator (every member starts collectives
 * in the same order, so they agree) and sends all its messages with tag MPI_TAG_NBC_BASE + (seq mod 2^20): two
 * collectives outstanding at once never take each other's messages. Within one collective, every schedule here
 * has at most one message per ordered pair of ranks, so messages cannot be matched to the wrong receive either.
 *
 * Buffers. The user's memory is used directly where the datatype is contiguous (its data at buf + true_lb);
 * otherwise the data is packed at the start into a buffer of the schedule, and what arrives is unpacked at the
 * end. Reductions work on packed items (mpi_reduce_apply), so non-contiguous reductions pack as well. Local copies
 * (the root's own block of a gather, say) are done when the collective starts: the send buffer holds its data from
 * then on, and the receive buffer's contents are undefined until completion anyway.
 *
 * Algorithms, chosen to be simple and correct for every communicator size: Ibarrier is a dissemination barrier;
 * Ibcast a binomial tree from the root; Ireduce a binomial tree towards the root (for non-commutative operations
 * towards rank 0 in rank order, then a message to the root, so every operand comes in the standard's order);
 * Iallreduce that reduction to rank 0 followed by the binomial broadcast; Igather, Iscatter, Iallgather and
 * Ialltoall one round in which every message is posted at once.
 */
#include "mpi_impl.h"

#include "../coll/coll.h"
#include "../engine.h"

#include <stdlib.h>
#include <string.h>

enum step_kind {
    STEP_SEND,   /* bytes at `in` to `peer` */
    STEP_RECV,   /* bytes from `peer` into `out` */
    STEP_REDUCE, /* out = in op out, `count` packed items of `type` */
    STEP_UNPACK, /* `count` packed items of `type` at `in` to the user's buffer `out` */
};

struct nbc_step {
    int kind;
    int peer;  /* comm rank */
    const void *in;
    void *out;
    size_t bytes;
    size_t count;
    MPI_Datatype type;
    struct nocmsg_request_s req; /* sends and receives; the engine holds on to it until it is done */
};

struct mpi_nbc {
    struct comm c;           /* the communicator as it was when the collective started (see nbc_new) */
    int tag;
    MPI_Op op;
    struct nbc_step *steps;
    int nsteps, cap_steps;
    int *round_first;        /* index of each round's first step; the last round ends at nsteps */
    int nrounds, cap_rounds;
    void **buffers;          /* the schedule's own memory, freed with it */
    int nbuffers, cap_buffers;
    MPI_Datatype types[2];   /* derived types kept alive while the schedule may still use them */
    int failed;              /* out of memory while building */
    /* progress */
    int round;               /* the round under way (nrounds: finished) */
    int posted;              /* its sends and receives before this step index have been posted; -1: not started */
    int running;             /* inside mpi_nbc_progress (a user operation may call MPI and come back) */
    int holding;             /* counted in schedules_running (see hold_engine) */
    int err;
};

/* ---- building a schedule -------------------------------------------------------------------------------------- */

/* `array` (of `size`-byte elements, `used` of `*cap` in use) with room for one more: itself, or a larger copy;
 * NULL when out of memory (s->failed then says so, and the schedule never runs). */
static void *grow(struct mpi_nbc *s, void *array, int *cap, int used, size_t size)
{
    if (used < *cap)
        return array;
    int more = *cap ? 2 * *cap : 8;
    void *bigger = realloc(array, (size_t)more * size);
    if (!bigger) {
        s->failed = 1;
        return NULL;
    }
    *cap = more;
    return bigger;
}

/* Memory owned by the schedule, or NULL when out of memory. */
static void *nbc_buffer(struct mpi_nbc *s, size_t bytes)
{
    void **list = grow(s, s->buffers, &s->cap_buffers, s->nbuffers, sizeof *s->buffers);
    if (!list)
        return NULL;
    s->buffers = list;
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        s->failed = 1;
        return NULL;
    }
    s->buffers[s->nbuffers++] = p;
    return p;
}

/* A new schedule for the next collective on comm (c is its struct comm). It keeps its own copy of what the
 * private point-to-point needs of the communicator (context and rank map), since MPI lets a program free a
 * communicator while collectives on it are still pending. NULL when out of memory. */
static struct mpi_nbc *nbc_new(MPI_Comm comm, const struct comm *c, MPI_Op op)
{
    struct mpi_nbc *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->c.ctx = c->ctx;
    s->c.size = c->size;
    s->c.rank = c->rank;
    s->c.world_of = nbc_buffer(s, (size_t)c->size * sizeof(int));
    if (s->c.world_of)
        memcpy(s->c.world_of, c->world_of, (size_t)c->size * sizeof(int));
    s->tag = MPI_TAG_NBC_BASE + (int)(mpi_comm_state(comm)->nbc_seq++ % (1u << 20));
    s->op = op;
    mpi_op_retain(op);
    s->types[0] = s->types[1] = MPI_DATATYPE_NULL;
    s->posted = -1;
    return s;
}

/* Starts a new round: the steps added from now on belong to it. */
static void nbc_round(struct mpi_nbc *s)
{
    int *first = grow(s, s->round_first, &s->cap_rounds, s->nrounds, sizeof *s->round_first);
    if (first) {
        s->round_first = first;
        s->round_first[s->nrounds++] = s->nsteps;
    }
}

/* Appends a step to the last round (a first round if there is none yet). NULL when out of memory. */
static struct nbc_step *nbc_step(struct mpi_nbc *s, int kind)
{
    if (s->nrounds == 0)
        nbc_round(s);
    struct nbc_step *steps = s->failed ? NULL : grow(s, s->steps, &s->cap_steps, s->nsteps, sizeof *s->steps);
    if (!steps)
        return NULL;
    s->steps = steps;
    struct nbc_step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    st->type = MPI_DATATYPE_NULL;
    return st;
}

static void nbc_send(struct mpi_nbc *s, const void *data, size_t bytes, int peer)
{
    struct nbc_step *st = nbc_step(s, STEP_SEND);
    if (st) {
        st->in = data;
        st->bytes = bytes;
        st->peer = peer;
    }
}

static void nbc_recv(struct mpi_nbc *s, void *data, size_t bytes, int peer)
{
    struct nbc_step *st = nbc_step(s, STEP_RECV);
    if (st) {
        st->out = data;
        st->bytes = bytes;
        st->peer = peer;
    }
}

static void nbc_local(struct mpi_nbc *s, int kind, const void *in, void *out, size_t count, MPI_Datatype type)
{
    struct nbc_step *st = nbc_step(s, kind);
    if (st) {
        st->in = in;
        st->out = out;
        st->count = count;
        st->type = type;
    }
}

/* Keeps a derived type alive until the schedule is freed (it unpacks or reduces with it later). */
static void nbc_keep_type(struct mpi_nbc *s, MPI_Datatype type)
{
    for (int i = 0; i < 2; i++) {
        if (s->types[i] == type)
            return;
        if (s->types[i] == MPI_DATATYPE_NULL) {
            mpi_type_retain(type);
            s->types[i] = type;
            return;
        }
    }
}

/* ---- buffers ------------------------------------------------------------------------------------------------ */

static void *at_offset(const void *buf, MPI_Aint offset)
{
    return (void *)((uintptr_t)buf + (uintptr_t)offset);
}

/* Where `count` items of contiguous type t at buf start. */
static void *data_of(const void *buf, const struct mpi_type *t)
{
    return at_offset(buf, t->true_lb);
}

/* Block i of an array of blocks of `count` items each. */
static void *block_of(const void *buf, int i, size_t count, const struct mpi_type *t)
{
    return at_offset(buf, (MPI_Aint)i * (MPI_Aint)count * t->extent);
}

/* The bytes to send of `count` items at buf: the user's memory if the type is contiguous, else a packed copy. */
static const void *send_data(struct mpi_nbc *s, const void *buf, size_t count, const struct mpi_type *t)
{
    if (t->contiguous)
        return data_of(buf, t);
    void *packed = nbc_buffer(s, count * t->size);
    if (packed)
        mpi_pack(buf, count, t, packed);
    return packed;
}

/* Where to receive `count` items for buf: the user's memory if the type is contiguous, else a buffer of the
 * schedule, which unpack_later copies into buf. */
static void *recv_area(struct mpi_nbc *s, void *buf, size_t count, const struct mpi_type *t)
{
    return t->contiguous ? data_of(buf, t) : nbc_buffer(s, count * t->size);
}

/* Unpacks what arrived in recv_area's buffer once the last round so far has completed. */
static void unpack_later(struct mpi_nbc *s, const void *area, void *buf, size_t count, const struct mpi_type *t,
                         MPI_Datatype type)
{
    if (!t->contiguous) {
        nbc_local(s, STEP_UNPACK, area, buf, count, type);
        nbc_keep_type(s, type);
    }
}

/* recv_area for a receive in the last round so far, with its unpack in the same round. */
static void *recv_data(struct mpi_nbc *s, void *buf, size_t count, const struct mpi_type *t, MPI_Datatype type)
{
    void *area = recv_area(s, buf, count, t);
    unpack_later(s, area, buf, count, t, type);
    return area;
}

/* Copies scount items of st at src to rcount items of rt at dst now (a rank's own block). The two must hold the
 * same number of bytes, as between ranks (MPI_ERR_COUNT otherwise, as in the blocking collectives). */
static int copy_now(const void *src, size_t scount, const struct mpi_type *st, void *dst, size_t rcount,
                    const struct mpi_type *rt)
{
    size_t bytes = scount * st->size;
    if (bytes != rcount * rt->size)
        return MPI_ERR_COUNT;
    if (bytes == 0)
        return MPI_SUCCESS;
    if (st->contiguous && rt->contiguous) {
        memmove(data_of(dst, rt), data_of(src, st), bytes);
    } else if (rt->contiguous) {
        mpi_pack(src, scount, st, data_of(dst, rt));
    } else if (st->contiguous) {
        mpi_unpack(data_of(src, st), rcount, rt, dst);
    } else {
        void *packed = malloc(bytes);
        if (!packed)
            return MPI_ERR_NO_MEM;
        mpi_pack(src, scount, st, packed);
        mpi_unpack(packed, rcount, rt, dst);
        free(packed);
    }
    return MPI_SUCCESS;
}

/* ---- trees ------------------------------------------------------------------------------------------------- */

/* Binomial trees over virtual ranks: virtual rank v is comm rank (v + shift) mod n, and virtual rank 0 is the
 * tree's root. v's parent is v minus its lowest set bit; its children are v + 2^k for the 2^k below that bit. */
static int real_rank(const struct mpi_nbc *s, int v, int shift)
{
    return (v + shift) % s->c.size;
}

/* Rounds of a binomial reduction of `count` items (`bytes` packed) towards virtual rank 0, starting from this
 * rank's operand at `mine`. A node combines its children's results in increasing order, each child's on the right
 * (acc op child): with shift 0 every operation sees operands in rank order. Returns where the result is at virtual
 * rank 0, NULL at the others (which end with the round that sends their partial result to their parent). */
static const void *reduce_tree(struct mpi_nbc *s, const void *mine, size_t bytes, size_t count, MPI_Datatype type,
                               int shift)
{
    int n = s->c.size, v = (s->c.rank - shift + n) % n;
    const void *acc = mine;
    void *tmp[2] = {NULL, NULL};
    int next = 0;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (v & mask) {
            nbc_round(s);
            nbc_send(s, acc, bytes, real_rank(s, v - mask, shift));
            return NULL;
        }
        if (v + mask < n) {
            /* Two buffers in turn: the next child's result arrives in the one that does not hold acc. */
            if (!tmp[next])
                tmp[next] = nbc_buffer(s, bytes);
            nbc_round(s);
            nbc_recv(s, tmp[next], bytes, real_rank(s, v + mask, shift));
            nbc_local(s, STEP_REDUCE, acc, tmp[next], count, type);
            acc = tmp[next];
            next ^= 1;
        }
    }
    return acc;
}

/* Rounds of a binomial broadcast of `bytes` at data from virtual rank 0: receive from the parent, then send to
 * every child at once (the largest subtree first). */
static void bcast_tree(struct mpi_nbc *s, void *data, size_t bytes, int shift)
{
    int n = s->c.size, v = (s->c.rank - shift + n) % n, mask = 1;
    for (; mask < n; mask <<= 1) {
        if (v & mask) {
            nbc_round(s);
            nbc_recv(s, data, bytes, real_rank(s, v - mask, shift));
            break;
        }
    }
    int first = 1;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (v + mask < n) {
            if (first)
                nbc_round(s);
            first = 0;
            nbc_send(s, data, bytes, real_rank(s, v + mask, shift));
        }
    }
}

/* ---- keeping the engine out of its fast paths --------------------------------------------------------------- */

/* libnocmsg's blocking calls take a lean way straight to the port while its engine is idle, and wait there without
 * ever calling the engine's idle hook (nocmsg_engine_idle, through which the MPI layer advances schedules). A
 * schedule between two rounds has nothing posted, so a rank blocked in, say, MPI_Allreduce could sit at the port
 * forever while the next rank waits for the data this rank's schedule was about to forward. So while any schedule
 * runs, the engine is held (nocmsg_engine_hold): blocking calls then wait through nocmsg_engine_block, which runs
 * the hook. */
static int schedules_running;

static void hold_engine(struct mpi_nbc *s)
{
    if (s->holding)
        return;
    s->holding = 1;
    if (schedules_running++ == 0)
        nocmsg_engine_hold(1);
}

static void release_engine(struct mpi_nbc *s)
{
    if (!s->holding)
        return;
    s->holding = 0;
    if (--schedules_running == 0)
        nocmsg_engine_hold(-1);
}

/* ---- running a schedule ----------------------------------------------------------------------------------- */

static int round_end(const struct mpi_nbc *s, int round)
{
    return round + 1 < s->nrounds ? s->round_first[round + 1] : s->nsteps;
}

static int is_transfer(const struct nbc_step *st)
{
    return st->kind == STEP_SEND || st->kind == STEP_RECV;
}

/* Whether every send and receive the current round has posted is done. */
static int round_done(const struct mpi_nbc *s)
{
    for (int i = s->round_first[s->round]; i < s->posted; i++)
        if (is_transfer(&s->steps[i]) && !s->steps[i].req.done)
            return 0;
    return 1;
}

/* Posts the current round's sends and receives. After a failure nothing more is posted; the round still waits
 * for what was (the engine holds pointers to those requests). */
static void round_start(struct mpi_nbc *s)
{
    int end = round_end(s, s->round);
    for (s->posted = s->round_first[s->round]; s->posted < end; s->posted++) {
        struct nbc_step *st = &s->steps[s->posted];
        int err = MPI_SUCCESS;
        if (st->kind == STEP_SEND)
            err = coll_isend(st->in, st->bytes, st->peer, s->tag, &s->c, &st->req);
        else if (st->kind == STEP_RECV)
            err = coll_irecv(st->out, st->bytes, st->peer, s->tag, &s->c, &st->req);
        if (err != MPI_SUCCESS) {
            s->err = err;
            return;
        }
    }
}

/* The current round's local steps, once its transfers are done. */
static void round_finish(struct mpi_nbc *s)
{
    int first = s->round_first[s->round], end = round_end(s, s->round);
    for (int i = first; i < s->posted; i++)
        if (is_transfer(&s->steps[i]) && s->err == MPI_SUCCESS)
            s->err = s->steps[i].req.error;
    for (int i = first; i < end && s->err == MPI_SUCCESS; i++) {
        const struct nbc_step *st = &s->steps[i];
        if (st->kind == STEP_REDUCE) {
            s->err = mpi_reduce_apply(s->op, st->type, st->in, st->out, st->count);
        } else if (st->kind == STEP_UNPACK && st->count > 0) {
            const struct mpi_type *t = mpi_type_get(st->type);
            if (!t)
                s->err = MPI_ERR_TYPE;
            else if (!t->contiguous)
                mpi_unpack(st->in, st->count, t, st->out);
            else if (data_of(st->out, t) != st->in)
                memmove(data_of(st->out, t), st->in, st->count * t->size);
        }
    }
    s->round = s->err == MPI_SUCCESS ? s->round + 1 : s->nrounds;
    s->posted = -1;
}

int mpi_nbc_progress(struct mpi_nbc *s, int *err)
{
    if (s->running)
        return 0;
    s->running = 1;
    while (s->round < s->nrounds) {
        if (s->posted < 0)
            round_start(s);
        /* No nocmsg_engine_progress here: this runs inside nocmsg_engine_block (its idle hook), which sleeps
         * when its own progress call finds nothing to do; words taken here would leave it asleep with the
         * round they completed never finished. Callers move the engine. */
        if (!round_done(s))
            break;
        round_finish(s);
    }
    s->running = 0;
    *err = s->err;
    if (s->round < s->nrounds)
        return 0;
    release_engine(s);
    return 1;
}

void mpi_nbc_free(struct mpi_nbc *s)
{
    if (!s)
        return;
    release_engine(s);
    /* Requests the engine still holds (a schedule given up before it finished) point into the schedule: it has to
     * stay, lost but harmless, rather than be freed under them. */
    if (s->round < s->nrounds && s->posted >= 0 && !round_done(s))
        return;
    for (int i = 0; i < 2; i++)
        if (s->types[i] != MPI_DATATYPE_NULL)
            mpi_type_release(s->types[i]);
    mpi_op_release(s->op);
    for (int i = 0; i < s->nbuffers; i++)
        free(s->buffers[i]);
    free(s->buffers);
    free(s->steps);
    free(s->round_first);
    free(s);
}

/* Hands a built schedule to a new request and starts its first round (so that, say, a barrier's first messages
 * leave now rather than at the next MPI call). A schedule that cannot run is freed. */
static int nbc_start(MPI_Comm comm, struct mpi_nbc *s, int err, MPI_Request *request)
{
    if (err == MPI_SUCCESS && s->failed)
        err = MPI_ERR_NO_MEM;
    if (err != MPI_SUCCESS) {
        mpi_nbc_free(s);
        return err;
    }
    err = mpi_request_nbc(comm, s, request); /* frees s if it fails */
    if (err == MPI_SUCCESS && s->nrounds > 0) {
        int ignored;
        hold_engine(s);
        mpi_nbc_progress(s, &ignored);
    }
    return err;
}

/* ---- argument checks ---------------------------------------------------------------------------------------- */

/* The communicator behind comm, or NULL (MPI_ERR_COMM, or MPI_ERR_OTHER outside MPI_Init .. MPI_Finalize). */
static struct comm *nbc_comm(MPI_Comm comm)
{
    return mpi_up() ? nocmsg_comm_get(comm) : NULL;
}
#define CHECK_COMM(c)                                                                                           \
    do {                                                                                                        \
        if (!(c))                                                                                               \
            MPI_RETURN(MPI_COMM_WORLD, mpi_up() ? MPI_ERR_COMM : MPI_ERR_OTHER);                                \
    } while (0)

static int check_root(const struct comm *c, int root)
{
    return root >= 0 && root < c->size ? MPI_SUCCESS : MPI_ERR_ROOT;
}

/* The reduction operation: valid, defined on the type, and whether it is commutative. A built-in operation is
 * tried on one item of zeros now, since otherwise only the ranks that combine operands would find out, in the
 * middle of the schedule. */
static int check_op(MPI_Op op, MPI_Datatype type, const struct mpi_type *t, int *commutative)
{
    if (mpi_op_check(op, commutative) != MPI_SUCCESS)
        return MPI_ERR_OP;
    if (op < MPI_SUM || op > MPI_MAXLOC || t->size == 0)
        return MPI_SUCCESS; /* a user operation takes any type */
    enum { SMALL = 64 };
    _Alignas(16) unsigned char small[2 * SMALL] = {0};
    size_t room = (t->size + 15) & ~(size_t)15;
    unsigned char *scratch = room <= SMALL ? small : calloc(2, room);
    if (!scratch)
        return MPI_ERR_NO_MEM;
    int err = mpi_reduce_apply(op, type, scratch, scratch + room, 1);
    if (scratch != small)
        free(scratch);
    return err;
}

/* ---- the collectives ---------------------------------------------------------------------------------------- */

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    struct comm *c = nbc_comm(comm);
    CHECK_COMM(c);
    if (!request)
        MPI_RETURN(comm, MPI_ERR_ARG);
    struct mpi_nbc *s = nbc_new(comm, c, MPI_OP_NULL);
    if (!s)
        MPI_RETURN(comm, MPI_ERR_NO_MEM);
    /* Dissemination: in round k, a token to rank + 2^k and one from rank - 2^k. */
    int n = c->size;
    for (int dist = 1; dist < n; dist <<= 1) {
        nbc_round(s);
        nbc_recv(s, NULL, 0, (c->rank - dist + n) % n);
        nbc_send(s, NULL, 0, (c->rank + dist) % n);
    }
    MPI_RETURN(comm, nbc_start(comm, s, MPI_SUCCESS, request));
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    struct comm *c = nbc_comm(comm);
    CHECK_COMM(c);
    const struct mpi_type *t;
    size_t bytes;
    int err = request ? MPI_SUCCESS : MPI_ERR_ARG;
    if (err == MPI_SUCCESS)
        err = mpi_type_bytes(datatype, count, &t, &bytes);
    if (err == MPI_SUCCESS)
        err = check_root(c, root);
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    struct mpi_nbc *s = nbc_new(comm, c, MPI_OP_NULL);
    if (!s)
        MPI_RETURN(comm, MPI_ERR_NO_MEM);
    if (bytes > 0 && c->size > 1) {
        if (c->rank == root) {
            bcast_tree(s, (void *)send_data(s, buffer, (size_t)count, t), bytes, root);
        } else {
            void *data = recv_area(s, buffer, (size_t)count, t);
            bcast_tree(s, data, bytes, root);
            unpack_later(s, data, buffer, (size_t)count, t, datatype);
        }
    }
    MPI_RETURN(comm, nbc_start(comm, s, MPI_SUCCESS, request));
}

/* What Ireduce and Iallreduce check. */
static int reduce_args(const void *sendbuf, const void *recvbuf, int has_recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Request *request, const struct mpi_type **t, size_t *bytes, int *commutative)
{
    int err = request ? MPI_SUCCESS : MPI_ERR_ARG;
    if (err == MPI_SUCCESS)
        err = mpi_type_bytes(datatype, count, t, bytes);
    if (err == MPI_SUCCESS)
        err = check_op(op, datatype, *t, commutative);
    if (err == MPI_SUCCESS && has_recvbuf && count > 0 && sendbuf == recvbuf)
        err = MPI_ERR_BUFFER; /* the same buffer twice without MPI_IN_PLACE */
    return err;
}

/* This rank's operand, packed: the send buffer, or the receive buffer for MPI_IN_PLACE. */
static const void *operand(struct mpi_nbc *s, const void *sendbuf, const void *recvbuf, size_t count,
                           const struct mpi_type *t)
{
    return send_data(s, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, t);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    struct comm *c = nbc_comm(comm);
    CHECK_COMM(c);
    const struct mpi_type *t;
    size_t bytes;
    int commutative;
    int err = check_root(c, root);
    if (err == MPI_SUCCESS)
        err = reduce_args(sendbuf, recvbuf, c->rank == root, count, datatype, op, request, &t, &bytes, &commutative);
    if (err == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root)
        err = MPI_ERR_BUFFER;
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    struct mpi_nbc *s = nbc_new(comm, c, op);
    if (!s)
        MPI_RETURN(comm, MPI_ERR_NO_MEM);
    if (bytes > 0) {
        nbc_keep_type(s, datatype);
        const void *mine = operand(s, sendbuf, recvbuf, (size_t)count, t), *result;
        /* A commutative operation may take its operands in any order, so the tree can be rooted at the root;
         * otherwise it is rooted at rank 0, for rank order, and rank 0 sends the result on. */
        int shift = commutative ? root : 0;
        result = reduce_tree(s, mine, bytes, (size_t)count, datatype, shift);
        if (result && c->rank != root) {
            nbc_round(s);
            nbc_send(s, result, bytes, root);
        } else if (c->rank == root) {
            if (!result) {
                nbc_round(s);
                result = recv_data(s, recvbuf, (size_t)count, t, datatype);
                nbc_recv(s, (void *)result, bytes, 0);
            } else {
                nbc_local(s, STEP_UNPACK, result, recvbuf, (size_t)count, datatype);
            }
        }
    }
    MPI_RETURN(comm, nbc_start(comm, s, MPI_SUCCESS, request));
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request)
{
    struct comm *c = nbc_comm(comm);
    CHECK_COMM(c);
    const struct mpi_type *t;
    size_t bytes;
    int commutative;
    int err = reduce_args(sendbuf, recvbuf, 1, count, datatype, op, request, &t, &bytes, &commutative);
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    struct mpi_nbc *s = nbc_new(comm, c, op);
    if (!s)
        MPI_RETURN(comm, MPI_ERR_NO_MEM);
    if (bytes > 0) {
        nbc_keep_type(s, datatype);
        /* Reduce to rank 0 in rank order (right for every operation), then broadcast from there. */
        const void *mine = operand(s, sendbuf, recvbuf, (size_t)count, t);
        const void *result = reduce_tree(s, mine, bytes, (size_t)count, datatype, 0);
        if (c->rank == 0) {
            bcast_tree(s, (void *)result, bytes, 0);
            nbc_local(s, STEP_UNPACK, result, recvbuf, (size_t)count, datatype);
        } else {
            /* The result arrives in recvbuf itself if it can: the rank's own operand left it in an earlier round. */
            void *data = recv_area(s, recvbuf, (size_t)count, t);
            bcast_tree(s, data, bytes, 0);
            unpack_later(s, data, recvbuf, (size_t)count, t, datatype);
        }
    }
    MPI_RETURN(comm, nbc_start(comm, s, MPI_SUCCESS, request));
}

/* What the rooted operations (Igather, Iscatter) check: the root's side of all the blocks (at the root) and this
 * rank's own block, which may be MPI_IN_PLACE at the root only. A block must hold as many bytes on both sides
 * (MPI_ERR_COUNT otherwise, as in the blocking collectives). */
static int rooted_args(const struct comm *c, int root, MPI_Request *request, int my_in_place, int root_count,
                       MPI_Datatype root_type, const struct mpi_type **rt, size_t *root_bytes, int my_count,
                       MPI_Datatype my_type, const struct mpi_type **mt, size_t *my_bytes)
{
    int err = request ? MPI_SUCCESS : MPI_ERR_ARG;
    if (err == MPI_SUCCESS)
        err = check_root(c, root);
    if (err == MPI_SUCCESS && c->rank == root)
        err = mpi_type_bytes(root_type, root_count, rt, root_bytes);
    if (err != MPI_SUCCESS || (my_in_place && c->rank == root))
        return err;
    if (my_in_place)
        return MPI_ERR_BUFFER;
    err = mpi_type_bytes(my_type, my_count, mt, my_bytes);
    if (err == MPI_SUCCESS && c->rank == root && *my_bytes != *root_bytes)
        err = MPI_ERR_COUNT;
    return err;
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    struct comm *c = nbc_comm(comm);
    CHECK_COMM(c);
    const struct mpi_type *st = NULL, *rt = NULL;
    size_t sbytes = 0, rbytes = 0;
    int in_place = sendbuf == MPI_IN_PLACE;
    int err = rooted_args(c, root, request, in_place, recvcount, recvtype, &rt, &rbytes, sendcount, sendtype, &st,
                          &sbytes);
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    struct mpi_nbc *s = nbc_new(comm, c, MPI_OP_NULL);
    if (!s)
        MPI_RETURN(comm, MPI_ERR_NO_MEM);
    int n = c->size;
    if (c->rank == root) {
        if (!in_place)
            err = copy_now(sendbuf, (size_t)sendcount, st, block_of(recvbuf, root, (size_t)recvcount, rt),
                           (size_t)recvcount, rt);
        for (int i = 0; i < n; i++)
            if (i != root)
                nbc_recv(s, recv_data(s, block_of(recvbuf, i, (size_t)recvcount, rt), (size_t)recvcount, rt, recvtype),
                         rbytes, i);
    } else {
        nbc_send(s, send_data(s, sendbuf, (size_t)sendcount, st), sbytes, root);
    }
    MPI_RETURN(comm, nbc_start(comm, s, err, request));
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    struct comm *c = nbc_comm(comm);
    CHECK_COMM(c);
    const struct mpi_type *st = NULL, *rt = NULL;
    size_t sbytes = 0, rbytes = 0;
    int in_place = recvbuf == MPI_IN_PLACE;
    int err = rooted_args(c, root, request, in_place, sendcount, sendtype, &st, &sbytes, recvcount, recvtype, &rt,
                          &rbytes);
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    struct mpi_nbc *s = nbc_new(comm, c, MPI_OP_NULL);
    if (!s)
        MPI_RETURN(comm, MPI_ERR_NO_MEM);
    int n = c->size;
    if (c->rank == root) {
        if (!in_place)
            err = copy_now(block_of(sendbuf, root, (size_t)sendcount, st), (size_t)sendcount, st, recvbuf,
                           (size_t)recvcount, rt);
        /* Non-contiguous blocks are packed all at once: the n blocks are n * sendcount consecutive items. */
        const unsigned char *packed =
            st->contiguous || n == 1 ? NULL : send_data(s, sendbuf, (size_t)n * sendcount, st);
        for (int i = 0; i < n; i++) {
            if (i == root)
                continue;
            const void *data = packed ? packed + (size_t)i * sbytes
                                      : data_of(block_of(sendbuf, i, (size_t)sendcount, st), st);
            nbc_send(s, data, sbytes, i);
        }
    } else {
        nbc_recv(s, recv_data(s, recvbuf, (size_t)recvcount, rt, recvtype), rbytes, root);
    }
    MPI_RETURN(comm, nbc_start(comm, s, err, request));
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct comm *c = nbc_comm(comm);
    CHECK_COMM(c);
    const struct mpi_type *st = NULL, *rt = NULL;
    size_t sbytes = 0, rbytes = 0;
    int in_place = sendbuf == MPI_IN_PLACE;
    int err = request ? MPI_SUCCESS : MPI_ERR_ARG;
    if (err == MPI_SUCCESS)
        err = mpi_type_bytes(recvtype, recvcount, &rt, &rbytes);
    if (err == MPI_SUCCESS && !in_place)
        err = mpi_type_bytes(sendtype, sendcount, &st, &sbytes);
    if (err == MPI_SUCCESS && !in_place && sbytes != rbytes)
        err = MPI_ERR_COUNT;
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    struct mpi_nbc *s = nbc_new(comm, c, MPI_OP_NULL);
    if (!s)
        MPI_RETURN(comm, MPI_ERR_NO_MEM);
    int n = c->size, me = c->rank;
    void *own = block_of(recvbuf, me, (size_t)recvcount, rt);
    const void *mine;
    if (in_place) {
        mine = send_data(s, own, (size_t)recvcount, rt);
    } else {
        err = copy_now(sendbuf, (size_t)sendcount, st, own, (size_t)recvcount, rt);
        mine = send_data(s, sendbuf, (size_t)sendcount, st);
    }
    for (int i = 1; i < n; i++) {
        int from = (me - i + n) % n;
        nbc_recv(s, recv_data(s, block_of(recvbuf, from, (size_t)recvcount, rt), (size_t)recvcount, rt, recvtype),
                 rbytes, from);
        nbc_send(s, mine, rbytes, (me + i) % n);
    }
    MPI_RETURN(comm, nbc_start(comm, s, err, request));
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct comm *c = nbc_comm(comm);
    CHECK_COMM(c);
    const struct mpi_type *st = NULL, *rt = NULL;
    size_t sbytes = 0, rbytes = 0;
    int in_place = sendbuf == MPI_IN_PLACE;
    int err = request ? MPI_SUCCESS : MPI_ERR_ARG;
    if (err == MPI_SUCCESS)
        err = mpi_type_bytes(recvtype, recvcount, &rt, &rbytes);
    if (err == MPI_SUCCESS && !in_place)
        err = mpi_type_bytes(sendtype, sendcount, &st, &sbytes);
    if (err == MPI_SUCCESS && !in_place && sbytes != rbytes)
        err = MPI_ERR_COUNT;
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    struct mpi_nbc *s = nbc_new(comm, c, MPI_OP_NULL);
    if (!s)
        MPI_RETURN(comm, MPI_ERR_NO_MEM);
    int n = c->size, me = c->rank;
    const unsigned char *packed = NULL; /* all n blocks to send, packed, unless sent from the user's memory */
    if (in_place) {
        /* The blocks to send are where the received ones go: send from a copy taken now (own block aside). */
        if (n > 1) {
            void *copy = nbc_buffer(s, (size_t)n * rbytes);
            if (copy)
                mpi_pack(recvbuf, (size_t)n * recvcount, rt, copy);
            packed = copy;
        }
        st = rt;
        sendcount = recvcount;
    } else {
        err = copy_now(block_of(sendbuf, me, (size_t)sendcount, st), (size_t)sendcount, st,
                       block_of(recvbuf, me, (size_t)recvcount, rt), (size_t)recvcount, rt);
        if (!st->contiguous && n > 1)
            packed = send_data(s, sendbuf, (size_t)n * sendcount, st);
    }
    for (int i = 1; i < n; i++) {
        int from = (me - i + n) % n, to = (me + i) % n;
        nbc_recv(s, recv_data(s, block_of(recvbuf, from, (size_t)recvcount, rt), (size_t)recvcount, rt, recvtype),
                 rbytes, from);
        const void *data = packed ? packed + (size_t)to * rbytes
                                  : data_of(block_of(sendbuf, to, (size_t)sendcount, st), st);
        nbc_send(s, data, rbytes, to);
    }
    MPI_RETURN(comm, nbc_start(comm, s, err, request));
}
