#!/usr/bin/env bash
# The README's benchmark command: builds with the shipped flags (-O2) into
# build-bench/, runs the core benchmark, then the HTTP benchmarks against a real
# rigd. Every figure is printed beside a baseline measured in the same run.
#   BENCH_SECONDS=4 (per HTTP case)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIG_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench -j"$(nproc)"
core_out=$(./build-bench/bench/bench_core | tee /dev/stderr)
# The single-thread cost of one skin evaluate of 10,000 vertices (µs), for the range baseline.
# map-points location: the spatial index beside the brute-force scan.
./build-bench/bench/bench_mesh_map
# IK constraints: resolver time per frame with 8 two-bone + 2 five-bone chains beside none.
./build-bench/bench/bench_ik
eval_us=$(printf '%s\n' "$core_out" | awk '/^10000 vertices/{f=1} f && /skin evaluate/{print $(NF-4); exit}')
python3 bench/run_http.py "$PWD/build-bench" "$eval_us"
# Memory of one 64 MiB layer.skin batch: peak RSS / body and RSS 5 s after / idle.
python3 bench/memory_batch.py "$PWD/build-bench" --repeat 2 || echo "memory: a target was missed (above)"
# History (issue 15): bytes a one-vertex weights.put on a 1,048,576-vertex skin writes, beside a
# layer.rename; BENCH_BASELINE_RIGD=<a rigd without history> measures it too, in the same run.
python3 bench/history_bytes.py "$PWD/build-bench" \
	${BENCH_BASELINE_RIGD:+--baseline-bin "$BENCH_BASELINE_RIGD"} || echo "history: a target was missed (above)"
