/* stg.c — the small shared pieces of stg/: representations of Core types, literals and
 * constructor fields, constructors of STG nodes, and the integer-keyed hash map the
 * conversion and analyses use.
 *
 * The idea behind representations: after erasure, all the back end needs to know of a
 * type is how its values travel — as a pointer to a lifted object (P), a machine word
 * (I) or a double (D). That is decided by the head of the type alone: an unlifted
 * primitive tycon gives I (D for Double#), everything else (data types, newtypes,
 * functions, type variables, Integer) is lifted and gives P. Type variables always
 * stand for lifted types in Lz, which has no levity polymorphism. */
#include <string.h>

#include "stg_priv.h"

const char *stg_rep_name(StgRep r) {
  switch (r) {
  case STG_P: return "P";
  case STG_I: return "I";
  case STG_D: return "D";
  }
  return "?";
}

StgRep stg_type_rep(const CoreType *t) {
  /* a bounded walk down to the head: foralls and the function part of applications */
  for (int guard = 0; t && guard < 100000; guard++) {
    switch (t->kind) {
    case CT_FORALL: t = t->body; continue;
    case CT_APP: t = t->fn; continue;
    case CT_CON: {
      const CoreTyCon *tc = t->con;
      if (!tc || tc->sort != TC_PRIM || !tc->unlifted) return STG_P;
      return tc->name && strcmp(tc->name, "Double#") == 0 ? STG_D : STG_I;
    }
    case CT_VAR:
    case CT_FUN: return STG_P;
    }
    break;
  }
  return STG_P;
}

StgRep stg_lit_rep(const CoreLit *l) {
  switch (l->kind) {
  case CL_DOUBLE: return STG_D;
  case CL_INTEGER: return STG_P;
  default: return STG_I;
  }
}

StgRep stg_con_field_rep(const CoreDataCon *c, int i) {
  if (!c || i < 0 || i >= c->arity || !c->fields) return STG_P;
  return stg_type_rep(c->fields[i]);
}

StgRep stg_atom_rep(const StgAtom *a) {
  if (a->kind == SA_VAR) return a->var ? a->var->rep : STG_P;
  return stg_lit_rep(&a->lit);
}

/* ---- constructors ------------------------------------------------------------------- */

StgVar *stg_var_new(StgProgram *p, Sym name, int uniq, StgRep rep, LzSpan span) {
  StgVar *v = LZ_NEW(StgVar);
  v->name = name ? name : lz_sym("x");
  v->uniq = uniq;
  v->id = p->nvars++;
  v->rep = rep;
  v->span = span;
  return v;
}

StgExpr *stg_expr_new(StgExprKind kind, StgRep rep, LzSpan span) {
  StgExpr *e = LZ_NEW(StgExpr);
  e->kind = kind;
  e->rep = rep;
  e->span = span;
  return e;
}

StgAtom stg_atom_var(StgVar *v) {
  StgAtom a;
  memset(&a, 0, sizeof a);
  a.kind = SA_VAR;
  a.var = v;
  return a;
}

StgAtom stg_atom_lit(CoreLit lit) {
  StgAtom a;
  memset(&a, 0, sizeof a);
  a.kind = SA_LIT;
  a.lit = lit;
  return a;
}

/* ---- integer-keyed map ---------------------------------------------------------------- */

static unsigned slot_of(uint64_t key, int cap) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (unsigned)key & (unsigned)(cap - 1);
}

static int find_slot(const StgMap *m, uint64_t key) {
  for (unsigned i = slot_of(key, m->cap);; i = (i + 1) & (unsigned)(m->cap - 1))
    if (m->keys[i] == key || m->keys[i] == 0) return (int)i;
}

void *stg_map_get(const StgMap *m, uint64_t key) {
  if (!m->cap || key == 0) return NULL;
  int i = find_slot(m, key);
  return m->keys[i] == key ? m->vals[i] : NULL;
}

static void grow(StgMap *m) {
  StgMap n = {0};
  n.cap = m->cap ? m->cap * 2 : 64;
  n.keys = LZ_NEW_ARRAY(uint64_t, n.cap);
  n.vals = LZ_NEW_ARRAY(void *, n.cap);
  for (int i = 0; i < m->cap; i++)
    if (m->keys[i]) {
      int j = find_slot(&n, m->keys[i]);
      n.keys[j] = m->keys[i];
      n.vals[j] = m->vals[i];
      n.len++;
    }
  *m = n;
}

void stg_map_put(StgMap *m, uint64_t key, void *val) {
  if (key == 0) return;
  if ((m->len + 1) * 2 > m->cap) grow(m);
  int i = find_slot(m, key);
  if (m->keys[i] == 0) {
    m->keys[i] = key;
    m->len++;
  }
  m->vals[i] = val;
}

bool stg_set_add(StgMap *m, uint64_t key) {
  if (key == 0) return false;
  if ((m->len + 1) * 2 > m->cap) grow(m);
  int i = find_slot(m, key);
  if (m->keys[i] == key) return false;
  m->keys[i] = key;
  m->vals[i] = (void *)1;
  m->len++;
  return true;
}
