/* test_parser.c — unit tests for the parser (parse_*.c), fixity resolution
 * (fixity.c) and the AST printer (ast_print.c).
 *
 * Most tests parse a small module and compare its declarations printed back (one per
 * line, fully parenthesised, explicit braces) with the expected text. Error tests
 * capture the diagnostics and check GHC's wording and location. The corpus test parses
 * every .lz file of tests/golden and stdlib; the robustness tests feed deep
 * nesting and mutated programs, which must give errors, never crashes or hangs.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "passes.h"

static FILE *diag;

static FeModule *parse(const char *text) {
  LzSource *s = lz_source_add("t.lz", text, strlen(text));
  return fe_parse_module(s);
}

static const char *decls_text(const FeModule *m) {
  if (!m) return "PARSE ERROR";
  char *out = "";
  for (int i = 0; i < m->decls.len; i++)
    out = lz_fmt("%s%s%s", out, i ? "\n" : "", fe_decl_to_string(m->decls.data[i]));
  return out;
}

static const char *pp(const char *text) { return decls_text(parse(text)); }

/* The diagnostics printed while parsing `text` (the module must fail to parse). */
static const char *errors(const char *text) {
  rewind(diag);
  if (ftruncate(fileno(diag), 0) != 0) return "ftruncate failed";
  FeModule *m = parse(text);
  fflush(diag);
  if (m) return "NO ERROR";
  long n = ftell(diag);
  char *buf = lz_alloc((size_t)n + 1);
  rewind(diag);
  size_t got = fread(buf, 1, (size_t)n, diag);
  buf[got] = 0;
  return buf;
}

#define assert_contains(hay, needle)                                                               \
  do {                                                                                             \
    const char *h_ = (hay);                                                                        \
    if (!strstr(h_, (needle))) fail_msg("expected \"%s\" in:\n%s", (needle), h_);                  \
  } while (0)

/* ---- expressions ----------------------------------------------------------------------- */

static void test_expressions(void **state) {
  assert_string_equal(pp("f = \\x (Just y) -> x y"), "f = (\\x ((Just y)) -> (x y))");
  assert_string_equal(pp("g = [1, 2 .. 10] ++ [1 ..] ++ [1 .. n] ++ [a, b ..]"),
                      "g = ([1, 2 .. 10] ++ [1 ..] ++ [1 .. n] ++ [a, b ..])");
  assert_string_equal(pp("h = [x + y | x <- xs, y <- ys, x < y, let z = x]"),
                      "h = [(x + y) | x <- xs, y <- ys, (x < y), let {z = x}]");
  assert_string_equal(pp("h = [[y | y <- x] | x <- xs]"), "h = [[y | y <- x] | x <- xs]");
  assert_string_equal(pp("i = (1, \"a\", 'c', ())"), "i = (1, \"a\", 'c', ())");
  assert_string_equal(pp("k = f (-1) (- x)"), "k = (f ((- 1)) ((- x)))");
  assert_string_equal(pp("l = M.f M.C (M.+) (`M.g` x) (M.N.x M.. y)"),
                      "l = (M.f M.C (M.+) (`M.g` x) ((M.N.x M.. y)))");
  assert_string_equal(pp("o = x :: Maybe [Int]"), "o = (x :: (Maybe [Int]))");
  assert_string_equal(pp("o = (x :: Num a => a, y)"), "o = ((x :: (Num a) => a), y)");
  assert_string_equal(pp("s = 1.5 + 0x10 + 1e3 + 2.0"), "s = (1.5 + 16 + 1e3 + 2.0)");
  assert_string_equal(pp("t = \"esc\\n\\t\\\"\\1\\&2\""), "t = \"esc\\n\\t\\\"\\1\\&2\"");
  assert_string_equal(pp("u = if a then b else c"), "u = (if a then b else c)");
  assert_string_equal(pp("v = f $ \\x -> x + 1"), "v = (f $ (\\x -> (x + 1)))");
  assert_string_equal(pp("w = do { a } >>= f"), "w = ((do {a}) >>= f)");
  assert_string_equal(pp("x = a !! 0 `div` 2"), "x = (a !! 0 `div` 2)");
  assert_string_equal(pp("y = - x ^ 2"), "y = (- x ^ 2)");
  assert_string_equal(pp("z = {-# SCC \"z\" #-} f x + 1"), "z = ({-# SCC \"z\" #-} ((f x) + 1))");
  assert_string_equal(pp("z = {-# SCC z #-} \\y -> y"), "z = ({-# SCC \"z\" #-} (\\y -> y))");
  assert_string_equal(pp("{-# LANGUAGE BangPatterns #-}\nl = \\ ~(a, b) !c _ -> a"),
                      "l = (\\ ~(a, b) !c _ -> a)");
}

static void test_sections(void **state) {
  assert_string_equal(pp("a = (+ 1)"), "a = (+ 1)");
  assert_string_equal(pp("a = (1 +)"), "a = (1 +)");
  assert_string_equal(pp("a = (`div` 2)"), "a = (`div` 2)");
  assert_string_equal(pp("a = (x `div`)"), "a = (x `div`)");
  assert_string_equal(pp("a = (a + b *)"), "a = ((a + b) *)");
  assert_string_equal(pp("a = (subtract 1)"), "a = ((subtract 1))");
  assert_string_equal(pp("a = (- 1)"), "a = ((- 1))");
  assert_string_equal(pp("a = (-)"), "a = (-)");
  assert_string_equal(pp("a = (+)"), "a = (+)");
  assert_string_equal(pp("a = (:)"), "a = (:)");
  assert_string_equal(pp("a = (,) 1 2"), "a = ((,) 1 2)");
  assert_string_equal(pp("a = (,,)"), "a = (,,)");
  assert_string_equal(pp("a = (M.+ 1)"), "a = (M.+ 1)");
  assert_string_equal(pp("a = (x -)"), "a = (x -)");
}

static void test_records(void **state) {
  assert_string_equal(pp("m = e { f = 1 } { g = 2 }"), "m = ((e {f = 1}) {g = 2})");
  assert_string_equal(pp("n = C { f = 1, M.g = 2 }"), "n = C {f = 1, M.g = 2}");
  assert_string_equal(pp("i = C {}"), "i = C {}");
  assert_string_equal(pp("j = f r { x = 1 }"), "j = (f (r {x = 1}))");
  assert_string_equal(pp("k = (f x) { y = 2 }"), "k = (((f x)) {y = 2})");
}

static void test_case_do_let(void **state) {
  assert_string_equal(pp("p = let f 0 = 1\n        f n = n * f (n - 1)\n    in f 5"),
                      "p = (let {f 0 = 1; f n = (n * (f ((n - 1))))} in (f 5))");
  assert_string_equal(
      pp("q = case x of\n  Just y | y > 0 -> 1\n         | otherwise -> 2\n  Nothing -> 3 where z "
         "= 1"),
      "q = (case x of {(Just y) | (y > 0) -> 1 | otherwise -> 2; Nothing -> 3 where {z = 1}})");
  assert_string_equal(
      pp("r = do\n  (a, b) <- foo\n  ~(c, d) <- bar\n  Just e <- baz\n  let g x = x\n  return (g "
         "a)"),
      "r = (do {(a, b) <- foo; ~(c, d) <- bar; (Just e) <- baz; let {g x = x}; (return ((g a)))})");
  assert_string_equal(pp("r = do\n  _ <- a\n  x : xs <- b\n  let y = 1 in print y"),
                      "r = (do {_ <- a; (x : xs) <- b; (let {y = 1} in (print y))})");
  assert_string_equal(pp("ff = case n of { -1 -> 0; 0 -> 1; _ -> 2 }"),
                      "ff = (case n of {(-1) -> 0; 0 -> 1; _ -> 2})");
  assert_string_equal(pp("gg = case s of \"ab\" -> 1; 'c' : _ -> 2"),
                      "gg = (case s of {\"ab\" -> 1; ('c' : _) -> 2})");
  assert_string_equal(pp("m = do\n  x <- f\n  case x of\n    1 -> a\n    _ -> b\n  c"),
                      "m = (do {x <- f; (case x of {1 -> a; _ -> b}); c})");
}

/* ---- declarations ------------------------------------------------------------------------ */

static void test_bindings(void **state) {
  assert_string_equal(pp("{-# LANGUAGE BangPatterns #-}\nf !x = x\n!z = 1\ng = let !y = 1 in y"),
                      "f !x = x\n!z = 1\ng = (let {!y = 1} in y)");
  assert_string_equal(pp("(<+>) a b = a\n(.+.) = 1\nx `op` y = x\nx <+> y = y"),
                      "(<+>) a b = a\n(.+.) = 1\nx `op` y = x\nx <+> y = y");
  assert_string_equal(
      pp("Just a = b\n(a, b) = c\n[x] = y\nx : xs = ys\n~(p, q) = r\nx@(Just _) = y"),
      "(Just a) = b\n(a, b) = c\n[x] = y\n(x : xs) = ys\n~(p, q) = r\nx@((Just _)) = y");
  assert_string_equal(
      pp("f (-1) = 0\nf (x:xs) = 1\nf [a, b] = 2\nf (C { g = 3 }) = 4\nf C {} = 5\n"
         "f x@(Just ~(a, b)) = 6\nf \"str\" = 7\nf 'c' = 8\nf _ = 9"),
      "f ((-1)) = 0; f ((x : xs)) = 1; f [a, b] = 2; f (C {g = 3}) = 4; f C {} = 5; "
      "f x@((Just ~(a, b))) = 6; f \"str\" = 7; f 'c' = 8; f _ = 9");
  /* consecutive equations are grouped; variable bindings are not */
  FeModule *m = parse("f 0 = 1\nf n = n\ng = 1\nf x = 2\nx = 1\nx = 2");
  assert_non_null(m);
  assert_int_equal(m->decls.len, 5);
  assert_int_equal(m->decls.data[0]->matches.len, 2);
  assert_int_equal(m->decls.data[2]->matches.len, 1);
  assert_int_equal(m->decls.data[0]->span.line, 1);
  assert_int_equal(m->decls.data[0]->span.eline, 2);
  assert_true(m->decls.data[3]->kind == D_FUN && m->decls.data[3]->matches.data[0]->pats.len == 0);
  assert_string_equal(pp("ll x\n  | Just y <- x, y > 0 = y\n  | let z = 1 = z"),
                      "ll x | (Just y) <- x, (y > 0) = y | let {z = 1} = z");
}

static void test_signatures_and_fixity(void **state) {
  assert_string_equal(pp("f, g :: (Eq a, Show a) => a -> [a] -> (a, b) -> ()"),
                      "f, g :: (Eq a, Show a) => (a -> ([a] -> ((a, b) -> ())))");
  assert_string_equal(pp("h :: Eq a => a\n(+++) :: m a -> m a"),
                      "h :: (Eq a) => a\n(+++) :: ((m a) -> (m a))");
  assert_string_equal(pp("k :: (->) a b\nu :: [] Int\nv :: (,) a b\nw :: M.T"),
                      "k :: (((->) a) b)\nu :: [Int]\nv :: (a, b)\nw :: M.T");
  assert_string_equal(pp("infixl 6 <+>, `op`\ninfix 4 ==.\ninfixr :+"),
                      "infixl 6 <+>, `op`\ninfix 4 ==.\ninfixr 9 :+");
}

static void test_data_and_classes(void **state) {
  assert_string_equal(
      pp("data T a = A !Int a | B { f :: Int, g, h :: !a } | Int :+: a | (:*:) Int Int "
         "deriving (Show, Eq)"),
      "data T a = A !Int a | B {f :: Int, g :: !a, h :: !a} | Int :+: a | (:*:) Int Int "
      "deriving (Show, Eq)");
  assert_string_equal(
      pp("data E\ndata C = R | G deriving Show\ndata P = Maybe Int :* !Int\ndata Q = Int `Q` Int"),
      "data E\ndata C = R | G deriving (Show)\ndata P = (Maybe Int) :* !Int\ndata Q = Int `Q` Int");
  assert_string_equal(
      pp("newtype S a = S { runS :: Int -> (a, Int) }\nnewtype N = N Int deriving (Eq)"),
      "newtype S a = S {runS :: (Int -> (a, Int))}\nnewtype N = N Int deriving (Eq)");
  assert_string_equal(pp("type P a = (a, [a])"), "type P a = (a, [a])");
  assert_string_equal(pp("class (Eq a, Show a) => C a where\n  m :: a -> a\n  m = id\n  infixl 6 "
                         "<+>\n  (<+>) :: a -> a -> a"),
                      "class (Eq a, Show a) => C a where {m :: (a -> a); m = id; infixl 6 <+>; "
                      "(<+>) :: (a -> (a -> a))}");
  assert_string_equal(pp("class Functor f where fmap :: (a -> b) -> f a -> f b"),
                      "class Functor f where {fmap :: ((a -> b) -> ((f a) -> (f b)))}");
  assert_string_equal(
      pp("instance C a => C [a] where\n  m x = x\ninstance C ((->) r)\ninstance C (a, b)\n"
         "instance Show a => C (Maybe a)\ninstance C Int where"),
      "instance (C a) => C [a] where {m x = x}\ninstance C ((->) r)\ninstance C (a, b)\n"
      "instance (Show a) => C (Maybe a)\ninstance C Int");
  FeModule *m = parse("class Eq a => Ord a where\n  compare :: a -> a -> Ordering");
  assert_non_null(m);
  FeDecl *c = m->decls.data[0];
  assert_int_equal(c->kind, D_CLASS);
  assert_string_equal(c->name.name, "Ord");
  assert_int_equal(c->tyvars.len, 1);
  assert_string_equal(c->tyvars.data[0].name, "a");
  assert_int_equal(c->sig->ctx.len, 1);
  assert_string_equal(c->sig->ctx.data[0].cls.name, "Eq");
}

static void test_module_header(void **state) {
  FeModule *m = parse("module M.N (f, T(..), C(A, b), (+++), module X, S) where\n"
                      "import qualified Data.List as L\nimport Data.Map (Map, (!), lookup, T(..))\n"
                      "import Prelude hiding (map)\nimport X ()\nf = 1\n");
  assert_non_null(m);
  assert_string_equal(m->name.name, "M.N");
  assert_true(m->has_exports);
  assert_int_equal(m->exports.len, 6);
  assert_int_equal(m->exports.data[1].kind, IE_THING_ALL);
  assert_int_equal(m->exports.data[2].kind, IE_THING_WITH);
  assert_int_equal(m->exports.data[2].subs.len, 2);
  assert_int_equal(m->exports.data[3].kind, IE_VAR);
  assert_string_equal(m->exports.data[3].name.name, "+++");
  assert_int_equal(m->exports.data[4].kind, IE_MODULE);
  assert_int_equal(m->imports.len, 4);
  assert_true(m->imports.data[0].qualified);
  assert_string_equal(m->imports.data[0].module.name, "Data.List");
  assert_string_equal(m->imports.data[0].as, "L");
  assert_int_equal(m->imports.data[1].items.len, 4);
  assert_true(m->imports.data[2].hiding);
  assert_true(m->imports.data[3].has_list);
  assert_int_equal(m->imports.data[3].items.len, 0);
  m = parse("main = print 1");
  assert_string_equal(m->name.name, "Main");
  assert_false(m->has_exports);
  m = parse(
      "{-# LANGUAGE MagicHash, NoImplicitPrelude #-}\nmodule Lz.Base where\n"
      "foreign import prim \"intAdd#\" (+#) :: Int# -> Int# -> Int#\ndefault (Integer, Double)\n"
      "f (I# x) = case x of { 1# -> 'c'#; _ -> 'd'# }\ng = \"abc\"# `h` 3.0##");
  assert_non_null(m);
  assert_true(m->magic_hash && m->no_implicit_prelude && !m->bang_patterns);
  assert_string_equal(decls_text(m),
                      "foreign import prim \"intAdd#\" (+#) :: (Int# -> (Int# -> Int#))\ndefault "
                      "(Integer, Double)\n"
                      "f ((I# x)) = (case x of {1# -> 'c'#; _ -> 'd'#})\ng = (\"abc\"# `h` 3.0##)");
}

/* ---- errors -------------------------------------------------------------------------------- */

static void test_parse_errors(void **state) {
  assert_contains(
      errors("main = do\n  print 1 )\n"),
      "t.lz:2:11: error:\n    \xe2\x80\xa2 parse error on input \xe2\x80\x98)\xe2\x80\x99");
  assert_contains(errors("f x = (x\ng = 2\n"),
                  "t.lz:2:1: error:\n    \xe2\x80\xa2 parse error (possibly incorrect indentation "
                  "or mismatched brackets)");
  assert_contains(errors("main = do\n  print (1\n"), "t.lz:3:1: error:");
  assert_contains(errors("main = do\n  x <- foo\n"),
                  "t.lz:2:3: error:\n    \xe2\x80\xa2 The last statement in a 'do' block must be "
                  "an expression");
  assert_contains(errors("import A\nf = 1\nimport B\n"), "t.lz:3:1: error:");
  assert_contains(errors("main = do\n  let x = 1\n  in print x\n"), "t.lz:3:3: error:");
  assert_contains(errors("f x = case x of\n  1 -> 2\n 2 -> 3\n"), "t.lz:1:7: error:");
  assert_contains(errors("infixl 10 +++\n"), "Precedence out of range: 10");
  assert_contains(errors("f x = 1\nf x y = 2\n"),
                  "Equations for \xe2\x80\x98"
                  "f\xe2\x80\x99 have different numbers of arguments");
  /* a later parse error wins over an error GHC finds after parsing */
  assert_contains(errors("f = do {}\ng = 1\nh = (\n"), "t.lz:4:1: error:");
  assert_contains(
      errors("f !x = x\n"),
      "t.lz:1:3: error:\n    \xe2\x80\xa2 Illegal bang-pattern (use BangPatterns):\n      !x");
  assert_contains(errors("x = a !b\n"), "Bang pattern in expression context: !b");
  assert_contains(errors("x = \"abc\n"), "t.lz:1:9: error:\n    \xe2\x80\xa2 lexical error in "
                                         "string/character literal at character '\\n'");
  assert_contains(errors("x = 1 {- abc\n"), "t.lz:1:7: error:\n    \xe2\x80\xa2 unterminated `{-'");
}

static void test_not_in_lz(void **state) {
  assert_contains(errors("data T where\n  A :: T\n"), "GADT syntax is not supported in Lz");
  assert_contains(errors("class C a b where\n  f :: a -> b\n"), "t.lz:1:1: error:");
  assert_contains(errors("class C a b where\n  f :: a -> b\n"), "Too many parameters for class");
  assert_contains(errors("instance C Int Bool\n"), "Too many parameters for class");
  assert_contains(errors("f :: forall a. a -> a\n"), "is not supported in Lz");
  assert_contains(errors("type family F a\n"), "type families are not supported in Lz");
  assert_contains(errors("data Eq a => T a = T a\n"),
                  "Illegal datatype context (use DatatypeContexts): Eq a =>");
  assert_contains(errors("foreign import ccall \"sin\" c_sin :: Double -> Double\n"),
                  "The FFI is not supported in Lz");
  assert_contains(errors("$(makeLenses ''T)\n"),
                  "Template Haskell splices are not supported in Lz");
  assert_contains(errors("f = (1,)\n"), "tuple sections are not supported in Lz");
  assert_contains(errors("f = \\case { _ -> 1 }\n"), "LambdaCase");
  assert_contains(errors("f :: (MonadState s m) => m ()\n"),
                  "multi-parameter type classes are not supported in Lz");
  assert_contains(errors("{-# LANGUAGE MagicHash #-}\nf x = (# x, x #)\n"),
                  "t.lz:2:7: error:\n    \xe2\x80\xa2 unboxed tuples are not supported in Lz");
  assert_contains(errors("{-# LANGUAGE MagicHash #-}\nf :: Int -> (# Int, Int #)\n"),
                  "unboxed tuples are not supported in Lz");
}

/* ---- fixity resolution --------------------------------------------------------------------- */

static const struct {
  const char *op;
  FeAssoc assoc;
  int prec;
} fixities[] = {{"+", ASSOC_LEFT, 6},   {"-", ASSOC_LEFT, 6},    {"*", ASSOC_LEFT, 7},
                {"^", ASSOC_RIGHT, 8},  {":", ASSOC_RIGHT, 5},   {"==", ASSOC_NONE, 4},
                {"$", ASSOC_RIGHT, 0},  {"&&", ASSOC_RIGHT, 3},  {".", ASSOC_RIGHT, 9},
                {"+++", ASSOC_LEFT, 6}, {"***", ASSOC_RIGHT, 6}, {"div", ASSOC_LEFT, 7},
                {":+", ASSOC_NONE, 6}};

static void set_ref(FeIdent *id) {
  if (id->ref) return;
  id->ref = fe_name_new(N_VAR, id->name, NULL, id->span);
  for (size_t i = 0; i < sizeof fixities / sizeof *fixities; i++)
    if (strcmp(fixities[i].op, id->name) == 0) {
      id->ref->has_fixity = true;
      id->ref->assoc = fixities[i].assoc;
      id->ref->prec = fixities[i].prec;
    }
}

/* What the renamer does: resolve names (here: give operators their fixities), then
 * re-associate each operator sequence, innermost first. */
static FeExpr *resolve_all(FeExpr *e) {
  if (!e) return e;
  switch (e->kind) {
  case E_OPSEQ:
    for (int i = 0; i < e->args.len; i++) {
      if (e->args.data[i]->is_op)
        set_ref(&e->args.data[i]->id);
      else if (!e->args.data[i]->is_neg)
        e->args.data[i] = resolve_all(e->args.data[i]);
    }
    return fe_fixity_resolve_expr(e);
  case E_APP:
    e->fn = resolve_all(e->fn);
    for (int i = 0; i < e->args.len; i++)
      e->args.data[i] = resolve_all(e->args.data[i]);
    return e;
  case E_PAREN:
  case E_NEG:
  case E_LAM: e->e1 = resolve_all(e->e1); return e;
  default: return e;
  }
}

static const char *resolved(const char *expr) {
  FeModule *m = parse(lz_fmt("x = %s", expr));
  if (!m) return "PARSE ERROR";
  return fe_expr_to_string(resolve_all(m->decls.data[0]->matches.data[0]->rhs->plain));
}

static void test_fixity(void **state) {
  assert_string_equal(resolved("1 + 2 * 3"), "(1 + (2 * 3))");
  assert_string_equal(resolved("1 * 2 + 3"), "((1 * 2) + 3)");
  assert_string_equal(resolved("a - b - c"), "((a - b) - c)");
  assert_string_equal(resolved("a : b : c"), "(a : (b : c))");
  assert_string_equal(resolved("- x ^ 2"), "(- (x ^ 2))");
  assert_string_equal(resolved("- x + y"), "((- x) + y)");
  assert_string_equal(resolved("- 2 * 3"), "(- (2 * 3))");
  assert_string_equal(resolved("a == - b"), "(a == (- b))");
  assert_string_equal(resolved("f $ g $ h x"), "(f $ (g $ (h x)))");
  assert_string_equal(resolved("a == b && c == d"), "((a == b) && (c == d))");
  assert_string_equal(resolved("x `div` 2 * 3"), "((x `div` 2) * 3)");
  assert_string_equal(resolved("a <> b <> c"), "((a <> b) <> c)"); /* default infixl 9 */
  assert_string_equal(resolved("(1 + 2) * 3"), "(((1 + 2)) * 3)");
  assert_string_equal(resolved("f . g . h"), "(f . (g . h))");
  assert_string_equal(resolved("\\y -> y + 1 * 2"), "(\\y -> (y + (1 * 2)))");
  assert_string_equal(resolved("1 +++ 2 +++ 3"), "((1 +++ 2) +++ 3)");
  assert_string_equal(resolved("1 *** 2 *** 3"), "(1 *** (2 *** 3))");
}

static const char *resolve_error(const char *expr) {
  rewind(diag);
  if (ftruncate(fileno(diag), 0) != 0) return "ftruncate failed";
  int before = lz_error_count();
  resolved(expr);
  fflush(diag);
  if (lz_error_count() == before) return "NO ERROR";
  long n = ftell(diag);
  char *buf = lz_alloc((size_t)n + 1);
  rewind(diag);
  buf[fread(buf, 1, (size_t)n, diag)] = 0;
  return buf;
}

static void test_fixity_errors(void **state) {
  assert_contains(
      resolve_error("1 +++ 2 *** 3"),
      "t.lz:1:5: error:\n    \xe2\x80\xa2 Precedence parsing error\n"
      "          cannot mix \xe2\x80\x98+++\xe2\x80\x99 [infixl 6] and \xe2\x80\x98***\xe2\x80\x99 "
      "[infixr 6] in the same infix expression");
  assert_contains(
      resolve_error("a == b == c"),
      "cannot mix \xe2\x80\x98==\xe2\x80\x99 [infix 4] and \xe2\x80\x98==\xe2\x80\x99 [infix 4]");
  assert_contains(resolve_error("1 + - 2"), "cannot mix \xe2\x80\x98+\xe2\x80\x99 [infixl 6] and "
                                            "prefix `-' [infixl 6] in the same infix expression");
  assert_contains(resolve_error("x ^ - 1"),
                  "cannot mix \xe2\x80\x98^\xe2\x80\x99 [infixr 8] and prefix `-'");
  assert_string_equal(resolve_error("- 2 + 3"), "NO ERROR");
  assert_string_equal(resolve_error("a == (b == c)"), "NO ERROR");
}

static FePat *resolve_pat(FePat *p) {
  if (p->kind == P_PAREN) {
    p->sub = resolve_pat(p->sub);
    return p;
  }
  if (p->kind != P_OPSEQ) return p;
  for (int i = 0; i < p->args.len; i++) {
    if (p->args.data[i]->is_op)
      set_ref(&p->args.data[i]->id);
    else
      p->args.data[i] = resolve_pat(p->args.data[i]);
  }
  return fe_fixity_resolve_pat(p);
}

static void test_fixity_patterns(void **state) {
  FeModule *m = parse("f (x : y : zs) (-1 : xs) (a :+ -2) = 1");
  assert_non_null(m);
  FeMatch *mt = m->decls.data[0]->matches.data[0];
  assert_string_equal(fe_pat_to_string(resolve_pat(mt->pats.data[0])), "((x : (y : zs)))");
  FePat *q = resolve_pat(mt->pats.data[1]);
  assert_string_equal(fe_pat_to_string(q), "(((-1) : xs))");
  assert_true(q->sub->args.data[0]->lit.negative);
  /* -2 after an infix-6 constructor operator: mixing error, as for expressions */
  int before = lz_error_count();
  resolve_pat(mt->pats.data[2]);
  assert_int_equal(lz_error_count(), before + 1);
}

static void test_long_operator_chain(void **state) {
  /* resolution must not recurse per operator */
  int n = 200000;
  char *text = malloc((size_t)n * 4 + 16);
  strcpy(text, "x = 1");
  size_t len = strlen(text);
  for (int i = 0; i < n; i++) {
    memcpy(text + len, " + 1", 4);
    len += 4;
  }
  text[len] = 0;
  FeModule *m = parse(text);
  free(text);
  assert_non_null(m);
  FeExpr *e = resolve_all(m->decls.data[0]->matches.data[0]->rhs->plain);
  int depth = 0;
  while (e->kind == E_APP)
    e = e->args.data[0], depth++;
  assert_int_equal(depth, n);
}

/* ---- corpus and robustness ----------------------------------------------------------------- */

static int parse_dir(const char *dir, bool recurse, int *failures) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int count = 0;
  struct dirent *ent;
  while ((ent = readdir(d))) {
    if (ent->d_name[0] == '.') continue;
    char *path = lz_fmt("%s/%s", dir, ent->d_name);
    size_t l = strlen(ent->d_name);
    if (l > 3 && strcmp(ent->d_name + l - 3, ".lz") == 0) {
      LzSource *s = lz_source_read(path);
      if (!s || !fe_parse_module(s)) {
        fprintf(stderr, "failed to parse %s\n", path);
        (*failures)++;
      }
      count++;
    } else if (recurse) {
      count += parse_dir(path, true, failures);
    }
  }
  closedir(d);
  return count;
}

static void test_corpus(void **state) {
  lz_set_diag_stream(stderr);
  int failures = 0;
  int n = parse_dir(LZ_TESTS_DIR "/golden", false, &failures);
  n += parse_dir(LZ_STDLIB_DIR, true, &failures);
  lz_set_diag_stream(diag);
  fprintf(stderr, "parsed %d corpus files\n", n);
  assert_true(n > 0);
  assert_int_equal(failures, 0);
}

static void test_deep_nesting(void **state) {
  const char *open[] = {"(",   "[", "(\\x -> ", "(let y = ", "(if x then ", "(case x of _ -> ",
                        "(- ", "("};
  const char *close[] = {")", "]", ")", " in y)", " else 0)", ")", ")", ")"};
  for (size_t k = 0; k < sizeof open / sizeof *open; k++) {
    char *t = "x = ";
    for (int i = 0; i < 1000; i++)
      t = lz_fmt("%s%s", t, open[k]);
    t = lz_fmt("%s1", t);
    for (int i = 0; i < 1000; i++)
      t = lz_fmt("%s%s", t, close[k]);
    assert_contains(errors(t), "too deeply nested");
  }
  char *t = "f :: ";
  for (int i = 0; i < 1000; i++)
    t = lz_fmt("%s[", t);
  assert_contains(errors(t), "too deeply nested");
  t = "f ";
  for (int i = 0; i < 1000; i++)
    t = lz_fmt("%s(Just ", t);
  assert_contains(errors(t), "too deeply nested");
  /* moderately deep is fine */
  t = "x = ";
  for (int i = 0; i < 100; i++)
    t = lz_fmt("%s(", t);
  t = lz_fmt("%s1", t);
  for (int i = 0; i < 100; i++)
    t = lz_fmt("%s)", t);
  assert_non_null(parse(t));
}

static void test_mutations(void **state) {
  /* random damage to a program full of layout: errors, never crashes or hangs */
  const char *base =
      "module Main (main) where\nimport Data.List (sort)\ndata T = A Int | B { f :: !Int } "
      "deriving Show\n"
      "main :: IO ()\nmain = do\n  let xs = [x * 2 | x <- [1 .. 10], odd x]\n      y = case xs of\n"
      "        (a:_) | a > 0 -> a\n        _ -> 0\n  print (sum xs, y `div` 2, (+ 1) 3)\n"
      "  if y > 0\n  then putStrLn \"pos\\n\"\n  else mapM_ print [B { f = 1 }]\n"
      "  where g !x = (\\(p, q) -> p) (x, 'c')\n";
  size_t n = strlen(base);
  uint32_t seed = 12345;
  char buf[1024];
  for (int iter = 0; iter < 3000; iter++) {
    memcpy(buf, base, n);
    size_t len = n;
    int edits = 1 + iter % 4;
    for (int e = 0; e < edits; e++) {
      seed = seed * 1103515245 + 12345;
      size_t pos = (seed >> 8) % len;
      seed = seed * 1103515245 + 12345;
      int op = (seed >> 16) % 4;
      static const char pool[] = "(){}[];,`'\"\\|=-<>!@~_ \n\t:.#0aZ{-}";
      if (op == 0)
        buf[pos] = pool[(seed >> 4) % (sizeof pool - 1)];
      else if (op == 1 && len > 1) {
        memmove(buf + pos, buf + pos + 1, len - pos - 1);
        len--;
      } else if (op == 2 && len < sizeof buf - 1) {
        memmove(buf + pos + 1, buf + pos, len - pos);
        buf[pos] = pool[(seed >> 4) % (sizeof pool - 1)];
        len++;
      } else {
        len = pos + 1; /* truncate */
      }
    }
    LzSource *s = lz_source_add("m.lz", buf, len);
    fe_parse_module(s); /* any result is fine */
    if (iter % 100 == 99) {
      lz_reset();
    }
  }
}

static int setup(void **state) {
  diag = tmpfile();
  lz_set_diag_stream(diag);
  lz_set_error_limit(1000000);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_expressions),      cmocka_unit_test(test_sections),
      cmocka_unit_test(test_records),          cmocka_unit_test(test_case_do_let),
      cmocka_unit_test(test_bindings),         cmocka_unit_test(test_signatures_and_fixity),
      cmocka_unit_test(test_data_and_classes), cmocka_unit_test(test_module_header),
      cmocka_unit_test(test_parse_errors),     cmocka_unit_test(test_not_in_lz),
      cmocka_unit_test(test_fixity),           cmocka_unit_test(test_fixity_errors),
      cmocka_unit_test(test_fixity_patterns),  cmocka_unit_test(test_long_operator_chain),
      cmocka_unit_test(test_corpus),           cmocka_unit_test(test_deep_nesting),
      cmocka_unit_test(test_mutations),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
