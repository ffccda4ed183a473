/* p2p_modes.c: point-to-point in every mode and with every completion call. Buffered (MPI_Bsend, MPI_Ibsend with
 * MPI_Buffer_attach/detach sized with MPI_BSEND_OVERHEAD), synchronous (MPI_Ssend, MPI_Issend, which cannot complete
 * before the receive is posted), ready (MPI_Rsend, MPI_Irsend after the receive is posted and a barrier); MPI_Probe
 * and MPI_Iprobe with MPI_ANY_SOURCE/MPI_ANY_TAG, then a receive of exactly MPI_Get_count elements; MPI_Cancel of a
 * receive that can never match; MPI_Waitany, MPI_Waitsome, MPI_Testany, MPI_Testsome, MPI_Testall (and what they
 * return once every request is inactive); MPI_Request_get_status; MPI_Request_free on a send; MPI_Sendrecv_replace;
 * persistent requests (MPI_Send_init, MPI_Recv_init, MPI_Start, MPI_Startall) reused; MPI_PROC_NULL as source and
 * destination; MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE; non-overtaking order of 100 messages of one tag, short and
 * long mixed; 64 KiB both ways at once with MPI_Isend/MPI_Irecv. Each rank sends to its right neighbour and
 * receives from its left (itself on one rank), on a duplicate of MPI_COMM_WORLD. Only rank 0 prints. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define SENTINEL (-31337)

static int rank, size, right, left;
static MPI_Comm comm;

/* MPICH declares MPI_STATUSES_IGNORE as a constant pointer and the status argument as an array, which gcc 12 flags
 * as a zero-size region (-Wstringop-overflow); reading the constant through a volatile keeps the warning away
 * without changing the call. */
static MPI_Status *volatile statuses_ignore;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL p2p_modes: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

static void say(const char *line)
{
    MPI_Barrier(comm);
    if (rank == 0) printf("p2p_modes: %s OK\n", line);
}

static int *buffer(int n)
{
    int *b = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    CHECK(b != NULL, "out of memory");
    for (int i = 0; i < n; i++) b[i] = SENTINEL;
    return b;
}

static int value(int r, int i) { return r * 100000 + i; }

static void fill(int *b, int n, int r)
{
    for (int i = 0; i < n; i++) b[i] = value(r, i);
}

static void expect_from(const int *b, int n, int r, const char *what)
{
    for (int i = 0; i < n; i++) CHECK(b[i] == value(r, i), "%s: [%d] = %d, expected %d", what, i, b[i], value(r, i));
}

static void buffered(void)
{
    const int n = 100, messages = 3;
    /* Room for all four messages: those of the first loop may still be in the buffer when Ibsend needs space. */
    int bytes = (messages + 1) * (n * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *attached = malloc((size_t)bytes);
    MPI_Buffer_attach(attached, bytes);
    int *out = buffer(n), *in = buffer(n);
    for (int m = 0; m < messages; m++) {
        fill(out, n, rank + m);
        MPI_Bsend(out, n, MPI_INT, right, m, comm); /* out may change right away: the message is buffered */
    }
    fill(out, n, -1);
    for (int m = 0; m < messages; m++) {
        MPI_Recv(in, n, MPI_INT, left, m, comm, MPI_STATUS_IGNORE);
        expect_from(in, n, left + m, "Bsend");
    }
    MPI_Request req;
    fill(out, n, rank + 7);
    MPI_Ibsend(out, n, MPI_INT, right, 9, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    fill(out, n, -1);
    MPI_Recv(in, n, MPI_INT, left, 9, comm, MPI_STATUS_IGNORE);
    expect_from(in, n, left + 7, "Ibsend");
    void *detached = NULL;
    int detached_bytes = -1;
    MPI_Buffer_detach(&detached, &detached_bytes);
    CHECK(detached == attached && detached_bytes == bytes, "Buffer_detach gave %d bytes back, attached %d",
          detached_bytes, bytes);
    free(attached);
    free(out);
    free(in);
    say("Bsend x3 and Ibsend through an attached buffer of 4 x (400 + MPI_BSEND_OVERHEAD) bytes, detached");
}

static void synchronous_and_ready(void)
{
    const int n = 50;
    int *out = buffer(n), *in = buffer(n);
    MPI_Request recv, send;
    fill(out, n, rank);

    /* Ssend after the receive is posted. */
    MPI_Irecv(in, n, MPI_INT, left, 1, comm, &recv);
    MPI_Ssend(out, n, MPI_INT, right, 1, comm);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    expect_from(in, n, left, "Ssend");

    /* Issend before the receive exists: not complete until the receiver posts it after the barrier. */
    int flag = 1;
    MPI_Issend(out, n, MPI_INT, right, 2, comm, &send);
    for (int k = 0; k < 5; k++) {
        MPI_Test(&send, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "Issend completed before any receive was posted");
    }
    MPI_Barrier(comm);
    for (int i = 0; i < n; i++) in[i] = SENTINEL;
    MPI_Recv(in, n, MPI_INT, left, 2, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    expect_from(in, n, left, "Issend");
    say("Ssend; Issend incomplete until the receive is posted");

    /* Ready sends: receive posted, barrier, then the send. */
    for (int i = 0; i < n; i++) in[i] = SENTINEL;
    MPI_Irecv(in, n, MPI_INT, left, 3, comm, &recv);
    MPI_Barrier(comm);
    MPI_Rsend(out, n, MPI_INT, right, 3, comm);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    expect_from(in, n, left, "Rsend");
    for (int i = 0; i < n; i++) in[i] = SENTINEL;
    MPI_Irecv(in, n, MPI_INT, left, 4, comm, &recv);
    MPI_Barrier(comm);
    MPI_Irsend(out, n, MPI_INT, right, 4, comm, &send);
    MPI_Request both[2] = {recv, send};
    MPI_Waitall(2, both, statuses_ignore);
    expect_from(in, n, left, "Irsend");
    free(out);
    free(in);
    say("Rsend and Irsend after the receive is posted");
}

/* Messages of a length only the sender knows: probe, size the buffer, receive exactly that. */
static void probing(void)
{
    for (int blocking = 1; blocking >= 0; blocking--) {
        int n = (rank % 5 + 1) * 7 + blocking, tag = 100 + rank;
        int *out = buffer(n);
        fill(out, n, rank);
        MPI_Request send;
        MPI_Isend(out, n, MPI_INT, right, tag, comm, &send);
        MPI_Status st;
        if (blocking) {
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        } else {
            int flag = 0;
            while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
        }
        int count = -1;
        MPI_Get_count(&st, MPI_INT, &count);
        int want = (left % 5 + 1) * 7 + blocking;
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 100 + left && count == want,
              "%s: source %d tag %d count %d, expected %d %d %d", blocking ? "Probe" : "Iprobe", st.MPI_SOURCE,
              st.MPI_TAG, count, left, 100 + left, want);
        int *in = buffer(count);
        MPI_Status got;
        MPI_Recv(in, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, comm, &got);
        int received = -1;
        MPI_Get_count(&got, MPI_INT, &received);
        CHECK(received == count && got.MPI_SOURCE == left && got.MPI_TAG == 100 + left, "receive after probe");
        expect_from(in, count, left, blocking ? "Probe" : "Iprobe");
        MPI_Wait(&send, MPI_STATUS_IGNORE);
        free(out);
        free(in);
    }
    say("Probe and Iprobe with MPI_ANY_SOURCE and MPI_ANY_TAG, then a receive of exactly Get_count INT");
}

static void cancel(void)
{
    int x = SENTINEL, cancelled = 0;
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 999, comm, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled && x == SENTINEL && req == MPI_REQUEST_NULL, "Cancel of an unmatched receive: cancelled=%d",
          cancelled);
    say("Cancel of a receive that cannot match, Wait, Test_cancelled");
}

/* Four receives from the left (tags 0..3), which sends them in the order 3 1 0 2 after a barrier; one completion
 * call per run. */
static void completions(void)
{
    static const char *names[] = {"Waitany", "Waitsome", "Testany", "Testsome", "Testall", "Waitall"};
    static const int order[4] = {3, 1, 0, 2};
    for (int how = 0; how < 6; how++) {
        int in[4], out[4], done[4] = {0, 0, 0, 0}, completed = 0;
        MPI_Request recv[4], send[4];
        for (int t = 0; t < 4; t++) {
            in[t] = SENTINEL;
            out[t] = rank * 10 + t;
            MPI_Irecv(&in[t], 1, MPI_INT, left, t, comm, &recv[t]);
        }
        MPI_Barrier(comm);
        for (int k = 0; k < 4; k++) MPI_Isend(&out[order[k]], 1, MPI_INT, right, order[k], comm, &send[k]);
        while (completed < 4) {
            int index = -1, flag = 0, outcount = 0, indices[4];
            MPI_Status st, sts[4];
            switch (how) {
            case 0:
                MPI_Waitany(4, recv, &index, &st);
                indices[0] = index, sts[0] = st, outcount = 1;
                break;
            case 1:
                MPI_Waitsome(4, recv, &outcount, indices, sts);
                CHECK(outcount >= 1, "Waitsome returned %d", outcount);
                break;
            case 2:
                MPI_Testany(4, recv, &index, &flag, &st);
                if (flag) indices[0] = index, sts[0] = st, outcount = 1;
                break;
            case 3:
                MPI_Testsome(4, recv, &outcount, indices, sts);
                break;
            case 4:
                MPI_Testall(4, recv, &flag, sts);
                if (flag)
                    for (int t = 0; t < 4; t++) indices[t] = t;
                outcount = flag ? 4 : 0;
                break;
            default:
                MPI_Waitall(4, recv, sts);
                for (int t = 0; t < 4; t++) indices[t] = t;
                outcount = 4;
            }
            for (int k = 0; k < outcount; k++) {
                int t = indices[k];
                CHECK(t >= 0 && t < 4 && !done[t], "%s: index %d", names[how], t);
                CHECK(sts[k].MPI_SOURCE == left && sts[k].MPI_TAG == t && in[t] == left * 10 + t,
                      "%s: request %d completed with source %d tag %d value %d", names[how], t, sts[k].MPI_SOURCE,
                      sts[k].MPI_TAG, in[t]);
                CHECK(recv[t] == MPI_REQUEST_NULL, "%s: completed request %d not set to MPI_REQUEST_NULL", names[how], t);
                done[t] = 1;
                completed++;
            }
        }
        /* With every request inactive: index MPI_UNDEFINED, outcount MPI_UNDEFINED, flag true. */
        int index = 0, flag = 0, outcount = 0, indices[4];
        MPI_Status st, sts[4];
        if (how == 0) {
            MPI_Waitany(4, recv, &index, &st);
            CHECK(index == MPI_UNDEFINED, "Waitany on null requests: index %d", index);
        } else if (how == 1) {
            MPI_Waitsome(4, recv, &outcount, indices, sts);
            CHECK(outcount == MPI_UNDEFINED, "Waitsome on null requests: outcount %d", outcount);
        } else if (how == 2) {
            MPI_Testany(4, recv, &index, &flag, &st);
            CHECK(flag && index == MPI_UNDEFINED, "Testany on null requests: flag %d index %d", flag, index);
        } else if (how == 3) {
            MPI_Testsome(4, recv, &outcount, indices, sts);
            CHECK(outcount == MPI_UNDEFINED, "Testsome on null requests: outcount %d", outcount);
        } else if (how == 4) {
            MPI_Testall(4, recv, &flag, sts);
            CHECK(flag, "Testall on null requests: flag %d", flag);
        }
        MPI_Waitall(4, send, statuses_ignore);
        if (rank == 0)
            printf("p2p_modes: %s completes 4 receives sent in the order 3 1 0 2, then on null requests OK\n",
                   names[how]);
    }
}

static void request_status_and_free(void)
{
    /* Request_get_status before the message exists (it is sent after the barrier), then until it completes; the
     * request stays allocated until Wait. */
    int x = SENTINEL, y = rank + 5, flag = 1;
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, left, 20, comm, &req);
    MPI_Request_get_status(req, &flag, &st);
    CHECK(!flag, "Request_get_status: complete before the message was sent");
    MPI_Barrier(comm);
    MPI_Send(&y, 1, MPI_INT, right, 20, comm);
    flag = 0;
    while (!flag) MPI_Request_get_status(req, &flag, &st);
    CHECK(req != MPI_REQUEST_NULL && st.MPI_SOURCE == left && st.MPI_TAG == 20 && x == left + 5,
          "Request_get_status: source %d tag %d value %d", st.MPI_SOURCE, st.MPI_TAG, x);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(req == MPI_REQUEST_NULL, "Wait after Request_get_status");
    say("Request_get_status false before the send, then true, request kept until Wait");

    /* Request_free on an active send: the message still arrives. */
    int *out = buffer(1000), *in = buffer(1000);
    fill(out, 1000, rank);
    MPI_Isend(out, 1000, MPI_INT, right, 21, comm, &req);
    MPI_Request_free(&req);
    CHECK(req == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
    MPI_Recv(in, 1000, MPI_INT, left, 21, comm, MPI_STATUS_IGNORE);
    expect_from(in, 1000, left, "send after Request_free");
    MPI_Barrier(comm); /* the right neighbour has received, so out is free */
    free(out);
    free(in);
    say("Request_free on an Isend of 1000 INT: the message still arrives");

    /* Sendrecv_replace. */
    int *b = buffer(300);
    fill(b, 300, rank);
    MPI_Sendrecv_replace(b, 300, MPI_INT, right, 22, left, 22, comm, &st);
    expect_from(b, 300, left, "Sendrecv_replace");
    free(b);
    say("Sendrecv_replace of 300 INT");
}

static void persistent(void)
{
    const int n = 64, iterations = 5;
    int *out = buffer(n), *in = buffer(n), *out2 = buffer(n), *in2 = buffer(n);
    MPI_Request reqs[2], extra[2];
    MPI_Recv_init(in, n, MPI_INT, left, 30, comm, &reqs[0]);
    MPI_Send_init(out, n, MPI_INT, right, 30, comm, &reqs[1]);
    MPI_Recv_init(in2, n, MPI_INT, left, 31, comm, &extra[0]);
    MPI_Send_init(out2, n, MPI_INT, right, 31, comm, &extra[1]);
    for (int it = 0; it < iterations; it++) {
        fill(out, n, rank + it);
        fill(out2, n, rank + 10 * it);
        MPI_Startall(2, reqs);
        MPI_Start(&extra[0]);
        MPI_Start(&extra[1]);
        MPI_Status st[2];
        MPI_Waitall(2, reqs, st);
        MPI_Wait(&extra[1], MPI_STATUS_IGNORE);
        MPI_Wait(&extra[0], MPI_STATUS_IGNORE);
        CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL && extra[0] != MPI_REQUEST_NULL,
              "a completed persistent request was set to MPI_REQUEST_NULL");
        CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 30, "persistent receive status");
        expect_from(in, n, left + it, "persistent Startall");
        expect_from(in2, n, left + 10 * it, "persistent Start");
    }
    for (int k = 0; k < 2; k++) {
        MPI_Request_free(&reqs[k]);
        MPI_Request_free(&extra[k]);
        CHECK(reqs[k] == MPI_REQUEST_NULL && extra[k] == MPI_REQUEST_NULL, "Request_free of a persistent request");
    }
    free(out);
    free(in);
    free(out2);
    free(in2);
    say("persistent Send_init/Recv_init, 5 rounds of Startall and of Start");
}

static void proc_null(void)
{
    int x = SENTINEL, count = -1;
    MPI_Status st;
    MPI_Send(&rank, 1, MPI_INT, MPI_PROC_NULL, 0, comm);
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(x == SENTINEL && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "Recv from MPI_PROC_NULL: value %d source %d tag %d count %d", x, st.MPI_SOURCE, st.MPI_TAG, count);
    MPI_Request reqs[2];
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 5, comm, &reqs[0]);
    MPI_Isend(&rank, 1, MPI_INT, MPI_PROC_NULL, 5, comm, &reqs[1]);
    MPI_Status sts[2];
    MPI_Waitall(2, reqs, sts);
    /* The status's source and tag are not checked here: MPICH before 4.2 returns 0 and 0 for a non-blocking
     * receive from MPI_PROC_NULL (pmodels/mpich issue 6805), the standard says MPI_PROC_NULL and MPI_ANY_TAG as
     * for the blocking receive above. */
    MPI_Get_count(&sts[0], MPI_INT, &count);
    CHECK(x == SENTINEL && count == 0, "Irecv from MPI_PROC_NULL: value %d count %d", x, count);
    MPI_Sendrecv(&rank, 1, MPI_INT, MPI_PROC_NULL, 0, &x, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &st);
    CHECK(x == SENTINEL && st.MPI_SOURCE == MPI_PROC_NULL, "Sendrecv with MPI_PROC_NULL");
    /* Probes of MPI_PROC_NULL find an empty message from MPI_PROC_NULL at once. */
    int flag = 0;
    count = -1;
    MPI_Iprobe(MPI_PROC_NULL, 6, comm, &flag, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "Iprobe of MPI_PROC_NULL: flag %d source %d tag %d count %d", flag, st.MPI_SOURCE, st.MPI_TAG, count);
    count = -1;
    MPI_Probe(MPI_PROC_NULL, 6, comm, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "Probe of MPI_PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
    say("MPI_PROC_NULL as destination and source (Send, Recv, Isend, Irecv, Sendrecv, Probe, Iprobe)");
}

/* 100 messages with one tag, every tenth of 2000 ints and the others of 1: they arrive in the order sent. */
static void ordering(void)
{
    const int messages = 100, large = 2000;
    int *small_out = buffer(messages), *large_out = buffer(large * 10), *in = buffer(large);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)messages);
    for (int m = 0; m < messages; m++) {
        if (m % 10 == 5) {
            int *b = large_out + large * (m / 10);
            for (int i = 0; i < large; i++) b[i] = rank * 1000 + m;
            MPI_Isend(b, large, MPI_INT, right, 40, comm, &reqs[m]);
        } else {
            small_out[m] = rank * 1000 + m;
            MPI_Isend(&small_out[m], 1, MPI_INT, right, 40, comm, &reqs[m]);
        }
    }
    for (int m = 0; m < messages; m++) {
        MPI_Status st;
        int count = -1;
        MPI_Recv(in, large, MPI_INT, m % 2 ? MPI_ANY_SOURCE : left, m % 3 ? MPI_ANY_TAG : 40, comm, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == (m % 10 == 5 ? large : 1) && in[0] == left * 1000 + m && in[count - 1] == left * 1000 + m,
              "message %d arrived as %d INT starting with %d", m, count, in[0]);
    }
    MPI_Waitall(messages, reqs, statuses_ignore);
    free(reqs);
    free(small_out);
    free(large_out);
    free(in);
    say("100 messages of one tag (every tenth 2000 INT) received in the order sent");
}

static void large_both_ways(void)
{
    const int n = 65536 / (int)sizeof(int);
    int *to_right = buffer(n), *to_left = buffer(n), *from_left = buffer(n), *from_right = buffer(n);
    fill(to_right, n, rank);
    fill(to_left, n, rank + 50);
    MPI_Request reqs[4];
    MPI_Irecv(from_left, n, MPI_INT, left, 50, comm, &reqs[0]);
    MPI_Irecv(from_right, n, MPI_INT, right, 51, comm, &reqs[1]);
    MPI_Isend(to_right, n, MPI_INT, right, 50, comm, &reqs[2]);
    MPI_Isend(to_left, n, MPI_INT, left, 51, comm, &reqs[3]);
    MPI_Waitall(4, reqs, statuses_ignore);
    expect_from(from_left, n, left, "64 KiB from the left");
    expect_from(from_right, n, right + 50, "64 KiB from the right");
    free(to_right);
    free(to_left);
    free(from_left);
    free(from_right);
    say("64 KiB to both neighbours at once with Isend/Irecv");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    statuses_ignore = MPI_STATUSES_IGNORE;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    buffered();
    synchronous_and_ready();
    probing();
    cancel();
    completions();
    request_status_and_free();
    persistent();
    proc_null();
    ordering();
    large_both_ways();
    MPI_Comm_free(&comm);
    if (rank == 0) printf("p2p_modes: done\n");
    MPI_Finalize();
    return 0;
}
