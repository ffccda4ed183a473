/* random.c SEED: seeded random communication regions for testing flow-control plans (crates/cli/tests/fc.rs).
 *
 * Every region (ended by a barrier) is one of these MPI-correct patterns (correct with synchronous sends too), on
 * random ranks with random sizes from 8 B to 16 KiB:
 *   - pairs: a random matching; each pair exchanges by sendrecv, or in rank order with send and recv;
 *   - gather: every other rank sends to a random sink, which receives them in rank order;
 *   - shift: every rank sendrecvs with rank + k and rank - k (a ring: cycles the plan must keep);
 *   - chain: rank order along a random permutation, each sends to the next after receiving from the previous.
 * A region may hold two patterns at once (on disjoint tags). Every payload is checked, and rank 0 prints a checksum
 * of everything received, which a run with a plan must reproduce (and it must not deadlock). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;
static uint64_t next(void) /* splitmix64: the same sequence on every rank */
{
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int r, n, failures;
static uint64_t sum;
static unsigned char *out, *in;

static int size_of(void) { return 8 << (next() % 12) >> (next() % 2 ? 0 : 3); }

static void fill(int to, int tag, int bytes)
{
    for (int i = 0; i < bytes; i++)
        out[i] = (unsigned char)(r * 31 + to * 7 + tag + i);
}

static void check(int from, int tag, int bytes)
{
    for (int i = 0; i < bytes; i++)
        if (in[i] != (unsigned char)(from * 31 + r * 7 + tag + i)) {
            failures++;
            break;
        }
    for (int i = 0; i < bytes; i += 8)
        sum = sum * 1099511628211u + in[i] + (uint64_t)bytes;
}

static void exchange(int peer, int tag, int bytes, int how)
{
    fill(peer, tag, bytes);
    if (how == 0) {
        MPI_Sendrecv(out, bytes, MPI_BYTE, peer, tag, in, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    } else if (r < peer) {
        MPI_Send(out, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
        MPI_Recv(in, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
    }
    check(peer, tag, bytes);
}

static void pattern(int kind, int tag)
{
    int bytes = size_of();
    int perm[64];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(next() % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    if (kind == 0) { /* pairs: perm[2i] with perm[2i + 1] */
        int how = (int)(next() % 2);
        for (int i = 0; i + 1 < n; i += 2)
            if (perm[i] == r || perm[i + 1] == r)
                exchange(perm[i] == r ? perm[i + 1] : perm[i], tag, bytes, how);
    } else if (kind == 1) { /* gather into perm[0] */
        int sink = perm[0];
        if (r == sink) {
            for (int s = 0; s < n; s++)
                if (s != sink) {
                    MPI_Recv(in, bytes, MPI_BYTE, s, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    check(s, tag, bytes);
                }
        } else {
            fill(sink, tag, bytes);
            MPI_Send(out, bytes, MPI_BYTE, sink, tag, MPI_COMM_WORLD);
        }
    } else if (kind == 2) { /* shift by k */
        int k = 1 + (int)(next() % (uint64_t)(n - 1)), to = (r + k) % n, from = (r - k + n) % n;
        fill(to, tag, bytes);
        MPI_Sendrecv(out, bytes, MPI_BYTE, to, tag, in, bytes, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(from, tag, bytes);
    } else { /* chain along perm */
        int at = 0;
        while (perm[at] != r)
            at++;
        if (at > 0) {
            MPI_Recv(in, bytes, MPI_BYTE, perm[at - 1], tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check(perm[at - 1], tag, bytes);
        }
        if (at + 1 < n) {
            fill(perm[at + 1], tag, bytes);
            MPI_Send(out, bytes, MPI_BYTE, perm[at + 1], tag, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc < 2 || n < 2 || n > 64) {
        if (r == 0)
            fprintf(stderr, "usage: random SEED (2 to 64 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    state = strtoull(argv[1], NULL, 0);
    out = malloc(16384);
    in = malloc(16384);
    for (int region = 0; region < 24; region++) {
        pattern((int)(next() % 4), 2 * region);
        if (next() % 2) /* a second pattern in the same region, on its own tag */
            pattern((int)(next() % 4), 2 * region + 1);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    uint64_t all[64];
    MPI_Gather(&sum, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int bad = 0;
    MPI_Reduce(&failures, &bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0) {
        uint64_t total = 0;
        for (int i = 0; i < n; i++)
            total = total * 1000003u + all[i];
        printf("random %s: %d ranks, %s, checksum %016llx\n", argv[1], n, bad ? "FAILED" : "ok",
               (unsigned long long)total);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return bad != 0;
}
