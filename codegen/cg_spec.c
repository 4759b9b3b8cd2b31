/* cg_spec.c — Note [Cheap thunk speculation] (docs/notes/backend.md):
 * `let x = \u [..] -> case v of K a.. -> e` where v is a free variable of a one-constructor
 * type and e is cheap and cannot fail or diverge (cases on pure arithmetic primops, lets of
 * constructors, constructors, variables): if v is tagged (already a value) when the let
 * runs, e is computed in place and x bound to its result, else the thunk is built. The
 * decision depends on this thread's code path only, so a replay takes it as its recording
 * did; -prof keeps the thunk (its cost attribution).
 */
#include <stdlib.h>

#include "cg_priv.h"

enum { SPEC_MAX_NODES = 12, SPEC_MAX_CONS = 4 };

static bool spec_primop(int op) {
  switch (op) {
  case P_INT_ADD:
  case P_INT_SUB:
  case P_INT_MUL:
  case P_INT_NEGATE:
  case P_INT_EQ:
  case P_INT_NE:
  case P_INT_LT:
  case P_INT_LE:
  case P_INT_GT:
  case P_INT_GE:
  case P_INT_AND:
  case P_INT_OR:
  case P_INT_XOR:
  case P_INT_NOT:
  case P_CHR:
  case P_ORD: return core_primops[op].flags == PRIM_PURE;
  default: return false;
  }
}

static bool spec_atom_ok(const StgAtom *a) { return a->kind == SA_LIT || !a->var->lne; }

/* e (of rep P) is in the speculable language; *nodes and *cons count down the budget. */
static bool spec_ok(const StgExpr *e, int *nodes, int *cons) {
  if (--*nodes < 0) return false;
  switch (e->kind) {
  case SE_ATOM: return e->atom.kind == SA_VAR && e->atom.var->rep == STG_P && !e->atom.var->lne;
  case SE_CON:
    if (--*cons < 0) return false;
    for (int i = 0; i < e->nargs; i++)
      if (!spec_atom_ok(&e->args[i])) return false;
    return true;
  case SE_LET:
    if (e->lne || e->rec) return false;
    for (int i = 0; i < e->nbinds; i++) {
      const StgRhs *r = e->binds[i].rhs;
      if (r->kind != STG_CON || --*cons < 0) return false;
      for (int j = 0; j < r->nargs; j++)
        if (!spec_atom_ok(&r->args[j])) return false;
    }
    return spec_ok(e->body, nodes, cons);
  case SE_CASE: {
    const StgExpr *s = e->scrut;
    if (e->alts_type != STG_ALTS_PRIM || s->rep != STG_I) return false;
    if (s->kind == SE_PRIMOP) {
      if (!spec_primop(s->primop)) return false;
      for (int i = 0; i < s->nargs; i++)
        if (!spec_atom_ok(&s->args[i]) || stg_atom_rep(&s->args[i]) != STG_I) return false;
    } else if (s->kind != SE_ATOM || (s->atom.kind == SA_VAR && s->atom.var->lne)) {
      return false;
    }
    for (int i = 0; i < e->nalts; i++)
      if (!spec_ok(e->alts[i].rhs, nodes, cons)) return false;
    return true;
  }
  default: return false;
  }
}

/* The free variable the thunk's body scrutinises, if the let is one speculable thunk. */
static StgVar *spec_thunk_var(Cg *cg, const StgExpr *e) {
  if (cg->opts.prof || e->rec || e->nbinds != 1) return NULL;
  const StgRhs *r = e->binds[0].rhs;
  if (r->kind != STG_THUNK || r->lne || r->var->global || !r->body || cg_ap_thunk_arity(r))
    return NULL;
  const StgExpr *b = r->body;
  if (b->kind != SE_CASE || b->alts_type != STG_ALTS_ALG || !b->tycon || b->tycon->ncons != 1 ||
      b->nalts != 1 || b->scrut->kind != SE_ATOM || b->scrut->atom.kind != SA_VAR)
    return NULL;
  StgVar *v = b->scrut->atom.var;
  if (v->rep != STG_P || v->global || v->lne) return NULL;
  int nodes = SPEC_MAX_NODES, cons = SPEC_MAX_CONS;
  if (!spec_ok(b->alts[0].rhs, &nodes, &cons)) return NULL;
  return getenv("LZ_CG_NO_SPEC") ? NULL : v; /* the knob is for measuring */
}

typedef struct {
  LLVMBasicBlockRef join;
  LLVMValueRef vals[SPEC_MAX_NODES + 2];
  LLVMBasicBlockRef blocks[SPEC_MAX_NODES + 2];
  int n;
} SpecJoin;

static void spec_result(CgFn *f, SpecJoin *j, LLVMValueRef v) {
  Cg *cg = f->cg;
  if (LLVMTypeOf(v) != cg->t_word) v = LLVMBuildBitCast(cg->b, v, cg->t_word, "");
  j->vals[j->n] = v;
  j->blocks[j->n++] = LLVMGetInsertBlock(cg->b);
  LLVMBuildBr(cg->b, j->join);
}

static void spec_value(CgFn *f, StgExpr *e, SpecJoin *j);
static void spec_alt(CgFn *f, StgExpr *rhs, void *j) { spec_value(f, rhs, j); }

/* Compile e (spec_ok) to a value that flows into j's phi. */
static void spec_value(CgFn *f, StgExpr *e, SpecJoin *j) {
  Cg *cg = f->cg;
  switch (e->kind) {
  case SE_ATOM: spec_result(f, j, cg_atom(f, &e->atom)); return;
  case SE_CON: spec_result(f, j, cg_build_con(f, e->con, e->args, e->nargs)); return;
  case SE_LET:
    cg_let_closures(f, e);
    spec_value(f, e->body, j);
    return;
  case SE_CASE: {
    LLVMValueRef v =
        e->scrut->kind == SE_PRIMOP ? cg_primop(f, e->scrut) : cg_atom(f, &e->scrut->atom);
    if (e->binder) cg_bind(f, e->binder, v);
    cg_lit_switch(f, e, v, spec_alt, j);
    return;
  }
  default:
    LLVMBuildUnreachable(cg->b); /* not spec_ok */
    return;
  }
}

bool cg_let_speculated(CgFn *f, StgExpr *e) {
  Cg *cg = f->cg;
  StgVar *v = spec_thunk_var(cg, e);
  if (!v) return false;
  StgVar *x = e->binds[0].var;
  StgExpr *body = e->binds[0].rhs->body;
  SpecJoin j = {.join = cg_block(f, "specd"), .n = 0};
  LLVMBasicBlockRef spec = cg_block(f, "spec"), thunk = cg_block(f, "thunk");
  LLVMValueRef v0 = cg_lookup(f, v);
  LLVMValueRef c = LLVMBuildICmp(cg->b, LLVMIntNE, cg_ptr_tag(f, v0), cg_word(cg, 0), "");
  LLVMBuildCondBr(cg->b, c, spec, thunk);
  LLVMPositionBuilderAtEnd(cg->b, thunk);
  cg_let_closures(f, e);
  spec_result(f, &j, cg_lookup(f, x));
  LLVMPositionBuilderAtEnd(cg->b, spec); /* v is a value: the one alternative in place */
  if (body->binder) {
    cg->vars[body->binder->id].whnf = true;
    cg_bind(f, body->binder, v0);
  }
  StgAlt *a = &body->alts[0];
  if (a->kind == STG_ALT_CON) {
    int tag = cg_con_ptr_tag(a->con);
    for (int i = 0; i < a->con->arity; i++) {
      StgVar *y = a->vars[i];
      if (!y || y->uses == 0) continue;
      cg_bind(f, y, cg_from_word(f, cg_load(f, v0, 8 * (1 + i) - tag), y->rep));
    }
  }
  spec_value(f, a->rhs, &j);
  LLVMPositionBuilderAtEnd(cg->b, j.join);
  LLVMValueRef phi = LLVMBuildPhi(cg->b, cg->t_word, cg_var_label(x));
  LLVMAddIncoming(phi, j.vals, j.blocks, (unsigned)j.n);
  cg->vars[x->id].whnf = false; /* a value, a thunk, or any variable the body returned */
  cg->vars[x->id].tag = 0;
  cg_bind(f, x, phi);
  return true;
}
