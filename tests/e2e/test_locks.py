"""Layer locks end to end (SPEC §6, issue 6): a foreign lock rejects every op that changes
the locked layer (and the deletion of its ancestors) with 423 LAYER_LOCKED and rolls the
whole batch back; the owner's edits pass; upstream joint edits pass and move the locked mesh;
expiry, overlap, validation, fencing tokens, renew, release and the live-lock list.
"""
import threading
import time
from datetime import datetime

import sqlite_store
from rigd_harness import Rigd, RigdTestCase, main

S = "s1"
E = f"/v1/shots/{S}/edits"
L = f"/v1/shots/{S}/locks"

ALICE = {"X-Rigd-Actor": "alice"}
BOB = {"X-Rigd-Actor": "bob"}

SKIN = {
    "source": [{"x": 0, "y": -10}, {"x": 100, "y": -10}, {"x": 200, "y": -10},
               {"x": 0, "y": 10}, {"x": 100, "y": 10}, {"x": 200, "y": 10}],
    "triangles": [[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]],
    "joints": [{"id": "u", "bind": [1, 0, 0, 1, 0, 0]}, {"id": "l", "bind": [1, 0, 0, 1, 0, 0]}],
    "weights": [[{"jointId": "u", "weight": 1}],
                [{"jointId": "u", "weight": 0.5}, {"jointId": "l", "weight": 0.5}],
                [{"jointId": "l", "weight": 1}],
                [{"jointId": "u", "weight": 1}],
                [{"jointId": "u", "weight": 0.5}, {"jointId": "l", "weight": 0.5}],
                [{"jointId": "l", "weight": 1}]],
    "jointLayers": [{"jointId": "u", "layerId": "upper"}, {"jointId": "l", "layerId": "lower"}],
}


def iso(s):
    """Parses the service's ISO-8601 UTC timestamps (with or without fraction)."""
    s = s.replace("Z", "+00:00")
    return datetime.fromisoformat(s)


# Every op kind that changes the (skinned mesh) layer "arm", built fresh per use.
def ops_on_arm():
    return [
        ("layer.pose static", {"op": "layer.pose", "layerId": "arm",
                               "transform": {"position": [5, 5]}}),
        ("layer.pose keyed", {"op": "layer.pose", "layerId": "arm", "frame": 3,
                              "transform": {"rotation": 10}}),
        ("layer.key.put", {"op": "layer.key.put", "layerId": "arm", "channel": "position.x",
                           "keys": [{"frame": 7, "value": 2}]}),
        ("layer.key.delete", {"op": "layer.key.delete", "layerId": "arm", "channel": "rotation",
                              "frames": [5]}),
        ("layer.rename", {"op": "layer.rename", "layerId": "arm", "name": "Renamed"}),
        ("layer.parent", {"op": "layer.parent", "layerId": "arm", "parentId": None}),
        ("layer.skin", {"op": "layer.skin", "layerId": "arm", "skin": SKIN}),
        ("layer.skin null", {"op": "layer.skin", "layerId": "arm", "skin": None}),
        ("layer.skin.bind.capture", {"op": "layer.skin.bind.capture", "layerId": "arm",
                                     "frame": 0}),
        ("layer.skin.weights.put", {"op": "layer.skin.weights.put", "layerId": "arm",
                                    "vertexIndex": 1,
                                    "influences": [{"jointId": "u", "weight": 1}]}),
        ("layer.delete", {"op": "layer.delete", "layerId": "arm"}),
    ]


class LockCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", S, frameStart=0, frameEnd=24)
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "root", "name": "Root", "kind": "group"},
            {"op": "layer.create", "layerId": "upper", "name": "Upper", "kind": "group",
             "parentId": "root"},
            {"op": "layer.create", "layerId": "lower", "name": "Lower", "kind": "group",
             "parentId": "upper", "transform": {"position": [100, 0]}},
            {"op": "layer.pose", "layerId": "lower", "frame": 0, "transform": {"rotation": 0}},
            {"op": "layer.pose", "layerId": "lower", "frame": 24, "transform": {"rotation": 45}},
            {"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "mesh",
             "parentId": "root"},
            {"op": "layer.pose", "layerId": "arm", "frame": 5, "transform": {"rotation": 0}},
            {"op": "layer.skin", "layerId": "arm", "skin": SKIN},
            {"op": "layer.skin.bind.capture", "layerId": "arm", "frame": 0},
            {"op": "layer.create", "layerId": "other", "name": "Other", "kind": "group"},
        ])

    # ---- helpers
    def lock(self, actor, layers, ttl=None, expect=201):
        body = {"layerIds": layers}
        if ttl is not None:
            body["ttlSeconds"] = ttl
        r = self.rigd.post(L, body, headers=actor)
        self.assertEqual(r.status, expect, r)
        return r.json

    def post(self, actor, ops, **extra):
        return self.rigd.post(E, {"ops": ops, **extra}, headers=actor)

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def live_locks(self):
        r = self.rigd.get(L)
        self.assertEqual(r.status, 200, r)
        return r.json["locks"]

    def frame(self, f, layer="arm"):
        r = self.rigd.get(f"/v1/shots/{S}/frames/{f}?layers={layer}")
        self.assertEqual(r.status, 200, r)
        (entry,) = [l for l in r.json["layers"] if l["layerId"] == layer]
        return entry["vertices"]

    def joints(self):
        r = self.rigd.get(f"/v1/shots/{S}/layers/arm/mesh-data/joints")
        self.assertEqual(r.status, 200, r)
        return r.json["items"] if "items" in r.json else r.json

    def assertLocked(self, r, lock, op_index, layer_id=None, what=""):
        body = self.assertProblem(r, 423, "LAYER_LOCKED")
        errs = [e for e in body.get("errors", []) if e["code"] == "LAYER_LOCKED"]
        self.assertTrue(errs, f"{what}: no LAYER_LOCKED entry in errors[]: {body}")
        e = errs[0]
        self.assertEqual(e.get("lockId"), lock["lockId"], f"{what}: {e}")
        self.assertEqual(e.get("owner"), lock["owner"], f"{what}: {e}")
        self.assertEqual(e.get("expiresAt"), lock["expiresAt"], f"{what}: {e}")
        self.assertEqual(e.get("opIndex"), op_index, f"{what}: {e}")
        self.assertEqual(e.get("pointer", "")[:len(f"/ops/{op_index}")], f"/ops/{op_index}",
                         f"{what}: {e}")
        if layer_id is not None:
            self.assertEqual(e.get("layerId"), layer_id, f"{what}: {e}")
        return body


class Locks(LockCase):
    def test_acquire_shape_defaults_and_list(self):
        lk = self.lock(ALICE, ["arm", "lower"])
        self.assertEqual(lk["owner"], "alice")
        self.assertEqual(lk["shotId"], S)
        self.assertEqual(lk["layerIds"], ["arm", "lower"])
        self.assertEqual(lk["ttlSeconds"], 60)
        self.assertIsInstance(lk["fencingToken"], int)
        self.assertGreaterEqual(lk["fencingToken"], 1)
        left = (iso(lk["expiresAt"]).timestamp() - time.time())
        self.assertTrue(50 <= left <= 61, lk)
        # without X-Rigd-Actor the owner is 'anonymous'
        r = self.rigd.post(L, {"layerIds": ["other"], "ttlSeconds": 5})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json["owner"], "anonymous")
        self.assertEqual(r.json["ttlSeconds"], 5)
        ids = sorted(l["lockId"] for l in self.live_locks())
        self.assertEqual(ids, sorted([lk["lockId"], r.json["lockId"]]))
        listed = next(l for l in self.live_locks() if l["lockId"] == lk["lockId"])
        self.assertEqual(listed, lk)
        # locking changes nothing about the shot
        self.assertEqual(self.version(), 1)

    def test_foreign_lock_rejects_every_op_on_locked_layer_and_rolls_back(self):
        lk = self.lock(ALICE, ["arm"])
        before = self.rigd.snapshot(S)
        for name, op in ops_on_arm():
            with self.subTest(op=name):
                # op 0 is a harmless unlocked edit that must be rolled back with the batch
                r = self.post(BOB, [{"op": "layer.rename", "layerId": "other", "name": "X"},
                                    {"op": "layer.create", "layerId": "tmp", "name": "t",
                                     "kind": "group"},
                                    op])
                self.assertLocked(r, lk, 2, "arm", name)
                self.assertEqual(self.rigd.snapshot(S), before, name)
        # also as the only op (opIndex 0), and with a dry run
        r = self.post(BOB, [{"op": "layer.rename", "layerId": "arm", "name": "Y"}])
        self.assertLocked(r, lk, 0, "arm")
        r = self.rigd.post(E + "?dryRun=true", {"ops": [{"op": "layer.rename", "layerId": "arm",
                                                          "name": "Y"}]}, headers=BOB)
        self.assertLocked(r, lk, 0, "arm")
        self.assertEqual(self.rigd.snapshot(S), before)

    def test_foreign_lock_on_joint_rejects_ops_on_the_joint(self):
        lk = self.lock(ALICE, ["lower"])
        before = self.rigd.snapshot(S)
        for op in ({"op": "layer.pose", "layerId": "lower", "frame": 12,
                    "transform": {"rotation": 5}},
                   {"op": "layer.key.delete", "layerId": "lower", "channel": "rotation",
                    "frames": [24]},
                   {"op": "layer.parent", "layerId": "lower", "parentId": "root"}):
            r = self.post(BOB, [{"op": "layer.pose", "layerId": "other",
                                 "transform": {"rotation": 3}}, op])
            self.assertLocked(r, lk, 1, "lower", op["op"])
        self.assertEqual(self.rigd.snapshot(S), before)

    def test_deleting_an_ancestor_of_a_locked_layer_is_rejected(self):
        lk = self.lock(ALICE, ["lower"])
        before = self.rigd.snapshot(S)
        for anc in ("upper", "root"):
            with self.subTest(ancestor=anc):
                r = self.post(BOB, [{"op": "layer.rename", "layerId": "other", "name": "Z"},
                                    {"op": "layer.delete", "layerId": anc}])
                self.assertLocked(r, lk, 1, "lower", anc)
                self.assertEqual(self.rigd.snapshot(S), before)
        # the locked mesh's ancestor too
        lk2 = self.lock(ALICE, ["arm"])
        r = self.post(BOB, [{"op": "layer.delete", "layerId": "root"}])
        body = self.assertProblem(r, 423, "LAYER_LOCKED")
        named = {e.get("lockId") for e in body["errors"]}
        self.assertIn(lk["lockId"], named, body)
        self.assertIn(lk2["lockId"], named, body)
        self.assertEqual(self.rigd.snapshot(S), before)

    def test_creating_under_a_locked_layer_is_not_a_change(self):
        self.lock(ALICE, ["lower"])
        r = self.post(BOB, [{"op": "layer.create", "layerId": "tip", "name": "Tip",
                             "kind": "group", "parentId": "lower"}])
        self.assertEqual(r.status, 201, r)

    def test_owner_edits_pass(self):
        lk = self.lock(ALICE, ["arm"])
        ops = [op for name, op in ops_on_arm() if name not in ("layer.delete", "layer.skin null")]
        v = self.version()
        r = self.post(ALICE, ops)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json["actor"], "alice")
        self.assertEqual(r.json["toVersion"], v + 1)
        arm = self.rigd.get(f"/v1/shots/{S}/layers/arm").json
        self.assertEqual(arm["name"], "Renamed")
        self.assertIsNone(arm["parentId"])
        # with the fencing token as proof
        r = self.post(ALICE, [{"op": "layer.pose", "layerId": "arm",
                               "transform": {"rotation": 1}}],
                      lockId=lk["lockId"], fencingToken=lk["fencingToken"])
        self.assertEqual(r.status, 201, r)
        r = self.post(ALICE, [{"op": "layer.delete", "layerId": "arm"}])
        self.assertEqual(r.status, 201, r)

    def test_upstream_joint_edit_by_someone_else_passes_and_moves_locked_mesh(self):
        self.lock(ALICE, ["arm"])
        before = self.frame(0)
        snap = self.rigd.snapshot(S)
        joints_before = self.joints()
        r = self.post(BOB, [{"op": "layer.pose", "layerId": "lower", "frame": 0,
                             "transform": {"rotation": 30}}])
        self.assertEqual(r.status, 201, r)
        self.assertNotIn("arm", r.json["changedLayers"])
        after = self.frame(0)
        self.assertNotEqual(before, after)
        # the right edge (weighted to 'lower') moved, the left edge (weighted to 'upper') did not
        self.assertEqual(before[0], after[0])
        self.assertNotEqual(before[2], after[2])
        # the locked mesh layer's own data and binding are untouched
        now = self.rigd.get(f"/v1/shots/{S}/layers/arm").json
        was = dict(snap["layers"]["arm"])
        now.pop("shotVersion"), was.pop("shotVersion")
        self.assertEqual(now, was)
        self.assertEqual(self.joints(), joints_before)
        # moving an unlocked ancestor of the locked mesh is upstream motion too
        r = self.post(BOB, [{"op": "layer.pose", "layerId": "upper",
                             "transform": {"rotation": 10}}])
        self.assertEqual(r.status, 201, r)
        self.assertNotEqual(self.frame(0), after)

    def test_expiry_frees_layer_renew_of_expired_and_list_shows_live_only(self):
        short = self.lock(ALICE, ["arm"], ttl=1)
        long_ = self.lock(ALICE, ["other"], ttl=60)
        self.assertEqual(short["ttlSeconds"], 1)
        r = self.post(BOB, [{"op": "layer.rename", "layerId": "arm", "name": "B"}])
        self.assertLocked(r, short, 0, "arm")
        r = self.rigd.post(L, {"layerIds": ["arm"]}, headers=BOB)
        self.assertProblem(r, 409, "LOCK_CONFLICT")
        time.sleep(1.2)
        self.assertEqual([l["lockId"] for l in self.live_locks()], [long_["lockId"]])
        r = self.post(BOB, [{"op": "layer.rename", "layerId": "arm", "name": "B"}])
        self.assertEqual(r.status, 201, r)
        # the expired lock's token no longer proves anything
        r = self.post(ALICE, [{"op": "layer.rename", "layerId": "arm", "name": "C"}],
                      lockId=short["lockId"], fencingToken=short["fencingToken"])
        self.assertProblem(r, 423, "LOCK_LOST")
        # renewing an expired lock: LOCK_LOST (404 only if already swept)
        r = self.rigd.post(f"/v1/locks/{short['lockId']}/renew", {"ttlSeconds": 30},
                           headers=ALICE)
        self.assertIn(r.status, (423, 404), r)
        if r.status == 423:
            self.assertProblem(r, 423, "LOCK_LOST")
        # and another owner can lock it now
        b = self.lock(BOB, ["arm"])
        self.assertGreater(b["fencingToken"], long_["fencingToken"])

    def test_overlapping_acquire(self):
        a = self.lock(ALICE, ["arm", "lower"])
        r = self.rigd.post(L, {"layerIds": ["root", "lower"], "ttlSeconds": 30}, headers=BOB)
        body = self.assertProblem(r, 409, "LOCK_CONFLICT")
        self.assertEqual(body.get("lockId"), a["lockId"], body)
        self.assertEqual(body.get("owner"), "alice", body)
        self.assertIn(a["lockId"], body["detail"])
        self.assertEqual([l["lockId"] for l in self.live_locks()], [a["lockId"]])
        # the same owner may overlap its own lock
        a2 = self.lock(ALICE, ["lower", "root"])
        self.assertGreater(a2["fencingToken"], a["fencingToken"])
        # another owner may lock disjoint layers
        self.lock(BOB, ["other"])
        self.assertEqual(len(self.live_locks()), 3)

    def test_acquire_validation(self):
        before = self.live_locks()
        r = self.rigd.post(L, {"layerIds": ["arm", "ghost"]}, headers=ALICE)
        body = self.assertProblem(r, 422, "LAYER_NOT_FOUND")
        e = body["errors"][0]
        self.assertEqual(e["layerId"], "ghost", body)
        self.assertEqual(e["pointer"], "/layerIds/1", body)
        for ttl in (0, 3601, -5, 1.5, "60"):
            with self.subTest(ttl=ttl):
                r = self.rigd.post(L, {"layerIds": ["arm"], "ttlSeconds": ttl}, headers=ALICE)
                self.assertEqual(r.status, 422, r)
                self.assertTrue(any(x.get("pointer") == "/ttlSeconds"
                                    for x in r.json.get("errors", [])), r)
        for ttl in (1, 3600):
            r = self.rigd.post(L, {"layerIds": ["other"], "ttlSeconds": ttl}, headers=ALICE)
            self.assertEqual(r.status, 201, r)
            self.assertEqual(r.json["ttlSeconds"], ttl)
            self.assertEqual(self.rigd.delete(f"/v1/locks/{r.json['lockId']}",
                                              headers=ALICE).status, 200)
        r = self.rigd.post(L, {"layerIds": []}, headers=ALICE)
        self.assertEqual(r.status, 422, r)
        r = self.rigd.post("/v1/shots/nope/locks", {"layerIds": ["arm"]}, headers=ALICE)
        self.assertProblem(r, 404, "NOT_FOUND")
        self.assertEqual(self.live_locks(), before)

    def test_fencing_tokens(self):
        lk = self.lock(ALICE, ["arm"])
        v = self.version()
        r = self.post(ALICE, [{"op": "layer.rename", "layerId": "arm", "name": "Fenced"}],
                      lockId=lk["lockId"], fencingToken=lk["fencingToken"])
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.version(), v + 1)
        snap = self.rigd.snapshot(S)
        # wrong token
        r = self.post(ALICE, [{"op": "layer.rename", "layerId": "arm", "name": "W"}],
                      lockId=lk["lockId"], fencingToken=lk["fencingToken"] + 100)
        body = self.assertProblem(r, 423, "LOCK_LOST")
        self.assertEqual(body.get("lockId"), lk["lockId"], body)
        self.assertEqual(self.rigd.snapshot(S), snap)
        # another owner presenting alice's lock and token
        r = self.post(BOB, [{"op": "layer.rename", "layerId": "other", "name": "W"}],
                      lockId=lk["lockId"], fencingToken=lk["fencingToken"])
        self.assertProblem(r, 423, "LOCK_LOST")
        # unknown lock id
        r = self.post(ALICE, [{"op": "layer.rename", "layerId": "other", "name": "W"}],
                      lockId="k-nope", fencingToken=1)
        self.assertProblem(r, 423, "LOCK_LOST")
        # lockId without fencingToken and the reverse: 422, nothing applied
        r = self.post(ALICE, [{"op": "layer.rename", "layerId": "arm", "name": "W"}],
                      lockId=lk["lockId"])
        self.assertEqual(r.status, 422, r)
        r = self.post(ALICE, [{"op": "layer.rename", "layerId": "arm", "name": "W"}],
                      fencingToken=lk["fencingToken"])
        self.assertEqual(r.status, 422, r)
        self.assertEqual(self.rigd.snapshot(S), snap)
        # released: the token is lost
        self.assertEqual(self.rigd.delete(f"/v1/locks/{lk['lockId']}", headers=ALICE).status, 200)
        r = self.post(ALICE, [{"op": "layer.rename", "layerId": "arm", "name": "W"}],
                      lockId=lk["lockId"], fencingToken=lk["fencingToken"])
        self.assertProblem(r, 423, "LOCK_LOST")
        self.assertEqual(self.rigd.snapshot(S), snap)

    def test_fencing_tokens_increase_monotonically_per_shot(self):
        tokens = [self.lock(ALICE, ["arm"], ttl=30)["fencingToken"]]
        # release and re-acquire, other owners, other layers, overlapping own locks
        self.rigd.delete(f"/v1/locks/{self.live_locks()[0]['lockId']}", headers=ALICE)
        for actor, layers in ((BOB, ["arm"]), (ALICE, ["other"]), (BOB, ["arm", "lower"]),
                              (ALICE, ["root"]), (BOB, ["upper"])):
            tokens.append(self.lock(actor, layers, ttl=30)["fencingToken"])
        self.assertEqual(tokens, sorted(set(tokens)), tokens)
        # edits of the shot in between do not reset the counter
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "n1", "name": "n1",
                            "kind": "group"}], headers=BOB)
        tokens.append(self.lock(BOB, ["n1"], ttl=30)["fencingToken"])
        self.assertGreater(tokens[-1], tokens[-2])
        # a second shot does not disturb this shot's sequence
        self.rigd.make_shot("p1", "s2")
        self.rigd.edit("s2", [{"op": "layer.create", "layerId": "x", "name": "x",
                               "kind": "group"}])
        r = self.rigd.post("/v1/shots/s2/locks", {"layerIds": ["x"]}, headers=ALICE)
        self.assertEqual(r.status, 201, r)
        tokens.append(self.lock(ALICE, ["other"], ttl=30)["fencingToken"])
        self.assertGreater(tokens[-1], tokens[-2])
        # nor does a restart on the same database
        first = self.rigd
        self.addCleanup(first.cleanup)
        self.assertEqual(first.stop(), 0)
        self.rigd = Rigd(db_path=first.db_path).start()
        tokens.append(self.lock(ALICE, ["root"], ttl=30)["fencingToken"])
        self.assertGreater(tokens[-1], tokens[-2])

    def test_renew(self):
        lk = self.lock(ALICE, ["arm"], ttl=5)
        r = self.rigd.post(f"/v1/locks/{lk['lockId']}/renew", {"ttlSeconds": 600}, headers=BOB)
        body = self.assertProblem(r, 403, "LOCK_NOT_OWNER")
        self.assertEqual(body.get("owner"), "alice")
        time.sleep(0.05)
        r = self.rigd.post(f"/v1/locks/{lk['lockId']}/renew", {"ttlSeconds": 600}, headers=ALICE)
        self.assertEqual(r.status, 200, r)
        renewed = r.json
        self.assertEqual(renewed["lockId"], lk["lockId"])
        self.assertEqual(renewed["ttlSeconds"], 600)
        self.assertGreater(iso(renewed["expiresAt"]), iso(lk["expiresAt"]))
        self.assertEqual(renewed["fencingToken"], lk["fencingToken"])
        listed = next(l for l in self.live_locks() if l["lockId"] == lk["lockId"])
        self.assertEqual(listed["expiresAt"], renewed["expiresAt"])
        # the renewed expiry is what a rejected edit names
        r = self.post(BOB, [{"op": "layer.rename", "layerId": "arm", "name": "B"}])
        self.assertLocked(r, renewed, 0, "arm")
        # renew without a body renews for the lease the lock already has (600)
        r = self.rigd.request("POST", f"/v1/locks/{lk['lockId']}/renew", headers=ALICE)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["ttlSeconds"], 600)
        r = self.rigd.post(f"/v1/locks/{lk['lockId']}/renew", {"ttlSeconds": 0}, headers=ALICE)
        self.assertEqual(r.status, 422, r)
        r = self.rigd.post("/v1/locks/k-nope/renew", {}, headers=ALICE)
        self.assertProblem(r, 404, "NOT_FOUND")

    def test_release(self):
        lk = self.lock(ALICE, ["arm"])
        r = self.rigd.delete(f"/v1/locks/{lk['lockId']}", headers=BOB)
        body = self.assertProblem(r, 403, "LOCK_NOT_OWNER")
        self.assertEqual(body.get("lockId"), lk["lockId"])
        self.assertEqual([l["lockId"] for l in self.live_locks()], [lk["lockId"]])
        r = self.post(BOB, [{"op": "layer.rename", "layerId": "arm", "name": "B"}])
        self.assertLocked(r, lk, 0, "arm")
        r = self.rigd.delete(f"/v1/locks/{lk['lockId']}", headers=ALICE)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(self.live_locks(), [])
        r = self.post(BOB, [{"op": "layer.rename", "layerId": "arm", "name": "B"}])
        self.assertEqual(r.status, 201, r)
        r = self.rigd.delete(f"/v1/locks/{lk['lockId']}", headers=ALICE)
        self.assertProblem(r, 404, "NOT_FOUND")
        # bob may lock it now
        self.lock(BOB, ["arm"])

    def test_acquire_response_is_the_stored_lock(self):
        # the 201 body is the lock as stored and listed, also for a repeated layer id
        # (which is either refused with a pointer or stored once and answered once)
        r = self.rigd.post(L, {"layerIds": ["arm", "lower", "arm"]}, headers=ALICE)
        if r.status == 422:
            self.assertTrue(any(e.get("pointer") == "/layerIds/2" for e in r.json["errors"]), r)
            self.assertEqual(self.live_locks(), [])
        else:
            self.assertEqual(r.status, 201, r)
            (listed,) = self.live_locks()
            self.assertEqual(r.json, listed)
            self.assertEqual(sorted(set(r.json["layerIds"])), sorted(r.json["layerIds"]))

    def test_layer_not_found_pointer_after_a_repeated_id(self):
        # the pointer names the element of the request, also after a repeated id
        r = self.rigd.post(L, {"layerIds": ["arm", "arm", "ghost"]}, headers=ALICE)
        body = self.assertProblem(r, 422, "LAYER_NOT_FOUND")
        self.assertEqual([(e["layerId"], e["pointer"]) for e in body["errors"]],
                         [("ghost", "/layerIds/2")], body)
        self.assertEqual(self.live_locks(), [])

    def test_racing_acquires_of_one_layer_exactly_one_wins(self):
        for rnd in range(4):
            n = 4
            barrier = threading.Barrier(n)
            results = [None] * n
            conns = [self.rigd.connect() for _ in range(n)]

            def run(i):
                try:
                    barrier.wait(timeout=10)
                    results[i] = self.rigd.post(L, {"layerIds": ["other"], "ttlSeconds": 30},
                                                headers={"X-Rigd-Actor": f"racer-{i}"},
                                                conn=conns[i])
                except Exception as e:
                    results[i] = e

            threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            for c in conns:
                c.close()
            for res in results:
                self.assertNotIsInstance(res, Exception, res)
            wins = [r for r in results if r.status == 201]
            self.assertEqual(len(wins), 1, results)
            for r in results:
                if r.status != 201:
                    body = self.assertProblem(r, 409, "LOCK_CONFLICT")
                    self.assertEqual(body["lockId"], wins[0].json["lockId"])
            self.assertEqual([l["lockId"] for l in self.live_locks()], [wins[0].json["lockId"]])
            self.assertEqual(self.rigd.delete(f"/v1/locks/{wins[0].json['lockId']}",
                                              headers={"X-Rigd-Actor": wins[0].json["owner"]}
                                              ).status, 200)

    def test_long_actor_names_the_owner_in_full(self):
        actor = "a" * 127 + "Z"  # 128 characters, the maximum
        lk = self.lock({"X-Rigd-Actor": actor}, ["arm"])
        self.assertEqual(lk["owner"], actor)
        r = self.post(BOB, [{"op": "layer.rename", "layerId": "arm", "name": "B"}])
        self.assertLocked(r, lk, 0, "arm")
        r = self.rigd.post(L, {"layerIds": ["arm"]}, headers=BOB)
        self.assertEqual(self.assertProblem(r, 409, "LOCK_CONFLICT")["owner"], actor)
        r = self.rigd.post(L, {"layerIds": ["other"]}, headers={"X-Rigd-Actor": actor + "x"})
        self.assertEqual(r.status, 400, r)
        r = self.rigd.delete(f"/v1/locks/{lk['lockId']}", headers={"X-Rigd-Actor": actor})
        self.assertEqual(r.status, 200, r)

    def test_list_unknown_shot_is_404(self):
        self.assertProblem(self.rigd.get("/v1/shots/nope/locks"), 404, "NOT_FOUND")


class LockSweep(LockCase):
    """Expired locks are swept by the housekeeping timer (issue 6)."""
    server_args = ("--housekeeping-interval", "1")

    def test_expired_locks_are_swept(self):
        short = self.lock(ALICE, ["arm"], ttl=1)
        kept = self.lock(ALICE, ["other"], ttl=60)

        def stored():
            return sqlite_store.lock_ids(self.rigd.db_path)

        self.assertEqual(stored(), sorted([short["lockId"], kept["lockId"]]))
        deadline = time.time() + 4
        while time.time() < deadline and short["lockId"] in stored():
            time.sleep(0.1)
        self.assertEqual(stored(), [kept["lockId"]])
        r = self.rigd.post(f"/v1/locks/{short['lockId']}/renew", {}, headers=ALICE)
        self.assertProblem(r, 404, "NOT_FOUND")
        r = self.post(ALICE, [{"op": "layer.rename", "layerId": "arm", "name": "C"}],
                      lockId=short["lockId"], fencingToken=short["fencingToken"])
        self.assertProblem(r, 423, "LOCK_LOST")


if __name__ == "__main__":
    main()
