/*
 * fold.h: the step that lets power-of-two algorithms run on any rank count (recursive doubling, Rabenseifner):
 * with p the largest power of two not above n and extra = n - p, ranks 2i and 2i + 1 (i < extra) first combine
 * into 2i + 1; the p remaining ranks get new ranks in the same order, so combining by new rank keeps rank order.
 */
#ifndef NOCMSG_COLL_FOLD_H
#define NOCMSG_COLL_FOLD_H

#include "../coll.h"

struct fold {
    int p, extra;
    int newrank; /* -1: this rank sits out (it gets the result at the end) */
};

static inline struct fold fold_of(int rank, int n)
{
    struct fold f;
    for (f.p = 1; f.p * 2 <= n; f.p *= 2)
        ;
    f.extra = n - f.p;
    if (rank < 2 * f.extra)
        f.newrank = rank % 2 ? rank / 2 : -1;
    else
        f.newrank = rank - f.extra;
    return f;
}

/* The real rank of new rank v. */
static inline int fold_rank(const struct fold *f, int v)
{
    return v < f->extra ? 2 * v + 1 : v + f->extra;
}

/* The reductions' fold: rank 2i sends its `count` elements in acc to 2i + 1, which combines them (2i's on the
 * left) using tmp. */
static inline int fold_in(const struct fold *f, int rank, void *acc, void *tmp, size_t count,
                          const struct coll_reduction *red, int tag, struct comm *c)
{
    if (rank >= 2 * f->extra)
        return NOCMSG_SUCCESS;
    size_t bytes = count * red->elem;
    if (f->newrank < 0)
        return coll_xsend(acc, bytes, rank + 1, tag, c);
    int err = coll_recv(tmp, bytes, rank - 1, tag, c);
    if (err == NOCMSG_SUCCESS)
        coll_apply(red, tmp, acc, count);
    return err;
}

/* And back: 2i + 1 hands 2i the result. */
static inline int fold_out(const struct fold *f, int rank, void *acc, size_t bytes, int tag, struct comm *c)
{
    if (rank >= 2 * f->extra)
        return NOCMSG_SUCCESS;
    return f->newrank < 0 ? coll_recv(acc, bytes, rank + 1, tag, c) : coll_xsend(acc, bytes, rank - 1, tag, c);
}

#endif /* NOCMSG_COLL_FOLD_H */
