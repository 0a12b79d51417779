#!/usr/bin/env bash
# The README's test command: install packages, build, run every test under ctest.
#   RIG_SANITIZE=1 ./scripts/test.sh   runs the suite under ASan + UBSan (build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
dir=build; flags=()
if [ "${RIG_SANITIZE:-0}" = 1 ]; then dir=build-asan; flags=(-DRIG_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug); fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" --output-on-failure -j2 "$@"
