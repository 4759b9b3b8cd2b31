/* core_lint.c — the Core linter: checks every invariant listed in core.h and reports
 * each violation as
 *   core lint (after PASS): in binding ‘f’: <what>
 *       in: <the offending expression, shortened>
 *
 * The idea: one walk over the program computes each expression's type bottom-up (the
 * way core_expr_type does, but checking instead of trusting), with two scopes: value
 * variables in a hash table keyed by unique (each binder is entered once, so a second
 * binder with the same unique is itself a violation) and type variables on a stack.
 * A sub-expression that already produced a violation yields no type (NULL), and the
 * checks above it are skipped, so one mistake gives one report rather than a cascade.
 * Kinds are computed for every type written in the program (binder types, type
 * arguments, case result types, casts), which also catches type variables used outside
 * their forall or /\ (escape). The walk stops after MAX_REPORTS violations and does not
 * descend deeper than CORE_MAX_DEPTH (see core_priv.h); the kind/type checks are in
 * core_types.c.
 */
#include <stdarg.h>
#include <string.h>

#include "core_priv.h"

enum { MAX_REPORTS = 20, EXPR_QUOTE = 160 };

static FILE *lint_stream;
void core_set_lint_stream(FILE *f) { lint_stream = f; }

/* ---- scopes ------------------------------------------------------------------------- */

typedef struct VarEntry {
  bool used; /* slot occupied */
  int uniq;
  const CoreVar *var;
  bool in_scope;
  bool evaluated; /* bound by a case, a strict field, or to a value */
  bool global;
  int group; /* global: index of its binding group */
} VarEntry;

typedef struct Lint {
  const CoreProgram *p;
  FILE *out;
  const char *pass;
  const char *where_kind, *where; /* "binding", "f" */
  int count;
  bool stopped, deep_noted;
  VarEntry *slots;
  int cap, nvars;
  CoreTyScope tyscope;
  int cur_group;
  bool cur_rec;
  int depth;
} Lint;

static unsigned hash_int(int u) { return (unsigned)u * 2654435761u; }

static VarEntry *var_find(Lint *L, int uniq) {
  if (!L->cap) return NULL;
  for (unsigned i = hash_int(uniq) & (unsigned)(L->cap - 1);;
       i = (i + 1) & (unsigned)(L->cap - 1)) {
    if (!L->slots[i].used) return NULL;
    if (L->slots[i].uniq == uniq) return &L->slots[i];
  }
}

static VarEntry *var_add(Lint *L, int uniq) {
  if (2 * (L->nvars + 1) > L->cap) {
    int ncap = L->cap ? L->cap * 2 : 1024;
    VarEntry *ns = LZ_NEW_ARRAY(VarEntry, ncap);
    for (int i = 0; i < L->cap; i++) {
      if (!L->slots[i].used) continue;
      unsigned j = hash_int(L->slots[i].uniq) & (unsigned)(ncap - 1);
      while (ns[j].used)
        j = (j + 1) & (unsigned)(ncap - 1);
      ns[j] = L->slots[i];
    }
    L->slots = ns;
    L->cap = ncap;
  }
  unsigned j = hash_int(uniq) & (unsigned)(L->cap - 1);
  while (L->slots[j].used)
    j = (j + 1) & (unsigned)(L->cap - 1);
  L->nvars++;
  L->slots[j].used = true;
  L->slots[j].uniq = uniq;
  return &L->slots[j];
}

static bool same_tyvar(const CoreTyVar *a, const CoreTyVar *b) {
  return a == b || (a && b && a->uniq != 0 && a->uniq == b->uniq);
}

static bool tyvar_in_scope(Lint *L, const CoreTyVar *v) {
  for (int i = L->tyscope.len - 1; i >= 0; i--)
    if (same_tyvar(L->tyscope.data[i], v)) return true;
  return false;
}

/* ---- reports -------------------------------------------------------------------------- */

static void report(Lint *L, const CoreExpr *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report(Lint *L, const CoreExpr *at, const char *fmt, ...) {
  if (L->stopped) return;
  va_list ap;
  va_start(ap, fmt);
  char *msg = lz_vfmt(fmt, ap);
  va_end(ap);
  fprintf(L->out, "core lint (after %s): ", L->pass);
  if (L->where) fprintf(L->out, "in %s \xe2\x80\x98%s\xe2\x80\x99: ", L->where_kind, L->where);
  fprintf(L->out, "%s\n", msg);
  if (at) {
    fprintf(L->out, "    in: %s", core_expr_to_string(at, EXPR_QUOTE));
    if (lz_span_known(at->span)) fprintf(L->out, "  (from %s)", lz_span_ghc(at->span));
    fprintf(L->out, "\n");
  }
  if (++L->count >= MAX_REPORTS) {
    fprintf(L->out, "core lint (after %s): too many violations, stopping here\n", L->pass);
    L->stopped = true;
  }
}

static const char *tystr(const CoreType *t) { return core_type_to_string(t); }

/* Report "WHAT: expected A but got B", telling apart types that print alike. */
static void report_mismatch(Lint *L, const CoreExpr *at, const char *what, const CoreType *expected,
                            const CoreType *actual) {
  char *a = core_type_to_string(expected), *b = core_type_to_string(actual);
  if (strcmp(a, b) == 0)
    a = core_type_to_string_uniq(expected), b = core_type_to_string_uniq(actual);
  report(L, at, "%s: expected %s but got %s", what, a, b);
}

static const char *var_str(const CoreVar *v) { return core_var_to_string(v); }

/* ---- types ----------------------------------------------------------------------------- */

static const char *type_problem(Lint *L, const CoreType *t, const CoreKind *want) {
  return core_type_problem(t, want, &L->tyscope);
}

static bool check_type(Lint *L, const CoreExpr *at, const CoreType *t, const char *what) {
  const char *why = type_problem(L, t, NULL);
  if (why) report(L, at, "in the type of %s: %s", what, why);
  return !why;
}

/* ---- type constructors ------------------------------------------------------------------- */

static void lint_tycon(Lint *L, const CoreTyCon *tc) {
  if (!tc) {
    report(L, NULL, "program lists a NULL type constructor");
    return;
  }
  L->where_kind = "type";
  L->where = tc->name ? tc->name : "?";
  if (tc->arity < 0 || (tc->arity > 0 && !tc->params)) {
    report(L, NULL, "bad arity %d or missing parameters", tc->arity);
    return;
  }
  if (tc->sort == TC_NEWTYPE &&
      (tc->ncons != 1 || !tc->cons || !tc->cons[0] || tc->cons[0]->arity != 1))
    report(L, NULL, "a newtype must have exactly one constructor with one field");
  if (tc->ncons > 0 && !tc->cons) {
    report(L, NULL, "%d constructors but no constructor array", tc->ncons);
    return;
  }
  int mark = L->tyscope.len;
  for (int i = 0; i < tc->arity; i++)
    LZ_PUSH(L->tyscope, tc->params[i]);
  const char *why;
  for (int i = 0; i < tc->ncons && !L->stopped; i++) {
    const CoreDataCon *c = tc->cons[i];
    if (!c) {
      report(L, NULL, "constructor %d is NULL", i);
      continue;
    }
    if (c->tycon != tc)
      report(L, NULL, "constructor ‘%s’ does not point back to its type", c->name);
    if (c->tag != i)
      report(L, NULL, "constructor ‘%s’ has tag %d but is number %d", c->name, c->tag, i);
    if (c->arity < 0 || (c->arity > 0 && (!c->fields || !c->strict))) {
      report(L, NULL, "constructor ‘%s’ has a bad arity or no field array", c->name);
      continue;
    }
    for (int j = 0; j < c->arity; j++)
      if ((why = type_problem(L, c->fields[j], NULL)))
        report(L, NULL, "in the type of field %d of constructor ‘%s’: %s", j + 1, c->name, why);
  }
  L->tyscope.len = mark;
  L->where = NULL;
}

/* ---- expressions --------------------------------------------------------------------------- */

static CoreType *lint_expr(Lint *L, const CoreExpr *e);

static bool is_evaluated(Lint *L, const CoreExpr *e) {
  for (int guard = 0; e && guard < 1000; guard++) {
    switch (e->kind) {
    case CE_LIT:
    case CE_LAM:
    case CE_CON: return true;
    case CE_TYLAM:
    case CE_CAST: e = e->body; break;
    case CE_TYAPP: e = e->fn; break;
    case CE_VAR: {
      VarEntry *en = e->var ? var_find(L, e->var->uniq) : NULL;
      return en && en->evaluated;
    }
    default: return false;
    }
  }
  return false;
}

static void bind_var(Lint *L, const CoreExpr *at, const CoreVar *v, bool evaluated,
                     const char *what) {
  if (!v) {
    report(L, at, "%s has no variable (NULL)", what);
    return;
  }
  if (v->global) report(L, at, "local %s ‘%s’ is marked global", what, var_str(v));
  VarEntry *en = var_find(L, v->uniq);
  if (en)
    report(L, at, "%s ‘%s’ reuses unique %d, already bound to ‘%s’", what, var_str(v), v->uniq,
           var_str(en->var));
  else
    en = var_add(L, v->uniq);
  en->var = v;
  en->in_scope = true;
  en->evaluated = evaluated;
  en->global = false;
  const char *why = type_problem(L, v->type, NULL);
  if (why) report(L, at, "in the type of %s ‘%s’: %s", what, var_str(v), why);
}

static void unbind_var(Lint *L, const CoreVar *v) {
  VarEntry *en = v ? var_find(L, v->uniq) : NULL;
  if (en && en->var == v && !en->global) en->in_scope = false;
}

static CoreType *lint_var(Lint *L, const CoreExpr *e) {
  const CoreVar *v = e->var;
  if (!v) return report(L, e, "variable occurrence without a variable (NULL)"), NULL;
  VarEntry *en = var_find(L, v->uniq);
  bool ok =
      en && (en->global ? en->group < L->cur_group || (en->group == L->cur_group && L->cur_rec)
                        : en->in_scope);
  if (!ok) {
    if (en && en->global && en->group == L->cur_group)
      report(L, e, "‘%s’ refers to itself but its binding group is not recursive", var_str(v));
    else if (en && en->global)
      report(L, e, "‘%s’ is used before its binding group (groups must be in dependency order)",
             var_str(v));
    else
      report(L, e, "variable ‘%s’ is not in scope", var_str(v));
    return NULL;
  }
  if (en->var != v && !core_type_equal(en->var->type, v->type)) {
    report_mismatch(L, e, lz_fmt("occurrence of ‘%s’ disagrees with its binder’s type", var_str(v)),
                    en->var->type, v->type);
    return NULL;
  }
  return v->type;
}

static CoreType *lint_app(Lint *L, const CoreExpr *e) {
  CoreType *tf = lint_expr(L, e->fn);
  CoreType *ta = lint_expr(L, e->arg);
  if (!tf || !ta) return NULL;
  if (tf->kind != CT_FUN)
    return report(L, e, "applying an expression of non-function type %s", tystr(tf)), NULL;
  if (!core_type_equal(tf->arg, ta))
    return report_mismatch(L, e, "argument type mismatch", tf->arg, ta), NULL;
  return tf->res;
}

static CoreType *lint_tyapp(Lint *L, const CoreExpr *e) {
  CoreType *tf = lint_expr(L, e->fn);
  const char *why = NULL;
  const CoreKind *ka = core_type_kind(e->type, &L->tyscope, &why);
  if (!ka) return report(L, e, "in a type argument: %s", why), NULL;
  if (!tf) return NULL;
  if (tf->kind != CT_FORALL || !tf->var)
    return report(L, e, "type application to an expression of non-polymorphic type %s", tystr(tf)),
           NULL;
  if (!core_kind_equal(tf->var->kind, ka))
    return report(L, e, "type argument ‘%s’ has the wrong kind for ‘forall %s’", tystr(e->type),
                  tf->var->name ? tf->var->name : "?"),
           NULL;
  CoreType *arg = e->type;
  return core_type_subst(tf->body, 1, &tf->var, &arg);
}

static CoreType *lint_lam(Lint *L, const CoreExpr *e) {
  bind_var(L, e, e->var, false, "lambda binder");
  CoreType *tb = lint_expr(L, e->body);
  unbind_var(L, e->var);
  return tb && e->var ? core_type_fun(e->var->type, tb) : NULL;
}

static CoreType *lint_tylam(Lint *L, const CoreExpr *e) {
  if (!e->tyvar) return report(L, e, "type lambda without a type variable"), NULL;
  if (tyvar_in_scope(L, e->tyvar))
    report(L, e, "type variable ‘%s’ is bound twice", e->tyvar->name ? e->tyvar->name : "?");
  LZ_PUSH(L->tyscope, e->tyvar);
  CoreType *tb = lint_expr(L, e->body);
  L->tyscope.len--;
  return tb ? core_type_forall(e->tyvar, tb) : NULL;
}

static bool value_syntax(const CoreExpr *e) {
  while (e && (e->kind == CE_TYLAM || e->kind == CE_CAST))
    e = e->body;
  return e && (e->kind == CE_LAM || e->kind == CE_CON || e->kind == CE_LIT);
}

static void lint_bind_rhs(Lint *L, const CoreExpr *at, const CoreBind *b) {
  CoreType *tr = lint_expr(L, b->rhs);
  if (tr && b->var && !core_type_equal(b->var->type, tr))
    report_mismatch(
        L, at, lz_fmt("right-hand side of ‘%s’ does not have the binder’s type", var_str(b->var)),
        b->var->type, tr);
}

static CoreType *lint_let(Lint *L, const CoreExpr *e) {
  if (e->nbinds <= 0 || !e->binds) return report(L, e, "let without bindings"), NULL;
  if (!e->rec && e->nbinds != 1)
    report(L, e, "non-recursive let with %d bindings (must be exactly one)", e->nbinds);
  if (e->rec)
    for (int i = 0; i < e->nbinds; i++) {
      bind_var(L, e, e->binds[i].var, value_syntax(e->binds[i].rhs), "let binder");
      if (e->binds[i].var && core_type_unlifted(e->binds[i].var->type))
        report(L, e, "recursive binding of ‘%s’ has unlifted type %s", var_str(e->binds[i].var),
               tystr(e->binds[i].var->type));
    }
  for (int i = 0; i < e->nbinds; i++) {
    lint_bind_rhs(L, e, &e->binds[i]);
    if (!e->rec) bind_var(L, e, e->binds[i].var, value_syntax(e->binds[i].rhs), "let binder");
  }
  CoreType *tb = lint_expr(L, e->body);
  for (int i = 0; i < e->nbinds; i++)
    unbind_var(L, e->binds[i].var);
  return tb;
}

static bool lit_equal(const CoreLit *a, const CoreLit *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case CL_DOUBLE: return a->d == b->d;
  case CL_STRING:
    return a->len == b->len && a->str && b->str && memcmp(a->str, b->str, a->len) == 0;
  case CL_INTEGER:
    if (a->str && b->str) return strcmp(a->str, b->str) == 0;
    return a->i == b->i;
  default: return a->i == b->i;
  }
}

static bool check_lit(Lint *L, const CoreExpr *at, const CoreLit *l) {
  if ((unsigned)l->kind > CL_INTEGER)
    return report(L, at, "literal of unknown kind %d", (int)l->kind), false;
  if (l->kind == CL_STRING && !l->str) return report(L, at, "string literal without bytes"), false;
  if (l->kind == CL_INTEGER && !l->fits && !l->str)
    return report(L, at, "big Integer literal without digits"), false;
  return true;
}

/* Binds the alternative's pattern variables (always, so the right-hand side can be
 * checked); compares their types with the fields when the scrutinee type is known. */
static void lint_con_alt(Lint *L, const CoreExpr *e, const CoreAlt *a, CoreType *ts,
                         const CoreTyCon *tc, CoreType **args) {
  const CoreDataCon *c = a->con;
  if (!c) {
    report(L, e, "constructor alternative without a constructor");
    return;
  }
  if (c->arity > 0 && !a->vars) {
    report(L, e, "alternative ‘%s’ binds no variables for its %d fields", c->name, c->arity);
    return;
  }
  if (ts && c->tycon != tc) {
    report(L, e, "constructor ‘%s’ does not belong to the scrutinee’s type %s", c->name, tystr(ts));
    ts = NULL;
  }
  for (int j = 0; j < c->arity; j++) {
    const CoreVar *v = a->vars[j];
    bind_var(L, e, v, c->strict && c->strict[j], "pattern variable");
    CoreType *ft = ts ? core_con_field_type((CoreDataCon *)c, j, args) : NULL;
    if (v && ft && !core_type_equal(ft, v->type))
      report_mismatch(
          L, e, lz_fmt("pattern variable ‘%s’ (field %d of ‘%s’)", var_str(v), j + 1, c->name), ft,
          v->type);
  }
}

/* What lint_case learns about a case before its alternatives; kept in the arena so
 * that the recursion through nested cases carries little C stack. */
typedef struct CaseState {
  CoreType *ts;        /* scrutinee type, or NULL if unknown */
  const CoreTyCon *tc; /* its head type constructor */
  CoreType **args;     /* and arguments */
  int nargs;
  int ndefault, ncon, nlit;
  bool bad_scrut, res_ok;
} CaseState;

/* Checks alternative i's pattern and binds its variables. */
__attribute__((noinline)) static void lint_alt_pattern(Lint *L, const CoreExpr *e, CaseState *cs,
                                                       int i) {
  const CoreAlt *a = &e->alts[i];
  switch (a->kind) {
  case ALT_DEFAULT:
    if (++cs->ndefault > 1)
      report(L, e, "more than one DEFAULT alternative");
    else if (i != e->nalts - 1)
      report(L, e, "the DEFAULT alternative is not the last one");
    break;
  case ALT_CON: {
    cs->ncon++;
    const CoreTyCon *tc = cs->tc;
    bool typed = cs->ts && tc && tc->sort == TC_DATA && cs->nargs == tc->arity;
    if (cs->ts && !typed && !cs->bad_scrut) {
      report(L, e, "constructor alternative on a scrutinee of type %s, which is not an %s",
             tystr(cs->ts),
             tc && tc->sort == TC_NEWTYPE
                 ? "algebraic data type (newtypes exist only in types: use a cast)"
                 : "applied algebraic data type");
      cs->bad_scrut = true;
    }
    for (int j = 0; j < i; j++)
      if (e->alts[j].kind == ALT_CON && a->con && e->alts[j].con == a->con) {
        report(L, e, "constructor ‘%s’ has two alternatives", a->con->name);
        break;
      }
    lint_con_alt(L, e, a, typed ? cs->ts : NULL, tc, cs->args);
    break;
  }
  case ALT_LIT:
    cs->nlit++;
    if (!check_lit(L, e, &a->lit) || !cs->ts) break;
    if (!core_type_equal(core_lit_type(&a->lit), cs->ts)) {
      report_mismatch(L, e, "literal alternative does not match the scrutinee’s type", cs->ts,
                      core_lit_type(&a->lit));
      break;
    }
    for (int j = 0; j < i; j++)
      if (e->alts[j].kind == ALT_LIT && lit_equal(&e->alts[j].lit, &a->lit)) {
        report(L, e, "literal alternative %d repeats an earlier one", i + 1);
        break;
      }
    break;
  default: report(L, e, "alternative of unknown kind %d", (int)a->kind);
  }
  if (cs->ncon && cs->nlit) {
    report(L, e, "case mixes constructor and literal alternatives");
    cs->ncon = cs->nlit = 0;
  }
}

__attribute__((noinline)) static CaseState *lint_case_head(Lint *L, const CoreExpr *e,
                                                           CoreType *ts) {
  CaseState *cs = LZ_NEW(CaseState);
  cs->ts = ts;
  cs->res_ok = check_type(L, e, e->type, "the case result");
  bind_var(L, e, e->var, true, "case binder");
  if (ts && e->var && !core_type_equal(ts, e->var->type))
    report_mismatch(L, e, "case binder’s type differs from the scrutinee’s", ts, e->var->type);
  if (ts) cs->tc = core_type_split_con(ts, &cs->args, &cs->nargs);
  return cs;
}

__attribute__((noinline)) static void lint_alt_end(Lint *L, const CoreExpr *e, CaseState *cs, int i,
                                                   CoreType *tr) {
  const CoreAlt *a = &e->alts[i];
  if (tr && cs->res_ok && !core_type_equal(tr, e->type))
    report_mismatch(L, a->rhs,
                    lz_fmt("alternative %d’s type differs from the case’s result type", i + 1),
                    e->type, tr);
  if (a->kind == ALT_CON && a->con && a->vars)
    for (int j = 0; j < a->con->arity; j++)
      unbind_var(L, a->vars[j]);
}

static CoreType *lint_case(Lint *L, const CoreExpr *e) {
  CaseState *cs = lint_case_head(L, e, lint_expr(L, e->body));
  if (e->nalts <= 0 || !e->alts) {
    report(L, e, "case without alternatives");
    unbind_var(L, e->var);
    return NULL;
  }
  for (int i = 0; i < e->nalts && !L->stopped; i++) {
    lint_alt_pattern(L, e, cs, i);
    lint_alt_end(L, e, cs, i, lint_expr(L, e->alts[i].rhs));
  }
  unbind_var(L, e->var);
  return cs->res_ok ? e->type : NULL;
}

static CoreType *lint_con(Lint *L, const CoreExpr *e) {
  const CoreDataCon *c = e->con;
  if (!c || !c->tycon) return report(L, e, "constructor application without a constructor"), NULL;
  const CoreTyCon *tc = c->tycon;
  if (tc->sort == TC_NEWTYPE)
    return report(L, e,
                  "constructor ‘%s’ of newtype %s used as a value (newtypes exist only in types: "
                  "use a cast)",
                  c->name, tc->name),
           NULL;
  if (e->ntyargs != tc->arity || (e->ntyargs > 0 && !e->tyargs))
    return report(L, e, "constructor ‘%s’ needs %d type arguments but has %d", c->name, tc->arity,
                  e->ntyargs),
           NULL;
  if (e->nargs != c->arity || (e->nargs > 0 && !e->args))
    return report(L, e, "constructor ‘%s’ has %d fields but is applied to %d arguments", c->name,
                  c->arity, e->nargs),
           NULL;
  bool ok = true;
  for (int i = 0; i < e->ntyargs; i++) {
    const char *why =
        type_problem(L, e->tyargs[i], tc->params && tc->params[i] ? tc->params[i]->kind : NULL);
    if (why) {
      report(L, e, "in type argument %d of ‘%s’: %s", i + 1, c->name, why);
      ok = false;
    }
  }
  for (int i = 0; i < e->nargs; i++) {
    CoreType *ta = lint_expr(L, e->args[i]);
    if (!ta || !ok) {
      ok = false;
      continue;
    }
    CoreType *ft = core_con_field_type((CoreDataCon *)c, i, e->tyargs);
    if (!core_type_equal(ft, ta)) {
      report_mismatch(L, e, lz_fmt("argument %d of constructor ‘%s’", i + 1, c->name), ft, ta);
      ok = false;
    } else if (c->strict && c->strict[i] && !core_type_unlifted(ta) &&
               !is_evaluated(L, e->args[i])) {
      report(
          L, e,
          "argument %d for the strict field of ‘%s’ is not evaluated (bind it with a case first)",
          i + 1, c->name);
    }
  }
  return ok ? core_type_apply_con(c->tycon, e->ntyargs, e->tyargs) : NULL;
}

static CoreType *lint_primop(Lint *L, const CoreExpr *e) {
  if (e->primop < 0 || e->primop >= PRIMOP_COUNT)
    return report(L, e, "unknown primop number %d", e->primop), NULL;
  const CorePrimInfo *pi = &core_primops[e->primop];
  if (e->nargs != pi->arity || (e->nargs > 0 && !e->args))
    return report(L, e, "primop %s takes %d arguments but is given %d", pi->name, pi->arity,
                  e->nargs),
           NULL;
  bool ok = check_type(L, e, e->type, "the primop's result");
  CoreType **targ = LZ_NEW_ARRAY(CoreType *, e->nargs + 1);
  for (int i = 0; i < e->nargs; i++)
    if (!(targ[i] = lint_expr(L, e->args[i]))) ok = false;
  if (!ok) return NULL;
  /* With a declared type: instantiate its foralls by matching. */
  const CoreType *decl = L->p->primop_types[e->primop];
  CoreTyVar *vars[16];
  CoreType *sub[16] = {0};
  int nv = 0;
  while (decl && decl->kind == CT_FORALL && nv < 16)
    vars[nv++] = decl->var, decl = decl->body;
  for (int i = 0; i < e->nargs; i++) {
    bool poly_param = false;
    if (decl) {
      if (decl->kind != CT_FUN) {
        report(L, e, "primop %s is declared with fewer than %d arguments", pi->name, e->nargs);
        return NULL;
      }
      poly_param = decl->arg && decl->arg->kind == CT_VAR;
      if (!core_type_match(decl->arg, targ[i], nv, vars, sub)) {
        report(L, e, "argument %d of primop %s has type %s, but its declared type is %s", i + 1,
               pi->name, tystr(targ[i]), tystr(L->p->primop_types[e->primop]));
        return NULL;
      }
      decl = decl->res;
    } else {
      poly_param = targ[i]->kind == CT_VAR;
    }
    if (!poly_param && !core_type_unlifted(targ[i]) && targ[i]->kind != CT_FUN &&
        !is_evaluated(L, e->args[i]))
      report(L, e, "lifted argument %d of primop %s is not evaluated (bind it with a case first)",
             i + 1, pi->name);
  }
  if (decl && !core_type_match(decl, e->type, nv, vars, sub))
    return report(L, e, "primop %s returns %s, but its declared type is %s", pi->name,
                  tystr(e->type), tystr(L->p->primop_types[e->primop])),
           NULL;
  return e->type;
}

static CoreType *lint_cast(Lint *L, const CoreExpr *e) {
  CoreType *from = lint_expr(L, e->body);
  if (!check_type(L, e, e->type, "the cast target") || !from) return NULL;
  if (!core_type_is_newtype_rep(from, e->type) && !core_type_is_newtype_rep(e->type, from))
    return report(L, e, "cast from %s to %s is not between a newtype and its representation",
                  tystr(from), tystr(e->type)),
           NULL;
  return e->type;
}

static CoreType *lint_expr(Lint *L, const CoreExpr *e) {
  if (L->stopped) return NULL;
  if (!e) return report(L, NULL, "missing expression (NULL)"), NULL;
  if (L->depth >= CORE_MAX_DEPTH) {
    if (!L->deep_noted)
      fprintf(L->out,
              "core lint (after %s): note: expression nested deeper than %d levels; "
              "not checked below that\n",
              L->pass, CORE_MAX_DEPTH);
    L->deep_noted = true;
    return NULL;
  }
  L->depth++;
  CoreType *t = NULL;
  switch (e->kind) {
  case CE_VAR: t = lint_var(L, e); break;
  case CE_LIT: t = check_lit(L, e, &e->lit) ? core_lit_type(&e->lit) : NULL; break;
  case CE_APP: t = lint_app(L, e); break;
  case CE_TYAPP: t = lint_tyapp(L, e); break;
  case CE_LAM: t = lint_lam(L, e); break;
  case CE_TYLAM: t = lint_tylam(L, e); break;
  case CE_LET: t = lint_let(L, e); break;
  case CE_CASE: t = lint_case(L, e); break;
  case CE_CON: t = lint_con(L, e); break;
  case CE_PRIMOP: t = lint_primop(L, e); break;
  case CE_CAST: t = lint_cast(L, e); break;
  case CE_SCC:
    if (!e->scc) report(L, e, "scc without a cost-centre name");
    t = lint_expr(L, e->body);
    break;
  default: report(L, e, "expression of unknown kind %d", (int)e->kind);
  }
  L->depth--;
  return t;
}

/* ---- programs -------------------------------------------------------------------------------- */

static void register_globals(Lint *L) {
  for (int g = 0; g < L->p->groups.len; g++) {
    const CoreBindGroup *grp = &L->p->groups.data[g];
    for (int i = 0; i < grp->nbinds && grp->binds; i++) {
      const CoreVar *v = grp->binds[i].var;
      if (!v) {
        report(L, NULL, "top-level binding %d of group %d has no variable", i, g);
        continue;
      }
      L->where_kind = "binding";
      L->where = var_str(v);
      if (!v->global) report(L, NULL, "top-level binder ‘%s’ is not marked global", var_str(v));
      VarEntry *en = var_find(L, v->uniq);
      if (en) {
        report(L, NULL, "top-level binder ‘%s’ reuses unique %d, already bound to ‘%s’", var_str(v),
               v->uniq, var_str(en->var));
        continue;
      }
      en = var_add(L, v->uniq);
      en->var = v;
      en->global = en->in_scope = true;
      en->group = g;
      en->evaluated = value_syntax(grp->binds[i].rhs);
    }
  }
  L->where = NULL;
}

static void lint_main(Lint *L) {
  L->where_kind = "binding";
  L->where = "main";
  const CoreVar *m = L->p->main;
  if (!m) {
    report(L, NULL, "the program has no main");
    return;
  }
  VarEntry *en = var_find(L, m->uniq);
  if (!en || !en->global) {
    report(L, NULL, "main (‘%s’) is not bound at top level", var_str(m));
    return;
  }
  int n;
  const CoreTyCon *tc = core_type_split_con(m->type, NULL, &n);
  if (!tc || !tc->name || strcmp(tc->name, "IO") != 0 || n != 1)
    report(L, NULL, "main has type %s, but it must have type IO t", tystr(m->type));
}

int core_lint_program(const CoreProgram *p, const char *after_pass) {
  Lint L = {0};
  L.p = p;
  L.out = lint_stream ? lint_stream : stderr;
  L.pass = after_pass ? after_pass : "?";
  L.where_kind = "binding";
  if (!p) {
    report(&L, NULL, "no program (NULL)");
    return L.count;
  }
  for (int i = 0; i < p->tycons.len && !L.stopped; i++)
    lint_tycon(&L, p->tycons.data[i]);
  register_globals(&L);
  for (int g = 0; g < p->groups.len && !L.stopped; g++) {
    const CoreBindGroup *grp = &p->groups.data[g];
    L.cur_group = g;
    L.cur_rec = grp->rec;
    if (grp->nbinds <= 0 || !grp->binds) {
      L.where = NULL;
      report(&L, NULL, "top-level binding group %d is empty", g);
      continue;
    }
    for (int i = 0; i < grp->nbinds && !L.stopped; i++) {
      const CoreBind *b = &grp->binds[i];
      if (!b->var) continue; /* reported by register_globals */
      L.where_kind = "binding";
      L.where = var_str(b->var);
      if (!grp->rec && grp->nbinds != 1 && i == 0)
        report(&L, NULL, "non-recursive binding group with %d bindings (must be exactly one)",
               grp->nbinds);
      L.tyscope.len = 0;
      check_type(&L, NULL, b->var->type, "the top-level binder");
      lint_bind_rhs(&L, b->rhs, b);
    }
  }
  L.cur_group = p->groups.len;
  if (!L.stopped) lint_main(&L);
  return L.count;
}
