/* kernels.c - times the assembly kernels of kernels.S with the cycle and instret CSRs; the printed numbers are
 * golden (see tests/sim/kernels.expected) and pin the core timing model. */
#include <stdint.h>
#include <stdio.h>
#include <nocmsg_core.h>

uint64_t kernel_sum(const uint64_t *a, uint64_t n);
uint64_t kernel_muldiv(uint64_t x, uint64_t n);
void kernel_bubble(int32_t *a, uint64_t n);

static uint64_t data[256];
static int32_t keys[48];

#define TIME(label, call)                                                                                  \
    do {                                                                                                   \
        uint64_t c0 = nocmsg_cycles(), i0 = nocmsg_instret();                                              \
        call;                                                                                              \
        uint64_t c1 = nocmsg_cycles(), i1 = nocmsg_instret();                                              \
        printf("%s: cycles %llu instructions %llu\n", label, (unsigned long long)(c1 - c0),                \
               (unsigned long long)(i1 - i0));                                                             \
    } while (0)

int main(void)
{
    for (int i = 0; i < 256; i++)
        data[i] = (uint64_t)i * 2654435761u;
    uint32_t x = 12345;
    for (int i = 0; i < 48; i++) {
        x = x * 1103515245u + 12345u;
        keys[i] = (int32_t)(x >> 8) - (1 << 22);
    }
    uint64_t s = 0, m = 0;
    TIME("sum", s = kernel_sum(data, 256));
    TIME("muldiv", m = kernel_muldiv(1000, 100));
    TIME("bubble", kernel_bubble(keys, 48));
    int sorted = 1;
    for (int i = 1; i < 48; i++)
        sorted &= keys[i - 1] <= keys[i];
    printf("sum %llu muldiv %llu sorted %d\n", (unsigned long long)s, (unsigned long long)m, sorted);
    return 0;
}
