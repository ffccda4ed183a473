/*
 * posix.c - the POSIX pieces that picolibc lacks or gets wrong on a simulated core: clocks in simulated time,
 * sleeping in simulated time, abort() for the whole run, sysconf, and getenv (the environment `nocmsg run --env`
 * gives, fetched once through NOCMSG_SYS_ENVIRON).
 *
 * clock_gettime, clock_getres, gettimeofday, time and clock all read the core's cycle counter and convert it at
 * the chip's clock frequency (nocmsg_boot.frequency_hz), so a program's timings are simulated time and come out the
 * same on every run. Every core's counter counts from 0 at the start of the simulation (a waiting core is charged
 * the cycles it slept), so the clocks of all cores agree: CLOCK_REALTIME is simulated time since the epoch, i.e.
 * the simulation starts on 1 January 1970. These definitions come before the C library on the link line, so they
 * replace picolibc's semihosting versions, which have only centisecond or second resolution.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "nocmsg_core.h"
#include "nocmsg_semihost.h"

/* Simulated time in whole seconds and the nanoseconds past them (each split is exact: no 64-bit overflow for any
 * cycle count at frequencies up to 18 GHz). */
static void now(uint64_t *seconds, uint64_t *nanoseconds)
{
    uint64_t f = nocmsg_frequency_hz(), c = nocmsg_cycles();
    *seconds = c / f;
    *nanoseconds = c % f * 1000000000u / f;
}

static int known_clock(clockid_t id)
{
    return id == CLOCK_REALTIME || id == CLOCK_MONOTONIC
#ifdef CLOCK_PROCESS_CPUTIME_ID
           || id == CLOCK_PROCESS_CPUTIME_ID
#endif
#ifdef CLOCK_THREAD_CPUTIME_ID
           || id == CLOCK_THREAD_CPUTIME_ID
#endif
        ;
}

int clock_gettime(clockid_t id, struct timespec *tp)
{
    if (!known_clock(id)) {
        errno = EINVAL;
        return -1;
    }
    if (!tp) {
        errno = EFAULT;
        return -1;
    }
    uint64_t s, ns;
    now(&s, &ns);
    tp->tv_sec = (time_t)s;
    tp->tv_nsec = (long)ns;
    return 0;
}

int clock_getres(clockid_t id, struct timespec *res)
{
    if (!known_clock(id)) {
        errno = EINVAL;
        return -1;
    }
    if (res) {
        /* One cycle, rounded up to whole nanoseconds (never 0). */
        uint64_t f = nocmsg_frequency_hz();
        res->tv_sec = 0;
        res->tv_nsec = (long)((1000000000u + f - 1) / f);
    }
    return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void)tz; /* obsolete: no time zone */
    if (tv) {
        uint64_t s, ns;
        now(&s, &ns);
        tv->tv_sec = (time_t)s;
        tv->tv_usec = (suseconds_t)(ns / 1000);
    }
    return 0;
}

time_t time(time_t *t)
{
    uint64_t s, ns;
    now(&s, &ns);
    if (t)
        *t = (time_t)s;
    return (time_t)s;
}

clock_t clock(void)
{
    /* Processor time is simulated time: a core is never descheduled. */
    uint64_t f = nocmsg_frequency_hz(), c = nocmsg_cycles();
    return (clock_t)(c / f * CLOCKS_PER_SEC + c % f * CLOCKS_PER_SEC / f);
}

/* What benchmark programs ask: the page size (for aligned buffers), the clock tick, the processors (a rank runs on
 * one core). Anything else is not known here: -1 with EINVAL, as POSIX says for an invalid name. */
long sysconf(int name)
{
    switch (name) {
    case _SC_PAGESIZE:
        return 4096;
    case _SC_CLK_TCK:
        return CLOCKS_PER_SEC;
    case _SC_NPROCESSORS_CONF:
    case _SC_NPROCESSORS_ONLN:
        return 1;
    default:
        errno = EINVAL;
        return -1;
    }
}

/* Sleeping: the core's clock moves on by the time asked, rounded up to whole cycles (NOCMSG_SYS_SLEEP). A core's
 * memory is private, so nothing can happen to it meanwhile and jumping its clock is exact, and costs no host time
 * (a loop reading the cycle counter would cost host seconds per simulated second). Nothing interrupts a sleep,
 * so `rem` is never written and the calls fail only on bad arguments. */
int nanosleep(const struct timespec *req, struct timespec *rem)
{
    (void)rem;
    if (!req) {
        errno = EFAULT;
        return -1;
    }
    if (req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= 1000000000L) {
        errno = EINVAL;
        return -1;
    }
    uint64_t block[2] = {(uint64_t)req->tv_sec, (uint64_t)req->tv_nsec};
    nocmsg_semihost(NOCMSG_SYS_SLEEP, block);
    return 0;
}

unsigned sleep(unsigned seconds)
{
    struct timespec t = {.tv_sec = (time_t)seconds, .tv_nsec = 0};
    nanosleep(&t, NULL);
    return 0; /* no signal cuts it short: nothing left to sleep */
}

/* Any number of microseconds, as glibc accepts (the old XSI limit of one million is a "may fail"). */
int usleep(useconds_t microseconds)
{
    struct timespec t = {.tv_sec = (time_t)(microseconds / 1000000), .tv_nsec = (long)(microseconds % 1000000) * 1000};
    return nanosleep(&t, NULL);
}

/* The environment, "NAME=VALUE\0...\0\0", fetched on the first getenv: into a static buffer, or, if it is larger,
 * into one from malloc (if even that fails, it says so on stderr and the environment is empty). */
#define ENVIRON_MAX 4096
static char environment_buffer[ENVIRON_MAX];
static char *environment; /* NULL until fetched */

char *getenv(const char *name)
{
    if (!environment) {
        environment = environment_buffer;
        struct {
            char *buffer;
            uintptr_t capacity;
        } block = {environment_buffer, sizeof environment_buffer};
        uintptr_t needed = nocmsg_semihost(NOCMSG_SYS_ENVIRON, &block);
        if (needed > sizeof environment_buffer) {
            block.buffer = malloc(needed + 1);
            block.capacity = needed + 1;
            if (block.buffer && nocmsg_semihost(NOCMSG_SYS_ENVIRON, &block) <= block.capacity) {
                block.buffer[needed] = '\0'; /* the list's final terminator */
                environment = block.buffer;
            } else {
                fprintf(stderr, "nocmsg: the environment (%lu bytes) does not fit in memory; getenv sees none\n",
                        (unsigned long)needed);
                free(block.buffer);
                environment_buffer[0] = environment_buffer[1] = '\0';
            }
        }
    }
    size_t len = 0;
    while (name[len] && name[len] != '=')
        len++;
    for (char *e = environment; *e; e += strlen(e) + 1)
        if (strncmp(e, name, len) == 0 && e[len] == '=')
            return e + len + 1;
    return NULL;
}

/* abort() ends the whole run, as an aborting rank ends an MPI job natively, with status 134 (128 + SIGABRT, how a
 * shell reports a process killed by SIGABRT): NOCMSG_SYS_ABORT. picolibc's abort would end this core only. */
void abort(void)
{
    int64_t block[1] = {128 + SIGABRT};
    nocmsg_semihost(NOCMSG_SYS_ABORT, block);
    for (;;)
        ;
}
