/* simplify_fold.c — constant folding of primitive operations for the simplifier:
 * Int# arithmetic wrapping at 64 bits as the runtime does, comparisons giving 1#/0#,
 * Double# arithmetic that is exactly rounded in IEEE (so the compile-time result is the
 * run-time one), Char# conversions, small Integer arithmetic that does not overflow, and
 * a few identities (x +# 0#, integerToInt# (integerFromInt# x), ...).
 *
 * The idea: fold only what the runtime would compute identically and can never fail.
 * A PRIM_CANFAIL operation is folded only when its precondition holds on the literal
 * arguments (quot by a nonzero divisor other than minBound `quot` -1, shift counts in
 * 0..63, chr# of a valid code point); otherwise it is left for the runtime to report.
 * PRIM_EFFECT operations are never touched. An identity that would drop an operand only
 * fires when that operand is a variable or literal (dropping work never changes which
 * error is raised). See Note [Core optimiser] (docs/notes/core-opt.md).
 */
#include <string.h>

#include "opt_priv.h"

static CoreExpr *lit_int(int64_t v) {
  CoreExpr *e = core_expr_new(CE_LIT, (LzSpan){0});
  e->lit.kind = CL_INT;
  e->lit.i = v;
  return e;
}

static CoreExpr *lit_dbl(double d) {
  CoreExpr *e = core_expr_new(CE_LIT, (LzSpan){0});
  e->lit.kind = CL_DOUBLE;
  e->lit.d = d;
  return e;
}

static CoreExpr *lit_char(int64_t c) {
  CoreExpr *e = core_expr_new(CE_LIT, (LzSpan){0});
  e->lit.kind = CL_CHAR;
  e->lit.i = c;
  return e;
}

static CoreExpr *lit_integer(int64_t v) {
  CoreExpr *e = core_expr_new(CE_LIT, (LzSpan){0});
  e->lit.kind = CL_INTEGER;
  e->lit.i = v;
  e->lit.fits = true;
  e->lit.str = lz_fmt("%lld", (long long)v);
  return e;
}

static bool get_int(const CoreExpr *e, int64_t *v) {
  if (e->kind != CE_LIT || e->lit.kind != CL_INT) return false;
  *v = e->lit.i;
  return true;
}

static bool get_dbl(const CoreExpr *e, double *v) {
  if (e->kind != CE_LIT || e->lit.kind != CL_DOUBLE) return false;
  *v = e->lit.d;
  return true;
}

static bool get_char(const CoreExpr *e, int64_t *v) {
  if (e->kind != CE_LIT || e->lit.kind != CL_CHAR) return false;
  *v = e->lit.i;
  return true;
}

static bool get_integer(const CoreExpr *e, int64_t *v) {
  if (e->kind != CE_LIT || e->lit.kind != CL_INTEGER || !e->lit.fits) return false;
  *v = e->lit.i;
  return true;
}

/* The primop application a variable was bound to by a case or strict let, if any. */
static const CoreExpr *prim_def(Opt *O, const CoreExpr *e, int primop) {
  if (e->kind == CE_PRIMOP) return e->primop == primop ? e : NULL;
  if (e->kind != CE_VAR) return NULL;
  const CoreExpr *u = core_opt_vvi(O, e->var)->unfold;
  return u && u->kind == CE_PRIMOP && u->primop == primop ? u : NULL;
}

static bool simple(const CoreExpr *e) { return e->kind == CE_VAR || e->kind == CE_LIT; }

static uint64_t U(int64_t x) { return (uint64_t)x; }
static int64_t S(uint64_t x) { return (int64_t)x; }

static CoreExpr *fold_int2(int op, int64_t a, int64_t b) {
  switch (op) {
  case P_INT_ADD: return lit_int(S(U(a) + U(b)));
  case P_INT_SUB: return lit_int(S(U(a) - U(b)));
  case P_INT_MUL: return lit_int(S(U(a) * U(b)));
  case P_INT_QUOT:
    if (b == 0 || (a == INT64_MIN && b == -1)) return NULL;
    return lit_int(a / b);
  case P_INT_REM:
    if (b == 0 || (a == INT64_MIN && b == -1)) return NULL;
    return lit_int(a % b);
  case P_INT_EQ: return lit_int(a == b);
  case P_INT_NE: return lit_int(a != b);
  case P_INT_LT: return lit_int(a < b);
  case P_INT_LE: return lit_int(a <= b);
  case P_INT_GT: return lit_int(a > b);
  case P_INT_GE: return lit_int(a >= b);
  case P_INT_AND: return lit_int(a & b);
  case P_INT_OR: return lit_int(a | b);
  case P_INT_XOR: return lit_int(a ^ b);
  case P_INT_SHL: return b >= 0 && b < 64 ? lit_int(S(U(a) << b)) : NULL;
  case P_INT_SHRA:
    if (b < 0 || b >= 64) return NULL;
    return lit_int(a < 0 ? S(~(~U(a) >> b)) : S(U(a) >> b));
  case P_INT_SHRL: return b >= 0 && b < 64 ? lit_int(S(U(a) >> b)) : NULL;
  }
  return NULL;
}

static CoreExpr *fold_dbl2(int op, double a, double b) {
  switch (op) {
  case P_DBL_ADD: return lit_dbl(a + b);
  case P_DBL_SUB: return lit_dbl(a - b);
  case P_DBL_MUL: return lit_dbl(a * b);
  case P_DBL_DIV: return lit_dbl(a / b);
  case P_DBL_EQ: return lit_int(a == b);
  case P_DBL_NE: return lit_int(a != b);
  case P_DBL_LT: return lit_int(a < b);
  case P_DBL_LE: return lit_int(a <= b);
  case P_DBL_GT: return lit_int(a > b);
  case P_DBL_GE: return lit_int(a >= b);
  }
  return NULL;
}

static int popcount64(uint64_t x) { return __builtin_popcountll(x); }

/* An Integer argument that is a variable bound (by a case) to a literal. */
static const CoreExpr *through_lit(Opt *O, const CoreExpr *e) {
  if (e->kind != CE_VAR) return e;
  const CoreExpr *u = core_opt_vvi(O, e->var)->unfold;
  return u && u->kind == CE_LIT ? u : e;
}

CoreExpr *core_opt_fold_primop(Opt *O, CoreExpr *e) {
  int op = e->primop;
  if (op < 0 || op >= PRIMOP_COUNT || e->nargs != core_primops[op].arity) return NULL;
  if (core_primops[op].flags & PRIM_EFFECT) return NULL;
  CoreExpr **a = e->args;
  int64_t x, y;
  double d, f;
  if (e->nargs == 2 && get_int(a[0], &x) && get_int(a[1], &y)) {
    CoreExpr *r = fold_int2(op, x, y);
    if (r) return r;
  }
  if (e->nargs == 2 && get_dbl(a[0], &d) && get_dbl(a[1], &f)) {
    CoreExpr *r = fold_dbl2(op, d, f);
    if (r) return r;
  }
  switch (op) {
  /* identities */
  case P_INT_ADD:
    if (get_int(a[1], &y) && y == 0) return a[0];
    if (get_int(a[0], &x) && x == 0) return a[1];
    break;
  case P_INT_SUB:
    if (get_int(a[1], &y) && y == 0) return a[0];
    if (simple(a[0]) && a[0]->kind == CE_VAR && a[1]->kind == CE_VAR &&
        a[0]->var->uniq == a[1]->var->uniq)
      return lit_int(0);
    break;
  case P_INT_MUL:
    if (get_int(a[1], &y) && y == 1) return a[0];
    if (get_int(a[0], &x) && x == 1) return a[1];
    if (get_int(a[1], &y) && y == 0 && simple(a[0])) return lit_int(0);
    if (get_int(a[0], &x) && x == 0 && simple(a[1])) return lit_int(0);
    break;
  case P_INT_EQ:
  case P_INT_LE:
  case P_INT_GE:
    if (a[0]->kind == CE_VAR && a[1]->kind == CE_VAR && a[0]->var->uniq == a[1]->var->uniq)
      return lit_int(1);
    break;
  case P_INT_NE:
  case P_INT_LT:
  case P_INT_GT:
    if (a[0]->kind == CE_VAR && a[1]->kind == CE_VAR && a[0]->var->uniq == a[1]->var->uniq)
      return lit_int(0);
    break;
  case P_INT_NEGATE:
    if (get_int(a[0], &x)) return lit_int(S(-U(x)));
    break;
  case P_INT_NOT:
    if (get_int(a[0], &x)) return lit_int(~x);
    break;
  case P_INT_POPCNT:
    if (get_int(a[0], &x)) return lit_int(popcount64(U(x)));
    break;
  case P_INT_CLZ:
    if (get_int(a[0], &x)) return lit_int(x == 0 ? 64 : __builtin_clzll(U(x)));
    break;
  case P_INT_CTZ:
    if (get_int(a[0], &x)) return lit_int(x == 0 ? 64 : __builtin_ctzll(U(x)));
    break;
  case P_INT_TO_DOUBLE:
    if (get_int(a[0], &x)) return lit_dbl((double)x);
    break;
  case P_CHR:
    if (get_int(a[0], &x) && x >= 0 && x <= 0x10FFFF) return lit_char(x);
    break;
  case P_ORD:
    if (get_char(a[0], &x)) return lit_int(x);
    if (a[0]->kind == CE_PRIMOP && a[0]->primop == P_CHR) return a[0]->args[0];
    break;
  case P_DBL_NEGATE:
    if (get_dbl(a[0], &d)) return lit_dbl(-d);
    break;
  case P_DBL_FABS:
    if (get_dbl(a[0], &d)) {
      uint64_t bits;
      memcpy(&bits, &d, sizeof bits);
      bits &= ~(1ull << 63);
      memcpy(&d, &bits, sizeof d);
      return lit_dbl(d);
    }
    break;
  case P_DBL_TO_INT:
    if (get_dbl(a[0], &d) && d > -9.2e18 && d < 9.2e18) return lit_int((int64_t)d);
    break;
  case P_INTEGER_FROM_INT:
    if (get_int(a[0], &x)) return lit_integer(x);
    break;
  case P_INTEGER_TO_INT: {
    if (get_integer(through_lit(O, a[0]), &x)) return lit_int(x);
    const CoreExpr *def = prim_def(O, a[0], P_INTEGER_FROM_INT);
    if (def && simple(def->args[0])) return def->args[0];
    break;
  }
  case P_INTEGER_TO_DOUBLE: {
    if (get_integer(through_lit(O, a[0]), &x)) return lit_dbl((double)x);
    const CoreExpr *def = prim_def(O, a[0], P_INTEGER_FROM_INT);
    if (def && simple(def->args[0])) {
      CoreExpr *r = core_expr_new(CE_PRIMOP, e->span);
      r->primop = P_INT_TO_DOUBLE;
      r->type = e->type;
      r->nargs = 1;
      r->args = LZ_NEW_ARRAY(CoreExpr *, 1);
      r->args[0] = def->args[0];
      return r;
    }
    break;
  }
  case P_INTEGER_ADD:
  case P_INTEGER_SUB:
  case P_INTEGER_MUL: {
    int64_t r;
    if (!get_integer(through_lit(O, a[0]), &x) || !get_integer(through_lit(O, a[1]), &y)) break;
    bool ovf = op == P_INTEGER_ADD   ? __builtin_add_overflow(x, y, &r)
               : op == P_INTEGER_SUB ? __builtin_sub_overflow(x, y, &r)
                                     : __builtin_mul_overflow(x, y, &r);
    if (!ovf) return lit_integer(r);
    break;
  }
  case P_INTEGER_NEGATE:
    if (get_integer(through_lit(O, a[0]), &x) && x != INT64_MIN) return lit_integer(-x);
    break;
  case P_INTEGER_EQ:
    if (get_integer(through_lit(O, a[0]), &x) && get_integer(through_lit(O, a[1]), &y))
      return lit_int(x == y);
    break;
  case P_INTEGER_COMPARE:
    if (get_integer(through_lit(O, a[0]), &x) && get_integer(through_lit(O, a[1]), &y))
      return lit_int(x < y ? -1 : x > y);
    break;
  case P_DATA_TO_TAG:
    if (a[0]->kind == CE_CON) return lit_int(a[0]->con->tag);
    if (a[0]->kind == CE_VAR) {
      OptVarInfo *vi = core_opt_vvi(O, a[0]->var);
      const CoreExpr *u = a[0]->var->global ? (vi->gbind ? vi->gbind->rhs : NULL) : vi->unfold;
      if (u && u->kind == CE_CON) return lit_int(u->con->tag);
    }
    break;
  }
  return NULL;
}
