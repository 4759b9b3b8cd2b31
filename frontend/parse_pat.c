/* parse_pat.c — patterns, and the left-hand sides of bindings.
 *
 * A pattern is read as a sequence of operands separated by constructor operators;
 * each operand is a run of atomic patterns (apats), which must be a single apat or a
 * constructor applied to apats. The same reader, in "lhs mode", also accepts
 * variable operators and a variable at the head of a run: that is how the left-hand
 * side of a binding is read without knowing in advance whether it defines a function
 * (`f x y`, `x <+> y`, `(+) a b`) or binds a pattern (`(a, b)`, `x : xs`). Deciding
 * which afterwards (fe_p_binding_lhs) is the trick GHC also uses. Operator sequences
 * stay unresolved (P_OPSEQ) until the renamer knows the fixities; a lone negative
 * literal becomes P_LIT with lit.negative directly.
 */
#include <string.h>

#include "parser_internal.h"

bool fe_p_starts_apat(Parser *p) {
  switch (p->tok.kind) {
  case T_VARID: return !p->tok.qual;
  case T_CONID:
  case T_LITERAL:
  case T_LPAREN:
  case T_LBRACKET:
  case T_UNDERSCORE:
  case T_TILDE:
  case T_BANG: return true;
  default: return false;
  }
}

static FePat *con_pat(const char *name, LzSpan sp) {
  FePat *q = fe_pat_new(P_CON, sp);
  q->id = fe_ident(NULL, lz_sym(name), sp);
  return q;
}

void fe_p_check_bangs(Parser *p) {
  if (p->has_bad_bang) fe_p_fail(p, p->bad_bang, "Illegal bang-pattern (use BangPatterns)");
}

/* fpats = { [qvar = pat (, qvar = pat)*] }   (explicit braces) */
static void field_pats(Parser *p, FePat *q) {
  fe_p_block_open(p);
  if (!fe_p_at(p, T_RBRACE)) {
    do {
      if (p->tok.kind != T_VARID) fe_p_error(p);
      FeFieldPat fp = {.field = fe_p_ident(p)};
      fe_p_expect(p, T_EQUAL);
      fp.pat = fe_p_pat(p);
      LZ_PUSH(q->fields, fp);
    } while (fe_p_accept(p, T_COMMA));
  }
  fe_p_block_close(p, true);
}

static FePat *literal_pat(Parser *p) {
  FePat *q = fe_pat_new(P_LIT, p->tok.span);
  q->lit = *p->tok.lit;
  fe_p_advance(p);
  return q;
}

/* apat = var [@ apat] | qcon [{ fpats }] | literal | _ | ~ apat | ! apat
 *      | () | (,...) | ( varsym ) | ( consym ) | ( pat ) | ( pat, ..., pat ) | [ pats ] */
FePat *fe_p_apat(Parser *p) {
  LzSpan start = p->tok.span;
  FePat *q;
  switch (p->tok.kind) {
  case T_VARID: {
    if (p->tok.qual) fe_p_error(p);
    FeIdent id = fe_p_ident(p);
    if (fe_p_accept(p, T_AT)) {
      fe_p_enter(p);
      q = fe_pat_new(P_AS, start);
      q->id = id;
      q->sub = fe_p_apat(p);
      fe_p_leave(p);
    } else {
      q = fe_pat_new(P_VAR, start);
      q->id = id;
    }
    break;
  }
  case T_CONID: {
    FeIdent id = fe_p_ident(p);
    if (fe_p_at(p, T_LBRACE) && !p->tok.virt) {
      q = fe_pat_new(P_REC, start);
      q->id = id;
      fe_p_enter(p);
      field_pats(p, q);
      fe_p_leave(p);
    } else {
      q = fe_pat_new(P_CON, start);
      q->id = id;
    }
    break;
  }
  case T_LITERAL: return literal_pat(p);
  case T_UNDERSCORE: fe_p_advance(p); return fe_pat_new(P_WILD, start);
  case T_TILDE:
  case T_BANG: {
    bool bang = p->tok.kind == T_BANG;
    fe_p_advance(p);
    fe_p_enter(p);
    q = fe_pat_new(bang ? P_BANG : P_LAZY, start);
    q->sub = fe_p_apat(p);
    fe_p_leave(p);
    q->span = fe_p_from(p, start);
    if (bang && !p->bang_patterns && !p->has_bad_bang) {
      p->has_bad_bang = true;
      p->bad_bang = q->span;
      if (!p->trial)
        fe_p_fail(p, q->span, "Illegal bang-pattern (use BangPatterns):\n%s", fe_pat_to_string(q));
    }
    return q;
  }
  case T_LBRACKET:
    fe_p_advance(p);
    if (fe_p_accept(p, T_RBRACKET)) return con_pat("[]", fe_p_from(p, start));
    fe_p_enter(p);
    q = fe_pat_new(P_LIST, start);
    do {
      LZ_PUSH(q->args, fe_p_pat(p));
    } while (fe_p_accept(p, T_COMMA));
    fe_p_leave(p);
    fe_p_expect(p, T_RBRACKET);
    break;
  case T_LPAREN: {
    fe_p_advance(p);
    fe_p_check_unboxed(p, start);
    if (fe_p_accept(p, T_RPAREN)) return con_pat("()", fe_p_from(p, start));
    if (fe_p_at(p, T_COMMA)) {
      int n = 1;
      while (fe_p_accept(p, T_COMMA))
        n++;
      fe_p_expect(p, T_RPAREN);
      char *name = lz_alloc((size_t)n + 2);
      name[0] = '(';
      memset(name + 1, ',', (size_t)n - 1);
      name[n] = ')';
      return con_pat(name, fe_p_from(p, start));
    }
    if ((p->tok.kind == T_VARSYM || p->tok.kind == T_CONSYM) && !p->tok.qual &&
        fe_p_peek(p).kind == T_RPAREN) {
      bool con = p->tok.kind == T_CONSYM;
      FeIdent id = fe_p_ident(p);
      fe_p_expect(p, T_RPAREN);
      q = fe_pat_new(con ? P_CON : P_VAR, fe_p_from(p, start));
      q->id = id;
      q->id.span = q->span;
      return q;
    }
    fe_p_enter(p);
    FePat *first = fe_p_pat(p);
    if (fe_p_at(p, T_COMMA)) {
      q = fe_pat_new(P_TUPLE, start);
      LZ_PUSH(q->args, first);
      while (fe_p_accept(p, T_COMMA))
        LZ_PUSH(q->args, fe_p_pat(p));
    } else {
      q = fe_pat_new(P_PAREN, start);
      q->sub = first;
    }
    fe_p_leave(p);
    fe_p_expect(p, T_RPAREN);
    break;
  }
  default: fe_p_error(p);
  }
  q->span = fe_p_from(p, start);
  return q;
}

/* ---- operator sequences ---------------------------------------------------------------- */

typedef struct PItem {
  bool is_op;
  /* operand: a run of apats, or a negative literal */
  LZ_VEC(FePat *) apats;
  bool neg;
  LzSpan span;
  /* operator */
  FeIdent op;
  bool con;
} PItem;
typedef LZ_VEC(PItem) PItems;

static bool at_numeric_literal(const Token *t) {
  return t->kind == T_LITERAL && (t->lit->kind == L_INT || t->lit->kind == L_FRAC);
}

/* seq = operand (op operand)*   where operand = apat+ | - literal;
 * op = qconop, and also qvarop in lhs mode */
static PItems collect(Parser *p, bool lhs_mode) {
  PItems items = {0};
  for (;;) {
    PItem it = {0};
    LzSpan start = p->tok.span;
    Token next = fe_p_at_varsym(p, "-") ? fe_p_peek(p) : (Token){.kind = T_EOF};
    if (at_numeric_literal(&next)) {
      fe_p_advance(p);
      it.neg = true;
      FePat *lit = literal_pat(p);
      LZ_PUSH(it.apats, lit);
    } else {
      if (!fe_p_starts_apat(p)) fe_p_error(p);
      while (fe_p_starts_apat(p))
        LZ_PUSH(it.apats, fe_p_apat(p));
    }
    it.span = fe_p_from(p, start);
    LZ_PUSH(items, it);
    PItem op = {.is_op = true};
    if (p->tok.kind == T_CONSYM) {
      op.con = true;
    } else if (p->tok.kind == T_BACKQUOTE) {
      Token n = fe_p_peek(p);
      op.con = n.kind == T_CONID;
      if (!op.con && !(lhs_mode && n.kind == T_VARID)) break;
    } else if (p->tok.kind == T_VARSYM && lhs_mode) {
      op.con = false;
    } else {
      break;
    }
    bool is_con;
    op.op = fe_p_qop(p, &is_con);
    op.span = op.op.span;
    LZ_PUSH(items, op);
  }
  return items;
}

/* An operand as a pattern: apat, or constructor applied to apats. */
static FePat *operand_pat(Parser *p, PItem *it, bool in_seq) {
  if (it->neg) {
    FePat *q = it->apats.data[0];
    q->span = it->span;
    if (in_seq)
      q->is_neg = true;
    else
      q->lit.negative = true;
    return q;
  }
  if (it->apats.len == 1) return it->apats.data[0];
  FePat *head = it->apats.data[0];
  if (head->kind != P_CON || head->args.len != 0) {
    if (p->trial) fe_p_error(p); /* (no message to build: it would be dropped) */
    fe_p_fail(p, it->span, "Parse error in pattern: %s", fe_p_span_text(p, it->span));
  }
  FePat *q = fe_pat_new(P_CON, it->span);
  q->id = head->id;
  for (int i = 1; i < it->apats.len; i++)
    LZ_PUSH(q->args, it->apats.data[i]);
  return q;
}

/* items[from, to) as one pattern: a single operand or a P_OPSEQ */
static FePat *items_pat(Parser *p, PItems *items, int from, int to) {
  if (from >= to) fe_p_error(p);
  if (to - from == 1) return operand_pat(p, &items->data[from], false);
  FePat *q = fe_pat_new(P_OPSEQ, lz_span_join(items->data[from].span, items->data[to - 1].span));
  for (int i = from; i < to; i++) {
    PItem *it = &items->data[i];
    if (it->is_op) {
      FePat *op = fe_pat_new(P_CON, it->span);
      op->id = it->op;
      op->is_op = true;
      LZ_PUSH(q->args, op);
    } else {
      LZ_PUSH(q->args, operand_pat(p, it, true));
    }
  }
  return q;
}

/* pat = lpat (qconop lpat)* */
FePat *fe_p_pat(Parser *p) {
  fe_p_enter(p);
  PItems items = collect(p, false);
  FePat *q = items_pat(p, &items, 0, items.len);
  fe_p_leave(p);
  return q;
}

/* ---- left-hand sides of bindings ----------------------------------------------------- */

/* lhs = var apat+ | pat varop pat | ( varsym ) apat* | pat */
FeDecl *fe_p_binding_lhs(Parser *p) {
  LzSpan start = p->tok.span;
  fe_p_enter(p);
  PItems items = collect(p, true);
  fe_p_leave(p);
  int varop = -1;
  for (int i = 0; i < items.len; i++) {
    PItem *it = &items.data[i];
    if (!it->is_op || it->con) continue;
    if (varop >= 0)
      fe_p_fail(p, it->span,
                "Parse error in pattern: this left-hand side defines more than one operator");
    varop = i;
  }
  FeMatch *m = LZ_NEW(FeMatch);
  FeDecl *d;
  if (varop >= 0) {
    d = fe_decl_new(D_FUN, start);
    d->name = items.data[varop].op;
    d->infix_def = true;
    LZ_PUSH(m->pats, items_pat(p, &items, 0, varop));
    LZ_PUSH(m->pats, items_pat(p, &items, varop + 1, items.len));
  } else if (items.len == 1 && !items.data[0].neg && items.data[0].apats.len >= 2 &&
             items.data[0].apats.data[0]->kind == P_VAR) {
    PItem *it = &items.data[0];
    d = fe_decl_new(D_FUN, start);
    d->name = it->apats.data[0]->id;
    for (int i = 1; i < it->apats.len; i++)
      LZ_PUSH(m->pats, it->apats.data[i]);
  } else {
    FePat *q = items_pat(p, &items, 0, items.len);
    if (q->kind == P_VAR) {
      d = fe_decl_new(D_FUN, start);
      d->name = q->id;
    } else {
      d = fe_decl_new(D_PAT, start);
      d->pat = q;
      d->span = fe_p_from(p, start);
      return d;
    }
  }
  m->span = fe_p_from(p, start);
  LZ_PUSH(d->matches, m);
  d->span = m->span;
  return d;
}
