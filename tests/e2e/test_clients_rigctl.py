"""rigctl, the command-line client for the rest of the API (SPEC §9), driven
against the real server: projects and shots, the layer tree, edits from a file
or stdin (receipt, version bump, dry run, idempotency, failures), receipts,
and frame ranges split into one OBJ or f32 file per frame (zero-padded names in
frame order, each frame checked against from + i·step), read back and compared
with GET …/frames?format=json; a range the server ends with an error exits 1
naming frame, code and detail.

The binary is found next to the server's build: <build>/clients/rigctl for
RIGD_BIN=<build>/server/rigd.
"""
import http.server
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
import unittest

from rigd_harness import RIGD_BIN, RigdTestCase, main
from test_frames_range import mirror_scene

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")

N_JOINTS = 4
N_COLUMNS = 9  # two rows: 18 vertices, 16 triangles


def arm_ops():
    """Four chained joint layers, animated, and an 18-vertex strip skinned to them."""
    ops = []
    for i in range(N_JOINTS):
        op = {"op": "layer.create", "layerId": f"j{i}", "name": f"Joint {i}", "kind": "group",
              "transform": {"position": [0 if i == 0 else 10, 0]}}
        if i:
            op["parentId"] = f"j{i - 1}"
        ops.append(op)
    ops.append({"op": "layer.key.put", "layerId": "j1", "channel": "rotation",
                "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 20}]})
    ops.append({"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "mesh"})
    source, weights, triangles = [], [], []
    for c in range(N_COLUMNS):
        k = c * (N_JOINTS - 1) // (N_COLUMNS - 1)
        for r in range(2):
            source.append({"x": c * 30 / (N_COLUMNS - 1) + 1 / 3, "y": r * 2 + 1 / 7})
            if k + 1 < N_JOINTS:
                w = (c % 3 + 1) / 7
                weights.append([{"jointId": f"bone{k}", "weight": w},
                                {"jointId": f"bone{k + 1}", "weight": 1 - w}])
            else:
                weights.append([{"jointId": f"bone{k}", "weight": 1}])
    for c in range(N_COLUMNS - 1):
        a, b, d, e = 2 * c, 2 * c + 2, 2 * c + 1, 2 * c + 3
        triangles += [[a, b, d], [b, e, d]]
    ops.append({"op": "layer.skin", "layerId": "arm", "skin": {
        "source": source, "triangles": triangles,
        "joints": [{"id": f"bone{i}", "bind": [1, 0, 0, 1, 10 * i, 0]} for i in range(N_JOINTS)],
        "weights": weights,
        "jointLayers": [{"jointId": f"bone{i}", "layerId": f"j{i}"} for i in range(N_JOINTS)]}})
    return ops, triangles


def free_port():
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RigctlCase(RigdTestCase):
    def setUp(self):
        if not os.access(RIGCTL, os.X_OK):
            raise RuntimeError(f"rigctl is not built at {RIGCTL}")
        super().setUp()
        self.url = f"http://127.0.0.1:{self.rigd.port}"
        self.tmp = tempfile.mkdtemp(prefix="rigctl-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        super().tearDown()

    def rigctl(self, *args, input=None, env=None, url=True):
        e = {k: v for k, v in os.environ.items() if k not in ("RIGD_URL", "RIGD_ACTOR")}
        e.update(env or {})
        argv = [RIGCTL] + (["--url", self.url] if url else []) + list(args)
        return subprocess.run(argv, capture_output=True, text=True, input=input, env=e,
                              timeout=120)

    def ok(self, *args, **kw):
        p = self.rigctl(*args, **kw)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def ok_json(self, *args, **kw):
        return json.loads(self.ok(*args, **kw))

    def write(self, name, value):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(value, f)
        return path

    def shot_version(self, shot="s1"):
        return self.rigd.get(f"/v1/shots/{shot}").json["version"]


class Resources(RigctlCase):
    def test_projects_create_list_show_delete(self):
        created = self.ok_json("projects", "create", "Demo Project", "--id", "demo")
        self.assertEqual((created["projectId"], created["name"]), ("demo", "Demo Project"))
        self.ok_json("projects", "create", "Other")
        listed = self.ok_json("projects", "list")
        self.assertEqual([p["name"] for p in listed], ["Demo Project", "Other"])
        self.assertEqual(listed, self.rigd.get("/v1/projects").json["projects"])
        self.assertEqual(self.ok_json("projects", "show", "demo"), created)
        table = self.ok("projects", "list", "--format", "table")
        self.assertIn("demo", table)
        self.assertIn("Demo Project", table)
        ndjson = self.ok("projects", "--format", "ndjson").splitlines()
        self.assertEqual([json.loads(line) for line in ndjson], listed)
        self.assertEqual(self.ok_json("projects", "delete", "demo"),
                         {"projectId": "demo", "deleted": True})
        p = self.rigctl("projects", "show", "demo")
        self.assertEqual(p.returncode, 1)
        self.assertIn("NOT_FOUND", p.stderr)

    def test_lists_follow_every_page(self):
        for i in range(5):
            self.ok("projects", "create", f"P{i}", "--id", f"p{i}")
        listed = self.ok_json("projects", "list", "--page-size", "2")
        self.assertEqual([p["projectId"] for p in listed], [f"p{i}" for i in range(5)])

    def test_shots_create_list_show_delete(self):
        self.ok("projects", "create", "Demo", "--id", "demo")
        shot = self.ok_json("shots", "create", "--project", "demo", "Shot One", "--id", "s1",
                            "--fps", "30", "--frame-start", "1", "--frame-end", "48")
        self.assertEqual((shot["shotId"], shot["fps"], shot["frameStart"], shot["frameEnd"]),
                         ("s1", 30, 1, 48))
        self.assertEqual(shot["version"], 0)
        listed = self.ok_json("shots", "list", "--project", "demo")
        self.assertEqual([s["shotId"] for s in listed], ["s1"])
        shown = self.ok_json("shots", "show", "s1")
        self.assertEqual(shown, self.rigd.get("/v1/shots/s1").json)
        table = self.ok("shots", "list", "--project", "demo", "--format", "table")
        self.assertIn("Shot One", table)
        self.assertIn("1–48", table)
        p = self.rigctl("shots", "delete", "s1", "--if-match", "3")
        self.assertEqual(p.returncode, 1)
        self.assertIn("VERSION_CONFLICT", p.stderr)
        self.assertIn("currentVersion: 0", p.stderr)
        self.assertEqual(self.ok_json("shots", "delete", "s1", "--if-match", "0"),
                         {"shotId": "s1", "deleted": True})
        self.assertEqual(self.rigd.get("/v1/shots/s1").status, 404)

    def test_layers_tree_and_one_layer(self):
        self.rigd.make_shot("demo", "s1")
        ops, _ = arm_ops()
        self.rigd.edit("s1", ops)
        layers = self.ok_json("layers", "--shot", "s1")
        self.assertEqual(layers, self.rigd.get("/v1/shots/s1").json["layers"])
        tree = self.ok("layers", "--shot", "s1", "--format", "table").splitlines()
        self.assertEqual(tree[0].split()[0], "j0")
        self.assertTrue(tree[1].startswith("└─ j1"), tree)
        self.assertTrue(tree[2].startswith("   └─ j2"), tree)
        self.assertIn("skin: 18 vertices, 16 triangles, 4 joints", tree[-1])
        one = self.ok_json("layers", "--shot", "s1", "j1")
        self.assertEqual(one, self.rigd.get("/v1/shots/s1/layers/j1").json)
        table = self.ok("layers", "--shot", "s1", "j1", "--format", "table")
        self.assertIn("key rotation", table)
        self.assertIn("10: 20", table)


class Edits(RigctlCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("demo", "s1")

    def test_edit_from_a_file_prints_the_receipt_and_bumps_the_version(self):
        ops, _ = arm_ops()
        receipt = self.ok_json("edit", "--shot", "s1", self.write("ops.json", {"ops": ops}))
        self.assertEqual((receipt["fromVersion"], receipt["toVersion"]), (0, 1))
        self.assertEqual([o["op"] for o in receipt["ops"]], [o["op"] for o in ops])
        self.assertEqual(self.shot_version(), 1)
        self.assertEqual(self.rigd.get(f"/v1/receipts/{receipt['receiptId']}").json, receipt)
        # receipts lists it, as JSON and as a table.
        self.assertEqual(self.ok_json("receipts", "--shot", "s1"), [receipt])
        self.assertEqual(self.ok_json("receipts", receipt["receiptId"]), receipt)
        table = self.ok("receipts", "--shot", "s1", "--format", "table")
        self.assertIn(receipt["receiptId"], table)
        self.assertIn("0→1", table)

    def test_a_bare_array_with_expected_version_and_one_op_from_stdin(self):
        ops, _ = arm_ops()
        self.ok("edit", "--shot", "s1", self.write("ops.json", ops), "--expected-version", "0")
        rename = {"op": "layer.rename", "layerId": "arm", "name": "Left arm"}
        receipt = json.loads(self.ok("edit", "--shot", "s1", "-", "--expected-version", "1",
                                     input=json.dumps(rename)))
        self.assertEqual(receipt["toVersion"], 2)
        self.assertEqual(self.rigd.get("/v1/shots/s1/layers/arm").json["name"], "Left arm")

    def test_table_receipt_is_readable(self):
        ops, _ = arm_ops()
        out = self.ok("edit", "--shot", "s1", self.write("ops.json", ops), "--format", "table")
        self.assertIn("version 0 → 1", out)
        self.assertIn("layer.skin", out)
        self.assertIn("changed  j0, j1, j2, j3, arm", out)

    def test_dry_run_changes_nothing(self):
        ops, _ = arm_ops()
        self.rigd.edit("s1", ops)
        before = self.rigd.snapshot("s1")
        path = self.write("rename.json", [{"op": "layer.rename", "layerId": "arm", "name": "X"}])
        receipt = self.ok_json("edit", "--shot", "s1", path, "--dry-run")
        self.assertIs(receipt["dryRun"], True)
        self.assertIsNone(receipt["receiptId"])
        self.assertEqual((receipt["fromVersion"], receipt["toVersion"]), (1, 2))
        self.assertEqual(self.rigd.snapshot("s1"), before)
        out = self.ok("edit", "--shot", "s1", path, "--dry-run", "--format", "table")
        self.assertIn("nothing was written", out)
        self.assertEqual(self.rigd.snapshot("s1"), before)

    def test_a_refused_edit_exits_1_with_each_error_and_pointer(self):
        path = self.write("bad.json", [{"op": "layer.create", "layerId": "a", "kind": "group"},
                                       {"op": "layer.create", "layerId": "b", "name": "B",
                                        "kind": "blob"}])
        p = self.rigctl("edit", "--shot", "s1", path)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertIn("OP_INVALID", p.stderr)
        self.assertIn("/ops/0/name", p.stderr)
        self.assertIn("/ops/1/kind", p.stderr)
        self.assertIn("(op 1)", p.stderr)
        self.assertEqual(self.shot_version(), 0)

    def test_a_stale_expected_version_exits_1(self):
        path = self.write("one.json", [{"op": "layer.create", "layerId": "a", "name": "A",
                                        "kind": "group"}])
        p = self.rigctl("edit", "--shot", "s1", path, "--expected-version", "4")
        self.assertEqual(p.returncode, 1)
        self.assertIn("VERSION_CONFLICT", p.stderr)
        self.assertEqual(self.shot_version(), 0)

    def test_an_idempotency_key_applies_once(self):
        path = self.write("one.json", [{"op": "layer.create", "layerId": "a", "name": "A",
                                        "kind": "group"}])
        first = self.ok_json("edit", "--shot", "s1", path, "--idempotency-key", "k-1")
        again = self.ok_json("edit", "--shot", "s1", path, "--idempotency-key", "k-1")
        self.assertEqual(first, again)
        self.assertEqual(first["idempotencyKey"], "k-1")
        self.assertEqual(self.shot_version(), 1)

    def test_the_actor_comes_from_the_flag_or_rigd_actor(self):
        path = self.write("one.json", [{"op": "layer.create", "layerId": "a", "name": "A",
                                        "kind": "group"}])
        self.assertEqual(self.ok_json("edit", "--shot", "s1", path, "--actor", "alice")["actor"],
                         "alice")
        path = self.write("two.json", [{"op": "layer.rename", "layerId": "a", "name": "B"}])
        self.assertEqual(self.ok_json("edit", "--shot", "s1", path,
                                      env={"RIGD_ACTOR": "bob"})["actor"], "bob")

    def test_receipts_all_follows_pages(self):
        for i in range(5):
            self.rigd.edit("s1", [{"op": "layer.create", "layerId": f"l{i}", "name": "L",
                                   "kind": "group"}])
        one_page = self.ok_json("receipts", "--shot", "s1", "--page-size", "2")
        self.assertEqual([r["toVersion"] for r in one_page], [5, 4])
        everything = self.ok_json("receipts", "--shot", "s1", "--page-size", "2", "--all")
        self.assertEqual([r["toVersion"] for r in everything], [5, 4, 3, 2, 1])
        table = self.ok("receipts", "--shot", "s1", "--page-size", "2", "--format", "table")
        self.assertIn("--all", table)


def frame_file(frame, ext, width=4, decimals=1):
    """rigctl's name of a frame file: the frame with its integer part zero-padded and a fixed
    number of decimals (the range 0..10 step 2.5: frame_00.0 … frame_10.0)."""
    return f"frame_{frame:0{width}.{decimals}f}.{ext}"


def read_dir(path):
    """{file name: bytes} of every file in path."""
    out = {}
    for name in os.listdir(path):
        with open(os.path.join(path, name), "rb") as f:
            out[name] = f.read()
    return out


class FramesCase(RigctlCase):
    """A shot with the animated arm, and the range 0..10 step 2.5 as JSON."""

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("demo", "s1")
        ops, self.triangles = arm_ops()
        self.rigd.edit("s1", ops)
        self.out = os.path.join(self.tmp, "frames", "arm")
        r = self.rigd.get("/v1/shots/s1/layers/arm/frames?from=0&to=10&step=2.5&format=json")
        self.assertEqual(r.status, 200, r)
        self.want = {f["frame"]: f["vertices"] for f in r.json["frames"]}
        self.assertEqual(len(self.want), 5)

    def names(self, ext):
        return {frame_file(f, ext) for f in self.want}


class Frames(FramesCase):
    def test_obj_writes_one_file_per_frame(self):
        summary = self.ok_json("frames", "--shot", "s1", "--layer", "arm", "--from", "0",
                               "--to", "10", "--step", "2.5", "--format", "obj", "--out", self.out)
        self.assertEqual(summary["frames"], 5)
        self.assertEqual(set(os.listdir(self.out)), self.names("obj"))
        faces_want = [[i + 1 for i in t] for t in self.triangles]
        for frame, vertices in self.want.items():
            objects, verts, faces = [], [], []
            with open(os.path.join(self.out, frame_file(frame, "obj"))) as f:
                for line in f:
                    cells = line.split()
                    if not cells or cells[0] == "#":
                        continue
                    if cells[0] == "o":
                        objects.append(cells[1])
                    elif cells[0] == "v":
                        verts.append([float(cells[1]), float(cells[2])])
                        self.assertEqual(float(cells[3]), 0)
                    elif cells[0] == "f":
                        faces.append([int(x) for x in cells[1:]])
            self.assertEqual(objects, [f"frame_{frame:g}"])
            self.assertEqual(verts, vertices)  # exact: OBJ carries round-trip decimals
            self.assertEqual(faces, faces_want)  # 1-based within each file
        # The animation shows: the first and last frames differ.
        self.assertNotEqual(self.want[0.0], self.want[10.0])

    def test_f32_files_decode_to_the_same_numbers(self):
        self.ok("frames", "--shot", "s1", "--layer", "arm", "--from", "0", "--to", "10",
                "--step", "2.5", "--format", "f32", "--out", self.out)
        self.assertEqual(set(os.listdir(self.out)), self.names("f32"))
        f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
        for frame, vertices in self.want.items():
            with open(os.path.join(self.out, frame_file(frame, "f32")), "rb") as f:
                data = f.read()
            magic, version, n_verts, n_frames = struct.unpack_from("<4sIII", data, 0)
            self.assertEqual((magic, version, n_verts, n_frames), (b"RIGF", 1, 18, 1))
            self.assertEqual(len(data), 16 + 8 + 8 * n_verts)
            self.assertEqual(struct.unpack_from("<d", data, 16)[0], frame)
            xy = struct.unpack_from(f"<{2 * n_verts}f", data, 24)
            got = [[xy[2 * i], xy[2 * i + 1]] for i in range(n_verts)]
            self.assertEqual(got, [[f32(x), f32(y)] for x, y in vertices])

    def test_defaults_to_the_shots_range_and_obj(self):
        shot = self.rigd.get("/v1/shots/s1").json
        self.ok("frames", "--shot", "s1", "--layer", "arm", "--out", self.out, "--step", "25")
        frames = range(int(shot["frameStart"]), int(shot["frameEnd"]) + 1, 25)
        width = len(str(frames[-1]))
        self.assertEqual(set(os.listdir(self.out)),
                         {frame_file(f, "obj", width, 0) for f in frames})

    def test_frames_errors(self):
        p = self.rigctl("frames", "--shot", "s1", "--layer", "j0", "--out", self.out)
        self.assertEqual(p.returncode, 1)
        self.assertIn("MESH_BINDING_KIND", p.stderr)
        self.assertFalse(os.listdir(self.out))
        p = self.rigctl("frames", "--shot", "s1", "--layer", "arm", "--from", "5", "--to", "1",
                        "--out", self.out)
        self.assertEqual(p.returncode, 1)
        self.assertIn("INVALID_QUERY", p.stderr)
        for argv in (["--shot", "s1", "--layer", "arm"],                       # no --out
                     ["--shot", "s1", "--layer", "arm", "--out", self.out, "--format", "png"],
                     ["--shot", "s1", "--layer", "arm", "--out", self.out, "--from", "x"]):
            p = self.rigctl("frames", *argv)
            self.assertEqual(p.returncode, 2, argv)


class FrameNames(FramesCase):
    def test_name_order_is_frame_order(self):
        for q, frames in (((("--from", "0", "--to", "120", "--step", "12")), range(0, 121, 12)),
                          ((("--from", "8", "--to", "9", "--step", "0.25")),
                           [8 + i * 0.25 for i in range(5)])):
            with self.subTest(q=q):
                shutil.rmtree(self.out, ignore_errors=True)
                self.ok("frames", "--shot", "s1", "--layer", "arm", *q, "--out", self.out)
                names = sorted(os.listdir(self.out))
                self.assertEqual(len(names), len(frames))
                got = []
                for name in names:   # the frame inside each file, in name order
                    with open(os.path.join(self.out, name)) as f:
                        got += [float(line.split("_", 1)[1]) for line in f
                                if line.startswith("o ")]
                self.assertEqual(got, list(frames))
        self.assertEqual(names[0], "frame_8.00.obj")
        shutil.rmtree(self.out)
        self.ok("frames", "--shot", "s1", "--layer", "arm", "--from", "0", "--to", "120",
                "--step", "12", "--out", self.out)
        self.assertEqual(sorted(os.listdir(self.out))[:2], ["frame_000.obj", "frame_012.obj"])

    def test_negative_frames_are_named_by_index_then_frame(self):
        self.ok("frames", "--shot", "s1", "--layer", "arm", "--from", "-12", "--to", "3",
                "--step", "1.5", "--format", "f32", "--out", self.out)
        names = sorted(os.listdir(self.out))
        self.assertEqual(names[:3], ["frame_00_-12.f32", "frame_01_-10.5.f32", "frame_02_-9.f32"])
        self.assertEqual(names[-1], "frame_10_3.f32")
        frames = []
        for name in names:
            with open(os.path.join(self.out, name), "rb") as f:
                frames.append(struct.unpack_from("<d", f.read(), 16)[0])
        self.assertEqual(frames, [-12 + i * 1.5 for i in range(11)])


class FailedRange(RigctlCase):
    """A range whose frame 5 collapses (test_frames_range.mirror_scene): the server ends the
    body with its error; rigctl keeps frames 0-4, names frame, code and detail, exits 1."""

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("demo", "bad", frameStart=0, frameEnd=8)
        self.rigd.edit("bad", mirror_scene().all_ops())
        self.out = os.path.join(self.tmp, "bad")

    def test_rigctl_reports_frame_code_and_detail_and_exits_1(self):
        for fmt in ("obj", "f32"):
            for start in ("0", "-200"):   # -200: the failure lies in a later chunk
                with self.subTest(fmt=fmt, start=start):
                    shutil.rmtree(self.out, ignore_errors=True)
                    p = self.rigctl("frames", "--shot", "bad", "--layer", "m", "--from", start,
                                    "--to", "8", "--format", fmt, "--out", self.out)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    lines = p.stderr.splitlines()
                    self.assertEqual(lines[0], "rigctl: the range failed at frame 5: "
                                     "MESH_COLLAPSED: triangle 0 collapsed to area 0 from 5000")
                    self.assertIn("error 1: MESH_COLLAPSED", lines[1])
                    n_good = 5 - int(start)
                    self.assertIn(f"{n_good} complete frame files are kept", lines[-1])
                    self.assertEqual(len(os.listdir(self.out)), n_good)
                    self.assertNotIn("broke off", p.stderr)

    def test_a_trickled_error_terminator_is_read_the_same(self):
        """The failing body from a stand-in server, a few bytes at a time."""
        for fmt, extra in (("f32", "&f32Version=2"), ("obj", "")):
            with self.subTest(fmt=fmt):
                shutil.rmtree(self.out, ignore_errors=True)
                body = self.rigd.get("/v1/shots/bad/layers/m/frames?from=0&to=8"
                                     f"&format={fmt}{extra}").body
                handler = type("H", (Replay,), {"body": body, "mode": "trickle"})
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
                threading.Thread(target=server.serve_forever, daemon=True).start()
                self.addCleanup(server.server_close)
                self.addCleanup(server.shutdown)
                p = subprocess.run([RIGCTL, "--url",
                                    f"http://127.0.0.1:{server.server_address[1]}", "frames",
                                    "--shot", "bad", "--layer", "m", "--from", "0", "--to", "8",
                                    "--format", fmt, "--out", self.out],
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertTrue(p.stderr.startswith("rigctl: the range failed at frame 5: "
                                                    "MESH_COLLAPSED: "), p.stderr)
                self.assertEqual(len(os.listdir(self.out)), 5)

    def test_a_frame_that_is_not_from_plus_i_step_fails(self):
        """The server answers step 2.5 while rigctl asked (it says) for step 2."""
        good = self.rigd.get("/v1/shots/bad/layers/m/frames?from=0&to=4&step=2.5&format=obj")
        handler = type("H", (Replay,), {"body": good.body, "mode": "trickle"})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        p = subprocess.run([RIGCTL, "--url", f"http://127.0.0.1:{server.server_address[1]}",
                            "frames", "--shot", "bad", "--layer", "m", "--from", "0", "--to",
                            "4", "--step", "2", "--out", self.out],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 1)
        self.assertIn("frame 1 of the range is 2.5, not from + 1·step = 2", p.stderr)
        self.assertEqual(os.listdir(self.out), ["frame_0.obj"])


class Replay(http.server.BaseHTTPRequestHandler):
    """Answers every GET with `body` from the server: trickled a few bytes at a
    time ("trickle"), cut off midway under a Content-Length that promises more
    ("cut"), or ended cleanly after `keep` bytes ("short")."""

    protocol_version = "HTTP/1.1"
    body, content_type, mode, keep = b"", "application/octet-stream", "trickle", 0

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", self.content_type)
        if self.mode == "cut":
            self.send_header("Content-Length", str(len(self.body)))
            self.end_headers()
            self.wfile.write(self.body[:self.keep])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        data = self.body if self.mode == "trickle" else self.body[:self.keep]
        i, n = 0, 1
        while i < len(data):
            piece = data[i:i + n]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
            time.sleep(0.0005)
            i, n = i + len(piece), n % 7 + 1
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class BrokenStreams(FramesCase):
    """The splitter against bodies in odd pieces and bodies that stop early,
    replaying the real server's bytes from a stand-in server."""

    def replay(self, fmt, mode, keep=0, version="2"):
        """The body rigctl gets (f32 version 2 unless version says 1), replayed by mode."""
        extra = f"&f32Version={version}" if fmt == "f32" else ""
        r = self.rigd.get("/v1/shots/s1/layers/arm/frames?from=0&to=10&step=2.5"
                          f"&format={fmt}{extra}")
        self.assertEqual(r.status, 200, r)
        handler = type("H", (Replay,), {"body": r.body, "mode": mode, "keep": keep})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        p = subprocess.run([RIGCTL, "--url", f"http://127.0.0.1:{server.server_address[1]}",
                            "frames", "--shot", "s1", "--layer", "arm", "--format", fmt,
                            "--from", "0", "--to", "10", "--step", "2.5", "--out", self.out],
                           capture_output=True, text=True, timeout=120)
        return p, r.body

    def direct(self, fmt):
        """The files of the same range fetched straight from rigd."""
        out = os.path.join(self.tmp, "direct-" + fmt)
        self.ok("frames", "--shot", "s1", "--layer", "arm", "--from", "0", "--to", "10",
                "--step", "2.5", "--format", fmt, "--out", out)
        return read_dir(out)

    def written(self):
        return read_dir(self.out)

    def test_a_trickled_stream_splits_the_same(self):
        for fmt, version in (("f32", "2"), ("f32", "1"), ("obj", None)):
            with self.subTest(fmt=fmt, version=version):
                shutil.rmtree(self.out, ignore_errors=True)
                p, _ = self.replay(fmt, "trickle", version=version)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(self.written(), self.direct(fmt))

    def test_a_stream_cut_midway_keeps_only_whole_frames(self):
        for fmt in ("f32", "obj"):
            with self.subTest(fmt=fmt):
                shutil.rmtree(self.out, ignore_errors=True)
                full = self.direct(fmt)
                body = self.rigd.get("/v1/shots/s1/layers/arm/frames?from=0&to=10&step=2.5"
                                     f"&format={fmt}").body
                p, _ = self.replay(fmt, "cut", keep=len(body) * 5 // 9)
                self.assertEqual(p.returncode, 1)
                self.assertIn("broke off", p.stderr)
                got = self.written()
                self.assertTrue(got, "the frames before the cut are kept")
                self.assertLess(len(got), 5)
                for name, data in got.items():  # no half files, no temporaries
                    self.assertEqual(data, full[name])

    def test_a_stream_with_fewer_frames_than_announced_fails(self):
        header_and_two = 16 + 2 * (8 + 8 + 8 * 18)
        p, _ = self.replay("f32", "short", keep=header_and_two)
        self.assertEqual(p.returncode, 1)
        self.assertIn("after 2 of the 5 frames", p.stderr)
        self.assertEqual(len(self.written()), 2)


class ExitCodes(RigctlCase):
    def test_usage_errors_exit_2(self):
        cases = [[], ["frobnicate"], ["projects", "frob"], ["projects", "create"],
                 ["projects", "show"], ["edit", "--shot", "s1"], ["edit", "f.json"],
                 ["shots", "list"], ["projects", "list", "--fps", "3"], ["layers"],
                 ["receipts"], ["projects", "list", "--format", "yaml"], ["--bogus"],
                 ["projects", "show", "a", "b"]]
        for argv in cases:
            with self.subTest(argv=argv):
                p = self.rigctl(*argv)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn("--help", p.stderr)

    def test_an_unreadable_edit_file_is_a_usage_error(self):
        self.rigd.make_shot("demo", "s1")
        p = self.rigctl("edit", "--shot", "s1", os.path.join(self.tmp, "missing.json"))
        self.assertEqual(p.returncode, 2)
        p = self.rigctl("edit", "--shot", "s1", "-", input="{not json")
        self.assertEqual(p.returncode, 2)
        self.assertIn("not JSON", p.stderr)
        self.assertEqual(self.shot_version(), 0)

    def test_help(self):
        p = self.rigctl("--help", url=False)
        self.assertEqual(p.returncode, 0)
        for word in ("projects", "shots", "layers", "edit", "receipts", "frames", "Examples"):
            self.assertIn(word, p.stdout)

    def test_unknown_shot_exits_1(self):
        p = self.rigctl("layers", "--shot", "nope")
        self.assertEqual(p.returncode, 1)
        self.assertIn("NOT_FOUND", p.stderr)

    def test_unreachable_server_exits_1(self):
        p = self.rigctl("projects", "list", url=False,
                        env={"RIGD_URL": f"http://127.0.0.1:{free_port()}"})
        self.assertEqual(p.returncode, 1)
        self.assertIn("cannot reach rigd", p.stderr)
        self.assertEqual(p.stdout, "")


if __name__ == "__main__":
    main()
