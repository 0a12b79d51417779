"""Skin edits in pieces (issue 13 item 4), end to end through the real server and SQLite file:
GET .../layers/{layerId}/skin, layer.skin.weights.put over many vertices (normalize, one
pointer per entry), layer.skin.joint.add / .remove / .remap.

Expected vertices and weights come from the independent Python reference in
test_skin_refmath.py (and arithmetic written here), never from the server.
"""
import math

import test_skin_ops as base
from rigd_harness import main
from test_skin_refmath import IDENTITY, RefError, invert, mul, rotate, translate

TOL = 1e-9


def strip():
    return base.strip_scene()


class PiecesCase(base.SkinCase):
    def get_skin(self, layer="strip", query=""):
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/{layer}/skin{query}")
        return r

    def skin_of(self, layer="strip", query=""):
        r = self.get_skin(layer, query)
        self.assertEqual(r.status, 200, r)
        return r.json

    def check_frames(self, scene, mesh="strip", frames=(0, 3, 7.5, 10, 14), folds=False):
        """Each frame as the reference computes it: the same vertices, or (when folds) the
        same refusal (a fold the reference finds is a 422 with its code and triangle)."""
        for f in frames:
            try:
                want = scene.evaluate(mesh, f)
            except RefError as exc:
                self.assertTrue(folds, f"the reference refuses frame {f}: {exc!r}")
                r = self.frame(f, layers=mesh)
                self.assertEqual(r.status, 422, r)
                self.assertEqual(r.json["code"], exc.code, r)
                for k, v in exc.fields.items():
                    self.assertEqual(r.json["errors"][0].get(k), v, r)
                continue
            self.assertVerts(self.verts(mesh, f), want, msg=f"frame {f}")

    def set_scene_weights(self, scene, mesh, weights):
        """weights as GET skin answers them → the reference's list of [(jointId, w)]."""
        scene.skins[mesh]["weights"] = [[(i["jointId"], i["weight"]) for i in lst]
                                        for lst in weights]


def wide_scene(n_joints=9):
    """A 3x2 strip whose vertices may follow any of n_joints joint layers, each keyed to move
    its own way, so every weight change shows in the evaluated frames."""
    s = strip()
    joints = [("fixed", IDENTITY), ("raise", IDENTITY)]
    layers = {"fixed": "jFixed", "raise": "jRaise"}
    for i in range(n_joints - 2):
        lid = f"jw{i}"
        s.layer(lid, parent="rig")
        s.keys(lid, "rotation", [(0, 0), (10, 0.2 * i)])
        s.keys(lid, "position.x", [(0, 0), (10, 1 + i)])
        s.keys(lid, "position.y", [(0, 0), (10, 0.5 * i)])
        joints.append((f"w{i}", IDENTITY))
        layers[f"w{i}"] = lid
    old = s.skins["strip"]
    s.skin("strip", old["source"], old["triangles"], joints, old["weights"], layers)
    # keep the mesh layer after its joints in creation order (any order works)
    s.order.remove("strip")
    s.order.append("strip")
    return s


def infl(*pairs):
    return [{"jointId": j, "weight": w} for j, w in pairs]


class GetSkin(PiecesCase):
    def test_round_trip_gives_an_identical_skin(self):
        s = strip()
        self.build(s)
        got = self.skin_of()
        self.assertEqual(got["shotId"], self.shot)
        self.assertEqual(got["layerId"], "strip")
        version = got["shotVersion"]
        self.assertEqual(version, self.rigd.get(f"/v1/shots/{self.shot}").json["version"])
        # exactly the shape layer.skin takes, with the values sent
        self.assertEqual(got["skin"], s.skin_json("strip"))
        # send it back unchanged, pinned to the version it was read at
        _, r = self.post_edit([{"op": "layer.skin", "layerId": "strip", "skin": got["skin"]}],
                              expectedVersion=version)
        self.assertEqual(r.status, 201, r)
        again = self.skin_of()
        self.assertEqual(again["shotVersion"], version + 1)
        self.assertEqual(again["skin"], got["skin"])
        self.check_frames(s)

    def test_round_trip_of_an_edited_skin(self):
        s = strip()
        self.build(s)
        skin = self.skin_of()["skin"]
        skin["weights"][1] = [{"jointId": "fixed", "weight": 0.25},
                              {"jointId": "raise", "weight": 0.75}]
        self.apply_ops([{"op": "layer.skin", "layerId": "strip", "skin": skin}])
        self.assertEqual(self.skin_of()["skin"], skin)
        s.skins["strip"]["weights"][1] = [("fixed", 0.25), ("raise", 0.75)]
        self.check_frames(s)

    def test_over_max_bytes_points_to_mesh_data_paging(self):
        s = strip()
        self.build(s)
        r = self.get_skin(query="?maxBytes=100")
        self.assertEqual(r.status, 422, r)
        p = r.json
        self.assertEqual(p["code"], "RESPONSE_TOO_LARGE")
        self.assertEqual(p["maxBytes"], 100)
        self.assertEqual(p["maxPageBytes"], 16 * 1024 * 1024)
        self.assertEqual(p["layerId"], "strip")
        base_path = f"/v1/shots/{self.shot}/layers/strip/mesh-data/"
        self.assertEqual(p["pagedRoutes"],
                         [base_path + k for k in ("vertices", "triangles", "joints", "weights")])
        self.assertIn("mesh-data", p["detail"])
        self.assertIn("100", p["detail"])
        # each paged route answers
        for route in p["pagedRoutes"]:
            self.assertEqual(self.rigd.get(route).status, 200)
        # at the exact size it fits
        size = len(self.get_skin().body.split(b'"skin":', 1)[1]) - 1
        self.assertEqual(self.get_skin(query=f"?maxBytes={size}").status, 200)
        self.assertEqual(self.get_skin(query=f"?maxBytes={size - 1}").status, 422)
        # maxBytes itself is checked like mesh-data's
        for bad in ("0", "-3", "x", "1.5"):
            r = self.get_skin(query=f"?maxBytes={bad}")
            self.assertEqual(r.status, 400, r)
            self.assertEqual(r.json["code"], "INVALID_QUERY")
        self.assertEqual(self.get_skin(query="?maxBytes=99999999999").status, 200)

    def test_layers_without_a_skin(self):
        s = strip()
        s.layer("bare", "mesh")
        self.build(s)
        r = self.get_skin("bare")
        self.assertEqual(r.status, 422, r)
        self.assertEqual(r.json["code"], "MESH_BINDING_KIND")
        self.assertEqual(r.json["layerId"], "bare")
        r = self.get_skin("jFixed")
        self.assertEqual(r.status, 422, r)
        self.assertEqual(r.json["code"], "MESH_BINDING_KIND")
        r = self.get_skin("nope")
        self.assertEqual(r.status, 404, r)
        self.assertEqual(r.json["code"], "NOT_FOUND")
        r = self.rigd.get("/v1/shots/nope/layers/strip/skin")
        self.assertEqual(r.status, 404, r)

    def test_etag(self):
        self.build(strip())
        r = self.get_skin()
        tag = r.header("ETag")
        self.assertTrue(tag)
        r2 = self.rigd.get(f"/v1/shots/{self.shot}/layers/strip/skin",
                           headers={"If-None-Match": tag})
        self.assertEqual(r2.status, 304)


class WeightsPutMany(PiecesCase):
    def test_many_vertices_in_one_op(self):
        s = strip()
        self.build(s)
        op = {"op": "layer.skin.weights.put", "layerId": "strip", "vertices": [
            {"vertexIndex": 4, "influences": infl(("fixed", 0.3), ("raise", 0.7))},
            {"vertexIndex": 0, "influences": infl(("fixed", 0.8), ("raise", 0.2))},
            {"vertexIndex": 1, "influences": infl(("fixed", 0.9), ("raise", 0.1))}]}
        r = self.apply_ops([op])
        weights = self.skin_of()["skin"]["weights"]
        self.assertEqual(weights[4], infl(("fixed", 0.3), ("raise", 0.7)))
        self.assertEqual(weights[0], infl(("fixed", 0.8), ("raise", 0.2)))
        self.assertEqual(weights[1], infl(("fixed", 0.9), ("raise", 0.1)))
        self.assertEqual(weights[2], infl(("raise", 1.0)))  # untouched
        s.skins["strip"]["weights"][4] = [("fixed", 0.3), ("raise", 0.7)]
        s.skins["strip"]["weights"][0] = [("fixed", 0.8), ("raise", 0.2)]
        s.skins["strip"]["weights"][1] = [("fixed", 0.9), ("raise", 0.1)]
        self.check_frames(s)
        self.assertEqual(r.json["ops"], [{"index": 0, "op": "layer.skin.weights.put",
                                          "layerId": "strip"}])
        self.assertEqual(r.json["changedLayers"], ["strip"])

    def test_lengths_change_and_the_rest_keeps_its_place(self):
        s = wide_scene()
        self.build(s)
        ids = ["fixed", "raise"] + [f"w{i}" for i in range(7)]
        eight = [("raise", 0.5625)] + [(j, 0.0625) for j in ids[:8] if j != "raise"]
        op = {"op": "layer.skin.weights.put", "layerId": "strip", "vertices": [
            {"vertexIndex": 5, "influences": infl(*eight)},             # at the limit
            {"vertexIndex": 1, "influences": infl(("w3", 1))},          # 2 → 1
            {"vertexIndex": 3, "influences": infl(("w0", 0.5), ("w6", 0.25), ("fixed", 0.25))}]}
        self.apply_ops([op])
        w = s.skins["strip"]["weights"]
        w[5] = eight
        w[1] = [("w3", 1.0)]
        w[3] = [("w0", 0.5), ("w6", 0.25), ("fixed", 0.25)]
        got = self.skin_of()["skin"]["weights"]
        self.assertEqual(got, [infl(*lst) for lst in w])
        self.check_frames(s)

    def test_normalize(self):
        s = strip()
        self.build(s)
        op = {"op": "layer.skin.weights.put", "layerId": "strip", "normalize": True,
              "vertices": [{"vertexIndex": 1, "influences": infl(("fixed", 2), ("raise", 6))},
                           {"vertexIndex": 4, "influences": infl(("fixed", 1), ("raise", 2))}]}
        self.apply_ops([op])
        got = self.skin_of()["skin"]["weights"]
        self.assertEqual([i["weight"] for i in got[1]], [0.25, 0.75])
        w4 = [i["weight"] for i in got[4]]
        self.assertAlmostEqual(w4[0], 1 / 3, delta=1e-15)
        self.assertAlmostEqual(w4[1], 2 / 3, delta=1e-15)
        self.assertLessEqual(abs(sum(w4) - 1), 64 * 2.0 ** -52)
        s.skins["strip"]["weights"][1] = [("fixed", 0.25), ("raise", 0.75)]
        s.skins["strip"]["weights"][4] = [("fixed", 1 / 3), ("raise", 2 / 3)]
        self.check_frames(s)
        # the single-vertex form takes normalize too
        self.apply_ops([{"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 2,
                         "normalize": True, "influences": infl(("raise", 40))}])
        self.assertEqual(self.skin_of()["skin"]["weights"][2], infl(("raise", 1.0)))
        # without normalize the same total is refused, never rescaled
        _, e = self.expect_edit_error(
            [{"op": "layer.skin.weights.put", "layerId": "strip", "vertices": [
                {"vertexIndex": 1, "influences": infl(("fixed", 2), ("raise", 6))}]}],
            "SKIN_WEIGHTS", vertexIndex=1, layerId="strip")
        self.assertEqual(e["pointer"], "/ops/0/vertices/0/influences")
        self.assertEqual(e["sum"], 8)

    def test_normalize_never_hides_a_bad_weight(self):
        self.build(strip())
        version = self.skin_of()["shotVersion"]
        ops = [{"op": "layer.skin.weights.put", "layerId": "strip", "normalize": True,
                "vertices": [
                    {"vertexIndex": 0, "influences": infl(("fixed", 0), ("raise", 2))},
                    {"vertexIndex": 1, "influences": infl(("fixed", -1), ("raise", 2))},
                    {"vertexIndex": 2, "influences": infl(("fixed", 1e308), ("raise", 1e308))}]}]
        p, e = self.expect_edit_error(ops, "SKIN_WEIGHTS", vertexIndex=0)
        self.assertEqual(e["pointer"], "/ops/0/vertices/0/influences/0/weight")
        e = self.find_error(p, "SKIN_WEIGHTS", vertexIndex=1)
        self.assertEqual(e["pointer"], "/ops/0/vertices/1/influences/0/weight")
        self.assertEqual(e["weight"], -1)
        e = self.find_error(p, "SKIN_WEIGHTS", vertexIndex=2)  # the sum overflows: no rescale
        self.assertEqual(e["pointer"], "/ops/0/vertices/2/influences")
        self.assertEqual(self.skin_of()["shotVersion"], version)

    def test_every_entry_error_with_its_own_pointer(self):
        s = strip()
        self.build(s)
        before = self.skin_of()
        ops = [{"op": "layer.pose", "layerId": "jRaise", "transform": {"rotation": 5}},
               {"op": "layer.skin.weights.put", "layerId": "strip", "vertices": [
                   {"vertexIndex": 0, "influences": infl(("fixed", 1))},                 # ok
                   {"vertexIndex": 1, "influences": infl(("fixed", 0.5), ("raise", 0))},
                   {"vertexIndex": 2, "influences": infl(("nope", 1))},
                   {"vertexIndex": 6, "influences": infl(("fixed", 1))},
                   {"vertexIndex": 3, "influences": infl(("fixed", 0.5), ("fixed", 0.5))},
                   {"vertexIndex": 0, "influences": infl(("raise", 1))},
                   {"vertexIndex": 4, "influences": []}]}]
        p, _ = self.expect_edit_error(ops, "SKIN_WEIGHTS", first=False)
        by_ptr = {e["pointer"]: e for e in p["errors"]}
        want = {
            "/ops/1/vertices/1/influences/1/weight": "SKIN_WEIGHTS",
            "/ops/1/vertices/2/influences/0/jointId": "SKIN_WEIGHTS",
            "/ops/1/vertices/3/vertexIndex": "SKIN_WEIGHT_VERTEX",
            "/ops/1/vertices/4/influences/1/jointId": "SKIN_WEIGHTS",
            "/ops/1/vertices/5/vertexIndex": "OP_INVALID",
            "/ops/1/vertices/6/influences": "SKIN_WEIGHTS",
        }
        self.assertEqual({k: by_ptr[k]["code"] for k in by_ptr}, want, p)
        for e in p["errors"]:
            self.assertEqual(e["opIndex"], 1)
            self.assertEqual(e["layerId"], "strip")
        unknown = by_ptr["/ops/1/vertices/2/influences/0/jointId"]
        self.assertEqual(unknown["jointId"], "nope")
        self.assertEqual(unknown["validJointIds"], ["fixed", "raise"])
        self.assertEqual(by_ptr["/ops/1/vertices/3/vertexIndex"]["vertexCount"], 6)
        self.assertEqual(by_ptr["/ops/1/vertices/5/vertexIndex"]["firstEntryIndex"], 0)
        # nothing changed
        self.assertEqual(self.skin_of(), before)

    def test_decode_errors_name_their_entry(self):
        self.build(wide_scene())
        ids = ["fixed", "raise"] + [f"w{i}" for i in range(7)]
        nine = infl(*[(j, 1 / 9) for j in ids])
        ops = [{"op": "layer.skin.weights.put", "layerId": "strip", "vertices": [
            {"vertexIndex": 0, "influences": nine},
            {"vertexIndex": -1, "influences": infl(("fixed", 1))},
            {"vertexIndex": 2, "influences": [{"jointId": "fixed", "weight": "1"}]},
            {"vertexIndex": 3, "influences": infl(("fixed", 1)), "extra": 1},
            "x"]},
            {"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 0,
             "influences": infl(("fixed", 1)), "vertices": []},
            {"op": "layer.skin.weights.put", "layerId": "strip", "vertices": []},
            {"op": "layer.skin.weights.put", "layerId": "strip", "normalize": 1,
             "vertexIndex": 0, "influences": infl(("fixed", 1))}]
        p, _ = self.expect_edit_error(ops, "SKIN_WEIGHTS", first=False)
        ptrs = {e["pointer"]: e["code"] for e in p["errors"]}
        self.assertEqual(ptrs["/ops/0/vertices/0/influences"], "SKIN_WEIGHTS")
        e = self.find_error(p, "SKIN_WEIGHTS", opIndex=0)
        self.assertEqual((e["influenceCount"], e["limit"]), (9, 8))
        self.assertEqual(ptrs["/ops/0/vertices/1/vertexIndex"], "OP_INVALID")
        self.assertEqual(ptrs["/ops/0/vertices/2/influences/0/weight"], "OP_INVALID")
        self.assertEqual(ptrs["/ops/0/vertices/3/extra"], "OP_INVALID")
        self.assertEqual(ptrs["/ops/0/vertices/4"], "OP_INVALID")
        self.assertEqual(ptrs["/ops/1/vertices"], "OP_INVALID")
        self.assertEqual(ptrs["/ops/2/vertices"], "OP_INVALID")
        self.assertEqual(ptrs["/ops/3/normalize"], "OP_INVALID")

    def test_point_shaped_entries_are_read_as_entries(self):
        """Entries shaped like mesh points ({x, y}) are this op's entries, each named by its
        own pointer: the body's compact point decoder must leave them to this op."""
        self.build(wide_scene())
        ops = [{"vertices": [{"x": 1, "y": 2}, {"x": 3, "y": 4}],
                "op": "layer.skin.weights.put", "layerId": "strip"}]
        p, _ = self.expect_edit_error(ops, "OP_INVALID", first=False, check_pointers=False)
        ptrs = {e["pointer"] for e in p["errors"]}
        for i in (0, 1):  # the unknown member, and the required one it lacks
            self.assertIn(f"/ops/0/vertices/{i}/x", ptrs, p)
            self.assertIn(f"/ops/0/vertices/{i}/vertexIndex", ptrs, p)

    def test_a_large_list(self):
        """A 101x101 grid (10,201 vertices) gets every weight rewritten in one op."""
        n = 101
        s = strip()
        s.layer("grid", "mesh", parent="rig")
        src = [(x * 2.0, y * 2.0) for y in range(n) for x in range(n)]
        tris = []
        for y in range(n - 1):
            for x in range(n - 1):
                a = y * n + x
                tris += [(a, a + 1, a + n + 1), (a, a + n + 1, a + n)]
        s.skin("grid", src, tris, [("fixed", IDENTITY), ("raise", IDENTITY)],
               [[("fixed", 1)]] * len(src), {"fixed": "jFixed", "raise": "jRaise"})
        self.build(s)
        entries, ref = [], []
        for v, (x, y) in enumerate(src):
            t = x / (2.0 * (n - 1))
            lst = [("fixed", 1 - t), ("raise", t)] if 0 < t < 1 else \
                [("fixed" if t == 0 else "raise", 1.0)]
            # sent unnormalised (x3) and rescaled by the server
            entries.append({"vertexIndex": len(src) - 1 - v,
                            "influences": infl(*[(j, 3 * w) for j, w in lst])})
            ref.append(lst)
        ref.reverse()
        self.apply_ops([{"op": "layer.skin.weights.put", "layerId": "grid", "normalize": True,
                         "vertices": entries}])
        got = self.skin_of("grid", "?maxBytes=16777216")["skin"]["weights"]
        self.assertEqual(len(got), len(src))
        for v in range(len(src)):
            want = ref[v]
            self.assertEqual([i["jointId"] for i in got[v]], [j for j, _ in want])
            for i, (_, w) in zip(got[v], want):
                self.assertAlmostEqual(i["weight"], w, delta=1e-15)
        s.skins["grid"]["weights"] = [[(i["jointId"], i["weight"]) for i in lst] for lst in got]
        for f in (0, 5, 10):
            self.assertVerts(self.verts("grid", f), s.evaluate("grid", f), msg=f"frame {f}")

    def test_dry_run_plan_and_receipt(self):
        self.build(strip())
        before = self.skin_of()
        op = {"op": "layer.skin.weights.put", "layerId": "strip",
              "vertices": [{"vertexIndex": 1, "influences": infl(("fixed", 1))}]}
        r = self.rigd.post(f"/v1/shots/{self.shot}/edits?dryRun=true", {"ops": [op]})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(self.skin_of(), before)
        r = self.rigd.post(f"/v1/shots/{self.shot}/plans", {"title": "w", "ops": [op]})
        self.assertEqual(r.status, 201, r)
        plan = r.json["planId"]
        r = self.rigd.post(f"/v1/plans/{plan}/apply", {"planVersion": 1})
        self.assertIn(r.status, (200, 201), r)
        self.assertEqual(self.skin_of()["skin"]["weights"][1], infl(("fixed", 1.0)))

def joint_add(joint_id, layer, bind=None, capture=None, mesh="strip"):
    op = {"op": "layer.skin.joint.add", "layerId": mesh, "joint": {"jointId": joint_id,
                                                                   "layerId": layer}}
    if bind is not None:
        op["joint"]["bind"] = list(bind)
    if capture is not None:
        op["captureFrame"] = capture
    return op


def joint_remove(joint_id, reassign=None, mesh="strip"):
    op = {"op": "layer.skin.joint.remove", "layerId": mesh, "jointId": joint_id}
    if reassign is not None:
        op["reassignTo"] = reassign
    return op


def joint_remap(joint_id, to, mesh="strip"):
    return {"op": "layer.skin.joint.remap", "layerId": mesh, "jointId": joint_id,
            "toLayerId": to}


def extra_joint_scene():
    """The strip plus a keyed group layer jExtra that no joint follows yet."""
    s = strip()
    s.layer("jExtra", parent="rig", position=(150, 10), rotation=4)
    s.keys("jExtra", "rotation", [(0, 4), (10, 9)])
    s.keys("jExtra", "position.x", [(0, 150), (10, 153)])
    s.order.remove("strip")
    s.order.append("strip")
    return s


class JointAdd(PiecesCase):
    def test_with_a_bind(self):
        s = extra_joint_scene()
        self.build(s)
        bind = mul(translate(150, 10), rotate(4))
        mix = infl(("raise", 0.5), ("extra", 0.5))
        r = self.apply_ops([joint_add("extra", "jExtra", bind=bind),
                            {"op": "layer.skin.weights.put", "layerId": "strip",
                             "vertices": [{"vertexIndex": 5, "influences": mix}]}])
        self.assertEqual(r.json["changedLayers"], ["strip"])
        skin = self.skin_of()["skin"]
        self.assertEqual(skin["joints"][2], {"id": "extra", "bind": list(bind)})
        self.assertEqual(skin["jointLayers"][2], {"jointId": "extra", "layerId": "jExtra"})
        self.assertEqual(skin["joints"][:2], s.skin_json("strip")["joints"])
        sk = s.skins["strip"]
        sk["joints"].append(("extra", tuple(bind)))
        sk["jointLayers"]["extra"] = "jExtra"
        sk["weights"][5] = [("raise", 0.5), ("extra", 0.5)]
        self.check_frames(s)

    def test_captured_at_a_frame(self):
        s = extra_joint_scene()
        s.layers["strip"]["time_offset"] = 2.0
        self.build(s)
        before = self.skin_of()["skin"]
        self.apply_ops([joint_add("extra", "jExtra", capture=4)])
        skin = self.skin_of()["skin"]
        # the other joints keep their binds bit for bit
        self.assertEqual(skin["joints"][:2], before["joints"])
        # the captured bind is the joint's pose in the mesh's space at local frame 4
        # (shot frame 6), computed here independently
        sk = s.skins["strip"]
        sk["jointLayers"]["extra"] = "jExtra"
        sk["joints"].append(("extra", IDENTITY))
        want = s.joint_poses("strip", 4 + 2.0)["extra"]
        got = skin["joints"][2]["bind"]
        for a, b in zip(got, want):
            self.assertAlmostEqual(a, b, delta=1e-9)
        # and it is what layer.skin.bind.capture gives that joint at that frame
        r = self.rigd.post(f"/v1/shots/{self.shot}/edits?dryRun=true", {"ops": [
            {"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 4}]})
        self.assertEqual(r.status, 200, r)
        self.apply_ops([{"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 4}])
        self.assertEqual(self.skin_of()["skin"]["joints"][2]["bind"], got)
        sk["joints"][2] = ("extra", tuple(got))
        s.capture("strip", 4)
        self.check_frames(s)

    def test_errors(self):
        s = extra_joint_scene()
        s.layer("bare", "mesh")
        s.layer("jIn", parent="strip")
        self.build(s)
        version = self.skin_of()["shotVersion"]
        p, _ = self.expect_edit_error([
            joint_add("e1", "jExtra", bind=IDENTITY, capture=0),          # both
            joint_add("e2", "jExtra"),                                    # neither
            joint_add("e3", "jExtra", bind=[1, 0, 2, 0, 0, 0]),          # singular
            {"op": "layer.skin.joint.add", "layerId": "strip", "joint": {"jointId": "bad id",
                                                                         "layerId": "jExtra",
                                                                         "bind": IDENTITY}},
        ], "OP_INVALID", first=False)
        ptrs = {e["pointer"]: e["code"] for e in p["errors"]}
        self.assertEqual(ptrs, {"/ops/0/captureFrame": "OP_INVALID", "/ops/1/joint": "OP_INVALID",
                                "/ops/2/joint/bind": "SKIN_BIND",
                                "/ops/3/joint/jointId": "OP_INVALID"}, p)
        p, _ = self.expect_edit_error([
            joint_add("raise", "jExtra", bind=IDENTITY),                  # id in use
            joint_add("e5", "nope", bind=IDENTITY),                       # no such layer
            joint_add("e6", "jExtra", bind=IDENTITY, mesh="bare"),        # no skin
            joint_add("e7", "jExtra", bind=IDENTITY, mesh="jExtra"),      # group layer
        ], "SKIN_JOINTS", first=False)
        ptrs = {e["pointer"]: e["code"] for e in p["errors"]}
        self.assertEqual(ptrs, {"/ops/0/joint/jointId": "SKIN_JOINTS",
                                "/ops/1/joint/layerId": "SKIN_JOINT_LAYERS",
                                "/ops/2/layerId": "MESH_BINDING_KIND",
                                "/ops/3/layerId": "LAYER_KIND"}, p)
        self.assertEqual(self.find_error(p, "SKIN_JOINT_LAYERS")["jointLayerId"], "nope")
        # a joint inside the skinned layer fails final validation
        p, e = self.expect_edit_error([joint_add("e8", "jIn", bind=IDENTITY)],
                                      "SKIN_DEFORMATION_BOUNDARY", jointId="e8", layerId="strip")
        self.assertEqual(e["opIndex"], 0)
        # ... and cannot be captured either
        self.expect_edit_error([joint_add("e9", "jIn", capture=0)],
                               "SKIN_DEFORMATION_BOUNDARY", jointId="e9")
        # a lock held by someone else
        r = self.rigd.post(f"/v1/shots/{self.shot}/locks", {"layerIds": ["strip"]},
                           headers={"X-Rigd-Actor": "bob"})
        self.assertEqual(r.status, 201, r)
        self.expect_edit_error([joint_add("e10", "jExtra", bind=IDENTITY)], "LAYER_LOCKED",
                               status=423)
        self.assertEqual(self.skin_of()["shotVersion"], version)

    def test_the_joint_limit(self):
        s = wide_scene(256)
        self.build(s)
        p, e = self.expect_edit_error([joint_add("one_more", "rig", bind=IDENTITY)], "SKIN_JOINTS")
        self.assertEqual((e["jointCount"], e["maxJoints"]), (256, 256))
        self.assertEqual(e["pointer"], "/ops/0/joint")


class JointRemove(PiecesCase):
    def test_reassign_sums_into_an_existing_influence(self):
        s = wide_scene()
        w = s.skins["strip"]["weights"]
        w[1] = [("fixed", 0.5), ("raise", 0.25), ("w0", 0.25)]
        w[4] = [("raise", 0.5), ("w1", 0.5)]
        self.build(s)
        self.apply_ops([joint_remove("raise", reassign="fixed")])
        skin = self.skin_of()["skin"]
        self.assertNotIn("raise", [j["id"] for j in skin["joints"]])
        self.assertNotIn("raise", [m["jointId"] for m in skin["jointLayers"]])
        # by hand: raise's weight moves to fixed, summed where fixed is already there
        want = [[("fixed", 1.0)], [("fixed", 0.75), ("w0", 0.25)], [("fixed", 1.0)],
                [("fixed", 1.0)], [("fixed", 0.5), ("w1", 0.5)], [("fixed", 1.0)]]
        self.assertEqual([[(i["jointId"], i["weight"]) for i in lst] for lst in skin["weights"]],
                         want)
        sk = s.skins["strip"]
        sk["joints"] = [j for j in sk["joints"] if j[0] != "raise"]
        del sk["jointLayers"]["raise"]
        sk["weights"] = want
        self.check_frames(s)

    def test_proportional_spread(self):
        s = wide_scene()
        w = s.skins["strip"]["weights"]
        w[1] = [("fixed", 0.5), ("raise", 0.3), ("w0", 0.2)]
        w[2] = [("raise", 0.6), ("w1", 0.3), ("w2", 0.1)]
        w[4] = [("w3", 0.7), ("raise", 0.3)]
        w[5] = [("w4", 1.0)]
        self.build(s)
        self.apply_ops([joint_remove("raise")])
        got = self.skin_of()["skin"]["weights"]
        for v, lst in enumerate(w):
            rest = [(j, x) for j, x in lst if j != "raise"]
            moved = sum(x for j, x in lst if j == "raise")
            total = sum(x for _, x in rest)
            want = [(j, x + moved * x / total) for j, x in rest]
            self.assertEqual([i["jointId"] for i in got[v]], [j for j, _ in want], v)
            for i, (_, x) in zip(got[v], want):
                self.assertAlmostEqual(i["weight"], x, delta=1e-15, msg=f"vertex {v}")
            self.assertLessEqual(abs(sum(i["weight"] for i in got[v]) - 1), 64 * 2.0 ** -52)
        self.assertAlmostEqual(got[1][0]["weight"], 0.5 / 0.7, delta=1e-15)
        self.assertAlmostEqual(got[2][1]["weight"], 0.25, delta=1e-15)
        self.assertEqual(got[0], infl(("fixed", 1.0)))     # untouched, bit for bit
        self.assertEqual(got[5], infl(("w4", 1.0)))
        sk = s.skins["strip"]
        sk["joints"] = [j for j in sk["joints"] if j[0] != "raise"]
        del sk["jointLayers"]["raise"]
        self.set_scene_weights(s, "strip", got)
        self.check_frames(s)

    def test_eight_influences_stay_eight(self):
        s = wide_scene()
        ids = ["fixed", "raise"] + [f"w{i}" for i in range(7)]
        s.skins["strip"]["weights"][5] = [(j, 0.125) for j in ids[:8]]   # w6 not among them
        self.build(s)
        _, r = self.post_edit([joint_remove("raise", reassign="w6")])
        self.assertEqual(r.status, 201, r)
        got = self.skin_of()["skin"]["weights"][5]
        self.assertEqual(len(got), 8)
        self.assertEqual([i["jointId"] for i in got],
                         ["fixed", "w6", "w0", "w1", "w2", "w3", "w4", "w5"])
        self.apply_ops([joint_remove("w6", reassign="fixed")])
        got = self.skin_of()["skin"]["weights"][5]
        self.assertEqual(len(got), 7)
        self.assertEqual(got[0], {"jointId": "fixed", "weight": 0.25})

    def test_a_vertex_left_with_none(self):
        s = strip()
        self.build(s)
        before = self.skin_of()
        p, e = self.expect_edit_error([joint_remove("raise")], "SKIN_WEIGHTS", vertexIndex=2,
                                      layerId="strip")
        self.find_error(p, "SKIN_WEIGHTS", vertexIndex=5, layerId="strip")
        self.assertEqual(len(p["errors"]), 2)
        self.assertEqual(e["pointer"], "/ops/0/jointId")
        self.assertEqual(e["jointId"], "raise")
        self.assertEqual(self.skin_of(), before)
        # fixing those vertices first in the same batch makes it pass
        self.apply_ops([{"op": "layer.skin.weights.put", "layerId": "strip", "vertices": [
            {"vertexIndex": v, "influences": infl(("fixed", 1))} for v in (1, 2, 4, 5)]},
            joint_remove("raise")])
        skin = self.skin_of()["skin"]
        self.assertEqual(skin["joints"], [{"id": "fixed", "bind": list(IDENTITY)}])
        self.assertEqual(skin["weights"], [infl(("fixed", 1.0))] * 6)

    def test_errors(self):
        s = wide_scene(20)
        s.layer("bare", "mesh")
        self.build(s)
        ids = ["fixed", "raise"] + [f"w{i}" for i in range(18)]
        p, e = self.expect_edit_error([joint_remove("nope")], "SKIN_JOINTS", jointId="nope")
        self.assertEqual(e["pointer"], "/ops/0/jointId")
        self.assertEqual(e["validJointIds"], ids[:16])
        p, e = self.expect_edit_error([joint_remove("raise", reassign="zz")], "SKIN_JOINTS",
                                      jointId="zz")
        self.assertEqual(e["pointer"], "/ops/0/reassignTo")
        self.assertEqual(e["validJointIds"], ids[:16])
        p, e = self.expect_edit_error([joint_remove("raise", reassign="raise")], "OP_INVALID")
        self.assertEqual(e["pointer"], "/ops/0/reassignTo")
        self.expect_edit_error([joint_remove("raise", mesh="bare")], "MESH_BINDING_KIND")

    def test_an_idempotent_retry_removes_once(self):
        s = strip()
        s.skins["strip"]["weights"][2] = [("fixed", 0.5), ("raise", 0.5)]
        s.skins["strip"]["weights"][5] = [("fixed", 0.5), ("raise", 0.5)]
        self.build(s)
        body = {"ops": [joint_remove("raise")]}
        h = {"Idempotency-Key": "rm-raise-1"}
        first = self.rigd.post(f"/v1/shots/{self.shot}/edits", body, headers=h)
        self.assertEqual(first.status, 201, first)
        again = self.rigd.post(f"/v1/shots/{self.shot}/edits", body, headers=h)
        self.assertEqual(again.status, 201, again)
        self.assertEqual(again.header("Idempotency-Replayed"), "true")
        self.assertEqual(again.json["receiptId"], first.json["receiptId"])
        skin = self.skin_of()
        self.assertEqual(skin["shotVersion"], first.json["toVersion"])
        self.assertEqual(skin["skin"]["weights"], [infl(("fixed", 1.0))] * 6)

    def test_the_last_joint(self):
        s = strip()
        s.skins["strip"]["weights"] = [[("fixed", 1)]] * 6
        self.build(s)
        self.apply_ops([joint_remove("raise")])
        _, e = self.expect_edit_error([joint_remove("fixed")], "SKIN_JOINTS", jointId="fixed")
        self.assertEqual(e["jointCount"], 1)


class JointRemap(PiecesCase):
    def test_remap(self):
        s = extra_joint_scene()
        s.layer("jIn", parent="strip")
        self.build(s)
        self.apply_ops([joint_remap("raise", "jExtra")])
        skin = self.skin_of()["skin"]
        self.assertEqual(skin["jointLayers"][1], {"jointId": "raise", "layerId": "jExtra"})
        self.assertEqual(skin["joints"], s.skin_json("strip")["joints"])
        s.skins["strip"]["jointLayers"]["raise"] = "jExtra"
        # the identity binds now put the right edge 150 units away: frames fold, as the
        # reference says
        self.check_frames(s, folds=True)
        # remapped back and re-captured in one batch: the new layer drives the right edge
        self.apply_ops([joint_remap("raise", "jRaise"), joint_remap("raise", "jExtra"),
                        {"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 0}])
        s.capture("strip", 0)
        self.check_frames(s)
        self.assertVerts(self.verts("strip", 0), s.skins["strip"]["source"])

    def test_errors(self):
        s = extra_joint_scene()
        s.layer("jIn", parent="strip")
        s.layer("bare", "mesh")
        self.build(s)
        version = self.skin_of()["shotVersion"]
        p, e = self.expect_edit_error([joint_remap("nope", "jExtra")], "SKIN_JOINTS",
                                      jointId="nope")
        self.assertEqual(e["validJointIds"], ["fixed", "raise"])
        self.assertEqual(e["pointer"], "/ops/0/jointId")
        p, e = self.expect_edit_error([joint_remap("raise", "gone")], "SKIN_JOINT_LAYERS",
                                      jointId="raise", jointLayerId="gone")
        self.assertEqual(e["pointer"], "/ops/0/toLayerId")
        # final validation checks the mapping as for layer.skin
        p, e = self.expect_edit_error([joint_remap("raise", "jIn")],
                                      "SKIN_DEFORMATION_BOUNDARY", jointId="raise",
                                      layerId="strip")
        self.assertEqual(e["opIndex"], 0)
        p, e = self.expect_edit_error([joint_remap("raise", "jExtra"),
                                       {"op": "layer.delete", "layerId": "jExtra"}],
                                      "SKIN_JOINT_LAYERS", jointId="raise")
        self.expect_edit_error([joint_remap("raise", "jExtra", mesh="bare")],
                               "MESH_BINDING_KIND")
        self.expect_edit_error([joint_remap("raise", "jExtra", mesh="nope")], "LAYER_NOT_FOUND")
        self.assertEqual(self.skin_of()["shotVersion"], version)


class EveryErrorAtOnce(PiecesCase):
    def test_one_answer_for_every_joint_op(self):
        s = extra_joint_scene()
        self.build(s)
        p, _ = self.expect_edit_error([
            joint_add("raise", "jExtra", bind=IDENTITY),
            joint_remove("nope"),
            joint_remap("fixed", "gone"),
            {"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 9,
             "influences": infl(("fixed", 1))},
        ], "SKIN_JOINTS", first=False)
        self.assertEqual([(e["opIndex"], e["code"]) for e in p["errors"]],
                         [(0, "SKIN_JOINTS"), (1, "SKIN_JOINTS"), (2, "SKIN_JOINT_LAYERS"),
                          (3, "SKIN_WEIGHT_VERTEX")])


if __name__ == "__main__":
    main()
