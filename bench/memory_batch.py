#!/usr/bin/env python3
"""Memory of one large edit batch (issue 11, item 3), each figure beside its target.

Starts a real rigd, creates a shot with a joint layer and a mesh layer, then
posts ONE edit batch whose only op is a `layer.skin` of an n x n grid (one
joint, one influence per vertex) sized so the body is about --body-mib MiB
(default 64). It reads VmRSS/VmHWM from /proc/<pid>/status when idle (after the
setup), at the peak (VmHWM after the batch) and 5 s after the answer, and prints

  peak RSS / body      target <= 8x    (VmHWM - idle RSS, over the body size)
  RSS 5 s after / idle target <= 1.5x

Usage: bench/memory_batch.py [BUILD_DIR] [--body-mib N] [--repeat K]
--repeat posts the same batch K times (to a fresh mesh layer each time) and
reports the RSS after each, to show that memory does not ratchet.
Exits 0 whether or not a target is met (the lines above say); non-zero only when
the benchmark could not run (rigd did not start, the batch was refused).
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))


def status_kb(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out


def grid_body(n, layer=b"m", joint_layer=b"joint"):
    """The encoded edit body: one layer.skin op with an n x n grid."""
    source = b",".join(b'{"x":%d,"y":%d}' % (i % n, i // n) for i in range(n * n))
    tris = b",".join(b"[%d,%d,%d],[%d,%d,%d]" % (i, i + 1, i + n + 1, i, i + n + 1, i + n)
                     for y in range(n - 1) for i in range(y * n, y * n + n - 1))
    weights = b",".join([b'[{"jointId":"j","weight":1}]'] * (n * n))
    return (b'{"ops":[{"op":"layer.skin","layerId":"' + layer + b'","skin":{"source":['
            + source + b'],"triangles":[' + tris
            + b'],"joints":[{"id":"j","bind":[1,0,0,1,0,0]}],"jointLayers":[{"jointId":"j",'
            b'"layerId":"' + joint_layer + b'"}],"weights":[' + weights + b"]}}]}")


def grid_for(body_mib):
    """The grid side whose body is closest to body_mib MiB (about 92 bytes a vertex)."""
    n = int((body_mib * 2**20 / 92) ** 0.5)
    return max(n, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--body-mib", type=float, default=64)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--settle", type=float, default=5.0)
    ap.add_argument("--arg", action="append", default=[], help="extra rigd argument")
    a = ap.parse_args()
    os.environ["RIGD_BIN"] = os.path.join(a.build, "server", "rigd")
    from rigd_harness import Rigd

    n = grid_for(a.body_mib)
    t0 = time.monotonic()
    body = grid_body(n)
    gen_s = time.monotonic() - t0
    rigd = Rigd(extra_args=["--max-body", str(256 << 20), *a.arg])
    rigd.start()
    try:
        pid = rigd.proc.pid
        rigd.make_shot("p1", "s1")
        ops = [{"op": "layer.create", "layerId": "joint", "name": "joint", "kind": "group"}]
        ops += [{"op": "layer.create", "layerId": f"m{k}", "name": f"m{k}", "kind": "mesh"}
                for k in range(a.repeat)]
        rigd.edit("s1", ops)
        time.sleep(0.5)
        idle = status_kb(pid)["VmRSS"]
        print(f"body: {n}x{n} grid, {n * n} vertices, {len(body) / 2**20:.1f} MiB "
              f"(generated in {gen_s:.1f} s); idle VmRSS {idle / 1024:.1f} MiB", flush=True)
        worst_ratio, worst_after = 0.0, 0.0
        for k in range(a.repeat):
            data = body.replace(b'"layerId":"m"', b'"layerId":"m%d"' % k, 1)
            t1 = time.monotonic()
            r = rigd.post("/v1/shots/s1/edits", raw=data)
            took = time.monotonic() - t1
            if r.status != 201:
                print(f"batch {k}: HTTP {r.status} {r.body[:300]!r}")
                return 1
            hwm = status_kb(pid)["VmHWM"]
            time.sleep(a.settle)
            after = status_kb(pid)["VmRSS"]
            ratio = (hwm - idle) * 1024 / len(data)
            worst_ratio = max(worst_ratio, ratio)
            worst_after = max(worst_after, after / idle)
            print(f"batch {k}: 201 in {took:.1f} s; VmHWM {hwm / 1024:.0f} MiB; "
                  f"VmRSS {a.settle:.0f} s after {after / 1024:.1f} MiB", flush=True)
        print(f"peak RSS / body         {worst_ratio:5.2f}x   target <= 8x    "
              f"{'ok' if worst_ratio <= 8 else 'OVER'}")
        print(f"RSS {a.settle:.0f} s after / idle   {worst_after:5.2f}x   target <= 1.5x  "
              f"{'ok' if worst_after <= 1.5 else 'OVER'}")
        return 0  # the targets are reported above, not asserted: a benchmark reports
    finally:
        rigd.cleanup()


if __name__ == "__main__":
    sys.exit(main())
