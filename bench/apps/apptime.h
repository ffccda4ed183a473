/* apptime.h: what the SCC study's applications (bench/apps: matmul, nbody, bucketsort) share: a clock (cycles on the simulator, ns
 * natively), the broadcast algorithm from the command line, and the report line.
 *
 * Each application times, on every rank, its computation and its communication separately, between two barriers;
 * rank 0 prints one CSV line with the maxima over ranks of the three times:
 *     app,variant,bcast,ranks,size,total,compute,communication,unit,check
 * (total: from the common start to the last rank's end; check: "ok" or what was wrong). */
#ifndef APPTIME_H
#define APPTIME_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nocmsg.h>

#ifdef NOCMSG_SIM
#include <nocmsg_core.h>
static inline uint64_t app_now(void) { return nocmsg_cycles(); }
static const char *const app_unit = "cycles";
#else
#include <time.h>
static inline uint64_t app_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static const char *const app_unit = "ns";
#endif

/* Time spent computing and communicating on this rank. */
struct app_clock {
    uint64_t compute, comm, mark;
};

static inline void app_start(struct app_clock *c) { c->mark = app_now(); }
/* Charges the time since the last mark to compute (what = 0) or communication (what = 1). */
static inline void app_charge(struct app_clock *c, int what)
{
    uint64_t t = app_now();
    if (what)
        c->comm += t - c->mark;
    else
        c->compute += t - c->mark;
    c->mark = t;
}

static inline void app_die(const char *msg)
{
    fprintf(stderr, "%s\n", msg);
    nocmsg_abort(NOCMSG_COMM_WORLD, 2);
}

/* Selects the bcast algorithm named `alg` (an error ends the run, naming the algorithms there are). */
static inline void app_use_bcast(const char *alg)
{
    if (nocmsg_coll_set("bcast", alg) != NOCMSG_SUCCESS) {
        int me;
        nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
        if (me == 0) {
            fprintf(stderr, "no bcast algorithm \"%s\" here; there are:", alg);
            for (const char *const *a = nocmsg_coll_algorithms("bcast"); a && *a; a++)
                fprintf(stderr, " %s", *a);
            fprintf(stderr, "\n");
        }
        nocmsg_abort(NOCMSG_COMM_WORLD, 2);
    }
}

/* A positive integer argument, or the end of the run with `usage`. */
static inline long app_arg(const char *s, const char *usage)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || end == s || v <= 0)
        app_die(usage);
    return v;
}

/* Rank 0 prints the line (maxima over ranks); `ok` is this rank's verdict, `why` what rank 0 found wrong. A rank's
 * total runs from `start` to its last app_charge (so checking the result afterwards is not counted). */
static inline void app_report(const char *app, const char *variant, const char *alg, long size, uint64_t start,
                              const struct app_clock *c, int ok, const char *why)
{
    uint64_t mine[4] = {c->mark - start, c->compute, c->comm, (uint64_t)!ok}, worst[4];
    nocmsg_reduce(mine, worst, 4, NOCMSG_UINT64, NOCMSG_MAX, 0, NOCMSG_COMM_WORLD);
    int me, n;
    nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
    nocmsg_comm_size(NOCMSG_COMM_WORLD, &n);
    if (me == 0)
        printf("%s,%s,%s,%d,%ld,%llu,%llu,%llu,%s,%s\n", app, variant, alg, n, size, (unsigned long long)worst[0],
               (unsigned long long)worst[1], (unsigned long long)worst[2], app_unit,
               worst[3] ? (why && *why ? why : "wrong on some rank") : "ok");
}

static inline uint64_t app_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

#endif
