/* comms.c: communicators, groups and the environment. MPI_Init_thread asking for MPI_THREAD_FUNNELED (provided and
 * MPI_Query_thread agree; the level is not printed), MPI_Initialized/MPI_Finalized, MPI_Get_version (at least 3;
 * not printed, MPICH 4 says 4.0), MPI_Wtime never going back and MPI_Wtick > 0, MPI_TAG_UB (at least 32767) and
 * MPI_WTIME_IS_GLOBAL attributes (not printed); MPI_Comm_dup, MPI_Comm_split (by parity with reversed keys, equal
 * keys, MPI_UNDEFINED), MPI_Comm_compare results by name, MPI_Comm_free; groups: MPI_Comm_group, MPI_Group_size,
 * rank, incl, excl, range_incl, translate_ranks, union, intersection, difference, compare, free, MPI_GROUP_EMPTY;
 * MPI_Comm_create from a group (ranks outside it get MPI_COMM_NULL); MPI_Comm_set_name/get_name and the names of
 * the predefined communicators; cached attributes with copy and delete callbacks. Only rank 0 prints; lines that
 * show ranks depend on the rank count. */
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
    printf("FAIL comms: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

static void say(const char *line)
{
    if (rank == 0) printf("comms: %s OK\n", line);
}

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
    MPI_Comm_compare(a, b, &result);
    return result;
}

static int compare_groups(MPI_Group a, MPI_Group b)
{
    int result = -1;
    MPI_Group_compare(a, b, &result);
    return result;
}

/* The world ranks of a group's members, in group order, as " 0 2 4" (checked against the expected list). */
static void members(MPI_Group g, MPI_Group world, char *out, size_t room)
{
    int n = -1;
    MPI_Group_size(g, &n);
    int *in = malloc(sizeof(int) * (size_t)(n + 1)), *w = malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) in[i] = i;
    MPI_Group_translate_ranks(g, n, in, world, w);
    out[0] = 0;
    for (int i = 0; i < n; i++) snprintf(out + strlen(out), room - strlen(out), " %d", w[i]);
    free(in);
    free(w);
}

static void environment(int provided)
{
    int flag = 0, query = -1, version = -1, subversion = -1;
    CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED || provided == MPI_THREAD_SERIALIZED ||
              provided == MPI_THREAD_MULTIPLE,
          "Init_thread provided %d, not a thread level", provided);
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
              MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
          "thread levels out of order");
    MPI_Query_thread(&query);
    CHECK(query == provided, "Query_thread %d, Init_thread provided %d", query, provided);
    say("Init_thread(MPI_THREAD_FUNNELED): provided a thread level, Query_thread agrees");
    MPI_Initialized(&flag);
    CHECK(flag, "Initialized says no");
    MPI_Finalized(&flag);
    CHECK(!flag, "Finalized says yes before MPI_Finalize");
    say("Initialized true, Finalized false");
    MPI_Get_version(&version, &subversion);
    CHECK(version >= 3 && subversion >= 0 && version == MPI_VERSION && subversion == MPI_SUBVERSION,
          "Get_version %d.%d, header %d.%d", version, subversion, MPI_VERSION, MPI_SUBVERSION);
    say("Get_version at least 3, equal to MPI_VERSION.MPI_SUBVERSION");

    double tick = MPI_Wtick(), last = MPI_Wtime();
    CHECK(tick > 0 && tick < 1, "Wtick %g", tick);
    volatile double sink = 0;
    for (int i = 0; i < 200; i++) {
        for (int k = 0; k < 100; k++) sink += k;
        double now = MPI_Wtime();
        CHECK(now >= last, "Wtime went back from %.9f to %.9f", last, now);
        last = now;
    }
    say("Wtime never goes back over 200 readings, 0 < Wtick < 1");

    int *tag_ub = NULL, *is_global = NULL;
    flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK(flag && tag_ub && *tag_ub >= 32767, "MPI_TAG_UB: flag %d value %d", flag, tag_ub ? *tag_ub : -1);
    flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &is_global, &flag);
    CHECK(flag && is_global && (*is_global == 0 || *is_global == 1), "MPI_WTIME_IS_GLOBAL: flag %d", flag);
    /* The largest tag works. */
    int x = rank, y = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, rank, *tag_ub, &y, 1, MPI_INT, rank, *tag_ub, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(y == rank, "message to itself with tag MPI_TAG_UB");
    say("attributes MPI_TAG_UB (at least 32767, usable as a tag) and MPI_WTIME_IS_GLOBAL (0 or 1) present");
}

static void names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "WORLD's name \"%s\" (%d)", name, len);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13, "SELF's name \"%s\" (%d)", name, len);
    if (rank == 0) printf("comms: names MPI_COMM_WORLD MPI_COMM_SELF OK\n");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_name(dup, "my duplicate");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "my duplicate") == 0 && len == 12, "set then get name: \"%s\" (%d)", name, len);
    MPI_Comm_set_name(dup, "renamed");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "renamed") == 0 && len == 7, "second set_name: \"%s\" (%d)", name, len);
    MPI_Comm_free(&dup);
    say("Comm_set_name then Comm_get_name, twice");
}

static void dup_split_compare(void)
{
    MPI_Comm dup, parity, reversed, same_key, none, self_dup;
    int n = -1, r = -1;
    MPI_Comm_size(MPI_COMM_SELF, &n);
    MPI_Comm_rank(MPI_COMM_SELF, &r);
    CHECK(n == 1 && r == 0, "SELF: size %d rank %d", n, r);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_size(dup, &n);
    MPI_Comm_rank(dup, &r);
    CHECK(n == size && r == rank, "dup: size %d rank %d", n, r);
    /* Traffic on the duplicate and on WORLD with the same tag does not mix. */
    int a = rank, b = rank + 1000, got_a = -1, got_b = -1;
    MPI_Request reqs[2];
    MPI_Irecv(&got_b, 1, MPI_INT, MPI_ANY_SOURCE, 0, dup, &reqs[0]);
    MPI_Irecv(&got_a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Send(&a, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Send(&b, 1, MPI_INT, (rank + 1) % size, 0, dup);
    MPI_Status statuses[2];
    MPI_Waitall(2, reqs, statuses);
    int left = (rank + size - 1) % size;
    CHECK(got_a == left && got_b == left + 1000, "WORLD and its duplicate mixed: %d %d", got_a, got_b);
    say("Comm_dup: same size and ranks, messages kept apart from WORLD's");

    /* Parity with reversed keys: the highest old rank of each parity becomes rank 0. */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &parity);
    MPI_Comm_size(parity, &n);
    MPI_Comm_rank(parity, &r);
    int same_parity = (size - rank % 2 + 1) / 2, want_rank = (size - 1 - rank) / 2; /* higher ranks of my parity */
    CHECK(n == same_parity && r == want_rank, "split by parity: size %d rank %d, expected %d %d", n, r, same_parity,
          want_rank);
    int *world_ranks = malloc(sizeof(int) * (size_t)n);
    MPI_Allgather(&rank, 1, MPI_INT, world_ranks, 1, MPI_INT, parity);
    for (int i = 1; i < n; i++) CHECK(world_ranks[i] == world_ranks[i - 1] - 2, "split order");
    if (rank == 0) {
        printf("comms: Comm_split(rank %% 2, key -rank): even ranks in order");
        for (int i = 0; i < n; i++) printf(" %d", world_ranks[i]);
        printf(" OK\n");
    }
    free(world_ranks);

    /* Equal keys keep the old order; MPI_UNDEFINED gives MPI_COMM_NULL. */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, 0, &same_key);
    MPI_Comm_rank(same_key, &r);
    CHECK(r == rank / 3, "split with equal keys: rank %d, expected %d", r, rank / 3);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
    CHECK((rank == 0) == (none != MPI_COMM_NULL), "split with MPI_UNDEFINED: comm %s",
          none == MPI_COMM_NULL ? "null" : "not null");
    say("Comm_split with equal keys keeps the order; color MPI_UNDEFINED gives MPI_COMM_NULL");

    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
    int results[6] = {
        compare_comms(MPI_COMM_WORLD, MPI_COMM_WORLD), compare_comms(MPI_COMM_WORLD, dup),
        compare_comms(MPI_COMM_WORLD, reversed),       compare_comms(MPI_COMM_WORLD, parity),
        compare_comms(MPI_COMM_SELF, self_dup),        compare_comms(dup, dup),
    };
    int want[6] = {MPI_IDENT,
                   MPI_CONGRUENT,
                   size > 1 ? MPI_SIMILAR : MPI_CONGRUENT,
                   size > 1 ? MPI_UNEQUAL : MPI_CONGRUENT,
                   MPI_CONGRUENT,
                   MPI_IDENT};
    const char *what[6] = {"WORLD vs WORLD", "WORLD vs dup", "WORLD vs reversed split", "WORLD vs parity split",
                           "SELF vs its dup", "dup vs dup"};
    for (int k = 0; k < 6; k++) {
        CHECK(results[k] == want[k], "Comm_compare %s: %s, expected %s", what[k], compare_name(results[k]),
              compare_name(want[k]));
        if (rank == 0) printf("comms: Comm_compare %s: %s OK\n", what[k], compare_name(results[k]));
    }

    MPI_Comm *frees[] = {&dup, &parity, &reversed, &same_key, &self_dup};
    for (int k = 0; k < 5; k++) {
        MPI_Comm_free(frees[k]);
        CHECK(*frees[k] == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");
    }
    if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
    say("Comm_free sets MPI_COMM_NULL");
}

static void groups(void)
{
    MPI_Group world, evens, no_zero, ranged, backwards, uni, inter, diff, empty;
    char list[256];
    int n = -1, r = -1;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(world, &n);
    MPI_Group_rank(world, &r);
    CHECK(n == size && r == rank, "world group: size %d rank %d", n, r);

    int neven = (size + 1) / 2, *even_ranks = malloc(sizeof(int) * (size_t)neven);
    for (int i = 0; i < neven; i++) even_ranks[i] = 2 * i;
    MPI_Group_incl(world, neven, even_ranks, &evens);
    int zero = 0;
    MPI_Group_excl(world, 1, &zero, &no_zero);
    int range[1][3] = {{0, size - 1, 2}}, back[1][3] = {{size - 1, 0, -1}};
    MPI_Group_range_incl(world, 1, range, &ranged);
    MPI_Group_range_incl(world, 1, back, &backwards);

    MPI_Group_rank(evens, &r);
    CHECK(r == (rank % 2 ? MPI_UNDEFINED : rank / 2), "Group_rank in evens: %d", r);
    MPI_Group_size(no_zero, &n);
    CHECK(n == size - 1, "Group_excl(0): size %d", n);
    members(evens, world, list, sizeof list);
    if (rank == 0) printf("comms: Group_incl evens:%s OK\n", list);
    members(no_zero, world, list, sizeof list);
    if (rank == 0) printf("comms: Group_excl rank 0:%s OK\n", list);
    members(backwards, world, list, sizeof list);
    if (rank == 0) printf("comms: Group_range_incl (size-1, 0, -1):%s OK\n", list);

    /* translate_ranks: world ranks into evens (odd ones are MPI_UNDEFINED). */
    int *all = malloc(sizeof(int) * (size_t)size), *into = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) all[i] = i;
    MPI_Group_translate_ranks(world, size, all, evens, into);
    for (int i = 0; i < size; i++)
        CHECK(into[i] == (i % 2 ? MPI_UNDEFINED : i / 2), "translate %d into evens: %d", i, into[i]);
    int null_rank = MPI_PROC_NULL, translated = 0;
    MPI_Group_translate_ranks(world, 1, &null_rank, evens, &translated);
    CHECK(translated == MPI_PROC_NULL, "translate MPI_PROC_NULL: %d", translated);
    say("Group_translate_ranks into evens: odd ranks MPI_UNDEFINED, MPI_PROC_NULL stays MPI_PROC_NULL");

    MPI_Group_union(evens, no_zero, &uni);
    MPI_Group_intersection(evens, no_zero, &inter);
    MPI_Group_difference(evens, no_zero, &diff);
    MPI_Group_difference(world, world, &empty);
    members(uni, world, list, sizeof list);
    if (rank == 0) printf("comms: Group_union(evens, all but 0):%s OK\n", list);
    members(inter, world, list, sizeof list);
    if (rank == 0) printf("comms: Group_intersection(evens, all but 0):%s OK\n", list);
    members(diff, world, list, sizeof list);
    if (rank == 0) printf("comms: Group_difference(evens, all but 0):%s OK\n", list);
    MPI_Group_size(empty, &n);
    MPI_Group_rank(empty, &r);
    CHECK(n == 0 && r == MPI_UNDEFINED, "empty difference: size %d rank %d", n, r);
    MPI_Group_size(MPI_GROUP_EMPTY, &n);
    CHECK(n == 0, "MPI_GROUP_EMPTY has size %d", n);

    int results[5] = {compare_groups(world, world), compare_groups(evens, ranged), compare_groups(world, backwards),
                      compare_groups(evens, no_zero), compare_groups(empty, MPI_GROUP_EMPTY)};
    int want[5] = {MPI_IDENT, MPI_IDENT, size > 1 ? MPI_SIMILAR : MPI_IDENT, MPI_UNEQUAL, MPI_IDENT};
    const char *what[5] = {"world vs world", "incl evens vs range_incl (0, size-1, 2)", "world vs reversed",
                           "evens vs all but 0", "empty difference vs MPI_GROUP_EMPTY"};
    for (int k = 0; k < 5; k++) {
        CHECK(results[k] == want[k], "Group_compare %s: %s, expected %s", what[k], compare_name(results[k]),
              compare_name(want[k]));
        if (rank == 0) printf("comms: Group_compare %s: %s OK\n", what[k], compare_name(results[k]));
    }

    /* Comm_create from the evens: odd ranks get MPI_COMM_NULL; the new communicator works. */
    MPI_Comm even_comm;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &even_comm);
    if (rank % 2) {
        CHECK(even_comm == MPI_COMM_NULL, "Comm_create gave an odd rank a communicator");
    } else {
        CHECK(even_comm != MPI_COMM_NULL, "Comm_create gave an even rank MPI_COMM_NULL");
        int cn = -1, cr = -1, sum = -1;
        MPI_Comm_size(even_comm, &cn);
        MPI_Comm_rank(even_comm, &cr);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, even_comm);
        CHECK(cn == neven && cr == rank / 2 && sum == neven * (neven - 1), "Comm_create: size %d rank %d sum %d", cn,
              cr, sum);
        MPI_Group g;
        MPI_Comm_group(even_comm, &g);
        CHECK(compare_groups(g, evens) == MPI_IDENT, "the new communicator's group differs from the one given");
        MPI_Group_free(&g);
        MPI_Comm_free(&even_comm);
    }
    say("Comm_create from the evens: odd ranks get MPI_COMM_NULL, evens get a working communicator");

    MPI_Group *frees[] = {&world, &evens, &no_zero, &ranged, &backwards, &uni, &inter, &diff, &empty};
    for (int k = 0; k < 9; k++) {
        MPI_Group_free(frees[k]);
        CHECK(*frees[k] == MPI_GROUP_NULL, "Group_free did not set MPI_GROUP_NULL");
    }
    free(even_ranks);
    free(all);
    free(into);
    say("Group_free sets MPI_GROUP_NULL");
}

/* Cached attributes: copy callbacks run on MPI_Comm_dup, delete callbacks on MPI_Comm_delete_attr, on replacing
 * a value and on MPI_Comm_free; a freed keyval stays usable by the communicators that hold it. */
static int copies, deletes;

static int counting_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)key;
    CHECK(*(int *)extra == 42, "copy callback: extra state %d", *(int *)extra);
    copies++;
    *(void **)out = (char *)in + 1; /* a different value, so the copy shows */
    *flag = 1;
    return MPI_SUCCESS;
}

static int counting_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)value;
    CHECK(*(int *)extra == 42, "delete callback: extra state %d", *(int *)extra);
    deletes++;
    return MPI_SUCCESS;
}

static void attributes(void)
{
    static char values[4];
    static int extra = 42;
    int plain = MPI_KEYVAL_INVALID, counted = MPI_KEYVAL_INVALID, not_copied = MPI_KEYVAL_INVALID, flag = 0;
    void *got = NULL;
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &plain, NULL);
    MPI_Comm_create_keyval(counting_copy, counting_delete, &counted, &extra);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counting_delete, &not_copied, &extra);
    CHECK(plain != MPI_KEYVAL_INVALID && counted != MPI_KEYVAL_INVALID && not_copied != MPI_KEYVAL_INVALID &&
              plain != counted && counted != not_copied && plain != not_copied,
          "Comm_create_keyval: keys %d %d %d", plain, counted, not_copied);
    MPI_Comm_get_attr(a, counted, &got, &flag);
    CHECK(!flag, "an attribute that was never set is present");
    MPI_Comm_set_attr(a, plain, &values[0]);
    MPI_Comm_set_attr(a, counted, &values[1]);
    MPI_Comm_set_attr(a, not_copied, &values[2]);
    MPI_Comm_get_attr(a, counted, &got, &flag);
    CHECK(flag && got == &values[1], "Comm_get_attr after set_attr");
    MPI_Comm_set_attr(a, not_copied, &values[3]); /* replacing calls the delete callback on the old value */
    CHECK(deletes == 1, "replacing an attribute: %d delete callbacks", deletes);

    MPI_Comm_dup(a, &b);
    CHECK(copies == 1, "Comm_dup: %d copy callbacks", copies);
    MPI_Comm_get_attr(b, plain, &got, &flag);
    CHECK(flag && got == &values[0], "MPI_COMM_DUP_FN did not copy the value");
    MPI_Comm_get_attr(b, counted, &got, &flag);
    CHECK(flag && got == &values[2], "the copy callback's value did not arrive");
    MPI_Comm_get_attr(b, not_copied, &got, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied the attribute");
    say("Comm_set_attr/get_attr; Comm_dup runs MPI_COMM_DUP_FN, a user copy callback and MPI_COMM_NULL_COPY_FN");

    MPI_Comm_delete_attr(a, counted);
    MPI_Comm_get_attr(a, counted, &got, &flag);
    CHECK(!flag && deletes == 2, "Comm_delete_attr: flag %d, %d delete callbacks", flag, deletes);
    MPI_Comm_free_keyval(&counted);
    CHECK(counted == MPI_KEYVAL_INVALID, "Comm_free_keyval did not set MPI_KEYVAL_INVALID");
    MPI_Comm_free(&b); /* holds the freed keyval's attribute: its delete callback still runs */
    CHECK(deletes == 3, "Comm_free of the duplicate: %d delete callbacks in all", deletes);
    MPI_Comm_free(&a); /* holds not_copied */
    CHECK(deletes == 4, "Comm_free: %d delete callbacks in all", deletes);
    MPI_Comm_free_keyval(&plain);
    MPI_Comm_free_keyval(&not_copied);
    say("delete callbacks on Comm_delete_attr, on replacing a value and on Comm_free, also after Comm_free_keyval");
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    environment(provided);
    names();
    dup_split_compare();
    groups();
    attributes();
    MPI_Finalize();
    int flag = 0;
    MPI_Finalized(&flag);
    if (!flag) { /* no MPI_Abort after MPI_Finalize */
        printf("FAIL comms: Finalized says no after MPI_Finalize (rank %d)\n", rank);
        return 1;
    }
    if (rank == 0) printf("comms: Finalized true after MPI_Finalize OK\n");
    if (rank == 0) printf("comms: done\n");
    return 0;
}
