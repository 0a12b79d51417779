"""Schema versions 19-21 change how layer history and receipts are stored (issue
23): 19 rebuilds layer_history as a WITHOUT ROWID table, 20 stores each later
version's archived rows as one layer_archive value and leaves layer_history
unwritten, 21 moves receipts to a table keyed by one integer a version. A
database whose history was written as versions 12-18 wrote it migrates with
every past version and every diff answering byte for byte what it answered
before; edits after the migration archive the new way, diffs and reverts span
both forms, and compaction retires both.
"""
import json
import time

from rigd_harness import Rigd, RigdTestCase, main
import sqlite_store

SHOT = "s1"
LAYERS = ("a", "b", "c", "d", "e")


class HistoryMigration(RigdTestCase):
    def edits(self):
        """Creates, poses (static and keyed), renames, reparents and deletes: every
        kind of archived row."""
        self.rigd.make_shot(shot=SHOT)
        e = self.rigd.edit
        e(SHOT, [{"op": "layer.create", "layerId": n, "name": n.upper(), "kind": "group"}
                 for n in ("a", "b", "c", "e")])
        e(SHOT, [{"op": "layer.pose", "layerId": "a", "transform": {"rotation": 0.5}}])
        e(SHOT, [{"op": "layer.rename", "layerId": "b", "name": "Bee"},
                 {"op": "layer.pose", "layerId": "c", "transform": {"position": [3, 4]}}])
        e(SHOT, [{"op": "layer.key.put", "layerId": "a", "channel": "rotation",
                  "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 1.25}]}])
        e(SHOT, [{"op": "layer.parent", "layerId": "c", "parentId": "a"}])
        e(SHOT, [{"op": "layer.delete", "layerId": "b"}])
        e(SHOT, [{"op": "layer.pose", "layerId": "a", "transform": {"scale": [2, 2]}}])
        e(SHOT, [{"op": "layer.pose", "layerId": "e", "transform": {"pivot": [1, -1]}}])

    def later_edits(self):
        """After the migration: layers of the old history rewritten, deleted and
        created again under a deleted layer's id."""
        e = self.rigd.edit
        e(SHOT, [{"op": "layer.pose", "layerId": "c", "transform": {"rotation": 2}}])
        e(SHOT, [{"op": "layer.create", "layerId": "b", "name": "B again", "kind": "group"},
                 {"op": "layer.create", "layerId": "d", "name": "D", "kind": "group",
                  "parentId": "a"}])
        e(SHOT, [{"op": "layer.key.put", "layerId": "a", "channel": "rotation",
                  "keys": [{"frame": 5, "value": -1}]},
                 {"op": "layer.delete", "layerId": "c"}])
        e(SHOT, [{"op": "layer.rename", "layerId": "d", "name": "Dee"}])

    def observed(self, lowest=0):
        head = self.rigd.get(f"/v1/shots/{SHOT}").json["version"]
        out = {}
        for v in range(lowest, head + 1):
            r = self.rigd.get(f"/v1/shots/{SHOT}?version={v}")
            self.assertEqual(r.status, 200, r)
            out[f"v{v}"] = r.body
            for layer in LAYERS:
                r = self.rigd.get(f"/v1/shots/{SHOT}/layers/{layer}?version={v}")
                out[f"v{v}/{layer}"] = (r.status, r.body)
            for lo in range(lowest, v):
                r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={lo}&to={v}")
                self.assertEqual(r.status, 200, r)
                out[f"diff{lo}-{v}"] = r.body
        return head, out

    def test_old_history_migrates_reads_the_same_and_compacts(self):
        self.edits()
        head, before = self.observed()
        db = self.rigd.db_path
        self.rigd.stop()
        sqlite_store.history_to_schema_18(db)
        self.assertNotIn("WITHOUT ROWID", sqlite_store.table_sql(db, "layer_history"))
        self.assertEqual(sqlite_store.history_rows_until(db, head)["layer_history"], 8)
        self.rigd = Rigd(db_path=db).start()
        self.assertIn("WITHOUT ROWID", sqlite_store.table_sql(db, "layer_history"))
        self.assertEqual(sqlite_store.newest_schema_version(db), 21)
        self.assertEqual(self.observed(), (head, before))

        # Edits after it archive the new way; every version reads as it did,
        # and the new ones as a database that never migrated reads them.
        self.later_edits()
        top, after = self.observed()
        for k, v in before.items():
            self.assertEqual(after[k], v, k)
        rows = sqlite_store.history_rows_until(db, top)
        self.assertEqual((rows["layer_history"], rows["layer_archive"]), (8, top - head))
        fresh = Rigd().start()
        try:
            self.rigd, mine = fresh, self.rigd
            self.edits()
            self.later_edits()
            self.assertEqual(self.observed(), (top, after), "as if it never migrated")
        finally:
            fresh.stop()
            self.rigd = mine

        # A revert across both forms: the changes since the last batch before the
        # migration (e's pose) are read from both, none touch e, and e is back as
        # it was before it.
        r = self.rigd.post(f"/v1/receipts/r.1.{head}/revert", {})
        self.assertEqual(r.status, 201, r)
        now = self.rigd.get(f"/v1/shots/{SHOT}/layers/e").json
        was = json.loads(before[f"v{head - 1}/e"][1])
        self.assertEqual((now.pop("shotVersion"), was.pop("shotVersion")), (top + 1, head - 1))
        self.assertEqual(now, was)

        # Compaction retires rows of both forms; what it keeps reads the same.
        self.rigd.stop()
        self.rigd = Rigd(db_path=db, extra_args=(
            "--history-versions", "3", "--housekeeping-interval", "1")).start()
        deadline = time.monotonic() + 30
        while sqlite_store.history_floor(db) < top - 1:  # keeps top - 1 .. top + 1
            self.assertLess(time.monotonic(), deadline, "housekeeping never compacted")
            time.sleep(0.1)
        floor = sqlite_store.history_floor(db)
        _, kept = self.observed(lowest=floor)
        for k in kept:
            if int(k.rsplit("-", 1)[-1] if k.startswith("diff") else k[1:].split("/")[0]) <= top:
                self.assertEqual(kept[k], after[k], k)
        self.assertEqual(sqlite_store.history_rows_until(db, floor),
                         {"layer_history": 0, "layer_archive": 0, "binding_history": 0})


if __name__ == "__main__":
    main()
