/* match.c — the pattern-match compiler: clauses of patterns become decision trees of
 * one-level kernel cases.
 *
 * A matching problem is a matrix: one column per scrutinised variable (an
 * "occurrence"), one row per clause (equation, case alternative). Compilation follows
 * Maranget's "Compiling pattern matching to good decision trees" (2008) with the
 * column choice that lazy evaluation forces: the first row's leftmost refutable
 * pattern, which is exactly what Haskell's top-to-bottom, left-to-right semantics
 * would evaluate next. Testing a column specialises the matrix for each constructor
 * (rows with that constructor, whose sub-patterns replace the column in place, plus
 * rows with a wildcard there), so no path through the tree tests a variable twice.
 * A row whose patterns are all wildcards is a leaf; if its guards can fail, the rows
 * below it are compiled as its fall-through.
 *
 * Rows with wildcards are copied into several branches, so a clause's right-hand side
 * may be reached from several leaves; such a right-hand side becomes a local function
 * of its pattern variables (and its failure continuation), called from each leaf, so
 * code is never duplicated. The tree is built first (phase 1, small nodes, which is
 * when leaves are counted), then emitted as kernel (phase 2). Decision trees can grow
 * exponentially on contrived inputs: past a node budget the problem is recompiled in
 * the backtracking style of Wadler/Augustsson (SPJ 1987, ch. 5), where a block of rows
 * that all test the column is compiled with the remaining rows as a shared failure
 * continuation (a join point), which is linear in size.
 *
 * Failure continuations, pattern checks and selectors are in desugar_fail.c; see
 * Note [Failure continuations] there.
 */
#include <string.h>

#include "desugar_internal.h"

/* ---- matrices and trees ------------------------------------------------------------------ */

typedef struct Row {
  FePat **cols; /* NULL: wildcard (after cleaning) */
  MBind *binds;
  int body;
} Row;

typedef struct Mat {
  int ncols;
  FeName **occ;
  int nrows;
  Row *rows;
} Mat;

typedef enum { T_FAIL, T_LEAF, T_SWITCH, T_EQ, T_FORCE, T_JOIN, T_GOTO } TKind;

typedef struct Tree Tree;
typedef struct TAlt {
  FeName *con; /* constructor, or NULL for a literal */
  FeLit lit;
  int nvars;
  FeName **vars;
  Tree *sub;
  LzSpan span;
} TAlt;

struct Tree {
  TKind kind;
  FeName *occ;
  LzSpan span;
  /* T_LEAF */
  int body;
  MBind *binds;
  Tree *fall; /* NULL: the clause cannot fail */
  /* T_SWITCH */
  bool lits;
  int nalts;
  TAlt *alts;
  Tree *deflt; /* NULL: the constructors are exhaustive */
  /* T_EQ */
  FePat *lit;
  Tree *yes, *no;
  /* T_FORCE */
  Tree *sub;
  /* T_JOIN (let join = rhs in in_), T_GOTO (join) */
  FeName *join;
  Tree *rhs, *in_;
};

typedef struct BodyInfo {
  int nleaves;
  Tree *first; /* first leaf reaching it */
  FeName *fn;  /* shared: the local function */
  FeNameVec params;
} BodyInfo;

typedef struct MC {
  Ds *d;
  MProblem *mp;
  bool wadler;
  int budget;
  bool over;
  Tree fail_node;
  BodyInfo *info;
} MC;

/* Decision trees larger than this are recompiled with join points. */
#ifndef MATCH_BUDGET
#define MATCH_BUDGET 4000
#endif

static Tree *tnew(MC *mc, TKind kind, LzSpan span) {
  if (--mc->budget < 0) mc->over = true;
  Tree *t = LZ_NEW(Tree);
  t->kind = kind;
  t->span = span;
  return t;
}

/* ---- cleaning: variables, as, lazy, bang, normalisation ----------------------------------- */

static void bind(Row *r, FeName *var, FeName *occ, FePat *lazy) {
  if (!var) return;
  MBind *b = LZ_NEW(MBind);
  b->var = var;
  b->occ = occ;
  b->lazy = lazy;
  b->next = r->binds;
  r->binds = b;
}

static FePat *force_marker(FePat *p, FePat *sub) {
  if (p->kind == P_BANG && p->sub == sub) return p;
  FePat *m = fe_pat_new(P_BANG, p->span);
  m->sub = sub;
  return m;
}

static bool is_force_marker(const FePat *p) {
  return p->kind == P_BANG && (!p->sub || p->sub->kind == P_CON);
}

/* The pattern p at occurrence occ, reduced to a test (P_CON, P_LIT, force marker) or
 * NULL (no test); the variables it binds are added to r. Idempotent on its result.
 * Force markers are P_BANG nodes whose sub is NULL or a newtype constructor pattern
 * (user bang patterns always have a sub-pattern). */
static FePat *clean(Row *r, FePat *p, FeName *occ, int depth) {
  for (int steps = 0; p && steps < 10000; steps++) {
    switch (p->kind) {
    case P_WILD: return NULL;
    case P_VAR: bind(r, p->id.ref, occ, NULL); return NULL;
    case P_AS:
      bind(r, p->id.ref, occ, NULL);
      p = p->sub;
      continue;
    case P_PAREN: p = p->sub; continue;
    case P_LAZY: {
      FePat *s = p->sub;
      while (s && s->kind == P_PAREN)
        s = s->sub;
      if (!s || s->kind == P_VAR || s->kind == P_WILD || s->kind == P_LAZY) {
        p = s;
        continue;
      }
      FeNameVec vars = {0};
      fe_ds_pat_vars(s, &vars);
      for (int i = 0; i < vars.len; i++)
        bind(r, vars.data[i], occ, s);
      return NULL;
    }
    case P_BANG: {
      if (is_force_marker(p)) return p;
      if (depth > 50) return force_marker(p, NULL);
      FePat *s = clean(r, p->sub, occ, depth + 1);
      if (!s) return force_marker(p, NULL);
      if (s->kind == P_CON && fe_ds_is_newtype_con(s->id.ref)) return force_marker(p, s);
      return s; /* constructor and literal tests force anyway */
    }
    case P_TUPLE:
    case P_LIST:
    case P_REC: {
      p = fe_ds_pat_normalise(p);
      continue;
    }
    case P_LIT: {
      FePat *n = fe_ds_pat_normalise(p);
      if (n != p) {
        p = n;
        continue;
      }
      if (p->lit.kind == L_PRIM_STRING) return NULL; /* reported by the checker */
      return p;
    }
    case P_CON: {
      int arity = fe_ds_con_arity(p->id.ref);
      if (arity >= 0 && arity != p->args.len) return NULL; /* reported */
      return p;
    }
    case P_OPSEQ: return NULL;
    }
  }
  return NULL;
}

typedef enum { S_NONE, S_CON, S_PRIMLIT, S_EQLIT, S_FORCE } Sort;

static Sort sort_of(const FePat *p) {
  if (!p) return S_NONE;
  if (p->kind == P_CON) return S_CON;
  if (p->kind == P_BANG) return S_FORCE;
  if (p->kind == P_LIT) {
    switch (p->lit.kind) {
    case L_PRIM_INT:
    case L_PRIM_CHAR:
    case L_PRIM_DOUBLE: return S_PRIMLIT;
    default: return S_EQLIT;
    }
  }
  return S_NONE;
}

/* ---- phase 1: the decision tree -------------------------------------------------------------- */

static Tree *compile(MC *mc, Mat *m, Tree *fail);

static Mat mat_new(int ncols, FeName **occ, int cap) {
  Mat m = {ncols, occ, 0, LZ_NEW_ARRAY(Row, cap > 0 ? cap : 1)};
  return m;
}

static FePat **cols_copy(Mat *m, Row *r) {
  FePat **c = LZ_NEW_ARRAY(FePat *, m->ncols > 0 ? m->ncols : 1);
  memcpy(c, r->cols, sizeof(FePat *) * (size_t)m->ncols);
  return c;
}

/* Replace column j by n columns (the fields of a constructor): occurrences. */
static FeName **occ_expand(Mat *m, int j, int n, FeName **vars) {
  int nc = m->ncols - 1 + n;
  FeName **occ = LZ_NEW_ARRAY(FeName *, nc > 0 ? nc : 1);
  memcpy(occ, m->occ, sizeof(FeName *) * (size_t)j);
  memcpy(occ + j, vars, sizeof(FeName *) * (size_t)n);
  memcpy(occ + j + n, m->occ + j + 1, sizeof(FeName *) * (size_t)(m->ncols - j - 1));
  return occ;
}

static void push_expanded(Mat *sub, Mat *m, Row *r, int j, int n, FePat **args) {
  FePat **c = LZ_NEW_ARRAY(FePat *, sub->ncols > 0 ? sub->ncols : 1);
  memcpy(c, r->cols, sizeof(FePat *) * (size_t)j);
  for (int k = 0; k < n; k++)
    c[j + k] = args ? args[k] : NULL;
  memcpy(c + j + n, r->cols + j + 1, sizeof(FePat *) * (size_t)(m->ncols - j - 1));
  Row nr = {c, r->binds, r->body};
  sub->rows[sub->nrows++] = nr;
}

/* A readable name for the variable of field k of constructor con: the first row's
 * variable there, if any. */
static FeName *field_var(Mat *m, int j, FeName *con, int k, LzSpan at) {
  for (int i = 0; i < m->nrows; i++) {
    FePat *q = m->rows[i].cols[j];
    if (!q || q->kind != P_CON || q->id.ref != con || k >= q->args.len) continue;
    FePat *a = q->args.data[k];
    while (a && (a->kind == P_BANG || a->kind == P_PAREN || a->kind == P_LAZY))
      a = a->sub;
    if (a && (a->kind == P_VAR || a->kind == P_AS) && a->id.ref && a->id.ref->occ)
      return fe_ds_fresh(a->id.ref->occ, at);
  }
  return fe_ds_fresh("ds", at);
}

static Tree *compile_switch(MC *mc, Mat *m, int j, Tree *fail) {
  FePat *p0 = m->rows[0].cols[j];
  Tree *t = tnew(mc, T_SWITCH, p0->span);
  t->occ = m->occ[j];
  t->lits = sort_of(p0) == S_PRIMLIT;
  Sort s0 = sort_of(p0);
  /* distinct constructors / literals in order of appearance */
  LZ_VEC(FePat *) heads = {0};
  bool other_sort = false;
  for (int i = 0; i < m->nrows; i++) {
    FePat *q = m->rows[i].cols[j];
    Sort s = sort_of(q);
    if (s == S_NONE) continue;
    if (s != s0) {
      other_sort = true;
      continue;
    }
    bool seen = false;
    for (int h = 0; h < heads.len && !seen; h++)
      seen = t->lits ? fe_ds_lit_equal(&heads.data[h]->lit, &q->lit)
                     : heads.data[h]->id.ref == q->id.ref;
    if (!seen) LZ_PUSH(heads, q);
  }
  t->nalts = heads.len;
  t->alts = LZ_NEW_ARRAY(TAlt, heads.len);
  bool same_type = true;
  FeDecl *decl0 = t->lits ? NULL : fe_ds_con_decl(p0->id.ref);
  for (int h = 0; h < heads.len; h++) {
    FePat *hp = heads.data[h];
    TAlt *a = &t->alts[h];
    a->span = hp->span;
    int n = 0;
    if (!t->lits) {
      a->con = hp->id.ref;
      n = hp->args.len;
      if (fe_ds_con_decl(a->con) != decl0) same_type = false;
    } else {
      a->lit = hp->lit;
    }
    a->nvars = n;
    a->vars = LZ_NEW_ARRAY(FeName *, n > 0 ? n : 1);
    for (int k = 0; k < n; k++)
      a->vars[k] = field_var(m, j, a->con, k, hp->span);
    Mat sub = mat_new(m->ncols - 1 + n, occ_expand(m, j, n, a->vars), m->nrows);
    for (int i = 0; i < m->nrows; i++) {
      Row *r = &m->rows[i];
      FePat *q = r->cols[j];
      if (!q) {
        push_expanded(&sub, m, r, j, n, NULL);
      } else if (sort_of(q) == s0 &&
                 (t->lits ? fe_ds_lit_equal(&q->lit, &hp->lit) : q->id.ref == a->con)) {
        push_expanded(&sub, m, r, j, n, (!t->lits && q->args.len == n) ? q->args.data : NULL);
      }
    }
    a->sub = compile(mc, &sub, fail);
  }
  int ncons = t->lits ? -1 : fe_ds_type_con_count(p0->id.ref);
  bool complete = !other_sort && same_type && ncons == heads.len;
  if (!complete) {
    Mat def = mat_new(m->ncols, m->occ, m->nrows);
    for (int i = 0; i < m->nrows; i++) {
      Row *r = &m->rows[i];
      if (sort_of(r->cols[j]) != s0) def.rows[def.nrows++] = *r;
    }
    t->deflt = compile(mc, &def, fail);
  }
  return t;
}

static Tree *compile_eq(MC *mc, Mat *m, int j, Tree *fail) {
  FePat *p0 = m->rows[0].cols[j];
  Tree *t = tnew(mc, T_EQ, p0->span);
  t->occ = m->occ[j];
  t->lit = p0;
  Mat yes = mat_new(m->ncols, m->occ, m->nrows), no = mat_new(m->ncols, m->occ, m->nrows);
  for (int i = 0; i < m->nrows; i++) {
    Row *r = &m->rows[i];
    FePat *q = r->cols[j];
    bool same = q && sort_of(q) == S_EQLIT && fe_ds_lit_equal(&q->lit, &p0->lit);
    if (same) {
      Row nr = {cols_copy(m, r), r->binds, r->body};
      nr.cols[j] = NULL;
      yes.rows[yes.nrows++] = nr;
    } else {
      /* other literals stay in the yes branch too: (==) is user code, and GHC tests
       * each run of equal literals in turn, so x == 1 and x == 2 may both hold */
      yes.rows[yes.nrows++] = *r;
      no.rows[no.nrows++] = *r;
    }
  }
  t->yes = compile(mc, &yes, fail);
  t->no = compile(mc, &no, fail);
  return t;
}

static Tree *compile_force(MC *mc, Mat *m, int j, Tree *fail) {
  FePat *p0 = m->rows[0].cols[j];
  Tree *t = tnew(mc, T_FORCE, p0->span);
  t->occ = m->occ[j];
  Mat sub = mat_new(m->ncols, m->occ, m->nrows);
  for (int i = 0; i < m->nrows; i++) {
    Row *r = &m->rows[i];
    FePat *q = r->cols[j];
    if (q && sort_of(q) == S_FORCE) {
      Row nr = {cols_copy(m, r), r->binds, r->body};
      nr.cols[j] = q->sub;
      sub.rows[sub.nrows++] = nr;
    } else {
      sub.rows[sub.nrows++] = *r;
    }
  }
  t->sub = compile(mc, &sub, fail);
  return t;
}

static Tree *compile(MC *mc, Mat *m, Tree *fail) {
  if (m->nrows == 0 || mc->over) return fail;
  if (!fe_ds_enter(mc->d, mc->mp->ctx_span)) return fail;
  Tree *result;
  for (int i = 0; i < m->nrows; i++) {
    Row *r = &m->rows[i];
    for (int c = 0; c < m->ncols; c++)
      if (r->cols[c]) r->cols[c] = clean(r, r->cols[c], m->occ[c], 0);
  }
  Row *r0 = &m->rows[0];
  int j = 0;
  while (j < m->ncols && !r0->cols[j])
    j++;
  if (j == m->ncols) {
    Tree *t = tnew(mc, T_LEAF, mc->mp->bodies[r0->body].span);
    t->body = r0->body;
    t->binds = r0->binds;
    if (mc->mp->bodies[r0->body].can_fail) {
      Mat rest = mat_new(m->ncols, m->occ, m->nrows);
      for (int i = 1; i < m->nrows; i++)
        rest.rows[rest.nrows++] = m->rows[i];
      t->fall = compile(mc, &rest, fail);
    }
    result = t;
  } else {
    Sort s0 = sort_of(r0->cols[j]);
    int k = m->nrows;
    if (mc->wadler && s0 != S_FORCE) {
      /* the block of rows that all test column j the same way; the rest is a join */
      for (k = 1; k < m->nrows && sort_of(m->rows[k].cols[j]) == s0; k++) {
      }
    }
    if (k < m->nrows) {
      Tree *t = tnew(mc, T_JOIN, mc->mp->ctx_span);
      t->join = fe_ds_fresh("fail", mc->mp->ctx_span);
      Mat rest = mat_new(m->ncols, m->occ, m->nrows - k);
      for (int i = k; i < m->nrows; i++)
        rest.rows[rest.nrows++] = m->rows[i];
      t->rhs = compile(mc, &rest, fail);
      Tree *go = tnew(mc, T_GOTO, mc->mp->ctx_span);
      go->join = t->join;
      Mat block = *m;
      block.nrows = k;
      t->in_ = compile(mc, &block, go);
      result = t;
    } else if (s0 == S_CON || s0 == S_PRIMLIT) {
      result = compile_switch(mc, m, j, fail);
    } else if (s0 == S_EQLIT) {
      result = compile_eq(mc, m, j, fail);
    } else {
      result = compile_force(mc, m, j, fail);
    }
  }
  fe_ds_leave(mc->d);
  return result;
}

/* ---- phase 2: emission ------------------------------------------------------------------------
 */

static void count_leaves(MC *mc, Tree *t, int depth) {
  while (t && depth < 100000) {
    switch (t->kind) {
    case T_LEAF: {
      BodyInfo *bi = &mc->info[t->body];
      if (bi->nleaves++ == 0) bi->first = t;
      t = t->fall;
      break;
    }
    case T_SWITCH:
      for (int i = 0; i < t->nalts; i++)
        count_leaves(mc, t->alts[i].sub, depth + 1);
      t = t->deflt;
      break;
    case T_EQ:
      count_leaves(mc, t->yes, depth + 1);
      t = t->no;
      break;
    case T_FORCE: t = t->sub; break;
    case T_JOIN:
      count_leaves(mc, t->rhs, depth + 1);
      t = t->in_;
      break;
    default: return;
    }
    depth++;
  }
}

static KExpr *emit(MC *mc, Tree *t, Fail *outer);

static KExpr *mk_case(KExpr *scrut, LzSpan at) {
  KExpr *c = k_new(K_CASE, at);
  c->body = scrut;
  return c;
}

static void add_alt(KExpr *c, KAltKind kind, FeName *con, KExpr *rhs, LzSpan at) {
  KAlt a = {0};
  a.kind = kind;
  a.con = con;
  a.rhs = rhs;
  a.span = at;
  LZ_PUSH(c->alts, a);
}

/* The expression compared with (==) for an overloaded literal pattern. */
static KExpr *eq_lit_expr(FePat *p) {
  FeLit l = p->lit;
  bool neg = l.negative && (l.kind == L_INT || l.kind == L_FRAC);
  if (neg) l.negative = false;
  KExpr *e = fe_ds_lit(l, p->span);
  if (neg) e = k_app(fe_ds_wired(DS_W_NEGATE, p->span), e);
  return e;
}

/* The jump to `fall`: the outer continuation itself, or a new one. */
static Fail *fall_fail(MC *mc, Tree *fall, Fail *outer) {
  if (!fall) return NULL;
  if (fall->kind == T_FAIL) return outer;
  return fe_ds_fail_new(emit(mc, fall, outer));
}

static KExpr *emit_leaf(MC *mc, Tree *t, Fail *outer) {
  Ds *d = mc->d;
  MBody *b = &mc->mp->bodies[t->body];
  BodyInfo *bi = &mc->info[t->body];
  if (bi->fn) {
    KExpr *call = k_var(bi->fn, t->span);
    for (int i = 0; i < bi->params.len; i++)
      call = k_app(call,
                   fe_ds_bound_value(d, t->binds, bi->params.data[i], mc->mp->ctx_span, t->span));
    if (b->can_fail) {
      KExpr *arg = t->fall ? emit(mc, t->fall, outer) : fe_ds_fail_use(outer, t->span);
      call = k_app(call, arg);
    }
    return call;
  }
  Fail *f = fall_fail(mc, t->fall, outer);
  if (b->raw) {
    KExpr *e = b->build(d, b->env, t->binds, f);
    return f && f != outer ? fe_ds_fail_wrap(f, e) : e;
  }
  for (MBind *x = t->binds; x; x = x->next)
    if (!x->lazy) fe_ds_var(x->var)->alias = x->occ;
  KExpr *e = b->build(d, b->env, t->binds, f);
  if (f && f != outer) e = fe_ds_fail_wrap(f, e);
  /* lazy pattern variables: let v = case occ of p -> v */
  KExpr *let = NULL;
  for (MBind *x = t->binds; x; x = x->next) {
    if (!x->lazy) continue;
    if (!let) let = k_new(K_LET, t->span);
    KBind *kb =
        k_bind(x->var, fe_ds_selector(d, x->occ, x->lazy, x->var, mc->mp->ctx_span), x->lazy->span);
    kb->restricted = true;
    LZ_PUSH(let->binds, kb);
  }
  if (let) {
    let->body = e;
    e = let;
  }
  return e;
}

static KExpr *emit(MC *mc, Tree *t, Fail *outer) {
  if (!fe_ds_enter(mc->d, t->span)) return fe_ds_fail_use(outer, t->span);
  KExpr *e = NULL;
  switch (t->kind) {
  case T_FAIL: e = fe_ds_fail_use(outer, mc->mp->ctx_span); break;
  case T_GOTO: e = k_var(t->join, t->span); break;
  case T_JOIN: {
    e = k_new(K_LET, t->span);
    KBind *b = k_bind(t->join, emit(mc, t->rhs, outer), t->span);
    b->restricted = true;
    LZ_PUSH(e->binds, b);
    e->body = emit(mc, t->in_, outer);
    break;
  }
  case T_LEAF: e = emit_leaf(mc, t, outer); break;
  case T_FORCE:
    e = mk_case(k_var(t->occ, t->span), t->span);
    add_alt(e, KA_DEFAULT, NULL, emit(mc, t->sub, outer), t->span);
    break;
  case T_EQ: {
    KExpr *test =
        k_app(k_app(fe_ds_wired(DS_W_EQ, t->span), k_var(t->occ, t->span)), eq_lit_expr(t->lit));
    e = fe_ds_if(test, emit(mc, t->yes, outer), emit(mc, t->no, outer), t->span);
    break;
  }
  case T_SWITCH:
    e = mk_case(k_var(t->occ, t->span), t->span);
    for (int i = 0; i < t->nalts; i++) {
      TAlt *a = &t->alts[i];
      KAlt ka = {0};
      ka.kind = t->lits ? KA_LIT : KA_CON;
      ka.con = a->con;
      ka.lit = a->lit;
      for (int k = 0; k < a->nvars; k++)
        LZ_PUSH(ka.vars, a->vars[k]);
      ka.rhs = emit(mc, a->sub, outer);
      ka.span = a->span;
      LZ_PUSH(e->alts, ka);
    }
    if (t->deflt) add_alt(e, KA_DEFAULT, NULL, emit(mc, t->deflt, outer), t->span);
    break;
  }
  fe_ds_leave(mc->d);
  return e;
}

static bool mentions(const KExpr *e, const FeName *v, int depth) {
  for (; e && depth < 100000; depth++) {
    switch (e->kind) {
    case K_VAR: return e->var == v;
    case K_LIT: return false;
    case K_APP:
      if (mentions(e->fn, v, depth + 1)) return true;
      e = e->arg;
      break;
    case K_LAM:
    case K_ANNOT:
    case K_SCC: e = e->body; break;
    case K_LET:
      for (int i = 0; i < e->binds.len; i++)
        if (mentions(e->binds.data[i]->rhs, v, depth + 1)) return true;
      e = e->body;
      break;
    case K_CASE:
      for (int i = 0; i < e->alts.len; i++)
        if (mentions(e->alts.data[i].rhs, v, depth + 1)) return true;
      e = e->body;
      break;
    }
  }
  return false;
}

/* Right-hand sides reached from several leaves become local functions. */
static KExpr *share_bodies(MC *mc, KExpr *tree) {
  KExpr *let = NULL;
  for (int i = 0; i < mc->mp->nrows; i++) {
    BodyInfo *bi = &mc->info[i];
    MBody *b = &mc->mp->bodies[i];
    if (bi->nleaves < 2 || b->raw) continue;
    bi->fn = fe_ds_fresh("rhs", b->span);
    /* parameters: the clause's variables, in binding order */
    int n = 0;
    for (MBind *x = bi->first->binds; x; x = x->next)
      n++;
    MBind **v = LZ_NEW_ARRAY(MBind *, n > 0 ? n : 1);
    n = 0;
    for (MBind *x = bi->first->binds; x; x = x->next)
      v[n++] = x;
    for (int k = n - 1; k >= 0; k--) {
      bool dup = false;
      for (int q = 0; q < bi->params.len && !dup; q++)
        dup = bi->params.data[q] == v[k]->var;
      if (!dup) LZ_PUSH(bi->params, v[k]->var);
    }
  }
  /* build after all functions are known (bodies never call each other, but keep
   * the order of the source) */
  for (int i = 0; i < mc->mp->nrows; i++) {
    BodyInfo *bi = &mc->info[i];
    if (!bi->fn) continue;
    MBody *b = &mc->mp->bodies[i];
    FeName *failv = b->can_fail ? fe_ds_fresh("fail", b->span) : NULL;
    Fail *f = failv ? fe_ds_fail_new(k_var(failv, b->span)) : NULL;
    KExpr *body = b->build(mc->d, b->env, NULL, f);
    if (f) body = fe_ds_fail_wrap(f, body);
    /* parameters the right-hand side does not use are not passed */
    int keep = 0;
    for (int k = 0; k < bi->params.len; k++)
      if (mentions(body, bi->params.data[k], 0)) bi->params.data[keep++] = bi->params.data[k];
    bi->params.len = keep;
    if (failv) body = k_lam(failv, body, b->span);
    for (int k = bi->params.len - 1; k >= 0; k--)
      body = k_lam(bi->params.data[k], body, b->span);
    if (!let) let = k_new(K_LET, tree->span);
    KBind *kb = k_bind(bi->fn, body, b->span);
    kb->restricted = true;
    LZ_PUSH(let->binds, kb);
  }
  if (!let) return tree;
  let->body = tree;
  return let;
}

/* Clauses that no path reaches (redundant ones) are still translated, against the
 * same occurrences, into an unused binding, so that their patterns and right-hand
 * sides are type checked as GHC does. Returns a K_LET without body, or NULL. */
static KExpr *dead_rows(MC *mc, MProblem *mp) {
  KExpr *let = NULL;
  for (int i = 0; i < mp->nrows; i++) {
    if (mc->info[i].nleaves > 0 || mp->bodies[i].raw) continue;
    MProblem one = *mp;
    one.scrut = NULL;
    one.nrows = 1;
    one.pats = &mp->pats[i];
    one.bodies = &mp->bodies[i];
    one.no_check = true;
    Fail *f = fe_ds_fail_new(fe_ds_pat_error("redundant clause", mp->bodies[i].span));
    KExpr *e = fe_ds_fail_wrap(f, fe_ds_match(mc->d, &one, f));
    if (!let) let = k_new(K_LET, mp->ctx_span);
    KBind *b = k_bind(fe_ds_fresh("unused", mp->bodies[i].span), e, mp->bodies[i].span);
    b->restricted = true;
    LZ_PUSH(let->binds, b);
  }
  return let;
}

KExpr *fe_ds_match(Ds *d, MProblem *mp, Fail *fail) {
  if (!mp->no_check)
    for (int r = 0; r < mp->nrows; r++)
      for (int c = 0; c < mp->ncols; c++)
        fe_ds_check_pat(d, mp->pats[r][c]);
  MC mc = {0};
  mc.d = d;
  mc.mp = mp;
  mc.fail_node.kind = T_FAIL;
  mc.fail_node.span = mp->ctx_span;
  Tree *root = NULL;
  for (int attempt = 0; attempt < 2; attempt++) {
    mc.wadler = attempt == 1;
    mc.budget = attempt == 0 ? MATCH_BUDGET : 1 << 30;
    mc.over = false;
    Mat m = mat_new(mp->ncols, mp->occ, mp->nrows);
    for (int i = 0; i < mp->nrows; i++) {
      Row r = {LZ_NEW_ARRAY(FePat *, mp->ncols > 0 ? mp->ncols : 1), NULL, i};
      for (int c = 0; c < mp->ncols; c++)
        r.cols[c] = mp->pats[i][c];
      m.rows[m.nrows++] = r;
    }
    root = compile(&mc, &m, &mc.fail_node);
    if (!mc.over) break;
  }
  mc.info = LZ_NEW_ARRAY(BodyInfo, mp->nrows > 0 ? mp->nrows : 1);
  count_leaves(&mc, root, 0);
  /* emission: the shared functions first, so the leaves can call them */
  KExpr *shared_probe = k_new(K_LET, mp->ctx_span); /* placeholder body, replaced below */
  KExpr *wrapped = share_bodies(&mc, shared_probe);
  KExpr *dead = dead_rows(&mc, mp);
  KExpr *tree = emit(&mc, root, fail);
  FeName *occ0 = mp->ncols > 0 ? mp->occ[0] : NULL;
  if (mp->scrut && occ0 && !dead && tree->kind == K_CASE && root->occ == occ0 &&
      ((root->kind == T_SWITCH &&
        !(root->nalts == 1 && !root->lits && fe_ds_is_newtype_con(root->alts[0].con))) ||
       root->kind == T_FORCE)) {
    /* case e of occ0 { alts }: the scrutinee goes straight into the case */
    tree->body = mp->scrut;
    tree->var = occ0;
  } else {
    if (dead) {
      dead->body = tree;
      tree = dead;
    }
    if (mp->scrut && occ0) {
      KExpr *let = k_new(K_LET, mp->scrut->span);
      KBind *b = k_bind(occ0, mp->scrut, mp->scrut->span);
      b->restricted = true;
      LZ_PUSH(let->binds, b);
      let->body = tree;
      tree = let;
    }
  }
  if (wrapped == shared_probe) return tree;
  wrapped->body = tree;
  return wrapped;
}
