"""Idempotency keys belong to the principal that sent them, and checking and
recording a key is atomic across processes on one database (issue 11, item 7).

Under --auth off the principal is "actor:<X-Rigd-Actor>", so two actor names act
as two identities. Receipts publish their key: knowing Alice's key must give Bob
neither a refusal (IDEMPOTENCY_KEY_REUSED) nor Alice's stored response.

TwoProcesses runs two rigd on one database file and fires the same key and body
at both at once, many rounds, on four kinds of write (edits through the group
committer; project creation, lock acquire and plan apply through
rig_api__begin): exactly one application per key, every other answer a replay
or 409 IDEMPOTENCY_IN_PROGRESS.
"""
import threading
import time
import unittest

import sqlite_store
from rigd_harness import Rigd, RigdTestCase, main

E = "/v1/shots/s1/edits"
OPS = [{"op": "layer.create", "name": "gen", "kind": "group"}]


def who(actor, k):
    return {"X-Rigd-Actor": actor, "Idempotency-Key": k}


def replayed(r):
    return (r.header("Idempotency-Replayed") or "").lower() == "true"


class Scope(RigdTestCase):
    # enough workers that a request blocked on the database never starves another
    server_args = ("--threads", "4")

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", "s1")

    def version(self):
        return self.rigd.get("/v1/shots/s1").json["version"]

    def test_same_key_from_two_principals_is_two_keys(self):
        v0 = self.version()
        alice = self.rigd.post(E, {"ops": OPS}, headers=who("alice", "shared-1"))
        self.assertEqual(alice.status, 201, alice)
        self.assertFalse(replayed(alice))
        # Bob sends Alice's key (published on her receipt) with the same body:
        # his own write, applied, neither refused nor answered with hers.
        bob = self.rigd.post(E, {"ops": OPS}, headers=who("bob", "shared-1"))
        self.assertEqual(bob.status, 201, bob)
        self.assertFalse(replayed(bob))
        self.assertEqual(bob.json["actor"], "bob")
        self.assertNotEqual(bob.json["receiptId"], alice.json["receiptId"])
        # and with another body
        other = [{"op": "layer.create", "layerId": "c", "name": "c", "kind": "group"}]
        carol = self.rigd.post(E, {"ops": other}, headers=who("carol", "shared-1"))
        self.assertEqual(carol.status, 201, carol)
        self.assertFalse(replayed(carol))
        self.assertEqual(self.version(), v0 + 3)
        snap = self.rigd.snapshot("s1")
        # each replay answers its own principal's response, applying nothing
        for actor, first in (("alice", alice), ("bob", bob)):
            again = self.rigd.post(E, {"ops": OPS}, headers=who(actor, "shared-1"))
            self.assertEqual(again.status, 201, again)
            self.assertTrue(replayed(again), again)
            self.assertEqual(again.json, first.json)
        again = self.rigd.post(E, {"ops": other}, headers=who("carol", "shared-1"))
        self.assertTrue(replayed(again), again)
        self.assertEqual(again.json, carol.json)
        # a principal's own key still refuses another request
        r = self.rigd.post(E, {"ops": other}, headers=who("alice", "shared-1"))
        self.assertProblem(r, 422, "IDEMPOTENCY_KEY_REUSED")
        self.assertEqual(self.rigd.snapshot("s1"), snap)
        # rows are stored per principal
        rows = sorted(sqlite_store.idempotency_principals(self.rigd.db_path, "shared-1"))
        self.assertEqual(rows, ["actor:alice", "actor:bob", "actor:carol"])

    def test_replay_never_leaks_across_principals(self):
        body = {"name": "alice's project"}
        alice = self.rigd.post("/v1/projects", body, headers=who("alice", "kp"))
        self.assertEqual(alice.status, 201, alice)
        for actor in ("bob", None):
            with self.subTest(actor=actor):
                h = who(actor, "kp") if actor else {"Idempotency-Key": "kp"}
                r = self.rigd.post("/v1/projects", body, headers=h)
                self.assertEqual(r.status, 201, r)
                self.assertFalse(replayed(r), r)
                self.assertNotEqual(r.json["projectId"], alice.json["projectId"])
                self.assertNotEqual(r.header("Location"), alice.header("Location"))
        names = [p["name"] for p in self.rigd.get("/v1/projects").json["projects"]]
        self.assertEqual(names.count("alice's project"), 3)
        # plans and locks too: Bob's request under Alice's key is his own
        plan = {"ops": OPS}
        pa = self.rigd.post("/v1/shots/s1/plans", plan, headers=who("alice", "kpl"))
        pb = self.rigd.post("/v1/shots/s1/plans", plan, headers=who("bob", "kpl"))
        self.assertEqual((pa.status, pb.status), (201, 201), (pa, pb))
        self.assertFalse(replayed(pb))
        self.assertEqual(pb.json["author"], "bob")
        self.assertNotEqual(pb.json["planId"], pa.json["planId"])
        lock = {"layerIds": [], "ttlSeconds": 60}
        self.rigd.edit("s1", [{"op": "layer.create", "layerId": "a", "name": "a",
                               "kind": "group"},
                              {"op": "layer.create", "layerId": "b", "name": "b",
                               "kind": "group"}])
        la = self.rigd.post("/v1/shots/s1/locks", {**lock, "layerIds": ["a"]},
                            headers=who("alice", "kl"))
        lb = self.rigd.post("/v1/shots/s1/locks", {**lock, "layerIds": ["b"]},
                            headers=who("bob", "kl"))
        self.assertEqual((la.status, lb.status), (201, 201), (la, lb))
        self.assertFalse(replayed(lb))
        self.assertEqual(lb.json["owner"], "bob")
        # Bob's retry of his lock replays his, never Alice's
        again = self.rigd.post("/v1/shots/s1/locks", {**lock, "layerIds": ["b"]},
                               headers=who("bob", "kl"))
        self.assertTrue(replayed(again))
        self.assertEqual(again.json, lb.json)

    def test_in_flight_mark_is_per_principal(self):
        # Alice's and Bob's requests under one key both wait on the database
        # (held here), so both are in flight together: Bob's is another key,
        # not 409 IN_PROGRESS, and both apply. (Whatever the order they arrive
        # in; the same principal's retry meanwhile is test_idempotency.py's.)
        v0 = self.version()
        db = sqlite_store.WriteLock(self.rigd.db_path)
        out = {}
        threads = [threading.Thread(target=lambda a=a: out.setdefault(a, self.rigd.post(
            E, {"ops": OPS}, headers=who(a, "k-slow")))) for a in ("alice", "bob")]
        try:
            db.take()
            for t in threads:
                t.start()
            time.sleep(1.0)
        finally:
            db.release()
            db.close()
            for t in threads:
                t.join(30)
        for a in ("alice", "bob"):
            self.assertEqual(out[a].status, 201, out[a])
            self.assertFalse(replayed(out[a]))
            self.assertEqual(out[a].json["actor"], a)
        self.assertEqual(self.version(), v0 + 2)

    def test_expiry_is_per_principal(self):
        v0 = self.version()
        a1 = self.rigd.post(E, {"ops": OPS}, headers=who("alice", "k-exp"))
        b1 = self.rigd.post(E, {"ops": OPS}, headers=who("bob", "k-exp"))
        self.assertEqual((a1.status, b1.status), (201, 201))
        sqlite_store.age_idempotency_key(self.rigd.db_path, "k-exp", 86401,
                                         principal="actor:alice")
        a2 = self.rigd.post(E, {"ops": OPS}, headers=who("alice", "k-exp"))
        self.assertEqual(a2.status, 201, a2)
        self.assertFalse(replayed(a2))
        self.assertNotEqual(a2.json["receiptId"], a1.json["receiptId"])
        b2 = self.rigd.post(E, {"ops": OPS}, headers=who("bob", "k-exp"))
        self.assertTrue(replayed(b2))
        self.assertEqual(b2.json, b1.json)
        a3 = self.rigd.post(E, {"ops": OPS}, headers=who("alice", "k-exp"))
        self.assertTrue(replayed(a3))
        self.assertEqual(a3.json, a2.json)
        self.assertEqual(self.version(), v0 + 3)

    def test_rows_from_before_scoping_answer_only_their_own_request(self):
        # A row stored before schema version 9 has principal '' (migration
        # 0009): it replays a request with exactly its fingerprint (method,
        # path, query, actor, body) and is ignored by any other.
        v0 = self.version()
        first = self.rigd.post(E, {"ops": OPS}, headers=who("alice", "k-old"))
        self.assertEqual(first.status, 201)
        sqlite_store.unscope_idempotency_key(self.rigd.db_path, "k-old")
        again = self.rigd.post(E, {"ops": OPS}, headers=who("alice", "k-old"))
        self.assertTrue(replayed(again), again)
        self.assertEqual(again.json, first.json)
        self.assertEqual(self.version(), v0 + 1)
        bob = self.rigd.post(E, {"ops": OPS}, headers=who("bob", "k-old"))
        self.assertEqual(bob.status, 201, bob)
        self.assertFalse(replayed(bob))
        self.assertEqual(bob.json["actor"], "bob")
        self.assertEqual(self.version(), v0 + 2)


class TwoProcesses(unittest.TestCase):
    """Two rigd on one database: the in-flight set is per process and the
    first lookup runs outside the write transaction, so only the lookup inside
    it keeps a retry sent to both from being applied twice."""

    ROUNDS = 12
    PER_PROCESS = 3

    def setUp(self):
        self.a = Rigd(extra_args=("--threads", "4")).start()
        self.b = Rigd(db_path=self.a.db_path, extra_args=("--threads", "4")).start()
        self.a.make_shot("p1", "s1")

    def tearDown(self):
        self.b.cleanup()
        self.a.cleanup()

    def fire(self, method, path, body, k):
        """Sends the same keyed request PER_PROCESS times to each server at once."""
        servers = [self.a, self.b] * self.PER_PROCESS
        n = len(servers)
        barrier = threading.Barrier(n)
        conns = [s.connect() for s in servers]
        results = [None] * n

        def run(i):
            try:
                barrier.wait(timeout=30)
                results[i] = servers[i].request(method, path, body, conn=conns[i],
                                                headers={"Idempotency-Key": k})
            except Exception as e:  # asserted below
                results[i] = e

        threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        for c in conns:
            c.close()
        for r in results:
            self.assertNotIsInstance(r, (Exception, type(None)), r)
        return results

    def assert_applied_once(self, results):
        applied = [r for r in results if 200 <= r.status < 300 and not replayed(r)]
        self.assertEqual(len(applied), 1, results)
        for r in results:
            if r is applied[0]:
                continue
            if r.status == 409:
                self.assertEqual(r.json["code"], "IDEMPOTENCY_IN_PROGRESS", r)
            else:
                self.assertTrue(replayed(r), r)
                self.assertEqual(r.status, applied[0].status, r)
                self.assertEqual(r.json, applied[0].json)
        return applied[0]

    def test_edits_apply_once_across_processes(self):
        v0 = self.a.get("/v1/shots/s1").json["version"]
        for rnd in range(self.ROUNDS):
            k = f"edit-{rnd}"
            first = self.assert_applied_once(self.fire("POST", E, {"ops": OPS}, k))
            self.assertEqual(first.json["toVersion"], v0 + rnd + 1, first)
            self.assertEqual(self.b.get("/v1/shots/s1").json["version"], v0 + rnd + 1)
            # a later retry at either server replays
            for s in (self.a, self.b):
                r = s.post(E, {"ops": OPS}, headers={"Idempotency-Key": k})
                self.assertTrue(replayed(r), r)
        receipts = self.a.get("/v1/shots/s1/receipts?pageSize=1000").json["receipts"]
        keys = [r.get("idempotencyKey") for r in receipts if r.get("idempotencyKey")]
        self.assertEqual(sorted(keys), sorted(f"edit-{i}" for i in range(self.ROUNDS)))

    def test_project_creation_applies_once_across_processes(self):
        for rnd in range(self.ROUNDS):
            first = self.assert_applied_once(
                self.fire("POST", "/v1/projects", {"name": f"race-{rnd}"}, f"proj-{rnd}"))
            self.assertEqual(first.status, 201)
        names = [p["name"] for p in self.a.get("/v1/projects").json["projects"]]
        for rnd in range(self.ROUNDS):
            self.assertEqual(names.count(f"race-{rnd}"), 1, names)

    def test_plan_apply_applies_once_across_processes(self):
        # Without the check inside the transaction the loser would not apply
        # twice (the plan is applied) but would answer 409 PLAN_APPLIED instead
        # of the replay its retry is owed.
        for rnd in range(self.ROUNDS):
            p = self.a.post("/v1/shots/s1/plans", {"ops": OPS})
            self.assertEqual(p.status, 201, p)
            pid = p.json["planId"]
            first = self.assert_applied_once(
                self.fire("POST", f"/v1/plans/{pid}/apply", {"planVersion": 1}, f"apply-{rnd}"))
            self.assertEqual(first.status, 201)
        receipts = self.a.get("/v1/shots/s1/receipts?pageSize=1000").json["receipts"]
        self.assertEqual(len(receipts), self.ROUNDS)

    def test_lock_acquire_applies_once_across_processes(self):
        # The owner's own locks never conflict, so without the check inside the
        # transaction a retry at both servers holds two leases.
        r = self.a.post(E, {"ops": [{"op": "layer.create", "layerId": "a", "name": "a",
                                     "kind": "group"}]})
        self.assertEqual(r.status, 201, r)
        for rnd in range(self.ROUNDS):
            first = self.assert_applied_once(self.fire(
                "POST", "/v1/shots/s1/locks", {"layerIds": ["a"], "ttlSeconds": 600},
                f"lock-{rnd}"))
            self.assertEqual(first.status, 201)
        locks = self.b.get("/v1/shots/s1/locks").json["locks"]
        self.assertEqual(len(locks), self.ROUNDS, locks)


if __name__ == "__main__":
    main()
