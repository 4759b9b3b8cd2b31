/* fixity.c — re-associates operator sequences (E_OPSEQ, P_OPSEQ) by fixity.
 *
 * This is the resolution algorithm of the Haskell 2010 report, §10.6, including
 * prefix negation (precedence 6, left) and its errors, computed with an explicit
 * stack instead of the report's mutual recursion, so a sequence of a hundred thousand
 * operators cannot exhaust the C stack. A stack frame is "an operator (or a negation)
 * waiting for its right operand"; the report's parse1 step "return to the caller"
 * becomes popping a frame and building the node. Fixities come from the operators'
 * resolved names (FeIdent.ref, set by the renamer); an unresolved operator is
 * infixl 9, except `:` (infixr 5), which is built-in syntax.
 */
#include <string.h>

#include "passes.h"

typedef struct Fix {
  FeAssoc assoc;
  int prec;
  bool neg;          /* prefix minus */
  const FeIdent *id; /* the operator (NULL for negation) */
} Fix;

static Fix fixity_of(const FeIdent *id) {
  Fix f = {ASSOC_LEFT, 9, false, id};
  const FeName *n = id->ref;
  if (n && n->has_fixity) {
    f.assoc = n->assoc;
    f.prec = n->prec;
  } else if (strcmp(id->name, ":") == 0 && (!n || !n->module)) {
    f.assoc = ASSOC_RIGHT;
    f.prec = 5;
  }
  return f;
}

static const char *fix_text(Fix f) {
  if (f.neg) return "prefix `-' [infixl 6]";
  const char *a = f.assoc == ASSOC_LEFT ? "infixl" : f.assoc == ASSOC_RIGHT ? "infixr" : "infix";
  const char *name = f.id->qual ? lz_fmt("%s.%s", f.id->qual, f.id->name) : f.id->name;
  return lz_fmt("‘%s’ [%s %d]", name, a, f.prec);
}

static void mix_error(LzSpan at, Fix a, Fix b) {
  lz_error(at, "Precedence parsing error\n    cannot mix %s and %s in the same infix expression",
           fix_text(a), fix_text(b));
}

/* The resolution is generic over expressions and patterns through these callbacks. */
typedef struct Ops Ops;
struct Ops {
  int n;
  void **items;
  char *negs; /* patterns: 1 where items[i] is a negation marker */
  bool (*is_neg)(Ops *o, int i);
  void *(*binary)(Ops *o, int op_index, void *l, void *r);
  void *(*negate)(Ops *o, int neg_index, void *x);
  const FeIdent *(*op_id)(Ops *o, int i);
  LzSpan span;
};

typedef struct Frame {
  Fix op;
  int index;  /* item index of the operator / negation */
  void *left; /* operator frames: the left operand */
} Frame;

static void *pop_build(Ops *o, Frame f, void *right) {
  return f.op.neg ? o->negate(o, f.index, right) : o->binary(o, f.index, f.left, right);
}

/* Items alternate operand and operator; negations may precede any operand. */
static void *resolve(Ops *o) {
  LZ_VEC(Frame) st = {0};
  const Fix bottom = {ASSOC_NONE, -1, false, NULL};
  const Fix negfix = {ASSOC_LEFT, 6, true, NULL};
  bool reported = false;
  int i = 0;
  for (;;) {
    /* parseNeg: prefix minuses, then an operand */
    while (i < o->n && o->is_neg(o, i)) {
      Fix op1 = st.len ? st.data[st.len - 1].op : bottom;
      if (op1.prec >= 6 && !reported) {
        mix_error(o->span, op1, negfix);
        reported = true;
      }
      Frame f = {negfix, i, NULL};
      LZ_PUSH(st, f);
      i++;
    }
    if (i >= o->n) return NULL; /* malformed: the parser never produces this */
    void *e1 = o->items[i++];
    /* parse1: while the pending operator binds at least as tightly, build it */
    for (;;) {
      if (i >= o->n) {
        while (st.len)
          e1 = pop_build(o, st.data[--st.len], e1);
        return e1;
      }
      Fix op2 = fixity_of(o->op_id(o, i));
      Fix op1 = st.len ? st.data[st.len - 1].op : bottom;
      bool left;
      if (op1.prec == op2.prec && (op1.assoc != op2.assoc || op1.assoc == ASSOC_NONE)) {
        if (!reported) mix_error(o->span, op1, op2);
        reported = true;
        left = st.len > 0; /* carry on as if left-associative: the tree stays well-formed */
      } else {
        left = op1.prec > op2.prec || (op1.prec == op2.prec && op1.assoc == ASSOC_LEFT);
      }
      if (!left) {
        Frame f = {op2, i, e1};
        LZ_PUSH(st, f);
        i++;
        break; /* on to the right operand */
      }
      e1 = pop_build(o, st.data[--st.len], e1);
    }
  }
}

/* ---- expressions ---------------------------------------------------------------------- */

static bool e_is_neg(Ops *o, int i) { return ((FeExpr *)o->items[i])->is_neg; }
static const FeIdent *e_op_id(Ops *o, int i) { return &((FeExpr *)o->items[i])->id; }

static void *e_binary(Ops *o, int op, void *l, void *r) {
  FeExpr *a = l, *b = r;
  FeExpr *app = fe_expr_new(E_APP, lz_span_join(a->span, b->span));
  app->fn = o->items[op];
  app->fn->is_op = true;
  LZ_PUSH(app->args, a);
  LZ_PUSH(app->args, b);
  return app;
}

static void *e_negate(Ops *o, int neg, void *x) {
  FeExpr *e = x;
  FeExpr *n = fe_expr_new(E_NEG, lz_span_join(((FeExpr *)o->items[neg])->span, e->span));
  n->e1 = e;
  return n;
}

FeExpr *fe_fixity_resolve_expr(FeExpr *e) {
  if (!e || e->kind != E_OPSEQ || e->args.len == 0) return e;
  Ops o = {.n = e->args.len,
           .items = (void **)e->args.data,
           .is_neg = e_is_neg,
           .binary = e_binary,
           .negate = e_negate,
           .op_id = e_op_id,
           .span = e->span};
  FeExpr *r = resolve(&o);
  return r ? r : e;
}

/* ---- patterns ------------------------------------------------------------------------ */

static bool p_is_neg(Ops *o, int i) { return o->negs[i]; }
static const FeIdent *p_op_id(Ops *o, int i) { return &((FePat *)o->items[i])->id; }

static void *p_binary(Ops *o, int op, void *l, void *r) {
  FePat *a = l, *b = r;
  FePat *c = fe_pat_new(P_CON, lz_span_join(a->span, b->span));
  c->id = ((FePat *)o->items[op])->id;
  c->is_op = true;
  LZ_PUSH(c->args, a);
  LZ_PUSH(c->args, b);
  return c;
}

/* The literal after a negation marker was already made negative. */
static void *p_negate(Ops *o, int neg, void *x) { return x; }

FePat *fe_fixity_resolve_pat(FePat *p) {
  if (!p || p->kind != P_OPSEQ || p->args.len == 0) return p;
  /* A negative literal -3 is resolved as a prefix negation (so `-3 :+ x` with :+
   * infix 6 is an error, as in GHC) whose result is the literal itself. */
  LZ_VEC(void *) items = {0};
  LZ_VEC(char) negs = {0};
  for (int i = 0; i < p->args.len; i++) {
    FePat *q = p->args.data[i];
    if (!q->is_op && q->is_neg) {
      LZ_PUSH(items, q);
      LZ_PUSH(negs, 1);
      q->is_neg = false;
      q->lit.negative = true;
    }
    LZ_PUSH(items, q);
    LZ_PUSH(negs, 0);
  }
  Ops o = {.n = items.len,
           .items = items.data,
           .negs = negs.data,
           .is_neg = p_is_neg,
           .binary = p_binary,
           .negate = p_negate,
           .op_id = p_op_id,
           .span = p->span};
  FePat *r = resolve(&o);
  return r ? r : p;
}
