/*
 * flags.c - flags (one byte each in the MPB) and locks (test-and-set registers).
 */
#include "internal.h"

void rcce_flag_store(t_vcharp flag, unsigned char value)
{
    *flag = value;
    nocmsg_mpb_flush();
}

unsigned char rcce_flag_load(t_vcharp flag)
{
    nocmsg_mpb_invalidate();
    return *flag;
}

void rcce_flag_spin(t_vcharp flag, unsigned char value)
{
    while (rcce_flag_load(flag) != value) {
    }
}

/* Whether `flag` is an allocated byte of the flag area in the caller's own share. */
static int flag_valid(RCCE_FLAG flag)
{
    if (flag == NULL) return 0;
    size_t offset = rcce_own_offset(flag);
    return offset >= RCCE_FLAG_AREA_OFFSET && offset < RCCE_FLAG_AREA_OFFSET + RCCE_FLAG_BYTES &&
           rcce_state.flag_used[offset - RCCE_FLAG_AREA_OFFSET];
}

int RCCE_flag_alloc(RCCE_FLAG *flag)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_SYNCH, "RCCE_flag_alloc");
    if (flag == NULL) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_UNDEFINED, "RCCE_flag_alloc");
    for (int i = 0; i < RCCE_FLAG_BYTES; i++) {
        if (!rcce_state.flag_used[i]) {
            rcce_state.flag_used[i] = 1;
            *flag = rcce_mpb_at(rcce_state.ue, RCCE_FLAG_AREA_OFFSET + (size_t)i);
            if (rcce_flag_load(*flag) != RCCE_FLAG_UNSET) rcce_flag_store(*flag, RCCE_FLAG_UNSET);
            return RCCE_SUCCESS;
        }
    }
    return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_NOT_ALLOCATED, "RCCE_flag_alloc");
}

int RCCE_flag_free(RCCE_FLAG *flag)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_SYNCH, "RCCE_flag_free");
    if (flag == NULL || !flag_valid(*flag)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_NOT_ALLOCATED, "RCCE_flag_free");
    rcce_state.flag_used[rcce_own_offset(*flag) - RCCE_FLAG_AREA_OFFSET] = 0;
    return RCCE_SUCCESS;
}

int RCCE_flag_write(RCCE_FLAG *flag, RCCE_FLAG_STATUS val, int id)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_SYNCH, "RCCE_flag_write");
    if (flag == NULL || !flag_valid(*flag)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_UNDEFINED, "RCCE_flag_write");
    if (val != RCCE_FLAG_SET && val != RCCE_FLAG_UNSET)
        return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_STATUS_UNDEFINED, "RCCE_flag_write");
    if (!rcce_valid_ue(id)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_ID, "RCCE_flag_write");
    rcce_flag_store(rcce_mpb_at(id, rcce_own_offset(*flag)), (unsigned char)val);
    return RCCE_SUCCESS;
}

int RCCE_flag_read(RCCE_FLAG flag, RCCE_FLAG_STATUS *val, int id)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_SYNCH, "RCCE_flag_read");
    if (!flag_valid(flag)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_UNDEFINED, "RCCE_flag_read");
    if (val == NULL) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_VAL_UNDEFINED, "RCCE_flag_read");
    if (!rcce_valid_ue(id)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_ID, "RCCE_flag_read");
    *val = rcce_flag_load(rcce_mpb_at(id, rcce_own_offset(flag)));
    return RCCE_SUCCESS;
}

int RCCE_wait_until(RCCE_FLAG flag, RCCE_FLAG_STATUS val)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_SYNCH, "RCCE_wait_until");
    if (!flag_valid(flag)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_UNDEFINED, "RCCE_wait_until");
    if (val != RCCE_FLAG_SET && val != RCCE_FLAG_UNSET)
        return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_STATUS_UNDEFINED, "RCCE_wait_until");
    rcce_flag_spin(flag, (unsigned char)val);
    return RCCE_SUCCESS;
}

int RCCE_test_flag(RCCE_FLAG flag, RCCE_FLAG_STATUS val, int *result)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_SYNCH, "RCCE_test_flag");
    if (!flag_valid(flag)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_FLAG_UNDEFINED, "RCCE_test_flag");
    if (result == NULL) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_VAL_UNDEFINED, "RCCE_test_flag");
    *result = rcce_flag_load(flag) == (unsigned char)val;
    return RCCE_SUCCESS;
}

int RCCE_acquire_lock(int id)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_SYNCH, "RCCE_acquire_lock");
    if (!rcce_valid_ue(id)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_ID, "RCCE_acquire_lock");
    while (nocmsg_mpb_test_and_set(id) != 0) {
    }
    nocmsg_mpb_invalidate();
    return RCCE_SUCCESS;
}

int RCCE_release_lock(int id)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_SYNCH, "RCCE_release_lock");
    if (!rcce_valid_ue(id)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_ID, "RCCE_release_lock");
    nocmsg_mpb_flush();
    nocmsg_mpb_clear(id);
    return RCCE_SUCCESS;
}
