/* crc32.c - CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320),
 * bitwise and table-driven, must agree. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BUFSZ 4096

static uint32_t table[256];
static unsigned char buf[BUFSZ];

static uint32_t crc32_bitwise(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}

static void crc32_init_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        table[i] = c;
    }
}

static uint32_t crc32_table(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

int main(void)
{
    static const char check[] = "123456789";
    int ok = 1;

    crc32_init_table();

    uint32_t c1 = crc32_bitwise((const unsigned char *)check, strlen(check));
    uint32_t c2 = crc32_table((const unsigned char *)check, strlen(check));
    printf("crc32(\"123456789\") bitwise %08lx table %08lx\n",
           (unsigned long)c1, (unsigned long)c2);
    if (c1 != c2 || c1 != 0xCBF43926u)
        ok = 0;

    uint32_t s = 0xC0FFEEu;
    for (int i = 0; i < BUFSZ; i++) {
        s = s * 1664525u + 1013904223u;
        buf[i] = (unsigned char)(s >> 24);
    }
    uint32_t d1 = crc32_bitwise(buf, BUFSZ);
    uint32_t d2 = crc32_table(buf, BUFSZ);
    printf("crc32(buf[%d]) bitwise %08lx table %08lx\n",
           BUFSZ, (unsigned long)d1, (unsigned long)d2);
    if (d1 != d2)
        ok = 0;

    printf(ok ? "crc32 ok\n" : "crc32 FAIL\n");
    return ok ? 0 : 1;
}
