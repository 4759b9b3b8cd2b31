/* rts.h — the public ABI of the Lz runtime (the sequential, "vanilla" way).
 *
 * This header is the contract between compiled Lz code (emitted by codegen/ as LLVM IR)
 * and the runtime library lzrts. Everything the code generator emits or calls is here:
 * the uniform code type LzCode, the info-table layout LzInfo, the inline-accessed head
 * of the capability LzCap, pointer tagging, the closure layouts, the built-in info
 * tables and entry points (update/stop/apply frames, IND, BLACKHOLE, PAP, generic
 * apply, eval, allocation, stack growth, yield), and one C function per primitive
 * operation of core-ir/primops.def. Note [Back end and runtime ABI]
 * (docs/notes/backend.md) explains the execution model; this file fixes the exact
 * names, layouts and signatures. Layouts marked "fixed" are emitted as LLVM constants or
 * accessed at constant offsets by generated code: changing them is an ABI change (update
 * the note and codegen/ together). Runtime C code uses the helper macros at the end
 * (LZ_FN, LZ_JUMP, LZ_RETURN), which compile to guaranteed tail calls with clang.
 * Public names: lz_ / Lz / LZ_.
 */
#ifndef LZ_RTS_H
#define LZ_RTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- words and code --------------------------------------------------------------- */

typedef uintptr_t LzWord; /* one machine word (64 bits); every heap/stack slot is one */
typedef struct LzCap LzCap;

/* The one type of all compiled code: closure entry, return continuation, glue.
 * Every transfer of control is a tail call to such a function (LLVM `musttail call`
 * with the C calling convention; on x86-64 all six arguments are in registers).
 *   cap  the capability (per OS thread);
 *   sp   the Lz stack pointer (the stack grows downwards; sp[0] is the top word);
 *   r1   closure being entered, or the value being returned;
 *   r2..r4  the first three arguments of a function call (undefined elsewhere).
 * A Double# travels as its 64-bit pattern in a word. */
typedef void (*LzCode)(LzCap *cap, LzWord *sp, LzWord r1, LzWord r2, LzWord r3, LzWord r4);

/* ---- info tables (fixed layout: LLVM { ptr, i16, i16, i32, i32, i32, ptr }) ---------- */

typedef enum LzType {
  LZ_CON = 1,      /* constructor: info, fields...                                     */
  LZ_FUN,          /* function: info, free variables...   (arity >= 1)                 */
  LZ_THUNK,        /* thunk: info, spare, free variables...  (also static CAFs)        */
  LZ_PAP,          /* partial application: info, fun, nargs, args...  (lz_pap_info)   */
  LZ_IND,          /* updated thunk: info, result (spare word), old free vars...       */
  LZ_BLACKHOLE,    /* thunk under evaluation: info, its THUNK info (spare), free vars... */
  LZ_PRIM,         /* runtime-managed lifted value: Integer                            */
  LZ_MUTVAR,       /* MutVar#: info, value  (an unlifted I-rep pointer, never entered) */
  LZ_FRAME_RET,    /* stack frame of a case continuation: info, saved values...        */
  LZ_FRAME_UPDATE, /* update frame: info, thunk                                        */
  LZ_FRAME_STOP,   /* bottom frame of a thread's stack: info                           */
  LZ_FRAME_AP,     /* apply frame: info, args... (lz_ap1/2/3_frame_info)               */
} LzType;

typedef struct LzInfo {
  LzCode entry;     /* offset 0:  closure entry, or a frame's continuation           */
  uint16_t type;    /* offset 8:  an LzType                                           */
  uint16_t arity;   /* offset 10: LZ_FUN: number of arguments; else 0                 */
  uint32_t tag;     /* offset 12: LZ_CON: constructor index (0-based); else 0         */
  uint32_t size;    /* offset 16: words after the info pointer (closure payload, or a
                                  frame's saved words); 0 for variable-size objects   */
  uint32_t srcloc;  /* offset 20: index into the program's source-location table, 0 none */
  const char *name; /* offset 24: constructor / binding name (messages, stepper), or NULL */
} LzInfo;           /* sizeof == 32 */

/* ---- pointer tagging -----------------------------------------------------------------
 * A pointer to a heap object is 8-byte aligned; its low 3 bits are a tag.
 *   tag 0      : not known to be evaluated: a THUNK (or static CAF), IND or BLACKHOLE.
 *   CON        : min(constructor index + 1, 7)  (7: read info->tag)
 *   FUN, PAP, PRIM (Integer): 1
 * Invariant: every pointer to a value in WHNF (CON, FUN, PAP, PRIM) is tagged wherever
 * it is stored or passed (fields, frames, registers, IND results, MutVar contents), and a
 * value returned in r1 from an evaluation is tagged. Hence generated code may enter any
 * untagged pointer directly (tail-call its info->entry with r1 = the pointer).
 * lz_eval and lz_apply_N tolerate untagged pointers to values too (they look at the
 * info type), so runtime-made values that escape the invariant are still safe there. */
#define LZ_TAG_BITS       3
#define LZ_TAG_MASK       ((LzWord)7)
#define LZ_TAG(p)         ((LzWord)(p)&LZ_TAG_MASK)
#define LZ_UNTAG(p)       ((LzWord *)((LzWord)(p) & ~LZ_TAG_MASK))
#define LZ_INFO(p)        ((const LzInfo *)LZ_UNTAG(p)[0])
#define LZ_CON_TAG(index) ((index) < 6 ? (LzWord)(index) + 1 : (LzWord)7)

/* ---- heap objects --------------------------------------------------------------------
 * Word 0 of every object is its info pointer; sizes are in words.
 *   CON     info, field 1 .. field n        (nullary constructors: static closures)
 *   FUN     info, free vars                 (top-level functions: static, 1 word)
 *   THUNK   info, spare, free vars          (spare: 0; the thunk's own info pointer when
 *                                            blackholed; the result when updated) — at
 *                                            least 2 words; info->size = 1 + free vars
 *   PAP     &lz_pap_info, fun, nargs, arg 1 .. arg nargs
 *           fun: tagged pointer to a FUN (never a PAP: PAPs are flattened); nargs (a
 *           plain number) < fun's arity. Generated code may build PAPs inline.
 *   Integer &lz_integer_small_info, int64 value      (when the value fits in int64)
 *           &lz_integer_big_info, mpz_t (16 bytes)   (only when it does not: canonical)
 *           Code may emit static small Integers {&lz_integer_small_info, v}, tagged 1.
 *   MutVar  &lz_mutvar_info, value (tagged)          (MutVar# is this untagged pointer)
 * The runtime reads lists and characters by tag only: [] is tag 1, (:) tag 2 with head
 * in word 1 and tail in word 2, C# tag 1 with the Char# in word 1 (constructor indices
 * of `data [] a = [] | a : [a]` and `data Char = C# Char#`).
 *   Array   n, slot 1 .. slot n                      (Array#/MutableArray#: untagged)
 * GC rule: a pointer stored in a heap object or in static data must be an object's base
 * address or base + tag (1..7); Boehm recognises no other interior pointers there.
 * Pointers in registers and on the C stack may point anywhere inside an object. */
#define LZ_GRANULE_BYTES        8 /* allocation unit: Boehm's granule, one word (Note [Granules]) */
#define LZ_WORDS_TO_GRANULES(w) (w)

/* ---- the capability (per OS thread state) --------------------------------------------
 * The fields before `rest` have fixed offsets (generated code accesses them inline);
 * everything after `rest` is private to the runtime (rts_priv.h). */
#define LZ_FL_MAX 32 /* free lists exist for 1 .. LZ_FL_MAX granules (8 .. 256 bytes) */
/* bump[] and lim[] hold addresses with the top bit flipped (+ LZ_BUMP_HIDE, mod 2^64), so
 * that neither they nor what compiled code derives from them in registers is ever taken
 * for a pointer: Note [Bump allocation] in rts/heap.c */
#define LZ_BUMP_HIDE ((LzWord)1 << 63)

struct LzCap {
  LzWord *sp_lim;          /* offset 0:  stack check: need n words ⇒ require
                                         sp - n >= sp_lim, else lz_stack_grow      */
  void *tso;               /* offset 8:  current thread (runtime use)                  */
  volatile uint32_t yield; /* offset 16: nonzero ⇒ the next heap check calls lz_yield_* */
  uint32_t cap_no;         /* offset 20: capability number (0 in the vanilla way)       */
  uint64_t alloc_bytes;    /* offset 24: bytes allocated; generated code adds 8*granules
                                         for each object it allocates                 */
  void *fl[LZ_FL_MAX + 1]; /* offset 32: fl[g]: free list of g-granule objects, linked
                                         through word 0; fl[0] unused                 */
  /* offset 32 + 8*(LZ_FL_MAX+1) = 296: runtime-private fields follow */
  struct LzCapPriv *rest;
  LzWord *hook_sp;            /* offset 304, -replay: sp when generated code last called a
                                            replay hook (the stepper's `where` at a claim) */
  uint32_t lazy_bh;           /* offset 312, threaded ways: +RTS --lazy-blackholing (a thunk
                                            entry does not claim: Note [Lazy blackholing]) */
  uint32_t claim_plain;       /* offset 316, -threaded at -N1, or a capability running
                                            alone: claim and update thunks with plain
                                            stores (Notes [One capability], [Running
                                            alone]) */
  LzWord bump[LZ_FL_MAX + 1]; /* offset 320: bump[g] - LZ_BUMP_HIDE: the next g-granule
                                 object of a fresh block (Note [Bump allocation])     */
  LzWord lim[LZ_FL_MAX + 1];  /* offset 584: lim[g] - LZ_BUMP_HIDE: the end of its last;
                                 bump[g] < lim[g]: objects left                       */
};

/* Inline allocation of g granules (1 <= g <= LZ_FL_MAX), what generated code emits:
 *     p = cap->fl[g]; if (p) cap->fl[g] = *(void **)p;
 *     else if ((b = cap->bump[g]) < cap->lim[g]) cap->bump[g] = b + 8 * g, p = b - HIDE;
 *     else p = lz_alloc_slow(cap, sp, g);
 *     cap->alloc_bytes += 8 * g;    (may be summed per basic block)
 * Objects are not cleared (Note [Uncleared objects], rts/heap.c): the code writes every
 * word (a granule is a word: there is no padding). Objects larger than LZ_FL_MAX
 * granules (cleared): call lz_alloc_slow directly. `sp` is
 * the current stack pointer: the words below it must be dead (no half-pushed frame),
 * since the runtime may clear them before a collection (stale pointers in the unused
 * part of the stack would otherwise keep garbage alive). */
void *lz_alloc_slow(LzCap *cap, LzWord *sp, LzWord granules);
/* For the runtime's own C code: allocate `words` words (cleared), counted in alloc_bytes. */
void *lz_alloc_words(LzCap *cap, size_t words);

/* Stack check at the entry of every closure/continuation that pushes words:
 *     if (sp - need < cap->sp_lim) sp = lz_stack_grow(cap, sp, need);
 * Copies the stack to a bigger one (frames never point into the stack) and returns the
 * new sp, or ends the program with GHC's stack overflow message (exit 2) past -K. */
LzWord *lz_stack_grow(LzCap *cap, LzWord *sp, LzWord need_words);

/* ---- built-in info tables ----------------------------------------------------------- */

extern const LzInfo lz_update_frame_info; /* frame {info, thunk}: IND, or result copied  */
extern const LzInfo lz_stop_frame_info;   /* frame {info}: ends the thread (returns to C) */
extern const LzInfo lz_ap1_frame_info;    /* frame {info, a1}: applies r1 to a1           */
extern const LzInfo lz_ap2_frame_info;    /* frame {info, a1, a2}                         */
extern const LzInfo lz_ap3_frame_info;    /* frame {info, a1, a2, a3}                     */
extern const LzInfo lz_ind_info;          /* IND: entry returns the result (spare word)   */
extern const LzInfo lz_blackhole_info;    /* BLACKHOLE: entry is <<loop>> (vanilla)       */
extern const LzInfo lz_pap_info;          /* PAP (entry: never entered; tagged 1)         */
extern const LzInfo lz_integer_small_info;
extern const LzInfo lz_integer_big_info;
extern const LzInfo lz_mutvar_info;

/* ---- entry points (all of type LzCode; call them with a tail call) --------------------
 * Calling convention of a function of arity n (known or through these):
 *   r1 = the FUN closure (tagged 1 or untagged: code masks the tag),
 *   r2, r3, r4 = arguments 1..3, arguments 4..n at sp[0], sp[1], ..., sp[n-4]
 *   (argument 4 on top); the callee pops its stack arguments; below them is the frame
 *   to return to. Entry of a thunk: r1 = the thunk, untagged. Continuation of a frame:
 *   sp[0] = the frame's info pointer, r1 = the value (tagged pointer, or an unboxed
 *   word); the continuation pops its own frame. Returning: r1 = value, then tail-call
 *   ((LzInfo *)sp[0])->entry.
 * Thunk entry (generated): stack check (need includes 2 for the update frame), heap
 *   check, then blackhole: thunk[1] = thunk[0] (its own info: the update reads its size
 *   there and clears the free variables, so the IND keeps nothing alive); thunk[0] =
 *   &lz_blackhole_info; push {&lz_update_frame_info, thunk}; evaluate the body with free
 *   vars from thunk[2..]. (Vanilla: any BLACKHOLE entered is <<loop>>; the threaded way
 *   tells its own blackholes from other threads' by the update frames on its stack.)
 */
void lz_apply_1(LzCap *cap, LzWord *sp, LzWord r1, LzWord r2, LzWord r3, LzWord r4);
void lz_apply_2(LzCap *cap, LzWord *sp, LzWord r1, LzWord r2, LzWord r3, LzWord r4);
void lz_apply_3(LzCap *cap, LzWord *sp, LzWord r1, LzWord r2, LzWord r3, LzWord r4);
/* Unknown call of f to N > 3 arguments: push apply frames for the arguments beyond the
 * third, in chunks of at most 3, last chunk first (e.g. 7 args: push {ap1, a7}, then
 * {ap3, a4, a5, a6}), then tail-call lz_apply_3(f, a1, a2, a3). lz_apply_N: f may be
 * any pointer (thunks are evaluated first); exact arity: jumps to the function; fewer
 * arguments than the arity: returns a PAP; more: calls with `arity` arguments under an
 * apply frame holding the rest. */
void lz_eval(LzCap *cap, LzWord *sp, LzWord r1, LzWord r2, LzWord r3, LzWord r4);
/* lz_eval: r1 = any pointer to a lifted object; returns its WHNF, tagged, to sp[0]. */
void lz_con_entry(LzCap *cap, LzWord *sp, LzWord r1, LzWord r2, LzWord r3, LzWord r4);
/* lz_con_entry: usable as the entry of every constructor info table (and is the entry of
 * the Integer info tables): returns r1, tagged, to sp[0]. */
uint32_t lz_yield_check(LzCap *cap);
void lz_yield_enter(LzCap *cap, LzWord *sp, LzWord r1, LzWord r2, LzWord r3, LzWord r4);
void lz_yield_return(LzCap *cap, LzWord *sp, LzWord r1, LzWord r2, LzWord r3, LzWord r4);
/* Heap check (at the entry of allocating closures and continuations, before
 * blackholing): if (cap->yield && lz_yield_check(cap)) tail-call lz_yield_enter or
 * lz_yield_return; otherwise go on past the check. lz_yield_check is a plain C call that
 * clears the flag (unless the runtime keeps it set, as the replay does) and says whether
 * the thread must stop. lz_yield_enter (from a closure entry, all registers and stack as
 * on entry) stops the thread to resume by re-entering r1; lz_yield_return (from a
 * continuation) to resume by calling sp[0]'s entry with r1. Vanilla: lz_yield_check
 * always says no. */

/* ---- starting and stopping ------------------------------------------------------------
 * The code generator exports the program's `main` as the static closure
 * `lz_main_closure` (an IO action: after newtype erasure a function of one World#
 * argument, or a CAF evaluating to one; pointer untagged). The runtime's main() (in
 * rts/main.c, linked only by programs) calls lz_rts_main, which parses +RTS ... -RTS,
 * starts Boehm, makes the main thread's stack with a stop frame, applies main to the
 * world token (0), flushes stdout, prints the -s summary if asked and exits 0. */
int lz_rts_main(int argc, char **argv, LzWord *main_closure);

/* For the runtime and tests: lz_rts_init starts the GC and the IO layer (once) and
 * returns capability 0 with a fresh main thread whose stack holds just a stop frame
 * (flags: the defaults, or those lz_rts_main parsed). lz_thread_sp is the current
 * thread's saved stack pointer. lz_run runs `code` with that sp and r1..r4 until the
 * thread returns to its stop frame, and returns the value the stop frame received (the
 * thread's sp is then back at its stop frame). */
LzCap *lz_rts_init(void);
LzWord *lz_thread_sp(LzCap *cap);
LzWord lz_run(LzCap *cap, LzCode code, LzWord r1, LzWord r2, LzWord r3, LzWord r4);
/* Flush every output handle, print the +RTS -s summary if asked, exit with status. */
_Noreturn void lz_exit(int status);

/* Messages and deaths, GHC style: "<prog>: <message>" on stderr after flushing stdout. */
_Noreturn void lz_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void lz_loop(LzCap *cap);     /* "<<loop>>", exit 1 */
_Noreturn void lz_heap_exhausted(void); /* "Heap exhausted;" ..., exit 251 */

/* ---- primitive operations (C calls) ----------------------------------------------------
 * One C function per entry of core-ir/primops.def, named lz_prim_<name> with the
 * trailing '#'s of the primop's name removed. Parameters: `LzCap *cap` first, then the
 * primop's arguments in order, *except World# arguments, which are not passed*. An
 * I-rep or P-rep value (Int#, Char#, Addr#, MutVar#, pointers) is an LzWord, a Double#
 * a `double`; the result likewise (primops whose result is only a status return 0).
 * Lifted arguments arrive evaluated and tagged. These functions never call compiled
 * code and may allocate (GC). Inline-able primops (Int#/Double#/Char# arithmetic and
 * comparisons, see the table in docs/notes/backend.md) have C versions too, so the code
 * generator may call any primop. realWorld# has no function (it is the literal 0). */
#define LZ_PRIM_NORETURN __attribute__((noreturn))
#define PRIMOP_I1(n)     LzWord lz_prim_##n(LzCap *cap, LzWord a);
#define PRIMOP_I2(n)     LzWord lz_prim_##n(LzCap *cap, LzWord a, LzWord b);
#define PRIMOP_D1(n)     double lz_prim_##n(LzCap *cap, double a);
#define PRIMOP_D2(n)     double lz_prim_##n(LzCap *cap, double a, double b);
#define PRIMOP_DCMP(n)   LzWord lz_prim_##n(LzCap *cap, double a, double b);
/* One line per group of primops (the formatter would run the macro calls together). */
// clang-format off
/* Int# */
PRIMOP_I2(intAdd) PRIMOP_I2(intSub) PRIMOP_I2(intMul) PRIMOP_I1(intNegate)
PRIMOP_I2(intQuot) PRIMOP_I2(intRem)
PRIMOP_I2(intEq) PRIMOP_I2(intNe) PRIMOP_I2(intLt) PRIMOP_I2(intLe) PRIMOP_I2(intGt)
PRIMOP_I2(intGe) PRIMOP_I2(intAnd) PRIMOP_I2(intOr) PRIMOP_I2(intXor) PRIMOP_I1(intNot)
PRIMOP_I2(intShl) PRIMOP_I2(intShra) PRIMOP_I2(intShrl)
PRIMOP_I1(intPopCount) PRIMOP_I1(intClz) PRIMOP_I1(intCtz)
double lz_prim_int2Double(LzCap *cap, LzWord a);
/* Char# */
PRIMOP_I1(chr) PRIMOP_I1(ord)
/* Double# */
PRIMOP_D2(doubleAdd) PRIMOP_D2(doubleSub) PRIMOP_D2(doubleMul) PRIMOP_D2(doubleDiv)
PRIMOP_D1(doubleNegate) PRIMOP_D1(doubleFabs)
PRIMOP_DCMP(doubleEq) PRIMOP_DCMP(doubleNe) PRIMOP_DCMP(doubleLt) PRIMOP_DCMP(doubleLe)
PRIMOP_DCMP(doubleGt) PRIMOP_DCMP(doubleGe)
LzWord lz_prim_double2Int(LzCap *cap, double a);
PRIMOP_D1(doubleExp) PRIMOP_D1(doubleLog) PRIMOP_D1(doubleSqrt) PRIMOP_D1(doubleSin)
PRIMOP_D1(doubleCos) PRIMOP_D1(doubleTan) PRIMOP_D1(doubleAsin) PRIMOP_D1(doubleAcos)
PRIMOP_D1(doubleAtan) PRIMOP_D1(doubleSinh) PRIMOP_D1(doubleCosh) PRIMOP_D1(doubleTanh)
PRIMOP_D1(doubleAsinh) PRIMOP_D1(doubleAcosh) PRIMOP_D1(doubleAtanh) PRIMOP_D2(doublePow)
LzWord lz_prim_doubleIsNaN(LzCap *cap, double a);
LzWord lz_prim_doubleIsInfinite(LzCap *cap, double a);
LzWord lz_prim_doubleIsNegativeZero(LzCap *cap, double a);
LzWord lz_prim_doubleDecodeMantissa(LzCap *cap, double a);
LzWord lz_prim_doubleDecodeExponent(LzCap *cap, double a);
double lz_prim_doubleEncodeInt(LzCap *cap, LzWord m, LzWord e);
LzWord lz_prim_showDouble(LzCap *cap, double a); /* Addr# */
/* Integer (P-rep arguments and results: tagged pointers) */
PRIMOP_I1(integerFromInt) PRIMOP_I1(integerToInt) PRIMOP_I1(integerFromDecAddr)
PRIMOP_I2(integerAdd) PRIMOP_I2(integerSub) PRIMOP_I2(integerMul)
PRIMOP_I1(integerNegate) PRIMOP_I1(integerAbs)
PRIMOP_I2(integerQuot) PRIMOP_I2(integerRem) PRIMOP_I2(integerDiv) PRIMOP_I2(integerMod)
PRIMOP_I2(integerGcd) PRIMOP_I2(integerCompare) PRIMOP_I2(integerEq)
PRIMOP_I2(integerAnd) PRIMOP_I2(integerOr) PRIMOP_I2(integerXor)
PRIMOP_I2(integerShiftL) PRIMOP_I2(integerShiftR) PRIMOP_I1(integerLog2)
double lz_prim_integerToDouble(LzCap *cap, LzWord a);
double lz_prim_integerEncodeDouble(LzCap *cap, LzWord m, LzWord e);
PRIMOP_I1(integerShow) /* Addr# */
/* Addr# */
PRIMOP_I2(indexCharOffAddr)
/* MutVar# */
PRIMOP_I1(newMutVar) PRIMOP_I1(readMutVar) PRIMOP_I2(writeMutVar) PRIMOP_I2(sameMutVar)
/* IO (World# arguments dropped) */
LzWord lz_prim_hPutStr(LzCap *cap, LzWord fd, LzWord str, LzWord n);
PRIMOP_I1(hGetChar) PRIMOP_I1(hIsEOF) PRIMOP_I1(hFlush) PRIMOP_I1(hClose)
PRIMOP_I2(hSetBufferMode) PRIMOP_I1(hGetBufferMode) PRIMOP_I2(openFile)
LzWord lz_prim_argCount(LzCap *cap);
PRIMOP_I1(argAt)
LzWord lz_prim_progName(LzCap *cap);
LzWord lz_prim_exit(LzCap *cap, LzWord status) LZ_PRIM_NORETURN;
PRIMOP_I1(traceString) PRIMOP_I1(traceEvent) PRIMOP_I1(traceMarker)
/* Errors */
LzWord lz_prim_raiseError(LzCap *cap, LzWord msg) LZ_PRIM_NORETURN;
/* Derived instances: the argument is evaluated (tagged) */
PRIMOP_I1(dataToTag)
/* Boxed arrays: {n, slot 1 .. slot n} (untagged I-rep pointers); World# dropped */
PRIMOP_I2(newArray) PRIMOP_I2(readArray)
LzWord lz_prim_writeArray(LzCap *cap, LzWord arr, LzWord i, LzWord v);
PRIMOP_I1(unsafeFreezeArray)
LzWord lz_prim_thawArray(LzCap *cap, LzWord arr, LzWord off, LzWord n);
PRIMOP_I2(indexArray) PRIMOP_I1(sizeofArray) PRIMOP_I1(sizeofMutableArray)
/* Parallelism (vanilla: does nothing) and coercion (identity) */
PRIMOP_I1(spark) PRIMOP_I1(unsafeCoerce)
#undef PRIMOP_I1
#undef PRIMOP_I2
#undef PRIMOP_D1
#undef PRIMOP_D2
#undef PRIMOP_DCMP
// clang-format on

/* ---- helpers for runtime C code that plays compiled code --------------------------- */

#if defined(__clang__)
#define LZ_MUSTTAIL __attribute__((musttail))
#else
#define LZ_MUSTTAIL /* gcc < 15: not guaranteed; the runtime itself is built with clang */
#endif
/* Define a function of type LzCode. */
#define LZ_U __attribute__((unused))
#define LZ_FN(name)                                                                                \
  void name(LzCap *cap LZ_U, LzWord *sp LZ_U, LzWord r1 LZ_U, LzWord r2 LZ_U, LzWord r3 LZ_U,      \
            LzWord r4 LZ_U)
/* Tail-call code `f` with the current (possibly reassigned) cap, sp, r1..r4. */
#define LZ_JUMP(f) LZ_MUSTTAIL return ((LzCode)(f))(cap, sp, r1, r2, r3, r4)
/* Return r1 to the frame on top of the stack. */
#define LZ_RETURN() LZ_JUMP(((const LzInfo *)sp[0])->entry)
/* Enter the closure r1 (its info's entry). */
#define LZ_ENTER() LZ_JUMP(LZ_INFO(r1)->entry)

#endif
