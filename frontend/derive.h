/* derive.h — internals shared by the deriving files (derive*.c); not a public header.
 *
 * derive.c walks the module, checks each deriving clause, builds the instance head
 * and context and calls one generator per class: Eq and Ord (derive_eqord.c), Show
 * (derive_show.c), Enum and Bounded (derive_enum.c). The generators build ordinary
 * parsed-form AST with the small constructors below, which give every node the span
 * of the class name in the deriving clause, so that type errors in generated code
 * (say, no Show instance for a field) point at the deriving clause, as in GHC.
 *
 * Naming (see Note [Original names] in docs/notes/frontend-pipeline.md): library
 * entities are original names (fe_dv_lib), the data type's own constructors are
 * original names in the defining module (fe_dv_ucon), and the local variables the
 * generated code binds (a, b, a1, b1, ...) are plain identifiers. Since every
 * reference to something non-local is an original name, no local variable can
 * capture it and no user import can hide or shadow it.
 */
#ifndef LZ_FRONTEND_DERIVE_H
#define LZ_FRONTEND_DERIVE_H

#include "ast.h"

/* What a generator works on: one class of one deriving clause. */
typedef struct FeDvCtx {
  FeModule *m;
  Sym module;   /* the defining module's full name ("Main", "Data.Foo") */
  FeDecl *data; /* the D_DATA / D_NEWTYPE */
  LzSpan span;  /* the class name in the deriving clause */
  FeDecl *inst; /* the D_INSTANCE being built: generators append to inst->body */
} FeDvCtx;

/* The library module that defines a class, method, function or constructor used by
 * generated code. */
Sym fe_dv_lib_module(const char *occ);

/* ---- identifiers ---- */
FeIdent fe_dv_lib(FeDvCtx *c, const char *occ);          /* Lz.Base.occ */
FeIdent fe_dv_ucon_id(FeDvCtx *c, const FeConDecl *con); /* Module.C */
FeIdent fe_dv_local_id(FeDvCtx *c, const char *name);    /* x */
const char *fe_dv_numbered(const char *prefix, int i);   /* "a" 1 -> "a1" */

/* ---- expressions ---- */
FeExpr *fe_dv_var(FeDvCtx *c, const char *occ);                        /* library value */
FeExpr *fe_dv_con(FeDvCtx *c, const char *occ);                        /* library constructor */
FeExpr *fe_dv_ucon(FeDvCtx *c, const FeConDecl *con);                  /* the type's constructor */
FeExpr *fe_dv_lvar(FeDvCtx *c, const char *name);                      /* local variable */
FeExpr *fe_dv_app(FeDvCtx *c, FeExpr *fn, int n, ...);                 /* fn e1 .. en */
FeExpr *fe_dv_app2(FeDvCtx *c, const char *occ, FeExpr *x, FeExpr *y); /* lib fn x y */
FeExpr *fe_dv_int(FeDvCtx *c, int64_t v);                              /* overloaded literal */
FeExpr *fe_dv_str(FeDvCtx *c, const char *s);                          /* string literal */
FeExpr *fe_dv_if(FeDvCtx *c, FeExpr *cond, FeExpr *then, FeExpr *els);
FeExpr *fe_dv_case(FeDvCtx *c, FeExpr *scrut);
void fe_dv_alt(FeDvCtx *c, FeExpr *kase, FePat *pat, FeExpr *rhs);
/* Fold the n >= 1 expressions with the library operator `occ`, which must be
 * associative in value and strictness (&&, .): nested to the right like GHC's for a
 * few operands, balanced for many, so the generated code stays shallow even for
 * constructors with very many fields. */
FeExpr *fe_dv_fold(FeDvCtx *c, const char *occ, FeExpr **es, int n);

/* ---- patterns ---- */
FePat *fe_dv_pvar(FeDvCtx *c, const char *name);
FePat *fe_dv_pwild(FeDvCtx *c);
/* C prefix1 .. prefixN (prefix NULL: C _ .. _) */
FePat *fe_dv_pcon(FeDvCtx *c, const FeConDecl *con, const char *prefix);
FePat *fe_dv_plib_con(FeDvCtx *c, const char *occ); /* nullary library con */

/* ---- types ---- */
FeType *fe_dv_head_type(FeDvCtx *c);                 /* T a b */
FeType *fe_dv_lib_type(FeDvCtx *c, const char *occ); /* Lz.Base.Int */
FeType *fe_dv_fun_type(FeDvCtx *c, FeType *arg, FeType *res);

/* ---- declarations ---- */
/* A method binding in the instance: appended to c->inst->body. */
FeDecl *fe_dv_method(FeDvCtx *c, const char *occ);
/* An equation of a function binding, with n patterns. */
FeMatch *fe_dv_match(FeDvCtx *c, FeDecl *fun, FeExpr *rhs, int n, ...);
/* A local function binding (name) with a type signature, appended to `where`. */
FeDecl *fe_dv_local_fun(FeDvCtx *c, FeRhs *where_of, const char *name, FeType *sig);

/* ---- facts about the data type ---- */
int fe_dv_ncons(FeDvCtx *c);
FeConDecl *fe_dv_con_at(FeDvCtx *c, int i);
bool fe_dv_is_enumeration(FeDvCtx *c); /* >= 1 constructor, all nullary */
bool fe_dv_is_symbolic(Sym name);      /* operator-like: ":+", "+++" */
/* Local helper `name :: T a .. -> Int` mapping each constructor to its index,
 * added to the where-clause of `where_of`. */
void fe_dv_add_con2tag(FeDvCtx *c, FeRhs *where_of, const char *name);

/* ---- generators ---- */
void fe_derive_eq(FeDvCtx *c);
void fe_derive_ord(FeDvCtx *c);
void fe_derive_show(FeDvCtx *c);
void fe_derive_enum(FeDvCtx *c);
void fe_derive_bounded(FeDvCtx *c);

#endif
