/*
 * nocmsg_mismatch.c: a deadlock in libnocmsg's own interface. Rank 0 sends rank 1 a synchronous message with tag 4
 * while rank 1 waits for one with tag 5 from rank 0 (with the tag in a variable, so that the receive goes through
 * the library rather than the inline fast path): rank 0 waits in nocmsg_ssend for rank 1 to match, rank 1 in
 * nocmsg_recv for rank 0. Other ranks just finish.
 */
#include <nocmsg.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    nocmsg_init(&argc, &argv);
    int rank = nocmsg_rank(), word = 7, tag = argc > 1 ? atoi(argv[1]) : 5;
    if (rank == 0)
        nocmsg_ssend(&word, 1, NOCMSG_INT, 1, 4, NOCMSG_COMM_WORLD);
    else if (rank == 1)
        nocmsg_recv(&word, 1, NOCMSG_INT, 0, tag, NOCMSG_COMM_WORLD, NOCMSG_STATUS_IGNORE);
    printf("rank %d got %d\n", rank, word);
    nocmsg_finalize();
    return 0;
}
