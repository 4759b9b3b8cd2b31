/* tc_kinds.c — kinds, type declarations and the translation of syntactic types.
 *
 * Kind inference runs once over all data, newtype, synonym and class declarations of
 * the program together: every type parameter (and class variable) starts as a kind
 * variable, the uses in constructor fields, synonym right-hand sides, superclass
 * contexts and method signatures are unified, and what stays unknown defaults to `*`
 * (Haskell 2010 §4.6). Then each data/newtype becomes a CoreTyCon with its
 * CoreDataCons (fields translated with synonyms expanded). Synonyms are translated
 * lazily on first use, which is where cycles are found.
 *
 * Type signatures and instance heads get their own small kind inference (their
 * implicitly quantified variables start as kind variables) before translation, so
 * `f :: m a -> m a` gives m kind * -> *, and `f :: Maybe -> Int` is a kind error worded
 * like GHC's ("Expecting one more argument to ‘Maybe’").
 */
#include <stdarg.h>
#include <string.h>

#include "tc_internal.h"

/* ---- kinds ------------------------------------------------------------------------- */

static TcKind k_star = {TK_STAR, NULL, NULL, NULL};

TcKind *fe_tc_kstar(void) { return &k_star; }

TcKind *fe_tc_kvar(void) {
  TcKind *k = LZ_NEW(TcKind);
  k->tag = TK_VAR;
  return k;
}

static TcKind *karrow(TcKind *a, TcKind *r) {
  TcKind *k = LZ_NEW(TcKind);
  k->tag = TK_ARROW;
  k->arg = a;
  k->res = r;
  return k;
}

static TcKind *kprune(TcKind *k) {
  while (k->tag == TK_VAR && k->ref)
    k = k->ref;
  return k;
}

static bool koccurs(TcKind *v, TcKind *k) {
  k = kprune(k);
  if (k == v) return true;
  return k->tag == TK_ARROW && (koccurs(v, k->arg) || koccurs(v, k->res));
}

bool fe_tc_kunify(TcKind *a, TcKind *b) {
  a = kprune(a);
  b = kprune(b);
  if (a == b) return true;
  if (a->tag == TK_VAR) {
    if (koccurs(a, b)) return false;
    a->ref = b;
    return true;
  }
  if (b->tag == TK_VAR) return fe_tc_kunify(b, a);
  if (a->tag != b->tag) return false;
  if (a->tag == TK_STAR) return true;
  return fe_tc_kunify(a->arg, b->arg) && fe_tc_kunify(a->res, b->res);
}

CoreKind *fe_tc_kind_default(TcKind *k) {
  k = kprune(k);
  if (k->tag == TK_VAR) {
    k->ref = &k_star;
    return core_kind_star();
  }
  if (k->tag == TK_STAR) return core_kind_star();
  return core_kind_arrow(fe_tc_kind_default(k->arg), fe_tc_kind_default(k->res));
}

static void kstr(TcKind *k, char **out, bool paren) {
  k = kprune(k);
  if (k->tag != TK_ARROW) {
    *out = lz_fmt("%s*", *out);
    return;
  }
  if (paren) *out = lz_fmt("%s(", *out);
  kstr(k->arg, out, true);
  *out = lz_fmt("%s -> ", *out);
  kstr(k->res, out, false);
  if (paren) *out = lz_fmt("%s)", *out);
}

char *fe_tc_kind_str(TcKind *k) {
  char *s = "";
  kstr(k, &s, false);
  return s;
}

static TcKind *kind_from_core(CoreKind *k) {
  if (!k || k->kind == CK_STAR) return &k_star;
  return karrow(kind_from_core(k->arg), kind_from_core(k->res));
}

/* ---- type constructors ---------------------------------------------------------------- */

static TcTyCon *builtin_tycon(FeName *n) {
  CoreTyCon *tc = NULL;
  Sym o = n->occ;
  if (!strcmp(o, "[]"))
    tc = core_list_tycon();
  else if (!strcmp(o, "()"))
    tc = core_unit_tycon();
  else if (!strcmp(o, "->"))
    tc = fe_tc.arrow_tc;
  else if (o[0] == '(' && o[1] == ',') {
    int k = 1;
    while (o[k] == ',')
      k++;
    tc = core_tuple_tycon(k);
  }
  if (!tc) return NULL;
  TcTyCon *t = LZ_NEW(TcTyCon);
  t->name = n;
  t->tc = tc;
  t->arity = tc->arity;
  t->ckind = tc->kind;
  t->kind = kind_from_core(tc->kind);
  t->pkinds = LZ_NEW_ARRAY(TcKind *, tc->arity + 1);
  for (int i = 0; i < tc->arity; i++)
    t->pkinds[i] = &k_star;
  n->tc = t;
  return t;
}

TcTyCon *fe_tc_tycon(FeName *n) {
  if (!n || n->kind != N_TYCON) return NULL;
  if (n->tc) return n->tc;
  if (!n->module) return builtin_tycon(n);
  return NULL;
}

TcVar *fe_tc_var(FeName *n) {
  if (!n) return NULL;
  if (n->tc) return n->tc;
  if (n->kind != N_CON || n->module) return NULL;
  CoreTyCon *tc = NULL;
  Sym o = n->occ;
  if (!strcmp(o, "[]") || !strcmp(o, ":"))
    tc = core_list_tycon();
  else if (!strcmp(o, "()"))
    tc = core_unit_tycon();
  else if (o[0] == '(' && o[1] == ',') {
    int k = 1;
    while (o[k] == ',')
      k++;
    tc = core_tuple_tycon(k);
  }
  if (!tc) return NULL;
  for (int i = 0; i < tc->ncons; i++)
    if (!strcmp(tc->cons[i]->name, o)) {
      TcVar *v = LZ_NEW(TcVar);
      v->con = tc->cons[i];
      n->tc = v;
      return v;
    }
  return NULL;
}

/* ---- printing syntactic types ------------------------------------------------------------ */

static void fty(FeType *t, char **out, int prec) {
  switch (t->kind) {
  case TY_VAR:
  case TY_CON: *out = lz_fmt("%s%s", *out, t->id.name ? t->id.name : "?"); return;
  case TY_FUN:
    if (prec > 0) *out = lz_fmt("%s(", *out);
    fty(t->left, out, 1);
    *out = lz_fmt("%s -> ", *out);
    fty(t->right, out, 0);
    if (prec > 0) *out = lz_fmt("%s)", *out);
    return;
  case TY_APP:
    if (t->left->kind == TY_CON && t->left->id.name && !strcmp(t->left->id.name, "[]")) {
      *out = lz_fmt("%s[", *out);
      fty(t->right, out, 0);
      *out = lz_fmt("%s]", *out);
      return;
    }
    if (prec > 1) *out = lz_fmt("%s(", *out);
    fty(t->left, out, 1);
    *out = lz_fmt("%s ", *out);
    fty(t->right, out, 2);
    if (prec > 1) *out = lz_fmt("%s)", *out);
    return;
  }
}

static char *fe_ty_str(FeType *t) {
  char *s = "";
  fty(t, &s, 0);
  return s;
}

/* ---- kind inference of syntactic types -------------------------------------------------- */

static bool quiet; /* re-checking something already checked: no messages */

static void kerr(LzSpan at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void kerr(LzSpan at, const char *fmt, ...) {
  if (quiet) return;
  va_list ap;
  va_start(ap, fmt);
  char *msg = lz_vfmt(fmt, ap);
  va_end(ap);
  fe_tc_error(at, "%s", msg);
}

static TcKind *env_lookup(TcKEnv *env, FeName *n) {
  for (int i = env->names.len - 1; i >= 0; i--)
    if (env->names.data[i] == n) return env->kinds.data[i];
  return NULL;
}

TcKind *fe_tc_kind_infer(FeType *t, TcKEnv *env) {
  switch (t->kind) {
  case TY_VAR: {
    FeName *n = t->id.ref;
    TcKind *k = n ? env_lookup(env, n) : NULL;
    if (k) return k;
    if (!n || !env->implicit) {
      kerr(t->span, "Not in scope: type variable ‘%s’", t->id.name ? t->id.name : "?");
      return fe_tc_kvar();
    }
    k = fe_tc_kvar();
    LZ_PUSH(env->names, n);
    LZ_PUSH(env->kinds, k);
    return k;
  }
  case TY_CON: {
    FeName *n = t->id.ref;
    if (n && n->kind == N_CLASS) {
      kerr(t->span, "Class ‘%s’ used as a type", n->occ);
      return fe_tc_kvar();
    }
    TcTyCon *tc = fe_tc_tycon(n);
    if (!tc) {
      kerr(t->span, "Not in scope: type constructor ‘%s’", t->id.name ? t->id.name : "?");
      return fe_tc_kvar();
    }
    return tc->kind;
  }
  case TY_FUN:
    fe_tc_kind_check(t->left, env, &k_star);
    fe_tc_kind_check(t->right, env, &k_star);
    return &k_star;
  case TY_APP: {
    TcKind *kf = kprune(fe_tc_kind_infer(t->left, env));
    if (kf->tag == TK_ARROW) {
      fe_tc_kind_check(t->right, env, kf->arg);
      return kf->res;
    }
    TcKind *ka = fe_tc_kind_infer(t->right, env);
    if (kf->tag == TK_VAR) {
      TcKind *r = fe_tc_kvar();
      if (fe_tc_kunify(kf, karrow(ka, r))) return r;
    }
    kerr(t->left->span, "Expected kind ‘%s’, but ‘%s’ has kind ‘%s’",
         fe_tc_kind_str(karrow(ka, &k_star)), fe_ty_str(t->left), fe_tc_kind_str(kf));
    return fe_tc_kvar();
  }
  }
  return fe_tc_kvar();
}

void fe_tc_kind_check(FeType *t, TcKEnv *env, TcKind *expect) {
  TcKind *k = fe_tc_kind_infer(t, env);
  if (fe_tc_kunify(expect, k)) return;
  TcKind *e = kprune(expect), *kk = kprune(k);
  if (e->tag == TK_STAR && kk->tag == TK_ARROW) {
    /* GHC names the head of the type in this message */
    FeType *h = t;
    while (h->kind == TY_APP)
      h = h->left;
    kerr(t->span, "Expecting one more argument to ‘%s’\nExpected a type, but ‘%s’ has kind ‘%s’",
         fe_ty_str(t), fe_ty_str(t), fe_tc_kind_str(k));
    (void)h;
    return;
  }
  kerr(t->span, "Expected kind ‘%s’, but ‘%s’ has kind ‘%s’", fe_tc_kind_str(expect), fe_ty_str(t),
       fe_tc_kind_str(k));
}

static void kind_pred(FePred *p, TcKEnv *env) {
  TcClass *c = fe_tc_class(p->cls.ref);
  if (!c) {
    kerr(p->span, "Not in scope: type class ‘%s’", p->cls.name ? p->cls.name : "?");
    fe_tc_kind_infer(p->type, env);
    return;
  }
  fe_tc_kind_check(p->type, env, c->kparam);
}

/* ---- translation of syntactic types ------------------------------------------------------ */

typedef struct ConvEnv {
  int n;
  FeName **names;
  CoreType **types;
} ConvEnv;

static CoreType *convert(FeType *t, ConvEnv *env, int depth);
static void convert_synonym(TcTyCon *s);

static CoreType *error_type(void) { return core_type_con(core_unit_tycon()); }

static CoreType *convert(FeType *t, ConvEnv *env, int depth) {
  if (depth > 2000) {
    kerr(t->span, "Type too deeply nested");
    return error_type();
  }
  switch (t->kind) {
  case TY_VAR:
    for (int i = env->n - 1; i >= 0; i--)
      if (env->names[i] == t->id.ref) return env->types[i];
    kerr(t->span, "Not in scope: type variable ‘%s’", t->id.name ? t->id.name : "?");
    return error_type();
  case TY_FUN:
    return core_type_fun(convert(t->left, env, depth + 1), convert(t->right, env, depth + 1));
  case TY_CON:
  case TY_APP: {
    int n = 0;
    FeType *h = t;
    while (h->kind == TY_APP) {
      n++;
      h = h->left;
    }
    FeType **args = LZ_NEW_ARRAY(FeType *, n + 1);
    int i = n;
    for (FeType *x = t; x->kind == TY_APP; x = x->left)
      args[--i] = x->right;
    CoreType *r;
    int used = 0;
    if (h->kind != TY_CON) {
      r = convert(h, env, depth + 1);
    } else {
      TcTyCon *tc = fe_tc_tycon(h->id.ref);
      if (!tc) return error_type(); /* reported by kind inference */
      if (tc->is_syn) {
        if (n < tc->arity) {
          kerr(t->span, "The type synonym ‘%s’ should have %s, but has been given %s",
               tc->name->occ, lz_fmt("%d argument%s", tc->arity, tc->arity == 1 ? "" : "s"),
               n == 0 ? "none" : lz_fmt("%d", n));
          return error_type();
        }
        convert_synonym(tc);
        if (!tc->syn_rhs) return error_type();
        CoreType **as = LZ_NEW_ARRAY(CoreType *, tc->arity + 1);
        for (int j = 0; j < tc->arity; j++)
          as[j] = convert(args[j], env, depth + 1);
        r = fe_tc_subst(tc->syn_rhs, tc->arity, tc->syn_params, as);
        used = tc->arity;
      } else {
        fe_tc_note_tycon(tc->tc);
        r = core_type_con(tc->tc);
      }
    }
    for (int j = used; j < n; j++)
      r = fe_tc_app(r, convert(args[j], env, depth + 1));
    return r;
  }
  }
  return error_type();
}

static void convert_synonym(TcTyCon *s) {
  if (s->syn_state == 2) return;
  if (s->syn_state == 1) {
    fe_tc_error(s->decl->span, "Cycle in type synonym declarations:\n  %s",
                lz_fmt("type %s", s->name->occ));
    s->syn_rhs = NULL;
    s->syn_state = 2;
    return;
  }
  s->syn_state = 1;
  FeDecl *d = s->decl;
  ConvEnv env = {s->arity, LZ_NEW_ARRAY(FeName *, s->arity + 1),
                 LZ_NEW_ARRAY(CoreType *, s->arity + 1)};
  s->syn_params = LZ_NEW_ARRAY(CoreTyVar *, s->arity + 1);
  for (int i = 0; i < s->arity; i++) {
    s->syn_params[i] = core_tyvar_new(d->tyvars.data[i].name, fe_tc_kind_default(s->pkinds[i]));
    env.names[i] = d->tyvars.data[i].ref;
    env.types[i] = core_type_var(s->syn_params[i]);
  }
  CoreType *rhs = convert(d->rhs_type, &env, 0);
  if (s->syn_state == 1) s->syn_rhs = rhs; /* not already failed as part of a cycle */
  s->syn_state = 2;
}

CoreType *fe_tc_closed_type(FeType *t, CoreKind *expect) {
  TcKEnv env = {0};
  fe_tc_kind_check(t, &env, kind_from_core(expect));
  ConvEnv cenv = {0};
  return convert(t, &cenv, 0);
}

CoreType *fe_tc_sig_type(FeQualType *q, int nbound, FeName **bound, CoreType **bound_ty,
                         TcKind **bound_kinds, int *ntvs_out, bool report) {
  bool saved = quiet;
  quiet = !report;
  TcKEnv env = {0};
  env.implicit = true;
  for (int i = 0; i < nbound; i++) {
    LZ_PUSH(env.names, bound[i]);
    LZ_PUSH(env.kinds, bound_kinds[i]);
  }
  fe_tc_kind_check(q->type, &env, &k_star);
  for (int i = 0; i < q->ctx.len; i++)
    kind_pred(&q->ctx.data[i], &env);
  int total = env.names.len;
  ConvEnv cenv = {total, LZ_NEW_ARRAY(FeName *, total + 1), LZ_NEW_ARRAY(CoreType *, total + 1)};
  CoreTyVar **tvs = LZ_NEW_ARRAY(CoreTyVar *, total + 1);
  for (int i = 0; i < total; i++) {
    cenv.names[i] = env.names.data[i];
    if (i < nbound) {
      cenv.types[i] = bound_ty[i];
    } else {
      tvs[i] = core_tyvar_new(env.names.data[i]->occ, fe_tc_kind_default(env.kinds.data[i]));
      cenv.types[i] = core_type_var(tvs[i]);
    }
  }
  CoreType *body = convert(q->type, &cenv, 0);
  for (int i = q->ctx.len - 1; i >= 0; i--) {
    FePred *p = &q->ctx.data[i];
    TcClass *c = fe_tc_class(p->cls.ref);
    if (!c) continue;
    body = core_type_fun(fe_tc_dict_type(c, convert(p->type, &cenv, 0)), body);
  }
  for (int i = total - 1; i >= nbound; i--)
    body = core_type_forall(tvs[i], body);
  if (ntvs_out) *ntvs_out = total - nbound;
  quiet = saved;
  return body;
}

/* ---- declarations ----------------------------------------------------------------------- */

/* Create the CoreTyCon shell of a data/newtype (params, kind; constructors later). */
static void make_tycon(TcTyCon *t) {
  FeDecl *d = t->decl;
  /* the primitive types declared (without constructors) in Lz.Base are Core's own */
  CoreTyCon *prim =
      d->kind == D_DATA && d->cons.len == 0 && t->arity == 0 ? core_prim_tycon(t->name->occ) : NULL;
  if (prim) {
    t->tc = prim;
    return;
  }
  CoreTyCon *tc = LZ_NEW(CoreTyCon);
  tc->name = t->name->occ;
  tc->module = t->name->module;
  tc->sort = d->kind == D_NEWTYPE ? TC_NEWTYPE : TC_DATA;
  size_t len = strlen(t->name->occ);
  if (d->kind == D_DATA && d->cons.len == 0 && len > 1 && t->name->occ[len - 1] == '#') {
    tc->sort = TC_PRIM; /* another primitive type, like MutVar# a */
    tc->unlifted = true;
  }
  tc->arity = t->arity;
  tc->params = LZ_NEW_ARRAY(CoreTyVar *, t->arity + 1);
  for (int i = 0; i < t->arity; i++)
    tc->params[i] = core_tyvar_new(d->tyvars.data[i].name, fe_tc_kind_default(t->pkinds[i]));
  tc->kind = t->ckind;
  tc->uniq = core_fresh_uniq();
  t->tc = tc;
}

static void make_cons(TcTyCon *t) {
  FeDecl *d = t->decl;
  CoreTyCon *tc = t->tc;
  ConvEnv env = {t->arity, LZ_NEW_ARRAY(FeName *, t->arity + 1),
                 LZ_NEW_ARRAY(CoreType *, t->arity + 1)};
  for (int i = 0; i < t->arity; i++) {
    env.names[i] = d->tyvars.data[i].ref;
    env.types[i] = core_type_var(tc->params[i]);
  }
  tc->ncons = d->cons.len;
  tc->cons = LZ_NEW_ARRAY(CoreDataCon *, tc->ncons + 1);
  for (int i = 0; i < d->cons.len; i++) {
    FeConDecl *cd = d->cons.data[i];
    CoreDataCon *c = LZ_NEW(CoreDataCon);
    c->name = cd->name.ref ? cd->name.ref->occ : cd->name.name;
    c->tycon = tc;
    c->tag = i;
    c->arity = cd->fields.len;
    c->fields = LZ_NEW_ARRAY(CoreType *, c->arity + 1);
    c->strict = LZ_NEW_ARRAY(bool, c->arity + 1);
    c->labels = LZ_NEW_ARRAY(Sym, c->arity + 1);
    for (int j = 0; j < c->arity; j++) {
      FeField *f = &cd->fields.data[j];
      c->fields[j] = convert(f->type, &env, 0);
      c->strict[j] = f->strict;
      c->labels[j] = f->label.name;
    }
    c->span = cd->span;
    c->uniq = core_fresh_uniq();
    tc->cons[i] = c;
    if (cd->name.ref) {
      TcVar *v = LZ_NEW(TcVar);
      v->con = c;
      v->newtype_con = tc->sort == TC_NEWTYPE;
      cd->name.ref->tc = v;
    }
  }
  if (tc->sort == TC_NEWTYPE && (tc->ncons != 1 || tc->cons[0]->arity != 1)) {
    fe_tc_error(d->span, "A newtype must have exactly one constructor with exactly one field");
    tc->sort = TC_DATA;
  }
}

void fe_tc_kinds(KProgram *k) {
  LZ_VEC(TcTyCon *) tcs = {0};
  /* 1. shells with kind variables */
  for (int i = 0; i < k->types.len; i++) {
    FeDecl *d = k->types.data[i];
    FeName *n = d->name.ref;
    if (!n) continue;
    TcTyCon *t = LZ_NEW(TcTyCon);
    t->name = n;
    t->decl = d;
    t->arity = d->tyvars.len;
    t->is_syn = d->kind == D_TYPE;
    t->pkinds = LZ_NEW_ARRAY(TcKind *, t->arity + 1);
    for (int j = 0; j < t->arity; j++)
      t->pkinds[j] = fe_tc_kvar();
    TcKind *r = t->is_syn ? fe_tc_kvar() : &k_star;
    for (int j = t->arity - 1; j >= 0; j--)
      r = karrow(t->pkinds[j], r);
    t->kind = r;
    n->tc = t;
    LZ_PUSH(tcs, t);
  }
  for (int i = 0; i < k->classes.len; i++) {
    KClass *kc = k->classes.data[i];
    TcClass *c = LZ_NEW(TcClass);
    c->name = kc->name;
    c->k = kc;
    c->kparam = fe_tc_kvar();
    kc->name->tc = c;
  }
  /* 2. constraints from the declarations */
  for (int i = 0; i < tcs.len; i++) {
    TcTyCon *t = tcs.data[i];
    FeDecl *d = t->decl;
    TcKEnv env = {0};
    for (int j = 0; j < t->arity; j++) {
      LZ_PUSH(env.names, d->tyvars.data[j].ref);
      LZ_PUSH(env.kinds, t->pkinds[j]);
    }
    if (t->is_syn) {
      TcKind *rk = t->kind;
      for (int j = 0; j < t->arity; j++)
        rk = kprune(rk)->res;
      TcKind *got = fe_tc_kind_infer(d->rhs_type, &env);
      if (!fe_tc_kunify(rk, got))
        fe_tc_error(d->rhs_type->span, "Expected kind ‘%s’, but ‘%s’ has kind ‘%s’",
                    fe_tc_kind_str(rk), fe_ty_str(d->rhs_type), fe_tc_kind_str(got));
      continue;
    }
    for (int c = 0; c < d->cons.len; c++)
      for (int f = 0; f < d->cons.data[c]->fields.len; f++)
        fe_tc_kind_check(d->cons.data[c]->fields.data[f].type, &env, &k_star);
  }
  for (int i = 0; i < k->classes.len; i++) {
    KClass *kc = k->classes.data[i];
    TcClass *c = kc->name->tc;
    FeDecl *d = kc->decl;
    if (!d || d->tyvars.len != 1) continue;
    TcKEnv env = {0};
    LZ_PUSH(env.names, d->tyvars.data[0].ref);
    LZ_PUSH(env.kinds, c->kparam);
    if (d->sig)
      for (int j = 0; j < d->sig->ctx.len; j++)
        kind_pred(&d->sig->ctx.data[j], &env);
    for (int j = 0; j < kc->sigs.len; j++) {
      FeQualType *q = kc->sigs.data[j];
      TcKEnv e2 = {0};
      e2.implicit = true;
      LZ_PUSH(e2.names, d->tyvars.data[0].ref);
      LZ_PUSH(e2.kinds, c->kparam);
      fe_tc_kind_check(q->type, &e2, &k_star);
      for (int p = 0; p < q->ctx.len; p++)
        kind_pred(&q->ctx.data[p], &e2);
    }
  }
  /* 3. default and build */
  for (int i = 0; i < tcs.len; i++) {
    TcTyCon *t = tcs.data[i];
    t->ckind = fe_tc_kind_default(t->kind);
    if (!t->is_syn) make_tycon(t);
  }
  for (int i = 0; i < k->classes.len; i++) {
    TcClass *c = k->classes.data[i]->name->tc;
    fe_tc_kind_default(c->kparam);
  }
  for (int i = 0; i < tcs.len; i++)
    if (!tcs.data[i]->is_syn && tcs.data[i]->tc->sort != TC_PRIM) {
      make_cons(tcs.data[i]);
    }
  for (int i = 0; i < tcs.len; i++)
    if (!tcs.data[i]->is_syn) fe_tc_note_tycon(tcs.data[i]->tc);
  for (int i = 0; i < tcs.len; i++)
    if (tcs.data[i]->is_syn) convert_synonym(tcs.data[i]);
}

/* ---- instance heads -------------------------------------------------------------------- */

CoreType *fe_tc_inst_head(TcClass *c, FeQualType *q, LzSpan at, int *ntvs, CoreTyVar ***tvs,
                          int *nctx, TcClass ***ctx_cls, CoreType ***ctx_types) {
  TcKEnv env = {0};
  env.implicit = true;
  fe_tc_kind_check(q->type, &env, c->kparam);
  for (int i = 0; i < q->ctx.len; i++)
    kind_pred(&q->ctx.data[i], &env);
  int n = env.names.len;
  ConvEnv cenv = {n, LZ_NEW_ARRAY(FeName *, n + 1), LZ_NEW_ARRAY(CoreType *, n + 1)};
  CoreTyVar **vs = LZ_NEW_ARRAY(CoreTyVar *, n + 1);
  for (int i = 0; i < n; i++) {
    vs[i] = core_tyvar_new(env.names.data[i]->occ, fe_tc_kind_default(env.kinds.data[i]));
    cenv.names[i] = env.names.data[i];
    cenv.types[i] = core_type_var(vs[i]);
  }
  /* Haskell 2010: the head is T a1 .. an, T not a synonym, the ai distinct variables */
  FeType *h = q->type;
  int nargs = 0;
  while (h->kind == TY_APP)
    h = h->left, nargs++;
  char *pred = lz_fmt("%s %s", c->name->occ, fe_ty_str(q->type));
  if (h->kind == TY_APP || h->kind == TY_VAR) {
    fe_tc_error(at,
                "Illegal instance declaration for ‘%s’\n(All instance types must be of the form (T "
                "a1 ... an)\n where a1 ... an are *distinct type variables*,\n and each type "
                "variable appears at most once in the instance head.",
                pred);
    return NULL;
  }
  if (h->kind == TY_CON) {
    TcTyCon *tc = fe_tc_tycon(h->id.ref);
    if (tc && tc->is_syn) {
      fe_tc_error(at,
                  "Illegal instance declaration for ‘%s’\n(All instance types must be of the form "
                  "(T t1 ... tn)\n where T is not a synonym.",
                  pred);
      return NULL;
    }
  }
  if (h->kind == TY_FUN) nargs = 2;
  FeType **args = LZ_NEW_ARRAY(FeType *, nargs + 1);
  if (q->type->kind == TY_FUN) {
    args[0] = q->type->left;
    args[1] = q->type->right;
  } else {
    int i = nargs;
    for (FeType *x = q->type; x->kind == TY_APP; x = x->left)
      args[--i] = x->right;
  }
  for (int i = 0; i < nargs; i++) {
    bool ok = args[i]->kind == TY_VAR;
    for (int j = 0; ok && j < i; j++)
      if (args[j]->id.ref == args[i]->id.ref) ok = false;
    if (!ok) {
      fe_tc_error(at,
                  "Illegal instance declaration for ‘%s’\n(All instance types must be of the form "
                  "(T a1 ... an)\n where a1 ... an are *distinct type variables*,\n and each type "
                  "variable appears at most once in the instance head.",
                  pred);
      return NULL;
    }
  }
  CoreType *head = convert(q->type, &cenv, 0);
  /* instance variables in head order */
  for (int i = 0; i < nargs; i++)
    for (int j = 0; j < n; j++)
      if (cenv.names[j] == args[i]->id.ref) {
        CoreTyVar *t = vs[i];
        vs[i] = vs[j];
        vs[j] = t;
        FeName *tn = cenv.names[i];
        cenv.names[i] = cenv.names[j];
        cenv.names[j] = tn;
        CoreType *tt = cenv.types[i];
        cenv.types[i] = cenv.types[j];
        cenv.types[j] = tt;
      }
  *ntvs = n;
  *tvs = vs;
  *nctx = 0;
  *ctx_cls = LZ_NEW_ARRAY(TcClass *, q->ctx.len + 1);
  *ctx_types = LZ_NEW_ARRAY(CoreType *, q->ctx.len + 1);
  for (int i = 0; i < q->ctx.len; i++) {
    TcClass *pc = fe_tc_class(q->ctx.data[i].cls.ref);
    if (!pc) continue;
    (*ctx_cls)[*nctx] = pc;
    (*ctx_types)[(*nctx)++] = convert(q->ctx.data[i].type, &cenv, 0);
  }
  return head;
}
