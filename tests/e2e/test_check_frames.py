"""Frame checks before commit (issue 13, item 2): checkFrames on edits, dry runs, plan
validate and plan apply evaluate every mesh layer the batch can affect over a range and reject
the batch with one error per failing layer and frame; GET /v1/shots/{id}/check lists every
failing layer and frame of the stored shot, paged. The failing frames are computed here
independently with the reference evaluator of test_skin_refmath.py."""
import urllib.parse

from rigd_harness import RigdTestCase, main
from test_skin_refmath import RefError, Scene

S = "s"
E = f"/v1/shots/{S}/edits"

# jB's position.y: rests at 0, dips to -200 at frame 42 and is back at 54. The square's
# corner v2 (bound to jB alone) crosses the diagonal v0-v1 when y < -100: triangle 0 collapses
# at frames 36 and 48 and is flipped from 37 to 47.
DIP = [{"frame": 0, "value": 0}, {"frame": 30, "value": 0}, {"frame": 42, "value": -200},
       {"frame": 54, "value": 0}]


def square_scene(mesh="m", joints=("jA", "jB"), parent=None):
    sc = Scene()
    for j in joints:
        sc.layer(j)
    sc.layer(mesh, kind="mesh", parent=parent)
    sc.skin(mesh, [(0, 0), (100, 0), (100, 100), (0, 100)], [(0, 1, 2), (0, 2, 3)],
            [("a", (1, 0, 0, 1, 0, 0)), ("b", (1, 0, 0, 1, 0, 0))],
            [[("a", 1)], [("a", 1)], [("b", 1)], [("a", 1)]],
            {"a": joints[0], "b": joints[1]})
    return sc


def key_op(layer, channel, keys):
    return {"op": "layer.key.put", "layerId": layer, "channel": channel, "keys": keys}


def expected_failures(sc, mesh, frames):
    """[(frame, code, triangleIndex)] of the frames the reference evaluator rejects."""
    out = []
    for f in frames:
        try:
            sc.evaluate(mesh, f)
        except RefError as e:
            out.append((f, e.code, e.fields.get("triangleIndex")))
    return out


class CheckFrames(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=60)
        self.sc = square_scene()
        self.sc.layer("g")  # an unrelated group layer
        ops = self.sc.all_ops()
        r = self.rigd.post(E, {"ops": ops})
        self.assertEqual(r.status, 201, r)
        self.version = self.rigd.get(f"/v1/shots/{S}").json["version"]
        # What the dip does, by the reference: the same frames the server must name.
        dipped = square_scene()
        dipped.keys("jB", "position.y", [(k["frame"], k["value"]) for k in DIP])
        self.dipped = dipped
        self.want = expected_failures(dipped, "m", range(0, 61))
        self.assertEqual([w[0] for w in self.want], list(range(36, 49)))

    def frame_errors(self, body):
        return [(e["frame"], e["code"], e.get("triangleIndex")) for e in body["errors"]]

    def assertUnchanged(self):
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}").json["version"], self.version)

    def test_without_check_frames_the_flip_is_accepted(self):
        r = self.rigd.post(E, {"ops": [key_op("jB", "position.y", DIP)]})
        self.assertEqual(r.status, 201, r)

    def test_with_check_frames_the_flip_is_rejected_naming_every_frame(self):
        ops = [{"op": "layer.rename", "layerId": "jA", "name": "A"},
               key_op("jB", "position.y", DIP),
               {"op": "layer.rename", "layerId": "g", "name": "G"}]
        r = self.rigd.post(E, {"ops": ops, "checkFrames": True})
        body = self.assertProblem(r, 422, self.want[0][1])
        self.assertEqual(self.frame_errors(body), self.want, body)
        for e in body["errors"]:
            self.assertEqual(e["layerId"], "m")
            self.assertEqual(e["opIndex"], 1, e)  # the key put, not the later rename of g
            self.assertEqual(e["pointer"], "/ops/1")
            self.assertEqual(e["triangleIndex"], 0)
        self.assertUnchanged()
        # The same edit as a dry run and as plan validate: the same errors.
        dry = self.assertProblem(self.rigd.post(E + "?dryRun=true",
                                                {"ops": ops, "checkFrames": True}),
                                 422, self.want[0][1])
        self.assertEqual(dry["errors"], body["errors"])
        plan = self.rigd.post(f"/v1/shots/{S}/plans", {"ops": ops})
        self.assertEqual(plan.status, 201, plan)
        pid = plan.json["planId"]
        v = self.rigd.post(f"/v1/plans/{pid}/validate", {"checkFrames": True})
        self.assertEqual(v.status, 200, v)
        self.assertIs(v.json["ok"], False)
        self.assertEqual(v.json["errors"], body["errors"])
        ok = self.rigd.post(f"/v1/plans/{pid}/validate", {})
        self.assertIs(ok.json["ok"], True, ok)
        a = self.rigd.post(f"/v1/plans/{pid}/apply", {"planVersion": 1, "checkFrames": True})
        self.assertEqual(a.status, 422, a)
        self.assertEqual(a.json["errors"], body["errors"])
        self.assertUnchanged()

    def test_a_range_object_checks_only_its_frames(self):
        ops = [key_op("jB", "position.y", DIP)]
        r = self.rigd.post(E, {"ops": ops, "checkFrames": {"from": 40, "to": 46, "step": 2}})
        body = self.assertProblem(r, 422, "MESH_WINDING")
        want = [w for w in self.want if w[0] in (40, 42, 44, 46)]
        self.assertEqual(self.frame_errors(body), want)
        # Fractional frames: the reference says which sub-frames fail.
        r = self.rigd.post(E, {"ops": ops, "checkFrames": {"from": 35, "to": 36.5, "step": 0.25}})
        sub = expected_failures(self.dipped, "m", [35 + 0.25 * i for i in range(7)])
        self.assertTrue(sub)
        self.assertEqual(self.frame_errors(r.json), sub, r)
        # Outside the dip: nothing fails, the batch applies.
        r = self.rigd.post(E, {"ops": ops, "checkFrames": {"from": 0, "to": 30}})
        self.assertEqual(r.status, 201, r)

    def test_missing_members_default_to_the_shot_range(self):
        ops = [key_op("jB", "position.y", DIP)]
        r = self.rigd.post(E + "?dryRun=true", {"ops": ops, "checkFrames": {"from": 47}})
        self.assertEqual(self.frame_errors(r.json), [w for w in self.want if w[0] >= 47], r)
        r = self.rigd.post(E + "?dryRun=true", {"ops": ops, "checkFrames": {"step": 6}})
        self.assertEqual(self.frame_errors(r.json), [w for w in self.want if w[0] % 6 == 0], r)
        r = self.rigd.post(E + "?dryRun=true", {"ops": ops, "checkFrames": False})
        self.assertEqual(r.status, 200, r)

    def test_bad_ranges_are_typed_errors(self):
        ops = [key_op("jB", "position.y", DIP)]
        cases = [({"step": 0}, "/checkFrames/step"),
                 ({"step": -1}, "/checkFrames/step"),
                 ({"from": 10, "to": 5}, "/checkFrames/to"),
                 ({"from": 0, "to": 200000}, "/checkFrames"),
                 ({"from": 0, "to": 60, "step": 0.0001}, "/checkFrames/step"),
                 ({"from": "a"}, "/checkFrames/from"),
                 ({"frm": 1}, "/checkFrames/frm"),
                 (3, "/checkFrames"),
                 ("yes", "/checkFrames")]
        for value, pointer in cases:
            with self.subTest(value=value):
                r = self.rigd.post(E, {"ops": ops, "checkFrames": value})
                body = self.assertProblem(r, 422, "OP_INVALID")
                self.assertEqual([e["pointer"] for e in body["errors"]], [pointer], body)
        # The limit is the frame-range route's: quoted and a member.
        r = self.rigd.post(E, {"ops": ops, "checkFrames": {"from": 0, "to": 200000}})
        e = r.json["errors"][0]
        self.assertEqual((e["limit"], e["frameCount"]), (100000, 200001))
        # Plans answer the body's field code.
        v = self.rigd.post(f"/v1/shots/{S}/plans", {"ops": ops})
        r = self.rigd.post(f"/v1/plans/{v.json['planId']}/validate", {"checkFrames": {"step": 0}})
        self.assertIs(r.json["ok"], False, r)
        self.assertEqual([(e["code"], e["pointer"]) for e in r.json["errors"]],
                         [("INVALID_FIELD", "/checkFrames/step")])
        r = self.rigd.post(f"/v1/plans/{v.json['planId']}/validate", {"checkFrames": 7})
        self.assertProblem(r, 422, "INVALID_FIELD")
        self.assertUnchanged()

    def test_an_unaffected_layer_is_not_checked(self):
        # Break m for real (without the check), then edit only the unrelated layer g: the
        # batch does not touch what m's evaluation reads, so m is not checked and it applies.
        self.assertEqual(self.rigd.post(E, {"ops": [key_op("jB", "position.y", DIP)]}).status,
                         201)
        r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "g", "name": "G"},
                                       key_op("g", "rotation", [{"frame": 0, "value": 5}])],
                               "checkFrames": True})
        self.assertEqual(r.status, 201, r)
        # An op on jA (a joint of m) makes m affected again: its old failures are reported.
        r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "jA", "name": "A"}],
                               "checkFrames": True})
        body = self.assertProblem(r, 422, self.want[0][1])
        self.assertEqual(self.frame_errors(body), self.want)
        self.assertEqual({e["opIndex"] for e in body["errors"]}, {0})

    def test_an_ancestor_of_the_mesh_makes_it_affected(self):
        sc = square_scene(mesh="m2", joints=("k1", "k2"), parent="g")
        self.assertEqual(self.rigd.post(E, {"ops": sc.create_ops() + sc.skin_ops()}).status, 201)
        # Mirroring g mirrors m2 but not its joints (they are at the root): in m2's own space
        # the joints' poses mirror, and every triangle of m2 flips. m is not below g: unchecked.
        r = self.rigd.post(E, {"ops": [
            {"op": "layer.pose", "layerId": "g", "transform": {"scale": [-1, 1]}}],
            "checkFrames": {"from": 0, "to": 2}})
        body = self.assertProblem(r, 422, "MESH_WINDING")
        self.assertEqual([(e["layerId"], e["frame"], e["opIndex"]) for e in body["errors"]],
                         [("m2", 0, 0), ("m2", 1, 0), ("m2", 2, 0)])

    def test_more_than_64_failures_are_counted(self):
        r = self.rigd.post(E, {"ops": [key_op("jB", "position.y", DIP)],
                               "checkFrames": {"from": 36, "to": 48, "step": 0.125}})
        body = self.assertProblem(r, 422, "MESH_COLLAPSED")
        self.assertEqual(len(body["errors"]), 64)
        self.assertIs(body["truncated"], True)
        self.assertEqual(body["errorCount"], 97)  # 36 … 48 in eighths, every one fails
        frames = [e["frame"] for e in body["errors"]]
        self.assertEqual(frames, [36 + 0.125 * i for i in range(64)])


class CheckRoute(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=60)
        a, b = square_scene("m"), square_scene("n", joints=("kA", "kB"))
        ops = a.all_ops() + b.create_ops() + b.skin_ops()
        self.assertEqual(self.rigd.post(E, {"ops": ops}).status, 201)

    def check(self, query=""):
        return self.rigd.get(f"/v1/shots/{S}/check" + query)

    def test_a_clean_shot_lists_nothing(self):
        r = self.check()
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["failures"], [])
        self.assertNotIn("nextPageToken", r.json)
        self.assertEqual((r.json["from"], r.json["to"], r.json["step"]), (0, 60, 1))

    def test_failures_across_pages_in_layer_then_frame_order(self):
        ops = [key_op("jB", "position.y", DIP), key_op("kB", "position.y", DIP)]
        self.assertEqual(self.rigd.post(E, {"ops": ops}).status, 201)
        dipped = square_scene()
        dipped.keys("jB", "position.y", [(k["frame"], k["value"]) for k in DIP])
        want_one = expected_failures(dipped, "m", range(0, 61))
        want = [("m",) + w for w in want_one] + [("n",) + w for w in want_one]
        got, token, pages = [], None, 0
        while True:
            q = "?pageSize=5" + (f"&pageToken={urllib.parse.quote(token)}" if token else "")
            r = self.check(q)
            self.assertEqual(r.status, 200, r)
            pages += 1
            self.assertLessEqual(len(r.json["failures"]), 5)
            got += [(f["layerId"], f["frame"], f["code"], f.get("triangleIndex"))
                    for f in r.json["failures"]]
            token = r.json.get("nextPageToken")
            if not token:
                break
        self.assertEqual(got, want)
        self.assertEqual(pages, 6)  # 26 failures, 5 a page
        # A range: only its frames.
        r = self.check("?from=40&to=44&step=2")
        self.assertEqual([(f["layerId"], f["frame"]) for f in r.json["failures"]],
                         [("m", 40), ("m", 42), ("m", 44), ("n", 40), ("n", 42), ("n", 44)])

    def test_page_tokens_pin_the_version_and_the_query(self):
        self.assertEqual(self.rigd.post(E, {"ops": [key_op("jB", "position.y", DIP)]}).status,
                         201)
        first = self.check("?pageSize=2")
        token = first.json["nextPageToken"]
        q = urllib.parse.quote(token)
        self.assertProblem(self.check(f"?pageSize=3&pageToken={q}"), 400, "PAGE_TOKEN_INVALID")
        self.assertProblem(self.check(f"?pageSize=2&pageToken=x{q}"), 400, "PAGE_TOKEN_INVALID")
        self.assertProblem(self.check(f"?pageSize=2&from=1&pageToken={q}"), 400,
                           "PAGE_TOKEN_INVALID")
        second = self.check(f"?pageSize=2&pageToken={q}")
        self.assertEqual(second.status, 200, second)
        self.assertEqual(len(second.json["failures"]), 2)
        # After an edit the token still reads its version (docs/history.md): the same page,
        # even though the edit changes the failures at the head.
        self.assertEqual(self.rigd.post(E, {"ops": [key_op(
            "jB", "position.y", [{"frame": k["frame"], "value": 0} for k in DIP])]}).status,
                         201)
        again = self.check(f"?pageSize=2&pageToken={q}")
        self.assertEqual(again.status, 200, again)
        self.assertEqual(again.json, second.json)
        self.assertEqual(self.check("?pageSize=2").json["failures"], [], "the head is clean now")
        self.assertEqual(self.check("?pageSize=2&version=2").json["failures"],
                         first.json["failures"])
        self.assertProblem(self.check(f"?pageSize=2&version=2&pageToken={q}"), 400,
                           "PAGE_TOKEN_INVALID")

    def test_bad_queries(self):
        for q, param in [("?step=0", "step"), ("?from=5&to=1", "to"), ("?from=x", "from"),
                         ("?to=1000000", "to"), ("?pageSize=0", "pageSize")]:
            with self.subTest(q=q):
                body = self.assertProblem(self.check(q), 400, "INVALID_QUERY")
                self.assertEqual(body["parameter"], param)
        self.assertProblem(self.rigd.get("/v1/shots/nope/check"), 404, "NOT_FOUND")


if __name__ == "__main__":
    main()
