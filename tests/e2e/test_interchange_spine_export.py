"""Spine 4.2 export (issue 26 item 2) checked by Spine's own runtime: a shot built through
the real server (keyed bones with scale and a pivot, hold, linear and bezier keys, a skin
with up to 3 influences, a two-bone and a one-bone IK) exported with
GET …/export?format=spine, posed by @esotericsoftware/spine-core 4.2 in Node
(tests/oracles/spine_frames.mjs) at frame / fps, and compared with rigd's shot-space frames
within 1e-4 (Spine computes in float32). The report names what Spine cannot say.
"""
import json
import math
import os
import shutil
import struct
import subprocess
import unittest

from rigd_harness import RigdTestCase, main
from test_interchange_spine import FPS as IMPORT_FPS, rig_document

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLES = os.path.join(os.path.dirname(HERE), "oracles")
S = "s"
FPS = 30


def spine_runtime(skeleton, times, animation=None):
    node = shutil.which("node")
    ready = node and os.path.isdir(os.path.join(ORACLES, "node_modules", "@esotericsoftware"))
    if not ready:
        if os.environ.get("CI"):
            raise AssertionError("node or spine-core missing: run scripts/oracles.sh")
        raise unittest.SkipTest("node or spine-core missing (scripts/oracles.sh installs it)")
    req = {"skeleton": skeleton, "times": times}
    if animation:
        req["animation"] = animation
    out = subprocess.run([node, os.path.join(ORACLES, "spine_frames.mjs")], cwd=ORACLES,
                         input=json.dumps(req), capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise AssertionError(out.stderr)
    return json.loads(out.stdout)["frames"]


def strip(cols, rows, w, h, x0, y0):
    src = [{"x": x0 + w * i / cols, "y": y0 + h * j / rows}
           for j in range(rows + 1) for i in range(cols + 1)]
    tris = []
    for j in range(rows):
        for i in range(cols):
            a = j * (cols + 1) + i
            tris += [[a, a + 1, a + cols + 1], [a + 1, a + cols + 2, a + cols + 1]]
    uvs = [[(p["x"] - x0) / w, (p["y"] - y0) / h] for p in src]
    return src, tris, uvs


class SpineExport(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, fps=FPS, frameStart=0, frameEnd=30)

    def build(self):
        src, tris, uvs = strip(6, 2, 120, 20, 0, -10)
        weights = []
        for p in src:
            t = p["x"] / 120
            if t < 0.4:
                weights.append([{"jointId": "j0", "weight": 1}])
            elif t < 0.8:
                weights.append([{"jointId": "j0", "weight": 0.5}, {"jointId": "j1", "weight": 0.3},
                                {"jointId": "j2", "weight": 0.2}])
            else:
                weights.append([{"jointId": "j1", "weight": 0.25}, {"jointId": "j2", "weight": 0.75}])
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "root", "name": "root", "kind": "group",
             "transform": {"position": [5, 3], "scale": [1.5, 1.5]}},
            {"op": "layer.create", "layerId": "upper", "name": "upper", "kind": "group",
             "parentId": "root", "transform": {"rotation": 10}},
            {"op": "layer.create", "layerId": "lower", "name": "lower", "kind": "group",
             "parentId": "upper", "transform": {"position": [40, 0], "rotation": -20,
                                                "scale": [1.2, 0.9]}},
            {"op": "layer.create", "layerId": "hand", "name": "hand", "kind": "group",
             "parentId": "lower", "transform": {"position": [40, 0], "pivot": [3, -2]}},
            {"op": "layer.create", "layerId": "goal", "name": "goal", "kind": "group",
             "transform": {"position": [90, 50]}},
            {"op": "layer.create", "layerId": "tail", "name": "tail", "kind": "group",
             "transform": {"position": [-20, 0], "rotation": 180}},
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh",
             "parentId": "root", "transform": {"position": [2, 2]}},
            {"op": "layer.key.put", "layerId": "upper", "channel": "rotation", "keys": [
                {"frame": 0, "value": 10, "interp": "bezier", "ease": [0.3, 0.0, 0.6, 1.0]},
                {"frame": 15, "value": 30}, {"frame": 30, "value": 20}]},
            {"op": "layer.key.put", "layerId": "hand", "channel": "rotation", "keys": [
                {"frame": 15, "value": 0, "interp": "hold"}, {"frame": 20, "value": 20},
                {"frame": 25, "value": -15}]},
            {"op": "layer.key.put", "layerId": "hand", "channel": "scale.x", "keys": [
                {"frame": 5, "value": 1}, {"frame": 25, "value": 1.5}]},
            {"op": "layer.key.put", "layerId": "goal", "channel": "position.y", "keys": [
                {"frame": 0, "value": 50}, {"frame": 30, "value": 30}]},
            {"op": "layer.key.put", "layerId": "hand", "channel": "pivot.x", "keys": [
                {"frame": 0, "value": 3}, {"frame": 30, "value": -4}]},
            {"op": "layer.skin", "layerId": "m", "skin": {
                "source": src, "triangles": tris, "uvs": uvs,
                "joints": [{"id": "j0", "bind": [1, 0, 0, 1, 0, 0]},
                           {"id": "j1", "bind": [1, 0, 0, 1, 0, 0]},
                           {"id": "j2", "bind": [1, 0, 0, 1, 0, 0]}],
                "weights": weights,
                "jointLayers": [{"jointId": "j0", "layerId": "upper"},
                                {"jointId": "j1", "layerId": "lower"},
                                {"jointId": "j2", "layerId": "hand"}]}},
            {"op": "layer.skin.bind.capture", "layerId": "m", "frame": 0},
            {"op": "constraint.put", "constraintId": "arm", "chain": ["upper", "lower"],
             "target": "goal", "tipLength": 40, "softness": 60, "bendPositive": False,
             "mix": 0.8},
            {"op": "constraint.put", "constraintId": "aim", "chain": ["tail"],
             "target": "goal", "tipLength": 15}])

    def test_spine_runtime_poses_the_export_as_rigd_does(self):
        self.build()
        r = self.rigd.get(f"/v1/shots/{S}/export?format=spine")
        self.assertEqual(r.status, 200, r)
        doc = r.json
        self.assertEqual(doc["skeleton"]["spine"][:3], "4.2")
        names = [b["name"] for b in doc["bones"]]
        self.assertIn("hand#pivot", names)
        self.assertLess(names.index("upper"), names.index("lower"))
        self.assertEqual([i["name"] for i in doc["ik"]], ["aim", "arm"])
        # Spine keeps key times in float32: its clock must be too, or a key's own
        # frame falls before it
        exact = [0, 15, 17, 19.5, 20, 22, 25, 27.25, 30]
        eased = [4, 7.5, 10, 12]  # inside the bezier segment: Spine's ten line segments
        worst = self.worst(doc, exact)
        print(f"spine export: worst difference from spine-core at {len(exact)} frames "
              f"outside bezier segments: {worst:.2e}; inside: {self.worst(doc, eased):.2e}")
        self.assertLess(worst, 1e-4)
        self.assertLess(self.worst(doc, eased), 1.0)
        report = self.rigd.get(f"/v1/shots/{S}/export?format=spine&report=true").json
        features = sorted({(u["feature"], u.get("layerId")) for u in report["unsupported"]})
        self.assertEqual(features, [("bezier ease", "upper")])

    def worst(self, doc, frames):
        spine = spine_runtime(doc, [struct.unpack("f", struct.pack("f", f / FPS))[0]
                                    for f in frames], animation=S)
        worst = 0.0
        for f, got in zip(frames, spine):
            rigd = self.rigd.get(f"/v1/shots/{S}/frames/{f}?layers=m&space=shot")
            self.assertEqual(rigd.status, 200, rigd)
            want = rigd.json["layers"][0]["vertices"]
            verts = got["slots"]["m"]
            self.assertEqual(len(verts), len(want))
            for (sx, sy), (rx, ry) in zip(verts, want):
                worst = max(worst, abs(sx - rx), abs(sy - ry))
        return worst

    def test_import_export_import_evaluates_bit_for_bit_at_every_keyed_frame(self):
        shots = ("a", "b")
        for shot in shots:
            self.rigd.make_shot("p", shot, fps=IMPORT_FPS, frameStart=0, frameEnd=48)
        r = self.rigd.post("/v1/shots/a/import?format=spine&idPrefix=x.", rig_document())
        self.assertEqual(r.status, 201, r)
        exported = self.rigd.get("/v1/shots/a/export?format=spine")
        self.assertEqual(exported.status, 200, exported)
        r = self.rigd.post("/v1/shots/b/import?format=spine", exported.json)
        self.assertEqual(r.status, 201, r)
        again = self.rigd.get("/v1/shots/b/export?format=spine")
        # nothing drifted on the way (but the animation's name, the shot's id)
        self.assertEqual(again.body.replace(b'"animations":{"b"', b'"animations":{"a"'),
                         exported.body)
        a = self.rigd.get("/v1/shots/a").json
        frames = set()
        for layer in a["layers"]:
            keys = self.rigd.get(f"/v1/shots/a/layers/{layer['layerId']}").json["keys"]
            for channel in keys.values():
                frames.update(k["frame"] for k in channel)
        meshes = [l["layerId"] for l in a["layers"] if l["kind"] == "mesh"]
        self.assertEqual(len(meshes), 4)
        self.assertGreater(len(frames), 20)
        for f in sorted(frames):
            for m in meshes:
                q = f"layers={m}&space=shot&format=f32"
                fa = self.rigd.get(f"/v1/shots/a/frames/{f!r}?{q}")
                fb = self.rigd.get(f"/v1/shots/b/frames/{f!r}?{q}")
                self.assertEqual(fa.status, 200, fa)
                self.assertEqual(fa.body, fb.body, f"frame {f} {m}")
            ja = self.rigd.get(f"/v1/shots/a/frames/{f!r}?layers={','.join(meshes)}&space=shot")
            jb = self.rigd.get(f"/v1/shots/b/frames/{f!r}?layers={','.join(meshes)}&space=shot")
            self.assertEqual(ja.json["layers"], jb.json["layers"], f"frame {f}")

    def test_what_spine_cannot_say_is_reported(self):
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "a", "name": "a", "kind": "group"},
            {"op": "layer.create", "layerId": "b", "name": "b", "kind": "group", "parentId": "a",
             "transform": {"position": [10, 0]}},
            {"op": "layer.create", "layerId": "c", "name": "c", "kind": "group", "parentId": "b",
             "transform": {"position": [10, 0]}},
            {"op": "layer.create", "layerId": "t", "name": "t", "kind": "group",
             "timeOffset": 3, "transform": {"scale": [1, 0]}},
            {"op": "layer.key.put", "layerId": "t", "channel": "scale.y",
             "keys": [{"frame": 0, "value": 0}, {"frame": 4, "value": 1}]},
            {"op": "layer.key.put", "layerId": "t", "channel": "rotation",
             "keys": [{"frame": 0, "value": 0}, {"frame": 4, "value": 1}]},
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"},
            {"op": "layer.mesh", "layerId": "m", "mesh": {
                "source": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}],
                "triangles": [[0, 1, 2]]}},
            {"op": "constraint.put", "constraintId": "long", "chain": ["a", "b", "c"],
             "target": "t", "tipLength": 5}])
        report = self.rigd.get(f"/v1/shots/{S}/export?format=spine&report=true").json
        features = sorted({(u["feature"], u.get("layerId")) for u in report["unsupported"]})
        self.assertEqual(features, [("binding", "m"), ("constraint", None),
                                    ("keyed scale of setup 0", "t"), ("time offset", "t")])
        r = self.rigd.get(f"/v1/shots/{S}/export?format=spine")
        self.assertEqual(r.header("X-Rigd-Export-Unsupported"), "4")
        self.assertEqual(r.json["slots"], [])


if __name__ == "__main__":
    main()
