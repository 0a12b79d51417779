"""mesh-data, the command-line client of the paged mesh-data route (SPEC §7, §9),
driven against the real server: every format of joints and weights read back
and compared with the API, --all over page sizes 1, 7 and 1000 and a small
maxBytes, page tokens from the command line, and the exit codes.

The binary is found next to the server's build: <build>/clients/mesh-data for
RIGD_BIN=<build>/server/rigd.
"""
import csv
import io
import json
import math
import os
import re
import socket
import subprocess
import time
import unittest

from rigd_harness import RIGD_BIN, Rigd, main

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
MESH_DATA = os.path.join(BUILD, "clients", "mesh-data")

N_JOINTS = 12
N_COLUMNS = 25  # two rows of vertices: 50 vertices, 48 triangles


def strip_ops():
    """A chain of 12 joint layers j0..j11 and a 50-vertex strip skinned to
    their joints bone0..bone11, with numbers that need 16 or 17 digits to
    round-trip."""
    ops = []
    for i in range(N_JOINTS):
        op = {"op": "layer.create", "layerId": f"j{i}", "name": f"Joint {i}", "kind": "group",
              "transform": {"position": [0 if i == 0 else 10, 0]}}
        if i:
            op["parentId"] = f"j{i - 1}"
        ops.append(op)
    ops.append({"op": "layer.key.put", "layerId": "j3", "channel": "rotation",
                "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 8}]})
    ops.append({"op": "layer.create", "layerId": "strip", "name": "Strip", "kind": "mesh"})
    ops.append({"op": "layer.create", "layerId": "plain", "name": "Plain", "kind": "mesh"})
    source, weights, triangles = [], [], []
    for c in range(N_COLUMNS):
        k = c * (N_JOINTS - 1) // (N_COLUMNS - 1)
        for r in range(2):
            source.append({"x": c * 5 + 1 / 3, "y": r * 2 + 1 / 7})
            w = (c % 5 + 1) / 7
            if k + 1 < N_JOINTS and not (r == 1 and c % 4 == 0):
                weights.append([{"jointId": f"bone{k}", "weight": w},
                                {"jointId": f"bone{k + 1}", "weight": 1 - w}])
            else:
                weights.append([{"jointId": f"bone{k}", "weight": 1}])
    for c in range(N_COLUMNS - 1):
        a, b, d, e = 2 * c, 2 * c + 2, 2 * c + 1, 2 * c + 3
        triangles += [[a, b, d], [b, e, d]]
    joints = [{"id": f"bone{i}", "bind": [1, 0, 0, 1, 10 * i + 1 / 3, i / 10]}
              for i in range(N_JOINTS)]
    ops.append({"op": "layer.skin", "layerId": "strip", "skin": {
        "source": source, "triangles": triangles, "joints": joints, "weights": weights,
        "jointLayers": [{"jointId": f"bone{i}", "layerId": f"j{i}"} for i in range(N_JOINTS)]}})
    return ops


def free_port():
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MeshDataCase(unittest.TestCase):
    """One server with the strip shot for the whole class (the tests only read)."""

    @classmethod
    def setUpClass(cls):
        if not os.access(MESH_DATA, os.X_OK):
            raise RuntimeError(f"mesh-data is not built at {MESH_DATA}")
        cls.rigd = Rigd().start()
        cls.url = f"http://127.0.0.1:{cls.rigd.port}"
        cls.rigd.make_shot("demo", "s1")
        cls.rigd.edit("s1", strip_ops())

    @classmethod
    def tearDownClass(cls):
        cls.rigd.cleanup()

    def mesh_data(self, *args, url=True, env=None):
        e = {k: v for k, v in os.environ.items() if k != "RIGD_URL"}
        e.update(env or {})
        argv = [MESH_DATA] + (["--url", self.url] if url else []) + list(args)
        return subprocess.run(argv, capture_output=True, text=True, env=e, timeout=120)

    def ok(self, *args, **kw):
        p = self.mesh_data(*args, **kw)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def api_page(self, kind, layer="strip", **query):
        q = "&".join(f"{k}={v}" for k, v in query.items())
        r = self.rigd.get(f"/v1/shots/s1/layers/{layer}/mesh-data/{kind}" + (f"?{q}" if q else ""))
        self.assertEqual(r.status, 200, r)
        return r.json

    def api_items(self, kind, layer="strip"):
        page = self.api_page(kind, layer, pageSize=10000)
        self.assertNotIn("nextPageToken", page)
        return page["items"]

    def args(self, kind, *more):
        return ["--shot", "s1", "--layer", "strip", "--kind", kind, *more]


class Formats(MeshDataCase):
    def test_joints_ndjson_is_the_default_when_piped(self):
        out = self.ok(*self.args("joints"))
        self.assertEqual([json.loads(line) for line in out.splitlines()], self.api_items("joints"))

    def test_joints_ndjson_lines_are_the_servers_items(self):
        out = self.ok(*self.args("joints", "--format", "ndjson"))
        items = self.api_items("joints")
        self.assertEqual(len(items), N_JOINTS)
        lines = out.splitlines()
        self.assertEqual(len(lines), N_JOINTS)
        self.assertEqual([json.loads(line) for line in lines], items)

    def test_weights_ndjson_lines_are_the_servers_items(self):
        out = self.ok(*self.args("weights", "--format", "ndjson"))
        self.assertEqual([json.loads(line) for line in out.splitlines()], self.api_items("weights"))

    def test_joints_json_is_the_page(self):
        out = self.ok(*self.args("joints", "--format", "json", "--page-size", "5"))
        self.assertEqual(out.count("\n"), 1)
        self.assertEqual(json.loads(out), self.api_page("joints", pageSize=5))

    def test_weights_json_is_the_page(self):
        out = self.ok(*self.args("weights", "--format", "json"))
        self.assertEqual(json.loads(out), self.api_page("weights"))

    def test_joints_csv_parses_back_to_the_same_numbers(self):
        out = self.ok(*self.args("joints", "--format", "csv"))
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], ["jointId", "layerId", "a", "b", "c", "d", "e", "f"])
        got = [(r[0], r[1], [float(x) for x in r[2:]]) for r in rows[1:]]
        want = [(j["jointId"], j["layerId"], [float(x) for x in j["bind"]])
                for j in self.api_items("joints")]
        self.assertEqual(got, want)
        # The thirds and tenths survived exactly.
        self.assertEqual(got[4][2][4], 40 + 1 / 3)
        self.assertEqual(got[3][2][5], 3 / 10)

    def test_weights_csv_has_one_row_per_influence(self):
        out = self.ok(*self.args("weights", "--format", "csv"))
        rows = list(csv.DictReader(io.StringIO(out)))
        want = [(w["vertexIndex"], i["jointId"], float(i["weight"]))
                for w in self.api_items("weights") for i in w["influences"]]
        got = [(int(r["vertexIndex"]), r["jointId"], float(r["weight"])) for r in rows]
        self.assertEqual(got, want)
        self.assertIn((2, "bone0", 2 / 7), got)
        self.assertEqual(out.splitlines()[0], "vertexIndex,jointId,weight")

    def test_joints_table_holds_the_ids_and_numbers(self):
        out = self.ok(*self.args("joints", "--format", "table"))
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["joint", "layer", "a", "b", "c", "d", "e", "f"])
        rows = [line.split() for line in lines[1:lines.index("")]]
        items = self.api_items("joints")
        self.assertEqual([(r[0], r[1], [float(x) for x in r[2:]]) for r in rows],
                         [(j["jointId"], j["layerId"], [float(x) for x in j["bind"]])
                          for j in items])
        # Aligned: text columns start under their header, numbers end under it.
        header = [(m.start(), m.end()) for m in re.finditer(r"\S+", lines[0])]
        for line in lines[1:lines.index("")]:
            cells = [(m.start(), m.end()) for m in re.finditer(r"\S+", line)]
            self.assertEqual([c[0] for c in cells[:2]], [h[0] for h in header[:2]], line)
            self.assertEqual([c[1] for c in cells[2:]], [h[1] for h in header[2:]], line)
        self.assertIn(f"{N_JOINTS} joints of {N_JOINTS}", out)
        self.assertIn("version 1", out)

    def test_weights_table_holds_the_ids_and_numbers(self):
        out = self.ok(*self.args("weights", "--format", "table", "--page-size", "10"))
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["vertex", "joint", "weight"])
        got, vertex = [], None
        for line in lines[1:lines.index("")]:
            cells = line.split()
            if len(cells) == 3:
                vertex = int(cells.pop(0))
            got.append((vertex, cells[0], float(cells[1])))
        want = [(w["vertexIndex"], i["jointId"], float(i["weight"]))
                for w in self.api_items("weights")[:10] for i in w["influences"]]
        self.assertEqual(got, want)
        self.assertIn("10 weights of 50", out)
        self.assertIn("next page: --page-token ", out)

    def test_vertices_and_triangles_csv(self):
        out = self.ok(*self.args("vertices", "--format", "csv", "--all"))
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual([(int(r["vertexIndex"]), float(r["x"]), float(r["y"])) for r in rows],
                         [(v["vertexIndex"], v["x"], v["y"]) for v in self.api_items("vertices")])
        out = self.ok(*self.args("triangles", "--format", "csv", "--all"))
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], ["triangleIndex", "i", "j", "k"])
        self.assertEqual([[int(x) for x in r] for r in rows[1:]],
                         [[t["triangleIndex"], *t["indices"]] for t in self.api_items("triangles")])

    def test_evaluated_vertices_at_a_frame(self):
        out = self.ok(*self.args("vertices", "--frame", "7.5", "--space", "shot", "--all"))
        want = self.api_page("vertices", frame=7.5, space="shot", pageSize=10000)["items"]
        self.assertEqual([json.loads(line) for line in out.splitlines()], want)
        self.assertNotEqual(want, self.api_items("vertices"))

    def test_a_layer_without_a_skin_gives_empty_pages(self):
        self.assertEqual(self.ok("--shot", "s1", "--layer", "plain", "--kind", "joints"), "")
        out = self.ok("--shot", "s1", "--layer", "plain", "--kind", "weights", "--format", "csv")
        self.assertEqual(out, "vertexIndex,jointId,weight\n")
        out = self.ok("--shot", "s1", "--layer", "plain", "--kind", "joints", "--format", "table")
        self.assertIn("0 joints of 0", out)

    def test_rigd_url_is_the_default_url(self):
        p = self.mesh_data(*self.args("joints"), url=False, env={"RIGD_URL": self.url})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), N_JOINTS)


class Paging(MeshDataCase):
    def check_all(self, kind, *limits):
        want = self.api_items(kind)
        out = self.ok(*self.args(kind, "--all", "--format", "ndjson", *limits))
        got = [json.loads(line) for line in out.splitlines()]
        self.assertEqual(got, want, f"{kind} {limits}")
        return len(want)

    def test_all_pages_return_every_item_once_in_order(self):
        for kind in ("joints", "weights", "vertices", "triangles"):
            for size in ("1", "7", "1000"):
                with self.subTest(kind=kind, page_size=size):
                    self.check_all(kind, "--page-size", size)

    def test_all_pages_with_a_small_max_bytes(self):
        for kind in ("joints", "weights"):
            with self.subTest(kind=kind):
                self.check_all(kind, "--max-bytes", "150")
        out = self.ok(*self.args("weights", "--all", "--format", "json", "--max-bytes", "150"))
        pages = [json.loads(line) for line in out.splitlines()]
        self.assertGreater(len(pages), 5)
        self.assertTrue(all(p["limitedBy"] == "maxBytes" for p in pages[:-1]))

    def test_json_with_all_prints_one_page_per_line(self):
        out = self.ok(*self.args("weights", "--all", "--format", "json", "--page-size", "7"))
        pages = [json.loads(line) for line in out.splitlines()]
        self.assertEqual(len(pages), math.ceil(50 / 7))
        self.assertTrue(all("nextPageToken" in p for p in pages[:-1]))
        self.assertNotIn("nextPageToken", pages[-1])
        self.assertEqual([i for p in pages for i in p["items"]], self.api_items("weights"))

    def test_csv_and_table_stream_across_pages(self):
        out = self.ok(*self.args("joints", "--all", "--format", "csv", "--page-size", "7"))
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0][0], "jointId")  # one header, not one per page
        self.assertEqual([r[0] for r in rows[1:]], [f"bone{i}" for i in range(N_JOINTS)])
        out = self.ok(*self.args("joints", "--all", "--format", "table", "--page-size", "7"))
        self.assertEqual(out.count("joint "), 1)
        self.assertIn(f"{N_JOINTS} joints of {N_JOINTS}", out)
        self.assertNotIn("next page", out)

    def test_a_page_token_continues_where_a_page_ended(self):
        first = json.loads(self.ok(*self.args("weights", "--format", "json", "--page-size", "5")))
        p = self.mesh_data(*self.args("weights", "--format", "ndjson", "--page-size", "5"))
        self.assertIn("--page-token", p.stderr)  # says how to go on
        rest = self.ok(*self.args("weights", "--page-size", "5", "--all",
                                  "--page-token", first["nextPageToken"]))
        got = first["items"] + [json.loads(line) for line in rest.splitlines()]
        self.assertEqual(got, self.api_items("weights"))


class ExitCodes(MeshDataCase):
    def test_usage_errors_exit_2(self):
        cases = [
            ["--shot", "s1", "--layer", "strip"],                      # no --kind
            self.args("bones"),                                       # unknown kind
            self.args("joints", "--format", "xml"),
            self.args("joints", "--page-size", "0"),
            self.args("joints", "--page-size", "many"),
            self.args("joints", "--frame", "soon"),
            self.args("joints", "--space", "world"),
            self.args("joints", "--bogus"),
            self.args("joints", "stray"),
            self.args("joints", "--page-size"),
        ]
        for argv in cases:
            with self.subTest(argv=argv):
                p = self.mesh_data(*argv)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertIn("--help", p.stderr)

    def test_help_exits_0_with_examples(self):
        p = self.mesh_data("--help", url=False)
        self.assertEqual(p.returncode, 0)
        self.assertIn("Examples:", p.stdout)
        self.assertIn("--kind weights", p.stdout)

    def test_unknown_shot_exits_1_with_the_problem(self):
        p = self.mesh_data("--shot", "nope", "--layer", "strip", "--kind", "joints")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertIn("NOT_FOUND", p.stderr)
        self.assertIn("404", p.stderr)

    def test_unknown_layer_exits_1_with_the_problem(self):
        p = self.mesh_data("--shot", "s1", "--layer", "nope", "--kind", "joints")
        self.assertEqual(p.returncode, 1)
        self.assertIn("NOT_FOUND", p.stderr)
        self.assertIn("'nope'", p.stderr)

    def test_forged_token_exits_1(self):
        p = self.mesh_data(*self.args("joints", "--page-token", "eyJvIjowfQ.AAAA"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("PAGE_TOKEN_INVALID", p.stderr)
        self.assertIn("parameter: pageToken", p.stderr)

    def test_unreachable_server_exits_1(self):
        p = subprocess.run([MESH_DATA, "--url", f"http://127.0.0.1:{free_port()}",
                            *self.args("joints")], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertIn("cannot reach rigd", p.stderr)


class PinnedToken(unittest.TestCase):
    """An edit between two pages: the token still reads the version it was
    issued at (docs/history.md); once that version is compacted away the
    token is refused and the client says so."""

    def test_a_token_keeps_its_version_across_an_unrelated_edit(self):
        with Rigd() as rigd:
            rigd.make_shot("demo", "s1")
            rigd.edit("s1", strip_ops())
            url = f"http://127.0.0.1:{rigd.port}"
            argv = [MESH_DATA, "--url", url, "--shot", "s1", "--layer", "strip",
                    "--kind", "weights", "--page-size", "10", "--format", "json"]
            first = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            self.assertEqual(first.returncode, 0, first.stderr)
            page1 = json.loads(first.stdout)
            rigd.edit("s1", [{"op": "layer.rename", "layerId": "plain", "name": "Plainer"}])
            p = subprocess.run(argv + ["--page-token", page1["nextPageToken"]],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            page2 = json.loads(p.stdout)
            self.assertEqual(page2["shotVersion"], page1["shotVersion"])
            self.assertEqual(page2["items"][0]["vertexIndex"], 10)

    def test_a_token_of_a_compacted_version_exits_1(self):
        with Rigd(extra_args=["--history-versions", "1",
                              "--housekeeping-interval", "1"]) as rigd:
            rigd.make_shot("demo", "s1")
            rigd.edit("s1", strip_ops())
            url = f"http://127.0.0.1:{rigd.port}"
            argv = [MESH_DATA, "--url", url, "--shot", "s1", "--layer", "strip",
                    "--kind", "weights", "--page-size", "10", "--format", "json"]
            first = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            self.assertEqual(first.returncode, 0, first.stderr)
            token = json.loads(first.stdout)["nextPageToken"]
            rigd.edit("s1", [{"op": "layer.rename", "layerId": "plain", "name": "Plainer"}])
            deadline = time.monotonic() + 10
            while rigd.get("/v1/shots/s1?version=1").status != 410:
                self.assertLess(time.monotonic(), deadline, "housekeeping never compacted")
                time.sleep(0.2)
            p = subprocess.run(argv + ["--page-token", token, "--all"], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(p.returncode, 1)
            self.assertIn("PAGE_TOKEN_STALE", p.stderr)
            self.assertIn("410", p.stderr)


if __name__ == "__main__":
    main()
