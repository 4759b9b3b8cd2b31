/* rename_expr.c — renaming of expressions, patterns, statements and right-hand sides.
 *
 * Binders are handled in two steps so that every binding construct follows the same
 * recipe: fe_rn_pat_binders walks a pattern syntactically and gives each variable a
 * fresh FeName (reporting nothing), then fe_rn_pat resolves the pattern's
 * constructors, fields and operators in the enclosing scope, and only then does the
 * caller bring the binders into scope for what they scope over. Operator sequences
 * are resolved after their operands and operators are renamed, by the fixity
 * resolver of the syntax pass; parentheses disappear here (the tree's shape keeps
 * the grouping), after the one check that needs them: a section's operand written
 * without parentheses must bind tighter than the section's operator. Functions
 * return the renamed node, which may be a different node (E_PAREN and E_OPSEQ are
 * replaced). */
#include "rename_internal.h"

#define MAX_TUPLE 62

static bool too_deep(RnCtx *c, LzSpan at) {
  if (c->depth < RN_MAX_DEPTH) return false;
  if (c->depth == RN_MAX_DEPTH) {
    lz_error(at, "Expression or pattern nested too deeply (more than %d levels)", RN_MAX_DEPTH);
    c->depth++; /* report once */
  }
  return true;
}

static void check_tuple_size(int n, LzSpan at) {
  if (n > MAX_TUPLE)
    lz_error(at,
             "A %d-tuple is too large for GHC\n(max size is 62)\nWorkaround: use nested tuples or "
             "define a data type",
             n);
}

/* ---- patterns ---------------------------------------------------------------------- */

void fe_rn_pat_binders(RnCtx *c, FePat *p, RnNames *out, bool top, Sym module) {
  if (!p || too_deep(c, p->span)) return;
  c->depth++;
  switch (p->kind) {
  case P_VAR:
  case P_AS: {
    FeName *n = fe_name_new(N_VAR, p->id.name, top ? module : NULL, p->id.span);
    n->top = top;
    n->is_op = fe_rn_is_sym_name(p->id.name);
    p->id.ref = n;
    LZ_PUSH(*out, n);
    if (p->kind == P_AS) fe_rn_pat_binders(c, p->sub, out, top, module);
    break;
  }
  case P_CON:
  case P_TUPLE:
  case P_LIST:
  case P_OPSEQ:
    for (int i = 0; i < p->args.len; i++)
      fe_rn_pat_binders(c, p->args.data[i], out, top, module);
    break;
  case P_LAZY:
  case P_BANG:
  case P_PAREN: fe_rn_pat_binders(c, p->sub, out, top, module); break;
  case P_REC:
    for (int i = 0; i < p->fields.len; i++)
      fe_rn_pat_binders(c, p->fields.data[i].pat, out, top, module);
    break;
  case P_WILD:
  case P_LIT: break;
  }
  c->depth--;
}

void fe_rn_check_conflicts(RnNames *names, const char *context) {
  if (names->len < 2) return;
  RnMap seen = {0};
  for (int i = 0; i < names->len; i++) {
    FeName *n = names->data[i], *first = fe_rn_get(&seen, n->occ);
    if (first)
      fe_rn_conflict(first->def, n->def, n->occ, context);
    else
      fe_rn_put(&seen, n->occ, n);
  }
}

/* The declaration of constructor `con` inside its data declaration, or NULL. */
static FeConDecl *con_decl(FeName *con) {
  FeDecl *d = con ? con->decl : NULL;
  if (!d || (d->kind != D_DATA && d->kind != D_NEWTYPE)) return NULL;
  for (int i = 0; i < d->cons.len; i++)
    if (d->cons.data[i]->name.ref == con) return d->cons.data[i];
  return NULL;
}

static bool con_has_field(FeConDecl *cd, FeName *f) {
  for (int i = 0; i < cd->fields.len; i++)
    if (cd->fields.data[i].label.ref == f) return true;
  return false;
}

/* Resolve a field label of a record construction, update or pattern; false when it
 * did not resolve to a field (reported). */
static bool rn_field(RnCtx *c, FeIdent *f) {
  int errs = lz_error_count();
  fe_rn_lookup_value(c, f, RN_USE_OTHER);
  if (lz_error_count() != errs) return false;
  FeName *n = f->ref;
  if (n->kind != N_VAR || !n->parent || n->parent->kind != N_TYCON) {
    lz_error(f->span, "‘%s’ is not a record selector", f->name);
    return false;
  }
  return true;
}

static void check_dup_fields(FeIdent **fields, int n, const char *what) {
  for (int i = 1; i < n; i++)
    for (int j = 0; j < i; j++)
      if (fields[i]->ref && fields[i]->ref == fields[j]->ref) {
        lz_error(fields[i]->span, "duplicate field name ‘%s’ in record %s", fields[i]->name, what);
        break;
      }
}

FePat *fe_rn_pat(RnCtx *c, FePat *p) {
  if (!p || too_deep(c, p->span)) return p;
  c->depth++;
  switch (p->kind) {
  case P_VAR:
  case P_WILD:
  case P_LIT: break;
  case P_AS:
  case P_LAZY:
  case P_BANG: p->sub = fe_rn_pat(c, p->sub); break;
  case P_PAREN: c->depth--; return fe_rn_pat(c, p->sub);
  case P_TUPLE: check_tuple_size(p->args.len, p->span); /* fall through */
  case P_LIST:
  case P_CON:
    if (p->kind == P_CON) fe_rn_lookup_value(c, &p->id, RN_USE_PAT);
    for (int i = 0; i < p->args.len; i++)
      p->args.data[i] = fe_rn_pat(c, p->args.data[i]);
    break;
  case P_REC: {
    fe_rn_lookup_value(c, &p->id, RN_USE_PAT);
    FeConDecl *cd = con_decl(p->id.ref);
    FeIdent **labels = LZ_NEW_ARRAY(FeIdent *, p->fields.len + 1);
    for (int i = 0; i < p->fields.len; i++) {
      FeFieldPat *fp = &p->fields.data[i];
      labels[i] = &fp->field;
      if (rn_field(c, &fp->field) && cd && !con_has_field(cd, fp->field.ref))
        lz_error(fp->field.span, "Constructor ‘%s’ does not have field ‘%s’", p->id.name,
                 fp->field.name);
      fp->pat = fe_rn_pat(c, fp->pat);
    }
    check_dup_fields(labels, p->fields.len, "pattern");
    break;
  }
  case P_OPSEQ:
    for (int i = 0; i < p->args.len; i++) {
      FePat *it = p->args.data[i];
      if (it->kind == P_CON && it->is_op)
        fe_rn_lookup_value(c, &it->id, RN_USE_PAT);
      else
        p->args.data[i] = fe_rn_pat(c, it);
    }
    c->depth--;
    return fe_fixity_resolve_pat(p);
  }
  c->depth--;
  return p;
}

/* Binders of the patterns `pats`, conflicts checked, patterns renamed in the current
 * scope, then the binders brought into scope. */
static void bind_pats(RnCtx *c, FePat **pats, int n, const char *context) {
  RnNames names = {0};
  for (int i = 0; i < n; i++)
    fe_rn_pat_binders(c, pats[i], &names, false, NULL);
  fe_rn_check_conflicts(&names, context);
  for (int i = 0; i < n; i++)
    pats[i] = fe_rn_pat(c, pats[i]);
  for (int i = 0; i < names.len; i++)
    fe_rn_bind(c, names.data[i]);
}

/* ---- statements and right-hand sides ------------------------------------------------- */

void fe_rn_stmts(RnCtx *c, FeStmt **stmts, int n) {
  for (int i = 0; i < n; i++) {
    FeStmt *s = stmts[i];
    switch (s->kind) {
    case S_EXPR: s->e = fe_rn_expr(c, s->e); break;
    case S_BIND:
      s->e = fe_rn_expr(c, s->e);
      bind_pats(c, &s->pat, 1, NULL);
      break;
    case S_LET: fe_rn_local_group(c, s->decls.data, s->decls.len); break;
    }
  }
}

void fe_rn_rhs(RnCtx *c, FeRhs *r) {
  if (!r) return;
  int mark = fe_rn_mark(c);
  fe_rn_local_group(c, r->where.data, r->where.len);
  if (r->plain) r->plain = fe_rn_expr(c, r->plain);
  for (int i = 0; i < r->guards.len; i++) {
    FeGuarded *g = &r->guards.data[i];
    int gmark = fe_rn_mark(c);
    fe_rn_stmts(c, g->quals.data, g->quals.len);
    g->e = fe_rn_expr(c, g->e);
    fe_rn_pop(c, gmark);
  }
  fe_rn_pop(c, mark);
}

void fe_rn_matches(RnCtx *c, FeDecl *d) {
  const char *context = lz_fmt("In an equation for ‘%s’", d->name.name);
  for (int i = 0; i < d->matches.len; i++) {
    FeMatch *m = d->matches.data[i];
    int mark = fe_rn_mark(c);
    bind_pats(c, m->pats.data, m->pats.len, context);
    fe_rn_rhs(c, m->rhs);
    fe_rn_pop(c, mark);
  }
}

/* ---- expressions ------------------------------------------------------------------- */

static void rn_record_con(RnCtx *c, FeExpr *e) {
  fe_rn_lookup_value(c, &e->id, RN_USE_EXPR);
  FeConDecl *cd = con_decl(e->id.ref);
  FeIdent **labels = LZ_NEW_ARRAY(FeIdent *, e->fields.len + 1);
  for (int i = 0; i < e->fields.len; i++) {
    FeFieldBind *fb = &e->fields.data[i];
    labels[i] = &fb->field;
    if (rn_field(c, &fb->field) && cd && !con_has_field(cd, fb->field.ref))
      lz_error(e->span, "Constructor ‘%s’ does not have field ‘%s’", e->id.name, fb->field.name);
    fb->e = fe_rn_expr(c, fb->e);
  }
  check_dup_fields(labels, e->fields.len, "construction");
}

static void rn_record_update(RnCtx *c, FeExpr *e) {
  e->e1 = fe_rn_expr(c, e->e1);
  FeIdent **labels = LZ_NEW_ARRAY(FeIdent *, e->fields.len + 1);
  bool ok = true;
  for (int i = 0; i < e->fields.len; i++) {
    FeFieldBind *fb = &e->fields.data[i];
    labels[i] = &fb->field;
    ok &= rn_field(c, &fb->field);
    fb->e = fe_rn_expr(c, fb->e);
  }
  check_dup_fields(labels, e->fields.len, "update");
  if (!ok || e->fields.len == 0) return;
  /* some constructor of the first field's type must have all the fields */
  FeDecl *d = labels[0]->ref->decl;
  bool found = false;
  for (int i = 0; d && i < d->cons.len && !found; i++) {
    found = true;
    for (int j = 0; j < e->fields.len; j++)
      found &= con_has_field(d->cons.data[i], labels[j]->ref);
  }
  if (!found) {
    char *names = lz_strdup("");
    for (int j = 0; j < e->fields.len; j++)
      names = lz_fmt("%s%s‘%s’", names, j ? ", " : "", labels[j]->name);
    lz_error(e->span, "No constructor has all these fields: %s", names);
  }
}

/* ---- sections ---- */

typedef struct OpFix {
  FeAssoc assoc;
  int prec;
  const FeIdent *id; /* NULL: prefix negation */
} OpFix;

static OpFix op_fixity(const FeIdent *id) {
  OpFix f = {ASSOC_LEFT, 9, id};
  if (id->ref && id->ref->has_fixity) f.assoc = id->ref->assoc, f.prec = id->ref->prec;
  return f;
}

static const char *fix_text(OpFix f) {
  if (!f.id) return "prefix `-' [infixl 6]";
  const char *a = f.assoc == ASSOC_LEFT ? "infixl" : f.assoc == ASSOC_RIGHT ? "infixr" : "infix";
  return lz_fmt("‘%s%s%s’ [%s %d]", f.id->qual ? f.id->qual : "", f.id->qual ? "." : "", f.id->name,
                a, f.prec);
}

/* The source text inside a one-line parenthesised span, or NULL. */
static const char *inner_text(LzSpan s) {
  LzSource *src = lz_source_get(s.file);
  if (!src || s.line != s.eline || s.ecol < s.col + 2) return NULL;
  const char *p = src->text, *end = src->text + src->len;
  for (int l = 1; l < s.line && p < end; p++)
    if (*p == '\n') l++;
  if (p + s.ecol > end) return NULL;
  const char *a = p + s.col, *b = p + s.ecol - 1; /* without the parentheses */
  while (a < b && (*a == ' ' || *a == '\t'))
    a++;
  while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
    b--;
  return lz_strndup(a, (size_t)(b - a));
}

/* Haskell 2010, 3.5: (e op) is legal when `e op x` parses as `(e) op x`, and (op e)
 * when `x op e` parses as `x op (e)`. Only an operand written without parentheses
 * (an operator sequence, resolved into `operand`) can break the rule. */
static void check_section(FeExpr *sec) {
  FeExpr *operand = sec->e1;
  OpFix inner;
  if (operand->kind == E_APP && operand->fn && operand->fn->is_op && operand->args.len == 2)
    inner = op_fixity(&operand->fn->id);
  else if (operand->kind == E_NEG)
    inner = (OpFix){ASSOC_LEFT, 6, NULL};
  else
    return;
  OpFix op = op_fixity(&sec->id);
  FeAssoc side = sec->kind == E_LSECTION ? ASSOC_LEFT : ASSOC_RIGHT;
  if (inner.prec > op.prec || (inner.prec == op.prec && inner.assoc == side && op.assoc == side))
    return;
  const char *text = inner_text(sec->span);
  lz_error(
      sec->span,
      "The operator %s of a section\n    must have lower precedence than that of the operand,\n"
      "      namely %s%s%s%s",
      fix_text(op), fix_text(inner), text ? "\n    in the section: ‘" : "", text ? text : "",
      text ? "’" : "");
}

static void rn_exprs(RnCtx *c, FeExpr **es, int n) {
  for (int i = 0; i < n; i++)
    es[i] = fe_rn_expr(c, es[i]);
}

FeExpr *fe_rn_expr(RnCtx *c, FeExpr *e) {
  if (!e || too_deep(c, e->span)) return e;
  c->depth++;
  int mark = fe_rn_mark(c);
  switch (e->kind) {
  case E_VAR:
    if (!e->is_neg) fe_rn_lookup_value(c, &e->id, RN_USE_EXPR);
    break;
  case E_CON: fe_rn_lookup_value(c, &e->id, RN_USE_EXPR); break;
  case E_LIT: break;
  case E_APP:
    e->fn = fe_rn_expr(c, e->fn);
    rn_exprs(c, e->args.data, e->args.len);
    break;
  case E_OPSEQ:
    /* operators are E_VAR/E_CON items; a prefix minus (is_neg) stays unresolved */
    rn_exprs(c, e->args.data, e->args.len);
    e = fe_fixity_resolve_expr(e);
    break;
  case E_NEG:
  case E_SCC: e->e1 = fe_rn_expr(c, e->e1); break;
  case E_PAREN: e = fe_rn_expr(c, e->e1); break;
  case E_LAM:
    bind_pats(c, e->pats.data, e->pats.len, "In a lambda abstraction");
    e->e1 = fe_rn_expr(c, e->e1);
    break;
  case E_LET:
    fe_rn_local_group(c, e->decls.data, e->decls.len);
    e->e1 = fe_rn_expr(c, e->e1);
    break;
  case E_IF:
    e->e1 = fe_rn_expr(c, e->e1);
    e->e2 = fe_rn_expr(c, e->e2);
    e->e3 = fe_rn_expr(c, e->e3);
    break;
  case E_CASE:
    e->e1 = fe_rn_expr(c, e->e1);
    for (int i = 0; i < e->alts.len; i++) {
      FeAlt *a = &e->alts.data[i];
      int amark = fe_rn_mark(c);
      bind_pats(c, &a->pat, 1, "In a case alternative");
      fe_rn_rhs(c, a->rhs);
      fe_rn_pop(c, amark);
    }
    break;
  case E_DO:
    if (e->stmts.len == 0) {
      lz_error(e->span, "Empty 'do' block");
      break;
    }
    fe_rn_stmts(c, e->stmts.data, e->stmts.len);
    if (e->stmts.data[e->stmts.len - 1]->kind != S_EXPR)
      lz_error(e->stmts.data[e->stmts.len - 1]->span,
               "The last statement in a 'do' block must be an expression");
    break;
  case E_COMP:
    fe_rn_stmts(c, e->stmts.data, e->stmts.len);
    e->e1 = fe_rn_expr(c, e->e1);
    break;
  case E_TUPLE: check_tuple_size(e->args.len, e->span); /* fall through */
  case E_LIST: rn_exprs(c, e->args.data, e->args.len); break;
  case E_ARITH:
    e->e1 = fe_rn_expr(c, e->e1);
    e->e2 = fe_rn_expr(c, e->e2);
    e->e3 = fe_rn_expr(c, e->e3);
    break;
  case E_LSECTION:
  case E_RSECTION: {
    bool bare = e->e1 && e->e1->kind == E_OPSEQ;
    fe_rn_lookup_value(c, &e->id, RN_USE_EXPR);
    e->e1 = fe_rn_expr(c, e->e1);
    if (bare && e->e1) check_section(e);
    break;
  }
  case E_TYPED: {
    e->e1 = fe_rn_expr(c, e->e1);
    int tmark = fe_rn_tv_mark(c);
    fe_rn_qualtype(c, e->sig, true);
    fe_rn_tv_pop(c, tmark);
    break;
  }
  case E_RECCON: rn_record_con(c, e); break;
  case E_RECUPD: rn_record_update(c, e); break;
  }
  fe_rn_pop(c, mark);
  c->depth--;
  return e;
}
