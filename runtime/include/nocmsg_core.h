/*
 * nocmsg_core.h - what a program running on a simulated nocmsg chip can ask about its core.
 *
 * Every core runs its own copy of the same program (SPMD) in its own private memory. Before a core starts, the
 * simulator fills in a boot block (`nocmsg_boot`) with the facts that differ between cores or chips; these
 * functions read it, or read the core's CSRs directly.
 */
#ifndef NOCMSG_CORE_H
#define NOCMSG_CORE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Filled in by the simulator's loader (layout fixed: the loader writes it field by field, version 1). */
struct nocmsg_boot_info {
    uint64_t magic;          /* NOCMSG_BOOT_MAGIC once filled in */
    uint64_t version;        /* 1 */
    uint64_t core_id;        /* this core, 0 .. num_cores-1 (the rank of the core among those running) */
    uint64_t num_cores;      /* cores running the program */
    uint64_t mesh_width;     /* routers in x */
    uint64_t mesh_height;    /* routers in y */
    uint64_t concentration;  /* cores per router */
    uint64_t frequency_hz;   /* core clock, for converting cycles to seconds */
    uint64_t stack_top;      /* initial stack pointer (end of this core's private memory) */
    uint64_t heap_end;       /* first byte the heap must not reach (bottom of the stack reservation) */
    uint64_t tile_id;        /* physical tile of this core (differs from core_id when running on a subset) */
};

#define NOCMSG_BOOT_MAGIC 0x6e6f636d73672121ULL /* "nocmsg!!" */

extern volatile struct nocmsg_boot_info nocmsg_boot;

/* This core's rank among the cores running the program. */
static inline int nocmsg_core_id(void) { return (int)nocmsg_boot.core_id; }

/* Number of cores running the program. */
static inline int nocmsg_num_cores(void) { return (int)nocmsg_boot.num_cores; }

/* The hardware thread id (mhartid): the physical tile index. */
static inline uint64_t nocmsg_hart_id(void)
{
    uint64_t id;
    __asm__ volatile("csrr %0, mhartid" : "=r"(id));
    return id;
}

/* Cycles this core has run (the `cycle` CSR). */
static inline uint64_t nocmsg_cycles(void)
{
    uint64_t c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

/* Instructions this core has retired (the `instret` CSR). */
static inline uint64_t nocmsg_instret(void)
{
    uint64_t n;
    __asm__ volatile("rdinstret %0" : "=r"(n));
    return n;
}

/* Core clock frequency in Hz. */
static inline uint64_t nocmsg_frequency_hz(void) { return nocmsg_boot.frequency_hz; }

#ifdef __cplusplus
}
#endif

#endif /* NOCMSG_CORE_H */
