/*
 * coll.c - RCCE_bcast, RCCE_reduce, RCCE_allreduce: RCCE's linear collectives over RCCE_send/RCCE_recv.
 *
 * The reduction goes in pieces of at most PIECE bytes, each member sending piece after piece and the root taking
 * them member by member, so the root needs no buffer as large as the message. The root combines its own values
 * first, then every other member's in rank order, so results do not depend on timing.
 */
#include <string.h>

#include "internal.h"

#define PIECE 2048

static int comm_ok(const RCCE_COMM *comm, int root)
{
    return comm->initialized == RCCE_COMM_MAGIC && comm->size > 0 && comm->size <= RCCE_MAXNP && root >= 0 &&
           root < comm->size && comm->my_rank >= 0 && comm->my_rank < comm->size;
}

int RCCE_bcast(char *buf, size_t num, int root, RCCE_COMM comm)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_COMM, "RCCE_bcast");
    if (!comm_ok(&comm, root)) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_bcast");
    if (comm.my_rank != root) return RCCE_recv(buf, num, comm.member[root]);
    for (int r = 0; r < comm.size; r++) {
        if (r == root) continue;
        int err = RCCE_send(buf, num, comm.member[r]);
        if (err != RCCE_SUCCESS) return err;
    }
    return RCCE_SUCCESS;
}

static size_t type_size(int type)
{
    switch (type) {
    case RCCE_INT: return sizeof(int);
    case RCCE_LONG: return sizeof(long);
    case RCCE_FLOAT: return sizeof(float);
    case RCCE_DOUBLE: return sizeof(double);
    default: return 0;
    }
}

#define COMBINE(T)                                                                \
    do {                                                                          \
        T *a = (T *)acc;                                                          \
        const T *b = (const T *)in;                                               \
        for (size_t i = 0; i < n; i++) {                                          \
            switch (op) {                                                         \
            case RCCE_SUM: a[i] = a[i] + b[i]; break;                             \
            case RCCE_PROD: a[i] = a[i] * b[i]; break;                            \
            case RCCE_MIN: a[i] = b[i] < a[i] ? b[i] : a[i]; break;               \
            default: a[i] = b[i] > a[i] ? b[i] : a[i]; break;                     \
            }                                                                     \
        }                                                                         \
    } while (0)

/* acc[i] = acc[i] op in[i] for n elements of type. */
static void combine(void *acc, const void *in, size_t n, int type, int op)
{
    switch (type) {
    case RCCE_INT: COMBINE(int); break;
    case RCCE_LONG: COMBINE(long); break;
    case RCCE_FLOAT: COMBINE(float); break;
    default: COMBINE(double); break;
    }
}

int RCCE_reduce(char *inbuf, char *outbuf, int num, int type, int op, int root, RCCE_COMM comm)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_COMM, "RCCE_reduce");
    if (!comm_ok(&comm, root)) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_reduce");
    size_t elem = type_size(type);
    if (elem == 0) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ILLEGAL_TYPE, "RCCE_reduce");
    if (op != RCCE_SUM && op != RCCE_MIN && op != RCCE_MAX && op != RCCE_PROD)
        return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ILLEGAL_OP, "RCCE_reduce");
    if (num < 0) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, "RCCE_reduce");
    size_t bytes = (size_t)num * elem;
    int err;
    if (comm.my_rank != root) {
        for (size_t at = 0; at < bytes; at += PIECE) {
            size_t n = bytes - at < PIECE ? bytes - at : PIECE;
            if ((err = RCCE_send(inbuf + at, n, comm.member[root])) != RCCE_SUCCESS) return err;
        }
        return RCCE_SUCCESS;
    }
    if (outbuf != inbuf) memmove(outbuf, inbuf, bytes);
    static double piece[PIECE / sizeof(double)];
    for (int r = 0; r < comm.size; r++) {
        if (r == root) continue;
        for (size_t at = 0; at < bytes; at += PIECE) {
            size_t n = bytes - at < PIECE ? bytes - at : PIECE;
            if ((err = RCCE_recv((char *)piece, n, comm.member[r])) != RCCE_SUCCESS) return err;
            combine(outbuf + at, piece, n / elem, type, op);
        }
    }
    return RCCE_SUCCESS;
}

int RCCE_allreduce(char *inbuf, char *outbuf, int num, int type, int op, RCCE_COMM comm)
{
    int err = RCCE_reduce(inbuf, outbuf, num, type, op, 0, comm);
    if (err != RCCE_SUCCESS) return err;
    size_t elem = type_size(type);
    return RCCE_bcast(outbuf, (size_t)num * elem, 0, comm);
}
