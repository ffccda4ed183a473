/* hello.c - prints the core id and core count (the only per-core output). */
#include <stdio.h>
#include "core_id.h"

int main(void)
{
    printf("hello from core %d of %d\n", CORE_ID(), NUM_CORES());
    return 0;
}
