/* tc_internal.h — shared definitions of the type checker (typecheck.c, tc_*.c).
 *
 * The type checker turns kernel (kernel.h) into typed Core (core-ir/core.h). It works
 * directly on Core types: a type being inferred is a CoreType whose CT_VAR nodes may
 * point at *meta variables*. A meta is a CoreTyVar embedded at the start of a TcMeta
 * and marked by a negative uniq; its `ref` is the union-find link (solution), its
 * `level` the let-nesting depth at which it was born (generalisation quantifies over
 * metas deeper than the binding's level, so the environment is never scanned).
 * See Note [Metas inside Core types] in tc_types.c.
 *
 * Elaboration happens while inferring: every kernel node becomes a Core node at once.
 * What is not known yet is left as a *hole* that is filled in place later:
 *  - class evidence: instantiating `show :: forall a. Show a -> a -> String` yields
 *    `show @a0 <hole>` and a wanted constraint (TcWanted) pointing at the hole; the
 *    solver overwrites the hole with `$fShowInt`, a dictionary parameter, or a
 *    superclass selection. See Note [Evidence holes] in tc_solve.c.
 *  - recursive occurrences of a binder whose group is being inferred: recorded in
 *    TcVar.occs and rewritten after generalisation (tc_binds.c).
 *  - overloaded literals: `fromInteger @t0 <hole> 3` is rewritten to `I# 3#` when t0
 *    turns out to be Int (typecheck.c, after solving).
 * At the end all types are zonked (metas replaced by their solutions).
 *
 * Internal names shared between the type checker's files start with fe_tc_.
 */
#ifndef LZ_FRONTEND_TC_INTERNAL_H
#define LZ_FRONTEND_TC_INTERNAL_H

#include "passes.h"

/* ---- pointer map (open addressing) ------------------------------------------------ */

typedef struct TcMap {
  const void **keys;
  void **vals;
  int cap, len;
} TcMap;
void *fe_tc_map_get(TcMap *m, const void *key);
void fe_tc_map_put(TcMap *m, const void *key, void *val);

/* ---- meta variables ------------------------------------------------------------ */

typedef struct TcMeta {
  CoreTyVar tv;  /* must be first: a CT_VAR's var points here; tv.uniq < 0 */
  CoreType *ref; /* the solution, or NULL */
  int level;
  int print_id; /* -1 until printed in a message (then a0, a1, ...) */
} TcMeta;

/* ---- kinds during kind inference --------------------------------------------------- */

typedef enum { TK_STAR, TK_ARROW, TK_VAR } TcKindTag;
typedef struct TcKind {
  TcKindTag tag;
  struct TcKind *arg, *res; /* TK_ARROW */
  struct TcKind *ref;       /* TK_VAR: solution or NULL */
} TcKind;

/* ---- entities ------------------------------------------------------------------------ */

typedef struct TcClass TcClass;
typedef struct TcInst TcInst;

/* A value-level entity (FeName.tc of an N_VAR or N_CON name). */
typedef struct TcVar {
  CoreVar *cv;      /* the Core binder; cv->type is its (possibly polymorphic) type */
  CoreDataCon *con; /* data constructors: the constructor (cv is NULL) */
  bool newtype_con;
  bool mono; /* its binding group is being inferred: occurrences recorded */
  LZ_VEC(CoreExpr *) occs;
  bool is_foreign;
} TcVar;

/* A type constructor or type synonym (FeName.tc of an N_TYCON name). */
typedef struct TcTyCon {
  FeName *name;
  CoreTyCon *tc; /* NULL for synonyms */
  FeDecl *decl;
  int arity;
  TcKind **pkinds; /* parameter kinds during kind inference */
  TcKind *kind;    /* full kind during kind inference */
  CoreKind *ckind; /* after kind inference */
  /* synonyms */
  bool is_syn;
  int syn_state; /* 0 not converted, 1 converting (cycle check), 2 done */
  CoreTyVar **syn_params;
  CoreType *syn_rhs;
} TcTyCon;

struct TcClass {
  FeName *name;
  KClass *k;
  CoreTyCon *tycon; /* dictionary type */
  CoreDataCon *con; /* dictionary constructor C:Name */
  CoreTyVar *tyvar; /* the class variable (tycon->params[0]) */
  TcKind *kparam;
  int nsupers;
  TcClass **supers;
  CoreVar **super_sels; /* $p1C :: forall a. C a -> S a */
  int nmethods;
  FeName **methods;
  CoreType **fields;      /* method field types (over tyvar; may be forall types) */
  CoreVar **sels;         /* method selectors */
  CoreVar **defaults;     /* $dm functions or NULL */
  bool standard, numeric; /* for defaulting (Haskell 2010 §4.3.4) */
  TcMap inst_by_head;     /* head CoreTyCon* -> TcInst* */
  int visiting;           /* superclass cycle detection */
};

struct TcInst {
  TcClass *cls;
  KInstance *k;
  CoreTyCon *head; /* head type constructor */
  int ntvs;
  CoreTyVar **tvs;     /* instance type variables, in head order */
  CoreType *head_type; /* T a1 .. an */
  int nctx;
  TcClass **ctx_cls;
  CoreType **ctx_types;
  CoreVar *dfun; /* $fCT :: forall tvs. ctx -> C (T tvs) */
  LzSpan span;
};

/* ---- constraints ------------------------------------------------------------------- */

typedef struct TcWanted {
  TcClass *cls;
  CoreType *type;
  CoreExpr *hole; /* overwritten with the evidence */
  LzSpan span;
  const char *origin; /* "a use of ‘show’" */
} TcWanted;

/* A given constraint (a dictionary in scope): a parameter, or a superclass of one. */
typedef struct TcGiven {
  TcClass *cls;
  CoreType *type;
  CoreVar *var;           /* base dictionary, or NULL */
  struct TcGiven *parent; /* superclass `super` of parent */
  int super;
} TcGiven;

typedef LZ_VEC(TcWanted *) TcWantedVec;

/* overloaded literal to specialise after solving */
typedef struct TcLitFix {
  CoreExpr *node; /* `fromInteger @t d lit` / `fromRational @t d r` */
  CoreType *type;
  FeLit lit;
} TcLitFix;

/* ---- the checker's state (one compilation at a time) --------------------------------- */

typedef struct TcError {
  LzSpan at;
  char *msg;
  int seq;
} TcError;

typedef struct TcState {
  KProgram *k;
  CoreProgram *prog; /* the output (primop_types filled as foreign imports are seen) */
  Sym *file_module;  /* source file id -> module name */
  int nfile_module;
  const FeOptions *opts;
  int level;
  int depth;          /* expression nesting (recursion guard) */
  TcWantedVec wanted; /* wanted constraints of the current group */
  LZ_VEC(TcGiven *) givens;
  LZ_VEC(CoreBind) top; /* all top-level Core bindings */
  LZ_VEC(TcLitFix) lits;
  LZ_VEC(CoreTyCon *) tycons;
  LZ_VEC(TcInst *) insts;
  TcMap inst_map;    /* (class, head tycon) -> TcInst */
  TcMap skolems;     /* CoreTyVar* -> TcSkolem* */
  TcMap dict_cache;  /* closed dictionary type string -> CoreVar */
  TcMap used_tycons; /* CoreTyCon* -> (void*)1 */
  TcMap class_of;    /* dictionary CoreTyCon* -> TcClass* */
  Sym module;        /* module of the binding being checked */
  int meta_uniq;     /* counts down from -1 */
  int print_id;
  bool stop; /* too many errors: stop checking */
  int nerrors;
  LZ_VEC(struct TcError) errors;
  int *file_rank; /* source file id -> position of its module in k->modules */
  /* wired-in entities */
  CoreTyCon *int_tc, *integer_tc, *double_tc, *char_tc, *io_tc, *ratio_tc;
  CoreTyCon *int_prim, *double_prim, *char_prim, *addr_prim;
  CoreDataCon *int_con, *double_con, *char_con, *ratio_con;
  FeName *from_integer, *from_rational, *unpack_cstring, *unpack_cstring_utf8, *error_fn;
  CoreTyCon *arrow_tc;         /* (->), only for partial applications like ((->) r) */
  LZ_VEC(CoreType *) defaults; /* default (Integer, Double) */
  LZ_VEC(CoreTyCon *) any_tcs; /* Any of each kind arity (for unconstrained metas) */
} TcState;

extern TcState fe_tc;

/* ---- tc_types.c: metas, unification, printing, zonking -------------------------------- */

CoreType *fe_tc_meta(CoreKind *k, Sym hint);
TcMeta *fe_tc_as_meta(CoreType *t); /* NULL unless an unsolved meta (after pruning) */
CoreType *fe_tc_prune(CoreType *t);
CoreTyVar *fe_tc_skolem(Sym name, CoreKind *k, const char *origin, LzSpan at);
CoreType *fe_tc_app(CoreType *f, CoreType *a); /* normalises ((->) a) b */
CoreType *fe_tc_con_app(CoreTyCon *tc, int n, CoreType **args);
CoreType *fe_tc_subst(CoreType *t, int n, CoreTyVar **vars, CoreType **tys);
bool fe_tc_type_eq(CoreType *a, CoreType *b);
/* unify; on failure report at `at`: "Couldn't match expected type ‘E’ with actual ..." */
bool fe_tc_unify(CoreType *expected, CoreType *actual, LzSpan at);
/* head of a type application spine: tycon, or tyvar; *nargs/args the arguments */
CoreType *fe_tc_spine(CoreType *t, CoreType **args, int max, int *nargs);
char *fe_tc_type_str(CoreType *t);
char *fe_tc_pred_str(TcClass *c, CoreType *t);
/* replace solved metas; `final`: unsolved metas become () (or Any) */
CoreType *fe_tc_zonk(CoreType *t, bool final);
/* collect unsolved metas of t with level > lvl (no duplicates) */
void fe_tc_free_metas(CoreType *t, int lvl, TcMap *seen, void *vec /* LZ_VEC(TcMeta*) */);
bool fe_tc_is_dict_type(CoreType *t, TcClass **cls, CoreType **arg);
CoreType *fe_tc_dict_type(TcClass *c, CoreType *t);
CoreKind *fe_tc_kind_of(CoreType *t);
Sym fe_tc_tyvar_name(int i); /* a, b, ..., z, a1, ... */
void fe_tc_note_tycon(CoreTyCon *tc);

/* ---- tc_kinds.c: kinds, type declarations, signatures --------------------------------- */

void fe_tc_kinds(KProgram *k);   /* kind inference + CoreTyCons */
TcTyCon *fe_tc_tycon(FeName *n); /* builtins created on demand */
TcVar *fe_tc_var(FeName *n);     /* builtin constructors on demand */
/* A signature as a Core sigma type: forall (new tvs). ctx => type. `bound` are type
 * variables already in scope (a class variable), with their Core types. */
CoreType *fe_tc_sig_type(FeQualType *q, int nbound, FeName **bound, CoreType **bound_ty,
                         TcKind **bound_kinds, int *ntvs_out, bool report);
CoreType *fe_tc_closed_type(FeType *t, CoreKind *expect); /* default decls */
/* An instance head `ctx => C (T a b)`: checks its kind against the class and its
 * Haskell 2010 shape; returns the head type, fills fresh type variables and context. */
CoreType *fe_tc_inst_head(TcClass *c, FeQualType *q, LzSpan at, int *ntvs, CoreTyVar ***tvs,
                          int *nctx, TcClass ***ctx_cls, CoreType ***ctx_types);
CoreKind *fe_tc_kind_default(TcKind *k);
TcKind *fe_tc_kvar(void);
TcKind *fe_tc_kstar(void);
bool fe_tc_kunify(TcKind *a, TcKind *b);
/* kind inference of a syntactic type in env; reports errors */
typedef struct TcKEnv {
  LZ_VEC(FeName *) names;
  LZ_VEC(TcKind *) kinds;
  bool implicit; /* unknown type variables are bound implicitly */
} TcKEnv;
TcKind *fe_tc_kind_infer(FeType *t, TcKEnv *env);
void fe_tc_kind_check(FeType *t, TcKEnv *env, TcKind *expect);
char *fe_tc_kind_str(TcKind *k);

/* ---- tc_classes.c: classes and instances --------------------------------------------- */

TcClass *fe_tc_class(FeName *n);
void fe_tc_classes(KProgram *k); /* dictionary types, selectors (after kinds) */
void fe_tc_instance_heads(KProgram *k);
void fe_tc_instance_bodies(KProgram *k); /* methods, default methods, dictionaries */
TcInst *fe_tc_lookup_inst(TcClass *c, CoreTyCon *head);
bool fe_tc_is_superclass(TcClass *sub, TcClass *sup); /* sup is a (transitive) super */

/* ---- tc_solve.c: constraint solving --------------------------------------------------- */

CoreExpr *fe_tc_want(TcClass *c, CoreType *t, LzSpan at, const char *origin);
void fe_tc_push_given(CoreVar *dict, TcClass *c, CoreType *t);
void fe_tc_pop_givens(int to);
/* Solve what can be solved in `bag`; the rest (stuck on metas) goes to *residual. */
void fe_tc_simplify(TcWantedVec *bag, TcWantedVec *residual);
/* Try Haskell's defaulting rule on the metas of `bag` with level > lvl (all if lvl<0);
 * unify defaultable metas. Returns true if something was defaulted. */
bool fe_tc_default(TcWantedVec *bag, int lvl);
void fe_tc_report_ambiguous(TcWanted *w);
CoreExpr *fe_tc_given_evidence(TcGiven *g, LzSpan at);
/* Instantiate expression `e` of sigma type `t`: type applications and evidence holes. */
CoreExpr *fe_tc_instantiate(CoreExpr *e, CoreType *t, CoreType **rho, LzSpan at,
                            const char *origin);

/* ---- tc_expr.c: expressions ------------------------------------------------------------ */

CoreExpr *fe_tc_expr(KExpr *e, CoreType *expected);
CoreExpr *fe_tc_hole(LzSpan at);
CoreExpr *fe_tc_eval_then(CoreExpr *e, CoreType *ty, CoreVar **bound); /* case e of b */
CoreExpr *fe_tc_case(CoreExpr *scrut, CoreVar *binder, CoreType *ty, int nalts, CoreAlt *alts,
                     LzSpan at);
CoreExpr *fe_tc_con_expr(CoreDataCon *con, CoreType **tyargs, CoreExpr **args, LzSpan at);
CoreVar *fe_tc_local(Sym name, CoreType *t, LzSpan at);
const char *fe_tc_occ_str(FeName *n);
CoreExpr *fe_tc_string_expr(const char *s, size_t len, LzSpan at); /* a [Char] */
CoreVar *fe_tc_global(Sym name, CoreType *t, Sym module, LzSpan at);
Sym fe_tc_module_of(LzSpan at);

/* ---- tc_binds.c: binding groups --------------------------------------------------------- */

typedef LZ_VEC(CoreBindGroup) TcGroups;
void fe_tc_bind_group(KBind **binds, int n, bool top, TcGroups *out);
/* Check rhs against sigma (skolemise, givens, solve); returns /\tvs. \dicts. rhs. */
CoreExpr *fe_tc_check_sigma(KExpr *rhs, CoreType *sigma, const char *what, LzSpan at);
CoreExpr *fe_tc_foreign(KBind *b, TcVar *v);
CoreExpr *fe_tc_wrap_lets(TcGroups *groups, CoreExpr *body);
/* Skolemisation of a sigma type: its type variables become fresh rigid variables and
 * its dictionary arguments fresh variables (pushed as givens by the caller). */
typedef struct TcBinder {
  CoreTyVar *tv; /* a type binder, or */
  CoreVar *dict; /* a dictionary binder */
  TcClass *cls;
  CoreType *pred;
} TcBinder;
typedef LZ_VEC(TcBinder) TcBinders;
CoreType *fe_tc_skolemise(CoreType *sigma, TcBinders *out, const char *origin, LzSpan at);
CoreExpr *fe_tc_wrap_binders(TcBinders *b, CoreExpr *body);
void fe_tc_push_binder_givens(TcBinders *b);

/* ---- tc_zonk.c: final zonk, Core walks, top-level ordering ------------------------------- */

/* Zonk every type in e (in place); with a substitution of type variables and
 * variables applied at the same time (mutually recursive group copies). */
typedef struct TcSubst {
  int ntv;
  CoreTyVar **tv_from;
  CoreType **tv_to;
  int nvar;
  CoreVar **var_from;
  CoreVar **var_to;
} TcSubst;
void fe_tc_zonk_expr(CoreExpr *e, TcSubst *s, bool final);
void fe_tc_order_top(CoreProgram *p);
void fe_tc_fix_literals(void);

/* ---- errors ------------------------------------------------------------------------- */

/* Type errors are collected and reported at the end sorted by module (dependency
 * order) and position, as GHC sorts its messages, so the first error printed is the
 * earliest in the source whatever order the checker found them in. */
void fe_tc_error(LzSpan at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fe_tc_flush_errors(void);
bool fe_tc_too_many_errors(void);

#endif
