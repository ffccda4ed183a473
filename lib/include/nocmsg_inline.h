/*
 * nocmsg_inline.h: inline fast paths of nocmsg_send and nocmsg_recv for simulated PIMP chips. Included by nocmsg.h
 * when building with bin/nocmsg-cc; do not include it yourself. Define NOCMSG_NO_INLINE to turn it off.
 *
 * On a PIMP core a word costs one instruction to send and one to receive, so the library's own overhead decides
 * small-message latency: a call, a frame, the set-up of seven arguments and the checks of each of them cost more
 * than moving the message. When the communicator is NOCMSG_COMM_WORLD and the datatype and tag are compile-time
 * constants, those checks fold away here and what remains is a handful of instructions around the NI ones (the
 * 8-byte round trip between neighbours on pimp-4x4 drops from 308 to 114 cycles; docs/libnocmsg.md).
 *
 * Only the common case is inline: a buffer of whole, 8-byte-aligned words up to the eager limit, and nothing else
 * going on in the library (nocmsg__fast: nothing queued to send and, for a receive, no receive posted, nothing
 * unexpected, no packet partly taken). Everything else, and any hitch on the way (a full send FIFO, an arriving message that is
 * not the one asked for), goes to the library, which gives the same results: the inline code is a shortcut
 * through the same protocol, not a second one.
 */
#ifndef NOCMSG_INLINE_H
#define NOCMSG_INLINE_H

#include <nocmsg_pimp.h>
#include <nocmsg_wait.h>

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

/* Whether a call's communicator and datatype allow the inline path at all (decided at compile time). */
#define NOCMSG__INLINE_OK(comm, type)                                                                           \
    (__builtin_constant_p(comm) && (comm) == NOCMSG_COMM_WORLD && __builtin_constant_p(type) &&                 \
     nocmsg__type_shift(type) >= 0)

static __inline__ __attribute__((always_inline)) int nocmsg__send_inline(const void *buf, int count,
                                                                         nocmsg_datatype type, int dest, int tag,
                                                                         nocmsg_comm comm)
{
    if (NOCMSG__INLINE_OK(comm, type) && __builtin_constant_p(tag) && tag >= 0 && tag <= NOCMSG_TAG_UB) {
        /* A negative count becomes a huge size, which the eager-limit test sends to the library's error path. */
        size_t bytes = (size_t)(unsigned)count << nocmsg__type_shift(type);
        if (__builtin_expect((unsigned)dest < nocmsg__fast.send_ranks && bytes <= NOCMSG__PIMP_EAGER_LIMIT &&
                                 (((uintptr_t)buf | bytes) & 7) == 0 && (buf || !bytes),
                             1)) {
            const uint64_t *p = (const uint64_t *)buf, *end = (const uint64_t *)((const char *)buf + bytes);
            __asm__ goto(".insn b CUSTOM_1, 1, x0, x0, %l[full]" : : : "memory" : full); /* bns */
            nocmsg_pimp_send((uint64_t)dest, NOCMSG__EAGER_HDR(tag, bytes));
            const uint64_t *q = nocmsg_pimp_send_words((uint64_t)dest, p, end);
            if (__builtin_expect(q == end, 1))
                return NOCMSG_SUCCESS;
            return nocmsg__send_rest(dest, buf, bytes, (size_t)(q - p));
        }
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
                 * expected kind, context and tag cleared, what remains is the payload length, which must be whole
                 * words and fit. */
                uint64_t h = nocmsg_pimp_recv();
                uint64_t x = h ^ NOCMSG__EAGER_HDR(tag == NOCMSG_ANY_TAG ? 0 : tag, 0);
                size_t len = (size_t)(x >> 40);
                int fits = tag == NOCMSG_ANY_TAG ? (x << 48) == 0 && (len & 7) == 0 && len <= cap
                                                 : (x << 21) == 0 && len <= cap;
                if (__builtin_expect(fits, 1)) {
                    uint64_t *p = (uint64_t *)buf, *end = (uint64_t *)((char *)buf + len);
                    /* The payload follows the header within a few cycles: wait for it asleep. */
                    uint64_t *q = nocmsg_pimp_recv_words(s, p, end, 1);
                    if (__builtin_expect(q != end, 0))
                        return nocmsg__recv_rest((int)s, buf, cap, h, (size_t)(q - p), status);
                    if (status) {
                        status->source = (int)s;
                        status->tag = (int)((h >> 16) & 0xffffff);
                        status->error = NOCMSG_SUCCESS;
                        status->count_bytes = len;
                    }
                    return NOCMSG_SUCCESS;
                }
                return nocmsg__recv_handoff((int)s, h, buf, count, type, source, tag, comm, status);
            }
        }
    }
    return (nocmsg_recv)(buf, count, type, source, tag, comm, status);
}

#define nocmsg_send(buf, count, type, dest, tag, comm) nocmsg__send_inline(buf, count, type, dest, tag, comm)
#define nocmsg_recv(buf, count, type, source, tag, comm, status)                                               \
    nocmsg__recv_inline(buf, count, type, source, tag, comm, status, 0)

#endif /* NOCMSG_INLINE_H */
