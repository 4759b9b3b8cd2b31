/* cg_top.c — the program level: which top-level bindings are needed, their static closures
 * (constructors, functions, CAFs, small Integer literals), the job list that compiles every
 * closure entry and case continuation once, and the export of `main` as lz_main_closure.
 *
 * The idea: the whole program, stdlib included, is one STG program, but a given program uses
 * a small part of the stdlib; so only the bindings reachable from `main` are generated (a
 * walk over the global references of each needed right-hand side). All static closures are
 * declared before any initialiser or code refers to them, because top-level bindings refer
 * to each other in any order. Code is then generated from a job list — a closure or
 * continuation is queued when first referenced — so compiling one function never recurses
 * into another.
 */
#include <string.h>

#include "cg_priv.h"

/* ---- reachability ------------------------------------------------------------------------- */

typedef struct Reach {
  Cg *cg;
  LZ_VEC(StgVar *) work;
} Reach;

static void reach_var(Reach *r, StgVar *v) {
  if (!v || !v->global) return;
  CgVarInfo *vi = &r->cg->vars[v->id];
  if (vi->reachable) return;
  vi->reachable = true;
  LZ_PUSH(r->work, v);
}

static void reach_atoms(Reach *r, StgAtom *a, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].kind == SA_VAR) reach_var(r, a[i].var);
}

static void reach_expr(Reach *r, StgExpr *e);

static void reach_rhs(Reach *r, StgRhs *rhs) {
  if (rhs->kind == STG_CON)
    reach_atoms(r, rhs->args, rhs->nargs);
  else if (rhs->body)
    reach_expr(r, rhs->body);
}

static void reach_expr(Reach *r, StgExpr *e) {
  for (;;) {
    switch (e->kind) {
    case SE_ATOM: reach_atoms(r, &e->atom, 1); return;
    case SE_APP:
      reach_var(r, e->fn);
      reach_atoms(r, e->args, e->nargs);
      return;
    case SE_CON:
    case SE_PRIMOP: reach_atoms(r, e->args, e->nargs); return;
    case SE_CASE:
      reach_expr(r, e->scrut);
      for (int i = 0; i < e->nalts - 1; i++)
        reach_expr(r, e->alts[i].rhs);
      if (e->nalts == 0) return;
      e = e->alts[e->nalts - 1].rhs;
      continue;
    case SE_LET:
      for (int i = 0; i < e->nbinds; i++)
        reach_rhs(r, e->binds[i].rhs);
      e = e->body;
      continue;
    case SE_SCC: e = e->body; continue;
    }
    return;
  }
}

static void compute_reachable(Cg *cg) {
  const StgProgram *p = cg->prog;
  Reach r = {cg, {0}};
  if (cg->opts.all_bindings) {
    for (int i = 0; i < p->binds.len; i++)
      reach_var(&r, p->binds.data[i].var);
  } else {
    reach_var(&r, p->main);
  }
  while (r.work.len > 0) {
    StgVar *v = r.work.data[--r.work.len];
    if (v->rhs) reach_rhs(&r, v->rhs);
  }
}

/* ---- static closures ------------------------------------------------------------------------ */

static bool is_small_integer(const StgRhs *rhs) {
  return rhs->kind == STG_THUNK && rhs->integer && rhs->integer->kind == CL_INTEGER &&
         rhs->integer->fits;
}

static int static_words(const StgRhs *rhs) {
  if (rhs->kind == STG_CON) return 1 + rhs->nargs;
  if (rhs->kind == STG_FUN) return 1;
  return 2; /* CAF: info, spare; small Integer: info, value */
}

static void declare_static(Cg *cg, StgBind *b, bool is_main) {
  CgVarInfo *vi = &cg->vars[b->var->id];
  StgRhs *rhs = b->rhs;
  LLVMTypeRef t = LLVMArrayType(cg->t_word, (unsigned)static_words(rhs));
  const char *name = is_main ? "lz_main_closure" : lz_fmt("%s_closure", cg_var_label(b->var));
  vi->closure = LLVMAddGlobal(cg->mod, t, name);
  LLVMSetLinkage(vi->closure, is_main ? LLVMExternalLinkage : LLVMInternalLinkage);
  LLVMSetAlignment(vi->closure, 16);
  if (rhs->kind == STG_CON)
    vi->tag = cg_con_ptr_tag(rhs->con);
  else if (rhs->kind == STG_FUN || is_small_integer(rhs))
    vi->tag = 1;
  else
    vi->tag = 0;
  vi->whnf = vi->tag != 0;
}

static LLVMValueRef const_atom(Cg *cg, const StgAtom *a) {
  if (a->kind == SA_VAR) {
    CgVarInfo *vi = &cg->vars[a->var->id];
    if (a->var->global && vi->closure) return cg_const_ptr_word(cg, vi->closure, vi->tag);
    cg_error(cg, a->var->span, "code generation: static closure refers to ‘%s’",
             cg_var_label(a->var));
    return LLVMConstNull(cg->t_word);
  }
  switch (a->lit.kind) {
  case CL_INT:
  case CL_CHAR: return cg_word(cg, a->lit.i);
  case CL_DOUBLE: return LLVMConstBitCast(LLVMConstReal(cg->t_double, a->lit.d), cg->t_word);
  case CL_STRING: return cg_const_ptr_word(cg, cg_string_global(cg, a->lit.str, a->lit.len), 0);
  case CL_INTEGER: break;
  }
  cg_error(cg, (LzSpan){0}, "code generation: Integer literal in a static constructor");
  return LLVMConstNull(cg->t_word);
}

static void define_static(Cg *cg, StgBind *b) {
  CgVarInfo *vi = &cg->vars[b->var->id];
  StgRhs *rhs = b->rhs;
  int n = static_words(rhs);
  LLVMValueRef *w = LZ_NEW_ARRAY(LLVMValueRef, n);
  if (rhs->kind == STG_CON) {
    w[0] = cg_const_ptr_word(cg, cg_con_info(cg, rhs->con), 0);
    for (int i = 0; i < rhs->nargs; i++)
      w[1 + i] = const_atom(cg, &rhs->args[i]);
  } else if (is_small_integer(rhs)) {
    w[0] = cg_const_ptr_word(cg, cg->rt_integer_small_info, 0);
    w[1] = cg_word(cg, rhs->integer->i);
  } else {
    cg_closure_code(cg, rhs);
    w[0] = cg_const_ptr_word(cg, vi->info, 0);
    if (rhs->kind == STG_THUNK) w[1] = cg_word(cg, 0); /* the spare word */
  }
  /* static closures stay writable: CAFs are updated in place, and `main` is a plain data
   * symbol whatever it is bound to */
  LLVMSetInitializer(vi->closure, LLVMConstArray(cg->t_word, w, (unsigned)n));
}

/* ---- the driver of generation -------------------------------------------------------------------
 */

static void run_jobs(Cg *cg) {
  for (int i = 0; i < cg->jobs.len; i++) {
    CgJob j = cg->jobs.data[i];
    cg->top = j.top;
    if (j.kind == JOB_CLOSURE)
      cg_closure_body(cg, j.rhs);
    else if (j.kind == JOB_PAP)
      cg_pap_body(cg, j.rhs, j.m);
    else
      cg_cont_body(cg, j.cont);
  }
}

CgModule *cg_generate(const StgProgram *p, const CgOptions *o) {
  Cg *cg = LZ_NEW(Cg);
  cg->prog = p;
  cg->opts = *o;
  if (!p->main && !o->all_bindings) {
    lz_error((LzSpan){0}, "The IO action ‘main’ is not defined in module ‘Main’");
    return NULL;
  }
  cg->ctx = LLVMContextCreate();
  cg->mod = LLVMModuleCreateWithNameInContext(o->module_name ? o->module_name : "lz", cg->ctx);
  cg->b = LLVMCreateBuilderInContext(cg->ctx);
  cg->nvars = p->nvars;
  cg->vars = LZ_NEW_ARRAY(CgVarInfo, p->nvars + 1);
  cg_init_module(cg);
  cg_target_setup(cg);

  compute_reachable(cg);
  for (int i = 0; i < p->binds.len; i++) {
    StgBind *b = &p->binds.data[i];
    if (cg->vars[b->var->id].reachable) declare_static(cg, b, b->var == p->main);
  }
  if (p->main && !cg->vars[p->main->id].closure) {
    lz_error(p->main->span, "code generation: ‘main’ has no top-level binding");
    cg->nerrors++;
  }
  for (int i = 0; i < p->binds.len && cg->nerrors == 0; i++) {
    StgBind *b = &p->binds.data[i];
    if (cg->vars[b->var->id].reachable) define_static(cg, b);
  }
  if (cg->nerrors == 0) run_jobs(cg);
  if (cg->nerrors == 0) cg_ap_thunk_bodies(cg);
  if (cg->nerrors == 0) cg_srcloc_emit(cg);
  if (cg->b) LLVMDisposeBuilder(cg->b);
  cg->b = NULL;
  CgModule *m = LZ_NEW(CgModule);
  m->cg = cg;
  m->ctx = cg->ctx;
  m->mod = cg->mod;
  m->opt_level = o->opt_level;
  if (cg->nerrors > 0) {
    cg_dispose(m);
    return NULL;
  }
  return m;
}

void *cg_llvm_module(CgModule *m) { return m->mod; }

void cg_dispose(CgModule *m) {
  if (!m || !m->ctx) return;
  if (m->cg->tm) LLVMDisposeTargetMachine(m->cg->tm);
  m->cg->tm = NULL;
  LLVMDisposeModule(m->mod);
  LLVMContextDispose(m->ctx);
  m->mod = NULL;
  m->ctx = NULL;
}
