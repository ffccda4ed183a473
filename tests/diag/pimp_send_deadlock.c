/*
 * pimp_send_deadlock.c: a raw network deadlock below the library (simulated PIMP chips only). Cores 0 and 1 each
 * stream words to the other and never receive: both receive FIFOs fill, then the routers between them, then both
 * send FIFOs, and each core waits for room in its send FIFO forever. The report must show the whole cycle: core
 * 0's send FIFO, the routers to core 1, core 1's receive FIFO, core 1's send FIFO, the routers back, core 0's
 * receive FIFO.
 */
#include <nocmsg_core.h>
#include <nocmsg_pimp.h>

int main(void)
{
    uint64_t peer = 1 - nocmsg_core_id();
    for (uint64_t i = 0; i < 1000; i++) {
        nocmsg_pimp_wait_send();
        nocmsg_pimp_send(peer, i);
    }
    return 0;
}
