"""SLOW (about 15 s): a skin at the SPEC vertex limit uploads with the default
body limit (issue 11, item 3).

A 1024 x 1024 grid is 1,048,576 vertices (SPEC §2's limit), 2,091,006
triangles and one joint: about 88 MiB of JSON in one layer.skin batch. rigd
runs with its defaults (--max-body 128 MiB; before, 64 MiB answered 413), the
batch is 201, and one page of the layer's vertices reads back with the right
total and coordinates. The upload's VmHWM is printed and bounded at 8x the body
above idle (a generous bound; bench/memory_batch.py measures it exactly).
"""
import os
import sys
import time

from rigd_harness import RigdTestCase, main

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
from memory_batch import grid_body, status_kb  # noqa: E402

MiB = 1 << 20


class MillionVertexUpload(RigdTestCase):
    def test_skin_at_the_vertex_limit_uploads_and_reads_back(self):
        n = 1024
        t0 = time.monotonic()
        body = grid_body(n)
        gen_s = time.monotonic() - t0
        self.assertGreater(len(body), 64 * MiB)  # over the old default limit
        self.assertEqual(self.rigd.get("/v1/limits").json["maxBodyBytes"], 128 * MiB)
        pid = self.rigd.proc.pid
        self.rigd.make_shot("p1", "s1")
        self.rigd.edit("s1", [
            {"op": "layer.create", "layerId": "joint", "name": "joint", "kind": "group",
             "transform": {"position": [5, 7]}},
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"}])
        idle = status_kb(pid)["VmRSS"]
        t1 = time.monotonic()
        conn = self.rigd.connect(timeout=120)
        r = self.rigd.post("/v1/shots/s1/edits", raw=body, conn=conn)
        conn.close()
        up_s = time.monotonic() - t1
        self.assertEqual(r.status, 201, r)
        hwm = status_kb(pid)["VmHWM"]
        print(f"\n1,048,576 vertices: body {len(body) / MiB:.1f} MiB generated in {gen_s:.1f} s, "
              f"stored in {up_s:.1f} s; VmHWM {hwm / 1024:.0f} MiB "
              f"({(hwm - idle) * 1024 / len(body):.2f}x the body above idle)", flush=True)
        self.assertLess((hwm - idle) * 1024, 8 * len(body))
        p = self.rigd.get("/v1/shots/s1/layers/m/mesh-data/vertices?pageSize=1000&frame=0")
        self.assertEqual(p.status, 200, p)
        page = p.json
        self.assertEqual((page["total"], page["count"]), (n * n, 1000))
        first, last = page["items"][0], page["items"][999]
        self.assertEqual((first["x"], first["y"]), (5.0, 7.0))  # vertex 0 moved by the joint
        self.assertEqual((last["x"], last["y"]), (999 % n + 5.0, 999 // n + 7.0))


if __name__ == "__main__":
    main()
