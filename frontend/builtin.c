/* builtin.c — the entities of built-in syntax (list, unit, tuples, the arrow) and the
 * table of wired-in names.
 *
 * List, unit and tuple types cannot be written as ordinary Lz declarations, so the
 * compiler makes their FeNames itself, with module NULL and top = true. To let later
 * passes treat them like any data type, each type gets a synthetic D_DATA
 * declaration (`data [] a = [] | a : [a]`, `data (,) a b = (,) a b`, `data () = ()`)
 * reachable through FeName.decl. The entities live in the arena, so they are made on
 * first use and forgotten by fe_builtin_reset (called by the renamer at the start of
 * every compilation, after which an lz_reset may have freed the old ones).
 *
 * fe_wired_info is generated from wired.def; fe_wired[] is filled by the renamer when
 * it loads the module defining each entity (see Note [Stdlib and primitives]). */
#include "passes.h"

const FeWiredInfo fe_wired_info[WIRED_COUNT] = {
    [WIRED_NONE] = {NULL, NULL, W_VALUE},
#define WIRED(id, module, occ, kind) [id] = {module, occ, kind},
#include "wired.def"
#undef WIRED
};

FeName *fe_wired[WIRED_COUNT];

#define MAX_TUPLE 62

static struct {
  FeName *list_tycon, *nil, *cons, *unit_tycon, *unit, *arrow;
  FeName *tuple_tycon[MAX_TUPLE + 1], *tuple_con[MAX_TUPLE + 1];
} B;

void fe_builtin_reset(void) {
  B.list_tycon = B.nil = B.cons = B.unit_tycon = B.unit = B.arrow = NULL;
  for (int i = 0; i <= MAX_TUPLE; i++)
    B.tuple_tycon[i] = B.tuple_con[i] = NULL;
  for (int i = 0; i < WIRED_COUNT; i++)
    fe_wired[i] = NULL;
}

static const LzSpan nowhere = {0, 0, 0, 0, 0};

static FeName *builtin_name(FeNameKind kind, const char *occ) {
  FeName *n = fe_name_new(kind, lz_sym(occ), NULL, nowhere);
  n->top = true;
  return n;
}

/* A synthetic `data T a1 .. an` with fresh type variables a1 .. an. */
static FeDecl *synthetic_data(FeName *tycon, int arity) {
  FeDecl *d = fe_decl_new(D_DATA, nowhere);
  d->name = fe_ident(NULL, tycon->occ, nowhere);
  d->name.ref = tycon;
  for (int i = 0; i < arity; i++) {
    FeIdent tv = fe_ident(NULL, lz_sym(lz_fmt("a%d", i + 1)), nowhere);
    tv.ref = fe_name_new(N_TYVAR, tv.name, NULL, nowhere);
    LZ_PUSH(d->tyvars, tv);
  }
  tycon->decl = d;
  return d;
}

static FeType *tyvar_ref(FeDecl *d, int i) {
  FeType *t = fe_type_new(TY_VAR, nowhere);
  t->id = d->tyvars.data[i];
  return t;
}

/* Add constructor `con` with fields of the given types to synthetic decl d. */
static void synthetic_con(FeDecl *d, FeName *con, FeType **types, int n, bool infix) {
  FeConDecl *cd = LZ_NEW(FeConDecl);
  cd->name = fe_ident(NULL, con->occ, nowhere);
  cd->name.ref = con;
  cd->infix = infix;
  cd->span = nowhere;
  for (int i = 0; i < n; i++) {
    FeField f = {0};
    f.type = types[i];
    LZ_PUSH(cd->fields, f);
  }
  LZ_PUSH(d->cons, cd);
  con->decl = d;
  con->parent = d->name.ref;
}

static void make_list(void) {
  B.list_tycon = builtin_name(N_TYCON, "[]");
  B.nil = builtin_name(N_CON, "[]");
  B.cons = builtin_name(N_CON, ":");
  B.cons->is_op = true;
  B.cons->has_fixity = true;
  B.cons->assoc = ASSOC_RIGHT;
  B.cons->prec = 5;
  FeDecl *d = synthetic_data(B.list_tycon, 1);
  synthetic_con(d, B.nil, NULL, 0, false);
  FeType *list_con = fe_type_new(TY_CON, nowhere);
  list_con->id = fe_ident(NULL, B.list_tycon->occ, nowhere);
  list_con->id.ref = B.list_tycon;
  FeType *list_a = fe_type_new(TY_APP, nowhere);
  list_a->left = list_con;
  list_a->right = tyvar_ref(d, 0);
  FeType *fields[2] = {tyvar_ref(d, 0), list_a};
  synthetic_con(d, B.cons, fields, 2, true);
}

FeName *fe_builtin_list_tycon(void) {
  if (!B.list_tycon) make_list();
  return B.list_tycon;
}

FeName *fe_builtin_nil(void) {
  if (!B.list_tycon) make_list();
  return B.nil;
}

FeName *fe_builtin_cons(void) {
  if (!B.list_tycon) make_list();
  return B.cons;
}

static void make_unit(void) {
  B.unit_tycon = builtin_name(N_TYCON, "()");
  B.unit = builtin_name(N_CON, "()");
  synthetic_con(synthetic_data(B.unit_tycon, 0), B.unit, NULL, 0, false);
}

FeName *fe_builtin_unit_tycon(void) {
  if (!B.unit_tycon) make_unit();
  return B.unit_tycon;
}

FeName *fe_builtin_unit(void) {
  if (!B.unit_tycon) make_unit();
  return B.unit;
}

/* "(,,)" for n = 3 */
static const char *tuple_occ(int n) {
  char buf[MAX_TUPLE + 2];
  buf[0] = '(';
  for (int i = 1; i < n; i++)
    buf[i] = ',';
  buf[n] = ')';
  buf[n + 1] = 0;
  return lz_sym(buf);
}

static void make_tuple(int n) {
  const char *occ = tuple_occ(n);
  B.tuple_tycon[n] = builtin_name(N_TYCON, occ);
  B.tuple_con[n] = builtin_name(N_CON, occ);
  FeDecl *d = synthetic_data(B.tuple_tycon[n], n);
  FeType **fields = LZ_NEW_ARRAY(FeType *, n);
  for (int i = 0; i < n; i++)
    fields[i] = tyvar_ref(d, i);
  synthetic_con(d, B.tuple_con[n], fields, n, false);
}

/* Tuples of arity 2 .. 62 (GHC's limit); NULL outside that range. */
FeName *fe_builtin_tuple_tycon(int n) {
  if (n < 2 || n > MAX_TUPLE) return NULL;
  if (!B.tuple_tycon[n]) make_tuple(n);
  return B.tuple_tycon[n];
}

FeName *fe_builtin_tuple_con(int n) {
  if (n < 2 || n > MAX_TUPLE) return NULL;
  if (!B.tuple_tycon[n]) make_tuple(n);
  return B.tuple_con[n];
}

FeName *fe_builtin_arrow(void) {
  if (!B.arrow) {
    B.arrow = builtin_name(N_TYCON, "->");
    B.arrow->is_op = true;
    B.arrow->has_fixity = true;
    B.arrow->assoc = ASSOC_RIGHT;
    B.arrow->prec = -1;
  }
  return B.arrow;
}
