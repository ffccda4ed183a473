/* bcast/mesh_center.c: centre-optimized mesh-parallel broadcast: a root away from the centre first sends to the
 * core nearest the mesh centre, which then broadcasts mesh-parallel; the longest path becomes half the mesh's
 * diameter instead of all of it. The root already has the data: its parent in the centre's tree skips it, and the
 * root serves its own children. */
#include "../coll.h"

int bcast_mesh_center(void *buf, size_t bytes, int root, struct comm *c)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    if (!m)
        return NOCMSG_ERR_NO_MEM;
    int center = coll_mesh_center(m, c->size), err = NOCMSG_SUCCESS;
    if (center == root)
        return bcast_mesh(buf, bytes, root, c);
    if (c->rank == root)
        err = coll_xsend(buf, bytes, center, TAG_BCAST, c);
    else if (c->rank == center)
        err = coll_recv(buf, bytes, root, TAG_BCAST, c);
    int parent, children[4];
    int n = coll_mesh_tree(m, c->size, center, c->rank, &parent, children);
    if (err == NOCMSG_SUCCESS && parent >= 0 && c->rank != root)
        err = coll_recv(buf, bytes, parent, TAG_BCAST, c);
    for (int i = 0; i < n && err == NOCMSG_SUCCESS; i++)
        if (children[i] != root)
            err = coll_xsend(buf, bytes, children[i], TAG_BCAST, c);
    return err;
}
