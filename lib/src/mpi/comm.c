/*
 * comm.c: MPI's communicators, groups and Cartesian topologies.
 *
 * Communicators are libnocmsg's: MPI_Comm_create, MPI_Comm_split_type and the topology constructors are splits, and
 * the layer's state of each (error handler, name, topology, attributes) is mpi_comm_state (mpi_impl.h). A group is a list of
 * world ranks in group order, in a table of this file: handle 0 is MPI_GROUP_NULL, 1 MPI_GROUP_EMPTY, the others
 * are entries from 2 up, reused once freed. A Cartesian grid is numbered row-major (the last dimension varies
 * fastest) over the communicator's ranks in order, since reorder is ignored; MPI_Comm_dup copies it.
 */
#include "mpi_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The live communicator behind `comm`, into `c`; otherwise returns MPI_ERR_COMM (MPI_ERR_OTHER outside MPI_Init ..
 * MPI_Finalize), raised on MPI_COMM_WORLD since a dead handle has no error handler. */
#define LIVE_COMM(comm, c)                                                                                      \
    do {                                                                                                        \
        (c) = mpi_up() ? nocmsg_comm_get(comm) : NULL;                                                          \
        if (!(c))                                                                                               \
            MPI_RETURN(MPI_COMM_WORLD, mpi_up() ? MPI_ERR_COMM : MPI_ERR_OTHER);                                \
    } while (0)

/* ---- groups ---- */

struct group {
    int used;
    int size;
    int *world; /* group rank -> world rank */
};

static struct group *groups; /* indexed by handle; entries 0 and 1 stay unused */
static int ngroups;
static const struct group empty_group = {1, 0, NULL};

/* The group behind a handle, or NULL. */
static const struct group *group_get(MPI_Group g)
{
    if (g == MPI_GROUP_EMPTY)
        return &empty_group;
    if (g < 2 || g >= ngroups || !groups[g].used)
        return NULL;
    return &groups[g];
}

/* The group behind `g`, into `p`; otherwise returns MPI_ERR_GROUP (MPI_ERR_OTHER outside MPI_Init .. MPI_Finalize). */
#define LIVE_GROUP(g, p)                                                                                        \
    do {                                                                                                        \
        (p) = group_get(g);                                                                                     \
        if (!mpi_up() || !(p))                                                                                  \
            MPI_RETURN(MPI_COMM_WORLD, mpi_up() ? MPI_ERR_GROUP : MPI_ERR_OTHER);                               \
    } while (0)

/* A new group of the n world ranks in `world` (malloc'd, taken over: freed on failure or when n is 0, which gives
 * MPI_GROUP_EMPTY). */
static int group_new(int *world, int n, MPI_Group *out)
{
    if (n == 0) {
        free(world);
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    int h = 2;
    while (h < ngroups && groups[h].used)
        h++;
    if (h >= ngroups) {
        int grown = ngroups ? 2 * ngroups : 16;
        struct group *more = realloc(groups, sizeof *groups * (size_t)grown);
        if (!more) {
            free(world);
            return MPI_ERR_NO_MEM;
        }
        memset(more + ngroups, 0, sizeof *groups * (size_t)(grown - ngroups));
        groups = more;
        ngroups = grown;
    }
    groups[h] = (struct group){1, n, world};
    *out = h;
    return MPI_SUCCESS;
}

/* A group made of some of g's members: those with keep[i] set, in g's order (keep = NULL: all). */
static int group_subset(const struct group *g, const unsigned char *keep, MPI_Group *out)
{
    int *world = malloc(sizeof(int) * (size_t)(g->size + 1));
    if (!world)
        return MPI_ERR_NO_MEM;
    int n = 0;
    for (int i = 0; i < g->size; i++)
        if (!keep || keep[i])
            world[n++] = g->world[i];
    return group_new(world, n, out);
}

/* For every world rank, its rank in g or -1 (malloc'd; NULL when out of memory). */
static int *group_positions(const struct group *g)
{
    int *pos = malloc(sizeof(int) * (size_t)nocmsg_lib.size);
    if (!pos)
        return NULL;
    for (int w = 0; w < nocmsg_lib.size; w++)
        pos[w] = -1;
    for (int i = 0; i < g->size; i++)
        pos[g->world[i]] = i;
    return pos;
}

/* The rank of world rank w in g, or MPI_UNDEFINED. */
static int group_rank_of(const struct group *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w)
            return i;
    return MPI_UNDEFINED;
}

int MPI_Group_size(MPI_Group group, int *size)
{
    const struct group *g;
    LIVE_GROUP(group, g);
    if (!size)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *size = g->size;
    return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int *rank)
{
    const struct group *g;
    LIVE_GROUP(group, g);
    if (!rank)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *rank = group_rank_of(g, nocmsg_lib.rank);
    return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
    const struct group *g1, *g2;
    LIVE_GROUP(group1, g1);
    LIVE_GROUP(group2, g2);
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    /* All ranks are checked before any result is written. */
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_RANK);
    if (n == 0)
        return MPI_SUCCESS;
    int *pos = group_positions(g2);
    if (!pos)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else {
            int p = pos[g1->world[ranks1[i]]];
            ranks2[i] = p >= 0 ? p : MPI_UNDEFINED;
        }
    }
    free(pos);
    return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    const struct group *g1, *g2;
    LIVE_GROUP(group1, g1);
    LIVE_GROUP(group2, g2);
    if (!result)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    if (g1->size != g2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int in_order = 1;
    for (int i = 0; i < g1->size && in_order; i++)
        in_order = g1->world[i] == g2->world[i];
    if (in_order) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int *pos = group_positions(g2);
    if (!pos)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    *result = MPI_SIMILAR;
    for (int i = 0; i < g1->size; i++)
        if (pos[g1->world[i]] < 0)
            *result = MPI_UNEQUAL;
    free(pos);
    return MPI_SUCCESS;
}

/* The set operations of MPI 3.1 §6.3.2, ordered as the first group, then (union) the second group's others. */
enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int group_set_op(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, enum set_op op)
{
    const struct group *g1 = group_get(group1), *g2 = group_get(group2);
    if (!g1 || !g2)
        return MPI_ERR_GROUP;
    if (!newgroup)
        return MPI_ERR_ARG;
    int *world = malloc(sizeof(int) * (size_t)(g1->size + g2->size + 1));
    int *in1 = group_positions(g1), *in2 = group_positions(g2);
    if (!world || !in1 || !in2) {
        free(world);
        free(in1);
        free(in2);
        return MPI_ERR_NO_MEM;
    }
    int n = 0;
    for (int i = 0; i < g1->size; i++) {
        int also_in_2 = in2[g1->world[i]] >= 0;
        if (op == SET_UNION || (op == SET_INTERSECTION) == also_in_2)
            world[n++] = g1->world[i];
    }
    if (op == SET_UNION)
        for (int i = 0; i < g2->size; i++)
            if (in1[g2->world[i]] < 0)
                world[n++] = g2->world[i];
    free(in1);
    free(in2);
    return group_new(world, n, newgroup);
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    MPI_RETURN(MPI_COMM_WORLD, group_set_op(group1, group2, newgroup, SET_UNION));
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    MPI_RETURN(MPI_COMM_WORLD, group_set_op(group1, group2, newgroup, SET_INTERSECTION));
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    MPI_RETURN(MPI_COMM_WORLD, group_set_op(group1, group2, newgroup, SET_DIFFERENCE));
}

/* Marks the n ranks of g listed in `ranks` in `chosen` (g->size entries, zeroed here): MPI_ERR_RANK for a rank
 * outside g or listed twice (the standard requires distinct ranks). */
static int mark_ranks(const struct group *g, int n, const int ranks[], unsigned char *chosen)
{
    memset(chosen, 0, (size_t)g->size + 1);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || chosen[ranks[i]])
            return MPI_ERR_RANK;
        chosen[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    const struct group *g;
    LIVE_GROUP(group, g);
    if (n < 0 || (n > 0 && !ranks) || !newgroup)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    unsigned char *chosen = malloc((size_t)g->size + 1);
    int *world = malloc(sizeof(int) * (size_t)(n + 1));
    int err = chosen && world ? mark_ranks(g, n, ranks, chosen) : MPI_ERR_NO_MEM;
    free(chosen);
    if (err != MPI_SUCCESS) {
        free(world);
        MPI_RETURN(MPI_COMM_WORLD, err);
    }
    for (int i = 0; i < n; i++)
        world[i] = g->world[ranks[i]];
    MPI_RETURN(MPI_COMM_WORLD, group_new(world, n, newgroup));
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    const struct group *g;
    LIVE_GROUP(group, g);
    if (n < 0 || (n > 0 && !ranks) || !newgroup)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    unsigned char *excluded = malloc((size_t)g->size + 1);
    int err = excluded ? mark_ranks(g, n, ranks, excluded) : MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS) {
        for (int i = 0; i < g->size; i++)
            excluded[i] = !excluded[i];
        err = group_subset(g, excluded, newgroup);
    }
    free(excluded);
    MPI_RETURN(MPI_COMM_WORLD, err);
}

/* Marks the ranks of n triplets (first, last, stride) in `chosen` (g->size entries, zeroed here). As in MPICH, every
 * fault is MPI_ERR_ARG: a zero stride, a stride leading away from last, a computed rank outside g or twice. */
static int mark_ranges(const struct group *g, int n, int ranges[][3], unsigned char *chosen)
{
    memset(chosen, 0, (size_t)g->size + 1);
    for (int i = 0; i < n; i++) {
        long long first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last))
            return MPI_ERR_ARG;
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (r < 0 || r >= g->size || chosen[r])
                return MPI_ERR_ARG;
            chosen[r] = 1;
        }
    }
    return MPI_SUCCESS;
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    const struct group *g;
    LIVE_GROUP(group, g);
    if (n < 0 || (n > 0 && !ranges) || !newgroup)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    unsigned char *chosen = malloc((size_t)g->size + 1);
    int *world = malloc(sizeof(int) * (size_t)(g->size + 1));
    int err = chosen && world ? mark_ranges(g, n, ranges, chosen) : MPI_ERR_NO_MEM;
    free(chosen);
    if (err != MPI_SUCCESS) {
        free(world);
        MPI_RETURN(MPI_COMM_WORLD, err);
    }
    /* In the order of the ranges (the checks above made every computed rank valid and distinct). */
    int count = 0;
    for (int i = 0; i < n; i++) {
        long long first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride)
            world[count++] = g->world[r];
    }
    MPI_RETURN(MPI_COMM_WORLD, group_new(world, count, newgroup));
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    const struct group *g;
    LIVE_GROUP(group, g);
    if (n < 0 || (n > 0 && !ranges) || !newgroup)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    unsigned char *excluded = malloc((size_t)g->size + 1);
    int err = excluded ? mark_ranges(g, n, ranges, excluded) : MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS) {
        for (int i = 0; i < g->size; i++)
            excluded[i] = !excluded[i];
        err = group_subset(g, excluded, newgroup);
    }
    free(excluded);
    MPI_RETURN(MPI_COMM_WORLD, err);
}

int MPI_Group_free(MPI_Group *group)
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    if (!group)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    if (!group_get(*group))
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_GROUP);
    /* Freeing MPI_GROUP_EMPTY only clears the handle (MPICH allows it, and programs free what Group_incl & co. gave
     * them, which may be MPI_GROUP_EMPTY). */
    if (*group != MPI_GROUP_EMPTY) {
        free(groups[*group].world);
        groups[*group] = (struct group){0, 0, NULL};
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

MPI_Fint MPI_Group_c2f(MPI_Group group)
{
    return group;
}

MPI_Group MPI_Group_f2c(MPI_Fint group)
{
    return group;
}

/* ---- communicators ---- */

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    if (!size)
        MPI_RETURN(comm, MPI_ERR_ARG);
    *size = c->size;
    return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    if (!rank)
        MPI_RETURN(comm, MPI_ERR_ARG);
    *rank = c->rank;
    return MPI_SUCCESS;
}

/* A Cartesian topology for a new communicator: the dimensions of dims and periods that keep selects (keep = NULL:
 * all of them). */
struct grid {
    int ndims;
    const int *dims, *periods, *keep;
};

/* Gives `comm` the topology of `grid`; it goes with the communicator (env.c's mpi_comm_freeing frees each part). */
static int topo_attach(MPI_Comm comm, const struct grid *grid)
{
    int n = 0;
    for (int i = 0; i < grid->ndims; i++)
        n += !grid->keep || grid->keep[i];
    struct mpi_topo *t = malloc(sizeof *t);
    int *dims = malloc(sizeof(int) * (size_t)(n + 1)), *periods = malloc(sizeof(int) * (size_t)(n + 1));
    if (!t || !dims || !periods) {
        free(t);
        free(dims);
        free(periods);
        return MPI_ERR_NO_MEM;
    }
    n = 0;
    for (int i = 0; i < grid->ndims; i++)
        if (!grid->keep || grid->keep[i]) {
            dims[n] = grid->dims[i];
            periods[n++] = grid->periods[i] != 0;
        }
    *t = (struct mpi_topo){n, dims, periods};
    mpi_comm_state(comm)->topo = t;
    return MPI_SUCCESS;
}

/* The end of every constructor: `err` from libnocmsg's dup or split of `parent`; a new communicator gets the MPI
 * state (error handler, and with copy_attrs the attributes) and the topology of `grid` (if not NULL), or if that
 * fails is freed again. */
static int comm_created(MPI_Comm parent, MPI_Comm *newcomm, int copy_attrs, const struct grid *grid, int err)
{
    if (err != MPI_SUCCESS) {
        *newcomm = MPI_COMM_NULL;
        return err;
    }
    if (*newcomm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    err = mpi_comm_created(parent, *newcomm, copy_attrs);
    if (err == MPI_SUCCESS && grid)
        err = topo_attach(*newcomm, grid);
    if (err != MPI_SUCCESS) {
        mpi_comm_freeing(*newcomm); /* deletes the attributes copied before the failure */
        nocmsg_comm_free(newcomm);
    }
    return err;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    (void)c;
    if (!newcomm)
        MPI_RETURN(comm, MPI_ERR_ARG);
    int err = nocmsg_comm_dup(comm, newcomm);
    /* The duplicate has the same topology (MPI 3.1 §6.4.2) besides the attributes. */
    const struct mpi_topo *t = mpi_comm_state(comm)->topo;
    struct grid same = {t ? t->ndims : 0, t ? t->dims : NULL, t ? t->periods : NULL, NULL};
    MPI_RETURN(comm, comm_created(comm, newcomm, 1, t ? &same : NULL, err));
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    if (!newcomm)
        MPI_RETURN(comm, MPI_ERR_ARG);
    MPI_RETURN(comm, comm_created(comm, newcomm, 0, NULL, nocmsg_comm_split(comm, color, key, newcomm)));
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    (void)info;
    struct comm *c;
    LIVE_COMM(comm, c);
    if (!newcomm)
        MPI_RETURN(comm, MPI_ERR_ARG);
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        MPI_RETURN(comm, MPI_ERR_ARG);
    }
    /* No two ranks share memory (mpi.h), so each is a color of its own. */
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED : c->rank;
    MPI_RETURN(comm, comm_created(comm, newcomm, 0, NULL, nocmsg_comm_split(comm, color, key, newcomm)));
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    const struct group *g = group_get(group);
    if (!g)
        MPI_RETURN(comm, MPI_ERR_GROUP);
    if (!newcomm)
        MPI_RETURN(comm, MPI_ERR_ARG);
    /* MPI 3.1 6.4.2: ranks may pass different groups, which are then disjoint, and get a communicator for each.
     * A group is named by its lowest member's rank in comm (disjoint groups have different ones) as the colour, and
     * members take their rank in the group as the key, so each new communicator is ordered as its group. */
    int lowest = INT_MAX;
    for (int i = 0; i < g->size; i++) {
        int local = c->local_of[g->world[i]];
        if (local < 0)
            MPI_RETURN(comm, MPI_ERR_GROUP);
        if (local < lowest)
            lowest = local;
    }
    int mine = group_rank_of(g, nocmsg_lib.rank);
    int color = mine == MPI_UNDEFINED ? NOCMSG_UNDEFINED : lowest;
    MPI_RETURN(comm, comm_created(comm, newcomm, 0, NULL, nocmsg_comm_split(comm, color, mine, newcomm)));
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    if (!comm)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    if (!nocmsg_comm_get(*comm))
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_COMM);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        MPI_RETURN(*comm, MPI_ERR_COMM);
    struct mpi_comm_state *st = mpi_comm_state(*comm);
    int pending = st->pending;
    MPI_Errhandler eh = st->errhandler;
    /* A failing attribute delete function makes the free fail: the communicator stays. */
    int err = mpi_comm_freeing(*comm);
    if (err != MPI_SUCCESS)
        MPI_RETURN(*comm, err);
    if (pending > 0) {
        /* MPI 3.1 6.4.3: pending operations complete normally. Receives still need the communicator (to give the
         * source's rank in it), so it stays, and with it its context, handle and error handler, until the last one
         * completes. */
        st->pending = pending;
        st->errhandler = eh;
        st->free_pending = 1;
        *comm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    MPI_RETURN(MPI_COMM_WORLD, nocmsg_comm_free(comm));
}

void mpi_comm_unhold(MPI_Comm comm)
{
    struct mpi_comm_state *st = mpi_comm_state(comm);
    if (st && --st->pending == 0 && st->free_pending)
        nocmsg_comm_free(&comm);
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    struct comm *c1, *c2;
    LIVE_COMM(comm1, c1);
    LIVE_COMM(comm2, c2);
    if (!result)
        MPI_RETURN(comm1, MPI_ERR_ARG);
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (c1->size != c2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int in_order = 1, same_members = 1;
    for (int i = 0; i < c1->size; i++) {
        in_order = in_order && c1->world_of[i] == c2->world_of[i];
        same_members = same_members && c2->local_of[c1->world_of[i]] >= 0;
    }
    *result = in_order ? MPI_CONGRUENT : same_members ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    if (!group)
        MPI_RETURN(comm, MPI_ERR_ARG);
    int *world = malloc(sizeof(int) * (size_t)c->size);
    if (!world)
        MPI_RETURN(comm, MPI_ERR_NO_MEM);
    memcpy(world, c->world_of, sizeof(int) * (size_t)c->size);
    MPI_RETURN(comm, group_new(world, c->size, group));
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    (void)c;
    if (!flag)
        MPI_RETURN(comm, MPI_ERR_ARG);
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    (void)c;
    if (!comm_name)
        MPI_RETURN(comm, MPI_ERR_ARG);
    /* Longer names are cut, as MPICH does. */
    char *name = mpi_comm_state(comm)->name;
    strncpy(name, comm_name, MPI_MAX_OBJECT_NAME - 1);
    name[MPI_MAX_OBJECT_NAME - 1] = 0;
    return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    (void)c;
    if (!comm_name || !resultlen)
        MPI_RETURN(comm, MPI_ERR_ARG);
    strcpy(comm_name, mpi_comm_state(comm)->name);
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}

MPI_Fint MPI_Comm_c2f(MPI_Comm comm)
{
    return comm;
}

MPI_Comm MPI_Comm_f2c(MPI_Fint comm)
{
    return comm;
}

/* ---- Cartesian topologies ---- */

/* The topology of a live communicator `comm` into `t`; otherwise returns MPI_ERR_TOPOLOGY. */
#define CART_OF(comm, t)                                                                                        \
    do {                                                                                                        \
        (t) = mpi_comm_state(comm)->topo;                                                                       \
        if (!(t))                                                                                               \
            MPI_RETURN(comm, MPI_ERR_TOPOLOGY);                                                                 \
    } while (0)

/* Checks a grid description: ndims >= 0, dimensions > 0 (MPI_ERR_DIMS); gives the number of its points, capped at
 * INT_MAX + 1 so that a product too large for any communicator cannot overflow. */
static int grid_points(int ndims, const int dims[], long long *points)
{
    *points = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return MPI_ERR_DIMS;
        *points *= dims[i];
        if (*points > INT_MAX)
            *points = (long long)INT_MAX + 1;
    }
    return MPI_SUCCESS;
}

/* The coordinate in dimension i of grid rank r (row-major: the last dimension varies fastest). */
static int grid_coord(const struct mpi_topo *t, int r, int i)
{
    for (int j = t->ndims - 1; j > i; j--)
        r /= t->dims[j];
    return r % t->dims[i];
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart)
{
    (void)reorder;
    struct comm *c;
    LIVE_COMM(comm_old, c);
    if (ndims < 0 || (ndims > 0 && (!dims || !periods)) || !comm_cart)
        MPI_RETURN(comm_old, MPI_ERR_ARG);
    long long points;
    int err = grid_points(ndims, dims, &points);
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm_old, err);
    /* A grid larger than the communicator is MPI_ERR_ARG, as in MPICH (there is no topology yet to be wrong). */
    if (points > c->size)
        MPI_RETURN(comm_old, MPI_ERR_ARG);
    /* Rank i of the grid is rank i of comm_old; the ranks beyond the grid get MPI_COMM_NULL. A 0-dimensional grid
     * is one point, rank 0. */
    int color = c->rank < points ? 0 : NOCMSG_UNDEFINED;
    err = nocmsg_comm_split(comm_old, color, c->rank, comm_cart);
    struct grid grid = {ndims, dims, periods, NULL};
    MPI_RETURN(comm_old, comm_created(comm_old, comm_cart, 0, &grid, err));
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    struct comm *c;
    const struct mpi_topo *t;
    LIVE_COMM(comm, c);
    CART_OF(comm, t);
    /* Vectors shorter than the grid's dimensions get its first maxdims dimensions. */
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    if (maxdims < 0 || (n > 0 && (!dims || !periods || !coords)))
        MPI_RETURN(comm, MPI_ERR_ARG);
    for (int i = 0; i < n; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = grid_coord(t, c->rank, i);
    }
    return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    struct comm *c;
    const struct mpi_topo *t;
    LIVE_COMM(comm, c);
    CART_OF(comm, t);
    (void)c;
    if (!ndims)
        MPI_RETURN(comm, MPI_ERR_ARG);
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    struct comm *c;
    const struct mpi_topo *t;
    LIVE_COMM(comm, c);
    CART_OF(comm, t);
    (void)c;
    if (!rank || (t->ndims > 0 && !coords))
        MPI_RETURN(comm, MPI_ERR_ARG);
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int d = t->dims[i], x = coords[i];
        if (t->periods[i])
            x = (x % d + d) % d;
        else if (x < 0 || x >= d)
            MPI_RETURN(comm, MPI_ERR_ARG); /* as MPICH and Open MPI: a coordinate, not a rank, is wrong */
        r = r * d + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    struct comm *c;
    const struct mpi_topo *t;
    LIVE_COMM(comm, c);
    CART_OF(comm, t);
    if (rank < 0 || rank >= c->size)
        MPI_RETURN(comm, MPI_ERR_RANK);
    if (maxdims < t->ndims || (t->ndims > 0 && !coords))
        MPI_RETURN(comm, MPI_ERR_ARG);
    for (int i = 0; i < t->ndims; i++)
        coords[i] = grid_coord(t, rank, i);
    return MPI_SUCCESS;
}

/* The rank at coordinate x (any integer) in dimension i, the others those of grid rank `me`: MPI_PROC_NULL off the
 * edge of a non-periodic dimension. */
static int shifted_rank(const struct mpi_topo *t, int me, int i, long long x)
{
    long long d = t->dims[i];
    if (t->periods[i])
        x = (x % d + d) % d;
    else if (x < 0 || x >= d)
        return MPI_PROC_NULL;
    long long stride = 1;
    for (int j = t->ndims - 1; j > i; j--)
        stride *= t->dims[j];
    return (int)(me + (x - grid_coord(t, me, i)) * stride);
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    struct comm *c;
    const struct mpi_topo *t;
    LIVE_COMM(comm, c);
    CART_OF(comm, t);
    /* A 0-dimensional grid has no direction to shift along (MPICH says MPI_ERR_TOPOLOGY too). */
    if (t->ndims == 0)
        MPI_RETURN(comm, MPI_ERR_TOPOLOGY);
    if (direction < 0 || direction >= t->ndims || !rank_source || !rank_dest)
        MPI_RETURN(comm, MPI_ERR_ARG);
    long long x = grid_coord(t, c->rank, direction);
    *rank_dest = shifted_rank(t, c->rank, direction, x + disp);
    *rank_source = shifted_rank(t, c->rank, direction, x - disp);
    return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    struct comm *c;
    const struct mpi_topo *t;
    LIVE_COMM(comm, c);
    CART_OF(comm, t);
    if (!newcomm || (t->ndims > 0 && !remain_dims))
        MPI_RETURN(comm, MPI_ERR_ARG);
    /* The coordinates in the dropped dimensions pick the subgrid, those in the kept ones the rank in it. With no
     * dimension kept, every rank is a 0-dimensional grid of its own (MPICH gives one only to rank 0). */
    int color = 0, key = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = grid_coord(t, c->rank, i);
        if (remain_dims[i])
            key = key * t->dims[i] + x;
        else
            color = color * t->dims[i] + x;
    }
    int err = nocmsg_comm_split(comm, color, key, newcomm);
    struct grid sub = {t->ndims, t->dims, t->periods, remain_dims};
    MPI_RETURN(comm, comm_created(comm, newcomm, 0, &sub, err));
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    (void)periods;
    struct comm *c;
    LIVE_COMM(comm, c);
    if (ndims < 0 || (ndims > 0 && !dims) || !newrank)
        MPI_RETURN(comm, MPI_ERR_ARG);
    long long points;
    int err = grid_points(ndims, dims, &points);
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    if (points > c->size)
        MPI_RETURN(comm, MPI_ERR_DIMS); /* as MPICH */
    /* What MPI_Cart_create does: the identity, for the ranks the grid has room for. */
    *newrank = c->rank < points ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status)
{
    struct comm *c;
    LIVE_COMM(comm, c);
    (void)c;
    if (!status)
        MPI_RETURN(comm, MPI_ERR_ARG);
    *status = mpi_comm_state(comm)->topo ? MPI_CART : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- MPI_Dims_create ----
 *
 * The free dimensions get the most even factorisation of what the fixed ones leave: the smallest difference between
 * the largest and the smallest factor, and among those the one whose smallest factor is largest, then its second
 * smallest, and so on; in non-increasing order. (That is what MPICH's search returns: compared on every nnodes up
 * to 3000 in 1 to 7 dimensions and thousands of larger ones.) A depth-first search over the divisors finds it. */

/* Whether base^exp <= limit, without overflow (base >= 1). */
static int power_at_most(long long base, int exp, long long limit)
{
    long long p = 1;
    for (int i = 0; i < exp; i++) {
        if (p > limit / base)
            return 0;
        p *= base;
    }
    return p <= limit;
}

/* floor(x^(1/k)) for x, k >= 1. */
static long long int_root(long long x, int k)
{
    long long lo = 1, hi = x;
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (power_at_most(mid, k, x))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

struct dims_search {
    const int *divisors; /* of the number factorised, increasing */
    int ndivisors;
    int k;               /* factors wanted */
    int *trial, *best;   /* non-increasing */
    int best_spread;     /* best[0] - best[k - 1], or -1 before the first factorisation */
};

/* Whether a is more even than b (two factorisations with the same spread): a larger smallest factor, then a larger
 * second smallest... */
static int more_even(const int *a, const int *b, int k)
{
    for (int i = k - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] > b[i];
    return 0;
}

/* Tries every trial[i..k-1], non-increasing and at most trial[i - 1], with product rem. */
static void dims_search(struct dims_search *s, int i, int rem)
{
    int left = s->k - i;
    if (left == 1) {
        if (i > 0 && rem > s->trial[i - 1])
            return;
        s->trial[i] = rem;
        int spread = s->trial[0] - rem;
        if (s->best_spread < 0 || spread < s->best_spread ||
            (spread == s->best_spread && more_even(s->trial, s->best, s->k))) {
            s->best_spread = spread;
            memcpy(s->best, s->trial, sizeof(int) * (size_t)s->k);
        }
        return;
    }
    int limit = i > 0 ? s->trial[i - 1] : rem;
    for (int j = 0; j < s->ndivisors && s->divisors[j] <= limit; j++) {
        int d = s->divisors[j];
        /* The other factors are at most d, so d^left must reach rem. */
        if (rem % d || power_at_most(d, left, (long long)rem - 1))
            continue;
        /* The smallest of the others is at most the (left-1)-th root of rem / d, so the spread is at least the
         * largest factor minus that root, which only grows with d: stop once it is worse than the best. */
        int largest = i > 0 ? s->trial[0] : d;
        if (s->best_spread >= 0 && largest - int_root(rem / d, left - 1) > s->best_spread)
            break;
        s->trial[i] = d;
        dims_search(s, i + 1, rem / d);
    }
}

static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Factorises n >= 1 into k >= 1 factors as evenly as possible, non-increasing, into out. */
static int dims_balance(int n, int k, int *out)
{
    /* Prime factors with multiplicity: 31 at most for an int. */
    int primes[32], nprimes = 0, m = n;
    for (int p = 2; (long long)p * p <= m; p++)
        while (m % p == 0) {
            primes[nprimes++] = p;
            m /= p;
        }
    if (m > 1)
        primes[nprimes++] = m;
    if (k >= nprimes) {
        /* Room for every prime alone: the largest prime is the smallest possible largest factor, and the rest 1s. */
        for (int i = 0; i < k; i++)
            out[i] = i < nprimes ? primes[nprimes - 1 - i] : 1;
        return MPI_SUCCESS;
    }
    /* k < nprimes <= 31 from here, so the search goes at most 30 calls deep. */
    int ndivisors = 1;
    for (int i = 0; i < nprimes;) {
        int p = primes[i], e = 0;
        for (; i < nprimes && primes[i] == p; i++)
            e++;
        ndivisors *= e + 1;
    }
    int *divisors = malloc(sizeof(int) * (size_t)ndivisors), *trial = malloc(sizeof(int) * 2 * (size_t)k);
    if (!divisors || !trial) {
        free(divisors);
        free(trial);
        return MPI_ERR_NO_MEM;
    }
    /* Each prime p with exponent e multiplies the divisors so far by p, p^2 ... p^e. */
    int count = 1;
    divisors[0] = 1;
    for (int i = 0; i < nprimes;) {
        int p = primes[i], have = count;
        long long power = 1;
        for (; i < nprimes && primes[i] == p; i++) {
            power *= p;
            for (int j = 0; j < have; j++)
                divisors[count++] = (int)(divisors[j] * power);
        }
    }
    qsort(divisors, (size_t)count, sizeof(int), ascending);
    struct dims_search s = {divisors, count, k, trial, trial + k, -1};
    dims_search(&s, 0, n);
    memcpy(out, s.best, sizeof(int) * (size_t)k);
    free(divisors);
    free(trial);
    return MPI_SUCCESS;
}

int MPI_Dims_create(int nnodes, int ndims, int dims[])
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    if (ndims < 0)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    if (ndims == 0)
        return MPI_SUCCESS;
    /* nnodes = 0 would need a 0 dimension, which no grid has (MPICH never returns). */
    if (nnodes <= 0 || !dims)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    long long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_DIMS);
        if (dims[i] == 0)
            nfree++;
        else if ((fixed *= dims[i]) > nnodes)
            MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_DIMS);
    }
    if (nnodes % fixed)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_DIMS);
    if (nfree == 0)
        return MPI_SUCCESS;
    int *factors = malloc(sizeof(int) * (size_t)nfree);
    int err = factors ? dims_balance((int)(nnodes / fixed), nfree, factors) : MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS)
        for (int i = 0, j = 0; i < ndims; i++)
            if (dims[i] == 0)
                dims[i] = factors[j++];
    free(factors);
    MPI_RETURN(MPI_COMM_WORLD, err);
}
