"""GET /v1/shots/{id}/frames/{frame}: a multi-level hierarchy evaluated at negative and
fractional frames against an independent Python computation (test_skin_refmath), shared
ancestors cancelling, space=shot, ?layers= selection, f32, ETags and determinism across
requests and across server processes on one database file.
"""
import math

from rigd_harness import Rigd, RigdTestCase, main
from test_skin_refmath import (IDENTITY, RefError, Scene, ShotHelpers, apply, decode_f32, f32,
                               fmt_frame)

FRAMES = [-12.5, -7.25, -1, 0, 0.5, 1, 3.25, 7.9, 10.5, 12, 25]


def hierarchy(outside=True):
    """S (shared ancestor: rotation keys, pivot, non-uniform scale)
         arm (timeOffset 2.5; rotation keys linear / hold / linear)
           hand (position.x hold then linear; scale.x linear)
         body (timeOffset -1.5; position.y keys)
           mesh (skinned; own keys, pivot, scale; timeOffset -3)
       outside (root level; C = shot root for its joint)"""
    s = Scene()
    s.layer("S", position=(40, -20), rotation=25, pivot=(10, 5), scale=(1.3, 0.8))
    s.keys("S", "rotation", [(0, 25), (20, 65)])
    s.layer("arm", parent="S", position=(60, 10), pivot=(3, -2), time_offset=2.5)
    s.keys("arm", "rotation", [(-10, -30, "linear"), (0, 0, "hold"), (8, 20, "linear"), (16, 50)])
    s.layer("hand", parent="arm", position=(30, 0), rotation=15)
    s.keys("hand", "position.x", [(-5, 25, "hold"), (5, 40)])
    s.keys("hand", "scale.x", [(0, 1), (12, 1.4)])
    s.layer("body", parent="S", rotation=-20, time_offset=-1.5)
    s.keys("body", "position.y", [(-8, -10), (8, 10)])
    s.layer("mesh", "mesh", parent="body", position=(5, 5), pivot=(20, 0), scale=(1.1, 0.95),
            time_offset=-3)
    s.keys("mesh", "position.x", [(0, 5, "hold"), (10, 15)])
    if outside:
        s.layer("outside", position=(100, 80))
        s.keys("outside", "position.y", [(-5, 70), (15, 95)])
    cols, rows = [0, 30, 60, 90], [0, 20, 40]
    src = [(x, y) for y in rows for x in cols]
    tris = []
    for r in range(2):
        for c in range(3):
            i = r * 4 + c
            tris += [(i, i + 1, i + 5), (i, i + 5, i + 4)]
    joints = ["b", "a", "h", "s"] + (["o"] if outside else [])
    weights = []
    for x, _ in src:
        c = cols.index(x)
        weights.append([[("b", 0.7), ("s", 0.3)],
                        [("b", 0.4), ("a", 0.6)],
                        [("a", 0.5), ("h", 0.25), ("o" if outside else "s", 0.25)],
                        [("h", 1.0)]][c])
    jl = {"b": "body", "a": "arm", "h": "hand", "s": "S"}
    if outside:
        jl["o"] = "outside"
    s.skin("mesh", src, tris, [(j, IDENTITY) for j in joints], weights, jl)
    # explicit binds: the reference poses at shot frame 1 (so frame 1 is the rest pose)
    poses = s.joint_poses("mesh", 1.0)
    s.skins["mesh"]["joints"] = [(j, poses[j]) for j in joints]
    return s


def add_second_mesh(s):
    s.layer("mesh2", "mesh", parent="S", position=(-30, 10), rotation=5)
    s.skin("mesh2", [(0, 0), (10, 0), (0, 10)], [(0, 1, 2)],
           [("x", (1.0, 0.0, 0.0, 1.0, 2.0, 3.0))], [[("x", 1)]] * 3, {"x": "hand"})
    s.layer("bare", "mesh", parent="S")
    return s


class FrameCase(ShotHelpers, RigdTestCase):
    def setUp(self):
        super().setUp()
        self.shot = self.rigd.make_shot("p", "s", frameStart=0, frameEnd=24)


class Hierarchy(FrameCase):
    def test_multi_level_hierarchy_matches_independent_computation(self):
        s = hierarchy()
        self.apply_ops(s.all_ops())
        for f in FRAMES:
            got = self.verts("mesh", f)
            self.assertVerts(got, s.evaluate("mesh", f), msg=f"frame {f}")
        self.assertVerts(self.verts("mesh", 1), s.skins["mesh"]["source"], msg="rest frame")
        # the JSON echoes the frame and the space
        body = self.frame(-7.25, layers="mesh").json
        self.assertEqual(body["frame"], -7.25)
        self.assertEqual(body["space"], "local")
        self.assertEqual(body["shotId"], self.shot)
        self.assertEqual(body["shotVersion"], 1)

    def test_shared_ancestor_cancels_even_when_singular(self):
        s = hierarchy(outside=False)
        self.apply_ops(s.all_ops())
        frames = [-7.25, 0.5, 3.25, 12]
        before = {f: self.frame(f, layers="mesh").json["layers"] for f in frames}
        # S is the lowest common ancestor of the mesh and every joint: make it singular
        self.apply_ops([{"op": "layer.pose", "layerId": "S", "transform": {"scale": [0, 0]}},
                        {"op": "layer.key.put", "layerId": "S", "channel": "rotation",
                         "keys": [{"frame": 3, "value": 170}]}])
        s.set_static("S", scale_x=0, scale_y=0)
        s.keys("S", "rotation", [(3, 170)])
        for f in frames:
            r = self.frame(f, layers="mesh")
            self.assertEqual(r.status, 200, r)
            after = r.json["layers"]
            for x, y in after[0]["vertices"]:
                self.assertTrue(math.isfinite(x) and math.isfinite(y))
            self.assertEqual(after, before[f], f"frame {f}: shared ancestor must cancel")
            self.assertVerts([tuple(v) for v in after[0]["vertices"]], s.evaluate("mesh", f))

    def test_singular_ancestor_not_shared_with_a_joint_is_skin_layer_transform(self):
        s = hierarchy(outside=True)      # joint 'o' lives outside S: C = shot root
        self.apply_ops(s.all_ops())
        self.apply_ops([{"op": "layer.pose", "layerId": "S", "transform": {"scale": [0, 1]}}])
        r = self.frame(3.25, layers="mesh")
        p = self.assertProblem(r, 422, "SKIN_LAYER_TRANSFORM")
        e = p["errors"][0]
        self.assertEqual(e.get("jointId"), "o", e)
        self.assertEqual(e.get("layerId"), "mesh", e)
        self.assertEqual(e.get("frame"), 3.25, e)

    def test_reparenting_the_mesh_changes_the_common_ancestor(self):
        s = hierarchy(outside=True)
        self.apply_ops(s.all_ops())
        # the mesh moves under 'hand': C becomes hand for joint h (J is an ancestor of M),
        # arm for joint a, S for b and s, the root for o
        self.apply_ops([{"op": "layer.parent", "layerId": "mesh", "parentId": "hand"}])
        s.layers["mesh"]["parent"] = "hand"
        for f in (-7.25, 0.5, 3.25, 12):
            self.assertVerts(self.verts("mesh", f), s.evaluate("mesh", f), msg=f"frame {f}")
            world = s.world("mesh", f)
            self.assertVerts(self.verts("mesh", f, space="shot"),
                             [apply(world, x, y) for x, y in s.evaluate("mesh", f)],
                             msg=f"shot frame {f}")

    def test_space_shot_is_world_transform_of_local_results(self):
        s = hierarchy()
        self.apply_ops(s.all_ops())
        for f in (-7.25, 0, 3.25, 12):
            r = self.frame(f, layers="mesh", space="shot")
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.json["space"], "shot")
            got = [tuple(v) for v in r.json["layers"][0]["vertices"]]
            world = s.world("mesh", f)
            want = [apply(world, x, y) for x, y in s.evaluate("mesh", f)]
            self.assertVerts(got, want, msg=f"frame {f}")
            self.assertEqual(self.frame(f, layers="mesh", space="local").body,
                             self.frame(f, layers="mesh").body)
        r = self.frame(0, layers="mesh", space="world")
        self.assertProblem(r, 400, "INVALID_QUERY")


class Selection(FrameCase):
    def setUp(self):
        super().setUp()
        self.s = add_second_mesh(hierarchy())
        self.apply_ops(self.s.all_ops())

    def test_layers_selection(self):
        s = self.s
        r = self.frame(3.25)
        self.assertEqual(r.status, 200, r)
        layers = {l["layerId"]: [tuple(v) for v in l["vertices"]] for l in r.json["layers"]}
        self.assertEqual(set(layers), {"mesh", "mesh2"})     # every skinned mesh, not 'bare'
        for m, v in layers.items():
            self.assertVerts(v, s.evaluate(m, 3.25), msg=m)
        r = self.frame(3.25, layers="mesh2")
        self.assertEqual([l["layerId"] for l in r.json["layers"]], ["mesh2"])
        r = self.frame(3.25, layers="mesh2,mesh")
        self.assertEqual([l["layerId"] for l in r.json["layers"]], ["mesh2", "mesh"])
        self.assertVerts([tuple(v) for v in r.json["layers"][1]["vertices"]],
                         s.evaluate("mesh", 3.25))

    def test_unknown_and_non_skinned_layers(self):
        p = self.assertProblem(self.frame(0, layers="ghost"), 404, "NOT_FOUND")
        self.assertEqual(p.get("layerId"), "ghost")
        p = self.assertProblem(self.frame(0, layers="mesh,ghost"), 404, "NOT_FOUND")
        for lid in ("arm", "bare"):
            p = self.assertProblem(self.frame(0, layers=lid), 422, "MESH_BINDING_KIND")
            self.assertEqual(p.get("layerId"), lid, p)
        self.assertProblem(self.frame(0, layers="mesh,"), 400, "INVALID_QUERY")
        self.assertProblem(self.frame(0, shot="nope"), 404, "NOT_FOUND")
        for bad in ("abc", "nan", "inf", "1e999", "--1"):
            self.assertProblem(self.frame(bad), 400, "INVALID_QUERY")

    def test_f32_single_frame(self):
        r = self.frame(-7.25, layers="mesh", fmt="f32")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.header("Content-Type"), "application/octet-stream")
        version, nv, nf, frames = decode_f32(r.body)
        self.assertEqual((version, nv, nf), (1, 12, 1))
        self.assertEqual(len(r.body), 16 + 8 + 8 * 12)
        self.assertEqual(frames[0][0], -7.25)
        ref = self.s.evaluate("mesh", -7.25)
        js = self.verts("mesh", -7.25)
        for (x, y), (jx, jy), (rx, ry) in zip(frames[0][1], js, ref):
            self.assertEqual((x, y), (f32(jx), f32(jy)))      # the float32 of the JSON double
            self.assertAlmostEqual(x, rx, delta=1e-4 * max(1, abs(rx)))
            self.assertAlmostEqual(y, ry, delta=1e-4 * max(1, abs(ry)))
        # f32 needs exactly one layer
        self.assertProblem(self.frame(0, fmt="f32"), 400, "INVALID_QUERY")
        self.assertProblem(self.frame(0, layers="mesh,mesh2", fmt="f32"), 400, "INVALID_QUERY")
        self.assertProblem(self.frame(0, layers="mesh", fmt="obj"), 400, "INVALID_QUERY")

    def test_etag_and_if_none_match(self):
        r = self.frame(3.25, layers="mesh")
        tag = r.header("ETag")
        self.assertTrue(tag and tag.startswith('"') and tag.endswith('"'), tag)
        r2 = self.frame(3.25, layers="mesh", headers={"If-None-Match": tag})
        self.assertEqual(r2.status, 304, r2)
        self.assertEqual(r2.body, b"")
        self.assertEqual(r2.header("ETag"), tag)
        # a different query is a different entity
        for other in (self.frame(3.5, layers="mesh"), self.frame(3.25, layers="mesh", space="shot"),
                      self.frame(3.25, layers="mesh", fmt="f32"), self.frame(3.25)):
            self.assertEqual(other.status, 200, other)
            self.assertNotEqual(other.header("ETag"), tag)
            r3 = self.frame(3.25, layers="mesh", headers={"If-None-Match": other.header("ETag")})
            self.assertEqual(r3.status, 200)
        # a new shot version invalidates the tag
        self.apply_ops([{"op": "layer.pose", "layerId": "hand", "transform": {"rotation": 16}}])
        r4 = self.frame(3.25, layers="mesh", headers={"If-None-Match": tag})
        self.assertEqual(r4.status, 200, r4)
        self.assertNotEqual(r4.header("ETag"), tag)
        self.assertEqual(r4.json["shotVersion"], 2)
        # f32 answers If-None-Match too
        t32 = self.frame(1, layers="mesh", fmt="f32").header("ETag")
        self.assertEqual(self.frame(1, layers="mesh", fmt="f32",
                                    headers={"If-None-Match": t32}).status, 304)


    def test_if_none_match_lists_and_star(self):
        """RFC 9110 §13.1.2: If-None-Match is a list of entity tags (or *)."""
        tag = self.frame(3.25, layers="mesh").header("ETag")
        self.assertEqual(self.frame(3.25, layers="mesh", headers={"If-None-Match": "*"}).status, 304)
        r = self.frame(3.25, layers="mesh", headers={"If-None-Match": f'"0-nope", {tag}'})
        self.assertEqual(r.status, 304, r)


def kernel_scene():
    """Meshes 'k1'..'k8' whose every vertex has exactly k influences, and 'mixed' whose counts
    cycle 1..8; 38 vertices each (not a multiple of any unroll width); 8 animated joints."""
    s = Scene()
    s.layer("kr", position=(7, -3), rotation=4)
    for i in range(8):
        s.layer(f"j{i}", parent="kr", position=(i * 25, 0), pivot=(i * 25, 10))
        s.keys(f"j{i}", "rotation", [(0, 0), (10, 3 + i)])
        s.keys(f"j{i}", "position.y", [(0, 0), (10, i - 3.5)])
        s.keys(f"j{i}", "scale.x", [(0, 1), (10, 1 + i / 40)])
    src = [(10.0 * c, 20.0 * r) for c in range(19) for r in range(2)]
    tris = []
    for c in range(18):
        a, b = 2 * c, 2 * c + 2
        tris += [(a, b, b + 1), (a, b + 1, a + 1)]

    def influences(v, k):
        raw = [(f"j{(v // 5 + m) % 8}", m + 1 + v % 3) for m in range(k)]
        total = sum(w for _, w in raw)
        return [(j, w / total) for j, w in raw]
    joints = [(f"j{i}", IDENTITY) for i in range(8)]
    jl = {f"j{i}": f"j{i}" for i in range(8)}
    for k in range(1, 9):
        s.layer(f"k{k}", "mesh", parent="kr", position=(0, 5 * k))
        s.skin(f"k{k}", src, tris, joints, [influences(v, k) for v in range(len(src))], jl)
    s.layer("mixed", "mesh", parent="kr")
    s.skin("mixed", src, tris, joints, [influences(v, 1 + v % 8) for v in range(len(src))], jl)
    return s


class Kernels(FrameCase):
    def test_every_influence_count_and_mixed_counts(self):
        s = kernel_scene()
        meshes = list(s.skins)
        self.apply_ops(s.all_ops() + [{"op": "layer.skin.bind.capture", "layerId": m, "frame": 0}
                                      for m in meshes])
        for m in meshes:
            s.capture(m, 0)
        for f in (-2.5, 0, 3.75, 9, 14):
            r = self.frame(f)
            self.assertEqual(r.status, 200, r)
            got = {l["layerId"]: [tuple(v) for v in l["vertices"]] for l in r.json["layers"]}
            self.assertEqual(set(got), set(meshes))
            for m in meshes:
                self.assertVerts(got[m], s.evaluate(m, f), msg=f"{m} frame {f}")

    def test_counts_changed_by_weights_put(self):
        s = kernel_scene()
        self.apply_ops(s.all_ops() + [{"op": "layer.skin.bind.capture", "layerId": m, "frame": 0}
                                      for m in ("k3", "k4", "mixed")])
        for m in ("k3", "k4", "mixed"):
            s.capture(m, 0)
        # make k4 non-uniform and mixed uniform at 2 (vertex 0's list shrinks / grows)
        ops = [{"op": "layer.skin.weights.put", "layerId": "k4", "vertexIndex": 17,
                "influences": [{"jointId": "j2", "weight": 1}]},
               {"op": "layer.skin.weights.put", "layerId": "k4", "vertexIndex": 0,
                "influences": [{"jointId": f"j{i}", "weight": 0.125} for i in range(8)]}]
        s.skins["k4"]["weights"][17] = [("j2", 1.0)]
        s.skins["k4"]["weights"][0] = [(f"j{i}", 0.125) for i in range(8)]
        for v in range(38):
            infl = [(f"j{v % 8}", 0.25), (f"j{(v + 3) % 8}", 0.75)]
            ops.append({"op": "layer.skin.weights.put", "layerId": "mixed", "vertexIndex": v,
                        "influences": [{"jointId": j, "weight": w} for j, w in infl]})
            s.skins["mixed"]["weights"][v] = infl
        self.apply_ops(ops)
        for f in (-1, 6.5, 10):
            for m in ("k4", "mixed", "k3"):
                try:
                    want = s.evaluate(m, f)
                except RefError as e:         # the reference predicts a fold: the server agrees
                    r = self.frame(f, layers=m)
                    p = self.assertProblem(r, 422, e.code)
                    self.assertEqual(p["errors"][0].get("triangleIndex"), e.fields["triangleIndex"])
                    self.assertEqual(p["errors"][0].get("layerId"), m)
                    continue
                self.assertVerts(self.verts(m, f), want, msg=f"{m} frame {f}")


class Bezier(FrameCase):
    def test_bezier_keys_match_css_cubic_bezier(self):
        s = hierarchy(outside=False)
        s.layers["arm"]["keys"] = {}
        s.keys("arm", "rotation", [(-10, -30, "bezier", (0.25, 0.1, 0.25, 1.0)),
                                   (0, 10, "bezier", (0.42, 0, 0.58, 1)),
                                   (8, 35, "bezier", (0.3, -0.5, 0.7, 1.5)), (16, 50)])
        s.keys("body", "position.y", [(-8, -10, "bezier", (0.9, 0.1, 1.0, 0.2)), (8, 10)])
        self.apply_ops(s.all_ops())
        for f in (-11, -6.3, -1.75, 2.5, 4.125, 9.9, 13.2, 18.5, 30):
            self.assertVerts(self.verts("mesh", f), s.evaluate("mesh", f), msg=f"frame {f}")
        keys = self.rigd.get(f"/v1/shots/{self.shot}/layers/arm").json["keys"]["rotation"]
        self.assertEqual(keys[0]["interp"], "bezier")
        self.assertEqual(keys[0]["ease"], [0.25, 0.1, 0.25, 1.0])


class Determinism(FrameCase):
    def test_same_request_twice_is_byte_identical(self):
        s = add_second_mesh(hierarchy())
        self.apply_ops(s.all_ops())
        for f in (-12.5, 0.1, 7.9):
            for kw in ({}, {"space": "shot"}, {"layers": "mesh", "fmt": "f32"}):
                a, b = self.frame(f, **kw), self.frame(f, **kw)
                self.assertEqual(a.status, 200, a)
                self.assertEqual(a.body, b.body)
                self.assertEqual(a.header("ETag"), b.header("ETag"))

    def test_concurrent_readers_get_identical_bytes(self):
        """Render farms read concurrently: every answer equals the sequential one."""
        import threading
        s = kernel_scene()
        self.apply_ops(s.all_ops() + [{"op": "layer.skin.bind.capture", "layerId": m, "frame": 0}
                                      for m in s.skins])
        paths = [f"/v1/shots/{self.shot}/frames/{fmt_frame(f)}" + q
                 for f in (-2.5, 0.3, 4, 7.75) for q in ("", "?space=shot", "?layers=k8&format=f32")]
        paths += [f"/v1/shots/{self.shot}/layers/mixed/frames?from=-3&to=12&step=0.5&format=" + fmt
                  for fmt in ("f32", "json", "obj")]
        want = {p: self.rigd.get(p).body for p in paths}
        failures = []

        def worker(seed):
            conn = self.rigd.connect()
            try:
                for i in range(24):
                    p = paths[(seed * 7 + i) % len(paths)]
                    conn.request("GET", p)
                    resp = conn.getresponse()
                    body = resp.read()
                    if resp.status != 200 or body != want[p]:
                        failures.append((p, resp.status, body[:200]))
            except Exception as exc:  # noqa: BLE001 - reported below
                failures.append(("exception", repr(exc)))
            finally:
                conn.close()
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(failures, [])

    def test_two_server_processes_on_one_database_are_bit_identical(self):
        s = add_second_mesh(hierarchy())
        self.apply_ops(s.all_ops())
        queries = [(f, kw) for f in (-12.5, 0.1, 1 / 3, 7.9, 25)
                   for kw in ({}, {"space": "shot"}, {"layers": "mesh", "fmt": "f32"},
                              {"layers": "mesh2", "fmt": "f32", "space": "shot"})]
        first = [self.frame(f, **kw) for f, kw in queries]
        other = Rigd(db_path=self.rigd.db_path).start()
        try:
            second = [self.frame(f, rigd=other, **kw) for f, kw in queries]
            # and the first server again, after the second has run
            third = [self.frame(f, **kw) for f, kw in queries]
        finally:
            other.cleanup()
        for (f, kw), a, b, c in zip(queries, first, second, third):
            self.assertEqual(a.status, 200, a)
            self.assertEqual(a.body, b.body, f"frame {f} {kw}")
            self.assertEqual(a.body, c.body, f"frame {f} {kw}")
            self.assertEqual(a.header("ETag"), b.header("ETag"))


if __name__ == "__main__":
    main()
