/* unit_compat.c: what old and mixed-language MPI programs use. The MPI-1 functions MPI-3.0 removed (MPI_Address,
 * MPI_Type_struct/hvector/hindexed/extent/lb/ub, MPI_Errhandler_create/set/get) and the MPI-1 attribute functions,
 * with the MPI_LB and MPI_UB markers, whose bounds are sticky; the Fortran and C++ named types (sizes, names, the
 * reductions MPI defines on them, MPI_ERR_OP where it defines none); datatypes too large for memory: refused with
 * an error or described right, never a crash. */
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* MPICH marks the removed functions deprecated; this program uses them on purpose. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    printf("FAIL unit_compat: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(" (rank %d, line %d)\n", rank, line);
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
    printf("unit_compat: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static void bounds(const char *what, MPI_Datatype t)
{
    int sz;
    MPI_Aint lb, ub, extent, tlb, text;
    OK(MPI_Type_size(t, &sz));
    OK(MPI_Type_lb(t, &lb));
    OK(MPI_Type_ub(t, &ub));
    OK(MPI_Type_extent(t, &extent));
    OK(MPI_Type_get_true_extent(t, &tlb, &text));
    CHECK(ub - lb == extent, "%s: ub - lb != extent", what);
    say("%-36s size %3d lb %4ld ub %4ld extent %4ld true_lb %3ld true_extent %3ld", what, sz, (long)lb, (long)ub,
        (long)extent, (long)tlb, (long)text);
}

static void removed_functions(void)
{
    /* A struct of two ints with explicit bounds: lb -8, ub 24. */
    int bl[4] = {1, 1, 1, 1};
    MPI_Aint disp[4] = {-8, 0, 8, 24};
    MPI_Datatype types[4] = {MPI_LB, MPI_INT, MPI_INT, MPI_UB}, lbub, two, outer, inner, hv, hi, noub, lbonly;
    OK(MPI_Type_struct(4, bl, disp, types, &lbub));
    OK(MPI_Type_commit(&lbub));
    bounds("struct {LB@-8, INT@0, INT@8, UB@24}", lbub);
    /* Sticky: the markers' bounds stay in types built from it. */
    OK(MPI_Type_contiguous(2, lbub, &two));
    OK(MPI_Type_commit(&two));
    bounds("contiguous(2, lbub)", two);
    int bl2[2] = {1, 1};
    MPI_Aint disp2[2] = {0, 100};
    MPI_Datatype types2[2] = {lbub, MPI_DOUBLE};
    OK(MPI_Type_create_struct(2, bl2, disp2, types2, &outer));
#ifdef NOCMSG_MPI
    /* lbub's ub marker stays the ub though the double lies beyond it (MPI 2.2 section 4.1.6). MPICH 4.0 no longer
     * keeps markers in derived types (ub 112 here), so only nocmsg checks it. */
    MPI_Aint olb, oext;
    OK(MPI_Type_get_extent(outer, &olb, &oext));
    CHECK(olb == -8 && oext == 32, "sticky bounds: lb %ld extent %ld", (long)olb, (long)oext);
#endif
    say("struct {lbub@0, DOUBLE@100}: the markers' bounds stay ... OK");
    /* Without MPI_UB the upper bound is the data's (padded: the members differ). */
    MPI_Datatype types3[2] = {MPI_LB, MPI_DOUBLE};
    MPI_Aint disp3[2] = {-4, 0};
    OK(MPI_Type_create_struct(2, bl2, disp3, types3, &noub));
    bounds("struct {LB@-4, DOUBLE@0}", noub);
    /* An MPI_LB alone: no upper bound is set, so it is 0 (as MPICH computes it). */
    MPI_Aint disp4[1] = {10};
    OK(MPI_Type_create_struct(1, bl2, disp4, types3, &lbonly));
    bounds("struct {LB@10}", lbonly);
    /* Pack two lbub items: their ints, 32 bytes apart. */
    int in[16], out[16], packed[4], pos = 0;
    for (int i = 0; i < 16; i++)
        in[i] = 100 + i, out[i] = -1;
    OK(MPI_Pack(in + 2, 2, lbub, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 16 && packed[0] == 102 && packed[1] == 104 && packed[2] == 110 && packed[3] == 112,
          "pack of lbub: %d %d %d %d", packed[0], packed[1], packed[2], packed[3]);
    pos = 0;
    OK(MPI_Unpack(packed, (int)sizeof packed, &pos, out + 2, 2, lbub, MPI_COMM_WORLD));
    for (int i = 0; i < 16; i++)
        CHECK(out[i] == (i == 2 || i == 4 || i == 10 || i == 12 ? 100 + i : -1), "unpack of lbub: out[%d] %d", i,
              out[i]);
    say("pack and unpack of 2 lbub ... OK");
    /* Through a message from rank 0 to the last rank. */
    if (size > 1 && (rank == 0 || rank == size - 1)) {
        for (int i = 0; i < 16; i++)
            out[i] = -1;
        if (rank == 0)
            OK(MPI_Send(in + 2, 2, lbub, size - 1, 7, MPI_COMM_WORLD));
        else
            OK(MPI_Recv(out + 2, 2, lbub, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; rank != 0 && i < 16; i++)
            CHECK(out[i] == (i == 2 || i == 4 || i == 10 || i == 12 ? 100 + i : -1), "recv of lbub: out[%d]", i);
    }
    say("send and receive of 2 lbub ... OK");
    /* MPI_Address, MPI_Type_hvector, MPI_Type_hindexed. */
    double grid[4][5];
    MPI_Aint a0, a1;
    OK(MPI_Address(&grid[0][0], &a0));
    OK(MPI_Address(&grid[1][2], &a1));
    CHECK(a1 - a0 == 7 * (MPI_Aint)sizeof(double), "MPI_Address: %ld", (long)(a1 - a0));
    OK(MPI_Type_hvector(4, 1, 5 * sizeof(double), MPI_DOUBLE, &hv));
    bounds("hvector(4, 1, 40, DOUBLE)", hv);
    int hbl[2] = {2, 1};
    MPI_Aint hdisp[2] = {16, -8};
    OK(MPI_Type_hindexed(2, hbl, hdisp, MPI_INT, &hi));
    bounds("hindexed({2,1}, {16,-8}, INT)", hi);
    OK(MPI_Type_vector(2, 1, 2, hi, &inner));
    bounds("vector(2, 1, 2, hindexed)", inner);
    MPI_Type_free(&lbub);
    MPI_Type_free(&two);
    MPI_Type_free(&outer);
    MPI_Type_free(&noub);
    MPI_Type_free(&lbonly);
    MPI_Type_free(&hv);
    MPI_Type_free(&hi);
    MPI_Type_free(&inner);
}

static int handler_calls;
static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

static int deletes;
static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void removed_errhandlers_and_attributes(void)
{
    MPI_Errhandler eh, got;
    OK(MPI_Errhandler_create(count_errors, &eh));
    OK(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    OK(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
    CHECK(got == eh, "MPI_Errhandler_get");
    int x = 0;
    CHECK(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) != MPI_SUCCESS && handler_calls == 1, "handler not called");
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    say("MPI_Errhandler_create/set/get: the handler is called ... OK");

    int key, nocopy, flag, *val, v = 42;
    MPI_Comm dup;
    OK(MPI_Keyval_create(MPI_DUP_FN, count_delete, &key, NULL));
    OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &nocopy, NULL));
    OK(MPI_Attr_put(MPI_COMM_WORLD, key, &v));
    OK(MPI_Attr_put(MPI_COMM_WORLD, nocopy, &v));
    OK(MPI_Attr_get(MPI_COMM_WORLD, key, &val, &flag));
    CHECK(flag && val == &v, "MPI_Attr_get");
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Attr_get(dup, key, &val, &flag));
    CHECK(flag && *val == 42, "MPI_DUP_FN did not copy");
    OK(MPI_Attr_get(dup, nocopy, &val, &flag));
    CHECK(!flag, "MPI_NULL_COPY_FN copied");
    OK(MPI_Comm_free(&dup));
    OK(MPI_Attr_delete(MPI_COMM_WORLD, key));
    OK(MPI_Attr_get(MPI_COMM_WORLD, key, &val, &flag));
    CHECK(!flag && deletes == 2, "MPI_Attr_delete: flag %d deletes %d", flag, deletes);
    OK(MPI_Attr_delete(MPI_COMM_WORLD, nocopy));
    OK(MPI_Keyval_free(&key));
    OK(MPI_Keyval_free(&nocopy));
    CHECK(key == MPI_KEYVAL_INVALID, "MPI_Keyval_free");
    say("MPI_Keyval_create, MPI_Attr_put/get/delete, MPI_DUP_FN, MPI_Keyval_free ... OK");
}

/* A named type: its name and size (optional ones may be MPI_DATATYPE_NULL). */
static void named(MPI_Datatype t, const char *name, int bytes, int optional)
{
    if (optional && t == MPI_DATATYPE_NULL) {
        say("%-28s not provided or %2d bytes ... OK", name, bytes);
        return;
    }
    char got[MPI_MAX_OBJECT_NAME];
    int len, sz;
    MPI_Aint lb, extent;
    OK(MPI_Type_get_name(t, got, &len));
    CHECK(strcmp(got, name) == 0, "name of %s: %s", name, got);
    OK(MPI_Type_size(t, &sz));
    OK(MPI_Type_get_extent(t, &lb, &extent));
    CHECK(sz == bytes && lb == 0 && extent == bytes, "%s: size %d extent %ld", name, sz, (long)extent);
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "%s: envelope", name);
    if (optional)
        say("%-28s not provided or %2d bytes ... OK", name, bytes);
    else
        say("%-28s %2d bytes ... OK", name, bytes);
}

static void fortran_and_cxx_types(void)
{
    named(MPI_INTEGER, "MPI_INTEGER", 4, 0);
    named(MPI_REAL, "MPI_REAL", 4, 0);
    named(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 0);
    named(MPI_COMPLEX, "MPI_COMPLEX", 8, 0);
    named(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 0);
    named(MPI_LOGICAL, "MPI_LOGICAL", 4, 0);
    named(MPI_CHARACTER, "MPI_CHARACTER", 1, 0);
    named(MPI_2INTEGER, "MPI_2INTEGER", 8, 0);
    named(MPI_2REAL, "MPI_2REAL", 8, 0);
    named(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 0);
    named(MPI_INTEGER1, "MPI_INTEGER1", 1, 1);
    named(MPI_INTEGER2, "MPI_INTEGER2", 2, 1);
    named(MPI_INTEGER4, "MPI_INTEGER4", 4, 1);
    named(MPI_INTEGER8, "MPI_INTEGER8", 8, 1);
    named(MPI_INTEGER16, "MPI_INTEGER16", 16, 1);
#ifdef MPI_REAL2 /* (MPICH does not define the half precision ones) */
    named(MPI_REAL2, "MPI_REAL2", 2, 1);
#else
    say("%-28s not provided or %2d bytes ... OK", "MPI_REAL2", 2);
#endif
    named(MPI_REAL4, "MPI_REAL4", 4, 1);
    named(MPI_REAL8, "MPI_REAL8", 8, 1);
    named(MPI_REAL16, "MPI_REAL16", 16, 1);
#ifdef MPI_COMPLEX4
    named(MPI_COMPLEX4, "MPI_COMPLEX4", 4, 1);
#else
    say("%-28s not provided or %2d bytes ... OK", "MPI_COMPLEX4", 4);
#endif
    named(MPI_COMPLEX8, "MPI_COMPLEX8", 8, 1);
    named(MPI_COMPLEX16, "MPI_COMPLEX16", 16, 1);
    named(MPI_COMPLEX32, "MPI_COMPLEX32", 32, 1);
    named(MPI_CXX_BOOL, "MPI_CXX_BOOL", 1, 0);
    named(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 8, 0);
    named(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16, 0);
    named(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", 32, 0);

    /* Reductions: every rank r contributes r + 1 (and small complex numbers, exact in binary). */
    int r1 = rank + 1, n = size;
    int isum, imax, ireal;
    OK(MPI_Allreduce(&r1, &isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Allreduce(&r1, &imax, 1, MPI_INTEGER4, MPI_MAX, MPI_COMM_WORLD));
    OK(MPI_Allreduce(&r1, &ireal, 1, MPI_INTEGER, MPI_BXOR, MPI_COMM_WORLD));
    int xor = 0;
    for (int i = 1; i <= n; i++)
        xor ^= i;
    CHECK(isum == n * (n + 1) / 2 && imax == n && ireal == xor, "INTEGER reductions");
    long long l8 = (long long)r1 << 33, l8sum;
    OK(MPI_Allreduce(&l8, &l8sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(l8sum == ((long long)n * (n + 1) / 2) << 33, "INTEGER8 sum");
    float f = (float)r1, fmin, fprod;
    OK(MPI_Allreduce(&f, &fmin, 1, MPI_REAL, MPI_MIN, MPI_COMM_WORLD));
    OK(MPI_Reduce(&f, &fprod, 1, MPI_REAL4, MPI_PROD, 0, MPI_COMM_WORLD));
    double d = r1 * 0.5, dsum;
    OK(MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD));
    CHECK(fmin == 1.0f && dsum == n * (n + 1) / 4.0, "REAL/DOUBLE PRECISION reductions");
    float fact = 1;
    for (int i = 1; i <= n; i++)
        fact *= (float)i;
    CHECK(rank != 0 || fprod == fact, "REAL4 product");
    say("SUM, MAX, BXOR on MPI_INTEGER(4,8); MIN, PROD on MPI_REAL(4); SUM on MPI_DOUBLE_PRECISION ... OK");

    float cf[2] = {(float)r1, 1.0f}, cfs[2];
    OK(MPI_Allreduce(cf, cfs, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(cfs[0] == (float)(n * (n + 1) / 2) && cfs[1] == (float)n, "COMPLEX sum");
    /* The product of (0 + 1i) over n ranks is i^n. */
    double ci[2] = {0.0, 1.0}, cip[2], want[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    OK(MPI_Allreduce(ci, cip, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    CHECK(cip[0] == want[n % 4][0] && cip[1] == want[n % 4][1], "DOUBLE_COMPLEX product");
    OK(MPI_Allreduce(ci, cip, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    CHECK(cip[0] == want[n % 4][0] && cip[1] == want[n % 4][1], "CXX_DOUBLE_COMPLEX product");
    say("SUM on MPI_COMPLEX, PROD on MPI_DOUBLE_COMPLEX and MPI_CXX_DOUBLE_COMPLEX ... OK");

    int lg[3] = {1, rank == 0, rank % 2}, land[3], lor[3], lxor[3];
    OK(MPI_Allreduce(lg, land, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    OK(MPI_Allreduce(lg, lor, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    OK(MPI_Allreduce(lg, lxor, 3, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(land[0] && land[1] == (n == 1) && !land[2], "LOGICAL LAND");
    CHECK(lor[0] && lor[1] && lor[2] == (n > 1), "LOGICAL LOR");
    CHECK(lxor[0] == n % 2 && lxor[1] && lxor[2] == (n / 2) % 2, "LOGICAL LXOR");
    _Bool b = rank == 0, bor;
    OK(MPI_Allreduce(&b, &bor, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(bor, "CXX_BOOL LOR");
    say("LAND, LOR, LXOR on MPI_LOGICAL; LOR on MPI_CXX_BOOL ... OK");

    /* MAXLOC and MINLOC on the Fortran pairs: value, then index of the value's type; ties keep the lower index. */
    int pi[2] = {rank % 2, rank}, pimax[2], pimin[2];
    OK(MPI_Allreduce(pi, pimax, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
    OK(MPI_Allreduce(pi, pimin, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(pimax[0] == (n > 1) && pimax[1] == (n > 1) && pimin[0] == 0 && pimin[1] == 0, "2INTEGER");
    float pf[2] = {(float)(10 - rank), (float)rank}, pfmin[2];
    OK(MPI_Allreduce(pf, pfmin, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(pfmin[0] == (float)(11 - n) && pfmin[1] == (float)(n - 1), "2REAL MINLOC");
    double pd[4] = {rank * 1.5, rank, 7.0, rank}, pdmax[4];
    OK(MPI_Allreduce(pd, pdmax, 2, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(pdmax[0] == (n - 1) * 1.5 && pdmax[1] == n - 1 && pdmax[2] == 7.0 && pdmax[3] == 0, "2DOUBLE_PRECISION");
    say("MAXLOC, MINLOC on MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION ... OK");

    /* Operations MPI does not define on the type's class. */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int cls, out[2];
    struct { MPI_Datatype t; MPI_Op op; const char *what; } bad[] = {
        {MPI_LOGICAL, MPI_SUM, "SUM on MPI_LOGICAL"},
        /* (MPI defines no operation on MPI_CHARACTER either, but MPICH 4.0 takes MIN and MAX on it.) */
        {MPI_COMPLEX, MPI_MAX, "MAX on MPI_COMPLEX"},
        {MPI_2REAL, MPI_SUM, "SUM on MPI_2REAL"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int err = MPI_Allreduce(lg, out, 1, bad[i].t, bad[i].op, MPI_COMM_WORLD);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_OP, "%s: class %d", bad[i].what, cls);
        say("%s: MPI_ERR_OP ... OK", bad[i].what);
    }
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void huge_types(void)
{
    /* 12 GiB of data in one item: MPI_Type_size cannot say it, MPI_Type_size_x can. */
    MPI_Datatype giga, big, vec, four;
    OK(MPI_Type_contiguous(1 << 30, MPI_INT, &giga));
    OK(MPI_Type_contiguous(3, giga, &big));
    int sz;
    MPI_Count szx, lbx, extx;
    OK(MPI_Type_size(big, &sz));
    OK(MPI_Type_size_x(big, &szx));
    OK(MPI_Type_get_extent_x(big, &lbx, &extx));
    CHECK(sz == MPI_UNDEFINED && szx == 12LL << 30 && lbx == 0 && extx == 12LL << 30, "12 GiB type: %d %lld %lld", sz,
          (long long)szx, (long long)extx);
    say("contiguous(3, contiguous(2^30, INT)): size MPI_UNDEFINED, size_x %lld ... OK", (long long)szx);
    MPI_Type_free(&giga);
    MPI_Type_free(&big);

    /* A vector of a billion blocks of 4 ints: an implementation either describes it or refuses it with an error
     * (not for lack of memory while building it), and never crashes. */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Type_contiguous(4, MPI_INT, &four));
    int err = MPI_Type_vector(INT_MAX / 2, 1, 3, four, &vec), cls;
    MPI_Error_class(err, &cls);
    if (err == MPI_SUCCESS) {
        OK(MPI_Type_size_x(vec, &szx));
        CHECK(szx == (MPI_Count)(INT_MAX / 2) * 16, "huge vector size %lld", (long long)szx);
        MPI_Type_free(&vec);
    } else {
        CHECK(cls == MPI_ERR_COUNT || cls == MPI_ERR_ARG || cls == MPI_ERR_TYPE, "huge vector: class %d", cls);
    }
    say("vector(INT_MAX / 2, 1, 3, contiguous(4, INT)): described or MPI_ERR_COUNT/ARG/TYPE ... OK");
    /* An extent beyond any address: refused, or at least not wrapped around to a small one. */
    MPI_Datatype far;
    err = MPI_Type_create_hvector(3, 1, (MPI_Aint)(((size_t)-1 >> 1) / 2), MPI_INT, &far);
    MPI_Error_class(err, &cls);
    if (err == MPI_SUCCESS) {
        MPI_Aint lb, extent;
        OK(MPI_Type_get_extent(far, &lb, &extent));
        CHECK(extent > (MPI_Aint)1 << 40 || extent < 0, "wrapped extent %ld", (long)extent);
        MPI_Type_free(&far);
    } else {
        CHECK(cls == MPI_ERR_COUNT || cls == MPI_ERR_ARG || cls == MPI_ERR_TYPE, "far hvector: class %d", cls);
    }
    say("hvector(3, 1, INTPTR_MAX / 2, INT): refused or a huge extent ... OK");
    MPI_Type_free(&four);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    removed_functions();
    removed_errhandlers_and_attributes();
    fortran_and_cxx_types();
    huge_types();
    say("done");
    MPI_Finalize();
    return 0;
}
