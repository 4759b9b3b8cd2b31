/* cg_priv.h — what the files of codegen/ share: the generator state (Cg), the state of the
 * LLVM function being filled (CgFn), the per-variable side table, and the helpers every
 * file uses (words, loads and stores at byte offsets, tail calls, allocation). Not for use
 * outside codegen/ (the public face is codegen.h).
 *
 * Values inside a function are LLVM SSA values of type i64 (reps P and I: a pointer is a
 * word, possibly tagged) or double (rep D). Every LLVM function the generator makes has the
 * uniform LzCode type `void (i8* cap, i64* sp, i64 r1, i64 r2, i64 r3, i64 r4)` of
 * Note [Back end and runtime ABI]; control leaves a function only by a tail call.
 */
#ifndef LZ_CG_PRIV_H
#define LZ_CG_PRIV_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "../rts/rts.h"
#include "codegen.h"

/* ---- a pointer-keyed hash map (arena) ------------------------------------------------- */

typedef struct CgMap {
  const void **keys;
  void **vals;
  int cap, len;
} CgMap;

void *cg_map_get(const CgMap *m, const void *key);
void cg_map_put(CgMap *m, const void *key, void *val);

/* ---- continuations of cases --------------------------------------------------------------
 * A `case` whose scrutinee may need evaluation pushes a return frame
 * {info, live values...} and compiles the scrutinee with the frame's continuation as its
 * sequel; the continuation function pops the frame and runs the alternatives. One per case
 * node, shared by every copy of the code that reaches the node. */
typedef struct CgCont {
  StgExpr *kase;
  LLVMValueRef fn, info; /* the frame's continuation and its info table */
  LLVMValueRef fast;     /* the alternatives: r1 = value, r2..r4 = live 1..3, live 4.. at
                            sp[0..] (popped by it); the frame continuation reloads and
                            jumps here, a tagged scrutinee jumps here directly */
  StgVar **live;         /* saved in the frame, in this order, at sp[1..nlive] */
  int nlive;
  LLVMValueRef ret; /* the known continuation below the frame (NULL: unknown) */
  bool inline_alts; /* small alternatives, also compiled in place for a tagged scrutinee */
} CgCont;

/* ---- per-variable side table (by StgVar.id) --------------------------------------------- */

typedef struct CgVarInfo {
  /* closures (let-bound and top-level) */
  LLVMValueRef code;    /* entry function (FUN: the function's code; THUNK: thunk entry) */
  LLVMValueRef info;    /* info table */
  LLVMValueRef closure; /* top level: the static closure */
  int tag;              /* pointer tag of a reference to the closure (0 for thunks) */
  bool reachable;       /* top level: needed by main */
  bool whnf;            /* always bound to a tagged value (case binders, constructors) */
  LLVMValueRef *pap_code, *pap_info; /* FUN: partial applications to m args, by m */
  /* let-no-escape bindings */
  LLVMValueRef lne_ret; /* the sequel of the let */
  /* per LLVM function (valid when the stamp equals the function's) */
  int env_stamp;
  LLVMValueRef env; /* the variable's value in the current function */
  int lne_stamp;
  LLVMBasicBlockRef lne_block;
  LLVMValueRef *lne_phis; /* one per parameter, then sp */
} CgVarInfo;

/* An entry of the environment's undo log (see cg_expr). */
typedef struct CgUndo {
  CgVarInfo *vi;
  LLVMValueRef env;
  int stamp;
} CgUndo;

typedef enum { JOB_CLOSURE, JOB_CONT, JOB_PAP } CgJobKind;
typedef struct CgJob {
  CgJobKind kind;
  StgRhs *rhs;
  CgCont *cont;
  const char *top; /* label of the top-level binding the code belongs to (for names) */
  int m;           /* JOB_PAP: number of arguments captured */
} CgJob;

/* ---- the generator ---------------------------------------------------------------------- */

typedef struct Cg {
  const StgProgram *prog;
  CgOptions opts;
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMTargetMachineRef tm;
  /* types */
  LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_word, t_double;
  LLVMTypeRef t_i8p, t_wordp, t_code, t_codep, t_info, t_infop;
  /* runtime entities */
  LLVMValueRef rt_alloc_slow, rt_stack_grow, rt_apply[4], rt_eval, rt_con_entry;
  LLVMValueRef rt_yield_enter, rt_yield_return, rt_yield_check;
  LLVMValueRef rt_update_frame_info, rt_blackhole_info, rt_ap_frame_info[4], rt_pap_info;
  LLVMValueRef rt_integer_small_info, rt_ind_info;
  LLVMValueRef prim_fns[PRIMOP_COUNT];
  LLVMValueRef ap_thunk_code[4], ap_thunk_info[4]; /* shared entries of `f a1..aN` thunks */
  LLVMValueRef intrinsics[8];
  /* tables */
  CgVarInfo *vars;
  int nvars;
  CgMap conts;         /* StgExpr* (case) -> CgCont* */
  CgMap con_infos;     /* CoreDataCon* -> info table */
  CgMap nullary;       /* CoreDataCon* -> static closure of a nullary constructor */
  CgMap small_boxes;   /* CoreDataCon* (I#, C#) -> table of static boxes (cg_expr.c) */
  CgMap strings;       /* Sym of the bytes -> global */
  CgMap prof_ccs;      /* -prof: Sym "module\1label" -> cost-centre global (cg_prof.c) */
  CgMap srcloc_index;  /* -replay: Sym "file:line:col" -> its 1-based index (cg_srcloc.c) */
  LZ_VEC(Sym) srclocs; /* the table, entry i - 1 for index i */
  LZ_VEC(CgJob) jobs;
  LZ_VEC(CgUndo) undo; /* bindings to restore when leaving a scope */
  int stamp;           /* number of the LLVM function being filled */
  const char *top;     /* label of the top-level binding being compiled (for names) */
  int *live_bound, *live_seen, live_q; /* scratch of the live-variable analysis */
  int nerrors;
} Cg;

struct CgModule {
  Cg *cg;
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  int opt_level;
};

/* The LLVM function being filled. */
typedef struct CgFn {
  Cg *cg;
  LLVMValueRef fn;
  LLVMValueRef cap, sp; /* sp: current value (changes when frames are pushed) */
  LLVMBasicBlockRef entry, start;
  bool allocates; /* a heap check (yield test) is needed at the entry */
  bool is_cont;   /* continuation (yield: lz_yield_return) or closure entry */
  int stamp;
} CgFn;

/* ---- cg_module.c: module, types, runtime declarations, constants ------------------------- */

void cg_init_module(Cg *cg);
LLVMValueRef cg_word(Cg *cg, int64_t v); /* i64 constant */
LLVMValueRef cg_i32(Cg *cg, int64_t v);
LLVMValueRef cg_const_ptr_word(Cg *cg, LLVMValueRef global, int tag); /* ptrtoint + tag */
LLVMValueRef cg_info_table(Cg *cg, const char *name, LLVMValueRef entry, int type, int arity,
                           int tag, int size, const char *label,
                           LzSpan span);          /* new constant LzInfo */
LLVMValueRef cg_con_info(Cg *cg, CoreDataCon *c); /* shared info table of a constructor */
LLVMValueRef cg_string_global(Cg *cg, const char *bytes, size_t len);
LLVMValueRef cg_new_code_fn(Cg *cg, const char *name);   /* internal LzCode function */
LLVMValueRef cg_nullary_closure(Cg *cg, CoreDataCon *c); /* static closure, untagged */
int cg_con_ptr_tag(const CoreDataCon *c);                /* min(index + 1, 7) */
char *cg_var_label(const StgVar *v);                     /* M.f or x_12 */
void cg_error(Cg *cg, LzSpan at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- cg_target.c: the host target machine --------------------------------------------- */

/* Create the target machine for the host (PIC) and set the module's triple and data
 * layout. Reports an error if LLVM has no backend for the host. */
void cg_target_setup(Cg *cg);

/* ---- cg_fn.c: function scaffolding and low-level emission -------------------------------- */

void cg_fn_begin(Cg *cg, CgFn *f, LLVMValueRef fn, bool is_cont);
void cg_fn_finish(CgFn *f);            /* emits the entry's heap check and branch */
LLVMValueRef cg_yield_flag(CgFn *f);   /* cap->yield (volatile load) */
LLVMValueRef cg_param(CgFn *f, int i); /* 0 cap, 1 sp, 2..5 r1..r4 */
void cg_bind(CgFn *f, StgVar *v, LLVMValueRef val);
LLVMValueRef cg_lookup(CgFn *f, StgVar *v);       /* value of a variable (globals: constants) */
LLVMValueRef cg_atom(CgFn *f, const StgAtom *a);  /* i64 or double */
LLVMValueRef cg_to_word(CgFn *f, LLVMValueRef v); /* double -> i64 bits; i64 unchanged */
LLVMValueRef cg_from_word(CgFn *f, LLVMValueRef w, StgRep rep);
LLVMValueRef cg_load(CgFn *f, LLVMValueRef base, int64_t byte_off); /* i64 at base+off */
LLVMValueRef cg_store(CgFn *f, LLVMValueRef base, int64_t byte_off, LLVMValueRef val);
LLVMValueRef cg_sp_slot(CgFn *f, int64_t i);       /* &sp[i] */
void cg_stack_check(CgFn *f, int need);            /* words about to be pushed */
void cg_push(CgFn *f, LLVMValueRef *words, int n); /* check, then sp -= n; sp[i] = words[i] */
void cg_tail_call(CgFn *f, LLVMValueRef code, LLVMValueRef r1, LLVMValueRef r2, LLVMValueRef r3,
                  LLVMValueRef r4);                          /* ends the block */
void cg_return(CgFn *f, LLVMValueRef val, LLVMValueRef ret); /* val: i64 or double */
void cg_enter(CgFn *f, LLVMValueRef closure);                /* tail-call info->entry */
LLVMValueRef cg_alloc(CgFn *f, int words);                   /* untagged i64 address */
void cg_count_alloc(CgFn *f, int64_t bytes);
LLVMBasicBlockRef cg_block(CgFn *f, const char *name);
void cg_dead_block(CgFn *f); /* continue in a fresh unreachable block */
LLVMValueRef cg_untag(CgFn *f, LLVMValueRef p);
LLVMValueRef cg_ptr_tag(CgFn *f, LLVMValueRef p);

/* ---- cg_expr.c: expressions ---------------------------------------------------------------- */

/* Compile `e` in tail position: its value goes to the frame on top of the stack, whose
 * continuation is `ret` when statically known (NULL: read it from sp[0]). */
void cg_expr(CgFn *f, StgExpr *e, LLVMValueRef ret);
void cg_closure_body(Cg *cg, StgRhs *rhs);         /* fill the entry function of a closure */
void cg_pap_body(Cg *cg, StgRhs *rhs, int m);      /* code of a partial application (JOB_PAP) */
void cg_ap_thunk_bodies(Cg *cg);                   /* the shared thunk entries used */
LLVMValueRef cg_closure_code(Cg *cg, StgRhs *rhs); /* its entry function (made on demand) */
/* let (rec) of closures: allocate them all, bind their pointers, then fill them */
void cg_let_closures(CgFn *f, StgExpr *e);
int cg_ap_thunk_arity(const StgRhs *rhs); /* N of a thunk `f a1..aN` (N <= 3), else 0 */

/* ---- cg_spec.c: a cheap thunk on a value computed in place -------------------------------- */

/* Note [Cheap thunk speculation]: false (nothing emitted) if the let is not one. */
bool cg_let_speculated(CgFn *f, StgExpr *e);
/* Allocate a constructor (or use the static closure of a nullary one): tagged pointer. */
LLVMValueRef cg_build_con(CgFn *f, CoreDataCon *c, StgAtom *args, int nargs);
bool cg_is_whnf(CgFn *f, StgVar *v);

/* ---- cg_case.c: case expressions and their continuations --------------------------------- */

void cg_case(CgFn *f, StgExpr *e, LLVMValueRef ret);
/* Compile the alternatives of case `e` given the scrutinee's value `v`. */
void cg_alts(CgFn *f, StgExpr *e, LLVMValueRef v, LLVMValueRef ret);
void cg_cont_body(Cg *cg, CgCont *k);

typedef void CgAltFn(CgFn *f, StgExpr *rhs, void *ctx);
/* A switch on the word v over e's literal alternatives (its default, if any, last), each
 * alternative's code emitted by alt(f, rhs, ctx) in its own block. */
void cg_lit_switch(CgFn *f, StgExpr *e, LLVMValueRef v, CgAltFn *alt, void *ctx);

/* ---- cg_prof.c: cost-centre profiling (opts.prof only; Note [Profiling]) ----------------- */

int cg_prof_thunk_extra(Cg *cg);         /* words a thunk gets for its stack: 0 or 1 */
void cg_prof_scc(CgFn *f, StgExpr *scc); /* enter the SCC: push its cost centre */
LLVMValueRef cg_prof_current(CgFn *f);   /* the current stack (a word) */
/* At a thunk's entry, after its update frame: make its stack current. `word_off` is the
 * byte offset of the stack word in the thunk; a top-level thunk (CAF) runs under
 * MAIN > CAF of `module` instead. */
void cg_prof_enter_thunk(CgFn *f, LLVMValueRef thunk, int64_t word_off);
void cg_prof_enter_ccs(CgFn *f, LLVMValueRef ccs); /* the same, the word already loaded */
void cg_prof_enter_caf(CgFn *f, Sym module);

/* ---- cg_srcloc.c: the source-location table (opts.replay only; Note [Stepper]) ------------ */

unsigned cg_srcloc_index(Cg *cg, LzSpan span); /* info->srcloc of a closure from span; 0: none */
void cg_srcloc_emit(Cg *cg); /* after every info table: lz_srcloc_table, lz_srcloc_count */

/* ---- cg_prim.c: primitive operations ------------------------------------------------------- */

/* Value of a saturated primop (i64 or double). Operations that never return leave the
 * builder in a fresh unreachable block. */
LLVMValueRef cg_primop(CgFn *f, StgExpr *e);

#endif
