/*
 * pingpong.c: round-trip time versus message size, between neighbours (ranks 0 and 1) and between the farthest
 * pair (ranks 0 and size-1, the opposite corners of a mesh when ranks fill it row by row). Sizes are the powers of
 * two from 8 B to max_bytes and, in between, 1, 3, 13 and 100 B, which are not whole 8-byte words.
 *
 * One source, three builds: bin/nocmsg-cc (simulated chip: times in cycles), bin/nocmsg-cc-native (Linux: times
 * in nanoseconds), and mpicc -DPINGPONG_MPI (a production MPI, for comparison). Prints CSV on rank 0:
 *     pair,bytes,iterations,round_trip,unit
 * where round_trip is the best of a few repetitions of the mean over `iterations` round trips.
 *
 *   pingpong [max_bytes] [iterations]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PINGPONG_MPI
#include <mpi.h>
#define pp_send(b, n, to) MPI_Send(b, n, MPI_BYTE, to, 7, MPI_COMM_WORLD)
#define pp_recv(b, n, from) MPI_Recv(b, n, MPI_BYTE, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
static double pp_time(void) { return MPI_Wtime(); }
static const char *pp_unit = "ns";
static double pp_scale = 1e9;
#else
#include <nocmsg.h>
#define pp_send(b, n, to) nocmsg_send(b, n, NOCMSG_BYTE, to, 7, NOCMSG_COMM_WORLD)
#define pp_recv(b, n, from) nocmsg_recv(b, n, NOCMSG_BYTE, from, 7, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE)
#ifdef NOCMSG_SIM
#include <nocmsg_core.h>
/* Cycles, exactly: no conversion through the clock frequency. */
static double pp_time(void) { return (double)nocmsg_cycles(); }
static const char *pp_unit = "cycles";
static double pp_scale = 1;
#else
static double pp_time(void) { return nocmsg_wtime(); }
static const char *pp_unit = "ns";
static double pp_scale = 1e9;
#endif
#endif

/* The size after `bytes`: the next power of two from 8 up, or a smaller size of the odd ones. */
static int next_size(int bytes)
{
    static const int odd[] = {1, 3, 13, 100};
    int next = 8;
    while (next <= bytes)
        next *= 2;
    for (unsigned i = 0; i < sizeof odd / sizeof odd[0]; i++)
        if (odd[i] > bytes && odd[i] < next)
            next = odd[i];
    return next;
}

int main(int argc, char **argv)
{
#ifdef PINGPONG_MPI
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#else
    nocmsg_init(&argc, &argv);
    int me = nocmsg_rank(), size = nocmsg_size();
#endif
    int max_bytes = argc > 1 ? atoi(argv[1]) : 65536;
    int iters = argc > 2 ? atoi(argv[2]) : 100;
    unsigned char *buf = malloc((size_t)max_bytes + 8);
    memset(buf, 1, (size_t)max_bytes + 8);
    if (me == 0)
        printf("pair,bytes,iterations,round_trip,unit\n");
    const char *pairs[2] = {"neighbour", "far"};
    int peers[2] = {1, size - 1};
    for (int p = 0; p < 2 && size > 1; p++) {
        if (p == 1 && peers[1] == peers[0])
            break;
        int peer = peers[p];
        for (int bytes = 1; bytes <= max_bytes; bytes = next_size(bytes)) {
            int n = bytes >= 16384 ? (iters + 9) / 10 : iters;
            double best = 1e300;
            for (int rep = 0; rep < 3; rep++) {
                double t0 = 0;
                for (int i = -1; i < n; i++) {
                    if (i == 0)
                        t0 = pp_time();
                    if (me == 0) {
                        pp_send(buf, bytes, peer);
                        pp_recv(buf, bytes, peer);
                    } else if (me == peer) {
                        pp_recv(buf, bytes, 0);
                        pp_send(buf, bytes, 0);
                    }
                }
                double t = (pp_time() - t0) / n;
                if (t < best)
                    best = t;
            }
            if (me == 0)
                printf("%s,%d,%d,%.1f,%s\n", pairs[p], bytes, n, best * pp_scale, pp_unit);
        }
    }
    free(buf);
#ifdef PINGPONG_MPI
    MPI_Finalize();
#else
    nocmsg_finalize();
#endif
    return 0;
}
