/* parse_expr.c — expressions, statements (do, guards, comprehensions) and case
 * alternatives.
 *
 * Infix expressions are collected flat into E_OPSEQ (operands, operators marked
 * is_op, prefix minus marked is_neg); the renamer resolves them once fixities are
 * known (fixity.c). Lambda, let, if, case, do and SCC extend as far to the right as
 * possible, so they simply parse an `exp` for their last part and the operator loop
 * stops after them. A statement `p <- e` cannot be told from an expression by its
 * first token, so it is first tried as a pattern followed by `<-` (fe_try) and
 * otherwise parsed as an expression.
 */
#include <string.h>

#include "parser_internal.h"

static FeExpr *lexp(Parser *p);
static FeExpr *infixexp(Parser *p, bool allow_trailing, FeIdent *trailing, bool *got_trailing);

static bool starts_aexp(Parser *p) {
  switch (p->tok.kind) {
  case T_VARID:
  case T_CONID:
  case T_LITERAL:
  case T_LPAREN:
  case T_LBRACKET: return true;
  default: return false;
  }
}

bool fe_p_starts_exp(Parser *p) {
  switch (p->tok.kind) {
  case T_LAMBDA:
  case T_LET:
  case T_IF:
  case T_CASE:
  case T_DO:
  case T_SCC: return true;
  default: return starts_aexp(p) || fe_p_at_varsym(p, "-");
  }
}

static FeExpr *ident_expr(FeIdent id, bool con) {
  FeExpr *e = fe_expr_new(con ? E_CON : E_VAR, id.span);
  e->id = id;
  return e;
}

static FeExpr *special_con(const char *name, LzSpan sp) {
  return ident_expr(fe_ident(NULL, lz_sym(name), sp), true);
}

_Noreturn static void bang_in_expr(Parser *p) {
  LzSpan sp = p->tok.span;
  fe_p_advance(p);
  if (starts_aexp(p)) sp = lz_span_join(sp, p->tok.span);
  fe_p_fail(p, sp,
            "Bang pattern in expression context: !%s\nDid you mean to add a space after the '!'?",
            starts_aexp(p) ? fe_token_text(&p->tok) : "");
}

/* ---- atoms ----------------------------------------------------------------------------- */

/* ( ... ): unit, tuple constructors, operators, sections, parenthesised and tuple
 * expressions.
 *   () | (,+) | (qop) | (qop⟨-⟩ infixexp) | (infixexp qop) | (exp) | (exp, ..., exp) */
static FeExpr *paren_exp(Parser *p) {
  LzSpan start = p->tok.span;
  fe_p_expect(p, T_LPAREN);
  fe_p_check_unboxed(p, start);
  FeExpr *e;
  if (fe_p_accept(p, T_RPAREN)) return special_con("()", fe_p_from(p, start));
  if (fe_p_at(p, T_COMMA)) {
    int n = 1;
    while (fe_p_accept(p, T_COMMA))
      n++;
    if (!fe_p_at(p, T_RPAREN)) fe_p_fail(p, start, "tuple sections are not supported in Lz");
    fe_p_advance(p);
    char *name = lz_alloc((size_t)n + 2);
    name[0] = '(';
    memset(name + 1, ',', (size_t)n - 1);
    name[n] = ')';
    return special_con(name, fe_p_from(p, start));
  }
  fe_p_enter(p);
  bool is_minus = fe_p_at_varsym(p, "-");
  if (fe_p_at_qop(p) && !(is_minus && fe_p_peek(p).kind != T_RPAREN)) {
    bool con;
    FeIdent op = fe_p_qop(p, &con);
    if (fe_p_accept(p, T_RPAREN)) {
      op.span = fe_p_from(p, start);
      fe_p_leave(p);
      return ident_expr(op, con);
    }
    e = fe_expr_new(E_RSECTION, start);
    e->id = op;
    e->e1 = infixexp(p, false, NULL, NULL);
  } else {
    FeIdent trailing;
    bool got = false;
    FeExpr *first = infixexp(p, true, &trailing, &got);
    if (got) {
      e = fe_expr_new(E_LSECTION, start);
      e->id = trailing;
      e->e1 = first;
    } else {
      if (fe_p_at(p, T_DCOLON)) {
        fe_p_advance(p);
        FeExpr *t = fe_expr_new(E_TYPED, first->span);
        t->e1 = first;
        t->sig = fe_p_qualtype(p);
        t->span = fe_p_from(p, first->span);
        first = t;
      }
      if (fe_p_at(p, T_COMMA)) {
        e = fe_expr_new(E_TUPLE, start);
        LZ_PUSH(e->args, first);
        while (fe_p_accept(p, T_COMMA)) {
          if (fe_p_at(p, T_RPAREN) || fe_p_at(p, T_COMMA))
            fe_p_fail(p, start, "tuple sections are not supported in Lz");
          LZ_PUSH(e->args, fe_p_exp(p));
        }
      } else {
        e = fe_expr_new(E_PAREN, start);
        e->e1 = first;
      }
    }
  }
  fe_p_leave(p);
  fe_p_expect(p, T_RPAREN);
  e->span = fe_p_from(p, start);
  return e;
}

/* [ ... ]: [] | [e, ...] | [e [, e] .. [e]] | [e | qual, ...] */
static FeExpr *bracket_exp(Parser *p) {
  LzSpan start = p->tok.span;
  fe_p_expect(p, T_LBRACKET);
  if (fe_p_accept(p, T_RBRACKET)) return special_con("[]", fe_p_from(p, start));
  fe_p_enter(p);
  FeExpr *e, *first = fe_p_exp(p);
  if (fe_p_accept(p, T_DOTDOT)) {
    e = fe_expr_new(E_ARITH, start);
    e->e1 = first;
    if (!fe_p_at(p, T_RBRACKET)) e->e3 = fe_p_exp(p);
  } else if (fe_p_accept(p, T_BAR)) {
    e = fe_expr_new(E_COMP, start);
    e->e1 = first;
    LzSpan quals = p->tok.span;
    FeStmtVec q = fe_p_quals(p);
    FE_VEC_SET(e->stmts, q);
    if (fe_p_at(p, T_BAR))
      fe_p_fail(p, fe_p_from(p, quals),
                "Unexpected parallel statement in a list comprehension\n  Use ParallelListComp");
  } else if (fe_p_accept(p, T_COMMA)) {
    FeExpr *second = fe_p_exp(p);
    if (fe_p_accept(p, T_DOTDOT)) {
      e = fe_expr_new(E_ARITH, start);
      e->e1 = first;
      e->e2 = second;
      if (!fe_p_at(p, T_RBRACKET)) e->e3 = fe_p_exp(p);
    } else {
      e = fe_expr_new(E_LIST, start);
      LZ_PUSH(e->args, first);
      LZ_PUSH(e->args, second);
      while (fe_p_accept(p, T_COMMA))
        LZ_PUSH(e->args, fe_p_exp(p));
    }
  } else {
    e = fe_expr_new(E_LIST, start);
    LZ_PUSH(e->args, first);
  }
  fe_p_leave(p);
  fe_p_expect(p, T_RBRACKET);
  e->span = fe_p_from(p, start);
  return e;
}

/* aexp1 = qvar | gcon | literal | ( ... ) | [ ... ] */
static FeExpr *aexp1(Parser *p) {
  switch (p->tok.kind) {
  case T_VARID: return ident_expr(fe_p_ident(p), false);
  case T_CONID: return ident_expr(fe_p_ident(p), true);
  case T_LITERAL: {
    FeExpr *e = fe_expr_new(E_LIT, p->tok.span);
    e->lit = *p->tok.lit;
    fe_p_advance(p);
    return e;
  }
  case T_LPAREN: return paren_exp(p);
  case T_LBRACKET: return bracket_exp(p);
  case T_BANG: bang_in_expr(p);
  default: fe_p_error(p);
  }
}

/* fbinds = { [qvar = exp (, qvar = exp)*] }   (explicit braces) */
static void field_binds(Parser *p, FeExpr *e) {
  fe_p_block_open(p);
  if (!fe_p_at(p, T_RBRACE)) {
    do {
      if (p->tok.kind != T_VARID) fe_p_error(p);
      FeFieldBind fb = {.field = fe_p_ident(p)};
      fe_p_expect(p, T_EQUAL);
      fb.e = fe_p_exp(p);
      LZ_PUSH(e->fields, fb);
    } while (fe_p_accept(p, T_COMMA));
  }
  fe_p_block_close(p, true);
}

/* aexp = aexp1 { fbinds }*   (record construction C {..} and update e {..}) */
static FeExpr *aexp(Parser *p) {
  LzSpan start = p->tok.span;
  FeExpr *e = aexp1(p);
  while (fe_p_at(p, T_LBRACE) && !p->tok.virt) {
    FeExpr *r;
    if (e->kind == E_CON && e->id.name[0] != '(' && e->id.name[0] != '[') {
      r = fe_expr_new(E_RECCON, start);
      r->id = e->id;
    } else {
      r = fe_expr_new(E_RECUPD, start);
      r->e1 = e;
    }
    fe_p_enter(p);
    field_binds(p, r);
    fe_p_leave(p);
    r->span = fe_p_from(p, start);
    if (r->kind == E_RECUPD && r->fields.len == 0) fe_p_fail(p, r->span, "Empty record update");
    e = r;
  }
  return e;
}

/* fexp = aexp+ */
static FeExpr *fexp(Parser *p) {
  FeExpr *f = aexp(p);
  if (!starts_aexp(p)) return f;
  FeExpr *e = fe_expr_new(E_APP, f->span);
  e->fn = f;
  while (starts_aexp(p))
    LZ_PUSH(e->args, aexp(p));
  e->span = fe_p_from(p, f->span);
  return e;
}

/* ---- the keyword forms ------------------------------------------------------------------- */

/* The optional `;` of `if e ; then e ; else e` (DoAndIfThenElse). */
static void semi_before(Parser *p, TokKind k) {
  if (fe_p_at(p, T_SEMI) && fe_p_peek(p).kind == k) fe_p_advance(p);
}

static bool starts_alt(Parser *p) { return fe_p_starts_apat(p) || fe_p_at_varsym(p, "-"); }

static bool starts_stmt(Parser *p) { return fe_p_starts_exp(p) || fe_p_starts_apat(p); }

/* alts = { alt ; ... }   alt = pat (-> exp | gdpat) [where decls] */
static void alts(Parser *p, FeExpr *e) {
  bool ex = fe_p_block_open(p);
  for (;;) {
    while (fe_p_accept(p, T_SEMI)) {
    }
    if (fe_p_block_at_end(p, ex) || !starts_alt(p)) break;
    FeAlt a = {.span = p->tok.span};
    a.pat = fe_p_pat(p);
    a.rhs = fe_p_rhs(p, T_RARROW);
    a.span = fe_p_from(p, a.span);
    LZ_PUSH(e->alts, a);
    if (!fe_p_at(p, T_SEMI)) break;
  }
  fe_p_block_close(p, ex);
}

/* do { stmt ; ... ; exp } */
static FeExpr *do_exp(Parser *p) {
  LzSpan start = p->tok.span;
  fe_p_expect(p, T_DO);
  FeExpr *e = fe_expr_new(E_DO, start);
  FeStmtVec stmts = {0};
  bool ex = fe_p_block_open(p);
  for (;;) {
    while (fe_p_accept(p, T_SEMI)) {
    }
    if (fe_p_block_at_end(p, ex) || !starts_stmt(p)) break;
    fe_p_stmt(p, &stmts);
    if (!fe_p_at(p, T_SEMI)) break;
  }
  fe_p_block_close(p, ex);
  e->span = fe_p_from(p, start);
  if (stmts.len == 0) {
    fe_p_defer(p, e->span, "Empty 'do' block");
  } else if (stmts.data[stmts.len - 1]->kind != S_EXPR) {
    FeStmt *last = stmts.data[stmts.len - 1];
    fe_p_defer(p, last->span, "The last statement in a 'do' block must be an expression\n  %s",
               fe_p_span_text(p, last->span));
  }
  FE_VEC_SET(e->stmts, stmts);
  return e;
}

/* lexp = \ apat+ -> exp | let decls in exp | if exp [;] then exp [;] else exp
 *      | case exp of alts | do stmts | {-# SCC name #-} exp | fexp */
static FeExpr *lexp(Parser *p) {
  LzSpan start = p->tok.span;
  FeExpr *e;
  switch (p->tok.kind) {
  case T_LAMBDA:
    fe_p_advance(p);
    if (fe_p_at(p, T_CASE)) fe_p_fail(p, p->tok.span, "\\case (LambdaCase) is not supported in Lz");
    e = fe_expr_new(E_LAM, start);
    do {
      LZ_PUSH(e->pats, fe_p_apat(p));
    } while (fe_p_starts_apat(p));
    fe_p_expect(p, T_RARROW);
    e->e1 = fe_p_exp(p);
    break;
  case T_LET: {
    fe_p_advance(p);
    e = fe_expr_new(E_LET, start);
    FeDeclVec ds = fe_p_decls(p);
    FE_VEC_SET(e->decls, ds);
    fe_p_expect(p, T_IN);
    e->e1 = fe_p_exp(p);
    break;
  }
  case T_IF:
    fe_p_advance(p);
    e = fe_expr_new(E_IF, start);
    e->e1 = fe_p_exp(p);
    semi_before(p, T_THEN);
    fe_p_expect(p, T_THEN);
    e->e2 = fe_p_exp(p);
    semi_before(p, T_ELSE);
    fe_p_expect(p, T_ELSE);
    e->e3 = fe_p_exp(p);
    break;
  case T_CASE:
    fe_p_advance(p);
    e = fe_expr_new(E_CASE, start);
    e->e1 = fe_p_exp(p);
    fe_p_expect(p, T_OF);
    alts(p, e);
    if (e->alts.len == 0)
      fe_p_defer(p, fe_p_from(p, start),
                 "Empty list of alternatives in case expression\n  Use EmptyCase to allow this");
    break;
  case T_DO: return do_exp(p);
  case T_SCC:
    e = fe_expr_new(E_SCC, start);
    e->scc = p->tok.name;
    fe_p_advance(p);
    e->e1 = fe_p_exp(p);
    break;
  default: return fexp(p);
  }
  e->span = fe_p_from(p, start);
  return e;
}

/* ---- infix expressions ----------------------------------------------------------------- */

/* infixexp = [-] lexp (qop [-] lexp)*
 * In parentheses a trailing operator is allowed (a left section): it is returned in
 * *trailing and *got_trailing is set. */
static FeExpr *infixexp(Parser *p, bool allow_trailing, FeIdent *trailing, bool *got_trailing) {
  LZ_VEC(FeExpr *) items = {0};
  bool neg = false;
  for (;;) {
    if (fe_p_at_varsym(p, "-")) {
      FeExpr *m = ident_expr(fe_p_ident(p), false);
      m->is_neg = true;
      neg = true;
      LZ_PUSH(items, m);
      continue;
    }
    FeExpr *x = lexp(p);
    LZ_PUSH(items, x);
    if (fe_p_at(p, T_BANG)) bang_in_expr(p);
    if ((x->kind == E_CASE || x->kind == E_DO) && starts_aexp(p))
      /* `case ... of {..} arg`: GHC parses it, then rejects it (no BlockArguments) */
      fe_p_fail(
          p, x->span,
          "Unexpected %s in function application:\n    %s\n  You could write it with parentheses",
          x->kind == E_CASE ? "case expression" : "do block", fe_expr_to_string(x));
    if (!fe_p_at_qop(p)) break;
    bool con;
    FeIdent op = fe_p_qop(p, &con);
    if (allow_trailing && fe_p_at(p, T_RPAREN)) {
      *trailing = op;
      *got_trailing = true;
      break;
    }
    FeExpr *o = ident_expr(op, con);
    o->is_op = true;
    LZ_PUSH(items, o);
  }
  if (items.len == 1 && !neg) return items.data[0];
  FeExpr *e =
      fe_expr_new(E_OPSEQ, lz_span_join(items.data[0]->span, items.data[items.len - 1]->span));
  FE_VEC_SET(e->args, items);
  return e;
}

/* exp = infixexp [:: [context =>] type] */
FeExpr *fe_p_exp(Parser *p) {
  fe_p_enter(p);
  FeExpr *e = infixexp(p, false, NULL, NULL);
  if (fe_p_at(p, T_DCOLON)) {
    fe_p_advance(p);
    FeExpr *t = fe_expr_new(E_TYPED, e->span);
    t->e1 = e;
    t->sig = fe_p_qualtype(p);
    t->span = fe_p_from(p, e->span);
    e = t;
  }
  fe_p_leave(p);
  return e;
}

/* ---- statements ------------------------------------------------------------------------ */

static bool bind_trial(Parser *p, void *arg) {
  FePat **out = arg;
  *out = fe_p_pat(p);
  return fe_p_accept(p, T_LARROW);
}

/* stmt = let decls | pat <- exp | exp        (also a qualifier or a guard) */
void fe_p_stmt(Parser *p, FeStmtVec *out) {
  LzSpan start = p->tok.span;
  FeStmt *s;
  if (fe_p_at(p, T_LET)) {
    fe_p_advance(p);
    FeDeclVec ds = fe_p_decls(p);
    if (fe_p_accept(p, T_IN)) { /* a let expression after all */
      FeExpr *e = fe_expr_new(E_LET, start);
      FE_VEC_SET(e->decls, ds);
      e->e1 = fe_p_exp(p);
      e->span = fe_p_from(p, start);
      s = fe_stmt_new(S_EXPR, start);
      s->e = e;
    } else {
      s = fe_stmt_new(S_LET, start);
      FE_VEC_SET(s->decls, ds);
    }
  } else {
    FePat *pat = NULL;
    if (fe_p_starts_apat(p) && fe_try(p, bind_trial, &pat)) {
      fe_p_check_bangs(p);
      s = fe_stmt_new(S_BIND, start);
      s->pat = pat;
      s->e = fe_p_exp(p);
    } else {
      s = fe_stmt_new(S_EXPR, start);
      s->e = fe_p_exp(p);
    }
  }
  s->span = fe_p_from(p, start);
  LZ_PUSH(*out, s);
}

/* quals = qual (, qual)* */
FeStmtVec fe_p_quals(Parser *p) {
  FeStmtVec v = {0};
  do {
    fe_p_stmt(p, &v);
  } while (fe_p_accept(p, T_COMMA));
  return v;
}
