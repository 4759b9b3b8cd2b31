/* tc_types.c — types during type checking: meta variables, unification, printing
 * types the way GHC does in messages, and zonking.
 *
 * Note [Metas inside Core types]
 * The checker manipulates Core types (core.h) directly, so elaborated Core can be
 * built while inferring. An unknown type is a CT_VAR whose CoreTyVar is the first
 * member of a TcMeta (recognised by a negative uniq). Unification binds a meta by
 * setting its `ref` (union-find with path compression in fe_tc_prune); a type is only
 * ever read through fe_tc_prune. Each meta has a level (let-nesting depth of its
 * birth); binding a meta lowers the levels of the metas in the solution to its own,
 * so after inferring a binding group at level L+1, exactly the metas still at a level
 * > L are free in the group and not in the environment: they may be generalised.
 * Rigid (skolem) type variables from signatures remember their level too, and may not
 * flow into a meta of an outer level ("would escape its scope").
 * At the end, fe_tc_zonk replaces every solved meta by its solution; unsolved ones
 * become () (or an empty `Any` type of the right kind), which keeps Core well typed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc_internal.h"

TcState fe_tc;

typedef struct TcSkolem {
  int level;
  const char *origin;
  LzSpan at;
} TcSkolem;

/* ---- pointer maps ------------------------------------------------------------------ */

static unsigned hash_ptr(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (unsigned)x;
}

void *fe_tc_map_get(TcMap *m, const void *key) {
  if (!m->cap) return NULL;
  unsigned mask = (unsigned)m->cap - 1;
  for (unsigned i = hash_ptr(key) & mask;; i = (i + 1) & mask) {
    if (m->keys[i] == key) return m->vals[i];
    if (!m->keys[i]) return NULL;
  }
}

void fe_tc_map_put(TcMap *m, const void *key, void *val) {
  if ((m->len + 1) * 2 > m->cap) {
    TcMap n = {0};
    n.cap = m->cap ? m->cap * 2 : 64;
    n.keys = LZ_NEW_ARRAY(const void *, n.cap);
    n.vals = LZ_NEW_ARRAY(void *, n.cap);
    for (int i = 0; i < m->cap; i++)
      if (m->keys[i]) fe_tc_map_put(&n, m->keys[i], m->vals[i]);
    *m = n;
  }
  unsigned mask = (unsigned)m->cap - 1;
  for (unsigned i = hash_ptr(key) & mask;; i = (i + 1) & mask) {
    if (m->keys[i] == key) {
      m->vals[i] = val;
      return;
    }
    if (!m->keys[i]) {
      m->keys[i] = key;
      m->vals[i] = val;
      m->len++;
      return;
    }
  }
}

/* ---- metas and skolems ---------------------------------------------------------------- */

CoreType *fe_tc_meta(CoreKind *k, Sym hint) {
  TcMeta *m = LZ_NEW(TcMeta);
  m->tv.name = hint ? hint : lz_sym("t");
  m->tv.uniq = --fe_tc.meta_uniq;
  m->tv.kind = k ? k : core_kind_star();
  m->level = fe_tc.level;
  m->print_id = -1;
  CoreType *t = LZ_NEW(CoreType);
  t->kind = CT_VAR;
  t->var = &m->tv;
  return t;
}

static TcMeta *meta_of(CoreType *t) {
  if (t && t->kind == CT_VAR && t->var->uniq < 0) return (TcMeta *)t->var;
  return NULL;
}

CoreType *fe_tc_prune(CoreType *t) {
  TcMeta *m = meta_of(t);
  if (!m || !m->ref) return t;
  CoreType *r = m->ref;
  while (meta_of(r) && meta_of(r)->ref)
    r = meta_of(r)->ref;
  /* path compression */
  while (m && m->ref && m->ref != r) {
    TcMeta *next = meta_of(m->ref);
    m->ref = r;
    m = next;
  }
  return r;
}

TcMeta *fe_tc_as_meta(CoreType *t) {
  TcMeta *m = meta_of(fe_tc_prune(t));
  return m;
}

CoreTyVar *fe_tc_skolem(Sym name, CoreKind *k, const char *origin, LzSpan at) {
  CoreTyVar *v = core_tyvar_new(name, k ? k : core_kind_star());
  TcSkolem *s = LZ_NEW(TcSkolem);
  s->level = fe_tc.level;
  s->origin = origin;
  s->at = at;
  fe_tc_map_put(&fe_tc.skolems, v, s);
  return v;
}

void fe_tc_note_tycon(CoreTyCon *tc) {
  if (tc && !fe_tc_map_get(&fe_tc.used_tycons, tc)) {
    fe_tc_map_put(&fe_tc.used_tycons, tc, (void *)1);
    LZ_PUSH(fe_tc.tycons, tc);
  }
}

/* ---- construction ------------------------------------------------------------------- */

CoreType *fe_tc_app(CoreType *f, CoreType *a) {
  CoreType *pf = fe_tc_prune(f);
  if (pf->kind == CT_APP) {
    CoreType *h = fe_tc_prune(pf->fn);
    if (h->kind == CT_CON && h->con == fe_tc.arrow_tc && fe_tc.arrow_tc)
      return core_type_fun(pf->arg, a);
  }
  return core_type_app(f, a);
}

CoreType *fe_tc_con_app(CoreTyCon *tc, int n, CoreType **args) {
  if (tc == fe_tc.arrow_tc && n == 2) return core_type_fun(args[0], args[1]);
  fe_tc_note_tycon(tc);
  CoreType *t = core_type_con(tc);
  for (int i = 0; i < n; i++)
    t = core_type_app(t, args[i]);
  return t;
}

CoreType *fe_tc_subst(CoreType *t, int n, CoreTyVar **vars, CoreType **tys) {
  if (n == 0) return t;
  t = fe_tc_prune(t);
  switch (t->kind) {
  case CT_VAR:
    for (int i = 0; i < n; i++)
      if (vars[i] == t->var) return tys[i];
    return t;
  case CT_CON: return t;
  case CT_APP: {
    CoreType *f = fe_tc_subst(t->fn, n, vars, tys), *a = fe_tc_subst(t->arg, n, vars, tys);
    return f == t->fn && a == t->arg ? t : fe_tc_app(f, a);
  }
  case CT_FUN: {
    CoreType *a = fe_tc_subst(t->arg, n, vars, tys), *r = fe_tc_subst(t->res, n, vars, tys);
    return a == t->arg && r == t->res ? t : core_type_fun(a, r);
  }
  case CT_FORALL: {
    for (int i = 0; i < n; i++)
      if (vars[i] == t->var) { /* shadowed: drop it from the substitution */
        CoreTyVar **v2 = LZ_NEW_ARRAY(CoreTyVar *, n);
        CoreType **t2 = LZ_NEW_ARRAY(CoreType *, n);
        int m = 0;
        for (int j = 0; j < n; j++)
          if (j != i) v2[m] = vars[j], t2[m++] = tys[j];
        CoreType *b = fe_tc_subst(t->body, m, v2, t2);
        return b == t->body ? t : core_type_forall(t->var, b);
      }
    CoreType *b = fe_tc_subst(t->body, n, vars, tys);
    return b == t->body ? t : core_type_forall(t->var, b);
  }
  }
  return t;
}

bool fe_tc_type_eq(CoreType *a, CoreType *b) {
  a = fe_tc_prune(a);
  b = fe_tc_prune(b);
  if (a == b) return true;
  if (a->kind == CT_APP && b->kind == CT_FUN) {
    CoreType *t = a;
    a = b;
    b = t;
  }
  if (a->kind == CT_FUN && b->kind == CT_APP && fe_tc.arrow_tc) {
    CoreType *h = fe_tc_prune(b->fn);
    return h->kind == CT_APP && fe_tc_type_eq(h->fn, core_type_con(fe_tc.arrow_tc)) &&
           fe_tc_type_eq(h->arg, a->arg) && fe_tc_type_eq(b->arg, a->res);
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case CT_VAR: return a->var == b->var;
  case CT_CON: return a->con == b->con;
  case CT_APP: return fe_tc_type_eq(a->fn, b->fn) && fe_tc_type_eq(a->arg, b->arg);
  case CT_FUN: return fe_tc_type_eq(a->arg, b->arg) && fe_tc_type_eq(a->res, b->res);
  case CT_FORALL: {
    CoreType *v = core_type_var(a->var);
    return fe_tc_type_eq(a->body, fe_tc_subst(b->body, 1, &b->var, &v));
  }
  }
  return false;
}

CoreType *fe_tc_spine(CoreType *t, CoreType **args, int max, int *nargs) {
  t = fe_tc_prune(t);
  if (t->kind == CT_FUN) {
    if (max >= 2) args[0] = t->arg, args[1] = t->res;
    *nargs = 2;
    return fe_tc.arrow_tc ? core_type_con(fe_tc.arrow_tc) : t;
  }
  int n = 0;
  CoreType *h = t;
  while (h->kind == CT_APP) {
    n++;
    h = fe_tc_prune(h->fn);
  }
  *nargs = n;
  if (n <= max) {
    int i = n;
    for (CoreType *x = t; x->kind == CT_APP; x = fe_tc_prune(x->fn))
      args[--i] = x->arg;
  }
  return h;
}

bool fe_tc_is_dict_type(CoreType *t, TcClass **cls, CoreType **arg) {
  t = fe_tc_prune(t);
  if (t->kind != CT_APP) return false;
  CoreType *h = fe_tc_prune(t->fn);
  if (h->kind != CT_CON || !h->con->is_class) return false;
  if (cls) *cls = fe_tc_map_get(&fe_tc.class_of, h->con);
  if (arg) *arg = t->arg;
  return true;
}

CoreType *fe_tc_dict_type(TcClass *c, CoreType *t) {
  fe_tc_note_tycon(c->tycon);
  return core_type_app(core_type_con(c->tycon), t);
}

CoreKind *fe_tc_kind_of(CoreType *t) {
  t = fe_tc_prune(t);
  switch (t->kind) {
  case CT_VAR: return t->var->kind ? t->var->kind : core_kind_star();
  case CT_CON: return t->con->kind ? t->con->kind : core_kind_star();
  case CT_APP: {
    CoreKind *k = fe_tc_kind_of(t->fn);
    return k->kind == CK_ARROW ? k->res : core_kind_star();
  }
  default: return core_kind_star();
  }
}

Sym fe_tc_tyvar_name(int i) {
  char buf[32];
  if (i < 26)
    snprintf(buf, sizeof buf, "%c", 'a' + i);
  else
    snprintf(buf, sizeof buf, "%c%d", 'a' + i % 26, i / 26);
  return lz_sym(buf);
}

/* ---- unification ----------------------------------------------------------------------- */

typedef enum { UF_MISMATCH, UF_OCCURS, UF_ESCAPE } UFailKind;
typedef struct UFail {
  UFailKind why;
  CoreType *a, *b;   /* the innermost mismatching pair */
  CoreTyVar *skolem; /* UF_ESCAPE */
} UFail;

/* Lower levels of the metas in t to `lvl`; fail on m itself (occurs check) or on a
 * skolem of a deeper level. */
static bool adjust(CoreType *t, TcMeta *m, UFail *f, int depth) {
  if (depth > 10000) return false;
  t = fe_tc_prune(t);
  switch (t->kind) {
  case CT_VAR: {
    TcMeta *n = meta_of(t);
    if (n) {
      if (n == m) {
        f->why = UF_OCCURS;
        return false;
      }
      if (n->level > m->level) n->level = m->level;
      return true;
    }
    TcSkolem *s = fe_tc_map_get(&fe_tc.skolems, t->var);
    if (s && s->level > m->level) {
      f->why = UF_ESCAPE;
      f->skolem = t->var;
      return false;
    }
    return true;
  }
  case CT_CON: return true;
  case CT_APP: return adjust(t->fn, m, f, depth + 1) && adjust(t->arg, m, f, depth + 1);
  case CT_FUN: return adjust(t->arg, m, f, depth + 1) && adjust(t->res, m, f, depth + 1);
  case CT_FORALL: return adjust(t->body, m, f, depth + 1);
  }
  return true;
}

static bool uni(CoreType *a, CoreType *b, UFail *f, int depth) {
  a = fe_tc_prune(a);
  b = fe_tc_prune(b);
  if (a == b) return true;
  f->a = a;
  f->b = b;
  f->why = UF_MISMATCH;
  if (depth > 10000) return false;
  TcMeta *ma = meta_of(a), *mb = meta_of(b);
  if (ma && mb) { /* bind the deeper one, so levels only go down */
    if (ma->level < mb->level) {
      mb->ref = a;
    } else {
      ma->ref = b;
    }
    return true;
  }
  if (ma || mb) {
    TcMeta *m = ma ? ma : mb;
    CoreType *t = ma ? b : a;
    if (!adjust(t, m, f, 0)) return false;
    m->ref = t;
    return true;
  }
  if (a->kind == CT_FUN && b->kind == CT_APP && fe_tc.arrow_tc)
    return uni(b->fn, core_type_app(core_type_con(fe_tc.arrow_tc), a->arg), f, depth + 1) &&
           uni(b->arg, a->res, f, depth + 1);
  if (a->kind == CT_APP && b->kind == CT_FUN && fe_tc.arrow_tc)
    return uni(a->fn, core_type_app(core_type_con(fe_tc.arrow_tc), b->arg), f, depth + 1) &&
           uni(a->arg, b->res, f, depth + 1);
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case CT_VAR: return a->var == b->var;
  case CT_CON: return a->con == b->con;
  case CT_APP: return uni(a->fn, b->fn, f, depth + 1) && uni(a->arg, b->arg, f, depth + 1);
  case CT_FUN: return uni(a->arg, b->arg, f, depth + 1) && uni(a->res, b->res, f, depth + 1);
  case CT_FORALL: return fe_tc_type_eq(a, b);
  }
  return false;
}

static TcSkolem *rigid(CoreType *t) {
  t = fe_tc_prune(t);
  return t->kind == CT_VAR && !meta_of(t) ? fe_tc_map_get(&fe_tc.skolems, t->var) : NULL;
}

static char *rigid_note(CoreType *t) {
  TcSkolem *s = rigid(t);
  if (!s) return lz_strdup("");
  CoreType *p = fe_tc_prune(t);
  char *loc = lz_span_known(s->at) ? lz_fmt("\n  at %s", lz_span_ghc(s->at)) : "";
  return lz_fmt("\n‘%s’ is a rigid type variable bound by\n  %s%s", p->var->name,
                s->origin ? s->origin : "a type signature", loc);
}

bool fe_tc_unify(CoreType *expected, CoreType *actual, LzSpan at) {
  UFail f = {0};
  if (uni(expected, actual, &f, 0)) return true;
  char *e = fe_tc_type_str(expected), *a = fe_tc_type_str(actual);
  bool top = fe_tc_prune(f.a) == fe_tc_prune(expected) && fe_tc_prune(f.b) == fe_tc_prune(actual);
  switch (f.why) {
  case UF_OCCURS: {
    TcMeta *m = meta_of(f.a) ? meta_of(f.a) : meta_of(f.b);
    CoreType *other = meta_of(f.a) == m ? f.b : f.a;
    CoreType mt = {.kind = CT_VAR, .var = &m->tv};
    fe_tc_error(at, "Occurs check: cannot construct the infinite type: %s ~ %s%s",
                fe_tc_type_str(&mt), fe_tc_type_str(other),
                top ? "" : lz_fmt("\nExpected type: %s\n  Actual type: %s", e, a));
    break;
  }
  case UF_ESCAPE:
    fe_tc_error(at,
                "Couldn't match expected type ‘%s’ with actual type ‘%s’\nbecause type variable "
                "‘%s’ would escape its scope",
                e, a, f.skolem->name);
    break;
  default: {
    char *note = rigid_note(f.a);
    if (!*note) note = rigid_note(f.b);
    if (top)
      fe_tc_error(at, "Couldn't match expected type ‘%s’ with actual type ‘%s’%s", e, a, note);
    else
      fe_tc_error(at, "Couldn't match type ‘%s’ with ‘%s’\nExpected type: %s\n  Actual type: %s%s",
                  fe_tc_type_str(f.a), fe_tc_type_str(f.b), e, a, note);
    break;
  }
  }
  return false;
}

/* ---- printing (GHC style) ---------------------------------------------------------------- */

typedef LZ_VEC(char) Buf;

static void put(Buf *b, const char *s) {
  while (*s)
    LZ_PUSH(*b, *s++);
}

static bool is_tuple_name(Sym n, int *arity) {
  if (!n || n[0] != '(' || n[1] != ',') return false;
  int k = 1;
  while (n[k] == ',')
    k++;
  if (n[k] != ')' || n[k + 1]) return false;
  *arity = k;
  return true;
}

/* prec: 0 top, 1 argument of ->, 2 argument of an application */
static void pr(Buf *b, CoreType *t, int prec, int depth) {
  t = fe_tc_prune(t);
  if (depth > 200) {
    put(b, "...");
    return;
  }
  switch (t->kind) {
  case CT_VAR: {
    TcMeta *m = meta_of(t);
    if (m) {
      if (m->print_id < 0) m->print_id = fe_tc.print_id++;
      put(b, lz_fmt("%s%d", m->tv.name, m->print_id));
    } else {
      put(b, t->var->name);
    }
    return;
  }
  case CT_CON:
    if (t->con == fe_tc.arrow_tc)
      put(b, "(->)");
    else
      put(b, t->con->name);
    return;
  case CT_FUN: {
    TcClass *c;
    CoreType *arg;
    if (fe_tc_is_dict_type(t->arg, &c, &arg)) { /* C a => t */
      if (prec > 0) put(b, "(");
      pr(b, t->arg, 0, depth + 1);
      put(b, " => ");
      pr(b, t->res, 0, depth + 1);
      if (prec > 0) put(b, ")");
      return;
    }
    if (prec > 0) put(b, "(");
    pr(b, t->arg, 1, depth + 1);
    put(b, " -> ");
    pr(b, t->res, 0, depth + 1);
    if (prec > 0) put(b, ")");
    return;
  }
  case CT_FORALL: {
    if (prec > 0) put(b, "(");
    put(b, "forall");
    CoreType *x = t;
    for (; x->kind == CT_FORALL; x = fe_tc_prune(x->body)) {
      put(b, " ");
      put(b, x->var->name);
    }
    put(b, ". ");
    pr(b, x, 0, depth + 1);
    if (prec > 0) put(b, ")");
    return;
  }
  case CT_APP: {
    CoreType *args[64];
    int n;
    CoreType *h = fe_tc_spine(t, args, 64, &n);
    if (n > 64) n = 64;
    int ar;
    if (h->kind == CT_CON && h->con == core_list_tycon() && n == 1) {
      put(b, "[");
      pr(b, args[0], 0, depth + 1);
      put(b, "]");
      return;
    }
    if (h->kind == CT_CON && is_tuple_name(h->con->name, &ar) && ar == n) {
      put(b, "(");
      for (int i = 0; i < n; i++) {
        if (i) put(b, ", ");
        pr(b, args[i], 0, depth + 1);
      }
      put(b, ")");
      return;
    }
    if (prec > 1) put(b, "(");
    pr(b, h, 2, depth + 1);
    for (int i = 0; i < n; i++) {
      put(b, " ");
      pr(b, args[i], 2, depth + 1);
    }
    if (prec > 1) put(b, ")");
    return;
  }
  }
}

char *fe_tc_type_str(CoreType *t) {
  Buf b = {0};
  pr(&b, t, 0, 0);
  LZ_PUSH(b, 0);
  return b.data;
}

char *fe_tc_pred_str(TcClass *c, CoreType *t) {
  Buf b = {0};
  put(&b, c->name->occ);
  put(&b, " ");
  pr(&b, t, 2, 0);
  LZ_PUSH(b, 0);
  return b.data;
}

/* ---- zonking and free metas ------------------------------------------------------------ */

static bool kind_eq(CoreKind *a, CoreKind *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  return a->kind == CK_STAR || (kind_eq(a->arg, b->arg) && kind_eq(a->res, b->res));
}

/* An empty data type of kind k, standing for an unconstrained type nobody looks at. */
static CoreType *any_of_kind(CoreKind *k) {
  if (!k || k->kind == CK_STAR) return core_type_con(core_unit_tycon());
  for (int i = 0; i < fe_tc.any_tcs.len; i++)
    if (kind_eq(fe_tc.any_tcs.data[i]->kind, k)) return core_type_con(fe_tc.any_tcs.data[i]);
  CoreTyCon *tc = LZ_NEW(CoreTyCon);
  tc->name = lz_sym("Any");
  tc->module = lz_sym("Lz.Base");
  tc->sort = TC_DATA;
  tc->kind = k;
  int n = 0;
  for (CoreKind *x = k; x->kind == CK_ARROW; x = x->res)
    n++;
  tc->arity = n;
  tc->params = LZ_NEW_ARRAY(CoreTyVar *, n > 0 ? n : 1);
  CoreKind *x = k;
  for (int i = 0; i < n; i++, x = x->res)
    tc->params[i] = core_tyvar_new(fe_tc_tyvar_name(i), x->arg);
  tc->uniq = core_fresh_uniq();
  LZ_PUSH(fe_tc.any_tcs, tc);
  fe_tc_note_tycon(tc);
  return core_type_con(tc);
}

CoreType *fe_tc_zonk(CoreType *t, bool final) {
  t = fe_tc_prune(t);
  switch (t->kind) {
  case CT_VAR: {
    TcMeta *m = meta_of(t);
    if (m && final) {
      m->ref = any_of_kind(m->tv.kind);
      return m->ref;
    }
    return t;
  }
  case CT_CON:
    if (final) fe_tc_note_tycon(t->con);
    return t;
  case CT_APP: {
    CoreType *f = fe_tc_zonk(t->fn, final), *a = fe_tc_zonk(t->arg, final);
    return f == t->fn && a == t->arg ? t : fe_tc_app(f, a);
  }
  case CT_FUN: {
    CoreType *a = fe_tc_zonk(t->arg, final), *r = fe_tc_zonk(t->res, final);
    return a == t->arg && r == t->res ? t : core_type_fun(a, r);
  }
  case CT_FORALL: {
    CoreType *b = fe_tc_zonk(t->body, final);
    return b == t->body ? t : core_type_forall(t->var, b);
  }
  }
  return t;
}

void fe_tc_free_metas(CoreType *t, int lvl, TcMap *seen, void *vec) {
  LZ_VEC(TcMeta *) *out = vec;
  t = fe_tc_prune(t);
  switch (t->kind) {
  case CT_VAR: {
    TcMeta *m = meta_of(t);
    if (m && m->level > lvl && !fe_tc_map_get(seen, m)) {
      fe_tc_map_put(seen, m, (void *)1);
      LZ_PUSH(*out, m);
    }
    return;
  }
  case CT_CON: return;
  case CT_APP:
    fe_tc_free_metas(t->fn, lvl, seen, vec);
    fe_tc_free_metas(t->arg, lvl, seen, vec);
    return;
  case CT_FUN:
    fe_tc_free_metas(t->arg, lvl, seen, vec);
    fe_tc_free_metas(t->res, lvl, seen, vec);
    return;
  case CT_FORALL: fe_tc_free_metas(t->body, lvl, seen, vec); return;
  }
}

bool fe_tc_too_many_errors(void) {
  if (fe_tc.nerrors >= 20) fe_tc.stop = true;
  return fe_tc.stop;
}

/* ---- errors, reported sorted ------------------------------------------------------------- */

void fe_tc_error(LzSpan at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  TcError e = {at, lz_vfmt(fmt, ap), fe_tc.errors.len};
  va_end(ap);
  LZ_PUSH(fe_tc.errors, e);
  fe_tc.nerrors++;
}

static int rank(LzSpan s) {
  if (s.file <= 0) return -1;
  if (s.file < fe_tc.nfile_module && fe_tc.file_rank) return fe_tc.file_rank[s.file];
  return 1 << 20;
}

static int cmp_error(const void *a, const void *b) {
  const TcError *x = a, *y = b;
  int rx = rank(x->at), ry = rank(y->at);
  if (rx != ry) return rx < ry ? -1 : 1;
  if (x->at.file != y->at.file) return x->at.file < y->at.file ? -1 : 1;
  if (x->at.line != y->at.line) return x->at.line < y->at.line ? -1 : 1;
  if (x->at.col != y->at.col) return x->at.col < y->at.col ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void fe_tc_flush_errors(void) {
  if (fe_tc.errors.len > 1)
    qsort(fe_tc.errors.data, (size_t)fe_tc.errors.len, sizeof(TcError), cmp_error);
  for (int i = 0; i < fe_tc.errors.len; i++)
    lz_error(fe_tc.errors.data[i].at, "%s", fe_tc.errors.data[i].msg);
  fe_tc.errors.len = 0;
}
