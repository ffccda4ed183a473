/*
 * test_exchange.c: pairwise exchanges of packets longer than the way to the partner holds while the partner is itself
 * sending (on the simulated chips 28 + 4 x hops words, so from about 232 bytes up to the eager limit), which
 * coll_sendrecv runs as lean exchanges (lib/src/coll/p2p.c), and every place where a lean exchange hands over to the
 * progress engine. Allreduce with recursive_doubling (every exchange 504 bytes), ring (480-byte blocks) and
 * rabenseifner (halves of 960 bytes per rank and up), SUM on INT, on the communicator of all ranks but the last:
 *
 *   - the partner's own message first: before each call every rank sends its first recursive-doubling partner a
 *     message on the same communicator, and its ring successor one too large to go eagerly, for which the successor
 *     has posted a receive; so a header comes from the partner where the collective's was awaited, and for the RTS
 *     the engine answers at once with a CTS, which must not cut into the packet the exchange is pushing;
 *   - another rank's message at any point of an exchange: the last rank stays out and, in each of T_DISTURB_CALLS
 *     calls, sends every other rank a message on WORLD a little later than in the call before, so that it arrives
 *     before the partner's packet, in the middle of it and after it while the send still goes.
 *
 * Results, and every point-to-point message, must come out intact. Natively the way holds every packet (the host
 * port's rings are thousands of words), so there the same calls check only the results.
 */
#include <stdlib.h>
#include <string.h>

#include "red.h"

enum { TAG_SUCCESSOR = 21, TAG_PARTNER = 22, TAG_DISTURB = 23 };

/* Point-to-point messages: 96 bytes (a dozen words that interleave with the collective's), and one past the eager
 * limit of either port (512 bytes on the simulated chips, 16 KiB natively). */
#define NOTE_BYTES 96
#define LARGE_NOTE_BYTES (T_SIM ? 600 : 17000)
#define T_DISTURB_CALLS 12
/* The disturber's delay grows by this much per call: on the simulated chips 300 cycles, so the calls sweep the
 * first few thousand cycles of the collective, where its largest exchanges are. */
#define T_DISTURB_STEP_SECONDS (T_SIM ? 0.3e-6 : 20e-6)

static void spin(double seconds)
{
    double start = nocmsg_wtime();
    while (nocmsg_wtime() - start < seconds)
        ;
}

static uint64_t note_key(uint64_t key, int from, int tag)
{
    return t_key(key, (uint64_t)from, (uint64_t)tag);
}

/* One call of allreduce on c (every rank but the last of WORLD), with notes from the partners and the disturber. */
static void disturbed_call(const t_comm *c, const t_red_data *d, int call, int with_notes)
{
    int members = t_size - 1, disturber = t_size - 1;
    uint64_t key = t_next_seed();
    unsigned char note[NOTE_BYTES];
    t_barrier();
    if (t_rank == disturber) {
        spin(call * T_DISTURB_STEP_SECONDS);
        for (int r = 0; r < members; r++) {
            t_fill(note, NOTE_BYTES, note_key(key, disturber, TAG_DISTURB));
            CHECK_OK(nocmsg_send(note, NOTE_BYTES, NOCMSG_BYTE, r, TAG_DISTURB, NOCMSG_COMM_WORLD));
        }
        return;
    }
    int partner = c->rank ^ 1;
    unsigned char *large_out = NULL, *large_in = NULL;
    nocmsg_request large[2];
    if (with_notes) {
        large_out = t_alloc(LARGE_NOTE_BYTES);
        large_in = t_alloc(LARGE_NOTE_BYTES);
        t_fill(large_out, LARGE_NOTE_BYTES, note_key(key, c->rank, TAG_SUCCESSOR));
        CHECK_OK(nocmsg_irecv(large_in, LARGE_NOTE_BYTES, NOCMSG_BYTE, c->left, TAG_SUCCESSOR, c->comm, &large[0]));
        CHECK_OK(nocmsg_isend(large_out, LARGE_NOTE_BYTES, NOCMSG_BYTE, c->right, TAG_SUCCESSOR, c->comm, &large[1]));
        if (partner < c->size) {
            t_fill(note, NOTE_BYTES, note_key(key, c->rank, TAG_PARTNER));
            CHECK_OK(nocmsg_send(note, NOTE_BYTES, NOCMSG_BYTE, partner, TAG_PARTNER, c->comm));
        }
    }
    check_allreduce(c, d, call % 2);
    nocmsg_status st;
    CHECK_OK(nocmsg_recv(note, NOTE_BYTES, NOCMSG_BYTE, disturber, TAG_DISTURB, NOCMSG_COMM_WORLD, &st));
    CHECK_STATUS(st, disturber, TAG_DISTURB, NOTE_BYTES);
    CHECK_PAYLOAD(note, NOTE_BYTES, note_key(key, disturber, TAG_DISTURB), "the disturber's message");
    if (with_notes) {
        nocmsg_status sts[2];
        CHECK_OK(nocmsg_waitall(2, large, sts));
        CHECK_STATUS(sts[0], c->left, TAG_SUCCESSOR, LARGE_NOTE_BYTES);
        CHECK_PAYLOAD(large_in, LARGE_NOTE_BYTES, note_key(key, c->left, TAG_SUCCESSOR), "the ring predecessor's message");
        free(large_out);
        free(large_in);
        if (partner < c->size) {
            CHECK_OK(nocmsg_recv(note, NOTE_BYTES, NOCMSG_BYTE, partner, TAG_PARTNER, c->comm, &st));
            CHECK_STATUS(st, partner, TAG_PARTNER, NOTE_BYTES);
            CHECK_PAYLOAD(note, NOTE_BYTES, note_key(key, partner, TAG_PARTNER), "the partner's message");
        }
    }
}

void test_exchange(void)
{
    static const t_red sum_rd = {NOCMSG_INT, NOCMSG_SUM, T_BUILTIN};
    static const char *const algs[] = {"recursive_doubling", "ring", "rabenseifner"};
    if (t_size < 2)
        return;
    /* Every rank but the last; the last one disturbs. */
    nocmsg_comm members;
    CHECK_OK(nocmsg_comm_split(NOCMSG_COMM_WORLD, t_rank < t_size - 1 ? 0 : 1, 0, &members));
    t_comm c;
    t_comm_init(&c, members, "all ranks but the last");
    if (t_rank == t_size - 1) /* the disturber's inputs are never used; it makes them to keep the seeds in step */
        c.size = t_size - 1, c.rank = 0;
    for (int a = 0; a < 3; a++) {
        /* recursive_doubling: 504 bytes in each exchange; ring: 480-byte blocks; rabenseifner: 960 bytes per rank. */
        int count = a == 0 ? 126 : a == 1 ? 120 * c.size : 240 * c.size;
        t_red_data d;
        t_red_prepare(&d, &c, &sum_rd, count);
        t_use("allreduce", algs[a]);
        for (int call = 0; call < T_DISTURB_CALLS; call++)
            disturbed_call(&c, &d, call, call % 3 == 0);
        t_red_release(&d);
    }
    t_use("allreduce", "auto");
    CHECK_OK(nocmsg_comm_free(&members));
}
