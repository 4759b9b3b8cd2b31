/* stg_analyse.c — the analyses that fill in what STG derives from the code: let-no-escape
 * bindings, call kinds, free-variable lists and use counts (stg_analyse_program).
 *
 * Let-no-escape. A let-bound function (or non-recursive thunk) is a join point when every
 * occurrence is a saturated call in tail position of the let's own context: the let's
 * body, case alternatives and LNE right-hand sides reached from it, but never across a
 * closure, a case scrutinee or an scc, each of which starts a new *context*. Whether an
 * occurrence inside a right-hand side crosses a closure depends on whether that
 * right-hand side is itself an LNE, so the analysis is a fixpoint: every candidate starts
 * as LNE and a walk disqualifies violating occurrences until nothing changes (flags only
 * go from LNE to not-LNE, so it terminates; in practice after two or three walks). A
 * recursive nullary binding is never LNE (it is a `<<loop>>` that must be detected).
 * Afterwards a let rec that mixes closures and LNEs is split in two (closures outside:
 * they cannot mention the LNEs), tail occurrences become STG_CALL_JUMPs, and calls of
 * let-bound or top-level functions become STG_CALL_KNOWN.
 *
 * Free variables. Every binder gets a *level*: closures and LNE right-hand sides open a
 * new one. A variable is free in a closure when it is local, not an LNE, and bound at a
 * lower level than the closure. One walk collects, per closure, the free variables in
 * order of first occurrence (a nested closure contributes its own free variables where
 * it is allocated); an LNE's free variables, the ones live at a jump to it, also include
 * those of the LNEs it jumps to, so a recursive LNE group is walked until its lists stop
 * growing.
 */
#include <string.h>

#include "stg_priv.h"

/* ---- let-no-escape ------------------------------------------------------------------------ */

enum { NOT_CAND = 0, CAND = 1, DISQ = 2 };

typedef struct Lne {
  char *state; /* per var id */
  int *ctx;    /* per var id: the context of its let */
  int next_ctx;
  bool changed;
  int depth;
} Lne;

static void disq(Lne *L, const StgVar *v) {
  if (v && L->state[v->id] == CAND) {
    L->state[v->id] = DISQ;
    L->changed = true;
  }
}

static void disq_args(Lne *L, const StgAtom *args, int n) {
  for (int i = 0; i < n; i++)
    if (args[i].kind == SA_VAR) disq(L, args[i].var);
}

static int cand_arity(const StgVar *v) {
  return v->rhs && v->rhs->kind == STG_FUN ? v->rhs->arity : 0;
}

static void occ(Lne *L, const StgVar *v, int nargs, int ctx) {
  if (v && L->state[v->id] == CAND && (L->ctx[v->id] != ctx || nargs != cand_arity(v))) disq(L, v);
}

static void lne_expr(Lne *L, StgExpr *e, int ctx);

static void lne_closure(Lne *L, StgRhs *r) {
  if (r->kind == STG_CON)
    disq_args(L, r->args, r->nargs);
  else
    lne_expr(L, r->body, L->next_ctx++);
}

static void lne_expr(Lne *L, StgExpr *e, int ctx) {
  if (++L->depth > STG_MAX_DEPTH) { /* the linter reports it; be safe here */
    L->depth--;
    return;
  }
  while (e) {
    switch (e->kind) {
    case SE_ATOM:
      if (e->atom.kind == SA_VAR) occ(L, e->atom.var, 0, ctx);
      e = NULL;
      break;
    case SE_APP:
      occ(L, e->fn, e->nargs, ctx);
      disq_args(L, e->args, e->nargs);
      e = NULL;
      break;
    case SE_CON:
    case SE_PRIMOP:
      disq_args(L, e->args, e->nargs);
      e = NULL;
      break;
    case SE_CASE:
      lne_expr(L, e->scrut, L->next_ctx++);
      for (int i = 0; i + 1 < e->nalts; i++)
        lne_expr(L, e->alts[i].rhs, ctx);
      e = e->nalts ? e->alts[e->nalts - 1].rhs : NULL;
      break;
    case SE_SCC:
      lne_expr(L, e->body, L->next_ctx++);
      e = NULL;
      break;
    case SE_LET:
      for (int i = 0; i < e->nbinds; i++)
        L->ctx[e->binds[i].var->id] = ctx;
      for (int i = 0; i < e->nbinds; i++) {
        StgVar *v = e->binds[i].var;
        if (L->state[v->id] == CAND)
          lne_expr(L, v->rhs->body, ctx);
        else
          lne_closure(L, e->binds[i].rhs);
      }
      e = e->body;
      break;
    }
  }
  L->depth--;
}

/* Reset: every let binding that could be an LNE is a candidate; jumps become plain
 * occurrences again (so the analysis can be rerun after a transformation). */
static void lne_reset(Lne *L, StgExpr *e, int depth);

static void lne_reset_rhs(Lne *L, StgRhs *r, int depth) {
  if (r->kind != STG_CON) lne_reset(L, r->body, depth + 1);
}

static void lne_reset(Lne *L, StgExpr *e, int depth) {
  for (; e && depth < STG_MAX_DEPTH; depth++) {
    switch (e->kind) {
    case SE_APP:
      if (e->nargs == 0) { /* a nullary jump: an occurrence again */
        e->kind = SE_ATOM;
        e->atom = stg_atom_var(e->fn);
      }
      e->call = STG_CALL_UNKNOWN;
      return;
    case SE_ATOM:
    case SE_CON:
    case SE_PRIMOP: return;
    case SE_CASE:
      lne_reset(L, e->scrut, depth + 1);
      for (int i = 0; i + 1 < e->nalts; i++)
        lne_reset(L, e->alts[i].rhs, depth + 1);
      e = e->nalts ? e->alts[e->nalts - 1].rhs : NULL;
      break;
    case SE_SCC: e = e->body; break;
    case SE_LET:
      e->lne = false;
      for (int i = 0; i < e->nbinds; i++) {
        StgVar *v = e->binds[i].var;
        StgRhs *r = e->binds[i].rhs;
        v->lne = r->lne = false;
        v->rhs = r;
        bool cand = r->kind == STG_FUN || (r->kind == STG_THUNK && !e->rec);
        L->state[v->id] = cand ? CAND : NOT_CAND;
        lne_reset_rhs(L, r, depth);
      }
      e = e->body;
      break;
    }
  }
}

/* Apply the result: mark binders and lets, split mixed groups, set call kinds. */
static void lne_apply(Lne *L, StgExpr *e, int depth);

static void lne_apply_rhs(Lne *L, StgRhs *r, int depth) {
  if (r->kind != STG_CON) lne_apply(L, r->body, depth + 1);
}

static void lne_apply(Lne *L, StgExpr *e, int depth) {
  for (; e && depth < STG_MAX_DEPTH; depth++) {
    switch (e->kind) {
    case SE_ATOM:
      if (e->atom.kind == SA_VAR && e->atom.var && e->atom.var->lne) { /* nullary jump */
        e->kind = SE_APP;
        e->fn = e->atom.var;
        e->args = NULL;
        e->nargs = 0;
        e->call = STG_CALL_JUMP;
      }
      return;
    case SE_APP:
      e->call = e->fn->lne                                  ? STG_CALL_JUMP
                : e->fn->rhs && e->fn->rhs->kind == STG_FUN ? STG_CALL_KNOWN
                                                            : STG_CALL_UNKNOWN;
      return;
    case SE_CON:
    case SE_PRIMOP: return;
    case SE_CASE:
      lne_apply(L, e->scrut, depth + 1);
      for (int i = 0; i + 1 < e->nalts; i++)
        lne_apply(L, e->alts[i].rhs, depth + 1);
      e = e->nalts ? e->alts[e->nalts - 1].rhs : NULL;
      break;
    case SE_SCC: e = e->body; break;
    case SE_LET: {
      int nlne = 0, total = e->nbinds;
      for (int i = 0; i < e->nbinds; i++) {
        StgBind *b = &e->binds[i];
        bool lne = L->state[b->var->id] == CAND;
        b->var->lne = b->rhs->lne = lne;
        nlne += lne;
      }
      if (nlne > 0 && nlne < e->nbinds) { /* let rec {closures} in let rec {LNEs} in body */
        StgExpr *inner = stg_expr_new(SE_LET, e->rep, e->span);
        inner->rec = true;
        inner->binds = LZ_NEW_ARRAY(StgBind, nlne);
        StgBind *outer = LZ_NEW_ARRAY(StgBind, e->nbinds - nlne);
        int no = 0;
        for (int i = 0; i < e->nbinds; i++) {
          if (e->binds[i].var->lne)
            inner->binds[inner->nbinds++] = e->binds[i];
          else
            outer[no++] = e->binds[i];
        }
        inner->body = e->body;
        inner->lne = true;
        e->binds = outer;
        e->nbinds = no;
        e->body = inner;
      }
      e->lne = nlne == total;
      for (int i = 0; i < e->nbinds; i++)
        lne_apply_rhs(L, e->binds[i].rhs, depth);
      e = e->body;
      break;
    }
    }
  }
}

/* ---- free variables ----------------------------------------------------------------------- */

typedef struct Coll {
  int id, level;
  const StgVar *self; /* the closure's own binder: the node, not a free variable */
  LZ_VEC(StgVar *) vars;
} Coll;

typedef struct Fv {
  int *level;  /* per var id */
  StgMap seen; /* (collector id, var id) */
  int next_coll;
  int depth;
} Fv;

static void note(Fv *F, Coll *c, StgVar *v) {
  if (!v || v->global || v->lne || v == c->self || F->level[v->id] >= c->level) return;
  if (stg_set_add(&F->seen, ((uint64_t)(uint32_t)c->id << 32) | (uint32_t)(v->id + 1)))
    LZ_PUSH(c->vars, v);
}

static void note_atoms(Fv *F, Coll *c, const StgAtom *args, int n) {
  for (int i = 0; i < n; i++)
    if (args[i].kind == SA_VAR) note(F, c, args[i].var);
}

static void fv_expr(Fv *F, StgExpr *e, Coll *c, int level);

/* The free variables of closure (or LNE right-hand side) r, whose binders are at `level`. */
static void fv_rhs(Fv *F, StgRhs *r, int level) {
  Coll c = {F->next_coll++, level, r->var, {0}};
  for (int i = 0; i < r->arity; i++)
    F->level[r->params[i]->id] = level;
  if (r->kind == STG_CON)
    note_atoms(F, &c, r->args, r->nargs);
  else
    fv_expr(F, r->body, &c, level);
  r->fvs = c.vars.data;
  r->nfvs = c.vars.len;
}

static void fv_let(Fv *F, StgExpr *e, Coll *c, int level) {
  for (int i = 0; i < e->nbinds; i++)
    F->level[e->binds[i].var->id] = level;
  if (e->lne) {
    for (int i = 0; i < e->nbinds; i++)
      e->binds[i].rhs->nfvs = 0;
    /* a recursive group: until the lists (which only grow) are stable */
    for (int round = 0; round <= e->nbinds + 1; round++) {
      bool grew = false;
      for (int i = 0; i < e->nbinds; i++) {
        int before = e->binds[i].rhs->nfvs;
        fv_rhs(F, e->binds[i].rhs, level + 1);
        grew |= e->binds[i].rhs->nfvs != before;
      }
      if (!e->rec || !grew) break;
    }
  } else {
    for (int i = 0; i < e->nbinds; i++)
      fv_rhs(F, e->binds[i].rhs, level + 1);
  }
  for (int i = 0; i < e->nbinds; i++) {
    StgRhs *r = e->binds[i].rhs;
    for (int j = 0; j < r->nfvs; j++)
      note(F, c, r->fvs[j]);
  }
}

static void fv_expr(Fv *F, StgExpr *e, Coll *c, int level) {
  if (++F->depth > STG_MAX_DEPTH) {
    F->depth--;
    return;
  }
  while (e) {
    switch (e->kind) {
    case SE_ATOM:
      if (e->atom.kind == SA_VAR) note(F, c, e->atom.var);
      e = NULL;
      break;
    case SE_APP:
      if (e->fn && e->fn->lne && e->fn->rhs)
        for (int j = 0; j < e->fn->rhs->nfvs; j++)
          note(F, c, e->fn->rhs->fvs[j]);
      else
        note(F, c, e->fn);
      note_atoms(F, c, e->args, e->nargs);
      e = NULL;
      break;
    case SE_CON:
    case SE_PRIMOP:
      note_atoms(F, c, e->args, e->nargs);
      e = NULL;
      break;
    case SE_CASE:
      fv_expr(F, e->scrut, c, level);
      F->level[e->binder->id] = level;
      for (int i = 0; i < e->nalts; i++) {
        StgAlt *a = &e->alts[i];
        for (int j = 0; a->kind == STG_ALT_CON && a->con && j < a->con->arity; j++)
          F->level[a->vars[j]->id] = level;
        if (i + 1 < e->nalts) fv_expr(F, a->rhs, c, level);
      }
      e = e->nalts ? e->alts[e->nalts - 1].rhs : NULL;
      break;
    case SE_SCC: e = e->body; break;
    case SE_LET:
      fv_let(F, e, c, level);
      e = e->body;
      break;
    }
  }
  F->depth--;
}

/* ---- use counts --------------------------------------------------------------------------- */

static void count_atoms(const StgAtom *args, int n) {
  for (int i = 0; i < n; i++)
    if (args[i].kind == SA_VAR && args[i].var) args[i].var->uses++;
}

static void uses_expr(StgExpr *e, int depth);

static void uses_rhs(StgRhs *r, int depth) {
  if (r->kind == STG_CON)
    count_atoms(r->args, r->nargs);
  else
    uses_expr(r->body, depth + 1);
}

static void uses_expr(StgExpr *e, int depth) {
  for (; e && depth < STG_MAX_DEPTH; depth++) {
    switch (e->kind) {
    case SE_ATOM: count_atoms(&e->atom, 1); return;
    case SE_APP:
      if (e->fn) e->fn->uses++;
      count_atoms(e->args, e->nargs);
      return;
    case SE_CON:
    case SE_PRIMOP: count_atoms(e->args, e->nargs); return;
    case SE_CASE:
      uses_expr(e->scrut, depth + 1);
      for (int i = 0; i + 1 < e->nalts; i++)
        uses_expr(e->alts[i].rhs, depth + 1);
      e = e->nalts ? e->alts[e->nalts - 1].rhs : NULL;
      break;
    case SE_SCC: e = e->body; break;
    case SE_LET:
      for (int i = 0; i < e->nbinds; i++)
        uses_rhs(e->binds[i].rhs, depth);
      e = e->body;
      break;
    }
  }
}

/* ---- the whole program ---------------------------------------------------------------------- */

static void clear_uses(StgExpr *e, int depth);

static void clear_uses_rhs(StgRhs *r, int depth) {
  for (int i = 0; i < r->arity; i++)
    r->params[i]->uses = 0;
  if (r->kind != STG_CON) clear_uses(r->body, depth + 1);
}

static void clear_uses(StgExpr *e, int depth) {
  for (; e && depth < STG_MAX_DEPTH; depth++) {
    switch (e->kind) {
    case SE_ATOM:
    case SE_APP:
    case SE_CON:
    case SE_PRIMOP: return;
    case SE_CASE:
      clear_uses(e->scrut, depth + 1);
      e->binder->uses = 0;
      for (int i = 0; i < e->nalts; i++) {
        StgAlt *a = &e->alts[i];
        for (int j = 0; a->kind == STG_ALT_CON && a->con && j < a->con->arity; j++)
          a->vars[j]->uses = 0;
        if (i + 1 < e->nalts) clear_uses(a->rhs, depth + 1);
      }
      e = e->nalts ? e->alts[e->nalts - 1].rhs : NULL;
      break;
    case SE_SCC: e = e->body; break;
    case SE_LET:
      for (int i = 0; i < e->nbinds; i++) {
        e->binds[i].var->uses = 0;
        clear_uses_rhs(e->binds[i].rhs, depth);
      }
      e = e->body;
      break;
    }
  }
}

void stg_analyse_program(StgProgram *p) {
  int n = p->nvars + 1;
  Lne L = {0};
  L.state = LZ_NEW_ARRAY(char, n);
  L.ctx = LZ_NEW_ARRAY(int, n);
  for (int i = 0; i < p->binds.len; i++) {
    StgBind *b = &p->binds.data[i];
    b->var->rhs = b->rhs;
    b->var->lne = b->rhs->lne = false;
    lne_reset_rhs(&L, b->rhs, 0);
  }
  do {
    L.changed = false;
    for (int i = 0; i < p->binds.len; i++)
      lne_closure(&L, p->binds.data[i].rhs);
  } while (L.changed);
  for (int i = 0; i < p->binds.len; i++)
    lne_apply_rhs(&L, p->binds.data[i].rhs, 0);

  Fv F = {0};
  F.level = LZ_NEW_ARRAY(int, n);
  for (int i = 0; i < p->binds.len; i++) {
    F.seen = (StgMap){0};
    fv_rhs(&F, p->binds.data[i].rhs, 1);
  }

  for (int i = 0; i < p->binds.len; i++) {
    p->binds.data[i].var->uses = 0;
    clear_uses_rhs(p->binds.data[i].rhs, 0);
  }
  for (int i = 0; i < p->binds.len; i++)
    uses_rhs(p->binds.data[i].rhs, 0);
}
