/*
 * pingpong.c - RCCE_send/RCCE_recv between UE 0 and a peer (default 1): every size around the line, the comm buffer
 * and the SCC's 8 KiB MPB, up to 100 KiB, with aligned and misaligned private buffers, data checked both ways; then
 * RCCE_recv_test before and after the message is there. The other UEs only meet at the end.
 *
 *   pingpong.elf [PEER]                       the checks (rank 0 prints what passed)
 *   pingpong.elf --cycles PEER SIZE REPS      mean round trip of SIZE bytes in cycles (for measurements)
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "nocmsg_core.h"

#define MAX_BYTES (100 * 1024 + 64)
static unsigned char out[MAX_BYTES + 8], in[MAX_BYTES + 8];

static void fill(unsigned char *p, size_t size, int from, int to)
{
    for (size_t i = 0; i < size; i++) p[i] = pattern(i, size, from, to);
}

static void expect(const unsigned char *p, size_t size, int from, int to, const char *label, int offset)
{
    for (size_t i = 0; i < size; i++)
        CHECK(p[i] == pattern(i, size, from, to), "%s (%zu bytes, offset %d) from %d to %d: byte %zu is %u, expected %u", label, size,
              offset, from, to, i, p[i], pattern(i, size, from, to));
}

/* One exchange of `size` bytes: 0 sends, the peer echoes its own pattern back. */
static void exchange(int peer, size_t size, int offset, const char *label)
{
    int me = RCCE_ue();
    int other = me == 0 ? peer : 0;
    unsigned char *o = out + offset, *i = in + offset;
    fill(o, size, me, other);
    memset(i, 0xee, size + 1);
    if (me == 0) {
        OK(RCCE_send((char *)o, size, peer));
        OK(RCCE_recv((char *)i, size, peer));
    } else {
        OK(RCCE_recv((char *)i, size, 0));
        OK(RCCE_send((char *)o, size, 0));
    }
    expect(i, size, other, me, label, offset);
    CHECK(i[size] == 0xee, "%s: the byte after the message was overwritten", label);
}

static int cycles_mode(int peer, size_t size, int reps)
{
    int me = RCCE_ue();
    OK(RCCE_barrier(&RCCE_COMM_WORLD));
    if (me == 0 || me == peer) {
        exchange(peer, size, 0, "warm-up");
        uint64_t t0 = nocmsg_cycles();
        for (int r = 0; r < reps; r++) {
            if (me == 0) {
                RCCE_send((char *)out, size, peer);
                RCCE_recv((char *)in, size, peer);
            } else {
                RCCE_recv((char *)in, size, 0);
                RCCE_send((char *)out, size, 0);
            }
        }
        uint64_t t = nocmsg_cycles() - t0;
        if (me == 0) printf("round trip 0<->%d, %zu bytes: %llu cycles (mean of %d)\n", peer, size, (unsigned long long)(t / (uint64_t)reps), reps);
    }
    OK(RCCE_finalize());
    return 0;
}

int RCCE_APP(int argc, char **argv)
{
    OK(RCCE_init(&argc, &argv));
    int me = RCCE_ue();
    if (argc == 5 && strcmp(argv[1], "--cycles") == 0) return cycles_mode(atoi(argv[2]), (size_t)atol(argv[3]), atoi(argv[4]));
    int peer = argc > 1 ? atoi(argv[1]) : 1;
    CHECK(peer > 0 && peer < RCCE_num_ues(), "peer %d: needs 1..%d", peer, RCCE_num_ues() - 1);
    size_t c = RCCE_comm_buffer_bytes();
    struct {
        const char *label;
        size_t size;
    } sizes[] = {
        {"0 bytes", 0}, {"1 byte", 1}, {"31 bytes", 31}, {"32 bytes", 32}, {"33 bytes", 33},
        {"8 KiB", 8192}, {"8 KiB + 1", 8193}, {"100 KiB", 100 * 1024},
        {"comm buffer - 1", c - 1}, {"comm buffer", c}, {"comm buffer + 1", c + 1}, {"2 comm buffers + 33", 2 * c + 33},
    };
    if (me == 0 || me == peer) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            exchange(peer, sizes[s].size, 0, sizes[s].label);
            exchange(peer, sizes[s].size, 3, sizes[s].label);
            if (me == 0) printf("pingpong 0<->%d: %s ok\n", peer, sizes[s].label);
        }
        /* RCCE_recv_test: nothing there yet (0 waits for the peer's word), then the message. */
        int test = -1;
        long word = 0;
        if (me == peer) {
            OK(RCCE_recv_test((char *)&word, sizeof word, 0, &test));
            CHECK(test == 0, "recv_test with nothing sent: test %d", test);
            OK(RCCE_send((char *)&word, sizeof word, 0));
            do {
                OK(RCCE_recv_test((char *)&word, sizeof word, 0, &test));
            } while (!test);
            CHECK(word == 4242, "recv_test got %ld, expected 4242", word);
        } else {
            OK(RCCE_recv((char *)&word, sizeof word, peer));
            word = 4242;
            OK(RCCE_send((char *)&word, sizeof word, peer));
            printf("recv_test ok\n");
        }
    }
    /* Sending to oneself or a UE that does not exist is an error, not a hang. */
    char byte = 0;
    CHECK(RCCE_send(&byte, 1, me) == RCCE_ERROR_ID, "send to oneself");
    CHECK(RCCE_recv(&byte, 1, RCCE_num_ues()) == RCCE_ERROR_ID, "recv from a UE that does not exist");
    OK(RCCE_finalize());
    if (me == 0) printf("pingpong done on %d UEs\n", RCCE_num_ues());
    return 0;
}
