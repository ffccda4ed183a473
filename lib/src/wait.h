/*
 * wait.h: what this rank is blocked on, for the deadlock reports of `nocmsg run` and `nocmsg native` (not installed).
 *
 * Each rank keeps one record (struct nocmsg_wait_record): whether it is running, blocked in the library or done,
 * and while blocked, the world rank it waits for. On the simulator the record is the global nocmsg_wait_record,
 * which the chip reads from the core's memory (its ELF symbol) once every running core sleeps; the chip finds the
 * call and its caller by unwinding the core's stack, and the record's `call` names the call where the stack cannot
 * (a public function that tail-called the loop). Natively the record is the rank's slot at the start of the job's
 * shared-memory file, which the launcher reads: besides the state it keeps evidence of progress (`epoch`, bumped
 * whenever the rank blocks, unblocks or gets anything done while blocked; `heartbeat`, bumped while it polls in
 * vain) and, once a wait has lasted a while, the rank's own backtrace, for the launcher to name the call.
 *
 * Only the slow sides of waits touch the record: the blocking loops around nocmsg_engine_block (WAIT_UNTIL) and the
 * lean waits for the next word when nothing has arrived (nocmsg_wait_next). On the simulator the lean waits cost
 * nothing at all: they are entries of the wait-site table (include/nocmsg_wait.h).
 *
 * The layout is shared with the readers (crates/chip/src/diagnose.rs on the simulator, crates/cli/src/native.rs
 * natively): change it only together with them, and NOCMSG_WAIT_MAGIC with it.
 */
#ifndef NOCMSG_WAIT_INTERNAL_H
#define NOCMSG_WAIT_INTERNAL_H

#include "internal.h"

#include "../include/nocmsg_wait.h"
#include "../ports/port.h"

#define NOCMSG_WAIT_MAGIC 0x3172776eu /* "nwr1" */
/* Natively each rank's record is a slot of this many bytes at the start of the shared-memory file. */
#define NOCMSG_WAIT_SLOT_BYTES 256
#define NOCMSG_WAIT_FRAMES 16
/* frame[] entries: bit 63 marks a return address in libnocmsg's own code; 0 is a frame outside the program. */
#define NOCMSG_WAIT_FRAME_LIB ((uint64_t)1 << 63)

enum nocmsg_wait_state {
    NOCMSG_WAIT_NONE = 0,      /* nocmsg_init has not run */
    NOCMSG_WAIT_RUNNING = 1,   /* between init and finalize, not blocked */
    NOCMSG_WAIT_BLOCKED = 2,   /* in a blocking loop of the library */
    NOCMSG_WAIT_FINALIZED = 3, /* nocmsg_finalize has run */
    NOCMSG_WAIT_EXITED = 4,    /* natively: the process exits without having finalized */
};

struct nocmsg_wait_record {
    uint32_t magic;        /* NOCMSG_WAIT_MAGIC once nocmsg_init has run */
    uint32_t state;        /* enum nocmsg_wait_state */
    int32_t peer;          /* while blocked: the world rank waited for; -1 any source; below -1 not known */
    uint32_t epoch;        /* natively: changes whenever the rank blocks, unblocks or gets something done blocked */
    uint64_t call;         /* while blocked: address of the blocking call's name, or 0 (the stack names it) */
    uint64_t heartbeat;    /* natively: polls that found nothing while blocked */
    uint32_t frames_epoch; /* natively: the epoch in which frame[] was taken */
    uint32_t frames;       /* natively: entries of frame[] in use */
    uint64_t frame[NOCMSG_WAIT_FRAMES]; /* natively: return addresses, innermost first, relative to the program's
                                         * load address (NOCMSG_WAIT_FRAME_LIB set in the library's own code) */
    char name[32];         /* natively: the string `call` points to */
};
_Static_assert(sizeof(struct nocmsg_wait_record) <= NOCMSG_WAIT_SLOT_BYTES, "a wait record must fit its slot");
/* The offsets the readers use (crates/chip/src/diagnose.rs, module record). */
_Static_assert(offsetof(struct nocmsg_wait_record, state) == 4 && offsetof(struct nocmsg_wait_record, peer) == 8 &&
                   offsetof(struct nocmsg_wait_record, epoch) == 12 && offsetof(struct nocmsg_wait_record, call) == 16 &&
                   offsetof(struct nocmsg_wait_record, heartbeat) == 24 &&
                   offsetof(struct nocmsg_wait_record, frames_epoch) == 32 &&
                   offsetof(struct nocmsg_wait_record, frames) == 36 && offsetof(struct nocmsg_wait_record, frame) == 40 &&
                   offsetof(struct nocmsg_wait_record, name) == 168,
               "the wait record's layout is shared with crates/chip/src/diagnose.rs");

#ifdef NOCMSG_SIM
extern struct nocmsg_wait_record nocmsg_wait_record;
#define NOCMSG__WAIT (&nocmsg_wait_record)
#else
extern struct nocmsg_wait_record *nocmsg__wait;
#define NOCMSG__WAIT nocmsg__wait
#endif

/* Publishes a field the launcher may read at any time (natively; on the simulator nothing reads concurrently). */
#define WAIT_SET(field, value) __atomic_store_n(&NOCMSG__WAIT->field, (value), __ATOMIC_RELAXED)

/* Marks the rank blocked waiting for world rank `peer` (-1: any) in `call` (a string literal, or NULL when the
 * stack shows the call). Returns whether it did (always: the library's blocking loops do not nest, since nothing
 * that runs inside nocmsg_engine_block blocks; the flag keeps nocmsg_wait_leave's callers honest should that
 * change). */
static inline int nocmsg_wait_enter(int peer, const char *call)
{
    WAIT_SET(peer, peer);
    WAIT_SET(call, (uint64_t)(uintptr_t)call);
    WAIT_SET(state, (uint32_t)NOCMSG_WAIT_BLOCKED);
#ifndef NOCMSG_SIM
    WAIT_SET(epoch, NOCMSG__WAIT->epoch + 1);
#endif
    return 1;
}

static inline void nocmsg_wait_leave(int entered)
{
    if (!entered)
        return;
    WAIT_SET(state, (uint32_t)NOCMSG_WAIT_RUNNING);
#ifndef NOCMSG_SIM
    WAIT_SET(epoch, NOCMSG__WAIT->epoch + 1);
#endif
}

#ifdef NOCMSG_SIM
/* nocmsg_wait_enter and nocmsg_wait_leave with plain stores, for the UDN port's receive fast path (src/p2p.c), where
 * they are on the path from a message's arrival to its return. On the simulator nothing reads the record while the
 * rank runs, and GCC 12 makes every atomic store an AMO, which costs a trip to the line's home with cached memory.
 * (WAIT_SET stays atomic for the other waits: the PIMP chips' golden cycle counts depend on their code.) */
static inline void nocmsg_wait_enter_plain(int peer)
{
    volatile struct nocmsg_wait_record *r = NOCMSG__WAIT;
    r->peer = peer;
    r->call = 0;
    r->state = (uint32_t)NOCMSG_WAIT_BLOCKED;
}

static inline void nocmsg_wait_leave_plain(void)
{
    ((volatile struct nocmsg_wait_record *)NOCMSG__WAIT)->state = (uint32_t)NOCMSG_WAIT_RUNNING;
}
#endif

/* A blocked rank got something done (natively: evidence for the launcher that the job is not stuck). */
static inline void nocmsg_wait_progress(void)
{
#ifndef NOCMSG_SIM
    WAIT_SET(epoch, NOCMSG__WAIT->epoch + 1);
#endif
}

/* Blocks in the progress engine until `done` holds, as waiting for world rank `peer` in `call`. */
#define WAIT_UNTIL(done, peer, call)                                                                            \
    do {                                                                                                        \
        if (!(done)) {                                                                                          \
            int entered_ = nocmsg_wait_enter((peer), (call));                                                   \
            do                                                                                                  \
                nocmsg_engine_block();                                                                          \
            while (!(done));                                                                                    \
            nocmsg_wait_leave(entered_);                                                                        \
        }                                                                                                       \
    } while (0)

/* The waits for the next word are single PIMP wait loops with a table entry (include/nocmsg_wait.h) on PIMP chips, and
 * calls of the port elsewhere (natively, on MPB chips, which wait by polling memory, and on UDN chips, which wait by
 * reading an empty queue). */
#if defined(NOCMSG_SIM) && !defined(NOCMSG_PORT_MPB) && !defined(NOCMSG_PORT_UDN)
#define NOCMSG__WAIT_SITES 1
#endif

#ifndef NOCMSG__WAIT_SITES
/* The slow side of the waits below: nothing has arrived yet. */
static inline int nocmsg_wait_next_slow(int peer)
{
    int entered = nocmsg_wait_enter(peer, NULL);
    int src = nocmsg_port_next();
    nocmsg_wait_leave(entered);
    return src;
}
#endif

/* nocmsg_port_next (waits until a word has arrived and returns its source), as waiting for world rank `peer`. */
static inline __attribute__((always_inline)) int nocmsg_wait_next(int peer)
{
#ifdef NOCMSG__WAIT_SITES
    NOCMSG__WAIT_RECV_SITE(, peer);
    return (int)nocmsg_pimp_src();
#else
    int src;
    return nocmsg_port_poll(&src) ? src : nocmsg_wait_next_slow(peer);
#endif
}

/* Like nocmsg_wait_next, as waiting for rank `local` (NOCMSG_ANY_SOURCE: any) of communicator `handle`, whose
 * state is c. On the simulator the table entry names the communicator's rank and handle, which costs nothing where
 * the world rank would take instructions (the chip translates NOCMSG_COMM_WORLD and NOCMSG_COMM_SELF itself). */
static inline __attribute__((always_inline)) int nocmsg_wait_next_local(int local, nocmsg_comm handle, const struct comm *c)
{
#ifdef NOCMSG__WAIT_SITES
    (void)c;
    NOCMSG__WAIT_SITE_(, "%[l]/%[h]", [l] "g"((long)local), [h] "g"((long)handle));
    return (int)nocmsg_pimp_src();
#else
    (void)handle;
    int src;
    return nocmsg_port_poll(&src) ? src : nocmsg_wait_next_slow(local >= 0 ? c->world_of[local] : NOCMSG_ANY_SOURCE);
#endif
}

/* wait.c */
/* At the end of nocmsg_init (after the port is up): the rank is running. */
void nocmsg_wait_init(void);
/* In nocmsg_finalize, before the port goes down: the rank has finalized. */
void nocmsg_wait_finalize(void);
/* Natively, from the port's idle loop: the rank polled and found nothing (heartbeat; takes the backtrace once a
 * wait has lasted a while). */
void nocmsg_wait_idle(void);

#endif /* NOCMSG_WAIT_INTERNAL_H */
