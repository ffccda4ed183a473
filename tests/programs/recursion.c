/* recursion.c - deep-ish recursion: fib, Ackermann, 8 queens, Hanoi. */
#include <stdio.h>

static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static long ackermann(long m, long n)
{
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static int queens(int row, int n, unsigned cols, unsigned d1, unsigned d2)
{
    if (row == n) return 1;
    int count = 0;
    for (int c = 0; c < n; c++) {
        unsigned cb = 1u << c;
        unsigned b1 = 1u << (row + c);
        unsigned b2 = 1u << (row - c + n - 1);
        if ((cols & cb) || (d1 & b1) || (d2 & b2)) continue;
        count += queens(row + 1, n, cols | cb, d1 | b1, d2 | b2);
    }
    return count;
}

static long hanoi_moves;

static void hanoi(int n, int from, int to, int via)
{
    if (n == 0) return;
    hanoi(n - 1, from, via, to);
    hanoi_moves++;
    hanoi(n - 1, via, to, from);
}

int main(void)
{
    printf("fib(20) = %ld\n", fib(20));
    printf("ackermann(2,3) = %ld\n", ackermann(2, 3));
    printf("queens(8) = %d\n", queens(0, 8, 0, 0, 0));
    hanoi(16, 1, 3, 2);
    printf("hanoi(16) moves = %ld\n", hanoi_moves);
    return 0;
}
