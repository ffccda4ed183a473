/* matmul_int.c - 24x24 int64 matrix multiply of LCG matrices. */
#include <stdint.h>
#include <stdio.h>

#define N 24

static int64_t A[N][N], B[N][N], C[N][N];

static uint32_t lcg_state = 42u;

static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return lcg_state;
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (int64_t)((lcg() >> 4) % 2000001u) - 1000000;
            B[i][j] = (int64_t)((lcg() >> 4) % 2000001u) - 1000000;
        }

    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int64_t s = 0;
            for (int k = 0; k < N; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }

    int64_t trace = 0;
    uint64_t checksum = 0;
    for (int i = 0; i < N; i++) {
        trace += C[i][i];
        for (int j = 0; j < N; j++)
            checksum = checksum * 31u + (uint64_t)C[i][j];
    }

    printf("matmul_int %dx%d\n", N, N);
    printf("C[0][0] %lld\n", (long long)C[0][0]);
    printf("C[%d][%d] %lld\n", N - 1, N - 1, (long long)C[N - 1][N - 1]);
    printf("trace %lld\n", (long long)trace);
    printf("checksum %016llx\n", (unsigned long long)checksum);
    return 0;
}
