/* cg_case.c — `case`: evaluation of the scrutinee, return frames and their continuations,
 * and the selection of an alternative by pointer tag or literal.
 *
 * The idea: a scrutinee that is already a value in this function (a primop result, an
 * unboxed atom, a constructor being built, a variable known to be tagged) is used in place.
 * Any other scrutinee may need to run code, so the case pushes a return frame — the info
 * table of its continuation followed by the variables the alternatives need (computed here:
 * the free variables of the alternatives, where a jump to a join point stands for the join
 * point's free variables) — and compiles the scrutinee with that continuation as its known
 * sequel. A variable scrutinee with a non-zero pointer tag is already evaluated: the code
 * jumps straight to the continuation; an untagged one is entered. The continuation, one LLVM
 * function per case node, reloads the saved variables, pops the frame and selects the
 * alternative: by the low pointer bits for types of up to seven constructors (a tag is the
 * constructor index + 1), by the info table's tag otherwise.
 */
#include "cg_priv.h"

/* ---- live variables of the alternatives ------------------------------------------------------ */

typedef struct Live {
  Cg *cg;
  int *bound, *seen; /* stamps by var id */
  int q;
  LZ_VEC(StgVar *) vars;
} Live;

static void live_use(Live *l, StgVar *v) {
  if (!v || v->global || v->lne) return;
  if (l->bound[v->id] == l->q || l->seen[v->id] == l->q) return;
  l->seen[v->id] = l->q;
  LZ_PUSH(l->vars, v);
}

static void live_atoms(Live *l, StgAtom *a, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].kind == SA_VAR) live_use(l, a[i].var);
}

static void live_bind(Live *l, StgVar *v) {
  if (v) l->bound[v->id] = l->q;
}

/* Pre-order: every binder is visited before its uses, so "bound inside" is known in time. */
static void live_expr(Live *l, StgExpr *e) {
  for (;;) {
    switch (e->kind) {
    case SE_ATOM: live_atoms(l, &e->atom, 1); return;
    case SE_APP:
      if (e->fn->lne) {
        StgRhs *j = e->fn->rhs;
        if (j)
          for (int i = 0; i < j->nfvs; i++)
            live_use(l, j->fvs[i]);
      } else {
        live_use(l, e->fn);
      }
      live_atoms(l, e->args, e->nargs);
      return;
    case SE_CON:
    case SE_PRIMOP: live_atoms(l, e->args, e->nargs); return;
    case SE_CASE:
      live_expr(l, e->scrut);
      live_bind(l, e->binder);
      for (int i = 0; i < e->nalts; i++) {
        StgAlt *a = &e->alts[i];
        if (a->kind == STG_ALT_CON)
          for (int k = 0; k < a->con->arity; k++)
            live_bind(l, a->vars[k]);
      }
      for (int i = 0; i < e->nalts - 1; i++)
        live_expr(l, e->alts[i].rhs);
      if (e->nalts == 0) return;
      e = e->alts[e->nalts - 1].rhs;
      continue;
    case SE_LET:
      for (int i = 0; i < e->nbinds; i++)
        live_bind(l, e->binds[i].var);
      if (!e->lne) {
        for (int i = 0; i < e->nbinds; i++) {
          StgRhs *r = e->binds[i].rhs;
          if (r->kind == STG_CON)
            live_atoms(l, r->args, r->nargs);
          else
            for (int k = 0; k < r->nfvs; k++)
              live_use(l, r->fvs[k]);
        }
      }
      /* LNE right-hand sides count where they are jumped to (through their fvs) */
      e = e->body;
      continue;
    case SE_SCC: e = e->body; continue;
    }
    return;
  }
}

static void compute_live(Cg *cg, StgExpr *kase, CgCont *k) {
  if (!cg->live_bound) {
    cg->live_bound = LZ_NEW_ARRAY(int, cg->nvars + 1);
    cg->live_seen = LZ_NEW_ARRAY(int, cg->nvars + 1);
  }
  Live l = {cg, cg->live_bound, cg->live_seen, ++cg->live_q, {0}};
  live_bind(&l, kase->binder);
  for (int i = 0; i < kase->nalts; i++) {
    StgAlt *a = &kase->alts[i];
    if (a->kind == STG_ALT_CON)
      for (int j = 0; j < a->con->arity; j++)
        live_bind(&l, a->vars[j]);
  }
  for (int i = 0; i < kase->nalts; i++)
    live_expr(&l, kase->alts[i].rhs);
  k->nlive = l.vars.len;
  k->live = LZ_NEW_ARRAY(StgVar *, l.vars.len + 1);
  for (int i = 0; i < l.vars.len; i++)
    k->live[i] = l.vars.data[i];
}

/* Size of an expression in nodes, counting at most `limit` (closure bodies excluded: they
 * are separate functions). */
static int expr_size(StgExpr *e, int limit) {
  int n = 0;
  while (e && n < limit) {
    n++;
    switch (e->kind) {
    case SE_CASE:
      n += expr_size(e->scrut, limit - n);
      for (int i = 0; i + 1 < e->nalts && n < limit; i++)
        n += expr_size(e->alts[i].rhs, limit - n);
      e = e->nalts ? e->alts[e->nalts - 1].rhs : NULL;
      continue;
    case SE_LET:
      n += e->nbinds;
      if (e->lne)
        for (int i = 0; i < e->nbinds && n < limit; i++)
          if (e->binds[i].rhs->body) n += expr_size(e->binds[i].rhs->body, limit - n);
      e = e->body;
      continue;
    case SE_SCC: e = e->body; continue;
    default: return n;
    }
  }
  return n;
}

/* Alternatives of at most this many nodes are compiled twice: in place, where the
 * scrutinee turns out to be tagged, and in the frame's continuation; so a small loop is
 * one function without memory traffic on its fast path. */
enum { CG_INLINE_ALTS = 60 };

/* The continuation of a case node (made once, compiled later from the job list). */
static CgCont *cont_for(Cg *cg, StgExpr *e, LLVMValueRef ret) {
  CgCont *k = cg_map_get(&cg->conts, e);
  if (k) return k;
  k = LZ_NEW(CgCont);
  k->kase = e;
  k->ret = ret;
  compute_live(cg, e, k);
  const char *name = lz_fmt("%s%scase_%s", cg->top ? cg->top : "", cg->top ? "." : "",
                            e->binder ? cg_var_label(e->binder) : "k");
  k->fn = cg_new_code_fn(cg, name);
  /* a separate entry for the alternatives only where a tagged scrutinee can jump to them */
  if (e->scrut->kind == SE_ATOM && e->scrut->atom.kind == SA_VAR && !e->scrut->atom.var->global) {
    int size = 0;
    for (int i = 0; i < e->nalts && size <= CG_INLINE_ALTS; i++)
      size += expr_size(e->alts[i].rhs, CG_INLINE_ALTS + 1);
    if (size <= CG_INLINE_ALTS)
      k->inline_alts = true;
    else
      k->fast = cg_new_code_fn(cg, lz_fmt("%s_alts", name));
  }
  k->info = cg_info_table(cg, lz_fmt("%s_info", name), k->fn, LZ_FRAME_RET, 0, 0, k->nlive, NULL,
                          e->span);
  cg_map_put(&cg->conts, e, k);
  CgJob j = {JOB_CONT, NULL, k, cg->top, 0};
  LZ_PUSH(cg->jobs, j);
  return k;
}

/* The alternatives (k->fast), then the frame's continuation (k->fn): reload the first three
 * saved values, pop the frame down to the rest, jump to the alternatives. */
void cg_cont_body(Cg *cg, CgCont *k) {
  CgFn fb, *f = &fb;
  StgExpr *e = k->kase;
  StgRep rep = e->binder ? e->binder->rep : e->scrut->rep;
  if (!k->fast) { /* the frame's continuation runs the alternatives itself */
    cg_fn_begin(cg, f, k->fn, true);
    for (int i = 0; i < k->nlive; i++) {
      LLVMValueRef w = LLVMBuildLoad2(cg->b, cg->t_word, cg_sp_slot(f, 1 + i), "");
      cg_bind(f, k->live[i], cg_from_word(f, w, k->live[i]->rep));
    }
    f->sp = cg_sp_slot(f, 1 + k->nlive);
    cg_alts(f, e, cg_from_word(f, cg_param(f, 2), rep), k->ret);
    cg_fn_finish(f);
    return;
  }
  cg_fn_begin(cg, f, k->fast, true);
  for (int i = 0; i < k->nlive; i++) {
    LLVMValueRef w =
        i < 3 ? cg_param(f, 3 + i) : LLVMBuildLoad2(cg->b, cg->t_word, cg_sp_slot(f, i - 3), "");
    cg_bind(f, k->live[i], cg_from_word(f, w, k->live[i]->rep));
  }
  if (k->nlive > 3) f->sp = cg_sp_slot(f, k->nlive - 3);
  cg_alts(f, e, cg_from_word(f, cg_param(f, 2), rep), k->ret);
  bool allocates = f->allocates;
  f->allocates = false; /* the heap check is made by the frame continuation */
  cg_fn_finish(f);

  cg_fn_begin(cg, f, k->fn, true);
  LLVMValueRef r[3] = {NULL, NULL, NULL};
  int inreg = k->nlive < 3 ? k->nlive : 3;
  for (int i = 0; i < inreg; i++)
    r[i] = LLVMBuildLoad2(cg->b, cg->t_word, cg_sp_slot(f, 1 + i), "");
  f->sp = cg_sp_slot(f, 1 + inreg);
  cg_tail_call(f, k->fast, cg_param(f, 2), r[0], r[1], r[2]);
  f->allocates = allocates;
  cg_fn_finish(f);
}

/* ---- alternatives
 * --------------------------------------------------------------------------------- */

static void bind_fields(CgFn *f, StgAlt *a, LLVMValueRef v) {
  int tag = cg_con_ptr_tag(a->con);
  for (int i = 0; i < a->con->arity; i++) {
    StgVar *x = a->vars[i];
    if (!x || x->uses == 0) continue;
    cg_bind(f, x, cg_from_word(f, cg_load(f, v, 8 * (1 + i) - tag), x->rep));
  }
}

static StgAlt *default_alt(StgExpr *e) {
  if (e->nalts > 0 && e->alts[e->nalts - 1].kind == STG_ALT_DEFAULT) return &e->alts[e->nalts - 1];
  return NULL;
}

static void alg_alts(CgFn *f, StgExpr *e, LLVMValueRef v, LLVMValueRef ret) {
  Cg *cg = f->cg;
  StgAlt *def = default_alt(e);
  int ncons = e->tycon ? e->tycon->ncons : 0;
  int ncon_alts = e->nalts - (def ? 1 : 0);
  if (ncon_alts == 0) {
    if (def)
      cg_expr(f, def->rhs, ret);
    else
      LLVMBuildUnreachable(cg->b);
    return;
  }
  if (ncons <= 1 || (ncon_alts == 1 && !def)) { /* only one possibility */
    bind_fields(f, &e->alts[0], v);
    cg_expr(f, e->alts[0].rhs, ret);
    return;
  }
  LLVMValueRef d;
  bool by_tag = ncons <= 7;
  if (by_tag) {
    d = cg_ptr_tag(f, v);
  } else {
    LLVMValueRef info = cg_load(f, cg_untag(f, v), 0);
    LLVMValueRef p = LLVMBuildIntToPtr(cg->b, info, cg->t_i8p, "");
    LLVMValueRef idx = cg_word(cg, offsetof(LzInfo, tag));
    p = LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, p, &idx, 1, "");
    p = LLVMBuildBitCast(cg->b, p, LLVMPointerType(cg->t_i32, 0), "");
    d = LLVMBuildZExt(cg->b, LLVMBuildLoad2(cg->b, cg->t_i32, p, "contag"), cg->t_word, "");
  }
  LLVMBasicBlockRef dblk = cg_block(f, def ? "default" : "nomatch");
  LLVMValueRef sw = LLVMBuildSwitch(cg->b, d, dblk, (unsigned)ncon_alts);
  for (int i = 0; i < ncon_alts; i++) {
    StgAlt *a = &e->alts[i];
    LLVMBasicBlockRef blk = cg_block(f, a->con->name);
    LLVMAddCase(sw, cg_word(cg, by_tag ? a->con->tag + 1 : a->con->tag), blk);
    LLVMPositionBuilderAtEnd(cg->b, blk);
    bind_fields(f, a, v);
    cg_expr(f, a->rhs, ret);
  }
  LLVMPositionBuilderAtEnd(cg->b, dblk);
  if (def)
    cg_expr(f, def->rhs, ret);
  else
    LLVMBuildUnreachable(cg->b);
}

static void tail_alt(CgFn *f, StgExpr *rhs, void *ret);

static void prim_alts(CgFn *f, StgExpr *e, LLVMValueRef v, LLVMValueRef ret) {
  Cg *cg = f->cg;
  StgAlt *def = default_alt(e);
  int nlit = e->nalts - (def ? 1 : 0);
  if (LLVMTypeOf(v) == cg->t_double) { /* a chain of comparisons */
    for (int i = 0; i < nlit; i++) {
      LLVMValueRef c =
          LLVMBuildFCmp(cg->b, LLVMRealOEQ, v, LLVMConstReal(cg->t_double, e->alts[i].lit.d), "");
      LLVMBasicBlockRef yes = cg_block(f, "lit"), no = cg_block(f, "next");
      LLVMBuildCondBr(cg->b, c, yes, no);
      LLVMPositionBuilderAtEnd(cg->b, yes);
      cg_expr(f, e->alts[i].rhs, ret);
      LLVMPositionBuilderAtEnd(cg->b, no);
    }
    if (def)
      cg_expr(f, def->rhs, ret);
    else
      LLVMBuildUnreachable(cg->b);
    return;
  }
  cg_lit_switch(f, e, v, tail_alt, ret);
}

static void tail_alt(CgFn *f, StgExpr *rhs, void *ret) { cg_expr(f, rhs, ret); }

void cg_lit_switch(CgFn *f, StgExpr *e, LLVMValueRef v, CgAltFn *alt, void *ctx) {
  Cg *cg = f->cg;
  StgAlt *def = default_alt(e);
  int nlit = e->nalts - (def ? 1 : 0);
  if (nlit > 0) {
    LLVMBasicBlockRef dblk = cg_block(f, def ? "default" : "nomatch");
    LLVMValueRef sw = LLVMBuildSwitch(cg->b, v, dblk, (unsigned)nlit);
    for (int i = 0; i < nlit; i++) {
      LLVMBasicBlockRef blk = cg_block(f, "lit");
      LLVMAddCase(sw, cg_word(cg, e->alts[i].lit.i), blk);
      LLVMPositionBuilderAtEnd(cg->b, blk);
      alt(f, e->alts[i].rhs, ctx);
    }
    LLVMPositionBuilderAtEnd(cg->b, dblk);
  }
  if (def)
    alt(f, def->rhs, ctx);
  else
    LLVMBuildUnreachable(cg->b);
}

void cg_alts(CgFn *f, StgExpr *e, LLVMValueRef v, LLVMValueRef ret) {
  Cg *cg = f->cg;
  if (e->binder) {
    if (e->alts_type != STG_ALTS_PRIM) cg->vars[e->binder->id].whnf = true;
    cg_bind(f, e->binder, v);
  }
  switch (e->alts_type) {
  case STG_ALTS_ALG: alg_alts(f, e, v, ret); return;
  case STG_ALTS_PRIM: prim_alts(f, e, v, ret); return;
  case STG_ALTS_POLY:
    if (e->nalts > 0)
      cg_expr(f, e->alts[e->nalts - 1].rhs, ret);
    else
      LLVMBuildUnreachable(cg->b);
    return;
  }
}

/* ---- the case expression
 * ------------------------------------------------------------------------- */

void cg_case(CgFn *f, StgExpr *e, LLVMValueRef ret) {
  Cg *cg = f->cg;
  StgExpr *s = e->scrut;
  /* scrutinees that are values here */
  if (s->kind == SE_PRIMOP) {
    cg_alts(f, e, cg_primop(f, s), ret);
    return;
  }
  if (s->kind == SE_CON) {
    cg_alts(f, e, cg_build_con(f, s->con, s->args, s->nargs), ret);
    return;
  }
  if (s->kind == SE_ATOM &&
      (s->atom.kind == SA_LIT || s->atom.var->rep != STG_P || cg_is_whnf(f, s->atom.var))) {
    cg_alts(f, e, cg_atom(f, &s->atom), ret);
    return;
  }
  CgCont *k = cont_for(cg, e, ret);
  LLVMValueRef *words = LZ_NEW_ARRAY(LLVMValueRef, k->nlive + 1);
  words[0] = cg_const_ptr_word(cg, k->info, 0);
  for (int i = 0; i < k->nlive; i++)
    words[i + 1] = cg_lookup(f, k->live[i]);
  if (s->kind == SE_ATOM && !s->atom.var->global) {
    /* tagged, or an indirection to a value (an updated thunk): the alternatives in
     * place, or a jump to them with the live values in registers (the 4th and later on
     * the stack); otherwise push the frame and enter */
    LLVMValueRef v0 = cg_lookup(f, s->atom.var);
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(cg->b);
    LLVMBasicBlockRef tagged = cg_block(f, "evald"), untagged = cg_block(f, "untagged"),
                      ind = cg_block(f, "ind"), untagged2 = cg_block(f, "eval");
    LLVMValueRef c = LLVMBuildICmp(cg->b, LLVMIntNE, cg_ptr_tag(f, v0), cg_word(cg, 0), "");
    LLVMBuildCondBr(cg->b, c, tagged, untagged);
    LLVMValueRef sp = f->sp;
    LLVMPositionBuilderAtEnd(cg->b, untagged);
    LLVMValueRef info = cg_load(f, v0, 0);
    LLVMValueRef is_ind =
        LLVMBuildICmp(cg->b, LLVMIntEQ, info, cg_const_ptr_word(cg, cg->rt_ind_info, 0), "");
    LLVMBuildCondBr(cg->b, is_ind, ind, untagged2);
    LLVMPositionBuilderAtEnd(cg->b, ind);
    /* -replay, a stop pending: enter the IND, where replay may stop (lz_rpl_stop_at_ind) */
    if (cg->opts.replay) {
      LLVMBasicBlockRef go = cg_block(f, "indgo");
      LLVMValueRef calm = LLVMBuildICmp(cg->b, LLVMIntEQ, cg_yield_flag(f), cg_i32(cg, 0), "");
      LLVMBuildCondBr(cg->b, calm, go, untagged2);
      LLVMPositionBuilderAtEnd(cg->b, go);
      ind = go; /* the phi's predecessor */
    }
    LLVMValueRef v1 = cg_load(f, v0, 8);
    LLVMBuildBr(cg->b, tagged);
    LLVMPositionBuilderAtEnd(cg->b, untagged2);
    LLVMValueRef v2 = NULL;
    LLVMBasicBlockRef con = NULL;
    if (!cg->opts.replay && !cg->opts.prof) {
      /* a thunk updated in place (Note [Updating in place], docs/notes/threaded-rts.md):
         a constructor reached through an untagged pointer; tag it from its info table */
      con = cg_block(f, "inplace");
      LLVMBasicBlockRef enter = cg_block(f, "enter");
      LLVMValueRef w = cg_load(f, info, 8); /* type (16 bits), arity (16), tag (32) */
      LLVMValueRef is_con =
          LLVMBuildICmp(cg->b, LLVMIntEQ, LLVMBuildAnd(cg->b, w, cg_word(cg, 0xffffffff), ""),
                        cg_word(cg, LZ_CON), "");
      LLVMBuildCondBr(cg->b, is_con, con, enter);
      LLVMPositionBuilderAtEnd(cg->b, con);
      LLVMValueRef t1 =
          LLVMBuildAdd(cg->b, LLVMBuildLShr(cg->b, w, cg_word(cg, 32), ""), cg_word(cg, 1), "");
      LLVMValueRef big = LLVMBuildICmp(cg->b, LLVMIntUGT, t1, cg_word(cg, LZ_TAG_MASK), "");
      v2 =
          LLVMBuildOr(cg->b, v0, LLVMBuildSelect(cg->b, big, cg_word(cg, LZ_TAG_MASK), t1, ""), "");
      LLVMBuildBr(cg->b, tagged);
      LLVMPositionBuilderAtEnd(cg->b, enter);
    }
    cg_push(f, words, k->nlive + 1);
    cg_enter(f, v0);
    f->sp = sp;
    LLVMPositionBuilderAtEnd(cg->b, tagged);
    LLVMValueRef v = LLVMBuildPhi(cg->b, cg->t_word, "whnf");
    LLVMValueRef vals[3] = {v0, v1, v2};
    LLVMBasicBlockRef blocks[3] = {entry, ind, con};
    LLVMAddIncoming(v, vals, blocks, con ? 3 : 2);
    if (k->inline_alts) {
      cg_alts(f, e, v, ret);
      return;
    }
    if (k->nlive > 3) cg_push(f, words + 4, k->nlive - 3);
    /* the alternatives have no heap check of their own (their registers are not an
     * entry's): make this function a safe point, so a loop through them has one */
    f->allocates = true;
    cg_tail_call(f, k->fast, v, k->nlive > 0 ? words[1] : NULL, k->nlive > 1 ? words[2] : NULL,
                 k->nlive > 2 ? words[3] : NULL);
    f->sp = sp;
    return;
  }
  /* push the return frame, then evaluate the scrutinee with it as the sequel */
  cg_push(f, words, k->nlive + 1);
  cg_expr(f, s, k->fn);
}
