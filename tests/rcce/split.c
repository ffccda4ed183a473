/*
 * split.c - RCCE_comm_split and the collectives on the groups: even and odd UEs (ranks and sizes, barrier, bcast
 * from every group root, reduce and allreduce), a split by a modulus passed through aux, splitting into the same
 * communicator again (its flags are reused), RCCE_comm_free, and every UE alone.
 */
#include <string.h>

#include "check.h"

static int parity(int ue, void *aux)
{
    (void)aux;
    return ue % 2;
}

static int modulo(int ue, void *aux) { return ue % *(int *)aux; }

/* Checks a group of the UEs u with color(u) == color(me), in UE order, with every collective. */
static void check_group(RCCE_COMM *comm, int (*color)(int, void *), void *aux, const char *what)
{
    int me = RCCE_ue(), n = RCCE_num_ues(), size = 0, rank = -1, want_rank = 0, want_size = 0;
    int members[RCCE_MAXNP];
    for (int u = 0; u < n; u++) {
        if (color(u, aux) == color(me, aux)) {
            if (u == me) want_rank = want_size;
            members[want_size++] = u;
        }
    }
    OK(RCCE_comm_size(*comm, &size));
    OK(RCCE_comm_rank(*comm, &rank));
    CHECK(size == want_size && rank == want_rank, "%s: size %d rank %d, expected %d and %d", what, size, rank, want_size, want_rank);
    for (int r = 0; r < size; r++) CHECK(comm->member[r] == members[r], "%s: member %d is UE %d", what, r, comm->member[r]);
    for (int i = 0; i < 5; i++) OK(RCCE_barrier(comm));
    for (int root = 0; root < size; root++) {
        long v[3] = {0, 0, 0};
        if (rank == root) v[0] = 1000 + members[root], v[1] = -members[root], v[2] = 7;
        OK(RCCE_bcast((char *)v, sizeof v, root, *comm));
        CHECK(v[0] == 1000 + members[root] && v[1] == -members[root] && v[2] == 7, "%s: bcast from rank %d", what, root);
        long mine = me + 1, sum = -1;
        OK(RCCE_reduce((char *)&mine, (char *)&sum, 1, RCCE_LONG, RCCE_SUM, root, *comm));
        long want = 0;
        for (int r = 0; r < size; r++) want += members[r] + 1;
        if (rank == root) CHECK(sum == want, "%s: reduce to rank %d gives %ld, expected %ld", what, root, sum, want);
    }
    int mine = me, top = -1;
    OK(RCCE_allreduce((char *)&mine, (char *)&top, 1, RCCE_INT, RCCE_MAX, *comm));
    CHECK(top == members[size - 1], "%s: allreduce MAX gives %d, expected %d", what, top, members[size - 1]);
}

int RCCE_APP(int argc, char **argv)
{
    OK(RCCE_init(&argc, &argv));
    int me = RCCE_ue(), n = RCCE_num_ues();
    RCCE_COMM halves, groups, alone;
    OK(RCCE_comm_split(parity, NULL, &halves));
    check_group(&halves, parity, NULL, "even/odd");
    if (me == 0) printf("split even/odd: ranks, barrier, bcast, reduce, allreduce ok\n");

    int three = 3;
    OK(RCCE_comm_split(modulo, &three, &groups));
    check_group(&groups, modulo, &three, "ue % 3");
    /* Both communicators in turn: their barriers have flags of their own. */
    for (int i = 0; i < 3; i++) {
        OK(RCCE_barrier(&halves));
        OK(RCCE_barrier(&groups));
        OK(RCCE_barrier(&RCCE_COMM_WORLD));
    }
    /* Split into the same communicator again, by another modulus. */
    int two = 2;
    OK(RCCE_comm_split(modulo, &two, &groups));
    check_group(&groups, modulo, &two, "ue % 2 (again)");
    if (me == 0) printf("split by ue %% 3 through aux, then again by ue %% 2 ok\n");

    OK(RCCE_comm_free(&groups));
    OK(RCCE_comm_free(&halves));
    OK(RCCE_comm_split(RCCE_self_color, NULL, &alone));
    check_group(&alone, RCCE_self_color, NULL, "alone");
    OK(RCCE_comm_split(RCCE_global_color, NULL, &halves));
    check_group(&halves, RCCE_global_color, NULL, "everyone");
    CHECK(RCCE_comm_split(parity, NULL, &RCCE_COMM_WORLD) == RCCE_ERROR_COMM_UNDEFINED, "splitting into WORLD");
    OK(RCCE_finalize());
    if (me == 0) printf("split: freed, alone and all together on %d UEs ok\n", n);
    return 0;
}
