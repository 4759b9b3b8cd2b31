/* cg_module.c — the LLVM module of a program: its types, the declarations of the runtime's
 * entities (rts/rts.h), and the constants the code refers to: info tables, static closures of
 * nullary constructors, string literals.
 *
 * The idea: everything the generated code shares with the runtime is declared here once, with
 * the layout rts.h fixes (checked at compile time with offsetof/sizeof), so the rest of the
 * generator speaks only of "the update frame's info table" or "lz_apply_2". Constants are
 * made on first use and memoised (one info table per constructor, one global per distinct
 * string literal), which keeps the module small and deterministic.
 */
#include <stdarg.h>
#include <string.h>

#include "cg_priv.h"

_Static_assert(offsetof(LzInfo, type) == 8 && offsetof(LzInfo, arity) == 10 &&
                   offsetof(LzInfo, tag) == 12 && offsetof(LzInfo, size) == 16 &&
                   offsetof(LzInfo, srcloc) == 20 && offsetof(LzInfo, name) == 24 &&
                   sizeof(LzInfo) == 32,
               "LzInfo layout differs from the LLVM struct the code generator emits");
_Static_assert(sizeof(LzWord) == 8, "the code generator assumes 64-bit words");

/* ---- pointer map ---------------------------------------------------------------------- */

static uint64_t hash_ptr(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

void *cg_map_get(const CgMap *m, const void *key) {
  if (!m->cap) return NULL;
  for (uint64_t i = hash_ptr(key) & (uint64_t)(m->cap - 1);; i = (i + 1) & (uint64_t)(m->cap - 1)) {
    if (m->keys[i] == key) return m->vals[i];
    if (!m->keys[i]) return NULL;
  }
}

void cg_map_put(CgMap *m, const void *key, void *val) {
  if ((m->len + 1) * 2 > m->cap) {
    CgMap n = {0};
    n.cap = m->cap ? m->cap * 2 : 64;
    n.keys = LZ_NEW_ARRAY(const void *, n.cap);
    n.vals = LZ_NEW_ARRAY(void *, n.cap);
    for (int i = 0; i < m->cap; i++)
      if (m->keys[i]) cg_map_put(&n, m->keys[i], m->vals[i]);
    *m = n;
  }
  for (uint64_t i = hash_ptr(key) & (uint64_t)(m->cap - 1);; i = (i + 1) & (uint64_t)(m->cap - 1)) {
    if (m->keys[i] == key) {
      m->vals[i] = val;
      return;
    }
    if (!m->keys[i]) {
      m->keys[i] = key;
      m->vals[i] = val;
      m->len++;
      return;
    }
  }
}

/* ---- errors and names ------------------------------------------------------------------ */

void cg_error(Cg *cg, LzSpan at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = lz_vfmt(fmt, ap);
  va_end(ap);
  lz_error(at, "%s", msg);
  cg->nerrors++;
}

char *cg_var_label(const StgVar *v) {
  if (v->global) return v->module ? lz_fmt("%s.%s", v->module, v->name) : lz_fmt("%s", v->name);
  return lz_fmt("%s_%d", v->name, v->uniq);
}

/* ---- types and runtime declarations ------------------------------------------------------- */

static LLVMValueRef declare_code(Cg *cg, const char *name) {
  LLVMValueRef f = LLVMAddFunction(cg->mod, name, cg->t_code);
  LLVMSetLinkage(f, LLVMExternalLinkage);
  return f;
}

static LLVMValueRef declare_info(Cg *cg, const char *name) {
  LLVMValueRef g = LLVMAddGlobal(cg->mod, cg->t_info, name);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMExternalLinkage);
  return g;
}

static LLVMValueRef declare_c(Cg *cg, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                              int n) {
  LLVMTypeRef t = LLVMFunctionType(ret, params, (unsigned)n, 0);
  LLVMValueRef f = LLVMAddFunction(cg->mod, name, t);
  LLVMSetLinkage(f, LLVMExternalLinkage);
  return f;
}

void cg_init_module(Cg *cg) {
  LLVMContextRef c = cg->ctx;
  cg->t_void = LLVMVoidTypeInContext(c);
  cg->t_i1 = LLVMInt1TypeInContext(c);
  cg->t_i8 = LLVMInt8TypeInContext(c);
  cg->t_i16 = LLVMInt16TypeInContext(c);
  cg->t_i32 = LLVMInt32TypeInContext(c);
  cg->t_word = LLVMInt64TypeInContext(c);
  cg->t_double = LLVMDoubleTypeInContext(c);
  cg->t_i8p = LLVMPointerType(cg->t_i8, 0);
  cg->t_wordp = LLVMPointerType(cg->t_word, 0);
  LLVMTypeRef params[6] = {cg->t_i8p, cg->t_wordp, cg->t_word, cg->t_word, cg->t_word, cg->t_word};
  cg->t_code = LLVMFunctionType(cg->t_void, params, 6, 0);
  cg->t_codep = LLVMPointerType(cg->t_code, 0);
  LLVMTypeRef fields[7] = {cg->t_codep, cg->t_i16, cg->t_i16, cg->t_i32,
                           cg->t_i32,   cg->t_i32, cg->t_i8p};
  cg->t_info = LLVMStructCreateNamed(c, "LzInfo");
  LLVMStructSetBody(cg->t_info, fields, 7, 0);
  cg->t_infop = LLVMPointerType(cg->t_info, 0);

  /* runtime code (LzCode) */
  cg->rt_apply[1] = declare_code(cg, "lz_apply_1");
  cg->rt_apply[2] = declare_code(cg, "lz_apply_2");
  cg->rt_apply[3] = declare_code(cg, "lz_apply_3");
  cg->rt_eval = declare_code(cg, "lz_eval");
  cg->rt_con_entry = declare_code(cg, "lz_con_entry");
  cg->rt_yield_enter = declare_code(cg, "lz_yield_enter");
  cg->rt_yield_return = declare_code(cg, "lz_yield_return");
  /* runtime C functions */
  LLVMTypeRef p3[3] = {cg->t_i8p, cg->t_wordp, cg->t_word};
  cg->rt_alloc_slow = declare_c(cg, "lz_alloc_slow", cg->t_i8p, p3, 3);
  cg->rt_yield_check = declare_c(cg, "lz_yield_check", cg->t_i32, p3, 1);
  unsigned align = LLVMGetEnumAttributeKindForName("align", 5);
  unsigned nonnull = LLVMGetEnumAttributeKindForName("nonnull", 7);
  LLVMAddAttributeAtIndex(cg->rt_alloc_slow, LLVMAttributeReturnIndex,
                          LLVMCreateEnumAttribute(cg->ctx, align, 16));
  LLVMAddAttributeAtIndex(cg->rt_alloc_slow, LLVMAttributeReturnIndex,
                          LLVMCreateEnumAttribute(cg->ctx, nonnull, 0));
  cg->rt_stack_grow = declare_c(cg, "lz_stack_grow", cg->t_wordp, p3, 3);
  /* info tables */
  cg->rt_update_frame_info = declare_info(cg, "lz_update_frame_info");
  cg->rt_blackhole_info = declare_info(cg, "lz_blackhole_info");
  cg->rt_ap_frame_info[1] = declare_info(cg, "lz_ap1_frame_info");
  cg->rt_ap_frame_info[2] = declare_info(cg, "lz_ap2_frame_info");
  cg->rt_ap_frame_info[3] = declare_info(cg, "lz_ap3_frame_info");
  cg->rt_pap_info = declare_info(cg, "lz_pap_info");
  cg->rt_integer_small_info = declare_info(cg, "lz_integer_small_info");
  cg->rt_ind_info = declare_info(cg, "lz_ind_info");
}

/* ---- constants --------------------------------------------------------------------------- */

LLVMValueRef cg_word(Cg *cg, int64_t v) {
  return LLVMConstInt(cg->t_word, (unsigned long long)v, 1);
}
LLVMValueRef cg_i32(Cg *cg, int64_t v) { return LLVMConstInt(cg->t_i32, (unsigned long long)v, 1); }

LLVMValueRef cg_const_ptr_word(Cg *cg, LLVMValueRef global, int tag) {
  LLVMValueRef p = LLVMConstBitCast(global, cg->t_i8p);
  if (tag) {
    LLVMValueRef idx = cg_word(cg, tag);
    p = LLVMConstInBoundsGEP2(cg->t_i8, p, &idx, 1);
  }
  return LLVMConstPtrToInt(p, cg->t_word);
}

static LLVMValueRef const_cstring(Cg *cg, const char *s) {
  if (!s) return LLVMConstNull(cg->t_i8p);
  LLVMValueRef g = cg_string_global(cg, s, strlen(s));
  return LLVMConstBitCast(g, cg->t_i8p);
}

LLVMValueRef cg_info_table(Cg *cg, const char *name, LLVMValueRef entry, int type, int arity,
                           int tag, int size, const char *label, LzSpan span) {
  LLVMValueRef g = LLVMAddGlobal(cg->mod, cg->t_info, name);
  LLVMValueRef f[7] = {
      entry ? LLVMConstBitCast(entry, cg->t_codep) : LLVMConstNull(cg->t_codep),
      LLVMConstInt(cg->t_i16, (unsigned)type, 0),
      LLVMConstInt(cg->t_i16, (unsigned)arity, 0),
      LLVMConstInt(cg->t_i32, (unsigned)tag, 0),
      LLVMConstInt(cg->t_i32, (unsigned)size, 0),
      LLVMConstInt(cg->t_i32, cg_srcloc_index(cg, span), 0),
      const_cstring(cg, label),
  };
  LLVMSetInitializer(g, LLVMConstNamedStruct(cg->t_info, f, 7));
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMInternalLinkage); /* internal, not private: named in debuggers */
  LLVMSetAlignment(g, 8);
  return g;
}

int cg_con_ptr_tag(const CoreDataCon *c) { return c->tag < 6 ? c->tag + 1 : 7; }

LLVMValueRef cg_con_info(Cg *cg, CoreDataCon *c) {
  LLVMValueRef g = cg_map_get(&cg->con_infos, c);
  if (g) return g;
  const char *mod = c->tycon && c->tycon->module ? c->tycon->module : NULL;
  const char *label = mod ? lz_fmt("%s.%s", mod, c->name) : c->name;
  g = cg_info_table(cg, lz_fmt("%s_con_info", label), cg->rt_con_entry, LZ_CON, 0, c->tag, c->arity,
                    c->name, (LzSpan){0});
  cg_map_put(&cg->con_infos, c, g);
  return g;
}

LLVMValueRef cg_nullary_closure(Cg *cg, CoreDataCon *c) {
  LLVMValueRef g = cg_map_get(&cg->nullary, c);
  if (g) return g;
  LLVMTypeRef t = LLVMArrayType(cg->t_word, 1);
  g = LLVMAddGlobal(cg->mod, t, lz_fmt("%s_closure", c->name));
  LLVMValueRef w = cg_const_ptr_word(cg, cg_con_info(cg, c), 0);
  LLVMSetInitializer(g, LLVMConstArray(cg->t_word, &w, 1));
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetAlignment(g, 8);
  cg_map_put(&cg->nullary, c, g);
  return g;
}

/* String literals: NUL-terminated bytes; a literal never contains a NUL byte (NUL
 * characters are encoded C0 80), so the interned symbol of the bytes is a faithful key. */
LLVMValueRef cg_string_global(Cg *cg, const char *bytes, size_t len) {
  Sym key = lz_symn(bytes, len);
  LLVMValueRef g = cg_map_get(&cg->strings, key);
  if (g) return g;
  LLVMValueRef init = LLVMConstStringInContext(cg->ctx, bytes, (unsigned)len, 0);
  g = LLVMAddGlobal(cg->mod, LLVMTypeOf(init), "str");
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  LLVMSetAlignment(g, 1);
  cg_map_put(&cg->strings, key, g);
  return g;
}

LLVMValueRef cg_new_code_fn(Cg *cg, const char *name) {
  LLVMValueRef f = LLVMAddFunction(cg->mod, name, cg->t_code);
  LLVMSetLinkage(f, LLVMInternalLinkage);
  unsigned kind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, kind, 0));
  return f;
}
