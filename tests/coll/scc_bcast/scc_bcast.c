/* The SCC broadcast family (lib/src/coll/bcast/scc.h) on MPB chips: every bcast algorithm, every root (or the roots
 * given), each size given, back to back; every rank checks every byte it got and that nothing past the message
 * changed, and the root that its buffer did not. crates/cli/tests/scc_bcast.rs runs it on mpb-2x2 and scc-48.
 *
 *     scc_bcast [--roots all|ends|R,R,...] [--algorithms a,b,...] [--split] SIZE...
 *
 * `ends`: the first, the middle and the last rank. --split also runs every case on the odd ranks in reverse order
 * (a communicator whose ranks are not the world's) while the even ranks run them on theirs. Prints one line per
 * algorithm at rank 0 ("rcce: 336 broadcasts checked"), then "all checks passed"; a failure names the case and
 * ends the run with status 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nocmsg.h"

enum { GUARD = 16 };

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Byte i of the message of case `seed`. */
static unsigned char byte_of(uint64_t seed, size_t i)
{
    return (unsigned char)(mix(seed * 0x100000001b3u + i / 8) >> (8 * (i % 8)));
}

static int fail(const char *alg, const char *comm, int root, size_t bytes, const char *what, size_t at)
{
    int me;
    nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
    fprintf(stderr, "FAIL rank %d: bcast[%s] on %s, root %d, %zu bytes: %s at byte %zu\n", me, alg, comm, root, bytes,
            what, at);
    nocmsg_abort(NOCMSG_COMM_WORLD, 1);
    return 1;
}

/* One broadcast of `bytes` from `root` on comm, checked. */
static void check(const char *alg, nocmsg_comm comm, const char *name, int root, size_t bytes, uint64_t seed,
                  unsigned char *buf)
{
    int me;
    nocmsg_comm_rank(comm, &me);
    for (size_t i = 0; i < bytes + GUARD; i++)
        buf[i] = me == root && i < bytes ? byte_of(seed, i) : 0xa5;
    int rc = nocmsg_bcast(bytes ? buf : NULL, (int)bytes, NOCMSG_BYTE, root, comm);
    if (rc != NOCMSG_SUCCESS)
        fail(alg, name, root, bytes, "error code", (size_t)rc);
    for (size_t i = 0; i < bytes; i++)
        if (buf[i] != byte_of(seed, i))
            fail(alg, name, root, bytes, me == root ? "the root's buffer changed" : "wrong data", i);
    for (size_t i = bytes; i < bytes + GUARD; i++)
        if (buf[i] != 0xa5)
            fail(alg, name, root, bytes, "written past the message", i);
}

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    int me, n;
    nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
    nocmsg_comm_size(NOCMSG_COMM_WORLD, &n);
    const char *roots = "all", *only = NULL;
    int split = 0, nsizes = 0;
    size_t sizes[32], largest = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--roots") && i + 1 < argc)
            roots = argv[++i];
        else if (!strcmp(argv[i], "--algorithms") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--split"))
            split = 1;
        else if (nsizes < 32) {
            char *end;
            unsigned long long v = strtoull(argv[i], &end, 0);
            if (*end || end == argv[i] || v > (1u << 30)) {
                if (me == 0)
                    fprintf(stderr, "scc_bcast: %s: not a size in bytes (or an option)\n", argv[i]);
                nocmsg_abort(NOCMSG_COMM_WORLD, 2);
            }
            sizes[nsizes++] = (size_t)v;
            largest = v > largest ? (size_t)v : largest;
        }
    }
    nocmsg_comm comm = NOCMSG_COMM_WORLD;
    const char *name = "WORLD";
    if (split) {
        nocmsg_comm_split(NOCMSG_COMM_WORLD, me % 2, me % 2 ? n - me : me, &comm);
        name = me % 2 ? "odd ranks reversed" : "even ranks";
    }
    int size;
    nocmsg_comm_size(comm, &size);
    unsigned char *buf = malloc(largest + GUARD);
    const char *const *algs = nocmsg_coll_algorithms("bcast");
    if (!buf || !algs) {
        fprintf(stderr, "scc_bcast: rank %d: out of memory\n", me);
        nocmsg_abort(NOCMSG_COMM_WORLD, 2);
    }
    /* Every algorithm asked for must be here. */
    for (const char *p = only; p && *p;) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int a = 0; algs[a] && !found; a++)
            found = strlen(algs[a]) == len && !strncmp(algs[a], p, len);
        if (!found) {
            if (me == 0) {
                fprintf(stderr, "scc_bcast: no bcast algorithm \"%.*s\" here; there are:", (int)len, p);
                for (int a = 0; algs[a]; a++)
                    fprintf(stderr, " %s", algs[a]);
                fprintf(stderr, "\n");
                nocmsg_abort(NOCMSG_COMM_WORLD, 2);
            }
            nocmsg_barrier(NOCMSG_COMM_WORLD); /* rank 0 ends the run, having said why */
        }
        p += len + (p[len] == ',');
    }
    uint64_t seed = 1;
    for (int a = 0; algs[a]; a++) {
        if (only) {
            size_t len = strlen(algs[a]);
            const char *p = strstr(only, algs[a]);
            while (p && !((p == only || p[-1] == ',') && (p[len] == ',' || !p[len])))
                p = strstr(p + 1, algs[a]);
            if (!p)
                continue;
        }
        if (nocmsg_coll_set("bcast", algs[a]) != NOCMSG_SUCCESS)
            fail(algs[a], name, -1, 0, "nocmsg_coll_set refused it", 0);
        long checked = 0;
        for (int r = 0; r < size; r++) {
            if (!strcmp(roots, "ends")) {
                if (r != 0 && r != size / 2 && r != size - 1)
                    continue;
            } else if (strcmp(roots, "all")) {
                int wanted = 0;
                for (const char *p = roots; *p; p++) {
                    if ((p == roots || p[-1] == ',') && atoi(p) == r)
                        wanted = 1;
                }
                if (!wanted)
                    continue;
            }
            for (int s = 0; s < nsizes; s++, checked++)
                check(algs[a], comm, name, r, sizes[s], seed++, buf);
        }
        nocmsg_barrier(NOCMSG_COMM_WORLD);
        if (me == 0)
            printf("%s: %ld broadcasts checked\n", algs[a], checked);
    }
    nocmsg_barrier(NOCMSG_COMM_WORLD);
    if (me == 0)
        printf("all checks passed\n");
    free(buf);
    nocmsg_finalize();
    return 0;
}
