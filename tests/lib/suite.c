/*
 * suite.c: the libnocmsg test suite's main. Runs every section on any number of ranks (1 or more, not only powers
 * of two), then rank 0 collects the random-pattern checksums with plain sends and prints exactly two lines:
 *
 *     libnocmsg suite: N ranks, all checks passed
 *     libnocmsg random patterns: 100 seeds, M messages, B bytes, checksum 0x...
 *
 * The second line depends only on N, so a native and a simulated run with the same N must print the same one.
 * Other ranks print nothing unless a check fails. See README.md for the list of checks.
 */
#include <stdio.h>

#include "check.h"

/* Gathers (checksum, messages received) at rank 0 on NOCMSG_COMM_WORLD and combines them in rank order. */
static uint64_t combine_checksums(uint64_t mine, uint64_t received, uint64_t *all_received)
{
    enum { TAG_RESULT = 4242 };
    uint64_t msg[2] = {mine, received};
    if (t_rank != 0) {
        CHECK_OK(nocmsg_send(msg, 2, NOCMSG_UINT64, 0, TAG_RESULT, NOCMSG_COMM_WORLD));
        return 0;
    }
    uint64_t combined = 0;
    *all_received = 0;
    for (int r = 0; r < t_size; r++) {
        if (r > 0) {
            nocmsg_status st;
            CHECK_OK(nocmsg_recv(msg, 2, NOCMSG_UINT64, r, TAG_RESULT, NOCMSG_COMM_WORLD, &st));
            CHECK_STATUS(st, r, TAG_RESULT, sizeof msg);
        }
        combined = t_mix(combined ^ t_key(msg[0], (uint64_t)r, 0x5eed));
        *all_received += msg[1];
    }
    return combined;
}

int main(int argc, char **argv)
{
    test_env_before_init();
    int rc = nocmsg_init(&argc, &argv);
    t_rank = nocmsg_rank();
    t_size = nocmsg_size();
    if (rc != NOCMSG_SUCCESS || t_size < 1 || t_rank < 0 || t_rank >= t_size) {
        fprintf(stderr, "FAIL rank %d: nocmsg_init returned %d (%s), rank %d of %d (%s:%d)\n", t_rank, rc,
                t_errname(rc), t_rank, t_size, __FILE__, __LINE__);
        return 1;
    }
    t_right = (t_rank + 1) % t_size;
    t_left = (t_rank - 1 + t_size) % t_size;
    t_partner = (t_rank ^ 1) < t_size ? (t_rank ^ 1) : t_rank;
    rc = nocmsg_comm_dup(NOCMSG_COMM_WORLD, &t_sync_comm);
    if (rc != NOCMSG_SUCCESS) {
        fprintf(stderr, "FAIL rank %d: nocmsg_comm_dup for the barrier returned %d (%s) (%s:%d)\n", t_rank, rc,
                t_errname(rc), __FILE__, __LINE__);
        nocmsg_abort(NOCMSG_COMM_WORLD, 1);
    }

    /* Local checks first, then point-to-point from simple to demanding, then communicators and random patterns. */
    test_env();
    t_section_end("environment");
    test_datatypes();
    t_section_end("datatypes");
    test_error_strings();
    t_section_end("error strings");
    test_get_count();
    t_section_end("get_count");
    test_errors();
    t_section_end("error codes");
    test_self();
    t_section_end("self messages");
    test_zero_length();
    t_section_end("zero-length messages");
    test_sizes();
    t_section_end("message sizes");
    test_ordering();
    t_section_end("ordering");
    test_tags();
    t_section_end("tags");
    test_wildcards();
    t_section_end("wildcards");
    test_probe();
    t_section_end("probe");
    test_truncate();
    t_section_end("truncation");
    test_proc_null();
    t_section_end("PROC_NULL");
    test_ssend();
    t_section_end("synchronous sends");
    test_nonblocking();
    t_section_end("non-blocking completion");
    test_exchange();
    t_section_end("simultaneous exchange");
    test_comms();
    t_section_end("communicators");
    test_inline();
    t_section_end("inline fast paths");
    test_lean();
    t_section_end("lean paths: part words, misaligned buffers, rendezvous");

    uint64_t checksum, received, total_messages, total_bytes, all_received = 0;
    test_random_patterns(&checksum, &received, &total_messages, &total_bytes);
    t_section_end("random patterns");
    uint64_t combined = combine_checksums(checksum, received, &all_received);
    if (t_rank == 0)
        CHECK(all_received == total_messages, "ranks received %llu random-pattern messages, %llu were sent",
              (unsigned long long)all_received, (unsigned long long)total_messages);
    t_section_end("checksum collection");

    /* Nothing may be left over: every section received what it sent. */
    int flag = -1;
    CHECK_OK(nocmsg_iprobe(NOCMSG_ANY_SOURCE, NOCMSG_ANY_TAG, NOCMSG_COMM_WORLD, &flag, NOCMSG_STATUS_IGNORE));
    CHECK(flag == 0, "a message is still waiting on NOCMSG_COMM_WORLD at the end");
    CHECK_OK(nocmsg_comm_free(&t_sync_comm));
    CHECK(t_sync_comm == NOCMSG_COMM_NULL, "comm_free did not set the handle to NOCMSG_COMM_NULL");
    if (t_failures)
        nocmsg_abort(NOCMSG_COMM_WORLD, 1);

    rc = nocmsg_finalize();
    if (rc != NOCMSG_SUCCESS) {
        fprintf(stderr, "FAIL rank %d: nocmsg_finalize returned %d (%s) (%s:%d)\n", t_rank, rc, t_errname(rc),
                __FILE__, __LINE__);
        return 1;
    }
    test_env_after_finalize();
    if (t_failures)
        return 1;
    if (t_rank == 0) {
        printf("libnocmsg suite: %d ranks, all checks passed\n", t_size);
        printf("libnocmsg random patterns: %d seeds, %llu messages, %llu bytes, checksum 0x%016llx\n",
               T_RANDOM_SEEDS, (unsigned long long)total_messages, (unsigned long long)total_bytes,
               (unsigned long long)combined);
        fflush(stdout);
    }
    return 0;
}
