/*
 * ops.c: reduction operations: the built-in ones on every datatype they are defined for, and user-defined ones
 * (nocmsg_op_create).
 */
#include "coll.h"

#include <stdlib.h>

/* User-defined operations get handles from NOCMSG_BUILTIN_OPS on: entry i of a table that grows as they are
 * created (up to MAX_USER_OPS live ones), so programs without any pay nothing. */
#define MAX_USER_OPS 256
static struct user_op {
    nocmsg_user_function *fn; /* NULL: a free entry */
    int commute;
} *user_ops;
static int nuser_ops;

int nocmsg_op_create(nocmsg_user_function *function, int commute, nocmsg_op *op)
{
    CHECK_INIT();
    if (!function || !op)
        return NOCMSG_ERR_ARG;
    int i = 0;
    while (i < nuser_ops && user_ops[i].fn)
        i++;
    if (i == nuser_ops) {
        int n = nuser_ops ? 2 * nuser_ops : 8;
        if (n > MAX_USER_OPS)
            n = MAX_USER_OPS;
        struct user_op *grown = i < n ? realloc(user_ops, (size_t)n * sizeof *grown) : NULL;
        if (!grown)
            return NOCMSG_ERR_NO_MEM;
        for (int k = nuser_ops; k < n; k++)
            grown[k].fn = NULL;
        user_ops = grown;
        nuser_ops = n;
    }
    user_ops[i].fn = function;
    user_ops[i].commute = commute != 0;
    *op = NOCMSG_BUILTIN_OPS + i;
    return NOCMSG_SUCCESS;
}

static int user_index(nocmsg_op op)
{
    int i = op - NOCMSG_BUILTIN_OPS;
    return i >= 0 && i < nuser_ops && user_ops[i].fn ? i : -1;
}

int nocmsg_op_free(nocmsg_op *op)
{
    CHECK_INIT();
    if (!op)
        return NOCMSG_ERR_ARG;
    int i = user_index(*op);
    if (i < 0)
        return NOCMSG_ERR_OP;
    user_ops[i].fn = NULL;
    *op = NOCMSG_OP_NULL;
    return NOCMSG_SUCCESS;
}

enum type_class { CLASS_INTEGER, CLASS_FLOAT, CLASS_BYTE, CLASS_PAIR };

static enum type_class class_of(nocmsg_datatype type)
{
    switch (type) {
    case NOCMSG_BYTE:
        return CLASS_BYTE;
    case NOCMSG_FLOAT:
    case NOCMSG_DOUBLE:
        return CLASS_FLOAT;
    case NOCMSG_FLOAT_INT:
    case NOCMSG_DOUBLE_INT:
    case NOCMSG_LONG_INT:
    case NOCMSG_2INT:
    case NOCMSG_SHORT_INT:
        return CLASS_PAIR;
    default:
        return CLASS_INTEGER;
    }
}

int coll_reduction_of(nocmsg_op op, nocmsg_datatype type, struct coll_reduction *red)
{
    if (type <= NOCMSG_DATATYPE_NULL || type >= NOCMSG_BASIC_DATATYPES)
        return NOCMSG_ERR_TYPE;
    red->op = op;
    red->type = type;
    red->elem = (size_t)nocmsg_type_sizes[type];
    red->commutative = 1;
    if (op >= NOCMSG_BUILTIN_OPS) {
        int i = user_index(op);
        if (i < 0)
            return NOCMSG_ERR_OP;
        red->commutative = user_ops[i].commute;
        return NOCMSG_SUCCESS;
    }
    enum type_class k = class_of(type);
    switch (op) {
    case NOCMSG_SUM:
    case NOCMSG_PROD:
    case NOCMSG_MIN:
    case NOCMSG_MAX:
        return k == CLASS_INTEGER || k == CLASS_FLOAT ? NOCMSG_SUCCESS : NOCMSG_ERR_OP;
    case NOCMSG_LAND:
    case NOCMSG_LOR:
    case NOCMSG_LXOR:
        return k == CLASS_INTEGER ? NOCMSG_SUCCESS : NOCMSG_ERR_OP;
    case NOCMSG_BAND:
    case NOCMSG_BOR:
    case NOCMSG_BXOR:
        return k == CLASS_INTEGER || k == CLASS_BYTE ? NOCMSG_SUCCESS : NOCMSG_ERR_OP;
    case NOCMSG_MINLOC:
    case NOCMSG_MAXLOC:
        return k == CLASS_PAIR ? NOCMSG_SUCCESS : NOCMSG_ERR_OP;
    default:
        return NOCMSG_ERR_OP;
    }
}

/* inout[i] = in[i] op inout[i] for one C type; the arithmetic ones for every number type, the logical and bitwise
 * ones for integers only. */
#define ARITH(T)                                                                                                \
    do {                                                                                                        \
        const T *a = in;                                                                                        \
        T *b = inout;                                                                                           \
        switch (red->op) {                                                                                      \
        case NOCMSG_SUM:                                                                                        \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = (T)(a[i] + b[i]);                                                                        \
            return;                                                                                             \
        case NOCMSG_PROD:                                                                                       \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = (T)(a[i] * b[i]);                                                                        \
            return;                                                                                             \
        case NOCMSG_MIN:                                                                                        \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = a[i] < b[i] ? a[i] : b[i];                                                               \
            return;                                                                                             \
        case NOCMSG_MAX:                                                                                        \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = a[i] > b[i] ? a[i] : b[i];                                                               \
            return;                                                                                             \
        default:                                                                                                \
            break;                                                                                              \
        }                                                                                                       \
    } while (0)

#define BITS(T)                                                                                                 \
    do {                                                                                                        \
        const T *a = in;                                                                                        \
        T *b = inout;                                                                                           \
        switch (red->op) {                                                                                      \
        case NOCMSG_LAND:                                                                                       \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = (T)(a[i] && b[i]);                                                                       \
            return;                                                                                             \
        case NOCMSG_LOR:                                                                                        \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = (T)(a[i] || b[i]);                                                                       \
            return;                                                                                             \
        case NOCMSG_LXOR:                                                                                       \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = (T)(!a[i] != !b[i]);                                                                     \
            return;                                                                                             \
        case NOCMSG_BAND:                                                                                       \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = (T)(a[i] & b[i]);                                                                        \
            return;                                                                                             \
        case NOCMSG_BOR:                                                                                        \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = (T)(a[i] | b[i]);                                                                        \
            return;                                                                                             \
        case NOCMSG_BXOR:                                                                                       \
            for (size_t i = 0; i < n; i++)                                                                      \
                b[i] = (T)(a[i] ^ b[i]);                                                                        \
            return;                                                                                             \
        default:                                                                                                \
            break;                                                                                              \
        }                                                                                                       \
    } while (0)

#define INTEGER(T)                                                                                              \
    do {                                                                                                        \
        ARITH(T);                                                                                               \
        BITS(T);                                                                                                \
    } while (0)

/* MINLOC/MAXLOC: the extreme value, and on a tie the smaller index (MPI's rule). */
#define PAIR(S)                                                                                                 \
    do {                                                                                                        \
        const struct S *a = in;                                                                                 \
        struct S *b = inout;                                                                                    \
        int max = red->op == NOCMSG_MAXLOC;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                                        \
            if (a[i].v == b[i].v) {                                                                             \
                if (a[i].i < b[i].i)                                                                            \
                    b[i].i = a[i].i;                                                                            \
            } else if (max ? a[i].v > b[i].v : a[i].v < b[i].v) {                                               \
                b[i] = a[i];                                                                                    \
            }                                                                                                   \
        }                                                                                                       \
        return;                                                                                                 \
    } while (0)

void coll_apply(const struct coll_reduction *red, const void *in, void *inout, size_t n)
{
    if (red->op >= NOCMSG_BUILTIN_OPS) {
        /* A user function takes an int count: feed it in pieces if need be. */
        nocmsg_user_function *fn = user_ops[red->op - NOCMSG_BUILTIN_OPS].fn;
        nocmsg_datatype type = red->type;
        const unsigned char *a = in;
        unsigned char *b = inout;
        while (n > 0) {
            int len = n > 0x40000000u ? 0x40000000 : (int)n;
            fn((void *)a, b, &len, &type);
            a += (size_t)len * red->elem;
            b += (size_t)len * red->elem;
            n -= (size_t)len;
        }
        return;
    }
    switch (red->type) {
    case NOCMSG_CHAR:
        INTEGER(char);
        break;
    case NOCMSG_SIGNED_CHAR:
    case NOCMSG_INT8:
        INTEGER(signed char);
        break;
    case NOCMSG_BYTE:
    case NOCMSG_UNSIGNED_CHAR:
    case NOCMSG_UINT8:
        INTEGER(unsigned char);
        break;
    case NOCMSG_SHORT:
    case NOCMSG_INT16:
        INTEGER(short);
        break;
    case NOCMSG_UNSIGNED_SHORT:
    case NOCMSG_UINT16:
        INTEGER(unsigned short);
        break;
    case NOCMSG_INT:
    case NOCMSG_INT32:
        INTEGER(int);
        break;
    case NOCMSG_UNSIGNED:
    case NOCMSG_UINT32:
        INTEGER(unsigned);
        break;
    case NOCMSG_LONG:
        INTEGER(long);
        break;
    case NOCMSG_UNSIGNED_LONG:
        INTEGER(unsigned long);
        break;
    case NOCMSG_LONG_LONG:
    case NOCMSG_INT64:
        INTEGER(long long);
        break;
    case NOCMSG_UNSIGNED_LONG_LONG:
    case NOCMSG_UINT64:
        INTEGER(unsigned long long);
        break;
    case NOCMSG_FLOAT:
        ARITH(float);
        break;
    case NOCMSG_DOUBLE:
        ARITH(double);
        break;
    case NOCMSG_FLOAT_INT:
        PAIR(nocmsg_float_int);
    case NOCMSG_DOUBLE_INT:
        PAIR(nocmsg_double_int);
    case NOCMSG_LONG_INT:
        PAIR(nocmsg_long_int);
    case NOCMSG_2INT:
        PAIR(nocmsg_2int);
    case NOCMSG_SHORT_INT:
        PAIR(nocmsg_short_int);
    default:
        break;
    }
}
