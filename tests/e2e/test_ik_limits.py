"""Angle-limited FABRIK (issue 27 item 2) through the real server: `constraint.put` with
`limits`, solved chains compared with an independent simulation written here (FABRIK with
every joint clamped in both passes, Aristidou & Lasenby 2011 / caliko's FabrikChain2D) and
checked to hold every limit at every frame; limits stored, listed, in history, diffs and
reverts; bad limits refused with their pointers, nothing changed.
"""
import math

from rigd_harness import RigdTestCase, main

S = "s"
LIMITS = [[30, 45], [20, 10], [25, 25], [5, 60]]
CHAIN = ["a", "b", "c", "d"]


# ---- the independent simulation --------------------------------------------------

def unit(v):
    n = math.hypot(v[0], v[1])
    return (1.0, 0.0) if not n > 1e-12 else (v[0] / n, v[1] / n)


def along(p, d, length):
    return (p[0] + d[0] * length, p[1] + d[1] * length)


def angle(a, b):
    return math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1])


def rotate(v, a):
    c, s = math.cos(a), math.sin(a)
    return (c * v[0] - s * v[1], s * v[0] + c * v[1])


def clamp(ref, d, cw, acw):
    a = angle(ref, d)
    return rotate(ref, -cw) if a < -cw else rotate(ref, acw) if a > acw else d


def fabrik_limited(points, target, limits_deg, iterations=12, tolerance=0.25):
    """Backward from the target with each bone kept within its child's limit, forward from
    the pinned root with each bone within its own (bone 0 from +x)."""
    lim = [(math.radians(cw), math.radians(acw)) for cw, acw in limits_deg]
    p = list(points)
    n = len(p) - 1
    lengths = [math.dist(p[i], p[i + 1]) for i in range(n)]
    base = p[0]

    def forward():
        for k in range(n):
            ref = unit((p[k][0] - p[k - 1][0], p[k][1] - p[k - 1][1])) if k else (1.0, 0.0)
            d = unit((p[k + 1][0] - p[k][0], p[k + 1][1] - p[k][1]))
            p[k + 1] = along(p[k], clamp(ref, d, *lim[k]), lengths[k])

    passed = False
    for _ in range(iterations):
        if math.dist(p[n], target) <= tolerance:
            break
        passed = True
        p[n] = target
        for k in range(n - 1, -1, -1):
            back = unit((p[k][0] - p[k + 1][0], p[k][1] - p[k + 1][1]))
            if k + 1 < n:
                child = unit((p[k + 2][0] - p[k + 1][0], p[k + 2][1] - p[k + 1][1]))
                d = clamp(child, (-back[0], -back[1]), lim[k + 1][1], lim[k + 1][0])
                back = (-d[0], -d[1])
            p[k] = along(p[k + 1], back, lengths[k])
        p[0] = base
        forward()
    if not passed:
        forward()
    return p


def turn_deg(a, b, c):
    return math.degrees(angle((b[0] - a[0], b[1] - a[1]), (c[0] - b[0], c[1] - b[1])))


# ---- the shot ---------------------------------------------------------------------

def marker_ops(layer, x):
    """A mesh layer whose one triangle follows layer rigidly, bound where the layer rests
    (at (x, 0)): its first vertex is the layer's world origin."""
    return [
        {"op": "layer.create", "layerId": f"m_{layer}", "name": layer, "kind": "mesh"},
        {"op": "layer.skin", "layerId": f"m_{layer}", "skin": {
            "source": [{"x": x, "y": 0}, {"x": x + 1, "y": 0}, {"x": x, "y": 1}],
            "triangles": [[0, 1, 2]], "joints": [{"id": "j", "bind": [1, 0, 0, 1, 0, 0]}],
            "weights": [[{"jointId": "j", "weight": 1}]] * 3,
            "jointLayers": [{"jointId": "j", "layerId": layer}]}},
        {"op": "layer.skin.bind.capture", "layerId": f"m_{layer}", "frame": 0},
    ]


class IkLimits(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=24)
        ops = [{"op": "layer.create", "layerId": "a", "name": "a", "kind": "group"}]
        for parent, child in zip(CHAIN, CHAIN[1:]):
            ops.append({"op": "layer.create", "layerId": child, "name": child, "kind": "group",
                        "parentId": parent, "transform": {"position": [10, 0]}})
        ops.append({"op": "layer.create", "layerId": "tip", "name": "tip", "kind": "group",
                    "parentId": "d", "transform": {"position": [10, 0]}})
        ops.append({"op": "layer.create", "layerId": "goal", "name": "goal", "kind": "group",
                    "transform": {"position": [15, 25]}})
        ops.append({"op": "layer.key.put", "layerId": "goal", "channel": "position.x",
                    "keys": [{"frame": 0, "value": 15}, {"frame": 24, "value": -30}]})
        for i, layer in enumerate(CHAIN + ["tip"]):
            ops += marker_ops(layer, 10 * i)
        self.rigd.edit(S, ops)

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def put(self, limits, expect=201):
        op = {"op": "constraint.put", "constraintId": "leg", "chain": CHAIN, "target": "goal",
              "tipLength": 10}
        if limits is not None:
            op["limits"] = limits
        return self.rigd.post(f"/v1/shots/{S}/edits", {"ops": [op]})

    def origins(self, frame):
        out = []
        for layer in CHAIN + ["tip"]:
            r = self.rigd.get(f"/v1/shots/{S}/frames/{frame}?layers=m_{layer}&space=shot")
            self.assertEqual(r.status, 200, r)
            out.append(tuple(r.json["layers"][0]["vertices"][0]))
        return out

    def test_solved_chains_match_the_simulation_and_hold_every_limit(self):
        self.assertEqual(self.put(LIMITS).status, 201)
        rest = [(0.0, 0.0), (10.0, 0.0), (20.0, 0.0), (30.0, 0.0), (40.0, 0.0)]
        worst = 0.0
        for frame in (0, 3, 7.5, 12, 18, 24):
            goal = (15 + (-45) * frame / 24, 25)
            want = fabrik_limited(rest, goal, LIMITS)
            got = self.origins(frame)
            for g, w in zip(got, want):
                worst = max(worst, abs(g[0] - w[0]), abs(g[1] - w[1]))
            previous = (-1.0, 0.0)
            for i in range(4):
                turn = turn_deg(previous if i == 0 else got[i - 1], got[i], got[i + 1])
                self.assertGreaterEqual(turn, -LIMITS[i][0] - 1e-6, (frame, i))
                self.assertLessEqual(turn, LIMITS[i][1] + 1e-6, (frame, i))
                self.assertAlmostEqual(math.dist(got[i], got[i + 1]), 10, places=9)
        print(f"\n  limited FABRIK: largest |rigd − simulation| over 6 frames = {worst:.2e}")
        self.assertLess(worst, 1e-9)
        # without limits the same chain bends past them (the limits did the work)
        self.assertEqual(self.put(None).status, 201)
        free = self.origins(24)
        turns = [turn_deg((-1.0, 0.0) if i == 0 else free[i - 1], free[i], free[i + 1])
                 for i in range(4)]
        self.assertTrue(any(t < -LIMITS[i][0] or t > LIMITS[i][1]
                            for i, t in enumerate(turns)), turns)

    def test_the_frame_lists_each_constraints_solved_points(self):
        self.assertEqual(self.put(LIMITS).status, 201)
        r = self.rigd.get(f"/v1/shots/{S}/frames/12?layers=m_a&include=constraints")
        self.assertEqual(r.status, 200, r)
        (leg,) = r.json["constraints"]
        self.assertEqual(leg["constraintId"], "leg")
        for got, marker in zip(leg["points"], self.origins(12)):  # markers: skinned, ±1 ulp
            self.assertAlmostEqual(got[0], marker[0], places=9)
            self.assertAlmostEqual(got[1], marker[1], places=9)
        self.assertEqual(len(leg["points"]), 5)
        self.assertProblem(self.rigd.get(f"/v1/shots/{S}/frames/12?layers=m_a&include=pins"),
                           400, "INVALID_QUERY")
        self.assertProblem(self.rigd.get(
            f"/v1/shots/{S}/frames/12?layers=m_a&include=constraints&format=f32"),
            400, "INVALID_QUERY")
        plain = self.rigd.get(f"/v1/shots/{S}/frames/12?layers=m_a").json
        self.assertNotIn("constraints", plain)

    def test_free_joints_and_a_reachable_target_are_reached(self):
        self.assertEqual(self.put([None, [180, 180], None, [180, 180]]).status, 201)
        got = self.origins(0)
        self.assertLessEqual(math.dist(got[4], (15, 25)), 0.25)

    def test_limits_are_stored_listed_versioned_diffed_and_reverted(self):
        r = self.put([[30, 45], None, [0, 0], [180, 90]])
        self.assertEqual(r.status, 201, r)
        listed = self.rigd.get(f"/v1/shots/{S}/constraints").json["constraints"][0]
        self.assertEqual(listed["limits"], [[30, 45], [180, 180], [0, 0], [180, 90]])
        self.assertEqual(self.put(LIMITS).status, 201)
        v = self.version()
        old = self.rigd.get(f"/v1/shots/{S}/constraints?version={v - 1}").json
        self.assertEqual(old["constraints"][0]["limits"][2], [0, 0])
        diff = self.rigd.get(f"/v1/shots/{S}/diff?from={v - 1}&to={v}")
        self.assertEqual(diff.status, 200, diff)
        self.assertIn("leg", str(diff.json))
        undo = self.rigd.post(f"/v1/receipts/r.1.{v}/revert")
        self.assertEqual(undo.status, 201, undo)
        back = self.rigd.get(f"/v1/shots/{S}/constraints").json["constraints"][0]
        self.assertEqual(back["limits"], [[30, 45], [180, 180], [0, 0], [180, 90]])

    def test_bad_limits_are_refused_at_their_pointer_and_change_nothing(self):
        v = self.version()
        for limits, pointer in (([[30, 45]], "/ops/0/limits"),
                                ("wide", "/ops/0/limits"),
                                ([[30, 45], [20, 10], [25, 181], None], "/ops/0/limits/2"),
                                ([[30, 45], [-1, 10], None, None], "/ops/0/limits/1"),
                                ([[30, 45], [10], None, None], "/ops/0/limits/1"),
                                ([[30, 45], ["x", 1], None, None], "/ops/0/limits/1")):
            with self.subTest(limits=limits):
                body = self.assertProblem(self.put(limits), 422, "OP_INVALID")
                self.assertEqual(body["errors"][0]["pointer"], pointer, body)
        self.assertEqual(self.version(), v)


if __name__ == "__main__":
    main()
