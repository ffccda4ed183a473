/*
 * red.h: reduction cases of the collectives suite: inputs for every (operation, datatype) pair, the naive
 * reference (ranks combined one by one in rank order), element comparison, and the user-defined operations.
 *
 * Inputs are chosen so that every correct evaluation order gives the same bits: integers stay clear of signed
 * overflow (unsigned ones wrap, which is defined), floating-point values are small integers, halves or powers of
 * two (sums and products are exact), MINLOC/MAXLOC values repeat often (ties go to the smaller index). Only the
 * non-commutative user operations depend on the order, and that is what they check.
 */
#ifndef NOCMSG_COLL_RED_H
#define NOCMSG_COLL_RED_H

#include "check.h"

/* The user-defined operations (created by t_user_ops_create). */
enum {
    T_BUILTIN = 0,
    /* Non-commutative, on NOCMSG_2INT: an element {first, last} stands for the ranks first..last (plus 4096 times
     * the element index); combining requires in.last + 1 == inout.first, anything else gives {-1, -1}. The result
     * names exactly the ranks combined, in order. */
    T_USER_ORDER,
    /* Non-commutative, on NOCMSG_UINT64: an element packs an affine map x -> a*x + b (mod 2^32), a in the high
     * half; in op inout is "in first, then inout". */
    T_USER_AFFINE,
    /* Commutative (created with commute = 1), on NOCMSG_UINT64: products of odd numbers mod 2^64. */
    T_USER_ODDMUL,
    T_USER_KINDS
};
extern nocmsg_op t_user_op[T_USER_KINDS];
void t_user_ops_create(void);
void t_user_ops_free(void);
/* Calls of a user function with the wrong datatype or a negative length (checked after each collective). */
extern long t_user_bad_calls;

typedef struct {
    nocmsg_datatype type;
    nocmsg_op op; /* a built-in operation, or ignored for user operations */
    int user;     /* T_BUILTIN or T_USER_... */
} t_red;

nocmsg_op t_red_op(const t_red *rd);
const char *t_red_name(const t_red *rd); /* "SUM", "user-order"... */
/* Writes rank's input of `count` elements for this seed. */
void t_red_input(const t_red *rd, int rank, uint64_t seed, void *buf, int count);
/* The reference: inout[i] = in[i] op inout[i]. */
void t_red_apply(const t_red *rd, const void *in, void *inout, int count);
/* Index of the first element of got that differs from want (pairs compared by field), or -1. */
int t_red_mismatch(nocmsg_datatype type, const void *got, const void *want, int count);
/* An element as text, for failure reports. */
void t_elem_text(nocmsg_datatype type, const void *p, char *out, size_t n);
/* Whether the built-in op is defined on type (in nocmsg.h's terms). */
int t_op_defined(nocmsg_op op, nocmsg_datatype type);
const char *t_op_name(nocmsg_op op);

/* One reduction case on one communicator: this rank's input, the reduction over all ranks and over ranks 0..rank. */
typedef struct {
    t_red rd;
    int count, esize;
    uint64_t seed;
    void *mine, *full, *prefix;
} t_red_data;
void t_red_prepare(t_red_data *d, const t_comm *c, const t_red *rd, int count);
void t_red_release(t_red_data *d);

/* One checked call on c (inplace: NOCMSG_IN_PLACE as the operation allows). reduce_scatter splits the count evenly
 * (uneven = 0) or unevenly with zeros (uneven = 1). */
void check_reduce(const t_comm *c, const t_red_data *d, int root, int inplace);
void check_allreduce(const t_comm *c, const t_red_data *d, int inplace);
void check_reduce_scatter(const t_comm *c, const t_red_data *d, int uneven, int inplace);
void check_scan(const t_comm *c, const t_red_data *d, int inplace);

#endif /* NOCMSG_COLL_RED_H */
