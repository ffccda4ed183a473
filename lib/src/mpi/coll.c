/*
 * coll.c: MPI's blocking collectives and reduction operations on libnocmsg's collectives.
 *
 * Basic datatypes go to libnocmsg as they are, so they get its algorithms and selector. Other datatypes travel as
 * bytes: from the user's memory when they are contiguous, else packed into a temporary block (struct layout) that
 * is unpacked afterwards. Reductions take one of three paths (struct plan):
 *   direct   basic datatype, built-in or user operation: libnocmsg's reduction as it is (MPI_User_function and
 *            nocmsg_user_function have the same signature, and MPI's basic type handles are libnocmsg's);
 *   uniform  a built-in operation on a type whose elements are all of one type libnocmsg can reduce (a vector of
 *            doubles, MPI_AINT, the sum of complex numbers): packed, and reduced as that many basic elements;
 *   generic  anything else (user operations on derived types, long double): the layer's own binomial reduction
 *            in rank order, applying the operation with mpi_reduce_apply.
 */
#include "mpi_impl.h"

#include "../coll/coll.h"

#include <complex.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Reductions: libnocmsg's types; data movement: the types it moves as MPI does (mpi_impl.h). */
#define BASIC(type) MPI_NOCMSG_TYPE(type)
#define WIRE(type) MPI_NOCMSG_WIRE(type)

/* ---- operations ---- */

/* User operations: MPI handle USER_OP_BASE + i is entry i, backed by libnocmsg operation `nop`. */
#define USER_OP_BASE 32
struct user_op {
    MPI_User_function *fn;
    int commute;
    nocmsg_op nop;
    int refs;  /* pending non-blocking collectives that use it */
    int freed; /* MPI_Op_free was called: no new use; the entry goes when refs drops to 0 (MPI 3.1 5.9.5) */
};
static struct user_op *user_ops;
static int nuser_ops;

static struct user_op *user_op(MPI_Op op)
{
    int i = op - USER_OP_BASE;
    return i >= 0 && i < nuser_ops && user_ops[i].fn ? &user_ops[i] : NULL;
}

int mpi_op_check(MPI_Op op, int *commutative)
{
    if (op >= MPI_SUM && op <= MPI_MAXLOC) {
        *commutative = 1;
        return MPI_SUCCESS;
    }
    struct user_op *u = user_op(op);
    if (!u || u->freed)
        return MPI_ERR_OP; /* also MPI_REPLACE and MPI_NO_OP, which only one-sided accumulates take */
    *commutative = u->commute;
    return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    if (!user_fn || !op)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    nocmsg_op nop;
    int err = nocmsg_op_create((nocmsg_user_function *)user_fn, commute, &nop);
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    int i = 0;
    while (i < nuser_ops && user_ops[i].fn)
        i++;
    if (i == nuser_ops) {
        struct user_op *grown = realloc(user_ops, sizeof *user_ops * (size_t)(nuser_ops + 1));
        if (!grown) {
            nocmsg_op_free(&nop);
            MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
        }
        user_ops = grown;
        nuser_ops++;
    }
    user_ops[i] = (struct user_op){user_fn, commute != 0, nop, 0, 0};
    *op = USER_OP_BASE + i;
    return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op *op)
{
    struct user_op *u = op ? user_op(*op) : NULL;
    if (!u || u->freed)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OP);
    *op = MPI_OP_NULL;
    u->freed = 1;
    if (u->refs == 0) {
        nocmsg_op_free(&u->nop);
        u->fn = NULL;
    }
    return MPI_SUCCESS;
}

void mpi_op_retain(MPI_Op op)
{
    struct user_op *u = user_op(op);
    if (u)
        u->refs++;
}

void mpi_op_release(MPI_Op op)
{
    struct user_op *u = user_op(op);
    if (u && --u->refs == 0 && u->freed) {
        nocmsg_op_free(&u->nop);
        u->fn = NULL;
    }
}

int MPI_Op_commutative(MPI_Op op, int *commute)
{
    if (!commute)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    MPI_RETURN(MPI_COMM_WORLD, mpi_op_check(op, commute));
}

/* The libnocmsg type and the number of its elements per element of predefined type `u` that built-in `op` can be
 * reduced as, or 0 if libnocmsg cannot do it. */
static nocmsg_datatype basic_for(MPI_Datatype u, MPI_Op op, size_t *factor)
{
    *factor = 1;
    if (mpi_type_reduce_as(u, op, &u) != MPI_SUCCESS)
        return 0;
    if (BASIC(u))
        return u;
    switch (u) {
    case MPI_AINT:
    case MPI_OFFSET:
    case MPI_COUNT:
        return NOCMSG_INT64;
    case MPI_C_BOOL:
        return op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR ? NOCMSG_UINT8 : 0;
    case MPI_C_FLOAT_COMPLEX:
        *factor = 2;
        return op == MPI_SUM ? NOCMSG_FLOAT : 0;
    case MPI_C_DOUBLE_COMPLEX:
        *factor = 2;
        return op == MPI_SUM ? NOCMSG_DOUBLE : 0;
    default:
        return 0;
    }
}

/* Built-in operations libnocmsg has no type for: long double, complex products, long double pairs. */
static int apply_extra(MPI_Op op, MPI_Datatype u, const void *in, void *inout, size_t n)
{
    int err = mpi_type_reduce_as(u, op, &u);
    if (err != MPI_SUCCESS)
        return err;
    if (BASIC(u)) {
        /* A Fortran or C++ type of a derived type's elements (apply_items maps a predefined one itself). */
        struct coll_reduction red;
        err = coll_reduction_of(op, u, &red);
        if (err == MPI_SUCCESS)
            coll_apply(&red, in, inout, n);
        return err;
    }
    switch (u) {
    case MPI_INTEGER16: {
        const __int128 *a = in;
        __int128 *b = inout;
        for (size_t i = 0; i < n; i++)
            switch (op) {
            /* Wrapping, as the other integer types do. */
            case MPI_SUM: b[i] = (__int128)((unsigned __int128)a[i] + (unsigned __int128)b[i]); break;
            case MPI_PROD: b[i] = (__int128)((unsigned __int128)a[i] * (unsigned __int128)b[i]); break;
            case MPI_MIN: b[i] = a[i] < b[i] ? a[i] : b[i]; break;
            case MPI_MAX: b[i] = a[i] > b[i] ? a[i] : b[i]; break;
            case MPI_BAND: b[i] &= a[i]; break;
            case MPI_BOR: b[i] |= a[i]; break;
            case MPI_BXOR: b[i] ^= a[i]; break;
            default: return MPI_ERR_OP;
            }
        return MPI_SUCCESS;
    }
#define FORTRAN_PAIR_CASE(handle, ctype)                                                                       \
    case handle: {                                                                                              \
        /* (value, index) with the index of the value's type; ties keep the lower index. */                    \
        const ctype *a = in;                                                                                    \
        ctype *b = inout;                                                                                       \
        for (size_t i = 0; i < n; i++) {                                                                        \
            ctype av = a[2 * i], bv = b[2 * i];                                                                 \
            int better = op == MPI_MINLOC ? av < bv : av > bv;                                                  \
            if (better || (av == bv && a[2 * i + 1] < b[2 * i + 1])) {                                          \
                b[2 * i] = av;                                                                                  \
                b[2 * i + 1] = a[2 * i + 1];                                                                    \
            }                                                                                                   \
        }                                                                                                       \
        return MPI_SUCCESS;                                                                                     \
    }
        FORTRAN_PAIR_CASE(MPI_2REAL, float)
        FORTRAN_PAIR_CASE(MPI_2DOUBLE_PRECISION, double)
#undef FORTRAN_PAIR_CASE
    case MPI_LONG_DOUBLE: {
        const long double *a = in;
        long double *b = inout;
        for (size_t i = 0; i < n; i++)
            switch (op) {
            case MPI_SUM: b[i] = a[i] + b[i]; break;
            case MPI_PROD: b[i] = a[i] * b[i]; break;
            case MPI_MIN: b[i] = a[i] < b[i] ? a[i] : b[i]; break;
            case MPI_MAX: b[i] = a[i] > b[i] ? a[i] : b[i]; break;
            default: return MPI_ERR_OP;
            }
        return MPI_SUCCESS;
    }
#define COMPLEX_CASE(handle, ctype)                                                                            \
    case handle: {                                                                                              \
        const ctype *a = in;                                                                                    \
        ctype *b = inout;                                                                                       \
        if (op != MPI_SUM && op != MPI_PROD)                                                                    \
            return MPI_ERR_OP;                                                                                  \
        for (size_t i = 0; i < n; i++)                                                                          \
            b[i] = op == MPI_SUM ? a[i] + b[i] : a[i] * b[i];                                                   \
        return MPI_SUCCESS;                                                                                     \
    }
        COMPLEX_CASE(MPI_C_FLOAT_COMPLEX, float _Complex)
        COMPLEX_CASE(MPI_C_DOUBLE_COMPLEX, double _Complex)
        COMPLEX_CASE(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex)
#undef COMPLEX_CASE
    case MPI_LONG_DOUBLE_INT: {
        struct pair {
            long double v;
            int i;
        };
        const struct pair *a = in;
        struct pair *b = inout;
        if (op != MPI_MINLOC && op != MPI_MAXLOC)
            return MPI_ERR_OP;
        for (size_t i = 0; i < n; i++) {
            int better = op == MPI_MINLOC ? a[i].v < b[i].v : a[i].v > b[i].v;
            if (better || (a[i].v == b[i].v && a[i].i < b[i].i))
                b[i] = a[i];
        }
        return MPI_SUCCESS;
    }
    default:
        return MPI_ERR_OP;
    }
}

/* Applies op to `count` items of type laid out as the type says (items `extent` apart): user operations, and
 * built-in ones on predefined types. */
static int apply_items(MPI_Op op, MPI_Datatype type, const void *in, void *inout, size_t count)
{
    struct user_op *u = user_op(op);
    if (u) {
        int len = (int)count;
        MPI_Datatype ty = type;
        u->fn((void *)in, inout, &len, &ty);
        return MPI_SUCCESS;
    }
    int err = mpi_type_reduce_as(type, op, &type);
    if (err != MPI_SUCCESS)
        return err;
    if (!BASIC(type))
        return apply_extra(op, type, in, inout, count);
    struct coll_reduction red;
    err = coll_reduction_of(op, type, &red);
    if (err == MPI_SUCCESS)
        coll_apply(&red, in, inout, count);
    return err;
}

int mpi_reduce_apply(MPI_Op op, MPI_Datatype type, const void *in, void *inout, size_t count)
{
    if (!count)
        return MPI_SUCCESS;
    const struct mpi_type *t = mpi_type_get(type);
    if (!t)
        return MPI_ERR_TYPE;
    if (!user_op(op) && (op < MPI_SUM || op > MPI_MAXLOC))
        return MPI_ERR_OP;
    if (user_op(op) || t->predefined) {
        /* Applied to items as the type lays them out: packed items are that layout only for contiguous types. */
        if (t->contiguous)
            return apply_items(op, type, (const char *)in - t->true_lb, (char *)inout - t->true_lb, count);
        /* Scratch items cover their whole extent as well as their data: operations store whole items (a pair
         * type's C struct, padding included; a user function's array elements), not only the bytes MPI counts. */
        MPI_Aint item_lo = t->lb < t->true_lb ? t->lb : t->true_lb;
        MPI_Aint item_hi = t->lb + t->extent > t->true_lb + t->true_extent ? t->lb + t->extent
                                                                              : t->true_lb + t->true_extent;
        MPI_Aint last = (MPI_Aint)(count - 1) * t->extent; /* where the last item starts */
        MPI_Aint lo = last < 0 ? item_lo + last : item_lo, hi = last > 0 ? item_hi + last : item_hi;
        size_t span = (size_t)(hi - lo);
        char *a = malloc(span ? span : 1), *b = malloc(span ? span : 1);
        int err = a && b ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        if (err == MPI_SUCCESS) {
            mpi_unpack(in, count, t, a - lo);
            mpi_unpack(inout, count, t, b - lo);
            err = apply_items(op, type, a - lo, b - lo, count);
            if (err == MPI_SUCCESS)
                mpi_pack(b - lo, count, t, inout);
        }
        free(a);
        free(b);
        return err;
    }
    /* A built-in operation on a derived type: element by element, the packed items being their elements one
     * after another. */
    size_t n = count * t->elements, factor;
    nocmsg_datatype nt = t->uniform ? basic_for(t->uniform, op, &factor) : 0;
    if (!nt)
        return t->uniform ? apply_extra(op, t->uniform, in, inout, n) : MPI_ERR_OP;
    struct coll_reduction red;
    int err = coll_reduction_of(op, nt, &red);
    if (err == MPI_SUCCESS)
        coll_apply(&red, in, inout, n * factor);
    return err;
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    const struct mpi_type *t;
    size_t bytes;
    int commutative;
    int err = mpi_type_bytes(datatype, count, &t, &bytes);
    if (err == MPI_SUCCESS)
        err = mpi_op_check(op, &commutative);
    if (err == MPI_SUCCESS && count > 0 && (!inbuf || !inoutbuf))
        err = MPI_ERR_BUFFER;
    if (err != MPI_SUCCESS || !count)
        MPI_RETURN(MPI_COMM_WORLD, err);
    if (t->contiguous) {
        MPI_RETURN(MPI_COMM_WORLD, mpi_reduce_apply(op, datatype, (const char *)inbuf + t->true_lb,
                                                    (char *)inoutbuf + t->true_lb, (size_t)count) );
    }
    struct mpi_view a, b;
    err = mpi_view_send(inbuf, (size_t)count, t, &a);
    if (err == MPI_SUCCESS && (err = mpi_view_send(inoutbuf, (size_t)count, t, &b)) != MPI_SUCCESS)
        free(a.packed);
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    err = mpi_reduce_apply(op, datatype, a.data, b.data, (size_t)count);
    mpi_view_finish(&b, inoutbuf, t, b.bytes);
    free(a.packed);
    MPI_RETURN(MPI_COMM_WORLD, err);
}

/* ---- reductions ---- */

enum path { PATH_DIRECT, PATH_UNIFORM, PATH_GENERIC };

struct plan {
    int path;
    const struct mpi_type *t;
    size_t bytes;        /* of count items */
    nocmsg_datatype nt;  /* direct and uniform: what libnocmsg reduces */
    nocmsg_op nop;
    int ncount;          /* direct and uniform: elements of nt */
    MPI_Op op;
    MPI_Datatype type;
    size_t count;
};

static int plan_reduction(MPI_Op op, MPI_Datatype type, int count, struct plan *p)
{
    int commutative;
    int err = mpi_type_bytes(type, count, &p->t, &p->bytes);
    if (err == MPI_SUCCESS)
        err = mpi_op_check(op, &commutative);
    if (err != MPI_SUCCESS)
        return err;
    p->op = op;
    p->type = type;
    p->count = (size_t)count;
    struct user_op *u = user_op(op);
    p->nop = u ? u->nop : op;
    /* A built-in operation reduces a Fortran or C++ type as the C type of its layout (MPI_INTEGER as an int32_t). */
    MPI_Datatype as = type;
    if (!u && p->t->predefined && (err = mpi_type_reduce_as(type, op, &as)) != MPI_SUCCESS)
        return err;
    if (BASIC(as)) {
        p->path = PATH_DIRECT;
        p->nt = as;
        p->ncount = count;
        return MPI_SUCCESS;
    }
    size_t factor;
    nocmsg_datatype nt = u ? 0 : basic_for(p->t->uniform, op, &factor);
    size_t n = (size_t)count * p->t->elements * factor;
    if (nt && n <= INT_MAX) {
        p->path = PATH_UNIFORM;
        p->nt = nt;
        p->ncount = (int)n;
        return MPI_SUCCESS;
    }
    p->path = PATH_GENERIC;
    if (p->bytes > INT_MAX)
        return MPI_ERR_COUNT;
    if (!u && p->t->size > 0) {
        /* Whether the built-in operation is defined on the type (MAX on a complex type is not): tried on one item of
         * zeros now, since otherwise only the ranks that combine operands would find out, and the others would wait
         * for them. */
        enum { SMALL = 64 };
        _Alignas(16) unsigned char small[2 * SMALL] = {0};
        size_t room = (p->t->size + 15) & ~(size_t)15;
        unsigned char *scratch = room <= SMALL ? small : calloc(2, room);
        if (!scratch)
            return MPI_ERR_NO_MEM;
        err = mpi_reduce_apply(op, type, scratch, scratch + room, 1);
        if (scratch != small)
            free(scratch);
    }
    return err;
}

/* Rank 0 of c gets the reduction of every rank's `acc` (packed items), in rank order: a binomial tree in which
 * rank r holds the reduction of ranks r .. r + 2^k - 1 after step k. acc is overwritten on the way. */
static int generic_reduce0(struct comm *c, void *acc, const struct plan *p)
{
    char *tmp = malloc(p->bytes ? p->bytes : 1), *cur = acc;
    if (!tmp)
        return MPI_ERR_NO_MEM;
    char *other = tmp;
    int err = MPI_SUCCESS;
    for (int mask = 1; mask < c->size && err == MPI_SUCCESS; mask <<= 1) {
        if (c->rank & mask) {
            err = coll_send(cur, p->bytes, c->rank - mask, MPI_TAG_REDUCE, c);
            break;
        }
        if (c->rank + mask < c->size) {
            err = coll_recv(other, p->bytes, c->rank + mask, MPI_TAG_REDUCE, c);
            /* other = cur op other: the lower ranks' part comes first. */
            if (err == MPI_SUCCESS)
                err = mpi_reduce_apply(p->op, p->type, cur, other, p->count);
            char *swap = cur;
            cur = other;
            other = swap;
        }
    }
    if (cur != acc)
        memcpy(acc, cur, p->bytes);
    free(tmp);
    return err;
}

/* The packed input of a reduction (sendbuf, or recvbuf for MPI_IN_PLACE); *copy is what to free. */
static int packed_input(const void *buf, const struct plan *p, void **data, void **copy)
{
    *copy = malloc(p->bytes ? p->bytes : 1);
    if (!*copy)
        return MPI_ERR_NO_MEM;
    mpi_pack(buf, p->count, p->t, *copy);
    *data = *copy;
    return MPI_SUCCESS;
}

static int get_comm(MPI_Comm comm, struct comm **c)
{
    if (!mpi_up())
        return MPI_ERR_OTHER;
    *c = nocmsg_comm_get(comm);
    return *c ? MPI_SUCCESS : MPI_ERR_COMM;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm)
{
    struct comm *c;
    struct plan p;
    int err = get_comm(comm, &c);
    if (err == MPI_SUCCESS)
        err = plan_reduction(op, datatype, count, &p);
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    if (p.path == PATH_DIRECT)
        MPI_RETURN(comm, nocmsg_reduce(sendbuf, recvbuf, count, p.nt, p.nop, root, comm));
    if (root < 0 || root >= c->size)
        MPI_RETURN(comm, MPI_ERR_ROOT);
    if (sendbuf == MPI_IN_PLACE && c->rank != root)
        MPI_RETURN(comm, MPI_ERR_BUFFER);
    void *in, *copy, *out = NULL;
    err = packed_input(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, &p, &in, &copy);
    if (err == MPI_SUCCESS && c->rank == root && !(out = malloc(p.bytes ? p.bytes : 1)))
        err = MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS && p.path == PATH_UNIFORM) {
        err = nocmsg_reduce(in, out, p.ncount, p.nt, p.nop, root, comm);
    } else if (err == MPI_SUCCESS) {
        err = generic_reduce0(c, in, &p);
        if (err == MPI_SUCCESS && root != 0 && c->rank == 0)
            err = coll_send(in, p.bytes, root, MPI_TAG_REDUCE, c);
        if (err == MPI_SUCCESS && c->rank == root)
            err = root == 0 ? (memcpy(out, in, p.bytes), MPI_SUCCESS) : coll_recv(out, p.bytes, 0, MPI_TAG_REDUCE, c);
    }
    if (err == MPI_SUCCESS && c->rank == root)
        mpi_unpack(out, p.count, p.t, recvbuf);
    free(copy);
    free(out);
    MPI_RETURN(comm, err);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct comm *c;
    struct plan p;
    int err = get_comm(comm, &c);
    if (err == MPI_SUCCESS)
        err = plan_reduction(op, datatype, count, &p);
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    if (p.path == PATH_DIRECT)
        MPI_RETURN(comm, nocmsg_allreduce(sendbuf, recvbuf, count, p.nt, p.nop, comm));
    void *in, *copy;
    err = packed_input(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, &p, &in, &copy);
    if (err == MPI_SUCCESS && p.path == PATH_UNIFORM) {
        err = nocmsg_allreduce(NOCMSG_IN_PLACE, in, p.ncount, p.nt, p.nop, comm);
    } else if (err == MPI_SUCCESS) {
        err = generic_reduce0(c, in, &p);
        if (err == MPI_SUCCESS)
            err = nocmsg_bcast(in, (int)p.bytes, NOCMSG_BYTE, 0, comm);
    }
    if (err == MPI_SUCCESS)
        mpi_unpack(in, p.count, p.t, recvbuf);
    free(copy);
    MPI_RETURN(comm, err);
}

/* Reduce_scatter with counts in items; `block` >= 0 for Reduce_scatter_block (every count is block). */
static int reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], int block, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm)
{
    struct comm *c;
    int err = get_comm(comm, &c);
    if (err != MPI_SUCCESS)
        return err;
    int n = c->size, *counts = malloc(sizeof(int) * (size_t)n);
    if (!counts)
        return MPI_ERR_NO_MEM;
    long long total = 0;
    struct plan p = {0};
    for (int i = 0; i < n && err == MPI_SUCCESS; i++) {
        counts[i] = block >= 0 ? block : recvcounts ? recvcounts[i] : -1;
        if (counts[i] < 0)
            err = recvcounts || block >= 0 ? MPI_ERR_COUNT : MPI_ERR_ARG;
        total += counts[i];
    }
    if (err == MPI_SUCCESS)
        err = total > INT_MAX ? MPI_ERR_COUNT : plan_reduction(op, type, (int)total, &p);
    if (err == MPI_SUCCESS && p.path == PATH_DIRECT) {
        err = nocmsg_reduce_scatter(sendbuf, recvbuf, counts, p.nt, p.nop, comm);
        free(counts);
        return err;
    }
    void *in = NULL, *copy = NULL;
    if (err == MPI_SUCCESS)
        err = packed_input(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, &p, &in, &copy);
    size_t item = p.t ? p.t->size : 0;
    if (err == MPI_SUCCESS) {
        /* The whole reduction, then each rank's part. */
        if (p.path == PATH_UNIFORM)
            err = nocmsg_allreduce(NOCMSG_IN_PLACE, in, p.ncount, p.nt, p.nop, comm);
        else
            err = generic_reduce0(c, in, &p);
    }
    if (err == MPI_SUCCESS && p.path == PATH_GENERIC) {
        int *bcounts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
        char *mine = malloc(item * (size_t)counts[c->rank] + 1);
        if (bcounts && displs && mine) {
            int off = 0;
            for (int i = 0; i < n; i++) {
                bcounts[i] = (int)(item * (size_t)counts[i]);
                displs[i] = off;
                off += bcounts[i];
            }
            err = nocmsg_scatterv(in, bcounts, displs, NOCMSG_BYTE, mine, bcounts[c->rank], NOCMSG_BYTE, 0, comm);
            if (err == MPI_SUCCESS)
                mpi_unpack(mine, (size_t)counts[c->rank], p.t, recvbuf);
        } else {
            err = MPI_ERR_NO_MEM;
        }
        free(bcounts);
        free(displs);
        free(mine);
    } else if (err == MPI_SUCCESS) {
        size_t before = 0;
        for (int i = 0; i < c->rank; i++)
            before += (size_t)counts[i];
        mpi_unpack((char *)in + before * item, (size_t)counts[c->rank], p.t, recvbuf);
    }
    free(copy);
    free(counts);
    return err;
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm)
{
    MPI_RETURN(comm, reduce_scatter(sendbuf, recvbuf, recvcounts, -1, datatype, op, comm));
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm)
{
    if (recvcount < 0)
        MPI_RETURN(comm, MPI_ERR_COUNT);
    MPI_RETURN(comm, reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm));
}

/* Scan (exclusive = 0) and Exscan (exclusive = 1). */
static int scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                int exclusive)
{
    struct comm *c;
    struct plan p;
    int err = get_comm(comm, &c);
    if (err == MPI_SUCCESS)
        err = plan_reduction(op, type, count, &p);
    if (err != MPI_SUCCESS)
        return err;
    if (p.path == PATH_DIRECT && !exclusive)
        return nocmsg_scan(sendbuf, recvbuf, count, p.nt, p.nop, comm);
    if (count > 0 && !recvbuf)
        return MPI_ERR_BUFFER;
    const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (count > 0 && !src)
        return MPI_ERR_BUFFER;
    void *in, *copy, *prefix = malloc(p.bytes ? p.bytes : 1);
    if (!prefix)
        return MPI_ERR_NO_MEM;
    err = packed_input(src, &p, &in, &copy);
    if (err == MPI_SUCCESS && p.path != PATH_GENERIC) {
        /* libnocmsg's inclusive scan; for the exclusive one each rank then passes its result one rank up. */
        err = nocmsg_scan(NOCMSG_IN_PLACE, in, p.ncount, p.nt, p.nop, comm);
        if (err == MPI_SUCCESS && exclusive)
            err = coll_sendrecv(in, p.bytes, c->rank + 1 < c->size ? c->rank + 1 : NOCMSG_PROC_NULL, prefix, p.bytes,
                                c->rank > 0 ? c->rank - 1 : NOCMSG_PROC_NULL, MPI_TAG_EXSCAN, c);
        if (err == MPI_SUCCESS && (!exclusive || c->rank > 0))
            mpi_unpack(exclusive ? prefix : in, p.count, p.t, recvbuf);
    } else if (err == MPI_SUCCESS) {
        /* A chain: rank r gets the reduction of ranks 0 .. r - 1 from r - 1 and passes on that op its own. */
        if (c->rank > 0) {
            err = coll_recv(prefix, p.bytes, c->rank - 1, MPI_TAG_EXSCAN, c);
            if (err == MPI_SUCCESS && exclusive)
                mpi_unpack(prefix, p.count, p.t, recvbuf);
            if (err == MPI_SUCCESS)
                err = mpi_reduce_apply(p.op, p.type, prefix, in, p.count);
        }
        if (err == MPI_SUCCESS && c->rank + 1 < c->size)
            err = coll_send(in, p.bytes, c->rank + 1, MPI_TAG_EXSCAN, c);
        if (err == MPI_SUCCESS && !exclusive)
            mpi_unpack(in, p.count, p.t, recvbuf);
    }
    free(copy);
    free(prefix);
    return err;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_RETURN(comm, scan(sendbuf, recvbuf, count, datatype, op, comm, 0));
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_RETURN(comm, scan(sendbuf, recvbuf, count, datatype, op, comm, 1));
}

/* ---- data movement ---- */

/* n blocks of a user's buffer, block i being counts[i] items of t at buf + displs[i] * extent, as libnocmsg sees
 * them: bytes, at the user's memory when t is contiguous, else in a packed copy with the blocks one after another. */
struct layout {
    const struct mpi_type *t;
    char *buf;
    int n;
    const int *counts, *displs; /* the user's, in items (NULL: `count` each, one after another) */
    int count;
    int *bcounts, *bdispls;     /* in bytes, for libnocmsg's v collectives */
    int block;                  /* bytes of each block when the counts are uniform */
    char *data;                 /* what libnocmsg reads or writes */
    char *temp;
};

static int layout_make(struct layout *l, void *buf, MPI_Datatype type, int n, int count, const int *counts,
                       const int *displs, int copy)
{
    memset(l, 0, sizeof *l);
    size_t bytes;
    int err = mpi_type_bytes(type, 0, &l->t, &bytes);
    if (err != MPI_SUCCESS)
        return err;
    l->buf = buf;
    l->n = n;
    l->counts = counts;
    l->displs = displs;
    l->count = count;
    if (!counts && count < 0)
        return MPI_ERR_COUNT;
    if (counts && (!displs || n < 0))
        return MPI_ERR_ARG;
    size_t size = l->t->size, total = 0;
    if (!counts) {
        if ((size_t)count * size > INT_MAX)
            return MPI_ERR_COUNT;
        l->block = (int)((size_t)count * size);
        total = (size_t)l->block * (size_t)n;
    } else {
        l->bcounts = malloc(sizeof(int) * (size_t)(n ? n : 1));
        l->bdispls = malloc(sizeof(int) * (size_t)(n ? n : 1));
        if (!l->bcounts || !l->bdispls)
            return MPI_ERR_NO_MEM;
        int in_place = l->t->contiguous && !copy;
        for (int i = 0; i < n; i++) {
            if (counts[i] < 0)
                return MPI_ERR_COUNT;
            size_t b = (size_t)counts[i] * size;
            /* In the user's memory (extent = size for contiguous types), or packed one after another. */
            long long d = in_place ? (long long)displs[i] * (long long)size : (long long)total;
            if (b > INT_MAX || d > INT_MAX || d < INT_MIN)
                return MPI_ERR_COUNT;
            l->bcounts[i] = (int)b;
            l->bdispls[i] = (int)d;
            total += b;
        }
        if (total > INT_MAX && !in_place)
            return MPI_ERR_COUNT;
    }
    if (l->t->contiguous && !copy) {
        l->data = buf && buf != MPI_IN_PLACE ? l->buf + l->t->true_lb : l->buf;
        return MPI_SUCCESS;
    }
    if (!(l->temp = malloc(total ? total : 1)))
        return MPI_ERR_NO_MEM;
    l->data = l->temp;
    return MPI_SUCCESS;
}

/* Block i's place in the user's buffer, and in what libnocmsg sees. */
static char *layout_user(const struct layout *l, int i)
{
    MPI_Aint displ = l->counts ? l->displs[i] : (MPI_Aint)i * l->count;
    return l->buf + displ * l->t->extent;
}

static size_t layout_items(const struct layout *l, int i)
{
    return (size_t)(l->counts ? l->counts[i] : l->count);
}

static char *layout_data(const struct layout *l, int i)
{
    return l->data + (l->counts ? (size_t)l->bdispls[i] : (size_t)l->block * (size_t)i);
}

/* Copies block i (-1: all) from the user's buffer into the packed copy, or back. */
static void layout_pack(struct layout *l, int i)
{
    if (!l->temp)
        return;
    for (int b = i < 0 ? 0 : i; b < (i < 0 ? l->n : i + 1); b++)
        mpi_pack(layout_user(l, b), layout_items(l, b), l->t, layout_data(l, b));
}

static void layout_unpack(struct layout *l, int i)
{
    if (!l->temp)
        return;
    for (int b = i < 0 ? 0 : i; b < (i < 0 ? l->n : i + 1); b++)
        mpi_unpack(layout_data(l, b), layout_items(l, b), l->t, layout_user(l, b));
}

static void layout_free(struct layout *l)
{
    free(l->bcounts);
    free(l->bdispls);
    free(l->temp);
}

/* The single block a rank sends or receives in a rooted or all-to-all collective. */
static int single_view(const void *buf, int count, MPI_Datatype type, int sending, struct mpi_view *v,
                       const struct mpi_type **t)
{
    size_t bytes;
    int err = mpi_type_bytes(type, count, t, &bytes);
    if (err == MPI_SUCCESS && bytes > INT_MAX)
        err = MPI_ERR_COUNT;
    if (err == MPI_SUCCESS)
        err = sending ? mpi_view_send(buf, (size_t)count, *t, v) : mpi_view_recv((void *)buf, (size_t)count, *t, v);
    return err;
}

int MPI_Barrier(MPI_Comm comm)
{
    MPI_RETURN(comm, nocmsg_barrier(comm));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    if (WIRE(datatype))
        MPI_RETURN(comm, nocmsg_bcast(buffer, count, datatype, root, comm));
    struct comm *c;
    const struct mpi_type *t;
    struct mpi_view v;
    int err = get_comm(comm, &c);
    if (err == MPI_SUCCESS)
        err = root >= 0 && root < c->size ? MPI_SUCCESS : MPI_ERR_ROOT;
    if (err == MPI_SUCCESS)
        err = single_view(buffer, count, datatype, c->rank == root, &v, &t);
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    err = nocmsg_bcast(v.data, (int)v.bytes, NOCMSG_BYTE, root, comm);
    if (c->rank == root)
        free(v.packed);
    else
        mpi_view_finish(&v, buffer, t, err == MPI_SUCCESS ? v.bytes : 0);
    MPI_RETURN(comm, err);
}

/* Gather and Gatherv (counts != NULL). */
static int gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct comm *c;
    int err = get_comm(comm, &c);
    if (err == MPI_SUCCESS && (root < 0 || root >= c->size))
        err = MPI_ERR_ROOT;
    if (err != MPI_SUCCESS)
        return err;
    int me = c->rank, in_place = me == root && sendbuf == MPI_IN_PLACE;
    const struct mpi_type *st;
    struct mpi_view sv = {0};
    struct layout l = {0};
    if (!in_place)
        err = single_view(sendbuf, sendcount, sendtype, 1, &sv, &st);
    if (err == MPI_SUCCESS && me == root) {
        err = layout_make(&l, recvbuf, recvtype, c->size, recvcount, recvcounts, displs, 0);
        if (err == MPI_SUCCESS && in_place)
            layout_pack(&l, me);
    }
    if (err == MPI_SUCCESS) {
        const void *s = in_place ? NOCMSG_IN_PLACE : sv.data;
        int sbytes = in_place ? 0 : (int)sv.bytes;
        if (recvcounts)
            err = nocmsg_gatherv(s, sbytes, NOCMSG_BYTE, l.data, l.bcounts, l.bdispls, NOCMSG_BYTE, root, comm);
        else
            err = nocmsg_gather(s, sbytes, NOCMSG_BYTE, l.data, l.block, NOCMSG_BYTE, root, comm);
    }
    if (err == MPI_SUCCESS && me == root)
        layout_unpack(&l, -1);
    free(sv.packed);
    layout_free(&l);
    return err;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (WIRE(recvtype) && (WIRE(sendtype) || sendbuf == MPI_IN_PLACE))
        MPI_RETURN(comm, nocmsg_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
    MPI_RETURN(comm, gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, root, comm));
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (WIRE(recvtype) && (WIRE(sendtype) || sendbuf == MPI_IN_PLACE))
        MPI_RETURN(comm,
                   nocmsg_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm));
    int me;
    int err = nocmsg_comm_rank(comm, &me);
    if (err == MPI_SUCCESS && me == root && !recvcounts)
        err = MPI_ERR_ARG;
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    static const int none = 0;
    MPI_RETURN(comm, gather(sendbuf, sendcount, sendtype, recvbuf, 0, me == root ? recvcounts : &none,
                            me == root ? displs : &none, recvtype, root, comm));
}

/* Scatter and Scatterv (counts != NULL). */
static int scatter(const void *sendbuf, int sendcount, const int *sendcounts, const int *displs,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct comm *c;
    int err = get_comm(comm, &c);
    if (err == MPI_SUCCESS && (root < 0 || root >= c->size))
        err = MPI_ERR_ROOT;
    if (err != MPI_SUCCESS)
        return err;
    int me = c->rank, in_place = me == root && recvbuf == MPI_IN_PLACE;
    const struct mpi_type *rt = NULL;
    struct mpi_view rv = {0};
    struct layout l = {0};
    if (!in_place)
        err = single_view(recvbuf, recvcount, recvtype, 0, &rv, &rt);
    if (err == MPI_SUCCESS && me == root) {
        err = layout_make(&l, (void *)sendbuf, sendtype, c->size, sendcount, sendcounts, displs, 0);
        if (err == MPI_SUCCESS)
            layout_pack(&l, -1);
    }
    if (err == MPI_SUCCESS) {
        void *r = in_place ? NOCMSG_IN_PLACE : rv.data;
        int rbytes = in_place ? 0 : (int)rv.bytes;
        if (sendcounts)
            err = nocmsg_scatterv(l.data, l.bcounts, l.bdispls, NOCMSG_BYTE, r, rbytes, NOCMSG_BYTE, root, comm);
        else
            err = nocmsg_scatter(l.data, l.block, NOCMSG_BYTE, r, rbytes, NOCMSG_BYTE, root, comm);
    }
    if (!in_place)
        mpi_view_finish(&rv, recvbuf, rt, err == MPI_SUCCESS ? rv.bytes : 0);
    layout_free(&l);
    return err;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (WIRE(sendtype) && (WIRE(recvtype) || recvbuf == MPI_IN_PLACE))
        MPI_RETURN(comm, nocmsg_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
    MPI_RETURN(comm, scatter(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (WIRE(sendtype) && (WIRE(recvtype) || recvbuf == MPI_IN_PLACE))
        MPI_RETURN(comm,
                   nocmsg_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm));
    int me;
    int err = nocmsg_comm_rank(comm, &me);
    if (err == MPI_SUCCESS && me == root && !sendcounts)
        err = MPI_ERR_ARG;
    if (err != MPI_SUCCESS)
        MPI_RETURN(comm, err);
    static const int none = 0;
    MPI_RETURN(comm, scatter(sendbuf, 0, me == root ? sendcounts : &none, me == root ? displs : &none, sendtype,
                             recvbuf, recvcount, recvtype, root, comm));
}

/* Allgather and Allgatherv (counts != NULL). */
static int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    struct comm *c;
    int err = get_comm(comm, &c);
    if (err != MPI_SUCCESS)
        return err;
    int in_place = sendbuf == MPI_IN_PLACE;
    const struct mpi_type *st;
    struct mpi_view sv = {0};
    struct layout l;
    if (!in_place)
        err = single_view(sendbuf, sendcount, sendtype, 1, &sv, &st);
    if (err == MPI_SUCCESS) {
        err = layout_make(&l, recvbuf, recvtype, c->size, recvcount, recvcounts, displs, 0);
        if (err == MPI_SUCCESS && in_place)
            layout_pack(&l, c->rank);
    } else {
        memset(&l, 0, sizeof l);
    }
    if (err == MPI_SUCCESS) {
        const void *s = in_place ? NOCMSG_IN_PLACE : sv.data;
        int sbytes = in_place ? 0 : (int)sv.bytes;
        if (recvcounts)
            err = nocmsg_allgatherv(s, sbytes, NOCMSG_BYTE, l.data, l.bcounts, l.bdispls, NOCMSG_BYTE, comm);
        else
            err = nocmsg_allgather(s, sbytes, NOCMSG_BYTE, l.data, l.block, NOCMSG_BYTE, comm);
    }
    if (err == MPI_SUCCESS)
        layout_unpack(&l, -1);
    free(sv.packed);
    layout_free(&l);
    return err;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    if (WIRE(recvtype) && (WIRE(sendtype) || sendbuf == MPI_IN_PLACE))
        MPI_RETURN(comm, nocmsg_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
    MPI_RETURN(comm, allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, comm));
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (WIRE(recvtype) && (WIRE(sendtype) || sendbuf == MPI_IN_PLACE))
        MPI_RETURN(comm, nocmsg_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
    if (!recvcounts)
        MPI_RETURN(comm, MPI_ERR_ARG);
    MPI_RETURN(comm, allgather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, comm));
}

/* Alltoall and Alltoallv (counts != NULL). MPI_IN_PLACE: the data to send is in recvbuf, described like it. */
static int alltoall(const void *sendbuf, int sendcount, const int *sendcounts, const int *sdispls,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, const int *recvcounts, const int *rdispls,
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    struct comm *c;
    int err = get_comm(comm, &c);
    if (err != MPI_SUCCESS)
        return err;
    struct layout sl, rl;
    memset(&rl, 0, sizeof rl);
    if (sendbuf == MPI_IN_PLACE)
        err = layout_make(&sl, recvbuf, recvtype, c->size, recvcount, recvcounts, rdispls, 1);
    else
        err = layout_make(&sl, (void *)sendbuf, sendtype, c->size, sendcount, sendcounts, sdispls, 0);
    if (err == MPI_SUCCESS) {
        layout_pack(&sl, -1);
        err = layout_make(&rl, recvbuf, recvtype, c->size, recvcount, recvcounts, rdispls, 0);
    }
    if (err == MPI_SUCCESS) {
        if (recvcounts)
            err = nocmsg_alltoallv(sl.data, sl.bcounts, sl.bdispls, NOCMSG_BYTE, rl.data, rl.bcounts, rl.bdispls,
                                   NOCMSG_BYTE, comm);
        else
            err = nocmsg_alltoall(sl.data, sl.block, NOCMSG_BYTE, rl.data, rl.block, NOCMSG_BYTE, comm);
    }
    if (err == MPI_SUCCESS)
        layout_unpack(&rl, -1);
    layout_free(&sl);
    layout_free(&rl);
    return err;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    if (WIRE(recvtype) && WIRE(sendtype) && sendbuf != MPI_IN_PLACE)
        MPI_RETURN(comm, nocmsg_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
    MPI_RETURN(comm,
               alltoall(sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, comm));
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (WIRE(recvtype) && WIRE(sendtype) && sendbuf != MPI_IN_PLACE)
        MPI_RETURN(comm, nocmsg_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                          recvtype, comm));
    if (!recvcounts || (sendbuf != MPI_IN_PLACE && !sendcounts))
        MPI_RETURN(comm, MPI_ERR_ARG);
    MPI_RETURN(comm, alltoall(sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, recvtype,
                              comm));
}

MPI_Fint MPI_Op_c2f(MPI_Op op)
{
    return (MPI_Fint)op;
}

MPI_Op MPI_Op_f2c(MPI_Fint op)
{
    return (MPI_Op)op;
}
