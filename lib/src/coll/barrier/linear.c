/* barrier/linear.c: centralized, as RCCE does it: everyone tells rank 0, rank 0 releases everyone (the reference). */
#include "../token.h"

static int plan(struct comm *c, struct token_plan *p)
{
    if (c->rank != 0) {
        coll_plan_send(p, 0, c);
        coll_plan_wait(p, 0, c);
        return NOCMSG_SUCCESS;
    }
    for (int r = 1; r < c->size; r++)
        coll_plan_wait(p, r, c);
    for (int r = 1; r < c->size; r++)
        coll_plan_send(p, r, c);
    return NOCMSG_SUCCESS;
}

int barrier_linear(struct comm *c)
{
    return coll_tokens_run(c, plan);
}
