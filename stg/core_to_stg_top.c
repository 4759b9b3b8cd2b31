/* core_to_stg_top.c — the top level of the Core-to-STG conversion (stg_from_core) and
 * the static closures the conversion creates on the way.
 *
 * The idea: the code generator emits every top-level binding as a static closure, so
 * whatever can be decided once for the whole program becomes one: an Integer literal is
 * a CAF (one per distinct value), a nullary constructor or a constructor applied to
 * literals and globals only is a shared static constructor, a non-trivial argument of a
 * top-level constructor application is a top-level binding of its own, and a top-level
 * alias `x = y` disappears into the environment. Global names shared by several Core
 * bindings (instance methods) are made unique here, before any code refers to them.
 */
#include "core_to_stg.h"

/* ---- Integer literals: one top-level CAF per distinct value -------------------------------- */

StgVar *stg_conv_integer(Conv *c, const CoreLit *l, LzSpan at) {
  const char *text = l->str ? l->str : lz_fmt("%lld", (long long)l->i);
  Sym key = lz_sym(text);
  StgVar *v = stg_map_get(&c->integers, (uint64_t)(uintptr_t)key);
  if (v) return v;
  int u = core_fresh_uniq();
  const char *name = strlen(text) > 24 ? lz_fmt("$integer_big%d", u)
                     : text[0] == '-'  ? lz_fmt("$integer_m%s", text + 1)
                                       : lz_fmt("$integer_%s", text);
  v = stg_var_new(c->p, lz_sym(name), u, STG_P, at);
  v->global = true;
  StgRhs *r = stg_conv_new_rhs(STG_THUNK, v, at);
  CoreLit *copy = LZ_NEW(CoreLit);
  *copy = *l;
  r->integer = copy;
  StgExpr *call = stg_expr_new(SE_PRIMOP, STG_P, at);
  call->args = LZ_NEW(StgAtom);
  call->nargs = 1;
  if (l->fits) {
    call->primop = P_INTEGER_FROM_INT;
    call->args[0] = stg_conv_lit_int(l->i);
  } else {
    call->primop = P_INTEGER_FROM_DEC;
    CoreLit s;
    memset(&s, 0, sizeof s);
    s.kind = CL_STRING;
    s.str = text;
    s.len = strlen(text);
    call->args[0] = stg_atom_lit(s);
  }
  r->body = call;
  LZ_PUSH(c->p->binds, ((StgBind){v, r}));
  stg_map_put(&c->integers, (uint64_t)(uintptr_t)key, v);
  return v;
}

/* ---- nullary constructors: one shared static closure each -------------------------------- */

StgVar *stg_conv_nullary(Conv *c, CoreDataCon *con, LzSpan at) {
  StgVar *v = stg_map_get(&c->nullary, (uint64_t)(uintptr_t)con);
  if (v) return v;
  v = stg_var_new(c->p, con->name, core_fresh_uniq(), STG_P, con->span);
  v->global = true;
  v->module = con->tycon ? con->tycon->module : NULL;
  StgRhs *r = stg_conv_new_rhs(STG_CON, v, at);
  r->con = con;
  LZ_PUSH(c->p->binds, ((StgBind){v, r}));
  stg_map_put(&c->nullary, (uint64_t)(uintptr_t)con, v);
  return v;
}

/* ---- constant constructor applications: shared static closures --------------------------- */

/* Is `x` a constructor application whose arguments are all literals, globals or (nested
 * up to a bound) such constructor applications? It can be one static closure shared by
 * every use (constructors are immutable). Not if a strict field would get an Integer
 * literal, which is a CAF, not a value (see stg_conv_strict_integer). */
static bool static_con_at(Conv *c, CoreExpr *x, int depth) {
  if (!x || x->kind != CE_CON || x->nargs == 0 || !x->con || !x->args || depth > 32) return false;
  for (int i = 0; i < x->nargs; i++) {
    CoreExpr *a = stg_conv_erase(x->args[i]);
    if (!a || stg_conv_strict_integer(x, i)) return false;
    if (a->kind == CE_VAR) {
      StgAtom *at = a->var ? stg_map_get(&c->env, stg_conv_key(a->var->uniq)) : NULL;
      if (!at || (at->kind == SA_VAR && !at->var->global)) return false;
    } else if (a->kind == CE_CON && a->nargs > 0) {
      if (!static_con_at(c, a, depth + 1)) return false;
    } else if (!(a->kind == CE_LIT || (a->kind == CE_CON && a->nargs == 0) ||
                 (a->kind == CE_PRIMOP && a->primop == P_REALWORLD && a->nargs == 0))) {
      return false;
    }
  }
  return true;
}

bool stg_conv_static_con(Conv *c, CoreExpr *x) { return static_con_at(c, x, 0); }

static const char *atom_key(const StgAtom *a) {
  if (a->kind == SA_VAR) return lz_fmt("v%d", a->var->id);
  const CoreLit *l = &a->lit;
  switch (l->kind) {
  case CL_DOUBLE: {
    uint64_t bits;
    memcpy(&bits, &l->d, sizeof bits);
    return lz_fmt("d%llx", (unsigned long long)bits);
  }
  case CL_STRING: {
    char *hex = lz_alloc(l->len * 2 + 2);
    for (size_t i = 0; i < l->len; i++)
      snprintf(hex + 2 * i, 3, "%02x", (unsigned char)l->str[i]);
    return lz_fmt("s%s", hex);
  }
  default: return lz_fmt("i%d.%lld", (int)l->kind, (long long)l->i);
  }
}

StgVar *stg_conv_static_con_var(Conv *c, CoreExpr *x) {
  StgAtom *args = LZ_NEW_ARRAY(StgAtom, x->nargs);
  const char *key = lz_fmt("%p", (void *)x->con);
  for (int i = 0; i < x->nargs; i++) {
    CoreExpr *a = stg_conv_erase(x->args[i]);
    if (a && a->kind == CE_CON && a->nargs > 0)
      args[i] = stg_atom_var(stg_conv_static_con_var(c, a));
    else
      stg_conv_trivial_atom(c, a, &args[i]);
    key = lz_fmt("%s|%s", key, atom_key(&args[i]));
  }
  Sym k = lz_sym(key);
  StgVar *v = stg_map_get(&c->statics, (uint64_t)(uintptr_t)k);
  if (v) return v;
  int u = core_fresh_uniq();
  v = stg_var_new(c->p, lz_sym(lz_fmt("%s$%d", x->con->name, u)), u, STG_P, x->span);
  v->global = true;
  v->module = x->con->tycon ? x->con->tycon->module : NULL;
  StgRhs *r = stg_conv_new_rhs(STG_CON, v, x->span);
  r->con = x->con;
  r->args = args;
  r->nargs = x->nargs;
  LZ_PUSH(c->p->binds, ((StgBind){v, r}));
  stg_map_put(&c->statics, (uint64_t)(uintptr_t)k, v);
  return v;
}

/* ---- top level ------------------------------------------------------------------------------ */

/* A lifted argument of a static constructor: a new top-level binding. */
StgVar *stg_conv_top_float(Conv *c, CoreExpr *e) {
  StgVar *parent = c->top;
  int u = core_fresh_uniq();
  StgVar *v = stg_var_new(c->p, lz_sym(lz_fmt("%s$%d", parent ? parent->name : "top", u)), u, STG_P,
                          e->span);
  v->global = true;
  v->module = parent ? parent->module : NULL;
  StgRhs *r = stg_conv_rhs(c, v, e, NULL, MODE_TOP);
  LZ_PUSH(c->p->binds, ((StgBind){v, r}));
  return v;
}

/* Top-level aliases x = y (after erasure: another global, an Integer literal, a nullary
 * constructor) are substituted at every use, so calls through them stay known calls;
 * chains are followed, and a cycle (x = y; y = x, a <<loop>>) stays a CAF. The aliases
 * are recorded in `aliases` (their bindings are not emitted). */
static void resolve_aliases(Conv *c, const CoreProgram *core, StgMap *aliases) {
  StgMap rhs_of = {0};
  int n = 0;
  for (int g = 0; g < core->groups.len; g++)
    for (int i = 0; i < core->groups.data[g].nbinds; i++) {
      CoreVar *v = core->groups.data[g].binds[i].var;
      CoreExpr *x = stg_conv_erase(core->groups.data[g].binds[i].rhs);
      if (!v || !x || stg_type_rep(v->type) != STG_P) continue;
      if ((x->kind == CE_VAR && x->var && x->var->global) ||
          (x->kind == CE_LIT && x->lit.kind == CL_INTEGER) ||
          (x->kind == CE_CON && x->nargs == 0)) {
        stg_map_put(&rhs_of, stg_conv_key(v->uniq), x);
        n++;
      }
    }
  for (int g = 0; g < core->groups.len; g++)
    for (int i = 0; i < core->groups.data[g].nbinds; i++) {
      CoreVar *v = core->groups.data[g].binds[i].var;
      CoreExpr *x = v ? stg_map_get(&rhs_of, stg_conv_key(v->uniq)) : NULL;
      if (!x) continue;
      int steps = 0;
      for (CoreExpr *next; x->kind == CE_VAR && steps <= n &&
                           (next = stg_map_get(&rhs_of, stg_conv_key(x->var->uniq)));
           steps++)
        x = next;
      StgAtom a;
      if (steps > n || !stg_conv_trivial_atom(c, x, &a)) continue;
      stg_conv_alias(c, v, a);
      stg_set_add(aliases, stg_conv_key(v->uniq));
    }
}

static void prim_sigs(StgProgram *p, const CoreProgram *core) {
  for (int i = 0; i < PRIMOP_COUNT; i++) {
    StgPrimSig *s = &p->prim_sigs[i];
    s->arity = core_primops[i].arity;
    const CoreType *t = core->primop_types[i];
    if (!t || s->arity > 8) continue;
    while (t && t->kind == CT_FORALL)
      t = t->body;
    int n = 0;
    for (; t && t->kind == CT_FUN && n < s->arity; n++, t = t->res)
      s->args[n] = stg_type_rep(t->arg);
    if (!t || n != s->arity) continue;
    s->result = stg_type_rep(t);
    s->known = true;
  }
  /* the two the conversion itself uses for Integer literals */
  StgPrimSig lit = {true, 1, {STG_I}, STG_P};
  if (!p->prim_sigs[P_INTEGER_FROM_INT].known) p->prim_sigs[P_INTEGER_FROM_INT] = lit;
  if (!p->prim_sigs[P_INTEGER_FROM_DEC].known) p->prim_sigs[P_INTEGER_FROM_DEC] = lit;
}

StgProgram *stg_from_core(const CoreProgram *core) {
  Conv cv = {0};
  Conv *c = &cv;
  c->core = core;
  c->p = LZ_NEW(StgProgram);
  for (int i = 0; i < core->tycons.len; i++)
    LZ_PUSH(c->p->tycons, core->tycons.data[i]);
  prim_sigs(c->p, core);
  /* global names shared by several bindings (instance methods, e.g. $c== of each Eq
   * instance) get their unique appended, so every global has its own symbol */
  StgMap names = {0}, shared = {0};
  for (int g = 0; g < core->groups.len; g++)
    for (int i = 0; i < core->groups.data[g].nbinds; i++) {
      CoreVar *v = core->groups.data[g].binds[i].var;
      if (!v) continue;
      Sym key = lz_sym(lz_fmt("%s.%s", v->module ? v->module : "", v->name));
      if (!stg_set_add(&names, (uint64_t)(uintptr_t)key))
        stg_set_add(&shared, (uint64_t)(uintptr_t)key);
    }
  /* every global is in scope everywhere (the code generator's statics) */
  for (int g = 0; g < core->groups.len; g++) {
    CoreBindGroup *grp = &core->groups.data[g];
    for (int i = 0; i < grp->nbinds; i++) {
      CoreVar *v = grp->binds[i].var;
      if (!v) continue;
      if (stg_type_rep(v->type) == STG_P) {
        StgVar *sv = stg_conv_bind_var(c, v);
        Sym key = lz_sym(lz_fmt("%s.%s", v->module ? v->module : "", v->name));
        if (stg_map_get(&shared, (uint64_t)(uintptr_t)key))
          sv->name = lz_sym(lz_fmt("%s$%d", v->name, v->uniq));
        continue;
      }
      /* an unlifted literal (or realWorld#): substituted at every use */
      CoreExpr *x = stg_conv_erase(grp->binds[i].rhs);
      StgAtom a;
      if (x && (x->kind == CE_LIT || x->kind == CE_PRIMOP) && stg_conv_trivial_atom(c, x, &a) &&
          a.kind == SA_LIT)
        stg_conv_alias(c, v, a);
      else
        stg_conv_fail(c, v->span, "top-level binding of unlifted type is not supported: ‘",
                      v->name);
    }
  }
  StgMap aliases = {0};
  resolve_aliases(c, core, &aliases);
  for (int g = 0; g < core->groups.len && !c->failed; g++) {
    CoreBindGroup *grp = &core->groups.data[g];
    for (int i = 0; i < grp->nbinds && !c->failed; i++) {
      CoreVar *cvar = grp->binds[i].var;
      if (!cvar || stg_type_rep(cvar->type) != STG_P ||
          stg_map_get(&aliases, stg_conv_key(cvar->uniq)))
        continue;
      StgAtom *a = stg_map_get(&c->env, stg_conv_key(cvar->uniq));
      StgVar *v = a->var;
      c->top = v;
      StgRhs *r = stg_conv_rhs(c, v, grp->binds[i].rhs, NULL, MODE_TOP);
      LZ_PUSH(c->p->binds, ((StgBind){v, r}));
    }
  }
  if (core->main) {
    StgAtom *a = stg_map_get(&c->env, stg_conv_key(core->main->uniq));
    c->p->main = a && a->kind == SA_VAR ? a->var : NULL;
  }
  if (c->failed) return NULL;
  stg_analyse_program(c->p);
  return c->p;
}
