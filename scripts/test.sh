#!/usr/bin/env bash
# The README's test command: install packages, build, run every test under
# ctest (Criterion units + end-to-end against the real rigd), lint openapi.yaml,
# then run the libFuzzer targets for a bounded time.
#   RIG_SANITIZE=1 ./scripts/test.sh   the suite under ASan + UBSan (build-asan/)
#   FUZZ_SECONDS=30                    per fuzz target (0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
dir=build; flags=()
if [ "${RIG_SANITIZE:-0}" = 1 ]; then dir=build-asan; flags=(-DRIG_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug); fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" --output-on-failure -j2 "$@"
./scripts/lint-openapi.sh
if [ "${FUZZ_SECONDS:-30}" != 0 ]; then
  FUZZ_SECONDS=${FUZZ_SECONDS:-30} ./scripts/fuzz.sh
fi
