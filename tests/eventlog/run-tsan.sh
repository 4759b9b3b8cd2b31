#!/usr/bin/env bash
# run-tsan.sh — the event-log writer's unit test under ThreadSanitizer (ctest eventlog/tsan).
#
#   tests/eventlog/run-tsan.sh SOURCE_DIR BUILD_DIR [CLANG]
#
# Builds rts/eventlog.c and rts/eventlog_writer.c with tests/unit/test_eventlog.c using
# clang -fsanitize=thread and runs it; any data race report fails the test
# (halt_on_error).
set -euo pipefail
src="$1"; build="$2"; clang="${3:-clang}"
mkdir -p "$build"
"$clang" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -g -O1 \
  -fsanitize=thread -fno-omit-frame-pointer -I"$src/rts" \
  "$src/rts/eventlog.c" "$src/rts/eventlog_writer.c" "$src/tests/unit/test_eventlog.c" -lcmocka -lpthread \
  -o "$build/test_eventlog_tsan"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
  "$build/test_eventlog_tsan"
