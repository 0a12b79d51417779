"""Authoring on the server (issue 25) through the real server and SQLite: tessellation
(POST /v1/tessellate and layer.mesh.generate for every kind, uvs stored with the binding,
mesh-data uvs, OBJ vt), automatic weights (POST /v1/weights/auto and
layer.skin.weights.auto against distances computed here), brushes and single weights
(layer.skin.weights.paint/.set against the redistribution rule computed here, one receipt
per stroke, revert), mesh-data weights?jointId, and every error path changing nothing.
"""
import base64
import math
import struct
import zlib

from rigd_harness import RigdTestCase, main

S = "s"


def png(width, height, alpha):
    """A grayscale+alpha PNG, 8 bits, alpha(x, y) per pixel (row 0 the top), standard
    library only: the test draws its own images."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (255, alpha(x, y)))
                    for y in range(height))

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 4, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def b64(data):
    return base64.b64encode(data).decode()


def inside(poly, x, y):
    """Even-odd point in polygon."""
    n, c = len(poly), False
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            c = not c
    return c


def grid_expected(width, height, density, expansion, covered, pivot=(0.5, 0.5)):
    """The grid mode's counts, computed here: cells kept when a corner or the centre
    is covered, dilated by one ring, vertices of kept cells, two triangles a cell."""
    x0 = -pivot[0] * width - expansion
    y0 = -pivot[1] * height - expansion
    cw = (width + 2 * expansion) / density
    ch = (height + 2 * expansion) / density
    kept = set()
    for j in range(density):
        for i in range(density):
            pts = [(x0 + (i + a) * cw, y0 + (j + b) * ch) for a in (0, 1) for b in (0, 1)]
            pts.append((x0 + (i + 0.5) * cw, y0 + (j + 0.5) * ch))
            if any(covered(x, y) for x, y in pts):
                kept.add((i, j))
    grown = {(i + di, j + dj) for i, j in kept for di in (-1, 0, 1) for dj in (-1, 0, 1)
             if 0 <= i + di < density and 0 <= j + dj < density}
    verts = {(i + a, j + b) for i, j in grown for a in (0, 1) for b in (0, 1)}
    return len(verts), 2 * len(grown)


def area2(src, t):
    a, b, c = (src[i] for i in t)
    return (b["x"] - a["x"]) * (c["y"] - a["y"]) - (b["y"] - a["y"]) * (c["x"] - a["x"])


def seg_dist2(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    l2 = dx * dx + dy * dy
    t = 0.0 if l2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / l2))
    qx, qy = ax + t * dx - px, ay + t * dy - py
    return qx * qx + qy * qy


def expected_weights(dist2s, max_influences=4):
    """1 / (d² + 1e-6), drop < 1e-4, keep the strongest (ties: lower index), normalise:
    the issue's rule, computed here to compare with the server's lists."""
    raw = [1.0 / (d + 1e-6) for d in dist2s]
    s = sum(raw)
    w = [(r / s, j) for j, r in enumerate(raw)]
    w = [(x, j) for x, j in w if x >= 1e-4]
    w.sort(key=lambda p: (-p[0], p[1]))
    w = w[:max_influences]
    s = sum(x for x, _ in w)
    return {j: x / s for x, j in w}


SQUARE = [[-40, -40], [40, -40], [40, 40], [-40, 40]]


class Authoring(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=10)
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"},
            {"op": "layer.create", "layerId": "root", "name": "root", "kind": "group"},
            {"op": "layer.create", "layerId": "tip", "name": "tip", "kind": "group",
             "parentId": "root", "transform": {"position": [0, 40]}}])

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def post_ops(self, ops, **extra):
        return self.rigd.post(f"/v1/shots/{S}/edits", {"ops": ops, **extra})

    def tessellate(self, **body):
        r = self.rigd.post("/v1/tessellate", body)
        return r

    def assert_mesh_rules(self, mesh):
        src, tris = mesh["source"], mesh["triangles"]
        self.assertEqual(len(mesh["uvs"]), len(src))
        self.assertEqual(mesh["vertexCount"], len(src))
        self.assertEqual(mesh["triangleCount"], len(tris))
        used = set()
        for t in tris:
            self.assertGreater(area2(src, t), 0, f"triangle {t} is not counter-clockwise")
            used.update(t)
        self.assertEqual(used, set(range(len(src))), "every vertex is used")

    # ---- tessellation ----

    def test_grid_on_a_polygon_matches_the_counts_computed_here(self):
        poly = [[-30, -45], [10, -45], [10, 20], [45, 20], [45, 45], [-30, 45]]  # an L
        for density, expansion in ((7, 0), (10, 3.5)):
            r = self.tessellate(width=100, height=100, density=density, expansion=expansion,
                                mode="grid", polygon=poly)
            self.assertEqual(r.status, 200, r)
            nv, nt = grid_expected(100, 100, density, expansion,
                                   lambda x, y: inside(poly, x, y))
            self.assertEqual((r.json["vertexCount"], r.json["triangleCount"]), (nv, nt))
            self.assert_mesh_rules(r.json)
            for p, uv in zip(r.json["source"], r.json["uvs"]):  # 0..1 over the ungrown box
                self.assertAlmostEqual(uv[0], (p["x"] + 50) / 100, places=12)
                self.assertAlmostEqual(uv[1], (50 - p["y"]) / 100, places=12)
            again = self.tessellate(width=100, height=100, density=density,
                                    expansion=expansion, mode="grid", polygon=poly)
            self.assertEqual(again.body, r.body, "the same input gives the same bytes")

    def test_grid_on_a_drawn_png_matches_the_counts_computed_here(self):
        w = h = 60

        def alpha(x, y):
            return 255 if (x - 30.5) ** 2 + (y - 24.5) ** 2 < 15 ** 2 else 0
        r = self.tessellate(width=120, height=120, density=7, mode="grid",
                            image=b64(png(w, h, alpha)))
        self.assertEqual(r.status, 200, r)

        def covered(x, y):  # the image spans the box, row 0 at the top, nearest pixel
            px, py = math.floor((x + 60) / 120 * w), math.floor((60 - y) / 120 * h)
            return 0 <= px < w and 0 <= py < h and alpha(px, py) > 12
        self.assertEqual((r.json["vertexCount"], r.json["triangleCount"]),
                         grid_expected(120, 120, 7, 0, covered))
        self.assert_mesh_rules(r.json)

    def test_pivot_moves_the_origin(self):
        r = self.tessellate(width=10, height=20, density=2, mode="grid",
                            pivot={"x": 0, "y": 0})
        xs = [p["x"] for p in r.json["source"]]
        ys = [p["y"] for p in r.json["source"]]
        self.assertEqual((min(xs), max(xs), min(ys), max(ys)), (0, 10, 0, 20))
        self.assertEqual(r.json["triangleCount"], 8)

    def test_silhouette_triangles_lie_inside_the_polygon(self):
        poly = [[-40, -40], [40, -40], [40, -30], [-30, -30], [-30, 40], [-40, 40]]  # thin L
        r = self.tessellate(width=100, height=100, density=20, mode="silhouette",
                            polygon=poly)
        self.assertEqual(r.status, 200, r)
        self.assert_mesh_rules(r.json)
        src = r.json["source"]
        for t in r.json["triangles"]:
            cx = sum(src[i]["x"] for i in t) / 3
            cy = sum(src[i]["y"] for i in t) / 3
            self.assertTrue(inside(poly, cx, cy), f"triangle {t} leaves the silhouette")
        self.assertTrue(any(src[i]["y"] > 30 for t in r.json["triangles"] for i in t),
                        "the thin vertical limb keeps its own triangles")

    def test_tessellate_errors_are_typed(self):
        cases = [
            (dict(width=0, height=10, density=4, mode="grid"), "INVALID_FIELD", "/width"),
            (dict(width=10, height=10, density=1, mode="grid"), "INVALID_FIELD", "/density"),
            (dict(width=10, height=10, density=101, mode="grid"), "INVALID_FIELD", "/density"),
            (dict(width=10, height=10, density=4, mode="grid", expansion=-1), "INVALID_FIELD",
             "/expansion"),
            (dict(width=10, height=10, density=4, mode="blob"), "INVALID_FIELD", "/mode"),
            (dict(width=10, height=10, density=4, mode="grid", image=b64(b"not a png")),
             "TESSELLATE_IMAGE", "/image"),
            (dict(width=10, height=10, density=4, mode="grid", image="%%%"),
             "TESSELLATE_IMAGE", "/image"),
            (dict(width=10, height=10, density=4, mode="grid",
                  image=b64(png(1, 1, lambda x, y: 0)[:30])), "TESSELLATE_IMAGE", "/image"),
            (dict(width=10, height=10, density=4, mode="grid", polygon=[[0, 0], [1, 1]]),
             "TESSELLATE_POLYGON", "/polygon"),
            (dict(width=10, height=10, density=4, mode="grid",
                  polygon=[[0, 0], [4, 4], [4, 0], [0, 4]]), "TESSELLATE_POLYGON", "/polygon"),
            (dict(width=10, height=10, density=4, mode="grid",
                  polygon=[[100, 100], [101, 100], [101, 101]]), "TESSELLATE_EMPTY", None),
            (dict(width=10, height=10, density=4, mode="grid",
                  image=b64(png(8, 8, lambda x, y: 0))), "TESSELLATE_EMPTY", None),
        ]
        for body, code, pointer in cases:
            r = self.tessellate(**body)
            p = self.assertProblem(r, 422, code)
            if pointer:
                self.assertTrue(p["errors"][0]["pointer"].startswith(pointer), p)
        ok = self.tessellate(width=10, height=10, density=2, mode="grid")
        self.assertEqual(ok.status, 200, ok)
        ok = self.tessellate(width=10, height=10, density=100, mode="grid")
        self.assertEqual(ok.json["triangleCount"], 2 * 100 * 100)

    def test_an_image_past_the_pixel_limit_is_refused_before_decoding(self):
        big = png(1, 1, lambda x, y: 255)
        # the same file claiming 5000 × 5000 pixels (25 M, past maxImagePixels)
        ihdr = struct.pack(">IIBBBBB", 5000, 5000, 8, 4, 0, 0, 0)
        chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(
            ">I", zlib.crc32(b"IHDR" + ihdr) & 0xFFFFFFFF)
        forged = big[:8] + chunk + big[8 + 25:]
        r = self.tessellate(width=10, height=10, density=4, mode="grid", image=b64(forged))
        self.assertProblem(r, 422, "TESSELLATE_IMAGE_TOO_LARGE")
        limits = self.rigd.get("/v1/limits").json
        self.assertEqual(limits["maxImagePixels"], 16777216)

    # ---- layer.mesh.generate ----

    def generate(self, binding, **tess):
        body = dict(width=80, height=80, density=4, mode="grid")
        body.update(tess)
        return {"op": "layer.mesh.generate", "layerId": "m", "binding": binding,
                "tessellate": body}

    def mesh_data(self, kind, **q):
        query = "&".join(f"{k}={v}" for k, v in q.items())
        r = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/{kind}?pageSize=10000&{query}")
        self.assertEqual(r.status, 200, r)
        return r.json

    def test_generate_stores_the_mesh_and_its_uvs_for_every_kind(self):
        want = self.tessellate(width=80, height=80, density=4, mode="grid").json
        for binding in ("mesh", "puppet"):
            r = self.rigd.edit(S, [self.generate(binding)])
            self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/m").json["binding"]["kind"],
                             binding)
            verts = self.mesh_data("vertices")["items"]
            self.assertEqual([{"x": v["x"], "y": v["y"]} for v in verts], want["source"])
            tris = self.mesh_data("triangles")["items"]
            self.assertEqual([t["indices"] for t in tris], want["triangles"])
            uvs = self.mesh_data("uvs")["items"]
            self.assertEqual([[u["u"], u["v"]] for u in uvs], want["uvs"])
            frame = self.rigd.get(f"/v1/shots/{S}/frames/3?layers=m")
            self.assertEqual(frame.status, 200, frame)
        # OBJ carries the uvs: vt lines (v up) and faces naming them
        r = self.rigd.get(f"/v1/shots/{S}/layers/m/frames?from=0&to=0&format=obj")
        self.assertEqual(r.status, 200, r)
        text = r.body.decode()
        vts = [line.split()[1:] for line in text.splitlines() if line.startswith("vt ")]
        self.assertEqual([[float(a), 1 - float(b)] for a, b in vts],
                         [[u, v] for u, v in want["uvs"]])
        faces = [line for line in text.splitlines() if line.startswith("f ")]
        self.assertTrue(faces and all("/" in f for f in faces))

    def test_generate_a_skin_then_auto_weight_it_in_one_batch(self):
        ops = [self.generate("skin", density=6),
               {"op": "layer.skin.joint.add", "layerId": "m",
                "joint": {"jointId": "j0", "layerId": "root", "bind": [1, 0, 0, 1, 0, 0]}},
               {"op": "layer.skin.joint.add", "layerId": "m",
                "joint": {"jointId": "j1", "layerId": "tip", "bind": [1, 0, 0, 1, 0, 40]}},
               {"op": "layer.skin.weights.auto", "layerId": "m", "method": "segment"}]
        r = self.post_ops(ops)
        self.assertEqual(r.status, 201, r)
        receipt = r.json
        self.assertEqual(receipt["ops"][3]["changedVertices"]["count"], 49)
        src = self.mesh_data("vertices")["items"]
        weights = self.mesh_data("weights")["items"]
        for v, item in zip(src, weights):
            # j0's bone runs to its only child joint j1; j1 is a point
            d0 = seg_dist2(v["x"], v["y"], 0, 0, 0, 40)
            d1 = seg_dist2(v["x"], v["y"], 0, 40, 0, 40)
            want = expected_weights([d0, d1])
            got = {0 if i["jointId"] == "j0" else 1: i["weight"] for i in item["influences"]}
            self.assertEqual(set(got), set(want), item)
            for j in want:
                self.assertAlmostEqual(got[j], want[j], places=12)
            self.assertLessEqual(abs(sum(got.values()) - 1), 64 * 2.2e-16)
        self.assertEqual(len(self.mesh_data("uvs")["items"]), 49)
        # the route answers the same lists
        body = {"source": [{"x": v["x"], "y": v["y"]} for v in src],
                "triangles": [t["indices"] for t in self.mesh_data("triangles")["items"]],
                "joints": [{"id": "j0", "bind": [1, 0, 0, 1, 0, 0]},
                           {"id": "j1", "bind": [1, 0, 0, 1, 0, 40], "parent": "j0"}],
                "method": "segment"}
        route = self.rigd.post("/v1/weights/auto", body)
        self.assertEqual(route.status, 200, route)
        self.assertEqual(route.json["weights"], [w["influences"] for w in weights])
        # the column of one joint, for a heatmap
        col = self.mesh_data("weights", jointId="j1")["items"]
        self.assertEqual(len(col), 49)
        for c, item in zip(col, weights):
            want = [i["weight"] for i in item["influences"] if i["jointId"] == "j1"]
            self.assertEqual(c["weight"], want[0] if want else 0)
        bad = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/weights?jointId=nope")
        self.assertProblem(bad, 422, "SKIN_JOINTS")
        bad = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/vertices?jointId=j1")
        self.assertProblem(bad, 400, "INVALID_QUERY")

    def skinned(self):
        self.rigd.edit(S, [
            self.generate("skin", density=4),
            {"op": "layer.skin.joint.add", "layerId": "m",
             "joint": {"jointId": "j0", "layerId": "root", "bind": [1, 0, 0, 1, 0, 0]}},
            {"op": "layer.skin.joint.add", "layerId": "m",
             "joint": {"jointId": "j1", "layerId": "tip", "bind": [1, 0, 0, 1, 0, 40]}},
            {"op": "layer.skin.weights.auto", "layerId": "m", "method": "nearestJoint"}])
        return {i["vertexIndex"]: {x["jointId"]: x["weight"] for x in i["influences"]}
                for i in self.mesh_data("weights")["items"]}

    def test_a_stroke_is_one_receipt_and_one_revert(self):
        before = self.skinned()
        src = self.mesh_data("vertices")["items"]
        dab = {"op": "layer.skin.weights.paint", "layerId": "m", "jointId": "j1",
               "mode": "add", "center": [0, 0], "radius": 25, "strength": 0.5, "feather": 0.5}
        r = self.post_ops([dab, dict(dab, center=[10, 0])])
        self.assertEqual(r.status, 201, r)
        after = {i["vertexIndex"]: {x["jointId"]: x["weight"] for x in i["influences"]}
                 for i in self.mesh_data("weights")["items"]}

        def falloff(d, radius=25, feather=0.5):
            inner = radius * (1 - feather)
            if d <= inner:
                return 1.0
            if d >= radius:
                return 0.0
            t = (d - inner) / (radius - inner)
            return 1 - t * t * (3 - 2 * t)
        for v, p in enumerate(src):  # the two dabs, each by the rule, computed here
            w = dict(before[v])
            for cx in (0, 10):
                s = 0.5 * falloff(math.hypot(p["x"] - cx, p["y"]))
                if s == 0:
                    continue
                new = min(1.0, w.get("j1", 0) + s)
                others = {j: x for j, x in w.items() if j != "j1"}
                rest = sum(others.values())
                if not others:
                    continue
                w = {j: x * (1 - new) / rest for j, x in others.items()}
                w["j1"] = new
                w = {j: x for j, x in w.items() if x > 0}
                total = sum(w.values())
                w = {j: x / total for j, x in w.items()}
            self.assertEqual(set(after[v]), set(w), v)
            for j in w:
                self.assertAlmostEqual(after[v][j], w[j], places=12)
        changed = r.json["ops"][0]["changedVertices"]
        self.assertGreater(changed["count"], 0)
        rev = self.rigd.post(f"/v1/receipts/{r.json['receiptId']}/revert", {})
        self.assertEqual(rev.status, 201, rev)
        again = {i["vertexIndex"]: {x["jointId"]: x["weight"] for x in i["influences"]}
                 for i in self.mesh_data("weights")["items"]}
        self.assertEqual(again, before)

    def test_set_one_weight_and_its_errors(self):
        before = self.skinned()
        v = next(v for v, w in before.items() if len(w) == 2)
        r = self.rigd.edit(S, [{"op": "layer.skin.weights.set", "layerId": "m",
                                "vertexIndex": v, "jointId": "j0", "weight": 0.25}])
        w = {i["vertexIndex"]: {x["jointId"]: x["weight"] for x in i["influences"]}
             for i in self.mesh_data("weights")["items"]}[v]
        self.assertAlmostEqual(w["j0"], 0.25, places=15)
        self.assertAlmostEqual(w["j1"], 0.75, places=15)
        self.assertEqual(r.json["ops"][0]["changedVertices"]["runs"], [v])
        version = self.version()
        errors = [
            ({"vertexIndex": v, "jointId": "nope", "weight": 0.5}, "SKIN_JOINTS"),
            ({"vertexIndex": 10 ** 6, "jointId": "j0", "weight": 0.5}, "SKIN_WEIGHT_VERTEX"),
            ({"vertexIndex": v, "jointId": "j0", "weight": 1.5}, "SKIN_WEIGHT_SET"),
        ]
        for fields, code in errors:
            r = self.post_ops([{"op": "layer.skin.weights.set", "layerId": "m", **fields}])
            body = self.assertProblem(r, 422, code)
            self.assertEqual(body["errors"][0]["opIndex"], 0)
        dab = {"op": "layer.skin.weights.paint", "layerId": "m", "jointId": "j1",
               "mode": "add", "center": [0, 0], "radius": 25, "strength": 0.5, "feather": 0}
        for field, value, code in (("radius", 0, "INVALID_FIELD"),
                                   ("radius", -1, "INVALID_FIELD"),
                                   ("strength", 1.5, "INVALID_FIELD"),
                                   ("feather", -0.1, "INVALID_FIELD"),
                                   ("jointId", "nope", "SKIN_JOINTS"),
                                   ("mode", "blur", "OP_INVALID")):
            r = self.post_ops([dict(dab, **{field: value})])
            self.assertProblem(r, 422, code)
        r = self.post_ops([{"op": "layer.skin.weights.auto", "layerId": "m",
                            "method": "segment", "maxInfluences": 9}])
        self.assertProblem(r, 422, "OP_INVALID")
        r = self.post_ops([self.generate("skin", mode="grid", polygon=[[500, 500], [501, 500],
                                                                       [501, 501]])])
        self.assertProblem(r, 422, "TESSELLATE_EMPTY")
        r = self.post_ops([self.generate("ribbon")])
        self.assertProblem(r, 422, "OP_INVALID")
        self.assertEqual(self.version(), version, "no error changed the shot")

    def test_a_generated_skin_without_weights_fails_final_validation(self):
        r = self.post_ops([self.generate("skin")])
        self.assertEqual(r.status, 422, r)
        self.assertIn(r.json["code"], ("SKIN_WEIGHTS", "SKIN_JOINTS"))
        # every op after it reads a skin of the usual shape: typed errors, never a crash
        add = {"op": "layer.skin.joint.add", "layerId": "m",
               "joint": {"jointId": "a", "layerId": "root", "bind": [1, 0, 0, 1, 0, 0]}}
        after = [
            {"op": "layer.skin.weights.set", "layerId": "m", "vertexIndex": 0, "jointId": "a",
             "weight": 0.5},
            {"op": "layer.skin.bind.capture", "layerId": "m", "frame": 0},
            {"op": "layer.skin.bake", "layerId": "m", "frames": [0]},
            {"op": "layer.skin.joint.remap", "layerId": "m", "jointId": "a", "toLayerId": "tip"},
            {"op": "layer.puppet.pin.put", "layerId": "m", "pin": {"id": "p", "x": 0, "y": 0}},
            self.generate("skin"),
        ]
        for op in after:
            r = self.post_ops([self.generate("skin"), add, op])
            self.assertProblem(r, 422, "SKIN_WEIGHTS")
        # a dab on a vertex without influences gives it the painted joint
        dab = {"op": "layer.skin.weights.paint", "layerId": "m", "jointId": "a", "mode": "add",
               "center": [0, 0], "radius": 1000, "strength": 0.25, "feather": 0}
        r = self.post_ops([self.generate("skin"), add, dab])
        self.assertEqual(r.status, 201, r)
        for item in self.mesh_data("weights")["items"]:
            self.assertEqual(item["influences"], [{"jointId": "a", "weight": 1}])

    def test_definitions_carry_uvs_both_ways(self):
        tri = {"source": [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 0, "y": 10}],
               "triangles": [[0, 1, 2]], "uvs": [[0, 1], [1, 1], [0, 0]]}
        self.rigd.edit(S, [{"op": "layer.mesh", "layerId": "m", "mesh": tri}])
        self.assertEqual([[u["u"], u["v"]] for u in self.mesh_data("uvs")["items"]], tri["uvs"])
        pup = dict(tri, pins=[{"id": "p", "x": 0, "y": 0}])
        self.rigd.edit(S, [{"op": "layer.puppet", "layerId": "m", "puppet": pup}])
        self.assertEqual(len(self.mesh_data("uvs")["items"]), 3)
        skin = dict(tri, joints=[{"id": "a", "bind": [1, 0, 0, 1, 0, 0]}],
                    weights=[[{"jointId": "a", "weight": 1}]] * 3,
                    jointLayers=[{"jointId": "a", "layerId": "root"}])
        self.rigd.edit(S, [{"op": "layer.skin", "layerId": "m", "skin": skin}])
        got = self.rigd.get(f"/v1/shots/{S}/layers/m/skin").json["skin"]
        self.assertEqual(got["uvs"], tri["uvs"])  # GET …/skin gives back what layer.skin took
        del got["uvs"]
        self.rigd.edit(S, [{"op": "layer.skin", "layerId": "m", "skin": got}])
        self.assertEqual(self.mesh_data("uvs")["total"], 0)
        version = self.version()
        for bad in ([[0, 1]], [[0, 1], [1, 1], [0]], [[0, 1], [1, 1], [0, "x"]]):
            r = self.post_ops([{"op": "layer.mesh", "layerId": "m", "mesh": dict(tri, uvs=bad)}])
            self.assertProblem(r, 422, "OP_INVALID")
        self.assertEqual(self.version(), version)
        old = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/uvs?version={version - 2}")
        self.assertEqual(old.json["total"], 3, "an old revision keeps its uvs")
        diff = self.rigd.get(f"/v1/shots/{S}/diff?from={version - 1}&to={version}").json
        parts = diff["layers"][0]["binding"]["parts"]
        self.assertEqual(parts["uvs"]["changedVertices"], [[0, 2]], parts)

    # ---- bones and the one-call rig ----

    def test_bones_suggest_a_vertical_chain_over_a_tall_mesh(self):
        self.rigd.edit(S, [self.generate("mesh", width=20, height=90, density=6)])
        r = self.rigd.edit(S, [{"op": "layer.bones.suggest", "layerId": "m", "bones": 3}])
        listed = r.json["ops"][0]["expandedOps"]
        self.assertEqual([e["op"] for e in listed], ["layer.create"] * 3)
        ids = [e["layerId"] for e in listed]
        self.assertEqual(ids, ["m.bone0", "m.bone1", "m.bone2"])
        layers = {l["layerId"]: l for l in self.rigd.get(f"/v1/shots/{S}").json["layers"]}
        self.assertEqual(layers["m.bone1"]["parentId"], "m.bone0")
        self.assertEqual(layers["m.bone2"]["parentId"], "m.bone1")
        bad = self.post_ops([{"op": "layer.bones.suggest", "layerId": "m", "bones": 3}])
        self.assertProblem(bad, 422, "LAYER_EXISTS")
        long_id = "m" * 60  # its default prefix and a joint's name pass 64 bytes
        self.rigd.edit(S, [{"op": "layer.create", "layerId": long_id, "name": "l",
                            "kind": "mesh"},
                           dict(self.generate("mesh"), layerId=long_id)])
        bad = self.post_ops([{"op": "layer.bones.suggest", "layerId": long_id, "bones": 2}])
        body = self.assertProblem(bad, 422, "OP_INVALID")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/idPrefix")
        for bones in (0, 65, "octopus"):
            bad = self.post_ops([{"op": "layer.bones.suggest", "layerId": "m",
                                  "bones": bones, "idPrefix": "x."}])
            self.assertProblem(bad, 422, "OP_INVALID")

    def test_rig_auto_evaluates_to_the_source_at_the_captured_frame(self):
        def alpha(x, y):
            return 255 if 20 <= x < 44 and 4 <= y < 60 else 0
        op = {"op": "layer.rig.auto", "layerId": "m", "bones": 4, "method": "segment",
              "tessellate": {"width": 64, "height": 64, "density": 12, "mode": "grid",
                             "image": b64(png(64, 64, alpha))}}
        r = self.rigd.edit(S, [op])
        expanded = [e["op"] for e in r.json["ops"][0]["expandedOps"]]
        self.assertEqual(expanded, ["layer.create"] * 4 + ["layer.mesh.generate"]
                         + ["layer.skin.joint.add"] * 4 + ["layer.skin.weights.auto",
                                                            "layer.skin.bind.capture"])
        src = self.mesh_data("vertices")["items"]
        frame = self.rigd.get(f"/v1/shots/{S}/frames/0?layers=m").json
        got = frame["layers"][0]["vertices"] if "layers" in frame else frame["vertices"]
        worst = 0.0
        for v, g in zip(src, got):  # rounding only: a few ulps of the rig's scale (64)
            x, y = (g["x"], g["y"]) if isinstance(g, dict) else g
            worst = max(worst, abs(x - v["x"]), abs(y - v["y"]))
        self.assertLessEqual(worst, 64 * 64 * 2.2e-16, worst)
        self.assertEqual(len(self.mesh_data("uvs")["items"]), len(src))
        self.assertEqual(len(self.mesh_data("joints")["items"]), 4)
        bad = dict(op, layerId="m", bones="biped", idPrefix="b.")
        bad["tessellate"] = dict(op["tessellate"], image=b64(png(8, 8, lambda x, y: 0)))
        self.assertProblem(self.post_ops([bad]), 422, "TESSELLATE_EMPTY")
        biped = dict(op, bones="biped", idPrefix="b.")
        r = self.rigd.edit(S, [biped])
        self.assertGreater(len(self.mesh_data("joints")["items"]), 10)


if __name__ == "__main__":
    main()
