/*
 * coll.c - RCCE_bcast from every root, RCCE_reduce to every root and RCCE_allreduce, for every operation
 * (SUM, MIN, MAX, PROD) on every type (INT, LONG, FLOAT, DOUBLE), on 1, 7 and 1100 elements (8800 bytes of doubles:
 * more than the comm buffer and than the reduction's pieces). Every UE knows what every other contributes, so each
 * checks the exact result; the values keep floating-point sums and products exact.
 */
#include <string.h>

#include "check.h"

#define MAX_ELEMS 1100

static const int types[] = {RCCE_INT, RCCE_LONG, RCCE_FLOAT, RCCE_DOUBLE};
static const char *type_names[] = {"INT", "LONG", "FLOAT", "DOUBLE"};
static const int ops[] = {RCCE_SUM, RCCE_MIN, RCCE_MAX, RCCE_PROD};
static const char *op_names[] = {"SUM", "MIN", "MAX", "PROD"};
static const int counts[] = {1, 7, MAX_ELEMS};

/* Element j of UE u's input for op: small integers, at most a few factors of 2 in a product. */
static long value(int op, int u, int j)
{
    if (op == RCCE_PROD) return (u + j) % 8 == 0 ? 2 : (u + j) % 8 == 5 ? -1 : 1;
    return (long)((u * 37 + j * 11) % 101) - 50;
}

static long expected(int op, int n, int j)
{
    long r = value(op, 0, j);
    for (int u = 1; u < n; u++) {
        long v = value(op, u, j);
        if (op == RCCE_SUM) r += v;
        else if (op == RCCE_PROD) r *= v;
        else if (op == RCCE_MIN) r = v < r ? v : r;
        else r = v > r ? v : r;
    }
    return r;
}

static void put_value(void *buf, int type, int j, long v)
{
    switch (type) {
    case RCCE_INT: ((int *)buf)[j] = (int)v; break;
    case RCCE_LONG: ((long *)buf)[j] = v; break;
    case RCCE_FLOAT: ((float *)buf)[j] = (float)v; break;
    default: ((double *)buf)[j] = (double)v; break;
    }
}

static long get_value(const void *buf, int type, int j)
{
    switch (type) {
    case RCCE_INT: return ((const int *)buf)[j];
    case RCCE_LONG: return ((const long *)buf)[j];
    case RCCE_FLOAT: return (long)((const float *)buf)[j];
    default: return (long)((const double *)buf)[j];
    }
}

static double in[MAX_ELEMS], out[MAX_ELEMS];

int RCCE_APP(int argc, char **argv)
{
    OK(RCCE_init(&argc, &argv));
    int me = RCCE_ue(), n = RCCE_num_ues();

    /* bcast from every root, of sizes around a line and the comm buffer. */
    static unsigned char bbuf[9000];
    const size_t bsizes[] = {1, 33, 8200};
    for (int root = 0; root < n; root++) {
        for (size_t s = 0; s < 3; s++) {
            size_t size = bsizes[s];
            for (size_t i = 0; i < size; i++) bbuf[i] = me == root ? pattern(i, size, root, 99) : 0;
            OK(RCCE_bcast((char *)bbuf, size, root, RCCE_COMM_WORLD));
            for (size_t i = 0; i < size; i++)
                CHECK(bbuf[i] == pattern(i, size, root, 99), "bcast of %zu bytes from %d: byte %zu is %u", size, root, i, bbuf[i]);
        }
    }
    if (me == 0) printf("bcast from each of %d roots, 1, 33 and 8200 bytes ok\n", n);

    long calls = 0;
    for (int t = 0; t < 4; t++) {
        for (int o = 0; o < 4; o++) {
            for (int c = 0; c < 3; c++) {
                int count = counts[c];
                for (int root = 0; root <= n; root++) { /* root == n: allreduce */
                    for (int j = 0; j < count; j++) put_value(in, types[t], j, value(ops[o], me, j));
                    memset(out, 0x5a, sizeof out);
                    if (root < n) OK(RCCE_reduce((char *)in, (char *)out, count, types[t], ops[o], root, RCCE_COMM_WORLD));
                    else OK(RCCE_allreduce((char *)in, (char *)out, count, types[t], ops[o], RCCE_COMM_WORLD));
                    calls++;
                    if (root < n && me != root) continue;
                    for (int j = 0; j < count; j++) {
                        long got = get_value(out, types[t], j), want = expected(ops[o], n, j);
                        CHECK(got == want, "%s %s %s of %d elements (root %d): element %d is %ld, expected %ld", root < n ? "reduce" : "allreduce",
                              op_names[o], type_names[t], count, root, j, got, want);
                    }
                }
            }
        }
        if (me == 0) printf("reduce to each root and allreduce, SUM MIN MAX PROD on %s, 1, 7 and %d elements ok\n", type_names[t], MAX_ELEMS);
    }
    /* Misuse is reported. */
    CHECK(RCCE_reduce((char *)in, (char *)out, 1, 12345, RCCE_SUM, 0, RCCE_COMM_WORLD) == RCCE_ERROR_ILLEGAL_TYPE, "bad type");
    CHECK(RCCE_reduce((char *)in, (char *)out, 1, RCCE_INT, 12345, 0, RCCE_COMM_WORLD) == RCCE_ERROR_ILLEGAL_OP, "bad op");
    CHECK(RCCE_bcast((char *)in, 1, n, RCCE_COMM_WORLD) == RCCE_ERROR_COMM_UNDEFINED, "bad root");
    OK(RCCE_finalize());
    if (me == 0) printf("collectives: %ld reduce/allreduce calls on %d UEs ok\n", calls, n);
    return 0;
}
