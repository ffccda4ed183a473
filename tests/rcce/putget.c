/*
 * putget.c - the one-sided pieces: RCCE_malloc (same offsets on every UE, first fit, exhaustion and reuse),
 * RCCE_put/RCCE_get between private memory and other UEs' MPBs at aligned and misaligned addresses, flags
 * (alloc, write to another UE, wait, read, test, free, misuse), and RCCE_shmalloc in off-chip shared memory.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"

static unsigned char src[512], dst[512];

/* The offset of an address of the caller's share, the same on every UE if the allocations agree. */
static long offset_of(t_vcharp p) { return (long)(p - (t_vcharp)nocmsg_mpb(RCCE_ue())); }

/* Whether every UE has the same value (a min and a max allreduce). */
static int same_everywhere(long v)
{
    long lo, hi;
    OK(RCCE_allreduce((char *)&v, (char *)&lo, 1, RCCE_LONG, RCCE_MIN, RCCE_COMM_WORLD));
    OK(RCCE_allreduce((char *)&v, (char *)&hi, 1, RCCE_LONG, RCCE_MAX, RCCE_COMM_WORLD));
    return lo == hi;
}

int RCCE_APP(int argc, char **argv)
{
    OK(RCCE_init(&argc, &argv));
    int me = RCCE_ue(), n = RCCE_num_ues();
    int next = (me + 1) % n, prev = (me + n - 1) % n;

    /* RCCE_malloc: line-aligned, after the comm buffer, the same offset everywhere. */
    t_vcharp buf = RCCE_malloc(300);
    CHECK(buf != NULL, "RCCE_malloc(300)");
    CHECK(offset_of(buf) % RCCE_LINE_SIZE == 0 && (size_t)offset_of(buf) >= RCCE_COMM_BUFFER_OFFSET + RCCE_comm_buffer_bytes(),
          "RCCE_malloc returned offset %ld", offset_of(buf));
    CHECK(same_everywhere(offset_of(buf)), "RCCE_malloc's offsets differ between UEs");
    RCCE_FLAG flag;
    OK(RCCE_flag_alloc(&flag));
    OK(RCCE_barrier(&RCCE_COMM_WORLD));

    /* Put into the next UE's buffer, at misaligned MPB and private addresses, and tell it. */
    for (int i = 0; i < 300; i++) src[i] = pattern((size_t)i, 300, me, next);
    OK(RCCE_put(buf + 5, (t_vcharp)(src + 1), 200, next));
    OK(RCCE_put(buf, (t_vcharp)src, 5, next));
    OK(RCCE_flag_write(&flag, RCCE_FLAG_SET, next));
    OK(RCCE_wait_until(flag, RCCE_FLAG_SET));
    memset(dst, 0, sizeof dst);
    OK(RCCE_get((t_vcharp)(dst + 3), buf, 205, me));
    for (int i = 0; i < 205; i++) {
        int from = i < 5 ? i : i - 4; /* bytes 0..4 are src[0..4], then src[1..200] */
        CHECK(dst[3 + i] == pattern((size_t)from, 300, prev, me), "put from %d: byte %d is %u", prev, i, dst[3 + i]);
    }
    int test = -1;
    OK(RCCE_test_flag(flag, RCCE_FLAG_SET, &test));
    CHECK(test == 1, "test_flag of a set flag: %d", test);
    OK(RCCE_flag_write(&flag, RCCE_FLAG_UNSET, me));
    OK(RCCE_barrier(&RCCE_COMM_WORLD));
    /* Get straight from the previous UE's MPB: what its own previous UE put there. */
    memset(dst, 0, sizeof dst);
    OK(RCCE_get((t_vcharp)dst, buf + 5, 200, prev));
    int pprev = (prev + n - 1) % n;
    for (int i = 0; i < 200; i++)
        CHECK(dst[i] == pattern((size_t)i + 1, 300, pprev, prev), "get from %d: byte %d is %u", prev, i, dst[i]);
    RCCE_FLAG_STATUS status = -1;
    OK(RCCE_flag_read(flag, &status, next));
    CHECK(status == RCCE_FLAG_UNSET, "flag of UE %d reads %d after it cleared it", next, status);
    OK(RCCE_test_flag(flag, RCCE_FLAG_SET, &test));
    CHECK(test == 0, "test_flag of a clear flag: %d", test);
    if (me == 0) printf("put/get and flags between neighbours ok\n");

    /* Misuse. */
    CHECK(RCCE_flag_write(&flag, 7, next) == RCCE_ERROR_FLAG_STATUS_UNDEFINED, "flag value 7");
    CHECK(RCCE_flag_write(&flag, RCCE_FLAG_SET, n) == RCCE_ERROR_ID, "flag of UE %d", n);
    CHECK(RCCE_put((t_vcharp)src, (t_vcharp)src, 8, next) == RCCE_ERROR_TARGET, "put to private memory");
    CHECK(RCCE_get((t_vcharp)dst, buf, 8, -1) == RCCE_ERROR_ID, "get from UE -1");
    OK(RCCE_flag_free(&flag));
    CHECK(RCCE_flag_free(&flag) == RCCE_ERROR_FLAG_NOT_ALLOCATED, "flag freed twice");
    CHECK(RCCE_wait_until(flag, RCCE_FLAG_SET) == RCCE_ERROR_FLAG_UNDEFINED, "waiting on a freed flag");
    char text[RCCE_MAX_ERROR_STRING];
    int len = 0;
    CHECK(RCCE_error_string(-5, text, &len) == RCCE_ERROR_INVALID_ERROR_CODE, "error string of an unknown code");
    OK(RCCE_error_string(RCCE_ERROR_ID, text, &len));
    CHECK(len > 0 && strlen(text) == (size_t)len, "error string");
    if (me == 0) printf("misuse reported: %s\n", text);

    /* Exhaust the RCCE_malloc area in blocks of 1000 bytes (1024 with rounding), free every other one, and take
     * them again: first fit gives the same offsets back. */
    t_vcharp blocks[64];
    int count = 0;
    while (count < 64 && (blocks[count] = RCCE_malloc(1000)) != NULL) count++;
    size_t room = RCCE_malloc_bytes() - 320; /* 300 rounded to lines is still taken */
    CHECK(count == (int)(room / 1024), "%d blocks of 1000 bytes in %zu bytes", count, room);
    for (int i = 0; i < count; i += 2) RCCE_free(blocks[i]);
    for (int i = 0; i < count; i += 2) {
        t_vcharp again = RCCE_malloc(1000);
        CHECK(again == blocks[i], "block %d came back at %ld, was at %ld", i, offset_of(again), offset_of(blocks[i]));
    }
    for (int i = 0; i < count; i++) RCCE_free(blocks[i]);
    RCCE_free(buf);
    CHECK(RCCE_malloc(RCCE_malloc_bytes() + 1) == NULL, "more than the whole area");
    t_vcharp whole = RCCE_malloc(RCCE_malloc_bytes());
    CHECK(whole != NULL, "the whole area after freeing everything");
    RCCE_free(whole);
    if (me == 0) printf("RCCE_malloc: exhaustion, first fit and reuse ok\n");

    /* Shared memory: UE 0 writes, the others read after a barrier. */
    t_vcharp shared = RCCE_shmalloc(4096);
    if (nocmsg_shared_bytes() == 0) {
        CHECK(shared == NULL, "RCCE_shmalloc without shared memory");
        if (me == 0) printf("RCCE_shmalloc: no shared memory on this chip\n");
    } else {
        CHECK(shared != NULL, "RCCE_shmalloc(4096)");
        CHECK(same_everywhere((long)(uintptr_t)shared), "RCCE_shmalloc's addresses differ");
        if (me == 0) {
            for (int i = 0; i < 4096; i++) shared[i] = pattern((size_t)i, 4096, 0, 1);
            nocmsg_mpb_flush();
        }
        OK(RCCE_barrier(&RCCE_COMM_WORLD));
        RC_cache_invalidate();
        for (int i = 0; i < 4096; i++) CHECK(shared[i] == pattern((size_t)i, 4096, 0, 1), "shared byte %d is %u", i, shared[i]);
        RCCE_shfree(shared);
        if (me == 0) printf("RCCE_shmalloc: 4096 bytes written by UE 0 read by all ok\n");
    }
    OK(RCCE_finalize());
    return 0;
}
