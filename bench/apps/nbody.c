/* nbody.c: direct n-body simulation, as in the SCC broadcast study: every step, every rank computes the
 * gravitational accelerations on its block of bodies from all bodies, advances its block (leapfrog), and rank 0
 * gathers the new positions and broadcasts all of them, so every rank starts the next step with every body.
 *
 *     nbody BODIES STEPS BCAST
 *
 * Communication: the initial broadcast and every step's gather and broadcast; computation: the forces and the
 * update. Rank 0 checks the result against its own serial run of the same steps (the same operations in the same
 * order, so the positions agree exactly). Prints apptime.h's line. */
#include <math.h>

#include "apptime.h"

/* A body: position and mass (what every rank needs), velocity (its owner only). */
struct body {
    double x, y, z, m;
};

static void initial(struct body *b, double *v, long n)
{
    for (long i = 0; i < n; i++) {
        uint64_t r = app_mix((uint64_t)i);
        b[i].x = (double)(r & 0xffff) / 65536.0 - 0.5;
        b[i].y = (double)((r >> 16) & 0xffff) / 65536.0 - 0.5;
        b[i].z = (double)((r >> 32) & 0xffff) / 65536.0 - 0.5;
        b[i].m = 1.0 + (double)((r >> 48) & 0xff) / 256.0;
        v[3 * i] = v[3 * i + 1] = v[3 * i + 2] = 0.0;
    }
}

/* Advances bodies [lo, hi) by one step of dt, reading all n bodies of `all` and writing the new positions of the
 * block to `out` (same indices). */
static void step(const struct body *all, struct body *out, double *v, long n, long lo, long hi, double dt)
{
    const double soft = 1e-3;
    for (long i = lo; i < hi; i++) {
        double ax = 0, ay = 0, az = 0;
        for (long j = 0; j < n; j++) {
            double dx = all[j].x - all[i].x, dy = all[j].y - all[i].y, dz = all[j].z - all[i].z;
            double d2 = dx * dx + dy * dy + dz * dz + soft;
            double inv = all[j].m / (d2 * sqrt(d2));
            ax += dx * inv;
            ay += dy * inv;
            az += dz * inv;
        }
        v[3 * i] += ax * dt;
        v[3 * i + 1] += ay * dt;
        v[3 * i + 2] += az * dt;
        out[i] = all[i];
        out[i].x += v[3 * i] * dt;
        out[i].y += v[3 * i + 1] * dt;
        out[i].z += v[3 * i + 2] * dt;
    }
}

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    if (argc != 4)
        app_die("usage: nbody BODIES STEPS BCAST");
    long n = app_arg(argv[1], "nbody: BODIES must be a positive integer");
    long steps = app_arg(argv[2], "nbody: STEPS must be a positive integer");
    app_use_bcast(argv[3]);
    int me, p;
    nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
    nocmsg_comm_size(NOCMSG_COMM_WORLD, &p);
    struct body *all = malloc((size_t)n * sizeof *all), *next = malloc((size_t)n * sizeof *next);
    double *v = malloc((size_t)n * 3 * sizeof *v);
    int *counts = malloc((size_t)p * sizeof(int)), *displs = malloc((size_t)p * sizeof(int));
    if (!all || !next || !v || !counts || !displs)
        app_die("nbody: out of memory");
    initial(all, v, n);
    if (me != 0) /* only rank 0 has the bodies; the broadcast brings them */
        memset(all, 0, (size_t)n * sizeof *all);
    for (int r = 0; r < p; r++) {
        long lo = n * r / p, hi = n * (r + 1) / p;
        counts[r] = (int)((hi - lo) * 4); /* doubles */
        displs[r] = (int)(lo * 4);
    }
    long lo = n * me / p, hi = n * (me + 1) / p;
    const double dt = 1e-3;
    struct app_clock clock = {0, 0, 0};
    nocmsg_barrier(NOCMSG_COMM_WORLD);
    uint64_t start = app_now();
    app_start(&clock);
    nocmsg_bcast(all, (int)(n * 4), NOCMSG_DOUBLE, 0, NOCMSG_COMM_WORLD);
    app_charge(&clock, 1);
    for (long s = 0; s < steps; s++) {
        step(all, next, v, n, lo, hi, dt);
        app_charge(&clock, 0);
        nocmsg_gatherv(next + lo, counts[me], NOCMSG_DOUBLE, all, counts, displs, NOCMSG_DOUBLE, 0,
                       NOCMSG_COMM_WORLD);
        nocmsg_bcast(all, (int)(n * 4), NOCMSG_DOUBLE, 0, NOCMSG_COMM_WORLD);
        app_charge(&clock, 1);
    }
    int ok = 1;
    char why[160] = "";
    if (me == 0) {
        struct body *ref = malloc((size_t)n * sizeof *ref), *tmp = malloc((size_t)n * sizeof *tmp);
        double *rv = malloc((size_t)n * 3 * sizeof *rv);
        if (!ref || !tmp || !rv)
            app_die("nbody: out of memory");
        initial(ref, rv, n);
        for (long s = 0; s < steps; s++) {
            step(ref, tmp, rv, n, 0, n, dt);
            memcpy(ref, tmp, (size_t)n * sizeof *ref);
        }
        for (long i = 0; i < n && ok; i++)
            if (memcmp(&ref[i], &all[i], sizeof ref[i])) {
                ok = 0;
                snprintf(why, sizeof why, "body %ld is at (%g, %g, %g), expected (%g, %g, %g)", i, all[i].x,
                         all[i].y, all[i].z, ref[i].x, ref[i].y, ref[i].z);
            }
    }
    app_report("nbody", "-", argv[3], n, start, &clock, ok, why);
    nocmsg_finalize();
    return 0;
}
