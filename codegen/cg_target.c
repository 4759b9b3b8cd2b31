/* cg_target.c — from an LLVM module to an object file: the host target machine, verification,
 * LLVM's optimisation pipelines, the textual dump and object emission.
 *
 * The idea: use LLVM as a library exactly as clang would for a C file of the same shape. The
 * target is the host triple with a generic CPU (binaries run on any x86-64 like GHC's), PIC
 * so the object links into the PIE that the system compiler makes by default. -O1/-O2 run
 * the new pass manager's standard pipelines ("default<O1>", "default<O2>") through
 * LLVMRunPasses; the backend gets the matching code generation level. -O0 runs no IR pass.
 * Every call between generated functions is a `tail` call in tail position with identical
 * prototypes, which the x86-64 backend turns into a jump at every level (checked by the
 * end-to-end tests: deep recursion would exhaust the C stack otherwise).
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdlib.h>
#include <string.h>

#include "cg_priv.h"

static char *take_message(char *m) {
  char *s = lz_strdup(m ? m : "");
  if (m) LLVMDisposeMessage(m);
  return s;
}

void cg_target_setup(Cg *cg) {
  static bool initialised;
  if (!initialised) {
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    initialised = true;
  }
  char *triple = LLVMGetDefaultTargetTriple();
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    cg_error(cg, (LzSpan){0}, "code generation: no LLVM target for %s: %s", triple, err ? err : "");
    LLVMDisposeMessage(err);
    LLVMDisposeMessage(triple);
    return;
  }
  LLVMCodeGenOptLevel lvl = cg->opts.opt_level <= 0   ? LLVMCodeGenLevelNone
                            : cg->opts.opt_level == 1 ? LLVMCodeGenLevelLess
                                                      : LLVMCodeGenLevelDefault;
  const char *force = getenv("LZC_CODEGEN_LEVEL"); /* experiments: 0..3 */
  if (force && *force >= '0' && *force <= '3') lvl = (LLVMCodeGenOptLevel)(*force - '0');
  cg->tm = LLVMCreateTargetMachine(target, triple, "x86-64", "", lvl, LLVMRelocPIC, LLVMCodeModelDefault);
  LLVMSetTarget(cg->mod, triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(cg->tm);
  char *dls = LLVMCopyStringRepOfTargetData(dl);
  LLVMSetDataLayout(cg->mod, dls);
  LLVMDisposeMessage(dls);
  LLVMDisposeTargetData(dl);
  LLVMDisposeMessage(triple);
}

bool cg_verify(CgModule *m, char **msg) {
  char *out = NULL;
  bool bad = LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &out);
  char *s = take_message(out);
  if (msg) *msg = s;
  return !bad;
}

/* LLVM's pipeline merges returns: `tail call f(...); br label %common.ret` with
 * `common.ret: ret void`. The x86 backend still makes a jump of it at -O1/-O2 (CodeGenPrepare
 * duplicates the return), but not at -O0, and the execution model cannot afford a missed
 * tail call (the C stack would grow with every transfer). So put the `ret` back right
 * after every call of a code function (the only calls returning void): then each one is in
 * tail position however the object is generated. */
static void restore_tail_positions(CgModule *m) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(m->ctx);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m->mod); fn; fn = LLVMGetNextFunction(fn)) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      if (!term || LLVMGetInstructionOpcode(term) != LLVMBr || LLVMIsConditional(term)) continue;
      LLVMValueRef call = LLVMGetPreviousInstruction(term);
      if (!call || LLVMGetInstructionOpcode(call) != LLVMCall || !LLVMIsTailCall(call)) continue;
      /* (the pipeline may have dropped unused arguments or made it fastcc: still ours) */
      LLVMTypeRef ft = LLVMGetCalledFunctionType(call);
      if (LLVMGetTypeKind(LLVMGetReturnType(ft)) != LLVMVoidTypeKind) continue;
      LLVMValueRef first = LLVMGetFirstInstruction(LLVMGetSuccessor(term, 0));
      if (!first || LLVMGetInstructionOpcode(first) != LLVMRet) continue;
      LLVMPositionBuilderBefore(b, term);
      LLVMBuildRetVoid(b);
      LLVMInstructionEraseFromParent(term);
    }
  }
  LLVMDisposeBuilder(b);
}

/* $LZC_LLVM_PASSES overrides the pipeline (a new-pass-manager pipeline text, or "none"),
 * for experiments. */
bool cg_optimize(CgModule *m, int opt_level, char **err) {
  const char *passes = getenv("LZC_LLVM_PASSES");
  if (!passes || !*passes) {
    if (opt_level <= 0) return true;
    passes = opt_level == 1 ? "default<O1>" : "default<O2>";
  }
  if (strcmp(passes, "none") == 0) return true;
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m->mod, passes, m->cg->tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  restore_tail_positions(m);
  if (e) {
    char *s = LLVMGetErrorMessage(e);
    if (err) *err = lz_strdup(s);
    LLVMDisposeErrorMessage(s);
    return false;
  }
  return true;
}

char *cg_module_to_string(CgModule *m) { return take_message(LLVMPrintModuleToString(m->mod)); }

void cg_print_module(FILE *out, CgModule *m) {
  char *s = LLVMPrintModuleToString(m->mod);
  fputs(s, out);
  LLVMDisposeMessage(s);
}

bool cg_emit_object(CgModule *m, const char *path, char **err) {
  char *e = NULL;
  char *p = lz_strdup(path);
  if (LLVMTargetMachineEmitToFile(m->cg->tm, m->mod, p, LLVMObjectFile, &e)) {
    if (err) *err = take_message(e);
    else LLVMDisposeMessage(e);
    return false;
  }
  return true;
}
