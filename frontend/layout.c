/* layout.c — the layout (offside) rule: algorithm L of the Haskell 2010 report §10.3,
 * run lazily between the lexer's token array and the parser.
 *
 * Note [Layout]
 * The report describes L as a function from a token stream annotated with {n} (a
 * block is due after let/where/do/of, n = column of the next token) and <n> (first
 * token of a line at column n) to a stream with explicit braces and semicolons, given
 * a stack of layout contexts (0 = explicit braces). We compute the same stream one
 * token at a time, deriving the annotations on the fly:
 *   - after emitting let/where/do/of not followed by `{`, a {n} is due (expect_block);
 *   - a raw token with `bol` set carries a <n>, handled once (bol_done);
 *   - {n} with n not more indented than the enclosing block gives `{` `}` and then
 *     the <n> of that token is processed (force_indent), as in Note 2 of the report.
 * The parse-error(t) rule cannot be decided here: the parser calls
 * fe_layout_close_implicit when it meets a token it cannot accept at the end of an
 * implicit block (`let x = 1 in x`, `(case x of y -> y)`, `[e | let y = 1, ...]`).
 * Following GHC (NondecreasingIndentation, on by default in GHC 9.0), a `do` block may
 * start at the same column as the enclosing block; other blocks must be indented more.
 * The context stack is popped for an explicit `}` by the parser when it consumes it
 * (fe_layout_close_explicit), because a `}` seen inside an implicit block first closes
 * that block by the parse-error rule.
 */
#include <string.h>

#include "token.h"

void fe_layout_init(FeLayout *l, const Token *toks, int n) {
  memset(l, 0, sizeof *l);
  l->toks = toks;
  l->n = n;
  l->bol_done = -1;
  /* the module body: `{n}` unless the file starts with `module` or `{` */
  if (n > 0 && toks[0].kind != T_MODULE && toks[0].kind != T_LBRACE) l->expect_block = true;
}

static void push(FeLayout *l, int m) {
  if (l->nctx == l->capctx) {
    int ncap = l->capctx ? 2 * l->capctx : 16;
    int *nd = lz_alloc(sizeof(int) * (size_t)ncap);
    if (l->nctx) memcpy(nd, l->ctx, sizeof(int) * (size_t)l->nctx);
    l->ctx = nd;
    l->capctx = ncap;
  }
  l->ctx[l->nctx++] = m;
}

static Token virtual_token(const Token *at, TokKind kind) {
  Token t = {.kind = kind, .virt = true};
  t.span = at->span;
  t.span.eline = t.span.line;
  t.span.ecol = t.span.col;
  t.text = at->text;
  t.len = 0;
  return t;
}

Token fe_layout_next(FeLayout *l) {
  const Token *t = &l->toks[l->pos < l->n ? l->pos : l->n - 1];
  if (l->empty_close) { /* second half of `{}` */
    l->empty_close = false;
    l->force_indent = true;
    return virtual_token(t, T_RBRACE);
  }
  if (l->expect_block) {
    l->expect_block = false;
    if (t->kind != T_LBRACE) {
      int n = t->kind == T_EOF ? 0 : t->span.col;
      int m = l->nctx ? l->ctx[l->nctx - 1] : -1;
      bool open;
      if (l->nctx == 0)
        open = n > 0;
      else if (m == 0)
        open = n > 0; /* enclosing explicit block */
      else
        open = l->expect_do ? n >= m : n > m;
      if (open) {
        push(l, n);
        l->bol_done = l->pos; /* {n} replaces the <n> of this token */
      } else {
        l->empty_close = true;
      }
      return virtual_token(t, T_LBRACE);
    }
  }
  if (t->kind != T_EOF && ((t->bol && l->bol_done < l->pos) || l->force_indent)) {
    int n = t->span.col;
    int m = l->nctx ? l->ctx[l->nctx - 1] : 0;
    if (m > 0 && n == m) {
      l->bol_done = l->pos;
      l->force_indent = false;
      return virtual_token(t, T_SEMI);
    }
    if (m > 0 && n < m) {
      l->nctx--;
      return virtual_token(t, T_RBRACE); /* the <n> is processed again */
    }
    l->bol_done = l->pos;
    l->force_indent = false;
  }
  if (t->kind == T_EOF) {
    l->force_indent = false;
    if (l->nctx > 0 && l->ctx[l->nctx - 1] > 0) {
      l->nctx--;
      return virtual_token(t, T_RBRACE);
    }
    return *t;
  }
  l->pos++;
  switch (t->kind) {
  case T_LBRACE: push(l, 0); break;
  case T_LET:
  case T_WHERE:
  case T_OF:
  case T_DO:
    l->expect_block = true;
    l->expect_do = t->kind == T_DO;
    break;
  default: break;
  }
  return *t;
}

bool fe_layout_close_implicit(FeLayout *l) {
  if (l->nctx == 0 || l->ctx[l->nctx - 1] == 0) return false;
  l->nctx--;
  return true;
}

bool fe_layout_close_explicit(FeLayout *l) {
  if (l->nctx == 0 || l->ctx[l->nctx - 1] != 0) return false;
  l->nctx--;
  return true;
}

int fe_layout_depth(const FeLayout *l) { return l->nctx; }

FeLayoutSave fe_layout_save(const FeLayout *l) {
  FeLayoutSave s = {.l = *l};
  if (l->nctx) {
    s.ctx_copy = lz_alloc(sizeof(int) * (size_t)l->nctx);
    memcpy(s.ctx_copy, l->ctx, sizeof(int) * (size_t)l->nctx);
  }
  return s;
}

void fe_layout_restore(FeLayout *l, const FeLayoutSave *s) {
  int *ctx = l->ctx;
  int cap = l->capctx;
  *l = s->l;
  l->ctx = ctx;
  l->capctx = cap;
  if (s->l.nctx > cap) { /* cannot happen (the stack only grows in place), but be safe */
    l->ctx = lz_alloc(sizeof(int) * (size_t)s->l.nctx);
    l->capctx = s->l.nctx;
  }
  if (s->l.nctx) memcpy(l->ctx, s->ctx_copy, sizeof(int) * (size_t)s->l.nctx);
}
