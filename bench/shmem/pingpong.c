/* pingpong.c: NoCMsg's shared memory against messages (experiments/shmem_vs_msg.py). Pairs of cores exchange SIZE
 * bytes back and forth REPS times, all pairs at once:
 *   shm  through shared memory: run with --threads; pair p is threads 2p and 2p+1. Each side copies its message
 *        into a buffer the other reads, then raises a sequence flag (release); the other waits for the flag
 *        (acquire) and copies the message out;
 *   msg  through libnocmsg messages (the UDN port): run as separate processes; pair p is ranks 2p and 2p+1;
 *   xmsg the same through NoCMsg's non-flow-controlled transfers (nocmsg_xsend/nocmsg_xrecv): the receiver of each
 *        message is already waiting in nocmsg_xrecv or about to be (a ping-pong), so the sender streams at once.
 * Every pair prints `pingpong,MODE,PAIR,SIZE,REPS,CYCLES` (cycles of its first core from a common start to the
 * end of its last round trip).
 * Usage: pingpong.elf shm|msg|xmsg SIZE REPS [PAIRS] (shm: PAIRS, default 1, needs 2 PAIRS threads). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nocmsg.h"
#include "nocmsg_core.h"
#include "nocmsg_thread.h"

#define MAX_PAIRS 32

struct pair {
    /* Each direction's buffer, and the sequence number of the last message put there. */
    unsigned char *to_b, *to_a;
    volatile uint64_t seq_ab __attribute__((aligned(64)));
    volatile uint64_t seq_ba __attribute__((aligned(64)));
    uint64_t cycles;
} __attribute__((aligned(64)));

static struct pair pairs[MAX_PAIRS];
static long size, reps;
static int npairs;
static volatile uint64_t started __attribute__((aligned(64)));

static void start_barrier(int threads)
{
    __atomic_fetch_add(&started, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < (uint64_t)threads)
        ;
}

static void *shm_side(void *arg)
{
    int t = (int)(uintptr_t)arg, p = t / 2, a = t % 2 == 0;
    struct pair *pr = &pairs[p];
    unsigned char *mine = malloc((size_t)size + 1), *got = malloc((size_t)size + 1);
    if (!mine || !got) {
        printf("pingpong: no memory for %ld bytes\n", size);
        exit(1);
    }
    memset(mine, t, (size_t)size);
    start_barrier(2 * npairs);
    uint64_t t0 = nocmsg_cycles();
    for (long r = 1; r <= reps; r++) {
        if (a) {
            memcpy(pr->to_b, mine, (size_t)size);
            __atomic_store_n(&pr->seq_ab, (uint64_t)r, __ATOMIC_RELEASE);
            while (__atomic_load_n(&pr->seq_ba, __ATOMIC_ACQUIRE) != (uint64_t)r)
                ;
            memcpy(got, pr->to_a, (size_t)size);
        } else {
            while (__atomic_load_n(&pr->seq_ab, __ATOMIC_ACQUIRE) != (uint64_t)r)
                ;
            memcpy(got, pr->to_b, (size_t)size);
            memcpy(pr->to_a, mine, (size_t)size);
            __atomic_store_n(&pr->seq_ba, (uint64_t)r, __ATOMIC_RELEASE);
        }
    }
    if (a)
        pr->cycles = nocmsg_cycles() - t0;
    int ok = size == 0 || (got[0] == (unsigned char)(a ? t + 1 : t - 1) && got[size - 1] == got[0]);
    free(mine);
    free(got);
    return (void *)(uintptr_t)ok;
}

static int run_shm(void)
{
    int threads = nocmsg_thread_count();
    if (npairs < 1 || npairs > MAX_PAIRS || 2 * npairs > threads) {
        printf("pingpong shm: %d pairs need %d threads (run with --threads on at least that many cores)\n", npairs, 2 * npairs);
        return 2;
    }
    for (int p = 0; p < npairs; p++) {
        pairs[p].to_b = malloc((size_t)size + 1);
        pairs[p].to_a = malloc((size_t)size + 1);
        if (!pairs[p].to_b || !pairs[p].to_a) {
            printf("pingpong: no memory for %ld bytes\n", size);
            return 1;
        }
    }
    for (int t = 1; t < 2 * npairs; t++)
        if (nocmsg_thread_start(t, shm_side, (void *)(uintptr_t)t) != 0)
            return 1;
    int ok = (int)(uintptr_t)shm_side((void *)0);
    for (int t = 1; t < 2 * npairs; t++) {
        void *r;
        nocmsg_thread_join(t, &r);
        ok &= (int)(uintptr_t)r;
    }
    for (int p = 0; p < npairs; p++)
        printf("pingpong,shm,%d,%ld,%ld,%llu\n", p, size, reps, (unsigned long long)pairs[p].cycles);
    return ok ? 0 : 1;
}

static int run_msg(int *argc, char ***argv, int raw)
{
    nocmsg_init(argc, argv);
    int rank = nocmsg_rank(), n = nocmsg_size();
    if (n % 2) {
        if (rank == 0)
            printf("pingpong msg: an even number of ranks, please\n");
        return 2;
    }
    int peer = rank ^ 1, a = rank % 2 == 0;
    unsigned char *mine = malloc((size_t)size + 1), *got = malloc((size_t)size + 1);
    if (!mine || !got)
        return 1;
    memset(mine, rank, (size_t)size);
    nocmsg_barrier(NOCMSG_COMM_WORLD);
    uint64_t t0 = nocmsg_cycles();
    for (long r = 1; r <= reps; r++) {
        int tag = (int)(r & 0x7fff);
        if (raw && a) {
            nocmsg_xsend(mine, (int)size, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD);
            nocmsg_xrecv(got, (int)size, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
        } else if (raw) {
            nocmsg_xrecv(got, (int)size, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
            nocmsg_xsend(mine, (int)size, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD);
        } else if (a) {
            nocmsg_send(mine, (int)size, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD);
            nocmsg_recv(got, (int)size, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
        } else {
            nocmsg_recv(got, (int)size, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
            nocmsg_send(mine, (int)size, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD);
        }
    }
    uint64_t cycles = nocmsg_cycles() - t0;
    int ok = size == 0 || (got[0] == (unsigned char)peer && got[size - 1] == got[0]);
    if (a)
        printf("pingpong,%s,%d,%ld,%ld,%llu\n", raw ? "xmsg" : "msg", rank / 2, size, reps, (unsigned long long)cycles);
    nocmsg_finalize();
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "shm") && strcmp(argv[1], "msg") && strcmp(argv[1], "xmsg"))) {
        printf("usage: pingpong.elf shm|msg|xmsg SIZE REPS [PAIRS]\n");
        return 2;
    }
    size = strtol(argv[2], NULL, 10);
    reps = strtol(argv[3], NULL, 10);
    npairs = argc > 4 ? atoi(argv[4]) : 1;
    if (size < 0 || reps < 1) {
        printf("pingpong: bad SIZE or REPS\n");
        return 2;
    }
    if (strcmp(argv[1], "shm") == 0)
        return run_shm();
    return run_msg(&argc, &argv, strcmp(argv[1], "xmsg") == 0);
}
