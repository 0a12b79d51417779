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


if __name__ == "__main__":
    main()
