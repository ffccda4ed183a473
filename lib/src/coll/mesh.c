/*
 * mesh.c: where the members of a communicator sit on the mesh, and the mesh-parallel broadcast tree.
 *
 * On a simulated chip world rank r runs on core r, i.e. on router r / concentration of a width x height mesh
 * (with `nocmsg run --tiles` the geometry is that of the rank numbering, which keeps every algorithm correct but
 * may make mesh-aware ones less effective). Natively there is no mesh: the ranks are laid out row by row on the
 * most nearly square grid that holds them, so the mesh algorithms run (and are tested) there too.
 */
#include "coll.h"

#include <stdlib.h>

#include "../../ports/port.h"

static int mesh_center(const struct coll_mesh *m, int size)
{
    int minx = m->x[0], maxx = m->x[0], miny = m->y[0], maxy = m->y[0];
    for (int i = 1; i < size; i++) {
        minx = m->x[i] < minx ? m->x[i] : minx;
        maxx = m->x[i] > maxx ? m->x[i] : maxx;
        miny = m->y[i] < miny ? m->y[i] : miny;
        maxy = m->y[i] > maxy ? m->y[i] : maxy;
    }
    /* Distances in half hops, so the centre of an even-sized box needs no fractions. */
    int best = 0, best_d = -1;
    for (int i = 0; i < size; i++) {
        int dx = 2 * m->x[i] - (minx + maxx), dy = 2 * m->y[i] - (miny + maxy);
        int d = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
        if (best_d < 0 || d < best_d) {
            best = i;
            best_d = d;
        }
    }
    return best;
}

const struct coll_mesh *coll_mesh_of(struct comm *c)
{
    if (c->mesh)
        return c->mesh;
    int width, height, conc;
    nocmsg_port_mesh(&width, &height, &conc);
    if (width <= 0 || height <= 0 || conc <= 0) {
        conc = 1;
        for (width = 1; width * width < nocmsg_lib.size; width++)
            ;
        height = (nocmsg_lib.size + width - 1) / width;
    }
    struct coll_mesh *m = malloc(sizeof *m);
    int *xy = malloc(2 * (size_t)c->size * sizeof(int));
    if (!m || !xy) {
        free(m);
        free(xy);
        return NULL;
    }
    for (int i = 0; i < c->size; i++) {
        int router = c->world_of[i] / conc;
        xy[i] = router % width;
        xy[c->size + i] = router / width;
    }
    m->width = width;
    m->height = height;
    m->x = xy;
    m->y = xy + c->size;
    m->center = mesh_center(m, c->size);
    m->trees = NULL;
    m->family = NULL;
    m->family_free = NULL;
    c->mesh = m;
    return m;
}

void coll_mesh_release(struct comm *c)
{
    if (c->mesh) {
        free((void *)c->mesh->x);
        free(c->mesh->trees);
        if (c->mesh->family_free)
            c->mesh->family_free(c->mesh->family);
        free(c->mesh);
        c->mesh = NULL;
    }
}

static int absdiff(int a, int b)
{
    return a > b ? a - b : b - a;
}

/* Whether member a comes before b on the way out of the source's column: closer to the source's row, then lower y,
 * then lower rank (so every rank computes the same tree). */
static int closer(const struct coll_mesh *m, int ys, int a, int b)
{
    int da = absdiff(m->y[a], ys), db = absdiff(m->y[b], ys);
    if (da != db)
        return da < db;
    if (m->y[a] != m->y[b])
        return m->y[a] < m->y[b];
    return a < b;
}

/*
 * The mesh-parallel tree: the source's row first, column by column (each column entered at its member nearest
 * the source's row, the column's representative), then every column outwards from its representative. On a full
 * mesh this is forwarding to the E/W neighbour along the row and to the N/S neighbour along each column, in XY
 * order, so every core receives once and every message travels one hop. Members sharing a router (concentration)
 * are chained in rank order like a column of length zero.
 */
/* The representative of the column at x: the source if it is there, else the member nearest the source's row. */
static int column_rep(const struct coll_mesh *m, int size, int x, int source)
{
    if (m->x[source] == x)
        return source;
    int rep = -1;
    for (int i = 0; i < size; i++)
        if (m->x[i] == x && (rep < 0 || closer(m, m->y[source], i, rep)))
            rep = i;
    return rep;
}

/* Column order: by y, then by rank. */
static int below(const struct coll_mesh *m, int a, int b)
{
    return m->y[a] < m->y[b] || (m->y[a] == m->y[b] && a < b);
}

static int tree_of(const struct coll_mesh *m, int size, int source, int rank, int *parent, int children[4])
{
    int nchild = 0, xs = m->x[source], x = m->x[rank];
    *parent = -1;
    int rep = column_rep(m, size, x, source);
    /* The nearest occupied columns east and west of this one. */
    int east_x = -1, west_x = -1;
    for (int i = 0; i < size; i++) {
        if (m->x[i] > x && (east_x < 0 || m->x[i] < east_x))
            east_x = m->x[i];
        if (m->x[i] < x && (west_x < 0 || m->x[i] > west_x))
            west_x = m->x[i];
    }
    if (rank == rep) {
        /* Along the row of representatives, outwards from the source's column. */
        if (x > xs)
            *parent = column_rep(m, size, west_x, source);
        else if (x < xs)
            *parent = column_rep(m, size, east_x, source);
        if (x >= xs && east_x >= 0)
            children[nchild++] = column_rep(m, size, east_x, source);
        if (x <= xs && west_x >= 0)
            children[nchild++] = column_rep(m, size, west_x, source);
    }
    /* Along the column, outwards from the representative: the neighbours just above and just below. */
    int up = -1, down = -1;
    for (int i = 0; i < size; i++) {
        if (i == rank || m->x[i] != x)
            continue;
        if (below(m, rank, i) && (up < 0 || below(m, i, up)))
            up = i;
        if (below(m, i, rank) && (down < 0 || below(m, down, i)))
            down = i;
    }
    if (rank == rep) {
        if (up >= 0)
            children[nchild++] = up;
        if (down >= 0)
            children[nchild++] = down;
    } else if (below(m, rep, rank)) {
        *parent = down;
        if (up >= 0)
            children[nchild++] = up;
    } else {
        *parent = up;
        if (down >= 0)
            children[nchild++] = down;
    }
    return nchild;
}

const struct coll_tree *coll_mesh_tree(struct comm *c, int source)
{
    struct coll_mesh *m = (struct coll_mesh *)coll_mesh_of(c);
    if (!m)
        return NULL;
    if (!m->trees) {
        if (!(m->trees = malloc((size_t)c->size * sizeof *m->trees)))
            return NULL;
        for (int i = 0; i < c->size; i++)
            m->trees[i].parent = -2;
    }
    struct coll_tree *t = &m->trees[source];
    if (t->parent == -2)
        t->nchild = tree_of(m, c->size, source, c->rank, &t->parent, t->children);
    return t;
}

int coll_mesh_subtree(struct comm *c, const int *members, int count, int source, int rank, int *parent,
                      int children[4])
{
    const struct coll_mesh *m = coll_mesh_of(c);
    int *xy = malloc(2 * (size_t)count * sizeof(int));
    if (!m || !xy) {
        free(xy);
        return -1;
    }
    struct coll_mesh sub = {.width = m->width, .height = m->height, .x = xy, .y = xy + count};
    for (int i = 0; i < count; i++) {
        xy[i] = m->x[members[i]];
        xy[count + i] = m->y[members[i]];
    }
    int nchild = tree_of(&sub, count, source, rank, parent, children);
    free(xy);
    *parent = *parent >= 0 ? members[*parent] : -1;
    for (int i = 0; i < nchild; i++)
        children[i] = members[children[i]];
    return nchild;
}
