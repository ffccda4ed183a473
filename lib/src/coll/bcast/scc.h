/*
 * bcast/scc.h: what the SCC broadcast family shares (MPB chips only: built with NOCMSG_PORT_MPB).
 *
 * The family of the SCC broadcast study (rcce, parallel, optimized_parallel, tiled, optimized_tiled, mpb, offchip,
 * modmpb, hybrid; one file each) moves data the way RCCE programs did on the SCC, with the MPBs' loads and stores
 * instead of libnocmsg's point-to-point: a sender puts a chunk of the message into a buffer it owns, in its MPB
 * share (or, for the off-chip broadcast, its part of off-chip shared memory), sets a flag in each receiver's MPB,
 * and every receiver reads the chunk itself (remote loads, a line at a time) and sets a flag in the sender's MPB
 * when it has taken it. Each algorithm only says who receives from whom (scc_role); scc_bcast does the rest, for
 * every rank, chunk after chunk, so trees forward a chunk while the next one arrives.
 *
 * Space: the part of every MPB share the MPB port leaves to collectives (nocmsg_port_mpb_area: 4 KiB, at most half
 * the share): three arrays of 16-bit counts (ready[s] = chunks s has published to me, taken[r] = chunks r has taken
 * from me, signal[s] = signals s has sent me) and two chunk slots; and per rank, at the top of off-chip shared memory
 * (at most a quarter of it), two chunk slots of up to 16 KiB and the counts of chunks published there to each rank
 * (the off-chip broadcast's readers poll them: its root writes a line per 16 readers, not a flag in each MPB). docs/collectives.md ("The SCC broadcast family") describes the protocol and its costs.
 */
#ifndef NOCMSG_SCC_H
#define NOCMSG_SCC_H

#include "../coll.h"

#ifdef NOCMSG_PORT_MPB

/* Where a rank publishes the chunks its children read. */
enum scc_medium {
    SCC_MPB,  /* its MPB share: two slots, each a chunk */
    SCC_DRAM, /* its two slots in off-chip shared memory */
};

/* One rank's part in a broadcast (comm ranks). */
struct scc_role {
    int parent;          /* where the data comes from; -1 at the root */
    int parent_medium;   /* where the parent publishes it */
    int parent_serial;   /* the parent serves its children one after another */
    int nchild;
    const int *children; /* the ranks that read from this one, in the order it serves them */
    int medium;          /* where this rank publishes */
    int serial;          /* RCCE's send loop: the whole message to one child, then to the next, through one buffer
                          * of both slots, waiting for each chunk to be taken before the next (as RCCE_send) */
    int stage;           /* take each chunk into the own MPB first, then copy it out (ModMPB) */
};

/* Runs this rank's part. Every rank of c calls it with the same bytes, and roles that agree with each other. */
int scc_bcast(void *buf, size_t bytes, struct comm *c, const struct scc_role *role);

/* The machinery, for the other collectives on MPBs (reduce/mpb.c, barrier/mpb.c), in world ranks w: set up (or an
 * error code); the bytes of an MPB slot; slot k (0 or 1) of w's MPB area (the two are adjacent); wait until every
 * reader of my slot k has taken it; copies between private memory and slots (8-byte accesses; copy_out pads the last
 * word). */
int scc_setup(void);
size_t scc_slot_bytes(void);
volatile uint64_t *scc_slot(int w, int k);
void scc_wait_slot(int k);
void scc_copy_in(void *dst, const volatile uint64_t *src, size_t bytes);
/* A signal to w (its own count, apart from the chunks'; a remote store: flush after it), and the wait for w's next
 * signal to me. */
void scc_signal(int w);
void scc_wait_signal(int w);
/* A dissemination barrier over c through the MPB flags (log2 n rounds of one remote store and one local wait). */
int scc_barrier(struct comm *c);
void scc_copy_out(volatile uint64_t *dst, const void *src, size_t bytes);

/* Whether the MPB area has room for the family's counts and slots on this many ranks (the same on every rank; when
 * not, coll_pick runs the operations' references instead, and rank 0 says so once). */
int scc_available(void);

/* Whether off-chip shared memory has room for the off-chip slots (else offchip runs as mpb, and says so once). */
int scc_has_dram(void);

/* The members nearest the centre of the mesh among `members` (count of them, comm ranks): the index into members. */
int scc_nearest_center(struct comm *c, const int *members, int count);

/* The root serves every other rank itself, in rank order, from its MPB or off-chip slots (medium), all of them
 * at once or (serial) one after another. */
int scc_bcast_star(void *buf, size_t bytes, int root, struct comm *c, int medium, int serial);

/* The tiled trees: one leader per router (the root on its router, else the lowest comm rank there) gets the data
 * through the mesh tree of the leaders from `first` (the root's leader, or for the optimized form the centre
 * leader, which then gets it from the root first), then passes it to the other ranks of its router. */
int scc_bcast_tiled(void *buf, size_t bytes, int root, struct comm *c, int optimized);

#endif /* NOCMSG_PORT_MPB */

#endif /* NOCMSG_SCC_H */
