/* core_types.c — kinds and the type utilities the linter (and later passes) need:
 * the kind of a type, well-formedness of a type against the type variables in scope,
 * splitting an applied type constructor, unliftedness, the newtype/representation
 * relation, and one-way matching of a declared primop type.
 *
 * The idea: these functions only compute and never report. A problem comes back as a
 * message string (why a type is ill-formed), so the linter decides where and how to
 * report it, and the functions can be reused by any pass that must inspect types.
 * See Note [Core] in docs/notes/core.md.
 */
#include "core_priv.h"

static bool same_tyvar(const CoreTyVar *a, const CoreTyVar *b) {
  return a == b || (a && b && a->uniq != 0 && a->uniq == b->uniq);
}

static const char *tystr(const CoreType *t) { return core_type_to_string(t); }

bool core_kind_equal(const CoreKind *a, const CoreKind *b) {
  for (;;) {
    bool sa = !a || a->kind == CK_STAR, sb = !b || b->kind == CK_STAR;
    if (sa || sb) return sa && sb;
    if (!core_kind_equal(a->arg, b->arg)) return false;
    a = a->res, b = b->res;
  }
}

static bool kind_is_star(const CoreKind *k) { return !k || k->kind == CK_STAR; }

static const CoreKind *tycon_kind(const CoreTyCon *tc) {
  if (tc->kind) return tc->kind;
  CoreKind *k = core_kind_star(); /* built from the parameters' kinds */
  for (int i = tc->arity - 1; i >= 0; i--)
    k = core_kind_arrow(tc->params && tc->params[i] ? tc->params[i]->kind : NULL, k);
  return k;
}

typedef struct LocalTv {
  const CoreTyVar *v;
  const struct LocalTv *next;
} LocalTv;

static const CoreKind *kind_of(const CoreType *t, const CoreTyScope *scope, const LocalTv *env,
                               int depth, const char **why) {
  if (!t) return *why = "missing type (NULL)", NULL;
  if (depth > 1000) return *why = "type nested too deeply", NULL;
  switch (t->kind) {
  case CT_VAR:
    if (!t->var) return *why = "type variable node without a variable", NULL;
    for (const LocalTv *e = env; e; e = e->next)
      if (same_tyvar(e->v, t->var)) return t->var->kind;
    if (scope) {
      bool found = false;
      for (int i = scope->len - 1; i >= 0 && !found; i--)
        found = same_tyvar(scope->data[i], t->var);
      if (!found) /* the type checker's unification variables have negative uniques */
        return *why = lz_fmt(
                   t->var->uniq < 0
                       ? "unresolved type variable ‘%s’ (a unification variable) left in Core"
                       : "type variable ‘%s’ is not in scope",
                   core_type_to_string_uniq(t)),
               NULL;
    }
    return t->var->kind;
  case CT_CON:
    if (!t->con) return *why = "type constructor node without a constructor", NULL;
    return tycon_kind(t->con);
  case CT_APP: {
    const CoreKind *kf = kind_of(t->fn, scope, env, depth + 1, why);
    if (!kf) return NULL;
    const CoreKind *ka = kind_of(t->arg, scope, env, depth + 1, why);
    if (!ka) return NULL;
    if (kind_is_star(kf))
      return *why = lz_fmt("type ‘%s’ is applied to too many arguments", tystr(t)), NULL;
    if (!core_kind_equal(kf->arg, ka))
      return *why = lz_fmt("kind mismatch in type application ‘%s’", tystr(t)), NULL;
    return kf->res;
  }
  case CT_FUN: {
    const CoreKind *ka = kind_of(t->arg, scope, env, depth + 1, why);
    if (!ka) return NULL;
    const CoreKind *kr = kind_of(t->res, scope, env, depth + 1, why);
    if (!kr) return NULL;
    if (!kind_is_star(ka) || !kind_is_star(kr))
      return *why = lz_fmt("function type ‘%s’ has an argument or result that is not of kind *",
                           tystr(t)),
             NULL;
    return core_kind_star();
  }
  case CT_FORALL: {
    if (!t->var) return *why = "forall without a variable", NULL;
    LocalTv e = {t->var, env};
    const CoreKind *kb = kind_of(t->body, scope, &e, depth + 1, why);
    if (!kb) return NULL;
    if (!kind_is_star(kb))
      return *why = lz_fmt("forall body of ‘%s’ is not of kind *", tystr(t)), NULL;
    return core_kind_star();
  }
  }
  return *why = "malformed type node", NULL;
}

const CoreKind *core_type_kind(const CoreType *t, const CoreTyScope *scope, const char **why) {
  return kind_of(t, scope, NULL, 0, why);
}

const char *core_type_problem(const CoreType *t, const CoreKind *want, const CoreTyScope *scope) {
  const char *why = NULL;
  const CoreKind *k = kind_of(t, scope, NULL, 0, &why);
  if (!k) return why;
  if (!core_kind_equal(k, want))
    return lz_fmt("‘%s’ %s", tystr(t),
                  kind_is_star(want) ? "is not of kind *" : "has the wrong kind");
  return NULL;
}

const CoreTyCon *core_type_split_con(const CoreType *t, CoreType ***args, int *nargs) {
  int n = 0;
  const CoreType *h = t;
  for (; h && h->kind == CT_APP; h = h->fn)
    n++;
  if (!h || h->kind != CT_CON || !h->con) return NULL;
  if (nargs) *nargs = n;
  if (args) {
    *args = LZ_NEW_ARRAY(CoreType *, n + 1);
    for (int i = n - 1; i >= 0; i--, t = t->fn)
      (*args)[i] = t->arg;
  }
  return h->con;
}

bool core_type_unlifted(const CoreType *t) {
  const CoreTyCon *tc = core_type_split_con(t, NULL, NULL);
  return tc && tc->unlifted;
}

bool core_type_is_newtype_rep(const CoreType *nt, const CoreType *to) {
  CoreType **args;
  int n;
  const CoreTyCon *tc = core_type_split_con(nt, &args, &n);
  if (!tc || tc->sort != TC_NEWTYPE || n != tc->arity || tc->ncons != 1 || !tc->cons ||
      !tc->cons[0] || tc->cons[0]->arity != 1)
    return false;
  return core_type_equal(core_con_field_type(tc->cons[0], 0, args), to);
}

static bool match(const CoreType *pat, const CoreType *t, int n, CoreTyVar **vars, CoreType **sub,
                  int depth) {
  if (!pat || !t || depth > 200) return false;
  if (pat->kind == CT_VAR)
    for (int i = 0; i < n; i++)
      if (same_tyvar(vars[i], pat->var)) {
        if (sub[i]) return core_type_equal(sub[i], t);
        sub[i] = (CoreType *)t;
        return true;
      }
  if (pat->kind != t->kind) return false;
  switch (pat->kind) {
  case CT_APP:
    return match(pat->fn, t->fn, n, vars, sub, depth + 1) &&
           match(pat->arg, t->arg, n, vars, sub, depth + 1);
  case CT_FUN:
    return match(pat->arg, t->arg, n, vars, sub, depth + 1) &&
           match(pat->res, t->res, n, vars, sub, depth + 1);
  default: return core_type_equal(pat, t);
  }
}

bool core_type_match(const CoreType *pat, const CoreType *t, int n, CoreTyVar **vars,
                     CoreType **sub) {
  return match(pat, t, n, vars, sub, 0);
}
