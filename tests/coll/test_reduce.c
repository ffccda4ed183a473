/*
 * test_reduce.c: one checked call of reduce, allreduce, reduce_scatter and scan for a prepared reduction case
 * (red.h): the result equals the naive reference element for element, send buffers do not change, nothing is
 * written past the result, and user functions only ever see their own datatype.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "red.h"

/* Compares count elements of got with want; on a difference names the first bad element and how many differ. */
#define CHECK_RESULT(got, want, d, count, offset)                                                                      \
    check_result(__FILE__, __LINE__, (got), (want), (d), (count), (offset))
static void check_result(const char *file, int line, const void *got, const void *want, const t_red_data *d,
                         int count, int offset)
{
    int k = t_red_mismatch(d->rd.type, got, want, count);
    if (k < 0)
        return;
    int bad = 0;
    for (int j = k; j < count; j++)
        bad += t_red_mismatch(d->rd.type, (const char *)got + (size_t)j * d->esize,
                              (const char *)want + (size_t)j * d->esize, 1) == 0;
    char g[64], w[64];
    t_elem_text(d->rd.type, (const char *)got + (size_t)k * d->esize, g, sizeof g);
    t_elem_text(d->rd.type, (const char *)want + (size_t)k * d->esize, w, sizeof w);
    t_fail(file, line, "element %d of the result is %s, expected %s (%d of %d elements differ)", offset + k, g, w,
           bad, count);
}

static void check_unchanged(const char *file, int line, const void *buf, const t_red_data *d)
{
    if (memcmp(buf, d->mine, (size_t)d->count * (size_t)d->esize) != 0)
        t_fail(file, line, "the send buffer changed");
}

static void check_user_calls(const char *file, int line, long before)
{
    if (t_user_bad_calls != before)
        t_fail(file, line, "the user function was called %ld times with another datatype or a negative length",
               t_user_bad_calls - before);
}

static const char *shape(const t_red_data *d, int inplace)
{
    static char text[96];
    snprintf(text, sizeof text, "%s on %d x %s%s", t_red_name(&d->rd), d->count, t_type_name(d->rd.type),
             inplace ? ", IN_PLACE" : "");
    return text;
}

void check_reduce(const t_comm *c, const t_red_data *d, int root, int inplace)
{
    size_t bytes = (size_t)d->count * (size_t)d->esize;
    int is_root = c->rank == root, in_place = inplace && is_root;
    t_case("reduce[%s] on %s, root %d, %s", t_alg_label("reduce", bytes, c->comm), c->name, root, shape(d, inplace));
    unsigned char *send = t_alloc(bytes), *recv = NULL;
    memcpy(send, d->mine, bytes);
    if (is_root) {
        recv = t_poisoned(bytes);
        if (in_place)
            memcpy(recv, d->mine, bytes);
    }
    long before = t_user_bad_calls;
    t_calls++;
    int ok = CHECK_OK(nocmsg_reduce(in_place ? NOCMSG_IN_PLACE : send, recv, d->count, d->rd.type, t_red_op(&d->rd),
                                    root, c->comm));
    if (is_root) {
        if (ok)
            CHECK_RESULT(recv, d->full, d, d->count, 0);
        CHECK_UNTOUCHED(recv + bytes, T_GUARD, "guard after the receive buffer");
    }
    check_unchanged(__FILE__, __LINE__, send, d);
    check_user_calls(__FILE__, __LINE__, before);
    free(send);
    free(recv);
}

void check_allreduce(const t_comm *c, const t_red_data *d, int inplace)
{
    size_t bytes = (size_t)d->count * (size_t)d->esize;
    t_case("allreduce[%s] on %s, %s", t_alg_label("allreduce", bytes, c->comm), c->name, shape(d, inplace));
    unsigned char *send = t_alloc(bytes), *recv = t_poisoned(bytes);
    memcpy(send, d->mine, bytes);
    if (inplace)
        memcpy(recv, d->mine, bytes);
    long before = t_user_bad_calls;
    t_calls++;
    if (CHECK_OK(nocmsg_allreduce(inplace ? NOCMSG_IN_PLACE : send, recv, d->count, d->rd.type, t_red_op(&d->rd),
                                  c->comm)))
        CHECK_RESULT(recv, d->full, d, d->count, 0);
    CHECK_UNTOUCHED(recv + bytes, T_GUARD, "guard after the receive buffer");
    check_unchanged(__FILE__, __LINE__, send, d);
    check_user_calls(__FILE__, __LINE__, before);
    free(send);
    free(recv);
}

/* Splits count over n ranks: evenly (the first count % n get one more), or by weights 0..3 drawn from seed. */
static void split_counts(int *counts, int n, int count, int uneven, uint64_t seed)
{
    if (!uneven) {
        for (int i = 0; i < n; i++)
            counts[i] = count / n + (i < count % n);
        return;
    }
    int weight = 0, last = 0;
    for (int i = 0; i < n; i++) {
        counts[i] = (int)(t_key(seed, (uint64_t)i, 0xe5) % 4);
        weight += counts[i];
    }
    if (weight == 0)
        counts[0] = weight = 1;
    int given = 0;
    for (int i = 0; i < n; i++) {
        if (counts[i])
            last = i;
        counts[i] = (int)((long long)count * counts[i] / weight);
        given += counts[i];
    }
    counts[last] += count - given;
}

void check_reduce_scatter(const t_comm *c, const t_red_data *d, int uneven, int inplace)
{
    size_t bytes = (size_t)d->count * (size_t)d->esize;
    int *counts = t_alloc((size_t)c->size * sizeof *counts);
    split_counts(counts, c->size, d->count, uneven, d->seed ^ t_next_seed());
    int offset = 0;
    for (int r = 0; r < c->rank; r++)
        offset += counts[r];
    size_t mine = (size_t)counts[c->rank] * (size_t)d->esize;
    t_case("reduce_scatter[%s] on %s, %s counts (this rank %d), %s", t_alg_label("reduce_scatter", bytes, c->comm),
           c->name, uneven ? "uneven" : "even", counts[c->rank], shape(d, inplace));
    unsigned char *send = t_alloc(bytes), *recv;
    memcpy(send, d->mine, bytes);
    if (inplace) {
        /* In place, the input is the whole receive buffer and the result goes to its start. */
        recv = t_poisoned(bytes);
        memcpy(recv, d->mine, bytes);
    } else {
        recv = t_poisoned(mine);
    }
    long before = t_user_bad_calls;
    t_calls++;
    if (CHECK_OK(nocmsg_reduce_scatter(inplace ? NOCMSG_IN_PLACE : send, recv, counts, d->rd.type, t_red_op(&d->rd),
                                       c->comm)))
        CHECK_RESULT(recv, (const char *)d->full + (size_t)offset * (size_t)d->esize, d, counts[c->rank], offset);
    CHECK_UNTOUCHED(recv + (inplace ? bytes : mine), T_GUARD, "guard after the receive buffer");
    check_unchanged(__FILE__, __LINE__, send, d);
    check_user_calls(__FILE__, __LINE__, before);
    free(send);
    free(recv);
    free(counts);
}

void check_scan(const t_comm *c, const t_red_data *d, int inplace)
{
    size_t bytes = (size_t)d->count * (size_t)d->esize;
    t_case("scan[%s] on %s, %s", t_alg_label("scan", bytes, c->comm), c->name, shape(d, inplace));
    unsigned char *send = t_alloc(bytes), *recv = t_poisoned(bytes);
    memcpy(send, d->mine, bytes);
    if (inplace)
        memcpy(recv, d->mine, bytes);
    long before = t_user_bad_calls;
    t_calls++;
    if (CHECK_OK(nocmsg_scan(inplace ? NOCMSG_IN_PLACE : send, recv, d->count, d->rd.type, t_red_op(&d->rd),
                             c->comm)))
        CHECK_RESULT(recv, d->prefix, d, d->count, 0);
    CHECK_UNTOUCHED(recv + bytes, T_GUARD, "guard after the receive buffer");
    check_unchanged(__FILE__, __LINE__, send, d);
    check_user_calls(__FILE__, __LINE__, before);
    free(send);
    free(recv);
}
