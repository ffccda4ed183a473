/* sort.c - integer sort: own quicksort vs. qsort() on LCG data. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 2000

static int a[N];
static int b[N];

static uint32_t lcg_state = 12345u;

static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return lcg_state;
}

static void swap(int *x, int *y)
{
    int t = *x;
    *x = *y;
    *y = t;
}

/* Hoare-style quicksort with median-of-three pivot, recursing on the
 * smaller half to bound stack depth. */
static void quicksort(int *v, int lo, int hi)
{
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo]) swap(&v[mid], &v[lo]);
        if (v[hi] < v[lo]) swap(&v[hi], &v[lo]);
        if (v[hi] < v[mid]) swap(&v[hi], &v[mid]);
        int pivot = v[mid];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                swap(&v[i], &v[j]);
                i++;
                j--;
            }
        }
        if (j - lo < hi - i) {
            quicksort(v, lo, j);
            lo = i;
        } else {
            quicksort(v, i, hi);
            hi = j;
        }
    }
}

static int cmp_int(const void *pa, const void *pb)
{
    int x = *(const int *)pa;
    int y = *(const int *)pb;
    return (x > y) - (x < y);
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        /* values in [-500000, 499999] */
        a[i] = (int)((lcg() >> 8) % 1000000u) - 500000;
    }
    memcpy(b, a, sizeof a);

    quicksort(a, 0, N - 1);
    qsort(b, N, sizeof b[0], cmp_int);

    if (memcmp(a, b, sizeof a) != 0) {
        printf("FAIL: quicksort and qsort disagree\n");
        return 1;
    }
    for (int i = 1; i < N; i++) {
        if (a[i - 1] > a[i]) {
            printf("FAIL: not sorted at %d\n", i);
            return 1;
        }
    }

    uint32_t checksum = 0;
    for (int i = 0; i < N; i++)
        checksum += (uint32_t)a[i] * (uint32_t)(i + 1);

    printf("count %d\n", N);
    printf("min %d\n", a[0]);
    printf("max %d\n", a[N - 1]);
    printf("checksum %lu\n", (unsigned long)checksum);
    printf("sorted ok\n");
    return 0;
}
