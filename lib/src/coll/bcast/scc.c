/* bcast/scc.c: the machinery of the SCC broadcast family (scc.h): chunks through MPB or off-chip slots, with
 * flag handshakes, for any tree of readers. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nocmsg_core.h>
#include <nocmsg_mpb.h>

#include "../../../ports/port.h"
#include "../../engine.h"

/* Off-chip slots: at most this many bytes each, and all of them together at most a quarter of shared memory. */
enum { DRAM_SLOT_MAX = 16384 };

static struct {
    int ready;                /* set up: 1; no room for the family: -1 */
    int me, n;
    size_t line;
    uintptr_t mpb_base, share, area; /* MPB of rank 0, bytes per share, offset of the family's area in a share */
    size_t flag_bytes;        /* each of the three count arrays, whole lines */
    size_t mpb_slot;          /* bytes of an MPB slot */
    uintptr_t dram_base;      /* rank 0's off-chip slots (0: none) */
    size_t dram_slot;
    uintptr_t dram_counts;    /* rank 0's off-chip counts (below the slots), flag_bytes per rank */
    /* Per world rank, modulo 2^16: chunks I published to it and took from it, signals I sent it and took from it. */
    uint16_t *sent, *taken, *sig_sent, *sig_taken;
    /* The same for the chunks published through off-chip counts (dram_ready). */
    uint16_t *dsent, *dtaken;
    /* Per slot: the readers of what it holds, and the count each must have taken before it is written again. */
    int *slot_reader[2];
    uint16_t *slot_count[2];
    int slot_readers[2];
    int *star;                /* n ranks: the children of a star's root */
    int busy;                 /* the engine had work when this collective began (begin) */
} scc;

/* Out of memory in the middle of a collective the other ranks are already in: they would wait for this rank
 * forever, so it ends the run with a message instead. */
static void *need(void *p)
{
    if (!p) {
        fprintf(stderr, "nocmsg: rank %d: out of memory in an MPB collective\n", nocmsg_lib.rank);
        nocmsg_port_abort(1);
    }
    return p;
}

static int setup(void)
{
    if (scc.ready)
        return scc.ready > 0 ? NOCMSG_SUCCESS : NOCMSG_ERR_INTERN;
    int n = nocmsg_lib.size;
    size_t offset, bytes;
    nocmsg_port_mpb_area(&offset, &bytes);
    scc.line = nocmsg_mpb_line_bytes();
    scc.flag_bytes = ((size_t)n * 2 + scc.line - 1) / scc.line * scc.line;
    if (bytes < 3 * scc.flag_bytes + 2 * scc.line) {
        /* The same on every rank: the algorithms that need the area fall back (coll_pick). */
        if (nocmsg_lib.rank == 0)
            fprintf(stderr, "nocmsg: the MPB area left to collectives (%zu bytes a rank) has no room for %d ranks' "
                            "counts and two slots: the MPB collectives are off, their operations' references run "
                            "instead\n", bytes, n);
        scc.ready = -1;
        return NOCMSG_ERR_INTERN;
    }
    scc.me = nocmsg_lib.rank;
    scc.n = n;
    scc.mpb_base = (uintptr_t)nocmsg_mpb(0);
    scc.share = nocmsg_mpb_bytes();
    scc.area = offset;
    scc.mpb_slot = (bytes - 3 * scc.flag_bytes) / 2 / scc.line * scc.line;
    size_t shared = nocmsg_shared_bytes();
    size_t counts = scc.flag_bytes * (size_t)n;
    size_t dram = shared / 4 > counts ? (shared / 4 - counts) / (2 * (size_t)n) / scc.line * scc.line : 0;
    scc.dram_slot = dram < DRAM_SLOT_MAX ? dram : DRAM_SLOT_MAX;
    scc.dram_base = scc.dram_slot ? (uintptr_t)nocmsg_shared() + shared - 2 * scc.dram_slot * (size_t)n : 0;
    scc.dram_counts = scc.dram_slot ? scc.dram_base - counts : 0;
    scc.sent = need(calloc((size_t)n, sizeof *scc.sent));
    scc.taken = need(calloc((size_t)n, sizeof *scc.taken));
    scc.sig_sent = need(calloc((size_t)n, sizeof *scc.sig_sent));
    scc.sig_taken = need(calloc((size_t)n, sizeof *scc.sig_taken));
    scc.dsent = need(calloc((size_t)n, sizeof *scc.dsent));
    scc.dtaken = need(calloc((size_t)n, sizeof *scc.dtaken));
    for (int k = 0; k < 2; k++) {
        scc.slot_reader[k] = need(malloc((size_t)n * sizeof *scc.slot_reader[k]));
        scc.slot_count[k] = need(malloc((size_t)n * sizeof *scc.slot_count[k]));
    }
    scc.star = need(malloc((size_t)n * sizeof *scc.star));
    scc.ready = 1;
    return NOCMSG_SUCCESS;
}

int scc_available(void)
{
    return setup() == NOCMSG_SUCCESS;
}

int scc_has_dram(void)
{
    return setup() == NOCMSG_SUCCESS && scc.dram_slot > 0;
}

/* ---- places --------------------------------------------------------------------------------------------- */

static inline uintptr_t area_of(int w)
{
    return scc.mpb_base + (uintptr_t)w * scc.share + scc.area;
}

/* In w's area: the count of chunks s has published to w. */
static inline volatile uint16_t *ready_flag(int w, int s)
{
    return (volatile uint16_t *)area_of(w) + s;
}

/* In w's area: the count of w's chunks r has taken. */
static inline volatile uint16_t *taken_flag(int w, int r)
{
    return (volatile uint16_t *)(area_of(w) + scc.flag_bytes) + r;
}

/* In w's area: the count of signals s has sent w (barriers: no slot behind them). */
static inline volatile uint16_t *signal_flag(int w, int s)
{
    return (volatile uint16_t *)(area_of(w) + 2 * scc.flag_bytes) + s;
}

/* In off-chip memory, among w's counts: the count of chunks w has published to r through its off-chip slots. The
 * counts of all readers share lines, so a root tells 48 ranks with 3 line writes (its write-combining buffer
 * gathers each line), where MPB flags take one remote write each; the readers poll them through the controller. */
static inline volatile uint16_t *dram_ready(int w, int r)
{
    return (volatile uint16_t *)(scc.dram_counts + (uintptr_t)w * scc.flag_bytes) + r;
}

static inline size_t slot_bytes(int medium, int serial)
{
    size_t s = medium == SCC_DRAM ? scc.dram_slot : scc.mpb_slot;
    return serial ? 2 * s : s;
}

static inline volatile uint64_t *slot_of(int w, int medium, int k)
{
    if (medium == SCC_DRAM)
        return (volatile uint64_t *)(scc.dram_base + ((uintptr_t)w * 2 + (uintptr_t)k) * scc.dram_slot);
    return (volatile uint64_t *)(area_of(w) + 3 * scc.flag_bytes + (uintptr_t)k * scc.mpb_slot);
}

/* ---- waiting -------------------------------------------------------------------------------------------- */

/* Whether count a has reached b (modulo 2^16; they are never 2^15 apart). */
static inline int reached(uint16_t a, uint16_t b)
{
    return (int16_t)(uint16_t)(a - b) >= 0;
}

/* Whether the point-to-point engine has work that must go on while this rank waits: sends queued, receives
 * posted (a sender may be waiting for their CTS) or waiting for their DATA, a packet half taken, or the MPI layer's
 * non-blocking collectives. */
static inline int engine_busy(void)
{
    return nocmsg_eng.tx_head || nocmsg_eng.posted_head || nocmsg_eng.midpacket || nocmsg_eng.awaiting_data ||
           (nocmsg_engine_idle_busy && nocmsg_engine_idle_busy());
}

/* Waits until the flag at f (in my own MPB share, or another rank's off-chip counts) reaches count, re-reading it
 * each time, as RCCE's flag waits do. While the engine has nothing to do, the loop is the same every time round, so
 * for a flag in my own MPB the simulator lets the core sleep until the line is written, charged as if it had polled:
 * such waits are exact and cost the simulator nothing (an off-chip count is read through the controller each time).
 * While it has work, every round also moves the engine on, so that a posted receive or a queued send completes while
 * this rank waits, as MPI's progress rule asks. An idle rank does not answer what others send it
 * meanwhile (a cancel request, a send that needs room in its ring): that is why the selector never picks the
 * algorithms built on this (tables.c). */
/* The wait while the engine has work: returns 1 once the flag has reached count, 0 once the engine is idle first.
 * Out of line, so that the waits themselves stay small (their callers save fewer registers). */
__attribute__((noinline, cold)) static int wait_flag_busy(const volatile uint16_t *f, uint16_t count)
{
    while ((scc.busy = engine_busy())) {
        nocmsg_mpb_invalidate();
        if (reached(*f, count))
            return 1;
        nocmsg_engine_progress();
    }
    return 0;
}

static inline void wait_flag(const volatile uint16_t *f, uint16_t count)
{
    /* Idle, the engine stays idle until this rank calls it again (only its own calls and its progress give it
     * work): begin() asks once per collective, and the wait is then the tightest loop. */
    if (__builtin_expect(scc.busy, 0) && wait_flag_busy(f, count))
        return;
    do
        nocmsg_mpb_invalidate();
    while (!reached(*f, count));
}

/* Every collective here starts with this: set up, and whether the engine has work to move on while it waits. */
static int begin(void)
{
    int err = setup();
    scc.busy = engine_busy();
    return err;
}

/* Waits until world rank s has published `count` chunks to me. */
static void wait_ready(int s, uint16_t count)
{
    wait_flag(ready_flag(scc.me, s), count);
}

/* Waits until every reader of slot k has taken what it holds. A reader I have published two more chunks to since
 * has taken it: the later of those went into a slot only after its reader had taken the one before, and a reader
 * takes my chunks in order. So an entry is never more than two chunks old when it is waited for, and the 16-bit
 * counts never wrap between the two. */
static void wait_slot(int k)
{
    for (int i = scc.slot_readers[k] - 1; i >= 0; i--) {
        int r = scc.slot_reader[k][i];
        uint16_t count = scc.slot_count[k][i];
        if ((uint16_t)(scc.sent[r] - count) < 2)
            wait_flag(taken_flag(scc.me, r), count);
    }
    scc.slot_readers[k] = 0;
}

/* ---- copies --------------------------------------------------------------------------------------------- */

/* A word of private memory that may alias anything. */
typedef uint64_t __attribute__((may_alias)) word_t;

/* Private memory from an MPB or off-chip slot: 8-byte loads, so each line is one transfer. (memcpy of a word to an
 * address of unknown alignment is eight byte stores on RISC-V: aligned buffers get word stores.) */
static void copy_in(unsigned char *dst, const volatile uint64_t *src, size_t bytes)
{
    size_t i = 0;
    if (((uintptr_t)dst & 7) == 0)
        for (word_t *d = (word_t *)dst; i + 8 <= bytes; i += 8)
            d[i / 8] = src[i / 8];
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w = src[i / 8];
        memcpy(dst + i, &w, 8);
    }
    if (i < bytes) {
        uint64_t w = src[i / 8];
        memcpy(dst + i, &w, bytes - i);
    }
}

/* A slot from private memory (the last word padded); the write-combining buffer sends each line as it fills. */
static void copy_out(volatile uint64_t *dst, const unsigned char *src, size_t bytes)
{
    size_t i = 0;
    if (((uintptr_t)src & 7) == 0)
        for (const word_t *s = (const word_t *)src; i + 8 <= bytes; i += 8)
            dst[i / 8] = s[i / 8];
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        dst[i / 8] = w;
    }
    if (i < bytes) {
        uint64_t w = 0;
        memcpy(&w, src + i, bytes - i);
        dst[i / 8] = w;
    }
}

/* Slot to slot (another rank's to mine), a word at a time. */
static void copy_across(volatile uint64_t *dst, const volatile uint64_t *src, size_t bytes)
{
    for (size_t i = 0; i < (bytes + 7) / 8; i++)
        dst[i] = src[i];
}

/* ---- the two halves of a chunk's way --------------------------------------------------------------------- */

/* Tells world rank w that I published one more chunk for it (in its MPB, or among my off-chip counts when my slots
 * are off-chip), and remembers that slot k must wait for it. */
static void publish_to(int w, int k, int medium)
{
    uint16_t count = ++scc.sent[w];
    if (medium == SCC_DRAM)
        *dram_ready(scc.me, w) = ++scc.dsent[w];
    else
        *ready_flag(w, scc.me) = count;
    scc.slot_reader[k][scc.slot_readers[k]] = w;
    scc.slot_count[k][scc.slot_readers[k]++] = count;
}

/* Takes chunk `bytes` long from world rank `from`'s slot k (medium m) into dst, or, staging, into my own MPB slot
 * `own` first. */
static void take_chunk(const struct scc_role *role, int from, int k, unsigned char *dst, size_t bytes, int own)
{
    if (role->parent_medium == SCC_DRAM)
        wait_flag(dram_ready(from, scc.me), ++scc.dtaken[from]);
    else
        wait_ready(from, (uint16_t)(scc.taken[from] + 1));
    nocmsg_mpb_invalidate(); /* no line of the slot from an earlier chunk may be served from the cache */
    const volatile uint64_t *src = slot_of(from, role->parent_medium, k);
    if (own >= 0) {
        volatile uint64_t *mine = slot_of(scc.me, SCC_MPB, own);
        copy_across(mine, src, bytes);
        nocmsg_mpb_flush();
        *taken_flag(from, scc.me) = ++scc.taken[from];
        nocmsg_mpb_flush();
        copy_in(dst, mine, bytes);
    } else {
        copy_in(dst, src, bytes);
        *taken_flag(from, scc.me) = ++scc.taken[from];
        nocmsg_mpb_flush();
    }
}

int scc_bcast(void *buf, size_t bytes, struct comm *c, const struct scc_role *role)
{
    int err = begin();
    if (err != NOCMSG_SUCCESS)
        return err;
    if ((role->medium == SCC_DRAM || (role->parent >= 0 && role->parent_medium == SCC_DRAM)) && !scc.dram_slot)
        return NOCMSG_ERR_INTERN; /* the algorithms check scc_has_dram first */
    unsigned char *b = buf;
    const int *world = c->world_of;
    /* The root's serial loop: the whole message to each child in turn, through both slots as one buffer. */
    if (role->parent < 0 && role->serial) {
        size_t chunk = slot_bytes(role->medium, 1);
        for (int i = 0; i < role->nchild; i++) {
            int w = world[role->children[i]];
            for (size_t at = 0; at < bytes; at += chunk) {
                size_t len = bytes - at < chunk ? bytes - at : chunk;
                wait_slot(0);
                wait_slot(1);
                copy_out(slot_of(scc.me, role->medium, 0), b + at, len);
                nocmsg_mpb_flush();
                publish_to(w, 0, role->medium);
                nocmsg_mpb_flush();
                /* The chunk fills slot 1 too. */
                scc.slot_reader[1][0] = w;
                scc.slot_count[1][0] = scc.sent[w];
                scc.slot_readers[1] = 1;
            }
        }
        return NOCMSG_SUCCESS;
    }
    /* Everyone else: chunk by chunk, take it from the parent (if any) and publish it to the children (if any).
     * Chunks are as long as the parent's slots, or the own slots at the root. */
    size_t chunk = role->parent >= 0 ? slot_bytes(role->parent_medium, role->parent_serial)
                                     : slot_bytes(role->medium, 0);
    int from = role->parent >= 0 ? world[role->parent] : -1;
    /* Forwarding from the own MPB needs the parent's chunks to fit a slot (the MPB family's parents are MPBs). */
    int stage = role->stage && from >= 0 && chunk <= scc.mpb_slot;
    for (size_t at = 0, j = 0; at < bytes; at += chunk, j++) {
        size_t len = bytes - at < chunk ? bytes - at : chunk;
        int k = role->parent >= 0 && role->parent_serial ? 0 : (int)(j & 1), own = (int)(j & 1);
        int forward_in_place = stage && role->nchild > 0 && role->medium == SCC_MPB;
        if (from >= 0) {
            if (stage)
                wait_slot(own);
            take_chunk(role, from, k, b + at, len, stage ? own : -1);
        }
        if (role->nchild == 0)
            continue;
        if (!forward_in_place) {
            wait_slot(own);
            if (len > slot_bytes(role->medium, 0))
                return NOCMSG_ERR_INTERN; /* no role forwards chunks longer than its slots */
            copy_out(slot_of(scc.me, role->medium, own), b + at, len);
            nocmsg_mpb_flush();
        }
        for (int i = 0; i < role->nchild; i++)
            publish_to(world[role->children[i]], own, role->medium);
        nocmsg_mpb_flush();
    }
    return NOCMSG_SUCCESS;
}

/* ---- primitives for the other MPB collectives (scc.h) --------------------------------------------------- */

int scc_setup(void)
{
    return begin();
}

size_t scc_slot_bytes(void)
{
    return scc.mpb_slot;
}

volatile uint64_t *scc_slot(int w, int k)
{
    return slot_of(w, SCC_MPB, k);
}

void scc_wait_slot(int k)
{
    wait_slot(k);
}

static inline void signal_to(int w)
{
    *signal_flag(w, scc.me) = ++scc.sig_sent[w];
}

static inline void wait_signal(int w)
{
    wait_flag(signal_flag(scc.me, w), ++scc.sig_taken[w]);
}

void scc_signal(int w)
{
    signal_to(w);
}

void scc_wait_signal(int w)
{
    wait_signal(w);
}

int scc_barrier(struct comm *c)
{
    int err = begin();
    if (err != NOCMSG_SUCCESS)
        return err;
    int n = c->size, me = c->rank;
    for (int d = 1; d < n; d <<= 1) {
        signal_to(c->world_of[(me + d) % n]);
        nocmsg_mpb_flush();
        wait_signal(c->world_of[(me - d + n) % n]);
    }
    nocmsg_mpb_invalidate();
    return NOCMSG_SUCCESS;
}

void scc_copy_in(void *dst, const volatile uint64_t *src, size_t bytes)
{
    copy_in(dst, src, bytes);
}

void scc_copy_out(volatile uint64_t *dst, const void *src, size_t bytes)
{
    copy_out(dst, src, bytes);
}

/* ---- shapes --------------------------------------------------------------------------------------------- */

int scc_nearest_center(struct comm *c, const int *members, int count)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    if (!m || count <= 0)
        return 0;
    int minx = m->x[members[0]], maxx = minx, miny = m->y[members[0]], maxy = miny;
    for (int i = 1; i < count; i++) {
        int x = m->x[members[i]], y = m->y[members[i]];
        minx = x < minx ? x : minx;
        maxx = x > maxx ? x : maxx;
        miny = y < miny ? y : miny;
        maxy = y > maxy ? y : maxy;
    }
    int best = 0, best_d = -1;
    for (int i = 0; i < count; i++) {
        int dx = 2 * m->x[members[i]] - (minx + maxx), dy = 2 * m->y[members[i]] - (miny + maxy);
        int d = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
        if (best_d < 0 || d < best_d) {
            best = i;
            best_d = d;
        }
    }
    return best;
}

int scc_bcast_star(void *buf, size_t bytes, int root, struct comm *c, int medium, int serial)
{
    struct scc_role role = {.parent = root, .parent_medium = medium, .parent_serial = serial, .medium = medium,
                            .serial = serial};
    if (c->rank != root)
        return scc_bcast(buf, bytes, c, &role);
    int err = setup();
    if (err != NOCMSG_SUCCESS)
        return err;
    int *children = scc.star; /* at most n - 1 of them */
    for (int r = 0; r < c->size; r++)
        if (r != root)
            children[role.nchild++] = r;
    role.parent = -1;
    role.children = children;
    return scc_bcast(buf, bytes, c, &role);
}

/* This rank's place in a tiled tree, kept per communicator, form and root (struct coll_mesh's family). */
struct tiled_role {
    int parent, nchild, children[];
};
struct tiled_cache {
    int n;
    struct tiled_role *role[]; /* [optimized * n + root] */
};

static void tiled_cache_free(void *p)
{
    struct tiled_cache *t = p;
    if (!t)
        return;
    for (int i = 0; i < 2 * t->n; i++)
        free(t->role[i]);
    free(t);
}

/* Works out this rank's place in the tiled tree from root (see scc.h). NULL when out of memory. */
static struct tiled_role *tiled_role_of(const struct coll_mesh *m, int root, struct comm *c, int optimized)
{
    int n = c->size, routers = m->width * m->height;
    int *leaders = malloc((size_t)n * sizeof *leaders), *lead = malloc((size_t)routers * sizeof *lead);
    struct tiled_role *role = malloc(sizeof *role + (size_t)(n + 4) * sizeof(int));
    if (!leaders || !lead || !role)
        goto fail;
    /* A rank's router is its (x, y); its leader: the root there, else the lowest rank there. */
#define ROUTER(r) (m->y[r] * m->width + m->x[r])
    for (int i = 0; i < routers; i++)
        lead[i] = -1;
    lead[ROUTER(root)] = root;
    for (int r = 0; r < n; r++)
        if (lead[ROUTER(r)] < 0)
            lead[ROUTER(r)] = r;
    int nleaders = 0, my_index = -1, root_index = 0;
    for (int r = 0; r < n; r++) {
        if (lead[ROUTER(r)] != r)
            continue;
        if (r == root)
            root_index = nleaders;
        if (r == c->rank)
            my_index = nleaders;
        leaders[nleaders++] = r;
    }
    role->nchild = 0;
    role->parent = lead[ROUTER(c->rank)];
    if (my_index >= 0) {
        int first = optimized ? scc_nearest_center(c, leaders, nleaders) : root_index;
        int kids[4], k = coll_mesh_subtree(c, leaders, nleaders, first, my_index, &role->parent, kids);
        if (k < 0)
            goto fail;
        /* The optimized form: the root gives the data to the centre leader first; the centre's tree then skips
         * the root, which serves its own children. */
        if (c->rank == leaders[first] && c->rank != root)
            role->parent = root;
        if (c->rank == root) {
            role->parent = -1;
            if (leaders[first] != root)
                role->children[role->nchild++] = leaders[first];
        }
        for (int i = 0; i < k; i++)
            if (kids[i] != root)
                role->children[role->nchild++] = kids[i];
        /* Then the other ranks of my router. */
        for (int q = 0; q < n; q++)
            if (q != c->rank && ROUTER(q) == ROUTER(c->rank))
                role->children[role->nchild++] = q;
    }
#undef ROUTER
    free(leaders);
    free(lead);
    return role;
fail:
    free(leaders);
    free(lead);
    free(role);
    return NULL;
}

int scc_bcast_tiled(void *buf, size_t bytes, int root, struct comm *c, int optimized)
{
    struct coll_mesh *m = (struct coll_mesh *)coll_mesh_of(c);
    if (!m)
        return NOCMSG_ERR_NO_MEM;
    if (!m->family) {
        struct tiled_cache *t = calloc(1, sizeof *t + 2 * (size_t)c->size * sizeof t->role[0]);
        if (!t)
            return NOCMSG_ERR_NO_MEM;
        t->n = c->size;
        m->family = t;
        m->family_free = tiled_cache_free;
    }
    struct tiled_cache *t = m->family;
    struct tiled_role **slot = &t->role[(optimized ? c->size : 0) + root];
    if (!*slot && !(*slot = tiled_role_of(m, root, c, optimized)))
        return NOCMSG_ERR_NO_MEM;
    const struct tiled_role *r = *slot;
    struct scc_role role = {.parent = r->parent, .parent_medium = SCC_MPB, .nchild = r->nchild,
                            .children = r->children, .medium = SCC_MPB};
    return scc_bcast(buf, bytes, c, &role);
}

#endif /* NOCMSG_PORT_MPB */
