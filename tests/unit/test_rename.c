/* test_rename.c — unit tests of the renamer (frontend/rename*.c, builtin.c).
 *
 * Each test writes a small multi-module program into a fresh directory under /tmp,
 * runs fe_rename_program on it with diagnostics captured in memory, and checks how
 * identifiers resolved (by looking at FeIdent.ref in the renamed AST) or which error
 * was reported at which line. Most programs use NoImplicitPrelude so that they do not
 * depend on the standard library; one test loads the real stdlib (LZ_STDLIB_DIR), and
 * a fake stdlib directory tests the implicit Prelude and the wired-in check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "passes.h"

/* ---- harness --------------------------------------------------------------------- */

static char tmpdir[256];
static char *diag_text;
static size_t diag_len;
static FILE *diag;
static FeProgram prog;
static bool ok;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static int setup(void **state) {
  (void)state;
  lz_reset();
  strcpy(tmpdir, "/tmp/lz_rename_XXXXXX");
  if (!mkdtemp(tmpdir)) return -1;
  diag = open_memstream(&diag_text, &diag_len);
  lz_set_diag_stream(diag);
  lz_set_error_limit(100);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  lz_set_diag_stream(NULL);
  fclose(diag);
  free(diag_text);
  diag_text = NULL;
  nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  lz_reset();
  return 0;
}

/* Write tmpdir/rel (creating directories). */
static void put(const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
  for (char *s = path + strlen(tmpdir) + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      mkdir(path, 0755);
      *s = '/';
    }
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static const char *path_in(const char *rel) { return lz_fmt("%s/%s", tmpdir, rel); }

/* Rename tmpdir/Main.lz with the given stdlib directory (NULL: none). */
static bool rename_main_with(const char *stdlib) {
  FeOptions o = {0};
  o.stdlib_dir = stdlib;
  ok = fe_rename_program(path_in("Main.lz"), NULL, 0, &o, &prog);
  fflush(diag);
  return ok;
}

static bool rename_main(void) { return rename_main_with(path_in("stdlib")); }

static const char *diags(void) { return diag_text ? diag_text : ""; }

/* Is there a diagnostic at file `file`, line `line` whose text contains `needle`? */
static bool has_error(const char *file, int line, const char *needle) {
  const char *d = diags();
  char head[600];
  snprintf(head, sizeof head, "%s/%s:%d:", tmpdir, file, line);
  for (const char *p = strstr(d, head); p; p = strstr(p + 1, head)) {
    const char *end = strstr(p + 1, ": error:\n");
    const char *next = end ? strstr(end + 1, ": error:\n") : NULL;
    /* the message runs to the start of the line of the next header */
    while (next && next > p && next[-1] != '\n')
      next--;
    size_t n = next ? (size_t)(next - p) : strlen(p);
    char *msg = lz_strndup(p, n);
    if (strstr(msg, needle)) return true;
  }
  return false;
}

#define EXPECT_ERROR(file, line, needle)                                                           \
  do {                                                                                             \
    if (!has_error(file, line, needle))                                                            \
      fail_msg("expected error at %s:%d containing \"%s\"; diagnostics:\n%s", file, line, needle,  \
               diags());                                                                           \
  } while (0)

#define EXPECT_CLEAN()                                                                             \
  do {                                                                                             \
    if (!ok || lz_error_count() > 0) fail_msg("unexpected errors:\n%s", diags());                  \
  } while (0)

static FeModule *module_named(const char *name) {
  for (int i = 0; i < prog.modules.len; i++)
    if (strcmp(prog.modules.data[i]->name.name, name) == 0) return prog.modules.data[i];
  fail_msg("module %s not in the program", name);
  return NULL;
}

static FeDecl *decl_named(FeModule *m, const char *name) {
  for (int i = 0; i < m->decls.len; i++) {
    FeDecl *d = m->decls.data[i];
    if ((d->kind == D_FUN || d->kind == D_DATA || d->kind == D_CLASS) && d->name.name &&
        strcmp(d->name.name, name) == 0)
      return d;
  }
  fail_msg("no declaration %s", name);
  return NULL;
}

/* The right-hand side of `name = e` in module `mod`. */
static FeExpr *rhs_of(const char *mod, const char *name) {
  FeDecl *d = decl_named(module_named(mod), name);
  assert_int_equal(d->kind, D_FUN);
  assert_non_null(d->matches.data[0]->rhs->plain);
  return d->matches.data[0]->rhs->plain;
}

static void expect_ref(FeIdent *id, const char *module, const char *occ) {
  assert_non_null(id->ref);
  assert_string_equal(id->ref->occ, occ);
  if (module) {
    assert_non_null(id->ref->module);
    assert_string_equal(id->ref->module, module);
  } else {
    assert_null(id->ref->module);
  }
}

#define NOPRELUDE "{-# LANGUAGE NoImplicitPrelude #-}\n"

static const char *lib_a =
    NOPRELUDE "module A (foo, bar, T(..), C(..), (+++), Shape(Circle)) where\n"
              "infixr 5 +++\n"
              "data T = MkT { fld :: T } | Nil\n"
              "data Shape = Circle | Square\n"
              "foo = Nil\n"
              "bar = foo\n"
              "hidden = foo\n"
              "(+++) :: T -> T -> T\n"
              "a +++ b = a\n"
              "class C a where\n"
              "  meth :: a -> a\n";

/* ---- resolution ------------------------------------------------------------------- */

static void test_qualified_and_unqualified(void **state) {
  (void)state;
  put("A.lz", lib_a);
  put("Main.lz", NOPRELUDE "module Main where\n"
                           "import qualified A as X\n"
                           "import A (bar)\n"
                           "main = X.foo\n"
                           "g = bar\n"
                           "h = X.MkT { X.fld = X.Nil }\n");
  rename_main();
  EXPECT_CLEAN();
  assert_int_equal(prog.modules.len, 2);
  assert_string_equal(prog.modules.data[0]->name.name, "A");
  assert_ptr_equal(prog.modules.data[1], prog.main);
  FeExpr *e = rhs_of("Main", "main");
  assert_int_equal(e->kind, E_VAR);
  expect_ref(&e->id, "A", "foo");
  assert_true(e->id.ref->top);
  expect_ref(&rhs_of("Main", "g")->id, "A", "bar");
  FeExpr *r = rhs_of("Main", "h");
  assert_int_equal(r->kind, E_RECCON);
  expect_ref(&r->id, "A", "MkT");
  expect_ref(&r->fields.data[0].field, "A", "fld");
  assert_ptr_equal(r->fields.data[0].field.ref->parent, r->id.ref->parent);
  /* the same entity everywhere: A's own binding and Main's use share one FeName */
  assert_ptr_equal(decl_named(module_named("A"), "foo")->name.ref, e->id.ref);
}

static void test_unqualified_use_of_qualified_import(void **state) {
  (void)state;
  put("A.lz", lib_a);
  put("Main.lz", NOPRELUDE "import qualified A as X\n"
                           "main = foo\n"
                           "other = X.hidden\n"
                           "more = Q.foo\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 3, "Variable not in scope: foo");
  EXPECT_ERROR("Main.lz", 4, "Not in scope: ‘X.hidden’");
  EXPECT_ERROR("Main.lz", 4, "Module ‘A’ does not export ‘hidden’.");
  EXPECT_ERROR("Main.lz", 5, "Not in scope: ‘Q.foo’");
  EXPECT_ERROR("Main.lz", 5, "No module named ‘Q’ is imported.");
}

static void test_hiding(void **state) {
  (void)state;
  put("A.lz", lib_a);
  put("Main.lz", NOPRELUDE "import A hiding (foo, Shape(..))\n"
                           "main = bar\n"
                           "g = foo\n"
                           "h = Circle\n"
                           "k = A.foo\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 4, "Variable not in scope: foo");
  EXPECT_ERROR("Main.lz", 5, "Data constructor not in scope: Circle");
  EXPECT_ERROR("Main.lz", 6, "Module ‘A’ does not export ‘foo’.");
  expect_ref(&rhs_of("Main", "main")->id, "A", "bar");
  assert_int_equal(lz_error_count(), 3);
}

static void test_shadowing(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "main = f main\n"
                           "f x = let x = y; y = x in \\x -> case x of { z -> z }\n");
  rename_main();
  EXPECT_CLEAN();
  FeDecl *f = decl_named(prog.main, "f");
  FeName *arg = f->matches.data[0]->pats.data[0]->id.ref;
  assert_non_null(arg);
  assert_false(arg->top);
  FeExpr *let = f->matches.data[0]->rhs->plain;
  assert_int_equal(let->kind, E_LET);
  FeDecl *bx = let->decls.data[0], *by = let->decls.data[1];
  /* let x = y: y refers to the let's y; y = x: x refers to the let's x, not the argument */
  assert_ptr_equal(bx->matches.data[0]->rhs->plain->id.ref, by->name.ref);
  assert_ptr_equal(by->matches.data[0]->rhs->plain->id.ref, bx->name.ref);
  assert_ptr_not_equal(bx->name.ref, arg);
  FeExpr *lam = let->e1;
  assert_int_equal(lam->kind, E_LAM);
  FeName *lx = lam->pats.data[0]->id.ref;
  assert_ptr_not_equal(lx, bx->name.ref);
  FeExpr *cs = lam->e1;
  assert_int_equal(cs->kind, E_CASE);
  assert_ptr_equal(cs->e1->id.ref, lx);
  assert_ptr_equal(cs->alts.data[0].rhs->plain->id.ref, cs->alts.data[0].pat->id.ref);
  /* every binder is a distinct entity */
  assert_int_not_equal(lx->uniq, arg->uniq);
  assert_ptr_equal(rhs_of("Main", "main")->args.data[0]->id.ref,
                   decl_named(prog.main, "main")->name.ref);
}

static void test_where_and_guards(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "data B = T | F\n"
                           "main = f T\n"
                           "f x | T <- x, let { y = w } = y\n"
                           "    | otherwise = w\n"
                           "  where w = x\n"
                           "        otherwise = T\n");
  rename_main();
  EXPECT_CLEAN();
  FeDecl *f = decl_named(prog.main, "f");
  FeRhs *rhs = f->matches.data[0]->rhs;
  FeDecl *w = rhs->where.data[0];
  assert_ptr_equal(w->matches.data[0]->rhs->plain->id.ref,
                   f->matches.data[0]->pats.data[0]->id.ref);
  FeGuarded *g0 = &rhs->guards.data[0];
  FeDecl *y = g0->quals.data[1]->decls.data[0];
  assert_ptr_equal(g0->e->id.ref, y->name.ref);
  assert_ptr_equal(y->matches.data[0]->rhs->plain->id.ref, w->name.ref);
  assert_ptr_equal(rhs->guards.data[1].quals.data[0]->e->id.ref, rhs->where.data[1]->name.ref);
}

static void test_dependency_order_and_reexport(void **state) {
  (void)state;
  put("A.lz", lib_a);
  put("B/C.lz", NOPRELUDE "module B.C (module A, baz) where\nimport A\nbaz = foo\n");
  put("Main.lz", NOPRELUDE "import B.C\nmain = baz\ng = bar\nh = MkT Nil\n");
  rename_main();
  EXPECT_CLEAN();
  assert_int_equal(prog.modules.len, 3);
  assert_string_equal(prog.modules.data[0]->name.name, "A");
  assert_string_equal(prog.modules.data[1]->name.name, "B.C");
  assert_string_equal(prog.modules.data[2]->name.name, "Main");
  expect_ref(&rhs_of("Main", "g")->id, "A", "bar");
  expect_ref(&rhs_of("Main", "h")->fn->id, "A", "MkT");
}

static void test_import_items(void **state) {
  (void)state;
  put("A.lz", lib_a);
  put("Main.lz", NOPRELUDE "import A (T(MkT), C(..), Shape, (+++))\n"
                           "main = MkT (meth Nil)\n"
                           "x :: Shape\n"
                           "x = Circle\n"
                           "y = fld\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 3, "Data constructor not in scope: Nil");
  EXPECT_ERROR("Main.lz", 5, "Data constructor not in scope: Circle");
  EXPECT_ERROR("Main.lz", 6, "Variable not in scope: fld");
  FeExpr *m = rhs_of("Main", "main");
  expect_ref(&m->fn->id, "A", "MkT");
  expect_ref(&m->args.data[0]->fn->id, "A", "meth");
  assert_int_equal(m->args.data[0]->fn->id.ref->parent->kind, N_CLASS);
  assert_int_equal(lz_error_count(), 3);
}

static void test_export_restricts(void **state) {
  (void)state;
  put("A.lz", lib_a);
  put("Main.lz", NOPRELUDE "import A (hidden, Square, Shape(Square), T(Nope))\n"
                           "main = main\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 2, "Module ‘A’ does not export ‘hidden’");
  EXPECT_ERROR("Main.lz", 2, "Module ‘A’ does not export ‘Square’");
  EXPECT_ERROR("Main.lz", 2, "Module ‘A’ does not export ‘Shape(Square)’");
  EXPECT_ERROR("Main.lz", 2, "Module ‘A’ does not export ‘T(Nope)’");
}

static void test_operators_and_fixity(void **state) {
  (void)state;
  put("A.lz", lib_a);
  put("Main.lz", NOPRELUDE "import A\n"
                           "infixl 6 <+>\n"
                           "a <+> b = a\n"
                           "main = foo +++ bar +++ foo\n"
                           "g = foo <+> bar <+> foo\n"
                           "h = (+++ foo)\n"
                           "k (x : xs) = x\n");
  rename_main();
  EXPECT_CLEAN();
  FeName *plus = decl_named(prog.main, "<+>")->name.ref;
  assert_true(plus->has_fixity);
  assert_int_equal(plus->assoc, ASSOC_LEFT);
  assert_int_equal(plus->prec, 6);
  assert_true(plus->is_op);
  FeExpr *m = rhs_of("Main", "main");
  assert_int_equal(m->kind, E_APP); /* infixr: foo +++ (bar +++ foo) */
  expect_ref(&m->fn->id, "A", "+++");
  assert_true(m->fn->id.ref->has_fixity);
  assert_int_equal(m->fn->id.ref->prec, 5);
  assert_int_equal(m->args.len, 2);
  assert_int_equal(m->args.data[0]->kind, E_VAR);
  assert_int_equal(m->args.data[1]->kind, E_APP);
  FeExpr *g = rhs_of("Main", "g"); /* infixl: (foo <+> bar) <+> foo */
  assert_int_equal(g->kind, E_APP);
  assert_int_equal(g->args.data[0]->kind, E_APP);
  assert_int_equal(g->args.data[1]->kind, E_VAR);
  FeExpr *h = rhs_of("Main", "h");
  assert_int_equal(h->kind, E_RSECTION);
  expect_ref(&h->id, "A", "+++");
  FePat *p = decl_named(prog.main, "k")->matches.data[0]->pats.data[0];
  assert_int_equal(p->kind, P_CON); /* parentheses gone, operator resolved */
  assert_ptr_equal(p->id.ref, fe_builtin_cons());
  assert_int_equal(p->args.len, 2);
}

static void test_negation_in_parens(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "main = f (- main)\nf x = ((x))\n");
  rename_main();
  EXPECT_CLEAN();
  FeExpr *m = rhs_of("Main", "main");
  assert_int_equal(m->kind, E_APP);
  assert_int_equal(m->args.data[0]->kind, E_NEG);
  assert_int_equal(rhs_of("Main", "f")->kind, E_VAR);
}

static void test_section_precedence(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "infixl 6 +.\n"
                           "infixl 7 *.\n"
                           "a +. b = a\n"
                           "a *. b = a\n"
                           "main = main\n"
                           "f = (main +. main *.)\n"
                           "g = (main *. main +.)\n"
                           "h = (*. main +. main)\n"
                           "k = ((main +. main) *.)\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 7, "The operator ‘*.’ [infixl 7] of a section");
  EXPECT_ERROR("Main.lz", 7, "namely ‘+.’ [infixl 6]");
  EXPECT_ERROR("Main.lz", 7, "in the section: ‘main +. main *.’");
  EXPECT_ERROR("Main.lz", 9, "The operator ‘*.’ [infixl 7] of a section");
  assert_int_equal(lz_error_count(), 2);
}

static void test_builtin_syntax(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "main = (,,) [] () (:)\n"
                           "f :: [a] -> (a, b) -> () -> (a -> b)\n"
                           "f = f\n");
  rename_main();
  EXPECT_CLEAN();
  FeExpr *m = rhs_of("Main", "main");
  assert_ptr_equal(m->fn->id.ref, fe_builtin_tuple_con(3));
  assert_ptr_equal(m->args.data[0]->id.ref, fe_builtin_nil());
  assert_ptr_equal(m->args.data[1]->id.ref, fe_builtin_unit());
  assert_ptr_equal(m->args.data[2]->id.ref, fe_builtin_cons());
  assert_int_equal(fe_builtin_cons()->assoc, ASSOC_RIGHT);
  assert_int_equal(fe_builtin_cons()->prec, 5);
  assert_ptr_equal(fe_builtin_cons()->parent, fe_builtin_list_tycon());
  assert_non_null(fe_builtin_tuple_con(62));
  assert_null(fe_builtin_tuple_con(63));
  assert_int_equal(fe_builtin_tuple_tycon(5)->decl->tyvars.len, 5);
}

static void test_type_variables(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "data P a = P a b\n"
                           "class K a where\n"
                           "  op :: a -> b -> a\n"
                           "instance K (P c) where\n"
                           "  op x y = x\n"
                           "f :: a -> a\n"
                           "f x = (x :: a)\n"
                           "main = main\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 2, "Not in scope: type variable ‘b’");
  assert_int_equal(lz_error_count(), 1);
  FeDecl *k = decl_named(prog.main, "K");
  FeName *cv = k->tyvars.data[0].ref;
  FeType *opty = k->body.data[0]->sig->type; /* a -> (b -> a) */
  assert_ptr_equal(opty->left->id.ref, cv);
  assert_ptr_equal(opty->right->right->id.ref, cv);
  /* per-signature quantification: the annotation's a is not f's a */
  FeDecl *f = decl_named(prog.main, "f");
  FeExpr *ann = f->matches.data[0]->rhs->plain;
  assert_int_equal(ann->kind, E_TYPED);
  FeDecl *sig = NULL;
  for (int i = 0; i < prog.main->decls.len; i++)
    if (prog.main->decls.data[i]->kind == D_SIG) sig = prog.main->decls.data[i];
  assert_non_null(sig);
  assert_ptr_equal(sig->names.data[0].ref, f->name.ref);
  assert_non_null(sig->sig->type->left->id.ref);
  assert_ptr_not_equal(ann->sig->type->id.ref, sig->sig->type->left->id.ref);
  assert_int_equal(ann->sig->type->id.ref->kind, N_TYVAR);
}

/* ---- errors --------------------------------------------------------------------------- */

static void test_not_in_scope(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "main = foo\n"
                           "g = Foo\n"
                           "h (Bar y) = y\n"
                           "k :: Baz -> Int\n"
                           "k = k\n"
                           "m = 1 +++ 2\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 2, "Variable not in scope: foo");
  EXPECT_ERROR("Main.lz", 3, "Data constructor not in scope: Foo");
  EXPECT_ERROR("Main.lz", 4, "Not in scope: data constructor ‘Bar’");
  EXPECT_ERROR("Main.lz", 5, "Not in scope: type constructor or class ‘Baz’");
  EXPECT_ERROR("Main.lz", 5, "Not in scope: type constructor or class ‘Int’");
  EXPECT_ERROR("Main.lz", 7, "Variable not in scope: (+++)");
  /* the caret is on the identifier */
  assert_non_null(strstr(diags(), "Main.lz:2:8: error"));
  assert_non_null(strstr(diags(), "Main.lz:7:7: error"));
  /* no cascade: unresolved names still have a (placeholder) ref */
  assert_non_null(rhs_of("Main", "main")->id.ref);
}

static void test_duplicates(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "main = main\n"
                           "f :: a\n"
                           "f :: a\n"
                           "f = f\n"
                           "g :: a\n"
                           "h = h\n"
                           "h = h\n"
                           "infixl 6 %%\n"
                           "k (x, x) = x\n"
                           "l = let y = y; y = y in y\n"
                           "n = \\z z -> z\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 4, "Duplicate type signatures for ‘f’");
  EXPECT_ERROR("Main.lz", 6, "The type signature for ‘g’ lacks an accompanying binding");
  EXPECT_ERROR("Main.lz", 8, "Multiple declarations of ‘h’");
  EXPECT_ERROR("Main.lz", 8, "Declared at:");
  EXPECT_ERROR("Main.lz", 9, "The fixity signature for ‘%%’ lacks an accompanying binding");
  EXPECT_ERROR("Main.lz", 10, "Conflicting definitions for ‘x’");
  EXPECT_ERROR("Main.lz", 10, "In an equation for ‘k’");
  EXPECT_ERROR("Main.lz", 11, "Conflicting definitions for ‘y’");
  EXPECT_ERROR("Main.lz", 12, "In a lambda abstraction");
  assert_int_equal(lz_error_count(), 7);
}

static void test_fixity_twice(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "main = main\ninfixl 5 `op`\ninfixr 5 `op`\nop a b = a\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 3, "Multiple fixity declarations for ‘op’");
}

static void test_ambiguous(void **state) {
  (void)state;
  put("A.lz", NOPRELUDE "module A where\nfoo = foo\n");
  put("B.lz", NOPRELUDE "module B where\nfoo = foo\n");
  put("Main.lz", NOPRELUDE "import A\n"
                           "import B\n"
                           "import qualified A as Q\n"
                           "import qualified B as Q\n"
                           "main = main\n"
                           "g = foo\n"
                           "h = Q.foo\n"
                           "k = A.foo\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 7, "Ambiguous occurrence ‘foo’");
  EXPECT_ERROR("Main.lz", 7, "It could refer to");
  EXPECT_ERROR("Main.lz", 7, "either ‘A.foo’,");
  EXPECT_ERROR("Main.lz", 7, "imported from ‘A’ at");
  EXPECT_ERROR("Main.lz", 7, "or ‘B.foo’,");
  EXPECT_ERROR("Main.lz", 8, "Ambiguous occurrence ‘Q.foo’");
  EXPECT_ERROR("Main.lz", 8, "imported qualified from ‘B’");
  assert_int_equal(lz_error_count(), 2); /* A.foo is fine, unused imports are fine */
}

static void test_ambiguous_with_local(void **state) {
  (void)state;
  put("A.lz", NOPRELUDE "module A where\nfoo = foo\n");
  put("Main.lz", NOPRELUDE "import A\nfoo = foo\nmain = Main.foo\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 3, "Ambiguous occurrence ‘foo’");
  EXPECT_ERROR("Main.lz", 3, "defined at");
  assert_int_equal(lz_error_count(), 1);
}

static void test_records(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "data T = A { fa :: T, fb :: T } | B { fa :: T } | C T\n"
                           "main = main\n"
                           "r = B { fb = main }\n"
                           "s x = case x of { B { fb = y } -> y }\n"
                           "t = A { fa = main, fb = main }\n"
                           "u = t { fa = main }\n"
                           "v = t { fc = main }\n"
                           "w = t { main = main }\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 4, "Constructor ‘B’ does not have field ‘fb’");
  EXPECT_ERROR("Main.lz", 5, "Constructor ‘B’ does not have field ‘fb’");
  EXPECT_ERROR("Main.lz", 8, "Not in scope: ‘fc’");
  EXPECT_ERROR("Main.lz", 9, "‘main’ is not a record selector");
  assert_int_equal(lz_error_count(), 4);
  FeDecl *t = decl_named(prog.main, "T");
  /* one selector per field name, shared by the constructors that have it */
  assert_ptr_equal(t->cons.data[0]->fields.data[0].label.ref,
                   t->cons.data[1]->fields.data[0].label.ref);
  assert_ptr_equal(t->cons.data[0]->fields.data[0].label.ref->parent, t->name.ref);
  FeExpr *u = rhs_of("Main", "u");
  assert_ptr_equal(u->fields.data[0].field.ref, t->cons.data[0]->fields.data[0].label.ref);
}

static void test_classes_and_instances(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "class K a where\n"
                           "  infixl 4 <#>\n"
                           "  (<#>) :: a -> a -> a\n"
                           "  x <#> y = x\n"
                           "  other :: a\n"
                           "data T = T\n"
                           "instance K T where\n"
                           "  a <#> b = b\n"
                           "  nope = T\n"
                           "main = T <#> T\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 10, "‘nope’ is not a (visible) method of class ‘K’");
  assert_int_equal(lz_error_count(), 1);
  FeDecl *k = decl_named(prog.main, "K");
  FeName *op = k->body.data[1]->names.data[0].ref;
  assert_int_equal(op->kind, N_VAR);
  assert_ptr_equal(op->parent, k->name.ref);
  assert_true(op->has_fixity);
  assert_int_equal(op->prec, 4);
  assert_ptr_equal(k->body.data[2]->name.ref, op); /* default method */
  FeDecl *inst = NULL;
  for (int i = 0; i < prog.main->decls.len; i++)
    if (prog.main->decls.data[i]->kind == D_INSTANCE) inst = prog.main->decls.data[i];
  assert_non_null(inst);
  assert_ptr_equal(inst->name.ref, k->name.ref);
  assert_ptr_equal(inst->body.data[0]->name.ref, op);
  assert_ptr_equal(rhs_of("Main", "main")->fn->id.ref, op);
}

static void test_missing_module(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "import Foo.Bar\nimport A\nmain = main\n");
  put("A.lz", NOPRELUDE "module A where\nimport Nope\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 2, "Could not find module ‘Foo.Bar’");
  EXPECT_ERROR("Main.lz", 2, "Foo/Bar.lz");
  EXPECT_ERROR("A.lz", 3, "Could not find module ‘Nope’");
}

static void test_import_cycle(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "import A\nmain = main\n");
  put("A.lz", NOPRELUDE "module A where\nimport B\n");
  put("B.lz", NOPRELUDE "module B where\nimport C\n");
  put("C.lz", NOPRELUDE "module C where\nimport A\n");
  assert_false(rename_main());
  EXPECT_ERROR("C.lz", 3, "Module imports form a cycle");
  EXPECT_ERROR("C.lz", 3, "module ‘A’");
  EXPECT_ERROR("C.lz", 3, "imports ‘B’");
  EXPECT_ERROR("C.lz", 3, "which imports ‘A’");
  assert_int_equal(lz_error_count(), 1);
}

static void test_header_mismatch(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "import W\nmain = main\n");
  put("W.lz", NOPRELUDE "module Q where\n");
  assert_false(rename_main());
  EXPECT_ERROR("W.lz", 2, "File name does not match module name");
  EXPECT_ERROR("W.lz", 2, "Saw: ‘Q’");
  EXPECT_ERROR("W.lz", 2, "Expected: ‘W’");
}

static void test_exports_errors(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "module Main (main, nothere, module Foo, T(K), Zed) where\n"
                           "data T = T1\n"
                           "main = main\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 2, "Not in scope: ‘nothere’");
  EXPECT_ERROR("Main.lz", 2, "The export item ‘module Foo’ is not imported");
  EXPECT_ERROR("Main.lz", 2, "Not in scope: data constructor ‘K’");
  EXPECT_ERROR("Main.lz", 2, "Not in scope: type constructor or class ‘Zed’");
}

static void test_no_main(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "f = f\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 1, "The IO action ‘main’ is not defined in module ‘Main’");
}

static void test_main_from_text(void **state) {
  (void)state;
  put("A.lz", lib_a);
  const char *text = NOPRELUDE "import A\nmain = foo\n";
  FeOptions o = {0};
  ok = fe_rename_program(path_in("Main.lz"), text, strlen(text), &o, &prog);
  fflush(diag);
  EXPECT_CLEAN();
  expect_ref(&rhs_of("Main", "main")->id, "A", "foo");
}

static void test_include_dirs(void **state) {
  (void)state;
  put("lib/Util/Extra.lz", NOPRELUDE "module Util.Extra where\nhelper = helper\n");
  put("Main.lz", NOPRELUDE "import Util.Extra\nmain = helper\n");
  FeOptions o = {0};
  const char *dirs[] = {path_in("nothing"), path_in("lib")};
  o.include_dirs = dirs;
  o.n_include_dirs = 2;
  ok = fe_rename_program(path_in("Main.lz"), NULL, 0, &o, &prog);
  fflush(diag);
  EXPECT_CLEAN();
  expect_ref(&rhs_of("Main", "main")->id, "Util.Extra", "helper");
}

/* ---- the Prelude, wired-in names, the real stdlib ---------------------------------------- */

/* A fake stdlib: Lz/Base.lz defining every wired-in entity of wired.def (so the wired
 * check passes), and a Prelude re-exporting some of Lz.Base. */
static void fake_stdlib(bool complete) {
  char *base = lz_strdup("{-# LANGUAGE NoImplicitPrelude, MagicHash #-}\nmodule Lz.Base where\n"
                         "baseId x = x\ndata Maybe a = Nothing | Just a\n");
  for (int i = 1; i < WIRED_COUNT; i++) {
    const FeWiredInfo *w = &fe_wired_info[i];
    if (!w->module || strcmp(w->module, "Lz.Base") != 0) continue;
    if (!complete && i == 1) continue;
    bool sym = !((w->occ[0] >= 'a' && w->occ[0] <= 'z') || (w->occ[0] >= 'A' && w->occ[0] <= 'Z') ||
                 w->occ[0] == '_');
    if (strcmp(w->occ, "Maybe") == 0 || strcmp(w->occ, "Nothing") == 0 ||
        strcmp(w->occ, "Just") == 0)
      continue;
    switch (w->kind) {
    case W_TYPE: base = lz_fmt("%sdata %s\n", base, w->occ); break;
    case W_CLASS: base = lz_fmt("%sclass %s a\n", base, w->occ); break;
    case W_CON:
      base = sym ? lz_fmt("%sdata Wired%d = Wired%d %s Wired%d\n", base, i, i, w->occ, i)
                 : lz_fmt("%sdata Wired%d = %s\n", base, i, w->occ);
      break;
    case W_VALUE:
      base = sym ? lz_fmt("%sa %s b = a\n", base, w->occ)
                 : lz_fmt("%s%s = %s\n", base, w->occ, w->occ);
      break;
    }
  }
  put("stdlib/Lz/Base.lz", base);
  put("stdlib/Prelude.lz", "{-# LANGUAGE NoImplicitPrelude #-}\n"
                           "module Prelude (id, Maybe(..)) where\nimport Lz.Base\nid = baseId\n");
}

static void test_implicit_prelude(void **state) {
  (void)state;
  fake_stdlib(true);
  put("Main.lz", "main = id (Just Nothing)\ng = baseId\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 2, "Variable not in scope: baseId");
  assert_int_equal(lz_error_count(), 1);
  FeExpr *m = rhs_of("Main", "main");
  expect_ref(&m->fn->id, "Prelude", "id");
  expect_ref(&m->args.data[0]->fn->id, "Lz.Base", "Just");
  /* dependency order: Lz.Base, Prelude, Main */
  assert_int_equal(prog.modules.len, 3);
  assert_string_equal(prog.modules.data[0]->name.name, "Lz.Base");
  assert_string_equal(prog.modules.data[1]->name.name, "Prelude");
  for (int i = 1; i < WIRED_COUNT; i++) {
    assert_non_null(fe_wired[i]);
    assert_int_equal(fe_wired[i]->wired, i);
    assert_string_equal(fe_wired[i]->occ, fe_wired_info[i].occ);
  }
}

static void test_explicit_prelude_import(void **state) {
  (void)state;
  fake_stdlib(true);
  put("Main.lz", "import Prelude ()\nimport qualified Prelude as P\nmain = P.id id\n");
  assert_false(rename_main());
  EXPECT_ERROR("Main.lz", 3, "Variable not in scope: id");
  assert_int_equal(lz_error_count(), 1);
}

static void test_wired_missing(void **state) {
  (void)state;
  fake_stdlib(false);
  put("Main.lz", "main = id\n");
  assert_false(rename_main());
  assert_non_null(strstr(diags(), "wired-in"));
  assert_non_null(strstr(diags(), lz_fmt("%s.%s", fe_wired_info[1].module, fe_wired_info[1].occ)));
}

static void test_no_prelude_found(void **state) {
  (void)state;
  put("Main.lz", "main = main\n");
  assert_false(rename_main_with(path_in("empty")));
  EXPECT_ERROR("Main.lz", 1, "Could not find module ‘Prelude’");
}

/* The integration point with the real standard library. */
static void test_real_stdlib(void **state) {
  (void)state;
  put("Main.lz", "main = putStrLn (show (map (+ 1) [1, 2, 3 :: Int]))\n");
  rename_main_with(LZ_STDLIB_DIR);
  EXPECT_CLEAN();
  FeExpr *m = rhs_of("Main", "main");
  assert_non_null(m->fn->id.ref);
  for (int i = 1; i < WIRED_COUNT; i++)
    assert_non_null(fe_wired[i]);
}

/* Wired-in entities are available even when nothing imports their module. */
static void test_wired_without_prelude(void **state) {
  (void)state;
  put("Main.lz", NOPRELUDE "main = main\n");
  rename_main_with(LZ_STDLIB_DIR);
  EXPECT_CLEAN();
  for (int i = 1; i < WIRED_COUNT; i++)
    assert_non_null(fe_wired[i]);
  assert_int_equal(prog.modules.len, 2);
  assert_string_equal(prog.modules.data[0]->name.name, "Lz.Base");
  assert_ptr_equal(prog.modules.data[1], prog.main);
}

/* Derived instances are renamed like user code through original names. */
static void test_deriving_renamed(void **state) {
  (void)state;
  put("Main.lz", "data Colour = Red | Green deriving (Eq, Ord, Show, Enum, Bounded)\n"
                 "data Box a = Box { unBox :: a } deriving (Eq, Show)\n"
                 "main = print [Red ..]\n");
  rename_main_with(LZ_STDLIB_DIR);
  EXPECT_CLEAN();
  int generated = 0;
  for (int i = 0; i < prog.main->decls.len; i++) {
    FeDecl *d = prog.main->decls.data[i];
    if (d->kind != D_INSTANCE || !d->generated) continue;
    generated++;
    assert_non_null(d->name.ref);
    assert_int_equal(d->name.ref->kind, N_CLASS);
    for (int j = 0; j < d->body.len; j++)
      if (d->body.data[j]->kind == D_FUN)
        assert_ptr_equal(d->body.data[j]->name.ref->parent, d->name.ref);
  }
  assert_int_equal(generated, 7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_qualified_and_unqualified, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unqualified_use_of_qualified_import, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hiding, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shadowing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_where_and_guards, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dependency_order_and_reexport, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_items, setup, teardown),
      cmocka_unit_test_setup_teardown(test_export_restricts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_operators_and_fixity, setup, teardown),
      cmocka_unit_test_setup_teardown(test_negation_in_parens, setup, teardown),
      cmocka_unit_test_setup_teardown(test_section_precedence, setup, teardown),
      cmocka_unit_test_setup_teardown(test_builtin_syntax, setup, teardown),
      cmocka_unit_test_setup_teardown(test_type_variables, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_in_scope, setup, teardown),
      cmocka_unit_test_setup_teardown(test_duplicates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fixity_twice, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ambiguous, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ambiguous_with_local, setup, teardown),
      cmocka_unit_test_setup_teardown(test_records, setup, teardown),
      cmocka_unit_test_setup_teardown(test_classes_and_instances, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_module, setup, teardown),
      cmocka_unit_test_setup_teardown(test_import_cycle, setup, teardown),
      cmocka_unit_test_setup_teardown(test_header_mismatch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exports_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_main, setup, teardown),
      cmocka_unit_test_setup_teardown(test_main_from_text, setup, teardown),
      cmocka_unit_test_setup_teardown(test_include_dirs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_implicit_prelude, setup, teardown),
      cmocka_unit_test_setup_teardown(test_explicit_prelude_import, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wired_missing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_prelude_found, setup, teardown),
      cmocka_unit_test_setup_teardown(test_real_stdlib, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wired_without_prelude, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deriving_renamed, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
