/* fault.c - makes one core fail in a chosen way, to test fault reports: fault <kind> <core>
 * kinds: illegal (an all-zero instruction word), load (read outside memory), misaligned (unaligned 8-byte load),
 * ecall (no operating system), exit (exit status 7). Other cores exit 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nocmsg_core.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fault <illegal|load|misaligned|ecall|exit> <core>\n");
        return 2;
    }
    if (nocmsg_core_id() != atoi(argv[2]))
        return 0;
    printf("core %d failing with %s\n", nocmsg_core_id(), argv[1]);
    if (!strcmp(argv[1], "illegal"))
        __asm__ volatile(".word 0");
    if (!strcmp(argv[1], "load"))
        return (int)*(volatile uint64_t *)(uintptr_t)(0x10 + argc - 3);
    if (!strcmp(argv[1], "misaligned"))
        return (int)*(volatile uint64_t *)((uintptr_t)argv[1] | 1);
    if (!strcmp(argv[1], "ecall"))
        __asm__ volatile("ecall");
    if (!strcmp(argv[1], "exit"))
        exit(7);
    return 0;
}
