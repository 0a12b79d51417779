"""Reverting a receipt (issue 15 item 4): POST /v1/receipts/{receiptId}/revert and the
receipt.revert op, through the real server and its SQLite file.

A revert writes a new version in which every layer the receipt's batch changed (and the
constraint set, when it changed it) is what it was at the receipt's fromVersion: the layer,
skin and mesh-data JSON at the head after the revert equal, byte for byte, what
?version=<fromVersion> answers, and the evaluated frames (f32 bytes) too; the vertices are
also compared with the reference evaluator of test_skin_refmath.py. A later receipt that
changed the same layers is a 409 REVERT_CONFLICT naming it, unless force. Dry runs, plans,
locks, idempotency, expectedVersion, checkFrames and compaction (410) apply as to edits.
"""
import json
import os
import subprocess
import time

from rigd_harness import RIGD_BIN, Rigd, RigdTestCase, main
from test_check_frames import DIP, expected_failures, key_op, square_scene

S = "s"
E = f"/v1/shots/{S}/edits"
BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")


def revert_path(rid, dry=False):
    return f"/v1/receipts/{rid}/revert" + ("?dryRun=true" if dry else "")


class RevertCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=60)
        self.sc = square_scene()  # jA, jB and the skinned square m
        self.sc.layer("g")
        r = self.rigd.post(E, {"ops": self.sc.all_ops()})
        self.assertEqual(r.status, 201, r)

    # ---- helpers
    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def edit(self, ops, **kw):
        r = self.rigd.post(E, {"ops": ops, **kw})
        self.assertEqual(r.status, 201, r)
        return r.json

    def revert(self, rid, body=None, expect=201, **kw):
        r = self.rigd.post(revert_path(rid, kw.pop("dry", False)), body or {}, **kw)
        self.assertEqual(r.status, expect, r)
        return r

    def raw(self, path, version=None):
        """The body of a read (bytes), at version when given, minus the members that name
        the version read (shotVersion, version), so two versions compare byte for byte."""
        if version is not None:
            path += ("&" if "?" in path else "?") + f"version={version}"
        r = self.rigd.get(path)
        if r.status != 200:
            return r.status
        if r.header("Content-Type").startswith("application/json"):
            doc = json.loads(r.body)
            for k in ("shotVersion", "version"):
                doc.pop(k, None)
            return json.dumps(doc, sort_keys=True).encode()
        return r.body

    def reads(self, version=None, layers=("jA", "jB", "m", "g")):
        out = {"shot": self.raw(f"/v1/shots/{S}", version)}
        for lid in layers:
            out[lid] = self.raw(f"/v1/shots/{S}/layers/{lid}", version)
        out["skin"] = self.raw(f"/v1/shots/{S}/layers/m/skin", version)
        out["weights"] = self.raw(f"/v1/shots/{S}/layers/m/mesh-data/weights?pageSize=100",
                                  version)
        out["frames"] = self.raw(f"/v1/shots/{S}/layers/m/frames?from=0&to=60&format=f32&f32Version=2",
                                 version)
        return out

    def assertRestored(self, receipt, new, layers=None):
        """Everything (or the layers given) reads at the head after the revert as at the
        receipt's fromVersion."""
        before = receipt["fromVersion"]
        self.assertEqual(new["fromVersion"], self.version() - 1)
        if layers:
            now, then = self.reads(layers=layers), self.reads(before, layers=layers)
            self.assertEqual([now[k] for k in layers], [then[k] for k in layers])
        else:
            self.assertEqual(self.reads(), self.reads(before))

    def verts(self, f):
        r = self.rigd.get(f"/v1/shots/{S}/frames/{f!r}?layers=m")
        self.assertEqual(r.status, 200, r)
        return [tuple(v) for v in r.json["layers"][0]["vertices"]]

    def assertReference(self, sc, frames=(0, 36, 42, 60)):
        for f in frames:
            want = sc.evaluate("m", float(f), check=False)
            got = self.verts(float(f))
            d = max(max(abs(p[0] - q[0]), abs(p[1] - q[1])) for p, q in zip(got, want))
            self.assertLessEqual(d, 1e-9, (f, got, want))


class Restores(RevertCase):
    def test_revert_of_a_rename_restores_the_layer_and_names_the_receipt(self):
        r = self.edit([{"op": "layer.rename", "layerId": "g", "name": "Renamed"}])
        new = self.revert(r["receiptId"]).json
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/g").json["name"], "g")
        self.assertRestored(r, new)
        self.assertEqual(new["revertOf"], r["receiptId"])
        self.assertEqual(new["ops"], [{"index": 0, "op": "receipt.revert", "layerId": "",
                                       "revertOf": r["receiptId"]}])
        self.assertEqual(new["changedLayers"], ["g"])
        self.assertEqual(new["toVersion"], r["toVersion"] + 1)
        # the stored receipt is the one answered
        self.assertEqual(self.rigd.get(f"/v1/receipts/{new['receiptId']}").json, new)

    def test_revert_of_a_key_put_restores_keys_and_frames(self):
        r = self.edit([key_op("jB", "position.y", DIP)])
        self.assertNotEqual(self.reads()["frames"], self.reads(r["fromVersion"])["frames"])
        new = self.revert(r["receiptId"]).json
        self.assertRestored(r, new)
        self.assertEqual(new["changedLayers"], ["jB"])
        # independently: the undipped square, by the reference evaluator
        self.assertReference(square_scene())

    def test_revert_of_a_weights_put_restores_the_skin(self):
        r = self.edit([{"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 2,
                        "influences": [{"jointId": "a", "weight": 0.5},
                                       {"jointId": "b", "weight": 0.5}]}])
        self.assertNotEqual(self.reads()["weights"], self.reads(r["fromVersion"])["weights"])
        new = self.revert(r["receiptId"]).json
        self.assertRestored(r, new)
        w = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/weights?pageSize=100").json
        self.assertEqual(json.dumps(w["items"][2]).count("jointId"), 1, w["items"][2])
        self.sc.keys("jB", "position.y", [(k["frame"], k["value"]) for k in DIP])
        self.edit([key_op("jB", "position.y", DIP)])
        self.assertReference(self.sc, frames=(0, 33, 35))

    def test_revert_of_a_layer_create_deletes_it(self):
        r = self.edit([{"op": "layer.create", "layerId": "n", "name": "N", "kind": "group",
                        "parentId": "g"}])
        new = self.revert(r["receiptId"]).json
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/n").status, 404)
        self.assertRestored(r, new)
        self.assertEqual(new["changedLayers"], ["n"])

    def test_revert_of_a_delete_restores_the_skinned_layer_its_skin_and_frames(self):
        r = self.edit([{"op": "layer.delete", "layerId": "m"}])
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/m").status, 404)
        new = self.revert(r["receiptId"]).json
        self.assertRestored(r, new)
        self.assertReference(square_scene())
        # and the restored layer edits like any other
        self.edit([{"op": "layer.rename", "layerId": "m", "name": "again"}])

    def test_revert_of_a_subtree_delete_restores_every_layer_in_order(self):
        self.edit([{"op": "layer.create", "layerId": "c1", "name": "C1", "kind": "group",
                    "parentId": "g"},
                   {"op": "layer.create", "layerId": "c2", "name": "C2", "kind": "group",
                    "parentId": "c1"},
                   {"op": "layer.create", "layerId": "z", "name": "Z", "kind": "group"}])
        r = self.edit([{"op": "layer.delete", "layerId": "g"}])
        new = self.revert(r["receiptId"]).json
        self.assertEqual(sorted(new["changedLayers"]), ["c1", "c2", "g"])
        self.assertRestored(r, new)
        self.assertEqual(self.reads(layers=("c1", "c2", "z")),
                         self.reads(r["fromVersion"], layers=("c1", "c2", "z")))

    def test_a_restored_layer_never_ties_with_a_later_one_in_order(self):
        def roots(rigd):
            return [l["layerId"] for l in rigd.get(f"/v1/shots/{S}").json["layers"]
                    if l["parentId"] is None]
        # g is the last layer created: once it is deleted, a layer created by a server that
        # loads the shot from the database takes g's creation order again
        r = self.edit([{"op": "layer.delete", "layerId": "g"}])
        db = self.rigd.db_path
        self.rigd.stop()
        with Rigd(db_path=db).start() as second:
            h = second.post(E, {"ops": [{"op": "layer.create", "layerId": "h", "name": "H",
                                         "kind": "group"}]})
            self.assertEqual(h.status, 201, h)
            rev = second.post(revert_path(r["receiptId"]), {})
            self.assertEqual(rev.status, 201, rev)
            self.assertEqual(roots(second), ["jA", "jB", "m", "h", "g"])
        with Rigd(db_path=db).start() as third:
            self.assertEqual(roots(third), ["jA", "jB", "m", "h", "g"])

    def test_reverting_a_revert_redoes_the_batch(self):
        r = self.edit([key_op("jB", "position.y", DIP),
                       {"op": "layer.rename", "layerId": "g", "name": "G2"}])
        after = self.reads()
        undo = self.revert(r["receiptId"]).json
        redo = self.revert(undo["receiptId"]).json
        self.assertEqual(redo["revertOf"], undo["receiptId"])
        self.assertEqual(self.reads(), after)

    def test_revert_restores_the_constraint_set(self):
        self.edit([{"op": "layer.create", "layerId": "up", "name": "up", "kind": "group"},
                   {"op": "layer.create", "layerId": "lo", "name": "lo", "kind": "group",
                    "parentId": "up", "transform": {"position": [5, 0]}},
                   {"op": "layer.create", "layerId": "tg", "name": "tg", "kind": "group",
                    "transform": {"position": [4, 4]}}])
        put = self.edit([{"op": "constraint.put", "constraintId": "arm", "kind": "ik",
                          "chain": ["up", "lo"], "target": "tg", "tipLength": 2}])
        c = f"/v1/shots/{S}/constraints"
        with_arm = self.raw(c)
        undo = self.revert(put["receiptId"]).json
        self.assertEqual(self.rigd.get(c).json["constraints"], [])
        self.assertEqual(self.raw(c), self.raw(c, put["fromVersion"]))
        redo = self.revert(undo["receiptId"]).json
        self.assertEqual(self.raw(c), with_arm)
        # a later change of the set conflicts with reverting the receipt that wrote it
        later = self.edit([{"op": "constraint.put", "constraintId": "arm", "kind": "ik",
                            "chain": ["up", "lo"], "target": "tg", "tipLength": 3}])
        body = self.assertProblem(self.revert(redo["receiptId"], expect=409), 409,
                                  "REVERT_CONFLICT")
        self.assertEqual(body["errors"][0]["receipts"], [later["receiptId"]])
        self.assertNotIn("layerId", body["errors"][0])
        self.assertIn("constraint set", body["errors"][0]["detail"])
        # while a later change of other layers only does not
        self.edit([{"op": "layer.rename", "layerId": "g", "name": "G"}])
        self.revert(later["receiptId"])
        self.assertEqual(self.raw(c), with_arm)


class Conflicts(RevertCase):
    def test_a_later_change_of_the_same_layer_conflicts_and_force_overwrites(self):
        r1 = self.edit([{"op": "layer.rename", "layerId": "g", "name": "one"}])
        r2 = self.edit([{"op": "layer.pose", "layerId": "g",
                         "transform": {"position": [3, 4]}}])
        r3 = self.edit([{"op": "layer.rename", "layerId": "jA", "name": "unrelated"}])
        v = self.version()
        body = self.assertProblem(self.revert(r1["receiptId"], expect=409), 409,
                                  "REVERT_CONFLICT")
        self.assertEqual(len(body["errors"]), 1, body)
        e = body["errors"][0]
        self.assertEqual((e["layerId"], e["receipts"], e["receiptCount"], e["receiptId"]),
                         ("g", [r2["receiptId"]], 1, r1["receiptId"]))
        self.assertNotIn(r3["receiptId"], json.dumps(body))
        self.assertEqual(self.version(), v)
        new = self.revert(r1["receiptId"], {"force": True}).json
        # g as before r1 (the pose of r2 is overwritten too); jA keeps r3's name
        self.assertRestored(r1, new, layers=("g",))
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/jA").json["name"], "unrelated")

    def test_a_later_child_of_a_created_layer_conflicts(self):
        r1 = self.edit([{"op": "layer.create", "layerId": "n", "name": "N", "kind": "group"}])
        r2 = self.edit([{"op": "layer.create", "layerId": "k", "name": "K", "kind": "group",
                         "parentId": "n"}])
        body = self.assertProblem(self.revert(r1["receiptId"], expect=409), 409,
                                  "REVERT_CONFLICT")
        self.assertEqual([(e["layerId"], e["receipts"]) for e in body["errors"]],
                         [("k", [r2["receiptId"]])])
        self.revert(r1["receiptId"], {"force": True})
        for lid in ("n", "k"):
            self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/{lid}").status, 404)

    def test_restoring_below_a_parent_deleted_later_is_refused(self):
        self.edit([{"op": "layer.create", "layerId": "c", "name": "C", "kind": "group",
                    "parentId": "g"}])
        r1 = self.edit([{"op": "layer.parent", "layerId": "c", "parentId": None}])
        self.edit([{"op": "layer.delete", "layerId": "g"}])
        v = self.version()
        body = self.assertProblem(self.revert(r1["receiptId"], expect=422), 422,
                                  "LAYER_NOT_FOUND")
        self.assertEqual(body["errors"][0]["parentId"], "g")
        self.assertEqual(self.version(), v)

    def test_a_refused_revert_leaves_the_batch_state_for_later_ops(self):
        """The revert fails (its parent is gone) before changing anything: a later op of the
        same batch sees the head, where the key the revert would bring back is absent."""
        self.edit([{"op": "layer.create", "layerId": "c", "name": "C", "kind": "group",
                    "parentId": "g"},
                   {"op": "layer.key.put", "layerId": "c", "channel": "rotation",
                    "keys": [{"frame": 5, "value": 1}]}])
        r1 = self.edit([{"op": "layer.parent", "layerId": "c", "parentId": None},
                        {"op": "layer.key.delete", "layerId": "c", "channel": "rotation",
                         "frames": [5]}])
        self.edit([{"op": "layer.delete", "layerId": "g"}])
        v = self.version()
        r = self.rigd.post(E, {"ops": [
            {"op": "receipt.revert", "receiptId": r1["receiptId"]},
            {"op": "layer.key.delete", "layerId": "c", "channel": "rotation", "frames": [5]}]})
        self.assertEqual(r.status, 422, r)
        codes = sorted((e["opIndex"], e["code"]) for e in r.json["errors"])
        self.assertEqual(codes, [(0, "LAYER_NOT_FOUND"), (1, "OP_INVALID")], r.json)
        self.assertEqual(self.version(), v)


class Pipeline(RevertCase):
    def test_dry_run_changes_nothing(self):
        r = self.edit([{"op": "layer.rename", "layerId": "g", "name": "X"}])
        v, before = self.version(), self.reads()
        dry = self.revert(r["receiptId"], dry=True, expect=200).json
        self.assertIsNone(dry["receiptId"])
        self.assertIs(dry["dryRun"], True)
        self.assertEqual(dry["revertOf"], r["receiptId"])
        self.assertEqual((self.version(), self.reads()), (v, before))

    def test_idempotency_key_replays_the_first_answer(self):
        r = self.edit([{"op": "layer.rename", "layerId": "g", "name": "X"}])
        h = {"Idempotency-Key": "rev-1"}
        first = self.revert(r["receiptId"], headers=h)
        v = self.version()
        again = self.revert(r["receiptId"], headers=h)
        self.assertEqual(again.body, first.body)
        self.assertEqual(self.version(), v)
        other = self.rigd.post(revert_path(r["receiptId"]), {"force": True}, headers=h)
        self.assertProblem(other, 422, "IDEMPOTENCY_KEY_REUSED")

    def test_expected_version_and_if_match(self):
        r = self.edit([{"op": "layer.rename", "layerId": "g", "name": "X"}])
        v = self.version()
        body = self.assertProblem(self.revert(r["receiptId"], {"expectedVersion": v - 1},
                                              expect=409), 409, "VERSION_CONFLICT")
        self.assertEqual(body["currentVersion"], v)
        self.assertProblem(self.revert(r["receiptId"], headers={"If-Match": f'"{v - 1}"'},
                                       expect=412), 412, "VERSION_CONFLICT")
        self.revert(r["receiptId"], {"expectedVersion": v})

    def test_another_owners_lock_refuses(self):
        r = self.edit([{"op": "layer.rename", "layerId": "g", "name": "X"}])
        lock = self.rigd.post(f"/v1/shots/{S}/locks", {"layerIds": ["g"]},
                              headers={"X-Rigd-Actor": "alice"})
        self.assertEqual(lock.status, 201, lock)
        v = self.version()
        body = self.assertProblem(self.revert(r["receiptId"], headers={"X-Rigd-Actor": "bob"},
                                              expect=423), 423, "LAYER_LOCKED")
        self.assertEqual(body["errors"][0]["lockId"], lock.json["lockId"])
        self.assertEqual(self.version(), v)
        self.revert(r["receiptId"], headers={"X-Rigd-Actor": "alice"})

    def test_check_frames_rejects_a_revert_that_breaks_frames(self):
        dip = self.edit([key_op("jB", "position.y", DIP)])  # accepted: no checkFrames
        fix = self.edit([{"op": "layer.key.delete", "layerId": "jB", "channel": "position.y",
                          "frames": [k["frame"] for k in DIP]}])
        dipped = square_scene()
        dipped.keys("jB", "position.y", [(k["frame"], k["value"]) for k in DIP])
        want = expected_failures(dipped, "m", range(0, 61))
        v = self.version()
        body = self.assertProblem(self.revert(fix["receiptId"], {"checkFrames": True},
                                              expect=422), 422, want[0][1])
        self.assertEqual([(e["frame"], e["code"], e.get("triangleIndex"))
                          for e in body["errors"]], want)
        self.assertEqual(self.version(), v)
        # without the check it applies, and reads as before the fix
        new = self.revert(fix["receiptId"]).json
        self.assertRestored(fix, new)
        self.assertEqual(self.reads()["frames"], self.reads(dip["toVersion"])["frames"])

    def test_a_plan_holding_receipt_revert_validates_and_applies(self):
        r = self.edit([{"op": "layer.rename", "layerId": "g", "name": "X"}])
        plan = self.rigd.post(f"/v1/shots/{S}/plans",
                              {"ops": [{"op": "receipt.revert", "receiptId": r["receiptId"]},
                                       {"op": "layer.rename", "layerId": "jA", "name": "A"}]})
        self.assertEqual(plan.status, 201, plan)
        pid = plan.json["planId"]
        v = self.rigd.post(f"/v1/plans/{pid}/validate", {})
        self.assertEqual((v.status, v.json["ok"]), (200, True), v)
        a = self.rigd.post(f"/v1/plans/{pid}/apply", {"planVersion": 1})
        self.assertEqual(a.status, 201, a)
        self.assertEqual(a.json["revertOf"], r["receiptId"])
        self.assertEqual(a.json["planId"], pid)
        self.assertEqual(self.reads(layers=("g",))["g"],
                         self.reads(r["fromVersion"], layers=("g",))["g"])

    def test_unknown_receipts_and_other_shots(self):
        self.assertProblem(self.revert("r.99.1", expect=404), 404, "NOT_FOUND")
        self.rigd.make_shot("p", "s2")
        other = self.rigd.post("/v1/shots/s2/edits", {"ops": [
            {"op": "layer.create", "layerId": "q", "name": "Q", "kind": "group"}]}).json
        v = self.version()
        bad = self.rigd.post(E, {"ops": [{"op": "receipt.revert",
                                          "receiptId": other["receiptId"]}]})
        body = self.assertProblem(bad, 422, "OP_INVALID")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/receiptId")
        self.assertEqual(body["errors"][0]["shotId"], "s2")
        self.assertEqual(self.version(), v)
        missing = self.rigd.post(E, {"ops": [{"op": "receipt.revert", "receiptId": "r.1.999"}]})
        self.assertProblem(missing, 404, "NOT_FOUND")
        self.assertProblem(self.rigd.post(revert_path(other["receiptId"]), {"nope": 1}), 422,
                           "INVALID_FIELD")

    def test_rigctl_check_frames_on_edit_and_revert(self):
        """rigctl's --check-frames sends checkFrames: the dip that flips triangles is refused
        by `rigctl edit` (exit 1, the first failing frame's code on stderr), applies without
        it, and reverting its fix with --check-frames is refused the same way."""
        dipped = square_scene()
        dipped.keys("jB", "position.y", [(k["frame"], k["value"]) for k in DIP])
        want = expected_failures(dipped, "m", range(0, 61))
        env = {k: v for k, v in os.environ.items() if k not in ("RIGD_URL", "RIGD_ACTOR")}
        url = f"http://127.0.0.1:{self.rigd.port}"

        def rigctl(*args):
            return subprocess.run([RIGCTL, "--url", url, *args], capture_output=True,
                                  text=True, env=env, timeout=60)
        ops = os.path.join(self.rigd.tmp, "dip.json")
        with open(ops, "w") as f:
            json.dump({"ops": [key_op("jB", "position.y", DIP)]}, f)
        v = self.version()
        p = rigctl("edit", "--shot", S, ops, "--check-frames")
        self.assertEqual(p.returncode, 1, p)
        self.assertIn(want[0][1], p.stderr)
        self.assertEqual(self.version(), v)
        p = rigctl("edit", "--shot", S, ops, "--format", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        fix = self.edit([{"op": "layer.key.delete", "layerId": "jB", "channel": "position.y",
                          "frames": [k["frame"] for k in DIP]}])
        v = self.version()
        p = rigctl("revert", fix["receiptId"], "--check-frames")
        self.assertEqual(p.returncode, 1, p)
        self.assertIn(want[0][1], p.stderr)
        self.assertEqual(self.version(), v)

    def test_rigctl_revert(self):
        r = self.edit([{"op": "layer.rename", "layerId": "g", "name": "X"}])
        later = self.edit([{"op": "layer.rename", "layerId": "g", "name": "Y"}])
        env = {k: v for k, v in os.environ.items() if k not in ("RIGD_URL", "RIGD_ACTOR")}
        url = f"http://127.0.0.1:{self.rigd.port}"

        def rigctl(*args):
            return subprocess.run([RIGCTL, "--url", url, *args], capture_output=True,
                                  text=True, env=env, timeout=60)
        p = rigctl("revert", r["receiptId"])
        self.assertEqual(p.returncode, 1, p)
        self.assertIn("REVERT_CONFLICT", p.stderr)
        self.assertIn(later["receiptId"], p.stderr)
        p = rigctl("revert", r["receiptId"], "--force", "--dry-run", "--format", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIs(json.loads(p.stdout)["dryRun"], True)
        v = self.version()
        p = rigctl("revert", r["receiptId"], "--force", "--expected-version", str(v),
                   "--format", "table")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"reverts  {r['receiptId']}", p.stdout)
        self.assertIn(f"r.", p.stdout)
        self.assertEqual(self.version(), v + 1)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/g").json["name"], "g")
        p = rigctl("revert")
        self.assertEqual(p.returncode, 2, p)


class Compacted(RevertCase):
    server_args = ("--history-versions", "2", "--housekeeping-interval", "1")

    def test_a_receipt_whose_earlier_version_is_compacted_is_410(self):
        r = self.edit([{"op": "layer.rename", "layerId": "g", "name": "X"}])
        for i in range(3):
            self.edit([{"op": "layer.rename", "layerId": "jA", "name": f"A{i}"}])
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.rigd.get(f"/v1/shots/{S}?version={r['fromVersion']}").status == 410:
                break
            time.sleep(0.1)
        v = self.version()
        body = self.assertProblem(self.revert(r["receiptId"], expect=410), 410,
                                  "VERSION_COMPACTED")
        self.assertEqual(body["errors"][0]["oldestVersion"], v - 1)
        self.assertEqual(self.version(), v)


if __name__ == "__main__":
    main()
