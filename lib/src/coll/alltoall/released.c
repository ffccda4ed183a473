/* alltoall/released.c: the all-to-all (alltoall, alltoallv) a flow-control plan releases (rule C3; UDN chips only,
 * docs/fc-plan.md). It moves every block in raw writes (stalling writes straight into the network: no credit check,
 * no return to the work loop, no engine), and is deadlock-free by construction, whatever the paths share. It runs
 * in the work-loop mode only, on up to 64 ranks, with a plan made for as many ranks as run (else the caller runs
 * the all-to-all its flow-controlled way):
 *
 * 1. Entry: a reduction and release over the centre-rooted tree (one hop per word, on tagged queue 3) sums every
 *    rank's count of queue-0 packets written minus packets read, and whether any rank is in the middle of a message
 *    (a packet half written or half read, a send queued in the work loop, a rendezvous under way, MPI's non-blocking
 *    collectives pending). All ranks go on only when every rank has arrived, and go raw only when the sum is 0 and
 *    no rank is busy: then no packet of earlier communication is still in the network or will enter it, and no rank
 *    sends anything but this all-to-all's words until step 3. Otherwise every rank runs the all-to-all the
 *    flow-controlled way instead (in checking mode a plan violation, reported by rank 0).
 * 2. The exchanges, a pair of ranks per step, both directions at once: peer = rank ^ k in step k = 1 .. n - 1 when
 *    n is a power of two, else the round-robin (circle) schedule of n - 1 steps (n even) or n steps with one rank
 *    idle in each (n odd).
 *    A block goes in chunks that each fit a receive queue whole (a source word and queue_words - 1 words: 248 bytes
 *    on tilepro-64), each one packet written raw only after the receiver's ready token (one word to queue 3). A rank
 *    sends the token for a chunk when its queue 0 is empty: at the start of the step, and after it has read the
 *    chunk before. Nothing else is written to queue 0 in the meantime, so every chunk lands whole even while its
 *    receiver is itself stalled writing, every raw write completes, and no packet waits for a stalled core, whatever
 *    the paths share. The chunks bypass the engine (they are read straight from queue 0), and no engine pass runs
 *    until step 3. A rank is sent at most one token by each peer at a time, so at most n - 1 wait in its queue 3,
 *    which holds them (the plan checks n - 1 <= ni.udn.demux_queue_words): they never back up into the network.
 *    Every direction sends at least one chunk (an empty one for an empty block), the last one of a block marked, so
 *    counts that disagree (an erroneous program) show as a chunk the reader did not expect: it drops it, and the
 *    call fails with NOCMSG_ERR_COUNT at once (MPI's default error handler then stops the program).
 * 3. Exit: a barrier (barrier/udn_tree.c on queue 1), so no rank sends the next region's traffic to a rank still
 *    stalled writing here. */
#include <string.h>

#include "../coll.h"
#include "../../engine.h"
#include "../../fc.h"
#include "../../wait.h"

#ifdef NOCMSG_PORT_UDN
#include "../../../ports/port.h"

enum { QUEUE = 3 };
enum { W_UP = 1, W_DOWN = 2, W_TOKEN = 3 };
#define VALUE_BITS 48
#define VALUE_MASK (((uint64_t)1 << VALUE_BITS) - 1)
#define BUSY_BIT ((uint64_t)1 << 61)
#define WORD(kind, src, value) ((uint64_t)(kind) << 62 | (uint64_t)(src) << VALUE_BITS | ((uint64_t)(value) & VALUE_MASK))
#define WORD_KIND(w) ((int)((w) >> 62))
#define WORD_SRC(w) ((int)(((w) >> VALUE_BITS) & 0x1fff))


static struct {
    uint16_t tokens[64]; /* ready tokens of comm rank i not used yet */
    int ups;         /* children's words of the entry reduction taken */
    int64_t sum;     /* their packet balances */
    int busy;        /* one of them said busy */
    int down;        /* the release has come: 1 + its answer */
} rel;

static int64_t value_of(uint64_t w)
{
    uint64_t v = w & VALUE_MASK;
    return (int64_t)(v << (64 - VALUE_BITS)) >> (64 - VALUE_BITS); /* sign-extended */
}

/* Takes every word of queue 3 into `rel`; whether there was one. */
static int take_words(void)
{
    uint64_t w;
    int got = 0;
    while (nocmsg_port_udn_word_poll(QUEUE, &w)) {
        got = 1;
        switch (WORD_KIND(w)) {
        case W_UP:
            rel.ups++;
            rel.sum += value_of(w);
            rel.busy |= (w & BUSY_BIT) != 0;
            break;
        case W_DOWN:
            rel.down = (w & 1) ? 1 : 2;
            break;
        default:
            rel.tokens[WORD_SRC(w) & 63]++;
            break;
        }
    }
    return got;
}

/* One turn of a wait in step 1: the words of queue 3 taken, else a pass of the engine (queue 0 drained), else (with
 * `sleep`) sleep until a word comes to queue 0 or 3. A rank waiting for credits must not sleep: returning credits
 * raise no interrupt. MPI's non-blocking collectives are not progressed: none is pending (step 1). */
static void turn(int sleep)
{
    if (!take_words() && !nocmsg_engine_progress() && !nocmsg_eng.tx_head && sleep)
        nocmsg_port_udn_sleep_on(1u << 0 | 1u << QUEUE);
}

static void post(int world_rank, uint64_t w)
{
    while (!nocmsg_port_udn_word(world_rank, QUEUE, w))
        turn(0);
}

/* Whether this rank is in the middle of something that would put packets into the network later. */
static int engine_busy(void)
{
    if (nocmsg_eng.tx_head || nocmsg_eng.awaiting_data || nocmsg_eng.midpacket ||
        (nocmsg_engine_idle_busy && nocmsg_engine_idle_busy()))
        return 1;
    for (const struct unexpected *u = nocmsg_eng.ux_head; u; u = u->next)
        if (u->kind == PK_RTS || !u->complete)
            return 1;
    return 0;
}

/* Step 1: 1 if every rank may go raw, else 0; the same answer on every rank (-1: out of memory). */
static int entry(struct comm *c, int64_t *unreceived, int *busy)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    const struct coll_tree *t = m ? coll_mesh_tree(c, m->center) : NULL;
    if (!t)
        return -1;
    int me_busy;
    int64_t balance = nocmsg_port_udn_balance(&me_busy);
    me_busy |= engine_busy();
    while (rel.ups < t->nchild)
        turn(1);
    int64_t sum = rel.sum + balance;
    int any_busy = rel.busy || me_busy;
    if (t->parent >= 0) {
        post(c->world_of[t->parent], WORD(W_UP, c->rank, sum) | (any_busy ? BUSY_BIT : 0));
        while (!rel.down)
            turn(1);
    } else {
        rel.down = sum == 0 && !any_busy ? 1 : 2;
    }
    for (int i = 0; i < t->nchild; i++)
        post(c->world_of[t->children[i]], WORD(W_DOWN, c->rank, rel.down == 1));
    *unreceived = sum;
    *busy = any_busy;
    return rel.down == 1;
}

static void block_of(const struct coll_blocks *b, int peer, int send, const unsigned char **at, size_t *bytes)
{
    if (!b->scounts) {
        *at = (send ? b->send : b->recv) + (size_t)peer * b->bytes;
        *bytes = b->bytes;
    } else if (send) {
        *at = b->send + (size_t)b->sdispls[peer] * b->selem;
        *bytes = (size_t)b->scounts[peer] * b->selem;
    } else {
        *at = b->recv + (size_t)b->rdispls[peer] * b->relem;
        *bytes = (size_t)b->rcounts[peer] * b->relem;
    }
}

/* In step 2 no engine pass runs (it would take the chunks from queue 0): a waiting rank takes the tokens in queue 3
 * (take_words), or sleeps until a word comes to queue 0 or 3. */

/* A token to world rank `to`; a full output queue empties into the network, whose chunks all have room. */
static void grant(int to, int me)
{
    while (!nocmsg_port_udn_word(to, QUEUE, WORD(W_TOKEN, me, 0)))
        take_words();
}

/* One step of 2: this rank's block s (sn bytes) to peer, and peer's (rn bytes) into r, chunk by chunk (at least
 * one each way). */
static int exchange(const unsigned char *s, size_t sn, unsigned char *r, size_t rn, int peer, size_t chunk,
                    struct comm *c)
{
    int to = c->world_of[peer], me = c->rank;
    size_t out = 0, in = 0;        /* bytes written, read */
    int out_done = 0, in_done = 0; /* the last chunk written, read */
    int granted = 0;               /* a token for the next chunk in is out */
    int entered = 0;
    while (!out_done || !in_done) {
        int moved = take_words();
        if (!in_done && !granted) {
            grant(to, me);
            granted = moved = 1;
        }
        if (!out_done && rel.tokens[peer]) {
            rel.tokens[peer]--;
            size_t k = sn - out < chunk ? sn - out : chunk;
            out_done = out + k == sn;
            nocmsg_port_udn_chunk_write(to, s + out, k, out_done);
            out += k;
            moved = 1;
        }
        if (!in_done && granted && nocmsg_port_udn_count0()) {
            size_t k = rn - in < chunk ? rn - in : chunk;
            in_done = in + k == rn;
            if (!nocmsg_port_udn_chunk_read(to, r + in, k, in_done)) {
                if (entered)
                    nocmsg_wait_leave(entered);
                return NOCMSG_ERR_COUNT;
            }
            in += k;
            granted = 0;
            moved = 1;
        }
        if (!moved) {
            if (!entered)
                entered = nocmsg_wait_enter(to, NULL); /* a deadlock report names the peer */
            nocmsg_port_udn_sleep_on(1u << 0 | 1u << QUEUE);
        }
    }
    if (entered)
        nocmsg_wait_leave(entered);
    return NOCMSG_SUCCESS;
}

/* The partner of `rank` in step k of the schedule (-1: none in this step), and the number of steps. */
static int steps_of(int n)
{
    return (n & (n - 1)) == 0 ? n - 1 : n % 2 == 0 ? n - 1 : n;
}

static int partner(int rank, int k, int n)
{
    if ((n & (n - 1)) == 0)
        return rank ^ (k + 1);
    int m = n % 2 == 0 ? n - 1 : n; /* the circle: ranks 0 .. m - 1 around it, rank m (n even) in its centre */
    if (rank == m)
        return k;
    if (rank == k)
        return m < n ? m : -1;
    return (int)((2 * (long)k - rank + 2L * m) % m);
}

int coll_alltoall_released(const char *operation, const struct coll_blocks *b, unsigned queue_words, struct comm *c)
{
    int n = c->size, me = c->rank, err = NOCMSG_SUCCESS;
    /* A chunk: a source word and the rest of a queue (or of a packet). */
    unsigned words = queue_words < nocmsg_port_udn_max_words() ? queue_words : nocmsg_port_udn_max_words();
    size_t chunk = words >= 2 ? (size_t)(words - 1) * 8 : 0;
    /* The same on every rank: the mode is the run's, the plan's rank count was checked against the run's. */
    if (n > 64 || !chunk || !nocmsg_port_udn_raw_ok())
        return COLL_KEEPS_FLOW_CONTROL;
    memset(&rel, 0, sizeof rel);
    int64_t unreceived = 0;
    int busy = 0;
    int raw = entry(c, &unreceived, &busy);
    if (raw < 0)
        return NOCMSG_ERR_NO_MEM;
    if (!raw) {
        nocmsg_fc_release_refused(operation, (long long)unreceived, busy);
        return COLL_KEEPS_FLOW_CONTROL;
    }
    {
        const unsigned char *s, *r;
        size_t sn, rn;
        block_of(b, me, 1, &s, &sn);
        block_of(b, me, 0, &r, &rn);
        if (sn != rn)
            return NOCMSG_ERR_COUNT;
        if (sn)
            memmove((void *)r, s, sn);
    }
    for (int k = 0; k < steps_of(n) && err == NOCMSG_SUCCESS; k++) {
        int peer = partner(me, k, n);
        if (peer < 0)
            continue;
        const unsigned char *s, *r;
        size_t sn, rn;
        block_of(b, peer, 1, &s, &sn);
        block_of(b, peer, 0, &r, &rn);
        err = exchange(s, sn, (unsigned char *)r, rn, peer, chunk, c);
    }
    /* An error here is the program's (counts that disagree): the others' steps no longer match, so no barrier. */
    return err != NOCMSG_SUCCESS ? err : barrier_udn_tree(c);
}
#endif
