/* barrier/dissemination.c: in round k every rank signals rank + 2^k and waits for rank - 2^k; after
 * ceil(log2 n) rounds everyone has heard, indirectly, from everyone (any rank count). */
#include "../token.h"

static int plan(struct comm *c, struct token_plan *p)
{
    int n = c->size;
    for (int dist = 1; dist < n; dist *= 2) {
        coll_plan_send(p, (c->rank + dist) % n, c);
        coll_plan_wait(p, (c->rank - dist + n) % n, c);
    }
    return NOCMSG_SUCCESS;
}

int barrier_dissemination(struct comm *c)
{
    return coll_tokens_run(c, plan);
}
