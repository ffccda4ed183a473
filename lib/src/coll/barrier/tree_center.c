/* barrier/tree_center.c: NoCMsg's barrier: a tree rooted at the core nearest the mesh centre, its branches
 * following the mesh (the mesh-parallel tree: along the centre's row, then up and down each column), so every
 * message travels one hop and the longest path is half the mesh's diameter. Arrivals flow up, the release down. */
#include "../token.h"

static int plan(struct comm *c, struct token_plan *p)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    const struct coll_tree *t = m ? coll_mesh_tree(c, m->center) : NULL;
    if (!t)
        return NOCMSG_ERR_NO_MEM;
    for (int i = 0; i < t->nchild; i++)
        coll_plan_wait(p, t->children[i], c);
    if (t->parent >= 0) {
        coll_plan_send(p, t->parent, c);
        coll_plan_wait(p, t->parent, c);
    }
    for (int i = 0; i < t->nchild; i++)
        coll_plan_send(p, t->children[i], c);
    return NOCMSG_SUCCESS;
}

int barrier_tree_center(struct comm *c)
{
    return coll_tokens_run(c, plan);
}
