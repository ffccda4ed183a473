/* printf_double.c - printf formatting of doubles and integers.
 * Every value is chosen so the correctly rounded decimal output is
 * unambiguous (no ties that depend on the rounding mode of the libc's
 * binary->decimal conversion). */
#include <stdio.h>

int main(void)
{
    /* volatile: keep the arithmetic at run time (soft-float on target) */
    volatile double a = 0.1, b = 0.2, one = 1.0, three = 3.0;

    printf("[%.17g]\n", a + b);                 /* 0.30000000000000004 */
    printf("[%.6f]\n", one / three);            /* 0.333333 */
    printf("[%e]\n", -2.5e-3);                  /* -2.500000e-03 */
    printf("[%.0f]\n", 1e10);                   /* 10000000000 */
    printf("[%.3f]\n", 3.14159);                /* 3.142 */
    printf("[%.3f]\n", 123456789.125);          /* exact in binary */
    printf("[%g]\n", 0.0001234);                /* 0.0001234 */
    printf("[%g]\n", 1234567.0);                /* 1.23457e+06 */
    printf("[%g]\n", 100.0);                    /* 100 */
    printf("[%.6f]\n", -0.5);                   /* -0.500000 */
    printf("[%.3f]\n", 0.0);                    /* 0.000 */

    printf("[%5d]\n", 42);
    printf("[%-5d|]\n", 42);
    printf("[%05x]\n", 0xbeefu);
    printf("[%lld]\n", -9007199254740993LL);
    printf("[%llu]\n", 18446744073709551615ULL);
    printf("[%+d]\n", 7);
    printf("[%s|%-6s|%6s]\n", "abc", "de", "fg");
    printf("[%c%c]\n", 'o', 'k');
    printf("[%%]\n");
    return 0;
}
