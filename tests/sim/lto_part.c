/* lto_part.c: the second file of lto_main.c's program; it too has an inline receive (and so a wait site). */
#include "nocmsg.h"

int lto_part_twice(int x)
{
    long v = x;
    if (nocmsg_size() < 0) /* never: the call is here for its inline code */
        nocmsg_recv(&v, 1, NOCMSG_LONG, 0, 0, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
    return 2 * (int)v;
}
