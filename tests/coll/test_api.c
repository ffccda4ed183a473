/*
 * test_api.c: the calls around the collectives: algorithm lists, nocmsg_coll_set and nocmsg_coll_choice,
 * nocmsg_coll_set_xfer, nocmsg_op_create and nocmsg_op_free, and the sizes of the pair datatypes.
 */
#include <string.h>

#include "red.h"

static const size_t probe_bytes[] = {0, 1, 8, 4096, 65536, 1 << 22};
enum { PROBES = sizeof probe_bytes / sizeof probe_bytes[0] };

static int listed(const char *const *list, const char *name)
{
    for (int i = 0; list && list[i]; i++)
        if (name && strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

static void algorithm_lists(void)
{
    for (int o = 0; o < T_OPERATIONS; o++) {
        const char *op = t_operations[o];
        t_case("algorithms of %s", op);
        const char *const *list = nocmsg_coll_algorithms(op);
        CHECK(list && list[0], "nocmsg_coll_algorithms(\"%s\") is empty or NULL", op);
        for (int i = 0; list && list[i]; i++) {
            CHECK(list[i][0] != '\0', "algorithm %d of %s has an empty name", i, op);
            for (int j = 0; j < i; j++)
                CHECK(strcmp(list[i], list[j]) != 0, "%s lists %s twice", op, list[i]);
            /* Setting it makes every choice, on every communicator, that algorithm. */
            t_case("nocmsg_coll_set(\"%s\", \"%s\")", op, list[i]);
            CHECK_OK(nocmsg_coll_set(op, list[i]));
            for (int b = 0; b < PROBES; b++) {
                const char *w = nocmsg_coll_choice(op, probe_bytes[b], NOCMSG_COMM_WORLD);
                const char *s = nocmsg_coll_choice(op, probe_bytes[b], NOCMSG_COMM_SELF);
                unsigned long bytes = (unsigned long)probe_bytes[b];
                CHECK(w && strcmp(w, list[i]) == 0, "choice for %lu bytes on WORLD is %s", bytes, w ? w : "NULL");
                CHECK(s && strcmp(s, list[i]) == 0, "choice for %lu bytes on SELF is %s", bytes, s ? s : "NULL");
            }
        }
        /* "auto": the selector picks a listed algorithm for every size. */
        t_case("nocmsg_coll_set(\"%s\", \"auto\")", op);
        CHECK_OK(nocmsg_coll_set(op, "auto"));
        for (int b = 0; b < PROBES; b++) {
            const char *w = nocmsg_coll_choice(op, probe_bytes[b], NOCMSG_COMM_WORLD);
            const char *s = nocmsg_coll_choice(op, probe_bytes[b], NOCMSG_COMM_SELF);
            CHECK(listed(list, w), "auto picks %s for %lu bytes on WORLD, not one of the listed algorithms",
                  w ? w : "NULL", (unsigned long)probe_bytes[b]);
            CHECK(listed(list, s), "auto picks %s for %lu bytes on SELF, not one of the listed algorithms",
                  s ? s : "NULL", (unsigned long)probe_bytes[b]);
        }
        /* A bad name is an error and changes nothing. */
        const char *before = nocmsg_coll_choice(op, 4096, NOCMSG_COMM_WORLD);
        t_case("nocmsg_coll_set(\"%s\", bad name)", op);
        int rc = nocmsg_coll_set(op, "no-such-algorithm");
        CHECK(rc != NOCMSG_SUCCESS, "nocmsg_coll_set(\"%s\", \"no-such-algorithm\") succeeded", op);
        rc = nocmsg_coll_set(op, NULL);
        CHECK(rc != NOCMSG_SUCCESS, "nocmsg_coll_set(\"%s\", NULL) succeeded", op);
        const char *after = nocmsg_coll_choice(op, 4096, NOCMSG_COMM_WORLD);
        CHECK(before && after && strcmp(before, after) == 0,
              "a failed nocmsg_coll_set changed the choice from %s to %s", before ? before : "NULL",
              after ? after : "NULL");
        CHECK(nocmsg_coll_choice(op, 8, NOCMSG_COMM_NULL) == NULL, "a choice on NOCMSG_COMM_NULL");
        CHECK(nocmsg_coll_choice(op, 8, 12345) == NULL, "a choice on communicator 12345");
    }
    t_case("unknown operations");
    static const char *const unknown[] = {"", "Bcast", "broadcast", "reduce-scatter", "no-such-operation"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK(nocmsg_coll_algorithms(unknown[i]) == NULL, "nocmsg_coll_algorithms(\"%s\") is not NULL", unknown[i]);
        CHECK(nocmsg_coll_choice(unknown[i], 8, NOCMSG_COMM_WORLD) == NULL, "nocmsg_coll_choice(\"%s\") is not NULL",
              unknown[i]);
        CHECK(nocmsg_coll_set(unknown[i], "auto") != NOCMSG_SUCCESS, "nocmsg_coll_set(\"%s\", \"auto\") succeeded",
              unknown[i]);
    }
    CHECK(nocmsg_coll_algorithms(NULL) == NULL, "nocmsg_coll_algorithms(NULL) is not NULL");
    CHECK(nocmsg_coll_choice(NULL, 8, NOCMSG_COMM_WORLD) == NULL, "nocmsg_coll_choice(NULL) is not NULL");
    CHECK(nocmsg_coll_set(NULL, "auto") != NOCMSG_SUCCESS, "nocmsg_coll_set(NULL, \"auto\") succeeded");
}

static void xfer_switch(void)
{
    t_case("nocmsg_coll_set_xfer");
    int initial = nocmsg_coll_set_xfer(1);
    CHECK(initial == 0 || initial == 1, "nocmsg_coll_set_xfer returned %d", initial);
    CHECK(nocmsg_coll_set_xfer(0) == 1, "nocmsg_coll_set_xfer(0) did not return the previous setting 1");
    CHECK(nocmsg_coll_set_xfer(0) == 0, "nocmsg_coll_set_xfer(0) did not return the previous setting 0");
    CHECK(nocmsg_coll_set_xfer(1) == 0, "nocmsg_coll_set_xfer(1) did not return the previous setting 0");
    /* The suite runs with transfers allowed (test_xfer_off turns them off). */
}

static void dummy_fn(void *in, void *inout, int *len, nocmsg_datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

static void op_handles(void)
{
    t_case("nocmsg_op_create and nocmsg_op_free");
    nocmsg_op a = NOCMSG_OP_NULL, b = NOCMSG_OP_NULL;
    CHECK_OK(nocmsg_op_create(dummy_fn, 1, &a));
    CHECK_OK(nocmsg_op_create(dummy_fn, 0, &b));
    CHECK(a != NOCMSG_OP_NULL && b != NOCMSG_OP_NULL && a != b, "op_create gave handles %d and %d", a, b);
    CHECK(a >= NOCMSG_BUILTIN_OPS && b >= NOCMSG_BUILTIN_OPS, "op_create gave handles %d and %d, which are built-in",
          a, b);
    nocmsg_op old = a;
    CHECK_OK(nocmsg_op_free(&a));
    CHECK(a == NOCMSG_OP_NULL, "op_free did not reset the handle");
    CHECK_RC(nocmsg_op_free(&old), NOCMSG_ERR_OP);
    CHECK_OK(nocmsg_op_free(&b));
    nocmsg_op sum = NOCMSG_SUM, null = NOCMSG_OP_NULL, bad = 12345;
    CHECK_RC(nocmsg_op_free(&sum), NOCMSG_ERR_OP);
    CHECK(sum == NOCMSG_SUM, "a failed op_free changed the handle");
    CHECK_RC(nocmsg_op_free(&null), NOCMSG_ERR_OP);
    CHECK_RC(nocmsg_op_free(&bad), NOCMSG_ERR_OP);
    CHECK_RC(nocmsg_op_free(NULL), NOCMSG_ERR_ARG);
    nocmsg_op c = NOCMSG_OP_NULL;
    CHECK_RC(nocmsg_op_create(NULL, 1, &c), NOCMSG_ERR_ARG);
    CHECK(c == NOCMSG_OP_NULL, "a failed op_create set the handle");
    CHECK_RC(nocmsg_op_create(dummy_fn, 1, NULL), NOCMSG_ERR_ARG);
    /* Many create/free rounds: handles are recycled, not exhausted. */
    for (int i = 0; i < 200; i++) {
        CHECK_OK(nocmsg_op_create(dummy_fn, i % 2, &c));
        CHECK_OK(nocmsg_op_free(&c));
    }
}

static void type_sizes(void)
{
    t_case("datatype sizes");
    for (nocmsg_datatype t = NOCMSG_BYTE; t < NOCMSG_BASIC_DATATYPES; t++) {
        int size = -1;
        CHECK_OK(nocmsg_type_size(t, &size));
        CHECK(size == t_type_size(t), "nocmsg_type_size(%s) is %d, the C type has %d bytes", t_type_name(t), size,
              t_type_size(t));
    }
}

void test_api(void)
{
    type_sizes();
    algorithm_lists();
    xfer_switch();
    op_handles();
}
