/*
 * fc.h: NoCMsg's flow-control elimination, automated (UDN chips; docs/fc-plan.md).
 *
 * Profiling (`nocmsg run --comm-profile FILE`, which gives the program NOCMSG_COMM_PROFILE=1): every point-to-point
 * send and receive of the program, and every collective on a communicator of all ranks (which ends a communication
 * region), is reported to the simulator with its calling site (semihosting NOCMSG_SYS_PROFILE); the simulator adds
 * the links each transfer's path uses and writes the profile, which `nocmsg fc-plan` turns into a plan.
 *
 * Applying a plan (NOCMSG_FC_PLAN=plan.json): the sends the plan releases, named by region, calling site,
 * destination and tag, go the non-flow-controlled way (SEND_RAW: no handshake, written straight into the network);
 * a sendrecv the plan runs as an exchange is done in rank order with its send raw; every other send keeps flow
 * control. With NOCMSG_FC_CHECK=1 the library checks the plan's assumptions as it runs:
 * a released send larger than the plan saw, or a send the plan did not see at all in its region, keeps flow control
 * and is reported (once per site) instead of risking a deadlock.
 *
 * All of it only in UDN builds (NOCMSG_PORT_UDN); elsewhere the hooks are empty.
 */
#ifndef NOCMSG_FC_H
#define NOCMSG_FC_H

#include "internal.h"

#ifdef NOCMSG_PORT_UDN
/* Profiling or a plan is on: the point-to-point calls take the general path, where the hooks are. */
extern int nocmsg__fc_on;
/* The calling site of the point-to-point call under way (set by the outermost API function, MPI's included). */
extern const void *nocmsg__site;

/* Reads NOCMSG_COMM_PROFILE, NOCMSG_FC_PLAN and NOCMSG_FC_CHECK (nocmsg_init). */
int nocmsg_fc_init(void);
void nocmsg_fc_finalize(void);
/* A send of r is about to start (blocking or not): records it, and returns the mode it goes in. */
int nocmsg_fc_send(struct nocmsg_request_s *r, int mode, int blocking);
/* A receive of r is about to be posted. */
void nocmsg_fc_recv(const struct nocmsg_request_s *r, int blocking);
/* A collective on c begins (a region ends when c has every rank). */
void nocmsg_fc_boundary(const char *operation, const struct comm *c);
/* Send request r has completed (or will never start: it is being freed). */
void nocmsg_fc_completed(struct nocmsg_request_s *r);
/* Set while nocmsg_sendrecv runs its halves: their records are marked as one exchange's. */
extern int nocmsg__fc_exchange;
/* Whether the plan runs the sendrecv under way at nocmsg__site (its send to world rank `dest`) as a pairwise
 * exchange in rank order without flow control: the lower rank sends first, raw, then receives; the higher receives
 * first, then sends raw (relaxation C1: the receiving side always drains). The partner's plan says the same. */
int nocmsg_fc_exchange_plan(int dest, int tag, size_t bytes);

/* Whether the plan releases the all-to-all (alltoall, alltoallv) on c about to begin, which ends the current
 * region (rule C3: src/coll/alltoall/released.c), and the words a UDN receive queue holds, as the plan has them.
 * Call before nocmsg_fc_boundary. */
int nocmsg_fc_releases(const struct comm *c, unsigned *queue_words);
/* A released all-to-all found at its start that it could not go without flow control (packets written before it
 * not all read, `unreceived` of them in all, or a rank in the middle of a message): in checking mode a violation,
 * reported by rank 0. Call after nocmsg_fc_boundary. */
void nocmsg_fc_release_refused(const char *operation, long long unreceived, int busy);

/* Records the caller as the site of the point-to-point call under way, unless an outer API function has. */
#define NOCMSG_FC_SITE()                                                                                        \
    do {                                                                                                        \
        if (__builtin_expect(nocmsg__fc_on, 0) && !nocmsg__site)                                                \
            nocmsg__site = __builtin_return_address(0);                                                         \
    } while (0)
/* The call under way ends early (an error before it reached the hooks): the next call has a site of its own. */
#define NOCMSG_FC_SITE_END() ((void)(nocmsg__site = NULL))
#else
#define NOCMSG_FC_SITE() ((void)0)
#define NOCMSG_FC_SITE_END() ((void)0)
#endif

#endif /* NOCMSG_FC_H */
