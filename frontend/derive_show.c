/* derive_show.c — derived Show instances, after GHC's gen_Show_binds (GHC 9.0.2).
 *
 * One `showsPrec` equation per constructor, producing exactly GHC's text:
 *
 *   showsPrec _ C            = showString "C"
 *   showsPrec a (C b1 b2)    = showParen (a >= 11)
 *                                (showString "C " . showsPrec 11 b1 . showSpace
 *                                                 . showsPrec 11 b2)
 *   showsPrec a (R b1 b2)    = showParen (a >= 11)        -- record syntax
 *                                (showString "R {" . showString "f = " . showsPrec 0 b1
 *                                 . showCommaSpace . showString "(+++) = "
 *                                 . showsPrec 0 b2 . showString "}")
 *   showsPrec a (b1 :+ b2)   = showParen (a >= p+1)       -- declared infix
 *                                (showsPrec (p+1) b1 . showString " :+ "
 *                                 . showsPrec (p+1) b2)
 *
 * where p is the constructor's precedence from a fixity declaration in the module
 * (default 9). Operator names are shown in parentheses when used prefix — "(:+) "
 * for a constructor declared prefix, "(+++) = " for a record field — and
 * alphanumeric names in backquotes when declared infix (" `Foo` "). `show` and
 * `showList` come from the class defaults.
 */
#include <string.h>

#include "derive.h"

enum { APP_PREC = 10 };

/* The precedence of constructor `name` from a top-level fixity declaration. */
static int con_precedence(FeDvCtx *c, Sym name) {
  for (int i = 0; i < c->m->decls.len; i++) {
    FeDecl *d = c->m->decls.data[i];
    if (!d || d->kind != D_FIXITY) continue;
    for (int j = 0; j < d->names.len; j++)
      if (d->names.data[j].name == name) return d->prec;
  }
  return 9;
}

static const char *wrap_op_parens(Sym s) { return fe_dv_is_symbolic(s) ? lz_fmt("(%s)", s) : s; }

static const char *wrap_op_backquotes(Sym s) {
  return fe_dv_is_symbolic(s) ? s : lz_fmt("`%s`", s);
}

static FeExpr *show_string(FeDvCtx *c, const char *s) {
  return fe_dv_app(c, fe_dv_var(c, "showString"), 1, fe_dv_str(c, s));
}

static FeExpr *shows_prec_field(FeDvCtx *c, int prec, int j) {
  return fe_dv_app(c, fe_dv_var(c, "showsPrec"), 2, fe_dv_int(c, prec),
                   fe_dv_lvar(c, fe_dv_numbered("b", j + 1)));
}

static bool is_record(const FeConDecl *con) {
  if (!con->record || con->fields.len == 0) return false;
  for (int j = 0; j < con->fields.len; j++)
    if (!con->fields.data[j].label.name) return false;
  return true;
}

/* The showsPrec equation of one constructor with at least one field. */
static void show_con(FeDvCtx *c, FeDecl *f, FeConDecl *con) {
  int k = con->fields.len;
  bool infix = con->infix && k == 2;
  bool record = !infix && is_record(con);
  int prec_plus_one = (infix ? con_precedence(c, con->name.name) : APP_PREC) + 1;
  int arg_prec = record ? 0 : prec_plus_one;
  int limit = record ? APP_PREC + 1 : prec_plus_one;

  /* at most 4 items per field, plus 2 */
  FeExpr **items = LZ_NEW_ARRAY(FeExpr *, 4 * k + 2);
  int n = 0;
  if (infix) {
    items[n++] = shows_prec_field(c, arg_prec, 0);
    items[n++] = show_string(c, lz_fmt(" %s ", wrap_op_backquotes(con->name.name)));
    items[n++] = shows_prec_field(c, arg_prec, 1);
  } else if (record) {
    items[n++] = show_string(c, lz_fmt("%s {", wrap_op_parens(con->name.name)));
    for (int j = 0; j < k; j++) {
      if (j > 0) items[n++] = fe_dv_var(c, "showCommaSpace");
      items[n++] = show_string(c, lz_fmt("%s = ", wrap_op_parens(con->fields.data[j].label.name)));
      items[n++] = shows_prec_field(c, arg_prec, j);
    }
    items[n++] = show_string(c, "}");
  } else {
    items[n++] = show_string(c, lz_fmt("%s ", wrap_op_parens(con->name.name)));
    for (int j = 0; j < k; j++) {
      if (j > 0) items[n++] = fe_dv_var(c, "showSpace");
      items[n++] = shows_prec_field(c, arg_prec, j);
    }
  }
  FeExpr *cond = fe_dv_app2(c, ">=", fe_dv_lvar(c, "a"), fe_dv_int(c, limit));
  FeExpr *rhs = fe_dv_app(c, fe_dv_var(c, "showParen"), 2, cond, fe_dv_fold(c, ".", items, n));
  fe_dv_match(c, f, rhs, 2, fe_dv_pvar(c, "a"), fe_dv_pcon(c, con, "b"));
}

void fe_derive_show(FeDvCtx *c) {
  FeDecl *f = fe_dv_method(c, "showsPrec");
  for (int i = 0; i < fe_dv_ncons(c); i++) {
    FeConDecl *con = fe_dv_con_at(c, i);
    if (con->fields.len == 0)
      fe_dv_match(c, f, show_string(c, wrap_op_parens(con->name.name)), 2, fe_dv_pwild(c),
                  fe_dv_pcon(c, con, NULL));
    else
      show_con(c, f, con);
  }
}
