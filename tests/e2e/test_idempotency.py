"""Idempotency keys exactly as SPEC §6: replay, reuse with another request,
not recorded on rejection, in progress, expiry (issue 3)."""
import threading
import time

import sqlite_store
from rigd_harness import Rigd, RigdTestCase, main

E = "/v1/shots/s1/edits"
OPS = [{"op": "layer.create", "name": "gen", "kind": "group"}]


def key(k):
    return {"Idempotency-Key": k}


class Idempotency(RigdTestCase):
    # enough workers that a request blocked on the database never starves another
    server_args = ("--threads", "4")

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", "s1")
        self.rigd.edit("s1", [{"op": "layer.create", "layerId": "a", "name": "a",
                               "kind": "group"}])

    def version(self):
        return self.rigd.get("/v1/shots/s1").json["version"]

    def test_replay_returns_same_receipt_without_applying(self):
        first = self.rigd.post(E, {"ops": OPS}, headers=key("k-1"))
        self.assertEqual(first.status, 201, first)
        self.assertNotEqual((first.header("Idempotency-Replayed") or "").lower(), "true")
        rec = first.json
        self.assertEqual(rec["idempotencyKey"], "k-1")
        self.assertEqual(self.version(), 2)
        snap = self.rigd.snapshot("s1")
        for _ in range(3):
            again = self.rigd.post(E, {"ops": OPS}, headers=key("k-1"))
            self.assertEqual(again.status, 201, again)
            self.assertEqual(again.header("Idempotency-Replayed"), "true")
            self.assertEqual(again.json, rec)
            self.assertEqual(again.json["receiptId"], rec["receiptId"])
        self.assertEqual(self.version(), 2)
        self.assertEqual(self.rigd.snapshot("s1"), snap)
        # the generated layer was created once only
        self.assertEqual(len(self.rigd.get("/v1/shots/s1").json["layers"]), 2)

    def test_replay_after_later_edits_still_returns_original(self):
        first = self.rigd.post(E, {"ops": OPS}, headers=key("k-old"))
        self.assertEqual(first.status, 201)
        self.rigd.edit("s1", [{"op": "layer.rename", "layerId": "a", "name": "z"}])
        again = self.rigd.post(E, {"ops": OPS}, headers=key("k-old"))
        self.assertEqual(again.status, 201)
        self.assertEqual(again.header("Idempotency-Replayed"), "true")
        self.assertEqual(again.json, first.json)
        self.assertEqual(self.version(), 3)

    def test_same_key_other_body_is_422(self):
        first = self.rigd.post(E, {"ops": OPS}, headers=key("k-2"))
        self.assertEqual(first.status, 201)
        snap = self.rigd.snapshot("s1")
        other = [{"op": "layer.rename", "layerId": "a", "name": "other"}]
        r = self.rigd.post(E, {"ops": other}, headers=key("k-2"))
        body = self.assertProblem(r, 422, "IDEMPOTENCY_KEY_REUSED")
        self.assertEqual(body["idempotencyKey"], "k-2")
        # another route: also a different request (another actor is another
        # principal, whose keys are its own: test_idempotency_scope.py)
        r = self.rigd.post("/v1/projects", {"projectId": "q", "name": "q"}, headers=key("k-2"))
        self.assertProblem(r, 422, "IDEMPOTENCY_KEY_REUSED")
        self.assertEqual(self.rigd.snapshot("s1"), snap)
        self.assertProblem(self.rigd.get("/v1/projects/q"), 404, "NOT_FOUND")

    def test_same_key_same_body_but_dry_run_is_a_different_request(self):
        # The dry run is another request (its query differs): it must not be answered
        # with the stored 201 of the applied batch.
        first = self.rigd.post(E, {"ops": OPS}, headers=key("k-dry"))
        self.assertEqual(first.status, 201)
        r = self.rigd.post(E + "?dryRun=true", {"ops": OPS}, headers=key("k-dry"))
        self.assertProblem(r, 422, "IDEMPOTENCY_KEY_REUSED")
        self.assertEqual(self.version(), 2)

    def test_rejected_request_is_not_recorded(self):
        snap = self.rigd.snapshot("s1")
        bad = [{"op": "layer.rename", "layerId": "missing", "name": "x"}]
        r = self.rigd.post(E, {"ops": bad}, headers=key("k-3"))
        self.assertProblem(r, 422, "LAYER_NOT_FOUND")
        r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "a"}]},
                           headers=key("k-3"))
        self.assertProblem(r, 422, "OP_INVALID")
        r = self.rigd.post(E, {"ops": OPS, "expectedVersion": 0}, headers=key("k-3"))
        self.assertProblem(r, 409, "VERSION_CONFLICT")
        r = self.rigd.post(E, raw=b'{"ops": [', headers=key("k-3"))
        self.assertProblem(r, 400, "MALFORMED_JSON")
        self.assertEqual(self.rigd.snapshot("s1"), snap)
        fixed = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "a",
                                            "name": "fixed"}]}, headers=key("k-3"))
        self.assertEqual(fixed.status, 201, fixed)
        self.assertNotEqual(fixed.header("Idempotency-Replayed"), "true")
        self.assertEqual(self.version(), 2)
        self.assertEqual(self.rigd.get("/v1/shots/s1/layers/a").json["name"], "fixed")
        again = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "a",
                                            "name": "fixed"}]}, headers=key("k-3"))
        self.assertEqual(again.header("Idempotency-Replayed"), "true")
        self.assertEqual(again.json["receiptId"], fixed.json["receiptId"])
        self.assertEqual(self.version(), 2)

    def test_request_on_missing_shot_is_not_recorded(self):
        body = {"ops": OPS}
        r = self.rigd.post("/v1/shots/later/edits", body, headers=key("k-404"))
        self.assertProblem(r, 404, "NOT_FOUND")
        self.rigd.post("/v1/projects/p1/shots", {"shotId": "later", "name": "later"})
        r = self.rigd.post("/v1/shots/later/edits", body, headers=key("k-404"))
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.rigd.get("/v1/shots/later").json["version"], 1)

    def test_dry_run_is_not_recorded(self):
        r = self.rigd.post(E + "?dryRun=true", {"ops": OPS}, headers=key("k-dry2"))
        self.assertEqual(r.status, 200, r)
        r = self.rigd.post(E + "?dryRun=true", {"ops": OPS}, headers=key("k-dry2"))
        self.assertEqual(r.status, 200, r)
        self.assertIsNone(r.json["receiptId"])
        self.assertEqual(self.version(), 1)

    def test_key_length_limits(self):
        snap = self.rigd.snapshot("s1")
        for k in ("k" * 256, "x" * 1000):
            with self.subTest(length=len(k)):
                r = self.rigd.post(E, {"ops": OPS}, headers=key(k))
                body = self.assertProblem(r, 400, "INVALID_QUERY")
                self.assertEqual(body["parameter"], "Idempotency-Key")
        r = self.rigd.post(E, {"ops": OPS}, headers=key(""))
        self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertEqual(self.rigd.snapshot("s1"), snap)
        r = self.rigd.post(E, {"ops": OPS}, headers=key("k" * 255))
        self.assertEqual(r.status, 201, r)
        r = self.rigd.post(E, {"ops": OPS}, headers=key("k" * 255))
        self.assertEqual(r.header("Idempotency-Replayed"), "true")
        r = self.rigd.post(E, {"ops": OPS}, headers=key("1"))
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.version(), 3)

    def test_replay_for_project_and_shot_creation(self):
        body = {"name": "generated"}
        first = self.rigd.post("/v1/projects", body, headers=key("kp"))
        self.assertEqual(first.status, 201, first)
        again = self.rigd.post("/v1/projects", body, headers=key("kp"))
        self.assertEqual(again.status, 201, again)
        self.assertEqual(again.header("Idempotency-Replayed"), "true")
        self.assertEqual(again.json, first.json)
        projects = self.rigd.get("/v1/projects").json["projects"]
        self.assertEqual([p["name"] for p in projects].count("generated"), 1)
        pid = first.json["projectId"]
        s1 = self.rigd.post(f"/v1/projects/{pid}/shots", {"name": "sh"}, headers=key("ks"))
        s2 = self.rigd.post(f"/v1/projects/{pid}/shots", {"name": "sh"}, headers=key("ks"))
        self.assertEqual(s1.status, 201)
        self.assertEqual(s2.status, 201)
        self.assertEqual(s2.json, s1.json)
        self.assertEqual(len(self.rigd.get(f"/v1/projects/{pid}/shots").json["shots"]), 1)
        # delete replays too
        d1 = self.rigd.delete(f"/v1/shots/{s1.json['shotId']}", headers=key("kd"))
        d2 = self.rigd.delete(f"/v1/shots/{s1.json['shotId']}", headers=key("kd"))
        self.assertEqual(d1.status, 200, d1)
        self.assertEqual(d2.status, 200, d2)
        self.assertEqual(d2.header("Idempotency-Replayed"), "true")

    def test_project_replay_returns_the_stored_location(self):
        # "returns the stored response": the 201's Location header is part of it.
        first = self.rigd.post("/v1/projects", {"name": "loc"}, headers=key("kloc"))
        self.assertEqual(first.status, 201)
        self.assertEqual(first.header("Location"), f"/v1/projects/{first.json['projectId']}")
        again = self.rigd.post("/v1/projects", {"name": "loc"}, headers=key("kloc"))
        self.assertEqual(again.header("Idempotency-Replayed"), "true")
        self.assertEqual(again.header("Location"), first.header("Location"))

    def test_concurrent_same_key_applies_once(self):
        for rnd in range(4):
            k = f"race-{rnd}"
            v0 = self.version()
            n = 8
            barrier = threading.Barrier(n)
            conns = [self.rigd.connect() for _ in range(n)]
            results = [None] * n

            def run(i):
                try:
                    barrier.wait(timeout=10)
                    results[i] = self.rigd.post(E, {"ops": OPS}, headers=key(k), conn=conns[i])
                except Exception as e:
                    results[i] = e

            ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(60)
            for c in conns:
                c.close()
            for r in results:
                self.assertNotIsInstance(r, Exception, r)
            applied = [r for r in results
                       if r.status == 201 and r.header("Idempotency-Replayed") != "true"]
            replayed = [r for r in results
                        if r.status == 201 and r.header("Idempotency-Replayed") == "true"]
            in_progress = [r for r in results if r.status == 409]
            self.assertEqual(len(applied), 1, results)
            self.assertEqual(len(applied) + len(replayed) + len(in_progress), n, results)
            for r in replayed:
                self.assertEqual(r.json, applied[0].json)
            for r in in_progress:
                body = self.assertProblem(r, 409, "IDEMPOTENCY_IN_PROGRESS")
                self.assertIs(body["retryable"], True)
            self.assertEqual(self.version(), v0 + 1)
            # after the race, the key replays
            r = self.rigd.post(E, {"ops": OPS}, headers=key(k))
            self.assertEqual(r.header("Idempotency-Replayed"), "true")
            self.assertEqual(r.json, applied[0].json)
        receipts = self.rigd.get("/v1/shots/s1/receipts").json["receipts"]
        self.assertEqual(len(receipts), 5)

    def test_retry_while_first_in_progress_is_409(self):
        # Hold the database write lock so the first request stays in flight.
        db = sqlite_store.WriteLock(self.rigd.db_path)
        try:
            db.take()
            holder = {}
            t = threading.Thread(target=lambda: holder.setdefault(
                "r", self.rigd.post(E, {"ops": OPS}, headers=key("k-slow"))))
            t.start()
            time.sleep(0.5)
            r = self.rigd.post(E, {"ops": OPS}, headers=key("k-slow"))
            body = self.assertProblem(r, 409, "IDEMPOTENCY_IN_PROGRESS")
            self.assertEqual(body["idempotencyKey"], "k-slow")
            self.assertEqual(r.header("Retry-After") is not None or body["retryable"], True)
            db.release()
            t.join(30)
        finally:
            db.close()
        first = holder["r"]
        self.assertEqual(first.status, 201, first)
        again = self.rigd.post(E, {"ops": OPS}, headers=key("k-slow"))
        self.assertEqual(again.header("Idempotency-Replayed"), "true")
        self.assertEqual(again.json, first.json)
        self.assertEqual(self.version(), 2)

    def test_keys_expire_after_ttl(self):
        self.assertEqual(self.rigd.get("/v1/limits").json["idempotencyKeyTtlSeconds"], 86400)
        first = self.rigd.post(E, {"ops": OPS}, headers=key("k-exp"))
        self.assertEqual(first.status, 201)
        sqlite_store.age_idempotency_key(self.rigd.db_path, "k-exp", 86401)
        again = self.rigd.post(E, {"ops": OPS}, headers=key("k-exp"))
        self.assertEqual(again.status, 201, again)
        self.assertNotEqual(again.header("Idempotency-Replayed"), "true")
        self.assertNotEqual(again.json["receiptId"], first.json["receiptId"])
        self.assertEqual(self.version(), 3)

    def test_get_ignores_idempotency_key(self):
        r = self.rigd.get("/v1/shots/s1", headers=key("k-get"))
        self.assertEqual(r.status, 200)
        r = self.rigd.get("/v1/projects", headers=key("k-get"))
        self.assertEqual(r.status, 200)
        self.assertIsNone(r.header("Idempotency-Replayed"))


class Housekeeping(RigdTestCase):
    server_args = ("--housekeeping-interval", "1")

    def test_expired_keys_are_swept(self):
        self.rigd.make_shot("p1", "s1")
        r = self.rigd.post(E, {"ops": OPS}, headers=key("old"))
        self.assertEqual(r.status, 201)
        r = self.rigd.post(E, {"ops": OPS}, headers=key("fresh"))
        self.assertEqual(r.status, 201)
        sqlite_store.age_idempotency_key(self.rigd.db_path, "old", 90000)
        deadline = time.time() + 5
        while time.time() < deadline:
            keys = sqlite_store.idempotency_keys(self.rigd.db_path)
            if "old" not in keys:
                break
            time.sleep(0.1)
        self.assertNotIn("old", keys)
        self.assertIn("fresh", keys)


if __name__ == "__main__":
    main()
