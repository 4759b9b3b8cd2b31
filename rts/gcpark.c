/* gcpark.c — capabilities park at safe points for a collection instead of being signalled.
 *
 * Boehm stops the world by signalling every registered thread and waiting for each to
 * answer, and after the collection signals them again and waits again; on this VM each
 * round trip goes through the hypervisor (about 150 us of a -N2 collection's 350). So
 * when a thread is about to collect (Boehm's GC_stop_world, with its allocation lock
 * held, calls gather), every other capability running a thread has its yield flag
 * raised, and at its next heap check (lz_yield_check) it parks: it stores its registers
 * and stack pointer (GC_lz_park, our addition to Boehm) and waits on its park word. The
 * collector waits a little for them, then marks each one that parked as blocked, so that
 * Boehm neither signals it nor waits for it and scans its stack from the stored pointer;
 * the ones that did not come in time (a loop without heap checks, a long C call) are
 * closed out and signalled as before. A capability waiting for Boehm's lock (which the
 * collector holds) offers to park the same way from Boehm's GC_lock (lock_wait). After
 * the world restarts (release) the parked ones are unmarked and woken. Note [Parking for
 * collections] in docs/notes/threaded-rts.md.
 *
 * A capability's park word, changed by compare-and-swap on both sides: RUNNING; PARKED
 * (it offers to park: its stack pointer is stored); ACCEPTED (the collector marked it
 * blocked: it waits until the word is RUNNING again); CLOSED (the collector decided
 * without it: it must not park before the collection ends, and is signalled). A capability
 * whose offer comes after the collector stopped gathering takes it back, unless the
 * collector accepted it first: each offer is decided exactly once.
 */
#include "rts_priv.h"

#if LZ_THREADED
#include <gc/gc.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if LZ_REPLAY
#include "replay.h"
#endif

GC_API void *GC_CALL GC_lz_thread_self(void);
GC_API void GC_CALL GC_lz_park(void(GC_CALLBACK *wait)(void *), void *arg);
GC_API void GC_CALL GC_lz_set_blocked(void *me, int blocked);
extern void (*GC_lz_before_stop)(void);
extern void (*GC_lz_after_start)(void);
extern void (*GC_lz_lock_wait)(int begin);

enum { PARK_RUNNING, PARK_PARKED, PARK_ACCEPTED, PARK_CLOSED };

/* How long the collector waits for a running capability to reach a heap check. Heap
 * checks come every few hundred instructions in allocating code; a loop without one (or a
 * long C call) is signalled after this. */
#define GATHER_NS 100000

static _Atomic int gathering; /* a collector is waiting for capabilities to park */
/* +RTS --internal-counters (written with Boehm's lock held) */
static uint64_t n_stops, n_parked, n_signalled;

static void futex_wait(_Atomic int *w, int v) {
  syscall(SYS_futex, (int *)w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}
static void futex_wake(_Atomic int *w) {
  syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Should the collector wait for cap? Only if it runs compiled code, which reaches a heap
 * check soon; not inside Boehm (it waits for the lock the collector holds). */
static bool may_arrive(LzCap *cap) {
  return __atomic_load_n(&cap->tso, __ATOMIC_RELAXED) != NULL &&
         !__atomic_load_n(&cap->rest->in_boehm, __ATOMIC_RELAXED);
}

/* Boehm's GC_stop_world, before any signal, with the allocation lock held. */
static void gather(void) {
#if LZ_REPLAY
  if (lz_replaying) return; /* one capability runs at a time */
#endif
  LzCap *self = lz_current_cap;
  atomic_store(&gathering, 1);
  unsigned waiting = 0;
  for (unsigned i = 0; i < lz_ncaps; i++) {
    LzCap *c = lz_caps[i];
    if (c != self && may_arrive(c)) {
      __atomic_store_n(&c->yield, 1, __ATOMIC_RELAXED);
      waiting++;
    }
  }
  n_stops++;
  uint64_t start = waiting ? now_ns() : 0;
  for (unsigned spins = 0; waiting; spins++) {
    waiting = 0;
    for (unsigned i = 0; i < lz_ncaps; i++) {
      LzCap *c = lz_caps[i];
      if (c != self && atomic_load(&c->rest->gc_park) != PARK_PARKED && may_arrive(c)) waiting++;
    }
    if (waiting && spins % 64 == 63 && now_ns() - start > GATHER_NS) break;
    __builtin_ia32_pause();
  }
  atomic_store(&gathering, 0);
  for (unsigned i = 0; i < lz_ncaps; i++) {
    LzCap *c = lz_caps[i];
    if (c == self) continue;
    for (;;) { /* the capability can only take back an offer meanwhile */
      int s = atomic_load(&c->rest->gc_park);
      if (s == PARK_RUNNING && atomic_compare_exchange_strong(&c->rest->gc_park, &s, PARK_CLOSED)) {
        if (__atomic_load_n(&c->tso, __ATOMIC_RELAXED)) n_signalled++; /* else idle, skipped */
        break;
      }
      if (s == PARK_PARKED &&
          atomic_compare_exchange_strong(&c->rest->gc_park, &s, PARK_ACCEPTED)) {
        GC_lz_set_blocked(c->rest->gc_thread, 1); /* Boehm leaves it alone */
        n_parked++;
        break;
      }
    }
  }
}

/* Boehm's GC_start_world, after the others were restarted, with the lock held. */
static void release(void) {
#if LZ_REPLAY
  if (lz_replaying) return; /* gather decided nothing */
#endif
  for (unsigned i = 0; i < lz_ncaps; i++) {
    LzCap *c = lz_caps[i];
    if (c == lz_current_cap) continue;
    if (atomic_load(&c->rest->gc_park) == PARK_ACCEPTED) {
      GC_lz_set_blocked(c->rest->gc_thread, 0);
      atomic_store(&c->rest->gc_park, PARK_RUNNING);
      futex_wake(&c->rest->gc_park);
    } else {
      atomic_store(&c->rest->gc_park, PARK_RUNNING); /* was closed */
    }
  }
}

/* Inside GC_lz_park: registers saved, stack pointer stored. Touches no heap object. */
static void GC_CALLBACK park_wait(void *arg) {
  LzCap *cap = arg;
  _Atomic int *w = &cap->rest->gc_park;
  int s = PARK_RUNNING;
  if (!atomic_compare_exchange_strong(w, &s, PARK_PARKED))
    return; /* closed: this collection signals us instead */
  /* the collector stopped gathering before the offer (or this is a late look at the flag
   * of a collection already over): take the offer back unless it was accepted first */
  s = PARK_PARKED;
  if (!atomic_load(&gathering) && atomic_compare_exchange_strong(w, &s, PARK_RUNNING)) return;
  /* Wait while the offer stands, not on CLOSED: the offer may have been accepted and
   * released before this thread read `gathering`, and a later collection closed the word
   * meanwhile; it signals this thread and its release stores RUNNING without a wake-up
   * (Note [Parking for collections], "A decision not ours") */
  while ((s = atomic_load(w)) == PARK_PARKED || s == PARK_ACCEPTED)
    futex_wait(w, s);
}

/* Boehm's GC_lock, around the wait for its allocation lock, with the registers pushed and
 * the stack pointer stored (patch.cmake): the wait is a safe point, offered to a collector
 * that holds the lock meanwhile. When the lock is ours, any collection is over. */
static void lock_wait(int begin) {
  LzCap *cap = lz_current_cap;
  if (!cap) return; /* not a capability's thread */
  int s = begin ? PARK_RUNNING : PARK_PARKED;
  atomic_compare_exchange_strong(&cap->rest->gc_park, &s, begin ? PARK_PARKED : PARK_RUNNING);
}

bool lz_gc_park_safe_point(LzCap *cap) {
  if (!atomic_load_explicit(&gathering, memory_order_relaxed) || !cap->rest->gc_thread)
    return false;
  GC_lz_park(park_wait, cap);
  return true;
}

void lz_gc_park_thread(LzCap *cap) { cap->rest->gc_thread = GC_lz_thread_self(); }

void lz_gc_park_counters(uint64_t *stops, uint64_t *parked, uint64_t *signalled) {
  *stops = n_stops, *parked = n_parked, *signalled = n_signalled;
}

/* A fork()ed child has only the forking thread: the other capabilities' park words (an
 * offer made while the fork held Boehm's lock) name Boehm descriptors the child freed. */
static void off_in_child(void) {
  GC_lz_before_stop = NULL;
  GC_lz_after_start = NULL;
  GC_lz_lock_wait = NULL;
}

void lz_gc_park_init(void) {
  if (lz_ncaps < 2) return;
  pthread_atfork(NULL, NULL, off_in_child);
  GC_lz_before_stop = gather;
  GC_lz_after_start = release;
  GC_lz_lock_wait = lock_wait;
}
#endif
