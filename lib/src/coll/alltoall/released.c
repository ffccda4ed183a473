/* alltoall/released.c: the all-to-all (alltoall, alltoallv) a flow-control plan releases (rule C3; UDN chips only,
 * docs/fc-plan.md). It moves every block with a raw write (SEND_RAW: stalling writes, no credit check, no return to
 * the work loop), and is deadlock-free by construction, whatever the paths share:
 *
 * 0. An all-to-all whose blocks are all at most the eager limit (512 B unless NOCMSG_EAGER_LIMIT says otherwise)
 *    keeps flow control: its flow-controlled messages need no handshake, and the released exchanges are no faster
 *    there (docs/fc-plan.md has the measurements). alltoall decides alone (every rank has the same block size);
 *    alltoallv in step 1, which also finds the largest block of all ranks.
 * 1. Entry: a reduction and release over the centre-rooted tree (one hop per word, on tagged queue 3) sums every
 *    rank's count of queue-0 packets written minus packets read, and whether any rank is in the middle of a message
 *    (a packet half written or half read, a send queued in the work loop, a rendezvous under way, MPI's non-blocking
 *    collectives pending). All ranks go on only when every rank has arrived, and go raw only when the sum is 0 and
 *    no rank is busy: then no packet of earlier communication is still in the network or will enter it, and no rank
 *    sends anything but this all-to-all's words until step 3. Otherwise every rank runs the flow-controlled pairwise
 *    exchange instead (in checking mode a plan violation, reported by rank 0).
 * 2. The exchanges, one per step k = 1 .. n - 1 with peer = rank ^ k (n a power of two). A rank writes its block
 *    raw only after the peer's ready token (one word to queue 3), and sends its own token (its receive posted) when
 *    the incoming block is safe to take: at once if the block fits its receive queue whole (a queue holds
 *    `queue_words`; at the token the queue is empty, and nothing else is written to it until the block is taken,
 *    so the block lands whole even if this rank is itself stalled writing); otherwise only while it drains: the
 *    lower rank after its own write is done (it then only receives). When neither block fits the pair goes in rank
 *    order: the higher rank sends its token at once and receives the whole block before it writes its own, which
 *    needs no token (the lower's write is done, and its receive follows). So the two blocks of a pair go at once when
 *    both fit, and in rank order when neither does. Every packet in the network then goes to a queue with room for
 *    all of it or to a rank that is draining, so none waits for a stalled core, and under dimension-order routing
 *    the packets ahead of it on its path move on too: every raw write completes, whatever the paths share. Tokens
 *    are the only words a stalled core may be sent besides the exit barrier's (queue 1, at most four from its
 *    children); a rank is sent at most n - 1 tokens per all-to-all, which queue 3 holds (the plan checks
 *    n - 1 <= ni.udn.demux_queue_words), so they never back up into the network. (The two ranks of a pair decide
 *    from their own counts; counts that disagree, an erroneous program, can leave both waiting for a token, which
 *    the simulator's deadlock watchdog reports.)
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
/* An UP word's src field carries the subtree's largest block in words instead (saturated). */
#define MAX_WORDS 0x1fff

/* The entry check's answers (step 1). */
enum { CHECK_FAILED, GO_RAW, NOT_WORTH_IT };

static struct {
    uint64_t tokens; /* bit i: the token of comm rank i has come */
    int ups;         /* children's words of the entry reduction taken */
    int64_t sum;     /* their packet balances */
    int busy;        /* one of them said busy */
    unsigned largest; /* their largest block, in words */
    int down;        /* the release has come: 1 + its answer */
} rel;

static int64_t value_of(uint64_t w)
{
    uint64_t v = w & VALUE_MASK;
    return (int64_t)(v << (64 - VALUE_BITS)) >> (64 - VALUE_BITS); /* sign-extended */
}

/* One turn of the wait: every word of queue 3 taken, else a pass of the engine (queue 0 drained), else (with `sleep`)
 * sleep until a word comes to queue 0 or 3. A rank waiting for credits must not sleep: returning credits raise no
 * interrupt. MPI's non-blocking collectives are not progressed: none is pending (step 1). */
static void turn(int sleep)
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
            if ((unsigned)WORD_SRC(w) > rel.largest)
                rel.largest = (unsigned)WORD_SRC(w);
            break;
        case W_DOWN:
            rel.down = 1 + (int)(w & 3);
            break;
        default:
            rel.tokens |= (uint64_t)1 << WORD_SRC(w);
            break;
        }
    }
    if (!got && !nocmsg_engine_progress() && !nocmsg_eng.tx_head && sleep)
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

/* Step 1: GO_RAW if every rank may go raw; NOT_WORTH_IT if no block (of any rank) is larger than the eager limit:
 * flow control then costs no handshake, and the released exchanges, which move a pair's blocks in turn behind a
 * token, are no faster (docs/fc-plan.md has the measurements); CHECK_FAILED otherwise. The same answer on every
 * rank (-1: out of memory). `largest` is this rank's largest block, sent or received, in words. */
static int entry(struct comm *c, unsigned largest, int64_t *unreceived, int *busy)
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
    if (rel.largest > largest)
        largest = rel.largest;
    if (t->parent >= 0) {
        post(c->world_of[t->parent],
             WORD(W_UP, largest > MAX_WORDS ? MAX_WORDS : largest, sum) | (any_busy ? BUSY_BIT : 0));
        while (!rel.down)
            turn(1);
    } else {
        rel.down = 1 + (sum != 0 || any_busy                             ? CHECK_FAILED
                        : (size_t)largest * 8 <= nocmsg_lib.eager_limit ? NOT_WORTH_IT
                                                                         : GO_RAW);
    }
    for (int i = 0; i < t->nchild; i++)
        post(c->world_of[t->children[i]], WORD(W_DOWN, c->rank, rel.down - 1));
    *unreceived = sum;
    *busy = any_busy;
    return rel.down - 1;
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

/* The flow-controlled way, when step 1 says no: pairwise exchange, rank + k and rank - k. */
static int pairwise(const struct coll_blocks *b, struct comm *c)
{
    int err = NOCMSG_SUCCESS;
    for (int k = 1; k < c->size && err == NOCMSG_SUCCESS; k++) {
        int to = (c->rank + k) % c->size, from = (c->rank - k + c->size) % c->size;
        const unsigned char *s, *r;
        size_t sn, rn;
        block_of(b, to, 1, &s, &sn);
        block_of(b, from, 0, &r, &rn);
        err = coll_sendrecv(s, sn, to, (void *)r, rn, from, TAG_ALLTOALL, c);
    }
    return err;
}

/* Whether a block of `bytes` fits a receive queue of `queue_words` whole: its source word, its message header and its
 * payload, in one packet. */
static int fits(size_t bytes, unsigned queue_words)
{
    return 2 + (bytes + 7) / 8 <= queue_words;
}

/* Waits (draining queue 0) until peer's ready token has come. */
static void await_token(int peer, struct comm *c)
{
    if (rel.tokens >> peer & 1)
        return;
    int entered = nocmsg_wait_enter(c->world_of[peer], NULL); /* a deadlock report names the peer */
    do
        turn(1);
    while (!(rel.tokens >> peer & 1));
    nocmsg_wait_leave(entered);
}

int coll_alltoall_released(const char *operation, const struct coll_blocks *b, unsigned queue_words, struct comm *c)
{
    int n = c->size, me = c->rank, err = NOCMSG_SUCCESS;
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
    size_t largest = 0;
    for (int p = 0; p < n; p++) {
        const unsigned char *at;
        size_t sn, rn;
        block_of(b, p, 1, &at, &sn);
        block_of(b, p, 0, &at, &rn);
        largest = sn > largest ? sn : largest;
        largest = rn > largest ? rn : largest;
    }
    size_t largest_words = (largest + 7) / 8;
    memset(&rel, 0, sizeof rel);
    int64_t unreceived = 0;
    int busy = 0;
    int answer = (n & (n - 1)) == 0 && n <= 64
                     ? entry(c, largest_words > MAX_WORDS ? MAX_WORDS : (unsigned)largest_words, &unreceived, &busy)
                     : CHECK_FAILED;
    if (answer < 0)
        return NOCMSG_ERR_NO_MEM;
    if (answer != GO_RAW) {
        if (answer == CHECK_FAILED)
            nocmsg_fc_release_refused(operation, (long long)unreceived, busy);
        return pairwise(b, c);
    }
    for (int k = 1; k < n && err == NOCMSG_SUCCESS; k++) {
        int peer = me ^ k;
        const unsigned char *s, *r;
        size_t sn, rn;
        block_of(b, peer, 1, &s, &sn);
        block_of(b, peer, 0, &r, &rn);
        struct nocmsg_request_s rx;
        coll_irecv((void *)r, rn, peer, TAG_ALLTOALL, c, &rx);
        /* Step 2's rules (the header): the token goes at once when the incoming block fits, or (the higher rank)
         * when neither fits; a rank that has sent its token for a block that does not fit has it whole before it
         * writes its own. */
        int in_fits = fits(rn, queue_words), out_fits = fits(sn, queue_words);
        int early = me < peer ? in_fits : in_fits || !out_fits;
        /* Neither fits: rank order. The lower writes once it has the higher's token, then receives; the higher,
         * once it has the lower's block whole, writes without a token of the lower's: the lower's write is done
         * and nothing but its receive follows it. */
        int ordered = !in_fits && !out_fits;
        if (early)
            post(c->world_of[peer], WORD(W_TOKEN, me, 0));
        if (early && !in_fits)
            err = coll_waitall(1, &rx);
        if (err == NOCMSG_SUCCESS) {
            if (!(ordered && me > peer))
                await_token(peer, c);
            err = coll_rawsend(s, sn, peer, TAG_ALLTOALL, c);
        }
        if (!early && !ordered)
            post(c->world_of[peer], WORD(W_TOKEN, me, 0));
        int rerr = coll_waitall(1, &rx);
        err = err != NOCMSG_SUCCESS ? err : rerr;
    }
    /* Step 3, even after an error: the others may still be writing. */
    int berr = barrier_udn_tree(c);
    return err != NOCMSG_SUCCESS ? err : berr;
}
#endif
