/* tc_expr.c — type inference and elaboration of kernel expressions.
 *
 * fe_tc_expr(e, expected) checks e against an expected type (a fresh meta when
 * nothing is known) and returns the Core for e at once. Expected types flow inwards
 * through lambdas, lets, case alternatives, annotations and the arguments of
 * applications (whose function type is inferred first), so a mismatch is reported at
 * the innermost kernel node whose span GHC would blame, with GHC's wording
 * ("Couldn't match expected type ‘Bool’ with actual type ‘Int’").
 *
 * Constructors are elaborated to saturated CE_CON (eta-expanded when partially
 * applied, with already-given arguments let-bound so they stay shared); arguments of
 * strict fields are evaluated with a case first. Newtype constructors become CE_CAST,
 * and a case on a newtype constructor binds the field with a let of a cast — it does
 * not evaluate. Overloaded literals become `fromInteger @t <dict> 3` and are
 * specialised later (see fe_tc_fix_literals).
 */
#include <stdlib.h>
#include <string.h>

#include "tc_internal.h"

enum { MAX_DEPTH = 20000 };

CoreVar *fe_tc_local(Sym name, CoreType *t, LzSpan at) {
  return core_var_new(name ? name : lz_sym("x"), t, at);
}

CoreVar *fe_tc_global(Sym name, CoreType *t, Sym module, LzSpan at) {
  CoreVar *v = core_var_new(name, t, at);
  v->global = true;
  v->module = module;
  return v;
}

const char *fe_tc_occ_str(FeName *n) { return n && n->occ ? n->occ : "?"; }

CoreExpr *fe_tc_case(CoreExpr *scrut, CoreVar *binder, CoreType *ty, int nalts, CoreAlt *alts,
                     LzSpan at) {
  CoreExpr *c = core_expr_new(CE_CASE, at);
  c->body = scrut;
  c->var = binder;
  c->type = ty;
  c->nalts = nalts;
  c->alts = alts;
  return c;
}

static bool unlifted(CoreType *t) {
  CoreType *args[1];
  int n;
  CoreType *h = fe_tc_spine(t, args, 0, &n);
  return h->kind == CT_CON && h->con->unlifted;
}

CoreExpr *fe_tc_con_expr(CoreDataCon *con, CoreType **tyargs, CoreExpr **args, LzSpan at) {
  CoreTyCon *tc = con->tycon;
  fe_tc_note_tycon(tc);
  CoreType *res = fe_tc_con_app(tc, tc->arity, tyargs);
  if (tc->sort == TC_NEWTYPE) {
    CoreExpr *c = core_expr_new(CE_CAST, at);
    c->body = args[0];
    c->type = res;
    return c;
  }
  CoreExpr *e = core_expr_new(CE_CON, at);
  e->con = con;
  e->ntyargs = tc->arity;
  e->tyargs = LZ_NEW_ARRAY(CoreType *, tc->arity + 1);
  for (int i = 0; i < tc->arity; i++)
    e->tyargs[i] = tyargs[i];
  e->nargs = con->arity;
  e->args = LZ_NEW_ARRAY(CoreExpr *, con->arity + 1);
  for (int i = 0; i < con->arity; i++)
    e->args[i] = args[i];
  CoreExpr *out = e;
  for (int i = con->arity - 1; i >= 0; i--) {
    if (!con->strict[i] || args[i]->kind == CE_LIT) continue;
    CoreType *ft = fe_tc_subst(con->fields[i], tc->arity, tc->params, tyargs);
    if (unlifted(ft)) continue;
    CoreVar *b = fe_tc_local(lz_sym("$s"), ft, at);
    e->args[i] = core_var(b);
    CoreAlt *alt = LZ_NEW(CoreAlt);
    alt->kind = ALT_DEFAULT;
    alt->rhs = out;
    out = fe_tc_case(args[i], b, res, 1, alt, at);
  }
  return out;
}

CoreExpr *fe_tc_string_expr(const char *s, size_t len, LzSpan at) {
  bool plain = true;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)s[i] >= 0x80 || s[i] == 0) plain = false;
  FeName *fn =
      !plain && fe_tc.unpack_cstring_utf8 ? fe_tc.unpack_cstring_utf8 : fe_tc.unpack_cstring;
  TcVar *v = fe_tc_var(fn);
  CoreExpr *lit = core_expr_new(CE_LIT, at);
  lit->lit.kind = CL_STRING;
  if (!plain) { /* NUL as the two bytes C0 80 (modified UTF-8), as GHC does */
    char *b = lz_alloc(len * 2 + 1);
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
      if (s[i] == 0) {
        b[k++] = (char)0xC0;
        b[k++] = (char)0x80;
      } else {
        b[k++] = s[i];
      }
    }
    s = b;
    len = k;
  }
  lit->lit.str = lz_strndup(s, len);
  lit->lit.len = len;
  if (!v || !v->cv) {
    fe_tc_error(at, "internal: unpackCString# is not available (is Lz.Base loaded?)");
    return fe_tc_hole(at);
  }
  return core_app(core_var(v->cv), lit);
}

/* ---- literals --------------------------------------------------------------------------- */

static CoreType *list_of(CoreType *t) { return fe_tc_con_app(core_list_tycon(), 1, &t); }

static CoreType *prim_type(CoreTyCon *tc, LzSpan at, const char *what) {
  if (!tc) {
    fe_tc_error(at, "internal: primitive type %s is not available", what);
    return fe_tc_meta(NULL, NULL);
  }
  fe_tc_note_tycon(tc);
  return core_type_con(tc);
}

static CoreExpr *lit_expr(CoreLitKind k, LzSpan at) {
  CoreExpr *e = core_expr_new(CE_LIT, at);
  e->lit.kind = k;
  return e;
}

static CoreExpr *integer_lit(const char *digits, bool neg, int64_t i, bool fits, LzSpan at) {
  CoreExpr *e = lit_expr(CL_INTEGER, at);
  e->lit.str = neg ? lz_fmt("-%s", digits) : lz_strdup(digits);
  e->lit.fits = fits;
  e->lit.i = neg ? -i : i;
  return e;
}

static CoreExpr *overloaded(FeName *fn, CoreExpr *arg, CoreType *arg_ty, CoreType *expected,
                            FeLit *lit, LzSpan at, const char *origin) {
  TcVar *v = fe_tc_var(fn);
  if (!v || !v->cv) {
    fe_tc_error(at, "internal: %s is not available (is Lz.Base loaded?)",
                fn ? fn->occ : "fromInteger");
    return fe_tc_hole(at);
  }
  CoreType *rho;
  CoreExpr *f = fe_tc_instantiate(core_var(v->cv), v->cv->type, &rho, at, origin);
  CoreType *res = fe_tc_meta(NULL, lz_sym("a"));
  fe_tc_unify(rho, core_type_fun(arg_ty, res), at);
  CoreExpr *node = core_app(f, arg);
  TcLitFix fx = {node, res, *lit};
  LZ_PUSH(fe_tc.lits, fx);
  fe_tc_unify(expected, res, at);
  return node;
}

static CoreExpr *literal(KExpr *e, CoreType *exp) {
  FeLit *l = &e->lit;
  LzSpan at = e->span;
  switch (l->kind) {
  case L_INT: {
    const char *origin = lz_fmt("the literal ‘%s%s’", l->negative ? "-" : "", l->digits);
    if (!fe_tc.integer_tc) {
      fe_tc_error(at, "internal: Integer is not available (is Lz.Base loaded?)");
      return fe_tc_hole(at);
    }
    return overloaded(fe_tc.from_integer, integer_lit(l->digits, l->negative, l->i, l->fits, at),
                      core_type_con(fe_tc.integer_tc), exp, l, at, origin);
  }
  case L_FRAC: {
    if (!fe_tc.ratio_con || !fe_tc.ratio_tc || !fe_tc.integer_tc) {
      fe_tc_error(at, "internal: Ratio is not available (is Lz.Base loaded?)");
      return fe_tc_hole(at);
    }
    /* mantissa * 10^exp10 as a reduced fraction n :% d */
    const char *m = l->mantissa ? l->mantissa : "0";
    char *num, *den;
    int e10 = l->exp10;
    if (e10 >= 0) {
      num = lz_alloc(strlen(m) + (size_t)e10 + 1);
      strcpy(num, m);
      for (int i = 0; i < e10; i++)
        strcat(num, "0");
      den = lz_strdup("1");
    } else {
      num = lz_strdup(m);
      int k = -e10;
      den = lz_alloc((size_t)k + 2);
      den[0] = '1';
      for (int i = 0; i < k; i++)
        den[i + 1] = '0';
      den[k + 1] = 0;
      /* divide both by 2 and 5 while possible (gcd(n, 10^k) = 2^i 5^j) */
      for (int p = 2; p <= 5; p += 3)
        for (;;) {
          size_t nl = strlen(num), dl = strlen(den);
          int rn = 0, rd = 0;
          for (size_t i = 0; i < nl; i++)
            rn = (rn * 10 + (num[i] - '0')) % p;
          for (size_t i = 0; i < dl; i++)
            rd = (rd * 10 + (den[i] - '0')) % p;
          if (rn || rd || !strcmp(den, "1")) break;
          char *bufs[2] = {num, den};
          for (int b = 0; b < 2; b++) {
            char *s = bufs[b];
            size_t sl = strlen(s);
            int r = 0, o = 0;
            for (size_t i = 0; i < sl; i++) {
              int cur = r * 10 + (s[i] - '0');
              int q = cur / p;
              r = cur % p;
              if (o || q) s[o++] = (char)('0' + q);
            }
            if (!o) s[o++] = '0';
            s[o] = 0;
          }
        }
    }
    while (num[0] == '0' && num[1])
      num++;
    bool nfits = strlen(num) < 19, dfits = strlen(den) < 19;
    CoreExpr *args[2] = {
        integer_lit(num, l->negative, nfits ? strtoll(num, NULL, 10) : 0, nfits, at),
        integer_lit(den, false, dfits ? strtoll(den, NULL, 10) : 0, dfits, at)};
    CoreType *it = core_type_con(fe_tc.integer_tc);
    CoreExpr *r = fe_tc_con_expr(fe_tc.ratio_con, &it, args, at);
    const char *origin = lz_fmt("the literal ‘%s’", l->mantissa ? l->mantissa : "");
    return overloaded(fe_tc.from_rational, r, fe_tc_con_app(fe_tc.ratio_tc, 1, &it), exp, l, at,
                      origin);
  }
  case L_CHAR: {
    CoreExpr *c = lit_expr(CL_CHAR, at);
    c->lit.i = l->ch;
    if (!fe_tc.char_con) {
      fe_tc_error(at, "internal: Char is not available");
      return fe_tc_hole(at);
    }
    fe_tc_unify(exp, core_type_con(fe_tc.char_tc), at);
    return fe_tc_con_expr(fe_tc.char_con, NULL, &c, at);
  }
  case L_STRING:
    fe_tc_unify(exp, list_of(prim_type(fe_tc.char_tc, at, "Char")), at);
    return fe_tc_string_expr(l->str, l->len, at);
  case L_PRIM_INT: {
    CoreExpr *c = lit_expr(CL_INT, at);
    c->lit.i = l->negative ? -l->i : l->i;
    fe_tc_unify(exp, prim_type(fe_tc.int_prim, at, "Int#"), at);
    return c;
  }
  case L_PRIM_DOUBLE: {
    CoreExpr *c = lit_expr(CL_DOUBLE, at);
    c->lit.d = l->negative ? -l->d : l->d;
    fe_tc_unify(exp, prim_type(fe_tc.double_prim, at, "Double#"), at);
    return c;
  }
  case L_PRIM_CHAR: {
    CoreExpr *c = lit_expr(CL_CHAR, at);
    c->lit.i = l->ch;
    fe_tc_unify(exp, prim_type(fe_tc.char_prim, at, "Char#"), at);
    return c;
  }
  case L_PRIM_STRING: {
    CoreExpr *c = lit_expr(CL_STRING, at);
    c->lit.str = lz_strndup(l->str ? l->str : "", l->len);
    c->lit.len = l->len;
    fe_tc_unify(exp, prim_type(fe_tc.addr_prim, at, "Addr#"), at);
    return c;
  }
  }
  return fe_tc_hole(at);
}

/* ---- applications ------------------------------------------------------------------------ */

/* Apply fn (of type fty) to kernel arguments args[from..n); apps[i] is the K_APP node
 * whose argument is args[i] (for its span). */
static CoreExpr *apply_args(CoreExpr *fn, CoreType *fty, KExpr **args, KExpr **apps, int from,
                            int n, CoreType *exp, LzSpan span) {
  for (int i = from; i < n; i++) {
    CoreType *ft = fe_tc_prune(fty);
    CoreType *a, *r;
    if (ft->kind == CT_FUN) {
      a = ft->arg;
      r = ft->res;
    } else {
      a = fe_tc_meta(NULL, lz_sym("t"));
      r = fe_tc_meta(NULL, lz_sym("t"));
      fe_tc_unify(core_type_fun(a, r), ft, apps[i]->span);
    }
    fn = core_app(fn, fe_tc_expr(args[i], a));
    fn->span = apps[i]->span;
    fty = r;
  }
  fe_tc_unify(exp, fty, span);
  return fn;
}

static bool trivial(CoreExpr *e) { return e->kind == CE_VAR || e->kind == CE_LIT; }

static CoreExpr *con_app(KExpr *head, TcVar *v, KExpr **args, KExpr **apps, int nargs,
                         CoreType *exp, LzSpan span) {
  CoreDataCon *con = v->con;
  CoreTyCon *tc = con->tycon;
  CoreType **tyargs = LZ_NEW_ARRAY(CoreType *, tc->arity + 1);
  for (int i = 0; i < tc->arity; i++)
    tyargs[i] = fe_tc_meta(tc->params[i]->kind, tc->params[i]->name);
  int ar = con->arity;
  CoreType **fields = LZ_NEW_ARRAY(CoreType *, ar + 1);
  for (int i = 0; i < ar; i++)
    fields[i] = fe_tc_subst(con->fields[i], tc->arity, tc->params, tyargs);
  CoreType *res = fe_tc_con_app(tc, tc->arity, tyargs);
  int given = nargs < ar ? nargs : ar;
  CoreExpr **cargs = LZ_NEW_ARRAY(CoreExpr *, ar + 1);
  for (int i = 0; i < given; i++)
    cargs[i] = fe_tc_expr(args[i], fields[i]);
  CoreExpr *core;
  CoreType *ty = res;
  if (given == ar) {
    core = fe_tc_con_expr(con, tyargs, cargs, head->span);
  } else {
    CoreVar **lets = LZ_NEW_ARRAY(CoreVar *, ar + 1);
    CoreExpr **lrhs = LZ_NEW_ARRAY(CoreExpr *, ar + 1);
    int nlets = 0;
    for (int i = 0; i < given; i++)
      if (!trivial(cargs[i])) {
        CoreVar *lv = fe_tc_local(lz_sym("a"), fields[i], head->span);
        lets[nlets] = lv;
        lrhs[nlets++] = cargs[i];
        cargs[i] = core_var(lv);
      }
    CoreVar **ys = LZ_NEW_ARRAY(CoreVar *, ar + 1);
    for (int i = given; i < ar; i++) {
      ys[i] = fe_tc_local(lz_sym("x"), fields[i], head->span);
      cargs[i] = core_var(ys[i]);
    }
    core = fe_tc_con_expr(con, tyargs, cargs, head->span);
    for (int i = ar - 1; i >= given; i--) {
      core = core_lam(ys[i], core);
      ty = core_type_fun(fields[i], ty);
    }
    for (int i = nlets - 1; i >= 0; i--) {
      CoreExpr *l = core_expr_new(CE_LET, head->span);
      l->nbinds = 1;
      l->binds = LZ_NEW(CoreBind);
      l->binds[0].var = lets[i];
      l->binds[0].rhs = lrhs[i];
      l->body = core;
      core = l;
    }
  }
  return apply_args(core, ty, args, apps, given, nargs, exp, span);
}

static CoreExpr *var_expr(KExpr *e, CoreType **rho) {
  TcVar *v = fe_tc_var(e->var);
  if (!v || (!v->cv && !v->con)) {
    fe_tc_error(e->span, "internal: ‘%s’ has no type", fe_tc_occ_str(e->var));
    *rho = fe_tc_meta(NULL, NULL);
    return fe_tc_hole(e->span);
  }
  CoreExpr *x = core_var(v->cv);
  x->span = e->span;
  if (v->mono) {
    LZ_PUSH(v->occs, x);
    *rho = v->cv->type;
    return x;
  }
  return fe_tc_instantiate(x, v->cv->type, rho, e->span,
                           lz_fmt("a use of ‘%s’", fe_tc_occ_str(e->var)));
}

static CoreExpr *app_expr(KExpr *e, CoreType *exp) {
  int n = 0;
  KExpr *h = e;
  while (h->kind == K_APP) {
    n++;
    h = h->fn;
  }
  KExpr **args = LZ_NEW_ARRAY(KExpr *, n + 1), **apps = LZ_NEW_ARRAY(KExpr *, n + 1);
  int i = n;
  for (KExpr *x = e; x->kind == K_APP; x = x->fn) {
    --i;
    args[i] = x->arg;
    apps[i] = x;
  }
  if (h->kind == K_VAR) {
    TcVar *v = fe_tc_var(h->var);
    if (v && v->con) return con_app(h, v, args, apps, n, exp, e->span);
    CoreType *rho;
    CoreExpr *f = var_expr(h, &rho);
    return apply_args(f, rho, args, apps, 0, n, exp, e->span);
  }
  CoreType *ft = fe_tc_meta(NULL, lz_sym("t"));
  CoreExpr *f = fe_tc_expr(h, ft);
  return apply_args(f, ft, args, apps, 0, n, exp, e->span);
}

/* ---- case --------------------------------------------------------------------------------- */

static CoreLit core_lit_of(FeLit *l) {
  CoreLit c = {0};
  switch (l->kind) {
  case L_PRIM_INT:
    c.kind = CL_INT;
    c.i = l->negative ? -l->i : l->i;
    break;
  case L_PRIM_CHAR:
    c.kind = CL_CHAR;
    c.i = l->ch;
    break;
  case L_PRIM_DOUBLE:
    c.kind = CL_DOUBLE;
    c.d = l->negative ? -l->d : l->d;
    break;
  default: c.kind = CL_INT; break;
  }
  return c;
}

static TcVar *bind_local(FeName *n, CoreType *t, LzSpan at) {
  TcVar *v = LZ_NEW(TcVar);
  v->cv = fe_tc_local(n ? n->occ : lz_sym("wild"), t, at);
  if (n) n->tc = v;
  return v;
}

static CoreExpr *let1(CoreVar *v, CoreExpr *rhs, CoreExpr *body, LzSpan at) {
  CoreExpr *l = core_expr_new(CE_LET, at);
  l->nbinds = 1;
  l->binds = LZ_NEW(CoreBind);
  l->binds[0].var = v;
  l->binds[0].rhs = rhs;
  l->body = body;
  return l;
}

static CoreExpr *case_expr(KExpr *e, CoreType *exp) {
  CoreType *st = fe_tc_meta(NULL, lz_sym("t"));
  CoreExpr *scrut = fe_tc_expr(e->body, st);
  CoreVar *binder = bind_local(e->var, st, e->span)->cv;
  int na = e->alts.len;
  CoreAlt *alts = LZ_NEW_ARRAY(CoreAlt, na + 1);
  int k = 0;
  CoreTyCon *tc = NULL;
  CoreType **tyargs = NULL;
  for (int i = 0; i < na; i++) {
    KAlt *a = &e->alts.data[i];
    CoreAlt *ca = &alts[k];
    switch (a->kind) {
    case KA_CON: {
      TcVar *cv = fe_tc_var(a->con);
      if (!cv || !cv->con) {
        fe_tc_error(a->span, "internal: ‘%s’ is not a constructor", fe_tc_occ_str(a->con));
        continue;
      }
      CoreDataCon *con = cv->con;
      if (tc && con->tycon != tc) {
        CoreTyCon *t2 = con->tycon;
        CoreType **as = LZ_NEW_ARRAY(CoreType *, t2->arity + 1);
        for (int j = 0; j < t2->arity; j++)
          as[j] = fe_tc_meta(t2->params[j]->kind, t2->params[j]->name);
        fe_tc_unify(st, fe_tc_con_app(t2, t2->arity, as), a->span);
        continue;
      }
      if (!tc) {
        tc = con->tycon;
        tyargs = LZ_NEW_ARRAY(CoreType *, tc->arity + 1);
        for (int j = 0; j < tc->arity; j++)
          tyargs[j] = fe_tc_meta(tc->params[j]->kind, tc->params[j]->name);
        fe_tc_unify(st, fe_tc_con_app(tc, tc->arity, tyargs), a->span);
      }
      if (a->vars.len != con->arity) {
        fe_tc_error(a->span,
                    "The constructor ‘%s’ should have %d argument%s, but has been given %d",
                    con->name, con->arity, con->arity == 1 ? "" : "s", a->vars.len);
        continue;
      }
      ca->kind = ALT_CON;
      ca->con = con;
      ca->vars = LZ_NEW_ARRAY(CoreVar *, con->arity + 1);
      for (int j = 0; j < con->arity; j++) {
        CoreType *ft = fe_tc_subst(con->fields[j], tc->arity, tc->params, tyargs);
        ca->vars[j] = bind_local(a->vars.data[j], ft, a->span)->cv;
      }
      ca->rhs = fe_tc_expr(a->rhs, exp);
      if (tc->sort == TC_NEWTYPE) {
        /* no evaluation: let binder = scrut; v = binder |> rep in rhs */
        CoreExpr *cast = core_expr_new(CE_CAST, a->span);
        cast->body = core_var(binder);
        cast->type = ca->vars[0]->type;
        return let1(binder, scrut, let1(ca->vars[0], cast, ca->rhs, a->span), e->span);
      }
      k++;
      break;
    }
    case KA_LIT: {
      CoreTyCon *pt = a->lit.kind == L_PRIM_INT      ? fe_tc.int_prim
                      : a->lit.kind == L_PRIM_CHAR   ? fe_tc.char_prim
                      : a->lit.kind == L_PRIM_DOUBLE ? fe_tc.double_prim
                                                     : NULL;
      if (!pt) {
        fe_tc_error(a->span, "internal: unsupported literal pattern");
        continue;
      }
      fe_tc_unify(st, prim_type(pt, a->span, "primitive"), a->span);
      ca->kind = ALT_LIT;
      ca->lit = core_lit_of(&a->lit);
      ca->rhs = fe_tc_expr(a->rhs, exp);
      k++;
      break;
    }
    case KA_DEFAULT:
      ca->kind = ALT_DEFAULT;
      ca->rhs = fe_tc_expr(a->rhs, exp);
      k++;
      break;
    }
  }
  return fe_tc_case(scrut, binder, exp, k, alts, e->span);
}

/* ---- expressions ----------------------------------------------------------------------------- */

static CoreExpr *expr(KExpr *e, CoreType *exp) {
  switch (e->kind) {
  case K_VAR: {
    TcVar *v = fe_tc_var(e->var);
    if (v && v->con) return con_app(e, v, NULL, NULL, 0, exp, e->span);
    CoreType *rho;
    CoreExpr *x = var_expr(e, &rho);
    fe_tc_unify(exp, rho, e->span);
    return x;
  }
  case K_LIT: return literal(e, exp);
  case K_APP: return app_expr(e, exp);
  case K_LAM: {
    CoreType *t = fe_tc_prune(exp), *a, *r;
    if (t->kind == CT_FUN) {
      a = t->arg;
      r = t->res;
    } else {
      a = fe_tc_meta(NULL, lz_sym("p"));
      r = fe_tc_meta(NULL, lz_sym("t"));
      fe_tc_unify(exp, core_type_fun(a, r), e->span);
    }
    TcVar *v = bind_local(e->var, a, e->span);
    CoreExpr *body = fe_tc_expr(e->body, r);
    CoreExpr *l = core_lam(v->cv, body);
    l->span = e->span;
    return l;
  }
  case K_LET: {
    TcGroups groups = {0};
    fe_tc_bind_group(e->binds.data, e->binds.len, false, &groups);
    CoreExpr *body = fe_tc_expr(e->body, exp);
    return fe_tc_wrap_lets(&groups, body);
  }
  case K_CASE: return case_expr(e, exp);
  case K_ANNOT: {
    CoreType *sigma = fe_tc_sig_type(e->sig, 0, NULL, NULL, NULL, NULL, true);
    CoreType *p = fe_tc_prune(sigma);
    TcClass *c;
    if (p->kind != CT_FORALL && !(p->kind == CT_FUN && fe_tc_is_dict_type(p->arg, &c, NULL))) {
      CoreExpr *body = fe_tc_expr(e->body, sigma);
      fe_tc_unify(exp, sigma, e->span);
      return body;
    }
    CoreExpr *poly = fe_tc_check_sigma(e->body, sigma, "an expression type signature", e->span);
    CoreVar *tmp = fe_tc_local(lz_sym("annot"), sigma, e->span);
    CoreType *rho;
    CoreExpr *inst =
        fe_tc_instantiate(core_var(tmp), sigma, &rho, e->span, "an expression type signature");
    fe_tc_unify(exp, rho, e->span);
    return let1(tmp, poly, inst, e->span);
  }
  case K_SCC: {
    CoreExpr *s = core_expr_new(CE_SCC, e->span);
    s->scc = e->scc;
    s->scc_module = fe_tc.module;
    s->body = fe_tc_expr(e->body, exp);
    return s;
  }
  }
  return fe_tc_hole(e->span);
}

CoreExpr *fe_tc_expr(KExpr *e, CoreType *exp) {
  if (fe_tc.stop) return fe_tc_hole(e->span);
  if (fe_tc.depth >= MAX_DEPTH) {
    fe_tc_error(e->span, "Expression too deeply nested");
    fe_tc.stop = true;
    return fe_tc_hole(e->span);
  }
  fe_tc.depth++;
  CoreExpr *r = expr(e, exp);
  fe_tc.depth--;
  return r;
}
