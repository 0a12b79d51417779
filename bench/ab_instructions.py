#!/usr/bin/env python3
"""Compares rigd binaries by instructions per request, counted by valgrind's
callgrind: the same on every run, so two builds compare on a shared, noisy
machine where wall-clock and CPU time do not (a reference, not a speed: I/O
waits, caches and fsync do not count, and valgrind counts a `rep stos` memset
one instruction a byte).

Each binary runs under callgrind on its own copy of run_http.py's fixture
(a 10,000-vertex skin on 64 keyed joints, 50 plain layers); after a warm-up
(the same requests, filling the caches) the counters are zeroed, the case's
requests are sent one after another and the counters dumped.

  AB_BINS="before=/path/a/server/rigd,after=build-bench/server/rigd" \\
    python3 bench/ab_instructions.py      # AB_CASES="1-op 50-op frame weights shot" (also json-frame vertices), AB_N=30
                                          # AB_KEEP=DIR keeps the dumps (callgrind_annotate)

A binary without `--auth` (from before issue 11) is started without it.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.argv = [sys.argv[0], os.path.join(os.path.dirname(HERE), "build-bench")]
sys.path.insert(0, HERE)
import run_http as rh  # noqa: E402
import rigd_harness  # noqa: E402

N = int(os.environ.get("AB_N", "30"))


def ops(n, value):
    return [{"op": "layer.pose", "layerId": f"p{j}", "transform": {"rotation": value}} for j in range(n)]


CASES = {  # name: (method, path, body for request i)
    "1-op": ("POST", "/v1/shots/s/edits", lambda i: {"ops": ops(1, 3 + i)}),
    "50-op": ("POST", "/v1/shots/s/edits", lambda i: {"ops": ops(50, 3 + i)}),
    "frame": ("GET", "/v1/shots/s/frames/500?layers=mesh&format=f32", None),
    "json-frame": ("GET", "/v1/shots/s/frames/500?layers=mesh", None),
    "weights": ("GET", "/v1/shots/s/layers/mesh/mesh-data/weights?pageSize=1000", None),
    "vertices": ("GET", "/v1/shots/s/layers/mesh/mesh-data/vertices?pageSize=1000&frame=500", None),
    "shot": ("GET", "/v1/shots/s", None),
}


def send(r, method, path, body, i):
    resp = r.post(path, body(i)) if method == "POST" else r.get(path)
    assert resp.status in (200, 201), resp


def total(out):
    for line in subprocess.run(["callgrind_annotate", out], capture_output=True,
                               text=True).stdout.splitlines():
        if "PROGRAM TOTALS" in line:
            return int(line.split()[0].replace(",", ""))
    raise RuntimeError("no totals in " + out)


def measure(binary, case, tmp):
    wrapper = os.path.join(tmp, "under-callgrind.sh")
    prefix = os.path.join(tmp, "cg")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file={prefix}.%p '
                f'"{binary}" "$@"\n')
    os.chmod(wrapper, 0o755)
    rigd_harness.RIGD_BIN = wrapper
    r = rigd_harness.Rigd(db_path=os.path.join(tempfile.mkdtemp(dir=tmp), "ab.db"))
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True)
    if "--auth" not in help_text.stdout + help_text.stderr:
        r.extra_args = [a for a in r.extra_args if a not in ("--auth", "off")]
    r.start(timeout=180)
    try:
        rh.build_fixture(r)
        method, path, body = CASES[case]
        for i in range(5):
            send(r, method, path, body, 1000 + i)
        subprocess.run(["callgrind_control", "-z", str(r.proc.pid)], check=True, capture_output=True)
        for i in range(N):
            send(r, method, path, body, i)
        subprocess.run(["callgrind_control", "-d", str(r.proc.pid)], check=True, capture_output=True)
    finally:
        r.stop()
    dumps = [d for d in glob.glob(prefix + ".*.*")]
    if not dumps:
        raise RuntimeError("callgrind wrote no dump")
    keep = os.environ.get("AB_KEEP")  # a folder to keep the dumps in, for callgrind_annotate
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(dumps[0], os.path.join(keep, f"{case}.{os.path.basename(os.path.dirname(binary))}"
                                                 f".{len(os.listdir(keep))}.out"))
    return total(dumps[0]) / N


def main():
    bins = dict(a.split("=", 1) for a in os.environ["AB_BINS"].split(","))
    cases = os.environ.get("AB_CASES", "1-op 50-op frame weights shot").split()
    print(f"instructions per request (callgrind, {N} requests after a warm-up)")
    for case in cases:
        row = []
        for side, binary in bins.items():
            with tempfile.TemporaryDirectory(prefix="ab-ir-") as tmp:
                row.append((side, measure(binary, case, tmp)))
        base = row[0][1]
        cells = "  ".join(f"{side} {ir:12,.0f}" for side, ir in row)
        print(f"  {case:<10} {cells}  ({row[-1][0]} / {row[0][0]} = {row[-1][1] / base:.2f})")


if __name__ == "__main__":
    main()
