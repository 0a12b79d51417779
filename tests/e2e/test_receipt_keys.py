"""Receipts keyed by (shot seq, toVersion) since schema version 7: ids "r.<seq>.<version>",
a database written by schema version 6 (random "r-<hex>" ids) migrating with every receipt
still readable, listed and paged in version order, and receipts going with their shot.
"""
import glob
import json
import os
import sqlite3

from rigd_harness import Rigd, RigdTestCase, main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POSE = [{"op": "layer.pose", "layerId": "a", "transform": {"rotation": 1}}]


def v6_database(path):
    """A database exactly as schema version 6 left it: one shot at version 3, its three
    receipts with the random ids of that time, and a second shot's receipt in between."""
    conn = sqlite3.connect(path)
    for f in sorted(glob.glob(os.path.join(ROOT, "migrations", "sqlite", "*.sql"))):
        version = int(os.path.basename(f)[:4])
        if version > 6:
            break
        with open(f, encoding="utf-8") as sql:
            conn.executescript(sql.read())
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                     " name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT '')")
        conn.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)",
                     (version, os.path.basename(f)))
    conn.execute("INSERT INTO projects(id, name, created_at) VALUES ('p', 'p', 'x')")
    for sid in ("s1", "s2"):
        conn.execute("INSERT INTO shots(id, project_id, name, fps, frame_start, frame_end, version,"
                     " created_at) VALUES (?, 'p', ?, 24, 0, 24, 0, 'x')", (sid, sid))
    conn.execute("INSERT INTO layers VALUES ('s1', 'a', 0, 'a', 'group', NULL, 0, 0, 0, 1, 1, 0, 0,"
                 " 0, x'')")
    old = []
    for v, sid in ((1, "s1"), (1, "s2"), (2, "s1"), (3, "s1")):
        rid = f"r-{v:02x}{sid[-1]}0a1b2c3d4e5f6"
        body = {"receiptId": rid, "shotId": sid, "fromVersion": v - 1, "toVersion": v}
        conn.execute("INSERT INTO receipts(id, shot_id, to_version, body) VALUES (?, ?, ?, ?)",
                     (rid, sid, v, json.dumps(body)))
        conn.execute("UPDATE shots SET version = ? WHERE id = ?", (v, sid))
        if sid == "s1":
            old.append(rid)
    conn.commit()
    conn.close()
    return old


class Migrated(RigdTestCase):
    def setUp(self):
        self.tmp = Rigd()  # only for its temporary folder
        self.db = os.path.join(self.tmp.tmp, "v6.db")
        self.old = v6_database(self.db)
        self.rigd = Rigd(db_path=self.db).start()

    def tearDown(self):
        super().tearDown()
        self.tmp.cleanup()

    def listed(self, shot="s1", page_size=100):
        out, token = [], None
        while True:
            q = f"?pageSize={page_size}" + (f"&pageToken={token}" if token else "")
            r = self.rigd.get(f"/v1/shots/{shot}/receipts{q}")
            self.assertEqual(r.status, 200, r)
            out += [x["receiptId"] for x in r.json["receipts"]]
            token = r.json.get("nextPageToken")
            if not token:
                return out

    def test_old_receipts_survive_and_new_ones_are_keyed(self):
        for rid in self.old:
            r = self.rigd.get(f"/v1/receipts/{rid}")
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.json["receiptId"], rid)
        conn = sqlite3.connect(self.db)
        seq = conn.execute("SELECT seq FROM shots WHERE id = 's1'").fetchone()[0]
        conn.close()
        r = self.rigd.edit("s1", POSE)
        self.assertEqual(r.json["toVersion"], 4)
        new_id = r.json["receiptId"]
        self.assertEqual(new_id, f"r.{seq}.4")
        self.assertEqual(self.rigd.get(f"/v1/receipts/{new_id}").json, r.json)
        want = [new_id] + self.old[::-1]
        self.assertEqual(self.listed(), want)
        self.assertEqual(self.listed(page_size=1), want, "paging crosses old and new receipts")
        self.assertEqual(self.listed("s2"), ["r-0120a1b2c3d4e5f6"])

    def test_a_deleted_shot_takes_its_receipts_and_a_new_one_never_reuses_ids(self):
        r = self.rigd.edit("s1", POSE)
        gone = self.old + [r.json["receiptId"]]
        self.assertEqual(self.rigd.delete("/v1/shots/s1").status, 200)
        for rid in gone:
            self.assertProblem(self.rigd.get(f"/v1/receipts/{rid}"), 404, "NOT_FOUND")
        conn = sqlite3.connect(self.db)
        left = conn.execute("SELECT count(*) FROM receipts").fetchone()[0]
        conn.close()
        self.assertEqual(left, 1, "only s2's receipt is left")
        self.rigd.post("/v1/projects/p/shots", {"shotId": "s1", "name": "again"})
        self.rigd.edit("s1", [{"op": "layer.create", "layerId": "a", "name": "a", "kind": "group"}])
        r = self.rigd.edit("s1", POSE)
        self.assertEqual(r.json["toVersion"], 2)
        self.assertNotIn(r.json["receiptId"], gone)
        self.assertEqual(len(self.listed()), 2)


    def test_a_migrated_receipt_has_only_its_own_id(self):
        conn = sqlite3.connect(self.db)
        seq = conn.execute("SELECT seq FROM shots WHERE id = 's1'").fetchone()[0]
        conn.close()
        self.assertProblem(self.rigd.get(f"/v1/receipts/r.{seq}.1"), 404, "NOT_FOUND")
        self.assertEqual(self.rigd.get(f"/v1/receipts/{self.old[0]}").status, 200)

    def test_deleting_the_project_deletes_every_receipt_of_its_shots(self):
        self.rigd.edit("s1", POSE)
        self.assertEqual(self.rigd.delete("/v1/projects/p").status, 200)
        conn = sqlite3.connect(self.db)
        left = conn.execute("SELECT count(*) FROM receipts").fetchone()[0]
        conn.close()
        self.assertEqual(left, 0)
        for rid in self.old:
            self.assertProblem(self.rigd.get(f"/v1/receipts/{rid}"), 404, "NOT_FOUND")


class Paging(RigdTestCase):
    def test_a_token_of_a_deleted_shot_does_not_page_its_re_creation(self):
        for attempt in range(2):
            self.rigd.make_shot("p", "s")
            self.rigd.edit("s", [{"op": "layer.create", "layerId": "a", "name": "a",
                                  "kind": "group"}])
            for _ in range(9 + 2 * attempt):
                self.rigd.edit("s", POSE)
            first = self.rigd.get("/v1/shots/s/receipts?pageSize=2")
            self.assertEqual(first.status, 200, first)
            if attempt == 0:
                token = first.json["nextPageToken"]
                self.assertEqual(self.rigd.get(f"/v1/shots/s/receipts?pageSize=2&pageToken={token}")
                                 .status, 200)
                self.assertEqual(self.rigd.delete("/v1/shots/s").status, 200)
        r = self.rigd.get(f"/v1/shots/s/receipts?pageSize=2&pageToken={token}")
        self.assertProblem(r, 400, "PAGE_TOKEN_INVALID")


class Ids(RigdTestCase):
    def test_receipt_ids_name_shot_and_version(self):
        self.rigd.make_shot("p", "s")
        r1 = self.rigd.edit("s", [{"op": "layer.create", "layerId": "a", "name": "a",
                                   "kind": "group"}])
        r2 = self.rigd.edit("s", POSE)
        seq = r1.json["receiptId"].split(".")[1]
        self.assertEqual([r1.json["receiptId"], r2.json["receiptId"]], [f"r.{seq}.1", f"r.{seq}.2"])
        dry = self.rigd.post("/v1/shots/s/edits?dryRun=true", {"ops": POSE})
        self.assertEqual(dry.status, 200, dry)
        self.assertIsNone(dry.json["receiptId"], "a dry run writes no receipt")

    def test_ids_that_name_no_receipt_are_404(self):
        self.rigd.make_shot("p", "s")
        r = self.rigd.edit("s", [{"op": "layer.create", "layerId": "a", "name": "a",
                                  "kind": "group"}])
        seq = r.json["receiptId"].split(".")[1]
        for rid in (f"r.{seq}.2", f"r.{seq}.0", f"r.0{seq}.1", f"r.{seq}.01", f"r.{seq}.1.1",
                    f"r.{seq}", "r.", "r..1", "r.99999999999999999999.1", f"r.{seq}.1x",
                    "r-", "r-00", "x.1.1", "r:1:1"):
            with self.subTest(rid=rid):
                self.assertProblem(self.rigd.get(f"/v1/receipts/{rid}"), 404, "NOT_FOUND")


if __name__ == "__main__":
    main()
