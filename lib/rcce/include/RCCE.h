/*
 * RCCE.h - an RCCE-compatible API for nocmsg chips with SCC-style message-passing buffers (ni.kind = "mpb").
 *
 * RCCE is Intel's small communication library for the 48-core Single-chip Cloud Computer (SCC). This is a fresh
 * implementation of its documented interface (the "non-gory" one plus the pieces programs commonly use: MPB
 * allocation, put/get, flags, locks, communicators) on top of runtime/include/nocmsg_mpb.h, so that RCCE programs
 * build and run unchanged on the simulated chips. Build with `bin/nocmsg-cc --rcce ...`; docs/rcce.md says how,
 * what is supported and where it differs from Intel's library.
 *
 * Every unit of execution (UE) is one rank of the program (RCCE_ue() = nocmsg_core_id()). Every call returns
 * RCCE_SUCCESS or an error code (RCCE_error_string explains it). Point-to-point messages are blocking and
 * synchronous: RCCE_send returns once the receiver has taken the last chunk, so two UEs sending to each other at
 * once deadlock, as with Intel's RCCE.
 *
 * Layout of every UE's MPB share (S = nocmsg_mpb_bytes(): 8 KiB on the SCC, 16 KiB on mpb-2x2 and mpb-8x8; lines of
 * 32 bytes; the same offsets in every share):
 *
 *   offset                      bytes                   what
 *   0                           RCCE_MAXNP (64)         sent[u]:  UE u has a chunk for me in its comm buffer
 *   RCCE_MAXNP                  RCCE_MAXNP (64)         ready[u]: UE u has taken the chunk I put in my comm buffer
 *   2 RCCE_MAXNP                RCCE_FLAG_BYTES (128)   flags of RCCE_flag_alloc, one byte each (2 per communicator)
 *   RCCE_COMM_BUFFER_OFFSET     C = ((S - 256) / 2) rounded down to lines (3968 B for 8 KiB, 8064 B for 16 KiB):
 *                                                       the comm buffer, one chunk of an RCCE_send
 *   RCCE_COMM_BUFFER_OFFSET + C S - 256 - C             what RCCE_malloc hands out (same offset in every share)
 *
 * A flag is one byte (RCCE_FLAG_SET = 1, RCCE_FLAG_UNSET = 0): the write-combining buffer writes only the bytes
 * stored, so flags of different writers may share a line. Reading a flag invalidates the line cache first; writing
 * one flushes the write-combining buffer after the store.
 */
#ifndef RCCE_H
#define RCCE_H

#include <stddef.h>
#include <stdint.h>

#include "nocmsg_mpb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* RCCE programs name their entry point RCCE_APP; on the chips it is main. */
#define RCCE_APP main

#define RCCE_VERSION "nocmsg RCCE 1.0"

/* Most UEs a program may run on (RCCE's is 48, the SCC's core count; mpb-8x8 has 64). */
#define RCCE_MAXNP 64
/* Bytes of an MPB line (the SCC's, and the simulated chips'). */
#define RCCE_LINE_SIZE 32

/* MPB layout (see above). */
#define RCCE_SENT_FLAGS_OFFSET 0
#define RCCE_READY_FLAGS_OFFSET RCCE_MAXNP
#define RCCE_FLAG_AREA_OFFSET (2 * RCCE_MAXNP)
#define RCCE_FLAG_BYTES 128
#define RCCE_COMM_BUFFER_OFFSET (RCCE_FLAG_AREA_OFFSET + RCCE_FLAG_BYTES)

/* Error codes. RCCE_SUCCESS is 0; the others are distinct and non-zero (their values are ours, not Intel's). */
#define RCCE_SUCCESS 0
#define RCCE_ERROR_BASE 1234000
#define RCCE_ERROR_TARGET (RCCE_ERROR_BASE + 1)             /* bad target of a put (outside the MPB) */
#define RCCE_ERROR_SOURCE (RCCE_ERROR_BASE + 2)             /* bad source of a get (outside the MPB) */
#define RCCE_ERROR_ID (RCCE_ERROR_BASE + 3)                 /* UE id out of range, or oneself where not allowed */
#define RCCE_ERROR_MESSAGE_LENGTH (RCCE_ERROR_BASE + 4)     /* negative or too large a byte count */
#define RCCE_ERROR_FLAG_UNDEFINED (RCCE_ERROR_BASE + 5)     /* null flag, or one outside the flag area */
#define RCCE_ERROR_NUM_UES (RCCE_ERROR_BASE + 6)            /* more UEs than RCCE_MAXNP */
#define RCCE_ERROR_DATA_OVERLAP (RCCE_ERROR_BASE + 7)
#define RCCE_ERROR_ALIGNMENT (RCCE_ERROR_BASE + 8)
#define RCCE_ERROR_DEBUG_FLAG (RCCE_ERROR_BASE + 9)         /* unknown debug category */
#define RCCE_ERROR_FLAG_NOT_IN_COMM_BUFFER (RCCE_ERROR_BASE + 10)
#define RCCE_ERROR_FLAG_STATUS_UNDEFINED (RCCE_ERROR_BASE + 11) /* flag value other than SET/UNSET */
#define RCCE_ERROR_FLAG_NOT_ALLOCATED (RCCE_ERROR_BASE + 12) /* no free flag left, or freeing a free one */
#define RCCE_ERROR_VAL_UNDEFINED (RCCE_ERROR_BASE + 13)     /* null pointer for a result */
#define RCCE_ERROR_INVALID_ERROR_CODE (RCCE_ERROR_BASE + 14)
#define RCCE_ERROR_COMM_UNDEFINED (RCCE_ERROR_BASE + 22)    /* null or uninitialized communicator, bad root */
#define RCCE_ERROR_ILLEGAL_OP (RCCE_ERROR_BASE + 23)        /* unknown reduction operation */
#define RCCE_ERROR_ILLEGAL_TYPE (RCCE_ERROR_BASE + 24)      /* unknown reduction type */
#define RCCE_ERROR_MALLOC (RCCE_ERROR_BASE + 25)            /* out of MPB or shared memory */
#define RCCE_ERROR_COMM_INITIALIZED (RCCE_ERROR_BASE + 26)  /* RCCE_init called twice */
#define RCCE_ERROR_NOT_INITIALIZED (RCCE_ERROR_BASE + 27)   /* called before RCCE_init (ours) */
#define RCCE_ERROR_NO_MPB (RCCE_ERROR_BASE + 28)            /* the chip's MPB shares are too small (ours) */
#define RCCE_MAX_ERROR_STRING 80

/* Debug categories for RCCE_debug_set/unset: errors of an enabled category are also printed on stderr. */
#define RCCE_DEBUG_ALL 111111
#define RCCE_DEBUG_SYNCH 111444
#define RCCE_DEBUG_COMM 111555
#define RCCE_DEBUG_RPC 111666
#define RCCE_DEBUG_DEBUG 111888

/* Flag values. */
#define RCCE_FLAG_SET 1
#define RCCE_FLAG_UNSET 0

/* Reduction operations and types. */
#define RCCE_NUM_OPS 4
#define RCCE_OP_BASE 23232323
#define RCCE_SUM (RCCE_OP_BASE)
#define RCCE_MIN (RCCE_OP_BASE + 1)
#define RCCE_MAX (RCCE_OP_BASE + 2)
#define RCCE_PROD (RCCE_OP_BASE + 3)
#define RCCE_TYPE_BASE 63636363
#define RCCE_INT (RCCE_TYPE_BASE)        /* int, 4 bytes */
#define RCCE_LONG (RCCE_TYPE_BASE + 1)   /* long, 8 bytes on RV64 */
#define RCCE_FLOAT (RCCE_TYPE_BASE + 2)
#define RCCE_DOUBLE (RCCE_TYPE_BASE + 3)

typedef volatile unsigned char *t_vcharp;
typedef volatile unsigned char t_vchar;

/* A flag: the address of its byte in the caller's own MPB share (the same offset in every share). */
typedef volatile unsigned char *RCCE_FLAG;
typedef int RCCE_FLAG_STATUS;

/* A communicator: the UEs of a group, in the order of their UE ids. The flags carry its barrier. */
typedef struct {
    int size;                 /* UEs in the group */
    int my_rank;              /* the caller's rank in it */
    int initialized;          /* RCCE_COMM_MAGIC once set up */
    int member[RCCE_MAXNP];   /* UE id of each rank */
    RCCE_FLAG gather;         /* set by each member when it reaches the barrier (read by rank 0) */
    RCCE_FLAG release;        /* set by rank 0 in every member's MPB when all have arrived */
    int label;                /* flag value of the last barrier (sense reversal) */
} RCCE_COMM;
#define RCCE_COMM_MAGIC 0x52434345

extern RCCE_COMM RCCE_COMM_WORLD;

/* Set-up and facts. RCCE_init leaves argc and argv as they are (the simulator passes the program's own arguments;
 * Intel's rccerun appended three that RCCE_init took off). */
int RCCE_init(int *argc, char ***argv);
int RCCE_finalize(void);
double RCCE_wtime(void);
int RCCE_ue(void);
int RCCE_num_ues(void);
int RCCE_error_string(int err_no, char *error_string, int *string_length);
int RCCE_debug_set(int category);
int RCCE_debug_unset(int category);

/* Blocking, synchronous messages through the MPB, in chunks of the comm buffer. A message of 0 bytes does nothing
 * (as in Intel's RCCE). RCCE_recv_test receives only if the first chunk is already there (*test = 1), else returns
 * at once with *test = 0. */
int RCCE_send(char *privbuf, size_t size, int dest);
int RCCE_recv(char *privbuf, size_t size, int source);
int RCCE_recv_test(char *privbuf, size_t size, int source, int *test);

/* MPB memory: RCCE_malloc hands out `size` bytes (rounded up to lines) at the same offset of every UE's share and
 * returns its address in the caller's own share, or NULL when the area is exhausted. Every UE must make the same
 * RCCE_malloc and RCCE_free calls in the same order (nothing is exchanged; the allocations agree by construction). */
t_vcharp RCCE_malloc(size_t size);
void RCCE_free(t_vcharp ptr);

/* One-sided copies. RCCE_put copies num_bytes from private memory `source` to `target` in the MPB of UE id (target
 * is an address in the caller's own share, as RCCE_malloc returns; the same offset is written in id's share) and
 * flushes; RCCE_get invalidates the line cache and copies from `source` in id's share to private memory `target`. */
int RCCE_put(t_vcharp target, t_vcharp source, int num_bytes, int id);
int RCCE_get(t_vcharp target, t_vcharp source, int num_bytes, int id);

/* Flags, one byte each in the flag area of every share. Every UE must allocate and free flags in the same order;
 * RCCE_flag_alloc clears the caller's own copy, so synchronise (RCCE_barrier) before others write it. */
int RCCE_flag_alloc(RCCE_FLAG *flag);
int RCCE_flag_free(RCCE_FLAG *flag);
int RCCE_flag_write(RCCE_FLAG *flag, RCCE_FLAG_STATUS val, int id);
int RCCE_flag_read(RCCE_FLAG flag, RCCE_FLAG_STATUS *val, int id);
int RCCE_wait_until(RCCE_FLAG flag, RCCE_FLAG_STATUS val);
int RCCE_test_flag(RCCE_FLAG flag, RCCE_FLAG_STATUS val, int *result);

/* Locks: the test-and-set register of UE id. Acquiring spins until the register was clear, then invalidates the
 * line cache; releasing flushes the write-combining buffer, then clears the register (so data guarded by a lock is
 * seen whole by the next holder). */
int RCCE_acquire_lock(int id);
int RCCE_release_lock(int id);

/* Communicators. RCCE_comm_split calls color(ue, aux) for every UE id; UEs of equal color form a group, ranked by
 * UE id. Every UE must call it, with the same color function and aux. A communicator may be split into again (its
 * flags are reused) or freed with RCCE_comm_free (also collective). */
int RCCE_comm_split(int (*color)(int, void *), void *aux, RCCE_COMM *comm);
int RCCE_comm_free(RCCE_COMM *comm);
int RCCE_comm_size(RCCE_COMM comm, int *size);
int RCCE_comm_rank(RCCE_COMM comm, int *rank);
/* Color functions: all UEs in one group, or every UE alone. */
int RCCE_global_color(int ue, void *aux);
int RCCE_self_color(int ue, void *aux);

/* Collectives, RCCE's simple ones: the barrier gathers at rank 0 and releases from it; bcast sends from the root
 * to every other member in turn; reduce receives at the root from every other member in turn (combining in rank
 * order after the root's own values); allreduce is a reduce to rank 0 and a bcast. `root` is a rank in comm;
 * `num` counts elements of `type` (RCCE_INT, RCCE_LONG, RCCE_FLOAT, RCCE_DOUBLE); bcast's `num` counts bytes. */
int RCCE_barrier(RCCE_COMM *comm);
int RCCE_bcast(char *buf, size_t num, int root, RCCE_COMM comm);
int RCCE_reduce(char *inbuf, char *outbuf, int num, int type, int op, int root, RCCE_COMM comm);
int RCCE_allreduce(char *inbuf, char *outbuf, int num, int type, int op, RCCE_COMM comm);

/* Off-chip shared memory (chips with [memory]): the same first-fit allocation on every UE, as RCCE_malloc; NULL
 * without shared memory. The memory is cached without coherence: invalidate (RC_cache_invalidate) before reading
 * what others wrote, and nocmsg_mpb_flush() after writing. */
t_vcharp RCCE_shmalloc(size_t size);
void RCCE_shfree(t_vcharp ptr);

/* Drops every cached MPB and shared-memory line (the SCC's CL1INVMB). */
static inline void RC_cache_invalidate(void) { nocmsg_mpb_invalidate(); }

/* Bytes of the comm buffer (one chunk of RCCE_send) and of the RCCE_malloc area on this chip (ours). */
size_t RCCE_comm_buffer_bytes(void);
size_t RCCE_malloc_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* RCCE_H */
