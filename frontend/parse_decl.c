/* parse_decl.c — declarations: type signatures, fixity declarations, bindings with
 * their right-hand sides (guards, where), and the top-level forms (data, newtype,
 * type, class, instance, foreign import prim, default).
 *
 * Consecutive equations of one function are grouped into one D_FUN as they are added
 * (fe_p_add_decl), as GHC does: only equations with arguments are grouped, so
 * `x = 1; x = 2` stays two declarations for the renamer to report. Constructs outside
 * Lz (GADT syntax, datatype contexts, multi-parameter classes, type families, the
 * general FFI) are reported here, where they are cheap to recognise.
 */
#include <string.h>

#include "parser_internal.h"

static bool at_word(Parser *p, const char *w) {
  return p->tok.kind == T_VARID && !p->tok.qual && strcmp(p->tok.name, w) == 0;
}

bool fe_p_starts_decl(Parser *p) {
  switch (p->tok.kind) {
  case T_INFIX:
  case T_INFIXL:
  case T_INFIXR: return true;
  default: return fe_p_starts_apat(p);
  }
}

void fe_p_add_decl(Parser *p, FeDeclVec *out, FeDecl *d) {
  if (d->kind == D_FUN && d->matches.data[0]->pats.len > 0 && out->len > 0) {
    FeDecl *prev = out->data[out->len - 1];
    if (prev->kind == D_FUN && prev->name.name == d->name.name &&
        prev->matches.data[0]->pats.len > 0) {
      if (prev->matches.data[0]->pats.len != d->matches.data[0]->pats.len)
        fe_p_defer(p, prev->span,
                   "Equations for ‘%s’ have different numbers of arguments\n  %s\n  %s",
                   d->name.name, lz_span_ghc(prev->matches.data[0]->span),
                   lz_span_ghc(d->matches.data[0]->span));
      LZ_PUSH(prev->matches, d->matches.data[0]);
      prev->span = lz_span_join(prev->span, d->span);
      return;
    }
  }
  LZ_PUSH(*out, d);
}

/* ---- right-hand sides --------------------------------------------------------------- */

/* rhs = eq exp [where decls] | (| quals eq exp)+ [where decls]    (eq is = or ->) */
FeRhs *fe_p_rhs(Parser *p, TokKind eq) {
  FeRhs *r = LZ_NEW(FeRhs);
  LzSpan start = p->tok.span;
  if (fe_p_accept(p, eq)) {
    r->plain = fe_p_exp(p);
  } else if (fe_p_at(p, T_BAR)) {
    while (fe_p_at(p, T_BAR)) {
      FeGuarded g = {.span = p->tok.span};
      fe_p_advance(p);
      FeStmtVec q = fe_p_quals(p);
      FE_VEC_SET(g.quals, q);
      fe_p_expect(p, eq);
      g.e = fe_p_exp(p);
      g.span = fe_p_from(p, g.span);
      LZ_PUSH(r->guards, g);
    }
  } else {
    fe_p_error(p);
  }
  if (fe_p_accept(p, T_WHERE)) {
    FeDeclVec w = fe_p_decls(p);
    FE_VEC_SET(r->where, w);
  }
  r->span = fe_p_from(p, start);
  return r;
}

/* ---- nested declarations ---------------------------------------------------------- */

/* Is this `var, ..., var ::` (a type signature)? Looks ahead without consuming. */
static bool at_sig(Parser *p) {
  if (!fe_p_at_var(p)) return false;
  ParserSave s = fe_p_save(p);
  bool ok = false;
  while (fe_p_at_var(p)) {
    fe_p_var(p);
    if (fe_p_at(p, T_DCOLON)) {
      ok = true;
      break;
    }
    if (!fe_p_accept(p, T_COMMA)) break;
  }
  fe_p_restore(p, &s);
  return ok;
}

/* fixity = (infixl | infixr | infix) [digit] op, ..., op */
static FeDecl *fixity_decl(Parser *p) {
  FeDecl *d = fe_decl_new(D_FIXITY, p->tok.span);
  d->assoc = p->tok.kind == T_INFIXL   ? ASSOC_LEFT
             : p->tok.kind == T_INFIXR ? ASSOC_RIGHT
                                       : ASSOC_NONE;
  d->prec = 9;
  fe_p_advance(p);
  if (p->tok.kind == T_LITERAL && p->tok.lit->kind == L_INT) {
    if (!p->tok.lit->fits || p->tok.lit->i > 9)
      fe_p_fail(p, p->tok.span, "Precedence out of range: %s", p->tok.lit->digits);
    d->prec = (int)p->tok.lit->i;
    fe_p_advance(p);
  }
  do {
    if ((p->tok.kind == T_VARSYM || p->tok.kind == T_CONSYM || p->tok.kind == T_BACKQUOTE) &&
        !p->tok.qual) {
      bool con;
      LZ_PUSH(d->names, fe_p_qop(p, &con));
    } else {
      fe_p_error(p);
    }
  } while (fe_p_accept(p, T_COMMA));
  d->span = fe_p_from(p, d->span);
  return d;
}

/* decl = vars :: qualtype | fixity | lhs rhs */
void fe_p_decl(Parser *p, FeDeclVec *out) {
  LzSpan start = p->tok.span;
  if (fe_p_at(p, T_INFIX) || fe_p_at(p, T_INFIXL) || fe_p_at(p, T_INFIXR)) {
    LZ_PUSH(*out, fixity_decl(p));
    return;
  }
  if (at_sig(p)) {
    FeDecl *d = fe_decl_new(D_SIG, start);
    do {
      LZ_PUSH(d->names, fe_p_var(p));
    } while (fe_p_accept(p, T_COMMA));
    fe_p_expect(p, T_DCOLON);
    d->sig = fe_p_qualtype(p);
    d->span = fe_p_from(p, start);
    LZ_PUSH(*out, d);
    return;
  }
  FeDecl *d = fe_p_binding_lhs(p);
  FeRhs *rhs = fe_p_rhs(p, T_EQUAL);
  if (d->kind == D_PAT) {
    d->rhs = rhs;
  } else {
    FeMatch *m = d->matches.data[0];
    m->rhs = rhs;
    m->span = fe_p_from(p, m->span);
  }
  d->span = fe_p_from(p, start);
  fe_p_add_decl(p, out, d);
}

/* decls = { decl ; ... ; decl } */
FeDeclVec fe_p_decls(Parser *p) {
  FeDeclVec v = {0};
  fe_p_enter(p);
  bool ex = fe_p_block_open(p);
  for (;;) {
    while (fe_p_accept(p, T_SEMI)) {
    }
    if (fe_p_block_at_end(p, ex) || !fe_p_starts_decl(p)) break;
    fe_p_decl(p, &v);
    if (!fe_p_at(p, T_SEMI)) break;
  }
  fe_p_block_close(p, ex);
  fe_p_leave(p);
  return v;
}

/* ---- data and newtype --------------------------------------------------------------- */

/* simpletype = tycon tyvar*   (given as the btype it was parsed as) */
static void simpletype(Parser *p, FeType *t, FeDecl *d) {
  LZ_VEC(FeIdent) vars = {0};
  FeType *h = t;
  while (h->kind == TY_APP) {
    if (h->right->kind != TY_VAR)
      fe_p_fail(p, h->right->span, "Malformed head of type or class declaration: %s",
                fe_type_to_string(t));
    LZ_PUSH(vars, h->right->id);
    h = h->left;
  }
  if (h->kind != TY_CON || h->id.qual || h->id.name[0] == '(' || h->id.name[0] == '[' ||
      strcmp(h->id.name, "->") == 0)
    fe_p_fail(p, t->span, "Malformed head of type or class declaration: %s", fe_type_to_string(t));
  d->name = h->id;
  for (int i = vars.len - 1; i >= 0; i--)
    LZ_PUSH(d->tyvars, vars.data[i]);
}

static bool at_bang(Parser *p) { return fe_p_at(p, T_BANG) || fe_p_at_varsym(p, "!"); }

/* A constructor argument: [!] atype */
static FeField con_arg(Parser *p) {
  FeField f = {0};
  if (at_bang(p)) {
    fe_p_advance(p);
    f.strict = true;
  }
  f.type = fe_p_atype(p);
  return f;
}

typedef LZ_VEC(FeField) FieldVec;

/* An operand of an infix constructor: btype | ! atype */
static FeField infix_operand(Parser *p, FieldVec *items) {
  if (items->len == 1) return items->data[0];
  FeType *t = items->data[0].type;
  for (int i = 0; i < items->len; i++) {
    if (items->data[i].strict)
      fe_p_fail(p, items->data[i].type->span, "unexpected strictness annotation");
    if (i == 0) continue;
    FeType *a = fe_type_new(TY_APP, lz_span_join(t->span, items->data[i].type->span));
    a->left = t;
    a->right = items->data[i].type;
    t = a;
  }
  FeField f = {.type = t};
  return f;
}

/* fielddecls = { vars :: (type | ! atype) , ... } */
static void record_fields(Parser *p, FeConDecl *c) {
  c->record = true;
  fe_p_block_open(p);
  if (!fe_p_at(p, T_RBRACE)) {
    do {
      LZ_VEC(FeIdent) labels = {0};
      do {
        LZ_PUSH(labels, fe_p_var(p));
      } while (fe_p_accept(p, T_COMMA));
      fe_p_expect(p, T_DCOLON);
      FeField f = {0};
      if (at_bang(p)) {
        fe_p_advance(p);
        f.strict = true;
        f.type = fe_p_atype(p);
      } else {
        f.type = fe_p_type(p);
      }
      for (int i = 0; i < labels.len; i++) {
        f.label = labels.data[i];
        LZ_PUSH(c->fields, f);
      }
    } while (fe_p_accept(p, T_COMMA));
  }
  fe_p_block_close(p, true);
}

/* constr = con [!]atype* | (btype | !atype) conop (btype | !atype) | con { fielddecls } */
static FeConDecl *constr(Parser *p) {
  FeConDecl *c = LZ_NEW(FeConDecl);
  LzSpan start = p->tok.span;
  if (at_word(p, "forall"))
    fe_p_fail(p, p->tok.span,
              "existential quantification (forall in a data declaration) is not supported in Lz");
  if (fe_p_at(p, T_LPAREN) && fe_p_peek(p).kind == T_CONSYM) { /* (:+) a b */
    fe_p_advance(p);
    c->name = fe_p_ident(p);
    fe_p_expect(p, T_RPAREN);
    while (fe_p_starts_atype(p) || at_bang(p))
      LZ_PUSH(c->fields, con_arg(p));
    c->span = fe_p_from(p, start);
    return c;
  }
  FieldVec items = {0};
  while (fe_p_starts_atype(p) || at_bang(p))
    LZ_PUSH(items, con_arg(p));
  bool infix = fe_p_at(p, T_CONSYM) || (fe_p_at(p, T_BACKQUOTE) && fe_p_peek(p).kind == T_CONID);
  if (infix) {
    if (items.len == 0) fe_p_error(p);
    FeField left = infix_operand(p, &items);
    bool con;
    c->name = fe_p_qop(p, &con);
    c->infix = true;
    FieldVec right = {0};
    while (fe_p_starts_atype(p) || at_bang(p))
      LZ_PUSH(right, con_arg(p));
    if (right.len == 0) fe_p_error(p);
    LZ_PUSH(c->fields, left);
    LZ_PUSH(c->fields, infix_operand(p, &right));
  } else {
    if (items.len == 0) fe_p_error(p);
    FeField head = items.data[0];
    if (head.strict || head.type->kind != TY_CON || head.type->id.qual ||
        head.type->id.name[0] == '(' || head.type->id.name[0] == '[' ||
        strcmp(head.type->id.name, "->") == 0)
      fe_p_fail(p, head.type->span, "Not a data constructor: ‘%s’", fe_type_to_string(head.type));
    c->name = head.type->id;
    if (items.len == 1 && fe_p_at(p, T_LBRACE) && !p->tok.virt) {
      record_fields(p, c);
    } else {
      for (int i = 1; i < items.len; i++)
        LZ_PUSH(c->fields, items.data[i]);
    }
  }
  c->span = fe_p_from(p, start);
  return c;
}

/* deriving = deriving (qtycls | ( [qtycls (, qtycls)*] )) */
static void deriving(Parser *p, FeDecl *d) {
  fe_p_expect(p, T_DERIVING);
  if (fe_p_accept(p, T_LPAREN)) {
    if (!fe_p_at(p, T_RPAREN)) {
      do {
        if (p->tok.kind != T_CONID) fe_p_error(p);
        LZ_PUSH(d->deriving, fe_p_ident(p));
      } while (fe_p_accept(p, T_COMMA));
    }
    fe_p_expect(p, T_RPAREN);
  } else {
    if (p->tok.kind != T_CONID) fe_p_error(p);
    LZ_PUSH(d->deriving, fe_p_ident(p));
  }
}

/* data [context =>] simpletype [= constr | ... | constr] [deriving]
 * newtype [context =>] simpletype = constr [deriving] */
static FeDecl *data_decl(Parser *p) {
  LzSpan start = p->tok.span;
  bool newtype = p->tok.kind == T_NEWTYPE;
  FeDecl *d = fe_decl_new(newtype ? D_NEWTYPE : D_DATA, start);
  fe_p_advance(p);
  if (at_word(p, "family") || fe_p_at(p, T_INSTANCE))
    fe_p_fail(p, start, "data families are not supported in Lz");
  FeType *head = fe_p_btype(p);
  if (fe_p_at(p, T_DARROW))
    fe_p_fail(p, head->span, "Illegal datatype context (use DatatypeContexts): %s =>",
              fe_p_span_text(p, head->span));
  simpletype(p, head, d);
  if (fe_p_at(p, T_WHERE) || fe_p_at(p, T_DCOLON))
    fe_p_fail(p, start, "GADT syntax is not supported in Lz (in the declaration of ‘%s’)",
              d->name.name);
  if (fe_p_accept(p, T_EQUAL)) {
    do {
      LZ_PUSH(d->cons, constr(p));
    } while (fe_p_accept(p, T_BAR));
  } else if (newtype) {
    fe_p_error(p);
  }
  if (fe_p_at(p, T_DERIVING)) deriving(p, d);
  d->span = fe_p_from(p, start);
  if (newtype && (d->cons.len != 1 || d->cons.data[0]->fields.len != 1))
    fe_p_defer(p, d->cons.data[0]->span,
               "The constructor of a newtype must have exactly one field\n  but ‘%s’ has %d",
               d->cons.data[0]->name.name, d->cons.data[0]->fields.len);
  return d;
}

/* type simpletype = type */
static FeDecl *type_decl(Parser *p) {
  LzSpan start = p->tok.span;
  FeDecl *d = fe_decl_new(D_TYPE, start);
  fe_p_advance(p);
  if (at_word(p, "family") || fe_p_at(p, T_INSTANCE))
    fe_p_fail(p, start, "type families are not supported in Lz");
  simpletype(p, fe_p_btype(p), d);
  fe_p_expect(p, T_EQUAL);
  d->rhs_type = fe_p_type(p);
  d->span = fe_p_from(p, start);
  return d;
}

/* C t (the head of a class or instance declaration): the class and its argument */
static FeType *class_head(Parser *p, FeType *t, FeDecl *d, const char *what) {
  FeType *h = t;
  int nargs = 0;
  while (h->kind == TY_APP)
    h = h->left, nargs++;
  if (h->kind != TY_CON || h->id.name[0] == '(' || h->id.name[0] == '[')
    fe_p_fail(p, t->span, "Malformed head of %s declaration: %s", what, fe_type_to_string(t));
  if (nargs != 1)
    fe_p_defer(p, d->span,
               nargs == 0 ? "No parameters for class ‘%s’"
                          : "Too many parameters for class ‘%s’\n(multi-parameter type classes are "
                            "not supported in Lz)",
               h->id.name);
  d->name = h->id;
  return nargs ? t->right : t;
}

/* class [context =>] C a [where decls]
 * instance [context =>] C t [where decls] */
static FeDecl *class_or_instance(Parser *p) {
  LzSpan start = p->tok.span;
  bool is_class = p->tok.kind == T_CLASS;
  FeDecl *d = fe_decl_new(is_class ? D_CLASS : D_INSTANCE, start);
  fe_p_advance(p);
  d->sig = LZ_NEW(FeQualType);
  FeType *t = fe_p_btype(p);
  if (fe_p_accept(p, T_DARROW)) {
    fe_p_type_to_context(p, t, d->sig);
    t = fe_p_btype(p);
  }
  FeType *arg = class_head(p, t, d, is_class ? "class" : "instance");
  if (is_class) {
    if (d->name.qual || (arg->kind != TY_VAR && arg != t))
      fe_p_fail(p, t->span, "Malformed head of class declaration: %s", fe_type_to_string(t));
    LZ_PUSH(d->tyvars, arg->id);
    if (fe_p_at(p, T_BAR))
      fe_p_fail(p, p->tok.span, "functional dependencies are not supported in Lz");
  }
  d->sig->type = arg;
  d->sig->span = fe_p_from(p, start);
  if (fe_p_accept(p, T_WHERE)) {
    FeDeclVec body = fe_p_decls(p);
    FE_VEC_SET(d->body, body);
  }
  d->span = fe_p_from(p, start);
  return d;
}

/* foreign import prim "entity" var :: type */
static FeDecl *foreign_decl(Parser *p) {
  LzSpan start = p->tok.span;
  FeDecl *d = fe_decl_new(D_FOREIGN, start);
  fe_p_advance(p);
  if (!fe_p_accept(p, T_IMPORT) || !at_word(p, "prim"))
    fe_p_fail(
        p, start,
        "The FFI is not supported in Lz (only ‘foreign import prim’, in the standard library)");
  d->callconv = p->tok.name;
  fe_p_advance(p);
  if (p->tok.kind != T_LITERAL || p->tok.lit->kind != L_STRING) fe_p_error(p);
  d->entity = p->tok.lit->str;
  fe_p_advance(p);
  d->name = fe_p_var(p);
  fe_p_expect(p, T_DCOLON);
  d->sig = fe_p_qualtype(p);
  d->span = fe_p_from(p, start);
  return d;
}

/* default ( [type (, type)*] ) */
static FeDecl *default_decl(Parser *p) {
  LzSpan start = p->tok.span;
  FeDecl *d = fe_decl_new(D_DEFAULT, start);
  fe_p_advance(p);
  fe_p_expect(p, T_LPAREN);
  if (!fe_p_at(p, T_RPAREN)) {
    do {
      LZ_PUSH(d->types, fe_p_type(p));
    } while (fe_p_accept(p, T_COMMA));
  }
  fe_p_expect(p, T_RPAREN);
  d->span = fe_p_from(p, start);
  return d;
}

/* topdecl = data | newtype | type | class | instance | foreign | default | decl */
void fe_p_topdecl(Parser *p, FeDeclVec *out) {
  switch (p->tok.kind) {
  case T_DATA:
  case T_NEWTYPE: LZ_PUSH(*out, data_decl(p)); return;
  case T_TYPE: LZ_PUSH(*out, type_decl(p)); return;
  case T_CLASS:
  case T_INSTANCE: LZ_PUSH(*out, class_or_instance(p)); return;
  case T_FOREIGN: LZ_PUSH(*out, foreign_decl(p)); return;
  case T_DEFAULT: LZ_PUSH(*out, default_decl(p)); return;
  case T_VARSYM:
    if (fe_p_at_varsym(p, "$") && fe_p_peek(p).kind == T_LPAREN)
      fe_p_fail(p, p->tok.span, "Template Haskell splices are not supported in Lz");
    fe_p_error(p);
  default:
    if (!fe_p_starts_decl(p)) fe_p_error(p);
    fe_p_decl(p, out);
  }
}
