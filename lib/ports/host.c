/*
 * host.c: the native port. Ranks are processes started by `nocmsg native`; every ordered pair of ranks (a rank
 * and itself included) has a single-producer single-consumer ring of words in one shared-memory segment, so a
 * word costs no system call and no lock, and bulk data moves with memcpy, a ring at a time.
 *
 * The launcher creates an empty file and names it in NOCMSG_SHM; every rank sizes it with ftruncate (the same
 * size everywhere, so the order does not matter) and maps it. Fresh pages are zero, which is the empty state of
 * every ring. Without the launcher (NOCMSG_SHM unset) the program is a single rank with a private ring.
 *
 * Layout: first one NOCMSG_WAIT_SLOT_BYTES slot per rank, rank r's at offset r * NOCMSG_WAIT_SLOT_BYTES, holding
 * its wait record (../src/wait.h), which the launcher reads to detect deadlocks and ranks that exit without
 * finalizing; then, from the next 4 KiB boundary, the rings.
 */
#ifndef NOCMSG_SIM
#define _GNU_SOURCE

#include "port.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nocmsg.h>

#include "../src/wait.h"

#define CACHE_LINE 64

/* One direction between two ranks. head and tail count words since the start and never wrap. */
struct ring {
    _Alignas(CACHE_LINE) uint64_t tail; /* written by the producer */
    _Alignas(CACHE_LINE) uint64_t head; /* written by the consumer */
    _Alignas(CACHE_LINE) uint64_t data[];
};

static struct {
    int rank, size;
    size_t ring_words;
    size_t ring_bytes;
    size_t slots_bytes; /* the wait records before the rings */
    unsigned char *base;
    size_t map_bytes;
    /* Producer side, per destination: our tail and the last head we saw. */
    uint64_t *out_tail, *out_head_seen;
    /* Consumer side, per source: our head and the last tail we saw. */
    uint64_t *in_head, *in_tail_seen;
    int next_poll;
} host;

static struct ring *ring_of(int src, int dst)
{
    return (struct ring *)(host.base + host.slots_bytes + ((size_t)src * (size_t)host.size + (size_t)dst) * host.ring_bytes);
}

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

int nocmsg_port_init(int *rank, int *size)
{
    const char *path = getenv("NOCMSG_SHM");
    host.rank = path ? env_int("NOCMSG_RANK", -1) : 0;
    host.size = path ? env_int("NOCMSG_SIZE", 0) : 1;
    if (host.size < 1 || host.rank < 0 || host.rank >= host.size) {
        fprintf(stderr, "nocmsg: bad NOCMSG_RANK/NOCMSG_SIZE in the environment (start ranks with nocmsg native)\n");
        return NOCMSG_ERR_INTERN;
    }
    /* Small jobs get 64 KiB per ring; large ones less, so the segment stays sparse-friendly. */
    host.ring_words = host.size <= 16 ? 8192 : host.size <= 64 ? 2048 : 512;
    host.ring_bytes = sizeof(struct ring) + host.ring_words * sizeof(uint64_t);
    host.slots_bytes = ((size_t)host.size * NOCMSG_WAIT_SLOT_BYTES + 4095) & ~(size_t)4095;
    host.map_bytes = host.slots_bytes + (size_t)host.size * (size_t)host.size * host.ring_bytes;
    if (path) {
        int fd = open(path, O_RDWR);
        if (fd < 0 || ftruncate(fd, (off_t)host.map_bytes) != 0) {
            fprintf(stderr, "nocmsg: cannot open shared memory %s: %s\n", path, strerror(errno));
            return NOCMSG_ERR_INTERN;
        }
        host.base = mmap(NULL, host.map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    } else {
        host.base = mmap(NULL, host.map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    if (host.base == MAP_FAILED) {
        fprintf(stderr, "nocmsg: cannot map %zu bytes of shared memory: %s\n", host.map_bytes, strerror(errno));
        return NOCMSG_ERR_INTERN;
    }
    host.out_tail = calloc((size_t)host.size * 4, sizeof(uint64_t));
    if (!host.out_tail)
        return NOCMSG_ERR_NO_MEM;
    host.out_head_seen = host.out_tail + host.size;
    host.in_head = host.out_head_seen + host.size;
    host.in_tail_seen = host.in_head + host.size;
    *rank = host.rank;
    *size = host.size;
    return NOCMSG_SUCCESS;
}

struct nocmsg_wait_record *nocmsg_port_wait_slot(void)
{
    if (!host.base || !getenv("NOCMSG_SHM"))
        return NULL;
    return (struct nocmsg_wait_record *)(void *)(host.base + (size_t)host.rank * NOCMSG_WAIT_SLOT_BYTES);
}

void nocmsg_port_finalize(void)
{
    if (host.base && host.base != MAP_FAILED)
        munmap(host.base, host.map_bytes);
    free(host.out_tail);
    memset(&host, 0, sizeof host);
}

const char *nocmsg_port_kind(void)
{
    return "host";
}

/* Copies n words into dest's ring at the producer's tail (room already checked); does not publish. */
static void ring_write(struct ring *r, uint64_t tail, const uint64_t *words, size_t n)
{
    size_t cap = host.ring_words, at = (size_t)(tail % cap), first = cap - at < n ? cap - at : n;
    memcpy(&r->data[at], words, first * sizeof(uint64_t));
    if (first < n)
        memcpy(&r->data[0], words + first, (n - first) * sizeof(uint64_t));
}

/* Words of room in the ring to dest (reading the consumer's head only when the cached value is not enough). */
static size_t ring_room(struct ring *r, int dest, size_t want)
{
    uint64_t tail = host.out_tail[dest];
    if (tail - host.out_head_seen[dest] + want > host.ring_words)
        host.out_head_seen[dest] = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    return host.ring_words - (size_t)(tail - host.out_head_seen[dest]);
}

void nocmsg_port_mesh(int *width, int *height, int *concentration)
{
    *width = *height = *concentration = 0;
}

size_t nocmsg_port_push_packet(int dest, uint64_t header, const uint64_t *payload, size_t n)
{
    struct ring *r = ring_of(host.rank, dest);
    size_t room = ring_room(r, dest, n + 1);
    if (room == 0)
        return 0;
    uint64_t tail = host.out_tail[dest];
    ring_write(r, tail, &header, 1);
    size_t k = n < room - 1 ? n : room - 1;
    if (k) /* a header-only packet may come with no payload pointer, and memcpy wants one even for 0 bytes */
        ring_write(r, tail + 1, payload, k);
    host.out_tail[dest] = tail + 1 + k;
    /* One release store publishes the whole packet: the receiver sees header and payload together. */
    __atomic_store_n(&r->tail, tail + 1 + k, __ATOMIC_RELEASE);
    return 1 + k;
}

size_t nocmsg_port_push(int dest, const uint64_t *words, size_t n)
{
    struct ring *r = ring_of(host.rank, dest);
    uint64_t tail = host.out_tail[dest];
    size_t cap = host.ring_words;
    if (tail - host.out_head_seen[dest] + n > cap)
        host.out_head_seen[dest] = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    size_t room = cap - (size_t)(tail - host.out_head_seen[dest]);
    if (n > room)
        n = room;
    if (n == 0)
        return 0;
    size_t at = (size_t)(tail % cap), first = cap - at < n ? cap - at : n;
    memcpy(&r->data[at], words, first * sizeof(uint64_t));
    if (first < n)
        memcpy(&r->data[0], words + first, (n - first) * sizeof(uint64_t));
    host.out_tail[dest] = tail + n;
    __atomic_store_n(&r->tail, tail + n, __ATOMIC_RELEASE);
    return n;
}

size_t nocmsg_port_push_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    size_t words = (bytes + 7) / 8, whole = bytes / 8;
    const unsigned char *b = buf;
    if (from < whole && ((uintptr_t)b & 7) == 0) {
        from += nocmsg_port_push(dest, (const uint64_t *)(const void *)b + from, whole - from);
        if (from < whole)
            return from;
    }
    for (; from < words; from++) {
        uint64_t w = 0;
        size_t left = bytes - 8 * from;
        memcpy(&w, b + 8 * from, left < 8 ? left : 8);
        if (!nocmsg_port_push(dest, &w, 1))
            break;
    }
    return from;
}

size_t nocmsg_port_stream_bytes(int dest, const void *buf, size_t bytes, size_t from)
{
    size_t words = (bytes + 7) / 8;
    for (;;) {
        from = nocmsg_port_push_bytes(dest, buf, bytes, from);
        int src;
        if (from == words || nocmsg_port_poll(&src))
            return from;
        nocmsg_port_wait(1);
    }
}

size_t nocmsg_port_push_message(int dest, uint64_t header, const void *buf, size_t bytes)
{
    if ((((uintptr_t)buf | bytes) & 7) == 0)
        return nocmsg_port_push_packet(dest, header, buf, bytes / 8);
    if (!nocmsg_port_push(dest, &header, 1))
        return 0;
    return 1 + nocmsg_port_push_bytes(dest, buf, bytes, 0);
}

int nocmsg_port_push1(int dest, uint64_t word)
{
    return (int)nocmsg_port_push(dest, &word, 1);
}

uint64_t nocmsg_port_pull1_from(int src)
{
    uint64_t w = 0;
    nocmsg_port_pull(src, &w, 1);
    return w;
}

static size_t available(int src)
{
    uint64_t head = host.in_head[src];
    if (host.in_tail_seen[src] == head)
        host.in_tail_seen[src] = __atomic_load_n(&ring_of(src, host.rank)->tail, __ATOMIC_ACQUIRE);
    return (size_t)(host.in_tail_seen[src] - head);
}

int nocmsg_port_poll(int *src)
{
    for (int k = 0; k < host.size; k++) {
        int s = host.next_poll + k;
        if (s >= host.size)
            s -= host.size;
        if (available(s)) {
            /* Start the next scan after this source, so a chatty rank cannot starve the others. */
            host.next_poll = s + 1 == host.size ? 0 : s + 1;
            *src = s;
            return 1;
        }
    }
    return 0;
}

int nocmsg_port_next(void)
{
    int src;
    while (!nocmsg_port_poll(&src))
        nocmsg_port_wait(0);
    return src;
}

size_t nocmsg_port_pull(int src, uint64_t *words, size_t n)
{
    size_t avail = available(src);
    if (n > avail)
        n = avail;
    if (n == 0)
        return 0;
    struct ring *r = ring_of(src, host.rank);
    uint64_t head = host.in_head[src];
    size_t cap = host.ring_words, at = (size_t)(head % cap), first = cap - at < n ? cap - at : n;
    memcpy(words, &r->data[at], first * sizeof(uint64_t));
    if (first < n)
        memcpy(words + first, &r->data[0], (n - first) * sizeof(uint64_t));
    host.in_head[src] = head + n;
    __atomic_store_n(&r->head, head + n, __ATOMIC_RELEASE);
    return n;
}

size_t nocmsg_port_pull_wait(int src, uint64_t *words, size_t n)
{
    /* A small packet is published whole, so there is nothing worth waiting for. */
    return nocmsg_port_pull(src, words, n);
}

size_t nocmsg_port_pull_bytes(int src, void *buf, size_t bytes)
{
    size_t words = (bytes + 7) / 8, whole = bytes / 8, k = 0;
    unsigned char *b = buf;
    if (((uintptr_t)b & 7) == 0) {
        k = nocmsg_port_pull(src, buf, whole);
        if (k < whole)
            return k;
    }
    for (; k < words; k++) {
        uint64_t w;
        if (!nocmsg_port_pull(src, &w, 1))
            break;
        size_t left = bytes - 8 * k;
        memcpy(b + 8 * k, &w, left < 8 ? left : 8);
    }
    return k;
}

int nocmsg_port_take(int src, uint64_t *word)
{
    return nocmsg_port_pull_wait(src, word, 1) == 1;
}

void nocmsg_port_wait(int sending)
{
    (void)sending;
    /* Spin briefly (a reply is often a few hundred nanoseconds away), then give the CPU to other ranks: jobs
     * may have more ranks than cores. */
    static unsigned idle;
    if (++idle % 64 == 0) {
        nocmsg_wait_idle();
        sched_yield();
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

size_t nocmsg_port_eager_limit(void)
{
    return 16384;
}

double nocmsg_port_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double nocmsg_port_wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void nocmsg_port_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    _exit(code ? code : 1);
}

#endif /* !NOCMSG_SIM */
