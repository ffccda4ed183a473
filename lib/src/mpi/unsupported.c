/*
 * unsupported.c: the part of MPI 3.1 that nocmsg does not implement (mpi_unsupported.h). Each function links and,
 * when called, names itself on stderr and raises MPI_ERR_UNSUPPORTED_OPERATION on MPI_COMM_WORLD, so a program
 * that needs it stops with a clear message, or gets the error code back under MPI_ERRORS_RETURN. The predefined
 * attribute callbacks of datatypes and windows and the deprecated ones of communicators are real, as they are trivial.
 */
#include "mpi_impl.h"

#include <stdio.h>

/* The stubs ignore their arguments. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Says which function is missing, then raises the error through the error handler like any other failure. */
static int unsupported(const char *name)
{
    fprintf(stderr, "nocmsg: %s is not supported (docs/mpi.md lists what is)\n", name);
    return mpi_raise(MPI_COMM_WORLD, MPI_ERR_UNSUPPORTED_OPERATION, name);
}

/* The body of a missing function: the error code, or for functions that return something else, a neutral value. */
#define UNSUPPORTED { return unsupported(__func__); }
#define UNSUPPORTED_RETURNING(value) { (void)unsupported(__func__); return (value); }

/* Predefined attribute callbacks: copy nothing, copy the attribute's value, delete nothing. */
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state, void *attribute_val_in,
                          void *attribute_val_out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag)
{
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype datatype, int type_keyval, void *attribute_val, void *extra_state)
{
    return MPI_SUCCESS;
}

int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                         void *attribute_val_out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out,
                   int *flag)
{
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state)
{
    return MPI_SUCCESS;
}

/* Point-to-point: matched probe and receive. */
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) UNSUPPORTED
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status) UNSUPPORTED
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) UNSUPPORTED
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) UNSUPPORTED

/* Datatypes: distributed arrays, decoding, the external32 representation. */
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[],
                           const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype) UNSUPPORTED
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                          int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[]) UNSUPPORTED
int MPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                      MPI_Aint outsize, MPI_Aint *position) UNSUPPORTED
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf,
                        int outcount, MPI_Datatype datatype) UNSUPPORTED
int MPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size) UNSUPPORTED

/* Collectives: Alltoallw, and the non-blocking collectives with vectors or prefixes. */
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) UNSUPPORTED
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) UNSUPPORTED
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) UNSUPPORTED
int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) UNSUPPORTED
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request) UNSUPPORTED
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm, MPI_Request *request) UNSUPPORTED
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Request *request) UNSUPPORTED
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request *request) UNSUPPORTED
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request *request) UNSUPPORTED
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request *request) UNSUPPORTED

/* Communicators: the constructors and info hints mpi.h lacks. */
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) UNSUPPORTED
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) UNSUPPORTED
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) UNSUPPORTED
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) UNSUPPORTED
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) UNSUPPORTED

/* Intercommunicators. */
int MPI_Comm_remote_size(MPI_Comm comm, int *size) UNSUPPORTED
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) UNSUPPORTED
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm *newintercomm) UNSUPPORTED
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) UNSUPPORTED

/* Attributes of datatypes. */
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state) UNSUPPORTED
int MPI_Type_free_keyval(int *type_keyval) UNSUPPORTED
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val) UNSUPPORTED
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag) UNSUPPORTED
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) UNSUPPORTED

/* Graph and distributed graph topologies. */
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder,
                     MPI_Comm *comm_graph) UNSUPPORTED
int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) UNSUPPORTED
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]) UNSUPPORTED
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors) UNSUPPORTED
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) UNSUPPORTED
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank) UNSUPPORTED
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph) UNSUPPORTED
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph) UNSUPPORTED
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted) UNSUPPORTED
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                             int destinations[], int destweights[]) UNSUPPORTED

/* Neighbourhood collectives, blocking and non-blocking. */
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) UNSUPPORTED
int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                            MPI_Comm comm) UNSUPPORTED
int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) UNSUPPORTED
int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm) UNSUPPORTED
int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) UNSUPPORTED
int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) UNSUPPORTED
int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request) UNSUPPORTED
int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) UNSUPPORTED
int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request) UNSUPPORTED
int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request) UNSUPPORTED

/* Error classes, codes and strings of the program's own. */
int MPI_Add_error_class(int *errorclass) UNSUPPORTED
int MPI_Add_error_code(int errorclass, int *errorcode) UNSUPPORTED
int MPI_Add_error_string(int errorcode, const char *string) UNSUPPORTED

/* Info objects. */
int MPI_Info_create(MPI_Info *info) UNSUPPORTED
int MPI_Info_set(MPI_Info info, const char *key, const char *value) UNSUPPORTED
int MPI_Info_delete(MPI_Info info, const char *key) UNSUPPORTED
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) UNSUPPORTED
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) UNSUPPORTED
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys) UNSUPPORTED
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key) UNSUPPORTED
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo) UNSUPPORTED
int MPI_Info_free(MPI_Info *info) UNSUPPORTED

/* Process creation and management: spawning, ports, names, joining. */
int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                   MPI_Comm *intercomm, int array_of_errcodes[]) UNSUPPORTED
int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[],
                            const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm,
                            int array_of_errcodes[]) UNSUPPORTED
int MPI_Comm_get_parent(MPI_Comm *parent) UNSUPPORTED
int MPI_Open_port(MPI_Info info, char *port_name) UNSUPPORTED
int MPI_Close_port(const char *port_name) UNSUPPORTED
int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm) UNSUPPORTED
int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm) UNSUPPORTED
int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name) UNSUPPORTED
int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name) UNSUPPORTED
int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name) UNSUPPORTED
int MPI_Comm_join(int fd, MPI_Comm *intercomm) UNSUPPORTED
int MPI_Comm_disconnect(MPI_Comm *comm) UNSUPPORTED

/* One-sided communication: windows, their attributes, names and error handlers, RMA and synchronization. */
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) UNSUPPORTED
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win) UNSUPPORTED
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                            MPI_Win *win) UNSUPPORTED
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr) UNSUPPORTED
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) UNSUPPORTED
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) UNSUPPORTED
int MPI_Win_detach(MPI_Win win, const void *base) UNSUPPORTED
int MPI_Win_free(MPI_Win *win) UNSUPPORTED
int MPI_Win_get_group(MPI_Win win, MPI_Group *group) UNSUPPORTED
int MPI_Win_set_info(MPI_Win win, MPI_Info info) UNSUPPORTED
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used) UNSUPPORTED
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state) UNSUPPORTED
int MPI_Win_free_keyval(int *win_keyval) UNSUPPORTED
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val) UNSUPPORTED
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag) UNSUPPORTED
int MPI_Win_delete_attr(MPI_Win win, int win_keyval) UNSUPPORTED
int MPI_Win_set_name(MPI_Win win, const char *win_name) UNSUPPORTED
int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen) UNSUPPORTED
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler) UNSUPPORTED
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) UNSUPPORTED
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler) UNSUPPORTED
int MPI_Win_call_errhandler(MPI_Win win, int errorcode) UNSUPPORTED
int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) UNSUPPORTED
int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_datatype, MPI_Win win) UNSUPPORTED
int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                   MPI_Win win) UNSUPPORTED
int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                       int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                       int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) UNSUPPORTED
int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                     MPI_Aint target_disp, MPI_Op op, MPI_Win win) UNSUPPORTED
int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype,
                         int target_rank, MPI_Aint target_disp, MPI_Win win) UNSUPPORTED
int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request) UNSUPPORTED
int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) UNSUPPORTED
int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                    MPI_Request *request) UNSUPPORTED
int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request *request) UNSUPPORTED
int MPI_Win_fence(int assert, MPI_Win win) UNSUPPORTED
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) UNSUPPORTED
int MPI_Win_complete(MPI_Win win) UNSUPPORTED
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) UNSUPPORTED
int MPI_Win_wait(MPI_Win win) UNSUPPORTED
int MPI_Win_test(MPI_Win win, int *flag) UNSUPPORTED
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) UNSUPPORTED
int MPI_Win_unlock(int rank, MPI_Win win) UNSUPPORTED
int MPI_Win_lock_all(int assert, MPI_Win win) UNSUPPORTED
int MPI_Win_unlock_all(MPI_Win win) UNSUPPORTED
int MPI_Win_flush(int rank, MPI_Win win) UNSUPPORTED
int MPI_Win_flush_all(MPI_Win win) UNSUPPORTED
int MPI_Win_flush_local(int rank, MPI_Win win) UNSUPPORTED
int MPI_Win_flush_local_all(MPI_Win win) UNSUPPORTED
int MPI_Win_sync(MPI_Win win) UNSUPPORTED

/* Generalized requests. */
int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request) UNSUPPORTED
int MPI_Grequest_complete(MPI_Request request) UNSUPPORTED

/* File I/O: files, views, data access, consistency, data representations, error handlers. */
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) UNSUPPORTED
int MPI_File_close(MPI_File *fh) UNSUPPORTED
int MPI_File_delete(const char *filename, MPI_Info info) UNSUPPORTED
int MPI_File_set_size(MPI_File fh, MPI_Offset size) UNSUPPORTED
int MPI_File_preallocate(MPI_File fh, MPI_Offset size) UNSUPPORTED
int MPI_File_get_size(MPI_File fh, MPI_Offset *size) UNSUPPORTED
int MPI_File_get_group(MPI_File fh, MPI_Group *group) UNSUPPORTED
int MPI_File_get_amode(MPI_File fh, int *amode) UNSUPPORTED
int MPI_File_set_info(MPI_File fh, MPI_Info info) UNSUPPORTED
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used) UNSUPPORTED
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep,
                      MPI_Info info) UNSUPPORTED
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep) UNSUPPORTED
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status) UNSUPPORTED
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status) UNSUPPORTED
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status) UNSUPPORTED
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status) UNSUPPORTED
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request) UNSUPPORTED
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request) UNSUPPORTED
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                          MPI_Request *request) UNSUPPORTED
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request) UNSUPPORTED
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) UNSUPPORTED
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) UNSUPPORTED
int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) UNSUPPORTED
int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) UNSUPPORTED
int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) UNSUPPORTED
int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) UNSUPPORTED
int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) UNSUPPORTED
int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request) UNSUPPORTED
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) UNSUPPORTED
int MPI_File_get_position(MPI_File fh, MPI_Offset *offset) UNSUPPORTED
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp) UNSUPPORTED
int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) UNSUPPORTED
int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status) UNSUPPORTED
int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) UNSUPPORTED
int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request) UNSUPPORTED
int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) UNSUPPORTED
int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status) UNSUPPORTED
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) UNSUPPORTED
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset) UNSUPPORTED
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype) UNSUPPORTED
int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) UNSUPPORTED
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype) UNSUPPORTED
int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status) UNSUPPORTED
int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) UNSUPPORTED
int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status) UNSUPPORTED
int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) UNSUPPORTED
int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status) UNSUPPORTED
int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) UNSUPPORTED
int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status) UNSUPPORTED
int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) UNSUPPORTED
int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status) UNSUPPORTED
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent) UNSUPPORTED
int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) UNSUPPORTED
int MPI_File_set_atomicity(MPI_File fh, int flag) UNSUPPORTED
int MPI_File_get_atomicity(MPI_File fh, int *flag) UNSUPPORTED
int MPI_File_sync(MPI_File fh) UNSUPPORTED
int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler) UNSUPPORTED
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) UNSUPPORTED
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler) UNSUPPORTED
int MPI_File_call_errhandler(MPI_File fh, int errorcode) UNSUPPORTED

/* The tool information interface. */
int MPI_T_init_thread(int required, int *provided) UNSUPPORTED
int MPI_T_finalize(void) UNSUPPORTED
int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len) UNSUPPORTED
int MPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len) UNSUPPORTED
int MPI_T_cvar_get_num(int *num_cvar) UNSUPPORTED
int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                        MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope) UNSUPPORTED
int MPI_T_cvar_get_index(const char *name, int *cvar_index) UNSUPPORTED
int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count) UNSUPPORTED
int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle) UNSUPPORTED
int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf) UNSUPPORTED
int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf) UNSUPPORTED
int MPI_T_pvar_get_num(int *num_pvar) UNSUPPORTED
int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                        int *readonly, int *continuous, int *atomic) UNSUPPORTED
int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index) UNSUPPORTED
int MPI_T_pvar_session_create(MPI_T_pvar_session *session) UNSUPPORTED
int MPI_T_pvar_session_free(MPI_T_pvar_session *session) UNSUPPORTED
int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle,
                            int *count) UNSUPPORTED
int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle) UNSUPPORTED
int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) UNSUPPORTED
int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) UNSUPPORTED
int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf) UNSUPPORTED
int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf) UNSUPPORTED
int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) UNSUPPORTED
int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf) UNSUPPORTED
int MPI_T_category_get_num(int *num_cat) UNSUPPORTED
int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars,
                            int *num_pvars, int *num_categories) UNSUPPORTED
int MPI_T_category_get_index(const char *name, int *cat_index) UNSUPPORTED
int MPI_T_category_get_cvars(int cat_index, int len, int indices[]) UNSUPPORTED
int MPI_T_category_get_pvars(int cat_index, int len, int indices[]) UNSUPPORTED
int MPI_T_category_get_categories(int cat_index, int len, int indices[]) UNSUPPORTED
int MPI_T_category_changed(int *update_number) UNSUPPORTED

/* Language interoperability: Fortran datatypes, statuses and the handle conversions mpi.h lacks. */
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype) UNSUPPORTED
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype) UNSUPPORTED
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype) UNSUPPORTED
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype) UNSUPPORTED
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status) UNSUPPORTED
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status) UNSUPPORTED
int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status) UNSUPPORTED
int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status) UNSUPPORTED
int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status) UNSUPPORTED
int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status) UNSUPPORTED
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler) UNSUPPORTED_RETURNING(0)
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler) UNSUPPORTED_RETURNING(MPI_ERRHANDLER_NULL)
MPI_Fint MPI_File_c2f(MPI_File file) UNSUPPORTED_RETURNING(0)
MPI_File MPI_File_f2c(MPI_Fint file) UNSUPPORTED_RETURNING(MPI_FILE_NULL)
MPI_Fint MPI_Info_c2f(MPI_Info info) UNSUPPORTED_RETURNING(0)
MPI_Info MPI_Info_f2c(MPI_Fint info) UNSUPPORTED_RETURNING(MPI_INFO_NULL)
MPI_Fint MPI_Message_c2f(MPI_Message message) UNSUPPORTED_RETURNING(0)
MPI_Message MPI_Message_f2c(MPI_Fint message) UNSUPPORTED_RETURNING(MPI_MESSAGE_NULL)
MPI_Fint MPI_Request_c2f(MPI_Request request) UNSUPPORTED_RETURNING(0)
MPI_Request MPI_Request_f2c(MPI_Fint request) UNSUPPORTED_RETURNING(MPI_REQUEST_NULL)
MPI_Fint MPI_Win_c2f(MPI_Win win) UNSUPPORTED_RETURNING(0)
MPI_Win MPI_Win_f2c(MPI_Fint win) UNSUPPORTED_RETURNING(MPI_WIN_NULL)
