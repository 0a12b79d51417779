"""Dual-complex skinning (issue 24 item 8): `skin.method: "dqs"` through the real server and
its SQLite file.

The expected vertices come from an oracle written here with numpy, independently of the
server's closed form: each skin matrix pose · bind⁻¹ is split by a singular value
decomposition (A = U·Σ·Vᵀ, R = U·Vᵀ, S = V·Σ·Vᵀ), its rotation angle read back with atan2,
the rotors and dual parts blended as complex numbers in the first influence's hemisphere, S
blended linearly and applied first; compared to 1e-9 relative. Joint poses relative to the
mesh come from the scene reference of test_skin_refmath.py, which the lbs tests use.

Also: the issue's two bones at ±90° (dqs keeps every vertex where lbs collapses the mesh),
the method in every read (layer, skin, diff) and across history (an older version, revert,
the ops that rewrite a skin), POST /v1/skin/evaluate, and a bad method refused with its
pointer, changing nothing.
"""
import json
import math
import os
import random
import sys

import numpy as np  # Debian's python3-numpy (the tests run on /usr/bin/python3: CMakeLists.txt)

from rigd_harness import RigdTestCase, main
from test_skin_refmath import IDENTITY, Scene, fmt_frame, invert, mul

S = "s"
E = f"/v1/shots/{S}/edits"
REL = 1e-9


# ---------------------------------------------------------------- the oracle

def as3(m):
    a, b, c, d, e, f = m
    return np.array([[a, c, e], [b, d, f], [0.0, 0.0, 1.0]])


def dqs_oracle(source, weights, binds, poses):
    """source [(x, y)], weights [[(jointId, w)]], binds/poses {jointId: matrix}: dqs vertices."""
    parts = {}
    for j in binds:
        M = as3(poses[j]) @ np.linalg.inv(as3(binds[j]))
        A, t = M[:2, :2], M[:2, 2]
        assert np.linalg.det(A) > 0, "the oracle's rigs keep det > 0 (polar = SVD)"
        U, sig, Vt = np.linalg.svd(A)
        R = U @ Vt
        Sres = Vt.T @ np.diag(sig) @ Vt
        theta = math.atan2(R[1, 0], R[0, 0])
        r = complex(math.cos(theta / 2), math.sin(theta / 2))
        d = 0.5 * complex(t[0], t[1]) * r.conjugate()
        parts[j] = (r, d, Sres)
    out = []
    for (x, y), infl in zip(source, weights):
        total = sum(w for _, w in infl)
        r0 = parts[infl[0][0]][0]
        rb = db = 0j
        Sb = np.zeros((2, 2))
        for j, w in infl:
            r, d, Sres = parts[j]
            w = w / total
            sign = 1.0 if (r * r0.conjugate()).real >= 0 else -1.0
            rb += w * sign * r
            db += w * sign * d
            Sb += w * Sres
        u = Sb @ np.array([x, y])
        rn, dn = rb / abs(rb), db / abs(rb)
        p = rn * rn * complex(u[0], u[1]) + 2 * dn * rn
        out.append((p.real, p.imag))
    return out


def grid(w, h, step, x0=0.0, y0=0.0):
    src = [(x0 + step * i, y0 + step * j) for j in range(h) for i in range(w)]
    tris = []
    for j in range(h - 1):
        for i in range(w - 1):
            a = j * w + i
            tris += [(a, a + 1, a + w + 1), (a, a + w + 1, a + w)]
    return src, tris


def random_scene(rng, n_joints, with_keys=True, tag=""):
    """Joint layers under one group ("rig" + tag) with random position, rotation, non-uniform
    scale and pivot (keyed over frames 0-10 when with_keys), a skinned 6 × 5 grid ("m" + tag)
    of 1-4 influences a vertex (smooth), binds at the joints' frame-0 poses after a small
    random affine."""
    s = Scene()
    rig, mesh = "rig" + tag, "m" + tag
    s.layer(rig, position=(rng.uniform(-20, 20), rng.uniform(-20, 20)),
            rotation=rng.uniform(-30, 30))
    ids = [f"j{k}" for k in range(n_joints)]
    for j in ids:
        lid = "L" + j + tag
        x, rot = rng.uniform(-30, 30), rng.uniform(-45, 45)
        s.layer(lid, parent=rig, position=(x, rng.uniform(-30, 30)), rotation=rot,
                scale=(rng.uniform(0.8, 1.25), rng.uniform(0.8, 1.25)),
                pivot=(rng.uniform(0, 50), rng.uniform(0, 40)))
        if with_keys:  # from the rest (the binds are frame 0's poses) to a moderate pose
            s.keys(lid, "rotation", [(0, rot), (10, rot + rng.uniform(-15, 15))])
            s.keys(lid, "position.x", [(0, x), (10, x + rng.uniform(-3, 3))])
            s.keys(lid, "scale.y", [(0, 1.0), (10, rng.uniform(0.9, 1.1))])
    s.layer(mesh, "mesh", parent=rig)
    src, tris = grid(6, 5, 10.0)
    # Smooth weights (a Gaussian about a random centre per joint, the 4 nearest joints) so
    # that moderate poses keep every triangle's winding; the influence order is random.
    centres = {j: (rng.uniform(0, 50), rng.uniform(0, 40)) for j in ids}
    weights = []
    for x, y in src:
        near = sorted(ids, key=lambda j: math.hypot(x - centres[j][0], y - centres[j][1]))[:4]
        rng.shuffle(near)
        ws = [math.exp(-((x - centres[j][0]) ** 2 + (y - centres[j][1]) ** 2) / (2 * 30.0 ** 2))
              + 1e-3 for j in near]
        tot = sum(ws)
        weights.append([(j, w / tot) for j, w in zip(near, ws)])
    s.skin(mesh, src, tris, [(j, IDENTITY) for j in ids], weights,
           {j: "L" + j + tag for j in ids})
    poses0 = s.joint_poses(mesh, 0)
    s.skins[mesh]["joints"] = [
        (j, mul((1 + rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02),
                 rng.uniform(-0.02, 0.02), 1 + rng.uniform(-0.02, 0.02),
                 rng.uniform(-1, 1), rng.uniform(-1, 1)), poses0[j]))
        for j in ids]
    return s


def dqs_expected(scene, mesh, frame):
    sk = scene.skins[mesh]
    return dqs_oracle(sk["source"], sk["weights"], dict(sk["joints"]),
                      scene.joint_poses(mesh, frame))


def skin_op(scene, mesh, method=None):
    skin = scene.skin_json(mesh)
    if method is not None:
        skin["method"] = method
    return {"op": "layer.skin", "layerId": mesh, "skin": skin}


class DqsCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=24)

    def edit(self, ops, expect=201, **kw):
        r = self.rigd.post(E, {"ops": ops, **kw})
        self.assertEqual(r.status, expect, r)
        return r.json

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def verts(self, mesh, frame, version=None):
        path = f"/v1/shots/{S}/frames/{fmt_frame(frame)}?layers={mesh}"
        if version is not None:
            path += f"&version={version}"
        r = self.rigd.get(path)
        self.assertEqual(r.status, 200, r)
        return [tuple(v) for v in r.json["layers"][0]["vertices"]]

    def layer(self, lid, version=None):
        q = f"?version={version}" if version is not None else ""
        r = self.rigd.get(f"/v1/shots/{S}/layers/{lid}{q}")
        self.assertEqual(r.status, 200, r)
        return r.json

    def skin_read(self, lid, version=None):
        q = f"?version={version}" if version is not None else ""
        r = self.rigd.get(f"/v1/shots/{S}/layers/{lid}/skin{q}")
        self.assertEqual(r.status, 200, r)
        return r.json["skin"]

    def assertClose(self, got, want, rel=REL, msg=""):
        self.assertEqual(len(got), len(want), msg)
        for i, (g, w) in enumerate(zip(got, want)):
            for a, b in zip(g, w):
                self.assertLessEqual(abs(a - b), rel * max(1.0, abs(b)),
                                     f"{msg} vertex {i}: {g} vs {w}")


class IssueCase(DqsCase):
    def scene(self):
        """Two joints turned by +90° and −90° about (25, 20), every vertex ½, ½."""
        s = Scene()
        s.layer("jP", position=(25, 20), rotation=90, pivot=(25, 20))
        s.layer("jM", position=(25, 20), rotation=-90, pivot=(25, 20))
        s.layer("m", "mesh")
        src, tris = grid(6, 5, 10.0, -3.0, -2.0)
        s.skin("m", src, tris, [("p", IDENTITY), ("n", IDENTITY)],
               [[("p", 0.5), ("n", 0.5)] for _ in src], {"p": "jP", "n": "jM"})
        return s

    def test_two_bones_at_plus_and_minus_90_keep_the_distance_where_lbs_collapses(self):
        s = self.scene()
        src = s.skins["m"]["source"]
        # lbs: the two rotations average to the zero matrix; the mesh collapses and the frame
        # is refused.
        self.edit(s.all_ops())
        r = self.rigd.get(f"/v1/shots/{S}/frames/0?layers=m")
        self.assertProblem(r, 422, "MESH_COLLAPSED")
        # dqs: the rotors e^{±iπ/4} blend to 1; every vertex stays at its distance from the
        # pivot (in fact where it was).
        self.edit([skin_op(s, "m", "dqs")])
        got = self.verts("m", 0)
        for (x, y), (gx, gy) in zip(src, got):
            self.assertAlmostEqual(math.hypot(gx - 25, gy - 20), math.hypot(x - 25, y - 20),
                                   delta=1e-9)
            self.assertAlmostEqual(gx, x, delta=1e-9)
            self.assertAlmostEqual(gy, y, delta=1e-9)
        self.assertClose(got, dqs_expected(s, "m", 0))


class Oracle(DqsCase):
    def test_random_rigs_match_the_numpy_oracle(self):
        rng = random.Random(2408)
        n_frames, apart, worst = 0, 0.0, 0.0
        for trial in range(8):
            tag = f"_{trial}"
            mesh = "m" + tag
            s = random_scene(rng, 1 + trial % 5, tag=tag)
            self.edit(s.create_ops() + [skin_op(s, mesh, "dqs")])
            for frame in (0, 3.5, 10):
                r = self.rigd.get(f"/v1/shots/{S}/frames/{fmt_frame(frame)}?layers={mesh}")
                self.assertEqual(r.status, 200, f"trial {trial} frame {frame}: {r}")
                got = [tuple(v) for v in r.json["layers"][0]["vertices"]]
                want = dqs_expected(s, mesh, frame)
                self.assertClose(got, want, msg=f"trial {trial}")
                lbs = s.evaluate(mesh, frame, check=False)
                apart = max(apart, max(abs(a - b) for p, q in zip(want, lbs)
                                       for a, b in zip(p, q)))
                worst = max(worst, max(abs(a - b) / max(1.0, abs(b)) for p, q in zip(got, want)
                                       for a, b in zip(p, q)))
                n_frames += 1
        self.assertEqual(n_frames, 24)
        self.assertGreater(apart, 0.1, "the rigs are ones where dqs and lbs differ")
        if os.environ.get("DQS_REPORT"):
            print(f"dqs vs oracle: worst relative {worst:.3g}; dqs vs lbs up to {apart:.3g}",
                  file=sys.stderr)

    def test_skin_evaluate_takes_the_method(self):
        rng = random.Random(7)
        s = random_scene(rng, 3, with_keys=False)
        skin = s.skin_json("m")
        del skin["jointLayers"]
        poses = s.joint_poses("m", 0)
        for j in poses:  # a further random turn and stretch per joint
            t = rng.uniform(-0.2, 0.2)
            poses[j] = mul(poses[j], mul((math.cos(t), math.sin(t), -math.sin(t),
                                          math.cos(t), rng.uniform(-2, 2), 0),
                                         (1.05, 0.02, 0.0, 0.95, 0, 0)))
        body = dict(skin, method="dqs",
                    poses=[{"jointId": j, "matrix": list(m)} for j, m in poses.items()])
        r = self.rigd.post("/v1/skin/evaluate", body)
        self.assertEqual(r.status, 200, r)
        got = [(p["x"], p["y"]) for p in r.json["destination"]]
        sk = s.skins["m"]
        self.assertClose(got, dqs_oracle(sk["source"], sk["weights"], dict(sk["joints"]), poses))
        lbs = self.rigd.post("/v1/skin/evaluate", dict(body, method="lbs")).json["destination"]
        self.assertNotEqual([(p["x"], p["y"]) for p in lbs], got)
        self.assertEqual(self.rigd.post("/v1/skin/evaluate", {k: v for k, v in body.items()
                                                               if k != "method"}).json[
            "destination"], lbs, "absent is lbs")
        r = self.rigd.post("/v1/skin/evaluate", dict(body, method="slerp"))
        self.assertProblem(r, 422, "INVALID_FIELD")
        self.assertEqual(r.json["errors"][0]["pointer"], "/method")


class Reads(DqsCase):
    def setUp(self):
        super().setUp()
        self.s = random_scene(random.Random(11), 3)
        r = self.edit(self.s.all_ops())
        self.v_lbs = r["toVersion"]
        self.lbs_layer = self.layer("m")
        self.lbs_skin = self.skin_read("m")
        r = self.edit([skin_op(self.s, "m", "dqs")])
        self.v_dqs = r["toVersion"]
        self.dqs_receipt = r["receiptId"]

    def frames(self, version=None):
        return [self.verts("m", f, version) for f in (0, 5, 10)]

    def test_reads_show_dqs_and_lbs_reads_are_unchanged(self):
        self.assertNotIn("method", self.lbs_layer["binding"], "lbs: as before methods")
        self.assertNotIn("method", self.lbs_skin)
        b = self.layer("m")["binding"]
        self.assertEqual(b, dict(self.lbs_layer["binding"], method="dqs"))
        skin = self.skin_read("m")
        self.assertEqual(skin["method"], "dqs")
        self.assertEqual({k: v for k, v in skin.items() if k != "method"}, self.lbs_skin)
        for f, got in zip((0, 5, 10), self.frames()):
            self.assertClose(got, dqs_expected(self.s, "m", f), msg=f"frame {f}")
        # the skin read sent back unchanged keeps the method
        v = self.version()
        self.edit([{"op": "layer.skin", "layerId": "m", "skin": skin}])
        self.assertEqual(self.skin_read("m")["method"], "dqs")
        self.assertEqual(self.version(), v + 1)

    def test_history_diff_and_revert_keep_the_method(self):
        dqs_frames = self.frames()
        self.assertEqual(self.frames(self.v_lbs),
                         [self.verts("m", f, self.v_lbs) for f in (0, 5, 10)])
        r = self.edit([skin_op(self.s, "m")])  # back to lbs (method absent)
        v_back = r["toVersion"]
        self.assertNotIn("method", self.layer("m")["binding"])
        self.assertEqual(self.layer("m", self.v_dqs)["binding"]["method"], "dqs")
        self.assertNotIn("method", self.layer("m", self.v_lbs)["binding"])
        self.assertEqual(self.frames(self.v_dqs), dqs_frames, "an older version reads as it was")
        self.assertEqual(self.frames(), self.frames(self.v_lbs))
        d = self.rigd.get(f"/v1/shots/{S}/diff?from={self.v_dqs}&to={v_back}").json
        (rec,) = [l for l in d["layers"] if l["layerId"] == "m"]
        self.assertEqual(rec["binding"]["change"], "changed")
        self.assertEqual(rec["binding"]["parts"], {"method": {"from": "dqs", "to": "lbs"}})
        d = self.rigd.get(f"/v1/shots/{S}/diff?from={self.v_lbs}&to={self.v_dqs}").json
        (rec,) = [l for l in d["layers"] if l["layerId"] == "m"]
        self.assertEqual(rec["binding"]["parts"], {"method": {"from": "lbs", "to": "dqs"}})
        # reverting the return to lbs brings dqs back, frames bit for bit
        r = self.rigd.post(f"/v1/receipts/{r['receiptId']}/revert", {})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.layer("m")["binding"]["method"], "dqs")
        self.assertEqual(self.frames(), dqs_frames)
        # reverting the switch to dqs (forced past the later receipts) is lbs again
        r = self.rigd.post(f"/v1/receipts/{self.dqs_receipt}/revert", {"force": True})
        self.assertEqual(r.status, 201, r)
        self.assertNotIn("method", self.layer("m")["binding"])
        self.assertEqual(self.frames(), self.frames(self.v_lbs))

    def test_ops_that_rewrite_a_skin_keep_its_method(self):
        sk = self.s.skins["m"]
        ops = [
            [{"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 0,
              "influences": [{"jointId": sk["joints"][0][0], "weight": 1}]}],
            [{"op": "layer.skin.bind.capture", "layerId": "m", "frame": 2}],
            [{"op": "layer.create", "layerId": "Lextra", "name": "x", "kind": "group",
              "parentId": "rig"},
             {"op": "layer.skin.joint.add", "layerId": "m",
              "joint": {"jointId": "extra", "layerId": "Lextra"}, "captureFrame": 0}],
            [{"op": "layer.skin.joint.remap", "layerId": "m", "jointId": "extra",
              "toLayerId": "L" + sk["joints"][0][0]}],
            [{"op": "layer.skin.joint.remove", "layerId": "m", "jointId": "extra",
              "reassignTo": sk["joints"][0][0]}],
        ]
        for batch in ops:
            r = self.rigd.post(E, {"ops": batch})
            self.assertEqual(r.status, 201, (batch, r))
            self.assertEqual(self.layer("m")["binding"].get("method"), "dqs", batch[-1]["op"])
            self.assertEqual(self.skin_read("m").get("method"), "dqs", batch[-1]["op"])
        # layer.skin.bake evaluates the dqs skin: its keys are the dqs frames
        want = self.verts("m", 4)
        self.edit([{"op": "layer.skin.bake", "layerId": "m", "frames": [4]}])
        self.assertEqual(self.layer("m")["binding"]["kind"], "mesh")
        self.assertEqual(self.verts("m", 4), want)


class BadMethod(DqsCase):
    def test_a_bad_method_is_422_with_its_pointer_and_changes_nothing(self):
        s = random_scene(random.Random(5), 2)
        self.edit(s.create_ops())
        v = self.version()
        before = self.rigd.get(f"/v1/shots/{S}/layers/m").body
        for bad in ("quaternion", "LBS", "", 1, None, ["dqs"]):
            op = skin_op(s, "m")
            op["skin"]["method"] = bad
            r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "rig",
                                            "name": "changed"}, op]})
            self.assertProblem(r, 422, "OP_INVALID")
            self.assertEqual([e["pointer"] for e in r.json["errors"]], ["/ops/1/skin/method"],
                             (bad, r.json))
            self.assertEqual(self.version(), v, "nothing changed")
            self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/m").body, before)
        self.assertEqual(self.layer("rig")["name"], "rig")
        self.assertIn("not lbs or dqs",
                      json.dumps(self.rigd.post(E, {"ops": [dict(
                          skin_op(s, "m"), skin=dict(s.skin_json("m"), method="x"))]}).json))


class OracleSelfCheck(DqsCase):
    def test_the_oracle_reduces_to_lbs_for_one_influence_and_to_identity_at_rest(self):
        rng = random.Random(3)
        src = [(rng.uniform(-5, 5), rng.uniform(-5, 5)) for _ in range(10)]
        bind = (1.2, 0.1, -0.2, 0.9, 3, 4)
        pose = mul((math.cos(1), math.sin(1), -math.sin(1), math.cos(1), 7, -2),
                   mul((1.3, 0.2, 0.2, 0.7, 0, 0), bind))
        got = dqs_oracle(src, [[("a", 1.0)]] * 10, {"a": bind}, {"a": pose})
        M = mul(pose, invert(bind))
        for (x, y), (gx, gy) in zip(src, got):
            self.assertAlmostEqual(gx, M[0] * x + M[2] * y + M[4], delta=1e-12)
            self.assertAlmostEqual(gy, M[1] * x + M[3] * y + M[5], delta=1e-12)
        got = dqs_oracle(src, [[("a", 0.3), ("b", 0.7)]] * 10, {"a": bind, "b": IDENTITY},
                         {"a": bind, "b": IDENTITY})
        for p, q in zip(src, got):
            self.assertAlmostEqual(p[0], q[0], delta=1e-12)
            self.assertAlmostEqual(p[1], q[1], delta=1e-12)


if __name__ == "__main__":
    main()
