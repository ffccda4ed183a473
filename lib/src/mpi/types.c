/*
 * types.c: MPI datatypes: the predefined ones, the constructors, packing, and counts and elements of statuses.
 *
 * Every datatype is flattened into the typemap of one item: runs of predefined elements (struct mpi_run), adjacent
 * runs of one type merged. A derived type owns its typemap and never refers to the types it was built from, so
 * freeing those is harmless. Packing walks the byte ranges of the typemap: its spans, adjacent ranges joined whatever
 * their types (so a packed item costs one copy per gap in it), or the runs themselves where no two of them join (the
 * spans would only repeat them, and the cores have little memory).
 *
 * Bounds follow MPI 3.1 section 4.1 as MPICH (the reference for what the standard leaves open) computes them:
 * blocks of zero length do not count; a struct's extent is padded to the alignment of its most strictly aligned
 * member, like a C struct, but only when its members are of different types (MPICH treats integer types of one size
 * as one type there); a subarray spans the whole array from 0; a type without data and without explicit bounds has
 * lb = extent = 0.
 */
#include "mpi_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Handles of derived types start here (predefined ones stay below NOCMSG_MPI_PREDEFINED_TYPES). */
#define FIRST_DERIVED 128
_Static_assert(FIRST_DERIVED >= NOCMSG_MPI_PREDEFINED_TYPES, "derived handles must not overlap predefined ones");

/* One byte range of an item to pack: `len` bytes at `disp` from the item's start. */
struct span {
    MPI_Aint disp;
    size_t len;
};

/* What types.c keeps per datatype besides struct mpi_type (which comes first: mpi_type_get hands out &e->t). */
struct type_entry {
    struct mpi_type t;
    size_t nspans;
    struct span *spans; /* NULL when they would be the runs */
    MPI_Aint stride;    /* when the ranges (two or more) are alike and evenly spaced (vectors): their spacing */
    size_t stride_len;  /* and their length; 0 otherwise */
    MPI_Aint align;     /* alignment of the most strictly aligned element: a struct's extent is padded to it */
    long pclass;        /* types of one class are the same type to struct padding (see padding_class) */
    /* Where each bound comes from: nothing (no data, no markers: the bound takes no part in its users' bounds), the
     * data (and padding) or explicit bounds (resized, subarray), or an MPI_LB / MPI_UB marker, which is sticky: in a
     * type built from it, the sticky bounds of its parts replace those of their data (MPI 2.2 section 4.1.6). As
     * in MPICH, resized bounds are not sticky. */
    signed char lb_kind, ub_kind;
    int env_ints, env_addrs, env_types; /* MPI_Type_get_envelope's counts */
};

/* ---- predefined types ---- */

enum { BOUND_NONE, BOUND_DATA, BOUND_STICKY };

/* The pair types' C layouts (value, then int). */
struct long_double_int {
    long double v;
    int i;
};

/* Size of each predefined type (as MPI counts it: the pairs without their padding). */
static const size_t elem_size[NOCMSG_MPI_PREDEFINED_TYPES] = {
    [MPI_BYTE] = 1,
    [MPI_CHAR] = sizeof(char),
    [MPI_SIGNED_CHAR] = sizeof(signed char),
    [MPI_UNSIGNED_CHAR] = sizeof(unsigned char),
    [MPI_SHORT] = sizeof(short),
    [MPI_UNSIGNED_SHORT] = sizeof(unsigned short),
    [MPI_INT] = sizeof(int),
    [MPI_UNSIGNED] = sizeof(unsigned),
    [MPI_LONG] = sizeof(long),
    [MPI_UNSIGNED_LONG] = sizeof(unsigned long),
    [MPI_LONG_LONG] = sizeof(long long),
    [MPI_UNSIGNED_LONG_LONG] = sizeof(unsigned long long),
    [MPI_INT8_T] = 1,
    [MPI_UINT8_T] = 1,
    [MPI_INT16_T] = 2,
    [MPI_UINT16_T] = 2,
    [MPI_INT32_T] = 4,
    [MPI_UINT32_T] = 4,
    [MPI_INT64_T] = 8,
    [MPI_UINT64_T] = 8,
    [MPI_FLOAT] = sizeof(float),
    [MPI_DOUBLE] = sizeof(double),
    [MPI_FLOAT_INT] = sizeof(float) + sizeof(int),
    [MPI_DOUBLE_INT] = sizeof(double) + sizeof(int),
    [MPI_LONG_INT] = sizeof(long) + sizeof(int),
    [MPI_2INT] = 2 * sizeof(int),
    [MPI_SHORT_INT] = sizeof(short) + sizeof(int),
    [MPI_LONG_DOUBLE] = sizeof(long double),
    [MPI_WCHAR] = sizeof(wchar_t),
    [MPI_C_BOOL] = sizeof(_Bool),
    [MPI_PACKED] = 1,
    [MPI_AINT] = sizeof(MPI_Aint),
    [MPI_OFFSET] = sizeof(MPI_Offset),
    [MPI_COUNT] = sizeof(MPI_Count),
    [MPI_C_FLOAT_COMPLEX] = sizeof(float _Complex),
    [MPI_C_DOUBLE_COMPLEX] = sizeof(double _Complex),
    [MPI_C_LONG_DOUBLE_COMPLEX] = sizeof(long double _Complex),
    [MPI_LONG_DOUBLE_INT] = sizeof(long double) + sizeof(int),
    [MPI_LB] = 0,
    [MPI_UB] = 0,
    [MPI_INTEGER] = sizeof(int),
    [MPI_REAL] = sizeof(float),
    [MPI_DOUBLE_PRECISION] = sizeof(double),
    [MPI_COMPLEX] = sizeof(float _Complex),
    [MPI_DOUBLE_COMPLEX] = sizeof(double _Complex),
    [MPI_LOGICAL] = sizeof(int),
    [MPI_CHARACTER] = sizeof(char),
    [MPI_2INTEGER] = 2 * sizeof(int),
    [MPI_2REAL] = 2 * sizeof(float),
    [MPI_2DOUBLE_PRECISION] = 2 * sizeof(double),
    [MPI_INTEGER1] = 1,
    [MPI_INTEGER2] = 2,
    [MPI_INTEGER4] = 4,
    [MPI_INTEGER8] = 8,
    [MPI_INTEGER16] = sizeof(__int128),
    [MPI_REAL4] = sizeof(float),
    [MPI_REAL8] = sizeof(double),
    [MPI_REAL16] = sizeof(long double),
    [MPI_COMPLEX8] = sizeof(float _Complex),
    [MPI_COMPLEX16] = sizeof(double _Complex),
    [MPI_COMPLEX32] = sizeof(long double _Complex),
    [MPI_CXX_BOOL] = sizeof(_Bool),
    [MPI_CXX_FLOAT_COMPLEX] = sizeof(float _Complex),
    [MPI_CXX_DOUBLE_COMPLEX] = sizeof(double _Complex),
    [MPI_CXX_LONG_DOUBLE_COMPLEX] = sizeof(long double _Complex),
};

/* The sized Fortran types have the sizes their names say, and REAL16 is long double on the targets nocmsg builds
 * for (x86-64 and RV64, where long double takes 16 bytes). */
_Static_assert(sizeof(float) == 4 && sizeof(double) == 8 && sizeof(long double) == 16 && sizeof(int) == 4,
               "MPI_REAL4/8/16 and MPI_INTEGER4 need 4-, 8- and 16-byte floats and 4-byte ints");

static const unsigned char elem_align[NOCMSG_MPI_PREDEFINED_TYPES] = {
    [MPI_BYTE] = 1,
    [MPI_CHAR] = _Alignof(char),
    [MPI_SIGNED_CHAR] = _Alignof(signed char),
    [MPI_UNSIGNED_CHAR] = _Alignof(unsigned char),
    [MPI_SHORT] = _Alignof(short),
    [MPI_UNSIGNED_SHORT] = _Alignof(unsigned short),
    [MPI_INT] = _Alignof(int),
    [MPI_UNSIGNED] = _Alignof(unsigned),
    [MPI_LONG] = _Alignof(long),
    [MPI_UNSIGNED_LONG] = _Alignof(unsigned long),
    [MPI_LONG_LONG] = _Alignof(long long),
    [MPI_UNSIGNED_LONG_LONG] = _Alignof(unsigned long long),
    [MPI_INT8_T] = _Alignof(int8_t),
    [MPI_UINT8_T] = _Alignof(uint8_t),
    [MPI_INT16_T] = _Alignof(int16_t),
    [MPI_UINT16_T] = _Alignof(uint16_t),
    [MPI_INT32_T] = _Alignof(int32_t),
    [MPI_UINT32_T] = _Alignof(uint32_t),
    [MPI_INT64_T] = _Alignof(int64_t),
    [MPI_UINT64_T] = _Alignof(uint64_t),
    [MPI_FLOAT] = _Alignof(float),
    [MPI_DOUBLE] = _Alignof(double),
    [MPI_FLOAT_INT] = _Alignof(struct nocmsg_float_int),
    [MPI_DOUBLE_INT] = _Alignof(struct nocmsg_double_int),
    [MPI_LONG_INT] = _Alignof(struct nocmsg_long_int),
    [MPI_2INT] = _Alignof(struct nocmsg_2int),
    [MPI_SHORT_INT] = _Alignof(struct nocmsg_short_int),
    [MPI_LONG_DOUBLE] = _Alignof(long double),
    [MPI_WCHAR] = _Alignof(wchar_t),
    [MPI_C_BOOL] = _Alignof(_Bool),
    [MPI_PACKED] = 1,
    [MPI_AINT] = _Alignof(MPI_Aint),
    [MPI_OFFSET] = _Alignof(MPI_Offset),
    [MPI_COUNT] = _Alignof(MPI_Count),
    [MPI_C_FLOAT_COMPLEX] = _Alignof(float _Complex),
    [MPI_C_DOUBLE_COMPLEX] = _Alignof(double _Complex),
    [MPI_C_LONG_DOUBLE_COMPLEX] = _Alignof(long double _Complex),
    [MPI_LONG_DOUBLE_INT] = _Alignof(struct long_double_int),
    [MPI_LB] = 1,
    [MPI_UB] = 1,
    [MPI_INTEGER] = _Alignof(int),
    [MPI_REAL] = _Alignof(float),
    [MPI_DOUBLE_PRECISION] = _Alignof(double),
    [MPI_COMPLEX] = _Alignof(float _Complex),
    [MPI_DOUBLE_COMPLEX] = _Alignof(double _Complex),
    [MPI_LOGICAL] = _Alignof(int),
    [MPI_CHARACTER] = _Alignof(char),
    [MPI_2INTEGER] = _Alignof(int),
    [MPI_2REAL] = _Alignof(float),
    [MPI_2DOUBLE_PRECISION] = _Alignof(double),
    [MPI_INTEGER1] = 1,
    [MPI_INTEGER2] = _Alignof(int16_t),
    [MPI_INTEGER4] = _Alignof(int32_t),
    [MPI_INTEGER8] = _Alignof(int64_t),
    [MPI_INTEGER16] = _Alignof(__int128),
    [MPI_REAL4] = _Alignof(float),
    [MPI_REAL8] = _Alignof(double),
    [MPI_REAL16] = _Alignof(long double),
    [MPI_COMPLEX8] = _Alignof(float _Complex),
    [MPI_COMPLEX16] = _Alignof(double _Complex),
    [MPI_COMPLEX32] = _Alignof(long double _Complex),
    [MPI_CXX_BOOL] = _Alignof(_Bool),
    [MPI_CXX_FLOAT_COMPLEX] = _Alignof(float _Complex),
    [MPI_CXX_DOUBLE_COMPLEX] = _Alignof(double _Complex),
    [MPI_CXX_LONG_DOUBLE_COMPLEX] = _Alignof(long double _Complex),
};

/* The pair types: value type, index type (int for C's, the value type for Fortran's), offset of the index, and the
 * C struct's size (the extent). */
static const struct pair_layout {
    MPI_Datatype value, index;
    unsigned char int_offset, extent;
} pairs[NOCMSG_MPI_PREDEFINED_TYPES] = {
    [MPI_FLOAT_INT] = {MPI_FLOAT, MPI_INT, offsetof(struct nocmsg_float_int, i), sizeof(struct nocmsg_float_int)},
    [MPI_DOUBLE_INT] = {MPI_DOUBLE, MPI_INT, offsetof(struct nocmsg_double_int, i), sizeof(struct nocmsg_double_int)},
    [MPI_LONG_INT] = {MPI_LONG, MPI_INT, offsetof(struct nocmsg_long_int, i), sizeof(struct nocmsg_long_int)},
    [MPI_2INT] = {MPI_INT, MPI_INT, offsetof(struct nocmsg_2int, i), sizeof(struct nocmsg_2int)},
    [MPI_SHORT_INT] = {MPI_SHORT, MPI_INT, offsetof(struct nocmsg_short_int, i), sizeof(struct nocmsg_short_int)},
    [MPI_LONG_DOUBLE_INT] = {MPI_LONG_DOUBLE, MPI_INT, offsetof(struct long_double_int, i),
                             sizeof(struct long_double_int)},
    [MPI_2INTEGER] = {MPI_INTEGER, MPI_INTEGER, sizeof(int), 2 * sizeof(int)},
    [MPI_2REAL] = {MPI_REAL, MPI_REAL, sizeof(float), 2 * sizeof(float)},
    [MPI_2DOUBLE_PRECISION] = {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, sizeof(double), 2 * sizeof(double)},
};

/* The names MPICH gives them. */
static const char *const predefined_names[NOCMSG_MPI_PREDEFINED_TYPES] = {
    [MPI_BYTE] = "MPI_BYTE",
    [MPI_CHAR] = "MPI_CHAR",
    [MPI_SIGNED_CHAR] = "MPI_SIGNED_CHAR",
    [MPI_UNSIGNED_CHAR] = "MPI_UNSIGNED_CHAR",
    [MPI_SHORT] = "MPI_SHORT",
    [MPI_UNSIGNED_SHORT] = "MPI_UNSIGNED_SHORT",
    [MPI_INT] = "MPI_INT",
    [MPI_UNSIGNED] = "MPI_UNSIGNED",
    [MPI_LONG] = "MPI_LONG",
    [MPI_UNSIGNED_LONG] = "MPI_UNSIGNED_LONG",
    [MPI_LONG_LONG] = "MPI_LONG_LONG_INT",
    [MPI_UNSIGNED_LONG_LONG] = "MPI_UNSIGNED_LONG_LONG",
    [MPI_INT8_T] = "MPI_INT8_T",
    [MPI_UINT8_T] = "MPI_UINT8_T",
    [MPI_INT16_T] = "MPI_INT16_T",
    [MPI_UINT16_T] = "MPI_UINT16_T",
    [MPI_INT32_T] = "MPI_INT32_T",
    [MPI_UINT32_T] = "MPI_UINT32_T",
    [MPI_INT64_T] = "MPI_INT64_T",
    [MPI_UINT64_T] = "MPI_UINT64_T",
    [MPI_FLOAT] = "MPI_FLOAT",
    [MPI_DOUBLE] = "MPI_DOUBLE",
    [MPI_FLOAT_INT] = "MPI_FLOAT_INT",
    [MPI_DOUBLE_INT] = "MPI_DOUBLE_INT",
    [MPI_LONG_INT] = "MPI_LONG_INT",
    [MPI_2INT] = "MPI_2INT",
    [MPI_SHORT_INT] = "MPI_SHORT_INT",
    [MPI_LONG_DOUBLE] = "MPI_LONG_DOUBLE",
    [MPI_WCHAR] = "MPI_WCHAR",
    [MPI_C_BOOL] = "MPI_C_BOOL",
    [MPI_PACKED] = "MPI_PACKED",
    [MPI_AINT] = "MPI_AINT",
    [MPI_OFFSET] = "MPI_OFFSET",
    [MPI_COUNT] = "MPI_COUNT",
    [MPI_C_FLOAT_COMPLEX] = "MPI_C_COMPLEX",
    [MPI_C_DOUBLE_COMPLEX] = "MPI_C_DOUBLE_COMPLEX",
    [MPI_C_LONG_DOUBLE_COMPLEX] = "MPI_C_LONG_DOUBLE_COMPLEX",
    [MPI_LONG_DOUBLE_INT] = "MPI_LONG_DOUBLE_INT",
    [MPI_LB] = "MPI_LB",
    [MPI_UB] = "MPI_UB",
    [MPI_INTEGER] = "MPI_INTEGER",
    [MPI_REAL] = "MPI_REAL",
    [MPI_DOUBLE_PRECISION] = "MPI_DOUBLE_PRECISION",
    [MPI_COMPLEX] = "MPI_COMPLEX",
    [MPI_DOUBLE_COMPLEX] = "MPI_DOUBLE_COMPLEX",
    [MPI_LOGICAL] = "MPI_LOGICAL",
    [MPI_CHARACTER] = "MPI_CHARACTER",
    [MPI_2INTEGER] = "MPI_2INTEGER",
    [MPI_2REAL] = "MPI_2REAL",
    [MPI_2DOUBLE_PRECISION] = "MPI_2DOUBLE_PRECISION",
    [MPI_INTEGER1] = "MPI_INTEGER1",
    [MPI_INTEGER2] = "MPI_INTEGER2",
    [MPI_INTEGER4] = "MPI_INTEGER4",
    [MPI_INTEGER8] = "MPI_INTEGER8",
    [MPI_INTEGER16] = "MPI_INTEGER16",
    [MPI_REAL4] = "MPI_REAL4",
    [MPI_REAL8] = "MPI_REAL8",
    [MPI_REAL16] = "MPI_REAL16",
    [MPI_COMPLEX8] = "MPI_COMPLEX8",
    [MPI_COMPLEX16] = "MPI_COMPLEX16",
    [MPI_COMPLEX32] = "MPI_COMPLEX32",
    [MPI_CXX_BOOL] = "MPI_CXX_BOOL",
    [MPI_CXX_FLOAT_COMPLEX] = "MPI_CXX_FLOAT_COMPLEX",
    [MPI_CXX_DOUBLE_COMPLEX] = "MPI_CXX_DOUBLE_COMPLEX",
    [MPI_CXX_LONG_DOUBLE_COMPLEX] = "MPI_CXX_LONG_DOUBLE_COMPLEX",
};

/* log2 of the size of each predefined type but the pairs (all are powers of two): a run is count << shift bytes. */
static unsigned char elem_shift[NOCMSG_MPI_PREDEFINED_TYPES];

/* The byte ranges of an item: how many, and the i-th. */
static inline size_t nranges(const struct type_entry *e)
{
    return e->spans ? e->nspans : e->t.nruns;
}

static inline void range_at(const struct type_entry *e, size_t i, MPI_Aint *disp, size_t *len)
{
    if (e->spans) {
        *disp = e->spans[i].disp;
        *len = e->spans[i].len;
    } else {
        *disp = e->t.runs[i].disp;
        *len = e->t.runs[i].count << elem_shift[e->t.runs[i].type];
    }
}

/* Whether count items are one block of count * size bytes (then the user's memory is used as it is). */
static int is_contiguous(const struct type_entry *e)
{
    MPI_Aint disp;
    size_t len;
    if (e->t.size == 0)
        return 1;
    if (nranges(e) != 1 || e->t.extent != (MPI_Aint)e->t.size)
        return 0;
    range_at(e, 0, &disp, &len);
    return len == e->t.size;
}

/* Which struct members count as the same type for padding. MPICH pads a struct only when its members' types differ,
 * and takes integer types of one size (signed or not, MPI_BYTE, MPI_AINT...) as one type, and a type built as one
 * item of another at displacement 0 with the same bounds (dup, contiguous(1), a one-element vector, indexed or
 * struct...) as that type. The predefined types' classes: */
static long padding_class(MPI_Datatype type)
{
    switch (type) {
    case MPI_BYTE: case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_SHORT:
    case MPI_UNSIGNED_SHORT: case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_INT8_T: case MPI_UINT8_T: case MPI_INT16_T:
    case MPI_UINT16_T: case MPI_INT32_T: case MPI_UINT32_T: case MPI_INT64_T: case MPI_UINT64_T: case MPI_C_BOOL:
    case MPI_PACKED: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT: case MPI_INTEGER: case MPI_LOGICAL:
    case MPI_INTEGER1: case MPI_INTEGER2: case MPI_INTEGER4: case MPI_INTEGER8: case MPI_INTEGER16: case MPI_CXX_BOOL:
        return -(long)elem_size[type];
    default:
        return type;
    }
}

/* Filled in on first use (a pair type has two runs and up to two spans). */
static struct type_entry predefined[NOCMSG_MPI_PREDEFINED_TYPES];
static struct mpi_run predefined_runs[NOCMSG_MPI_PREDEFINED_TYPES][2];
static struct span predefined_spans[NOCMSG_MPI_PREDEFINED_TYPES][2];
static int predefined_ready;

static void init_predefined(void)
{
    for (MPI_Datatype h = 1; h < NOCMSG_MPI_PREDEFINED_TYPES; h++) {
        struct type_entry *e = &predefined[h];
        struct mpi_type *t = &e->t;
        struct mpi_run *runs = predefined_runs[h];
        struct span *spans = predefined_spans[h];
        const struct pair_layout *p = &pairs[h];
        e->lb_kind = e->ub_kind = BOUND_DATA;
        if (h == MPI_LB || h == MPI_UB) {
            /* Markers: no data, one sticky bound at 0. */
            t->nruns = 0;
            e->nspans = 0;
            e->lb_kind = h == MPI_LB ? BOUND_STICKY : BOUND_NONE;
            e->ub_kind = h == MPI_UB ? BOUND_STICKY : BOUND_NONE;
        } else if (p->value) {
            /* A pair is two elements, as in MPI_Get_elements; 2INT's two ints are one run (and the Fortran pairs'
             * two values). */
            size_t vsize = elem_size[p->value], isize = elem_size[p->index];
            runs[0] = (struct mpi_run){0, p->value, 1};
            runs[1] = (struct mpi_run){p->int_offset, p->index, 1};
            t->nruns = 2;
            if (p->value == p->index && p->int_offset == vsize) {
                runs[0].count = 2;
                t->nruns = 1;
            }
            spans[0] = (struct span){0, vsize};
            spans[1] = (struct span){p->int_offset, isize};
            e->nspans = 2;
            if (p->int_offset == vsize) {
                spans[0].len += isize;
                e->nspans = 1;
            }
            t->size = vsize + isize;
            t->extent = p->extent;
            t->true_extent = p->int_offset + (MPI_Aint)isize;
            t->elements = 2;
        } else {
            runs[0] = (struct mpi_run){0, h, 1};
            spans[0] = (struct span){0, elem_size[h]};
            elem_shift[h] = (unsigned char)__builtin_ctzl(elem_size[h]);
            t->nruns = 1;
            e->nspans = 1;
            t->size = elem_size[h];
            t->extent = t->true_extent = (MPI_Aint)elem_size[h];
            t->elements = 1;
        }
        t->used = t->committed = t->predefined = 1;
        t->runs = runs;
        e->spans = spans;
        t->contiguous = is_contiguous(e);
        /* A pair's elements are its value and its int: uniform only for MPI_2INT (MPI_INT). */
        t->uniform = t->nruns == 1 ? runs[0].type : MPI_DATATYPE_NULL;
        t->combiner = MPI_COMBINER_NAMED;
        t->name = predefined_names[h];
        e->align = elem_align[h];
        e->pclass = padding_class(h);
    }
    predefined_ready = 1;
}

/* ---- the table of types ---- */

/* Derived types by handle - FIRST_DERIVED; NULL where free. Entries are separate allocations so that pointers to
 * them stay valid while the table grows. */
static struct type_entry **derived;
static size_t derived_cap;

static inline const struct type_entry *entry_of_type(const struct mpi_type *t)
{
    return (const struct type_entry *)t;
}

/* The entry behind a handle, freed-but-pending types included; NULL for anything else. */
static struct type_entry *entry_of(MPI_Datatype type)
{
    if (type > MPI_DATATYPE_NULL && type < NOCMSG_MPI_PREDEFINED_TYPES) {
        if (!predefined_ready)
            init_predefined();
        return &predefined[type];
    }
    if (type >= FIRST_DERIVED && (size_t)(type - FIRST_DERIVED) < derived_cap)
        return derived[type - FIRST_DERIVED];
    return NULL;
}

/* The entry behind a handle the program may still use (not freed). */
static struct type_entry *live(MPI_Datatype type)
{
    struct type_entry *e = entry_of(type);
    return e && !e->t.freed ? e : NULL;
}

static void destroy(MPI_Datatype type)
{
    struct type_entry *e = derived[type - FIRST_DERIVED];
    free(e->t.runs);
    free(e->spans);
    if (e->t.name_owned)
        free((char *)e->t.name);
    free(e);
    derived[type - FIRST_DERIVED] = NULL;
}

/* A handle for a new entry (the lowest free one), or MPI_DATATYPE_NULL when out of memory. */
static MPI_Datatype add_entry(struct type_entry *e)
{
    size_t i = 0;
    while (i < derived_cap && derived[i])
        i++;
    if (i == derived_cap) {
        size_t cap = derived_cap ? 2 * derived_cap : 16;
        if (cap > (size_t)INT_MAX - FIRST_DERIVED)
            return MPI_DATATYPE_NULL;
        struct type_entry **grown = realloc(derived, cap * sizeof *grown);
        if (!grown)
            return MPI_DATATYPE_NULL;
        memset(grown + derived_cap, 0, (cap - derived_cap) * sizeof *grown);
        derived = grown;
        derived_cap = cap;
    }
    derived[i] = e;
    return (MPI_Datatype)(FIRST_DERIVED + i);
}

/* Notes whether the ranges of an item are evenly spaced ranges of one length (vectors, columns, 2-d subarrays),
 * which then pack as one strided copy. */
static void find_stride(struct type_entry *e)
{
    size_t n = nranges(e), len, len_i;
    MPI_Aint disp0, disp1, disp_i;
    e->stride_len = 0;
    if (n < 2)
        return;
    range_at(e, 0, &disp0, &len);
    range_at(e, 1, &disp1, &len_i);
    MPI_Aint stride = disp1 - disp0;
    for (size_t i = 1; i < n; i++) {
        range_at(e, i, &disp_i, &len_i);
        if (len_i != len || disp_i != disp0 + (MPI_Aint)i * stride)
            return;
    }
    e->stride = stride;
    e->stride_len = len;
}

/* ---- building typemaps ---- */

/* The most runs a typemap may have (each takes 24 bytes): a datatype needing more, such as a vector of billions of
 * blocks, is refused with MPI_ERR_COUNT instead of taking gigabytes (or all of a simulated core's memory). */
#define MAX_RUNS ((size_t)1 << 24)


/* A typemap under construction: runs and spans in typemap order, size, elements and bounds. */
struct builder {
    struct mpi_run *runs;
    size_t nruns, runs_cap;
    struct span *spans;
    size_t nspans, spans_cap;
    size_t size, elements;
    int has_data, oom;
    int err;                          /* MPI_ERR_COUNT / MPI_ERR_ARG: the type would be larger than nocmsg supports */
    signed char lb_kind, ub_kind;     /* as in struct type_entry */
    MPI_Aint lb, ub, true_lb, true_ub, align;
    size_t nblocks;                   /* add_block calls, zero-length blocks included */
    MPI_Aint first_disp;              /* and the first one's arguments */
    size_t first_count;
    const struct type_entry *first_old;
};

static void builder_init(struct builder *b)
{
    memset(b, 0, sizeof *b);
    b->align = 1;
}

static void builder_free(struct builder *b)
{
    free(b->runs);
    free(b->spans);
}

/* Makes room for one more element of an array of `elsize`-byte elements. */
static int grow(void **array, size_t *cap, size_t n, size_t elsize)
{
    if (n < *cap)
        return 1;
    size_t new_cap = *cap ? 2 * *cap : 8;
    if (new_cap > SIZE_MAX / elsize)
        return 0;
    void *p = realloc(*array, new_cap * elsize);
    if (!p)
        return 0;
    *array = p;
    *cap = new_cap;
    return 1;
}

/* Appends `count` elements of predefined `type` at `disp`, joining the previous run and span where they abut. */
static void push_run(struct builder *b, MPI_Aint disp, MPI_Datatype type, size_t count)
{
    size_t esize = elem_size[type], len = count * esize;
    struct mpi_run *last = b->nruns ? &b->runs[b->nruns - 1] : NULL;
    if (last && last->type == type && last->disp + (MPI_Aint)(last->count * esize) == disp) {
        last->count += count;
    } else {
        if (!grow((void **)&b->runs, &b->runs_cap, b->nruns, sizeof *b->runs)) {
            b->oom = 1;
            return;
        }
        b->runs[b->nruns++] = (struct mpi_run){disp, type, count};
    }
    struct span *s = b->nspans ? &b->spans[b->nspans - 1] : NULL;
    if (s && s->disp + (MPI_Aint)s->len == disp) {
        s->len += len;
        return;
    }
    if (!grow((void **)&b->spans, &b->spans_cap, b->nspans, sizeof *b->spans)) {
        b->oom = 1;
        return;
    }
    b->spans[b->nspans++] = (struct span){disp, len};
}

static inline MPI_Aint min_aint(MPI_Aint a, MPI_Aint b)
{
    return a < b ? a : b;
}

static inline MPI_Aint max_aint(MPI_Aint a, MPI_Aint b)
{
    return a > b ? a : b;
}

/* Appends a block: `count` items of `old` at disp, disp + extent, ... (the building step of every constructor). */
static void add_block(struct builder *b, MPI_Aint disp, size_t count, const struct type_entry *old)
{
    const struct mpi_type *o = &old->t;
    if (b->nblocks++ == 0) {
        b->first_disp = disp;
        b->first_count = count;
        b->first_old = old;
    }
    if (count == 0 || b->oom || b->err)
        return;
    /* Sizes, counts and displacements must fit nocmsg's integers (a wrapped-around one would make a typemap that
     * is not the one asked for). */
    MPI_Aint span, last, lo, hi, lb, ub, tlb, tub;
    size_t size, elements;
    if (count > (size_t)INTPTR_MAX || __builtin_mul_overflow((MPI_Aint)(count - 1), o->extent, &span) ||
        __builtin_add_overflow(disp, span, &last) ||
        __builtin_mul_overflow(count, o->size, &size) || __builtin_add_overflow(b->size, size, &size) ||
        size > (size_t)INTPTR_MAX || __builtin_mul_overflow(count, o->elements, &elements) ||
        __builtin_add_overflow(b->elements, elements, &elements)) {
        b->err = MPI_ERR_COUNT;
        return;
    }
    lo = min_aint(disp, last);
    hi = max_aint(disp, last);
    if (__builtin_add_overflow(lo, o->lb, &lb) || __builtin_add_overflow(hi, o->lb, &ub) ||
        __builtin_add_overflow(ub, o->extent, &ub) || __builtin_add_overflow(lo, o->true_lb, &tlb) ||
        __builtin_add_overflow(hi, o->true_lb, &tub) || __builtin_add_overflow(tub, o->true_extent, &tub) ||
        __builtin_sub_overflow(max_aint(ub, tub), min_aint(lb, tlb), &span)) {
        b->err = MPI_ERR_ARG;
        return;
    }
    /* The typemap is flattened: refuse one of more runs than MAX_RUNS rather than exhaust the memory. */
    size_t runs = 1;
    if (!(o->nruns == 1 && o->contiguous) && __builtin_mul_overflow(count, o->nruns, &runs))
        runs = SIZE_MAX;
    if (runs > MAX_RUNS - b->nruns) {
        b->err = MPI_ERR_COUNT;
        return;
    }
    /* Item k spans [base + lb, base + lb + extent): the lowest lb and the highest ub (extents may be negative).
     * Sticky bounds win over data bounds. */
    if (old->lb_kind != BOUND_NONE) {
        if (old->lb_kind > b->lb_kind)
            b->lb = lb;
        else if (old->lb_kind == b->lb_kind)
            b->lb = min_aint(b->lb, lb);
        if (old->lb_kind > b->lb_kind)
            b->lb_kind = old->lb_kind;
    }
    if (old->ub_kind != BOUND_NONE) {
        if (old->ub_kind > b->ub_kind)
            b->ub = ub;
        else if (old->ub_kind == b->ub_kind)
            b->ub = max_aint(b->ub, ub);
        if (old->ub_kind > b->ub_kind)
            b->ub_kind = old->ub_kind;
    }
    if (old->lb_kind != BOUND_NONE || old->ub_kind != BOUND_NONE)
        b->align = max_aint(b->align, old->align);
    if (o->size == 0)
        return;
    b->true_lb = b->has_data ? min_aint(b->true_lb, tlb) : tlb;
    b->true_ub = b->has_data ? max_aint(b->true_ub, tub) : tub;
    b->has_data = 1;
    b->size += count * o->size;
    b->elements += count * o->elements;
    if (o->nruns == 1 && o->contiguous) {
        /* Items of a one-run contiguous type abut: the block is one run. */
        push_run(b, disp + o->runs[0].disp, o->runs[0].type, count * o->runs[0].count);
        return;
    }
    for (size_t k = 0; k < count && !b->oom; k++) {
        MPI_Aint base = disp + (MPI_Aint)k * o->extent;
        for (size_t r = 0; r < o->nruns; r++)
            push_run(b, base + o->runs[r].disp, o->runs[r].type, o->runs[r].count);
    }
}

/* A padding class no type has yet (the predefined types' are below NOCMSG_MPI_PREDEFINED_TYPES). */
static long new_class(void)
{
    static long last = NOCMSG_MPI_PREDEFINED_TYPES;
    return ++last;
}

/* Turns the builder into a new derived type (uncommitted), with the bounds of its blocks (resized and subarray set
 * theirs afterwards with set_bounds). */
static int finish(struct builder *b, int combiner, int ints, int addrs, int types, MPI_Datatype *newtype)
{
    if (b->oom || b->err) {
        builder_free(b);
        return b->err ? b->err : MPI_ERR_NO_MEM;
    }
    struct type_entry *e = calloc(1, sizeof *e);
    if (!e) {
        builder_free(b);
        return MPI_ERR_NO_MEM;
    }
    struct mpi_type *t = &e->t;
    /* The arrays grew by doubling: give back what is unused (cores have little memory). */
    if (b->nruns < b->runs_cap) {
        void *p = realloc(b->runs, (b->nruns ? b->nruns : 1) * sizeof *b->runs);
        if (p)
            b->runs = p;
    }
    if (b->nspans == b->nruns) {
        free(b->spans);
        b->spans = NULL;
    } else if (b->nspans < b->spans_cap) {
        void *p = realloc(b->spans, (b->nspans ? b->nspans : 1) * sizeof *b->spans);
        if (p)
            b->spans = p;
    }
    t->used = 1;
    t->size = b->size;
    t->elements = b->elements;
    /* A bound nothing set is 0, as in MPICH (an MPI_LB at 10 alone: lb 10, ub 0, extent -10). */
    MPI_Aint lb = b->lb_kind ? b->lb : 0, ub = b->ub_kind ? b->ub : 0;
    t->lb = lb;
    t->extent = ub - lb;
    t->true_lb = b->has_data ? b->true_lb : 0;
    t->true_extent = b->has_data ? b->true_ub - b->true_lb : 0;
    t->nruns = b->nruns;
    t->runs = b->runs;
    e->nspans = b->nspans;
    e->spans = b->spans;
    e->align = b->align;
    e->lb_kind = b->lb_kind;
    e->ub_kind = b->ub_kind;
    /* One item of a type at 0 is that type (to struct padding) until its bounds change. */
    e->pclass = b->nblocks == 1 && b->first_count == 1 && b->first_disp == 0 ? b->first_old->pclass : new_class();
    t->contiguous = is_contiguous(e);
    find_stride(e);
    t->uniform = MPI_DATATYPE_NULL;
    if (t->nruns > 0) {
        t->uniform = t->runs[0].type;
        for (size_t r = 1; r < t->nruns; r++)
            if (t->runs[r].type != t->uniform)
                t->uniform = MPI_DATATYPE_NULL;
    }
    t->combiner = combiner;
    e->env_ints = ints;
    e->env_addrs = addrs;
    e->env_types = types;
    MPI_Datatype h = add_entry(e);
    if (h == MPI_DATATYPE_NULL) {
        builder_free(b);
        free(e);
        return MPI_ERR_NO_MEM;
    }
    *newtype = h;
    return MPI_SUCCESS;
}

/* Sets explicit bounds (resized, subarray) and re-derives what depends on them. */
static void set_bounds(MPI_Datatype type, MPI_Aint lb, MPI_Aint extent)
{
    struct type_entry *e = entry_of(type);
    struct mpi_type *t = &e->t;
    if (lb != t->lb || extent != t->extent)
        e->pclass = new_class();
    t->lb = lb;
    t->extent = extent;
    e->lb_kind = e->ub_kind = BOUND_DATA;
    t->contiguous = is_contiguous(e);
}

/* ---- the layer's interface (mpi_impl.h) ---- */

const struct mpi_type *mpi_type_get(MPI_Datatype type)
{
    struct type_entry *e = entry_of(type);
    return e ? &e->t : NULL;
}

int mpi_type_bytes(MPI_Datatype type, int count, const struct mpi_type **t, size_t *bytes)
{
    struct type_entry *e = live(type);
    if (!e || !e->t.committed)
        return MPI_ERR_TYPE;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (e->t.size && (size_t)count > (size_t)INTPTR_MAX / e->t.size)
        return MPI_ERR_COUNT; /* count items would be more bytes than memory can hold */
    *t = &e->t;
    *bytes = (size_t)count * e->t.size;
    return MPI_SUCCESS;
}

void mpi_type_retain(MPI_Datatype type)
{
    if (type >= FIRST_DERIVED) {
        struct type_entry *e = entry_of(type);
        if (e)
            e->t.refs++;
    }
}

void mpi_type_release(MPI_Datatype type)
{
    if (type >= FIRST_DERIVED) {
        struct type_entry *e = entry_of(type);
        if (e && e->t.refs > 0 && --e->t.refs == 0 && e->t.freed)
            destroy(type);
    }
}

int mpi_type_reduce_as(MPI_Datatype type, MPI_Op op, MPI_Datatype *as)
{
    int arith = op == MPI_SUM || op == MPI_PROD || op == MPI_MIN || op == MPI_MAX;
    int logical = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
    int bitwise = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
    int loc = op == MPI_MINLOC || op == MPI_MAXLOC;
    *as = type;
    switch (type) {
    /* Fortran integers: arithmetic and bitwise operations. */
    case MPI_INTEGER: case MPI_INTEGER4: *as = MPI_INT32_T; return arith || bitwise ? MPI_SUCCESS : MPI_ERR_OP;
    case MPI_INTEGER1: *as = MPI_INT8_T; return arith || bitwise ? MPI_SUCCESS : MPI_ERR_OP;
    case MPI_INTEGER2: *as = MPI_INT16_T; return arith || bitwise ? MPI_SUCCESS : MPI_ERR_OP;
    case MPI_INTEGER8: *as = MPI_INT64_T; return arith || bitwise ? MPI_SUCCESS : MPI_ERR_OP;
    case MPI_INTEGER16: return arith || bitwise ? MPI_SUCCESS : MPI_ERR_OP;
    /* Floating point: arithmetic. */
    case MPI_REAL: case MPI_REAL4: *as = MPI_FLOAT; return arith ? MPI_SUCCESS : MPI_ERR_OP;
    case MPI_DOUBLE_PRECISION: case MPI_REAL8: *as = MPI_DOUBLE; return arith ? MPI_SUCCESS : MPI_ERR_OP;
    case MPI_REAL16: *as = MPI_LONG_DOUBLE; return arith ? MPI_SUCCESS : MPI_ERR_OP;
    /* Complex: sum and product (C's complex types check that themselves). */
    case MPI_COMPLEX: case MPI_COMPLEX8: case MPI_CXX_FLOAT_COMPLEX: *as = MPI_C_FLOAT_COMPLEX; return MPI_SUCCESS;
    case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX16: case MPI_CXX_DOUBLE_COMPLEX:
        *as = MPI_C_DOUBLE_COMPLEX;
        return MPI_SUCCESS;
    case MPI_COMPLEX32: case MPI_CXX_LONG_DOUBLE_COMPLEX: *as = MPI_C_LONG_DOUBLE_COMPLEX; return MPI_SUCCESS;
    /* Logical: the logical operations (an int, true when not zero). */
    case MPI_LOGICAL: *as = MPI_INT; return logical ? MPI_SUCCESS : MPI_ERR_OP;
    case MPI_CXX_BOOL: *as = MPI_C_BOOL; return logical ? MPI_SUCCESS : MPI_ERR_OP;
    /* Pairs: MINLOC and MAXLOC. */
    case MPI_2INTEGER: *as = MPI_2INT; return loc ? MPI_SUCCESS : MPI_ERR_OP;
    case MPI_2REAL: case MPI_2DOUBLE_PRECISION: return loc ? MPI_SUCCESS : MPI_ERR_OP;
    /* No operation is defined on characters or markers. */
    case MPI_CHARACTER: case MPI_LB: case MPI_UB: return MPI_ERR_OP;
    default: return MPI_SUCCESS;
    }
}

size_t mpi_predefined_size(MPI_Datatype type)
{
    return type > MPI_DATATYPE_NULL && type < NOCMSG_MPI_PREDEFINED_TYPES ? elem_size[type] : 0;
}

/* Copies fewer than 16 bytes with no call: a chunk of 8, 4, 2 and 1 bytes per bit of len, in words as wide as the
 * addresses' alignment allows, bytes otherwise (the compiler inlines memcpy of a constant size). */
static inline __attribute__((always_inline)) void copy_small(char *dst, const char *src, size_t len)
{
    if ((((uintptr_t)dst | (uintptr_t)src) & 7) == 0) {
        if (len & 8) {
            memcpy(__builtin_assume_aligned(dst, 8), __builtin_assume_aligned(src, 8), 8);
            dst += 8;
            src += 8;
        }
        if (len & 4) {
            memcpy(__builtin_assume_aligned(dst, 4), __builtin_assume_aligned(src, 4), 4);
            dst += 4;
            src += 4;
        }
        if (len & 2) {
            memcpy(__builtin_assume_aligned(dst, 2), __builtin_assume_aligned(src, 2), 2);
            dst += 2;
            src += 2;
        }
    } else if ((((uintptr_t)dst | (uintptr_t)src) & 3) == 0) {
        /* Ints, or pairs of them, in a packed stream of 4-byte elements. */
        if (len & 8) {
            memcpy(__builtin_assume_aligned(dst, 4), __builtin_assume_aligned(src, 4), 4);
            memcpy(__builtin_assume_aligned(dst + 4, 4), __builtin_assume_aligned(src + 4, 4), 4);
            dst += 8;
            src += 8;
        }
        if (len & 4) {
            memcpy(__builtin_assume_aligned(dst, 4), __builtin_assume_aligned(src, 4), 4);
            dst += 4;
            src += 4;
        }
        if (len & 2) {
            memcpy(__builtin_assume_aligned(dst, 2), __builtin_assume_aligned(src, 2), 2);
            dst += 2;
            src += 2;
        }
    } else {
        if (len & 8) {
            memcpy(dst, src, 8);
            dst += 8;
            src += 8;
        }
        if (len & 4) {
            memcpy(dst, src, 4);
            dst += 4;
            src += 4;
        }
        if (len & 2) {
            memcpy(dst, src, 2);
            dst += 2;
            src += 2;
        }
    }
    if (len & 1)
        *dst = *src;
}

/* Copies one byte range. Small ranges (elements, short structs) are copied in place rather than by a call to
 * memcpy: the compiler cannot know the alignment of the user's memory, and the simulated cores trap on misaligned
 * accesses, so it would call memcpy for each. */
static inline __attribute__((always_inline)) void copy_span(char *dst, const char *src, size_t len)
{
    uintptr_t a = (uintptr_t)dst | (uintptr_t)src;
    if (len == 8 && (a & 7) == 0)
        memcpy(__builtin_assume_aligned(dst, 8), __builtin_assume_aligned(src, 8), 8);
    else if (len == 4 && (a & 3) == 0)
        memcpy(__builtin_assume_aligned(dst, 4), __builtin_assume_aligned(src, 4), 4);
    else if (len < 16)
        copy_small(dst, src, len);
    else
        memcpy(dst, src, len);
}

/* A strided copy: count ranges of len bytes, `stride` apart at `user`, one after the other at `packed`. */
static inline __attribute__((always_inline)) void copy_strided(char *user, char *packed, size_t count, size_t len,
                                                               MPI_Aint stride, int to_packed)
{
    /* Columns of doubles or ints: when every range is aligned, one load and store each. */
    uintptr_t a = (uintptr_t)user | (uintptr_t)packed | (uintptr_t)stride;
    if (len == 8 && (a & 7) == 0) {
        for (size_t i = 0; i < count; i++, user += stride, packed += 8)
            to_packed ? memcpy(__builtin_assume_aligned(packed, 8), __builtin_assume_aligned(user, 8), 8)
                      : memcpy(__builtin_assume_aligned(user, 8), __builtin_assume_aligned(packed, 8), 8);
        return;
    }
    if (len == 4 && (a & 3) == 0) {
        for (size_t i = 0; i < count; i++, user += stride, packed += 4)
            to_packed ? memcpy(__builtin_assume_aligned(packed, 4), __builtin_assume_aligned(user, 4), 4)
                      : memcpy(__builtin_assume_aligned(user, 4), __builtin_assume_aligned(packed, 4), 4);
        return;
    }
    for (size_t i = 0; i < count; i++, user += stride, packed += len)
        to_packed ? copy_span(packed, user, len) : copy_span(user, packed, len);
}

/* Copies count items between their layout at `items` and the packed stream at `packed`, either way (a constant
 * where it is inlined, so each direction gets its own loops). */
static inline __attribute__((always_inline)) void copy_items(char *items, char *packed, size_t count,
                                                             const struct mpi_type *t, int to_packed)
{
    const struct type_entry *e = entry_of_type(t);
    const struct span *spans = e->spans;
    const struct mpi_run *runs = t->runs;
    size_t n = nranges(e);
    MPI_Aint extent = t->extent;
    if (e->stride_len) {
        MPI_Aint disp;
        size_t len;
        range_at(e, 0, &disp, &len);
        for (size_t i = 0; i < count; i++, items += extent, packed += n * len)
            copy_strided(items + disp, packed, n, len, e->stride, to_packed);
        return;
    }
    if (n == 1) {
        /* One range per item (a resized element, a vector of one block): a strided copy. */
        MPI_Aint disp;
        size_t len;
        range_at(e, 0, &disp, &len);
        copy_strided(items + disp, packed, count, len, extent, to_packed);
        return;
    }
    for (size_t i = 0; i < count; i++, items += extent) {
        if (spans) {
            for (size_t s = 0; s < n; s++) {
                char *user = items + spans[s].disp;
                size_t len = spans[s].len;
                to_packed ? copy_span(packed, user, len) : copy_span(user, packed, len);
                packed += len;
            }
        } else {
            for (size_t r = 0; r < n; r++) {
                char *user = items + runs[r].disp;
                size_t len = runs[r].count << elem_shift[runs[r].type];
                to_packed ? copy_span(packed, user, len) : copy_span(user, packed, len);
                packed += len;
            }
        }
    }
}

void mpi_pack(const void *buf, size_t count, const struct mpi_type *t, void *out)
{
    if (count == 0 || t->size == 0)
        return;
    if (t->contiguous)
        memcpy(out, (const char *)buf + t->true_lb, count * t->size);
    else
        copy_items((char *)buf, out, count, t, 1);
}

void mpi_unpack(const void *in, size_t count, const struct mpi_type *t, void *buf)
{
    if (count == 0 || t->size == 0)
        return;
    if (t->contiguous)
        memcpy((char *)buf + t->true_lb, in, count * t->size);
    else
        copy_items(buf, (char *)in, count, t, 0);
}

void mpi_unpack_bytes(const void *in, size_t bytes, const struct mpi_type *t, void *buf)
{
    if (t->size == 0)
        return;
    size_t full = bytes / t->size, rest = bytes % t->size;
    mpi_unpack(in, full, t, buf);
    /* The part item: its ranges in order until the data ends. */
    const struct type_entry *e = entry_of_type(t);
    const char *src = (const char *)in + full * t->size;
    char *item = (char *)buf + (MPI_Aint)full * t->extent;
    for (size_t i = 0; i < nranges(e) && rest > 0; i++) {
        MPI_Aint disp;
        size_t len;
        range_at(e, i, &disp, &len);
        if (len > rest)
            len = rest;
        memcpy(item + disp, src, len);
        src += len;
        rest -= len;
    }
}

MPI_Count mpi_type_elements(const struct mpi_type *t, size_t bytes)
{
    if (t->size == 0)
        return bytes == 0 ? 0 : MPI_UNDEFINED;
    size_t rest = bytes % t->size;
    MPI_Count n = (MPI_Count)(bytes / t->size) * (MPI_Count)t->elements;
    for (size_t r = 0; r < t->nruns && rest > 0; r++) {
        size_t esize = elem_size[t->runs[r].type], len = t->runs[r].count * esize;
        if (rest >= len) {
            n += (MPI_Count)t->runs[r].count;
            rest -= len;
        } else {
            if (rest % esize)
                return MPI_UNDEFINED;
            n += (MPI_Count)(rest / esize);
            rest = 0;
        }
    }
    return n;
}

/* Bytes of data in the first `elements` predefined elements of items of t, or -1 if t has no elements. */
static MPI_Count elements_bytes(const struct mpi_type *t, MPI_Count elements)
{
    if (t->elements == 0)
        return elements == 0 ? 0 : -1;
    MPI_Count rest = elements % (MPI_Count)t->elements;
    MPI_Count bytes = elements / (MPI_Count)t->elements * (MPI_Count)t->size;
    for (size_t r = 0; r < t->nruns && rest > 0; r++) {
        MPI_Count n = (MPI_Count)t->runs[r].count < rest ? (MPI_Count)t->runs[r].count : rest;
        bytes += n * (MPI_Count)elem_size[t->runs[r].type];
        rest -= n;
    }
    return bytes;
}

/* ---- MPI functions: sizes, bounds, names ---- */

/* The first checks of every datatype function: MPI is up and the handle is a usable type. */
#define CHECK_TYPE(type, e)                                                                                     \
    do {                                                                                                        \
        if (!mpi_up())                                                                                          \
            MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);                                                          \
        if (!((e) = live(type)))                                                                                \
            MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_TYPE);                                                           \
    } while (0)

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!size)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *size = e->t.size > INT_MAX ? MPI_UNDEFINED : (int)e->t.size;
    return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!size)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *size = (MPI_Count)e->t.size;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!lb || !extent)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *lb = e->t.lb;
    *extent = e->t.extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!lb || !extent)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *lb = e->t.lb;
    *extent = e->t.extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!true_lb || !true_extent)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *true_lb = e->t.true_lb;
    *true_extent = e->t.true_extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!true_lb || !true_extent)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *true_lb = e->t.true_lb;
    *true_extent = e->t.true_extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!type_name || !resultlen)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    const char *name = e->t.name ? e->t.name : "";
    size_t len = strlen(name);
    memcpy(type_name, name, len + 1);
    *resultlen = (int)len;
    return MPI_SUCCESS;
}

int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!type_name)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    /* Longer names are truncated, as MPI allows. */
    size_t len = strlen(type_name);
    if (len > MPI_MAX_OBJECT_NAME - 1)
        len = MPI_MAX_OBJECT_NAME - 1;
    /* Stored on the heap only once a program names a type: a name buffer in every entry would make the table of
     * predefined types most of the library's static data. */
    char *copy = malloc(len + 1);
    if (!copy)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    memcpy(copy, type_name, len);
    copy[len] = '\0';
    if (e->t.name_owned)
        free((char *)e->t.name);
    e->t.name = copy;
    e->t.name_owned = 1;
    return MPI_SUCCESS;
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                          int *combiner)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!num_integers || !num_addresses || !num_datatypes || !combiner)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *num_integers = e->env_ints;
    *num_addresses = e->env_addrs;
    *num_datatypes = e->env_types;
    *combiner = e->t.combiner;
    return MPI_SUCCESS;
}

/* ---- MPI functions: constructors ---- */

/* The checks every constructor starts with: MPI is up, a place for the result, a count. */
static int check_new(int count, const MPI_Datatype *newtype)
{
    if (!mpi_up())
        return MPI_ERR_OTHER;
    if (!newtype)
        return MPI_ERR_ARG;
    if (count < 0)
        return MPI_ERR_COUNT;
    return MPI_SUCCESS;
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int err = check_new(count, newtype);
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    const struct type_entry *old = live(oldtype);
    if (!old)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_TYPE);
    struct builder b;
    builder_init(&b);
    add_block(&b, 0, (size_t)count, old);
    MPI_RETURN(MPI_COMM_WORLD, finish(&b, MPI_COMBINER_CONTIGUOUS, 1, 0, 1, newtype));
}

/* Vector and hvector: count blocks of blocklength items, `stride_bytes` apart. */
static int make_vector(int count, int blocklength, MPI_Aint stride_bytes, MPI_Datatype oldtype, int combiner,
                       MPI_Datatype *newtype)
{
    int err = check_new(count, newtype);
    if (err != MPI_SUCCESS)
        return err;
    if (blocklength < 0)
        return MPI_ERR_COUNT;
    const struct type_entry *old = live(oldtype);
    if (!old)
        return MPI_ERR_TYPE;
    MPI_Aint span;
    if (count > 0 && __builtin_mul_overflow((MPI_Aint)(count - 1), stride_bytes, &span))
        return MPI_ERR_ARG;
    /* Blocks that do not abut are a run each at least: refuse too many before building any. */
    size_t per_block = old->t.nruns == 1 && old->t.contiguous ? 1 : (size_t)blocklength * old->t.nruns;
    if (old->t.size > 0 && blocklength > 0 && stride_bytes != (MPI_Aint)blocklength * old->t.extent &&
        per_block > 0 && (size_t)count > MAX_RUNS / per_block)
        return MPI_ERR_COUNT;
    struct builder b;
    builder_init(&b);
    for (int i = 0; i < count && !b.err && !b.oom; i++)
        add_block(&b, (MPI_Aint)i * stride_bytes, (size_t)blocklength, old);
    if (combiner == MPI_COMBINER_VECTOR)
        return finish(&b, combiner, 3, 0, 1, newtype);
    return finish(&b, combiner, 2, 1, 1, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const struct type_entry *old = live(oldtype);
    MPI_Aint stride_bytes = 0;
    if (old && __builtin_mul_overflow((MPI_Aint)stride, old->t.extent, &stride_bytes))
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    MPI_RETURN(MPI_COMM_WORLD, make_vector(count, blocklength, stride_bytes, oldtype, MPI_COMBINER_VECTOR, newtype));
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    MPI_RETURN(MPI_COMM_WORLD, make_vector(count, blocklength, stride, oldtype, MPI_COMBINER_HVECTOR, newtype));
}

/* The indexed family: block i has blocklengths[i] items (the *_BLOCK combiners: `blocklength` items) at
 * int_displs[i] extents or aint_displs[i] bytes (the one of the two that is not NULL). */
static int make_indexed(int count, const int *blocklengths, int blocklength, const int *int_displs,
                        const MPI_Aint *aint_displs, MPI_Datatype oldtype, int combiner, MPI_Datatype *newtype)
{
    int err = check_new(count, newtype);
    if (err != MPI_SUCCESS)
        return err;
    int block = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    if (count > 0 && ((!int_displs && !aint_displs) || (!block && !blocklengths)))
        return MPI_ERR_ARG;
    if (block && blocklength < 0)
        return MPI_ERR_COUNT;
    for (int i = 0; !block && i < count; i++)
        if (blocklengths[i] < 0)
            return MPI_ERR_COUNT;
    const struct type_entry *old = live(oldtype);
    if (!old)
        return MPI_ERR_TYPE;
    struct builder b;
    builder_init(&b);
    for (int i = 0; i < count && !b.err && !b.oom; i++) {
        MPI_Aint disp = aint_displs ? aint_displs[i] : 0;
        if (int_displs && __builtin_mul_overflow((MPI_Aint)int_displs[i], old->t.extent, &disp))
            b.err = MPI_ERR_ARG;
        else
            add_block(&b, disp, (size_t)(block ? blocklength : blocklengths[i]), old);
    }
    switch (combiner) {
    case MPI_COMBINER_INDEXED:
        return finish(&b, combiner, 2 * count + 1, 0, 1, newtype);
    case MPI_COMBINER_HINDEXED:
        return finish(&b, combiner, count + 1, count, 1, newtype);
    case MPI_COMBINER_INDEXED_BLOCK:
        return finish(&b, combiner, count + 2, 0, 1, newtype);
    default:
        return finish(&b, combiner, 2, count, 1, newtype);
    }
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_RETURN(MPI_COMM_WORLD, make_indexed(count, array_of_blocklengths, 0, array_of_displacements, NULL, oldtype,
                                            MPI_COMBINER_INDEXED, newtype));
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_RETURN(MPI_COMM_WORLD, make_indexed(count, array_of_blocklengths, 0, NULL, array_of_displacements, oldtype,
                                            MPI_COMBINER_HINDEXED, newtype));
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_RETURN(MPI_COMM_WORLD, make_indexed(count, NULL, blocklength, array_of_displacements, NULL, oldtype,
                                            MPI_COMBINER_INDEXED_BLOCK, newtype));
}

int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_RETURN(MPI_COMM_WORLD, make_indexed(count, NULL, blocklength, NULL, array_of_displacements, oldtype,
                                            MPI_COMBINER_HINDEXED_BLOCK, newtype));
}

int MPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int err = check_new(count, newtype);
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    if (count > 0 && (!array_of_blocklengths || !array_of_displacements || !array_of_types))
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    int mixed = 0;
    long first_class = 0;
    for (int i = 0; i < count; i++) {
        if (array_of_blocklengths[i] < 0)
            MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_COUNT);
        if (!live(array_of_types[i]))
            MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_TYPE);
        /* (The markers are no members to padding.) */
        if (array_of_types[i] != MPI_LB && array_of_types[i] != MPI_UB) {
            long pclass = live(array_of_types[i])->pclass;
            if (first_class && pclass != first_class)
                mixed = 1;
            first_class = pclass;
        }
    }
    struct builder b;
    builder_init(&b);
    for (int i = 0; i < count && !b.err && !b.oom; i++)
        add_block(&b, array_of_displacements[i], (size_t)array_of_blocklengths[i], live(array_of_types[i]));
    /* Padded like a C struct unless an MPI_UB (or a member's sticky ub) sets the upper bound. */
    if (mixed && b.lb_kind && b.ub_kind == BOUND_DATA && !b.err) {
        MPI_Aint span = b.ub - b.lb, rem = span % b.align;
        if (span > 0 && rem)
            b.ub += b.align - rem;
    }
    MPI_RETURN(MPI_COMM_WORLD, finish(&b, MPI_COMBINER_STRUCT, count + 1, count, count, newtype));
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    if (!newtype || ndims <= 0 || !array_of_sizes || !array_of_subsizes || !array_of_starts ||
        (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    for (int d = 0; d < ndims; d++)
        if (array_of_sizes[d] <= 0 || array_of_subsizes[d] < 0 || array_of_starts[d] < 0 ||
            array_of_subsizes[d] > array_of_sizes[d] || array_of_starts[d] > array_of_sizes[d] - array_of_subsizes[d])
            MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    const struct type_entry *old = live(oldtype);
    if (!old)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_TYPE);
    /* Dimension k of the walk is dimension `k` (C order: the last varies fastest) or `ndims - 1 - k` (Fortran order:
     * the first varies fastest) of the arguments. stride[k]: items between neighbours along dimension k. */
    int *index = calloc((size_t)ndims, sizeof *index);
    MPI_Aint *stride = malloc((size_t)ndims * sizeof *stride);
    if (!index || !stride) {
        free(index);
        free(stride);
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    }
#define DIM(k) (order == MPI_ORDER_C ? (k) : ndims - 1 - (k))
    MPI_Aint items = 1, array_extent;
    int too_big = 0;
    for (int k = ndims - 1; k >= 0; k--) {
        stride[k] = items;
        too_big |= __builtin_mul_overflow(items, (MPI_Aint)array_of_sizes[DIM(k)], &items);
    }
    too_big |= __builtin_mul_overflow(items, old->t.extent, &array_extent);
    if (too_big) {
        free(index);
        free(stride);
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    }
    int empty = 0;
    for (int k = 0; k < ndims; k++)
        empty |= array_of_subsizes[DIM(k)] == 0;
    struct builder b;
    builder_init(&b);
    /* One block per row of the innermost dimension, rows in memory order (an odometer over the outer ones). */
    int inner = ndims - 1;
    while (!empty && !b.oom && !b.err) {
        MPI_Aint first = 0;
        for (int k = 0; k < ndims; k++)
            first += (MPI_Aint)(array_of_starts[DIM(k)] + (k < inner ? index[k] : 0)) * stride[k];
        add_block(&b, first * old->t.extent, (size_t)array_of_subsizes[DIM(inner)], old);
        int k = inner - 1;
        while (k >= 0 && ++index[k] == array_of_subsizes[DIM(k)])
            index[k--] = 0;
        if (k < 0)
            break;
    }
#undef DIM
    free(index);
    free(stride);
    int err = finish(&b, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1, newtype);
    if (err == MPI_SUCCESS)
        set_bounds(*newtype, 0, array_extent);
    MPI_RETURN(MPI_COMM_WORLD, err);
}

/* A copy of old's typemap as a new type (resized and dup). */
static int copy_type(const struct type_entry *old, int combiner, int ints, int addrs, int types,
                     MPI_Datatype *newtype)
{
    struct builder b;
    builder_init(&b);
    add_block(&b, 0, 1, old);
    return finish(&b, combiner, ints, addrs, types, newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    int err = check_new(0, newtype);
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    const struct type_entry *old = live(oldtype);
    if (!old)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_TYPE);
    err = copy_type(old, MPI_COMBINER_RESIZED, 0, 2, 1, newtype);
    if (err == MPI_SUCCESS) {
        entry_of(*newtype)->align = old->align;
        set_bounds(*newtype, lb, extent);
    }
    MPI_RETURN(MPI_COMM_WORLD, err);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int err = check_new(0, newtype);
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    const struct type_entry *old = live(oldtype);
    if (!old)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_TYPE);
    err = copy_type(old, MPI_COMBINER_DUP, 0, 0, 1, newtype);
    if (err == MPI_SUCCESS) {
        /* Same bounds (a copy through add_block would drop an empty type's explicit ones) and committed state. */
        struct type_entry *e = entry_of(*newtype);
        e->align = old->align;
        e->t.committed = old->t.committed;
        set_bounds(*newtype, old->t.lb, old->t.extent);
        e->lb_kind = old->lb_kind;
        e->ub_kind = old->ub_kind;
    }
    MPI_RETURN(MPI_COMM_WORLD, err);
}

int MPI_Type_commit(MPI_Datatype *datatype)
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    if (!datatype)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    struct type_entry *e = live(*datatype);
    if (!e)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_TYPE);
    e->t.committed = 1;
    return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype *datatype)
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    if (!datatype)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    struct type_entry *e = live(*datatype);
    if (!e || e->t.predefined)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_TYPE);
    /* Pending operations keep the entry (and the handle) until they release it. */
    e->t.freed = 1;
    if (e->t.refs == 0)
        destroy(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* ---- MPI functions: addresses ---- */

int MPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* ---- MPI-1 functions removed in MPI-3.0 (docs/mpi.md): their MPI-2 replacements under the old names ---- */

int MPI_Address(void *location, MPI_Aint *address)
{
    return MPI_Get_address(location, address);
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb;
    return MPI_Type_get_extent(datatype, extent ? &lb : NULL, extent);
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint extent;
    return MPI_Type_get_extent(datatype, displacement, displacement ? &extent : NULL);
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb = 0, extent = 0;
    int err = MPI_Type_get_extent(datatype, displacement ? &lb : NULL, &extent);
    if (err == MPI_SUCCESS)
        *displacement = lb + extent;
    return err;
}

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return MPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return MPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype, newtype);
}

int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                    MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return MPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements, array_of_types, newtype);
}

/* ---- MPI functions: packing ---- */

/* The checks Pack, Unpack and Pack_size share: MPI is up, comm is a communicator, type a usable type. */
static int check_pack(MPI_Comm comm, MPI_Datatype type, int count, int need_commit, const struct type_entry **e)
{
    if (!mpi_up())
        return MPI_ERR_OTHER;
    if (!nocmsg_comm_get(comm))
        return MPI_ERR_COMM;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (!(*e = live(type)) || (need_commit && !(*e)->t.committed))
        return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

/* The communicator to report an error on: comm itself when it is one. */
static inline MPI_Comm report_comm(MPI_Comm comm)
{
    return nocmsg_comm_get(comm) ? comm : MPI_COMM_WORLD;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
             MPI_Comm comm)
{
    const struct type_entry *e;
    int err = check_pack(comm, datatype, incount, 1, &e);
    if (err != MPI_SUCCESS)
        MPI_RETURN(report_comm(comm), err);
    if (!position || *position < 0 || outsize < 0 || (incount > 0 && e->t.size > 0 && (!inbuf || !outbuf)))
        MPI_RETURN(comm, MPI_ERR_ARG);
    size_t bytes = (size_t)incount * e->t.size;
    if (*position > outsize || bytes > (size_t)(outsize - *position))
        MPI_RETURN(comm, MPI_ERR_TRUNCATE);
    mpi_pack(inbuf, (size_t)incount, &e->t, (char *)outbuf + *position);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype,
               MPI_Comm comm)
{
    const struct type_entry *e;
    int err = check_pack(comm, datatype, outcount, 1, &e);
    if (err != MPI_SUCCESS)
        MPI_RETURN(report_comm(comm), err);
    if (!position || *position < 0 || insize < 0 || (outcount > 0 && e->t.size > 0 && (!inbuf || !outbuf)))
        MPI_RETURN(comm, MPI_ERR_ARG);
    size_t bytes = (size_t)outcount * e->t.size;
    if (*position > insize || bytes > (size_t)(insize - *position))
        MPI_RETURN(comm, MPI_ERR_TRUNCATE);
    mpi_unpack((const char *)inbuf + *position, (size_t)outcount, &e->t, outbuf);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    const struct type_entry *e;
    int err = check_pack(comm, datatype, incount, 0, &e);
    if (err != MPI_SUCCESS)
        MPI_RETURN(report_comm(comm), err);
    if (!size)
        MPI_RETURN(comm, MPI_ERR_ARG);
    size_t bytes = (size_t)incount * e->t.size;
    if (bytes > INT_MAX)
        MPI_RETURN(comm, MPI_ERR_ARG);
    *size = (int)bytes;
    return MPI_SUCCESS;
}

/* ---- MPI functions: statuses ---- */

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    struct type_entry *e;
    CHECK_TYPE(datatype, e);
    if (!status || !count)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    size_t bytes = status->nocmsg_count, size = e->t.size;
    if (size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else if (bytes % size || bytes / size > INT_MAX)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / size);
    return MPI_SUCCESS;
}

/* Get_elements and Status_set_elements, in both widths. */
static int get_elements(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    const struct type_entry *e;
    if (!mpi_up())
        return MPI_ERR_OTHER;
    if (!(e = live(datatype)))
        return MPI_ERR_TYPE;
    if (!status || !count)
        return MPI_ERR_ARG;
    *count = mpi_type_elements(&e->t, status->nocmsg_count);
    return MPI_SUCCESS;
}

static int set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    const struct type_entry *e;
    if (!mpi_up())
        return MPI_ERR_OTHER;
    if (!(e = live(datatype)))
        return MPI_ERR_TYPE;
    if (!status)
        return MPI_ERR_ARG;
    if (count < 0)
        return MPI_ERR_COUNT;
    MPI_Count bytes = elements_bytes(&e->t, count);
    if (bytes < 0)
        return MPI_ERR_ARG;
    status->nocmsg_count = (size_t)bytes;
    return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPI_RETURN(MPI_COMM_WORLD, get_elements(status, datatype, count));
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n;
    int err = get_elements(status, datatype, count ? &n : NULL);
    if (err == MPI_SUCCESS)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    MPI_RETURN(MPI_COMM_WORLD, err);
}

int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    MPI_RETURN(MPI_COMM_WORLD, set_elements(status, datatype, count));
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    MPI_RETURN(MPI_COMM_WORLD, set_elements(status, datatype, count));
}

/* ---- Fortran handles (already integers) ---- */

MPI_Fint MPI_Type_c2f(MPI_Datatype datatype)
{
    return (MPI_Fint)datatype;
}

MPI_Datatype MPI_Type_f2c(MPI_Fint datatype)
{
    return (MPI_Datatype)datatype;
}
