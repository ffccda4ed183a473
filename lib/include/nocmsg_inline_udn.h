/*
 * nocmsg_inline_udn.h: inline fast paths of nocmsg_send, nocmsg_recv and NoCMsg's transfers (nocmsg_xsend,
 * nocmsg_xrecv) for simulated UDN chips, which mpi.h's MPI_Send and MPI_Recv take too. Included by nocmsg_inline.h;
 * do not include it yourself. Define NOCMSG_NO_INLINE to call the library instead.
 *
 * As on PIMP chips, the library's own overhead decides small-message latency on the UDN: a word costs one CSR write
 * to send and one read to receive, while a call costs its frame, the set-up and checks of seven arguments, and the
 * port's look at its state. Inline, with the communicator and datatype constants (as they mostly are), the checks
 * fold away and what remains is a few instructions around the UDN ones: on tilepro-64 an 8-byte round trip through
 * nocmsg_xsend and nocmsg_xrecv between neighbours takes about 200 cycles instead of about 540 through the functions
 * (20 round trips with cached memory: 3,994 cycles against 10,789; docs/udn.md). A communicator with a handle below
 * NOCMSG__FAST_COMMS, a datatype or a tag in a variable are looked up on the way (nocmsg__fast_comms,
 * nocmsg__type_shifts).
 *
 * Only the common case is inline, and it speaks the library's protocol (lib/ports/udn.c): one UDN packet to queue 0
 * of the destination holding the source word, the EAGER header and the payload. A send goes inline when nothing is
 * queued to send and no packet is open (nocmsg__fast, nocmsg__udn), in the polling mode, from an 8-byte aligned
 * buffer, and the message fits one packet. nocmsg_send (flow-controlled) must never stall: it writes what the output
 * queue has credits for and leaves the rest of the packet to the library (nocmsg__send_rest, which streams it as
 * credits come back while no word arrives). nocmsg_xsend (not flow-controlled) writes it all, stalling while the
 * queue is full, as the library's does. A message's last part word is sent by reading its aligned 8-byte block whole
 * and masking it, and received with stores of 4, 2 and 1 bytes that end at the buffer's end. A receive goes inline
 * when nothing is posted or unexpected on the communicator and no packet is partly read: it waits for the next
 * packet by reading the empty queue (the core sleeps; the read is in the wait-site table, so a deadlock report names
 * the call and the rank waited for), and takes the message when its header matches and its payload is in the
 * packet. Everything else goes to the library: a header that does not match (nocmsg__recv_handoff, which leaves it
 * to the engine), the RTS of a large message (the lean rendezvous), a payload that goes on in later packets
 * (nocmsg__udn_recv_pull).
 * While a flow-control plan or profile watches the calls, nocmsg__fast says no and every call takes the library's
 * path, where its site is recorded.
 */
#ifndef NOCMSG_INLINE_UDN_H
#define NOCMSG_INLINE_UDN_H

#include <nocmsg_udn.h>
#include <nocmsg_wait.h>

/* A word of a send into the output queue: a raw send's (which stalls while the queue is full) named in the wait-site
 * table as nocmsg_xsend waiting for world rank `to`, a flow-controlled one's (which the credits let through) plain. */
#define NOCMSG__UDN_PUT_(raw, w, to)                                                                           \
    do {                                                                                                        \
        if (raw)                                                                                                \
            nocmsg__udn_xsend_word((w), (long)(to));                                                            \
        else                                                                                                    \
            nocmsg_udn_send(w);                                                                                 \
    } while (0)

/* Words p[0..m) of a send, four loads before four writes. */
static __inline__ __attribute__((always_inline)) void nocmsg__udn_put_words(const nocmsg_udn_word *p, size_t m,
                                                                            int raw, unsigned to)
{
    if (raw)
        nocmsg__udn_xsend_words(p, m, (long)to);
    else
        nocmsg_udn_send_words(p, m);
}

/* The next word of the packet under way from world rank `from` (its header or payload), named in the wait-site
 * table as `call` waiting for that rank. */
#define NOCMSG__UDN_TAKE_(call, from) NOCMSG__UDN_RECV_SITE_(call, "%[p]", [p] "g"((long)(from)))

/* Words w[0..m) of a message from world rank `from`, four reads before four stores, each read named as `call`'s. */
#define NOCMSG__UDN_TAKE_WORDS_(call, w, m, from)                                                              \
    do {                                                                                                       \
        nocmsg_udn_word *q_ = (w), *qend_ = q_ + (m);                                                          \
        for (; qend_ - q_ >= 4; q_ += 4) {                                                                     \
            uint64_t qa_ = NOCMSG__UDN_TAKE_(call, from), qb_ = NOCMSG__UDN_TAKE_(call, from);                 \
            uint64_t qc_ = NOCMSG__UDN_TAKE_(call, from), qd_ = NOCMSG__UDN_TAKE_(call, from);                 \
            q_[0] = qa_;                                                                                       \
            q_[1] = qb_;                                                                                       \
            q_[2] = qc_;                                                                                       \
            q_[3] = qd_;                                                                                       \
        }                                                                                                      \
        for (; q_ < qend_; q_++)                                                                               \
            *q_ = NOCMSG__UDN_TAKE_(call, from);                                                               \
    } while (0)

/* nocmsg_send (raw 0) and nocmsg_xsend (raw 1). */
static __inline__ __attribute__((always_inline)) int nocmsg__udn_send_inline(const void *buf, int count,
                                                                             nocmsg_datatype type, int dest, int tag,
                                                                             nocmsg_comm comm, int raw)
{
    if (__builtin_expect(NOCMSG__SEND_ARGS_OK(comm, type, tag), 1)) {
        const struct nocmsg_fast_comm *fc = &nocmsg__fast_comms[comm];
        int world = __builtin_constant_p(comm) && comm == NOCMSG_COMM_WORLD;
        /* A negative count becomes a huge size, which the eager-limit test sends to the library's error path. */
        size_t bytes = (size_t)(unsigned)count << NOCMSG__SHIFT_OF(type);
        size_t words = (bytes + 7) / 8;
        struct nocmsg_udn_port *u = &nocmsg__udn;
        if (__builtin_expect(NOCMSG__SEND_RANK_OK(dest, fc, world) && bytes <= NOCMSG__PIMP_EAGER_LIMIT &&
                                 ((uintptr_t)buf & 7) == 0 && (buf || !bytes) && u->open_dest < 0 && !u->irq_mode &&
                                 words + 2 <= u->max_words,
                             1)) {
            unsigned to = world ? (unsigned)dest : (unsigned)fc->world_of[dest];
            /* A raw send writes it all, stalling while the output queue is full (not to this rank itself, which would
             * stall on its own queue); a flow-controlled one what the queue's credits allow, three of them at least
             * (the packet's head and a word), and the library streams the rest. */
            uint64_t credits = raw ? 0 : nocmsg_udn_credits();
            if (__builtin_expect(raw ? to != (unsigned)u->me : credits >= 3, 1)) {
                size_t m = raw || credits - 3 >= words ? words : (size_t)credits - 3;
                const nocmsg_udn_word *p = (const nocmsg_udn_word *)buf;
                size_t whole = m < bytes / 8 ? m : bytes / 8;
                NOCMSG__UDN_PUT_(raw, NOCMSG_UDN_HEADER(to, words + 2, 0), to);
                NOCMSG__UDN_PUT_(raw, (uint64_t)(unsigned)u->me | (uint64_t)(words + 1) << 16, to);
                NOCMSG__UDN_PUT_(raw, NOCMSG__EAGER_HDR_OF(fc, world) | (uint64_t)(unsigned)tag << 16 |
                                          (uint64_t)bytes << 40,
                                 to);
                nocmsg__udn_put_words(p, whole, raw, to);
                if (m > bytes / 8)
                    NOCMSG__UDN_PUT_(raw, nocmsg_udn_part_word(p + whole, bytes & 7), to);
                u->packets_out++;
                if (__builtin_expect(m == words, 1))
                    return NOCMSG_SUCCESS;
                u->open_dest = (int)to;
                u->open_left = (unsigned)(words - m);
                return nocmsg__send_rest((int)to, buf, bytes, m);
            }
        }
    }
    return raw ? (nocmsg_xsend)(buf, count, type, dest, tag, comm) : (nocmsg_send)(buf, count, type, dest, tag, comm);
}

/* nocmsg_recv (call 0), nocmsg_xrecv (call 1, the same receive) and mpi.h's MPI_Recv (call 2); `call` names the
 * wait in the wait-site table. */
static __inline__ __attribute__((always_inline)) int nocmsg__udn_recv_inline(void *buf, int count,
                                                                             nocmsg_datatype type, int source,
                                                                             int tag, nocmsg_comm comm,
                                                                             nocmsg_status *status, int call)
{
    if (__builtin_expect(NOCMSG__RECV_ARGS_OK(comm, type, tag), 1)) {
        const struct nocmsg_fast_comm *fc = &nocmsg__fast_comms[comm];
        int world = __builtin_constant_p(comm) && comm == NOCMSG_COMM_WORLD;
        size_t cap = (size_t)(unsigned)count << NOCMSG__SHIFT_OF(type);
        int any_source = source == NOCMSG_ANY_SOURCE, any_tag = tag == NOCMSG_ANY_TAG;
        unsigned ranks = NOCMSG__RECV_RANKS(fc, world);
        struct nocmsg_udn_port *u = &nocmsg__udn;
        if (__builtin_expect(count >= 0 && ((uintptr_t)buf & 7) == 0 && (buf || !count) &&
                                 (any_source ? ranks != 0 : (unsigned)source < ranks) && !u->irq_mode &&
                                 u->cur_left == 0 && !u->ahead_valid,
                             1)) {
            /* Everything that does not depend on the message is worked out before it comes. */
            unsigned from = any_source ? 0 : world ? (unsigned)source : (unsigned)fc->world_of[source];
            uint64_t want = NOCMSG__EAGER_HDR_OF(fc, world) | (any_tag ? 0 : (uint64_t)(unsigned)tag << 16);
            unsigned keep = any_tag ? 48 : 24; /* shifting by this keeps kind and context, and the tag unless any */
            /* The next packet's source word (waiting for it asleep), then its first word, the header. */
            uint64_t sw;
#define NOCMSG__UDN_WAIT_(name)                                                                                 \
    (world ? NOCMSG__UDN_RECV_SITE_(name, "%[p]", [p] "g"((long)source))                                         \
           : NOCMSG__UDN_RECV_SITE_(name, "%[l]/%[h]", [l] "g"((long)source), [h] "g"((long)comm)))
            if (call == 1)
                sw = NOCMSG__UDN_WAIT_(nocmsg_xrecv);
            else if (call == 2)
                sw = NOCMSG__UDN_WAIT_(MPI_Recv);
            else
                sw = NOCMSG__UDN_WAIT_(nocmsg_recv);
#undef NOCMSG__UDN_WAIT_
            unsigned s = NOCMSG_UDN_FIELD_RANK(sw), left = NOCMSG_UDN_FIELD_LENGTH(sw) - 1;
            /* (The packet's further reads are named too: its sender may stall in the middle of it.) */
            uint64_t h = call == 1 ? NOCMSG__UDN_TAKE_(nocmsg_xrecv, s)
                         : call == 2 ? NOCMSG__UDN_TAKE_(MPI_Recv, s)
                                     : NOCMSG__UDN_TAKE_(nocmsg_recv, s);
            u->packets_in++;
            u->cur_src = (int)s;
            uint64_t x = (h ^ want) << keep;
            size_t len = (size_t)(h >> 40), words = (len + 7) / 8;
            if (__builtin_expect((any_source || s == from) && x == 0 && len <= cap && words <= left, 1)) {
                u->cur_left = left - (unsigned)words;
                nocmsg_udn_word *p = (nocmsg_udn_word *)buf;
                if (call == 1)
                    NOCMSG__UDN_TAKE_WORDS_(nocmsg_xrecv, p, len / 8, s);
                else if (call == 2)
                    NOCMSG__UDN_TAKE_WORDS_(MPI_Recv, p, len / 8, s);
                else
                    NOCMSG__UDN_TAKE_WORDS_(nocmsg_recv, p, len / 8, s);
                if (len & 7)
                    nocmsg_udn_store_part(p + len / 8,
                                          call == 1   ? NOCMSG__UDN_TAKE_(nocmsg_xrecv, s)
                                          : call == 2 ? NOCMSG__UDN_TAKE_(MPI_Recv, s)
                                                      : NOCMSG__UDN_TAKE_(nocmsg_recv, s),
                                          len & 7);
                if (status) {
                    status->source = !any_source ? source : world ? (int)s : fc->local_of[s];
                    status->tag = (int)((h >> 16) & 0xffffff);
                    status->error = NOCMSG_SUCCESS;
                    status->count_bytes = len;
                }
                return NOCMSG_SUCCESS;
            }
            u->cur_left = left;
            if ((any_source || s == from) && x == 0 && len <= cap) /* the payload goes on in later packets */
                return nocmsg__udn_recv_pull((int)s, h, buf, cap, comm, status);
            if ((any_source || s == from) && x == (uint64_t)(1 ^ 2) << keep) /* the RTS of a large message for it */
                return nocmsg__recv_rdv((int)s, h, buf, cap, comm, status);
            return nocmsg__recv_handoff((int)s, h, buf, count, type, source, tag, comm, status);
        }
    }
    return call == 1 ? (nocmsg_xrecv)(buf, count, type, source, tag, comm, status)
                     : (nocmsg_recv)(buf, count, type, source, tag, comm, status);
}

/* The names mpi.h's inline MPI_Send and MPI_Recv use, as on PIMP chips (`mpi` set: the call is MPI_Recv). */
#define nocmsg__send_inline(buf, count, type, dest, tag, comm)                                                 \
    nocmsg__udn_send_inline(buf, count, type, dest, tag, comm, 0)
#define nocmsg__recv_inline(buf, count, type, source, tag, comm, status, mpi)                                  \
    nocmsg__udn_recv_inline(buf, count, type, source, tag, comm, status, (mpi) ? 2 : 0)

#define nocmsg_send(buf, count, type, dest, tag, comm) nocmsg__udn_send_inline(buf, count, type, dest, tag, comm, 0)
#define nocmsg_xsend(buf, count, type, dest, tag, comm) nocmsg__udn_send_inline(buf, count, type, dest, tag, comm, 1)
#define nocmsg_recv(buf, count, type, source, tag, comm, status)                                               \
    nocmsg__udn_recv_inline(buf, count, type, source, tag, comm, status, 0)
#define nocmsg_xrecv(buf, count, type, source, tag, comm, status)                                              \
    nocmsg__udn_recv_inline(buf, count, type, source, tag, comm, status, 1)

#endif /* NOCMSG_INLINE_UDN_H */
