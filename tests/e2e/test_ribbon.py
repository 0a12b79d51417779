"""The ribbon binding (issue 27, item 3) end to end: layer.ribbon on a 5-layer chain with keyed
rotations, its frames against an independent computation here (world origins of the chain
layers from SPEC §2's L = T(position)·R(rotation)·S(scale)·T(−pivot) and linear keys, taken
into the mesh layer's space, then the strip of docs: Catmull–Rom, averaged tangents,
left/right vertices), mesh-data = the frameStart mesh, a folded frame's MESH_WINDING, history,
diff, revert, the bake into a mesh binding, every error path and determinism."""
import math

from keys_ref import key_value
from rigd_harness import RigdTestCase, main

S = "s"
E = f"/v1/shots/{S}/edits"
CHAIN = ["c0", "c1", "c2", "c3", "c4"]
MESH_T = {"position": [10.0, -5.0], "rotation": 20.0, "scale": [1.5, 1.25], "pivot": [3.0, 2.0]}
# rotation keys per chain layer: (frame, value), linear; frame 40 folds the strip at c1
ROT_KEYS = {
    "c0": [(0, 0.0), (24, 30.0)],
    "c1": [(0, 0.0), (24, -40.0), (40, 178.0)],
    "c2": [(0, 10.0), (24, 50.0)],
    "c3": [(0, 0.0), (24, -20.0)],
}
LINK = 100.0


# ---- the independent computation ----

def mul(x, y):
    return [x[0] * y[0] + x[2] * y[1], x[1] * y[0] + x[3] * y[1],
            x[0] * y[2] + x[2] * y[3], x[1] * y[2] + x[3] * y[3],
            x[0] * y[4] + x[2] * y[5] + x[4], x[1] * y[4] + x[3] * y[5] + x[5]]


def local(t):
    th = math.radians(t.get("rotation", 0.0))
    px, py = t.get("position", [0.0, 0.0])
    sx, sy = t.get("scale", [1.0, 1.0])
    vx, vy = t.get("pivot", [0.0, 0.0])
    T = [1, 0, 0, 1, px, py]
    R = [math.cos(th), math.sin(th), -math.sin(th), math.cos(th), 0, 0]
    Sc = [sx, 0, 0, sy, 0, 0]
    P = [1, 0, 0, 1, -vx, -vy]
    return mul(mul(mul(T, R), Sc), P)


def inverse(m):
    a, b, c, d, e, f = m
    det = a * d - b * c
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return [ia, ib, ic, id_, -(ia * e + ic * f), -(ib * e + id_ * f)]


def chain_points(frame, chain=CHAIN):
    """The chain layers' origins in the mesh layer's space at a shot frame."""
    inv_m = inverse(local(MESH_T))
    world = [1, 0, 0, 1, 0, 0]
    points = {}
    for i, lid in enumerate(CHAIN):
        t = {"position": [0.0, 0.0] if i == 0 else [LINK, 0.0]}
        if lid in ROT_KEYS:
            t["rotation"] = key_value(ROT_KEYS[lid], frame)
        world = mul(world, local(t))
        pose = mul(inv_m, world)
        points[lid] = (pose[4], pose[5])
    return [points[c] for c in chain]


def catmull(p0, p1, p2, p3, t):
    return 0.5 * (2 * p1 + (p2 - p0) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t * t
                  + (3 * p1 - p0 - 3 * p2 + p3) * t ** 3)


def strip(points, widths, segments=1, caps=False):
    n = len(points)
    q, w = [], []
    for k in range(n - 1):
        p = [points[max(k - 1, 0)], points[k], points[k + 1], points[min(k + 2, n - 1)]]
        for j in range(segments):
            t = j / segments
            q.append(points[k] if j == 0 else
                     tuple(catmull(p[0][a], p[1][a], p[2][a], p[3][a], t) for a in (0, 1)))
            w.append(widths[k] if j == 0 else widths[k] + (widths[k + 1] - widths[k]) * t)
    q.append(points[-1])
    w.append(widths[-1])
    u, prev = [], (1.0, 0.0)
    for a, b in zip(q, q[1:]):
        dx, dy = b[0] - a[0], b[1] - a[1]
        ln = math.hypot(dx, dy)
        prev = (dx / ln, dy / ln) if ln > 0 else prev
        u.append(prev)
    tan = [u[0]]
    for i in range(1, len(q) - 1):
        sx, sy = u[i - 1][0] + u[i][0], u[i - 1][1] + u[i][1]
        ln = math.hypot(sx, sy)
        tan.append((sx / ln, sy / ln) if ln > 0 else u[i - 1])
    tan.append(u[-1])
    verts = []
    for (x, y), (tx, ty), wi in zip(q, tan, w):
        nx, ny = -ty, tx
        verts += [(x + nx * wi, y + ny * wi), (x - nx * wi, y - ny * wi)]
    N = len(q) - 1
    tris = []
    for i in range(N):
        tris += [[2 * i + 1, 2 * i + 3, 2 * i + 2], [2 * i + 1, 2 * i + 2, 2 * i]]
    uvs = []
    for i in range(N + 1):
        uvs += [(i / N, 0.0), (i / N, 1.0)]
    if caps:
        s, e = 2 * (N + 1), 2 * (N + 1) + 1
        verts.append((q[0][0] - tan[0][0] * w[0], q[0][1] - tan[0][1] * w[0]))
        verts.append((q[N][0] + tan[N][0] * w[N], q[N][1] + tan[N][1] * w[N]))
        tris += [[s, 1, 0], [2 * N + 1, e, 2 * N]]
        uvs += [(0.0, 0.5), (1.0, 0.5)]
    return verts, tris, uvs


def area2(v, t):
    (ax, ay), (bx, by), (cx, cy) = v[t[0]], v[t[1]], v[t[2]]
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


WIDTHS = [30.0, 25.0, 20.0, 15.0, 10.0]


def ribbon_op(chain=CHAIN, widths=WIDTHS, **extra):
    return {"op": "layer.ribbon", "layerId": "m",
            "ribbon": {"chain": chain, "widths": widths, **extra}}


class RibbonCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=24)
        ops = [{"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh",
                "transform": MESH_T}]
        for i, lid in enumerate(CHAIN):
            op = {"op": "layer.create", "layerId": lid, "name": lid, "kind": "group",
                  "transform": {"position": [0.0, 0.0] if i == 0 else [LINK, 0.0]}}
            if i:
                op["parentId"] = CHAIN[i - 1]
            ops.append(op)
        for lid, keys in ROT_KEYS.items():
            ops.append({"op": "layer.key.put", "layerId": lid, "channel": "rotation",
                        "keys": [{"frame": f, "value": v, "interp": "linear"}
                                 for f, v in keys]})
        self.edit(ops)

    def edit(self, ops, expect=201):
        r = self.rigd.post(E, {"ops": ops})
        self.assertEqual(r.status, expect, r)
        return r.json

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def frame(self, f, version=None):
        q = "?layers=m" + (f"&version={version}" if version is not None else "")
        return self.rigd.get(f"/v1/shots/{S}/frames/{f!r}{q}")

    def verts(self, f, version=None):
        r = self.frame(f, version)
        self.assertEqual(r.status, 200, r)
        return [tuple(v) for v in r.json["layers"][0]["vertices"]]

    def mesh_data(self, name, query=""):
        r = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/{name}{query}")
        self.assertEqual(r.status, 200, r)
        return r.json

    def assertClose(self, got, want, what=""):
        self.assertEqual(len(got), len(want), what)
        for i, (g, w) in enumerate(zip(got, want)):
            for a in (0, 1):
                self.assertAlmostEqual(g[a], w[a], delta=1e-9, msg=f"{what} vertex {i}")


class Evaluation(RibbonCase):
    def test_frames_follow_the_chain_within_1e9(self):
        for extra in ({}, {"segments": 4}, {"segments": 3, "caps": True}):
            self.edit([ribbon_op(**extra)])
            seg, caps = extra.get("segments", 1), extra.get("caps", False)
            for f in (0.0, 5.0, 12.5, 24.0):
                want, _, _ = strip(chain_points(f), WIDTHS, seg, caps)
                self.assertClose(self.verts(f), want, f"{extra} frame {f}")

    def test_mesh_data_is_the_frame_start_mesh(self):
        self.edit([ribbon_op(segments=2, caps=True)])
        verts, tris, uvs = strip(chain_points(0.0), WIDTHS, 2, True)
        layer = self.rigd.get(f"/v1/shots/{S}/layers/m").json
        self.assertEqual(layer["binding"], {"kind": "ribbon", "vertexCount": len(verts),
                                            "triangleCount": len(tris), "chainLength": 5,
                                            "segments": 2, "caps": True})
        got = [(v["x"], v["y"]) for v in self.mesh_data("vertices", "?pageSize=10000")["items"]]
        self.assertClose(got, verts, "source")
        self.assertEqual([t["indices"] for t in self.mesh_data("triangles")["items"]], tris)
        got = [(v["u"], v["v"]) for v in self.mesh_data("uvs")["items"]]
        self.assertClose(got, uvs, "uvs")
        for t in tris:  # the rest mesh winds counter-clockwise (positive area)
            self.assertGreater(area2(verts, t), 0)

    def test_widths_from_to_are_linear_along_the_chain(self):
        self.edit([ribbon_op(widths={"from": 40, "to": 8})])
        widths = [40 + (8 - 40) * i / 4 for i in range(5)]
        want, _, _ = strip(chain_points(7.0), widths)
        self.assertClose(self.verts(7.0), want)

    def test_a_folded_frame_is_mesh_winding_with_frame_and_triangle(self):
        self.edit([ribbon_op()])
        verts, tris, _ = strip(chain_points(40.0), WIDTHS)
        rest, _, _ = strip(chain_points(0.0), WIDTHS)
        flipped = [i for i, t in enumerate(tris) if area2(verts, t) * area2(rest, t) < 0]
        self.assertTrue(flipped, "the reference folds at frame 40")
        r = self.frame(40.0)
        self.assertEqual(r.status, 422, r)
        errs = [e for e in r.json["errors"] if e["code"] == "MESH_WINDING"]
        self.assertTrue(errs, r.json)
        for e in errs:
            self.assertEqual((e["layerId"], e["frame"]), ("m", 40.0), e)
        self.assertEqual(sorted(e["triangleIndex"] for e in errs), flipped)

    def test_the_same_frame_twice_is_the_same_bytes(self):
        self.edit([ribbon_op(segments=5, caps=True)])
        a, b = self.frame(13.25), self.frame(13.25)
        self.assertEqual(a.status, 200, a)
        self.assertEqual(a.body, b.body)


class FromAConstraint(RibbonCase):
    """chain: "<constraintId>" takes that constraint's chain layers: here a follow chain on
    the ribbon's layers, so the body trails the target as the chain does."""
    GOAL = [{"op": "layer.create", "layerId": "goal", "name": "goal", "kind": "group",
             "transform": {"position": [-50.0, 0.0]}},
            {"op": "layer.key.put", "layerId": "goal", "channel": "position.y",
             "keys": [{"frame": 0, "value": 0, "interp": "linear"},
                      {"frame": 24, "value": 60, "interp": "linear"}]},
            {"op": "constraint.put", "constraintId": "tail", "kind": "chain", "chain": CHAIN,
             "target": "goal", "segmentLength": LINK, "smoothing": 0.5}]

    def test_the_ribbon_is_the_same_as_with_the_layers_listed(self):
        self.edit(self.GOAL + [ribbon_op(chain="tail", widths={"from": 30, "to": 10},
                                         segments=3)])
        frames = (0.0, 5.0, 12.5, 24.0)
        by_constraint = [self.frame(f).json["layers"] for f in frames]
        layer = self.rigd.get(f"/v1/shots/{S}/layers/m").json
        self.assertEqual(layer["binding"]["chainLength"], 5)
        self.edit([ribbon_op(chain=CHAIN, widths={"from": 30, "to": 10}, segments=3)])
        self.assertEqual([self.frame(f).json["layers"] for f in frames], by_constraint)
        # the follow chain moved the layers: not the keyed (FK) strip
        fk, _, _ = strip(chain_points(12.5), [30 + (10 - 30) * i / 4 for i in range(5)], 3)
        got = self.verts(12.5)
        self.assertGreater(max(abs(g[0] - w[0]) + abs(g[1] - w[1]) for g, w in zip(got, fk)), 1)

    def test_an_unknown_constraint_or_a_width_count_off_its_chain_is_refused(self):
        before = self.rigd.snapshot(S)
        for ops, code, pointer in (
                ([ribbon_op(chain="nope")], "CONSTRAINT_NOT_FOUND", "/ops/0/ribbon/chain"),
                (self.GOAL + [ribbon_op(chain="tail", widths=[1, 2, 3])], "OP_INVALID",
                 "/ops/3/ribbon/widths"),
                ([ribbon_op(chain=7)], "OP_INVALID", "/ops/0/ribbon/chain"),
                ([ribbon_op(chain="bad id!")], "OP_INVALID", "/ops/0/ribbon/chain")):
            with self.subTest(code=code, pointer=pointer):
                r = self.rigd.post(E, {"ops": ops})
                self.assertEqual(r.status, 422, r)
                self.assertIn((code, pointer),
                              [(e["code"], e["pointer"]) for e in r.json["errors"]], r.json)
        self.assertEqual(self.rigd.snapshot(S), before, "nothing changed")


class History(RibbonCase):
    def test_version_diff_revert_and_bake(self):
        self.edit([ribbon_op()])
        v1 = self.version()
        before = self.verts(9.0)
        wider = [w * 2 for w in WIDTHS]
        receipt = self.edit([ribbon_op(widths=wider)])
        v2 = self.version()
        self.assertClose(self.verts(9.0), strip(chain_points(9.0), wider)[0])
        self.assertEqual(self.verts(9.0, version=v1), before)
        r = self.rigd.get(f"/v1/shots/{S}/diff?from={v1}&to={v2}")
        self.assertEqual(r.status, 200, r)
        (item,) = r.json["layers"]
        b = item["binding"]
        self.assertEqual((b["change"], b["kindFrom"], b["kindTo"]), ("changed", "ribbon", "ribbon"))
        self.assertEqual(b["parts"]["source"]["total"], 10)
        self.assertEqual(b["parts"]["chain"], {"added": [], "removed": [], "changed": CHAIN})
        r = self.rigd.post(f"/v1/receipts/{receipt['receiptId']}/revert", {})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.verts(9.0), before)
        r = self.rigd.get(f"/v1/shots/{S}/diff?from={v1}&to={self.version()}")
        self.assertEqual(r.json["layers"], [])
        # bake: a mesh binding keyed with the ribbon's frames, bit for bit
        frames = {f: self.verts(float(f)) for f in range(0, 5)}
        self.edit([{"op": "layer.ribbon.bake", "layerId": "m", "frames": {"from": 0, "to": 4}}])
        layer = self.rigd.get(f"/v1/shots/{S}/layers/m").json
        self.assertEqual((layer["binding"]["kind"], layer["binding"]["keyCount"]), ("mesh", 5))
        for f, want in frames.items():
            self.assertEqual(self.verts(float(f)), want, f)
        r = self.rigd.post(E, {"ops": [{"op": "layer.ribbon.bake", "layerId": "m",
                                        "frames": [0]}]})
        self.assertProblem(r, 422, "MESH_BINDING_KIND")
        # null removes a ribbon
        self.edit([ribbon_op()])
        self.edit([{"op": "layer.ribbon", "layerId": "m", "ribbon": None}])
        self.assertIsNone(self.rigd.get(f"/v1/shots/{S}/layers/m").json["binding"])

    def test_rest_apply_is_refused(self):
        self.edit([ribbon_op()])
        r = self.rigd.post(E, {"ops": [{"op": "layer.deformation.rest.apply", "layerId": "m",
                                        "frame": 3}]})
        body = self.assertProblem(r, 422, "MESH_BINDING_KIND")
        self.assertEqual(body["errors"][0]["bindingKind"], "ribbon")


class Errors(RibbonCase):
    def errors(self, op, more=()):
        before = self.rigd.snapshot(S)
        r = self.rigd.post(E, {"ops": [*more, op]})
        self.assertEqual(r.status, 422, r)
        self.assertEqual(self.rigd.snapshot(S), before, "nothing changed")
        return sorted((e["code"], e["pointer"]) for e in r.json["errors"])

    def test_every_rule_is_a_typed_422_at_its_pointer(self):
        P = "/ops/0/ribbon"
        self.assertEqual(self.errors(ribbon_op(chain=["c0"], widths=[1])),
                         [("OP_INVALID", f"{P}/chain")])
        self.assertEqual(self.errors(ribbon_op(chain=["c0"] * 257, widths=[1] * 257)),
                         [("OP_INVALID", f"{P}/chain")])
        self.assertEqual(self.errors(ribbon_op(widths=[1, 2, 3])),
                         [("OP_INVALID", f"{P}/widths")])
        self.assertEqual(self.errors(ribbon_op(widths=[1, -2, 3, 4, 5])),
                         [("OP_INVALID", f"{P}/widths/1")])
        self.assertEqual(self.errors(ribbon_op(widths={"from": -1, "to": 2})),
                         [("OP_INVALID", f"{P}/widths/from")])
        self.assertEqual(self.errors(ribbon_op(widths=[1, 2, "x", 4, 5])),
                         [("OP_INVALID", f"{P}/widths/2")])
        self.assertEqual(self.errors(ribbon_op(segments=0)), [("OP_INVALID", f"{P}/segments")])
        self.assertEqual(self.errors(ribbon_op(segments=17)), [("OP_INVALID", f"{P}/segments")])
        self.assertEqual(self.errors(ribbon_op(caps="yes")), [("OP_INVALID", f"{P}/caps")])
        self.assertEqual(self.errors(ribbon_op(chain=["c0", 7, "c2", "c3", "c4"])),
                         [("OP_INVALID", f"{P}/chain/1")])
        self.assertEqual(self.errors(ribbon_op(chain=["c0", "nope", "c2", "c3", "c4"])),
                         [("LAYER_NOT_FOUND", f"{P}/chain/1")])
        self.assertEqual(self.errors(ribbon_op(chain=["c0", "m", "c2", "c3", "c4"])),
                         [("SKIN_DEFORMATION_BOUNDARY", f"{P}/chain/1")])
        # below the mesh layer
        below = {"op": "layer.create", "layerId": "kid", "name": "kid", "kind": "group",
                 "parentId": "m"}
        self.assertEqual(self.errors(ribbon_op(chain=["c0", "c1", "c2", "c3", "kid"]),
                                     more=[below]),
                         [("SKIN_DEFORMATION_BOUNDARY", "/ops/1/ribbon/chain/4")])
        # across a deformed layer: a chain under another ribbon's mesh
        other = [{"op": "layer.create", "layerId": "m2", "name": "m2", "kind": "mesh"},
                 {"op": "layer.ribbon", "layerId": "m2",
                  "ribbon": {"chain": ["c0", "c1"], "widths": [5, 5]}},
                 {"op": "layer.create", "layerId": "g", "name": "g", "kind": "group",
                  "parentId": "m2"},
                 {"op": "layer.create", "layerId": "gg", "name": "gg", "kind": "group",
                  "parentId": "g"}]
        self.assertEqual(self.errors(ribbon_op(chain=["c0", "gg"], widths=[5, 5]), more=other),
                         [("SKIN_DEFORMATION_BOUNDARY", "/ops/4/ribbon/chain/1")])
        # a zero width makes rest triangles without area
        got = self.errors(ribbon_op(widths=[10, 0, 10, 10, 10]))
        self.assertEqual({c for c, _ in got}, {"MESH_DEGENERATE"})
        self.assertTrue(all(p.startswith(f"{P}/triangles/") for _, p in got), got)
        # not a mesh layer; unknown member; missing ribbon
        op = ribbon_op()
        op["layerId"] = "c0"
        self.assertEqual(self.errors(op), [("LAYER_KIND", "/ops/0/layerId")])
        op = ribbon_op(twist=1)
        self.assertEqual(self.errors(op), [("OP_INVALID", f"{P}/twist")])
        self.assertEqual(self.errors({"op": "layer.ribbon", "layerId": "m"}),
                         [("OP_INVALID", "/ops/0/ribbon")])

    def test_a_later_op_deleting_a_chain_layer_fails_final_validation(self):
        r = self.rigd.post(E, {"ops": [ribbon_op(), {"op": "layer.delete", "layerId": "c4"}]})
        self.assertEqual(r.status, 422, r)
        self.assertIn("SKIN_JOINT_LAYERS", {e["code"] for e in r.json["errors"]})


if __name__ == "__main__":
    main()
