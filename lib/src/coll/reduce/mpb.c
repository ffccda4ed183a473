/* reduce/mpb.c: a reduction through the MPBs (MPB chips only), for long vectors. Chunk by chunk (as long as both
 * slots of the SCC broadcast family's area, bcast/scc.h):
 *   1. every rank puts its part of the chunk into its MPB; a barrier;
 *   2. rank s reads slice s of the chunk from every rank (remote loads, a line per transfer, all ranks at once),
 *      combines them in rank order (so any operation) and writes its slice of the result over its own part's slice
 *      (which only it reads: the write-combining buffer writes only the bytes stored); a barrier;
 *   3. the root reads every slice of the result.
 * Each rank moves about one chunk in, whatever the rank count, against log2 n whole chunks up a binomial tree; the
 * price is three barriers per chunk (log2 n remote stores each; the third lets the root read the result before it
 * is overwritten) and the root's reading of the result. */
#include "../bcast/scc.h"

#ifdef NOCMSG_PORT_MPB
#include <stdlib.h>
#include <string.h>

#include <nocmsg_mpb.h>

/* Bytes [*lo, *hi) of a chunk of `len` bytes (`units` units of `unit` bytes) that rank s of n combines. */
static void slice_of(int s, int n, size_t units, size_t unit, size_t len, size_t *lo, size_t *hi)
{
    *hi = units * (size_t)(s + 1) / (size_t)n * unit;
    *hi = *hi < len ? *hi : len;
    *lo = units * (size_t)s / (size_t)n * unit;
    *lo = *lo < *hi ? *lo : *hi;
}

int reduce_mpb(const void *sendbuf, void *recvbuf, size_t count, const struct coll_reduction *red, int root,
               struct comm *c)
{
    int err = scc_setup();
    if (err != NOCMSG_SUCCESS)
        return err;
    int n = c->size, me = c->rank;
    const int *world = c->world_of;
    /* Slices start on lines (a slice's transfers are then its own lines: MPB accesses go a line at a time, and are
     * aligned) and on elements: in units of lcm(elem, line) bytes. */
    size_t elem = red->elem, unit = elem, line = nocmsg_mpb_line_bytes();
    while (unit % line)
        unit += elem;
    size_t chunk = 2 * scc_slot_bytes() / unit * unit; /* the two slots are adjacent */
    if (!chunk)
        return reduce_binomial(sendbuf, recvbuf, count, red, root, c); /* an element too large for a slot */
    size_t bytes = count * elem;
    unsigned char *acc = malloc(chunk), *tmp = malloc(chunk);
    if (!acc || !tmp) {
        free(acc);
        free(tmp);
        return NOCMSG_ERR_NO_MEM;
    }
    /* Nobody may be reading my slots from an earlier collective. */
    scc_wait_slot(0);
    scc_wait_slot(1);
    const unsigned char *in = sendbuf;
    unsigned char *out = recvbuf;
    volatile uint64_t *mine = scc_slot(world[me], 0);
    for (size_t at = 0; at < bytes; at += chunk) {
        size_t len = bytes - at < chunk ? bytes - at : chunk, units = (len + unit - 1) / unit, lo, hi;
        if (at)
            scc_barrier(c); /* the root has read the last chunk's result */
        scc_copy_out(mine, in + at, len);
        nocmsg_mpb_flush();
        scc_barrier(c);
        /* My slice, combined from the last rank down: x_r op (x_r+1 op ...). */
        slice_of(me, n, units, unit, len, &lo, &hi);
        size_t slice = hi - lo, elems = slice / elem;
        for (int r = n - 1; r >= 0 && slice; r--) {
            unsigned char *dst = r == n - 1 ? acc : tmp;
            if (r == me)
                memcpy(dst, in + at + lo, slice);
            else
                scc_copy_in(dst, scc_slot(world[r], 0) + lo / 8, slice);
            if (r != n - 1)
                coll_apply(red, tmp, acc, elems);
        }
        if (me == root)
            memcpy(out + at + lo, acc, slice);
        else
            scc_copy_out(mine + lo / 8, acc, slice);
        nocmsg_mpb_flush();
        scc_barrier(c);
        if (me == root) {
            for (int s = 0; s < n; s++) {
                if (s == me)
                    continue;
                slice_of(s, n, units, unit, len, &lo, &hi);
                scc_copy_in(out + at + lo, scc_slot(world[s], 0) + lo / 8, hi - lo);
            }
        }
    }
    scc_barrier(c); /* the root has read every slice */
    free(acc);
    free(tmp);
    return NOCMSG_SUCCESS;
}
#endif
