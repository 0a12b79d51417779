#!/usr/bin/env bash
# Runs the libFuzzer targets for a bounded time each (default 30 s), starting
# from the committed seed corpus, with ASan + UBSan; any crash, leak or
# sanitizer report fails the run. Needs clang (installed by install-deps.sh).
#   FUZZ_SECONDS=60 ./scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
CC=clang cmake -S . -B build-fuzz -DRIG_FUZZ=ON -DRIG_WERROR=ON -DRIG_BUILD_TESTS=OFF -DRIG_BUILD_BENCH=OFF \
      -DRIG_BUILD_CLIENTS=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_batch fuzz_skin fuzz_mesh_map fuzz_puppet fuzz_import
status=0
for target in batch skin mesh_map puppet import; do
  work=$(mktemp -d)
  cp tests/fuzz/corpus/$target/* "$work"/
  log=$(mktemp)
  echo "fuzz_$target: ${seconds}s from $(ls tests/fuzz/corpus/$target | wc -l) seeds"
  artifacts=$(mktemp -d)
  if ./build-fuzz/tests/fuzz/fuzz_$target -max_total_time="$seconds" -max_len=65536 \
       -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" >"$log" 2>&1; then
    grep -E "^stat::(number_of_executed_units|peak_rss_mb|new_units_added)" "$log" | sed 's/^/  /'
  else
    echo "fuzz_$target FAILED:"; tail -40 "$log"; status=1
    # The input itself, so a failure on a machine we cannot reach can be replayed:
    #   base64 -d > crash && ./build-fuzz/tests/fuzz/fuzz_<target> crash
    for f in "$artifacts"/*; do
      [ -f "$f" ] && { echo "input $(basename "$f") (base64):"; base64 -w0 "$f" | head -c 65536; echo; }
    done
  fi
  rm -rf "$work" "$log" "$artifacts"
done
exit $status
