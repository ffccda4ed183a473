/*
 * sleep.c: sleep, usleep and nanosleep pass simulated time on the calling core (runtime/posix.c). Each line gives
 * what a call returned and the simulated microseconds it took, measured with clock_gettime; golden output in
 * tests/sim/sleep.expected. `sleep long` adds sleeps of whole seconds (too long for debug clocking); `sleep order`
 * has core r sleep (40 - 10 r) microseconds before saying it is awake, so the lines come out in that order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nocmsg_core.h>

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#define TIMED(label, call)                                                                                          \
    do {                                                                                                            \
        errno = 0;                                                                                                  \
        uint64_t t0 = now_ns();                                                                                     \
        long rc = (long)(call);                                                                                     \
        int e = errno;                                                                                              \
        uint64_t us = (now_ns() - t0) / 1000;                                                                       \
        printf("%-28s rc %ld%s, %llu us\n", label, rc, e == EINVAL ? " EINVAL" : e == EFAULT ? " EFAULT" : "",     \
               (unsigned long long)us);                                                                             \
    } while (0)

static struct timespec ts(long s, long ns)
{
    struct timespec t = {.tv_sec = s, .tv_nsec = ns};
    return t;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "short";
    if (!strcmp(mode, "order")) {
        int me = nocmsg_core_id();
        usleep((useconds_t)(40 - 10 * me));
        printf("core %d awake\n", me);
        return 0;
    }
    struct timespec t;
    t = ts(0, 15000);
    TIMED("nanosleep 15 us", nanosleep(&t, NULL));
    t = ts(0, 0);
    TIMED("nanosleep 0", nanosleep(&t, NULL));
    TIMED("usleep 25", usleep(25));
    TIMED("usleep 0", usleep(0));
    TIMED("sleep 0", sleep(0));
    t = ts(0, 1000000000L);
    TIMED("nanosleep 10^9 ns", nanosleep(&t, NULL));
    t = ts(0, -1);
    TIMED("nanosleep -1 ns", nanosleep(&t, NULL));
    t = ts(-1, 0);
    TIMED("nanosleep -1 s", nanosleep(&t, NULL));
    TIMED("nanosleep NULL", nanosleep(NULL, NULL));
    struct timespec rem = ts(7, 7);
    t = ts(0, 1);
    TIMED("nanosleep 1 ns", nanosleep(&t, &rem));
    printf("rem untouched: %d\n", rem.tv_sec == 7 && rem.tv_nsec == 7);
    if (!strcmp(mode, "long")) {
        TIMED("sleep 2", sleep(2));
        TIMED("usleep 1500000", usleep(1500000));
        t = ts(1, 999999999L);
        TIMED("nanosleep 1.999999999 s", nanosleep(&t, NULL));
        printf("time() after: %lld s\n", (long long)time(NULL));
    }
    return 0;
}
