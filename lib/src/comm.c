/*
 * comm.c: communicators. A communicator is a group of world ranks in order plus a context id that keeps its
 * messages apart from every other communicator's. New context ids are agreed on by the members: each contributes
 * the set of ids it uses, and all take the lowest id free everywhere. Each communicator is allocated when it is
 * made and freed with it; nocmsg_lib.comms maps handles to them.
 */
#include "internal.h"

#include "coll/coll.h"
#include "coll/token.h"

#include <stdlib.h>
#include <string.h>

/* Tags of the context-id agreement on the private context (below the collectives' tags in coll/coll.h). */
enum { TAG_AGREE_GATHER = 1, TAG_AGREE_BCAST = 2 };
#define ID_WORDS (MAX_COMMS / 64)

/* Makes room in the handle table for handle `id` (< MAX_COMMS). */
static int comm_slot(int id)
{
    unsigned n = nocmsg_lib.comm_slots ? nocmsg_lib.comm_slots : 8;
    while (n <= (unsigned)id)
        n *= 2;
    if (n == nocmsg_lib.comm_slots)
        return NOCMSG_SUCCESS;
    struct comm **grown = realloc(nocmsg_lib.comms, n * sizeof *grown);
    if (!grown)
        return NOCMSG_ERR_NO_MEM;
    memset(grown + nocmsg_lib.comm_slots, 0, (n - nocmsg_lib.comm_slots) * sizeof *grown);
    nocmsg_lib.comms = grown;
    nocmsg_lib.comm_slots = n;
    return NOCMSG_SUCCESS;
}

struct nocmsg_fast_comm nocmsg__fast_comms[NOCMSG__FAST_COMMS];

/* Publishes communicator id (or, with c NULL, its absence) to the inline paths (nocmsg.h). */
static void comm_publish(int id, const struct comm *c)
{
    if (id < 0 || id >= NOCMSG__FAST_COMMS)
        return;
    struct nocmsg_fast_comm *f = &nocmsg__fast_comms[id];
    f->size = c ? (unsigned)c->size : 0;
    f->ctx = c ? (unsigned)c->ctx : 0;
    f->eager_hdr = c ? MAKE_HDR(PK_EAGER, c->ctx, 0, 0) : 0;
    f->world_of = c ? c->world_of : NULL;
    f->local_of = c ? c->local_of : NULL;
}

/* Sets up communicator `id` with the given world ranks (in comm-rank order). */
static int comm_make(int id, const int *world_ranks, int size)
{
    if (comm_slot(id) != NOCMSG_SUCCESS)
        return NOCMSG_ERR_NO_MEM;
    /* The layer's state shares the block: its offset is a multiple of 16, which suits any C type. */
    size_t head = (sizeof(struct comm) + 15) & ~(size_t)15, layer = nocmsg_lib.comm_layer_bytes;
    struct comm *c = calloc(1, head + layer);
    if (!c)
        return NOCMSG_ERR_NO_MEM;
    c->layer = layer ? (char *)c + head : NULL;
    c->world_of = malloc((size_t)size * sizeof(int));
    c->local_of = malloc((size_t)nocmsg_lib.size * sizeof(int));
    c->tokens = calloc((size_t)nocmsg_lib.size, 1);
    if (!c->world_of || !c->local_of || !c->tokens) {
        free(c->world_of);
        free(c->local_of);
        free(c->tokens);
        free(c);
        return NOCMSG_ERR_NO_MEM;
    }
    for (int w = 0; w < nocmsg_lib.size; w++)
        c->local_of[w] = -1;
    c->rank = -1;
    for (int i = 0; i < size; i++) {
        c->world_of[i] = world_ranks[i];
        c->local_of[world_ranks[i]] = i;
        if (world_ranks[i] == nocmsg_lib.rank)
            c->rank = i;
    }
    c->size = size;
    c->ctx = 2 * id;
    nocmsg_lib.comms[id] = c;
    comm_publish(id, c);
    return NOCMSG_SUCCESS;
}

static void comm_release(struct comm *c)
{
    comm_publish(c->ctx / 2, NULL); /* ctx is 2 * id */
    coll_mesh_release(c);
    coll_tokens_release(c);
    nocmsg_lib.comms[c->ctx / 2] = NULL;
    free(c->world_of);
    free(c->local_of);
    free(c->tokens);
    free(c);
}

int nocmsg_comm_init(void)
{
    int n = nocmsg_lib.size, me = nocmsg_lib.rank;
    int *world = malloc((size_t)n * sizeof(int));
    if (!world)
        return NOCMSG_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        world[i] = i;
    int err = comm_make(NOCMSG_COMM_WORLD, world, n);
    free(world);
    if (err == NOCMSG_SUCCESS)
        err = comm_make(NOCMSG_COMM_SELF, &me, 1);
    return err;
}

void nocmsg_comm_finalize(void)
{
    for (unsigned i = 0; i < nocmsg_lib.comm_slots; i++)
        if (nocmsg_lib.comms[i])
            comm_release(nocmsg_lib.comms[i]);
    free(nocmsg_lib.comms);
    nocmsg_lib.comms = NULL;
    nocmsg_lib.comm_slots = 0;
}

/* Every member of c gets the concatenation of every member's `bytes` of data, in comm-rank order. */
static int allgather(struct comm *c, const void *mine, void *all, size_t bytes)
{
    unsigned char *out = all;
    memcpy(out + (size_t)c->rank * bytes, mine, bytes);
    int err = NOCMSG_SUCCESS;
    if (c->rank == 0) {
        for (int r = 1; r < c->size && err == NOCMSG_SUCCESS; r++)
            err = coll_recv(out + (size_t)r * bytes, bytes, r, TAG_AGREE_GATHER, c);
        for (int r = 1; r < c->size && err == NOCMSG_SUCCESS; r++)
            err = coll_send(out, bytes * (size_t)c->size, r, TAG_AGREE_BCAST, c);
    } else {
        err = coll_send(mine, bytes, 0, TAG_AGREE_GATHER, c);
        if (err == NOCMSG_SUCCESS)
            err = coll_recv(out, bytes * (size_t)c->size, 0, TAG_AGREE_BCAST, c);
    }
    return err;
}

/* The lowest communicator id unused by every member of c (collective over c). */
static int agree_id(struct comm *c, int *id)
{
    uint64_t mine[ID_WORDS] = {0};
    for (unsigned i = 0; i < nocmsg_lib.comm_slots; i++)
        if (nocmsg_lib.comms[i])
            mine[i / 64] |= (uint64_t)1 << (i % 64);
    uint64_t *all = malloc(sizeof mine * (size_t)c->size);
    if (!all)
        return NOCMSG_ERR_NO_MEM;
    int err = allgather(c, mine, all, sizeof mine);
    if (err == NOCMSG_SUCCESS) {
        for (int r = 0; r < c->size; r++)
            for (int w = 0; w < ID_WORDS; w++)
                mine[w] |= all[(size_t)r * ID_WORDS + w];
        *id = -1;
        for (int i = 0; i < MAX_COMMS && *id < 0; i++)
            if (!(mine[i / 64] >> (i % 64) & 1))
                *id = i;
        if (*id < 0)
            err = NOCMSG_ERR_NO_MEM;
    }
    free(all);
    return err;
}

/* The live communicator behind a handle, or the error a call on it returns. */
static int live_comm(nocmsg_comm comm, struct comm **c)
{
    if (!nocmsg_lib.initialized || nocmsg_lib.finalized)
        return NOCMSG_ERR_NOT_INITIALIZED;
    *c = nocmsg_comm_get(comm);
    return *c ? NOCMSG_SUCCESS : NOCMSG_ERR_COMM;
}

int nocmsg_comm_rank(nocmsg_comm comm, int *rank)
{
    struct comm *c;
    int err = live_comm(comm, &c);
    if (err != NOCMSG_SUCCESS)
        return err;
    if (!rank)
        return NOCMSG_ERR_ARG;
    *rank = c->rank;
    return NOCMSG_SUCCESS;
}

int nocmsg_comm_size(nocmsg_comm comm, int *size)
{
    struct comm *c;
    int err = live_comm(comm, &c);
    if (err != NOCMSG_SUCCESS)
        return err;
    if (!size)
        return NOCMSG_ERR_ARG;
    *size = c->size;
    return NOCMSG_SUCCESS;
}

int nocmsg_comm_world_rank(nocmsg_comm comm, int rank, int *world_rank)
{
    struct comm *c;
    int err = live_comm(comm, &c);
    if (err != NOCMSG_SUCCESS)
        return err;
    if (!world_rank)
        return NOCMSG_ERR_ARG;
    if (rank < 0 || rank >= c->size)
        return NOCMSG_ERR_RANK;
    *world_rank = c->world_of[rank];
    return NOCMSG_SUCCESS;
}

int nocmsg_comm_dup(nocmsg_comm comm, nocmsg_comm *newcomm)
{
    struct comm *c;
    int err = live_comm(comm, &c);
    if (err != NOCMSG_SUCCESS)
        return err;
    if (!newcomm)
        return NOCMSG_ERR_ARG;
    int id;
    err = agree_id(c, &id);
    if (err == NOCMSG_SUCCESS)
        err = comm_make(id, c->world_of, c->size);
    *newcomm = err == NOCMSG_SUCCESS ? id : NOCMSG_COMM_NULL;
    return err;
}

struct split_entry {
    int color, key, rank;
};

static int by_key_then_rank(const void *a, const void *b)
{
    const struct split_entry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int nocmsg_comm_split(nocmsg_comm comm, int color, int key, nocmsg_comm *newcomm)
{
    struct comm *c;
    int err = live_comm(comm, &c);
    if (err != NOCMSG_SUCCESS)
        return err;
    if (!newcomm || (color < 0 && color != NOCMSG_UNDEFINED))
        return NOCMSG_ERR_ARG;
    struct split_entry mine = {color, key, c->rank};
    struct split_entry *all = malloc(sizeof mine * (size_t)c->size);
    int *members = malloc(sizeof(int) * (size_t)c->size);
    int id = -1;
    err = all && members ? NOCMSG_SUCCESS : NOCMSG_ERR_NO_MEM;
    if (err == NOCMSG_SUCCESS)
        err = allgather(c, &mine, all, sizeof mine);
    /* Every member takes part in agreeing on the id, even one that ends up in no communicator. */
    if (err == NOCMSG_SUCCESS)
        err = agree_id(c, &id);
    *newcomm = NOCMSG_COMM_NULL;
    if (err == NOCMSG_SUCCESS && color != NOCMSG_UNDEFINED) {
        int n = 0;
        for (int r = 0; r < c->size; r++)
            if (all[r].color == color)
                all[n++] = all[r];
        qsort(all, (size_t)n, sizeof *all, by_key_then_rank);
        for (int i = 0; i < n; i++)
            members[i] = c->world_of[all[i].rank];
        err = comm_make(id, members, n);
        if (err == NOCMSG_SUCCESS)
            *newcomm = id;
    }
    free(all);
    free(members);
    return err;
}

int nocmsg_comm_free(nocmsg_comm *comm)
{
    if (!nocmsg_lib.initialized || nocmsg_lib.finalized)
        return NOCMSG_ERR_NOT_INITIALIZED;
    if (!comm)
        return NOCMSG_ERR_ARG;
    struct comm *c = nocmsg_comm_get(*comm);
    if (!c || *comm == NOCMSG_COMM_WORLD || *comm == NOCMSG_COMM_SELF)
        return NOCMSG_ERR_COMM;
    comm_release(c);
    *comm = NOCMSG_COMM_NULL;
    return NOCMSG_SUCCESS;
}
