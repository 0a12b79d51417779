"""A self-describing API end to end (issue 13, item 5).

GET /v1/openapi.json serves the contract the binary was built with (the same data as
openapi.yaml, public like the YAML); error details come with the valid choices (unknown op
-> validOps, unknown joint -> the skin's first 16 joint ids, unknown field -> didYouMean and
validFields); every number a detail quotes is also a member (sum, tolerance, limit);
SKIN_WEIGHTS always names its layer; the range-limit detail names step when step caused it
and is never cut.
"""
import json
import os
import re
import unittest

from rigd_harness import Rigd, RigdTestCase, main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OP_TABLE = os.path.join(ROOT, "api", "edit", "op_table.c")

try:
    import yaml  # type: ignore
except ImportError:
    yaml = None

N_JOINTS = 20


def op_names():
    with open(OP_TABLE) as f:
        return re.findall(r'^\t\{"([a-z.]+)",', f.read(), re.M)


def kind_op_names():
    """The ops binding kinds keep in their own rows (struct rig_binding_kind.ops), which
    validOps lists after the op table's."""
    names = []
    edit = os.path.join(ROOT, "api", "edit")
    for name in sorted(os.listdir(edit)):
        if name.endswith(".c") and name != "op_table.c":
            with open(os.path.join(edit, name)) as f:
                m = re.search(r"struct\s+rig_op_type\s+\w+\[\]\s*=\s*\{(.*?)\n\};", f.read(), re.S)
            if m:
                names += re.findall(r'\{\s*"([a-z.]+)"\s*,', m.group(1))
    return names


def skin(n_joints=N_JOINTS, weights=None):
    """A one-triangle skin over joints j00..j<n-1>, each on its own layer."""
    ids = [f"j{i:02d}" for i in range(n_joints)]
    return {"source": [{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 0, "y": 100}],
            "triangles": [[0, 1, 2]],
            "joints": [{"id": j, "bind": [1, 0, 0, 1, 0, 0]} for j in ids],
            "weights": weights or [[{"jointId": "j00", "weight": 1}] for _ in range(3)],
            "jointLayers": [{"jointId": j, "layerId": "L" + j} for j in ids]}


class OpenApiJson(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rigd = Rigd(auth=True).start()  # auth on: the route must be public

    @classmethod
    def tearDownClass(cls):
        cls.rigd.cleanup()

    def test_json_is_the_yaml_data_and_public(self):
        r = self.rigd.get("/v1/openapi.json")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertEqual(r.header("Cache-Control"), "public, max-age=300")
        doc = json.loads(r.body)
        self.assertIn("/v1/openapi.json", doc["paths"])
        y = self.rigd.get("/v1/openapi.yaml")
        self.assertEqual(y.status, 200, y)
        if yaml is None:
            self.skipTest("PyYAML not installed: the JSON parsed; equality needs a YAML reader")
        self.assertEqual(doc, yaml.safe_load(y.body.decode("utf-8")))


class Details(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.shot = self.rigd.make_shot("p", "s", frameStart=0, frameEnd=24)
        ops = [{"op": "layer.create", "layerId": "Lj%02d" % i, "name": "J", "kind": "group"}
               for i in range(N_JOINTS)]
        ops += [{"op": "layer.create", "layerId": "m", "name": "M", "kind": "mesh"},
                {"op": "layer.skin", "layerId": "m", "skin": skin()}]
        self.edit(ops, 201)

    def edit(self, ops, status):
        r = self.rigd.post(f"/v1/shots/{self.shot}/edits", {"ops": ops})
        self.assertEqual(r.status, status, r)
        return r.json

    def errors(self, ops, code):
        body = self.edit(ops, 422)
        found = [e for e in body["errors"] if e["code"] == code]
        self.assertTrue(found, body)
        return found

    def assertQuotedAreMembers(self, e):
        """Every number quoted in the detail is the value of some member."""
        numbers = [v for v in e.values() if isinstance(v, (int, float)) and
                   not isinstance(v, bool)]
        for q in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", e["detail"]):
            self.assertTrue(any(abs(float(q) - n) <= 1e-3 * max(1.0, abs(n)) for n in numbers),
                            f"{q} of {e['detail']!r} is no member: {e}")

    def test_unknown_op_lists_the_op_names(self):
        [e] = self.errors([{"op": "layer.frobnicate", "layerId": "m"}], "OP_UNKNOWN")
        self.assertEqual(e["op"], "layer.frobnicate")
        table = op_names()
        self.assertEqual(e["validOps"][:len(table)], table)
        self.assertEqual(sorted(e["validOps"][len(table):]), sorted(kind_op_names()))
        self.assertIn("layer.skin.weights.put", e["validOps"])

    def test_unknown_joint_lists_the_first_16_joint_ids(self):
        put = {"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 0,
               "influences": [{"jointId": "nope", "weight": 1}]}
        found = self.errors([put], "SKIN_WEIGHTS")
        e = [x for x in found if x.get("jointId") == "nope"][0]
        self.assertEqual(e["validJointIds"], [f"j{i:02d}" for i in range(16)])
        self.assertEqual(e["layerId"], "m")
        w = [[{"jointId": "j00", "weight": 1}], [{"jointId": "zz", "weight": 1}],
             [{"jointId": "j01", "weight": 1}]]
        found = self.errors([{"op": "layer.skin", "layerId": "m", "skin": skin(weights=w)}],
                            "SKIN_WEIGHTS")
        e = [x for x in found if x.get("jointId") == "zz"][0]
        self.assertEqual(e["validJointIds"], [f"j{i:02d}" for i in range(16)])
        self.assertEqual(e["layerId"], "m")
        s = skin()
        s["jointLayers"].append({"jointId": "ghost", "layerId": "Lj00"})
        [e] = self.errors([{"op": "layer.skin", "layerId": "m", "skin": s}],
                          "SKIN_JOINT_LAYERS")
        self.assertEqual(e["jointId"], "ghost")
        self.assertEqual(e["validJointIds"], [f"j{i:02d}" for i in range(16)])

    def test_unknown_field_suggests_the_nearest(self):
        [e] = self.errors([{"op": "layer.rename", "layerid": "m", "name": "x"}], "OP_INVALID")[:1]
        self.assertEqual(e["pointer"], "/ops/0/layerid")
        self.assertEqual(e["didYouMean"], "layerId")
        self.assertIn("'layerId'", e["detail"])
        self.assertEqual(sorted(e["validFields"]), sorted(["op", "layerId", "name"]))
        [e] = self.errors([{"op": "layer.rename", "layerId": "m", "name": "x",
                            "zzzzzzzz": 1}], "OP_INVALID")
        self.assertNotIn("didYouMean", e)
        self.assertIn("validFields", e)
        r = self.rigd.post("/v1/projects", {"projectId": "q", "nmae": "Q"})
        body = self.assertProblem(r, 422, "INVALID_FIELD")
        e = [x for x in body["errors"] if x["pointer"] == "/nmae"][0]
        self.assertEqual(e["didYouMean"], "name")

    def test_weight_sum_quotes_sum_and_tolerance_as_members(self):
        put = {"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 1,
               "influences": [{"jointId": "j00", "weight": 0.5}, {"jointId": "j01",
                                                                    "weight": 0.25}]}
        [e] = self.errors([put], "SKIN_WEIGHTS")
        self.assertEqual(e["sum"], 0.75)
        self.assertGreater(e["tolerance"], 0)
        self.assertLess(e["tolerance"], 1e-9)
        self.assertEqual(e["layerId"], "m")
        self.assertQuotedAreMembers(e)

    def test_influence_limit_quotes_the_limit(self):
        infl = [{"jointId": f"j{i:02d}", "weight": 1 / 9} for i in range(9)]
        put = {"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 0,
               "influences": infl}
        body = self.edit([put], 422)
        e = body["errors"][0]
        self.assertEqual(e["code"], "SKIN_WEIGHTS")
        self.assertEqual((e["limit"], e["influenceCount"], e["layerId"]), (8, 9, "m"))
        self.assertQuotedAreMembers(e)
        w = [infl, [{"jointId": "j00", "weight": 1}], [{"jointId": "j00", "weight": 1}]]
        found = self.errors([{"op": "layer.skin", "layerId": "m", "skin": skin(weights=w)}],
                            "SKIN_WEIGHTS")
        self.assertEqual(found[0]["layerId"], "m")
        self.assertEqual(found[0]["limit"], 8)

    def test_range_limit_names_step_and_is_never_cut(self):
        base = f"/v1/shots/{self.shot}/layers/m/frames"
        r = self.rigd.get(f"{base}?from=0&to=100&step=0.0001")
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertEqual(body["parameter"], "step")
        self.assertIn("step", body["detail"])
        self.assertEqual((body["limit"], body["frameCount"], body["step"]),
                         (100000, 1000001, 0.0001))
        r = self.rigd.get(f"{base}?from=0&to=100000")
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertEqual(body["parameter"], "to")
        self.assertEqual(body["frameCount"], 100001)
        r = self.rigd.get(f"{base}?from=-1e300&to=1e300&step=1e-300")
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertTrue(body["detail"].endswith("the limit is 100000"), body["detail"])
        self.assertLess(len(body["detail"]), 200)


if __name__ == "__main__":
    main()
