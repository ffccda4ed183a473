/*
 * coll.c: the collective API: argument checks, NOCMSG_IN_PLACE, datatype sizes, and dispatch to the algorithm
 * the selector (tables.c) or the user picked. The private point-to-point the algorithms use is in p2p.c.
 */
#include "coll.h"
#include "token.h"
#include "../fc.h"

#include <stdlib.h>
#include <string.h>


/* ---- checks ----------------------------------------------------------------------------------------------- */

static int get_comm(nocmsg_comm comm, struct comm **c)
{
    *c = NULL;
    CHECK_INIT();
    *c = nocmsg_comm_get(comm);
    return *c ? NOCMSG_SUCCESS : NOCMSG_ERR_COMM;
}

static int check_root(const struct comm *c, int root)
{
    return root >= 0 && root < c->size ? NOCMSG_SUCCESS : NOCMSG_ERR_ROOT;
}

/* Checks a counts/displacements pair of a v-operation; the total extent in bytes goes to *extent. */
static int vector_bytes(const void *buf, const int counts[], const int displs[], nocmsg_datatype type, int n,
                        size_t *extent)
{
    if (!counts || (displs == NULL && n > 0))
        return NOCMSG_ERR_ARG;
    if (type <= NOCMSG_DATATYPE_NULL || type >= NOCMSG_BASIC_DATATYPES)
        return NOCMSG_ERR_TYPE;
    size_t elem = (size_t)nocmsg_type_sizes[type], end = 0;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0)
            return NOCMSG_ERR_COUNT;
        if (displs[i] < 0)
            return NOCMSG_ERR_ARG;
        if (counts[i] > 0 && (size_t)(displs[i] + counts[i]) * elem > end)
            end = (size_t)(displs[i] + counts[i]) * elem;
    }
    if (!buf && end > 0)
        return NOCMSG_ERR_BUFFER;
    *extent = end;
    return NOCMSG_SUCCESS;
}

/* ---- dispatch ------------------------------------------------------------------------------------------- */

/* The collectives that do not go through coll_pick (the v-operations, a barrier with a ready plan) end a
 * communication region for the flow-control plan themselves (fc.h; UDN builds only). */
#ifdef NOCMSG_PORT_UDN
#define BOUNDARY(name, c)                                                                                       \
    do {                                                                                                        \
        if (__builtin_expect(nocmsg__fc_on, 0))                                                                 \
            nocmsg_fc_boundary(name, c);                                                                        \
    } while (0)
#else
#define BOUNDARY(name, c) ((void)0)
#endif

#define RUN(op, type, bytes, c, commutative, ...)                                                               \
    ((type *)coll_pick(op, bytes, c, commutative)->fn)(__VA_ARGS__)

int nocmsg_barrier(nocmsg_comm comm)
{
    struct comm *c;
    int err = get_comm(comm, &c);
    if (err != NOCMSG_SUCCESS)
        return err;
    if (c->size == 1)
        return NOCMSG_SUCCESS;
    /* The plan of the communicator's last barrier, if the choice of algorithm has not changed since. */
    const struct token_plan *p = c->barrier;
    if (__builtin_expect(p && p->generation == coll_generation, 1)) {
        BOUNDARY("barrier", c);
        return coll_tokens_exec(c, p);
    }
    return RUN(OP_BARRIER, barrier_fn, 0, c, 1, c);
}

int nocmsg_bcast(void *buf, int count, nocmsg_datatype type, int root, nocmsg_comm comm)
{
    struct comm *c;
    size_t bytes;
    int err = get_comm(comm, &c);
    if (err == NOCMSG_SUCCESS)
        err = nocmsg_message_bytes(buf, count, type, &bytes);
    if (err == NOCMSG_SUCCESS)
        err = check_root(c, root);
    if (err != NOCMSG_SUCCESS || c->size == 1)
        return err;
    if (bytes == 0) {
        BOUNDARY("bcast", c); /* nothing to move, but a collective all the same */
        return NOCMSG_SUCCESS;
    }
    return RUN(OP_BCAST, bcast_fn, bytes, c, 1, buf, bytes, root, c);
}

int nocmsg_reduce(const void *sendbuf, void *recvbuf, int count, nocmsg_datatype type, nocmsg_op op, int root,
                  nocmsg_comm comm)
{
    struct comm *c;
    struct coll_reduction red;
    size_t bytes;
    int err = get_comm(comm, &c);
    if (err == NOCMSG_SUCCESS)
        err = check_root(c, root);
    if (err == NOCMSG_SUCCESS)
        err = nocmsg_message_bytes(sendbuf, count, type, &bytes);
    if (err == NOCMSG_SUCCESS && c->rank == root)
        err = nocmsg_message_bytes(recvbuf, count, type, &bytes);
    if (err == NOCMSG_SUCCESS)
        err = coll_reduction_of(op, type, &red);
    if (err == NOCMSG_SUCCESS && sendbuf == NOCMSG_IN_PLACE && c->rank != root)
        err = NOCMSG_ERR_BUFFER;
    if (err != NOCMSG_SUCCESS || bytes == 0)
        return err;
    if (sendbuf == NOCMSG_IN_PLACE)
        sendbuf = recvbuf;
    if (c->size == 1) {
        if (sendbuf != recvbuf)
            memmove(recvbuf, sendbuf, bytes);
        return NOCMSG_SUCCESS;
    }
    return RUN(OP_REDUCE, reduce_fn, bytes, c, red.commutative, sendbuf, recvbuf, (size_t)count, &red, root, c);
}

int nocmsg_allreduce(const void *sendbuf, void *recvbuf, int count, nocmsg_datatype type, nocmsg_op op,
                     nocmsg_comm comm)
{
    struct comm *c;
    struct coll_reduction red;
    size_t bytes;
    int err = get_comm(comm, &c);
    if (err == NOCMSG_SUCCESS)
        err = nocmsg_message_bytes(sendbuf, count, type, &bytes);
    if (err == NOCMSG_SUCCESS)
        err = nocmsg_message_bytes(recvbuf == NOCMSG_IN_PLACE ? NULL : recvbuf, count, type, &bytes);
    if (err == NOCMSG_SUCCESS)
        err = coll_reduction_of(op, type, &red);
    if (err != NOCMSG_SUCCESS || bytes == 0)
        return err;
    if (sendbuf == NOCMSG_IN_PLACE)
        sendbuf = recvbuf;
    if (c->size == 1) {
        if (sendbuf != recvbuf)
            memmove(recvbuf, sendbuf, bytes);
        return NOCMSG_SUCCESS;
    }
    return RUN(OP_ALLREDUCE, allreduce_fn, bytes, c, red.commutative, sendbuf, recvbuf, (size_t)count, &red, c);
}

/* Send and receive descriptions of gather/scatter-like operations must describe the same bytes per rank. */
static int same_bytes(size_t a, size_t b)
{
    return a == b ? NOCMSG_SUCCESS : NOCMSG_ERR_COUNT;
}

int nocmsg_gather(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf, int recvcount,
                  nocmsg_datatype recvtype, int root, nocmsg_comm comm)
{
    struct comm *c;
    size_t sbytes = 0, rbytes = 0;
    int err = get_comm(comm, &c);
    if (err == NOCMSG_SUCCESS)
        err = check_root(c, root);
    int in_place = c && c->rank == root && sendbuf == NOCMSG_IN_PLACE;
    if (err == NOCMSG_SUCCESS && !in_place)
        err = nocmsg_message_bytes(sendbuf, sendcount, sendtype, &sbytes);
    if (err == NOCMSG_SUCCESS && c->rank == root) {
        err = nocmsg_message_bytes(recvbuf, recvcount, recvtype, &rbytes);
        if (err == NOCMSG_SUCCESS && !in_place)
            err = same_bytes(sbytes, rbytes);
        sbytes = rbytes;
    }
    if (err != NOCMSG_SUCCESS || sbytes == 0)
        return err;
    if (in_place)
        sendbuf = (const unsigned char *)recvbuf + (size_t)root * sbytes;
    if (c->size == 1) {
        if (sendbuf != recvbuf)
            memmove(recvbuf, sendbuf, sbytes);
        return NOCMSG_SUCCESS;
    }
    return RUN(OP_GATHER, gather_fn, sbytes, c, 1, sendbuf, recvbuf, sbytes, root, c);
}

int nocmsg_scatter(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf, int recvcount,
                   nocmsg_datatype recvtype, int root, nocmsg_comm comm)
{
    struct comm *c;
    size_t sbytes = 0, rbytes = 0;
    int err = get_comm(comm, &c);
    if (err == NOCMSG_SUCCESS)
        err = check_root(c, root);
    int in_place = c && c->rank == root && recvbuf == NOCMSG_IN_PLACE;
    if (err == NOCMSG_SUCCESS && !in_place)
        err = nocmsg_message_bytes(recvbuf, recvcount, recvtype, &rbytes);
    if (err == NOCMSG_SUCCESS && c->rank == root) {
        err = nocmsg_message_bytes(sendbuf, sendcount, sendtype, &sbytes);
        if (err == NOCMSG_SUCCESS && !in_place)
            err = same_bytes(sbytes, rbytes);
        rbytes = sbytes;
    }
    if (err != NOCMSG_SUCCESS || rbytes == 0)
        return err;
    unsigned char scratch_byte;
    if (in_place)
        recvbuf = &scratch_byte; /* the root's block stays where it is */
    if (c->size == 1) {
        if (!in_place)
            memmove(recvbuf, sendbuf, rbytes);
        return NOCMSG_SUCCESS;
    }
    if (in_place) {
        /* Algorithms write the root's own block into recvbuf: give them room, then drop it. */
        void *tmp = malloc(rbytes);
        if (!tmp)
            return NOCMSG_ERR_NO_MEM;
        err = RUN(OP_SCATTER, scatter_fn, rbytes, c, 1, sendbuf, tmp, rbytes, root, c);
        free(tmp);
        return err;
    }
    return RUN(OP_SCATTER, scatter_fn, rbytes, c, 1, sendbuf, recvbuf, rbytes, root, c);
}

int nocmsg_allgather(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf, int recvcount,
                     nocmsg_datatype recvtype, nocmsg_comm comm)
{
    struct comm *c;
    size_t sbytes = 0, rbytes = 0;
    int err = get_comm(comm, &c);
    int in_place = sendbuf == NOCMSG_IN_PLACE;
    if (err == NOCMSG_SUCCESS)
        err = nocmsg_message_bytes(recvbuf, recvcount, recvtype, &rbytes);
    if (err == NOCMSG_SUCCESS && !in_place) {
        err = nocmsg_message_bytes(sendbuf, sendcount, sendtype, &sbytes);
        if (err == NOCMSG_SUCCESS)
            err = same_bytes(sbytes, rbytes);
    }
    if (err != NOCMSG_SUCCESS || rbytes == 0)
        return err;
    if (in_place)
        sendbuf = (const unsigned char *)recvbuf + (size_t)c->rank * rbytes;
    if (c->size == 1) {
        if (sendbuf != recvbuf)
            memmove(recvbuf, sendbuf, rbytes);
        return NOCMSG_SUCCESS;
    }
    return RUN(OP_ALLGATHER, allgather_fn, rbytes, c, 1, sendbuf, recvbuf, rbytes, c);
}

int nocmsg_alltoall(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf, int recvcount,
                    nocmsg_datatype recvtype, nocmsg_comm comm)
{
    struct comm *c;
    size_t sbytes = 0, rbytes = 0;
    int err = get_comm(comm, &c);
    int in_place = sendbuf == NOCMSG_IN_PLACE;
    if (err == NOCMSG_SUCCESS)
        err = nocmsg_message_bytes(recvbuf, recvcount, recvtype, &rbytes);
    if (err == NOCMSG_SUCCESS && !in_place) {
        err = nocmsg_message_bytes(sendbuf, sendcount, sendtype, &sbytes);
        if (err == NOCMSG_SUCCESS)
            err = same_bytes(sbytes, rbytes);
    }
    if (err != NOCMSG_SUCCESS || rbytes == 0)
        return err;
    void *copy = NULL;
    if (in_place) {
        copy = malloc(rbytes * (size_t)c->size);
        if (!copy)
            return NOCMSG_ERR_NO_MEM;
        memcpy(copy, recvbuf, rbytes * (size_t)c->size);
        sendbuf = copy;
    }
#ifdef NOCMSG_PORT_UDN
    unsigned queue_words;
#endif
    if (c->size == 1) {
        memmove(recvbuf, sendbuf, rbytes);
#ifdef NOCMSG_PORT_UDN
    } else if (__builtin_expect(nocmsg__fc_on, 0) && nocmsg_fc_releases(c, &queue_words)) {
        BOUNDARY("alltoall", c);
        struct coll_blocks b = {sendbuf, recvbuf, rbytes, NULL, NULL, NULL, NULL, 0, 0};
        err = coll_alltoall_released("alltoall", &b, queue_words, c);
        if (err == COLL_KEEPS_FLOW_CONTROL) /* the region has ended: not through coll_pick again */
            err = alltoall_pairwise(sendbuf, recvbuf, rbytes, c);
#endif
    } else {
        err = RUN(OP_ALLTOALL, alltoall_fn, rbytes, c, 1, sendbuf, recvbuf, rbytes, c);
    }
    free(copy);
    return err;
}

int nocmsg_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], nocmsg_datatype type,
                          nocmsg_op op, nocmsg_comm comm)
{
    struct comm *c;
    struct coll_reduction red;
    int err = get_comm(comm, &c);
    if (err != NOCMSG_SUCCESS)
        return err;
    if (!recvcounts)
        return NOCMSG_ERR_ARG;
    if ((err = coll_reduction_of(op, type, &red)) != NOCMSG_SUCCESS)
        return err;
    size_t total = 0, bytes;
    for (int i = 0; i < c->size; i++) {
        if (recvcounts[i] < 0)
            return NOCMSG_ERR_COUNT;
        total += (size_t)recvcounts[i];
    }
    if ((err = nocmsg_message_bytes(recvbuf, recvcounts[c->rank], type, &bytes)) != NOCMSG_SUCCESS)
        return err;
    if (sendbuf != NOCMSG_IN_PLACE && !sendbuf && total > 0)
        return NOCMSG_ERR_BUFFER;
    if (total == 0)
        return NOCMSG_SUCCESS;
    size_t *counts = malloc((size_t)c->size * sizeof *counts);
    void *in = NULL;
    if (!counts)
        return NOCMSG_ERR_NO_MEM;
    for (int i = 0; i < c->size; i++)
        counts[i] = (size_t)recvcounts[i];
    if (sendbuf == NOCMSG_IN_PLACE) {
        /* MPI: the input is in recvbuf (all `total` elements); copy it out so the result can land there. */
        in = malloc(total * red.elem);
        if (!in) {
            free(counts);
            return NOCMSG_ERR_NO_MEM;
        }
        memcpy(in, recvbuf, total * red.elem);
        sendbuf = in;
    }
    if (c->size == 1)
        memmove(recvbuf, sendbuf, total * red.elem);
    else
        err = RUN(OP_REDUCE_SCATTER, reduce_scatter_fn, total * red.elem, c, red.commutative, sendbuf, recvbuf,
                  counts, &red, c);
    free(in);
    free(counts);
    return err;
}

int nocmsg_scan(const void *sendbuf, void *recvbuf, int count, nocmsg_datatype type, nocmsg_op op,
                nocmsg_comm comm)
{
    struct comm *c;
    struct coll_reduction red;
    size_t bytes;
    int err = get_comm(comm, &c);
    if (err == NOCMSG_SUCCESS)
        err = nocmsg_message_bytes(sendbuf, count, type, &bytes);
    if (err == NOCMSG_SUCCESS)
        err = nocmsg_message_bytes(recvbuf, count, type, &bytes);
    if (err == NOCMSG_SUCCESS)
        err = coll_reduction_of(op, type, &red);
    if (err != NOCMSG_SUCCESS || bytes == 0)
        return err;
    if (sendbuf == NOCMSG_IN_PLACE)
        sendbuf = recvbuf;
    if (c->size == 1) {
        if (sendbuf != recvbuf)
            memmove(recvbuf, sendbuf, bytes);
        return NOCMSG_SUCCESS;
    }
    return RUN(OP_SCAN, scan_fn, bytes, c, red.commutative, sendbuf, recvbuf, (size_t)count, &red, c);
}

/* ---- v-operations (linear: one message per rank with data) ------------------------------------------------ */

/* The checks gatherv and scatterv share. `mine` (count, type) is this rank's own block, or NOCMSG_IN_PLACE at the
 * root; the root's vector (vbuf, counts, displs, vtype) must give the root's own block the same size. On success
 * *bytes is the size of this rank's block and *elem the size of a vector element (at the root). */
static int rooted_vector_args(nocmsg_comm comm, int root, const void *mine, int count, nocmsg_datatype type,
                              const void *vbuf, const int counts[], const int displs[], nocmsg_datatype vtype,
                              struct comm **c, int *is_root, int *in_place, size_t *bytes, size_t *elem)
{
    size_t extent;
    int err = get_comm(comm, c);
    if (err == NOCMSG_SUCCESS)
        err = check_root(*c, root);
    *is_root = err == NOCMSG_SUCCESS && (*c)->rank == root;
    *in_place = *is_root && mine == NOCMSG_IN_PLACE;
    *bytes = 0;
    if (err == NOCMSG_SUCCESS && !*in_place)
        err = nocmsg_message_bytes(mine, count, type, bytes);
    if (err == NOCMSG_SUCCESS && *is_root) {
        err = vector_bytes(vbuf, counts, displs, vtype, (*c)->size, &extent);
        *elem = (size_t)nocmsg_type_sizes[vtype];
        if (err == NOCMSG_SUCCESS && !*in_place && (size_t)counts[root] * *elem != *bytes)
            err = NOCMSG_ERR_COUNT;
    }
    return err;
}

int nocmsg_gatherv(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], nocmsg_datatype recvtype, int root, nocmsg_comm comm)
{
    struct comm *c;
    int is_root, in_place;
    size_t sbytes, elem;
    int err = rooted_vector_args(comm, root, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, &c,
                                 &is_root, &in_place, &sbytes, &elem);
    if (err != NOCMSG_SUCCESS)
        return err;
    BOUNDARY("gatherv", c);
    if (!is_root)
        return sbytes ? coll_send(sendbuf, sbytes, root, TAG_GATHER, c) : NOCMSG_SUCCESS;
    struct nocmsg_request_s *r = calloc((size_t)c->size, sizeof *r);
    if (!r)
        return NOCMSG_ERR_NO_MEM;
    for (int i = 0; i < c->size; i++) {
        unsigned char *at = (unsigned char *)recvbuf + (size_t)displs[i] * elem;
        size_t n = (size_t)recvcounts[i] * elem;
        if (i == root) {
            if (!in_place && n)
                memmove(at, sendbuf, n);
            r[i].done = 1;
        } else if (n) {
            coll_irecv(at, n, i, TAG_GATHER, c, &r[i]);
        } else {
            r[i].done = 1;
        }
    }
    err = coll_waitall(c->size, r);
    free(r);
    return err;
}

int nocmsg_scatterv(const void *sendbuf, const int sendcounts[], const int displs[], nocmsg_datatype sendtype,
                    void *recvbuf, int recvcount, nocmsg_datatype recvtype, int root, nocmsg_comm comm)
{
    struct comm *c;
    int is_root, in_place;
    size_t rbytes, elem;
    int err = rooted_vector_args(comm, root, recvbuf, recvcount, recvtype, sendbuf, sendcounts, displs, sendtype, &c,
                                 &is_root, &in_place, &rbytes, &elem);
    if (err != NOCMSG_SUCCESS)
        return err;
    BOUNDARY("scatterv", c);
    if (!is_root)
        return rbytes ? coll_recv(recvbuf, rbytes, root, TAG_SCATTER, c) : NOCMSG_SUCCESS;
    struct nocmsg_request_s *r = calloc((size_t)c->size, sizeof *r);
    if (!r)
        return NOCMSG_ERR_NO_MEM;
    for (int i = 0; i < c->size; i++) {
        const unsigned char *at = (const unsigned char *)sendbuf + (size_t)displs[i] * elem;
        size_t n = (size_t)sendcounts[i] * elem;
        r[i].done = 1;
        if (i == root) {
            if (!in_place && n)
                memmove(recvbuf, at, n);
        } else if (n && (err = coll_isend(at, n, i, TAG_SCATTER, c, &r[i])) != NOCMSG_SUCCESS) {
            r[i].done = 1;
            break;
        }
    }
    int werr = coll_waitall(c->size, r);
    free(r);
    return err != NOCMSG_SUCCESS ? err : werr;
}

int nocmsg_allgatherv(const void *sendbuf, int sendcount, nocmsg_datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], nocmsg_datatype recvtype, nocmsg_comm comm)
{
    struct comm *c;
    size_t sbytes = 0, extent;
    int err = get_comm(comm, &c);
    int in_place = sendbuf == NOCMSG_IN_PLACE;
    if (err == NOCMSG_SUCCESS && !in_place)
        err = nocmsg_message_bytes(sendbuf, sendcount, sendtype, &sbytes);
    if (err == NOCMSG_SUCCESS)
        err = vector_bytes(recvbuf, recvcounts, displs, recvtype, c->size, &extent);
    if (err != NOCMSG_SUCCESS)
        return err;
    size_t elem = (size_t)nocmsg_type_sizes[recvtype];
    if (!in_place && (size_t)recvcounts[c->rank] * elem != sbytes)
        return NOCMSG_ERR_COUNT;
    BOUNDARY("allgatherv", c);
    unsigned char *out = recvbuf;
    if (!in_place && sbytes)
        memmove(out + (size_t)displs[c->rank] * elem, sendbuf, sbytes);
    /* A ring: in step k every rank passes on the block it received in step k-1, so each link carries every block
     * once and no rank sends more than its share at a time. */
    int right = (c->rank + 1) % c->size, left = (c->rank - 1 + c->size) % c->size;
    for (int k = 0; k < c->size - 1 && err == NOCMSG_SUCCESS; k++) {
        int send_block = (c->rank - k + c->size) % c->size, recv_block = (c->rank - k - 1 + c->size) % c->size;
        err = coll_sendrecv(out + (size_t)displs[send_block] * elem, (size_t)recvcounts[send_block] * elem, right,
                            out + (size_t)displs[recv_block] * elem, (size_t)recvcounts[recv_block] * elem, left,
                            TAG_ALLGATHER, c);
    }
    return err;
}

int nocmsg_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], nocmsg_datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int rdispls[], nocmsg_datatype recvtype,
                     nocmsg_comm comm)
{
    struct comm *c;
    size_t extent;
    int err = get_comm(comm, &c);
    if (err != NOCMSG_SUCCESS)
        return err;
    int in_place = sendbuf == NOCMSG_IN_PLACE;
    if ((err = vector_bytes(recvbuf, recvcounts, rdispls, recvtype, c->size, &extent)) != NOCMSG_SUCCESS)
        return err;
    void *copy = NULL;
    size_t selem = (size_t)nocmsg_type_sizes[recvtype];
    if (in_place) {
        /* MPI: the data to send is in recvbuf, described by the receive counts and displacements. */
        copy = malloc(extent ? extent : 1);
        if (!copy)
            return NOCMSG_ERR_NO_MEM;
        memcpy(copy, recvbuf, extent);
        sendbuf = copy;
        sendcounts = recvcounts;
        sdispls = rdispls;
        sendtype = recvtype;
    } else {
        size_t sextent;
        if ((err = vector_bytes(sendbuf, sendcounts, sdispls, sendtype, c->size, &sextent)) != NOCMSG_SUCCESS)
            return err;
        selem = (size_t)nocmsg_type_sizes[sendtype];
    }
    size_t relem = (size_t)nocmsg_type_sizes[recvtype];
#ifdef NOCMSG_PORT_UDN
    unsigned queue_words;
    int released = __builtin_expect(nocmsg__fc_on, 0) && c->size > 1 && nocmsg_fc_releases(c, &queue_words);
#endif
    BOUNDARY("alltoallv", c);
#ifdef NOCMSG_PORT_UDN
    if (released) {
        struct coll_blocks b = {sendbuf, recvbuf, 0, sendcounts, sdispls, recvcounts, rdispls, selem, relem};
        err = coll_alltoall_released("alltoallv", &b, queue_words, c);
        if (err != COLL_KEEPS_FLOW_CONTROL) {
            free(copy);
            return err;
        }
        err = NOCMSG_SUCCESS;
    }
#endif
    /* Pairwise exchange: in step k, send to rank + k and receive from rank - k. */
    for (int k = 0; k < c->size && err == NOCMSG_SUCCESS; k++) {
        int to = (c->rank + k) % c->size, from = (c->rank - k + c->size) % c->size;
        const unsigned char *s = (const unsigned char *)sendbuf + (size_t)sdispls[to] * selem;
        unsigned char *r = (unsigned char *)recvbuf + (size_t)rdispls[from] * relem;
        size_t sn = (size_t)sendcounts[to] * selem, rn = (size_t)recvcounts[from] * relem;
        if (k == 0) {
            if (sn != rn)
                err = NOCMSG_ERR_COUNT;
            else if (sn)
                memmove(r, s, sn);
            continue;
        }
        err = coll_sendrecv(s, sn, sn ? to : NOCMSG_PROC_NULL, r, rn, rn ? from : NOCMSG_PROC_NULL, TAG_ALLTOALL, c);
    }
    free(copy);
    return err;
}
