/* desugar.c — the desugarer's entry point: the renamed program becomes a KProgram.
 *
 * Modules are walked in dependency order. Type declarations pass through unchanged
 * (the type checker reads them), record types get their field selector functions,
 * classes and instances keep their structure with translated method bindings, and
 * every value binding becomes a KBind. This file also holds binding groups, shared by
 * the top level, let and where:
 *   - a function `f p11 .. p1n | g = e ...; f p21 .. p2n = ...` becomes
 *     `f = \x1 .. xn -> <decision tree>` (match.c), failing with GHC's message
 *     "FILE:SPAN: Non-exhaustive patterns in function f";
 *   - a pattern binding `p = e` becomes `t = e` plus one selector `v = case t of p -> v`
 *     per variable (all restricted: no generalisation over constrained type
 *     variables), and, in a let, a bang `!p = e` forces the match before the body;
 *   - with -fprof-auto(-top), a function's body is wrapped in an SCC named as GHC
 *     names it ("f", nested "main.go"), inside the lambdas so that the cost centre is
 *     entered on each call; only user modules get them, not the standard library.
 */
#include <string.h>

#include "desugar_internal.h"

/* ---- shared helpers ------------------------------------------------------------------------- */

DsVar *fe_ds_var(FeName *n) {
  if (!n->ds) n->ds = LZ_NEW(DsVar);
  return n->ds;
}

FeName *fe_ds_fresh(const char *occ, LzSpan at) {
  return fe_name_new(N_VAR, lz_sym(occ ? occ : "ds"), NULL, at);
}

bool fe_ds_enter(Ds *d, LzSpan at) {
  if (d->depth >= DS_MAX_DEPTH) {
    if (!d->depth_reported) lz_error(at, "Expression too deeply nested");
    d->depth_reported = true;
    return false;
  }
  d->depth++;
  return true;
}

void fe_ds_leave(Ds *d) { d->depth--; }

FeName *fe_ds_wired_name(int id) {
  if (id <= 0 || id >= WIRED_COUNT) return NULL;
  if (!fe_wired[id]) {
    /* stand-in (the defining module was not loaded: hand-built trees in tests) */
    const FeWiredInfo *w = &fe_wired_info[id];
    FeNameKind kind = w->kind == W_CON     ? N_CON
                      : w->kind == W_TYPE  ? N_TYCON
                      : w->kind == W_CLASS ? N_CLASS
                                           : N_VAR;
    FeName *n = fe_name_new(kind, lz_sym(w->occ ? w->occ : "?"),
                            w->module ? lz_sym(w->module) : NULL, (LzSpan){0});
    n->top = true;
    n->wired = id;
    fe_wired[id] = n;
  }
  return fe_wired[id];
}

FeName *fe_ds_tuple_con(int n) {
  if (n == 0) return fe_builtin_unit();
  FeName *c = fe_builtin_tuple_con(n);
  return c ? c : fe_builtin_unit();
}

/* ---- function bindings -------------------------------------------------------------------------
 */

static FeQualType *find_sig(FeDecl **decls, int n, FeName *name) {
  for (int i = 0; i < n; i++) {
    FeDecl *s = decls[i];
    if (s->kind != D_SIG) continue;
    for (int k = 0; k < s->names.len; k++)
      if (s->names.data[k].ref == name) return s->sig;
  }
  return NULL;
}

static KExpr *rhs_body(Ds *d, void *env, MBind *binds, Fail *fail) {
  return fe_ds_rhs(d, env, fail);
}

/* {-# SCC name #-} inside the lambdas of body (GHC places cost-centre ticks inside
 * lambdas: the cost centre is entered on each call, not when the closure is built). */
static KExpr *scc(const char *name, KExpr *body, LzSpan at) {
  KExpr **slot = &body;
  while ((*slot)->kind == K_LAM)
    slot = &(*slot)->body;
  KExpr *s = k_new(K_SCC, at);
  s->scc = lz_sym(name);
  s->body = *slot;
  *slot = s;
  return body;
}

/* f p1 .. pn = rhs; ... (also x = rhs, n = 0). `name` is the bound name (for instance
 * methods and defaults, the class method). */
static KBind *fun_bind(Ds *d, FeDecl *decl, bool top, FeName *name) {
  int nm = decl->matches.len;
  if (nm == 0) {
    lz_error(decl->span, "internal: function binding without equations");
    return k_bind(name, fe_ds_pat_error("no equations", decl->span), decl->span);
  }
  FeMatch *m0 = decl->matches.data[0];
  int n = m0->pats.len;
  for (int i = 1; i < nm; i++)
    if (decl->matches.data[i]->pats.len != n) {
      lz_error(decl->matches.data[i]->span,
               "Equations for ‘%s’ have different numbers of arguments\n%s\n%s",
               name && name->occ ? name->occ : "?", lz_span_ghc(m0->span),
               lz_span_ghc(decl->matches.data[i]->span));
      return k_bind(name, fe_ds_pat_error("arity", decl->span), decl->span);
    }
  LzSpan span = lz_span_join(m0->span, decl->matches.data[nm - 1]->span);
  if (!lz_span_known(span)) span = decl->span;

  /* cost centre */
  const char *outer_cc = d->cc_path;
  const char *cc = NULL;
  if (d->prof && (top || d->prof_nested) && !decl->generated && name && name->occ) {
    cc = outer_cc ? lz_fmt("%s.%s", outer_cc, name->occ) : name->occ;
  }
  if (name && name->occ && !decl->generated)
    d->cc_path = outer_cc ? lz_fmt("%s.%s", outer_cc, name->occ) : name->occ;

  char *msg = lz_fmt("%s: Non-exhaustive patterns in function %s", lz_span_ghc(span),
                     name && name->occ ? name->occ : "?");
  KExpr *body;
  FeName **occ = LZ_NEW_ARRAY(FeName *, n > 0 ? n : 1);
  if (n == 0) {
    Fail *f = fe_ds_fail_new(fe_ds_pat_error(msg, span));
    body = fe_ds_fail_wrap(f, fe_ds_rhs(d, m0->rhs, fe_ds_rhs_can_fail(m0->rhs) ? f : NULL));
  } else {
    MProblem mp = {0};
    mp.ncols = n;
    mp.occ = occ;
    mp.nrows = nm;
    mp.pats = LZ_NEW_ARRAY(FePat **, nm);
    mp.bodies = LZ_NEW_ARRAY(MBody, nm);
    mp.ctx_span = span;
    for (int c = 0; c < n; c++) {
      FePat *p = m0->pats.data[c];
      if (nm == 1 && p->kind == P_VAR && p->id.ref) {
        occ[c] = p->id.ref; /* the parameter is the variable itself */
        continue;
      }
      const char *hint = NULL;
      for (int r = 0; r < nm && !hint; r++)
        hint = fe_ds_pat_name_hint(decl->matches.data[r]->pats.data[c]);
      occ[c] = fe_ds_fresh(hint ? hint : "ds", p->span);
    }
    for (int r = 0; r < nm; r++) {
      FeMatch *m = decl->matches.data[r];
      mp.pats[r] = LZ_NEW_ARRAY(FePat *, n);
      for (int c = 0; c < n; c++)
        mp.pats[r][c] =
            (nm == 1 && occ[c] == m->pats.data[c]->id.ref && m->pats.data[c]->kind == P_VAR)
                ? NULL
                : m->pats.data[c];
      mp.bodies[r].build = rhs_body;
      mp.bodies[r].env = m->rhs;
      mp.bodies[r].can_fail = fe_ds_rhs_can_fail(m->rhs);
      mp.bodies[r].span = m->span;
    }
    Fail *f = fe_ds_fail_new(fe_ds_pat_error(msg, span));
    body = fe_ds_fail_wrap(f, fe_ds_match(d, &mp, f));
  }
  if (cc) body = scc(cc, body, span);
  for (int c = n - 1; c >= 0; c--)
    body = k_lam(occ[c], body, span);
  d->cc_path = outer_cc;
  KBind *b = k_bind(name, body, span);
  return b;
}

/* ---- pattern bindings --------------------------------------------------------------------------
 */

static FePat *strip_parens(FePat *p) {
  while (p && p->kind == P_PAREN && p->sub)
    p = p->sub;
  return p;
}

typedef LZ_VEC(KExpr *) KExprVec;

/* The source text of a one-line span (GHC quotes bindings as written), else "...". */
static const char *source_text(LzSpan s) {
  LzSource *src = lz_source_get(s.file);
  if (!src || s.line != s.eline || s.ecol < s.col) return "...";
  const char *p = src->text, *end = src->text + src->len;
  for (int l = 1; l < s.line && p < end; p++)
    if (*p == '\n') l++;
  if ((size_t)(end - p) < (size_t)s.ecol) return "...";
  char *t = lz_strndup(p + s.col - 1, (size_t)(s.ecol - s.col + 1));
  return strchr(t, '\n') ? "..." : t;
}

/* p = rhs. Appends the bindings to out; for a bang pattern in a let, the expression to
 * force before the body to forces. */
static void pat_bind(Ds *d, FeDecl *decl, FeDecl **group, int ngroup, bool top, KBindVec *out,
                     KExprVec *forces) {
  FePat *p = strip_parens(decl->pat);
  bool bang = false;
  for (;;) {
    if (p && p->kind == P_BANG && p->sub) {
      bang = true;
      p = strip_parens(p->sub);
    } else if (p && p->kind == P_LAZY && p->sub && !bang) {
      p = strip_parens(p->sub); /* a pattern binding is lazy anyway */
    } else {
      break;
    }
  }
  if (!p) return;
  fe_ds_check_pat(d, decl->pat);
  if (bang && top) {
    lz_error(decl->span, "Top-level strict bindings aren't allowed: %s", source_text(decl->span));
    return;
  }
  LzSpan span = decl->span;
  bool can_fail = fe_ds_rhs_can_fail(decl->rhs);
  char *gmsg = lz_fmt("%s: Non-exhaustive guards in ", lz_span_ghc(span));
  Fail *gf = fe_ds_fail_new(fe_ds_pat_error(gmsg, span));
  KExpr *rhs = fe_ds_fail_wrap(gf, fe_ds_rhs(d, decl->rhs, can_fail ? gf : NULL));
  if (p->kind == P_VAR && p->id.ref) {
    KBind *b = k_bind(p->id.ref, rhs, span);
    b->restricted = true;
    b->sig = find_sig(group, ngroup, p->id.ref);
    LZ_PUSH(*out, b);
    if (bang && forces) LZ_PUSH(*forces, k_var(p->id.ref, span));
    return;
  }
  FeName *t = fe_ds_fresh("p", span);
  KBind *tb = k_bind(t, rhs, span);
  tb->restricted = true;
  LZ_PUSH(*out, tb);
  FeNameVec vars = {0};
  fe_ds_pat_vars(p, &vars);
  for (int i = 0; i < vars.len; i++) {
    KBind *b = k_bind(vars.data[i], fe_ds_selector(d, t, p, vars.data[i], span), span);
    b->restricted = true;
    b->sig = find_sig(group, ngroup, vars.data[i]);
    LZ_PUSH(*out, b);
  }
  if (bang && forces) {
    LZ_PUSH(*forces, fe_ds_selector(d, t, p, NULL, span));
  } else if (vars.len == 0) {
    /* never evaluated (GHC does not either), but the pattern must be type checked */
    KBind *b = k_bind(fe_ds_fresh("unused", span), fe_ds_selector(d, t, p, NULL, span), span);
    b->restricted = true;
    LZ_PUSH(*out, b);
  }
}

/* ---- binding groups ----------------------------------------------------------------------------
 */

static void decls_impl(Ds *d, FeDecl **decls, int n, bool top, KBindVec *out, KExprVec *forces) {
  for (int i = 0; i < n; i++) {
    FeDecl *decl = decls[i];
    switch (decl->kind) {
    case D_FUN: {
      FeName *name = decl->name.ref;
      if (!name) continue;
      KBind *b = fun_bind(d, decl, top, name);
      b->sig = find_sig(decls, n, name);
      b->restricted = decl->matches.len > 0 && decl->matches.data[0]->pats.len == 0 && !b->sig;
      LZ_PUSH(*out, b);
      break;
    }
    case D_PAT: pat_bind(d, decl, decls, n, top, out, forces); break;
    case D_FOREIGN: {
      if (!decl->name.ref) continue;
      KBind *b = k_bind(decl->name.ref, NULL, decl->span);
      b->foreign_decl = decl;
      b->sig = decl->sig;
      LZ_PUSH(*out, b);
      break;
    }
    default: break;
    }
  }
}

void fe_ds_decls(Ds *d, FeDecl **decls, int n, bool top, KBindVec *out) {
  decls_impl(d, decls, n, top, out, NULL);
}

KExpr *fe_ds_let_decls(Ds *d, FeDecl **decls, int n, LzSpan at, KExpr *(*body)(Ds *, void *),
                       void *env) {
  KBindVec binds = {0};
  KExprVec forces = {0};
  decls_impl(d, decls, n, false, &binds, &forces);
  KExpr *e = body(d, env);
  for (int i = forces.len - 1; i >= 0; i--) {
    KExpr *c = k_new(K_CASE, forces.data[i]->span);
    c->body = forces.data[i];
    KAlt a = {0};
    a.kind = KA_DEFAULT;
    a.rhs = e;
    a.span = e->span;
    LZ_PUSH(c->alts, a);
    e = c;
  }
  if (binds.len == 0) return e;
  KExpr *let = k_new(K_LET, at);
  for (int i = 0; i < binds.len; i++)
    LZ_PUSH(let->binds, binds.data[i]);
  let->body = e;
  return let;
}

/* ---- classes and instances ----------------------------------------------------------------------
 */

static void class_decl(Ds *d, FeDecl *decl) {
  KClass *c = LZ_NEW(KClass);
  c->name = decl->name.ref;
  c->decl = decl;
  for (int i = 0; i < decl->body.len; i++) {
    FeDecl *s = decl->body.data[i];
    if (s->kind != D_SIG) continue;
    for (int k = 0; k < s->names.len; k++) {
      if (!s->names.data[k].ref) continue;
      LZ_PUSH(c->methods, s->names.data[k].ref);
      LZ_PUSH(c->sigs, s->sig);
    }
  }
  for (int i = 0; i < decl->body.len; i++) {
    FeDecl *s = decl->body.data[i];
    if (s->kind == D_FUN && s->name.ref) {
      LZ_PUSH(c->defaults, fun_bind(d, s, true, s->name.ref));
    } else if (s->kind == D_PAT) {
      lz_error(s->span,
               "Pattern bindings (except simple variables) not allowed in class "
               "declaration:\n  %s",
               fe_ds_pat_string(s->pat));
    }
  }
  LZ_PUSH(d->prog->classes, c);
}

static void instance_decl(Ds *d, FeDecl *decl) {
  KInstance *in = LZ_NEW(KInstance);
  in->cls = decl->name.ref;
  in->decl = decl;
  in->span = decl->span;
  in->derived = decl->generated;
  for (int i = 0; i < decl->body.len; i++) {
    FeDecl *s = decl->body.data[i];
    if (s->kind == D_FUN && s->name.ref) {
      if (decl->generated) s->generated = true; /* no cost centres in derived code */
      LZ_PUSH(in->methods, fun_bind(d, s, true, s->name.ref));
    } else if (s->kind == D_PAT) {
      lz_error(s->span,
               "Pattern bindings (except simple variables) not allowed in instance "
               "declaration:\n  %s",
               fe_ds_pat_string(s->pat));
    }
  }
  LZ_PUSH(d->prog->instances, in);
}

/* ---- the program --------------------------------------------------------------------------------
 */

static bool from_stdlib(const FeModule *m, const FeOptions *opts) {
  if (!opts || !opts->stdlib_dir || !m->src || !m->src->path) return false;
  size_t n = strlen(opts->stdlib_dir);
  while (n > 1 && opts->stdlib_dir[n - 1] == '/')
    n--;
  return n > 0 && strncmp(m->src->path, opts->stdlib_dir, n) == 0 &&
         (m->src->path[n] == '/' || m->src->path[n] == 0);
}

static FeName *find_main(FeModule *m) {
  Sym main_sym = lz_sym("main");
  for (int i = 0; i < m->decls.len; i++) {
    FeDecl *decl = m->decls.data[i];
    if (decl->kind == D_FUN && decl->name.ref && decl->name.ref->occ == main_sym)
      return decl->name.ref;
    if (decl->kind == D_PAT) {
      FeNameVec vars = {0};
      fe_ds_pat_vars(decl->pat, &vars);
      for (int k = 0; k < vars.len; k++)
        if (vars.data[k]->occ == main_sym) return vars.data[k];
    }
  }
  return NULL;
}

static LzSpan module_span(FeModule *m) {
  if (lz_span_known(m->name.span)) return m->name.span;
  LzSpan s = {m->src ? m->src->id : 0, 1, 1, 1, 1};
  return s;
}

KProgram *fe_desugar_program(FeProgram *p, const FeOptions *opts) {
  static const FeOptions no_opts;
  if (!opts) opts = &no_opts;
  int errors = lz_error_count();
  KProgram *k = LZ_NEW(KProgram);
  Ds ds = {0};
  Ds *d = &ds;
  d->opts = opts;
  d->prog = k;
  for (int mi = 0; mi < p->modules.len; mi++) {
    FeModule *m = p->modules.data[mi];
    d->mod = m;
    d->prof = (opts->prof_auto || opts->prof_auto_top) && !from_stdlib(m, opts);
    d->prof_nested = opts->prof_auto;
    d->cc_path = NULL;
    KBindVec binds = {0};
    LZ_PUSH(k->modules, m);
    for (int i = 0; i < m->decls.len; i++) {
      FeDecl *decl = m->decls.data[i];
      switch (decl->kind) {
      case D_DATA:
      case D_NEWTYPE:
        LZ_PUSH(k->types, decl);
        fe_ds_selectors(d, decl, &binds);
        break;
      case D_TYPE: LZ_PUSH(k->types, decl); break;
      case D_CLASS: class_decl(d, decl); break;
      case D_INSTANCE: instance_decl(d, decl); break;
      case D_DEFAULT:
        if (m == p->main) LZ_PUSH(k->defaults, decl);
        break;
      default: break;
      }
    }
    fe_ds_decls(d, m->decls.data, m->decls.len, true, &binds);
    for (int i = 0; i < binds.len; i++)
      LZ_PUSH(k->binds, binds.data[i]);
  }
  if (p->main) {
    Sym mod = p->main->name.name ? p->main->name.name : lz_sym("Main");
    k->main = find_main(p->main);
    if (!k->main) {
      lz_error(module_span(p->main), "The IO action ‘main’ is not defined in module ‘%s’", mod);
    } else if (p->main->has_exports) {
      bool exported = false;
      for (int i = 0; i < p->main->exported.len && !exported; i++)
        exported = p->main->exported.data[i] == k->main;
      if (!exported)
        lz_error(module_span(p->main), "The IO action ‘main’ is not exported by module ‘%s’", mod);
    }
  }
  return lz_error_count() > errors ? NULL : k;
}
