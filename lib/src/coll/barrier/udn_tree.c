/* barrier/udn_tree.c: NoCMsg's barrier on the TilePro (UDN chips only): the tree rooted at the core nearest the
 * mesh centre (barrier/tree_center.c's, one hop per message), its arrivals and releases one-word packets on their
 * own tagged receive queue (queue 1), so they never wait behind the library's data in queue 0 and need no matching.
 * A rank waiting for its children or its parent keeps the progress engine going (queue 0 drained, its sends
 * pushed): the demultiplexer is head-of-line, so a full queue 0 would hold back the barrier's packets behind it.
 *
 * A barrier word names its communicator's context, the barrier's number on it (mod 2^16), the kind (arrival or
 * release) and its sender: a word for a barrier this rank has not reached yet (a child of another communicator's
 * barrier arrives early) is kept until it is asked for. */
#include "../coll.h"
#include "../../engine.h"

#ifdef NOCMSG_PORT_UDN
#include <stdlib.h>

#include "../../../ports/port.h"

enum { ARRIVE = 1, RELEASE = 2 };

static struct {
    uint64_t *early; /* words that came before their barrier */
    int nearly, cap;
    uint16_t *epoch; /* per context: barriers run so far */
    int nctx;
} bar;

static uint64_t word_of(int ctx, unsigned epoch, int kind, int src)
{
    return (uint64_t)(uint16_t)ctx | (uint64_t)(epoch & 0xffff) << 16 | (uint64_t)kind << 32 | (uint64_t)src << 40;
}

static int keep_early(uint64_t w)
{
    if (bar.nearly == bar.cap) {
        int cap = bar.cap ? 2 * bar.cap : 16;
        uint64_t *e = realloc(bar.early, (size_t)cap * sizeof *e);
        if (!e)
            return NOCMSG_ERR_NO_MEM;
        bar.early = e;
        bar.cap = cap;
    }
    bar.early[bar.nearly++] = w;
    return NOCMSG_SUCCESS;
}

/* One turn of the work loop while waiting: the layer above's pending work first (MPI's non-blocking collectives
 * progress while a rank waits here, as in any blocking call), then a pass of the engine; with nothing to do and
 * nothing to send, a rank waiting for a word (`sleep`) sleeps until one comes (in queue 0 or the barrier's). A rank
 * waiting for credits to post a word must not: credits coming back raise no interrupt. */
static void keep_going(int sleep)
{
    if (nocmsg_engine_idle)
        nocmsg_engine_idle();
    if (!nocmsg_engine_progress() && !nocmsg_eng.tx_head && sleep)
        nocmsg_port_udn_sleep();
}

/* Waits for `want`, keeping the engine going meanwhile. */
static int await(uint64_t want)
{
    for (int i = 0; i < bar.nearly; i++)
        if (bar.early[i] == want) {
            bar.early[i] = bar.early[--bar.nearly];
            return NOCMSG_SUCCESS;
        }
    for (;;) {
        uint64_t w;
        while (nocmsg_port_udn_control_poll(&w)) {
            if (w == want)
                return NOCMSG_SUCCESS;
            if (keep_early(w) != NOCMSG_SUCCESS)
                return NOCMSG_ERR_NO_MEM;
        }
        keep_going(1);
    }
}

/* Sends one barrier word to world rank `to` once the output is free, keeping the engine going meanwhile. */
static void post(int to, uint64_t w)
{
    while (!nocmsg_port_udn_control(to, w))
        keep_going(0);
}

int barrier_udn_tree(struct comm *c)
{
    if (c->size == 1)
        return NOCMSG_SUCCESS;
    const struct coll_mesh *m = coll_mesh_of(c);
    const struct coll_tree *t = m ? coll_mesh_tree(c, m->center) : NULL;
    if (!t)
        return NOCMSG_ERR_NO_MEM;
    if (c->ctx >= bar.nctx) {
        int n = c->ctx + 64;
        uint16_t *e = realloc(bar.epoch, (size_t)n * sizeof *e);
        if (!e)
            return NOCMSG_ERR_NO_MEM;
        for (int i = bar.nctx; i < n; i++)
            e[i] = 0;
        bar.epoch = e;
        bar.nctx = n;
    }
    unsigned epoch = bar.epoch[c->ctx]++;
    int me = c->world_of[c->rank], err;
    for (int i = 0; i < t->nchild; i++)
        if ((err = await(word_of(c->ctx, epoch, ARRIVE, c->world_of[t->children[i]]))) != NOCMSG_SUCCESS)
            return err;
    if (t->parent >= 0) {
        post(c->world_of[t->parent], word_of(c->ctx, epoch, ARRIVE, me));
        if ((err = await(word_of(c->ctx, epoch, RELEASE, c->world_of[t->parent]))) != NOCMSG_SUCCESS)
            return err;
    }
    for (int i = 0; i < t->nchild; i++)
        post(c->world_of[t->children[i]], word_of(c->ctx, epoch, RELEASE, me));
    return NOCMSG_SUCCESS;
}
#endif
