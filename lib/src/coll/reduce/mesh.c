/* reduce/mesh.c: the mesh-parallel broadcast tree run backwards: every core combines what its (up to four)
 * neighbours send it and passes the result one hop towards the root. Combines in tree order, so only for
 * commutative operations. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int reduce_mesh(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red, int root,
                struct comm *c)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    if (!m)
        return NOCMSG_ERR_NO_MEM;
    size_t bytes = count * red->elem;
    int parent, children[4], err = NOCMSG_SUCCESS;
    int n = coll_mesh_tree(m, c->size, root, c->rank, &parent, children);
    unsigned char *acc = malloc(bytes), *tmp = malloc(bytes);
    if (!acc || !tmp) {
        free(acc);
        free(tmp);
        return NOCMSG_ERR_NO_MEM;
    }
    memcpy(acc, sendbuf, bytes);
    for (int i = 0; i < n && err == NOCMSG_SUCCESS; i++) {
        err = coll_recv(tmp, bytes, children[i], TAG_REDUCE, c);
        if (err == NOCMSG_SUCCESS)
            coll_apply(red, tmp, acc, count);
    }
    if (err == NOCMSG_SUCCESS) {
        if (parent >= 0)
            err = coll_xsend(acc, bytes, parent, TAG_REDUCE, c);
        else
            memcpy(recvbuf, acc, bytes);
    }
    free(acc);
    free(tmp);
    return err;
}
