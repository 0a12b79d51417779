"""POST /v1/shots/{id}/layers/{layerId}/map-points {frame, points} and space=shot through
deformed ancestors: points carried by barycentric coordinates of their containing (else
nearest) source triangle, computed independently in test_skin_refmath.
"""
import math
import random

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


def edge_distance(p, a, b):
    """Distance from p to segment ab (the closest point clamped onto the segment)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])


class MapPointSites(MapCase):
    """Each answer carries, beside the mapped point, where the point sat in the source mesh:
    triangleIndex, barycentric [w0, w1, w2], inside and (outside only) distance."""

    # point: (triangle, inside, distance) worked out by hand on the 100 × 60 sheet of
    # triangles (i, i+1, i+4), (i, i+4, i+3) over vertices 3 × 3 (cells 50 × 30)
    EXPECTED = {
        (10, 10): (1, True, None),      # interior of (0, 4, 3)
        (75, 45): (6, True, None),      # cell (1, 1), upper-left half
        (25, 0): (0, True, None),       # on the border edge of triangle 0
        (25, 15): (0, True, None),      # on the diagonal shared by 0 and 1: the lower index
        (50, 30): (0, True, None),      # the vertex shared by six triangles: the lowest
        (100, 60): (6, True, None),     # the far corner
        (130, 20): (2, False, 30.0),    # right of the border x = 100
        (25, -12): (0, False, 12.0),    # below the bottom edge
        (-15, 45): (5, False, 15.0),    # left of x = 0, in the upper row
        (80, 71): (7, False, 11.0),     # above y = 60
        (-30, -40): (0, False, 50.0),   # nearest the corner (0, 0): triangles 0 and 1 tie
        (100, 90): (6, False, 30.0),    # above the corner (100, 60), shared by 6 and 7
        (1e6, 3): (2, False, 1e6 - 100),
    }

    def sites(self, layer, frame, points, space=None):
        path = f"/v1/shots/{self.shot}/layers/{layer}/map-points" + (f"?space={space}" if space else "")
        r = self.rigd.post(path, {"frame": frame, "points": [list(p) for p in points]})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(len(r.json["sites"]), len(points))
        return r.json["points"], r.json["sites"]

    def check_site(self, site, p, src, tris):
        """The site against a computation written here: the first triangle whose weights are
        all >= 0, else the nearest by distance to its edges (lowest index on ties)."""
        weights = [barycentric(p, *(src[i] for i in tri)) for tri in tris]
        containing = [t for t, w in enumerate(weights) if min(w) >= 0]
        dist = [min(edge_distance(p, src[tri[k]], src[tri[(k + 1) % 3]]) for k in range(3))
                for tri in tris]
        t = containing[0] if containing else min(range(len(tris)), key=lambda i: (dist[i], i))
        self.assertEqual(site["triangleIndex"], t, p)
        self.assertEqual(site["inside"], bool(containing), p)
        for got, want in zip(site["barycentric"], weights[t]):
            self.assertAlmostEqual(got, want, delta=1e-12 * max(1.0, abs(want)), msg=p)
        self.assertAlmostEqual(sum(site["barycentric"]), 1.0, delta=1e-9)
        if containing:
            self.assertNotIn("distance", site, p)
        else:
            self.assertAlmostEqual(site["distance"], dist[t], delta=1e-9 * max(1.0, dist[t]), msg=p)

    def test_sites_inside_on_edges_and_outside(self):
        s = sheet_scene()
        self.build(s)
        src, tris = s.skins["sheet"]["source"], s.skins["sheet"]["triangles"]
        pts = list(self.EXPECTED)
        mapped, sites = self.sites("sheet", 10, pts)
        self.assertVerts([tuple(p) for p in mapped], s.map_points("sheet", pts, 10))
        for p, site in zip(pts, sites):
            t, inside, distance = self.EXPECTED[p]
            self.assertEqual((site["triangleIndex"], site["inside"]), (t, inside), p)
            if distance is not None:
                self.assertAlmostEqual(site["distance"], distance, delta=1e-9 * distance, msg=p)
            self.check_site(site, p, src, tris)
        # the weights on an edge and at a vertex, exactly
        by_point = dict(zip(pts, sites))
        self.assertEqual(by_point[(25, 0)]["barycentric"], [0.5, 0.5, 0])
        self.assertEqual(by_point[(50, 30)]["barycentric"], [0, 0, 1])
        self.assertEqual(by_point[(25, 15)]["barycentric"], [0.5, 0, 0.5])

    def test_sites_are_in_the_source_mesh_whatever_the_frame_and_space(self):
        s = sheet_scene()
        self.build(s)
        pts = [(12, 7), (70, 50), (130, 20), (-5, -5)]
        _, want = self.sites("sheet", 0, pts)
        for f, space in ((10, None), (3.75, "shot"), (-2, "shot")):
            mapped, got = self.sites("sheet", f, pts, space=space)
            self.assertEqual(got, want, (f, space))
            self.assertVerts([tuple(p) for p in mapped],
                             s.map_points("sheet", pts, f, shot_space=space == "shot"))

    def test_random_points_against_the_independent_computation(self):
        s = sheet_scene(with_child=True)
        self.build(s)
        rnd = random.Random(13)
        for layer in ("sheet", "child"):
            src, tris = s.skins[layer]["source"], s.skins[layer]["triangles"]
            pts = [(rnd.uniform(-60, 160), rnd.uniform(-40, 100)) for _ in range(300)]
            for tri in tris:  # the midpoint of every edge and every vertex
                for k in range(3):
                    a, b = src[tri[k]], src[tri[(k + 1) % 3]]
                    pts += [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), tuple(a)]
            mapped, sites = self.sites(layer, 7.25, pts, space="shot")
            self.assertVerts([tuple(p) for p in mapped],
                             s.map_points(layer, pts, 7.25, shot_space=True), msg=layer)
            for p, site in zip(pts, sites):
                self.check_site(site, p, src, tris)
            self.assertTrue(any(x["inside"] for x in sites) and not all(x["inside"] for x in sites))

    def test_a_point_too_far_to_locate_is_refused(self):
        s = sheet_scene()
        self.build(s)
        path = f"/v1/shots/{self.shot}/layers/sheet/map-points"
        r = self.rigd.post(path, {"frame": 1, "points": [[1, 1], [1e200, 0]]})
        p = self.assertProblem(r, 422, "MESH_GEOMETRY")
        self.assertEqual(p["errors"][0].get("pointer"), "/points/1")


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
