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
 *
 * Before that, the definitions the precompiled base has (by identity, cg_ident.c) are taken
 * from it: renamed to its names and dropped (mark_base, drop_base). Note [Precompiled base].
 */
#include <ctype.h>
#include <errno.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg_parts.h"
#include "cg_priv.h"
#include "cg_split.h"

/* OWN_BASE: library definitions the precompiled base has (with --make-base: all), named by
 * identity (Note [Precompiled base] in docs/notes/backend.md); OWN_LIB: the rest. */
typedef enum { OWN_MAIN, OWN_LIB, OWN_BASE, OWN_BOTH } Owner;

typedef struct Part {
  Owner keep;
  char key[48];    /* the cache key ("": the hash of the part's bitcode) */
  const char *dir; /* where it is stored (NULL: nowhere) */
  char *path;      /* (set on the main thread when the object was found) */
  bool hit, sys, temp;
} Part;

struct CgLibJob {
  /* in (read-only once the thread runs) */
  LLVMMemoryBufferRef bc; /* the whole module, ownership decided, library names canonical */
  Owner *owners;          /* per function, then per global, in module order (malloc) */
  int nfn, n, opt_level;
  char *dir, *base_dir, *salt;
  /* out */
  Part parts[2]; /* the base, the rest of the library (keep == OWN_MAIN: nothing to build) */
  char *err;
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
char *cg_strip_uniques(const char *name, size_t n) {
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

/* Replaces the definitions of the parts in `drop` (a set of 1 << Owner) by external
 * declarations. */
static void strip(LLVMContextRef ctx, LLVMModuleRef mod, const Owner *owners, int nfn,
                  unsigned drop) {
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  int i = 0;
  LLVMValueRef next, f = LLVMGetFirstFunction(mod);
  for (; i < nfn; f = next, i++) {
    next = LLVMGetNextFunction(f); /* (new declarations go to the end of the list) */
    if (!(drop >> owners[i] & 1)) continue;
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
    if (!(drop >> owners[i] & 1)) continue;
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
    char *canon = cg_strip_uniques(bytes, n);
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

static void build_part(CgLibJob *j, Part *part) {
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
  strip(ctx, lib, j->owners, j->nfn, ~(1u << part->keep | 1u << OWN_BOTH));
  canonical_info_names(ctx, lib);
  global_dce(lib, tm);
  anonymous_locals(lib);
  /* debugging cache misses: the library part (the base part: LZC_BASE_DUMP) */
  const char *dump = getenv(part->keep == OWN_BASE ? "LZC_BASE_DUMP" : "LZC_CACHE_DUMP");
  if (dump && *dump) LLVMPrintModuleToFile(lib, dump, NULL);
  part->path =
      cg_cache_build(ctx, lib, tm, j->opt_level, part->dir, part->key[0] ? part->key : NULL,
                     j->salt, &part->hit, &part->temp, &j->err);
  if (!part->path) j->err = dup_or(j->err, "unknown error");
done:
  if (lib) LLVMDisposeModule(lib);
  if (tm) LLVMDisposeTargetMachine(tm);
  LLVMContextDispose(ctx);
}

static void *library_thread(void *arg) {
  CgLibJob *j = arg;
  for (int i = 0; i < 2 && !j->err; i++)
    if (j->parts[i].keep != OWN_MAIN && !j->parts[i].path) build_part(j, &j->parts[i]);
  return NULL;
}

/* ---- the main thread ----------------------------------------------------------------------- */

/* The rest of the library's definitions get canonical names: without uniques, numbered among
 * those with the same name in module order ("Data.List.sortBy.0"). `seen` counts per name. */
static void canonical_name(LLVMValueRef v, CgMap *seen) {
  set_hidden(v);
  char *base = cg_strip_uniques(name_of(v), strlen(name_of(v)));
  Sym key = lz_sym(base);
  intptr_t k = (intptr_t)cg_map_get(seen, key);
  cg_map_put(seen, key, (void *)(k + 1));
  char *c = lz_fmt("%s.%d", base, (int)k);
  free(base);
  LLVMSetValueName2(v, c, strlen(c));
}

/* Owners in module order (per function, then per global) of m; `*nfn` functions. */
static Owner *module_owners(LLVMModuleRef mod, const CgMap *known, int *nfn, int *n) {
  *nfn = *n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    ++*nfn;
  *n = *nfn;
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
    ++*n;
  Owner *owners = calloc((size_t)*n + 1, sizeof *owners);
  if (!owners) abort();
  int i = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f), i++) {
    intptr_t k = known ? (intptr_t)cg_map_get(known, f) : 0;
    owners[i] = k ? (Owner)(k - 1) : LLVMIsDeclaration(f) ? OWN_BOTH : owner(f, true);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g), i++) {
    intptr_t k = known ? (intptr_t)cg_map_get(known, g) : 0;
    owners[i] = k ? (Owner)(k - 1) : LLVMIsDeclaration(g) ? OWN_BOTH : owner(g, false);
  }
  return owners;
}

/* Drops the base's definitions from the module (found precompiled or cached: no part needs
 * them) and returns the owners of what is left. */
static Owner *drop_base(CgModule *m, Owner *owners, int *nfn, int *n) {
  CgMap known = {0};
  int i = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f), i++)
    if (owners[i] != OWN_BASE) cg_map_put(&known, f, (void *)(intptr_t)(owners[i] + 1));
  for (LLVMValueRef g = LLVMGetFirstGlobal(m->mod); g; g = LLVMGetNextGlobal(g), i++)
    cg_map_put(&known, g, (void *)(intptr_t)((owners[i] == OWN_BASE ? OWN_BOTH : owners[i]) + 1));
  strip(m->ctx, m->mod, owners, *nfn, 1u << OWN_BASE);
  free(owners);
  return module_owners(m->mod, &known, nfn, n);
}

/* ---- the precompiled base's manifest: which identities its object defines ----------------- */

static int cmp_ident(const void *x, const void *y) {
  const CgIdent *p = x, *q = y;
  return p->a != q->a ? (p->a < q->a ? -1 : 1) : p->b != q->b ? (p->b < q->b ? -1 : 1) : 0;
}

/* The first line of a manifest: the base is used only by the compiler and flags that made it. */
static char *manifest_head(const char *salt, int opt_level) {
  char key[48];
  cg_cache_key(salt, opt_level, "lz-base", 7, key);
  return lz_fmt("lz-base 1 %.32s\n", key + 1);
}

/* The sorted identities of `<dir>/manifest`, if it was made by this compiler with these flags
 * and `<dir>/base.o` is there; else none (*n = 0). */
static CgIdent *read_manifest(const char *dir, const char *salt, int opt_level, int *n) {
  *n = 0;
  struct stat st;
  if (stat(lz_fmt("%s/base.o", dir), &st) != 0 || st.st_size == 0) return NULL;
  FILE *f = fopen(lz_fmt("%s/manifest", dir), "r");
  if (!f) return NULL;
  char line[128];
  LZ_VEC(CgIdent) ids = {0};
  if (fgets(line, sizeof line, f) && strcmp(line, manifest_head(salt, opt_level)) == 0) {
    unsigned long long a, b;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "%16llx%16llx", &a, &b) == 2) LZ_PUSH(ids, ((CgIdent){a, b, true}));
  }
  fclose(f);
  qsort(ids.data, (size_t)ids.len, sizeof *ids.data, cmp_ident);
  *n = ids.len;
  return ids.data;
}

static bool write_manifest(const char *dir, const char *salt, int opt_level, const CgIdent *ids,
                           int n) {
  char *path = lz_fmt("%s/manifest", dir), *tmp = lz_fmt("%s/manifest.tmp", dir);
  FILE *f = fopen(tmp, "w");
  if (!f) return false;
  fputs(manifest_head(salt, opt_level), f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%016llx%016llx\n", (unsigned long long)ids[i].a, (unsigned long long)ids[i].b);
  return fclose(f) == 0 && rename(tmp, path) == 0;
}

/* The library's definitions that the base defines (with make_base: all of them) become
 * OWN_BASE, named after their identities; returns how many. */
static int mark_base(LLVMModuleRef mod, Owner *owners, const CgLibOptions *lo, int opt_level,
                     char **err) {
  LZ_VEC(LLVMValueRef) vals = {0};
  LZ_VEC(int) pos = {0};
  int i = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f), i++)
    if (owners[i] == OWN_LIB) {
      LZ_PUSH(vals, f);
      LZ_PUSH(pos, i);
    }
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g), i++)
    if (owners[i] == OWN_LIB) {
      LZ_PUSH(vals, g);
      LZ_PUSH(pos, i);
    }
  int nman = 0;
  CgIdent *man = lo->make_base ? NULL : read_manifest(lo->base_dir, lo->salt, opt_level, &nman);
  if (lo->make_base) unlink(lz_fmt("%s/base.o", lo->base_dir)); /* (never an old one) */
  if (vals.len == 0 || (!lo->make_base && nman == 0)) return 0;
  CgIdent *ids = malloc((size_t)vals.len * sizeof *ids);
  if (!ids) abort();
  cg_identities(vals.data, vals.len, ids);
  LZ_VEC(CgIdent) made = {0};
  CgMap taken = {0}; /* identity (its first half) -> the definition named after it */
  CgMap seen_names = {0};
  int nbase = 0;
  for (int k = 0; k < vals.len; k++) {
    LLVMValueRef v = vals.data[k];
    bool in =
        ids[k].ok && (lo->make_base || bsearch(&ids[k], man, (size_t)nman, sizeof *man, cmp_ident));
    LLVMValueRef twin = in ? cg_map_get(&taken, (void *)(uintptr_t)ids[k].a) : NULL;
    if (twin) { /* the same code twice (bisimilar): one stands for both, the other is dead */
      LLVMReplaceAllUsesWith(v, twin);
      owners[pos.data[k]] = OWN_BASE;
      continue;
    }
    if (!in && !lo->make_base) continue;
    owners[pos.data[k]] = OWN_BASE;
    nbase++;
    set_hidden(v);
    char *base = cg_strip_uniques(name_of(v), strlen(name_of(v)));
    char *c;
    if (in) {
      cg_map_put(&taken, (void *)(uintptr_t)ids[k].a, v);
      LZ_PUSH(made, ids[k]);
      c = lz_fmt("%s.%016llx%016llx", base, (unsigned long long)ids[k].a,
                 (unsigned long long)ids[k].b);
    } else { /* (make_base, no identity: in the base, which must define all it uses) */
      Sym key = lz_sym(base);
      intptr_t ord = (intptr_t)cg_map_get(&seen_names, key);
      cg_map_put(&seen_names, key, (void *)(ord + 1));
      c = lz_fmt("%s.b%d", base, (int)ord);
    }
    free(base);
    LLVMSetValueName2(v, c, strlen(c));
  }
  if (getenv("LZC_TIMINGS")) /* (how much of the library the base has) */
    fprintf(stderr, "lzc: base has %d of %d library definitions%s\n", nbase, vals.len,
            lo->make_base ? " (making it)" : "");
  free(ids);

  if (lo->make_base && !write_manifest(lo->base_dir, lo->salt, opt_level, made.data, made.len)) {
    *err = lz_fmt("cannot write %s/manifest: %s", lo->base_dir, strerror(errno));
    return -1;
  }
  return nbase;
}

CgLibJob *cg_library_start(CgModule *m, const CgLibOptions *lo, char **err) {
  int n, nfn, nlib = 0;
  Owner *owners = module_owners(m->mod, NULL, &nfn, &n);
  int opt_level = m->cg->opts.opt_level;
  int nbase = lo->base_dir ? mark_base(m->mod, owners, lo, opt_level, err) : 0;
  if (nbase < 0) {
    free(owners);
    return NULL;
  }
  for (int i = 0; i < n; i++)
    nlib += owners[i] == OWN_LIB;
  if (nlib == 0 && nbase == 0) {
    free(owners);
    return NULL;
  }
  /* exports both ways, and canonical names for the rest of the library's definitions, before
   * the module is copied, so that all parts agree on them */
  CgMap seen_names = {0};
  int i = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f), i++) {
    if (owners[i] == OWN_MAIN && !LLVMIsDeclaration(f)) {
      CgMap seen = {0};
      if (used_by(f, &seen) & 2) set_hidden(f);
    } else if (owners[i] == OWN_LIB) {
      canonical_name(f, &seen_names);
    }
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m->mod); g; g = LLVMGetNextGlobal(g), i++)
    if (owners[i] == OWN_LIB) canonical_name(g, &seen_names);

  CgLibJob *j = calloc(1, sizeof *j);
  if (!j) abort();
  j->opt_level = opt_level;
  j->dir = lo->cache_dir ? strdup(lo->cache_dir) : NULL;
  j->base_dir = lo->base_dir ? strdup(lo->base_dir) : NULL;
  j->salt = strdup(lo->salt ? lo->salt : "");
  Part *base = &j->parts[0];
  base->keep = nbase ? OWN_BASE : OWN_MAIN;
  if (nbase && lo->make_base) { /* built into <base_dir>/base.o */
    base->dir = j->base_dir;
    strcpy(base->key, "/base.o");
  } else if (nbase) { /* the precompiled object: no part needs the definitions */
    base->path = strdup(lz_fmt("%s/base.o", lo->base_dir));
    base->hit = base->sys = true;
    owners = drop_base(m, owners, &nfn, &n);
  }
  j->parts[1].keep = nlib ? OWN_LIB : OWN_MAIN;
  j->parts[1].dir = j->dir;
  j->owners = owners;
  j->nfn = nfn;
  j->n = n;
  if (nlib || (nbase && !base->path)) {
    j->bc = LLVMWriteBitcodeToMemoryBuffer(m->mod);
    /* on a machine that cannot make a thread, the work is done in cg_library_finish */
    j->threaded = pthread_create(&j->thread, NULL, library_thread, j) == 0;
  }
  strip(m->ctx, m->mod, owners, nfn, ~(1u << OWN_MAIN | 1u << OWN_BOTH));
  global_dce(m->mod, m->cg->tm);
  const char *dump = getenv("LZC_MAIN_DUMP"); /* Main's part before LLVM's pipeline */
  if (dump && *dump) LLVMPrintModuleToFile(m->mod, dump, NULL);
  return j;
}

int cg_library_finish(CgLibJob *j, CgLibObject *objs, char **err) {
  if (j->threaded)
    pthread_join(j->thread, NULL);
  else if (j->bc)
    library_thread(j);
  int n = 0;
  if (j->err) {
    if (err) *err = lz_strdup(j->err);
    n = -1;
  }
  for (int i = 0; i < 2; i++) {
    Part *p = &j->parts[i];
    if (!p->path) continue;
    if (n < 0) { /* (a failure: a temporary object is not needed) */
      if (p->temp) unlink(p->path);
    } else {
      objs[n].path = lz_strdup(p->path);
      objs[n].base = i == 0;
      objs[n].how = p->sys ? CG_OBJ_PRECOMPILED : p->hit ? CG_OBJ_CACHED : CG_OBJ_BUILT;
      objs[n++].temp = p->temp;
    }
    free(p->path);
  }
  if (j->bc) LLVMDisposeMemoryBuffer(j->bc);
  free(j->owners);
  free(j->dir);
  free(j->base_dir);
  free(j->salt);
  free(j->err);
  free(j);
  return n;
}
