/* ast_print.c — prints the syntax tree back as Lz source (tests, --dump-parse).
 *
 * The output is meant to be read and compared, so it is regular rather than pretty:
 * every application, infix application, lambda, let, if, case and do is wrapped in
 * parentheses, blocks use explicit braces and semicolons, and one declaration takes
 * one line. Unresolved operator sequences print flat inside one pair of parentheses
 * (`(1 + 2 * 3)`); after fixity resolution they print nested (`(1 + (2 * 3))`).
 * Resolved identifiers print as Module.occ (just occ for local names). Everything is
 * written to a growable buffer first, so the to_string functions come for free.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ast.h"

typedef LZ_VEC(char) Buf;

static void put(Buf *b, const char *s) {
  for (; *s; s++)
    LZ_PUSH(*b, *s);
}

__attribute__((format(printf, 2, 3))) static void putf(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = lz_vfmt(fmt, ap);
  va_end(ap);
  put(b, s);
}

static char *finish(Buf *b) {
  LZ_PUSH(*b, 0);
  return b->data;
}

static void expr(Buf *b, const FeExpr *e);
static void pat(Buf *b, const FePat *p);
static void type(Buf *b, const FeType *t);
static void decl(Buf *b, const FeDecl *d);

/* ---- names and literals ------------------------------------------------------------- */

static bool symbolic(Sym name) {
  unsigned char c = name ? (unsigned char)name[0] : 'x';
  return !(c == '_' || c == '(' || c == '[' || c >= 0x80 || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z'));
}

static void name_text(Buf *b, const FeIdent *id) {
  if (id->ref && id->ref->module)
    putf(b, "%s.%s", id->ref->module, id->ref->occ);
  else if (id->ref)
    put(b, id->ref->occ);
  else if (id->orig_module)
    putf(b, "%s.%s", id->orig_module, id->name);
  else if (id->qual)
    putf(b, "%s.%s", id->qual, id->name);
  else
    put(b, id->name ? id->name : "?");
}

/* f, (+) */
static void ident_prefix(Buf *b, const FeIdent *id) {
  bool sym = symbolic(id->ref ? id->ref->occ : id->name);
  if (sym) put(b, "(");
  name_text(b, id);
  if (sym) put(b, ")");
}

/* +, `div` */
static void ident_infix(Buf *b, const FeIdent *id) {
  bool sym = symbolic(id->ref ? id->ref->occ : id->name);
  if (!sym) put(b, "`");
  name_text(b, id);
  if (!sym) put(b, "`");
}

static void escaped_char(Buf *b, uint32_t c, char quote, bool next_is_digit) {
  switch (c) {
  case '\n': put(b, "\\n"); return;
  case '\t': put(b, "\\t"); return;
  case '\\': put(b, "\\\\"); return;
  }
  if (c == (uint32_t)quote) {
    putf(b, "\\%c", quote);
  } else if (c < 32 || c == 127) {
    putf(b, "\\%u", (unsigned)c);
    if (next_is_digit) put(b, "\\&");
  } else {
    LZ_PUSH(*b, (char)c); /* bytes >= 0x80 pass through: strings are UTF-8 */
  }
}

static void lit(Buf *b, const FeLit *l) {
  switch (l->kind) {
  case L_INT:
  case L_PRIM_INT:
    putf(b, "%s%s%s", l->negative ? "-" : "", l->digits ? l->digits : "0",
         l->kind == L_PRIM_INT ? "#" : "");
    break;
  case L_FRAC:
  case L_PRIM_DOUBLE: {
    const char *m = l->mantissa ? l->mantissa : "0";
    int n = (int)strlen(m);
    if (l->negative) put(b, "-");
    if (l->exp10 < 0 && -l->exp10 < n)
      putf(b, "%.*s.%s", n + l->exp10, m, m + n + l->exp10);
    else if (l->exp10 == 0)
      putf(b, "%s.0", m);
    else
      putf(b, "%se%d", m, l->exp10);
    if (l->kind == L_PRIM_DOUBLE) put(b, "##");
    break;
  }
  case L_CHAR:
  case L_PRIM_CHAR:
    put(b, "'");
    if (l->ch >= 0x80) {
      putf(b, "\\%u", (unsigned)l->ch);
    } else {
      escaped_char(b, l->ch, '\'', false);
    }
    put(b, l->kind == L_PRIM_CHAR ? "'#" : "'");
    break;
  case L_STRING:
  case L_PRIM_STRING:
    put(b, "\"");
    for (size_t i = 0; i < l->len; i++) {
      bool digit = i + 1 < l->len && l->str[i + 1] >= '0' && l->str[i + 1] <= '9';
      escaped_char(b, (unsigned char)l->str[i], '"', digit);
    }
    put(b, l->kind == L_PRIM_STRING ? "\"#" : "\"");
    break;
  }
}

/* ---- types -------------------------------------------------------------------------- */

static void type(Buf *b, const FeType *t) {
  if (!t) {
    put(b, "?");
    return;
  }
  switch (t->kind) {
  case TY_VAR:
  case TY_CON: ident_prefix(b, &t->id); break;
  case TY_FUN:
    put(b, "(");
    type(b, t->left);
    put(b, " -> ");
    type(b, t->right);
    put(b, ")");
    break;
  case TY_APP: {
    const FeType *h = t;
    int n = 0;
    while (h->kind == TY_APP)
      h = h->left, n++;
    /* special syntax: unresolved, or resolved to a built-in (module-less) name */
    Sym hn = h->kind != TY_CON   ? NULL
             : !h->id.ref        ? h->id.name
             : h->id.ref->module ? NULL
                                 : h->id.ref->occ;
    if (hn && strcmp(hn, "[]") == 0 && n == 1) {
      put(b, "[");
      type(b, t->right);
      put(b, "]");
    } else if (hn && hn[0] == '(' && hn[1] == ',' && (int)strlen(hn) == n + 1) {
      const FeType *args[64];
      if (n > 64) goto plain;
      const FeType *a = t;
      for (int i = n - 1; i >= 0; i--, a = a->left)
        args[i] = a->right;
      put(b, "(");
      for (int i = 0; i < n; i++) {
        if (i) put(b, ", ");
        type(b, args[i]);
      }
      put(b, ")");
    } else {
    plain:
      put(b, "(");
      type(b, t->left);
      put(b, " ");
      type(b, t->right);
      put(b, ")");
    }
    break;
  }
  }
}

/* "(C1 t1, C2 t2) => " or nothing */
static void context(Buf *b, const FeQualType *q) {
  if (!q || !q->ctx.len) return;
  put(b, "(");
  for (int i = 0; i < q->ctx.len; i++) {
    if (i) put(b, ", ");
    ident_prefix(b, &q->ctx.data[i].cls);
    put(b, " ");
    type(b, q->ctx.data[i].type);
  }
  put(b, ") => ");
}

static void qualtype(Buf *b, const FeQualType *q) {
  if (!q) return;
  context(b, q);
  type(b, q->type);
}

/* ---- patterns ------------------------------------------------------------------------- */

static void pats(Buf *b, const FePat *const *ps, int n, const char *sep) {
  for (int i = 0; i < n; i++) {
    if (i) put(b, sep);
    pat(b, ps[i]);
  }
}

static void pat(Buf *b, const FePat *p) {
  if (!p) {
    put(b, "?");
    return;
  }
  switch (p->kind) {
  case P_VAR: ident_prefix(b, &p->id); break;
  case P_WILD: put(b, "_"); break;
  case P_LIT:
    if (p->lit.negative) put(b, "(");
    lit(b, &p->lit);
    if (p->lit.negative) put(b, ")");
    break;
  case P_CON:
    if (p->args.len == 0) {
      ident_prefix(b, &p->id);
    } else if (p->is_op && p->args.len == 2) {
      put(b, "(");
      pat(b, p->args.data[0]);
      put(b, " ");
      ident_infix(b, &p->id);
      put(b, " ");
      pat(b, p->args.data[1]);
      put(b, ")");
    } else {
      put(b, "(");
      ident_prefix(b, &p->id);
      put(b, " ");
      pats(b, (const FePat *const *)p->args.data, p->args.len, " ");
      put(b, ")");
    }
    break;
  case P_TUPLE:
    put(b, "(");
    pats(b, (const FePat *const *)p->args.data, p->args.len, ", ");
    put(b, ")");
    break;
  case P_LIST:
    put(b, "[");
    pats(b, (const FePat *const *)p->args.data, p->args.len, ", ");
    put(b, "]");
    break;
  case P_AS:
    ident_prefix(b, &p->id);
    put(b, "@");
    pat(b, p->sub);
    break;
  case P_LAZY:
    put(b, "~");
    pat(b, p->sub);
    break;
  case P_BANG:
    put(b, "!");
    pat(b, p->sub);
    break;
  case P_REC:
    ident_prefix(b, &p->id);
    put(b, " {");
    for (int i = 0; i < p->fields.len; i++) {
      put(b, i ? ", " : "");
      ident_prefix(b, &p->fields.data[i].field);
      put(b, " = ");
      pat(b, p->fields.data[i].pat);
    }
    put(b, "}");
    break;
  case P_OPSEQ:
    put(b, "(");
    for (int i = 0; i < p->args.len; i++) {
      const FePat *q = p->args.data[i];
      if (i) put(b, " ");
      if (q->is_op)
        ident_infix(b, &q->id);
      else {
        if (q->is_neg) put(b, "-");
        pat(b, q);
      }
    }
    put(b, ")");
    break;
  case P_PAREN:
    put(b, "(");
    pat(b, p->sub);
    put(b, ")");
    break;
  }
}

/* ---- expressions ------------------------------------------------------------------- */

static void decls(Buf *b, const FeDecl *const *ds, int n) {
  put(b, "{");
  for (int i = 0; i < n; i++) {
    put(b, i ? "; " : "");
    decl(b, ds[i]);
  }
  put(b, "}");
}

static void stmt(Buf *b, const FeStmt *s) {
  switch (s->kind) {
  case S_BIND:
    pat(b, s->pat);
    put(b, " <- ");
    expr(b, s->e);
    break;
  case S_LET:
    put(b, "let ");
    decls(b, (const FeDecl *const *)s->decls.data, s->decls.len);
    break;
  case S_EXPR: expr(b, s->e); break;
  }
}

static void stmts(Buf *b, const FeStmt *const *ss, int n, const char *sep) {
  for (int i = 0; i < n; i++) {
    if (i) put(b, sep);
    stmt(b, ss[i]);
  }
}

static void rhs(Buf *b, const FeRhs *r, const char *eq) {
  if (!r) {
    put(b, " ?");
    return;
  }
  if (r->plain) {
    putf(b, " %s ", eq);
    expr(b, r->plain);
  }
  for (int i = 0; i < r->guards.len; i++) {
    put(b, " | ");
    stmts(b, (const FeStmt *const *)r->guards.data[i].quals.data, r->guards.data[i].quals.len,
          ", ");
    putf(b, " %s ", eq);
    expr(b, r->guards.data[i].e);
  }
  if (r->where.len) {
    put(b, " where ");
    decls(b, (const FeDecl *const *)r->where.data, r->where.len);
  }
}

static void exprs(Buf *b, FeExpr *const *es, int n, const char *sep) {
  for (int i = 0; i < n; i++) {
    if (i) put(b, sep);
    expr(b, es[i]);
  }
}

static void fields(Buf *b, const FeExpr *e) {
  put(b, " {");
  for (int i = 0; i < e->fields.len; i++) {
    put(b, i ? ", " : "");
    ident_prefix(b, &e->fields.data[i].field);
    put(b, " = ");
    expr(b, e->fields.data[i].e);
  }
  put(b, "}");
}

static void expr(Buf *b, const FeExpr *e) {
  if (!e) {
    put(b, "?");
    return;
  }
  switch (e->kind) {
  case E_VAR:
  case E_CON:
    if (e->is_op)
      ident_infix(b, &e->id);
    else
      ident_prefix(b, &e->id);
    break;
  case E_LIT:
    if (e->lit.negative) put(b, "(");
    lit(b, &e->lit);
    if (e->lit.negative) put(b, ")");
    break;
  case E_APP:
    put(b, "(");
    if (e->fn && (e->fn->kind == E_VAR || e->fn->kind == E_CON) && e->fn->is_op &&
        e->args.len == 2) {
      expr(b, e->args.data[0]);
      put(b, " ");
      ident_infix(b, &e->fn->id);
      put(b, " ");
      expr(b, e->args.data[1]);
    } else {
      if (e->fn && (e->fn->kind == E_VAR || e->fn->kind == E_CON))
        ident_prefix(b, &e->fn->id);
      else
        expr(b, e->fn);
      put(b, " ");
      exprs(b, e->args.data, e->args.len, " ");
    }
    put(b, ")");
    break;
  case E_OPSEQ:
    put(b, "(");
    for (int i = 0; i < e->args.len; i++) {
      if (i) put(b, " ");
      if (e->args.data[i]->is_neg)
        put(b, "-");
      else
        expr(b, e->args.data[i]);
    }
    put(b, ")");
    break;
  case E_NEG:
    put(b, "(- ");
    expr(b, e->e1);
    put(b, ")");
    break;
  case E_LAM:
    put(b, "(\\");
    /* `\~p` and `\!p` would lex as one operator */
    if (e->pats.len && (e->pats.data[0]->kind == P_LAZY || e->pats.data[0]->kind == P_BANG))
      put(b, " ");
    pats(b, (const FePat *const *)e->pats.data, e->pats.len, " ");
    put(b, " -> ");
    expr(b, e->e1);
    put(b, ")");
    break;
  case E_LET:
    put(b, "(let ");
    decls(b, (const FeDecl *const *)e->decls.data, e->decls.len);
    put(b, " in ");
    expr(b, e->e1);
    put(b, ")");
    break;
  case E_IF:
    put(b, "(if ");
    expr(b, e->e1);
    put(b, " then ");
    expr(b, e->e2);
    put(b, " else ");
    expr(b, e->e3);
    put(b, ")");
    break;
  case E_CASE:
    put(b, "(case ");
    expr(b, e->e1);
    put(b, " of {");
    for (int i = 0; i < e->alts.len; i++) {
      put(b, i ? "; " : "");
      pat(b, e->alts.data[i].pat);
      rhs(b, e->alts.data[i].rhs, "->");
    }
    put(b, "})");
    break;
  case E_DO:
    put(b, "(do {");
    stmts(b, (const FeStmt *const *)e->stmts.data, e->stmts.len, "; ");
    put(b, "})");
    break;
  case E_TUPLE:
    put(b, "(");
    exprs(b, e->args.data, e->args.len, ", ");
    put(b, ")");
    break;
  case E_LIST:
    put(b, "[");
    exprs(b, e->args.data, e->args.len, ", ");
    put(b, "]");
    break;
  case E_ARITH:
    put(b, "[");
    expr(b, e->e1);
    if (e->e2) {
      put(b, ", ");
      expr(b, e->e2);
    }
    put(b, " ..");
    if (e->e3) {
      put(b, " ");
      expr(b, e->e3);
    }
    put(b, "]");
    break;
  case E_COMP:
    put(b, "[");
    expr(b, e->e1);
    put(b, " | ");
    stmts(b, (const FeStmt *const *)e->stmts.data, e->stmts.len, ", ");
    put(b, "]");
    break;
  case E_LSECTION:
    put(b, "(");
    expr(b, e->e1);
    put(b, " ");
    ident_infix(b, &e->id);
    put(b, ")");
    break;
  case E_RSECTION:
    put(b, "(");
    ident_infix(b, &e->id);
    put(b, " ");
    expr(b, e->e1);
    put(b, ")");
    break;
  case E_TYPED:
    put(b, "(");
    expr(b, e->e1);
    put(b, " :: ");
    qualtype(b, e->sig);
    put(b, ")");
    break;
  case E_RECCON:
    ident_prefix(b, &e->id);
    fields(b, e);
    break;
  case E_RECUPD:
    put(b, "(");
    expr(b, e->e1);
    fields(b, e);
    put(b, ")");
    break;
  case E_SCC:
    putf(b, "({-# SCC \"%s\" #-} ", e->scc ? e->scc : "");
    expr(b, e->e1);
    put(b, ")");
    break;
  case E_PAREN:
    put(b, "(");
    expr(b, e->e1);
    put(b, ")");
    break;
  }
}

/* ---- declarations ------------------------------------------------------------------ */

static void idents(Buf *b, const FeIdent *ids, int n, bool infix) {
  for (int i = 0; i < n; i++) {
    if (i) put(b, ", ");
    if (infix)
      ident_infix(b, &ids[i]);
    else
      ident_prefix(b, &ids[i]);
  }
}

static void condecl(Buf *b, const FeConDecl *c) {
  if (c->infix && c->fields.len == 2) {
    if (c->fields.data[0].strict) put(b, "!");
    type(b, c->fields.data[0].type);
    put(b, " ");
    ident_infix(b, &c->name);
    put(b, " ");
    if (c->fields.data[1].strict) put(b, "!");
    type(b, c->fields.data[1].type);
    return;
  }
  ident_prefix(b, &c->name);
  if (c->record) put(b, " {");
  for (int i = 0; i < c->fields.len; i++) {
    const FeField *f = &c->fields.data[i];
    if (c->record) {
      put(b, i ? ", " : "");
      ident_prefix(b, &f->label);
      put(b, " :: ");
    } else {
      put(b, " ");
    }
    if (f->strict) put(b, "!");
    type(b, f->type);
  }
  if (c->record) put(b, "}");
}

static void decl(Buf *b, const FeDecl *d) {
  switch (d->kind) {
  case D_SIG:
    idents(b, d->names.data, d->names.len, false);
    put(b, " :: ");
    qualtype(b, d->sig);
    break;
  case D_FIXITY:
    putf(b, "%s %d ",
         d->assoc == ASSOC_LEFT    ? "infixl"
         : d->assoc == ASSOC_RIGHT ? "infixr"
                                   : "infix",
         d->prec);
    idents(b, d->names.data, d->names.len, true);
    break;
  case D_FUN:
    for (int i = 0; i < d->matches.len; i++) {
      const FeMatch *m = d->matches.data[i];
      if (i) put(b, "; ");
      if (d->infix_def && m->pats.len == 2) {
        pat(b, m->pats.data[0]);
        put(b, " ");
        ident_infix(b, &d->name);
        put(b, " ");
        pat(b, m->pats.data[1]);
      } else {
        ident_prefix(b, &d->name);
        for (int j = 0; j < m->pats.len; j++) {
          put(b, " ");
          pat(b, m->pats.data[j]);
        }
      }
      rhs(b, m->rhs, "=");
    }
    break;
  case D_PAT:
    pat(b, d->pat);
    rhs(b, d->rhs, "=");
    break;
  case D_DATA:
  case D_NEWTYPE:
  case D_TYPE:
    put(b, d->kind == D_DATA ? "data " : d->kind == D_NEWTYPE ? "newtype " : "type ");
    ident_prefix(b, &d->name);
    for (int i = 0; i < d->tyvars.len; i++) {
      put(b, " ");
      ident_prefix(b, &d->tyvars.data[i]);
    }
    if (d->kind == D_TYPE) {
      put(b, " = ");
      type(b, d->rhs_type);
      break;
    }
    for (int i = 0; i < d->cons.len; i++) {
      put(b, i ? " | " : " = ");
      condecl(b, d->cons.data[i]);
    }
    if (d->deriving.len) {
      put(b, " deriving (");
      idents(b, d->deriving.data, d->deriving.len, false);
      put(b, ")");
    }
    break;
  case D_CLASS:
  case D_INSTANCE:
    put(b, d->kind == D_CLASS ? "class " : "instance ");
    context(b, d->sig);
    ident_prefix(b, &d->name);
    put(b, " ");
    type(b, d->sig ? d->sig->type : NULL);
    if (d->body.len) {
      put(b, " where ");
      decls(b, (const FeDecl *const *)d->body.data, d->body.len);
    }
    break;
  case D_FOREIGN:
    putf(b, "foreign import %s \"%s\" ", d->callconv ? d->callconv : "?",
         d->entity ? d->entity : "");
    ident_prefix(b, &d->name);
    put(b, " :: ");
    qualtype(b, d->sig);
    break;
  case D_DEFAULT:
    put(b, "default (");
    for (int i = 0; i < d->types.len; i++) {
      if (i) put(b, ", ");
      type(b, d->types.data[i]);
    }
    put(b, ")");
    break;
  }
}

static void ie(Buf *b, const FeIE *x) {
  if (x->kind == IE_MODULE) put(b, "module ");
  ident_prefix(b, &x->name);
  if (x->kind == IE_THING_ALL) put(b, "(..)");
  if (x->kind == IE_THING_WITH) {
    put(b, "(");
    idents(b, x->subs.data, x->subs.len, false);
    put(b, ")");
  }
}

static void module(Buf *b, const FeModule *m) {
  put(b, "module ");
  name_text(b, &m->name);
  if (m->has_exports) {
    put(b, " (");
    for (int i = 0; i < m->exports.len; i++) {
      if (i) put(b, ", ");
      ie(b, &m->exports.data[i]);
    }
    put(b, ")");
  }
  put(b, " where\n");
  for (int i = 0; i < m->imports.len; i++) {
    const FeImport *imp = &m->imports.data[i];
    putf(b, "import %s%s", imp->qualified ? "qualified " : "", imp->module.name);
    if (imp->as) putf(b, " as %s", imp->as);
    if (imp->hiding) put(b, " hiding");
    if (imp->has_list) {
      put(b, " (");
      for (int j = 0; j < imp->items.len; j++) {
        if (j) put(b, ", ");
        ie(b, &imp->items.data[j]);
      }
      put(b, ")");
    }
    put(b, "\n");
  }
  for (int i = 0; i < m->decls.len; i++) {
    decl(b, m->decls.data[i]);
    put(b, "\n");
  }
}

/* ---- entry points ----------------------------------------------------------------- */

static void out(void *file, Buf *b) {
  fwrite(b->data, 1, (size_t)b->len, file ? (FILE *)file : stdout);
}

void fe_print_module(void *file, const FeModule *m) {
  Buf b = {0};
  module(&b, m);
  out(file, &b);
}

void fe_print_expr(void *file, const FeExpr *e) {
  Buf b = {0};
  expr(&b, e);
  out(file, &b);
}

void fe_print_pat(void *file, const FePat *p) {
  Buf b = {0};
  pat(&b, p);
  out(file, &b);
}

void fe_print_type(void *file, const FeType *t) {
  Buf b = {0};
  type(&b, t);
  out(file, &b);
}

char *fe_expr_to_string(const FeExpr *e) {
  Buf b = {0};
  expr(&b, e);
  return finish(&b);
}

char *fe_type_to_string(const FeType *t) {
  Buf b = {0};
  type(&b, t);
  return finish(&b);
}

char *fe_pat_to_string(const FePat *p) {
  Buf b = {0};
  pat(&b, p);
  return finish(&b);
}

char *fe_decl_to_string(const FeDecl *d) {
  Buf b = {0};
  decl(&b, d);
  return finish(&b);
}
