/* datatypes.c: derived datatypes. Constructors (contiguous, vector, hvector, indexed, indexed_block, struct with
 * MPI_Get_address, resized, subarray, hindexed, dup) with their size, extent and true extent; names of predefined
 * types and MPI_Type_set_name; MPI_Get_count and MPI_Get_elements on partly filled receives; MPI_Pack/MPI_Unpack
 * round trips (MPI_Pack_size is only an upper bound, so it is checked, not printed); messages sent with a derived
 * type and received as basic elements and the other way round, gaps of the receive type left untouched; derived
 * types in MPI_Bcast, MPI_Gather (a resized column type that gathers into the columns of a matrix), MPI_Scatter and
 * MPI_Allreduce; a broadcast with different but matching type signatures; MPI_Sendrecv_replace with a derived
 * type.
 *
 * MPI_Allreduce of a derived type uses a user operation: MPI 3.1 (5.9.1) defines predefined operations on the
 * predefined types only, and MPICH 4.0 indeed rejects MPI_SUM on a contiguous type of two MPI_INTs.
 *
 * Sizes and extents printed assume 4-byte int and 8-byte double aligned to 8 (LP64 Linux and RV64 lp64). Messages go
 * from each rank to its right neighbour (itself on one rank). Only rank 0 prints. */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, right, left;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL datatypes: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

#define SENTINEL (-7777)

static void say(const char *line)
{
    if (rank == 0) printf("datatypes: %s OK\n", line);
}

/* Size, lb, extent, true lb and true extent of a type, checked against the expected values. */
static void layout(const char *what, MPI_Datatype t, int size_b, long lb, long extent, long true_lb, long true_extent,
                   int print)
{
    int s = -1;
    MPI_Aint l = -1, e = -1, tl = -1, te = -1;
    MPI_Type_size(t, &s);
    MPI_Type_get_extent(t, &l, &e);
    MPI_Type_get_true_extent(t, &tl, &te);
    CHECK(s == size_b && l == lb && e == extent && tl == true_lb && te == true_extent,
          "%s: size %d lb %ld extent %ld true lb %ld true extent %ld, expected %d %ld %ld %ld %ld", what, s, (long)l,
          (long)e, (long)tl, (long)te, size_b, lb, extent, true_lb, true_extent);
    if (print && rank == 0)
        printf("datatypes: %s size=%d lb=%ld extent=%ld true_lb=%ld true_extent=%ld OK\n", what, s, (long)l, (long)e,
               (long)tl, (long)te);
}

/* One message to the right neighbour, one from the left. */
static void shift(const void *out, int out_count, MPI_Datatype out_type, void *in, int in_count, MPI_Datatype in_type,
                  MPI_Status *st)
{
    MPI_Sendrecv(out, out_count, out_type, right, 0, in, in_count, in_type, left, 0, MPI_COMM_WORLD, st);
}

static void names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    const struct {
        MPI_Datatype type;
        const char *name;
    } predefined[] = {{MPI_INT, "MPI_INT"}, {MPI_DOUBLE, "MPI_DOUBLE"}, {MPI_CHAR, "MPI_CHAR"}};
    if (rank == 0) printf("datatypes: names");
    for (int i = 0; i < 3; i++) {
        memset(name, 'x', sizeof name);
        MPI_Type_get_name(predefined[i].type, name, &len);
        CHECK(strcmp(name, predefined[i].name) == 0 && len == (int)strlen(predefined[i].name),
              "Type_get_name gave \"%.40s\" (length %d), expected %s", name, len, predefined[i].name);
        if (rank == 0) printf(" %s", name);
    }
    if (rank == 0) printf(" OK\n");
    MPI_Datatype t;
    MPI_Type_vector(2, 1, 3, MPI_INT, &t);
    MPI_Type_set_name(t, "every third int");
    MPI_Type_get_name(t, name, &len);
    CHECK(strcmp(name, "every third int") == 0 && len == 15, "Type_set_name then get: \"%.40s\" (%d)", name, len);
    MPI_Type_free(&t);
    say("Type_set_name then Type_get_name gives \"every third int\"");
}

struct item {
    char c;
    double d;
    int i[2];
};

static MPI_Datatype item_type(void)
{
    struct item probe = {0, 0.0, {0, 0}};
    MPI_Aint base, disp[3];
    MPI_Get_address(&probe, &base);
    MPI_Get_address(&probe.c, &disp[0]);
    MPI_Get_address(&probe.d, &disp[1]);
    MPI_Get_address(&probe.i[0], &disp[2]);
    for (int k = 0; k < 3; k++) disp[k] -= base;
    CHECK(disp[0] == (MPI_Aint)offsetof(struct item, c) && disp[1] == (MPI_Aint)offsetof(struct item, d) &&
              disp[2] == (MPI_Aint)offsetof(struct item, i),
          "Get_address differences %ld %ld %ld", (long)disp[0], (long)disp[1], (long)disp[2]);
    int lens[3] = {1, 1, 2};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t;
    MPI_Type_create_struct(3, lens, disp, types, &t);
    return t;
}

static void constructors(void)
{
    MPI_Datatype contig, vec, hvec, idx, blk, st, st2, sized, res;
    MPI_Type_contiguous(3, MPI_INT, &contig);
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_create_hvector(3, 2, 20, MPI_INT, &hvec);
    int lens[3] = {1, 2, 3}, displs[3] = {0, 3, 7}, bdispls[3] = {1, 4, 8};
    MPI_Type_indexed(3, lens, displs, MPI_INT, &idx);
    MPI_Type_create_indexed_block(3, 2, bdispls, MPI_INT, &blk);
    st = item_type();
    MPI_Type_create_resized(MPI_INT, -4, 12, &res);
    layout("contiguous(3, INT)", contig, 12, 0, 12, 0, 12, 1);
    layout("vector(3, 2, 4, INT)", vec, 24, 0, 40, 0, 40, 1);
    layout("hvector(3, 2, 20 bytes, INT)", hvec, 24, 0, 48, 0, 48, 1);
    layout("indexed({1,2,3}, {0,3,7}, INT)", idx, 24, 0, 40, 0, 40, 1);
    layout("indexed_block(2, {1,4,8}, INT)", blk, 24, 4, 36, 4, 36, 1);
    layout("struct {char; double; int[2]}", st, 17, 0, 24, 0, 24, 1);
    layout("resized(INT, -4, 12)", res, 4, -4, 12, 0, 4, 1);
    /* {double; char}: the extent's padding to the alignment is the implementation's choice, so only resized to the
     * C struct's size is printed. */
    struct tail {
        double d;
        char c;
    };
    int tl[2] = {1, 1};
    MPI_Aint td[2] = {offsetof(struct tail, d), offsetof(struct tail, c)};
    MPI_Datatype tt[2] = {MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(2, tl, td, tt, &st2);
    MPI_Type_create_resized(st2, 0, (MPI_Aint)sizeof(struct tail), &sized);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(st2, &lb, &extent);
    CHECK(lb == 0 && extent >= 9, "struct {double; char}: lb %ld extent %ld", (long)lb, (long)extent);
    layout("resized(struct {double; char}, 0, 16)", sized, 9, 0, 16, 0, 9, 1);
    /* A vector of a vector, and the predefined pair types (checked only). */
    MPI_Datatype nested;
    MPI_Type_vector(2, 1, 2, vec, &nested);
    layout("vector(2, 1, 2, vector(3, 2, 4, INT))", nested, 48, 0, 120, 0, 120, 1);
    layout("MPI_2INT", MPI_2INT, 8, 0, 8, 0, 8, 0);
    layout("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 12, 0, 16, 0, 12, 0);
    MPI_Datatype all[] = {contig, vec, hvec, idx, blk, st, st2, sized, res, nested};
    for (int k = 0; k < (int)(sizeof all / sizeof all[0]); k++) {
        MPI_Type_free(&all[k]);
        CHECK(all[k] == MPI_DATATYPE_NULL, "Type_free left handle %d set", k);
    }
}

/* Send with a derived type, receive as basic elements, and the other way round. */
static void derived_and_basic(void)
{
    MPI_Datatype vec, idx, hvec, res, st;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int lens[3] = {1, 2, 3}, displs[3] = {0, 3, 7};
    MPI_Type_indexed(3, lens, displs, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    MPI_Type_create_hvector(2, 1, 3 * sizeof(double), MPI_DOUBLE, &hvec);
    MPI_Type_commit(&hvec);
    MPI_Type_create_resized(MPI_INT, -4, 12, &res);
    MPI_Type_commit(&res);
    int a[24], b[24];
    for (int i = 0; i < 24; i++) a[i] = 1000 * rank + i;
    int left_base = 1000 * left;

    /* vector -> 6 INT: elements 0 1 4 5 8 9. */
    for (int i = 0; i < 24; i++) b[i] = SENTINEL;
    MPI_Status st_;
    shift(a, 1, vec, b, 24, MPI_INT, &st_);
    int count = -1, elements = -1;
    MPI_Get_count(&st_, MPI_INT, &count);
    int want_vec[6] = {0, 1, 4, 5, 8, 9};
    CHECK(count == 6, "vector as INT: count %d", count);
    for (int i = 0; i < 6; i++) CHECK(b[i] == left_base + want_vec[i], "vector as INT: b[%d] = %d", i, b[i]);
    CHECK(b[6] == SENTINEL, "vector as INT: wrote past the message");
    /* 6 INT -> vector: gaps untouched. */
    for (int i = 0; i < 24; i++) b[i] = SENTINEL;
    shift(a, 6, MPI_INT, b, 1, vec, &st_);
    for (int i = 0; i < 12; i++) {
        int pos = -1;
        for (int k = 0; k < 6; k++)
            if (want_vec[k] == i) pos = k;
        CHECK(b[i] == (pos >= 0 ? left_base + pos : SENTINEL), "INT as vector: b[%d] = %d", i, b[i]);
    }
    say("vector(3, 2, 4) sent, 6 INT received, and back: gaps untouched");

    /* indexed -> INT: elements 0, 3 4, 7 8 9. */
    for (int i = 0; i < 24; i++) b[i] = SENTINEL;
    shift(a, 2, idx, b, 24, MPI_INT, &st_);
    MPI_Get_count(&st_, MPI_INT, &count);
    MPI_Get_count(&st_, idx, &elements);
    CHECK(count == 12 && elements == 2, "indexed x2 as INT: count %d, count in indexed %d", count, elements);
    int want_idx[6] = {0, 3, 4, 7, 8, 9};
    for (int i = 0; i < 12; i++)
        CHECK(b[i] == left_base + want_idx[i % 6] + (i / 6) * 10, "indexed x2 as INT: b[%d] = %d", i, b[i]);
    say("indexed x2 sent (second copy one extent of 40 bytes on), 12 INT received");

    /* hvector of doubles both ways. */
    double x[8], y[8];
    for (int i = 0; i < 8; i++) x[i] = rank * 10 + i, y[i] = -1;
    shift(x, 1, hvec, y, 2, MPI_DOUBLE, &st_);
    CHECK(y[0] == left * 10 + 0 && y[1] == left * 10 + 3 && y[2] == -1, "hvector as DOUBLE: %g %g %g", y[0], y[1],
          y[2]);
    for (int i = 0; i < 8; i++) y[i] = -1;
    shift(x, 2, MPI_DOUBLE, y, 1, hvec, &st_);
    CHECK(y[0] == left * 10 + 0 && y[3] == left * 10 + 1 && y[1] == -1 && y[2] == -1 && y[4] == -1,
          "DOUBLE as hvector: %g %g %g %g %g", y[0], y[1], y[2], y[3], y[4]);
    say("hvector(2, 1, 24 bytes, DOUBLE) both ways");

    /* resized INT with extent 12: count 3 takes every third int. */
    for (int i = 0; i < 24; i++) b[i] = SENTINEL;
    shift(a, 3, res, b, 3, MPI_INT, &st_);
    CHECK(b[0] == left_base && b[1] == left_base + 3 && b[2] == left_base + 6 && b[3] == SENTINEL,
          "resized x3 as INT: %d %d %d", b[0], b[1], b[2]);
    say("resized(INT, -4, 12) x3 sent, ints 0 3 6 received");

    /* struct both ways, and its basic elements. */
    st = item_type();
    MPI_Type_commit(&st);
    struct item items[2], got[2];
    for (int k = 0; k < 2; k++) {
        items[k].c = (char)('a' + rank + k);
        items[k].d = rank + 0.5 * k;
        items[k].i[0] = rank * 100 + k;
        items[k].i[1] = -rank - k;
    }
    memset(got, 0, sizeof got);
    shift(items, 2, st, got, 2, st, &st_);
    MPI_Get_count(&st_, st, &count);
    MPI_Get_elements(&st_, st, &elements);
    CHECK(count == 2 && elements == 8, "struct x2: count %d elements %d", count, elements);
    for (int k = 0; k < 2; k++)
        CHECK(got[k].c == (char)('a' + left + k) && got[k].d == left + 0.5 * k && got[k].i[0] == left * 100 + k &&
                  got[k].i[1] == -left - k,
              "struct x2: item %d is {%d, %g, %d, %d}", k, got[k].c, got[k].d, got[k].i[0], got[k].i[1]);
    say("struct x2 sent and received: Get_count 2, Get_elements 8");

    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    MPI_Type_free(&hvec);
    MPI_Type_free(&res);
    MPI_Type_free(&st);
}

/* Get_count and Get_elements when the message fills the receive type partly. */
static void partial_receives(void)
{
    MPI_Datatype pair, vec;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int a[32], b[32], count, elements, ints;
    for (int i = 0; i < 32; i++) a[i] = 100 * rank + i;
    MPI_Status st;
    const struct {
        int sent;
        MPI_Datatype *type;
        const char *name;
        int count, elements;
    } cases[] = {
        {5, &pair, "5 INT into 4 pairs", MPI_UNDEFINED, 5},
        {6, &pair, "6 INT into 4 pairs", 3, 6},
        {0, &pair, "0 INT into 4 pairs", 0, 0},
        {8, &vec, "8 INT into 2 vector(3, 2, 4)", MPI_UNDEFINED, 8},
        {12, &vec, "12 INT into 2 vector(3, 2, 4)", 2, 12},
    };
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        for (int i = 0; i < 32; i++) b[i] = SENTINEL;
        shift(a, cases[c].sent, MPI_INT, b, cases[c].type == &pair ? 4 : 2, *cases[c].type, &st);
        MPI_Get_count(&st, *cases[c].type, &count);
        MPI_Get_elements(&st, *cases[c].type, &elements);
        MPI_Get_count(&st, MPI_INT, &ints);
        CHECK(count == cases[c].count && elements == cases[c].elements && ints == cases[c].sent,
              "%s: Get_count %d, Get_elements %d, Get_count(INT) %d", cases[c].name, count, elements, ints);
        if (rank == 0 && count == MPI_UNDEFINED)
            printf("datatypes: %s: Get_count=MPI_UNDEFINED Get_elements=%d OK\n", cases[c].name, elements);
        else if (rank == 0)
            printf("datatypes: %s: Get_count=%d Get_elements=%d OK\n", cases[c].name, count, elements);
    }
    /* The last case filled 0 1 4 5 8 9 | 10 11 14 15 18 19 of b; the 8-int case is checked here. */
    for (int i = 0; i < 32; i++) b[i] = SENTINEL;
    shift(a, 8, MPI_INT, b, 2, vec, &st);
    int filled[8] = {0, 1, 4, 5, 8, 9, 10, 11};
    for (int i = 0, k = 0; i < 32; i++) {
        int want = SENTINEL;
        if (k < 8 && filled[k] == i) want = 100 * left + k++;
        CHECK(b[i] == want, "8 INT into 2 vectors: b[%d] = %d, expected %d", i, b[i], want);
    }
    say("8 INT into 2 vector(3, 2, 4) fill positions 0 1 4 5 8 9 10 11 only");
    MPI_Type_free(&pair);
    MPI_Type_free(&vec);
}

static void pack_unpack(void)
{
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int a[12], b[12], vec_bytes = -1, dbl_bytes = -1, int_bytes = -1;
    double d[3] = {rank + 0.25, -1.5, 1e100}, e[3];
    for (int i = 0; i < 12; i++) a[i] = rank * 50 + i;
    MPI_Pack_size(1, vec, MPI_COMM_WORLD, &vec_bytes);
    MPI_Pack_size(3, MPI_DOUBLE, MPI_COMM_WORLD, &dbl_bytes);
    MPI_Pack_size(6, MPI_INT, MPI_COMM_WORLD, &int_bytes);
    CHECK(vec_bytes >= 24 && dbl_bytes >= 24 && int_bytes >= 24, "Pack_size below the data: %d %d %d", vec_bytes,
          dbl_bytes, int_bytes);
    int capacity = vec_bytes + dbl_bytes;
    char *buf = malloc((size_t)capacity), *in = malloc((size_t)capacity);
    int position = 0;
    MPI_Pack(a, 1, vec, buf, capacity, &position, MPI_COMM_WORLD);
    MPI_Pack(d, 3, MPI_DOUBLE, buf, capacity, &position, MPI_COMM_WORLD);
    CHECK(position > 0 && position <= capacity, "packed %d bytes, Pack_size said at most %d", position, capacity);
    int packed = position;
    /* Local round trip. */
    for (int i = 0; i < 12; i++) b[i] = SENTINEL;
    position = 0;
    MPI_Unpack(buf, packed, &position, b, 1, vec, MPI_COMM_WORLD);
    MPI_Unpack(buf, packed, &position, e, 3, MPI_DOUBLE, MPI_COMM_WORLD);
    CHECK(position == packed, "unpacked %d of %d bytes", position, packed);
    for (int i = 0; i < 12; i++) CHECK(b[i] == (i % 4 < 2 ? a[i] : SENTINEL), "unpack: b[%d] = %d", i, b[i]);
    CHECK(e[0] == d[0] && e[1] == d[1] && e[2] == d[2], "unpack: doubles %g %g %g", e[0], e[1], e[2]);
    say("Pack vector + 3 DOUBLE, Unpack: round trip, position within Pack_size");

    /* Packed buffer as an MPI_PACKED message, unpacked by the receiver. */
    MPI_Status st;
    MPI_Sendrecv(buf, packed, MPI_PACKED, right, 0, in, capacity, MPI_PACKED, left, 0, MPI_COMM_WORLD, &st);
    int got = -1;
    MPI_Get_count(&st, MPI_PACKED, &got);
    CHECK(got == packed, "MPI_PACKED message of %d bytes arrived as %d", packed, got);
    for (int i = 0; i < 12; i++) b[i] = SENTINEL;
    position = 0;
    MPI_Unpack(in, got, &position, b, 1, vec, MPI_COMM_WORLD);
    MPI_Unpack(in, got, &position, e, 3, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int i = 0; i < 12; i++)
        CHECK(b[i] == (i % 4 < 2 ? left * 50 + i : SENTINEL), "unpack of the message: b[%d] = %d", i, b[i]);
    CHECK(e[0] == left + 0.25 && e[1] == -1.5 && e[2] == 1e100, "unpack of the message: %g %g %g", e[0], e[1], e[2]);
    say("packed message sent as MPI_PACKED and unpacked by the receiver");

    /* Sent as INT, received as MPI_PACKED, unpacked as INT. */
    MPI_Sendrecv(a, 6, MPI_INT, right, 1, in, capacity, MPI_PACKED, left, 1, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_PACKED, &got);
    position = 0;
    for (int i = 0; i < 12; i++) b[i] = SENTINEL;
    MPI_Unpack(in, got, &position, b, 6, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 6; i++) CHECK(b[i] == left * 50 + i, "INT received as PACKED: b[%d] = %d", i, b[i]);
    say("6 INT received as MPI_PACKED and unpacked");

    MPI_Type_free(&vec);
    free(buf);
    free(in);
}

static void add_pairs(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int *a = in, *b = inout, n = 0;
    MPI_Type_size(*type, &n);
    n = n / (int)sizeof(int) * *len;
    for (int i = 0; i < n; i++) b[i] += a[i];
}

static void collectives(void)
{
    MPI_Datatype vec, pair, column, column_resized;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);

    /* Bcast of 2 vectors from the last rank. */
    int a[24];
    for (int i = 0; i < 24; i++) a[i] = rank == size - 1 ? 7 * i : SENTINEL;
    MPI_Bcast(a, 2, vec, size - 1, MPI_COMM_WORLD);
    for (int i = 0; i < 24; i++) {
        int k = i % 10, covered = i < 20 && (k == 0 || k == 1 || k == 4 || k == 5 || k == 8 || k == 9);
        CHECK(a[i] == (covered || rank == size - 1 ? 7 * i : SENTINEL), "Bcast vector: a[%d] = %d", i, a[i]);
    }
    say("Bcast of 2 vector(3, 2, 4) from the last rank: gaps untouched");

    /* Gather: each rank sends 2 INT, the root receives 1 pair per rank. */
    int mine[2] = {rank, -rank}, *all = malloc(sizeof(int) * 2 * (size_t)size);
    MPI_Gather(mine, 2, MPI_INT, all, 1, pair, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            CHECK(all[2 * r] == r && all[2 * r + 1] == -r, "Gather as pairs: rank %d gave %d %d", r, all[2 * r],
                  all[2 * r + 1]);
    say("Gather of 2 INT into 1 pair per rank");

    /* Gather into columns: the root's matrix has 4 rows and size columns; a column type resized to one int
     * places rank r's 4 ints in column r. */
    MPI_Type_vector(4, 1, size, MPI_INT, &column);
    MPI_Type_create_resized(column, 0, sizeof(int), &column_resized);
    MPI_Type_commit(&column_resized);
    int col[4], *matrix = malloc(sizeof(int) * 4 * (size_t)size);
    for (int i = 0; i < 4; i++) col[i] = 10 * rank + i;
    MPI_Gather(col, 4, MPI_INT, matrix, 1, column_resized, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 4; i++)
            for (int r = 0; r < size; r++)
                CHECK(matrix[i * size + r] == 10 * r + i, "Gather into columns: [%d][%d] = %d", i, r,
                      matrix[i * size + r]);
        printf("datatypes: Gather into matrix columns (resized vector), row 1:");
        for (int r = 0; r < size; r++) printf(" %d", matrix[size + r]);
        printf(" OK\n");
    }
    /* And back out: Scatter from the columns. */
    for (int i = 0; i < 4; i++) col[i] = SENTINEL;
    MPI_Scatter(matrix, 1, column_resized, col, 4, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++) CHECK(col[i] == 10 * rank + i, "Scatter from columns: %d = %d", i, col[i]);
    say("Scatter from matrix columns gives each rank its column back");

    /* Allreduce of 3 pairs with a user operation that adds them (a predefined one is not defined on pairs). */
    int in[6], out[6];
    for (int i = 0; i < 6; i++) in[i] = (rank + 1) * (i + 1);
    MPI_Op op;
    MPI_Op_create(add_pairs, 1, &op);
    MPI_Allreduce(in, out, 3, pair, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    int tri = size * (size + 1) / 2;
    for (int i = 0; i < 6; i++) CHECK(out[i] == tri * (i + 1), "Allreduce of pairs: [%d] = %d", i, out[i]);
    if (rank == 0) printf("datatypes: Allreduce of 3 pairs with a user op: %d %d %d %d %d %d OK\n", out[0], out[1],
                          out[2], out[3], out[4], out[5]);

    /* A type built on a freed type still works. */
    MPI_Datatype base, outer;
    MPI_Type_contiguous(2, MPI_INT, &base);
    MPI_Type_vector(2, 1, 2, base, &outer);
    MPI_Type_free(&base);
    MPI_Type_commit(&outer);
    int v[8], w[8];
    for (int i = 0; i < 8; i++) v[i] = rank * 8 + i, w[i] = SENTINEL;
    MPI_Sendrecv(v, 1, outer, right, 5, w, 1, outer, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 8; i++)
        CHECK(w[i] == (i < 2 || (i >= 4 && i < 6) ? left * 8 + i : SENTINEL), "type on a freed type: w[%d] = %d", i,
              w[i]);
    say("a type built on a freed type still sends and receives");

    MPI_Type_free(&outer);
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
    MPI_Type_free(&column);
    MPI_Type_free(&column_resized);
    free(all);
    free(matrix);
}

/* Subarray, hindexed and dup; a broadcast whose root describes the data differently from the others (only the type
 * signatures must match); MPI_Sendrecv_replace with a derived type. */
static void more_types(void)
{
    MPI_Datatype sub, hidx, vec, dup;
    int sizes[2] = {6, 8}, subsizes[2] = {2, 3}, starts[2] = {1, 2}, hlens[2] = {2, 1};
    MPI_Aint hdispls[2] = {4, 20};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    MPI_Type_create_hindexed(2, hlens, hdispls, MPI_INT, &hidx);
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_dup(vec, &dup);
    MPI_Type_commit(&dup);
    layout("subarray({6,8}, {2,3}, {1,2}, C, INT)", sub, 24, 0, 192, 40, 44, 1);
    layout("hindexed({2,1}, {4,20} bytes, INT)", hidx, 12, 4, 20, 4, 20, 1);
    layout("dup of vector(3, 2, 4, INT)", dup, 24, 0, 40, 0, 40, 1);

    int grid[48], got[48];
    MPI_Status st;
    for (int i = 0; i < 48; i++) grid[i] = rank * 100 + i;
    for (int i = 0; i < 48; i++) got[i] = SENTINEL;
    shift(grid, 1, sub, got, 48, MPI_INT, &st);
    for (int i = 0; i < 6; i++)
        CHECK(got[i] == left * 100 + (1 + i / 3) * 8 + 2 + i % 3, "subarray as INT: [%d] = %d", i, got[i]);
    CHECK(got[6] == SENTINEL, "subarray as INT: wrote past 6 ints");
    for (int i = 0; i < 48; i++) got[i] = SENTINEL;
    shift(grid, 1, dup, got, 1, vec, &st);
    for (int i = 0; i < 12; i++)
        CHECK(got[i] == (i % 4 < 2 ? left * 100 + i : SENTINEL), "dup sent, vector received: [%d] = %d", i, got[i]);
    say("subarray sent, 6 INT received; Type_dup of a vector sent, the vector received");

    /* Bcast: the root sends one vector, the others receive six contiguous ints. */
    int b[12];
    for (int i = 0; i < 12; i++) b[i] = rank == 0 ? 3 * i : SENTINEL;
    if (rank == 0)
        MPI_Bcast(b, 1, vec, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(b, 6, MPI_INT, 0, MPI_COMM_WORLD);
    static const int picked[6] = {0, 1, 4, 5, 8, 9};
    if (rank != 0)
        for (int i = 0; i < 12; i++)
            CHECK(b[i] == (i < 6 ? 3 * picked[i] : SENTINEL), "Bcast vector at the root, INT elsewhere: [%d] = %d", i,
                  b[i]);
    say("Bcast with a vector at the root and 6 INT elsewhere");

    /* Sendrecv_replace of one vector: its six ints come from the left, the gaps stay. */
    for (int i = 0; i < 12; i++) b[i] = rank * 1000 + i;
    MPI_Sendrecv_replace(b, 1, vec, right, 8, left, 8, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 12; i++)
        CHECK(b[i] == (i < 10 && i % 4 < 2 ? left : rank) * 1000 + i, "Sendrecv_replace of a vector: [%d] = %d", i,
              b[i]);
    say("Sendrecv_replace of a vector: its elements replaced, the gaps kept");
    MPI_Type_free(&sub);
    MPI_Type_free(&hidx);
    MPI_Type_free(&vec);
    MPI_Type_free(&dup);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    names();
    constructors();
    derived_and_basic();
    partial_receives();
    pack_unpack();
    collectives();
    more_types();
    if (rank == 0) printf("datatypes: done\n");
    MPI_Finalize();
    return 0;
}
