/* cg_prim.c — primitive operations: the table of which primops of core-ir/primops.def are
 * emitted inline and how, and the C calls for the rest.
 *
 * The idea: arithmetic, comparisons and conversions on Int#, Double#, Char# and Addr# become
 * single LLVM instructions (or an intrinsic, or the very libm function GHC calls), so LLVM can
 * optimise them like C; MutVar# reads and writes are one load or store. Everything else
 * (Integer through GMP, show for Double, IO, errors) is an ordinary C call to the runtime's
 * lz_prim_<name> (rts.h: `cap` first, World# arguments dropped, Double# as `double`), whose
 * prototype is derived from the primop's parameter reps. Comparisons yield Int# 0 or 1.
 */
#include <string.h>

#include "cg_priv.h"

static LLVMValueRef get_fn(Cg *cg, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n) {
  LLVMValueRef f = LLVMGetNamedFunction(cg->mod, name);
  if (f) return f;
  f = LLVMAddFunction(cg->mod, name, LLVMFunctionType(ret, params, (unsigned)n, 0));
  LLVMSetLinkage(f, LLVMExternalLinkage);
  return f;
}

static LLVMValueRef call(Cg *cg, LLVMValueRef fn, LLVMValueRef *args, int n) {
  return LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

static LLVMValueRef to_int(Cg *cg, LLVMValueRef c) {
  return LLVMBuildZExt(cg->b, c, cg->t_word, "");
}

static LLVMValueRef as_double(CgFn *f, LLVMValueRef v) {
  return LLVMTypeOf(v) == f->cg->t_double ? v : LLVMBuildBitCast(f->cg->b, v, f->cg->t_double, "");
}
static LLVMValueRef as_word(CgFn *f, LLVMValueRef v) { return cg_to_word(f, v); }

/* libm function of one or two doubles */
static LLVMValueRef libm(CgFn *f, const char *name, LLVMValueRef a, LLVMValueRef b) {
  Cg *cg = f->cg;
  LLVMTypeRef ps[2] = {cg->t_double, cg->t_double};
  LLVMValueRef fn = get_fn(cg, name, cg->t_double, ps, b ? 2 : 1);
  LLVMValueRef args[2] = {as_double(f, a), b ? as_double(f, b) : NULL};
  return call(cg, fn, args, b ? 2 : 1);
}

static LLVMValueRef intrinsic1(CgFn *f, const char *name, LLVMTypeRef t, LLVMValueRef a,
                               LLVMValueRef extra) {
  Cg *cg = f->cg;
  LLVMTypeRef ps[2] = {t, cg->t_i1};
  LLVMValueRef fn = get_fn(cg, name, t, ps, extra ? 2 : 1);
  LLVMValueRef args[2] = {a, extra};
  return call(cg, fn, args, extra ? 2 : 1);
}

/* A C call to lz_prim_<name without trailing #>(cap, args... minus World#). */
static LLVMValueRef c_call(CgFn *f, StgExpr *e) {
  Cg *cg = f->cg;
  int op = e->primop;
  const CorePrimInfo *pi = &core_primops[op];
  const char *name = pi->name;
  size_t len = strlen(name);
  while (len > 0 && name[len - 1] == '#')
    len--;
  const char *cname = lz_fmt("lz_prim_%.*s", (int)len, name);
  int n = e->nargs;
  if (pi->flags & PRIM_EFFECT) n--; /* the World# argument (always last) */
  if (n < 0) n = 0;
  LLVMTypeRef ps[10];
  LLVMValueRef args[10];
  ps[0] = cg->t_i8p;
  args[0] = f->cap;
  const StgPrimSig *sig = &cg->prog->prim_sigs[op];
  for (int i = 0; i < n && i < 8; i++) {
    StgRep r = sig->known ? sig->args[i] : stg_atom_rep(&e->args[i]);
    LLVMValueRef v = cg_atom(f, &e->args[i]);
    ps[1 + i] = r == STG_D ? cg->t_double : cg->t_word;
    args[1 + i] = r == STG_D ? as_double(f, v) : as_word(f, v);
  }
  StgRep rr = sig->known ? sig->result : e->rep;
  LLVMTypeRef rt = rr == STG_D ? cg->t_double : cg->t_word;
  LLVMValueRef fn = get_fn(cg, cname, rt, ps, 1 + n);
  LLVMValueRef r = call(cg, fn, args, 1 + n);
  if (op == P_RAISE_ERROR || op == P_EXIT) {
    LLVMBuildUnreachable(cg->b);
    cg_dead_block(f);
  }
  return r;
}

/* ---- Integer fast paths ---------------------------------------------------------------------
 * A small Integer is {&lz_integer_small_info, int64} tagged 1 (rts.h), and arguments arrive
 * evaluated and tagged. When every argument is small and the result fits, arithmetic,
 * comparisons and conversions are done inline (with LLVM's overflow intrinsics); anything
 * else calls the runtime, which has GMP. Results are canonical: small whenever they fit. */

enum {
  IOP_ADD,
  IOP_SUB,
  IOP_MUL,
  IOP_QUOT,
  IOP_REM,
  IOP_DIV,
  IOP_MOD,
  IOP_CMP,
  IOP_EQ,
  IOP_NEG,
  IOP_TOINT
};

static LLVMValueRef is_small(CgFn *f, LLVMValueRef p) {
  Cg *cg = f->cg;
  LLVMValueRef info = cg_load(f, p, -1);
  return LLVMBuildICmp(cg->b, LLVMIntEQ, info, cg_const_ptr_word(cg, cg->rt_integer_small_info, 0),
                       "");
}

static LLVMValueRef small_integer(CgFn *f, LLVMValueRef v) {
  Cg *cg = f->cg;
  LLVMValueRef p = cg_alloc(f, 2);
  cg_store(f, p, 0, cg_const_ptr_word(cg, cg->rt_integer_small_info, 0));
  cg_store(f, p, 8, v);
  cg_count_alloc(f, LZ_GRANULE_BYTES);
  return LLVMBuildOr(cg->b, p, cg_word(cg, 1), "integer");
}

static LLVMValueRef overflow_op(CgFn *f, const char *name, LLVMValueRef a, LLVMValueRef b,
                                LLVMValueRef *ovf) {
  Cg *cg = f->cg;
  LLVMTypeRef fields[2] = {cg->t_word, cg->t_i1};
  LLVMTypeRef rt = LLVMStructTypeInContext(cg->ctx, fields, 2, 0);
  LLVMTypeRef ps[2] = {cg->t_word, cg->t_word};
  LLVMValueRef fn = get_fn(cg, name, rt, ps, 2);
  LLVMValueRef args[2] = {a, b};
  LLVMValueRef r = call(cg, fn, args, 2);
  *ovf = LLVMBuildExtractValue(cg->b, r, 1, "");
  return LLVMBuildExtractValue(cg->b, r, 0, "");
}

static LLVMValueRef integer_op(CgFn *f, StgExpr *e, int op) {
  Cg *cg = f->cg;
  LLVMBuilderRef b = cg->b;
  int n = op == IOP_NEG || op == IOP_TOINT ? 1 : 2;
  LLVMValueRef a = cg_atom(f, &e->args[0]), c = n > 1 ? cg_atom(f, &e->args[1]) : NULL;
  LLVMValueRef ok = is_small(f, a);
  if (n > 1) ok = LLVMBuildAnd(b, ok, is_small(f, c), "");
  LLVMBasicBlockRef fast = cg_block(f, "small"), slow = cg_block(f, "big"),
                    join = cg_block(f, "integer");
  LLVMBuildCondBr(b, ok, fast, slow);
  LLVMPositionBuilderAtEnd(b, fast);
  LLVMValueRef x = cg_load(f, a, 7), y = n > 1 ? cg_load(f, c, 7) : NULL;
  LLVMValueRef r = NULL, bad = NULL; /* bad: take the slow path after all */
  bool boxed = true;
  switch (op) {
  case IOP_ADD: r = overflow_op(f, "llvm.sadd.with.overflow.i64", x, y, &bad); break;
  case IOP_SUB: r = overflow_op(f, "llvm.ssub.with.overflow.i64", x, y, &bad); break;
  case IOP_MUL: r = overflow_op(f, "llvm.smul.with.overflow.i64", x, y, &bad); break;
  case IOP_NEG:
    bad = LLVMBuildICmp(b, LLVMIntEQ, x, cg_word(cg, INT64_MIN), "");
    r = LLVMBuildSub(b, cg_word(cg, 0), x, "");
    break;
  case IOP_QUOT:
  case IOP_REM:
  case IOP_DIV:
  case IOP_MOD: {
    /* the divisor is nonzero (checked in Lz); minBound / -1 overflows: slow path */
    LLVMValueRef m1 = LLVMBuildICmp(b, LLVMIntEQ, y, cg_word(cg, -1), "");
    LLVMValueRef mn = LLVMBuildICmp(b, LLVMIntEQ, x, cg_word(cg, INT64_MIN), "");
    bad = LLVMBuildAnd(b, m1, mn, "");
    LLVMValueRef safe_y = LLVMBuildSelect(b, bad, cg_word(cg, 1), y, "");
    LLVMValueRef q = LLVMBuildSDiv(b, x, safe_y, ""), rm = LLVMBuildSRem(b, x, safe_y, "");
    if (op == IOP_QUOT)
      r = q;
    else if (op == IOP_REM)
      r = rm;
    else {
      /* floor: adjust when the remainder is nonzero and its sign differs from the divisor's */
      LLVMValueRef nz = LLVMBuildICmp(b, LLVMIntNE, rm, cg_word(cg, 0), "");
      LLVMValueRef diff =
          LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildXor(b, rm, safe_y, ""), cg_word(cg, 0), "");
      LLVMValueRef adj = LLVMBuildAnd(b, nz, diff, "");
      r = op == IOP_DIV
              ? LLVMBuildSub(b, q, LLVMBuildZExt(b, adj, cg->t_word, ""), "")
              : LLVMBuildAdd(b, rm, LLVMBuildSelect(b, adj, safe_y, cg_word(cg, 0), ""), "");
    }
    break;
  }
  case IOP_CMP: {
    LLVMValueRef gt = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntSGT, x, y, ""), cg->t_word, "");
    LLVMValueRef lt = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntSLT, x, y, ""), cg->t_word, "");
    r = LLVMBuildSub(b, gt, lt, "");
    boxed = false;
    break;
  }
  case IOP_EQ:
    r = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, x, y, ""), cg->t_word, "");
    boxed = false;
    break;
  case IOP_TOINT:
    r = x;
    boxed = false;
    break;
  }
  if (bad) {
    LLVMBasicBlockRef fine = cg_block(f, "fits");
    LLVMBuildCondBr(b, bad, slow, fine);
    LLVMPositionBuilderAtEnd(b, fine);
  }
  if (boxed) r = small_integer(f, r);
  LLVMBasicBlockRef fast_end = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, slow);
  LLVMValueRef s = c_call(f, e);
  LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef phi = LLVMBuildPhi(b, cg->t_word, "");
  LLVMValueRef vals[2] = {r, s};
  LLVMBasicBlockRef blocks[2] = {fast_end, slow_end};
  LLVMAddIncoming(phi, vals, blocks, 2);
  return phi;
}

LLVMValueRef cg_primop(CgFn *f, StgExpr *e) {
  Cg *cg = f->cg;
  LLVMBuilderRef b = cg->b;
  LLVMValueRef x = e->nargs > 0 ? cg_atom(f, &e->args[0]) : NULL;
  LLVMValueRef y = e->nargs > 1 ? cg_atom(f, &e->args[1]) : NULL;
  switch ((CorePrimOp)e->primop) {
  /* Int# */
  case P_INT_ADD: return LLVMBuildAdd(b, x, y, "");
  case P_INT_SUB: return LLVMBuildSub(b, x, y, "");
  case P_INT_MUL: return LLVMBuildMul(b, x, y, "");
  case P_INT_NEGATE: return LLVMBuildSub(b, cg_word(cg, 0), x, "");
  case P_INT_QUOT: return LLVMBuildSDiv(b, x, y, "");
  case P_INT_REM: return LLVMBuildSRem(b, x, y, "");
  case P_INT_EQ: return to_int(cg, LLVMBuildICmp(b, LLVMIntEQ, x, y, ""));
  case P_INT_NE: return to_int(cg, LLVMBuildICmp(b, LLVMIntNE, x, y, ""));
  case P_INT_LT: return to_int(cg, LLVMBuildICmp(b, LLVMIntSLT, x, y, ""));
  case P_INT_LE: return to_int(cg, LLVMBuildICmp(b, LLVMIntSLE, x, y, ""));
  case P_INT_GT: return to_int(cg, LLVMBuildICmp(b, LLVMIntSGT, x, y, ""));
  case P_INT_GE: return to_int(cg, LLVMBuildICmp(b, LLVMIntSGE, x, y, ""));
  case P_INT_AND: return LLVMBuildAnd(b, x, y, "");
  case P_INT_OR: return LLVMBuildOr(b, x, y, "");
  case P_INT_XOR: return LLVMBuildXor(b, x, y, "");
  case P_INT_NOT: return LLVMBuildNot(b, x, "");
  /* counts outside 0..63 are undefined (checked in Lz); mask so LLVM sees no poison */
  case P_INT_SHL: return LLVMBuildShl(b, x, LLVMBuildAnd(b, y, cg_word(cg, 63), ""), "");
  case P_INT_SHRA: return LLVMBuildAShr(b, x, LLVMBuildAnd(b, y, cg_word(cg, 63), ""), "");
  case P_INT_SHRL: return LLVMBuildLShr(b, x, LLVMBuildAnd(b, y, cg_word(cg, 63), ""), "");
  case P_INT_POPCNT: return intrinsic1(f, "llvm.ctpop.i64", cg->t_word, x, NULL);
  case P_INT_CLZ:
    return intrinsic1(f, "llvm.ctlz.i64", cg->t_word, x, LLVMConstInt(cg->t_i1, 0, 0));
  case P_INT_CTZ:
    return intrinsic1(f, "llvm.cttz.i64", cg->t_word, x, LLVMConstInt(cg->t_i1, 0, 0));
  case P_INT_TO_DOUBLE: return LLVMBuildSIToFP(b, x, cg->t_double, "");
  /* Char# */
  case P_CHR:
  case P_ORD: return x;
  /* Double# */
  case P_DBL_ADD: return LLVMBuildFAdd(b, x, y, "");
  case P_DBL_SUB: return LLVMBuildFSub(b, x, y, "");
  case P_DBL_MUL: return LLVMBuildFMul(b, x, y, "");
  case P_DBL_DIV: return LLVMBuildFDiv(b, x, y, "");
  case P_DBL_NEGATE: return LLVMBuildFNeg(b, x, "");
  case P_DBL_FABS: return intrinsic1(f, "llvm.fabs.f64", cg->t_double, x, NULL);
  case P_DBL_EQ: return to_int(cg, LLVMBuildFCmp(b, LLVMRealOEQ, x, y, ""));
  case P_DBL_NE: return to_int(cg, LLVMBuildFCmp(b, LLVMRealUNE, x, y, ""));
  case P_DBL_LT: return to_int(cg, LLVMBuildFCmp(b, LLVMRealOLT, x, y, ""));
  case P_DBL_LE: return to_int(cg, LLVMBuildFCmp(b, LLVMRealOLE, x, y, ""));
  case P_DBL_GT: return to_int(cg, LLVMBuildFCmp(b, LLVMRealOGT, x, y, ""));
  case P_DBL_GE: return to_int(cg, LLVMBuildFCmp(b, LLVMRealOGE, x, y, ""));
  case P_DBL_TO_INT: {
    /* as cvttsd2si: out of range and NaN give minBound */
    LLVMValueRef lo =
        LLVMBuildFCmp(b, LLVMRealOGE, x, LLVMConstReal(cg->t_double, -9223372036854775808.0), "");
    LLVMValueRef hi =
        LLVMBuildFCmp(b, LLVMRealOLT, x, LLVMConstReal(cg->t_double, 9223372036854775808.0), "");
    LLVMValueRef ok = LLVMBuildAnd(b, lo, hi, "");
    LLVMValueRef safe = LLVMBuildSelect(b, ok, x, LLVMConstReal(cg->t_double, 0.0), "");
    LLVMValueRef i = LLVMBuildFPToSI(b, safe, cg->t_word, "");
    return LLVMBuildSelect(b, ok, i, cg_word(cg, INT64_MIN), "");
  }
  case P_DBL_EXP: return libm(f, "exp", x, NULL);
  case P_DBL_LOG: return libm(f, "log", x, NULL);
  case P_DBL_SQRT: return libm(f, "sqrt", x, NULL);
  case P_DBL_SIN: return libm(f, "sin", x, NULL);
  case P_DBL_COS: return libm(f, "cos", x, NULL);
  case P_DBL_TAN: return libm(f, "tan", x, NULL);
  case P_DBL_ASIN: return libm(f, "asin", x, NULL);
  case P_DBL_ACOS: return libm(f, "acos", x, NULL);
  case P_DBL_ATAN: return libm(f, "atan", x, NULL);
  case P_DBL_SINH: return libm(f, "sinh", x, NULL);
  case P_DBL_COSH: return libm(f, "cosh", x, NULL);
  case P_DBL_TANH: return libm(f, "tanh", x, NULL);
  case P_DBL_ASINH: return libm(f, "asinh", x, NULL);
  case P_DBL_ACOSH: return libm(f, "acosh", x, NULL);
  case P_DBL_ATANH: return libm(f, "atanh", x, NULL);
  case P_DBL_POW: return libm(f, "pow", x, y);
  case P_DBL_IS_NAN: return to_int(cg, LLVMBuildFCmp(b, LLVMRealUNO, x, x, ""));
  case P_DBL_IS_INF: {
    LLVMValueRef a = intrinsic1(f, "llvm.fabs.f64", cg->t_double, x, NULL);
    return to_int(
        cg, LLVMBuildFCmp(b, LLVMRealOEQ, a, LLVMConstReal(cg->t_double, __builtin_inf()), ""));
  }
  case P_DBL_IS_NEGZERO:
    return to_int(cg, LLVMBuildICmp(b, LLVMIntEQ, as_word(f, x), cg_word(cg, INT64_MIN), ""));
  /* Addr# */
  case P_ADDR_INDEX_CHAR: {
    LLVMValueRef p = LLVMBuildIntToPtr(b, x, cg->t_i8p, "");
    p = LLVMBuildGEP2(b, cg->t_i8, p, &y, 1, "");
    return LLVMBuildZExt(b, LLVMBuildLoad2(b, cg->t_i8, p, ""), cg->t_word, "");
  }
  /* MutVar#: {&lz_mutvar_info, value} */
  case P_READ_MUTVAR: return cg_load(f, x, 8);
  case P_WRITE_MUTVAR: cg_store(f, x, 8, y); return cg_word(cg, 0);
  case P_SAME_MUTVAR: return to_int(cg, LLVMBuildICmp(b, LLVMIntEQ, x, y, ""));
  case P_REALWORLD: return cg_word(cg, 0);
  case P_UNSAFE_COERCE: return x;
  /* Integer: inline when small (see above) */
  case P_INTEGER_FROM_INT: return small_integer(f, x);
  case P_INTEGER_TO_INT: return integer_op(f, e, IOP_TOINT);
  case P_INTEGER_ADD: return integer_op(f, e, IOP_ADD);
  case P_INTEGER_SUB: return integer_op(f, e, IOP_SUB);
  case P_INTEGER_MUL: return integer_op(f, e, IOP_MUL);
  case P_INTEGER_NEGATE: return integer_op(f, e, IOP_NEG);
  case P_INTEGER_QUOT: return integer_op(f, e, IOP_QUOT);
  case P_INTEGER_REM: return integer_op(f, e, IOP_REM);
  case P_INTEGER_DIV: return integer_op(f, e, IOP_DIV);
  case P_INTEGER_MOD: return integer_op(f, e, IOP_MOD);
  case P_INTEGER_COMPARE: return integer_op(f, e, IOP_CMP);
  case P_INTEGER_EQ: return integer_op(f, e, IOP_EQ);
  case P_DATA_TO_TAG: {
    /* the argument is evaluated and tagged: tag - 1, or the info table's tag for 7 */
    LLVMValueRef t = cg_ptr_tag(f, x);
    LLVMValueRef t1 = LLVMBuildSub(b, t, cg_word(cg, 1), "");
    LLVMValueRef is7 = LLVMBuildICmp(b, LLVMIntEQ, t, cg_word(cg, 7), "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef big = cg_block(f, "bigtag"), join = cg_block(f, "tagged");
    LLVMBuildCondBr(b, is7, big, join);
    LLVMPositionBuilderAtEnd(b, big);
    LLVMValueRef info = cg_load(f, cg_untag(f, x), 0);
    LLVMValueRef p = LLVMBuildIntToPtr(b, info, cg->t_i8p, "");
    LLVMValueRef idx = cg_word(cg, offsetof(LzInfo, tag));
    p = LLVMBuildInBoundsGEP2(b, cg->t_i8, p, &idx, 1, "");
    p = LLVMBuildBitCast(b, p, LLVMPointerType(cg->t_i32, 0), "");
    LLVMValueRef itag = LLVMBuildZExt(b, LLVMBuildLoad2(b, cg->t_i32, p, ""), cg->t_word, "");
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    LLVMValueRef phi = LLVMBuildPhi(b, cg->t_word, "contag");
    LLVMValueRef vals[2] = {t1, itag};
    LLVMBasicBlockRef blocks[2] = {here, big};
    LLVMAddIncoming(phi, vals, blocks, 2);
    return phi;
  }
  default: return c_call(f, e);
  }
}
