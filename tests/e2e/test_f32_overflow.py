"""format=f32 never sends a finite vertex as infinity (issue 11, item 6/8 f32).

A pose scale of 1e38 on a joint layer moves a vertex 10 units from the joint
to 1e39: a finite double (JSON prints it, 200) but beyond FLT_MAX, so the f32
encoder used to write +inf into a 200 body. Such a frame is now an error like
any non-finite vertex: 422 MESH_GEOMETRY naming the vertex, layer and frame
for a single frame or the first frame of a range; on a later frame of a range
version 1 aborts the stream after the frames before it (the body never looks
complete) and version 2 (f32Version=2) ends it with an error record holding
that problem (issue 13, item 3).
A value that rounds to FLT_MAX still fits and is sent.

The same class of bug in every format: the evaluator checks vertices in the
layer's local space, but carrying them up to shot space (or mapping points)
can still overflow a double. Such vertices used to print as
1.797693134862316e308 in a 200 JSON body; they are now 422 MESH_GEOMETRY too.
"""
import http.client
import json
import math
import struct

from rigd_harness import RigdTestCase, main
from test_skin_refmath import decode_f32

S = "s1"
FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]

SKIN = {
    "source": [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 0, "y": 10}],
    "triangles": [[0, 1, 2]],
    "joints": [{"id": "j", "bind": [1, 0, 0, 1, 0, 0]}],
    "weights": [[{"jointId": "j", "weight": 1}]] * 3,
    "jointLayers": [{"jointId": "j", "layerId": "bone"}],
}


class F32Overflow(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", S, frameStart=0, frameEnd=9)
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "bone", "name": "Bone", "kind": "group"},
            {"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "mesh"},
            {"op": "layer.skin", "layerId": "arm", "skin": SKIN},
        ])

    def scale_keys(self, keys):
        """Hold keys on both scale channels of the joint layer: [(frame, value)]."""
        ops = [{"op": "layer.key.put", "layerId": "bone", "channel": ch,
                "keys": [{"frame": f, "value": v, "interp": "hold"} for f, v in keys]}
               for ch in ("scale.x", "scale.y")]
        self.rigd.edit(S, ops)

    def frame(self, f, fmt):
        return self.rigd.get(f"/v1/shots/{S}/frames/{f}?layers=arm&format={fmt}")

    def range(self, start, end, fmt="f32"):
        return self.rigd.get(f"/v1/shots/{S}/layers/arm/frames?from={start}&to={end}"
                             f"&format={fmt}")

    def assertOverflow(self, r, frame):
        body = self.assertProblem(r, 422, "MESH_GEOMETRY")
        errors = body["errors"]
        self.assertEqual([e["vertexIndex"] for e in errors], [1, 2], body)
        for e in errors:
            self.assertEqual(e["code"], "MESH_GEOMETRY", e)
            self.assertEqual(e["layerId"], "arm", e)
            self.assertEqual(e["frame"], frame, e)
            self.assertEqual(e["triangleIndex"], 0, e)
            self.assertIn("f32", e["detail"])
        return body

    def test_single_frame_beyond_float_range_is_422_and_json_is_fine(self):
        self.scale_keys([(0, 1e38)])
        self.assertOverflow(self.frame(0, "f32"), 0)
        r = self.frame(0, "json")
        self.assertEqual(r.status, 200, r)
        verts = r.json["layers"][0]["vertices"]
        self.assertEqual(verts, [[0, 0], [1e39, 0], [0, 1e39]])

    def test_a_value_rounding_to_flt_max_still_fits(self):
        # 10 * 3.4028234663852886e37 rounds to FLT_MAX (below the halfway point to 2^128)
        self.scale_keys([(0, FLT_MAX / 10 * (1 + 2 ** -40))])
        r = self.frame(0, "f32")
        self.assertEqual(r.status, 200, r)
        _, nv, nf, frames = decode_f32(r.body)
        self.assertEqual((nv, nf), (3, 1))
        xs = [c for v in frames[0][1] for c in v]
        self.assertTrue(all(math.isfinite(c) for c in xs), xs)
        self.assertEqual(frames[0][1][1][0], FLT_MAX)

    def test_first_frame_of_a_range_is_422(self):
        self.scale_keys([(0, 1), (5, 1e38)])
        self.assertOverflow(self.range(5, 9), 5)
        for fmt in ("json", "obj"):
            with self.subTest(fmt=fmt):
                self.assertEqual(self.range(5, 9, fmt).status, 200)

    def test_a_later_frame_of_a_range_aborts_the_stream(self):
        """Frames 0-4 fit, 5 overflows: the 200 body must never decode as complete."""
        self.scale_keys([(0, 1), (5, 1e38)])
        self.assertEqual(self.range(0, 4).status, 200)
        for start in (0, -200):   # -200: the bad frame lies in a later chunk
            with self.subTest(start=start):
                conn = self.rigd.connect()
                try:
                    conn.request("GET", f"/v1/shots/{S}/layers/arm/frames"
                                        f"?from={start}&to=9&format=f32")
                    resp = conn.getresponse()
                    self.assertEqual(resp.status, 200)
                    try:
                        data = resp.read()
                    except (http.client.IncompleteRead, ConnectionError):
                        continue                      # an aborted stream: detectable
                finally:
                    conn.close()
                with self.assertRaises(Exception, msg="a truncated f32 body must not decode"):
                    decode_f32(data)
                self.assertNotIn(struct.pack("<f", math.inf), data)

    def test_a_later_frame_of_a_version_2_range_ends_with_its_error_record(self):
        """Frames 0-4 fit, 5 overflows: version 2 ends with an error record carrying the
        422's MESH_GEOMETRY problem, and never an infinity."""
        self.scale_keys([(0, 1), (5, 1e38)])
        for start in (0, -200):
            with self.subTest(start=start):
                r = self.rigd.get(f"/v1/shots/{S}/layers/arm/frames?from={start}&to=9"
                                  "&format=f32&f32Version=2")
                self.assertEqual(r.status, 200, r)
                n_good = 5 - start
                self.assertEqual(struct.unpack_from("<4sIII", r.body, 0),
                                 (b"RIGF", 2, 3, 10 - start))
                off = 16 + n_good * (16 + 8 * 3)
                tag, length, frame = struct.unpack_from("<IId", r.body, off)
                self.assertEqual((tag, frame, len(r.body)), (2, 5.0, off + 8 + length))
                problem = json.loads(r.body[off + 16:])
                self.assertEqual(problem["code"], "MESH_GEOMETRY")
                self.assertEqual([e["vertexIndex"] for e in problem["errors"]], [1, 2])
                self.assertEqual({e["frame"] for e in problem["errors"]}, {5})
                self.assertNotIn(struct.pack("<f", math.inf), r.body[:off])

    def test_the_server_keeps_serving(self):
        self.scale_keys([(0, 1e38)])
        for _ in range(3):
            self.assertOverflow(self.frame(0, "f32"), 0)
        self.assertEqual(self.rigd.get("/healthz").status, 200)


class NonFiniteAfterEvaluation(RigdTestCase):
    """P (scale 1e300) holds both the joint (scale 1e10) and the mesh: the local
    evaluation is finite (1e11), shot space is 1e311 = infinity."""

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", S, frameStart=0, frameEnd=3)
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "P", "name": "P", "kind": "group",
             "transform": {"scale": [1e300, 1e300]}},
            {"op": "layer.create", "layerId": "bone", "name": "Bone", "kind": "group",
             "parentId": "P", "transform": {"scale": [1e10, 1e10]}},
            {"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "mesh",
             "parentId": "P"},
            {"op": "layer.skin", "layerId": "arm", "skin": SKIN},
        ])

    def assertInfinite(self, r, frame=0.0):
        body = self.assertProblem(r, 422, "MESH_GEOMETRY")
        self.assertEqual([e["vertexIndex"] for e in body["errors"]], [1, 2], body)
        for e in body["errors"]:
            self.assertEqual((e["layerId"], e["frame"]), ("arm", frame), e)

    def test_local_space_is_finite(self):
        r = self.rigd.get(f"/v1/shots/{S}/frames/0?layers=arm")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["layers"][0]["vertices"], [[0, 0], [1e11, 0], [0, 1e11]])

    def test_shot_space_overflow_is_422_in_every_format(self):
        base = f"/v1/shots/{S}"
        for fmt in ("json", "f32"):
            with self.subTest(route="frame", fmt=fmt):
                self.assertInfinite(self.rigd.get(
                    f"{base}/frames/0?layers=arm&space=shot&format={fmt}"))
        for fmt in ("json", "f32", "obj"):
            with self.subTest(route="range", fmt=fmt):
                self.assertInfinite(self.rigd.get(
                    f"{base}/layers/arm/frames?from=0&to=3&space=shot&format={fmt}"))
        with self.subTest(route="mesh-data"):
            self.assertInfinite(self.rigd.get(
                f"{base}/layers/arm/mesh-data/vertices?frame=0&space=shot"))

    def test_mapped_points_that_overflow_are_422(self):
        r = self.rigd.post(f"/v1/shots/{S}/layers/arm/map-points?space=shot",
                           {"frame": 0, "points": [[0, 0], [1, 1]]})
        body = self.assertProblem(r, 422, "MESH_GEOMETRY")
        errors = body["errors"]
        self.assertEqual([e["pointer"] for e in errors], ["/points/1"], body)
        self.assertEqual((errors[0]["layerId"], errors[0]["frame"]), ("arm", 0.0))
        r = self.rigd.post(f"/v1/shots/{S}/layers/arm/map-points",
                           {"frame": 0, "points": [[0, 0], [1, 1]]})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["points"], [[0, 0], [1e10, 1e10]])

if __name__ == "__main__":
    main()
