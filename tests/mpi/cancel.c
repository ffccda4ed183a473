/* MPI_Cancel (MPI 3.1 section 3.8.4) of sends and receives: a send that no receive has matched is cancelled (the
 * receiver never sees it), one that has matched completes normally and the cancel fails, an unmatched receive is
 * cancelled, and MPI_Wait after MPI_Cancel returns while the receiver is busy elsewhere (here: blocked in a receive
 * of another message). Rank 0 sends to the last rank (itself on one rank).
 *
 * MPI lets an implementation fail every send cancel; nocmsg cancels unmatched sends, which is what this checks. Debian's
 * MPICH 4.0 does not (its cancel of an eager send fails, and its MPI_Wait on a cancelled rendezvous send waits for a
 * matching receive), so this program runs on nocmsg only (crates/cli/tests/mpi.rs, nocmsg_only!). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 100000 /* bytes: above every port's eager limit, so a rendezvous */

#define PROGRAM "cancel"
#include "check.h"

static int size, peer;

/* Rank 0 cancels `req` (a send of `tag` to peer) and says whether it was cancelled; on a cancelled send, the next
 * message of that tag the peer receives must be the one rank 0 sends after it, `second`. */
static void send_cancelled(MPI_Request *req, int tag, const char *what)
{
    MPI_Status st;
    int flag = -1, second = 7;
    if (rank == 0) {
        MPI_Cancel(req);
        MPI_Wait(req, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(flag == 1, what);
        MPI_Send(&flag, 1, MPI_INT, peer, 99, MPI_COMM_WORLD); /* go */
        MPI_Send(&second, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
    }
    if (rank == peer) {
        int go, got = -1;
        MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* A larger buffer, so a cancelled large message would fit too. */
        int *buf = malloc(BIG);
        MPI_Recv(buf, BIG / (int)sizeof(int), MPI_INT, 0, tag, MPI_COMM_WORLD, &st);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        got = buf[0];
        free(buf);
        CHECK(count == 1 && got == 7, "the receiver never sees a cancelled send");
    }
    report(what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    peer = size - 1;
    char *big = calloc(BIG, 1);
    int small[4] = {1, 2, 3, 4};
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag;

    if (rank == 0)
        MPI_Isend(small, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &req);
    send_cancelled(&req, 1, "an unmatched eager MPI_Isend is cancelled");

    if (rank == 0)
        MPI_Isend(big, BIG, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req);
    send_cancelled(&req, 2, "an unmatched rendezvous MPI_Isend is cancelled while the receiver waits elsewhere");

    if (rank == 0)
        MPI_Issend(small, 4, MPI_INT, peer, 3, MPI_COMM_WORLD, &req);
    send_cancelled(&req, 3, "an unmatched MPI_Issend is cancelled");

    int bsize = BIG + 2 * MPI_BSEND_OVERHEAD + 64;
    char *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    if (rank == 0)
        MPI_Ibsend(small, 4, MPI_INT, peer, 4, MPI_COMM_WORLD, &req);
    send_cancelled(&req, 4, "an unmatched eager MPI_Ibsend is cancelled");
    if (rank == 0)
        MPI_Ibsend(big, BIG, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &req);
    send_cancelled(&req, 5, "an unmatched rendezvous MPI_Ibsend is cancelled");
    void *detached;
    MPI_Buffer_detach(&detached, &bsize);
    free(bbuf);

    /* A persistent send: cancelled once, then started again and received. */
    MPI_Request pers = MPI_REQUEST_NULL;
    if (rank == 0) {
        MPI_Send_init(small, 4, MPI_INT, peer, 6, MPI_COMM_WORLD, &pers);
        MPI_Start(&pers);
    }
    send_cancelled(&pers, 6, "a started persistent send is cancelled");
    if (rank == 0) {
        small[0] = 11;
        MPI_Start(&pers);
        MPI_Wait(&pers, MPI_STATUS_IGNORE);
        MPI_Request_free(&pers);
    }
    if (rank == peer) {
        int got[4];
        MPI_Recv(got, 4, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got[0] == 11, "a persistent send started again after a cancel is delivered");
    }
    report("the persistent send started again is delivered");

    /* Sends that a receive has matched: the cancel fails and the message is the receiver's. */
    for (int n = 0; n < 2; n++) {
        int bytes = n ? BIG : 16;
        if (rank == 0) {
            memset(big, 5, bytes);
            MPI_Isend(big, bytes, MPI_CHAR, peer, 8, MPI_COMM_WORLD, &req);
        }
        if (rank == peer) {
            char *in = malloc(BIG);
            MPI_Recv(in, bytes, MPI_CHAR, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(in[bytes - 1] == 5, "a matched send is delivered");
            free(in);
            MPI_Send(&flag, 1, MPI_INT, 0, 98, MPI_COMM_WORLD); /* received */
        }
        if (rank == 0) {
            MPI_Recv(&flag, 1, MPI_INT, peer, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Cancel(&req);
            MPI_Wait(&req, &st);
            MPI_Test_cancelled(&st, &flag);
            CHECK(flag == 0, "the cancel of a matched send fails");
        }
        report(n ? "the cancel of a received rendezvous send fails" : "the cancel of a received eager send fails");
    }

    /* Messages of non-blocking sends carry a name for a cancel: a blocking receive takes them as any other, of any
     * length (0 bytes included), whether it comes first or the message does. */
    for (int bytes = 0; bytes <= 24; bytes += 12) {
        for (int late = 0; late < 2; late++) {
            char out[24], in[24];
            memset(out, bytes + late, sizeof out);
            memset(in, 0, sizeof in);
            int ready = 0;
            if (rank == peer && late)
                MPI_Send(&ready, 1, MPI_INT, 0, 11, MPI_COMM_WORLD); /* about to receive */
            if (rank == 0) {
                if (late)
                    MPI_Recv(&ready, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Isend(out, bytes, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &req);
                MPI_Barrier(MPI_COMM_WORLD);
            }
            if (rank == peer) {
                if (!late && peer != 0)
                    MPI_Barrier(MPI_COMM_WORLD);
                MPI_Recv(in, 24, MPI_CHAR, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st);
                if (late && peer != 0)
                    MPI_Barrier(MPI_COMM_WORLD);
                int count;
                MPI_Get_count(&st, MPI_CHAR, &count);
                CHECK(count == bytes && st.MPI_SOURCE == 0 && st.MPI_TAG == 10 && (!bytes || in[bytes - 1] == out[0]),
                      "a blocking receive takes a non-blocking send's message");
            }
            if (rank != 0 && rank != peer)
                MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0)
                MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
    report("messages of MPI_Isend of 0, 12 and 24 bytes reach MPI_Recv");

    /* Receives: an unmatched one is cancelled; MPI_Test completes it. */
    int r[2] = {0, 0};
    MPI_Irecv(r, 2, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    flag = 0;
    while (!flag)
        MPI_Test(&req, &flag, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag == 1, "an unmatched receive is cancelled");
    report("an unmatched MPI_Irecv is cancelled");

    free(big);
    if (rank == 0)
        printf("cancel: done\n");
    MPI_Finalize();
    return 0;
}
