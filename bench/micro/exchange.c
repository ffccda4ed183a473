/*
 * exchange.c: cycles of one pairwise exchange of B bytes between rank r and rank r ^ MASK, on every rank at once or
 * only on ranks 0 and MASK, from a common start (the time is the slowest rank's, best of three calls). It shows how
 * much the way between two partners holds: an exchange whose packets both go first only stays cheap while each
 * packet fits the way to a partner that is itself sending (docs/collectives.md, "Exchanges").
 *
 *   exchange MODE MASK all|one B[,B...]      (simulator only: nocmsg run --chip chips/pimp-8x8.toml exchange.elf ...)
 *
 * MODE:
 *   first    both partners send, then receive (nocmsg_send and nocmsg_recv on WORLD: the lean paths)
 *   ordered  the lower rank sends first, the higher one receives first
 *   coll     allreduce (recursive_doubling, SUM on ints) of B bytes on the partners' two-rank communicator: one
 *            exchange through the collectives' own point-to-point (coll_sendrecv), plus the reduction
 * Prints CSV on rank 0: mode,mask,active,bytes,cycles. B up to 4096.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nocmsg.h>
#include <nocmsg_core.h>

#define MAX_BYTES 4096
/* Nothing may reach a rank while it still exchanges: times are collected only this long after the start. */
#define WINDOW_CYCLES 40000

/* A barrier, then rank 0 names a start a little ahead and every rank waits for it (the cycle counters are global). */
static long common_start(void)
{
    long start = 0;
    nocmsg_barrier(NOCMSG_COMM_WORLD);
    if (nocmsg_rank() == 0)
        start = (long)nocmsg_cycles() + 2000;
    nocmsg_bcast(&start, 1, NOCMSG_LONG, 0, NOCMSG_COMM_WORLD);
    while ((long)nocmsg_cycles() < start)
        ;
    return start;
}

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    if (argc != 5) {
        if (nocmsg_rank() == 0)
            fprintf(stderr, "usage: exchange first|ordered|coll MASK all|one B[,B...]\n");
        nocmsg_finalize();
        return 2;
    }
    const char *mode = argv[1];
    int mask = atoi(argv[2]), all = strcmp(argv[3], "all") == 0, me = nocmsg_rank(), partner = me ^ mask;
    int active = (all || me == 0 || me == mask) && partner < nocmsg_size();
    nocmsg_comm pair;
    nocmsg_comm_split(NOCMSG_COMM_WORLD, active ? (me < partner ? me : partner) : nocmsg_size() + me, me, &pair);
    nocmsg_coll_set("allreduce", "recursive_doubling");
    static int out[MAX_BYTES / 4], in[MAX_BYTES / 4];
    if (me == 0)
        printf("mode,mask,active,bytes,cycles\n");
    for (char *s = strtok(argv[4], ","); s; s = strtok(NULL, ",")) {
        int bytes = atoi(s), wrong = 0;
        if (bytes < 0 || bytes > MAX_BYTES)
            continue;
        long best = -1;
        for (int call = 0; call < 4; call++) { /* the first one warms up */
            for (int i = 0; i < bytes / 4; i++)
                out[i] = me + i;
            long start = common_start();
            if (active) {
                if (strcmp(mode, "coll") == 0) {
                    nocmsg_allreduce(out, in, bytes / 4, NOCMSG_INT, NOCMSG_SUM, pair);
                } else if (strcmp(mode, "first") == 0 || me < partner) {
                    nocmsg_send(out, bytes, NOCMSG_BYTE, partner, 7, NOCMSG_COMM_WORLD);
                    nocmsg_recv(in, bytes, NOCMSG_BYTE, partner, 7, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
                } else {
                    nocmsg_recv(in, bytes, NOCMSG_BYTE, partner, 7, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
                    nocmsg_send(out, bytes, NOCMSG_BYTE, partner, 7, NOCMSG_COMM_WORLD);
                }
            }
            long cycles = (long)nocmsg_cycles() - start, slowest = 0;
            for (int i = 0; active && i < bytes / 4; i++)
                wrong |= in[i] != (strcmp(mode, "coll") == 0 ? me + partner + 2 * i : partner + i);
            while ((long)nocmsg_cycles() < start + WINDOW_CYCLES)
                ;
            nocmsg_reduce(&cycles, &slowest, 1, NOCMSG_LONG, NOCMSG_MAX, 0, NOCMSG_COMM_WORLD);
            if (call > 0 && (best < 0 || slowest < best))
                best = slowest;
        }
        int any_wrong = 0;
        nocmsg_reduce(&wrong, &any_wrong, 1, NOCMSG_INT, NOCMSG_LOR, 0, NOCMSG_COMM_WORLD);
        if (me == 0)
            printf("%s,%d,%s,%d,%ld%s\n", mode, mask, all ? "all" : "one", bytes, best, any_wrong ? ",wrong" : "");
    }
    nocmsg_comm_free(&pair);
    nocmsg_finalize();
    return 0;
}
