/* Core id / core count, independent of the execution environment.
 * On the nocmsg simulator (-DNOCMSG_SIM) these come from nocmsg_core.h;
 * natively they come from the NOCMSG_CORE / NOCMSG_CORES environment
 * variables (default: core 0 of 1). */
#ifndef NOCMSG_TEST_CORE_ID_H
#define NOCMSG_TEST_CORE_ID_H

#ifdef NOCMSG_SIM
#include <nocmsg_core.h>
#define CORE_ID() nocmsg_core_id()
#define NUM_CORES() nocmsg_num_cores()
#else
#include <stdlib.h>
static int CORE_ID(void) { const char *s = getenv("NOCMSG_CORE"); return s ? atoi(s) : 0; }
static int NUM_CORES(void) { const char *s = getenv("NOCMSG_CORES"); return s ? atoi(s) : 1; }
#endif

#endif
