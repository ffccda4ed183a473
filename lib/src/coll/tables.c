/*
 * tables.c: the algorithms of each operation, the choice between them (setting or selector), and the API that
 * names them. The first algorithm of each table is the operation's naive reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"

#define TABLE(name, ...)                                                                                        \
    static const struct coll_algorithm name[] = {__VA_ARGS__};

TABLE(barrier_algos, {"linear", (void *)barrier_linear, 0}, {"dissemination", (void *)barrier_dissemination, 0},
      {"binomial", (void *)barrier_binomial, 0}, {"tree_center", (void *)barrier_tree_center, 0})
TABLE(bcast_algos, {"linear", (void *)bcast_linear, 0}, {"binomial", (void *)bcast_binomial, 0},
      {"mesh", (void *)bcast_mesh, 0}, {"mesh_center", (void *)bcast_mesh_center, 0},
      {"scatter_allgather", (void *)bcast_scatter_allgather, 0}, {"chain", (void *)bcast_chain, 0})
TABLE(reduce_algos, {"linear", (void *)reduce_linear, 0}, {"binomial", (void *)reduce_binomial, 0},
      {"mesh", (void *)reduce_mesh, NEEDS_COMMUTATIVE})
TABLE(allreduce_algos, {"reduce_bcast", (void *)allreduce_reduce_bcast, 0},
      {"recursive_doubling", (void *)allreduce_recursive_doubling, 0},
      {"ring", (void *)allreduce_ring, NEEDS_COMMUTATIVE},
      {"rabenseifner", (void *)allreduce_rabenseifner, NEEDS_COMMUTATIVE})
TABLE(gather_algos, {"linear", (void *)gather_linear, 0}, {"binomial", (void *)gather_binomial, 0})
TABLE(scatter_algos, {"linear", (void *)scatter_linear, 0}, {"binomial", (void *)scatter_binomial, 0})
TABLE(allgather_algos, {"linear", (void *)allgather_linear, 0}, {"ring", (void *)allgather_ring, 0},
      {"recursive_doubling", (void *)allgather_recursive_doubling, 0})
TABLE(alltoall_algos, {"linear", (void *)alltoall_linear, 0}, {"pairwise", (void *)alltoall_pairwise, 0},
      {"mesh_schedule", (void *)alltoall_mesh_schedule, 0})
TABLE(reduce_scatter_algos, {"linear", (void *)reduce_scatter_linear, 0},
      {"ring", (void *)reduce_scatter_ring, NEEDS_COMMUTATIVE})
TABLE(scan_algos, {"linear", (void *)scan_linear, 0}, {"recursive_doubling", (void *)scan_recursive_doubling, 0})

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

/* The selector's pick, by table index. The rules are first estimates, not yet tuned from measurements
 * (docs/collectives.md). */
static int select_algorithm(enum coll_op op, size_t bytes, const struct comm *c)
{
    int n = c->size;
    switch (op) {
    case OP_BARRIER:
        return algo_index(op, "dissemination");
    case OP_BCAST:
        if (n >= 8 && bytes >= 32768)
            return algo_index(op, "scatter_allgather");
        return algo_index(op, n >= 8 ? "mesh_center" : "binomial");
    case OP_REDUCE:
        return algo_index(op, "binomial");
    case OP_ALLREDUCE:
        if (bytes >= 16384 && n >= 4)
            return algo_index(op, "rabenseifner");
        return algo_index(op, "recursive_doubling");
    case OP_GATHER:
    case OP_SCATTER:
        return algo_index(op, "binomial");
    case OP_ALLGATHER:
        return algo_index(op, bytes * (size_t)n >= 32768 ? "ring" : "recursive_doubling");
    case OP_ALLTOALL:
        return algo_index(op, bytes <= 256 && n >= 16 ? "mesh_schedule" : "pairwise");
    case OP_REDUCE_SCATTER:
        return algo_index(op, "ring");
    case OP_SCAN:
        return algo_index(op, "recursive_doubling");
    default:
        return 0;
    }
}

const struct coll_algorithm *coll_pick(enum coll_op op, size_t bytes, struct comm *c, int commutative)
{
    if ((unsigned)op >= COLL_OPS) /* never: every caller names a real operation (this tells the compiler so) */
        op = OP_BARRIER;
    int i = setting[op] >= 0 ? setting[op] : select_algorithm(op, bytes, c);
    const struct coll_algorithm *a = &coll_operations[op].algorithms[i < 0 ? 0 : i];
    if ((a->needs & NEEDS_COMMUTATIVE) && !commutative)
        a = &coll_operations[op].algorithms[0];
    return a;
}

int nocmsg_coll_set(const char *operation, const char *algorithm)
{
    int op = op_index(operation);
    if (op < 0 || !algorithm)
        return NOCMSG_ERR_ARG;
    if (strcmp(algorithm, "auto") == 0) {
        setting[op] = -1;
        return NOCMSG_SUCCESS;
    }
    int i = algo_index(op, algorithm);
    if (i < 0)
        return NOCMSG_ERR_ARG;
    setting[op] = i;
    return NOCMSG_SUCCESS;
}

const char *const *nocmsg_coll_algorithms(const char *operation)
{
    static const char *names[COLL_OPS][8];
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
