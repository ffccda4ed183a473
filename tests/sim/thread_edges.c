/* thread_edges.c - the edges of threads (nocmsg run --threads), one scenario per argument, each a regression of
 * a review of issue 19's change:
 *   tls   main changes a thread-local variable, then starts a thread: the thread sees the initializer, not main's
 *         value (its block is made from the program's template, not copied from main's);
 *   late  a thread starts another after main has returned: refused (-1), and the run ends;
 *   exit  a thread calls exit(3) while main joins it: the join returns, and the run's status is 3;
 *   bad   a thread makes a thread call with an unreadable parameter block: it stops with a report, main's join
 *         returns with the value -1, and the run's status is SIGSYS's (159);
 *   dma   a thread reads a line while main's read() fills it, then checks it after a flag: never stale (the
 *         simulator's writes reach lines on their way to caches). Needs tests/programs/input.txt. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <nocmsg_semihost.h>
#include <nocmsg_thread.h>

static __thread int tls_value = 5;

static void *read_tls(void *a)
{
    (void)a;
    return (void *)(intptr_t)tls_value;
}

static void *leaf(void *a)
{
    (void)a;
    return 0;
}

static void *late_starter(void *a)
{
    (void)a;
    for (volatile int i = 0; i < 20000; i++)
        ;
    printf("a thread starting another after main returned: %d\n", nocmsg_thread_start(2, leaf, 0));
    return 0;
}

static void *exiter(void *a)
{
    (void)a;
    exit(3);
}

static void *bad_caller(void *a)
{
    (void)a;
    nocmsg_semihost(NOCMSG_SYS_THREAD_JOIN, (void *)0x10);
    return 0;
}

#define ITERS 100
static struct line {
    uint64_t x;
    char buf[56];
} __attribute__((aligned(64))) lines[ITERS];
static volatile int go = -1, done = -1, ack = -1;
static volatile uint64_t sink;
static int stale;

static void *dma_reader(void *a)
{
    (void)a;
    for (int i = 0; i < ITERS; i++) {
        while (__atomic_load_n(&go, __ATOMIC_ACQUIRE) != i)
            ;
        for (volatile int k = 0; k < i; k++) /* a delay that sweeps */
            ;
        sink += *(volatile uint64_t *)&lines[i].x; /* a miss: the line travels from its home */
        while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) != i)
            ;
        stale += memcmp(lines[i].buf, "The ", 4) != 0;
        __atomic_store_n(&ack, i, __ATOMIC_RELEASE);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "tls")) {
        tls_value = 100;
        void *r;
        if (nocmsg_thread_start(1, read_tls, 0) || nocmsg_thread_join(1, &r))
            return 1;
        printf("main's value %d, the thread's %d\n", tls_value, (int)(intptr_t)r);
        return 0;
    }
    if (!strcmp(what, "late")) {
        nocmsg_thread_start(1, late_starter, 0);
        printf("main returns\n");
        return 0;
    }
    if (!strcmp(what, "exit")) {
        void *r;
        nocmsg_thread_start(1, exiter, 0);
        printf("join: %d\n", nocmsg_thread_join(1, &r));
        return 0;
    }
    if (!strcmp(what, "bad")) {
        void *r;
        nocmsg_thread_start(1, bad_caller, 0);
        int rc = nocmsg_thread_join(1, &r);
        printf("join: %d, value %ld\n", rc, (long)(intptr_t)r);
        return 0;
    }
    if (!strcmp(what, "dma")) {
        for (int i = 0; i < ITERS; i++)
            lines[i].x = (uint64_t)i; /* homes the page at main's tile */
        int fd = open("tests/programs/input.txt", O_RDONLY);
        if (fd < 0)
            return 1;
        nocmsg_thread_start(1, dma_reader, 0);
        for (int i = 0; i < ITERS; i++) {
            __atomic_store_n(&go, i, __ATOMIC_RELEASE);
            lseek(fd, 0, SEEK_SET);
            if (read(fd, lines[i].buf, 4) != 4)
                return 1;
            __atomic_store_n(&done, i, __ATOMIC_RELEASE);
            while (__atomic_load_n(&ack, __ATOMIC_ACQUIRE) != i)
                ;
        }
        nocmsg_thread_join(1, 0);
        printf("stale after synchronisation: %d of %d\n", stale, ITERS);
        return 0;
    }
    printf("usage: thread_edges tls|late|exit|bad|dma\n");
    return 2;
}
