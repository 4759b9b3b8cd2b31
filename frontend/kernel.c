/* kernel.c — constructors and the printer of the kernel language (kernel.h).
 *
 * The printer writes kernel as Haskell-like text, for `lzc --dump-kernel` and tests.
 * Top-level names print as their occurrence (`map`, `(==)`), local names as
 * occurrence_unique (`x_12`, `ds_40`), because the desugarer makes many variables
 * with the same occurrence and the reader must be able to tell them apart. Two
 * layouts share one recursive printer: the dump puts each case alternative and let
 * binding on its own indented line; k_expr_to_string writes one line with braces and
 * semicolons, which is what tests compare against. Printing depth is capped, so a
 * very deep tree prints `...` instead of exhausting the stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/* ---- constructors ----------------------------------------------------------------- */

KExpr *k_new(KExprKind kind, LzSpan span) {
  KExpr *e = LZ_NEW(KExpr);
  e->kind = kind;
  e->span = span;
  return e;
}

KExpr *k_var(FeName *n, LzSpan span) {
  KExpr *e = k_new(K_VAR, span);
  e->var = n;
  return e;
}

KExpr *k_app(KExpr *fn, KExpr *arg) {
  KExpr *e = k_new(K_APP, fn->span);
  e->fn = fn;
  e->arg = arg;
  return e;
}

KExpr *k_apps(KExpr *fn, int n, KExpr **args) {
  for (int i = 0; i < n; i++)
    fn = k_app(fn, args[i]);
  return fn;
}

KExpr *k_lam(FeName *var, KExpr *body, LzSpan span) {
  KExpr *e = k_new(K_LAM, span);
  e->var = var;
  e->body = body;
  return e;
}

KBind *k_bind(FeName *name, KExpr *rhs, LzSpan span) {
  KBind *b = LZ_NEW(KBind);
  b->name = name;
  b->rhs = rhs;
  b->span = span;
  return b;
}

/* ---- printer ------------------------------------------------------------------------ */

#define K_PRINT_MAX_DEPTH 400

typedef struct Printer {
  FILE *f;
  bool compact;
  int depth;
} Printer;

static void print_expr(Printer *p, const KExpr *e, int indent, int prec);

static bool sym_char(char c) { return c && strchr("!#$%&*+./<=>?@\\^|-~:", c) != NULL; }

static void print_name(Printer *p, const FeName *n, bool as_operand) {
  if (!n) {
    fputs("<?>", p->f);
    return;
  }
  const char *occ = n->occ ? n->occ : "?";
  bool op = sym_char(occ[0]);
  if (op && as_operand) fputc('(', p->f);
  fputs(occ, p->f);
  if (op && as_operand) fputc(')', p->f);
  if (!n->top && n->kind != N_CON) fprintf(p->f, "_%d", n->uniq);
}

static void print_char_escaped(FILE *f, uint32_t c, char quote) {
  if (c == (uint32_t)quote || c == '\\')
    fprintf(f, "\\%c", (char)c);
  else if (c == '\n')
    fputs("\\n", f);
  else if (c == '\t')
    fputs("\\t", f);
  else if (c < 32 || c == 127)
    fprintf(f, "\\%u", c);
  else if (c < 128)
    fputc((int)c, f);
  else
    fprintf(f, "\\%u", c);
}

static void print_lit(FILE *f, const FeLit *l) {
  switch (l->kind) {
  case L_INT:
  case L_PRIM_INT:
    fprintf(f, "%s%s%s", l->negative ? "-" : "", l->digits ? l->digits : "0",
            l->kind == L_PRIM_INT ? "#" : "");
    break;
  case L_FRAC:
  case L_PRIM_DOUBLE:
    if (l->mantissa)
      fprintf(f, "%s%se%d", l->negative ? "-" : "", l->mantissa, l->exp10);
    else
      fprintf(f, "%s%.17g", l->negative ? "-" : "", l->d);
    if (l->kind == L_PRIM_DOUBLE) fputs("##", f);
    break;
  case L_CHAR:
  case L_PRIM_CHAR:
    fputc('\'', f);
    print_char_escaped(f, l->ch, '\'');
    fputc('\'', f);
    if (l->kind == L_PRIM_CHAR) fputc('#', f);
    break;
  case L_STRING:
  case L_PRIM_STRING:
    fputc('"', f);
    for (size_t i = 0; i < l->len; i++) {
      unsigned char c = (unsigned char)l->str[i];
      if (c >= 128)
        fprintf(f, "\\x%02x", c);
      else
        print_char_escaped(f, c, '"');
    }
    fputc('"', f);
    if (l->kind == L_PRIM_STRING) fputc('#', f);
    break;
  }
}

static void newline(Printer *p, int indent) {
  if (p->compact) {
    fputc(' ', p->f);
    return;
  }
  fputc('\n', p->f);
  for (int i = 0; i < indent; i++)
    fputc(' ', p->f);
}

static void print_qualtype(FILE *f, const FeQualType *q) {
  if (!q) {
    fputs("?", f);
    return;
  }
  if (q->ctx.len) {
    fputc('(', f);
    for (int i = 0; i < q->ctx.len; i++) {
      if (i) fputs(", ", f);
      fprintf(f, "%s ", q->ctx.data[i].cls.name ? q->ctx.data[i].cls.name : "?");
      char *t = q->ctx.data[i].type ? fe_type_to_string(q->ctx.data[i].type) : NULL;
      fputs(t ? t : "?", f);
    }
    fputs(") => ", f);
  }
  char *t = q->type ? fe_type_to_string(q->type) : NULL;
  fputs(t ? t : "?", f);
}

static void print_bind(Printer *p, const KBind *b, int indent) {
  if (b->sig && !p->compact) {
    print_name(p, b->name, true);
    fputs(" :: ", p->f);
    print_qualtype(p->f, b->sig);
    newline(p, indent);
  }
  if (b->foreign_decl) {
    fprintf(p->f, "foreign import %s \"%s\" ",
            b->foreign_decl->callconv ? b->foreign_decl->callconv : "prim",
            b->foreign_decl->entity ? b->foreign_decl->entity : "");
    print_name(p, b->name, true);
    return;
  }
  print_name(p, b->name, true);
  fputs(" = ", p->f);
  if (b->rhs)
    print_expr(p, b->rhs, indent + 2, 0);
  else
    fputs("<none>", p->f);
}

static void print_alt(Printer *p, const KAlt *a, int indent) {
  switch (a->kind) {
  case KA_CON:
    print_name(p, a->con, true);
    for (int i = 0; i < a->vars.len; i++) {
      fputc(' ', p->f);
      print_name(p, a->vars.data[i], true);
    }
    break;
  case KA_LIT: print_lit(p->f, &a->lit); break;
  case KA_DEFAULT: fputc('_', p->f); break;
  }
  fputs(" -> ", p->f);
  print_expr(p, a->rhs, indent + 2, 0);
}

/* prec: 0 = anywhere, 1 = function position of an application, 2 = argument */
static void print_expr(Printer *p, const KExpr *e, int indent, int prec) {
  FILE *f = p->f;
  if (!e) {
    fputs("<null>", f);
    return;
  }
  if (p->depth >= K_PRINT_MAX_DEPTH) {
    fputs("...", f);
    return;
  }
  p->depth++;
  bool paren;
  switch (e->kind) {
  case K_VAR: print_name(p, e->var, true); break;
  case K_LIT:
    paren = prec == 2 && e->lit.negative;
    if (paren) fputc('(', f);
    print_lit(f, &e->lit);
    if (paren) fputc(')', f);
    break;
  case K_APP: {
    paren = prec == 2;
    if (paren) fputc('(', f);
    print_expr(p, e->fn, indent, 1);
    fputc(' ', f);
    print_expr(p, e->arg, indent, 2);
    if (paren) fputc(')', f);
    break;
  }
  case K_LAM: {
    paren = prec > 0;
    if (paren) fputc('(', f);
    fputc('\\', f);
    const KExpr *b = e;
    print_name(p, b->var, true);
    while (b->body && b->body->kind == K_LAM) {
      b = b->body;
      fputc(' ', f);
      print_name(p, b->var, true);
    }
    fputs(" -> ", f);
    print_expr(p, b->body, indent, 0);
    if (paren) fputc(')', f);
    break;
  }
  case K_LET:
    paren = prec > 0;
    if (paren) fputc('(', f);
    fputs(p->compact ? "let { " : "let", f);
    for (int i = 0; i < e->binds.len; i++) {
      if (p->compact) {
        if (i) fputs("; ", f);
      } else {
        newline(p, indent + 2);
      }
      print_bind(p, e->binds.data[i], indent + 2);
    }
    if (p->compact) fputs(" }", f);
    newline(p, indent);
    fputs("in ", f);
    print_expr(p, e->body, indent, 0);
    if (paren) fputc(')', f);
    break;
  case K_CASE:
    paren = prec > 0;
    if (paren) fputc('(', f);
    fputs("case ", f);
    print_expr(p, e->body, indent, 0);
    fputs(" of", f);
    if (e->var) {
      fputc(' ', f);
      print_name(p, e->var, true);
    }
    fputs(p->compact ? " {" : "", f);
    for (int i = 0; i < e->alts.len; i++) {
      if (p->compact)
        fputs(i ? "; " : " ", f);
      else
        newline(p, indent + 2);
      print_alt(p, &e->alts.data[i], indent + 2);
    }
    if (p->compact) fputs(" }", f);
    if (paren) fputc(')', f);
    break;
  case K_ANNOT:
    fputc('(', f);
    print_expr(p, e->body, indent, 0);
    fputs(" :: ", f);
    print_qualtype(f, e->sig);
    fputc(')', f);
    break;
  case K_SCC:
    paren = prec > 0;
    if (paren) fputc('(', f);
    fprintf(f, "{-# SCC \"%s\" #-} ", e->scc ? e->scc : "");
    print_expr(p, e->body, indent, 0);
    if (paren) fputc(')', f);
    break;
  }
  p->depth--;
}

void k_print_expr(void *file, const KExpr *e) {
  Printer p = {file, false, 0};
  print_expr(&p, e, 0, 0);
}

char *k_expr_to_string(const KExpr *e) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return lz_strdup("<out of memory>");
  Printer p = {f, true, 0};
  print_expr(&p, e, 0, 0);
  fclose(f);
  char *s = lz_strndup(buf, len);
  free(buf);
  return s;
}

char *k_bind_to_string(const KBind *b) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return lz_strdup("<out of memory>");
  Printer p = {f, true, 0};
  print_bind(&p, b, 0);
  fclose(f);
  char *s = lz_strndup(buf, len);
  free(buf);
  return s;
}

static void print_binds(Printer *p, const KBind *const *binds, int n) {
  for (int i = 0; i < n; i++) {
    fputs("  ", p->f);
    print_bind(p, binds[i], 2);
    fputc('\n', p->f);
  }
}

void k_print_program(void *file, const KProgram *prog) {
  FILE *f = file;
  Printer p = {f, false, 0};
  for (int i = 0; i < prog->types.len; i++) {
    const FeDecl *t = prog->types.data[i];
    const char *kw = t->kind == D_NEWTYPE ? "newtype" : t->kind == D_TYPE ? "type" : "data";
    fprintf(f, "%s %s%s%s\n", kw, t->name.ref && t->name.ref->module ? t->name.ref->module : "",
            t->name.ref && t->name.ref->module ? "." : "", t->name.name ? t->name.name : "?");
  }
  for (int i = 0; i < prog->classes.len; i++) {
    const KClass *c = prog->classes.data[i];
    fputs("class ", f);
    print_name(&p, c->name, false);
    fputs(" where\n", f);
    for (int m = 0; m < c->methods.len; m++) {
      fputs("  ", f);
      print_name(&p, c->methods.data[m], true);
      fputs(" :: ", f);
      print_qualtype(f, m < c->sigs.len ? c->sigs.data[m] : NULL);
      fputc('\n', f);
    }
    print_binds(&p, (const KBind *const *)c->defaults.data, c->defaults.len);
  }
  for (int i = 0; i < prog->instances.len; i++) {
    const KInstance *in = prog->instances.data[i];
    fputs(in->derived ? "instance {-derived-} " : "instance ", f);
    print_name(&p, in->cls, false);
    if (in->decl && in->decl->sig) {
      fputc(' ', f);
      print_qualtype(f, in->decl->sig);
    }
    fputs(" where\n", f);
    print_binds(&p, (const KBind *const *)in->methods.data, in->methods.len);
  }
  for (int i = 0; i < prog->binds.len; i++) {
    print_bind(&p, prog->binds.data[i], 0);
    fputc('\n', f);
  }
  if (prog->main) {
    fputs("-- main: ", f);
    print_name(&p, prog->main, false);
    fputc('\n', f);
  }
}
