/* cg_prof.c — the code the -prof way adds (CgOptions.prof): cost centres, entering SCCs,
 * and the cost-centre stack a thunk carries.
 *
 * The runtime keeps each capability's current cost-centre stack (rts/prof.h); generated
 * code changes it only through three C calls that also push a restore frame when the
 * stack changes, and return the new sp: lz_prof_enter_scc at an SCC, lz_prof_enter_thunk
 * at a thunk's entry (after its update frame; the thunk's stack was stored in its last
 * word when it was allocated), lz_prof_enter_caf at a CAF's entry (MAIN > CAF of its
 * module). Because the restore frame may or may not be pushed (the runtime decides), code
 * after an SCC returns through sp[0], never to a statically known continuation. Each cost
 * centre is one writable static {label, module, srcloc, id} per (module, label), shared by
 * every copy of the code. Note [Profiling] in docs/notes/profiling.md.
 */
#include <string.h>

#include "../rts/prof.h"
#include "cg_priv.h"

int cg_prof_thunk_extra(Cg *cg) { return cg->opts.prof ? 1 : 0; }

static LLVMValueRef str_ptr(Cg *cg, const char *s) {
  return LLVMConstBitCast(cg_string_global(cg, s, strlen(s)), cg->t_i8p);
}

/* The static LzProfCC of (module, label), made once. */
static LLVMValueRef cost_centre(Cg *cg, const char *label, const char *module, const char *src) {
  Sym key = lz_sym(lz_fmt("%s\1%s", module ? module : "", label));
  LLVMValueRef g = cg_map_get(&cg->prof_ccs, key);
  if (g) return g;
  LLVMTypeRef fields[4] = {cg->t_i8p, cg->t_i8p, cg->t_i8p, cg->t_word};
  LLVMTypeRef t = LLVMStructTypeInContext(cg->ctx, fields, 4, 0);
  LLVMValueRef vals[4] = {str_ptr(cg, label), str_ptr(cg, module ? module : "MAIN"),
                          str_ptr(cg, src), cg_word(cg, 0)};
  g = LLVMAddGlobal(cg->mod, t, lz_fmt("cc.%s", label));
  LLVMSetInitializer(g, LLVMConstStructInContext(cg->ctx, vals, 4, 0));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  cg_map_put(&cg->prof_ccs, key, g);
  return g;
}

/* sp = fn(cap, sp, arg): one of the runtime's lz_prof_enter_* (declared on first use). */
static void call_enter(CgFn *f, const char *name, LLVMValueRef arg) {
  Cg *cg = f->cg;
  LLVMTypeRef params[3] = {cg->t_i8p, cg->t_wordp, LLVMTypeOf(arg)};
  LLVMTypeRef t = LLVMFunctionType(cg->t_wordp, params, 3, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
  if (!fn) {
    fn = LLVMAddFunction(cg->mod, name, t);
    LLVMSetLinkage(fn, LLVMExternalLinkage);
  }
  LLVMValueRef args[3] = {f->cap, f->sp, arg};
  f->sp = LLVMBuildCall2(cg->b, t, fn, args, 3, "sp");
}

void cg_prof_scc(CgFn *f, StgExpr *scc) {
  Cg *cg = f->cg;
  LLVMValueRef cc = cost_centre(cg, scc->scc, scc->scc_module, lz_span_ghc(scc->span));
  call_enter(f, "lz_prof_enter_scc", LLVMConstBitCast(cc, cg->t_i8p));
}

void cg_prof_enter_caf(CgFn *f, Sym module) {
  Cg *cg = f->cg;
  LLVMValueRef cc = cost_centre(cg, "CAF", module ? module : "MAIN", "<entire-module>");
  call_enter(f, "lz_prof_enter_caf", LLVMConstBitCast(cc, cg->t_i8p));
}

void cg_prof_enter_thunk(CgFn *f, LLVMValueRef thunk, int64_t word_off) {
  call_enter(f, "lz_prof_enter_thunk", cg_load(f, thunk, word_off));
}

void cg_prof_enter_ccs(CgFn *f, LLVMValueRef ccs) { call_enter(f, "lz_prof_enter_thunk", ccs); }

/* lz_prof_caps[cap->cap_no].ccs, inline: allocation sites of thunks store it. */
LLVMValueRef cg_prof_current(CgFn *f) {
  Cg *cg = f->cg;
  LLVMValueRef caps = LLVMGetNamedGlobal(cg->mod, "lz_prof_caps");
  if (!caps) {
    caps = LLVMAddGlobal(cg->mod, cg->t_i8, "lz_prof_caps");
    LLVMSetLinkage(caps, LLVMExternalLinkage);
  }
  LLVMValueRef idx = cg_word(cg, offsetof(LzCap, cap_no));
  LLVMValueRef a = LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, f->cap, &idx, 1, "");
  a = LLVMBuildBitCast(cg->b, a, LLVMPointerType(cg->t_i32, 0), "");
  LLVMValueRef no =
      LLVMBuildZExt(cg->b, LLVMBuildLoad2(cg->b, cg->t_i32, a, "capno"), cg->t_word, "");
  LLVMValueRef off = LLVMBuildMul(cg->b, no, cg_word(cg, LZ_PROF_CAP_STRIDE), "");
  LLVMValueRef p = LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, caps, &off, 1, "");
  p = LLVMBuildBitCast(cg->b, p, cg->t_wordp, "");
  return LLVMBuildLoad2(cg->b, cg->t_word, p, "ccs");
}
