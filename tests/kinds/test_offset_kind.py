"""A binding kind that exists only in the tests (issue 22, item 2), end to end.

rigd-testkinds is rigd with the offset binding (tests/kinds/offset*.c) in its registry
(tests/kinds/binding_tables.c); nothing else of the server knows the kind. Every vertex of an
offset binding's source moves by one 2-D offset keyed over the layer's frames. This drives it
through the real server and its SQLite file: its op (layer.offset, a row of the kind's own,
its arrays through the compact body decoder), the frames and frame-range routes, mesh-data
(vertices bind and evaluated, triangles, the kind's own offsets collection), the diff (the
kind's own offsets part), history (?version), a revert, layer.deformation.rest.apply and
checkFrames / GET …/check. Production rigd ($RIGD_PROD_BIN) does not know the op or the
collection.

Every number here is a small dyadic rational, so expected vertices are exact.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "e2e"))
from rigd_harness import Rigd, RigdTestCase, main  # noqa: E402

SHOT = "s"
SRC = [(0.0, 0.0), (100.0, 0.0), (0.0, 100.0), (100.0, 100.0)]
TRIS = [[0, 1, 2], [1, 3, 2]]
# frame, x, y, interp: linear 0 -> 10, then linear to 20, held after
KEYS = [(0.0, 0.0, 0.0, "linear"), (10.0, 10.0, -5.0, "linear"), (20.0, 10.0, 5.0, "hold")]
OFFSET = 2.0  # the layer's timeOffset: local frame = shot frame - 2


def key_json(keys):
    return [{"frame": f, "x": x, "y": y, "interp": i} for f, x, y, i in keys]


def offset_op(layer="m", src=SRC, keys=KEYS):
    return {"op": "layer.offset", "layerId": layer,
            "offset": {"source": [{"x": x, "y": y} for x, y in src], "triangles": TRIS,
                       "keys": key_json(keys)}}


def offset_at(keys, frame):
    """The keys' blend at a local frame (rig_keys_blend for linear and hold)."""
    if not keys:
        return 0.0, 0.0
    if not frame > keys[0][0]:
        return keys[0][1], keys[0][2]
    if not frame < keys[-1][0]:
        return keys[-1][1], keys[-1][2]
    i = max(k for k in range(len(keys)) if keys[k][0] <= frame)
    a, b = keys[i], keys[i + 1]
    if a[3] == "hold":
        return a[1], a[2]
    u = (frame - a[0]) / (b[0] - a[0])
    return a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u


def shape(src, keys, frame):
    dx, dy = offset_at(keys, frame)
    return [(x + dx, y + dy) for x, y in src]


class OffsetCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", SHOT, frameStart=0, frameEnd=24)

    def edit(self, ops, expect=201, **extra):
        r = self.rigd.post(f"/v1/shots/{SHOT}/edits", {"ops": ops, **extra})
        self.assertEqual(r.status, expect, r)
        return r.json

    def build(self, keys=KEYS):
        return self.edit([{"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh",
                           "timeOffset": OFFSET},
                          offset_op(keys=keys)])

    def version(self):
        return self.rigd.get(f"/v1/shots/{SHOT}").json["version"]

    def verts(self, shot_frame, version=None):
        q = f"?layers=m" + (f"&version={version}" if version is not None else "")
        r = self.rigd.get(f"/v1/shots/{SHOT}/frames/{shot_frame!r}{q}")
        self.assertEqual(r.status, 200, r)
        return [tuple(v) for v in r.json["layers"][0]["vertices"]]

    def mesh_data(self, name, query=""):
        r = self.rigd.get(f"/v1/shots/{SHOT}/layers/m/mesh-data/{name}{query}")
        self.assertEqual(r.status, 200, r)
        return r.json


class Edit(OffsetCase):
    def test_layer_offset_installs_the_binding_through_the_kinds_own_op_row(self):
        self.build()
        layer = self.rigd.get(f"/v1/shots/{SHOT}/layers/m").json
        self.assertEqual(layer["binding"], {"kind": "offset", "vertexCount": 4,
                                            "triangleCount": 2, "keyCount": 3})
        # an unknown op lists the kind's op after the op table's
        r = self.rigd.post(f"/v1/shots/{SHOT}/edits", {"ops": [{"op": "layer.ofset"}]})
        body = self.assertProblem(r, 422, "OP_UNKNOWN")
        self.assertEqual(body["errors"][0]["validOps"][-1], "layer.offset")
        # null removes it
        self.edit([{"op": "layer.offset", "layerId": "m", "offset": None}])
        self.assertIsNone(self.rigd.get(f"/v1/shots/{SHOT}/layers/m").json["binding"])

    def test_its_rules_report_every_violation_with_pointers_into_the_op(self):
        self.rigd.post(f"/v1/shots/{SHOT}/edits",
                       {"ops": [{"op": "layer.create", "layerId": "m", "name": "m",
                                 "kind": "mesh"}]})
        bad = offset_op(keys=[(5.0, 1.0, 1.0, "linear"), (5.0, 2.0, 2.0, "linear")])
        bad["offset"]["triangles"] = [[0, 1, 2], [1, 3, 9]]
        r = self.rigd.post(f"/v1/shots/{SHOT}/edits", {"ops": [bad]})
        self.assertEqual(r.status, 422, r)
        got = sorted((e["code"], e["pointer"]) for e in r.json["errors"])
        self.assertEqual(got, [("MESH_TOPOLOGY", "/ops/0/offset/triangles/1"),
                               ("OP_INVALID", "/ops/0/offset/keys/1/frame")])
        # a shape error of its own decoder, before the rules
        bad = offset_op()
        bad["offset"]["keys"][0]["y"] = "up"
        r = self.rigd.post(f"/v1/shots/{SHOT}/edits", {"ops": [bad]})
        self.assertEqual([(e["code"], e["pointer"]) for e in r.json["errors"]],
                         [("OP_INVALID", "/ops/0/offset/keys/0/y")])

    def test_rest_apply_makes_a_frames_shape_the_source_and_keeps_every_frame(self):
        self.build()
        before = {f: self.verts(f) for f in (0.0, 5.0, 12.0, 17.0, 30.0)}
        self.edit([{"op": "layer.deformation.rest.apply", "layerId": "m", "frame": 10}])
        rest = [(x + 10, y - 5) for x, y in SRC]
        items = self.mesh_data("vertices")["items"]
        self.assertEqual([(v["x"], v["y"]) for v in items], rest)
        for f, want in before.items():
            self.assertEqual(self.verts(f), want, f)


class Evaluation(OffsetCase):
    def test_frames_and_ranges_follow_the_keys(self):
        self.build()
        for f in (-3.0, 0.0, 2.0, 4.5, 12.0, 17.0, 22.0, 22.5, 40.0):
            self.assertEqual(self.verts(f), shape(SRC, KEYS, f - OFFSET), f)
        r = self.rigd.get(f"/v1/shots/{SHOT}/layers/m/frames?from=0&to=24&step=2&format=json")
        self.assertEqual(r.status, 200, r)
        frames = r.json["frames"]
        self.assertEqual(len(frames), 13)
        for fr in frames:
            self.assertEqual([tuple(v) for v in fr["vertices"]],
                             shape(SRC, KEYS, fr["frame"] - OFFSET), fr["frame"])

    def test_mesh_data_pages_the_kinds_collections(self):
        self.build()
        page = self.mesh_data("vertices")
        self.assertEqual([(v["x"], v["y"]) for v in page["items"]], SRC)
        page = self.mesh_data("vertices", "?frame=7")
        self.assertEqual([(v["x"], v["y"]) for v in page["items"]], shape(SRC, KEYS, 5.0))
        page = self.mesh_data("triangles")
        self.assertEqual([t["indices"] for t in page["items"]], TRIS)
        page = self.mesh_data("offsets", "?pageSize=2")
        self.assertEqual(page["total"], 3)
        self.assertEqual(page["items"], [{"keyIndex": 0, "frame": 0, "x": 0, "y": 0,
                                          "interp": "linear"},
                                         {"keyIndex": 1, "frame": 10, "x": 10, "y": -5,
                                          "interp": "linear"}])
        r = self.rigd.get(f"/v1/shots/{SHOT}/layers/m/mesh-data/offsets"
                          f"?pageSize=2&pageToken={page['nextPageToken']}")
        self.assertEqual(r.json["items"][0]["interp"], "hold")
        for name in ("joints", "weights", "keyframes"):  # other kinds' collections: empty
            self.assertEqual(self.mesh_data(name)["total"], 0, name)
        r = self.rigd.get(f"/v1/shots/{SHOT}/layers/m/mesh-data/bones")
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertEqual(body["detail"],
                         "kind must be vertices, triangles, uvs, joints, weights, pins, pinWeights, keyframes or offsets")

    def test_check_frames_refuses_frames_whose_mesh_collapses(self):
        # Past local frame 5 the offset is 1e20: its precision (2^14 apart) folds the
        # 100-wide square to a line, so every shot frame from 7 on collapses.
        keys = [(0.0, 0.0, 0.0, "hold"), (5.0, 1e20, 0.0, "hold")]
        self.build(keys=[])
        ops = [{"op": "layer.rename", "layerId": "m", "name": "M"}, offset_op(keys=keys)]
        version = self.version()
        r = self.rigd.post(f"/v1/shots/{SHOT}/edits", {"ops": ops, "checkFrames": True})
        self.assertEqual(r.status, 422, r)
        errs = r.json["errors"]
        self.assertEqual(sorted({e["frame"] for e in errs}), [float(f) for f in range(7, 25)])
        for e in errs:
            self.assertIn(e["code"], ("MESH_COLLAPSED", "MESH_WINDING"), e)
            self.assertEqual((e["layerId"], e["opIndex"]), ("m", 1), e)
        self.assertEqual(self.version(), version, "a rejected batch changes nothing")
        self.edit(ops)
        r = self.rigd.get(f"/v1/shots/{SHOT}/check")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(sorted({f["frame"] for f in r.json["failures"]}),
                         [float(f) for f in range(7, 25)])


class History(OffsetCase):
    def test_diff_version_and_revert(self):
        self.build()
        v1 = self.version()
        moved = list(SRC)
        moved[3] = (100.0, 120.0)
        keys = [KEYS[0], (10.0, 12.0, -5.0, "linear"), KEYS[2], (30.0, 0.0, 0.0, "linear")]
        receipt = self.edit([offset_op(src=moved, keys=keys)])
        v2 = self.version()
        # the diff names the kind's own part and its runs
        r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={v1}&to={v2}")
        self.assertEqual(r.status, 200, r)
        (item,) = r.json["layers"]
        b = item["binding"]
        self.assertEqual((b["change"], b["kindFrom"], b["kindTo"]), ("changed", "offset", "offset"))
        self.assertEqual(b["parts"], {"source": {"total": 1, "changedVertices": [3]},
                                      "offsets": {"added": [30], "removed": [],
                                                  "changed": [10]}})
        # ?version reads the earlier definition
        self.assertEqual(self.verts(12.0, version=v1), shape(SRC, KEYS, 10.0))
        self.assertEqual(self.verts(12.0), shape(moved, keys, 10.0))
        old = self.mesh_data("offsets", f"?version={v1}")
        self.assertEqual(old["total"], 3)
        # a revert restores it, in a new version
        r = self.rigd.post(f"/v1/receipts/{receipt['receiptId']}/revert", {})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.verts(12.0), shape(SRC, KEYS, 10.0))
        self.assertEqual(self.mesh_data("offsets")["items"], old["items"])
        r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={v1}&to={self.version()}")
        self.assertEqual(r.json["layers"], [])
        # removing it is a deleted binding in the diff
        self.edit([{"op": "layer.offset", "layerId": "m", "offset": None}])
        r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={v1}&to={self.version()}")
        self.assertEqual(r.json["layers"][0]["binding"]["change"], "deleted")

    def test_it_survives_a_restart(self):
        self.build()
        want = self.verts(7.0)
        self.rigd.stop()
        self.addCleanup(self.rigd.cleanup)  # after tearDown stops the second: it holds the file
        self.rigd = Rigd(db_path=self.rigd.db_path).start()
        self.assertEqual(self.verts(7.0), want)
        self.assertEqual(self.mesh_data("offsets")["total"], 3)


PROD = os.environ.get("RIGD_PROD_BIN")


@__import__("unittest").skipUnless(PROD and os.access(PROD, os.X_OK), "RIGD_PROD_BIN not set")
class ProductionRigd(OffsetCase):
    """The production rigd has none of it: the op is unknown, the collection no name."""

    def setUp(self):
        import rigd_harness
        self.saved = rigd_harness.RIGD_BIN
        rigd_harness.RIGD_BIN = PROD
        try:
            super().setUp()
        finally:
            rigd_harness.RIGD_BIN = self.saved

    def test_the_kind_is_not_there(self):
        r = self.rigd.post(f"/v1/shots/{SHOT}/edits", {"ops": [offset_op()]})
        body = self.assertProblem(r, 422, "OP_UNKNOWN")
        self.assertNotIn("layer.offset", body["errors"][0]["validOps"])
        r = self.rigd.get(f"/v1/shots/{SHOT}/layers/m/mesh-data/offsets")
        self.assertProblem(r, 400, "INVALID_QUERY")
        out = subprocess.run(["nm", PROD], capture_output=True, text=True)
        if out.returncode == 0:
            self.assertNotIn("rig_binding_offset", out.stdout)


if __name__ == "__main__":
    main()
