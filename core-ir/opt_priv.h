/* opt_priv.h — what the files of the Core optimiser share (opt*.c, simplify*.c,
 * strictness.c) without making it public: the per-variable side table, the optimiser
 * state, and the expression utilities (cloning, sizes, occurrence analysis, predicates).
 * See Note [Core optimiser] in docs/notes/core-opt.md. The public face is
 * core_optimise in core.h.
 *
 * Binders are unique in the whole program, so everything the optimiser knows about a
 * variable lives in one table indexed by its unique (uniques are small dense integers
 * handed out by core_fresh_uniq). Binders are never renamed in place: an expression that
 * is duplicated (inlined, or copied into several case branches) is first *cloned* with
 * fresh binders (core_opt_clone), so the program always keeps unique binders.
 */
#ifndef LZ_OPT_PRIV_H
#define LZ_OPT_PRIV_H

#include "core_priv.h"

/* ---- per-variable information (indexed by uniq) --------------------------------------- */

enum {
  VI_IN_LAM = 1 << 0,     /* some occurrence is under a lambda not enclosing the binder */
  VI_IN_SCC = 1 << 1,     /* some occurrence is inside an scc not enclosing the binder */
  VI_GLOBAL_REC = 1 << 2, /* top-level binder of a recursive group */
  VI_WRAPPER = 1 << 3,    /* a worker/wrapper wrapper: always inline, never a loop breaker */
  VI_LOOP = 1 << 4,       /* loop breaker: never inlined */
  VI_EVALUATED = 1 << 5,  /* (simplifier) known to be in WHNF in the current scope */
  VI_NOINLINE = 1 << 6,   /* deep or odd binding: leave alone */
  VI_BOTTOM = 1 << 7,     /* (strictness) a function that diverges when saturated */
  VI_LETREC = 1 << 8,     /* bound by a local let rec */
};

typedef struct OptVarInfo {
  int occ;      /* occurrences (from the last occurrence analysis) */
  int self_occ; /* let rec / top-level rec: occurrences inside its own rhs */
  unsigned flags;
  int lam_depth, scc_depth; /* (occurrence analysis) where the binder is bound */
  /* simplifier */
  CoreExpr *subst;  /* substitute this (simplified) expression for the variable */
  int subst_uses;   /* how often subst was used: the second use clones */
  CoreExpr *unfold; /* known value: a lambda or constructor application (simplified) */
  CoreBind *gbind;  /* top-level binding of a global */
  int group;        /* top-level group index of a global */
  /* cloning */
  CoreVar *clone_to;
  int mark; /* scratch for whole-program walks (reachability, grouping) */
  /* strictness: bit i set = strict in value parameter i; arity = value params */
  uint64_t strict_sig;
  int arity;        /* of strict_sig; -1 on a let binder: unfold_dmd is valid */
  void *unfold_dmd; /* (strictness) what evaluating a let-bound variable demands */
} OptVarInfo;

/* ---- optimiser state ------------------------------------------------------------------ */

typedef struct OptStats {
  int beta, inline_global, inline_local, inline_once, known_con, case_of_case, join_points,
      case_elim, let_float, dead_let, const_fold, cast_cast, method_sel, specialised,
      worker_wrapper, dead_global, case_float;
} OptStats;

typedef struct Opt {
  CoreProgram *p;
  int level;
  bool lint;
  OptVarInfo **vi_chunks; /* see core_opt_vi */
  int vi_nchunks;
  int vi_cap; /* one more than the largest unique seen */
  OptStats st;
  int ticks;         /* transformations in the current iteration */
  int inline_budget; /* nodes that may still be inlined into the current binding */
  int inline_depth;  /* nesting of inlined bodies being simplified */
  int depth;         /* expression nesting (recursion guard) */
  bool deep;         /* the current binding is too deep: stop transforming */
  bool in_main;      /* the current binding is the program's, not the standard library's */
  CoreTyCon *unit_tc;
  void *spec_state;                          /* opt_spec.c: specialisations made so far */
  CoreDataCon *int_con, *dbl_con, *char_con; /* I#, D#, C# (NULL if absent) */
} Opt;

enum { OPT_VI_CHUNK_BITS = 12 };
OptVarInfo *core_opt_vi(Opt *O, int uniq); /* stable pointer */
static inline OptVarInfo *core_opt_vvi(Opt *O, const CoreVar *v) { return core_opt_vi(O, v->uniq); }

/* ---- utilities (opt_util.c) ------------------------------------------------------------ */

CoreExpr *core_opt_mk_let(CoreVar *v, CoreExpr *rhs, CoreExpr *body);
CoreExpr *core_opt_mk_case(CoreExpr *scrut, CoreVar *b, CoreType *res, int nalts, CoreAlt *alts);
/* case scrut of b { DEFAULT -> body } */
CoreExpr *core_opt_mk_case_default(CoreExpr *scrut, CoreVar *b, CoreType *res, CoreExpr *body);
CoreVar *core_opt_fresh_var(const char *name, CoreType *t);
/* Rebuild an application spine head @t1 a1 ... from arrays (types in tys[i] when
 * args[i] is NULL). */
CoreExpr *core_opt_mk_apps(CoreExpr *head, int n, CoreExpr **args, CoreType **tys);

/* Deep copy of e with fresh binders (value and type), substituting types for the type
 * variables tvs[0..n) and the expressions vsub[i] for the variables vars[i] (may be
 * NULL/0). Occurrence information of the fresh binders is recomputed. */
CoreExpr *core_opt_clone(Opt *O, CoreExpr *e, int ntv, CoreTyVar **tvs, CoreType **tys, int nv,
                         CoreVar **vars, CoreExpr **vsub);

/* Number of nodes, counting at most up to limit (returns > limit when bigger). */
int core_opt_size(const CoreExpr *e, int limit);
/* Occurrence analysis of e: resets and fills occ/self_occ/VI_IN_LAM/VI_IN_SCC for the
 * binders of e, and adds to the counts of e's free variables. */
void core_opt_occ_expr(Opt *O, CoreExpr *e);
void core_opt_occ_program(Opt *O);
/* Does variable uniq occur (free) in e? */
bool core_opt_mentions(const CoreExpr *e, int uniq);

bool core_opt_is_trivial(const CoreExpr *e); /* var, literal (not string), tyapp/cast of one */
bool core_opt_is_value(const CoreExpr *e);   /* lambda, constructor, literal (under casts) */
bool core_opt_is_lambda(const CoreExpr *e);  /* (type) lambda, under casts */
/* Pure, cannot fail, cheap: may be evaluated speculatively or dropped. */
bool core_opt_ok_for_spec(const CoreExpr *e);
/* Evaluates to WHNF for sure (given the variables flagged VI_EVALUATED). */
bool core_opt_is_evaluated(Opt *O, const CoreExpr *e);
/* Value parameters of a (type) lambda chain; *body gets what is under them. */
int core_opt_lam_arity(const CoreExpr *e);
/* Unlifted, possibly under foralls (the front end may generalise a strict binding):
 * such a binding is evaluated where it stands and never moved. */
bool core_opt_type_unlifted_under_foralls(const CoreType *t);
/* Does the expression certainly diverge (raiseError#, or a saturated call of a function
 * flagged VI_BOTTOM)? */
bool core_opt_is_bottom(Opt *O, const CoreExpr *e);

/* ---- passes ---------------------------------------------------------------------------- */

/* One simplifier iteration over the whole program; returns the number of
 * transformations done. */
int core_opt_simplify_program(Opt *O);
CoreExpr *core_opt_simplify_expr(Opt *O, CoreExpr *e);
void core_opt_set_subst(Opt *O, CoreVar *x, CoreExpr *e); /* x := e (simplified) */
/* Constant folding of a primop application whose arguments are simplified; NULL if
 * nothing to do. */
CoreExpr *core_opt_fold_primop(Opt *O, CoreExpr *e);
/* Case with a known scrutinee (simplify_case.c). */
typedef struct Simpl Simpl;

/* Specialisation of overloaded functions at constant dictionaries (opt_spec.c). */
int core_opt_specialise(Opt *O);
/* List fusion: right-fold consumers pushed into recursive producers (opt_fuse.c);
 * returns the number of fusions. */
int core_opt_fuse(Opt *O);
/* Strictness analysis and worker/wrapper (strictness.c). */
int core_opt_worker_wrapper(Opt *O);
/* Top-level housekeeping (opt.c): drop bindings unreachable from main, float lets and
 * dictionaries to the top level, and re-group bindings in dependency order. */
void core_opt_drop_dead_globals(Opt *O);
void core_opt_regroup(Opt *O);
void core_opt_float_top(Opt *O);
void core_opt_index_globals(Opt *O);
CoreVar *core_opt_new_global(Opt *O, const char *name, Sym module, CoreType *t);

#endif
