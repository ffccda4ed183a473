/*
 * p2p.c: MPI point-to-point communication and requests on libnocmsg.
 *
 * Sends and receives of libnocmsg's basic types go straight to libnocmsg (so on the simulator an MPI_Send costs
 * a call more than nocmsg_send). Other datatypes travel as bytes: contiguous ones from the user's memory, the
 * rest packed into a temporary block first (mpi_view_*). An MPI request wraps a libnocmsg request and adds what
 * MPI has on top: unpacking at completion, persistence, cancellation, buffered sends, and non-blocking
 * collectives (whose schedules nbc.c advances).
 *
 * Requests that nobody holds any more (MPI_Request_free on an active one, and the sends behind MPI_Bsend) and
 * every active non-blocking collective are "tracked": they are advanced whenever the rank waits in libnocmsg
 * (nocmsg_engine_idle) and in every test, so they complete without a wait on them.
 */
#include "mpi_impl.h"

#include "../engine.h"
#include "../fc.h"
#include "../wait.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Most predefined types go to libnocmsg as they are. */
#define BASIC(type) MPI_NOCMSG_WIRE(type)

/* Buffered sends use MREQ_SEND requests with this mode, and their data lives in the attached buffer. */
enum { MODE_BUFFERED = 3 };

static struct nocmsg_mpi_request *tracked;

void mpi_status_empty(MPI_Status *s)
{
    if (s) {
        s->MPI_SOURCE = MPI_ANY_SOURCE;
        s->MPI_TAG = MPI_ANY_TAG;
        s->MPI_ERROR = MPI_SUCCESS;
        s->nocmsg_cancelled = 0;
        s->nocmsg_count = 0;
    }
}

/* A status handed to the program: single-completion calls leave MPI_ERROR alone, as MPI specifies. */
static void status_out(MPI_Status *dst, const MPI_Status *src, int with_error)
{
    if (!dst)
        return;
    int error = dst->MPI_ERROR;
    *dst = *src;
    if (!with_error)
        dst->MPI_ERROR = error;
}

/* The status of a blocking receive or probe: MPI_ERROR is left alone, as MPI specifies for single completions. */
static void recv_status(MPI_Status *status, const nocmsg_status *st, int err)
{
    if (status && (err == MPI_SUCCESS || err == MPI_ERR_TRUNCATE)) {
        int error = status->MPI_ERROR;
        mpi_status_from(status, st);
        status->MPI_ERROR = error;
    }
}

/* The empty status of a null or inactive request, handed out. */
static void empty_out(MPI_Status *status, int with_error)
{
    MPI_Status empty;
    mpi_status_empty(&empty);
    status_out(status, &empty, with_error);
}

/* ---- views: datatypes as bytes ---- */

int mpi_view_send(const void *buf, size_t count, const struct mpi_type *t, struct mpi_view *v)
{
    v->bytes = count * t->size;
    v->packed = NULL;
    if (t->contiguous || !v->bytes) {
        v->data = v->bytes ? (char *)buf + t->true_lb : (void *)buf;
        return MPI_SUCCESS;
    }
    if (!(v->packed = malloc(v->bytes)))
        return MPI_ERR_NO_MEM;
    mpi_pack(buf, count, t, v->packed);
    v->data = v->packed;
    return MPI_SUCCESS;
}

int mpi_view_recv(void *buf, size_t count, const struct mpi_type *t, struct mpi_view *v)
{
    v->bytes = count * t->size;
    v->packed = NULL;
    if (t->contiguous || !v->bytes) {
        v->data = v->bytes ? (char *)buf + t->true_lb : buf;
        return MPI_SUCCESS;
    }
    if (!(v->packed = malloc(v->bytes)))
        return MPI_ERR_NO_MEM;
    v->data = v->packed;
    return MPI_SUCCESS;
}

void mpi_view_finish(struct mpi_view *v, void *buf, const struct mpi_type *t, size_t got)
{
    if (v->packed) {
        mpi_unpack_bytes(v->packed, got < v->bytes ? got : v->bytes, t, buf);
        free(v->packed);
        v->packed = NULL;
    }
}

/* The bytes of a buffer description that is not a basic type, with its type. */
static int describe(MPI_Datatype type, int count, const struct mpi_type **t, size_t *bytes)
{
    int err = mpi_type_bytes(type, count, t, bytes);
    if (err == MPI_SUCCESS && *bytes > INT_MAX)
        err = MPI_ERR_COUNT; /* libnocmsg counts in int */
    return err;
}

/* ---- buffered sends ---- */

/* The attached buffer and the messages in it (ordered by offset; first fit). */
struct bsend_seg {
    size_t off, len;
    struct bsend_seg *next;
};
static struct {
    char *base;
    size_t size;
    struct bsend_seg *segs;
} bbuf;

/* A message takes its size plus MPI_BSEND_OVERHEAD bytes of the buffer, as MPI promises programs; the data starts at
 * the first 16-byte boundary of its space (the overhead covers that slack). */
#define BSEND_ALIGN 16

static struct bsend_seg *bsend_alloc(size_t bytes)
{
    size_t len = bytes + MPI_BSEND_OVERHEAD, start = 0;
    struct bsend_seg **link = &bbuf.segs;
    for (;; link = &(*link)->next) {
        size_t end = *link ? (*link)->off : bbuf.size;
        if (end >= start && end - start >= len) {
            struct bsend_seg *s = malloc(sizeof *s);
            if (!s)
                return NULL;
            *s = (struct bsend_seg){start, len, *link};
            *link = s;
            return s;
        }
        if (!*link)
            return NULL;
        start = (*link)->off + (*link)->len;
    }
}

static char *bsend_data(const struct bsend_seg *s)
{
    uintptr_t p = (uintptr_t)(bbuf.base + s->off);
    return (char *)((p + BSEND_ALIGN - 1) & ~(uintptr_t)(BSEND_ALIGN - 1));
}

static void bsend_free(struct bsend_seg *s)
{
    struct bsend_seg **link = &bbuf.segs;
    while (*link != s)
        link = &(*link)->next;
    *link = s->next;
    free(s);
}

static void track(struct nocmsg_mpi_request *r)
{
    r->next_nbc = tracked;
    tracked = r;
}

static int request_poll(struct nocmsg_mpi_request *r);
static void request_destroy(struct nocmsg_mpi_request *r);
static void untrack(struct nocmsg_mpi_request *r);

/* Names of cancellable messages: unique among this rank's sends, with bit 63 set (no request's address has it). */
static uint64_t next_send_id(void)
{
    static uint64_t seq;
    return ((uint64_t)1 << 63) | ++seq;
}

/* Copies the message into the attached buffer and sends it from there; the send is tracked until it is out. With an
 * owner (MPI_Ibsend's request), the send can be cancelled through it. */
static int bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                 struct nocmsg_mpi_request *owner)
{
    const struct mpi_type *t;
    size_t bytes;
    int err = describe(type, count, &t, &bytes);
    if (err != MPI_SUCCESS)
        return err;
    if (dest == MPI_PROC_NULL)
        return nocmsg_send(NULL, 0, NOCMSG_BYTE, dest, tag, comm);
    struct bsend_seg *seg = bbuf.base ? bsend_alloc(bytes) : NULL;
    if (!seg && bbuf.base) {
        /* Messages sent earlier may be out by now. */
        mpi_progress_nbc();
        seg = bsend_alloc(bytes);
    }
    if (!seg)
        return MPI_ERR_BUFFER;
    char *data = bsend_data(seg);
    if (t->contiguous)
        memcpy(data, (const char *)buf + (bytes ? t->true_lb : 0), bytes);
    else
        mpi_pack(buf, (size_t)count, t, data);
    struct nocmsg_mpi_request *r = calloc(1, sizeof *r);
    if (!r) {
        bsend_free(seg);
        return MPI_ERR_NO_MEM;
    }
    r->kind = MREQ_SEND;
    r->mode = MODE_BUFFERED;
    r->active = 1;
    r->freed = 1;
    r->comm = comm;
    r->type = MPI_DATATYPE_NULL;
    r->view.packed = seg; /* released at completion */
    uint64_t key;
    err = nocmsg__isend_id(data, (int)bytes, NOCMSG_BYTE, dest, tag, comm, SEND_STANDARD, next_send_id(), &key,
                           &r->inner);
    if (err != MPI_SUCCESS) {
        bsend_free(seg);
        free(r);
        return err;
    }
    if (owner) {
        owner->bsent = r;
        r->owner = owner;
        owner->cancel_key = key;
    }
    track(r);
    return MPI_SUCCESS;
}

int MPI_Buffer_attach(void *buffer, int size)
{
    if (bbuf.base)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_BUFFER);
    if (size < 0 || (!buffer && size > 0))
        MPI_RETURN(MPI_COMM_WORLD, size < 0 ? MPI_ERR_COUNT : MPI_ERR_BUFFER);
    static char empty[1];
    bbuf.base = buffer ? buffer : empty;
    bbuf.size = buffer ? (size_t)size : 0;
    return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
    if (!buffer_addr || !size)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    if (!bbuf.base)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_BUFFER);
    /* MPI 3.1 §3.6.1: detach waits until every message in the buffer has been sent. */
    int entered = 0;
    while (bbuf.segs) {
        mpi_progress_nbc();
        if (bbuf.segs) {
            if (!entered)
                entered = nocmsg_wait_enter(-2, NULL);
            nocmsg_engine_block();
        }
    }
    nocmsg_wait_leave(entered);
    /* buffer_addr holds a pointer; memcpy, since programs pass the address of whatever variable they have (an
     * int-aligned one would trap on the simulated cores, which have no misaligned stores). */
    memcpy(buffer_addr, &bbuf.base, sizeof bbuf.base);
    *size = (int)bbuf.size;
    bbuf.base = NULL;
    bbuf.size = 0;
    return MPI_SUCCESS;
}

/* ---- blocking point-to-point ---- */

__attribute__((noinline, cold)) static int send_general(const void *buf, int count, MPI_Datatype type, int dest,
                                                        int tag, MPI_Comm comm, int sync)
{
    const struct mpi_type *t;
    size_t bytes;
    struct mpi_view v;
    int err = describe(type, count, &t, &bytes);
    if (err == MPI_SUCCESS)
        err = mpi_view_send(buf, (size_t)count, t, &v);
    if (err != MPI_SUCCESS)
        return err;
    err = sync ? nocmsg_ssend(v.data, (int)bytes, NOCMSG_BYTE, dest, tag, comm)
               : nocmsg_send(v.data, (int)bytes, NOCMSG_BYTE, dest, tag, comm);
    free(v.packed);
    return err;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    if (__builtin_expect(BASIC(datatype), 1))
        MPI_RETURN(comm, nocmsg_send(buf, count, datatype, dest, tag, comm));
    MPI_RETURN(comm, send_general(buf, count, datatype, dest, tag, comm, 0));
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    if (BASIC(datatype))
        MPI_RETURN(comm, nocmsg_send(buf, count, datatype, dest, tag, comm));
    MPI_RETURN(comm, send_general(buf, count, datatype, dest, tag, comm, 0));
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    if (BASIC(datatype))
        MPI_RETURN(comm, nocmsg_ssend(buf, count, datatype, dest, tag, comm));
    MPI_RETURN(comm, send_general(buf, count, datatype, dest, tag, comm, 1));
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    MPI_RETURN(comm, bsend(buf, count, datatype, dest, tag, comm, NULL));
}

__attribute__((noinline, cold)) static int recv_general(void *buf, int count, MPI_Datatype datatype, int source,
                                                        int tag, MPI_Comm comm, MPI_Status *status)
{
    const struct mpi_type *t;
    size_t bytes;
    struct mpi_view v;
    nocmsg_status st;
    int err = describe(datatype, count, &t, &bytes);
    if (err == MPI_SUCCESS)
        err = mpi_view_recv(buf, (size_t)count, t, &v);
    if (err != MPI_SUCCESS)
        return err;
    err = nocmsg_recv(v.data, (int)bytes, NOCMSG_BYTE, source, tag, comm, &st);
    mpi_view_finish(&v, buf, t, err == MPI_SUCCESS || err == MPI_ERR_TRUNCATE ? st.count_bytes : 0);
    recv_status(status, &st, err);
    return err;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    int err;
    if (__builtin_expect(!BASIC(datatype), 0)) {
        err = recv_general(buf, count, datatype, source, tag, comm, status);
    } else if (!status) {
        err = nocmsg_recv(buf, count, datatype, source, tag, comm, NOCMSG_STATUS_IGNORE);
    } else {
        nocmsg_status st;
        err = nocmsg_recv(buf, count, datatype, source, tag, comm, &st);
        recv_status(status, &st, err);
    }
    MPI_RETURN(comm, err);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    nocmsg_status st;
    int err;
    if (BASIC(sendtype) && BASIC(recvtype)) {
        err = nocmsg_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                              recvtag, comm, &st);
    } else {
        const struct mpi_type *st_, *rt;
        size_t sbytes, rbytes;
        struct mpi_view sv = {0}, rv = {0};
        err = describe(sendtype, sendcount, &st_, &sbytes);
        if (err == MPI_SUCCESS)
            err = describe(recvtype, recvcount, &rt, &rbytes);
        if (err == MPI_SUCCESS)
            err = mpi_view_send(sendbuf, (size_t)sendcount, st_, &sv);
        if (err == MPI_SUCCESS && (err = mpi_view_recv(recvbuf, (size_t)recvcount, rt, &rv)) != MPI_SUCCESS)
            free(sv.packed);
        if (err != MPI_SUCCESS)
            MPI_RETURN(comm, err);
        err = nocmsg_sendrecv(sv.data, (int)sbytes, NOCMSG_BYTE, dest, sendtag, rv.data, (int)rbytes, NOCMSG_BYTE,
                              source, recvtag, comm, &st);
        free(sv.packed);
        mpi_view_finish(&rv, recvbuf, rt, err == MPI_SUCCESS || err == MPI_ERR_TRUNCATE ? st.count_bytes : 0);
    }
    recv_status(status, &st, err);
    MPI_RETURN(comm, err);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status *status)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    nocmsg_status st;
    int err;
    if (BASIC(datatype)) {
        err = nocmsg_sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, &st);
    } else {
        const struct mpi_type *t;
        size_t bytes;
        struct mpi_view v;
        err = describe(datatype, count, &t, &bytes);
        if (err == MPI_SUCCESS)
            err = mpi_view_send(buf, (size_t)count, t, &v);
        if (err != MPI_SUCCESS)
            MPI_RETURN(comm, err);
        err = nocmsg_sendrecv_replace(v.data, (int)bytes, NOCMSG_BYTE, dest, sendtag, source, recvtag, comm, &st);
        mpi_view_finish(&v, buf, t, err == MPI_SUCCESS || err == MPI_ERR_TRUNCATE ? st.count_bytes : 0);
    }
    recv_status(status, &st, err);
    MPI_RETURN(comm, err);
}

/* ---- requests ---- */

/* Starts a point-to-point request (a new one or a persistent one being restarted). */
static int p2p_start(struct nocmsg_mpi_request *r)
{
    r->active = 1;
    r->complete = 0;
    r->inner = NOCMSG_REQUEST_NULL;
    r->view.packed = NULL;
    r->cancel_key = 0;
    r->cancel_asked = 0;
    if (r->mode == MODE_BUFFERED) {
        /* The data is copied out at once, so the request is complete at once. */
        mpi_status_empty(&r->status);
        r->complete = 1;
        return bsend(r->buf, r->count, r->type, r->peer, r->tag, r->comm, r);
    }
    void *data = (void *)r->buf;
    int n = r->count;
    nocmsg_datatype nt = r->type;
    if (!BASIC(r->type)) {
        const struct mpi_type *t;
        size_t bytes;
        int err = describe(r->type, r->count, &t, &bytes);
        if (err == MPI_SUCCESS)
            err = r->kind == MREQ_SEND ? mpi_view_send(r->buf, (size_t)r->count, t, &r->view)
                                       : mpi_view_recv((void *)r->buf, (size_t)r->count, t, &r->view);
        if (err != MPI_SUCCESS)
            return err;
        data = r->view.data;
        n = (int)bytes;
        nt = NOCMSG_BYTE;
    }
    int err;
    if (r->kind == MREQ_RECV)
        err = nocmsg_irecv(data, n, nt, r->peer, r->tag, r->comm, &r->inner);
    else
        err = nocmsg__isend_id(data, n, nt, r->peer, r->tag, r->comm, r->mode, next_send_id(), &r->cancel_key,
                               &r->inner);
    if (err != MPI_SUCCESS) {
        free(r->view.packed);
        r->view.packed = NULL;
        r->active = 0;
    } else if (r->inner && !r->holds_comm) {
        struct mpi_comm_state *st = mpi_comm_state(r->comm);
        if (st) {
            st->pending++;
            r->holds_comm = 1;
        }
    }
    return err;
}

/* r no longer needs its communicator (it has completed). */
static void comm_unhold(struct nocmsg_mpi_request *r)
{
    if (r->holds_comm) {
        r->holds_comm = 0;
        mpi_comm_unhold(r->comm);
    }
}

static int request_new(int kind, int mode, const void *buf, int count, MPI_Datatype type, int peer, int tag,
                       MPI_Comm comm, int persistent, MPI_Request *request)
{
    if (!request)
        return MPI_ERR_REQUEST;
    *request = MPI_REQUEST_NULL;
    if (!BASIC(type)) {
        const struct mpi_type *t;
        size_t bytes;
        int err = describe(type, count, &t, &bytes);
        if (err != MPI_SUCCESS)
            return err;
    }
    struct nocmsg_mpi_request *r = calloc(1, sizeof *r);
    if (!r)
        return MPI_ERR_NO_MEM;
    r->kind = kind;
    r->mode = mode;
    r->persistent = persistent;
    r->comm = comm;
    r->buf = buf;
    r->count = count;
    r->type = type;
    r->peer = peer;
    r->tag = tag;
    int err = MPI_SUCCESS;
    if (persistent) {
        /* Check now what a start would find wrong (MPI reports it at init). */
        int size;
        err = nocmsg_comm_size(comm, &size);
        if (err == MPI_SUCCESS && count < 0)
            err = MPI_ERR_COUNT;
        if (err == MPI_SUCCESS && !(peer >= 0 && peer < size) && peer != MPI_PROC_NULL &&
            !(kind == MREQ_RECV && peer == MPI_ANY_SOURCE))
            err = MPI_ERR_RANK;
        if (err == MPI_SUCCESS && !(tag >= 0 && tag <= NOCMSG_TAG_UB) && !(kind == MREQ_RECV && tag == MPI_ANY_TAG))
            err = MPI_ERR_TAG;
        if (err == MPI_SUCCESS && BASIC(type) && !buf && count > 0)
            err = MPI_ERR_BUFFER;
        mpi_status_empty(&r->status);
    } else {
        err = p2p_start(r);
    }
    if (err != MPI_SUCCESS) {
        free(r);
        return err;
    }
    mpi_type_retain(type);
    *request = r;
    return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    MPI_RETURN(comm, request_new(MREQ_SEND, SEND_STANDARD, buf, count, datatype, dest, tag, comm, 0, request));
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    MPI_RETURN(comm, request_new(MREQ_SEND, SEND_STANDARD, buf, count, datatype, dest, tag, comm, 0, request));
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    MPI_RETURN(comm, request_new(MREQ_SEND, SEND_SYNC, buf, count, datatype, dest, tag, comm, 0, request));
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    MPI_RETURN(comm, request_new(MREQ_SEND, MODE_BUFFERED, buf, count, datatype, dest, tag, comm, 0, request));
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    NOCMSG_FC_SITE(); /* the program's call is the site (fc.h) */
    MPI_RETURN(comm, request_new(MREQ_RECV, SEND_STANDARD, buf, count, datatype, source, tag, comm, 0, request));
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    MPI_RETURN(comm, request_new(MREQ_SEND, SEND_STANDARD, buf, count, datatype, dest, tag, comm, 1, request));
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    MPI_RETURN(comm, request_new(MREQ_SEND, SEND_STANDARD, buf, count, datatype, dest, tag, comm, 1, request));
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    MPI_RETURN(comm, request_new(MREQ_SEND, SEND_SYNC, buf, count, datatype, dest, tag, comm, 1, request));
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    MPI_RETURN(comm, request_new(MREQ_SEND, MODE_BUFFERED, buf, count, datatype, dest, tag, comm, 1, request));
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    MPI_RETURN(comm, request_new(MREQ_RECV, SEND_STANDARD, buf, count, datatype, source, tag, comm, 1, request));
}

int MPI_Start(MPI_Request *request)
{
    if (!request || !*request || !(*request)->persistent || (*request)->active)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_REQUEST);
    MPI_RETURN((*request)->comm, p2p_start(*request));
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (count < 0 || (count > 0 && !array_of_requests))
        MPI_RETURN(MPI_COMM_WORLD, count < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG);
    for (int i = 0; i < count; i++) {
        int err = MPI_Start(&array_of_requests[i]);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

int mpi_request_nbc(MPI_Comm comm, struct mpi_nbc *nbc, MPI_Request *request)
{
    struct nocmsg_mpi_request *r = calloc(1, sizeof *r);
    if (!r) {
        mpi_nbc_free(nbc);
        return MPI_ERR_NO_MEM;
    }
    r->kind = MREQ_NBC;
    r->active = 1;
    r->comm = comm;
    r->type = MPI_DATATYPE_NULL;
    r->nbc = nbc;
    track(r);
    *request = r;
    return MPI_SUCCESS;
}

/* Finishes a point-to-point request whose libnocmsg request is done: status, unpacking, buffered-send space. */
static void p2p_finish(struct nocmsg_mpi_request *r)
{
    nocmsg_status st;
    int err = nocmsg_wait(&r->inner, &st);
    mpi_status_from(&r->status, &st);
    r->status.MPI_ERROR = err;
    if (r->mode == MODE_BUFFERED) {
        bsend_free(r->view.packed);
        r->view.packed = NULL;
    } else if (r->kind == MREQ_RECV && r->view.packed) {
        mpi_view_finish(&r->view, (void *)r->buf, mpi_type_get(r->type),
                        err == MPI_SUCCESS || err == MPI_ERR_TRUNCATE ? st.count_bytes : 0);
    } else {
        free(r->view.packed);
        r->view.packed = NULL;
    }
    r->complete = 1;
    comm_unhold(r);
}

/* Advances r without blocking; returns whether it is complete (its outcome in r->status). */
/* The world rank an unfinished request waits for (for the wait record): -2 when it is not one rank's. */
static int request_peer(const struct nocmsg_mpi_request *r)
{
    return r->kind != MREQ_NBC && r->inner ? r->inner->peer : -2;
}

static int cancel_poll(struct nocmsg_mpi_request *r);

static int request_poll(struct nocmsg_mpi_request *r)
{
    if (__builtin_expect(r->cancel_asked, 0))
        return cancel_poll(r);
    if (r->complete)
        return 1;
    if (r->kind == MREQ_NBC) {
        int err = MPI_SUCCESS;
        if (!mpi_nbc_progress(r->nbc, &err))
            return 0;
        mpi_nbc_free(r->nbc);
        r->nbc = NULL;
        mpi_status_empty(&r->status);
        r->status.MPI_ERROR = err;
        r->complete = 1;
        return 1;
    }
    if (r->inner && !r->inner->done)
        return 0;
    if (r->inner)
        p2p_finish(r);
    else
        r->complete = 1; /* started on MPI_PROC_NULL or restarted with nothing to do */
    return 1;
}

/* A send whose cancellation was asked for: complete once the receiver has answered, as cancelled if it dropped the
 * message (nothing of the send is left then), as the send otherwise. */
static int cancel_poll(struct nocmsg_mpi_request *r)
{
    if (r->cancel_answer < 0)
        return 0;
    r->cancel_asked = 0;
    if (r->cancel_answer == 0)
        return request_poll(r);
    /* Dropped: a rendezvous send never got its CTS and never will; an eager one is out of the buffer. */
    struct nocmsg_mpi_request *b = r->mode == MODE_BUFFERED ? r->bsent : r;
    if (b && b->inner && !b->inner->done) {
        free(b->inner); /* its RTS is out and the engine keeps no reference to it */
        b->inner = NOCMSG_REQUEST_NULL;
    } else if (b && b->inner) {
        nocmsg_wait(&b->inner, NOCMSG_STATUS_IGNORE);
    }
    if (b && b != r) {
        untrack(b);
        bsend_free(b->view.packed);
        request_destroy(b);
    } else {
        free(r->view.packed);
        r->view.packed = NULL;
    }
    mpi_status_empty(&r->status);
    r->status.nocmsg_cancelled = 1;
    r->complete = 1;
    comm_unhold(r);
    return 1;
}

static void request_destroy(struct nocmsg_mpi_request *r)
{
    if (r->bsent)
        r->bsent->owner = NULL;
    if (r->owner)
        r->owner->bsent = NULL;
    if (r->nbc)
        mpi_nbc_free(r->nbc);
    mpi_type_release(r->type);
    free(r);
}

static int in_progress;

int mpi_nbc_pending(void)
{
    return tracked != NULL;
}

void mpi_progress_nbc(void)
{
    if (in_progress || !tracked)
        return;
    in_progress = 1;
    struct nocmsg_mpi_request **link = &tracked;
    while (*link) {
        struct nocmsg_mpi_request *r = *link;
        if (!request_poll(r)) {
            link = &r->next_nbc;
            continue;
        }
        *link = r->next_nbc;
        r->next_nbc = NULL;
        if (r->freed)
            request_destroy(r);
    }
    in_progress = 0;
}

static void untrack(struct nocmsg_mpi_request *r)
{
    for (struct nocmsg_mpi_request **link = &tracked; *link; link = &(*link)->next_nbc)
        if (*link == r) {
            *link = r->next_nbc;
            r->next_nbc = NULL;
            return;
        }
}

/* Whether a request handle refers to nothing to wait for: null, or persistent and not started. */
static int inactive(MPI_Request r)
{
    return !r || (r->persistent && !r->active);
}

/* Hands out a complete request's outcome and frees it (persistent requests become inactive). */
static int retire(MPI_Request *request, MPI_Status *status, int with_error)
{
    struct nocmsg_mpi_request *r = *request;
    int err = r->status.MPI_ERROR;
    status_out(status, &r->status, with_error);
    if (r->kind == MREQ_NBC)
        untrack(r);
    if (r->persistent) {
        r->active = 0;
        r->complete = 0;
    } else {
        request_destroy(r);
        *request = MPI_REQUEST_NULL;
    }
    return err;
}

/* One round of progress for the tests: libnocmsg's engine, then the tracked requests. */
static void progress_once(void)
{
    nocmsg_engine_progress();
    mpi_progress_nbc();
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!request)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_REQUEST);
    if (inactive(*request)) {
        empty_out(status, 0);
        return MPI_SUCCESS;
    }
    WAIT_UNTIL(request_poll(*request), request_peer(*request), NULL);
    MPI_Comm comm = (*request)->comm;
    MPI_RETURN(comm, retire(request, status, 0));
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!request || !flag)
        MPI_RETURN(MPI_COMM_WORLD, !request ? MPI_ERR_REQUEST : MPI_ERR_ARG);
    if (inactive(*request)) {
        empty_out(status, 0);
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!request_poll(*request)) {
        progress_once();
        if (!request_poll(*request)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    MPI_Comm comm = (*request)->comm;
    MPI_RETURN(comm, retire(request, status, 0));
}

/* Completes every request of a set that is complete; returns the error of the set (MPI_ERR_IN_STATUS when any
 * failed, with every status's MPI_ERROR set). */
static int retire_all(int count, MPI_Request requests[], MPI_Status statuses[], MPI_Comm *comm)
{
    int failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses ? &statuses[i] : NULL;
        if (inactive(requests[i])) {
            empty_out(st, 1);
            continue;
        }
        *comm = requests[i]->comm;
        if (retire(&requests[i], st, 1) != MPI_SUCCESS)
            failed = 1;
    }
    return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

static int all_complete(int count, MPI_Request requests[])
{
    int all = 1;
    for (int i = 0; i < count; i++)
        if (!inactive(requests[i]) && !request_poll(requests[i]))
            all = 0;
    return all;
}

static int check_array(int count, const void *array)
{
    if (count < 0)
        return MPI_ERR_COUNT;
    return count > 0 && !array ? MPI_ERR_REQUEST : MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    int err = check_array(count, array_of_requests);
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    /* A complete request stays complete, so each is polled until it is, once: waiting on n requests costs n polls
     * in all, not n per event. */
    int entered = 0;
    for (int i = 0; i < count;) {
        if (inactive(array_of_requests[i]) || request_poll(array_of_requests[i])) {
            i++;
            continue;
        }
        if (!entered)
            entered = nocmsg_wait_enter(request_peer(array_of_requests[i]), NULL);
        nocmsg_engine_block();
    }
    nocmsg_wait_leave(entered);
    MPI_Comm comm = MPI_COMM_WORLD;
    err = retire_all(count, array_of_requests, array_of_statuses, &comm);
    MPI_RETURN(comm, err);
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    int err = check_array(count, array_of_requests);
    if (err == MPI_SUCCESS && !flag)
        err = MPI_ERR_ARG;
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    if (!all_complete(count, array_of_requests)) {
        progress_once();
        if (!all_complete(count, array_of_requests)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    MPI_Comm comm = MPI_COMM_WORLD;
    err = retire_all(count, array_of_requests, array_of_statuses, &comm);
    MPI_RETURN(comm, err);
}

/* The first complete request of a set (-1 if none; MPI_UNDEFINED if no request is active). */
static int first_complete(int count, MPI_Request requests[])
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (inactive(requests[i]))
            continue;
        active = 1;
        if (request_poll(requests[i]))
            return i;
    }
    return active ? -1 : MPI_UNDEFINED;
}

static int any_common(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status, int block)
{
    int i, entered = 0;
    while ((i = first_complete(count, requests)) == -1) {
        if (!block) {
            progress_once();
            if ((i = first_complete(count, requests)) == -1) {
                *flag = 0;
                *index = MPI_UNDEFINED;
                return MPI_SUCCESS;
            }
            break;
        }
        if (!entered)
            entered = nocmsg_wait_enter(MPI_ANY_SOURCE, NULL);
        nocmsg_engine_block();
    }
    nocmsg_wait_leave(entered);
    *flag = 1;
    if (i == MPI_UNDEFINED) {
        empty_out(status, 0);
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *index = i;
    MPI_Comm comm = requests[i]->comm;
    MPI_RETURN(comm, retire(&requests[i], status, 0));
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    int err = check_array(count, array_of_requests);
    if (err == MPI_SUCCESS && !index)
        err = MPI_ERR_ARG;
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    int flag;
    return any_common(count, array_of_requests, index, &flag, status, 1);
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    int err = check_array(count, array_of_requests);
    if (err == MPI_SUCCESS && (!index || !flag))
        err = MPI_ERR_ARG;
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    return any_common(count, array_of_requests, index, flag, status, 0);
}

static int some_common(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[],
                       int block)
{
    int err = check_array(incount, requests);
    if (err == MPI_SUCCESS && (!outcount || (incount > 0 && !indices)))
        err = MPI_ERR_ARG;
    if (err != MPI_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    int first, entered = 0;
    while ((first = first_complete(incount, requests)) == -1) {
        if (!block) {
            progress_once();
            first = first_complete(incount, requests);
            break;
        }
        if (!entered)
            entered = nocmsg_wait_enter(MPI_ANY_SOURCE, NULL);
        nocmsg_engine_block();
    }
    nocmsg_wait_leave(entered);
    if (first == MPI_UNDEFINED) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int n = 0, failed = 0;
    MPI_Comm comm = MPI_COMM_WORLD;
    for (int i = first < 0 ? incount : first; i < incount; i++) {
        if (inactive(requests[i]) || !request_poll(requests[i]))
            continue;
        comm = requests[i]->comm;
        if (retire(&requests[i], statuses ? &statuses[n] : NULL, 1) != MPI_SUCCESS)
            failed = 1;
        indices[n++] = i;
    }
    *outcount = n;
    MPI_RETURN(comm, failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS);
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    return some_common(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, 1);
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    return some_common(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, 0);
}

int MPI_Request_free(MPI_Request *request)
{
    if (!request || !*request)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_REQUEST);
    struct nocmsg_mpi_request *r = *request;
    *request = MPI_REQUEST_NULL;
    if (inactive(r) || request_poll(r)) {
        if (r->kind == MREQ_NBC)
            untrack(r);
        request_destroy(r);
        return MPI_SUCCESS;
    }
    /* Still going: it finishes in the background. */
    r->freed = 1;
    r->persistent = 0;
    if (r->kind != MREQ_NBC)
        track(r);
    return MPI_SUCCESS;
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (!flag)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    if (inactive(request)) {
        empty_out(status, 0);
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!request_poll(request))
        progress_once();
    *flag = request_poll(request);
    if (*flag)
        status_out(status, &request->status, 0);
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request)
{
    if (!request || inactive(*request))
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_REQUEST);
    struct nocmsg_mpi_request *r = *request;
    if (r->kind == MREQ_NBC)
        MPI_RETURN(r->comm, MPI_ERR_REQUEST); /* MPI 3.1 §5.12: non-blocking collectives cannot be cancelled */
    if (r->kind == MREQ_SEND) {
        /* The receiver decides (nocmsg_engine_cancel_send): a send is asked about once, while it may still be
         * unmatched: an eager message (named by cancel_key) until it is received, a rendezvous until its CTS. */
        if (r->cancel_asked || r->status.nocmsg_cancelled)
            return MPI_SUCCESS;
        struct nocmsg_mpi_request *b = r->mode == MODE_BUFFERED ? r->bsent : r;
        uint64_t key = r->cancel_key; /* bit 63: an eager message's name; else the rendezvous request's address */
        if (!key || (key >> 63 == 0 && !(b && b->inner && key == (uint64_t)(uintptr_t)b->inner && !b->inner->done)))
            return MPI_SUCCESS; /* nothing went out (MPI_PROC_NULL), or the rendezvous has matched */
        struct comm *c = nocmsg_comm_get(r->comm);
        r->cancel_answer = -1;
        r->cancel_asked = 1;
        int err = c ? nocmsg_engine_cancel_send(c->world_of[r->peer], key, &r->cancel_answer) : MPI_ERR_COMM;
        if (err != MPI_SUCCESS)
            r->cancel_asked = 0;
        MPI_RETURN(r->comm, err);
    }
    /* A receive that has not matched a message is taken back; one that has completes normally (the cancel then
     * fails, as MPI_Test_cancelled reports). */
    if (r->kind == MREQ_RECV && !r->complete && r->inner && !r->inner->done &&
        nocmsg_engine_cancel_recv(r->inner)) {
        free(r->inner);
        r->inner = NOCMSG_REQUEST_NULL;
        free(r->view.packed);
        r->view.packed = NULL;
        mpi_status_empty(&r->status);
        r->status.MPI_SOURCE = MPI_UNDEFINED;
        r->status.nocmsg_cancelled = 1;
        r->complete = 1;
        comm_unhold(r);
    }
    return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || !flag)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *flag = status->nocmsg_cancelled;
    return MPI_SUCCESS;
}

int MPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (!status)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    status->nocmsg_cancelled = flag != 0;
    return MPI_SUCCESS;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    nocmsg_status st;
    mpi_progress_nbc();
    int err = nocmsg_iprobe(source, tag, comm, flag, &st);
    if (err == MPI_SUCCESS && *flag)
        recv_status(status, &st, err);
    MPI_RETURN(comm, err);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int entered = 0;
    for (;;) {
        int flag = 0;
        nocmsg_status st;
        mpi_progress_nbc();
        int err = nocmsg_iprobe(source, tag, comm, &flag, &st);
        if (err != MPI_SUCCESS || flag)
            nocmsg_wait_leave(entered);
        if (err != MPI_SUCCESS)
            MPI_RETURN(comm, err);
        if (flag) {
            recv_status(status, &st, err);
            return MPI_SUCCESS;
        }
        /* iprobe accepted the arguments, so the communicator and source are valid. */
        if (!entered)
            entered = nocmsg_wait_enter(source >= 0 ? nocmsg_comm_get(comm)->world_of[source] : MPI_ANY_SOURCE, NULL);
        nocmsg_engine_block();
    }
}
