"""The clients' part of issue 26 (item 6), against the real server: `rigctl import` of a
`.rig2d.json` generated here (tests/e2e/test_interchange_rig2d.py's arm()) — the receipt as
JSON and as a table (under a pty), the import report's notes on stderr, `--dry-run` changing
nothing, `--id-prefix`/`--parent`, stdin, the format taken from the file name or sniffed from
Spine's skeleton.spine, the write options in the query (`--expected-version`, the fence,
`--idempotency-key`), a bad document (exit 1, its pointer printed, nothing changed) and a
format the server does not import; `rigctl export` to stdout and `--output` byte for byte as
the API answers, `--report`, `--version`, the unsupported count on stderr, a bad format.
Binary exports are checked against a stand-in server answering `model/gltf-binary` (bytes
with NULs, never to a terminal unless `--output -`), and glTF against rigd itself once it
exports it (until then a test pins today's 400 with validFormats).

The binaries are found next to the server's build: <build>/clients/ for
RIGD_BIN=<build>/server/rigd.
"""
import http.server
import json
import math
import os
import pty
import select
import shutil
import subprocess
import tempfile
import threading
import unittest

from rigd_harness import RIGD_BIN, RigdTestCase, main
from test_interchange_rig2d import arm

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")
S = "s"
GLB = b"glTF\x02\x00\x00\x00" + bytes(range(256)) + b"\x00\r\n\x1a"


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("RIGD_")}


def run(argv, input=None):
    return subprocess.run(argv, capture_output=True, env=clean_env(), input=input, timeout=120)


def run_tty(argv):
    """argv with stdout a terminal (a pty) and stderr a pipe: (exit code, what the
    terminal showed, stderr)."""
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave,
                             stderr=subprocess.PIPE, env=clean_env())
    finally:
        os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 10)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    err = p.stderr.read()
    p.stderr.close()
    return (p.wait(timeout=60), out.replace(b"\r\n", b"\n").decode("utf-8", "replace"),
            err.decode())


@unittest.skipUnless(os.access(RIGCTL, os.X_OK), "rigctl not built")
class InterchangeCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.url = f"http://127.0.0.1:{self.rigd.port}"
        self.tmp = tempfile.mkdtemp(prefix="rigd-e2e-interchange-")
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=4)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        super().tearDown()

    def file(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else json.dumps(data).encode())
        return path

    def rigctl(self, *args, input=None):
        return run([RIGCTL, "--url", self.url, *args], input=input)

    def ok(self, p):
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        return p.stdout

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def layers(self):
        return [(l["layerId"], l.get("parentId"))
                for l in self.rigd.get(f"/v1/shots/{S}").json["layers"]]

    def refused(self, p, code, status):
        """A problem printed as rigctl prints problems: exit 1, nothing on stdout."""
        err = p.stderr.decode()
        self.assertEqual((p.returncode, p.stdout), (1, b""), err)
        self.assertIn(f"rigctl: {code} (HTTP {status}, ", err)
        return err

    def usage(self, p, message):
        err = p.stderr.decode()
        self.assertEqual((p.returncode, p.stdout), (2, b""), err)
        self.assertIn(message, err)
        self.assertIn("--help", err)

    def valid_formats(self, route):
        """The formats the server takes for import or export (its 400's validFormats)."""
        if route == "import":
            r = self.rigd.post(f"/v1/shots/{S}/import?format=-none-", {})
        else:
            r = self.rigd.get(f"/v1/shots/{S}/export?format=-none-")
        return self.assertProblem(r, 400, "INVALID_QUERY")["validFormats"]


class Import(InterchangeCase):
    def test_a_rig2d_file_imports_and_prints_the_receipt_and_its_report(self):
        doc = arm()
        path = self.file("arm.rig2d.json", doc)
        p = self.rigctl("import", path, "--shot", S, "--json")
        receipt = json.loads(self.ok(p))
        self.assertEqual(p.stdout.count(b"\n"), 1, "one JSON line")
        self.assertEqual((receipt["fromVersion"], receipt["toVersion"]), (0, 1))
        entry = receipt["ops"][0]
        self.assertEqual(entry["op"], "shot.import")
        self.assertEqual([o.get("layerId") for o in entry["expandedOps"]],
                         ["base", "mid", "tip", "mesh", "mesh", "mesh"])
        report = entry["importReport"]
        self.assertEqual(report["format"], "rig2d")
        self.assertEqual([u["feature"] for u in report["unsupported"]], ["sprite"])
        # the whole receipt is what the server stored
        self.assertEqual(self.rigd.get(f"/v1/receipts/{receipt['receiptId']}").json, receipt)
        self.assertEqual(self.version(), 1)
        self.assertEqual(self.layers(), [("base", None), ("mid", "base"), ("tip", "mid"),
                                         ("mesh", None)])
        mid = self.rigd.get(f"/v1/shots/{S}/layers/mid").json
        self.assertAlmostEqual(mid["transform"]["rotation"], math.degrees(0.25), places=12)
        # what could not be carried: one line on stderr per note, with its pointer
        err = p.stderr.decode()
        self.assertIn("rigctl: import: unsupported: sprite at /sprite", err)
        self.assertEqual(err.count("\n"), 1, err)

    def test_the_table_shows_the_receipt_the_report_and_the_mapping(self):
        path = self.file("arm.rig2d.json", arm())
        code, out, err = run_tty([RIGCTL, "--url", self.url, "import", path, "--shot", S,
                                  "--id-prefix", "a."])
        self.assertEqual(code, 0, err)
        self.assertIn("shot     s  version 0 → 1", out)
        self.assertIn("ops        0  shot.import", out)
        self.assertIn("+ layer.create", out)
        self.assertIn("import   rig2d: 4 mapped, 1 unsupported, 0 adjusted (listed on stderr)",
                      out)
        self.assertRegex(out, r"mapped   bone +/bones/0 +a\.base\n")
        self.assertRegex(out, r"\n +mesh +/mesh +a\.mesh\n")
        self.assertIn("changed  a.base, a.mid, a.tip, a.mesh", out)
        self.assertIn("rigctl: import: unsupported: sprite at /sprite", err)

    def test_a_dry_run_changes_nothing(self):
        path = self.file("arm.rig2d.json", arm())
        receipt = json.loads(self.ok(self.rigctl("import", path, "--shot", S, "--dry-run")))
        self.assertTrue(receipt["dryRun"])
        self.assertIsNone(receipt["receiptId"])
        self.assertEqual(receipt["ops"][0]["importReport"]["format"], "rig2d")
        self.assertEqual(self.version(), 0)
        self.assertEqual(self.layers(), [])
        code, out, _ = run_tty([RIGCTL, "--url", self.url, "import", path, "--shot", S,
                                "--dry-run"])
        self.assertEqual(code, 0)
        self.assertIn("dry run: the batch is valid; nothing was written", out)
        self.assertEqual(self.version(), 0)

    def test_id_prefix_parent_and_stdin(self):
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "rig", "name": "rig",
                            "kind": "group"}])
        path = self.file("arm.rig2d.json", arm())
        self.ok(self.rigctl("import", path, "--shot", S, "--id-prefix", "a.", "--parent", "rig"))
        self.assertEqual(self.layers(), [("rig", None), ("a.base", "rig"), ("a.mid", "a.base"),
                                         ("a.tip", "a.mid"), ("a.mesh", "rig")])
        # stdin says no file name: the format is given
        doc = json.dumps(arm(2)).encode()
        receipt = json.loads(self.ok(self.rigctl("import", "-", "--shot", S, "--format", "rig2d",
                                                 "--id-prefix", "b.", input=doc)))
        self.assertEqual(receipt["changedLayers"], ["b.base", "b.mid", "b.tip", "b.body",
                                                    "b.sleeve"])
        self.assertEqual(self.version(), 3)
        # the same prefix again: the expanded layer.create's LAYER_EXISTS, at its bone
        err = self.refused(self.rigctl("import", path, "--shot", S, "--id-prefix", "a."),
                           "LAYER_EXISTS", 422)
        self.assertIn("at /ops/0/document/bones/0", err)
        self.assertEqual(self.version(), 3)

    def test_the_format_comes_from_the_name_or_spines_version_member(self):
        doc = json.dumps(arm()).encode()
        self.usage(self.rigctl("import", "-", "--shot", S, input=doc),
                   "--format is required: stdin is not named *.rig2d.json")
        plain = self.file("arm.json", doc)
        self.usage(self.rigctl("import", plain, "--shot", S),
                   f"--format is required: '{plain}' is not named *.rig2d.json")
        self.ok(self.rigctl("import", plain, "--shot", S, "--format", "rig2d"))
        # a Spine skeleton (its skeleton.spine member) is sent as spine
        spine = {"skeleton": {"spine": "4.2.11", "hash": "x"},
                 "bones": [{"name": "root"}, {"name": "arm", "parent": "root", "x": 4}]}
        p = self.rigctl("import", "-", "--shot", S, "--id-prefix", "sp.",
                        input=json.dumps(spine).encode())
        self.ok(p)
        self.assertEqual(self.version(), 2)
        bone = self.rigd.get(f"/v1/shots/{S}/layers/sp.arm").json
        self.assertEqual((bone["parentId"], bone["transform"]["position"]), ("sp.root", [4, 0]))

    def test_a_bad_document_prints_its_pointer_and_changes_nothing(self):
        doc = arm()
        doc["bones"][1]["parent"] = 7
        p = self.rigctl("import", self.file("bad.rig2d.json", doc), "--shot", S)
        err = self.refused(p, "IMPORT_INVALID", 422)
        self.assertIn("error 1: IMPORT_INVALID at /ops/0/document/bones/1/parent (op 0)", err)
        self.assertIn("how to fix it: GET /v1/errors/IMPORT_INVALID", err)
        doc = arm()
        doc["version"] = 3
        err = self.refused(self.rigctl("import", self.file("v3.rig2d.json", doc), "--shot", S),
                           "IMPORT_VERSION", 422)
        self.assertIn("at /ops/0/document/version", err)
        # not JSON, and empty: sent as they are, the server's MALFORMED_JSON
        for data in (b"{nope", b""):
            with self.subTest(data=data):
                self.refused(self.rigctl("import", self.file("x.rig2d.json", data), "--shot",
                                         S), "MALFORMED_JSON", 400)
        self.usage(self.rigctl("import", os.path.join(self.tmp, "missing.rig2d.json"), "--shot",
                               S), "cannot read")
        self.assertEqual(self.version(), 0)

    def test_a_format_the_server_does_not_import_lists_the_valid_ones(self):
        path = self.file("arm.rig2d.json", arm())
        err = self.refused(self.rigctl("import", path, "--shot", S, "--format", "fbx"),
                           "INVALID_QUERY", 400)
        self.assertIn("format 'fbx' cannot be imported", err)
        self.assertIn("validFormats: [\"rig2d\"", err)
        self.assertEqual(self.version(), 0)

    def test_the_write_options_go_in_the_query(self):
        path = self.file("arm.rig2d.json", arm())
        self.refused(self.rigctl("import", path, "--shot", S, "--expected-version", "3"),
                     "VERSION_CONFLICT", 409)
        self.usage(self.rigctl("import", path, "--shot", S, "--lock-id", "k"),
                   "--lock-id and --fencing-token go together")
        self.refused(self.rigctl("import", path, "--shot", S, "--lock-id", "k",
                                 "--fencing-token", "1"), "LOCK_LOST", 423)
        self.assertEqual(self.version(), 0)
        argv = ("import", path, "--shot", S, "--expected-version", "0", "--idempotency-key",
                "imp-1", "--check-frames")
        a = json.loads(self.ok(self.rigctl(*argv)))
        b = json.loads(self.ok(self.rigctl(*argv)))  # a replay: the first answer again
        self.assertEqual(a["receiptId"], b["receiptId"])
        self.assertEqual(self.version(), 1)
        # the key with another request (no expectedVersion in its query) is refused
        self.refused(self.rigctl("import", path, "--shot", S, "--idempotency-key", "imp-1",
                                 "--check-frames"), "IDEMPOTENCY_KEY_REUSED", 422)
        self.assertEqual(self.version(), 1)


class Export(InterchangeCase):
    def setUp(self):
        super().setUp()
        r = self.rigd.post(f"/v1/shots/{S}/import?format=rig2d", arm())
        self.assertEqual(r.status, 201, r)

    def api(self, query):
        r = self.rigd.get(f"/v1/shots/{S}/export?{query}")
        self.assertEqual(r.status, 200, r)
        return r

    def test_the_document_to_stdout_and_to_a_file_as_the_api_answers(self):
        want = self.api("format=rig2d")
        self.assertEqual(want.header("X-Rigd-Export-Unsupported"), "0")
        p = self.rigctl("export", "--shot", S, "--format", "rig2d")
        self.assertEqual(self.ok(p), want.body)
        self.assertEqual(p.stderr, b"")  # nothing unsupported: nothing said
        out = os.path.join(self.tmp, "s.rig2d.json")
        p = self.rigctl("export", "--shot", S, "--format", "rig2d", "--output", out)
        self.assertEqual((self.ok(p), p.stderr), (b"", b""))
        with open(out, "rb") as f:
            self.assertEqual(f.read(), want.body)
        # JSON shows on a terminal
        code, shown, err = run_tty([RIGCTL, "--url", self.url, "export", "--shot", S,
                                    "--format", "rig2d"])
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(shown), want.json)
        # and it imports again
        self.rigd.make_shot("p", "t")
        receipt = json.loads(self.ok(self.rigctl("import", out, "--shot", "t")))
        self.assertEqual(receipt["changedLayers"], ["base", "mid", "tip", "mesh"])

    def test_unsupported_features_are_counted_on_stderr_and_reported(self):
        self.rigd.edit(S, [{"op": "layer.key.put", "layerId": "mid", "channel": "rotation",
                            "keys": [{"frame": 0, "value": 0}, {"frame": 4, "value": 90}]}])
        want = self.api("format=rig2d")
        n = int(want.header("X-Rigd-Export-Unsupported"))
        self.assertGreater(n, 0)
        p = self.rigctl("export", "--shot", S, "--format", "rig2d")
        self.assertEqual(self.ok(p), want.body)
        self.assertIn(f"rigctl: export: {n} feature", p.stderr.decode())
        self.assertIn("'rigctl export --report' lists them", p.stderr.decode())
        report = self.api("format=rig2d&report=true")
        p = self.rigctl("export", "--shot", S, "--format", "rig2d", "--report")
        self.assertEqual(json.loads(self.ok(p)), report.json)
        self.assertEqual(p.stderr, b"")
        self.assertEqual(json.loads(self.ok(self.rigctl(
            "export", "--shot", S, "--format", "rig2d", "--report", "--json"))), report.json)
        out = os.path.join(self.tmp, "report.json")
        self.ok(self.rigctl("export", "--shot", S, "--format", "rig2d", "--report", "--output",
                            out))
        with open(out, "rb") as f:
            self.assertEqual(f.read(), report.body)
        code, shown, err = run_tty([RIGCTL, "--url", self.url, "export", "--shot", S,
                                    "--format", "rig2d", "--report"])
        self.assertEqual(code, 0, err)
        self.assertIn(f"rig2d export of shot s version 2: {n} unsupported", shown)
        self.assertRegex(shown, r"\nfeature +layer +detail\n")
        self.assertRegex(shown, r"\nkeys +mid +")

    def test_a_version(self):
        self.rigd.edit(S, [{"op": "layer.delete", "layerId": "tip"},
                           {"op": "layer.skin", "layerId": "mesh", "skin": None}])
        old = self.api("format=rig2d&version=1")
        now = self.api("format=rig2d")
        self.assertNotEqual(old.body, now.body)
        self.assertEqual(self.ok(self.rigctl("export", "--shot", S, "--format", "rig2d",
                                             "--version", "1")), old.body)
        self.assertEqual(self.ok(self.rigctl("export", "--shot", S, "--format", "rig2d")),
                         now.body)
        self.refused(self.rigctl("export", "--shot", S, "--format", "rig2d", "--version", "9"),
                     "NOT_FOUND", 404)

    def test_bad_formats_and_usage(self):
        out = os.path.join(self.tmp, "x.obj")
        err = self.refused(self.rigctl("export", "--shot", S, "--format", "obj", "--output",
                                       out), "INVALID_QUERY", 400)
        self.assertIn("format 'obj' cannot be exported", err)
        self.assertIn("validFormats: [\"rig2d\"", err)
        self.assertFalse(os.path.exists(out), "a refused export writes no file")
        self.usage(self.rigctl("export", "--shot", S), "--format is required")
        self.usage(self.rigctl("export", "--format", "rig2d"), "--shot is required")
        self.usage(self.rigctl("export", "--shot", S, "--format", "rig2d", "--dry-run"),
                   "option '--dry-run' does not apply to 'export'")
        self.usage(self.rigctl("import", "f", "--shot", S, "--report"),
                   "option '--report' does not apply to 'import'")
        p = self.rigctl("export", "--shot", S, "--format", "rig2d", "--output",
                        os.path.join(self.tmp, "no", "such", "dir.json"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("cannot write", p.stderr.decode())

    def test_gltf_export_is_byte_for_byte(self):
        want = self.api("format=gltf")
        self.assertEqual(self.ok(self.rigctl("export", "--shot", S, "--format", "gltf")),
                         want.body)
        out = os.path.join(self.tmp, "s.glb")
        self.ok(self.rigctl("export", "--shot", S, "--format", "gltf", "--output", out))
        with open(out, "rb") as f:
            self.assertEqual(f.read(), want.body)
        code, shown, err = run_tty([RIGCTL, "--url", self.url, "export", "--shot", S,
                                    "--format", "gltf"])
        self.assertEqual((code, shown), (2, ""), err)


class GlbServer(http.server.BaseHTTPRequestHandler):
    """A stand-in for rigd's binary export: GLB bytes (NULs, CR LF) and a count."""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "model/gltf-binary")
        self.send_header("Content-Length", str(len(GLB)))
        self.send_header("X-Rigd-Export-Unsupported", "2")
        self.end_headers()
        self.wfile.write(GLB)

    def log_message(self, *args):
        pass


@unittest.skipUnless(os.access(RIGCTL, os.X_OK), "rigctl not built")
class BinaryExport(unittest.TestCase):
    def setUp(self):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), GlbServer)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.argv = [RIGCTL, "--url", f"http://127.0.0.1:{self.server.server_address[1]}",
                     "export", "--shot", S, "--format", "gltf"]
        self.tmp = tempfile.mkdtemp(prefix="rigd-e2e-glb-")

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_binary_bytes_arrive_unchanged_and_never_on_a_terminal(self):
        p = run(self.argv)
        self.assertEqual((p.returncode, p.stdout), (0, GLB), p.stderr)
        self.assertIn(b"rigctl: export: 2 features of the shot are not in the gltf document",
                      p.stderr)
        out = os.path.join(self.tmp, "s.glb")
        self.assertEqual(run(self.argv + ["--output", out]).returncode, 0)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), GLB)
        code, shown, err = run_tty(self.argv)
        self.assertEqual((code, shown), (2, ""), err)
        self.assertIn("the gltf document is binary (model/gltf-binary): not written to a "
                      "terminal", err)
        self.assertIn("--output FILE", err)
        code, shown, err = run_tty(self.argv + ["--output", "-"])
        self.assertEqual(code, 0, err)
        self.assertTrue(shown.startswith("glTF"), shown[:8])


if __name__ == "__main__":
    main()
