/*
 * memory.c: what the presets' memory must hold, and what happens when it does not. A 1 MiB static buffer (as the
 * MPICH test programs have) and, with `big`, two 4 MiB heap buffers (as the OSU micro-benchmarks allocate per
 * rank), all touched; `malloc N` asks for N MiB at once, twice (the runtime reports the first failure only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char static_buffer[1 << 20];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "big";
    memset(static_buffer, 1, sizeof static_buffer);
    if (!strcmp(mode, "big")) {
        char *a = malloc(4 << 20), *b = malloc(4 << 20);
        if (!a || !b) {
            printf("malloc of 2 x 4 MiB failed\n");
            return 1;
        }
        memset(a, 2, 4 << 20);
        memset(b, 3, 4 << 20);
        printf("1 MiB static and 2 x 4 MiB of heap: %d\n", static_buffer[12345] + a[4000000] + b[1]);
        return 0;
    }
    unsigned long mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 1024;
    for (int i = 0; i < 2; i++) {
        void *p = malloc(mib << 20);
        printf("malloc %lu MiB: %s\n", mib, p ? "ok" : "NULL");
    }
    return 0;
}
