/* rename_env.c — the renamer's environments: hash maps, local scopes, and the lookup
 * of an identifier with its GHC-worded "not in scope" and "ambiguous" errors.
 *
 * A lookup tries, in order: an original name (resolved in the named module's top
 * level, whatever is in scope; Note [Original names]), built-in syntax ([] () (,) :
 * ->), the local scopes (unqualified values only), then the module's top-level
 * environment. A failed lookup reports once and leaves a fresh placeholder FeName in
 * the identifier, so later passes never see a NULL ref and no error cascades. */
#include <stdint.h>
#include <string.h>

#include "rename_internal.h"

/* ---- maps ---------------------------------------------------------------------- */

static unsigned hash_ptr(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (unsigned)x;
}

void *fe_rn_get(const RnMap *m, const void *key) {
  if (!m->cap) return NULL;
  unsigned mask = (unsigned)m->cap - 1;
  for (unsigned i = hash_ptr(key) & mask;; i = (i + 1) & mask) {
    if (m->keys[i] == key) return m->vals[i];
    if (!m->keys[i]) return NULL;
  }
}

static void put_raw(RnMap *m, const void *key, void *val) {
  unsigned mask = (unsigned)m->cap - 1;
  unsigned i = hash_ptr(key) & mask;
  while (m->keys[i] && m->keys[i] != key)
    i = (i + 1) & mask;
  if (!m->keys[i]) m->len++;
  m->keys[i] = key;
  m->vals[i] = val;
}

void fe_rn_put(RnMap *m, const void *key, void *val) {
  if ((m->len + 1) * 4 >= m->cap * 3) {
    RnMap old = *m;
    m->cap = old.cap ? old.cap * 2 : 16;
    m->len = 0;
    m->keys = LZ_NEW_ARRAY(const void *, m->cap);
    m->vals = LZ_NEW_ARRAY(void *, m->cap);
    for (int i = 0; i < old.cap; i++)
      if (old.keys[i]) put_raw(m, old.keys[i], old.vals[i]);
  }
  put_raw(m, key, val);
}

/* ---- local scopes --------------------------------------------------------------- */

int fe_rn_mark(RnCtx *c) { return c->vundo.len; }

void fe_rn_bind(RnCtx *c, FeName *n) {
  RnLocal *l = LZ_NEW(RnLocal);
  l->name = n;
  l->prev = fe_rn_get(&c->vals, n->occ);
  fe_rn_put(&c->vals, n->occ, l);
  LZ_PUSH(c->vundo, n->occ);
}

void fe_rn_pop(RnCtx *c, int mark) {
  while (c->vundo.len > mark) {
    Sym occ = c->vundo.data[--c->vundo.len];
    RnLocal *l = fe_rn_get(&c->vals, occ);
    fe_rn_put(&c->vals, occ, l ? l->prev : NULL);
  }
}

int fe_rn_tv_mark(RnCtx *c) { return c->tundo.len; }

void fe_rn_tv_bind(RnCtx *c, FeName *n) {
  RnLocal *l = LZ_NEW(RnLocal);
  l->name = n;
  l->prev = fe_rn_get(&c->tvs, n->occ);
  fe_rn_put(&c->tvs, n->occ, l);
  LZ_PUSH(c->tundo, n->occ);
}

void fe_rn_tv_pop(RnCtx *c, int mark) {
  while (c->tundo.len > mark) {
    Sym occ = c->tundo.data[--c->tundo.len];
    RnLocal *l = fe_rn_get(&c->tvs, occ);
    fe_rn_put(&c->tvs, occ, l ? l->prev : NULL);
  }
}

FeName *fe_rn_tv_lookup(RnCtx *c, Sym occ) {
  RnLocal *l = fe_rn_get(&c->tvs, occ);
  return l ? l->name : NULL;
}

/* ---- names ------------------------------------------------------------------------ */

bool fe_rn_is_sym_name(Sym occ) {
  unsigned char ch = (unsigned char)occ[0];
  return !(ch == '_' || ch == '(' || ch == '[' || ch >= 0x80 || (ch >= 'a' && ch <= 'z') ||
           (ch >= 'A' && ch <= 'Z'));
}

bool fe_rn_is_con_name(Sym occ) {
  return occ[0] == ':' || (occ[0] >= 'A' && occ[0] <= 'Z') || occ[0] == '(' || occ[0] == '[';
}

const char *fe_rn_pretty_var(Sym occ) { return fe_rn_is_sym_name(occ) ? lz_fmt("(%s)", occ) : occ; }

Sym fe_rn_qual_key(Sym qual, Sym occ) { return lz_sym(lz_fmt("%s %s", qual, occ)); }

FeName *fe_rn_placeholder(FeNameKind kind, Sym occ, LzSpan at) {
  FeName *n = fe_name_new(kind, occ, NULL, at);
  n->is_op = fe_rn_is_sym_name(occ);
  return n;
}

void fe_rn_conflict(LzSpan first, LzSpan second, Sym occ, const char *context) {
  lz_error(lz_span_join(first, second),
           "Conflicting definitions for ‘%s’\nBound at: %s\n          %s%s%s", occ,
           lz_span_ghc(first), lz_span_ghc(second), context ? "\n" : "", context ? context : "");
}

/* "(,,)" -> 3; 0 when `occ` is not a tuple name */
static int tuple_arity(Sym occ) {
  size_t n = strlen(occ);
  if (n < 3 || occ[0] != '(' || occ[n - 1] != ')') return 0;
  for (size_t i = 1; i + 1 < n; i++)
    if (occ[i] != ',') return 0;
  return (int)n - 1;
}

static FeName *tuple_name(Sym occ, LzSpan at, bool type) {
  int n = tuple_arity(occ);
  if (!n) return NULL;
  FeName *t = type ? fe_builtin_tuple_tycon(n) : fe_builtin_tuple_con(n);
  if (!t) {
    lz_error(at,
             "A %d-tuple is too large for GHC\n(max size is 62)\nWorkaround: use nested tuples or "
             "define a data type",
             n);
    return fe_rn_placeholder(type ? N_TYCON : N_CON, occ, at);
  }
  return t;
}

FeName *fe_rn_builtin_value(Sym occ, LzSpan at) {
  if (occ[0] == '[' && occ[1] == ']' && !occ[2]) return fe_builtin_nil();
  if (occ[0] == ':' && !occ[1]) return fe_builtin_cons();
  if (occ[0] == '(' && occ[1] == ')' && !occ[2]) return fe_builtin_unit();
  return tuple_name(occ, at, false);
}

FeName *fe_rn_builtin_type(Sym occ, LzSpan at) {
  if (occ[0] == '[' && occ[1] == ']' && !occ[2]) return fe_builtin_list_tycon();
  if (occ[0] == '(' && occ[1] == ')' && !occ[2]) return fe_builtin_unit_tycon();
  if (occ[0] == '-' && occ[1] == '>' && !occ[2]) return fe_builtin_arrow();
  return tuple_name(occ, at, true);
}

/* ---- lookup ------------------------------------------------------------------------ */

static RnGre *env_lookup(RnCtx *c, Sym qual, Sym occ, bool types) {
  RnMap *env = types ? &c->mod->types : &c->mod->vals;
  return fe_rn_get(env, qual ? fe_rn_qual_key(qual, occ) : occ);
}

FeName *fe_rn_find(RnCtx *c, Sym qual, Sym occ, bool types) {
  if (!qual && !types) {
    RnLocal *l = fe_rn_get(&c->vals, occ);
    if (l && l->name) return l->name;
  }
  RnGre *g = env_lookup(c, qual, occ, types);
  return g ? g->name : NULL;
}

static FeName *lookup_orig(RnCtx *c, FeIdent *id, bool types) {
  FeName *n =
      types ? fe_rn_builtin_type(id->name, id->span) : fe_rn_builtin_value(id->name, id->span);
  if (n) return n;
  RnModule *m = fe_rn_module_for_orig(c->rn, id->orig_module);
  if (m) {
    n = fe_rn_get(types ? &m->own_types : &m->own_vals, id->name);
    if (!n) {
      RnGre *g = fe_rn_get(types ? &m->types : &m->vals, id->name);
      if (g) n = g->name;
    }
  }
  if (!n) {
    lz_error(id->span,
             "internal error: the original name ‘%s.%s’ (used by generated code) is not defined",
             id->orig_module, id->name);
    n = fe_rn_placeholder(types ? N_TYCON : N_VAR, id->name, id->span);
  }
  return n;
}

/* "‘A.x’, imported from ‘A’ at f.lz:2:1-8\n (and originally defined ...)" */
static char *describe_gre(const RnGre *g, const char *indent) {
  FeName *n = g->name;
  const char *def = lz_span_known(n->def) ? lz_span_ghc(n->def) : NULL;
  if (!g->imp)
    return lz_fmt("‘%s.%s’, defined at %s", n->module ? n->module : "", n->occ, def ? def : "?");
  Sym alias = g->imp->as ? g->imp->as : g->imp_mod;
  char *s = lz_fmt("‘%s.%s’,\n%simported %sfrom ‘%s’", alias, n->occ, indent,
                   g->imp->qualified ? "qualified " : "", g->imp_mod);
  if (lz_span_known(g->imp->span)) s = lz_fmt("%s at %s", s, lz_span_ghc(g->imp->span));
  if (def) {
    if (n->module && n->module != g->imp_mod)
      s = lz_fmt("%s\n%s(and originally defined in ‘%s’ at %s)", s, indent, n->module, def);
    else
      s = lz_fmt("%s\n%s(and originally defined at %s)", s, indent, def);
  }
  return s;
}

static void report_ambiguous(FeIdent *id, RnGre *g) {
  char *msg = lz_fmt("Ambiguous occurrence ‘%s%s%s’\nIt could refer to", id->qual ? id->qual : "",
                     id->qual ? "." : "", id->name);
  const char *indent = "          ";
  bool first = true;
  for (RnGre *a = g; a; a = a->next) {
    bool seen = false;
    for (RnGre *b = g; b != a; b = b->next)
      seen |= b->name == a->name;
    if (seen) continue;
    msg = lz_fmt("%s\n%s%s", msg, first ? "   either " : "       or ", describe_gre(a, indent));
    first = false;
  }
  lz_error(id->span, "%s", msg);
}

/* The explanation for a qualified name that is not in scope. */
static const char *qual_hint(RnCtx *c, FeIdent *id) {
  RnAlias *a = fe_rn_get(&c->mod->aliases, id->qual);
  if (!a) return lz_fmt("No module named ‘%s’ is imported.", id->qual);
  int n = a->modules.len;
  if (n == 1) return lz_fmt("Module ‘%s’ does not export ‘%s’.", a->modules.data[0], id->name);
  Sym *mods = LZ_NEW_ARRAY(Sym, n); /* sorted, as GHC lists them */
  for (int i = 0; i < n; i++) {
    int j = i;
    for (; j > 0 && strcmp(mods[j - 1], a->modules.data[i]) > 0; j--)
      mods[j] = mods[j - 1];
    mods[j] = a->modules.data[i];
  }
  char *s = lz_fmt("Neither ‘%s’", mods[0]);
  for (int i = 1; i + 1 < n; i++)
    s = lz_fmt("%s, ‘%s’", s, mods[i]);
  return lz_fmt("%s nor ‘%s’ exports ‘%s’.", s, mods[n - 1], id->name);
}

/* Resolve id in the top-level environment; report if absent or ambiguous. */
static FeName *resolve_global(RnCtx *c, FeIdent *id, bool types, const char *what) {
  RnGre *g = env_lookup(c, id->qual, id->name, types);
  if (!g) {
    if (id->qual)
      lz_error(id->span, "Not in scope: %s‘%s.%s’\n%s", what, id->qual, id->name, qual_hint(c, id));
    return NULL;
  }
  for (RnGre *a = g->next; a; a = a->next)
    if (a->name != g->name) {
      report_ambiguous(id, g);
      break;
    }
  return g->name;
}

void fe_rn_lookup_value(RnCtx *c, FeIdent *id, RnUse use) {
  if (id->ref || !id->name) return;
  if (id->orig_module) {
    id->ref = lookup_orig(c, id, false);
    return;
  }
  bool con = fe_rn_is_con_name(id->name);
  if (!id->qual) {
    FeName *b = con ? fe_rn_builtin_value(id->name, id->span) : NULL;
    if (b) {
      id->ref = b;
      return;
    }
    RnLocal *l = fe_rn_get(&c->vals, id->name);
    if (l && l->name) {
      id->ref = l->name;
      return;
    }
  }
  const char *what = con && use != RN_USE_OTHER ? "data constructor " : "";
  FeName *n = resolve_global(c, id, false, what);
  if (!n && !id->qual) {
    if (use == RN_USE_EXPR && con)
      lz_error(id->span, "Data constructor not in scope: %s", id->name);
    else if (use == RN_USE_EXPR)
      lz_error(id->span, "Variable not in scope: %s", fe_rn_pretty_var(id->name));
    else
      lz_error(id->span, "Not in scope: %s‘%s’", what, id->name);
  }
  id->ref = n ? n : fe_rn_placeholder(con ? N_CON : N_VAR, id->name, id->span);
}

void fe_rn_lookup_type(RnCtx *c, FeIdent *id, RnWant want) {
  bool want_class = want == RN_WANT_CLASS;
  if (id->ref || !id->name) return;
  FeName *n = NULL;
  if (id->orig_module) {
    n = lookup_orig(c, id, true);
  } else {
    if (!id->qual) n = fe_rn_builtin_type(id->name, id->span);
    if (!n) {
      n = resolve_global(c, id, true, "type constructor or class ");
      if (!n && !id->qual)
        lz_error(id->span, "Not in scope: type constructor or class ‘%s’", id->name);
    }
  }
  if (!n) {
    id->ref = fe_rn_placeholder(want_class ? N_CLASS : N_TYCON, id->name, id->span);
    return;
  }
  if (want == RN_WANT_CLASS && n->kind != N_CLASS) {
    lz_error(id->span, "Type constructor ‘%s’ used as a class", id->name);
    n = fe_rn_placeholder(N_CLASS, id->name, id->span);
  } else if (want == RN_WANT_TYPE && n->kind == N_CLASS) {
    lz_error(id->span, "Class ‘%s’ used as a type", id->name);
    n = fe_rn_placeholder(N_TYCON, id->name, id->span);
  }
  id->ref = n;
}
