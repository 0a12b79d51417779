"""The clients' part of issue 25 (item 6), against the real server: `rigctl tessellate`
(stateless, from a polygon file in both shapes and from a PNG drawn here, printing exactly
what a direct POST /v1/tessellate of the same body answers; with --shot, one
layer.mesh.generate whose uvs `mesh-data --kind uvs` prints), `rigctl weights
auto/paint/set` (each changing what `mesh-data --kind weights` prints, as the same op sent
to the API does; --dry-run changing nothing), `rigctl rig auto` from a PNG (the receipt with
its expandedOps, the layer then skinned to the new bones, the rectangle the PNG's size),
`rigctl bones suggest`; every usage error (exit 2, stderr, nothing sent) and the server's
problems (exit 1, the code named, nothing changed); the choices against openapi.yaml.

The binaries are found next to the server's build: <build>/clients/ for
RIGD_BIN=<build>/server/rigd.
"""
import base64
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest
import zlib

from rigd_harness import RIGD_BIN, ROOT, RigdTestCase, main

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")
MESH_DATA = os.path.join(BUILD, "clients", "mesh-data")
S = "s"
L_SHAPE = [[-30, -45], [10, -45], [10, 20], [45, 20], [45, 45], [-30, 45]]
HOLE = [[-20, -30], [0, -30], [0, -10], [-20, -10]]


def png(width, height, alpha):
    """A grayscale+alpha PNG, 8 bits, alpha(x, y) per pixel (row 0 the top), standard
    library only (as tests/e2e/test_authoring.py draws its images)."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (255, alpha(x, y)))
                    for y in range(height))

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 4, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def disc(x, y):
    return 255 if (x - 30.5) ** 2 + (y - 24.5) ** 2 < 15 ** 2 else 0


def card(x, y):
    return 255 if 8 <= x < 24 and 4 <= y < 60 else 0


def b64(data):
    return base64.b64encode(data).decode()


def kebab(word):
    return "".join("-" + c.lower() if c.isupper() else c for c in word)


def run(argv, input=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("RIGD_")}
    return subprocess.run(argv, capture_output=True, text=True, env=e, input=input, timeout=120)


@unittest.skipUnless(os.access(RIGCTL, os.X_OK) and os.access(MESH_DATA, os.X_OK),
                     "clients not built")
class AuthoringCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.url = f"http://127.0.0.1:{self.rigd.port}"
        self.tmp = tempfile.mkdtemp(prefix="rigd-e2e-authoring-")
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=10)
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"},
            {"op": "layer.create", "layerId": "root", "name": "root", "kind": "group"},
            {"op": "layer.create", "layerId": "tip", "name": "tip", "kind": "group",
             "parentId": "root", "transform": {"position": [0, 40]}}])

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        super().tearDown()

    # ---- helpers ----

    def file(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    def rigctl(self, *args, actor=None):
        extra = ["--actor", actor] if actor else []
        return run([RIGCTL, "--url", self.url, *extra, *args])

    def mesh_data(self, *args):
        return run([MESH_DATA, "--url", self.url, *args])

    def ok(self, p):
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def receipt(self, *args, **kw):
        return json.loads(self.ok(self.rigctl(*args, "--format", "json", **kw)))

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def tessellate_api(self, **body):
        r = self.rigd.post("/v1/tessellate", body)
        self.assertEqual(r.status, 200, r)
        return r.json

    def api_items(self, kind, layer="m"):
        r = self.rigd.get(f"/v1/shots/{S}/layers/{layer}/mesh-data/{kind}?pageSize=10000")
        self.assertEqual(r.status, 200, r)
        return r.json["items"]

    def printed_weights(self):
        """What `mesh-data --kind weights --format csv` prints, as rows."""
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "weights", "--all",
                                     "--format", "csv"))
        return list(csv.reader(io.StringIO(out)))[1:]

    def weights(self):
        return {i["vertexIndex"]: {x["jointId"]: x["weight"] for x in i["influences"]}
                for i in self.api_items("weights")}

    def refused(self, p, code, status=422):
        """A problem printed as rigctl prints problems: exit 1, nothing on stdout."""
        self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
        self.assertIn(f"rigctl: {code} (HTTP {status}, ", p.stderr)
        self.assertIn(f"how to fix it: GET /v1/errors/{code}", p.stderr)
        return p.stderr

    def usage(self, p, message):
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertIn(message, p.stderr)
        self.assertIn("--help", p.stderr)

    @staticmethod
    def paint(**change):
        """`weights paint` of layer m with these options changed (None: left out)."""
        opts = {"joint": "j1", "mode": "add", "center": "0,0", "radius": "25",
                "strength": "0.5"}
        opts.update(change)
        argv = ["weights", "paint", "--shot", S, "--layer", "m"]
        for k, v in opts.items():
            if v is not None:
                argv += [f"--{k}", v]
        return argv

    def skinned(self):
        """Layer m skinned on a generated 80 × 80 grid to j0 (root) and j1 (tip)."""
        self.rigd.edit(S, [
            {"op": "layer.mesh.generate", "layerId": "m", "binding": "skin",
             "tessellate": {"width": 80, "height": 80, "density": 4, "mode": "grid"}},
            {"op": "layer.skin.joint.add", "layerId": "m",
             "joint": {"jointId": "j0", "layerId": "root", "bind": [1, 0, 0, 1, 0, 0]}},
            {"op": "layer.skin.joint.add", "layerId": "m",
             "joint": {"jointId": "j1", "layerId": "tip", "bind": [1, 0, 0, 1, 0, 40]}},
            {"op": "layer.skin.weights.auto", "layerId": "m", "method": "nearestJoint"}])
        return self.weights()


class Tessellate(AuthoringCase):
    def test_a_polygon_file_prints_what_the_route_answers(self):
        ring = self.file("l.json", json.dumps(L_SHAPE))
        both = self.file("lh.json", json.dumps({"polygon": L_SHAPE, "holes": [HOLE]}))
        cases = [
            ([ring], dict(polygon=L_SHAPE)),
            ([both], dict(polygon=L_SHAPE, holes=[HOLE])),
            ([ring, "--mode", "silhouette", "--expansion", "2", "--pivot", "0.25,0.75"],
             dict(polygon=L_SHAPE, mode="silhouette", expansion=2,
                  pivot={"x": 0.25, "y": 0.75})),
        ]
        for extra, body in cases:
            want = self.tessellate_api(**dict(dict(width=100, height=100, density=10,
                                                   mode="grid"), **body))
            for fmt in ("json", "ndjson"):
                with self.subTest(args=extra, format=fmt):
                    out = self.ok(self.rigctl("tessellate", "--width", "100", "--height", "100",
                                              "--density", "10", "--polygon", *extra,
                                              "--format", fmt))
                    self.assertEqual(out.count("\n"), 1, "one JSON line")
                    self.assertEqual(json.loads(out), want)
        # the hole is there: it changes a silhouette
        out = self.ok(self.rigctl("tessellate", "--width", "100", "--height", "100",
                                  "--density", "10", "--polygon", both, "--mode", "silhouette"))
        self.assertNotEqual(json.loads(out), self.tessellate_api(
            width=100, height=100, density=10, mode="silhouette", polygon=L_SHAPE))
        # a table counts
        want = self.tessellate_api(width=100, height=100, density=10, mode="grid",
                                   polygon=L_SHAPE)
        out = self.ok(self.rigctl("tessellate", "--width", "100", "--height", "100",
                                  "--density", "10", "--polygon", ring, "--format", "table"))
        self.assertIn(f"vertices   {want['vertexCount']}\n", out)
        self.assertIn(f"triangles  {want['triangleCount']}\n", out)
        # and the polygon can come on stdin
        p = run([RIGCTL, "--url", self.url, "tessellate", "--width", "100", "--height", "100",
                 "--density", "10", "--polygon", "-"], input=json.dumps(L_SHAPE))
        self.assertEqual(json.loads(self.ok(p)), want)
        self.assertEqual(self.version(), 1, "nothing stored")

    def test_a_png_file_is_sent_base64_and_prints_what_the_route_answers(self):
        path = self.file("disc.png", png(60, 60, disc))
        for extra, body in (([], {}), (["--alpha-threshold", "200"], {"alphaThreshold": 200}),
                            (["--mode", "silhouette"], {"mode": "silhouette"})):
            with self.subTest(args=extra):
                want = self.tessellate_api(**dict(dict(width=120, height=120, density=7,
                                                       mode="grid",
                                                       image=b64(png(60, 60, disc))), **body))
                out = self.ok(self.rigctl("tessellate", "--width", "120", "--height", "120",
                                          "--density", "7", "--image", path, *extra))
                self.assertEqual(json.loads(out), want)
        # files of every length modulo 3: the base64 padding the server decodes
        seen = set()
        for w in range(3, 40):
            data = png(w, 5, lambda x, y: 255)
            if len(data) % 3 in seen:
                continue
            seen.add(len(data) % 3)
            want = self.tessellate_api(width=10, height=10, density=3, mode="grid",
                                       image=b64(data))
            out = self.ok(self.rigctl("tessellate", "--width", "10", "--height", "10",
                                      "--density", "3", "--image",
                                      self.file(f"w{w}.png", data)))
            self.assertEqual(json.loads(out), want, f"{len(data)} bytes")
        self.assertEqual(seen, {0, 1, 2})

    def test_with_shot_it_installs_the_mesh_and_mesh_data_prints_the_uvs(self):
        want = self.tessellate_api(width=80, height=40, density=4, mode="grid")
        r = self.receipt("tessellate", "--width", "80", "--height", "40", "--density", "4",
                         "--shot", S, "--layer", "m", "--binding", "mesh")
        self.assertEqual([(o["op"], o["layerId"]) for o in r["ops"]],
                         [("layer.mesh.generate", "m")])
        self.assertEqual((r["fromVersion"], r["toVersion"]), (1, 2))
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "uvs", "--all",
                                     "--format", "ndjson"))
        items = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([[i["u"], i["v"]] for i in items], want["uvs"])
        self.assertEqual([i["vertexIndex"] for i in items], list(range(len(want["uvs"]))))
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "uvs", "--format",
                                     "csv"))
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], ["vertexIndex", "u", "v"])
        self.assertEqual([[float(r[1]), float(r[2])] for r in rows[1:]], want["uvs"])
        self.assertEqual([{"x": v["x"], "y": v["y"]} for v in self.api_items("vertices")],
                         want["source"])
        # a table receipt; a dry run writes nothing
        out = self.ok(self.rigctl("tessellate", "--width", "80", "--height", "40", "--density",
                                  "6", "--shot", S, "--layer", "m", "--binding", "puppet",
                                  "--dry-run", "--format", "table"))
        self.assertTrue(out.startswith("dry run: the batch is valid; nothing was written\n"),
                        out)
        self.assertRegex(out, r"ops        0  layer\.mesh\.generate +m\n")
        self.assertEqual(self.version(), 2)
        self.assertEqual(len(self.api_items("uvs")), len(want["uvs"]))
        # --expected-version and the idempotency key apply
        err = self.refused(self.rigctl("tessellate", "--width", "8", "--height", "8",
                                       "--density", "2", "--shot", S, "--layer", "m",
                                       "--binding", "mesh", "--expected-version", "1"),
                           "VERSION_CONFLICT", 409)
        self.assertIn("currentVersion: 2", err)
        args = ("tessellate", "--width", "8", "--height", "8", "--density", "2", "--shot", S,
                "--layer", "m", "--binding", "mesh", "--idempotency-key", "t-1")
        first, again = self.receipt(*args), self.receipt(*args)
        self.assertEqual(again["receiptId"], first["receiptId"])
        self.assertEqual(self.version(), 3)

    def test_a_new_skin_alone_fails_final_validation(self):
        p = self.rigctl("tessellate", "--width", "8", "--height", "8", "--density", "2",
                        "--shot", S, "--layer", "m", "--binding", "skin")
        self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
        self.assertRegex(p.stderr, r"rigctl: SKIN_(WEIGHTS|JOINTS) \(HTTP 422")
        self.assertEqual(self.version(), 1)


class Weights(AuthoringCase):
    def test_weights_auto_rewrites_the_weights(self):
        before = self.skinned()
        printed = self.printed_weights()
        version = self.version()
        r = self.receipt("weights", "auto", "--shot", S, "--layer", "m", "--method", "segment",
                         "--dry-run")
        self.assertTrue(r["dryRun"])
        self.assertEqual((self.version(), self.printed_weights()), (version, printed))
        r = self.receipt("weights", "auto", "--shot", S, "--layer", "m", "--method", "segment",
                         "--max-influences", "1")
        self.assertEqual(r["ops"][0]["op"], "layer.skin.weights.auto")
        self.assertGreater(r["ops"][0]["changedVertices"]["count"], 0)
        self.assertNotEqual(self.printed_weights(), printed)
        self.assertTrue(all(len(w) == 1 for w in self.weights().values()))
        # the same op from the API gives the same weights; kebab or camelCase alike
        for method in ("nearest-joint", "nearestJoint"):
            with self.subTest(method=method):
                self.receipt("weights", "auto", "--shot", S, "--layer", "m", "--method", method)
                self.assertEqual(self.weights(), before)

    def test_weights_paint_sends_the_default_feather_and_changes_the_weights(self):
        before = self.skinned()
        printed = self.printed_weights()
        paint = self.paint()
        out = self.ok(self.rigctl(*paint, "--dry-run", "--format", "table"))
        self.assertIn("dry run: the batch is valid", out)
        self.assertRegex(out, r"ops        0  layer\.skin\.weights\.paint +m\n +\d+ vertices' "
                         r"weights changed\n")
        self.assertEqual(self.printed_weights(), printed)
        r = self.receipt(*paint)
        self.assertGreater(r["ops"][0]["changedVertices"]["count"], 0)
        painted = self.weights()
        self.assertNotEqual(painted, before)
        self.assertNotEqual(self.printed_weights(), printed)
        # the op rigctl sent is the API's with feather 0.5
        rev = self.rigd.post(f"/v1/receipts/{r['receiptId']}/revert", {})
        self.assertEqual(rev.status, 201, rev)
        self.assertEqual(self.weights(), before)
        self.rigd.edit(S, [{"op": "layer.skin.weights.paint", "layerId": "m", "jointId": "j1",
                            "mode": "add", "center": [0, 0], "radius": 25, "strength": 0.5,
                            "feather": 0.5}])
        self.assertEqual(self.weights(), painted)
        # a hard edge is another dab
        self.receipt(*self.paint(feather="0", mode="set"))
        self.assertNotEqual(self.weights(), painted)

    def test_weights_set_sets_one_weight(self):
        before = self.skinned()
        v = next(v for v, w in before.items() if len(w) == 2)
        version = self.version()
        args = ("weights", "set", "--shot", S, "--layer", "m", "--vertex", str(v), "--joint",
                "j0", "--weight", "0.25")
        self.receipt(*args, "--dry-run")
        self.assertEqual((self.version(), self.weights()), (version, before))
        out = self.ok(self.rigctl(*args, "--format", "table"))
        self.assertIn("layer.skin.weights.set", out)
        self.assertIn("1 vertex's weights changed\n", out)
        rows = [r for r in self.printed_weights() if r[0] == str(v)]
        self.assertEqual({r[1]: float(r[2]) for r in rows}, {"j0": 0.25, "j1": 0.75})
        self.assertEqual(self.version(), version + 1)

    def test_the_servers_problems_are_printed_and_change_nothing(self):
        self.skinned()
        version = self.version()
        err = self.refused(self.rigctl(*self.paint(radius="0")), "INVALID_FIELD")
        self.assertIn("at /ops/0/radius (op 0)", err)
        self.refused(self.rigctl(*self.paint(feather="1.5")), "INVALID_FIELD")
        self.refused(self.rigctl(*self.paint(strength="-0.5")), "INVALID_FIELD")
        err = self.refused(self.rigctl(*self.paint(joint="nope")), "SKIN_JOINTS")
        self.assertIn("at /ops/0/jointId (op 0)", err)
        self.assertIn('validJointIds: ["j0","j1"]', err)
        self.refused(self.rigctl("weights", "set", "--shot", S, "--layer", "m", "--vertex",
                                 "0", "--joint", "nope", "--weight", "0.5"), "SKIN_JOINTS")
        self.refused(self.rigctl("weights", "set", "--shot", S, "--layer", "m", "--vertex",
                                 "1000000", "--joint", "j0", "--weight", "0.5"),
                     "SKIN_WEIGHT_VERTEX")
        self.refused(self.rigctl("weights", "auto", "--shot", S, "--layer", "m", "--method",
                                 "segment", "--max-influences", "9"), "OP_INVALID")
        self.refused(self.rigctl("weights", "auto", "--shot", S, "--layer", "root", "--method",
                                 "segment"), "LAYER_KIND")
        self.assertEqual(self.version(), version)

    def test_locks_guard_the_authoring_writes(self):
        self.skinned()
        lock = json.loads(self.ok(self.rigctl("lock", "acquire", "--shot", S, "m", "--format",
                                              "json", actor="ana")))
        args = ("weights", "set", "--shot", S, "--layer", "m", "--vertex", "0", "--joint",
                "j0", "--weight", "1")
        self.refused(self.rigctl(*args, actor="bob"), "LAYER_LOCKED", 423)
        fence = ["--lock-id", lock["lockId"], "--fencing-token", str(lock["fencingToken"])]
        r = self.receipt(*args, *fence, "--check-frames", actor="ana")
        self.assertEqual(r["actor"], "ana")
        self.usage(self.rigctl(*args, "--lock-id", lock["lockId"], actor="ana"),
                   "--lock-id and --fencing-token go together")


class RigAndBones(AuthoringCase):
    def test_rig_auto_from_a_png_takes_its_size_and_lists_the_expanded_ops(self):
        path = self.file("card.png", png(32, 64, card))
        args = ("rig", "auto", "--shot", S, "--layer", "m", "--image", path, "--bones", "4",
                "--method", "segment", "--density", "12")
        out = self.ok(self.rigctl(*args, "--dry-run", "--format", "table"))
        self.assertIn("dry run: the batch is valid", out)
        self.assertEqual(self.version(), 1)
        out = self.ok(self.rigctl(*args, "--format", "table"))
        self.assertIn("ops        0  layer.rig.auto               m\n"
                      "              + layer.create               m.bone0\n", out)
        self.assertRegex(out, r"\n +\+ layer\.mesh\.generate +m\n")
        self.assertRegex(out, r"\n +\+ layer\.skin\.bind\.capture +m\n")
        self.assertIn("changed  m.bone0, m.bone1, m.bone2, m.bone3, m\n", out)
        r = self.rigd.get(f"/v1/shots/{S}/receipts?pageSize=1").json["receipts"][0]
        expanded = [e["op"] for e in r["ops"][0]["expandedOps"]]
        self.assertEqual(expanded, ["layer.create"] * 4 + ["layer.mesh.generate"]
                         + ["layer.skin.joint.add"] * 4 + ["layer.skin.weights.auto",
                                                            "layer.skin.bind.capture"])
        joints = self.api_items("joints")
        self.assertEqual([j["layerId"] for j in joints], [f"m.bone{i}" for i in range(4)])
        # the rectangle is the PNG's 32 × 64 pixels
        want = self.tessellate_api(width=32, height=64, density=12, mode="grid",
                                   image=b64(png(32, 64, card)))
        self.assertEqual([{"x": v["x"], "y": v["y"]} for v in self.api_items("vertices")],
                         want["source"])
        self.assertEqual([[u["u"], u["v"]] for u in self.api_items("uvs")], want["uvs"])
        self.assertEqual(len(self.api_items("weights")), want["vertexCount"])

    def test_rig_auto_from_a_rectangle_or_a_polygon_with_a_preset(self):
        r = self.receipt("rig", "auto", "--shot", S, "--layer", "m", "--width", "40",
                         "--height", "120", "--bones", "biped", "--id-prefix", "b.",
                         "--mode", "silhouette", "--max-influences", "2")
        self.assertGreater(len(r["ops"][0]["expandedOps"]), 10)
        self.assertGreater(len(self.api_items("joints")), 10)
        self.assertTrue(all(len(w["influences"]) <= 2 for w in self.api_items("weights")))
        ring = self.file("l.json", json.dumps(L_SHAPE))
        r = self.receipt("rig", "auto", "--shot", S, "--layer", "m", "--polygon", ring,
                         "--width", "100", "--height", "100", "--bones", "2", "--id-prefix",
                         "p.", "--frame", "3")
        self.assertEqual([e["layerId"] for e in r["ops"][0]["expandedOps"][:2]],
                         ["p.bone0", "p.bone1"])
        want = self.tessellate_api(width=100, height=100, density=20, mode="grid",
                                   polygon=L_SHAPE)  # --density 20 when not given
        self.assertEqual(len(self.api_items("vertices")), want["vertexCount"])

    def test_bones_suggest(self):
        self.rigd.edit(S, [{"op": "layer.mesh.generate", "layerId": "m", "binding": "mesh",
                            "tessellate": {"width": 20, "height": 90, "density": 6,
                                           "mode": "grid"}}])
        out = self.ok(self.rigctl("bones", "suggest", "--shot", S, "--layer", "m", "--bones",
                                  "3", "--format", "table"))
        self.assertIn("ops        0  layer.bones.suggest          m\n"
                      "              + layer.create               m.bone0\n"
                      "              + layer.create               m.bone1\n"
                      "              + layer.create               m.bone2\n", out)
        layers = {l["layerId"]: l for l in self.rigd.get(f"/v1/shots/{S}").json["layers"]}
        self.assertEqual((layers["m.bone1"]["parentId"], layers["m.bone2"]["parentId"]),
                         ("m.bone0", "m.bone1"))
        self.refused(self.rigctl("bones", "suggest", "--shot", S, "--layer", "m", "--bones",
                                 "3"), "LAYER_EXISTS")
        r = self.receipt("bones", "suggest", "--shot", S, "--layer", "m", "--bones",
                         "quadruped", "--id-prefix", "q.", "--parent", "tip")
        roots = [e["layerId"] for e in r["ops"][0]["expandedOps"]]
        layers = {l["layerId"]: l for l in self.rigd.get(f"/v1/shots/{S}").json["layers"]}
        self.assertEqual(layers[roots[0]].get("parentId"), "tip")
        r = self.receipt("bones", "suggest", "--shot", S, "--layer", "m", "--bones", "1",
                         "--id-prefix", "r.", "--parent", "")
        layers = {l["layerId"]: l for l in self.rigd.get(f"/v1/shots/{S}").json["layers"]}
        self.assertIsNone(layers["r.bone0"].get("parentId"))
        version = self.version()
        for bones in ("0", "65"):
            with self.subTest(bones=bones):
                self.refused(self.rigctl("bones", "suggest", "--shot", S, "--layer", "m",
                                         "--bones", bones, "--id-prefix", "z."), "OP_INVALID")
        self.refused(self.rigctl("bones", "suggest", "--shot", S, "--layer", "root", "--bones",
                                 "2", "--id-prefix", "z."), "LAYER_KIND")
        self.assertEqual(self.version(), version)


class Usage(AuthoringCase):
    def test_every_usage_error_exits_2_on_stderr_and_sends_nothing(self):
        ring = self.file("l.json", json.dumps(L_SHAPE))
        image = self.file("disc.png", png(60, 60, disc))
        text = self.file("notes.txt", "not a png, not json")
        odd = self.file("odd.json", json.dumps({"polygon": L_SHAPE, "hole": [HOLE]}))
        scalar = self.file("scalar.json", json.dumps({"points": L_SHAPE}))
        missing = os.path.join(self.tmp, "missing.png")
        tess = ["tessellate", "--width", "10", "--height", "10", "--density", "4"]
        edit = ["--shot", S, "--layer", "m"]
        paint = self.paint
        cases = [
            (["tessellate", "--height", "10", "--density", "4"], "--width is required"),
            (["tessellate", "--width", "10", "--density", "4"], "--height is required"),
            (["tessellate", "--width", "10", "--height", "10"], "--density is required"),
            (tess[:2] + ["wide"] + tess[3:], "--width 'wide' is not a number"),
            (tess[:6] + ["4.5"], "--density '4.5' is not a whole number"),
            (tess + ["--expansion", "lots"], "--expansion 'lots' is not a number"),
            (tess + ["--alpha-threshold", "half"], "--alpha-threshold 'half' is not a whole"),
            (tess + ["--image", image, "--polygon", ring],
             "--image and --polygon are two coverages: give one"),
            (tess + ["--image", missing], f"cannot read '{missing}': No such file"),
            (tess + ["--polygon", missing], f"cannot read '{missing}'"),
            (tess + ["--image", ""], "--image must not be empty"),
            (tess + ["--polygon", text], f"--polygon '{text}' is not JSON"),
            (tess + ["--polygon", odd], "has a member 'hole': only polygon and holes"),
            (tess + ["--polygon", scalar], "must hold [[x, y], ...] or {\"polygon\""),
            (tess + ["--mode", "blob"], "--mode 'blob' is not grid or silhouette"),
            (tess + ["--pivot", "0.5"], "--pivot '0.5' is not two numbers X,Y"),
            (tess + ["--pivot", "0.5,x"], "is not two numbers X,Y"),
            (tess + ["--pivot", "0.5,0.5,1"], "is not two numbers X,Y"),
            (tess + ["--dry-run"], "--dry-run needs --shot (without it tessellate stores "
             "nothing)"),
            (tess + ["--layer", "m"], "--layer needs --shot"),
            (tess + ["--binding", "mesh"], "--binding needs --shot"),
            (tess + ["--expected-version", "1"], "--expected-version needs --shot"),
            (tess + ["--check-frames"], "--check-frames needs --shot"),
            (tess + ["--lock-id", "k", "--fencing-token", "1"], "needs --shot"),
            (tess + ["--shot", S], "--layer is required with --shot"),
            (tess + edit, "--binding is required with --shot: skin, mesh or puppet"),
            (tess + edit + ["--binding", "ribbon"], "--binding 'ribbon' is not skin, mesh or "
             "puppet"),
            (tess + ["--bones", "2"], "option '--bones' does not apply to 'tessellate'"),
            (["weights", "auto", *edit], "--method is required"),
            (["weights", "auto", *edit, "--method", "closest"],
             "--method 'closest' is not segment, nearest-joint or harmonic"),
            (["weights", "auto", "--layer", "m", "--method", "segment"], "--shot is required"),
            (["weights", "auto", "--shot", S, "--method", "segment"], "--layer is required"),
            (paint(strength=None), "--strength is required"),
            (paint(center=None), "--center is required"),
            (paint(joint=None), "--joint is required"),
            (paint(mode=None), "--mode is required"),
            (paint(center="1"), "--center '1' is not two numbers X,Y"),
            (paint(center="1,2,3"), "--center '1,2,3' is not two numbers X,Y"),
            (paint(center="1,inf"), "is not two numbers X,Y"),
            (paint(radius="wide"), "--radius 'wide' is not a number"),
            (paint(feather="soft"), "--feather 'soft' is not a number"),
            (paint(mode="blur"), "--mode 'blur' is not add, subtract, smooth or set"),
            (paint(method="segment"), "does not apply to 'weights paint'"),
            (["weights", "set", *edit, "--joint", "j", "--weight", "1"], "--vertex is required"),
            (["weights", "set", *edit, "--vertex", "-1", "--joint", "j", "--weight", "1"],
             "--vertex '-1' is not a whole number of at least 0"),
            (["weights", "set", *edit, "--vertex", "1", "--joint", "j", "--weight", "most"],
             "--weight 'most' is not a number"),
            (["weights", "smudge", *edit], "'weights smudge' is not a command (try auto, paint "
             "or set)"),
            (["rig", "auto", *edit], "--bones is required"),
            (["rig", "auto", *edit, "--bones", "3"],
             "'rig auto' needs --width and --height (or an --image"),
            (["rig", "auto", *edit, "--bones", "3", "--polygon", ring], "'rig auto' needs"),
            (["rig", "auto", *edit, "--bones", "3", "--width", "10"],
             "--width and --height go together"),
            (["rig", "auto", *edit, "--bones", "3", "--image", text],
             f"--image '{text}' does not begin as a PNG does"),
            (["rig", "auto", *edit, "--bones", "two", "--width", "1", "--height", "1"],
             "--bones 'two' is not a number of bones, biped or quadruped"),
            (["rig", "auto", *edit, "--bones", "3", "--image", image, "--binding", "skin"],
             "option '--binding' does not apply to 'rig auto'"),
            (["bones", "suggest", *edit], "--bones is required"),
            (["bones", "suggest", *edit, "--bones", "3.5"], "--bones '3.5' is not a number"),
            (["bones", "suggest", *edit, "--bones", "octopus"], "is not a number of bones"),
            (["bones", "suggest", *edit, "--bones", "3", "--density", "4"],
             "does not apply to 'bones suggest'"),
        ]
        for argv, message in cases:
            with self.subTest(argv=argv):
                self.usage(self.rigctl(*argv), message)
        self.assertEqual(self.version(), 1)
        # the table's default format changes nothing about where usage errors go
        self.usage(self.rigctl(*tess, "--mode", "blob", "--format", "table"), "--mode 'blob'")

    def test_the_servers_tessellation_problems_name_their_code(self):
        tess = ["tessellate", "--width", "10", "--height", "10", "--density", "4"]
        err = self.refused(self.rigctl(*tess[:6], "1"), "INVALID_FIELD")
        self.assertIn("at /density", err)
        self.refused(self.rigctl(*tess[:2], "0", *tess[3:]), "INVALID_FIELD")
        err = self.refused(self.rigctl(*tess, "--image", self.file("n.png", b"not a png")),
                           "TESSELLATE_IMAGE")
        self.assertIn("at /image", err)
        self.refused(self.rigctl(*tess, "--polygon", self.file("p.json", "[[0, 0], [1, 1]]")),
                     "TESSELLATE_POLYGON")
        self.refused(self.rigctl(*tess, "--image", self.file("e.png", png(8, 8, lambda x, y: 0))),
                     "TESSELLATE_EMPTY")
        err = self.refused(self.rigctl(*tess, "--shot", S, "--layer", "m", "--binding", "mesh",
                                       "--density", "1"), "INVALID_FIELD")
        self.assertIn("at /ops/0/tessellate/density (op 0)", err)
        err = self.refused(self.rigctl("rig", "auto", "--shot", S, "--layer", "m", "--image",
                                       self.file("e2.png", png(8, 8, lambda x, y: 0)),
                                       "--bones", "2"), "TESSELLATE_EMPTY")
        self.assertEqual(self.version(), 1)

    def test_the_choices_are_the_contracts(self):
        import yaml
        with open(os.path.join(ROOT, "openapi.yaml"), encoding="utf-8") as f:
            schemas = yaml.safe_load(f)["components"]["schemas"]
        table = self.ok(run([RIGCTL, "--options-markdown"]))

        def enum(schema, prop):
            return schemas[schema]["properties"][prop]["enum"]
        for flag, words in (
                ("mode", enum("TessellateRequest", "mode")),
                ("binding", enum("LayerMeshGenerateOp", "binding")),
                ("method", [kebab(w) for w in enum("LayerSkinWeightsAutoOp", "method")]),
                ("method", [kebab(w) for w in enum("LayerRigAutoOp", "method")]),
                ("mode", enum("LayerSkinWeightsPaintOp", "mode"))):
            with self.subTest(flag=flag, words=words):
                self.assertIn(f"| `--{flag} " + "\\|".join(words) + "` |", table)
        presets = schemas["BonesChoice"]["oneOf"][1]["enum"]
        self.assertIn("| `--bones N\\|" + "\\|".join(presets) + "` |", table)

    def test_the_help_pages(self):
        for words, shown in (
                (["tessellate"], ["tessellate --width W --height H --density N",
                                  "--binding skin|mesh|puppet", "\n  --image FILE.png",
                                  "\n  --polygon FILE.json", "\n  --pivot X,Y", "\n  --dry-run",
                                  "TESSELLATE_IMAGE", "Examples:"]),
                (["weights", "paint"], ["weights auto --shot ID", "weights paint", "weights set",
                                        "\n  --feather F", "default: 0.5", "\n  --center X,Y",
                                        "\n  --lock-id", "SKIN_JOINTS", "Examples:"]),
                (["rig", "auto"], ["rig auto --shot ID --layer ID", "IHDR",
                                   "\n  --bones N|biped|quadruped", "\n  --frame F",
                                   "default: 20", "Examples:"]),
                (["bones", "suggest"], ["bones suggest --shot ID", "\n  --parent ID",
                                        "\n  --id-prefix P", "LAYER_EXISTS", "Examples:"])):
            with self.subTest(command=words):
                out = self.ok(run([RIGCTL, *words, "--help"]))
                for text in shown:
                    self.assertIn(text, out)
                self.assertEqual(self.ok(run([RIGCTL, words[0], "--help"])), out)
        overview = self.ok(run([RIGCTL, "--help"]))
        for text in ("tessellate --width W", "weights paint --shot ID", "rig auto --shot ID",
                     "bones suggest --shot ID"):
            self.assertIn(text, overview)


if __name__ == "__main__":
    main()
