/* types.c: the datatype table, reduction inputs, the naive reference reduction and the user-defined operations. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "red.h"

/* The pair types' C layouts, as nocmsg.h describes them. */
struct t_float_int {
    float v;
    int i;
};
struct t_double_int {
    double v;
    int i;
};
struct t_long_int {
    long v;
    int i;
};
struct t_2int {
    int v;
    int i;
};
struct t_short_int {
    short v;
    int i;
};

enum { K_BYTE, K_CHAR, K_SINT, K_UINT, K_FLOAT, K_PAIR };

static const struct {
    const char *name;
    int size, kind;
} types[] = {
    [NOCMSG_BYTE] = {"BYTE", 1, K_BYTE},
    [NOCMSG_CHAR] = {"CHAR", 1, K_CHAR},
    [NOCMSG_SIGNED_CHAR] = {"SIGNED_CHAR", 1, K_SINT},
    [NOCMSG_UNSIGNED_CHAR] = {"UNSIGNED_CHAR", 1, K_UINT},
    [NOCMSG_SHORT] = {"SHORT", sizeof(short), K_SINT},
    [NOCMSG_UNSIGNED_SHORT] = {"UNSIGNED_SHORT", sizeof(unsigned short), K_UINT},
    [NOCMSG_INT] = {"INT", sizeof(int), K_SINT},
    [NOCMSG_UNSIGNED] = {"UNSIGNED", sizeof(unsigned), K_UINT},
    [NOCMSG_LONG] = {"LONG", sizeof(long), K_SINT},
    [NOCMSG_UNSIGNED_LONG] = {"UNSIGNED_LONG", sizeof(unsigned long), K_UINT},
    [NOCMSG_LONG_LONG] = {"LONG_LONG", sizeof(long long), K_SINT},
    [NOCMSG_UNSIGNED_LONG_LONG] = {"UNSIGNED_LONG_LONG", sizeof(unsigned long long), K_UINT},
    [NOCMSG_INT8] = {"INT8", 1, K_SINT},
    [NOCMSG_UINT8] = {"UINT8", 1, K_UINT},
    [NOCMSG_INT16] = {"INT16", 2, K_SINT},
    [NOCMSG_UINT16] = {"UINT16", 2, K_UINT},
    [NOCMSG_INT32] = {"INT32", 4, K_SINT},
    [NOCMSG_UINT32] = {"UINT32", 4, K_UINT},
    [NOCMSG_INT64] = {"INT64", 8, K_SINT},
    [NOCMSG_UINT64] = {"UINT64", 8, K_UINT},
    [NOCMSG_FLOAT] = {"FLOAT", sizeof(float), K_FLOAT},
    [NOCMSG_DOUBLE] = {"DOUBLE", sizeof(double), K_FLOAT},
    [NOCMSG_FLOAT_INT] = {"FLOAT_INT", sizeof(struct t_float_int), K_PAIR},
    [NOCMSG_DOUBLE_INT] = {"DOUBLE_INT", sizeof(struct t_double_int), K_PAIR},
    [NOCMSG_LONG_INT] = {"LONG_INT", sizeof(struct t_long_int), K_PAIR},
    [NOCMSG_2INT] = {"2INT", sizeof(struct t_2int), K_PAIR},
    [NOCMSG_SHORT_INT] = {"SHORT_INT", sizeof(struct t_short_int), K_PAIR},
};
_Static_assert(sizeof types / sizeof types[0] == NOCMSG_BASIC_DATATYPES, "one entry per basic datatype");

static int known(nocmsg_datatype type)
{
    return type > NOCMSG_DATATYPE_NULL && type < NOCMSG_BASIC_DATATYPES;
}

int t_type_size(nocmsg_datatype type)
{
    return known(type) ? types[type].size : 0;
}

const char *t_type_name(nocmsg_datatype type)
{
    return known(type) ? types[type].name : "bad type";
}

const char *t_op_name(nocmsg_op op)
{
    static const char *const names[] = {"OP_NULL", "SUM",  "PROD", "MIN",  "MAX",  "LAND",   "LOR",
                                        "LXOR",    "BAND", "BOR",  "BXOR", "MINLOC", "MAXLOC"};
    _Static_assert(sizeof names / sizeof names[0] == NOCMSG_BUILTIN_OPS, "one name per built-in operation");
    return op >= 0 && op < NOCMSG_BUILTIN_OPS ? names[op] : "user op";
}

int t_op_defined(nocmsg_op op, nocmsg_datatype type)
{
    if (!known(type))
        return 0;
    int k = types[type].kind;
    switch (op) {
    case NOCMSG_SUM:
    case NOCMSG_PROD:
    case NOCMSG_MIN:
    case NOCMSG_MAX:
        return k == K_SINT || k == K_UINT || k == K_FLOAT;
    case NOCMSG_LAND:
    case NOCMSG_LOR:
    case NOCMSG_LXOR:
        return k == K_SINT || k == K_UINT;
    case NOCMSG_BAND:
    case NOCMSG_BOR:
    case NOCMSG_BXOR:
        return k == K_SINT || k == K_UINT || k == K_BYTE;
    case NOCMSG_MINLOC:
    case NOCMSG_MAXLOC:
        return k == K_PAIR;
    default:
        return 0;
    }
}

/* ---- user-defined operations ---- */

nocmsg_op t_user_op[T_USER_KINDS];
long t_user_bad_calls;

static void order_fn(void *in, void *inout, int *len, nocmsg_datatype *type)
{
    if (*type != NOCMSG_2INT || *len < 0) {
        t_user_bad_calls++;
        return;
    }
    const struct t_2int *a = in;
    struct t_2int *b = inout;
    for (int k = 0; k < *len; k++) {
        if (a[k].v >= 0 && b[k].v >= 0 && a[k].i + 1 == b[k].v) {
            b[k].v = a[k].v;
        } else {
            b[k].v = -1;
            b[k].i = -1;
        }
    }
}

static void affine_fn(void *in, void *inout, int *len, nocmsg_datatype *type)
{
    if (*type != NOCMSG_UINT64 || *len < 0) {
        t_user_bad_calls++;
        return;
    }
    const uint64_t *f = in;
    uint64_t *g = inout;
    for (int k = 0; k < *len; k++) {
        uint32_t a1 = (uint32_t)(f[k] >> 32), b1 = (uint32_t)f[k];
        uint32_t a2 = (uint32_t)(g[k] >> 32), b2 = (uint32_t)g[k];
        /* x -> a2*(a1*x + b1) + b2 */
        g[k] = (uint64_t)(uint32_t)(a2 * a1) << 32 | (uint32_t)(a2 * b1 + b2);
    }
}

static void oddmul_fn(void *in, void *inout, int *len, nocmsg_datatype *type)
{
    if (*type != NOCMSG_UINT64 || *len < 0) {
        t_user_bad_calls++;
        return;
    }
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int k = 0; k < *len; k++)
        b[k] *= a[k];
}

static nocmsg_user_function *const user_fns[T_USER_KINDS] = {NULL, order_fn, affine_fn, oddmul_fn};

void t_user_ops_create(void)
{
    for (int u = 1; u < T_USER_KINDS; u++) {
        t_user_op[u] = NOCMSG_OP_NULL;
        CHECK_OK(nocmsg_op_create(user_fns[u], u == T_USER_ODDMUL, &t_user_op[u]));
        CHECK(t_user_op[u] != NOCMSG_OP_NULL, "op_create gave NOCMSG_OP_NULL");
        for (int b = 0; b < NOCMSG_BUILTIN_OPS; b++)
            CHECK(t_user_op[u] != b, "op_create gave the handle of built-in operation %s", t_op_name(b));
        for (int v = 1; v < u; v++)
            CHECK(t_user_op[u] != t_user_op[v], "op_create gave the same handle twice");
    }
}

void t_user_ops_free(void)
{
    for (int u = 1; u < T_USER_KINDS; u++) {
        CHECK_OK(nocmsg_op_free(&t_user_op[u]));
        CHECK(t_user_op[u] == NOCMSG_OP_NULL, "op_free did not reset the handle");
    }
}

/* ---- cases ---- */

nocmsg_op t_red_op(const t_red *rd)
{
    return rd->user ? t_user_op[rd->user] : rd->op;
}

const char *t_red_name(const t_red *rd)
{
    static const char *const user_names[T_USER_KINDS] = {"", "user-order", "user-affine", "user-oddmul"};
    return rd->user ? user_names[rd->user] : t_op_name(rd->op);
}

static void put_int(void *p, int size, uint64_t v)
{
    switch (size) {
    case 1:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case 2:
        *(uint16_t *)p = (uint16_t)v;
        break;
    case 4:
        *(uint32_t *)p = (uint32_t)v;
        break;
    default:
        *(uint64_t *)p = v;
        break;
    }
}

/* A value for element k that keeps every evaluation order exact (see red.h). */
static uint64_t int_value(nocmsg_op op, int kind, int size, uint64_t m, int k)
{
    switch (op) {
    case NOCMSG_SUM:
        if (kind == K_UINT)
            return m; /* wraps, which is defined */
        return (uint64_t)(size <= 2 ? (int64_t)(m % 7) - 3 : (int64_t)(m % 2001) - 1000);
    case NOCMSG_PROD:
        if (kind == K_UINT)
            return size >= 4 ? (m | 1) : size == 2 ? 1 + m % 3 : m;
        if (size == 1)
            return (uint64_t)(m % 3 == 0 ? -1 : 1);
        return (uint64_t)(int64_t)(m % 8 == 0 ? 2 : m % 8 < 3 ? -1 : 1);
    case NOCMSG_LAND:
    case NOCMSG_LOR:
    case NOCMSG_LXOR:
        /* Element k is 0 with a probability that grows with k % 17, so every result occurs. */
        return (int)((m >> 40) % 16) < (k * 5) % 17 ? 0 : (uint64_t)(((int64_t)(m % 199) - 99) | 1);
    case NOCMSG_BAND:
        return m | m >> 21 | m >> 43;
    case NOCMSG_BOR:
        return m & m >> 21 & m >> 43;
    default:
        return m;
    }
}

static double float_value(nocmsg_op op, uint64_t m)
{
    static const double factors[4] = {1.0, -1.0, 2.0, 0.5};
    switch (op) {
    case NOCMSG_SUM:
        return ((int)(m % 201) - 100) * 0.5;
    case NOCMSG_PROD:
        return factors[m % 4];
    default:
        return ((int)(m % 2000001) - 1000000) / 8.0;
    }
}

void t_red_input(const t_red *rd, int rank, uint64_t seed, void *buf, int count)
{
    nocmsg_datatype type = rd->type;
    int size = types[type].size, kind = types[type].kind;
    unsigned char *p = buf;
    for (int k = 0; k < count; k++, p += size) {
        uint64_t m = t_key(seed, (uint64_t)rank, (uint64_t)k);
        if (rd->user == T_USER_ORDER) {
            struct t_2int e = {k * 4096 + rank, k * 4096 + rank};
            memcpy(p, &e, sizeof e);
        } else if (rd->user == T_USER_AFFINE) {
            *(uint64_t *)p = (m | 1) << 32 | (m >> 40);
        } else if (rd->user == T_USER_ODDMUL) {
            *(uint64_t *)p = m | 1;
        } else if (kind == K_FLOAT) {
            double v = float_value(rd->op, m);
            if (type == NOCMSG_FLOAT)
                *(float *)p = (float)v;
            else
                *(double *)p = v;
        } else if (kind == K_PAIR) {
            /* Values 0..3, so ties are frequent; indices anywhere in -500..499. */
            int v = (int)(m % 4), i = (int)((m >> 32) % 1000) - 500;
            memset(p, 0, (size_t)size);
            switch (type) {
            case NOCMSG_FLOAT_INT: ((struct t_float_int *)p)->v = (float)v, ((struct t_float_int *)p)->i = i; break;
            case NOCMSG_DOUBLE_INT: ((struct t_double_int *)p)->v = v, ((struct t_double_int *)p)->i = i; break;
            case NOCMSG_LONG_INT: ((struct t_long_int *)p)->v = v, ((struct t_long_int *)p)->i = i; break;
            case NOCMSG_2INT: ((struct t_2int *)p)->v = v, ((struct t_2int *)p)->i = i; break;
            default: ((struct t_short_int *)p)->v = (short)v, ((struct t_short_int *)p)->i = i; break;
            }
        } else {
            put_int(p, size, int_value(rd->op, kind, size, m, k));
        }
    }
}

#define APPLY(T, EXPR)                                                                                                 \
    do {                                                                                                               \
        const T *a_ = in;                                                                                              \
        T *b_ = inout;                                                                                                 \
        for (int i_ = 0; i_ < n; i_++) {                                                                               \
            T x = a_[i_], y = b_[i_];                                                                                  \
            b_[i_] = (T)(EXPR);                                                                                        \
        }                                                                                                              \
    } while (0)

#define ARITH(T)                                                                                                       \
    switch (op) {                                                                                                      \
    case NOCMSG_SUM: APPLY(T, x + y); return;                                                                          \
    case NOCMSG_PROD: APPLY(T, x * y); return;                                                                         \
    case NOCMSG_MIN: APPLY(T, x < y ? x : y); return;                                                                  \
    case NOCMSG_MAX: APPLY(T, x > y ? x : y); return;                                                                  \
    default: break;                                                                                                    \
    }

#define LOGIC(T)                                                                                                       \
    switch (op) {                                                                                                      \
    case NOCMSG_LAND: APPLY(T, x != 0 && y != 0); return;                                                              \
    case NOCMSG_LOR: APPLY(T, x != 0 || y != 0); return;                                                               \
    case NOCMSG_LXOR: APPLY(T, (x != 0) != (y != 0)); return;                                                          \
    case NOCMSG_BAND: APPLY(T, x & y); return;                                                                         \
    case NOCMSG_BOR: APPLY(T, x | y); return;                                                                          \
    case NOCMSG_BXOR: APPLY(T, x ^ y); return;                                                                         \
    default: break;                                                                                                    \
    }

#define INTEGER(T)                                                                                                     \
    ARITH(T)                                                                                                           \
    LOGIC(T)                                                                                                           \
    break

/* MINLOC and MAXLOC: the smaller (larger) value; on a tie, the smaller index. */
#define PAIRS(S)                                                                                                       \
    do {                                                                                                               \
        const struct S *a_ = in;                                                                                       \
        struct S *b_ = inout;                                                                                          \
        for (int i_ = 0; i_ < n; i_++) {                                                                               \
            int better = op == NOCMSG_MINLOC ? a_[i_].v < b_[i_].v : a_[i_].v > b_[i_].v;                              \
            if (better || (a_[i_].v == b_[i_].v && a_[i_].i < b_[i_].i)) {                                             \
                b_[i_].v = a_[i_].v;                                                                                   \
                b_[i_].i = a_[i_].i;                                                                                   \
            }                                                                                                          \
        }                                                                                                              \
        return;                                                                                                        \
    } while (0)

void t_red_apply(const t_red *rd, const void *in, void *inout, int n)
{
    if (rd->user) {
        nocmsg_datatype type = rd->type;
        user_fns[rd->user]((void *)in, inout, &n, &type);
        return;
    }
    nocmsg_op op = rd->op;
    switch (rd->type) {
    case NOCMSG_BYTE: LOGIC(unsigned char); break;
    case NOCMSG_SIGNED_CHAR: INTEGER(signed char);
    case NOCMSG_UNSIGNED_CHAR: INTEGER(unsigned char);
    case NOCMSG_SHORT: INTEGER(short);
    case NOCMSG_UNSIGNED_SHORT: INTEGER(unsigned short);
    case NOCMSG_INT: INTEGER(int);
    case NOCMSG_UNSIGNED: INTEGER(unsigned);
    case NOCMSG_LONG: INTEGER(long);
    case NOCMSG_UNSIGNED_LONG: INTEGER(unsigned long);
    case NOCMSG_LONG_LONG: INTEGER(long long);
    case NOCMSG_UNSIGNED_LONG_LONG: INTEGER(unsigned long long);
    case NOCMSG_INT8: INTEGER(int8_t);
    case NOCMSG_UINT8: INTEGER(uint8_t);
    case NOCMSG_INT16: INTEGER(int16_t);
    case NOCMSG_UINT16: INTEGER(uint16_t);
    case NOCMSG_INT32: INTEGER(int32_t);
    case NOCMSG_UINT32: INTEGER(uint32_t);
    case NOCMSG_INT64: INTEGER(int64_t);
    case NOCMSG_UINT64: INTEGER(uint64_t);
    case NOCMSG_FLOAT: ARITH(float) break;
    case NOCMSG_DOUBLE: ARITH(double) break;
    case NOCMSG_FLOAT_INT: PAIRS(t_float_int);
    case NOCMSG_DOUBLE_INT: PAIRS(t_double_int);
    case NOCMSG_LONG_INT: PAIRS(t_long_int);
    case NOCMSG_2INT: PAIRS(t_2int);
    case NOCMSG_SHORT_INT: PAIRS(t_short_int);
    default: break;
    }
    t_fail(__FILE__, __LINE__, "no reference for %s on %s", t_op_name(op), t_type_name(rd->type));
}

/* Where the value and the index of a pair element are (the rest is padding). */
static void pair_layout(nocmsg_datatype type, size_t *value_size, size_t *index_offset)
{
    switch (type) {
    case NOCMSG_FLOAT_INT: *value_size = sizeof(float), *index_offset = offsetof(struct t_float_int, i); break;
    case NOCMSG_DOUBLE_INT: *value_size = sizeof(double), *index_offset = offsetof(struct t_double_int, i); break;
    case NOCMSG_LONG_INT: *value_size = sizeof(long), *index_offset = offsetof(struct t_long_int, i); break;
    case NOCMSG_2INT: *value_size = sizeof(int), *index_offset = offsetof(struct t_2int, i); break;
    default: *value_size = sizeof(short), *index_offset = offsetof(struct t_short_int, i); break;
    }
}

int t_red_mismatch(nocmsg_datatype type, const void *got, const void *want, int count)
{
    size_t size = (size_t)types[type].size;
    const unsigned char *g = got, *w = want;
    if (types[type].kind != K_PAIR) {
        if (memcmp(g, w, (size_t)count * size) == 0)
            return -1;
        for (int k = 0; k < count; k++)
            if (memcmp(g + (size_t)k * size, w + (size_t)k * size, size) != 0)
                return k;
        return -1;
    }
    /* Pairs field by field: the padding of SHORT_INT, DOUBLE_INT and LONG_INT is nobody's business. */
    size_t value_size, index_offset;
    pair_layout(type, &value_size, &index_offset);
    for (int k = 0; k < count; k++, g += size, w += size)
        if (memcmp(g, w, value_size) != 0 || memcmp(g + index_offset, w + index_offset, sizeof(int)) != 0)
            return k;
    return -1;
}

void t_elem_text(nocmsg_datatype type, const void *p, char *out, size_t n)
{
    int size = types[type].size, kind = types[type].kind;
    uint64_t u = 0;
    switch (kind) {
    case K_SINT:
    case K_UINT:
        memcpy(&u, p, (size_t)size); /* little-endian hosts; only for the message */
        if (kind == K_SINT && size < 8 && (u >> (8 * size - 1)) & 1)
            u |= ~(uint64_t)0 << (8 * size);
        if (kind == K_SINT)
            snprintf(out, n, "%lld", (long long)u);
        else
            snprintf(out, n, "%llu", (unsigned long long)u);
        break;
    case K_FLOAT:
        snprintf(out, n, "%g", type == NOCMSG_FLOAT ? (double)*(const float *)p : *(const double *)p);
        break;
    case K_PAIR: {
        size_t value_size, index_offset;
        pair_layout(type, &value_size, &index_offset);
        int index;
        memcpy(&index, (const unsigned char *)p + index_offset, sizeof index);
        char value[40];
        switch (type) {
        case NOCMSG_FLOAT_INT: snprintf(value, sizeof value, "%g", (double)*(const float *)p); break;
        case NOCMSG_DOUBLE_INT: snprintf(value, sizeof value, "%g", *(const double *)p); break;
        case NOCMSG_LONG_INT: snprintf(value, sizeof value, "%ld", *(const long *)p); break;
        case NOCMSG_2INT: snprintf(value, sizeof value, "%d", *(const int *)p); break;
        default: snprintf(value, sizeof value, "%d", *(const short *)p); break;
        }
        snprintf(out, n, "{%s, %d}", value, index);
        break;
    }
    default:
        snprintf(out, n, "0x%02x", *(const unsigned char *)p);
        break;
    }
}

void t_red_prepare(t_red_data *d, const t_comm *c, const t_red *rd, int count)
{
    d->rd = *rd;
    d->count = count;
    d->esize = types[rd->type].size;
    d->seed = t_next_seed();
    size_t bytes = (size_t)count * (size_t)d->esize;
    d->mine = t_alloc(bytes);
    d->full = t_alloc(bytes);
    d->prefix = t_alloc(bytes);
    void *next = t_alloc(bytes);
    /* full = x0 op x1 op ... op x(size-1), combined one rank at a time: full = full op x(r). */
    for (int r = 0; r < c->size; r++) {
        t_red_input(rd, r, d->seed, next, count);
        if (r == c->rank)
            memcpy(d->mine, next, bytes);
        if (r > 0)
            t_red_apply(rd, d->full, next, count);
        memcpy(d->full, next, bytes);
        if (r == c->rank)
            memcpy(d->prefix, d->full, bytes);
    }
    free(next);
}

void t_red_release(t_red_data *d)
{
    free(d->mine);
    free(d->full);
    free(d->prefix);
    d->mine = d->full = d->prefix = NULL;
}
