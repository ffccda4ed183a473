/*
 * RCCE_lib.h - Intel's RCCE has an internal header of this name that some RCCE programs include (for
 * RC_cache_invalidate and the like). Everything they use from it that this library has is in RCCE.h.
 */
#ifndef RCCE_LIB_H
#define RCCE_LIB_H

#include "RCCE.h"

#endif /* RCCE_LIB_H */
