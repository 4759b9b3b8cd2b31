/* sparkpool_fixture.h — what the spark-pool tests share (test_rts_sparkpool*.c).
 *
 * Fake closures: two-word objects {info, spare} whose info pointer is one of three static
 * info tables (a thunk, a constructor, a blackhole), read and written with atomics as
 * the runtime's blackholing will; a cheap per-thread random generator; a clock; and
 * UNDER_TSAN, so the stress cases can size themselves when built with ThreadSanitizer.
 */
#ifndef LZ_SPARKPOOL_FIXTURE_H
#define LZ_SPARKPOOL_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "rts_priv.h"
#include "sparkpool.h"

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

static const LzInfo thunk_info = {.type = LZ_THUNK, .name = "thunk"};
static const LzInfo con_info = {.type = LZ_CON, .name = "Con"};
static const LzInfo bh_info = {.type = LZ_BLACKHOLE, .name = "BLACKHOLE"};

/* A fake heap of two-word objects {info, spare}, 16-byte aligned as Lz objects are. */
typedef struct {
  _Alignas(16) LzWord w[2];
} Obj;

static inline void obj_set(Obj *o, const LzInfo *info) {
  __atomic_store_n(&o->w[0], (LzWord)info, __ATOMIC_RELEASE);
}
/* "Evaluate" o: claim it THUNK -> CON with a CAS, as eager blackholing will. */
static inline bool obj_claim(Obj *o) {
  LzWord expect = (LzWord)&thunk_info;
  return __atomic_compare_exchange_n(&o->w[0], &expect, (LzWord)&con_info, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

static inline size_t env_size(const char *name, size_t dflt) {
  const char *s = getenv(name);
  return s && *s ? (size_t)strtoull(s, NULL, 10) : dflt;
}

static inline double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* xorshift64*: cheap per-thread randomness */
static inline uint64_t rnd(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}

#endif
