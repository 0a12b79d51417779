"""Schema version 19 rebuilds layer_history as a WITHOUT ROWID table (issue 23:
a WAL frame fewer per archiving commit). A database whose history was written
in the rowid form of versions 12-18 migrates with every past version and every
diff answering byte for byte what it answered before, and keeps archiving.
"""
from rigd_harness import Rigd, RigdTestCase, main
import sqlite_store

SHOT = "s1"


class HistoryMigration(RigdTestCase):
    def edits(self):
        """Creates, poses (static and keyed), renames, reparents and deletes: every
        kind of archived row."""
        self.rigd.make_shot(shot=SHOT)
        e = self.rigd.edit
        e(SHOT, [{"op": "layer.create", "layerId": n, "name": n.upper(), "kind": "group"}
                 for n in ("a", "b", "c")])
        e(SHOT, [{"op": "layer.pose", "layerId": "a", "transform": {"rotation": 0.5}}])
        e(SHOT, [{"op": "layer.rename", "layerId": "b", "name": "Bee"},
                 {"op": "layer.pose", "layerId": "c", "transform": {"position": [3, 4]}}])
        e(SHOT, [{"op": "layer.key.put", "layerId": "a", "channel": "rotation",
                  "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 1.25}]}])
        e(SHOT, [{"op": "layer.parent", "layerId": "c", "parentId": "a"}])
        e(SHOT, [{"op": "layer.delete", "layerId": "b"}])
        e(SHOT, [{"op": "layer.pose", "layerId": "a", "transform": {"scale": [2, 2]}}])

    def observed(self):
        head = self.rigd.get(f"/v1/shots/{SHOT}").json["version"]
        out = {}
        for v in range(0, head + 1):
            r = self.rigd.get(f"/v1/shots/{SHOT}?version={v}")
            self.assertEqual(r.status, 200, r)
            out[f"v{v}"] = r.body
            for layer in ("a", "b", "c"):
                r = self.rigd.get(f"/v1/shots/{SHOT}/layers/{layer}?version={v}")
                out[f"v{v}/{layer}"] = (r.status, r.body)
        for lo in range(0, head):
            r = self.rigd.get(f"/v1/shots/{SHOT}/diff?from={lo}&to={head}")
            self.assertEqual(r.status, 200, r)
            out[f"diff{lo}"] = r.body
        return head, out

    def test_rowid_history_migrates_and_reads_the_same(self):
        self.edits()
        head, before = self.observed()
        db = self.rigd.db_path
        self.rigd.stop()
        sqlite_store.layer_history_to_rowid_form(db)
        self.assertNotIn("WITHOUT ROWID", sqlite_store.table_sql(db, "layer_history"))
        self.rigd = Rigd(db_path=db).start()
        self.assertIn("WITHOUT ROWID", sqlite_store.table_sql(db, "layer_history"))
        self.assertEqual(self.observed(), (head, before))
        # and it keeps archiving: the head before this edit reads back as it was
        self.rigd.edit(SHOT, [{"op": "layer.pose", "layerId": "c",
                               "transform": {"rotation": 2}}])
        r = self.rigd.get(f"/v1/shots/{SHOT}?version={head}")
        self.assertEqual(r.body, before[f"v{head}"])


if __name__ == "__main__":
    main()
