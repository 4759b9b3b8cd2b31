/* tc_classes.c — type classes and instances, translated to dictionaries.
 *
 * A class `class Eq a => Ord a where compare :: a -> a -> Ordering; ...` becomes a
 * data type `Ord a` (CoreTyCon with is_class) with one constructor `C:Ord` whose
 * fields are the superclass dictionaries then the methods; a method whose signature
 * quantifies more variables has a field of forall type
 * (`fmap :: forall a b. (a -> b) -> f a -> f b`). Each method becomes a selector
 * function `compare :: forall a. Ord a -> a -> a -> Ordering` (so using a method is
 * like using any overloaded function), each superclass a selector `$p1Ord`, each
 * default method a function `$dmcompare :: forall a. Ord a -> a -> a -> Ordering`.
 *
 * An instance `instance Show a => Show (Maybe a)` becomes a dictionary function
 * `$fShowMaybe :: forall a. Show a -> Show (Maybe a)` building
 * `letrec self = C:Show ($cshowsPrec @a d) ($cshow @a d) ($dmshowList @(Maybe a) self)`
 * from one top-level function per method (`$cshow`, checked against the method type
 * at the instance head) and defaults for the missing ones. Instances are found by
 * (class, head type constructor) in a hash map per class.
 */
#include <string.h>

#include "tc_internal.h"

TcClass *fe_tc_class(FeName *n) { return n && n->kind == N_CLASS ? n->tc : NULL; }

TcInst *fe_tc_lookup_inst(TcClass *c, CoreTyCon *head) {
  return fe_tc_map_get(&c->inst_by_head, head);
}

bool fe_tc_is_superclass(TcClass *sub, TcClass *sup) {
  for (int i = 0; i < sub->nsupers; i++)
    if (sub->supers[i] == sup || fe_tc_is_superclass(sub->supers[i], sup)) return true;
  return false;
}

static const char *std_classes[] = {
    "Eq",        "Ord",       "Show",    "Read",        "Enum",        "Bounded",
    "Ix",        "Num",       "Real",    "Integral",    "Fractional",  "Floating",
    "RealFrac",  "RealFloat", "Functor", "Monad",       "Applicative", "MonadPlus",
    "MonadFail", "Semigroup", "Monoid",  "Alternative", NULL};
static const char *num_classes[] = {"Num",      "Real",     "Integral",  "Fractional",
                                    "Floating", "RealFrac", "RealFloat", NULL};

static bool in_list(const char **l, const char *s) {
  for (; *l; l++)
    if (!strcmp(*l, s)) return true;
  return false;
}

static bool library_module(Sym m) {
  if (!m) return false;
  return !strncmp(m, "Lz.", 3) || !strcmp(m, "Prelude") || !strncmp(m, "Data.", 5) ||
         !strncmp(m, "Control.", 8) || !strncmp(m, "System.", 7) || !strncmp(m, "Text.", 5) ||
         !strncmp(m, "Debug.", 6);
}

/* /\a'. \d. case d of C:X v1 .. vn -> v_field ; fresh a' for every selector */
static CoreExpr *selector(TcClass *c, int field, CoreVar **var_out, Sym name, LzSpan at) {
  CoreTyVar *a = core_tyvar_new(c->tyvar->name, c->tyvar->kind);
  CoreType *at_ = core_type_var(a);
  CoreType *dty = fe_tc_dict_type(c, at_);
  int n = c->con->arity;
  CoreVar **vs = LZ_NEW_ARRAY(CoreVar *, n + 1);
  for (int i = 0; i < n; i++)
    vs[i] = fe_tc_local(lz_sym("m"), fe_tc_subst(c->con->fields[i], 1, &c->tyvar, &at_), at);
  CoreType *fty = vs[field]->type;
  CoreVar *d = fe_tc_local(lz_sym("$d"), dty, at);
  CoreAlt *alt = LZ_NEW(CoreAlt);
  alt->kind = ALT_CON;
  alt->con = c->con;
  alt->vars = vs;
  alt->rhs = core_var(vs[field]);
  CoreExpr *cs = fe_tc_case(core_var(d), fe_tc_local(lz_sym("$ds"), dty, at), fty, 1, alt, at);
  CoreExpr *rhs = core_tylam(a, core_lam(d, cs));
  *var_out = fe_tc_global(name, core_type_forall(a, core_type_fun(dty, fty)), c->name->module, at);
  return rhs;
}

static void push_top(CoreVar *v, CoreExpr *rhs) {
  CoreBind b = {v, rhs};
  LZ_PUSH(fe_tc.top, b);
}

static void check_cycles(TcClass *c) {
  if (c->visiting == 2) return;
  c->visiting = 1;
  for (int i = 0; i < c->nsupers; i++) {
    TcClass *s = c->supers[i];
    if (s->visiting == 1) {
      fe_tc_error(c->k->decl->span, "Cycle in class declaration (via superclasses):\n  %s -> %s",
                  c->name->occ, s->name->occ);
      c->nsupers = i; /* cut the cycle */
      break;
    }
    check_cycles(s);
  }
  c->visiting = 2;
}

void fe_tc_classes(KProgram *k) {
  /* 1. dictionary type constructors */
  for (int i = 0; i < k->classes.len; i++) {
    KClass *kc = k->classes.data[i];
    TcClass *c = kc->name->tc;
    CoreTyCon *tc = LZ_NEW(CoreTyCon);
    tc->name = kc->name->occ;
    tc->module = kc->name->module;
    tc->sort = TC_DATA;
    tc->is_class = true;
    tc->arity = 1;
    tc->params = LZ_NEW_ARRAY(CoreTyVar *, 1);
    CoreKind *pk = fe_tc_kind_default(c->kparam);
    Sym vname = kc->decl && kc->decl->tyvars.len ? kc->decl->tyvars.data[0].name : lz_sym("a");
    tc->params[0] = core_tyvar_new(vname, pk);
    tc->kind = core_kind_arrow(pk, core_kind_star());
    tc->uniq = core_fresh_uniq();
    CoreDataCon *con = LZ_NEW(CoreDataCon);
    con->name = lz_sym(lz_fmt("C:%s", kc->name->occ));
    con->tycon = tc;
    con->span = kc->decl ? kc->decl->span : (LzSpan){0};
    con->uniq = core_fresh_uniq();
    tc->ncons = 1;
    tc->cons = LZ_NEW_ARRAY(CoreDataCon *, 1);
    tc->cons[0] = con;
    c->tycon = tc;
    c->con = con;
    c->tyvar = tc->params[0];
    fe_tc_map_put(&fe_tc.class_of, tc, c);
    c->standard = in_list(std_classes, kc->name->occ) && library_module(kc->name->module);
    c->numeric = c->standard && in_list(num_classes, kc->name->occ);
  }
  /* 2. superclasses */
  for (int i = 0; i < k->classes.len; i++) {
    KClass *kc = k->classes.data[i];
    TcClass *c = kc->name->tc;
    FeDecl *d = kc->decl;
    int n = d && d->sig ? d->sig->ctx.len : 0;
    c->supers = LZ_NEW_ARRAY(TcClass *, n + 1);
    for (int j = 0; j < n; j++) {
      FePred *p = &d->sig->ctx.data[j];
      TcClass *s = fe_tc_class(p->cls.ref);
      if (!s) continue;
      if (p->type->kind != TY_VAR || !d->tyvars.len || p->type->id.ref != d->tyvars.data[0].ref) {
        fe_tc_error(
            p->span,
            "Illegal superclass constraint ‘%s’ (Lz superclasses constrain the class variable)",
            s->name->occ);
        continue;
      }
      c->supers[c->nsupers++] = s;
    }
  }
  for (int i = 0; i < k->classes.len; i++)
    check_cycles(k->classes.data[i]->name->tc);
  /* 3. fields, selectors, default method binders */
  for (int i = 0; i < k->classes.len; i++) {
    KClass *kc = k->classes.data[i];
    TcClass *c = kc->name->tc;
    LzSpan at = kc->decl ? kc->decl->span : (LzSpan){0};
    int nm = kc->methods.len;
    c->nmethods = nm;
    c->methods = kc->methods.data;
    c->fields = LZ_NEW_ARRAY(CoreType *, nm + 1);
    c->sels = LZ_NEW_ARRAY(CoreVar *, nm + 1);
    c->defaults = LZ_NEW_ARRAY(CoreVar *, nm + 1);
    CoreType *avar = core_type_var(c->tyvar);
    FeName *vname = kc->decl && kc->decl->tyvars.len ? kc->decl->tyvars.data[0].ref : NULL;
    for (int j = 0; j < nm; j++)
      c->fields[j] = j < kc->sigs.len ? fe_tc_sig_type(kc->sigs.data[j], 1, &vname, &avar,
                                                       &c->kparam, NULL, false)
                                      : fe_tc_meta(NULL, NULL);
    CoreDataCon *con = c->con;
    con->arity = c->nsupers + nm;
    con->fields = LZ_NEW_ARRAY(CoreType *, con->arity + 1);
    con->strict = LZ_NEW_ARRAY(bool, con->arity + 1);
    con->labels = LZ_NEW_ARRAY(Sym, con->arity + 1);
    for (int j = 0; j < c->nsupers; j++)
      con->fields[j] = fe_tc_dict_type(c->supers[j], avar);
    for (int j = 0; j < nm; j++)
      con->fields[c->nsupers + j] = c->fields[j];
    c->super_sels = LZ_NEW_ARRAY(CoreVar *, c->nsupers + 1);
    for (int j = 0; j < c->nsupers; j++) {
      CoreExpr *rhs =
          selector(c, j, &c->super_sels[j], lz_sym(lz_fmt("$p%d%s", j + 1, c->name->occ)), at);
      push_top(c->super_sels[j], rhs);
    }
    for (int j = 0; j < nm; j++) {
      CoreExpr *rhs =
          selector(c, c->nsupers + j, &c->sels[j], c->methods[j]->occ, c->methods[j]->def);
      push_top(c->sels[j], rhs);
      TcVar *v = LZ_NEW(TcVar);
      v->cv = c->sels[j];
      c->methods[j]->tc = v;
    }
    for (int j = 0; j < kc->defaults.len; j++) {
      KBind *b = kc->defaults.data[j];
      for (int m = 0; m < nm; m++)
        if (c->methods[m] == b->name) {
          CoreTyVar *a = core_tyvar_new(c->tyvar->name, c->tyvar->kind);
          CoreType *at_ = core_type_var(a);
          CoreType *ty =
              core_type_forall(a, core_type_fun(fe_tc_dict_type(c, at_),
                                                fe_tc_subst(c->fields[m], 1, &c->tyvar, &at_)));
          c->defaults[m] =
              fe_tc_global(lz_sym(lz_fmt("$dm%s", b->name->occ)), ty, c->name->module, b->span);
        }
    }
  }
}

static const char *tycon_tag(CoreTyCon *tc) {
  const char *n = tc->name;
  if (!strcmp(n, "[]")) return "List";
  if (!strcmp(n, "()")) return "Unit";
  if (!strcmp(n, "->")) return "Arrow";
  if (n[0] == '(') return lz_fmt("Tuple%d", (int)strlen(n) - 1);
  return n;
}

void fe_tc_instance_heads(KProgram *k) {
  for (int i = 0; i < k->instances.len; i++) {
    KInstance *ki = k->instances.data[i];
    TcClass *c = fe_tc_class(ki->cls);
    if (!c || !ki->decl || !ki->decl->sig) continue;
    TcInst *in = LZ_NEW(TcInst);
    in->cls = c;
    in->k = ki;
    in->span = ki->span;
    in->head_type = fe_tc_inst_head(c, ki->decl->sig, ki->span, &in->ntvs, &in->tvs, &in->nctx,
                                    &in->ctx_cls, &in->ctx_types);
    if (!in->head_type) continue;
    CoreType *args[2];
    int n;
    CoreType *h = fe_tc_spine(in->head_type, args, 0, &n);
    if (h->kind != CT_CON) continue;
    in->head = h->con;
    TcInst *old = fe_tc_lookup_inst(c, in->head);
    if (old) {
      /* GHC reports a duplicate at the earlier of the two declarations in the source
       * (a derived instance is processed last but its deriving clause may come first). */
      LzSpan at = old->span;
      if (in->span.line < at.line || (in->span.line == at.line && in->span.col < at.col))
        at = in->span;
      fe_tc_error(at,
                  "Duplicate instance declarations:\n  instance %s\n    -- Defined at %s\n  "
                  "instance %s\n    -- Defined at %s",
                  fe_tc_pred_str(c, old->head_type), lz_span_ghc(old->span),
                  fe_tc_pred_str(c, in->head_type), lz_span_ghc(in->span));
      continue;
    }
    fe_tc_map_put(&c->inst_by_head, in->head, in);
    CoreType *ty = fe_tc_dict_type(c, in->head_type);
    for (int j = in->nctx - 1; j >= 0; j--)
      ty = core_type_fun(fe_tc_dict_type(in->ctx_cls[j], in->ctx_types[j]), ty);
    for (int j = in->ntvs - 1; j >= 0; j--)
      ty = core_type_forall(in->tvs[j], ty);
    in->dfun = fe_tc_global(lz_sym(lz_fmt("$f%s%s", c->name->occ, tycon_tag(in->head))), ty,
                            fe_tc_module_of(ki->span), ki->span);
    LZ_PUSH(fe_tc.insts, in);
  }
}

/* A method nobody defined: a function of the method's type that fails when called. */
static CoreExpr *missing_method(TcInst *in, int m, CoreType *field) {
  TcBinders bs = {0};
  CoreType *rho = fe_tc_skolemise(field, &bs, NULL, in->span);
  CoreExpr *body;
  if (fe_tc.error_fn && fe_tc_var(fe_tc.error_fn) && fe_tc_var(fe_tc.error_fn)->cv) {
    CoreVar *ev = fe_tc_var(fe_tc.error_fn)->cv;
    CoreType *ety;
    CoreExpr *f = fe_tc_instantiate(core_var(ev), ev->type, &ety, in->span, "error");
    const char *msg = lz_fmt("%s: No instance nor default method for class operation %s",
                             lz_span_ghc(in->span), in->cls->methods[m]->occ);
    CoreExpr *s = fe_tc_string_expr(msg, strlen(msg), in->span);
    fe_tc_unify(
        ety,
        core_type_fun(core_type_app(core_type_con(core_list_tycon()), core_type_con(fe_tc.char_tc)),
                      rho),
        in->span);
    body = core_app(f, s);
  } else { /* no `error` in this program: let x = x in x */
    CoreVar *x = fe_tc_local(lz_sym("loop"), rho, in->span);
    CoreExpr *l = core_expr_new(CE_LET, in->span);
    l->rec = true;
    l->nbinds = 1;
    l->binds = LZ_NEW(CoreBind);
    l->binds[0].var = x;
    l->binds[0].rhs = core_var(x);
    l->body = core_var(x);
    body = l;
  }
  return fe_tc_wrap_binders(&bs, body);
}

static void instance_body(TcInst *in) {
  TcClass *c = in->cls;
  KInstance *ki = in->k;
  fe_tc.module = fe_tc_module_of(in->span);
  CoreVar **impl = LZ_NEW_ARRAY(CoreVar *, c->nmethods + 1);
  CoreType *head = in->head_type;
  for (int j = 0; j < ki->methods.len; j++) {
    KBind *b = ki->methods.data[j];
    int m = -1;
    for (int x = 0; x < c->nmethods; x++)
      if (c->methods[x] == b->name) m = x;
    if (m < 0) {
      fe_tc_error(b->span, "‘%s’ is not a (visible) method of class ‘%s’", b->name->occ,
                  c->name->occ);
      continue;
    }
    if (impl[m]) {
      fe_tc_error(b->span, "Conflicting definitions for ‘%s’", b->name->occ);
      continue;
    }
    CoreType *ty = fe_tc_subst(c->fields[m], 1, &c->tyvar, &head);
    for (int x = in->nctx - 1; x >= 0; x--)
      ty = core_type_fun(fe_tc_dict_type(in->ctx_cls[x], in->ctx_types[x]), ty);
    for (int x = in->ntvs - 1; x >= 0; x--)
      ty = core_type_forall(in->tvs[x], ty);
    impl[m] = fe_tc_global(lz_sym(lz_fmt("$c%s", b->name->occ)), ty, fe_tc.module, b->span);
    char *what = lz_fmt("the instance declaration for ‘%s’", fe_tc_pred_str(c, head));
    CoreExpr *rhs = fe_tc_check_sigma(b->rhs, ty, what, b->span);
    push_top(impl[m], rhs);
    if (fe_tc_too_many_errors()) return;
  }
  /* the dictionary function */
  CoreVar **ds = LZ_NEW_ARRAY(CoreVar *, in->nctx + 1);
  int mark = fe_tc.givens.len;
  for (int x = 0; x < in->nctx; x++) {
    ds[x] = fe_tc_local(lz_sym(lz_fmt("$d%s", in->ctx_cls[x]->name->occ)),
                        fe_tc_dict_type(in->ctx_cls[x], in->ctx_types[x]), in->span);
    fe_tc_push_given(ds[x], in->ctx_cls[x], in->ctx_types[x]);
  }
  CoreVar *self = fe_tc_local(lz_sym("$dself"), fe_tc_dict_type(c, head), in->span);
  TcWantedVec saved = fe_tc.wanted;
  memset(&fe_tc.wanted, 0, sizeof fe_tc.wanted);
  int nf = c->con->arity;
  CoreExpr **fields = LZ_NEW_ARRAY(CoreExpr *, nf + 1);
  for (int j = 0; j < c->nsupers; j++)
    fields[j] =
        fe_tc_want(c->supers[j], head, in->span, "the superclasses of an instance declaration");
  for (int m = 0; m < c->nmethods; m++) {
    CoreExpr *e;
    if (impl[m]) {
      e = core_var(impl[m]);
      for (int x = 0; x < in->ntvs; x++)
        e = core_tyapp(e, core_type_var(in->tvs[x]));
      for (int x = 0; x < in->nctx; x++)
        e = core_app(e, core_var(ds[x]));
    } else if (c->defaults[m]) {
      e = core_app(core_tyapp(core_var(c->defaults[m]), head), core_var(self));
    } else {
      if (!ki->derived)
        lz_warning(in->span,
                   "No explicit implementation for\n  ‘%s’\nIn the instance declaration for ‘%s’",
                   c->methods[m]->occ, fe_tc_pred_str(c, head));
      e = missing_method(in, m, fe_tc_subst(c->fields[m], 1, &c->tyvar, &head));
    }
    fields[c->nsupers + m] = e;
  }
  TcWantedVec residual = {0};
  fe_tc_simplify(&fe_tc.wanted, &residual);
  for (int j = 0; j < residual.len; j++)
    fe_tc_report_ambiguous(residual.data[j]);
  fe_tc.wanted = saved;
  fe_tc_pop_givens(mark);
  CoreExpr *con = fe_tc_con_expr(c->con, &head, fields, in->span);
  CoreExpr *let = core_expr_new(CE_LET, in->span);
  let->rec = true;
  let->nbinds = 1;
  let->binds = LZ_NEW(CoreBind);
  let->binds[0].var = self;
  let->binds[0].rhs = con;
  let->body = core_var(self);
  CoreExpr *rhs = let;
  for (int x = in->nctx - 1; x >= 0; x--)
    rhs = core_lam(ds[x], rhs);
  for (int x = in->ntvs - 1; x >= 0; x--)
    rhs = core_tylam(in->tvs[x], rhs);
  push_top(in->dfun, rhs);
}

void fe_tc_instance_bodies(KProgram *k) {
  for (int i = 0; i < k->classes.len && !fe_tc_too_many_errors(); i++) {
    KClass *kc = k->classes.data[i];
    TcClass *c = kc->name->tc;
    for (int j = 0; j < kc->defaults.len; j++) {
      KBind *b = kc->defaults.data[j];
      for (int m = 0; m < c->nmethods; m++)
        if (c->methods[m] == b->name && c->defaults[m]) {
          fe_tc.module = c->name->module;
          char *what = lz_fmt("the class declaration for ‘%s’", c->name->occ);
          push_top(c->defaults[m], fe_tc_check_sigma(b->rhs, c->defaults[m]->type, what, b->span));
        }
    }
  }
  for (int i = 0; i < fe_tc.insts.len && !fe_tc_too_many_errors(); i++)
    instance_body(fe_tc.insts.data[i]);
}
