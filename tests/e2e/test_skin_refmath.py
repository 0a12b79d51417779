"""Independent reference math for the skin / frame end-to-end tests, plus its own
self-checks against hand-computed values (no server involved here).

Everything below is written from SPEC.md §1-§4 directly, never by calling rigd:
  matrices [a, b, c, d, e, f] with x' = a·x + c·y + e, y' = b·x + d·y + f, A·B applies B first;
  local matrix L = T(position)·R(rotation°)·S(scale)·T(−pivot);
  keys linear / hold, clamped outside their range, evaluated at shotFrame − timeOffset;
  pose_j = inverse(P(C→M))·P(C→J), C = lowest common ancestor (None = shot root);
  linear blend skinning v' = Σ w_k·(pose_j·inverse(bind_j))·v with weights divided by their sum;
  space=shot through ancestors, a deformed ancestor mapping points by barycentric coordinates of
  the containing (else nearest) source triangle.

The other test modules import from here (`from test_skin_refmath import ...`).
"""
import json
import math
import sys
import unittest

EPS = sys.float_info.epsilon
IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
CHANNELS = ("position.x", "position.y", "rotation", "scale.x", "scale.y", "pivot.x", "pivot.y")


# ---------------------------------------------------------------- affine

def mul(l, r):
    """l·r: applies r first."""
    a1, b1, c1, d1, e1, f1 = l
    a2, b2, c2, d2, e2, f2 = r
    return (a1 * a2 + c1 * b2,
            b1 * a2 + d1 * b2,
            a1 * c2 + c1 * d2,
            b1 * c2 + d1 * d2,
            a1 * e2 + c1 * f2 + e1,
            b1 * e2 + d1 * f2 + f1)


def apply(m, x, y):
    a, b, c, d, e, f = m
    return (a * x + c * y + e, b * x + d * y + f)


def safely_invertible(m):
    if not all(math.isfinite(v) for v in m):
        return False
    a, b, c, d, _, _ = m
    det = a * d - b * c
    return abs(det) >= 1e-12 * max(1.0, (a * a + b * b + c * c + d * d) / 2)


def invert(m):
    if not safely_invertible(m):
        raise ZeroDivisionError(f"matrix {m} is not safely invertible")
    a, b, c, d, e, f = m
    det = a * d - b * c
    # Solve [a c; b d]·[x; y] = [u − e; v − f].
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return (ia, ib, ic, id_, -(ia * e + ic * f), -(ib * e + id_ * f))


def translate(x, y):
    return (1.0, 0.0, 0.0, 1.0, float(x), float(y))


def rotate(deg):
    t = math.radians(deg)
    return (math.cos(t), math.sin(t), -math.sin(t), math.cos(t), 0.0, 0.0)


def scale(sx, sy):
    return (float(sx), 0.0, 0.0, float(sy), 0.0, 0.0)


def local_matrix(position=(0, 0), rotation=0.0, scale_=(1, 1), pivot=(0, 0)):
    """T(position)·R(rotation)·S(scale)·T(−pivot)."""
    m = translate(*position)
    m = mul(m, rotate(rotation))
    m = mul(m, scale(*scale_))
    return mul(m, translate(-pivot[0], -pivot[1]))


# ---------------------------------------------------------------- keys

def css_ease(ease, u):
    """CSS cubic-bezier(x1, y1, x2, y2) at progress u: solve x(s) = u by bisection (x is
    monotone for x1, x2 in [0, 1]) to machine precision, return y(s)."""
    x1, y1, x2, y2 = ease

    def bez(p1, p2, s):
        return 3 * (1 - s) ** 2 * s * p1 + 3 * (1 - s) * s ** 2 * p2 + s ** 3
    if u <= 0:
        return 0.0
    if u >= 1:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if bez(x1, x2, mid) < u:
            lo = mid
        else:
            hi = mid
    return bez(y1, y2, (lo + hi) / 2)


def eval_channel(keys, frame, static):
    """keys: [(frame, value, interp)] or (frame, value, "bezier", ease); interp (and ease)
    govern the segment to the next key."""
    if not keys:
        return static
    ks = sorted(keys, key=lambda k: k[0])
    if frame <= ks[0][0]:
        return ks[0][1]
    if frame >= ks[-1][0]:
        return ks[-1][1]
    for k0, k1 in zip(ks, ks[1:]):
        (f0, v0, interp), (f1, v1) = k0[:3], k1[:2]
        if f0 <= frame < f1:
            u = (frame - f0) / (f1 - f0)
            if interp == "hold":
                return v0
            if interp == "linear":
                return v0 + (v1 - v0) * u
            if interp == "bezier":
                return v0 + (v1 - v0) * css_ease(k0[3], u)
            raise ValueError(interp)
    raise AssertionError("unreachable")


# ---------------------------------------------------------------- meshes

def area2(pts, tri):
    (ax, ay), (bx, by), (cx, cy) = (pts[tri[0]], pts[tri[1]], pts[tri[2]])
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


class RefError(Exception):
    def __init__(self, code, **fields):
        super().__init__(code, fields)
        self.code = code
        self.fields = fields


def check_deformed(src, dst, triangles):
    for v, (x, y) in enumerate(dst):
        if not (math.isfinite(x) and math.isfinite(y)):
            raise RefError("MESH_GEOMETRY", vertexIndex=v)
    for t, tri in enumerate(triangles):
        a, b = area2(src, tri), area2(dst, tri)
        if abs(b) < 1e-6 * abs(a):
            raise RefError("MESH_COLLAPSED", triangleIndex=t)
        if (a > 0) != (b > 0):
            raise RefError("MESH_WINDING", triangleIndex=t)


def lbs(source, weights, binds, poses):
    """source [(x, y)], weights [[(jointId, w)]], binds/poses {jointId: matrix}."""
    skin = {j: mul(poses[j], invert(binds[j])) for j in binds}
    out = []
    for (x, y), infl in zip(source, weights):
        total = sum(w for _, w in infl)
        px = py = 0.0
        for j, w in infl:
            qx, qy = apply(skin[j], x, y)
            px += (w / total) * qx
            py += (w / total) * qy
        out.append((px, py))
    return out


def barycentric(p, a, b, c):
    det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
    l1 = ((p[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (p[1] - a[1])) / det
    l2 = ((b[0] - a[0]) * (p[1] - a[1]) - (p[0] - a[0]) * (b[1] - a[1])) / det
    return (1.0 - l1 - l2, l1, l2)


def _seg_dist(p, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    L = dx * dx + dy * dy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L))
    return math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])


def locate(source, triangles, p):
    """(triangle, barycentric) of the first containing source triangle, else the nearest
    (distance to its edges, lowest index on ties), barycentric unclamped."""
    best = None
    for t, tri in enumerate(triangles):
        w = barycentric(p, *(source[i] for i in tri))
        if min(w) >= 0:
            return t, w
        d = min(_seg_dist(p, source[tri[i]], source[tri[(i + 1) % 3]]) for i in range(3))
        if best is None or d < best[0]:
            best = (d, t, w)
    return best[1], best[2]


def map_points(points, source, deformed, triangles):
    out = []
    for p in points:
        t, w = locate(source, triangles, p)
        tri = triangles[t]
        out.append((sum(w[k] * deformed[tri[k]][0] for k in range(3)),
                    sum(w[k] * deformed[tri[k]][1] for k in range(3))))
    return out


# ---------------------------------------------------------------- a shot

class Scene:
    """A shot described in Python: produces the edit ops that build it in rigd and computes
    what rigd should answer, independently."""

    def __init__(self):
        self.layers = {}   # id -> dict
        self.order = []
        self.skins = {}    # mesh id -> skin dict (as sent, jointLayers included)

    def layer(self, lid, kind="group", parent=None, position=(0, 0), rotation=0.0,
              scale=(1, 1), pivot=(0, 0), time_offset=0.0):
        self.layers[lid] = {
            "kind": kind, "parent": parent, "time_offset": float(time_offset),
            "static": {"position.x": float(position[0]), "position.y": float(position[1]),
                       "rotation": float(rotation), "scale.x": float(scale[0]),
                       "scale.y": float(scale[1]), "pivot.x": float(pivot[0]),
                       "pivot.y": float(pivot[1])},
            "keys": {}}
        self.order.append(lid)
        return self

    def keys(self, lid, channel, keys):
        """keys: [(frame, value)], [(frame, value, interp)] or [(frame, value, "bezier", ease)]."""
        assert channel in CHANNELS
        lst = self.layers[lid]["keys"].setdefault(channel, [])
        for k in keys:
            f, v = float(k[0]), float(k[1])
            interp = k[2] if len(k) > 2 else "linear"
            key = (f, v, interp) + ((tuple(map(float, k[3])),) if interp == "bezier" else ())
            lst[:] = [x for x in lst if x[0] != f] + [key]
        return self

    def set_static(self, lid, **channels):
        for ch, v in channels.items():
            self.layers[lid]["static"][ch.replace("_", ".")] = float(v)
        return self

    def skin(self, mesh, source, triangles, joints, weights, joint_layers):
        """joints: [(id, bind)], weights: [[(jointId, w)]], joint_layers: {jointId: layerId}."""
        self.skins[mesh] = {
            "source": [tuple(map(float, p)) for p in source],
            "triangles": [tuple(t) for t in triangles],
            "joints": [(j, tuple(map(float, b))) for j, b in joints],
            "weights": [[(j, float(w)) for j, w in lst] for lst in weights],
            "jointLayers": dict(joint_layers)}
        return self

    # ---- ops for rigd
    def create_ops(self):
        ops = []
        for lid in self.order:
            L = self.layers[lid]
            s = L["static"]
            op = {"op": "layer.create", "layerId": lid, "name": lid, "kind": L["kind"],
                  "transform": {"position": [s["position.x"], s["position.y"]],
                                "rotation": s["rotation"],
                                "scale": [s["scale.x"], s["scale.y"]],
                                "pivot": [s["pivot.x"], s["pivot.y"]]}}
            if L["parent"]:
                op["parentId"] = L["parent"]
            if L["time_offset"]:
                op["timeOffset"] = L["time_offset"]
            ops.append(op)
        for lid in self.order:
            for ch, keys in self.layers[lid]["keys"].items():
                out = []
                for k in sorted(keys):
                    key = {"frame": k[0], "value": k[1], "interp": k[2]}
                    if k[2] == "bezier":
                        key["ease"] = list(k[3])
                    out.append(key)
                ops.append({"op": "layer.key.put", "layerId": lid, "channel": ch, "keys": out})
        return ops

    def skin_json(self, mesh):
        s = self.skins[mesh]
        return {"source": [{"x": x, "y": y} for x, y in s["source"]],
                "triangles": [list(t) for t in s["triangles"]],
                "joints": [{"id": j, "bind": list(b)} for j, b in s["joints"]],
                "weights": [[{"jointId": j, "weight": w} for j, w in lst] for lst in s["weights"]],
                "jointLayers": [{"jointId": j, "layerId": l} for j, l in s["jointLayers"].items()]}

    def skin_ops(self):
        return [{"op": "layer.skin", "layerId": m, "skin": self.skin_json(m)} for m in self.skins]

    def all_ops(self):
        return self.create_ops() + self.skin_ops()

    # ---- evaluation
    def local(self, lid, shot_frame):
        L = self.layers[lid]
        f = shot_frame - L["time_offset"]
        v = {ch: eval_channel(L["keys"].get(ch), f, L["static"][ch]) for ch in CHANNELS}
        return local_matrix((v["position.x"], v["position.y"]), v["rotation"],
                            (v["scale.x"], v["scale.y"]), (v["pivot.x"], v["pivot.y"]))

    def ancestors(self, lid):
        """[lid, parent, grandparent, ...]"""
        out = []
        while lid is not None:
            out.append(lid)
            lid = self.layers[lid]["parent"]
        return out

    def lca(self, a, b):
        anc = set(self.ancestors(a))
        for x in self.ancestors(b):
            if x in anc:
                return x
        return None

    def path(self, top, x, shot_frame):
        """P(top→x): product of local matrices below top down to and including x."""
        m = IDENTITY
        for y in self.ancestors(x):
            if y == top:
                break
            m = mul(self.local(y, shot_frame), m)
        return m

    def world(self, lid, shot_frame):
        return self.path(None, lid, shot_frame)

    def joint_poses(self, mesh, shot_frame):
        s = self.skins[mesh]
        poses = {}
        for j, _ in s["joints"]:
            J = s["jointLayers"][j]
            C = self.lca(mesh, J)
            pm = self.path(C, mesh, shot_frame)
            if not safely_invertible(pm):
                raise RefError("SKIN_LAYER_TRANSFORM", jointId=j)
            poses[j] = mul(invert(pm), self.path(C, J, shot_frame))
        return poses

    def capture(self, mesh, local_frame):
        """layer.skin.bind.capture: binds := poses at the mesh's signed local frame."""
        shot_frame = local_frame + self.layers[mesh]["time_offset"]
        poses = self.joint_poses(mesh, shot_frame)
        s = self.skins[mesh]
        s["joints"] = [(j, poses[j]) for j, _ in s["joints"]]

    def evaluate(self, mesh, shot_frame, check=True):
        s = self.skins[mesh]
        binds = dict(s["joints"])
        out = lbs(s["source"], s["weights"], binds, self.joint_poses(mesh, shot_frame))
        if check:
            check_deformed(s["source"], out, s["triangles"])
        return out

    def to_shot(self, lid, pts, shot_frame):
        """Carries points in lid's local space to shot space (deformed ancestors map)."""
        pts = list(pts)
        x = lid
        while x is not None:
            m = self.local(x, shot_frame)
            pts = [apply(m, px, py) for px, py in pts]
            p = self.layers[x]["parent"]
            if p is not None and p in self.skins:
                s = self.skins[p]
                pts = map_points(pts, s["source"], self.evaluate(p, shot_frame), s["triangles"])
            x = p
        return pts

    def evaluate_shot(self, mesh, shot_frame):
        return self.to_shot(mesh, self.evaluate(mesh, shot_frame), shot_frame)

    def map_points(self, mesh, points, shot_frame, shot_space=False):
        s = self.skins[mesh]
        out = map_points(points, s["source"], self.evaluate(mesh, shot_frame), s["triangles"])
        return self.to_shot(mesh, out, shot_frame) if shot_space else out


# ---------------------------------------------------------------- helpers for assertions

def resolve_pointer(doc, pointer):
    """RFC 6901: the value at pointer in doc; raises KeyError/IndexError when absent."""
    if pointer == "":
        return doc
    assert pointer.startswith("/"), pointer
    cur = doc
    for tok in pointer[1:].split("/"):
        tok = tok.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, list):
            if not tok.isdigit():
                raise KeyError(tok)
            cur = cur[int(tok)]
        elif isinstance(cur, dict):
            cur = cur[tok]
        else:
            raise KeyError(tok)
    return cur


def fmt_frame(f):
    """A frame for a URL path or query, round-tripping the double."""
    return repr(float(f))


def f32(x):
    import struct
    return struct.unpack("<f", struct.pack("<f", x))[0]


def max_diff(a, b):
    assert len(a) == len(b), (len(a), len(b))
    return max((max(abs(p[0] - q[0]), abs(p[1] - q[1])) for p, q in zip(a, b)), default=0.0)


# ---------------------------------------------------------------- HTTP helpers (a mixin)

def decode_f32(data):
    """SPEC §7 binary frames: 'RIGF', u32 version, u32 vertexCount, u32 frameCount, then per
    frame an f64 frame number and vertexCount (f32 x, f32 y) pairs, little-endian."""
    import struct
    assert data[:4] == b"RIGF", data[:16]
    version, nv, nf = struct.unpack_from("<III", data, 4)
    frames, off = [], 16
    for _ in range(nf):
        (f,) = struct.unpack_from("<d", data, off)
        off += 8
        xy = struct.unpack_from(f"<{2 * nv}f", data, off)
        off += 8 * nv
        frames.append((f, [(xy[2 * i], xy[2 * i + 1]) for i in range(nv)]))
    assert off == len(data), (off, len(data))
    return version, nv, nf, frames


class ShotHelpers:
    """Mixed into a RigdTestCase that sets self.shot."""

    def post_edit(self, ops, **kw):
        body = {"ops": ops, **kw}
        return body, self.rigd.post(f"/v1/shots/{self.shot}/edits", body)

    def apply_ops(self, ops):
        _, r = self.post_edit(ops)
        self.assertEqual(r.status, 201, r)
        return r

    def frame(self, f, layers=None, space=None, fmt=None, headers=None, shot=None, rigd=None):
        q = []
        if layers is not None:
            q.append("layers=" + layers)
        if space:
            q.append("space=" + space)
        if fmt:
            q.append("format=" + fmt)
        f = fmt_frame(f) if isinstance(f, (int, float)) else f
        path = f"/v1/shots/{shot or self.shot}/frames/{f}" + ("?" + "&".join(q) if q else "")
        return (rigd or self.rigd).get(path, headers=headers)

    def verts(self, mesh, f, space=None):
        r = self.frame(f, layers=mesh, space=space)
        self.assertEqual(r.status, 200, r)
        body = r.json
        self.assertEqual([l["layerId"] for l in body["layers"]], [mesh])
        return [tuple(v) for v in body["layers"][0]["vertices"]]

    def assertVerts(self, got, want, tol=1e-9, msg=None):
        self.assertEqual(len(got), len(want), msg)
        for x, y in got:
            self.assertTrue(math.isfinite(x) and math.isfinite(y), got)
        d = max_diff(got, want)
        self.assertLessEqual(d, tol, f"{msg or ''}\n got  {got}\n want {want}\n max diff {d}")


# ---------------------------------------------------------------- self-checks

class ReferenceSelfCheck(unittest.TestCase):
    def close(self, a, b, tol=1e-12):
        self.assertEqual(len(a), len(b))
        for x, y in zip(a, b):
            self.assertAlmostEqual(x, y, delta=tol, msg=(a, b))

    def test_mul_applies_right_first(self):
        m = mul(translate(10, 0), rotate(90))   # rotate, then translate
        self.close(apply(m, 1, 0), (10, 1))
        m = mul(rotate(90), translate(10, 0))   # translate, then rotate
        self.close(apply(m, 1, 0), (0, 11))

    def test_invert(self):
        m = (2.0, 0.5, -1.0, 3.0, 7.0, -4.0)
        self.close(mul(m, invert(m)), IDENTITY)
        self.close(mul(invert(m), m), IDENTITY)
        with self.assertRaises(ZeroDivisionError):
            invert((1.0, 2.0, 2.0, 4.0, 0.0, 0.0))
        self.assertFalse(safely_invertible((1e-7, 0, 0, 1e-7, 0, 0)))  # det 1e-14 < 1e-12
        self.assertTrue(safely_invertible((1e-6, 0, 0, 1e-6, 0, 0)))   # det 1e-12

    def test_local_matrix_by_hand(self):
        # pivot (10, 0) maps to position; rotation 90 turns +x into +y; scale 2 doubles.
        m = local_matrix((5, 5), 90, (2, 2), (10, 0))
        self.close(apply(m, 10, 0), (5, 5))
        self.close(apply(m, 11, 0), (5, 7))
        self.close(apply(m, 10, 1), (3, 5))
        self.close(local_matrix(), IDENTITY)

    def test_keys_by_hand(self):
        keys = [(0, 0, "linear"), (10, 100, "hold"), (20, 50, "linear")]
        self.assertEqual(eval_channel(keys, -5, 9), 0)
        self.assertEqual(eval_channel(keys, 2.5, 9), 25)
        self.assertEqual(eval_channel(keys, 10, 9), 100)
        self.assertEqual(eval_channel(keys, 19.99, 9), 100)
        self.assertEqual(eval_channel(keys, 20, 9), 50)
        self.assertEqual(eval_channel(keys, 99, 9), 50)
        self.assertEqual(eval_channel([], 3, 9), 9)

    def test_css_ease_by_hand(self):
        self.assertAlmostEqual(css_ease((0, 0, 1, 1), 0.3), 0.3, delta=1e-12)   # linear curve
        self.assertAlmostEqual(css_ease((0.42, 0, 0.58, 1), 0.5), 0.5, delta=1e-12)  # symmetric
        # CSS 'ease' at 50%: 0.8024 (the commonly tabulated value)
        self.assertAlmostEqual(css_ease((0.25, 0.1, 0.25, 1), 0.5), 0.8024, delta=1e-4)
        keys = [(0, 10, "bezier", (0.42, 0, 0.58, 1)), (10, 20)]
        self.assertAlmostEqual(eval_channel(keys, 5, 0), 15, delta=1e-12)
        self.assertLess(eval_channel(keys, 2, 0), 12)                             # eased in

    def test_scene_pose_is_mesh_relative_and_time_offset(self):
        s = Scene()
        s.layer("root", rotation=30, scale=(0, 0))  # shared, singular: cancels
        s.layer("m", "mesh", "root", position=(10, 0), time_offset=5)
        s.layer("j", "group", "root", position=(10, 20))
        s.keys("m", "position.x", [(0, 10), (10, 20)])
        s.skin("m", [(0, 0), (1, 0), (0, 1)], [(0, 1, 2)], [("a", IDENTITY)],
               [[("a", 1)]] * 3, {"a": "j"})
        # shot frame 10 = m's local frame 5: m at x=15; joint at (10, 20) → pose T(-5, 20)
        self.close(s.joint_poses("m", 10)["a"], (1, 0, 0, 1, -5, 20))
        self.close(s.evaluate("m", 10)[1], (-4, 20))

    def test_lbs_seed_strip_by_hand(self):
        out = lbs([(0, 0), (50, 0), (100, 0)], [[("a", 1)], [("a", .5), ("b", .5)], [("b", 1)]],
                  {"a": IDENTITY, "b": IDENTITY}, {"a": IDENTITY, "b": translate(0, 40)})
        self.assertEqual(out, [(0, 0), (50, 20), (100, 40)])

    def test_map_points_inside_and_nearest(self):
        src = [(0, 0), (10, 0), (0, 10), (10, 10)]
        tris = [(0, 1, 2), (1, 3, 2)]
        dst = [(0, 0), (20, 0), (0, 10), (20, 10)]  # stretch x by 2
        self.close(map_points([(2, 3)], src, dst, tris)[0], (4, 3))
        self.assertEqual(locate(src, tris, (12, 9))[0], 1)   # nearest is the right triangle
        self.close(map_points([(12, 9)], src, dst, tris)[0], (24, 9))  # extrapolated, unclamped

    def test_resolve_pointer(self):
        doc = {"ops": [{"skin": {"weights": [[{"jointId": "a"}]]}}]}
        self.assertEqual(resolve_pointer(doc, "/ops/0/skin/weights/0/0/jointId"), "a")
        with self.assertRaises((KeyError, IndexError)):
            resolve_pointer(doc, "/ops/1")
        self.assertEqual(json.loads(json.dumps(doc)), doc)


if __name__ == "__main__":
    unittest.main(verbosity=2)
