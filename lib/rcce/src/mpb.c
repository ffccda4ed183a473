/*
 * mpb.c - MPB and shared memory: copies, RCCE_put/RCCE_get, RCCE_malloc/RCCE_free, RCCE_shmalloc/RCCE_shfree.
 *
 * The interface moves whole lines whatever the access width, but every access is an instruction, and every access
 * must be naturally aligned: copies use 8-byte accesses wherever the MPB side is aligned (assembling words from a
 * misaligned private buffer with memcpy) and single bytes at the edges.
 */
#include <string.h>

#include "internal.h"

void rcce_copy_to_mpb(t_vcharp dst, const unsigned char *src, size_t n)
{
    while (n > 0 && ((uintptr_t)dst & 7) != 0) {
        *dst++ = *src++;
        n--;
    }
    volatile uint64_t *d = (volatile uint64_t *)dst;
    if (((uintptr_t)src & 7) == 0) {
        const uint64_t *s = (const uint64_t *)src;
        for (; n >= 8; n -= 8) *d++ = *s++;
        src = (const unsigned char *)s;
    } else {
        for (; n >= 8; n -= 8, src += 8) {
            uint64_t w;
            memcpy(&w, src, 8);
            *d++ = w;
        }
    }
    dst = (t_vcharp)d;
    while (n-- > 0) *dst++ = *src++;
}

void rcce_copy_from_mpb(unsigned char *dst, t_vcharp src, size_t n)
{
    while (n > 0 && ((uintptr_t)src & 7) != 0) {
        *dst++ = *src++;
        n--;
    }
    volatile const uint64_t *s = (volatile const uint64_t *)src;
    if (((uintptr_t)dst & 7) == 0) {
        uint64_t *d = (uint64_t *)dst;
        for (; n >= 8; n -= 8) *d++ = *s++;
        dst = (unsigned char *)d;
    } else {
        for (; n >= 8; n -= 8, dst += 8) {
            uint64_t w = *s++;
            memcpy(dst, &w, 8);
        }
    }
    src = (t_vcharp)s;
    while (n-- > 0) *dst++ = *src++;
}

/* Whether [addr, addr + n) lies in the caller's own share (an address put and get may translate). */
static int in_own_share(t_vcharp addr, int n)
{
    uintptr_t own = rcce_state.mpb_base + (uintptr_t)rcce_state.ue * rcce_state.share;
    uintptr_t a = (uintptr_t)addr;
    return a >= own && a - own <= rcce_state.share && (size_t)n <= rcce_state.share - (a - own);
}

int RCCE_put(t_vcharp target, t_vcharp source, int num_bytes, int id)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_COMM, "RCCE_put");
    if (!rcce_valid_ue(id)) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_put");
    if (num_bytes < 0) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, "RCCE_put");
    if (!in_own_share(target, num_bytes)) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_TARGET, "RCCE_put");
    if (num_bytes == 0) return RCCE_SUCCESS;
    rcce_copy_to_mpb(rcce_mpb_at(id, rcce_own_offset(target)), (const unsigned char *)source, (size_t)num_bytes);
    nocmsg_mpb_flush();
    return RCCE_SUCCESS;
}

int RCCE_get(t_vcharp target, t_vcharp source, int num_bytes, int id)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_COMM, "RCCE_get");
    if (!rcce_valid_ue(id)) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_get");
    if (num_bytes < 0) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, "RCCE_get");
    if (!in_own_share(source, num_bytes)) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_SOURCE, "RCCE_get");
    if (num_bytes == 0) return RCCE_SUCCESS;
    nocmsg_mpb_invalidate();
    rcce_copy_from_mpb((unsigned char *)target, rcce_mpb_at(id, rcce_own_offset(source)), (size_t)num_bytes);
    return RCCE_SUCCESS;
}

void rcce_arena_init(struct rcce_arena *arena, size_t bytes)
{
    arena->bytes = bytes;
    arena->count = 0;
}

size_t rcce_arena_alloc(struct rcce_arena *arena, size_t size)
{
    size = (size + RCCE_LINE_SIZE - 1) / RCCE_LINE_SIZE * RCCE_LINE_SIZE;
    if (size == 0) size = RCCE_LINE_SIZE;
    if (arena->count == RCCE_ARENA_BLOCKS) return (size_t)-1;
    size_t at = 0;
    int i = 0;
    for (; i <= arena->count; i++) {
        size_t end = i < arena->count ? arena->offset[i] : arena->bytes;
        if (end >= at && end - at >= size) break;
        if (i < arena->count) at = arena->offset[i] + arena->size[i];
    }
    if (i > arena->count) return (size_t)-1;
    memmove(&arena->offset[i + 1], &arena->offset[i], (size_t)(arena->count - i) * sizeof arena->offset[0]);
    memmove(&arena->size[i + 1], &arena->size[i], (size_t)(arena->count - i) * sizeof arena->size[0]);
    arena->offset[i] = at;
    arena->size[i] = size;
    arena->count++;
    return at;
}

int rcce_arena_free(struct rcce_arena *arena, size_t offset)
{
    for (int i = 0; i < arena->count; i++) {
        if (arena->offset[i] == offset) {
            memmove(&arena->offset[i], &arena->offset[i + 1], (size_t)(arena->count - i - 1) * sizeof arena->offset[0]);
            memmove(&arena->size[i], &arena->size[i + 1], (size_t)(arena->count - i - 1) * sizeof arena->size[0]);
            arena->count--;
            return 0;
        }
    }
    return -1;
}

t_vcharp RCCE_malloc(size_t size)
{
    if (!rcce_state.initialized) return NULL;
    size_t at = rcce_arena_alloc(&rcce_state.heap, size);
    if (at == (size_t)-1) {
        rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_malloc");
        return NULL;
    }
    return rcce_mpb_at(rcce_state.ue, rcce_state.heap_offset + at);
}

void RCCE_free(t_vcharp ptr)
{
    if (!rcce_state.initialized || ptr == NULL) return;
    size_t offset = rcce_own_offset(ptr) - rcce_state.heap_offset;
    if (rcce_own_offset(ptr) < rcce_state.heap_offset || rcce_arena_free(&rcce_state.heap, offset) != 0)
        rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_free");
}

t_vcharp RCCE_shmalloc(size_t size)
{
    if (!rcce_state.initialized) return NULL;
    size_t at = rcce_arena_alloc(&rcce_state.shared, size);
    if (at == (size_t)-1) {
        rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_shmalloc");
        return NULL;
    }
    return (t_vcharp)nocmsg_shared() + at;
}

void RCCE_shfree(t_vcharp ptr)
{
    if (!rcce_state.initialized || ptr == NULL) return;
    size_t offset = (size_t)((uintptr_t)ptr - (uintptr_t)nocmsg_shared());
    if (rcce_arena_free(&rcce_state.shared, offset) != 0) rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MALLOC, "RCCE_shfree");
}
