/* reduce/mesh.c: the mesh-parallel broadcast tree run backwards: every core combines what its (up to four)
 * neighbours send it and passes the result one hop towards the root. Combines in tree order, so only for
 * commutative operations. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int reduce_mesh(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red, int root,
                struct comm *c)
{
    const struct coll_tree *t = coll_mesh_tree(c, root);
    if (!t)
        return NOCMSG_ERR_NO_MEM;
    size_t bytes = count * red->elem;
    int err = NOCMSG_SUCCESS;
    unsigned char *acc = malloc(bytes), *tmp = malloc(bytes);
    if (!acc || !tmp) {
        free(acc);
        free(tmp);
        return NOCMSG_ERR_NO_MEM;
    }
    memcpy(acc, sendbuf, bytes);
    for (int i = 0; i < t->nchild && err == NOCMSG_SUCCESS; i++) {
        err = coll_recv(tmp, bytes, t->children[i], TAG_REDUCE, c);
        if (err == NOCMSG_SUCCESS)
            coll_apply(red, tmp, acc, count);
    }
    if (err == NOCMSG_SUCCESS) {
        if (t->parent >= 0)
            err = coll_xsend(acc, bytes, t->parent, TAG_REDUCE, c);
        else
            memcpy(recvbuf, acc, bytes);
    }
    free(acc);
    free(tmp);
    return err;
}
