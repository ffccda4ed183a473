/* bcast/mesh.c: mesh-parallel broadcast (SCC broadcast studies, NoCMsg): from the root along its row, then along
 * every column, each core forwarding to its E/W and N/S neighbours, so every core receives once and every message
 * travels one hop. */
#include "../coll.h"

int bcast_mesh(void *buf, size_t bytes, int root, struct comm *c)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    if (!m)
        return NOCMSG_ERR_NO_MEM;
    int parent, children[4], err = NOCMSG_SUCCESS;
    int n = coll_mesh_tree(m, c->size, root, c->rank, &parent, children);
    if (parent >= 0)
        err = coll_recv(buf, bytes, parent, TAG_BCAST, c);
    for (int i = 0; i < n && err == NOCMSG_SUCCESS; i++)
        err = coll_xsend(buf, bytes, children[i], TAG_BCAST, c);
    return err;
}
