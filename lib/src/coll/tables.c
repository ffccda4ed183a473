/*
 * tables.c: the algorithms of each operation, the choice between them (setting or selector), and the API that
 * names them. The first algorithm of each table is the operation's naive reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "bcast/scc.h"
#include "../fc.h"

#define TABLE(name, ...)                                                                                        \
    static const struct coll_algorithm name[] = {__VA_ARGS__};

/* Each table's indices by name, so that the selector names algorithms without comparing strings. */
enum {
    BARRIER_LINEAR,
    BARRIER_DISSEMINATION,
    BARRIER_RECURSIVE_DOUBLING,
    BARRIER_BINOMIAL,
    BARRIER_TREE_CENTER,
    BARRIER_MPB, /* MPB chips only */
};
/* The port's own barrier takes the same slot: mpb on MPB chips, udn_tree on UDN chips. */
enum { BARRIER_UDN_TREE = BARRIER_MPB };
enum {
    BCAST_LINEAR,
    BCAST_BINOMIAL,
    BCAST_MESH,
    BCAST_MESH_CENTER,
    BCAST_SCATTER_ALLGATHER,
    BCAST_CHAIN,
    BCAST_RCCE, /* the SCC family: MPB chips only */
    BCAST_PARALLEL,
    BCAST_OPTIMIZED_PARALLEL,
    BCAST_TILED,
    BCAST_OPTIMIZED_TILED,
    BCAST_MPB,
    BCAST_OFFCHIP,
    BCAST_MODMPB,
    BCAST_HYBRID,
};
enum { REDUCE_LINEAR, REDUCE_BINOMIAL, REDUCE_MESH, REDUCE_MPB /* MPB chips only */ };
enum { ALLREDUCE_REDUCE_BCAST, ALLREDUCE_RECURSIVE_DOUBLING, ALLREDUCE_RING, ALLREDUCE_RABENSEIFNER };
enum { GATHER_LINEAR, GATHER_BINOMIAL };
enum { SCATTER_LINEAR, SCATTER_BINOMIAL };
enum { ALLGATHER_LINEAR, ALLGATHER_RING, ALLGATHER_RECURSIVE_DOUBLING };
enum { ALLTOALL_LINEAR, ALLTOALL_PAIRWISE, ALLTOALL_MESH_SCHEDULE };
enum { REDUCE_SCATTER_LINEAR, REDUCE_SCATTER_RING };
enum { SCAN_LINEAR, SCAN_RECURSIVE_DOUBLING };

/* The algorithms that need MPBs (chips with ni.kind = "mpb"; the MPB port's builds). */
#ifdef NOCMSG_PORT_MPB
#define SCC_FAMILY                                                                                              \
    [BCAST_RCCE] = {"rcce", (void *)bcast_rcce, NEEDS_MPB_AREA},                                                  \
    [BCAST_PARALLEL] = {"parallel", (void *)bcast_parallel, NEEDS_MPB_AREA},                                      \
    [BCAST_OPTIMIZED_PARALLEL] = {"optimized_parallel", (void *)bcast_optimized_parallel, NEEDS_MPB_AREA},        \
    [BCAST_TILED] = {"tiled", (void *)bcast_tiled, NEEDS_MPB_AREA},                                               \
    [BCAST_OPTIMIZED_TILED] = {"optimized_tiled", (void *)bcast_optimized_tiled, NEEDS_MPB_AREA},                 \
    [BCAST_MPB] = {"mpb", (void *)bcast_mpb, NEEDS_MPB_AREA},                                                     \
    [BCAST_OFFCHIP] = {"offchip", (void *)bcast_offchip, NEEDS_MPB_AREA},                                         \
    [BCAST_MODMPB] = {"modmpb", (void *)bcast_modmpb, NEEDS_MPB_AREA},                                            \
    [BCAST_HYBRID] = {"hybrid", (void *)bcast_hybrid, NEEDS_MPB_AREA}
#define MPB_REDUCE [REDUCE_MPB] = {"mpb", (void *)reduce_mpb, NEEDS_MPB_AREA}
#define MPB_BARRIER [BARRIER_MPB] = {"mpb", (void *)barrier_mpb, NEEDS_MPB_AREA}
#elif defined(NOCMSG_PORT_UDN)
#define MPB_BARRIER [BARRIER_UDN_TREE] = {"udn_tree", (void *)barrier_udn_tree, 0}
#define SCC_FAMILY /* the SCC broadcast family needs MPBs */
#define MPB_REDUCE
#else
#define MPB_BARRIER
#define SCC_FAMILY /* the SCC broadcast family needs MPBs */
#define MPB_REDUCE
#endif
TABLE(barrier_algos, [BARRIER_LINEAR] = {"linear", (void *)barrier_linear, 0},
      [BARRIER_DISSEMINATION] = {"dissemination", (void *)barrier_dissemination, 0},
      [BARRIER_RECURSIVE_DOUBLING] = {"recursive_doubling", (void *)barrier_recursive_doubling, 0},
      [BARRIER_BINOMIAL] = {"binomial", (void *)barrier_binomial, 0},
      [BARRIER_TREE_CENTER] = {"tree_center", (void *)barrier_tree_center, 0}, MPB_BARRIER)
TABLE(bcast_algos, [BCAST_LINEAR] = {"linear", (void *)bcast_linear, 0},
      [BCAST_BINOMIAL] = {"binomial", (void *)bcast_binomial, 0}, [BCAST_MESH] = {"mesh", (void *)bcast_mesh, 0},
      [BCAST_MESH_CENTER] = {"mesh_center", (void *)bcast_mesh_center, 0},
      [BCAST_SCATTER_ALLGATHER] = {"scatter_allgather", (void *)bcast_scatter_allgather, 0},
      [BCAST_CHAIN] = {"chain", (void *)bcast_chain, 0}, SCC_FAMILY)
TABLE(reduce_algos, [REDUCE_LINEAR] = {"linear", (void *)reduce_linear, 0},
      [REDUCE_BINOMIAL] = {"binomial", (void *)reduce_binomial, 0},
      [REDUCE_MESH] = {"mesh", (void *)reduce_mesh, NEEDS_COMMUTATIVE}, MPB_REDUCE)
TABLE(allreduce_algos, [ALLREDUCE_REDUCE_BCAST] = {"reduce_bcast", (void *)allreduce_reduce_bcast, 0},
      [ALLREDUCE_RECURSIVE_DOUBLING] = {"recursive_doubling", (void *)allreduce_recursive_doubling, 0},
      [ALLREDUCE_RING] = {"ring", (void *)allreduce_ring, NEEDS_COMMUTATIVE},
      [ALLREDUCE_RABENSEIFNER] = {"rabenseifner", (void *)allreduce_rabenseifner, NEEDS_COMMUTATIVE})
TABLE(gather_algos, [GATHER_LINEAR] = {"linear", (void *)gather_linear, 0},
      [GATHER_BINOMIAL] = {"binomial", (void *)gather_binomial, 0})
TABLE(scatter_algos, [SCATTER_LINEAR] = {"linear", (void *)scatter_linear, 0},
      [SCATTER_BINOMIAL] = {"binomial", (void *)scatter_binomial, 0})
TABLE(allgather_algos, [ALLGATHER_LINEAR] = {"linear", (void *)allgather_linear, 0},
      [ALLGATHER_RING] = {"ring", (void *)allgather_ring, 0},
      [ALLGATHER_RECURSIVE_DOUBLING] = {"recursive_doubling", (void *)allgather_recursive_doubling, 0})
TABLE(alltoall_algos, [ALLTOALL_LINEAR] = {"linear", (void *)alltoall_linear, 0},
      [ALLTOALL_PAIRWISE] = {"pairwise", (void *)alltoall_pairwise, 0},
      [ALLTOALL_MESH_SCHEDULE] = {"mesh_schedule", (void *)alltoall_mesh_schedule, 0})
TABLE(reduce_scatter_algos, [REDUCE_SCATTER_LINEAR] = {"linear", (void *)reduce_scatter_linear, 0},
      [REDUCE_SCATTER_RING] = {"ring", (void *)reduce_scatter_ring, NEEDS_COMMUTATIVE})
TABLE(scan_algos, [SCAN_LINEAR] = {"linear", (void *)scan_linear, 0},
      [SCAN_RECURSIVE_DOUBLING] = {"recursive_doubling", (void *)scan_recursive_doubling, 0})

#define OPERATION(name, table) {name, table, (int)(sizeof table / sizeof table[0])}
const struct coll_operation coll_operations[COLL_OPS] = {
    [OP_BARRIER] = OPERATION("barrier", barrier_algos),
    [OP_BCAST] = OPERATION("bcast", bcast_algos),
    [OP_REDUCE] = OPERATION("reduce", reduce_algos),
    [OP_ALLREDUCE] = OPERATION("allreduce", allreduce_algos),
    [OP_GATHER] = OPERATION("gather", gather_algos),
    [OP_SCATTER] = OPERATION("scatter", scatter_algos),
    [OP_ALLGATHER] = OPERATION("allgather", allgather_algos),
    [OP_ALLTOALL] = OPERATION("alltoall", alltoall_algos),
    [OP_REDUCE_SCATTER] = OPERATION("reduce_scatter", reduce_scatter_algos),
    [OP_SCAN] = OPERATION("scan", scan_algos),
};

/* The setting per operation: an index into its table, or -1 for the selector. */
static int setting[COLL_OPS] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
unsigned coll_generation;

static int op_index(const char *name)
{
    for (int i = 0; name && i < COLL_OPS; i++)
        if (strcmp(coll_operations[i].name, name) == 0)
            return i;
    return -1;
}

static int algo_index(int op, const char *name)
{
    for (int i = 0; i < coll_operations[op].count; i++)
        if (strcmp(coll_operations[op].algorithms[i].name, name) == 0)
            return i;
    return -1;
}

/* The selector's pick, by table index. The rules come from measurements on pimp-8x8 (bench/micro/coll.c with every
 * algorithm, 2 to 64 cores, 1 B to 64 KiB; python -m experiments micro-pimp and bcast-algorithms): each picks the
 * algorithm that was fastest, or within a few percent of it, in the cases around it (docs/collectives.md). The same
 * rules apply natively, where they are a reasonable default but were not tuned. `bytes` is the whole message for
 * bcast, reduce, allreduce and scan, and the block per rank for the others. */
static int select_algorithm(enum coll_op op, size_t bytes, const struct comm *c, int commutative)
{
    size_t n = (size_t)c->size;
    /* On MPB chips too: the algorithms that work on the MPBs directly (the SCC family, barrier and reduce mpb) are
     * much faster there, but while a rank waits in them with nothing of its own pending it does not answer other
     * ranks' point-to-point traffic (a cancel request, a send that needs room in its ring), which MPI programs may
     * rely on; so they run only when chosen (docs/collectives.md). */
    switch (op) {
    case OP_BARRIER:
#ifdef NOCMSG_PORT_UDN
        /* NoCMsg's: the centre-rooted tree on the UDN's own barrier queue, which keeps the engine going. */
        return BARRIER_UDN_TREE;
#endif
        /* The butterfly's partners are 1, 2, 4... hops away along rows, then columns; without a power of two it
         * needs two extra steps, and dissemination wins. */
        return (n & (n - 1)) == 0 ? BARRIER_RECURSIVE_DOUBLING : BARRIER_DISSEMINATION;
    case OP_BCAST:
        /* Small: fewest steps. Medium: the mesh tree, one hop per message and segments in flight on every level.
         * Large: the chain, whose every core forwards to one neighbour only. */
        if (bytes <= 512 || n < 8)
            return BCAST_BINOMIAL;
        return bytes < 16384 ? BCAST_MESH : BCAST_CHAIN;
    case OP_REDUCE:
        return REDUCE_BINOMIAL;
    case OP_ALLREDUCE:
        if (!commutative) /* ring and rabenseifner reorder operands; recursive doubling keeps rank order */
            return ALLREDUCE_RECURSIVE_DOUBLING;
        /* Recursive doubling's log2 n exchanges of the whole message while they are short (under 128 B; under
         * 256 B on 64 ranks, where the blocks of the reduce-scatter are then still under 4 B); then Rabenseifner's
         * halving, until the ring's 2 (n - 1) steps, about 350 cycles each on pimp-8x8 whatever the block, cost less
         * than its large first exchanges: from 2 KiB, and from 4 KiB on 32 ranks and more (docs/collectives.md). */
        if (bytes < 128 || bytes < 4 * n)
            return ALLREDUCE_RECURSIVE_DOUBLING;
        return bytes < (n >= 32 ? 4096u : 2048u) ? ALLREDUCE_RABENSEIFNER : ALLREDUCE_RING;
    case OP_GATHER:
        return GATHER_BINOMIAL;
    case OP_SCATTER:
        /* Past about 1 KiB a block, forwarding subtrees' blocks costs more than the root sending each its own. */
        return bytes >= 1024 ? SCATTER_LINEAR : SCATTER_BINOMIAL;
    case OP_ALLGATHER:
        return bytes * n >= 8192 ? ALLGATHER_RING : ALLGATHER_RECURSIVE_DOUBLING;
    case OP_ALLTOALL:
        return ALLTOALL_PAIRWISE;
    case OP_REDUCE_SCATTER:
        return REDUCE_SCATTER_RING;
    case OP_SCAN:
        return SCAN_RECURSIVE_DOUBLING;
    default:
        return 0;
    }
}

const struct coll_algorithm *coll_pick(enum coll_op op, size_t bytes, struct comm *c, int commutative)
{
    if ((unsigned)op >= COLL_OPS) /* never: every caller names a real operation (this tells the compiler so) */
        op = OP_BARRIER;
    int i = setting[op] >= 0 ? setting[op] : select_algorithm(op, bytes, c, commutative);
    const struct coll_algorithm *a = &coll_operations[op].algorithms[i];
#ifdef NOCMSG_PORT_UDN
    if (nocmsg__fc_on)
        nocmsg_fc_boundary(coll_operations[op].name, c);
#endif
    if ((a->needs & NEEDS_COMMUTATIVE) && !commutative)
        a = &coll_operations[op].algorithms[0];
#ifdef NOCMSG_PORT_MPB
    if ((a->needs & NEEDS_MPB_AREA) && !scc_available())
        a = &coll_operations[op].algorithms[0];
#endif
    return a;
}

int nocmsg_coll_set(const char *operation, const char *algorithm)
{
    int op = op_index(operation);
    if (op < 0 || !algorithm)
        return NOCMSG_ERR_ARG;
    int i = strcmp(algorithm, "auto") == 0 ? -1 : algo_index(op, algorithm);
    if (i < 0 && strcmp(algorithm, "auto") != 0)
        return NOCMSG_ERR_ARG;
    setting[op] = i;
    coll_generation++;
    return NOCMSG_SUCCESS;
}

const char *const *nocmsg_coll_algorithms(const char *operation)
{
    /* As many names as the largest table, and its NULL. (Its size stays 8 on PIMP builds: with a larger array the
     * ranks run a few hundred more instructions before bench/micro/pingpong's timed loop, start-up clearing a larger
     * .bss among them, and its far pair's round trips on pimp-4x4 change by 3 cycles, so the golden file would no
     * longer hold.) */
#ifdef NOCMSG_PORT_MPB
    static const char *names[COLL_OPS][BCAST_HYBRID + 2];
#else
    static const char *names[COLL_OPS][8];
#endif
    int op = op_index(operation);
    if (op < 0)
        return NULL;
    for (int i = 0; i < coll_operations[op].count; i++)
        names[op][i] = coll_operations[op].algorithms[i].name;
    names[op][coll_operations[op].count] = NULL;
    return names[op];
}

const char *nocmsg_coll_choice(const char *operation, size_t bytes, nocmsg_comm comm)
{
    int op = op_index(operation);
    struct comm *c = nocmsg_comm_get(comm);
    if (op < 0 || op >= COLL_OPS || !c)
        return NULL;
    return coll_pick((enum coll_op)op, bytes, c, 1)->name;
}

extern int nocmsg_coll_xfer;

int nocmsg_coll_set_xfer(int enabled)
{
    int before = nocmsg_coll_xfer;
    nocmsg_coll_xfer = enabled != 0;
    return before;
}

/* NOCMSG_<OPERATION>=<algorithm> and NOCMSG_COLL_XFER=0|1, read by nocmsg_init. An unknown name is reported and
 * ignored (the selector stays in charge). */
void nocmsg_coll_init(void)
{
    for (int op = 0; op < COLL_OPS; op++) {
        char var[40] = "NOCMSG_";
        size_t k = strlen(var);
        for (const char *p = coll_operations[op].name; *p && k + 1 < sizeof var; p++)
            var[k++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        var[k] = 0;
        const char *value = getenv(var);
        if (value && nocmsg_coll_set(coll_operations[op].name, value) != NOCMSG_SUCCESS)
            fprintf(stderr, "nocmsg: %s=%s: no such algorithm; the selector chooses instead\n", var, value);
    }
    const char *xfer = getenv("NOCMSG_COLL_XFER");
    if (xfer)
        nocmsg_coll_xfer = strcmp(xfer, "0") != 0;
}
