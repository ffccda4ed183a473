/*
 * start.c - the C half of the nocmsg runtime: command line, heap and the call to main.
 *
 * The command line comes from the simulator through semihosting (SYS_GET_CMDLINE): program name and arguments
 * separated by spaces, an argument containing spaces or quotes wrapped in double quotes with \" and \\ escaped.
 * The heap runs from the end of the program image to `nocmsg_boot.heap_end`, which the loader derives from this
 * chip's memory size, so the same binary adapts to any chip.
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

void *sbrk(ptrdiff_t increment)
{
    char *old = heap_top;
    uintptr_t limit = (uintptr_t)nocmsg_boot.heap_end;
    if ((increment > 0 && (uintptr_t)old + (uintptr_t)increment > limit) ||
        (increment < 0 && old + increment < __heap_start)) {
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
