/* barrier/binomial.c: a binomial tree to rank 0 and back: log2 n levels up, log2 n down. */
#include "../token.h"

static int plan(struct comm *c, struct token_plan *p)
{
    int r = c->rank, n = c->size, mask = 1;
    /* Up: hear from every child (r + mask for the low zero bits of r), then tell the parent and wait for it. */
    for (; mask < n; mask <<= 1) {
        if (r & mask) {
            coll_plan_send(p, r - mask, c);
            coll_plan_wait(p, r - mask, c);
            break;
        }
        if (r + mask < n)
            coll_plan_wait(p, r + mask, c);
    }
    /* Down: release the children in reverse order. */
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (r + mask < n)
            coll_plan_send(p, r + mask, c);
    return NOCMSG_SUCCESS;
}

int barrier_binomial(struct comm *c)
{
    return coll_tokens_run(c, plan);
}
