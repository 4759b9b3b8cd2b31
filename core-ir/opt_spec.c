/* opt_spec.c — specialisation (stub, being written). */
#include "opt_priv.h"
int opt_specialise(Opt *O) { (void)O; return 0; }
