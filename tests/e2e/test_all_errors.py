"""Every independent error in one answer (issue 13, item 1): a batch, a dry run and a plan
validate keep going past a failed op — it is skipped, later ops run against the state without
it, final validation runs — and answer every error (the first 64, then errorCount and
truncated), each with opIndex and pointer. Nothing is written unless there was none."""
from rigd_harness import RigdTestCase, main

S = "s"
E = f"/v1/shots/{S}/edits"
ALICE = {"X-Rigd-Actor": "alice"}
BOB = {"X-Rigd-Actor": "bob"}


def tri_skin(joint_layer="jA"):
    return {"source": [{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 0, "y": 100}],
            "triangles": [[0, 1, 2]],
            "joints": [{"id": "a", "bind": [1, 0, 0, 1, 0, 0]}],
            "weights": [[{"jointId": "a", "weight": 1}] for _ in range(3)],
            "jointLayers": [{"jointId": "a", "layerId": joint_layer}]}


class AllErrors(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S)
        r = self.rigd.post(E, {"ops": [
            {"op": "layer.create", "layerId": "jA", "name": "jA", "kind": "group"},
            {"op": "layer.create", "layerId": "jB", "name": "jB", "kind": "group"},
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"},
            {"op": "layer.skin", "layerId": "m", "skin": tri_skin()}]})
        self.assertEqual(r.status, 201, r)
        self.before = self.rigd.snapshot(S)
        self.version = self.rigd.get(f"/v1/shots/{S}").json["version"]

    def assertNothingWritten(self):
        self.assertEqual(self.rigd.snapshot(S), self.before)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}").json["version"], self.version)
        receipts = self.rigd.get(f"/v1/shots/{S}/receipts").json["receipts"]
        self.assertEqual(len(receipts), 1)

    def codes(self, body):
        return [(e["code"], e["opIndex"], e["pointer"]) for e in body["errors"]]

    def test_bad_vertex_index_and_unknown_layer_both_reported(self):
        r = self.rigd.post(E, {"ops": [
            {"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 7,
             "influences": [{"jointId": "a", "weight": 1}]},
            {"op": "layer.pose", "layerId": "ghost", "transform": {"rotation": 1}}]})
        body = self.assertProblem(r, 422, "SKIN_WEIGHT_VERTEX")
        got = self.codes(body)
        self.assertEqual([c[:2] for c in got], [("SKIN_WEIGHT_VERTEX", 0), ("LAYER_NOT_FOUND", 1)],
                         body)
        self.assertEqual(got[1][2], "/ops/1/layerId")
        self.assertNotIn("truncated", body)
        self.assertNothingWritten()

    def test_decode_and_apply_errors_together_decode_first(self):
        r = self.rigd.post(E, {"ops": [
            {"op": "layer.pose", "layerId": "ghost", "transform": {"rotation": 1}},
            {"op": "layer.rename", "layerId": "jA", "name": 5}]})
        body = self.assertProblem(r, 422, "OP_INVALID")
        self.assertEqual([c[:2] for c in self.codes(body)],
                         [("OP_INVALID", 1), ("LAYER_NOT_FOUND", 0)], body)
        self.assertNothingWritten()

    def test_later_ops_run_against_the_state_without_the_failed_op(self):
        r = self.rigd.post(E, {"ops": [
            {"op": "layer.create", "layerId": "n", "name": "n", "kind": "group",
             "parentId": "ghost"},
            {"op": "layer.key.put", "layerId": "n", "channel": "rotation",
             "keys": [{"frame": 0, "value": 1}]},
            {"op": "layer.rename", "layerId": "jB", "name": "fine"}]})
        body = self.assertProblem(r, 422, "LAYER_NOT_FOUND")
        got = self.codes(body)
        self.assertEqual([c[1] for c in got], [0, 1], body)
        self.assertEqual(got[0][2], "/ops/0/parentId")
        self.assertEqual(got[1][2], "/ops/1/layerId")
        self.assertNothingWritten()

    def test_final_validation_runs_after_a_failed_op(self):
        # op 0 fails alone; op 1 deletes a mapped joint layer, which only final validation
        # catches: both are in the answer.
        r = self.rigd.post(E, {"ops": [
            {"op": "layer.pose", "layerId": "ghost", "transform": {"rotation": 1}},
            {"op": "layer.delete", "layerId": "jA"}]})
        body = self.assertProblem(r, 422, "LAYER_NOT_FOUND")
        got = self.codes(body)
        self.assertEqual(got[0][:2], ("LAYER_NOT_FOUND", 0))
        later = [c for c in got[1:] if c[1] == 1]
        self.assertTrue(later, body)
        self.assertTrue(all(c[0].startswith("SKIN_") for c in later), body)
        self.assertNothingWritten()

    def test_two_locked_layers_are_both_named(self):
        r = self.rigd.post(f"/v1/shots/{S}/locks", {"layerIds": ["jA", "jB"]}, headers=ALICE)
        self.assertEqual(r.status, 201, r)
        before = self.rigd.snapshot(S)
        r = self.rigd.post(E, {"ops": [
            {"op": "layer.rename", "layerId": "jA", "name": "x"},
            {"op": "layer.rename", "layerId": "jB", "name": "y"}]}, headers=BOB)
        body = self.assertProblem(r, 423, "LAYER_LOCKED")
        self.assertEqual([(e["code"], e["opIndex"], e["layerId"]) for e in body["errors"]],
                         [("LAYER_LOCKED", 0, "jA"), ("LAYER_LOCKED", 1, "jB")], body)
        self.assertEqual(self.rigd.snapshot(S), before)

    def test_more_than_64_errors_are_truncated_and_counted(self):
        ops = [{"op": "layer.pose", "layerId": f"ghost{i}", "transform": {"rotation": 1}}
               for i in range(70)]
        body = self.assertProblem(self.rigd.post(E, {"ops": ops}), 422, "LAYER_NOT_FOUND")
        self.assertEqual(len(body["errors"]), 64)
        self.assertEqual(body["errorCount"], 70)
        self.assertIs(body["truncated"], True)
        self.assertEqual([e["opIndex"] for e in body["errors"]], list(range(64)))
        self.assertNothingWritten()

    def test_dry_run_and_plan_validate_answer_the_same_errors(self):
        ops = [{"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 7,
                "influences": [{"jointId": "a", "weight": 1}]},
               {"op": "layer.pose", "layerId": "ghost", "transform": {"rotation": 1}},
               {"op": "layer.rename", "layerId": "jA", "name": 5}]
        edit = self.assertProblem(self.rigd.post(E, {"ops": ops}), 422, "OP_INVALID")
        dry = self.assertProblem(self.rigd.post(E + "?dryRun=true", {"ops": ops}), 422,
                                 "OP_INVALID")
        self.assertEqual(dry["errors"], edit["errors"])
        self.assertEqual(len(edit["errors"]), 3, edit)
        r = self.rigd.post(f"/v1/shots/{S}/plans", {"ops": ops})
        self.assertEqual(r.status, 201, r)
        v = self.rigd.post(f"/v1/plans/{r.json['planId']}/validate", {})
        self.assertEqual(v.status, 200, v)
        self.assertIs(v.json["ok"], False)
        self.assertEqual(v.json["errors"], edit["errors"])
        self.assertNothingWritten()

    def test_a_valid_batch_still_applies(self):
        r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "jA", "name": "A"}]})
        self.assertEqual(r.status, 201, r)


if __name__ == "__main__":
    main()
