/* bcast/mesh_center.c: centre-optimized mesh-parallel broadcast: a root away from the centre first sends to the
 * core nearest the mesh centre, which then broadcasts mesh-parallel; the longest path becomes half the mesh's
 * diameter instead of all of it. The root already has the data: its parent in the centre's tree skips it, and the
 * root serves its own children. In segments, like bcast_mesh, so the root's send to the centre and the centre's
 * broadcast overlap. */
#include "../coll.h"

int bcast_mesh_center(void *buf, size_t bytes, int root, struct comm *c)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    if (!m)
        return NOCMSG_ERR_NO_MEM;
    int center = m->center;
    if (center == root)
        return bcast_mesh(buf, bytes, root, c);
    const struct coll_tree *t = coll_mesh_tree(c, center);
    if (!t)
        return NOCMSG_ERR_NO_MEM;
    /* Where the data comes from and where it goes: the centre's tree, with the root as the centre's source and
     * taken out of the tree below it. */
    int from = c->rank == root ? NOCMSG_PROC_NULL : c->rank == center ? root : t->parent, to[5], n = 0;
    if (c->rank == root)
        to[n++] = center;
    for (int i = 0; i < t->nchild; i++)
        if (t->children[i] != root)
            to[n++] = t->children[i];
    return coll_forward(buf, bytes, from, to, n, BCAST_SEGMENT, TAG_BCAST, c);
}
