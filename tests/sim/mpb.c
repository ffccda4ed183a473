/* The semantics of the mpb network interface (crates/chip/src/ni/mpb.rs), one scenario per argument, each printing
 * what a core observed; crates/cli/tests/mpb.rs runs them on chips/mpb-2x2.toml (4 cores on 2x2 routers) and checks
 * the output. Cores meet through flags in their MPBs; waits for "long enough" spin on the cycle counter, which is
 * exact on the simulator. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nocmsg_core.h"
#include "nocmsg_mpb.h"

static int me, n;

static volatile uint64_t *word(int rank, unsigned index) { return (volatile uint64_t *)nocmsg_mpb(rank) + index; }

static void spin_until(uint64_t cycle)
{
    while (nocmsg_cycles() < cycle) {
    }
}

/* Waits until word `index` of my MPB holds `value`, re-reading it from the MPB each time. */
static void wait_for(unsigned index, uint64_t value)
{
    for (;;) {
        nocmsg_mpb_invalidate();
        if (*word(me, index) == value) return;
    }
}

/* Sets word `index` of `rank`'s MPB and makes sure it has arrived. */
static void post(int rank, unsigned index, uint64_t value)
{
    *word(rank, index) = value;
    nocmsg_mpb_flush();
}

/* Every rank reaches here before any leaves: flags at word 100+r of rank 0, then a release at word 99 of each. */
static void barrier(uint64_t round)
{
    if (me == 0) {
        for (int r = 1; r < n; r++) wait_for(100 + r, round);
        for (int r = 1; r < n; r++) post(r, 99, round);
    } else {
        post(0, 100 + me, round);
        wait_for(99, round);
    }
}

/* A line read once stays cached: another core's later write is invisible until the reader invalidates. */
static void stale(void)
{
    if (me == 0) {
        uint64_t first = *word(1, 8);
        spin_until(20000);
        uint64_t cached = *word(1, 8);
        nocmsg_mpb_invalidate();
        uint64_t fresh = *word(1, 8);
        printf("stale: first %llu, without invalidating %llu, after invalidating %llu\n", (unsigned long long)first,
               (unsigned long long)cached, (unsigned long long)fresh);
    } else if (me == 1) {
        spin_until(10000);
        post(1, 8, 42);
    }
}

/* Stores wait in the one-line write-combining buffer until it is full, a store goes to another line, a load misses,
 * or the program flushes. Rank 1 looks at rank 0's stores at fixed times. */
static void wcb(void)
{
    if (me == 0) {
        spin_until(5000);
        *word(1, 16) = 1;        /* line A: stays in the buffer */
        spin_until(15000);
        *word(1, 24) = 2;        /* line B: pushes line A out */
        spin_until(25000);
        *word(1, 25) = 3;
        *word(1, 26) = 4;
        *word(1, 27) = 5;        /* line B full: out */
        spin_until(35000);
        *word(1, 32) = 6;        /* line C */
        nocmsg_mpb_invalidate();
        uint64_t own = *word(1, 32); /* a miss: the buffer goes out first, so the core reads its own store */
        spin_until(45000);
        *word(1, 40) = 7;
        nocmsg_mpb_flush();
        printf("wcb: rank 0 reads its own buffered store: %llu\n", (unsigned long long)own);
    } else if (me == 1) {
        static const uint64_t at[] = {10000, 20000, 30000, 40000, 50000};
        for (int i = 0; i < 5; i++) {
            spin_until(at[i]);
            nocmsg_mpb_invalidate();
            printf("wcb: at %llu rank 1 sees A=%llu B=%llu,%llu,%llu,%llu C=%llu D=%llu\n", (unsigned long long)at[i],
                   (unsigned long long)*word(1, 16), (unsigned long long)*word(1, 24), (unsigned long long)*word(1, 25),
                   (unsigned long long)*word(1, 26), (unsigned long long)*word(1, 27), (unsigned long long)*word(1, 32),
                   (unsigned long long)*word(1, 40));
        }
    }
}

/* Cycles of one load: measured around it, the cost of reading the cycle counter subtracted. */
static uint64_t load_cycles(volatile uint64_t *p)
{
    uint64_t t0 = nocmsg_cycles();
    uint64_t t1 = nocmsg_cycles();
    (void)*p;
    uint64_t t2 = nocmsg_cycles();
    return (t2 - t1) - (t1 - t0);
}

/* Local against remote transfers, by distance. */
static void latency(void)
{
    if (me != 0) return;
    nocmsg_mpb_invalidate();
    uint64_t local = load_cycles(word(0, 0));
    uint64_t hit = load_cycles(word(0, 0));
    uint64_t hop1 = load_cycles(word(1, 0));
    uint64_t hop2 = load_cycles(word(3, 0));
    *word(1, 0) = 9;
    uint64_t t0 = nocmsg_cycles();
    nocmsg_mpb_flush();
    uint64_t flush1 = nocmsg_cycles() - t0;
    uint64_t tas0 = nocmsg_cycles();
    (void)nocmsg_mpb_test_and_set(0);
    uint64_t tas_local = nocmsg_cycles() - tas0;
    tas0 = nocmsg_cycles();
    (void)nocmsg_mpb_test_and_set(3);
    uint64_t tas_remote = nocmsg_cycles() - tas0;
    printf("latency: hit %llu, local miss %llu, remote miss 1 hop %llu, 2 hops %llu, line write 1 hop %llu, "
           "test-and-set local %llu, 2 hops %llu\n",
           (unsigned long long)hit, (unsigned long long)local, (unsigned long long)hop1, (unsigned long long)hop2,
           (unsigned long long)flush1, (unsigned long long)tas_local, (unsigned long long)tas_remote);
}

/* Every core adds to a counter in rank 0's MPB under rank 0's test-and-set lock. */
static void lock(void)
{
    const int rounds = 50;
    barrier(1);
    for (int i = 0; i < rounds; i++) {
        while (nocmsg_mpb_test_and_set(0) != 0) {
        }
        nocmsg_mpb_invalidate();
        uint64_t v = *word(0, 64);
        *word(0, 64) = v + 1;
        nocmsg_mpb_flush();
        nocmsg_mpb_clear(0);
    }
    barrier(2);
    if (me == 0) {
        nocmsg_mpb_invalidate();
        printf("lock: counter %llu (expected %d)\n", (unsigned long long)*word(0, 64), rounds * n);
    }
}

/* Rank 0 writes a block of shared memory; then every core reads it at once, queueing at the controllers. */
static void shared(void)
{
    const unsigned words = 512; /* 4 KiB: one interleave block per controller on mpb-2x2 (4 KiB blocks) */
    volatile uint64_t *mem = nocmsg_shared();
    if (me == 0) {
        for (unsigned i = 0; i < words; i++) mem[i] = i * 3 + 1;
        nocmsg_mpb_flush();
    }
    barrier(1);
    nocmsg_mpb_invalidate();
    uint64_t t0 = nocmsg_cycles(), sum = 0;
    for (unsigned i = 0; i < words; i++) sum += mem[i];
    uint64_t took = nocmsg_cycles() - t0;
    barrier(2);
    printf("shared: rank %d read %u words (sum %llu) in %llu cycles\n", me, words, (unsigned long long)sum,
           (unsigned long long)took);
}

/* Waits until word `index` of `rank`'s MPB holds `value` (a remote poll unless `rank` shares my router). */
static void wait_at(int rank, unsigned index, uint64_t value)
{
    for (;;) {
        nocmsg_mpb_invalidate();
        if (*word(rank, index) == value) return;
    }
}

/* Pseudo-random delays from a per-rank seed: cores poll and write at uneven times, so polls and writes of one line
 * meet in every order (the polling cores the simulator lets sleep must wake exactly where spinning ones would). */
static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

static void storm(void)
{
    uint64_t rnd = 12345 + 977 * (uint64_t)me;
    for (uint64_t round = 1; round <= 30; round++) {
        /* Everyone waits for rank 0's go flag (a sibling on its router polls it locally, the others remotely). */
        if (me == 0) {
            spin_until(nocmsg_cycles() + next_random(&rnd) % 300);
            post(0, 300, round);
        } else {
            wait_at(0, 300, round);
        }
        /* A token ring with uneven delays: each rank polls its own MPB for the token. */
        if (me == 0) {
            post(1 % n, 200, round);
            wait_for(200, round);
        } else {
            wait_for(200, round);
            spin_until(nocmsg_cycles() + next_random(&rnd) % 200);
            post((me + 1) % n, 200, round);
        }
    }
    printf("storm: rank %d done\n", me);
}

/* 10 loads after invalidating (misses), then 5 of another word of the same, now cached, line (hits): the counters
 * must say so. */
static void counts(void)
{
    if (me != 0) return;
    uint64_t s = 0;
    for (int i = 0; i < 10; i++) {
        nocmsg_mpb_invalidate();
        s += *word(0, 0);
    }
    for (int i = 0; i < 5; i++) s += *word(0, 1);
    printf("counts: sum %llu\n", (unsigned long long)s);
}

/* Private memory behind the core's caches (chips with [memory.private]; the test's chip has a 1 KiB 2-way L1 and an
 * 8 KiB 4-way L2 of 32-byte lines). Rank 0 times one load by where its line is; then every rank writes a 64 KiB
 * buffer and reads it back, all at once: lines come from the controllers, and dirty ones go back. The buffers come
 * from the heap, which nothing has touched before. */
static void private_memory(void)
{
    enum { WORDS = 8192 };
    uint64_t *buf = (uint64_t *)(((uintptr_t)malloc(WORDS * 8 + 32) + 31) & ~(uintptr_t)31);
    if (me == 0) {
        uint64_t miss = load_cycles(&buf[0]);
        uint64_t l1 = load_cycles(&buf[1]);
        /* Lines 512 bytes apart share an L1 set (16 sets) but not an L2 set (64 sets): two more push the first out of
         * the L1 only. */
        (void)*(volatile uint64_t *)&buf[64];
        (void)*(volatile uint64_t *)&buf[128];
        uint64_t l2 = load_cycles(&buf[0]);
        printf("private: L1 hit %llu, L2 hit %llu, miss %llu\n", (unsigned long long)l1, (unsigned long long)l2,
               (unsigned long long)miss);
    }
    barrier(1);
    volatile uint64_t *v = buf;
    for (int i = 0; i < WORDS; i++) v[i] = (uint64_t)i * (uint64_t)(me + 1);
    uint64_t sum = 0;
    for (int i = 0; i < WORDS; i++) sum += v[i];
    printf("private: rank %d sum %llu\n", me, (unsigned long long)sum);
}

/* Every rank writes 64 KiB of its heap and exits at once: dirty lines are still on their way back to the controllers
 * when the last core stops. */
static void writeback_exit(void)
{
    volatile uint64_t *b = malloc(1 << 16);
    for (int i = 0; i < (1 << 13); i++) b[i] = (uint64_t)i;
}

/* Rank 1 polls a flag in its own MPB, each round loading three private lines that share one L1 set (of two ways),
 * so every round has L2 hits; rank 0 sets the flag late. */
static void poll_l2(void)
{
    static uint64_t arr[256];
    if (me == 1) {
        uint64_t s = 0;
        volatile uint64_t *a = arr;
        for (;;) {
            nocmsg_mpb_invalidate();
            s += a[0] + a[64] + a[128];
            if (*word(1, 3) == 7) break;
        }
        printf("poll-l2: rank 1 saw the flag (%llu)\n", (unsigned long long)s);
    } else if (me == 0) {
        spin_until(50000);
        post(1, 3, 7);
    }
}

/* A load into sp from a private line that is not cached, of an address below the stack: a stack overflow. */
static void sp_miss(void)
{
    uint64_t *slot = malloc(4096);
    slot[200] = (uint64_t)(uintptr_t)malloc(64);
    volatile uint64_t *big = malloc(1 << 16); /* evicts slot[200]'s line from the L2 */
    for (int i = 0; i < (1 << 13); i++) big[i] = 0;
    __asm__ volatile("mv t0, sp\n\tld sp, 0(%0)\n\tsd zero, 0(sp)\n\tmv sp, t0" ::"r"(&slot[200]) : "t0", "memory");
    printf("sp-miss: survived\n");
}

int main(int argc, char **argv)
{
    me = nocmsg_core_id();
    n = nocmsg_num_cores();
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "stale")) stale();
    else if (!strcmp(what, "wcb")) wcb();
    else if (!strcmp(what, "latency")) latency();
    else if (!strcmp(what, "lock")) lock();
    else if (!strcmp(what, "shared")) shared();
    else if (!strcmp(what, "counts")) counts();
    else if (!strcmp(what, "storm")) storm();
    else if (!strcmp(what, "private")) private_memory();
    else if (!strcmp(what, "writeback-exit")) writeback_exit();
    else if (!strcmp(what, "poll-l2")) poll_l2();
    else if (!strcmp(what, "sp-miss")) sp_miss();
    else if (!strcmp(what, "misaligned-private")) {
        char *p = malloc(4096);
        __asm__("" : "+r"(p)); /* GCC would split an access it knows to be misaligned */
        *(volatile uint64_t *)(p + 2048 + 4) = 1; /* a line nothing has touched */
    }
    else if (!strcmp(what, "deadlock")) {
        /* Rank 0 leaves; the others wait for a flag in their own MPB that nobody will set. */
        if (me != 0) wait_for(5, 1);
    }
    else if (!strcmp(what, "misaligned")) (void)*(volatile uint64_t *)((uintptr_t)nocmsg_mpb(1) + 4);
    else if (!strcmp(what, "unmapped")) (void)*(volatile uint64_t *)((uintptr_t)nocmsg_mpb(n));
#ifdef __riscv_atomic
    else if (!strcmp(what, "atomic")) __asm__ volatile("amoadd.d zero, %0, (%1)" ::"r"(1L), "r"(nocmsg_mpb(0)) : "memory");
#endif
    else {
        fprintf(stderr, "usage: mpb stale|wcb|latency|lock|shared|counts|storm|private|misaligned-private|writeback-exit|poll-l2|sp-miss|deadlock|misaligned|unmapped|atomic\n");
        return 2;
    }
    return 0;
}
