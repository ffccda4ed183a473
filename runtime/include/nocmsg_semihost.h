/*
 * nocmsg_semihost.h - the RISC-V semihosting call, for the runtime and for programs that want to call it directly.
 *
 * A semihosting request is the instruction sequence `slli x0, x0, 0x1f; ebreak; srai x0, x0, 7` with the operation
 * number in a0 and a pointer to its parameter block in a1; the result comes back in a0 (RISC-V semihosting spec,
 * operations as in the Arm semihosting specification). NOCMSG_SYS_ABORT and NOCMSG_SYS_SLEEP are the simulator's own
 * (docs/cores.md); on another semihosting host they are unknown operations.
 */
#ifndef NOCMSG_SEMIHOST_H
#define NOCMSG_SEMIHOST_H

#include <stdint.h>

enum {
    NOCMSG_SYS_OPEN = 0x01,
    NOCMSG_SYS_CLOSE = 0x02,
    NOCMSG_SYS_WRITEC = 0x03,
    NOCMSG_SYS_WRITE0 = 0x04,
    NOCMSG_SYS_WRITE = 0x05,
    NOCMSG_SYS_READ = 0x06,
    NOCMSG_SYS_ISTTY = 0x09,
    NOCMSG_SYS_SEEK = 0x0a,
    NOCMSG_SYS_FLEN = 0x0c,
    NOCMSG_SYS_CLOCK = 0x10,
    NOCMSG_SYS_TIME = 0x11,
    NOCMSG_SYS_ERRNO = 0x13,
    NOCMSG_SYS_GET_CMDLINE = 0x15,
    NOCMSG_SYS_HEAPINFO = 0x16,
    NOCMSG_SYS_EXIT = 0x18,
    NOCMSG_SYS_EXIT_EXTENDED = 0x20,
    NOCMSG_SYS_ELAPSED = 0x30,
    NOCMSG_SYS_TICKFREQ = 0x31,
    /* nocmsg's own operations, in the range the specification leaves to applications (0x100-0x1ff). */
    NOCMSG_SYS_ABORT = 0x100, /* block {code}: end the whole run (every core) with this code */
    NOCMSG_SYS_SLEEP = 0x101, /* block {seconds, nanoseconds}: this core's clock moves on that much */
    NOCMSG_SYS_ENVIRON = 0x102, /* block {buffer, capacity}: "NAME=VALUE\0...\0\0" if it fits; returns its size */
    NOCMSG_SYS_PROFILE = 0x103, /* block {kind, region, peer, tag, bytes, flags, site}: a communication profile record */
    NOCMSG_SYS_THREAD_INFO = 0x104, /* block {index, count}: this core's thread index and its process's cores */
    NOCMSG_SYS_THREAD_START = 0x105, /* block {thread, pc, a0, a1, tp}: start an idle core of the process; 0 or -1 */
    NOCMSG_SYS_THREAD_EXIT = 0x106, /* block {value}: end this thread (its core idles); does not return */
    NOCMSG_SYS_THREAD_JOIN = 0x107, /* block {thread, value}: wait for it to end, its value to the block; 0 or -1 */
};

static inline uintptr_t nocmsg_semihost(uintptr_t op, void *arg)
{
    register uintptr_t a0 __asm__("a0") = op;
    register void *a1 __asm__("a1") = arg;
    __asm__ volatile(".option push\n\t.option norvc\n\t"
                     "slli x0, x0, 0x1f\n\tebreak\n\tsrai x0, x0, 7\n\t"
                     ".option pop"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
    return a0;
}

#endif /* NOCMSG_SEMIHOST_H */
