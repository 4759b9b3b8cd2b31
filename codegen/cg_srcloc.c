/* cg_srcloc.c — the program's source-location table (the -replay way).
 *
 * Every info table has a `srcloc` field (rts.h LzInfo): an index into a table of
 * "file.lz:line:col-col" strings that the module exports as `lz_srcloc_table` (entry 0
 * is NULL: no location) with its length in `lz_srcloc_count`. The replay stepper maps a
 * thunk, a spark or a stack frame to the source expression it came from through its info
 * pointer, so naming a site costs nothing at run time: no field, no event. Only binaries
 * built with -replay carry the table (Note [Stepper] in docs/notes/stepper.md).
 */
#include "cg_priv.h"

#include <string.h>

/* Index of `span`'s string in the table (added on first use); 0 for an unknown span and
 * outside the -replay way. cg_info_table stores it in the info table's srcloc field. */
unsigned cg_srcloc_index(Cg *cg, LzSpan span) {
  if (!cg->opts.replay || !lz_span_known(span)) return 0;
  Sym key = lz_sym(lz_span_ghc(span));
  void *got = cg_map_get(&cg->srcloc_index, (void *)key);
  if (got) return (unsigned)(uintptr_t)got;
  LZ_PUSH(cg->srclocs, key);
  unsigned idx = (unsigned)cg->srclocs.len; /* 1-based: 0 is "none" */
  cg_map_put(&cg->srcloc_index, (void *)key, (void *)(uintptr_t)idx);
  return idx;
}

void cg_srcloc_emit(Cg *cg) {
  if (!cg->opts.replay) return;
  unsigned n = (unsigned)cg->srclocs.len + 1;
  LLVMValueRef *v = LZ_NEW_ARRAY(LLVMValueRef, n);
  v[0] = LLVMConstNull(cg->t_i8p);
  for (unsigned i = 1; i < n; i++) {
    Sym s = cg->srclocs.data[i - 1];
    v[i] = LLVMConstBitCast(cg_string_global(cg, s, strlen(s)), cg->t_i8p);
  }
  LLVMTypeRef t = LLVMArrayType(cg->t_i8p, n);
  LLVMValueRef table = LLVMAddGlobal(cg->mod, t, "lz_srcloc_table");
  LLVMSetInitializer(table, LLVMConstArray(cg->t_i8p, v, n));
  LLVMSetGlobalConstant(table, 1);
  LLVMValueRef count = LLVMAddGlobal(cg->mod, cg->t_i32, "lz_srcloc_count");
  LLVMSetInitializer(count, LLVMConstInt(cg->t_i32, n, 0));
  LLVMSetGlobalConstant(count, 1);
}
