/* replay_baton.c — the baton of a replay: which capability's OS thread may run.
 *
 * A replay runs one capability at a time (replay_sched.c). Handing the baton over is the
 * replay's most frequent synchronisation (thousands per second in quicksort), so it is a
 * store, not a lock: the new holder notices it by spinning for a short while, and only a
 * capability that has waited longer sleeps on its own condition variable, which the
 * passer signals only when the flag says it sleeps. Note [Baton hand-over] in
 * docs/notes/replay.md.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "replay.h"

#define MAX_CAPS 256 /* flags.c's limit on -N */

typedef struct Sleeper {
  pthread_cond_t wake;
  atomic_bool sleeping;
} __attribute__((aligned(64))) Sleeper;

static atomic_uint holder; /* the capability allowed to run; 0 at start */
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static Sleeper sleepers[MAX_CAPS];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static long spin_ns; /* how long a waiter spins before it sleeps (0: it does not) */

static void init(void) {
  for (unsigned i = 0; i < MAX_CAPS; i++)
    pthread_cond_init(&sleepers[i].wake, NULL);
  /* Spinning only pays when every capability has a core of its own: otherwise the
   * spinner takes the core the holder needs. 200 us covers most hand-overs (a
   * quicksort replay hands over every ~100 us) and bounds what an idle wait burns. */
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  spin_ns = cores > 0 && lz_ncaps <= (unsigned long)cores ? 200000 : 0;
}

static long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

void lz_rpl_baton_pass(unsigned to) {
  pthread_once(&once, init);
  /* Dekker-style with lz_rpl_baton_await's sleeping/holder pair (both seq_cst): either
   * the sleeper sees the new holder before it sleeps, or we see it sleeping. */
  atomic_store(&holder, to);
  if (atomic_load(&sleepers[to].sleeping)) {
    pthread_mutex_lock(&sleep_lock);
    pthread_cond_signal(&sleepers[to].wake);
    pthread_mutex_unlock(&sleep_lock);
  }
}

void lz_rpl_baton_await(unsigned me) {
  pthread_once(&once, init);
  if (atomic_load(&holder) == me) return;
  if (spin_ns) {
    long until = now_ns() + spin_ns;
    for (unsigned i = 1;; i++) {
      if (atomic_load_explicit(&holder, memory_order_acquire) == me) return;
      if (i % 64 == 0) {
        long t = now_ns();
        if (t > until) break;
        if (t > until - spin_ns + 20000) sched_yield(); /* after 20 us: let others run */
      }
      __builtin_ia32_pause();
    }
  } else {
    sched_yield(); /* the holder may be about to pass it back */
    if (atomic_load(&holder) == me) return;
  }
  Sleeper *s = &sleepers[me];
  pthread_mutex_lock(&sleep_lock);
  atomic_store(&s->sleeping, true);
  while (atomic_load(&holder) != me)
    pthread_cond_wait(&s->wake, &sleep_lock);
  atomic_store(&s->sleeping, false);
  pthread_mutex_unlock(&sleep_lock);
}
#endif
