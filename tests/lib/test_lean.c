/*
 * test_lean.c: the shortcuts that blocking send and receive take while the progress engine is idle, which simulated
 * builds make inline (lib/include/nocmsg_inline.h) and the library takes on every port (lib/src/p2p.c, the lean
 * rendezvous in lib/src/engine.c):
 *   - sizes that are not whole 8-byte words and buffers that are not 8-byte aligned, on both ends, byte-exact: the
 *     bytes before and after the message in the receive buffer stay untouched, also when the buffer is larger;
 *   - the same through three doors: constant NOCMSG_COMM_WORLD and datatype (inline on simulated builds), a duplicate
 *     of WORLD and a datatype in a variable (the general inline path), and the library functions themselves;
 *   - the lean rendezvous of messages over the eager limit, and every place where it must hand over to the engine: a
 *     word from another rank while the receiver waits for the data or is in the middle of it, a message from the
 *     receiver while the sender waits for the clear-to-send, words arriving while the sender's way is full, a ring of
 *     blocking sends behind posted receives, wildcards;
 *   - messages queued on one communicator while fast receives run on another, and order kept on the same one.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { K_SIZES = 120, K_STOP_RX, K_STOP_TX, K_STREAM, K_RING, K_WILD, K_QUEUED, K_ORDER };

/* A value the compiler cannot see through, as a datatype or communicator read at run time would be. */
static int opaque(int x)
{
    volatile int v = x;
    return v;
}

enum door { DOOR_CONST, DOOR_GENERAL, DOOR_LIBRARY };

static int send_by(enum door door, const void *buf, int n, int dest, int tag, nocmsg_comm dup)
{
    if (door == DOOR_CONST)
        return nocmsg_send(buf, n, NOCMSG_BYTE, dest, 90, NOCMSG_COMM_WORLD);
    if (door == DOOR_GENERAL)
        return nocmsg_send(buf, n, opaque(NOCMSG_BYTE), dest, tag, dup);
    return (nocmsg_send)(buf, n, NOCMSG_BYTE, dest, tag, dup);
}

static int recv_by(enum door door, void *buf, int n, int source, int tag, nocmsg_comm dup, nocmsg_status *st)
{
    if (door == DOOR_CONST)
        return nocmsg_recv(buf, n, NOCMSG_BYTE, source, 90, NOCMSG_COMM_WORLD, st);
    if (door == DOOR_GENERAL)
        return nocmsg_recv(buf, n, opaque(NOCMSG_BYTE), source, tag, dup, st);
    return (nocmsg_recv)(buf, n, NOCMSG_BYTE, source, tag, dup, st);
}

/* Messages over the eager limit wait for their receive, so around the ring the odd ranks receive first (and a rank
 * alone, which would wait for itself, sends only small ones). */
#define RING_EXCHANGE(send_call, recv_call)                                                                     \
    do {                                                                                                        \
        if (t_rank % 2 == 0) {                                                                                  \
            CHECK_OK(send_call);                                                                                \
            CHECK_OK(recv_call);                                                                                \
        } else {                                                                                                \
            CHECK_OK(recv_call);                                                                                \
            CHECK_OK(send_call);                                                                                \
        }                                                                                                       \
    } while (0)

/* Sizes around the word and the eager limit, sent from and received at every offset pair below, into a buffer 9
 * bytes larger than the message, with 16 guard bytes before it and after its end. */
static void sizes_and_offsets(nocmsg_comm dup)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 9, 13, 15, 17, 31, 100, 511, 512, 513, 1000, 2051};
    static const int offsets[][2] = {{0, 0}, {1, 0}, {0, 3}, {5, 7}, {4, 4}};
    enum { MAX = 2051, SLACK = 9 };
    unsigned char *out = t_alloc(MAX + 8), *in = t_alloc(T_GUARD + 8 + MAX + SLACK + T_GUARD);
    for (int door = DOOR_CONST; door <= DOOR_LIBRARY; door++) {
        for (unsigned o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
            for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                int n = sizes[k], soff = offsets[o][0], roff = offsets[o][1];
                if (t_size == 1 && n > 512)
                    continue; /* a blocking send to itself over the eager limit would wait for ever, as MPI allows */
                int tag = 200 + (int)k;
                uint64_t key = t_key(K_SIZES, (uint64_t)(door * 100 + (int)o), (uint64_t)t_rank * 1000 + k);
                t_fill(out + soff, (size_t)n, key);
                memset(in, 0xa5, T_GUARD + 8 + MAX + SLACK + T_GUARD);
                unsigned char *at = in + T_GUARD + roff;
                nocmsg_status st;
                RING_EXCHANGE(send_by((enum door)door, out + soff, n, t_right, tag, dup),
                              recv_by((enum door)door, at, n + SLACK, t_left, tag, dup, &st));
                CHECK_STATUS(st, t_left, door == DOOR_CONST ? 90 : tag, n);
                CHECK(t_find_mismatch(at, (size_t)n,
                                      t_key(K_SIZES, (uint64_t)(door * 100 + (int)o),
                                            (uint64_t)t_left * 1000 + k)) == (size_t)-1,
                      "door %d, %d bytes from offset %d into offset %d: wrong payload", door, n, soff, roff);
                size_t bad = (size_t)-1;
                for (size_t i = 0; i < (size_t)(T_GUARD + roff) && bad == (size_t)-1; i++)
                    if (in[i] != 0xa5)
                        bad = i;
                for (size_t i = T_GUARD + (size_t)roff + (size_t)n; i < T_GUARD + 8 + MAX + SLACK + T_GUARD; i++)
                    if (in[i] != 0xa5 && bad == (size_t)-1)
                        bad = i;
                CHECK(bad == (size_t)-1, "door %d, %d bytes into offset %d: byte %ld outside the message written",
                      door, n, roff, (long)bad - (long)(T_GUARD + roff));
            }
        }
    }
    free(out);
    free(in);
}

/* Every basic type through the general inline path (its type in a variable, the communicator a duplicate and, once,
 * WORLD read at run time), with wildcards: the status names ranks of the communicator. */
static void general_types(nocmsg_comm dup)
{
    static const nocmsg_datatype types[] = {
        NOCMSG_BYTE,  NOCMSG_CHAR,  NOCMSG_SHORT, NOCMSG_INT,   NOCMSG_UNSIGNED, NOCMSG_LONG,      NOCMSG_INT8,
        NOCMSG_INT16, NOCMSG_INT32, NOCMSG_INT64, NOCMSG_FLOAT, NOCMSG_DOUBLE,   NOCMSG_FLOAT_INT, NOCMSG_DOUBLE_INT,
    };
    uint64_t out[8], in[8 + T_GUARD / 8];
    for (unsigned k = 0; k < sizeof types / sizeof types[0]; k++) {
        nocmsg_datatype type = opaque(types[k]);
        nocmsg_comm comm = k % 3 == 2 ? opaque(NOCMSG_COMM_WORLD) : dup;
        int size;
        CHECK_OK(nocmsg_type_size(type, &size));
        int n = 48 / size;
        nocmsg_status st;
        t_fill(out, (size_t)n * (size_t)size, t_key(K_WILD, (uint64_t)t_rank, k));
        t_set_guard(in, (size_t)n * (size_t)size);
        CHECK_OK(nocmsg_send(out, n, type, t_right, (int)k, comm));
        CHECK_OK(nocmsg_recv(in, n, type, k % 2 ? NOCMSG_ANY_SOURCE : t_left, k % 4 < 2 ? (int)k : NOCMSG_ANY_TAG,
                             comm, &st));
        CHECK_STATUS(st, t_left, (int)k, (size_t)n * (size_t)size);
        CHECK_PAYLOAD(in, (size_t)n * (size_t)size, t_key(K_WILD, (uint64_t)t_left, k));
        CHECK_GUARD(in, (size_t)n * (size_t)size);
    }
}

/* Rank 1 sends a large message to rank 0 while rank 2 sends it small ones: rank 0's lean receive of the large one
 * finds rank 2's words before or inside the data and hands over to the engine, which must sort both out. */
static void rendezvous_receiver_interrupted(void)
{
    if (t_size < 3)
        return;
    enum { SMALL = 6 };
    size_t big = T_MEDIUM;
    unsigned char *buf = t_alloc(big + T_GUARD);
    uint64_t small[3];
    nocmsg_status st;
    for (int round = 0; round < 3; round++) {
        t_barrier();
        if (t_rank == 1) {
            t_fill(buf, big, t_key(K_STOP_RX, 1, (uint64_t)round));
            CHECK_OK(nocmsg_send(buf, (int)big, NOCMSG_BYTE, 0, 7, NOCMSG_COMM_WORLD));
        } else if (t_rank == 2) {
            for (int i = 0; i < SMALL; i++) {
                t_fill(small, sizeof small, t_key(K_STOP_RX, 2, (uint64_t)(round * 100 + i)));
                CHECK_OK(nocmsg_send(small, 3, NOCMSG_UINT64, 0, 8, NOCMSG_COMM_WORLD));
            }
        } else if (t_rank == 0) {
            t_set_guard(buf, big);
            CHECK_OK(nocmsg_recv(buf, (int)big, NOCMSG_BYTE, 1, 7, NOCMSG_COMM_WORLD, &st));
            CHECK_STATUS(st, 1, 7, big);
            CHECK_PAYLOAD(buf, big, t_key(K_STOP_RX, 1, (uint64_t)round));
            CHECK_GUARD(buf, big);
            for (int i = 0; i < SMALL; i++) {
                CHECK_OK(nocmsg_recv(small, 3, NOCMSG_UINT64, 2, 8, NOCMSG_COMM_WORLD, &st));
                CHECK_PAYLOAD(small, sizeof small, t_key(K_STOP_RX, 2, (uint64_t)(round * 100 + i)));
            }
        }
    }
    free(buf);
}

/* Rank 0 sends a large message to rank 1, which first sends it a small one: the small one reaches rank 0 while its
 * lean send waits for the clear-to-send. */
static void rendezvous_sender_interrupted(void)
{
    if (t_size < 2 || t_rank > 1)
        return;
    size_t big = T_MEDIUM;
    unsigned char *buf = t_alloc(big + T_GUARD);
    uint64_t small = t_key(K_STOP_TX, 1, 0), got = 0;
    nocmsg_status st;
    if (t_rank == 0) {
        t_fill(buf, big, t_key(K_STOP_TX, 0, 0));
        CHECK_OK(nocmsg_send(buf, (int)big, NOCMSG_BYTE, 1, 11, NOCMSG_COMM_WORLD));
        CHECK_OK(nocmsg_recv(&got, 1, NOCMSG_UINT64, 1, 12, NOCMSG_COMM_WORLD, &st));
        CHECK(got == small, "the small message sent during the rendezvous is wrong");
    } else {
        nocmsg_request req;
        CHECK_OK(nocmsg_isend(&small, 1, NOCMSG_UINT64, 0, 12, NOCMSG_COMM_WORLD, &req));
        t_set_guard(buf, big);
        CHECK_OK(nocmsg_recv(buf, (int)big, NOCMSG_BYTE, 0, 11, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, 0, 11, big);
        CHECK_PAYLOAD(buf, big, t_key(K_STOP_TX, 0, 0));
        CHECK_GUARD(buf, big);
        CHECK_OK(nocmsg_wait(&req, NOCMSG_STATUS_IGNORE));
    }
    free(buf);
}

/* Rank 0 streams a large message to rank 1 while rank 2 floods rank 0 with small ones: rank 0's way to rank 1 is
 * full most of the time (rank 1 takes words at its own pace) and words keep arriving, so the rest of the data goes
 * through the engine while it drains them. */
static void rendezvous_stream_interrupted(void)
{
    if (t_size < 3 || t_rank > 2)
        return;
    enum { SMALL = 24 };
    size_t big = T_MEDIUM;
    unsigned char *buf = t_alloc(big + T_GUARD);
    uint64_t small[2];
    nocmsg_status st;
    if (t_rank == 0) {
        t_fill(buf, big, t_key(K_STREAM, 0, 0));
        CHECK_OK(nocmsg_send(buf, (int)big, NOCMSG_BYTE, 1, 13, NOCMSG_COMM_WORLD));
        for (int i = 0; i < SMALL; i++) {
            CHECK_OK(nocmsg_recv(small, 2, NOCMSG_UINT64, 2, 14, NOCMSG_COMM_WORLD, &st));
            CHECK_PAYLOAD(small, sizeof small, t_key(K_STREAM, 2, (uint64_t)i));
        }
    } else if (t_rank == 1) {
        t_set_guard(buf, big);
        CHECK_OK(nocmsg_recv(buf, (int)big, NOCMSG_BYTE, 0, 13, NOCMSG_COMM_WORLD, &st));
        CHECK_STATUS(st, 0, 13, big);
        CHECK_PAYLOAD(buf, big, t_key(K_STREAM, 0, 0));
        CHECK_GUARD(buf, big);
    } else {
        for (int i = 0; i < SMALL; i++) {
            t_fill(small, sizeof small, t_key(K_STREAM, 2, (uint64_t)i));
            CHECK_OK(nocmsg_send(small, 2, NOCMSG_UINT64, 0, 14, NOCMSG_COMM_WORLD));
        }
    }
    free(buf);
}

/* Every rank posts the receive of a large message from its left, then sends one to its right with a blocking send
 * and waits: each lean send meets the data of its left neighbour on the way (a correct program, which must not
 * deadlock however the sends interleave). Then the same with 2051 bytes from misaligned buffers. */
static void rendezvous_ring(void)
{
    size_t big = T_MEDIUM;
    unsigned char *out = t_alloc(big + 8), *in = t_alloc(big + 8 + T_GUARD);
    for (int round = 0; round < 2; round++) {
        size_t n = round ? 2051 : big, off = round ? 3 : 0;
        nocmsg_request req;
        nocmsg_status st;
        t_fill(out + off, n, t_key(K_RING, (uint64_t)t_rank, (uint64_t)round));
        t_set_guard(in + off, n);
        CHECK_OK(nocmsg_irecv(in + off, (int)n, NOCMSG_BYTE, t_left, 15, NOCMSG_COMM_WORLD, &req));
        CHECK_OK(nocmsg_send(out + off, (int)n, NOCMSG_BYTE, t_right, 15, NOCMSG_COMM_WORLD));
        CHECK_OK(nocmsg_wait(&req, &st));
        CHECK_STATUS(st, t_left, 15, n);
        CHECK_PAYLOAD(in + off, n, t_key(K_RING, (uint64_t)t_left, (uint64_t)round));
        CHECK_GUARD(in + off, n);
        t_barrier();
    }
    free(out);
    free(in);
}

/* Large messages received with wildcards, on WORLD and on a duplicate (whose status names its own ranks). */
static void rendezvous_wildcards(nocmsg_comm dup)
{
    if (t_size == 1)
        return; /* blocking sends to itself over the eager limit */
    size_t big = 3000;
    unsigned char *buf = t_alloc(big + T_GUARD), *out = t_alloc(big);
    for (int round = 0; round < 2; round++) {
        nocmsg_comm comm = round ? dup : NOCMSG_COMM_WORLD;
        nocmsg_status st;
        t_fill(out, big, t_key(K_WILD, (uint64_t)t_rank, (uint64_t)round + 50));
        t_set_guard(buf, big);
        RING_EXCHANGE(nocmsg_send(out, (int)big, NOCMSG_BYTE, t_right, 16 + round, comm),
                      nocmsg_recv(buf, (int)big, NOCMSG_BYTE, NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, comm, &st));
        CHECK_STATUS(st, t_left, 16 + round, big);
        CHECK_PAYLOAD(buf, big, t_key(K_WILD, (uint64_t)t_left, (uint64_t)round + 50));
        CHECK_GUARD(buf, big);
    }
    free(buf);
    free(out);
}

/* A message waiting on WORLD does not keep receives on a duplicate from the fast paths, nor the reverse, and
 * messages waiting on the duplicate are still received in order there. */
static void queued_elsewhere(nocmsg_comm dup)
{
    uint64_t a = t_key(K_QUEUED, (uint64_t)t_rank, 1), b = t_key(K_QUEUED, (uint64_t)t_rank, 2);
    uint64_t c = t_key(K_QUEUED, (uint64_t)t_rank, 3), got[3] = {0, 0, 0};
    size_t big = t_size > 1 ? 2000 : 500; /* a blocking send to itself must stay under the eager limit */
    unsigned char *buf = t_alloc(2000 + T_GUARD), *out = t_alloc(2000);
    nocmsg_status st;
    /* a on WORLD, then b and c (same tag) and a large one on the duplicate; all wait until everyone has sent. */
    CHECK_OK(nocmsg_send(&a, 1, NOCMSG_UINT64, t_right, 18, NOCMSG_COMM_WORLD));
    CHECK_OK(nocmsg_send(&b, 1, NOCMSG_UINT64, t_right, 19, dup));
    CHECK_OK(nocmsg_send(&c, 1, NOCMSG_UINT64, t_right, 19, dup));
    t_barrier();
    CHECK_OK(nocmsg_recv(&got[1], 1, NOCMSG_UINT64, t_left, 19, dup, &st));
    CHECK_OK(nocmsg_recv(&got[2], 1, NOCMSG_UINT64, t_left, 19, dup, &st));
    /* Fast receives on the duplicate while a is still queued on WORLD. */
    t_fill(out, big, t_key(K_QUEUED, (uint64_t)t_rank, 4));
    t_set_guard(buf, big);
    RING_EXCHANGE(nocmsg_send(out, (int)big, NOCMSG_BYTE, t_right, 20, dup),
                  nocmsg_recv(buf, (int)big, NOCMSG_BYTE, t_left, 20, dup, &st));
    CHECK_PAYLOAD(buf, big, t_key(K_QUEUED, (uint64_t)t_left, 4));
    CHECK_GUARD(buf, big);
    CHECK_OK(nocmsg_recv(&got[0], 1, NOCMSG_UINT64, t_left, 18, NOCMSG_COMM_WORLD, &st));
    CHECK(got[0] == t_key(K_QUEUED, (uint64_t)t_left, 1), "the message queued on WORLD is wrong");
    CHECK(got[1] == t_key(K_QUEUED, (uint64_t)t_left, 2) && got[2] == t_key(K_QUEUED, (uint64_t)t_left, 3),
          "messages queued on the duplicate came out of order");
    /* And a message queued on the duplicate keeps its place ahead of a later one with the same tag, whichever door
     * the receives take. */
    for (int door = DOOR_CONST; door <= DOOR_LIBRARY; door++) {
        uint64_t first = t_key(K_ORDER, (uint64_t)t_rank, (uint64_t)door), second = first + 1, x = 0, y = 0;
        nocmsg_comm comm = door == DOOR_CONST ? NOCMSG_COMM_WORLD : dup;
        CHECK_OK(send_by((enum door)door, &first, 8, t_right, 21, comm));
        t_barrier();
        CHECK_OK(send_by((enum door)door, &second, 8, t_right, 21, comm));
        CHECK_OK(recv_by((enum door)door, &x, 8, t_left, 21, comm, &st));
        CHECK_OK(recv_by((enum door)door, &y, 8, t_left, 21, comm, &st));
        CHECK(x == t_key(K_ORDER, (uint64_t)t_left, (uint64_t)door) && y == x + 1,
              "door %d: two messages with one tag received out of order", door);
    }
    free(buf);
    free(out);
}

void test_lean(void)
{
    nocmsg_comm dup;
    CHECK_OK(nocmsg_comm_dup(NOCMSG_COMM_WORLD, &dup));
    sizes_and_offsets(dup);
    general_types(dup);
    t_barrier();
    rendezvous_receiver_interrupted();
    t_barrier();
    rendezvous_sender_interrupted();
    t_barrier();
    rendezvous_stream_interrupted();
    t_barrier();
    rendezvous_ring();
    rendezvous_wildcards(dup);
    t_barrier();
    queued_elsewhere(dup);
    CHECK_OK(nocmsg_comm_free(&dup));
}
