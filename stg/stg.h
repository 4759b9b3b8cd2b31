/* stg.h — STG, the untyped, A-normal-form language between Core and the code generator.
 * The public face of stg/: the data types, the conversion from Core, the analyses, the
 * printer (`lzc --dump-stg`) and the linter.
 *
 * STG ("spineless tagless G-machine" language, as in GHC) is Core with the types erased
 * and every decision the code generator needs made explicit: which expressions allocate
 * (only `let`), which evaluate (only `case`), what each closure captures, whether it is
 * updated, how a call is made. Types are gone; what remains of them is a
 * representation per variable: P (a pointer to a lifted heap object: a constructor,
 * function, thunk, partial application or Integer), I (a word-sized unboxed value:
 * Int#, Char#, Addr#, World#, MutVar#) or D (a Double#). See Note [Back end and runtime
 * ABI] in docs/notes/backend.md for how the code generator and runtime use it.
 *
 * Invariants (checked by stg_lint_program):
 *  - every variable occurrence is bound: by a top-level binding (global), a let, a
 *    function parameter, a case binder or a pattern variable; binders are unique in the
 *    program (by uniq, and by id, a dense index 0..nvars-1);
 *  - A-normal form: the arguments of applications, constructor applications and primops
 *    are atoms (a variable or a literal, StgAtom); literals are unboxed: CL_INT, CL_CHAR,
 *    CL_STRING (rep I) and CL_DOUBLE (rep D) — never CL_INTEGER (see below);
 *  - SE_CON is saturated (nargs == con->arity) and never of a newtype; SE_PRIMOP is
 *    saturated (nargs == the primop's arity);
 *  - reps agree: an atom's rep matches the rep its position requires (constructor fields:
 *    stg_con_field_rep; primop arguments: StgProgram.prim_sigs when known; the
 *    parameters of a known callee; a case scrutinee: the case's rep), every expression
 *    carries the rep of its value (StgExpr.rep), and a closure bound by let or at top
 *    level is P (a thunk's body is P);
 *  - closures (StgRhs) appear only on the right of a let or a top-level binding. A
 *    closure's free variables (fvs) are exactly the local, non-LNE variables its code
 *    mentions (globals are static, never free), each once, in order of first
 *    occurrence; top-level closures have none. A closure's own binder is not among
 *    them: inside its code it denotes the closure itself (the node, r1 on entry);
 *  - a let-no-escape binding (StgVar.lne, and the whole SE_LET has lne set: a let is
 *    either all closures or all LNE) is only ever *jumped to*: SE_APP with call
 *    STG_CALL_JUMP and exactly `arity` arguments (a nullary LNE is jumped to with zero
 *    arguments), in tail position of the let's body or of an LNE right-hand side of the
 *    same let, never from inside another closure, a case scrutinee or an scc. It is
 *    not allocated: the code generator compiles it as a block of the enclosing code
 *    that continues to the let's continuation. Its fvs are the variables that must be
 *    live when jumping to it (its body's free variables and, transitively, those of the
 *    LNEs it jumps to);
 *  - SE_APP calls a variable with at least one argument (or is a nullary jump); `call`
 *    says whether the callee is a known function (a let-bound or top-level STG_FUN whose
 *    arity is fn->rhs->arity: the call may be exact, partial or over-saturated), an LNE
 *    jump, or unknown (generic apply);
 *  - case: `scrut` is evaluated, its value bound to `binder`; alternatives are all
 *    constructors of `tycon` (STG_ALTS_ALG, P), or all literals of the scrutinee's rep
 *    (STG_ALTS_PRIM, I or D), with at most one STG_ALT_DEFAULT, which is last;
 *    STG_ALTS_POLY (P, not a data type: a type variable, a function, Integer) has only
 *    a DEFAULT. `case x of b { DEFAULT -> e }` with x of rep P is an evaluation (seq);
 *  - SE_SCC pushes a cost centre around its body.
 *
 * Conversion from Core (stg_from_core, core_to_stg.c): types, type abstractions and
 * applications, and casts are erased (newtypes vanish); non-atomic arguments are
 * let-bound as closures when lifted (a thunk, function or constructor) or evaluated
 * first by a case when unlifted (an unlifted value is never a thunk); a non-recursive
 * let of unlifted type becomes a case; a let of an atom is substituted away, and so is
 * a top-level alias `x = y` (unless it is part of a cycle, a <<loop>>); nested
 * lambdas are collected into one function of that arity; Core variables keep their
 * uniq, fresh ones get core_fresh_uniq(). Integer literals (CL_INTEGER, a lifted heap
 * object) become top-level CAFs, one per distinct value, whose body is
 * `integerFromInt# [n#]` when the value fits in 64 bits and
 * `integerFromDecAddr# ["digits"#]` otherwise; such a binding has rhs->integer set to
 * the literal, so the code generator may instead emit a static, already evaluated
 * Integer object. A nullary constructor used as a value refers to its one shared static
 * closure, a top-level STG_CON binding named after the constructor (in the module of its
 * type); likewise a constructor application whose arguments are all literals or globals
 * (`I# 1#`, nested too) is one shared static closure `I#$uniq`, never allocated. An
 * Integer literal given to a strict field (Core counts a literal as evaluated) is
 * evaluated by a case first, so strict fields only ever hold values. `realWorld#` in argument
 * position becomes the literal 0# (World# is zero-width).
 *
 * All STG lives in the compiler arena (support.h). Public names: stg_ / Stg.
 */
#ifndef LZ_STG_H
#define LZ_STG_H

#include <stdio.h>

#include "../core-ir/core.h"

typedef struct StgVar StgVar;
typedef struct StgExpr StgExpr;
typedef struct StgRhs StgRhs;

/* ---- representations --------------------------------------------------------------- */

typedef enum {
  STG_P, /* pointer to a lifted heap object (may be an unevaluated thunk) */
  STG_I, /* unboxed word: Int#, Char#, Addr#, World#, MutVar# (never entered) */
  STG_D, /* unboxed Double# (travels in registers as its 64-bit pattern) */
} StgRep;

const char *stg_rep_name(StgRep r);     /* "P", "I", "D" */
StgRep stg_type_rep(const CoreType *t); /* foralls skipped; newtypes are P */
StgRep stg_lit_rep(const CoreLit *l);   /* CL_DOUBLE: D, CL_INTEGER: P, else I */
StgRep stg_con_field_rep(const CoreDataCon *c, int i);

/* ---- variables and atoms ------------------------------------------------------------ */

struct StgVar {
  Sym name; /* source-like name, for printing and messages */
  int uniq; /* unique in the program (the Core uniq for converted variables) */
  int id;   /* dense index 0..prog->nvars-1, for the back end's side tables */
  StgRep rep;
  bool global; /* bound at top level (a static closure) */
  Sym module;  /* global: defining module (NULL for Integer literals); globals are
                  unique by module and name: generated ones contain `$`, and a
                  name several Core globals share becomes name$uniq */
  bool lne;    /* bound by a let-no-escape */
  LzSpan span; /* binding site */
  StgRhs *rhs; /* the closure it is bound to (let and top-level binders); NULL for
                  parameters, case binders and pattern variables */
  int uses;    /* number of occurrences (set by stg_analyse_program) */
  void *aux;   /* free for later stages */
};

typedef enum { SA_VAR, SA_LIT } StgAtomKind;

typedef struct StgAtom {
  StgAtomKind kind;
  StgVar *var; /* SA_VAR */
  CoreLit lit; /* SA_LIT: CL_INT, CL_CHAR, CL_STRING (I) or CL_DOUBLE (D) */
} StgAtom;

StgRep stg_atom_rep(const StgAtom *a);

/* ---- closures ----------------------------------------------------------------------- */

typedef enum {
  STG_THUNK, /* \u: updatable thunk (a CAF at top level); not updated if LNE */
  STG_FUN,   /* \r: re-entrant function of `arity` >= 1 parameters */
  STG_CON,   /* a constructor application (static at top level) */
} StgRhsKind;

struct StgRhs {
  StgRhsKind kind;
  StgVar *var;  /* the binder */
  StgVar **fvs; /* free variables (see the invariants); none at top level */
  int nfvs;
  StgVar **params;   /* STG_FUN: `arity` parameters */
  int arity;         /* STG_FUN: >= 1; otherwise 0 */
  StgRep result_rep; /* STG_FUN: rep of a saturated call's result; STG_THUNK: P, or for
                        a nullary LNE the rep of the let; STG_CON: P */
  StgExpr *body;     /* STG_THUNK, STG_FUN */
  CoreDataCon *con;  /* STG_CON */
  StgAtom *args;     /* STG_CON: con->arity atoms */
  int nargs;
  bool lne;               /* let-no-escape (== var->lne) */
  const CoreLit *integer; /* top-level Integer literal CAF: the literal (else NULL) */
  LzSpan span;            /* source of the closure (for the source-location table) */
};

typedef struct StgBind {
  StgVar *var;
  StgRhs *rhs;
} StgBind;

/* ---- expressions -------------------------------------------------------------------- */

typedef enum {
  SE_ATOM,   /* a variable (entered if P: evaluated) or a literal, returned */
  SE_APP,    /* fn args: call or jump */
  SE_CON,    /* saturated constructor application: allocate (or a static nullary) */
  SE_PRIMOP, /* saturated primitive operation */
  SE_CASE,   /* case scrut of binder { alts } */
  SE_LET,    /* let [rec] binds in body (closures, or all let-no-escape) */
  SE_SCC,    /* scc<"name"> body */
} StgExprKind;

typedef enum {
  STG_CALL_UNKNOWN, /* generic apply: the callee's arity is not known */
  STG_CALL_KNOWN,   /* callee is a let-bound or top-level STG_FUN: fn->rhs->arity */
  STG_CALL_JUMP,    /* callee is a let-no-escape binding; exactly its arity */
} StgCallKind;

typedef enum { STG_ALTS_ALG, STG_ALTS_PRIM, STG_ALTS_POLY } StgAltsType;
typedef enum { STG_ALT_CON, STG_ALT_LIT, STG_ALT_DEFAULT } StgAltKind;

typedef struct StgAlt {
  StgAltKind kind;
  CoreDataCon *con; /* STG_ALT_CON */
  StgVar **vars;    /* STG_ALT_CON: con->arity pattern variables */
  CoreLit lit;      /* STG_ALT_LIT */
  StgExpr *rhs;
} StgAlt;

struct StgExpr {
  StgExprKind kind;
  StgRep rep;       /* rep of the value of this expression */
  LzSpan span;      /* source construct this came from (may be unknown) */
  StgAtom atom;     /* SE_ATOM */
  StgVar *fn;       /* SE_APP */
  StgCallKind call; /* SE_APP */
  StgAtom *args;    /* SE_APP, SE_CON, SE_PRIMOP */
  int nargs;
  CoreDataCon *con;      /* SE_CON */
  int primop;            /* SE_PRIMOP: CorePrimOp */
  StgExpr *scrut;        /* SE_CASE */
  StgVar *binder;        /* SE_CASE (same rep as the scrutinee: `rep` of scrut) */
  StgAltsType alts_type; /* SE_CASE */
  CoreTyCon *tycon;      /* SE_CASE with STG_ALTS_ALG */
  StgAlt *alts;          /* SE_CASE: DEFAULT, if any, last */
  int nalts;
  bool rec;       /* SE_LET */
  bool lne;       /* SE_LET: all bindings are let-no-escape */
  StgBind *binds; /* SE_LET */
  int nbinds;
  StgExpr *body;  /* SE_LET, SE_SCC */
  Sym scc;        /* SE_SCC: cost-centre name */
  Sym scc_module; /* SE_SCC: module of the cost centre */
};

/* ---- programs ------------------------------------------------------------------------ */

/* The reps of a primop's parameters and result, from the type its foreign import
 * declares (CoreProgram.primop_types); `known` is false when the program does not
 * declare the primop (then only its arity is checked). */
typedef struct StgPrimSig {
  bool known;
  int arity;
  StgRep args[8];
  StgRep result;
} StgPrimSig;

typedef struct StgProgram {
  LZ_VEC(StgBind) binds;      /* top-level bindings (static closures and CAFs) */
  LZ_VEC(CoreTyCon *) tycons; /* the Core program's types (constructor info) */
  StgVar *main;               /* Main.main (a P value of type IO ()) */
  int nvars;                  /* number of StgVars (ids 0..nvars-1) */
  StgPrimSig prim_sigs[PRIMOP_COUNT];
} StgProgram;

/* ---- conversion and analyses ---------------------------------------------------------- */

/* Convert a (linted) Core program to STG and analyse it (stg_analyse_program). Returns
 * NULL when errors were reported through lz_error (e.g. an expression nested too deeply
 * or an unsupported construct). */
StgProgram *stg_from_core(const CoreProgram *core);

/* (Re)compute what the STG invariants derive from the code: let-no-escape bindings
 * (marking binders and lets, splitting let rec groups into closures and LNEs, turning
 * tail occurrences into jumps), call kinds, free-variable lists and use counts.
 * Idempotent; a later STG-to-STG pass calls it again after changing the code. */
void stg_analyse_program(StgProgram *p);

/* Constructors for STG-to-STG passes and tests (arena-allocated, ids from p). */
StgVar *stg_var_new(StgProgram *p, Sym name, int uniq, StgRep rep, LzSpan span);
StgExpr *stg_expr_new(StgExprKind kind, StgRep rep, LzSpan span);
StgAtom stg_atom_var(StgVar *v);
StgAtom stg_atom_lit(CoreLit lit);

/* ---- printer and linter ------------------------------------------------------------------- */

/* GHC -ddump-stg-like text; see Note [STG printer] in stg_print.c for the notation. */
void stg_print_program(FILE *out, const StgProgram *p);
void stg_print_expr(FILE *out, const StgExpr *e);
char *stg_expr_to_string(const StgExpr *e); /* whole expression, one line */
char *stg_var_to_string(const StgVar *v);   /* x_12 for a local, M.f for a global */

/* Checks every invariant above; reports each violation as
 * "stg lint (after PASS): in binding ‘f’: ..." and returns the number of violations. */
int stg_lint_program(const StgProgram *p, const char *after_pass);
void stg_set_lint_stream(FILE *f); /* where lint reports go; NULL = stderr */

/* Deepest expression nesting conversion, printer and linter descend into. They recurse
 * once per level, with up to about 2 KB of C stack per level (more under
 * AddressSanitizer): call them on a big stack, as lzc does (512 MB). */
#if defined(__SANITIZE_ADDRESS__)
#define STG_MAX_DEPTH 5000
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STG_MAX_DEPTH 5000
#endif
#endif
#ifndef STG_MAX_DEPTH
#define STG_MAX_DEPTH 20000
#endif

#endif
