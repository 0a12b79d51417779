"""Skin edit ops end to end: layer.skin, layer.skin.bind.capture, layer.skin.weights.put,
final shot validation, and every SKIN_* / MESH_* code reachable from the API (with pointer
and indices), through the real server and SQLite file.

Expected vertices come from the independent Python reference in test_skin_refmath.py
(affine algebra, layer local matrices, key evaluation, LCA-relative poses, LBS), never from
the server.
"""
import re

from rigd_harness import RigdTestCase, main
from test_skin_refmath import (IDENTITY, RefError, Scene, fmt_frame, lbs,
                               max_diff, mul, resolve_pointer, rotate, translate)

TOL = 1e-9


def strip_scene():
    """The seed's strip: the left edge follows a fixed joint, the right edge a joint that rises
    40 units from frame 0 to frame 10, the middle column is weighted 0.5 / 0.5."""
    s = Scene()
    s.layer("rig", position=(10, 5), rotation=15)            # shared ancestor, cancels
    s.layer("jFixed", parent="rig")
    s.layer("jRaise", parent="rig")
    s.keys("jRaise", "position.y", [(0, 0), (10, 40)])
    s.layer("strip", "mesh", parent="rig")
    src = [(0, 0), (100, 0), (200, 0), (0, 20), (100, 20), (200, 20)]
    tris = [(0, 1, 4), (0, 4, 3), (1, 2, 5), (1, 5, 4)]
    left, mid, right = [("fixed", 1)], [("fixed", 0.5), ("raise", 0.5)], [("raise", 1)]
    s.skin("strip", src, tris, [("fixed", IDENTITY), ("raise", IDENTITY)],
           [left, mid, right, left, mid, right], {"fixed": "jFixed", "raise": "jRaise"})
    return s


def tri_skin(joint_layer="jA", **over):
    """A minimal valid LayerSkinInput (one triangle, one joint)."""
    skin = {"source": [{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 0, "y": 100}],
            "triangles": [[0, 1, 2]],
            "joints": [{"id": "a", "bind": [1, 0, 0, 1, 0, 0]}],
            "weights": [[{"jointId": "a", "weight": 1}] for _ in range(3)],
            "jointLayers": [{"jointId": "a", "layerId": joint_layer}]}
    skin.update(over)
    return skin


QUOTED = re.compile(r"'([^']*)'")


class SkinCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.shot = self.rigd.make_shot("p", "s", frameStart=0, frameEnd=24)

    # ---- requests
    def post_edit(self, ops, **kw):
        body = {"ops": ops, **kw}
        return body, self.rigd.post(f"/v1/shots/{self.shot}/edits", body)

    def apply_ops(self, ops):
        _, r = self.post_edit(ops)
        self.assertEqual(r.status, 201, r)
        return r

    def build(self, scene, extra=()):
        return self.apply_ops(scene.all_ops() + list(extra))

    def frame(self, f, layers=None, space=None, fmt=None, headers=None):
        q = []
        if layers:
            q.append("layers=" + layers)
        if space:
            q.append("space=" + space)
        if fmt:
            q.append("format=" + fmt)
        path = f"/v1/shots/{self.shot}/frames/{fmt_frame(f)}" + ("?" + "&".join(q) if q else "")
        return self.rigd.get(path, headers=headers)

    def verts(self, mesh, f, space=None):
        r = self.frame(f, layers=mesh, space=space)
        self.assertEqual(r.status, 200, r)
        body = r.json
        self.assertEqual([l["layerId"] for l in body["layers"]], [mesh])
        return [tuple(v) for v in body["layers"][0]["vertices"]]

    def layer(self, lid):
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/{lid}")
        self.assertEqual(r.status, 200, r)
        return r.json

    # ---- assertions
    def assertVerts(self, got, want, tol=TOL, msg=None):
        self.assertEqual(len(got), len(want), msg)
        d = max_diff(got, want)
        self.assertLessEqual(d, tol, f"{msg or ''}\n got  {got}\n want {want}\n max diff {d}")

    def assertPointersResolve(self, request_body, problem):
        for e in problem.get("errors", []):
            self.assertIn("pointer", e, e)
            try:
                resolve_pointer(request_body, e["pointer"])
            except (KeyError, IndexError) as exc:
                self.fail(f"pointer {e['pointer']!r} does not resolve in the request body "
                          f"({exc!r}); error: {e}")

    def find_error(self, problem, code, **fields):
        for e in problem.get("errors", []):
            if e.get("code") == code and all(e.get(k) == v for k, v in fields.items()):
                return e
        self.fail(f"no {code} error with {fields} in {problem}")

    def expect_edit_error(self, ops, code, first=True, status=422, check_pointers=True, **fields):
        """Sends the batch; asserts a problem with an error of code carrying fields (subset),
        that every error pointer resolves into the request body; returns (problem, error)."""
        body, r = self.post_edit(ops)
        self.assertEqual(r.status, status, r)
        self.assertEqual(r.header("Content-Type"), "application/problem+json", r)
        problem = r.json
        if first:
            self.assertEqual(problem["code"], code, problem)
            self.assertEqual(problem["errors"][0]["code"], code, problem)
        self.assertEqual(problem["type"], f"/v1/errors/{problem['code']}")
        err = self.find_error(problem, code, **fields)
        self.assertIn("opIndex", err, err)
        if check_pointers:
            self.assertPointersResolve(body, problem)
        return problem, err


class SeedStrip(SkinCase):
    def test_seed_strip_through_http(self):
        s = strip_scene()
        self.build(s)
        src = s.skins["strip"]["source"]
        for f, rise in ((0, 0.0), (5, 20.0), (10, 40.0), (-3, 0.0), (17, 40.0)):
            got = self.verts("strip", f)
            # left edge fixed, right edge rises by `rise`, the middle exactly half of it
            self.assertEqual(got[0], src[0])
            self.assertEqual(got[3], src[3])
            self.assertAlmostEqual(got[2][1], src[2][1] + rise, delta=TOL)
            self.assertAlmostEqual(got[5][1], src[5][1] + rise, delta=TOL)
            self.assertAlmostEqual(got[1][1], src[1][1] + rise / 2, delta=TOL)
            self.assertAlmostEqual(got[4][1], src[4][1] + rise / 2, delta=TOL)
            for i in range(6):
                self.assertAlmostEqual(got[i][0], src[i][0], delta=TOL)
            self.assertVerts(got, s.evaluate("strip", f))

    def test_seed_strip_pure_evaluator(self):
        s = strip_scene()
        body = s.skin_json("strip")
        del body["jointLayers"]
        body["poses"] = [{"jointId": "fixed", "matrix": [1, 0, 0, 1, 0, 0]},
                         {"jointId": "raise", "matrix": [1, 0, 0, 1, 0, 40]}]
        r = self.rigd.post("/v1/skin/evaluate", body)
        self.assertEqual(r.status, 200, r)
        out = r.json
        self.assertEqual(out["source"], body["source"])
        self.assertEqual(out["triangles"], body["triangles"])
        dst = [(p["x"], p["y"]) for p in out["destination"]]
        want = lbs(s.skins["strip"]["source"], s.skins["strip"]["weights"],
                   {"fixed": IDENTITY, "raise": IDENTITY},
                   {"fixed": IDENTITY, "raise": translate(0, 40)})
        self.assertVerts(dst, want)
        self.assertEqual(dst[1], (100.0, 20.0))

        # a rotated pose and a non-identity bind
        bind = mul(translate(200, 0), rotate(30))
        pose = mul(translate(210, 15), rotate(40))
        body["joints"][1]["bind"] = list(bind)
        body["poses"][1]["matrix"] = list(pose)
        r = self.rigd.post("/v1/skin/evaluate", body)
        self.assertEqual(r.status, 200, r)
        dst = [(p["x"], p["y"]) for p in r.json["destination"]]
        want = lbs(s.skins["strip"]["source"], s.skins["strip"]["weights"],
                   {"fixed": IDENTITY, "raise": bind}, {"fixed": IDENTITY, "raise": pose})
        self.assertVerts(dst, want)

    def test_pure_evaluator_round_trips_doubles(self):
        """Identity binds and poses: destination is the source exactly, printed so that every
        double round-trips (SPEC §1: %.17g or shortest round-trip, never fewer digits)."""
        xs = [1 / 3, 2 / 3 + 1e-9, 0.1, 123456.789012345678, -7 / 9, 1e-7 / 3]
        src = [{"x": xs[0], "y": xs[1]}, {"x": xs[2] + 100, "y": xs[3] / 1e4},
               {"x": xs[4], "y": 50 + xs[5]}]
        body = {"source": src, "triangles": [[0, 1, 2]],
                "joints": [{"id": "a", "bind": [1, 0, 0, 1, 0, 0]}],
                "weights": [[{"jointId": "a", "weight": 1}]] * 3,
                "poses": [{"jointId": "a", "matrix": [1, 0, 0, 1, 0, 0]}]}
        r = self.rigd.post("/v1/skin/evaluate", body)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["source"], src)
        self.assertEqual(r.json["destination"], src)

    def test_binding_summary_on_layer(self):
        self.build(strip_scene())
        b = self.layer("strip")["binding"]
        self.assertEqual(b, {"kind": "skin", "vertexCount": 6, "triangleCount": 4, "jointCount": 2})
        self.assertIsNone(self.layer("jFixed")["binding"])


def arm_scene(upper_rotation=10.0):
    """A two-bone arm under a shared, rotated and pivoted ancestor; the mesh has its own
    non-trivial transform; provisional identity binds."""
    s = Scene()
    s.layer("rig", position=(30, -10), rotation=20, pivot=(5, 5), scale=(1.5, 1.5))
    s.layer("upper", parent="rig", position=(50, 0), rotation=upper_rotation)
    s.layer("lower", parent="upper", position=(80, 0), pivot=(2, 1))
    s.keys("lower", "rotation", [(0, 0), (10, 45)])
    s.layer("arm", "mesh", parent="rig", position=(5, 5), rotation=-5, scale=(1.2, 0.9))
    xs = [0, 40, 80, 120, 160]
    src = [(x, -10) for x in xs] + [(x, 10) for x in xs]
    tris = []
    for i in range(4):
        tris += [(i, i + 1, i + 6), (i, i + 6, i + 5)]
    wcol = [[("u", 1)], [("u", 1)], [("u", 0.5), ("l", 0.5)], [("l", 1)], [("l", 1)]]
    s.skin("arm", src, tris, [("u", IDENTITY), ("l", IDENTITY)], wcol + wcol,
           {"u": "upper", "l": "lower"})
    return s


class Capture(SkinCase):
    def test_one_batch_creates_joints_skins_with_provisional_binds_and_captures(self):
        s = arm_scene(upper_rotation=10.0)
        ops = s.create_ops()
        # create 'upper' unrotated, pose it in the same batch: capture must see the pose
        for op in ops:
            if op["op"] == "layer.create" and op["layerId"] == "upper":
                op["transform"]["rotation"] = 0.0
        ops.append({"op": "layer.pose", "layerId": "upper", "transform": {"rotation": 10.0}})
        ops += s.skin_ops()
        ops.append({"op": "layer.skin.bind.capture", "layerId": "arm", "frame": 0})
        self.apply_ops(ops)
        s.capture("arm", 0)
        src = s.skins["arm"]["source"]
        self.assertVerts(self.verts("arm", 0), src, msg="captured frame must be the identity")
        for f in (4, 10, 2.5):
            want = s.evaluate("arm", f)
            self.assertGreater(max_diff(want, src), 1.0)  # the pose really changed
            self.assertVerts(self.verts("arm", f), want, msg=f"frame {f}")

    def test_capture_makes_captured_frame_identity_other_frames_change(self):
        s = strip_scene()
        s.skins["strip"]["joints"] = [("fixed", mul(translate(3, 4), rotate(10))),
                                      ("raise", (2.0, 0.0, 0.0, 0.5, -7.0, 1.0))]
        self.build(s)
        before_keys = self.layer("jRaise")["keys"]
        r = self.apply_ops([{"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 7}])
        self.assertEqual(r.json["changedLayers"], ["strip"])
        self.assertEqual(r.json["ops"], [{"index": 0, "op": "layer.skin.bind.capture",
                                          "layerId": "strip"}])
        s.capture("strip", 7)
        src = s.skins["strip"]["source"]
        self.assertVerts(self.verts("strip", 7), src)
        for f in (0, 3, 10, 12.5):
            got = self.verts("strip", f)
            self.assertGreater(max_diff(got, src), 1.0, f"frame {f} must change")
            self.assertVerts(got, s.evaluate("strip", f), msg=f"frame {f}")
        # keys, topology and weights untouched
        self.assertEqual(self.layer("jRaise")["keys"], before_keys)
        self.assertEqual(self.layer("strip")["binding"]["vertexCount"], 6)

    def test_capture_at_negative_local_frame_with_mesh_time_offset(self):
        s = strip_scene()
        s.layers["strip"]["time_offset"] = 4.0
        s.layers["jRaise"]["time_offset"] = 2.0
        s.layers["jRaise"]["keys"] = {}
        s.keys("jRaise", "position.y", [(-10, -40), (10, 40)])
        s.keys("strip", "rotation", [(-5, -4), (5, 6)])       # the mesh's own keys, local frames
        self.build(s)
        self.apply_ops([{"op": "layer.skin.bind.capture", "layerId": "strip", "frame": -3}])
        s.capture("strip", -3)  # mesh local -3 == shot frame 1 (jRaise local -1 → y = -4)
        src = s.skins["strip"]["source"]
        self.assertVerts(self.verts("strip", 1), src, msg="shot frame 1 = local -3 is the identity")
        for f in (-3, -7, 0, 5):
            got = self.verts("strip", f)
            self.assertGreater(max_diff(got, src), 0.5, f"shot frame {f} must differ")
            self.assertVerts(got, s.evaluate("strip", f), msg=f"shot frame {f}")

    def test_capture_at_fractional_frame(self):
        s = strip_scene()
        self.build(s)
        self.apply_ops([{"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 2.75}])
        s.capture("strip", 2.75)
        self.assertVerts(self.verts("strip", 2.75), s.skins["strip"]["source"])
        self.assertVerts(self.verts("strip", 9), s.evaluate("strip", 9))

    def test_capture_where_the_mesh_path_is_singular(self):
        s = strip_scene()
        s.keys("strip", "scale.x", [(0, 1), (10, 0)])
        self.build(s)
        before = self.rigd.snapshot(self.shot)
        _, e = self.expect_edit_error(
            [{"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 10}],
            "SKIN_LAYER_TRANSFORM", opIndex=0, layerId="strip")
        self.assertIn(e.get("jointId"), ("fixed", "raise"), e)
        self.assertEqual(e.get("frame"), 10.0, e)
        self.assertTrue(e["pointer"].startswith("/ops/0"), e)
        self.assertEqual(self.rigd.snapshot(self.shot), before)

    def test_capture_needs_a_skin(self):
        s = strip_scene()
        self.build(s, [{"op": "layer.create", "layerId": "bare", "name": "bare", "kind": "mesh"}])
        self.expect_edit_error([{"op": "layer.skin.bind.capture", "layerId": "bare", "frame": 0}],
                               "MESH_BINDING_KIND", opIndex=0, layerId="bare")
        self.expect_edit_error([{"op": "layer.skin.bind.capture", "layerId": "jFixed", "frame": 0}],
                               "LAYER_KIND", opIndex=0)

    def test_capture_of_singular_joint_pose_fails_final_validation(self):
        s = strip_scene()
        s.keys("jRaise", "scale.y", [(0, 1), (10, 0)])
        self.build(s)
        before = self.rigd.snapshot(self.shot)
        ops = [{"op": "layer.pose", "layerId": "jFixed", "transform": {"rotation": 3}},
               {"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 10}]
        problem, err = self.expect_edit_error(ops, "SKIN_BIND", jointId="raise",
                                              check_pointers=False)
        self.assertEqual(err["opIndex"], 1, err)        # names the capture op
        self.assertEqual(err.get("layerId"), "strip", err)
        self.assertEqual(self.rigd.snapshot(self.shot), before)
        # the pointer must lead into the request (op 1 has no 'skin' member)
        self.assertPointersResolve({"ops": ops}, problem)


class BindingLifecycle(SkinCase):
    def test_skin_null_clears(self):
        s = strip_scene()
        self.build(s)
        self.apply_ops([{"op": "layer.skin", "layerId": "strip", "skin": None}])
        self.assertIsNone(self.layer("strip")["binding"])
        r = self.frame(10, layers="strip")
        self.assertProblem(r, 422, "MESH_BINDING_KIND")
        r = self.frame(10)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["layers"], [])
        # the mesh layer itself stays, with its keys; clearing twice is fine
        self.apply_ops([{"op": "layer.skin", "layerId": "strip", "skin": None}])
        self.assertEqual(self.layer("strip")["kind"], "mesh")

    def test_replacing_a_skin(self):
        s = strip_scene()
        self.build(s)
        s2 = strip_scene()
        src = [(0, 0), (50, 0), (0, 50), (50, 50)]
        s2.skin("strip", src, [(0, 1, 3), (0, 3, 2)], [("only", translate(5, 5))],
                [[("only", 1)]] * 4, {"only": "jRaise"})
        self.apply_ops(s2.skin_ops())
        self.assertEqual(self.layer("strip")["binding"],
                         {"kind": "skin", "vertexCount": 4, "triangleCount": 2, "jointCount": 1})
        for f in (0, 5, 10):
            self.assertVerts(self.verts("strip", f), s2.evaluate("strip", f))

    def test_skin_ops_never_touch_joint_keys(self):
        s = strip_scene()
        s.keys("jFixed", "rotation", [(0, 0, "hold"), (5, 2), (9, 4)])
        self.build(s)
        keys = {l: self.layer(l)["keys"] for l in ("jFixed", "jRaise", "strip", "rig")}
        self.assertTrue(keys["jRaise"]["position.y"])
        self.apply_ops(s.skin_ops())
        self.apply_ops([{"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 3}])
        self.apply_ops([{"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 1,
                         "influences": [{"jointId": "fixed", "weight": 1}]}])
        self.apply_ops([{"op": "layer.skin", "layerId": "strip", "skin": None}])
        for l, k in keys.items():
            self.assertEqual(self.layer(l)["keys"], k, l)


class WeightsPut(SkinCase):
    def test_weights_put_replaces_one_vertex(self):
        s = strip_scene()
        self.build(s)
        self.apply_ops([{"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 1,
                         "influences": [{"jointId": "fixed", "weight": 0.75},
                                        {"jointId": "raise", "weight": 0.25}]}])
        s.skins["strip"]["weights"][1] = [("fixed", 0.75), ("raise", 0.25)]
        got = self.verts("strip", 10)
        self.assertVerts(got, s.evaluate("strip", 10))
        self.assertAlmostEqual(got[1][1], 10.0, delta=TOL)
        self.assertAlmostEqual(got[4][1], 40.0, delta=TOL)   # untouched vertex 4 still halfway

    def test_weights_put_changing_list_lengths_keeps_other_vertices(self):
        s = strip_scene()
        self.build(s)
        self.apply_ops([
            {"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 0,
             "influences": [{"jointId": "fixed", "weight": 0.9}, {"jointId": "raise", "weight": 0.1}]},
            {"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 1,
             "influences": [{"jointId": "fixed", "weight": 1}]},
            {"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 5,
             "influences": [{"jointId": "raise", "weight": 0.6}, {"jointId": "fixed", "weight": 0.4}]},
        ])
        s.skins["strip"]["weights"][0] = [("fixed", 0.9), ("raise", 0.1)]
        s.skins["strip"]["weights"][1] = [("fixed", 1)]
        s.skins["strip"]["weights"][5] = [("raise", 0.6), ("fixed", 0.4)]
        for f in (10, 5):
            self.assertVerts(self.verts("strip", f), s.evaluate("strip", f), msg=f"frame {f}")

    def test_weights_put_in_the_skin_batch_and_persisted(self):
        s = strip_scene()
        put = {"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 4,
               "influences": [{"jointId": "raise", "weight": 0.875},
                              {"jointId": "fixed", "weight": 0.125}]}
        self.build(s, [put, {"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 0}])
        s.skins["strip"]["weights"][4] = [("raise", 0.875), ("fixed", 0.125)]
        s.capture("strip", 0)
        self.assertVerts(self.verts("strip", 10), s.evaluate("strip", 10))
        # a later batch edits the stored skin; a second server on the same file sees it all
        put2 = dict(put, vertexIndex=1, influences=[{"jointId": "raise", "weight": 0.3},
                                                    {"jointId": "fixed", "weight": 0.7}])
        self.apply_ops([put2])
        s.skins["strip"]["weights"][1] = [("raise", 0.3), ("fixed", 0.7)]
        want = s.evaluate("strip", 10)
        self.assertVerts(self.verts("strip", 10), want)
        from rigd_harness import Rigd
        other = Rigd(db_path=self.rigd.db_path).start()
        try:
            r = other.get(f"/v1/shots/{self.shot}/frames/10?layers=strip")
        finally:
            other.cleanup()
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.body, self.frame(10, layers="strip").body)
        self.assertVerts([tuple(v) for v in r.json["layers"][0]["vertices"]], want)

    def test_repeated_weights_put_on_one_vertex_follows_batch_order(self):
        s = strip_scene()
        self.build(s)
        a = [{"jointId": "fixed", "weight": 0.25}, {"jointId": "raise", "weight": 0.75}]
        b = [{"jointId": "fixed", "weight": 0.75}, {"jointId": "raise", "weight": 0.25}]
        put = lambda infl: {"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 1,
                            "influences": infl}
        self.apply_ops([put(a), put(b)])
        self.assertAlmostEqual(self.verts("strip", 10)[1][1], 10.0, delta=TOL)
        self.apply_ops([put(b), put(a)])
        self.assertAlmostEqual(self.verts("strip", 10)[1][1], 30.0, delta=TOL)
        s.skins["strip"]["weights"][1] = [("fixed", 0.25), ("raise", 0.75)]
        self.assertVerts(self.verts("strip", 10), s.evaluate("strip", 10))

    def test_weights_put_errors(self):
        s = strip_scene()
        self.build(s, [{"op": "layer.create", "layerId": "bare", "name": "bare", "kind": "mesh"}])
        one = [{"jointId": "fixed", "weight": 1}]
        put = lambda layer, v, infl=one: {"op": "layer.skin.weights.put", "layerId": layer,
                                          "vertexIndex": v, "influences": infl}
        _, e = self.expect_edit_error([put("strip", 6)], "SKIN_WEIGHT_VERTEX", vertexIndex=6,
                                      opIndex=0)
        self.assertEqual(e["pointer"], "/ops/0/vertexIndex")
        self.assertEqual(e.get("layerId"), "strip")
        _, e = self.expect_edit_error([put("strip", 0), put("strip", 99)], "SKIN_WEIGHT_VERTEX",
                                      vertexIndex=99, opIndex=1)
        self.expect_edit_error([put("bare", 0)], "MESH_BINDING_KIND", opIndex=0, layerId="bare")
        self.expect_edit_error([put("jFixed", 0)], "LAYER_KIND", opIndex=0)
        # sum off by 128 ε: rejected, never renormalised
        off = [{"jointId": "fixed", "weight": 0.5}, {"jointId": "raise", "weight": 0.5 + 2 ** -45}]
        _, e = self.expect_edit_error([put("strip", 2, off)], "SKIN_WEIGHTS", vertexIndex=2)
        self.assertEqual(e["pointer"], "/ops/0/influences")
        # a zero weight and an unknown joint name their influence
        _, e = self.expect_edit_error(
            [put("strip", 2, [{"jointId": "fixed", "weight": 1}, {"jointId": "raise", "weight": 0}])],
            "SKIN_WEIGHTS", vertexIndex=2)
        self.assertEqual(e["pointer"], "/ops/0/influences/1/weight")
        _, e = self.expect_edit_error([put("strip", 2, [{"jointId": "zz", "weight": 1}])],
                                      "SKIN_WEIGHTS", vertexIndex=2, jointId="zz")
        self.assertEqual(e["pointer"], "/ops/0/influences/0/jointId")
        # 32 ε off: accepted
        ok = [{"jointId": "fixed", "weight": 0.5}, {"jointId": "raise", "weight": 0.5 + 2 ** -47}]
        self.apply_ops([put("strip", 2, ok)])
        s.skins["strip"]["weights"][2] = [("fixed", 0.5), ("raise", 0.5 + 2 ** -47)]
        self.assertVerts(self.verts("strip", 10), s.evaluate("strip", 10))


class ShotValidation(SkinCase):
    def test_deleting_a_mapped_joint_layer(self):
        s = strip_scene()
        self.build(s)
        before = self.rigd.snapshot(self.shot)
        _, e = self.expect_edit_error([{"op": "layer.delete", "layerId": "jRaise"}],
                                      "SKIN_JOINT_LAYERS", jointId="raise", opIndex=0)
        self.assertEqual(e.get("layerId"), "strip", e)
        # deleting an ancestor of the joint (not of the mesh) fails the same way
        self.expect_edit_error([
            {"op": "layer.create", "layerId": "holder", "name": "h", "kind": "group", "parentId": "rig"},
            {"op": "layer.parent", "layerId": "jRaise", "parentId": "holder"},
            {"op": "layer.delete", "layerId": "holder"}], "SKIN_JOINT_LAYERS", jointId="raise")
        self.assertEqual(self.rigd.snapshot(self.shot), before)
        # the same batch repairs the skin: allowed
        repaired = strip_scene()
        repaired.skins["strip"]["jointLayers"]["raise"] = "jFixed"
        self.apply_ops([{"op": "layer.delete", "layerId": "jRaise"}] + repaired.skin_ops())
        del repaired.layers["jRaise"]
        repaired.order.remove("jRaise")
        self.assertVerts(self.verts("strip", 10), repaired.evaluate("strip", 10))
        # the same batch clears the skin: allowed
        self.apply_ops([{"op": "layer.delete", "layerId": "jFixed"},
                        {"op": "layer.skin", "layerId": "strip", "skin": None}])
        self.assertIsNone(self.layer("strip")["binding"])

    def test_deleting_mesh_and_joints_together(self):
        self.build(strip_scene())
        self.apply_ops([{"op": "layer.delete", "layerId": "rig"}])
        self.assertEqual(self.rigd.get(f"/v1/shots/{self.shot}").json["layers"], [])

    def _two_meshes(self):
        s = strip_scene()
        s.layer("jCloth", parent="rig", position=(0, 50))
        s.layer("cloth", "mesh", parent="rig", position=(0, 60))
        s.skin("cloth", [(0, 0), (300, 0), (0, 300)], [(0, 1, 2)], [("c", translate(0, 50))],
               [[("c", 1)]] * 3, {"c": "jCloth"})
        self.build(s)
        return s

    def test_reparent_puts_deformed_layer_between_mesh_and_joint(self):
        self._two_meshes()
        before = self.rigd.snapshot(self.shot)
        _, e1 = self.expect_edit_error(
            [{"op": "layer.parent", "layerId": "jRaise", "parentId": "cloth"}],
            "SKIN_DEFORMATION_BOUNDARY", layerId="strip", opIndex=0)
        _, e2 = self.expect_edit_error(
            [{"op": "layer.parent", "layerId": "strip", "parentId": "cloth"}],
            "SKIN_DEFORMATION_BOUNDARY", layerId="strip", opIndex=0)
        self.assertEqual(self.rigd.snapshot(self.shot), before)
        # the joint is known: the error names it (SPEC §3/§4 "joint where known")
        self.assertEqual(e1.get("jointId"), "raise", e1)
        self.assertIn(e2.get("jointId"), ("fixed", "raise"), e2)

    def test_shared_deformed_ancestor_is_allowed_and_cancels(self):
        s = self._two_meshes()
        self.apply_ops([{"op": "layer.parent", "layerId": l, "parentId": "cloth"}
                        for l in ("jFixed", "jRaise", "strip")])
        for l in ("jFixed", "jRaise", "strip"):
            s.layers[l]["parent"] = "cloth"
        for f in (0, 6.5, 10):
            self.assertVerts(self.verts("strip", f), s.evaluate("strip", f), msg=f"frame {f}")

    def test_joint_on_an_ancestor_of_the_mesh_below_a_deformed_layer(self):
        """inner's joint 'k' is its own parent group g, which sits inside the skinned 'cloth':
        C = lca(inner, g) = g = J, so nothing lies strictly between C and J or between C and
        inner (SPEC §4); cloth is above C and simply does not take part."""
        s = Scene()
        s.layer("rig", rotation=10)
        s.layer("jCloth", parent="rig", position=(0, 5))
        s.layer("cloth", "mesh", parent="rig")
        s.skin("cloth", [(0, 0), (300, 0), (0, 300)], [(0, 1, 2)], [("c", IDENTITY)],
               [[("c", 1)]] * 3, {"c": "jCloth"})
        s.layer("g", parent="cloth", position=(20, 30), rotation=15)
        s.keys("g", "position.x", [(0, 20), (10, 40)])
        s.layer("jSib", parent="cloth", position=(70, 30))
        s.keys("jSib", "rotation", [(0, 0), (10, 25)])
        s.layer("inner", "mesh", parent="g", position=(5, 5), rotation=-8)
        s.skin("inner", [(0, 0), (60, 0), (60, 20), (0, 20)], [(0, 1, 2), (0, 2, 3)],
               [("k", IDENTITY), ("n", IDENTITY)],
               [[("k", 1)], [("n", 1)], [("n", 0.5), ("k", 0.5)], [("k", 1)]],
               {"k": "g", "n": "jSib"})
        self.build(s)
        # the server's capture must agree with the reference's (same resolver rule)
        self.apply_ops([{"op": "layer.skin.bind.capture", "layerId": "inner", "frame": 0}])
        s.capture("inner", 0)
        self.assertVerts(self.verts("inner", 0), s.skins["inner"]["source"])
        for f in (0, 4, 10):
            self.assertVerts(self.verts("inner", f), s.evaluate("inner", f), msg=f"frame {f}")
            self.assertVerts(self.verts("inner", f, space="shot"), s.evaluate_shot("inner", f),
                             msg=f"shot frame {f}")

    def test_joint_mapped_to_mesh_itself_or_inside_it(self):
        s = strip_scene()
        s.layer("inside", parent="strip")
        s.layer("deeper", parent="inside")
        self.apply_ops(s.create_ops())
        errors = []
        for target in ("strip", "inside", "deeper"):
            s.skins["strip"]["jointLayers"]["raise"] = target
            _, e = self.expect_edit_error(s.skin_ops(), "SKIN_DEFORMATION_BOUNDARY",
                                          layerId="strip", opIndex=0)
            errors.append(e)
        # reparenting a mapped joint into the mesh later fails as well
        s.skins["strip"]["jointLayers"]["raise"] = "jRaise"
        self.apply_ops(s.skin_ops())
        _, e = self.expect_edit_error(
            [{"op": "layer.parent", "layerId": "jRaise", "parentId": "inside"}],
            "SKIN_DEFORMATION_BOUNDARY", layerId="strip", opIndex=0)
        errors.append(e)
        # the joint is known: every one of these errors names it
        self.assertEqual([e.get("jointId") for e in errors], ["raise"] * 4, errors)

    def test_rest_apply_on_a_skin(self):
        self.build(strip_scene())
        _, e = self.expect_edit_error(
            [{"op": "layer.deformation.rest.apply", "layerId": "strip", "frame": 0}],
            "SKIN_REST_REQUIRES_JOINT_KEYS", opIndex=0)
        self.assertEqual(e.get("layerId"), "strip")

    def test_dry_run_of_skin_ops_changes_nothing(self):
        s = strip_scene()
        self.build(s)
        before = self.rigd.snapshot(self.shot)
        frame_before = self.frame(10).body
        ops = [{"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 1,
                "influences": [{"jointId": "fixed", "weight": 1}]},
               {"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 5},
               {"op": "layer.skin", "layerId": "strip", "skin": None}]
        r = self.rigd.post(f"/v1/shots/{self.shot}/edits?dryRun=true", {"ops": ops})
        self.assertEqual(r.status, 200, r)
        self.assertTrue(r.json.get("dryRun"), r.json)
        self.assertEqual(self.rigd.snapshot(self.shot), before)
        self.assertEqual(self.frame(10).body, frame_before)
        # and a dry run reports the same errors a real batch would
        r = self.rigd.post(f"/v1/shots/{self.shot}/edits?dryRun=true",
                           {"ops": [{"op": "layer.delete", "layerId": "jRaise"}]})
        self.assertProblem(r, 422, "SKIN_JOINT_LAYERS")

    def test_failed_skin_batch_changes_nothing(self):
        s = strip_scene()
        self.build(s)
        before = self.rigd.snapshot(self.shot)
        frame_before = self.frame(10).body
        s2 = strip_scene()
        s2.skins["strip"]["joints"][0] = ("fixed", translate(1, 1))
        ops = [{"op": "layer.create", "layerId": "extra", "name": "x", "kind": "group"},
               {"op": "layer.pose", "layerId": "jRaise", "frame": 3, "transform": {"position": [9, 9]}},
               {"op": "layer.key.put", "layerId": "jFixed", "channel": "rotation",
                "keys": [{"frame": 0, "value": 10}]},
               {"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 1,
                "influences": [{"jointId": "fixed", "weight": 1}]}] + s2.skin_ops() + [
               {"op": "layer.skin.bind.capture", "layerId": "strip", "frame": 5},
               {"op": "layer.delete", "layerId": "jRaise"}]         # final validation fails
        self.expect_edit_error(ops, "SKIN_JOINT_LAYERS", jointId="raise")
        # an op-level failure at the end rolls back the same way
        ops[-1] = {"op": "layer.skin.weights.put", "layerId": "strip", "vertexIndex": 6,
                   "influences": [{"jointId": "fixed", "weight": 1}]}
        self.expect_edit_error(ops, "SKIN_WEIGHT_VERTEX", opIndex=len(ops) - 1)
        self.assertEqual(self.rigd.snapshot(self.shot), before)
        self.assertEqual(self.frame(10).body, frame_before)


class DefinitionCodes(SkinCase):
    """Every definition rule of SPEC §3 through layer.skin, with pointer and indices."""

    def setUp(self):
        super().setUp()
        self.apply_ops([{"op": "layer.create", "layerId": l, "name": l, "kind": "group"}
                        for l in ("jA", "jB")] +
                       [{"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"}])
        self.before = self.rigd.snapshot(self.shot)

    def tearDown(self):
        try:
            self.assertEqual(self.rigd.snapshot(self.shot), self.before)
        finally:
            super().tearDown()

    def skin_error(self, skin, code, **fields):
        return self.expect_edit_error([{"op": "layer.skin", "layerId": "m", "skin": skin}], code,
                                      opIndex=0, **fields)[1]

    def test_mesh_geometry_two_vertices(self):
        skin = tri_skin(source=[{"x": 0, "y": 0}, {"x": 1, "y": 0}],
                        triangles=[[0, 1, 0]],
                        weights=[[{"jointId": "a", "weight": 1}]] * 2)
        e = self.skin_error(skin, "MESH_GEOMETRY")
        self.assertEqual(e["pointer"], "/ops/0/skin/source")

    def test_mesh_topology_index_out_of_range(self):
        skin = tri_skin(source=[{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 0, "y": 100},
                                {"x": 100, "y": 100}],
                        triangles=[[0, 1, 2], [1, 3, 4]],
                        weights=[[{"jointId": "a", "weight": 1}]] * 4)
        e = self.skin_error(skin, "MESH_TOPOLOGY", triangleIndex=1)
        self.assertEqual(e["pointer"], "/ops/0/skin/triangles/1")

    def test_mesh_topology_repeated_index(self):
        skin = tri_skin(source=[{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 0, "y": 100},
                                {"x": 100, "y": 100}],
                        triangles=[[0, 1, 2], [1, 3, 1]],
                        weights=[[{"jointId": "a", "weight": 1}]] * 4)
        e = self.skin_error(skin, "MESH_TOPOLOGY", triangleIndex=1)
        self.assertEqual(e["pointer"], "/ops/0/skin/triangles/1")

    def test_mesh_degenerate(self):
        skin = tri_skin(source=[{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 0, "y": 100},
                                {"x": 200, "y": 0}],
                        triangles=[[0, 1, 2], [0, 1, 3]],
                        weights=[[{"jointId": "a", "weight": 1}]] * 4)
        e = self.skin_error(skin, "MESH_DEGENERATE", triangleIndex=1)
        self.assertEqual(e["pointer"], "/ops/0/skin/triangles/1")

    def test_skin_joints_duplicate_ids(self):
        skin = tri_skin(joints=[{"id": "a", "bind": [1, 0, 0, 1, 0, 0]},
                                {"id": "a", "bind": [1, 0, 0, 1, 0, 0]}])
        e = self.skin_error(skin, "SKIN_JOINTS", jointIndex=1)
        self.assertEqual(e["pointer"], "/ops/0/skin/joints/1/id")
        self.assertEqual(e.get("jointId"), "a")

    def test_skin_joints_257(self):
        joints = [{"id": f"j{i}", "bind": [1, 0, 0, 1, 0, 0]} for i in range(257)]
        skin = tri_skin(joints=joints,
                        jointLayers=[{"jointId": f"j{i}", "layerId": "jA"} for i in range(257)],
                        weights=[[{"jointId": "j0", "weight": 1}]] * 3)
        e = self.skin_error(skin, "SKIN_JOINTS")
        self.assertEqual(e["pointer"], "/ops/0/skin/joints")

    def test_skin_joints_256_is_accepted(self):
        joints = [{"id": f"j{i}", "bind": [1, 0, 0, 1, 0, 0]} for i in range(256)]
        skin = tri_skin(joints=joints,
                        jointLayers=[{"jointId": f"j{i}", "layerId": "jA"} for i in range(256)],
                        weights=[[{"jointId": "j0", "weight": 1}]] * 3)
        self.apply_ops([{"op": "layer.skin", "layerId": "m", "skin": skin}])
        self.assertEqual(self.layer("m")["binding"]["jointCount"], 256)
        self.apply_ops([{"op": "layer.skin", "layerId": "m", "skin": None}])  # restore for tearDown
        self.before = self.rigd.snapshot(self.shot)

    def test_skin_joints_bad_id(self):
        skin = tri_skin(joints=[{"id": "bad id!", "bind": [1, 0, 0, 1, 0, 0]}],
                        weights=[[{"jointId": "bad id!", "weight": 1}]] * 3,
                        jointLayers=[{"jointId": "bad id!", "layerId": "jA"}])
        e = self.skin_error(skin, "SKIN_JOINTS", jointIndex=0)
        self.assertEqual(e["pointer"], "/ops/0/skin/joints/0/id")

    def test_skin_bind_singular(self):
        skin = tri_skin(joints=[{"id": "a", "bind": [1, 0, 0, 1, 0, 0]},
                                {"id": "b", "bind": [1, 2, 2, 4, 5, 6]}],
                        jointLayers=[{"jointId": "a", "layerId": "jA"},
                                     {"jointId": "b", "layerId": "jB"}])
        e = self.skin_error(skin, "SKIN_BIND", jointId="b", jointIndex=1)
        self.assertEqual(e["pointer"], "/ops/0/skin/joints/1/bind")
        # just below the relative determinant threshold is singular too
        skin["joints"][1]["bind"] = [1e-7, 0, 0, 1e-7, 0, 0]
        self.skin_error(skin, "SKIN_BIND", jointId="b")

    def _two_joint_skin(self, weights):
        return tri_skin(joints=[{"id": "a", "bind": [1, 0, 0, 1, 0, 0]},
                                {"id": "b", "bind": [1, 0, 0, 1, 0, 0]}],
                        jointLayers=[{"jointId": "a", "layerId": "jA"},
                                     {"jointId": "b", "layerId": "jB"}],
                        weights=weights)

    def test_skin_weights_sum_tolerance(self):
        one = [{"jointId": "a", "weight": 1}]
        for off in (2 ** -45, -2 ** -45):                    # ±128 ε: rejected
            w = [one, [{"jointId": "a", "weight": 0.5}, {"jointId": "b", "weight": 0.5 + off}], one]
            e = self.skin_error(self._two_joint_skin(w), "SKIN_WEIGHTS", vertexIndex=1)
            self.assertEqual(e["pointer"], "/ops/0/skin/weights/1")
        for off in (2 ** -47, -2 ** -47):                    # ±32 ε: accepted
            w = [one, [{"jointId": "a", "weight": 0.5}, {"jointId": "b", "weight": 0.5 + off}], one]
            _, r = self.post_edit([{"op": "layer.skin", "layerId": "m",
                                    "skin": self._two_joint_skin(w)}])
            self.assertEqual(r.status, 201, r)
        self.apply_ops([{"op": "layer.skin", "layerId": "m", "skin": None}])
        self.before = self.rigd.snapshot(self.shot)

    def test_skin_weights_nine_influences(self):
        layers = [{"op": "layer.create", "layerId": f"k{i}", "name": "k", "kind": "group"}
                  for i in range(9)]
        self.apply_ops(layers)
        self.before = self.rigd.snapshot(self.shot)
        joints = [{"id": f"k{i}", "bind": [1, 0, 0, 1, 0, 0]} for i in range(9)]
        # nine positive weights summing to exactly 1: only the count is wrong
        nine = ([{"jointId": f"k{i}", "weight": 0.875 / 8} for i in range(8)] +
                [{"jointId": "k8", "weight": 0.125}])
        skin = tri_skin(joints=joints,
                        jointLayers=[{"jointId": f"k{i}", "layerId": f"k{i}"} for i in range(9)],
                        weights=[[{"jointId": "k0", "weight": 1}], nine,
                                 [{"jointId": "k0", "weight": 1}]])
        e = self.skin_error(skin, "SKIN_WEIGHTS", vertexIndex=1)
        self.assertEqual(e["pointer"], "/ops/0/skin/weights/1")

    def test_skin_weights_eight_influences_accepted(self):
        self.apply_ops([{"op": "layer.create", "layerId": f"k{i}", "name": "k", "kind": "group"}
                        for i in range(8)])
        joints = [{"id": f"k{i}", "bind": [1, 0, 0, 1, i, 0]} for i in range(8)]
        eight = [{"jointId": f"k{i}", "weight": 0.125} for i in range(8)]
        skin = tri_skin(joints=joints,
                        jointLayers=[{"jointId": f"k{i}", "layerId": f"k{i}"} for i in range(8)],
                        weights=[eight, [{"jointId": "k0", "weight": 1}], eight[::-1]])
        self.apply_ops([{"op": "layer.skin", "layerId": "m", "skin": skin}])
        self.assertEqual(self.layer("m")["binding"]["jointCount"], 8)
        self.apply_ops([{"op": "layer.skin", "layerId": "m", "skin": None}])
        self.before = self.rigd.snapshot(self.shot)

    def test_skin_joint_layers_layer_of_another_shot(self):
        other = self.rigd.make_shot("p", "s-other")
        r = self.rigd.post(f"/v1/shots/{other}/edits", {"ops": [
            {"op": "layer.create", "layerId": "elsewhere", "name": "e", "kind": "group"}]})
        self.assertEqual(r.status, 201, r)
        self.skin_error(tri_skin(joint_layer="elsewhere"), "SKIN_JOINT_LAYERS", jointId="a")

    def test_skin_weights_zero_weight(self):
        one = [{"jointId": "a", "weight": 1}]
        w = [one, one, [{"jointId": "a", "weight": 1}, {"jointId": "b", "weight": 0}]]
        e = self.skin_error(self._two_joint_skin(w), "SKIN_WEIGHTS", vertexIndex=2,
                            influenceIndex=1)
        self.assertEqual(e["pointer"], "/ops/0/skin/weights/2/1")

    def test_skin_weights_unknown_joint(self):
        one = [{"jointId": "a", "weight": 1}]
        w = [one, [{"jointId": "zz", "weight": 1}], one]
        e = self.skin_error(self._two_joint_skin(w), "SKIN_WEIGHTS", vertexIndex=1, jointId="zz")
        self.assertEqual(e["pointer"], "/ops/0/skin/weights/1/0")

    def test_skin_weights_repeated_joint(self):
        one = [{"jointId": "a", "weight": 1}]
        w = [one, [{"jointId": "b", "weight": 0.5}, {"jointId": "b", "weight": 0.5}], one]
        e = self.skin_error(self._two_joint_skin(w), "SKIN_WEIGHTS", vertexIndex=1, jointId="b")
        self.assertEqual(e["pointer"], "/ops/0/skin/weights/1/1")

    def test_skin_weights_list_count(self):
        one = [{"jointId": "a", "weight": 1}]
        e = self.skin_error(tri_skin(weights=[one, one]), "SKIN_WEIGHTS")
        self.assertEqual(e["pointer"], "/ops/0/skin/weights")
        e = self.skin_error(tri_skin(weights=[one] * 4), "SKIN_WEIGHTS")
        self.assertEqual(e["pointer"], "/ops/0/skin/weights")

    def test_skin_joint_layers_unmapped(self):
        skin = self._two_joint_skin([[{"jointId": "a", "weight": 1}]] * 3)
        skin["jointLayers"] = skin["jointLayers"][:1]
        e = self.skin_error(skin, "SKIN_JOINT_LAYERS", jointId="b")
        self.assertIn(e["pointer"], ("/ops/0/skin/jointLayers", "/ops/0/skin/joints/1"))

    def test_skin_joint_layers_mapped_twice(self):
        skin = tri_skin(jointLayers=[{"jointId": "a", "layerId": "jA"},
                                     {"jointId": "a", "layerId": "jB"}])
        e = self.skin_error(skin, "SKIN_JOINT_LAYERS", jointId="a")
        self.assertEqual(e["pointer"], "/ops/0/skin/jointLayers/1/jointId")

    def test_skin_joint_layers_unknown_joint_in_mapping(self):
        skin = tri_skin(jointLayers=[{"jointId": "a", "layerId": "jA"},
                                     {"jointId": "nope", "layerId": "jB"}])
        e = self.skin_error(skin, "SKIN_JOINT_LAYERS", jointId="nope")
        self.assertEqual(e["pointer"], "/ops/0/skin/jointLayers/1/jointId")

    def test_skin_joint_layers_unknown_layer(self):
        skin = self._two_joint_skin([[{"jointId": "a", "weight": 1}]] * 3)
        skin["jointLayers"][1]["layerId"] = "ghost"
        e = self.skin_error(skin, "SKIN_JOINT_LAYERS", jointId="b")
        self.assertEqual(e["pointer"], "/ops/0/skin/jointLayers/1/layerId")

    def test_layer_skin_on_group_or_missing_layer(self):
        self.expect_edit_error([{"op": "layer.skin", "layerId": "jA", "skin": tri_skin()}],
                               "LAYER_KIND", opIndex=0)
        self.expect_edit_error([{"op": "layer.skin", "layerId": "nope", "skin": tri_skin()}],
                               "LAYER_NOT_FOUND", opIndex=0)

    def test_error_details_quote_only_members(self):
        """SPEC §7: every value quoted in detail is also a member of the error object."""
        bad = []
        cases = [
            [{"op": "layer.skin", "layerId": "m",
              "skin": tri_skin(jointLayers=[{"jointId": "a", "layerId": "ghost"}])}],
            [{"op": "layer.skin", "layerId": "m", "skin": tri_skin(joint_layer="m")}],
            [{"op": "layer.skin", "layerId": "m",
              "skin": tri_skin(weights=[[{"jointId": "zz", "weight": 1}]] * 3)}],
            [{"op": "layer.skin", "layerId": "m",
              "skin": tri_skin(joints=[{"id": "a", "bind": [0, 0, 0, 0, 0, 0]}])}],
            [{"op": "layer.skin", "layerId": "m", "skin": tri_skin()},
             {"op": "layer.delete", "layerId": "jA"}],
            [{"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 0,
              "influences": [{"jointId": "a", "weight": 1}]}],
        ]
        for ops in cases:
            _, r = self.post_edit(ops)
            self.assertEqual(r.status, 422, r)
            for e in r.json["errors"]:
                members = {str(v) for v in e.values()}
                for q in QUOTED.findall(e["detail"]):
                    if q not in members:
                        bad.append((e["code"], e["detail"], q, e))
        self.assertEqual(bad, [], "quoted values missing from the error object:\n" +
                         "\n".join(map(str, bad)))


class EvaluateCodes(SkinCase):
    """SKIN_POSE and the result checks through the pure evaluator."""

    def body(self, poses):
        b = {"source": [{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 0, "y": 100}],
             "triangles": [[0, 1, 2]],
             "joints": [{"id": "a", "bind": [1, 0, 0, 1, 0, 0]},
                        {"id": "b", "bind": [1, 0, 0, 1, 0, 0]}],
             "weights": [[{"jointId": "a", "weight": 1}], [{"jointId": "b", "weight": 1}],
                         [{"jointId": "a", "weight": 0.5}, {"jointId": "b", "weight": 0.5}]],
             "poses": [{"jointId": j, "matrix": m} for j, m in poses]}
        return b

    def evaluate(self, poses, code, **fields):
        body = self.body(poses)
        r = self.rigd.post("/v1/skin/evaluate", body)
        problem = self.assertProblem(r, 422, code)
        self.assertPointersResolve(body, {"errors": [e for e in problem["errors"] if e.get("pointer")]})
        return self.find_error(problem, code, **fields)

    I = [1, 0, 0, 1, 0, 0]

    def test_pose_missing(self):
        e = self.evaluate([("a", self.I)], "SKIN_POSE", jointId="b")
        self.assertIn(e.get("pointer"), ("/poses", None))

    def test_pose_repeated(self):
        e = self.evaluate([("a", self.I), ("b", self.I), ("a", self.I)], "SKIN_POSE", jointId="a")
        self.assertEqual(e["pointer"], "/poses/2")

    def test_pose_unknown(self):
        e = self.evaluate([("a", self.I), ("b", self.I), ("zz", self.I)], "SKIN_POSE", jointId="zz")
        self.assertEqual(e["pointer"], "/poses/2")

    def test_result_winding_collapsed_and_non_finite(self):
        mirror = [-1, 0, 0, 1, 0, 0]
        self.evaluate([("a", mirror), ("b", mirror)], "MESH_WINDING", triangleIndex=0)
        squash = [1, 0, 0, 0, 0, 0]
        self.evaluate([("a", squash), ("b", squash)], "MESH_COLLAPSED", triangleIndex=0)
        huge = [1e308, 0, 0, 1e308, 0, 0]
        self.evaluate([("a", self.I), ("b", huge)], "MESH_GEOMETRY", vertexIndex=1)

    def test_definition_codes_on_the_pure_route(self):
        body = self.body([("a", self.I), ("b", self.I)])
        body["joints"][1]["bind"] = [0, 0, 0, 0, 1, 1]
        r = self.rigd.post("/v1/skin/evaluate", body)
        p = self.assertProblem(r, 422, "SKIN_BIND")
        e = self.find_error(p, "SKIN_BIND", jointId="b")
        self.assertEqual(e["pointer"], "/joints/1/bind")
        body = self.body([("a", self.I), ("b", self.I)])
        body["joints"][1]["id"] = "a"
        r = self.rigd.post("/v1/skin/evaluate", body)
        p = self.assertProblem(r, 422, "SKIN_JOINTS")
        self.assertEqual(self.find_error(p, "SKIN_JOINTS", jointIndex=1)["pointer"], "/joints/1/id")


class FrameCodes(SkinCase):
    """Evaluation errors on the frame route: 422 naming layer, triangle / joint and frame."""

    def mirror_scene(self):
        s = Scene()
        s.layer("rig", rotation=30)
        s.layer("jA", parent="rig", position=(10, 0))
        s.keys("jA", "scale.x", [(0, 1), (10, -1)])
        s.layer("m", "mesh", parent="rig", position=(3, 3))
        s.skin("m", [(0, 0), (100, 0), (0, 100), (100, 100)], [(0, 1, 3), (0, 3, 2)],
               [("a", translate(10, 0))], [[("a", 1)]] * 4, {"a": "jA"})
        return s

    def expect_frame_error(self, s, f, code, **fields):
        r = self.frame(f, layers="m")
        problem = self.assertProblem(r, 422, code)
        e = self.find_error(problem, code, **fields)
        self.assertEqual(e.get("layerId"), "m", e)
        self.assertEqual(e.get("frame"), float(f), e)
        with self.assertRaises(RefError) as ctx:
            s.evaluate("m", f)
        self.assertEqual(ctx.exception.code, code)
        return e

    def test_mesh_winding_at_frame(self):
        s = self.mirror_scene()
        self.build(s)
        self.assertVerts(self.verts("m", 2.5), s.evaluate("m", 2.5))
        self.expect_frame_error(s, 10, "MESH_WINDING", triangleIndex=0)
        self.expect_frame_error(s, 10, "MESH_WINDING", triangleIndex=1)
        self.expect_frame_error(s, 7.5, "MESH_WINDING", triangleIndex=0)
        # without ?layers= the whole-shot frame fails the same way
        r = self.frame(10)
        self.assertProblem(r, 422, "MESH_WINDING")

    def test_mesh_collapsed_at_frame(self):
        s = self.mirror_scene()
        self.build(s)
        self.expect_frame_error(s, 5, "MESH_COLLAPSED", triangleIndex=0)
        self.expect_frame_error(s, 5, "MESH_COLLAPSED", triangleIndex=1)

    def test_skin_layer_transform_mesh_side_zero_scale(self):
        s = self.mirror_scene()
        s.layers["jA"]["keys"] = {}
        s.layers["m"]["time_offset"] = 2.0
        s.keys("m", "scale.y", [(0, 1), (10, 0)])
        self.build(s)
        self.assertVerts(self.verts("m", 11), s.evaluate("m", 11))  # local 9: scale 0.1
        e = self.expect_frame_error(s, 12, "SKIN_LAYER_TRANSFORM", jointId="a")
        self.assertEqual(e.get("frame"), 12.0)
        self.expect_frame_error(s, 30.5, "SKIN_LAYER_TRANSFORM", jointId="a")


if __name__ == "__main__":
    main()
