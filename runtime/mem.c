/*
 * mem.c: memcpy, memmove and memset for simulated cores.
 *
 * Debian's picolibc for RV64 ships the size-optimised byte-at-a-time versions, which make every struct copy
 * and message buffer cost several cycles per byte. These move 8-byte words when the pointers allow, and
 * override the library's (the runtime is linked first). Built with -fno-builtin and without loop-pattern
 * recognition, so the compiler cannot turn the loops back into calls to themselves.
 */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if ((((uintptr_t)d ^ (uintptr_t)s) & 7) == 0) {
        while (n && ((uintptr_t)d & 7)) {
            *d++ = *s++;
            n--;
        }
        uint64_t *dw = (uint64_t *)(void *)d;
        const uint64_t *sw = (const uint64_t *)(const void *)s;
        for (; n >= 32; n -= 32, dw += 4, sw += 4) {
            uint64_t a = sw[0], b = sw[1], c = sw[2], e = sw[3];
            dw[0] = a;
            dw[1] = b;
            dw[2] = c;
            dw[3] = e;
        }
        for (; n >= 8; n -= 8)
            *dw++ = *sw++;
        d = (unsigned char *)dw;
        s = (const unsigned char *)sw;
    }
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d == s || n == 0)
        return dst;
    if (d < s || d >= s + n)
        return memcpy(dst, src, n);
    /* Overlapping with the destination above: copy backwards. */
    d += n;
    s += n;
    if ((((uintptr_t)d ^ (uintptr_t)s) & 7) == 0) {
        while (n && ((uintptr_t)d & 7)) {
            *--d = *--s;
            n--;
        }
        for (; n >= 8; n -= 8) {
            d -= 8;
            s -= 8;
            *(uint64_t *)(void *)d = *(const uint64_t *)(const void *)s;
        }
    }
    while (n--)
        *--d = *--s;
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    unsigned char byte = (unsigned char)c;
    while (n && ((uintptr_t)d & 7)) {
        *d++ = byte;
        n--;
    }
    uint64_t word = byte * 0x0101010101010101ull;
    uint64_t *dw = (uint64_t *)(void *)d;
    for (; n >= 32; n -= 32, dw += 4) {
        dw[0] = word;
        dw[1] = word;
        dw[2] = word;
        dw[3] = word;
    }
    for (; n >= 8; n -= 8)
        *dw++ = word;
    d = (unsigned char *)dw;
    while (n--)
        *d++ = byte;
    return dst;
}
