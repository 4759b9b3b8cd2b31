/* test_rts_glue.c — the runtime's glue driven by hand-written "compiled code".
 *
 * Each LzCode function below is what the code generator would emit for a tiny program
 * (a thunk building a constructor, a case continuation, functions of arity 1, 2, 3 and
 * 5, a self-referential thunk), written in C with the ABI of rts.h. The tests run them
 * through lz_run and check: update frames make the thunk a copy of a constructor value
 * that fits in it, or else an IND (entered once either way), and clear its free
 * variables (also for code that stores the owner in the spare word), case continuations see tagged
 * values, lz_apply_N builds PAPs for too few arguments and completes them, over-saturated calls go
 * through apply frames, arguments beyond the third travel on the stack, thunks are evaluated before
 * being applied, and a thunk that needs its own value dies with "<<loop>>" and exit status 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_rts_util.h"

static LzCap *cap;
static int thunk_entries;

/* data Maybe = Nothing | Just Int# */
static const LzInfo nothing_info = {lz_con_entry, LZ_CON, 0, 0, 0, 0, "Nothing"};
static const LzInfo just_info = {lz_con_entry, LZ_CON, 0, 1, 1, 0, "Just"};
static LzWord nothing_closure[1] = {(LzWord)&nothing_info};

/* What compiled code does on entering thunk t: claim it (BLACKHOLE, its own info kept in
 * the spare word) and push an update frame for it. Returns the new sp. */
static LzWord *claim_thunk(LzCap *cap, LzWord *sp, LzWord *t) {
  if (sp - 2 < cap->sp_lim) sp = lz_stack_grow(cap, sp, 2);
  t[1] = t[0];
  t[0] = (LzWord)&lz_blackhole_info;
  sp -= 2;
  sp[0] = (LzWord)&lz_update_frame_info;
  sp[1] = (LzWord)t;
  return sp;
}

/* thunk {spare, n}: Just n */
LZ_FN(mkjust_entry) {
  LzWord *t = LZ_UNTAG(r1);
  sp = claim_thunk(cap, sp, t);
  thunk_entries++;
  LzWord *p = test_alloc(cap, sp, 2);
  p[0] = (LzWord)&just_info;
  p[1] = t[2];
  r1 = (LzWord)p | LZ_CON_TAG(1);
  LZ_RETURN();
}
static const LzInfo mkjust_info = {mkjust_entry, LZ_THUNK, 0, 0, 2, 0, "mkJust"};

static LzWord new_mkjust(LzWord n) {
  LzWord *t = test_alloc(cap, NULL, 3);
  t[0] = (LzWord)&mkjust_info;
  t[1] = 0;
  t[2] = n;
  return (LzWord)t;
}

/* case x of { Nothing -> k; Just y -> y + k }  with k saved in the frame */
LZ_FN(case_cont) {
  LzWord k = sp[1];
  sp += 2;
  r1 = LZ_TAG(r1) == 1 ? k : LZ_UNTAG(r1)[1] + k;
  LZ_RETURN();
}
static const LzInfo case_frame_info = {case_cont, LZ_FRAME_RET, 0, 0, 1, 0, "case"};

/* start: r1 = x, r2 = k: push the case frame, evaluate x (enter if untagged) */
LZ_FN(case_start) {
  if (sp - 2 < cap->sp_lim) sp = lz_stack_grow(cap, sp, 2);
  sp -= 2;
  sp[0] = (LzWord)&case_frame_info;
  sp[1] = r2;
  if (LZ_TAG(r1)) LZ_RETURN();
  LZ_ENTER();
}

/* add2 a b = a + b;  add3 a b c = a + 2b + 3c;  sum5 = a + 2b + 3c + 4d + 5e */
LZ_FN(add2_entry) {
  r1 = r2 + r3;
  LZ_RETURN();
}
static const LzInfo add2_info = {add2_entry, LZ_FUN, 2, 0, 0, 0, "add2"};
static LzWord add2_closure[1] = {(LzWord)&add2_info};

LZ_FN(add3_entry) {
  r1 = r2 + 2 * r3 + 3 * r4;
  LZ_RETURN();
}
static const LzInfo add3_info = {add3_entry, LZ_FUN, 3, 0, 0, 0, "add3"};
static LzWord add3_closure[1] = {(LzWord)&add3_info};

LZ_FN(sum5_entry) {
  r1 = r2 + 2 * r3 + 3 * r4 + 4 * sp[0] + 5 * sp[1];
  sp += 2; /* the callee pops its stack arguments */
  LZ_RETURN();
}
static const LzInfo sum5_info = {sum5_entry, LZ_FUN, 5, 0, 0, 0, "sum5"};
static LzWord sum5_closure[1] = {(LzWord)&sum5_info};

/* pick x = add2  (arity 1, returns a function) */
LZ_FN(pick_entry) {
  r1 = (LzWord)add2_closure | 1;
  LZ_RETURN();
}
static const LzInfo pick_info = {pick_entry, LZ_FUN, 1, 0, 0, 0, "pick"};
static LzWord pick_closure[1] = {(LzWord)&pick_info};

/* pick2 x y = add2  (arity 2, returns a function) */
static const LzInfo pick2_info = {pick_entry, LZ_FUN, 2, 0, 0, 0, "pick2"};
static LzWord pick2_closure[1] = {(LzWord)&pick2_info};

/* a thunk evaluating to add3 (a CAF-like static thunk) */
LZ_FN(fthunk_entry) {
  LzWord *t = LZ_UNTAG(r1);
  sp = claim_thunk(cap, sp, t);
  r1 = (LzWord)add3_closure | 1;
  LZ_RETURN();
}
static const LzInfo fthunk_info = {fthunk_entry, LZ_THUNK, 0, 0, 1, 0, "fthunk"};

/* unknown call f a1 .. a5: push {ap2, a4, a5}, then lz_apply_3 f a1 a2 a3 */
static LzWord g_args[5];
LZ_FN(call5) {
  if (sp - 3 < cap->sp_lim) sp = lz_stack_grow(cap, sp, 3);
  sp -= 3;
  sp[0] = (LzWord)&lz_ap2_frame_info;
  sp[1] = g_args[3];
  sp[2] = g_args[4];
  r2 = g_args[0], r3 = g_args[1], r4 = g_args[2];
  LZ_JUMP(lz_apply_3);
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_update(void **state) {
  (void)state;
  thunk_entries = 0;
  LzWord t = new_mkjust(41);
  LzWord v = lz_run(cap, lz_eval, t, 0, 0, 0);
  assert_int_equal(LZ_TAG(v), 2);
  assert_ptr_equal(LZ_INFO(v), &just_info);
  assert_int_equal(LZ_UNTAG(v)[1], 41);
  /* updated in place (Note [Updating in place]): the thunk is now a Just 41 itself */
  assert_ptr_equal(((LzWord *)t)[0], &just_info);
  assert_int_equal(((LzWord *)t)[1], 41);
  assert_int_equal(((LzWord *)t)[2], 0);        /* the rest cleared */
  LzWord v2 = lz_run(cap, lz_eval, t, 0, 0, 0); /* the copy, tagged: not entered again */
  assert_int_equal(v2, t | LZ_CON_TAG(1));
  assert_int_equal(thunk_entries, 1);
  assert_ptr_equal(lz_thread_sp(cap)[0], &lz_stop_frame_info); /* stack back at bottom */
}

/* data Pair = Pair Int# Int#; a thunk without free variables {spare}: Pair 3 4 */
static const LzInfo pair_info = {lz_con_entry, LZ_CON, 0, 0, 2, 0, "Pair"};
LZ_FN(mkpair_entry) {
  LzWord *t = LZ_UNTAG(r1);
  sp = claim_thunk(cap, sp, t);
  thunk_entries++;
  LzWord *p = test_alloc(cap, sp, 3);
  p[0] = (LzWord)&pair_info, p[1] = 3, p[2] = 4;
  r1 = (LzWord)p | LZ_CON_TAG(0);
  LZ_RETURN();
}
static const LzInfo mkpair_info = {mkpair_entry, LZ_THUNK, 0, 0, 1, 0, "mkPair"};

/* A constructor larger than the thunk: an IND to it, as for any other value. */
static void test_update_ind(void **state) {
  (void)state;
  thunk_entries = 0;
  LzWord *t = test_alloc(cap, NULL, 2);
  t[0] = (LzWord)&mkpair_info, t[1] = 0;
  LzWord v = lz_run(cap, lz_eval, (LzWord)t, 0, 0, 0);
  assert_ptr_equal(LZ_INFO(v), &pair_info);
  assert_ptr_equal(t[0], &lz_ind_info);
  assert_int_equal(t[1], v);
  assert_int_equal(lz_run(cap, lz_eval, (LzWord)t, 0, 0, 0), v); /* through the IND */
  assert_int_equal(thunk_entries, 1);
}

/* A thunk entry that still stores the owner (cap->tso) in the spare word. */
LZ_FN(oldjust_entry) {
  LzWord *t = LZ_UNTAG(r1);
  if (sp - 2 < cap->sp_lim) sp = lz_stack_grow(cap, sp, 2);
  t[1] = (LzWord)cap->tso;
  t[0] = (LzWord)&lz_blackhole_info;
  sp -= 2;
  sp[0] = (LzWord)&lz_update_frame_info;
  sp[1] = (LzWord)t;
  LzWord *p = test_alloc(cap, sp, 2);
  p[0] = (LzWord)&just_info;
  p[1] = t[2];
  r1 = (LzWord)p | LZ_CON_TAG(1);
  LZ_RETURN();
}
static const LzInfo oldjust_info = {oldjust_entry, LZ_THUNK, 0, 0, 3, 0, "oldJust"};

static void test_update_clears(void **state) {
  (void)state;
  LzWord *t = test_alloc(cap, NULL, 4); /* info, spare, n, junk */
  t[0] = (LzWord)&oldjust_info, t[1] = 0, t[2] = 5, t[3] = 0xdead;
  LzWord v = lz_run(cap, lz_eval, (LzWord)t, 0, 0, 0);
  assert_int_equal(LZ_UNTAG(v)[1], 5);
  assert_ptr_equal(t[0], &just_info); /* in place: the field over the spare word */
  assert_int_equal(t[1], 5);
  assert_int_equal(t[2], 0);
  assert_int_equal(t[3], 0);
  /* a chain of updated counter thunks is collectable: each update forgets its input */
  LzWord prev = new_mkjust(1);
  for (int i = 0; i < 1000; i++) {
    LzWord t2 = new_mkjust(prev); /* captures the previous thunk as its "n" */
    lz_run(cap, lz_eval, t2, 0, 0, 0);
    assert_int_equal(((LzWord *)t2)[2], 0);
    prev = t2;
  }
}

static void test_case(void **state) {
  (void)state;
  thunk_entries = 0;
  LzWord t = new_mkjust(42);
  assert_int_equal(lz_run(cap, case_start, t, 100, 0, 0), 142);
  assert_int_equal(lz_run(cap, case_start, t, 1, 0, 0), 43); /* now a Just, untagged */
  assert_int_equal(lz_run(cap, case_start, (LzWord)nothing_closure | 1, 7, 0, 0), 7);
  assert_int_equal(thunk_entries, 1);
  /* lz_eval tolerates an untagged pointer to a constructor */
  LzWord v = lz_run(cap, lz_eval, (LzWord)nothing_closure, 0, 0, 0);
  assert_int_equal(v, (LzWord)nothing_closure | 1);
}

static void test_pap(void **state) {
  (void)state;
  LzWord f = (LzWord)add3_closure | 1;
  LzWord p1 = lz_run(cap, lz_apply_1, f, 1, 0, 0);
  assert_int_equal(LZ_TAG(p1), 1);
  assert_ptr_equal(LZ_INFO(p1), &lz_pap_info);
  assert_int_equal(LZ_UNTAG(p1)[1], f);
  assert_int_equal(LZ_UNTAG(p1)[2], 1);
  assert_int_equal(lz_run(cap, lz_apply_2, p1, 2, 3, 0), 1 + 4 + 9);
  LzWord p2 = lz_run(cap, lz_apply_1, p1, 10, 0, 0); /* PAP of a PAP: flattened */
  assert_int_equal(LZ_UNTAG(p2)[1], f);
  assert_int_equal(LZ_UNTAG(p2)[2], 2);
  assert_int_equal(lz_run(cap, lz_apply_1, p2, 100, 0, 0), 1 + 20 + 300);
  assert_int_equal(lz_run(cap, lz_apply_1, p1, 5, 0, 0) != 0, 1);
  /* exact call through the fast path, and an untagged function pointer */
  assert_int_equal(lz_run(cap, lz_apply_3, f, 1, 1, 1), 6);
  assert_int_equal(lz_run(cap, lz_apply_2, (LzWord)add2_closure, 4, 5, 0), 9);
}

static void test_stack_args(void **state) {
  (void)state;
  LzWord f = (LzWord)sum5_closure | 1;
  LzWord want = 1 + 2 * 2 + 3 * 3 + 4 * 4 + 5 * 5;
  for (int i = 0; i < 5; i++)
    g_args[i] = (LzWord)i + 1;
  assert_int_equal(lz_run(cap, call5, f, 0, 0, 0), want); /* exact, via a PAP */
  LzWord p = lz_run(cap, lz_apply_3, f, 1, 2, 3);
  assert_ptr_equal(LZ_INFO(p), &lz_pap_info);
  assert_int_equal(lz_run(cap, lz_apply_2, p, 4, 5, 0), want); /* args 4, 5 on stack */
  LzWord p4 = lz_run(cap, lz_apply_1, p, 4, 0, 0);
  assert_int_equal(lz_run(cap, lz_apply_1, p4, 5, 0, 0), want);
}

static void test_oversaturated(void **state) {
  (void)state;
  /* pick 0 10 20 = add2 10 20 */
  assert_int_equal(lz_run(cap, lz_apply_3, (LzWord)pick_closure | 1, 0, 10, 20), 30);
  LzWord p1 = lz_run(cap, lz_apply_1, (LzWord)pick_closure | 1, 0, 0, 0);
  assert_int_equal(p1, (LzWord)add2_closure | 1);
  /* a PAP given more than it needs: (pick2 0) 0 10 20 = add2 10 20 */
  LzWord pap = lz_run(cap, lz_apply_1, (LzWord)pick2_closure | 1, 0, 0, 0);
  assert_ptr_equal(LZ_INFO(pap), &lz_pap_info);
  assert_int_equal(lz_run(cap, lz_apply_3, pap, 0, 10, 20), 30);
}

static void test_apply_thunk(void **state) {
  (void)state;
  static LzWord ft[2] = {(LzWord)&fthunk_info, 0};
  assert_int_equal(lz_run(cap, lz_apply_3, (LzWord)ft, 1, 1, 1), 6);
  assert_ptr_equal(ft[0], &lz_ind_info);
  assert_int_equal(lz_run(cap, lz_apply_3, (LzWord)ft, 2, 2, 2), 12); /* through IND */
  assert_int_equal(lz_run(cap, lz_apply_1, lz_run(cap, lz_apply_2, (LzWord)ft, 1, 1, 0), 1, 0, 0),
                   6);
}

static void test_yield(void **state) {
  (void)state;
  /* vanilla: the heap check's question is answered "go on", and the flag is cleared */
  cap->yield = 1;
  assert_int_equal(lz_yield_check(cap), 0);
  assert_int_equal(cap->yield, 0);
  /* the stop entries themselves resume at once in the vanilla way */
  assert_int_equal(lz_run(cap, lz_yield_enter, (LzWord)add2_closure | 1, 2, 3, 0), 5);
  assert_int_equal(lz_run(cap, lz_yield_return, 77, 0, 0, 0), 77);
}

/* <<loop>>: x = x + 1, i.e. a thunk that evaluates itself */
LZ_FN(loop_entry) {
  LzWord *t = LZ_UNTAG(r1);
  if (sp - 4 < cap->sp_lim) sp = lz_stack_grow(cap, sp, 4);
  t[1] = t[0]; /* blackhole: keep the info */
  t[0] = (LzWord)&lz_blackhole_info;
  sp -= 2;
  sp[0] = (LzWord)&lz_update_frame_info;
  sp[1] = (LzWord)t;
  sp -= 2;
  sp[0] = (LzWord)&case_frame_info;
  sp[1] = 1;
  LZ_ENTER(); /* r1 is still t, now a BLACKHOLE */
}
static const LzInfo loop_info = {loop_entry, LZ_THUNK, 0, 0, 1, 0, "x"};

static void loop_child(void *arg) {
  (void)arg;
  LzCap *c = lz_rts_init();
  static LzWord x[2] = {(LzWord)&loop_info, 0};
  printf("before");
  lz_run(c, lz_eval, (LzWord)x, 0, 0, 0);
  _exit(0);
}

static void test_loop(void **state) {
  (void)state;
  ChildResult r = run_child(loop_child, NULL);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.err, "prog: <<loop>>\n");
  assert_string_equal(r.out, "before"); /* C stdio, flushed by exit */
}

int main(void) {
  cap = lz_rts_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_update),        cmocka_unit_test(test_update_ind),
      cmocka_unit_test(test_update_clears), cmocka_unit_test(test_case),
      cmocka_unit_test(test_pap),           cmocka_unit_test(test_stack_args),
      cmocka_unit_test(test_oversaturated), cmocka_unit_test(test_apply_thunk),
      cmocka_unit_test(test_yield),         cmocka_unit_test(test_loop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
