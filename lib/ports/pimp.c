/*
 * pimp.c: the port for PIMP's register-level send/receive FIFOs (simulated chips with ni.kind = "pimp").
 *
 * Every word is one send or recv instruction, so the loops here are written in assembly: they decide the cycles
 * per word that the benchmarks report (7 to push, 9 to pull). Waiting uses a branch to itself, which the
 * simulator turns into sleep.
 */
#ifdef NOCMSG_SIM

#include "port.h"

#include <stdlib.h>

#include <nocmsg_core.h>
#include <nocmsg_pimp.h>

#include <nocmsg.h>

int nocmsg_port_init(int *rank, int *size)
{
    *rank = (int)nocmsg_core_id();
    *size = (int)nocmsg_num_cores();
    return NOCMSG_SUCCESS;
}

void nocmsg_port_finalize(void) {}

const char *nocmsg_port_kind(void)
{
    return "pimp";
}

size_t nocmsg_port_push(int dest, const uint64_t *words, size_t n)
{
    const uint64_t *p = words, *end = words + n;
    uint64_t w, d = (uint64_t)dest;
    if (p == end)
        return 0;
    __asm__ volatile("1:\n\t"
                     ".insn b CUSTOM_1, 1, x0, x0, 2f\n\t" /* bns: send FIFO full, stop */
                     "ld %[w], 0(%[p])\n\t"
                     "addi %[p], %[p], 8\n\t"
                     ".insn r CUSTOM_0, 0, 0, x0, %[d], %[w]\n\t" /* send */
                     "bne %[p], %[end], 1b\n"
                     "2:"
                     : [p] "+r"(p), [w] "=&r"(w)
                     : [d] "r"(d), [end] "r"(end)
                     : "memory");
    return (size_t)(p - words);
}

int nocmsg_port_poll(int *src)
{
    if (!nocmsg_pimp_has_message())
        return 0;
    *src = (int)nocmsg_pimp_src();
    return 1;
}

size_t nocmsg_port_pull(int src, uint64_t *words, size_t n)
{
    uint64_t *p = words, *end = words + n;
    uint64_t s, w, want = (uint64_t)src;
    if (p == end)
        return 0;
    __asm__ volatile("1:\n\t"
                     ".insn b CUSTOM_1, 3, x0, x0, 2f\n\t" /* bnr: nothing arrived, stop */
                     ".insn r CUSTOM_0, 2, 0, %[s], x0, x0\n\t" /* src */
                     "bne %[s], %[want], 2f\n\t"
                     ".insn r CUSTOM_0, 1, 0, %[w], x0, x0\n\t" /* recv */
                     "sd %[w], 0(%[p])\n\t"
                     "addi %[p], %[p], 8\n\t"
                     "bne %[p], %[end], 1b\n"
                     "2:"
                     : [p] "+r"(p), [s] "=&r"(s), [w] "=&r"(w)
                     : [want] "r"(want), [end] "r"(end)
                     : "memory");
    return (size_t)(p - words);
}

void nocmsg_port_wait(int sending)
{
    if (!sending) {
        nocmsg_pimp_wait_recv();
        return;
    }
    /* Either FIFO may change first; no single branch waits for both, so spin on the pair. */
    __asm__ volatile("1:\n\t"
                     ".insn b CUSTOM_1, 2, x0, x0, 2f\n\t" /* bar: a word arrived */
                     ".insn b CUSTOM_1, 1, x0, x0, 1b\n"   /* bns: still full, test again */
                     "2:" ::: "memory");
}

size_t nocmsg_port_eager_limit(void)
{
    return 512;
}

double nocmsg_port_wtime(void)
{
    return (double)nocmsg_cycles() / (double)nocmsg_frequency_hz();
}

double nocmsg_port_wtick(void)
{
    return 1.0 / (double)nocmsg_frequency_hz();
}

void nocmsg_port_abort(int code)
{
    exit(code);
}

#endif /* NOCMSG_SIM */
