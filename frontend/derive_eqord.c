/* derive_eqord.c — derived Eq and Ord instances, after GHC's gen_Eq_binds and
 * gen_Ord_binds (GHC 9.0.2).
 *
 * Eq compares constructors and then fields left to right with (&&), one equation per
 * constructor and a final `_ _ = False` when there are several constructors:
 *
 *   (==) (C a1 a2) (C b1 b2) = (a1 == b1) && (a2 == b2)
 *
 * Ord follows GHC's "game plan": `compare` always, and for small types (at most three
 * constructors, or an enumeration) also (<), with (<=), (>), (>=) defined from (<).
 * Larger types get the class defaults for those, exactly as in GHC — which matters,
 * because with a NaN in a Double field `not (b < a)` and the default
 * `case compare a b of GT -> False; _ -> True` disagree. Constructors are compared by
 * case analysis, falling back to comparing constructor indices (a local `con2tag`)
 * where GHC compares tags; fields are compared lexicographically with `compare`,
 * the last one with the operator itself:
 *
 *   compare a b = case a of
 *     C a1 a2 -> case b of
 *       C b1 b2 -> case compare a1 b1 of { LT -> LT; EQ -> compare a2 b2; GT -> GT }
 *       _ -> LT
 *     ...
 *
 * Both a and b are always evaluated and fields are compared left to right, so
 * strictness is GHC's too. For constructors with very many fields the chain of
 * comparisons is built as a balanced tree (the Ordering monoid is associative, in
 * value and strictness), so the generated code stays shallow.
 */
#include "derive.h"

/* ---- Eq ---------------------------------------------------------------------------- */

void fe_derive_eq(FeDvCtx *c) {
  FeDecl *f = fe_dv_method(c, "==");
  int n = fe_dv_ncons(c);
  for (int i = 0; i < n; i++) {
    FeConDecl *con = fe_dv_con_at(c, i);
    int k = con->fields.len;
    FeExpr *rhs;
    if (k == 0) {
      rhs = fe_dv_con(c, "True");
    } else {
      FeExpr **eqs = LZ_NEW_ARRAY(FeExpr *, k);
      for (int j = 0; j < k; j++)
        eqs[j] = fe_dv_app2(c, "==", fe_dv_lvar(c, fe_dv_numbered("a", j + 1)),
                            fe_dv_lvar(c, fe_dv_numbered("b", j + 1)));
      rhs = fe_dv_fold(c, "&&", eqs, k);
    }
    fe_dv_match(c, f, rhs, 2, fe_dv_pcon(c, con, "a"), fe_dv_pcon(c, con, "b"));
  }
  if (n >= 2) fe_dv_match(c, f, fe_dv_con(c, "False"), 2, fe_dv_pwild(c), fe_dv_pwild(c));
}

/* ---- Ord --------------------------------------------------------------------------- */

typedef enum { OP_COMPARE, OP_LT } OrdOp;

typedef struct {
  FeDvCtx *c;
  OrdOp op;
  bool uses_tags; /* the code calls the local con2tag */
} Ord;

static FeExpr *lt_result(Ord *o) { return fe_dv_con(o->c, o->op == OP_COMPARE ? "LT" : "True"); }
static FeExpr *eq_result(Ord *o) { return fe_dv_con(o->c, o->op == OP_COMPARE ? "EQ" : "False"); }
static FeExpr *gt_result(Ord *o) { return fe_dv_con(o->c, o->op == OP_COMPARE ? "GT" : "False"); }
static const char *op_name(Ord *o) { return o->op == OP_COMPARE ? "compare" : "<"; }

static FeExpr *field(Ord *o, const char *side, int j) {
  return fe_dv_lvar(o->c, fe_dv_numbered(side, j + 1));
}

/* case scrut of { LT -> lt; EQ -> eq; GT -> gt } */
static FeExpr *case_ordering(FeDvCtx *c, FeExpr *scrut, FeExpr *lt, FeExpr *eq, FeExpr *gt) {
  FeExpr *k = fe_dv_case(c, scrut);
  fe_dv_alt(c, k, fe_dv_plib_con(c, "LT"), lt);
  fe_dv_alt(c, k, fe_dv_plib_con(c, "EQ"), eq);
  fe_dv_alt(c, k, fe_dv_plib_con(c, "GT"), gt);
  return k;
}

/* The Ordering of fields lo..hi-1 (a_i against b_i), as a balanced tree of
 * `case x of { LT -> LT; EQ -> y; GT -> GT }`. */
static FeExpr *fields_ordering(Ord *o, int lo, int hi) {
  FeDvCtx *c = o->c;
  if (hi - lo == 1) return fe_dv_app2(c, "compare", field(o, "a", lo), field(o, "b", lo));
  int mid = lo + (hi - lo) / 2;
  return case_ordering(c, fields_ordering(o, lo, mid), fe_dv_con(c, "LT"),
                       fields_ordering(o, mid, hi), fe_dv_con(c, "GT"));
}

/* Chains longer than this are built balanced rather than right-nested like GHC. */
enum { NESTED_FIELDS_MAX = 16 };

/* GHC's mkCompareFields: compare a1..ak with b1..bk according to the operator. */
static FeExpr *compare_fields_from(Ord *o, int j, int k) {
  FeDvCtx *c = o->c;
  FeExpr *last = fe_dv_app2(c, op_name(o), field(o, "a", k - 1), field(o, "b", k - 1));
  if (j == k - 1) return last;
  FeExpr *first = fe_dv_app2(c, "compare", field(o, "a", j), field(o, "b", j));
  return case_ordering(c, first, lt_result(o), compare_fields_from(o, j + 1, k), gt_result(o));
}

static FeExpr *compare_fields(Ord *o, int k) {
  if (k == 0) return eq_result(o);
  if (k <= NESTED_FIELDS_MAX) return compare_fields_from(o, 0, k);
  FeDvCtx *c = o->c;
  FeExpr *last = fe_dv_app2(c, op_name(o), field(o, "a", k - 1), field(o, "b", k - 1));
  return case_ordering(c, fields_ordering(o, 0, k - 1), lt_result(o), last, gt_result(o));
}

static FeExpr *tag_of(Ord *o, const char *var) {
  o->uses_tags = true;
  return fe_dv_app(o->c, fe_dv_lvar(o->c, "con2tag"), 1, fe_dv_lvar(o->c, var));
}

/* Both constructors are nullary: compare their indices. */
static FeExpr *tag_cmp(Ord *o) {
  return fe_dv_app2(o->c, op_name(o), tag_of(o, "a"), tag_of(o, "b"));
}

/* case b of { C b1 .. bk -> compare fields; [other alternatives] } */
static FeExpr *case_b(Ord *o, FeConDecl *con) {
  FeExpr *k = fe_dv_case(o->c, fe_dv_lvar(o->c, "b"));
  fe_dv_alt(o->c, k, fe_dv_pcon(o->c, con, "b"), compare_fields(o, con->fields.len));
  return k;
}

/* GHC's mkInnerRhs: `a` is known to be built with the i-th constructor. */
static FeExpr *inner_rhs(Ord *o, int i) {
  FeDvCtx *c = o->c;
  int last = fe_dv_ncons(c) - 1;
  FeConDecl *con = fe_dv_con_at(c, i);
  if (last == 0) return case_b(o, con);
  if (i == 0) {
    FeExpr *k = case_b(o, con);
    fe_dv_alt(c, k, fe_dv_pwild(c), lt_result(o));
    return k;
  }
  if (i == last) {
    FeExpr *k = case_b(o, con);
    fe_dv_alt(c, k, fe_dv_pwild(c), gt_result(o));
    return k;
  }
  if (i == 1) {
    FeExpr *k = fe_dv_case(c, fe_dv_lvar(c, "b"));
    fe_dv_alt(c, k, fe_dv_pcon(c, fe_dv_con_at(c, 0), NULL), gt_result(o));
    fe_dv_alt(c, k, fe_dv_pcon(c, con, "b"), compare_fields(o, con->fields.len));
    fe_dv_alt(c, k, fe_dv_pwild(c), lt_result(o));
    return k;
  }
  if (i == last - 1) {
    FeExpr *k = case_b(o, con);
    fe_dv_alt(c, k, fe_dv_pcon(c, fe_dv_con_at(c, last), NULL), lt_result(o));
    fe_dv_alt(c, k, fe_dv_pwild(c), gt_result(o));
    return k;
  }
  FeExpr *k = case_b(o, con);
  if (i > last / 2) { /* b's index below i: definitely GT */
    fe_dv_alt(c, k, fe_dv_pwild(c), lt_result(o));
    return fe_dv_if(c, fe_dv_app2(c, "<", tag_of(o, "b"), fe_dv_int(c, i)), gt_result(o), k);
  }
  fe_dv_alt(c, k, fe_dv_pwild(c), gt_result(o)); /* b's index above i: definitely LT */
  return fe_dv_if(c, fe_dv_app2(c, ">", tag_of(o, "b"), fe_dv_int(c, i)), lt_result(o), k);
}

/* GHC's mkOrdOpRhs: the body of `op a b`. */
static FeExpr *ord_rhs(Ord *o) {
  FeDvCtx *c = o->c;
  int n = fe_dv_ncons(c), nullary = 0;
  for (int i = 0; i < n; i++)
    nullary += fe_dv_con_at(c, i)->fields.len == 0;
  if (nullary <= 2) {
    FeExpr *k = fe_dv_case(c, fe_dv_lvar(c, "a"));
    for (int i = 0; i < n; i++)
      fe_dv_alt(c, k, fe_dv_pcon(c, fe_dv_con_at(c, i), "a"), inner_rhs(o, i));
    return k;
  }
  if (nullary == n) return tag_cmp(o);
  FeExpr *k = fe_dv_case(c, fe_dv_lvar(c, "a"));
  for (int i = 0; i < n; i++)
    if (fe_dv_con_at(c, i)->fields.len > 0)
      fe_dv_alt(c, k, fe_dv_pcon(c, fe_dv_con_at(c, i), "a"), inner_rhs(o, i));
  fe_dv_alt(c, k, fe_dv_pwild(c), tag_cmp(o));
  return k;
}

static void ord_method(FeDvCtx *c, OrdOp op) {
  Ord o = {c, op, false};
  FeDecl *f = fe_dv_method(c, op == OP_COMPARE ? "compare" : "<");
  FeExpr *rhs = ord_rhs(&o);
  FeMatch *m = fe_dv_match(c, f, rhs, 2, fe_dv_pvar(c, "a"), fe_dv_pvar(c, "b"));
  if (o.uses_tags) fe_dv_add_con2tag(c, m->rhs, "con2tag");
}

/* occ a b = [not] (x < y) with (x, y) = (a, b) or (b, a) */
static void ord_via_lt(FeDvCtx *c, const char *occ, bool swap, bool negate) {
  FeDecl *f = fe_dv_method(c, occ);
  FeExpr *a = fe_dv_lvar(c, "a"), *b = fe_dv_lvar(c, "b");
  FeExpr *rhs = fe_dv_app2(c, "<", swap ? b : a, swap ? a : b);
  if (negate) rhs = fe_dv_app(c, fe_dv_var(c, "not"), 1, rhs);
  fe_dv_match(c, f, rhs, 2, fe_dv_pvar(c, "a"), fe_dv_pvar(c, "b"));
}

void fe_derive_ord(FeDvCtx *c) {
  ord_method(c, OP_COMPARE);
  if (fe_dv_ncons(c) <= 3 || fe_dv_is_enumeration(c)) {
    ord_method(c, OP_LT);
    ord_via_lt(c, "<=", true, true);  /* a <= b = not (b < a) */
    ord_via_lt(c, ">", true, false);  /* a > b  = b < a */
    ord_via_lt(c, ">=", false, true); /* a >= b = not (a < b) */
  }
}
