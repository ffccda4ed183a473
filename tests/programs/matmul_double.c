/* matmul_double.c - 16x16 double matrix multiply.  All values are
 * multiples of 1/4 and small, so every product/sum is exact in binary
 * floating point and the printed result is unambiguous. */
#include <math.h>
#include <stdio.h>

#define N 16

static double A[N][N], B[N][N], C[N][N];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = ((i * 7 + j * 3) % 11) / 4.0;
            B[i][j] = ((i * 5 + j * 2 + 1) % 13) / 4.0 - 1.5;
        }

    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < N; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }

    double trace = 0.0, sum = 0.0;
    for (int i = 0; i < N; i++) {
        trace += C[i][i];
        for (int j = 0; j < N; j++)
            sum += C[i][j];
    }

    /* volatile: force a real libm call at run time */
    volatile double two = 2.0;
    double r = sqrt(two);

    printf("matmul_double %dx%d\n", N, N);
    printf("C[1][2] %.6f\n", C[1][2]);
    printf("trace %.6f\n", trace);
    printf("sum %.6f\n", sum);
    printf("sqrt(2) %.6f\n", r);
    printf("sqrt(2)^2 == 2: %s\n", (r * r > 1.9999999 && r * r < 2.0000001) ? "yes" : "no");
    return 0;
}
