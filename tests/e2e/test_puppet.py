"""The puppet binding through the real server (issue 24): layer.puppet and its pin ops in
atomic batches, frames against the independent numpy/scipy oracle of the core's unit test
(tests/unit/core/test_puppet_oracle.py), the pins collection, history (revert, diff, an old
version's frames), and every error path with its code and pointer, changing nothing.
"""
import importlib.util
import json
import os
import struct
import sys

import subprocess
import tempfile

from rigd_harness import RIGD_BIN, RigdTestCase, main

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "puppet_oracle", os.path.join(HERE, "..", "unit", "core", "test_puppet_oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)

sys.path.insert(0, os.path.join(HERE, "..", "..", "clients"))
import rigd_frames  # noqa: E402  the bundled decoder of frame ranges

S = "s"


def wire(case):
    """An oracle case (flat arrays) as layer.puppet's puppet object."""
    src, tris = case["source"], case["triangles"]
    puppet = {"source": [{"x": src[i], "y": src[i + 1]} for i in range(0, len(src), 2)],
              "triangles": [tris[i:i + 3] for i in range(0, len(tris), 3)],
              "pins": case["pins"]}
    for k in ("solver", "maxRotationDeg"):
        if k in case:
            puppet[k] = case[k]
    return puppet


def flipped(case, xy):
    """Whether the oracle's vertices xy turn a triangle of case over (signed area ≤ 0
    where the rest area is positive)."""
    src, tris = case["source"], case["triangles"]
    xy = [float(c) for c in oracle.np.asarray(xy).ravel()]

    def area(p, a, b, c):
        return ((p[2 * b] - p[2 * a]) * (p[2 * c + 1] - p[2 * a + 1])
                - (p[2 * c] - p[2 * a]) * (p[2 * b + 1] - p[2 * a + 1]))
    return any(area(src, *tris[t:t + 3]) > 0 and area(xy, *tris[t:t + 3]) <= 0
               for t in range(0, len(tris), 3))


def resolve_pointer(doc, pointer):
    for part in pointer.split("/")[1:]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


class Puppet(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=20)
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"},
                           {"op": "layer.create", "layerId": "g", "name": "g", "kind": "group"}])

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def post(self, ops):
        body = {"ops": ops}
        return body, self.rigd.post(f"/v1/shots/{S}/edits", body)

    def put_puppet(self, puppet):
        self.rigd.edit(S, [{"op": "layer.puppet", "layerId": "m", "puppet": puppet}])

    def frame(self, f, **q):
        extra = "".join(f"&{k}={v}" for k, v in q.items())
        r = self.rigd.get(f"/v1/shots/{S}/frames/{f}?layers=m{extra}")
        self.assertEqual(r.status, 200, r)
        return r.json["layers"][0]

    def pins(self):
        r = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/pins")
        self.assertEqual(r.status, 200, r)
        return r.json["items"]

    def rejected(self, ops, code, pointer=None):
        version = self.version()
        body, r = self.post(ops)
        self.assertProblem(r, 422, code)
        errs = [e for e in r.json["errors"] if e["code"] == code]
        self.assertTrue(errs, r.json)
        if pointer is not None:
            self.assertIn(pointer, [e.get("pointer") for e in errs], r.json)
        for e in errs:
            if e.get("pointer"):
                try:
                    resolve_pointer(body, e["pointer"])
                except (KeyError, IndexError):
                    parent, _, member = e["pointer"].rpartition("/")
                    self.assertNotIn(member, resolve_pointer(body, parent), e)
        self.assertEqual(self.version(), version, "a rejected batch changes nothing")
        return errs

    # ---- frames against the oracle ----

    def test_frames_match_the_independent_oracle(self):
        for title, case in oracle.cases():
            with self.subTest(title):
                case = oracle.with_moves(case)
                self.put_puppet(wire(case))
                want = oracle.oracle(case)
                if case.get("solver") == "lbs" or len(case["pins"]) < 2:
                    expect = want["lbs"]
                else:
                    expect = want["arap"]
                r = self.rigd.get(f"/v1/shots/{S}/frames/{case.get('frame', 0)}?layers=m")
                if flipped(case, expect):  # LBS candy-wraps: the per-frame checks refuse it
                    self.assertProblem(r, 422, "MESH_WINDING")
                    continue
                self.assertEqual(r.status, 200, r)
                flat = [c for v in r.json["layers"][0]["vertices"] for c in v]
                src = [case["source"][i:i + 2] for i in range(0, len(case["source"]), 2)]
                xs, ys = [p[0] for p in src], [p[1] for p in src]
                scale = max(max(xs) - min(xs), max(ys) - min(ys))
                problem = oracle.close(title, flat, expect, scale)
                self.assertIsNone(problem, problem)

    def test_a_pin_moves_its_anchor_by_its_displacement_and_f32_agrees(self):
        src, tris = oracle.grid(6, 6)
        case = {"source": src, "triangles": tris,
                "pins": [{"id": "a", "x": 0.4, "y": 0.3}, {"id": "b", "x": 50, "y": 50}]}
        self.put_puppet(wire(case))
        self.rigd.edit(S, [{"op": "layer.puppet.pin.key.put", "layerId": "m", "pinId": "a",
                            "channel": "position.x", "keys": [{"frame": 0, "value": 0.4},
                                                              {"frame": 10, "value": 10.4}]}])
        v = self.frame(5)["vertices"]
        # pin a sits between vertices near vertex 0 (0, 0): no snap, moved by +5 in x
        self.assertEqual(v[0], [5.0, 0.0])
        self.assertEqual(v[35], [50.0, 50.0])
        f32 = self.rigd.get(f"/v1/shots/{S}/frames/5?layers=m&format=f32")
        self.assertEqual(f32.status, 200, f32)
        self.assertEqual(len(f32.body), 24 + 8 * 36)

    def test_frames_say_their_solver_and_the_overlap_order(self):
        src, tris = oracle.grid(6, 6)
        pins = [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 50, "y": 50, "overlap": 40},
                {"id": "c", "x": 50, "y": 0, "overlap": -10, "overlapExtent": 2}]
        case = {"source": src, "triangles": tris, "pins": pins}
        self.put_puppet(wire(case))
        got = self.frame(0)
        self.assertEqual(got["solver"], "arap")
        order = got["triangleOrder"]
        self.assertEqual(sorted(order), list(range(len(tris) // 3)))
        # back to front: the oracle's mean corner depth never decreases along the order
        W = oracle.np.asarray(oracle.oracle(case)["W"]).reshape(len(src) // 2, len(pins))
        ext = oracle.np.array([p.get("overlapExtent", 1.0) for p in pins])
        lap = oracle.np.array([p.get("overlap", 0.0) for p in pins])
        w = W ** (1.0 / ext)
        depth = (w / w.sum(axis=1, keepdims=True)) @ lap
        mean = [sum(depth[tris[3 * t + k]] for k in range(3)) / 3 for t in order]
        self.assertTrue(all(b >= a - 1e-9 for a, b in zip(mean, mean[1:])), mean)
        self.assertGreater(mean[-1], mean[0])
        # without overlap: source order, no member; lbs and the one-pin fallback say so
        self.put_puppet(wire({"source": src, "triangles": tris, "solver": "lbs",
                              "pins": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 50, "y": 50}]}))
        got = self.frame(0)
        self.assertEqual(got["solver"], "lbs")
        self.assertNotIn("triangleOrder", got)
        self.put_puppet(wire({"source": src, "triangles": tris,
                              "pins": [{"id": "a", "x": 0, "y": 0}]}))
        self.assertEqual(self.frame(0)["solver"], "lbs-fallback")

    def test_ranges_carry_the_notes_in_every_format_that_has_room(self):
        src, tris = oracle.grid(5, 5)
        self.put_puppet(wire({"source": src, "triangles": tris, "pins": [
            {"id": "a", "x": 0, "y": 0},
            {"id": "b", "x": 40, "y": 40, "keys": {"overlap": [{"frame": 0, "value": 0},
                                                               {"frame": 2, "value": 30}]}}]}))
        single = {f: self.frame(f) for f in range(3)}
        path = f"/v1/shots/{S}/layers/m/frames?from=0&to=2"
        js = self.rigd.get(path).json["frames"]
        for f, fr in enumerate(js):
            self.assertEqual(fr["solver"], "arap")
            self.assertEqual(fr.get("triangleOrder"), single[f].get("triangleOrder"), f)
        self.assertNotIn("triangleOrder", js[0])  # overlap 0 at frame 0: source order
        order2 = js[2]["triangleOrder"]
        # OBJ: the faces of frame 2 in that order, and the solver in a comment
        obj = self.rigd.get(path + "&format=obj").body.decode()
        objects = obj.split("\no frame_")
        self.assertIn("# solver arap", objects[3])
        faces = [tuple(int(i) for i in line.split()[1:]) for line in objects[3].splitlines()
                 if line.startswith("f ")]
        base = 2 * 25 + 1
        want = [tuple(base + tris[3 * t + k] for k in range(3)) for t in order2]
        self.assertEqual(faces, want)
        # f32 version 2: an order record (tag 3) before frames 1 and 2; version 1: vertices only
        v2 = self.rigd.get(path + "&format=f32&f32Version=2").body
        off, tags = 16, []
        while off < len(v2):
            tag, length = struct.unpack_from("<II", v2, off)
            tags.append(tag)
            if tag == 3:
                n = len(tris) // 3
                self.assertEqual(length, 4 * n + (4 if n % 2 else 0))
                got = list(struct.unpack_from(f"<{n}I", v2, off + 8))
                self.assertEqual(got, single[tags.count(1)].get("triangleOrder"))
            off += 8 + length
        self.assertEqual(tags, [1, 3, 1, 3, 1])
        decoded = rigd_frames.decode(v2)
        self.assertEqual([f for f, _ in decoded], [0, 1, 2])
        v1 = rigd_frames.decode(self.rigd.get(path + "&format=f32").body)
        self.assertEqual([xy for _, xy in v1], [xy for _, xy in decoded])

    def test_rigctl_frames_splits_a_puppets_range_with_its_order_records(self):
        src, tris = oracle.grid(4, 4)
        self.put_puppet(wire({"source": src, "triangles": tris, "pins": [
            {"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 30, "y": 30, "overlap": 20}]}))
        want = {f: self.frame(f)["vertices"] for f in range(3)}
        rigctl = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN))),
                              "clients", "rigctl")
        for fmt in ("f32", "obj"):
            with self.subTest(fmt), tempfile.TemporaryDirectory() as out:
                p = subprocess.run([rigctl, "--url", f"http://127.0.0.1:{self.rigd.port}",
                                    "frames", "--shot", S, "--layer", "m", "--from", "0",
                                    "--to", "2", "--format", fmt, "--out", out],
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 0, p.stderr)
                files = sorted(os.listdir(out))
                self.assertEqual(len(files), 3, files)
                for f, name in zip(range(3), files):
                    with open(os.path.join(out, name), "rb") as fh:
                        (frame, xy), = rigd_frames.decode(fh.read(), fmt)
                    self.assertEqual(frame, f)
                    tol = 1e-5 if fmt == "f32" else 0  # f32 rounds; OBJ is exact
                    for got, w in zip(xy, want[f]):
                        self.assertLessEqual(max(abs(got[0] - w[0]), abs(got[1] - w[1])),
                                             tol * max(1, abs(w[0]), abs(w[1])))

    # ---- the ops ----

    def test_pin_ops_edit_the_pins_without_resending_the_mesh(self):
        src, tris = oracle.grid(5, 5)
        self.put_puppet(wire({"source": src, "triangles": tris,
                              "pins": [{"id": "a", "x": 0, "y": 0}]}))
        layer = self.rigd.get(f"/v1/shots/{S}/layers/m").json
        self.assertEqual(layer["binding"], {"kind": "puppet", "vertexCount": 25,
                                            "triangleCount": 32, "pinCount": 1,
                                            "solver": "arap"})
        self.rigd.edit(S, [
            {"op": "layer.puppet.pin.put", "layerId": "m",
             "pin": {"id": "b", "x": 40, "y": 40, "stiffness": 2, "scale": 1.5}},
            {"op": "layer.puppet.pin.key.put", "layerId": "m", "pinId": "b",
             "channel": "rotation", "keys": [{"frame": 0, "value": 0},
                                             {"frame": 8, "value": 45, "interp": "bezier",
                                              "ease": [0.4, 0, 0.6, 1]}]},
            {"op": "layer.puppet.pin.key.put", "layerId": "m", "pinId": "a",
             "channel": "overlap", "keys": [{"frame": 0, "value": 3}, {"frame": 4, "value": 5}]}])
        pins = self.pins()
        self.assertEqual([p["id"] for p in pins], ["a", "b"])
        b = pins[1]
        self.assertEqual((b["pinIndex"], b["vertexIndex"], b["stiffness"], b["scale"],
                          b["rotation"], b["overlap"], b["overlapExtent"]),
                         (1, 24, 2, 1.5, 0, 0, 1))
        self.assertEqual(b["keys"]["rotation"][1],
                         {"frame": 8, "value": 45, "interp": "bezier", "ease": [0.4, 0, 0.6, 1]})
        # a pin read back is a pin.put body: sending it again changes nothing observable
        again = {k: v for k, v in b.items() if k not in ("pinIndex", "vertexIndex")}
        self.rigd.edit(S, [{"op": "layer.puppet.pin.put", "layerId": "m", "pin": again}])
        self.assertEqual(self.pins(), pins)
        self.rigd.edit(S, [{"op": "layer.puppet.pin.key.delete", "layerId": "m", "pinId": "a",
                            "channel": "overlap", "frames": [0, 4]},
                           {"op": "layer.puppet.pin.delete", "layerId": "m", "pinId": "b"}])
        pins = self.pins()
        self.assertEqual([p["id"] for p in pins], ["a"])
        self.assertEqual(pins[0]["keys"], {})

    def test_pin_weights_are_the_harmonic_weights_paged(self):
        src, tris = oracle.grid(7, 6)
        pins = [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 60, "y": 50},
                {"id": "c", "x": 30, "y": 20}]
        case = {"source": src, "triangles": tris, "pins": pins}
        self.put_puppet(wire(case))
        W = oracle.np.asarray(oracle.oracle(case)["W"]).reshape(len(src) // 2, len(pins))
        items, token = [], ""
        while True:
            r = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/pinWeights?maxBytes=1200{token}")
            self.assertEqual(r.status, 200, r)
            items += r.json["items"]
            self.assertLess(r.json["count"], 42)  # cut by maxBytes
            if "nextPageToken" not in r.json:
                break
            token = "&pageToken=" + r.json["nextPageToken"]
        self.assertEqual([it["vertexIndex"] for it in items], list(range(42)))
        for it in items:
            got = {w["pinId"]: w["weight"] for w in it["weights"]}
            for p, pin in enumerate(pins):
                want = W[it["vertexIndex"], p]
                self.assertAlmostEqual(got.get(pin["id"], 0.0), want, delta=1e-9 * max(1, want))
        self.assertEqual(items[0]["weights"], [{"pinId": "a", "weight": 1}])

    def test_history_keeps_every_version_of_the_pins(self):
        src, tris = oracle.grid(5, 5)
        self.put_puppet(wire({"source": src, "triangles": tris,
                              "pins": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 40, "y": 40}]}))
        v1 = self.version()
        before = self.frame(3)["vertices"]
        r = self.rigd.edit(S, [{"op": "layer.puppet.pin.key.put", "layerId": "m", "pinId": "b",
                                "channel": "position.y", "keys": [{"frame": 0, "value": 60}]}])
        receipt = r.json["receiptId"]
        moved = self.frame(3)["vertices"]
        self.assertNotEqual(before, moved)
        self.assertEqual(self.frame(3, version=v1)["vertices"], before)
        diff = self.rigd.get(f"/v1/shots/{S}/diff?from={v1}&to={self.version()}").json
        self.assertIn("pins", diff["layers"][0]["binding"]["parts"], diff)
        r = self.rigd.post(f"/v1/receipts/{receipt}/revert")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.frame(3)["vertices"], before)

    def test_bake_keys_the_puppets_frames_bit_for_bit(self):
        src, tris = oracle.grid(5, 5)
        self.put_puppet(wire({"source": src, "triangles": tris, "pins": [
            {"id": "a", "x": 0, "y": 0},
            {"id": "b", "x": 40, "y": 40, "keys": {"rotation": [{"frame": 0, "value": 0},
                                                                {"frame": 10, "value": 60}]}}]}))
        want = {f: self.frame(f)["vertices"] for f in (0, 4, 10)}
        self.rigd.edit(S, [{"op": "layer.puppet.bake", "layerId": "m", "frames": [0, 4, 10]}])
        layer = self.rigd.get(f"/v1/shots/{S}/layers/m").json
        self.assertEqual(layer["binding"]["kind"], "mesh")
        self.assertEqual(layer["binding"]["keyCount"], 3)
        for f, v in want.items():
            self.assertEqual(self.frame(f)["vertices"], v, f)
        errs = self.rejected([{"op": "layer.puppet.bake", "layerId": "m", "frames": [1]}],
                             "MESH_BINDING_KIND")
        self.assertEqual(errs[0]["bindingKind"], "mesh")

    def test_checks_map_points_and_shot_space_evaluate_puppets(self):
        src, tris = oracle.grid(5, 5)
        self.put_puppet(wire({"source": src, "triangles": tris, "pins": [
            {"id": "a", "x": 0, "y": 0},
            {"id": "b", "x": 40, "y": 40, "keys": {"position.x": [{"frame": 0, "value": 40},
                                                                  {"frame": 20, "value": 60}]}}]}))
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "root", "name": "root", "kind": "group",
                            "transform": {"position": [100, 0]}},
                           {"op": "layer.parent", "layerId": "m", "parentId": "root"}])
        local = self.frame(10)["vertices"]
        shot = self.frame(10, space="shot")["vertices"]
        self.assertEqual([[x + 100, y] for x, y in local], shot)
        r = self.rigd.post(f"/v1/shots/{S}/layers/m/map-points", {"frame": 10, "points": [[40, 40]]})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["points"][0], local[24])
        r = self.rigd.get(f"/v1/shots/{S}/check?from=0&to=20")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["failures"], [], r.json)
        self.assertEqual(r.json["layerFrameCount"], 21)
        # a corner pinned across the three other pinned corners folds the mesh:
        # checkFrames refuses the edit, naming layer and frames
        fold = [{"op": "layer.puppet.pin.put", "layerId": "m", "pin": {"id": p, "x": x, "y": y}}
                for p, x, y in (("c", 40, 0), ("d", 0, 40))]
        fold.append({"op": "layer.puppet.pin.key.put", "layerId": "m", "pinId": "b",
                     "channel": "position.y", "keys": [{"frame": 0, "value": 40},
                                                       {"frame": 20, "value": -60}]})
        version = self.version()
        r = self.rigd.post(f"/v1/shots/{S}/edits", {"ops": fold, "checkFrames": True})
        self.assertEqual(r.status, 422, r)
        codes = {e["code"] for e in r.json["errors"]}
        self.assertTrue(codes <= {"MESH_WINDING", "MESH_COLLAPSED"} and codes, r.json)
        self.assertTrue(all(e["layerId"] == "m" and "frame" in e for e in r.json["errors"]))
        self.assertEqual(self.version(), version)

    # ---- errors: code, pointer, nothing changed ----

    def test_bad_pins_are_refused_with_pointers(self):
        src, tris = oracle.grid(4, 4)
        base = wire({"source": src, "triangles": tris, "pins": []})

        def puppet(**pin):
            return [{"op": "layer.puppet", "layerId": "m", "puppet": dict(
                base, pins=[{"id": "a", "x": 0, "y": 0}, dict({"id": "b", "x": 30, "y": 30}, **pin)])}]

        for field, value in (("stiffness", -1), ("scale", 0), ("overlap", 101),
                             ("overlapExtent", 0)):
            with self.subTest(field):
                self.rejected(puppet(**{field: value}), "PUPPET_PINS",
                              f"/ops/0/puppet/pins/1/{field}")
        self.rejected(puppet(id="a"), "PUPPET_PINS", "/ops/0/puppet/pins/1/id")
        errs = self.rejected(puppet(x=0.2, y=0.1), "PUPPET_PIN_VERTEX", "/ops/0/puppet/pins/1")
        self.assertEqual((errs[0]["pinId"], errs[0]["otherPinId"], errs[0]["vertexIndex"]),
                         ("b", "a", 0))
        self.rejected(puppet(keys={"scale": [{"frame": 0, "value": -2}]}), "PUPPET_PINS",
                      "/ops/0/puppet/pins/1/keys/scale/0/value")
        many = [{"id": f"p{i}", "x": i % 4 * 10, "y": i // 4 * 10} for i in range(257)]
        self.rejected([{"op": "layer.puppet", "layerId": "m", "puppet": dict(base, pins=many)}],
                      "PUPPET_PINS", "/ops/0/puppet/pins")
        self.rejected([{"op": "layer.puppet", "layerId": "m",
                        "puppet": dict(base, solver="fem")}], "OP_INVALID", "/ops/0/puppet/solver")

    def test_bad_pin_ops_are_refused_with_pointers(self):
        src, tris = oracle.grid(4, 4)
        self.put_puppet(wire({"source": src, "triangles": tris,
                              "pins": [{"id": "a", "x": 0, "y": 0}]}))
        put = {"op": "layer.puppet.pin.put", "layerId": "m"}
        self.rejected([dict(put, pin={"id": "b", "x": 30, "y": 30, "scale": -1})],
                      "PUPPET_PINS", "/ops/0/pin/scale")
        errs = self.rejected([dict(put, pin={"id": "b", "x": 1, "y": 1})],
                             "PUPPET_PIN_VERTEX", "/ops/0/pin")
        self.assertEqual((errs[0]["pinId"], errs[0]["otherPinId"]), ("b", "a"))
        self.rejected([{"op": "layer.puppet.pin.delete", "layerId": "m", "pinId": "zz"}],
                      "PUPPET_PINS", "/ops/0/pinId")
        key = {"op": "layer.puppet.pin.key.put", "layerId": "m", "pinId": "a"}
        self.rejected([dict(key, channel="stiffness", keys=[{"frame": 0, "value": -3}])],
                      "PUPPET_PINS", "/ops/0/keys/0/value")
        self.rejected([dict(key, channel="spin", keys=[{"frame": 0, "value": 1}])],
                      "OP_INVALID", "/ops/0/channel")
        self.rejected([{"op": "layer.puppet.pin.key.delete", "layerId": "m", "pinId": "a",
                        "channel": "rotation", "frames": [3]}], "OP_INVALID", "/ops/0/frames/0")
        # not a puppet: the group layer, and a mesh layer with another binding
        self.rejected([dict(put, layerId="g", pin={"id": "b", "x": 3, "y": 3})], "LAYER_KIND")
        self.rigd.edit(S, [{"op": "layer.mesh", "layerId": "m",
                            "mesh": {"source": wire({"source": src, "triangles": tris,
                                                     "pins": []})["source"],
                                     "triangles": [tris[i:i + 3] for i in range(0, len(tris), 3)]}}])
        errs = self.rejected([dict(put, pin={"id": "b", "x": 3, "y": 3})], "MESH_BINDING_KIND")
        self.assertEqual(errs[0]["bindingKind"], "mesh")

    def test_a_puppets_rest_cannot_be_replaced_by_a_frame(self):
        src, tris = oracle.grid(4, 4)
        self.put_puppet(wire({"source": src, "triangles": tris,
                              "pins": [{"id": "a", "x": 0, "y": 0}]}))
        errs = self.rejected([{"op": "layer.deformation.rest.apply", "layerId": "m", "frame": 2}],
                             "MESH_BINDING_KIND")
        self.assertEqual(errs[0]["bindingKind"], "puppet")


if __name__ == "__main__":
    main()
