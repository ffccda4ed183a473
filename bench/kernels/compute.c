/* compute.c - the compute kernel of `make bench` (simulated MIPS): integer matrix multiply, CRC-32 and an
 * insertion sort, the mix of ALU, multiply, load/store and branch work of a typical embedded kernel. Every core
 * runs the same work on data seeded by its core id; the result is printed by core 0 so the work cannot be
 * optimised away. Size: ROUNDS (argv[1], default 4) repetitions of about 0.8 million instructions each. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef NOCMSG_SIM
#include <nocmsg_core.h>
#else
static int nocmsg_core_id(void) { return 0; }
#endif

#define N 20
#define BYTES 2048
#define KEYS 256

static int32_t a[N][N], b[N][N], c[N][N];
static uint8_t buf[BYTES];
static int32_t keys[KEYS];

static uint32_t crc32(const uint8_t *p, int n)
{
    uint32_t crc = 0xffffffffu;
    for (int i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 4;
    uint32_t x = 2463534242u + (uint32_t)nocmsg_core_id();
    uint64_t check = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                a[i][j] = (int32_t)(x & 0xff) - 128;
                b[j][i] = (int32_t)(x >> 24) - 128;
            }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                int32_t s = 0;
                for (int k = 0; k < N; k++)
                    s += a[i][k] * b[k][j];
                c[i][j] = s;
            }
        for (int i = 0; i < BYTES; i++)
            buf[i] = (uint8_t)(c[i % N][(i / N) % N] ^ i);
        check += crc32(buf, BYTES);
        for (int i = 0; i < KEYS; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            keys[i] = (int32_t)(x % 100000);
        }
        for (int i = 1; i < KEYS; i++) {
            int32_t k = keys[i];
            int j = i - 1;
            while (j >= 0 && keys[j] > k) {
                keys[j + 1] = keys[j];
                j--;
            }
            keys[j + 1] = k;
        }
        check += (uint64_t)keys[0] + (uint64_t)keys[KEYS - 1] + (uint64_t)c[N - 1][N - 1];
    }
    if (nocmsg_core_id() == 0)
        printf("compute: %d rounds, check %llu\n", rounds, (unsigned long long)check);
    return 0;
}
