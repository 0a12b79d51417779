"""POST /v1/shots/{id}/layers/{layerId}/map-points {frame, points} and space=shot through
deformed ancestors: points carried by barycentric coordinates of their containing (else
nearest) source triangle, computed independently in test_skin_refmath.
"""
from rigd_harness import RigdTestCase, main
from test_skin_refmath import (IDENTITY, RefError, Scene, ShotHelpers, apply, barycentric, locate,
                               max_diff)


def sheet_scene(with_child=False):
    """A 3x3-vertex sheet under a rotated rig; the left column follows jL, the right column jR
    (rotating about (100, 30) and rising), the middle is blended. Binds captured at frame 0.
    with_child: a skinned mesh 'child' inside the sheet (under group 'g'), driven by joint
    layers 'cj' and 'ck' that are also inside the sheet (so C = sheet for both)."""
    s = Scene()
    s.layer("rig", position=(20, 10), rotation=12)
    s.layer("jL", parent="rig")
    s.layer("jR", parent="rig", position=(100, 30), pivot=(100, 30))
    s.keys("jR", "rotation", [(0, 0), (10, 20)])
    s.keys("jR", "position.y", [(0, 30), (10, 45)])
    s.layer("sheet", "mesh", parent="rig", position=(3, 4), rotation=5)
    xs, ys = [0, 50, 100], [0, 30, 60]
    src = [(x, y) for y in ys for x in xs]
    tris = []
    for r in range(2):
        for c in range(2):
            i = r * 3 + c
            tris += [(i, i + 1, i + 4), (i, i + 4, i + 3)]
    w = [[("l", 1)], [("l", 0.5), ("r", 0.5)], [("r", 1)]]
    s.skin("sheet", src, tris, [("l", IDENTITY), ("r", IDENTITY)], w * 3, {"l": "jL", "r": "jR"})
    if with_child:
        s.layer("g", parent="sheet", position=(10, 8), rotation=-7)
        s.layer("cj", parent="sheet", position=(40, 20))
        s.keys("cj", "rotation", [(0, 0), (10, -15)])
        s.layer("ck", parent="sheet", position=(12, 9), rotation=-6)
        s.keys("ck", "position.x", [(0, 12), (10, 18)])
        s.layer("child", "mesh", parent="g", position=(5, 2), scale=(1.2, 1.1))
        s.skin("child", [(0, 0), (60, 0), (60, 30), (0, 30), (75, 35)],
               [(0, 1, 2), (0, 2, 3), (1, 4, 2)],
               [("c", IDENTITY), ("k", IDENTITY)],
               [[("k", 1)], [("c", 1)], [("c", 0.5), ("k", 0.5)], [("k", 1)], [("c", 1)]],
               {"c": "cj", "k": "ck"})
    return s


class MapCase(ShotHelpers, RigdTestCase):
    def setUp(self):
        super().setUp()
        self.shot = self.rigd.make_shot("p", "s", frameStart=0, frameEnd=24)

    def build(self, s):
        ops = s.all_ops() + [{"op": "layer.skin.bind.capture", "layerId": m, "frame": 0}
                             for m in s.skins]
        self.apply_ops(ops)
        for m in s.skins:
            s.capture(m, 0)

    def map_points(self, layer, frame, points, space=None, expect=200):
        path = f"/v1/shots/{self.shot}/layers/{layer}/map-points" + (f"?space={space}" if space else "")
        r = self.rigd.post(path, {"frame": frame, "points": [list(p) for p in points]})
        self.assertEqual(r.status, expect, r)
        if expect != 200:
            return r
        body = r.json
        self.assertEqual(body["frame"], frame)
        self.assertEqual(body["space"], space or "local")
        self.assertEqual(body["layerId"], layer)
        return [tuple(p) for p in body["points"]]


class MapPoints(MapCase):
    def test_point_inside_a_triangle_moves_with_its_barycentric_coordinates(self):
        s = sheet_scene()
        self.build(s)
        src, tris = s.skins["sheet"]["source"], s.skins["sheet"]["triangles"]
        for f in (10, 6.5, -2):
            deformed = s.evaluate("sheet", f)
            self.assertVerts(self.verts("sheet", f), deformed, msg=f"frame {f}")
            pts, want = [], []
            for t, bc in ((0, (0.2, 0.3, 0.5)), (3, (0.6, 0.1, 0.3)), (5, (1 / 3, 1 / 3, 1 / 3)),
                          (7, (0.05, 0.9, 0.05))):
                a, b, c = (src[i] for i in tris[t])
                pts.append((bc[0] * a[0] + bc[1] * b[0] + bc[2] * c[0],
                            bc[0] * a[1] + bc[1] * b[1] + bc[2] * c[1]))
                da, db, dc = (deformed[i] for i in tris[t])
                want.append((bc[0] * da[0] + bc[1] * db[0] + bc[2] * dc[0],
                             bc[0] * da[1] + bc[1] * db[1] + bc[2] * dc[1]))
            pts.append(src[4])                       # a source vertex maps to its deformed self
            want.append(deformed[4])
            got = self.map_points("sheet", f, pts)
            self.assertVerts(got, want, msg=f"frame {f}")
        # the captured frame maps every point to itself
        pts = [(10, 10), (75, 45), (99, 1)]
        self.assertVerts(self.map_points("sheet", 0, pts), pts)

    def test_point_outside_uses_the_nearest_triangle(self):
        s = sheet_scene()
        self.build(s)
        src, tris = s.skins["sheet"]["source"], s.skins["sheet"]["triangles"]
        deformed = s.evaluate("sheet", 10)
        cases = {(130, 20): 2, (25, -12): 0, (-15, 45): 5, (80, 71): 7}
        for p, t in cases.items():
            self.assertEqual(locate(src, tris, p)[0], t, p)   # the reference's own sanity
        got = self.map_points("sheet", 10, list(cases))
        want = []
        for p, t in cases.items():
            bc = barycentric(p, *(src[i] for i in tris[t]))
            self.assertLess(min(bc), 0)                      # really outside: extrapolated
            d = [deformed[i] for i in tris[t]]
            want.append((sum(bc[k] * d[k][0] for k in range(3)),
                         sum(bc[k] * d[k][1] for k in range(3))))
        self.assertVerts(got, want)
        self.assertVerts(got, s.map_points("sheet", list(cases), 10))

    def test_space_shot(self):
        s = sheet_scene()
        self.build(s)
        pts = [(12, 7), (70, 50), (130, 20)]
        for f in (10, 3.75):
            got = self.map_points("sheet", f, pts, space="shot")
            local = s.map_points("sheet", pts, f)
            world = s.world("sheet", f)
            self.assertVerts(got, [apply(world, x, y) for x, y in local], msg=f"frame {f}")
            self.assertVerts(got, s.map_points("sheet", pts, f, shot_space=True))
        self.assertEqual(self.map_points("sheet", 10, [], space="shot"), [])

    def test_requests_that_cannot_be_mapped(self):
        s = sheet_scene()
        self.build(s)
        self.apply_ops([{"op": "layer.create", "layerId": "bare", "name": "b", "kind": "mesh"}])
        path = f"/v1/shots/{self.shot}/layers/%s/map-points"
        body = {"frame": 1, "points": [[0, 0]]}
        self.assertProblem(self.rigd.post(path % "ghost", body), 404, "NOT_FOUND")
        p = self.assertProblem(self.rigd.post(path % "bare", body), 422, "MESH_BINDING_KIND")
        self.assertEqual(p.get("layerId"), "bare")
        self.assertProblem(self.rigd.post(path % "jL", body), 422, "MESH_BINDING_KIND")
        for bad in ({"points": [[0, 0]]}, {"frame": 1}, {"frame": 1, "points": [[0]]},
                    {"frame": 1, "points": [["a", 1]]}, {"frame": "1", "points": []},
                    {"frame": 1, "points": [], "extra": 1}):
            with self.subTest(body=bad):
                r = self.rigd.post(path % "sheet", bad)
                self.assertEqual(r.status, 422, r)
                self.assertTrue(r.json["errors"][0].get("pointer"), r.json)
        r = self.rigd.post(path % "sheet" + "?space=camera", body)
        self.assertProblem(r, 400, "INVALID_QUERY")
        # an evaluation error at that frame is a 422 naming layer and frame
        self.apply_ops([{"op": "layer.pose", "layerId": "jR", "frame": 30,
                         "transform": {"scale": [0, 0]}}])
        s.keys("jR", "scale.x", [(30, 0)])
        s.keys("jR", "scale.y", [(30, 0)])
        with self.assertRaises(RefError) as ctx:
            s.evaluate("sheet", 30)
        r = self.rigd.post(path % "sheet", {"frame": 30, "points": [[1, 1]]})
        p = self.assertProblem(r, 422, ctx.exception.code)
        self.assertEqual(p["errors"][0].get("layerId"), "sheet")
        self.assertEqual(p["errors"][0].get("frame"), 30.0)
        self.assertEqual(p["errors"][0].get("triangleIndex"), ctx.exception.fields["triangleIndex"])


class NestedDeformation(MapCase):
    """A skinned mesh inside a skinned (deformed) mesh: space=shot carries its points through
    the parent's deformation."""

    def test_child_mesh_frames_in_shot_space_pass_through_parent_deformation(self):
        s = sheet_scene(with_child=True)
        self.build(s)
        for f in (10, 4.5, 0, -3):
            local = s.evaluate("child", f)
            self.assertVerts(self.verts("child", f), local, msg=f"local frame {f}")
            want = s.evaluate_shot("child", f)
            got = self.verts("child", f, space="shot")
            self.assertVerts(got, want, msg=f"shot frame {f}")
            # ... which is not what ignoring the parent's deformation would give
            naive = [apply(s.world("child", f), x, y) for x, y in local]
            if f == 10:
                self.assertGreater(max_diff(naive, want), 1.0)
        # the whole-shot frame holds both meshes, each in shot space
        r = self.frame(10, space="shot")
        self.assertEqual(r.status, 200, r)
        layers = {l["layerId"]: [tuple(v) for v in l["vertices"]] for l in r.json["layers"]}
        self.assertEqual(set(layers), {"sheet", "child"})
        self.assertVerts(layers["child"], s.evaluate_shot("child", 10))
        self.assertVerts(layers["sheet"], s.evaluate_shot("sheet", 10))

    def test_child_map_points_in_shot_space(self):
        s = sheet_scene(with_child=True)
        self.build(s)
        pts = [(10, 10), (50, 5), (70, 33), (-10, 15)]
        for f in (10, 7.25):
            got = self.map_points("child", f, pts, space="shot")
            self.assertVerts(got, s.map_points("child", pts, f, shot_space=True), msg=f"frame {f}")
            got = self.map_points("child", f, pts)
            self.assertVerts(got, s.map_points("child", pts, f), msg=f"frame {f} local")

    def test_child_range_in_shot_space(self):
        s = sheet_scene(with_child=True)
        self.build(s)
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/child/frames?from=-1&to=10&step=2.75"
                          "&space=shot")
        self.assertEqual(r.status, 200, r)
        frames = r.json["frames"]
        self.assertEqual([fr["frame"] for fr in frames], [-1, 1.75, 4.5, 7.25, 10])
        for fr in frames:
            self.assertVerts([tuple(v) for v in fr["vertices"]],
                             s.evaluate_shot("child", fr["frame"]), msg=f"frame {fr['frame']}")


if __name__ == "__main__":
    main()
