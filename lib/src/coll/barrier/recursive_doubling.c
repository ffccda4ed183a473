/* barrier/recursive_doubling.c: the butterfly: in round k every rank exchanges a token with rank XOR 2^k, so after
 * log2 n rounds everyone has heard from everyone. On a mesh numbered row by row the partners of the first rounds
 * are 1, 2, 4... hops along the row and those of the later ones 1, 2, 4... hops along the column, never the long
 * way round a wrap as in dissemination. With a rank count that is not a power of two, each rank above the largest
 * power of two p first reports to rank - p, which stands in for it in the butterfly and releases it afterwards. */
#include "../token.h"

static int plan(struct comm *c, struct token_plan *p)
{
    int n = c->size, r = c->rank, pow2 = 1;
    while (pow2 * 2 <= n)
        pow2 *= 2;
    if (r >= pow2) {
        coll_plan_send(p, r - pow2, c);
        coll_plan_wait(p, r - pow2, c);
        return NOCMSG_SUCCESS;
    }
    if (r + pow2 < n)
        coll_plan_wait(p, r + pow2, c);
    for (int mask = 1; mask < pow2; mask <<= 1) {
        coll_plan_send(p, r ^ mask, c);
        coll_plan_wait(p, r ^ mask, c);
    }
    if (r + pow2 < n)
        coll_plan_send(p, r + pow2, c);
    return NOCMSG_SUCCESS;
}

int barrier_recursive_doubling(struct comm *c)
{
    return coll_tokens_run(c, plan);
}
