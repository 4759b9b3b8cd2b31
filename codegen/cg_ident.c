/* cg_ident.c — identities of library definitions, by which they are found in the
 * precompiled base (Note [Precompiled base] in docs/notes/backend.md).
 *
 * A definition's identity is a hash of its code and, transitively, of the code of every
 * definition it refers to (a Merkle hash over the reference graph), in which names do not
 * count: a reference to another library definition is that definition's identity, one to
 * anything else (the runtime's functions, Main's definitions) its name, and a private
 * constant (a string) its contents, without uniques. So two programs give a library binding
 * the same identity exactly when its code and all the code it can reach are the same, whatever
 * else the programs contain and however the uniques fell.
 *
 * Recursion: the hashes of a strongly connected component's definitions are refined with
 * their neighbours' (colour refinement over the ordered references) until the partition they
 * make is stable; the component's hash is then that of the set of member hashes, and a
 * member's identity combines it with the member's own. Members left with equal hashes are
 * bisimilar (their code unfolds to the same tree), so either may stand for the other. A
 * component that does not settle in 64 rounds, and every definition that reaches one, has
 * no identity (it is never taken from the base).
 */
#include <stdlib.h>
#include <string.h>

#include "cg_priv.h"
#include "cg_split.h"

typedef struct Def {
  uint64_t a, b; /* the hash of its own code (references to definitions left out) */
  LZ_VEC(int) refs;
  int index, low; /* Tarjan's */
  bool on_stack;
  CgIdent id;
} Def;

typedef struct Hasher {
  CgMap index; /* definition -> position + 1 */
  Def *defs;
  Def *cur;     /* whose code is being hashed */
  CgMap locals; /* argument, block, instruction -> number in its function (from 1) */
  CgMap types;  /* type -> hash */
  int depth;
} Hasher;

static void feed(Def *d, uint64_t x) {
  d->a = (d->a ^ x) * 0x100000001b3ULL;
  d->b = (d->b ^ x) * 0x9e3779b97f4a7c15ULL;
  d->b ^= d->b >> 29;
}

static uint64_t str_hash(const char *s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  return h ^ n;
}

static uint64_t type_hash(Hasher *H, LLVMTypeRef t) {
  uint64_t h = (uint64_t)(uintptr_t)cg_map_get(&H->types, t);
  if (h) return h;
  LLVMTypeKind k = LLVMGetTypeKind(t);
  h = 0x9e3779b9 + (uint64_t)k;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 0x100000001b3ULL)
  switch (k) {
  case LLVMIntegerTypeKind: MIX(LLVMGetIntTypeWidth(t)); break;
  case LLVMPointerTypeKind:
    MIX(LLVMGetPointerAddressSpace(t));
    MIX(type_hash(H, LLVMGetElementType(t)));
    break;
  case LLVMArrayTypeKind:
    MIX(LLVMGetArrayLength(t));
    MIX(type_hash(H, LLVMGetElementType(t)));
    break;
  case LLVMVectorTypeKind:
    MIX(LLVMGetVectorSize(t));
    MIX(type_hash(H, LLVMGetElementType(t)));
    break;
  case LLVMStructTypeKind: {
    const char *name = LLVMGetStructName(t); /* (named ones by name: they may be recursive) */
    if (name) {
      MIX(str_hash(name, strlen(name)));
    } else {
      unsigned n = LLVMCountStructElementTypes(t);
      for (unsigned i = 0; i < n; i++)
        MIX(type_hash(H, LLVMStructGetTypeAtIndex(t, i)));
      MIX(LLVMIsPackedStruct(t));
    }
    break;
  }
  case LLVMFunctionTypeKind: {
    MIX(type_hash(H, LLVMGetReturnType(t)));
    unsigned n = LLVMCountParamTypes(t);
    LLVMTypeRef *ps = malloc((n ? n : 1) * sizeof *ps);
    if (!ps) abort();
    LLVMGetParamTypes(t, ps);
    for (unsigned i = 0; i < n; i++)
      MIX(type_hash(H, ps[i]));
    free(ps);
    MIX(LLVMIsFunctionVarArg(t));
    break;
  }
  default: break;
  }
#undef MIX
  if (!h) h = 1;
  cg_map_put(&H->types, t, (void *)(uintptr_t)h);
  return h;
}

static void hash_value(Hasher *H, LLVMValueRef v);

static void hash_global(Hasher *H, LLVMValueRef g) {
  Def *d = H->cur;
  intptr_t k = (intptr_t)cg_map_get(&H->index, g);
  if (k) { /* another definition: its identity, later */
    feed(d, 0x726566);
    LZ_PUSH(d->refs, (int)(k - 1));
  } else if (LLVMGetLinkage(g) == LLVMPrivateLinkage && LLVMIsAGlobalVariable(g) &&
             LLVMGetInitializer(g) && H->depth < 16) { /* a private constant: its contents */
    feed(d, 0x707276);
    LLVMValueRef init = LLVMGetInitializer(g);
    if (!(LLVMIsAConstantDataSequential(init) && LLVMIsConstantString(init)))
      feed(d, type_hash(H, LLVMGlobalGetValueType(g))); /* (a name's length varies) */
    H->depth++;
    hash_value(H, init);
    H->depth--;
  } else { /* the runtime's, Main's, a helper: by name */
    size_t n;
    const char *s = LLVMGetValueName2(g, &n);
    char *c = cg_strip_uniques(s, n);
    feed(d, 0x6e616d);
    feed(d, str_hash(c, strlen(c)));
    feed(d, str_hash(s, n)); /* (uniques and all: the same Main is another program) */
    free(c);
  }
}

static void hash_value(Hasher *H, LLVMValueRef v) {
  Def *d = H->cur;
  if (!v) {
    feed(d, 1);
    return;
  }
  intptr_t k = (intptr_t)cg_map_get(&H->locals, v);
  if (k) {
    feed(d, 2);
    feed(d, (uint64_t)k);
    return;
  }
  if (LLVMIsAGlobalValue(v)) {
    hash_global(H, v);
    return;
  }
  if (!LLVMIsAConstant(v)) {
    feed(d, 3); /* (metadata, inline assembly: not made by this compiler) */
    return;
  }
  bool str = LLVMIsAConstantDataSequential(v) && LLVMIsConstantString(v);
  if (!str) feed(d, type_hash(H, LLVMTypeOf(v))); /* (a name's length varies with uniques) */
  if (LLVMIsAConstantExpr(v) || LLVMIsAConstantStruct(v) || LLVMIsAConstantArray(v) ||
      LLVMIsAConstantVector(v)) {
    int n = LLVMGetNumOperands(v);
    feed(d, LLVMIsAConstantExpr(v) ? 0x100 + (uint64_t)LLVMGetConstOpcode(v) : 4);
    feed(d, (uint64_t)n);
    for (int i = 0; i < n; i++)
      hash_value(H, LLVMGetOperand(v, (unsigned)i));
  } else if (LLVMIsAConstantInt(v)) {
    feed(d, 5);
    feed(d, LLVMConstIntGetZExtValue(v)); /* (the compiler makes no integers over 64 bits) */
  } else if (LLVMIsAConstantFP(v)) {
    LLVMBool lost;
    double x = LLVMConstRealGetDouble(v, &lost);
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    feed(d, 6);
    feed(d, bits);
  } else if (LLVMIsAConstantDataSequential(v)) {
    if (LLVMIsConstantString(v)) { /* (info tables' names carry uniques) */
      size_t n;
      const char *s = LLVMGetAsString(v, &n);
      char *c = cg_strip_uniques(s, n);
      feed(d, 7);
      feed(d, str_hash(c, strlen(c)));
      free(c);
    } else {
      LLVMTypeRef t = LLVMTypeOf(v);
      unsigned n =
          LLVMGetTypeKind(t) == LLVMArrayTypeKind ? LLVMGetArrayLength(t) : LLVMGetVectorSize(t);
      feed(d, 8);
      for (unsigned i = 0; i < n; i++)
        hash_value(H, LLVMGetElementAsConstant(v, i));
    }
  } else {
    feed(d, 0x200 + (uint64_t)LLVMGetValueKind(v)); /* null, undef, zeroinitializer, ... */
  }
}

static void hash_function(Hasher *H, LLVMValueRef f) {
  Def *d = H->cur;
  intptr_t k = 0; /* number the locals first: phis and branches refer forwards */
  unsigned np = LLVMCountParams(f);
  for (unsigned i = 0; i < np; i++)
    cg_map_put(&H->locals, LLVMGetParam(f, i), (void *)++k);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
    cg_map_put(&H->locals, LLVMBasicBlockAsValue(bb), (void *)++k);
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
      cg_map_put(&H->locals, in, (void *)++k);
  }
  feed(d, 0x66756e);
  feed(d, type_hash(H, LLVMGlobalGetValueType(f)));
  feed(d, LLVMGetFunctionCallConv(f));
  feed(d, (uint64_t)k);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(in);
      int n = LLVMGetNumOperands(in);
      feed(d, 0x10000 + (uint64_t)op);
      feed(d, type_hash(H, LLVMTypeOf(in)));
      feed(d, (uint64_t)n);
      switch (op) {
      case LLVMICmp: feed(d, LLVMGetICmpPredicate(in)); break;
      case LLVMFCmp: feed(d, LLVMGetFCmpPredicate(in)); break;
      case LLVMCall:
        feed(d, LLVMGetInstructionCallConv(in));
        feed(d, (uint64_t)LLVMIsTailCall(in));
        break;
      case LLVMAlloca:
        feed(d, type_hash(H, LLVMGetAllocatedType(in)));
        feed(d, LLVMGetAlignment(in));
        break;
      case LLVMLoad:
      case LLVMStore:
        feed(d, LLVMGetAlignment(in));
        feed(d, (uint64_t)LLVMGetVolatile(in));
        break;
      case LLVMGetElementPtr: feed(d, (uint64_t)LLVMIsInBounds(in)); break;
      case LLVMPHI: {
        unsigned ni = LLVMCountIncoming(in);
        for (unsigned i = 0; i < ni; i++)
          hash_value(H, LLVMBasicBlockAsValue(LLVMGetIncomingBlock(in, i)));
        break;
      }
      default: break;
      }
      for (int o = 0; o < n; o++)
        hash_value(H, LLVMGetOperand(in, (unsigned)o));
    }
}

/* ---- the reference graph's components, callees first (Tarjan's, without recursion) ------- */

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

static uint64_t mix(uint64_t h, uint64_t x) {
  h = (h ^ x) * 0xff51afd7ed558ccdULL;
  return h ^ (h >> 32);
}

/* Identities of the component scc[0..n): refines the members' hashes until all differ
 * (Note at the top); their callees' identities are known. */
static void component(Def *defs, const int *scc, int n) {
  bool ok = true;
  uint64_t *cls = malloc(2 * (size_t)n * sizeof *cls), *tmp = cls + n;
  if (!cls) abort();
  for (int i = 0; i < n; i++) {
    Def *d = &defs[scc[i]];
    cls[i] = d->a;
    d->on_stack = true; /* (marks the members: cleared below) */
    d->low = i;
  }
  for (int i = 0; i < n; i++) {
    Def *d = &defs[scc[i]];
    for (int r = 0; r < d->refs.len; r++) {
      Def *e = &defs[d->refs.data[r]];
      if (!e->on_stack && !e->id.ok) ok = false; /* reaches one without identity */
    }
  }
  /* (one pass adds the callees outside: they are done) */
  int distinct = 0;
  bool stable = false;
  for (int round = 0; ok && round < 64; round++) {
    for (int i = 0; i < n; i++) {
      Def *d = &defs[scc[i]];
      uint64_t h = mix(d->b, cls[i]);
      for (int r = 0; r < d->refs.len; r++) {
        Def *e = &defs[d->refs.data[r]];
        h = mix(h, e->on_stack ? cls[e->low] : e->id.a);
      }
      tmp[i] = h;
    }
    memcpy(cls, tmp, (size_t)n * sizeof *cls);
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_u64);
    int k = 1;
    for (int i = 1; i < n; i++)
      k += tmp[i] != tmp[i - 1];
    if (k == n || (round > 0 && k == distinct)) {
      stable = true;
      break;
    }
    distinct = k;
  }
  ok = ok && stable;
  uint64_t all_a = 0x736363, all_b = 0x5eed;
  for (int i = 0; ok && i < n; i++) { /* (tmp: the sorted member hashes, each once) */
    if (i > 0 && tmp[i] == tmp[i - 1]) continue;
    all_a = mix(all_a, tmp[i]);
    all_b = mix(all_b ^ 0x9e3779b97f4a7c15ULL, tmp[i]);
  }
  for (int i = 0; i < n; i++) {
    Def *d = &defs[scc[i]];
    d->on_stack = false;
    d->id.ok = ok;
    d->id.a = ok ? mix(all_a, cls[i]) : 0;
    d->id.b = ok ? mix(mix(all_b, cls[i]), d->b) : 0;
  }
  free(cls);
}

static void components(Def *defs, int n) {
  LZ_VEC(int) stack = {0}, scc = {0};
  typedef struct {
    int v, next;
  } Frame;
  LZ_VEC(Frame) call = {0};
  int counter = 0;
  for (int i = 0; i < n; i++)
    defs[i].index = -1;
  for (int root = 0; root < n; root++) {
    if (defs[root].index >= 0) continue;
    LZ_PUSH(call, ((Frame){root, 0}));
    defs[root].index = defs[root].low = counter++;
    LZ_PUSH(stack, root);
    defs[root].on_stack = true;
    while (call.len) {
      Frame *fr = &call.data[call.len - 1];
      Def *d = &defs[fr->v];
      if (fr->next < d->refs.len) {
        int w = d->refs.data[fr->next++];
        if (defs[w].index < 0) {
          defs[w].index = defs[w].low = counter++;
          LZ_PUSH(stack, w);
          defs[w].on_stack = true;
          LZ_PUSH(call, ((Frame){w, 0}));
        } else if (defs[w].on_stack && defs[w].index < d->low) {
          d->low = defs[w].index;
        }
        continue;
      }
      int v = fr->v;
      call.len--;
      if (call.len) {
        Def *parent = &defs[call.data[call.len - 1].v];
        if (d->low < parent->low) parent->low = d->low;
      }
      if (d->low == d->index) {
        scc.len = 0;
        int w;
        do {
          w = stack.data[--stack.len];
          defs[w].on_stack = false;
          LZ_PUSH(scc, w);
        } while (w != v);
        component(defs, scc.data, scc.len);
      }
    }
  }
}

void cg_identities(LLVMValueRef *vals, int n, CgIdent *out) {
  Hasher H = {0};
  H.defs = calloc((size_t)n + 1, sizeof *H.defs);
  if (!H.defs) abort();
  for (int i = 0; i < n; i++)
    cg_map_put(&H.index, vals[i], (void *)(intptr_t)(i + 1));
  for (int i = 0; i < n; i++) {
    Def *d = H.cur = &H.defs[i];
    d->a = 0xcbf29ce484222325ULL;
    d->b = 0x6a09e667f3bcc908ULL;
    LLVMValueRef v = vals[i];
    if (LLVMIsAFunction(v)) {
      hash_function(&H, v);
    } else {
      feed(d, 0x676c62);
      feed(d, type_hash(&H, LLVMGlobalGetValueType(v)));
      feed(d, (uint64_t)LLVMIsGlobalConstant(v) * 2 + (uint64_t)LLVMIsThreadLocal(v));
      feed(d, LLVMGetAlignment(v));
      hash_value(&H, LLVMGetInitializer(v));
    }
    size_t len; /* (a definition's own name, without uniques, counts too) */
    const char *name = LLVMGetValueName2(v, &len);
    char *c = cg_strip_uniques(name, len);
    feed(d, str_hash(c, strlen(c)));
    free(c);
  }
  components(H.defs, n);
  for (int i = 0; i < n; i++)
    out[i] = H.defs[i].id;
  free(H.defs);
}
