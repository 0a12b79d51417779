#!/usr/bin/env python3
"""Time of GET /v1/shots/{shotId}/diff on a large skin (issue 15 item 3).

Starts a real rigd, stores one n x n skin (default 1024: 1,048,576 vertices),
then measures, each --rounds times (median):
  - the diff of a one-vertex layer.skin.weights.put (both versions' bindings
    read whole and compared; one run in the answer), beside a layer.rename's
    diff (no binding read);
  - the diff of a layer.skin that moves every second source vertex (524,288
    runs), walked page by page at the default maxBytes (1 MiB), with the page
    count and total bytes.

Usage: bench/diff_large.py [BUILD_DIR] [--side N] [--rounds K]
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

from memory_batch import grid_body  # noqa: E402


def timed_get(rigd, path):
    conn = rigd.connect(timeout=600)
    t0 = time.monotonic()
    r = rigd.get(path, conn=conn)
    took = time.monotonic() - t0
    conn.close()
    if r.status != 200:
        raise RuntimeError(f"{path}: HTTP {r.status} {r.body[:300]!r}")
    return r, took


def walk(rigd, path):
    """Every page of path: (pages, bytes, seconds, runs of source)."""
    token, pages, size, runs, t0 = None, 0, 0, 0, time.monotonic()
    while True:
        r, _ = timed_get(rigd, path + (f"&pageToken={token}" if token else ""))
        pages += 1
        size += len(r.body)
        for item in r.json["layers"]:
            parts = item.get("binding", {}).get("parts", {})
            runs += len(parts.get("source", {}).get("changedVertices", []))
        token = r.json.get("nextPageToken")
        if not token:
            return pages, size, time.monotonic() - t0, runs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--side", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    os.environ["RIGD_BIN"] = os.path.join(a.build, "server", "rigd")
    import rigd_harness
    rigd_harness.RIGD_BIN = os.environ["RIGD_BIN"]
    n = a.side
    rigd = rigd_harness.Rigd(extra_args=["--max-body", str(256 << 20)]).start()
    try:
        rigd.make_shot("p1", "s1")
        rigd.edit("s1", [
            {"op": "layer.create", "layerId": "joint", "name": "joint", "kind": "group"},
            {"op": "layer.create", "layerId": "joint2", "name": "joint2", "kind": "group"},
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"}])
        # Two joints, so one vertex's weights can move to the second.
        body = grid_body(n).replace(
            b'"joints":[{"id":"j","bind":[1,0,0,1,0,0]}],"jointLayers":[{"jointId":"j",'
            b'"layerId":"joint"}]',
            b'"joints":[{"id":"j","bind":[1,0,0,1,0,0]},{"id":"k","bind":[1,0,0,1,0,0]}],'
            b'"jointLayers":[{"jointId":"j","layerId":"joint"},'
            b'{"jointId":"k","layerId":"joint2"}]')
        assert b'"id":"k"' in body
        conn = rigd.connect(timeout=600)
        r = rigd.post("/v1/shots/s1/edits", raw=body, conn=conn)
        conn.close()
        assert r.status == 201, r
        v = r.json["toVersion"]
        rigd.edit("s1", [{"op": "layer.skin.weights.put", "layerId": "m",
                          "vertexIndex": n * n // 2,
                          "influences": [{"jointId": "k", "weight": 1}]}])
        rigd.edit("s1", [{"op": "layer.rename", "layerId": "m", "name": "m2"}])
        put, ren = [], []
        for _ in range(a.rounds):
            r, t = timed_get(rigd, f"/v1/shots/s1/diff?from={v}&to={v + 1}")
            assert r.json["layers"][0]["binding"]["parts"]["weights"]["changedVertices"] == [
                n * n // 2], r.json
            put.append(t)
            ren.append(timed_get(rigd, f"/v1/shots/s1/diff?from={v + 1}&to={v + 2}")[1])
        print(f"{n * n} vertices: diff of a one-vertex weights.put "
              f"{statistics.median(put) * 1000:8.1f} ms; of a layer.rename "
              f"{statistics.median(ren) * 1000:6.1f} ms (median of {a.rounds})", flush=True)
        src = b",".join(b'{"x":%d,"y":%s}' % (i % n, b"%d.5" % (i // n) if i % 2 else
                                               b"%d" % (i // n)) for i in range(n * n))
        start = body.index(b'"source":[') + len(b'"source":[')
        end = body.index(b'],"triangles"')
        moved = body[:start] + src + body[end:]
        conn = rigd.connect(timeout=600)
        r = rigd.post("/v1/shots/s1/edits", raw=moved, conn=conn)
        conn.close()
        assert r.status == 201, r
        to = r.json["toVersion"]
        walks = [walk(rigd, f"/v1/shots/s1/diff?from={to - 1}&to={to}")
                 for _ in range(a.rounds)]
        pages, size, _, runs = walks[0]
        assert runs == n * n // 2, runs
        print(f"{n * n} vertices: diff moving every second vertex ({runs} runs): {pages} pages, "
              f"{size / 2**20:.1f} MiB, walked in {statistics.median(w[2] for w in walks):.1f} s "
              f"(median of {a.rounds})", flush=True)
    finally:
        rigd.cleanup()


if __name__ == "__main__":
    main()
