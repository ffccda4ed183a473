/*
 * nocmsg_inline.h: inline fast paths of nocmsg_send and nocmsg_recv for simulated PIMP chips (for UDN chips:
 * nocmsg_inline_udn.h, which this includes there). Included by nocmsg.h when building with bin/nocmsg-cc; do not
 * include it yourself. Define NOCMSG_NO_INLINE to turn it off.
 *
 * On a PIMP core a word costs one instruction to send and one to receive, so the library's own overhead decides
 * small-message latency: a call, a frame, the set-up of seven arguments and the checks of each of them cost more
 * than moving the message. When the communicator is NOCMSG_COMM_WORLD and the datatype and tag are compile-time
 * constants, those checks fold away here and what remains is a handful of instructions around the NI ones (the
 * 8-byte round trip between neighbours on pimp-4x4 takes 86 cycles instead of 232 through the functions;
 * docs/libnocmsg.md). Otherwise (a communicator from dup or split with a handle below NOCMSG__FAST_COMMS, a datatype
 * or tag in a variable) the general inline path looks them up with a few loads (about 1.4x the constant path).
 *
 * Only the common case is inline: an 8-byte-aligned buffer of any size up to the eager limit, and nothing else
 * going on in the library (nocmsg__fast: nothing queued to send and, for a receive, nothing posted or unexpected on
 * NOCMSG_COMM_WORLD, no packet partly taken). A message's last part word is sent by reading its aligned 8-byte block
 * whole (it lies in the core's memory) and received with stores of 4, 2 and 1 bytes that end at the buffer's end.
 * A message over the eager limit, on either side, goes straight to the library's lean rendezvous. Everything else, and
 * any hitch on the way (a full send FIFO, an arriving message that is not the one asked for), goes to the library,
 * which gives the same results: the inline code is a shortcut through the same protocol, not a second one.
 */
#ifndef NOCMSG_INLINE_H
#define NOCMSG_INLINE_H

#ifndef NOCMSG_PORT_UDN
#include <nocmsg_pimp.h>
#include <nocmsg_wait.h>
#endif

/* log2 of the size of a basic datatype, -1 for anything else; folds to a constant for a constant type. */
static __inline__ __attribute__((always_inline)) int nocmsg__type_shift(nocmsg_datatype type)
{
    switch (type) {
    case NOCMSG_BYTE:
    case NOCMSG_CHAR:
    case NOCMSG_SIGNED_CHAR:
    case NOCMSG_UNSIGNED_CHAR:
    case NOCMSG_INT8:
    case NOCMSG_UINT8:
        return 0;
    case NOCMSG_SHORT:
    case NOCMSG_UNSIGNED_SHORT:
        return __builtin_ctz(sizeof(short));
    case NOCMSG_INT16:
    case NOCMSG_UINT16:
        return 1;
    case NOCMSG_INT:
    case NOCMSG_UNSIGNED:
        return __builtin_ctz(sizeof(int));
    case NOCMSG_INT32:
    case NOCMSG_UINT32:
        return 2;
    case NOCMSG_FLOAT:
        return __builtin_ctz(sizeof(float));
    case NOCMSG_LONG:
    case NOCMSG_UNSIGNED_LONG:
        return __builtin_ctz(sizeof(long));
    case NOCMSG_LONG_LONG:
    case NOCMSG_UNSIGNED_LONG_LONG:
        return __builtin_ctz(sizeof(long long));
    case NOCMSG_INT64:
    case NOCMSG_UINT64:
        return 3;
    case NOCMSG_DOUBLE:
        return __builtin_ctz(sizeof(double));
    default:
        return -1;
    }
}

/* log2 of the size of a valid basic datatype, folded when the type is a constant other than a pair type (whose
 * nocmsg__type_shift is -1: the table has their sizes). */
#define NOCMSG__SHIFT_OF(type)                                                                                  \
    (__builtin_constant_p(type) && nocmsg__type_shift(type) >= 0 ? nocmsg__type_shift(type)                    \
                                                                 : nocmsg__type_shifts[type])

/* Whether a call's communicator and datatype allow the inline path at all (decided at compile time). */
#define NOCMSG__INLINE_OK(comm, type)                                                                           \
    (__builtin_constant_p(comm) && (comm) == NOCMSG_COMM_WORLD && __builtin_constant_p(type) &&                 \
     nocmsg__type_shift(type) >= 0)

/* The communicator-dependent parts of the general inline paths, `fc` the communicator's entry in nocmsg__fast_comms
 * and `world` whether it is NOCMSG_COMM_WORLD (a constant, so that these fold for it). Macros, not functions: an
 * expression spelled out in place keeps GCC's code for the PIMP paths, whose cycle counts are golden, as it was. */

/* Whether a send's or a receive's communicator handle, datatype and tag are ones the general inline paths take. */
#define NOCMSG__SEND_ARGS_OK(comm, type, tag)                                                                   \
    ((unsigned)(comm) < NOCMSG__FAST_COMMS && (unsigned)(type)-1u < NOCMSG_BASIC_DATATYPES - 1u &&             \
     (unsigned)(tag) <= NOCMSG_TAG_UB)
#define NOCMSG__RECV_ARGS_OK(comm, type, tag)                                                                   \
    ((unsigned)(comm) < NOCMSG__FAST_COMMS && (unsigned)(type)-1u < NOCMSG_BASIC_DATATYPES - 1u &&             \
     ((unsigned)(tag) <= NOCMSG_TAG_UB || (tag) == NOCMSG_ANY_TAG))

/* Whether an inline send may go to its rank `dest`: a live rank, and nothing queued to send. */
#define NOCMSG__SEND_RANK_OK(dest, fc, world)                                                                   \
    ((unsigned)(dest) < ((world) ? nocmsg__fast.send_ranks : (fc)->size) && ((world) || nocmsg__fast.send_ranks != 0))

/* The ranks an inline receive may take a message from without the library: 0 while anything is posted or unexpected
 * on its context or the engine is busy. */
#define NOCMSG__RECV_RANKS(fc, world)                                                                           \
    ((world) ? nocmsg__fast.recv_ranks                                                                          \
             : (nocmsg__fast.recv_idle != 0 && nocmsg__fast.busy[(fc)->ctx & (NOCMSG__CTX_SLOTS - 1)] == 0      \
                    ? (fc)->size                                                                                \
                    : 0))

/* The header word of an EAGER message on it, tag and length 0. */
#define NOCMSG__EAGER_HDR_OF(fc, world) ((world) ? NOCMSG__EAGER_HDR(0, 0) : (fc)->eager_hdr)

#ifdef NOCMSG_PORT_UDN
#include "nocmsg_inline_udn.h"
#else
/* The general inline paths: a communicator (with a handle below NOCMSG__FAST_COMMS), datatype or tag known only at run
 * time is looked up in nocmsg__fast_comms and nocmsg__type_shifts, which costs a few loads on the way; the rest is
 * the constant path's. */
static __inline__ __attribute__((always_inline)) int nocmsg__send_any(const void *buf, int count, nocmsg_datatype type,
                                                                      int dest, int tag, nocmsg_comm comm)
{
    if (__builtin_expect(NOCMSG__SEND_ARGS_OK(comm, type, tag), 1)) {
        const struct nocmsg_fast_comm *fc = &nocmsg__fast_comms[comm];
        /* NOCMSG_COMM_WORLD (with a datatype known only at run time) needs no look-up. */
        int world = __builtin_constant_p(comm) && comm == NOCMSG_COMM_WORLD;
        size_t bytes = (size_t)(unsigned)count << NOCMSG__SHIFT_OF(type);
        if (__builtin_expect(NOCMSG__SEND_RANK_OK(dest, fc, world) && bytes <= NOCMSG__PIMP_EAGER_LIMIT &&
                                 ((uintptr_t)buf & 7) == 0 && (buf || !bytes),
                             1)) {
            uint64_t to = world ? (uint64_t)dest : (uint64_t)fc->world_of[dest];
            const uint64_t *p = (const uint64_t *)buf;
            const uint64_t *end = (const uint64_t *)((uintptr_t)buf + ((bytes + 7) & ~(size_t)7));
            __asm__ goto(".insn b CUSTOM_1, 1, x0, x0, %l[full]" : : : "memory" : full); /* bns */
            nocmsg_pimp_send(to, NOCMSG__EAGER_HDR_OF(fc, world) | (uint64_t)(unsigned)tag << 16 |
                                     (uint64_t)bytes << 40);
            const uint64_t *q = nocmsg_pimp_send_words(to, p, end);
            if (__builtin_expect(q == end, 1))
                return NOCMSG_SUCCESS;
            return nocmsg__send_rest((int)to, buf, bytes, (size_t)(q - p));
        }
    }
full:
    return (nocmsg_send)(buf, count, type, dest, tag, comm);
}

static __inline__ __attribute__((always_inline)) int nocmsg__recv_any(void *buf, int count, nocmsg_datatype type,
                                                                      int source, int tag, nocmsg_comm comm,
                                                                      nocmsg_status *status)
{
    if (__builtin_expect(NOCMSG__RECV_ARGS_OK(comm, type, tag), 1)) {
        const struct nocmsg_fast_comm *fc = &nocmsg__fast_comms[comm];
        int world = __builtin_constant_p(comm) && comm == NOCMSG_COMM_WORLD;
        size_t cap = (size_t)(unsigned)count << NOCMSG__SHIFT_OF(type);
        int any_source = source == NOCMSG_ANY_SOURCE, any_tag = tag == NOCMSG_ANY_TAG;
        unsigned ranks = NOCMSG__RECV_RANKS(fc, world);
        if (__builtin_expect(count >= 0 && ((uintptr_t)buf & 7) == 0 && (buf || !count) &&
                                 (any_source ? ranks != 0 : (unsigned)source < ranks),
                             1)) {
            /* Everything that does not depend on the message is worked out before it comes. */
            uint64_t from = any_source ? 0 : world ? (uint64_t)source : (uint64_t)fc->world_of[source];
            uint64_t want = NOCMSG__EAGER_HDR_OF(fc, world) | (any_tag ? 0 : (uint64_t)(unsigned)tag << 16);
            unsigned keep = any_tag ? 48 : 24; /* shifting by this keeps kind and context, and the tag unless any */
            nocmsg_pimp_wait_recv();
            uint64_t s = nocmsg_pimp_src();
            if (__builtin_expect(any_source || s == from, 1)) {
                uint64_t h = nocmsg_pimp_recv();
                uint64_t x = (h ^ want) << keep;
                size_t len = (size_t)(h >> 40);
                if (__builtin_expect(x == 0 && len <= cap, 1)) {
                    uint64_t *p = (uint64_t *)buf, *end = (uint64_t *)((char *)buf + (len & ~(size_t)7));
                    uint64_t *q = nocmsg_pimp_recv_words(s, p, end, 1);
                    if (__builtin_expect(q != end, 0))
                        return nocmsg__recv_rest((int)s, buf, cap, h, (size_t)(q - p), comm, status);
                    if (__builtin_expect(len & 7, 0) && !nocmsg_pimp_take_tail(s, end, (unsigned)(len & 7)))
                        return nocmsg__recv_rest((int)s, buf, cap, h, (size_t)(q - p), comm, status);
                    if (status) {
                        status->source = any_source && !world ? fc->local_of[s] : any_source ? (int)s : source;
                        status->tag = (int)((h >> 16) & 0xffffff);
                        status->error = NOCMSG_SUCCESS;
                        status->count_bytes = len;
                    }
                    return NOCMSG_SUCCESS;
                }
                if (x == (uint64_t)(1 ^ 2) << keep) /* the RTS of a large message for this receive */
                    return nocmsg__recv_rdv((int)s, h, buf, cap, comm, status);
                return nocmsg__recv_handoff((int)s, h, buf, count, type, source, tag, comm, status);
            }
        }
    }
    return (nocmsg_recv)(buf, count, type, source, tag, comm, status);
}

static __inline__ __attribute__((always_inline)) int nocmsg__send_inline(const void *buf, int count,
                                                                         nocmsg_datatype type, int dest, int tag,
                                                                         nocmsg_comm comm)
{
    if (NOCMSG__INLINE_OK(comm, type) && __builtin_constant_p(tag) && tag >= 0 && tag <= NOCMSG_TAG_UB) {
        /* A negative count becomes a huge size, which the eager-limit test sends to the library's error path. */
        size_t bytes = (size_t)(unsigned)count << nocmsg__type_shift(type);
        /* Whole words: the last part word goes whole (see above). */
        size_t span = nocmsg__type_shift(type) >= 3 ? bytes : (bytes + 7) & ~(size_t)7;
        if (__builtin_expect((unsigned)dest < nocmsg__fast.send_ranks && bytes <= NOCMSG__PIMP_EAGER_LIMIT &&
                                 ((uintptr_t)buf & 7) == 0 && (buf || !bytes),
                             1)) {
            /* The end as an integer: past the buffer when the last word is a part word, which only the assembly
             * loop reads. */
            const uint64_t *p = (const uint64_t *)buf, *end = (const uint64_t *)((uintptr_t)buf + span);
            __asm__ goto(".insn b CUSTOM_1, 1, x0, x0, %l[full]" : : : "memory" : full); /* bns */
            nocmsg_pimp_send((uint64_t)dest, NOCMSG__EAGER_HDR(tag, bytes));
            const uint64_t *q = nocmsg_pimp_send_words((uint64_t)dest, p, end);
            if (__builtin_expect(q == end, 1))
                return NOCMSG_SUCCESS;
            return nocmsg__send_rest(dest, buf, bytes, (size_t)(q - p));
        }
        if ((unsigned)dest < nocmsg__fast.send_ranks && count >= 0 && bytes > NOCMSG__PIMP_EAGER_LIMIT && buf)
            return nocmsg__send_rdv(buf, count, type, dest, tag, bytes);
    } else {
        return nocmsg__send_any(buf, count, type, dest, tag, comm);
    }
full:
    return (nocmsg_send)(buf, count, type, dest, tag, comm);
}

/* `mpi` (a constant) says whether the call was MPI_Recv, for the deadlock report's wait-site table. */
static __inline__ __attribute__((always_inline)) int nocmsg__recv_inline(void *buf, int count, nocmsg_datatype type,
                                                                         int source, int tag, nocmsg_comm comm,
                                                                         nocmsg_status *status, int mpi)
{
    if (NOCMSG__INLINE_OK(comm, type) && __builtin_constant_p(tag) &&
        ((tag >= 0 && tag <= NOCMSG_TAG_UB) || tag == NOCMSG_ANY_TAG)) {
        size_t cap = (size_t)(unsigned)count << nocmsg__type_shift(type);
        unsigned ranks = nocmsg__fast.recv_ranks;
        if (__builtin_expect(count >= 0 && ((uintptr_t)buf & 7) == 0 && (buf || !count) &&
                                 (source == NOCMSG_ANY_SOURCE ? ranks != 0 : (unsigned)source < ranks),
                             1)) {
            if (mpi)
                NOCMSG__WAIT_RECV_SITE(MPI_Recv, source);
            else
                NOCMSG__WAIT_RECV_SITE(nocmsg_recv, source);
            uint64_t s = nocmsg_pimp_src();
            if (__builtin_expect(source == NOCMSG_ANY_SOURCE || s == (uint64_t)source, 1)) {
                /* Nothing is partly taken (recv_ranks != 0), so the next word from s is a header. With the
                 * expected kind, context and tag cleared, what remains is the payload length, which must fit; one
                 * shift tests the kind, context, tag and that the length is whole words (bits 40-42). */
                uint64_t h = nocmsg_pimp_recv();
                uint64_t x = h ^ NOCMSG__EAGER_HDR(tag == NOCMSG_ANY_TAG ? 0 : tag, 0);
                size_t len = (size_t)(x >> 40);
                int whole = tag == NOCMSG_ANY_TAG ? (x << 48) == 0 && (len & 7) == 0 && len <= cap
                                                  : (x << 21) == 0 && len <= cap;
                if (__builtin_expect(whole, 1)) {
                    uint64_t *p = (uint64_t *)buf, *end = (uint64_t *)((char *)buf + len);
                    /* The payload follows the header within a few cycles: wait for it asleep. */
                    uint64_t *q = nocmsg_pimp_recv_words(s, p, end, 1);
                    if (__builtin_expect(q != end, 0))
                        return nocmsg__recv_rest((int)s, buf, cap, h, (size_t)(q - p), NOCMSG_COMM_WORLD, status);
                } else if (nocmsg__type_shift(type) < 3 &&
                           (tag == NOCMSG_ANY_TAG ? (x << 48) == 0 : (x << 24) == 0) && len <= cap) {
                    /* A part word at the end (only types smaller than a word make one; with larger ones a stray
                     * length goes to the library). A message shorter than a word is only that part word. */
                    if (__builtin_expect(len < 8, 1)) {
                        if (__builtin_expect(!nocmsg_pimp_take_tail(s, buf, (unsigned)len), 0))
                            return nocmsg__recv_rest((int)s, buf, cap, h, 0, NOCMSG_COMM_WORLD, status);
                    } else {
                        uint64_t *p = (uint64_t *)buf, *end = (uint64_t *)((char *)buf + (len & ~(size_t)7));
                        uint64_t *q = nocmsg_pimp_recv_words(s, p, end, 1);
                        if (__builtin_expect(q != end || !nocmsg_pimp_take_tail(s, end, (unsigned)(len & 7)), 0))
                            return nocmsg__recv_rest((int)s, buf, cap, h, (size_t)(q - p), NOCMSG_COMM_WORLD,
                                                     status);
                    }
                } else if (tag == NOCMSG_ANY_TAG ? (x << 48) == ((uint64_t)(1 ^ 2) << 48) : x == (1 ^ 2)) {
                    /* The RTS of a large message for this receive (kind 2 instead of 1): the lean rendezvous. */
                    return nocmsg__recv_rdv((int)s, h, buf, cap, NOCMSG_COMM_WORLD, status);
                } else {
                    return nocmsg__recv_handoff((int)s, h, buf, count, type, source, tag, comm, status);
                }
                if (status) {
                    status->source = (int)s;
                    status->tag = (int)((h >> 16) & 0xffffff);
                    status->error = NOCMSG_SUCCESS;
                    status->count_bytes = len;
                }
                return NOCMSG_SUCCESS;
            }
        }
    } else {
        return nocmsg__recv_any(buf, count, type, source, tag, comm, status);
    }
    return (nocmsg_recv)(buf, count, type, source, tag, comm, status);
}

#define nocmsg_send(buf, count, type, dest, tag, comm) nocmsg__send_inline(buf, count, type, dest, tag, comm)
#define nocmsg_recv(buf, count, type, source, tag, comm, status)                                               \
    nocmsg__recv_inline(buf, count, type, source, tag, comm, status, 0)
#endif /* !NOCMSG_PORT_UDN */

#endif /* NOCMSG_INLINE_H */
