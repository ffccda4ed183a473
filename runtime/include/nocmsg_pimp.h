/*
 * nocmsg_pimp.h: the PIMP network interface instructions as inline functions (simulated chips with
 * ni.kind = "pimp").
 *
 * Encoding (fixed by the architecture): custom-0 R-type funct3 0 `send rs1=destination core, rs2=word`,
 * 1 `recv rd`, 2 `src rd`; custom-1 B-type with rs1 = rs2 = x0, funct3 0 `brs` (branch if the send FIFO has room),
 * 1 `bns` (branch if it is full), 2 `bar` (branch if a word has arrived), 3 `bnr` (branch if none has).
 * Destinations and sources are core numbers as returned by nocmsg_core_id(). `recv`/`src` on an empty receive
 * FIFO and `send` on a full send FIFO stop the core with an error, so test first, or use the waiting forms: a
 * branch to itself (`1: bnr 1b`) is how a core waits, and the simulator lets such a core sleep until its FIFO
 * changes (exactly, with the same cycle counts as if it had spun).
 */
#ifndef NOCMSG_PIMP_H
#define NOCMSG_PIMP_H

#include <stdint.h>

/* Queues `word` for core `dest`. The send FIFO must have room (nocmsg_pimp_can_send or nocmsg_pimp_wait_send). */
static inline void nocmsg_pimp_send(uint64_t dest, uint64_t word)
{
    __asm__ volatile(".insn r CUSTOM_0, 0, 0, x0, %0, %1" : : "r"(dest), "r"(word) : "memory");
}

/* Takes the oldest received word. A word must have arrived. */
static inline uint64_t nocmsg_pimp_recv(void)
{
    uint64_t word;
    __asm__ volatile(".insn r CUSTOM_0, 1, 0, %0, x0, x0" : "=r"(word) : : "memory");
    return word;
}

/* The core that sent the oldest received word (not taken). A word must have arrived. */
static inline uint64_t nocmsg_pimp_src(void)
{
    uint64_t core;
    __asm__ volatile(".insn r CUSTOM_0, 2, 0, %0, x0, x0" : "=r"(core) : : "memory");
    return core;
}

/* 1 if the send FIFO has room (brs). */
static inline int nocmsg_pimp_can_send(void)
{
    int ready;
    __asm__ volatile("li %0, 1\n\t.insn b CUSTOM_1, 0, x0, x0, 1f\n\tli %0, 0\n1:" : "=&r"(ready) : : "memory");
    return ready;
}

/* 1 if a word has arrived (bar). */
static inline int nocmsg_pimp_has_message(void)
{
    int arrived;
    __asm__ volatile("li %0, 1\n\t.insn b CUSTOM_1, 2, x0, x0, 1f\n\tli %0, 0\n1:" : "=&r"(arrived) : : "memory");
    return arrived;
}

/* Waits until the send FIFO has room: `1: bns 1b`. */
static inline void nocmsg_pimp_wait_send(void)
{
    __asm__ volatile("1: .insn b CUSTOM_1, 1, x0, x0, 1b" : : : "memory");
}

/* Waits until a word has arrived: `1: bnr 1b`. */
static inline void nocmsg_pimp_wait_recv(void)
{
    __asm__ volatile("1: .insn b CUSTOM_1, 3, x0, x0, 1b" : : : "memory");
}

#endif /* NOCMSG_PIMP_H */
