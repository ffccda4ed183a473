/* bcast/modmpb.c: the SCC study's ModMPB broadcast: the ranks form ceil(n / 12) groups (contiguous comm ranks, so
 * rows of the mesh); the root hands each chunk to one temporary broadcaster per group (the member nearest the
 * group's centre; the root for its own group), and each group reads it from its broadcaster's MPB, so no MPB has
 * more than about a dozen readers. Every rank takes a chunk into its own MPB first and lets its source go before it
 * copies the chunk out, so a broadcaster's slot is free again sooner (a broadcaster's readers read that copy).
 * MPB chips only. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
#include <stdlib.h>

enum { GROUP = 12 };

int bcast_modmpb(void *buf, size_t bytes, int root, struct comm *c)
{
    int n = c->size, groups = (n + GROUP - 1) / GROUP;
    int *children = malloc((size_t)n * sizeof(int)), *members = malloc((size_t)n * sizeof(int));
    int *caster = calloc((size_t)groups, sizeof(int));
    if (!children || !members || !caster) {
        free(children);
        free(members);
        free(caster);
        return NOCMSG_ERR_NO_MEM;
    }
    /* Group g holds comm ranks [start(g), start(g + 1)). */
#define START(g) ((int)((long)(g) * n / groups))
    int mine = 0;
    for (int g = 0; g < groups; g++) {
        int lo = START(g), hi = START(g + 1), count = 0;
        if (c->rank >= lo && c->rank < hi)
            mine = g;
        if (root >= lo && root < hi) {
            caster[g] = root;
            continue;
        }
        for (int r = lo; r < hi; r++)
            members[count++] = r;
        caster[g] = members[scc_nearest_center(c, members, count)];
    }
    struct scc_role role = {.parent = -1, .parent_medium = SCC_MPB, .children = children, .medium = SCC_MPB,
                            .stage = 1};
    if (c->rank == root) {
        for (int g = 0; g < groups; g++)
            if (caster[g] != root)
                children[role.nchild++] = caster[g];
    } else {
        role.parent = c->rank == caster[mine] ? root : caster[mine];
    }
    if (c->rank == caster[mine])
        for (int r = START(mine); r < START(mine + 1); r++)
            if (r != c->rank)
                children[role.nchild++] = r;
#undef START
    int err = scc_bcast(buf, bytes, c, &role);
    free(children);
    free(members);
    free(caster);
    return err;
}
#endif
