/* stg_print.c — the STG printer (`lzc --dump-stg`), in the style of GHC's -ddump-stg.
 *
 * The idea: every construct is first rendered flat into a bounded buffer; if it fits in
 * the line (100 columns) it is printed so, otherwise it is broken at its children, which
 * are tried flat in turn. The bound keeps the flat attempts cheap (each node renders at
 * most a line's worth), so printing is linear in the program.
 *
 * Note [STG printer]
 *   x_12            a local (name_uniq); globals print as M.f (just f in Main, and
 *                   compiler-generated globals, which contain `$`, by name)
 *   x_12:I          a binder of rep I or D (P is not written)
 *   \u [a b] -> e   an updatable thunk with free variables a b
 *   \r [a] x y -> e a function of arity 2; \r:I ... when its result is not P
 *   Just [x]        a constructor application (closure or expression)
 *   intAdd# [x y]   a primop
 *   f x y           an unknown call;  f/2 x y  a call of a known function of arity 2;
 *                   jump j x  a jump to a let-no-escape binding
 *   let {..} in / let rec {..} in / let-no-escape [rec] {..} in
 *   case e of b { DEFAULT -> ..; C x -> .. }   (DEFAULT printed first, stored last)
 *   scc<"M.f"> e
 */
#include <stdlib.h>
#include <string.h>

#include "stg_priv.h"

enum { WIDTH = 100 };

typedef struct Out {
  FILE *f;   /* stream output, or */
  char *buf; /* bounded buffer output */
  size_t len, cap, limit;
  bool full;
  int depth;
} Out;

static void put(Out *o, const char *s) {
  if (o->f) {
    fputs(s, o->f);
    return;
  }
  size_t n = strlen(s);
  if (o->full) return;
  if (o->len + n > o->limit) {
    o->full = true;
    n = o->limit - o->len;
  }
  if (o->len + n + 1 > o->cap) {
    size_t cap = o->cap ? o->cap : 128;
    while (o->len + n + 1 > cap)
      cap *= 2;
    char *b = lz_alloc(cap);
    if (o->buf) memcpy(b, o->buf, o->len);
    o->buf = b;
    o->cap = cap;
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
  o->buf[o->len] = 0;
}

static void putf(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(Out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  put(o, lz_vfmt(fmt, ap));
  va_end(ap);
}

static void indent(Out *o, int n) {
  put(o, "\n");
  for (int i = 0; i < n; i++)
    put(o, " ");
}

/* ---- names and literals ---------------------------------------------------------------- */

static void put_var(Out *o, const StgVar *v) {
  if (!v) {
    put(o, "<null>");
  } else if (!v->global) {
    putf(o, "%s_%d", v->name, v->uniq);
  } else if (!v->module || strcmp(v->module, "Main") == 0) {
    put(o, v->name);
  } else {
    putf(o, "%s.%s", v->module, v->name);
  }
}

static void put_binder(Out *o, const StgVar *v) {
  put_var(o, v);
  if (v && v->rep != STG_P) putf(o, ":%s", stg_rep_name(v->rep));
}

static void put_char(Out *o, unsigned c, char quote) {
  switch (c) {
  case '\n': put(o, "\\n"); return;
  case '\t': put(o, "\\t"); return;
  case '\\': put(o, "\\\\"); return;
  default: break;
  }
  if (c == (unsigned char)quote)
    putf(o, "\\%c", quote);
  else if (c < 32 || c == 127 || (c >= 128 && quote == '\''))
    putf(o, "\\%u", c);
  else
    putf(o, "%c", (char)c);
}

static void put_lit(Out *o, const CoreLit *l) {
  switch (l->kind) {
  case CL_INT: putf(o, "%lld#", (long long)l->i); break;
  case CL_DOUBLE: {
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) { /* shortest text that reads back exactly */
      snprintf(tmp, sizeof tmp, "%.*g", prec, l->d);
      if (strtod(tmp, NULL) == l->d) break;
    }
    put(o, tmp);
    if (!strpbrk(tmp, ".eni")) put(o, ".0");
    put(o, "##");
    break;
  }
  case CL_CHAR:
    put(o, "'");
    put_char(o, (unsigned)l->i, '\'');
    put(o, "'#");
    break;
  case CL_STRING:
    put(o, "\"");
    for (size_t i = 0; l->str && i < l->len && !o->full; i++)
      put_char(o, (unsigned char)l->str[i], '"');
    put(o, "\"#");
    break;
  case CL_INTEGER: put(o, l->str ? l->str : lz_fmt("%lld", (long long)l->i)); break;
  }
}

static void put_atom(Out *o, const StgAtom *a) {
  if (a->kind == SA_VAR)
    put_var(o, a->var);
  else
    put_lit(o, &a->lit);
}

static void put_atoms(Out *o, const StgAtom *args, int n, bool brackets) {
  if (brackets) put(o, " [");
  for (int i = 0; i < n && !o->full; i++) {
    if (i || !brackets) put(o, " ");
    put_atom(o, &args[i]);
  }
  if (brackets) put(o, "]");
}

static const char *con_name(const CoreDataCon *c) { return c && c->name ? c->name : "<con>"; }

static const char *prim_name(int p) {
  return p >= 0 && p < PRIMOP_COUNT ? core_primops[p].name : "<primop>";
}

/* ---- expressions --------------------------------------------------------------------------- */

static void expr(Out *o, const StgExpr *e, int ind);

static void closure_header(Out *o, const StgRhs *r) {
  if (r->kind == STG_CON) {
    put(o, con_name(r->con));
    put_atoms(o, r->args, r->nargs, true);
    return;
  }
  put(o, r->kind == STG_FUN ? "\\r" : "\\u");
  if (r->result_rep != STG_P) putf(o, ":%s", stg_rep_name(r->result_rep));
  put(o, " [");
  for (int i = 0; i < r->nfvs; i++) {
    if (i) put(o, " ");
    put_var(o, r->fvs[i]);
  }
  put(o, "]");
  for (int i = 0; i < r->arity; i++) {
    put(o, " ");
    put_binder(o, r->params[i]);
  }
  put(o, " ->");
}

static void closure(Out *o, const StgRhs *r, int ind) {
  closure_header(o, r);
  if (r->kind == STG_CON) return;
  if (o->f) {
    Out flat = {NULL, NULL, 0, 0, (size_t)(WIDTH > ind ? WIDTH - ind : 20), false, o->depth};
    expr(&flat, r->body, 0);
    if (!flat.full && flat.buf) {
      put(o, " ");
      put(o, flat.buf);
      return;
    }
    indent(o, ind + 2);
    expr(o, r->body, ind + 2);
    return;
  }
  put(o, " ");
  expr(o, r->body, ind);
}

static void alt_pat(Out *o, const StgAlt *a) {
  switch (a->kind) {
  case STG_ALT_DEFAULT: put(o, "DEFAULT"); break;
  case STG_ALT_LIT: put_lit(o, &a->lit); break;
  case STG_ALT_CON:
    put(o, con_name(a->con));
    for (int i = 0; a->con && i < a->con->arity; i++) {
      put(o, " ");
      put_binder(o, a->vars[i]);
    }
    break;
  }
}

static const StgAlt *alt_at(const StgExpr *e, int i) {
  if (e->nalts > 0 && e->alts[e->nalts - 1].kind == STG_ALT_DEFAULT)
    return i == 0 ? &e->alts[e->nalts - 1] : &e->alts[i - 1];
  return &e->alts[i];
}

static const char *let_keyword(const StgExpr *e) {
  return e->lne ? (e->rec ? "let-no-escape rec {" : "let-no-escape {")
                : (e->rec ? "let rec {" : "let {");
}

/* Flat rendering (o->f == NULL) or broken layout at indentation `ind`. */
static void expr_body(Out *o, const StgExpr *e, int ind) {
  bool flat = o->f == NULL;
  switch (e->kind) {
  case SE_ATOM: put_atom(o, &e->atom); return;
  case SE_APP:
    if (e->call == STG_CALL_JUMP) put(o, "jump ");
    put_var(o, e->fn);
    if (e->call == STG_CALL_KNOWN && e->fn && e->fn->rhs) putf(o, "/%d", e->fn->rhs->arity);
    put_atoms(o, e->args, e->nargs, false);
    return;
  case SE_CON:
    put(o, con_name(e->con));
    put_atoms(o, e->args, e->nargs, true);
    return;
  case SE_PRIMOP:
    put(o, prim_name(e->primop));
    put_atoms(o, e->args, e->nargs, true);
    return;
  case SE_SCC:
    putf(o, "scc<\"%s%s%s\">", e->scc_module && strcmp(e->scc_module, "Main") ? e->scc_module : "",
         e->scc_module && strcmp(e->scc_module, "Main") ? "." : "", e->scc ? e->scc : "?");
    if (flat)
      put(o, " ");
    else
      indent(o, ind + 2);
    expr(o, e->body, ind + 2);
    return;
  case SE_CASE:
    put(o, "case ");
    expr(o, e->scrut, ind + 5);
    put(o, " of ");
    put_binder(o, e->binder);
    put(o, " {");
    for (int i = 0; i < e->nalts && !(flat && o->full); i++) {
      const StgAlt *a = alt_at(e, i);
      if (flat)
        put(o, i ? "; " : " ");
      else
        indent(o, ind + 2);
      alt_pat(o, a);
      put(o, " ->");
      if (flat) {
        put(o, " ");
        expr(o, a->rhs, 0);
      } else {
        Out f1 = {NULL,  NULL,    0, 0, (size_t)(WIDTH > ind + 8 ? WIDTH - ind - 8 : 20),
                  false, o->depth};
        expr(&f1, a->rhs, 0);
        if (!f1.full && f1.buf) {
          put(o, " ");
          put(o, f1.buf);
        } else {
          indent(o, ind + 4);
          expr(o, a->rhs, ind + 4);
        }
        if (i + 1 < e->nalts) put(o, ";");
      }
    }
    if (flat)
      put(o, " }");
    else {
      indent(o, ind);
      put(o, "}");
    }
    return;
  case SE_LET:
    /* a chain of lets prints at one indentation, without recursion */
    for (const StgExpr *l = e;; l = l->body) {
      put(o, let_keyword(l));
      for (int i = 0; i < l->nbinds && !(flat && o->full); i++) {
        if (flat)
          put(o, i ? "; " : " ");
        else
          indent(o, ind + 2);
        put_binder(o, l->binds[i].var);
        put(o, " = ");
        closure(o, l->binds[i].rhs, ind + 2);
        if (!flat && i + 1 < l->nbinds) put(o, ";");
      }
      if (flat)
        put(o, " } in ");
      else {
        indent(o, ind);
        put(o, "} in");
        indent(o, ind);
      }
      if (!l->body || l->body->kind != SE_LET || (flat && o->full)) {
        expr(o, l->body, ind);
        return;
      }
    }
  }
}

static void expr(Out *o, const StgExpr *e, int ind) {
  if (!e) {
    put(o, "<null>");
    return;
  }
  if (o->full) return;
  if (o->depth >= STG_MAX_DEPTH) {
    put(o, "...");
    return;
  }
  o->depth++;
  if (o->f && e->kind != SE_LET) { /* try the whole thing on one line */
    Out flat = {NULL, NULL, 0, 0, (size_t)(WIDTH > ind ? WIDTH - ind : 20), false, o->depth};
    expr_body(&flat, e, ind);
    if (!flat.full && flat.buf) {
      put(o, flat.buf);
      o->depth--;
      return;
    }
  }
  expr_body(o, e, ind);
  o->depth--;
}

/* ---- entry points ---------------------------------------------------------------------------- */

void stg_print_expr(FILE *out, const StgExpr *e) {
  Out o = {out, NULL, 0, 0, 0, false, 0};
  expr(&o, e, 0);
}

char *stg_expr_to_string(const StgExpr *e) {
  Out o = {NULL, NULL, 0, 0, (size_t)1 << 30, false, 0};
  expr(&o, e, 0);
  return o.buf ? o.buf : lz_strdup("");
}

char *stg_var_to_string(const StgVar *v) {
  Out o = {NULL, NULL, 0, 0, 4096, false, 0};
  put_var(&o, v);
  return o.buf ? o.buf : lz_strdup("");
}

void stg_print_program(FILE *out, const StgProgram *p) {
  Out o = {out, NULL, 0, 0, 0, false, 0};
  for (int i = 0; i < p->binds.len; i++) {
    const StgBind *b = &p->binds.data[i];
    if (b->rhs->integer) {
      put(&o, "-- Integer literal ");
      put_lit(&o, b->rhs->integer);
      put(&o, "\n");
    }
    put_var(&o, b->var);
    put(&o, " = ");
    closure(&o, b->rhs, 0);
    put(&o, "\n\n");
  }
}
