/* exchange.c: NoCMsg's Figure 1 on a UDN chip (experiments/nocmsg_deadlock.py). Ranks 0 and 1 exchange `words`
 * 64-bit words, each sending before it receives:
 *   raw   one UDN packet each way, written with stalling writes, then read: deadlocks once a packet no longer fits
 *         in the buffering of the path between the two (the two packets hold both directions and neither core reads);
 *   lib   the same exchange through libnocmsg, written as the naive program would be (nocmsg_send, then nocmsg_recv)
 *         up to the eager limit, and with nocmsg_sendrecv beyond it (a blocking send of a large message waits for
 *         its receiver under MPI's rules): completes at every size, the work loop draining while it sends.
 * Rank 0 prints `exchange,MODE,WORDS,CYCLES,ok` (cycles from a common start to both ranks done).
 * Usage: exchange.elf raw|lib WORDS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nocmsg.h"
#include "nocmsg_core.h"
#include "nocmsg_udn.h"

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "raw") && strcmp(argv[1], "lib"))) {
        fprintf(stderr, "usage: exchange.elf raw|lib WORDS\n");
        return 2;
    }
    int raw = strcmp(argv[1], "raw") == 0;
    long words = strtol(argv[2], NULL, 10);
    if (words < 1 || words > (raw ? (long)nocmsg_udn_max_packet() : 1 << 20)) {
        fprintf(stderr, "exchange: %ld words is out of range\n", words);
        return 2;
    }
    uint64_t *out = malloc((size_t)words * 8), *in = malloc((size_t)words * 8);
    if (!out || !in)
        return 3;
    int me = nocmsg_core_id();
    for (long i = 0; i < words; i++)
        out[i] = (uint64_t)me << 32 | (uint64_t)i;
    uint64_t start, sum = 0;
    int ok = 1;
    if (raw) {
        if (me > 1)
            return 0;
        start = nocmsg_cycles();
        nocmsg_udn_send_packet((unsigned)(1 - me), 0, out, (unsigned)words);
        for (long i = 0; i < words; i++)
            sum += nocmsg_udn_recv(0) == ((uint64_t)(1 - me) << 32 | (uint64_t)i);
        ok = sum == (uint64_t)words;
    } else {
        nocmsg_init(NULL, NULL);
        int peer = 1 - me;
        nocmsg_barrier(NOCMSG_COMM_WORLD);
        start = nocmsg_cycles();
        if (me <= 1) {
            size_t bytes = (size_t)words * 8;
            if (bytes <= 512) {
                nocmsg_send(out, (int)words, NOCMSG_UINT64, peer, 0, NOCMSG_COMM_WORLD);
                nocmsg_recv(in, (int)words, NOCMSG_UINT64, peer, 0, NOCMSG_COMM_WORLD, NULL);
            } else {
                nocmsg_sendrecv(out, (int)words, NOCMSG_UINT64, peer, 0, in, (int)words, NOCMSG_UINT64, peer, 0,
                                NOCMSG_COMM_WORLD, NULL);
            }
            for (long i = 0; i < words; i++)
                ok &= in[i] == ((uint64_t)peer << 32 | (uint64_t)i);
        }
        uint64_t mine = nocmsg_cycles() - start, most = 0;
        int all = 0;
        nocmsg_reduce(&mine, &most, 1, NOCMSG_UINT64, NOCMSG_MAX, 0, NOCMSG_COMM_WORLD);
        nocmsg_reduce(&ok, &all, 1, NOCMSG_INT, NOCMSG_MIN, 0, NOCMSG_COMM_WORLD);
        if (me == 0)
            printf("exchange,lib,%ld,%llu,%s\n", words, (unsigned long long)most, all ? "ok" : "WRONG");
        nocmsg_finalize();
        return ok ? 0 : 1;
    }
    if (me == 0)
        printf("exchange,raw,%ld,%llu,%s\n", words, (unsigned long long)(nocmsg_cycles() - start), ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
