/* malloc.c - malloc/free/realloc/calloc stress with content verification.
 * Peak heap use is well under 256 KiB. The checksum depends only on
 * block contents, never on addresses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBLK 200

static unsigned char *blk[NBLK];
static size_t len[NBLK];

static uint32_t lcg_state = 7u;

static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return lcg_state;
}

static unsigned char pattern(int i, size_t k)
{
    return (unsigned char)((size_t)i * 31u + k * 7u + 1u);
}

static int check_block(int i, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (blk[i][k] != pattern(i, k))
            return 0;
    return 1;
}

static void fill_block(int i, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++)
        blk[i][k] = pattern(i, k);
}

int main(void)
{
    int errors = 0;
    uint32_t checksum = 0;

    /* 1. allocate and fill 200 blocks of 1..600 bytes */
    for (int i = 0; i < NBLK; i++) {
        len[i] = 1 + (lcg() >> 8) % 600u;
        blk[i] = malloc(len[i]);
        if (!blk[i]) {
            printf("FAIL: malloc(%lu) returned NULL\n", (unsigned long)len[i]);
            return 1;
        }
        fill_block(i, 0, len[i]);
    }

    /* 2. free every other block */
    for (int i = 0; i < NBLK; i += 2) {
        free(blk[i]);
        blk[i] = NULL;
    }

    /* 3. the survivors must be intact */
    for (int i = 1; i < NBLK; i += 2)
        if (!check_block(i, len[i]))
            errors++;

    /* 4. realloc every third survivor: grow or shrink, keep prefix */
    for (int i = 1; i < NBLK; i += 6) {
        size_t newlen = (i % 4 == 1) ? len[i] * 2 + 100 : len[i] / 2 + 1;
        size_t keep = newlen < len[i] ? newlen : len[i];
        unsigned char *p = realloc(blk[i], newlen);
        if (!p) {
            printf("FAIL: realloc(%lu) returned NULL\n", (unsigned long)newlen);
            return 1;
        }
        blk[i] = p;
        if (!check_block(i, keep))
            errors++;
        fill_block(i, keep, newlen);
        len[i] = newlen;
    }

    /* 5. re-allocate the freed slots with calloc, must be zeroed */
    for (int i = 0; i < NBLK; i += 2) {
        size_t n = 1 + (lcg() >> 8) % 300u;
        size_t sz = 1 + i % 8;
        blk[i] = calloc(n, sz);
        if (!blk[i]) {
            printf("FAIL: calloc returned NULL\n");
            return 1;
        }
        len[i] = n * sz;
        for (size_t k = 0; k < len[i]; k++)
            if (blk[i][k] != 0) {
                errors++;
                break;
            }
        fill_block(i, 0, len[i]);
    }

    /* 6. verify everything, compute checksum, free all */
    for (int i = 0; i < NBLK; i++) {
        if (!check_block(i, len[i]))
            errors++;
        for (size_t k = 0; k < len[i]; k++)
            checksum = checksum * 33u + blk[i][k];
        checksum += (uint32_t)len[i];
        free(blk[i]);
        blk[i] = NULL;
    }

    /* 7. realloc(NULL, n) acts as malloc; a large block after churn */
    unsigned char *big = realloc(NULL, 32768);
    if (!big) {
        printf("FAIL: realloc(NULL, 32768) returned NULL\n");
        return 1;
    }
    memset(big, 0xA5, 32768);
    for (int k = 0; k < 32768; k++)
        if (big[k] != 0xA5) {
            errors++;
            break;
        }
    free(big);

    if (errors) {
        printf("malloc FAIL: %d errors\n", errors);
        return 1;
    }
    printf("malloc ok\n");
    printf("checksum %08lx\n", (unsigned long)checksum);
    return 0;
}
