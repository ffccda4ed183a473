/*
 * pimp_ni.c: the PIMP network interface itself, below the library. Run on 2 cores of a pimp chip:
 *   pimp_ni order N        core 0 streams N words to core 1 (waiting with bns), core 1 checks them in order
 *   pimp_ni backpressure N like order, but core 1 computes first, so the network fills and core 0 waits
 *   pimp_ni recv-empty     core 0 runs recv on an empty FIFO (a fault)
 *   pimp_ni src-empty      core 0 runs src on an empty FIFO (a fault)
 *   pimp_ni send-full      core 0 sends without testing to a core that never receives (a fault once full)
 *   pimp_ni bad-dest       core 0 sends to core 99 (a fault)
 *   pimp_ni deadlock       both cores wait for a message nobody sends
 *   pimp_ni unreceived N   core 0 sends N words to core 1, which exits without receiving them; core 0 then computes
 *                          for a while, so the words sit in core 1's receive FIFO until the run ends
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nocmsg_core.h>
#include <nocmsg_pimp.h>

static volatile uint64_t sink;

static int stream(uint64_t n, int delay)
{
    if (nocmsg_core_id() == 0) {
        for (uint64_t i = 0; i < n; i++) {
            nocmsg_pimp_wait_send();
            nocmsg_pimp_send(1, i * 0x9e3779b97f4a7c15ull);
        }
    } else if (nocmsg_core_id() == 1) {
        for (int i = 0; i < delay; i++)
            sink += (uint64_t)i * 3;
        for (uint64_t i = 0; i < n; i++) {
            nocmsg_pimp_wait_recv();
            uint64_t from = nocmsg_pimp_src(), w = nocmsg_pimp_recv();
            if (from != 0 || w != i * 0x9e3779b97f4a7c15ull) {
                printf("word %llu: got %#llx from core %llu\n", (unsigned long long)i, (unsigned long long)w,
                       (unsigned long long)from);
                return 1;
            }
        }
        printf("received %llu words in order\n", (unsigned long long)n);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "order";
    uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 100;
    int me = nocmsg_core_id();
    if (!strcmp(mode, "order"))
        return stream(n, 0);
    if (!strcmp(mode, "backpressure"))
        return stream(n, 20000);
    if (!strcmp(mode, "recv-empty") && me == 0)
        sink = nocmsg_pimp_recv();
    if (!strcmp(mode, "src-empty") && me == 0)
        sink = nocmsg_pimp_src();
    if (!strcmp(mode, "send-full") && me == 0)
        for (uint64_t i = 0; i < 1000; i++)
            nocmsg_pimp_send(1, i);
    if (!strcmp(mode, "bad-dest") && me == 0)
        nocmsg_pimp_send(99, 1);
    if (!strcmp(mode, "unreceived") && me == 0) {
        for (uint64_t i = 0; i < n; i++) {
            nocmsg_pimp_wait_send();
            nocmsg_pimp_send(1, i);
        }
        for (int i = 0; i < 20000; i++)
            sink += (uint64_t)i * 3;
    }
    if (!strcmp(mode, "deadlock")) {
        nocmsg_pimp_wait_recv();
        sink = nocmsg_pimp_recv();
    }
    return 0;
}
