/* mpi_unsupported.h: the MPI 3.1 functions nocmsg declares but does not implement (being written). */
#ifndef NOCMSG_MPI_UNSUPPORTED_H
#define NOCMSG_MPI_UNSUPPORTED_H
#endif
