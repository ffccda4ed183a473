/*
 * start.c - the C half of the nocmsg runtime: command line, heap and the call to main.
 *
 * The command line comes from the simulator through semihosting (SYS_GET_CMDLINE): program name and arguments
 * separated by spaces, an argument containing spaces or quotes wrapped in double quotes with \" and \\ escaped.
 * The heap runs from the end of the program image to `nocmsg_boot.heap_end`, which the loader derives from this
 * chip's memory size, so the same binary adapts to any chip. When it runs out, the core says so once on stderr.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "nocmsg_core.h"
#include "nocmsg_semihost.h"

#define NOCMSG_CMDLINE_MAX 4096
#define NOCMSG_ARGV_MAX 128

int main(int argc, char **argv);
extern char __heap_start[];

static char cmdline[NOCMSG_CMDLINE_MAX];
static char *argv_storage[NOCMSG_ARGV_MAX + 1];
static char *heap_top = __heap_start;

/* Splits `s` in place into words; returns the word count. */
static int split_command_line(char *s, char **argv, int max)
{
    int argc = 0;
    char *out = s;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s || argc == max)
            break;
        argv[argc++] = out;
        int quoted = 0;
        for (; *s && (quoted || *s != ' '); s++) {
            if (*s == '"') {
                quoted = !quoted;
            } else if (*s == '\\' && quoted && (s[1] == '"' || s[1] == '\\')) {
                *out++ = *++s;
            } else {
                *out++ = *s;
            }
        }
        if (*s)
            s++;
        *out++ = '\0';
    }
    argv[argc] = NULL;
    return argc;
}

/* Appends `s` to the line at `*end` (within `limit`). */
static void append(char **end, char *limit, const char *s)
{
    while (*s && *end < limit)
        *(*end)++ = *s++;
}

static void append_number(char **end, char *limit, uint64_t v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n && *end < limit)
        *(*end)++ = digits[--n];
}

/* The first time this core's heap cannot grow, say on the console's stderr how much was asked and how much heap
 * there is, and which chip setting gives more: malloc only returns NULL, and a program rarely says why. Written
 * straight through semihosting, as stdio may itself be allocating. */
static void report_out_of_memory(uint64_t asked)
{
    static int reported;
    if (reported)
        return;
    reported = 1;
    const uint64_t base = 0x80000000u; /* every core's memory starts here (runtime/nocmsg.ld) */
    uint64_t top = nocmsg_boot.stack_top, floor = nocmsg_boot.heap_end, start = (uint64_t)(uintptr_t)__heap_start;
    uint64_t used = (uint64_t)(uintptr_t)heap_top - start, free = floor - (uint64_t)(uintptr_t)heap_top;
    uint64_t memory_kib = (top - base) / 1024;
    char line[400], *end = line, *limit = line + sizeof line - 1;
    append(&end, limit, "nocmsg: core ");
    append_number(&end, limit, nocmsg_boot.core_id);
    append(&end, limit, ": out of memory: the heap cannot grow by ");
    append_number(&end, limit, (asked + 1023) / 1024);
    append(&end, limit, " KiB (");
    append_number(&end, limit, (used + 1023) / 1024);
    append(&end, limit, " of its ");
    append_number(&end, limit, (floor - start) / 1024);
    append(&end, limit, " KiB in use: core.memory_kib = ");
    append_number(&end, limit, memory_kib);
    append(&end, limit, " less the ");
    append_number(&end, limit, (top - floor) / 1024);
    append(&end, limit, " KiB stack and the ");
    append_number(&end, limit, (start - base + 1023) / 1024);
    append(&end, limit, " KiB program); raise core.memory_kib in the chip file (to at least ");
    append_number(&end, limit, memory_kib + (asked - free + 1023) / 1024);
    append(&end, limit, " for this request)\n");
    struct {
        const char *name;
        uintptr_t mode, length;
    } open_block = {":tt", 8, 3}; /* mode 8 ("a"): the console's stderr */
    uintptr_t handle = nocmsg_semihost(NOCMSG_SYS_OPEN, &open_block);
    if (handle == (uintptr_t)-1)
        return;
    struct {
        uintptr_t handle;
        const char *buffer;
        uintptr_t length;
    } write_block = {handle, line, (uintptr_t)(end - line)};
    nocmsg_semihost(NOCMSG_SYS_WRITE, &write_block);
    nocmsg_semihost(NOCMSG_SYS_CLOSE, &handle);
}

void *sbrk(ptrdiff_t increment)
{
    char *old = heap_top;
    uintptr_t limit = (uintptr_t)nocmsg_boot.heap_end;
    if ((increment > 0 && (uintptr_t)old + (uintptr_t)increment > limit) ||
        (increment < 0 && old + increment < __heap_start)) {
        if (increment > 0)
            report_out_of_memory((uint64_t)increment);
        errno = ENOMEM;
        return (void *)-1;
    }
    heap_top = old + increment;
    return old;
}

void __nocmsg_start(void) __attribute__((noreturn));
void __nocmsg_start(void)
{
    struct {
        char *buffer;
        uintptr_t length;
    } block = {cmdline, sizeof cmdline - 1};
    int argc = 0;
    if (nocmsg_semihost(NOCMSG_SYS_GET_CMDLINE, &block) == 0) {
        cmdline[block.length < sizeof cmdline ? block.length : sizeof cmdline - 1] = '\0';
        argc = split_command_line(cmdline, argv_storage, NOCMSG_ARGV_MAX);
    }
    if (argc == 0) {
        static char name[] = "program";
        argv_storage[0] = name;
        argv_storage[1] = NULL;
        argc = 1;
    }
    exit(main(argc, argv_storage));
}
