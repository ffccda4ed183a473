/*
 * check.h - what the RCCE test programs share: a failed check prints one line naming the UE and the case, then
 * stops the program with a non-zero status; rank 0 prints what passed (the expected output, NAME.expected).
 */
#ifndef RCCE_TEST_CHECK_H
#define RCCE_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "RCCE.h"

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            printf("FAIL ue %d (%s:%d): ", RCCE_ue(), __FILE__, __LINE__);               \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* An RCCE call that must succeed. */
#define OK(call)                                                                          \
    do {                                                                                  \
        int ok_err_ = (call);                                                             \
        if (ok_err_ != RCCE_SUCCESS) {                                                    \
            char ok_text_[RCCE_MAX_ERROR_STRING];                                         \
            int ok_len_;                                                                  \
            RCCE_error_string(ok_err_, ok_text_, &ok_len_);                               \
            CHECK(0, "%s returned %d (%s)", #call, ok_err_, ok_text_);                    \
        }                                                                                 \
    } while (0)

/* Byte i of a message of `size` bytes from `from` to `to` (different for every case, so a misplaced or stale byte
 * shows). */
static inline unsigned char pattern(size_t i, size_t size, int from, int to)
{
    unsigned long x = (unsigned long)i * 2654435761u + size * 40503u + (unsigned long)from * 97u + (unsigned long)to * 13u;
    return (unsigned char)(x ^ (x >> 11) ^ (x >> 23));
}

/* Spins for about `cycles` cycles of private work (to shuffle arrival orders). */
static inline void spin(unsigned long cycles)
{
    for (volatile unsigned long i = 0; i < cycles / 4; i++) {
    }
}

#endif /* RCCE_TEST_CHECK_H */
