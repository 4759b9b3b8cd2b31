/* rename_modules.c — the renamer's driver: loads the module graph and renames each
 * module in dependency order (fe_rename_program of passes.h).
 *
 * Loading is a depth-first walk of the imports from the main module: each module is
 * found on disk (Note [Module search]), parsed once, derived, and its own top-level
 * entities entered (stage 1) before its imports are followed, so every module on the
 * walk's stack already answers original-name lookups. A module still on the stack
 * when it is imported again closes an import cycle. The walk's post-order is the
 * dependency order; modules are then scoped (stage 2: imports), renamed (stage 3) and
 * their exports computed, in that order and appended to the program as they finish, so the main
 * module comes last. When generated code names a module nobody loaded (Note [Original names]), it
 * is loaded and renamed on the spot, and still finishes before the module that needs it. Structural
 * failures (a module missing or unparsable, a cycle) stop the renamer after loading, since renaming
 * without the imports would only report a cascade. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rename_internal.h"

/* Import chains longer than this are reported (they can only come from generated or
 * hostile input, and the loader recurses along the chain). */
#define MAX_IMPORT_DEPTH 500

static const LzSpan nowhere = {0, 0, 0, 0, 0};

typedef struct Loader {
  Rn rn;
  bool failed; /* a module is missing, unparsable or in a cycle */
} Loader;

static RnModule *load_parsed(Loader *ld, FeModule *m, Sym name);

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* "A.B" -> "A/B.lz" */
static const char *module_rel_path(Sym name) {
  char *p = lz_fmt("%s.lz", name);
  for (char *q = p; q[3]; q++)
    if (*q == '.') *q = '/';
  return p;
}

static const char *join_path(const char *dir, const char *rel) {
  if (!dir || !*dir || strcmp(dir, ".") == 0) return rel;
  size_t n = strlen(dir);
  return lz_fmt("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", rel);
}

/* The file of module `name` (Note [Module search]), or NULL; `searched` lists the
 * places tried, for the error message. */
static const char *find_module(Loader *ld, Sym name, char **searched) {
  const char *rel = module_rel_path(name);
  const FeOptions *o = ld->rn.opts;
  int ndirs = 2 + (o ? o->n_include_dirs : 0);
  *searched = lz_strdup("");
  for (int i = 0; i < ndirs; i++) {
    const char *dir = i == 0           ? ld->rn.main_dir
                      : i == ndirs - 1 ? (o ? o->stdlib_dir : NULL)
                                       : o->include_dirs[i - 1];
    if (i > 0 && !dir) continue;
    const char *path = join_path(dir, rel);
    if (is_file(path)) return path;
    *searched = lz_fmt("%s\n  %s", *searched, path);
  }
  return NULL;
}

static RnModule *new_module(Loader *ld, Sym name, RnState state) {
  RnModule *mod = LZ_NEW(RnModule);
  mod->name = name;
  mod->state = state;
  fe_rn_put(&ld->rn.modules, name, mod);
  return mod;
}

static void report_cycle(Loader *ld, RnModule *target, const FeImport *imp) {
  RnModule **stack = ld->rn.stack.data;
  int top = ld->rn.stack.len - 1, from = top;
  while (from > 0 && stack[from] != target)
    from--;
  const char *path0 = target->m->src ? target->m->src->path : "?";
  if (from == top) {
    lz_error(imp->span, "Module imports form a cycle:\n  module ‘%s’ (%s) imports itself",
             target->name, path0);
    return;
  }
  char *msg = lz_fmt("Module imports form a cycle:\n       module ‘%s’ (%s)", target->name, path0);
  for (int i = from + 1; i <= top + 1; i++) {
    RnModule *m = i <= top ? stack[i] : target;
    msg = lz_fmt("%s\n%s ‘%s’ (%s)", msg, i == from + 1 ? "      imports" : "which imports",
                 m->name, m->m->src ? m->m->src->path : "?");
  }
  lz_error(imp->span, "%s", msg);
}

/* Load the module an import names (stage 1 for it and its imports). NULL if it is
 * missing, unparsable, or closes a cycle (reported). */
static RnModule *load_import(Loader *ld, const FeImport *imp) {
  Sym name = imp->module.name;
  RnModule *mod = fe_rn_get(&ld->rn.modules, name);
  if (mod) {
    if (mod->state == RN_LOADING) {
      report_cycle(ld, mod, imp);
      ld->failed = true;
      return NULL;
    }
    return mod->state == RN_FAILED ? NULL : mod;
  }
  char *searched;
  const char *path = find_module(ld, name, &searched);
  LzSource *src = path ? lz_source_read(path) : NULL;
  if (!src) {
    lz_error(imp->span,
             path ? "Could not read module ‘%s’ from %s"
                  : "Could not find module ‘%s’\nLocations searched:%s",
             name, path ? path : searched);
    new_module(ld, name, RN_FAILED);
    ld->failed = true;
    return NULL;
  }
  FeModule *m = fe_parse_module(src);
  if (!m) {
    new_module(ld, name, RN_FAILED);
    ld->failed = true;
    return NULL;
  }
  if (m->name.name != name)
    lz_error(m->name.span, "File name does not match module name:\nSaw: ‘%s’\nExpected: ‘%s’",
             m->name.name, name);
  return load_parsed(ld, m, name);
}

static FeImport *implicit_prelude(FeModule *m) {
  FeImport *imp = LZ_NEW(FeImport);
  LzSpan at =
      lz_span_known(m->name.span) ? m->name.span : (LzSpan){m->src ? m->src->id : 0, 1, 1, 1, 1};
  imp->module = fe_ident(NULL, lz_sym("Prelude"), at);
  imp->span = at;
  return imp;
}

static RnModule *load_parsed(Loader *ld, FeModule *m, Sym name) {
  Rn *rn = &ld->rn;
  RnModule *mod = new_module(ld, name, RN_LOADING);
  mod->m = m;
  if (rn->stack.len >= MAX_IMPORT_DEPTH) {
    lz_error(m->name.span, "Module imports are nested too deeply (more than %d levels)",
             MAX_IMPORT_DEPTH);
    mod->state = RN_FAILED;
    ld->failed = true;
    return NULL;
  }
  fe_derive_module(m);
  fe_rn_define_top(rn, mod);
  Sym prelude = lz_sym("Prelude");
  bool explicit_prelude = false;
  for (int i = 0; i < m->imports.len; i++) {
    LZ_PUSH(mod->imports, &m->imports.data[i]);
    explicit_prelude |= m->imports.data[i].module.name == prelude;
  }
  if (!explicit_prelude && !m->no_implicit_prelude && name != prelude)
    LZ_PUSH(mod->imports, implicit_prelude(m));
  LZ_PUSH(rn->stack, mod);
  for (int i = 0; i < mod->imports.len; i++) {
    RnModule *dep = load_import(ld, mod->imports.data[i]);
    LZ_PUSH(mod->deps, dep);
  }
  rn->stack.len--;
  mod->state = RN_LOADED;
  LZ_PUSH(rn->order, mod);
  if (name == prelude) rn->prelude_loaded = true;
  return mod;
}

/* Stages 2 and 3 for one module, after its imports. */
static void rename_module(Rn *rn, RnModule *mod) {
  if (mod->state != RN_LOADED) return;
  mod->state = RN_RENAMING;
  for (int i = 0; i < mod->deps.len; i++)
    if (mod->deps.data[i]) rename_module(rn, mod->deps.data[i]);
  fe_rn_process_imports(rn, mod);
  RnCtx c = {.rn = rn, .mod = mod};
  fe_rn_module_body(&c);
  /* exports are only needed by importers, which come later; GHC checks them after
   * the body, so their errors come after the body's */
  fe_rn_compute_exports(rn, mod);
  mod->state = RN_DONE;
  LZ_PUSH(rn->out->modules, mod->m);
}

RnModule *fe_rn_module_for_orig(Rn *rn, Sym name) {
  RnModule *mod = fe_rn_get(&rn->modules, name);
  if (mod) return mod->state == RN_FAILED ? NULL : mod;
  Loader *ld = (Loader *)rn; /* rn is the first member of its Loader */
  FeImport imp = {0};
  imp.module = fe_ident(NULL, name, nowhere);
  imp.span = nowhere;
  bool failed = ld->failed;
  ld->failed = false;
  mod = load_import(ld, &imp);
  if (mod && !ld->failed) rename_module(rn, mod);
  ld->failed |= failed;
  return mod;
}

/* After the Prelude is loaded every wired-in entity must be known: a missing one means
 * the standard library and wired.def disagree. */
static void check_wired(Rn *rn) {
  char *missing = NULL;
  for (int i = 1; i < WIRED_COUNT; i++) {
    const FeWiredInfo *w = &fe_wired_info[i];
    if (fe_wired[i] || !w->module || !*w->module) continue;
    missing = lz_fmt("%s%s%s.%s", missing ? missing : "", missing ? ", " : "", w->module, w->occ);
  }
  if (missing)
    lz_error(nowhere,
             "internal error: the standard library (%s) does not define the wired-in entities\n%s\n"
             "(see frontend/wired.def)",
             rn->opts && rn->opts->stdlib_dir ? rn->opts->stdlib_dir : "?", missing);
}

/* The desugarer and type checker reach wired-in entities through fe_wired[] even in a
 * program that never imports their modules (NoImplicitPrelude everywhere): load such
 * modules when they can be found, quietly otherwise. Returns the first one loaded. */
static int load_wired_modules(Loader *ld) {
  int first = ld->rn.order.len;
  for (int i = 1; i < WIRED_COUNT; i++) {
    const char *m = fe_wired_info[i].module;
    if (!m || !*m || fe_rn_get(&ld->rn.modules, lz_sym(m))) continue;
    char *searched;
    if (!find_module(ld, lz_sym(m), &searched)) continue;
    FeImport imp = {0};
    imp.module = fe_ident(NULL, lz_sym(m), nowhere);
    imp.span = nowhere;
    load_import(ld, &imp);
  }
  return first;
}

static const char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return ".";
  if (slash == path) return "/";
  return lz_strndup(path, (size_t)(slash - path));
}

bool fe_rename_program(const char *main_path, const char *main_text, size_t main_len,
                       const FeOptions *opts, FeProgram *out) {
  fe_builtin_reset();
  memset(out, 0, sizeof *out);
  int errors = lz_error_count();
  Loader *ld = LZ_NEW(Loader);
  Rn *rn = &ld->rn;
  rn->opts = opts;
  rn->out = out;
  rn->main_dir = dir_of(main_path);
  LzSource *src =
      main_text ? lz_source_add(main_path, main_text, main_len) : lz_source_read(main_path);
  if (!src) {
    lz_error(nowhere, "can't find file: %s", main_path);
    return false;
  }
  FeModule *m = fe_parse_module(src);
  if (!m) return false;
  RnModule *main = load_parsed(ld, m, m->name.name ? m->name.name : lz_sym("Main"));
  if (ld->failed || !main) return false;
  int wired_from = load_wired_modules(ld);
  if (ld->failed) return false;
  if (rn->prelude_loaded) check_wired(rn);
  /* modules loaded for fe_wired[] first: nothing the program loaded depends on them */
  for (int i = wired_from; i < rn->order.len; i++)
    rename_module(rn, rn->order.data[i]);
  for (int i = 0; i < rn->order.len; i++)
    rename_module(rn, rn->order.data[i]);
  /* GHC checks this last, only when all else is well */
  if (lz_error_count() == errors && main->name == lz_sym("Main") &&
      !fe_rn_get(&main->own_vals, lz_sym("main")))
    lz_error((LzSpan){src->id, 1, 1, 1, 1}, "The IO action ‘main’ is not defined in module ‘Main’");
  out->main = main->m;
  return lz_error_count() == errors;
}
