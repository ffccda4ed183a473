/* bench.c: RCCE's communication on an MPB chip, timed the way bench/micro/coll.c times libnocmsg's, for PIMP's
 * comparison (python -m experiments pimp-vs-mpb). Built with `bin/nocmsg-cc --chip CHIP --rcce`.
 *
 *     bench pingpong PARTNER ITERS SIZE...   round trips between UE 0 and UE PARTNER (RCCE_send, RCCE_recv)
 *     bench OP ITERS SIZE...                 OP: bcast (RCCE_bcast from UE 0), reduce, allreduce (RCCE_reduce
 *                                            to UE 0, RCCE_allreduce: SUM on RCCE_INT; SIZE in bytes, whole ints),
 *                                            alltoall (SIZE bytes per pair: n - 1 exchanges with partner ue ^ k,
 *                                            the lower UE sending first; a power of two UEs), barrier (SIZE 0)
 *
 * Every call starts at the same cycle on every UE (UE 0 names it, RCCE_bcast tells the others, each spins until
 * it), and a UE's time runs from there to the end of its call; the time printed is the max over UEs of each UE's
 * mean over ITERS calls, after one untimed call. Pingpong prints UE 0's mean round trip. The results are checked
 * once. Prints CSV with bench/micro/coll.c's fields:
 *     op,algorithm,chosen,ranks,bytes,root,iterations,sync,time,unit,xfer,status
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <RCCE.h>
#include <nocmsg_core.h>

static int me, n;

static void die(const char *msg)
{
    if (me == 0)
        fprintf(stderr, "bench: %s\n", msg);
    exit(2);
}

static long number(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || end == s || v < 0)
        die("arguments are non-negative integers: bench pingpong PARTNER ITERS SIZE... | bench OP ITERS SIZE...");
    return v;
}

/* The max over UEs of v, at UE 0. */
static long max_over_ues(long v)
{
    long out = v;
    RCCE_reduce((char *)&v, (char *)&out, 1, RCCE_LONG, RCCE_MAX, 0, RCCE_COMM_WORLD);
    return out;
}

/* A cycle all UEs will have reached: UE 0 names it `margin` ahead and tells the others. */
static uint64_t common_start(uint64_t margin)
{
    uint64_t start = nocmsg_cycles() + margin;
    RCCE_bcast((char *)&start, sizeof start, 0, RCCE_COMM_WORLD);
    while (nocmsg_cycles() < start) {
    }
    return start;
}

static unsigned char *sbuf, *rbuf;

static void alltoall(size_t bytes)
{
    memcpy(rbuf + (size_t)me * bytes, sbuf + (size_t)me * bytes, bytes);
    for (int k = 1; k < n; k++) {
        int p = me ^ k;
        if (me < p) {
            RCCE_send((char *)sbuf + (size_t)p * bytes, bytes, p);
            RCCE_recv((char *)rbuf + (size_t)p * bytes, bytes, p);
        } else {
            RCCE_recv((char *)rbuf + (size_t)p * bytes, bytes, p);
            RCCE_send((char *)sbuf + (size_t)p * bytes, bytes, p);
        }
    }
}

static void call(const char *op, size_t bytes)
{
    if (!strcmp(op, "bcast"))
        RCCE_bcast((char *)sbuf, bytes, 0, RCCE_COMM_WORLD);
    else if (!strcmp(op, "reduce"))
        RCCE_reduce((char *)sbuf, (char *)rbuf, (int)(bytes / sizeof(int)), RCCE_INT, RCCE_SUM, 0, RCCE_COMM_WORLD);
    else if (!strcmp(op, "allreduce"))
        RCCE_allreduce((char *)sbuf, (char *)rbuf, (int)(bytes / sizeof(int)), RCCE_INT, RCCE_SUM, RCCE_COMM_WORLD);
    else if (!strcmp(op, "alltoall"))
        alltoall(bytes);
    else
        RCCE_barrier(&RCCE_COMM_WORLD);
}

static unsigned char pattern(int ue, size_t i) { return (unsigned char)(ue * 37 + i * 11 + 5); }

/* Fills the buffers for op (the root's data for bcast; each UE's ints; each pair's block). */
static void fill(const char *op, size_t bytes)
{
    if (!strcmp(op, "reduce") || !strcmp(op, "allreduce")) {
        for (size_t i = 0; i < bytes / sizeof(int); i++)
            ((int *)sbuf)[i] = (int)(me + 3 * i);
    } else if (!strcmp(op, "alltoall")) {
        for (int d = 0; d < n; d++)
            for (size_t i = 0; i < bytes; i++)
                sbuf[(size_t)d * bytes + i] = pattern(me * 131 + d, i);
    } else {
        for (size_t i = 0; i < bytes; i++)
            sbuf[i] = me == 0 ? pattern(0, i) : 0;
    }
}

/* Whether the last call left the right result here. */
static int correct(const char *op, size_t bytes)
{
    if (!strcmp(op, "bcast")) {
        for (size_t i = 0; i < bytes; i++)
            if (sbuf[i] != pattern(0, i))
                return 0;
    } else if ((!strcmp(op, "reduce") && me == 0) || !strcmp(op, "allreduce")) {
        for (size_t i = 0; i < bytes / sizeof(int); i++)
            if (((int *)rbuf)[i] != (int)((long)n * (n - 1) / 2 + 3 * (long)i * n))
                return 0;
    } else if (!strcmp(op, "alltoall")) {
        for (int s = 0; s < n; s++)
            for (size_t i = 0; i < bytes; i++)
                if (rbuf[(size_t)s * bytes + i] != pattern(s * 131 + me, i))
                    return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    RCCE_init(&argc, &argv);
    me = RCCE_ue();
    n = RCCE_num_ues();
    if (argc < 4)
        die("usage: bench pingpong PARTNER ITERS SIZE... | bench bcast|reduce|allreduce|alltoall|barrier ITERS SIZE...");
    const char *op = argv[1];
    int ping = !strcmp(op, "pingpong");
    if (!ping && strcmp(op, "bcast") && strcmp(op, "reduce") && strcmp(op, "allreduce") && strcmp(op, "alltoall") &&
        strcmp(op, "barrier"))
        die("unknown operation (pingpong, bcast, reduce, allreduce, alltoall, barrier)");
    int partner = ping ? (int)number(argv[2]) : 0, first = ping ? 4 : 3;
    long iters = number(argv[ping ? 3 : 2]);
    if (iters < 1 || argc <= first - 1)
        die("ITERS must be at least 1");
    if (ping && (partner < 1 || partner >= n))
        die("PARTNER must be another UE");
    if (!strcmp(op, "alltoall") && (n & (n - 1)))
        die("alltoall needs a power of two UEs");
    size_t largest = 8;
    for (int i = first; i < argc; i++)
        largest = (size_t)number(argv[i]) > largest ? (size_t)number(argv[i]) : largest;
    size_t room = !strcmp(op, "alltoall") ? largest * (size_t)n : largest;
    sbuf = malloc(room);
    rbuf = malloc(room);
    if (!sbuf || !rbuf)
        die("out of memory");
    /* How long telling every UE a start takes, so that starts are named far enough ahead. */
    uint64_t t0 = nocmsg_cycles();
    common_start(0);
    uint64_t told = nocmsg_cycles() - t0, margin = 1000 + 2 * told;
    RCCE_bcast((char *)&margin, sizeof margin, 0, RCCE_COMM_WORLD);
    if (me == 0)
        printf("op,algorithm,chosen,ranks,bytes,root,iterations,sync,time,unit,xfer,status\n");
    for (int a = first; a < argc; a++) {
        size_t bytes = (size_t)number(argv[a]);
        if (ping) {
            uint64_t total = 0;
            int ok = 1;
            for (long i = -1; i < iters; i++) {
                fill("bcast", bytes);
                RCCE_barrier(&RCCE_COMM_WORLD);
                uint64_t s = nocmsg_cycles();
                if (me == 0) {
                    RCCE_send((char *)sbuf, bytes, partner);
                    RCCE_recv((char *)rbuf, bytes, partner);
                } else if (me == partner) {
                    RCCE_recv((char *)rbuf, bytes, 0);
                    RCCE_send((char *)rbuf, bytes, 0);
                }
                if (i >= 0)
                    total += nocmsg_cycles() - s;
                if (me == 0)
                    ok &= !memcmp(rbuf, sbuf, bytes);
            }
            if (me == 0)
                printf("pingpong,rcce,rcce,%d,%zu,%d,%ld,each,%.1f,cycles,-,%s\n", n, bytes, partner, iters,
                       (double)total / (double)iters, ok ? "ok" : "wrong");
            continue;
        }
        uint64_t total = 0;
        fill(op, bytes);
        for (long i = -1; i < iters; i++) {
            uint64_t start = common_start(margin);
            call(op, bytes);
            if (i >= 0)
                total += nocmsg_cycles() - start;
        }
        long worst = max_over_ues((long)(total * 10 / (uint64_t)iters));
        long wrong = max_over_ues(!correct(op, bytes));
        if (me == 0)
            printf("%s,rcce,rcce,%d,%zu,%s,%ld,each,%.1f,cycles,-,%s\n", op, n, !strcmp(op, "barrier") ? 0 : bytes,
                   !strcmp(op, "bcast") || !strcmp(op, "reduce") ? "0" : "-", iters, (double)worst / 10.0,
                   wrong ? "wrong" : "ok");
    }
    RCCE_finalize();
    return 0;
}
