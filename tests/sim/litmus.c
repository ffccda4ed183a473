/* litmus.c - litmus tests of the memory model a chip with caches promises (nocmsg run --threads; docs/shmem.md).
 * Threads 1 and 2 run each test many times; main (thread 0) resets the words before each iteration and counts the
 * outcomes after it. Argument: iterations per test (default 200).
 *
 *   SB (store buffering)  T1: x = 1; [fence]; r1 = y        T2: y = 1; [fence]; r2 = x
 *      r1 = r2 = 0 is allowed without the fences (stores are posted), forbidden with them.
 *   MP (message passing)  T1: data = 1; [fence]; flag = 1   T2: r1 = flag; [fence]; r2 = data
 *      r1 = 1, r2 = 0 is allowed without the fences, forbidden with them.
 *
 * Every shared word lies in a line of its own; iterations are separated by a barrier on an AMO counter, and each
 * thread waits a different number of cycles after it (sweeping their relative start), so that the bodies overlap
 * in every alignment. Prints the counts of every outcome; exits 1 if a forbidden one occurred. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <nocmsg_thread.h>

struct word {
    volatile uint64_t v;
} __attribute__((aligned(64)));

static struct word x, y, data, flag, r1, r2, arrived;
static int iterations = 200;
static volatile int test, fenced; /* test: 0 SB, 1 MP */

static void fence(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }

/* The three threads wait here until all have arrived `round` times. */
static void barrier(uint64_t round)
{
    __atomic_fetch_add(&arrived.v, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&arrived.v, __ATOMIC_ACQUIRE) < 3 * round)
        ;
}

/* About `n` x 4 cycles of nothing. */
static void delay(int n)
{
    for (volatile int k = 0; k < n; k++)
        ;
}

static void *tester(void *arg)
{
    int me = (int)(uintptr_t)arg;
    for (int i = 0; i < iterations; i++) {
        barrier(2 * (uint64_t)i + 1);
        delay(me == 1 ? i % 32 : (i / 32) % 32);
        if (test == 0) {
            if (me == 1) {
                x.v = 1;
                if (fenced)
                    fence();
                r1.v = y.v;
            } else {
                y.v = 1;
                if (fenced)
                    fence();
                r2.v = x.v;
            }
        } else if (me == 1) {
            data.v = 1;
            if (fenced)
                fence();
            flag.v = 1;
        } else {
            uint64_t f = flag.v;
            if (fenced)
                fence();
            uint64_t d = data.v;
            r1.v = f;
            r2.v = d;
        }
        barrier(2 * (uint64_t)i + 2);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        iterations = atoi(argv[1]);
    if (nocmsg_thread_count() < 3) {
        printf("litmus needs at least 3 cores with --threads\n");
        return 1;
    }
    static const char *names[2] = {"SB", "MP"};
    int forbidden = 0;
    for (int t = 0; t < 2; t++)
        for (int f = 0; f < 2; f++) {
            test = t;
            fenced = f;
            arrived.v = 0;
            x.v = y.v = data.v = flag.v = r1.v = r2.v = 0;
            fence();
            unsigned long counts[2][2] = {{0, 0}, {0, 0}};
            nocmsg_thread_start(1, tester, (void *)1);
            nocmsg_thread_start(2, tester, (void *)2);
            for (int i = 0; i < iterations; i++) {
                barrier(2 * (uint64_t)i + 1);
                barrier(2 * (uint64_t)i + 2);
                counts[r1.v & 1][r2.v & 1]++;
                x.v = y.v = data.v = flag.v = r1.v = r2.v = 0;
            }
            nocmsg_thread_join(1, NULL);
            nocmsg_thread_join(2, NULL);
            /* SB forbids (0,0) with fences; MP forbids (1,0). */
            unsigned long bad = t == 0 ? counts[0][0] : counts[1][0];
            if (f && bad)
                forbidden = 1;
            printf("%s %s: r1,r2 = 00:%lu 01:%lu 10:%lu 11:%lu; %s outcome %s %lu times\n", names[t],
                   f ? "with fences" : "without fences", counts[0][0], counts[0][1], counts[1][0], counts[1][1],
                   f ? "forbidden" : "relaxed", t == 0 ? "00" : "10", bad);
        }
    return forbidden;
}
