/*
 * internal.h - state and helpers shared by the files of lib/rcce (not part of the API).
 *
 * Everything a UE knows is private to it: its id, the geometry of the MPB shares and the allocation maps of the
 * flag area, the RCCE_malloc area and shared memory. The maps agree between UEs because every UE makes the same
 * calls in the same order (RCCE's rule), so no allocation needs a message.
 */
#ifndef RCCE_INTERNAL_H
#define RCCE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "RCCE.h"

/* First-fit allocation of line-aligned blocks in [0, bytes) of some region (RCCE_malloc, RCCE_shmalloc). */
#define RCCE_ARENA_BLOCKS 128
struct rcce_arena {
    size_t bytes;
    int count;                          /* blocks in use, sorted by offset */
    size_t offset[RCCE_ARENA_BLOCKS];
    size_t size[RCCE_ARENA_BLOCKS];
};

struct rcce_state {
    int initialized;
    int ue, num_ues;
    uintptr_t mpb_base;     /* share of UE 0; UE u's is at mpb_base + u * share */
    size_t share;           /* bytes of MPB per UE */
    size_t comm_bytes;      /* bytes of the comm buffer (one chunk) */
    size_t heap_offset;     /* where the RCCE_malloc area starts in a share */
    struct rcce_arena heap;
    struct rcce_arena shared;
    unsigned char flag_used[RCCE_FLAG_BYTES];
    int debug;              /* RCCE_DEBUG_* categories that print their errors (bit per category) */
};

extern struct rcce_state rcce_state;

/* Byte `offset` of UE ue's share. */
static inline t_vcharp rcce_mpb_at(int ue, size_t offset)
{
    return (t_vcharp)(rcce_state.mpb_base + (uintptr_t)ue * rcce_state.share + offset);
}

/* Offset in a share of an address in the caller's own share. */
static inline size_t rcce_own_offset(t_vcharp addr)
{
    return (size_t)((uintptr_t)addr - (rcce_state.mpb_base + (uintptr_t)rcce_state.ue * rcce_state.share));
}

static inline int rcce_valid_ue(int ue) { return ue >= 0 && ue < rcce_state.num_ues; }

/* Copies between private memory and an MPB (or shared memory) with the widest naturally aligned accesses the
 * addresses allow (the interface refuses misaligned ones). No flush or invalidation: the callers do that. */
void rcce_copy_to_mpb(t_vcharp dst, const unsigned char *src, size_t n);
void rcce_copy_from_mpb(unsigned char *dst, t_vcharp src, size_t n);

/* Flags by address: store a value and flush; invalidate and load; spin until a value. */
void rcce_flag_store(t_vcharp flag, unsigned char value);
unsigned char rcce_flag_load(t_vcharp flag);
void rcce_flag_spin(t_vcharp flag, unsigned char value);

/* Arena allocation (offsets; (size_t)-1 when full) and release (0, or -1 for an unknown offset). */
void rcce_arena_init(struct rcce_arena *arena, size_t bytes);
size_t rcce_arena_alloc(struct rcce_arena *arena, size_t size);
int rcce_arena_free(struct rcce_arena *arena, size_t offset);

/* Returns err after printing it on stderr if `category` is being debugged (RCCE_DEBUG_COMM, _SYNCH, ...). */
int rcce_error(int category, int err, const char *where);

#define RCCE_CHECK_INIT(category, where) \
    do { \
        if (!rcce_state.initialized) return rcce_error(category, RCCE_ERROR_NOT_INITIALIZED, where); \
    } while (0)

#endif /* RCCE_INTERNAL_H */
