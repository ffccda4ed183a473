/*
 * test_errors.c: invalid arguments come back as error codes, never as crashes, hangs or stray messages.
 *
 * Every bad call names a valid destination (the right neighbour) except for the one bad argument, so a call that
 * wrongly went through would leave a message behind; the final exchange receives with NOCMSG_ANY_TAG from the
 * left neighbour and must get the one message really sent.
 */
#include "check.h"

static void bad_ranks(void)
{
    int buf[4] = {0};
    nocmsg_request req = NOCMSG_REQUEST_NULL;
    nocmsg_status st;
    int flag = 0;
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, t_size, 0, W), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, -3, 0, W), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, NOCMSG_ANY_SOURCE, 0, W), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, 1 << 20, 0, W), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_ssend(buf, 1, NOCMSG_INT, t_size, 0, W), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_isend(buf, 1, NOCMSG_INT, t_size, 0, W, &req), NOCMSG_ERR_RANK);
    CHECK(req == NOCMSG_REQUEST_NULL, "a failed isend returned a request");
    CHECK_RC(nocmsg_issend(buf, 1, NOCMSG_INT, -3, 0, W, &req), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_recv(buf, 1, NOCMSG_INT, t_size, 0, W, &st), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_recv(buf, 1, NOCMSG_INT, -3, 0, W, &st), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_irecv(buf, 1, NOCMSG_INT, t_size + 7, 0, W, &req), NOCMSG_ERR_RANK);
    CHECK(req == NOCMSG_REQUEST_NULL, "a failed irecv returned a request");
    CHECK_RC(nocmsg_probe(t_size, 0, W, &st), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_iprobe(-3, 0, W, &flag, &st), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_sendrecv(buf, 1, NOCMSG_INT, t_size, 0, buf + 1, 1, NOCMSG_INT, t_left, 0, W, &st),
             NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_sendrecv(buf, 1, NOCMSG_INT, t_right, 0, buf + 1, 1, NOCMSG_INT, t_size, 0, W, &st),
             NOCMSG_ERR_RANK);
    /* COMM_SELF has exactly one rank. */
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, 1, 0, NOCMSG_COMM_SELF), NOCMSG_ERR_RANK);
}

static void bad_tags(void)
{
    int buf[4] = {0};
    nocmsg_request req = NOCMSG_REQUEST_NULL;
    nocmsg_status st;
    int flag = 0;
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, t_right, NOCMSG_ANY_TAG, W), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, t_right, -5, W), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, t_right, NOCMSG_TAG_UB + 1, W), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_ssend(buf, 1, NOCMSG_INT, t_right, -2, W), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_isend(buf, 1, NOCMSG_INT, t_right, NOCMSG_ANY_TAG, W, &req), NOCMSG_ERR_TAG);
    /* Regression: nocmsg_xchg posted its receive before finding the bad tag, then waited on it forever. */
    CHECK_RC(nocmsg_xchg(buf, buf + 1, 1, NOCMSG_INT, t_right, NOCMSG_ANY_TAG, 0, W, NULL), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_xchg(buf, buf + 1, 1, NOCMSG_INT, t_right, -5, 1, W, NULL), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_xchg(buf, buf + 1, 1, NOCMSG_INT, NOCMSG_ANY_SOURCE, 3, 0, W, NULL), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_issend(buf, 1, NOCMSG_INT, t_right, NOCMSG_TAG_UB + 1, W, &req), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_recv(buf, 1, NOCMSG_INT, t_left, -5, W, &st), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_recv(buf, 1, NOCMSG_INT, t_left, NOCMSG_TAG_UB + 1, W, &st), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_irecv(buf, 1, NOCMSG_INT, t_left, -2, W, &req), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_probe(t_left, -7, W, &st), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_iprobe(t_left, NOCMSG_TAG_UB + 1, W, &flag, &st), NOCMSG_ERR_TAG);
    CHECK_RC(nocmsg_sendrecv(buf, 1, NOCMSG_INT, t_right, NOCMSG_ANY_TAG, buf + 1, 1, NOCMSG_INT, t_left, 0, W, &st),
             NOCMSG_ERR_TAG);
    CHECK(req == NOCMSG_REQUEST_NULL, "a failed call returned a request");
}

static void bad_counts_buffers_types(void)
{
    int buf[4] = {0};
    nocmsg_request req = NOCMSG_REQUEST_NULL;
    nocmsg_status st;
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    CHECK_RC(nocmsg_send(buf, -1, NOCMSG_INT, t_right, 0, W), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_isend(buf, -100, NOCMSG_BYTE, t_right, 0, W, &req), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_recv(buf, -1, NOCMSG_INT, t_left, 0, W, &st), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_irecv(buf, -4, NOCMSG_INT, t_left, 0, W, &req), NOCMSG_ERR_COUNT);
    CHECK_RC(nocmsg_sendrecv_replace(buf, -1, NOCMSG_INT, t_right, 0, t_left, 0, W, &st), NOCMSG_ERR_COUNT);

    CHECK_RC(nocmsg_send(NULL, 4, NOCMSG_INT, t_right, 0, W), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_isend(NULL, 1, NOCMSG_BYTE, t_right, 0, W, &req), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_recv(NULL, 4, NOCMSG_INT, t_left, 0, W, &st), NOCMSG_ERR_BUFFER);
    CHECK_RC(nocmsg_irecv(NULL, 1, NOCMSG_INT, t_left, 0, W, &req), NOCMSG_ERR_BUFFER);

    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_DATATYPE_NULL, t_right, 0, W), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_BASIC_DATATYPES, t_right, 0, W), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_send(buf, 1, -1, t_right, 0, W), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_isend(buf, 1, 999, t_right, 0, W, &req), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_recv(buf, 1, 999, t_left, 0, W, &st), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_irecv(buf, 1, NOCMSG_DATATYPE_NULL, t_left, 0, W, &req), NOCMSG_ERR_TYPE);
    CHECK(req == NOCMSG_REQUEST_NULL, "a failed call returned a request");
}

static void bad_comms(void)
{
    int buf[4] = {0};
    nocmsg_request req = NOCMSG_REQUEST_NULL;
    nocmsg_status st;
    int flag = 0, n = 0;
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, 0, 0, NOCMSG_COMM_NULL), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, 0, 0, 12345), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_send(buf, 1, NOCMSG_INT, 0, 0, -7), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_isend(buf, 1, NOCMSG_INT, 0, 0, 999, &req), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_recv(buf, 1, NOCMSG_INT, 0, 0, 999, &st), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_irecv(buf, 1, NOCMSG_INT, 0, 0, NOCMSG_COMM_NULL, &req), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_probe(0, 0, NOCMSG_COMM_NULL, &st), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_iprobe(0, 0, 4711, &flag, &st), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_comm_rank(NOCMSG_COMM_NULL, &n), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_comm_size(12345, &n), NOCMSG_ERR_COMM);
    CHECK_RC(nocmsg_comm_world_rank(-7, 0, &n), NOCMSG_ERR_COMM);
    CHECK(req == NOCMSG_REQUEST_NULL, "a failed call returned a request");
}

static void bad_pointers(void)
{
    int buf[4] = {0};
    nocmsg_status st;
    nocmsg_request req = NOCMSG_REQUEST_NULL;
    int n = 0;
    const nocmsg_comm W = NOCMSG_COMM_WORLD;
    CHECK_RC(nocmsg_comm_rank(W, NULL), NOCMSG_ERR_ARG);
    CHECK_RC(nocmsg_comm_size(W, NULL), NOCMSG_ERR_ARG);
    CHECK_RC(nocmsg_comm_world_rank(W, 0, NULL), NOCMSG_ERR_ARG);
    CHECK_RC(nocmsg_comm_world_rank(W, t_size, &n), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_comm_world_rank(W, -1, &n), NOCMSG_ERR_RANK);
    CHECK_RC(nocmsg_iprobe(t_left, 0, W, NULL, &st), NOCMSG_ERR_ARG);
    CHECK_RC(nocmsg_test(&req, NULL, &st), NOCMSG_ERR_ARG);
    CHECK_RC(nocmsg_testall(1, &req, NULL, &st), NOCMSG_ERR_ARG);
    CHECK_RC(nocmsg_waitany(1, &req, NULL, &st), NOCMSG_ERR_ARG);
    /* A null request pointer (not a null request): nocmsg.h does not say whether that is ERR_ARG or ERR_REQUEST. */
    CHECK_RC2(nocmsg_isend(buf, 1, NOCMSG_INT, t_right, 0, W, NULL), NOCMSG_ERR_ARG, NOCMSG_ERR_REQUEST);
    CHECK_RC2(nocmsg_irecv(buf, 1, NOCMSG_INT, t_left, 0, W, NULL), NOCMSG_ERR_ARG, NOCMSG_ERR_REQUEST);
    CHECK_RC2(nocmsg_wait(NULL, &st), NOCMSG_ERR_ARG, NOCMSG_ERR_REQUEST);
    CHECK_RC2(nocmsg_request_free(NULL), NOCMSG_ERR_ARG, NOCMSG_ERR_REQUEST);
    CHECK_RC(nocmsg_comm_dup(W, NULL), NOCMSG_ERR_ARG);
    CHECK_RC(nocmsg_comm_free(NULL), NOCMSG_ERR_ARG);
}

void test_errors(void)
{
    bad_ranks();
    bad_tags();
    bad_counts_buffers_types();
    bad_comms();
    bad_pointers();

    /* The library still works, and none of the bad calls sent anything: from the left neighbour, the first message
     * with any tag is the one sent now. */
    uint32_t out[2] = {0xfeedbeef, (uint32_t)t_rank}, in[2] = {0, 0};
    nocmsg_request req;
    nocmsg_status st;
    CHECK_OK(nocmsg_isend(out, 2, NOCMSG_UINT32, t_right, 1234, NOCMSG_COMM_WORLD, &req));
    CHECK_OK(nocmsg_recv(in, 2, NOCMSG_UINT32, t_left, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, t_left, 1234, sizeof in);
    CHECK(in[0] == 0xfeedbeef && in[1] == (uint32_t)t_left, "after the error calls got {0x%x, %u}", (unsigned)in[0],
          (unsigned)in[1]);
    CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));
}
