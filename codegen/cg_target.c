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

#include "cg_parts.h"
#include "cg_priv.h"

static char *take_message(char *m) {
  char *s = lz_strdup(m ? m : "");
  if (m) LLVMDisposeMessage(m);
  return s;
}

/* (No arena allocation here or in cg_run_passes: the library part is compiled on a thread of
 * its own, cg_split.c. *err is malloc'ed.) */
LLVMTargetMachineRef cg_new_target_machine(int opt_level, char **err) {
  char *triple = LLVMGetDefaultTargetTriple();
  LLVMTargetRef target;
  char *e = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &e)) {
    size_t n = strlen(triple) + (e ? strlen(e) : 0) + 32;
    *err = malloc(n);
    if (*err) snprintf(*err, n, "no LLVM target for %s: %s", triple, e ? e : "");
    LLVMDisposeMessage(e);
    LLVMDisposeMessage(triple);
    return NULL;
  }
  LLVMCodeGenOptLevel lvl = opt_level <= 0   ? LLVMCodeGenLevelNone
                            : opt_level == 1 ? LLVMCodeGenLevelLess
                                             : LLVMCodeGenLevelDefault;
  const char *force = getenv("LZC_CODEGEN_LEVEL"); /* experiments: 0..3 */
  if (force && *force >= '0' && *force <= '3') lvl = (LLVMCodeGenOptLevel)(*force - '0');
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, "x86-64", "", lvl, LLVMRelocPIC,
                                                    LLVMCodeModelDefault);
  LLVMDisposeMessage(triple);
  return tm;
}

void cg_target_setup(Cg *cg) {
  static bool initialised;
  if (!initialised) {
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    initialised = true;
  }
  char *err = NULL;
  cg->tm = cg_new_target_machine(cg->opts.opt_level, &err);
  if (!cg->tm) {
    cg_error(cg, (LzSpan){0}, "code generation: %s", err ? err : "no LLVM target");
    free(err);
    return;
  }
  char *triple = LLVMGetTargetMachineTriple(cg->tm);
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
static void restore_tail_positions(LLVMContextRef ctx, LLVMModuleRef mod) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
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
bool cg_run_passes(LLVMContextRef ctx, LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level,
                   char **err) {
  const char *passes = getenv("LZC_LLVM_PASSES");
  if (!passes || !*passes) {
    if (opt_level <= 0) return true;
    passes = opt_level == 1 ? "default<O1>" : "default<O2>";
  }
  if (strcmp(passes, "none") == 0) return true;
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(mod, passes, tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  restore_tail_positions(ctx, mod);
  if (e) {
    char *s = LLVMGetErrorMessage(e);
    *err = strdup(s);
    LLVMDisposeErrorMessage(s);
    return false;
  }
  return true;
}

bool cg_optimize(CgModule *m, int opt_level, char **err) {
  char *e = NULL;
  if (cg_run_passes(m->ctx, m->mod, m->cg->tm, opt_level, &e)) return true;
  if (err) *err = lz_strdup(e ? e : "");
  free(e);
  return false;
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
    if (err)
      *err = take_message(e);
    else
      LLVMDisposeMessage(e);
    return false;
  }
  return true;
}
