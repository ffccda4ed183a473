/* test_env.c: environment (init, finalize, rank, size, port, time), datatype sizes, error strings, get_count. */
#include <stdio.h>
#include <string.h>

#include "check.h"

/* What the library said before nocmsg_init; checked once the rank is known and failures can be reported. */
static struct {
    int initialized_rc, initialized_flag;
    int finalized_rc, finalized_flag;
    int rank, size;
    int comm_rank_rc, send_rc;
} before;

void test_env_before_init(void)
{
    int dummy = 0;
    before.initialized_flag = -1;
    before.finalized_flag = -1;
    before.initialized_rc = nocmsg_initialized(&before.initialized_flag);
    before.finalized_rc = nocmsg_finalized(&before.finalized_flag);
    before.rank = nocmsg_rank();
    before.size = nocmsg_size();
    before.comm_rank_rc = nocmsg_comm_rank(NOCMSG_COMM_WORLD, &dummy);
    before.send_rc = nocmsg_send(&dummy, 1, NOCMSG_INT, 0, 0, NOCMSG_COMM_WORLD);
}

void test_env(void)
{
    CHECK_OK(before.initialized_rc);
    CHECK(before.initialized_flag == 0, "nocmsg_initialized before init gave flag %d", before.initialized_flag);
    CHECK_OK(before.finalized_rc);
    CHECK(before.finalized_flag == 0, "nocmsg_finalized before init gave flag %d", before.finalized_flag);
    CHECK(before.rank == -1 && before.size == -1, "before init nocmsg_rank/size gave %d/%d, expected -1/-1",
          before.rank, before.size);
    CHECK_RC(before.comm_rank_rc, NOCMSG_ERR_NOT_INITIALIZED);
    CHECK_RC(before.send_rc, NOCMSG_ERR_NOT_INITIALIZED);

    int flag = -1;
    CHECK_OK(nocmsg_initialized(&flag));
    CHECK(flag == 1, "nocmsg_initialized after init gave flag %d", flag);
    flag = -1;
    CHECK_OK(nocmsg_finalized(&flag));
    CHECK(flag == 0, "nocmsg_finalized after init gave flag %d", flag);
    CHECK_RC(nocmsg_initialized(NULL), NOCMSG_ERR_ARG);

    int rank = -5, size = -5;
    CHECK_OK(nocmsg_comm_rank(NOCMSG_COMM_WORLD, &rank));
    CHECK_OK(nocmsg_comm_size(NOCMSG_COMM_WORLD, &size));
    CHECK(rank == t_rank && size == t_size, "comm_rank/comm_size of WORLD gave %d/%d, nocmsg_rank/size %d/%d", rank,
          size, t_rank, t_size);

    const char *port = nocmsg_port_name();
    CHECK(port != NULL && port[0] != '\0', "nocmsg_port_name is empty");
#if defined(NOCMSG_SIM) && defined(NOCMSG_PORT_MPB)
    const char *want_port = "mpb";
#elif defined(NOCMSG_SIM) && defined(NOCMSG_PORT_UDN)
    const char *want_port = "udn";
#elif defined(NOCMSG_SIM)
    const char *want_port = "pimp";
#else
    const char *want_port = "host";
#endif
    CHECK(port != NULL && strcmp(port, want_port) == 0, "nocmsg_port_name is \"%s\", expected \"%s\"",
          port ? port : "(null)", want_port);

    double t0 = nocmsg_wtime();
    double t1 = nocmsg_wtime();
    CHECK(t1 >= t0, "nocmsg_wtime went backwards (%g then %g)", t0, t1);
    double tick = nocmsg_wtick();
    CHECK(tick > 0.0 && tick < 1.0, "nocmsg_wtick is %g", tick);
}

void test_env_after_finalize(void)
{
    int flag = -1, rank = 0;
    CHECK_OK(nocmsg_finalized(&flag));
    CHECK(flag == 1, "nocmsg_finalized after finalize gave flag %d", flag);
    CHECK_RC(nocmsg_comm_rank(NOCMSG_COMM_WORLD, &rank), NOCMSG_ERR_NOT_INITIALIZED);
    CHECK_RC(nocmsg_send(&rank, 1, NOCMSG_INT, 0, 0, NOCMSG_COMM_WORLD), NOCMSG_ERR_NOT_INITIALIZED);
}

void test_datatypes(void)
{
    static const struct {
        nocmsg_datatype type;
        const char *name;
        int size;
    } types[] = {
        {NOCMSG_BYTE, "BYTE", 1},
        {NOCMSG_CHAR, "CHAR", (int)sizeof(char)},
        {NOCMSG_SIGNED_CHAR, "SIGNED_CHAR", (int)sizeof(signed char)},
        {NOCMSG_UNSIGNED_CHAR, "UNSIGNED_CHAR", (int)sizeof(unsigned char)},
        {NOCMSG_SHORT, "SHORT", (int)sizeof(short)},
        {NOCMSG_UNSIGNED_SHORT, "UNSIGNED_SHORT", (int)sizeof(unsigned short)},
        {NOCMSG_INT, "INT", (int)sizeof(int)},
        {NOCMSG_UNSIGNED, "UNSIGNED", (int)sizeof(unsigned)},
        {NOCMSG_LONG, "LONG", (int)sizeof(long)},
        {NOCMSG_UNSIGNED_LONG, "UNSIGNED_LONG", (int)sizeof(unsigned long)},
        {NOCMSG_LONG_LONG, "LONG_LONG", (int)sizeof(long long)},
        {NOCMSG_UNSIGNED_LONG_LONG, "UNSIGNED_LONG_LONG", (int)sizeof(unsigned long long)},
        {NOCMSG_INT8, "INT8", (int)sizeof(int8_t)},
        {NOCMSG_UINT8, "UINT8", (int)sizeof(uint8_t)},
        {NOCMSG_INT16, "INT16", (int)sizeof(int16_t)},
        {NOCMSG_UINT16, "UINT16", (int)sizeof(uint16_t)},
        {NOCMSG_INT32, "INT32", (int)sizeof(int32_t)},
        {NOCMSG_UINT32, "UINT32", (int)sizeof(uint32_t)},
        {NOCMSG_INT64, "INT64", (int)sizeof(int64_t)},
        {NOCMSG_UINT64, "UINT64", (int)sizeof(uint64_t)},
        {NOCMSG_FLOAT, "FLOAT", (int)sizeof(float)},
        {NOCMSG_DOUBLE, "DOUBLE", (int)sizeof(double)},
        {NOCMSG_FLOAT_INT, "FLOAT_INT", (int)sizeof(struct { float v; int i; })},
        {NOCMSG_DOUBLE_INT, "DOUBLE_INT", (int)sizeof(struct { double v; int i; })},
        {NOCMSG_LONG_INT, "LONG_INT", (int)sizeof(struct { long v; int i; })},
        {NOCMSG_2INT, "2INT", (int)sizeof(struct { int v; int i; })},
        {NOCMSG_SHORT_INT, "SHORT_INT", (int)sizeof(struct { short v; int i; })},
    };
    _Static_assert(sizeof types / sizeof types[0] == NOCMSG_BASIC_DATATYPES - 1, "every basic datatype is listed");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        int size = -1;
        CHECK_OK(nocmsg_type_size(types[i].type, &size));
        CHECK(size == types[i].size, "nocmsg_type_size(NOCMSG_%s) is %d, sizeof is %d", types[i].name, size,
              types[i].size);
    }
    int size = 0;
    CHECK_RC(nocmsg_type_size(NOCMSG_DATATYPE_NULL, &size), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_type_size(NOCMSG_BASIC_DATATYPES, &size), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_type_size(-1, &size), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_type_size(1000, &size), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_type_size(NOCMSG_INT, NULL), NOCMSG_ERR_ARG);
}

void test_error_strings(void)
{
    for (int i = 0; i < NOCMSG_ERR_LASTCODE; i++) {
        const char *a = nocmsg_error_string(i);
        CHECK(a != NULL && a[0] != '\0', "nocmsg_error_string(%d) (%s) is empty", i, t_errname(i));
        if (!a)
            continue;
        for (int j = 0; j < i; j++) {
            const char *b = nocmsg_error_string(j);
            CHECK(b == NULL || strcmp(a, b) != 0, "nocmsg_error_string gives \"%s\" for both %s and %s", a,
                  t_errname(j), t_errname(i));
        }
    }
    /* Out-of-range codes still get some static text rather than NULL. */
    CHECK(nocmsg_error_string(NOCMSG_ERR_LASTCODE) != NULL, "nocmsg_error_string(NOCMSG_ERR_LASTCODE) is NULL");
    CHECK(nocmsg_error_string(-1) != NULL, "nocmsg_error_string(-1) is NULL");
    CHECK(nocmsg_error_string(12345) != NULL, "nocmsg_error_string(12345) is NULL");
}

void test_get_count(void)
{
    static const struct {
        size_t bytes;
        nocmsg_datatype type;
        int want;
    } cases[] = {
        {0, NOCMSG_BYTE, 0},      {0, NOCMSG_DOUBLE, 0},         {12, NOCMSG_BYTE, 12},
        {12, NOCMSG_INT, 3},      {12, NOCMSG_SHORT, 6},         {12, NOCMSG_DOUBLE, NOCMSG_UNDEFINED},
        {12, NOCMSG_INT64, NOCMSG_UNDEFINED},                    {7, NOCMSG_SHORT, NOCMSG_UNDEFINED},
        {7, NOCMSG_CHAR, 7},      {8, NOCMSG_DOUBLE, 1},         {8, NOCMSG_FLOAT, 2},
        {4096, NOCMSG_UINT64, 512}, {4097, NOCMSG_UINT64, NOCMSG_UNDEFINED}, {6, NOCMSG_UINT16, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nocmsg_status st = {0, 0, NOCMSG_SUCCESS, cases[i].bytes};
        int count = -12345;
        CHECK_OK(nocmsg_get_count(&st, cases[i].type, &count));
        CHECK(count == cases[i].want, "get_count of %lu bytes as type %d is %d, expected %d",
              (unsigned long)cases[i].bytes, cases[i].type, count, cases[i].want);
    }
    nocmsg_status st = {0, 0, NOCMSG_SUCCESS, 8};
    int count = 0;
    CHECK_RC(nocmsg_get_count(&st, NOCMSG_DATATYPE_NULL, &count), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_get_count(&st, 999, &count), NOCMSG_ERR_TYPE);
    CHECK_RC(nocmsg_get_count(NULL, NOCMSG_INT, &count), NOCMSG_ERR_ARG);
    CHECK_RC(nocmsg_get_count(&st, NOCMSG_INT, NULL), NOCMSG_ERR_ARG);
}
