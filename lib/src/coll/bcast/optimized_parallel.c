/* bcast/optimized_parallel.c: the SCC study's optimized parallel broadcast: a root away from the centre first
 * passes the data to the rank nearest the centre of the mesh, whose mesh-parallel tree then reaches everyone in
 * half the diameter; the root serves its own children of that tree. MPB chips only. */
#include "scc.h"

#ifdef NOCMSG_PORT_MPB
int bcast_optimized_parallel(void *buf, size_t bytes, int root, struct comm *c)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    if (!m)
        return NOCMSG_ERR_NO_MEM;
    int center = m->center;
    const struct coll_tree *t = coll_mesh_tree(c, center);
    if (!t)
        return NOCMSG_ERR_NO_MEM;
    int children[5], n = 0;
    if (c->rank == root && center != root)
        children[n++] = center;
    for (int i = 0; i < t->nchild; i++)
        if (t->children[i] != root)
            children[n++] = t->children[i];
    struct scc_role role = {.parent = c->rank == root ? -1 : c->rank == center ? root : t->parent,
                            .parent_medium = SCC_MPB, .nchild = n, .children = children, .medium = SCC_MPB};
    return scc_bcast(buf, bytes, c, &role);
}
#endif
