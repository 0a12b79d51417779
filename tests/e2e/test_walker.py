"""Walkers (issue 27 item 4) through the real server: `constraint.put` with `kind: "footstep"`,
whose feet stay planted until the body carries their rest targets too far, then step along a
parabolic arc, one gait group at a time, each foot placing the target layer of its leg's IK
constraint. The feet are compared with an independent simulation written here (state −1 planted
at frameStart, one step per frame, the arc lerp(F₀, T, t) + up·H·4t(1 − t) towards the rest
target where it is now, landing on it, feet in index order, a group waits while another moves,
fractional frames between steps); the legs' IK reaches the feet; same bits across calls, ranges
and restarts; REPLAY_LIMIT; listed, diffed, reverted; bad input refused at its pointer with
nothing changed.
"""
import math

from keys_ref import key_value
from rigd_harness import RigdTestCase, main

S = "w"
BODY_X = [(0, 0.0), (60, 180.0), (100, 180.0)]  # walks right, then stands
BODY_Y = [(0, 0.0), (30, 12.0), (60, 0.0)]
BODY_ROT = [(0, 0.0), (60, 20.0)]  # leans: the feet lift along the turned up
REST = [(-20.0, -25.0), (20.0, -25.0), (0.0, -25.0)]
THRESHOLD, STEP_FRAMES, HEIGHT = 14.0, 6, 9.0
FRAME_END = 200000


def body(frame):
    """The body's world matrix (a, b, c, d, e, f) at frame: T(x, y)·R(rot)."""
    th = math.radians(key_value(BODY_ROT, frame))
    c, s = math.cos(th), math.sin(th)
    return (c, s, -s, c, key_value(BODY_X, frame), key_value(BODY_Y, frame))


def rest_targets(frame, rest):
    a, b, c, d, e, f = body(frame)
    return [(a * x + c * y + e, b * x + d * y + f) for x, y in rest]


def up(frame):
    a, b, c, d, e, f = body(frame)
    n = math.hypot(c, d)
    return (c / n, d / n)


def simulate(frame, rest, groups, threshold=THRESHOLD, s=STEP_FRAMES, h=HEIGHT, start=0):
    """The feet at a shot frame, replayed here from the rules."""
    t = frame - start
    whole = 0 if t <= 0 else math.floor(t)
    frac = 0 if t <= 0 else t - whole
    feet = [{"at": p, "from": p, "began": None} for p in rest_targets(start, rest)]
    states = []
    for j in range(whole + (2 if frac else 1)):
        targets = rest_targets(start + j, rest)
        u = up(start + j)
        moving = {groups[i] for i, f in enumerate(feet) if f["began"] is not None}
        for i, f in enumerate(feet):
            if f["began"] is not None:
                continue
            drift = math.hypot(targets[i][0] - f["at"][0], targets[i][1] - f["at"][1])
            if drift > threshold and not (moving - {groups[i]}):
                f["began"], f["from"] = j, f["at"]
                moving.add(groups[i])
        for i, f in enumerate(feet):
            if f["began"] is None:
                continue
            m = j - f["began"] + 1
            if m >= s:
                f["at"], f["began"] = targets[i], None
                continue
            k = m / s
            lift = h * 4 * k * (1 - k)
            f["at"] = (f["from"][0] + (targets[i][0] - f["from"][0]) * k + u[0] * lift,
                       f["from"][1] + (targets[i][1] - f["from"][1]) * k + u[1] * lift)
        states.append([f["at"] for f in feet])
    if not frac:
        return states[whole]
    a, b = states[whole], states[whole + 1]
    return [(p[0] + (q[0] - p[0]) * frac, p[1] + (q[1] - p[1]) * frac) for p, q in zip(a, b)]


def rig_ops(n_feet):
    ops = [{"op": "layer.create", "layerId": "body", "name": "body", "kind": "group"}]
    for ch, keys in (("position.x", BODY_X), ("position.y", BODY_Y), ("rotation", BODY_ROT)):
        ops.append({"op": "layer.key.put", "layerId": "body", "channel": ch,
                    "keys": [{"frame": f, "value": v, "interp": "linear"} for f, v in keys]})
    for i in range(n_feet):
        ops += [{"op": "layer.create", "layerId": f"hip{i}", "name": f"hip{i}", "kind": "group",
                 "parentId": "body", "transform": {"position": [REST[i][0], 0.0]}},
                {"op": "layer.create", "layerId": f"knee{i}", "name": f"knee{i}",
                 "kind": "group", "parentId": f"hip{i}",
                 "transform": {"position": [0.0, -15.0], "rotation": -90}},
                {"op": "layer.create", "layerId": f"goal{i}", "name": f"goal{i}",
                 "kind": "group", "transform": {"position": [0.0, -40.0]}},
                {"op": "constraint.put", "constraintId": f"leg{i}",
                 "chain": [f"hip{i}", f"knee{i}"], "target": f"goal{i}", "tipLength": 15}]
    return ops


def walker_op(**fields):
    op = {"op": "constraint.put", "constraintId": "walk", "kind": "footstep", "body": "body",
          "feet": [{"ikConstraintId": f"leg{i}", "rest": list(REST[i])} for i in range(2)],
          "stepThreshold": THRESHOLD, "stepFrames": STEP_FRAMES, "stepHeight": HEIGHT}
    op.update(fields)
    return {k: v for k, v in op.items() if v is not None}


class WalkerCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", S, frameStart=0, frameEnd=FRAME_END)
        self.rigd.edit(S, rig_ops(3))

    def put(self, **fields):
        r = self.rigd.post(f"/v1/shots/{S}/edits", {"ops": [walker_op(**fields)]})
        self.assertEqual(r.status, 201, r)
        return r.json

    def points(self, frame, query=""):
        """{constraintId: points} of include=constraints at frame."""
        r = self.rigd.get(f"/v1/shots/{S}/frames/{frame}?include=constraints{query}")
        self.assertEqual(r.status, 200, r)
        return {c["constraintId"]: [tuple(p) for p in c["points"]]
                for c in r.json["constraints"]}

    def close(self, got, want, what, tol=1e-9):
        self.assertEqual(len(got), len(want), what)
        for k, (g, w) in enumerate(zip(got, want)):
            err = max(abs(g[0] - w[0]), abs(g[1] - w[1]))
            self.assertLess(err, tol, f"{what} foot {k}: got {g}, want {w}")


class Walking(WalkerCase):
    def test_feet_follow_the_simulation_and_the_legs_reach_them(self):
        self.put()
        groups = [0, 1]
        worst, reached = 0.0, 0
        for f in list(range(0, 101, 1)) + [7.5, 33.25]:
            want = simulate(f, REST[:2], groups)
            got = self.points(f)
            self.close(got["walk"], want, f"frame {f}")
            worst = max(worst, max(max(abs(g[0] - w[0]), abs(g[1] - w[1]))
                                   for g, w in zip(got["walk"], want)))
            for i in range(2):  # each leg's tip reaches its foot when in reach (30)
                hip, tip = got[f"leg{i}"][0], got[f"leg{i}"][-1]
                if math.dist(hip, got["walk"][i]) < 29.5:
                    self.assertLess(math.dist(tip, got["walk"][i]), 1e-6, (f, i))
                    reached += 1
        self.assertGreater(reached, 150, "most frames are in reach")
        print(f"\n  walker: largest |rigd − simulation| = {worst:.2e}; legs on their feet "
              f"in {reached} of {2 * 103} (foot, frame)s")

    def test_steps_alternate_arc_to_full_height_and_plant_between(self):
        self.put()
        moving_frames = {0: [], 1: []}
        prev = self.points(0)["walk"]
        for f in range(1, 101):
            now = self.points(f)["walk"]
            for i in range(2):
                if now[i] != prev[i]:
                    moving_frames[i].append(f)
            prev = now
        self.assertTrue(moving_frames[0] and moving_frames[1], moving_frames)
        # no frame where both feet move (each gait group of one foot)
        self.assertFalse(set(moving_frames[0]) & set(moving_frames[1]), moving_frames)
        # after the body stops (frame 60) the feet settle and then stay planted
        self.assertLess(max(moving_frames[0] + moving_frames[1]), 60 + 3 * STEP_FRAMES)
        # mid-step: a step of 6 frames is at t = 1/2 three frames in: lifted by HEIGHT
        first = moving_frames[0][0]
        mid = self.points(first + 2)["walk"][0]
        began = self.points(first - 1)["walk"][0]
        target = rest_targets(first + 2, REST[:2])[0]
        u = up(first + 2)
        want = ((began[0] + target[0]) / 2 + u[0] * HEIGHT,
                (began[1] + target[1]) / 2 + u[1] * HEIGHT)
        self.assertLess(math.dist(mid, want), 1e-9, (mid, want))

    def test_a_tripod_gait_moves_its_groups_together(self):
        r = self.rigd.post(f"/v1/shots/{S}/edits", {"ops": [walker_op(
            feet=[{"ikConstraintId": f"leg{i}", "rest": list(REST[i])} for i in range(3)],
            gait=[[0, 1], [2]])]})
        self.assertEqual(r.status, 201, r)
        for f in (5, 17, 29.5, 44, 80):
            self.close(self.points(f)["walk"], simulate(f, REST, [0, 0, 1]), f"frame {f}")

    def test_mix_zero_leaves_the_keyed_targets(self):
        self.put(mix=0)
        for f in (0, 20):
            self.close(self.points(f)["walk"], [(0.0, -40.0)] * 2, f"frame {f}")


class Replay(WalkerCase):
    def test_the_same_bits_every_time_in_ranges_and_after_a_restart(self):
        self.put()
        first = self.rigd.get(f"/v1/shots/{S}/frames/5000?include=constraints")
        self.assertEqual(first.status, 200, first)
        self.close([tuple(p) for p in first.json["constraints"][-1]["points"]],
                   simulate(5000, REST[:2], [0, 1]), "frame 5000")
        self.assertEqual(self.rigd.get(
            f"/v1/shots/{S}/frames/5000?include=constraints").body, first.body)
        self.rigd.stop()
        self.rigd.start()
        self.assertEqual(self.rigd.get(
            f"/v1/shots/{S}/frames/5000?include=constraints").body, first.body)

    def test_a_range_walks_on_to_the_same_bits_as_single_frames(self):
        self.put()
        # a marker mesh on the two goals: vertex 3k is goal k's origin
        src = [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}] * 2
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "probe", "name": "probe", "kind": "mesh"},
            {"op": "layer.skin", "layerId": "probe", "skin": {
                "source": src, "triangles": [[0, 1, 2], [3, 4, 5]],
                "weights": [[{"jointId": f"j{k // 3}", "weight": 1}] for k in range(6)],
                "joints": [{"id": f"j{k}", "bind": [1, 0, 0, 1, 0, 0]} for k in range(2)],
                "jointLayers": [{"jointId": f"j{k}", "layerId": f"goal{k}"}
                                for k in range(2)]}}])
        r = self.rigd.get(f"/v1/shots/{S}/layers/probe/frames?from=9998&to=10000&space=shot")
        self.assertEqual(r.status, 200, r)
        for fr in r.json["frames"]:
            one = self.rigd.get(f"/v1/shots/{S}/frames/{fr['frame']}?layers=probe&space=shot")
            self.assertEqual(fr["vertices"], one.json["layers"][0]["vertices"], fr["frame"])
        feet = simulate(10000, REST[:2], [0, 1])
        last = r.json["frames"][-1]["vertices"]
        self.close([tuple(last[0]), tuple(last[3])], feet, "frame 10000 markers")

    def test_the_replay_limit(self):
        self.put()
        self.assertEqual(self.rigd.get(
            f"/v1/shots/{S}/frames/100000?include=constraints").status, 200)
        body = self.assertProblem(self.rigd.get(
            f"/v1/shots/{S}/frames/100000.5?include=constraints"), 422, "REPLAY_LIMIT")
        self.assertIn("walk", {e.get("constraintId") for e in body.get("errors", [])}, body)


class Authoring(WalkerCase):
    def listed(self, query=""):
        r = self.rigd.get(f"/v1/shots/{S}/constraints{query}")
        self.assertEqual(r.status, 200, r)
        return {c["constraintId"]: c for c in r.json["constraints"]}["walk"]

    def test_listed_versioned_diffed_and_reverted(self):
        receipt = self.put()
        self.assertEqual(receipt["ops"][0]["layerId"], "body")
        self.assertEqual(sorted(receipt["changedLayers"]), ["goal0", "goal1"])
        first = {"constraintId": "walk", "kind": "footstep", "body": "body",
                 "feet": [{"ikConstraintId": "leg0", "rest": [-20, -25]},
                          {"ikConstraintId": "leg1", "rest": [20, -25]}],
                 "gait": [[0], [1]], "stepThreshold": THRESHOLD, "stepFrames": STEP_FRAMES,
                 "stepHeight": HEIGHT, "mix": 1, "order": 0}
        self.assertEqual(self.listed(), first)
        v1 = self.rigd.get(f"/v1/shots/{S}").json["version"]
        pose = self.points(30)
        second = self.put(stepHeight=2, gait=[[1, 0]])
        self.assertEqual((self.listed()["stepHeight"], self.listed()["gait"]), (2, [[0, 1]]))
        self.assertNotEqual(self.points(30), pose)
        self.assertEqual(self.listed(f"?version={v1}"), first)
        diff = self.rigd.get(f"/v1/shots/{S}/diff?from={v1}&to={v1 + 1}")
        self.assertEqual(diff.status, 200, diff)
        self.assertIn("walk", str(diff.json))
        undo = self.rigd.post(f"/v1/receipts/{second['receiptId']}/revert", {})
        self.assertEqual(undo.status, 201, undo)
        self.assertEqual(self.listed(), first)
        self.assertEqual(self.points(30), pose)

    def test_bad_input_is_refused_at_its_pointer_and_changes_nothing(self):
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "t0", "name": "t0", "kind": "group"},
            {"op": "layer.create", "layerId": "t1", "name": "t1", "kind": "group",
             "parentId": "t0", "transform": {"position": [15, 0]}},
            {"op": "constraint.put", "constraintId": "tail", "kind": "chain",
             "chain": ["t0", "t1"], "target": "goal2", "segmentLength": 15}])
        before = (self.rigd.get(f"/v1/shots/{S}").json["version"],
                  self.rigd.get(f"/v1/shots/{S}/constraints").json)
        P = "/ops/0/"
        foot0 = P + "feet/0/"
        cases = [
            ({"feet": []}, "OP_INVALID", P + "feet"),
            ({"feet": [{"ikConstraintId": "leg0", "rest": [0, 0]}] * 9}, "OP_INVALID",
             P + "feet"),
            ({"feet": [{"ikConstraintId": "leg0", "rest": [0]}]}, "OP_INVALID", foot0 + "rest"),
            ({"feet": [{"ikConstraintId": "leg0", "rest": [0, 0], "x": 1}]}, "OP_INVALID",
             foot0 + "x"),
            ({"feet": [{"ikConstraintId": "leg0", "rest": [0, 0]},
                       {"ikConstraintId": "leg0", "rest": [1, 0]}]}, "OP_INVALID",
             P + "feet/1/ikConstraintId"),
            ({"feet": [{"ikConstraintId": "nope", "rest": [0, 0]}]}, "CONSTRAINT_NOT_FOUND",
             foot0 + "ikConstraintId"),
            ({"feet": [{"ikConstraintId": "tail", "rest": [0, 0]}]}, "CONSTRAINT_NOT_FOUND",
             foot0 + "ikConstraintId"),
            ({"gait": [[0, 1], [1]]}, "OP_INVALID", P + "gait/1/0"),
            ({"gait": [[0]]}, "OP_INVALID", P + "gait"),
            ({"gait": [[0, 2]]}, "OP_INVALID", P + "gait/0/1"),
            ({"stepFrames": 0}, "OP_INVALID", P + "stepFrames"),
            ({"stepFrames": 1001}, "OP_INVALID", P + "stepFrames"),
            ({"stepThreshold": -1}, "OP_INVALID", P + "stepThreshold"),
            ({"stepHeight": None}, "OP_INVALID", P + "stepHeight"),
            ({"body": None}, "OP_INVALID", P + "body"),
            ({"body": "ghost"}, "IK_TARGET", P + "body"),
            ({"body": "t1"}, "IK_TARGET", P + "body"),  # moved by the chain 'tail'
            ({"chain": ["hip0"]}, "OP_INVALID", P + "chain"),
            ({"target": "goal0"}, "OP_INVALID", P + "target"),
            ({"tipLength": 3}, "OP_INVALID", P + "tipLength"),
            ({"substeps": 2}, "OP_INVALID", P + "substeps"),
        ]
        for fields, code, pointer in cases:
            with self.subTest(fields=fields):
                r = self.rigd.post(f"/v1/shots/{S}/edits", {"ops": [walker_op(**fields)]})
                self.assertEqual(r.status, 422, r)
                found = [e["pointer"] for e in r.json["errors"] if e["code"] == code]
                self.assertIn(pointer, found, r.json)
        # a second walker placing the same leg's target
        self.put()
        r = self.rigd.post(f"/v1/shots/{S}/edits", {"ops": [walker_op(constraintId="walk2")]})
        self.assertEqual(r.status, 422, r)
        self.assertIn(("IK_TARGET", P + "feet/0/ikConstraintId"),
                      [(e["code"], e["pointer"]) for e in r.json["errors"]], r.json)
        self.rigd.edit(S, [{"op": "constraint.delete", "constraintId": "walk"}])
        after = self.rigd.get(f"/v1/shots/{S}/constraints").json["constraints"]
        self.assertEqual(after, before[1]["constraints"], "nothing else changed")


if __name__ == "__main__":
    main()
