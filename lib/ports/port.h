/*
 * port.h: what libnocmsg needs from a network interface. One implementation per NI kind (ports/<kind>.c).
 *
 * Which port a build uses: on the simulator (NOCMSG_SIM) the PIMP port, inline (pimp.h), with NOCMSG_PORT_MPB the
 * MPB port (mpb.c), with NOCMSG_PORT_UDN the UDN port (udn.c), as bin/nocmsg-cc picks from the chip's ni.kind;
 * natively the host port (host.c).
 *
 * A port moves 64-bit words. Between any two ranks (and from a rank to itself) words arrive in the order they
 * were sent; words from different sources may interleave at the receiver, so the receiver asks who sent the next
 * word (port_poll) and then takes words of that source (port_pull). Nothing here blocks: the progress engine
 * above decides when to wait, and keeps draining incoming words while its own sends are stuck, which is what
 * keeps a full network from deadlocking.
 */
#ifndef NOCMSG_PORT_H
#define NOCMSG_PORT_H

#include <stddef.h>
#include <stdint.h>

#if defined(NOCMSG_SIM) && !defined(NOCMSG_PORT_MPB) && !defined(NOCMSG_PORT_UDN)
/* On a PIMP chip every call is a few instructions and is inlined. */
#include "pimp.h"
#else

/* Sets up the port; fills in this rank and the number of ranks. Returns 0 or a NOCMSG_ERR_ code. */
int nocmsg_port_init(int *rank, int *size);
void nocmsg_port_finalize(void);
const char *nocmsg_port_kind(void);

/* Queues up to n words for dest; returns how many were taken (0 when the way to dest is full). */
size_t nocmsg_port_push(int dest, const uint64_t *words, size_t n);

/* One word: 1 if it was taken. */
int nocmsg_port_push1(int dest, uint64_t word);

/* A header word followed by `n` payload words; returns how many words were taken (header included), so a
 * partial push can be finished later. One publication of the whole packet where the port allows. */
size_t nocmsg_port_push_packet(int dest, uint64_t header, const uint64_t *payload, size_t n);

/* Payload words [from, (bytes + 7) / 8) of a `bytes`-byte message at buf (any alignment; the bytes of the last word
 * past the message are unspecified), as far as the port takes them; returns the position reached. */
size_t nocmsg_port_push_bytes(int dest, const void *buf, size_t bytes, size_t from);

/* Like port_push_bytes, but waits for room while no word arrives (port_wait(1)): returns (bytes + 7) / 8 when the
 * payload is all out, or where it stopped because a word arrived while the way to dest was full. */
size_t nocmsg_port_stream_bytes(int dest, const void *buf, size_t bytes, size_t from);

/* A header word, then the payload of a `bytes`-byte message at buf (as nocmsg_port_push_bytes); returns how many
 * words were taken, header included. */
size_t nocmsg_port_push_message(int dest, uint64_t header, const void *buf, size_t bytes);

/* Takes the payload of a `bytes`-byte message from src into buf (any alignment), from its first word, as far as
 * it is next in line (waiting for words on their way where port_pull_wait does); returns the words taken. Every
 * byte of them is stored, and nothing at or past buf + bytes. */
size_t nocmsg_port_pull_bytes(int src, void *buf, size_t bytes);

/* Takes the next word of the source port_poll just named (which has one). */
uint64_t nocmsg_port_pull1_from(int src);

/* 1 and the source of the next incoming word if one has arrived, else 0. */
int nocmsg_port_poll(int *src);

/* Waits until a word has arrived (as port_wait does, without burning simulated instructions where the NI allows)
 * and returns its source: `while (!port_poll(&s)) port_wait(0);` in one call. Only for when nothing else needs
 * attention. */
int nocmsg_port_next(void);

/* Takes up to n words of src's stream (as long as they are next in line); returns how many. */
size_t nocmsg_port_pull(int src, uint64_t *words, size_t n);

/* Like port_pull, but may wait for words of a packet that is on its way (stopping when another source's word is
 * next). Only for when nothing else needs attention. */
size_t nocmsg_port_pull_wait(int src, uint64_t *words, size_t n);

/* One word of src's stream into *word, as port_pull_wait(src, word, 1): 1 if it was taken. */
int nocmsg_port_take(int src, uint64_t *word);

/* Waits (without burning simulated instructions where the NI allows) until a word may have arrived, or, with
 * sending set, until a word may also be pushed. May return early. */
void nocmsg_port_wait(int sending);

/* The mesh the ranks run on: routers in x and y, cores per router; world rank r is core r. 0 (all three) when
 * there is no physical mesh (natively). */
void nocmsg_port_mesh(int *width, int *height, int *concentration);

/* Largest message sent eagerly (without a handshake), in bytes. */
size_t nocmsg_port_eager_limit(void);

double nocmsg_port_wtime(void);
double nocmsg_port_wtick(void);

/* Ends this rank (and, where the port can, the whole job) with `code`. */
void nocmsg_port_abort(int code) __attribute__((noreturn));

#ifdef NOCMSG_PORT_MPB
/* The part of every rank's MPB share the port does not use, left to the SCC broadcast family
 * (lib/src/coll/bcast/scc.c): `bytes` (whole lines) at `offset` from the start of each share. The port keeps the
 * rest. The family gets NOCMSG_MPB_AREA_BYTES, at most half the share: 4 KiB, half of an SCC core's 8 KiB, so that
 * its chunks (two slots) are about 2 KiB, a quarter of what RCCE programs used on the SCC; the port keeps 4 KiB
 * there, 12 KiB of mpb-8x8's 16 KiB. */
#ifndef NOCMSG_MPB_AREA_BYTES
#define NOCMSG_MPB_AREA_BYTES 4096
#endif
void nocmsg_port_mpb_area(size_t *offset, size_t *bytes);
#endif

#ifdef NOCMSG_PORT_UDN
/* The port's state, struct nocmsg_udn_port and nocmsg__udn, is in nocmsg.h (the inline paths test it too). */
/* A header word and the payload of a `bytes`-byte message at buf, written straight into the network with writes
 * that stall while the output queue is full: no credit check, no return to the work loop. Returns 1, or 0 (nothing
 * written) when a packet of the work loop is still open. */
int nocmsg_port_write_message(int dest, uint64_t header, const void *buf, size_t bytes);
/* nocmsg_port_write_message for a caller that has checked that no packet is open (nocmsg__udn.open_dest < 0) and the
 * polling mode: returns NOCMSG_SUCCESS (0), so that the caller can end with it as a tail call. */
int nocmsg_port_udn_write_raw(int dest, uint64_t header, const void *buf, size_t bytes);
/* The receive fast path in one call: when the next packet of queue 0 has brought its header (the first word after
 * the source word, or the word nocmsg_port_next read ahead), takes it. If ((header ^ want) & mask) == 0, it came from
 * world rank `from` (any when from < 0), its length (an eager header's top 24 bits, NOCMSG__EAGER_HDR) fits cap, buf
 * is 8-byte aligned and the payload is in the same packet, takes the payload into buf (waiting for words on their
 * way) and returns 1. Returns -1 when it took a header it leaves to the caller, 0 when it took nothing: no header
 * there yet (unless `wait`: then it waits for one, asleep in a stalling read), or the interrupt-driven mode (where
 * the receive does not make this call). *hdr and *src are set unless it returns 0. */
int nocmsg_port_udn_recv_eager(int from, uint64_t want, uint64_t mask, void *buf, size_t cap, uint64_t *hdr, int *src,
                               int wait);
/* One word to tagged queue 1 of dest (the barrier's, src/coll/barrier/udn_tree.c) if it can go now without stalling
 * (no packet of the work loop open, two credits): 1 if it went, else 0. */
int nocmsg_port_udn_control(int dest, uint64_t word);
/* The next word of this rank's queue 1, if one is there: 1 and *word, else 0. */
int nocmsg_port_udn_control_poll(uint64_t *word);
/* The same for any tagged queue (the released all-to-all's words go to queue 3: src/coll/alltoall/released.c). */
int nocmsg_port_udn_word(int dest, unsigned queue, uint64_t word);
int nocmsg_port_udn_word_poll(unsigned queue, uint64_t *word);
/* Sleeps (wfi on the arrival interrupt, masked: no handler runs) until a word is in queue 0 or 1. */
void nocmsg_port_udn_sleep(void);
/* The same until a word is in one of `queues` (bit q: queue q). Work-loop mode only. */
void nocmsg_port_udn_sleep_on(unsigned queues);
/* Whether raw writes may be used: not in the interrupt-driven mode (its handler owns queue 0 and the interrupts). */
int nocmsg_port_udn_raw_ok(void);
/* A chunk of a released all-to-all (src/coll/alltoall/released.c): one packet of a source word (marked on a block's
 * `last` chunk) and the `bytes` at buf, straight to dest's queue 0 with stalling writes (the caller knows the queue
 * has room for all of it), and its reading (stalling until it is all there). The engine is bypassed: only while
 * nothing else goes to queue 0. The read returns 0, the packet dropped, if it is not src's chunk of `bytes` with
 * that mark (an erroneous program: counts that disagree). */
void nocmsg_port_udn_chunk_write(int dest, const void *buf, size_t bytes, int last);
int nocmsg_port_udn_chunk_read(int src, void *buf, size_t bytes, int last);
/* Words waiting in queue 0. */
unsigned nocmsg_port_udn_count0(void);
/* Payload words a packet may have (udn.maxlen), the source word included. */
unsigned nocmsg_port_udn_max_words(void);
/* Queue-0 packets this rank has begun writing minus those it has begun reading, since it started: summed over all
 * ranks, 0 when every packet written has reached its reader. *busy is set when this rank is in the middle of a
 * packet (writing or reading one). */
int64_t nocmsg_port_udn_balance(int *busy);
#endif

/* This rank's wait record in memory the launcher can read (lib/src/wait.h), or NULL without a launcher. */
struct nocmsg_wait_record;
struct nocmsg_wait_record *nocmsg_port_wait_slot(void);

#endif /* NOCMSG_SIM && !NOCMSG_PORT_MPB && !NOCMSG_PORT_UDN */

#endif /* NOCMSG_PORT_H */
