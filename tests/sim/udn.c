/* The semantics of the udn network interface (crates/chip/src/ni/udn.rs), one scenario per argument, each printing
 * what a core observed; crates/cli/tests/udn.rs runs them on chips/udn-2x2.toml (and the exchange of NoCMsg's
 * Figure 1 on tilepro-64) and checks the output. Waits for "long enough" spin on the cycle counter, which is exact
 * on the simulator. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nocmsg.h"
#include "nocmsg_core.h"
#include "nocmsg_udn.h"

#define ZICSR(insn) ".option push\n\t.option arch, +zicsr\n\t" insn "\n\t.option pop"

static int me;
static uint64_t t0; /* the cycle main began: the same on every core */
typedef unsigned long long ull;

/* Spins until `cycle` cycles after main began. */
static void spin_until(uint64_t cycle)
{
    while (nocmsg_cycles() < t0 + cycle) {
    }
}

/* Packets with tags 3, 2, 1, 0 and 9 arrive at core 1 before it reads: each tagged queue holds its own payload, the
 * catch-all a descriptor (source, length, tag) before its words. */
static void demux(void)
{
    if (me == 0) {
        for (int tag = 3; tag >= 0; tag--) {
            uint64_t w[2] = {100 + 10 * (uint64_t)tag, 101 + 10 * (uint64_t)tag};
            nocmsg_udn_send_packet(1, (uint32_t)tag, w, 2);
        }
        uint64_t c[3] = {7, 8, 9};
        nocmsg_udn_send_packet(1, 9, c, 3);
    } else if (me == 1) {
        spin_until(3000);
        printf("demux: avail %#llx, counts %llu %llu %llu %llu %llu\n", (ull)nocmsg_udn_avail(),
               (ull)nocmsg_udn_count(0), (ull)nocmsg_udn_count(1), (ull)nocmsg_udn_count(2), (ull)nocmsg_udn_count(3),
               (ull)nocmsg_udn_count(4));
        for (unsigned q = 0; q < 4; q++) {
            uint64_t a = nocmsg_udn_recv(q), b = nocmsg_udn_recv(q);
            printf("demux: queue %u: %llu %llu\n", q, (ull)a, (ull)b);
        }
        uint64_t d = nocmsg_udn_recv(4);
        uint64_t x = nocmsg_udn_recv(4), y = nocmsg_udn_recv(4), z = nocmsg_udn_recv(4);
        printf("demux: catch-all: source %u length %u tag %u: %llu %llu %llu; avail then %#llx\n",
               NOCMSG_UDN_FIELD_RANK(d), NOCMSG_UDN_FIELD_LENGTH(d), NOCMSG_UDN_FIELD_TAG(d), (ull)x, (ull)y, (ull)z,
               (ull)nocmsg_udn_avail());
    }
}

/* Core 0 writes one long packet to core 1, which does not read yet: the credits run out once the path (output
 * queue, routers, input queue, receive queue) is full; then it stalls until core 1 reads, and every word arrives in
 * order. */
static void credits(void)
{
    enum { WORDS = 120 };
    if (me == 0) {
        uint64_t start = nocmsg_udn_credits();
        nocmsg_udn_send(NOCMSG_UDN_HEADER(1, WORDS, 0));
        unsigned written = 1;
        spin_until(2000);
        for (unsigned i = 0; i < WORDS; i++) {
            if (nocmsg_udn_credits() == 0 && written < 1000) {
                printf("credits: %llu at the start, %u words written (header included) when they ran out\n",
                       (ull)start, written);
                written = 1000;
            }
            nocmsg_udn_send(i);
            if (written < 1000)
                written++;
        }
    } else if (me == 1) {
        spin_until(20000);
        uint64_t sum = 0, ordered = 1;
        for (unsigned i = 0; i < WORDS; i++) {
            uint64_t w = nocmsg_udn_recv(0);
            ordered &= w == i;
            sum += w;
        }
        printf("credits: core 1 read %d words in order: %s, sum %llu\n", WORDS, ordered ? "yes" : "no", (ull)sum);
    }
}

/* A read of an empty queue stalls until the word lands: core 1 reads at once, core 0 sends at cycle 5000. */
static void stall(void)
{
    if (me == 0) {
        spin_until(5000);
        uint64_t w = 42;
        nocmsg_udn_send_packet(1, 0, &w, 1);
    } else if (me == 1) {
        uint64_t w = nocmsg_udn_recv(0);
        uint64_t at = nocmsg_cycles() - t0;
        printf("stall: read %llu, after cycle 5000: %s\n", (ull)w, at > 5000 ? "yes" : "no");
    }
}

static volatile uint64_t irq_words, irq_sum, irq_entries, irq_cause;

/* mtvec holds a 4-byte aligned BASE: with compressed code a function may start at any even address. */
__attribute__((interrupt("machine"), aligned(4))) static void on_arrival(void)
{
    uint64_t cause;
    __asm__ volatile(ZICSR("csrr %0, mcause") : "=r"(cause));
    irq_cause = cause;
    irq_entries++;
    while (nocmsg_udn_count(0)) {
        irq_sum += nocmsg_udn_recv(0);
        irq_words++;
    }
}

/* Core 1 takes its words in the arrival interrupt while its main loop only counts; ten packets, ten interrupts.
 * Then with the interrupt masked (mstatus.MIE clear) a packet waits in the queue until it is unmasked. */
static void irq(void)
{
    if (me == 0) {
        uint64_t w[8];
        for (int p = 0; p < 10; p++) {
            for (int i = 0; i < 8; i++)
                w[i] = (uint64_t)(p * 8 + i);
            nocmsg_udn_send_packet(1, 0, w, 8);
            spin_until(nocmsg_cycles() - t0 + 400);
        }
        spin_until(30000);
        uint64_t last = 1000;
        nocmsg_udn_send_packet(1, 0, &last, 1);
    } else if (me == 1) {
        __asm__ volatile(ZICSR("csrw mtvec, %0") : : "r"(on_arrival));
        nocmsg_udn_irq_enable(1);
        __asm__ volatile(ZICSR("csrs mie, %0") : : "r"(1 << 11));
        __asm__ volatile(ZICSR("csrs mstatus, %0") : : "r"(8));
        while (irq_words < 80) {
        }
        printf("irq: %llu words, sum %llu, %llu interrupts, mcause %#llx\n", (ull)irq_words, (ull)irq_sum,
               (ull)irq_entries, (ull)irq_cause);
        __asm__ volatile(ZICSR("csrc mstatus, %0") : : "r"(8));
        spin_until(40000);
        uint64_t pending;
        __asm__ volatile(ZICSR("csrr %0, mip") : "=r"(pending));
        uint64_t before = irq_words;
        __asm__ volatile(ZICSR("csrs mstatus, %0") : : "r"(8));
        uint64_t after = irq_words;
        printf("irq: masked: %llu words taken while masked, mip.MEIP %llu, taken when unmasked: %s\n",
               (ull)(before - 80), (ull)(pending >> 11 & 1), after == 81 ? "yes" : "no");
    }
}

static volatile uint64_t stall_irq_at;

__attribute__((interrupt("machine"), aligned(4))) static void on_arrival_during_stall(void)
{
    stall_irq_at = nocmsg_cycles() - t0;
    while (nocmsg_udn_count(0))
        (void)nocmsg_udn_recv(0);
}

/* The interrupt comes while the core is stalled reading another, empty queue: it is taken at once (mepc at the
 * stalled read, which then runs again), not when the read completes; the same with either clocking. */
static void irq_stall(void)
{
    if (me == 0) {
        uint64_t w = 1;
        spin_until(1000);
        nocmsg_udn_send_packet(1, 0, &w, 1);
        spin_until(20000);
        nocmsg_udn_send_packet(1, 1, &w, 1);
    } else if (me == 1) {
        __asm__ volatile(ZICSR("csrw mtvec, %0") : : "r"(on_arrival_during_stall));
        nocmsg_udn_irq_enable(1);
        __asm__ volatile(ZICSR("csrs mie, %0") : : "r"(1 << 11));
        __asm__ volatile(ZICSR("csrs mstatus, %0") : : "r"(8));
        uint64_t w = nocmsg_udn_recv(1);
        printf("irq-stall: read %llu; the interrupt came before the read completed: %s\n", (ull)w,
               stall_irq_at > 0 && stall_irq_at < 5000 ? "yes" : "no");
    }
}

/* csrs and csrc on udn.irqen set and clear bits. */
static void irqen_bits(void)
{
    if (me != 0)
        return;
    uint64_t a, b, c, d;
    __asm__ volatile(ZICSR("csrw 0x806, %0") : : "r"(1) : "memory");
    __asm__ volatile(ZICSR("csrr %0, 0x806") : "=r"(a) : : "memory");
    __asm__ volatile(ZICSR("csrs 0x806, %0") : : "r"(2) : "memory");
    __asm__ volatile(ZICSR("csrr %0, 0x806") : "=r"(b) : : "memory");
    __asm__ volatile(ZICSR("csrc 0x806, %0") : : "r"(1) : "memory");
    __asm__ volatile(ZICSR("csrr %0, 0x806") : "=r"(c) : : "memory");
    __asm__ volatile(ZICSR("csrw 0x806, %0") : : "r"(0) : "memory");
    __asm__ volatile(ZICSR("csrr %0, 0x806") : "=r"(d) : : "memory");
    printf("irqen-bits: %#llx %#llx %#llx %llu\n", (ull)a, (ull)b, (ull)c, (ull)d);
}

/* NoCMsg's Figure 1: both cores write a 127-word packet to the other before reading. The packets hold the path in
 * both directions, the receive queues fill, and neither write can finish: the network deadlocks. */
static void raw_exchange(void)
{
    static uint64_t words[127];
    int peer = 1 - me;
    if (me > 1)
        return;
    for (int i = 0; i < 127; i++)
        words[i] = (uint64_t)i;
    nocmsg_udn_send_packet((unsigned)peer, 0, words, 127);
    uint64_t sum = 0;
    for (int i = 0; i < 127; i++)
        sum += nocmsg_udn_recv(0);
    printf("raw-exchange: core %d got %llu\n", me, (ull)sum);
}

/* The same exchange through libnocmsg: a blocking send of 1016 bytes each way (the eager limit is 512, so this one
 * needs the receiver: sendrecv), 512 bytes eagerly with send then recv, and 64 KiB each way with isend/irecv. */
static void lib_exchange(void)
{
    nocmsg_init(NULL, NULL);
    int rank = nocmsg_rank(), size = nocmsg_size(), peer = rank ^ 1;
    if (peer < size) {
        static uint64_t out[8192], in[8192];
        for (int i = 0; i < 8192; i++)
            out[i] = (uint64_t)(rank * 100000 + i);
        nocmsg_status st;
        int ok = nocmsg_sendrecv(out, 127, NOCMSG_UINT64, peer, 1, in, 127, NOCMSG_UINT64, peer, 1, NOCMSG_COMM_WORLD,
                                 &st) == NOCMSG_SUCCESS && in[126] == (uint64_t)(peer * 100000 + 126);
        ok &= nocmsg_send(out, 64, NOCMSG_UINT64, peer, 2, NOCMSG_COMM_WORLD) == NOCMSG_SUCCESS;
        ok &= nocmsg_recv(in, 64, NOCMSG_UINT64, peer, 2, NOCMSG_COMM_WORLD, &st) == NOCMSG_SUCCESS;
        ok &= in[63] == (uint64_t)(peer * 100000 + 63);
        nocmsg_request r[2];
        nocmsg_irecv(in, 8192, NOCMSG_UINT64, peer, 3, NOCMSG_COMM_WORLD, &r[0]);
        nocmsg_isend(out, 8192, NOCMSG_UINT64, peer, 3, NOCMSG_COMM_WORLD, &r[1]);
        ok &= nocmsg_waitall(2, r, NULL) == NOCMSG_SUCCESS && in[8191] == (uint64_t)(peer * 100000 + 8191);
        printf("lib-exchange: rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    }
    nocmsg_finalize();
}

/* NoCMsg's Figure 1 through the library: both ranks nocmsg_xsend to each other before receiving, which deadlocks
 * (the raw writes stall on full queues). `how` picks the path: "inline" (an aligned one-packet message, written in
 * the caller's code), "lib" (a misaligned one, through the library) or "packets" (several packets). The deadlock
 * report must name nocmsg_xsend and the rank each waits for (the calls are no frames of their own). */
static void lib_raw_deadlock(const char *how)
{
    nocmsg_init(NULL, NULL);
    int rank = nocmsg_rank(), peer = rank ^ 1;
    static uint64_t out[1024], in[1024];
    int words = !strcmp(how, "packets") ? 1000 : 100;
    const void *buf = !strcmp(how, "lib") ? (const void *)((const char *)out + 4) : (const void *)out;
    nocmsg_xsend(buf, 8 * words, NOCMSG_BYTE, peer, 1, NOCMSG_COMM_WORLD);
    nocmsg_xrecv(in, 8 * words, NOCMSG_BYTE, peer, 1, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
    printf("lib-raw-deadlock: rank %d got through\n", rank);
    nocmsg_finalize();
}

/* NoCMsg's non-flow-controlled calls on the UDN: nocmsg_xsend writes straight into the network (stalling, no credit
 * check) to a peer waiting in nocmsg_xrecv; nocmsg_xchg orders its two raw writes by rank, so that a pairwise
 * exchange of 64 KiB, which would deadlock as two simultaneous raw writes, completes (with and without sync). */
static void xfer(void)
{
    nocmsg_init(NULL, NULL);
    int rank = nocmsg_rank(), size = nocmsg_size(), peer = rank ^ 1;
    if (peer < size) {
        static uint64_t out[8192], in[8192];
        for (int i = 0; i < 8192; i++)
            out[i] = (uint64_t)(rank * 100000 + i);
        int ok = 1;
        for (int sync = 0; sync < 2; sync++) {
            memset(in, 0, sizeof in);
            ok &= nocmsg_xchg(out, in, 8192, NOCMSG_UINT64, peer, 5, sync, NOCMSG_COMM_WORLD, NULL) == NOCMSG_SUCCESS;
            ok &= in[0] == (uint64_t)(peer * 100000) && in[8191] == (uint64_t)(peer * 100000 + 8191);
        }
        if (rank < peer)
            ok &= nocmsg_xsend(out, 1000, NOCMSG_UINT64, peer, 6, NOCMSG_COMM_WORLD) == NOCMSG_SUCCESS;
        else
            ok &= nocmsg_xrecv(in, 1000, NOCMSG_UINT64, peer, 6, NOCMSG_COMM_WORLD, NULL) == NOCMSG_SUCCESS &&
                  in[999] == (uint64_t)(peer * 100000 + 999);
        printf("xfer: rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    }
    nocmsg_finalize();
}

/* Byte-exact transfers through the port's common paths (lib/ports/udn.c: one-packet eager sends, raw writes and
 * receives without a stack frame, the last part word, streams across packets): every size from 0 to 40 bytes, and
 * sizes around the four-word output queue, the eager limit and the 125-word packet, from every source alignment
 * into two destination alignments, through send/recv and xsend/xrecv, one way then the other. The bytes around each
 * received message stay untouched. */
static void xfer_bytes(void)
{
    nocmsg_init(NULL, NULL);
    int rank = nocmsg_rank(), size = nocmsg_size(), peer = rank ^ 1;
    static const int sizes[] = {0,   1,   2,   3,   4,   5,   6,    7,    8,    9,    10,   11,   12,   13,
                                14,  15,  16,  17,  23,  24,  25,   31,   32,   33,   39,   40,   47,   63,
                                64,  65,  255, 256, 257, 511, 512,  513,  999,  1000, 1001, 1007, 1008, 1009,
                                2047, 2048, 2049, 4100};
    enum { MAX = 4100 + 32 };
    static unsigned char out[MAX], in[MAX];
    long bad = 0, done = 0;
    if (peer < size) {
        for (int way = 0; way < 4; way++) {
            int raw = way & 1, sender = (way & 2) ? (rank > peer) : (rank < peer);
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                int n = sizes[k];
                for (int so = 0; so < 8; so++)
                    for (int ro = 0; ro < 8; ro += 5) {
                        int tag = (int)(k * 64 + (size_t)so * 8 + (size_t)ro) & 0x7fff;
                        if (sender) {
                            for (int i = 0; i < n; i++)
                                out[so + i] = (unsigned char)(n * 7 + i * 13 + so + ro + way);
                            int rc = raw ? nocmsg_xsend(out + so, n, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD)
                                         : nocmsg_send(out + so, n, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD);
                            bad += rc != NOCMSG_SUCCESS;
                        } else {
                            int span = ro + n + 16; /* the message, its capacity's slack and 8 bytes more */
                            memset(in, 0xa5, (size_t)span);
                            nocmsg_status st;
                            int rc = raw ? nocmsg_xrecv(in + ro, n + 8, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD, &st)
                                         : nocmsg_recv(in + ro, n + 8, NOCMSG_BYTE, peer, tag, NOCMSG_COMM_WORLD, &st);
                            int count = -1;
                            nocmsg_get_count(&st, NOCMSG_BYTE, &count);
                            int ok = rc == NOCMSG_SUCCESS && count == n;
                            for (int i = 0; i < span; i++) {
                                unsigned char want = i >= ro && i < ro + n
                                                         ? (unsigned char)(n * 7 + (i - ro) * 13 + so + ro + way)
                                                         : 0xa5;
                                ok &= in[i] == want;
                            }
                            bad += !ok;
                            done++;
                        }
                    }
            }
        }
        /* Objects smaller than a word, 8-byte aligned (the inline paths) and not (the library), built with -Werror:
         * the part word's load of the aligned word they lie in must neither warn nor store past them (regression:
         * an asm operand naming 8 bytes made GCC's -Warray-bounds fail such builds). */
        for (int round = 0; round < 2; round++) {
            _Alignas(8) int i4 = 0x5a5a5a5a;
            _Alignas(8) short i2[3] = {0x5a5a, 0x5a5a, 0x5a5a};
            int plain = 0x5a5a5a5a;
            char c = 0x5a;
            if ((round == 0) == (rank < peer)) {
                int v4 = 0x1234567 + rank, vp = 0x7654321 + rank;
                short v2 = (short)(0x2345 + rank);
                char vc = (char)('a' + rank);
                bad += nocmsg_send(&v4, 1, NOCMSG_INT, peer, 1, NOCMSG_COMM_WORLD) != NOCMSG_SUCCESS;
                bad += nocmsg_xsend(&v2, 1, NOCMSG_SHORT, peer, 2, NOCMSG_COMM_WORLD) != NOCMSG_SUCCESS;
                bad += nocmsg_send(&vp, 1, NOCMSG_INT, peer, 3, NOCMSG_COMM_WORLD) != NOCMSG_SUCCESS;
                bad += nocmsg_xsend(&vc, 1, NOCMSG_CHAR, peer, 4, NOCMSG_COMM_WORLD) != NOCMSG_SUCCESS;
            } else {
                bad += nocmsg_recv(&i4, 1, NOCMSG_INT, peer, 1, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE) !=
                       NOCMSG_SUCCESS;
                bad += nocmsg_xrecv(i2, 1, NOCMSG_SHORT, peer, 2, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE) !=
                       NOCMSG_SUCCESS;
                bad += nocmsg_recv(&plain, 1, NOCMSG_INT, peer, 3, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE) !=
                       NOCMSG_SUCCESS;
                bad += nocmsg_xrecv(&c, 1, NOCMSG_CHAR, peer, 4, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE) !=
                       NOCMSG_SUCCESS;
                bad += i4 != 0x1234567 + peer || i2[0] != (short)(0x2345 + peer) || i2[1] != 0x5a5a ||
                       plain != 0x7654321 + peer || c != (char)('a' + peer);
            }
        }
        printf("xfer-bytes: rank %d: %s (%ld received)\n", rank, bad ? "WRONG" : "ok", done);
    }
    nocmsg_finalize();
}

/* NoCMsg's barrier (the centre-rooted tree on queue 1, the library's default on UDN chips) while rank 1 computes:
 * the others sleep in wfi until the barrier's words come. */
static void barrier(void)
{
    nocmsg_init(NULL, NULL);
    const char *algorithm = nocmsg_coll_choice("barrier", 0, NOCMSG_COMM_WORLD);
    for (int i = 0; i < 3; i++) {
        if (nocmsg_rank() == 1)
            spin_until(nocmsg_cycles() - t0 + 20000);
        nocmsg_barrier(NOCMSG_COMM_WORLD);
    }
    if (nocmsg_rank() == 0)
        printf("barrier: %s, 3 rounds\n", algorithm);
    nocmsg_finalize();
}

/* Misuse stops the core with a report. */
static void misuse(const char *what)
{
    if (me != 0)
        return;
    if (!strcmp(what, "bad-dest"))
        nocmsg_udn_send(NOCMSG_UDN_HEADER(99, 1, 0));
    else if (!strcmp(what, "bad-length"))
        nocmsg_udn_send(NOCMSG_UDN_HEADER(1, 0, 0));
    else if (!strcmp(what, "long-packet"))
        nocmsg_udn_send(NOCMSG_UDN_HEADER(1, 128, 0));
    else if (!strcmp(what, "write-recv"))
        __asm__ volatile(ZICSR("csrw 0x801, %0") : : "r"(1) : "memory");
    else if (!strcmp(what, "read-send")) {
        uint64_t v;
        __asm__ volatile(ZICSR("csrr %0, 0x800") : "=r"(v) : : "memory");
    } else if (!strcmp(what, "write-credits"))
        __asm__ volatile(ZICSR("csrw 0xcc0, %0") : : "r"(1) : "memory");
    printf("%s: not stopped\n", what);
}

int main(int argc, char **argv)
{
    t0 = nocmsg_cycles();
    me = nocmsg_core_id();
    const char *s = argc > 1 ? argv[1] : "";
    if (!strcmp(s, "demux"))
        demux();
    else if (!strcmp(s, "credits"))
        credits();
    else if (!strcmp(s, "stall"))
        stall();
    else if (!strcmp(s, "irq"))
        irq();
    else if (!strcmp(s, "irq-stall"))
        irq_stall();
    else if (!strcmp(s, "irqen-bits"))
        irqen_bits();
    else if (!strcmp(s, "raw-exchange"))
        raw_exchange();
    else if (!strcmp(s, "lib-exchange"))
        lib_exchange();
    else if (!strcmp(s, "xfer-bytes"))
        xfer_bytes();
    else if (!strcmp(s, "xfer"))
        xfer();
    else if (!strncmp(s, "lib-raw-deadlock-", 17))
        lib_raw_deadlock(s + 17);
    else if (!strcmp(s, "barrier"))
        barrier();
    else if (argc > 1)
        misuse(s);
    else {
        fprintf(stderr, "usage: udn.elf SCENARIO\n");
        return 2;
    }
    return 0;
}
