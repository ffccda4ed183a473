/* matmul.c: integer matrix multiply, as in the SCC broadcast study: rank 0 broadcasts A and B (N x N 32-bit
 * integers each), every rank computes its block of rows of C = A B, and rank 0 gathers C and checks it.
 *
 *     matmul N BCAST      (BCAST: a bcast algorithm, e.g. rcce or modmpb; "auto" for the selector)
 *
 * Communication: the two broadcasts and the gather; computation: the rows. Prints apptime.h's line. */
#include "apptime.h"

static int32_t a_of(long i, long j) { return (int32_t)(app_mix((uint64_t)(i * 7919 + j)) % 201) - 100; }
static int32_t b_of(long i, long j) { return (int32_t)(app_mix((uint64_t)(i * 104729 + j + 1)) % 201) - 100; }

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    if (argc != 3)
        app_die("usage: matmul N BCAST");
    long n = app_arg(argv[1], "matmul: N must be a positive integer");
    app_use_bcast(argv[2]);
    int me, p;
    nocmsg_comm_rank(NOCMSG_COMM_WORLD, &me);
    nocmsg_comm_size(NOCMSG_COMM_WORLD, &p);
    size_t cells = (size_t)n * (size_t)n;
    int32_t *a = malloc(cells * 4), *b = malloc(cells * 4), *c = malloc(cells * 4);
    int *counts = malloc((size_t)p * sizeof(int)), *displs = malloc((size_t)p * sizeof(int));
    if (!a || !b || !c || !counts || !displs)
        app_die("matmul: out of memory");
    if (me == 0)
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++) {
                a[i * n + j] = a_of(i, j);
                b[i * n + j] = b_of(i, j);
            }
    for (int r = 0; r < p; r++) {
        long lo = n * r / p, hi = n * (r + 1) / p;
        counts[r] = (int)((hi - lo) * n);
        displs[r] = (int)(lo * n);
    }
    long lo = n * me / p, hi = n * (me + 1) / p;
    struct app_clock clock = {0, 0, 0};
    nocmsg_barrier(NOCMSG_COMM_WORLD);
    uint64_t start = app_now();
    app_start(&clock);
    nocmsg_bcast(a, (int)cells, NOCMSG_INT32, 0, NOCMSG_COMM_WORLD);
    nocmsg_bcast(b, (int)cells, NOCMSG_INT32, 0, NOCMSG_COMM_WORLD);
    app_charge(&clock, 1);
    for (long i = lo; i < hi; i++) {
        int32_t *row = c + i * n;
        for (long j = 0; j < n; j++)
            row[j] = 0;
        for (long k = 0; k < n; k++) {
            int32_t aik = a[i * n + k];
            const int32_t *brow = b + k * n;
            for (long j = 0; j < n; j++)
                row[j] += aik * brow[j];
        }
    }
    app_charge(&clock, 0);
    nocmsg_gatherv(me == 0 ? NOCMSG_IN_PLACE : c + lo * n, counts[me], NOCMSG_INT32, c, counts, displs,
                   NOCMSG_INT32, 0, NOCMSG_COMM_WORLD);
    app_charge(&clock, 1);
    /* Rank 0 checks every entry against its own product of the generated inputs. */
    int ok = 1;
    char why[160] = "";
    if (me == 0)
        for (long i = 0; i < n && ok; i++)
            for (long j = 0; j < n && ok; j++) {
                int32_t want = 0;
                for (long k = 0; k < n; k++)
                    want += a_of(i, k) * b_of(k, j);
                if (c[i * n + j] != want) {
                    ok = 0;
                    snprintf(why, sizeof why, "C[%ld][%ld] is %d, expected %d", i, j, (int)c[i * n + j], (int)want);
                }
            }
    app_report("matmul", "-", argv[2], n, start, &clock, ok, why);
    nocmsg_finalize();
    return 0;
}
