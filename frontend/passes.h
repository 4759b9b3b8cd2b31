/* passes.h — how the front end's passes meet (internal to frontend/).
 *
 *   fe_parse_module      syntax:   bytes -> AST (parser.c, lexer.re, layout.c)
 *   fe_rename_program    renamer:  main file -> all modules loaded, parsed, derived,
 *                                  renamed, in dependency order (rename*.c)
 *   fe_derive_module     deriving: deriving clauses -> generated instance declarations
 *                                  (derive.c); called by the renamer on each parsed
 *                                  module before renaming it
 *   fe_desugar_program   desugar:  renamed AST -> kernel (desugar*.c, match.c)
 *   fe_typecheck_program types:    kernel -> typed Core (typecheck*.c)
 *
 * Each pass reports problems with lz_error and returns NULL/false when it found any.
 * See docs/notes/frontend-pipeline.md.
 */
#ifndef LZ_FRONTEND_PASSES_H
#define LZ_FRONTEND_PASSES_H

#include "frontend.h"
#include "kernel.h"

/* ---- syntax ---- */

/* Parse one module. Returns NULL after reporting a parse error (the parser stops at the
 * first error, as GHC does). Never crashes or hangs on any input bytes. */
FeModule *fe_parse_module(LzSource *src);

/* Re-associate an E_OPSEQ / P_OPSEQ whose operator identifiers are already resolved
 * (FeIdent.ref set; fixity read from the FeName). Reports fixity errors (e.g. mixing
 * non-associative operators of equal precedence) and returns the resolved tree. */
FeExpr *fe_fixity_resolve_expr(FeExpr *opseq);
FePat *fe_fixity_resolve_pat(FePat *opseq);

/* ---- wired-in names (wired.def) ---- */

typedef enum {
  W_TYPE,
  W_CON,
  W_CLASS,
  W_VALUE,
} FeWiredKind;

typedef enum {
  WIRED_NONE = 0,
#define WIRED(id, module, occ, kind) id,
#include "wired.def"
#undef WIRED
  WIRED_COUNT
} FeWiredId;

typedef struct FeWiredInfo {
  const char *module, *occ;
  FeWiredKind kind;
} FeWiredInfo;
extern const FeWiredInfo fe_wired_info[WIRED_COUNT];
/* Filled by the renamer when it loads the defining modules; NULL until then. */
extern FeName *fe_wired[WIRED_COUNT];

/* Built-in syntax entities, created by the renamer (module NULL, top = true):
 * the list type and its constructors, unit, tuples (2..7 and beyond), the arrow. */
FeName *fe_builtin_list_tycon(void);
FeName *fe_builtin_nil(void);
FeName *fe_builtin_cons(void);
FeName *fe_builtin_unit_tycon(void);
FeName *fe_builtin_unit(void);
FeName *fe_builtin_tuple_tycon(int n);
FeName *fe_builtin_tuple_con(int n);
FeName *fe_builtin_arrow(void);
/* Forget the built-in entities and fe_wired[] (they live in the arena): called by
 * fe_rename_program at the start of every compilation. */
void fe_builtin_reset(void);

/* ---- renamer ---- */

typedef struct FeProgram {
  LZ_VEC(FeModule *) modules; /* imports before importers; the main module last */
  FeModule *main;
} FeProgram;

bool fe_rename_program(const char *main_path, const char *main_text, size_t main_len,
                       const FeOptions *opts, FeProgram *out);

/* ---- deriving ---- */

/* Append to m->decls one generated D_INSTANCE (generated = true) per class in each
 * data/newtype deriving clause; uses only original-name identifiers for library
 * entities. Reports underivable classes ("Can't make a derived instance of ...").*/
void fe_derive_module(FeModule *m);

/* ---- desugarer ---- */

KProgram *fe_desugar_program(FeProgram *p, const FeOptions *opts);

/* ---- type checker ---- */

CoreProgram *fe_typecheck_program(KProgram *k, const FeOptions *opts);

#endif
