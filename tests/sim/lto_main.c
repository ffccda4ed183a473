/* lto_main.c with lto_part.c: a program of two files that both include nocmsg.h, built with -flto (udn.rs). Link-time
 * optimisation joins the files into one assembly file, which must still assemble: the wait-site macros of
 * nocmsg_wait.h are defined once per file (regression: "Macro `nocmsg_wait_site' was already defined"). */
#include <stdio.h>

#include "nocmsg.h"

int lto_part_twice(int x);

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    long v = 0;
    if (nocmsg_rank() == 0) {
        v = lto_part_twice(21);
        nocmsg_send(&v, 1, NOCMSG_LONG, 1, 0, NOCMSG_COMM_WORLD);
    } else if (nocmsg_rank() == 1) {
        nocmsg_recv(&v, 1, NOCMSG_LONG, 0, 0, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
        printf("lto: %ld\n", v);
    }
    nocmsg_finalize();
    return 0;
}
