"""Group commit keeps every batch atomic on its own: concurrent batches that
share fsyncs, some of which fail while being applied, leave exactly the good
ones — each with its receipt and its own version — and no trace of the bad."""
import threading

from rigd_harness import RigdTestCase, main


class GroupCommit(RigdTestCase):
    def test_failing_batches_in_a_group_leave_no_trace(self):
        shot = self.rigd.make_shot("p", "s1")
        self.rigd.edit(shot, [{"op": "layer.create", "layerId": "root", "name": "r",
                               "kind": "group"}])
        results = []
        lock = threading.Lock()

        def client(t):
            conn = self.rigd.connect()
            for n in range(40):
                good = (t + n) % 3 != 0
                ops = [{"op": "layer.create", "layerId": f"c{t}-{n}", "name": "x",
                        "kind": "group", "parentId": "root"}]
                if not good:  # decodes fine, fails while applied: rolls back to its savepoint
                    ops.append({"op": "layer.rename", "layerId": f"ghost-{t}-{n}", "name": "y"})
                r = self.rigd.post("/v1/shots/s1/edits", {"ops": ops}, conn=conn)
                with lock:
                    results.append((t, n, good, r))
            conn.close()

        threads = [threading.Thread(target=client, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()

        ok = [(t, n) for t, n, good, r in results if r.status == 201]
        bad = [(t, n) for t, n, good, r in results if not good]
        for t, n, good, r in results:
            self.assertEqual(r.status, 201 if good else 422, r)
            if not good:
                self.assertEqual(r.json["code"], "LAYER_NOT_FOUND", r)
        layers = {l["layerId"] for l in self.rigd.get("/v1/shots/s1").json["layers"]}
        for t, n in ok:
            self.assertIn(f"c{t}-{n}", layers)
        for t, n in bad:
            self.assertNotIn(f"c{t}-{n}", layers, "a failed batch left its first op behind")
        receipts = self.rigd.get("/v1/shots/s1/receipts?pageSize=10000").json["receipts"]
        versions = sorted(r["toVersion"] for r in receipts)
        self.assertEqual(versions, list(range(1, len(ok) + 2)), "versions are gapless")
        self.assertEqual(self.rigd.get("/v1/shots/s1").json["version"], len(ok) + 1)
        # every acknowledged receipt is readable and names its own layer
        by_id = {r["receiptId"]: r for r in receipts}
        for t, n, good, r in results:
            if good:
                self.assertEqual(by_id[r.json["receiptId"]]["changedLayers"], [f"c{t}-{n}"])
        print(f"{len(ok)} batches applied, {len(bad)} rolled back, versions 1..{len(ok) + 1}")


if __name__ == "__main__":
    main()
