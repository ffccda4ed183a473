/*
 * test_errors.c: collectives with one bad argument, the same on every rank, return its error code on every rank
 * without communicating: bad root (ERR_ROOT), bad or unsuitable operation (ERR_OP), negative count (ERR_COUNT), bad,
 * null or freed communicator (ERR_COMM), bad datatype (ERR_TYPE), null buffer with a count (ERR_BUFFER). Afterwards
 * an allreduce and a barrier still work and no message is left on WORLD.
 */
#include <stdlib.h>
#include <string.h>

#include "red.h"

static void bad_roots(void)
{
    int buf[4] = {1, 2, 3, 4}, out[64];
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    const int roots[] = {-1, t_size, t_size + 5, NOCMSG_PROC_NULL};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        int r = roots[i];
        t_case("bad root %d", r);
        CHECK_RC(nocmsg_bcast(buf, 4, NOCMSG_INT, r, W), NOCMSG_ERR_ROOT);
        CHECK_RC(nocmsg_reduce(buf, out, 4, NOCMSG_INT, NOCMSG_SUM, r, W), NOCMSG_ERR_ROOT);
        CHECK_RC(nocmsg_gather(buf, 1, NOCMSG_INT, out, 1, NOCMSG_INT, r, W), NOCMSG_ERR_ROOT);
        CHECK_RC(nocmsg_scatter(buf, 1, NOCMSG_INT, out, 1, NOCMSG_INT, r, W), NOCMSG_ERR_ROOT);
    }
    /* COMM_SELF has exactly one rank. */
    t_case("bad root on COMM_SELF");
    CHECK_RC(nocmsg_bcast(buf, 4, NOCMSG_INT, 1, NOCMSG_COMM_SELF), NOCMSG_ERR_ROOT);
    if (t_size > 64)
        return;
    int counts[64], displs[64];
    for (int i = 0; i < t_size; i++)
        counts[i] = 0, displs[i] = 0;
    t_case("bad root, v variants");
    CHECK_RC(nocmsg_gatherv(buf, 0, NOCMSG_INT, out, counts, displs, NOCMSG_INT, t_size, W), NOCMSG_ERR_ROOT);
    CHECK_RC(nocmsg_scatterv(buf, counts, displs, NOCMSG_INT, out, 0, NOCMSG_INT, -1, W), NOCMSG_ERR_ROOT);
}

static void bad_ops(void)
{
    unsigned char in[64] = {0}, out[64];
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    /* reduce_scatter: one element for each rank, of up to 16 bytes. */
    unsigned char *big = t_alloc((size_t)t_size * 16);
    int *ones = t_alloc((size_t)t_size * sizeof *ones);
    for (int i = 0; i < t_size; i++)
        ones[i] = 1;
    memset(big, 0, (size_t)t_size * 16);
    /* Unknown operations. */
    const nocmsg_op unknown[] = {NOCMSG_OP_NULL, NOCMSG_BUILTIN_OPS + 100, -1};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        nocmsg_op op = unknown[i];
        t_case("operation %d", op);
        CHECK_RC(nocmsg_reduce(in, out, 2, NOCMSG_INT, op, 0, W), NOCMSG_ERR_OP);
        CHECK_RC(nocmsg_allreduce(in, out, 2, NOCMSG_INT, op, W), NOCMSG_ERR_OP);
        CHECK_RC(nocmsg_scan(in, out, 2, NOCMSG_INT, op, W), NOCMSG_ERR_OP);
    }
    /* Built-in operations on datatypes they are not defined on. */
    static const struct {
        nocmsg_op op;
        nocmsg_datatype type;
    } unsuitable[] = {
        {NOCMSG_SUM, NOCMSG_BYTE},       {NOCMSG_MAX, NOCMSG_BYTE},      {NOCMSG_BAND, NOCMSG_DOUBLE},
        {NOCMSG_BXOR, NOCMSG_FLOAT},     {NOCMSG_LAND, NOCMSG_DOUBLE},   {NOCMSG_LOR, NOCMSG_BYTE},
        {NOCMSG_MINLOC, NOCMSG_INT},     {NOCMSG_MAXLOC, NOCMSG_DOUBLE}, {NOCMSG_SUM, NOCMSG_DOUBLE_INT},
        {NOCMSG_MAX, NOCMSG_2INT},       {NOCMSG_BOR, NOCMSG_SHORT_INT},
    };
    for (size_t i = 0; i < sizeof unsuitable / sizeof unsuitable[0]; i++) {
        nocmsg_op op = unsuitable[i].op;
        nocmsg_datatype type = unsuitable[i].type;
        t_case("%s on %s", t_op_name(op), t_type_name(type));
        CHECK_RC(nocmsg_reduce(in, out, 1, type, op, 0, W), NOCMSG_ERR_OP);
        CHECK_RC(nocmsg_allreduce(in, out, 1, type, op, W), NOCMSG_ERR_OP);
        CHECK_RC(nocmsg_scan(in, out, 1, type, op, W), NOCMSG_ERR_OP);
        CHECK_RC(nocmsg_reduce_scatter(big, out, ones, type, op, W), NOCMSG_ERR_OP);
    }
    free(big);
    free(ones);
}

static void dummy_fn(void *in, void *inout, int *len, nocmsg_datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

static void freed_user_op(void)
{
    t_case("freed user operation");
    nocmsg_op op = NOCMSG_OP_NULL;
    CHECK_OK(nocmsg_op_create(dummy_fn, 1, &op));
    nocmsg_op stale = op;
    CHECK_OK(nocmsg_op_free(&op));
    int in[2] = {0, 0}, out[2];
    CHECK_RC(nocmsg_reduce(in, out, 2, NOCMSG_INT, stale, 0, NOCMSG_COMM_WORLD), NOCMSG_ERR_OP);
    CHECK_RC(nocmsg_allreduce(in, out, 2, NOCMSG_INT, stale, NOCMSG_COMM_WORLD), NOCMSG_ERR_OP);
    CHECK_RC(nocmsg_scan(in, out, 2, NOCMSG_INT, stale, NOCMSG_COMM_WORLD), NOCMSG_ERR_OP);
}

static void bad_counts(void)
{
    int buf[64] = {0}, out[64 * 64];
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    t_case("negative counts");
    CHECK_RC(nocmsg_bcast(buf, -1, NOCMSG_INT, 0, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_reduce(buf, out, -1, NOCMSG_INT, NOCMSG_SUM, 0, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_allreduce(buf, out, -3, NOCMSG_INT, NOCMSG_SUM, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_scan(buf, out, -1, NOCMSG_INT, NOCMSG_SUM, W), NOCMSG_ERR_COUNT);
    /* Counts every rank passes (the send count of gather, the receive count of scatter...). */
    CHECK_RC(nocmsg_gather(buf, -1, NOCMSG_INT, out, -1, NOCMSG_INT, 0, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_scatter(buf, -1, NOCMSG_INT, out, -1, NOCMSG_INT, 0, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_allgather(buf, -1, NOCMSG_INT, out, -1, NOCMSG_INT, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_alltoall(buf, -1, NOCMSG_INT, out, -1, NOCMSG_INT, W), NOCMSG_ERR_COUNT);
    if (t_size > 64)
        return;
    int counts[64], displs[64];
    for (int i = 0; i < t_size; i++)
        counts[i] = -1, displs[i] = 0;
    t_case("negative counts, v variants");
    CHECK_RC(nocmsg_gatherv(buf, -1, NOCMSG_INT, out, counts, displs, NOCMSG_INT, 0, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_scatterv(buf, counts, displs, NOCMSG_INT, out, -1, NOCMSG_INT, 0, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_allgatherv(buf, -1, NOCMSG_INT, out, counts, displs, NOCMSG_INT, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_alltoallv(buf, counts, displs, NOCMSG_INT, out, counts, displs, NOCMSG_INT, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_reduce_scatter(buf, out, counts, NOCMSG_INT, NOCMSG_SUM, W), NOCMSG_ERR_COUNT);
}

static void bad_comms(void)
{
    int buf[64] = {0}, out[64 * 64];
    nocmsg_comm freed = NOCMSG_COMM_NULL;
    CHECK_OK(nocmsg_comm_dup(NOCMSG_COMM_WORLD, &freed));
    nocmsg_comm stale = freed;
    CHECK_OK(nocmsg_comm_free(&freed));
    const nocmsg_comm bad[] = {NOCMSG_COMM_NULL, 12345, -7, stale};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nocmsg_comm c = bad[i];
        t_case("communicator %d", c);
        CHECK_RC(nocmsg_barrier(c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_bcast(buf, 1, NOCMSG_INT, 0, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_reduce(buf, out, 1, NOCMSG_INT, NOCMSG_SUM, 0, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_allreduce(buf, out, 1, NOCMSG_INT, NOCMSG_SUM, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_gather(buf, 1, NOCMSG_INT, out, 1, NOCMSG_INT, 0, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_scatter(buf, 1, NOCMSG_INT, out, 1, NOCMSG_INT, 0, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_allgather(buf, 1, NOCMSG_INT, out, 1, NOCMSG_INT, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_alltoall(buf, 1, NOCMSG_INT, out, 1, NOCMSG_INT, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_scan(buf, out, 1, NOCMSG_INT, NOCMSG_SUM, c), NOCMSG_ERR_COMM);
        int counts[1] = {1}, displs[1] = {0};
        CHECK_RC(nocmsg_reduce_scatter(buf, out, counts, NOCMSG_INT, NOCMSG_SUM, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_gatherv(buf, 1, NOCMSG_INT, out, counts, displs, NOCMSG_INT, 0, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_scatterv(buf, counts, displs, NOCMSG_INT, out, 1, NOCMSG_INT, 0, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_allgatherv(buf, 1, NOCMSG_INT, out, counts, displs, NOCMSG_INT, c), NOCMSG_ERR_COMM);
        CHECK_RC(nocmsg_alltoallv(buf, counts, displs, NOCMSG_INT, out, counts, displs, NOCMSG_INT, c),
                 NOCMSG_ERR_COMM);
    }
}

static void bad_types(void)
{
    int buf[64] = {0}, out[64 * 64];
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    const nocmsg_datatype bad[] = {NOCMSG_DATATYPE_NULL, NOCMSG_BASIC_DATATYPES, 999, -1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nocmsg_datatype t = bad[i];
        t_case("datatype %d", t);
        CHECK_RC(nocmsg_bcast(buf, 1, t, 0, W), NOCMSG_ERR_TYPE);
        CHECK_RC(nocmsg_reduce(buf, out, 1, t, NOCMSG_SUM, 0, W), NOCMSG_ERR_TYPE);
        CHECK_RC(nocmsg_allreduce(buf, out, 1, t, NOCMSG_SUM, W), NOCMSG_ERR_TYPE);
        CHECK_RC(nocmsg_scan(buf, out, 1, t, NOCMSG_BXOR, W), NOCMSG_ERR_TYPE);
        /* The send type every rank passes. */
        CHECK_RC(nocmsg_gather(buf, 1, t, out, 1, NOCMSG_INT, 0, W), NOCMSG_ERR_TYPE);
        CHECK_RC(nocmsg_allgather(buf, 1, t, out, 1, t, W), NOCMSG_ERR_TYPE);
        CHECK_RC(nocmsg_alltoall(buf, 1, t, out, 1, t, W), NOCMSG_ERR_TYPE);
        /* The receive type every rank passes. */
        CHECK_RC(nocmsg_scatter(buf, 1, NOCMSG_INT, out, 1, t, 0, W), NOCMSG_ERR_TYPE);
    }
}

static void bad_buffers(void)
{
    int buf[4] = {0}, out[4];
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    t_case("null buffers with a count");
    CHECK_RC(nocmsg_bcast(NULL, 4, NOCMSG_INT, 0, W), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_allreduce(NULL, out, 4, NOCMSG_INT, NOCMSG_SUM, W), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_allreduce(buf, NULL, 4, NOCMSG_INT, NOCMSG_SUM, W), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_scan(buf, NULL, 4, NOCMSG_INT, NOCMSG_SUM, W), NOCMSG_ERR_BUFFER);
    /* And with count 0 null buffers are fine. */
    t_case("null buffers with count 0");
    t_calls += 3;
    CHECK_OK(nocmsg_bcast(NULL, 0, NOCMSG_INT, 0, W));
    CHECK_OK(nocmsg_allreduce(NULL, NULL, 0, NOCMSG_INT, NOCMSG_SUM, W));
    CHECK_OK(nocmsg_allgather(NULL, 0, NOCMSG_INT, NULL, 0, NOCMSG_INT, W));
}

static void still_working(void)
{
    t_case("allreduce after the errors");
    int one = 1, sum = 0;
    t_calls += 2;
    CHECK_OK(nocmsg_allreduce(&one, &sum, 1, NOCMSG_INT, NOCMSG_SUM, NOCMSG_COMM_WORLD));
    CHECK(sum == t_size, "allreduce of 1 on every rank gave %d", sum);
    CHECK_OK(nocmsg_barrier(NOCMSG_COMM_WORLD));
    int flag = 1;
    nocmsg_status st;
    CHECK_OK(nocmsg_iprobe(NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &flag, &st));
    CHECK(flag == 0, "a message from rank %d with tag %d is waiting on WORLD", st.source, st.tag);
}

void test_errors(void)
{
    bad_roots();
    bad_ops();
    freed_user_op();
    bad_counts();
    bad_comms();
    bad_types();
    bad_buffers();
    still_working();
}
