/* shmem.c: a shared-memory kernel for `nocmsg bench cores --threads` (simulation speed with caches and threads).
 * Every thread of the process updates and sums its own 4 KiB array (on its stack, which first-touch homing keeps in
 * the thread's L2), adds its sum to a shared total with an AMO and meets the others at a barrier on a shared
 * counter, ROUNDS times. Thread 0 prints the total. Argument: rounds (default 200). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <nocmsg_thread.h>

#define WORDS 512 /* 4 KiB per thread */
#define MAX_THREADS 64

static volatile uint64_t total __attribute__((aligned(64)));
static volatile uint64_t arrived __attribute__((aligned(64)));
static int rounds = 200, threads;

static void barrier(uint64_t k)
{
    __atomic_fetch_add(&arrived, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < k * (uint64_t)threads)
        ;
}

static void *work(void *arg)
{
    int t = (int)(uintptr_t)arg;
    uint64_t slice[WORDS];
    for (int i = 0; i < WORDS; i++)
        slice[i] = (uint64_t)(t * WORDS + i);
    for (int r = 0; r < rounds; r++) {
        uint64_t sum = 0;
        for (int i = 0; i < WORDS; i++) {
            uint64_t v = slice[i] * 3 + (uint64_t)r;
            slice[i] = v ^ (v >> 7);
            sum += slice[i];
        }
        __atomic_fetch_add(&total, sum & 0xffff, __ATOMIC_RELAXED);
        barrier((uint64_t)r + 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atoi(argv[1]);
    threads = nocmsg_thread_count();
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    for (int t = 1; t < threads; t++)
        if (nocmsg_thread_start(t, work, (void *)(uintptr_t)t) != 0)
            return 1;
    work((void *)0);
    for (int t = 1; t < threads; t++)
        nocmsg_thread_join(t, NULL);
    printf("shmem kernel: %d threads, %d rounds, total %llu\n", threads, rounds, (unsigned long long)total);
    return 0;
}
