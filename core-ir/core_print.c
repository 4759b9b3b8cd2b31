/* core_print.c — the Core printer behind `lzc --dump-core`, in the style of GHC's
 * -ddump-simpl: data declarations first, then each top-level binding as
 * `name :: type` and `name = expr`, with `\ (x_12 :: Int) ->`, `/\ a ->`, `@Int`,
 * `case e of b { DEFAULT -> ...; Just x_3 -> ... }`, `let rec { ... } in`, `I# 3#`.
 *
 * The idea: every expression has a one-line ("flat") rendering; the layout printer
 * tries the flat form first, into a bounded buffer sized to the room left on the
 * line, and only breaks a construct over several lines when that overflows. Each
 * flat attempt stops after a line's worth of characters, so printing stays linear in
 * the output size times the line width. Nesting deeper than CORE_MAX_DEPTH is
 * printed as "..." so no input can exhaust the C stack.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core_priv.h"

enum { WIDTH = 100 };

/* An output: a FILE (layout mode), or a buffer with a length limit (flat mode). */
typedef struct Out {
  FILE *f;
  char *buf;
  int len, cap, lim; /* flat: stop (full = true) once len would exceed lim */
  bool grow;         /* flat: buf is in the arena and may grow */
  bool full;
  int col;     /* column of the next character (layout mode) */
  bool tyuniq; /* print type variables with their uniques */
  int depth;
} Out;

static void put(Out *o, const char *s, size_t n) {
  if (o->f) {
    fwrite(s, 1, n, o->f);
    for (size_t i = 0; i < n; i++)
      o->col = s[i] == '\n' ? 0 : o->col + 1;
    return;
  }
  if (o->full) return;
  if (o->len + (int)n > o->lim) {
    o->full = true;
    return;
  }
  if (o->len + (int)n + 1 > o->cap) {
    if (!o->grow) {
      o->full = true;
      return;
    }
    int ncap = (o->cap ? o->cap * 2 : 128) + (int)n;
    char *nb = lz_alloc((size_t)ncap);
    if (o->len) memcpy(nb, o->buf, (size_t)o->len);
    o->buf = nb;
    o->cap = ncap;
  }
  memcpy(o->buf + o->len, s, n);
  o->len += (int)n;
  o->buf[o->len] = 0;
}

static void puts_(Out *o, const char *s) { put(o, s, strlen(s)); }

/* Indentation stops growing at MAX_INDENT, so deeply nested Core prints in linear size. */
enum { MAX_INDENT = 60 };

static void newline(Out *o, int indent) {
  static const char spaces[MAX_INDENT + 2] =
      "\n                                                            ";
  put(o, spaces, (size_t)(indent < MAX_INDENT ? indent : MAX_INDENT) + 1);
}

static Out flat_out(char *buf, int cap, int lim, bool tyuniq) {
  Out o = {0};
  o.buf = buf;
  o.cap = cap;
  o.lim = lim;
  o.tyuniq = tyuniq;
  if (buf) buf[0] = 0;
  return o;
}

/* ---- names ---------------------------------------------------------------------------- */

static const char *str_or(const char *s, const char *dflt) { return s ? s : dflt; }

static void put_var(Out *o, const CoreVar *v) {
  if (!v) {
    puts_(o, "<no var>");
    return;
  }
  char tmp[32];
  if (v->global) {
    if (v->module && strcmp(v->module, "Main") != 0) {
      puts_(o, v->module);
      puts_(o, ".");
    }
    puts_(o, str_or(v->name, "<global>"));
    return;
  }
  puts_(o, str_or(v->name, "v"));
  snprintf(tmp, sizeof tmp, "_%d", v->uniq);
  puts_(o, tmp);
}

static void put_tyvar(Out *o, const CoreTyVar *v) {
  if (!v) {
    puts_(o, "<no tyvar>");
    return;
  }
  puts_(o, str_or(v->name, "t"));
  if (o->tyuniq || !v->name) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "_%d", v->uniq);
    puts_(o, tmp);
  }
}

/* ---- types ------------------------------------------------------------------------------ */

/* prec: 0 anywhere, 1 left of an arrow, 2 argument of a type application */
static void put_type(Out *o, const CoreType *t, int prec) {
  if (!t) {
    puts_(o, "<no type>");
    return;
  }
  if (o->depth > CORE_MAX_DEPTH) {
    puts_(o, "...");
    return;
  }
  o->depth++;
  switch (t->kind) {
  case CT_VAR: put_tyvar(o, t->var); break;
  case CT_CON: puts_(o, t->con ? str_or(t->con->name, "<tycon>") : "<no tycon>"); break;
  case CT_APP: {
    const CoreType *args[64], *h = t;
    int n = 0;
    while (h && h->kind == CT_APP && n < 64)
      args[n++] = h->arg, h = h->fn;
    CoreTyCon *tc = h && h->kind == CT_CON ? h->con : NULL;
    if (tc && tc->name && !tc->module && strcmp(tc->name, "[]") == 0 && n == 1) {
      puts_(o, "[");
      put_type(o, args[0], 0);
      puts_(o, "]");
      break;
    }
    if (tc && tc->name && !tc->module && tc->name[0] == '(' && tc->name[1] == ',' &&
        n == tc->arity) {
      puts_(o, "(");
      for (int i = n - 1; i >= 0; i--) {
        put_type(o, args[i], 0);
        if (i) puts_(o, ", ");
      }
      puts_(o, ")");
      break;
    }
    if (prec >= 2) puts_(o, "(");
    put_type(o, h, 2);
    for (int i = n - 1; i >= 0; i--) {
      puts_(o, " ");
      put_type(o, args[i], 2);
    }
    if (prec >= 2) puts_(o, ")");
    break;
  }
  case CT_FUN:
    if (prec >= 1) puts_(o, "(");
    put_type(o, t->arg, 1);
    puts_(o, " -> ");
    put_type(o, t->res, 0);
    if (prec >= 1) puts_(o, ")");
    break;
  case CT_FORALL: {
    if (prec >= 1) puts_(o, "(");
    puts_(o, "forall");
    const CoreType *b = t;
    for (; b && b->kind == CT_FORALL; b = b->body) {
      puts_(o, " ");
      put_tyvar(o, b->var);
    }
    puts_(o, ". ");
    put_type(o, b, 0);
    if (prec >= 1) puts_(o, ")");
    break;
  }
  }
  o->depth--;
}

void core_print_type(FILE *out, const CoreType *t) {
  Out o = {0};
  o.f = out;
  put_type(&o, t, 0);
}

static char *type_string(const CoreType *t, bool tyuniq) {
  Out o = flat_out(NULL, 0, 1 << 30, tyuniq);
  o.grow = true;
  put_type(&o, t, 0);
  return o.buf ? o.buf : lz_strdup("");
}

char *core_type_to_string(const CoreType *t) { return type_string(t, false); }
char *core_type_to_string_uniq(const CoreType *t) { return type_string(t, true); }

char *core_var_to_string(const CoreVar *v) {
  Out o = flat_out(NULL, 0, 1 << 30, false);
  o.grow = true;
  put_var(&o, v);
  return o.buf ? o.buf : lz_strdup("");
}

/* ---- literals ----------------------------------------------------------------------------- */

static void put_char_escaped(Out *o, unsigned c, char quote, int next) {
  char tmp[24];
  switch (c) {
  case '\n': puts_(o, "\\n"); return;
  case '\t': puts_(o, "\\t"); return;
  case '\r': puts_(o, "\\r"); return;
  case '\\': puts_(o, "\\\\"); return;
  }
  if (c == (unsigned)quote) {
    tmp[0] = '\\', tmp[1] = quote;
    put(o, tmp, 2);
  } else if (c >= 32 && c < 127) {
    tmp[0] = (char)c;
    put(o, tmp, 1);
  } else {
    /* Haskell's decimal escape; \& separates it from a following digit */
    snprintf(tmp, sizeof tmp, "\\%u%s", c, next >= '0' && next <= '9' ? "\\&" : "");
    puts_(o, tmp);
  }
}

static void put_double(Out *o, double d) {
  char tmp[40];
  if (isnan(d)) {
    puts_(o, "NaN##");
    return;
  }
  if (isinf(d)) {
    puts_(o, d < 0 ? "-Infinity##" : "Infinity##");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) { /* shortest digits that read back exactly */
    snprintf(tmp, sizeof tmp, "%.*g", prec, d);
    if (strtod(tmp, NULL) == d) break;
  }
  if (!strpbrk(tmp, ".e")) strcat(tmp, ".0");
  puts_(o, tmp);
  puts_(o, "##");
}

static void put_lit(Out *o, const CoreLit *l) {
  char tmp[40];
  switch (l->kind) {
  case CL_INT:
    snprintf(tmp, sizeof tmp, "%lld#", (long long)l->i);
    puts_(o, tmp);
    break;
  case CL_DOUBLE: put_double(o, l->d); break;
  case CL_CHAR:
    puts_(o, "'");
    put_char_escaped(o, (unsigned)l->i, '\'', 0);
    puts_(o, "'#");
    break;
  case CL_STRING:
    puts_(o, "\"");
    for (size_t i = 0; l->str && i < l->len && !o->full; i++)
      put_char_escaped(o, (unsigned char)l->str[i], '"', i + 1 < l->len ? l->str[i + 1] : 0);
    puts_(o, "\"#");
    break;
  case CL_INTEGER:
    if (l->str) {
      puts_(o, l->str);
    } else {
      snprintf(tmp, sizeof tmp, "%lld", (long long)l->i);
      puts_(o, tmp);
    }
    break;
  default: puts_(o, "<bad literal>");
  }
}

/* ---- expressions, flat ------------------------------------------------------------------- */

/* prec: 0 anywhere, 1 head of an application (binders and case need parens),
 * 2 argument of an application. */
static void flat_expr(Out *o, const CoreExpr *e, int prec);

static void put_lam_header(Out *o, const CoreExpr **pe) {
  const CoreExpr *e = *pe;
  if (e->kind == CE_TYLAM) {
    puts_(o, "/\\");
    for (; e && e->kind == CE_TYLAM && !o->full; e = e->body) {
      puts_(o, " ");
      put_tyvar(o, e->tyvar);
    }
  } else {
    puts_(o, "\\");
    for (; e && e->kind == CE_LAM && !o->full; e = e->body) {
      puts_(o, " (");
      put_var(o, e->var);
      puts_(o, " :: ");
      put_type(o, e->var ? e->var->type : NULL, 0);
      puts_(o, ")");
    }
  }
  puts_(o, " ->");
  *pe = e;
}

static const char *con_name(const CoreDataCon *c) {
  return c ? str_or(c->name, "<con>") : "<no con>";
}

static const char *primop_name(int op) {
  return op >= 0 && op < PRIMOP_COUNT && core_primops[op].name ? core_primops[op].name
                                                               : "<bad primop>";
}

static void put_alt_pat(Out *o, const CoreAlt *a) {
  switch (a->kind) {
  case ALT_DEFAULT: puts_(o, "DEFAULT"); break;
  case ALT_LIT: put_lit(o, &a->lit); break;
  case ALT_CON:
    puts_(o, con_name(a->con));
    for (int i = 0; a->con && i < a->con->arity; i++) {
      puts_(o, " ");
      put_var(o, a->vars ? a->vars[i] : NULL);
    }
    break;
  }
}

/* Alternatives in printing order: DEFAULT (last in the array) first. */
static const CoreAlt *alt_at(const CoreExpr *e, int i) {
  if (e->nalts > 0 && e->alts[e->nalts - 1].kind == ALT_DEFAULT)
    return i == 0 ? &e->alts[e->nalts - 1] : &e->alts[i - 1];
  return &e->alts[i];
}

static void flat_args(Out *o, const CoreExpr *e) {
  if (e->kind == CE_CON)
    for (int i = 0; i < e->ntyargs && !o->full; i++) {
      puts_(o, " @");
      put_type(o, e->tyargs ? e->tyargs[i] : NULL, 2);
    }
  for (int i = 0; i < e->nargs && !o->full; i++) {
    puts_(o, " ");
    flat_expr(o, e->args ? e->args[i] : NULL, 2);
  }
}

static void flat_expr(Out *o, const CoreExpr *e, int prec) {
  if (o->full) return;
  if (!e) {
    puts_(o, "<no expr>");
    return;
  }
  if (o->depth > CORE_MAX_DEPTH) {
    puts_(o, "...");
    return;
  }
  o->depth++;
  bool paren = false;
  switch (e->kind) {
  case CE_VAR: put_var(o, e->var); break;
  case CE_LIT: put_lit(o, &e->lit); break;
  case CE_APP:
  case CE_TYAPP:
    if ((paren = prec >= 2)) puts_(o, "(");
    flat_expr(o, e->fn, 1);
    if (e->kind == CE_APP) {
      puts_(o, " ");
      flat_expr(o, e->arg, 2);
    } else {
      puts_(o, " @");
      put_type(o, e->type, 2);
    }
    break;
  case CE_CON:
  case CE_PRIMOP:
    if ((paren = prec >= 2 && (e->nargs > 0 || e->ntyargs > 0))) puts_(o, "(");
    puts_(o, e->kind == CE_CON ? con_name(e->con) : primop_name(e->primop));
    flat_args(o, e);
    break;
  case CE_LAM:
  case CE_TYLAM: {
    if ((paren = prec >= 1)) puts_(o, "(");
    const CoreExpr *b = e;
    put_lam_header(o, &b);
    puts_(o, " ");
    flat_expr(o, b, 0);
    break;
  }
  case CE_LET:
    if ((paren = prec >= 1)) puts_(o, "(");
    puts_(o, e->rec ? "let rec { " : "let { ");
    for (int i = 0; i < e->nbinds && !o->full; i++) {
      if (i) puts_(o, "; ");
      put_var(o, e->binds[i].var);
      puts_(o, " = ");
      flat_expr(o, e->binds[i].rhs, 0);
    }
    puts_(o, " } in ");
    flat_expr(o, e->body, 0);
    break;
  case CE_CASE:
    if ((paren = prec >= 1)) puts_(o, "(");
    puts_(o, "case ");
    flat_expr(o, e->body, 0);
    puts_(o, " of ");
    put_var(o, e->var);
    puts_(o, e->nalts ? " { " : " {");
    for (int i = 0; i < e->nalts && !o->full; i++) {
      const CoreAlt *a = alt_at(e, i);
      if (i) puts_(o, "; ");
      put_alt_pat(o, a);
      puts_(o, " -> ");
      flat_expr(o, a->rhs, 0);
    }
    puts_(o, " }");
    break;
  case CE_CAST:
    if ((paren = prec >= 1)) puts_(o, "(");
    flat_expr(o, e->body, 1);
    puts_(o, " |> ");
    put_type(o, e->type, 1);
    break;
  case CE_SCC:
    if ((paren = prec >= 1)) puts_(o, "(");
    puts_(o, "scc<\"");
    puts_(o, str_or(e->scc, "?"));
    puts_(o, "\"> ");
    flat_expr(o, e->body, 0);
    break;
  default: puts_(o, "<bad expr>");
  }
  if (paren) puts_(o, ")");
  o->depth--;
}

char *core_expr_to_string(const CoreExpr *e, int max_len) {
  if (max_len < 8) max_len = 8;
  char *buf = lz_alloc((size_t)max_len + 8);
  Out o = flat_out(buf, max_len + 1, max_len, false);
  flat_expr(&o, e, 0);
  if (o.full) strcpy(buf + (o.len < max_len - 3 ? o.len : max_len - 3), "...");
  return buf;
}

/* ---- expressions, laid out ------------------------------------------------------------------ */

/* Print e on the rest of the current line if it fits there. */
static bool try_flat(Out *o, const CoreExpr *e, int prec) {
  char buf[WIDTH + 8];
  int room = WIDTH - o->col;
  if (room < 20) room = 20;
  Out f = flat_out(buf, sizeof buf, room, o->tyuniq);
  f.depth = o->depth;
  flat_expr(&f, e, prec);
  if (f.full) return false;
  put(o, buf, (size_t)f.len);
  return true;
}

/* " e" if that fits on the rest of the line (for "x = e", "f a", "C a -> e"); nothing
 * otherwise, so a line never ends in a space. */
static bool try_flat_after_space(Out *o, const CoreExpr *e, int prec) {
  o->col++; /* measure as if the space were there */
  char buf[WIDTH + 8];
  int room = WIDTH - o->col;
  o->col--;
  if (room < 20) room = 20;
  Out f = flat_out(buf, sizeof buf, room, o->tyuniq);
  f.depth = o->depth;
  flat_expr(&f, e, prec);
  if (f.full) return false;
  put(o, " ", 1);
  put(o, buf, (size_t)f.len);
  return true;
}

static void layout_expr(Out *o, const CoreExpr *e, int indent, int prec);

static void layout_binds(Out *o, const CoreBind *bs, int n, int indent) {
  for (int i = 0; i < n; i++) {
    if (i) {
      puts_(o, ";");
      newline(o, indent);
    }
    put_var(o, bs[i].var);
    puts_(o, " :: ");
    put_type(o, bs[i].var ? bs[i].var->type : NULL, 0);
    newline(o, indent);
    put_var(o, bs[i].var);
    puts_(o, " =");
    if (!try_flat_after_space(o, bs[i].rhs, 0)) {
      newline(o, indent + 2);
      layout_expr(o, bs[i].rhs, indent + 2, 0);
    }
  }
}

/* Arguments of a constructor or primop: on the line while they fit, then one per line. */
static void layout_args(Out *o, const CoreExpr *e, int indent) {
  bool broke = false;
  int nty = e->kind == CE_CON ? e->ntyargs : 0;
  for (int i = 0; i < nty; i++) {
    puts_(o, " @");
    put_type(o, e->tyargs ? e->tyargs[i] : NULL, 2);
  }
  for (int i = 0; i < e->nargs; i++) {
    const CoreExpr *a = e->args ? e->args[i] : NULL;
    if (!broke) {
      if (try_flat_after_space(o, a, 2)) continue;
      broke = true;
    }
    newline(o, indent + 2);
    layout_expr(o, a, indent + 2, 2);
  }
}

static void layout_expr(Out *o, const CoreExpr *e, int indent, int prec) {
  if (!e || o->depth > CORE_MAX_DEPTH || try_flat(o, e, prec)) return;
  o->depth++;
  bool paren = false;
  switch (e->kind) {
  case CE_VAR:
  case CE_LIT: flat_expr(o, e, prec); break;
  case CE_APP:
  case CE_TYAPP: {
    if ((paren = prec >= 2)) puts_(o, "(");
    /* head, then the arguments of the spine */
    int n = 0;
    const CoreExpr *h = e;
    for (; h->fn && (h->kind == CE_APP || h->kind == CE_TYAPP); h = h->fn)
      n++;
    const CoreExpr **spine = (const CoreExpr **)LZ_NEW_ARRAY(CoreExpr *, n + 1);
    int i = n;
    for (const CoreExpr *x = e; x != h; x = x->fn)
      spine[--i] = x;
    layout_expr(o, h, indent, 1);
    bool broke = false;
    for (i = 0; i < n; i++) {
      if (spine[i]->kind == CE_TYAPP) {
        puts_(o, " @");
        put_type(o, spine[i]->type, 2);
        continue;
      }
      if (!broke) {
        if (try_flat_after_space(o, spine[i]->arg, 2)) continue;
        broke = true;
      }
      newline(o, indent + 2);
      layout_expr(o, spine[i]->arg, indent + 2, 2);
    }
    break;
  }
  case CE_CON:
  case CE_PRIMOP:
    if ((paren = prec >= 2)) puts_(o, "(");
    puts_(o, e->kind == CE_CON ? con_name(e->con) : primop_name(e->primop));
    layout_args(o, e, indent);
    break;
  case CE_LAM:
  case CE_TYLAM: {
    if ((paren = prec >= 1)) puts_(o, "(");
    const CoreExpr *b = e;
    put_lam_header(o, &b);
    newline(o, indent + 2);
    layout_expr(o, b, indent + 2, 0);
    break;
  }
  case CE_LET:
    if ((paren = prec >= 1)) puts_(o, "(");
    puts_(o, e->rec ? "let rec {" : "let {");
    newline(o, indent + 2);
    layout_binds(o, e->binds, e->nbinds, indent + 2);
    newline(o, indent);
    puts_(o, "} in");
    newline(o, indent);
    layout_expr(o, e->body, indent, 0);
    break;
  case CE_CASE:
    if ((paren = prec >= 1)) puts_(o, "(");
    puts_(o, "case");
    if (try_flat_after_space(o, e->body, 0)) {
      puts_(o, " of ");
    } else { /* case\n  scrutinee\nof b { */
      newline(o, indent + 2);
      layout_expr(o, e->body, indent + 2, 0);
      newline(o, indent);
      puts_(o, "of ");
    }
    put_var(o, e->var);
    puts_(o, " {");
    for (int i = 0; i < e->nalts; i++) {
      const CoreAlt *a = alt_at(e, i);
      newline(o, indent + 2);
      put_alt_pat(o, a);
      puts_(o, " ->");
      if (!try_flat_after_space(o, a->rhs, 0)) {
        newline(o, indent + 4);
        layout_expr(o, a->rhs, indent + 4, 0);
      }
      if (i + 1 < e->nalts) puts_(o, ";");
    }
    newline(o, indent);
    puts_(o, "}");
    break;
  case CE_CAST:
    if ((paren = prec >= 1)) puts_(o, "(");
    layout_expr(o, e->body, indent, 1);
    newline(o, indent + 2);
    puts_(o, "|> ");
    put_type(o, e->type, 1);
    break;
  case CE_SCC:
    if ((paren = prec >= 1)) puts_(o, "(");
    puts_(o, "scc<\"");
    puts_(o, str_or(e->scc, "?"));
    puts_(o, "\">");
    newline(o, indent + 2);
    layout_expr(o, e->body, indent + 2, 0);
    break;
  default: flat_expr(o, e, prec);
  }
  if (paren) puts_(o, ")");
  o->depth--;
}

void core_print_expr(FILE *out, const CoreExpr *e) {
  Out o = {0};
  o.f = out;
  layout_expr(&o, e, 0, 0);
}

/* ---- programs ---------------------------------------------------------------------------------
 */

static void put_con_decl(Out *o, const CoreDataCon *c) {
  puts_(o, con_name(c));
  if (!c) return;
  bool record = false;
  for (int i = 0; i < c->arity; i++)
    if (c->labels && c->labels[i]) record = true;
  if (record) puts_(o, " {");
  for (int i = 0; i < c->arity; i++) {
    puts_(o, record ? (i ? ", " : " ") : " ");
    if (record && c->labels[i]) {
      puts_(o, c->labels[i]);
      puts_(o, " :: ");
    }
    if (c->strict && c->strict[i]) puts_(o, "!");
    put_type(o, c->fields ? c->fields[i] : NULL, record ? 0 : 2);
  }
  if (record) puts_(o, " }");
}

/* A constructor's fields on the rest of the line if they fit, else one per line. */
static void put_con_decl_layout(Out *o, const CoreDataCon *c, int indent) {
  char buf[WIDTH + 8];
  Out f = flat_out(buf, sizeof buf, WIDTH - o->col, false);
  put_con_decl(&f, c);
  if (!f.full || !c) {
    put(o, buf, (size_t)f.len);
    return;
  }
  puts_(o, con_name(c));
  for (int i = 0; i < c->arity; i++) {
    newline(o, indent);
    if (c->labels && c->labels[i]) {
      puts_(o, c->labels[i]);
      puts_(o, " :: ");
    }
    if (c->strict && c->strict[i]) puts_(o, "!");
    put_type(o, c->fields ? c->fields[i] : NULL, 2);
  }
}

static void print_tycon(Out *o, const CoreTyCon *tc) {
  if (!tc) return;
  puts_(o, tc->sort == TC_NEWTYPE ? "newtype " : "data ");
  puts_(o, str_or(tc->name, "?"));
  for (int i = 0; i < tc->arity && tc->params; i++) {
    puts_(o, " ");
    put_tyvar(o, tc->params[i]);
  }
  if (tc->sort == TC_PRIM) {
    puts_(o, tc->unlifted ? "  -- primitive, unlifted\n" : "  -- primitive\n");
    return;
  }
  if (tc->is_class) puts_(o, "  -- class dictionary");
  /* one line if it fits, else one constructor per line */
  char buf[WIDTH + 8];
  Out f = flat_out(buf, sizeof buf, WIDTH - o->col, false);
  for (int i = 0; i < tc->ncons && tc->cons; i++) {
    puts_(&f, i ? " | " : " = ");
    put_con_decl(&f, tc->cons[i]);
  }
  if (!f.full && !tc->is_class) {
    puts_(o, buf);
  } else {
    for (int i = 0; i < tc->ncons && tc->cons; i++) {
      newline(o, 2);
      puts_(o, i ? "| " : "= ");
      put_con_decl_layout(o, tc->cons[i], 6);
    }
  }
  puts_(o, "\n");
}

static void print_top_bind(Out *o, const CoreBind *b) {
  put_var(o, b->var);
  puts_(o, " :: ");
  put_type(o, b->var ? b->var->type : NULL, 0);
  puts_(o, "\n");
  put_var(o, b->var);
  puts_(o, " =");
  if (!try_flat_after_space(o, b->rhs, 0)) {
    newline(o, 2);
    layout_expr(o, b->rhs, 2, 0);
  }
  puts_(o, "\n\n");
}

void core_print_program(FILE *out, const CoreProgram *p) {
  Out o = {0};
  o.f = out;
  if (!p) return;
  for (int i = 0; i < p->tycons.len; i++)
    print_tycon(&o, p->tycons.data[i]);
  if (p->tycons.len) puts_(&o, "\n");
  for (int g = 0; g < p->groups.len; g++) {
    const CoreBindGroup *grp = &p->groups.data[g];
    if (grp->rec) puts_(&o, "Rec {\n");
    for (int i = 0; i < grp->nbinds; i++)
      print_top_bind(&o, &grp->binds[i]);
    if (grp->rec) puts_(&o, "end Rec }\n\n");
  }
}
