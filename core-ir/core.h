/* core.h — Core, the typed intermediate language between the front end and STG.
 * The public face of core-ir/: the data types, constructors, printer and linter.
 *
 * Core is a small explicitly typed lambda calculus in the style of GHC's Core
 * (System F with data types): type abstraction and application are explicit, class
 * dictionaries are ordinary data values, pattern matching is one-level `case`, and
 * boxed numbers are data types over primitive unboxed types (Int = I# Int#), so
 * representation choices are visible to the optimiser and the back end.
 * See Note [Core] in docs/notes/core.md.
 *
 * Invariants (checked by core_lint_program):
 *  - every variable occurrence is bound (lambda, let, case binder or pattern, or a
 *    top-level binding), and binders are unique within the program (by uniq);
 *  - every expression is well typed; types contain no unresolved meta variables;
 *  - CE_CON is a saturated constructor application (type arguments and value
 *    arguments); arguments for strict fields are already evaluated (the front end
 *    wraps them in a case);
 *  - CE_PRIMOP is saturated; lifted arguments are evaluated (see
 *    Note [Stdlib and primitives], docs/notes/stdlib-and-primitives.md);
 *  - a CE_CASE always evaluates its scrutinee to weak head normal form and binds it
 *    to `binder`; alternatives are all constructors of the scrutinee's type, or all
 *    literals of its primitive type, with at most one ALT_DEFAULT, which comes first
 *    in the printer but last in the array;
 *  - newtypes exist only in types: CE_CAST converts between a newtype and its
 *    representation at no cost;
 *  - CE_SCC pushes a cost centre; no transformation may move work across it.
 * All Core lives in the compiler arena (support.h). Public names: core_ / Core.
 */
#ifndef LZ_CORE_H
#define LZ_CORE_H

#include <stdio.h>

#include "../support/support.h"

typedef struct CoreKind CoreKind;
typedef struct CoreType CoreType;
typedef struct CoreTyVar CoreTyVar;
typedef struct CoreTyCon CoreTyCon;
typedef struct CoreDataCon CoreDataCon;
typedef struct CoreVar CoreVar;
typedef struct CoreExpr CoreExpr;

/* ---- kinds and types --------------------------------------------------------------- */

typedef enum { CK_STAR, CK_ARROW } CoreKindKind;
struct CoreKind {
  CoreKindKind kind;
  CoreKind *arg, *res; /* CK_ARROW */
};

struct CoreTyVar {
  Sym name;
  int uniq;
  CoreKind *kind;
};

typedef enum {
  CT_VAR,    /* a type variable */
  CT_CON,    /* a type constructor (unapplied) */
  CT_APP,    /* fn arg */
  CT_FUN,    /* arg -> res */
  CT_FORALL, /* forall var. body */
} CoreTypeKind;

struct CoreType {
  CoreTypeKind kind;
  CoreTyVar *var;     /* CT_VAR, CT_FORALL */
  CoreTyCon *con;     /* CT_CON */
  CoreType *fn, *arg; /* CT_APP; CT_FUN uses arg (argument) and res */
  CoreType *res;      /* CT_FUN */
  CoreType *body;     /* CT_FORALL */
};

typedef enum {
  TC_DATA,    /* algebraic data type (also class dictionaries, tuples, lists, unit) */
  TC_NEWTYPE, /* newtype: one constructor with one field; erased (see CE_CAST) */
  TC_PRIM,    /* primitive type: Int#, Double#, Char#, Addr#, World#, Integer */
} CoreTyConSort;

struct CoreTyCon {
  Sym name;   /* "Maybe", "Int#", "[]", "(,)", "()", "Eq" (dictionary type) */
  Sym module; /* defining module; NULL for built-in syntax types */
  CoreTyConSort sort;
  bool unlifted; /* Int#, Double#, Char#, Addr#, World#: never a thunk */
  bool is_class; /* the dictionary type of a class */
  int arity;
  CoreTyVar **params; /* arity of them */
  CoreKind *kind;
  CoreDataCon **cons; /* ncons of them, in declaration order (tag = index) */
  int ncons;
  int uniq;
};

struct CoreDataCon {
  Sym name; /* "Just", ":", "(,)", "I#", "C:Eq" (dictionary constructor) */
  CoreTyCon *tycon;
  int tag; /* index in tycon->cons, 0-based */
  int arity;
  CoreType **fields; /* field types, over tycon->params (may be forall types for
                        polymorphic methods in dictionaries) */
  bool *strict;      /* per field */
  Sym *labels;       /* per field: record label or NULL */
  LzSpan span;
  int uniq;
};

/* ---- variables and literals --------------------------------------------------------- */

struct CoreVar {
  Sym name; /* source-like name, for printing */
  int uniq; /* unique in the program; printed as name_uniq for locals */
  CoreType *type;
  Sym module;  /* top-level: defining module; NULL for locals */
  bool global; /* bound at top level */
  LzSpan span; /* binding site */
  void *aux;   /* free for later stages */
};

typedef enum {
  CL_INT,     /* Int# */
  CL_DOUBLE,  /* Double# */
  CL_CHAR,    /* Char# (a code point) */
  CL_STRING,  /* Addr#: NUL-terminated UTF-8 bytes in static memory */
  CL_INTEGER, /* Integer (lifted, primitive), arbitrary size */
} CoreLitKind;

typedef struct CoreLit {
  CoreLitKind kind;
  int64_t i;       /* CL_INT, CL_CHAR; CL_INTEGER when fits */
  double d;        /* CL_DOUBLE */
  const char *str; /* CL_STRING bytes; CL_INTEGER: decimal digits with optional '-' */
  size_t len;      /* CL_STRING length without the terminating NUL */
  bool fits;       /* CL_INTEGER: value fits in int64 i */
} CoreLit;

/* ---- expressions ------------------------------------------------------------------- */

typedef enum {
  CE_VAR,
  CE_LIT,
  CE_APP,    /* fn arg */
  CE_TYAPP,  /* fn @type */
  CE_LAM,    /* \var -> body */
  CE_TYLAM,  /* /\tyvar -> body */
  CE_LET,    /* let [rec] binds in body */
  CE_CASE,   /* case scrut as binder return type of alts */
  CE_CON,    /* saturated constructor: con @tyargs args */
  CE_PRIMOP, /* saturated primitive operation */
  CE_CAST,   /* e |> to: newtype wrap/unwrap */
  CE_SCC,    /* scc<"name"> body */
} CoreExprKind;

typedef enum { ALT_CON, ALT_LIT, ALT_DEFAULT } CoreAltKind;

typedef struct CoreAlt {
  CoreAltKind kind;
  CoreDataCon *con; /* ALT_CON */
  CoreVar **vars;   /* ALT_CON: con->arity binders */
  CoreLit lit;      /* ALT_LIT */
  CoreExpr *rhs;
} CoreAlt;

typedef struct CoreBind {
  CoreVar *var;
  CoreExpr *rhs;
} CoreBind;

struct CoreExpr {
  CoreExprKind kind;
  LzSpan span;      /* source construct this came from (may be unknown) */
  CoreVar *var;     /* CE_VAR; CE_LAM binder; CE_CASE binder */
  CoreTyVar *tyvar; /* CE_TYLAM */
  CoreLit lit;      /* CE_LIT */
  CoreExpr *fn;     /* CE_APP, CE_TYAPP */
  CoreExpr *arg;    /* CE_APP */
  CoreType *type;   /* CE_TYAPP argument; CE_CASE result type; CE_CAST target;
                       CE_PRIMOP result type */
  CoreExpr *body;   /* CE_LAM, CE_TYLAM, CE_LET, CE_SCC body; CE_CASE scrutinee;
                       CE_CAST operand */
  bool rec;         /* CE_LET */
  CoreBind *binds;  /* CE_LET */
  int nbinds;
  CoreAlt *alts; /* CE_CASE */
  int nalts;
  CoreDataCon *con;  /* CE_CON */
  CoreType **tyargs; /* CE_CON: tycon->arity type arguments */
  int ntyargs;
  CoreExpr **args; /* CE_CON (con->arity), CE_PRIMOP (its arity) */
  int nargs;
  int primop;     /* CE_PRIMOP: index into primops.def (CorePrimOp) */
  Sym scc;        /* CE_SCC cost-centre name */
  Sym scc_module; /* CE_SCC: module of the cost centre */
};

/* ---- primitive operations ------------------------------------------------------------ */

enum { PRIM_PURE = 0, PRIM_EFFECT = 1, PRIM_CANFAIL = 2 };
typedef enum {
#define PRIMOP(id, name, arity, flags) id,
#include "primops.def"
#undef PRIMOP
  PRIMOP_COUNT
} CorePrimOp;

typedef struct CorePrimInfo {
  const char *name;
  int arity;
  int flags;
} CorePrimInfo;

extern const CorePrimInfo core_primops[PRIMOP_COUNT];
int core_primop_lookup(const char *name); /* -1 if unknown */

/* ---- programs -------------------------------------------------------------------------- */

typedef struct CoreBindGroup {
  bool rec;
  CoreBind *binds;
  int nbinds;
} CoreBindGroup;

typedef struct CoreProgram {
  LZ_VEC(CoreTyCon *) tycons;   /* all data types, newtypes, dictionaries, primitives */
  LZ_VEC(CoreBindGroup) groups; /* top-level bindings in dependency order */
  CoreVar *main;                /* main :: IO () (the user's Main.main) */
  /* primop types as declared by foreign imports, by CorePrimOp, for the linter */
  CoreType *primop_types[PRIMOP_COUNT];
} CoreProgram;

/* ---- built-in types (list, unit, tuples, function arrow) ------------------------------- */

/* Created on first use in each compilation; core_reset forgets them (call it after
 * lz_reset, or at the start of a compilation: fe_compile does). */
CoreTyCon *core_list_tycon(void);   /* [] with cons [] and : */
CoreTyCon *core_unit_tycon(void);   /* () with con () */
CoreTyCon *core_tuple_tycon(int n); /* (,) ... for 2 <= n <= 7 (and up to 62) */
void core_reset(void);
/* The primitive type constructors, created on first use like the built-in types:
 * "Int#", "Double#", "Char#", "Addr#", "World#" (unlifted) and "Integer" (lifted), all
 * TC_PRIM of module Lz.Base; NULL for any other name. The type checker uses these for
 * the primitive types declared in Lz.Base, so literal types (core_lit_type) match. */
CoreTyCon *core_prim_tycon(const char *name);
CoreType *core_lit_type(const CoreLit *l); /* Int#, Double#, Char#, Addr# or Integer */

/* ---- constructors ------------------------------------------------------------------- */

int core_fresh_uniq(void);
CoreKind *core_kind_star(void);
CoreKind *core_kind_arrow(CoreKind *a, CoreKind *r);
CoreTyVar *core_tyvar_new(Sym name, CoreKind *k);
CoreType *core_type_var(CoreTyVar *v);
CoreType *core_type_con(CoreTyCon *c);
CoreType *core_type_app(CoreType *f, CoreType *a);
CoreType *core_type_fun(CoreType *a, CoreType *r);
CoreType *core_type_forall(CoreTyVar *v, CoreType *body);
CoreType *core_type_apply_con(CoreTyCon *c, int n, CoreType **args);
/* substitute types for type variables (capture-avoiding for the foralls we build) */
CoreType *core_type_subst(CoreType *t, int n, CoreTyVar **vars, CoreType **tys);
bool core_type_equal(const CoreType *a, const CoreType *b);
/* The type of data constructor `c` instantiated: field i at tyargs. */
CoreType *core_con_field_type(CoreDataCon *c, int i, CoreType **tyargs);

CoreVar *core_var_new(Sym name, CoreType *type, LzSpan span);
CoreExpr *core_expr_new(CoreExprKind kind, LzSpan span);
CoreExpr *core_var(CoreVar *v);
CoreExpr *core_app(CoreExpr *f, CoreExpr *a);
CoreExpr *core_tyapp(CoreExpr *f, CoreType *t);
CoreExpr *core_lam(CoreVar *v, CoreExpr *body);
CoreExpr *core_tylam(CoreTyVar *tv, CoreExpr *body);

/* The type of an expression (assumes it is well typed; the linter checks). */
CoreType *core_expr_type(CoreExpr *e);

/* ---- printer and linter ----------------------------------------------------------------- */

void core_print_program(FILE *out, const CoreProgram *p);
void core_print_expr(FILE *out, const CoreExpr *e);
void core_print_type(FILE *out, const CoreType *t);
char *core_type_to_string(const CoreType *t);
/* One-line rendering, cut after about max_len characters (ending in "..."). */
char *core_expr_to_string(const CoreExpr *e, int max_len);

/* Checks every invariant above; reports each violation on stderr as
 * "core lint (after PASS): ..." and returns the number of violations. */
int core_lint_program(const CoreProgram *p, const char *after_pass);
void core_set_lint_stream(FILE *f); /* where lint reports go; NULL = stderr */

/* ---- the optimiser (core-ir/opt*.c, simplify*.c, strictness.c) -------------------------------
 * See Note [Core optimiser] in docs/notes/core-opt.md. */

/* Optimise the whole program in place (and return it): level 0 does nothing; 1 and 2
 * run the simplifier (inlining, case-of-known-constructor, case of case, let floating,
 * constant folding, dictionary method selection), specialisation of overloaded
 * functions and strictness-based worker/wrapper; 2 iterates longer. Bindings `main`
 * does not reach are dropped. With lint_between_passes, core_lint_program runs after
 * every pass (reports name the pass) and the optimiser stops at the first failure. */
CoreProgram *core_optimise(CoreProgram *p, int level, bool lint_between_passes);
/* One line of counts of what the last core_optimise did (for -v / tests). */
void core_opt_print_stats(FILE *out);

#endif
