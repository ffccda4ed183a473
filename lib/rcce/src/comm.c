/*
 * comm.c - communicators and the barrier.
 *
 * The barrier is RCCE's simple one with sense reversal: every member but rank 0 writes the new sense into the
 * communicator's gather flag of its own share and waits for the release flag there; rank 0 reads every member's
 * gather flag (remotely) until it shows the sense, then writes the sense into every member's release flag. The flag
 * values alternate between barriers, so nothing needs resetting.
 */
#include <string.h>

#include "internal.h"

int RCCE_global_color(int ue, void *aux)
{
    (void)ue;
    (void)aux;
    return 0;
}

int RCCE_self_color(int ue, void *aux)
{
    (void)aux;
    return ue;
}

static int comm_valid(const RCCE_COMM *comm)
{
    return comm != NULL && comm->initialized == RCCE_COMM_MAGIC && comm->size > 0 && comm->size <= RCCE_MAXNP &&
           comm->my_rank >= 0 && comm->my_rank < comm->size;
}

int RCCE_barrier(RCCE_COMM *comm)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_SYNCH, "RCCE_barrier");
    if (!comm_valid(comm)) return rcce_error(RCCE_DEBUG_SYNCH, RCCE_ERROR_COMM_UNDEFINED, "RCCE_barrier");
    unsigned char sense = comm->label == RCCE_FLAG_SET ? RCCE_FLAG_UNSET : RCCE_FLAG_SET;
    comm->label = sense;
    size_t gather = rcce_own_offset(comm->gather), release = rcce_own_offset(comm->release);
    if (comm->my_rank == 0) {
        for (int r = 1; r < comm->size; r++) rcce_flag_spin(rcce_mpb_at(comm->member[r], gather), sense);
        for (int r = 1; r < comm->size; r++) rcce_flag_store(rcce_mpb_at(comm->member[r], release), sense);
    } else {
        rcce_flag_store(rcce_mpb_at(rcce_state.ue, gather), sense);
        rcce_flag_spin(rcce_mpb_at(rcce_state.ue, release), sense);
    }
    return RCCE_SUCCESS;
}

int RCCE_comm_split(int (*color)(int, void *), void *aux, RCCE_COMM *comm)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_COMM, "RCCE_comm_split");
    if (color == NULL || comm == NULL || comm == &RCCE_COMM_WORLD) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_comm_split");
    /* A communicator split into again keeps its flags (RCCE lets programs overwrite communicators). */
    RCCE_FLAG gather = NULL, release = NULL;
    if (comm_valid(comm)) {
        gather = comm->gather;
        release = comm->release;
    }
    int err;
    if (gather == NULL && ((err = RCCE_flag_alloc(&gather)) != RCCE_SUCCESS || (err = RCCE_flag_alloc(&release)) != RCCE_SUCCESS))
        return err;
    /* Clear the flags (a reused flag may hold the last barrier's sense) before anyone can write them: every UE
     * clears its own copies, then all meet on WORLD. */
    rcce_flag_store(gather, RCCE_FLAG_UNSET);
    rcce_flag_store(release, RCCE_FLAG_UNSET);

    int mine = color(rcce_state.ue, aux);
    memset(comm, 0, sizeof *comm);
    for (int u = 0; u < rcce_state.num_ues; u++) {
        if (color(u, aux) == mine) {
            if (u == rcce_state.ue) comm->my_rank = comm->size;
            comm->member[comm->size++] = u;
        }
    }
    comm->gather = gather;
    comm->release = release;
    comm->label = RCCE_FLAG_UNSET;
    comm->initialized = RCCE_COMM_MAGIC;
    return RCCE_barrier(&RCCE_COMM_WORLD);
}

int RCCE_comm_free(RCCE_COMM *comm)
{
    RCCE_CHECK_INIT(RCCE_DEBUG_COMM, "RCCE_comm_free");
    if (!comm_valid(comm) || comm == &RCCE_COMM_WORLD) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_comm_free");
    RCCE_flag_free(&comm->gather);
    RCCE_flag_free(&comm->release);
    comm->initialized = 0;
    return RCCE_SUCCESS;
}

int RCCE_comm_size(RCCE_COMM comm, int *size)
{
    if (!comm_valid(&comm)) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_comm_size");
    if (size == NULL) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_VAL_UNDEFINED, "RCCE_comm_size");
    *size = comm.size;
    return RCCE_SUCCESS;
}

int RCCE_comm_rank(RCCE_COMM comm, int *rank)
{
    if (!comm_valid(&comm)) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_comm_rank");
    if (rank == NULL) return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_VAL_UNDEFINED, "RCCE_comm_rank");
    *rank = comm.my_rank;
    return RCCE_SUCCESS;
}
