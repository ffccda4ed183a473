/*
 * nocmsg_mpb.h - the SCC-style message-passing buffers of chips with ni.kind = "mpb" (crates/chip/src/ni/mpb.rs).
 *
 * Every core sees, at the same addresses:
 *   - the message-passing buffer (MPB) share of every running rank: nocmsg_mpb(rank), nocmsg_mpb_bytes() bytes;
 *     a share lives in the on-chip MPB of its core's router (the SCC: 16 KiB per tile, 8 KiB per core);
 *   - a test-and-set register per rank (RCCE's locks);
 *   - off-chip shared memory, nocmsg_shared_bytes() bytes at nocmsg_shared() (0 bytes on chips without [memory]);
 *   - a control page: invalidate the line cache, flush the write-combining buffer, read-only facts.
 *
 * Loads of MPB and shared memory are cached per core in lines and never refreshed by the hardware: invalidate
 * (nocmsg_mpb_invalidate, the SCC's CL1INVMB) before reading what another core may have written. Stores gather in
 * a one-line write-combining buffer that goes out when full, on a store to another line, before a load that misses,
 * or on nocmsg_mpb_flush(): flush after writing what another core is to read. Accesses must be naturally aligned;
 * atomic instructions are not allowed there. The pointers are volatile so that the compiler keeps every access.
 */
#ifndef NOCMSG_MPB_H
#define NOCMSG_MPB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NOCMSG_MPB_CONTROL_BASE 0x30000000UL
#define NOCMSG_MPB_TAS_BASE 0x30010000UL
#define NOCMSG_MPB_BASE 0x40000000UL
#define NOCMSG_SHARED_BASE 0x100000000UL

/* Control page: stores. */
#define NOCMSG_MPB_CTRL_INVALIDATE 0x00
#define NOCMSG_MPB_CTRL_FLUSH 0x08
/* Control page: read-only 8-byte registers. */
#define NOCMSG_MPB_INFO_MPB_BYTES 0x40
#define NOCMSG_MPB_INFO_LINE_BYTES 0x48
#define NOCMSG_MPB_INFO_SHARED_BASE 0x50
#define NOCMSG_MPB_INFO_SHARED_BYTES 0x58
#define NOCMSG_MPB_INFO_CONTROLLERS 0x60
#define NOCMSG_MPB_INFO_LOCAL_LATENCY 0x68

static inline uint64_t nocmsg_mpb_info(unsigned offset)
{
    return *(volatile uint64_t *)(NOCMSG_MPB_CONTROL_BASE + offset);
}

/* Bytes of MPB each rank owns. */
static inline size_t nocmsg_mpb_bytes(void) { return (size_t)nocmsg_mpb_info(NOCMSG_MPB_INFO_MPB_BYTES); }

/* Bytes of a line (the unit of the line cache, the write-combining buffer and transfers). */
static inline size_t nocmsg_mpb_line_bytes(void) { return (size_t)nocmsg_mpb_info(NOCMSG_MPB_INFO_LINE_BYTES); }

/* The MPB share of `rank`. */
static inline volatile void *nocmsg_mpb(int rank)
{
    return (volatile void *)(NOCMSG_MPB_BASE + (uintptr_t)rank * nocmsg_mpb_bytes());
}

/* Off-chip shared memory and its size. */
static inline volatile void *nocmsg_shared(void) { return (volatile void *)NOCMSG_SHARED_BASE; }
static inline size_t nocmsg_shared_bytes(void) { return (size_t)nocmsg_mpb_info(NOCMSG_MPB_INFO_SHARED_BYTES); }

/* Drops every cached MPB and shared-memory line (the SCC's CL1INVMB). */
static inline void nocmsg_mpb_invalidate(void)
{
    *(volatile uint64_t *)(NOCMSG_MPB_CONTROL_BASE + NOCMSG_MPB_CTRL_INVALIDATE) = 0;
}

/* Writes the write-combining buffer out and waits until it has arrived. */
static inline void nocmsg_mpb_flush(void)
{
    *(volatile uint64_t *)(NOCMSG_MPB_CONTROL_BASE + NOCMSG_MPB_CTRL_FLUSH) = 0;
}

/* Test-and-set register of `rank`: returns its old value (0: the caller has it now) and sets it. */
static inline uint64_t nocmsg_mpb_test_and_set(int rank)
{
    return *(volatile uint64_t *)(NOCMSG_MPB_TAS_BASE + 8 * (uintptr_t)rank);
}

/* Clears the test-and-set register of `rank`. */
static inline void nocmsg_mpb_clear(int rank)
{
    *(volatile uint64_t *)(NOCMSG_MPB_TAS_BASE + 8 * (uintptr_t)rank) = 0;
}

#ifdef __cplusplus
}
#endif

#endif /* NOCMSG_MPB_H */
