/* core_to_stg.h — what the two files of the Core-to-STG conversion share (core_to_stg.c:
 * expressions and closures; core_to_stg_top.c: the top level and the static closures the
 * conversion creates). Private to stg/. */
#ifndef LZ_CORE_TO_STG_H
#define LZ_CORE_TO_STG_H

#include <string.h>

#include "stg_priv.h"

typedef enum { MODE_EXPR, MODE_LET_CON, MODE_REC_CON, MODE_TOP } AtomMode;

typedef struct Float {
  bool is_case;
  StgVar *var;
  StgRhs *rhs;    /* let float */
  StgExpr *scrut; /* case float */
} Float;
typedef LZ_VEC(Float) Floats;

typedef struct Conv {
  StgProgram *p;
  const CoreProgram *core;
  StgMap env;      /* Core uniq -> StgAtom* */
  StgMap integers; /* interned literal text -> StgVar* of its top-level CAF */
  StgMap nullary;  /* CoreDataCon* -> StgVar* of its shared static closure */
  StgMap statics;  /* interned key of a constant constructor application -> StgVar* */
  StgVar *top;     /* the top-level binding being converted (for names of floats) */
  int depth;
  bool too_deep;
  bool failed;
} Conv;

static inline uint64_t stg_conv_key(int uniq) { return ((uint64_t)(uint32_t)uniq << 1) | 1; }

/* Types, type lambdas and applications, casts: all erased. */
static inline CoreExpr *stg_conv_erase(const CoreExpr *e_) {
  CoreExpr *e = (CoreExpr *)e_;
  while (e && (e->kind == CE_TYAPP || e->kind == CE_TYLAM || e->kind == CE_CAST))
    e = e->kind == CE_TYAPP ? e->fn : e->body;
  return e;
}

static inline StgAtom stg_conv_lit_int(int64_t i) {
  CoreLit l;
  memset(&l, 0, sizeof l);
  l.kind = CL_INT;
  l.i = i;
  return stg_atom_lit(l);
}

/* Does argument i of constructor application x go to a strict field as an Integer
 * literal? Core counts a literal as evaluated, but in STG an Integer literal is a CAF, so
 * such an argument must be evaluated before the constructor is built. */
static inline bool stg_conv_strict_integer(const CoreExpr *x, int i) {
  const CoreExpr *a = stg_conv_erase(x->args ? x->args[i] : NULL);
  return x->con && x->con->strict && i < x->con->arity && x->con->strict[i] && a &&
         a->kind == CE_LIT && a->lit.kind == CL_INTEGER;
}

/* core_to_stg.c */
void stg_conv_fail(Conv *c, LzSpan at, const char *msg, const char *arg);
StgVar *stg_conv_bind_var(Conv *c, CoreVar *cv);
void stg_conv_alias(Conv *c, CoreVar *cv, StgAtom a);
StgRhs *stg_conv_new_rhs(StgRhsKind kind, StgVar *v, LzSpan at);
/* the closure for right-hand side e bound to v; see the definition for `fl` and `mode` */
StgRhs *stg_conv_rhs(Conv *c, StgVar *v, CoreExpr *e, Floats *fl, AtomMode mode);
/* an atom for e without floats, if it is one (a variable, literal, nullary constructor) */
bool stg_conv_trivial_atom(Conv *c, CoreExpr *e, StgAtom *out);
bool stg_conv_is_atom(CoreExpr *e);
StgAtom *stg_conv_atomize_args(Conv *c, CoreExpr **args, int n, Floats *fl, AtomMode mode);

/* core_to_stg_top.c */
StgVar *stg_conv_integer(Conv *c, const CoreLit *l, LzSpan at);
StgVar *stg_conv_nullary(Conv *c, CoreDataCon *con, LzSpan at);
bool stg_conv_static_con(Conv *c, CoreExpr *x);
StgVar *stg_conv_static_con_var(Conv *c, CoreExpr *x);
StgVar *stg_conv_top_float(Conv *c, CoreExpr *e);

#endif
