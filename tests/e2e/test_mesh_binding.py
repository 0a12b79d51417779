"""Mesh bindings end to end (issue 14): layer.mesh installs a source mesh, layer.mesh.key.put /
layer.mesh.key.delete key its vertices, and every evaluation route (frames, ranges as json, f32
and obj, map-points, shot space, mesh-data) interpolates them; the keyframes collection pages
keys in pieces within maxBytes (a million-vertex key too); layer.deformation.rest.apply makes a frame's shape the new
source; layer.skin.bake turns a skin into a mesh binding. Through the real server and SQLite.

Expected vertices come from an independent Python port of the key rule of core/keys.c
(linear, hold, and the CSS cubic-bezier ease solved with the same 24 fixed Newton/bisection
steps), so local-space vertices are compared bit for bit.
"""
import csv
import io
import json
import math
import os
import subprocess

from rigd_harness import RIGD_BIN, RigdTestCase, main
from test_skin_refmath import (apply, area2, decode_f32, f32, fmt_frame, local_matrix,
                               map_points, mul, resolve_pointer)

# ---------------------------------------------------------------- the reference

BEZIER_ITERATIONS = 24  # RIG_BEZIER_ITERATIONS of core/rig_limits.h


def _cubic_of(p1, p2):
    k1 = 3 * p1
    k2 = 3 * (p2 - p1) - k1
    k3 = 1 - k1 - k2
    return k1, k2, k3


def _cubic_at(c, s):
    k1, k2, k3 = c
    return ((k3 * s + k2) * s + k1) * s


def _cubic_slope(c, s):
    k1, k2, k3 = c
    return (3 * k3 * s + 2 * k2) * s + k1


def bezier_ease(ease, t):
    """CSS cubic-bezier(x1, y1, x2, y2) at progress t: x(s) = t solved with exactly 24 steps,
    each Newton's when it stays inside the bracket [lo, hi], else a bisection."""
    if not t > 0:
        return 0.0
    if not t < 1:
        return 1.0
    cx, cy = _cubic_of(ease[0], ease[2]), _cubic_of(ease[1], ease[3])
    lo, hi, s = 0.0, 1.0, t
    for _ in range(BEZIER_ITERATIONS):
        fx = _cubic_at(cx, s) - t
        if fx < 0:
            lo = s
        elif fx > 0:
            hi = s
        else:
            lo = hi = s
        slope = _cubic_slope(cx, s)
        nxt = s - fx / slope if slope != 0 else math.nan
        if not slope > 0 or not (lo <= nxt <= hi):
            nxt = lo + (hi - lo) / 2
        s = nxt
    return _cubic_at(cy, s)


def key_shape(source, keys, frame):
    """The mesh binding's vertices at a local frame: keys [{frame, vertices, interp, ease}]
    sorted by frame; before the first the first, after the last the last, none: source."""
    if not keys:
        return [tuple(v) for v in source]
    if not frame > keys[0]["frame"]:
        return [tuple(v) for v in keys[0]["vertices"]]
    if not frame < keys[-1]["frame"]:
        return [tuple(v) for v in keys[-1]["vertices"]]
    i = max(k for k in range(len(keys)) if keys[k]["frame"] <= frame)
    a, b = keys[i], keys[i + 1]
    if a.get("interp", "linear") == "hold":
        return [tuple(v) for v in a["vertices"]]
    u = (frame - a["frame"]) / (b["frame"] - a["frame"])
    if a.get("interp") == "bezier":
        u = bezier_ease(a["ease"], u)
    return [(p[0] + (q[0] - p[0]) * u, p[1] + (q[1] - p[1]) * u)
            for p, q in zip(a["vertices"], b["vertices"])]


def check_shape(source, shape, triangles):
    """(code, triangle) of the first rule a shape breaks against its source, else None."""
    for t, tri in enumerate(triangles):
        a_src, a_dst = area2(source, tri), area2(shape, tri)
        kept = a_dst if a_src > 0 else -a_dst
        if kept >= 1e-6 * abs(a_src):
            continue
        return ("MESH_COLLAPSED" if abs(a_dst) < 1e-6 * abs(a_src) else "MESH_WINDING"), t
    return None


def pts(vs):
    return [{"x": x, "y": y} for x, y in vs]


# ---------------------------------------------------------------- a scene

SRC = [(0.0, 0.0), (100.0, 0.0), (200.0, 0.0), (0.0, 50.0), (100.0, 50.0), (200.0, 50.0)]
TRIS = [(0, 1, 4), (0, 4, 3), (1, 2, 5), (1, 5, 4)]
EASE = [0.42, 0.0, 0.58, 1.0]
OFFSET = 2.0  # the mesh layer's timeOffset: local frame = shot frame − 2


def wave(dx, dy, k):
    """A key pose: the source shifted, its top edge bent by k."""
    return [(x + dx + 0.1 * k * y, y + dy + k * math.sin(x / 37.0)) for x, y in SRC]


KEYS = [
    {"frame": -3.0, "vertices": wave(5, 1, 3), "interp": "linear"},
    {"frame": 4.0, "vertices": wave(-7.5, 2, 9), "interp": "hold"},
    {"frame": 9.0, "vertices": wave(12, -4, 1.5), "interp": "bezier", "ease": EASE},
    {"frame": 15.5, "vertices": wave(30, 10, -6), "interp": "linear"},
]


def key_op(layer, k, **over):
    op = {"op": "layer.mesh.key.put", "layerId": layer, "frame": k["frame"],
          "vertices": pts(k["vertices"]), "interp": k["interp"]}
    if "ease" in k:
        op["ease"] = k["ease"]
    op.update(over)
    return op


def tri_skin(joint_layer):
    return {"source": pts(SRC), "triangles": [list(t) for t in TRIS],
            "joints": [{"id": "a", "bind": [1, 0, 0, 1, 0, 0]}],
            "weights": [[{"jointId": "a", "weight": 1}] for _ in SRC],
            "jointLayers": [{"jointId": "a", "layerId": joint_layer}]}


class MeshCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.shot = self.rigd.make_shot("p", "s", frameStart=0, frameEnd=24)

    def post(self, ops, path="edits", **kw):
        body = {"ops": ops}
        return body, self.rigd.post(f"/v1/shots/{self.shot}/{path}", body, **kw)

    def apply_ops(self, ops, **kw):
        _, r = self.post(ops, **kw)
        self.assertEqual(r.status, 201, r)
        return r

    def rejected(self, ops, code, status=422, only=True):
        """Posts ops, expects every error to have code (or, not only, the first), each pointer
        resolving in the body (a missing member's to its object). Returns the errors of code."""
        version = self.version()
        body, r = self.post(ops)
        self.assertProblem(r, status, code)
        errs = [e for e in r.json["errors"] if e["code"] == code]
        for e in r.json["errors"]:
            if only:
                self.assertEqual(e["code"], code, e)
            if e.get("pointer"):
                try:
                    resolve_pointer(body, e["pointer"])
                except KeyError:
                    parent, _, member = e["pointer"].rpartition("/")
                    self.assertNotIn(member, resolve_pointer(body, parent), e)
        self.assertEqual(self.version(), version, "a rejected batch changes nothing")
        return errs

    def version(self):
        return self.rigd.get(f"/v1/shots/{self.shot}").json["version"]

    def build(self, keys=KEYS, parent=True):
        ops = []
        if parent:
            ops.append({"op": "layer.create", "layerId": "rig", "name": "rig", "kind": "group",
                        "transform": {"position": [7, -3], "rotation": 30, "scale": [2, 0.5]}})
        ops += [{"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh",
                 "parentId": "rig" if parent else None, "timeOffset": OFFSET,
                 "transform": {"position": [1, 2]}},
                {"op": "layer.mesh", "layerId": "m",
                 "mesh": {"source": pts(SRC), "triangles": [list(t) for t in TRIS]}}]
        ops += [key_op("m", k) for k in keys]
        return self.apply_ops(ops)

    def verts(self, f, space=None, layer="m"):
        q = f"?layers={layer}" + (f"&space={space}" if space else "")
        r = self.rigd.get(f"/v1/shots/{self.shot}/frames/{fmt_frame(f)}{q}")
        self.assertEqual(r.status, 200, r)
        return [tuple(v) for v in r.json["layers"][0]["vertices"]]

    def to_shot(self, vs):
        m = mul(local_matrix(position=(7, -3), rotation=30, scale_=(2, 0.5)),
                local_matrix(position=(1, 2)))
        return [apply(m, x, y) for x, y in vs]

    def assertClose(self, got, want, tol=1e-9):
        self.assertEqual(len(got), len(want))
        for i, (p, q) in enumerate(zip(got, want)):
            for a, b in zip(p, q):
                self.assertLessEqual(abs(a - b), tol * max(1.0, abs(b)), f"vertex {i}: {p} {q}")


# ---------------------------------------------------------------- the reference itself

class Reference(MeshCase):
    def setUp(self):  # no server needed
        pass

    def tearDown(self):
        pass

    def test_ease_by_hand(self):
        self.assertEqual(bezier_ease(EASE, 0.5), 0.5)  # symmetric curve
        self.assertAlmostEqual(bezier_ease([0, 0, 1, 1], 0.25), 0.25, places=15)
        self.assertLess(bezier_ease(EASE, 0.2), 0.2)  # ease-in-out starts slow
        x = _cubic_at(_cubic_of(EASE[0], EASE[2]), 0.3)
        self.assertAlmostEqual(bezier_ease(EASE, x), _cubic_at(_cubic_of(EASE[1], EASE[3]), 0.3),
                               places=14)

    def test_shape_by_hand(self):
        keys = [{"frame": 0.0, "vertices": [(0, 0)]}, {"frame": 10.0, "vertices": [(10, 20)]}]
        self.assertEqual(key_shape([(5, 5)], [], 3), [(5, 5)])
        self.assertEqual(key_shape([], keys, -1), [(0, 0)])
        self.assertEqual(key_shape([], keys, 2.5), [(2.5, 5)])
        self.assertEqual(key_shape([], keys, 99), [(10, 20)])
        keys[0]["interp"] = "hold"
        self.assertEqual(key_shape([], keys, 9.9), [(0, 0)])


# ---------------------------------------------------------------- evaluation

class Evaluation(MeshCase):
    def test_frames_follow_the_keys_bit_for_bit(self):
        self.build()
        # Shot frames: before the first key, on keys, inside linear / hold / bezier
        # segments, fractional, after the last.
        for f in (-20, -5, -1, 0, 0.25, 3.3, 6, 6.0001, 7.5, 10, 11, 12.125, 14.9, 17.5, 30):
            want = key_shape(SRC, KEYS, f - OFFSET)
            self.assertEqual(self.verts(f), want, f"shot frame {f}")

    def test_limits_report_the_key_vertex_limit(self):
        self.assertEqual(self.rigd.get("/v1/limits").json["maxMeshKeyVertices"], 1 << 24)

    def test_without_keys_the_source(self):
        self.build(keys=[])
        self.assertEqual(self.verts(3), SRC)
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/m")
        self.assertEqual(r.json["binding"],
                         {"kind": "mesh", "vertexCount": 6, "triangleCount": 4, "keyCount": 0})

    def test_one_key_holds_everywhere(self):
        self.build(keys=KEYS[1:2])
        for f in (-100, 6, 100):
            self.assertEqual(self.verts(f), KEYS[1]["vertices"])

    def test_key_put_replaces_and_delete_removes(self):
        self.build()
        moved = dict(KEYS[2], vertices=wave(0, 0, 4), interp="linear")
        moved.pop("ease")
        self.apply_ops([key_op("m", moved), {"op": "layer.mesh.key.delete", "layerId": "m",
                                             "frame": 4.0}])
        keys = [KEYS[0], moved, KEYS[3]]
        for f in (0, 5, 7, 11, 13):
            self.assertEqual(self.verts(f), key_shape(SRC, keys, f - OFFSET), f"frame {f}")
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/m")
        self.assertEqual(r.json["binding"]["keyCount"], 3)

    def test_shot_space_and_a_child_of_the_mesh(self):
        self.build()
        self.apply_ops([{"op": "layer.create", "layerId": "child", "name": "c", "kind": "mesh",
                         "parentId": "m"},
                        {"op": "layer.mesh", "layerId": "child",
                         "mesh": {"source": pts([(20, 10), (60, 10), (20, 40)]),
                                  "triangles": [[0, 1, 2]]}}])
        for f in (1, 8.5, 13):
            local = key_shape(SRC, KEYS, f - OFFSET)
            self.assertClose(self.verts(f, space="shot"), self.to_shot(local))
            # The child's points pass through the parent's keyed deformation.
            child = map_points([(20, 10), (60, 10), (20, 40)], SRC, local, TRIS)
            self.assertClose(self.verts(f, space="shot", layer="child"), self.to_shot(child))

    def test_map_points(self):
        self.build()
        points = [(10, 10), (150, 25), (199, 49), (250, 60)]
        for f in (2, 9.75):
            local = key_shape(SRC, KEYS, f - OFFSET)
            for space in (None, "shot"):
                path = f"/v1/shots/{self.shot}/layers/m/map-points" + (
                    f"?space={space}" if space else "")
                r = self.rigd.post(path, {"frame": f, "points": [list(p) for p in points]})
                self.assertEqual(r.status, 200, r)
                want = map_points(points, SRC, local, TRIS)
                self.assertClose([tuple(p) for p in r.json["points"]],
                                 self.to_shot(want) if space else want)

    def test_ranges_json_f32_obj(self):
        self.build()
        base = f"/v1/shots/{self.shot}/layers/m/frames?from=-4&to=19&step=0.75"
        r = self.rigd.get(base + "&format=json")
        self.assertEqual(r.status, 200, r)
        frames = r.json["frames"]
        self.assertEqual(len(frames), 31)
        for fr in frames:
            self.assertEqual([tuple(v) for v in fr["vertices"]],
                             key_shape(SRC, KEYS, fr["frame"] - OFFSET), fr["frame"])
        r = self.rigd.get(base + "&format=f32")
        self.assertEqual(r.status, 200, r)
        _, nv, nf, f32frames = decode_f32(r.body)
        self.assertEqual((nv, nf), (6, 31))
        for f, vs in f32frames:
            want = key_shape(SRC, KEYS, f - OFFSET)
            self.assertEqual(vs, [(f32(x), f32(y)) for x, y in want], f)
        r = self.rigd.get(base + "&format=obj&space=shot")
        self.assertEqual(r.status, 200, r)
        blocks = r.body.decode().split("\no ")[1:]
        self.assertEqual(len(blocks), 31)
        for fr, block in zip(frames, blocks):
            got = [tuple(float(t) for t in line.split()[1:3])
                   for line in block.splitlines() if line.startswith("v ")]
            self.assertClose(got, self.to_shot(key_shape(SRC, KEYS, fr["frame"] - OFFSET)))
            faces = [line for line in block.splitlines() if line.startswith("f ")]
            self.assertEqual(len(faces), 4)

    def test_mesh_data_vertices_with_and_without_frame(self):
        self.build()
        base = f"/v1/shots/{self.shot}/layers/m/mesh-data"
        r = self.rigd.get(base + "/vertices")
        self.assertEqual([(i["x"], i["y"]) for i in r.json["items"]], SRC)
        r = self.rigd.get(base + "/vertices?frame=10.5")
        self.assertEqual([(i["x"], i["y"]) for i in r.json["items"]],
                         key_shape(SRC, KEYS, 10.5 - OFFSET))
        r = self.rigd.get(base + "/triangles")
        self.assertEqual([tuple(i["indices"]) for i in r.json["items"]], TRIS)
        for kind in ("joints", "weights"):
            r = self.rigd.get(f"{base}/{kind}")
            self.assertEqual((r.status, r.json["total"], r.json["items"]), (200, 0, []))

    def test_collapse_and_winding_at_evaluation_name_frame_and_triangle(self):
        # Half a turn about the strip's centre: the keys are valid, but the shape halfway
        # through collapses every triangle to the centre.
        turned = [(200 - x, 50 - y) for x, y in SRC]
        mirrored = [(x, -y) for x, y in SRC]
        keys = [{"frame": 0.0, "vertices": SRC, "interp": "linear"},
                {"frame": 10.0, "vertices": turned, "interp": "hold"},
                {"frame": 20.0, "vertices": mirrored, "interp": "linear"}]
        self.build(keys=keys, parent=False)
        self.assertEqual(self.verts(OFFSET + 3), key_shape(SRC, keys, 3))
        for local, code in ((5.0, "MESH_COLLAPSED"), (25.0, "MESH_WINDING")):
            self.assertEqual(check_shape(SRC, key_shape(SRC, keys, local), TRIS)[0], code)
            r = self.rigd.get(f"/v1/shots/{self.shot}/frames/{fmt_frame(local + OFFSET)}")
            body = self.assertProblem(r, 422, code)
            tris = sorted(e["triangleIndex"] for e in body["errors"])
            self.assertEqual(tris, [0, 1, 2, 3])
            for e in body["errors"]:
                self.assertEqual((e["layerId"], e["frame"]), ("m", local + OFFSET))


class CheckFramesOnMesh(MeshCase):
    """checkFrames and GET …/check judge mesh bindings as they judge skins: the failing
    frames come from the reference here (key_shape, check_shape), not from the server."""

    def test_keys_that_break_frames_are_rejected_with_check_frames_and_listed_by_check(self):
        self.build(keys=[], parent=False)
        turned = [(200 - x, 50 - y) for x, y in SRC]
        mirrored = [(x, -y) for x, y in SRC]
        keys = [{"frame": 0.0, "vertices": SRC, "interp": "linear"},
                {"frame": 10.0, "vertices": turned, "interp": "linear"},
                {"frame": 20.0, "vertices": mirrored, "interp": "linear"}]
        want = []
        for shot_frame in range(0, 25):
            bad = check_shape(SRC, key_shape(SRC, keys, shot_frame - OFFSET), TRIS)
            if bad:
                want.append((float(shot_frame), bad[0], bad[1]))
        self.assertEqual([w[0] for w in want][:2], [7.0, 17.0])  # the half-turn, the mirror
        ops = [{"op": "layer.rename", "layerId": "m", "name": "M"}] + [key_op("m", k) for k in keys]
        version = self.version()
        r = self.rigd.post(f"/v1/shots/{self.shot}/edits", {"ops": ops, "checkFrames": True})
        got = self.assertProblem(r, 422, want[0][1])
        self.assertEqual([(e["frame"], e["code"], e.get("triangleIndex")) for e in got["errors"]],
                         want)
        for e in got["errors"]:
            self.assertEqual((e["layerId"], e["opIndex"], e["pointer"]), ("m", 3, "/ops/3"), e)
        self.assertEqual(self.version(), version, "a rejected batch changes nothing")
        # Without checkFrames the same batch is accepted; the check route then lists the frames.
        self.apply_ops(ops)
        r = self.rigd.get(f"/v1/shots/{self.shot}/check")
        self.assertEqual(r.status, 200, r)
        self.assertEqual([(f["layerId"], f["frame"], f["code"], f.get("triangleIndex"))
                          for f in r.json["failures"]], [("m",) + w for w in want])


# ---------------------------------------------------------------- edits and their errors

class Edits(MeshCase):
    def setUp(self):
        super().setUp()
        self.apply_ops([
            {"op": "layer.create", "layerId": "j", "name": "j", "kind": "group"},
            {"op": "layer.create", "layerId": "g", "name": "g", "kind": "group"},
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"},
            {"op": "layer.create", "layerId": "sk", "name": "sk", "kind": "mesh"},
            {"op": "layer.create", "layerId": "bare", "name": "bare", "kind": "mesh"},
            {"op": "layer.mesh", "layerId": "m",
             "mesh": {"source": pts(SRC), "triangles": [list(t) for t in TRIS]}},
            {"op": "layer.skin", "layerId": "sk", "skin": tri_skin("j")}])

    def mesh_op(self, source=SRC, triangles=TRIS, layer="m"):
        return {"op": "layer.mesh", "layerId": layer,
                "mesh": {"source": pts(source), "triangles": [list(t) for t in triangles]}}

    def test_mesh_geometry_rules_and_pointers(self):
        e = self.rejected([self.mesh_op(source=SRC[:2], triangles=[(0, 1, 2)])], "MESH_GEOMETRY",
                          only=False)
        self.assertEqual(e[0]["pointer"], "/ops/0/mesh/source")
        e = self.rejected([self.mesh_op(triangles=[(0, 1, 4), (0, 1, 9)])], "MESH_TOPOLOGY")
        self.assertEqual([(x["pointer"], x["triangleIndex"]) for x in e],
                         [("/ops/0/mesh/triangles/1", 1)])
        e = self.rejected([self.mesh_op(triangles=[(0, 1, 2), (0, 4, 3)])], "MESH_DEGENERATE")
        self.assertEqual([(x["pointer"], x["triangleIndex"]) for x in e],
                         [("/ops/0/mesh/triangles/0", 0)])
        e = self.rejected([{"op": "layer.mesh", "layerId": "m",
                            "mesh": {"source": pts(SRC), "triangles": [], "extra": 1}}],
                          "OP_INVALID")
        self.assertEqual(e[0]["pointer"], "/ops/0/mesh/extra")
        e = self.rejected([self.mesh_op(layer="g")], "LAYER_KIND")
        self.assertEqual(e[0]["pointer"], "/ops/0/layerId")

    def test_key_put_rules_and_pointers(self):
        e = self.rejected([key_op("m", dict(KEYS[0], vertices=SRC[:5]))], "MESH_GEOMETRY")
        self.assertEqual((e[0]["pointer"], e[0]["vertexCount"], e[0]["keyVertexCount"],
                          e[0]["layerId"]), ("/ops/0/vertices", 6, 5, "m"))
        e = self.rejected([key_op("sk", KEYS[0])], "MESH_BINDING_KIND")
        self.assertEqual((e[0]["pointer"], e[0]["bindingKind"], e[0]["layerId"]),
                         ("/ops/0/layerId", "skin", "sk"))
        self.rejected([key_op("bare", KEYS[0])], "MESH_BINDING_KIND")
        self.rejected([{"op": "layer.mesh.key.delete", "layerId": "sk", "frame": 0}],
                      "MESH_BINDING_KIND")
        e = self.rejected([key_op("m", dict(KEYS[0], interp="bezier"))], "OP_INVALID")
        self.assertEqual(e[0]["pointer"], "/ops/0/ease")
        e = self.rejected([key_op("m", dict(KEYS[2], ease=[1.5, 0, 0.5, 1]))], "OP_INVALID")
        self.assertEqual(e[0]["pointer"], "/ops/0/ease/0")
        e = self.rejected([key_op("m", KEYS[0], vertices=[{"x": 1}] + pts(SRC[1:]))],
                          "OP_INVALID")
        self.assertEqual(e[0]["pointer"], "/ops/0/vertices/0")
        e = self.rejected([key_op("m", KEYS[0]),
                           {"op": "layer.mesh.key.delete", "layerId": "m", "frame": 1.5}],
                          "OP_INVALID")
        self.assertEqual((e[0]["pointer"], e[0]["frame"], e[0]["opIndex"]),
                         ("/ops/1/frame", 1.5, 1))

    def test_every_independent_error_of_a_batch_at_once(self):
        _, r = self.post([key_op("sk", KEYS[0]), key_op("m", dict(KEYS[0], vertices=SRC[:4])),
                          self.mesh_op(triangles=[(0, 1, 2)], layer="bare")])
        self.assertEqual(r.status, 422, r)
        self.assertEqual([(e["code"], e["opIndex"]) for e in r.json["errors"]],
                         [("MESH_DEGENERATE", 2), ("MESH_BINDING_KIND", 0),
                          ("MESH_GEOMETRY", 1)])

    def test_bindings_replace_each_other(self):
        self.apply_ops([key_op("m", KEYS[0])])
        self.apply_ops([{"op": "layer.skin", "layerId": "m", "skin": tri_skin("j")}])
        layer = self.rigd.get(f"/v1/shots/{self.shot}/layers/m").json
        self.assertEqual(layer["binding"]["kind"], "skin")
        self.assertEqual(self.verts(0), SRC)  # identity joint: the skin, not the key
        self.rejected([key_op("m", KEYS[0])], "MESH_BINDING_KIND")
        self.apply_ops([self.mesh_op(layer="m"), key_op("m", KEYS[1])])
        layer = self.rigd.get(f"/v1/shots/{self.shot}/layers/m").json
        self.assertEqual(layer["binding"]["kind"], "mesh")
        self.assertEqual(self.verts(0), KEYS[1]["vertices"])
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/m/mesh-data/joints")
        self.assertEqual(r.json["total"], 0)
        self.apply_ops([{"op": "layer.mesh", "layerId": "m", "mesh": None}])
        self.assertIsNone(self.rigd.get(f"/v1/shots/{self.shot}/layers/m").json["binding"])
        r = self.rigd.get(f"/v1/shots/{self.shot}/frames/0?layers=m")
        self.assertProblem(r, 422, "MESH_BINDING_KIND")

    def test_same_batch_sees_earlier_ops_and_a_dry_run_changes_nothing(self):
        version = self.version()
        r = self.rigd.post(f"/v1/shots/{self.shot}/edits?dryRun=true",
                           {"ops": [self.mesh_op(layer="bare"), key_op("bare", KEYS[2])]})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(self.version(), version)
        self.assertIsNone(self.rigd.get(f"/v1/shots/{self.shot}/layers/bare").json["binding"])

    def test_a_saved_plan_validates_and_applies_mesh_ops(self):
        ops = [key_op("m", KEYS[0]), key_op("m", KEYS[3]),
               {"op": "layer.deformation.rest.apply", "layerId": "m", "frame": 0}]
        r = self.rigd.post(f"/v1/shots/{self.shot}/plans", {"ops": ops,
                                                             "baseVersion": self.version()})
        self.assertEqual(r.status, 201, r)
        pid = r.json["planId"]
        bad = self.rigd.post(f"/v1/shots/{self.shot}/plans",
                             {"ops": [key_op("sk", KEYS[0])]}).json["planId"]
        v = self.rigd.post(f"/v1/plans/{bad}/validate").json
        self.assertIs(v["ok"], False)
        self.assertEqual([(e["code"], e["pointer"]) for e in v["errors"]],
                         [("MESH_BINDING_KIND", "/ops/0/layerId")])
        version = self.version()
        v = self.rigd.post(f"/v1/plans/{pid}/validate").json
        self.assertIs(v["ok"], True, v)
        self.assertEqual(self.version(), version, "validate is a dry run")
        r = self.rigd.post(f"/v1/plans/{pid}/apply", {"planVersion": 1})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.version(), version + 1)
        self.assertEqual(self.verts(-3), KEYS[0]["vertices"])
        self.assertEqual(self.verts(0), key_shape(SRC, [KEYS[0], KEYS[3]], 0))
        src = self.rigd.get(f"/v1/shots/{self.shot}/layers/m/mesh-data/vertices").json["items"]
        self.assertEqual([(i["x"], i["y"]) for i in src],
                         key_shape(SRC, [KEYS[0], KEYS[3]], 0))

    def test_locks_and_idempotency(self):
        alice, bob = {"X-Rigd-Actor": "alice"}, {"X-Rigd-Actor": "bob"}
        r = self.rigd.post(f"/v1/shots/{self.shot}/locks", {"layerIds": ["m"]}, headers=alice)
        self.assertEqual(r.status, 201, r)
        for op in (key_op("m", KEYS[0]), self.mesh_op(),
                   {"op": "layer.deformation.rest.apply", "layerId": "m", "frame": 0}):
            _, r = self.post([op], headers=bob)
            self.assertProblem(r, 423, "LAYER_LOCKED")
        self.apply_ops([key_op("m", KEYS[0])], headers=alice)
        key = {"Idempotency-Key": "mesh-key-1", **alice}
        first = self.apply_ops([key_op("m", KEYS[1])], headers=key)
        again = self.apply_ops([key_op("m", KEYS[1])], headers=key)
        self.assertEqual(again.header("Idempotency-Replayed"), "true")
        self.assertEqual(again.json["receiptId"], first.json["receiptId"])
        _, r = self.post([key_op("m", KEYS[2])], headers=key)
        self.assertProblem(r, 422, "IDEMPOTENCY_KEY_REUSED")


# ---------------------------------------------------------------- keyframes collection

class Keyframes(MeshCase):
    def collect(self, layer, max_bytes, page_size=None):
        """Every page of keyframes; checks each page's items stay within maxBytes unless the
        page holds a single piece. Returns the items."""
        q = f"?maxBytes={max_bytes}" + (f"&pageSize={page_size}" if page_size else "")
        base = f"/v1/shots/{self.shot}/layers/{layer}/mesh-data/keyframes"
        items, token, pages = [], None, 0
        while True:
            r = self.rigd.get(base + q + (f"&pageToken={token}" if token else ""))
            self.assertEqual(r.status, 200, r)
            raw = r.body.decode()
            item_bytes = len(raw[raw.index('"items":[') + 9:raw.rindex('],"count"')])
            if r.json["count"] > 1:
                self.assertLessEqual(item_bytes, max_bytes)
            items += r.json["items"]
            pages += 1
            token = r.json.get("nextPageToken")
            if not token:
                return items, pages, r.json["total"]

    def rebuild(self, items):
        keys = {}
        for it in items:
            k = keys.setdefault(it["keyIndex"], {"frame": it["frame"], "interp": it["interp"],
                                                 "vertices": {}})
            if "ease" in it:
                k["ease"] = it["ease"]
            self.assertEqual(it["vertexCount"], len(it["vertices"]))
            self.assertLessEqual(it["vertexCount"], 128)
            for j, v in enumerate(it["vertices"]):
                k["vertices"][it["vertexStart"] + j] = (v["x"], v["y"])
        return [dict(keys[i], vertices=[keys[i]["vertices"][v]
                                        for v in range(len(keys[i]["vertices"]))])
                for i in sorted(keys)]

    def test_small_keys_page_whole(self):
        self.build()
        items, pages, total = self.collect("m", 1 << 20)
        self.assertEqual((pages, total), (1, 4))
        got = self.rebuild(items)
        self.assertEqual(got, [dict(k, vertices=[tuple(v) for v in k["vertices"]]) for k in KEYS])

    def test_a_key_larger_than_max_bytes_pages_in_pieces(self):
        n = 1000  # a grid strip: 500 columns × 2 rows
        src = [(float(i), float(r * 10)) for r in range(2) for i in range(500)]
        tris = []
        for i in range(499):
            tris += [(i, i + 1, 500 + i + 1), (i, 500 + i + 1, 500 + i)]
        keys = [{"frame": 1.0, "vertices": [(x * 1.25 + 0.1, y - 0.3) for x, y in src],
                 "interp": "bezier", "ease": EASE},
                {"frame": 2.0, "vertices": [(x / 3, y * 2.5) for x, y in src],
                 "interp": "linear"}]
        self.apply_ops([{"op": "layer.create", "layerId": "big", "name": "big", "kind": "mesh"},
                        {"op": "layer.mesh", "layerId": "big",
                         "mesh": {"source": pts(src), "triangles": [list(t) for t in tris]}}]
                       + [key_op("big", k) for k in keys])
        key_json = len(json.dumps(pts(keys[0]["vertices"])))
        self.assertGreater(key_json, 3 * 8192)
        items, pages, total = self.collect("big", 8192)
        self.assertEqual(total, 2 * 8)  # ⌈1000 / 128⌉ pieces per key
        self.assertGreaterEqual(pages, 6)
        got = self.rebuild(items)
        self.assertEqual([g["frame"] for g in got], [1.0, 2.0])
        self.assertEqual(got[0]["ease"], EASE)
        for g, k in zip(got, keys):
            self.assertEqual(g["vertices"], k["vertices"])
        self.assertEqual(len(got[0]["vertices"]), n)
        # Below one piece: one piece per page.
        items, pages, _ = self.collect("big", 100)
        self.assertEqual(pages, 16)
        # A token keeps reading the version it was issued at after an edit
        # (docs/history.md): the same page as before, key 2 still in it.
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/big/mesh-data/keyframes?maxBytes=8192")
        token = r.json["nextPageToken"]
        path = (f"/v1/shots/{self.shot}/layers/big/mesh-data/keyframes"
                f"?maxBytes=8192&pageToken={token}")
        before = self.rigd.get(path)
        self.apply_ops([{"op": "layer.mesh.key.delete", "layerId": "big", "frame": 2.0}])
        r = self.rigd.get(path)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json, before.json)
        head = self.rigd.get(f"/v1/shots/{self.shot}/layers/big/mesh-data/keyframes?maxBytes=8192")
        self.assertEqual(head.json["total"], 8, "the head lost key 2")

    def test_skin_has_no_keyframes(self):
        self.apply_ops([{"op": "layer.create", "layerId": "j", "name": "j", "kind": "group"},
                        {"op": "layer.create", "layerId": "sk", "name": "sk", "kind": "mesh"},
                        {"op": "layer.skin", "layerId": "sk", "skin": tri_skin("j")}])
        items, _, total = self.collect("sk", 4096)
        self.assertEqual((items, total), ([], 0))


MESH_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN))), "clients",
                         "mesh-data")


class KeyframesClient(MeshCase):
    """mesh-data --kind keyframes: one row per key vertex, in every format, across pages."""

    def run_client(self, *args):
        argv = [MESH_DATA, "--url", f"http://127.0.0.1:{self.rigd.port}", "--shot", self.shot,
                "--layer", "m", "--kind", "keyframes", *args]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_csv_across_pages_reads_back_every_key_vertex(self):
        self.build()
        out = self.run_client("--all", "--max-bytes", "300", "--format", "csv")
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], ["keyIndex", "frame", "interp", "ease", "vertexIndex", "x",
                                   "y"])
        self.assertEqual(len(rows) - 1, len(KEYS) * len(SRC))
        for k, key in enumerate(KEYS):
            for v, (x, y) in enumerate(key["vertices"]):
                row = rows[1 + k * len(SRC) + v]
                self.assertEqual([int(row[0]), float(row[1]), row[2], int(row[4])],
                                 [k, key["frame"], key["interp"], v])
                self.assertEqual((float(row[5]), float(row[6])), (x, y))
                self.assertEqual(json.loads(row[3]) if row[3] else None, key.get("ease"))

    def test_ndjson_is_the_servers_items_and_table_has_a_footer(self):
        self.build()
        lines = self.run_client("--format", "ndjson").splitlines()
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/m/mesh-data/keyframes")
        self.assertEqual([json.loads(line) for line in lines], r.json["items"])
        table = self.run_client("--format", "table")
        self.assertIn("4 keyframe pieces of 4", table)
        self.assertIn("bezier", table)


# ---------------------------------------------------------------- rest apply

class RestApply(MeshCase):
    def rest(self, frame, layer="m"):
        return [{"op": "layer.deformation.rest.apply", "layerId": layer, "frame": frame}]

    def test_the_shape_at_a_frame_becomes_the_source_and_keys_stay(self):
        self.build()
        before = {f: self.verts(f) for f in (-4, 1, 6, 11, 16.25, 25)}
        self.apply_ops(self.rest(7.25))  # local frame, inside the bezier segment
        new_src = key_shape(SRC, KEYS, 7.25)
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/m/mesh-data/vertices")
        self.assertEqual([(i["x"], i["y"]) for i in r.json["items"]], new_src)
        for f, vs in before.items():
            self.assertEqual(self.verts(f), vs, f"frame {f} evaluates as before")
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/m")
        self.assertEqual(r.json["binding"]["keyCount"], 4)

    def test_without_keys_nothing_moves(self):
        self.build(keys=[])
        self.apply_ops(self.rest(3))
        self.assertEqual(self.verts(3), SRC)

    def test_the_new_source_is_the_reference_of_the_checks(self):
        tall = [(x, y * 1e4) for x, y in SRC]
        flat = [(x, y * 1e-3) for x, y in SRC]
        keys = [{"frame": 0.0, "vertices": tall, "interp": "hold"},
                {"frame": 10.0, "vertices": flat, "interp": "hold"}]
        self.build(keys=keys, parent=False)
        self.assertEqual(self.verts(10 + OFFSET), flat)  # fine against the old source
        self.assertEqual(check_shape(tall, flat, TRIS)[0], "MESH_COLLAPSED")
        e = self.rejected(self.rest(0.0), "MESH_COLLAPSED")
        self.assertEqual({(x["frame"], x["pointer"], x["layerId"]) for x in e},
                         {(10.0, "/ops/0", "m")})
        # Rest at the flat key instead: the tall one stays valid against it.
        self.apply_ops(self.rest(10.0))
        self.assertEqual(self.verts(OFFSET), tall)

    def test_refusals(self):
        self.apply_ops([{"op": "layer.create", "layerId": "j", "name": "j", "kind": "group"},
                        {"op": "layer.create", "layerId": "sk", "name": "sk", "kind": "mesh"},
                        {"op": "layer.create", "layerId": "bare", "name": "b", "kind": "mesh"},
                        {"op": "layer.skin", "layerId": "sk", "skin": tri_skin("j")}])
        self.rejected(self.rest(0, "sk"), "SKIN_REST_REQUIRES_JOINT_KEYS")
        self.rejected(self.rest(0, "bare"), "MESH_BINDING_KIND")
        self.rejected(self.rest(0, "j"), "LAYER_KIND")


# ---------------------------------------------------------------- skin bake

class SkinBake(MeshCase):
    def setUp(self):
        super().setUp()
        left, mid = [{"jointId": "a", "weight": 1}], [{"jointId": "a", "weight": 0.3},
                                                       {"jointId": "b", "weight": 0.7}]
        right = [{"jointId": "b", "weight": 1}]
        skin = {"source": pts(SRC), "triangles": [list(t) for t in TRIS],
                "joints": [{"id": "a", "bind": [1, 0, 0, 1, 0, 0]},
                           {"id": "b", "bind": [1, 0, 0, 1, 100, 0]}],
                "weights": [left, mid, right, left, mid, right],
                "jointLayers": [{"jointId": "a", "layerId": "ja"},
                                {"jointId": "b", "layerId": "jb"}]}
        self.apply_ops([
            {"op": "layer.create", "layerId": "ja", "name": "ja", "kind": "group"},
            {"op": "layer.create", "layerId": "jb", "name": "jb", "kind": "group",
             "parentId": "ja", "transform": {"position": [100, 0]}},
            {"op": "layer.key.put", "layerId": "jb", "channel": "rotation",
             "keys": [{"frame": 0, "value": 0, "interp": "bezier", "ease": EASE},
                      {"frame": 12, "value": 40}]},
            {"op": "layer.key.put", "layerId": "ja", "channel": "position.y",
             "keys": [{"frame": 0, "value": 0}, {"frame": 12, "value": 1 / 3}]},
            {"op": "layer.create", "layerId": "sk", "name": "sk", "kind": "mesh",
             "timeOffset": 1.5},
            {"op": "layer.skin", "layerId": "sk", "skin": skin}])

    def bake(self, frames):
        return self.apply_ops([{"op": "layer.skin.bake", "layerId": "sk", "frames": frames}])

    def test_baked_keys_are_the_frames_routes_vertices_bit_for_bit(self):
        frames = [0, 2.25, 5, 7.1, 12, 13]
        live = {f: self.verts(f, layer="sk") for f in frames + [3.5, 9]}
        self.bake(frames)
        layer = self.rigd.get(f"/v1/shots/{self.shot}/layers/sk").json
        self.assertEqual(layer["binding"],
                         {"kind": "mesh", "vertexCount": 6, "triangleCount": 4, "keyCount": 6})
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/sk/mesh-data/keyframes")
        got = {it["frame"]: [(v["x"], v["y"]) for v in it["vertices"]] for it in r.json["items"]}
        self.assertEqual(sorted(got), [f - 1.5 for f in frames], "keys at local frames")
        for f in frames:
            self.assertEqual(got[f - 1.5], live[f], f"key of shot frame {f}")
            self.assertEqual(self.verts(f, layer="sk"), live[f], f"frame {f} after the bake")
        keys = [{"frame": f - 1.5, "vertices": live[f], "interp": "linear"} for f in frames]
        for f in (3.5, 9, -4, 20):
            self.assertEqual(self.verts(f, layer="sk"), key_shape(SRC, keys, f - 1.5))
        # Joint motion no longer moves the baked layer.
        self.apply_ops([{"op": "layer.pose", "layerId": "jb", "transform": {"rotation": 5}}])
        self.assertEqual(self.verts(5, layer="sk"), live[5])

    def test_a_range_is_the_range_routes_frames(self):
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/sk/frames?from=-1&to=3.1&step=0.7")
        live = {fr["frame"]: [tuple(v) for v in fr["vertices"]] for fr in r.json["frames"]}
        self.bake({"from": -1, "to": 3.1, "step": 0.7})
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/sk/mesh-data/keyframes")
        got = {it["frame"] + 1.5: [(v["x"], v["y"]) for v in it["vertices"]]
               for it in r.json["items"]}
        self.assertEqual(got, live)
        self.assertEqual(len(got), 6)

    def test_skin_evaluate_destination_as_a_key(self):
        """The seed's way to bake: POST /v1/skin/evaluate, then put its destination as a key."""
        body = {"source": pts(SRC), "triangles": [list(t) for t in TRIS],
                "joints": [{"id": "a", "bind": [1, 0, 0, 1, 0, 0]}],
                "weights": [[{"jointId": "a", "weight": 1}] for _ in SRC],
                "poses": [{"jointId": "a", "matrix": [0.9, 0.1, -0.1, 0.9, 1 / 3, 7]}]}
        r = self.rigd.post("/v1/skin/evaluate", body)
        self.assertEqual(r.status, 200, r)
        dst = r.json["destination"]
        self.apply_ops([{"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"},
                        {"op": "layer.mesh", "layerId": "m",
                         "mesh": {"source": r.json["source"], "triangles": r.json["triangles"]}},
                        {"op": "layer.mesh.key.put", "layerId": "m", "frame": 0,
                         "vertices": dst}])
        self.assertEqual(self.verts(4), [(v["x"], v["y"]) for v in dst])

    def test_refusals(self):
        for frames, pointer in (({"from": 5, "to": 1}, "/ops/0/frames/to"),
                                ({"from": 0, "to": 1, "step": 0}, "/ops/0/frames/step"),
                                ([], "/ops/0/frames"), ([0, "1"], "/ops/0/frames/1")):
            e = self.rejected([{"op": "layer.skin.bake", "layerId": "sk", "frames": frames}],
                              "OP_INVALID")
            self.assertEqual(e[0]["pointer"], pointer)
        self.bake([0])
        e = self.rejected([{"op": "layer.skin.bake", "layerId": "sk", "frames": [0]}],
                          "MESH_BINDING_KIND")
        self.assertEqual(e[0]["pointer"], "/ops/0/layerId")

    def test_an_evaluation_error_names_its_frame(self):
        self.apply_ops([{"op": "layer.key.put", "layerId": "jb", "channel": "scale.x",
                         "keys": [{"frame": 20, "value": 1}, {"frame": 30, "value": -1}]}])
        e = self.rejected([{"op": "layer.skin.bake", "layerId": "sk", "frames": [0, 31.5]}],
                          "MESH_WINDING", only=False)
        self.assertTrue(all(x["frame"] == 31.5 and x["pointer"] == "/ops/0" for x in e), e)


# ---------------------------------------------------------------- a million-vertex key

class MillionVertexKey(RigdTestCase):
    """SLOW (about 20 s): a mesh binding at the vertex limit (1024 × 1024 grid) takes a key of
    1,048,576 vertices (about 40 MiB of JSON, through the bulk decoder), and its keyframes page
    in pieces within maxBytes."""

    N = 1024

    def grid(self, fx, fy):
        n = self.N
        return "[" + ",".join(f'{{"x":{fx(i % n)!r},"y":{fy(i // n)!r}}}'
                              for i in range(n * n)) + "]"

    def test_a_million_vertex_key_pages_within_max_bytes(self):
        n = self.N
        tris = []
        for r in range(n - 1):
            for c in range(n - 1):
                i = r * n + c
                tris.append(f"[{i},{i + 1},{i + n + 1}],[{i},{i + n + 1},{i + n}]")
        self.rigd.make_shot("p", "s")
        self.rigd.edit("s", [{"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"}])
        body = ('{"ops":[{"op":"layer.mesh","layerId":"m","mesh":{"source":'
                + self.grid(float, float) + ',"triangles":[' + ",".join(tris) + "]}}]}")
        conn = self.rigd.connect(timeout=120)
        r = self.rigd.post("/v1/shots/s/edits", raw=body.encode(), conn=conn)
        conn.close()
        self.assertEqual(r.status, 201, r)
        body = ('{"ops":[{"op":"layer.mesh.key.put","layerId":"m","frame":4,"vertices":'
                + self.grid(lambda c: c * 0.5 + 1, lambda r: r + 2.25) + "}]}")
        conn = self.rigd.connect(timeout=120)
        r = self.rigd.post("/v1/shots/s/edits", raw=body.encode(), conn=conn)
        conn.close()
        self.assertEqual(r.status, 201, r)
        layer = self.rigd.get("/v1/shots/s/layers/m").json
        self.assertEqual(layer["binding"]["keyCount"], 1)
        max_bytes, token, start = 1 << 20, None, 0
        for _ in range(3):
            r = self.rigd.get(f"/v1/shots/s/layers/m/mesh-data/keyframes?maxBytes={max_bytes}"
                              + (f"&pageToken={token}" if token else ""))
            self.assertEqual(r.status, 200, r)
            raw = r.body.decode()
            items_len = len(raw[raw.index('"items":[') + 9:raw.rindex('],"count"')])
            self.assertLessEqual(items_len, max_bytes)
            self.assertEqual(r.json["total"], n * n // 128)
            self.assertEqual(r.json["limitedBy"], "maxBytes")
            for it in r.json["items"]:
                self.assertEqual((it["keyIndex"], it["frame"], it["vertexStart"]), (0, 4, start))
                for j, v in enumerate(it["vertices"]):
                    i = start + j
                    self.assertEqual((v["x"], v["y"]), ((i % n) * 0.5 + 1, i // n + 2.25))
                start += it["vertexCount"]
            token = r.json["nextPageToken"]
        self.assertGreater(start, 3 * 10000)
        r = self.rigd.get("/v1/shots/s/layers/m/mesh-data/vertices?frame=-7&pageSize=3")
        self.assertEqual([(v["x"], v["y"]) for v in r.json["items"]],
                         [(1.0, 2.25), (1.5, 2.25), (2.0, 2.25)])


if __name__ == "__main__":
    main()
