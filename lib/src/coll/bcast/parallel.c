/* bcast/parallel.c: the SCC study's parallel broadcast: the mesh-parallel tree (coll_mesh_tree: along the root's
 * row, then along every column, ranks of one router chained), each hop an MPB handshake per chunk, a chunk going on
 * while the next arrives. MPB chips only. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
int bcast_parallel(void *buf, size_t bytes, int root, struct comm *c)
{
    const struct coll_tree *t = coll_mesh_tree(c, root);
    if (!t)
        return NOCMSG_ERR_NO_MEM;
    struct scc_role role = {.parent = t->parent, .parent_medium = SCC_MPB, .nchild = t->nchild,
                            .children = t->children, .medium = SCC_MPB};
    return scc_bcast(buf, bytes, c, &role);
}
#endif
