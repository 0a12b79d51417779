"""Readable past versions (issue 15, docs/history.md), through the real server
and its SQLite file.

Every version a sequence of edits produced is read back with ?version and
compared with what the head answered right after that edit (shot, every
layer, a frame, mesh-data vertices and weights), and the weights against what
the test itself wrote. Compaction past --history-versions answers 410
VERSION_COMPACTED; a mesh-data page token keeps reading its version after
unrelated edits; and a one-vertex layer.skin.weights.put on a large skin
writes at most 64 KiB to the database, measured as the growth of the WAL
file from an empty log (beside a layer.rename, for scale).
"""
import time
import unittest

import sqlite_store
from rigd_harness import Rigd, RigdTestCase, main

SHOT = "s1"
N_COLS = 25  # a 2 x 25 strip: 50 vertices, 48 triangles


def strip_ops():
    """Joint layers j0 -> j1 -> j2, a strip "m" skinned to them, a plain mesh."""
    ops = [{"op": "layer.create", "layerId": "j0", "name": "J0", "kind": "group"},
           {"op": "layer.create", "layerId": "j1", "name": "J1", "kind": "group",
            "parentId": "j0", "transform": {"position": [40, 0]}},
           {"op": "layer.create", "layerId": "j2", "name": "J2", "kind": "group",
            "parentId": "j1", "transform": {"position": [40, 0]}},
           {"op": "layer.create", "layerId": "m", "name": "Strip", "kind": "mesh"},
           {"op": "layer.create", "layerId": "plain", "name": "Plain", "kind": "mesh"}]
    source, weights, triangles = [], [], []
    for c in range(N_COLS):
        for r in range(2):
            source.append({"x": c * 5.0, "y": r * 4.0})
            w = c / (N_COLS - 1)
            weights.append([{"jointId": "b0", "weight": 1 - w}, {"jointId": "b1", "weight": w}]
                           if 0 < w < 1 else [{"jointId": "b0" if w == 0 else "b1",
                                                 "weight": 1}])
    for c in range(N_COLS - 1):
        a, b, d, e = 2 * c, 2 * c + 2, 2 * c + 1, 2 * c + 3
        triangles += [[a, b, d], [b, e, d]]
    ops.append({"op": "layer.skin", "layerId": "m", "skin": {
        "source": source, "triangles": triangles,
        "joints": [{"id": "b0", "bind": [1, 0, 0, 1, 0, 0]},
                   {"id": "b1", "bind": [1, 0, 0, 1, 40, 0]},
                   {"id": "b2", "bind": [1, 0, 0, 1, 80, 0]}],
        "weights": weights,
        "jointLayers": [{"jointId": f"b{i}", "layerId": f"j{i}"} for i in range(3)]}})
    return ops, weights


def weights_put(vertex, influences):
    return {"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": vertex,
            "influences": influences}


class Snapshots:
    """What the head answers, recorded per version."""

    PATHS = {
        "shot": f"/v1/shots/{SHOT}",
        "frame": f"/v1/shots/{SHOT}/frames/5",
        "vertices": f"/v1/shots/{SHOT}/layers/m/mesh-data/vertices?frame=5&pageSize=1000",
        "weights": f"/v1/shots/{SHOT}/layers/m/mesh-data/weights?pageSize=1000",
    }

    def __init__(self, rigd):
        self.rigd = rigd
        self.by_version = {}

    def read(self, version=None):
        def at(path):
            if version is None:
                return path
            return path + ("&" if "?" in path else "?") + f"version={version}"
        out = {}
        for name, path in self.PATHS.items():
            r = self.rigd.get(at(path))
            assert r.status == 200, (name, version, r)
            out[name] = r.json
            if name == "shot":
                out["etag"] = r.header("ETag")
        for layer in out["shot"]["layers"]:
            r = self.rigd.get(at(f"/v1/shots/{SHOT}/layers/{layer['layerId']}"))
            assert r.status == 200, (layer["id"], version, r)
            out["layer " + layer["layerId"]] = r.json
        return out

    def record(self):
        snap = self.read()
        self.by_version[snap["shot"]["version"]] = snap
        return snap


def listed_weights(page):
    return [[(i["jointId"], i["weight"]) for i in item["influences"]] for item in page["items"]]


class EveryVersion(RigdTestCase):
    def test_every_retained_version_reads_back_as_written(self):
        self.rigd.make_shot("p1", SHOT)
        snaps = Snapshots(self.rigd)
        ops, weights = strip_ops()
        self.rigd.edit(SHOT, ops)
        snaps.record()  # v1
        self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "j1", "name": "Elbow"}])
        snaps.record()  # v2
        self.rigd.edit(SHOT, [{"op": "layer.key.put", "layerId": "j1", "channel": "rotation",
                               "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 30}]}])
        snaps.record()  # v3
        new7 = [{"jointId": "b2", "weight": 0.25}, {"jointId": "b0", "weight": 0.75}]
        self.rigd.edit(SHOT, [weights_put(7, new7)])
        snaps.record()  # v4
        self.rigd.edit(SHOT, [{"op": "layer.delete", "layerId": "plain"}])
        snaps.record()  # v5
        self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "m", "name": "Strip 2"},
                              weights_put(0, [{"jointId": "b1", "weight": 1}])])
        snaps.record()  # v6
        self.rigd.edit(SHOT, [{"op": "layer.create", "layerId": "plain", "name": "Reborn",
                               "kind": "group"}])
        snaps.record()  # v7
        self.assertEqual(sorted(snaps.by_version), list(range(1, 8)))

        for v, want in snaps.by_version.items():
            got = snaps.read(v)
            self.assertEqual(got["etag"], f'"{v}"')
            for key in want:
                self.assertEqual(got[key], want[key], f"{key} at version {v}")
            self.assertEqual(set(got), set(want), f"the same layers at version {v}")

        # The weights are what the test wrote, version by version.
        def expect(v):
            w = [[(i["jointId"], i["weight"]) for i in lst] for lst in weights]
            if v >= 4:
                w[7] = [(i["jointId"], i["weight"]) for i in new7]
            if v >= 6:
                w[0] = [("b1", 1)]
            return w
        for v in range(1, 8):
            page = self.rigd.get(f"/v1/shots/{SHOT}/layers/m/mesh-data/weights"
                                 f"?pageSize=1000&version={v}").json
            self.assertEqual(listed_weights(page), expect(v), f"weights at version {v}")
            self.assertEqual(page["shotVersion"], v)
        # Layer names and existence per version.
        names = {v: {l["layerId"]: l["name"] for l in s["shot"]["layers"]}
                 for v, s in snaps.by_version.items()}
        self.assertEqual(names[1]["j1"], "J1")
        self.assertEqual(names[2]["j1"], "Elbow")
        self.assertNotIn("plain", names[5])
        self.assertEqual(names[7]["plain"], "Reborn")
        self.assertEqual(names[6]["m"], "Strip 2")

    def test_bad_and_future_versions(self):
        self.rigd.make_shot("p1", SHOT)
        self.rigd.edit(SHOT, strip_ops()[0])
        self.assertProblem(self.rigd.get(f"/v1/shots/{SHOT}?version=abc"), 400, "INVALID_QUERY")
        self.assertProblem(self.rigd.get(f"/v1/shots/{SHOT}?version=-1"), 400, "INVALID_QUERY")
        r = self.rigd.get(f"/v1/shots/{SHOT}?version=2")
        self.assertProblem(r, 404, "NOT_FOUND")
        self.assertEqual(r.json["shotVersion"], 1)
        self.assertEqual(self.rigd.get(f"/v1/shots/{SHOT}?version=0").json["layers"], [])
        self.assertProblem(self.rigd.get("/v1/shots/nope?version=0"), 404, "NOT_FOUND")


class PageTokens(RigdTestCase):
    def test_a_page_token_keeps_its_version_after_unrelated_edits(self):
        self.rigd.make_shot("p1", SHOT)
        self.rigd.edit(SHOT, strip_ops()[0])
        base = f"/v1/shots/{SHOT}/layers/m/mesh-data/vertices?frame=5"
        whole = self.rigd.get(base + "&pageSize=1000").json
        first = self.rigd.get(base + "&pageSize=10").json
        items, token = list(first["items"]), first["nextPageToken"]
        for i in range(3):  # unrelated edits, and one that moves the mesh
            self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "plain", "name": f"P{i}"}])
        self.rigd.edit(SHOT, [{"op": "layer.key.put", "layerId": "j0", "channel": "position.x",
                               "keys": [{"frame": 0, "value": 100}]}])
        while token:
            r = self.rigd.get(base + f"&pageSize=10&pageToken={token}")
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.json["shotVersion"], 1)
            items += r.json["items"]
            token = r.json.get("nextPageToken")
        self.assertEqual(items, whole["items"])
        moved = self.rigd.get(base + "&pageSize=1").json["items"][0]
        self.assertNotEqual(moved, whole["items"][0], "the head did move")
        # A token is tied to its query, version included.
        token = first["nextPageToken"]
        self.assertProblem(self.rigd.get(base + f"&pageSize=10&version=1&pageToken={token}"),
                           400, "PAGE_TOKEN_INVALID")


class Compaction(RigdTestCase):
    server_args = ("--history-versions", "3", "--housekeeping-interval", "1")

    def test_versions_past_the_window_are_410_and_the_rest_read_back(self):
        self.rigd.make_shot("p1", SHOT)
        self.rigd.edit(SHOT, strip_ops()[0])  # v1
        first = self.rigd.get(f"/v1/shots/{SHOT}/layers/m/mesh-data/weights?pageSize=5").json
        for v in range(2, 8):
            self.rigd.edit(SHOT, [{"op": "layer.rename", "layerId": "j0", "name": f"v{v}"},
                                  weights_put(v, [{"jointId": "b2", "weight": 1}])])
        deadline = time.monotonic() + 15
        while self.rigd.get(f"/v1/shots/{SHOT}?version=4").status != 410:
            self.assertLess(time.monotonic(), deadline, "housekeeping never compacted")
            time.sleep(0.2)
        r = self.rigd.get(f"/v1/shots/{SHOT}?version=4")
        self.assertProblem(r, 410, "VERSION_COMPACTED")
        self.assertEqual((r.json["oldestVersion"], r.json["shotVersion"]), (5, 7))
        for v in (5, 6, 7):
            shot = self.rigd.get(f"/v1/shots/{SHOT}?version={v}")
            self.assertEqual(shot.status, 200, shot)
            self.assertEqual({l["layerId"]: l["name"] for l in shot.json["layers"]}["j0"], f"v{v}")
            w = self.rigd.get(f"/v1/shots/{SHOT}/layers/m/mesh-data/weights"
                              f"?pageSize=1000&version={v}").json
            got = listed_weights(w)
            for k in range(2, 8):  # vertex k was put at version k
                self.assertEqual(got[k] == [("b2", 1)], k <= v, (v, k))
        for path in ("/frames/0", "/layers/m/frames?from=0&to=1",
                     "/layers/m/mesh-data/vertices", "/layers/m/skin", "/layers/j0",
                     "/check"):
            sep = "&" if "?" in path else "?"
            self.assertProblem(self.rigd.get(f"/v1/shots/{SHOT}{path}{sep}version=1"), 410,
                               "VERSION_COMPACTED")
        # A page token of a compacted version is a stale token (SPEC §7): start again.
        r = self.rigd.get(f"/v1/shots/{SHOT}/layers/m/mesh-data/weights?pageSize=5"
                          f"&pageToken={first['nextPageToken']}")
        self.assertProblem(r, 410, "PAGE_TOKEN_STALE")
        self.assertEqual((r.json["tokenVersion"], r.json["oldestVersion"]), (1, 5))
        # The database keeps no history row only compacted versions read.
        self.assertEqual(sqlite_store.history_floor(self.rigd.db_path), 5)
        self.assertEqual(sqlite_store.history_rows_until(self.rigd.db_path, 5),
                         {"layer_history": 0, "layer_archive": 0, "binding_history": 0})


def grid_skin_ops(n):
    """An n x n grid skinned to one joint layer: n^2 vertices."""
    source = [{"x": float(i % n), "y": float(i // n)} for i in range(n * n)]
    triangles = []
    for r in range(n - 1):
        for c in range(n - 1):
            i = r * n + c
            triangles += [[i, i + 1, i + n + 1], [i, i + n + 1, i + n]]
    return [{"op": "layer.create", "layerId": "j", "name": "J", "kind": "group"},
            {"op": "layer.create", "layerId": "m", "name": "M", "kind": "mesh"},
            {"op": "layer.skin", "layerId": "m", "skin": {
                "source": source, "triangles": triangles,
                "joints": [{"id": "a", "bind": [1, 0, 0, 1, 0, 0]},
                           {"id": "b", "bind": [1, 0, 0, 1, 1, 0]}],
                "weights": [[{"jointId": "a", "weight": 1}]] * (n * n),
                "jointLayers": [{"jointId": "a", "layerId": "j"},
                                {"jointId": "b", "layerId": "j"}]}}]


class WriteBound(RigdTestCase):
    def wal_bytes_of(self, ops):
        """Bytes the edit appends to an emptied WAL: what it writes to the database."""
        self.assertEqual(sqlite_store.empty_wal(self.rigd.db_path), 0)
        self.assertEqual(sqlite_store.wal_bytes(self.rigd.db_path), 0)
        self.rigd.edit(SHOT, ops)
        return sqlite_store.wal_bytes(self.rigd.db_path)

    def test_one_vertex_of_a_large_skin_writes_at_most_64_kib(self):
        n = 256  # 65,536 vertices: the whole skin is about 2.4 MiB stored
        self.rigd.make_shot("p1", SHOT)
        conn = self.rigd.connect(timeout=120)
        self.rigd.edit(SHOT, grid_skin_ops(n), conn=conn)
        conn.close()
        rename = self.wal_bytes_of([{"op": "layer.rename", "layerId": "m", "name": "R"}])
        put = self.wal_bytes_of([weights_put(n * n // 2, [{"jointId": "a", "weight": 0.5},
                                                          {"jointId": "b", "weight": 0.5}])])
        print(f"\n{n * n} vertices: layer.rename wrote {rename} B, one-vertex "
              f"layer.skin.weights.put wrote {put} B to the WAL", flush=True)
        self.assertLessEqual(put, 64 * 1024)

if __name__ == "__main__":
    main()
