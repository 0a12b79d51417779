""".rig2d.json import and export (issue 26) through the real server and SQLite.

Import: bones become group layers at their bind TRS, the mesh a skinned mesh layer whose
binds are the bones' root-local rest matrices; frames are compared with linear blend
skinning computed here from the seed's rules (skinMatrix = rootLocalNow · inverse(rootLocalBind)).
Version 2 parts, the import report, an import inside a batch, dry runs and idempotency.
Export: the document rig2d_import reads, its report, and the round trip import → export →
import evaluating bit-identically at posed frames. Every bad document is a typed 4xx with
its pointer, changing nothing.
"""
import json
import math

from rigd_harness import Rigd, RigdTestCase, main

S = "s"


def mul(a, b):
    """A·B of [a, b, c, d, e, f] matrices (B applied first)."""
    return [a[0] * b[0] + a[2] * b[1], a[1] * b[0] + a[3] * b[1],
            a[0] * b[2] + a[2] * b[3], a[1] * b[2] + a[3] * b[3],
            a[0] * b[4] + a[2] * b[5] + a[4], a[1] * b[4] + a[3] * b[5] + a[5]]


def inv(m):
    a, b, c, d, e, f = m
    det = a * d - b * c
    return [d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det]


def trs(x, y, rot):
    return [math.cos(rot), math.sin(rot), -math.sin(rot), math.cos(rot), x, y]


def root_local(bones, i, rots=None):
    b = bones[i]
    m = trs(b["x"], b["y"], (rots or {}).get(i, b["rot"]))
    return m if b["parent"] < 0 else mul(root_local(bones, b["parent"], rots), m)


def skin_expected(doc, rots, part=None):
    """The seed's linear blend skinning of part (the document for version 1) with bone
    rotations rots {index: radians}."""
    p = part or doc
    bones = doc["bones"]
    skin = [mul(root_local(bones, i, rots), inv(root_local(bones, i))) for i in range(len(bones))]
    out = []
    for v, (x, y) in enumerate(p["mesh"]["verts"]):
        idx = p["skinIndices"][4 * v:4 * v + 4]
        w = p["skinWeights"][4 * v:4 * v + 4]
        total = sum(w)
        ox = oy = 0.0
        for b, wt in zip(idx, w):
            m = skin[b]
            ox += wt / total * (m[0] * x + m[2] * y + m[4])
            oy += wt / total * (m[1] * x + m[3] * y + m[5])
        out.append((ox, oy))
    return out


def grid(cols, rows, w, h, x0=0.0, y0=0.0):
    verts = [[x0 + w * i / cols, y0 + h * j / rows] for j in range(rows + 1) for i in range(cols + 1)]
    uvs = [[i / cols, j / rows] for j in range(rows + 1) for i in range(cols + 1)]
    tris = []
    for j in range(rows):
        for i in range(cols):
            a = j * (cols + 1) + i
            tris += [a, a + cols + 1, a + 1, a + 1, a + cols + 1, a + cols + 2]
    return {"verts": verts, "uvs": uvs, "tris": tris}


def arm(version=1):
    """A 3-bone arm down a 64 × 192 strip (texture space, +y down), weights split
    between neighbouring bones by height, four slots a vertex (unused ones 0)."""
    bones = [{"name": "base", "parent": -1, "x": 0, "y": 0, "rot": 0},
             {"name": "mid", "parent": 0, "x": 0, "y": 64, "rot": 0.25},
             {"name": "tip", "parent": 1, "x": 0, "y": 64, "rot": -0.25}]
    mesh = grid(2, 6, 64, 192, -32, 0)
    idx, wts = [], []
    for x, y in mesh["verts"]:
        t = y / 64.0
        lo = min(int(t), 2)
        f = t - lo
        if lo >= 2 or f == 0:
            idx += [min(lo, 2), 0, 0, 0]
            wts += [1, 0, 0, 0]
        else:
            idx += [lo, lo + 1, 0, 0]
            wts += [1 - f, f, 0, 0]
    part = {"mesh": mesh, "skinIndices": idx, "skinWeights": wts}
    if version == 1:
        return {"id": "guid-1", "version": 1, "sprite": "sprite-guid", "bones": bones, **part}
    other = {"name": "sleeve", "mesh": grid(1, 2, 20, 60, -10, 70),
             "skinIndices": [1, 0, 0, 0] * 6, "skinWeights": [1, 0, 0, 0] * 6}
    return {"version": 2, "bones": bones,
            "parts": [{"name": "body", "sprite": "a", **part}, other]}


class Rig2dCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=4)

    def version(self, shot=S):
        return self.rigd.get(f"/v1/shots/{shot}").json["version"]

    def import_doc(self, doc, query="", shot=S, **kw):
        return self.rigd.post(f"/v1/shots/{shot}/import?format=rig2d{query}", doc, **kw)

    def frame(self, layer, f, shot=S):
        r = self.rigd.get(f"/v1/shots/{shot}/frames/{f}?layers={layer}")
        self.assertEqual(r.status, 200, r)
        return [tuple(p) for p in r.json["layers"][0]["vertices"]]

    def pose(self, rots, prefix="", shot=S, frame=1):
        """Keys each bone's rotation (radians) at frame."""
        ops = [{"op": "layer.key.put", "layerId": prefix + name, "channel": "rotation",
                "keys": [{"frame": frame, "value": math.degrees(r)}]}
               for name, r in rots.items()]
        self.rigd.edit(shot, ops)


class Rig2dImport(Rig2dCase):
    def test_version_1_becomes_layers_and_a_skin_that_skins_as_the_seed(self):
        doc = arm()
        r = self.import_doc(doc)
        self.assertEqual(r.status, 201, r)
        entry = r.json["ops"][0]
        self.assertEqual(entry["op"], "shot.import")
        self.assertEqual([(o["op"], o.get("layerId")) for o in entry["expandedOps"]],
                         [("layer.create", "base"), ("layer.create", "mid"),
                          ("layer.create", "tip"), ("layer.create", "mesh"),
                          ("layer.skin", "mesh"), ("layer.skin.bind.capture", "mesh")])
        report = entry["importReport"]
        self.assertEqual(report["format"], "rig2d")
        self.assertEqual([(m["kind"], m["source"], m["layerId"]) for m in report["mapped"]],
                         [("bone", "/bones/0", "base"), ("bone", "/bones/1", "mid"),
                          ("bone", "/bones/2", "tip"), ("mesh", "/mesh", "mesh")])
        self.assertEqual([u["feature"] for u in report["unsupported"]], ["sprite"])
        self.assertEqual(report["adjusted"], [])
        mid = self.rigd.get(f"/v1/shots/{S}/layers/mid").json
        self.assertEqual(mid["parentId"], "base")
        self.assertEqual(mid["transform"]["position"], [0, 64])
        self.assertAlmostEqual(mid["transform"]["rotation"], math.degrees(0.25), places=12)
        skin = self.rigd.get(f"/v1/shots/{S}/layers/mesh/skin").json["skin"]
        self.assertEqual(len(skin["source"]), len(doc["mesh"]["verts"]))
        self.assertEqual(skin["uvs"], doc["mesh"]["uvs"])
        for j in skin["joints"]:  # binds: root-local rest matrices
            i = ["base", "mid", "tip"].index(j["id"])
            for got, want in zip(j["bind"], root_local(doc["bones"], i)):
                self.assertAlmostEqual(got, want, places=12)
        # at rest the mesh is its source; posed, the seed's LBS
        for (x, y), v in zip(self.frame("mesh", 0), doc["mesh"]["verts"]):
            self.assertAlmostEqual(x, v[0], places=9)
            self.assertAlmostEqual(y, v[1], places=9)
        rots = {1: 0.25 + 0.6, 2: -0.25 - 0.4}
        self.pose({"mid": rots[1], "tip": rots[2]})
        for got, want in zip(self.frame("mesh", 1), skin_expected(doc, rots)):
            self.assertAlmostEqual(got[0], want[0], places=9)
            self.assertAlmostEqual(got[1], want[1], places=9)

    def test_version_2_parts_share_the_skeleton_in_part_order(self):
        doc = arm(2)
        r = self.import_doc(doc, "&idPrefix=a.")
        self.assertEqual(r.status, 201, r)
        layers = [l["layerId"] for l in self.rigd.get(f"/v1/shots/{S}").json["layers"]]
        self.assertEqual(layers, ["a.base", "a.mid", "a.tip", "a.body", "a.sleeve"])
        report = r.json["ops"][0]["importReport"]
        self.assertEqual([m["source"] for m in report["mapped"] if m["kind"] == "mesh"],
                         ["/parts/0/mesh", "/parts/1/mesh"])
        sleeve = self.rigd.get(f"/v1/shots/{S}/layers/a.sleeve/skin").json["skin"]
        self.assertEqual([j["id"] for j in sleeve["joints"]], ["mid"])  # the bones it weights
        self.assertEqual(sleeve["jointLayers"], [{"jointId": "mid", "layerId": "a.mid"}])
        rots = {1: 1.0}
        self.pose({"a.mid": 1.0})
        for name, part in (("a.body", doc["parts"][0]), ("a.sleeve", doc["parts"][1])):
            for got, want in zip(self.frame(name, 1), skin_expected(doc, rots, part)):
                self.assertAlmostEqual(got[0], want[0], places=9)
                self.assertAlmostEqual(got[1], want[1], places=9)

    def test_bones_in_any_order_and_under_a_parent_layer(self):
        doc = arm()
        doc["bones"] = [doc["bones"][2], doc["bones"][0], doc["bones"][1]]
        doc["bones"][0]["parent"], doc["bones"][2]["parent"] = 2, 1  # tip→mid, mid→base
        doc["skinIndices"] = [{0: 1, 1: 2, 2: 0}[b] for b in doc["skinIndices"]]
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "rig", "name": "rig",
                            "kind": "group", "transform": {"position": [5, 5], "rotation": 30}}])
        r = self.import_doc(doc, "&parentId=rig")
        self.assertEqual(r.status, 201, r)
        self.assertEqual([o.get("layerId") for o in r.json["ops"][0]["expandedOps"][:3]],
                         ["base", "mid", "tip"])  # parents first
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/base").json["parentId"], "rig")
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/mesh").json["parentId"], "rig")
        for (x, y), v in zip(self.frame("mesh", 0), doc["mesh"]["verts"]):
            self.assertAlmostEqual(x, v[0], places=9)  # the shared parent cancels
            self.assertAlmostEqual(y, v[1], places=9)

    def test_weights_near_one_are_renormalised_and_repeats_added_and_reported(self):
        doc = arm()
        doc["skinWeights"][0:4] = [0.9996, 0, 0, 0]      # within 1e-3: renormalised
        doc["skinIndices"][4:8] = [0, 0, 0, 0]
        doc["skinWeights"][4:8] = [0.5, 0.5, 0, 0]        # a repeated bone: added
        r = self.import_doc(doc)
        self.assertEqual(r.status, 201, r)
        adjusted = r.json["ops"][0]["importReport"]["adjusted"]
        self.assertEqual([(a["feature"], a["source"]) for a in adjusted],
                         [("weights renormalised", "/skinWeights"),
                          ("repeated bone", "/skinWeights")])
        w = self.rigd.get(f"/v1/shots/{S}/layers/mesh/mesh-data/weights?pageSize=2").json
        self.assertEqual(w["items"][0]["influences"], [{"jointId": "base", "weight": 1}])
        self.assertEqual(w["items"][1]["influences"], [{"jointId": "base", "weight": 1}])

    def test_an_import_inside_a_batch_a_dry_run_and_an_idempotent_replay(self):
        doc = arm()
        ops = [{"op": "shot.import", "format": "rig2d", "document": doc, "idPrefix": "x."},
               {"op": "layer.pose", "layerId": "x.mid", "transform": {"rotation": 40}}]
        dry = self.rigd.post(f"/v1/shots/{S}/edits?dryRun=true", {"ops": ops})
        self.assertEqual(dry.status, 200, dry)
        self.assertEqual(dry.json["receiptId"], None)
        self.assertEqual(self.version(), 0)
        r = self.rigd.edit(S, ops)
        self.assertEqual(r.json["changedLayers"], ["x.base", "x.mid", "x.tip", "x.mesh"])
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/x.mid").json["transform"]["rotation"], 40)
        got = self.rigd.get(f"/v1/receipts/{r.json['receiptId']}").json
        self.assertEqual(got["ops"][0]["importReport"], r.json["ops"][0]["importReport"])
        hdr = {"Idempotency-Key": "import-1"}
        a = self.import_doc(doc, "&idPrefix=y.", headers=hdr)
        b = self.import_doc(doc, "&idPrefix=y.", headers=hdr)
        self.assertEqual(a.status, 201, a)
        self.assertEqual(b.status, 201, b)
        self.assertEqual(b.header("Idempotency-Replayed"), "true")
        self.assertEqual(a.json["receiptId"], b.json["receiptId"])
        self.assertEqual(self.version(), 2)
        stale = self.import_doc(doc, "&idPrefix=z.&expectedVersion=1")
        self.assertProblem(stale, 409, "VERSION_CONFLICT")
        checked = self.import_doc(doc, "&idPrefix=z.&checkFrames=true")
        self.assertEqual(checked.status, 201, checked)

    def test_an_import_as_a_plan_validated_applied_and_reverted(self):
        op = {"op": "shot.import", "format": "rig2d", "document": arm(), "idPrefix": "p."}
        plan = self.rigd.post(f"/v1/shots/{S}/plans", {"ops": [op]})
        self.assertEqual(plan.status, 201, plan)
        pid = plan.json["planId"]
        checked = self.rigd.post(f"/v1/plans/{pid}/validate").json
        self.assertTrue(checked["ok"], checked)
        report = checked["receipt"]["ops"][0]["importReport"]
        self.assertEqual(len(report["mapped"]), 4)
        self.assertEqual(self.version(), 0)
        applied = self.rigd.post(f"/v1/plans/{pid}/apply",
                                 {"planVersion": plan.json["planVersion"]})
        self.assertEqual(applied.status, 201, applied)
        self.assertEqual(self.version(), 1)
        undo = self.rigd.post(f"/v1/receipts/{applied.json['receiptId']}/revert")
        self.assertEqual(undo.status, 201, undo)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}").json["layers"], [])

    def test_bad_documents_are_typed_errors_pointing_into_them_and_change_nothing(self):
        base = arm()

        def broken(change):
            d = json.loads(json.dumps(base))
            change(d)
            return d

        cases = [
            ("IMPORT_VERSION", "/version", broken(lambda d: d.pop("version"))),
            ("IMPORT_VERSION", "/version", broken(lambda d: d.update(version=3))),
            ("IMPORT_INVALID", "/bones", broken(lambda d: d.update(bones={}))),
            ("IMPORT_INVALID", "/bones/1/parent", broken(lambda d: d["bones"][1].update(parent=7))),
            ("IMPORT_INVALID", "/bones/0/parent",
             broken(lambda d: d["bones"][0].update(parent=2))),  # base→tip→mid→base
            ("IMPORT_INVALID", "/bones/1/x", broken(lambda d: d["bones"][1].update(x="1"))),
            ("IMPORT_INVALID", "/bones/2/name", broken(lambda d: d["bones"][2].update(name="mid"))),
            ("IMPORT_INVALID", "/mesh/tris/5", broken(lambda d: d["mesh"]["tris"].__setitem__(5, 99))),
            ("IMPORT_INVALID", "/mesh/tris", broken(lambda d: d["mesh"]["tris"].pop())),
            ("IMPORT_INVALID", "/mesh/uvs", broken(lambda d: d["mesh"]["uvs"].pop())),
            ("IMPORT_INVALID", "/mesh/verts/2", broken(lambda d: d["mesh"]["verts"].__setitem__(2, [1]))),
            ("IMPORT_INVALID", "/skinWeights/8",
             broken(lambda d: d["skinWeights"].__setitem__(8, 0.5))),   # sums to 0.5
            ("IMPORT_INVALID", "/skinWeights/1",
             broken(lambda d: d["skinWeights"].__setitem__(1, -0.1))),
            ("IMPORT_INVALID", "/skinIndices/0",
             broken(lambda d: d["skinIndices"].__setitem__(0, 3))),
            ("IMPORT_INVALID", "/skinIndices", broken(lambda d: d["skinIndices"].pop())),
            ("IMPORT_INVALID", "/parts", broken(lambda d: d.update(version=2))),
        ]
        for code, pointer, doc in cases:
            with self.subTest(code=code, pointer=pointer):
                body = self.assertProblem(self.import_doc(doc), 422, code)
                self.assertEqual(body["errors"][0]["pointer"], "/ops/0/document" + pointer, body)
                self.assertEqual(body["errors"][0]["opIndex"], 0)
        # a degenerate triangle fails the expanded layer.skin, pointed at the mesh
        flat = broken(lambda d: d["mesh"]["verts"].__setitem__(1, [-32, 0]))
        body = self.assertProblem(self.import_doc(flat), 422, "MESH_DEGENERATE")
        err = body["errors"][0]
        self.assertEqual(err["pointer"], "/ops/0/document/mesh")
        self.assertEqual((err["expandedOp"], err["expandedOpName"]), (4, "layer.skin"))
        # layer ids already taken: the expanded layer.create, pointed at its bone
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "mid", "name": "m", "kind": "group"}])
        body = self.assertProblem(self.import_doc(base), 422, "LAYER_EXISTS")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/document/bones/1")
        self.assertEqual(self.version(), 1)
        # the request itself
        self.assertProblem(self.rigd.post(f"/v1/shots/{S}/import?format=rig2d", raw=b"{nope"),
                           400, "MALFORMED_JSON")
        self.assertProblem(self.rigd.post(f"/v1/shots/{S}/import?format=rig2d",
                                          raw=b'{"version": NaN}'), 400, "MALFORMED_JSON")
        body = self.assertProblem(self.rigd.post(f"/v1/shots/{S}/import?format=fbx", base),
                                  400, "INVALID_QUERY")
        self.assertIn("rig2d", body["validFormats"])
        self.assertProblem(self.rigd.post(f"/v1/shots/{S}/import", base), 400, "INVALID_QUERY")
        self.assertProblem(self.import_doc(base, "&idPrefix=a%20b"), 422, "OP_INVALID")
        self.assertProblem(self.import_doc(base, "&parentId=ghost"), 422, "LAYER_NOT_FOUND")
        self.assertProblem(self.import_doc(base, "&lockId=k"), 400, "INVALID_QUERY")
        self.assertProblem(self.rigd.post(f"/v1/shots/{S}/import?format=rig2d", [1]),
                           400, "MALFORMED_JSON")  # the document must be an object
        body = self.assertProblem(self.rigd.post(f"/v1/shots/{S}/edits", {"ops": [
            {"op": "shot.import", "format": "rig2d", "document": [1]}]}), 422, "OP_INVALID")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/document")
        body = self.assertProblem(self.rigd.post(f"/v1/shots/{S}/edits", {"ops": [
            {"op": "shot.import", "format": "rig2d", "document": base, "options": {"x": 1}}]}),
            422, "OP_INVALID")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/options/x")
        self.assertProblem(self.rigd.post("/v1/shots/nope/import?format=rig2d", base),
                           404, "NOT_FOUND")
        self.assertEqual(self.version(), 1)


class Rig2dBodyLimit(RigdTestCase):
    server_args = ("--max-body", "4096")

    def test_a_document_over_the_body_limit_is_413(self):
        self.rigd.make_shot("p", S)
        doc = arm()
        doc["sprite"] = "x" * 4096  # a member the importer does not read
        self.assertGreater(len(json.dumps(doc)), 4096)
        self.assertProblem(self.rigd.post(f"/v1/shots/{S}/import?format=rig2d", doc),
                           413, "BODY_TOO_LARGE")
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}").json["version"], 0)


class Rig2dExport(Rig2dCase):
    def export(self, query="", shot=S):
        r = self.rigd.get(f"/v1/shots/{shot}/export?format=rig2d{query}")
        self.assertEqual(r.status, 200, r)
        return r

    def test_round_trip_import_export_import_is_bit_identical(self):
        for version in (1, 2):
            with self.subTest(version=version):
                shot_a, shot_b = f"a{version}", f"b{version}"
                self.rigd.make_shot("p", shot_a, frameStart=0, frameEnd=4)
                self.rigd.make_shot("p", shot_b, frameStart=0, frameEnd=4)
                self.assertEqual(self.import_doc(arm(version), shot=shot_a).status, 201)
                exported = self.export(shot=shot_a)
                self.assertEqual(exported.header("X-Rigd-Export-Unsupported"), "0")
                doc = exported.json
                self.assertEqual(doc["version"], version)
                self.assertEqual(self.import_doc(doc, shot=shot_b).status, 201)
                self.assertEqual(self.export(shot=shot_b).body, exported.body)
                rots = {"mid": 1.1, "tip": -0.7, "base": 0.2}
                for shot in (shot_a, shot_b):
                    self.pose(rots, shot=shot)
                meshes = ["mesh"] if version == 1 else ["body", "sleeve"]
                for m in meshes:
                    for f in (0, 0.5, 1, 3):
                        a = self.rigd.get(f"/v1/shots/{shot_a}/frames/{f}?layers={m}")
                        b = self.rigd.get(f"/v1/shots/{shot_b}/frames/{f}?layers={m}")
                        self.assertEqual(json.dumps(a.json["layers"]),
                                         json.dumps(b.json["layers"]))  # shortest round-trip
                        fa = self.rigd.get(f"/v1/shots/{shot_a}/frames/{f}?layers={m}&format=f32")
                        fb = self.rigd.get(f"/v1/shots/{shot_b}/frames/{f}?layers={m}&format=f32")
                        self.assertEqual(fa.body, fb.body)

    def test_what_rig2d_cannot_say_is_reported_and_written_as_close_as_it_can(self):
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "root", "name": "r", "kind": "group",
             "transform": {"scale": [2, 2]}},
            {"op": "layer.create", "layerId": "b1", "name": "b1", "kind": "group",
             "parentId": "root", "transform": {"position": [10, 0]}},
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh",
             "transform": {"position": [1, 0]}},
            {"op": "layer.key.put", "layerId": "b1", "channel": "rotation",
             "keys": [{"frame": 0, "value": 0}, {"frame": 4, "value": 90}]},
            {"op": "layer.skin", "layerId": "m", "skin": {
                "source": [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 0, "y": 10}],
                "triangles": [[0, 1, 2]],
                "joints": [{"id": f"j{k}", "bind": [1, 0, 0, 1, k, 0]} for k in range(6)],
                "weights": [[{"jointId": f"j{k}", "weight": w} for k, w in
                             enumerate([0.3, 0.25, 0.2, 0.1, 0.1, 0.05])]] +
                           [[{"jointId": "j0", "weight": 1}]] * 2,
                "jointLayers": [{"jointId": f"j{k}", "layerId": "b1" if k % 2 else "root"}
                                for k in range(6)]}},
            {"op": "constraint.put", "constraintId": "ik", "chain": ["b1"], "target": "root",
             "tipLength": 1}])
        r = self.export("&report=true")
        self.assertEqual(r.json["shotVersion"], 1)
        features = sorted({(u["feature"], u.get("layerId")) for u in r.json["unsupported"]})
        self.assertEqual(features, [("bind", "m"), ("constraint", None), ("influences", "m"),
                                    ("keys", "b1"), ("mesh layer transform", "m"),
                                    ("scale or pivot", "root"), ("uvs", "m")])
        doc = self.export().json
        self.assertEqual([b["name"] for b in doc["bones"]], ["root", "b1"])
        self.assertEqual(doc["bones"][1]["parent"], 0)
        self.assertEqual(doc["skinIndices"][:4], [0, 1, 0, 1])  # the 4 largest: j0 j1 j2 j3
        self.assertAlmostEqual(sum(doc["skinWeights"][:4]), 1, places=15)
        self.assertAlmostEqual(doc["skinWeights"][0], 0.3 / 0.85, places=15)
        self.assertNotIn("uvs", doc["mesh"])

    def test_export_reads_a_version_and_refuses_bad_queries(self):
        self.assertEqual(self.import_doc(arm()).status, 201)
        self.rigd.edit(S, [{"op": "layer.delete", "layerId": "tip"},
                           {"op": "layer.skin", "layerId": "mesh", "skin": None}])
        now = self.export()
        self.assertEqual([b["name"] for b in now.json["bones"]], ["base", "mid"])
        self.assertNotIn("mesh", now.json)
        old = self.export("&version=1")
        self.assertEqual(old.header("ETag"), '"1"')
        self.assertEqual([b["name"] for b in old.json["bones"]], ["base", "mid", "tip"])
        self.assertEqual(len(old.json["mesh"]["verts"]), 21)
        self.assertProblem(self.rigd.get(f"/v1/shots/{S}/export?format=obj"), 400,
                           "INVALID_QUERY")
        self.assertProblem(self.rigd.get(f"/v1/shots/{S}/export"), 400, "INVALID_QUERY")
        self.assertProblem(self.rigd.get(f"/v1/shots/{S}/export?format=rig2d&report=yes"),
                           400, "INVALID_QUERY")
        self.assertProblem(self.rigd.get(f"/v1/shots/{S}/export?format=rig2d&version=9"),
                           404, "NOT_FOUND")
        self.assertProblem(self.rigd.get("/v1/shots/nope/export?format=rig2d"), 404,
                           "NOT_FOUND")


if __name__ == "__main__":
    main()
