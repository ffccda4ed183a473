/*
 * p2p.c - RCCE_send, RCCE_recv, RCCE_recv_test: RCCE's synchronous protocol through the sender's comm buffer.
 *
 * For each chunk of at most RCCE_comm_buffer_bytes():
 *   sender S                                         receiver R
 *   copy the chunk into S's comm buffer, flush
 *   set sent[S] in R's share ------------------->    wait for sent[S] in its own share, clear it
 *                                                    invalidate, copy the chunk out of S's comm buffer
 *   wait for ready[R] in its own share <---------    set ready[R] in S's share
 *   clear it
 * S polls and writes only its own share and R's flag; R reads S's buffer remotely, as on the SCC. S reuses its comm
 * buffer only after R said it has taken the chunk, and a UE is in at most one send at a time, so one buffer per UE
 * is enough.
 */
#include "internal.h"

static t_vcharp sent_flag(int owner, int from) { return rcce_mpb_at(owner, RCCE_SENT_FLAGS_OFFSET + (size_t)from); }

static t_vcharp ready_flag(int owner, int from) { return rcce_mpb_at(owner, RCCE_READY_FLAGS_OFFSET + (size_t)from); }

static t_vcharp comm_buffer(int owner) { return rcce_mpb_at(owner, RCCE_COMM_BUFFER_OFFSET); }

int RCCE_send(char *privbuf, size_t size, int dest)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_COMM, "RCCE_send");
    int me = rcce_state.ue;
    if (!rcce_valid_ue(dest) || dest == me) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_send");
    if (size > 0 && privbuf == NULL) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, "RCCE_send");
    const unsigned char *p = (const unsigned char *)privbuf;
    while (size > 0) {
        size_t n = size < rcce_state.comm_bytes ? size : rcce_state.comm_bytes;
        rcce_copy_to_mpb(comm_buffer(me), p, n);
        nocmsg_mpb_flush();
        rcce_flag_store(sent_flag(dest, me), RCCE_FLAG_SET);
        rcce_flag_spin(ready_flag(me, dest), RCCE_FLAG_SET);
        rcce_flag_store(ready_flag(me, dest), RCCE_FLAG_UNSET);
        p += n;
        size -= n;
    }
    return RCCE_SUCCESS;
}

/* Takes the chunks of a message whose first chunk has arrived (sent[source] is set). */
static void receive_chunks(unsigned char *p, size_t size, int source, int first_arrived)
{
    int me = rcce_state.ue;
    while (size > 0) {
        size_t n = size < rcce_state.comm_bytes ? size : rcce_state.comm_bytes;
        if (!first_arrived) rcce_flag_spin(sent_flag(me, source), RCCE_FLAG_SET);
        first_arrived = 0;
        rcce_flag_store(sent_flag(me, source), RCCE_FLAG_UNSET);
        nocmsg_mpb_invalidate();
        rcce_copy_from_mpb(p, comm_buffer(source), n);
        rcce_flag_store(ready_flag(source, me), RCCE_FLAG_SET);
        p += n;
        size -= n;
    }
}

int RCCE_recv(char *privbuf, size_t size, int source)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_COMM, "RCCE_recv");
    if (!rcce_valid_ue(source) || source == rcce_state.ue) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_recv");
    if (size > 0 && privbuf == NULL) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, "RCCE_recv");
    receive_chunks((unsigned char *)privbuf, size, source, 0);
    return RCCE_SUCCESS;
}

int RCCE_recv_test(char *privbuf, size_t size, int source, int *test)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_COMM, "RCCE_recv_test");
    if (!rcce_valid_ue(source) || source == rcce_state.ue) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_ID, "RCCE_recv_test");
    if (test == NULL) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_VAL_UNDEFINED, "RCCE_recv_test");
    if (size > 0 && privbuf == NULL) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_MESSAGE_LENGTH, "RCCE_recv_test");
    *test = 1;
    if (size == 0) return RCCE_SUCCESS;
    if (rcce_flag_load(sent_flag(rcce_state.ue, source)) != RCCE_FLAG_SET) {
        *test = 0;
        return RCCE_SUCCESS;
    }
    receive_chunks((unsigned char *)privbuf, size, source, 1);
    return RCCE_SUCCESS;
}
