/* core_primops.c — the table of primitive operations, generated from primops.def by
 * the PRIMOP X-macro, and lookup by name (the string of a `foreign import prim`).
 * The table is the one place that knows a primop's arity and effect flags; the Core
 * linter and the back end both read it. See Note [Stdlib and primitives]. */
#include "core.h"

#include <string.h>

const CorePrimInfo core_primops[PRIMOP_COUNT] = {
#define PRIMOP(id, name, arity, flags) [id] = {name, arity, flags},
#include "primops.def"
#undef PRIMOP
};

/* A linear scan: the table is small and lookups happen once per foreign import. */
int core_primop_lookup(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < PRIMOP_COUNT; i++)
    if (core_primops[i].name && strcmp(core_primops[i].name, name) == 0) return i;
  return -1;
}
