/* Regression scenarios of the MPB collectives (lib/src/coll/bcast/scc.c), one per argument; each rank prints one
 * line, "<scenario> ok" or what went wrong. crates/cli/tests/scc_bcast.rs runs them on mpb-2x2.
 *
 *   wrap      a bcast of several chunks, 33,000 one-word bcasts from the same root (their 16-bit counts wrap past
 *             the count the first bcast left in its second slot), then several-chunk bcasts and an MPB reduce:
 *             an old slot entry must not be waited for (it hung)
 *   signals   33,000 MPB barriers, then a bcast of five chunks whose readers come late: the barriers' counts must
 *             not let the root reuse a slot its readers have not taken (it overwrote one)
 *   progress  rank 1 posts a receive and enters the barrier, rank 0 sends 64 KiB (rendezvous) and then enters it:
 *             the MPB barrier's wait must move the posted receive along (MPI's progress rule; it deadlocked)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nocmsg.h"

static int me, n;

static unsigned char byte_at(size_t i, int salt) { return (unsigned char)(i * 7 + (i >> 11) + (unsigned)salt); }

static int bcast_checked(size_t bytes, int salt, int late)
{
    unsigned char *buf = malloc(bytes);
    if (!buf)
        return 0;
    for (size_t i = 0; i < bytes; i++)
        buf[i] = me == 0 ? byte_at(i, salt) : 0;
    if (late && me != 0) {
        volatile long x = 0;
        for (long i = 0; i < 200000; i++)
            x += i;
    }
    int ok = nocmsg_bcast(buf, (int)bytes, NOCMSG_BYTE, 0, NOCMSG_COMM_WORLD) == NOCMSG_SUCCESS;
    for (size_t i = 0; i < bytes && ok; i++)
        ok = buf[i] == byte_at(i, salt);
    free(buf);
    return ok;
}

static int reduce_checked(int count)
{
    int *in = malloc((size_t)count * sizeof *in), *out = malloc((size_t)count * sizeof *out);
    if (!in || !out)
        return 0;
    for (int i = 0; i < count; i++)
        in[i] = me + i;
    int ok = nocmsg_reduce(in, out, count, NOCMSG_INT, NOCMSG_SUM, 0, NOCMSG_COMM_WORLD) == NOCMSG_SUCCESS;
    for (int i = 0; i < count && ok && me == 0; i++)
        ok = out[i] == n * (n - 1) / 2 + n * i;
    free(in);
    free(out);
    return ok;
}

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
    nocmsg_comm_size(NOCMSG_COMM_WORLD, &n);
    for (int a = 1; a < argc; a++) {
        const char *what = argv[a];
        int ok = 1;
        if (!strcmp(what, "wrap")) {
            nocmsg_coll_set("bcast", "mpb");
            nocmsg_coll_set("reduce", "mpb");
            ok &= bcast_checked(8192, 1, 0);
            long x = 0;
            for (long i = 0; i < 33000 && ok; i++) {
                x = me == 0 ? i : -1;
                ok &= nocmsg_bcast(&x, 1, NOCMSG_LONG, 0, NOCMSG_COMM_WORLD) == NOCMSG_SUCCESS && x == i;
            }
            ok &= bcast_checked(8192, 2, 0) && bcast_checked(5000, 3, 1) && reduce_checked(3000);
        } else if (!strcmp(what, "signals")) {
            nocmsg_coll_set("barrier", "mpb");
            nocmsg_coll_set("bcast", "mpb");
            for (long i = 0; i < 33000 && ok; i++)
                ok &= nocmsg_barrier(NOCMSG_COMM_WORLD) == NOCMSG_SUCCESS;
            ok &= bcast_checked(5 * 2048, 4, 1);
        } else if (!strcmp(what, "progress")) {
            nocmsg_coll_set("barrier", "mpb");
            int len = 65536;
            char *b = calloc((size_t)len, 1);
            nocmsg_request rq;
            if (me == 1)
                nocmsg_irecv(b, len, NOCMSG_BYTE, 0, 7, NOCMSG_COMM_WORLD, &rq);
            if (me == 0) {
                for (int i = 0; i < len; i++)
                    b[i] = (char)(i * 3);
                nocmsg_send(b, len, NOCMSG_BYTE, 1, 7, NOCMSG_COMM_WORLD);
            }
            nocmsg_barrier(NOCMSG_COMM_WORLD);
            if (me == 1) {
                nocmsg_wait(&rq, NOCMSG_STATUS_IGNORE);
                for (int i = 0; i < len && ok; i++)
                    ok = b[i] == (char)(i * 3);
            }
            free(b);
        } else {
            if (me == 0)
                fprintf(stderr, "regress: unknown scenario %s (wrap, signals, progress)\n", what);
            nocmsg_abort(NOCMSG_COMM_WORLD, 2);
        }
        nocmsg_coll_set("bcast", "auto");
        nocmsg_coll_set("reduce", "auto");
        nocmsg_coll_set("barrier", "auto");
        printf("%s %s\n", what, ok ? "ok" : "FAILED");
    }
    nocmsg_finalize();
    return 0;
}
