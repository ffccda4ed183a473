/* libc_time.c - the C library on a simulated core: the clocks read simulated time (runtime/posix.c), and the parts
 * of libc that ordinary benchmark programs use (getopt, getopt_long, posix_memalign, sysconf, qsort, libm) build
 * and work. Prints facts a test checks; pass "-n 3 --size=40 extra" as arguments. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <nocmsg_core.h>

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Spins for about `cycles` cycles. */
static void spin(uint64_t cycles)
{
    uint64_t end = nocmsg_cycles() + cycles;
    while (nocmsg_cycles() < end)
        ;
}

int main(int argc, char **argv)
{
    uint64_t f = nocmsg_frequency_hz();

    /* clock_gettime against the cycle counter, read just before and just after. */
    struct timespec ts;
    uint64_t c0 = nocmsg_cycles();
    int rc = clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t c1 = nocmsg_cycles();
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    printf("clock_gettime: rc %d, within the cycles around it %d\n", rc,
           ns >= c0 * 1000000000u / f && ns <= c1 * 1000000000u / f + 1);

    /* 3 ms of simulated time pass as 3 ms on every clock. */
    struct timespec a, b;
    struct timeval tv0, tv1;
    clock_t k0 = clock();
    clock_gettime(CLOCK_REALTIME, &a);
    gettimeofday(&tv0, NULL);
    spin(3 * f / 1000);
    clock_gettime(CLOCK_REALTIME, &b);
    gettimeofday(&tv1, NULL);
    clock_t k1 = clock();
    double dt = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    double dtv = (double)(tv1.tv_sec - tv0.tv_sec) + (double)(tv1.tv_usec - tv0.tv_usec) * 1e-6;
    double dk = (double)(k1 - k0) / CLOCKS_PER_SEC;
    printf("3 ms: clock_gettime %d, gettimeofday %d, clock %d\n", fabs(dt - 3e-3) < 1e-5, fabs(dtv - 3e-3) < 1e-5,
           fabs(dk - 3e-3) < 2.0 / CLOCKS_PER_SEC + 1e-5);
    time_t t = 0, tr = time(&t);
    printf("time: %lld, agrees %d\n", (long long)tr, tr == t && (uint64_t)tr == nocmsg_cycles() / f);
    struct timespec res;
    printf("clock_getres: rc %d, %ld ns\n", clock_getres(CLOCK_MONOTONIC, &res), res.tv_nsec);
    errno = 0;
    rc = clock_gettime((clockid_t)12345, &ts);
    printf("unknown clock: rc %d, EINVAL %d\n", rc, errno == EINVAL);
    errno = 0;
    rc = clock_gettime(CLOCK_MONOTONIC, NULL);
    printf("null timespec: rc %d, EFAULT %d\n", rc, errno == EFAULT);

    /* getopt_long */
    static const struct option longopts[] = {{"size", required_argument, NULL, 's'}, {NULL, 0, NULL, 0}};
    int n = 0, size = 0, opt;
    while ((opt = getopt_long(argc, argv, "n:", longopts, NULL)) != -1) {
        if (opt == 'n')
            n = atoi(optarg);
        else if (opt == 's')
            size = atoi(optarg);
    }
    printf("getopt_long: n %d, size %d, rest %s\n", n, size, optind < argc ? argv[optind] : "(none)");

    /* posix_memalign, sysconf, qsort, libm */
    void *p = NULL;
    rc = posix_memalign(&p, 64, 1000);
    printf("posix_memalign: rc %d, aligned %d\n", rc, p && ((uintptr_t)p & 63) == 0);
    free(p);
    errno = 0;
    long bad = sysconf(-1);
    printf("sysconf: page size %ld, processors %ld, unknown name %ld EINVAL %d\n", sysconf(_SC_PAGESIZE),
           sysconf(_SC_NPROCESSORS_ONLN), bad, errno == EINVAL);
    int v[] = {5, -2, 9, 0, 3, 3, -7};
    qsort(v, sizeof v / sizeof v[0], sizeof v[0], by_value);
    printf("qsort:");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        printf(" %d", v[i]);
    volatile double x = 2.0;
    printf("\nlibm: sqrt %.6f exp %.6f sin %.6f pow %.1f\n", sqrt(x), exp(x), sin(x), pow(x, 10.0));
    return 0;
}
