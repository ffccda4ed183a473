/*
 * env.c - RCCE_init and RCCE_finalize, who am I, time, error strings and debug categories.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "nocmsg_core.h"

struct rcce_state rcce_state;
RCCE_COMM RCCE_COMM_WORLD;

/* Smallest share the layout fits in: the header, and a comm buffer and an RCCE_malloc area of a line each. */
#define MIN_SHARE (RCCE_COMM_BUFFER_OFFSET + 2 * RCCE_LINE_SIZE)

int RCCE_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct rcce_state *s = &rcce_state;
    if (s->initialized) return rcce_error(RCCE_DEBUG_ALL, RCCE_ERROR_COMM_INITIALIZED, "RCCE_init");
    int debug = s->debug;
    memset(s, 0, sizeof *s);
    s->debug = debug;
    s->ue = nocmsg_core_id();
    s->num_ues = nocmsg_num_cores();
    if (s->num_ues > RCCE_MAXNP) {
        fprintf(stderr, "RCCE_init: %d UEs, at most %d supported (RCCE_MAXNP)\n", s->num_ues, RCCE_MAXNP);
        return RCCE_ERROR_NUM_UES;
    }
    s->share = nocmsg_mpb_bytes();
    if (nocmsg_mpb_line_bytes() != RCCE_LINE_SIZE || s->share < MIN_SHARE || s->share % RCCE_LINE_SIZE != 0) {
        fprintf(stderr, "RCCE_init: the chip's MPB shares (%zu bytes, lines of %zu) do not fit RCCE's layout (at least %d bytes, lines of %d)\n",
                s->share, nocmsg_mpb_line_bytes(), MIN_SHARE, RCCE_LINE_SIZE);
        return RCCE_ERROR_NO_MPB;
    }
    s->mpb_base = (uintptr_t)nocmsg_mpb(0);
    s->comm_bytes = (s->share - RCCE_COMM_BUFFER_OFFSET) / 2 / RCCE_LINE_SIZE * RCCE_LINE_SIZE;
    s->heap_offset = RCCE_COMM_BUFFER_OFFSET + s->comm_bytes;
    rcce_arena_init(&s->heap, s->share - s->heap_offset);
    rcce_arena_init(&s->shared, nocmsg_shared_bytes());
    s->initialized = 1;

    /* The MPBs start zeroed (every flag unset), so WORLD's flags need no clearing and no one can miss a write. */
    RCCE_COMM *w = &RCCE_COMM_WORLD;
    memset(w, 0, sizeof *w);
    w->size = s->num_ues;
    w->my_rank = s->ue;
    for (int u = 0; u < s->num_ues; u++) w->member[u] = u;
    RCCE_flag_alloc(&w->gather);
    RCCE_flag_alloc(&w->release);
    w->initialized = RCCE_COMM_MAGIC;
    return RCCE_barrier(w);
}

int RCCE_finalize(void)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_ALL, "RCCE_finalize");
    /* No UE leaves while another may still wait for it (a last barrier, as the SCC's RCCE_finalize). */
    int err = RCCE_barrier(&RCCE_COMM_WORLD);
    rcce_state.initialized = 0;
    return err;
}

double RCCE_wtime(void)
{
    return (double)nocmsg_cycles() / (double)nocmsg_frequency_hz();
}

int RCCE_ue(void) { return nocmsg_core_id(); }

int RCCE_num_ues(void) { return nocmsg_num_cores(); }

size_t RCCE_comm_buffer_bytes(void) { return rcce_state.comm_bytes; }

size_t RCCE_malloc_bytes(void) { return rcce_state.heap.bytes; }

static const struct {
    int code;
    const char *text;
} messages[] = {
    {RCCE_SUCCESS, "success"},
    {RCCE_ERROR_TARGET, "invalid target address of a put (outside the MPB)"},
    {RCCE_ERROR_SOURCE, "invalid source address of a get (outside the MPB)"},
    {RCCE_ERROR_ID, "invalid UE id (out of range, or oneself)"},
    {RCCE_ERROR_MESSAGE_LENGTH, "invalid message length"},
    {RCCE_ERROR_FLAG_UNDEFINED, "invalid flag (null or outside the flag area)"},
    {RCCE_ERROR_NUM_UES, "too many UEs (more than RCCE_MAXNP)"},
    {RCCE_ERROR_DATA_OVERLAP, "overlapping data"},
    {RCCE_ERROR_ALIGNMENT, "misaligned data"},
    {RCCE_ERROR_DEBUG_FLAG, "invalid debug category"},
    {RCCE_ERROR_FLAG_NOT_IN_COMM_BUFFER, "flag not in the MPB"},
    {RCCE_ERROR_FLAG_STATUS_UNDEFINED, "invalid flag value (neither SET nor UNSET)"},
    {RCCE_ERROR_FLAG_NOT_ALLOCATED, "no flag left, or flag not allocated"},
    {RCCE_ERROR_VAL_UNDEFINED, "null pointer for a result"},
    {RCCE_ERROR_INVALID_ERROR_CODE, "invalid error code"},
    {RCCE_ERROR_COMM_UNDEFINED, "invalid communicator or root"},
    {RCCE_ERROR_ILLEGAL_OP, "invalid reduction operation"},
    {RCCE_ERROR_ILLEGAL_TYPE, "invalid reduction type"},
    {RCCE_ERROR_MALLOC, "out of MPB or shared memory"},
    {RCCE_ERROR_COMM_INITIALIZED, "RCCE already initialized"},
    {RCCE_ERROR_NOT_INITIALIZED, "RCCE not initialized (call RCCE_init first)"},
    {RCCE_ERROR_NO_MPB, "the chip has no usable MPB"},
};

static const char *message(int code)
{
    for (size_t i = 0; i < sizeof messages / sizeof messages[0]; i++)
        if (messages[i].code == code) return messages[i].text;
    return NULL;
}

int RCCE_error_string(int err_no, char *error_string, int *string_length)
{
    const char *text = message(err_no);
    int err = RCCE_SUCCESS;
    if (text == NULL) {
        text = message(RCCE_ERROR_INVALID_ERROR_CODE);
        err = RCCE_ERROR_INVALID_ERROR_CODE;
    }
    if (error_string != NULL) {
        strncpy(error_string, text, RCCE_MAX_ERROR_STRING - 1);
        error_string[RCCE_MAX_ERROR_STRING - 1] = '\0';
    }
    if (string_length != NULL) *string_length = (int)strlen(text);
    return err;
}

/* Bit of a debug category; RCCE_DEBUG_ALL sets them all. */
static int category_bit(int category)
{
    switch (category) {
    case RCCE_DEBUG_ALL: return 0xf;
    case RCCE_DEBUG_SYNCH: return 1;
    case RCCE_DEBUG_COMM: return 2;
    case RCCE_DEBUG_RPC: return 4;
    case RCCE_DEBUG_DEBUG: return 8;
    default: return 0;
    }
}

int RCCE_debug_set(int category)
{
    int bit = category_bit(category);
    if (bit == 0) return RCCE_ERROR_DEBUG_FLAG;
    rcce_state.debug |= bit;
    return RCCE_SUCCESS;
}

int RCCE_debug_unset(int category)
{
    int bit = category_bit(category);
    if (bit == 0) return RCCE_ERROR_DEBUG_FLAG;
    rcce_state.debug &= ~bit;
    return RCCE_SUCCESS;
}

int rcce_error(int category, int err, const char *where)
{
    if (rcce_state.debug & category_bit(category)) {
        fprintf(stderr, "%s on UE %d: %s\n", where, nocmsg_core_id(), message(err) ? message(err) : "unknown error");
    }
    return err;
}
