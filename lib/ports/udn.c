/*
 * udn.c: the port for Tilera-style user dynamic networks (simulated chips with ni.kind = "udn", built with
 * -DNOCMSG_PORT_UDN; runtime/include/nocmsg_udn.h, crates/chip/src/ni/udn.rs). docs/udn.md describes the protocol.
 *
 * The library's words travel in UDN packets to tagged queue 0 of the receiver: the hardware header (destination,
 * length, tag 0), then a source word (this rank | words that follow << 16), then the words. The hardware strips the
 * header; the source word tells the receiver whose words follow and how many, as NoCMsg's packets carry their
 * source in software. Packets from different senders never interleave in a queue (a packet holds its path from
 * header to tail), so the receiver follows one packet at a time.
 *
 * NoCMsg's work loop, which keeps every MPI-correct program deadlock-free on a network that deadlocks when cores
 * block on sends (NoCMsg's Figure 1), lives in the progress engine (src/engine.c): it pushes what the port takes
 * and drains every arriving word into software buffers before it pushes again. The port's part is never to block
 * on a send: it writes only as many words as the output queue has credits (udn.credits) and returns how many it
 * took. A packet it has begun stays open across calls (its length was announced in its header), so the next words
 * to that destination continue it and words to another destination wait until it is complete; the engine sends a
 * rank's messages in order and always finishes the one it has begun, so the open packet is always the one it goes
 * on with.
 *
 * Waiting for a word is a read of the empty queue, which stalls the core; the simulator lets a stalled core sleep,
 * so a waiting rank costs nothing until its word lands. The word read ahead is kept for the next pull.
 *
 * The interrupt-driven mode (environment NOCMSG_UDN_MODE=interrupt, `nocmsg run --env`): the baseline NoCMsg was
 * measured against, in the style of Tilera's OperaMPI. The message-arrival interrupt takes every word of queue 0
 * into a software ring as it lands (the handler runs on the core, costing its trap entry and register saves), and
 * every data packet is acknowledged: the receiver's handler (or, while this rank is writing a packet of its own, its
 * next library call) sends a one-word ACK to the sender's queue 2, and a sender starts its next packet to a
 * destination only once the last one is acknowledged (stop and wait). The library above is the same; only where
 * words come from and when packets may go differ. While the main code writes a packet, interrupts are masked, so the
 * handler never writes into the middle of it; it writes an ACK only when no packet is open and two credits are
 * there, so it never stalls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nocmsg_core.h>
#include <nocmsg_semihost.h>
#include <nocmsg_udn.h>

#include "../include/nocmsg.h"
#include "../include/nocmsg_wait.h"
#include "port.h"

/* The library's traffic goes to tagged queue 0 (queue 1 is the barrier's: src/coll/barrier/udn_tree.c). */
enum { Q = 0 };

/* The interrupt-driven mode's state; the handler writes what is marked (handler). */
struct nocmsg_udn_irq {
    uint64_t *ring;            /* queue 0's words, taken by the handler */
    size_t mask;               /* ring slots - 1 (a power of two) */
    volatile size_t head;      /* (handler) words put in */
    size_t tail;               /* words taken out */
    volatile int ring_full;    /* (handler) queue 0's interrupt is off until the ring has room */
    unsigned h_left;           /* (handler) words left of the packet being taken */
    int h_src;                 /* (handler) its source */
    volatile unsigned *acked;  /* (handler) per destination: ACKs received */
    unsigned *sent;            /* per destination: data packets started */
    int *owed;                 /* ring of sources owed an ACK (each has at most one unacknowledged packet to us) */
    unsigned owed_mask;
    volatile unsigned owed_head; /* (handler) */
    volatile unsigned owed_tail; /* (handler and main, with interrupts masked) */
    volatile unsigned acks;      /* (handler) ACKs received in all */
    unsigned acks_seen;          /* acks when a push last had to wait for one */
};

/* The port's state (struct nocmsg_udn_port, port.h): extern so that the fast paths of src/p2p.c can test it inline;
 * only this file writes it. */
struct nocmsg_udn_port nocmsg__udn;
#define udn nocmsg__udn

/* ---- the interrupt-driven mode ------------------------------------------------------------------------ */

enum { ACK_QUEUE = 2, IRQ_QUEUES = 1u << 0 | 1u << ACK_QUEUE };

#define ZICSR(insn) ".option push\n\t.option arch, +zicsr\n\t" insn "\n\t.option pop"

static inline void irq_mask(void)
{
    __asm__ volatile(ZICSR("csrc mstatus, %0") : : "r"(8) : "memory");
}

static inline void irq_unmask(void)
{
    __asm__ volatile(ZICSR("csrs mstatus, %0") : : "r"(8) : "memory");
}

/* Sends the ACKs owed, as long as no packet is open and credits allow (interrupts masked, or in the handler). */
static void send_acks(void)
{
    struct nocmsg_udn_irq *q = udn.irq;
    while (q->owed_tail != q->owed_head && udn.open_dest < 0 && nocmsg_udn_credits() >= 2) {
        int src = q->owed[q->owed_tail & q->owed_mask];
        nocmsg_udn_send(NOCMSG_UDN_HEADER(src, 1, ACK_QUEUE));
        nocmsg_udn_send((uint64_t)udn.me);
        q->owed_tail++;
    }
}

/* ACKs owed that send_acks could not send yet (a packet open, or fewer than two credits). Credits coming back raise
 * no interrupt, so a rank that owes ACKs must not sleep: its senders may be waiting for them. */
static inline int acks_owed(void)
{
    return udn.irq->owed_tail != udn.irq->owed_head;
}

/* The message-arrival interrupt: ACKs into the counts, queue 0 into the ring (until it is full), and the ACKs owed
 * out if the main code is not writing a packet. mtvec holds a 4-byte aligned BASE. */
__attribute__((interrupt("machine"), aligned(4))) static void udn_interrupt(void)
{
    struct nocmsg_udn_irq *q = udn.irq;
    while (nocmsg_udn_count(ACK_QUEUE) != 0) {
        q->acked[nocmsg_udn_recv(ACK_QUEUE)]++;
        q->acks++;
    }
    uint64_t there;
    while ((there = nocmsg_udn_count(Q)) != 0) {
        size_t room = q->mask + 1 - (q->head - q->tail);
        if (room == 0) {
            /* Full: queue 0 backs up in hardware until the main code takes words (rx_take turns it back on). */
            q->ring_full = 1;
            nocmsg_udn_irq_enable(1u << ACK_QUEUE);
            break;
        }
        for (size_t k = 0; k < there && k < room; k++) {
            uint64_t w = nocmsg_udn_recv(Q);
            q->ring[q->head & q->mask] = w;
            q->head++;
            if (q->h_left == 0) {
                q->h_src = (int)NOCMSG_UDN_FIELD_RANK(w);
                q->h_left = NOCMSG_UDN_FIELD_LENGTH(w);
            } else if (--q->h_left == 0) {
                q->owed[q->owed_head & q->owed_mask] = q->h_src;
                q->owed_head++;
            }
        }
    }
    send_acks();
}

/* Sets up the interrupt-driven mode: the ring, the counts, the handler, and the interrupt enabled. */
static int irq_init(void)
{
    struct nocmsg_udn_irq *q = calloc(1, sizeof *q);
    size_t slots = 1 << 16;
    unsigned owed = 1;
    while (owed < (unsigned)udn.n)
        owed <<= 1;
    if (!q || !(q->ring = malloc(slots * sizeof *q->ring)) || !(q->acked = calloc((size_t)udn.n, sizeof *q->acked)) ||
        !(q->sent = calloc((size_t)udn.n, sizeof *q->sent)) || !(q->owed = malloc(owed * sizeof *q->owed)))
        return NOCMSG_ERR_NO_MEM;
    q->mask = slots - 1;
    q->owed_mask = owed - 1;
    udn.irq = q;
    __asm__ volatile(ZICSR("csrw mtvec, %0") : : "r"(udn_interrupt) : "memory");
    nocmsg_udn_irq_enable(IRQ_QUEUES);
    irq_unmask();
    return NOCMSG_SUCCESS;
}

/* Sends the ACKs owed, then sleeps until an interrupt is pending, unless the ring has words. Masked around the
 * test, so the interrupt that fills the ring cannot come between the test and the wfi (wfi wakes on a pending
 * interrupt, masked or not), and taken when unmasked. */
__attribute__((noinline)) static void irq_wait_for_ring(void)
{
    irq_mask();
    send_acks(); /* the words waited for may be the next packet of a sender waiting for our ACK */
    if (udn.irq->head == udn.irq->tail && !udn.ahead_valid && !acks_owed())
        __asm__ volatile("wfi" ::: "memory");
    irq_unmask();
}

/* Words of queue 0 there to take: in the hardware queue, or in the ring in the interrupt-driven mode. */
static inline uint64_t rx_count(void)
{
    if (!udn.irq_mode)
        return nocmsg_udn_count(Q);
    return udn.irq->head - udn.irq->tail;
}

/* rx_take in the interrupt-driven mode: the next word of the ring, waiting (out of line) for the handler to put one
 * there. */
static inline __attribute__((always_inline)) uint64_t rx_take_ring(void)
{
    struct nocmsg_udn_irq *q = udn.irq;
    while (q->head == q->tail)
        irq_wait_for_ring();
    uint64_t w = q->ring[q->tail & q->mask];
    q->tail++;
    if (q->ring_full) {
        q->ring_full = 0;
        nocmsg_udn_irq_enable(IRQ_QUEUES);
    }
    return w;
}

/* The next word of queue 0, waiting for it: a stalling read, or in the interrupt-driven mode a wait (wfi) until
 * the handler has put one in the ring. */
static inline __attribute__((always_inline)) uint64_t rx_take(void)
{
    if (__builtin_expect(!udn.irq_mode, 1))
        return nocmsg_udn_recv(Q);
    return rx_take_ring();
}

int nocmsg_port_init(int *rank, int *size)
{
    memset(&udn, 0, sizeof udn);
    udn.me = (int)nocmsg_core_id();
    udn.n = (int)nocmsg_num_cores();
    udn.max_words = (unsigned)nocmsg_udn_max_packet();
    udn.open_dest = -1;
    udn.cur_src = -1;
    if (udn.max_words < 2 || udn.n > 0xffff)
        return NOCMSG_ERR_INTERN;
    /* The arrival interrupt may end a wfi (nocmsg_port_udn_sleep); mstatus.MIE stays clear, so it is never taken,
     * except in the interrupt-driven mode. */
    __asm__ volatile(ZICSR("csrs mie, %0") : : "r"(1 << 11));
    const char *mode = getenv("NOCMSG_UDN_MODE");
    if (mode && strcmp(mode, "interrupt") == 0) {
        udn.irq_mode = 1;
        int err = irq_init();
        if (err != NOCMSG_SUCCESS)
            return err;
    } else if (mode && strcmp(mode, "poll") != 0) {
        fprintf(stderr, "nocmsg: NOCMSG_UDN_MODE=%s: the UDN port's modes are poll (the work loop) and interrupt\n", mode);
        return NOCMSG_ERR_ARG;
    }
    *rank = udn.me;
    *size = udn.n;
    return NOCMSG_SUCCESS;
}

void nocmsg_port_finalize(void)
{
    if (udn.irq_mode) {
        /* Peers may wait for the ACKs still owed: send them, then no more interrupts. */
        irq_mask();
        while (udn.irq->owed_tail != udn.irq->owed_head)
            send_acks();
        nocmsg_udn_irq_enable(0);
    }
}

const char *nocmsg_port_kind(void)
{
    return "udn";
}

/* ---- sending ---------------------------------------------------------------------------------------- */

/* Writes up to n of words to dest, `total` (>= n) being the words the caller will send to dest in sequence (the
 * length a new packet announces, up to the packet limit), as far as the output queue has credits; returns how many
 * it wrote. Never stalls. */
static inline size_t push_run_now(int dest, const uint64_t *words, size_t n, size_t total);
static size_t push_run_irq(int dest, const uint64_t *words, size_t n, size_t total);

/* Writes the first m (at most (bytes + 7) / 8) payload words of an aligned `bytes`-byte message at buf with stalling
 * writes; the last part word goes with its bytes past the message zero. */
static inline __attribute__((always_inline)) void send_message_words(const void *buf, size_t bytes, size_t m)
{
    size_t whole = bytes / 8;
    if (m <= whole) {
        nocmsg_udn_send_words(buf, m);
    } else {
        nocmsg_udn_send_words(buf, whole);
        nocmsg_udn_send(nocmsg_udn_part_word((const uint64_t *)buf + whole, bytes - 8 * whole));
    }
}

/* Takes the (bytes + 7) / 8 payload words of an aligned `bytes`-byte message from the packet under way (it has them)
 * into buf with stalling reads, storing nothing past buf + bytes; returns the words taken. */
static inline __attribute__((always_inline)) size_t take_message_words(void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8, whole = bytes / 8;
    nocmsg_udn_recv0_words(buf, whole);
    if (words > whole)
        nocmsg_udn_store_part((uint64_t *)buf + whole, nocmsg_udn_recv(Q), bytes - 8 * whole);
    udn.cur_left -= (unsigned)words;
    return words;
}

/* Writes the first two words of a queue-0 packet of `len` words (the source word included) to dest: its header and
 * the source word (this rank and the words that follow). */
static inline __attribute__((always_inline)) void write_head(int dest, size_t len)
{
    nocmsg_udn_send(NOCMSG_UDN_HEADER(dest, len, Q));
    nocmsg_udn_send((uint64_t)udn.me | (uint64_t)(len - 1) << 16);
    udn.packets_out++;
}

/* write_head for a raw send. */
static inline __attribute__((always_inline)) void raw_head(int dest, size_t len)
{
    nocmsg__udn_xsend_word(NOCMSG_UDN_HEADER(dest, len, Q), dest);
    nocmsg__udn_xsend_word((uint64_t)udn.me | (uint64_t)(len - 1) << 16, dest);
    udn.packets_out++;
}

/* The polling mode's pushes are inline and frameless; the interrupt-driven mode's go out of line. */
static inline __attribute__((always_inline)) size_t push_run(int dest, const uint64_t *words, size_t n, size_t total)
{
    if (__builtin_expect(!udn.irq_mode, 1))
        return push_run_now(dest, words, n, total);
    return push_run_irq(dest, words, n, total);
}

__attribute__((noinline, cold)) static size_t push_run_irq(int dest, const uint64_t *words, size_t n, size_t total)
{
    /* Interrupt-driven: the handler must not write into the middle of a packet, so it waits (masked) while this
     * rank writes; and a new packet to dest waits for the last one's ACK. */
    irq_mask();
    send_acks();
    size_t k = 0;
    if (udn.open_dest < 0 && udn.irq->acked[dest] != udn.irq->sent[dest])
        udn.irq->acks_seen = udn.irq->acks; /* port_wait sleeps only if no ACK has come since */
    else if (udn.open_dest == dest || udn.open_dest < 0) {
        int before = udn.open_dest;
        k = push_run_now(dest, words, n, total);
        if (k && before != dest)
            udn.irq->sent[dest]++; /* push_run_now stops at the end of a packet in this mode: one packet at most */
    }
    send_acks();
    irq_unmask();
    return k;
}

static inline __attribute__((always_inline)) size_t push_run_now(int dest, const uint64_t *words, size_t n,
                                                                  size_t total)
{
    if (n == 0 || (udn.open_dest >= 0 && udn.open_dest != dest))
        return 0;
    size_t k = 0;
    uint64_t credits = nocmsg_udn_credits();
    while (k < n) {
        if (udn.open_dest < 0) {
            /* A new packet needs room for its header, its source word and one word. */
            if (credits < 3 && (credits = nocmsg_udn_credits()) < 3)
                break;
            size_t len = total - k + 1;
            if (len > udn.max_words)
                len = udn.max_words;
            write_head(dest, len);
            credits -= 2;
            udn.open_dest = dest;
            udn.open_left = (unsigned)(len - 1);
        }
        size_t m = n - k < udn.open_left ? n - k : udn.open_left;
        if (m > credits && (credits = nocmsg_udn_credits()) < m)
            m = (size_t)credits;
        nocmsg_udn_send_words(words + k, m);
        k += m;
        credits -= m;
        udn.open_left -= (unsigned)m;
        if (udn.open_left == 0) {
            udn.open_dest = -1;
            if (udn.irq_mode)
                break; /* the next packet waits for this one's ACK */
        }
        if (m == 0)
            break;
    }
    return k;
}

size_t nocmsg_port_push(int dest, const uint64_t *words, size_t n)
{
    return push_run(dest, words, n, n);
}

int nocmsg_port_push1(int dest, uint64_t word)
{
    return push_run(dest, &word, 1, 1) == 1;
}

size_t nocmsg_port_push_packet(int dest, uint64_t header, const uint64_t *payload, size_t n)
{
    if (push_run(dest, &header, 1, n + 1) == 0)
        return 0;
    return 1 + push_run(dest, payload, n, n);
}

/* Words [from, (bytes + 7) / 8) of a `bytes`-byte message at buf that are misaligned or the last part word (its bytes
 * past the message zero), through an aligned copy, a few at a time; `total` the words the caller sends in sequence
 * from `from` on; returns the position reached. */
__attribute__((noinline)) static size_t push_bytes_skewed(int dest, const void *buf, size_t bytes, size_t from,
                                                          size_t total)
{
    size_t words = (bytes + 7) / 8;
    const unsigned char *b = buf;
    while (from < words) {
        uint64_t copy[16];
        size_t m = words - from < 16 ? words - from : 16;
        size_t end = 8 * (from + m) < bytes ? 8 * (from + m) : bytes;
        copy[m - 1] = 0;
        memcpy(copy, b + 8 * from, end - 8 * from);
        size_t k = push_run(dest, copy, m, total);
        total -= k;
        from += k;
        if (k < m)
            break;
    }
    return from;
}

/* Payload words [from, from + total) of a `bytes`-byte message: an aligned buffer's whole words straight from it
 * (inline, no stack frame), the rest through push_bytes_skewed. */
static inline __attribute__((always_inline)) size_t push_bytes_run(int dest, const void *buf, size_t bytes,
                                                                   size_t from, size_t total)
{
    size_t words = (bytes + 7) / 8, whole = bytes / 8;
    if (((uintptr_t)buf & 7) == 0 && from < whole) {
        size_t k = push_run(dest, (const uint64_t *)buf + from, whole - from, total);
        total -= k;
        from += k;
        if (from < whole)
            return from;
    }
    return from < words ? push_bytes_skewed(dest, buf, bytes, from, total) : from;
}

size_t nocmsg_port_push_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    size_t words = (bytes + 7) / 8;
    return from < words ? push_bytes_run(dest, buf, bytes, from, words - from) : from;
}

__attribute__((noinline)) static size_t push_message_any(int dest, uint64_t header, const void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8;
    if (push_run(dest, &header, 1, words + 1) == 0)
        return 0;
    return 1 + (words ? push_bytes_run(dest, buf, bytes, 0, words) : 0);
}

size_t nocmsg_port_push_message(int dest, uint64_t header, const void *buf, size_t bytes)
{
    /* The common case without a stack frame: polling mode, no packet open, an aligned message that fits one packet,
     * and room for the packet's first three words (what push_run would write, in one go). */
    size_t words = (bytes + 7) / 8;
    if (__builtin_expect(!udn.irq_mode && udn.open_dest < 0 && ((uintptr_t)buf & 7) == 0 && words + 2 <= udn.max_words,
                         1)) {
        uint64_t credits = nocmsg_udn_credits();
        if (__builtin_expect(credits >= 3, 1)) {
            write_head(dest, words + 2);
            nocmsg_udn_send(header);
            size_t m = credits - 3 < words ? (size_t)credits - 3 : words;
            send_message_words(buf, bytes, m);
            if (m < words) {
                udn.open_dest = dest;
                udn.open_left = (unsigned)(words - m);
            }
            return 1 + m;
        }
    }
    return push_message_any(dest, header, buf, bytes);
}

/* nocmsg_port_udn_write_raw for any alignment and length: packets of up to max_words, misaligned words and the
 * last part word through memcpy. Returns 0. */
__attribute__((noinline)) static int write_message_any(int dest, uint64_t header, const void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8, at = 0, whole = bytes / 8;
    const unsigned char *b = buf;
    int aligned = ((uintptr_t)buf & 7) == 0;
    int first = 1;
    while (first || at < words) {
        size_t len = (words - at) + first;
        if (len > udn.max_words - 1)
            len = udn.max_words - 1;
        raw_head(dest, len + 1);
        if (first) {
            nocmsg__udn_xsend_word(header, dest);
            len--;
            first = 0;
        }
        if (aligned && at < whole) {
            size_t m = whole - at < len ? whole - at : len;
            nocmsg__udn_xsend_words((const nocmsg_udn_word *)buf + at, m, dest);
            at += m;
            len -= m;
        }
        for (; len > 0; len--, at++) {
            uint64_t w = 0;
            memcpy(&w, b + 8 * at, bytes - 8 * at < 8 ? bytes - 8 * at : 8);
            nocmsg__udn_xsend_word(w, dest);
        }
    }
    return 0;
}

int nocmsg_port_udn_write_raw(int dest, uint64_t header, const void *buf, size_t bytes)
{
    /* The common case without a stack frame: an aligned message in one packet. */
    size_t words = (bytes + 7) / 8, whole = bytes / 8;
    if (__builtin_expect(((uintptr_t)buf & 7) == 0 && words + 2 <= udn.max_words, 1)) {
        raw_head(dest, words + 2);
        nocmsg__udn_xsend_word(header, dest);
        nocmsg__udn_xsend_words(buf, whole, dest);
        if (words > whole)
            nocmsg__udn_xsend_word(nocmsg_udn_part_word((const uint64_t *)buf + whole, bytes - 8 * whole), dest);
        return 0;
    }
    return write_message_any(dest, header, buf, bytes);
}

int nocmsg_port_write_message(int dest, uint64_t header, const void *buf, size_t bytes)
{
    if (udn.open_dest >= 0 || udn.irq_mode)
        return 0; /* the interrupt-driven mode acknowledges every packet: no raw writes */
    nocmsg_port_udn_write_raw(dest, header, buf, bytes);
    return 1;
}

int nocmsg_port_udn_word(int dest, unsigned queue, uint64_t word)
{
    if (udn.irq_mode)
        irq_mask();
    int ok = udn.open_dest < 0 && nocmsg_udn_credits() >= 2;
    if (ok) {
        nocmsg_udn_send(NOCMSG_UDN_HEADER(dest, 1, queue));
        nocmsg_udn_send(word);
    }
    if (udn.irq_mode)
        irq_unmask();
    return ok;
}

int nocmsg_port_udn_word_poll(unsigned queue, uint64_t *word)
{
    if (nocmsg_udn_count(queue) == 0)
        return 0;
    *word = nocmsg_udn_recv(queue);
    return 1;
}

int nocmsg_port_udn_control(int dest, uint64_t word)
{
    return nocmsg_port_udn_word(dest, 1, word);
}

int nocmsg_port_udn_control_poll(uint64_t *word)
{
    return nocmsg_port_udn_word_poll(1, word);
}

int64_t nocmsg_port_udn_balance(int *busy)
{
    *busy = udn.open_dest >= 0 || udn.cur_left != 0 || udn.ahead_valid;
    return (int64_t)(udn.packets_out - udn.packets_in);
}

int nocmsg_port_udn_raw_ok(void)
{
    return !udn.irq_mode;
}

/* A chunk's source word: rank, words that follow, and bit 32 on the last chunk of a block. */
#define CHUNK_LAST ((uint64_t)1 << 32)

void nocmsg_port_udn_chunk_write(int dest, const void *buf, size_t bytes, int last)
{
    size_t words = (bytes + 7) / 8, whole = bytes / 8;
    const unsigned char *b = buf;
    nocmsg_udn_send(NOCMSG_UDN_HEADER(dest, words + 1, Q));
    nocmsg_udn_send((uint64_t)udn.me | (uint64_t)words << 16 | (last ? CHUNK_LAST : 0));
    udn.packets_out++;
    if (((uintptr_t)buf & 7) == 0) {
        nocmsg_udn_send_words(buf, whole);
    } else {
        for (size_t i = 0; i < whole; i++) {
            uint64_t w;
            memcpy(&w, b + 8 * i, 8);
            nocmsg_udn_send(w);
        }
    }
    if (whole < words) {
        uint64_t w = 0;
        memcpy(&w, b + 8 * whole, bytes - 8 * whole);
        nocmsg_udn_send(w);
    }
}

int nocmsg_port_udn_chunk_read(int src, void *buf, size_t bytes, int last)
{
    size_t words = (bytes + 7) / 8, whole = bytes / 8;
    unsigned char *b = buf;
    uint64_t first = nocmsg_udn_recv(Q);
    udn.packets_in++;
    if ((int)NOCMSG_UDN_FIELD_RANK(first) != src || NOCMSG_UDN_FIELD_LENGTH(first) != words ||
        !(first & CHUNK_LAST) != !last) {
        /* Not the chunk expected: the rest of the packet is dropped (the engine must not read it as its own). */
        for (unsigned i = NOCMSG_UDN_FIELD_LENGTH(first); i > 0; i--)
            (void)nocmsg_udn_recv(Q);
        return 0;
    }
    if (((uintptr_t)buf & 7) == 0) {
        for (size_t i = 0; i < whole; i++)
            ((uint64_t *)buf)[i] = nocmsg_udn_recv(Q);
    } else {
        for (size_t i = 0; i < whole; i++) {
            uint64_t w = nocmsg_udn_recv(Q);
            memcpy(b + 8 * i, &w, 8);
        }
    }
    if (whole < words) {
        uint64_t w = nocmsg_udn_recv(Q);
        memcpy(b + 8 * whole, &w, bytes - 8 * whole);
    }
    return 1;
}

unsigned nocmsg_port_udn_count0(void)
{
    return (unsigned)nocmsg_udn_count(Q);
}

unsigned nocmsg_port_udn_max_words(void)
{
    return udn.max_words;
}

void nocmsg_port_udn_sleep_on(unsigned queues)
{
    nocmsg_udn_irq_enable(queues);
    int empty = 1;
    for (unsigned q = 0; q < NOCMSG_UDN_QUEUES; q++)
        if ((queues >> q & 1) && nocmsg_udn_count(q) != 0)
            empty = 0;
    if (empty)
        __asm__ volatile("wfi" ::: "memory");
    nocmsg_udn_irq_enable(0);
}

void nocmsg_port_udn_sleep(void)
{
    if (udn.irq_mode) {
        /* The barrier's queue too may end the wait; the handler takes queue 0's words meanwhile. */
        irq_mask();
        send_acks();
        nocmsg_udn_irq_enable(IRQ_QUEUES | 2);
        if (rx_count() == 0 && nocmsg_udn_count(1) == 0 && !acks_owed())
            __asm__ volatile("wfi" ::: "memory");
        nocmsg_udn_irq_enable(udn.irq->ring_full ? 1u << ACK_QUEUE : IRQ_QUEUES);
        irq_unmask();
        return;
    }
    nocmsg_udn_irq_enable(3);
    if (nocmsg_udn_count(Q) == 0 && nocmsg_udn_count(1) == 0)
        __asm__ volatile("wfi" ::: "memory");
    nocmsg_udn_irq_enable(0);
}

/* A word has arrived for this rank (read ahead, or in queue 0). */
static inline int word_waiting(void)
{
    return udn.ahead_valid || rx_count() != 0;
}

/* Whether a push could write a word now: the open packet needs one credit, a new one three. */
static inline int can_push(void)
{
    return nocmsg_udn_credits() >= (udn.open_dest >= 0 ? 1u : 3u);
}

size_t nocmsg_port_stream_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    size_t words = (bytes + 7) / 8, whole = bytes / 8;
    int aligned = !udn.irq_mode && ((uintptr_t)buf & 7) == 0;
    for (;;) {
        /* The whole words of an aligned buffer, packet after packet, as credits come back, in one tight loop: the
         * output queue holds a few words, so a stream mostly waits for credits, and each look at them should cost
         * little. A word arriving while there are none ends the stream here, as below. */
        if (aligned && from < whole && (udn.open_dest == dest || udn.open_dest < 0)) {
            if (udn.open_dest < 0) {
                /* Room for a new packet's head and a word first (the general push would take the whole packet on
                 * its slower way when it got there first). */
                while (nocmsg_udn_credits() < 3)
                    if (word_waiting())
                        return from;
                size_t len = words - from + 1 < udn.max_words ? words - from + 1 : udn.max_words;
                write_head(dest, len);
                udn.open_dest = dest;
                udn.open_left = (unsigned)(len - 1);
            }
            const uint64_t *p = (const uint64_t *)buf;
            size_t start = from, end = whole - from < udn.open_left ? whole : from + udn.open_left;
            while (from < end) {
                uint64_t credits = nocmsg_udn_credits();
                if (credits >= 4 && end - from >= 4) { /* the usual step: the queue has drained meanwhile */
                    uint64_t w0 = p[from], w1 = p[from + 1], w2 = p[from + 2], w3 = p[from + 3];
                    nocmsg_udn_send(w0);
                    nocmsg_udn_send(w1);
                    nocmsg_udn_send(w2);
                    nocmsg_udn_send(w3);
                    from += 4;
                    continue;
                }
                size_t m = end - from < credits ? end - from : (size_t)credits;
                if (m == 0) {
                    if (word_waiting())
                        break;
                    continue;
                }
                nocmsg_udn_send_words(p + from, m);
                from += m;
            }
            udn.open_left -= (unsigned)(from - start);
            if (udn.open_left == 0)
                udn.open_dest = -1;
            if (from == words || (from < end && word_waiting()))
                return from;
            continue;
        }
        /* The last part word, a misaligned buffer, or no room for a new packet's head. */
        from = nocmsg_port_push_bytes(dest, buf, bytes, from);
        if (from == words || word_waiting())
            return from;
        while (!can_push())
            if (word_waiting())
                return from;
    }
}

/* ---- receiving -------------------------------------------------------------------------------------- */

static inline void begin_packet(uint64_t source_word)
{
    udn.packets_in++;
    udn.cur_src = (int)NOCMSG_UDN_FIELD_RANK(source_word);
    udn.cur_left = NOCMSG_UDN_FIELD_LENGTH(source_word);
}

int nocmsg_port_poll(int *src)
{
    if (!udn.ahead_valid) {
        uint64_t there = rx_count();
        if (there == 0)
            return 0;
        if (udn.cur_left == 0) {
            begin_packet(rx_take());
            if (there == 1)
                return 0; /* its first word is still on its way */
        }
    }
    *src = udn.cur_src;
    return 1;
}

int nocmsg_port_udn_recv_eager(int from, uint64_t want, uint64_t mask, void *buf, size_t cap, uint64_t *hdr, int *src,
                               int wait)
{
    if (__builtin_expect(udn.irq_mode, 0))
        return 0;
    uint64_t h;
    if (udn.ahead_valid) { /* nocmsg_port_next read it ahead */
        h = udn.ahead;
        udn.ahead_valid = 0;
    } else {
        if (!wait) {
            uint64_t there = nocmsg_udn_count(Q);
            if (there < (udn.cur_left == 0 ? 2u : 1u)) /* a packet's source word and its first word, the header */
                return 0;
        }
        /* (With `wait`, these reads stall, asleep, until the words come.) */
        if (udn.cur_left == 0)
            begin_packet(nocmsg_udn_recv(Q));
        h = nocmsg_udn_recv(Q);
        udn.cur_left--;
    }
    int s = udn.cur_src;
    *hdr = h;
    *src = s;
    size_t len = (size_t)(h >> 40); /* NOCMSG__EAGER_HDR's length */
    if (((h ^ want) & mask) != 0 || (from >= 0 && s != from) || len > cap || ((uintptr_t)buf & 7) != 0 ||
        (len + 7) / 8 > udn.cur_left)
        return -1;
    take_message_words(buf, len);
    return 1;
}

uint64_t nocmsg_port_pull1_from(int src)
{
    (void)src;
    if (udn.ahead_valid) {
        udn.ahead_valid = 0;
        return udn.ahead;
    }
    udn.cur_left--;
    return rx_take();
}

int nocmsg_port_next(void)
{
    if (!udn.ahead_valid) {
        if (udn.cur_left == 0)
            begin_packet(rx_take()); /* stalls (asleep) until a packet comes */
        udn.ahead = rx_take();
        udn.ahead_valid = 1;
        udn.cur_left--;
    }
    return udn.cur_src;
}

/* Takes up to n words of src's stream; with `wait`, reads words still on their way (stalling), else only those
 * there. Stops when the next packet is another source's. */
static size_t pull_run(int src, uint64_t *words, size_t n, int wait)
{
    size_t k = 0;
    if (udn.cur_src != src && udn.cur_left == 0 && !udn.ahead_valid && k < n) {
        /* src's words may start with the next packet. */
        if (!wait && rx_count() == 0)
            return 0;
        begin_packet(rx_take());
    }
    if (udn.cur_src != src)
        return 0;
    if (udn.ahead_valid && n > 0) {
        words[k++] = udn.ahead;
        udn.ahead_valid = 0;
    }
    while (k < n) {
        if (udn.cur_left == 0) {
            /* The next packet: go on if it is src's. */
            if (!wait && rx_count() == 0)
                break;
            begin_packet(rx_take());
            if (udn.cur_src != src)
                break;
        }
        size_t m = n - k < udn.cur_left ? n - k : udn.cur_left;
        if (!wait) {
            uint64_t there = rx_count();
            if (there < m)
                m = (size_t)there;
            if (m == 0)
                break;
        }
        if (__builtin_expect(!udn.irq_mode, 1))
            nocmsg_udn_recv0_words(words + k, m);
        else
            for (size_t i = 0; i < m; i++)
                words[k + i] = rx_take_ring();
        k += m;
        udn.cur_left -= (unsigned)m;
    }
    return k;
}

size_t nocmsg_port_pull(int src, uint64_t *words, size_t n)
{
    return pull_run(src, words, n, 0);
}

size_t nocmsg_port_pull_wait(int src, uint64_t *words, size_t n)
{
    return pull_run(src, words, n, 1);
}

int nocmsg_port_take(int src, uint64_t *word)
{
    return pull_run(src, word, 1, 1) == 1;
}

__attribute__((noinline)) static size_t pull_bytes_any(int src, void *buf, size_t bytes);

size_t nocmsg_port_pull_bytes(int src, void *buf, size_t bytes)
{
    /* The common case without a stack frame: polling mode, an aligned buffer, the whole message in src's packet
     * under way (none read ahead): stalling reads straight into the buffer. */
    if (__builtin_expect(!udn.irq_mode && udn.cur_src == src && !udn.ahead_valid && (bytes + 7) / 8 <= udn.cur_left &&
                             ((uintptr_t)buf & 7) == 0,
                         1))
        return take_message_words(buf, bytes);
    return pull_bytes_any(src, buf, bytes);
}

/* nocmsg_port_pull_bytes for any alignment, length and packet boundaries. */
__attribute__((noinline)) static size_t pull_bytes_any(int src, void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8, whole = bytes / 8, k = 0;
    if (((uintptr_t)buf & 7) == 0)
        k = pull_run(src, buf, whole, 1);
    unsigned char *b = buf;
    while (k < words) {
        uint64_t w;
        if (pull_run(src, &w, 1, 1) != 1)
            break;
        size_t left = bytes - 8 * k;
        memcpy(b + 8 * k, &w, left < 8 ? left : 8);
        k++;
    }
    return k;
}

void nocmsg_port_wait(int sending)
{
    if (udn.irq_mode) {
        /* The engine waits for a word, an ACK or a credit: one wfi (or none), then it looks again. Owed ACKs go out
         * first (the handler leaves them while a packet is open). */
        irq_mask();
        send_acks();
        /* An open packet, or a new one short of credits, waits only for credits, which raise no interrupt: look
         * again (they come back within a few cycles); so does a push that waited for an ACK if one has come since.
         * A word or an ACK comes with an interrupt. */
        int sleep = !word_waiting() && !acks_owed();
        if (sending) /* only a wait for an ACK may sleep: credits coming back raise no interrupt */
            sleep = sleep && udn.open_dest < 0 && udn.irq->acks == udn.irq->acks_seen && nocmsg_udn_credits() >= 3;
        if (sleep)
            __asm__ volatile("wfi" ::: "memory");
        irq_unmask();
        return;
    }
    if (!sending) {
        nocmsg_port_next(); /* reads the next word ahead, stalling (asleep) until it lands */
        return;
    }
    /* A word may arrive or a credit come back first; no single read waits for both. */
    while (!word_waiting() && !can_push())
        ;
}

/* ---- the rest --------------------------------------------------------------------------------------- */

void nocmsg_port_mesh(int *width, int *height, int *concentration)
{
    *width = (int)nocmsg_boot.mesh_width;
    *height = (int)nocmsg_boot.mesh_height;
    *concentration = (int)nocmsg_boot.concentration;
}

size_t nocmsg_port_eager_limit(void)
{
    return NOCMSG__PIMP_EAGER_LIMIT; /* the same as PIMP's, so that programs behave the same on both */
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
    int64_t block[1] = {code};
    nocmsg_semihost(NOCMSG_SYS_ABORT, block);
    exit(code ? code : 1); /* not reached on the simulator */
}

struct nocmsg_wait_record *nocmsg_port_wait_slot(void)
{
    return NULL;
}
