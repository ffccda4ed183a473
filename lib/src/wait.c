/*
 * wait.c: the rank's wait record (wait.h): where it lives, its state at init, finalize and exit, and natively the
 * evidence the launcher's deadlock detection needs from a blocked rank (heartbeat, backtrace).
 */
#ifndef NOCMSG_SIM
#define _GNU_SOURCE
#endif

#include "wait.h"

#include <stdlib.h>
#include <string.h>

#ifdef NOCMSG_SIM

struct nocmsg_wait_record nocmsg_wait_record;

void nocmsg_wait_init(void)
{
    WAIT_SET(magic, NOCMSG_WAIT_MAGIC);
    WAIT_SET(state, (uint32_t)NOCMSG_WAIT_RUNNING);
}

void nocmsg_wait_finalize(void)
{
    WAIT_SET(state, (uint32_t)NOCMSG_WAIT_FINALIZED);
}

void nocmsg_wait_idle(void) {}

#else

#include <link.h>
#ifdef __GLIBC__
#include <execinfo.h>
#endif

/* Where the record lives without a launcher, and after finalize (when the shared memory is gone). */
static struct nocmsg_wait_record private_record;
struct nocmsg_wait_record *nocmsg__wait = &private_record;

/* The program's executable code and its load bias, so that backtraces can be given relative to the ELF file. */
static struct {
    uintptr_t bias, lo, hi;
} image;

/* libnocmsg's own code: lib/Makefile puts it in a section of its own, for which the linker defines these. */
extern const char __start_nocmsg_text[] __attribute__((weak));
extern const char __stop_nocmsg_text[] __attribute__((weak));

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    image.bias = (uintptr_t)info->dlpi_addr;
    image.lo = UINTPTR_MAX;
    image.hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = image.bias + ph->p_vaddr, hi = lo + ph->p_memsz;
        image.lo = lo < image.lo ? lo : image.lo;
        image.hi = hi > image.hi ? hi : image.hi;
    }
    return 1; /* the first object is the program itself */
}

static void at_exit(void)
{
    uint32_t s = nocmsg__wait->state;
    if (s == NOCMSG_WAIT_RUNNING || s == NOCMSG_WAIT_BLOCKED)
        WAIT_SET(state, (uint32_t)NOCMSG_WAIT_EXITED);
}

void nocmsg_wait_init(void)
{
    static int registered;
    struct nocmsg_wait_record *slot = nocmsg_port_wait_slot();
    nocmsg__wait = slot ? slot : &private_record;
    if (!registered) {
        registered = atexit(at_exit) == 0;
        dl_iterate_phdr(first_object, NULL);
    }
    WAIT_SET(magic, NOCMSG_WAIT_MAGIC);
    WAIT_SET(state, (uint32_t)NOCMSG_WAIT_RUNNING);
    WAIT_SET(epoch, nocmsg__wait->epoch + 1);
}

void nocmsg_wait_finalize(void)
{
    WAIT_SET(state, (uint32_t)NOCMSG_WAIT_FINALIZED);
    WAIT_SET(epoch, nocmsg__wait->epoch + 1);
    /* The port unmaps the shared memory next; an exit after this must not touch it. */
    private_record = *nocmsg__wait;
    nocmsg__wait = &private_record;
}

/* Records where the rank is blocked: up to NOCMSG_WAIT_FRAMES return addresses ending with the first one outside
 * libnocmsg, so that the launcher sees the library's outermost frame (the call) and the caller. */
static void take_frames(struct nocmsg_wait_record *w)
{
#ifdef __GLIBC__
    void *pc[64];
    int n = backtrace(pc, 64);
    uint64_t frame[64];
    int caller = n; /* the first frame outside the library, after the library's own */
    int seen_lib = 0;
    for (int i = 0; i < n; i++) {
        uintptr_t a = (uintptr_t)pc[i];
        int in_lib = __start_nocmsg_text && a >= (uintptr_t)__start_nocmsg_text && a < (uintptr_t)__stop_nocmsg_text;
        frame[i] = a >= image.lo && a < image.hi ? (uint64_t)(a - image.bias) | (in_lib ? NOCMSG_WAIT_FRAME_LIB : 0) : 0;
        seen_lib |= in_lib;
        if (seen_lib && !in_lib && caller == n)
            caller = i;
    }
    int last = caller < n ? caller : n - 1;
    int first = last + 1 > NOCMSG_WAIT_FRAMES ? last + 1 - NOCMSG_WAIT_FRAMES : 0;
    for (int i = first; i <= last; i++)
        WAIT_SET(frame[i - first], frame[i]);
    WAIT_SET(frames, (uint32_t)(last + 1 - first));
#endif
    const char *call = (const char *)(uintptr_t)w->call;
    size_t len = call ? strnlen(call, sizeof w->name - 1) : 0;
    for (size_t i = 0; i < sizeof w->name; i++)
        WAIT_SET(name[i], i < len ? call[i] : '\0');
    __atomic_store_n(&w->frames_epoch, w->epoch, __ATOMIC_RELEASE);
}

void nocmsg_wait_idle(void)
{
    /* Idle calls (each after 64 polls in vain and a yield) since the record's epoch last changed: the frames are
     * taken once a wait has lasted this long, which keeps the backtrace's cost off waits that end quickly. */
    enum { FRAMES_AFTER_POLLS = 16 };
    static uint32_t epoch;
    static unsigned polls;
    struct nocmsg_wait_record *w = nocmsg__wait;
    if (w->state != NOCMSG_WAIT_BLOCKED)
        return;
    WAIT_SET(heartbeat, w->heartbeat + 1);
    if (w->epoch != epoch) {
        epoch = w->epoch;
        polls = 0;
    }
    if (w->frames_epoch != w->epoch && ++polls >= FRAMES_AFTER_POLLS)
        take_frames(w);
}

#endif /* NOCMSG_SIM */
