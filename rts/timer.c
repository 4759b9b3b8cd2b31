/* timer.c — a plain OS thread that calls a function at a fixed interval: the threaded way's
 * pre-emption timer (sched.c's `tick` sets every capability's yield flag each -C interval).
 *
 * This file must not include gc.h (rts_priv.h): there `pthread_create` is Boehm's, which
 * registers the thread with the collector, and every collection then stops it with a
 * signal and waits for its answer. The timer holds no heap pointers, so it need not be
 * stopped; registered, it made each collection of coins7 at -N1 cost four times what it
 * costs in the vanilla way (Note [An unregistered timer] in docs/notes/threaded-rts.md).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "timer.h"

static void (*tick_fn)(void);
static struct timespec interval;

static void *timer_main(void *arg) {
  (void)arg;
  for (;;) {
    nanosleep(&interval, NULL);
    tick_fn();
  }
  return NULL;
}

bool lz_timer_start(uint64_t ns, void (*tick)(void)) {
  tick_fn = tick;
  interval.tv_sec = (time_t)(ns / 1000000000u);
  interval.tv_nsec = (long)(ns % 1000000000u);
  pthread_attr_t attr;
  pthread_t tid;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int r = pthread_create(&tid, &attr, timer_main, NULL);
  pthread_attr_destroy(&attr);
  return r == 0;
}
