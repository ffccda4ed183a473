/*
 * fc.c: profiles for the flow-control plan, and plans applied at run time (UDN builds; fc.h, docs/fc-plan.md).
 */
#include "fc.h"

#ifdef NOCMSG_PORT_UDN
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nocmsg_semihost.h>

int nocmsg__fc_on;
const void *nocmsg__site;

/* What a profile record is (NOCMSG_SYS_PROFILE's block: kind, region, peer, tag, bytes, flags, site). */
enum { REC_SEND = 1, REC_RECV = 2, REC_REGION = 3, REC_CROSSED = 4 };
enum { F_BLOCKING = 1, F_SYNC = 2, F_RAW = 4, F_ANY_SOURCE = 8, F_ANY_TAG = 16, F_EXCHANGE = 32 };

/* One send the plan saw, and what the plan says of it: keep flow control, drop it, or (a sendrecv's send) drop it in
 * a pairwise exchange run in rank order (fc.h). RELEASE marks the all-to-all that ends a region as released (rule
 * C3), in an entry [region, 0, rank, rank, 0, Q, 3], Q the words of a UDN receive queue. */
enum { KEEP = 0, DROP = 1, EXCHANGE = 2, RELEASE = 3 };
struct planned {
    uint64_t region, pc;
    int64_t dest, tag;
    uint64_t max_bytes;
    int allow;
};

int nocmsg__fc_exchange;

static struct {
    int profile, check, have_plan;
    long plan_ranks;    /* the plan's "ranks" (-1: not given) */
    int warned_ranks;   /* checking mode has said that they differ from the run's */
    uint64_t region;    /* collectives on every rank's communicator so far */
    uint64_t sends;     /* sends recorded so far (their records are numbered from 1) */
    /* Profiling: non-blocking sends not complete yet (their record numbers), to find those crossing a region. */
    struct nocmsg_request_s **pending;
    int npending, cap;
    /* A plan: its sends sorted by (region, pc, dest, tag). */
    struct planned *plan;
    size_t nplan;
    /* Checking: violations, and the sites reported already. */
    uint64_t violations;
    const void *reported[64];
    int nreported;
} fc;

static void record(uint64_t kind, uint64_t peer, uint64_t tag, uint64_t bytes, uint64_t flags, const void *site)
{
    uint64_t block[7] = {kind, fc.region, peer, tag, bytes, flags, (uint64_t)(uintptr_t)site};
    nocmsg_semihost(NOCMSG_SYS_PROFILE, block);
}

static int compare(const void *a, const void *b)
{
    const struct planned *x = a, *y = b;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    if (x->pc != y->pc)
        return x->pc < y->pc ? -1 : 1;
    if (x->dest != y->dest)
        return x->dest < y->dest ? -1 : 1;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* Reads this rank's entries of the plan's "table": [[region, pc, src, dest, tag, max_bytes, allow], ...]
 * (docs/fc-plan.md). */
static int load_plan(const char *path)
{
    /* read(2), not stdio: picolibc's fread goes a byte at a time, which on a simulated core costs tens of cycles a
     * byte. */
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "nocmsg: NOCMSG_FC_PLAN=%s: cannot open the plan\n", path);
        return NOCMSG_ERR_ARG;
    }
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap + 1);
    for (ssize_t got; text && (got = read(fd, text + len, cap - len)) > 0;) {
        len += (size_t)got;
        if (len == cap) {
            char *bigger = realloc(text, 2 * cap + 1);
            if (!bigger) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            cap *= 2;
        }
    }
    close(fd);
    if (!text)
        return NOCMSG_ERR_NO_MEM;
    text[len] = '\0';
    /* The rank count the plan was made for ("ranks", before the table): its released all-to-alls hold only there. */
    const char *ranks = strstr(text, "\"ranks\"");
    const char *table = strstr(text, "\"table\"");
    fc.plan_ranks = -1;
    if (ranks && (!table || ranks < table) && (ranks = strchr(ranks, ':')))
        fc.plan_ranks = strtol(ranks + 1, NULL, 10);
    const char *p = table;
    if (!p || !(p = strchr(p, '['))) {
        fprintf(stderr, "nocmsg: NOCMSG_FC_PLAN=%s: no \"table\" in it (write it with nocmsg fc-plan)\n", path);
        free(text);
        return NOCMSG_ERR_ARG;
    }
    /* The numbers up to the table's closing bracket, seven to an entry. */
    size_t n = 0, room = 0;
    int64_t values[7];
    int k = 0, depth = 0;
    for (p++; *p; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']' && depth-- == 0)
            break;
        else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            char *end;
            errno = 0;
            long long v = strtoll(p, &end, 10);
            if (end == p || errno == ERANGE) {
                fprintf(stderr, "nocmsg: NOCMSG_FC_PLAN=%s: its table has a malformed number near \"%.12s\"\n", path, p);
                free(text);
                return NOCMSG_ERR_ARG;
            }
            values[k++] = v;
            p = end - 1;
            if (k == 7 && values[2] != nocmsg_lib.rank) {
                k = 0;
            } else if (k == 7) {
                if (n == room) {
                    room = room ? 2 * room : 256;
                    struct planned *more = realloc(fc.plan, room * sizeof *more);
                    if (!more) {
                        free(text);
                        return NOCMSG_ERR_NO_MEM;
                    }
                    fc.plan = more;
                }
                fc.plan[n++] = (struct planned){(uint64_t)values[0], (uint64_t)values[1], values[3], values[4],
                                                (uint64_t)values[5], (int)values[6]};
                k = 0;
            }
        }
    }
    free(text);
    if (k != 0) {
        fprintf(stderr, "nocmsg: NOCMSG_FC_PLAN=%s: its table does not hold whole entries of seven numbers\n", path);
        return NOCMSG_ERR_ARG;
    }
    qsort(fc.plan, n, sizeof *fc.plan, compare);
    fc.nplan = n;
    return NOCMSG_SUCCESS;
}

int nocmsg_fc_init(void)
{
    memset(&fc, 0, sizeof fc);
    nocmsg__site = NULL;
    const char *profile = getenv("NOCMSG_COMM_PROFILE"), *plan = getenv("NOCMSG_FC_PLAN"), *check = getenv("NOCMSG_FC_CHECK");
    fc.profile = profile && strcmp(profile, "0") != 0;
    fc.check = check && strcmp(check, "0") != 0;
    if (plan && *plan) {
        int err = load_plan(plan);
        if (err != NOCMSG_SUCCESS)
            return err;
        fc.have_plan = 1; /* even with no entry of this rank's: checking mode reports its sends */
    }
    nocmsg__fc_on = fc.profile || fc.have_plan;
    return NOCMSG_SUCCESS;
}

void nocmsg_fc_finalize(void)
{
    if (fc.violations)
        fprintf(stderr, "nocmsg: rank %d: %llu calls broke the flow-control plan's assumptions and kept flow control\n",
                nocmsg_lib.rank, (unsigned long long)fc.violations);
    free(fc.plan);
    free(fc.pending);
    memset(&fc, 0, sizeof fc);
    nocmsg__fc_on = 0;
    nocmsg__site = NULL;
}

/* The site of the call under way, which is then over. */
static const void *take_site(void)
{
    const void *site = nocmsg__site ? nocmsg__site : __builtin_return_address(0);
    nocmsg__site = NULL;
    return site;
}

static const struct planned *find(uint64_t pc, int dest, int tag)
{
    struct planned key = {fc.region, pc, dest, tag, 0, 0};
    return bsearch(&key, fc.plan, fc.nplan, sizeof key, compare);
}

/* A send that breaks the plan's assumptions: counted, and reported once per site. */
static void violation(const void *site, const char *what, const struct nocmsg_request_s *r)
{
    fc.violations++;
    for (int i = 0; i < fc.nreported; i++)
        if (fc.reported[i] == site)
            return;
    if (fc.nreported < (int)(sizeof fc.reported / sizeof *fc.reported))
        fc.reported[fc.nreported++] = site;
    fprintf(stderr,
            "nocmsg: rank %d: flow-control plan violated at pc %p, region %llu: a send to rank %d (tag %d, %zu bytes) "
            "%s; it keeps flow control\n",
            nocmsg_lib.rank, site, (unsigned long long)fc.region, r->peer, r->tag, r->bytes, what);
}

int nocmsg_fc_send(struct nocmsg_request_s *r, int mode, int blocking)
{
    const void *site = take_site();
    if (r->peer < 0) /* NOCMSG_PROC_NULL */
        return mode;
    if (fc.profile) {
        uint64_t flags = (blocking ? F_BLOCKING : 0) | (mode == SEND_SYNC ? F_SYNC : 0) | (mode >= SEND_XFER ? F_RAW : 0) |
                         (nocmsg__fc_exchange ? F_EXCHANGE : 0);
        record(REC_SEND, (uint64_t)r->peer, (uint64_t)(int64_t)r->tag, r->bytes, flags, site);
        fc.sends++;
        if (!blocking && fc.npending == fc.cap) {
            int cap = fc.cap ? 2 * fc.cap : 64;
            struct nocmsg_request_s **more = realloc(fc.pending, (size_t)cap * sizeof *more);
            if (more) {
                fc.pending = more;
                fc.cap = cap;
            }
        }
        if (!blocking && fc.npending < fc.cap) {
            r->fc_seq = fc.sends;
            fc.pending[fc.npending++] = r;
        }
        return mode;
    }
    if (!fc.have_plan || mode == SEND_SYNC)
        return mode;
    const struct planned *p = find((uint64_t)(uintptr_t)site, r->peer, r->tag);
    if (!p) {
        if (fc.check)
            violation(site, "was not in the profile the plan came from", r);
        return mode;
    }
    if (p->allow != DROP) /* kept; an exchange's send runs its own way (nocmsg_fc_exchange_plan) */
        return mode;
    if (r->bytes > p->max_bytes) {
        if (fc.check) {
            violation(site, "is larger than the profile's largest there", r);
            return mode;
        }
    }
    return SEND_RAW;
}

void nocmsg_fc_recv(const struct nocmsg_request_s *r, int blocking)
{
    const void *site = take_site();
    if (!fc.profile || r->peer == NOCMSG_PROC_NULL)
        return;
    uint64_t flags = (blocking ? F_BLOCKING : 0) | (r->peer == NOCMSG_ANY_SOURCE ? F_ANY_SOURCE : 0) |
                     (r->tag == NOCMSG_ANY_TAG ? F_ANY_TAG : 0) | (nocmsg__fc_exchange ? F_EXCHANGE : 0);
    record(REC_RECV, (uint64_t)(int64_t)r->peer, (uint64_t)(int64_t)r->tag, r->bytes, flags, site);
}

int nocmsg_fc_exchange_plan(int dest, int tag, size_t bytes)
{
    if (!fc.have_plan || fc.profile)
        return 0;
    const struct planned *p = find((uint64_t)(uintptr_t)nocmsg__site, dest, tag);
    return p && p->allow == EXCHANGE && bytes <= p->max_bytes;
}

int nocmsg_fc_releases(const struct comm *c, unsigned *queue_words)
{
    if (!fc.have_plan || fc.profile || c->size != nocmsg_lib.size)
        return 0;
    const struct planned *p = find(0, nocmsg_lib.rank, 0);
    if (!p || p->allow != RELEASE)
        return 0;
    if (fc.plan_ranks != nocmsg_lib.size) {
        /* A plan for another rank count would release it on some ranks only. */
        if (fc.check && nocmsg_lib.rank == 0 && !fc.warned_ranks)
            fprintf(stderr, "nocmsg: rank 0: the flow-control plan was made for %ld ranks, not %d: its all-to-alls "
                            "keep flow control\n", fc.plan_ranks, nocmsg_lib.size);
        fc.warned_ranks = 1;
        return 0;
    }
    *queue_words = p->max_bytes > 4096 ? 4096 : (unsigned)p->max_bytes;
    return 1;
}

void nocmsg_fc_release_refused(const char *operation, long long unreceived, int busy)
{
    if (!fc.check)
        return;
    fc.violations++;
    if (nocmsg_lib.rank != 0)
        return; /* every rank has the same verdict: one report */
    fprintf(stderr,
            "nocmsg: rank 0: flow-control plan violated at the %s ending region %llu: %s; it keeps flow control\n",
            operation, (unsigned long long)(fc.region - 1),
            busy ? "a rank was still sending or receiving a message when it began"
                 : unreceived > 0 ? "messages sent before it had not all been received when it began"
                                  : "the ranks' packet counts disagree");
}

void nocmsg_fc_boundary(const char *operation, const struct comm *c)
{
    if (c->size != nocmsg_lib.size)
        return;
    if (fc.profile) {
        /* Non-blocking sends still under way cross into the next region (rule R1). */
        for (int i = 0; i < fc.npending;) {
            if (fc.pending[i]->done) {
                fc.pending[i] = fc.pending[--fc.npending];
                continue;
            }
            record(REC_CROSSED, fc.pending[i]->fc_seq, 0, 0, 0, NULL);
            fc.pending[i]->fc_seq = 0;
            fc.pending[i] = fc.pending[--fc.npending];
        }
        record(REC_REGION, (uint64_t)c->size, 0, (uint64_t)(uintptr_t)operation, 0, NULL);
    }
    fc.region++;
}

void nocmsg_fc_completed(struct nocmsg_request_s *r)
{
    for (int i = 0; i < fc.npending; i++)
        if (fc.pending[i] == r) {
            fc.pending[i] = fc.pending[--fc.npending];
            break;
        }
    r->fc_seq = 0;
}
#endif /* NOCMSG_PORT_UDN */
