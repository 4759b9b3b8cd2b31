/* rename_decl.c — renaming of declarations and types (stage 3 of a module), and of
 * local binding groups.
 *
 * Type variables follow Haskell 2010 without ScopedTypeVariables: a signature's free
 * variables are implicitly quantified over that signature alone (fresh FeNames per
 * signature); a data or synonym declaration's parameters are the only variables its
 * right-hand side may use; a class's variable is shared by its context and its method
 * signatures; an instance head's variables scope over the instance context. Method
 * bindings in class and instance bodies resolve to the class's method FeNames, found
 * through the class declaration whatever is in scope.
 *
 * A binding group (top level, let, where) is one recursive scope: its binders are
 * made and brought into scope, its fixity declarations attached and signatures
 * matched, and only then are the bodies renamed. */
#include "rename_internal.h"

/* ---- types -------------------------------------------------------------------------- */

void fe_rn_type(RnCtx *c, FeType *t) {
  if (!t) return;
  if (c->depth >= RN_MAX_DEPTH) {
    if (c->depth++ == RN_MAX_DEPTH) lz_error(t->span, "Type nested too deeply");
    return;
  }
  c->depth++;
  switch (t->kind) {
  case TY_VAR: {
    if (t->id.ref) break;
    FeName *n = fe_rn_tv_lookup(c, t->id.name);
    if (!n && c->implicit_tvs) {
      n = fe_name_new(N_TYVAR, t->id.name, NULL, t->id.span);
      fe_rn_tv_bind(c, n);
    } else if (!n) {
      lz_error(t->id.span, "Not in scope: type variable ‘%s’", t->id.name);
      n = fe_rn_placeholder(N_TYVAR, t->id.name, t->id.span);
    }
    t->id.ref = n;
    break;
  }
  case TY_CON: fe_rn_lookup_type(c, &t->id, RN_WANT_TYPE); break;
  case TY_APP:
  case TY_FUN:
    fe_rn_type(c, t->left);
    fe_rn_type(c, t->right);
    break;
  }
  c->depth--;
}

void fe_rn_pred(RnCtx *c, FePred *p) {
  fe_rn_lookup_type(c, &p->cls, RN_WANT_CLASS);
  fe_rn_type(c, p->type);
}

void fe_rn_qualtype(RnCtx *c, FeQualType *q, bool implicit) {
  if (!q) return;
  bool saved = c->implicit_tvs;
  c->implicit_tvs = implicit;
  for (int i = 0; i < q->ctx.len; i++)
    fe_rn_pred(c, &q->ctx.data[i]);
  fe_rn_type(c, q->type);
  c->implicit_tvs = saved;
}

/* A signature: its own implicitly quantified type variables. */
static void rn_sig(RnCtx *c, FeQualType *q) {
  int mark = fe_rn_tv_mark(c);
  fe_rn_qualtype(c, q, true);
  fe_rn_tv_pop(c, mark);
}

/* Bind declared type parameters (data, type, class) in the type-variable scope. */
static void bind_tyvars(RnCtx *c, FeIdent *tvs, int n) {
  RnNames names = {0};
  for (int i = 0; i < n; i++) {
    FeName *v = fe_name_new(N_TYVAR, tvs[i].name, NULL, tvs[i].span);
    tvs[i].ref = v;
    LZ_PUSH(names, v);
  }
  fe_rn_check_conflicts(&names, NULL);
  for (int i = 0; i < names.len; i++)
    fe_rn_tv_bind(c, names.data[i]);
}

/* ---- binding groups ------------------------------------------------------------------ */

/* Attach the fixities and check the signatures of a group whose binders are `group`
 * (occurrence name -> FeName). */
static void group_fixities_and_sigs(RnCtx *c, FeDecl **decls, int n, RnMap *group) {
  RnMap fix_seen = {0}, sig_seen = {0};
  for (int i = 0; i < n; i++) {
    FeDecl *d = decls[i];
    if (d->kind != D_FIXITY && d->kind != D_SIG) continue;
    for (int j = 0; j < d->names.len; j++) {
      FeIdent *id = &d->names.data[j];
      FeName *b = fe_rn_get(group, id->name);
      const char *what = d->kind == D_FIXITY ? "fixity" : "type";
      if (!b) {
        lz_error(id->span, "The %s signature for ‘%s’ lacks an accompanying binding", what,
                 id->name);
        id->ref = fe_rn_placeholder(N_VAR, id->name, id->span);
        continue;
      }
      id->ref = b;
      RnMap *seen = d->kind == D_FIXITY ? &fix_seen : &sig_seen;
      FeIdent *first = fe_rn_get(seen, b);
      if (first && d->kind == D_FIXITY) {
        lz_error(first->span, "Multiple fixity declarations for ‘%s’\nalso at  %s", id->name,
                 lz_span_ghc(d->span));
      } else if (first) {
        lz_error(id->span, "Duplicate type signatures for ‘%s’\nat %s\n   %s", id->name,
                 lz_span_ghc(first->span), lz_span_ghc(id->span));
      } else {
        fe_rn_put(seen, b, id);
        if (d->kind == D_FIXITY) {
          b->has_fixity = true;
          b->assoc = d->assoc;
          b->prec = d->prec;
        }
      }
    }
    if (d->kind == D_SIG) rn_sig(c, d->sig);
  }
}

void fe_rn_local_group(RnCtx *c, FeDecl **decls, int n) {
  RnNames binders = {0};
  for (int i = 0; i < n; i++) {
    FeDecl *d = decls[i];
    int before = binders.len;
    if (d->kind == D_FUN) {
      FeName *f = fe_name_new(N_VAR, d->name.name, NULL, d->name.span);
      f->is_op = fe_rn_is_sym_name(d->name.name);
      d->name.ref = f;
      LZ_PUSH(binders, f);
    } else if (d->kind == D_PAT) {
      fe_rn_pat_binders(c, d->pat, &binders, false, NULL);
    }
    for (int j = before; j < binders.len; j++)
      binders.data[j]->decl = d;
  }
  fe_rn_check_conflicts(&binders, NULL);
  RnMap group = {0};
  for (int i = 0; i < binders.len; i++) {
    if (!fe_rn_get(&group, binders.data[i]->occ))
      fe_rn_put(&group, binders.data[i]->occ, binders.data[i]);
    fe_rn_bind(c, binders.data[i]);
  }
  group_fixities_and_sigs(c, decls, n, &group);
  for (int i = 0; i < n; i++) {
    FeDecl *d = decls[i];
    if (d->kind == D_FUN) {
      fe_rn_matches(c, d);
    } else if (d->kind == D_PAT) {
      d->pat = fe_rn_pat(c, d->pat);
      fe_rn_rhs(c, d->rhs);
    }
  }
}

/* ---- data, synonyms, classes, instances ------------------------------------------------ */

static void rn_data(RnCtx *c, FeDecl *d) {
  int mark = fe_rn_tv_mark(c);
  bind_tyvars(c, d->tyvars.data, d->tyvars.len);
  for (int i = 0; i < d->cons.len; i++) {
    FeConDecl *cd = d->cons.data[i];
    for (int j = 0; j < cd->fields.len; j++)
      fe_rn_type(c, cd->fields.data[j].type);
  }
  if (d->kind == D_TYPE) fe_rn_type(c, d->rhs_type);
  fe_rn_tv_pop(c, mark);
  for (int i = 0; i < d->deriving.len; i++)
    fe_rn_lookup_type(c, &d->deriving.data[i], RN_WANT_CLASS);
}

/* The method of class `cls` called `occ`, or NULL. */
static FeName *class_method(FeName *cls, Sym occ) {
  FeDecl *d = cls ? cls->decl : NULL;
  if (!d || d->kind != D_CLASS) return NULL;
  for (int i = 0; i < d->body.len; i++) {
    FeDecl *s = d->body.data[i];
    if (s->kind != D_SIG) continue;
    for (int j = 0; j < s->names.len; j++)
      if (s->names.data[j].name == occ && s->names.data[j].ref &&
          s->names.data[j].ref->parent == cls)
        return s->names.data[j].ref;
  }
  return NULL;
}

/* Method bindings of a class (defaults) or instance body. */
static void rn_method_binds(RnCtx *c, FeDecl *owner, FeName *cls) {
  bool known = cls && cls->decl && cls->decl->kind == D_CLASS;
  RnMap seen = {0};
  for (int i = 0; i < owner->body.len; i++) {
    FeDecl *b = owner->body.data[i];
    if (b->kind == D_PAT) {
      lz_error(b->span, "Pattern bindings (except simple variables) not allowed in %s declaration",
               owner->kind == D_CLASS ? "class" : "instance");
      continue;
    }
    if (b->kind == D_SIG && owner->kind == D_INSTANCE) {
      lz_error(b->span,
               "Illegal type signature in instance declaration\n(Use InstanceSigs to allow this)");
      continue;
    }
    if (b->kind != D_FUN) continue;
    FeName *m = class_method(cls, b->name.name);
    if (!m) {
      if (known)
        lz_error(b->name.span, "‘%s’ is not a (visible) method of class ‘%s’",
                 fe_rn_pretty_var(b->name.name), cls->occ);
      m = fe_rn_placeholder(N_VAR, b->name.name, b->name.span);
    } else {
      FeDecl *first = fe_rn_get(&seen, m);
      if (first) fe_rn_conflict(first->name.span, b->name.span, b->name.name, NULL);
      fe_rn_put(&seen, m, b);
    }
    b->name.ref = m;
    fe_rn_matches(c, b);
  }
}

static void rn_class(RnCtx *c, FeDecl *d) {
  int mark = fe_rn_tv_mark(c);
  bind_tyvars(c, d->tyvars.data, d->tyvars.len);
  if (d->sig) fe_rn_qualtype(c, d->sig, false);
  for (int i = 0; i < d->body.len; i++)
    if (d->body.data[i]->kind == D_SIG) rn_sig(c, d->body.data[i]->sig);
  fe_rn_tv_pop(c, mark);
  rn_method_binds(c, d, d->name.ref);
}

static void rn_instance(RnCtx *c, FeDecl *d) {
  fe_rn_lookup_type(c, &d->name, RN_WANT_CLASS);
  if (d->sig) {
    int mark = fe_rn_tv_mark(c);
    c->implicit_tvs = true;
    fe_rn_type(c, d->sig->type);
    c->implicit_tvs = false;
    for (int i = 0; i < d->sig->ctx.len; i++)
      fe_rn_pred(c, &d->sig->ctx.data[i]);
    fe_rn_tv_pop(c, mark);
  }
  rn_method_binds(c, d, d->name.ref);
}

/* ---- a module's declarations ------------------------------------------------------------- */

void fe_rn_module_body(RnCtx *c) {
  FeModule *m = c->mod->m;
  for (int i = 0; i < m->decls.len; i++) {
    FeDecl *d = m->decls.data[i];
    switch (d->kind) {
    case D_SIG:
    case D_FOREIGN: rn_sig(c, d->sig); break;
    case D_FIXITY: break; /* attached in stage 1 */
    case D_FUN: fe_rn_matches(c, d); break;
    case D_PAT:
      d->pat = fe_rn_pat(c, d->pat);
      fe_rn_rhs(c, d->rhs);
      break;
    case D_DATA:
    case D_NEWTYPE:
    case D_TYPE: rn_data(c, d); break;
    case D_CLASS: rn_class(c, d); break;
    case D_INSTANCE: rn_instance(c, d); break;
    case D_DEFAULT:
      for (int j = 0; j < d->types.len; j++)
        fe_rn_type(c, d->types.data[j]);
      break;
    }
  }
}
