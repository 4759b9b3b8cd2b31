/* cg_expr.c — STG expressions in tail position, closures and their entry code, calls and
 * let-no-escape join points.
 *
 * The idea: every expression is compiled in tail position with a *sequel*: its value is
 * returned to the frame on top of the Lz stack. When the generator knows which continuation
 * that frame runs (inside the scrutinee of a case it just pushed), it tail-calls the
 * continuation directly, so LLVM sees a known call it may inline; otherwise it reads the
 * entry from sp[0]. Allocation (let) happens in place; evaluation (case) is in cg_case.c.
 * A let-no-escape binding becomes a basic block with a phi per parameter in every LLVM
 * function that jumps to it (made when the first jump is compiled), so a join point costs a
 * branch and a loop through one is a real loop; the case continuations inside its body are
 * shared, so the copying stops at the first evaluation.
 * Known saturated calls jump straight to the callee's code (arguments in r2..r4, the rest
 * on the stack, rts.h); everything else goes through the runtime's generic apply.
 */
#include <string.h>

#include "cg_priv.h"

/* ---- closures ------------------------------------------------------------------------------ */

static const char *rhs_kind_name(StgRhsKind k) {
  return k == STG_FUN ? "fun" : k == STG_THUNK ? "thunk" : "con";
}

/* Entry function and info table of a let-bound or top-level FUN/THUNK (made on demand). */
LLVMValueRef cg_closure_code(Cg *cg, StgRhs *rhs) {
  CgVarInfo *vi = &cg->vars[rhs->var->id];
  if (vi->code) return vi->code;
  const char *label = cg_var_label(rhs->var);
  bool top = rhs->var->global;
  if (!top && cg->top) label = lz_fmt("%s.%s", cg->top, label);
  vi->code = cg_new_code_fn(cg, lz_fmt("%s_%s", label, rhs_kind_name(rhs->kind)));
  if (rhs->kind == STG_FUN)
    vi->info = cg_info_table(cg, lz_fmt("%s_info", label), vi->code, LZ_FUN, rhs->arity, 0,
                             top ? 0 : rhs->nfvs, label, rhs->span);
  else
    vi->info = cg_info_table(cg, lz_fmt("%s_info", label), vi->code, LZ_THUNK, 0, 0,
                             top ? 1 : 1 + rhs->nfvs + cg_prof_thunk_extra(cg), label, rhs->span);
  CgJob j = {JOB_CLOSURE, rhs, NULL, top ? cg_var_label(rhs->var) : cg->top, 0};
  LZ_PUSH(cg->jobs, j);
  return vi->code;
}

bool cg_is_whnf(CgFn *f, StgVar *v) {
  CgVarInfo *vi = &f->cg->vars[v->id];
  if (v->global) return vi->tag != 0;
  return vi->whnf;
}

/* ---- the -replay way: thunk ids -------------------------------------------------------------
 * Note [Thunk ids] in docs/notes/replay.md: a thunk's spare word holds, from allocation
 * until its update, the id (capability << 48) | 1 << 47 | 2 (the capability's alloc_bytes
 * at its allocation + its offset in the let) | granules << 1 | 1 (odd with bit 47: never a
 * pointer; the size for the update, thunk_words in glue.c). The claim keeps it; a claim on another
 * capability than the allocating one, or of a CAF (spare word 0; the runtime names it by its
 * address), calls lz_replay_claimed (the RPL_CLAIM event), and while replaying every claim first
 * asks lz_replay_claim_gate whether this capability may claim it. */

static LLVMValueRef replay_cap_no(CgFn *f) {
  Cg *cg = f->cg;
  LLVMValueRef idx = cg_word(cg, offsetof(LzCap, cap_no));
  LLVMValueRef a = LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, f->cap, &idx, 1, "");
  a = LLVMBuildBitCast(cg->b, a, LLVMPointerType(cg->t_i32, 0), "");
  return LLVMBuildZExt(cg->b, LLVMBuildLoad2(cg->b, cg->t_i32, a, "capno"), cg->t_word, "");
}

/* (cap << 48) | 1 << 47 | 2 alloc_bytes | 1, and alloc_bytes += bytes (the let's count, so
 * that the counter is loaded once: cg_count_alloc is not called for this let). Doubled, the
 * count (a multiple of the 8-byte granule) leaves bits 1..3 for the size. */
static LLVMValueRef replay_thunk_id_base(CgFn *f, int64_t bytes) {
  Cg *cg = f->cg;
  LLVMValueRef idx = cg_word(cg, offsetof(LzCap, alloc_bytes));
  LLVMValueRef a = LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, f->cap, &idx, 1, "");
  a = LLVMBuildBitCast(cg->b, a, cg->t_wordp, "");
  LLVMValueRef n = LLVMBuildLoad2(cg->b, cg->t_word, a, "allocated");
  LLVMBuildStore(cg->b, LLVMBuildAdd(cg->b, n, cg_word(cg, bytes), ""), a);
  LLVMValueRef c = LLVMBuildShl(cg->b, replay_cap_no(f), cg_word(cg, 48), "");
  /* modulo 2^45: bits 45 and 46 are lazy blackholing's entry marks (rts/replay.h) */
  n = LLVMBuildAnd(cg->b, LLVMBuildShl(cg->b, n, cg_word(cg, 1), ""), cg_word(cg, (1ll << 45) - 1),
                   "");
  return LLVMBuildOr(cg->b, LLVMBuildOr(cg->b, c, n, ""), cg_word(cg, (1ll << 47) | 1), "idbase");
}

/* The id's bits 1..3 (zero in the doubled allocation count): the thunk's size in granules
 * when 1..7, else 0, for the update (thunk_words in glue.c; Note [Thunk ids]). */
static int64_t replay_size_bits(int words) {
  int g = LZ_WORDS_TO_GRANULES(words);
  return g <= 7 ? (int64_t)g << 1 : 0;
}

static LLVMValueRef replay_fn(Cg *cg, const char *name, LLVMTypeRef ret, LLVMTypeRef *ty) {
  LLVMTypeRef params[2] = {cg->t_i8p, cg->t_word};
  *ty = LLVMFunctionType(ret, params, 2, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
  if (!fn) {
    fn = LLVMAddFunction(cg->mod, name, *ty);
    LLVMSetLinkage(fn, LLVMExternalLinkage);
  }
  return fn;
}

/* if (lz_replay_mode == LZ_RPL_REPLAY && !lz_replay_claim_gate(cap, t)) lz_eval(t) */
static void replay_claim_gate(CgFn *f, LLVMValueRef t) {
  Cg *cg = f->cg;
  LLVMValueRef mode = LLVMGetNamedGlobal(cg->mod, "lz_replay_mode");
  if (!mode) {
    mode = LLVMAddGlobal(cg->mod, cg->t_i32, "lz_replay_mode");
    LLVMSetLinkage(mode, LLVMExternalLinkage);
  }
  LLVMValueRef m = LLVMBuildLoad2(cg->b, cg->t_i32, mode, "rplmode");
  LLVMBasicBlockRef gate = cg_block(f, "rplgate"), go = cg_block(f, "rplgo"),
                    wait = cg_block(f, "rplwait");
  LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, m, LLVMConstInt(cg->t_i32, 2, 0), ""),
                  gate, go);
  LLVMPositionBuilderAtEnd(cg->b, gate);
  LLVMTypeRef ty;
  LLVMValueRef fn = replay_fn(cg, "lz_replay_claim_gate", cg->t_i32, &ty);
  LLVMValueRef args[2] = {f->cap, t};
  LLVMValueRef ok = LLVMBuildCall2(cg->b, ty, fn, args, 2, "mayclaim");
  LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, ok, LLVMConstInt(cg->t_i32, 0, 0), ""), go,
                  wait);
  LLVMPositionBuilderAtEnd(cg->b, wait);
  cg_tail_call(f, cg->rt_eval, t, NULL, NULL, NULL);
  LLVMPositionBuilderAtEnd(cg->b, go);
}

/* after winning: if (is an id ? id >> 48 != cap->cap_no : id == 0) lz_replay_claimed(cap, t)
 * (id 0: a CAF, named by its address) */
static void replay_claimed(CgFn *f, LLVMValueRef t) {
  Cg *cg = f->cg;
  LLVMValueRef id = cg_load(f, t, 8);
  LLVMValueRef mark = cg_word(cg, (1ll << 47) | 1);
  LLVMValueRef odd = LLVMBuildICmp(cg->b, LLVMIntEQ, LLVMBuildAnd(cg->b, id, mark, ""), mark, "");
  LLVMValueRef other = LLVMBuildICmp(
      cg->b, LLVMIntNE, LLVMBuildLShr(cg->b, id, cg_word(cg, 48), ""), replay_cap_no(f), "");
  LLVMBasicBlockRef post = cg_block(f, "rplclaim"), done = cg_block(f, "rplclaimed");
  LLVMValueRef caf = LLVMBuildICmp(cg->b, LLVMIntEQ, id, cg_word(cg, 0), "");
  LLVMBuildCondBr(cg->b, LLVMBuildOr(cg->b, LLVMBuildAnd(cg->b, odd, other, ""), caf, ""), post,
                  done);
  LLVMPositionBuilderAtEnd(cg->b, post);
  LLVMTypeRef ty;
  LLVMValueRef fn = replay_fn(cg, "lz_replay_claimed", cg->t_void, &ty);
  /* cap->hook_sp = sp: the stack the stepper shows at this claim (Note [Stepper]) */
  LLVMValueRef slot = LLVMBuildInBoundsGEP2(
      cg->b, cg->t_i8, f->cap, (LLVMValueRef[]){cg_word(cg, offsetof(LzCap, hook_sp))}, 1, "");
  LLVMBuildStore(cg->b, f->sp, LLVMBuildBitCast(cg->b, slot, LLVMPointerType(cg->t_wordp, 0), ""));
  LLVMValueRef args[2] = {f->cap, t};
  LLVMBuildCall2(cg->b, ty, fn, args, 2, "");
  LLVMBuildBr(cg->b, done);
  LLVMPositionBuilderAtEnd(cg->b, done);
}

/* Lazy blackholing, the -replay way: after every entry that found the thunk unevaluated,
 * lz_replay_entered(cap, t, id) (marks the id: who entered; the RPL_CLAIM event). `id` was
 * read before the check: the spare word may hold another thread's result by now. */
static void replay_entered(CgFn *f, LLVMValueRef t, LLVMValueRef id) {
  Cg *cg = f->cg;
  LLVMTypeRef params[3] = {cg->t_i8p, cg->t_word, cg->t_word};
  LLVMTypeRef ty = LLVMFunctionType(cg->t_void, params, 3, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, "lz_replay_entered");
  if (!fn) {
    fn = LLVMAddFunction(cg->mod, "lz_replay_entered", ty);
    LLVMSetLinkage(fn, LLVMExternalLinkage);
  }
  LLVMValueRef args[3] = {f->cap, t, id};
  LLVMBuildCall2(cg->b, ty, fn, args, 3, "");
}

/* Go on only while thunk `t`'s info word is still `own`, its own info table; else
 * tail-call lz_eval, which finds it claimed (a BLACKHOLE: wait) or updated (the value). */
static void unless_still_own(CgFn *f, LLVMValueRef t, LLVMValueRef own) {
  Cg *cg = f->cg;
  LLVMValueRef cur =
      LLVMBuildLoad2(cg->b, cg->t_word, LLVMBuildIntToPtr(cg->b, t, cg->t_wordp, ""), "info");
  LLVMSetOrdering(cur, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(cur, 8);
  LLVMBasicBlockRef fresh = cg_block(f, "unevaluated"), gone = cg_block(f, "evaluated");
  LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, cur, own, ""), fresh, gone);
  LLVMPositionBuilderAtEnd(cg->b, gone);
  cg_tail_call(f, cg->rt_eval, t, NULL, NULL, NULL);
  LLVMPositionBuilderAtEnd(cg->b, fresh);
}

/* After a claim: thunk words 2 .. 1+n (the free variables, already loaded) = 0. Boehm
 * scans a blackhole whole, so a thunk under evaluation kept everything its free variables
 * reach until its update: `print (foldl' (+) 0 xs)` kept all of xs (1.3 GB where GHC,
 * whose BLACKHOLE has only its owner, needs 4 MB). Only the thread that claimed it reads
 * them, and it has; lazy blackholing never gets here (others may still load them: the
 * runtime clears them when it blackholes the thunk at a stop). Note [Eager blackholing],
 * "Free variables", in docs/notes/threaded-rts.md. */
static void clear_free_vars(CgFn *f, LLVMValueRef t, int n) {
  for (int i = 0; i < n; i++) /* volatile: LLVM would merge the stores into a memset call */
    LLVMSetVolatile(cg_store(f, t, 8 * (2 + i), cg_word(f->cg, 0)), 1);
}

/* Claim the thunk `t` (whose info table is `info`) for this thread: eager blackholing.
 * The spare word keeps the thunk's own info table, from which the update learns its size
 * to clear the free variables. Vanilla: two plain stores. Threaded: the info word is
 * swapped for BLACKHOLE with a compare-and-swap, so of two threads entering the same thunk
 * exactly one evaluates it; the loser re-examines it with lz_eval (an IND: the value; a
 * BLACKHOLE: it blocks until the update). The spare word is written only after winning:
 * before that it may already hold another thread's result. Note [Eager blackholing] in
 * docs/notes/threaded-rts.md. The -replay way: see above. */
static void claim_thunk(CgFn *f, LLVMValueRef t, LLVMValueRef info, int nfvs) {
  Cg *cg = f->cg;
  if (cg->opts.replay) replay_claim_gate(f, t);
  LLVMValueRef own = cg_const_ptr_word(cg, info, 0),
               bh = cg_const_ptr_word(cg, cg->rt_blackhole_info, 0);
  if (!cg->opts.threaded) {
    cg_store(f, t, 8, own);
    cg_store(f, t, 0, bh);
    clear_free_vars(f, t, nfvs);
    return;
  }
  /* +RTS --lazy-blackholing (cap->lazy_bh): no claim; Note [Lazy blackholing] */
  LLVMValueRef idx = cg_word(cg, offsetof(LzCap, lazy_bh));
  LLVMValueRef la =
      LLVMBuildBitCast(cg->b, LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, f->cap, &idx, 1, ""),
                       LLVMPointerType(cg->t_i32, 0), "");
  LLVMValueRef lazy = LLVMBuildLoad2(cg->b, cg->t_i32, la, "lazybh");
  LLVMBasicBlockRef eager = cg_block(f, "eagerbh"), lazyb = cg_block(f, "lazybh"),
                    entered = cg_block(f, "entered");
  LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, lazy, LLVMConstInt(cg->t_i32, 0, 0), ""),
                  lazyb, eager);
  LLVMPositionBuilderAtEnd(cg->b, eager);
  if (!cg->opts.replay) {
    /* -N1 or running alone (cap->claim_plain): one OS thread runs compiled code, so claim
       as the vanilla way does (Notes [One capability], [Running alone] in
       docs/notes/threaded-rts.md), once the info word is seen to be still the thunk's own:
       the capability may have begun running alone at this function's heap check, after
       the info word was read to enter it and another capability claimed and updated it */
    LLVMValueRef pidx = cg_word(cg, offsetof(LzCap, claim_plain));
    LLVMValueRef pa =
        LLVMBuildBitCast(cg->b, LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, f->cap, &pidx, 1, ""),
                         LLVMPointerType(cg->t_i32, 0), "");
    LLVMValueRef plain = LLVMBuildLoad2(cg->b, cg->t_i32, pa, "claimplain");
    LLVMBasicBlockRef single = cg_block(f, "plainbh"), atomic = cg_block(f, "casbh");
    LLVMBuildCondBr(cg->b,
                    LLVMBuildICmp(cg->b, LLVMIntNE, plain, LLVMConstInt(cg->t_i32, 0, 0), ""),
                    single, atomic);
    LLVMPositionBuilderAtEnd(cg->b, single);
    unless_still_own(f, t, own);
    cg_store(f, t, 8, own);
    cg_store(f, t, 0, bh);
    clear_free_vars(f, t, nfvs);
    LLVMBuildBr(cg->b, entered);
    LLVMPositionBuilderAtEnd(cg->b, atomic);
  }
  LLVMValueRef p = LLVMBuildIntToPtr(cg->b, t, cg->t_wordp, "");
  LLVMValueRef x = LLVMBuildAtomicCmpXchg(cg->b, p, own, bh, LLVMAtomicOrderingAcquireRelease,
                                          LLVMAtomicOrderingAcquire, 0);
  LLVMBasicBlockRef won = cg_block(f, "claimed"), lost = cg_block(f, "taken");
  LLVMBuildCondBr(cg->b, LLVMBuildExtractValue(cg->b, x, 1, ""), won, lost);
  LLVMPositionBuilderAtEnd(cg->b, lost);
  cg_tail_call(f, cg->rt_eval, t, NULL, NULL, NULL);
  LLVMPositionBuilderAtEnd(cg->b, won);
  if (cg->opts.replay) /* the spare word keeps the thunk id (Note [Thunk ids]) */
    replay_claimed(f, t);
  else
    cg_store(f, t, 8, own);
  clear_free_vars(f, t, nfvs);
  LLVMBuildBr(cg->b, entered);
  /* lazy: the free variables were loaded before this point; the thunk must still be
   * unevaluated after those loads (an update, or blackholing at a stop, clears them), else
   * lz_eval it (an IND: the value; a BLACKHOLE: block). The acquire fence keeps the loads
   * before the check. */
  LLVMPositionBuilderAtEnd(cg->b, lazyb);
  LLVMValueRef id = cg->opts.replay ? cg_load(f, t, 8) : NULL;
  LLVMBuildFence(cg->b, LLVMAtomicOrderingAcquire, 0, "");
  unless_still_own(f, t, own);
  if (cg->opts.replay) replay_entered(f, t, id);
  LLVMBuildBr(cg->b, entered);
  LLVMPositionBuilderAtEnd(cg->b, entered);
}

/* The entry code of a closure: FUN: r1 = the closure, arguments in r2..r4 and on the
 * stack; THUNK: r1 = the thunk, blackholed and updated (Note [Back end and runtime ABI]). */
void cg_closure_body(Cg *cg, StgRhs *rhs) {
  CgFn fb, *f = &fb;
  CgVarInfo *vi = &cg->vars[rhs->var->id];
  cg_fn_begin(cg, f, vi->code, false);
  LLVMValueRef r1 = cg_param(f, 2);
  /* a closure's fvs never list itself: it is r1 (tagged 1 for a function) */
  if (!rhs->var->global)
    cg_bind(f, rhs->var,
            rhs->kind == STG_FUN ? LLVMBuildOr(cg->b, r1, cg_word(cg, 1), "self") : r1);
  if (rhs->kind == STG_FUN) {
    for (int i = 0; i < rhs->arity; i++) {
      LLVMValueRef w =
          i < 3 ? cg_param(f, 3 + i) : LLVMBuildLoad2(cg->b, cg->t_word, cg_sp_slot(f, i - 3), "");
      cg_bind(f, rhs->params[i], cg_from_word(f, w, rhs->params[i]->rep));
    }
    if (rhs->arity > 3) f->sp = cg_sp_slot(f, rhs->arity - 3);
    if (rhs->nfvs) {
      LLVMValueRef self = cg_untag(f, r1);
      for (int i = 0; i < rhs->nfvs; i++)
        cg_bind(f, rhs->fvs[i], cg_from_word(f, cg_load(f, self, 8 * (1 + i)), rhs->fvs[i]->rep));
    }
  } else {
    for (int i = 0; i < rhs->nfvs; i++)
      cg_bind(f, rhs->fvs[i], cg_from_word(f, cg_load(f, r1, 8 * (2 + i)), rhs->fvs[i]->rep));
    /* the thunk's cost-centre stack, loaded with the free variables: lazy blackholing's
     * check after them is what keeps them valid (an update clears them) */
    LLVMValueRef ccs =
        cg->opts.prof && !rhs->var->global ? cg_load(f, r1, 8 * (2 + rhs->nfvs)) : NULL;
    claim_thunk(f, r1, vi->info, rhs->nfvs); /* eager blackholing, then the update frame */
    LLVMValueRef frame[2] = {cg_const_ptr_word(cg, cg->rt_update_frame_info, 0), r1};
    cg_push(f, frame, 2);
    if (cg->opts.prof) { /* the thunk's cost-centre stack (a CAF's: MAIN > CAF) */
      if (rhs->var->global)
        cg_prof_enter_caf(f, rhs->var->module);
      else
        cg_prof_enter_ccs(f, ccs);
    }
  }
  cg_expr(f, rhs->body, NULL);
  cg_fn_finish(f);
}

/* ---- allocation ------------------------------------------------------------------------------ */

static int closure_words(Cg *cg, StgRhs *rhs) {
  int ap = cg_ap_thunk_arity(rhs);
  if (ap) return 3 + ap + cg_prof_thunk_extra(cg);
  switch (rhs->kind) { /* -prof: every heap closure ends with its cost-centre stack */
  case STG_CON: return 1 + rhs->nargs + cg_prof_thunk_extra(cg);
  case STG_FUN: return 1 + rhs->nfvs + cg_prof_thunk_extra(cg);
  case STG_THUNK: return 2 + rhs->nfvs + cg_prof_thunk_extra(cg);
  }
  return 2;
}

/* ---- Note [Small Int and Char boxes] (docs/notes/backend.md) ---------------------------------
 * GHC's copying collector replaces every I# of -16..255 and every C# of 0..255 it copies by a
 * static closure; Boehm moves nothing, so we do it where the box is made: a box of such a value
 * is a pointer into a constant table of them (one per module, private, made on demand), and
 * only other values are allocated. queens 13 kept 200 000 fresh I# boxes of 1..13 alive, a
 * quarter of its live bytes. Not in the -prof ways, whose closures carry a cost-centre word. */
enum { SMALL_INT_MIN = -16, SMALL_INT_COUNT = 272, SMALL_CHAR_COUNT = 256 };

static bool small_box_con(Cg *cg, const CoreDataCon *c, int64_t *lo, int64_t *count) {
  if (cg->opts.prof || c->arity != 1 || !c->tycon || !c->tycon->module ||
      strcmp(c->tycon->module, "Lz.Base") != 0)
    return false;
  if (strcmp(c->name, "I#") == 0) {
    *lo = SMALL_INT_MIN, *count = SMALL_INT_COUNT;
    return true;
  }
  if (strcmp(c->name, "C#") == 0) {
    *lo = 0, *count = SMALL_CHAR_COUNT;
    return true;
  }
  return false;
}

static LLVMValueRef small_box_table(Cg *cg, CoreDataCon *c, int64_t lo, int64_t count) {
  LLVMValueRef g = cg_map_get(&cg->small_boxes, c);
  if (g) return g;
  LLVMValueRef *w = LZ_NEW_ARRAY(LLVMValueRef, 2 * count);
  LLVMValueRef info = cg_const_ptr_word(cg, cg_con_info(cg, c), 0);
  for (int64_t i = 0; i < count; i++)
    w[2 * i] = info, w[2 * i + 1] = cg_word(cg, lo + i);
  LLVMTypeRef t = LLVMArrayType(cg->t_word, (unsigned)(2 * count));
  g = LLVMAddGlobal(cg->mod, t, lz_fmt("%s_small_boxes", c->name));
  LLVMSetInitializer(g, LLVMConstArray(cg->t_word, w, (unsigned)(2 * count)));
  LLVMSetGlobalConstant(g, 1); /* private and constant: cg_split.c copies it into both parts */
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetAlignment(g, 16);
  cg_map_put(&cg->small_boxes, c, g);
  return g;
}

/* A fresh constructor of the field values vals: its tagged pointer. */
static LLVMValueRef alloc_con(CgFn *f, CoreDataCon *c, LLVMValueRef *vals, int nargs) {
  Cg *cg = f->cg;
  LLVMValueRef p = cg_alloc(f, 1 + nargs + cg_prof_thunk_extra(cg));
  cg_store(f, p, 0, cg_const_ptr_word(cg, cg_con_info(cg, c), 0));
  for (int i = 0; i < nargs; i++)
    cg_store(f, p, 8 * (1 + i), vals[i]);
  if (cg->opts.prof) cg_store(f, p, 8 * (1 + nargs), cg_prof_current(f)); /* for -hc */
  cg_count_alloc(f, LZ_GRANULE_BYTES * LZ_WORDS_TO_GRANULES(1 + nargs));
  return LLVMBuildOr(cg->b, p, cg_word(cg, cg_con_ptr_tag(c)), "con");
}

/* The tagged box of the atom, from the table when its value is small, else fresh; NULL
 * when c is not such a box (the atom is then not looked at). */
static LLVMValueRef build_small_box(CgFn *f, CoreDataCon *c, StgAtom *arg) {
  Cg *cg = f->cg;
  int64_t lo, count;
  if (!small_box_con(cg, c, &lo, &count)) return NULL;
  LLVMValueRef v = cg_atom(f, arg);
  LLVMValueRef idx = LLVMBuildSub(cg->b, v, cg_word(cg, lo), "");
  LLVMValueRef small = LLVMBuildICmp(cg->b, LLVMIntULT, idx, cg_word(cg, count), "");
  LLVMBasicBlockRef from_table = cg_block(f, "smallbox"), alloc = cg_block(f, "box"),
                    join = cg_block(f, "boxed");
  LLVMBuildCondBr(cg->b, small, from_table, alloc);
  LLVMPositionBuilderAtEnd(cg->b, from_table);
  LLVMValueRef base = cg_const_ptr_word(cg, small_box_table(cg, c, lo, count), cg_con_ptr_tag(c));
  LLVMValueRef p1 = LLVMBuildAdd(cg->b, base, LLVMBuildShl(cg->b, idx, cg_word(cg, 4), ""), "");
  LLVMBuildBr(cg->b, join);
  LLVMPositionBuilderAtEnd(cg->b, alloc);
  LLVMValueRef p2 = alloc_con(f, c, &v, 1);
  LLVMBasicBlockRef alloc_end = LLVMGetInsertBlock(cg->b); /* cg_alloc adds blocks */
  LLVMBuildBr(cg->b, join);
  LLVMPositionBuilderAtEnd(cg->b, join);
  LLVMValueRef phi = LLVMBuildPhi(cg->b, cg->t_word, "box");
  LLVMValueRef vals[2] = {p1, p2};
  LLVMBasicBlockRef blocks[2] = {from_table, alloc_end};
  LLVMAddIncoming(phi, vals, blocks, 2);
  return phi;
}

LLVMValueRef cg_build_con(CgFn *f, CoreDataCon *c, StgAtom *args, int nargs) {
  Cg *cg = f->cg;
  if (nargs == 0) return cg_const_ptr_word(cg, cg_nullary_closure(cg, c), cg_con_ptr_tag(c));
  LLVMValueRef box = nargs == 1 ? build_small_box(f, c, &args[0]) : NULL;
  if (box) return box;
  LLVMValueRef vals[nargs];
  for (int i = 0; i < nargs; i++)
    vals[i] = cg_atom(f, &args[i]);
  return alloc_con(f, c, vals, nargs);
}

/* ---- application thunks -------------------------------------------------------------------
 * A thunk whose body is just a call `f a1..aN` (N <= 3) is laid out as
 * {info_apN, spare, f, a1..aN} and shares one entry per N, which blackholes it, pushes the
 * update frame and tails-calls lz_apply_N(f, a1..aN) (an exact call of a known function
 * takes that function's fast path). Such thunks are a third to a half of all thunks, and
 * one entry function each would be most of the code LLVM has to compile. */

int cg_ap_thunk_arity(const StgRhs *rhs) {
  if (rhs->kind != STG_THUNK || rhs->lne || rhs->var->global || !rhs->body) return 0;
  const StgExpr *b = rhs->body;
  if (b->kind != SE_APP || b->call == STG_CALL_JUMP || b->fn->lne || b->nargs < 1 || b->nargs > 3)
    return 0;
  return b->nargs;
}

static LLVMValueRef ap_thunk_info(Cg *cg, int n) {
  if (!cg->ap_thunk_info[n]) {
    cg->ap_thunk_code[n] = cg_new_code_fn(cg, lz_fmt("lz_cg_ap%d_thunk", n));
    cg->ap_thunk_info[n] =
        cg_info_table(cg, lz_fmt("lz_cg_ap%d_thunk_info", n), cg->ap_thunk_code[n], LZ_THUNK, 0, 0,
                      2 + n + cg_prof_thunk_extra(cg), "apply thunk", (LzSpan){0});
  }
  return cg->ap_thunk_info[n];
}

void cg_ap_thunk_bodies(Cg *cg) {
  for (int n = 1; n <= 3; n++) {
    if (!cg->ap_thunk_code[n]) continue;
    CgFn fb, *f = &fb;
    cg_fn_begin(cg, f, cg->ap_thunk_code[n], false);
    LLVMValueRef t = cg_param(f, 2);
    LLVMValueRef fn = cg_load(f, t, 16), a[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n; i++)
      a[i] = cg_load(f, t, 8 * (3 + i));
    LLVMValueRef ccs = cg->opts.prof ? cg_load(f, t, 8 * (3 + n)) : NULL; /* as above */
    claim_thunk(f, t, cg->ap_thunk_info[n], 1 + n); /* the function and its arguments */
    LLVMValueRef frame[2] = {cg_const_ptr_word(cg, cg->rt_update_frame_info, 0), t};
    cg_push(f, frame, 2);
    if (cg->opts.prof) cg_prof_enter_ccs(f, ccs);
    cg_tail_call(f, cg->rt_apply[n], fn, a[0], a[1], a[2]);
    cg_fn_finish(f);
  }
}

/* let (rec) of closures: allocate them all, bind the (tagged) pointers, then fill them, so
 * that recursive closures can point to each other. */
void cg_let_closures(CgFn *f, StgExpr *e) {
  Cg *cg = f->cg;
  int n = e->nbinds;
  LLVMValueRef *addr = LZ_NEW_ARRAY(LLVMValueRef, n);
  int64_t *at = LZ_NEW_ARRAY(int64_t, n); /* byte offset in the let (thunk ids) */
  int64_t bytes = 0;
  for (int i = 0; i < n; i++) {
    StgRhs *rhs = e->binds[i].rhs;
    StgVar *v = e->binds[i].var;
    CgVarInfo *vi = &cg->vars[v->id];
    if (rhs->kind == STG_CON && rhs->nargs == 0) {
      vi->whnf = true;
      cg_bind(f, v,
              cg_const_ptr_word(cg, cg_nullary_closure(cg, rhs->con), cg_con_ptr_tag(rhs->con)));
      continue;
    }
    /* a box's field is unboxed, never one of this group: the box is made here, whole */
    LLVMValueRef box = rhs->kind == STG_CON && rhs->nargs == 1
                           ? build_small_box(f, rhs->con, &rhs->args[0])
                           : NULL;
    if (box) {
      vi->tag = cg_con_ptr_tag(rhs->con);
      vi->whnf = true;
      cg_bind(f, v, box);
      continue;
    }
    int words = closure_words(cg, rhs);
    addr[i] = cg_alloc(f, words);
    at[i] = bytes;
    /* counted without the -prof way's stack word: "excludes profiling overheads" */
    int prof_words = cg_prof_thunk_extra(cg);
    bytes += LZ_GRANULE_BYTES * LZ_WORDS_TO_GRANULES(words - prof_words);
    int tag = rhs->kind == STG_CON ? cg_con_ptr_tag(rhs->con) : rhs->kind == STG_FUN ? 1 : 0;
    vi->tag = tag;
    vi->whnf = tag != 0;
    cg_bind(f, v, tag ? LLVMBuildOr(cg->b, addr[i], cg_word(cg, tag), cg_var_label(v)) : addr[i]);
  }
  LLVMValueRef id_base = NULL; /* the -replay way: Note [Thunk ids] */
  for (int i = 0; i < n; i++) {
    StgRhs *rhs = e->binds[i].rhs;
    if (!addr[i]) continue;
    LLVMValueRef spare = cg_word(cg, 0);
    if (cg->opts.replay && rhs->kind == STG_THUNK) {
      if (!id_base) id_base = replay_thunk_id_base(f, bytes);
      int64_t add = 2 * at[i] + replay_size_bits(closure_words(cg, rhs));
      spare = LLVMBuildAdd(cg->b, id_base, cg_word(cg, add), "thunkid");
    }
    if (rhs->kind == STG_CON) {
      cg_store(f, addr[i], 0, cg_const_ptr_word(cg, cg_con_info(cg, rhs->con), 0));
      for (int j = 0; j < rhs->nargs; j++)
        cg_store(f, addr[i], 8 * (1 + j), cg_atom(f, &rhs->args[j]));
      if (cg->opts.prof) cg_store(f, addr[i], 8 * (1 + rhs->nargs), cg_prof_current(f));
      continue;
    }
    int ap = cg_ap_thunk_arity(rhs);
    if (ap) {
      cg_store(f, addr[i], 0, cg_const_ptr_word(cg, ap_thunk_info(cg, ap), 0));
      cg_store(f, addr[i], 8, spare);
      cg_store(f, addr[i], 16, cg_lookup(f, rhs->body->fn));
      for (int j = 0; j < ap; j++)
        cg_store(f, addr[i], 8 * (3 + j), cg_atom(f, &rhs->body->args[j]));
      if (cg->opts.prof) cg_store(f, addr[i], 8 * (3 + ap), cg_prof_current(f));
      continue;
    }
    cg_closure_code(cg, rhs);
    cg_store(f, addr[i], 0, cg_const_ptr_word(cg, cg->vars[rhs->var->id].info, 0));
    int base = 1;
    if (rhs->kind == STG_THUNK) {
      cg_store(f, addr[i], 8, spare);
      base = 2;
    }
    for (int j = 0; j < rhs->nfvs; j++)
      cg_store(f, addr[i], 8 * (base + j), cg_lookup(f, rhs->fvs[j]));
    if (cg->opts.prof) cg_store(f, addr[i], 8 * (base + rhs->nfvs), cg_prof_current(f));
  }
  if (!id_base) cg_count_alloc(f, bytes); /* else counted with the ids */
}

/* ---- calls ------------------------------------------------------------------------------------
 */

/* Apply frames for arguments args[from..n-1], in chunks of at most 3, last chunk first;
 * appended to words (in stack order: the first word ends up on top). */
static int apply_frames(CgFn *f, StgAtom *args, int from, int n, LLVMValueRef *words) {
  Cg *cg = f->cg;
  int k = 0;
  for (int s = from; s < n; s += 3) {
    int c = n - s < 3 ? n - s : 3;
    words[k++] = cg_const_ptr_word(cg, cg->rt_ap_frame_info[c], 0);
    for (int i = 0; i < c; i++)
      words[k++] = cg_atom(f, &args[s + i]);
  }
  return k;
}

static void generic_apply(CgFn *f, LLVMValueRef fn, StgAtom *args, int nargs) {
  Cg *cg = f->cg;
  if (nargs > 3) {
    LLVMValueRef *words = LZ_NEW_ARRAY(LLVMValueRef, nargs * 2);
    int k = apply_frames(f, args, 3, nargs, words);
    cg_push(f, words, k);
  }
  int m = nargs < 3 ? nargs : 3;
  LLVMValueRef r[3] = {NULL, NULL, NULL};
  for (int i = 0; i < m; i++)
    r[i] = cg_atom(f, &args[i]);
  cg_tail_call(f, cg->rt_apply[m], fn, r[0], r[1], r[2]);
}

/* A call of a known function of arity n with nargs >= n arguments: apply frames for the
 * extra arguments, then arguments 4..n on the stack (4 on top), then a direct jump. */
static void known_call(CgFn *f, StgVar *fnv, StgAtom *args, int nargs) {
  Cg *cg = f->cg;
  StgRhs *rhs = fnv->rhs;
  int n = rhs->arity;
  LLVMValueRef *words = LZ_NEW_ARRAY(LLVMValueRef, nargs * 2 + 1);
  int k = 0;
  for (int i = 3; i < n; i++)
    words[k++] = cg_atom(f, &args[i]);
  k += apply_frames(f, args, n, nargs, words + k);
  cg_push(f, words, k);
  LLVMValueRef r[3] = {NULL, NULL, NULL};
  for (int i = 0; i < n && i < 3; i++)
    r[i] = cg_atom(f, &args[i]);
  cg_tail_call(f, cg_closure_code(cg, rhs), cg_lookup(f, fnv), r[0], r[1], r[2]);
}

/* ---- partial applications of known functions ------------------------------------------------
 * `f a1..am` with m < arity n of a known f builds a function closure of arity n - m holding
 * the m arguments (and f's closure when f is local), whose code calls f's code with all n
 * arguments: a later call of it is an exact call (lz_apply_N's fast path), not the
 * runtime's PAP path. One such code per (f, m). */

static LLVMValueRef pap_info(Cg *cg, StgRhs *rhs, int m) {
  CgVarInfo *vi = &cg->vars[rhs->var->id];
  if (!vi->pap_info) {
    vi->pap_info = LZ_NEW_ARRAY(LLVMValueRef, rhs->arity);
    vi->pap_code = LZ_NEW_ARRAY(LLVMValueRef, rhs->arity);
  }
  if (vi->pap_info[m]) return vi->pap_info[m];
  bool local = !rhs->var->global;
  const char *label = cg_var_label(rhs->var);
  if (local && cg->top) label = lz_fmt("%s.%s", cg->top, label);
  vi->pap_code[m] = cg_new_code_fn(cg, lz_fmt("%s_pap%d", label, m));
  vi->pap_info[m] = cg_info_table(cg, lz_fmt("%s_pap%d_info", label, m), vi->pap_code[m], LZ_FUN,
                                  rhs->arity - m, 0, m + (local ? 1 : 0), label, rhs->span);
  CgJob j = {JOB_PAP, rhs, NULL, cg->top, m};
  LZ_PUSH(cg->jobs, j);
  return vi->pap_info[m];
}

void cg_pap_body(Cg *cg, StgRhs *rhs, int m) {
  CgFn fb, *f = &fb;
  CgVarInfo *vi = &cg->vars[rhs->var->id];
  cg_fn_begin(cg, f, vi->pap_code[m], false);
  int n = rhs->arity, k = n - m;
  bool local = !rhs->var->global;
  LLVMValueRef self = cg_untag(f, cg_param(f, 2));
  LLVMValueRef *all = LZ_NEW_ARRAY(LLVMValueRef, n);
  for (int i = 0; i < k; i++)
    all[m + i] =
        i < 3 ? cg_param(f, 3 + i) : LLVMBuildLoad2(cg->b, cg->t_word, cg_sp_slot(f, i - 3), "");
  if (k > 3) f->sp = cg_sp_slot(f, k - 3);
  int base = local ? 2 : 1;
  LLVMValueRef fnclo = local ? cg_load(f, self, 8) : cg_const_ptr_word(cg, vi->closure, vi->tag);
  for (int i = 0; i < m; i++)
    all[i] = cg_load(f, self, 8 * (base + i));
  if (n > 3) cg_push(f, all + 3, n - 3);
  cg_tail_call(f, cg_closure_code(cg, rhs), fnclo, all[0], n > 1 ? all[1] : NULL,
               n > 2 ? all[2] : NULL);
  cg_fn_finish(f);
}

static LLVMValueRef partial_app(CgFn *f, StgVar *fnv, StgAtom *args, int m) {
  Cg *cg = f->cg;
  bool local = !fnv->global;
  LLVMValueRef info = pap_info(cg, fnv->rhs, m);
  int words = 1 + (local ? 1 : 0) + m;
  LLVMValueRef p = cg_alloc(f, words);
  cg_store(f, p, 0, cg_const_ptr_word(cg, info, 0));
  int base = 1;
  if (local) cg_store(f, p, 8 * base++, cg_lookup(f, fnv));
  for (int i = 0; i < m; i++)
    cg_store(f, p, 8 * (base + i), cg_atom(f, &args[i]));
  cg_count_alloc(f, LZ_GRANULE_BYTES * LZ_WORDS_TO_GRANULES(words));
  return LLVMBuildOr(cg->b, p, cg_word(cg, 1), "pap");
}

/* A jump to a let-no-escape binding: its block in this function (made now if needed),
 * with the arguments (and sp) as phi operands. */
static void jump(CgFn *f, StgVar *j, StgAtom *args, int nargs) {
  Cg *cg = f->cg;
  CgVarInfo *vi = &cg->vars[j->id];
  StgRhs *rhs = j->rhs;
  int arity = rhs->kind == STG_FUN ? rhs->arity : 0;
  if (nargs != arity) {
    cg_error(cg, j->span, "code generation: jump to ‘%s’ with %d arguments (arity %d)",
             cg_var_label(j), nargs, arity);
    LLVMBuildUnreachable(cg->b);
    return;
  }
  LLVMValueRef vals[arity + 1];
  for (int i = 0; i < arity; i++)
    vals[i] = cg_atom(f, &args[i]);
  vals[arity] = f->sp;
  if (vi->lne_stamp != f->stamp) {
    LLVMBasicBlockRef here = LLVMGetInsertBlock(cg->b);
    LLVMValueRef saved_sp = f->sp;
    LLVMBasicBlockRef blk = cg_block(f, cg_var_label(j));
    LLVMPositionBuilderAtEnd(cg->b, blk);
    vi->lne_block = blk;
    vi->lne_stamp = f->stamp;
    vi->lne_phis = LZ_NEW_ARRAY(LLVMValueRef, arity + 1);
    for (int i = 0; i < arity; i++) {
      StgVar *p = rhs->params[i];
      vi->lne_phis[i] =
          LLVMBuildPhi(cg->b, p->rep == STG_D ? cg->t_double : cg->t_word, cg_var_label(p));
      cg_bind(f, p, vi->lne_phis[i]);
    }
    vi->lne_phis[arity] = LLVMBuildPhi(cg->b, cg->t_wordp, "sp");
    f->sp = vi->lne_phis[arity];
    cg_expr(f, rhs->body, vi->lne_ret);
    f->sp = saved_sp;
    LLVMPositionBuilderAtEnd(cg->b, here);
  }
  LLVMBasicBlockRef here = LLVMGetInsertBlock(cg->b);
  for (int i = 0; i <= arity; i++) {
    LLVMValueRef v = vals[i];
    LLVMTypeRef want = LLVMTypeOf(vi->lne_phis[i]);
    if (LLVMTypeOf(v) != want) v = LLVMBuildBitCast(cg->b, v, want, "");
    LLVMAddIncoming(vi->lne_phis[i], &v, &here, 1);
  }
  LLVMBuildBr(cg->b, vi->lne_block);
}

static void app(CgFn *f, StgExpr *e, LLVMValueRef ret) {
  (void)ret;
  StgVar *fn = e->fn;
  if (e->call == STG_CALL_JUMP) {
    jump(f, fn, e->args, e->nargs);
    return;
  }
  if (e->call == STG_CALL_KNOWN && fn->rhs && fn->rhs->kind == STG_FUN && !fn->lne &&
      e->nargs >= fn->rhs->arity) {
    known_call(f, fn, e->args, e->nargs);
    return;
  }
  if (e->call == STG_CALL_KNOWN && fn->rhs && fn->rhs->kind == STG_FUN && !fn->lne &&
      e->nargs > 0) {
    cg_return(f, partial_app(f, fn, e->args, e->nargs), ret);
    return;
  }
  if (e->nargs == 0) { /* not expected: a plain evaluation */
    cg_expr(f, &(StgExpr){.kind = SE_ATOM, .rep = STG_P, .atom = stg_atom_var(fn)}, ret);
    return;
  }
  generic_apply(f, cg_lookup(f, fn), e->args, e->nargs);
}

/* ---- atoms ---------------------------------------------------------------------------------- */

static void atom(CgFn *f, StgAtom *a, LLVMValueRef ret) {
  Cg *cg = f->cg;
  LLVMValueRef v = cg_atom(f, a);
  if (a->kind == SA_LIT || a->var->rep != STG_P || cg_is_whnf(f, a->var)) {
    cg_return(f, v, ret);
    return;
  }
  if (a->var->global) { /* a CAF: enter it (it may have been updated: go through its info) */
    cg_enter(f, v);
    return;
  }
  LLVMBasicBlockRef tagged = cg_block(f, "tagged"), untagged = cg_block(f, "enter");
  LLVMValueRef c = LLVMBuildICmp(cg->b, LLVMIntNE, cg_ptr_tag(f, v), cg_word(cg, 0), "");
  LLVMBuildCondBr(cg->b, c, tagged, untagged);
  LLVMPositionBuilderAtEnd(cg->b, tagged);
  cg_return(f, v, ret);
  LLVMPositionBuilderAtEnd(cg->b, untagged);
  cg_enter(f, v);
}

/* ---- expressions ------------------------------------------------------------------------------
 */

static void expr(CgFn *f, StgExpr *e, LLVMValueRef ret);

/* Code in tail position ends its blocks, so the stack pointer it pushed frames on is of no
 * interest to the code compiled next (a sibling alternative): restore it. Restore the
 * variables it bound, too: the environment is lexically scoped. That matters when a
 * join point's body is compiled into a function that already binds some of the same
 * variables — the continuation of a case inside that very body, where they are the
 * values of the current iteration and the join point's block rebinds them as phis. */
void cg_expr(CgFn *f, StgExpr *e, LLVMValueRef ret) {
  Cg *cg = f->cg;
  LLVMValueRef sp = f->sp;
  int mark = cg->undo.len;
  expr(f, e, ret);
  f->sp = sp;
  while (cg->undo.len > mark) {
    CgUndo u = cg->undo.data[--cg->undo.len];
    u.vi->env = u.env;
    u.vi->env_stamp = u.stamp;
  }
}

static void expr(CgFn *f, StgExpr *e, LLVMValueRef ret) {
  Cg *cg = f->cg;
  for (;;) {
    switch (e->kind) {
    case SE_ATOM: atom(f, &e->atom, ret); return;
    case SE_APP: app(f, e, ret); return;
    case SE_CON: cg_return(f, cg_build_con(f, e->con, e->args, e->nargs), ret); return;
    case SE_PRIMOP: {
      LLVMValueRef v = cg_primop(f, e);
      cg_return(f, v, ret);
      return;
    }
    case SE_CASE: cg_case(f, e, ret); return;
    case SE_LET:
      if (e->lne) {
        for (int i = 0; i < e->nbinds; i++)
          cg->vars[e->binds[i].var->id].lne_ret = ret;
      } else {
        if (!cg_let_speculated(f, e)) cg_let_closures(f, e);
      }
      e = e->body;
      continue;
    case SE_SCC:
      if (cg->opts.prof) { /* a restore frame may be pushed: return through sp[0] */
        cg_prof_scc(f, e);
        ret = NULL;
      }
      e = e->body;
      continue;
    }
    cg_error(cg, e->span, "code generation: unknown STG expression");
    LLVMBuildUnreachable(cg->b);
    return;
  }
}
