/* unit_types.c: MPI datatypes one function at a time. Every predefined type's name, size and bounds; every
 * constructor's size, lb, extent, true lb, true extent and envelope (struct padding, negative strides and
 * displacements, zero-length blocks, resized and subarray types in C and Fortran order); names; MPI_Pack and
 * MPI_Unpack (packed bytes in typemap order, positions, gaps left alone); messages of derived types received as basic
 * ones and the other way round; MPI_Get_count and MPI_Get_elements on partial messages; error classes; many types
 * made and freed; types built from freed types; and hundreds of random nested types, packed and unpacked.
 *
 * Printed values assume 4-byte int, 8-byte long and double, 16-byte long double (LP64 Linux and RV64 lp64), and
 * avoid what MPICH 4.0 does differently from MPI 3.1: Get_elements of a message ending inside an element,
 * MPI_Status_set_elements with a derived type, and the bounds of types without data. Messages go from each rank to
 * its right neighbour (itself on one rank). Only rank 0 prints. */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int rank, size, right, left;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL unit_types: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

static void say(const char *fmt, ...)
{
    if (rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    printf("unit_types: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static const char *combiner_name(int combiner)
{
    switch (combiner) {
    case MPI_COMBINER_NAMED: return "NAMED";
    case MPI_COMBINER_DUP: return "DUP";
    case MPI_COMBINER_CONTIGUOUS: return "CONTIGUOUS";
    case MPI_COMBINER_VECTOR: return "VECTOR";
    case MPI_COMBINER_HVECTOR: return "HVECTOR";
    case MPI_COMBINER_INDEXED: return "INDEXED";
    case MPI_COMBINER_HINDEXED: return "HINDEXED";
    case MPI_COMBINER_INDEXED_BLOCK: return "INDEXED_BLOCK";
    case MPI_COMBINER_HINDEXED_BLOCK: return "HINDEXED_BLOCK";
    case MPI_COMBINER_STRUCT: return "STRUCT";
    case MPI_COMBINER_SUBARRAY: return "SUBARRAY";
    case MPI_COMBINER_RESIZED: return "RESIZED";
    default: return "(another combiner)";
    }
}

static const char *class_name(int code)
{
    int class;
    if (MPI_Error_class(code, &class) != MPI_SUCCESS)
        return "(not an error code)";
    switch (class) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    default: return "(another class)";
    }
}

/* One line with everything the type queries say, after checking the _x variants agree. */
static void describe(const char *what, MPI_Datatype t)
{
    int sz, ni, na, nd, combiner, len;
    MPI_Aint lb, extent, tlb, textent;
    MPI_Count szx, lbx, extentx, tlbx, textentx;
    char name[MPI_MAX_OBJECT_NAME];
    OK(MPI_Type_size(t, &sz));
    OK(MPI_Type_get_extent(t, &lb, &extent));
    OK(MPI_Type_get_true_extent(t, &tlb, &textent));
    OK(MPI_Type_size_x(t, &szx));
    OK(MPI_Type_get_extent_x(t, &lbx, &extentx));
    OK(MPI_Type_get_true_extent_x(t, &tlbx, &textentx));
    CHECK(szx == sz && lbx == lb && extentx == extent && tlbx == tlb && textentx == textent,
          "%s: the _x queries disagree", what);
    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
    OK(MPI_Type_get_name(t, name, &len));
    CHECK((int)strlen(name) == len, "%s: name length %d for \"%s\"", what, len, name);
    say("%-36s size %3d lb %4ld extent %4ld true_lb %4ld true_extent %4ld  %s %d %d %d  \"%s\"", what, sz, (long)lb,
        (long)extent, (long)tlb, (long)textent, combiner_name(combiner), ni, na, nd, name);
}

static void describe_free(const char *what, MPI_Datatype t)
{
    describe(what, t);
    OK(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "%s: Type_free left the handle", what);
}

static void predefined(void)
{
    static const struct {
        MPI_Datatype type;
        const char *what;
    } types[] = {
        {MPI_BYTE, "MPI_BYTE"}, {MPI_CHAR, "MPI_CHAR"}, {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"},
        {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"}, {MPI_SHORT, "MPI_SHORT"}, {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"},
        {MPI_INT, "MPI_INT"}, {MPI_UNSIGNED, "MPI_UNSIGNED"}, {MPI_LONG, "MPI_LONG"},
        {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"}, {MPI_LONG_LONG, "MPI_LONG_LONG"},
        {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"}, {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"},
        {MPI_INT8_T, "MPI_INT8_T"}, {MPI_UINT8_T, "MPI_UINT8_T"}, {MPI_INT16_T, "MPI_INT16_T"},
        {MPI_UINT16_T, "MPI_UINT16_T"}, {MPI_INT32_T, "MPI_INT32_T"}, {MPI_UINT32_T, "MPI_UINT32_T"},
        {MPI_INT64_T, "MPI_INT64_T"}, {MPI_UINT64_T, "MPI_UINT64_T"}, {MPI_FLOAT, "MPI_FLOAT"},
        {MPI_DOUBLE, "MPI_DOUBLE"}, {MPI_FLOAT_INT, "MPI_FLOAT_INT"}, {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
        {MPI_LONG_INT, "MPI_LONG_INT"}, {MPI_2INT, "MPI_2INT"}, {MPI_SHORT_INT, "MPI_SHORT_INT"},
        {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"}, {MPI_WCHAR, "MPI_WCHAR"}, {MPI_C_BOOL, "MPI_C_BOOL"},
        {MPI_PACKED, "MPI_PACKED"}, {MPI_AINT, "MPI_AINT"}, {MPI_OFFSET, "MPI_OFFSET"}, {MPI_COUNT, "MPI_COUNT"},
        {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX"}, {MPI_C_COMPLEX, "MPI_C_COMPLEX"},
        {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"}, {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"},
        {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"},
    };
    for (int i = 0; i < (int)(sizeof types / sizeof types[0]); i++) {
        describe(types[i].what, types[i].type);
        CHECK(MPI_Type_f2c(MPI_Type_c2f(types[i].type)) == types[i].type, "%s: c2f/f2c", types[i].what);
    }
}

static void constructors(void)
{
    MPI_Datatype t, dc, r;
    describe_free("contiguous(4, INT)", (MPI_Type_contiguous(4, MPI_INT, &t), t));
    describe_free("contiguous(0, INT)", (MPI_Type_contiguous(0, MPI_INT, &t), t));
    describe_free("contiguous(3, DOUBLE_INT)", (MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t), t));
    describe_free("contiguous(3, SHORT_INT)", (MPI_Type_contiguous(3, MPI_SHORT_INT, &t), t));
    describe_free("vector(3, 2, 4, INT)", (MPI_Type_vector(3, 2, 4, MPI_INT, &t), t));
    describe_free("vector(3, 2, -4, INT)", (MPI_Type_vector(3, 2, -4, MPI_INT, &t), t));
    describe_free("vector(2, 2, 2, INT)", (MPI_Type_vector(2, 2, 2, MPI_INT, &t), t));
    describe_free("vector(0, 2, 2, INT)", (MPI_Type_vector(0, 2, 2, MPI_INT, &t), t));
    describe_free("vector(3, 1, 0, INT)", (MPI_Type_vector(3, 1, 0, MPI_INT, &t), t));
    describe_free("vector(2, 2, 1, INT)", (MPI_Type_vector(2, 2, 1, MPI_INT, &t), t));
    describe_free("hvector(3, 2, 20, INT)", (MPI_Type_create_hvector(3, 2, 20, MPI_INT, &t), t));
    describe_free("hvector(2, 1, -12, DOUBLE)", (MPI_Type_create_hvector(2, 1, -12, MPI_DOUBLE, &t), t));
    describe_free("hvector(2, 1, 5, INT)", (MPI_Type_create_hvector(2, 1, 5, MPI_INT, &t), t));
    describe_free("hvector(2, 1, 9, DOUBLE_INT)", (MPI_Type_create_hvector(2, 1, 9, MPI_DOUBLE_INT, &t), t));
    {
        int bl[] = {2, 1, 3}, d[] = {5, 0, 10};
        describe_free("indexed({2,1,3}, {5,0,10}, INT)", (MPI_Type_indexed(3, bl, d, MPI_INT, &t), t));
    }
    {
        int bl[] = {2, 0, 3}, d[] = {5, -7, 10};
        describe_free("indexed({2,0,3}, {5,-7,10}, INT)", (MPI_Type_indexed(3, bl, d, MPI_INT, &t), t));
    }
    {
        int bl[] = {1, 1}, d[] = {-2, 3};
        describe_free("indexed({1,1}, {-2,3}, INT)", (MPI_Type_indexed(2, bl, d, MPI_INT, &t), t));
    }
    {
        int bl[] = {0, 0}, d[] = {5, 3};
        describe_free("indexed({0,0}, {5,3}, INT)", (MPI_Type_indexed(2, bl, d, MPI_INT, &t), t));
    }
    {
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 5};
        describe_free("hindexed({1,1}, {0,5}, INT)", (MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t), t));
    }
    {
        int bl[] = {1, 2};
        MPI_Aint d[] = {3, 17};
        describe_free("hindexed({1,2}, {3,17}, DOUBLE)", (MPI_Type_create_hindexed(2, bl, d, MPI_DOUBLE, &t), t));
    }
    {
        int d[] = {4, 0, 9};
        describe_free("indexed_block(2, {4,0,9}, SHORT)",
                      (MPI_Type_create_indexed_block(3, 2, d, MPI_SHORT, &t), t));
    }
    {
        MPI_Aint d[] = {4, 0, 9};
        describe_free("hindexed_block(2, {4,0,9}, SHORT)",
                      (MPI_Type_create_hindexed_block(3, 2, d, MPI_SHORT, &t), t));
    }
    /* Structs: padded to their strictest member's alignment when the members' types differ. */
    {
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 8};
        MPI_Datatype ty[] = {MPI_DOUBLE, MPI_CHAR};
        OK(MPI_Type_create_struct(2, bl, d, ty, &dc));
        describe("struct {DOUBLE@0, CHAR@8}", dc);
    }
    static const struct {
        const char *what;
        int bl[2];
        MPI_Aint d[2];
        MPI_Datatype ty[2];
    } structs[] = {
        {"struct {CHAR@0, DOUBLE@8}", {1, 1}, {0, 8}, {MPI_CHAR, MPI_DOUBLE}},
        {"struct {INT@0, CHAR@4}", {1, 1}, {0, 4}, {MPI_INT, MPI_CHAR}},
        {"struct {CHAR@0, CHAR@3}", {1, 1}, {0, 3}, {MPI_CHAR, MPI_CHAR}},
        {"struct {CHAR@-1, INT@4}", {1, 1}, {-1, 4}, {MPI_CHAR, MPI_INT}},
        {"struct {CHAR@0, DOUBLE x0@8}", {1, 0}, {0, 8}, {MPI_CHAR, MPI_DOUBLE}},
        {"struct {DOUBLE_INT@0, CHAR@16}", {1, 1}, {0, 16}, {MPI_DOUBLE_INT, MPI_CHAR}},
        {"struct {SHORT_INT@0, CHAR@8}", {1, 1}, {0, 8}, {MPI_SHORT_INT, MPI_CHAR}},
        {"struct {LONG_DOUBLE@0, CHAR@16}", {1, 1}, {0, 16}, {MPI_LONG_DOUBLE, MPI_CHAR}},
        {"struct {INT@8, DOUBLE@0}", {1, 1}, {8, 0}, {MPI_INT, MPI_DOUBLE}},
        {"struct {INT@0, INT@9}", {1, 1}, {0, 9}, {MPI_INT, MPI_INT}},
        {"struct {INT@0, INT32_T@9}", {1, 1}, {0, 9}, {MPI_INT, MPI_INT32_T}},
        {"struct {LONG@0, UNSIGNED_LONG@9}", {1, 1}, {0, 9}, {MPI_LONG, MPI_UNSIGNED_LONG}},
        {"struct {INT@0, FLOAT@5}", {1, 1}, {0, 5}, {MPI_INT, MPI_FLOAT}},
        {"struct {INT x2@100, CHAR@0}", {2, 1}, {100, 0}, {MPI_INT, MPI_CHAR}},
    };
    for (int i = 0; i < (int)(sizeof structs / sizeof structs[0]); i++)
        describe_free(structs[i].what,
                      (MPI_Type_create_struct(2, structs[i].bl, structs[i].d, structs[i].ty, &t), t));
    {
        int bl[] = {3};
        MPI_Aint d[] = {0};
        MPI_Datatype ty[] = {MPI_INT};
        describe_free("struct {INT x3@0}", (MPI_Type_create_struct(1, bl, d, ty, &t), t));
        describe_free("struct {}", (MPI_Type_create_struct(0, bl, d, ty, &t), t));
    }
    {
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 16};
        MPI_Datatype ty[] = {dc, MPI_CHAR};
        describe_free("struct {dc@0, CHAR@16}", (MPI_Type_create_struct(2, bl, d, ty, &t), t));
        bl[0] = 2;
        d[1] = 32;
        ty[1] = MPI_SHORT;
        describe_free("struct {dc x2@0, SHORT@32}", (MPI_Type_create_struct(2, bl, d, ty, &t), t));
    }
    /* Resized types, and types built from them. */
    OK(MPI_Type_create_resized(MPI_INT, -4, 16, &r));
    describe("resized(INT, -4, 16)", r);
    describe_free("contiguous(3, resized)", (MPI_Type_contiguous(3, r, &t), t));
    describe_free("vector(2, 2, 3, resized)", (MPI_Type_vector(2, 2, 3, r, &t), t));
    {
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 20};
        MPI_Datatype ty[] = {r, MPI_CHAR};
        describe_free("struct {resized@0, CHAR@20}", (MPI_Type_create_struct(2, bl, d, ty, &t), t));
        MPI_Aint d2[] = {2, 0};
        MPI_Datatype ty2[] = {r, MPI_CHAR};
        describe_free("struct {resized@2, CHAR@0}", (MPI_Type_create_struct(2, bl, d2, ty2, &t), t));
    }
    {
        int sz[] = {4, 5}, sub[] = {2, 3}, st[] = {1, 1};
        describe_free("subarray C 4x5 of resized",
                      (MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, r, &t), t));
        describe_free("subarray Fortran 4x5 of resized",
                      (MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, r, &t), t));
    }
    OK(MPI_Type_free(&r));
    describe_free("resized(dc, 0, 9)", (MPI_Type_create_resized(dc, 0, 9, &t), t));
    describe_free("resized(dc, 4, 4)", (MPI_Type_create_resized(dc, 4, 4, &t), t));
    describe_free("resized(INT, 0, 0)", (MPI_Type_create_resized(MPI_INT, 0, 0, &t), t));
    describe_free("resized(INT, 0, -8)", (MPI_Type_create_resized(MPI_INT, 0, -8, &t), t));
    OK(MPI_Type_create_resized(MPI_INT, 0, -8, &r));
    describe_free("contiguous(3, resized(INT, 0, -8))", (MPI_Type_contiguous(3, r, &t), t));
    OK(MPI_Type_free(&r));
    OK(MPI_Type_create_resized(dc, 0, 9, &r));
    {
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 9};
        MPI_Datatype ty[] = {r, MPI_CHAR};
        describe_free("struct {resized(dc, 0, 9)@0, CHAR@9}", (MPI_Type_create_struct(2, bl, d, ty, &t), t));
    }
    OK(MPI_Type_free(&r));
    describe_free("dup(dc)", (MPI_Type_dup(dc, &t), t));
    describe_free("dup(INT)", (MPI_Type_dup(MPI_INT, &t), t));
    describe_free("dup(DOUBLE_INT)", (MPI_Type_dup(MPI_DOUBLE_INT, &t), t));
    /* Subarrays: the whole array's extent from 0; the data where the subarray starts. */
    {
        int sz[] = {4, 5}, sub[] = {2, 3}, st[] = {1, 1};
        describe_free("subarray C 4x5 [1..2][1..3] INT",
                      (MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t), t));
        describe_free("subarray Fortran 4x5 (1..2,1..3) INT",
                      (MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, MPI_INT, &t), t));
    }
    {
        int sz[] = {3, 4, 5}, sub[] = {2, 2, 2}, st[] = {1, 0, 3};
        describe_free("subarray C 3x4x5 of dc", (MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, dc, &t), t));
        describe_free("subarray Fortran 3x4x5 of dc",
                      (MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_FORTRAN, dc, &t), t));
    }
    {
        int sz[] = {6}, sub[] = {6}, st[] = {0};
        describe_free("subarray 6 [0..5] INT", (MPI_Type_create_subarray(1, sz, sub, st, MPI_ORDER_C, MPI_INT, &t), t));
        sub[0] = 0;
        st[0] = 2;
        describe_free("subarray 6 [] INT", (MPI_Type_create_subarray(1, sz, sub, st, MPI_ORDER_C, MPI_INT, &t), t));
    }
    /* Types of types. */
    {
        MPI_Datatype v;
        OK(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
        describe_free("vector(2, 1, 2, vector(3, 2, 4, INT))", (MPI_Type_vector(2, 1, 2, v, &t), t));
        int bl[] = {2, 1};
        MPI_Aint d[] = {0, 100};
        MPI_Datatype ty[] = {v, dc};
        describe_free("struct {vector x2@0, dc@100}", (MPI_Type_create_struct(2, bl, d, ty, &t), t));
        OK(MPI_Type_free(&v));
    }
    OK(MPI_Type_free(&dc));
}

static void names(void)
{
    MPI_Datatype t, d;
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    OK(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &t));
    OK(MPI_Type_get_name(t, name, &len));
    say("name of a new vector: \"%s\" (%d)", name, len);
    OK(MPI_Type_set_name(t, "every third double"));
    OK(MPI_Type_get_name(t, name, &len));
    say("after Type_set_name: \"%s\" (%d)", name, len);
    OK(MPI_Type_dup(t, &d));
    OK(MPI_Type_get_name(d, name, &len));
    say("name of its dup: \"%s\" (%d)", name, len);
    OK(MPI_Type_set_name(d, "a dup"));
    OK(MPI_Type_get_name(t, name, &len));
    say("the original keeps \"%s\"", name);
    OK(MPI_Type_set_name(t, "renamed"));
    OK(MPI_Type_get_name(t, name, &len));
    say("renamed: \"%s\" (%d)", name, len);
    OK(MPI_Type_set_name(MPI_INT, "my int"));
    OK(MPI_Type_get_name(MPI_INT, name, &len));
    say("a predefined type renamed: \"%s\" (%d)", name, len);
    OK(MPI_Type_set_name(MPI_INT, "MPI_INT"));
    OK(MPI_Type_get_name(MPI_INT, name, &len));
    say("and back: \"%s\" (%d)", name, len);
    OK(MPI_Type_free(&t));
    OK(MPI_Type_free(&d));
}

/* 4x5 matrix with a[i][j] = 10 i + j. */
static void fill_matrix(int a[4][5])
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            a[i][j] = 10 * i + j;
}

/* A count as MPI gives it, MPI_UNDEFINED by name. */
static const char *count_text(int n)
{
    static char text[4][16];
    static int next;
    char *t = text[next++ % 4];
    if (n == MPI_UNDEFINED)
        snprintf(t, 16, "MPI_UNDEFINED");
    else
        snprintf(t, 16, "%d", n);
    return t;
}

static void print_ints(const char *what, const int *v, int n)
{
    char line[512];
    int at = 0;
    for (int i = 0; i < n; i++)
        at += snprintf(line + at, sizeof line - (size_t)at, " %d", v[i]);
    say("%s:%s", what, line);
}

/* A struct with padding after each member. */
struct item {
    char c;
    double d;
    short s;
};

static MPI_Datatype item_type(void)
{
    struct item x;
    memset(&x, 0, sizeof x);
    MPI_Aint base, addr[3];
    OK(MPI_Get_address(&x, &base));
    OK(MPI_Get_address(&x.c, &addr[0]));
    OK(MPI_Get_address(&x.d, &addr[1]));
    OK(MPI_Get_address(&x.s, &addr[2]));
    for (int i = 0; i < 3; i++)
        addr[i] = MPI_Aint_diff(addr[i], base);
    CHECK(MPI_Aint_add(base, addr[1]) == (MPI_Aint)&x.d, "Aint_add");
    int bl[] = {1, 1, 1};
    MPI_Datatype ty[] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT}, t;
    OK(MPI_Type_create_struct(3, bl, addr, ty, &t));
    OK(MPI_Type_commit(&t));
    MPI_Aint lb, extent;
    OK(MPI_Type_get_extent(t, &lb, &extent));
    CHECK(lb == 0 && extent == sizeof(struct item), "struct item: lb %ld extent %ld, sizeof %zu", (long)lb,
          (long)extent, sizeof(struct item));
    return t;
}

static void packing(void)
{
    int a[4][5], b[4][5], packed_ints[32];
    char buf[256];
    int pos, psize;
    MPI_Datatype column, t;

    /* A column, packed into 4 ints; unpacked into a zero matrix: only the column changes. */
    fill_matrix(a);
    OK(MPI_Type_vector(4, 1, 5, MPI_INT, &column));
    OK(MPI_Type_commit(&column));
    OK(MPI_Pack_size(1, column, MPI_COMM_WORLD, &psize));
    CHECK(psize >= 16, "Pack_size of a column %d", psize);
    pos = 0;
    OK(MPI_Pack(&a[0][2], 1, column, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    CHECK(pos == 16, "packed column: position %d", pos);
    memcpy(packed_ints, buf, 16);
    print_ints("column 2 packed", packed_ints, 4);
    memset(b, 0, sizeof b);
    pos = 0;
    OK(MPI_Unpack(buf, 16, &pos, &b[0][3], 1, column, MPI_COMM_WORLD));
    CHECK(pos == 16, "unpacked column: position %d", pos);
    print_ints("unpacked into column 3 of zeros", &b[0][0], 20);

    /* Several packs into one buffer, unpacked in the same order. */
    double x = 2.5, y = 0;
    int two[2] = {7, 8}, two_back[2] = {0, 0};
    pos = 0;
    OK(MPI_Pack(two, 2, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    OK(MPI_Pack(&a[0][1], 1, column, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    OK(MPI_Pack(&x, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    int total = pos;
    say("packed 2 INT + a column + 1 DOUBLE: %d bytes", total);
    memset(b, 0, sizeof b);
    pos = 0;
    OK(MPI_Unpack(buf, total, &pos, two_back, 2, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Unpack(buf, total, &pos, &b[0][1], 1, column, MPI_COMM_WORLD));
    OK(MPI_Unpack(buf, total, &pos, &y, 1, MPI_DOUBLE, MPI_COMM_WORLD));
    CHECK(pos == total && two_back[0] == 7 && two_back[1] == 8 && y == 2.5, "unpacking in order");
    for (int i = 0; i < 4; i++)
        CHECK(b[i][1] == a[i][1] && b[i][0] == 0 && b[i][2] == 0, "column 1 round trip, row %d", i);
    say("unpacked in the same order: 7 8, column 1, 2.5");

    /* Typemap order, not memory order: an indexed type with blocks going backwards. */
    int v[10], back[10];
    for (int i = 0; i < 10; i++)
        v[i] = 100 + i;
    int bl[] = {2, 1, 3}, d[] = {7, 4, 0};
    OK(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    pos = 0;
    OK(MPI_Pack(v, 1, t, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    memcpy(packed_ints, buf, (size_t)pos);
    print_ints("indexed({2,1,3}, {7,4,0}) packed", packed_ints, pos / 4);
    for (int i = 0; i < 10; i++)
        back[i] = -1;
    pos = 0;
    OK(MPI_Unpack(buf, 24, &pos, back, 1, t, MPI_COMM_WORLD));
    print_ints("and unpacked over -1s", back, 10);
    OK(MPI_Type_free(&t));

    /* Structs with padding, 3 items: 11 bytes each packed; the padding of the destination untouched. */
    struct item items[3], items_back[3];
    MPI_Datatype it = item_type();
    for (int i = 0; i < 3; i++) {
        items[i].c = (char)('a' + i);
        items[i].d = 1.5 * i;
        items[i].s = (short)(100 * i);
    }
    pos = 0;
    OK(MPI_Pack(items, 3, it, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    say("3 struct {char; double; short} packed: %d bytes", pos);
    memset(items_back, 0x55, sizeof items_back);
    pos = 0;
    OK(MPI_Unpack(buf, sizeof buf, &pos, items_back, 3, it, MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++) {
        CHECK(items_back[i].c == items[i].c && items_back[i].d == items[i].d && items_back[i].s == items[i].s,
              "struct item %d round trip", i);
        const unsigned char *gap = (const unsigned char *)&items_back[i] + 1;
        CHECK(gap[0] == 0x55 && gap[6] == 0x55, "struct item %d: padding overwritten", i);
    }
    say("unpacked: a 0 0, b 1.5 100, c 3 200; padding untouched");
    OK(MPI_Type_free(&it));

    /* Subarrays pack in memory order of their own layout (C: rows; Fortran: columns). */
    int sz[] = {4, 5}, sub[] = {2, 3}, st[] = {1, 1};
    OK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    pos = 0;
    OK(MPI_Pack(a, 1, t, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    memcpy(packed_ints, buf, (size_t)pos);
    print_ints("subarray C [1..2][1..3] of a[i][j] = 10i+j", packed_ints, pos / 4);
    OK(MPI_Type_free(&t));
    /* The same matrix seen as a Fortran 5x4 array: element (i, j) is a[j][i]. */
    int fsz[] = {5, 4}, fsub[] = {3, 2}, fst[] = {1, 1};
    OK(MPI_Type_create_subarray(2, fsz, fsub, fst, MPI_ORDER_FORTRAN, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    pos = 0;
    OK(MPI_Pack(a, 1, t, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    memcpy(packed_ints, buf, (size_t)pos);
    print_ints("subarray Fortran 5x4 (1..3,1..2) of the same", packed_ints, pos / 4);
    memset(b, 0, sizeof b);
    pos = 0;
    OK(MPI_Unpack(buf, 24, &pos, b, 1, t, MPI_COMM_WORLD));
    print_ints("unpacked into zeros", &b[0][0], 20);
    OK(MPI_Type_free(&t));

    /* A resized type in an array: every third int. */
    int w[12], w_back[12];
    for (int i = 0; i < 12; i++)
        w[i] = i;
    OK(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &t));
    OK(MPI_Type_commit(&t));
    pos = 0;
    OK(MPI_Pack(w, 4, t, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    memcpy(packed_ints, buf, (size_t)pos);
    print_ints("4 resized(INT, 0, 12) packed", packed_ints, pos / 4);
    for (int i = 0; i < 12; i++)
        w_back[i] = -1;
    pos = 0;
    OK(MPI_Unpack(buf, 16, &pos, w_back + 1, 4, t, MPI_COMM_WORLD));
    print_ints("unpacked one int on", w_back, 12);
    OK(MPI_Type_free(&t));
    OK(MPI_Type_free(&column));
}

/* Sends `count` of `stype` right and receives `rcount` of `rtype` from the left, with the status. */
static void exchange(const void *sbuf, int count, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                     MPI_Status *status)
{
    OK(MPI_Sendrecv(sbuf, count, stype, right, 5, rbuf, rcount, rtype, left, 5, MPI_COMM_WORLD, status));
}

static void point_to_point(void)
{
    int a[4][5], b[4][5], col[4];
    MPI_Status st;
    int n, e;
    MPI_Datatype column, t;
    fill_matrix(a);
    OK(MPI_Type_vector(4, 1, 5, MPI_INT, &column));
    OK(MPI_Type_commit(&column));

    /* A column sent, received as 4 INT; 4 INT sent, received as a column. */
    exchange(&a[0][3], 1, column, col, 4, MPI_INT, &st);
    OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 4, "column as INT: count %d", n);
    print_ints("column 3 sent, received as 4 INT", col, 4);
    int four[4] = {-1, -2, -3, -4};
    memset(b, 0, sizeof b);
    exchange(four, 4, MPI_INT, &b[0][1], 1, column, &st);
    OK(MPI_Get_count(&st, column, &n));
    OK(MPI_Get_elements(&st, column, &e));
    say("4 INT received as a column: Get_count %d Get_elements %d", n, e);
    print_ints("matrix", &b[0][0], 20);

    /* Structs with padding, both ways as structs and once as bytes. */
    struct item items[3], got[3];
    MPI_Datatype it = item_type();
    for (int i = 0; i < 3; i++) {
        items[i].c = (char)('x' + i);
        items[i].d = 0.25 * i;
        items[i].s = (short)(7 * i);
    }
    memset(got, 0x55, sizeof got);
    exchange(items, 3, it, got, 3, it, &st);
    OK(MPI_Get_count(&st, it, &n));
    OK(MPI_Get_elements(&st, it, &e));
    for (int i = 0; i < 3; i++)
        CHECK(got[i].c == items[i].c && got[i].d == items[i].d && got[i].s == items[i].s, "struct item %d", i);
    say("3 struct {char; double; short}: Get_count %d Get_elements %d, values right", n, e);
    unsigned char bytes[64];
    exchange(items, 3, it, bytes, sizeof bytes, MPI_BYTE, &st);
    OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(bytes[0] == 'x' && bytes[11] == 'y' && bytes[22] == 'z', "struct as bytes");
    say("the same received as MPI_BYTE: %d bytes, chars at 0, 11, 22", n);
    OK(MPI_Type_free(&it));

    /* Subarrays in C and Fortran order, received as INT. */
    int sz[] = {4, 5}, sub[] = {3, 2}, stt[] = {0, 2}, ints[8];
    OK(MPI_Type_create_subarray(2, sz, sub, stt, MPI_ORDER_C, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    exchange(a, 1, t, ints, 8, MPI_INT, &st);
    OK(MPI_Get_count(&st, MPI_INT, &n));
    print_ints("subarray C [0..2][2..3] sent, INT received", ints, n);
    memset(b, 0, sizeof b);
    exchange(ints, 6, MPI_INT, b, 1, t, &st);
    print_ints("and back into zeros", &b[0][0], 20);
    OK(MPI_Type_free(&t));
    int fsz[] = {5, 4}, fsub[] = {2, 3}, fst[] = {2, 0};
    OK(MPI_Type_create_subarray(2, fsz, fsub, fst, MPI_ORDER_FORTRAN, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    exchange(a, 1, t, ints, 8, MPI_INT, &st);
    OK(MPI_Get_count(&st, MPI_INT, &n));
    print_ints("subarray Fortran 5x4 (2..3,0..2) sent, INT received", ints, n);
    OK(MPI_Type_free(&t));

    /* Resized types in arrays, on both sides. */
    int w[12], w_back[12];
    for (int i = 0; i < 12; i++) {
        w[i] = i;
        w_back[i] = -1;
    }
    MPI_Datatype third, half;
    OK(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &third));
    OK(MPI_Type_commit(&third));
    OK(MPI_Type_create_resized(MPI_INT, -4, 2 * sizeof(int), &half));
    OK(MPI_Type_commit(&half));
    exchange(w, 4, third, w_back + 1, 4, half, &st);
    OK(MPI_Get_count(&st, half, &n));
    say("4 resized(INT, 0, 12) received as 4 resized(INT, -4, 8): Get_count %d", n);
    print_ints("received one int on", w_back, 12);
    OK(MPI_Type_free(&third));
    OK(MPI_Type_free(&half));

    /* Pair types: two elements per item, no padding in the message. */
    struct {
        double v;
        int i;
    } di[3], di_back[3];
    for (int i = 0; i < 3; i++) {
        di[i].v = i + 0.5;
        di[i].i = 10 + i;
    }
    OK(MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t));
    OK(MPI_Type_commit(&t));
    memset(di_back, 0, sizeof di_back);
    exchange(di, 3, MPI_DOUBLE_INT, di_back, 1, t, &st);
    OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
    OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &e));
    int nb;
    OK(MPI_Get_count(&st, MPI_BYTE, &nb));
    for (int i = 0; i < 3; i++)
        CHECK(di_back[i].v == di[i].v && di_back[i].i == di[i].i, "DOUBLE_INT %d", i);
    say("3 DOUBLE_INT received as contiguous(3, DOUBLE_INT): Get_count %d Get_elements %d bytes %d", n, e, nb);
    /* The same with Isend and Recv, both ways round. */
    MPI_Request req;
    memset(di_back, 0, sizeof di_back);
    OK(MPI_Isend(di, 3, MPI_DOUBLE_INT, right, 6, MPI_COMM_WORLD, &req));
    OK(MPI_Recv(di_back, 3, MPI_DOUBLE_INT, left, 6, MPI_COMM_WORLD, &st));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
    OK(MPI_Get_count(&st, MPI_BYTE, &nb));
    for (int i = 0; i < 3; i++)
        CHECK(di_back[i].v == di[i].v && di_back[i].i == di[i].i, "DOUBLE_INT %d", i);
    say("3 DOUBLE_INT sent and received as DOUBLE_INT: Get_count %d bytes %d", n, nb);
    memset(di_back, 0, sizeof di_back);
    OK(MPI_Isend(di, 3, MPI_DOUBLE_INT, right, 6, MPI_COMM_WORLD, &req));
    OK(MPI_Recv(di_back, 1, t, left, 6, MPI_COMM_WORLD, &st));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Get_count(&st, t, &n));
    for (int i = 0; i < 3; i++)
        CHECK(di_back[i].v == di[i].v && di_back[i].i == di[i].i, "DOUBLE_INT %d", i);
    say("3 DOUBLE_INT received as 1 contiguous(3, DOUBLE_INT): Get_count %d", n);
    OK(MPI_Type_free(&t));
    struct {
        short v;
        int i;
    } si[2] = {{1, 2}, {3, 4}}, si_back[2];
    OK(MPI_Isend(si, 2, MPI_SHORT_INT, right, 7, MPI_COMM_WORLD, &req));
    OK(MPI_Recv(si_back, 2, MPI_SHORT_INT, left, 7, MPI_COMM_WORLD, &st));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Get_count(&st, MPI_SHORT_INT, &n));
    OK(MPI_Get_elements(&st, MPI_SHORT_INT, &e));
    OK(MPI_Get_count(&st, MPI_BYTE, &nb));
    CHECK(si_back[0].v == 1 && si_back[0].i == 2 && si_back[1].v == 3 && si_back[1].i == 4, "SHORT_INT values");
    say("2 SHORT_INT: Get_count %d Get_elements %d bytes %d", n, e, nb);
    int pairs[4] = {1, 2, 3, 4}, pairs_back[4];
    exchange(pairs, 4, MPI_INT, pairs_back, 2, MPI_2INT, &st);
    OK(MPI_Get_count(&st, MPI_2INT, &n));
    OK(MPI_Get_elements(&st, MPI_2INT, &e));
    say("4 INT received as 2INT: Get_count %d Get_elements %d", n, e);

    /* A type whose old type was freed still works; the dup of a committed type needs no commit. */
    MPI_Datatype c2, v2, dup;
    OK(MPI_Type_contiguous(2, MPI_INT, &c2));
    OK(MPI_Type_vector(2, 1, 2, c2, &v2));
    OK(MPI_Type_free(&c2));
    OK(MPI_Type_commit(&v2));
    OK(MPI_Type_dup(v2, &dup));
    int eight[8] = {0, 1, 2, 3, 4, 5, 6, 7}, four_back[4];
    exchange(eight, 1, dup, four_back, 4, MPI_INT, &st);
    print_ints("vector(2, 1, 2, freed contiguous(2, INT)), dup'ed, sent", four_back, 4);
    OK(MPI_Type_free(&v2));
    OK(MPI_Type_free(&dup));

    /* MPI_PACKED on the wire. */
    char packed[64];
    int pos = 0, k = 42;
    double x = -1.25;
    OK(MPI_Pack(&k, 1, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    OK(MPI_Pack(&a[0][4], 1, column, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    OK(MPI_Pack(&x, 1, MPI_DOUBLE, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    char packed_back[64];
    exchange(packed, pos, MPI_PACKED, packed_back, sizeof packed_back, MPI_PACKED, &st);
    OK(MPI_Get_count(&st, MPI_PACKED, &n));
    int k2 = 0, pos2 = 0;
    double x2 = 0;
    memset(b, 0, sizeof b);
    OK(MPI_Unpack(packed_back, n, &pos2, &k2, 1, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Unpack(packed_back, n, &pos2, &b[0][0], 1, column, MPI_COMM_WORLD));
    OK(MPI_Unpack(packed_back, n, &pos2, &x2, 1, MPI_DOUBLE, MPI_COMM_WORLD));
    CHECK(pos2 == n && k2 == 42 && x2 == -1.25 && b[3][0] == 34, "MPI_PACKED round trip");
    say("INT + column + DOUBLE sent as %d MPI_PACKED bytes and unpacked", n);
    OK(MPI_Type_free(&column));
}

/* Messages shorter than the receive: counts and elements, and what the part item receives. */
static void partial(void)
{
    MPI_Status st;
    int n, e;
    MPI_Count ex;
    MPI_Datatype pair, sid, vec;
    OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    int five[5] = {1, 2, 3, 4, 5}, got[8];
    for (int i = 0; i < 8; i++)
        got[i] = -1;
    exchange(five, 5, MPI_INT, got, 4, pair, &st);
    OK(MPI_Get_count(&st, pair, &n));
    OK(MPI_Get_elements(&st, pair, &e));
    OK(MPI_Get_elements_x(&st, pair, &ex));
    CHECK(ex == e, "Get_elements_x %lld, Get_elements %d", (long long)ex, e);
    say("5 INT into 4 contiguous(2, INT): Get_count %s Get_elements %s", count_text(n), count_text(e));
    print_ints("received", got, 8);

    /* struct {int@0; double@8}: 12 bytes of data in 16. */
    int bl[] = {1, 1};
    MPI_Aint d[] = {0, 8};
    MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE};
    OK(MPI_Type_create_struct(2, bl, d, ty, &sid));
    OK(MPI_Type_commit(&sid));
    struct {
        int i;
        double v;
    } src[2] = {{7, 0.5}, {8, 1.5}}, dst[2];
    unsigned char raw[32];
    int pos = 0;
    OK(MPI_Pack(src, 2, sid, raw, sizeof raw, &pos, MPI_COMM_WORLD));
    CHECK(pos == 24, "2 struct {int; double} pack to %d bytes", pos);
    static const int lengths[] = {24, 16, 12, 0};
    for (int k = 0; k < 4; k++) {
        memset(dst, 0, sizeof dst);
        exchange(raw, lengths[k], MPI_BYTE, dst, 2, sid, &st);
        OK(MPI_Get_count(&st, sid, &n));
        OK(MPI_Get_elements(&st, sid, &e));
        say("%2d bytes into 2 struct {int; double}: Get_count %s Get_elements %s; got %d %g %d %g", lengths[k],
            count_text(n), count_text(e), dst[0].i, dst[0].v, dst[1].i, dst[1].v);
    }

    /* A vector received in part: its gaps untouched. */
    OK(MPI_Type_vector(2, 2, 3, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    for (int i = 0; i < 8; i++)
        got[i] = -1;
    exchange(five, 3, MPI_INT, got, 2, vec, &st);
    OK(MPI_Get_count(&st, vec, &n));
    OK(MPI_Get_elements(&st, vec, &e));
    say("3 INT into 2 vector(2, 2, 3, INT): Get_count %s Get_elements %s", count_text(n), count_text(e));
    print_ints("received", got, 8);

    /* MPI_Status_set_elements with basic types. */
    OK(MPI_Status_set_elements(&st, MPI_INT, 6));
    OK(MPI_Get_count(&st, pair, &n));
    OK(MPI_Get_elements(&st, vec, &e));
    say("Status_set_elements(INT, 6): Get_count(pair) %d Get_elements(vector) %d", n, e);
    OK(MPI_Status_set_elements_x(&st, MPI_BYTE, 24));
    OK(MPI_Get_count(&st, MPI_INT, &n));
    OK(MPI_Get_elements(&st, sid, &e));
    say("Status_set_elements_x(BYTE, 24): Get_count(INT) %d Get_elements(struct) %d", n, e);
    OK(MPI_Type_free(&pair));
    OK(MPI_Type_free(&sid));
    OK(MPI_Type_free(&vec));
}

static void errors(void)
{
    MPI_Datatype t, c;
    int n;
    char buf[16];
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    say("Type_contiguous(-1, INT): %s", class_name(MPI_Type_contiguous(-1, MPI_INT, &t)));
    say("Type_contiguous(1, DATATYPE_NULL): %s", class_name(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t)));
    say("Type_contiguous(1, INT, NULL): %s", class_name(MPI_Type_contiguous(1, MPI_INT, NULL)));
    say("Type_vector(2, -1, 1, INT): %s", class_name(MPI_Type_vector(2, -1, 1, MPI_INT, &t)));
    {
        int bl[] = {1, -1}, d[] = {0, 1};
        say("Type_indexed with blocklength -1: %s", class_name(MPI_Type_indexed(2, bl, d, MPI_INT, &t)));
        say("Type_indexed with NULL arrays: %s", class_name(MPI_Type_indexed(2, NULL, NULL, MPI_INT, &t)));
    }
    {
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 4};
        MPI_Datatype ty[] = {MPI_INT, MPI_DATATYPE_NULL};
        say("Type_create_struct with DATATYPE_NULL: %s", class_name(MPI_Type_create_struct(2, bl, d, ty, &t)));
    }
    say("Type_create_resized(DATATYPE_NULL): %s", class_name(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t)));
    say("Type_dup(DATATYPE_NULL): %s", class_name(MPI_Type_dup(MPI_DATATYPE_NULL, &t)));
    {
        int sz[] = {4}, sub[] = {2}, st[] = {0};
        say("Type_create_subarray with a bad order: %s",
            class_name(MPI_Type_create_subarray(1, sz, sub, st, 12345, MPI_INT, &t)));
    }
    t = MPI_INT;
    say("Type_free(INT): %s", class_name(MPI_Type_free(&t)));
    t = MPI_DATATYPE_NULL;
    say("Type_free(DATATYPE_NULL): %s", class_name(MPI_Type_free(&t)));
    say("Type_commit(DATATYPE_NULL): %s", class_name(MPI_Type_commit(&t)));
    say("Type_size(DATATYPE_NULL): %s", class_name(MPI_Type_size(MPI_DATATYPE_NULL, &n)));
    say("Type_size(INT, NULL): %s", class_name(MPI_Type_size(MPI_INT, NULL)));
    say("Type_get_envelope(DATATYPE_NULL): %s", class_name(MPI_Type_get_envelope(MPI_DATATYPE_NULL, &n, &n, &n, &n)));
    say("Type_set_name(DATATYPE_NULL): %s", class_name(MPI_Type_set_name(MPI_DATATYPE_NULL, "x")));
    OK(MPI_Type_contiguous(2, MPI_INT, &c));
    say("Send with an uncommitted type: %s", class_name(MPI_Send(buf, 1, c, right, 9, MPI_COMM_WORLD)));
    int pos = 0;
    say("Pack with an uncommitted type: %s", class_name(MPI_Pack(buf, 1, c, buf, 16, &pos, MPI_COMM_WORLD)));
    say("Pack of -1 INT: %s", class_name(MPI_Pack(buf, -1, MPI_INT, buf, 16, &pos, MPI_COMM_WORLD)));
    say("Pack_size of -1 INT: %s", class_name(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &n)));
    MPI_Status st;
    say("Status_set_elements(INT, -1): %s", class_name(MPI_Status_set_elements(&st, MPI_INT, -1)));
    say("Get_count(DATATYPE_NULL): %s", class_name(MPI_Get_count(&st, MPI_DATATYPE_NULL, &n)));
#ifdef NOCMSG_MPI
    /* What MPICH 4.0 does not check (it succeeds or crashes). */
    MPI_Datatype freed = c;
    OK(MPI_Type_free(&c));
    CHECK(MPI_Type_contiguous(1, freed, &t) == MPI_ERR_TYPE, "a freed old type");
    CHECK(MPI_Type_commit(&freed) == MPI_ERR_TYPE, "commit of a freed type");
    CHECK(MPI_Type_free(NULL) == MPI_ERR_ARG, "Type_free(NULL)");
    pos = 12;
    CHECK(MPI_Unpack(buf, 16, &pos, &n, 2, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE && pos == 12,
          "Unpack past the end of the input");
    pos = 12;
    CHECK(MPI_Pack(buf, 2, MPI_INT, buf, 16, &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE && pos == 12,
          "Pack past the end of the output");
    {
        int sz[] = {4}, sub[] = {2}, st_[] = {3};
        CHECK(MPI_Type_create_subarray(1, sz, sub, st_, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
              "subarray past the array");
    }
#else
    OK(MPI_Type_free(&c));
#endif
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Many types alive at once (the table grows), freed in a mixed order, made again. */
static void many(void)
{
    enum { N = 300 };
    static MPI_Datatype types[N];
    for (int i = 0; i < N; i++) {
        OK(MPI_Type_contiguous(i + 1, MPI_CHAR, &types[i]));
        OK(MPI_Type_commit(&types[i]));
    }
    for (int i = 0; i < N; i += 2)
        OK(MPI_Type_free(&types[i]));
    for (int i = 0; i < N; i += 2)
        OK(MPI_Type_vector(2, i + 1, i + 2, MPI_SHORT, &types[i]));
    for (int i = 0; i < N; i++) {
        int sz;
        OK(MPI_Type_size(types[i], &sz));
        CHECK(sz == (i % 2 ? i + 1 : 4 * (i + 1)), "type %d: size %d", i, sz);
        for (int j = 0; j < i; j++)
            CHECK(types[j] != types[i], "types %d and %d share a handle", j, i);
    }
    char text[N * 2];
    for (int i = 0; i < N * 2; i++)
        text[i] = (char)i;
    char got[N];
    exchange(text, 1, types[N - 1], got, N, MPI_CHAR, MPI_STATUS_IGNORE);
    CHECK(got[N - 1] == (char)(N - 1), "the last of many types");
    for (int i = N - 1; i >= 0; i--)
        OK(MPI_Type_free(&types[i]));
    say("%d types alive at once, half freed and made again, all freed", N);
}

/* Random types, nested up to three deep, from every constructor (no zero-length blocks, no long double, whose
 * padding bytes MPICH does not copy): their bounds and the bytes MPI_Pack makes of two items and MPI_Unpack puts
 * back, hashed into one line per 100 types. A pseudo-random sequence of its own keeps the types the same everywhere. */
static unsigned long long random_state = 12345;

static int rnd(int n)
{
    random_state = random_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((random_state >> 33) % (unsigned long long)n);
}

static MPI_Datatype random_type(int depth)
{
    static const MPI_Datatype leaves[] = {MPI_CHAR,   MPI_SHORT,     MPI_INT,      MPI_DOUBLE,
                                          MPI_LONG,   MPI_FLOAT,     MPI_DOUBLE_INT, MPI_SHORT_INT,
                                          MPI_2INT,   MPI_FLOAT_INT, MPI_C_BOOL};
    enum { NLEAVES = sizeof leaves / sizeof leaves[0] };
    MPI_Datatype t, old;
    int derived = depth > 0 && rnd(3) != 0;
    old = derived ? random_type(depth - 1) : leaves[rnd(NLEAVES)];
    MPI_Aint lb, extent;
    OK(MPI_Type_get_extent(old, &lb, &extent));
    int kind = rnd(11), count = 1 + rnd(3), bl = 1 + rnd(3);
    int bls[3], displs[3];
    MPI_Aint hdispls[3];
    MPI_Datatype types[3];
    for (int i = 0; i < 3; i++) {
        bls[i] = 1 + rnd(3);
        displs[i] = rnd(12) - 3;
        hdispls[i] = rnd(64) - 8;
        types[i] = rnd(2) ? old : leaves[rnd(NLEAVES)];
    }
    switch (kind) {
    case 0:
        OK(MPI_Type_contiguous(count, old, &t));
        break;
    case 1: {
        int more = rnd(4), backwards = rnd(4) == 0;
        OK(MPI_Type_vector(count, bl, bl + more - (backwards ? 2 * bl + 3 : 0), old, &t));
        break;
    }
    case 2:
        OK(MPI_Type_create_hvector(count, bl, rnd(100) - 20, old, &t));
        break;
    case 3:
        OK(MPI_Type_indexed(count, bls, displs, old, &t));
        break;
    case 4:
        OK(MPI_Type_create_hindexed(count, bls, hdispls, old, &t));
        break;
    case 5:
        OK(MPI_Type_create_indexed_block(count, bl, displs, old, &t));
        break;
    case 6:
        OK(MPI_Type_create_hindexed_block(count, bl, hdispls, old, &t));
        break;
    case 7:
        OK(MPI_Type_create_struct(count, bls, hdispls, types, &t));
        break;
    case 8: {
        int new_lb = rnd(16) - 8, more = rnd(16);
        OK(MPI_Type_create_resized(old, new_lb, extent + more, &t));
        break;
    }
    case 9: {
        int sizes[3], subsizes[3], starts[3], ndims = 1 + rnd(3);
        for (int i = 0; i < ndims; i++) {
            sizes[i] = 1 + rnd(4);
            subsizes[i] = 1 + rnd(sizes[i]);
            starts[i] = rnd(sizes[i] - subsizes[i] + 1);
        }
        int order = rnd(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        OK(MPI_Type_create_subarray(ndims, sizes, subsizes, starts, order, old, &t));
        break;
    }
    default:
        OK(MPI_Type_dup(old, &t));
    }
    if (derived)
        OK(MPI_Type_free(&old));
    return t;
}

static unsigned long long hash(unsigned long long h, long long v)
{
    return (h ^ (unsigned long long)v) * 1099511628211ULL;
}

static void random_types(void)
{
    enum { N = 400, BYTES = 8192, AT = 3072 };
    static unsigned char src[BYTES], packed[BYTES], back[BYTES];
    for (int i = 0; i < BYTES; i++)
        src[i] = (unsigned char)(i * 131 + (i >> 8));
    unsigned long long h = 14695981039346656037ULL;
    int tried = 0;
    for (int i = 0; i < N; i++) {
        MPI_Datatype t = random_type(2);
        OK(MPI_Type_commit(&t));
        int sz, psize;
        MPI_Aint lb, extent, tlb, textent;
        OK(MPI_Type_size(t, &sz));
        OK(MPI_Type_get_extent(t, &lb, &extent));
        OK(MPI_Type_get_true_extent(t, &tlb, &textent));
        h = hash(hash(hash(hash(hash(h, sz), lb), extent), tlb), textent);
        /* Two items: the bytes from the lowest to the highest they touch. */
        MPI_Aint low = tlb + (extent < 0 ? extent : 0), high = tlb + textent + (extent > 0 ? extent : 0);
        OK(MPI_Pack_size(2, t, MPI_COMM_WORLD, &psize));
        if (AT + low >= 0 && AT + high <= BYTES && psize <= BYTES) {
            int pos = 0, pos2 = 0;
            OK(MPI_Pack(src + AT, 2, t, packed, BYTES, &pos, MPI_COMM_WORLD));
            CHECK(pos == 2 * sz, "random type %d: packed %d bytes, size %d", i, pos, sz);
            memset(back + AT + low, 0, (size_t)(high - low));
            OK(MPI_Unpack(packed, pos, &pos2, back + AT, 2, t, MPI_COMM_WORLD));
            CHECK(pos2 == pos, "random type %d: unpacked %d bytes of %d", i, pos2, pos);
            for (int j = 0; j < pos; j++)
                h = hash(h, packed[j]);
            for (MPI_Aint j = low; j < high; j++)
                h = hash(h, back[AT + j]);
            tried++;
        }
        OK(MPI_Type_free(&t));
        if (i % 100 == 99) {
            say("random types %d..%d: %d packed, hash %016llx", i - 99, i, tried, h);
            tried = 0;
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    predefined();
    constructors();
    names();
    packing();
    point_to_point();
    partial();
    errors();
    many();
    random_types();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("unit_types: done\n");
    MPI_Finalize();
    return 0;
}
