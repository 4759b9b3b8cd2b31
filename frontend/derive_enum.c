/* derive_enum.c — derived Enum and Bounded instances, after GHC's gen_Enum_binds and
 * gen_Bounded_binds (GHC 9.0.2).
 *
 * Enum (enumerations only; derive.c checks) works on constructor indices through two
 * local helpers in each method's where-clause, which play the part of GHC's
 * $con2tag_T and $tag2con_T:
 *
 *   con2tag :: T -> Int       con2tag x = case x of { A -> 0; B -> 1; C -> 2 }
 *   tag2con :: Int -> T       tag2con x = if x < 1 then A else if x < 2 then B else C
 *
 * and the methods are GHC's, with GHC's error messages (maxtag = 2 here):
 *
 *   succ a = if maxtag == con2tag a
 *              then error "succ{T}: tried to take `succ' of last tag in enumeration"
 *              else tag2con (con2tag a + 1)
 *   pred a = if 0 == con2tag a then error "pred{T}: ..." else tag2con (con2tag a - 1)
 *   toEnum a = if a >= 0 && a <= maxtag then tag2con a
 *              else error ("toEnum{T}: tag (" ++ showsPrec 0 a
 *                          ") is outside of enumeration's range (0,2)")
 *   enumFrom a = map tag2con (enumFromTo (con2tag a) maxtag)
 *   enumFromThen a b = map tag2con (enumFromThenTo (con2tag a) (con2tag b)
 *                        (if con2tag a > con2tag b then 0 else maxtag))
 *   fromEnum a = con2tag a
 *
 * enumFromTo and enumFromThenTo are the class defaults, as in GHC. tag2con is only
 * ever applied to an index in range; it is a binary search (nested `if x < mid`),
 * so both its code depth and its running time grow with the logarithm of the
 * number of constructors rather than linearly as a chain of literal tests would.
 *
 * Bounded: the first and last constructors of an enumeration, or for a type with one
 * constructor `minBound = C minBound .. minBound` (likewise maxBound).
 */
#include "derive.h"

/* The constructor with index x among lo..hi-1, by binary search. */
static FeExpr *tag2con_search(FeDvCtx *c, int lo, int hi) {
  if (hi - lo == 1) return fe_dv_ucon(c, fe_dv_con_at(c, lo));
  int mid = lo + (hi - lo) / 2;
  return fe_dv_if(c, fe_dv_app2(c, "<", fe_dv_lvar(c, "x"), fe_dv_int(c, mid)),
                  tag2con_search(c, lo, mid), tag2con_search(c, mid, hi));
}

static void add_tag2con(FeDvCtx *c, FeMatch *m) {
  FeDecl *f = fe_dv_local_fun(c, m->rhs, "tag2con",
                              fe_dv_fun_type(c, fe_dv_lib_type(c, "Int"), fe_dv_head_type(c)));
  fe_dv_match(c, f, tag2con_search(c, 0, fe_dv_ncons(c)), 1, fe_dv_pvar(c, "x"));
}

static FeExpr *con2tag(FeDvCtx *c, const char *var) {
  return fe_dv_app(c, fe_dv_lvar(c, "con2tag"), 1, fe_dv_lvar(c, var));
}

static FeExpr *tag2con(FeDvCtx *c, FeExpr *e) {
  return fe_dv_app(c, fe_dv_lvar(c, "tag2con"), 1, e);
}

static FeExpr *error_call(FeDvCtx *c, FeExpr *msg) {
  return fe_dv_app(c, fe_dv_var(c, "error"), 1, msg);
}

/* A method `occ a [b] = rhs` with the helpers in its where-clause. */
static void method(FeDvCtx *c, const char *occ, int nargs, FeExpr *rhs, bool need_con2tag,
                   bool need_tag2con) {
  FeDecl *f = fe_dv_method(c, occ);
  FeMatch *m = nargs == 1 ? fe_dv_match(c, f, rhs, 1, fe_dv_pvar(c, "a"))
                          : fe_dv_match(c, f, rhs, 2, fe_dv_pvar(c, "a"), fe_dv_pvar(c, "b"));
  if (need_con2tag) fe_dv_add_con2tag(c, m->rhs, "con2tag");
  if (need_tag2con) add_tag2con(c, m);
}

void fe_derive_enum(FeDvCtx *c) {
  const char *tn = c->data->name.name;
  int maxtag = fe_dv_ncons(c) - 1;

  FeExpr *succ =
      fe_dv_if(c, fe_dv_app2(c, "==", fe_dv_int(c, maxtag), con2tag(c, "a")),
               error_call(c, fe_dv_str(c, lz_fmt("succ{%s}: tried to take `succ' of last tag in "
                                                 "enumeration",
                                                 tn))),
               tag2con(c, fe_dv_app2(c, "+", con2tag(c, "a"), fe_dv_int(c, 1))));
  method(c, "succ", 1, succ, true, true);

  FeExpr *pred =
      fe_dv_if(c, fe_dv_app2(c, "==", fe_dv_int(c, 0), con2tag(c, "a")),
               error_call(c, fe_dv_str(c, lz_fmt("pred{%s}: tried to take `pred' of first tag in "
                                                 "enumeration",
                                                 tn))),
               tag2con(c, fe_dv_app2(c, "-", con2tag(c, "a"), fe_dv_int(c, 1))));
  method(c, "pred", 1, pred, true, true);

  FeExpr *in_range = fe_dv_app2(c, "&&", fe_dv_app2(c, ">=", fe_dv_lvar(c, "a"), fe_dv_int(c, 0)),
                                fe_dv_app2(c, "<=", fe_dv_lvar(c, "a"), fe_dv_int(c, maxtag)));
  FeExpr *shown =
      fe_dv_app(c, fe_dv_var(c, "showsPrec"), 3, fe_dv_int(c, 0), fe_dv_lvar(c, "a"),
                fe_dv_str(c, lz_fmt(") is outside of enumeration's range (0,%d)", maxtag)));
  FeExpr *msg = fe_dv_app2(c, "++", fe_dv_str(c, lz_fmt("toEnum{%s}: tag (", tn)), shown);
  FeExpr *to_enum = fe_dv_if(c, in_range, tag2con(c, fe_dv_lvar(c, "a")), error_call(c, msg));
  method(c, "toEnum", 1, to_enum, false, true);

  FeExpr *from = fe_dv_app2(c, "map", fe_dv_lvar(c, "tag2con"),
                            fe_dv_app2(c, "enumFromTo", con2tag(c, "a"), fe_dv_int(c, maxtag)));
  method(c, "enumFrom", 1, from, true, true);

  FeExpr *limit = fe_dv_if(c, fe_dv_app2(c, ">", con2tag(c, "a"), con2tag(c, "b")), fe_dv_int(c, 0),
                           fe_dv_int(c, maxtag));
  FeExpr *then = fe_dv_app2(
      c, "map", fe_dv_lvar(c, "tag2con"),
      fe_dv_app(c, fe_dv_var(c, "enumFromThenTo"), 3, con2tag(c, "a"), con2tag(c, "b"), limit));
  method(c, "enumFromThen", 2, then, true, true);

  method(c, "fromEnum", 1, con2tag(c, "a"), true, false);
}

void fe_derive_bounded(FeDvCtx *c) {
  int n = fe_dv_ncons(c);
  const char *occs[2] = {"minBound", "maxBound"};
  for (int w = 0; w < 2; w++) {
    FeDecl *f = fe_dv_method(c, occs[w]);
    FeExpr *rhs;
    if (fe_dv_is_enumeration(c)) {
      rhs = fe_dv_ucon(c, fe_dv_con_at(c, w == 0 ? 0 : n - 1));
    } else { /* one constructor (derive.c checks) */
      FeConDecl *con = fe_dv_con_at(c, 0);
      rhs = fe_dv_ucon(c, con);
      if (con->fields.len > 0) {
        FeExpr *app = fe_dv_app(c, rhs, 0);
        for (int j = 0; j < con->fields.len; j++)
          LZ_PUSH(app->args, fe_dv_var(c, occs[w]));
        rhs = app;
      }
    }
    fe_dv_match(c, f, rhs, 0);
  }
}
