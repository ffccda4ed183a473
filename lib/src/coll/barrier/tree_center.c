/* barrier/tree_center.c: NoCMsg's barrier: a tree rooted at the core nearest the mesh centre, its branches
 * following the mesh (the mesh-parallel tree: along the centre's row, then up and down each column), so every
 * message travels one hop and the longest path is half the mesh's diameter. Arrivals flow up, the release down. */
#include "../coll.h"

int barrier_tree_center(struct comm *c)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    if (!m)
        return NOCMSG_ERR_NO_MEM;
    int parent, children[4];
    int n = coll_mesh_tree(m, c->size, coll_mesh_center(m, c->size), c->rank, &parent, children);
    int err = NOCMSG_SUCCESS;
    for (int i = 0; i < n && err == NOCMSG_SUCCESS; i++)
        err = coll_recv(NULL, 0, children[i], TAG_BARRIER, c);
    if (err == NOCMSG_SUCCESS && parent >= 0) {
        err = coll_send(NULL, 0, parent, TAG_BARRIER, c);
        if (err == NOCMSG_SUCCESS)
            err = coll_recv(NULL, 0, parent, TAG_BARRIER, c);
    }
    for (int i = 0; i < n && err == NOCMSG_SUCCESS; i++)
        err = coll_send(NULL, 0, children[i], TAG_BARRIER, c);
    return err;
}
