"""Saved plans end to end (SPEC §6, issue 6): create, read, list (paged), revise under CAS
(If-Match → 412, expectedPlanVersion → 409), validate as a dry run that reports every error
and changes nothing, apply pinned to the version read, apply with the reviewed planVersion,
double apply, immutability of applied plans, locks and idempotency keys on apply, delete.
"""
import threading

from rigd_harness import RigdTestCase, main

S = "s1"
E = f"/v1/shots/{S}/edits"
P = f"/v1/shots/{S}/plans"

ALICE = {"X-Rigd-Actor": "alice"}
BOB = {"X-Rigd-Actor": "bob"}
AGENT = {"X-Rigd-Actor": "agent-7"}

GOOD_OPS = [
    {"op": "layer.pose", "layerId": "a", "frame": 4, "transform": {"rotation": 30}},
    {"op": "layer.create", "layerId": "c", "name": "C", "kind": "group", "parentId": "a"},
    {"op": "layer.rename", "layerId": "b", "name": "Bee"},
]


def race(rigd, n, make_request):
    """Runs make_request(i, conn) in n threads released together; returns results by i."""
    barrier = threading.Barrier(n)
    results = [None] * n
    conns = [rigd.connect() for _ in range(n)]

    def run(i):
        try:
            barrier.wait(timeout=10)
            results[i] = make_request(i, conns[i])
        except Exception as e:  # asserted by the caller
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for c in conns:
        c.close()
    return results


class PlanCase(RigdTestCase):
    server_args = ("--threads", "4")

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", S)
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "a", "name": "A", "kind": "group"},
            {"op": "layer.create", "layerId": "b", "name": "B", "kind": "group"},
        ])  # shot at version 1

    # ---- helpers
    def create(self, ops=None, actor=AGENT, expect=201, **fields):
        body = {"ops": GOOD_OPS if ops is None else ops, **fields}
        r = self.rigd.post(P, body, headers=actor)
        self.assertEqual(r.status, expect, r)
        return r.json

    def plan(self, pid):
        r = self.rigd.get(f"/v1/plans/{pid}")
        self.assertEqual(r.status, 200, r)
        return r.json

    def apply(self, pid, plan_version, actor=AGENT, headers=None):
        h = dict(actor)
        h.update(headers or {})
        return self.rigd.post(f"/v1/plans/{pid}/apply", {"planVersion": plan_version}, headers=h)

    def validate(self, pid, actor=AGENT):
        r = self.rigd.post(f"/v1/plans/{pid}/validate", headers=actor)
        self.assertEqual(r.status, 200, r)
        return r.json

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def other_edit(self):
        self.rigd.edit(S, [{"op": "layer.pose", "layerId": "b", "transform": {"rotation": 7}}],
                       headers=BOB)

    def assertNothingChanged(self, snap, plan=None):
        self.assertEqual(self.rigd.snapshot(S), snap)
        if plan is not None:
            self.assertEqual(self.plan(plan["planId"]), plan)


class Plans(PlanCase):
    def test_create_and_get(self):
        r = self.rigd.post(P, {"planId": "fix-1", "title": "Fix the elbow", "ops": GOOD_OPS,
                               "baseVersion": 1}, headers=AGENT)
        self.assertEqual(r.status, 201, r)
        p = r.json
        self.assertEqual(p["planId"], "fix-1")
        self.assertEqual(p["shotId"], S)
        self.assertEqual(p["planVersion"], 1)
        self.assertEqual(p["baseVersion"], 1)
        self.assertEqual(p["status"], "draft")
        self.assertEqual(p["author"], "agent-7")
        self.assertEqual(p["title"], "Fix the elbow")
        self.assertEqual(p["ops"], GOOD_OPS)
        self.assertEqual(r.header("ETag"), '"1"')
        self.assertEqual(r.header("Location"), "/v1/plans/fix-1")
        g = self.rigd.get("/v1/plans/fix-1")
        self.assertEqual(g.status, 200)
        self.assertEqual(g.json, p)
        self.assertEqual(g.header("ETag"), '"1"')
        # a generated id; unpinned; default actor
        r = self.rigd.post(P, {"ops": GOOD_OPS})
        self.assertEqual(r.status, 201, r)
        self.assertTrue(r.json["planId"])
        self.assertIsNone(r.json["baseVersion"])
        self.assertEqual(r.json["author"], "anonymous")
        # creating a plan changes nothing about the shot
        self.assertEqual(self.version(), 1)
        # a taken id is refused and the stored plan is kept
        r = self.rigd.post(P, {"planId": "fix-1", "ops": [GOOD_OPS[0]]}, headers=BOB)
        self.assertIn(r.status, (409, 422), r)
        self.assertEqual(self.plan("fix-1"), p)
        # bad bodies
        self.assertEqual(self.rigd.post(P, {"ops": []}).status, 422)
        self.assertEqual(self.rigd.post(P, {"title": "x"}).status, 422)
        self.assertEqual(self.rigd.post(P, {"ops": GOOD_OPS, "baseVersion": "1"}).status, 422)
        self.assertProblem(self.rigd.post("/v1/shots/nope/plans", {"ops": GOOD_OPS}), 404,
                           "NOT_FOUND")
        self.assertProblem(self.rigd.get("/v1/plans/nope"), 404, "NOT_FOUND")

    def test_revise_with_if_match_and_expected_plan_version(self):
        p = self.create(title="t1")
        pid = p["planId"]
        new_ops = [GOOD_OPS[0]]
        r = self.rigd.put(f"/v1/plans/{pid}", {"title": "t2", "ops": new_ops, "baseVersion": 1},
                          headers={**AGENT, "If-Match": '"1"'})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["planVersion"], 2)
        self.assertEqual(r.json["ops"], new_ops)
        self.assertEqual(r.json["title"], "t2")
        self.assertEqual(r.json["baseVersion"], 1)
        self.assertEqual(r.json["status"], "draft")
        self.assertEqual(r.header("ETag"), '"2"')
        self.assertEqual(self.plan(pid), r.json)
        cur = r.json
        # stale If-Match → 412, nothing changes
        r = self.rigd.put(f"/v1/plans/{pid}", {"ops": GOOD_OPS}, headers={"If-Match": '"1"'})
        body = self.assertProblem(r, 412, "PLAN_VERSION_CONFLICT")
        self.assertEqual(body.get("currentPlanVersion"), 2, body)
        self.assertEqual(self.plan(pid), cur)
        # stale expectedPlanVersion → 409
        r = self.rigd.put(f"/v1/plans/{pid}", {"ops": GOOD_OPS, "expectedPlanVersion": 1})
        body = self.assertProblem(r, 409, "PLAN_VERSION_CONFLICT")
        self.assertEqual(body.get("currentPlanVersion"), 2, body)
        self.assertEqual(self.plan(pid), cur)
        # a matching expectedPlanVersion revises; unpinning with baseVersion null
        r = self.rigd.put(f"/v1/plans/{pid}", {"ops": GOOD_OPS, "expectedPlanVersion": 2,
                                               "baseVersion": None})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["planVersion"], 3)
        self.assertIsNone(r.json["baseVersion"])
        self.assertEqual(r.json["ops"], GOOD_OPS)
        # revising never touches the shot
        self.assertEqual(self.version(), 1)
        self.assertProblem(self.rigd.put("/v1/plans/nope", {"ops": GOOD_OPS}), 404, "NOT_FOUND")

    def test_two_concurrent_revisions_with_same_if_match_one_wins(self):
        for rnd in range(5):
            p = self.create()
            pid = p["planId"]

            def req(i, conn, pid=pid):
                return self.rigd.put(f"/v1/plans/{pid}",
                                     {"title": f"writer-{i}", "ops": [GOOD_OPS[i % 3]]},
                                     headers={"If-Match": '"1"'}, conn=conn)

            results = race(self.rigd, 2, req)
            for res in results:
                self.assertNotIsInstance(res, Exception, res)
            statuses = sorted(r.status for r in results)
            self.assertEqual(statuses, [200, 412], results)
            win = next(i for i, r in enumerate(results) if r.status == 200)
            lose = results[1 - win]
            self.assertProblem(lose, 412, "PLAN_VERSION_CONFLICT")
            stored = self.plan(pid)
            self.assertEqual(stored["planVersion"], 2)
            self.assertEqual(stored["title"], f"writer-{win}")
            self.assertEqual(stored, results[win].json)

    def test_validate_reports_every_error_and_changes_nothing(self):
        broken = [
            {"op": "layer.rename", "layerId": "a", "name": "ok"},                 # fine
            {"op": "layer.explode", "layerId": "a"},                               # unknown op
            {"op": "layer.rename", "layerId": "a"},                                # missing name
            {"op": "layer.pose", "layerId": "a", "transform": {"rotation": "90"}},  # wrong type
            {"op": "layer.key.put", "layerId": "a", "channel": "rotation",
             "keys": [{"frame": 1, "value": "x"}]},                                # wrong type
        ]
        p = self.create(ops=broken)
        snap = self.rigd.snapshot(S)
        v = self.validate(p["planId"])
        self.assertIs(v["ok"], False, v)
        self.assertEqual(v["planId"], p["planId"])
        self.assertEqual(v["planVersion"], 1)
        self.assertEqual(v["shotVersion"], 1)
        self.assertIsNone(v.get("receipt"), v)
        errs = v["errors"]
        by_index = {}
        for e in errs:
            self.assertIn("opIndex", e, e)
            self.assertIn("pointer", e, e)
            self.assertTrue(e["pointer"].startswith(f"/ops/{e['opIndex']}"), e)
            by_index.setdefault(e["opIndex"], []).append(e)
        self.assertEqual(sorted(by_index), [1, 2, 3, 4], errs)
        self.assertEqual([e["code"] for e in by_index[1]], ["OP_UNKNOWN"], errs)
        self.assertEqual(by_index[1][0]["pointer"], "/ops/1/op")
        self.assertEqual([(e["code"], e["pointer"]) for e in by_index[2]],
                         [("OP_INVALID", "/ops/2/name")], errs)
        self.assertEqual([(e["code"], e["pointer"]) for e in by_index[3]],
                         [("OP_INVALID", "/ops/3/transform/rotation")], errs)
        self.assertEqual([(e["code"], e["pointer"]) for e in by_index[4]],
                         [("OP_INVALID", "/ops/4/keys/0/value")], errs)
        self.assertNothingChanged(snap, p)
        # an apply-time error (unknown layer) is reported the same way
        p2 = self.create(ops=[GOOD_OPS[0], {"op": "layer.rename", "layerId": "ghost",
                                            "name": "g"}])
        v = self.validate(p2["planId"])
        self.assertIs(v["ok"], False)
        self.assertEqual([(e["code"], e["opIndex"], e["pointer"]) for e in v["errors"]],
                         [("LAYER_NOT_FOUND", 1, "/ops/1/layerId")], v)
        # applying the broken plan fails the same way, leaves it a draft and the shot alone
        r = self.apply(p["planId"], 1)
        self.assertEqual(r.status, 422, r)
        self.assertNothingChanged(snap, p)

    def test_validate_of_a_plan_with_many_errors_reports_them_all(self):
        # more bad ops than one problem body lists: the direct edit says how many there are
        # (errorCount); validate must not hide the rest
        ops = [{"op": f"layer.nope{i}", "layerId": "a"} for i in range(100)]
        direct = self.rigd.post(E + "?dryRun=true", {"ops": ops})
        self.assertEqual(direct.status, 422, direct)
        total = direct.json.get("errorCount", len(direct.json["errors"]))
        self.assertEqual(total, 100, direct.json)
        p = self.create(ops=ops)
        snap = self.rigd.snapshot(S)
        v = self.validate(p["planId"])
        self.assertIs(v["ok"], False)
        self.assertEqual(v["errors"][:len(direct.json["errors"])], direct.json["errors"])
        self.assertEqual(v.get("errorCount", len(v["errors"])), 100,
                         {k: v[k] for k in v if k != "errors"})
        self.assertNothingChanged(snap, p)

    def test_validate_good_plan_previews_receipt_and_changes_nothing(self):
        p = self.create(baseVersion=1)
        snap = self.rigd.snapshot(S)
        v = self.validate(p["planId"], actor=ALICE)
        self.assertIs(v["ok"], True, v)
        self.assertEqual(v["errors"], [])
        self.assertEqual(v["shotVersion"], 1)
        rec = v["receipt"]
        self.assertIs(rec.get("dryRun"), True, rec)
        self.assertEqual(rec["fromVersion"], 1)
        self.assertEqual(rec["toVersion"], 2)
        self.assertEqual(rec["planId"], p["planId"])
        self.assertEqual(rec["planVersion"], 1)
        self.assertEqual(rec["actor"], "alice")
        self.assertEqual([o["op"] for o in rec["ops"]], [o["op"] for o in GOOD_OPS])
        self.assertEqual(sorted(rec["changedLayers"]), ["a", "b", "c"])
        self.assertNothingChanged(snap, p)
        # validating twice gives the same verdict; the layer it would create does not exist
        self.assertIs(self.validate(p["planId"])["ok"], True)
        self.assertProblem(self.rigd.get(f"/v1/shots/{S}/layers/c"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.post("/v1/plans/nope/validate"), 404, "NOT_FOUND")

    def test_validate_pinned_plan_after_someone_elses_edit_reports_the_conflict(self):
        p = self.create(baseVersion=1)
        self.other_edit()
        snap = self.rigd.snapshot(S)
        v = self.validate(p["planId"])
        self.assertIs(v["ok"], False, v)
        self.assertIsNone(v["receipt"])
        self.assertEqual([e["code"] for e in v["errors"]], ["VERSION_CONFLICT"], v)
        self.assertEqual(v["shotVersion"], 2)
        self.assertNothingChanged(snap, p)
        # the error names the versions its detail quotes, as the apply's problem does (§7:
        # every value quoted in detail is also a member of the error object)
        e = v["errors"][0]
        self.assertEqual(e.get("currentVersion"), 2, e)
        self.assertEqual(e.get("expectedVersion"), 1, e)

    def test_pinned_apply_after_someone_elses_edit_is_rejected(self):
        p = self.create(baseVersion=1)
        self.other_edit()
        snap = self.rigd.snapshot(S)
        r = self.apply(p["planId"], 1)
        body = self.assertProblem(r, 409, "VERSION_CONFLICT")
        self.assertEqual(body.get("currentVersion"), 2, body)
        self.assertEqual(body.get("expectedVersion"), 1, body)
        self.assertNothingChanged(snap, p)
        self.assertEqual(self.plan(p["planId"])["status"], "draft")

    def test_pinned_apply_at_base_version(self):
        p = self.create(baseVersion=1)
        r = self.apply(p["planId"], 1, actor=ALICE)
        self.assertEqual(r.status, 201, r)
        rec = r.json
        self.assertEqual(rec["fromVersion"], 1)
        self.assertEqual(rec["toVersion"], 2)
        self.assertEqual(rec["planId"], p["planId"])
        self.assertEqual(rec["planVersion"], 1)
        self.assertEqual(rec["actor"], "alice")
        self.assertNotIn("dryRun", rec)
        self.assertEqual(r.header("ETag"), '"2"')
        self.assertEqual(self.version(), 2)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/b").json["name"], "Bee")
        stored = self.plan(p["planId"])
        self.assertEqual(stored["status"], "applied")
        self.assertEqual(stored["receiptId"], rec["receiptId"])
        self.assertEqual(self.rigd.get(f"/v1/receipts/{rec['receiptId']}").json, rec)
        listed = self.rigd.get(f"/v1/shots/{S}/receipts").json["receipts"]
        self.assertEqual(listed[0], rec)

    def test_apply_with_outdated_plan_version_is_rejected(self):
        p = self.create(baseVersion=1)
        r = self.rigd.put(f"/v1/plans/{p['planId']}", {"ops": [GOOD_OPS[2]], "baseVersion": 1},
                          headers={"If-Match": '"1"'})
        self.assertEqual(r.status, 200, r)
        revised = r.json
        snap = self.rigd.snapshot(S)
        r = self.apply(p["planId"], 1)
        body = self.assertProblem(r, 409, "PLAN_VERSION_CONFLICT")
        self.assertEqual(body.get("currentPlanVersion"), 2, body)
        self.assertNothingChanged(snap, revised)
        # a future version is as wrong as a past one
        self.assertProblem(self.apply(p["planId"], 3), 409, "PLAN_VERSION_CONFLICT")
        # planVersion is required
        r = self.rigd.post(f"/v1/plans/{p['planId']}/apply", {})
        self.assertEqual(r.status, 422, r)
        self.assertNothingChanged(snap, revised)
        # the reviewed version applies the revised ops
        r = self.apply(p["planId"], 2)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json["planVersion"], 2)
        self.assertEqual([o["op"] for o in r.json["ops"]], ["layer.rename"])

    def test_double_apply_and_applied_plan_is_immutable(self):
        p = self.create()
        first = self.apply(p["planId"], 1)
        self.assertEqual(first.status, 201, first)
        rec = first.json
        applied = self.plan(p["planId"])
        snap = self.rigd.snapshot(S)
        r = self.apply(p["planId"], 1)
        body = self.assertProblem(r, 409, "PLAN_APPLIED")
        self.assertEqual(body.get("receiptId"), rec["receiptId"], body)
        got = self.rigd.get(f"/v1/receipts/{body['receiptId']}")
        self.assertEqual(got.status, 200, got)
        self.assertEqual(got.json, rec)
        # immutable: no revision, no deletion, under any precondition
        r = self.rigd.put(f"/v1/plans/{p['planId']}", {"ops": [GOOD_OPS[2]]},
                          headers={"If-Match": '"1"'})
        self.assertProblem(r, 409, "PLAN_APPLIED")
        r = self.rigd.put(f"/v1/plans/{p['planId']}", {"ops": [GOOD_OPS[2]],
                                                       "expectedPlanVersion": 1})
        self.assertProblem(r, 409, "PLAN_APPLIED")
        self.assertProblem(self.rigd.delete(f"/v1/plans/{p['planId']}"), 409, "PLAN_APPLIED")
        self.assertProblem(self.apply(p["planId"], 2), 409, "PLAN_APPLIED")
        self.assertNothingChanged(snap, applied)

    def test_concurrent_applies_of_one_plan_apply_once(self):
        p = self.create()

        def req(i, conn):
            return self.rigd.post(f"/v1/plans/{p['planId']}/apply", {"planVersion": 1},
                                  conn=conn)

        results = race(self.rigd, 4, req)
        for res in results:
            self.assertNotIsInstance(res, Exception, res)
        self.assertEqual(sorted(r.status for r in results), [201, 409, 409, 409], results)
        rec = next(r for r in results if r.status == 201).json
        for r in results:
            if r.status == 409:
                body = self.assertProblem(r, 409, "PLAN_APPLIED")
                self.assertEqual(body["receiptId"], rec["receiptId"])
        self.assertEqual(self.version(), 2)
        self.assertEqual(len(self.rigd.get(f"/v1/shots/{S}/receipts").json["receipts"]), 2)

    def test_unpinned_plan_applies_to_current_version(self):
        p = self.create()
        self.assertIsNone(p["baseVersion"])
        self.other_edit()
        self.other_edit()
        r = self.apply(p["planId"], 1)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json["fromVersion"], 3)
        self.assertEqual(r.json["toVersion"], 4)
        self.assertEqual(self.version(), 4)
        # the other edits are kept, the plan's on top
        b = self.rigd.get(f"/v1/shots/{S}/layers/b").json
        self.assertEqual(b["name"], "Bee")
        self.assertEqual(b["transform"]["rotation"], 7.0)

    def test_apply_honours_locks(self):
        r = self.rigd.post(f"/v1/shots/{S}/locks", {"layerIds": ["b"]}, headers=ALICE)
        self.assertEqual(r.status, 201, r)
        lock = r.json
        p = self.create(baseVersion=1)
        snap = self.rigd.snapshot(S)
        r = self.apply(p["planId"], 1, actor=BOB)
        body = self.assertProblem(r, 423, "LAYER_LOCKED")
        e = next(e for e in body["errors"] if e["code"] == "LAYER_LOCKED")
        self.assertEqual(e["lockId"], lock["lockId"])
        self.assertEqual(e["owner"], "alice")
        self.assertEqual(e["expiresAt"], lock["expiresAt"])
        self.assertEqual(e["opIndex"], 2)
        self.assertNothingChanged(snap, p)
        # validate says the same
        v = self.validate(p["planId"], actor=BOB)
        self.assertIs(v["ok"], False)
        self.assertEqual([(x["code"], x["opIndex"]) for x in v["errors"]], [("LAYER_LOCKED", 2)])
        # the lock owner may apply it
        r = self.apply(p["planId"], 1, actor=ALICE)
        self.assertEqual(r.status, 201, r)

    def test_apply_with_idempotency_key_replays_receipt(self):
        p = self.create()
        key = {"Idempotency-Key": "apply-once-1"}
        first = self.apply(p["planId"], 1, headers=key)
        self.assertEqual(first.status, 201, first)
        self.assertEqual(first.json["idempotencyKey"], "apply-once-1")
        snap = self.rigd.snapshot(S)
        for _ in range(2):
            again = self.apply(p["planId"], 1, headers=key)
            self.assertEqual(again.status, 201, again)
            self.assertEqual(again.header("Idempotency-Replayed"), "true")
            self.assertEqual(again.json, first.json)
        self.assertEqual(self.rigd.snapshot(S), snap)
        # the same key on another plan's apply is a reuse
        p2 = self.create()
        r = self.apply(p2["planId"], 1, headers=key)
        self.assertProblem(r, 422, "IDEMPOTENCY_KEY_REUSED")
        self.assertEqual(self.plan(p2["planId"])["status"], "draft")
        self.assertEqual(self.rigd.snapshot(S), snap)
        # a rejected apply is not recorded: fix and retry under the same key
        p3 = self.create(baseVersion=1)
        k3 = {"Idempotency-Key": "apply-retry"}
        self.assertProblem(self.apply(p3["planId"], 1, headers=k3), 409, "VERSION_CONFLICT")
        r = self.rigd.put(f"/v1/plans/{p3['planId']}", {"ops": [GOOD_OPS[0]], "baseVersion": 2},
                          headers={"If-Match": '"1"'})
        self.assertEqual(r.status, 200, r)
        r = self.rigd.post(f"/v1/plans/{p3['planId']}/apply", {"planVersion": 2},
                           headers={**AGENT, **k3})
        self.assertEqual(r.status, 201, r)
        self.assertNotEqual((r.header("Idempotency-Replayed") or "").lower(), "true")

    def test_delete_draft(self):
        p = self.create()
        r = self.rigd.delete(f"/v1/plans/{p['planId']}")
        self.assertEqual(r.status, 200, r)
        self.assertProblem(self.rigd.get(f"/v1/plans/{p['planId']}"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.delete(f"/v1/plans/{p['planId']}"), 404, "NOT_FOUND")
        self.assertProblem(self.apply(p["planId"], 1), 404, "NOT_FOUND")
        self.assertEqual(self.rigd.get(P).json["plans"], [])
        self.assertEqual(self.version(), 1)

    def test_list_paging_page_size_one(self):
        made = [self.create(planId=f"pl-{i}", title=f"t{i}")["planId"] for i in range(4)]
        self.assertEqual(self.apply("pl-1", 1).status, 201)
        seen, token, pages = [], None, 0
        while True:
            q = P + "?pageSize=1" + (f"&pageToken={token}" if token else "")
            r = self.rigd.get(q)
            self.assertEqual(r.status, 200, r)
            pages += 1
            self.assertLessEqual(len(r.json["plans"]), 1)
            seen += [x["planId"] for x in r.json["plans"]]
            token = r.json.get("nextPageToken")
            if not token:
                break
            self.assertLess(pages, 20)
        self.assertEqual(seen, made)
        # the last page carries no nextPageToken: four plans, four pages, none empty
        self.assertEqual(pages, 4)
        whole = self.rigd.get(P).json["plans"]
        self.assertEqual([x["planId"] for x in whole], made)
        self.assertEqual([x["status"] for x in whole], ["draft", "applied", "draft", "draft"])
        # another shot's list is separate
        self.rigd.make_shot("p1", "s2")
        self.assertEqual(self.rigd.get("/v1/shots/s2/plans").json["plans"], [])
        self.assertProblem(self.rigd.get("/v1/shots/nope/plans"), 404, "NOT_FOUND")


if __name__ == "__main__":
    main()
