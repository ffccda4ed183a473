/* errhandlers.c: error handlers and error classes. The default handler of MPI_COMM_WORLD and MPI_COMM_SELF is
 * MPI_ERRORS_ARE_FATAL; with MPI_ERRORS_RETURN set on WORLD (and inherited by a duplicate) bad arguments give error
 * codes whose class (MPI_Error_class) is printed by name: a bad rank, tag, count, communicator, datatype, root or
 * operation, and a truncated receive. Error codes and MPI_Error_string texts differ between implementations, so
 * neither is printed; the string is only checked to be non-empty. A user handler (MPI_Comm_create_errhandler)
 * counts its calls and checks what it is given, stays attached after MPI_Errhandler_free, is inherited by
 * MPI_Comm_dup and is called by MPI_Comm_call_errhandler. Communication still works afterwards. Only rank 0
 * prints. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL errhandlers: ");
    vprintf(fmt, ap);
    printf(" (rank %d, line %d)\n", rank, line);
    va_end(ap);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__LINE__, __VA_ARGS__); } while (0)

static const char *class_name(int class)
{
    static const struct {
        int class;
        const char *name;
    } names[] = {
        {MPI_SUCCESS, "MPI_SUCCESS"},     {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
        {MPI_ERR_COUNT, "MPI_ERR_COUNT"}, {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
        {MPI_ERR_TAG, "MPI_ERR_TAG"},     {MPI_ERR_COMM, "MPI_ERR_COMM"},
        {MPI_ERR_RANK, "MPI_ERR_RANK"},   {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
        {MPI_ERR_ROOT, "MPI_ERR_ROOT"},   {MPI_ERR_GROUP, "MPI_ERR_GROUP"},
        {MPI_ERR_OP, "MPI_ERR_OP"},       {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY"},
        {MPI_ERR_DIMS, "MPI_ERR_DIMS"},   {MPI_ERR_ARG, "MPI_ERR_ARG"},
        {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN"}, {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"},
        {MPI_ERR_OTHER, "MPI_ERR_OTHER"}, {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
        {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"}, {MPI_ERR_PENDING, "MPI_ERR_PENDING"},
    };
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (names[i].class == class) return names[i].name;
    return "(a class not in the table)";
}

/* The class of an error code, after checking MPI_Error_string on it. */
static int class_of(int code)
{
    int class = -1, len = -1;
    char text[MPI_MAX_ERROR_STRING + 1];
    memset(text, 0, sizeof text);
    CHECK(MPI_Error_class(code, &class) == MPI_SUCCESS, "Error_class failed on code %d", code);
    CHECK(class >= MPI_SUCCESS && class <= MPI_ERR_LASTCODE, "class %d outside 0..MPI_ERR_LASTCODE", class);
    CHECK(MPI_Error_string(code, text, &len) == MPI_SUCCESS, "Error_string failed on code %d", code);
    CHECK(len > 0 && len <= MPI_MAX_ERROR_STRING && (int)strlen(text) == len,
          "Error_string of code %d: length %d, strlen %d", code, len, (int)strlen(text));
    return class;
}

/* One provoked error: the call's return code must have the expected class, on every rank. */
static void expect(const char *what, int code, int want)
{
    int class = class_of(code);
    CHECK(class == want, "%s: class %s, expected %s", what, class_name(class), class_name(want));
    if (rank == 0) printf("errhandlers: %s: %s OK\n", what, class_name(class));
}

/* Bad arguments, on a communicator whose handler returns errors. */
static void provoke(MPI_Comm comm, const char *name)
{
    int buf[4] = {1, 2, 3, 4}, small[2], rc;
    double x = 1.0, y;
    char what[128];
#define EXPECT(text, call, want) do { snprintf(what, sizeof what, "%s on %s", text, name); rc = (call); \
        expect(what, rc, want); } while (0)
    EXPECT("Send to rank size", MPI_Send(buf, 1, MPI_INT, size, 0, comm), MPI_ERR_RANK);
    EXPECT("Send to rank -5", MPI_Send(buf, 1, MPI_INT, -5, 0, comm), MPI_ERR_RANK);
    EXPECT("Recv from rank size", MPI_Recv(buf, 1, MPI_INT, size, 0, comm, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    EXPECT("Send with tag -5", MPI_Send(buf, 1, MPI_INT, rank, -5, comm), MPI_ERR_TAG);
    EXPECT("Send with tag MPI_ANY_TAG", MPI_Send(buf, 1, MPI_INT, rank, MPI_ANY_TAG, comm), MPI_ERR_TAG);
    EXPECT("Send of count -1", MPI_Send(buf, -1, MPI_INT, rank, 0, comm), MPI_ERR_COUNT);
    EXPECT("Send with MPI_DATATYPE_NULL", MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, comm), MPI_ERR_TYPE);
    EXPECT("Bcast from root size", MPI_Bcast(buf, 1, MPI_INT, size, comm), MPI_ERR_ROOT);
    EXPECT("Bcast from root -3", MPI_Bcast(buf, 1, MPI_INT, -3, comm), MPI_ERR_ROOT);
    EXPECT("Bcast of count -1", MPI_Bcast(buf, -1, MPI_INT, 0, comm), MPI_ERR_COUNT);
    EXPECT("Reduce to root size", MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, size, comm), MPI_ERR_ROOT);
    EXPECT("Allreduce with MPI_OP_NULL", MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_OP_NULL, comm), MPI_ERR_OP);
    EXPECT("Allreduce with MPI_BAND on MPI_DOUBLE", MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_BAND, comm), MPI_ERR_OP);

    /* Truncation: 4 ints to this rank, received into room for 2, blocking and non-blocking. */
    MPI_Request send, recv;
    MPI_Status st;
    MPI_Isend(buf, 4, MPI_INT, rank, 9, comm, &send);
    EXPECT("Recv of 4 INT into room for 2", MPI_Recv(small, 2, MPI_INT, rank, 9, comm, &st), MPI_ERR_TRUNCATE);
    CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE) == MPI_SUCCESS, "the truncated message's send failed");
    MPI_Isend(buf, 4, MPI_INT, rank, 10, comm, &send);
    CHECK(MPI_Irecv(small, 2, MPI_INT, rank, 10, comm, &recv) == MPI_SUCCESS, "Irecv failed");
    EXPECT("Irecv of 4 INT into room for 2, then Wait", MPI_Wait(&recv, &st), MPI_ERR_TRUNCATE);
    CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE) == MPI_SUCCESS, "the truncated message's send failed");

    /* Waitall with a truncated receive among four requests: MPI_ERR_IN_STATUS, and each status says what happened
     * to its request: MPI_SUCCESS (completed, set to MPI_REQUEST_NULL), the error, or MPI_ERR_PENDING (neither
     * failed nor completed, still active; MPICH leaves the requests after a failed one pending). */
    int fits[4];
    MPI_Request reqs[4];
    MPI_Status sts[4];
    MPI_Irecv(fits, 4, MPI_INT, rank, 11, comm, &reqs[0]);
    MPI_Irecv(small, 2, MPI_INT, rank, 12, comm, &reqs[1]);
    MPI_Isend(buf, 4, MPI_INT, rank, 11, comm, &reqs[2]);
    MPI_Isend(buf, 4, MPI_INT, rank, 12, comm, &reqs[3]);
    for (int k = 0; k < 4; k++) sts[k].MPI_ERROR = -12345;
    EXPECT("Waitall with a truncated receive", MPI_Waitall(4, reqs, sts), MPI_ERR_IN_STATUS);
    int first = class_of(sts[0].MPI_ERROR), second = class_of(sts[1].MPI_ERROR);
    CHECK(first == MPI_SUCCESS && reqs[0] == MPI_REQUEST_NULL && fits[3] == 4, "Waitall: the fitting receive's status "
          "is %s", class_name(first));
    CHECK(second == MPI_ERR_TRUNCATE, "Waitall: the truncated receive's status is %s", class_name(second));
    for (int k = 2; k < 4; k++) {
        int c = class_of(sts[k].MPI_ERROR);
        CHECK((c == MPI_SUCCESS && reqs[k] == MPI_REQUEST_NULL) || (c == MPI_ERR_PENDING && reqs[k] != MPI_REQUEST_NULL),
              "Waitall: send %d has status %s", k, class_name(c));
        if (c == MPI_ERR_PENDING)
            CHECK(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE) == MPI_SUCCESS, "a pending send failed in Wait");
    }
    if (rank == 0)
        printf("errhandlers: Waitall statuses on %s: MPI_SUCCESS for the receive that fits, MPI_ERR_TRUNCATE for the "
               "other OK\n",
               name);
#undef EXPECT
}

static int handler_calls, handler_last_class;
static MPI_Comm handler_expected_comm;

static void counting_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    MPI_Error_class(*code, &handler_last_class);
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(*comm, handler_expected_comm, &same);
    CHECK(same == MPI_IDENT, "the handler got another communicator");
}

static void user_handler(MPI_Comm dup)
{
    MPI_Errhandler eh, got;
    int buf = 0, rc;
    CHECK(MPI_Comm_create_errhandler(counting_handler, &eh) == MPI_SUCCESS, "Comm_create_errhandler failed");
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Comm_get_errhandler(dup, &got);
    CHECK(got == eh, "Comm_get_errhandler did not return the user handler");
    MPI_Errhandler_free(&got);
    handler_expected_comm = dup;

    rc = MPI_Send(&buf, 1, MPI_INT, size, 0, dup);
    CHECK(rc != MPI_SUCCESS, "Send to rank size on the duplicate succeeded");
    CHECK(handler_calls == 1 && handler_last_class == MPI_ERR_RANK, "user handler: %d calls, last class %s",
          handler_calls, class_name(handler_last_class));
    if (rank == 0) printf("errhandlers: user handler called once for Send to rank size: %s OK\n",
                          class_name(handler_last_class));

    rc = MPI_Send(&buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK(class_of(rc) == MPI_ERR_RANK && handler_calls == 1, "error on WORLD: %d user handler calls", handler_calls);
    if (rank == 0) printf("errhandlers: error on WORLD does not call the duplicate's handler OK\n");

    MPI_Errhandler_free(&eh);
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not set MPI_ERRHANDLER_NULL");
    rc = MPI_Bcast(&buf, 1, MPI_INT, -3, dup);
    CHECK(handler_calls == 2 && handler_last_class == MPI_ERR_ROOT, "after Errhandler_free: %d calls, last class %s",
          handler_calls, class_name(handler_last_class));
    if (rank == 0) printf("errhandlers: still attached after Errhandler_free, Bcast from root -3: %s OK\n",
                          class_name(handler_last_class));

    MPI_Comm dup2;
    MPI_Comm_dup(dup, &dup2);
    handler_expected_comm = dup2;
    rc = MPI_Send(&buf, 1, MPI_INT, rank, -5, dup2);
    CHECK(handler_calls == 3 && handler_last_class == MPI_ERR_TAG, "inherited by Comm_dup: %d calls, last class %s",
          handler_calls, class_name(handler_last_class));
    if (rank == 0) printf("errhandlers: inherited by Comm_dup, Send with tag -5: %s OK\n",
                          class_name(handler_last_class));

    rc = MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER);
    CHECK(rc == MPI_SUCCESS && handler_calls == 4 && handler_last_class == MPI_ERR_OTHER,
          "Comm_call_errhandler: %d calls, last class %s", handler_calls, class_name(handler_last_class));
    if (rank == 0) printf("errhandlers: Comm_call_errhandler with MPI_ERR_OTHER: %s OK\n",
                          class_name(handler_last_class));
    MPI_Comm_free(&dup2);
    handler_expected_comm = dup;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "WORLD's default handler is not MPI_ERRORS_ARE_FATAL");
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "SELF's default handler is not MPI_ERRORS_ARE_FATAL");
    if (rank == 0) printf("errhandlers: WORLD and SELF start with MPI_ERRORS_ARE_FATAL OK\n");

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "WORLD's handler is not MPI_ERRORS_RETURN after setting it");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_errhandler(dup, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "the duplicate of WORLD did not inherit MPI_ERRORS_RETURN");
    if (rank == 0) printf("errhandlers: MPI_ERRORS_RETURN set on WORLD, inherited by Comm_dup OK\n");
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);

    int class = -1;
    MPI_Error_class(MPI_SUCCESS, &class);
    CHECK(class == MPI_SUCCESS, "Error_class(MPI_SUCCESS) is %s", class_name(class));
    provoke(MPI_COMM_WORLD, "WORLD");
    provoke(dup, "dup");

    /* Calls on MPI_COMM_NULL report to WORLD's handler. */
    int buf = 0, n = 0, rc;
    rc = MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
    expect("Send on MPI_COMM_NULL", rc, MPI_ERR_COMM);
    rc = MPI_Comm_size(MPI_COMM_NULL, &n);
    expect("Comm_size of MPI_COMM_NULL", rc, MPI_ERR_COMM);
    rc = MPI_Barrier(MPI_COMM_NULL);
    expect("Barrier on MPI_COMM_NULL", rc, MPI_ERR_COMM);

    user_handler(dup);

    /* Everything still works. */
    int sum = -1, token = -1;
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS && sum == size * (size - 1) / 2,
          "Allreduce after the errors: %d", sum);
    CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &token, 1, MPI_INT, (rank + size - 1) % size, 0,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
              token == (rank + size - 1) % size,
          "Sendrecv after the errors: %d", token);
    if (rank == 0) printf("errhandlers: Allreduce and Sendrecv still work after the errors OK\n");
    MPI_Comm_free(&dup);
    if (rank == 0) printf("errhandlers: done\n");
    MPI_Finalize();
    return 0;
}
