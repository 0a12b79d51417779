#!/usr/bin/env bash
# The README's test command: install packages, build, run every test under
# ctest (Criterion units + end-to-end against the real rigd), lint openapi.yaml,
# then run the libFuzzer targets for a bounded time. Warnings are errors here
# (-DRIG_WERROR=ON).
#   RIG_SANITIZE=1 ./scripts/test.sh   the suite under ASan + UBSan (build-asan/)
#   FUZZ_SECONDS=30                    per fuzz target (0 skips fuzzing)
#   RIG_EXTRA_BUILDS=0                 skip the gcc Release and clang builds
#   RIG_TSAN_RUN=0                     skip the ThreadSanitizer run
# Besides the main build (gcc -O2, build/), the suite is built, not run, with
# gcc Release (-O3 -DNDEBUG, build-release/) and clang -O2 (build-clang/): each
# compiler and optimisation level warns about different things, and running
# the suite three times would triple the time. scripts/tsan.sh then runs the
# concurrency tests under ThreadSanitizer (build-tsan/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
dir=build; flags=(-DRIG_WERROR=ON)
if [ "${RIG_SANITIZE:-0}" = 1 ]; then dir=build-asan; flags+=(-DRIG_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug); fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
if [ "${RIG_SANITIZE:-0}" != 1 ] && [ "${RIG_EXTRA_BUILDS:-1}" != 0 ]; then
  cmake -S . -B build-release -DRIG_WERROR=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-release -j"$(nproc)"
  cmake -S . -B build-clang -DRIG_WERROR=ON -DCMAKE_C_COMPILER=clang >/dev/null
  cmake --build build-clang -j"$(nproc)"
fi
./scripts/oracles.sh
ctest --test-dir "$dir" --output-on-failure -j2 "$@"
if [ "${RIG_SANITIZE:-0}" != 1 ] && [ "${RIG_TSAN_RUN:-1}" != 0 ]; then
  ./scripts/tsan.sh
fi
./scripts/lint-openapi.sh
if [ "${FUZZ_SECONDS:-30}" != 0 ]; then
  FUZZ_SECONDS=${FUZZ_SECONDS:-30} ./scripts/fuzz.sh
fi
