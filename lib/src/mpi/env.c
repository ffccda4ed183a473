/*
 * env.c: the MPI environment: init and finalize, error handlers and error strings, attributes, and the MPI state
 * of each communicator.
 */
#include "mpi_impl.h"

#include "../engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef NOCMSG_SIM
#include <unistd.h>
#endif

#define SAME(a, b) ((int)(a) == (int)(b))
/* libnocmsg's error codes are the MPI classes of the same meaning, so codes pass between the layers unchanged. */
_Static_assert(SAME(NOCMSG_ERR_BUFFER, MPI_ERR_BUFFER) && SAME(NOCMSG_ERR_COUNT, MPI_ERR_COUNT) &&
                   SAME(NOCMSG_ERR_TYPE, MPI_ERR_TYPE) && SAME(NOCMSG_ERR_TAG, MPI_ERR_TAG) &&
                   SAME(NOCMSG_ERR_COMM, MPI_ERR_COMM) && SAME(NOCMSG_ERR_RANK, MPI_ERR_RANK) &&
                   SAME(NOCMSG_ERR_TRUNCATE, MPI_ERR_TRUNCATE) && SAME(NOCMSG_ERR_REQUEST, MPI_ERR_REQUEST) &&
                   SAME(NOCMSG_ERR_ARG, MPI_ERR_ARG) && SAME(NOCMSG_ERR_NOT_INITIALIZED, MPI_ERR_OTHER) &&
                   SAME(NOCMSG_ERR_NO_MEM, MPI_ERR_NO_MEM) && SAME(NOCMSG_ERR_IN_STATUS, MPI_ERR_IN_STATUS) &&
                   SAME(NOCMSG_ERR_PENDING, MPI_ERR_PENDING) &&
                   SAME(NOCMSG_ERR_UNSUPPORTED, MPI_ERR_UNSUPPORTED_OPERATION) &&
                   SAME(NOCMSG_ERR_INTERN, MPI_ERR_INTERN) &&
                   SAME(NOCMSG_ERR_OP, MPI_ERR_OP) && SAME(NOCMSG_ERR_ROOT, MPI_ERR_ROOT),
               "libnocmsg error codes are MPI error classes");
/* The same for handles and special values. */
_Static_assert(SAME(NOCMSG_COMM_WORLD, MPI_COMM_WORLD) && SAME(NOCMSG_COMM_SELF, MPI_COMM_SELF) &&
                   SAME(NOCMSG_COMM_NULL, MPI_COMM_NULL) && SAME(NOCMSG_ANY_SOURCE, MPI_ANY_SOURCE) &&
                   SAME(NOCMSG_ANY_TAG, MPI_ANY_TAG) && SAME(NOCMSG_PROC_NULL, MPI_PROC_NULL) &&
                   SAME(NOCMSG_UNDEFINED, MPI_UNDEFINED) && SAME(NOCMSG_BASIC_DATATYPES, MPI_LONG_DOUBLE) &&
                   SAME(NOCMSG_DOUBLE, MPI_DOUBLE) && SAME(NOCMSG_SHORT_INT, MPI_SHORT_INT) &&
                   SAME(NOCMSG_MAXLOC, MPI_MAXLOC) && SAME(NOCMSG_BXOR, MPI_BXOR),
               "libnocmsg handles are MPI handles");
_Static_assert(SAME(MPI_DOUBLE_INT, 24) && SAME(MPI_LONG_INT, 25) && SAME(MPI_SHORT_INT, 27) &&
                   sizeof(struct nocmsg_double_int) > sizeof(double) + sizeof(int) &&
                   sizeof(struct nocmsg_float_int) == sizeof(float) + sizeof(int),
               "MPI_WIRE_MASK leaves out the padded pair types");

static int thread_level = -1;

int mpi_up(void)
{
    /* MPI_Init, not nocmsg_init alone, started the library: its communicators have the layer's state. */
    return nocmsg_lib.initialized && !nocmsg_lib.finalized && nocmsg_lib.comm_layer_bytes;
}

/* ---- error handlers ---- */

/* User error handlers: handle MPI_ERRORS_RETURN + 1 + i is entry i (never reused, so a freed handler that a
 * communicator still has keeps working, as MPI requires). */
static MPI_Comm_errhandler_function **handlers;
static int nhandlers;

static const char *const error_strings[MPI_ERR_LASTCODE] = {
    [MPI_SUCCESS] = "success",
    [MPI_ERR_BUFFER] = "invalid buffer: a null pointer with a non-zero count, or no room in the MPI_Bsend buffer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype: unknown, freed, not committed, or MPI_DATATYPE_NULL",
    [MPI_ERR_TAG] = "invalid tag: tags run from 0 to the MPI_TAG_UB attribute (MPI_ANY_TAG only when receiving)",
    [MPI_ERR_COMM] = "invalid communicator: unknown, freed or MPI_COMM_NULL",
    [MPI_ERR_RANK] = "invalid rank: not in the communicator (MPI_ANY_SOURCE only when receiving)",
    [MPI_ERR_TRUNCATE] = "message truncated: the message is longer than the receive buffer",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_OTHER] = "other error (for example a call before MPI_Init or after MPI_Finalize)",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_IN_STATUS] = "error code is in the status of each request",
    [MPI_ERR_PENDING] = "request pending: not completed because another request failed",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported by nocmsg (docs/mpi.md lists what is)",
    [MPI_ERR_INTERN] = "internal error (a system call failed, or the job was not started by nocmsg)",
    [MPI_ERR_OP] = "invalid operation: unknown, freed, or not defined on the datatype",
    [MPI_ERR_ROOT] = "invalid root: not a rank of the communicator",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_TOPOLOGY] = "invalid topology: the communicator has none, or not this kind",
    [MPI_ERR_DIMS] = "invalid dimensions",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_INFO_KEY] = "invalid info key",
    [MPI_ERR_INFO_VALUE] = "invalid info value",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_SPAWN] = "process spawn failed",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_SERVICE] = "invalid service name",
    [MPI_ERR_NAME] = "invalid service name for lookup",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_ASSERT] = "invalid assertion",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "wrong synchronisation of one-sided calls",
    [MPI_ERR_RMA_RANGE] = "target memory outside the window",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavour",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_NOT_SAME] = "collective argument not the same on all processes",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_NO_SPACE] = "not enough space",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file or file system",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_CONVERSION] = "data conversion failed",
    [MPI_ERR_IO] = "I/O error",
};

static const char *error_text(int code)
{
    return code >= 0 && code < MPI_ERR_LASTCODE && error_strings[code] ? error_strings[code] : "unknown error code";
}

int mpi_raise(MPI_Comm comm, int code, const char *fn)
{
    if (code == MPI_SUCCESS)
        return code;
    MPI_Errhandler eh = MPI_ERRORS_ARE_FATAL;
    if (mpi_up()) {
        struct mpi_comm_state *s = mpi_comm_state(comm);
        if (!s)
            s = mpi_comm_state(MPI_COMM_WORLD);
        if (s)
            eh = s->errhandler;
    }
    if (eh == MPI_ERRORS_RETURN)
        return code;
    if (eh > MPI_ERRORS_RETURN && eh - MPI_ERRORS_RETURN - 1 < nhandlers) {
        MPI_Comm c = comm;
        int e = code;
        handlers[eh - MPI_ERRORS_RETURN - 1](&c, &e);
        return code;
    }
    fflush(stdout);
    fprintf(stderr, "nocmsg: MPI error in %s on rank %d: %s\n", fn, nocmsg_lib.rank, error_text(code));
    if (mpi_up())
        nocmsg_abort(comm, code);
    exit(code);
}

/* For the inline send and receive of mpi.h, which cannot see mpi_raise. */
int nocmsg__mpi_raise(MPI_Comm comm, int code, const char *fn)
{
    return mpi_raise(comm, code, fn);
}

static int handler_valid(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN ||
           (eh > MPI_ERRORS_RETURN && eh - MPI_ERRORS_RETURN - 1 < nhandlers);
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    struct mpi_comm_state *s = mpi_comm_state(comm);
    if (!s)
        MPI_RETURN(MPI_COMM_WORLD, mpi_up() ? MPI_ERR_COMM : MPI_ERR_OTHER);
    if (!handler_valid(errhandler))
        MPI_RETURN(comm, MPI_ERR_ARG);
    s->errhandler = errhandler;
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    struct mpi_comm_state *s = mpi_comm_state(comm);
    if (!s)
        MPI_RETURN(MPI_COMM_WORLD, mpi_up() ? MPI_ERR_COMM : MPI_ERR_OTHER);
    if (!errhandler)
        MPI_RETURN(comm, MPI_ERR_ARG);
    *errhandler = s->errhandler;
    return MPI_SUCCESS;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    if (!function || !errhandler)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    MPI_Comm_errhandler_function **grown = realloc(handlers, sizeof *handlers * (size_t)(nhandlers + 1));
    if (!grown)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    handlers = grown;
    handlers[nhandlers] = function;
    *errhandler = MPI_ERRORS_RETURN + 1 + nhandlers++;
    return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    if (!mpi_comm_state(comm))
        MPI_RETURN(MPI_COMM_WORLD, mpi_up() ? MPI_ERR_COMM : MPI_ERR_OTHER);
    mpi_raise(comm, errorcode, "MPI_Comm_call_errhandler");
    return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (!errhandler || !handler_valid(*errhandler))
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", error_text(errorcode));
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int *errorclass)
{
    if (!errorclass || errorcode < 0 || errorcode >= MPI_ERR_LASTCODE)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *errorclass = errorcode;
    return MPI_SUCCESS;
}

/* ---- environment ---- */

/* Clears the state of live communicator comm, giving it error handler eh. */
static void mpi_comm_reset(MPI_Comm comm, MPI_Errhandler eh)
{
    struct mpi_comm_state *s = mpi_comm_state(comm);
    if (s) {
        memset(s, 0, sizeof *s);
        s->errhandler = eh;
    }
}

int MPI_Init(int *argc, char ***argv)
{
    if (nocmsg_lib.initialized)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    /* Every communicator libnocmsg makes from now on carries this layer's state. */
    nocmsg_lib.comm_layer_bytes = sizeof(struct mpi_comm_state);
    int err = nocmsg_init(argc, argv);
    if (err != NOCMSG_SUCCESS)
        MPI_RETURN(MPI_COMM_WORLD, err);
    mpi_comm_reset(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    mpi_comm_reset(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    strcpy(mpi_comm_state(MPI_COMM_WORLD)->name, "MPI_COMM_WORLD");
    strcpy(mpi_comm_state(MPI_COMM_SELF)->name, "MPI_COMM_SELF");
    nocmsg_engine_idle = mpi_progress_nbc;
    nocmsg_engine_idle_busy = mpi_nbc_pending;
    if (thread_level < 0)
        thread_level = MPI_THREAD_SINGLE;
    return MPI_SUCCESS;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (!provided)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    thread_level = required >= MPI_THREAD_FUNNELED ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE;
    int err = MPI_Init(argc, argv);
    *provided = thread_level;
    return err;
}

int MPI_Query_thread(int *provided)
{
    if (!provided)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *provided = thread_level < 0 ? MPI_THREAD_SINGLE : thread_level;
    return MPI_SUCCESS;
}

int MPI_Is_thread_main(int *flag)
{
    if (!flag)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_Initialized(int *flag)
{
    if (!flag)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *flag = nocmsg_lib.initialized;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    if (!flag)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *flag = nocmsg_lib.finalized;
    return MPI_SUCCESS;
}

int MPI_Finalize(void)
{
    if (!mpi_up())
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_OTHER);
    /* MPI 3.1 §8.7.1: the attributes of MPI_COMM_SELF are deleted first, so libraries can clean up there. */
    int err = mpi_comm_freeing(MPI_COMM_SELF);
    for (int c = 0; c < MAX_COMMS; c++)
        if (c != MPI_COMM_SELF && nocmsg_comm_get(c))
            mpi_comm_freeing(c);
    nocmsg_engine_idle = NULL;
    nocmsg_engine_idle_busy = NULL;
    int ferr = nocmsg_finalize();
    return err != MPI_SUCCESS ? err : ferr;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    if (!mpi_up()) {
        fflush(stdout);
        fprintf(stderr, "nocmsg: MPI_Abort(%d) outside MPI_Init .. MPI_Finalize\n", errorcode);
        nocmsg_port_abort(errorcode);
    }
    nocmsg_abort(comm, errorcode);
    return MPI_SUCCESS;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
#ifdef NOCMSG_SIM
    /* A simulated chip has no host name: name the tile. */
    int n = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s-tile%d", nocmsg_port_name(), nocmsg_lib.rank);
#else
    char host[MPI_MAX_PROCESSOR_NAME] = "localhost";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    int n = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
#endif
    *resultlen = n < MPI_MAX_PROCESSOR_NAME ? n : MPI_MAX_PROCESSOR_NAME - 1;
    return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "nocmsg MPI %d.%d on libnocmsg (port %s)",
                     MPI_VERSION, MPI_SUBVERSION, mpi_up() ? nocmsg_port_name() : "not started");
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

double MPI_Wtime(void)
{
    return nocmsg_wtime();
}

double MPI_Wtick(void)
{
    return nocmsg_wtick();
}

int MPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    (void)info;
    if (size < 0 || !baseptr)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    void *p = malloc(size ? (size_t)size : 1);
    if (!p)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int MPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}

/* ---- attributes ---- */

struct mpi_attr {
    int keyval;
    void *value;
    struct mpi_attr *next;
};

struct keyval {
    int used;
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
};
/* Keys of the program's own: keyval k is entry k - 1 (the predefined keys are far above). */
static struct keyval *keyvals;
static int nkeyvals;

static struct keyval *keyval_get(int k)
{
    return k >= 1 && k <= nkeyvals && keyvals[k - 1].used ? &keyvals[k - 1] : NULL;
}

int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                          void *attribute_val_out, int *flag)
{
    (void)oldcomm, (void)comm_keyval, (void)extra_state, (void)attribute_val_in, (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag)
{
    (void)oldcomm, (void)comm_keyval, (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state)
{
    (void)comm, (void)comm_keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    if (!comm_keyval)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_ARG);
    struct keyval *grown = realloc(keyvals, sizeof *keyvals * (size_t)(nkeyvals + 1));
    if (!grown)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    keyvals = grown;
    keyvals[nkeyvals] = (struct keyval){1, comm_copy_attr_fn ? comm_copy_attr_fn : MPI_COMM_NULL_COPY_FN,
                                        comm_delete_attr_fn ? comm_delete_attr_fn : MPI_COMM_NULL_DELETE_FN,
                                        extra_state};
    *comm_keyval = ++nkeyvals;
    return MPI_SUCCESS;
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    struct keyval *k = comm_keyval ? keyval_get(*comm_keyval) : NULL;
    if (!k)
        MPI_RETURN(MPI_COMM_WORLD, MPI_ERR_KEYVAL);
    /* Attributes already set keep their key alive until they are deleted (their delete function still runs). */
    k->used = 2;
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* Removes attribute `keyval` from comm, running its delete function; *found tells whether it was set. */
static int attr_remove(MPI_Comm comm, int keyval, int *found)
{
    struct mpi_attr **link = &mpi_comm_state(comm)->attrs;
    *found = 0;
    while (*link && (*link)->keyval != keyval)
        link = &(*link)->next;
    if (!*link)
        return MPI_SUCCESS;
    struct mpi_attr *a = *link;
    struct keyval *k = &keyvals[keyval - 1];
    int err = k->del(comm, keyval, a->value, k->extra);
    if (err != MPI_SUCCESS)
        return err;
    *link = a->next;
    free(a);
    *found = 1;
    return MPI_SUCCESS;
}

static int attr_add(MPI_Comm comm, int keyval, void *value)
{
    struct mpi_attr *a = malloc(sizeof *a);
    if (!a)
        return MPI_ERR_NO_MEM;
    struct mpi_comm_state *s = mpi_comm_state(comm);
    *a = (struct mpi_attr){keyval, value, s->attrs};
    s->attrs = a;
    return MPI_SUCCESS;
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    if (!mpi_comm_state(comm))
        MPI_RETURN(MPI_COMM_WORLD, mpi_up() ? MPI_ERR_COMM : MPI_ERR_OTHER);
    if (!keyval_get(comm_keyval) || keyvals[comm_keyval - 1].used != 1)
        MPI_RETURN(comm, MPI_ERR_KEYVAL);
    int found;
    int err = attr_remove(comm, comm_keyval, &found);
    if (err == MPI_SUCCESS)
        err = attr_add(comm, comm_keyval, attribute_val);
    MPI_RETURN(comm, err);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    if (!mpi_comm_state(comm))
        MPI_RETURN(MPI_COMM_WORLD, mpi_up() ? MPI_ERR_COMM : MPI_ERR_OTHER);
    if (!keyval_get(comm_keyval))
        MPI_RETURN(comm, MPI_ERR_KEYVAL);
    int found;
    MPI_RETURN(comm, attr_remove(comm, comm_keyval, &found));
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    /* The predefined attributes' values: MPI hands out pointers to them. */
    static int tag_ub = NOCMSG_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_is_global = 0,
               universe_size, lastusedcode = MPI_ERR_LASTCODE - 1;
    if (!mpi_comm_state(comm))
        MPI_RETURN(MPI_COMM_WORLD, mpi_up() ? MPI_ERR_COMM : MPI_ERR_OTHER);
    if (!attribute_val || !flag)
        MPI_RETURN(comm, MPI_ERR_ARG);
    int *predefined = NULL;
    switch (comm_keyval) {
    case MPI_TAG_UB:
        predefined = &tag_ub;
        break;
    case MPI_HOST:
        predefined = &host;
        break;
    case MPI_IO:
        predefined = &io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        /* Each rank's clock counts from its own MPI_Init, so the clocks are not synchronised. */
        predefined = &wtime_is_global;
        break;
    case MPI_UNIVERSE_SIZE:
        universe_size = nocmsg_lib.size;
        predefined = &universe_size;
        break;
    case MPI_LASTUSEDCODE:
        predefined = &lastusedcode;
        break;
    case MPI_APPNUM:
        *flag = 0; /* not started by MPI_Comm_spawn_multiple or an MPMD launcher */
        return MPI_SUCCESS;
    default:
        break;
    }
    if (predefined) {
        *(int **)attribute_val = predefined;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!keyval_get(comm_keyval))
        MPI_RETURN(comm, MPI_ERR_KEYVAL);
    *flag = 0;
    for (struct mpi_attr *a = mpi_comm_state(comm)->attrs; a; a = a->next)
        if (a->keyval == comm_keyval) {
            *(void **)attribute_val = a->value;
            *flag = 1;
        }
    return MPI_SUCCESS;
}

/* ---- per-communicator state ---- */

int mpi_comm_created(MPI_Comm parent, MPI_Comm comm, int copy_attrs)
{
    struct mpi_comm_state *p = mpi_comm_state(parent);
    mpi_comm_reset(comm, p ? p->errhandler : MPI_ERRORS_ARE_FATAL);
    if (!copy_attrs || !p)
        return MPI_SUCCESS;
    for (struct mpi_attr *a = p->attrs; a; a = a->next) {
        struct keyval *k = &keyvals[a->keyval - 1];
        void *value = NULL;
        int flag = 0;
        int err = k->copy(parent, a->keyval, k->extra, a->value, &value, &flag);
        if (err != MPI_SUCCESS)
            return err;
        if (flag && (err = attr_add(comm, a->keyval, value)) != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

int mpi_comm_freeing(MPI_Comm comm)
{
    int err = MPI_SUCCESS;
    struct mpi_comm_state *s = mpi_comm_state(comm);
    while (s->attrs && err == MPI_SUCCESS) {
        int found;
        err = attr_remove(comm, s->attrs->keyval, &found);
    }
    /* A failed delete function keeps the communicator, topology included. */
    if (err != MPI_SUCCESS)
        return err;
    struct mpi_topo *t = s->topo;
    if (t) {
        free(t->dims);
        free(t->periods);
        free(t);
    }
    mpi_comm_reset(comm, MPI_ERRHANDLER_NULL);
    return MPI_SUCCESS;
}

/* ---- the MPI-1 names of the error handler and attribute functions ---- */

int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return MPI_Comm_create_errhandler(function, errhandler);
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return MPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return MPI_Comm_get_errhandler(comm, errhandler);
}

int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
    return MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Keyval_free(int *keyval)
{
    return MPI_Comm_free_keyval(keyval);
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return MPI_Comm_set_attr(comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return MPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return MPI_Comm_delete_attr(comm, keyval);
}

int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out,
                     int *flag)
{
    return MPI_COMM_NULL_COPY_FN(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag);
}

int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out,
               int *flag)
{
    return MPI_COMM_DUP_FN(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag);
}

int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state)
{
    return MPI_COMM_NULL_DELETE_FN(comm, keyval, attribute_val, extra_state);
}
