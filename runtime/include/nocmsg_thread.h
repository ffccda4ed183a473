/*
 * nocmsg_thread.h - threads: one process over several cores sharing its address space (nocmsg run --threads).
 *
 * With `--threads` the cores of a run are one process: the first runs main, the others idle until the program starts
 * a function on them. Their loads and stores go through the chip's caches and its directory coherence
 * (docs/shmem.md), so what one thread stores another sees; order them with atomics, fences or the mutex below
 * (RISC-V's RVWMO memory model). Each thread gets its own stack (a slice of the stack reservation, the first one
 * main's) and its own thread-local storage (errno, `__thread` variables); malloc and stdio are safe to call from
 * any thread. Without `--threads` a process is one core: nocmsg_thread_count() is 1 and starting a thread fails.
 *
 * Needs the A extension (the chips with core.isa rv64imac or rv64gc).
 */
#ifndef NOCMSG_THREAD_H
#define NOCMSG_THREAD_H

#ifdef __cplusplus
extern "C" {
#endif

/* This core's thread index in its process (0 runs main), and the process's cores. */
int nocmsg_thread_self(void);
int nocmsg_thread_count(void);

/* Starts fn(arg) on the process's idle core `thread` (1 .. count-1). Returns 0, or -1 if there is no such thread,
 * it is still running (or ended and not joined), or there is no memory for its thread-local storage. */
int nocmsg_thread_start(int thread, void *(*fn)(void *), void *arg);

/* Waits until thread `thread` has ended and stores what its function returned in *result (if result is not NULL);
 * the thread can then be started again. Returns 0, or -1 if there is no such thread or it was never started. */
int nocmsg_thread_join(int thread, void **result);

/* A spin lock for the threads of a process. Initialise with NOCMSG_MUTEX_INIT. */
typedef struct {
    volatile int locked;
} nocmsg_mutex_t;

#define NOCMSG_MUTEX_INIT {0}

static inline void nocmsg_mutex_lock(nocmsg_mutex_t *m)
{
    while (__atomic_exchange_n(&m->locked, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&m->locked, __ATOMIC_RELAXED))
            ;
}

static inline void nocmsg_mutex_unlock(nocmsg_mutex_t *m) { __atomic_store_n(&m->locked, 0, __ATOMIC_RELEASE); }

#ifdef __cplusplus
}
#endif

#endif /* NOCMSG_THREAD_H */
