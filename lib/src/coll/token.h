/*
 * token.h: barrier tokens and token plans, what every barrier algorithm is made of (not installed).
 *
 * A token is an empty EAGER message on the communicator's private context with TAG_BARRIER. Tokens are
 * interchangeable, so a barrier only needs to know how many have come from each source: when one from another
 * member arrives while a barrier waits for a particular one (usual: in a dissemination barrier round k + 1's token
 * often overtakes round k's), it is counted (struct comm's tokens, by world rank) instead of being buffered by the
 * engine as an unexpected message. The counts persist across calls, since a member that left a barrier first may
 * already send its token for the next one; every barrier algorithm consumes exactly the tokens sent to it, so
 * counts stay small.
 *
 * A barrier algorithm is a fixed sequence of steps for each rank, "send a token to r" and "wait for a token from
 * r", so it is written as a plan function that lists them; coll_tokens_run builds the plan once per communicator
 * (again only when another algorithm runs) and then executes it in one tight loop that talks to the port directly
 * while the engine is idle: on PIMP a step is a handful of instructions, and a barrier is nothing else. Anything
 * unusual (the engine busy, a full send FIFO, a header that is not a token) makes that step, and only that step,
 * go through the engine.
 */
#ifndef NOCMSG_COLL_TOKEN_H
#define NOCMSG_COLL_TOKEN_H

#include "coll.h"

#include "../engine.h"
#include "../wait.h"

/* A rank's barrier is a list of rounds: send a token (to world rank `send`), then wait for one (from world rank
 * `wait`); -1 where a round has no send or no wait. */
struct token_round {
    int32_t send, wait;
};

struct token_plan {
    void *made_by;       /* the plan function that made it */
    unsigned generation; /* coll_generation when it last ran: if that is still the current one, it is what the
                          * communicator's next barrier runs (nocmsg_barrier's shortcut) */
    int rounds, cap;     /* used and allocated entries */
    int failed;          /* out of memory while planning */
    struct token_round *round;
};

/* Steps, in comm ranks, in the order they are to happen. */
void coll_plan_send(struct token_plan *p, int dest, const struct comm *c);
void coll_plan_wait(struct token_plan *p, int src, const struct comm *c);

/* Lists this rank's steps of a barrier on c with coll_plan_send/wait; returns NOCMSG_SUCCESS or an error. */
typedef int token_plan_fn(struct comm *c, struct token_plan *p);

/* Runs the barrier `plan` describes (made on first use and kept with the communicator). */
int coll_tokens_run(struct comm *c, token_plan_fn *plan);
void coll_tokens_release(struct comm *c);

static inline uint64_t coll_token_header(const struct comm *c)
{
    return MAKE_HDR(PK_EAGER, c->ctx + 1, TAG_BARRIER, 0);
}

/* Where a run of a plan is: the round, and whether its send is done. */
struct token_at {
    const struct token_round *round;
    int sent;
};

/* Executes rounds from `at` up to `end` the lean way while it can, and moves `at` to where it stopped: at end, or
 * at a step that must go the engine's way. Valid only while the engine is idle for the private context
 * (nocmsg_engine_coll_lean_ok(c->ctx + 1), which implies COLL_SEND_RANKS): nothing in here changes that except a
 * hand-over, after which it stops. */
static inline void coll_tokens_lean(struct token_at *at, const struct token_round *end, struct comm *c)
{
    uint64_t token = coll_token_header(c);
    unsigned char *count = c->tokens;
    int pending = c->tokens_pending;
    const struct token_round *r = at->round;
    int sent = at->sent;
    for (; r != end; r++, sent = 0) {
        int to = r->send, from = r->wait;
        if (to >= 0 && !sent && __builtin_expect(!nocmsg_port_push1(to, token), 0))
            break;
        sent = 1;
        if (from < 0)
            continue;
        if (__builtin_expect(pending != 0, 0) && count[from]) {
            count[from]--;
            pending--;
            continue;
        }
        for (;;) {
            int s = nocmsg_wait_next(from);
            uint64_t h = nocmsg_port_pull1_from(s);
            if (__builtin_expect(h == token && s == from, 1))
                break;
            if (h != token) {
                nocmsg_engine_rx_handoff(s, h);
                goto stop;
            }
            count[s]++;
            pending++;
        }
    }
stop:
    c->tokens_pending = pending;
    at->round = r;
    at->sent = sent;
}

/* Runs the rest of a plan from `at` whatever the engine's state, the engine's way where the lean way cannot
 * (p2p.c). */
int coll_tokens_slow(struct token_at at, const struct token_round *end, struct comm *c);

/* Runs a plan that is already made. Inline, so that a barrier whose plan is ready (nocmsg_barrier) costs one call. */
static inline int coll_tokens_exec(struct comm *c, const struct token_plan *p)
{
    struct token_at at = {p->round, 0};
    const struct token_round *end = p->round + p->rounds;
    if (__builtin_expect(nocmsg_engine_coll_lean_ok(c->ctx + 1), 1)) {
        coll_tokens_lean(&at, end, c);
        if (__builtin_expect(at.round == end, 1))
            return NOCMSG_SUCCESS;
    }
    return coll_tokens_slow(at, end, c);
}

#endif /* NOCMSG_COLL_TOKEN_H */
