/* test_derive.c — unit tests for deriving (frontend/derive*.c).
 *
 * Data declarations are mostly built by hand (a tiny type parser reads field types
 * such as "Maybe (a -> b)"), so the tests pin down exactly what the deriving pass
 * sees; the last tests parse source text to check that it reads the parser's output
 * (infix constructors, fixities, record fields) as intended. fe_derive_module runs on
 * the module, and the generated instances are printed by a small printer of our own,
 * so the expectations below do not depend on the front end's printer. Original names print as
 * Module.occ, so the tests also check that every library entity is referenced by original name and
 * every constructor of the type by its original name in the defining module. The expected texts
 * were checked against GHC 9.0.2's -ddump-deriv output and, by printing the same instances as
 * Haskell and running them under GHC next to GHC's own derived instances, against its results.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "passes.h"

/* ---- building declarations -------------------------------------------------------- */

static LzSpan span_at(int line, int col, int len) {
  LzSpan s = {0, line, col, line, col + len - 1};
  return s;
}

static FeIdent ident(const char *name) {
  return fe_ident(NULL, lz_sym(name), span_at(1, 1, (int)strlen(name)));
}

/* type   = btype ["->" type]
 * btype  = atype {atype}
 * atype  = name | "(" type ")" | "[" type "]" */
static FeType *parse_type(const char **s);

static void skip_spaces(const char **s) {
  while (**s == ' ')
    (*s)++;
}

static FeType *parse_atype(const char **s) {
  skip_spaces(s);
  if (**s == '(' || **s == '[') {
    char close = **s == '(' ? ')' : ']';
    bool list = **s == '[';
    (*s)++;
    FeType *t = parse_type(s);
    skip_spaces(s);
    assert_int_equal(**s, close);
    (*s)++;
    if (!list) return t;
    FeType *app = fe_type_new(TY_APP, span_at(1, 1, 1));
    app->left = fe_type_new(TY_CON, span_at(1, 1, 1));
    app->left->id = ident("[]");
    app->right = t;
    return app;
  }
  const char *start = *s;
  while (**s && strchr(" ()[]-", **s) == NULL)
    (*s)++;
  if (*s == start) return NULL;
  FeType *t = fe_type_new(start[0] >= 'a' && start[0] <= 'z' ? TY_VAR : TY_CON, span_at(1, 1, 1));
  t->id = fe_ident(NULL, lz_symn(start, (size_t)(*s - start)), span_at(1, 1, 1));
  return t;
}

static FeType *parse_type(const char **s) {
  FeType *t = parse_atype(s);
  for (;;) {
    skip_spaces(s);
    if (**s == '\0' || **s == ')' || **s == ']' || **s == '-') break;
    FeType *app = fe_type_new(TY_APP, span_at(1, 1, 1));
    app->left = t;
    app->right = parse_atype(s);
    t = app;
  }
  if (**s == '-') {
    *s += 2;
    FeType *fn = fe_type_new(TY_FUN, span_at(1, 1, 1));
    fn->left = t;
    fn->right = parse_type(s);
    t = fn;
  }
  return t;
}

static FeType *type_of(const char *text) {
  const char *s = text;
  FeType *t = parse_type(&s);
  assert_non_null(t);
  return t;
}

static FeModule *new_module(const char *name) {
  FeModule *m = LZ_NEW(FeModule);
  const char *dot = strrchr(name, '.');
  m->name = dot ? fe_ident(lz_symn(name, (size_t)(dot - name)), lz_sym(dot + 1), span_at(1, 1, 1))
                : ident(name);
  return m;
}

/* data NAME TYVARS ... deriving (DERIVS); tyvars and derivs are space-separated.
 * The deriving entries get spans on line 7 at columns 10, 20, 30, ... */
static FeDecl *add_data(FeModule *m, FeDeclKind kind, const char *name, const char *tyvars,
                        const char *derivs) {
  FeDecl *d = fe_decl_new(kind, span_at(7, 1, 4));
  d->name = ident(name);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", tyvars);
  for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
    LZ_PUSH(d->tyvars, ident(t));
  snprintf(buf, sizeof buf, "%s", derivs);
  int col = 10;
  for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "), col += 10) {
    FeIdent c = ident(t);
    c.span = span_at(7, col, (int)strlen(t));
    LZ_PUSH(d->deriving, c);
  }
  LZ_PUSH(m->decls, d);
  return d;
}

/* A constructor; fields are types separated by ';', or "label :: type" entries for a
 * record (record = true). */
static FeConDecl *add_con_full(FeDecl *d, const char *name, const char *fields, bool record,
                               bool infix) {
  FeConDecl *c = LZ_NEW(FeConDecl);
  c->name = ident(name);
  c->record = record;
  c->infix = infix;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", fields);
  for (char *f = strtok(buf, ";"); f; f = strtok(NULL, ";")) {
    FeField fld;
    memset(&fld, 0, sizeof fld);
    char *colons = strstr(f, "::");
    if (record) {
      assert_non_null(colons);
      *colons = '\0';
      char *lab = f;
      while (*lab == ' ')
        lab++;
      char *end = lab + strlen(lab);
      while (end > lab && end[-1] == ' ')
        *--end = '\0';
      fld.label = ident(lab);
      fld.type = type_of(colons + 2);
    } else {
      fld.type = type_of(f);
    }
    LZ_PUSH(c->fields, fld);
  }
  LZ_PUSH(d->cons, c);
  return c;
}

static FeConDecl *add_con(FeDecl *d, const char *name, const char *fields) {
  return add_con_full(d, name, fields, false, false);
}

static void add_fixity(FeModule *m, FeAssoc assoc, int prec, const char *op) {
  FeDecl *d = fe_decl_new(D_FIXITY, span_at(2, 1, 1));
  d->assoc = assoc;
  d->prec = prec;
  LZ_PUSH(d->names, ident(op));
  LZ_PUSH(m->decls, d);
}

/* ---- printing ------------------------------------------------------------------------ */

typedef struct {
  FILE *f;
} Pr;

static bool symbolic(const char *s) {
  return !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'));
}

static void pr_name(Pr *p, const FeIdent *id, bool binder) {
  (void)binder;
  const char *text = id->orig_module ? lz_fmt("%s.%s", id->orig_module, id->name) : id->name;
  fprintf(p->f, symbolic(id->name) ? "(%s)" : "%s", text);
}

static void pr_type(Pr *p, const FeType *t) {
  switch (t->kind) {
  case TY_VAR:
  case TY_CON: pr_name(p, &t->id, false); break;
  case TY_APP:
    fputc('(', p->f);
    pr_type(p, t->left);
    fputc(' ', p->f);
    pr_type(p, t->right);
    fputc(')', p->f);
    break;
  case TY_FUN:
    fputc('(', p->f);
    pr_type(p, t->left);
    fputs(" -> ", p->f);
    pr_type(p, t->right);
    fputc(')', p->f);
    break;
  }
}

static void pr_lit(Pr *p, const FeLit *l) {
  if (l->kind == L_INT) {
    fputs(l->digits, p->f);
    assert_int_equal(l->i, strtoll(l->digits, NULL, 10));
    assert_true(l->fits);
  } else {
    assert_int_equal(l->kind, L_STRING);
    assert_int_equal(l->len, strlen(l->str));
    fputc('"', p->f);
    for (const char *s = l->str; *s; s++) {
      if (*s == '"' || *s == '\\') fputc('\\', p->f);
      fputc(*s, p->f);
    }
    fputc('"', p->f);
  }
}

static void pr_pat(Pr *p, const FePat *pat) {
  switch (pat->kind) {
  case P_VAR:
    assert_null(pat->id.orig_module);
    fputs(pat->id.name, p->f);
    break;
  case P_WILD: fputc('_', p->f); break;
  case P_LIT: pr_lit(p, &pat->lit); break;
  case P_CON:
    if (pat->args.len) fputc('(', p->f);
    pr_name(p, &pat->id, false);
    for (int i = 0; i < pat->args.len; i++) {
      fputc(' ', p->f);
      pr_pat(p, pat->args.data[i]);
    }
    if (pat->args.len) fputc(')', p->f);
    break;
  default: fail_msg("unexpected pattern kind %d", pat->kind);
  }
}

static void pr_decl(Pr *p, const FeDecl *d, int indent);

static void pr_expr(Pr *p, const FeExpr *e) {
  switch (e->kind) {
  case E_VAR:
  case E_CON: pr_name(p, &e->id, false); break;
  case E_LIT: pr_lit(p, &e->lit); break;
  case E_APP:
    fputc('(', p->f);
    pr_expr(p, e->fn);
    for (int i = 0; i < e->args.len; i++) {
      fputc(' ', p->f);
      pr_expr(p, e->args.data[i]);
    }
    fputc(')', p->f);
    break;
  case E_IF:
    fputs("(if ", p->f);
    pr_expr(p, e->e1);
    fputs(" then ", p->f);
    pr_expr(p, e->e2);
    fputs(" else ", p->f);
    pr_expr(p, e->e3);
    fputc(')', p->f);
    break;
  case E_CASE:
    fputs("(case ", p->f);
    pr_expr(p, e->e1);
    fputs(" of {", p->f);
    for (int i = 0; i < e->alts.len; i++) {
      fputs(i ? "; " : " ", p->f);
      pr_pat(p, e->alts.data[i].pat);
      fputs(" -> ", p->f);
      assert_non_null(e->alts.data[i].rhs->plain);
      assert_int_equal(e->alts.data[i].rhs->where.len, 0);
      pr_expr(p, e->alts.data[i].rhs->plain);
    }
    fputs(" })", p->f);
    break;
  default: fail_msg("unexpected expression kind %d", e->kind);
  }
}

static void pr_decl(Pr *p, const FeDecl *d, int indent) {
  if (d->kind == D_SIG) {
    fprintf(p->f, "%*s", indent, "");
    pr_name(p, &d->names.data[0], true);
    fputs(" :: ", p->f);
    pr_type(p, d->sig->type);
    fputc('\n', p->f);
    return;
  }
  assert_int_equal(d->kind, D_FUN);
  assert_true(d->generated);
  for (int i = 0; i < d->matches.len; i++) {
    FeMatch *m = d->matches.data[i];
    fprintf(p->f, "%*s", indent, "");
    pr_name(p, &d->name, true);
    for (int j = 0; j < m->pats.len; j++) {
      fputc(' ', p->f);
      pr_pat(p, m->pats.data[j]);
    }
    fputs(" = ", p->f);
    pr_expr(p, m->rhs->plain);
    fputc('\n', p->f);
    if (m->rhs->where.len) {
      fprintf(p->f, "%*swhere\n", indent + 2, "");
      for (int j = 0; j < m->rhs->where.len; j++)
        pr_decl(p, m->rhs->where.data[j], indent + 4);
    }
  }
}

static void pr_instance(Pr *p, const FeDecl *d) {
  assert_int_equal(d->kind, D_INSTANCE);
  assert_true(d->generated);
  fputs("instance ", p->f);
  if (d->sig->ctx.len) {
    fputc('(', p->f);
    for (int i = 0; i < d->sig->ctx.len; i++) {
      if (i) fputs(", ", p->f);
      pr_name(p, &d->sig->ctx.data[i].cls, false);
      fputc(' ', p->f);
      pr_type(p, d->sig->ctx.data[i].type);
    }
    fputs(") => ", p->f);
  }
  pr_name(p, &d->name, false);
  fputc(' ', p->f);
  pr_type(p, d->sig->type);
  fputs(" where\n", p->f);
  for (int i = 0; i < d->body.len; i++)
    pr_decl(p, d->body.data[i], 2);
}

/* The text of generated instance number i (0-based, among the appended decls). */
static char *instance_text(FeModule *m, int first_generated, int i) {
  assert_true(first_generated + i < m->decls.len);
  char *buf = NULL;
  size_t len = 0;
  Pr p = {open_memstream(&buf, &len)};
  pr_instance(&p, m->decls.data[first_generated + i]);
  fclose(p.f);
  char *s = lz_strdup(buf);
  free(buf);
  return s;
}

static char *diags_buf;
static size_t diags_len;
static FILE *diags;

static int setup(void **state) {
  (void)state;
  lz_reset();
  diags = open_memstream(&diags_buf, &diags_len);
  lz_set_diag_stream(diags);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  lz_set_diag_stream(NULL);
  fclose(diags);
  free(diags_buf);
  diags_buf = NULL;
  lz_reset();
  return 0;
}

static const char *diagnostics(void) {
  fflush(diags);
  return diags_buf ? diags_buf : "";
}

/* Derive and return the number of decls before deriving. */
static int derive(FeModule *m) {
  int n = m->decls.len;
  fe_derive_module(m);
  return n;
}

/* GHC's quotes ‘ ’ */
#define LQ "\xe2\x80\x98"
#define RQ "\xe2\x80\x99"

#define assert_text(actual, expected)                                                              \
  do {                                                                                             \
    const char *a_ = (actual), *e_ = (expected);                                                   \
    if (strcmp(a_, e_) != 0) fail_msg("got:\n%s\nexpected:\n%s", a_, e_);                          \
  } while (0)

/* ---- Eq ------------------------------------------------------------------------------ */

static void test_eq_constructors(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "T", "a b", "Eq");
  add_con(d, "L", "a");
  add_con(d, "R", "b");
  add_con(d, "N", "");
  int n = derive(m);
  assert_int_equal(m->decls.len, n + 1);
  assert_int_equal(lz_error_count(), 0);
  assert_text(instance_text(m, n, 0),
              "instance (Lz.Base.Eq a, Lz.Base.Eq b) => Lz.Base.Eq ((Main.T a) b) where\n"
              "  (Lz.Base.==) (Main.L a1) (Main.L b1) = ((Lz.Base.==) a1 b1)\n"
              "  (Lz.Base.==) (Main.R a1) (Main.R b1) = ((Lz.Base.==) a1 b1)\n"
              "  (Lz.Base.==) Main.N Main.N = Lz.Base.True\n"
              "  (Lz.Base.==) _ _ = Lz.Base.False\n");
}

static void test_eq_single_constructor_fields(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "P", "", "Eq");
  add_con(d, "P", "Int; Char; [Int]");
  int n = derive(m);
  /* one constructor: no fall-through equation; (&&) nests to the right like GHC's */
  assert_text(instance_text(m, n, 0),
              "instance Lz.Base.Eq Main.P where\n"
              "  (Lz.Base.==) (Main.P a1 a2 a3) (Main.P b1 b2 b3) = ((Lz.Base.&&) "
              "((Lz.Base.==) a1 b1) ((Lz.Base.&&) ((Lz.Base.==) a2 b2) ((Lz.Base.==) a3 b3)))\n");
}

static void test_eq_chains_nest_right_then_balance(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "Q", "", "Eq");
  add_con(d, "Q", "Int; Int; Int; Int");
  FeDecl *d10 = add_data(m, D_DATA, "Q10", "", "Eq");
  add_con(d10, "Q10", "Int; Int; Int; Int; Int; Int; Int; Int; Int; Int");
  int n = derive(m);
  assert_text(instance_text(m, n, 0),
              "instance Lz.Base.Eq Main.Q where\n"
              "  (Lz.Base.==) (Main.Q a1 a2 a3 a4) (Main.Q b1 b2 b3 b4) = ((Lz.Base.&&) "
              "((Lz.Base.==) a1 b1) ((Lz.Base.&&) ((Lz.Base.==) a2 b2) ((Lz.Base.&&) "
              "((Lz.Base.==) a3 b3) ((Lz.Base.==) a4 b4))))\n");
  /* ten fields: split 5 + 5, each half right-nested */
  FeDecl *eq = ((FeDecl *)m->decls.data[n + 1])->body.data[0];
  FeExpr *top = eq->matches.data[0]->rhs->plain;
  assert_int_equal(top->kind, E_APP);
  assert_string_equal(top->fn->id.name, "&&");
  FeExpr *left = top->args.data[0], *right = top->args.data[1];
  assert_string_equal(left->fn->id.name, "&&");
  assert_string_equal(left->args.data[0]->fn->id.name, "==");
  assert_string_equal(left->args.data[0]->args.data[0]->id.name, "a1");
  assert_string_equal(right->fn->id.name, "&&");
  assert_string_equal(right->args.data[0]->fn->id.name, "==");
  assert_string_equal(right->args.data[0]->args.data[0]->id.name, "a6");
}

/* ---- the instance head and context ------------------------------------------------- */

static void test_context_phantom_and_nested(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "T", "p a b c f g", "Show");
  /* p phantom; a in a list; b, c in a function type inside Maybe; f only as the head
   * of an application (no constraint: GHC reports the missing Show (f Int) instead);
   * g both as head and as argument (constraint). */
  add_con(d, "A", "[a]; Maybe (b -> c)");
  add_con(d, "B", "f Int; g g");
  int n = derive(m);
  FeDecl *inst = m->decls.data[n];
  assert_int_equal(inst->sig->ctx.len, 4);
  const char *expect[] = {"a", "b", "c", "g"};
  for (int i = 0; i < 4; i++) {
    FePred *pr = &inst->sig->ctx.data[i];
    assert_string_equal(pr->cls.name, "Show");
    assert_string_equal(pr->cls.orig_module, "Lz.Base");
    assert_int_equal(pr->type->kind, TY_VAR);
    assert_string_equal(pr->type->id.name, expect[i]);
    assert_null(pr->type->id.orig_module);
  }
  /* head: (((((T p) a) b) c) f) g */
  FeType *t = inst->sig->type;
  for (int i = 5; i >= 0; i--) {
    assert_int_equal(t->kind, TY_APP);
    assert_string_equal(t->right->id.name, d->tyvars.data[i].name);
    t = t->left;
  }
  assert_int_equal(t->kind, TY_CON);
  assert_string_equal(t->id.name, "T");
  assert_string_equal(t->id.orig_module, "Main");
}

static void test_dotted_module_and_spans(void **state) {
  (void)state;
  FeModule *m = new_module("Data.Shape");
  FeDecl *d = add_data(m, D_DATA, "Shape", "", "Eq Show");
  add_con(d, "Circle", "Double");
  int n = derive(m);
  assert_int_equal(m->decls.len, n + 2);
  char *eq = instance_text(m, n, 0);
  assert_non_null(strstr(eq, "Data.Shape.Circle a1"));
  assert_non_null(strstr(instance_text(m, n, 1), "Lz.Base.Show Data.Shape.Shape where"));
  /* every generated node carries the span of its class in the deriving clause */
  FeDecl *show = m->decls.data[n + 1];
  assert_int_equal(show->span.line, 7);
  assert_int_equal(show->span.col, 20);
  assert_int_equal(show->name.span.col, 20);
  FeDecl *meth = show->body.data[0];
  assert_true(meth->generated);
  assert_int_equal(meth->span.col, 20);
  assert_int_equal(meth->matches.data[0]->rhs->plain->span.col, 20);
  assert_int_equal(meth->matches.data[0]->pats.data[1]->id.span.col, 20);
}

/* ---- Ord ------------------------------------------------------------------------------ */

static void test_ord_three_constructors(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "T", "a b", "Ord");
  add_con(d, "L", "a");
  add_con(d, "R", "b");
  add_con(d, "N", "");
  int n = derive(m);
  /* GHC's gen_Ord_binds for data T a b = L a | R b | N */
  assert_text(
      instance_text(m, n, 0),
      "instance (Lz.Base.Ord a, Lz.Base.Ord b) => Lz.Base.Ord ((Main.T a) b) where\n"
      "  Lz.Base.compare a b = (case a of { (Main.L a1) -> (case b of { (Main.L b1) -> "
      "(Lz.Base.compare a1 b1); _ -> Lz.Base.LT }); (Main.R a1) -> (case b of { (Main.L _) -> "
      "Lz.Base.GT; (Main.R b1) -> (Lz.Base.compare a1 b1); _ -> Lz.Base.LT }); Main.N -> (case "
      "b of { Main.N -> Lz.Base.EQ; _ -> Lz.Base.GT }) })\n"
      "  (Lz.Base.<) a b = (case a of { (Main.L a1) -> (case b of { (Main.L b1) -> "
      "((Lz.Base.<) a1 b1); _ -> Lz.Base.True }); (Main.R a1) -> (case b of { (Main.L _) -> "
      "Lz.Base.False; (Main.R b1) -> ((Lz.Base.<) a1 b1); _ -> Lz.Base.True }); Main.N -> "
      "(case b of { Main.N -> Lz.Base.False; _ -> Lz.Base.False }) })\n"
      "  (Lz.Base.<=) a b = (Lz.Base.not ((Lz.Base.<) b a))\n"
      "  (Lz.Base.>) a b = ((Lz.Base.<) b a)\n"
      "  (Lz.Base.>=) a b = (Lz.Base.not ((Lz.Base.<) a b))\n");
}

static void test_ord_fields_lexicographic(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "R", "", "Ord");
  add_con(d, "R", "Int; Double; Int");
  int n = derive(m);
  FeDecl *inst = m->decls.data[n];
  assert_int_equal(inst->body.len, 5);
  char *s = instance_text(m, n, 0);
  assert_non_null(strstr(
      s,
      "  Lz.Base.compare a b = (case a of { (Main.R a1 a2 a3) -> (case b of { (Main.R b1 b2 "
      "b3) -> (case (Lz.Base.compare a1 b1) of { Lz.Base.LT -> Lz.Base.LT; Lz.Base.EQ -> "
      "(case (Lz.Base.compare a2 b2) of { Lz.Base.LT -> Lz.Base.LT; Lz.Base.EQ -> "
      "(Lz.Base.compare a3 b3); Lz.Base.GT -> Lz.Base.GT }); Lz.Base.GT -> Lz.Base.GT }) }) })\n"));
  /* (<): the last field with (<) itself, earlier ones with compare */
  assert_non_null(strstr(
      s, "  (Lz.Base.<) a b = (case a of { (Main.R a1 a2 a3) -> (case b of { (Main.R b1 b2 "
         "b3) -> (case (Lz.Base.compare a1 b1) of { Lz.Base.LT -> Lz.Base.True; Lz.Base.EQ -> "
         "(case (Lz.Base.compare a2 b2) of { Lz.Base.LT -> Lz.Base.True; Lz.Base.EQ -> "
         "((Lz.Base.<) a3 b3); Lz.Base.GT -> Lz.Base.False }); Lz.Base.GT -> Lz.Base.False }) "
         "}) })\n"));
}

static void test_ord_enumeration_uses_tags(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "Color", "", "Ord");
  add_con(d, "Red", "");
  add_con(d, "Green", "");
  add_con(d, "Blue", "");
  add_con(d, "Alpha", "");
  int n = derive(m);
  char *s = instance_text(m, n, 0);
  assert_text(s, "instance Lz.Base.Ord Main.Color where\n"
                 "  Lz.Base.compare a b = (Lz.Base.compare (con2tag a) (con2tag b))\n"
                 "    where\n"
                 "      con2tag :: (Main.Color -> Lz.Base.Int)\n"
                 "      con2tag x = (case x of { Main.Red -> 0; Main.Green -> 1; Main.Blue -> 2; "
                 "Main.Alpha -> 3 })\n"
                 "  (Lz.Base.<) a b = ((Lz.Base.<) (con2tag a) (con2tag b))\n"
                 "    where\n"
                 "      con2tag :: (Main.Color -> Lz.Base.Int)\n"
                 "      con2tag x = (case x of { Main.Red -> 0; Main.Green -> 1; Main.Blue -> 2; "
                 "Main.Alpha -> 3 })\n"
                 "  (Lz.Base.<=) a b = (Lz.Base.not ((Lz.Base.<) b a))\n"
                 "  (Lz.Base.>) a b = ((Lz.Base.<) b a)\n"
                 "  (Lz.Base.>=) a b = (Lz.Base.not ((Lz.Base.<) a b))\n");
}

static void test_ord_large_mixed_type(void **state) {
  (void)state;
  /* data Big = B1 | B2 Int | B3 | B4 | B5 Int Int | B6 | B7 | B8 | B9 | B10 | B11:
   * more than three constructors and not an enumeration: only compare (the other
   * operators are the class defaults, as in GHC); more than two nullary
   * constructors, so `case a` lists the non-nullary ones and compares tags otherwise */
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "Big", "", "Ord");
  for (int i = 1; i <= 11; i++)
    add_con(d, lz_fmt("B%d", i), i == 2 ? "Int" : i == 5 ? "Int; Int" : "");
  int n = derive(m);
  FeDecl *inst = m->decls.data[n];
  assert_int_equal(inst->body.len, 1);
  char *s = instance_text(m, n, 0);
  assert_non_null(strstr(
      s, "Lz.Base.compare a b = (case a of { (Main.B2 a1) -> (case b of { Main.B1 -> "
         "Lz.Base.GT; (Main.B2 b1) -> (Lz.Base.compare a1 b1); _ -> Lz.Base.LT }); "
         "(Main.B5 a1 a2) -> (if ((Lz.Base.>) (con2tag b) 4) then Lz.Base.LT else (case b of "
         "{ (Main.B5 b1 b2) -> (case (Lz.Base.compare a1 b1) of { Lz.Base.LT -> Lz.Base.LT; "
         "Lz.Base.EQ -> (Lz.Base.compare a2 b2); Lz.Base.GT -> Lz.Base.GT }); _ -> Lz.Base.GT "
         "})); _ -> (Lz.Base.compare (con2tag a) (con2tag b)) })\n"));
  assert_non_null(strstr(s, "Main.B10 -> 9; Main.B11 -> 10 })\n"));
}

static void test_ord_high_constructor_checks_lower_tags(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "S", "", "Ord");
  for (int i = 0; i < 8; i++)
    add_con(d, lz_fmt("S%d", i), "Int");
  int n = derive(m);
  char *s = instance_text(m, n, 0);
  /* index 5 > 7/2: b below 5 means GT */
  assert_non_null(strstr(s, "(Main.S5 a1) -> (if ((Lz.Base.<) (con2tag b) 5) then Lz.Base.GT "
                            "else (case b of { (Main.S5 b1) -> (Lz.Base.compare a1 b1); _ -> "
                            "Lz.Base.LT }))"));
  /* index 6 = last-1: the last constructor is GT than it */
  assert_non_null(strstr(s, "(Main.S6 a1) -> (case b of { (Main.S6 b1) -> (Lz.Base.compare a1 "
                            "b1); (Main.S7 _) -> Lz.Base.LT; _ -> Lz.Base.GT })"));
  /* index 2 <= 7/2: b above 2 means LT */
  assert_non_null(strstr(s, "(Main.S2 a1) -> (if ((Lz.Base.>) (con2tag b) 2) then Lz.Base.LT"));
  assert_non_null(strstr(s, "con2tag x = (case x of { (Main.S0 _) -> 0;"));
}

/* ---- Show ------------------------------------------------------------------------------ */

static void test_show_prefix_and_nullary(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "T", "a", "Show");
  add_con(d, "Leaf", "");
  add_con(d, "Node", "T a; a; T a");
  add_con(d, "One", "a");
  int n = derive(m);
  assert_text(instance_text(m, n, 0),
              "instance (Lz.Base.Show a) => Lz.Base.Show (Main.T a) where\n"
              "  Lz.Base.showsPrec _ Main.Leaf = (Lz.Base.showString \"Leaf\")\n"
              "  Lz.Base.showsPrec a (Main.Node b1 b2 b3) = (Lz.Base.showParen ((Lz.Base.>=) a "
              "11) ((Lz.Base..) (Lz.Base.showString \"Node \") ((Lz.Base..) (Lz.Base.showsPrec "
              "11 b1) ((Lz.Base..) Lz.Base.showSpace ((Lz.Base..) (Lz.Base.showsPrec 11 b2) "
              "((Lz.Base..) Lz.Base.showSpace (Lz.Base.showsPrec 11 b3)))))))\n"
              "  Lz.Base.showsPrec a (Main.One b1) = (Lz.Base.showParen ((Lz.Base.>=) a 11) "
              "((Lz.Base..) (Lz.Base.showString \"One \") (Lz.Base.showsPrec 11 b1)))\n");
}

static void test_show_record(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "Rec", "", "Show");
  add_con_full(d, "Rec", "f1 :: Int; +++ :: Maybe Double", true, false);
  add_con_full(d, ":@", "x :: Int", true, false);
  add_con_full(d, "Empty", "", true, false); /* Empty {} shows as "Empty" */
  int n = derive(m);
  assert_text(instance_text(m, n, 0),
              "instance Lz.Base.Show Main.Rec where\n"
              "  Lz.Base.showsPrec a (Main.Rec b1 b2) = (Lz.Base.showParen ((Lz.Base.>=) a 11) "
              "((Lz.Base..) (Lz.Base.showString \"Rec {\") ((Lz.Base..) (Lz.Base.showString "
              "\"f1 = \") ((Lz.Base..) (Lz.Base.showsPrec 0 b1) ((Lz.Base..) "
              "Lz.Base.showCommaSpace ((Lz.Base..) (Lz.Base.showString \"(+++) = \") "
              "((Lz.Base..) (Lz.Base.showsPrec 0 b2) (Lz.Base.showString \"}\"))))))))\n"
              "  Lz.Base.showsPrec a ((Main.:@) b1) = (Lz.Base.showParen ((Lz.Base.>=) a 11) "
              "((Lz.Base..) (Lz.Base.showString \"(:@) {\") ((Lz.Base..) (Lz.Base.showString "
              "\"x = \") ((Lz.Base..) (Lz.Base.showsPrec 0 b1) (Lz.Base.showString \"}\")))))\n"
              "  Lz.Base.showsPrec _ Main.Empty = (Lz.Base.showString \"Empty\")\n");
}

static void test_show_infix_with_fixity(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "Op", "", "Show");
  add_con_full(d, ":->", "Int; Int", false, true);
  add_con_full(d, ":<>", "Op; Op", false, true);
  add_con_full(d, "Foo", "Int; Int", false, true); /* Int `Foo` Int */
  add_con_full(d, ":%", "Int; Int", false, false); /* (:%) Int Int */
  add_fixity(m, ASSOC_RIGHT, 5, ":->");
  add_fixity(m, ASSOC_LEFT, 4, ":<>");
  int n = derive(m);
  assert_text(instance_text(m, n, 0),
              "instance Lz.Base.Show Main.Op where\n"
              "  Lz.Base.showsPrec a ((Main.:->) b1 b2) = (Lz.Base.showParen ((Lz.Base.>=) a 6) "
              "((Lz.Base..) (Lz.Base.showsPrec 6 b1) ((Lz.Base..) (Lz.Base.showString \" :-> \") "
              "(Lz.Base.showsPrec 6 b2))))\n"
              "  Lz.Base.showsPrec a ((Main.:<>) b1 b2) = (Lz.Base.showParen ((Lz.Base.>=) a 5) "
              "((Lz.Base..) (Lz.Base.showsPrec 5 b1) ((Lz.Base..) (Lz.Base.showString \" :<> \") "
              "(Lz.Base.showsPrec 5 b2))))\n"
              "  Lz.Base.showsPrec a (Main.Foo b1 b2) = (Lz.Base.showParen ((Lz.Base.>=) a 10) "
              "((Lz.Base..) (Lz.Base.showsPrec 10 b1) ((Lz.Base..) (Lz.Base.showString \" `Foo` "
              "\") (Lz.Base.showsPrec 10 b2))))\n"
              "  Lz.Base.showsPrec a ((Main.:%) b1 b2) = (Lz.Base.showParen ((Lz.Base.>=) a 11) "
              "((Lz.Base..) (Lz.Base.showString \"(:%) \") ((Lz.Base..) (Lz.Base.showsPrec 11 "
              "b1) ((Lz.Base..) Lz.Base.showSpace (Lz.Base.showsPrec 11 b2)))))\n");
}

static void test_show_newtype(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_NEWTYPE, "Id", "", "Show Eq Ord");
  add_con_full(d, "Id", "getId :: Int", true, false);
  int n = derive(m);
  assert_int_equal(lz_error_count(), 0);
  assert_int_equal(m->decls.len, n + 3);
  assert_non_null(strstr(instance_text(m, n, 0), "(Lz.Base.showString \"Id {\")"));
  assert_non_null(strstr(instance_text(m, n, 0), "(Lz.Base.showString \"getId = \")"));
  assert_non_null(strstr(instance_text(m, n, 1),
                         "(Lz.Base.==) (Main.Id a1) (Main.Id b1) = ((Lz.Base.==) a1 b1)\n"));
  assert_non_null(strstr(instance_text(m, n, 2),
                         "Lz.Base.compare a b = (case a of { (Main.Id a1) -> (case b of { "
                         "(Main.Id b1) -> (Lz.Base.compare a1 b1) }) })\n"));
}

/* ---- Enum and Bounded ------------------------------------------------------------------- */

static void test_enum(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "Day", "", "Enum");
  add_con(d, "Mon", "");
  add_con(d, "Tue", "");
  add_con(d, "Sun", "");
  int n = derive(m);
  assert_int_equal(lz_error_count(), 0);
  const char *c2t = "    where\n"
                    "      con2tag :: (Main.Day -> Lz.Base.Int)\n"
                    "      con2tag x = (case x of { Main.Mon -> 0; Main.Tue -> 1; Main.Sun -> 2 "
                    "})\n";
  const char *t2c = "      tag2con :: (Lz.Base.Int -> Main.Day)\n"
                    "      tag2con x = (if ((Lz.Base.<) x 1) then Main.Mon else (if ((Lz.Base.<) "
                    "x 2) then Main.Tue else Main.Sun))\n";
  char *expect = lz_fmt(
      "instance Lz.Base.Enum Main.Day where\n"
      "  Lz.Base.succ a = (if ((Lz.Base.==) 2 (con2tag a)) then (Lz.Base.error \"succ{Day}: "
      "tried to take `succ' of last tag in enumeration\") else (tag2con ((Lz.Base.+) (con2tag "
      "a) 1)))\n%s%s"
      "  Lz.Base.pred a = (if ((Lz.Base.==) 0 (con2tag a)) then (Lz.Base.error \"pred{Day}: "
      "tried to take `pred' of first tag in enumeration\") else (tag2con ((Lz.Base.-) (con2tag "
      "a) 1)))\n%s%s"
      "  Lz.Base.toEnum a = (if ((Lz.Base.&&) ((Lz.Base.>=) a 0) ((Lz.Base.<=) a 2)) then "
      "(tag2con a) else (Lz.Base.error ((Lz.Base.++) \"toEnum{Day}: tag (\" (Lz.Base.showsPrec 0 "
      "a \") is outside of enumeration's range (0,2)\"))))\n"
      "    where\n%s"
      "  Lz.Base.enumFrom a = (Lz.Base.map tag2con (Lz.Base.enumFromTo (con2tag a) 2))\n%s%s"
      "  Lz.Base.enumFromThen a b = (Lz.Base.map tag2con (Lz.Base.enumFromThenTo (con2tag a) "
      "(con2tag b) (if ((Lz.Base.>) (con2tag a) (con2tag b)) then 0 else 2)))\n%s%s"
      "  Lz.Base.fromEnum a = (con2tag a)\n%s",
      c2t, t2c, c2t, t2c, t2c, c2t, t2c, c2t, t2c, c2t);
  assert_text(instance_text(m, n, 0), expect);
}

static void test_bounded(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *e = add_data(m, D_DATA, "Switch", "", "Bounded");
  add_con(e, "Off", "");
  add_con(e, "On", "");
  FeDecl *p = add_data(m, D_DATA, "Pair", "a b", "Bounded");
  add_con(p, "Pair", "a; b");
  FeDecl *u = add_data(m, D_DATA, "U", "", "Bounded");
  add_con(u, "U", "");
  int n = derive(m);
  assert_int_equal(lz_error_count(), 0);
  assert_text(instance_text(m, n, 0), "instance Lz.Base.Bounded Main.Switch where\n"
                                      "  Lz.Base.minBound = Main.Off\n"
                                      "  Lz.Base.maxBound = Main.On\n");
  assert_text(instance_text(m, n, 1),
              "instance (Lz.Base.Bounded a, Lz.Base.Bounded b) => Lz.Base.Bounded ((Main.Pair "
              "a) b) where\n"
              "  Lz.Base.minBound = (Main.Pair Lz.Base.minBound Lz.Base.minBound)\n"
              "  Lz.Base.maxBound = (Main.Pair Lz.Base.maxBound Lz.Base.maxBound)\n");
  assert_text(instance_text(m, n, 2), "instance Lz.Base.Bounded Main.U where\n"
                                      "  Lz.Base.minBound = Main.U\n"
                                      "  Lz.Base.maxBound = Main.U\n");
}

/* ---- errors ---------------------------------------------------------------------------- */

static void test_enum_of_non_enumeration(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "T", "a", "Eq Enum Show");
  add_con(d, "A", "a");
  add_con(d, "B", "");
  int n = derive(m);
  assert_int_equal(lz_error_count(), 1);
  assert_int_equal(m->decls.len, n + 2); /* Eq and Show still derived */
  assert_text(diagnostics(),
              "lzc: error:\n"
              "    \xe2\x80\xa2 Can't make a derived instance of " LQ "Enum (T a)" RQ ":\n"
              "        " LQ "T" RQ " must be an enumeration type\n"
              "        (an enumeration consists of one or more nullary, non-GADT "
              "constructors)\n"
              "      In the data declaration for " LQ "T" RQ "\n");
}

static void test_error_location_and_newtype_enum(void **state) {
  (void)state;
  const char *text = "newtype N = N Int\n\n\n\n\n\n  deriving (Enum)\n";
  LzSource *src = lz_source_add("N.lz", text, strlen(text));
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_NEWTYPE, "N", "", "Enum");
  d->deriving.data[0].span = (LzSpan){src->id, 7, 13, 7, 16};
  add_con(d, "N", "Int");
  derive(m);
  assert_int_equal(lz_error_count(), 1);
  const char *out = diagnostics();
  assert_non_null(strstr(out, "N.lz:7:13: error:\n"));
  assert_non_null(strstr(out, "Try GeneralizedNewtypeDeriving for GHC's newtype-deriving "
                              "extension\n      In the newtype declaration for " LQ "N"));
}

static void test_bounded_errors_and_empty_types(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "T", "", "Bounded");
  add_con(d, "A", "");
  add_con(d, "B", "Int");
  add_data(m, D_DATA, "V", "", "Eq Show");
  int n = derive(m);
  assert_int_equal(lz_error_count(), 3);
  assert_int_equal(m->decls.len, n);
  const char *out = diagnostics();
  assert_non_null(strstr(out, "constructors)\n          or\n        " LQ "T" RQ " must "
                              "have precisely one constructor\n"));
  assert_non_null(strstr(out, "Can't make a derived instance of " LQ "Eq V" RQ ":\n"
                              "        " LQ "V" RQ " must have at least one data "
                              "constructor\n"));
  assert_non_null(strstr(out, LQ "Show V" RQ));
}

static void test_unsupported_classes(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "T", "a", "Read Functor Eq MyClass");
  add_con(d, "A", "a");
  int n = derive(m);
  assert_int_equal(lz_error_count(), 3);
  assert_int_equal(m->decls.len, n + 1);
  assert_string_equal(((FeDecl *)m->decls.data[n])->name.name, "Eq");
  const char *out = diagnostics();
  assert_non_null(strstr(out, LQ "Read (T a)" RQ ":\n"
                                 "        deriving Read is not supported in Lz\n"));
  assert_non_null(strstr(out, "deriving Functor is not supported in Lz\n"));
  assert_non_null(strstr(out, LQ "MyClass" RQ " is not a stock derivable class "
                                 "(Eq, Show, etc.)\n"));
}

/* ---- the module as a whole --------------------------------------------------------------- */

static void test_module_without_deriving(void **state) {
  (void)state;
  fe_derive_module(NULL);
  FeModule *m = new_module("Main");
  fe_derive_module(m);
  assert_int_equal(m->decls.len, 0);
  FeDecl *d = add_data(m, D_DATA, "T", "", "");
  add_con(d, "A", "");
  LZ_PUSH(m->decls, (FeDecl *)NULL); /* tolerate holes */
  add_fixity(m, ASSOC_LEFT, 9, "+++");
  fe_derive_module(m);
  assert_int_equal(m->decls.len, 3);
  assert_int_equal(lz_error_count(), 0);
}

static void test_instances_in_order_and_user_decls_kept(void **state) {
  (void)state;
  FeModule *m = new_module("Main");
  FeDecl *a = add_data(m, D_DATA, "A", "", "Show Eq");
  add_con(a, "A", "");
  FeDecl *b = add_data(m, D_NEWTYPE, "B", "", "Ord");
  add_con(b, "B", "Int");
  int n = derive(m);
  assert_int_equal(n, 2);
  assert_int_equal(m->decls.len, 5);
  assert_ptr_equal(m->decls.data[0], a);
  assert_ptr_equal(m->decls.data[1], b);
  const char *cls[] = {"Show", "Eq", "Ord"};
  const char *ty[] = {"A", "A", "B"};
  for (int i = 0; i < 3; i++) {
    FeDecl *inst = m->decls.data[n + i];
    assert_int_equal(inst->kind, D_INSTANCE);
    assert_true(inst->generated);
    assert_string_equal(inst->name.name, cls[i]);
    assert_string_equal(inst->name.orig_module, "Lz.Base");
    assert_string_equal(inst->sig->type->id.name, ty[i]);
  }
  /* deriving again only looks at the user's data declarations */
  assert_int_equal(a->deriving.len, 2);
}

/* Maximum nesting of expressions (case alternatives count as nesting). */
static int expr_depth(const FeExpr *e) {
  if (!e) return 0;
  int d = 0;
  int x;
  if ((x = expr_depth(e->fn)) > d) d = x;
  for (int i = 0; i < e->args.len; i++)
    if ((x = expr_depth(e->args.data[i])) > d) d = x;
  if ((x = expr_depth(e->e1)) > d) d = x;
  if ((x = expr_depth(e->e2)) > d) d = x;
  if ((x = expr_depth(e->e3)) > d) d = x;
  for (int i = 0; i < e->alts.len; i++)
    if ((x = expr_depth(e->alts.data[i].rhs->plain)) > d) d = x;
  return d + 1;
}

static void test_many_fields_stay_shallow(void **state) {
  (void)state;
  enum { K = 3000 };
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "W", "", "Eq Ord Show Bounded");
  FeConDecl *c = add_con(d, "W", "");
  for (int i = 0; i < K; i++) {
    FeField f;
    memset(&f, 0, sizeof f);
    f.type = type_of("Int");
    LZ_PUSH(c->fields, f);
  }
  int n = derive(m);
  assert_int_equal(lz_error_count(), 0);
  assert_int_equal(m->decls.len, n + 4);
  for (int i = 0; i < 3; i++) {
    FeDecl *inst = m->decls.data[n + i];
    for (int j = 0; j < inst->body.len; j++) {
      FeDecl *meth = inst->body.data[j];
      int depth = expr_depth(meth->matches.data[0]->rhs->plain);
      if (depth > 60) fail_msg("%s.%s: depth %d", inst->name.name, meth->name.name, depth);
    }
  }
  /* the Ord chain still compares all fields: a1..aK appear */
  FeDecl *cmp = ((FeDecl *)m->decls.data[n + 1])->body.data[0];
  assert_string_equal(cmp->name.name, "compare");
  assert_int_equal(cmp->matches.data[0]->pats.len, 2);
}

static void test_many_constructors(void **state) {
  (void)state;
  enum { N = 500 };
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "E", "", "Eq Ord Show Enum Bounded");
  for (int i = 0; i < N; i++)
    add_con(d, lz_fmt("E%d", i), "");
  int n = derive(m);
  assert_int_equal(lz_error_count(), 0);
  assert_int_equal(m->decls.len, n + 5);
  FeDecl *eq = ((FeDecl *)m->decls.data[n])->body.data[0];
  assert_int_equal(eq->matches.len, N + 1);
  FeDecl *show = ((FeDecl *)m->decls.data[n + 2])->body.data[0];
  assert_int_equal(show->matches.len, N);
  char *s = instance_text(m, n, 4);
  assert_non_null(strstr(s, "Lz.Base.minBound = Main.E0\n  Lz.Base.maxBound = Main.E499\n"));
  assert_non_null(strstr(instance_text(m, n, 3), "range (0,499)"));
  /* tag2con is a binary search: shallow, and every constructor is reachable */
  FeDecl *succ = ((FeDecl *)m->decls.data[n + 3])->body.data[0];
  assert_string_equal(succ->name.name, "succ");
  FeDecl *t2c = succ->matches.data[0]->rhs->where.data[3];
  assert_string_equal(t2c->name.name, "tag2con");
  FeExpr *e = t2c->matches.data[0]->rhs->plain;
  assert_true(expr_depth(e) < 40);
  for (int want = 0; want < N; want++) { /* follow the search for x = want */
    const FeExpr *cur = e;
    while (cur->kind == E_IF) {
      int64_t mid = cur->e1->args.data[1]->lit.i;
      cur = want < mid ? cur->e2 : cur->e3;
    }
    assert_int_equal(cur->kind, E_CON);
    assert_string_equal(cur->id.name, lz_fmt("E%d", want));
  }
}

/* ---- with the parser ------------------------------------------------------------------- */

static FeModule *parse(const char *text) {
  FeModule *m = fe_parse_module(lz_source_add("P.lz", text, strlen(text)));
  assert_non_null(m);
  return m;
}

static void test_parsed_infix_records_and_fixity(void **state) {
  (void)state;
  FeModule *m = parse("module M.N where\n"
                      "infixr 5 :->\n"
                      "data Op = Int :-> Int | Op :<> Op | Int `Foo` Int | (:%) Int Int\n"
                      "  deriving Show\n"
                      "data R = R { a, b :: Int, (+++) :: [Int] } | S {} deriving (Eq, P.Show)\n"
                      "newtype N a = N (a -> Int) deriving ()\n"
                      "infixl 6 `Foo`\n");
  int n = derive(m);
  assert_int_equal(lz_error_count(), 0);
  assert_int_equal(m->decls.len, n + 3);
  char *op = instance_text(m, n, 0);
  assert_non_null(strstr(op, "Lz.Base.showsPrec a ((M.N.:->) b1 b2) = (Lz.Base.showParen "
                             "((Lz.Base.>=) a 6) ((Lz.Base..) (Lz.Base.showsPrec 6 b1) "
                             "((Lz.Base..) (Lz.Base.showString \" :-> \") (Lz.Base.showsPrec 6 "
                             "b2))))\n"));
  assert_non_null(strstr(op, "((M.N.:<>) b1 b2) = (Lz.Base.showParen ((Lz.Base.>=) a 10)"));
  assert_non_null(strstr(op, "(M.N.Foo b1 b2) = (Lz.Base.showParen ((Lz.Base.>=) a 7) "
                             "((Lz.Base..) (Lz.Base.showsPrec 7 b1) ((Lz.Base..) "
                             "(Lz.Base.showString \" `Foo` \")"));
  assert_non_null(strstr(op, "(Lz.Base.showString \"(:%) \")"));
  /* the deriving clause's class name, written qualified, is taken by its name */
  assert_non_null(
      strstr(instance_text(m, n, 1), "(Lz.Base.==) (M.N.R a1 a2 a3) (M.N.R b1 b2 b3) = "));
  char *r = instance_text(m, n, 2);
  assert_non_null(strstr(r, "instance Lz.Base.Show M.N.R where\n"));
  assert_non_null(strstr(r, "(Lz.Base.showString \"R {\")"));
  assert_non_null(strstr(r, "(Lz.Base.showString \"b = \")"));
  assert_non_null(strstr(r, "(Lz.Base.showString \"(+++) = \")"));
  assert_non_null(strstr(r, "Lz.Base.showsPrec _ M.N.S = (Lz.Base.showString \"S\")\n"));
}

static void test_parsed_error_points_at_class(void **state) {
  (void)state;
  FeModule *m = parse("data E deriving Eq\n"
                      "data C = C Int deriving (Show, Enum)\n");
  int n = derive(m);
  assert_int_equal(lz_error_count(), 2);
  assert_int_equal(m->decls.len, n + 1);
  const char *out = diagnostics();
  assert_non_null(strstr(out, "P.lz:1:17: error:\n"));
  assert_non_null(strstr(out, "P.lz:2:32: error:\n"));
  assert_non_null(strstr(out, "2 | data C = C Int deriving (Show, Enum)\n"));
}

/* ---- the library names exist ---------------------------------------------------------- */

typedef LZ_VEC(const FeIdent *) IdentVec;

static void collect_type(IdentVec *out, const FeType *t) {
  if (!t) return;
  if (t->kind == TY_CON || t->kind == TY_VAR) LZ_PUSH(*out, &t->id);
  collect_type(out, t->left);
  collect_type(out, t->right);
}

static void collect_pat(IdentVec *out, const FePat *p) {
  LZ_PUSH(*out, &p->id);
  for (int i = 0; i < p->args.len; i++)
    collect_pat(out, p->args.data[i]);
}

static void collect_decl(IdentVec *out, const FeDecl *d);

static void collect_expr(IdentVec *out, const FeExpr *e) {
  if (!e) return;
  LZ_PUSH(*out, &e->id);
  collect_expr(out, e->fn);
  for (int i = 0; i < e->args.len; i++)
    collect_expr(out, e->args.data[i]);
  collect_expr(out, e->e1);
  collect_expr(out, e->e2);
  collect_expr(out, e->e3);
  for (int i = 0; i < e->alts.len; i++) {
    collect_pat(out, e->alts.data[i].pat);
    collect_expr(out, e->alts.data[i].rhs->plain);
  }
}

static void collect_decl(IdentVec *out, const FeDecl *d) {
  LZ_PUSH(*out, &d->name);
  for (int i = 0; i < d->names.len; i++)
    LZ_PUSH(*out, &d->names.data[i]);
  if (d->sig) {
    collect_type(out, d->sig->type);
    for (int i = 0; i < d->sig->ctx.len; i++) {
      LZ_PUSH(*out, &d->sig->ctx.data[i].cls);
      collect_type(out, d->sig->ctx.data[i].type);
    }
  }
  for (int i = 0; i < d->body.len; i++)
    collect_decl(out, d->body.data[i]);
  for (int i = 0; i < d->matches.len; i++) {
    FeMatch *m = d->matches.data[i];
    for (int j = 0; j < m->pats.len; j++)
      collect_pat(out, m->pats.data[j]);
    collect_expr(out, m->rhs->plain);
    for (int j = 0; j < m->rhs->where.len; j++)
      collect_decl(out, m->rhs->where.data[j]);
  }
}

/* Every top-level entity of a parsed module: values, types, classes, methods and
 * constructors. */
static bool defines(const FeModule *m, Sym occ) {
  for (int i = 0; i < m->decls.len; i++) {
    const FeDecl *d = m->decls.data[i];
    if (d->name.name == occ && d->kind != D_INSTANCE) return true;
    if (d->kind == D_SIG || d->kind == D_FIXITY) continue;
    for (int j = 0; j < d->cons.len; j++)
      if (d->cons.data[j]->name.name == occ) return true;
    if (d->kind == D_CLASS)
      for (int j = 0; j < d->body.len; j++) {
        const FeDecl *b = d->body.data[j];
        for (int k = 0; b->kind == D_SIG && k < b->names.len; k++)
          if (b->names.data[k].name == occ) return true;
      }
  }
  return false;
}

static void test_library_names_exist_in_stdlib(void **state) {
  (void)state;
  /* derive every class for types exercising every code path */
  FeModule *m = new_module("Main");
  FeDecl *d = add_data(m, D_DATA, "Big", "a", "Eq Ord Show");
  for (int i = 0; i < 9; i++)
    add_con(d, lz_fmt("B%d", i), i % 3 ? "a; Int" : "");
  add_con_full(d, "R", "f :: Int; g :: a", true, false);
  add_con_full(d, ":+", "Int; Int", false, true);
  FeDecl *e = add_data(m, D_DATA, "E", "", "Eq Ord Show Enum Bounded");
  add_con(e, "E0", "");
  add_con(e, "E1", "");
  add_con(e, "E2", "");
  FeDecl *p = add_data(m, D_DATA, "P", "a", "Bounded");
  add_con(p, "P", "a; a");
  int n = derive(m);
  assert_int_equal(lz_error_count(), 0);
  IdentVec ids = {0};
  for (int i = n; i < m->decls.len; i++)
    collect_decl(&ids, m->decls.data[i]);

  FILE *f = fopen(LZ_STDLIB_DIR "/Lz/Base.lz", "rb");
  if (!f) skip(); /* the standard library is not there (yet) */
  LzSource *src = lz_source_read(LZ_STDLIB_DIR "/Lz/Base.lz");
  fclose(f);
  assert_non_null(src);
  FeModule *base = fe_parse_module(src);
  assert_non_null(base);
  int checked = 0;
  for (int i = 0; i < ids.len; i++) {
    const FeIdent *id = ids.data[i];
    if (!id->orig_module || strcmp(id->orig_module, "Main") == 0) continue;
    assert_string_equal(id->orig_module, "Lz.Base");
    if (!defines(base, id->name)) fail_msg("Lz.Base does not define %s", id->name);
    checked++;
  }
  assert_true(checked > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_eq_constructors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_eq_single_constructor_fields, setup, teardown),
      cmocka_unit_test_setup_teardown(test_eq_chains_nest_right_then_balance, setup, teardown),
      cmocka_unit_test_setup_teardown(test_context_phantom_and_nested, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dotted_module_and_spans, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ord_three_constructors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ord_fields_lexicographic, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ord_enumeration_uses_tags, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ord_large_mixed_type, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ord_high_constructor_checks_lower_tags, setup, teardown),
      cmocka_unit_test_setup_teardown(test_show_prefix_and_nullary, setup, teardown),
      cmocka_unit_test_setup_teardown(test_show_record, setup, teardown),
      cmocka_unit_test_setup_teardown(test_show_infix_with_fixity, setup, teardown),
      cmocka_unit_test_setup_teardown(test_show_newtype, setup, teardown),
      cmocka_unit_test_setup_teardown(test_enum, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
      cmocka_unit_test_setup_teardown(test_enum_of_non_enumeration, setup, teardown),
      cmocka_unit_test_setup_teardown(test_error_location_and_newtype_enum, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bounded_errors_and_empty_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unsupported_classes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_module_without_deriving, setup, teardown),
      cmocka_unit_test_setup_teardown(test_instances_in_order_and_user_decls_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_fields_stay_shallow, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_constructors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parsed_infix_records_and_fixity, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parsed_error_points_at_class, setup, teardown),
      cmocka_unit_test_setup_teardown(test_library_names_exist_in_stdlib, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
