/* semihost.c - exercises the semihosting calls picolibc does not use for printf: files (open, write, seek, flen,
 * read, close), heap information, simulated time and the error number. Prints facts a test checks. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <nocmsg_core.h>
#include <nocmsg_semihost.h>

int main(void)
{
    /* Files: write a file, reopen it, check its length, seek and read back. */
    const char *name = "semihost-test.txt";
    struct { const char *name; uintptr_t mode; uintptr_t len; } open_w = {name, 4, strlen(name)};
    long h = (long)nocmsg_semihost(NOCMSG_SYS_OPEN, &open_w);
    const char text[] = "0123456789abcdef";
    struct { uintptr_t h; const void *buf; uintptr_t len; } wr = {(uintptr_t)h, text, 16};
    long not_written = (long)nocmsg_semihost(NOCMSG_SYS_WRITE, &wr);
    struct { uintptr_t h; } cl = {(uintptr_t)h};
    long closed = (long)nocmsg_semihost(NOCMSG_SYS_CLOSE, &cl);
    printf("write: handle %s, not written %ld, close %ld\n", h > 0 ? "ok" : "bad", not_written, closed);

    struct { const char *name; uintptr_t mode; uintptr_t len; } open_r = {name, 1, strlen(name)};
    h = (long)nocmsg_semihost(NOCMSG_SYS_OPEN, &open_r);
    struct { uintptr_t h; } fl = {(uintptr_t)h};
    long len = (long)nocmsg_semihost(NOCMSG_SYS_FLEN, &fl);
    struct { uintptr_t h; uintptr_t pos; } sk = {(uintptr_t)h, 10};
    long seek = (long)nocmsg_semihost(NOCMSG_SYS_SEEK, &sk);
    char back[16] = {0};
    struct { uintptr_t h; void *buf; uintptr_t len; } rd = {(uintptr_t)h, back, 10};
    long not_read = (long)nocmsg_semihost(NOCMSG_SYS_READ, &rd);
    cl.h = (uintptr_t)h;
    nocmsg_semihost(NOCMSG_SYS_CLOSE, &cl);
    printf("read: flen %ld, seek %ld, not read %ld, data \"%s\"\n", len, seek, not_read, back);

    /* Refused: a path outside the working directory, and a missing file. */
    const char *outside = "../escape.txt";
    struct { const char *name; uintptr_t mode; uintptr_t len; } open_o = {outside, 4, strlen(outside)};
    long bad = (long)nocmsg_semihost(NOCMSG_SYS_OPEN, &open_o);
    long err = (long)nocmsg_semihost(NOCMSG_SYS_ERRNO, 0);
    printf("outside: handle %ld errno %ld\n", bad, err);
    const char *missing = "no-such-file.txt";
    struct { const char *name; uintptr_t mode; uintptr_t len; } open_m = {missing, 0, strlen(missing)};
    bad = (long)nocmsg_semihost(NOCMSG_SYS_OPEN, &open_m);
    err = (long)nocmsg_semihost(NOCMSG_SYS_ERRNO, 0);
    printf("missing: handle %ld errno %ld\n", bad, err);

    /* Heap information agrees with the boot block. */
    uintptr_t info[4];
    void *block = info;
    nocmsg_semihost(NOCMSG_SYS_HEAPINFO, &block);
    printf("heapinfo: heap_limit==boot.heap_end %d, stack_base==boot.stack_top %d, heap below limit %d\n",
           info[1] == nocmsg_boot.heap_end, info[2] == nocmsg_boot.stack_top, info[0] < info[1]);

    /* Simulated time. */
    uint64_t freq = nocmsg_semihost(NOCMSG_SYS_TICKFREQ, 0);
    uint64_t ticks = 0;
    nocmsg_semihost(NOCMSG_SYS_ELAPSED, &ticks);
    uint64_t cycles = nocmsg_cycles();
    printf("time: tickfreq==boot.frequency %d, elapsed<=cycle %d, elapsed>0 %d\n", freq == nocmsg_frequency_hz(),
           ticks <= cycles, ticks > 0);
    return 0;
}
