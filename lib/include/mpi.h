/*
 * mpi.h: the MPI 3.1 C interface on libnocmsg, so that unmodified MPI programs build and run on a simulated chip
 * (bin/nocmsg-cc) and natively (bin/nocmsg-cc-native).
 *
 * This header declares what nocmsg implements; mpi_unsupported.h (included at the end) declares the rest of MPI 3.1
 * (one-sided communication, file I/O, intercommunicators, process creation, graph topologies...), which links but
 * fails clearly when called: it reports the missing function through the error handler of MPI_COMM_WORLD and
 * returns MPI_ERR_UNSUPPORTED_OPERATION. docs/mpi.md lists both and the differences from a production MPI.
 *
 * Handles are small integers (communicators are libnocmsg's, so an MPI_Comm is also a nocmsg_comm), except
 * requests, which are pointers. One thread per rank (MPI_THREAD_FUNNELED at most).
 */
#ifndef NOCMSG_MPI_H
#define NOCMSG_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define NOCMSG_MPI 1

/* Handles and integer types. */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Group;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_File;
typedef int MPI_Message;
typedef struct nocmsg_mpi_request *MPI_Request;
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

/* The outcome of a receive or of a completed request. The fields after MPI_ERROR are private. */
typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int nocmsg_cancelled;
    size_t nocmsg_count; /* bytes received */
} MPI_Status;

/* Error classes (each error code is its own class). The first ones are libnocmsg's codes. */
enum {
    MPI_SUCCESS = 0,
    MPI_ERR_BUFFER = 1,
    MPI_ERR_COUNT = 2,
    MPI_ERR_TYPE = 3,
    MPI_ERR_TAG = 4,
    MPI_ERR_COMM = 5,
    MPI_ERR_RANK = 6,
    MPI_ERR_TRUNCATE = 7,
    MPI_ERR_REQUEST = 8,
    MPI_ERR_ARG = 9,
    MPI_ERR_OTHER = 10, /* also: called before MPI_Init or after MPI_Finalize */
    MPI_ERR_NO_MEM = 11,
    MPI_ERR_IN_STATUS = 12,
    MPI_ERR_PENDING = 13,
    MPI_ERR_UNSUPPORTED_OPERATION = 14,
    MPI_ERR_INTERN = 15,
    MPI_ERR_OP = 16,
    MPI_ERR_ROOT = 17,
    MPI_ERR_GROUP,
    MPI_ERR_TOPOLOGY,
    MPI_ERR_DIMS,
    MPI_ERR_UNKNOWN,
    MPI_ERR_KEYVAL,
    MPI_ERR_INFO,
    MPI_ERR_INFO_KEY,
    MPI_ERR_INFO_VALUE,
    MPI_ERR_INFO_NOKEY,
    MPI_ERR_SPAWN,
    MPI_ERR_PORT,
    MPI_ERR_SERVICE,
    MPI_ERR_NAME,
    MPI_ERR_WIN,
    MPI_ERR_BASE,
    MPI_ERR_SIZE,
    MPI_ERR_DISP,
    MPI_ERR_LOCKTYPE,
    MPI_ERR_ASSERT,
    MPI_ERR_RMA_CONFLICT,
    MPI_ERR_RMA_SYNC,
    MPI_ERR_RMA_RANGE,
    MPI_ERR_RMA_ATTACH,
    MPI_ERR_RMA_SHARED,
    MPI_ERR_RMA_FLAVOR,
    MPI_ERR_FILE,
    MPI_ERR_NOT_SAME,
    MPI_ERR_AMODE,
    MPI_ERR_UNSUPPORTED_DATAREP,
    MPI_ERR_NO_SUCH_FILE,
    MPI_ERR_FILE_EXISTS,
    MPI_ERR_BAD_FILE,
    MPI_ERR_ACCESS,
    MPI_ERR_NO_SPACE,
    MPI_ERR_QUOTA,
    MPI_ERR_READ_ONLY,
    MPI_ERR_FILE_IN_USE,
    MPI_ERR_DUP_DATAREP,
    MPI_ERR_CONVERSION,
    MPI_ERR_IO,
    MPI_ERR_LASTCODE
};

/* Special ranks, tags and values. */
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 64
#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 256
#define MPI_MAX_DATAREP_STRING 128

#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_UNWEIGHTED ((int *)1)
#define MPI_WEIGHTS_EMPTY ((int *)2)

/* Thread levels. */
enum { MPI_THREAD_SINGLE = 0, MPI_THREAD_FUNNELED = 1, MPI_THREAD_SERIALIZED = 2, MPI_THREAD_MULTIPLE = 3 };

/* Results of comparing groups and communicators. */
enum { MPI_IDENT = 0, MPI_CONGRUENT = 1, MPI_SIMILAR = 2, MPI_UNEQUAL = 3 };

/* Topologies. */
enum { MPI_GRAPH = 1, MPI_CART = 2, MPI_DIST_GRAPH = 3 };

/* Communicator split types. */
enum { MPI_COMM_TYPE_SHARED = 1 };

/* Null and predefined handles. */
#define MPI_COMM_NULL ((MPI_Comm)-1)
#define MPI_COMM_WORLD ((MPI_Comm)0)
#define MPI_COMM_SELF ((MPI_Comm)1)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)1)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_INFO_ENV ((MPI_Info)1)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)1)

/* Predefined datatypes. The first ones are libnocmsg's basic types (same numbers). */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_BYTE ((MPI_Datatype)1)
#define MPI_CHAR ((MPI_Datatype)2)
#define MPI_SIGNED_CHAR ((MPI_Datatype)3)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)4)
#define MPI_SHORT ((MPI_Datatype)5)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)6)
#define MPI_INT ((MPI_Datatype)7)
#define MPI_UNSIGNED ((MPI_Datatype)8)
#define MPI_LONG ((MPI_Datatype)9)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)10)
#define MPI_LONG_LONG ((MPI_Datatype)11)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)12)
#define MPI_INT8_T ((MPI_Datatype)13)
#define MPI_UINT8_T ((MPI_Datatype)14)
#define MPI_INT16_T ((MPI_Datatype)15)
#define MPI_UINT16_T ((MPI_Datatype)16)
#define MPI_INT32_T ((MPI_Datatype)17)
#define MPI_UINT32_T ((MPI_Datatype)18)
#define MPI_INT64_T ((MPI_Datatype)19)
#define MPI_UINT64_T ((MPI_Datatype)20)
#define MPI_FLOAT ((MPI_Datatype)21)
#define MPI_DOUBLE ((MPI_Datatype)22)
#define MPI_FLOAT_INT ((MPI_Datatype)23)
#define MPI_DOUBLE_INT ((MPI_Datatype)24)
#define MPI_LONG_INT ((MPI_Datatype)25)
#define MPI_2INT ((MPI_Datatype)26)
#define MPI_SHORT_INT ((MPI_Datatype)27)
#define MPI_LONG_DOUBLE ((MPI_Datatype)28)
#define MPI_WCHAR ((MPI_Datatype)29)
#define MPI_C_BOOL ((MPI_Datatype)30)
#define MPI_PACKED ((MPI_Datatype)31)
#define MPI_AINT ((MPI_Datatype)32)
#define MPI_OFFSET ((MPI_Datatype)33)
#define MPI_COUNT ((MPI_Datatype)34)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)35)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)36)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)37)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)38)
/* The marker types of MPI-1 (removed in MPI-3.0, kept for old programs): no data; in MPI_Type_struct and
 * MPI_Type_create_struct they set the lower and upper bound of the new type, and the bounds they set stay ("sticky")
 * in every type built from it until MPI_Type_create_resized sets new ones. */
#define MPI_LB ((MPI_Datatype)39)
#define MPI_UB ((MPI_Datatype)40)
/* The Fortran types (C programs may send and reduce them; there are no Fortran bindings): INTEGER and LOGICAL are
 * ints, REAL floats, DOUBLE PRECISION doubles, CHARACTER chars; the sized ones have the size their name gives in
 * bytes (COMPLEXn: n bytes for both parts). MPI_REAL16 and MPI_COMPLEX32 are long double. MPI_REAL2 and MPI_COMPLEX4
 * (half precision) are optional types nocmsg does not provide: MPI_DATATYPE_NULL, as MPI 3.1 section 17.2.5
 * allows. */
#define MPI_INTEGER ((MPI_Datatype)41)
#define MPI_REAL ((MPI_Datatype)42)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)43)
#define MPI_COMPLEX ((MPI_Datatype)44)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)45)
#define MPI_LOGICAL ((MPI_Datatype)46)
#define MPI_CHARACTER ((MPI_Datatype)47)
#define MPI_2INTEGER ((MPI_Datatype)48)
#define MPI_2REAL ((MPI_Datatype)49)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)50)
#define MPI_INTEGER1 ((MPI_Datatype)51)
#define MPI_INTEGER2 ((MPI_Datatype)52)
#define MPI_INTEGER4 ((MPI_Datatype)53)
#define MPI_INTEGER8 ((MPI_Datatype)54)
#define MPI_INTEGER16 ((MPI_Datatype)55)
#define MPI_REAL4 ((MPI_Datatype)56)
#define MPI_REAL8 ((MPI_Datatype)57)
#define MPI_REAL16 ((MPI_Datatype)58)
#define MPI_COMPLEX8 ((MPI_Datatype)59)
#define MPI_COMPLEX16 ((MPI_Datatype)60)
#define MPI_COMPLEX32 ((MPI_Datatype)61)
#define MPI_REAL2 MPI_DATATYPE_NULL
#define MPI_COMPLEX4 MPI_DATATYPE_NULL
/* The C++ types (bool and std::complex have the layout of _Bool and C's complex types). */
#define MPI_CXX_BOOL ((MPI_Datatype)62)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)63)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)64)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)65)
#define NOCMSG_MPI_PREDEFINED_TYPES 66 /* number of predefined datatype handles (not a type) */

/* Reduction operations. The first ones are libnocmsg's (same numbers). */
#define MPI_SUM ((MPI_Op)1)
#define MPI_PROD ((MPI_Op)2)
#define MPI_MIN ((MPI_Op)3)
#define MPI_MAX ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_LOR ((MPI_Op)6)
#define MPI_LXOR ((MPI_Op)7)
#define MPI_BAND ((MPI_Op)8)
#define MPI_BOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MINLOC ((MPI_Op)11)
#define MPI_MAXLOC ((MPI_Op)12)
#define MPI_REPLACE ((MPI_Op)13)
#define MPI_NO_OP ((MPI_Op)14)

/* Datatype constructors (MPI_Type_get_envelope) and array orders. */
enum {
    MPI_COMBINER_NAMED = 1,
    MPI_COMBINER_DUP,
    MPI_COMBINER_CONTIGUOUS,
    MPI_COMBINER_VECTOR,
    MPI_COMBINER_HVECTOR,
    MPI_COMBINER_INDEXED,
    MPI_COMBINER_HINDEXED,
    MPI_COMBINER_INDEXED_BLOCK,
    MPI_COMBINER_HINDEXED_BLOCK,
    MPI_COMBINER_STRUCT,
    MPI_COMBINER_SUBARRAY,
    MPI_COMBINER_DARRAY,
    MPI_COMBINER_F90_REAL,
    MPI_COMBINER_F90_COMPLEX,
    MPI_COMBINER_F90_INTEGER,
    MPI_COMBINER_RESIZED,
    /* MPI_Type_hvector, MPI_Type_hindexed and MPI_Type_struct called from Fortran (their C versions give the
     * combiners above); defined for programs that name them, never returned by nocmsg, which is C only. */
    MPI_COMBINER_HVECTOR_INTEGER,
    MPI_COMBINER_HINDEXED_INTEGER,
    MPI_COMBINER_STRUCT_INTEGER
};
enum { MPI_ORDER_C = 56, MPI_ORDER_FORTRAN = 57 };
enum { MPI_DISTRIBUTE_BLOCK = 121, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_DFLT_DARG = -49767 };
enum { MPI_TYPECLASS_REAL = 1, MPI_TYPECLASS_INTEGER = 2, MPI_TYPECLASS_COMPLEX = 3 };

/* Predefined attribute keys of communicators (MPI_Comm_get_attr). */
enum {
    MPI_TAG_UB = 0x64400001,
    MPI_HOST,
    MPI_IO,
    MPI_WTIME_IS_GLOBAL,
    MPI_UNIVERSE_SIZE,
    MPI_LASTUSEDCODE,
    MPI_APPNUM
};

/* Callback types. */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state);
/* The MPI-1 names of the communicator callbacks. */
typedef MPI_Comm_errhandler_function MPI_Handler_function;
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                              void *attribute_val_out, int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);

/* Environment. */
int MPI_Init(int *argc, char ***argv);
/* Provides MPI_THREAD_SINGLE or MPI_THREAD_FUNNELED (the lower of that and `required`). */
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Query_thread(int *provided);
int MPI_Is_thread_main(int *flag);
int MPI_Initialized(int *flag);
int MPI_Finalize(void);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_library_version(char *version, int *resultlen);
/* Seconds; on the simulator, simulated time (cycles at the chip's clock frequency). */
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Pcontrol(const int level, ...);
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Free_mem(void *base);

/* Errors. */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Error_class(int errorcode, int *errorclass);

/* Attributes: the predefined keys, and keys of the program's own. */
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state);
int MPI_Comm_free_keyval(int *comm_keyval);
/* Predefined copy and delete functions. */
int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                          void *attribute_val_out, int *flag);
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state);
/* The MPI-1 names of the attribute functions (deprecated in MPI 2.0): the functions above under other names. */
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state);
int MPI_Keyval_free(int *keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int MPI_Attr_delete(MPI_Comm comm, int keyval);
int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out,
                     int *flag);
int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out,
               int *flag);
int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);

/* Communicators. */
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
/* MPI_COMM_TYPE_SHARED: ranks do not share memory on a simulated chip nor natively (they are processes), so every
 * rank gets a communicator of its own. */
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);

/* Groups. */
int MPI_Group_size(MPI_Group group, int *size);
int MPI_Group_rank(MPI_Group group, int *rank);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_free(MPI_Group *group);

/* Cartesian topologies (reorder is accepted and ignored: rank i of the grid is rank i of comm). */
int MPI_Dims_create(int nnodes, int ndims, int dims[]);
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart);
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
int MPI_Topo_test(MPI_Comm comm, int *status);

/* Point-to-point. Rsend is a standard send; Bsend copies into the attached buffer and returns. */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
/* Persistent requests: made inactive, started by MPI_Start(all), inactive again once completed. */
int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request array_of_requests[]);

/* Completion. */
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]);
int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status);
int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]);
int MPI_Request_free(MPI_Request *request);
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
/* Receives that have not matched a message can be cancelled; a send always completes (the cancel fails). */
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);

/* Datatypes. */
int MPI_Type_size(MPI_Datatype datatype, int *size);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                     MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_commit(MPI_Datatype *datatype);
int MPI_Type_free(MPI_Datatype *datatype);
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                          int *combiner);
int MPI_Get_address(const void *location, MPI_Aint *address);
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
             MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype,
               MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);

/* MPI-1 functions that MPI-3.0 removed from the standard, for old programs (not MPI 3.1 functions; docs/mpi.md):
 * each is its MPI-2 replacement (MPI_Get_address, MPI_Type_get_extent, MPI_Type_create_hvector,
 * MPI_Type_create_hindexed, MPI_Type_create_struct, MPI_Comm_create_errhandler, MPI_Comm_set_errhandler,
 * MPI_Comm_get_errhandler). MPI_Type_lb and MPI_Type_ub give lb and lb + extent. */
int MPI_Address(void *location, MPI_Aint *address);
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                    MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);

/* Reduction operations. */
int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);
int MPI_Op_commutative(MPI_Op op, int *commute);
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op);

/* Collectives. */
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm);
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm);
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/* Non-blocking collectives. They progress whenever the rank is inside an MPI call. */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request);
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);

/* Handle conversion for Fortran interoperability (handles are already integers). */
MPI_Fint MPI_Comm_c2f(MPI_Comm comm);
MPI_Comm MPI_Comm_f2c(MPI_Fint comm);
MPI_Fint MPI_Type_c2f(MPI_Datatype datatype);
MPI_Datatype MPI_Type_f2c(MPI_Fint datatype);
MPI_Fint MPI_Op_c2f(MPI_Op op);
MPI_Op MPI_Op_f2c(MPI_Fint op);
MPI_Fint MPI_Group_c2f(MPI_Group group);
MPI_Group MPI_Group_f2c(MPI_Fint group);

#ifdef __cplusplus
}
#endif

#include "mpi_unsupported.h"

/* Internal: the predefined datatypes that travel as libnocmsg's basic types (all but the padded pairs MPI_DOUBLE_INT,
 * MPI_LONG_INT and MPI_SHORT_INT, whose C structs are larger than MPI's size); one test of a bit. */
#define NOCMSG__MPI_WIRE_MASK (((1u << 28) - 2u) & ~((1u << 24) | (1u << 25) | (1u << 27)))
#define NOCMSG__MPI_WIRE(type) ((unsigned)(type) < 32u && (NOCMSG__MPI_WIRE_MASK >> (unsigned)(type) & 1u))

/* On simulated PIMP and UDN chips, blocking MPI_Send and MPI_Recv of the datatypes libnocmsg moves as they are take
 * libnocmsg's inline fast paths (nocmsg_inline.h, nocmsg_inline_udn.h): with MPI_COMM_WORLD and a constant datatype
 * and tag the 8-byte round trip between neighbours on pimp-4x4 costs about 85 cycles instead of about 320 through the
 * functions; other communicators and datatypes known only at run time cost a few loads more. Errors still go through
 * the error handler. Define NOCMSG_NO_INLINE to call the functions instead (needed by code that defines its own
 * MPI_Send or MPI_Recv, such as profiling wrappers). */
#if defined(NOCMSG_SIM) && !defined(NOCMSG_PORT_MPB) && !defined(NOCMSG_NO_INLINE)
#include "nocmsg.h"

#ifdef __cplusplus
extern "C" {
#endif
int nocmsg__mpi_raise(MPI_Comm comm, int code, const char *fn);
#ifdef __cplusplus
}
#endif

static __inline__ __attribute__((always_inline)) int nocmsg__mpi_send(const void *buf, int count, MPI_Datatype type,
                                                                      int dest, int tag, MPI_Comm comm)
{
    if (NOCMSG__INLINE_OK(comm, type) || NOCMSG__MPI_WIRE(type)) {
        int err = nocmsg__send_inline(buf, count, type, dest, tag, comm);
        return __builtin_expect(err == MPI_SUCCESS, 1) ? MPI_SUCCESS : nocmsg__mpi_raise(comm, err, "MPI_Send");
    }
    return (MPI_Send)(buf, count, type, dest, tag, comm);
}

static __inline__ __attribute__((always_inline)) int nocmsg__mpi_recv(void *buf, int count, MPI_Datatype type,
                                                                      int source, int tag, MPI_Comm comm,
                                                                      MPI_Status *status)
{
    if (NOCMSG__INLINE_OK(comm, type) || NOCMSG__MPI_WIRE(type)) {
        nocmsg_status st = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0};
        int err = nocmsg__recv_inline(buf, count, type, source, tag, comm, status ? &st : NOCMSG_STATUS_IGNORE, 1);
        if (status) {
            status->MPI_SOURCE = st.source;
            status->MPI_TAG = st.tag;
            status->nocmsg_cancelled = 0;
            status->nocmsg_count = st.count_bytes;
        }
        return __builtin_expect(err == MPI_SUCCESS, 1) ? MPI_SUCCESS : nocmsg__mpi_raise(comm, err, "MPI_Recv");
    }
    return (MPI_Recv)(buf, count, type, source, tag, comm, status);
}

#define MPI_Send(buf, count, datatype, dest, tag, comm) nocmsg__mpi_send(buf, count, datatype, dest, tag, comm)
#define MPI_Recv(buf, count, datatype, source, tag, comm, status)                                                 \
    nocmsg__mpi_recv(buf, count, datatype, source, tag, comm, status)
#endif

#endif /* NOCMSG_MPI_H */
