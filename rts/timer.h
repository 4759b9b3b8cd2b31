/* timer.h — a plain OS thread, not registered with Boehm, that calls `tick` every `ns`
 * nanoseconds until the process exits (rts/timer.c). `tick` must not touch the heap. */
#ifndef LZ_TIMER_H
#define LZ_TIMER_H

#include <stdbool.h>
#include <stdint.h>

bool lz_timer_start(uint64_t ns, void (*tick)(void));

#endif
