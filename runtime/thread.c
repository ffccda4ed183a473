/*
 * thread.c - nocmsg_thread.h, and the locks picolibc takes around malloc and stdio.
 *
 * A thread is started through the simulator (NOCMSG_SYS_THREAD_START): it sets the idle core's pc, stack, gp and
 * thread pointer, and fills the thread-local block allocated here with the program's template as loaded (.tdata,
 * then a zeroed .tbss). The thread runs thread_main, which calls the function and ends the thread with its value.
 *
 * picolibc is built with retargetable locks; its own lock functions do nothing, as a single-threaded program needs.
 * This file defines them all, so a program that starts threads (and so links this file, from the runtime's archive)
 * gets working ones: spin locks on atomic swaps, recursive ones owned by the thread pointer. Programs without threads
 * never link it and keep picolibc's.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/lock.h>

#include "nocmsg_semihost.h"
#include "nocmsg_thread.h"

#ifndef __riscv_atomic
#error "threads need the A extension (build for a chip with core.isa rv64imac or rv64gc)"
#endif

extern char __tls_base[], __tls_end[];

/* Thread-local blocks of started threads (freed when joined). */
#define THREADS_MAX 1024
static void *tls_block[THREADS_MAX];

static void thread_info(uint64_t info[2])
{
    nocmsg_semihost(NOCMSG_SYS_THREAD_INFO, info);
}

int nocmsg_thread_self(void)
{
    uint64_t info[2];
    thread_info(info);
    return (int)info[0];
}

int nocmsg_thread_count(void)
{
    uint64_t info[2];
    thread_info(info);
    return (int)info[1];
}

static void thread_main(void *(*fn)(void *), void *arg) __attribute__((noreturn, used));
static void thread_main(void *(*fn)(void *), void *arg)
{
    uint64_t block[1] = {(uint64_t)(uintptr_t)fn(arg)};
    nocmsg_semihost(NOCMSG_SYS_THREAD_EXIT, block);
    for (;;) {
    }
}

int nocmsg_thread_start(int thread, void *(*fn)(void *), void *arg)
{
    if (thread <= 0 || thread >= THREADS_MAX || tls_block[thread])
        return -1;
    size_t size = (size_t)(__tls_end - __tls_base);
    char *raw = malloc(size + 64);
    if (!raw)
        return -1;
    char *tls = (char *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    uint64_t block[5] = {(uint64_t)thread, (uint64_t)(uintptr_t)thread_main, (uint64_t)(uintptr_t)fn,
                         (uint64_t)(uintptr_t)arg, (uint64_t)(uintptr_t)tls};
    /* Recorded before the call: the thread may end and be joined before the call returns here. The simulator fills
     * the block with the program's thread-local template as loaded (main's own block, where crt0 put tp, holds
     * main's current values), after this core's stores have landed. */
    tls_block[thread] = raw;
    if (nocmsg_semihost(NOCMSG_SYS_THREAD_START, block) != 0) {
        tls_block[thread] = NULL;
        free(raw);
        return -1;
    }
    return 0;
}

int nocmsg_thread_join(int thread, void **result)
{
    if (thread <= 0 || thread >= THREADS_MAX)
        return -1;
    uint64_t block[2] = {(uint64_t)thread, 0};
    if (nocmsg_semihost(NOCMSG_SYS_THREAD_JOIN, block) != 0)
        return -1;
    if (result)
        *result = (void *)(uintptr_t)block[1];
    free(tls_block[thread]);
    tls_block[thread] = NULL;
    return 0;
}

/* ---- picolibc's locks ---------------------------------------------------------------------------------------- */

struct __lock {
    volatile int locked;
    void *owner; /* the holder's thread pointer (recursive locks) */
    int depth;
};

struct __lock __lock___libc_recursive_mutex;

static void *self_tp(void)
{
    void *tp;
    __asm__ volatile("mv %0, tp" : "=r"(tp));
    return tp;
}

/* Locks picolibc makes at run time (a FILE's), from a small pool: malloc itself takes a lock. */
#define POOL 64
static struct __lock pool[POOL];
static volatile int pool_used[POOL];

static struct __lock *pool_get(void)
{
    for (int i = 0; i < POOL; i++)
        if (!__atomic_exchange_n(&pool_used[i], 1, __ATOMIC_ACQ_REL)) {
            memset(&pool[i], 0, sizeof pool[i]);
            return &pool[i];
        }
    return &__lock___libc_recursive_mutex; /* out of locks: share the library's, which is safe, only slower */
}

static void pool_put(struct __lock *l)
{
    if (l >= pool && l < pool + POOL)
        __atomic_store_n(&pool_used[l - pool], 0, __ATOMIC_RELEASE);
}

void __retarget_lock_init(_LOCK_T *lock) { *lock = pool_get(); }
void __retarget_lock_init_recursive(_LOCK_T *lock) { *lock = pool_get(); }
void __retarget_lock_close(_LOCK_T lock) { pool_put(lock); }
void __retarget_lock_close_recursive(_LOCK_T lock) { pool_put(lock); }

int __retarget_lock_try_acquire(_LOCK_T lock) { return !__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE); }

void __retarget_lock_acquire(_LOCK_T lock)
{
    while (!__retarget_lock_try_acquire(lock))
        while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
            ;
}

void __retarget_lock_release(_LOCK_T lock) { __atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE); }

int __retarget_lock_try_acquire_recursive(_LOCK_T lock)
{
    void *me = self_tp();
    if (lock->owner == me) {
        lock->depth++;
        return 1;
    }
    if (!__retarget_lock_try_acquire(lock))
        return 0;
    lock->owner = me;
    lock->depth = 1;
    return 1;
}

void __retarget_lock_acquire_recursive(_LOCK_T lock)
{
    void *me = self_tp();
    if (lock->owner == me) {
        lock->depth++;
        return;
    }
    __retarget_lock_acquire(lock);
    lock->owner = me;
    lock->depth = 1;
}

void __retarget_lock_release_recursive(_LOCK_T lock)
{
    if (--lock->depth == 0) {
        lock->owner = NULL;
        __retarget_lock_release(lock);
    }
}
