/* test_rts_sigframe.c — a thread Boehm stops with a signal is scanned without the kernel's
 * signal frame (Note [Signal frames] in docs/notes/threaded-rts.md).
 *
 * The kernel writes the signal frame only in part (the FP area's components in their
 * initial state, a padding word, the half word above the XSAVE area's end magic), so its
 * unwritten words keep what the stack held there before. Here a registered thread fills
 * the stack below its frame with the address of an object nothing else refers to, wipes
 * its registers, and spins in a loop without calls; the main thread collects, which
 * signals the spinner. The object must be collected: before the fix, the stale copies in
 * the signal frame kept it (the words Boehm scanned from the handler's frame up).
 */
#define GC_THREADS
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <gc/gc.h>

enum { PAD_WORDS = 4096 }; /* 32 KB: more than the signal frame and the handler's frames */

static GC_word hidden_target; /* GC_HIDE_POINTER of the object: not a root */
static _Atomic int ready, stop;

/* Fill PAD_WORDS words of stack below the caller's frame with the object's address. */
static __attribute__((noinline)) void fill_dead_stack(void) {
  volatile GC_word pad[PAD_WORDS];
  for (size_t i = 0; i < PAD_WORDS; i++)
    pad[i] = (GC_word)GC_REVEAL_POINTER(hidden_target);
  __asm__ volatile("" : : "r"(pad) : "memory"); /* the stores stay */
}

/* Zero the registers that may still hold the address (caller-saved and vector ones); the
 * callee-saved ones were restored by fill_dead_stack's return. */
static __attribute__((noinline)) void wipe_registers(void) {
#if defined(__x86_64__)
  __asm__ volatile("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\t"
                   "xor %%esi, %%esi\n\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n\t"
                   "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\txor %%r11d, %%r11d\n\t"
                   "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\t"
                   "pxor %%xmm3, %%xmm3\n\tpxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
                   "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\tpxor %%xmm8, %%xmm8\n\t"
                   "pxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
                   "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\tpxor %%xmm14, %%xmm14\n\t"
                   "pxor %%xmm15, %%xmm15" ::
                       : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "xmm0",
                         "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                         "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory");
#endif
}

/* The 128 bytes below a frame are its red zone, scanned whatever it holds: fill below a
 * zeroed gap of 512 bytes. */
static __attribute__((noinline)) void fill_below_gap(void) {
  volatile char gap[512];
  memset((char *)gap, 0, sizeof gap);
  fill_dead_stack();
  __asm__ volatile("" : : "r"(gap) : "memory"); /* not a tail call: the gap stays */
}

static void *spinner(void *arg) {
  (void)arg;
  fill_below_gap();
  wipe_registers();
  atomic_store(&ready, 1);
  while (!atomic_load_explicit(&stop, memory_order_relaxed))
    ; /* no call: the signal lands right below this frame */
  return NULL;
}

/* The object, allocated in a frame of its own whose words the main thread then clears. */
static __attribute__((noinline)) void make_target(void **link) {
  void *obj = GC_MALLOC(64);
  assert_non_null(obj);
  hidden_target = GC_HIDE_POINTER(obj);
  *link = (void *)GC_HIDE_POINTER(obj);
  assert_int_equal(GC_general_register_disappearing_link(link, obj), GC_SUCCESS);
}

static __attribute__((noinline)) void clear_own_dead_stack(void) {
  volatile char dead[16384];
  memset((char *)dead, 0, sizeof dead);
}

static void *link_word; /* hidden; Boehm zeroes it when the object is collected */

static void test_signal_frame_not_scanned(void **state) {
  (void)state;
#if !(defined(__x86_64__) && defined(__linux__))
  skip(); /* the patch reads x86-64 Linux's signal context; elsewhere Boehm is unchanged */
#endif
  make_target(&link_word);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, spinner, NULL), 0); /* GC_pthread_create */
  while (!atomic_load(&ready))
    ;
  clear_own_dead_stack();
  for (int i = 0; i < 3 && link_word; i++)
    GC_gcollect(); /* signals the spinner: it is neither blocked nor parked */
  atomic_store(&stop, 1);
  assert_int_equal(pthread_join(t, NULL), 0);
  assert_null(link_word); /* collected: the stale copies were not taken for roots */
}

int main(void) {
  GC_INIT();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_signal_frame_not_scanned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
