/* rename_imports.c — stage 2 of renaming a module: imports and exports (Haskell 2010,
 * section 5).
 *
 * An import brings the imported module's exports (all of them, those of the import
 * list, or all but the hidden ones) into the top-level environment under the key
 * "occ" (unless qualified) and "Alias occ" (always; Alias is the `as` name or the
 * module name, and several imports may share one). `T(..)` names the type with its
 * exported constructors and fields, `C(..)` the class with its methods: the children
 * are found as the exported entities whose FeName.parent is the type or class.
 *
 * Exports are computed once the environment is complete: no export list exports the
 * module's own entities; an item exports what it names in scope; `module M` exports
 * every entity in scope both as `e` and as `M.e`. The result is FeModule.exported
 * (in order) and the exp_vals/exp_types tables that importers consult. Instances are
 * global and need no import control. */
#include "rename_internal.h"

RnAlias *fe_rn_alias(RnModule *mod, Sym alias) {
  RnAlias *a = fe_rn_get(&mod->aliases, alias);
  if (!a) {
    a = LZ_NEW(RnAlias);
    a->alias = alias;
    fe_rn_put(&mod->aliases, alias, a);
  }
  return a;
}

void fe_rn_add_gre(RnModule *mod, RnMap *env, Sym key, FeName *n, const FeImport *imp,
                   Sym imp_mod) {
  RnGre *list = fe_rn_get(env, key), *last = NULL;
  for (RnGre *g = list; g; g = g->next) {
    if (g->name == n) return; /* the same entity by another route: keep the first */
    last = g;
  }
  RnGre *g = LZ_NEW(RnGre);
  g->name = n;
  g->imp = imp;
  g->imp_mod = imp_mod;
  if (last)
    last->next = g;
  else
    fe_rn_put(env, key, g);
  fe_rn_put(&mod->inscope, n, n);
}

static bool is_type_ns(const FeName *n) { return n->kind == N_TYCON || n->kind == N_CLASS; }

/* ---- imports --------------------------------------------------------------------- */

typedef struct Importer {
  RnModule *mod, *dep;
  const FeImport *imp;
  RnAlias *alias;
  RnMap hidden; /* FeName -> itself (hiding imports) */
} Importer;

static void import_name(Importer *im, FeName *n) {
  RnMap *env = is_type_ns(n) ? &im->mod->types : &im->mod->vals;
  if (!im->imp->qualified) fe_rn_add_gre(im->mod, env, n->occ, n, im->imp, im->dep->name);
  fe_rn_add_gre(im->mod, env, fe_rn_qual_key(im->alias->alias, n->occ), n, im->imp, im->dep->name);
  LZ_PUSH(im->alias->names, n);
}

static void not_exported(Importer *im, LzSpan at, const char *what) {
  lz_error(at, "Module ‘%s’ does not export ‘%s’", im->dep->name, what);
}

/* The exported child of `parent` called `occ`, or NULL. */
static FeName *exported_child(RnModule *dep, FeName *parent, Sym occ) {
  for (int i = 0; i < dep->m->exported.len; i++) {
    FeName *n = dep->m->exported.data[i];
    if (n->parent == parent && n->occ == occ) return n;
  }
  return NULL;
}

/* Call `fn` on every entity an import/hiding item names; false if it names nothing. */
static bool item_names(Importer *im, FeIE *ie, void (*fn)(Importer *, FeName *)) {
  RnModule *dep = im->dep;
  if (ie->kind == IE_VAR) {
    FeName *n = fe_rn_get(&dep->exp_vals, ie->name.name);
    if (!n) return false;
    ie->name.ref = n;
    fn(im, n);
    return true;
  }
  FeName *t = fe_rn_get(&dep->exp_types, ie->name.name);
  if (!t) {
    /* `hiding (C)` also hides a data constructor C (Haskell 2010, 5.3.4) */
    FeName *con = im->imp->hiding ? fe_rn_get(&dep->exp_vals, ie->name.name) : NULL;
    if (con && con->kind == N_CON) {
      fn(im, con);
      return true;
    }
    return false;
  }
  ie->name.ref = t;
  fn(im, t);
  if (ie->kind == IE_THING_ALL) {
    for (int i = 0; i < dep->m->exported.len; i++)
      if (dep->m->exported.data[i]->parent == t) fn(im, dep->m->exported.data[i]);
  } else if (ie->kind == IE_THING_WITH) {
    for (int i = 0; i < ie->subs.len; i++) {
      FeIdent *sub = &ie->subs.data[i];
      FeName *c = exported_child(dep, t, sub->name);
      if (c) {
        sub->ref = c;
        fn(im, c);
      } else if (!im->imp->hiding) {
        not_exported(im, sub->span, lz_fmt("%s(%s)", ie->name.name, fe_rn_pretty_var(sub->name)));
      }
    }
  }
  return true;
}

/* An import item as GHC prints it: x, (+), T, T(..), T(a, b) */
static const char *ie_text(const FeIE *ie) {
  if (ie->kind == IE_VAR) return fe_rn_pretty_var(ie->name.name);
  if (ie->kind == IE_THING_ALL) return lz_fmt("%s(..)", ie->name.name);
  if (ie->kind != IE_THING_WITH) return ie->name.name;
  char *s = lz_fmt("%s(", ie->name.name);
  for (int i = 0; i < ie->subs.len; i++)
    s = lz_fmt("%s%s%s", s, i ? ", " : "", fe_rn_pretty_var(ie->subs.data[i].name));
  return lz_fmt("%s)", s);
}

static void hide(Importer *im, FeName *n) { fe_rn_put(&im->hidden, n, n); }

static void import_one(RnModule *mod, const FeImport *imp, RnModule *dep) {
  Importer im = {.mod = mod, .dep = dep, .imp = imp};
  im.alias = fe_rn_alias(mod, imp->as ? imp->as : dep->name);
  bool known = false;
  for (int i = 0; i < im.alias->modules.len; i++)
    known |= im.alias->modules.data[i] == dep->name;
  if (!known) LZ_PUSH(im.alias->modules, dep->name);
  if (imp->has_list && !imp->hiding) {
    for (int i = 0; i < imp->items.len; i++) {
      FeIE *ie = &imp->items.data[i];
      if (!item_names(&im, ie, import_name)) not_exported(&im, ie->span, ie_text(ie));
    }
    return;
  }
  if (imp->hiding)
    for (int i = 0; i < imp->items.len; i++)
      item_names(&im, &imp->items.data[i], hide);
  for (int i = 0; i < dep->m->exported.len; i++) {
    FeName *n = dep->m->exported.data[i];
    if (!fe_rn_get(&im.hidden, n)) import_name(&im, n);
  }
}

void fe_rn_process_imports(Rn *rn, RnModule *mod) {
  (void)rn;
  for (int i = 0; i < mod->imports.len; i++) {
    RnModule *dep = mod->deps.data[i];
    if (dep && dep->state != RN_FAILED && dep->m) import_one(mod, mod->imports.data[i], dep);
  }
}

/* ---- exports --------------------------------------------------------------------- */

static void export_name(RnModule *mod, FeName *n, LzSpan at) {
  RnMap *exp = is_type_ns(n) ? &mod->exp_types : &mod->exp_vals;
  FeName *old = fe_rn_get(exp, n->occ);
  if (old == n) return;
  if (old) {
    lz_error(at, "Conflicting exports for ‘%s’:\n   ‘%s.%s’ and ‘%s.%s’", n->occ,
             old->module ? old->module : "", old->occ, n->module ? n->module : "", n->occ);
    return;
  }
  fe_rn_put(exp, n->occ, n);
  LZ_PUSH(mod->m->exported, n);
}

/* Constructors and fields of a type, methods of a class. */
static RnNames children(FeName *t) {
  RnNames out = {0};
  FeDecl *d = t->decl;
  if (!d) return out;
  if (t->kind == N_CLASS && d->kind == D_CLASS) {
    for (int i = 0; i < d->body.len; i++)
      if (d->body.data[i]->kind == D_SIG)
        for (int j = 0; j < d->body.data[i]->names.len; j++) {
          FeName *m = d->body.data[i]->names.data[j].ref;
          if (m && m->parent == t) LZ_PUSH(out, m);
        }
  } else if (d->kind == D_DATA || d->kind == D_NEWTYPE) {
    for (int i = 0; i < d->cons.len; i++) {
      FeConDecl *cd = d->cons.data[i];
      if (cd->name.ref && cd->name.ref->parent == t) LZ_PUSH(out, cd->name.ref);
      for (int j = 0; j < cd->fields.len; j++) {
        FeName *f = cd->fields.data[j].label.ref;
        bool dup = false;
        for (int k = 0; k < out.len; k++)
          dup |= out.data[k] == f;
        if (f && f->parent == t && !dup) LZ_PUSH(out, f);
      }
    }
  }
  return out;
}

static void export_item(RnCtx *c, FeIE *ie) {
  RnModule *mod = c->mod;
  if (ie->kind == IE_VAR) {
    fe_rn_lookup_value(c, &ie->name, RN_USE_OTHER);
    /* a placeholder (not in scope, reported) is not in `inscope` */
    if (fe_rn_get(&mod->inscope, ie->name.ref)) export_name(mod, ie->name.ref, ie->span);
    return;
  }
  if (ie->kind == IE_MODULE) {
    Sym m = ie->name.name;
    if (m == mod->name) {
      for (int i = 0; i < mod->owned.len; i++)
        export_name(mod, mod->owned.data[i], ie->span);
      return;
    }
    RnAlias *a = fe_rn_get(&mod->aliases, m);
    if (!a) {
      lz_error(ie->span, "The export item ‘module %s’ is not imported", m);
      return;
    }
    for (int i = 0; i < a->names.len; i++) {
      FeName *n = a->names.data[i];
      for (RnGre *g = fe_rn_get(is_type_ns(n) ? &mod->types : &mod->vals, n->occ); g; g = g->next)
        if (g->name == n) {
          export_name(mod, n, ie->span);
          break;
        }
    }
    return;
  }
  fe_rn_lookup_type(c, &ie->name, RN_WANT_ANY);
  FeName *t = ie->name.ref;
  if (!fe_rn_get(&mod->inscope, t)) return; /* not in scope: reported */
  export_name(mod, t, ie->span);
  RnNames kids = children(t);
  if (ie->kind == IE_THING_ALL) {
    for (int i = 0; i < kids.len; i++)
      if (fe_rn_get(&mod->inscope, kids.data[i])) export_name(mod, kids.data[i], ie->span);
  } else if (ie->kind == IE_THING_WITH) {
    for (int i = 0; i < ie->subs.len; i++) {
      FeIdent *sub = &ie->subs.data[i];
      FeName *k = NULL;
      for (int j = 0; j < kids.len; j++)
        if (kids.data[j]->occ == sub->name) k = kids.data[j];
      if (k) {
        sub->ref = k;
        export_name(mod, k, ie->span);
      } else if (fe_rn_find(c, sub->qual, sub->name, false)) {
        lz_error(sub->span, "‘%s’ is not a (visible) constructor field or method of ‘%s’",
                 fe_rn_pretty_var(sub->name), t->occ);
      } else {
        lz_error(sub->span, "Not in scope: %s‘%s’",
                 fe_rn_is_con_name(sub->name) ? "data constructor " : "", sub->name);
      }
    }
  }
}

void fe_rn_compute_exports(Rn *rn, RnModule *mod) {
  FeModule *m = mod->m;
  if (!m->has_exports) {
    for (int i = 0; i < mod->owned.len; i++)
      export_name(mod, mod->owned.data[i], m->name.span);
    return;
  }
  RnCtx c = {.rn = rn, .mod = mod};
  for (int i = 0; i < m->exports.len; i++)
    export_item(&c, &m->exports.data[i]);
}
