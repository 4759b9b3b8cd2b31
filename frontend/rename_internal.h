/* rename_internal.h — the renamer's shared state, private to frontend/rename*.c.
 *
 * The renamer works in three stages (see rename_modules.c):
 *   1. load: parse every module reachable from Main by imports (DFS, cycles reported),
 *      run deriving on it, and enter its own top-level declarations in its "own"
 *      tables (rename_top.c); original-name lookups only need these tables;
 *   2. scope: per module, in dependency order, add the imported entities to its
 *      top-level environment (rename_imports.c);
 *   3. rename: resolve every identifier of the module's declarations (rename_decl.c,
 *      rename_expr.c), using local scopes on top of the top-level environment; then
 *      compute the module's exports (rename_imports.c), which its importers need.
 *
 * Top-level environments map a key to the list of entities (RnGre, as GHC's
 * GlobalRdrElt) it may refer to: the key is the occurrence name for unqualified
 * visibility and "Q occ" (qualifier, space, name) for qualified visibility. More than
 * one distinct entity under a key is an ambiguity, reported at the use site only.
 * Local scopes are one hash table per namespace with shadow chains and an undo log,
 * so entering and leaving a scope is cheap and lookups are O(1) however deep the
 * nesting. */
#ifndef LZ_FRONTEND_RENAME_INTERNAL_H
#define LZ_FRONTEND_RENAME_INTERNAL_H

#include "passes.h"

/* ---- a pointer-keyed hash map in the arena ------------------------------------- */

typedef struct RnMap {
  const void **keys;
  void **vals;
  int cap, len;
} RnMap;

void *fe_rn_get(const RnMap *m, const void *key);
void fe_rn_put(RnMap *m, const void *key, void *val);

/* ---- modules and their top-level environments ------------------------------------ */

/* One way an entity is in scope at the top level of a module. */
typedef struct RnGre {
  FeName *name;
  const FeImport *imp; /* NULL: defined in this module */
  Sym imp_mod;         /* the imported module (imp != NULL) */
  struct RnGre *next;
} RnGre;

/* A qualifier in scope (a module's own name, or an import's module name or alias). */
typedef struct RnAlias {
  Sym alias;
  LZ_VEC(Sym) modules;    /* the modules imported under this qualifier */
  LZ_VEC(FeName *) names; /* entities in scope as alias.occ */
} RnAlias;

typedef enum {
  RN_LOADING, /* parsed, own tables filled, imports being loaded (on the DFS stack) */
  RN_LOADED,  /* its imports are loaded; waiting to be renamed */
  RN_RENAMING,
  RN_DONE,   /* renamed, appended to the program */
  RN_FAILED, /* not found or did not parse */
} RnState;

typedef struct RnModule {
  Sym name;
  FeModule *m;
  RnState state;
  /* own top-level entities: occurrence name -> FeName */
  RnMap own_vals, own_types;
  LZ_VEC(FeName *) owned;         /* in declaration order (exports without a list) */
  LZ_VEC(FeImport *) imports;     /* the module's imports plus the implicit Prelude */
  LZ_VEC(struct RnModule *) deps; /* the imported modules, parallel to imports */
  /* the top-level environment: "occ" / "Q occ" -> RnGre list */
  RnMap vals, types;
  RnMap aliases; /* qualifier -> RnAlias */
  RnMap inscope; /* FeName -> itself, for every entity in scope */
  /* exports: occurrence name -> FeName */
  RnMap exp_vals, exp_types;
} RnModule;

typedef struct Rn {
  const FeOptions *opts;
  const char *main_dir;
  RnMap modules;            /* module name -> RnModule */
  LZ_VEC(RnModule *) stack; /* the import chain being loaded (cycle messages) */
  LZ_VEC(RnModule *) order; /* loaded modules in dependency order */
  FeProgram *out;
  bool prelude_loaded;
} Rn;

/* Load a module by name for an original-name reference (Note [Original names]):
 * returns it if it is already loaded (even if still on the stack), else loads and
 * renames it and its imports first. NULL if it cannot be found. */
RnModule *fe_rn_module_for_orig(Rn *rn, Sym name);

/* ---- renaming context of one module ----------------------------------------------- */

typedef struct RnLocal {
  FeName *name;
  struct RnLocal *prev; /* the binding it shadows */
} RnLocal;

typedef struct RnCtx {
  Rn *rn;
  RnModule *mod;
  RnMap vals; /* local values: occ -> RnLocal */
  LZ_VEC(Sym) vundo;
  RnMap tvs; /* type variables: occ -> RnLocal */
  LZ_VEC(Sym) tundo;
  bool implicit_tvs; /* an unknown type variable is bound (signatures) */
  int depth;         /* recursion depth guard */
} RnCtx;

/* Nesting deeper than this is reported instead of recursed into. */
#define RN_MAX_DEPTH 2000

/* local scopes (rename_env.c) */
int fe_rn_mark(RnCtx *c);
void fe_rn_bind(RnCtx *c, FeName *n);
void fe_rn_pop(RnCtx *c, int mark);
int fe_rn_tv_mark(RnCtx *c);
void fe_rn_tv_bind(RnCtx *c, FeName *n);
void fe_rn_tv_pop(RnCtx *c, int mark);
FeName *fe_rn_tv_lookup(RnCtx *c, Sym occ);

/* Resolve an identifier (sets id->ref; reports and sets a placeholder on failure).
 * lookup_value: a variable or (when the name is a constructor) a data constructor.
 * lookup_type: a type constructor, a class, or either (export and import items). */
typedef enum {
  RN_USE_EXPR,  /* "Variable not in scope: x", "Data constructor not in scope: C" */
  RN_USE_PAT,   /* "Not in scope: data constructor ‘C’" */
  RN_USE_OTHER, /* field labels, export items: "Not in scope: ‘x’" */
} RnUse;
void fe_rn_lookup_value(RnCtx *c, FeIdent *id, RnUse use);
typedef enum { RN_WANT_TYPE, RN_WANT_CLASS, RN_WANT_ANY } RnWant;
void fe_rn_lookup_type(RnCtx *c, FeIdent *id, RnWant want);
/* Lookup without reporting: the unique entity or NULL (ambiguous: first one). */
FeName *fe_rn_find(RnCtx *c, Sym qual, Sym occ, bool types);
/* "x", "(+)": how a name is printed in "Variable not in scope" messages */
const char *fe_rn_pretty_var(Sym occ);
bool fe_rn_is_con_name(Sym occ);
bool fe_rn_is_sym_name(Sym occ);
/* Special syntax: [] () (,..) : -> ; NULL if `occ` is not one. */
FeName *fe_rn_builtin_value(Sym occ, LzSpan at);
FeName *fe_rn_builtin_type(Sym occ, LzSpan at);
/* A fresh placeholder for something that did not resolve (no cascade). */
FeName *fe_rn_placeholder(FeNameKind kind, Sym occ, LzSpan at);
/* "Multiple declarations"/"Conflicting definitions" style message helper. */
void fe_rn_conflict(LzSpan first, LzSpan second, Sym occ, const char *context);

/* ---- the stages ---- */

/* Stage 1 (rename_top.c): enter the module's own top-level entities, attach top-level
 * and class-level fixities, check signatures, set wired-in names. */
void fe_rn_define_top(Rn *rn, RnModule *mod);
/* Stage 2 (rename_imports.c). */
void fe_rn_process_imports(Rn *rn, RnModule *mod);
void fe_rn_compute_exports(Rn *rn, RnModule *mod);
void fe_rn_add_gre(RnModule *mod, RnMap *env, Sym key, FeName *n, const FeImport *imp, Sym imp_mod);
RnAlias *fe_rn_alias(RnModule *mod, Sym alias);
Sym fe_rn_qual_key(Sym qual, Sym occ);
/* Stage 3 (rename_decl.c). */
void fe_rn_module_body(RnCtx *c);

/* declarations, types (rename_decl.c) */
void fe_rn_type(RnCtx *c, FeType *t);
void fe_rn_qualtype(RnCtx *c, FeQualType *q, bool implicit);
void fe_rn_pred(RnCtx *c, FePred *p);
/* A local binding group (let, where, do/guard let): binders, fixities, signatures,
 * then the bodies. The binders stay in scope (caller pops). */
void fe_rn_local_group(RnCtx *c, FeDecl **decls, int n);
/* The equations of a function (top-level, local, method). */
void fe_rn_matches(RnCtx *c, FeDecl *d);

/* expressions and patterns (rename_expr.c) */
FeExpr *fe_rn_expr(RnCtx *c, FeExpr *e);
void fe_rn_rhs(RnCtx *c, FeRhs *r);
/* Binders of patterns: each P_VAR / P_AS gets a fresh FeName (top-level ones when
 * `top`), appended to `out`; conflicts are reported with `context`. */
typedef LZ_VEC(FeName *) RnNames;
void fe_rn_pat_binders(RnCtx *c, FePat *p, RnNames *out, bool top, Sym module);
void fe_rn_check_conflicts(RnNames *names, const char *context);
/* Resolve constructors/fields/operators of a pattern whose binders are created;
 * returns the pattern with parentheses removed and operators resolved. */
FePat *fe_rn_pat(RnCtx *c, FePat *p);
/* Statements in order, each binder scoping over the rest; caller pops. */
void fe_rn_stmts(RnCtx *c, FeStmt **stmts, int n);

#endif
