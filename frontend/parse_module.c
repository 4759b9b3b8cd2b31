/* parse_module.c — the parser's entry point (fe_parse_module), its token and error
 * helpers, layout blocks, identifiers, and the module level: header, export list,
 * imports, and the top-level declaration block.
 *
 * See parser_internal.h for the overall approach (recursive descent, one token of
 * lookahead, speculative sub-parses with fe_try, longjmp on the first error) and
 * Note [Layout] in layout.c for how blocks are opened and closed.
 */
#include <stdarg.h>
#include <string.h>

#include "parser_internal.h"

/* ---- tokens ----------------------------------------------------------------------- */

void fe_p_advance(Parser *p) {
  if (!p->tok.virt && p->tok.kind != T_EOF) p->prev = p->tok.span;
  p->tok = fe_layout_next(&p->lay);
  if (p->tok.kind == T_ERROR) {
    /* a lexical error is reported when the parser reaches it, even in a trial */
    lz_error(p->tok.span, "%s", p->tok.msg);
    longjmp(*p->top, 1);
  }
}

bool fe_p_at(Parser *p, TokKind k) { return p->tok.kind == k; }

bool fe_p_accept(Parser *p, TokKind k) {
  if (p->tok.kind != k) return false;
  fe_p_advance(p);
  return true;
}

void fe_p_expect(Parser *p, TokKind k) {
  if (p->tok.kind != k) fe_p_error(p);
  fe_p_advance(p);
}

bool fe_p_at_varsym(Parser *p, const char *name) {
  return p->tok.kind == T_VARSYM && !p->tok.qual && strcmp(p->tok.name, name) == 0;
}

LzSpan fe_p_from(Parser *p, LzSpan start) {
  if (!lz_span_known(p->prev)) return start;
  LzSpan s = start;
  if (p->prev.eline > s.eline || (p->prev.eline == s.eline && p->prev.ecol > s.ecol)) {
    s.eline = p->prev.eline;
    s.ecol = p->prev.ecol;
  }
  return s;
}

ParserSave fe_p_save(Parser *p) {
  ParserSave s = {
      .lay = fe_layout_save(&p->lay), .tok = p->tok, .prev = p->prev, .depth = p->depth};
  s.has_bad_bang = p->has_bad_bang;
  s.bad_bang = p->bad_bang;
  s.ndeferred = p->deferred.len;
  return s;
}

void fe_p_restore(Parser *p, const ParserSave *s) {
  fe_layout_restore(&p->lay, &s->lay);
  p->tok = s->tok;
  p->prev = s->prev;
  p->depth = s->depth;
  p->has_bad_bang = s->has_bad_bang;
  p->bad_bang = s->bad_bang;
  p->deferred.len = s->ndeferred;
}

Token fe_p_peek(Parser *p) {
  ParserSave s = fe_p_save(p);
  fe_p_advance(p);
  Token t = p->tok;
  fe_p_restore(p, &s);
  return t;
}

bool fe_try(Parser *p, bool (*f)(Parser *p, void *arg), void *arg) {
  ParserSave s = fe_p_save(p);
  jmp_buf jb;
  jmp_buf *old = p->on_error;
  bool ok = false;
  p->on_error = &jb;
  p->trial++;
  if (setjmp(jb) == 0) ok = f(p, arg);
  p->on_error = old;
  p->trial--;
  if (!ok) fe_p_restore(p, &s);
  return ok;
}

/* ---- errors ------------------------------------------------------------------------ */

void fe_p_error(Parser *p) {
  if (!p->trial) {
    if (p->tok.virt || p->tok.kind == T_EOF)
      lz_error(p->tok.span, "parse error (possibly incorrect indentation or mismatched brackets)");
    else
      lz_error(p->tok.span, "parse error on input ‘%s’", fe_token_text(&p->tok));
  }
  longjmp(*p->on_error, 1);
}

void fe_p_fail(Parser *p, LzSpan at, const char *fmt, ...) {
  if (!p->trial) {
    va_list ap;
    va_start(ap, fmt);
    char *m = lz_vfmt(fmt, ap);
    va_end(ap);
    lz_diag(LZ_ERROR, at, m);
  }
  longjmp(*p->on_error, 1);
}

void fe_p_defer(Parser *p, LzSpan at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = lz_vfmt(fmt, ap);
  va_end(ap);
  struct FeDeferred d = {at, m};
  LZ_PUSH(p->deferred, d);
}

void fe_p_enter(Parser *p) {
  if (++p->depth > FE_MAX_DEPTH) {
    /* too deep is never a speculative question: report it */
    p->trial = 0;
    lz_error(p->tok.span, "expression too deeply nested");
    longjmp(*p->top, 1);
  }
}

void fe_p_leave(Parser *p) { p->depth--; }

const char *fe_p_span_text(Parser *p, LzSpan sp) {
  const char *t = p->src->text, *end = t + p->src->len;
  for (int line = 1; line < sp.line && t < end; t++)
    if (*t == '\n') line++;
  /* walk columns as the lexer counts them: tabs to multiples of 8, UTF-8 as one */
  int col = 1;
  const char *start = NULL, *stop = NULL;
  for (; t < end && *t != '\n'; t++) {
    unsigned char c = (unsigned char)*t;
    if ((c & 0xC0) == 0x80) continue;
    if (col == sp.col) start = t;
    if (sp.eline == sp.line && col == sp.ecol + 1) {
      stop = t;
      break;
    }
    col = c == '\t' ? ((col - 1) / 8 + 1) * 8 + 1 : col + 1;
  }
  if (!start) return "";
  if (!stop) stop = t; /* to the end of the first line */
  return lz_strndup(start, (size_t)(stop - start));
}

void fe_p_check_unboxed(Parser *p, LzSpan lparen) {
  if (p->magic_hash && p->tok.kind == T_VARSYM && !p->tok.qual && p->tok.name[0] == '#' &&
      p->tok.span.line == lparen.line && p->tok.span.col == lparen.col + 1 &&
      fe_p_peek(p).kind != T_RPAREN)
    fe_p_fail(p, lparen, "unboxed tuples are not supported in Lz");
}

/* ---- blocks ------------------------------------------------------------------------ */

bool fe_p_block_open(Parser *p) {
  if (p->tok.kind != T_LBRACE) fe_p_error(p);
  bool explicit_ = !p->tok.virt;
  fe_p_advance(p);
  return explicit_;
}

bool fe_p_block_at_end(Parser *p, bool explicit_) {
  if (p->tok.kind == T_EOF) return true;
  return p->tok.kind == T_RBRACE && p->tok.virt != explicit_;
}

void fe_p_block_close(Parser *p, bool explicit_) {
  if (explicit_) {
    if (p->tok.kind == T_RBRACE && !p->tok.virt && fe_layout_close_explicit(&p->lay)) {
      fe_p_advance(p);
      return;
    }
    fe_p_error(p);
  }
  if (p->tok.kind == T_RBRACE && p->tok.virt) {
    fe_p_advance(p);
    return;
  }
  /* parse-error(t): the token cannot continue the block, so the block ends here */
  if (fe_layout_close_implicit(&p->lay)) return;
  fe_p_error(p);
}

/* ---- identifiers --------------------------------------------------------------------- */

FeIdent fe_p_ident(Parser *p) {
  FeIdent id = fe_ident(p->tok.qual, p->tok.name, p->tok.span);
  fe_p_advance(p);
  return id;
}

bool fe_p_at_var(Parser *p) {
  if (p->tok.kind == T_VARID && !p->tok.qual) return true;
  if (p->tok.kind != T_LPAREN) return false;
  ParserSave s = fe_p_save(p);
  fe_p_advance(p);
  bool ok = p->tok.kind == T_VARSYM && !p->tok.qual;
  if (ok) {
    fe_p_advance(p);
    ok = p->tok.kind == T_RPAREN;
  }
  fe_p_restore(p, &s);
  return ok;
}

FeIdent fe_p_var(Parser *p) {
  if (p->tok.kind == T_VARID && !p->tok.qual) return fe_p_ident(p);
  LzSpan start = p->tok.span;
  fe_p_expect(p, T_LPAREN);
  if (p->tok.kind != T_VARSYM || p->tok.qual) fe_p_error(p);
  FeIdent id = fe_p_ident(p);
  fe_p_expect(p, T_RPAREN);
  id.span = fe_p_from(p, start);
  return id;
}

bool fe_p_at_qop(Parser *p) {
  return p->tok.kind == T_VARSYM || p->tok.kind == T_CONSYM || p->tok.kind == T_BACKQUOTE;
}

FeIdent fe_p_qop(Parser *p, bool *is_con) {
  if (p->tok.kind == T_VARSYM || p->tok.kind == T_CONSYM) {
    *is_con = p->tok.kind == T_CONSYM;
    return fe_p_ident(p);
  }
  LzSpan start = p->tok.span;
  fe_p_expect(p, T_BACKQUOTE);
  if (p->tok.kind != T_VARID && p->tok.kind != T_CONID) fe_p_error(p);
  *is_con = p->tok.kind == T_CONID;
  FeIdent id = fe_p_ident(p);
  fe_p_expect(p, T_BACKQUOTE);
  id.span = fe_p_from(p, start);
  return id;
}

Sym fe_p_module_name(const Token *t) {
  return t->qual ? lz_sym(lz_fmt("%s.%s", t->qual, t->name)) : t->name;
}

/* ---- export and import lists ----------------------------------------------------------- */

typedef LZ_VEC(FeIE) IEVec;

/* cname = var | con | ( varsym ) | ( consym )   (inside T(...)) */
static FeIdent cname(Parser *p) {
  if (p->tok.kind == T_VARID || p->tok.kind == T_CONID) return fe_p_ident(p);
  LzSpan start = p->tok.span;
  fe_p_expect(p, T_LPAREN);
  if (p->tok.kind != T_VARSYM && p->tok.kind != T_CONSYM) fe_p_error(p);
  FeIdent id = fe_p_ident(p);
  fe_p_expect(p, T_RPAREN);
  id.span = fe_p_from(p, start);
  return id;
}

/* ie = qvar | qtycon [ (..) | ( cname, ... ) ] | module modid    (module: exports only) */
static FeIE ie_item(Parser *p, bool is_export) {
  FeIE ie = {0};
  LzSpan start = p->tok.span;
  if (is_export && fe_p_accept(p, T_MODULE)) {
    if (p->tok.kind != T_CONID) fe_p_error(p);
    ie.kind = IE_MODULE;
    ie.name = fe_ident(NULL, fe_p_module_name(&p->tok), p->tok.span);
    fe_p_advance(p);
  } else if (p->tok.kind == T_VARID && (is_export || !p->tok.qual)) {
    ie.kind = IE_VAR;
    ie.name = fe_p_ident(p);
  } else if (p->tok.kind == T_LPAREN) {
    fe_p_advance(p);
    if (p->tok.kind != T_VARSYM || (!is_export && p->tok.qual)) fe_p_error(p);
    ie.kind = IE_VAR;
    ie.name = fe_p_ident(p);
    fe_p_expect(p, T_RPAREN);
  } else if (p->tok.kind == T_CONID && (is_export || !p->tok.qual)) {
    ie.kind = IE_THING;
    ie.name = fe_p_ident(p);
    if (fe_p_accept(p, T_LPAREN)) {
      if (fe_p_accept(p, T_DOTDOT)) {
        ie.kind = IE_THING_ALL;
      } else {
        ie.kind = IE_THING_WITH;
        while (!fe_p_at(p, T_RPAREN)) {
          LZ_PUSH(ie.subs, cname(p));
          if (!fe_p_accept(p, T_COMMA)) break;
        }
      }
      fe_p_expect(p, T_RPAREN);
    }
  } else {
    fe_p_error(p);
  }
  ie.span = fe_p_from(p, start);
  return ie;
}

/* ies = ( [ie (, ie)*] [,] ) */
static void ie_list(Parser *p, IEVec *out, bool is_export) {
  fe_p_expect(p, T_LPAREN);
  while (!fe_p_at(p, T_RPAREN)) {
    if (fe_p_accept(p, T_COMMA)) continue;
    LZ_PUSH(*out, ie_item(p, is_export));
    if (!fe_p_at(p, T_RPAREN)) fe_p_expect(p, T_COMMA);
  }
  fe_p_expect(p, T_RPAREN);
}

static bool at_word(Parser *p, const char *w) {
  return p->tok.kind == T_VARID && !p->tok.qual && strcmp(p->tok.name, w) == 0;
}

/* impdecl = import [qualified] modid [as modid] [[hiding] ies] */
static FeImport import_decl(Parser *p) {
  FeImport imp = {0};
  LzSpan start = p->tok.span;
  fe_p_expect(p, T_IMPORT);
  if (at_word(p, "qualified")) {
    fe_p_advance(p);
    imp.qualified = true;
  }
  if (p->tok.kind != T_CONID) fe_p_error(p);
  imp.module = fe_ident(NULL, fe_p_module_name(&p->tok), p->tok.span);
  fe_p_advance(p);
  if (at_word(p, "as")) {
    fe_p_advance(p);
    if (p->tok.kind != T_CONID) fe_p_error(p);
    imp.as = fe_p_module_name(&p->tok);
    fe_p_advance(p);
  }
  if (at_word(p, "hiding")) {
    fe_p_advance(p);
    imp.hiding = true;
    if (!fe_p_at(p, T_LPAREN)) fe_p_error(p);
  }
  if (fe_p_at(p, T_LPAREN)) {
    imp.has_list = true;
    IEVec items = {0};
    ie_list(p, &items, false);
    FE_VEC_SET(imp.items, items);
  }
  imp.span = fe_p_from(p, start);
  return imp;
}

/* ---- the module ------------------------------------------------------------------------ */

/* body = { impdecl ; ... ; topdecl ; ... } */
static void body(Parser *p, FeModule *m) {
  bool ex = fe_p_block_open(p);
  bool imports_done = false;
  FeDeclVec decls = {0};
  for (;;) {
    while (fe_p_accept(p, T_SEMI)) {
    }
    if (fe_p_block_at_end(p, ex)) break;
    if (fe_p_at(p, T_IMPORT) && !imports_done) {
      FeImport imp = import_decl(p);
      LZ_PUSH(m->imports, imp);
    } else {
      imports_done = true;
      fe_p_topdecl(p, &decls);
    }
    if (!fe_p_at(p, T_SEMI)) break;
  }
  fe_p_block_close(p, ex);
  FE_VEC_SET(m->decls, decls);
}

/* module = module modid [exports] where body | body */
static void module(Parser *p, FeModule *m) {
  if (fe_p_at(p, T_MODULE)) {
    fe_p_advance(p);
    if (p->tok.kind != T_CONID) fe_p_error(p);
    m->name = fe_ident(NULL, fe_p_module_name(&p->tok), p->tok.span);
    fe_p_advance(p);
    if (fe_p_at(p, T_LPAREN)) {
      m->has_exports = true;
      IEVec items = {0};
      ie_list(p, &items, true);
      FE_VEC_SET(m->exports, items);
    }
    fe_p_expect(p, T_WHERE);
  } else {
    LzSpan sp = {.file = p->src->id, .line = 1, .col = 1, .eline = 1, .ecol = 1};
    m->name = fe_ident(NULL, lz_sym("Main"), sp);
  }
  body(p, m);
  if (!fe_p_at(p, T_EOF)) fe_p_error(p);
}

FeModule *fe_parse_module(LzSource *src) {
  FeLexResult lr = fe_lex(src);
  Parser *p = LZ_NEW(Parser);
  FeModule *m = LZ_NEW(FeModule);
  m->src = src;
  m->magic_hash = lr.magic_hash;
  m->bang_patterns = lr.bang_patterns;
  m->no_implicit_prelude = lr.no_implicit_prelude;
  p->src = src;
  p->mod = m;
  p->magic_hash = lr.magic_hash;
  p->bang_patterns = lr.bang_patterns;
  fe_layout_init(&p->lay, lr.toks, lr.n);
  jmp_buf jb;
  p->top = p->on_error = &jb;
  if (setjmp(jb)) return NULL;
  p->tok = (Token){.kind = T_EOF, .virt = true};
  fe_p_advance(p);
  module(p, m);
  if (p->deferred.len == 0) return m;
  /* report in source order, as GHC does */
  for (int i = 1; i < p->deferred.len; i++) {
    struct FeDeferred d = p->deferred.data[i];
    int j = i;
    for (; j > 0; j--) {
      LzSpan q = p->deferred.data[j - 1].at;
      if (q.line < d.at.line || (q.line == d.at.line && q.col <= d.at.col)) break;
      p->deferred.data[j] = p->deferred.data[j - 1];
    }
    p->deferred.data[j] = d;
  }
  for (int i = 0; i < p->deferred.len; i++)
    lz_diag(LZ_ERROR, p->deferred.data[i].at, p->deferred.data[i].msg);
  return NULL;
}
