"""Receipts keyed by (shot seq, toVersion) since schema version 7: ids "r.<seq>.<version>",
a database written by schema version 6 (random "r-<hex>" ids) migrating with every receipt
still readable, listed and paged in version order, and receipts going with their shot.
"""
import os

from rigd_harness import Rigd, RigdTestCase, main
from sqlite_store import receipt_count, shot_seq, v6_database

POSE = [{"op": "layer.pose", "layerId": "a", "transform": {"rotation": 1}}]


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
        seq = shot_seq(self.db, "s1")
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
        left = receipt_count(self.db)
        self.assertEqual(left, 1, "only s2's receipt is left")
        self.rigd.post("/v1/projects/p/shots", {"shotId": "s1", "name": "again"})
        self.rigd.edit("s1", [{"op": "layer.create", "layerId": "a", "name": "a", "kind": "group"}])
        r = self.rigd.edit("s1", POSE)
        self.assertEqual(r.json["toVersion"], 2)
        self.assertNotIn(r.json["receiptId"], gone)
        self.assertEqual(len(self.listed()), 2)


    def test_a_migrated_receipt_has_only_its_own_id(self):
        seq = shot_seq(self.db, "s1")
        self.assertProblem(self.rigd.get(f"/v1/receipts/r.{seq}.1"), 404, "NOT_FOUND")
        self.assertEqual(self.rigd.get(f"/v1/receipts/{self.old[0]}").status, 200)

    def test_deleting_the_project_deletes_every_receipt_of_its_shots(self):
        self.rigd.edit("s1", POSE)
        self.assertEqual(self.rigd.delete("/v1/projects/p").status, 200)
        left = receipt_count(self.db)
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
