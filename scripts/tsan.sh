#!/usr/bin/env bash
# Builds rigd with ThreadSanitizer (build-tsan/, -DRIG_TSAN=ON) and runs the
# concurrency tests under it: the read cache's unit test (4 threads sharing one
# cache) and the end-to-end suites that drive the group committer, in-flight
# idempotency keys, the read cache, reads during a long batch and the
# frame-range workers with parallel clients, and the frame checks (edits and
# GET …/check) on the same workers, and history compaction on the
# housekeeping worker beside edits and reads. (The memory-bound suites are left
# out: TSan's shadow memory breaks their RSS limits and RLIMIT_AS.) Any TSan report in
# rigd's log fails the e2e test (tests/e2e/rigd_harness.py); a report in the
# unit test fails it through TSan's exit code. tests/tsan.supp lists the
# reports that are not rigd's, each with its reason.
#   ./scripts/tsan.sh            build and run
#   ./scripts/tsan.sh -V         extra arguments go to ctest
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-tsan -DRIG_TSAN=ON -DRIG_WERROR=ON -DRIG_BUILD_BENCH=OFF \
      -DRIG_BUILD_CLIENTS=OFF >/dev/null
cmake --build build-tsan -j"$(nproc)" --target rigd test_api_read_cache
export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
tests='^(test_api_read_cache|e2e_test_(group_commit|concurrency|idempotency|idempotency_scope|read_cache|read_consistency|frames_range|check_frames|history))$'
ctest --test-dir build-tsan --output-on-failure -j2 -R "$tests" "$@"
