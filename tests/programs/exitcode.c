/* exitcode.c - tests propagation of main's return value as exit status. */
#include <stdio.h>

int main(void)
{
    printf("exiting with 3\n");
    return 3;
}
