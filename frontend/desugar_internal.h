/* desugar_internal.h — the desugarer's shared state, private to frontend/desugar*.c and
 * frontend/match.c.
 *
 * The desugarer (renamed AST -> kernel, kernel.h) is split in seven files:
 *   desugar.c       the program: modules, classes, instances, field selectors, binding
 *                   groups (function and pattern bindings), -fprof-auto cost centres;
 *   desugar_expr.c  expressions, right-hand sides with guards and where, lambdas, case;
 *   desugar_stmt.c  do, list comprehensions, arithmetic sequences, records;
 *   desugar_pat.c   pattern helpers: normalisation to constructor form, variables,
 *                   failability, GHC-style pattern printing for messages;
 *   desugar_fail.c  failure continuations (join points), pattern checks, selectors;
 *   match.c         the pattern-match compiler (decision trees).
 *
 * Two ideas run through all of them. See Note [Failure continuations] in desugar_fail.c:
 * a failure continuation is a kernel expression built *before* the code that may
 * jump to it; every jump gets a placeholder node, and once the consumer is complete
 * the continuation is inlined (zero or one jump, or a tiny expression) or let-bound
 * to a join variable (several jumps). And pattern variables are not bound by lets:
 * the match compiler maps each one to the occurrence variable holding its value
 * (DsVar.alias), and the translation of a variable chases that alias.
 */
#ifndef LZ_FRONTEND_DESUGAR_INTERNAL_H
#define LZ_FRONTEND_DESUGAR_INTERNAL_H

#include "passes.h"

/* Wired-in entities the desugarer refers to (frontend/wired.def, all in Lz.Base). */
#define DS_W_TRUE              WIRED_TRUE      /* True */
#define DS_W_FALSE             WIRED_FALSE     /* False */
#define DS_W_CHAR_CON          WIRED_CHAR_CON  /* C# */
#define DS_W_EQ                WIRED_EQ        /* (==), method of Eq */
#define DS_W_NEGATE            WIRED_NEGATE    /* negate, method of Num */
#define DS_W_BIND              WIRED_BIND      /* (>>=), method of Monad */
#define DS_W_THEN              WIRED_THEN      /* (>>), method of Monad */
#define DS_W_FAIL              WIRED_FAIL      /* fail, method of MonadFail */
#define DS_W_ENUM_FROM         WIRED_ENUM_FROM /* enumFrom .. enumFromThenTo, methods of Enum */
#define DS_W_ENUM_FROM_THEN    WIRED_ENUM_FROM_THEN
#define DS_W_ENUM_FROM_TO      WIRED_ENUM_FROM_TO
#define DS_W_ENUM_FROM_THEN_TO WIRED_ENUM_FROM_THEN_TO
#define DS_W_OTHERWISE         WIRED_OTHERWISE /* otherwise */
#define DS_W_PAT_ERROR         WIRED_PAT_ERROR /* patError :: [Char] -> a (prints the message) */

/* fe_wired[id]; when the defining module was not loaded (unit tests building trees by
 * hand), a stand-in top-level name with the wired entity's occurrence. */
FeName *fe_ds_wired_name(int id);
FeName *fe_ds_tuple_con(int n);

/* Nesting deeper than this (expressions, patterns, statements) is reported instead of
 * recursed into. */
#ifndef DS_MAX_DEPTH
#define DS_MAX_DEPTH 3000
#endif

/* The desugarer's per-FeName scratch data (FeName.ds). */
typedef struct DsVar {
  FeName *alias;     /* a pattern variable: stands for this occurrence variable */
  struct Fail *join; /* a join variable: the continuation not yet placed */
} DsVar;

/* The state of one desugaring run. */
typedef struct Ds {
  const FeOptions *opts;
  KProgram *prog;
  FeModule *mod;       /* module being translated */
  bool prof;           /* -fprof-auto(-top) applies to this module */
  bool prof_nested;    /* ... and to nested bindings (-fprof-auto) */
  const char *cc_path; /* cost-centre name of the enclosing binding ("main.go"), or NULL */
  int depth;           /* recursion depth guard */
  bool depth_reported;
} Ds;

DsVar *fe_ds_var(FeName *n);

/* Fresh local variable (N_VAR, module NULL) named occ. */
FeName *fe_ds_fresh(const char *occ, LzSpan at);

/* Depth guard: returns false (after reporting once) when nesting is too deep. */
bool fe_ds_enter(Ds *d, LzSpan at);
void fe_ds_leave(Ds *d);

/* ---- failure continuations (desugar_fail.c) ------------------------------------------- */

/* See Note [Failure continuations] in desugar_fail.c. */
typedef struct Fail {
  KExpr *expr;          /* the continuation; built before its uses */
  FeName *join;         /* join variable when let-bound */
  LZ_VEC(KExpr *) uses; /* placeholder nodes (K_VAR join) to patch */
  bool done;
} Fail;

Fail *fe_ds_fail_new(KExpr *expr);
/* An expression that jumps to the continuation. */
KExpr *fe_ds_fail_use(Fail *f, LzSpan at);
/* Place the continuation for `body` (the code that jumps to it): inline or let-bind. */
KExpr *fe_ds_fail_wrap(Fail *f, KExpr *body);
/* patError "msg" (wired), a tiny expression that is copied into each jump. */
KExpr *fe_ds_pat_error(const char *msg, LzSpan at);

/* ---- the match compiler (match.c) ------------------------------------------------ */

/* A variable bound by a pattern: either an alias of an occurrence variable, or a lazy
 * variable (under ~p) selected from occurrence `occ` by matching `lazy` again. */
typedef struct MBind {
  FeName *var;
  FeName *occ;
  FePat *lazy;
  struct MBind *next;
} MBind;

/* What a clause does once its patterns have matched. build() makes the kernel
 * expression; `fail` is the continuation to take when the clause's guards all fail
 * (NULL when can_fail is false). Unless raw is set, the match compiler first maps the
 * clause's pattern variables (binds) to their occurrences and afterwards wraps the
 * result in the lazy-pattern bindings; a raw body gets the bindings themselves. */
typedef struct MBody {
  KExpr *(*build)(Ds *d, void *env, MBind *binds, Fail *fail);
  void *env;
  bool can_fail;
  bool raw;
  LzSpan span;
} MBody;

/* One matching problem: rows of patterns against occurrence variables. */
typedef struct MProblem {
  int ncols;
  FeName **occ; /* the variables matched (one per column) */
  KExpr *scrut; /* optional: the expression occ[0] stands for (case e of ...) */
  int nrows;
  FePat ***pats;   /* pats[row][col]; NULL is a wildcard */
  MBody *bodies;   /* one per row */
  LzSpan ctx_span; /* span of the whole construct (for lazy-pattern failures) */
  bool no_check;   /* patterns already checked (arity etc.): do not report again */
} MProblem;

/* Compile to a decision tree and emit kernel; `fail` is taken when no row matches. */
KExpr *fe_ds_match(Ds *d, MProblem *mp, Fail *fail);

/* Report the pattern errors the renamer leaves to the desugarer (constructor arity,
 * unboxed string patterns); fe_ds_match does this itself unless no_check. */
void fe_ds_check_pat(Ds *d, FePat *p);
/* The value of `var` under the bindings of a clause (alias or lazy selector). */
KExpr *fe_ds_bound_value(Ds *d, MBind *binds, FeName *var, LzSpan ctx_span, LzSpan at);
/* `case occ of pat -> var`, failing with "Non-exhaustive patterns in <pat>". */
KExpr *fe_ds_selector(Ds *d, FeName *occ, FePat *pat, FeName *var, LzSpan ctx_span);

/* ---- patterns (desugar_pat.c) ------------------------------------------------------ */

/* Constructor facts: its data/newtype declaration, arity, field labels. */
FeDecl *fe_ds_con_decl(FeName *con);    /* D_DATA / D_NEWTYPE, or NULL */
FeConDecl *fe_ds_con_info(FeName *con); /* its FeConDecl, or NULL */
int fe_ds_con_arity(FeName *con);       /* -1 if unknown */
bool fe_ds_is_newtype_con(FeName *con);
int fe_ds_type_con_count(FeName *con); /* constructors of its type, -1 if unknown */
/* Position of field `field` in constructor `con`, or -1. */
int fe_ds_field_index(FeName *con, const FeIdent *field);

/* The pattern variables of p in left-to-right order (appended to *out). */
typedef LZ_VEC(FeName *) FeNameVec;
void fe_ds_pat_vars(const FePat *p, FeNameVec *out);
/* The variable name a pattern gives its value (x, ~x, !x, x@p), or NULL. */
const char *fe_ds_pat_name_hint(const FePat *p);
/* GHC's notion of a failable pattern in do (irrefutable: var, wildcard, ~p, and
 * constructors of single-constructor types with irrefutable arguments). */
bool fe_ds_pat_failable(const FePat *p);
/* The pattern printed as GHC prints it in "Non-exhaustive patterns in ..." */
char *fe_ds_pat_string(const FePat *p);
/* Normalise: tuples, lists, records, char and short string literals become P_CON. */
FePat *fe_ds_pat_mk_con(FeName *con, int n, FePat **args, LzSpan at);
FePat *fe_ds_pat_normalise(FePat *p);
bool fe_ds_lit_equal(const FeLit *a, const FeLit *b);

/* ---- expressions (desugar_expr.c) ----------------------------------------------------- */

KExpr *fe_ds_expr(Ds *d, FeExpr *e);
/* A right-hand side (guards + where); `fail` taken when all guards fail. */
KExpr *fe_ds_rhs(Ds *d, FeRhs *rhs, Fail *fail);
bool fe_ds_rhs_can_fail(const FeRhs *rhs);
/* Guard qualifiers then e, jumping to fail when a qualifier fails. */
KExpr *fe_ds_quals(Ds *d, FeStmt **quals, int n, FeExpr *e, Fail *fail);
KExpr *fe_ds_var_ref(FeName *n, LzSpan at);
KExpr *fe_ds_wired(int id, LzSpan at);
KExpr *fe_ds_lit(FeLit lit, LzSpan at);
KExpr *fe_ds_if(KExpr *cond, KExpr *then_e, KExpr *else_e, LzSpan at);
KExpr *fe_ds_string(const char *s, LzSpan at);

/* ---- declarations (desugar.c) -------------------------------------------------------- */

typedef LZ_VEC(KBind *) KBindVec;
/* Translate a group of declarations (let, where, top level) into bindings. */
void fe_ds_decls(Ds *d, FeDecl **decls, int n, bool top, KBindVec *out);
/* K_LET of decls around the expression made by body(d, env); strict (bang) pattern
 * bindings are forced before that expression. */
KExpr *fe_ds_let_decls(Ds *d, FeDecl **decls, int n, LzSpan at, KExpr *(*body)(Ds *, void *),
                       void *env);

/* ---- do, comprehensions, sequences, records (desugar_stmt.c) -------------------------- */

KExpr *fe_ds_do(Ds *d, FeExpr *e);
KExpr *fe_ds_comp(Ds *d, FeExpr *e);
KExpr *fe_ds_arith(Ds *d, FeExpr *e);
KExpr *fe_ds_reccon(Ds *d, FeExpr *e);
KExpr *fe_ds_recupd(Ds *d, FeExpr *e);
/* Field selector bindings for the record fields of a data/newtype declaration. */
void fe_ds_selectors(Ds *d, FeDecl *data, KBindVec *out);

#endif
