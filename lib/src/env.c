/*
 * env.c: start-up and shut-down, rank and size, time, datatypes and error strings.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include "../ports/port.h"
#include "fc.h"
#include "wait.h"

struct lib_state nocmsg_lib = {.rank = -1, .size = -1};
static double wtime_origin;

int nocmsg_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (nocmsg_lib.initialized)
        return NOCMSG_ERR_ARG;
    int rank, size;
    int err = nocmsg_port_init(&rank, &size);
    if (err != NOCMSG_SUCCESS)
        return err;
    nocmsg_lib.rank = rank;
    nocmsg_lib.size = size;
    nocmsg_lib.eager_limit = nocmsg_port_eager_limit();
    if (nocmsg_lib.eager_limit >= EAGER_MAX)
        nocmsg_lib.eager_limit = EAGER_MAX - 1;
    if ((err = nocmsg_engine_init(size)) != NOCMSG_SUCCESS || (err = nocmsg_comm_init()) != NOCMSG_SUCCESS)
        return err;
    nocmsg_lib.initialized = 1;
    nocmsg_coll_init();
#ifdef NOCMSG_PORT_UDN
    if ((err = nocmsg_fc_init()) != NOCMSG_SUCCESS)
        return err;
#endif
    wtime_origin = nocmsg_port_wtime();
    nocmsg_engine_start(1);
    nocmsg_wait_init();
    return NOCMSG_SUCCESS;
}

int nocmsg_finalize(void)
{
    if (!nocmsg_lib.initialized || nocmsg_lib.finalized)
        return NOCMSG_ERR_NOT_INITIALIZED;
    nocmsg_engine_start(0);
    nocmsg_engine_finalize();
#ifdef NOCMSG_PORT_UDN
    nocmsg_fc_finalize();
#endif
    nocmsg_comm_finalize();
    nocmsg_wait_finalize();
    nocmsg_port_finalize();
    nocmsg_lib.finalized = 1;
    return NOCMSG_SUCCESS;
}

int nocmsg_initialized(int *flag)
{
    if (!flag)
        return NOCMSG_ERR_ARG;
    *flag = nocmsg_lib.initialized;
    return NOCMSG_SUCCESS;
}

int nocmsg_finalized(int *flag)
{
    if (!flag)
        return NOCMSG_ERR_ARG;
    *flag = nocmsg_lib.finalized;
    return NOCMSG_SUCCESS;
}

void nocmsg_abort(nocmsg_comm comm, int code)
{
    (void)comm;
    fflush(stdout);
    fprintf(stderr, "nocmsg: rank %d called nocmsg_abort(%d)\n", nocmsg_lib.rank, code);
    nocmsg_port_abort(code);
}

int nocmsg_rank(void)
{
    return nocmsg_lib.initialized && !nocmsg_lib.finalized ? nocmsg_lib.rank : -1;
}

int nocmsg_size(void)
{
    return nocmsg_lib.initialized && !nocmsg_lib.finalized ? nocmsg_lib.size : -1;
}

double nocmsg_wtime(void)
{
    return nocmsg_port_wtime() - wtime_origin;
}

double nocmsg_wtick(void)
{
    return nocmsg_port_wtick();
}

const char *nocmsg_port_name(void)
{
    return nocmsg_port_kind();
}

int nocmsg_progress(void)
{
    if (!nocmsg_lib.initialized || nocmsg_lib.finalized)
        return NOCMSG_ERR_NOT_INITIALIZED;
    nocmsg_engine_progress();
    return NOCMSG_SUCCESS;
}

const int nocmsg_type_sizes[NOCMSG_BASIC_DATATYPES] = {
    [NOCMSG_BYTE] = 1,
    [NOCMSG_CHAR] = sizeof(char),
    [NOCMSG_SIGNED_CHAR] = sizeof(signed char),
    [NOCMSG_UNSIGNED_CHAR] = sizeof(unsigned char),
    [NOCMSG_SHORT] = sizeof(short),
    [NOCMSG_UNSIGNED_SHORT] = sizeof(unsigned short),
    [NOCMSG_INT] = sizeof(int),
    [NOCMSG_UNSIGNED] = sizeof(unsigned),
    [NOCMSG_LONG] = sizeof(long),
    [NOCMSG_UNSIGNED_LONG] = sizeof(unsigned long),
    [NOCMSG_LONG_LONG] = sizeof(long long),
    [NOCMSG_UNSIGNED_LONG_LONG] = sizeof(unsigned long long),
    [NOCMSG_INT8] = 1,
    [NOCMSG_UINT8] = 1,
    [NOCMSG_INT16] = 2,
    [NOCMSG_UINT16] = 2,
    [NOCMSG_INT32] = 4,
    [NOCMSG_UINT32] = 4,
    [NOCMSG_INT64] = 8,
    [NOCMSG_UINT64] = 8,
    [NOCMSG_FLOAT] = sizeof(float),
    [NOCMSG_DOUBLE] = sizeof(double),
    [NOCMSG_FLOAT_INT] = sizeof(struct nocmsg_float_int),
    [NOCMSG_DOUBLE_INT] = sizeof(struct nocmsg_double_int),
    [NOCMSG_LONG_INT] = sizeof(struct nocmsg_long_int),
    [NOCMSG_2INT] = sizeof(struct nocmsg_2int),
    [NOCMSG_SHORT_INT] = sizeof(struct nocmsg_short_int),
};

const unsigned char nocmsg__type_shifts[NOCMSG_BASIC_DATATYPES] = {
    [NOCMSG_BYTE] = 0,
    [NOCMSG_CHAR] = 0,
    [NOCMSG_SIGNED_CHAR] = 0,
    [NOCMSG_UNSIGNED_CHAR] = 0,
    [NOCMSG_SHORT] = __builtin_ctz(sizeof(short)),
    [NOCMSG_UNSIGNED_SHORT] = __builtin_ctz(sizeof(unsigned short)),
    [NOCMSG_INT] = __builtin_ctz(sizeof(int)),
    [NOCMSG_UNSIGNED] = __builtin_ctz(sizeof(unsigned)),
    [NOCMSG_LONG] = __builtin_ctz(sizeof(long)),
    [NOCMSG_UNSIGNED_LONG] = __builtin_ctz(sizeof(unsigned long)),
    [NOCMSG_LONG_LONG] = __builtin_ctz(sizeof(long long)),
    [NOCMSG_UNSIGNED_LONG_LONG] = __builtin_ctz(sizeof(unsigned long long)),
    [NOCMSG_INT8] = 0,
    [NOCMSG_UINT8] = 0,
    [NOCMSG_INT16] = 1,
    [NOCMSG_UINT16] = 1,
    [NOCMSG_INT32] = 2,
    [NOCMSG_UINT32] = 2,
    [NOCMSG_INT64] = 3,
    [NOCMSG_UINT64] = 3,
    [NOCMSG_FLOAT] = __builtin_ctz(sizeof(float)),
    [NOCMSG_DOUBLE] = __builtin_ctz(sizeof(double)),
    [NOCMSG_FLOAT_INT] = __builtin_ctz(sizeof(struct nocmsg_float_int)),
    [NOCMSG_DOUBLE_INT] = __builtin_ctz(sizeof(struct nocmsg_double_int)),
    [NOCMSG_LONG_INT] = __builtin_ctz(sizeof(struct nocmsg_long_int)),
    [NOCMSG_2INT] = __builtin_ctz(sizeof(struct nocmsg_2int)),
    [NOCMSG_SHORT_INT] = __builtin_ctz(sizeof(struct nocmsg_short_int)),
};
_Static_assert(sizeof(float) == 4 && sizeof(double) == 8 && sizeof(int) == 4 && sizeof(struct nocmsg_float_int) == 8 &&
                   sizeof(struct nocmsg_double_int) == 16 && sizeof(struct nocmsg_long_int) == 16 &&
                   sizeof(struct nocmsg_2int) == 8 && sizeof(struct nocmsg_short_int) == 8,
               "basic types are powers of two");

int nocmsg_type_size(nocmsg_datatype type, int *size)
{
    if (!size)
        return NOCMSG_ERR_ARG;
    if (type <= NOCMSG_DATATYPE_NULL || type >= NOCMSG_BASIC_DATATYPES)
        return NOCMSG_ERR_TYPE;
    *size = nocmsg_type_sizes[type];
    return NOCMSG_SUCCESS;
}

const char *nocmsg_error_string(int code)
{
    switch (code) {
    case NOCMSG_SUCCESS:
        return "success";
    case NOCMSG_ERR_BUFFER:
        return "invalid buffer: a null pointer with a non-zero count";
    case NOCMSG_ERR_COUNT:
        return "invalid count: counts must not be negative";
    case NOCMSG_ERR_TYPE:
        return "invalid datatype";
    case NOCMSG_ERR_TAG:
        return "invalid tag: tags run from 0 to NOCMSG_TAG_UB (NOCMSG_ANY_TAG only when receiving or probing)";
    case NOCMSG_ERR_COMM:
        return "invalid communicator: unknown, freed or NOCMSG_COMM_NULL";
    case NOCMSG_ERR_RANK:
        return "invalid rank: not in the communicator (NOCMSG_ANY_SOURCE only when receiving or probing)";
    case NOCMSG_ERR_TRUNCATE:
        return "message truncated: the message is longer than the receive buffer";
    case NOCMSG_ERR_REQUEST:
        return "invalid request";
    case NOCMSG_ERR_ARG:
        return "invalid argument";
    case NOCMSG_ERR_NOT_INITIALIZED:
        return "libnocmsg is not initialized (call nocmsg_init first, and nothing after nocmsg_finalize)";
    case NOCMSG_ERR_NO_MEM:
        return "out of memory";
    case NOCMSG_ERR_IN_STATUS:
        return "error in status: see the error field of each request's status";
    case NOCMSG_ERR_PENDING:
        return "request pending: not completed because another request failed";
    case NOCMSG_ERR_UNSUPPORTED:
        return "operation not supported by this port";
    case NOCMSG_ERR_OP:
        return "invalid operation: unknown, freed, or not defined on the datatype";
    case NOCMSG_ERR_ROOT:
        return "invalid root: not a rank of the communicator";
    case NOCMSG_ERR_INTERN:
        return "internal error (a system call failed, or the job was not started by nocmsg native)";
    default:
        return "unknown error code";
    }
}
