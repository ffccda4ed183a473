/* alltoall/mesh_schedule.c: a two-phase schedule for a full rectangular mesh of members. Phase 1 runs within each
 * row: a core sends every other core of its row, in one message, the blocks bound for that core's column. Phase
 * 2 runs within each column: a core sends every other core of its column the blocks (from its whole row) bound
 * for that core. (W - 1) + (H - 1) messages per core instead of n - 1, and each phase uses only the links of one
 * dimension, so the two phases never compete. Other member sets fall back to pairwise exchange. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"

int alltoall_mesh_schedule(const void *sendbuf, void *recvbuf, size_t bytes, struct comm *c)
{
    const struct coll_mesh *m = coll_mesh_of(c);
    if (!m)
        return NOCMSG_ERR_NO_MEM;
    int n = c->size, minx = m->x[0], miny = m->y[0], maxx = m->x[0], maxy = m->y[0];
    for (int i = 1; i < n; i++) {
        minx = m->x[i] < minx ? m->x[i] : minx;
        maxx = m->x[i] > maxx ? m->x[i] : maxx;
        miny = m->y[i] < miny ? m->y[i] : miny;
        maxy = m->y[i] > maxy ? m->y[i] : maxy;
    }
    int w = maxx - minx + 1, h = maxy - miny + 1;
    if (w * h != n)
        return alltoall_pairwise(sendbuf, recvbuf, bytes, c);
    int *grid = malloc((size_t)n * sizeof *grid);
    if (!grid)
        return NOCMSG_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        grid[i] = -1;
    int full = 1;
    for (int i = 0; i < n && full; i++) {
        int cell = (m->y[i] - miny) * w + (m->x[i] - minx);
        full = grid[cell] < 0;
        grid[cell] = i;
    }
    if (!full) {
        free(grid);
        return alltoall_pairwise(sendbuf, recvbuf, bytes, c);
    }
#define AT(x, y) grid[(y) * w + (x)]
    int x = m->x[c->rank] - minx, y = m->y[c->rank] - miny, err = NOCMSG_SUCCESS;
    size_t line = (size_t)(w > h ? w : h) * bytes;
    /* stage[xs][yd]: the block from (xs, y) to (x, yd). */
    unsigned char *stage = malloc((size_t)n * bytes + 1), *sbuf = malloc(line + 1), *rbuf = malloc(line + 1);
    const unsigned char *in = sendbuf;
    unsigned char *out = recvbuf;
    if (!stage || !sbuf || !rbuf) {
        err = NOCMSG_ERR_NO_MEM;
        goto done;
    }
#define STAGE(xs, yd) (stage + ((size_t)(xs) * (size_t)h + (size_t)(yd)) * bytes)
    for (int yd = 0; yd < h; yd++)
        memcpy(STAGE(x, yd), in + (size_t)AT(x, yd) * bytes, bytes);
    for (int k = 1; k < w && err == NOCMSG_SUCCESS; k++) {
        int xt = (x + k) % w, xf = (x - k + w) % w;
        for (int yd = 0; yd < h; yd++)
            memcpy(sbuf + (size_t)yd * bytes, in + (size_t)AT(xt, yd) * bytes, bytes);
        err = coll_sendrecv(sbuf, (size_t)h * bytes, AT(xt, y), rbuf, (size_t)h * bytes, AT(xf, y), TAG_ALLTOALL, c);
        for (int yd = 0; yd < h && err == NOCMSG_SUCCESS; yd++)
            memcpy(STAGE(xf, yd), rbuf + (size_t)yd * bytes, bytes);
    }
    for (int xs = 0; xs < w; xs++)
        memcpy(out + (size_t)AT(xs, y) * bytes, STAGE(xs, y), bytes);
    for (int k = 1; k < h && err == NOCMSG_SUCCESS; k++) {
        int yt = (y + k) % h, yf = (y - k + h) % h;
        for (int xs = 0; xs < w; xs++)
            memcpy(sbuf + (size_t)xs * bytes, STAGE(xs, yt), bytes);
        err = coll_sendrecv(sbuf, (size_t)w * bytes, AT(x, yt), rbuf, (size_t)w * bytes, AT(x, yf), TAG_ALLTOALL, c);
        for (int xs = 0; xs < w && err == NOCMSG_SUCCESS; xs++)
            memcpy(out + (size_t)AT(xs, yf) * bytes, rbuf + (size_t)xs * bytes, bytes);
    }
#undef STAGE
#undef AT
done:
    free(stage);
    free(sbuf);
    free(rbuf);
    free(grid);
    return err;
}
