"""Follow chains (issue 27 item 1, "deterministic replay") through the real server:
`constraint.put` with `kind: "chain"`, whose head chases a keyed target and whose links trail
behind at fixed lengths. The solved frames are compared with an independent replay written
here (state_-1 from forward kinematics at frameStart, one step per 1/substeps frame, the
zero-offset fallbacks, the ±maxAngleDeg clamp, the springy head, linear interpolation between
steps) through `include=constraints` points and a marker mesh skinned to every chain layer;
segment lengths hold whatever the layers' FK offsets; frames before frameStart are state_0;
the replay is bit-identical across calls, restarts and frame ranges; REPLAY_LIMIT at its exact
edges; mix 0 is FK; chains listed, versioned, diffed and reverted; bad input refused at its
pointer with nothing changed.
"""
import math

from keys_ref import key_value
from rigd_harness import RigdTestCase, main

S = "s"
CHAIN = ["a", "b", "c", "d", "e", "f"]
FRAME_END = 200000
GOAL_PATH = {"position.x": [(0, 0), (12, 30), (24, 40), (36, 10), (48, -20)],
             "position.y": [(0, 0), (12, 25), (24, -5), (36, -30), (48, 10)]}
# a target that doubles back hard: unlimited, the trailing links fold sharply
ZIGZAG = {"position.x": [(0, 0), (6, 45), (9, 5), (12, 50), (15, 0), (18, 40)],
          "position.y": [(0, 0), (6, 5), (9, 30), (12, -25), (15, 20), (18, -10)]}


# ---- the rig as data: what the server is told and what the simulation reads ----------

def layer(parent, position, rotation=0.0, keys=None):
    """A group layer: its parent, static position and rotation, and linear keys by channel
    ("position.x", "position.y", "rotation") as (frame, value) pairs."""
    return {"parent": parent, "position": position, "rotation": rotation,
            "keys": dict(keys or {})}


def rig_spec(offsets, goal_path=GOAL_PATH):
    """Layers in creation order. The chain a, b, … hangs under a turned, offset 'rig' with
    each next layer at its FK offset; a and c turn by keys (FK only: the chain overrides
    them); the goal is keyed under a turned 'stage'."""
    chain = CHAIN[:len(offsets) + 1]
    spec = {"rig": layer(None, (3.0, -2.0), 15.0),
            "a": layer("rig", (0.0, 0.0), keys={"rotation": [(0, 0.0), (48, 40.0)]})}
    for parent, lid, offset in zip(chain, chain[1:], offsets):
        spec[lid] = layer(parent, offset)
    spec["c"]["keys"]["rotation"] = [(0, 0.0), (48, -30.0)]
    spec["stage"] = layer(None, (-4.0, 6.0), -20.0)
    spec["goal"] = layer("stage", (0.0, 0.0), keys=goal_path)
    return spec, chain


def channel(t, name, frame):
    keys = t["keys"].get(name)
    if keys:
        return key_value(keys, frame)
    return t["rotation"] if name == "rotation" else t["position"][name == "position.y"]


def world_origin(spec, lid, frame):
    """Where the layer's (default) pivot lands: T(position)·R(rotation) up to the root."""
    x, y = 0.0, 0.0
    while lid:
        t = spec[lid]
        th = math.radians(channel(t, "rotation", frame))
        c, s = math.cos(th), math.sin(th)
        x, y = (channel(t, "position.x", frame) + c * x - s * y,
                channel(t, "position.y", frame) + s * x + c * y)
        lid = t["parent"]
    return (x, y)


def create_ops(spec, chain):
    ops = []
    for lid, t in spec.items():
        ops.append({"op": "layer.create", "layerId": lid, "name": lid, "kind": "group",
                    "parentId": t["parent"],
                    "transform": {"position": list(t["position"]), "rotation": t["rotation"]}})
        for ch, keys in t["keys"].items():
            ops.append({"op": "layer.key.put", "layerId": lid, "channel": ch,
                        "keys": [{"frame": f, "value": v, "interp": "linear"}
                                 for f, v in keys]})
    # the marker mesh: one triangle per chain layer, wholly weighted to it, identity binds,
    # so vertex 3k is chain layer k's world origin
    src, tris, weights = [], [], []
    for k in range(len(chain)):
        src += [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}]
        tris.append([3 * k, 3 * k + 1, 3 * k + 2])
        weights += [[{"jointId": f"j{k}", "weight": 1}]] * 3
    ops += [{"op": "layer.create", "layerId": "probe", "name": "probe", "kind": "mesh"},
            {"op": "layer.skin", "layerId": "probe", "skin": {
                "source": src, "triangles": tris, "weights": weights,
                "joints": [{"id": f"j{k}", "bind": [1, 0, 0, 1, 0, 0]}
                           for k in range(len(chain))],
                "jointLayers": [{"jointId": f"j{k}", "layerId": lid}
                                for k, lid in enumerate(chain)]}}]
    return ops


# ---- the independent replay ----------------------------------------------------------

def step(prev, target, lengths, smoothing=0.0, max_angle=None):
    """One step of the chain from prev, its head chasing target."""
    if smoothing > 0:
        out = [(prev[0][0] + (target[0] - prev[0][0]) * (1 - smoothing),
                prev[0][1] + (target[1] - prev[0][1]) * (1 - smoothing))]
    else:
        out = [tuple(target)]
    for i in range(1, len(prev)):
        length = lengths[i - 1]
        tries = [(prev[i][0] - out[i - 1][0], prev[i][1] - out[i - 1][1]),
                 (prev[i][0] - prev[i - 1][0], prev[i][1] - prev[i - 1][1])]
        if i >= 2:
            tries.append((out[i - 1][0] - out[i - 2][0], out[i - 1][1] - out[i - 2][1]))
        d, dn = (1.0, 0.0), 1.0
        for t in tries:
            tn = math.sqrt(t[0] * t[0] + t[1] * t[1])
            if tn > 0 and math.isfinite(tn):
                d, dn = t, tn
                break
        if max_angle is not None and i >= 2:
            a = (out[i - 1][0] - out[i - 2][0], out[i - 1][1] - out[i - 2][1])
            an = math.sqrt(a[0] * a[0] + a[1] * a[1])
            if an > 0 and math.isfinite(an):
                u, ah = (d[0] / dn, d[1] / dn), (a[0] / an, a[1] / an)
                th = math.radians(max_angle)
                if ah[0] * u[0] + ah[1] * u[1] < math.cos(th):
                    s = math.sin(th) if ah[0] * u[1] - ah[1] * u[0] >= 0 else -math.sin(th)
                    u = (ah[0] * math.cos(th) - ah[1] * s, ah[0] * s + ah[1] * math.cos(th))
                out.append((out[i - 1][0] + u[0] * length, out[i - 1][1] + u[1] * length))
                continue
        out.append((out[i - 1][0] + d[0] * (length / dn), out[i - 1][1] + d[1] * (length / dn)))
    return out


def follow(spec, chain, lengths, frame, frame_start=0, smoothing=0.0, substeps=1,
           max_angle=None):
    """The chain's points at a shot frame, replayed from frame_start."""
    def advance(state, k):
        target = world_origin(spec, "goal", frame_start + k / substeps)
        return step(state, target, lengths, smoothing, max_angle)

    t = (frame - frame_start) * substeps
    k = 0 if t <= 0 else math.floor(t)
    f = 0.0 if t <= 0 else t - k
    state = [world_origin(spec, lid, frame_start) for lid in chain]  # state_-1
    for j in range(k + 1):
        state = advance(state, j)
    if f == 0:
        return state
    after = advance(state, k + 1)
    return [(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f) for a, b in zip(state, after)]


def turn_deg(p, i):
    """How far link i (p[i-1] → p[i]) turns from link i-1, in degrees."""
    a = (p[i - 1][0] - p[i - 2][0], p[i - 1][1] - p[i - 2][1])
    b = (p[i][0] - p[i - 1][0], p[i][1] - p[i - 1][1])
    return math.degrees(math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]))


def chain_op(**fields):
    """constraint.put of the chain 'tail' on CHAIN after 'goal'; a field given None is
    left out."""
    op = {"op": "constraint.put", "constraintId": "tail", "kind": "chain", "chain": CHAIN,
          "target": "goal", "segmentLength": 10}
    op.update(fields)
    return {k: v for k, v in op.items() if v is not None}


# ---- the cases -------------------------------------------------------------------------

class FollowCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.spec, self.chain = self.build(S, [(10.0, 0.0)] * 5)

    def build(self, shot, offsets, goal_path=GOAL_PATH, frame_start=0):
        spec, chain = rig_spec(offsets, goal_path)
        self.rigd.make_shot("p", shot, frameStart=frame_start, frameEnd=FRAME_END)
        self.rigd.edit(shot, create_ops(spec, chain))
        return spec, chain

    def put(self, shot=S, **fields):
        r = self.rigd.post(f"/v1/shots/{shot}/edits", {"ops": [chain_op(**fields)]})
        self.assertEqual(r.status, 201, r)
        return r.json

    def version(self, shot=S):
        return self.rigd.get(f"/v1/shots/{shot}").json["version"]

    def frame(self, f, shot=S, query=""):
        return self.rigd.get(f"/v1/shots/{shot}/frames/{f}"
                             f"?layers=probe&space=shot&include=constraints{query}")

    def solved(self, f, shot=S, query=""):
        """The chain's points at frame f: as listed by include=constraints, and the marker
        mesh's vertices on each chain layer."""
        r = self.frame(f, shot, query)
        self.assertEqual(r.status, 200, r)
        (c,) = r.json["constraints"]
        self.assertEqual(c["constraintId"], "tail")
        verts = r.json["layers"][0]["vertices"]
        markers = [tuple(verts[3 * k]) for k in range(len(verts) // 3)]
        self.assertEqual(len(c["points"]), len(markers), "n points, no tip end")
        return [tuple(p) for p in c["points"]], markers

    def markers(self, f, shot=S):
        r = self.rigd.get(f"/v1/shots/{shot}/frames/{f}?layers=probe&space=shot")
        self.assertEqual(r.status, 200, r)
        verts = r.json["layers"][0]["vertices"]
        return [tuple(verts[3 * k]) for k in range(len(verts) // 3)]

    def close(self, got, want, what, tol=1e-9):
        """Asserts every point within tol of want; returns the worst |error|."""
        self.assertEqual(len(got), len(want), what)
        worst = 0.0
        for k, (g, w) in enumerate(zip(got, want)):
            err = max(abs(g[0] - w[0]), abs(g[1] - w[1]))
            self.assertLess(err, tol, f"{what} point {k}: got {g}, want {w}")
            worst = max(worst, err)
        return worst

    def lengths_hold(self, points, lengths, what):
        worst = 0.0
        for k, length in enumerate(lengths):
            err = abs(math.dist(points[k], points[k + 1]) - length)
            self.assertLessEqual(err, 1e-12 * max(1.0, length), f"{what} link {k + 1}")
            worst = max(worst, err)
        return worst


class Following(FollowCase):
    def test_a_keyed_target_is_followed_as_the_replay_says(self):
        self.put()
        worst = worst_len = 0.0
        for f in (0, 1, 7, 12.5, 30, 48):
            want = follow(self.spec, self.chain, [10] * 5, f)
            points, markers = self.solved(f)
            worst = max(worst, self.close(points, want, f"frame {f} points"),
                        self.close(markers, want, f"frame {f} markers"))
            if f == int(f):  # a fractional frame blends two steps: lengths are not kept
                worst_len = max(worst_len, self.lengths_hold(points, [10] * 5, f"frame {f}"),
                                self.lengths_hold(markers, [10] * 5, f"frame {f} markers"))
        print(f"\n  follow chain: largest |rigd − replay| = {worst:.2e}, "
              f"largest |link − 10| = {worst_len:.2e}")
        # the head is on the (turned, keyed) goal; the FK straight line is long gone
        self.assertLess(math.dist(self.solved(30)[0][0], world_origin(self.spec, "goal", 30)),
                        1e-9)

    def test_unequal_lengths_hold_whatever_the_fk_offsets(self):
        lengths = [10.0, 7.0, 5.0, 12.0]
        # shorter, equal, equal but oblique, longer than the segment
        spec, chain = self.build("uneq", [(5.0, 0.0), (7.0, 0.0), (3.0, 4.0), (20.0, 0.0)])
        fk = [world_origin(spec, lid, 0) for lid in chain]
        self.assertAlmostEqual(math.dist(fk[0], fk[1]), 5.0)  # not the segment's 10
        self.put("uneq", chain=chain, lengths=lengths, segmentLength=None)
        worst = 0.0
        for f in (0, 3, 12, 24, 40):
            want = follow(spec, chain, lengths, f)
            points, markers = self.solved(f, "uneq")
            self.close(points, want, f"frame {f} points")
            self.close(markers, want, f"frame {f} markers")
            worst = max(worst, self.lengths_hold(points, lengths, f"frame {f}"),
                        self.lengths_hold(markers, lengths, f"frame {f} markers"))
        print(f"\n  unequal lengths: largest |link − length| = {worst:.2e}")

    def test_max_angle_bounds_every_turn_and_does_the_work(self):
        spec, chain = self.build("zig", [(10.0, 0.0)] * 5, ZIGZAG)
        self.put("zig", maxAngleDeg=30)
        frames = range(0, 21)
        worst, tightest = 0.0, 0.0
        for f in frames:
            points, markers = self.solved(f, "zig")
            self.close(points, follow(spec, chain, [10] * 5, f, max_angle=30), f"frame {f}")
            self.close(markers, points, f"frame {f} markers")
            for i in range(2, len(points)):
                turn = abs(turn_deg(points, i))
                self.assertLessEqual(turn, 30 + 1e-9, (f, i))
                worst = max(worst, turn)
        print(f"\n  maxAngleDeg 30: largest turn over {len(frames)} frames = {worst:.12f}°")
        self.assertGreater(worst, 30 - 1e-6, "the limit was reached")
        # the same motion without the limit turns further: the limit did the work
        self.put("zig")
        free = max(abs(turn_deg(self.solved(f, "zig")[0], i))
                   for f in frames for i in range(2, len(chain)))
        self.assertGreater(free, 45, "unlimited, the chain folds past the limit")

    def test_smoothing_and_substeps_match_the_replay_and_the_head_lags(self):
        self.put(smoothing=0.6, substeps=3)
        worst = 0.0
        for f in (0, 1, 7.25, 12, 12.5, 30, 48, 60):
            want = follow(self.spec, self.chain, [10] * 5, f, smoothing=0.6, substeps=3)
            points, markers = self.solved(f)
            worst = max(worst, self.close(points, want, f"frame {f} points"),
                        self.close(markers, want, f"frame {f} markers"))
            if f * 3 == int(f * 3):
                self.lengths_hold(points, [10] * 5, f"frame {f}")
        print(f"\n  smoothing 0.6, substeps 3: largest |rigd − replay| = {worst:.2e}")
        head = self.solved(12)[0][0]
        self.assertGreater(math.dist(head, world_origin(self.spec, "goal", 12)), 1,
                           "the smoothed head trails the target")
        plain = follow(self.spec, self.chain, [10] * 5, 12)
        self.assertGreater(math.dist(head, plain[0]), 1, "the parameters changed the pose")

    def test_frames_before_frame_start_show_the_first_step(self):
        self.put()
        ahead = self.solved(0)
        self.assertEqual(self.solved(-5), ahead)
        self.assertEqual(self.solved(-999999), ahead)
        # a later frameStart: state_-1 is FK there (a and c turned by their keys), and the
        # first step chases the goal where it is at frameStart
        spec, chain = self.build("late", [(10.0, 0.0)] * 5, frame_start=12)
        self.put("late")
        first = self.solved(12, "late")
        self.close(first[0], follow(spec, chain, [10] * 5, 12, frame_start=12), "frameStart")
        # the same state; the layers it is written into hold other FK poses there (a and c
        # turn by keys), so the write-back's rounding may differ in the last bits
        for f in (11.5, 5, -5):
            self.close(self.solved(f, "late")[0], first[0], f"frame {f}", tol=1e-12)
        for f in (13, 20.5, 30):
            self.close(self.solved(f, "late")[1],
                       follow(spec, chain, [10] * 5, f, frame_start=12), f"frame {f}")


class Replay(FollowCase):
    def test_a_far_frame_is_the_same_bits_every_time(self):
        self.put()
        first = self.frame(10000)
        self.assertEqual(first.status, 200, first)
        self.assertEqual(self.frame(10000).body, first.body, "asked twice")
        points = [tuple(p) for p in first.json["constraints"][0]["points"]]
        self.close(points, follow(self.spec, self.chain, [10] * 5, 10000), "frame 10000")
        # inside a range that replays 9999 first (evaluated in parallel or in order)
        r = self.rigd.get(f"/v1/shots/{S}/layers/probe/frames?from=9999&to=10000&space=shot")
        self.assertEqual(r.status, 200, r)
        by_frame = {fr["frame"]: fr["vertices"] for fr in r.json["frames"]}
        self.assertEqual(by_frame[10000], first.json["layers"][0]["vertices"])
        self.assertEqual(by_frame[9999], self.frame(9999).json["layers"][0]["vertices"])
        # another process on the same database
        self.rigd.stop()
        self.rigd.start()
        self.assertEqual(self.frame(10000).body, first.body, "after a restart")

    def test_the_replay_limit_is_exact(self):
        self.assertEqual(self.rigd.get("/v1/limits").json.get("maxReplaySteps"), 100000)
        self.put()
        self.assertEqual(self.frame(100000).status, 200)
        for f in (100001, 100000.5):
            with self.subTest(frame=f):
                body = self.assertProblem(self.frame(f), 422, "REPLAY_LIMIT")
                self.assertIn("tail", {e.get("constraintId") for e in body.get("errors", [])},
                              body)
        self.assertProblem(self.rigd.get(f"/v1/shots/{S}/frames/100001?layers=probe"),
                           422, "REPLAY_LIMIT")
        self.assertProblem(self.rigd.get(
            f"/v1/shots/{S}/layers/probe/frames?from=100001&to=100002"), 422, "REPLAY_LIMIT")
        self.put(substeps=2)
        self.assertEqual(self.frame(50000).status, 200)
        self.assertProblem(self.frame(50000.5), 422, "REPLAY_LIMIT")
        self.assertProblem(self.frame(100000), 422, "REPLAY_LIMIT")

    def test_every_route_that_evaluates_a_far_frame_refuses_it(self):
        self.put()
        far, base = 100001, f"/v1/shots/{S}"
        cases = {
            "map-points": self.rigd.post(f"{base}/layers/probe/map-points",
                                         {"frame": far, "points": [[0, 0]]}),
            "mesh-data": self.rigd.get(f"{base}/layers/probe/mesh-data/vertices?frame={far}"),
            "f32": self.rigd.get(f"{base}/frames/{far}?layers=probe&format=f32"),
            # the shot runs to frame 200000: the chain layers are baked through it
            "gltf": self.rigd.get(f"{base}/export?format=gltf"),
        }
        for name, r in cases.items():
            with self.subTest(route=name):
                body = self.assertProblem(r, 422, "REPLAY_LIMIT")
                self.assertIn("tail", {e.get("constraintId") for e in body.get("errors", [])},
                              body)
        # a frame check lists the frame as failing with the code, as any failing frame
        r = self.rigd.get(f"{base}/check?from=99999&to={far}")
        self.assertEqual(r.status, 200, r)
        self.assertEqual([(f["frame"], f["code"]) for f in r.json["failures"]],
                         [(far, "REPLAY_LIMIT")], r.json)
        self.assertEqual(self.rigd.post(f"{base}/layers/probe/map-points",
                                        {"frame": 100000, "points": [[0, 0]]}).status, 200)
        # an edit's checkFrames past the limit is refused and changes nothing
        v = self.version()
        r = self.rigd.post(f"{base}/edits", {"ops": [{"op": "layer.pose", "layerId": "goal",
                                                      "transform": {"position": [1, 1]}}],
                                             "checkFrames": {"from": far, "to": far}})
        self.assertEqual(r.status, 422, r)
        self.assertIn("REPLAY_LIMIT", str(r.json), r.json)
        self.assertEqual(self.version(), v)

    def test_mix_zero_leaves_the_fk_pose(self):
        self.put(mix=0)
        for f in (0, 12, 30):
            fk = [world_origin(self.spec, lid, f) for lid in self.chain]
            self.close(self.markers(f), fk, f"frame {f}")
        self.assertGreater(math.dist(world_origin(self.spec, "f", 30),
                                     follow(self.spec, self.chain, [10] * 5, 30)[5]), 1)
        # keyed: 1 at frame 0, 0 from frame 24 on
        self.put(mix=[{"frame": 0, "value": 1}, {"frame": 24, "value": 0}])
        self.close(self.markers(0), follow(self.spec, self.chain, [10] * 5, 0), "mix 1")
        self.close(self.markers(30), [world_origin(self.spec, lid, 30) for lid in self.chain],
                   "mix 0")


class Authoring(FollowCase):
    def listed(self, query=""):
        r = self.rigd.get(f"/v1/shots/{S}/constraints{query}")
        self.assertEqual(r.status, 200, r)
        (c,) = r.json["constraints"]
        return c

    def test_listed_versioned_diffed_and_reverted(self):
        self.put(smoothing=0.25, substeps=2, order=4)
        first = {"constraintId": "tail", "kind": "chain", "chain": CHAIN, "target": "goal",
                 "lengths": [10] * 5, "smoothing": 0.25, "substeps": 2, "mix": 1, "order": 4}
        self.assertEqual(self.listed(), first)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}").json["constraints"], [first])
        v1, pose = self.version(), self.solved(12)
        receipt = self.put(lengths=[10, 9, 8, 7, 6], segmentLength=None, maxAngleDeg=45)
        v2 = self.version()
        self.assertEqual(self.listed(), {
            "constraintId": "tail", "kind": "chain", "chain": CHAIN, "target": "goal",
            "lengths": [10, 9, 8, 7, 6], "smoothing": 0, "substeps": 1, "maxAngleDeg": 45,
            "mix": 1, "order": 0})
        self.lengths_hold(self.solved(12)[0], [10, 9, 8, 7, 6], "new lengths")
        self.assertEqual(self.listed(f"?version={v1}"), first)
        self.assertEqual(self.solved(12, query=f"&version={v1}"), pose)
        diff = self.rigd.get(f"/v1/shots/{S}/diff?from={v1}&to={v2}")
        self.assertEqual(diff.status, 200, diff)
        self.assertIn("tail", str(diff.json))
        undo = self.rigd.post(f"/v1/receipts/{receipt['receiptId']}/revert", {})
        self.assertEqual(undo.status, 201, undo)
        self.assertEqual(self.listed(), first)
        self.assertEqual(self.solved(12), pose)

    def test_a_skin_on_the_chain_bakes_to_the_replayed_frames_bit_for_bit(self):
        self.put(smoothing=0.3)
        frames = [0, 3, 12.5, 40, 1000]
        live = {f: self.markers(f) for f in frames}
        r = self.rigd.post(f"/v1/shots/{S}/edits", {"ops": [
            {"op": "layer.skin.bake", "layerId": "probe", "frames": frames}]})
        self.assertEqual(r.status, 201, r)
        r = self.rigd.get(f"/v1/shots/{S}/layers/probe/mesh-data/keyframes")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(len(r.json["items"]), len(frames))
        for item in r.json["items"]:
            verts = [(v["x"], v["y"]) for v in item["vertices"]]
            self.assertEqual(verts[::3], live[item["frame"]], f"key {item['frame']}")
        # the baked layer no longer follows: deleting the chain leaves its frames
        self.rigd.edit(S, [{"op": "constraint.delete", "constraintId": "tail"}])
        for f in frames:
            self.assertEqual(self.markers(f), live[f], f"frame {f} after the delete")

    def test_bad_input_is_refused_at_its_pointer_and_changes_nothing(self):
        deep = [{"op": "layer.create", "layerId": "k0", "name": "k0", "kind": "group"}]
        deep += [{"op": "layer.create", "layerId": f"k{i}", "name": f"k{i}", "kind": "group",
                  "parentId": f"k{i - 1}", "transform": {"position": [1, 0]}}
                 for i in range(1, 33)]
        ik = [{"op": "layer.create", "layerId": "u", "name": "u", "kind": "group"},
              {"op": "layer.create", "layerId": "l", "name": "l", "kind": "group",
               "parentId": "u", "transform": {"position": [5, 0]}},
              {"op": "constraint.put", "constraintId": "arm", "chain": ["u", "l"],
               "target": "stage", "tipLength": 5}]
        self.rigd.edit(S, deep + ik)
        before = (self.version(), self.rigd.get(f"/v1/shots/{S}/constraints").json)
        P = "/ops/0/"
        either = {P + "segmentLength", P + "lengths", "/ops/0"}
        cases = [
            ({"chain": ["a"]}, "IK_CHAIN", {P + "chain"}),
            ({"chain": [f"k{i}" for i in range(33)]}, "IK_CHAIN", {P + "chain"}),
            ({"lengths": [10] * 5}, "OP_INVALID", either),
            ({"segmentLength": None}, "OP_INVALID", either),
            ({"lengths": [10] * 4, "segmentLength": None}, "OP_INVALID", {P + "lengths"}),
            ({"lengths": [10, 0, 10, 10, 10], "segmentLength": None}, "OP_INVALID",
             {P + "lengths/1", P + "lengths"}),
            ({"lengths": [10, 10, -2, 10, 10], "segmentLength": None}, "OP_INVALID",
             {P + "lengths/2", P + "lengths"}),
            ({"segmentLength": 0}, "OP_INVALID", {P + "segmentLength"}),
            ({"smoothing": 1}, "OP_INVALID", {P + "smoothing"}),
            ({"smoothing": -0.1}, "OP_INVALID", {P + "smoothing"}),
            ({"substeps": 0}, "OP_INVALID", {P + "substeps"}),
            ({"substeps": 9}, "OP_INVALID", {P + "substeps"}),
            ({"substeps": 1.5}, "OP_INVALID", {P + "substeps"}),
            ({"maxAngleDeg": -1}, "OP_INVALID", {P + "maxAngleDeg"}),
            ({"maxAngleDeg": 181}, "OP_INVALID", {P + "maxAngleDeg"}),
            ({"mix": 1.5}, "OP_INVALID", {P + "mix"}),
            ({"kind": "spring"}, "OP_INVALID", {P + "kind"}),
            ({"target": "c"}, "IK_TARGET", {P + "target"}),
            ({"target": "a"}, "IK_TARGET", {P + "target"}),
            ({"target": "l"}, "IK_TARGET", {P + "target"}),  # moved by the IK 'arm'
        ]
        for field, value in (("tipLength", 5), ("pole", "stage"), ("bendPositive", True),
                             ("softness", 0.5), ("stretch", True), ("compress", True),
                             ("limits", [None] * 6)):
            cases.append(({field: value}, "OP_INVALID", {P + field}))
        for fields, code, pointers in cases:
            with self.subTest(fields=fields):
                r = self.rigd.post(f"/v1/shots/{S}/edits", {"ops": [chain_op(**fields)]})
                self.assertEqual(r.status, 422, r)
                self.assertEqual(r.header("Content-Type"), "application/problem+json", r)
                found = [e for e in r.json["errors"] if e["code"] == code]
                self.assertTrue(found, r.json)
                self.assertIn(found[0]["pointer"], pointers, r.json)
        after = (self.version(), self.rigd.get(f"/v1/shots/{S}/constraints").json)
        self.assertEqual(after, before, "nothing changed")
        self.put()  # the same op without the fault is taken: each refusal was its field's


if __name__ == "__main__":
    main()
