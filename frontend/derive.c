/* derive.c — deriving clauses become ordinary instance declarations.
 *
 * For each `data`/`newtype` with a deriving clause, fe_derive_module appends to the
 * module one generated D_INSTANCE per class, written as parsed-form AST, which the
 * renamer, desugarer and type checker then treat like user code. The generated code
 * follows GHC 9.0.2's derived code (GHC.Tc.Deriv.Generate) closely enough that every
 * observable result — values, strictness, Show output, error messages — is the same;
 * the generators (derive_eqord.c, derive_show.c, derive_enum.c) say where they differ
 * in form. This file holds the driver (which classes may be derived for which types,
 * GHC's error messages otherwise), the instance head and context, and the small AST
 * constructors the generators share.
 *
 * Instance context: `C a` for each type parameter `a` that occurs in a field type
 * (a phantom parameter gets none; a parameter used only as the head of a type
 * application, `f Int`, gets none either and the type checker reports the missing
 * instance for the field, as GHC does).
 */
#include <stdarg.h>
#include <string.h>

#include "derive.h"

/* ---- where library entities live ---------------------------------------------- */

/* Every entity the generated code mentions, with its defining module. Keep in step
 * with the stdlib modules (stdlib/Lz); see Note [Original names]. */
static const struct {
  const char *occ, *module;
} lib_table[] = {
    /* classes and their methods */
    {"Eq", "Lz.Base"},
    {"==", "Lz.Base"},
    {"Ord", "Lz.Base"},
    {"compare", "Lz.Base"},
    {"<", "Lz.Base"},
    {"<=", "Lz.Base"},
    {">", "Lz.Base"},
    {">=", "Lz.Base"},
    {"Show", "Lz.Base"},
    {"showsPrec", "Lz.Base"},
    {"Enum", "Lz.Base"},
    {"succ", "Lz.Base"},
    {"pred", "Lz.Base"},
    {"toEnum", "Lz.Base"},
    {"fromEnum", "Lz.Base"},
    {"enumFrom", "Lz.Base"},
    {"enumFromThen", "Lz.Base"},
    {"enumFromTo", "Lz.Base"},
    {"enumFromThenTo", "Lz.Base"},
    {"Bounded", "Lz.Base"},
    {"minBound", "Lz.Base"},
    {"maxBound", "Lz.Base"},
    /* functions */
    {"&&", "Lz.Base"},
    {"not", "Lz.Base"},
    {".", "Lz.Base"},
    {"showParen", "Lz.Base"},
    {"showString", "Lz.Base"},
    {"showSpace", "Lz.Base"},
    {"showCommaSpace", "Lz.Base"},
    {"error", "Lz.Base"},
    {"++", "Lz.Base"},
    {"map", "Lz.Base"},
    {"+", "Lz.Base"},
    {"-", "Lz.Base"},
    /* types and constructors */
    {"Int", "Lz.Base"},
    {"True", "Lz.Base"},
    {"False", "Lz.Base"},
    {"LT", "Lz.Base"},
    {"EQ", "Lz.Base"},
    {"GT", "Lz.Base"},
};

Sym fe_dv_lib_module(const char *occ) {
  for (size_t i = 0; i < sizeof lib_table / sizeof lib_table[0]; i++)
    if (strcmp(lib_table[i].occ, occ) == 0) return lz_sym(lib_table[i].module);
  return lz_sym("Lz.Base");
}

/* ---- identifiers ----------------------------------------------------------------- */

FeIdent fe_dv_lib(FeDvCtx *c, const char *occ) {
  FeIdent id = fe_ident_orig(fe_dv_lib_module(occ), occ);
  id.span = c->span;
  return id;
}

FeIdent fe_dv_ucon_id(FeDvCtx *c, const FeConDecl *con) {
  FeIdent id = fe_ident_orig(c->module, con->name.name);
  id.span = c->span;
  return id;
}

FeIdent fe_dv_local_id(FeDvCtx *c, const char *name) {
  return fe_ident(NULL, lz_sym(name), c->span);
}

const char *fe_dv_numbered(const char *prefix, int i) { return lz_fmt("%s%d", prefix, i); }

/* ---- expressions ------------------------------------------------------------------ */

FeExpr *fe_dv_var(FeDvCtx *c, const char *occ) {
  FeExpr *e = fe_expr_new(E_VAR, c->span);
  e->id = fe_dv_lib(c, occ);
  return e;
}

FeExpr *fe_dv_con(FeDvCtx *c, const char *occ) {
  FeExpr *e = fe_expr_new(E_CON, c->span);
  e->id = fe_dv_lib(c, occ);
  return e;
}

FeExpr *fe_dv_ucon(FeDvCtx *c, const FeConDecl *con) {
  FeExpr *e = fe_expr_new(E_CON, c->span);
  e->id = fe_dv_ucon_id(c, con);
  return e;
}

FeExpr *fe_dv_lvar(FeDvCtx *c, const char *name) {
  FeExpr *e = fe_expr_new(E_VAR, c->span);
  e->id = fe_dv_local_id(c, name);
  return e;
}

FeExpr *fe_dv_app(FeDvCtx *c, FeExpr *fn, int n, ...) {
  FeExpr *e = fe_expr_new(E_APP, c->span);
  e->fn = fn;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    LZ_PUSH(e->args, va_arg(ap, FeExpr *));
  va_end(ap);
  return e;
}

FeExpr *fe_dv_app2(FeDvCtx *c, const char *occ, FeExpr *x, FeExpr *y) {
  return fe_dv_app(c, fe_dv_var(c, occ), 2, x, y);
}

static FeLit int_lit(int64_t v) {
  FeLit l;
  memset(&l, 0, sizeof l);
  l.kind = L_INT;
  l.digits = lz_fmt("%lld", (long long)v);
  l.i = v;
  l.fits = true;
  return l;
}

FeExpr *fe_dv_int(FeDvCtx *c, int64_t v) {
  /* only non-negative literals are generated */
  FeExpr *e = fe_expr_new(E_LIT, c->span);
  e->lit = int_lit(v < 0 ? -v : v);
  if (v >= 0) return e;
  FeExpr *neg = fe_expr_new(E_NEG, c->span);
  neg->e1 = e;
  return neg;
}

FeExpr *fe_dv_str(FeDvCtx *c, const char *s) {
  FeExpr *e = fe_expr_new(E_LIT, c->span);
  e->lit.kind = L_STRING;
  e->lit.str = lz_strdup(s);
  e->lit.len = strlen(s);
  return e;
}

FeExpr *fe_dv_if(FeDvCtx *c, FeExpr *cond, FeExpr *then, FeExpr *els) {
  FeExpr *e = fe_expr_new(E_IF, c->span);
  e->e1 = cond;
  e->e2 = then;
  e->e3 = els;
  return e;
}

FeExpr *fe_dv_case(FeDvCtx *c, FeExpr *scrut) {
  FeExpr *e = fe_expr_new(E_CASE, c->span);
  e->e1 = scrut;
  return e;
}

void fe_dv_alt(FeDvCtx *c, FeExpr *kase, FePat *pat, FeExpr *rhs) {
  FeAlt alt = {pat, fe_rhs_plain(rhs), c->span};
  LZ_PUSH(kase->alts, alt);
}

enum { FOLD_NESTED_MAX = 8 };

FeExpr *fe_dv_fold(FeDvCtx *c, const char *occ, FeExpr **es, int n) {
  if (n == 1) return es[0];
  /* short chains nest to the right like GHC's; long ones split in half */
  int left = n <= FOLD_NESTED_MAX ? 1 : n / 2;
  return fe_dv_app2(c, occ, fe_dv_fold(c, occ, es, left), fe_dv_fold(c, occ, es + left, n - left));
}

/* ---- patterns ------------------------------------------------------------------- */

FePat *fe_dv_pvar(FeDvCtx *c, const char *name) {
  FePat *p = fe_pat_new(P_VAR, c->span);
  p->id = fe_dv_local_id(c, name);
  return p;
}

FePat *fe_dv_pwild(FeDvCtx *c) { return fe_pat_new(P_WILD, c->span); }

FePat *fe_dv_pcon(FeDvCtx *c, const FeConDecl *con, const char *prefix) {
  FePat *p = fe_pat_new(P_CON, c->span);
  p->id = fe_dv_ucon_id(c, con);
  for (int i = 0; i < con->fields.len; i++)
    LZ_PUSH(p->args, prefix ? fe_dv_pvar(c, fe_dv_numbered(prefix, i + 1)) : fe_dv_pwild(c));
  return p;
}

FePat *fe_dv_plib_con(FeDvCtx *c, const char *occ) {
  FePat *p = fe_pat_new(P_CON, c->span);
  p->id = fe_dv_lib(c, occ);
  return p;
}

/* ---- types ---------------------------------------------------------------------- */

FeType *fe_dv_head_type(FeDvCtx *c) {
  FeType *t = fe_type_new(TY_CON, c->span);
  t->id = fe_ident_orig(c->module, c->data->name.name);
  t->id.span = c->span;
  for (int i = 0; i < c->data->tyvars.len; i++) {
    FeType *v = fe_type_new(TY_VAR, c->span);
    v->id = fe_ident(NULL, c->data->tyvars.data[i].name, c->span);
    FeType *app = fe_type_new(TY_APP, c->span);
    app->left = t;
    app->right = v;
    t = app;
  }
  return t;
}

FeType *fe_dv_lib_type(FeDvCtx *c, const char *occ) {
  FeType *t = fe_type_new(TY_CON, c->span);
  t->id = fe_dv_lib(c, occ);
  return t;
}

FeType *fe_dv_fun_type(FeDvCtx *c, FeType *arg, FeType *res) {
  FeType *t = fe_type_new(TY_FUN, c->span);
  t->left = arg;
  t->right = res;
  return t;
}

/* ---- declarations ------------------------------------------------------------------ */

FeDecl *fe_dv_method(FeDvCtx *c, const char *occ) {
  FeDecl *d = fe_decl_new(D_FUN, c->span);
  d->name = fe_dv_lib(c, occ);
  d->generated = true;
  LZ_PUSH(c->inst->body, d);
  return d;
}

FeMatch *fe_dv_match(FeDvCtx *c, FeDecl *fun, FeExpr *rhs, int n, ...) {
  FeMatch *m = LZ_NEW(FeMatch);
  m->span = c->span;
  m->rhs = fe_rhs_plain(rhs);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    LZ_PUSH(m->pats, va_arg(ap, FePat *));
  va_end(ap);
  LZ_PUSH(fun->matches, m);
  return m;
}

FeDecl *fe_dv_local_fun(FeDvCtx *c, FeRhs *where_of, const char *name, FeType *sig) {
  if (sig) {
    FeDecl *s = fe_decl_new(D_SIG, c->span);
    LZ_PUSH(s->names, fe_dv_local_id(c, name));
    s->sig = LZ_NEW(FeQualType);
    s->sig->type = sig;
    s->sig->span = c->span;
    s->generated = true;
    LZ_PUSH(where_of->where, s);
  }
  FeDecl *f = fe_decl_new(D_FUN, c->span);
  f->name = fe_dv_local_id(c, name);
  f->generated = true;
  LZ_PUSH(where_of->where, f);
  return f;
}

/* ---- facts about the data type ------------------------------------------------------ */

int fe_dv_ncons(FeDvCtx *c) { return c->data->cons.len; }
FeConDecl *fe_dv_con_at(FeDvCtx *c, int i) { return c->data->cons.data[i]; }

bool fe_dv_is_enumeration(FeDvCtx *c) {
  if (fe_dv_ncons(c) == 0) return false;
  for (int i = 0; i < fe_dv_ncons(c); i++)
    if (fe_dv_con_at(c, i)->fields.len != 0) return false;
  return true;
}

bool fe_dv_is_symbolic(Sym name) {
  unsigned char ch = name ? (unsigned char)name[0] : 'x';
  return !(ch == '_' || ch >= 0x80 || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'));
}

/* name :: T a .. -> Int;  name x = case x of { C0 _ .. -> 0; C1 _ .. -> 1; ... } */
void fe_dv_add_con2tag(FeDvCtx *c, FeRhs *where_of, const char *name) {
  FeDecl *f = fe_dv_local_fun(c, where_of, name,
                              fe_dv_fun_type(c, fe_dv_head_type(c), fe_dv_lib_type(c, "Int")));
  FeExpr *kase = fe_dv_case(c, fe_dv_lvar(c, "x"));
  for (int i = 0; i < fe_dv_ncons(c); i++)
    fe_dv_alt(c, kase, fe_dv_pcon(c, fe_dv_con_at(c, i), NULL), fe_dv_int(c, i));
  fe_dv_match(c, f, kase, 1, fe_dv_pvar(c, "x"));
}

/* ---- the instance context ------------------------------------------------------------ */

enum { MAX_TYPE_DEPTH = 2000 };

/* Mark in `used` the parameters of the data type that occur in t other than as the
 * head of a type application. */
static void mark_tyvars(FeDvCtx *c, const FeType *t, bool head, bool *used, int depth) {
  for (; t && depth < MAX_TYPE_DEPTH; depth++) {
    switch (t->kind) {
    case TY_VAR:
      if (!head)
        for (int i = 0; i < c->data->tyvars.len; i++)
          if (c->data->tyvars.data[i].name == t->id.name) used[i] = true;
      return;
    case TY_CON: return;
    case TY_APP:
      mark_tyvars(c, t->right, false, used, depth + 1);
      t = t->left; /* the function part of an application is in head position */
      head = true;
      break;
    case TY_FUN:
      mark_tyvars(c, t->left, false, used, depth + 1);
      t = t->right;
      head = false;
      break;
    }
  }
}

static void build_context(FeDvCtx *c, const char *cls) {
  int n = c->data->tyvars.len;
  bool *used = LZ_NEW_ARRAY(bool, n > 0 ? n : 1);
  for (int i = 0; i < fe_dv_ncons(c); i++) {
    FeConDecl *con = fe_dv_con_at(c, i);
    for (int j = 0; j < con->fields.len; j++)
      mark_tyvars(c, con->fields.data[j].type, false, used, 0);
  }
  for (int i = 0; i < n; i++) {
    if (!used[i]) continue;
    FePred p;
    memset(&p, 0, sizeof p);
    p.cls = fe_dv_lib(c, cls);
    p.type = fe_type_new(TY_VAR, c->span);
    p.type->id = fe_ident(NULL, c->data->tyvars.data[i].name, c->span);
    p.span = c->span;
    LZ_PUSH(c->inst->sig->ctx, p);
  }
}

/* ---- the driver ------------------------------------------------------------------ */

typedef void (*Generator)(FeDvCtx *);

static const struct {
  const char *cls;
  Generator gen;
} derivable[] = {
    {"Eq", fe_derive_eq},     {"Ord", fe_derive_ord},         {"Show", fe_derive_show},
    {"Enum", fe_derive_enum}, {"Bounded", fe_derive_bounded},
};

/* Classes Haskell (or GHC) can derive but Lz cannot. */
static const char *const unsupported[] = {
    "Read",     "Ix",   "Functor",  "Foldable", "Traversable", "Generic",
    "Generic1", "Data", "Typeable", "Lift",     "NFData",
};

/* ‘Show (T a)’ / ‘Show T’ as GHC writes the instance in messages */
static const char *instance_text(FeDecl *d, Sym cls) {
  if (d->tyvars.len == 0) return lz_fmt("%s %s", cls, d->name.name);
  char *s = lz_fmt("%s (%s", cls, d->name.name);
  for (int i = 0; i < d->tyvars.len; i++)
    s = lz_fmt("%s %s", s, d->tyvars.data[i].name);
  return lz_fmt("%s)", s);
}

static void cannot_derive(FeDecl *d, const FeIdent *cls, const char *why) {
  lz_error(cls->span,
           "Can't make a derived instance of \xe2\x80\x98%s\xe2\x80\x99:\n%s\n"
           "In the %s declaration for \xe2\x80\x98%s\xe2\x80\x99",
           instance_text(d, cls->name), why, d->kind == D_NEWTYPE ? "newtype" : "data",
           d->name.name);
}

#define Q(s) "\xe2\x80\x98" s "\xe2\x80\x99"
#define ENUM_WHY                                                                                   \
  "  " Q("%s") " must be an enumeration type\n"                                                    \
               "  (an enumeration consists of one or more nullary, non-GADT constructors)"

/* Whether class `cls` can be derived for `d`; reports GHC's message when not. */
static bool check_derivable(FeDvCtx *c, const FeIdent *cls, Generator *gen) {
  FeDecl *d = c->data;
  const char *tn = d->name.name;
  *gen = NULL;
  for (size_t i = 0; i < sizeof derivable / sizeof derivable[0]; i++)
    if (strcmp(cls->name, derivable[i].cls) == 0) *gen = derivable[i].gen;
  if (!*gen) {
    bool known = false;
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
      if (strcmp(cls->name, unsupported[i]) == 0) known = true;
    cannot_derive(d, cls,
                  known ? lz_fmt("  deriving %s is not supported in Lz", cls->name)
                        : lz_fmt("  " Q("%s") " is not a stock derivable class "
                                              "(Eq, Show, etc.)",
                                 cls->name));
    return false;
  }
  if (fe_dv_ncons(c) == 0) {
    cannot_derive(d, cls,
                  lz_fmt("  " Q("%s") " must have at least one data constructor\n"
                                      "  Use EmptyDataDeriving to enable deriving for empty data "
                                      "types",
                         tn));
    return false;
  }
  if (*gen == fe_derive_enum && !fe_dv_is_enumeration(c)) {
    cannot_derive(d, cls,
                  d->kind == D_NEWTYPE
                      ? lz_fmt(ENUM_WHY "\n  Try GeneralizedNewtypeDeriving for GHC's "
                                        "newtype-deriving extension",
                               tn)
                      : lz_fmt(ENUM_WHY, tn));
    return false;
  }
  if (*gen == fe_derive_bounded && !fe_dv_is_enumeration(c) && fe_dv_ncons(c) != 1) {
    cannot_derive(
        d, cls,
        lz_fmt(ENUM_WHY "\n    or\n  " Q("%s") " must have precisely one constructor", tn, tn));
    return false;
  }
  return true;
}

static Sym module_name(FeModule *m) {
  if (!m->name.name) return lz_sym("Main");
  if (m->name.qual) return lz_sym(lz_fmt("%s.%s", m->name.qual, m->name.name));
  return m->name.name;
}

static void derive_one(FeModule *m, FeDecl *d, const FeIdent *cls) {
  FeDvCtx c = {m, module_name(m), d, cls->span, NULL};
  if (!cls->name) return;
  Generator gen;
  if (!check_derivable(&c, cls, &gen)) return;
  FeDecl *inst = fe_decl_new(D_INSTANCE, cls->span);
  inst->name = fe_dv_lib(&c, cls->name);
  inst->generated = true;
  inst->sig = LZ_NEW(FeQualType);
  inst->sig->span = cls->span;
  inst->sig->type = fe_dv_head_type(&c);
  c.inst = inst;
  build_context(&c, cls->name);
  gen(&c);
  LZ_PUSH(m->decls, inst);
}

void fe_derive_module(FeModule *m) {
  if (!m) return;
  int n = m->decls.len; /* the loop appends to m->decls: visit only the user's decls */
  for (int i = 0; i < n; i++) {
    FeDecl *d = m->decls.data[i];
    if (!d || (d->kind != D_DATA && d->kind != D_NEWTYPE) || !d->name.name) continue;
    for (int j = 0; j < d->deriving.len; j++)
      derive_one(m, d, &d->deriving.data[j]);
  }
}
