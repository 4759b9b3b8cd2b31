/* cg_split.c — compiling the standard library part of a program apart from Main's code.
 *
 * The idea: nearly all of a small program's code is the standard library it reaches, and
 * after the whole-program Core optimiser that code is the same in many programs except for
 * the uniques in its names. So it goes into a module of its own with canonical names, on a
 * thread of its own (in its own LLVM context: the module travels as bitcode), whose object is
 * cached by the hash of that module (cg_cache.c); meanwhile the main thread optimises and
 * emits Main's code. Note [Compile time] in docs/notes/backend.md.
 *
 * Ownership: a defined function belongs to the library part when it has internal linkage and
 * its name does not start with "Main."; internal data belongs to the part whose code uses it
 * (the library when both do; so statics the optimiser floated out of Main's code, such as
 * `Lz.Base.I#$123_closure` holding one of Main's literals, stay with Main); private constants
 * (string literals, nullary constructors' closures) and the shared `lz_cg_` helpers are
 * copied into both parts (immutable: a second copy is harmless); everything else (Main's
 * code, external definitions such as lz_main_closure) stays with Main. All the library
 * part's definitions become external with hidden visibility, whether this Main uses them or
 * not (so its text does not depend on Main), and so do Main's functions that it uses.
 *
 * Correctness does not depend on the canonical names: the cache key is the whole library
 * module, names included, and Main's part comes from the same module, so it names exactly
 * what that module defines.
 */
#include <ctype.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_parts.h"
#include "cg_priv.h"
#include "cg_split.h"

typedef enum { OWN_MAIN, OWN_LIB, OWN_BOTH } Owner;

struct CgLibJob {
  /* in (read-only once the thread runs) */
  LLVMMemoryBufferRef bc; /* the whole module, ownership decided, library names canonical */
  Owner *owners;          /* per function, then per global, in module order (malloc) */
  int nfn, n, opt_level;
  char *dir, *salt;
  /* out */
  char *path, *err;
  bool hit, temp;
  pthread_t thread;
  bool threaded;
};

static const char *name_of(LLVMValueRef v) {
  size_t n;
  return LLVMGetValueName2(v, &n);
}

static Owner owner_by_name(LLVMValueRef v, bool is_fn) {
  const char *name = name_of(v);
  LLVMLinkage l = LLVMGetLinkage(v);
  if (l != LLVMInternalLinkage && l != LLVMPrivateLinkage) return OWN_MAIN;
  if (is_fn ? strncmp(name, "lz_cg_", 6) == 0 : l == LLVMPrivateLinkage && LLVMIsGlobalConstant(v))
    return OWN_BOTH;
  return strncmp(name, "Main.", 5) == 0 ? OWN_MAIN : OWN_LIB;
}

/* Which parts' code uses the value v (bit 1: Main, bit 2: library), through constant
 * expressions and the initializers of other globals. `seen` breaks cycles of statics. */
static int used_by(LLVMValueRef v, CgMap *seen) {
  int r = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u && r != 3; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user)) {
      Owner o = owner_by_name(LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)), true);
      r |= o == OWN_LIB ? 2 : o == OWN_MAIN ? 1 : 3;
    } else if (LLVMIsAGlobalVariable(user)) {
      if (cg_map_get(seen, user)) continue;
      cg_map_put(seen, user, user);
      r |= used_by(user, seen);
    } else if (LLVMIsAConstant(user)) {
      r |= used_by(user, seen);
    }
  }
  return r;
}

static Owner owner(LLVMValueRef v, bool is_fn) {
  Owner o = owner_by_name(v, is_fn);
  if (is_fn || o == OWN_BOTH || LLVMGetLinkage(v) != LLVMInternalLinkage) return o;
  CgMap seen = {0};
  int u = used_by(v, &seen);
  return u & 2 ? OWN_LIB : u == 1 ? OWN_MAIN : o;
}

/* "Lz.Base.lex.case_wild_18414_alts" -> "Lz.Base.lex.case_wild_alts": uniques (digits after
 * '_' or '$') and LLVM's ".N" suffixes dropped (malloc). */
static char *strip_uniques(const char *name, size_t n) {
  char *s = malloc(n + 1);
  if (!s) abort();
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    if ((name[i] == '_' || name[i] == '$' || name[i] == '.') && i + 1 < n &&
        isdigit((unsigned char)name[i + 1])) {
      size_t j = i + 1;
      while (j < n && isdigit((unsigned char)name[j]))
        j++;
      if (name[i] != '.' || j == n) {
        i = j;
        continue;
      }
    }
    s[k++] = name[i++];
  }
  s[k] = 0;
  return s;
}

static void set_hidden(LLVMValueRef v) {
  LLVMSetLinkage(v, LLVMExternalLinkage);
  LLVMSetVisibility(v, LLVMHiddenVisibility);
  if (LLVMIsAGlobalVariable(v)) LLVMSetUnnamedAddress(v, LLVMNoUnnamedAddr);
}

/* Replaces the definitions of `own` by external declarations. */
static void strip(LLVMContextRef ctx, LLVMModuleRef mod, const Owner *owners, int nfn, Owner own) {
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  int i = 0;
  LLVMValueRef next, f = LLVMGetFirstFunction(mod);
  for (; i < nfn; f = next, i++) {
    next = LLVMGetNextFunction(f); /* (new declarations go to the end of the list) */
    if (owners[i] != own) continue;
    /* LLVM-C has no deleteBody: a fresh declaration takes the uses and the name */
    char *name = strdup(name_of(f));
    LLVMValueRef d = LLVMAddFunction(mod, "", LLVMGlobalGetValueType(f));
    LLVMReplaceAllUsesWith(f, d);
    LLVMDeleteFunction(f);
    LLVMSetValueName2(d, name, strlen(name));
    free(name);
    LLVMSetVisibility(d, LLVMHiddenVisibility);
    LLVMAddAttributeAtIndex(d, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(ctx, nounwind, 0));
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g), i++) {
    if (owners[i] != own) continue;
    LLVMSetInitializer(g, NULL); /* a declaration now */
    set_hidden(g);
  }
}

/* (Tidiness and stable text only: if it failed, dead declarations would stay.) */
static void global_dce(LLVMModuleRef mod, LLVMTargetMachineRef tm) {
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(mod, "globaldce", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (e) LLVMConsumeError(e);
}

/* The names in the library part's info tables (for messages only) without their uniques, so
 * that the module is the same in other programs: "Lz.Base.unpackFrom#.sat_18773" -> "...sat". */
static void canonical_info_names(LLVMContextRef ctx, LLVMModuleRef mod) {
  LLVMTypeRef info = LLVMGetTypeByName2(ctx, "LzInfo");
  if (!info) return;
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMIsDeclaration(g) || LLVMGlobalGetValueType(g) != info) continue;
    LLVMValueRef init = LLVMGetInitializer(g);
    if (!init || LLVMGetNumOperands(init) != 7) continue;
    LLVMValueRef name = LLVMGetOperand(init, 6);
    if (!LLVMIsAConstantExpr(name) || LLVMGetConstOpcode(name) != LLVMGetElementPtr) continue;
    LLVMValueRef str = LLVMGetOperand(name, 0);
    if (!LLVMIsAGlobalVariable(str) || !LLVMGetInitializer(str) ||
        !LLVMIsConstantString(LLVMGetInitializer(str)))
      continue;
    size_t n;
    const char *bytes = LLVMGetAsString(LLVMGetInitializer(str), &n);
    if (n > 0 && bytes[n - 1] == 0) n--;
    char *canon = strip_uniques(bytes, n);
    size_t cn = strlen(canon);
    if (cn != n) {
      /* one global per distinct name, itself named after a hash of the name */
      uint64_t h = 0xcbf29ce484222325ULL;
      for (size_t i = 0; i < cn; i++)
        h = (h ^ (unsigned char)canon[i]) * 0x100000001b3ULL;
      char gname[40];
      snprintf(gname, sizeof gname, "lz.infoname.%016llx", (unsigned long long)h);
      LLVMValueRef ng = LLVMGetNamedGlobal(mod, gname);
      if (!ng) {
        LLVMValueRef s = LLVMConstStringInContext(ctx, canon, (unsigned)cn, 0);
        ng = LLVMAddGlobal(mod, LLVMTypeOf(s), gname);
        LLVMSetInitializer(ng, s);
        LLVMSetGlobalConstant(ng, 1);
        LLVMSetLinkage(ng, LLVMPrivateLinkage);
        LLVMSetUnnamedAddress(ng, LLVMGlobalUnnamedAddr);
        LLVMSetAlignment(ng, 1);
      }
      LLVMValueRef fields[7];
      for (unsigned i = 0; i < 6; i++)
        fields[i] = LLVMGetOperand(init, i);
      fields[6] = LLVMConstBitCast(ng, LLVMTypeOf(name));
      LLVMSetInitializer(g, LLVMConstNamedStruct(info, fields, 7));
    }
    free(canon);
  }
}

/* Instruction and block names carry uniques too ("%sat_18791"): number them instead; and
 * private constants (copies: nothing outside refers to them) are named by their order. */
static void anonymous_locals(LLVMModuleRef mod) {
  int ord = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetLinkage(g) == LLVMPrivateLinkage) {
      char name[32];
      snprintf(name, sizeof name, "lz.private.%d", ord++);
      LLVMSetValueName2(g, name, strlen(name));
    }
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMSetValueName2(LLVMBasicBlockAsValue(bb), "", 0);
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
        if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind) LLVMSetValueName2(i, "", 0);
    }
}

/* ---- the library thread: its own context, target machine and module ------------------- */

static char *dup_or(char *s, const char *fallback) { return s ? s : strdup(fallback); }

static void *library_thread(void *arg) {
  CgLibJob *j = arg;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef lib = NULL;
  LLVMTargetMachineRef tm = cg_new_target_machine(j->opt_level, &j->err);
  if (!tm) goto done;
  if (LLVMParseBitcodeInContext2(ctx, j->bc, &lib)) {
    j->err = strdup("cannot read the library part's bitcode back");
    goto done;
  }
  int n = 0, nfn = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    nfn++;
  n = nfn;
  for (LLVMValueRef g = LLVMGetFirstGlobal(lib); g; g = LLVMGetNextGlobal(g))
    n++;
  if (n != j->n || nfn != j->nfn) { /* (bitcode keeps the order of definitions) */
    j->err = strdup("the library part's bitcode does not match the module");
    goto done;
  }
  LLVMSetModuleIdentifier(lib, "lz-library", 10);
  LLVMSetSourceFileName(lib, "lz-library", 10);
  strip(ctx, lib, j->owners, j->nfn, OWN_MAIN);
  canonical_info_names(ctx, lib);
  global_dce(lib, tm);
  anonymous_locals(lib);
  const char *dump = getenv("LZC_CACHE_DUMP"); /* debugging cache misses: the library part */
  if (dump && *dump) LLVMPrintModuleToFile(lib, dump, NULL);
  j->path = cg_cache_build(ctx, lib, tm, j->opt_level, j->dir, j->salt, &j->hit, &j->temp, &j->err);
  if (!j->path) j->err = dup_or(j->err, "unknown error");
done:
  if (lib) LLVMDisposeModule(lib);
  if (tm) LLVMDisposeTargetMachine(tm);
  LLVMContextDispose(ctx);
  return NULL;
}

/* ---- the main thread ----------------------------------------------------------------------- */

CgLibJob *cg_library_start(CgModule *m, const char *cache_dir, const char *salt) {
  int n = 0, nfn = 0, nlib = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f))
    nfn++;
  n = nfn;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m->mod); g; g = LLVMGetNextGlobal(g))
    n++;
  Owner *owners = calloc((size_t)n + 1, sizeof *owners);
  if (!owners) return NULL;
  int i = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f), i++)
    owners[i] = LLVMIsDeclaration(f) ? OWN_BOTH : owner(f, true);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m->mod); g; g = LLVMGetNextGlobal(g), i++)
    owners[i] = LLVMIsDeclaration(g) ? OWN_BOTH : owner(g, false);
  for (i = 0; i < n; i++)
    nlib += owners[i] == OWN_LIB;
  if (nlib == 0) {
    free(owners);
    return NULL;
  }
  /* exports both ways, and canonical names for the library's definitions (ordinals in module
   * order), before the module is copied, so both parts agree on them */
  int ord = 0;
  i = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f), i++) {
    if (owners[i] == OWN_MAIN && !LLVMIsDeclaration(f)) {
      CgMap seen = {0};
      if (used_by(f, &seen) & 2) set_hidden(f);
    } else if (owners[i] == OWN_LIB) {
      set_hidden(f);
      char *base = strip_uniques(name_of(f), strlen(name_of(f)));
      char *c = lz_fmt("%s.%d", base, ord++);
      free(base);
      LLVMSetValueName2(f, c, strlen(c));
    }
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m->mod); g; g = LLVMGetNextGlobal(g), i++)
    if (owners[i] == OWN_LIB) {
      set_hidden(g);
      char *base = strip_uniques(name_of(g), strlen(name_of(g)));
      char *c = lz_fmt("%s.%d", base, ord++);
      free(base);
      LLVMSetValueName2(g, c, strlen(c));
    }

  CgLibJob *j = calloc(1, sizeof *j);
  if (!j) abort();
  j->bc = LLVMWriteBitcodeToMemoryBuffer(m->mod);
  j->owners = owners;
  j->nfn = nfn;
  j->n = n;
  j->opt_level = m->cg->opts.opt_level;
  j->dir = cache_dir ? strdup(cache_dir) : NULL;
  j->salt = strdup(salt ? salt : "");
  /* on a machine that cannot make a thread, the work is done in cg_library_finish */
  j->threaded = pthread_create(&j->thread, NULL, library_thread, j) == 0;

  strip(m->ctx, m->mod, owners, nfn, OWN_LIB);
  global_dce(m->mod, m->cg->tm);
  const char *dump = getenv("LZC_MAIN_DUMP"); /* Main's part before LLVM's pipeline */
  if (dump && *dump) LLVMPrintModuleToFile(m->mod, dump, NULL);
  return j;
}

const char *cg_library_finish(CgLibJob *j, bool *hit, bool *temp, char **err) {
  if (j->threaded)
    pthread_join(j->thread, NULL);
  else
    library_thread(j);
  const char *path = j->path ? lz_strdup(j->path) : NULL;
  *hit = j->hit;
  *temp = j->temp;
  if (!path && err) *err = lz_strdup(j->err ? j->err : "unknown error");
  LLVMDisposeMemoryBuffer(j->bc);
  free(j->owners);
  free(j->dir);
  free(j->salt);
  free(j->path);
  free(j->err);
  free(j);
  return path;
}
