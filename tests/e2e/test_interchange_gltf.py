"""glTF 2.0 binary export end to end (issue 26): shots built through the real server, exported
with GET /v1/shots/{id}/export?format=gltf, then checked by two independent oracles in Node
(tests/oracles, pinned in package.json, installed by scripts/oracles.sh):

  - the Khronos glTF-Validator (gltf_validate.mjs): zero errors;
  - three.js's GLTFLoader with an AnimationMixer (gltf_frames.mjs): every mesh's vertices in
    world space at keyed and in-between times, against rigd's own frames
    (GET …/frames/{f}?space=shot) within 1e-5.

A glTF time is (shot frame − frameOrigin) / fps, frameOrigin from asset.extras.rigd. Under CI
(CI=true) a missing node or oracle fails the test; elsewhere it skips.
"""
import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

from rigd_harness import RigdTestCase, main

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLES = os.path.join(os.path.dirname(HERE), "oracles")
TOL = 1e-5


def oracle_missing():
    """Why the Node oracles cannot run, or None."""
    if not shutil.which("node"):
        return "node is not installed"
    for pkg in ("three", "gltf-validator"):
        if not os.path.isdir(os.path.join(ORACLES, "node_modules", pkg)):
            return f"tests/oracles/node_modules/{pkg} is missing (run scripts/oracles.sh)"
    return None


def require_oracles(case):
    why = oracle_missing()
    if why and os.environ.get("CI") == "true":
        case.fail("the glTF oracles must run under CI: " + why)
    if why:
        raise unittest.SkipTest(why)


def node(script, *args):
    r = subprocess.run(["node", os.path.join(ORACLES, script), *map(str, args)],
                       capture_output=True, text=True, timeout=120, cwd=ORACLES)
    if r.returncode != 0:
        raise AssertionError(f"{script} failed ({r.returncode}): {r.stderr[-3000:]}")
    return json.loads(r.stdout)


def glb_json(body):
    """The JSON chunk of a .glb, after checking the container's framing."""
    magic, version, length = struct.unpack_from("<4sII", body, 0)
    assert magic == b"glTF" and version == 2 and length == len(body), (magic, version, length)
    jlen, jtype = struct.unpack_from("<I4s", body, 12)
    assert jtype == b"JSON" and jlen % 4 == 0
    if 20 + jlen < len(body):
        blen, btype = struct.unpack_from("<I4s", body, 20 + jlen)
        assert btype == b"BIN\0" and blen % 4 == 0 and 28 + jlen + blen == len(body)
    return json.loads(body[20:20 + jlen])


def pts(vs):
    return [{"x": x, "y": y} for x, y in vs]


def grid(nx, ny, w, h, x0=0.0, y0=0.0):
    verts = [(x0 + w * i / (nx - 1), y0 + h * j / (ny - 1)) for j in range(ny) for i in range(nx)]
    tris = []
    for j in range(ny - 1):
        for i in range(nx - 1):
            a = j * nx + i
            tris += [[a, a + 1, a + nx + 1], [a, a + nx + 1, a + nx]]
    uvs = [[(x - x0) / w, (y - y0) / h] for x, y in verts]
    return verts, tris, uvs


def key(f, v, interp="linear", ease=None):
    k = {"frame": f, "value": v, "interp": interp}
    if ease:
        k["ease"] = ease
    return k


def group(lid, parent=None, pos=(0, 0), rot=0.0, scale=(1, 1), pivot=(0, 0), offset=None,
          kind="group"):
    op = {"op": "layer.create", "layerId": lid, "name": lid, "kind": kind, "parentId": parent,
          "transform": {"position": list(pos), "rotation": rot, "scale": list(scale),
                        "pivot": list(pivot)}}
    if offset is not None:
        op["timeOffset"] = offset
    return op


def keys(lid, channel, ks):
    return {"op": "layer.key.put", "layerId": lid, "channel": channel, "keys": ks}


def skin(lid, verts, tris, uvs, joints, weights, **over):
    """joints: [(jointId, layerId, bind)]; weights: per vertex [(jointId, w)]."""
    s = {"source": pts(verts), "triangles": tris, "uvs": uvs,
         "joints": [{"id": j, "bind": b} for j, _, b in joints],
         "weights": [[{"jointId": j, "weight": w} for j, w in lst] for lst in weights],
         "jointLayers": [{"jointId": j, "layerId": l} for j, l, _ in joints]}
    s.update(over)
    return {"op": "layer.skin", "layerId": lid, "skin": s}


def spread(verts, ids, n):
    """n influences per vertex over ids, varying with the vertex, summing to 1."""
    out = []
    for v, (x, y) in enumerate(verts):
        raw = [1.0 + ((v * 7 + k * 3) % 5) + 0.1 * x + 0.05 * k * y for k in range(n)]
        s = sum(raw)
        picks = [ids[(v + k) % len(ids)] for k in range(n)]
        w = [r / s for r in raw]
        w[-1] = 1.0 - sum(w[:-1])
        out.append(list(zip(picks, w)))
    return out


I = [1, 0, 0, 1, 0, 0]


def exact_ops():
    """Linear and hold keys only: glTF says them exactly, at every time."""
    verts, tris, uvs = grid(4, 3, 6.0, 4.0, -1.0, -1.0)
    cverts, ctris, cuvs = grid(3, 3, 4.0, 3.0, 1.0, 0.5)
    fverts, ftris, fuvs = grid(3, 2, 2.0, 1.0)
    ops = [
        group("rig", None, (3, 2), 10, (1.25, 1.25)),
        group("hip", "rig", (1, 0.5), 0, (1, 1), (0.5, 0.25)),
        group("arm", "hip", (4, 0), 5),
        group("tail", "rig", (-2, 0), offset=3),
        group("body", "rig", (0.5, -0.5), 20, (2, 1), kind="mesh"),
        group("cape", None, kind="mesh"),
        group("flag", "arm", (1, 1), 0, (1, 1), (0.5, 0.5), kind="mesh"),
        # the root turns rigidly by 200° and back (segments split below 180°)
        keys("rig", "rotation", [key(0, 10), key(10, 210), key(20, -20)]),
        keys("rig", "position.x", [key(0, 3), key(12, 5), key(24, 4)]),
        keys("hip", "rotation", [key(0, 0), key(10, 12), key(20, -8)]),
        keys("hip", "pivot.x", [key(0, 0.5), key(24, 0.9)]),
        keys("arm", "rotation", [key(0, 5, "hold"), key(6, 12, "hold"), key(15, -4, "hold")]),
        keys("arm", "scale.x", [key(0, 1), key(24, 1.2)]),
        keys("arm", "scale.y", [key(5, 1), key(20, 0.9)]),
        keys("tail", "position.y", [key(-6, 0), key(5, 0.6)]),  # shot −3 and 8: origin −3
        skin("body", verts, tris, uvs, [("r", "rig", I), ("h", "hip", I), ("a", "arm", I),
                                        ("t", "tail", I)],
             spread(verts, ["r", "h", "a", "t"], 4)),
        skin("cape", cverts, ctris, cuvs,
             [("r", "rig", I), ("h", "hip", I), ("a", "arm", I), ("t", "tail", I),
              ("h2", "hip", I), ("a2", "arm", I)],
             spread(cverts, ["r", "h", "a", "t", "h2", "a2"], 6)),
        # binds at the rest pose of frame 0: mesh-local, through each mesh's own path
        {"op": "layer.skin.bind.capture", "layerId": "body", "frame": 0},
        {"op": "layer.skin.bind.capture", "layerId": "cape", "frame": 0},
        {"op": "layer.mesh", "layerId": "flag",
         "mesh": {"source": pts(fverts), "triangles": ftris, "uvs": fuvs}},
    ]
    for f, dx in ((0, 0.0), (8, 1.0), (16, -0.5)):
        ops.append({"op": "layer.mesh.key.put", "layerId": "flag", "frame": f, "interp": "linear",
                    "vertices": pts([(x + dx + 0.03 * f * y, y + 0.015 * f * x)
                                     for x, y in fverts])})
    return ops


def sampled_ops():
    """Bezier and mixed keys and a two-bone IK: exact on the shot's frames only."""
    verts, tris, uvs = grid(5, 2, 8.0, 1.0, 0.0, -0.5)
    fverts, ftris, _ = grid(3, 2, 2.0, 1.0)
    ease = [0.42, 0.0, 0.58, 1.0]
    ops = [
        group("root", None, (1, 1), 15),
        group("upper", "root", (0.5, 0), 10, pivot=(0.25, 0)),
        group("lower", "upper", (4, 0), -20),
        group("target", None, (7, 3)),
        group("spin", None, (-3, 0)),
        group("arm", None, kind="mesh"),
        group("flag", "spin", (0, 2), kind="mesh"),
        keys("target", "position.x", [key(0, 7), key(12, 5)]),
        keys("target", "position.y", [key(0, 3, "bezier", ease), key(12, 4.5)]),
        keys("spin", "rotation", [key(0, 0, "bezier", ease), key(12, 270)]),
        keys("spin", "position.x", [key(0, -3, "hold"), key(4, -2, "linear"), key(9, -1)]),
        {"op": "constraint.put", "constraintId": "reach", "kind": "ik",
         "chain": ["upper", "lower"], "target": "target", "tipLength": 3, "bendPositive": False},
        skin("arm", verts, tris, uvs, [("u", "upper", I), ("l", "lower", I)],
             [[("u", 1.0)] if x == 0 else [("l", 1.0)] if x == 8 else
              [("u", 1 - x / 8), ("l", x / 8)] for x, y in verts]),
        {"op": "layer.skin.bind.capture", "layerId": "arm", "frame": 0},
        {"op": "layer.mesh", "layerId": "flag",
         "mesh": {"source": pts(fverts), "triangles": ftris}},
    ]
    for f, dx, interp in ((0, 0.0, "hold"), (3, 1.0, "linear"), (7, -0.5, "bezier"),
                          (11, 0.25, "linear")):
        op = {"op": "layer.mesh.key.put", "layerId": "flag", "frame": f, "interp": interp,
              "vertices": pts([(x + dx, y + 0.1 * f * x) for x, y in fverts])}
        if interp == "bezier":
            op["ease"] = ease
        ops.append(op)
    return ops


class GltfCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp(prefix="rigd-gltf-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        super().tearDown()

    def shot(self, sid, ops, fps=24, start=0, end=24):
        self.rigd.make_shot("p", sid, fps=fps, frameStart=start, frameEnd=end)
        if ops:
            self.rigd.edit(sid, ops)
        return sid

    def export(self, sid, query=""):
        r = self.rigd.get(f"/v1/shots/{sid}/export?format=gltf{query}")
        self.assertEqual(r.status, 200, r)
        return r

    def save(self, body, name="shot.glb"):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(body)
        return path

    def validate(self, body):
        """Zero validator errors; prints the warnings. Returns the validator's report."""
        require_oracles(self)
        rep = node("gltf_validate.mjs", self.save(body))
        for m in rep["messages"]:
            if m["severity"] <= 1:
                print(f"  validator {'error' if m['severity'] == 0 else 'warning'}: "
                      f"{m['code']} {m['pointer']}: {m['message']}")
        self.assertEqual(rep["errors"], 0, rep)
        return rep

    def rigd_verts(self, sid, layer, f):
        r = self.rigd.get(f"/v1/shots/{sid}/frames/{f!r}?layers={layer}&space=shot")
        self.assertEqual(r.status, 200, r)
        return r.json["layers"][0]["vertices"]

    def compare(self, sid, body, frames, meshes):
        """three.js's world vertices against rigd's shot-space frames at each frame; returns
        the largest difference seen."""
        require_oracles(self)
        rigd = glb_json(body)["asset"]["extras"]["rigd"]
        times = [(f - rigd["frameOrigin"]) / rigd["fps"] for f in frames]
        got = node("gltf_frames.mjs", self.save(body), *times)["meshes"]
        self.assertEqual(sorted(got), sorted(meshes))
        worst = 0.0
        for mesh in meshes:
            for k, f in enumerate(frames):
                want = self.rigd_verts(sid, mesh, f)
                have = got[mesh]["frames"][k]
                self.assertEqual(len(have), len(want))
                for v, (a, b) in enumerate(zip(have, want)):
                    d = max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2]))
                    worst = max(worst, d)
                    self.assertLessEqual(d, TOL, f"{mesh} frame {f} vertex {v}: three.js "
                                                 f"{a}, rigd {b}")
        return worst

    # ---- the oracles

    def test_exact_keys_skins_and_morphs_match_three_at_any_time(self):
        sid = self.shot("exact", exact_ops())
        r = self.export(sid)
        self.assertEqual(r.header("Content-Type"), "model/gltf-binary")
        self.validate(r.body)
        doc = glb_json(r.body)
        self.assertEqual(doc["asset"]["extras"]["rigd"]["frameOrigin"], -3)
        skins = {s["name"]: s for s in doc["skins"]}
        self.assertEqual(len(skins["cape"]["joints"]), 6)
        self.assertEqual(len(set(skins["cape"]["joints"])), 6, "a joint node per joint")
        cape = next(m for m in doc["meshes"] if m["name"] == "cape")["primitives"][0]
        self.assertIn("JOINTS_1", cape["attributes"])
        self.assertIn("TEXCOORD_0", cape["attributes"])
        body_mesh = next(m for m in doc["meshes"] if m["name"] == "body")["primitives"][0]
        self.assertNotIn("JOINTS_1", body_mesh["attributes"])
        flag = next(m for m in doc["meshes"] if m["name"] == "flag")
        self.assertEqual(len(flag["primitives"][0]["targets"]), 3)
        interps = {s["interpolation"] for s in doc["animations"][0]["samplers"]}
        self.assertEqual(interps, {"LINEAR", "STEP"})
        self.assertEqual(r.header("X-Rigd-Export-Unsupported"), "0")
        frames = [-3, 0, 2.5, 5, 6, 7.25, 8, 10, 12, 13.5, 15, 16, 17.9, 20, 24, 30]
        worst = self.compare(sid, r.body, frames, ["body", "cape", "flag"])
        print(f"  exact shot: {len(frames)} frames, 3 meshes, max |three − rigd| = {worst:.3g}")

    def test_sampled_eases_and_ik_match_three_on_the_frames(self):
        sid = self.shot("sampled", sampled_ops(), fps=12, start=0, end=12)
        r = self.export(sid)
        self.validate(r.body)
        frames = list(range(0, 13))
        worst = self.compare(sid, r.body, frames, ["arm", "flag"])
        print(f"  sampled shot: {len(frames)} frames, max |three − rigd| = {worst:.3g}")
        rep = self.export(sid, "&report=true").json
        self.assertEqual(rep["format"], "gltf")
        self.assertEqual(rep["shotId"], sid)
        features = sorted({(u["feature"], u.get("layerId")) for u in rep["unsupported"]})
        self.assertIn(("constraint", "upper"), features)
        self.assertIn(("bezier ease", "spin"), features)
        self.assertIn(("bezier ease", "target"), features)
        self.assertIn(("bezier ease", "flag"), features)
        self.assertEqual(int(r.header("X-Rigd-Export-Unsupported")), len(rep["unsupported"]))
        self.assertEqual(glb_json(r.body)["asset"]["extras"]["rigd"]["unsupported"],
                         rep["unsupported"])

    # ---- the route

    def test_bytes_are_deterministic_and_versions_export_their_state(self):
        sid = self.shot("hist", exact_ops()[:4])
        v1 = self.rigd.get(f"/v1/shots/{sid}").json["version"]
        first = self.export(sid).body
        self.assertEqual(self.export(sid).body, first, "the same version, the same bytes")
        self.rigd.edit(sid, [keys("rig", "rotation", [key(0, 0), key(10, 90)])])
        head = self.export(sid).body
        self.assertNotEqual(head, first)
        old = self.export(sid, f"&version={v1}")
        self.assertEqual(old.body, first)
        self.assertEqual(old.header("ETag"), f'"{v1}"')
        self.validate(head)
        self.assertNotIn("animations", glb_json(first))
        self.assertIn("animations", glb_json(head))

    def test_empty_shot_is_a_valid_scene(self):
        sid = self.shot("empty", [])
        r = self.export(sid)
        self.validate(r.body)
        doc = glb_json(r.body)
        self.assertEqual(len(doc["nodes"]), 1)
        self.assertNotIn("buffers", doc)
        self.assertEqual(node("gltf_frames.mjs", self.save(r.body), 0)["meshes"], {})

    def test_what_gltf_cannot_say_is_reported(self):
        verts, tris, uvs = grid(3, 2, 2.0, 1.0)
        sid = self.shot("odd", [
            group("j", None, (1, 0)),
            group("d", None, kind="mesh"),
            skin("d", verts, tris, uvs, [("a", "j", [1, 0, 0, 1, 0, 0])],
                 [[("a", 1.0)]] * len(verts), method="dqs"),
            keys("j", "position.y", [key(0, 0, "hold"), key(4, 1, "linear"), key(8, 3)]),
            group("pinned", None, kind="mesh"),
            skin("pinned", verts, tris, uvs, [("a", "j", [1, 0, 0, 1, 0, 0])],
                 [[("a", 1.0)]] * len(verts),
                 puppet={"pins": [{"id": "p", "x": 0, "y": 0}, {"id": "q", "x": 2, "y": 1}]}),
            group("pup", None, kind="mesh"),
            {"op": "layer.puppet", "layerId": "pup",
             "puppet": {"source": pts(verts), "triangles": tris,
                        "pins": [{"id": "p", "x": 0, "y": 0}, {"id": "q", "x": 2, "y": 1}]}},
        ])
        r = self.export(sid)
        self.validate(r.body)
        rep = self.export(sid, "&report=true").json
        features = {(u["feature"], u.get("layerId")) for u in rep["unsupported"]}
        self.assertEqual(features, {("skinning method", "d"), ("mixed interpolation", "j"),
                                    ("pins", "pinned"), ("binding", "pup")})
        self.assertEqual(int(r.header("X-Rigd-Export-Unsupported")), 4)
        names = {m["name"] for m in glb_json(r.body)["meshes"]}
        self.assertEqual(names, {"d", "pinned"}, "a puppet's mesh is not written")
        # the skins themselves are still three.js's to draw (at the frames' grid for j)
        self.assertLessEqual(self.compare(sid, r.body, [0, 4, 6, 8], ["d", "pinned"]), TOL)

    def test_bad_format_and_version(self):
        self.shot("s", [])
        r = self.rigd.get("/v1/shots/s/export?format=gltf2")
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertIn("gltf", body["validFormats"])
        self.assertProblem(self.rigd.get("/v1/shots/s/export?format=gltf&version=x"), 400,
                           "INVALID_QUERY")
        self.assertEqual(self.rigd.get("/v1/shots/nope/export?format=gltf").status, 404)


if __name__ == "__main__":
    main()
