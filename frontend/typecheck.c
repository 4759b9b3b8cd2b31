/* typecheck.c — the type checker's entry point: kernel (kernel.h) to typed Core.
 *
 * The passes, in order:
 *   1. kinds and type declarations -> CoreTyCons/CoreDataCons       (tc_kinds.c)
 *   2. classes -> dictionary types, selectors; instance heads        (tc_classes.c)
 *   3. all top-level bindings as one recursive group, split into
 *      strongly connected components and inferred/checked in order   (tc_binds.c)
 *   4. default methods, instance methods and dictionary functions    (tc_classes.c)
 *   5. `main :: IO t`; the top level's remaining constraints are solved and
 *      defaulted; literals specialised; everything zonked; the top level cut into
 *      dependency-ordered groups                                      (tc_zonk.c)
 * Each step reports errors GHC-style and carries on with what it can (a binding that
 * failed gets the type forall a. a, so its uses do not cascade); Core is returned only
 * when there were no errors. Wired-in entities (literals, strings, IO, defaulting
 * types) are found through fe_wired[] by their occurrence name, with a search of the
 * program's own declarations as a fallback. See tc_internal.h for the overall design.
 */
#include <string.h>

#include "tc_internal.h"

Sym fe_tc_module_of(LzSpan at) {
  if (at.file > 0 && at.file < fe_tc.nfile_module && fe_tc.file_module[at.file])
    return fe_tc.file_module[at.file];
  return fe_tc.module;
}

/* ---- wired-in entities -------------------------------------------------------------------- */

static FeName *wired(const char *occ, FeNameKind kind) {
  for (int i = 1; i < WIRED_COUNT; i++)
    if (fe_wired_info[i].occ && !strcmp(fe_wired_info[i].occ, occ) && fe_wired[i] &&
        fe_wired[i]->kind == kind)
      return fe_wired[i];
  /* fallback: the program's own library declarations */
  KProgram *k = fe_tc.k;
  Sym s = lz_sym(occ);
  if (kind == N_TYCON || kind == N_CON) {
    for (int i = 0; i < k->types.len; i++) {
      FeDecl *d = k->types.data[i];
      if (kind == N_TYCON && d->name.ref && d->name.ref->occ == s) return d->name.ref;
      if (kind == N_CON)
        for (int j = 0; j < d->cons.len; j++)
          if (d->cons.data[j]->name.ref && d->cons.data[j]->name.ref->occ == s)
            return d->cons.data[j]->name.ref;
    }
  } else if (kind == N_VAR) {
    for (int i = 0; i < k->binds.len; i++) {
      FeName *n = k->binds.data[i]->name;
      if (n && n->occ == s && n->module && !strncmp(n->module, "Lz.", 3)) return n;
    }
    for (int i = 0; i < k->classes.len; i++)
      for (int j = 0; j < k->classes.data[i]->methods.len; j++)
        if (k->classes.data[i]->methods.data[j]->occ == s)
          return k->classes.data[i]->methods.data[j];
  }
  return NULL;
}

static CoreTyCon *wired_tycon(const char *occ) {
  TcTyCon *t = fe_tc_tycon(wired(occ, N_TYCON));
  return t ? t->tc : NULL;
}

static CoreDataCon *wired_con(const char *occ) {
  TcVar *v = fe_tc_var(wired(occ, N_CON));
  return v ? v->con : NULL;
}

static void find_wired(void) {
  fe_tc.int_tc = wired_tycon("Int");
  fe_tc.integer_tc = wired_tycon("Integer");
  fe_tc.double_tc = wired_tycon("Double");
  fe_tc.char_tc = wired_tycon("Char");
  fe_tc.io_tc = wired_tycon("IO");
  fe_tc.ratio_tc = wired_tycon("Ratio");
  fe_tc.int_prim = wired_tycon("Int#");
  fe_tc.double_prim = wired_tycon("Double#");
  fe_tc.char_prim = wired_tycon("Char#");
  fe_tc.addr_prim = wired_tycon("Addr#");
  fe_tc.int_con = wired_con("I#");
  fe_tc.double_con = wired_con("D#");
  fe_tc.char_con = wired_con("C#");
  fe_tc.ratio_con = wired_con(":%");
  fe_tc.from_integer = wired("fromInteger", N_VAR);
  fe_tc.from_rational = wired("fromRational", N_VAR);
  fe_tc.unpack_cstring = wired("unpackCString#", N_VAR);
  fe_tc.unpack_cstring_utf8 = wired("unpackCStringUtf8#", N_VAR);
  fe_tc.error_fn = wired("error", N_VAR);
}

static void make_arrow(void) {
  CoreTyCon *tc = LZ_NEW(CoreTyCon);
  tc->name = lz_sym("->");
  tc->sort = TC_PRIM;
  tc->arity = 2;
  tc->params = LZ_NEW_ARRAY(CoreTyVar *, 2);
  tc->params[0] = core_tyvar_new(lz_sym("a"), core_kind_star());
  tc->params[1] = core_tyvar_new(lz_sym("b"), core_kind_star());
  tc->kind = core_kind_arrow(core_kind_star(), core_kind_arrow(core_kind_star(), core_kind_star()));
  tc->uniq = core_fresh_uniq();
  fe_tc.arrow_tc = tc;
}

static void file_modules(KProgram *k) {
  int max = 0;
  for (int i = 0; i < k->modules.len; i++)
    if (k->modules.data[i]->src && k->modules.data[i]->src->id > max)
      max = k->modules.data[i]->src->id;
  fe_tc.nfile_module = max + 1;
  fe_tc.file_module = LZ_NEW_ARRAY(Sym, max + 1);
  fe_tc.file_rank = LZ_NEW_ARRAY(int, max + 1);
  for (int i = 0; i < k->modules.len; i++) {
    FeModule *m = k->modules.data[i];
    if (!m->src) continue;
    fe_tc.file_module[m->src->id] = m->name.name;
    fe_tc.file_rank[m->src->id] = i;
  }
}

static void defaults(KProgram *k) {
  fe_tc.defaults.len = 0;
  if (k->defaults.len) {
    for (int i = 0; i < k->defaults.len; i++) {
      FeDecl *d = k->defaults.data[i];
      for (int j = 0; j < d->types.len; j++)
        LZ_PUSH(fe_tc.defaults, fe_tc_closed_type(d->types.data[j], core_kind_star()));
    }
    return;
  }
  if (fe_tc.integer_tc) LZ_PUSH(fe_tc.defaults, core_type_con(fe_tc.integer_tc));
  if (fe_tc.double_tc) LZ_PUSH(fe_tc.defaults, core_type_con(fe_tc.double_tc));
}

/* ---- main --------------------------------------------------------------------------------- */

static CoreVar *check_main(KProgram *k) {
  if (!k->main) return NULL;
  TcVar *v = fe_tc_var(k->main);
  if (!v || !v->cv) return NULL;
  if (!fe_tc.io_tc) {
    fe_tc_error(k->main->def, "internal: IO is not available (is Lz.Base loaded?)");
    return NULL;
  }
  CoreType *rho;
  CoreExpr *e =
      fe_tc_instantiate(core_var(v->cv), v->cv->type, &rho, k->main->def, "a use of ‘main’");
  CoreType *t = fe_tc_meta(NULL, lz_sym("t"));
  CoreType *io = fe_tc_con_app(fe_tc.io_tc, 1, &t);
  fe_tc_unify(io, rho, k->main->def);
  if (e->kind == CE_VAR) return v->cv;
  /* a polymorphic main: a monomorphic wrapper, as GHC's :Main.main */
  CoreVar *w = fe_tc_global(lz_sym("main"), io, k->main->module, k->main->def);
  CoreBind b = {w, e};
  LZ_PUSH(fe_tc.top, b);
  return w;
}

static void solve_top(void) {
  for (int round = 0; round < 50 && !fe_tc_too_many_errors(); round++) {
    TcWantedVec bag = fe_tc.wanted, res = {0};
    memset(&fe_tc.wanted, 0, sizeof fe_tc.wanted);
    fe_tc_simplify(&bag, &res);
    if (!res.len) return;
    if (!fe_tc_default(&res, -1)) {
      TcMap reported = {0};
      for (int i = 0; i < res.len; i++) {
        TcMeta *m = fe_tc_as_meta(res.data[i]->type);
        if (m && fe_tc_map_get(&reported, m)) continue;
        if (m) fe_tc_map_put(&reported, m, (void *)1);
        fe_tc_report_ambiguous(res.data[i]);
      }
      return;
    }
    fe_tc.wanted = res;
  }
}

CoreProgram *fe_typecheck_program(KProgram *k, const FeOptions *opts) {
  if (!k) return NULL;
  memset(&fe_tc, 0, sizeof fe_tc);
  fe_tc.k = k;
  fe_tc.opts = opts;
  fe_tc.prog = LZ_NEW(CoreProgram);
  make_arrow();
  file_modules(k);
  fe_tc_kinds(k);
  find_wired();
  defaults(k);
  fe_tc_classes(k);
  fe_tc_instance_heads(k);
  if (!fe_tc_too_many_errors()) fe_tc_bind_group(k->binds.data, k->binds.len, true, NULL);
  if (!fe_tc_too_many_errors()) fe_tc_instance_bodies(k);
  CoreVar *main = fe_tc_too_many_errors() ? NULL : check_main(k);
  if (!fe_tc_too_many_errors()) solve_top();
  fe_tc_flush_errors();
  if (fe_tc.nerrors > 0) return NULL;
  fe_tc_fix_literals();
  for (int i = 0; i < fe_tc.top.len; i++) {
    CoreBind *b = &fe_tc.top.data[i];
    b->var->type = fe_tc_zonk(b->var->type, true);
    fe_tc_zonk_expr(b->rhs, NULL, true);
  }
  CoreProgram *p = fe_tc.prog;
  fe_tc_order_top(p);
  for (int i = 0; i < fe_tc.tycons.len; i++)
    LZ_PUSH(p->tycons, fe_tc.tycons.data[i]);
  p->main = main;
  return p;
}
