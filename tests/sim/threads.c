/* threads.c - threads sharing an address space (nocmsg run --threads, nocmsg_thread.h): every thread adds to a
 * counter with AMOs, to another with compare-and-swap (LR/SC), to a third under a mutex, fills its part of a shared array, works on an array on its stack
 * and on one from the heap; main joins them and checks what they left. The same output on every chip, core count
 * and hashing mode. Argument: rounds of counting (default 200). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nocmsg_thread.h>

#define SLOTS 64
#define LOCAL 256
#define STACK_PASSES 16

static int rounds = 200;

static volatile uint64_t atomic_count, cas_count;
static uint64_t locked_count;
static nocmsg_mutex_t lock = NOCMSG_MUTEX_INIT;
static uint64_t slots[SLOTS * 64];
static __thread int my_index = -1;

static void *work(void *arg)
{
    int self = (int)(uintptr_t)arg;
    my_index = self;
    for (int i = 0; i < rounds; i++) {
        __atomic_fetch_add(&atomic_count, 1, __ATOMIC_RELAXED);
        /* A compare-and-swap loop: LR/SC on RISC-V. */
        uint64_t seen = __atomic_load_n(&cas_count, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&cas_count, &seen, seen + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
        nocmsg_mutex_lock(&lock);
        locked_count++;
        nocmsg_mutex_unlock(&lock);
    }
    /* Its own slots, and memory from the shared heap. */
    for (int i = 0; i < SLOTS; i++)
        slots[self * SLOTS + i] = (uint64_t)self * 1000 + (uint64_t)i;
    char *p = malloc(2048 + (size_t)self);
    if (!p)
        return (void *)(uintptr_t)-1;
    int ok = 1;
    for (int pass = 0; pass < 4; pass++) {
        memset(p, self + pass, 2048 + (size_t)self);
        for (int i = 0; i < 2048 + self; i++)
            ok &= p[i] == (char)(self + pass);
    }
    free(p);
    /* Work on the stack. */
    volatile uint64_t local[LOCAL];
    uint64_t total = 0;
    for (int pass = 0; pass < STACK_PASSES; pass++) {
        for (int i = 0; i < LOCAL; i++)
            local[i] = (uint64_t)(i + pass + self);
        for (int i = 0; i < LOCAL; i++)
            total += local[i];
    }
    uint64_t want = 0;
    for (int pass = 0; pass < STACK_PASSES; pass++)
        want += (uint64_t)LOCAL * (uint64_t)(pass + self) + (uint64_t)LOCAL * (LOCAL - 1) / 2;
    ok &= total == want;
    return (void *)(uintptr_t)(ok && my_index == self ? 2 * self + 1 : 0);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atoi(argv[1]);
    int n = nocmsg_thread_count();
    printf("thread %d of %d\n", nocmsg_thread_self(), n);
    if (n > 64)
        n = 64;
    my_index = 0;
    for (int t = 1; t < n; t++)
        if (nocmsg_thread_start(t, work, (void *)(uintptr_t)t) != 0) {
            printf("thread %d did not start\n", t);
            return 1;
        }
    printf("started %d threads; starting thread 1 again fails: %d\n", n - 1, n > 1 ? nocmsg_thread_start(1, work, 0) : -1);
    work((void *)(uintptr_t)0);
    uint64_t returned = 0;
    for (int t = 1; t < n; t++) {
        void *r;
        if (nocmsg_thread_join(t, &r) != 0) {
            printf("thread %d did not join\n", t);
            return 1;
        }
        returned += (uint64_t)(uintptr_t)r;
    }
    uint64_t sum = 0;
    for (int i = 0; i < n * SLOTS; i++)
        sum += slots[i];
    uint64_t want_sum = 0;
    for (int t = 0; t < n; t++)
        for (int i = 0; i < SLOTS; i++)
            want_sum += (uint64_t)t * 1000 + (uint64_t)i;
    printf("cas %llu (want %llu)\n", (unsigned long long)cas_count, (unsigned long long)n * (unsigned long long)rounds);
    printf("atomic %llu (want %llu), locked %llu (want %llu), slots %s, returned %llu (want %llu), main's tls %d\n",
           (unsigned long long)atomic_count, (unsigned long long)n * (unsigned long long)rounds, (unsigned long long)locked_count,
           (unsigned long long)n * (unsigned long long)rounds, sum == want_sum ? "ok" : "WRONG", (unsigned long long)returned,
           (unsigned long long)(n - 1) * (n + 1), my_index);
    printf("joining thread 1 again fails: %d\n", n > 1 ? nocmsg_thread_join(1, NULL) : -1);
    return atomic_count == (uint64_t)n * (uint64_t)rounds && cas_count == (uint64_t)n * (uint64_t)rounds && locked_count == (uint64_t)n * (uint64_t)rounds && sum == want_sum && returned == (uint64_t)(n - 1) * (uint64_t)(n + 1) ? 0 : 1;
}
