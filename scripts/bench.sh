#!/usr/bin/env bash
# The README's benchmark command: builds with the shipped flags (-O2) into
# build-bench/, runs the core benchmark, then the HTTP benchmarks against a real
# rigd. Every figure is printed beside a baseline measured in the same run.
#   BENCH_SECONDS=4 (per HTTP case)
#   BENCH_QUICK=1   the short mode CI runs (.ci/run): BENCH_SECONDS=1 unless set, and
#                   smaller inputs for the slowest steps (1,000 map-points per set, a
#                   16 MiB memory batch settling 1 s, a 256 × 256 history skin, a
#                   compaction backlog of 3,000 versions in one round, 2 puppet rounds, 2
#                   automatic-weights and 2 tessellation rounds); the same cases, each still
#                   beside its baseline, in about two minutes
# Benchmarks report, they never assert: a missed target is a line of the output. The exit
# status is non-zero only when a step could not run (a build, a crash, a server that did
# not start, a case whose requests failed) or a rigd of this build is left running.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
export PYTHONUNBUFFERED=1 # each line as it comes, in order with the C benchmarks' and stderr's
quick=${BENCH_QUICK:-0}
map_args=() memory_args=() history_args=() compact_args=() puppet_args=() weights_args=() tess_args=()
if [ "$quick" = 1 ]; then
  export BENCH_SECONDS=${BENCH_SECONDS:-1}
  map_args=(1000) memory_args=(--body-mib 16 --settle 1) history_args=(--side 256 --read-rounds 3)
  compact_args=(--versions 3000 --rounds 1 --rest-seconds 1)
  puppet_args=(2) weights_args=(2) tess_args=(2)
fi
./scripts/install-deps.sh
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIG_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench -j"$(nproc)"
rigd="$PWD/build-bench/server/rigd"
# (Printed once captured: tee /dev/stderr would reopen, and so empty, a log file on stderr.)
core_out=$(./build-bench/bench/bench_core)
printf '%s\n' "$core_out"
# The single-thread cost of one skin evaluate of 10,000 vertices (µs), for the range baseline.
eval_us=$(printf '%s\n' "$core_out" | awk '/^10000 vertices/{f=1} f && /skin evaluate/{print $(NF-4); exit}')
if [ -z "$eval_us" ]; then
  echo "bench.sh: no 10,000-vertex skin evaluate row in bench_core's output" >&2
  exit 1
fi
# map-points location: the spatial index beside the brute-force scan.
./build-bench/bench/bench_mesh_map "${map_args[@]}"
# IK constraints: resolver time per frame with 8 two-bone + 2 five-bone chains beside none.
./build-bench/bench/bench_ik
# Puppets (issue 24): first and warm frames, ARAP beside LBS, beside the seed's figures.
./build-bench/bench/bench_puppet "${puppet_args[@]}"
# Automatic weights and brushes (issue 25): each method beside the distance scan, a dab beside a pass.
./build-bench/bench/bench_auto_weights "${weights_args[@]}"
# Tessellation (issue 25): a 1024 x 1024 image at density 50, both modes, beside a count pass.
./build-bench/bench/bench_tessellate "${tess_args[@]}"
# Interchange (issue 26): a 60-bone, 10-mesh, 5,000-key document imported and exported
# beside parsing its bytes with jansson alone.
./build-bench/bench/bench_interchange "$( [ "${BENCH_QUICK:-0}" = 1 ] && echo 5 || echo 21 )"
# JSON numbers: the shortest-double printer beside the Ryu printer it replaced.
./build-bench/bench/bench_dtoa
# The resolver's whole frame of the same rig (µs), for the one-frame floor (issue 23, item 5).
frame_us=$(printf '%s\n' "$core_out" | awk '/^10000 vertices/{f=1} f && /resolver frame/{print $(NF-4); exit}')
if [ -z "$frame_us" ]; then
  echo "bench.sh: no 10,000-vertex resolver frame row in bench_core's output" >&2
  exit 1
fi
python3 bench/run_http.py "$PWD/build-bench" "$eval_us" "$frame_us"
# Memory of one 64 MiB layer.skin batch: peak RSS / body and RSS 5 s after / idle.
python3 bench/memory_batch.py "$PWD/build-bench" --repeat 2 "${memory_args[@]}"
# History (issue 15): bytes a one-vertex weights.put on a 1,048,576-vertex skin writes, beside a
# layer.rename; BENCH_BASELINE_RIGD=<a rigd without history> measures it too, in the same run.
python3 bench/history_bytes.py "$PWD/build-bench" "${history_args[@]}" \
	${BENCH_BASELINE_RIGD:+--baseline-bin "$BENCH_BASELINE_RIGD"}
# History compaction: one sweep over a backlog of 39,000 versions past --history-versions 1000,
# and a second connection's BEGIN IMMEDIATE and edit batches during it, beside the same at rest;
# BENCH_COMPACT_BASELINE_RIGD=<main's rigd> runs the same with it, rounds alternating.
python3 bench/history_compact.py "$PWD/build-bench" "${compact_args[@]}" \
	${BENCH_COMPACT_BASELINE_RIGD:+--baseline-bin "$BENCH_COMPACT_BASELINE_RIGD"}
# Every step stops the servers it started; one still running is a bug to see, not to hide.
left=()
for pid in $(pgrep -x rigd || true); do
  if [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$rigd" ]; then left+=("$pid"); fi
done
if [ ${#left[@]} -gt 0 ]; then
  echo "bench.sh: rigd of build-bench/ left running after the benchmarks (pids ${left[*]})" >&2
  exit 1
fi
echo "bench.sh: every step ran ($((SECONDS - start)) s$([ "$quick" = 1 ] && echo ", short mode"))"
