/* tc_zonk.c — the last steps of elaboration: specialising literals, zonking Core, and
 * ordering the top-level bindings.
 *
 * Zonking walks the elaborated Core and replaces every type by its solution (metas
 * followed, unsolved ones defaulted to () or an empty Any type); the same walk can
 * rename type variables and variables, which is how the members of a mutually
 * recursive group each get their own copy of the group's type and dictionary
 * binders. The top level is finally cut into strongly connected components of the
 * "mentions" relation between global binders, in dependency order, which is what
 * CoreProgram.groups requires (instances, selectors, cached dictionaries and user
 * bindings are interleaved by their real dependencies).
 */
#include <stdlib.h>
#include <string.h>

#include "tc_internal.h"

static CoreType *zt(CoreType *t, TcSubst *s, bool final) {
  if (!t) return t;
  t = fe_tc_zonk(t, final);
  if (s && s->ntv) t = fe_tc_subst(t, s->ntv, s->tv_from, s->tv_to);
  return t;
}

static void zvar(CoreVar *v, TcSubst *s, bool final) {
  if (v) v->type = zt(v->type, s, final);
}

void fe_tc_zonk_expr(CoreExpr *e, TcSubst *s, bool final) {
  while (e) {
    switch (e->kind) {
    case CE_VAR:
      if (s && e->var)
        for (int i = 0; i < s->nvar; i++)
          if (s->var_from[i] == e->var) e->var = s->var_to[i];
      return;
    case CE_LIT: return;
    case CE_APP:
      fe_tc_zonk_expr(e->arg, s, final);
      e = e->fn;
      break;
    case CE_TYAPP:
      e->type = zt(e->type, s, final);
      e = e->fn;
      break;
    case CE_LAM:
      zvar(e->var, s, final);
      e = e->body;
      break;
    case CE_TYLAM: e = e->body; break;
    case CE_LET:
      for (int i = 0; i < e->nbinds; i++) {
        zvar(e->binds[i].var, s, final);
        fe_tc_zonk_expr(e->binds[i].rhs, s, final);
      }
      e = e->body;
      break;
    case CE_CASE:
      e->type = zt(e->type, s, final);
      zvar(e->var, s, final);
      for (int i = 0; i < e->nalts; i++) {
        CoreAlt *a = &e->alts[i];
        if (a->kind == ALT_CON)
          for (int j = 0; j < a->con->arity; j++)
            zvar(a->vars[j], s, final);
        fe_tc_zonk_expr(a->rhs, s, final);
      }
      e = e->body;
      break;
    case CE_CON:
      for (int i = 0; i < e->ntyargs; i++)
        e->tyargs[i] = zt(e->tyargs[i], s, final);
      for (int i = 0; i < e->nargs; i++)
        fe_tc_zonk_expr(e->args[i], s, final);
      return;
    case CE_PRIMOP:
      e->type = zt(e->type, s, final);
      for (int i = 0; i < e->nargs; i++)
        fe_tc_zonk_expr(e->args[i], s, final);
      return;
    case CE_CAST:
      e->type = zt(e->type, s, final);
      e = e->body;
      break;
    case CE_SCC: e = e->body; break;
    }
  }
}

/* ---- literals ----------------------------------------------------------------------------- */

static int64_t wrap_digits(const char *d, bool neg) {
  uint64_t v = 0;
  for (; d && *d; d++)
    if (*d >= '0' && *d <= '9') v = v * 10 + (uint64_t)(*d - '0');
  if (neg) v = 0 - v;
  return (int64_t)v;
}

void fe_tc_fix_literals(void) {
  for (int i = 0; i < fe_tc.lits.len; i++) {
    TcLitFix *f = &fe_tc.lits.data[i];
    CoreType *t = fe_tc_prune(fe_tc_zonk(f->type, false));
    if (t->kind != CT_CON) continue;
    CoreExpr *node = f->node;
    LzSpan at = node->span;
    FeLit *l = &f->lit;
    CoreExpr *lit = core_expr_new(CE_LIT, at);
    if (t->con == fe_tc.int_tc && fe_tc.int_con && l->kind == L_INT) {
      lit->lit.kind = CL_INT;
      lit->lit.i = l->fits ? (l->negative ? (int64_t)(0 - (uint64_t)l->i) : l->i)
                           : wrap_digits(l->digits, l->negative);
      *node = *fe_tc_con_expr(fe_tc.int_con, NULL, &lit, at);
    } else if (t->con == fe_tc.integer_tc && l->kind == L_INT) {
      *node = *node->arg; /* the Integer literal itself */
    } else if (t->con == fe_tc.double_tc && fe_tc.double_con) {
      lit->lit.kind = CL_DOUBLE;
      if (l->kind == L_INT)
        lit->lit.d = strtod(l->digits ? l->digits : "0", NULL);
      else
        lit->lit.d = l->d;
      if (l->negative) lit->lit.d = -lit->lit.d;
      *node = *fe_tc_con_expr(fe_tc.double_con, NULL, &lit, at);
    }
  }
}

/* ---- top-level order ---------------------------------------------------------------------- */

typedef struct Refs {
  TcMap index; /* CoreVar* -> i + 1 */
  LZ_VEC(int) * edges;
  bool *self;
} Refs;

static void refs(Refs *r, int from, CoreExpr *e) {
  while (e) {
    switch (e->kind) {
    case CE_VAR: {
      intptr_t j = e->var ? (intptr_t)fe_tc_map_get(&r->index, e->var) - 1 : -1;
      if (j == from)
        r->self[from] = true;
      else if (j >= 0)
        LZ_PUSH(r->edges[from], (int)j);
      return;
    }
    case CE_LIT: return;
    case CE_APP:
      refs(r, from, e->arg);
      e = e->fn;
      break;
    case CE_TYAPP: e = e->fn; break;
    case CE_LAM:
    case CE_TYLAM:
    case CE_CAST:
    case CE_SCC: e = e->body; break;
    case CE_LET:
      for (int i = 0; i < e->nbinds; i++)
        refs(r, from, e->binds[i].rhs);
      e = e->body;
      break;
    case CE_CASE:
      for (int i = 0; i < e->nalts; i++)
        refs(r, from, e->alts[i].rhs);
      e = e->body;
      break;
    case CE_CON:
    case CE_PRIMOP:
      for (int i = 0; i < e->nargs; i++)
        refs(r, from, e->args[i]);
      return;
    }
  }
}

void fe_tc_order_top(CoreProgram *p) {
  int n = fe_tc.top.len;
  Refs r = {0};
  r.edges = lz_alloc(sizeof(*r.edges) * (size_t)(n + 1));
  r.self = LZ_NEW_ARRAY(bool, n + 1);
  for (int i = 0; i < n; i++)
    fe_tc_map_put(&r.index, fe_tc.top.data[i].var, (void *)(intptr_t)(i + 1));
  for (int i = 0; i < n; i++)
    refs(&r, i, fe_tc.top.data[i].rhs);
  /* iterative Tarjan, as in tc_binds.c */
  int *idx = LZ_NEW_ARRAY(int, n + 1), *low = LZ_NEW_ARRAY(int, n + 1);
  bool *on = LZ_NEW_ARRAY(bool, n + 1);
  int *stack = LZ_NEW_ARRAY(int, n + 1), sp = 0;
  int *cs_node = LZ_NEW_ARRAY(int, n + 1), *cs_edge = LZ_NEW_ARRAY(int, n + 1), csp = 0;
  int counter = 0;
  for (int i = 0; i < n; i++)
    idx[i] = -1;
  for (int root = 0; root < n; root++) {
    if (idx[root] >= 0) continue;
    cs_node[csp] = root;
    cs_edge[csp++] = 0;
    idx[root] = low[root] = counter++;
    stack[sp++] = root;
    on[root] = true;
    while (csp) {
      int v = cs_node[csp - 1];
      if (cs_edge[csp - 1] < r.edges[v].len) {
        int w = r.edges[v].data[cs_edge[csp - 1]++];
        if (idx[w] < 0) {
          idx[w] = low[w] = counter++;
          stack[sp++] = w;
          on[w] = true;
          cs_node[csp] = w;
          cs_edge[csp++] = 0;
        } else if (on[w] && idx[w] < low[v]) {
          low[v] = idx[w];
        }
        continue;
      }
      csp--;
      if (csp && low[v] < low[cs_node[csp - 1]]) low[cs_node[csp - 1]] = low[v];
      if (low[v] == idx[v]) {
        int k = 0;
        for (int x = sp - 1; x >= 0; x--) {
          k++;
          if (stack[x] == v) break;
        }
        CoreBindGroup g = {k > 1 || r.self[v], LZ_NEW_ARRAY(CoreBind, k), k};
        for (int x = 0; x < k; x++) {
          int w = stack[--sp];
          on[w] = false;
          g.binds[k - 1 - x] = fe_tc.top.data[w];
        }
        LZ_PUSH(p->groups, g);
      }
    }
  }
}
