"""The clients' part of issue 24 item 7, against the real server: `mesh-data --kind pins`
and `--kind pin-weights` (its camelCase `pinWeights` too) in every format, read back and
compared with the API; and `rigctl pin add/move/key/delete/list` end to end (receipts, the
pins they leave, dry runs, --expected-version, idempotency keys, locks), with every error
path: the server's PUPPET_PINS and the other problems printed as rigctl prints problems
(exit 1, nothing changed), values at and past the bounds the server keeps, missing options
and bad values (exit 2, nothing sent).

The binaries are found next to the server's build: <build>/clients/ for
RIGD_BIN=<build>/server/rigd.
"""
import csv
import io
import json
import os
import subprocess
import unittest

from rigd_harness import RIGD_BIN, ROOT, RigdTestCase, main

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")
MESH_DATA = os.path.join(BUILD, "clients", "mesh-data")
S = "s"
N = 6  # a 6 × 6 grid, 10 apart: 36 vertices, 50 triangles

PIN_COLUMNS = ["pinIndex", "id", "x", "y", "vertexIndex", "rotation", "stiffness", "scale",
               "overlap", "overlapExtent", "keys"]


def grid():
    source = [{"x": 10 * (i % N), "y": 10 * (i // N)} for i in range(N * N)]
    triangles = []
    for r in range(N - 1):
        for c in range(N - 1):
            a = r * N + c
            triangles += [[a, a + 1, a + N + 1], [a, a + N + 1, a + N]]
    return source, triangles


def puppet_ops():
    source, triangles = grid()
    pins = [{"id": "a", "x": 0, "y": 0},
            {"id": "b", "x": 50, "y": 50, "stiffness": 2, "scale": 1.25,
             "keys": {"rotation": [{"frame": 0, "value": 0},
                                   {"frame": 8, "value": 45, "interp": "bezier",
                                    "ease": [0.4, 0, 0.6, 1]}]}},
            {"id": "c", "x": 50, "y": 0.1, "overlap": 30, "overlapExtent": 2}]
    return [{"op": "layer.create", "layerId": "m", "name": "Card", "kind": "mesh"},
            {"op": "layer.create", "layerId": "g", "name": "Group", "kind": "group"},
            {"op": "layer.create", "layerId": "plain", "name": "Plain", "kind": "mesh"},
            {"op": "layer.puppet", "layerId": "m",
             "puppet": {"source": source, "triangles": triangles, "pins": pins}}]


def run(argv, input=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("RIGD_")}
    return subprocess.run(argv, capture_output=True, text=True, env=e, input=input, timeout=120)


@unittest.skipUnless(os.access(RIGCTL, os.X_OK) and os.access(MESH_DATA, os.X_OK),
                     "clients not built")
class PinsCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.url = f"http://127.0.0.1:{self.rigd.port}"
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=20)
        self.rigd.edit(S, puppet_ops())

    # ---- helpers ----

    def rigctl(self, *args, actor=None, input=None):
        extra = ["--actor", actor] if actor else []
        return run([RIGCTL, "--url", self.url, *extra, *args], input=input)

    def mesh_data(self, *args):
        return run([MESH_DATA, "--url", self.url, *args])

    def ok(self, p):
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def pin(self, *args, **kw):
        """`rigctl pin VERB --shot s --layer m ARGS`, the process."""
        verb, *rest = args
        layer = [] if "--layer" in rest else ["--layer", "m"]
        return self.rigctl("pin", verb, "--shot", S, *layer, *rest, **kw)

    def receipt(self, *args, **kw):
        return json.loads(self.ok(self.pin(*args, "--format", "json", **kw)))

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def api_page(self, kind, layer="m", **query):
        q = "&".join(f"{k}={v}" for k, v in query.items())
        r = self.rigd.get(f"/v1/shots/{S}/layers/{layer}/mesh-data/{kind}" + (f"?{q}" if q else ""))
        self.assertEqual(r.status, 200, r)
        return r.json

    def pins(self, **query):
        return {p["id"]: p for p in self.api_page("pins", pageSize=10000, **query)["items"]}

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


class MeshDataPins(PinsCase):
    def test_pins_ndjson_and_json_are_the_servers(self):
        want = self.api_page("pins")
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "pins"))
        self.assertEqual([json.loads(line) for line in out.splitlines()], want["items"])
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "pins",
                                     "--format", "json"))
        self.assertEqual(json.loads(out), want)

    def test_pins_csv_has_every_column_and_keys_as_one_json_cell(self):
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "pins",
                                     "--format", "csv"))
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], PIN_COLUMNS)
        items = self.api_page("pins")["items"]
        self.assertEqual(len(rows), 1 + len(items))
        for row, item in zip(rows[1:], items):
            with self.subTest(pin=item["id"]):
                cells = dict(zip(PIN_COLUMNS, row))
                self.assertEqual(cells["id"], item["id"])
                for col in PIN_COLUMNS:
                    if col not in ("id", "keys"):
                        self.assertEqual(float(cells[col]), item[col], col)
                # the keys whole (empty without keys): nothing is lost
                self.assertEqual(json.loads(cells["keys"]) if cells["keys"] else {},
                                 item["keys"])
        self.assertEqual(rows[2][1], "b")
        self.assertTrue(rows[2][-1].startswith('{"rotation":[{"frame":0,'), rows[2])
        self.assertEqual(rows[1][-1], "")

    def test_pins_table_counts_the_keys(self):
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "pins",
                                     "--format", "table"))
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["index", "pin", "x", "y", "vertex", "rotation",
                                            "stiffness", "scale", "overlap", "extent", "keys"])
        self.assertEqual(lines[2].split(),
                         ["1", "b", "50", "50", "35", "0", "2", "1.25", "0", "1", "rotation", "2"])
        self.assertEqual(lines[3].split()[-1], "-")
        self.assertIn(f"3 pins of 3 · shot {S} layer m version 1", out)

    def test_pin_weights_in_every_format_and_both_spellings(self):
        want = self.api_page("pinWeights", pageSize=10000)
        self.assertEqual(len(want["items"]), N * N)
        for kind in ("pin-weights", "pinWeights"):
            with self.subTest(kind=kind):
                args = ("--shot", S, "--layer", "m", "--kind", kind, "--all")
                out = self.ok(self.mesh_data(*args, "--format", "ndjson"))
                self.assertEqual([json.loads(line) for line in out.splitlines()], want["items"])
                # CSV: one row per (vertex, pin), like the skin weights'
                out = self.ok(self.mesh_data(*args, "--format", "csv"))
                rows = list(csv.reader(io.StringIO(out)))
                self.assertEqual(rows[0], ["vertexIndex", "pinId", "weight"])
                flat = [[str(it["vertexIndex"]), w["pinId"], w["weight"]]
                        for it in want["items"] for w in it["weights"]]
                self.assertEqual([[r[0], r[1], float(r[2])] for r in rows[1:]], flat)
                self.assertEqual(rows[1], ["0", "a", "1"])
        # json: the page as received; with --all and a small maxBytes one page a line
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "pin-weights",
                                     "--format", "json"))
        self.assertEqual(json.loads(out), self.api_page("pinWeights"))
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "pin-weights",
                                     "--format", "json", "--all", "--max-bytes", "600"))
        pages = [json.loads(line) for line in out.splitlines()]
        self.assertGreater(len(pages), 2)
        self.assertEqual([it for p in pages for it in p["items"]], want["items"])
        # table: the vertex on its first row, a footer counting vertices
        out = self.ok(self.mesh_data("--shot", S, "--layer", "m", "--kind", "pin-weights",
                                     "--format", "table", "--page-size", "2"))
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["vertex", "pin", "weight"])
        self.assertEqual(lines[1].split(), ["0", "a", "1"])
        n_weights = len(want["items"][1]["weights"])
        self.assertEqual(len(lines[2].split()), 3)
        self.assertTrue(all(len(line.split()) == 2 for line in lines[3:2 + n_weights]), lines)
        self.assertIn(f"2 pin weights of {N * N} · shot {S} layer m version 1", out)
        self.assertIn("next page: --page-token ", out)

    def test_a_layer_without_a_puppet_pages_empty_and_a_group_is_refused(self):
        for fmt, want in (("csv", ",".join(PIN_COLUMNS) + "\n"), ("ndjson", "")):
            out = self.ok(self.mesh_data("--shot", S, "--layer", "plain", "--kind", "pins",
                                         "--format", fmt))
            self.assertEqual(out, want)
        out = self.ok(self.mesh_data("--shot", S, "--layer", "plain", "--kind", "pin-weights",
                                     "--format", "csv"))
        self.assertEqual(out, "vertexIndex,pinId,weight\n")
        p = self.mesh_data("--shot", S, "--layer", "g", "--kind", "pin-weights")
        self.assertEqual(p.returncode, 1)
        self.assertIn("mesh-data: LAYER_KIND (HTTP 422", p.stderr)

    def test_a_kind_spelled_otherwise_is_a_usage_error(self):
        for kind in ("pin_weights", "pin-Weights", "pinweights", "Pins"):
            with self.subTest(kind=kind):
                p = self.mesh_data("--shot", S, "--layer", "m", "--kind", kind)
                self.assertEqual((p.returncode, p.stdout), (2, ""))
                self.assertIn("is not vertices, triangles, uvs, joints, weights, pins, pin-weights or "
                              "keyframes", p.stderr)


class RigctlPinWrites(PinsCase):
    def test_pin_add_puts_one_pin_and_prints_the_receipt(self):
        p = self.pin("add", "--id", "d", "--x", "20", "--y", "30", "--rotation", "15",
                     "--stiffness", "0.5", "--scale", "2", "--overlap", "-4",
                     "--overlap-extent", "3", "--format", "table")
        out = self.ok(p)
        self.assertIn(f"shot     {S}  version 1 → 2\n", out)
        self.assertRegex(out, r"ops        0  layer\.puppet\.pin\.put +m\n")
        self.assertIn("changed  m\n", out)
        d = self.pins()["d"]
        self.assertEqual({k: d[k] for k in ("x", "y", "rotation", "stiffness", "scale", "overlap",
                                            "overlapExtent", "vertexIndex", "pinIndex", "keys")},
                         {"x": 20, "y": 30, "rotation": 15, "stiffness": 0.5, "scale": 2,
                          "overlap": -4, "overlapExtent": 3, "vertexIndex": 20, "pinIndex": 3,
                          "keys": {}})
        # the receipt in json is the server's
        r = self.receipt("add", "--id", "e", "--x", "30", "--y", "30")
        self.assertEqual((r["fromVersion"], r["toVersion"]), (2, 3))
        self.assertEqual([o["op"] for o in r["ops"]], ["layer.puppet.pin.put"])
        self.assertEqual(self.pins()["e"]["stiffness"], 0)  # the server's defaults

    def test_pin_add_replaces_a_pin_whole(self):
        self.receipt("add", "--id", "b", "--x", "40", "--y", "50")
        b = self.pins()["b"]
        self.assertEqual((b["x"], b["stiffness"], b["scale"], b["keys"]), (40, 0, 1, {}))

    def test_values_at_their_bounds_pass_and_past_them_are_puppet_pins(self):
        cases = [("stiffness", "0", "-1"), ("scale", "1e-300", "0"), ("overlap", "-100", "-100.5"),
                 ("overlap", "100", "101"), ("overlap-extent", "1e-9", "0")]
        for flag, good, bad in cases:
            with self.subTest(flag=flag, value=bad):
                before = self.version()
                err = self.refused(self.pin("add", "--id", "z", "--x", "20", "--y", "20",
                                            f"--{flag}", bad), "PUPPET_PINS")
                field = {"overlap-extent": "overlapExtent"}.get(flag, flag)
                self.assertIn(f"at /ops/0/pin/{field} (op 0)", err)
                self.assertEqual(self.version(), before, "nothing was written")
            with self.subTest(flag=flag, value=good):
                self.receipt("add", "--id", "z", "--x", "20", "--y", "20", f"--{flag}", good)
                self.assertEqual(self.pins()["z"][{"overlap-extent": "overlapExtent"}.get(
                    flag, flag)], float(good))

    def test_two_pins_on_one_vertex_and_layers_without_a_puppet(self):
        err = self.refused(self.pin("add", "--id", "d", "--x", "0.2", "--y", "0.1"),
                           "PUPPET_PIN_VERTEX")
        self.assertIn("otherPinId: a", err)
        err = self.refused(self.pin("add", "--layer", "plain", "--id", "d", "--x", "1",
                                    "--y", "1"), "MESH_BINDING_KIND")
        self.refused(self.pin("add", "--layer", "g", "--id", "d", "--x", "1", "--y", "1"),
                     "LAYER_KIND")
        self.refused(self.pin("delete", "--layer", "nope", "--id", "a"), "LAYER_NOT_FOUND")
        self.assertEqual(self.version(), 1)

    def test_pin_move_without_frame_is_a_new_rest_point_keeping_the_rest(self):
        before = self.pins()["b"]
        r = self.receipt("move", "--id", "b", "--x", "40", "--y", "45")
        self.assertEqual(r["toVersion"], 2)
        self.assertEqual([o["op"] for o in r["ops"]], ["layer.puppet.pin.put"])
        after = self.pins()["b"]
        self.assertEqual((after["x"], after["y"], after["vertexIndex"]), (40, 45, 28))
        for k in ("stiffness", "scale", "keys", "pinIndex", "rotation", "overlap"):
            self.assertEqual(after[k], before[k], k)
        # at --expected-version: read there and sent with it; a stale one is the conflict
        self.receipt("move", "--id", "a", "--x", "1", "--y", "0", "--expected-version", "2")
        self.assertEqual(self.pins()["a"]["x"], 1)
        err = self.refused(self.pin("move", "--id", "a", "--x", "2", "--y", "0",
                                    "--expected-version", "2"), "VERSION_CONFLICT", 409)
        self.assertIn("currentVersion: 3", err)
        self.assertEqual(self.pins()["a"]["x"], 1)

    def test_pin_move_of_an_unknown_pin_names_the_pins(self):
        p = self.pin("move", "--id", "zz", "--x", "1", "--y", "1")
        self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
        self.assertIn(f"rigctl: layer 'm' of shot '{S}' has no pin 'zz' at version 1 "
                      "(its pins: a, b, c)", p.stderr)
        p = self.pin("move", "--layer", "plain", "--id", "a", "--x", "1", "--y", "1")
        self.assertEqual(p.returncode, 1)
        self.assertIn("no pins: is it a puppet?", p.stderr)
        self.refused(self.pin("move", "--layer", "g", "--id", "a", "--x", "1", "--y", "1"),
                     "LAYER_KIND")
        # with --frame it is the server's key put that refuses
        err = self.refused(self.pin("move", "--id", "zz", "--x", "1", "--y", "1", "--frame", "3"),
                           "PUPPET_PINS")
        self.assertIn("at /ops/0/pinId (op 0)", err)
        self.assertEqual(self.version(), 1)

    def test_pin_move_at_a_frame_keys_both_positions(self):
        r = self.receipt("move", "--id", "a", "--x", "5", "--y", "6", "--frame", "10")
        self.assertEqual([o["op"] for o in r["ops"]], ["layer.puppet.pin.key.put"] * 2)
        a = self.pins()["a"]
        self.assertEqual((a["x"], a["y"]), (0, 0))  # the rest point stays
        self.assertEqual(a["keys"], {"position.x": [{"frame": 10, "value": 5, "interp": "linear"}],
                                     "position.y": [{"frame": 10, "value": 6, "interp": "linear"}]})
        self.receipt("move", "--id", "a", "--x", "7", "--y", "8", "--frame", "10",
                     "--ease", "0.25,0.1,0.25,1")
        key = self.pins()["a"]["keys"]["position.y"][0]
        self.assertEqual(key, {"frame": 10, "value": 8, "interp": "bezier",
                               "ease": [0.25, 0.1, 0.25, 1]})
        # the frame shows it: at frame 10 pin a's vertex 0 sits at (7, 8)
        r = self.rigd.get(f"/v1/shots/{S}/frames/10?layers=m")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["layers"][0]["vertices"][0], [7, 8])

    def test_pin_key_puts_one_key(self):
        self.receipt("key", "--id", "c", "--channel", "overlap", "--frame", "4", "--value", "-20",
                     "--interp", "hold")
        self.receipt("key", "--id", "b", "--channel", "rotation", "--frame", "8", "--value", "90")
        keys = self.pins()
        self.assertEqual(keys["c"]["keys"]["overlap"],
                         [{"frame": 4, "value": -20, "interp": "hold"}])
        # a key at the same frame is replaced (the bezier key of frame 8 became linear)
        self.assertEqual(keys["b"]["keys"]["rotation"][1],
                         {"frame": 8, "value": 90, "interp": "linear"})
        self.receipt("key", "--id", "b", "--channel", "scale", "--frame", "2", "--value", "0.5",
                     "--interp", "bezier", "--ease", "0,0,1,1")
        self.assertEqual(self.pins()["b"]["keys"]["scale"],
                         [{"frame": 2, "value": 0.5, "interp": "bezier", "ease": [0, 0, 1, 1]}])

    def test_pin_key_errors_are_the_servers(self):
        err = self.refused(self.pin("key", "--id", "zz", "--channel", "rotation", "--frame", "3",
                                    "--value", "1"), "PUPPET_PINS")
        self.assertIn("pinId: zz", err)
        for channel, bad in (("stiffness", "-0.001"), ("scale", "0"), ("overlap", "100.5")):
            with self.subTest(channel=channel):
                err = self.refused(self.pin("key", "--id", "a", "--channel", channel, "--frame",
                                            "0", "--value", bad), "PUPPET_PINS")
                self.assertIn("at /ops/0/keys/0/value (op 0)", err)
        # bezier without its ease, or an ease out of range: the key rules' OP_INVALID
        self.refused(self.pin("key", "--id", "a", "--channel", "rotation", "--frame", "0",
                              "--value", "1", "--interp", "bezier"), "OP_INVALID")
        self.refused(self.pin("key", "--id", "a", "--channel", "rotation", "--frame", "0",
                              "--value", "1", "--ease", "1.5,0,0.5,1"), "OP_INVALID")
        self.refused(self.pin("key", "--id", "a", "--channel", "rotation", "--frame", "0",
                              "--value", "1", "--interp", "hold", "--ease", "0,0,1,1"),
                     "OP_INVALID")
        self.assertEqual(self.version(), 1)

    def test_pin_delete(self):
        out = self.ok(self.pin("delete", "--id", "c", "--format", "table"))
        self.assertRegex(out, r"ops        0  layer\.puppet\.pin\.delete +m\n")
        self.assertEqual(sorted(self.pins()), ["a", "b"])
        err = self.refused(self.pin("delete", "--id", "c"), "PUPPET_PINS")
        self.assertIn("layer 'm' has no pin 'c'", err)
        self.assertIn("error 1: PUPPET_PINS at /ops/0/pinId (op 0)", err)
        self.assertEqual(self.version(), 2)

    def test_dry_run_idempotency_and_check_frames(self):
        out = self.ok(self.pin("delete", "--id", "c", "--dry-run", "--format", "table"))
        self.assertTrue(out.startswith("dry run: the batch is valid; nothing was written\n"), out)
        self.assertIn("version 1 → 2 (if applied)", out)
        self.assertEqual((self.version(), sorted(self.pins())), (1, ["a", "b", "c"]))
        first = self.receipt("key", "--id", "a", "--channel", "rotation", "--frame", "1",
                             "--value", "5", "--idempotency-key", "k-1")
        again = self.receipt("key", "--id", "a", "--channel", "rotation", "--frame", "1",
                             "--value", "5", "--idempotency-key", "k-1")
        self.assertEqual(again["receiptId"], first["receiptId"])
        self.assertEqual(self.version(), 2)
        r = self.receipt("move", "--id", "a", "--x", "3", "--y", "0", "--frame", "2",
                         "--check-frames")
        self.assertEqual(r["toVersion"], 3)

    def test_locks_guard_the_pin_writes(self):
        lock = json.loads(self.ok(self.rigctl("lock", "acquire", "--shot", S, "m",
                                              "--format", "json", actor="ana")))
        err = self.refused(self.pin("add", "--id", "d", "--x", "20", "--y", "20", actor="bob"),
                           "LAYER_LOCKED", 423)
        self.assertIn("locked by 'ana'", err)
        fence = ["--lock-id", lock["lockId"], "--fencing-token", str(lock["fencingToken"])]
        r = self.receipt("add", "--id", "d", "--x", "20", "--y", "20", *fence, actor="ana")
        self.assertEqual(r["actor"], "ana")
        # move without --frame reads, then writes with the lock too
        self.receipt("move", "--id", "d", "--x", "30", "--y", "20", *fence, actor="ana")
        self.assertEqual(self.pins()["d"]["x"], 30)
        self.usage(self.pin("delete", "--id", "d", "--lock-id", lock["lockId"], actor="ana"),
                   "--lock-id and --fencing-token go together")


class RigctlPinList(PinsCase):
    def test_pin_list_in_every_format(self):
        items = self.api_page("pins")["items"]
        self.assertEqual(json.loads(self.ok(self.pin("list", "--format", "json"))), items)
        out = self.ok(self.pin("list", "--format", "ndjson", "--page-size", "1"))
        self.assertEqual([json.loads(line) for line in out.splitlines()], items)  # every page
        out = self.ok(self.pin("list", "--format", "table"))
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["pin", "index", "x", "y", "vertex", "rotation",
                                            "stiffness", "scale", "overlap", "extent", "keys"])
        self.assertEqual(lines[2].split(),
                         ["b", "1", "50", "50", "35", "0", "2", "1.25", "0", "1", "rotation", "2"])
        self.assertEqual(lines[3].split(),
                         ["c", "2", "50", "0.1", "5", "0", "0", "1", "30", "2", "-"])
        # "rigctl pin" alone lists them
        self.assertEqual(self.ok(self.rigctl("pin", "--shot", S, "--layer", "m", "--format",
                                             "table")), out)

    def test_pin_list_at_a_version_and_of_a_layer_without_pins(self):
        self.receipt("delete", "--id", "a")
        now = json.loads(self.ok(self.pin("list", "--format", "json")))
        self.assertEqual([p["id"] for p in now], ["b", "c"])
        then = json.loads(self.ok(self.pin("list", "--version", "1", "--format", "json")))
        self.assertEqual([p["id"] for p in then], ["a", "b", "c"])
        self.assertEqual(self.ok(self.pin("list", "--layer", "plain", "--format", "table")),
                         "(no pins)\n")
        self.assertEqual(self.ok(self.pin("list", "--layer", "plain", "--format", "json")), "[]\n")
        self.refused(self.pin("list", "--layer", "g"), "LAYER_KIND")
        p = self.pin("list", "--version", "9")
        self.assertEqual(p.returncode, 1)
        self.assertIn("rigctl: ", p.stderr)


class RigctlPinUsage(PinsCase):
    def test_missing_options(self):
        for argv, message in (
                (["add", "--x", "1", "--y", "1"], "--id is required"),
                (["add", "--id", "d", "--y", "1"], "--x is required"),
                (["move", "--id", "d", "--x", "1"], "--y is required"),
                (["key", "--id", "a", "--channel", "rotation", "--value", "1"],
                 "--frame is required"),
                (["key", "--id", "a", "--frame", "1", "--value", "1"], "--channel is required"),
                (["key", "--id", "a", "--channel", "rotation", "--frame", "1"],
                 "--value is required"),
                (["delete"], "--id is required")):
            with self.subTest(argv=argv):
                self.usage(self.pin(*argv), message)
        self.usage(self.rigctl("pin", "list", "--shot", S), "--layer is required")
        self.usage(self.rigctl("pin", "add", "--layer", "m", "--id", "d", "--x", "1", "--y", "1"),
                   "--shot is required")
        self.assertEqual(self.version(), 1)

    def test_bad_values_and_options_of_other_commands(self):
        key = ["key", "--id", "a", "--channel", "rotation", "--frame", "1", "--value", "1"]
        for argv, message in (
                (["add", "--id", "d", "--x", "far", "--y", "1"], "--x 'far' is not a number"),
                (["add", "--id", "d", "--x", "1", "--y", "inf"], "--y 'inf' is not a number"),
                (["add", "--id", "d", "--x", "1", "--y", "1", "--scale", "nan"],
                 "--scale 'nan' is not a number"),
                (["key", "--id", "a", "--channel", "spin", "--frame", "1", "--value", "1"],
                 "--channel 'spin' is not position.x, position.y, rotation, stiffness, scale "
                 "or overlap"),
                (key + ["--interp", "cubic"], "--interp 'cubic' is not linear, hold or bezier"),
                (key + ["--ease", "0,0,1"], "--ease '0,0,1' is not four numbers X1,Y1,X2,Y2"),
                (key + ["--ease", "0,0,1,1,1"], "is not four numbers"),
                (key + ["--ease", "0,x,1,1"], "is not four numbers"),
                (key + ["--ease", "0,0,1,inf"], "is not four numbers"),
                (key[:-2] + ["--value", "lots"], "--value 'lots' is not a number"),
                (key + ["--expected-version", "-1"], "is not a version number"),
                (key + ["--fencing-token", "0", "--lock-id", "k"], "of at least 1"),
                (["move", "--id", "a", "--x", "1", "--y", "1", "--interp", "hold"],
                 "--interp and --ease key a move: they need --frame"),
                (["move", "--id", "a", "--x", "1", "--y", "1", "--ease", "0,0,1,1"],
                 "they need --frame"),
                (["add", "--id", "d", "--x", "1", "--y", "1", "--frame", "2"],
                 "option '--frame' does not apply to 'pin add'"),
                (["move", "--id", "d", "--x", "1", "--y", "1", "--stiffness", "2"],
                 "does not apply to 'pin move'"),
                (["delete", "--id", "d", "--x", "1"], "does not apply to 'pin delete'"),
                (["list", "--id", "a"], "does not apply to 'pin list'"),
                (["list", "--dry-run"], "does not apply to 'pin list'"),
                (["list", "--version", "-1"], "is not a version number")):
            with self.subTest(argv=argv):
                self.usage(self.pin(*argv), message)
        self.usage(self.rigctl("pin", "spin"), "'pin spin' is not a command (try add, move, key, "
                   "delete or list)")
        self.assertEqual(self.version(), 1)

    def test_the_channels_and_interps_are_the_contracts(self):
        import yaml
        with open(os.path.join(ROOT, "openapi.yaml"), encoding="utf-8") as f:
            schemas = yaml.safe_load(f)["components"]["schemas"]
        table = self.ok(run([RIGCTL, "--options-markdown"]))
        self.assertIn("| `--channel " + "\\|".join(schemas["PinChannel"]["enum"]) + "` |", table)
        self.assertIn("| `--interp " + "\\|".join(schemas["Interp"]["enum"]) + "` |", table)

    def test_the_help_page(self):
        out = self.ok(self.rigctl("pin", "--help"))
        for words in ("pin add --shot ID --layer ID --id P --x X --y Y", "pin move", "pin key",
                      "pin delete", "pin list", "\n  --channel ", "\n  --ease X1,Y1,X2,Y2",
                      "\n  --overlap-extent E", "\n  --dry-run", "\n  --lock-id",
                      "PUPPET_PINS", "Examples:"):
            self.assertIn(words, out)
        self.assertIn("pin add --shot ID", self.ok(self.rigctl("--help")))
        self.assertEqual(self.ok(self.rigctl("pin", "key", "--help")), out)


if __name__ == "__main__":
    main()
