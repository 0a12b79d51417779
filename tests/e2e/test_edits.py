"""Edit batches through the real server: atomicity, every layer op, decode and
apply errors (opIndex + pointer), versions, dry runs, receipts and their paging,
and the ops-per-batch limit (SPEC §5, §6, §7; issue 3)."""
import re

from rigd_harness import RigdTestCase, main
from sqlite_store import shot_rows as db_rows

ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
E = "/v1/shots/s1/edits"


class EditsBase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", "s1")

    # ---- helpers ----
    def post(self, ops, path=E, **kw):
        body = {"ops": ops}
        body.update(kw.pop("body_extra", {}))
        return self.rigd.post(path, body, **kw)

    def ok(self, ops, **kw):
        r = self.post(ops, **kw)
        self.assertEqual(r.status, 201, r)
        return r.json

    def layer(self, lid):
        r = self.rigd.get(f"/v1/shots/s1/layers/{lid}")
        self.assertEqual(r.status, 200, r)
        return r.json

    def version(self):
        return self.rigd.get("/v1/shots/s1").json["version"]

    def seed(self):
        """A small tree root > arm > hand plus a keyed channel; one receipt."""
        return self.ok([
            {"op": "layer.create", "layerId": "root", "name": "Root", "kind": "group"},
            {"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "group",
             "parentId": "root", "transform": {"position": [10, 0]}},
            {"op": "layer.create", "layerId": "hand", "name": "Hand", "kind": "mesh",
             "parentId": "arm"},
            {"op": "layer.key.put", "layerId": "arm", "channel": "rotation",
             "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 90}]},
        ])

    def assertUnchanged(self, before, before_rows=None):
        self.assertEqual(self.rigd.snapshot("s1"), before)
        if before_rows is not None:
            self.assertEqual(db_rows(self.rigd.db_path), before_rows)

    def err_with(self, body, pointer):
        for e in body.get("errors", []):
            if e.get("pointer") == pointer:
                return e
        self.fail(f"no error with pointer {pointer!r} in {body}")


class Atomicity(EditsBase):
    def test_third_op_failing_at_apply_leaves_shot_byte_for_byte(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        raw_shot = self.rigd.get("/v1/shots/s1").body
        raw_arm = self.rigd.get("/v1/shots/s1/layers/arm").body
        rows = db_rows(self.rigd.db_path)
        r = self.post([
            {"op": "layer.rename", "layerId": "arm", "name": "Renamed"},
            {"op": "layer.pose", "layerId": "arm", "frame": 5, "transform": {"rotation": 45}},
            {"op": "layer.pose", "layerId": "ghost", "transform": {"rotation": 1}},
            {"op": "layer.delete", "layerId": "root"},
        ])
        body = self.assertProblem(r, 422, "LAYER_NOT_FOUND")
        e = body["errors"][0]
        self.assertEqual(e["opIndex"], 2)
        self.assertEqual(e["pointer"], "/ops/2/layerId")
        self.assertEqual(e["layerId"], "ghost")
        self.assertUnchanged(before, rows)
        self.assertEqual(self.rigd.get("/v1/shots/s1").body, raw_shot)
        self.assertEqual(self.rigd.get("/v1/shots/s1/layers/arm").body, raw_arm)

    def test_third_op_failing_at_decode_leaves_shot_unchanged(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        rows = db_rows(self.rigd.db_path)
        r = self.post([
            {"op": "layer.create", "layerId": "new", "name": "n", "kind": "group"},
            {"op": "layer.rename", "layerId": "arm", "name": "x"},
            {"op": "layer.pose", "layerId": "arm", "transform": {"rotation": "45"}},
        ])
        body = self.assertProblem(r, 422, "OP_INVALID")
        e = self.err_with(body, "/ops/2/transform/rotation")
        self.assertEqual(e["opIndex"], 2)
        self.assertUnchanged(before, rows)

    def test_cycle_and_missing_key_deletion_roll_back(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        rows = db_rows(self.rigd.db_path)
        r = self.post([
            {"op": "layer.delete", "layerId": "hand"},
            {"op": "layer.create", "layerId": "x", "name": "x", "kind": "group"},
            {"op": "layer.key.delete", "layerId": "arm", "channel": "rotation",
             "frames": [0, 3]},
        ])
        body = self.assertProblem(r, 422, "OP_INVALID")
        self.assertEqual(self.err_with(body, "/ops/2/frames/1")["opIndex"], 2)
        r = self.post([
            {"op": "layer.rename", "layerId": "root", "name": "R2"},
            {"op": "layer.create", "layerId": "y", "name": "y", "kind": "group"},
            {"op": "layer.parent", "layerId": "root", "parentId": "hand"},
        ])
        self.assertProblem(r, 422, "LAYER_CYCLE")
        self.assertUnchanged(before, rows)


class LayerOps(EditsBase):
    def test_create_with_id_parent_transform_time_offset(self):
        rec = self.ok([
            {"op": "layer.create", "layerId": "root", "name": "Root", "kind": "group"},
            {"op": "layer.create", "layerId": "m.1:x_y-z", "name": "Mesh", "kind": "mesh",
             "parentId": "root", "timeOffset": -2.5,
             "transform": {"position": [0.1, -3], "rotation": 30, "scale": [2, 0.5],
                           "pivot": [1e-300, 1.7976931348623157e308]}},
        ])
        self.assertEqual(rec["changedLayers"], ["root", "m.1:x_y-z"])
        m = self.layer("m.1:x_y-z")
        self.assertEqual(m["name"], "Mesh")
        self.assertEqual(m["kind"], "mesh")
        self.assertEqual(m["parentId"], "root")
        self.assertEqual(m["timeOffset"], -2.5)
        self.assertEqual(m["transform"], {"position": [0.1, -3.0], "rotation": 30.0,
                                          "scale": [2.0, 0.5],
                                          "pivot": [1e-300, 1.7976931348623157e308]})
        self.assertEqual(m["keys"], {})
        root = self.layer("root")
        self.assertIsNone(root["parentId"])
        self.assertEqual(root["kind"], "group")
        self.assertEqual(root["timeOffset"], 0.0)
        self.assertEqual(root["transform"], {"position": [0.0, 0.0], "rotation": 0.0,
                                             "scale": [1.0, 1.0], "pivot": [0.0, 0.0]})
        tree = self.rigd.get("/v1/shots/s1").json["layers"]
        self.assertEqual([(l["layerId"], l["depth"], l["parentId"]) for l in tree],
                         [("root", 0, None), ("m.1:x_y-z", 1, "root")])
        self.assertEqual(tree[0]["children"], ["m.1:x_y-z"])

    def test_partial_transform_keeps_defaults(self):
        self.ok([{"op": "layer.create", "layerId": "a", "name": "a", "kind": "group",
                  "transform": {"rotation": 15}}])
        self.assertEqual(self.layer("a")["transform"],
                         {"position": [0.0, 0.0], "rotation": 15.0, "scale": [1.0, 1.0],
                          "pivot": [0.0, 0.0]})

    def test_create_without_id_generates_valid_distinct_ids(self):
        rec = self.ok([
            {"op": "layer.create", "name": "one", "kind": "group"},
            {"op": "layer.create", "name": "two", "kind": "mesh"},
            {"op": "layer.create", "name": "three", "kind": "group", "parentId": None},
        ])
        ids = [o["layerId"] for o in rec["ops"]]
        self.assertEqual(len(set(ids)), 3)
        for lid in ids:
            self.assertRegex(lid, ID_RE)
        self.assertEqual(rec["changedLayers"], ids)
        self.assertEqual([self.layer(i)["name"] for i in ids], ["one", "two", "three"])
        tree = self.rigd.get("/v1/shots/s1").json["layers"]
        self.assertEqual([l["layerId"] for l in tree], ids)

    def test_later_ops_see_earlier_ones(self):
        rec = self.ok([
            {"op": "layer.create", "layerId": "a", "name": "a", "kind": "group"},
            {"op": "layer.pose", "layerId": "a", "transform": {"position": [3, 4]}},
            {"op": "layer.create", "layerId": "b", "name": "b", "kind": "group",
             "parentId": "a"},
            {"op": "layer.rename", "layerId": "b", "name": "bee"},
            {"op": "layer.pose", "layerId": "b", "frame": 2, "transform": {"rotation": 9}},
        ])
        self.assertEqual(rec["fromVersion"], 0)
        self.assertEqual(rec["toVersion"], 1)
        self.assertEqual([o["op"] for o in rec["ops"]],
                         ["layer.create", "layer.pose", "layer.create", "layer.rename",
                          "layer.pose"])
        self.assertEqual([o["index"] for o in rec["ops"]], [0, 1, 2, 3, 4])
        self.assertEqual(self.layer("a")["transform"]["position"], [3.0, 4.0])
        b = self.layer("b")
        self.assertEqual(b["name"], "bee")
        self.assertEqual(b["parentId"], "a")
        self.assertEqual(b["keys"]["rotation"], [{"frame": 2.0, "value": 9.0, "interp": "linear"}])

    def test_op_on_layer_deleted_earlier_in_batch_is_not_found(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        r = self.post([{"op": "layer.delete", "layerId": "arm"},
                       {"op": "layer.rename", "layerId": "hand", "name": "h"}])
        body = self.assertProblem(r, 422, "LAYER_NOT_FOUND")
        self.assertEqual(body["errors"][0]["opIndex"], 1)
        self.assertEqual(body["errors"][0]["pointer"], "/ops/1/layerId")
        self.assertUnchanged(before)

    def test_delete_removes_descendants(self):
        self.seed()
        self.ok([{"op": "layer.create", "layerId": "other", "name": "o", "kind": "group"}])
        rec = self.ok([{"op": "layer.delete", "layerId": "arm"}])
        self.assertEqual(sorted(rec["changedLayers"]), ["arm", "hand"])
        tree = self.rigd.get("/v1/shots/s1").json["layers"]
        self.assertEqual([l["layerId"] for l in tree], ["root", "other"])
        self.assertEqual(tree[0]["children"], [])
        for lid in ("arm", "hand"):
            self.assertProblem(self.rigd.get(f"/v1/shots/s1/layers/{lid}"), 404, "NOT_FOUND")
        # the ids are free again
        self.ok([{"op": "layer.create", "layerId": "hand", "name": "h2", "kind": "group"}])
        self.assertIsNone(self.layer("hand")["parentId"])

    def test_delete_and_recreate_same_id_in_one_batch(self):
        self.seed()
        self.ok([{"op": "layer.delete", "layerId": "root"},
                 {"op": "layer.create", "layerId": "root", "name": "New", "kind": "mesh"},
                 {"op": "layer.create", "layerId": "arm", "name": "Arm2", "kind": "group",
                  "parentId": "root"}])
        tree = self.rigd.get("/v1/shots/s1").json["layers"]
        self.assertEqual([(l["layerId"], l["name"]) for l in tree],
                         [("root", "New"), ("arm", "Arm2")])
        self.assertEqual(self.layer("arm")["keys"], {})
        self.assertProblem(self.rigd.get("/v1/shots/s1/layers/hand"), 404, "NOT_FOUND")

    def test_parent_reparent_to_null_and_cycles(self):
        self.seed()
        self.ok([{"op": "layer.create", "layerId": "other", "name": "o", "kind": "group"}])
        self.ok([{"op": "layer.parent", "layerId": "arm", "parentId": "other"}])
        self.assertEqual(self.layer("arm")["parentId"], "other")
        tree = self.rigd.get("/v1/shots/s1").json["layers"]
        self.assertEqual([(l["layerId"], l["depth"]) for l in tree],
                         [("root", 0), ("other", 0), ("arm", 1), ("hand", 2)])
        self.ok([{"op": "layer.parent", "layerId": "arm", "parentId": None}])
        self.assertIsNone(self.layer("arm")["parentId"])
        self.assertEqual(self.layer("hand")["parentId"], "arm")
        before = self.rigd.snapshot("s1")
        for parent in ("arm", "hand"):
            with self.subTest(parent=parent):
                r = self.post([{"op": "layer.parent", "layerId": "arm", "parentId": parent}])
                body = self.assertProblem(r, 422, "LAYER_CYCLE")
                self.assertEqual(body["errors"][0]["opIndex"], 0)
                self.assertEqual(body["errors"][0]["pointer"], "/ops/0/parentId")
        r = self.post([{"op": "layer.parent", "layerId": "arm", "parentId": "nope"}])
        body = self.assertProblem(r, 422, "LAYER_NOT_FOUND")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/parentId")
        self.assertUnchanged(before)

    def test_rename(self):
        self.seed()
        rec = self.ok([{"op": "layer.rename", "layerId": "hand", "name": "Main gauche \u00e9\u6f22"}])
        self.assertEqual(rec["changedLayers"], ["hand"])
        self.assertEqual(self.layer("hand")["name"], "Main gauche \u00e9\u6f22")
        self.assertEqual(self.layer("hand")["parentId"], "arm")

    def test_pose_static_sets_only_given_channels(self):
        self.seed()
        self.ok([{"op": "layer.pose", "layerId": "arm",
                  "transform": {"rotation": 12.5, "scale": [3, 4]}}])
        arm = self.layer("arm")
        self.assertEqual(arm["transform"], {"position": [10.0, 0.0], "rotation": 12.5,
                                            "scale": [3.0, 4.0], "pivot": [0.0, 0.0]})
        # static pose does not touch keys
        self.assertEqual(arm["keys"]["rotation"],
                         [{"frame": 0.0, "value": 0.0, "interp": "linear"},
                          {"frame": 10.0, "value": 90.0, "interp": "linear"}])

    def test_pose_keyed_upserts_keys_per_channel_with_interp_and_ease(self):
        self.ok([{"op": "layer.create", "layerId": "a", "name": "a", "kind": "group"}])
        self.ok([{"op": "layer.pose", "layerId": "a", "frame": 10,
                  "transform": {"position": [1, 2], "rotation": 30}}])
        self.ok([{"op": "layer.pose", "layerId": "a", "frame": -1.5, "interp": "bezier",
                  "ease": [0.25, 0.1, 0.25, 1], "transform": {"rotation": -5}}])
        self.ok([{"op": "layer.pose", "layerId": "a", "frame": 10, "interp": "hold",
                  "transform": {"rotation": 31}}])
        a = self.layer("a")
        self.assertEqual(a["transform"]["rotation"], 0.0)  # statics untouched
        self.assertEqual(a["keys"]["position.x"], [{"frame": 10.0, "value": 1.0, "interp": "linear"}])
        self.assertEqual(a["keys"]["position.y"], [{"frame": 10.0, "value": 2.0, "interp": "linear"}])
        self.assertEqual(a["keys"]["rotation"], [
            {"frame": -1.5, "value": -5.0, "interp": "bezier", "ease": [0.25, 0.1, 0.25, 1.0]},
            {"frame": 10.0, "value": 31.0, "interp": "hold"}])
        self.assertEqual(set(a["keys"]), {"position.x", "position.y", "rotation"})
        self.assertEqual(a["keyCount"], 4)
        # a keyed pose without interp keeps the existing key's style
        self.ok([{"op": "layer.pose", "layerId": "a", "frame": -1.5, "transform": {"rotation": 7}}])
        self.assertEqual(self.layer("a")["keys"]["rotation"][0],
                         {"frame": -1.5, "value": 7.0, "interp": "bezier",
                          "ease": [0.25, 0.1, 0.25, 1.0]})

    def test_key_put_upserts_by_frame_and_sorts(self):
        self.seed()
        self.ok([{"op": "layer.key.put", "layerId": "arm", "channel": "rotation", "keys": [
            {"frame": 5, "value": 45, "interp": "hold"},
            {"frame": -2.25, "value": -10},
            {"frame": 10, "value": 100, "interp": "bezier", "ease": [0, 0, 1, 1]},
            {"frame": 5, "value": 50, "interp": "linear"},
        ]}])
        self.assertEqual(self.layer("arm")["keys"]["rotation"], [
            {"frame": -2.25, "value": -10.0, "interp": "linear"},
            {"frame": 0.0, "value": 0.0, "interp": "linear"},
            {"frame": 5.0, "value": 50.0, "interp": "linear"},
            {"frame": 10.0, "value": 100.0, "interp": "bezier", "ease": [0.0, 0.0, 1.0, 1.0]},
        ])
        for ch in ("position.x", "position.y", "scale.x", "scale.y", "pivot.x", "pivot.y"):
            with self.subTest(channel=ch):
                self.ok([{"op": "layer.key.put", "layerId": "hand", "channel": ch,
                          "keys": [{"frame": 1, "value": 2}]}])
                self.assertEqual(self.layer("hand")["keys"][ch],
                                 [{"frame": 1.0, "value": 2.0, "interp": "linear"}])

    def test_key_delete(self):
        self.seed()
        self.ok([{"op": "layer.key.put", "layerId": "arm", "channel": "rotation",
                  "keys": [{"frame": 5, "value": 1}, {"frame": 7.5, "value": 2}]}])
        rec = self.ok([{"op": "layer.key.delete", "layerId": "arm", "channel": "rotation",
                        "frames": [5, 0]}])
        self.assertEqual(rec["changedLayers"], ["arm"])
        self.assertEqual([k["frame"] for k in self.layer("arm")["keys"]["rotation"]], [7.5, 10.0])
        before = self.rigd.snapshot("s1")
        r = self.post([{"op": "layer.key.delete", "layerId": "arm", "channel": "rotation",
                        "frames": [7.5, 6]}])
        body = self.assertProblem(r, 422, "OP_INVALID")
        e = self.err_with(body, "/ops/0/frames/1")
        self.assertEqual(e["opIndex"], 0)
        self.assertEqual(e["frame"], 6.0)
        # a channel without any keys
        r = self.post([{"op": "layer.key.delete", "layerId": "arm", "channel": "scale.x",
                        "frames": [0]}])
        self.assertEqual(self.err_with(self.assertProblem(r, 422, "OP_INVALID"),
                                       "/ops/0/frames/0")["opIndex"], 0)
        self.assertUnchanged(before)
        # deleting every key leaves the channel without keys
        self.ok([{"op": "layer.key.delete", "layerId": "arm", "channel": "rotation",
                  "frames": [7.5, 10]}])
        self.assertNotIn("rotation", self.layer("arm")["keys"])

    def test_layer_exists(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        r = self.post([{"op": "layer.create", "layerId": "arm", "name": "dup", "kind": "group"}])
        body = self.assertProblem(r, 422, "LAYER_EXISTS")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/layerId")
        self.assertEqual(body["errors"][0]["layerId"], "arm")
        r = self.post([{"op": "layer.create", "layerId": "n", "name": "n", "kind": "group"},
                       {"op": "layer.create", "layerId": "n", "name": "n", "kind": "group"}])
        body = self.assertProblem(r, 422, "LAYER_EXISTS")
        self.assertEqual(body["errors"][0]["opIndex"], 1)
        self.assertEqual(body["errors"][0]["pointer"], "/ops/1/layerId")
        self.assertUnchanged(before)

    def test_layer_not_found_for_each_op(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        ops = [
            {"op": "layer.delete", "layerId": "nope"},
            {"op": "layer.parent", "layerId": "nope", "parentId": None},
            {"op": "layer.rename", "layerId": "nope", "name": "x"},
            {"op": "layer.pose", "layerId": "nope", "transform": {"rotation": 1}},
            {"op": "layer.key.put", "layerId": "nope", "channel": "rotation",
             "keys": [{"frame": 0, "value": 1}]},
            {"op": "layer.key.delete", "layerId": "nope", "channel": "rotation", "frames": [0]},
            {"op": "layer.create", "layerId": "q", "name": "q", "kind": "group", "parentId": "nope"},
        ]
        for op in ops:
            with self.subTest(op=op["op"]):
                r = self.post([{"op": "layer.rename", "layerId": "arm", "name": "first"}, op])
                body = self.assertProblem(r, 422, "LAYER_NOT_FOUND")
                e = body["errors"][0]
                self.assertEqual(e["opIndex"], 1)
                field = "parentId" if op["op"] == "layer.create" else "layerId"
                self.assertEqual(e["pointer"], f"/ops/1/{field}")
                self.assertEqual(e["layerId"], "nope")
        self.assertUnchanged(before)


# (op, pointer suffix of the bad field) — each op placed at index 1 after a valid op.
BAD_FIELDS = [
    ({"op": "layer.create", "layerId": 5, "name": "a", "kind": "group"}, "layerId"),
    ({"op": "layer.create", "layerId": "a b", "name": "a", "kind": "group"}, "layerId"),
    ({"op": "layer.create", "name": 5, "kind": "group"}, "name"),
    ({"op": "layer.create", "name": "", "kind": "group"}, "name"),
    ({"op": "layer.create", "kind": "group"}, "name"),
    ({"op": "layer.create", "name": "a", "kind": 5}, "kind"),
    ({"op": "layer.create", "name": "a", "kind": "bone"}, "kind"),
    ({"op": "layer.create", "name": "a"}, "kind"),
    ({"op": "layer.create", "name": "a", "kind": "group", "parentId": 5}, "parentId"),
    ({"op": "layer.create", "name": "a", "kind": "group", "transform": "x"}, "transform"),
    ({"op": "layer.create", "name": "a", "kind": "group", "transform": {"position": "x"}},
     "transform/position"),
    ({"op": "layer.create", "name": "a", "kind": "group", "transform": {"position": [1]}},
     "transform/position"),
    ({"op": "layer.create", "name": "a", "kind": "group", "transform": {"scale": [1, "2"]}},
     "transform/scale"),
    ({"op": "layer.create", "name": "a", "kind": "group", "transform": {"pivot": {}}},
     "transform/pivot"),
    ({"op": "layer.create", "name": "a", "kind": "group", "transform": {"rotation": "NaN"}},
     "transform/rotation"),
    ({"op": "layer.create", "name": "a", "kind": "group", "transform": {"skew": 1}},
     "transform/skew"),
    ({"op": "layer.create", "name": "a", "kind": "group", "timeOffset": "1"}, "timeOffset"),
    ({"op": "layer.create", "name": "a", "kind": "group", "extra": 1}, "extra"),
    ({"op": "layer.delete"}, "layerId"),
    ({"op": "layer.delete", "layerId": ["arm"]}, "layerId"),
    ({"op": "layer.delete", "layerId": "arm", "cascade": True}, "cascade"),
    ({"op": "layer.parent", "layerId": "arm"}, "parentId"),
    ({"op": "layer.parent", "layerId": 1, "parentId": None}, "layerId"),
    ({"op": "layer.parent", "layerId": "arm", "parentId": 7}, "parentId"),
    ({"op": "layer.rename", "layerId": "arm"}, "name"),
    ({"op": "layer.rename", "layerId": "arm", "name": True}, "name"),
    ({"op": "layer.rename", "layerId": "arm", "name": "x" * 257}, "name"),
    ({"op": "layer.pose", "layerId": "arm"}, "transform"),
    ({"op": "layer.pose", "layerId": "arm", "frame": "1", "transform": {"rotation": 1}}, "frame"),
    ({"op": "layer.pose", "layerId": "arm", "transform": {"rotation": True}}, "transform/rotation"),
    ({"op": "layer.pose", "layerId": "arm", "transform": {"rotation": 1}, "interp": "hold"},
     "interp"),
    ({"op": "layer.pose", "layerId": "arm", "frame": 1, "transform": {"rotation": 1},
      "interp": "cubic"}, "interp"),
    ({"op": "layer.pose", "layerId": "arm", "frame": 1, "transform": {"rotation": 1},
      "interp": 3}, "interp"),
    ({"op": "layer.pose", "layerId": "arm", "frame": 1, "transform": {"rotation": 1},
      "interp": "bezier"}, "ease"),
    ({"op": "layer.pose", "layerId": "arm", "frame": 1, "transform": {"rotation": 1},
      "interp": "linear", "ease": [0, 0, 1, 1]}, "ease"),
    ({"op": "layer.pose", "layerId": "arm", "frame": 1, "transform": {"rotation": 1},
      "interp": "bezier", "ease": [0, 0, 1]}, "ease"),
    ({"op": "layer.pose", "layerId": "arm", "frame": 1, "transform": {"rotation": 1},
      "interp": "bezier", "ease": ["0", 0, 1, 1]}, "ease"),
    ({"op": "layer.pose", "layerId": "arm", "transform": {"rotation": 1}, "timeOffset": 2},
     "timeOffset"),
    ({"op": "layer.pose", "layerId": "arm", "transform": {"rotation": 1}, "bogus": 2}, "bogus"),
    ({"op": "layer.key.put", "layerId": "arm", "channel": "rot", "keys": [{"frame": 0, "value": 1}]},
     "channel"),
    ({"op": "layer.key.put", "layerId": "arm", "channel": 5, "keys": [{"frame": 0, "value": 1}]},
     "channel"),
    ({"op": "layer.key.put", "layerId": "arm", "keys": [{"frame": 0, "value": 1}]}, "channel"),
    ({"op": "layer.key.put", "layerId": "arm", "channel": "rotation", "keys": []}, "keys"),
    ({"op": "layer.key.put", "layerId": "arm", "channel": "rotation", "keys": "x"}, "keys"),
    ({"op": "layer.key.put", "layerId": "arm", "channel": "rotation", "keys": [5]}, "keys/0"),
    ({"op": "layer.key.put", "layerId": "arm", "channel": "rotation",
      "keys": [{"frame": "1", "value": 1}]}, "keys/0/frame"),
    ({"op": "layer.key.put", "layerId": "arm", "channel": "rotation",
      "keys": [{"frame": 1}]}, "keys/0/value"),
    ({"op": "layer.key.put", "layerId": "arm", "channel": "rotation",
      "keys": [{"frame": 1, "value": 1, "tangent": 0}]}, "keys/0/tangent"),
    ({"op": "layer.key.put", "layerId": "arm", "channel": "rotation",
      "keys": [{"frame": 1, "value": 1}, {"frame": 2, "value": 1, "interp": "bezier",
                                           "ease": [1.5, 0, 0.5, 1]}]}, "keys/1/ease/0"),
    ({"op": "layer.key.delete", "layerId": "arm", "frames": [0]}, "channel"),
    ({"op": "layer.key.delete", "layerId": "arm", "channel": "rotation", "frames": []}, "frames"),
    ({"op": "layer.key.delete", "layerId": "arm", "channel": "rotation", "frames": "0"}, "frames"),
    ({"op": "layer.key.delete", "layerId": "arm", "channel": "rotation", "frames": [0, "1"]},
     "frames/1"),
]


class DecodeErrors(EditsBase):
    def test_wrong_or_missing_field_of_each_op_is_op_invalid_with_pointer(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        for op, field in BAD_FIELDS:
            with self.subTest(op=op):
                r = self.post([{"op": "layer.rename", "layerId": "arm", "name": "ok"}, op])
                body = self.assertProblem(r, 422, "OP_INVALID")
                e = self.err_with(body, f"/ops/1/{field}")
                self.assertEqual(e["code"], "OP_INVALID")
                self.assertEqual(e["opIndex"], 1)
                self.assertTrue(e["detail"])
        self.assertUnchanged(before)

    def test_pose_bezier_ease_outside_unit_range_is_op_invalid(self):
        # SPEC §2: ease x1 and x2 in [0, 1]; layer.key.put enforces it, layer.pose must too.
        self.seed()
        before = self.rigd.snapshot("s1")
        r = self.post([{"op": "layer.pose", "layerId": "arm", "frame": 3, "interp": "bezier",
                        "ease": [2, 0, -1, 1], "transform": {"rotation": 5}}])
        body = self.assertProblem(r, 422, "OP_INVALID")
        self.assertEqual(self.err_with(body, "/ops/0/ease/0")["opIndex"], 0)
        self.assertEqual(self.err_with(body, "/ops/0/ease/2")["opIndex"], 0)
        self.assertUnchanged(before)

    def test_unknown_op(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        r = self.post([{"op": "layer.rename", "layerId": "arm", "name": "x"},
                       {"op": "layer.explode", "layerId": "arm"}])
        body = self.assertProblem(r, 422, "OP_UNKNOWN")
        self.assertEqual(body["errors"][0]["opIndex"], 1)
        self.assertEqual(body["errors"][0]["pointer"], "/ops/1/op")
        for op in ({}, {"op": 5}, {"op": None}, 3, "layer.create", None, []):
            with self.subTest(op=op):
                r = self.post([op])
                body = self.assertProblem(r, 422, "OP_INVALID")
                self.assertEqual(body["errors"][0]["opIndex"], 0)
                self.assertIn(body["errors"][0]["pointer"], ("/ops/0", "/ops/0/op"))
        self.assertUnchanged(before)

    def test_top_level_body_errors(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        cases = [
            ({}, "/ops"),
            ({"ops": []}, "/ops"),
            ({"ops": {"op": "layer.delete", "layerId": "arm"}}, "/ops"),
            ({"ops": [{"op": "layer.delete", "layerId": "arm"}], "expectedVersion": "1"},
             "/expectedVersion"),
            ({"ops": [{"op": "layer.delete", "layerId": "arm"}], "expectedVersion": -1},
             "/expectedVersion"),
            ({"ops": [{"op": "layer.delete", "layerId": "arm"}], "expectedVersion": 1.5},
             "/expectedVersion"),
            ({"ops": [{"op": "layer.delete", "layerId": "arm"}], "dryRun": True}, "/dryRun"),
        ]
        for body, pointer in cases:
            with self.subTest(body=body):
                r = self.rigd.post(E, body)
                p = self.assertProblem(r, 422, "OP_INVALID")
                self.err_with(p, pointer)
        self.assertUnchanged(before)

    BAD_BATCH = [
        {"op": "layer.create", "layerId": "ok", "name": "ok", "kind": "group"},
        {"op": "layer.create", "layerId": 1, "name": 2, "kind": "x", "extra": 0},
        {"op": "nope"},
        {"op": "layer.pose", "layerId": "arm", "frame": "f", "transform": {"rotation": "r"}},
        {"op": "layer.key.put", "layerId": "arm", "channel": "c", "keys": [{"frame": 0}]},
        {"op": "layer.key.delete", "layerId": "arm", "channel": "rotation", "frames": ["x"]},
    ]
    BAD_POINTERS = {"/ops/1/layerId", "/ops/1/name", "/ops/1/kind", "/ops/1/extra", "/ops/2/op",
                    "/ops/3/frame", "/ops/3/transform/rotation", "/ops/4/channel",
                    "/ops/4/keys/0/value", "/ops/5/frames/0"}

    def check_all_reported(self, body, expected):
        pointers = {e["pointer"] for e in body["errors"]}
        self.assertTrue(expected <= pointers, (expected - pointers, body))
        for e in body["errors"]:
            if e["pointer"].startswith("/ops/"):
                self.assertEqual(e["opIndex"], int(e["pointer"].split("/")[2]), e)
        self.assertEqual(next(e for e in body["errors"] if e["pointer"] == "/ops/2/op")["code"],
                         "OP_UNKNOWN")

    def test_every_decode_error_of_every_op_in_one_response(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        r = self.post(self.BAD_BATCH)
        body = self.assertProblem(r, 422, "OP_INVALID")
        self.check_all_reported(body, self.BAD_POINTERS)
        self.assertUnchanged(before)

    def test_op_decode_errors_reported_alongside_envelope_errors(self):
        # A bad expectedVersion must not hide the ops' own decode errors.
        self.seed()
        before = self.rigd.snapshot("s1")
        r = self.post(self.BAD_BATCH, body_extra={"expectedVersion": "v"})
        body = self.assertProblem(r, 422, "OP_INVALID")
        self.check_all_reported(body, self.BAD_POINTERS | {"/expectedVersion"})
        self.assertUnchanged(before)

    def test_many_bad_ops_are_counted(self):
        self.seed()
        r = self.post([{"op": "layer.rename", "layerId": "arm", "name": 0}] * 100)
        body = self.assertProblem(r, 422, "OP_INVALID")
        n = len(body["errors"])
        self.assertGreaterEqual(n, 1)
        if n < 100:
            self.assertEqual(body["errorCount"], 100, body)
        self.assertEqual([e["opIndex"] for e in body["errors"]], list(range(n)))

    def test_problem_details_quote_only_members_of_the_error(self):
        # SPEC §7: every value quoted in `detail` is also a member of the error object.
        self.seed()

        def check(err, label):
            quoted = sorted(set(re.findall(r"'([^']*)'", err["detail"])))
            values = {str(v) for v in err.values() if isinstance(v, str)}
            values |= {repr(v) for v in err.values() if isinstance(v, (int, float))}
            for q in quoted:
                with self.subTest(case=label, quoted=q):
                    self.assertIn(q, values, err)

        cases = {
            "OP_UNKNOWN": [{"op": "layer.bogus"}],
            "LAYER_CYCLE": [{"op": "layer.parent", "layerId": "root", "parentId": "hand"}],
            "LAYER_NOT_FOUND": [{"op": "layer.rename", "layerId": "zz", "name": "x"}],
            "LAYER_EXISTS": [{"op": "layer.create", "layerId": "arm", "name": "x",
                              "kind": "group"}],
            "KEY_DELETE": [{"op": "layer.key.delete", "layerId": "arm", "channel": "rotation",
                            "frames": [7]}],
        }
        for label, ops in cases.items():
            r = self.post(ops)
            self.assertEqual(r.status, 422, r)
            for e in r.json["errors"]:
                check(e, label)


class VersionsAndDryRun(EditsBase):
    def test_version_increments_by_exactly_one_per_batch(self):
        self.assertEqual(self.version(), 0)
        self.seed()
        self.assertEqual(self.version(), 1)
        rec = self.ok([{"op": "layer.create", "name": f"n{i}", "kind": "group"} for i in range(50)])
        self.assertEqual((rec["fromVersion"], rec["toVersion"]), (1, 2))
        self.assertEqual(self.version(), 2)
        for i in range(3):
            r = self.post([{"op": "layer.rename", "layerId": "arm", "name": f"x{i}"}])
            self.assertEqual(r.status, 201)
            self.assertEqual(r.header("ETag"), f'"{3 + i}"')
            self.assertEqual(r.json["fromVersion"], 2 + i)
            self.assertEqual(r.json["toVersion"], 3 + i)
        self.assertEqual(self.version(), 5)
        self.post([{"op": "layer.rename", "layerId": "nope", "name": "x"}])
        self.assertEqual(self.version(), 5)
        shot = self.rigd.get("/v1/shots/s1")
        self.assertEqual(shot.header("ETag"), '"5"')
        self.assertEqual(self.layer("arm")["shotVersion"], 5)

    def test_dry_run_returns_would_be_receipt_and_changes_nothing(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        rows = db_rows(self.rigd.db_path)
        r = self.post([
            {"op": "layer.create", "name": "gen", "kind": "group"},
            {"op": "layer.rename", "layerId": "arm", "name": "dry"},
            {"op": "layer.delete", "layerId": "root"},
        ], path=E + "?dryRun=true", headers={"X-Rigd-Actor": "agent-7"})
        self.assertEqual(r.status, 200, r)
        rec = r.json
        self.assertIs(rec["dryRun"], True)
        self.assertIsNone(rec["receiptId"])
        self.assertEqual(rec["shotId"], "s1")
        self.assertEqual(rec["actor"], "agent-7")
        self.assertEqual((rec["fromVersion"], rec["toVersion"]), (1, 2))
        self.assertEqual([o["op"] for o in rec["ops"]],
                         ["layer.create", "layer.rename", "layer.delete"])
        self.assertRegex(rec["ops"][0]["layerId"], ID_RE)
        self.assertEqual(set(rec["changedLayers"]),
                         {rec["ops"][0]["layerId"], "arm", "root", "hand"})
        self.assertUnchanged(before, rows)
        # dryRun=false applies
        r = self.post([{"op": "layer.rename", "layerId": "arm", "name": "wet"}],
                      path=E + "?dryRun=false")
        self.assertEqual(r.status, 201, r)
        self.assertNotEqual(r.json.get("dryRun"), True)
        self.assertIsNotNone(r.json["receiptId"])

    def test_dry_run_reports_errors_and_bad_flag(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        r = self.post([{"op": "layer.parent", "layerId": "root", "parentId": "hand"}],
                      path=E + "?dryRun=true")
        self.assertProblem(r, 422, "LAYER_CYCLE")
        r = self.post([{"op": "layer.rename", "layerId": "arm", "name": "x"}],
                      path=E + "?dryRun=yes")
        self.assertProblem(r, 400, "INVALID_QUERY")
        r = self.post([{"op": "layer.rename", "layerId": "arm", "name": "x"}],
                      path=E + "?dryRun=true", body_extra={"expectedVersion": 0})
        body = self.assertProblem(r, 409, "VERSION_CONFLICT")
        self.assertEqual(body["currentVersion"], 1)
        self.assertUnchanged(before)

    def test_edits_on_missing_shot(self):
        r = self.rigd.post("/v1/shots/nope/edits",
                           {"ops": [{"op": "layer.create", "name": "a", "kind": "group"}]})
        self.assertProblem(r, 404, "NOT_FOUND")


class Receipts(EditsBase):
    def make_receipts(self, n):
        out = []
        for i in range(n):
            out.append(self.ok([{"op": "layer.create", "layerId": f"l{i}", "name": f"n{i}",
                                 "kind": "group"}]))
        return out

    def test_receipt_contents_and_get_by_id(self):
        rec = self.ok([{"op": "layer.create", "layerId": "a", "name": "a", "kind": "group"},
                       {"op": "layer.pose", "layerId": "a", "transform": {"rotation": 1}}],
                      headers={"X-Rigd-Actor": "alice"})
        self.assertRegex(rec["receiptId"], ID_RE)
        self.assertEqual(rec["shotId"], "s1")
        self.assertEqual(rec["actor"], "alice")
        self.assertEqual(rec["ops"], [{"index": 0, "op": "layer.create", "layerId": "a"},
                                      {"index": 1, "op": "layer.pose", "layerId": "a"}])
        self.assertEqual(rec["changedLayers"], ["a"])
        self.assertRegex(rec["appliedAt"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
        self.assertNotIn("dryRun", rec)
        got = self.rigd.get(f"/v1/receipts/{rec['receiptId']}")
        self.assertEqual(got.status, 200)
        self.assertEqual(got.json, rec)
        self.assertProblem(self.rigd.get("/v1/receipts/r-doesnotexist"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.get("/v1/receipts/" + "r" * 65), 400, "INVALID_QUERY")

    def test_receipts_listed_newest_first_with_paging(self):
        made = self.make_receipts(5)
        full = self.rigd.get("/v1/shots/s1/receipts").json
        self.assertEqual(full["shotId"], "s1")
        self.assertEqual([r["toVersion"] for r in full["receipts"]], [5, 4, 3, 2, 1])
        self.assertEqual(full["receipts"], list(reversed(made)))
        self.assertNotIn("nextPageToken", full)
        seen, token, pages = [], None, 0
        while True:
            q = "/v1/shots/s1/receipts?pageSize=2" + (f"&pageToken={token}" if token else "")
            page = self.rigd.get(q)
            self.assertEqual(page.status, 200, page)
            pages += 1
            self.assertLessEqual(len(page.json["receipts"]), 2)
            seen += page.json["receipts"]
            token = page.json.get("nextPageToken")
            if not token:
                break
            self.assertLess(pages, 10)
        self.assertEqual(pages, 3)
        self.assertEqual([r["receiptId"] for r in seen],
                         [r["receiptId"] for r in reversed(made)])
        # a new receipt does not disturb a later page of an older listing
        first = self.rigd.get("/v1/shots/s1/receipts?pageSize=2").json
        self.ok([{"op": "layer.rename", "layerId": "l0", "name": "z"}])
        nxt = self.rigd.get(f"/v1/shots/s1/receipts?pageSize=2&pageToken={first['nextPageToken']}")
        self.assertEqual([r["toVersion"] for r in nxt.json["receipts"]], [3, 2])

    def test_no_next_page_token_on_the_last_page(self):
        # SPEC §7: nextPageToken is absent on the last page (here: exactly full).
        self.make_receipts(4)
        page = self.rigd.get("/v1/shots/s1/receipts?pageSize=4").json
        self.assertEqual(len(page["receipts"]), 4)
        self.assertNotIn("nextPageToken", page)
        p1 = self.rigd.get("/v1/shots/s1/receipts?pageSize=2").json
        p2 = self.rigd.get(f"/v1/shots/s1/receipts?pageSize=2&pageToken={p1['nextPageToken']}").json
        self.assertEqual([r["toVersion"] for r in p2["receipts"]], [2, 1])
        self.assertNotIn("nextPageToken", p2)

    def test_forged_and_foreign_tokens_are_page_token_invalid(self):
        self.make_receipts(3)
        self.rigd.post("/v1/projects/p1/shots", {"shotId": "s2", "name": "s2"})
        token = self.rigd.get("/v1/shots/s1/receipts?pageSize=1").json["nextPageToken"]
        head, _, sig = token.partition(".")
        flipped = sig[:-1] + ("A" if sig[-1] != "A" else "B")
        for i in range(2):
            self.rigd.post("/v1/projects", {"projectId": f"pp{i}", "name": "x"})
        proj_token = self.rigd.get("/v1/projects?pageSize=1").json["nextPageToken"]
        for bad in ("abc", "abc.def", head + "." + flipped, head, "x" + token, proj_token):
            with self.subTest(token=bad):
                r = self.rigd.get(f"/v1/shots/s1/receipts?pageToken={bad}")
                self.assertProblem(r, 400, "PAGE_TOKEN_INVALID")
        r = self.rigd.get(f"/v1/shots/s2/receipts?pageToken={token}")
        self.assertProblem(r, 400, "PAGE_TOKEN_INVALID")

    def test_receipt_list_query_errors(self):
        for q in ("pageSize=0", "pageSize=-1", "pageSize=abc", "pageSize=1.5", "pageSize="):
            with self.subTest(q=q):
                self.assertProblem(self.rigd.get(f"/v1/shots/s1/receipts?{q}"), 400,
                                   "INVALID_QUERY")
        self.assertEqual(self.rigd.get("/v1/shots/s1/receipts?pageSize=20000").status, 200)
        self.assertProblem(self.rigd.get("/v1/shots/nope/receipts"), 404, "NOT_FOUND")


class BatchLimit(EditsBase):
    def test_10001_ops_is_batch_too_large(self):
        self.seed()
        before = self.rigd.snapshot("s1")
        ops = [{"op": "layer.rename", "layerId": "arm", "name": "x"}] * 10001
        r = self.post(ops)
        body = self.assertProblem(r, 413, "BATCH_TOO_LARGE")
        self.assertEqual(body["maxOpsPerBatch"], 10000)
        self.assertEqual(self.rigd.get("/v1/limits").json["maxOpsPerBatch"], 10000)
        self.assertUnchanged(before)

    def test_10000_small_ops_are_accepted(self):
        self.seed()
        ops = [{"op": "layer.pose", "layerId": "hand", "frame": i, "transform": {"rotation": i}}
               for i in range(10000)]
        r = self.post(ops)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(len(r.json["ops"]), 10000)
        self.assertEqual((r.json["fromVersion"], r.json["toVersion"]), (1, 2))
        hand = self.layer("hand")
        self.assertEqual(len(hand["keys"]["rotation"]), 10000)
        self.assertEqual(hand["keys"]["rotation"][9999], {"frame": 9999.0, "value": 9999.0,
                                                          "interp": "linear"})


if __name__ == "__main__":
    main()
