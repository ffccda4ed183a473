/* bcast/mesh.c: mesh-parallel broadcast (SCC broadcast studies, NoCMsg): from the root along its row, then along
 * every column, each core forwarding to its E/W and N/S neighbours, so every core receives once and every message
 * travels one hop. The message goes in segments (BCAST_SEGMENT), each forwarded as soon as it arrives, so the
 * levels of the tree work at once instead of in turn. */
#include "../coll.h"

int bcast_mesh(void *buf, size_t bytes, int root, struct comm *c)
{
    const struct coll_tree *t = coll_mesh_tree(c, root);
    if (!t)
        return NOCMSG_ERR_NO_MEM;
    return coll_forward(buf, bytes, t->parent >= 0 ? t->parent : NOCMSG_PROC_NULL, t->children, t->nchild,
                        BCAST_SEGMENT, TAG_BCAST, c);
}
