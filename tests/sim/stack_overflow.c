/*
 * stack_overflow.c: recursion deeper than the stack reservation. Each level keeps 1 KiB on the stack, so
 * `stack_overflow N` needs about N KiB; the simulator must stop the core with "stack overflow" when the stack
 * pointer crosses into the heap, instead of letting the stack overwrite the heap, data and code below it.
 * With `alloca N` one frame asks for N KiB at once (a variable-length array).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned sink;

static unsigned deep(unsigned n)
{
    volatile unsigned char frame[1024];
    frame[n % sizeof frame] = (unsigned char)n;
    if (n == 0)
        return frame[0];
    return deep(n - 1) + frame[n % sizeof frame];
}

static unsigned wide(unsigned kib)
{
    volatile unsigned char vla[kib * 1024u];
    vla[0] = 1;
    return vla[0];
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "recurse";
    unsigned n = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 100;
    printf("%s %u\n", mode, n);
    sink = strcmp(mode, "alloca") ? deep(n) : wide(n);
    printf("survived\n");
    return 0;
}
