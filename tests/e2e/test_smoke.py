"""Smoke: the README's curl session through the real server and SQLite file."""
from rigd_harness import RigdTestCase, main


class Smoke(RigdTestCase):
    def test_project_shot_hierarchy_pose_receipt(self):
        shot = self.rigd.make_shot("demo", "s1")
        r = self.rigd.edit(shot, [
            {"op": "layer.create", "layerId": "root", "name": "Root", "kind": "group"},
            {"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "group",
             "parentId": "root", "transform": {"position": [100, 0]}},
            {"op": "layer.pose", "layerId": "arm", "frame": 10, "transform": {"rotation": 45}},
        ])
        receipt = r.json
        self.assertEqual(receipt["fromVersion"], 0)
        self.assertEqual(receipt["toVersion"], 1)
        self.assertEqual(receipt["changedLayers"], ["root", "arm"])
        self.assertEqual(r.header("ETag"), '"1"')
        got = self.rigd.get(f"/v1/receipts/{receipt['receiptId']}")
        self.assertEqual(got.status, 200)
        self.assertEqual(got.json, receipt)
        s = self.rigd.get("/v1/shots/s1").json
        self.assertEqual(s["version"], 1)
        self.assertEqual([l["layerId"] for l in s["layers"]], ["root", "arm"])
        arm = self.rigd.get("/v1/shots/s1/layers/arm").json
        self.assertEqual(arm["keys"]["rotation"], [{"frame": 10.0, "value": 45.0, "interp": "linear"}])
        self.assertEqual(arm["transform"]["position"], [100.0, 0.0])

    def test_tree_lists_parents_before_children_in_creation_order(self):
        shot = self.rigd.make_shot("demo", "s1")
        mk = lambda i, p=None: {"op": "layer.create", "layerId": i, "name": i, "kind": "group",
                                **({"parentId": p} if p else {})}
        self.rigd.edit(shot, [mk("root"), mk("c"), mk("a", "root"), mk("b", "root"),
                              mk("a1", "a"), mk("a2", "a"),
                              {"op": "layer.parent", "layerId": "c", "parentId": "b"}])
        layers = self.rigd.get("/v1/shots/s1").json["layers"]
        self.assertEqual([(l["layerId"], l["depth"], l["children"]) for l in layers],
                         [("root", 0, ["a", "b"]), ("a", 1, ["a1", "a2"]), ("a1", 2, []),
                          ("a2", 2, []), ("b", 1, ["c"]), ("c", 2, [])])

    def test_a_deep_chain_of_layers_reads_back(self):
        shot = self.rigd.make_shot("demo", "s1")
        ops = [{"op": "layer.create", "layerId": f"l{i}", "name": "x", "kind": "group",
                **({"parentId": f"l{i - 1}"} if i else {})} for i in range(3000)]
        self.rigd.edit(shot, ops)
        layers = self.rigd.get("/v1/shots/s1").json["layers"]
        self.assertEqual([l["depth"] for l in layers], list(range(3000)))

    def test_health_and_readiness(self):
        self.assertEqual(self.rigd.get("/healthz").json, {"status": "ok"})
        self.assertEqual(self.rigd.get("/readyz").json, {"status": "ready"})


if __name__ == "__main__":
    main()
