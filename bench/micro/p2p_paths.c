/*
 * p2p_paths.c: the round trip of one pair of ranks through each way a program can call blocking point-to-point on
 * a simulated chip, at sizes that are and are not whole 8-byte words, up to past the eager limit (512 B on PIMP).
 *
 * A program lands on a different path of the library depending on what the compiler can see at the call: with a
 * constant datatype, tag and MPI_COMM_WORLD, the inline fast path of nocmsg_inline.h (the count may be constant or
 * not); with a datatype or communicator the compiler cannot see (a user communicator from MPI_Comm_dup, a datatype
 * in a variable), the general inline path, which looks them up; with a misaligned buffer, the library's functions.
 * Each path is timed through libnocmsg (nocmsg_send/recv) and through MPI (MPI_Send/Recv), every call written out
 * in its loop as a program would write it, with:
 *     const        count, datatype and communicator constant (MPI_BYTE / NOCMSG_BYTE, world): the inline path
 *     var          count from the command line, MPI_BYTE, world
 *     var-int      count from the command line in MPI_INT, world (sizes that are whole ints)
 *     var-double   count from the command line in MPI_DOUBLE, world (sizes that are whole doubles)
 *     dup          count from the command line, MPI_BYTE, a communicator made by MPI_Comm_dup
 *     dup-double   the same in MPI_DOUBLE
 *     anytype      count and datatype (MPI_BYTE) from variables, world
 *     status       count from the command line, MPI_BYTE, world, receiving into an MPI_Status
 *     unaligned    count from the command line, MPI_BYTE, world, buffers one byte past an 8-byte boundary
 * The other ranks wait in MPI_Barrier all along (see main). CSV on rank 0:
 *     api,path,bytes,iterations,round_trip_cycles
 * where round_trip_cycles is the best of three repetitions of the mean over `iterations` round trips between rank
 * 0 and rank `peer`. Simulator only (cycles come from the core's cycle counter).
 *
 *   p2p_paths [peer] [iterations] [sizes]     peer -1 (default) is the last rank; sizes: comma-separated bytes
 *                                             (those of CONST_SIZES below; default 1,3,8,13,16,64,100,512,1024)
 *
 * bench/micro/p2p_paths.py runs it on pimp-4x4 and pimp-8x8 for `make bench` and prints the ratios issue 14 asks for.
 */
#ifndef NOCMSG_SIM
#error "p2p_paths.c measures simulated cycles: build it with bin/nocmsg-cc"
#endif
#include <mpi.h>
#include <nocmsg.h>
#include <nocmsg_core.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 7

/* MPI's communicators and basic datatypes are libnocmsg's handles, so the nocmsg loops can take MPI's. */
_Static_assert(MPI_BYTE == NOCMSG_BYTE && MPI_INT == NOCMSG_INT && MPI_DOUBLE == NOCMSG_DOUBLE &&
                   MPI_COMM_WORLD == NOCMSG_COMM_WORLD,
               "MPI and libnocmsg handles differ");

/* A value the compiler cannot see through: what a program reading its sizes and types at run time passes. */
static int opaque(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x;
}

static MPI_Comm dup_comm;
static unsigned char *buffer;
static MPI_Status last_status;

/* Defines `static uint64_t name(me, peer, iters, bytes, err)`: the best of three repetitions of `iters` round trips
 * (after one to warm up) in cycles, with SEND(p) and RECV(p) written out in the loop as a program would write them
 * (so the compiler sees what it would see there). `prelude` sets up b (the buffer), count, type and comm. */
#define PATH_FN(name, prelude, SEND, RECV)                                                                      \
    static uint64_t name(int me, int peer, int iters, int bytes, int *err)                                      \
    {                                                                                                           \
        void *b = buffer;                                                                                       \
        int count = opaque(bytes);                                                                              \
        MPI_Datatype type = MPI_BYTE;                                                                           \
        MPI_Comm comm = MPI_COMM_WORLD;                                                                         \
        prelude;                                                                                                \
        (void)type;                                                                                             \
        (void)comm;                                                                                             \
        (void)count;                                                                                            \
        uint64_t best = UINT64_MAX;                                                                             \
        int e = 0;                                                                                              \
        for (int rep = 0; rep < 3; rep++) {                                                                     \
            uint64_t t0 = 0;                                                                                    \
            for (int i = -1; i < iters; i++) {                                                                  \
                if (i == 0)                                                                                     \
                    t0 = nocmsg_cycles();                                                                       \
                if (me == 0) {                                                                                  \
                    e |= SEND(peer);                                                                            \
                    e |= RECV(peer);                                                                            \
                } else if (me == peer) {                                                                        \
                    e |= RECV(0);                                                                               \
                    e |= SEND(0);                                                                               \
                }                                                                                               \
            }                                                                                                   \
            uint64_t t = nocmsg_cycles() - t0;                                                                  \
            if (t < best)                                                                                       \
                best = t;                                                                                       \
        }                                                                                                       \
        *err |= e;                                                                                              \
        return best;                                                                                            \
    }

/* MPI: the buffer, count, type and communicator of the prelude; NCONST is a literal count. */
#define M_SEND(p) MPI_Send(b, count, type, p, TAG, comm)
#define M_RECV(p) MPI_Recv(b, count, type, p, TAG, comm, MPI_STATUS_IGNORE)
#define M_RECV_STATUS(p) MPI_Recv(b, count, type, p, TAG, comm, &last_status)
#define M_SEND_BYTE(p) MPI_Send(b, count, MPI_BYTE, p, TAG, MPI_COMM_WORLD)
#define M_RECV_BYTE(p) MPI_Recv(b, count, MPI_BYTE, p, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
#define M_RECV_BYTE_STATUS(p) MPI_Recv(b, count, MPI_BYTE, p, TAG, MPI_COMM_WORLD, &last_status)
#define M_SEND_INT(p) MPI_Send(b, count, MPI_INT, p, TAG, MPI_COMM_WORLD)
#define M_RECV_INT(p) MPI_Recv(b, count, MPI_INT, p, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
#define M_SEND_DOUBLE(p) MPI_Send(b, count, MPI_DOUBLE, p, TAG, MPI_COMM_WORLD)
#define M_RECV_DOUBLE(p) MPI_Recv(b, count, MPI_DOUBLE, p, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
#define M_SEND_CONST(p) MPI_Send(b, NCONST, MPI_BYTE, p, TAG, MPI_COMM_WORLD)
#define M_RECV_CONST(p) MPI_Recv(b, NCONST, MPI_BYTE, p, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
/* libnocmsg likewise (its communicators and basic datatypes are MPI's handles). */
#define N_SEND(p) nocmsg_send(b, count, type, p, TAG, comm)
#define N_RECV(p) nocmsg_recv(b, count, type, p, TAG, comm, NOCMSG_STATUS_IGNORE)
#define N_SEND_BYTE(p) nocmsg_send(b, count, NOCMSG_BYTE, p, TAG, NOCMSG_COMM_WORLD)
#define N_RECV_BYTE(p) nocmsg_recv(b, count, NOCMSG_BYTE, p, TAG, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE)
#define N_RECV_BYTE_STATUS(p) nocmsg_recv_status(b, count, p)
#define N_SEND_INT(p) nocmsg_send(b, count, NOCMSG_INT, p, TAG, NOCMSG_COMM_WORLD)
#define N_RECV_INT(p) nocmsg_recv(b, count, NOCMSG_INT, p, TAG, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE)
#define N_SEND_DOUBLE(p) nocmsg_send(b, count, NOCMSG_DOUBLE, p, TAG, NOCMSG_COMM_WORLD)
#define N_RECV_DOUBLE(p) nocmsg_recv(b, count, NOCMSG_DOUBLE, p, TAG, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE)
#define N_SEND_CONST(p) nocmsg_send(b, NCONST, NOCMSG_BYTE, p, TAG, NOCMSG_COMM_WORLD)
#define N_RECV_CONST(p) nocmsg_recv(b, NCONST, NOCMSG_BYTE, p, TAG, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE)

static __inline__ __attribute__((always_inline)) int nocmsg_recv_status(void *b, int count, int p)
{
    nocmsg_status st;
    int err = nocmsg_recv(b, count, NOCMSG_BYTE, p, TAG, NOCMSG_COMM_WORLD, &st);
    last_status.nocmsg_count = st.count_bytes;
    return err;
}

#define DUP comm = dup_comm
#define DOUBLES type = MPI_DOUBLE, count = opaque(bytes / 8)
#define INTS count = opaque(bytes / 4)
#define ANYTYPE type = opaque(MPI_BYTE)
#define UNALIGNED b = buffer + 1

PATH_FN(loop_mpi_var, , M_SEND_BYTE, M_RECV_BYTE)
PATH_FN(loop_mpi_var_int, INTS, M_SEND_INT, M_RECV_INT)
PATH_FN(loop_mpi_var_double, DOUBLES, M_SEND_DOUBLE, M_RECV_DOUBLE)
PATH_FN(loop_mpi_dup, DUP, M_SEND, M_RECV)
PATH_FN(loop_mpi_dup_double, DUP; DOUBLES, M_SEND, M_RECV)
PATH_FN(loop_mpi_anytype, ANYTYPE, M_SEND, M_RECV)
PATH_FN(loop_mpi_status, , M_SEND_BYTE, M_RECV_BYTE_STATUS)
PATH_FN(loop_mpi_unaligned, UNALIGNED, M_SEND_BYTE, M_RECV_BYTE)
PATH_FN(loop_nocmsg_var, , N_SEND_BYTE, N_RECV_BYTE)
PATH_FN(loop_nocmsg_var_int, INTS, N_SEND_INT, N_RECV_INT)
PATH_FN(loop_nocmsg_var_double, DOUBLES, N_SEND_DOUBLE, N_RECV_DOUBLE)
PATH_FN(loop_nocmsg_dup, DUP, N_SEND, N_RECV)
PATH_FN(loop_nocmsg_dup_double, DUP; DOUBLES, N_SEND, N_RECV)
PATH_FN(loop_nocmsg_anytype, ANYTYPE, N_SEND, N_RECV)
PATH_FN(loop_nocmsg_status, , N_SEND_BYTE, N_RECV_BYTE_STATUS)
PATH_FN(loop_nocmsg_unaligned, UNALIGNED, N_SEND_BYTE, N_RECV_BYTE)

/* The constant-count loops: one per size the benchmark can be asked for, so the count is a literal. */
#define CONST_SIZES(X) X(1) X(3) X(8) X(13) X(16) X(64) X(100) X(104) X(256) X(512) X(1024) X(2048) X(4096)
#define CONST_FNS(n)                                                                                            \
    PATH_FN(loop_mpi_const_##n, enum { NCONST = n }, M_SEND_CONST, M_RECV_CONST)                                    \
    PATH_FN(loop_nocmsg_const_##n, enum { NCONST = n }, N_SEND_CONST, N_RECV_CONST)
CONST_SIZES(CONST_FNS)

typedef uint64_t path_fn(int me, int peer, int iters, int bytes, int *err);

static uint64_t loop_mpi_const(int me, int peer, int iters, int bytes, int *err)
{
    switch (bytes) {
#define CASE(n)                                                                                                 \
    case n:                                                                                                     \
        return loop_mpi_const_##n(me, peer, iters, bytes, err);
        CONST_SIZES(CASE)
#undef CASE
    }
    *err = 1;
    return 0;
}

static uint64_t loop_nocmsg_const(int me, int peer, int iters, int bytes, int *err)
{
    switch (bytes) {
#define CASE(n)                                                                                                 \
    case n:                                                                                                     \
        return loop_nocmsg_const_##n(me, peer, iters, bytes, err);
        CONST_SIZES(CASE)
#undef CASE
    }
    *err = 1;
    return 0;
}

/* Each path: its name, the element size its counts are in, and its loops through libnocmsg and MPI. */
static const struct {
    const char *name;
    int element;
    path_fn *nocmsg, *mpi;
} paths[] = {
    {"const", 1, loop_nocmsg_const, loop_mpi_const},
    {"var", 1, loop_nocmsg_var, loop_mpi_var},
    {"var-int", 4, loop_nocmsg_var_int, loop_mpi_var_int},
    {"var-double", 8, loop_nocmsg_var_double, loop_mpi_var_double},
    {"dup", 1, loop_nocmsg_dup, loop_mpi_dup},
    {"dup-double", 8, loop_nocmsg_dup_double, loop_mpi_dup_double},
    {"anytype", 1, loop_nocmsg_anytype, loop_mpi_anytype},
    {"status", 1, loop_nocmsg_status, loop_mpi_status},
    {"unaligned", 1, loop_nocmsg_unaligned, loop_mpi_unaligned},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = argc > 1 ? atoi(argv[1]) : -1;
    if (peer < 0 || peer >= size)
        peer = size - 1;
    int iters = argc > 2 ? atoi(argv[2]) : 20;
    const char *list = argc > 3 ? argv[3] : "1,3,8,13,16,64,100,512,1024";
    int sizes[32], nsizes = 0, max_bytes = 0;
    for (const char *s = list; *s && nsizes < 32; s = strchr(s, ',') ? strchr(s, ',') + 1 : s + strlen(s)) {
        sizes[nsizes] = atoi(s);
        if (sizes[nsizes] > max_bytes)
            max_bytes = sizes[nsizes];
        nsizes++;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup_comm);
    /* The other ranks wait in a barrier meanwhile, as they do in a program that ends with one: their messages for
     * it reach rank 0 and the peer early and wait there, on the barrier's context. */
    if (me != 0 && me != peer)
        MPI_Barrier(MPI_COMM_WORLD);
    buffer = malloc((size_t)max_bytes + 16);
    memset(buffer, 1, (size_t)max_bytes + 16);
    if (me == 0)
        printf("api,path,bytes,iterations,round_trip_cycles\n");
    int failed = 0;
    for (int api = 0; api < 2 && size > 1; api++) {
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            for (int k = 0; k < nsizes; k++) {
                int bytes = sizes[k];
                if (bytes % paths[p].element)
                    continue;
                uint64_t best = (api ? paths[p].mpi : paths[p].nocmsg)(me, peer, iters, bytes, &failed);
                if (me == 0)
                    printf("%s,%s,%d,%d,%.1f\n", api ? "mpi" : "nocmsg", paths[p].name, bytes, iters,
                           (double)best / iters);
            }
        }
    }
    if (me == 0 || me == peer)
        MPI_Barrier(MPI_COMM_WORLD);
    if (failed)
        fprintf(stderr, "p2p_paths: rank %d: a send or receive failed (or a size has no constant case)\n", me);
    MPI_Comm_free(&dup_comm);
    free(buffer);
    MPI_Finalize();
    return failed ? 1 : 0;
}
