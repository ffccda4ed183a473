/*
 * fold.h: the step that lets power-of-two algorithms run on any rank count (recursive doubling, Rabenseifner):
 * with p the largest power of two not above n and extra = n - p, ranks 2i and 2i + 1 (i < extra) first combine
 * into 2i + 1; the p remaining ranks get new ranks in the same order, so combining by new rank keeps rank order.
 */
#ifndef NOCMSG_COLL_FOLD_H
#define NOCMSG_COLL_FOLD_H

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

#endif /* NOCMSG_COLL_FOLD_H */
