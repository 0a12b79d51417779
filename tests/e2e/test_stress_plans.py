"""Concurrent stress of plans and batches against one shot (issue 6): several clients apply
pinned plans (at the version they read), unpinned plans (some retried under the same
Idempotency-Key) and expectedVersion batches for a few seconds. Then: every success has
exactly one receipt, receipt versions are gapless 1..N, every failure left no trace, and
after SIGTERM and a restart on the same database every receipt is still there.
"""
import collections
import threading
import time

from rigd_harness import Rigd, RigdTestCase, main

S = "s1"
CLIENTS = 6
SECONDS = 4.0


class StressPlans(RigdTestCase):
    server_args = ("--threads", "8")

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", S)
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "shared", "name": "shared",
                            "kind": "group"}]
                       + [{"op": "layer.create", "layerId": f"j{i}", "name": f"j{i}",
                           "kind": "group", "parentId": "shared"} for i in range(CLIENTS)])

    def all_receipts(self, rigd):
        out, token = [], None
        for _ in range(10000):
            q = f"/v1/shots/{S}/receipts?pageSize=100" + (f"&pageToken={token}" if token else "")
            r = rigd.get(q)
            self.assertEqual(r.status, 200, r)
            out += r.json["receipts"]
            token = r.json.get("nextPageToken")
            if not token:
                return out
        self.fail("receipt paging does not end")

    def test_concurrent_plans_and_batches(self):
        rigd = self.rigd
        stats = collections.Counter()
        successes = []        # (kind, detail, receipt)
        unexpected = []       # (kind, response or exception)
        draft_after_conflict = []
        lock = threading.Lock()
        stop_at = time.time() + SECONDS
        barrier = threading.Barrier(CLIENTS)

        def client(c):
            conn = rigd.connect()
            actor = {"X-Rigd-Actor": f"client-{c}"}
            n = 0

            def call(method, path, body=None, headers=None):
                nonlocal conn
                h = dict(actor)
                h.update(headers or {})
                try:
                    return rigd.request(method, path, body, headers=h, conn=conn)
                except Exception:
                    conn.close()
                    conn = rigd.connect()
                    raise

            barrier.wait(timeout=10)
            while time.time() < stop_at:
                n += 1
                with lock:
                    stats[f"client-{c}"] += 1
                kind = ("pinned", "unpinned", "batch")[(n + c) % 3]
                op = {"op": "layer.pose", "layerId": f"j{c}", "frame": n,
                      "transform": {"rotation": c * 1000 + n}}
                try:
                    if kind == "batch":
                        v = call("GET", f"/v1/shots/{S}").json["version"]
                        r = call("POST", f"/v1/shots/{S}/edits",
                                 {"ops": [op], "expectedVersion": v})
                        detail = {"expected": v}
                    else:
                        body = {"ops": [op, {"op": "layer.rename", "layerId": "shared",
                                             "name": f"by-{c}-{n}"}]}
                        v = None
                        if kind == "pinned":
                            v = call("GET", f"/v1/shots/{S}").json["version"]
                            body["baseVersion"] = v
                        pr = call("POST", f"/v1/shots/{S}/plans", body)
                        if pr.status != 201:
                            with lock:
                                stats["attempts"] += 1
                                unexpected.append((kind + " create", pr))
                            continue
                        pid = pr.json["planId"]
                        hdr = {"Idempotency-Key": f"k-{c}-{n}"} if kind == "unpinned" else None
                        r = call("POST", f"/v1/plans/{pid}/apply", {"planVersion": 1}, hdr)
                        detail = {"planId": pid, "base": v}
                        if hdr and r.status == 201:
                            again = call("POST", f"/v1/plans/{pid}/apply", {"planVersion": 1},
                                         hdr)
                            if (again.status != 201 or again.json != r.json
                                    or again.header("Idempotency-Replayed") != "true"):
                                with lock:
                                    unexpected.append(("idempotent replay", again))
                            with lock:
                                stats["replays"] += 1
                    with lock:
                        stats["attempts"] += 1
                        stats[f"attempts:{kind}"] += 1
                        if r.status == 201:
                            stats["successes"] += 1
                            stats[f"successes:{kind}"] += 1
                            successes.append((kind, detail, r.json))
                        elif r.status == 409 and r.json.get("code") == "VERSION_CONFLICT" \
                                and kind in ("pinned", "batch"):
                            stats["conflicts"] += 1
                            stats[f"conflicts:{kind}"] += 1
                            if kind == "pinned":
                                draft_after_conflict.append(detail["planId"])
                        else:
                            unexpected.append((kind, r))
                except Exception as e:  # a dropped connection is a failure, recorded
                    with lock:
                        stats["attempts"] += 1
                        unexpected.append((kind, e))
            conn.close()

        threads = [threading.Thread(target=client, args=(c,)) for c in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        print(f"\nstress: {CLIENTS} clients for {SECONDS:.0f} s: attempts={stats['attempts']} "
              f"successes={stats['successes']} conflicts={stats['conflicts']} "
              f"unexpected={len(unexpected)} idempotent-replays={stats['replays']}")
        print("  per client: " + " ".join(str(stats[f"client-{c}"]) for c in range(CLIENTS)))
        for kind in ("pinned", "unpinned", "batch"):
            print(f"  {kind:9s} attempts={stats['attempts:' + kind]} "
                  f"successes={stats['successes:' + kind]} conflicts={stats['conflicts:' + kind]}")
        self.assertEqual(unexpected[:5], [], f"{len(unexpected)} unexpected answers")
        self.assertGreater(stats["successes"], 30, stats)
        self.assertEqual(stats["successes:unpinned"], stats["attempts:unpinned"], stats)

        # every success is one receipt, and only successes left receipts
        ids = [rec["receiptId"] for _, _, rec in successes]
        self.assertEqual(len(ids), len(set(ids)), "a receipt id was returned twice")
        listed = self.all_receipts(rigd)
        counts = collections.Counter(r["receiptId"] for r in listed)
        for rid in ids:
            self.assertEqual(counts[rid], 1, f"receipt {rid} listed {counts[rid]} times")
        self.assertEqual(len(listed), len(ids) + 1, "receipts without an acknowledged success")
        by_id = {r["receiptId"]: r for r in listed}
        for kind, detail, rec in successes:
            self.assertEqual(by_id[rec["receiptId"]], rec)
            if kind == "batch":
                self.assertEqual(rec["fromVersion"], detail["expected"], rec)
            else:
                self.assertEqual(rec["planId"], detail["planId"], rec)
                self.assertEqual(rec["planVersion"], 1, rec)
                if kind == "pinned":
                    self.assertEqual(rec["fromVersion"], detail["base"], rec)

        # versions are gapless 1..N, newest first, N is the shot's version
        tos = [r["toVersion"] for r in listed]
        self.assertEqual(tos, sorted(tos, reverse=True), "receipts not newest first")
        n = len(listed)
        self.assertEqual(sorted(tos), list(range(1, n + 1)))
        for r in listed:
            self.assertEqual(r["fromVersion"], r["toVersion"] - 1, r)
        shot = rigd.get(f"/v1/shots/{S}")
        self.assertEqual(shot.json["version"], n)

        # applied plans name their receipt; pinned plans that lost stay drafts
        for kind, detail, rec in successes:
            if kind != "batch":
                p = rigd.get(f"/v1/plans/{detail['planId']}").json
                self.assertEqual((p["status"], p["receiptId"]), ("applied", rec["receiptId"]))
        for pid in draft_after_conflict:
            p = rigd.get(f"/v1/plans/{pid}").json
            self.assertEqual((p["status"], p["receiptId"]), ("draft", None), p)

        # the stored keys of each client's joint: one key per successful edit
        for c in range(CLIENTS):
            keys = rigd.get(f"/v1/shots/{S}/layers/j{c}").json["keys"].get("rotation", [])
            mine = sum(1 for _, _, rec in successes if rec["ops"][0]["layerId"] == f"j{c}")
            self.assertEqual(len(keys), mine, f"j{c}")

        # stop with SIGTERM, restart on the same database: everything is still there
        first = self.rigd
        self.addCleanup(first.cleanup)
        self.assertEqual(first.stop(), 0, first.read_log()[-2000:])
        second = Rigd(db_path=first.db_path, extra_args=self.server_args).start()
        self.rigd = second
        after = self.all_receipts(second)
        self.assertEqual(after, listed)
        self.assertEqual(second.get(f"/v1/shots/{S}").json["version"], n)
        for rid in ids:
            got = second.get(f"/v1/receipts/{rid}")
            self.assertEqual(got.status, 200, got)
            self.assertEqual(got.json, by_id[rid])


if __name__ == "__main__":
    main()
