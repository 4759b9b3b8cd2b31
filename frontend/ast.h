/* ast.h — the abstract syntax tree of an Lz module, from the parser to the desugarer.
 *
 * One tree serves three passes: the parser builds it (identifiers unresolved,
 * operator sequences unresolved), the renamer resolves every identifier to an
 * FeName and re-associates operator sequences by fixity, and the desugarer reads
 * the renamed tree to produce the kernel language (kernel.h). Nodes carry source
 * spans for diagnostics. All nodes live in the compiler arena (support.h).
 *
 * Invariants
 *  - After parsing: E_OPSEQ/P_OPSEQ may occur; FeIdent.ref is NULL except for
 *    identifiers created with fe_ident_orig (original names, see below).
 *  - After renaming: no E_OPSEQ/P_OPSEQ/E_PAREN/P_PAREN remain; every FeIdent that
 *    names something has ref != NULL; every binder has a fresh FeName.
 */
#ifndef LZ_FRONTEND_AST_H
#define LZ_FRONTEND_AST_H

#include "../support/support.h"

typedef struct FeName FeName;
typedef struct FeExpr FeExpr;
typedef struct FePat FePat;
typedef struct FeType FeType;
typedef struct FeDecl FeDecl;
typedef struct FeRhs FeRhs;
typedef struct FeStmt FeStmt;
typedef struct FeModule FeModule;

/* ---- names -------------------------------------------------------------------- */

typedef enum {
  N_VAR,    /* a value: variable, class method, field selector, foreign import */
  N_CON,    /* a data constructor (including [] : () and tuple constructors) */
  N_TYCON,  /* a type constructor: data, newtype, synonym, primitive, [] () (,) ... */
  N_TYVAR,  /* a type variable */
  N_CLASS,  /* a type class */
  N_MODULE, /* a module (for qualified names in messages) */
} FeNameKind;

typedef enum { ASSOC_LEFT, ASSOC_RIGHT, ASSOC_NONE } FeAssoc;

/* A resolved entity. Exactly one FeName exists per entity; identifiers point to it. */
struct FeName {
  FeNameKind kind;
  Sym occ;    /* the name as written at the definition: "map", ":", "Maybe", "+" */
  Sym module; /* defining module ("Prelude", "Main"); NULL for local names */
  int uniq;   /* unique within the compilation, > 0 */
  LzSpan def; /* definition site */
  bool top;   /* top-level (global) entity */
  bool is_op; /* occ is symbolic (an operator) */
  /* fixity; defaults to infixl 9 */
  bool has_fixity;
  FeAssoc assoc;
  int prec;
  FeDecl *decl;   /* defining declaration: data/newtype/type/class/instance/foreign/bind */
  FeName *parent; /* constructor -> its type; method -> its class; field -> its type */
  int wired;      /* WIRED_* id from wired.def, or 0 */
  void *tc;       /* owned by the type checker (schemes, class info, ...) */
  void *ds;       /* owned by the desugarer */
};

/* An identifier as written, possibly qualified (qual = "M" in M.x). */
typedef struct FeIdent {
  Sym qual; /* module qualifier as written, or NULL */
  Sym name; /* unqualified name: "x", "+", "Just", "[]", "()", "(,,)", "->" */
  LzSpan span;
  FeName *ref; /* resolved entity (renamer), or NULL */
  /* An *original name*: resolve `name` in the top level of module `orig_module`
   * regardless of what is in scope (used by deriving and other generated code). */
  Sym orig_module;
} FeIdent;

/* ---- literals -------------------------------------------------------------------- */

typedef enum {
  L_INT,         /* 42, 0x2A: overloaded (fromInteger) */
  L_FRAC,        /* 1.5, 1e-3: overloaded (fromRational) */
  L_CHAR,        /* 'c' */
  L_STRING,      /* "abc" */
  L_PRIM_INT,    /* 42#   (Int#, MagicHash) */
  L_PRIM_DOUBLE, /* 1.5## (Double#) */
  L_PRIM_CHAR,   /* 'c'#  (Char#) */
  L_PRIM_STRING, /* "abc"# (Addr#) */
} FeLitKind;

typedef struct FeLit {
  FeLitKind kind;
  /* L_INT, L_PRIM_INT: decimal digits of the magnitude (arbitrary size), and the
   * value when it fits in int64 (fits = true). Negative literals only arise in
   * patterns (negated by the parser/renamer), marked by negative = true. */
  const char *digits;
  int64_t i;
  bool fits;
  bool negative;
  /* L_FRAC, L_PRIM_DOUBLE: value = mantissa (decimal digits, no dot) * 10^exp10,
   * and d is the nearest double. */
  const char *mantissa;
  int exp10;
  double d;
  /* L_CHAR, L_PRIM_CHAR: the code point */
  uint32_t ch;
  /* L_STRING, L_PRIM_STRING: UTF-8 bytes (may contain NUL), length len */
  const char *str;
  size_t len;
} FeLit;

/* ---- types (syntax) --------------------------------------------------------------- */

typedef enum {
  TY_VAR, /* a */
  TY_CON, /* Int, Maybe, M.T, and the special constructors "[]" "()" "(,)" "->" */
  TY_APP, /* t1 t2 ([t] is TY_APP(TY_CON "[]", t); (a,b) is (,) a b) */
  TY_FUN, /* t1 -> t2 */
} FeTypeKind;

struct FeType {
  FeTypeKind kind;
  LzSpan span;
  FeIdent id;           /* TY_VAR, TY_CON */
  FeType *left, *right; /* TY_APP (fn, arg), TY_FUN (arg, result) */
};

/* A class constraint C t (t is a type variable, or a type variable applied to types). */
typedef struct FePred {
  FeIdent cls;
  FeType *type;
  LzSpan span;
} FePred;

/* ctx => type */
typedef struct FeQualType {
  LZ_VEC(FePred) ctx;
  FeType *type;
  LzSpan span;
} FeQualType;

/* ---- patterns ------------------------------------------------------------------- */

typedef enum {
  P_VAR,   /* x (binder: id.ref is the fresh local FeName after renaming) */
  P_WILD,  /* _ */
  P_LIT,   /* 3, -3, 'c', "str", 2.5 (lit.negative for negative numbers) */
  P_CON,   /* C p1 .. pn; also [] () and infix x:xs (after fixity resolution) */
  P_TUPLE, /* (p1, ..., pn), n >= 2 */
  P_LIST,  /* [p1, ..., pn] */
  P_AS,    /* x@p */
  P_LAZY,  /* ~p */
  P_BANG,  /* !p */
  P_REC,   /* C { f = p, ... } (fields may be empty: C {}) */
  P_OPSEQ, /* unresolved infix pattern: items alternate operand, operator (P_CON op) */
  P_PAREN, /* (p): removed by the renamer */
} FePatKind;

typedef struct FeFieldPat {
  FeIdent field;
  FePat *pat;
} FeFieldPat;

struct FePat {
  FePatKind kind;
  LzSpan span;
  FeIdent id;                /* P_VAR, P_AS (the variable), P_CON, P_REC (constructor) */
  FeLit lit;                 /* P_LIT */
  LZ_VEC(FePat *) args;      /* P_CON args, P_TUPLE/P_LIST elements, P_OPSEQ items */
  FePat *sub;                /* P_AS, P_LAZY, P_BANG, P_PAREN */
  LZ_VEC(FeFieldPat) fields; /* P_REC */
  bool is_op;                /* P_CON used as the operator of a P_OPSEQ */
  bool is_neg;               /* in P_OPSEQ: a prefix minus before a literal */
};

/* ---- expressions ----------------------------------------------------------------- */

typedef enum {
  E_VAR, /* x, M.x, (+), (M.+) */
  E_CON, /* C, M.C, (:), [], (), (,,) */
  E_LIT,
  E_APP,   /* fn applied to args (n >= 1) */
  E_OPSEQ, /* unresolved: items are operands and operators (is_op) and prefix minus */
  E_NEG,   /* - e (prefix negation), after fixity resolution */
  E_LAM,   /* \p1 ... pn -> body */
  E_LET,   /* let decls in body */
  E_IF,
  E_CASE,
  E_DO,
  E_TUPLE,    /* (e1, ..., en), n >= 2 */
  E_LIST,     /* [e1, ..., en] */
  E_ARITH,    /* [from ..], [from, then ..], [from .. to], [from, then .. to] */
  E_COMP,     /* [body | stmts] */
  E_LSECTION, /* (e op): op applied to e */
  E_RSECTION, /* (op e): \x -> x op e ; (- e) is negation, never a section */
  E_TYPED,    /* e :: sig */
  E_RECCON,   /* C { f = e, ... } */
  E_RECUPD,   /* e { f = e, ... } */
  E_SCC,      /* {-# SCC "name" #-} e */
  E_PAREN,    /* (e): kept until fixity resolution, removed by the renamer */
} FeExprKind;

typedef struct FeFieldBind {
  FeIdent field;
  FeExpr *e;
} FeFieldBind;

typedef struct FeAlt {
  FePat *pat;
  FeRhs *rhs;
  LzSpan span;
} FeAlt;

struct FeExpr {
  FeExprKind kind;
  LzSpan span;
  FeIdent id;                 /* E_VAR, E_CON, E_LSECTION/E_RSECTION (operator), E_RECCON (con) */
  FeLit lit;                  /* E_LIT */
  FeExpr *fn;                 /* E_APP */
  LZ_VEC(FeExpr *) args;      /* E_APP args; E_TUPLE/E_LIST elements; E_OPSEQ items */
  FeExpr *e1, *e2, *e3;       /* E_IF (cond, then, else); E_NEG/E_PAREN/E_TYPED/E_SCC/
                                 E_LSECTION/E_RSECTION/E_RECUPD/E_CASE (scrutinee) e1;
                                 E_LAM/E_LET body e1; E_COMP body e1;
                                 E_ARITH from e1, then e2 (or NULL), to e3 (or NULL) */
  LZ_VEC(FePat *) pats;       /* E_LAM */
  LZ_VEC(FeDecl *) decls;     /* E_LET */
  LZ_VEC(FeAlt) alts;         /* E_CASE */
  LZ_VEC(FeStmt *) stmts;     /* E_DO, E_COMP */
  FeQualType *sig;            /* E_TYPED */
  LZ_VEC(FeFieldBind) fields; /* E_RECCON, E_RECUPD */
  Sym scc;                    /* E_SCC: cost-centre name */
  bool is_op;                 /* E_VAR/E_CON as an operator in E_OPSEQ, or written infix
                                 (`f` or +) after resolution of an E_APP */
  bool is_neg;                /* E_OPSEQ item: prefix minus (an E_VAR "-" item) */
};

/* ---- statements (do, comprehensions, guards) ----------------------------------------- */

typedef enum {
  S_BIND, /* pat <- e */
  S_LET,  /* let decls */
  S_EXPR, /* e (a guard in comprehensions and guards) */
} FeStmtKind;

struct FeStmt {
  FeStmtKind kind;
  LzSpan span;
  FePat *pat;
  FeExpr *e;
  LZ_VEC(FeDecl *) decls;
};

/* ---- right-hand sides ------------------------------------------------------------ */

/* | quals = e   (Haskell 2010 pattern guards: quals are S_EXPR, S_BIND, S_LET) */
typedef struct FeGuarded {
  LZ_VEC(FeStmt *) quals;
  FeExpr *e;
  LzSpan span;
} FeGuarded;

/* `= e` or a list of guarded alternatives, and the attached where-declarations.
 * Used for function equations, pattern bindings and case alternatives
 * (where `->` plays the role of `=`). */
struct FeRhs {
  FeExpr *plain; /* NULL when guarded */
  LZ_VEC(FeGuarded) guards;
  LZ_VEC(FeDecl *) where;
  LzSpan span;
};

/* ---- declarations ------------------------------------------------------------------ */

typedef enum {
  D_SIG,      /* x, y :: qualtype */
  D_FIXITY,   /* infixl 6 +, - */
  D_FUN,      /* function binding: one or more equations f p1 .. pn = rhs (n >= 0;
                 a variable binding x = e is a D_FUN with one zero-argument match) */
  D_PAT,      /* pattern binding: (a, b) = e, also x@p = ... , ~p = ..., !x = ... */
  D_DATA,     /* data T a b = C1 .. | C2 .. deriving (...) */
  D_NEWTYPE,  /* newtype T a = C t deriving (...) */
  D_TYPE,     /* type T a b = t */
  D_CLASS,    /* class (S a) => C a where decls */
  D_INSTANCE, /* instance (ctx) => C (T a b) where decls */
  D_FOREIGN,  /* foreign import prim "entity" name :: type (stdlib only) */
  D_DEFAULT,  /* default (t1, ..., tn) */
} FeDeclKind;

typedef struct FeMatch {
  LZ_VEC(FePat *) pats;
  FeRhs *rhs;
  LzSpan span;
} FeMatch;

typedef struct FeField {
  FeIdent label; /* label.name == NULL for positional fields */
  FeType *type;
  bool strict; /* !t */
} FeField;

typedef struct FeConDecl {
  FeIdent name;
  LZ_VEC(FeField) fields;
  bool record; /* declared with { } */
  bool infix;  /* declared infix: a :+ b */
  LzSpan span;
} FeConDecl;

struct FeDecl {
  FeDeclKind kind;
  LzSpan span;
  FeIdent name;              /* D_FUN, D_DATA, D_NEWTYPE, D_TYPE, D_CLASS, D_FOREIGN;
                                D_INSTANCE: the class */
  LZ_VEC(FeIdent) names;     /* D_SIG, D_FIXITY */
  FeQualType *sig;           /* D_SIG, D_FOREIGN; D_CLASS/D_INSTANCE: context in sig->ctx,
                                D_INSTANCE head type in sig->type */
  FeAssoc assoc;             /* D_FIXITY */
  int prec;                  /* D_FIXITY */
  LZ_VEC(FeMatch *) matches; /* D_FUN */
  bool infix_def;            /* D_FUN defined infix: x <+> y = ... */
  FePat *pat;                /* D_PAT */
  FeRhs *rhs;                /* D_PAT */
  LZ_VEC(FeIdent) tyvars;    /* D_DATA, D_NEWTYPE, D_TYPE; D_CLASS: its one variable */
  LZ_VEC(FeConDecl *) cons;  /* D_DATA, D_NEWTYPE */
  LZ_VEC(FeIdent) deriving;  /* D_DATA, D_NEWTYPE */
  FeType *rhs_type;          /* D_TYPE */
  LZ_VEC(FeType *) types;    /* D_DEFAULT */
  LZ_VEC(FeDecl *) body;     /* D_CLASS, D_INSTANCE: sigs, fixities, method bindings */
  Sym callconv;              /* D_FOREIGN: "prim" */
  const char *entity;        /* D_FOREIGN: the primop name */
  bool generated;            /* made by deriving, not written by the user */
};

/* ---- modules ---------------------------------------------------------------------- */

typedef enum {
  IE_VAR,        /* x, (+) */
  IE_THING,      /* T or C (type or class, no subordinates) */
  IE_THING_ALL,  /* T(..) */
  IE_THING_WITH, /* T(C1, f, ...) */
  IE_MODULE,     /* module M (exports only) */
} FeIEKind;

typedef struct FeIE {
  FeIEKind kind;
  FeIdent name;
  LZ_VEC(FeIdent) subs;
  LzSpan span;
} FeIE;

typedef struct FeImport {
  FeIdent module; /* module name as written, e.g. Data.List */
  bool qualified;
  Sym as; /* NULL when no `as` */
  bool hiding;
  bool has_list; /* an import list (possibly empty) was given */
  LZ_VEC(FeIE) items;
  LzSpan span;
} FeImport;

struct FeModule {
  FeIdent name;     /* "Main" when the header is omitted */
  bool has_exports; /* an export list was given */
  LZ_VEC(FeIE) exports;
  LZ_VEC(FeImport) imports;
  LZ_VEC(FeDecl *) decls;
  LzSource *src;
  /* language pragmas seen at the top of the file */
  bool magic_hash, bang_patterns, no_implicit_prelude;
  /* filled by the renamer */
  LZ_VEC(FeName *) exported; /* the entities this module exports */
  void *rn;                  /* renamer's per-module environment */
};

/* ---- constructors (ast.c) ------------------------------------------------------------ */

FeIdent fe_ident(Sym qual, Sym name, LzSpan span);
FeIdent fe_ident_orig(Sym module, const char *name); /* original name, no span */
FeExpr *fe_expr_new(FeExprKind kind, LzSpan span);
FePat *fe_pat_new(FePatKind kind, LzSpan span);
FeType *fe_type_new(FeTypeKind kind, LzSpan span);
FeDecl *fe_decl_new(FeDeclKind kind, LzSpan span);
FeStmt *fe_stmt_new(FeStmtKind kind, LzSpan span);
FeRhs *fe_rhs_plain(FeExpr *e);
FeName *fe_name_new(FeNameKind kind, Sym occ, Sym module, LzSpan def);

/* Printer for debugging and tests: prints the tree back as Lz source, fully
 * parenthesised, with resolved names shown as Module.occ when ref is set. */
void fe_print_module(void *file /* FILE* */, const FeModule *m);
void fe_print_expr(void *file, const FeExpr *e);
void fe_print_pat(void *file, const FePat *p);
void fe_print_type(void *file, const FeType *t);
char *fe_expr_to_string(const FeExpr *e);
char *fe_type_to_string(const FeType *t);
char *fe_pat_to_string(const FePat *p);
char *fe_decl_to_string(const FeDecl *d);

#endif
