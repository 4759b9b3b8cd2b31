/* stg_lint.c — the STG linter: checks every invariant listed in stg.h and reports each
 * violation as
 *   stg lint (after PASS): in binding ‘f’: <what>
 *       in: <the offending expression, shortened>
 *
 * The idea: one walk over the program with the variables in scope in a table indexed by
 * id, checking each node against the rep its context requires (the rep flows top-down
 * from the enclosing closure's result rep), plus two independent recomputations that
 * must agree with what the analyses stored: the exact free variables of every closure
 * (a plain walk of its body, nested closures included, so it shares no code with the
 * level-based analysis), and the let-no-escape discipline, tracked as a *context*
 * number that changes at every closure, case scrutinee and scc, so a jump is legal only
 * in the context of its let. The walk stops after MAX_REPORTS violations and does not
 * descend deeper than STG_MAX_DEPTH.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "stg_priv.h"

enum { MAX_REPORTS = 20, QUOTE = 160 };

static FILE *lint_stream;
void stg_set_lint_stream(FILE *f) { lint_stream = f; }

typedef struct Lint {
  const StgProgram *p;
  FILE *out;
  const char *pass;
  const char *where;
  int count;
  bool stopped, deep_noted;
  int n;                /* nvars */
  const StgVar **by_id; /* the variable that owns each id */
  char *in_scope;       /* per id */
  char *bound;          /* per id: seen as a binder */
  int *jump_ctx;        /* per id, for LNE binders: where jumps may be */
  int next_ctx;
  StgMap uniqs;                        /* uniq -> var */
  StgMap names;                        /* global name -> var */
  int *fv_bound, *fv_seen, *fv_listed; /* stamps for the free-variable recomputation */
  int stamp, listed_stamp;
  int depth;
} Lint;

static void report(Lint *L, const StgExpr *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(Lint *L, const StgExpr *at, const char *fmt, ...) {
  if (L->stopped) return;
  if (L->count >= MAX_REPORTS) {
    fprintf(L->out, "stg lint (after %s): too many violations, stopping\n", L->pass);
    L->stopped = true;
    return;
  }
  L->count++;
  va_list ap;
  va_start(ap, fmt);
  char *msg = lz_vfmt(fmt, ap);
  va_end(ap);
  fprintf(L->out, "stg lint (after %s): in binding ‘%s’: %s\n", L->pass, L->where ? L->where : "?",
          msg);
  if (at) {
    char *s = stg_expr_to_string(at);
    if (strlen(s) > QUOTE) strcpy(s + QUOTE - 3, "...");
    fprintf(L->out, "    in: %s\n", s);
  }
}

static const char *vs(const StgVar *v) { return stg_var_to_string(v); }

/* ---- variables ---------------------------------------------------------------------------- */

static bool valid_var(Lint *L, const StgExpr *at, const StgVar *v) {
  if (!v) return report(L, at, "missing variable"), false;
  if (v->id < 0 || v->id >= L->n)
    return report(L, at, "variable ‘%s’ has id %d out of range", vs(v), v->id), false;
  return true;
}

static void bind(Lint *L, const StgExpr *at, StgVar *v) {
  if (!valid_var(L, at, v)) return;
  if (L->by_id[v->id] && L->by_id[v->id] != v)
    report(L, at, "variables ‘%s’ and ‘%s’ share id %d", vs(v), vs(L->by_id[v->id]), v->id);
  if (L->bound[v->id]) report(L, at, "variable ‘%s’ is bound twice", vs(v));
  const StgVar *u = stg_map_get(&L->uniqs, ((uint64_t)(uint32_t)v->uniq << 1) | 1);
  if (u && u != v) report(L, at, "variables ‘%s’ and ‘%s’ share unique %d", vs(v), vs(u), v->uniq);
  stg_map_put(&L->uniqs, ((uint64_t)(uint32_t)v->uniq << 1) | 1, v);
  L->by_id[v->id] = v;
  L->bound[v->id] = 1;
  L->in_scope[v->id] = 1;
}

static void unbind(Lint *L, const StgVar *v) {
  if (v && v->id >= 0 && v->id < L->n && L->by_id[v->id] == v) L->in_scope[v->id] = 0;
}

static bool occurrence(Lint *L, const StgExpr *at, const StgVar *v) {
  if (!valid_var(L, at, v)) return false;
  if (!L->in_scope[v->id] || L->by_id[v->id] != v)
    return report(L, at, "variable ‘%s’ is not in scope", vs(v)), false;
  return true;
}

static bool lit_ok(const CoreLit *l) {
  return l->kind == CL_INT || l->kind == CL_CHAR || l->kind == CL_STRING || l->kind == CL_DOUBLE;
}

/* An atom in a position requiring `want` (-1: any rep). */
static void atom(Lint *L, const StgExpr *at, const StgAtom *a, int want, const char *what) {
  if (a->kind == SA_VAR) {
    if (!occurrence(L, at, a->var)) return;
    if (a->var->lne) report(L, at, "let-no-escape ‘%s’ used as a value (%s)", vs(a->var), what);
  } else if (a->kind != SA_LIT || !lit_ok(&a->lit)) {
    report(L, at, "%s is not an atom (a variable or an unboxed literal)", what);
    return;
  }
  StgRep r = stg_atom_rep(a);
  if (want >= 0 && r != (StgRep)want)
    report(L, at, "%s has rep %s where %s is required", what, stg_rep_name(r),
           stg_rep_name((StgRep)want));
}

/* ---- free variables, recomputed -------------------------------------------------------------- */

typedef LZ_VEC(StgVar *) VarVec;

static void fv_add(Lint *L, VarVec *out, StgVar *v) {
  if (!v || v->id < 0 || v->id >= L->n || v->global || v->lne) return;
  if (L->fv_bound[v->id] == L->stamp || L->fv_seen[v->id] == L->stamp) return;
  L->fv_seen[v->id] = L->stamp;
  LZ_PUSH(*out, v);
}

static void fv_bind(Lint *L, StgVar *v) {
  if (v && v->id >= 0 && v->id < L->n) L->fv_bound[v->id] = L->stamp;
}

static void fv_atoms(Lint *L, VarVec *out, const StgAtom *a, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].kind == SA_VAR) fv_add(L, out, a[i].var);
}

static void fv_expr(Lint *L, VarVec *out, const StgExpr *e, int depth);

static void fv_rhs_body(Lint *L, VarVec *out, const StgRhs *r, int depth) {
  for (int i = 0; i < r->arity && r->params; i++)
    fv_bind(L, r->params[i]);
  if (r->kind == STG_CON)
    fv_atoms(L, out, r->args, r->nargs);
  else
    fv_expr(L, out, r->body, depth + 1);
}

static void fv_expr(Lint *L, VarVec *out, const StgExpr *e, int depth) {
  for (; e && depth < STG_MAX_DEPTH; depth++) {
    switch (e->kind) {
    case SE_ATOM: fv_atoms(L, out, &e->atom, 1); return;
    case SE_APP:
      fv_add(L, out, e->fn);
      fv_atoms(L, out, e->args, e->nargs);
      return;
    case SE_CON:
    case SE_PRIMOP: fv_atoms(L, out, e->args, e->nargs); return;
    case SE_CASE:
      fv_expr(L, out, e->scrut, depth + 1);
      fv_bind(L, e->binder);
      for (int i = 0; i < e->nalts; i++) {
        const StgAlt *a = &e->alts[i];
        for (int j = 0; a->kind == STG_ALT_CON && a->con && a->vars && j < a->con->arity; j++)
          fv_bind(L, a->vars[j]);
        if (i + 1 < e->nalts) fv_expr(L, out, a->rhs, depth + 1);
      }
      e = e->nalts ? e->alts[e->nalts - 1].rhs : NULL;
      break;
    case SE_SCC: e = e->body; break;
    case SE_LET:
      for (int i = 0; i < e->nbinds; i++)
        fv_bind(L, e->binds[i].var);
      for (int i = 0; i < e->nbinds; i++)
        fv_rhs_body(L, out, e->binds[i].rhs, depth);
      e = e->body;
      break;
    }
  }
}

/* The free variables of r's code (without the jump-implied ones of an LNE); its own
 * binder is the closure itself (the node), not a free variable. */
static VarVec free_vars(Lint *L, const StgRhs *r) {
  VarVec out = {0};
  L->stamp++;
  if (r->var) fv_bind(L, r->var);
  fv_rhs_body(L, &out, r, 0);
  return out;
}

static void check_fvs(Lint *L, const StgRhs *r, bool top) {
  const char *name = vs(r->var);
  int listed = ++L->listed_stamp;
  for (int i = 0; i < r->nfvs; i++) { /* well-formed, in scope, no duplicates */
    StgVar *v = r->fvs ? r->fvs[i] : NULL;
    if (!valid_var(L, NULL, v)) return;
    if (v->global || v->lne)
      report(L, NULL, "%s ‘%s’ is listed as a free variable of ‘%s’",
             v->global ? "global" : "let-no-escape", vs(v), name);
    else if (v == r->var)
      report(L, NULL, "‘%s’ is listed as a free variable of itself", name);
    else if (!L->in_scope[v->id] || L->by_id[v->id] != v)
      report(L, NULL, "free variable ‘%s’ of ‘%s’ is not in scope there", vs(v), name);
    if (L->fv_listed[v->id] == listed)
      report(L, NULL, "free variable ‘%s’ of ‘%s’ listed twice", vs(v), name);
    L->fv_listed[v->id] = listed;
  }
  if (top && r->nfvs) report(L, NULL, "top-level closure ‘%s’ has free variables", name);
  VarVec actual = free_vars(L, r);
  for (int i = 0; i < actual.len; i++) /* none missing */
    if (L->fv_listed[actual.data[i]->id] != listed)
      report(L, NULL, "free variable ‘%s’ is missing from the list of ‘%s’", vs(actual.data[i]),
             name);
  if (r->lne) return;               /* an LNE may list more: what the LNEs it jumps to need */
  for (int j = 0; j < r->nfvs; j++) /* none extra */
    if (L->fv_seen[r->fvs[j]->id] != L->stamp)
      report(L, NULL, "‘%s’ is listed as a free variable of ‘%s’ but does not occur", vs(r->fvs[j]),
             name);
}

/* ---- expressions -------------------------------------------------------------------------------
 */

static void lint_expr(Lint *L, const StgExpr *e, StgRep want, int ctx);

static void lint_con_args(Lint *L, const StgExpr *at, const CoreDataCon *c, const StgAtom *args,
                          int n) {
  if (!c) return report(L, at, "constructor application without a constructor");
  if (c->tycon && c->tycon->sort != TC_DATA)
    report(L, at, "constructor ‘%s’ is not of a data type", c->name);
  if (n != c->arity)
    return report(L, at, "constructor ‘%s’ applied to %d arguments (arity %d)", c->name, n,
                  c->arity);
  for (int i = 0; i < n; i++)
    atom(L, at, &args[i], stg_con_field_rep(c, i), lz_fmt("argument %d of ‘%s’", i + 1, c->name));
}

/* A closure bound to v. `ctx`: where an LNE's body runs (its let's context). */
static void lint_rhs(Lint *L, const StgExpr *at, StgVar *v, const StgRhs *r, int ctx, bool top,
                     bool rec) {
  if (!r) return report(L, at, "binding of ‘%s’ without a right-hand side", vs(v));
  if (r->var != v || v->rhs != r)
    report(L, at, "closure and binder ‘%s’ do not point to each other", vs(v));
  if (r->lne != v->lne) report(L, at, "LNE flags of ‘%s’ and its closure disagree", vs(v));
  if (v->rep != STG_P)
    report(L, at, "let-bound ‘%s’ has rep %s (closures are P)", vs(v), stg_rep_name(v->rep));
  if (top && v->lne) report(L, at, "top-level ‘%s’ is marked let-no-escape", vs(v));
  check_fvs(L, r, top);
  switch (r->kind) {
  case STG_CON:
    if (r->arity || r->lne)
      report(L, at, "constructor closure ‘%s’ has parameters or is LNE", vs(v));
    lint_con_args(L, at, r->con, r->args, r->nargs);
    return;
  case STG_THUNK:
    if (r->arity) report(L, at, "thunk ‘%s’ has arity %d", vs(v), r->arity);
    if (r->lne && rec) report(L, at, "recursive nullary binding ‘%s’ is let-no-escape", vs(v));
    if (r->result_rep != STG_P)
      report(L, at, "thunk ‘%s’ has result rep %s", vs(v), stg_rep_name(r->result_rep));
    break;
  case STG_FUN:
    if (r->arity < 1 || !r->params) return report(L, at, "function ‘%s’ has no parameters", vs(v));
    for (int i = 0; i < r->arity; i++)
      bind(L, at, r->params[i]);
    break;
  default: return report(L, at, "closure ‘%s’ of unknown kind %d", vs(v), (int)r->kind);
  }
  lint_expr(L, r->body, r->result_rep, r->lne ? ctx : L->next_ctx++);
  for (int i = 0; i < r->arity; i++)
    unbind(L, r->params[i]);
}

static void lint_app(Lint *L, const StgExpr *e, int ctx) {
  if (!occurrence(L, e, e->fn)) return;
  const StgVar *f = e->fn;
  const StgRhs *r = f->rhs;
  if (e->nargs < 0 || (e->nargs && !e->args)) return report(L, e, "malformed argument list");
  for (int i = 0; i < e->nargs; i++)
    if (e->args[i].kind == SA_VAR && e->args[i].var && e->args[i].var->lne)
      report(L, e, "let-no-escape ‘%s’ passed as an argument", vs(e->args[i].var));
  if (f->lne) {
    if (e->call != STG_CALL_JUMP)
      report(L, e, "let-no-escape ‘%s’ is called, not jumped to", vs(f));
    if (L->jump_ctx[f->id] != ctx)
      report(L, e, "jump to ‘%s’ is not in tail position of its let", vs(f));
    int arity = r && r->kind == STG_FUN ? r->arity : 0;
    if (e->nargs != arity)
      report(L, e, "jump to ‘%s’ with %d arguments (arity %d)", vs(f), e->nargs, arity);
  } else {
    if (e->call == STG_CALL_JUMP) report(L, e, "jump to ‘%s’, which is not let-no-escape", vs(f));
    bool known = r && r->kind == STG_FUN;
    if (e->call == STG_CALL_KNOWN && !known)
      report(L, e, "call of ‘%s’ marked known, but it is not a let-bound or top-level function",
             vs(f));
    if (e->call == STG_CALL_UNKNOWN && known)
      report(L, e, "call of known function ‘%s’ marked unknown", vs(f));
    if (e->nargs < 1) report(L, e, "call of ‘%s’ without arguments", vs(f));
    if (f->rep != STG_P) report(L, e, "called ‘%s’ has rep %s", vs(f), stg_rep_name(f->rep));
  }
  bool known_params =
      r && r->kind == STG_FUN && (e->call == STG_CALL_KNOWN || e->call == STG_CALL_JUMP);
  for (int i = 0; i < e->nargs; i++) {
    int want = known_params && i < r->arity ? (int)r->params[i]->rep : -1;
    atom(L, e, &e->args[i], want, lz_fmt("argument %d of ‘%s’", i + 1, vs(f)));
  }
  if (known_params) {
    StgRep res = e->nargs == r->arity ? r->result_rep : STG_P;
    if (e->nargs <= r->arity && e->rep != res)
      report(L, e, "call of ‘%s’ has rep %s but returns %s", vs(f), stg_rep_name(e->rep),
             stg_rep_name(res));
  } else if (f->lne && r && r->kind == STG_THUNK && e->rep != STG_P) {
    report(L, e, "jump to nullary ‘%s’ has rep %s", vs(f), stg_rep_name(e->rep));
  }
}

static void lint_case(Lint *L, const StgExpr *e, int ctx) {
  if (!e->binder) return report(L, e, "case without a binder");
  StgRep sr = e->binder->rep;
  lint_expr(L, e->scrut, sr, L->next_ctx++);
  bind(L, e, e->binder);
  if (e->nalts < 1 || !e->alts) report(L, e, "case without alternatives");
  bool prim = sr != STG_P;
  if (prim != (e->alts_type == STG_ALTS_PRIM))
    report(L, e, "case of a %s scrutinee has %s alternatives", stg_rep_name(sr),
           e->alts_type == STG_ALTS_PRIM ? "primitive" : "lifted");
  if (e->alts_type == STG_ALTS_ALG && (!e->tycon || e->tycon->sort != TC_DATA))
    report(L, e, "algebraic case without a data type");
  for (int i = 0; i < e->nalts && e->alts; i++) {
    const StgAlt *a = &e->alts[i];
    switch (a->kind) {
    case STG_ALT_DEFAULT:
      if (i != e->nalts - 1) report(L, e, "DEFAULT is not the last alternative");
      break;
    case STG_ALT_CON:
      if (e->alts_type != STG_ALTS_ALG || !a->con || a->con->tycon != e->tycon) {
        report(L, e, "constructor alternative ‘%s’ does not match the scrutinee",
               a->con ? a->con->name : "?");
        break;
      }
      for (int j = 0; j < i; j++)
        if (e->alts[j].kind == STG_ALT_CON && e->alts[j].con == a->con)
          report(L, e, "constructor ‘%s’ has two alternatives", a->con->name);
      for (int j = 0; j < a->con->arity && a->vars; j++) {
        bind(L, e, a->vars[j]);
        if (a->vars[j] && a->vars[j]->rep != stg_con_field_rep(a->con, j))
          report(L, e, "pattern variable ‘%s’ has rep %s but field %d of ‘%s’ is %s",
                 vs(a->vars[j]), stg_rep_name(a->vars[j]->rep), j + 1, a->con->name,
                 stg_rep_name(stg_con_field_rep(a->con, j)));
      }
      break;
    case STG_ALT_LIT:
      if (e->alts_type != STG_ALTS_PRIM || !lit_ok(&a->lit) || stg_lit_rep(&a->lit) != sr) {
        report(L, e, "literal alternative does not match the %s scrutinee", stg_rep_name(sr));
        break;
      }
      for (int j = 0; j < i; j++)
        if (e->alts[j].kind == STG_ALT_LIT && e->alts[j].lit.kind == a->lit.kind &&
            (a->lit.kind == CL_DOUBLE   ? e->alts[j].lit.d == a->lit.d
             : a->lit.kind == CL_STRING ? false
                                        : e->alts[j].lit.i == a->lit.i))
          report(L, e, "literal alternative %d repeats an earlier one", i + 1);
      break;
    default: report(L, e, "alternative of unknown kind %d", (int)a->kind);
    }
    if (e->alts_type == STG_ALTS_POLY && a->kind != STG_ALT_DEFAULT)
      report(L, e, "case on a polymorphic/opaque value with a non-DEFAULT alternative");
    lint_expr(L, a->rhs, e->rep, ctx);
    for (int j = 0; a->kind == STG_ALT_CON && a->con && a->vars && j < a->con->arity; j++)
      unbind(L, a->vars[j]);
  }
  unbind(L, e->binder);
}

static void lint_let(Lint *L, const StgExpr *e, int ctx) {
  if (e->nbinds < 1 || !e->binds) return report(L, e, "let without bindings");
  if (!e->rec && e->nbinds != 1) report(L, e, "non-recursive let with %d bindings", e->nbinds);
  for (int i = 0; i < e->nbinds; i++) {
    StgVar *v = e->binds[i].var;
    if (!v) return report(L, e, "let binding without a variable");
    if (v->lne != e->lne)
      report(L, e, "binding ‘%s’ is %sLNE in a let that is %s", vs(v), v->lne ? "" : "not ",
             e->lne ? "LNE" : "not LNE");
    if (v->global) report(L, e, "let binds global ‘%s’", vs(v));
  }
  if (e->rec)
    for (int i = 0; i < e->nbinds; i++)
      bind(L, e, e->binds[i].var);
  for (int i = 0; i < e->nbinds; i++) {
    StgVar *v = e->binds[i].var;
    if (v->id >= 0 && v->id < L->n) L->jump_ctx[v->id] = ctx;
    lint_rhs(L, e, v, e->binds[i].rhs, ctx, false, e->rec);
    if (!e->rec) bind(L, e, v);
  }
  lint_expr(L, e->body, e->rep, ctx);
  for (int i = 0; i < e->nbinds; i++)
    unbind(L, e->binds[i].var);
}

static void lint_expr(Lint *L, const StgExpr *e, StgRep want, int ctx) {
  if (L->stopped) return;
  if (!e) return report(L, NULL, "missing expression");
  if (e->rep != want)
    report(L, e, "expression has rep %s where %s is required", stg_rep_name(e->rep),
           stg_rep_name(want));
  if (L->depth >= STG_MAX_DEPTH) {
    if (!L->deep_noted)
      fprintf(L->out,
              "stg lint (after %s): note: in binding ‘%s’: expression nested more than %d deep, "
              "not linted\n",
              L->pass, L->where ? L->where : "?", STG_MAX_DEPTH);
    L->deep_noted = true;
    return;
  }
  L->depth++;
  switch (e->kind) {
  case SE_ATOM: atom(L, e, &e->atom, e->rep, "returned value"); break;
  case SE_APP: lint_app(L, e, ctx); break;
  case SE_CON:
    if (e->rep != STG_P) report(L, e, "constructor application of rep %s", stg_rep_name(e->rep));
    lint_con_args(L, e, e->con, e->args, e->nargs);
    break;
  case SE_PRIMOP: {
    if (e->primop < 0 || e->primop >= PRIMOP_COUNT) {
      report(L, e, "unknown primop %d", e->primop);
      break;
    }
    const StgPrimSig *s = &L->p->prim_sigs[e->primop];
    const char *name = core_primops[e->primop].name;
    if (e->nargs != core_primops[e->primop].arity) {
      report(L, e, "primop ‘%s’ applied to %d arguments (arity %d)", name, e->nargs,
             core_primops[e->primop].arity);
      break;
    }
    for (int i = 0; i < e->nargs; i++)
      atom(L, e, &e->args[i], s->known ? (int)s->args[i] : -1,
           lz_fmt("argument %d of ‘%s’", i + 1, name));
    if (s->known && e->rep != s->result)
      report(L, e, "primop ‘%s’ returns %s, not %s", name, stg_rep_name(s->result),
             stg_rep_name(e->rep));
    break;
  }
  case SE_CASE: lint_case(L, e, ctx); break;
  case SE_LET: lint_let(L, e, ctx); break;
  case SE_SCC:
    if (!e->scc) report(L, e, "scc without a name");
    lint_expr(L, e->body, e->rep, L->next_ctx++);
    break;
  default: report(L, e, "expression of unknown kind %d", (int)e->kind);
  }
  L->depth--;
}

/* ---- the program ---------------------------------------------------------------------------- */

int stg_lint_program(const StgProgram *p, const char *after_pass) {
  Lint lint = {0};
  Lint *L = &lint;
  L->p = p;
  L->out = lint_stream ? lint_stream : stderr;
  L->pass = after_pass ? after_pass : "?";
  L->n = p->nvars;
  L->by_id = LZ_NEW_ARRAY(const StgVar *, L->n + 1);
  L->in_scope = LZ_NEW_ARRAY(char, L->n + 1);
  L->bound = LZ_NEW_ARRAY(char, L->n + 1);
  L->jump_ctx = LZ_NEW_ARRAY(int, L->n + 1);
  L->fv_bound = LZ_NEW_ARRAY(int, L->n + 1);
  L->fv_seen = LZ_NEW_ARRAY(int, L->n + 1);
  L->fv_listed = LZ_NEW_ARRAY(int, L->n + 1);
  L->next_ctx = 1;
  for (int i = 0; i < p->binds.len; i++) { /* all globals are in scope everywhere */
    StgVar *v = p->binds.data[i].var;
    L->where = v ? vs(v) : "?";
    bind(L, NULL, v);
    if (!v) continue;
    if (!v->global) report(L, NULL, "top-level binder ‘%s’ is not marked global", vs(v));
    Sym key = lz_sym(vs(v));
    const StgVar *other = stg_map_get(&L->names, (uint64_t)(uintptr_t)key);
    if (other) report(L, NULL, "two top-level bindings are named ‘%s’", key);
    stg_map_put(&L->names, (uint64_t)(uintptr_t)key, v);
  }
  if (p->main && (!p->main->global || p->main->id < 0 || p->main->id >= L->n ||
                  L->by_id[p->main->id] != p->main)) {
    L->where = "main";
    report(L, NULL, "main is not a top-level binding of the program");
  }
  for (int i = 0; i < p->binds.len && !L->stopped; i++) {
    StgVar *v = p->binds.data[i].var;
    if (!v) continue;
    L->where = vs(v);
    lint_rhs(L, NULL, v, p->binds.data[i].rhs, L->next_ctx++, true, false);
  }
  fflush(L->out);
  return L->count;
}
