"""A skin carrying pins (issue 24 item 6, `skin.puppet`) through the real server.

Each frame the pins refine the skin's rest source (the puppet's LBS or ARAP at the layer's
frame), then the skin's method maps the refined vertices with its weights and binds. The
expected vertices are computed here independently: the refinement by the numpy/scipy oracle
of the core's unit test (tests/unit/core/test_puppet_oracle.py), the skinning by the numpy
reference of test_skin_refmath.py (lbs) and test_skin_dqs.py (dqs) applied to the refined
vertices; compared to 1e-9 relative.

Also: a skin without pins answers the same frames before pins were added and after they are
gone; the pin ops on a skin (the first pin.put gives a plain skin pins); history, diff and
revert; bad pins refused with their pointers, changing nothing; mesh-data pins and
pinWeights; GET …/skin returns the puppet and sending it back changes nothing; POST
/v1/skin/evaluate with pins and a frame.
"""
import importlib.util
import os
import random

import numpy as np  # Debian's python3-numpy (the tests run on /usr/bin/python3)

from rigd_harness import RigdTestCase, main
from test_skin_dqs import dqs_oracle, random_scene
from test_skin_refmath import lbs

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "puppet_oracle", os.path.join(HERE, "..", "unit", "core", "test_puppet_oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)

S = "s"
E = f"/v1/shots/{S}/edits"
REL = 1e-9

# Pins over the 6 × 5 grid (0-50 × 0-40) of random_scene: two fixed corners, one keyed in
# position and rotation, one with stiffness; small moves, so no triangle turns over.
PINS = [
    {"id": "a", "x": 0, "y": 0},
    {"id": "b", "x": 50, "y": 40,
     "keys": {"position.x": [{"frame": 0, "value": 50}, {"frame": 10, "value": 54}],
              "rotation": [{"frame": 0, "value": 0}, {"frame": 10, "value": 12}]}},
    {"id": "c", "x": 20, "y": 20, "stiffness": 0.5,
     "keys": {"position.y": [{"frame": 0, "value": 20}, {"frame": 10, "value": 23}]}},
]


def refined(skin, puppet, frame):
    """The oracle's refinement of the skin's rest source by its pins at frame."""
    case = {"source": [c for p in skin["source"] for c in p],
            "triangles": [i for t in skin["triangles"] for i in t],
            "pins": puppet["pins"], "frame": frame}
    for k in ("solver", "maxRotationDeg"):
        if k in puppet:
            case[k] = puppet[k]
    out = oracle.oracle(case)
    arap = puppet.get("solver", "arap") == "arap" and len(puppet["pins"]) >= 2
    return [tuple(map(float, v)) for v in np.asarray(out["arap" if arap else "lbs"])]


def expected(scene, mesh, puppet, frame, method="lbs"):
    sk = scene.skins[mesh]
    src = refined(sk, puppet, frame)
    poses = scene.joint_poses(mesh, frame)
    binds = dict(sk["joints"])
    if method == "dqs":
        return dqs_oracle(src, sk["weights"], binds, poses)
    return lbs(src, sk["weights"], binds, poses)


def resolve_pointer(doc, pointer):
    for part in pointer.split("/")[1:]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


class SkinPuppet(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=24)
        self.scene = random_scene(random.Random(24), 3)
        self.sk = self.scene.skins["m"]
        self.edit(self.scene.all_ops())

    # ---- helpers ----

    def edit(self, ops, expect=201):
        r = self.rigd.post(E, {"ops": ops})
        self.assertEqual(r.status, expect, r)
        return r.json

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def skin_op(self, puppet=None, method=None):
        skin = self.scene.skin_json("m")
        if puppet is not None:
            skin["puppet"] = puppet
        if method is not None:
            skin["method"] = method
        return {"op": "layer.skin", "layerId": "m", "skin": skin}

    def frame(self, f, version=None):
        q = f"&version={version}" if version is not None else ""
        r = self.rigd.get(f"/v1/shots/{S}/frames/{f}?layers=m{q}")
        self.assertEqual(r.status, 200, r)
        return r.json["layers"][0]

    def verts(self, f, version=None):
        return [tuple(v) for v in self.frame(f, version)["vertices"]]

    def collection(self, name):
        r = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/{name}")
        self.assertEqual(r.status, 200, r)
        return r.json["items"]

    def assertClose(self, got, want, msg=""):
        self.assertEqual(len(got), len(want), msg)
        for i, (g, w) in enumerate(zip(got, want)):
            for a, b in zip(g, w):
                self.assertLessEqual(abs(a - b), REL * max(1.0, abs(b)),
                                     f"{msg} vertex {i}: {g} vs {w}")

    def rejected(self, ops, code, pointer=None):
        version = self.version()
        body = {"ops": ops}
        r = self.rigd.post(E, body)
        self.assertProblem(r, 422, code)
        errs = [e for e in r.json["errors"] if e["code"] == code]
        self.assertTrue(errs, r.json)
        if pointer is not None:
            self.assertIn(pointer, [e.get("pointer") for e in errs], r.json)
        for e in errs:  # every pointer names something of the request
            if e.get("pointer"):
                try:
                    resolve_pointer(body, e["pointer"])
                except (KeyError, IndexError):
                    parent, _, member = e["pointer"].rpartition("/")
                    self.assertNotIn(member, resolve_pointer(body, parent), e)
        self.assertEqual(self.version(), version, "a rejected batch changes nothing")
        return errs

    # ---- frames against the independent computation ----

    def test_frames_are_the_pins_refinement_then_the_skin(self):
        for title, puppet, method in [
                ("arap, lbs skin", {"pins": PINS}, None),
                ("lbs solver, maxRotationDeg", {"pins": PINS, "solver": "lbs",
                                                "maxRotationDeg": 8}, None),
                ("arap, dqs skin", {"pins": PINS}, "dqs"),
                ("one pin (lbs fallback)", {"pins": PINS[2:]}, None)]:
            with self.subTest(title):
                self.edit([self.skin_op(puppet, method)])
                for f in (0, 4, 10, 13.5):
                    layer = self.frame(f)
                    want = expected(self.scene, "m", puppet, f, method or "lbs")
                    self.assertClose([tuple(v) for v in layer["vertices"]], want,
                                     f"{title} frame {f}")
                    ran = ("lbs" if puppet.get("solver") == "lbs" else
                           "arap" if len(puppet["pins"]) >= 2 else "lbs-fallback")
                    self.assertEqual(layer.get("solver"), ran, layer.keys())

    def test_pins_at_rest_leave_the_skin_alone_and_weights_stay_bound_to_the_rest(self):
        # Unmoved pins refine nothing: the frames are the plain skin's, to rounding.
        plain = {f: self.verts(f) for f in (0, 7)}
        self.edit([self.skin_op({"pins": [{"id": "a", "x": 0, "y": 0},
                                          {"id": "b", "x": 50, "y": 40}]})])
        for f, want in plain.items():
            self.assertClose(self.verts(f), want, f"frame {f}")
        # the weights read back are the rest-bound ones, untouched by the pins
        items = self.collection("weights")
        self.assertEqual(len(items), len(self.sk["source"]))

    def test_a_skin_without_pins_answers_what_it_always_did(self):
        before = {f: self.frame(f) for f in (0, 5, 10)}
        layer = self.rigd.get(f"/v1/shots/{S}/layers/m").json
        self.assertNotIn("pinCount", layer["binding"])
        self.assertNotIn("solver", before[0])
        skin = self.rigd.get(f"/v1/shots/{S}/layers/m/skin").json["skin"]
        self.assertNotIn("puppet", skin)
        self.assertEqual(self.collection("pins"), [])
        self.assertEqual(self.collection("pinWeights"), [])
        self.edit([self.skin_op({"pins": PINS})])
        self.assertNotEqual(self.frame(10)["vertices"], before[10]["vertices"])
        self.edit([self.skin_op()])  # no puppet: a plain skin again
        for f, want in before.items():
            self.assertEqual(self.frame(f), want, f"frame {f}")

    # ---- the pin ops on a skin ----

    def test_pin_ops_edit_a_skins_pins(self):
        put = {"op": "layer.puppet.pin.put", "layerId": "m"}
        # a plain skin: the key and delete ops have no pins to edit
        errs = self.rejected([{"op": "layer.puppet.pin.delete", "layerId": "m", "pinId": "a"}],
                             "MESH_BINDING_KIND")
        self.assertEqual(errs[0]["bindingKind"], "skin")
        self.rejected([{"op": "layer.puppet.pin.key.put", "layerId": "m", "pinId": "a",
                        "channel": "rotation", "keys": [{"frame": 0, "value": 1}]}],
                      "MESH_BINDING_KIND")
        # the first pin.put gives it pins (solver arap, no clamp)
        self.edit([dict(put, pin={"id": "a", "x": 0, "y": 0}),
                   dict(put, pin={"id": "c", "x": 20, "y": 20, "stiffness": 0.5})])
        layer = self.rigd.get(f"/v1/shots/{S}/layers/m").json
        self.assertEqual(layer["binding"]["pinCount"], 2)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/m/skin").json["skin"]["puppet"],
                         {"pins": [{"id": "a", "x": 0, "y": 0, "rotation": 0, "stiffness": 0,
                                    "scale": 1, "overlap": 0, "overlapExtent": 1, "keys": {}},
                                   {"id": "c", "x": 20, "y": 20, "rotation": 0,
                                    "stiffness": 0.5, "scale": 1, "overlap": 0,
                                    "overlapExtent": 1, "keys": {}}],
                          "solver": "arap"})
        self.edit([dict(put, pin=PINS[1]),
                   {"op": "layer.puppet.pin.key.put", "layerId": "m", "pinId": "c",
                    "channel": "position.y", "keys": PINS[2]["keys"]["position.y"]}])
        for f in (0, 6, 10):
            self.assertClose(self.verts(f), expected(self.scene, "m", {"pins": PINS}, f),
                             f"frame {f}")
        # key.delete and delete, then the frames of the pins that are left
        self.edit([{"op": "layer.puppet.pin.key.delete", "layerId": "m", "pinId": "b",
                    "channel": "rotation", "frames": [0, 10]},
                   {"op": "layer.puppet.pin.delete", "layerId": "m", "pinId": "c"}])
        left = [PINS[0], {"id": "b", "x": 50, "y": 40,
                          "keys": {"position.x": PINS[1]["keys"]["position.x"]}}]
        self.assertClose(self.verts(8), expected(self.scene, "m", {"pins": left}, 8))
        self.assertEqual([p["id"] for p in self.collection("pins")], ["a", "b"])
        # the pin ops' errors on a skin, changing nothing
        self.rejected([dict(put, pin={"id": "z", "x": 0.4, "y": 0.2})], "PUPPET_PIN_VERTEX",
                      "/ops/0/pin")
        self.rejected([{"op": "layer.puppet.pin.delete", "layerId": "m", "pinId": "nope"}],
                      "PUPPET_PINS", "/ops/0/pinId")
        self.rejected([dict(put, pin={"id": "z", "x": 30, "y": 10, "scale": 0})],
                      "PUPPET_PINS", "/ops/0/pin/scale")

    # ---- history ----

    def test_history_diff_and_revert_keep_each_version_of_the_pins(self):
        v0 = self.version()
        plain = self.verts(10)
        r1 = self.edit([self.skin_op({"pins": PINS})])
        v1 = self.version()
        pinned = self.verts(10)
        r2 = self.edit([{"op": "layer.puppet.pin.key.put", "layerId": "m", "pinId": "a",
                         "channel": "position.x", "keys": [{"frame": 0, "value": -3}]}])
        moved = self.verts(10)
        self.assertNotEqual(moved, pinned)
        self.assertEqual(self.verts(10, version=v1), pinned)
        self.assertEqual(self.verts(10, version=v0), plain)
        d = self.rigd.get(f"/v1/shots/{S}/diff?from={v0}&to={v1}").json
        parts = d["layers"][0]["binding"]["parts"]
        self.assertEqual(sorted(parts["pins"]["added"]), ["a", "b", "c"], parts)
        self.assertEqual(parts["pinSettings"]["changed"], ["puppet"], parts)
        self.assertNotIn("weights", parts)
        d = self.rigd.get(f"/v1/shots/{S}/diff?from={v1}&to={self.version()}").json
        self.assertEqual(d["layers"][0]["binding"]["parts"],
                         {"pins": {"added": [], "removed": [], "changed": ["a"]}}, d)
        r = self.rigd.post(f"/v1/receipts/{r2['receiptId']}/revert")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.verts(10), pinned)
        r = self.rigd.post(f"/v1/receipts/{r1['receiptId']}/revert", {"force": True})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.verts(10), plain)
        self.assertNotIn("puppet", self.rigd.get(f"/v1/shots/{S}/layers/m/skin").json["skin"])

    # ---- errors ----

    def test_bad_pins_are_refused_with_pointers_changing_nothing(self):
        base = "/ops/0/skin/puppet"
        self.rejected([self.skin_op({"pins": [PINS[0], dict(PINS[2], stiffness=-1)]})],
                      "PUPPET_PINS", f"{base}/pins/1/stiffness")
        errs = self.rejected([self.skin_op({"pins": [PINS[0], {"id": "n", "x": 1, "y": 1}]})],
                             "PUPPET_PIN_VERTEX", f"{base}/pins/1")
        self.assertEqual({errs[0]["pinId"], errs[0]["otherPinId"]}, {"a", "n"})
        self.rejected([self.skin_op({"pins": [PINS[0], dict(PINS[0], x=50)]})],
                      "PUPPET_PINS", f"{base}/pins/1/id")
        self.rejected([self.skin_op({"pins": PINS, "solver": "fem"})], "OP_INVALID",
                      f"{base}/solver")
        self.rejected([self.skin_op({"pins": PINS, "maxRotationDeg": -1})], "OP_INVALID",
                      f"{base}/maxRotationDeg")
        self.rejected([self.skin_op({"pins": PINS, "source": []})], "OP_INVALID")
        self.rejected([self.skin_op({"pins": [{"id": "a", "x": 0, "y": 0,
                                               "keys": {"scale": [{"frame": 0, "value": 0}]}}]})],
                      "PUPPET_PINS", f"{base}/pins/0/keys/scale/0/value")
        self.rejected([self.skin_op({"pins": [{"id": f"p{i}", "x": i, "y": 0}
                                              for i in range(257)]})], "PUPPET_PINS",
                      f"{base}/pins")
        self.rejected([self.skin_op(["not", "an", "object"])], "OP_INVALID", f"{base}")

    # ---- reads ----

    def test_mesh_data_pins_and_pin_weights(self):
        self.edit([self.skin_op({"pins": PINS})])
        pins = self.collection("pins")
        self.assertEqual([p["id"] for p in pins], ["a", "b", "c"])
        src = np.array(self.sk["source"], dtype=float)
        for i, p in enumerate(pins):
            self.assertEqual(p["pinIndex"], i)
            self.assertEqual(p["vertexIndex"],
                             int(np.argmin(((src - [p["x"], p["y"]]) ** 2).sum(axis=1))))
        self.assertEqual(pins[1]["keys"]["rotation"][1], {"frame": 10, "value": 12,
                                                          "interp": "linear"})
        case = {"source": list(src.ravel()), "triangles": [i for t in self.sk["triangles"]
                                                           for i in t], "pins": PINS}
        W = oracle.oracle(case)["W"]
        items = self.collection("pinWeights")
        self.assertEqual(len(items), len(src))
        for it in items:
            got = {w["pinId"]: w["weight"] for w in it["weights"]}
            for k, pin in enumerate(PINS):
                want = W[it["vertexIndex"], k]
                self.assertAlmostEqual(got.get(pin["id"], 0.0), want,
                                       delta=1e-9 * max(1, want))

    def test_get_skin_returns_the_puppet_and_sending_it_back_changes_nothing(self):
        puppet = {"pins": PINS, "solver": "lbs", "maxRotationDeg": 45}
        self.edit([self.skin_op(puppet)])
        want = self.verts(7)
        skin = self.rigd.get(f"/v1/shots/{S}/layers/m/skin").json["skin"]
        self.assertEqual(skin["puppet"]["solver"], "lbs")
        self.assertEqual(skin["puppet"]["maxRotationDeg"], 45)
        self.assertEqual([p["id"] for p in skin["puppet"]["pins"]], ["a", "b", "c"])
        self.assertEqual(skin["puppet"]["pins"][2]["stiffness"], 0.5)
        v = self.version()
        self.edit([{"op": "layer.skin", "layerId": "m", "skin": skin}])
        self.assertEqual(self.verts(7), want)
        d = self.rigd.get(f"/v1/shots/{S}/diff?from={v}&to={self.version()}").json
        self.assertEqual(d["layers"], [], d)  # the same skin, pins and all

    def test_skin_evaluate_takes_the_pins_at_a_frame(self):
        sk = self.sk
        poses = self.scene.joint_poses("m", 0)
        body = {"source": [{"x": x, "y": y} for x, y in sk["source"]],
                "triangles": [list(t) for t in sk["triangles"]],
                "joints": [{"id": j, "bind": list(b)} for j, b in sk["joints"]],
                "weights": [[{"jointId": j, "weight": w} for j, w in infl]
                            for infl in sk["weights"]],
                "poses": [{"jointId": j, "matrix": list(m)} for j, m in poses.items()],
                "puppet": {"pins": PINS}}
        for frame in (None, 10):
            if frame is not None:
                body["frame"] = frame
            r = self.rigd.post("/v1/skin/evaluate", body)
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.json["solver"], "arap")
            src = refined(sk, {"pins": PINS}, frame or 0)
            want = lbs(src, sk["weights"], dict(sk["joints"]), poses)
            self.assertClose([(p["x"], p["y"]) for p in r.json["destination"]], want,
                             f"frame {frame}")
        del body["puppet"]
        r = self.rigd.post("/v1/skin/evaluate", body)
        self.assertEqual(r.status, 200, r)
        self.assertNotIn("solver", r.json)
        body["puppet"] = {"pins": [PINS[0], dict(PINS[1], scale=-1)]}
        r = self.rigd.post("/v1/skin/evaluate", body)
        self.assertProblem(r, 422, "PUPPET_PINS")
        self.assertIn("/puppet/pins/1/scale", [e.get("pointer") for e in r.json["errors"]])


if __name__ == "__main__":
    main()
