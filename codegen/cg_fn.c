/* cg_fn.c — the scaffolding of one generated function and the low-level code every construct
 * is made of: variable environment, loads and stores at byte offsets from a word, stack
 * checks and pushes, tail calls, returns, entering a closure, inline allocation.
 *
 * The idea: a function is an `entry` block followed by the code proper, which starts at
 * `start`. The code is generated first; only then do we know whether it allocates, and
 * cg_fn_finish fills `entry` with the heap check (a test of the capability's yield flag,
 * the only safe point of Note [Back end and runtime ABI]) when it does. The stack pointer is
 * an SSA value that changes only where frames are pushed, which happens just before control
 * leaves the function; so a stack check is emitted right at each push, for exactly the
 * words pushed. The variable environment is one array for the whole program, indexed by
 * StgVar.id and stamped with the number of the function being filled, so switching
 * functions costs nothing.
 */
#include "cg_priv.h"

void cg_fn_begin(Cg *cg, CgFn *f, LLVMValueRef fn, bool is_cont) {
  *f = (CgFn){0};
  f->cg = cg;
  f->fn = fn;
  f->is_cont = is_cont;
  f->stamp = ++cg->stamp;
  cg->undo.len = 0;
  f->entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
  f->start = LLVMAppendBasicBlockInContext(cg->ctx, fn, "start");
  f->cap = LLVMGetParam(fn, 0);
  f->sp = LLVMGetParam(fn, 1);
  LLVMPositionBuilderAtEnd(cg->b, f->start);
}

LLVMValueRef cg_param(CgFn *f, int i) { return LLVMGetParam(f->fn, (unsigned)i); }

/* cap->yield, a volatile load: the runtime sets it from other threads */
LLVMValueRef cg_yield_flag(CgFn *f) {
  Cg *cg = f->cg;
  LLVMValueRef idx = cg_word(cg, offsetof(LzCap, yield));
  LLVMValueRef a = LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, f->cap, &idx, 1, "");
  a = LLVMBuildBitCast(cg->b, a, LLVMPointerType(cg->t_i32, 0), "");
  LLVMValueRef y = LLVMBuildLoad2(cg->b, cg->t_i32, a, "yield");
  LLVMSetVolatile(y, 1);
  return y;
}

void cg_fn_finish(CgFn *f) {
  Cg *cg = f->cg;
  LLVMPositionBuilderAtEnd(cg->b, f->entry);
  if (!f->allocates) {
    LLVMBuildBr(cg->b, f->start);
    return;
  }
  /* heap check: if (cap->yield && lz_yield_check(cap)) tail-call lz_yield_enter /
   * lz_yield_return; when the runtime does not want a switch the code goes on past the check
   * (so a runtime that keeps the flag set, as the replay does, still makes progress) */
  LLVMValueRef c = LLVMBuildICmp(cg->b, LLVMIntNE, cg_yield_flag(f), cg_i32(cg, 0), "");
  LLVMBasicBlockRef yb = LLVMAppendBasicBlockInContext(cg->ctx, f->fn, "yield");
  LLVMValueRef br = LLVMBuildCondBr(cg->b, c, yb, f->start);
  /* the yield path is cold */
  LLVMValueRef w[3] = {LLVMMDStringInContext(cg->ctx, "branch_weights", 14),
                       LLVMConstInt(cg->t_i32, 1, 0), LLVMConstInt(cg->t_i32, 2000, 0)};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(cg->ctx, "prof", 4),
                  LLVMMDNodeInContext(cg->ctx, w, 3));
  LLVMPositionBuilderAtEnd(cg->b, yb);
  LLVMValueRef capp = cg_param(f, 0);
  LLVMValueRef want = LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(cg->rt_yield_check),
                                     cg->rt_yield_check, &capp, 1, "want");
  LLVMBasicBlockRef stop = LLVMAppendBasicBlockInContext(cg->ctx, f->fn, "stop");
  LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, want, cg_i32(cg, 0), ""), stop, f->start);
  LLVMPositionBuilderAtEnd(cg->b, stop);
  LLVMValueRef args[6];
  for (int i = 0; i < 6; i++)
    args[i] = cg_param(f, i);
  LLVMValueRef call = LLVMBuildCall2(
      cg->b, cg->t_code, f->is_cont ? cg->rt_yield_return : cg->rt_yield_enter, args, 6, "");
  LLVMSetTailCall(call, 1);
  LLVMBuildRetVoid(cg->b);
}

/* ---- environment ------------------------------------------------------------------------ */

void cg_bind(CgFn *f, StgVar *v, LLVMValueRef val) {
  CgVarInfo *vi = &f->cg->vars[v->id];
  CgUndo u = {vi, vi->env, vi->env_stamp};
  LZ_PUSH(f->cg->undo, u);
  vi->env = val;
  vi->env_stamp = f->stamp;
}

LLVMValueRef cg_lookup(CgFn *f, StgVar *v) {
  Cg *cg = f->cg;
  CgVarInfo *vi = &cg->vars[v->id];
  if (v->global) {
    if (vi->closure) return cg_const_ptr_word(cg, vi->closure, vi->tag);
    cg_error(cg, v->span, "code generation: no static closure for ‘%s’", cg_var_label(v));
    return LLVMGetUndef(cg->t_word);
  }
  if (vi->env_stamp == f->stamp && vi->env) return vi->env;
  cg_error(cg, v->span, "code generation: variable ‘%s’ is not in scope here", cg_var_label(v));
  return LLVMGetUndef(v->rep == STG_D ? cg->t_double : cg->t_word);
}

LLVMValueRef cg_atom(CgFn *f, const StgAtom *a) {
  Cg *cg = f->cg;
  if (a->kind == SA_VAR) return cg_lookup(f, a->var);
  switch (a->lit.kind) {
  case CL_INT:
  case CL_CHAR: return cg_word(cg, a->lit.i);
  case CL_DOUBLE: return LLVMConstReal(cg->t_double, a->lit.d);
  case CL_STRING: return cg_const_ptr_word(cg, cg_string_global(cg, a->lit.str, a->lit.len), 0);
  case CL_INTEGER: break;
  }
  cg_error(cg, (LzSpan){0}, "code generation: Integer literal in an atom");
  return LLVMGetUndef(cg->t_word);
}

LLVMValueRef cg_to_word(CgFn *f, LLVMValueRef v) {
  if (LLVMTypeOf(v) == f->cg->t_double) return LLVMBuildBitCast(f->cg->b, v, f->cg->t_word, "");
  return v;
}

LLVMValueRef cg_from_word(CgFn *f, LLVMValueRef w, StgRep rep) {
  if (rep == STG_D) return LLVMBuildBitCast(f->cg->b, w, f->cg->t_double, "");
  return w;
}

/* ---- memory -------------------------------------------------------------------------------- */

static LLVMValueRef word_addr(CgFn *f, LLVMValueRef base, int64_t off) {
  Cg *cg = f->cg;
  LLVMValueRef p = LLVMBuildIntToPtr(cg->b, base, cg->t_i8p, "");
  if (off) {
    LLVMValueRef idx = cg_word(cg, off);
    p = LLVMBuildGEP2(cg->b, cg->t_i8, p, &idx, 1, "");
  }
  return LLVMBuildBitCast(cg->b, p, cg->t_wordp, "");
}

LLVMValueRef cg_load(CgFn *f, LLVMValueRef base, int64_t off) {
  return LLVMBuildLoad2(f->cg->b, f->cg->t_word, word_addr(f, base, off), "");
}

LLVMValueRef cg_store(CgFn *f, LLVMValueRef base, int64_t off, LLVMValueRef val) {
  return LLVMBuildStore(f->cg->b, cg_to_word(f, val), word_addr(f, base, off));
}

LLVMValueRef cg_sp_slot(CgFn *f, int64_t i) {
  LLVMValueRef idx = cg_word(f->cg, i);
  return LLVMBuildInBoundsGEP2(f->cg->b, f->cg->t_word, f->sp, &idx, 1, "");
}

static LLVMValueRef cap_field(CgFn *f, size_t off, LLVMTypeRef t) {
  Cg *cg = f->cg;
  LLVMValueRef idx = cg_word(cg, (int64_t)off);
  LLVMValueRef p = LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, f->cap, &idx, 1, "");
  return LLVMBuildBitCast(cg->b, p, LLVMPointerType(t, 0), "");
}

LLVMBasicBlockRef cg_block(CgFn *f, const char *name) {
  return LLVMAppendBasicBlockInContext(f->cg->ctx, f->fn, name);
}

void cg_dead_block(CgFn *f) { LLVMPositionBuilderAtEnd(f->cg->b, cg_block(f, "dead")); }

/* if (sp - need < cap->sp_lim) sp = lz_stack_grow(cap, sp, need) */
void cg_stack_check(CgFn *f, int need) {
  Cg *cg = f->cg;
  if (need <= 0) return;
  LLVMValueRef lim = LLVMBuildLoad2(cg->b, cg->t_wordp,
                                    cap_field(f, offsetof(LzCap, sp_lim), cg->t_wordp), "splim");
  LLVMValueRef want = cg_sp_slot(f, -need);
  LLVMValueRef c = LLVMBuildICmp(cg->b, LLVMIntULT, LLVMBuildPtrToInt(cg->b, want, cg->t_word, ""),
                                 LLVMBuildPtrToInt(cg->b, lim, cg->t_word, ""), "");
  LLVMBasicBlockRef here = LLVMGetInsertBlock(cg->b);
  LLVMBasicBlockRef grow = cg_block(f, "grow"), ok = cg_block(f, "stackok");
  LLVMValueRef br = LLVMBuildCondBr(cg->b, c, grow, ok);
  LLVMValueRef w[3] = {LLVMMDStringInContext(cg->ctx, "branch_weights", 14),
                       LLVMConstInt(cg->t_i32, 1, 0), LLVMConstInt(cg->t_i32, 2000, 0)};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(cg->ctx, "prof", 4),
                  LLVMMDNodeInContext(cg->ctx, w, 3));
  LLVMPositionBuilderAtEnd(cg->b, grow);
  LLVMValueRef args[3] = {f->cap, f->sp, cg_word(cg, need)};
  LLVMValueRef nsp = LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(cg->rt_stack_grow),
                                    cg->rt_stack_grow, args, 3, "");
  LLVMBuildBr(cg->b, ok);
  LLVMPositionBuilderAtEnd(cg->b, ok);
  LLVMValueRef phi = LLVMBuildPhi(cg->b, cg->t_wordp, "sp");
  LLVMValueRef vals[2] = {f->sp, nsp};
  LLVMBasicBlockRef blocks[2] = {here, grow};
  LLVMAddIncoming(phi, vals, blocks, 2);
  f->sp = phi;
}

void cg_push(CgFn *f, LLVMValueRef *words, int n) {
  if (n <= 0) return;
  cg_stack_check(f, n);
  f->sp = cg_sp_slot(f, -n);
  for (int i = 0; i < n; i++)
    LLVMBuildStore(f->cg->b, cg_to_word(f, words[i]), cg_sp_slot(f, i));
}

/* ---- control --------------------------------------------------------------------------------- */

void cg_tail_call(CgFn *f, LLVMValueRef code, LLVMValueRef r1, LLVMValueRef r2, LLVMValueRef r3,
                  LLVMValueRef r4) {
  Cg *cg = f->cg;
  LLVMValueRef u = LLVMGetUndef(cg->t_word);
  LLVMValueRef args[6] = {f->cap,
                          f->sp,
                          r1 ? cg_to_word(f, r1) : u,
                          r2 ? cg_to_word(f, r2) : u,
                          r3 ? cg_to_word(f, r3) : u,
                          r4 ? cg_to_word(f, r4) : u};
  LLVMValueRef call = LLVMBuildCall2(cg->b, cg->t_code, code, args, 6, "");
  LLVMSetTailCall(call, 1);
  LLVMBuildRetVoid(cg->b);
}

static LLVMValueRef load_entry(CgFn *f, LLVMValueRef info_word) {
  Cg *cg = f->cg;
  LLVMValueRef p = LLVMBuildIntToPtr(cg->b, info_word, LLVMPointerType(cg->t_codep, 0), "");
  return LLVMBuildLoad2(cg->b, cg->t_codep, p, "entry");
}

void cg_return(CgFn *f, LLVMValueRef val, LLVMValueRef ret) {
  Cg *cg = f->cg;
  if (ret) {
    cg_tail_call(f, ret, val, NULL, NULL, NULL);
    return;
  }
  LLVMValueRef info = LLVMBuildLoad2(cg->b, cg->t_word, f->sp, "retinfo");
  cg_tail_call(f, load_entry(f, info), val, NULL, NULL, NULL);
}

void cg_enter(CgFn *f, LLVMValueRef closure) {
  LLVMValueRef info = cg_load(f, closure, 0);
  cg_tail_call(f, load_entry(f, info), closure, NULL, NULL, NULL);
}

LLVMValueRef cg_untag(CgFn *f, LLVMValueRef p) {
  return LLVMBuildAnd(f->cg->b, p, cg_word(f->cg, ~(int64_t)LZ_TAG_MASK), "");
}

LLVMValueRef cg_ptr_tag(CgFn *f, LLVMValueRef p) {
  return LLVMBuildAnd(f->cg->b, p, cg_word(f->cg, (int64_t)LZ_TAG_MASK), "tag");
}

/* ---- allocation --------------------------------------------------------------------------------
 * p = cap->fl[g]; if (p) cap->fl[g] = *p;
 * else if ((b = cap->bump[g]) < cap->lim[g]) cap->bump[g] = b + 8 g, p = b - LZ_BUMP_HIDE;
 * else p = lz_alloc_slow(cap, sp, g);  (rts.h) */
static void set_align(Cg *cg, LLVMValueRef load) {
  LLVMMetadataRef a = LLVMValueAsMetadata(cg_word(cg, LZ_GRANULE_BYTES));
  LLVMSetMetadata(load, LLVMGetMDKindIDInContext(cg->ctx, "align", 5),
                  LLVMMetadataAsValue(cg->ctx, LLVMMDNodeInContext2(cg->ctx, &a, 1)));
}

static void set_branch_weights(Cg *cg, LLVMValueRef br, unsigned taken, unsigned not_taken) {
  LLVMValueRef w[3] = {LLVMMDStringInContext(cg->ctx, "branch_weights", 14),
                       LLVMConstInt(cg->t_i32, taken, 0), LLVMConstInt(cg->t_i32, not_taken, 0)};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(cg->ctx, "prof", 4),
                  LLVMMDNodeInContext(cg->ctx, w, 3));
}

LLVMValueRef cg_alloc(CgFn *f, int words) {
  Cg *cg = f->cg;
  f->allocates = true;
  int64_t g = LZ_WORDS_TO_GRANULES(words);
  LLVMTypeRef slow_t = LLVMGlobalGetValueType(cg->rt_alloc_slow);
  LLVMValueRef sargs[3] = {f->cap, f->sp, cg_word(cg, g)};
  if (g > LZ_FL_MAX) {
    LLVMValueRef p = LLVMBuildCall2(cg->b, slow_t, cg->rt_alloc_slow, sargs, 3, "");
    return LLVMBuildPtrToInt(cg->b, p, cg->t_word, "obj");
  }
  /* objects are granule-aligned: the popped pointer says so (!align), and so does
   * lz_alloc_slow's result (the bumped one, an integer, carries no such fact). The
   * free list comes first: a capability allocating from a fresh block has an empty list
   * (one load and a branch), while one allocating from swept blocks pops as it did before
   * the bump. bump and lim are integers (hidden addresses: rts.h) */
  LLVMValueRef slot = cap_field(f, offsetof(LzCap, fl) + 8 * (size_t)g, cg->t_i8p);
  LLVMValueRef p = LLVMBuildLoad2(cg->b, cg->t_i8p, slot, "fl");
  set_align(cg, p);
  LLVMValueRef isnull = LLVMBuildICmp(cg->b, LLVMIntEQ, p, LLVMConstNull(cg->t_i8p), "");
  LLVMBasicBlockRef popped = cg_block(f, "alloc"), nolist = cg_block(f, "nolist"),
                    bumped = cg_block(f, "bump"), slow = cg_block(f, "allocslow"),
                    join = cg_block(f, "allocated");
  set_branch_weights(cg, LLVMBuildCondBr(cg->b, isnull, nolist, popped), 1, 1);
  LLVMPositionBuilderAtEnd(cg->b, popped);
  LLVMValueRef next = LLVMBuildLoad2(
      cg->b, cg->t_i8p, LLVMBuildBitCast(cg->b, p, LLVMPointerType(cg->t_i8p, 0), ""), "");
  LLVMBuildStore(cg->b, next, slot);
  LLVMBuildBr(cg->b, join);
  LLVMPositionBuilderAtEnd(cg->b, nolist);
  LLVMValueRef bslot = cap_field(f, offsetof(LzCap, bump) + 8 * (size_t)g, cg->t_word);
  LLVMValueRef lslot = cap_field(f, offsetof(LzCap, lim) + 8 * (size_t)g, cg->t_word);
  LLVMValueRef b = LLVMBuildLoad2(cg->b, cg->t_word, bslot, "bump");
  LLVMValueRef l = LLVMBuildLoad2(cg->b, cg->t_word, lslot, "lim");
  LLVMValueRef room = LLVMBuildICmp(cg->b, LLVMIntULT, b, l, "");
  set_branch_weights(cg, LLVMBuildCondBr(cg->b, room, bumped, slow), 200, 1);
  LLVMPositionBuilderAtEnd(cg->b, bumped);
  LLVMBuildStore(cg->b, LLVMBuildAdd(cg->b, b, cg_word(cg, g * LZ_GRANULE_BYTES), ""), bslot);
  LLVMValueRef bp = LLVMBuildIntToPtr(
      cg->b, LLVMBuildSub(cg->b, b, cg_word(cg, (int64_t)LZ_BUMP_HIDE), ""), cg->t_i8p, "bumped");
  LLVMBuildBr(cg->b, join);
  LLVMPositionBuilderAtEnd(cg->b, slow);
  LLVMValueRef q = LLVMBuildCall2(cg->b, slow_t, cg->rt_alloc_slow, sargs, 3, "");
  LLVMBuildBr(cg->b, join);
  LLVMPositionBuilderAtEnd(cg->b, join);
  LLVMValueRef phi = LLVMBuildPhi(cg->b, cg->t_i8p, "obj");
  LLVMValueRef vals[3] = {p, bp, q};
  LLVMBasicBlockRef blocks[3] = {popped, bumped, slow};
  LLVMAddIncoming(phi, vals, blocks, 3);
  LLVMValueRef obj = LLVMBuildPtrToInt(cg->b, phi, cg->t_word, "");
  /* free-list objects are not cleared (Note [Uncleared objects], rts/heap.c): the caller
   * writes words 0..words-1, the whole object (a granule is a word: Note [Granules]) */
  return obj;
}

void cg_count_alloc(CgFn *f, int64_t bytes) {
  Cg *cg = f->cg;
  if (bytes <= 0) return;
  LLVMValueRef a = cap_field(f, offsetof(LzCap, alloc_bytes), cg->t_word);
  LLVMValueRef v = LLVMBuildLoad2(cg->b, cg->t_word, a, "");
  LLVMBuildStore(cg->b, LLVMBuildAdd(cg->b, v, cg_word(cg, bytes), ""), a);
}
