"""IK constraints end to end (issue 16): constraint.put / constraint.delete through the
real server and SQLite file, every IK_* error with its pointer, evaluated frames and ranges
and bind capture compared with an independent IK written here in Python (law of cosines,
FABRIK, the delta write-back), determinism bit for bit across two server processes, the
paged constraint list, and receipts, plans, idempotency and locks once each.
"""
import math
import struct

from rigd_harness import Rigd, RigdTestCase, main

S = "s1"
E = f"/v1/shots/{S}/edits"
C = f"/v1/shots/{S}/constraints"


# ---- an independent model of the rig: L = T(p)·R(θ)·S(s)·T(−pivot) -----------------

def local(t):
    th = math.radians(t["rot"])
    c, s = math.cos(th), math.sin(th)
    a, b, cc, d = c * t["sx"], s * t["sx"], -s * t["sy"], c * t["sy"]
    return [a, b, cc, d, t["px"] - (a * t["pvx"] + cc * t["pvy"]),
            t["py"] - (b * t["pvx"] + d * t["pvy"])]


def mul(A, B):
    a1, b1, c1, d1, e1, f1 = A
    a2, b2, c2, d2, e2, f2 = B
    return [a1 * a2 + c1 * b2, b1 * a2 + d1 * b2, a1 * c2 + c1 * d2, b1 * c2 + d1 * d2,
            a1 * e2 + c1 * f2 + e1, b1 * e2 + d1 * f2 + f1]


def apply(M, x, y):
    return (M[0] * x + M[2] * y + M[4], M[1] * x + M[3] * y + M[5])


def world(rig, lid):
    t = rig[lid]
    M = local(t)
    while t["parent"]:
        t = rig[t["parent"]]
        M = mul(local(t), M)
    return M


def origin(rig, lid):
    return apply(world(rig, lid), rig[lid]["pvx"], rig[lid]["pvy"])


def solve_two(p, target, bend, pole=None):
    (x0, y0), (x1, y1), (x2, y2) = p
    l1, l2 = math.hypot(x1 - x0, y1 - y0), math.hypot(x2 - x1, y2 - y1)
    tx, ty = target[0] - x0, target[1] - y0
    d = math.hypot(tx, ty)
    d = min(max(d, abs(l1 - l2) + 1e-6), l1 + l2 - 1e-6)
    if pole is not None:
        cross = tx * (pole[1] - y0) - ty * (pole[0] - x0)
        if cross != 0:
            bend = -1 if cross > 0 else 1
    alpha = math.acos(max(-1, min(1, (l1 * l1 + d * d - l2 * l2) / (2 * l1 * d))))
    beta = math.acos(max(-1, min(1, (l1 * l1 + l2 * l2 - d * d) / (2 * l1 * l2))))
    t1 = math.atan2(ty, tx) - bend * alpha
    t2 = t1 + bend * (math.pi - beta)
    e = (x0 + l1 * math.cos(t1), y0 + l1 * math.sin(t1))
    return [p[0], e, (e[0] + l2 * math.cos(t2), e[1] + l2 * math.sin(t2))]


def unit(x, y):
    n = math.hypot(x, y)
    return (1.0, 0.0) if n <= 1e-12 else (x / n, y / n)


def solve_fabrik(p, target):
    p = [tuple(q) for q in p]
    n = len(p) - 1
    lens = [math.hypot(p[i + 1][0] - p[i][0], p[i + 1][1] - p[i][1]) for i in range(n)]
    base = p[0]
    d = math.hypot(target[0] - base[0], target[1] - base[1])
    if d > sum(lens):
        u = unit(target[0] - base[0], target[1] - base[1])
        for i in range(n):
            p[i + 1] = (p[i][0] + u[0] * lens[i], p[i][1] + u[1] * lens[i])
        return p
    for _ in range(12):
        if math.hypot(p[n][0] - target[0], p[n][1] - target[1]) <= 0.25:
            break
        p[n] = tuple(target)
        for k in range(n - 1, -1, -1):
            u = unit(p[k][0] - p[k + 1][0], p[k][1] - p[k + 1][1])
            p[k] = (p[k + 1][0] + u[0] * lens[k], p[k + 1][1] + u[1] * lens[k])
        p[0] = base
        for k in range(n):
            u = unit(p[k + 1][0] - p[k][0], p[k + 1][1] - p[k][1])
            p[k + 1] = (p[k][0] + u[0] * lens[k], p[k][1] + u[1] * lens[k])
    return p


def chain_points(rig, chain, tip_length):
    pts = [origin(rig, lid) for lid in chain]
    tip = rig[chain[-1]]
    pts.append(apply(world(rig, chain[-1]), tip["pvx"] + tip_length, tip["pvy"]))
    return pts


def write_back(rig, chain, fk, solved, mix=1.0):
    prev = 0.0
    for i, lid in enumerate(chain):
        a = math.atan2(fk[i + 1][1] - fk[i][1], fk[i + 1][0] - fk[i][0])
        b = math.atan2(solved[i + 1][1] - solved[i][1], solved[i + 1][0] - solved[i][0])
        t = b - a
        if t > math.pi:
            t -= 2 * math.pi
        elif t <= -math.pi:
            t += 2 * math.pi
        w = mix * math.degrees(t)
        rig[lid]["rot"] += w - prev
        prev = w


def layer(lid, parent=None, px=0.0, py=0.0, rot=0.0, sx=1.0, sy=1.0):
    return {"id": lid, "parent": parent, "px": px, "py": py, "rot": rot, "sx": sx, "sy": sy,
            "pvx": 0.0, "pvy": 0.0}


def create_ops(rig):
    ops = []
    for t in rig.values():
        ops.append({"op": "layer.create", "layerId": t["id"], "name": t["id"], "kind": "group",
                    "parentId": t["parent"],
                    "transform": {"position": [t["px"], t["py"]], "rotation": t["rot"],
                                  "scale": [t["sx"], t["sy"]]}})
    return ops


def probe_skin(joint_layers):
    """A mesh with one triangle per joint, each weighted wholly to its joint: with
    identity binds, vertex 3k is joint k's world origin and 3k+1 its world +x point."""
    src, tris, weights = [], [], []
    for k, _ in enumerate(joint_layers):
        src += [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}]
        tris.append([3 * k, 3 * k + 1, 3 * k + 2])
        weights += [[{"jointId": f"j{k}", "weight": 1}]] * 3
    return {"source": src, "triangles": tris,
            "joints": [{"id": f"j{k}", "bind": [1, 0, 0, 1, 0, 0]}
                       for k in range(len(joint_layers))],
            "weights": weights,
            "jointLayers": [{"jointId": f"j{k}", "layerId": lid}
                            for k, lid in enumerate(joint_layers)]}


def arm_rig():
    """A two-bone arm under a rotated, offset root; the elbow sits off the upper arm's
    +x axis; target and pole at the shot root."""
    rig = {}
    for t in [layer("root", None, 10, 5, 30), layer("upper", "root", 1, 0, 10),
              layer("lower", "upper", 3, 1, -20), layer("target", None, 12, 8),
              layer("pole", None, 0, 20)]:
        rig[t["id"]] = t
    return rig


def tentacle_rig():
    rig = {"base": layer("base", None, 2, 1, 15)}
    prev = "base"
    for k in range(1, 6):
        rig[f"t{k}"] = layer(f"t{k}", prev, 2.0, 0.3 * k, 5)
        prev = f"t{k}"
    rig["goal"] = layer("goal", None, 4, 8)
    return rig


ARM = {"op": "constraint.put", "constraintId": "arm", "kind": "ik", "chain": ["upper", "lower"],
       "target": "target", "tipLength": 2, "bendPositive": True}


class ConstraintCase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", S, frameStart=0, frameEnd=10)

    def build(self, rig, probe_layers, extra_ops=()):
        ops = create_ops(rig)
        ops.append({"op": "layer.create", "layerId": "probe", "name": "probe", "kind": "mesh"})
        ops.append({"op": "layer.skin", "layerId": "probe", "skin": probe_skin(probe_layers)})
        ops += list(extra_ops)
        return self.rigd.edit(S, ops)

    def vertices(self, frame=0):
        r = self.rigd.get(f"/v1/shots/{S}/frames/{frame}?layers=probe")
        self.assertEqual(r.status, 200, r)
        return r.json["layers"][0]["vertices"]

    def assertClose(self, got, want, tol=1e-9, what=""):
        self.assertLess(math.hypot(got[0] - want[0], got[1] - want[1]), tol,
                        f"{what}: got {got}, want {want}")

    def test_past_versions_read_the_constraints_they_had(self):
        # versions: none, put, changed bend, an unrelated rename, deleted; each read back
        # at its version must pose the probe as it did right after its edit
        self.build(arm_rig(), ["upper", "lower"])
        edits = [[ARM], [dict(ARM, bendPositive=False)],
                 [{"op": "layer.rename", "layerId": "pole", "name": "p"}],
                 [{"op": "constraint.delete", "constraintId": "arm"}]]
        seen = [(self.rigd.get(f"/v1/shots/{S}").json["version"], self.vertices())]
        for ops in edits:
            self.rigd.edit(S, ops)
            seen.append((self.rigd.get(f"/v1/shots/{S}").json["version"], self.vertices()))
        poses = [v for _, v in seen]
        self.assertNotEqual(poses[1], poses[0])
        self.assertNotEqual(poses[2], poses[1])
        self.assertEqual(poses[3], poses[2])
        self.assertEqual(poses[4], poses[0])
        for version, want in seen:
            r = self.rigd.get(f"/v1/shots/{S}/frames/0?layers=probe&version={version}")
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.json["layers"][0]["vertices"], want, f"version {version}")

    # ---- evaluation against the independent IK ------------------------------------

    def test_two_bone_frame_matches_independent_ik_exactly(self):
        rig = arm_rig()
        self.build(rig, ["upper", "lower"], [ARM])
        fk = chain_points(rig, ["upper", "lower"], 2)
        target = origin(rig, "target")
        solved = solve_two(fk, target, 1)
        write_back(rig, ["upper", "lower"], fk, solved)
        v = self.vertices()
        self.assertClose(v[0], origin(rig, "upper"), what="root pinned")
        self.assertClose(v[3], solved[1], what="elbow")
        tip = apply(world(rig, "lower"), 2, 0)
        self.assertClose(tip, target, 1e-9, "python effector reaches the target")
        # vertex 4 is lower's +x unit point: the effector is 2 units along it
        eff = (v[3][0] + 2 * (v[4][0] - v[3][0]), v[3][1] + 2 * (v[4][1] - v[3][1]))
        self.assertClose(eff, target, 1e-9, "effector")
        # bone lengths preserved: |upper→lower| as in FK, tip 2
        self.assertAlmostEqual(math.dist(v[0], v[3]), math.dist(fk[0], fk[1]), places=9)

    def test_pole_and_bend_choose_the_elbow_side(self):
        rig = arm_rig()
        self.build(rig, ["upper", "lower"], [ARM])
        o = origin(rig, "upper")
        t = origin(rig, "target")

        def side(p):
            return (t[0] - o[0]) * (p[1] - o[1]) - (t[1] - o[1]) * (p[0] - o[0])
        elbow_pos = self.vertices()[3]
        self.rigd.edit(S, [dict(ARM, bendPositive=False)])
        elbow_neg = self.vertices()[3]
        self.assertLess(side(elbow_pos) * side(elbow_neg), 0, "bendPositive flips the side")
        for pole in ([0, 20], [30, -20]):
            self.rigd.edit(S, [{"op": "layer.pose", "layerId": "pole",
                                "transform": {"position": pole}},
                               dict(ARM, pole="pole", bendPositive=False)])
            elbow = self.vertices()[3]
            self.assertGreater(side(elbow) * side(pole), 0, f"pole {pole}")

    def test_fabrik_range_matches_independent_fabrik(self):
        rig = tentacle_rig()
        chain = ["t1", "t2", "t3", "t4", "t5"]
        goal_keys = [{"frame": 0, "value": 4}, {"frame": 4, "value": -3}]
        self.build(rig, chain, [
            {"op": "layer.key.put", "layerId": "goal", "channel": "position.x",
             "keys": goal_keys},
            {"op": "constraint.put", "constraintId": "tentacle", "chain": chain,
             "target": "goal", "tipLength": 1.5}])
        r = self.rigd.get(f"/v1/shots/{S}/layers/probe/frames?from=0&to=4&step=2")
        self.assertEqual(r.status, 200, r)
        for fr in r.json["frames"]:
            f = fr["frame"]
            want_rig = {k: dict(v) for k, v in rig.items()}
            want_rig["goal"]["px"] = 4 + (-3 - 4) * f / 4
            fk = chain_points(want_rig, chain, 1.5)
            solved = solve_fabrik(fk, origin(want_rig, "goal"))
            v = fr["vertices"]
            for k in range(5):
                self.assertClose(v[3 * k], solved[k], 1e-9, f"frame {f} joint {k}")
                self.assertAlmostEqual(math.dist(v[3 * k], v[3 * k + 3]) if k < 4 else 0,
                                       math.dist(fk[k], fk[k + 1]) if k < 4 else 0, places=9)
            write_back(want_rig, chain, fk, solved)
            eff = apply(world(want_rig, "t5"), 1.5, 0)
            self.assertLessEqual(math.dist(eff, origin(want_rig, "goal")), 0.25 + 1e-9)

    def test_unreachable_extends_and_stretch_reaches(self):
        rig = arm_rig()
        rig["target"]["px"], rig["target"]["py"] = 40, 30
        self.build(rig, ["upper", "lower"], [ARM])
        o = origin(rig, "upper")
        t = origin(rig, "target")
        u = unit(t[0] - o[0], t[1] - o[1])
        v = self.vertices()
        elbow = v[3]
        d = math.dist(o, elbow)
        self.assertLess(abs((elbow[0] - o[0]) / d - u[0]), 1e-3)
        self.assertLess(abs((elbow[1] - o[1]) / d - u[1]), 1e-3)
        # stretch: one bone aimed with stretch lands on the target exactly
        self.rigd.edit(S, [{"op": "constraint.put", "constraintId": "arm", "chain": ["lower"],
                            "target": "target", "tipLength": 2, "stretch": True}])
        v = self.vertices()
        w = (v[4][0] - v[3][0], v[4][1] - v[3][1])  # lower's +x axis, scaled
        eff = (v[3][0] + 2 * w[0], v[3][1] + 2 * w[1])
        self.assertClose(eff, t, 1e-9, "stretched aim")

    def test_stretch_is_exact_when_no_bone_lies_on_its_layers_x_axis(self):
        # the elbow sits straight "up" the upper arm (0, 3), the tentacle's links are
        # oblique: the stretched chains still run straight onto far targets
        for name, rig, chain, tip in [
                ("arm", arm_rig(), ["upper", "lower"], 2),
                ("tentacle", tentacle_rig(), ["t1", "t2", "t3", "t4", "t5"], 1.5)]:
            with self.subTest(name):
                if name == "arm":
                    rig["lower"]["px"], rig["lower"]["py"] = 0, 3
                    goal = "target"
                else:
                    goal = "goal"
                rig[goal]["px"], rig[goal]["py"] = -30, 45
                self.rigd.make_shot("p1", name, frameStart=0, frameEnd=10)
                ops = create_ops(rig) + [
                    {"op": "layer.create", "layerId": "probe", "name": "probe",
                     "kind": "mesh"},
                    {"op": "layer.skin", "layerId": "probe", "skin": probe_skin(chain)},
                    {"op": "constraint.put", "constraintId": "c", "chain": chain,
                     "target": goal, "tipLength": tip, "stretch": True}]
                self.rigd.edit(name, ops)
                v = self.rigd.get(f"/v1/shots/{name}/frames/0?layers=probe").json[
                    "layers"][0]["vertices"]
                fk = chain_points(rig, chain, tip)
                t = origin(rig, goal)
                lens = [math.dist(fk[i], fk[i + 1]) for i in range(len(chain))]
                d = math.dist(fk[0], t)
                self.assertGreater(d, sum(lens))
                u = unit(t[0] - fk[0][0], t[1] - fk[0][1])
                k = d / sum(lens)
                along = 0.0
                for i in range(len(chain)):
                    want = (fk[0][0] + u[0] * along * k, fk[0][1] + u[1] * along * k)
                    self.assertClose(v[3 * i], want, 1e-9, f"{name} joint {i}")
                    along += lens[i]
                n = 3 * (len(chain) - 1)  # the tip layer's origin and +x point
                eff = (v[n][0] + tip * (v[n + 1][0] - v[n][0]),
                       v[n][1] + tip * (v[n + 1][1] - v[n][1]))
                self.assertClose(eff, t, 1e-9, f"{name} effector")

    def test_two_bones_reach_exactly_under_a_sheared_ancestor(self):
        # root scales (2, 0.5), "mid" turns 40° under it: the arm's parent frame is
        # sheared. The chain is solved in that frame with the scale taken out; here
        # the same is done independently: Q = P⁻¹·(x − root)·√|det P|.
        rig = arm_rig()
        rig["root"]["sx"], rig["root"]["sy"] = 2.0, 0.5
        rig = {"root": rig["root"], "mid": layer("mid", "root", 0.5, 0.5, 40),
               **{k: v for k, v in rig.items() if k != "root"}}
        rig["upper"]["parent"] = "mid"
        P = world(rig, "mid")
        det = P[0] * P[3] - P[1] * P[2]
        sq = math.sqrt(abs(det))

        def to_q(x, o):
            dx, dy = x[0] - o[0], x[1] - o[1]
            return ((P[3] * dx - P[2] * dy) / det * sq, (P[0] * dy - P[1] * dx) / det * sq)

        def to_w(q, o):
            return (o[0] + (P[0] * q[0] + P[2] * q[1]) / sq,
                    o[1] + (P[1] * q[0] + P[3] * q[1]) / sq)

        fk = chain_points(rig, ["upper", "lower"], 2)
        o = fk[0]
        fq = [to_q(x, o) for x in fk]
        l0, l1 = math.dist(fq[0], fq[1]), math.dist(fq[1], fq[2])
        mid = (abs(l0 - l1) + l0 + l1) / 2
        a = math.atan2(fq[2][1], fq[2][0]) + 0.7
        tq = (mid * math.cos(a), mid * math.sin(a))
        t = to_w(tq, o)
        rig["target"]["px"], rig["target"]["py"] = t
        self.build(rig, ["upper", "lower"], [ARM])
        v = self.vertices()
        solved = solve_two(fq, tq, 1)
        self.assertClose(v[0], o, 1e-9, "root pinned")
        self.assertClose(v[3], to_w(solved[1], o), 1e-9, "elbow")
        eff = (v[3][0] + 2 * (v[4][0] - v[3][0]), v[3][1] + 2 * (v[4][1] - v[3][1]))
        self.assertClose(eff, t, 1e-9, "effector")
        # the old delta write-back (world angles) would miss here: the shear matters
        old = {k: dict(x) for k, x in rig.items()}
        write_back(old, ["upper", "lower"], fk, solve_two(fk, t, 1))
        self.assertGreater(math.dist(apply(world(old, "lower"), 2, 0), t), 1e-3)

    def test_mix_keys_blend_with_forward_kinematics(self):
        rig = arm_rig()
        self.build(rig, ["upper", "lower"], [dict(ARM, mix=[{"frame": 0, "value": 0},
                                                           {"frame": 10, "value": 1}])])
        fk_rig = {k: dict(v) for k, v in rig.items()}
        v0 = self.vertices(0)
        self.assertClose(v0[3], origin(fk_rig, "lower"), 1e-12, "mix 0 is FK")
        fk = chain_points(rig, ["upper", "lower"], 2)
        solved = solve_two(fk, origin(rig, "target"), 1)
        half = {k: dict(v) for k, v in rig.items()}
        write_back(half, ["upper", "lower"], fk, solved, 0.5)
        self.assertClose(self.vertices(5)[3], origin(half, "lower"), 1e-9, "mix 0.5")
        self.assertClose(self.vertices(10)[3], solved[1], 1e-9, "mix 1")

    def test_bind_capture_sees_the_constrained_pose(self):
        rig = arm_rig()
        self.build(rig, ["upper", "lower"], [ARM])
        self.rigd.edit(S, [{"op": "layer.skin.bind.capture", "layerId": "probe", "frame": 0}])
        fk = chain_points(rig, ["upper", "lower"], 2)
        write_back(rig, ["upper", "lower"], fk, solve_two(fk, origin(rig, "target"), 1))
        r = self.rigd.get(f"/v1/shots/{S}/layers/probe/mesh-data/joints")
        binds = {j["layerId"]: j["bind"] for j in r.json["items"]}
        for lid in ("upper", "lower"):
            for got, want in zip(binds[lid], world(rig, lid)):
                self.assertAlmostEqual(got, want, places=9, msg=lid)

    def test_check_frames_map_points_and_mesh_data_see_the_constrained_pose(self):
        rig = {"upper": layer("upper"), "lower": layer("lower", "upper", 4, 0),
               "target": layer("target", None, 4, 2)}
        ops = create_ops(rig)
        fk = chain_points(rig, ["upper", "lower"], 2)
        o, e, eff = solve_two(fk, origin(rig, "target"), 1)
        mid = ((e[0] + eff[0]) / 2, (e[1] + eff[1]) / 2)
        nx, ny = unit(-(eff[1] - e[1]), eff[0] - e[0])
        # A on the upper bone, B and C across the lower one: folding the elbow flips it
        src = [{"x": (o[0] + e[0]) / 2, "y": (o[1] + e[1]) / 2},
               {"x": mid[0] - 0.3 * nx, "y": mid[1] - 0.3 * ny},
               {"x": mid[0] + 0.3 * nx, "y": mid[1] + 0.3 * ny}]
        skin = {"source": src, "triangles": [[0, 1, 2]],
                "joints": [{"id": "u", "bind": [1, 0, 0, 1, 0, 0]},
                           {"id": "l", "bind": [1, 0, 0, 1, 0, 0]}],
                "weights": [[{"jointId": "u", "weight": 1}], [{"jointId": "l", "weight": 1}],
                            [{"jointId": "l", "weight": 1}]],
                "jointLayers": [{"jointId": "u", "layerId": "upper"},
                                {"jointId": "l", "layerId": "lower"}]}
        self.rigd.edit(S, ops + [
            {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"},
            {"op": "layer.skin", "layerId": "m", "skin": skin},
            dict(ARM, target="target"),
            {"op": "layer.skin.bind.capture", "layerId": "m", "frame": 0}])
        # at the capture pose every skin matrix is the identity
        r = self.rigd.get(f"/v1/shots/{S}/layers/m/mesh-data/vertices?frame=0")
        self.assertEqual(r.status, 200, r)
        for got, want in zip(r.json["items"], src):
            self.assertClose((got["x"], got["y"]), (want["x"], want["y"]), 1e-9, "mesh-data")
        r = self.rigd.post(f"/v1/shots/{S}/layers/m/map-points",
                           {"frame": 0, "points": [[src[0]["x"], src[0]["y"]]]})
        self.assertEqual(r.status, 200, r)
        self.assertClose(r.json["points"][0], (src[0]["x"], src[0]["y"]), 1e-9, "map-points")
        # moving only the target folds the elbow (target inside the annulus hole):
        # checkFrames evaluates the mesh although no op touched it or its joints
        fold = [{"op": "layer.pose", "layerId": "target", "transform": {"position": [0.5, 0]}}]
        r = self.rigd.post(E, {"ops": fold, "checkFrames": {"from": 0, "to": 0}})
        self.assertEqual(r.status, 422, r)
        self.assertIn(r.json["errors"][0]["code"], ("MESH_WINDING", "MESH_COLLAPSED"))
        self.assertEqual(r.json["errors"][0]["pointer"], "/ops/0")
        self.rigd.edit(S, fold)  # without the check it applies, and evaluation refuses
        r = self.rigd.get(f"/v1/shots/{S}/frames/0?layers=m")
        self.assertIn(r.json["code"], ("MESH_WINDING", "MESH_COLLAPSED"))

    def test_frames_are_bit_identical_across_two_server_processes(self):
        rig = tentacle_rig()
        chain = ["t1", "t2", "t3", "t4", "t5"]
        self.build(rig, chain, [{"op": "constraint.put", "constraintId": "t", "chain": chain,
                                 "target": "goal", "tipLength": 1.5, "softness": 0.5}])
        path = f"/v1/shots/{S}/layers/probe/frames?from=0&to=3&step=0.5&format=f32"
        first = self.rigd.get(path)
        self.assertEqual(first.status, 200, first)
        db = self.rigd.db_path
        self.rigd.stop()
        with Rigd(db_path=db).start() as other:
            second = other.get(path)
        self.assertEqual(first.body, second.body)
        self.assertEqual(first.body[:4], b"RIGF")
        struct.unpack_from("<4sIII", first.body)

    # ---- ops, list, errors ------------------------------------------------------------

    def test_put_list_and_delete(self):
        rig = arm_rig()
        r = self.build(rig, ["upper", "lower"], [dict(ARM, pole="pole", softness=0.25,
                                                      order=3)])
        receipt = r.json["receipt"] if "receipt" in r.json else r.json
        ops = receipt["ops"]
        self.assertEqual(ops[-1]["op"], "constraint.put")
        self.assertEqual(ops[-1]["layerId"], "upper")
        lst = self.rigd.get(C)
        self.assertEqual(lst.status, 200, lst)
        c = lst.json["constraints"][0]
        self.assertEqual(c["chain"], ["upper", "lower"])
        self.assertEqual((c["pole"], c["softness"], c["order"], c["mix"], c["tipLength"]),
                         ("pole", 0.25, 3, 1.0, 2.0))
        for k in range(3):  # chains of their own: overlapping chains are a cycle
            self.rigd.edit(S, [{"op": "layer.create", "layerId": f"x{k}", "name": "x",
                                "kind": "group"},
                               dict(ARM, constraintId=f"c{k}", chain=[f"x{k}"])])
        page = self.rigd.get(C + "?pageSize=2")
        self.assertEqual([c["constraintId"] for c in page.json["constraints"]], ["arm", "c0"])
        # a page's ETag names the version and the query: 304 for the same, not for another
        tag = page.header("ETag")
        self.assertEqual(self.rigd.get(C + "?pageSize=2",
                                       headers={"If-None-Match": tag}).status, 304)
        other = self.rigd.get(C + "?pageSize=3", headers={"If-None-Match": tag})
        self.assertEqual(other.status, 200)
        self.assertNotEqual(other.header("ETag"), tag)
        nxt = self.rigd.get(C + "?pageSize=2&pageToken=" + page.json["nextPageToken"])
        self.assertEqual([c["constraintId"] for c in nxt.json["constraints"]], ["c1", "c2"])
        self.assertNotIn("nextPageToken", nxt.json)
        before = self.rigd.get(f"/v1/shots/{S}").json["version"]
        self.rigd.edit(S, [{"op": "constraint.delete", "constraintId": "c0"}])
        # the token reads the version it was issued at (issue 15): the page is as it was
        kept = self.rigd.get(C + "?pageSize=2&pageToken=" + page.json["nextPageToken"])
        self.assertEqual(kept.status, 200, kept)
        self.assertEqual(kept.json["shotVersion"], before)
        self.assertEqual([c["constraintId"] for c in kept.json["constraints"]], ["c1", "c2"])
        # ?version reads a past list; a token is refused with another ?version
        past = self.rigd.get(C + f"?version={before}")
        self.assertEqual([c["constraintId"] for c in past.json["constraints"]],
                         ["arm", "c0", "c1", "c2"])
        self.assertProblem(self.rigd.get(C + f"?version={before}&pageSize=2&pageToken=" +
                                         page.json["nextPageToken"]), 400,
                           "PAGE_TOKEN_INVALID")
        self.assertEqual([c["constraintId"] for c in self.rigd.get(C).json["constraints"]],
                         ["arm", "c1", "c2"])
        body = self.assertProblem(
            self.rigd.post(E, {"ops": [{"op": "constraint.delete", "constraintId": "c0"}]}),
            422, "CONSTRAINT_NOT_FOUND")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/constraintId")

    def test_shot_get_lists_constraints_in_order_at_each_version(self):
        self.build(arm_rig(), ["upper", "lower"])
        shot = f"/v1/shots/{S}"
        empty = self.rigd.get(shot)
        self.assertEqual(empty.json["constraints"], [])
        v0 = empty.json["version"]
        for k, order in [(0, 5), (1, -2), (2, 5)]:
            self.rigd.edit(S, [{"op": "layer.create", "layerId": f"x{k}", "name": "x",
                                "kind": "group"},
                               dict(ARM, constraintId=f"c{k}", chain=[f"x{k}"], order=order,
                                    mix=[{"frame": 0, "value": 0.5}])])
        self.rigd.edit(S, [dict(ARM, constraintId="arm", pole="pole", order=1)])
        head = self.rigd.get(shot)
        self.assertEqual(head.status, 200, head)
        # in the order they apply: order ascending, ties by id
        self.assertEqual([c["constraintId"] for c in head.json["constraints"]],
                         ["c1", "arm", "c0", "c2"])
        listed = {c["constraintId"]: c for c in self.rigd.get(C).json["constraints"]}
        for c in head.json["constraints"]:
            self.assertEqual(c, listed[c["constraintId"]], "same shape as the list")
        self.assertEqual(head.json["constraints"][0]["mix"],
                         [{"frame": 0.0, "value": 0.5, "interp": "linear"}])
        # the ETag names the version: 304 until an edit, then the new list
        tag = head.header("ETag")
        self.assertEqual(self.rigd.get(shot, headers={"If-None-Match": tag}).status, 304)
        self.rigd.edit(S, [{"op": "constraint.delete", "constraintId": "c0"}])
        now = self.rigd.get(shot, headers={"If-None-Match": tag})
        self.assertEqual(now.status, 200)
        self.assertEqual([c["constraintId"] for c in now.json["constraints"]],
                         ["c1", "arm", "c2"])
        # ?version reads the constraints the shot had then
        past = self.rigd.get(f"{shot}?version={head.json['version']}")
        self.assertEqual([c["constraintId"] for c in past.json["constraints"]],
                         ["c1", "arm", "c0", "c2"])
        self.assertEqual(self.rigd.get(f"{shot}?version={v0}").json["constraints"], [])

    def first_error(self, ops, code):
        """The first error of code in a rejected batch (a deleted joint layer also
        breaks the probe's skin, reported beside it)."""
        r = self.rigd.post(E, {"ops": ops})
        self.assertEqual(r.status, 422, r)
        found = [e for e in r.json["errors"] if e["code"] == code]
        self.assertTrue(found, r.json)
        return found[0]

    def test_every_ik_error_names_its_pointer_and_ids(self):
        rig = arm_rig()
        self.build(rig, ["upper", "lower"])
        before = self.rigd.get(f"/v1/shots/{S}").json["version"]
        e = self.first_error([dict(ARM, chain=["upper"] * 9)], "IK_CHAIN")
        self.assertEqual(e["pointer"], "/ops/0/chain")
        e = self.first_error([dict(ARM, chain=[])], "IK_CHAIN")
        self.assertEqual(e["pointer"], "/ops/0/chain")
        e = self.first_error([dict(ARM, chain=["upper", "root"])], "IK_CHAIN")
        self.assertEqual((e["pointer"], e["layerId"], e["constraintId"]),
                         ("/ops/0/chain/1", "root", "arm"))
        e = self.first_error([dict(ARM, chain=["upper", "ghost"])], "IK_CHAIN")
        self.assertEqual((e["pointer"], e["layerId"]), ("/ops/0/chain/1", "ghost"))
        e = self.first_error([dict(ARM, chain=["upper", "probe"])], "IK_CHAIN")
        self.assertEqual(e["layerId"], "probe")
        # a later op of the same batch deletes a chain layer
        e = self.first_error([ARM, {"op": "layer.delete", "layerId": "lower"}], "IK_CHAIN")
        self.assertEqual((e["pointer"], e["layerId"]), ("/ops/0/chain/1", "lower"))
        e = self.first_error([dict(ARM, target="lower")], "IK_TARGET")
        self.assertEqual((e["pointer"], e["layerId"]), ("/ops/0/target", "lower"))
        e = self.first_error([dict(ARM, pole="upper")], "IK_TARGET")
        self.assertEqual(e["pointer"], "/ops/0/pole")
        e = self.first_error([dict(ARM, target="nowhere")], "IK_TARGET")
        self.assertEqual(e["layerId"], "nowhere")
        # overlapping chains depend on each other
        e = self.first_error([ARM, dict(ARM, constraintId="fore", chain=["lower"])], "IK_CYCLE")
        self.assertEqual({e["constraintId"], e["otherConstraintId"]}, {"arm", "fore"})
        # two constraints whose targets sit under each other's chains
        e = self.first_error([
            {"op": "layer.create", "layerId": "leg", "name": "leg", "kind": "group"},
            {"op": "layer.create", "layerId": "foot", "name": "foot", "kind": "group",
             "parentId": "leg"},
            dict(ARM, target="foot"),
            {"op": "constraint.put", "constraintId": "legik", "chain": ["leg"],
             "target": "lower", "tipLength": 1}], "IK_CYCLE")
        self.assertIn(e["constraintId"], ("arm", "legik"))
        self.assertIn(e["otherConstraintId"], ("arm", "legik"))
        self.assertTrue(e["pointer"].startswith("/ops/"), e)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}").json["version"], before)
        self.assertEqual(self.rigd.get(C).json["constraints"], [])
        # a stored constraint broken by a later batch's delete points at that delete
        self.rigd.edit(S, [ARM])
        e = self.first_error([{"op": "layer.delete", "layerId": "lower"}], "IK_CHAIN")
        self.assertEqual((e["pointer"], e["layerId"]), ("/ops/0", "lower"))
        e = self.first_error([dict(ARM, tipLength=0)], "OP_INVALID")
        self.assertEqual(e["pointer"], "/ops/0/tipLength")
        e = self.first_error([dict(ARM, mix=1.5)], "OP_INVALID")
        self.assertEqual(e["pointer"], "/ops/0/mix")

    def test_plans_idempotency_and_locks(self):
        rig = arm_rig()
        self.build(rig, ["upper", "lower"])
        # plan: validate previews, apply stores the constraint
        r = self.rigd.post(f"/v1/shots/{S}/plans", {"planId": "ik", "ops": [ARM]})
        self.assertEqual(r.status, 201, r)
        v = self.rigd.post("/v1/plans/ik/validate")
        self.assertEqual(v.status, 200, v)
        self.assertEqual(self.rigd.get(C).json["constraints"], [])
        a = self.rigd.post("/v1/plans/ik/apply", {"planVersion": r.json["planVersion"]})
        self.assertEqual(a.status, 201, a)
        self.assertEqual(len(self.rigd.get(C).json["constraints"]), 1)
        # idempotency: a replay applies nothing
        key = {"Idempotency-Key": "ik-put-1"}
        op = dict(ARM, constraintId="again", chain=["extra"])
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "extra", "name": "extra",
                            "kind": "group"}])
        first = self.rigd.post(E, {"ops": [op]}, headers=key)
        self.assertEqual(first.status, 201, first)
        version = self.rigd.get(f"/v1/shots/{S}").json["version"]
        replay = self.rigd.post(E, {"ops": [op]}, headers=key)
        self.assertEqual(replay.header("Idempotency-Replayed"), "true")
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}").json["version"], version)
        # locks: bob holds 'lower'; alice cannot put or delete a constraint moving it
        r = self.rigd.post(f"/v1/shots/{S}/locks", {"layerIds": ["lower"], "ttlSeconds": 30},
                           headers={"X-Rigd-Actor": "bob"})
        self.assertEqual(r.status, 201, r)
        alice = {"X-Rigd-Actor": "alice"}
        body = self.assertProblem(self.rigd.post(E, {"ops": [dict(ARM, order=2)]},
                                                 headers=alice), 423, "LAYER_LOCKED")
        self.assertEqual((body["errors"][0]["layerId"], body["errors"][0]["pointer"]),
                         ("lower", "/ops/0/chain/1"))
        self.assertProblem(self.rigd.post(E, {"ops": [{"op": "constraint.delete",
                                                      "constraintId": "arm"}]},
                                          headers=alice), 423, "LAYER_LOCKED")
        bob = self.rigd.post(E, {"ops": [dict(ARM, order=2)]},
                             headers={"X-Rigd-Actor": "bob"})
        self.assertEqual(bob.status, 201, bob)


if __name__ == "__main__":
    main()
