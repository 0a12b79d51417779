"""GET /v1/shots/{shotId}/diff?from&to (issue 15 item 3) and `rigctl diff`,
through the real server and its SQLite file.

Each edit's diff is compared with what the test itself sent: a rename lists
fields [name] only, a key.put the keys of that channel, a weights.put of
vertices 3 and 7 exactly those vertices (the runs are expanded here), layer
create/delete records, constraints. from == to is empty; from > to is 400; a
compacted version is 410 VERSION_COMPACTED; a large change walked with a
small maxBytes gives pages whose union is the expected set; a fixed pair of
versions answers 304 on its ETag.
"""
import json
import os
import subprocess
import time
import unittest

from rigd_harness import ROOT, Rigd, RigdTestCase, main

SHOT = "s1"
BUILD = os.path.dirname(os.path.dirname(os.environ.get(
    "RIGD_BIN", os.path.join(ROOT, "build", "server", "rigd"))))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")


def grid_skin(cols, rows=2):
    """A cols x rows grid skinned to joints b0 (layer j0) and b1 (layer j1)."""
    source, weights, triangles = [], [], []
    for c in range(cols):
        for r in range(rows):
            source.append({"x": c * 5.0, "y": r * 4.0})
            weights.append([{"jointId": "b0", "weight": 1}])
    for c in range(cols - 1):
        for r in range(rows - 1):
            a, b, d, e = c * rows + r, (c + 1) * rows + r, c * rows + r + 1, (c + 1) * rows + r + 1
            triangles += [[a, b, d], [b, e, d]]
    return {"source": source, "triangles": triangles,
            "joints": [{"id": "b0", "bind": [1, 0, 0, 1, 0, 0]},
                       {"id": "b1", "bind": [1, 0, 0, 1, 40, 0]}],
            "weights": weights,
            "jointLayers": [{"jointId": "b0", "layerId": "j0"},
                            {"jointId": "b1", "layerId": "j1"}]}


def setup_ops(cols=25):
    return [{"op": "layer.create", "layerId": "j0", "name": "J0", "kind": "group"},
            {"op": "layer.create", "layerId": "j1", "name": "J1", "kind": "group",
             "parentId": "j0", "transform": {"position": [40, 0]}},
            {"op": "layer.create", "layerId": "m", "name": "Strip", "kind": "mesh"},
            {"op": "layer.skin", "layerId": "m", "skin": grid_skin(cols)}]


def expand(runs):
    """The indices a run list names: a number, or [first, last] inclusive."""
    out = []
    for r in runs:
        if isinstance(r, list):
            out += range(r[0], r[1] + 1)
        else:
            out.append(r)
    return out


class DiffCase(RigdTestCase):
    def version(self):
        return self.rigd.get(f"/v1/shots/{SHOT}").json["version"]

    def diff(self, a, b, extra=""):
        r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={a}&to={b}{extra}")
        self.assertEqual(r.status, 200, r)
        return r.json

    def all_pages(self, a, b, extra=""):
        """Every page's layers, following nextPageToken; and the page count."""
        items, token, pages = [], None, 0
        while True:
            q = extra + (f"&pageToken={token}" if token else "")
            body = self.diff(a, b, q)
            pages += 1
            items += body["layers"]
            token = body.get("nextPageToken")
            if not token:
                return items, pages, body

    def by_layer(self, body):
        return {item["layerId"]: item for item in body["layers"]}


class Diff(DiffCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", SHOT)
        self.rigd.edit(SHOT, setup_ops())
        self.v0 = self.version()

    def test_rename_lists_the_name_field_only(self):
        self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "j1", "name": "Elbow"}])
        body = self.diff(self.v0, self.version())
        self.assertEqual(body["from"], self.v0)
        self.assertEqual(body["to"], self.v0 + 1)
        self.assertEqual(body["layers"], [{"layerId": "j1", "change": "changed",
                                           "fields": ["name"], "keys": {}}])
        self.assertEqual(body["constraints"], {"created": [], "deleted": [], "changed": []})
        self.assertIsNone(body["limitedBy"])
        self.assertNotIn("nextPageToken", body)

    def test_key_put_lists_that_channels_frames(self):
        self.rigd.edit(SHOT, [{"op": "layer.key.put", "layerId": "j1", "channel": "rotation",
                               "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 30}]}])
        v1 = self.version()
        self.rigd.edit(SHOT, [{"op": "layer.key.put", "layerId": "j1", "channel": "rotation",
                               "keys": [{"frame": 10, "value": 45}, {"frame": 20, "value": 0}]},
                              {"op": "layer.key.delete", "layerId": "j1", "channel": "rotation",
                               "frames": [0]},
                              {"op": "layer.pose", "layerId": "j0",
                               "transform": {"position": [3, 0]}}])
        body = self.diff(self.v0, v1)
        self.assertEqual(body["layers"], [{"layerId": "j1", "change": "changed", "fields": [],
                                           "keys": {"rotation": {"added": [0, 10],
                                                                 "removed": [],
                                                                 "changed": []}}}])
        layers = self.by_layer(self.diff(v1, self.version()))
        self.assertEqual(layers["j1"]["keys"], {"rotation": {"added": [20], "removed": [0],
                                                             "changed": [10]}})
        self.assertEqual(layers["j1"]["fields"], [])
        self.assertEqual(layers["j0"]["fields"], ["transform.position.x"])
        self.assertEqual(layers["j0"]["keys"], {})
        self.assertEqual(set(layers), {"j0", "j1"})

    def test_weights_put_lists_exactly_the_vertices_sent(self):
        sent = {3: [{"jointId": "b1", "weight": 1}],
                7: [{"jointId": "b0", "weight": 0.5}, {"jointId": "b1", "weight": 0.5}]}
        self.rigd.edit(SHOT, [{"op": "layer.skin.weights.put", "layerId": "m",
                               "vertexIndex": v, "influences": infl}
                              for v, infl in sent.items()])
        body = self.diff(self.v0, self.version())
        self.assertEqual([i["layerId"] for i in body["layers"]], ["m"])
        m = body["layers"][0]
        self.assertEqual(m["change"], "changed")
        self.assertEqual(m["fields"], [])
        binding = m["binding"]
        self.assertEqual(binding["change"], "changed")
        self.assertEqual(binding["kindFrom"], "skin")
        self.assertEqual(binding["kindTo"], "skin")
        self.assertEqual(binding["vertexCount"], [50, 50])
        self.assertEqual(set(binding["parts"]), {"weights"})
        self.assertEqual(expand(binding["parts"]["weights"]["changedVertices"]), sorted(sent))
        self.assertEqual(binding["parts"]["weights"]["total"], len(sent))

    def test_rewriting_the_same_weights_is_no_change(self):
        self.rigd.edit(SHOT, [{"op": "layer.skin.weights.put", "layerId": "m",
                               "vertexIndex": 4, "influences": [{"jointId": "b0", "weight": 1}]}])
        self.assertEqual(self.diff(self.v0, self.version())["layers"], [])

    def test_skin_replaced_lists_source_triangles_and_joints(self):
        skin = grid_skin(25)
        skin["source"][10] = {"x": 999.0, "y": 1.0}
        skin["triangles"][5] = list(reversed(skin["triangles"][5]))
        skin["joints"][1]["bind"] = [1, 0, 0, 1, 41, 0]
        self.rigd.edit(SHOT, [{"op": "layer.skin", "layerId": "m", "skin": skin}])
        parts = self.diff(self.v0, self.version())["layers"][0]["binding"]["parts"]
        self.assertEqual(expand(parts["source"]["changedVertices"]), [10])
        self.assertEqual(expand(parts["triangles"]["changedTriangles"]), [5])
        self.assertEqual(parts["joints"], {"added": [], "removed": [], "changed": ["b1"]})
        self.assertNotIn("weights", parts)

    def test_create_and_delete_are_records(self):
        self.rigd.edit(SHOT, [{"op": "layer.create", "layerId": "new", "name": "New",
                               "kind": "group"}])
        v1 = self.version()
        body = self.diff(self.v0, v1)
        self.assertEqual(body["layers"], [{"layerId": "new", "change": "created",
                                           "kind": "group"}])
        self.rigd.edit(SHOT, [{"op": "layer.delete", "layerId": "m"}])
        body = self.diff(v1, self.version())
        self.assertEqual(len(body["layers"]), 1)
        m = body["layers"][0]
        self.assertEqual((m["layerId"], m["change"], m["kind"]), ("m", "deleted", "mesh"))
        self.assertEqual(m["binding"]["change"], "deleted")
        self.assertEqual(m["binding"]["kindFrom"], "skin")
        self.assertEqual(m["binding"]["vertexCount"], [50, 0])
        # Over both edits: created, then deleted, each once.
        body = self.diff(self.v0, self.version())
        self.assertEqual(sorted((i["layerId"], i["change"]) for i in body["layers"]),
                         [("m", "deleted"), ("new", "created")])

    def test_constraints_created_changed_deleted(self):
        ik = {"op": "constraint.put", "constraintId": "arm", "kind": "ik",
              "chain": ["j0", "j1"], "target": "m", "tipLength": 10}
        r = self.rigd.post(f"/v1/shots/{SHOT}/edits", {"ops": [ik]})
        if r.status != 201:
            self.skipTest(f"constraint.put not accepted here: {r}")
        v1 = self.version()
        self.assertEqual(self.diff(self.v0, v1)["constraints"],
                         {"created": ["arm"], "deleted": [], "changed": []})
        self.rigd.edit(SHOT, [dict(ik, tipLength=12)])
        v2 = self.version()
        self.assertEqual(self.diff(v1, v2)["constraints"],
                         {"created": [], "deleted": [], "changed": ["arm"]})
        self.assertEqual(self.diff(v1, v2)["layers"], [])

    def test_from_equal_to_is_empty_and_bad_queries(self):
        v = self.version()
        body = self.diff(v, v)
        self.assertEqual(body["layers"], [])
        self.assertNotIn("nextPageToken", body)
        r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={v}&to={self.v0 - 1}")
        self.assertEqual(self.assertProblem(r, 400, "INVALID_QUERY")["parameter"], "from")
        self.assertProblem(self.rigd.get(f"/v1/shots/{SHOT}/diff?to={v}"), 400, "INVALID_QUERY")
        self.assertProblem(self.rigd.get(f"/v1/shots/{SHOT}/diff?from=x&to={v}"), 400,
                           "INVALID_QUERY")
        body = self.assertProblem(self.rigd.get(f"/v1/shots/{SHOT}/diff?from=0&to={v + 5}"),
                                  404, "NOT_FOUND")
        self.assertEqual(body["version"], v + 5)
        self.assertProblem(self.rigd.get(f"/v1/shots/nope/diff?from=0&to=0"), 404, "NOT_FOUND")

    def test_etag_answers_304(self):
        self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "j1", "name": "Elbow"}])
        path = f"/v1/shots/{SHOT}/diff?from={self.v0}&to={self.v0 + 1}"
        r = self.rigd.get(path)
        tag = r.header("ETag")
        self.assertTrue(tag)
        # Later edits do not change a diff of two fixed versions.
        self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "j1", "name": "Knee"}])
        r2 = self.rigd.get(path, headers={"If-None-Match": tag})
        self.assertEqual(r2.status, 304, r2)
        self.assertEqual(self.rigd.get(path).body, r.body)


class Paging(DiffCase):
    COLS = 2000  # 4000 vertices

    def test_small_max_bytes_walks_every_page_and_the_union_is_the_change(self):
        self.rigd.make_shot("p1", SHOT)
        self.rigd.edit(SHOT, setup_ops(self.COLS))
        v0 = self.version()
        # Every third vertex changes weights (no two adjacent: one run each),
        # and a contiguous block of sources moves (one run).
        changed = list(range(0, 2 * self.COLS, 3))
        ops = [{"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": v,
                "influences": [{"jointId": "b1", "weight": 1}]} for v in changed]
        self.rigd.edit(SHOT, ops)
        self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "j0", "name": "Root"}])
        v1 = self.version()
        one, pages1, _ = self.all_pages(v0, v1)
        self.assertEqual(pages1, 1)
        items, pages, last = self.all_pages(v0, v1, "&maxBytes=1000")
        self.assertGreaterEqual(pages, 6)
        self.assertEqual(last["limitedBy"], None)
        got = []
        for item in items:
            if item["layerId"] == "m":
                got += expand(item.get("binding", {}).get("parts", {}).get(
                    "weights", {}).get("changedVertices", []))
        self.assertEqual(got, changed)
        heads = [i for i in items if not i.get("continued")]
        self.assertEqual(sorted(i["layerId"] for i in heads), ["j0", "m"])
        self.assertEqual(heads[[i["layerId"] for i in heads].index("m")]["binding"]["parts"][
            "weights"]["total"], len(changed))
        # Every page stays near maxBytes.
        token, sizes = None, []
        while True:
            r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={v0}&to={v1}&maxBytes=1000"
                              + (f"&pageToken={token}" if token else ""))
            sizes.append(len(json.dumps(r.json["layers"], separators=(",", ":"))))
            token = r.json.get("nextPageToken")
            if not token:
                break
        self.assertLessEqual(max(sizes), 1100, sizes)
        # pageSize 1 puts each layer head on its own page.
        items, pages, _ = self.all_pages(v0, v1, "&pageSize=1")
        self.assertEqual(sorted(i["layerId"] for i in items), ["j0", "m"])
        # A token used with another query is refused.
        r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={v0}&to={v1}&maxBytes=1000")
        token = r.json["nextPageToken"]
        r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={v0}&to={v1}&maxBytes=3000"
                          f"&pageToken={token}")
        self.assertProblem(r, 400, "PAGE_TOKEN_INVALID")


class Compacted(DiffCase):
    server_args = ("--history-versions", "2", "--housekeeping-interval", "1")

    def test_compacted_from_is_410(self):
        self.rigd.make_shot("p1", SHOT)
        self.rigd.edit(SHOT, setup_ops())
        for name in ("a", "b", "c"):
            self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "j1", "name": name}])
        v = self.version()
        deadline = time.monotonic() + 20
        while self.rigd.get(f"/v1/shots/{SHOT}?version=1").status != 410:
            self.assertLess(time.monotonic(), deadline, "housekeeping never compacted")
            time.sleep(0.2)
        body = self.assertProblem(self.rigd.get(f"/v1/shots/{SHOT}/diff?from=1&to={v}"), 410,
                                  "VERSION_COMPACTED")
        self.assertEqual(body["oldestVersion"], v - 1)
        self.assertEqual(self.diff(v - 1, v)["layers"][0]["fields"], ["name"])


class MemoryBudget(unittest.TestCase):
    """The two bindings a diff compares are reserved in the memory budget:
    a server whose budget cannot hold them answers 503 MEMORY_BUSY (and
    stays up); diffs that read no binding still answer."""

    def test_bindings_past_the_budget_are_memory_busy(self):
        big = Rigd().start()
        try:
            big.make_shot("p1", SHOT)
            big.edit(SHOT, setup_ops(10000))  # 20,000 vertices
            big.edit(SHOT, [{"op": "layer.skin.weights.put", "layerId": "m",
                             "vertexIndex": 5, "influences": [{"jointId": "b1", "weight": 1}]}])
            big.edit(SHOT, [{"op": "layer.rename", "layerId": "j0", "name": "Root"}])
            r = big.get(f"/v1/shots/{SHOT}/diff?from=1&to=2")
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.json["layers"][0]["binding"]["parts"]["weights"]["changedVertices"],
                             [5])
            big.stop()
            # ~108 B a vertex and 20 B a triangle per version: ~5 MB for the pair.
            small = Rigd(db_path=big.db_path, extra_args=["--memory-budget", "2"]).start()
            try:
                r = small.get(f"/v1/shots/{SHOT}/diff?from=1&to=2")
                self.assertEqual(r.status, 503, r)
                self.assertEqual(r.json["code"], "MEMORY_BUSY")
                self.assertGreater(r.json["requestedBytes"], 2 << 20)
                r = small.get(f"/v1/shots/{SHOT}/diff?from=2&to=3")
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.json["layers"][0]["fields"], ["name"])
            finally:
                small.cleanup()
        finally:
            big.cleanup()


@unittest.skipUnless(os.path.exists(RIGCTL), "rigctl is not built")
class Rigctl(DiffCase):
    def rigctl(self, *args):
        return subprocess.run([RIGCTL, "--url", f"http://127.0.0.1:{self.rigd.port}", *args],
                              capture_output=True, text=True, timeout=60)

    def test_rigctl_diff_table_and_json(self):
        self.rigd.make_shot("p1", SHOT)
        self.rigd.edit(SHOT, setup_ops())
        v0 = self.version()
        self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "j1", "name": "Elbow"},
                              {"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 3,
                               "influences": [{"jointId": "b1", "weight": 1}]},
                              {"op": "layer.create", "layerId": "n", "name": "N",
                               "kind": "group"}])
        v1 = self.version()
        p = self.rigctl("--format", "table", "diff", SHOT, "--from", str(v0), "--to", str(v1))
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertTrue(any(l.split()[:3] == ["j1", "changed", "fields"] and "name" in l
                            for l in lines), p.stdout)
        self.assertTrue(any(l.split()[:2] == ["n", "created"] for l in lines), p.stdout)
        self.assertTrue(any(l.split()[:4] == ["m", "changed", "weights", "3"] for l in lines),
                        p.stdout)
        # --json: the whole diff, pages joined (maxBytes forces several).
        p = self.rigctl("diff", SHOT, "--from", str(v0), "--to", str(v1), "--format", "json",
                        "--max-bytes", "60")
        self.assertEqual(p.returncode, 0, p.stderr)
        body = json.loads(p.stdout)
        self.assertEqual(sorted(i["layerId"] for i in body["layers"]), ["j1", "m", "n"])
        p = self.rigctl("diff", SHOT, "--from", str(v1), "--to", str(v0))
        self.assertEqual(p.returncode, 1)
        self.assertIn("INVALID_QUERY", p.stderr)
        p = self.rigctl("diff", SHOT, "--from", str(v0))
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    main()
