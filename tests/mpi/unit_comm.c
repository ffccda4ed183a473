/* unit_comm.c: communicators, groups and Cartesian topologies, function by function, with their error classes
 * (under MPI_ERRORS_RETURN; errors on a communicator go to its error handler, group errors to MPI_COMM_WORLD's).
 * Communicators: size and rank, dup (name, error handler, attributes and topology carried over or not), split
 * (keys, MPI_UNDEFINED), split_type, create (ordered as the group), free, compare, test_inter, names, c2f/f2c.
 * Groups: size, rank, translate_ranks, compare, union, intersection, difference, incl, excl, range_incl and
 * range_excl (negative strides, several ranges), free, MPI_GROUP_EMPTY. Cartesian topologies: Dims_create on many
 * (nnodes, ndims) pairs and with fixed dimensions, Cart_create (smaller grids, 0 dimensions), Cart_get, Cartdim_get,
 * Cart_rank (periodic wrap), Cart_coords, Cart_shift (messages along the shifts), Cart_sub, Cart_map, Topo_test.
 * Only rank 0 prints; lines that show ranks depend on the rank count. Checks of behaviour MPICH lacks (it crashes on
 * MPI_Comm_split_type(MPI_UNDEFINED), accepts repeated ranks in MPI_Group_incl...) run only on nocmsg and print
 * nothing. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL unit_comm: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

static void say(const char *fmt, ...)
{
    if (rank != 0) return;
    va_list ap;
    va_start(ap, fmt);
    printf("unit_comm: ");
    vprintf(fmt, ap);
    printf(" OK\n");
    va_end(ap);
}

static const char *class_name(int code)
{
    int c = code;
    if (code != MPI_SUCCESS) MPI_Error_class(code, &c);
    switch (c) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS";
    default: return "another class";
    }
}

/* A call's error class must be `want`. */
#define EXPECT(call, want)                                                                                      \
    do {                                                                                                        \
        int got_ = (call);                                                                                      \
        CHECK(strcmp(class_name(got_), class_name(want)) == 0, "%s gave %s, expected %s", #call,              \
              class_name(got_), class_name(want));                                                              \
    } while (0)

static const char *compare_name(int result)
{
    switch (result) {
    case MPI_IDENT: return "MPI_IDENT";
    case MPI_CONGRUENT: return "MPI_CONGRUENT";
    case MPI_SIMILAR: return "MPI_SIMILAR";
    case MPI_UNEQUAL: return "MPI_UNEQUAL";
    default: return "(not a comparison result)";
    }
}

static int compare_comms(MPI_Comm a, MPI_Comm b)
{
    int result = -1;
    EXPECT(MPI_Comm_compare(a, b, &result), MPI_SUCCESS);
    return result;
}

static int compare_groups(MPI_Group a, MPI_Group b)
{
    int result = -1;
    EXPECT(MPI_Group_compare(a, b, &result), MPI_SUCCESS);
    return result;
}

/* A rank as text: the special values by name. */
static const char *rank_text(int r, char *buf)
{
    if (r == MPI_PROC_NULL) return "PROC_NULL";
    if (r == MPI_UNDEFINED) return "UNDEFINED";
    sprintf(buf, "%d", r);
    return buf;
}

static MPI_Group world_group;

/* The world ranks of a group's members in group order, as " 3 1" (or " (empty)"). */
static char *members(MPI_Group g)
{
    static char out[16 * 8];
    int n = -1;
    EXPECT(MPI_Group_size(g, &n), MPI_SUCCESS);
    int *in = malloc(sizeof(int) * (size_t)(n + 1)), *w = malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) in[i] = i;
    EXPECT(MPI_Group_translate_ranks(g, n, in, world_group, w), MPI_SUCCESS);
    strcpy(out, n ? "" : " (empty)");
    for (int i = 0; i < n; i++) snprintf(out + strlen(out), sizeof out - strlen(out), " %d", w[i]);
    free(in);
    free(w);
    return out;
}

/* The world ranks of a communicator's members, in its order. */
static char *comm_members(MPI_Comm c)
{
    MPI_Group g;
    EXPECT(MPI_Comm_group(c, &g), MPI_SUCCESS);
    char *m = members(g);
    EXPECT(MPI_Group_free(&g), MPI_SUCCESS);
    return m;
}

/* Error handler that counts the errors raised through it. */
static int errors_seen;
static void count_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    errors_seen++;
}

/* ---- communicators ---- */

static void comm_basics(void)
{
    int n = -1, r = -1;
    EXPECT(MPI_Comm_size(MPI_COMM_SELF, &n), MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(MPI_COMM_SELF, &r), MPI_SUCCESS);
    CHECK(n == 1 && r == 0, "SELF: size %d rank %d", n, r);
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &n), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM);
    EXPECT(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    int flag = -1;
    EXPECT(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag), MPI_SUCCESS);
    CHECK(flag == 0, "Comm_test_inter on WORLD: %d", flag);
    EXPECT(MPI_Comm_test_inter(MPI_COMM_NULL, &flag), MPI_ERR_COMM);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD &&
              MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_SELF)) == MPI_COMM_SELF &&
              MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL,
          "Comm_c2f/f2c do not round-trip");
    say("Comm_size/rank on SELF; MPI_COMM_NULL is MPI_ERR_COMM, a null pointer MPI_ERR_ARG; Comm_test_inter false; "
        "Comm_c2f/f2c round-trip");
}

static void names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    EXPECT(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "WORLD's name \"%s\" (%d)", name, len);
    EXPECT(MPI_Comm_get_name(MPI_COMM_SELF, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13, "SELF's name \"%s\" (%d)", name, len);
    MPI_Comm dup, dup2;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    EXPECT(MPI_Comm_get_name(dup, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "") == 0 && len == 0, "a duplicate's name \"%s\" (%d)", name, len);
    EXPECT(MPI_Comm_set_name(dup, "halo exchange"), MPI_SUCCESS);
    EXPECT(MPI_Comm_get_name(dup, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "halo exchange") == 0 && len == 13, "set then get: \"%s\" (%d)", name, len);
    /* The name is not inherited. */
    EXPECT(MPI_Comm_dup(dup, &dup2), MPI_SUCCESS);
    EXPECT(MPI_Comm_get_name(dup2, name, &len), MPI_SUCCESS);
    CHECK(len == 0, "a named communicator's duplicate is called \"%s\"", name);
    /* Too long: cut to MPI_MAX_OBJECT_NAME - 1 characters. */
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    EXPECT(MPI_Comm_set_name(dup, longname), MPI_SUCCESS);
    EXPECT(MPI_Comm_get_name(dup, name, &len), MPI_SUCCESS);
    CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len, "long name kept as %d characters", len);
    /* Renaming WORLD, and back. */
    EXPECT(MPI_Comm_set_name(MPI_COMM_WORLD, "everyone"), MPI_SUCCESS);
    EXPECT(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "everyone") == 0, "renamed WORLD: \"%s\"", name);
    EXPECT(MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD"), MPI_SUCCESS);
    EXPECT(MPI_Comm_set_name(dup, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_get_name(dup, NULL, &len), MPI_ERR_ARG);
    EXPECT(MPI_Comm_get_name(MPI_COMM_NULL, name, &len), MPI_ERR_COMM);
    EXPECT(MPI_Comm_set_name(MPI_COMM_NULL, "x"), MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(&dup), MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&dup2), MPI_SUCCESS);
    say("names: \"MPI_COMM_WORLD\", \"MPI_COMM_SELF\", \"\" for a duplicate, set/get, cut at %d characters, errors",
        MPI_MAX_OBJECT_NAME - 1);
}

static int keyval_copies;
static int copy_attr(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra;
    keyval_copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void dup_and_free(void)
{
    MPI_Comm dup, saved;
    int n = -1, r = -1, flag = -1;
    /* The duplicate gets WORLD's error handler (MPI_ERRORS_RETURN here) and, through their copy functions, its
     * attributes; it keeps the ranks and its messages apart. */
    int keyval;
    static int value = 42;
    EXPECT(MPI_Comm_create_keyval(copy_attr, MPI_COMM_NULL_DELETE_FN, &keyval, NULL), MPI_SUCCESS);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value), MPI_SUCCESS);
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    CHECK(keyval_copies == 1, "Comm_dup called the copy function %d times", keyval_copies);
    int *got = NULL;
    EXPECT(MPI_Comm_get_attr(dup, keyval, &got, &flag), MPI_SUCCESS);
    CHECK(flag && got == &value, "the duplicate lacks the attribute");
    MPI_Errhandler eh;
    EXPECT(MPI_Comm_get_errhandler(dup, &eh), MPI_SUCCESS);
    CHECK(eh == MPI_ERRORS_RETURN, "the duplicate's error handler is not WORLD's");
    EXPECT(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    EXPECT(MPI_Comm_size(dup, &n), MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(dup, &r), MPI_SUCCESS);
    CHECK(n == size && r == rank, "dup: size %d rank %d", n, r);
    int a = rank, b = rank + 1000, got_a = -1, got_b = -1;
    MPI_Request reqs[2];
    MPI_Irecv(&got_b, 1, MPI_INT, MPI_ANY_SOURCE, 0, dup, &reqs[0]);
    MPI_Irecv(&got_a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Send(&a, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Send(&b, 1, MPI_INT, (rank + 1) % size, 0, dup);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    int left = (rank + size - 1) % size;
    CHECK(got_a == left && got_b == left + 1000, "WORLD and its duplicate mixed: %d %d", got_a, got_b);
    /* Split does not copy attributes. */
    MPI_Comm split;
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &split), MPI_SUCCESS);
    EXPECT(MPI_Comm_get_attr(split, keyval, &got, &flag), MPI_SUCCESS);
    CHECK(!flag && keyval_copies == 1, "Comm_split copied an attribute");
    EXPECT(MPI_Comm_free(&split), MPI_SUCCESS);
    EXPECT(MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval), MPI_SUCCESS);
    EXPECT(MPI_Comm_free_keyval(&keyval), MPI_SUCCESS);
    say("Comm_dup: same ranks, WORLD's error handler and attributes (copy function called once), messages apart; "
        "Comm_split copies no attribute");

    saved = dup;
    EXPECT(MPI_Comm_free(&dup), MPI_SUCCESS);
    CHECK(dup == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");
    EXPECT(MPI_Comm_size(saved, &n), MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(&saved), MPI_ERR_COMM);
    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF, null = MPI_COMM_NULL;
    EXPECT(MPI_Comm_free(&world), MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(&self), MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(&null), MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &dup), MPI_ERR_COMM);
    CHECK(world == MPI_COMM_WORLD && self == MPI_COMM_SELF, "a failed Comm_free changed the handle");
    say("Comm_free sets MPI_COMM_NULL; a freed handle, WORLD, SELF and MPI_COMM_NULL are MPI_ERR_COMM");

    /* Many duplicates at once, freed in another order (handles are reused). */
    MPI_Comm many[20];
    for (int i = 0; i < 20; i++) EXPECT(MPI_Comm_dup(i % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, &many[i]), MPI_SUCCESS);
    for (int i = 0; i < 20; i += 2) EXPECT(MPI_Comm_free(&many[i]), MPI_SUCCESS);
    for (int i = 0; i < 20; i += 2) EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &many[i]), MPI_SUCCESS);
    for (int i = 0; i < 20; i++) {
        int s = -1;
        EXPECT(MPI_Comm_size(many[i], &s), MPI_SUCCESS);
        CHECK(s == size, "duplicate %d has size %d", i, s);
        CHECK(compare_comms(many[i], MPI_COMM_WORLD) == MPI_CONGRUENT, "duplicate %d not congruent to WORLD", i);
    }
    for (int i = 19; i >= 0; i--) EXPECT(MPI_Comm_free(&many[i]), MPI_SUCCESS);
    say("20 duplicates, half freed and made again, all congruent to WORLD");
}

static void split(void)
{
    /* Colors rank % 3, keys -rank: each communicator holds its color's ranks from the highest down. */
    MPI_Comm third;
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &third), MPI_SUCCESS);
    int n = -1, r = -1;
    EXPECT(MPI_Comm_size(third, &n), MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(third, &r), MPI_SUCCESS);
    int want_n = (size - rank % 3 + 2) / 3, want_r = (size - 1 - rank) / 3;
    CHECK(n == want_n && r == want_r, "split by rank %% 3: size %d rank %d, expected %d %d", n, r, want_n, want_r);
    char *m = comm_members(third);
    if (rank == 0) printf("unit_comm: Comm_split(rank %% 3, -rank): rank 0's communicator has%s OK\n", m);
    EXPECT(MPI_Comm_free(&third), MPI_SUCCESS);

    /* Only some ranks in a communicator; keys that tie keep the old order. */
    MPI_Comm some;
    int color = rank % 4 == 1 ? MPI_UNDEFINED : 7;
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, color, rank / 2, &some), MPI_SUCCESS);
    CHECK((color == MPI_UNDEFINED) == (some == MPI_COMM_NULL), "MPI_UNDEFINED and MPI_COMM_NULL disagree");
    if (rank == 0) printf("unit_comm: Comm_split(undefined for rank %% 4 == 1, key rank / 2):%s OK\n", comm_members(some));
    if (some != MPI_COMM_NULL) EXPECT(MPI_Comm_free(&some), MPI_SUCCESS);

    /* Split of a split. */
    MPI_Comm halves, quarters;
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &halves), MPI_SUCCESS);
    EXPECT(MPI_Comm_split(halves, rank % 2, size - rank, &quarters), MPI_SUCCESS);
    int sum = -1, count = -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, quarters);
    MPI_Comm_size(quarters, &count);
    int want_sum = 0, want_count = 0;
    for (int i = 0; i < size; i++)
        if ((i < size / 2) == (rank < size / 2) && i % 2 == rank % 2) {
            want_sum += i;
            want_count++;
        }
    CHECK(sum == want_sum && count == want_count, "split of a split: sum %d of %d, expected %d of %d", sum, count,
          want_sum, want_count);
    if (rank == 0) printf("unit_comm: Comm_split of a split: rank 0 with%s OK\n", comm_members(quarters));
    EXPECT(MPI_Comm_free(&quarters), MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&halves), MPI_SUCCESS);

    EXPECT(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &some), MPI_ERR_COMM);
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL), MPI_ERR_ARG);
    say("Comm_split on MPI_COMM_NULL is MPI_ERR_COMM, to a null pointer MPI_ERR_ARG");

    /* Shared memory: every rank alone. */
    MPI_Comm shared;
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared), MPI_SUCCESS);
    EXPECT(MPI_Comm_size(shared, &n), MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(shared, &r), MPI_SUCCESS);
#ifdef NOCMSG_MPI
    /* (MPICH puts the ranks of a node together.) */
    CHECK(n == 1 && r == 0, "split_type shared: size %d rank %d", n, r);
#endif
    CHECK(r >= 0 && r < n, "split_type shared: rank %d of %d", r, n);
    EXPECT(MPI_Comm_free(&shared), MPI_SUCCESS);
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &shared), MPI_ERR_ARG);
#ifdef NOCMSG_MPI
    /* (MPICH 4.0 crashes on MPI_UNDEFINED.) */
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                               &shared),
           MPI_SUCCESS);
    CHECK((rank % 2 == 1) == (shared == MPI_COMM_NULL), "split_type MPI_UNDEFINED gave %s communicator",
          shared == MPI_COMM_NULL ? "no" : "a");
    if (shared != MPI_COMM_NULL) EXPECT(MPI_Comm_free(&shared), MPI_SUCCESS);
    CHECK(compare_comms(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT, "WORLD not itself");
#endif
    say("Comm_split_type(MPI_COMM_TYPE_SHARED) gives each rank a communicator; an unknown type is MPI_ERR_ARG");
}

static void compare(void)
{
    MPI_Comm dup, reversed, parity, self_dup;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed), MPI_SUCCESS);
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity), MPI_SUCCESS);
    EXPECT(MPI_Comm_dup(MPI_COMM_SELF, &self_dup), MPI_SUCCESS);
    struct { MPI_Comm a, b; int want; const char *what; } cases[] = {
        {MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_IDENT, "WORLD vs WORLD"},
        {dup, dup, MPI_IDENT, "dup vs dup"},
        {MPI_COMM_WORLD, dup, MPI_CONGRUENT, "WORLD vs dup"},
        {MPI_COMM_SELF, self_dup, MPI_CONGRUENT, "SELF vs its dup"},
        {reversed, MPI_COMM_WORLD, size > 1 ? MPI_SIMILAR : MPI_CONGRUENT, "reversed split vs WORLD"},
        {MPI_COMM_WORLD, parity, size > 1 ? MPI_UNEQUAL : MPI_CONGRUENT, "WORLD vs parity split"},
        {MPI_COMM_WORLD, MPI_COMM_SELF, size > 1 ? MPI_UNEQUAL : MPI_CONGRUENT, "WORLD vs SELF"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int got = compare_comms(cases[k].a, cases[k].b);
        CHECK(got == cases[k].want, "Comm_compare %s: %s, expected %s", cases[k].what, compare_name(got),
              compare_name(cases[k].want));
        /* Symmetric. */
        CHECK(compare_comms(cases[k].b, cases[k].a) == got, "Comm_compare %s is not symmetric", cases[k].what);
        if (rank == 0) printf("unit_comm: Comm_compare %s: %s OK\n", cases[k].what, compare_name(got));
    }
    int result;
    EXPECT(MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &result), MPI_ERR_COMM);
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &result), MPI_ERR_COMM);
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    say("Comm_compare with MPI_COMM_NULL is MPI_ERR_COMM, with a null result MPI_ERR_ARG");
    MPI_Comm *frees[] = {&dup, &reversed, &parity, &self_dup};
    for (int k = 0; k < 4; k++) EXPECT(MPI_Comm_free(frees[k]), MPI_SUCCESS);
}

static void create(void)
{
    /* The members in the order of the group: here every third rank from the highest down. */
    int n = 0, *ranks = malloc(sizeof(int) * (size_t)size);
    for (int i = size - 1; i >= 0; i -= 3) ranks[n++] = i;
    MPI_Group thirds;
    EXPECT(MPI_Group_incl(world_group, n, ranks, &thirds), MPI_SUCCESS);
    MPI_Comm c;
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, thirds, &c), MPI_SUCCESS);
    int mine = -1;
    EXPECT(MPI_Group_rank(thirds, &mine), MPI_SUCCESS);
    if (mine == MPI_UNDEFINED) {
        CHECK(c == MPI_COMM_NULL, "Comm_create gave a non-member a communicator");
    } else {
        int r = -1, s = -1;
        CHECK(c != MPI_COMM_NULL, "Comm_create gave a member MPI_COMM_NULL");
        EXPECT(MPI_Comm_rank(c, &r), MPI_SUCCESS);
        EXPECT(MPI_Comm_size(c, &s), MPI_SUCCESS);
        CHECK(r == mine && s == n, "Comm_create: rank %d of %d, expected %d of %d", r, s, mine, n);
        MPI_Group g;
        EXPECT(MPI_Comm_group(c, &g), MPI_SUCCESS);
        CHECK(compare_groups(g, thirds) == MPI_IDENT, "the new communicator's group is not the one given");
        EXPECT(MPI_Group_free(&g), MPI_SUCCESS);
        /* It works: the members' world ranks, gathered in the new order. */
        int *all = malloc(sizeof(int) * (size_t)n);
        MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, c);
        for (int i = 0; i < n; i++) CHECK(all[i] == ranks[i], "member %d of the new communicator is %d", i, all[i]);
        free(all);
#ifdef NOCMSG_MPI
        /* (MPICH 4.0 gives MPI_Comm_create's communicators another handler.) */
        MPI_Errhandler eh;
        EXPECT(MPI_Comm_get_errhandler(c, &eh), MPI_SUCCESS);
        CHECK(eh == MPI_ERRORS_RETURN, "the created communicator's error handler is not WORLD's");
        EXPECT(MPI_Errhandler_free(&eh), MPI_SUCCESS);
#endif
        EXPECT(MPI_Comm_free(&c), MPI_SUCCESS);
    }
    if (rank == 0) printf("unit_comm: Comm_create from the group%s: members ordered as the group, others get "
                          "MPI_COMM_NULL OK\n", members(thirds));

    /* Created from a communicator that is not WORLD. */
    MPI_Comm evens;
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 0, rank, &evens), MPI_SUCCESS);
    if (evens != MPI_COMM_NULL) {
        MPI_Group eg, top;
        int en;
        EXPECT(MPI_Comm_group(evens, &eg), MPI_SUCCESS);
        EXPECT(MPI_Group_size(eg, &en), MPI_SUCCESS);
        int range[1][3] = {{en - 1, en / 2, -1}};
        EXPECT(MPI_Group_range_incl(eg, 1, range, &top), MPI_SUCCESS);
        EXPECT(MPI_Comm_create(evens, top, &c), MPI_SUCCESS);
        int in_top;
        EXPECT(MPI_Group_rank(top, &in_top), MPI_SUCCESS);
        CHECK((in_top == MPI_UNDEFINED) == (c == MPI_COMM_NULL), "Comm_create on a split");
        if (rank == 0) printf("unit_comm: Comm_create on the even ranks' communicator with%s OK\n", members(top));
        if (c != MPI_COMM_NULL) EXPECT(MPI_Comm_free(&c), MPI_SUCCESS);
        /* A group with ranks outside the communicator. */
        if (size > 1) EXPECT(MPI_Comm_create(evens, world_group, &c), MPI_ERR_GROUP);
        EXPECT(MPI_Group_free(&eg), MPI_SUCCESS);
        EXPECT(MPI_Group_free(&top), MPI_SUCCESS);
        EXPECT(MPI_Comm_free(&evens), MPI_SUCCESS);
    }
    /* Every rank of SELF is in the world group only with one rank. */
    if (size > 1) EXPECT(MPI_Comm_create(MPI_COMM_SELF, world_group, &c), MPI_ERR_GROUP);
    say("Comm_create with a group that has ranks outside the communicator is MPI_ERR_GROUP");

    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c), MPI_SUCCESS);
    CHECK(c == MPI_COMM_NULL, "Comm_create(MPI_GROUP_EMPTY) gave a communicator");
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, world_group, &c), MPI_SUCCESS);
    CHECK(compare_comms(c, MPI_COMM_WORLD) == MPI_CONGRUENT, "Comm_create(WORLD's group) is not congruent");
    EXPECT(MPI_Comm_free(&c), MPI_SUCCESS);
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP);
    EXPECT(MPI_Comm_create(MPI_COMM_NULL, world_group, &c), MPI_ERR_COMM);
    say("Comm_create: MPI_GROUP_EMPTY gives MPI_COMM_NULL, WORLD's group a congruent communicator; "
        "MPI_GROUP_NULL is MPI_ERR_GROUP, MPI_COMM_NULL MPI_ERR_COMM");
    EXPECT(MPI_Group_free(&thirds), MPI_SUCCESS);
    free(ranks);
}

/* ---- groups ---- */

static void group_basics(void)
{
    int n = -1, r = -1;
    EXPECT(MPI_Group_size(world_group, &n), MPI_SUCCESS);
    EXPECT(MPI_Group_rank(world_group, &r), MPI_SUCCESS);
    CHECK(n == size && r == rank, "WORLD's group: size %d rank %d", n, r);
    EXPECT(MPI_Group_size(MPI_GROUP_EMPTY, &n), MPI_SUCCESS);
    EXPECT(MPI_Group_rank(MPI_GROUP_EMPTY, &r), MPI_SUCCESS);
    CHECK(n == 0 && r == MPI_UNDEFINED, "MPI_GROUP_EMPTY: size %d rank %d", n, r);
    MPI_Group self;
    EXPECT(MPI_Comm_group(MPI_COMM_SELF, &self), MPI_SUCCESS);
    EXPECT(MPI_Group_size(self, &n), MPI_SUCCESS);
    EXPECT(MPI_Group_rank(self, &r), MPI_SUCCESS);
    CHECK(n == 1 && r == 0, "SELF's group: size %d rank %d", n, r);
    int zero = 0, w = -1;
    EXPECT(MPI_Group_translate_ranks(self, 1, &zero, world_group, &w), MPI_SUCCESS);
    CHECK(w == rank, "SELF's group holds world rank %d", w);
    EXPECT(MPI_Group_free(&self), MPI_SUCCESS);
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP);
    EXPECT(MPI_Group_rank(MPI_GROUP_NULL, &r), MPI_ERR_GROUP);
    EXPECT(MPI_Group_size(world_group, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_group(MPI_COMM_NULL, &self), MPI_ERR_COMM);
    CHECK(MPI_Group_f2c(MPI_Group_c2f(world_group)) == world_group &&
              MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY,
          "Group_c2f/f2c do not round-trip");
    say("Group_size/rank of WORLD, SELF and MPI_GROUP_EMPTY (rank MPI_UNDEFINED); MPI_GROUP_NULL is MPI_ERR_GROUP; "
        "Group_c2f/f2c round-trip");

    /* Group errors go to WORLD's error handler. */
    MPI_Errhandler counter;
    EXPECT(MPI_Comm_create_errhandler(count_error, &counter), MPI_SUCCESS);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, counter), MPI_SUCCESS);
    int before = errors_seen;
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP);
    int bad[1] = {size};
    MPI_Group g;
    EXPECT(MPI_Group_incl(world_group, 1, bad, &g), MPI_ERR_RANK);
    int dims[2] = {-1, 0};
    EXPECT(MPI_Dims_create(4, 2, dims), MPI_ERR_DIMS);
    CHECK(errors_seen == before + 3, "%d of 3 group and Dims_create errors reached WORLD's handler",
          errors_seen - before);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    EXPECT(MPI_Errhandler_free(&counter), MPI_SUCCESS);
    say("group and Dims_create errors are raised on MPI_COMM_WORLD");
}

static void incl_excl(void)
{
    /* incl: any order; excl: the rest in group order. */
    int n = 0, *ranks = malloc(sizeof(int) * (size_t)size);
    for (int i = 1; i < size; i += 2) ranks[n++] = i;
    for (int i = 0; i < size; i += 2) ranks[n++] = i;
    MPI_Group odd_even, all_but, empty;
    EXPECT(MPI_Group_incl(world_group, n, ranks, &odd_even), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_incl odd ranks then even ones:%s OK\n", members(odd_even));
    int r = -1;
    EXPECT(MPI_Group_rank(odd_even, &r), MPI_SUCCESS);
    CHECK(r == (rank % 2 ? rank / 2 : size / 2 + rank / 2), "rank in the odd-even group: %d", r);
    int excl[3] = {size - 1, 0, size / 2}, nexcl = size >= 3 ? 3 : size;
    EXPECT(MPI_Group_excl(odd_even, nexcl, excl, &all_but), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_excl of its ranks size-1, 0, size/2:%s OK\n", members(all_but));
    EXPECT(MPI_Group_incl(world_group, 0, NULL, &empty), MPI_SUCCESS);
    CHECK(empty == MPI_GROUP_EMPTY, "Group_incl of no rank is not MPI_GROUP_EMPTY");
    MPI_Group same;
    EXPECT(MPI_Group_excl(world_group, 0, NULL, &same), MPI_SUCCESS);
    CHECK(compare_groups(same, world_group) == MPI_IDENT, "Group_excl of no rank is not the group");
    EXPECT(MPI_Group_free(&same), MPI_SUCCESS);
    for (int i = 0; i < size; i++) ranks[i] = size - 1 - i;
    EXPECT(MPI_Group_excl(world_group, size, ranks, &empty), MPI_SUCCESS);
    int en = -1;
    EXPECT(MPI_Group_size(empty, &en), MPI_SUCCESS);
    CHECK(en == 0, "Group_excl of every rank: size %d", en);
    if (empty != MPI_GROUP_EMPTY) EXPECT(MPI_Group_free(&empty), MPI_SUCCESS);
    say("Group_incl of no rank is MPI_GROUP_EMPTY, Group_excl of none the same group, of all an empty group");

    MPI_Group g;
    int bad[2] = {size, 0};
    EXPECT(MPI_Group_incl(world_group, 1, bad, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_excl(world_group, 1, bad, &g), MPI_ERR_RANK);
    bad[0] = -1;
    EXPECT(MPI_Group_incl(world_group, 1, bad, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_excl(world_group, 1, bad, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_incl(world_group, -1, ranks, &g), MPI_ERR_ARG);
    EXPECT(MPI_Group_excl(world_group, -1, ranks, &g), MPI_ERR_ARG);
    EXPECT(MPI_Group_incl(MPI_GROUP_NULL, 0, ranks, &g), MPI_ERR_GROUP);
    EXPECT(MPI_Group_excl(MPI_GROUP_NULL, 0, ranks, &g), MPI_ERR_GROUP);
#ifdef NOCMSG_MPI
    /* Repeated ranks (MPICH 4.0 does not check). */
    bad[0] = 0;
    EXPECT(MPI_Group_incl(world_group, 2, bad, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_excl(world_group, 2, bad, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_incl(world_group, 1, NULL, &g), MPI_ERR_ARG);
#endif
    say("Group_incl/excl: a rank outside the group is MPI_ERR_RANK, n < 0 MPI_ERR_ARG, MPI_GROUP_NULL MPI_ERR_GROUP");
    EXPECT(MPI_Group_free(&odd_even), MPI_SUCCESS);
    EXPECT(MPI_Group_free(&all_but), MPI_SUCCESS);
    free(ranks);
}

static void ranges(void)
{
    MPI_Group g;
    /* Every other rank from the top down, then rank 0 if it is not there yet: the ranges in order. */
    int two[2][3] = {{size - 1, 1, -2}, {0, 0, 1}};
    int ntwo = size % 2 ? 1 : 2; /* with an odd size the first range ends at 0 already */
    if (size % 2) two[0][1] = 0;
    EXPECT(MPI_Group_range_incl(world_group, ntwo, two, &g), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_range_incl (size-1, 1 or 0, -2) then (0, 0, 1):%s OK\n", members(g));
    EXPECT(MPI_Group_free(&g), MPI_SUCCESS);
    EXPECT(MPI_Group_range_excl(world_group, ntwo, two, &g), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_range_excl of the same:%s OK\n", members(g));
    if (g != MPI_GROUP_EMPTY) EXPECT(MPI_Group_free(&g), MPI_SUCCESS);
    /* A stride past last: only first. */
    int past[1][3] = {{0, 100, 200}};
    EXPECT(MPI_Group_range_incl(world_group, 1, past, &g), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_range_incl (0, 100, 200):%s OK\n", members(g));
    EXPECT(MPI_Group_free(&g), MPI_SUCCESS);
    /* The same as incl with (i, i, 1) for each rank: here the first three ranks (fewer if there are fewer) backwards. */
    int triplets[3][3], list[3], n = size >= 3 ? 3 : size;
    for (int i = 0; i < n; i++) {
        list[i] = n - 1 - i;
        triplets[i][0] = triplets[i][1] = list[i];
        triplets[i][2] = 1;
    }
    MPI_Group by_incl;
    EXPECT(MPI_Group_range_incl(world_group, n, triplets, &g), MPI_SUCCESS);
    EXPECT(MPI_Group_incl(world_group, n, list, &by_incl), MPI_SUCCESS);
    CHECK(compare_groups(g, by_incl) == MPI_IDENT, "range_incl of (i, i, 1) differs from incl");
    EXPECT(MPI_Group_free(&g), MPI_SUCCESS);
    EXPECT(MPI_Group_free(&by_incl), MPI_SUCCESS);
    EXPECT(MPI_Group_range_incl(world_group, 0, two, &g), MPI_SUCCESS);
    CHECK(g == MPI_GROUP_EMPTY, "range_incl of no range is not MPI_GROUP_EMPTY");
    int whole[1][3] = {{0, size - 1, 1}};
    EXPECT(MPI_Group_range_excl(world_group, 1, whole, &g), MPI_SUCCESS);
    int en = -1;
    EXPECT(MPI_Group_size(g, &en), MPI_SUCCESS);
    CHECK(en == 0, "range_excl of everything: size %d", en);
    if (g != MPI_GROUP_EMPTY) EXPECT(MPI_Group_free(&g), MPI_SUCCESS);
    say("Group_range_incl of (i, i, 1) triplets equals Group_incl; no range gives MPI_GROUP_EMPTY");

    /* Faults, all MPI_ERR_ARG as in MPICH. */
    int bad[2][3];
    struct { int first, last, stride; const char *what; } faults[] = {
        {0, size - 1, 0, "stride 0"},
        {0, size, 1, "last outside"},
        {-1, 0, 1, "first outside"},
        {size - 1, 0, 1, "stride away from last"},
        {0, size - 1, -1, "negative stride away from last"},
        {size - 1, -1, -1, "negative stride reaching -1"},
    };
    for (size_t k = 0; k < sizeof faults / sizeof faults[0]; k++) {
        if (size == 1 && (k == 3 || k == 4)) continue; /* first == last: a valid range */
        bad[0][0] = faults[k].first;
        bad[0][1] = faults[k].last;
        bad[0][2] = faults[k].stride;
        int err = MPI_Group_range_incl(world_group, 1, bad, &g);
        CHECK(strcmp(class_name(err), "MPI_ERR_ARG") == 0, "range_incl with %s: %s", faults[k].what,
              class_name(err));
        err = MPI_Group_range_excl(world_group, 1, bad, &g);
        CHECK(strcmp(class_name(err), "MPI_ERR_ARG") == 0, "range_excl with %s: %s", faults[k].what,
              class_name(err));
    }
    /* A rank in two ranges. */
    int twice[2][3] = {{0, 0, 1}, {0, size - 1, 1}};
    EXPECT(MPI_Group_range_incl(world_group, 2, twice, &g), MPI_ERR_ARG);
    EXPECT(MPI_Group_range_excl(world_group, 2, twice, &g), MPI_ERR_ARG);
    EXPECT(MPI_Group_range_incl(world_group, -1, twice, &g), MPI_ERR_ARG);
    EXPECT(MPI_Group_range_excl(world_group, -1, twice, &g), MPI_ERR_ARG);
    EXPECT(MPI_Group_range_incl(MPI_GROUP_NULL, 1, twice, &g), MPI_ERR_GROUP);
    say("Group_range_incl/excl: stride 0, ranks outside, a stride away from last, a rank twice, n < 0 are "
        "MPI_ERR_ARG");
}

static void translate(void)
{
    /* Into the reversed group: rank i is size-1-i; MPI_PROC_NULL stays; into the evens, odd ranks are undefined. */
    int range[1][3] = {{size - 1, 0, -1}}, evens_range[1][3] = {{0, size - 1, 2}};
    MPI_Group reversed, evens;
    EXPECT(MPI_Group_range_incl(world_group, 1, range, &reversed), MPI_SUCCESS);
    EXPECT(MPI_Group_range_incl(world_group, 1, evens_range, &evens), MPI_SUCCESS);
    int *in = malloc(sizeof(int) * (size_t)(size + 1)), *out = malloc(sizeof(int) * (size_t)(size + 1));
    for (int i = 0; i < size; i++) in[i] = i;
    in[size] = MPI_PROC_NULL;
    EXPECT(MPI_Group_translate_ranks(world_group, size + 1, in, reversed, out), MPI_SUCCESS);
    for (int i = 0; i < size; i++) CHECK(out[i] == size - 1 - i, "translate %d into reversed: %d", i, out[i]);
    CHECK(out[size] == MPI_PROC_NULL, "MPI_PROC_NULL translated to %d", out[size]);
    EXPECT(MPI_Group_translate_ranks(world_group, size + 1, in, evens, out), MPI_SUCCESS);
    char line[16 * 12] = "", buf[16];
    for (int i = 0; i <= size; i++) {
        CHECK(out[i] == (i == size ? MPI_PROC_NULL : i % 2 ? MPI_UNDEFINED : i / 2), "translate %d into evens: %d",
              in[i], out[i]);
        snprintf(line + strlen(line), sizeof line - strlen(line), " %s", rank_text(out[i], buf));
    }
    if (rank == 0) printf("unit_comm: Group_translate_ranks 0..size-1, PROC_NULL into the evens:%s OK\n", line);
    EXPECT(MPI_Group_translate_ranks(evens, 1, in, MPI_GROUP_EMPTY, out), MPI_SUCCESS);
    CHECK(out[0] == MPI_UNDEFINED, "translate into MPI_GROUP_EMPTY: %d", out[0]);
    EXPECT(MPI_Group_translate_ranks(world_group, 0, NULL, evens, NULL), MPI_SUCCESS);
    in[0] = size;
    EXPECT(MPI_Group_translate_ranks(world_group, 1, in, evens, out), MPI_ERR_RANK);
    in[0] = -5;
    EXPECT(MPI_Group_translate_ranks(world_group, 1, in, evens, out), MPI_ERR_RANK);
    in[0] = 0;
    EXPECT(MPI_Group_translate_ranks(MPI_GROUP_EMPTY, 1, in, evens, out), MPI_ERR_RANK);
    EXPECT(MPI_Group_translate_ranks(world_group, -1, in, evens, out), MPI_ERR_ARG);
    EXPECT(MPI_Group_translate_ranks(MPI_GROUP_NULL, 1, in, evens, out), MPI_ERR_GROUP);
    EXPECT(MPI_Group_translate_ranks(world_group, 1, in, MPI_GROUP_NULL, out), MPI_ERR_GROUP);
    say("Group_translate_ranks: into MPI_GROUP_EMPTY undefined; a rank outside the first group is MPI_ERR_RANK, "
        "n < 0 MPI_ERR_ARG");
    EXPECT(MPI_Group_free(&reversed), MPI_SUCCESS);
    EXPECT(MPI_Group_free(&evens), MPI_SUCCESS);
    free(in);
    free(out);
}

static void set_operations(void)
{
    /* a: the odd ranks from the top down; b: the multiples of 3 from the bottom up. */
    int na = 0, nb = 0, *ra = malloc(sizeof(int) * (size_t)size), *rb = malloc(sizeof(int) * (size_t)size);
    for (int i = size - 1; i >= 0; i--)
        if (i % 2) ra[na++] = i;
    for (int i = 0; i < size; i += 3) rb[nb++] = i;
    MPI_Group a, b, u, in, d, d2;
    EXPECT(MPI_Group_incl(world_group, na, ra, &a), MPI_SUCCESS);
    EXPECT(MPI_Group_incl(world_group, nb, rb, &b), MPI_SUCCESS);
    char in_a[16 * 8];
    strcpy(in_a, members(a));
    if (rank == 0) printf("unit_comm: a = odd ranks down:%s, b = multiples of 3 up:%s OK\n", in_a, members(b));
    EXPECT(MPI_Group_union(a, b, &u), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_union(a, b):%s OK\n", members(u));
    EXPECT(MPI_Group_free(&u), MPI_SUCCESS);
    EXPECT(MPI_Group_union(b, a, &u), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_union(b, a):%s OK\n", members(u));
    EXPECT(MPI_Group_intersection(a, b, &in), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_intersection(a, b):%s OK\n", members(in));
    if (in != MPI_GROUP_EMPTY) EXPECT(MPI_Group_free(&in), MPI_SUCCESS);
    EXPECT(MPI_Group_intersection(u, a, &in), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_intersection(b u a, a):%s OK\n", members(in));
    EXPECT(MPI_Group_difference(a, b, &d), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_difference(a, b):%s OK\n", members(d));
    EXPECT(MPI_Group_difference(u, a, &d2), MPI_SUCCESS);
    if (rank == 0) printf("unit_comm: Group_difference(b u a, a):%s OK\n", members(d2));
    MPI_Group b_minus_a;
    EXPECT(MPI_Group_difference(b, a, &b_minus_a), MPI_SUCCESS);
    CHECK(compare_groups(d2, b_minus_a) == MPI_IDENT, "(b u a) - a is not b - a");
    if (b_minus_a != MPI_GROUP_EMPTY) EXPECT(MPI_Group_free(&b_minus_a), MPI_SUCCESS);
    /* Same members, but a u b starts with a's first (odd) rank and b u a with 0, unless a is empty (one rank). */
    MPI_Group u2;
    EXPECT(MPI_Group_union(a, b, &u2), MPI_SUCCESS);
    int got = compare_groups(u, u2);
    CHECK(got == (na ? MPI_SIMILAR : MPI_IDENT), "Group_compare(b u a, a u b): %s", compare_name(got));
    EXPECT(MPI_Group_free(&u2), MPI_SUCCESS);
    MPI_Group e;
    EXPECT(MPI_Group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &e), MPI_SUCCESS);
    CHECK(e == MPI_GROUP_EMPTY, "union of empty groups is not MPI_GROUP_EMPTY");
    EXPECT(MPI_Group_intersection(world_group, MPI_GROUP_EMPTY, &e), MPI_SUCCESS);
    CHECK(e == MPI_GROUP_EMPTY, "intersection with MPI_GROUP_EMPTY is not MPI_GROUP_EMPTY");
    EXPECT(MPI_Group_difference(world_group, world_group, &e), MPI_SUCCESS);
    CHECK(e == MPI_GROUP_EMPTY, "a group minus itself is not MPI_GROUP_EMPTY");
    EXPECT(MPI_Group_union(world_group, MPI_GROUP_EMPTY, &e), MPI_SUCCESS);
    CHECK(compare_groups(e, world_group) == MPI_IDENT, "union with MPI_GROUP_EMPTY changed the group");
    EXPECT(MPI_Group_free(&e), MPI_SUCCESS);
    EXPECT(MPI_Group_union(world_group, MPI_GROUP_NULL, &e), MPI_ERR_GROUP);
    EXPECT(MPI_Group_intersection(MPI_GROUP_NULL, world_group, &e), MPI_ERR_GROUP);
    EXPECT(MPI_Group_difference(world_group, MPI_GROUP_NULL, &e), MPI_ERR_GROUP);
    say("set operations with MPI_GROUP_EMPTY give MPI_GROUP_EMPTY or the other group; MPI_GROUP_NULL is "
        "MPI_ERR_GROUP");

    /* compare */
    int r1[1][3] = {{size - 1, 0, -1}};
    MPI_Group rev, w2;
    EXPECT(MPI_Group_range_incl(world_group, 1, r1, &rev), MPI_SUCCESS);
    EXPECT(MPI_Comm_group(MPI_COMM_WORLD, &w2), MPI_SUCCESS);
    CHECK(compare_groups(world_group, w2) == MPI_IDENT, "WORLD's group twice: not MPI_IDENT");
    CHECK(compare_groups(world_group, rev) == (size > 1 ? MPI_SIMILAR : MPI_IDENT), "reversed: %s",
          compare_name(compare_groups(world_group, rev)));
    CHECK(compare_groups(world_group, a) == MPI_UNEQUAL, "odd ranks vs all: %s",
          compare_name(compare_groups(world_group, a)));
    CHECK(compare_groups(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY) == MPI_IDENT, "MPI_GROUP_EMPTY vs itself");
    int res;
    EXPECT(MPI_Group_compare(world_group, MPI_GROUP_NULL, &res), MPI_ERR_GROUP);
    EXPECT(MPI_Group_compare(world_group, world_group, NULL), MPI_ERR_ARG);
    say("Group_compare: MPI_IDENT, MPI_SIMILAR (reversed), MPI_UNEQUAL; MPI_GROUP_NULL is MPI_ERR_GROUP");

    MPI_Group *frees[] = {&a, &b, &u, &in, &d, &d2, &rev, &w2};
    for (int k = 0; k < 8; k++) {
        if (*frees[k] == MPI_GROUP_EMPTY) continue;
        EXPECT(MPI_Group_free(frees[k]), MPI_SUCCESS);
        CHECK(*frees[k] == MPI_GROUP_NULL, "Group_free did not set MPI_GROUP_NULL");
    }
    free(ra);
    free(rb);
}

static void group_free(void)
{
    MPI_Group g = MPI_GROUP_EMPTY, null = MPI_GROUP_NULL;
    EXPECT(MPI_Group_free(&g), MPI_SUCCESS);
    CHECK(g == MPI_GROUP_NULL, "freeing MPI_GROUP_EMPTY did not set MPI_GROUP_NULL");
    int n = -1;
    EXPECT(MPI_Group_size(MPI_GROUP_EMPTY, &n), MPI_SUCCESS);
    CHECK(n == 0, "MPI_GROUP_EMPTY gone after a free");
    EXPECT(MPI_Group_free(&null), MPI_ERR_GROUP);
    EXPECT(MPI_Group_free(NULL), MPI_ERR_ARG);
    /* Many groups; freed handles are reused (not visible) and the others stay intact. */
    MPI_Group many[40];
    for (int i = 0; i < 40; i++) {
        int r = i % size;
        EXPECT(MPI_Group_incl(world_group, 1, &r, &many[i]), MPI_SUCCESS);
    }
    for (int i = 0; i < 40; i += 3) EXPECT(MPI_Group_free(&many[i]), MPI_SUCCESS);
    for (int i = 0; i < 40; i += 3) EXPECT(MPI_Comm_group(MPI_COMM_SELF, &many[i]), MPI_SUCCESS);
    for (int i = 0; i < 40; i++) {
        int w = -1, zero = 0;
        EXPECT(MPI_Group_translate_ranks(many[i], 1, &zero, world_group, &w), MPI_SUCCESS);
        CHECK(w == (i % 3 == 0 ? rank : i % size), "group %d holds world rank %d", i, w);
    }
    for (int i = 0; i < 40; i++) EXPECT(MPI_Group_free(&many[i]), MPI_SUCCESS);
#ifdef NOCMSG_MPI
    /* A freed handle (MPICH does not always notice). */
    MPI_Group gone;
    EXPECT(MPI_Comm_group(MPI_COMM_WORLD, &gone), MPI_SUCCESS);
    MPI_Group saved = gone;
    EXPECT(MPI_Group_free(&gone), MPI_SUCCESS);
    EXPECT(MPI_Group_size(saved, &n), MPI_ERR_GROUP);
#endif
    say("Group_free of MPI_GROUP_EMPTY sets MPI_GROUP_NULL and the group stays; MPI_GROUP_NULL is MPI_ERR_GROUP; "
        "40 groups, a third freed and made again");
}

/* ---- Cartesian topologies ---- */

static void dims_create(void)
{
    /* nnodes 1..48 in 2, 3 and 4 dimensions, as lines of 12. */
    for (int nd = 2; nd <= 4; nd++)
        for (int first = 1; first <= 48; first += 12) {
            char line[512] = "";
            for (int nn = first; nn < first + 12; nn++) {
                int dims[4] = {0, 0, 0, 0};
                EXPECT(MPI_Dims_create(nn, nd, dims), MPI_SUCCESS);
                snprintf(line + strlen(line), sizeof line - strlen(line), " %d=", nn);
                for (int i = 0; i < nd; i++)
                    snprintf(line + strlen(line), sizeof line - strlen(line), "%s%d", i ? "x" : "", dims[i]);
            }
            if (rank == 0) printf("unit_comm: Dims_create %dd:%s OK\n", nd, line);
        }
    /* Larger and awkward numbers in 1 to 7 dimensions. */
    int big[] = {60, 64, 72, 96, 100, 120, 128, 210, 360, 720, 1000, 1024, 2310, 4096, 30030, 65536, 362880,
                 1000000, 988027, 9699690, 1 << 30, 2147483646};
    for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
        char line[512] = "";
        for (int nd = 1; nd <= 7; nd++) {
            int dims[7] = {0};
            EXPECT(MPI_Dims_create(big[k], nd, dims), MPI_SUCCESS);
            snprintf(line + strlen(line), sizeof line - strlen(line), " ");
            for (int i = 0; i < nd; i++)
                snprintf(line + strlen(line), sizeof line - strlen(line), "%s%d", i ? "x" : "", dims[i]);
        }
        if (rank == 0) printf("unit_comm: Dims_create %d in 1..7d:%s OK\n", big[k], line);
    }
    /* Fixed dimensions stay; the free ones get the rest, non-increasing. */
    int fixed[][4] = {{0, 2, 0, 0}, {3, 0, 0, 0}, {0, 0, 5, 0}, {2, 0, 2, 0}, {0, 1, 0, 0}, {4, 0, 0, 1}, {2, 3, 2, 5}};
    int nnodes[] = {24, 60, 120, 16, 48};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
        char line[512] = "";
        for (size_t j = 0; j < sizeof nnodes / sizeof nnodes[0]; j++) {
            int dims[4];
            memcpy(dims, fixed[k], sizeof dims);
            int err = MPI_Dims_create(nnodes[j], 4, dims);
            if (err == MPI_SUCCESS) {
                /* (With every entry fixed, only divisibility is checked, as in MPICH.) */
                int all_fixed = fixed[k][0] && fixed[k][1] && fixed[k][2] && fixed[k][3];
                CHECK(all_fixed || (long long)dims[0] * dims[1] * dims[2] * dims[3] == nnodes[j], "product");
                for (int i = 0; i < 4; i++) CHECK(!fixed[k][i] || dims[i] == fixed[k][i], "fixed entry changed");
                snprintf(line + strlen(line), sizeof line - strlen(line), " %d=%dx%dx%dx%d", nnodes[j], dims[0],
                         dims[1], dims[2], dims[3]);
            } else {
                CHECK(strcmp(class_name(err), "MPI_ERR_DIMS") == 0, "Dims_create(%d) with fixed entries: %s",
                      nnodes[j], class_name(err));
                snprintf(line + strlen(line), sizeof line - strlen(line), " %d=MPI_ERR_DIMS", nnodes[j]);
            }
        }
        if (rank == 0)
            printf("unit_comm: Dims_create with %d,%d,%d,%d:%s OK\n", fixed[k][0], fixed[k][1], fixed[k][2],
                   fixed[k][3], line);
    }
    int dims[3] = {0, 0, 0};
    EXPECT(MPI_Dims_create(-1, 2, dims), MPI_ERR_ARG);
    EXPECT(MPI_Dims_create(4, -1, dims), MPI_ERR_ARG);
    EXPECT(MPI_Dims_create(4, 0, dims), MPI_SUCCESS);
    dims[0] = -2;
    EXPECT(MPI_Dims_create(4, 2, dims), MPI_ERR_DIMS);
    dims[0] = 3, dims[1] = 0;
    EXPECT(MPI_Dims_create(4, 2, dims), MPI_ERR_DIMS);
    dims[0] = 2, dims[1] = 3;
    EXPECT(MPI_Dims_create(4, 2, dims), MPI_ERR_DIMS);
    dims[0] = 2, dims[1] = 2;
    EXPECT(MPI_Dims_create(4, 2, dims), MPI_SUCCESS);
    CHECK(dims[0] == 2 && dims[1] == 2, "all fixed: %d %d", dims[0], dims[1]);
#ifdef NOCMSG_MPI
    dims[0] = dims[1] = 0; /* (MPICH never returns) */
    EXPECT(MPI_Dims_create(0, 2, dims), MPI_ERR_ARG);
#endif
    say("Dims_create: negative nnodes or ndims MPI_ERR_ARG, a negative entry or nnodes not divisible by the fixed "
        "ones MPI_ERR_DIMS, ndims 0 and all fixed fine");
}

/* Everything about one Cartesian communicator of `nd` dimensions: every rank's coordinates, ranks and shifts. */
static void check_cart(MPI_Comm cart, int nd, const int *dims, const int *periods, const char *what)
{
    int status = -1, got_nd = -1, n = -1, me = -1;
    EXPECT(MPI_Topo_test(cart, &status), MPI_SUCCESS);
    EXPECT(MPI_Cartdim_get(cart, &got_nd), MPI_SUCCESS);
    EXPECT(MPI_Comm_size(cart, &n), MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(cart, &me), MPI_SUCCESS);
    int points = 1;
    for (int i = 0; i < nd; i++) points *= dims[i];
    CHECK(status == MPI_CART && got_nd == nd && n == points, "%s: Topo_test %d, %d dimensions, size %d", what, status,
          got_nd, n);
    int gd[8], gp[8], gc[8], c[8];
    EXPECT(MPI_Cart_get(cart, nd, gd, gp, gc), MPI_SUCCESS);
    for (int i = 0, stride = points; i < nd; i++) {
        stride /= dims[i];
        CHECK(gd[i] == dims[i] && !gp[i] == !periods[i], "%s: Cart_get dimension %d: %d periodic %d", what, i, gd[i],
              gp[i]);
        CHECK(gc[i] == me / stride % dims[i], "%s: rank %d's coordinate %d is %d (row-major)", what, me, i, gc[i]);
    }
    for (int r = 0; r < n; r++) {
        int back = -1;
        EXPECT(MPI_Cart_coords(cart, r, nd, c), MPI_SUCCESS);
        EXPECT(MPI_Cart_rank(cart, c, &back), MPI_SUCCESS);
        CHECK(back == r, "%s: Cart_rank(Cart_coords(%d)) = %d", what, r, back);
    }
    /* Shifts: by +1 and by -2 in each dimension; a message goes to dest and comes from source. */
    for (int i = 0; i < nd; i++) {
        for (int disp = -2; disp <= 1; disp += 3) {
            int src = -9, dst = -9;
            EXPECT(MPI_Cart_shift(cart, i, disp, &src, &dst), MPI_SUCCESS);
            for (int s = -1; s <= 1; s += 2) {
                int x = gc[i] + s * disp, want;
                if (periods[i]) x = ((x % dims[i]) + dims[i]) % dims[i];
                if (x < 0 || x >= dims[i]) {
                    want = MPI_PROC_NULL;
                } else {
                    memcpy(c, gc, sizeof(int) * (size_t)nd);
                    c[i] = x;
                    EXPECT(MPI_Cart_rank(cart, c, &want), MPI_SUCCESS);
                }
                CHECK((s > 0 ? dst : src) == want, "%s: Cart_shift(%d, %d) %s %d, expected %d", what, i, disp,
                      s > 0 ? "dest" : "source", s > 0 ? dst : src, want);
            }
            int out = me, in = -1;
            MPI_Sendrecv(&out, 1, MPI_INT, dst, 5, &in, 1, MPI_INT, src, 5, cart, MPI_STATUS_IGNORE);
            CHECK(in == (src == MPI_PROC_NULL ? -1 : src), "%s: shift (%d, %d) brought %d from %d", what, i, disp, in,
                  src);
        }
        int src = -9, dst = -9;
        EXPECT(MPI_Cart_shift(cart, i, 0, &src, &dst), MPI_SUCCESS);
        CHECK(src == me && dst == me, "%s: shift by 0: %d %d", what, src, dst);
    }
}

/* The neighbours of every grid rank in dimension `dim`, gathered at rank 0, as " 0:src>dst ...". */
static void print_shifts(MPI_Comm cart, int dim, int disp, const char *what)
{
    int n, me, pair[2];
    MPI_Comm_size(cart, &n);
    MPI_Comm_rank(cart, &me);
    EXPECT(MPI_Cart_shift(cart, dim, disp, &pair[0], &pair[1]), MPI_SUCCESS);
    int *all = malloc(sizeof(int) * 2 * (size_t)n);
    MPI_Gather(pair, 2, MPI_INT, all, 2, MPI_INT, 0, cart);
    if (me == 0) {
        char line[16 * 32] = "", a[16], b[16];
        for (int r = 0; r < n; r++)
            snprintf(line + strlen(line), sizeof line - strlen(line), " %d:%s>%s", r, rank_text(all[2 * r], a),
                     rank_text(all[2 * r + 1], b));
        printf("unit_comm: %s Cart_shift(%d, %d):%s OK\n", what, dim, disp, line);
    }
    free(all);
}

static void cartesian(void)
{
    /* 2-d, periodic in the first dimension only. */
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
    EXPECT(MPI_Dims_create(size, 2, dims), MPI_SUCCESS);
    MPI_Comm grid;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid), MPI_SUCCESS);
    CHECK(grid != MPI_COMM_NULL, "Cart_create with every rank gave MPI_COMM_NULL");
    CHECK(compare_comms(grid, MPI_COMM_WORLD) == MPI_CONGRUENT, "the grid is not congruent to WORLD");
    check_cart(grid, 2, dims, periods, "2-d grid");
    if (rank == 0) printf("unit_comm: Cart_create %dx%d periods 1,0: coordinates, ranks and shifts OK\n", dims[0],
                          dims[1]);
    print_shifts(grid, 0, 1, "2-d");
    print_shifts(grid, 1, -1, "2-d");
    /* Coordinates wrap in a periodic dimension; outside a non-periodic one they are MPI_ERR_ARG (as MPICH). */
    int c[3] = {-1, 0, 0}, r = -1, want = -1;
    EXPECT(MPI_Cart_rank(grid, c, &r), MPI_SUCCESS);
    c[0] = dims[0] - 1;
    EXPECT(MPI_Cart_rank(grid, c, &want), MPI_SUCCESS);
    CHECK(r == want, "coordinate -1 in the periodic dimension: rank %d, expected %d", r, want);
    c[0] = 2 * dims[0] + 1;
    EXPECT(MPI_Cart_rank(grid, c, &r), MPI_SUCCESS);
    c[0] = 1 % dims[0];
    EXPECT(MPI_Cart_rank(grid, c, &want), MPI_SUCCESS);
    CHECK(r == want, "coordinate 2*dims+1 in the periodic dimension: rank %d, expected %d", r, want);
    c[0] = 0, c[1] = dims[1];
    EXPECT(MPI_Cart_rank(grid, c, &r), MPI_ERR_ARG);
    c[1] = -1;
    EXPECT(MPI_Cart_rank(grid, c, &r), MPI_ERR_ARG);
    EXPECT(MPI_Cart_coords(grid, size, 2, c), MPI_ERR_RANK);
    EXPECT(MPI_Cart_coords(grid, -1, 2, c), MPI_ERR_RANK);
    EXPECT(MPI_Cart_coords(grid, 0, 1, c), MPI_ERR_ARG);
    int src, dst;
    EXPECT(MPI_Cart_shift(grid, 2, 1, &src, &dst), MPI_ERR_ARG);
    EXPECT(MPI_Cart_shift(grid, -1, 1, &src, &dst), MPI_ERR_ARG);
    EXPECT(MPI_Cart_get(grid, -1, dims, periods, c), MPI_ERR_ARG);
    /* A large shift wraps around the periodic dimension and falls off the other. */
    EXPECT(MPI_Cart_shift(grid, 0, 3 * dims[0], &src, &dst), MPI_SUCCESS);
    CHECK(src == rank && dst == rank, "shift by 3 * dims in a periodic dimension: %d %d", src, dst);
    EXPECT(MPI_Cart_shift(grid, 1, dims[1], &src, &dst), MPI_SUCCESS);
    CHECK(src == MPI_PROC_NULL && dst == MPI_PROC_NULL, "shift by dims in a non-periodic dimension: %d %d", src, dst);
    say("Cart_rank wraps periodic coordinates, others outside are MPI_ERR_ARG; Cart_coords of a rank outside is "
        "MPI_ERR_RANK, with maxdims < ndims MPI_ERR_ARG; Cart_shift direction outside MPI_ERR_ARG; shifts by whole "
        "turns");

    /* Errors go to the grid's handler (it got WORLD's MPI_ERRORS_RETURN; here a counter). */
    MPI_Errhandler counter;
    EXPECT(MPI_Comm_create_errhandler(count_error, &counter), MPI_SUCCESS);
    EXPECT(MPI_Comm_set_errhandler(grid, counter), MPI_SUCCESS);
    int before = errors_seen;
    EXPECT(MPI_Cart_shift(grid, 7, 1, &src, &dst), MPI_ERR_ARG);
    EXPECT(MPI_Cart_coords(grid, size, 2, c), MPI_ERR_RANK);
    CHECK(errors_seen == before + 2, "%d of 2 errors on the grid reached its handler", errors_seen - before);
    EXPECT(MPI_Comm_set_errhandler(grid, MPI_ERRORS_RETURN), MPI_SUCCESS);
    EXPECT(MPI_Errhandler_free(&counter), MPI_SUCCESS);

    /* Sub-grids: the rows (dimension 1 kept) and the columns (dimension 0 kept). */
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
    MPI_Comm row, col;
    EXPECT(MPI_Cart_sub(grid, keep_row, &row), MPI_SUCCESS);
    EXPECT(MPI_Cart_sub(grid, keep_col, &col), MPI_SUCCESS);
    int coords[2];
    EXPECT(MPI_Cart_coords(grid, rank, 2, coords), MPI_SUCCESS);
    int row_dims[1] = {dims[1]}, row_periods[1] = {0}, col_dims[1] = {dims[0]}, col_periods[1] = {1};
    check_cart(row, 1, row_dims, row_periods, "row");
    check_cart(col, 1, col_dims, col_periods, "column");
    int rr = -1, cr = -1;
    MPI_Comm_rank(row, &rr);
    MPI_Comm_rank(col, &cr);
    CHECK(rr == coords[1] && cr == coords[0], "rank %d in its row %d, column %d; coordinates %d %d", rank, rr, cr,
          coords[0], coords[1]);
    int sum = -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
    int want_sum = 0;
    for (int i = 0; i < dims[1]; i++) want_sum += coords[0] * dims[1] + i;
    CHECK(sum == want_sum, "sum over the row: %d, expected %d", sum, want_sum);
    if (rank == 0) printf("unit_comm: Cart_sub rows of %d and columns of %d: ranks, periods kept, row sums OK\n",
                          dims[1], dims[0]);
    EXPECT(MPI_Comm_free(&row), MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&col), MPI_SUCCESS);

    /* No dimension kept: a 0-dimensional grid (MPICH gives it only to rank 0 of the grid). */
    int keep_none[2] = {0, 0};
    MPI_Comm point;
    EXPECT(MPI_Cart_sub(grid, keep_none, &point), MPI_SUCCESS);
#ifdef NOCMSG_MPI
    CHECK(point != MPI_COMM_NULL, "Cart_sub keeping no dimension gave MPI_COMM_NULL");
#endif
    if (rank == 0) CHECK(point != MPI_COMM_NULL, "Cart_sub keeping no dimension gave rank 0 MPI_COMM_NULL");
    if (point != MPI_COMM_NULL) {
        int pn = -1, pd = -1, pr = -1;
        EXPECT(MPI_Comm_size(point, &pn), MPI_SUCCESS);
        EXPECT(MPI_Cartdim_get(point, &pd), MPI_SUCCESS);
        EXPECT(MPI_Cart_rank(point, NULL, &pr), MPI_SUCCESS);
        CHECK(pn == 1 && pd == 0 && pr == 0, "0-d sub-grid: size %d, %d dimensions, rank %d", pn, pd, pr);
        EXPECT(MPI_Cart_shift(point, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);
        EXPECT(MPI_Comm_free(&point), MPI_SUCCESS);
    }
    say("Cart_sub keeping no dimension: a 0-dimensional grid of one rank; Cart_shift on it is MPI_ERR_TOPOLOGY");

    /* Dup keeps the topology (MPI 3.1 §6.4.2); attributes of the parent are not copied by Cart_create (checked by
     * Comm_split's twin above). */
    MPI_Comm grid_dup;
    EXPECT(MPI_Comm_dup(grid, &grid_dup), MPI_SUCCESS);
    check_cart(grid_dup, 2, dims, periods, "duplicate of the 2-d grid");
    EXPECT(MPI_Comm_free(&grid_dup), MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&grid), MPI_SUCCESS);
    say("Comm_dup of a grid is the same grid");

    /* 3-d, mixed periods. */
    int d3[3] = {0, 0, 0}, p3[3] = {0, 1, 1};
    EXPECT(MPI_Dims_create(size, 3, d3), MPI_SUCCESS);
    MPI_Comm cube, slab;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 3, d3, p3, 0, &cube), MPI_SUCCESS);
    check_cart(cube, 3, d3, p3, "3-d grid");
    print_shifts(cube, 0, 1, "3-d");
    int keep[3] = {1, 0, 1};
    EXPECT(MPI_Cart_sub(cube, keep, &slab), MPI_SUCCESS);
    int sd[2] = {d3[0], d3[2]}, sp[2] = {p3[0], p3[2]};
    check_cart(slab, 2, sd, sp, "3-d grid without dimension 1");
    if (rank == 0) printf("unit_comm: Cart_create %dx%dx%d periods 0,1,1 and its sub-grid keeping 1,0,1 OK\n", d3[0],
                          d3[1], d3[2]);
    EXPECT(MPI_Comm_free(&slab), MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&cube), MPI_SUCCESS);

    /* A grid smaller than the communicator: the ranks beyond get MPI_COMM_NULL. */
    int small[2] = {(size + 1) / 2, 1}, sper[2] = {0, 0};
    MPI_Comm part;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, small, sper, 0, &part), MPI_SUCCESS);
    CHECK((rank < small[0]) == (part != MPI_COMM_NULL), "grid of %d: rank %d got %s", small[0], rank,
          part == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (part != MPI_COMM_NULL) {
        check_cart(part, 2, small, sper, "grid smaller than WORLD");
        EXPECT(MPI_Comm_free(&part), MPI_SUCCESS);
    }
    if (rank == 0) printf("unit_comm: Cart_create %dx1 on %d ranks: the others get MPI_COMM_NULL OK\n", small[0], size);
    /* 0 dimensions: one point, rank 0. */
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &part), MPI_SUCCESS);
    CHECK((rank == 0) == (part != MPI_COMM_NULL), "0-d grid: rank %d got %s", rank,
          part == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (part != MPI_COMM_NULL) {
        int pn = -1, pd = -1, pr = -1;
        EXPECT(MPI_Comm_size(part, &pn), MPI_SUCCESS);
        EXPECT(MPI_Cartdim_get(part, &pd), MPI_SUCCESS);
        EXPECT(MPI_Cart_rank(part, NULL, &pr), MPI_SUCCESS);
        EXPECT(MPI_Cart_coords(part, 0, 0, NULL), MPI_SUCCESS);
        EXPECT(MPI_Cart_get(part, 0, NULL, NULL, NULL), MPI_SUCCESS);
        CHECK(pn == 1 && pd == 0 && pr == 0, "0-d grid: size %d, %d dimensions, rank %d", pn, pd, pr);
        EXPECT(MPI_Comm_free(&part), MPI_SUCCESS);
    }
    say("Cart_create with 0 dimensions: rank 0 alone");

    int too_big[2] = {size + 1, 1};
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, too_big, sper, 0, &part), MPI_ERR_ARG);
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, -1, too_big, sper, 0, &part), MPI_ERR_ARG);
    EXPECT(MPI_Cart_create(MPI_COMM_NULL, 2, small, sper, 0, &part), MPI_ERR_COMM);
#ifdef NOCMSG_MPI
    int zero[2] = {0, 1}; /* (MPICH accepts a 0 or negative dimension) */
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, zero, sper, 0, &part), MPI_ERR_DIMS);
    EXPECT(MPI_Cart_get(MPI_COMM_WORLD, 2, dims, periods, c), MPI_ERR_TOPOLOGY); /* (MPICH crashes) */
#endif
    say("Cart_create: more points than ranks or ndims < 0 is MPI_ERR_ARG, MPI_COMM_NULL MPI_ERR_COMM");

    /* Not a Cartesian communicator. */
    int status = -1;
    EXPECT(MPI_Topo_test(MPI_COMM_WORLD, &status), MPI_SUCCESS);
    CHECK(status == MPI_UNDEFINED, "Topo_test on WORLD: %d", status);
    EXPECT(MPI_Topo_test(MPI_COMM_NULL, &status), MPI_ERR_COMM);
    EXPECT(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cartdim_get(MPI_COMM_WORLD, &status), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_rank(MPI_COMM_WORLD, c, &r), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_sub(MPI_COMM_WORLD, keep, &part), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cartdim_get(MPI_COMM_NULL, &status), MPI_ERR_COMM);
    say("Topo_test on WORLD is MPI_UNDEFINED; Cart_ functions on WORLD are MPI_ERR_TOPOLOGY");

    /* Cart_map: the identity where the grid has room. */
    int map_dims[2] = {size, 1};
    EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 2, map_dims, sper, &r), MPI_SUCCESS);
    CHECK(r == rank, "Cart_map of the whole size: %d", r);
    map_dims[0] = (size + 1) / 2;
    EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 2, map_dims, sper, &r), MPI_SUCCESS);
    CHECK(r == (rank < map_dims[0] ? rank : MPI_UNDEFINED), "Cart_map of %d: %d", map_dims[0], r);
    EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 0, map_dims, sper, &r), MPI_SUCCESS);
    CHECK(r == (rank == 0 ? 0 : MPI_UNDEFINED), "Cart_map of 0 dimensions: %d", r);
    map_dims[0] = size + 1;
    EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 2, map_dims, sper, &r), MPI_ERR_DIMS);
    EXPECT(MPI_Cart_map(MPI_COMM_WORLD, -1, map_dims, sper, &r), MPI_ERR_ARG);
    EXPECT(MPI_Cart_map(MPI_COMM_NULL, 2, map_dims, sper, &r), MPI_ERR_COMM);
    say("Cart_map: the same rank where the grid has room, else MPI_UNDEFINED; too many points MPI_ERR_DIMS");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    EXPECT(MPI_Comm_group(MPI_COMM_WORLD, &world_group), MPI_SUCCESS);
    comm_basics();
    names();
    dup_and_free();
    split();
    compare();
    create();
    group_basics();
    incl_excl();
    ranges();
    translate();
    set_operations();
    group_free();
    dims_create();
    cartesian();
    EXPECT(MPI_Group_free(&world_group), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("unit_comm: done\n");
    MPI_Finalize();
    return 0;
}
