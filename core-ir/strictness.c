/* strictness.c — strictness analysis and worker/wrapper (stub, being written). */
#include "opt_priv.h"
int opt_worker_wrapper(Opt *O) { (void)O; return 0; }
