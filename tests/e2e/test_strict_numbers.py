"""Numbers in paths and queries (issue 21 item 4, part 1).

A frame number — the `{frame}` of GET /v1/shots/{id}/frames/{frame}, `from`,
`to` and `step` of a frame range and of a check, `frame` of mesh-data — is
read by one rule: written as a JSON number (RFC 8259 §6: an optional `-`,
digits without leading zeros, an optional fraction and exponent) with a finite
value, as the same frame would be in a body. strtod used to decide, so
`frames/0x10` evaluated frame 16, and `+3`, ` 3`, `0x1p4` were read as frames.
Anything else is 400 INVALID_QUERY naming the parameter.

Counts — `pageSize`, `maxBytes`, `version`, a diff's `from`/`to` — are ASCII
digits and nothing else: `pageSize=+5` and `pageSize=%205` used to be read as
5. Large counts are still coerced to their limit where they were.

A shot's `frameStart` and `frameEnd` (issue 21 item 4, part 6) lie in
[-maxAbsFrame, maxAbsFrame] = [-1e6, 1e6] (GET /v1/limits); outside is
422 INVALID_FIELD at the field's pointer. A shot from -1e308 to 1e308 used to
be created, and its default frame range then reported "inf frames".
"""
from urllib.parse import quote

from rigd_harness import RigdTestCase, main

S = "s"

BAD_FRAMES = ["0x10", "0X10", "0x1p4", "+3", " 3", "3 ", "\t3", "inf", "-inf", "Infinity",
              "nan", "NaN", "1e400", "-1e400", ".5", "5.", "-", "1e", "1e+", "--1", "010",
              "-01", "1_0", "1,5", "", "\u0661", "0b1", "3f"]
GOOD_FRAMES = {"0": 0, "-0": 0, "16": 16, "-3": -3, "1.5": 1.5, "1e2": 100, "1E2": 100,
               "2.5e-1": 0.25, "-1.25E+1": -12.5, "0.0": 0}


def q(text):
    """text percent-encoded for a path segment or a query value ('+' included)."""
    return quote(text, safe="")


class Numbers(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S)
        skin = {"source": [{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 0, "y": 100}],
                "triangles": [[0, 1, 2]],
                "joints": [{"id": "a", "bind": [1, 0, 0, 1, 0, 0]}],
                "weights": [[{"jointId": "a", "weight": 1}] for _ in range(3)],
                "jointLayers": [{"jointId": "a", "layerId": "j"}]}
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "j", "name": "j", "kind": "group"},
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"},
            {"op": "layer.skin", "layerId": "m", "skin": skin},
            {"op": "layer.key.put", "layerId": "j", "channel": "position.x",
             "keys": [{"frame": 0, "value": 0}, {"frame": 100, "value": 100}]}])

    def refused(self, path, *parameters):
        r = self.rigd.get(path)
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertIn(body["parameter"], parameters, body)

    def test_the_path_frame_is_a_json_number(self):
        for text in BAD_FRAMES:
            with self.subTest(frame=text):
                # (the router refuses a segment with spaces, '+' or ',' as a bad path)
                self.refused(f"/v1/shots/{S}/frames/{q(text)}", "frame", "path")
        for text, value in GOOD_FRAMES.items():
            if "+" in text:
                continue  # '+' is no path character (the router's id rule): "1E+1" is a query's
            with self.subTest(frame=text):
                r = self.rigd.get(f"/v1/shots/{S}/frames/{q(text)}")
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.json["frame"], value)
                # position.x follows the frame: 0 at frame 0, 100 at frame 100, held outside
                x = r.json["layers"][0]["vertices"][0][0]
                self.assertAlmostEqual(x, min(max(value, 0), 100), places=9)

    def test_range_check_and_mesh_data_frames_follow_the_same_rule(self):
        routes = [(f"/v1/shots/{S}/layers/m/frames?to=20&from=", "from"),
                  (f"/v1/shots/{S}/layers/m/frames?from=0&to=", "to"),
                  (f"/v1/shots/{S}/layers/m/frames?from=0&to=4&step=", "step"),
                  (f"/v1/shots/{S}/check?to=20&from=", "from"),
                  (f"/v1/shots/{S}/check?from=0&to=", "to"),
                  (f"/v1/shots/{S}/check?from=0&to=4&step=", "step"),
                  (f"/v1/shots/{S}/layers/m/mesh-data/vertices?frame=", "frame")]
        for prefix, parameter in routes:
            for text in BAD_FRAMES:
                if text == "":
                    continue  # an empty value is the same refusal; "?from=" alone is tested below
                with self.subTest(route=prefix, value=text):
                    self.refused(prefix + q(text), parameter)
            for text in GOOD_FRAMES:
                with self.subTest(route=prefix, value=text):
                    # read as a number: answered, or refused by the range rules (step 0,
                    # from after to), never for how it is written
                    r = self.rigd.get(prefix + q(text))
                    if r.status != 200:
                        self.assertNotIn("decimal number", r.json["detail"], r)
        # '+' in a query is a space once decoded: refused either way
        self.refused(f"/v1/shots/{S}/layers/m/frames?from=+3&to=20", "from")
        self.refused(f"/v1/shots/{S}/layers/m/frames?from=&to=20", "from")
        r = self.rigd.get(f"/v1/shots/{S}/layers/m/frames?from=1e1&to=1.2e1&step=5e-1")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.header("X-Rigd-Frame-Count"), "5")

    def test_counts_are_digits_only(self):
        for name, path, good in (
                ("pageSize", f"/v1/shots/{S}/receipts?pageSize=", "1"),
                ("pageSize", f"/v1/shots/{S}/layers/m/mesh-data/vertices?pageSize=", "1"),
                ("maxBytes", f"/v1/shots/{S}/layers/m/mesh-data/vertices?maxBytes=", "100000"),
                ("maxBytes", f"/v1/shots/{S}/layers/m/skin?maxBytes=", "100000"),
                ("version", f"/v1/shots/{S}?version=", "1"),
                ("from", f"/v1/shots/{S}/diff?to=1&from=", "0"),
                ("to", f"/v1/shots/{S}/diff?from=0&to=", "1")):
            for text in ("+1", " 1", "1 ", "0x1", "1e3", "1.0", "-1", "", "\u0661", "0b1"):
                with self.subTest(path=path, value=text):
                    self.refused(path + q(text), name)
            for text in (good, "0" + good):
                with self.subTest(path=path, value=text):
                    self.assertEqual(self.rigd.get(path + text).status, 200)
        # past the limit is still coerced down, whatever the length
        r = self.rigd.get(f"/v1/shots/{S}/receipts?pageSize=" + "9" * 40)
        self.assertEqual(r.status, 200, r)
        r = self.rigd.get(f"/v1/shots/{S}?version=" + "9" * 40)
        self.assertProblem(r, 400, "INVALID_QUERY")


class ShotFrameRange(RigdTestCase):
    def create(self, shot, **frames):
        return self.rigd.post("/v1/projects/p/shots", {"shotId": shot, "name": shot, **frames})

    def test_frame_start_and_end_are_bounded(self):
        self.assertEqual(self.rigd.post("/v1/projects", {"projectId": "p", "name": "p"}).status,
                         201)
        self.assertEqual(self.rigd.get("/v1/limits").json["maxAbsFrame"], 1000000)
        for i, (frames, pointers) in enumerate((
                ({"frameStart": -1e308, "frameEnd": 1e308}, ["/frameStart", "/frameEnd"]),
                ({"frameStart": -1000001}, ["/frameStart"]),
                ({"frameStart": 1000000.5, "frameEnd": 2000000}, ["/frameStart", "/frameEnd"]),
                ({"frameEnd": 1e7}, ["/frameEnd"]),
                ({"frameStart": 0, "frameEnd": 1000000.001}, ["/frameEnd"]))):
            with self.subTest(frames=frames):
                body = self.assertProblem(self.create(f"bad{i}", **frames), 422, "INVALID_FIELD")
                got = [e["pointer"] for e in body.get("errors", [body])]
                self.assertEqual(got, pointers, body)
                self.assertIn("1000000", body["detail"])
                self.assertEqual(self.rigd.get(f"/v1/shots/bad{i}").status, 404)
        # the bounds themselves are fine, and the widest shot's range is counted exactly
        r = self.create("wide", frameStart=-1000000, frameEnd=1000000)
        self.assertEqual(r.status, 201, r)
        self.assertEqual((r.json["frameStart"], r.json["frameEnd"]), (-1000000, 1000000))
        body = self.assertProblem(self.rigd.get("/v1/shots/wide/check"), 400, "INVALID_QUERY")
        self.assertEqual(body["frameCount"], 2000001, body)
        self.assertNotIn("inf", body["detail"])
        self.assertEqual(self.create("neg", frameStart=-500, frameEnd=-400).status, 201)


if __name__ == "__main__":
    main()
