/* rename_top.c — stage 1 of renaming a module: its own top-level entities.
 *
 * Right after a module is parsed and derived, every entity it declares gets its one
 * FeName: functions and pattern-bound variables, data types with their constructors
 * and field selectors, synonyms, classes with their methods, foreign imports. They go
 * in the module's "own" tables (occurrence name -> FeName), which are all that an
 * original-name reference needs, and in its top-level environment, both unqualified
 * and qualified by the module's name. Fixity declarations (top-level and in class
 * bodies) are attached to the FeNames here, before any expression is renamed, so
 * importers see them; top-level type signatures are matched with their bindings (the
 * signature types themselves are renamed in stage 3, when imports are known). */
#include <string.h>

#include "rename_internal.h"

/* Enter an entity in the module's own tables ("Multiple declarations" if taken). */
static void enter(RnModule *mod, FeName *n) {
  RnMap *own = n->kind == N_TYCON || n->kind == N_CLASS ? &mod->own_types : &mod->own_vals;
  FeName *old = fe_rn_get(own, n->occ);
  if (old) {
    /* the first declaration stays the visible one; n remains a placeholder */
    lz_error(n->def, "Multiple declarations of ‘%s’\nDeclared at: %s\n             %s", n->occ,
             lz_span_ghc(old->def), lz_span_ghc(n->def));
    return;
  }
  fe_rn_put(own, n->occ, n);
  LZ_PUSH(mod->owned, n);
}

static FeName *define(RnModule *mod, FeIdent *id, FeNameKind kind, FeDecl *d, FeName *parent) {
  FeName *n = fe_name_new(kind, id->name, mod->name, id->span);
  n->top = true;
  n->is_op = fe_rn_is_sym_name(id->name);
  n->decl = d;
  n->parent = parent;
  id->ref = n;
  enter(mod, n);
  return n;
}

static void define_data(RnModule *mod, FeDecl *d) {
  FeName *ty = define(mod, &d->name, N_TYCON, d, NULL);
  for (int i = 0; i < d->cons.len; i++) {
    FeConDecl *cd = d->cons.data[i];
    define(mod, &cd->name, N_CON, d, ty);
    for (int j = 0; j < cd->fields.len; j++) {
      FeIdent *label = &cd->fields.data[j].label;
      if (!label->name) continue;
      /* a field shared by several constructors of this type has one selector */
      FeName *old = fe_rn_get(&mod->own_vals, label->name);
      bool same_con = false;
      for (int k = 0; k < j; k++)
        same_con |= cd->fields.data[k].label.name == label->name;
      if (old && old->decl == d && old->kind == N_VAR && old->parent == ty && !same_con)
        label->ref = old;
      else
        define(mod, label, N_VAR, d, ty);
    }
  }
}

static void define_class(RnModule *mod, FeDecl *d) {
  FeName *cls = define(mod, &d->name, N_CLASS, d, NULL);
  for (int i = 0; i < d->body.len; i++) {
    FeDecl *b = d->body.data[i];
    if (b->kind != D_SIG) continue;
    for (int j = 0; j < b->names.len; j++)
      define(mod, &b->names.data[j], N_VAR, d, cls);
  }
}

/* The FeName the fixity declaration's name refers to: an own entity (its parent must be
 * `cls` inside a class body), or NULL after reporting. */
static void attach_fixity(RnModule *mod, FeDecl *fix, FeName *cls, RnMap *seen) {
  for (int i = 0; i < fix->names.len; i++) {
    FeIdent *id = &fix->names.data[i];
    FeName *n = fe_rn_get(&mod->own_vals, id->name);
    if (n && cls && n->parent != cls) n = NULL;
    if (!n) {
      lz_error(id->span, "The fixity signature for ‘%s’ lacks an accompanying binding", id->name);
      continue;
    }
    id->ref = n;
    FeIdent *first = fe_rn_get(seen, n);
    if (first) {
      lz_error(first->span, "Multiple fixity declarations for ‘%s’\nalso at  %s", id->name,
               lz_span_ghc(fix->span));
      continue;
    }
    fe_rn_put(seen, n, id);
    n->has_fixity = true;
    n->assoc = fix->assoc;
    n->prec = fix->prec;
  }
}

static void check_sig(RnModule *mod, FeDecl *sig, RnMap *seen) {
  for (int i = 0; i < sig->names.len; i++) {
    FeIdent *id = &sig->names.data[i];
    FeName *n = fe_rn_get(&mod->own_vals, id->name);
    if (!n || n->parent || !n->decl || (n->decl->kind != D_FUN && n->decl->kind != D_PAT)) {
      lz_error(id->span, "The type signature for ‘%s’ lacks an accompanying binding", id->name);
      id->ref = fe_rn_placeholder(N_VAR, id->name, id->span);
      continue;
    }
    id->ref = n;
    FeIdent *first = fe_rn_get(seen, n);
    if (first) {
      lz_error(id->span, "Duplicate type signatures for ‘%s’\nat %s\n   %s", id->name,
               lz_span_ghc(first->span), lz_span_ghc(id->span));
      continue;
    }
    fe_rn_put(seen, n, id);
  }
}

/* Set fe_wired[] for the wired-in entities this module defines. */
static void set_wired(RnModule *mod) {
  for (int i = 1; i < WIRED_COUNT; i++) {
    const FeWiredInfo *w = &fe_wired_info[i];
    if (!w->module || strcmp(w->module, mod->name) != 0) continue;
    Sym occ = lz_sym(w->occ);
    bool types = w->kind == W_TYPE || w->kind == W_CLASS;
    FeName *n = fe_rn_get(types ? &mod->own_types : &mod->own_vals, occ);
    FeNameKind want = w->kind == W_TYPE    ? N_TYCON
                      : w->kind == W_CLASS ? N_CLASS
                      : w->kind == W_CON   ? N_CON
                                           : N_VAR;
    if (!n || n->kind != want) continue; /* reported by the check after loading */
    fe_wired[i] = n;
    n->wired = i;
  }
}

void fe_rn_define_top(Rn *rn, RnModule *mod) {
  FeModule *m = mod->m;
  RnCtx tmp = {.rn = rn, .mod = mod};
  for (int i = 0; i < m->decls.len; i++) {
    FeDecl *d = m->decls.data[i];
    switch (d->kind) {
    case D_FUN: define(mod, &d->name, N_VAR, d, NULL); break;
    case D_FOREIGN: define(mod, &d->name, N_VAR, d, NULL); break;
    case D_PAT: {
      RnNames names = {0};
      fe_rn_pat_binders(&tmp, d->pat, &names, true, mod->name);
      for (int j = 0; j < names.len; j++) {
        names.data[j]->decl = d;
        enter(mod, names.data[j]);
      }
      break;
    }
    case D_DATA:
    case D_NEWTYPE: define_data(mod, d); break;
    case D_TYPE: define(mod, &d->name, N_TYCON, d, NULL); break;
    case D_CLASS: define_class(mod, d); break;
    default: break;
    }
  }
  RnMap fix_seen = {0}, sig_seen = {0};
  for (int i = 0; i < m->decls.len; i++) {
    FeDecl *d = m->decls.data[i];
    if (d->kind == D_FIXITY) attach_fixity(mod, d, NULL, &fix_seen);
    if (d->kind == D_SIG) check_sig(mod, d, &sig_seen);
    if (d->kind == D_CLASS)
      for (int j = 0; j < d->body.len; j++)
        if (d->body.data[j]->kind == D_FIXITY)
          attach_fixity(mod, d->body.data[j], d->name.ref, &fix_seen);
  }
  /* own entities are in scope unqualified and qualified by the module's name */
  RnAlias *self = fe_rn_alias(mod, mod->name);
  LZ_PUSH(self->modules, mod->name);
  for (int i = 0; i < mod->owned.len; i++) {
    FeName *n = mod->owned.data[i];
    RnMap *env = n->kind == N_TYCON || n->kind == N_CLASS ? &mod->types : &mod->vals;
    fe_rn_add_gre(mod, env, n->occ, n, NULL, NULL);
    fe_rn_add_gre(mod, env, fe_rn_qual_key(mod->name, n->occ), n, NULL, NULL);
    LZ_PUSH(self->names, n);
  }
  set_wired(mod);
}
