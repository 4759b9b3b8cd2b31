/* core_priv.h — what the files of core-ir/ share without making it public: the
 * printer entry points the linter uses to quote types and expressions in its reports,
 * and the type utilities of core_types.c. Not for use outside core-ir/ (the public
 * face is core.h). */
#ifndef LZ_CORE_PRIV_H
#define LZ_CORE_PRIV_H

#include "core.h"

/* Like core_type_to_string, but every type variable carries its unique (a_12), so two
 * types that print alike but differ can be told apart in a lint report. */
char *core_type_to_string_uniq(const CoreType *t);

/* The name a variable is printed under: x_12 for a local, M.f for a global (f in Main). */
char *core_var_to_string(const CoreVar *v);

/* ---- type utilities (core_types.c) ---- */

/* The type variables in scope, innermost last. */
typedef LZ_VEC(const CoreTyVar *) CoreTyScope;

bool core_kind_equal(const CoreKind *a, const CoreKind *b); /* NULL means * */
/* The kind of t, or NULL with *why set when t is ill-formed: a NULL node, a kind error,
 * or (when scope is not NULL) a free type variable that is not in scope. */
const CoreKind *core_type_kind(const CoreType *t, const CoreTyScope *scope, const char **why);
/* NULL if t is well formed and of kind `want` (NULL = *), else what is wrong with it. */
const char *core_type_problem(const CoreType *t, const CoreKind *want, const CoreTyScope *scope);
/* The head tycon of `T a1 .. an` (NULL if the head is not a tycon); its arguments go to
 * a fresh arena array *args (if args is not NULL). */
const CoreTyCon *core_type_split_con(const CoreType *t, CoreType ***args, int *nargs);
bool core_type_unlifted(const CoreType *t); /* headed by an unlifted primitive tycon */
/* Is `to` the representation type of the applied newtype `nt`? */
bool core_type_is_newtype_rep(const CoreType *nt, const CoreType *to);
/* One-way matching: can pat's variables vars[0..n) be instantiated (sub[], initially
 * NULL) so that pat equals t? */
bool core_type_match(const CoreType *pat, const CoreType *t, int n, CoreTyVar **vars,
                     CoreType **sub);

/* Deepest expression nesting the printer and linter descend into, so that they fit in
 * an 8 MB C stack; AddressSanitizer's frames are several times larger. */
#if defined(__SANITIZE_ADDRESS__)
#define CORE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORE_SANITIZED 1
#endif
#endif
#ifdef CORE_SANITIZED
#define CORE_MAX_DEPTH 4000
#else
#define CORE_MAX_DEPTH 10000
#endif

#endif
