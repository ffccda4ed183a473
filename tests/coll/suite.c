/*
 * suite.c: main of the libnocmsg collectives suite. Runs every section on any number of ranks (1 or more, not only
 * powers of two); on success rank 0 prints exactly two lines:
 *
 *     libnocmsg collectives: N ranks, all checks passed
 *     libnocmsg collectives: A algorithms of 10 operations, C collective calls checked
 *
 * (C is the same on every rank, and depends on N and on the build: simulated builds use smaller cases.) A failed
 * check prints `FAIL rank R: <case>: <what> (file:line)` on stderr and the run stops with a non-zero status at the
 * end of its section, or, with --keep-going, at the end of the suite. See README.md for the list of checks.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"

static int count_algorithms(void)
{
    int total = 0;
    for (int o = 0; o < T_OPERATIONS; o++) {
        const char *const *list = nocmsg_coll_algorithms(t_operations[o]);
        for (int i = 0; list && list[i]; i++)
            total++;
    }
    return total;
}

int main(int argc, char **argv)
{
    int rc = nocmsg_init(&argc, &argv);
    t_rank = nocmsg_rank();
    t_size = nocmsg_size();
    if (rc != NOCMSG_SUCCESS || t_size < 1 || t_rank < 0 || t_rank >= t_size) {
        fprintf(stderr, "FAIL rank %d: nocmsg_init returned %d (%s), rank %d of %d (%s:%d)\n", t_rank, rc,
                t_errname(rc), t_rank, t_size, __FILE__, __LINE__);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--keep-going") == 0) {
            t_keep_going = 1;
        } else {
            fprintf(stderr, "usage: %s [--keep-going]\n", argv[0]);
            nocmsg_abort(NOCMSG_COMM_WORLD, 2);
        }
    }
    t_right = (t_rank + 1) % t_size;
    t_left = (t_rank - 1 + t_size) % t_size;
    t_comm_init(&t_world, NOCMSG_COMM_WORLD, "WORLD");
    t_barrier();

    /* Local calls and point-to-point transfers first, then each operation on WORLD (barrier first: the others do not
     * depend on it), then other communicators, transfers off, and errors last (a library that misses one may hang). */
    test_api();
    t_section_end("api");
    test_xfer();
    test_barrier();
    t_section_end("barrier");
    test_bcast();
    t_section_end("bcast");
    test_gather();
    t_section_end("gather, gatherv");
    test_scatter();
    t_section_end("scatter, scatterv");
    test_allgather();
    t_section_end("allgather, allgatherv");
    test_alltoall();
    t_section_end("alltoall, alltoallv");
    test_reductions();
    test_user_ops();
    test_comms();
    test_exchange();
    t_section_end("exchanges");
    test_xfer_off();
    t_section_end("transfers off");
    test_errors();
    t_section_end("error codes");
    test_xfer_errors();
    t_section_end("xfer: error codes");

    int algorithms = count_algorithms();
    int failures = t_total_failures();
    rc = nocmsg_finalize();
    if (rc != NOCMSG_SUCCESS) {
        fprintf(stderr, "FAIL rank %d: nocmsg_finalize returned %d (%s) (%s:%d)\n", t_rank, rc, t_errname(rc),
                __FILE__, __LINE__);
        return 1;
    }
    if (failures) {
        fprintf(stderr, "FAIL rank %d: %d failed checks%s (%s:%d)\n", t_rank, failures,
                t_rank == 0 ? " on all ranks together" : "", __FILE__, __LINE__);
        return 1;
    }
    if (t_rank == 0) {
        printf("libnocmsg collectives: %d ranks, all checks passed\n", t_size);
        printf("libnocmsg collectives: %d algorithms of %d operations, %ld collective calls checked\n", algorithms,
               T_OPERATIONS, t_calls);
        fflush(stdout);
    }
    return 0;
}
