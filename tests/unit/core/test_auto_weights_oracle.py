#!/usr/bin/env python3
"""Automatic weights against an independent implementation (issue 25): the bones rule, the
segment and nearestJoint fields, and the harmonic field (its fixed vertices by the rule of
docs/decisions.md, the graph Laplace equation solved with scipy's SuperLU instead of LDL), written
here from the rules with numpy and scipy and compared with the C code's
(tests/unit/core/auto_weights_driver.c): raw fields to 1e-9 relative, then the per-vertex step
(drop below 1e-4 of the vertex's total, keep the k strongest, divide by their sum) applied here
to the C code's own raw fields must give its lists exactly, and applied to the oracle's fields the
same joints with weights within 1e-9. On an L-shaped grid with one bone per leg, the far end of
each leg must be dominated by its own bone under harmonic, more than under segment.

usage: test_auto_weights_oracle.py AUTO_WEIGHTS_DRIVER   (numpy and scipy are required)
"""
import json
import math
import subprocess
import sys

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

DRIVER = sys.argv[1] if __name__ == "__main__" else None
EPS = 1e-4
BIAS = 1e-6


# ---- the oracle ----------------------------------------------------------------------------

def bones_of(joints):
    """A joint's bone ends at its only child's origin; else its length along +x, else a point."""
    out = []
    for i, j in enumerate(joints):
        a, b, _, _, e, f = j["bind"]
        kids = [c for c, k in enumerate(joints) if k.get("parent", -1) == i and c != i]
        if len(kids) == 1:
            ce, cf = joints[kids[0]]["bind"][4:6]
            out.append((e, f, ce, cf))
        elif "length" in j and math.hypot(a, b) > 0:
            h = math.hypot(a, b)
            out.append((e, f, e + j["length"] * (a / h), f + j["length"] * (b / h)))
        else:
            out.append((e, f, e, f))
    return out


def dist2(bone, p):
    """Squared distance from the points p (n × 2) to the segment: clamp the projection."""
    ax, ay, bx, by = bone
    ux, uy = bx - ax, by - ay
    l2 = ux * ux + uy * uy
    px, py = p[:, 0], p[:, 1]
    t = np.zeros(len(p))
    if l2 > 0:  # elementwise, one IEEE operation at a time (no dot product's reordering)
        t = np.clip(((px - ax) * ux + (py - ay) * uy) / l2, 0.0, 1.0)
    ex, ey = px - (ax + t * ux), py - (ay + t * uy)
    return ex * ex + ey * ey


def graph(n, tris):
    edges = sorted({(min(int(t[k]), int(t[(k + 1) % 3])), max(int(t[k]), int(t[(k + 1) % 3])))
                    for t in tris for k in range(3)})
    nbrs = [[] for _ in range(n)]
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)
    return edges, nbrs


def harmonic(src, tris, bones):
    n, J = len(src), len(bones)
    D2 = np.stack([dist2(b, src) for b in bones], axis=1)  # n × J
    edges, nbrs = graph(n, tris)
    total = 0.0
    for a, b in edges:  # in edge order, one addition at a time, as the rule sums them
        total += math.sqrt(((src[a] - src[b]) ** 2).sum())
    tol = 0.5 * (total / len(edges)) if edges else 0.0
    nearest = np.argmin(D2, axis=1)  # first minimum: the lower joint on ties
    dn = np.sqrt(D2[np.arange(n), nearest])
    members = [[] for _ in range(n)]
    for j in range(J):
        mine = np.nonzero(nearest == j)[0]
        if len(mine):
            lim = dn[mine].min() + tol
            for v in mine:
                if dn[v] <= lim:
                    members[v].append(j)
    for j in range(J):
        if not np.any(nearest == j):  # shadowed: its nearest vertex, shared
            members[int(np.argmin(D2[:, j]))].append(j)
    fixed_val = {v: np.bincount(m, minlength=J) / len(m) for v, m in enumerate(members) if m}

    comp = [-1] * n
    for s in range(n):
        if comp[s] >= 0:
            continue
        comp[s], stack = s, [s]
        while stack:
            v = stack.pop()
            for u in nbrs[v]:
                if comp[u] < 0:
                    comp[u] = s
                    stack.append(u)
    held = {comp[v] for v in fixed_val}
    free = [v for v in range(n) if v not in fixed_val and comp[v] in held]
    index = {v: i for i, v in enumerate(free)}
    W = np.zeros((n, J))
    for v, val in fixed_val.items():
        W[v] = val
    if free:
        rows, cols, vals = [], [], []
        B = np.zeros((len(free), J))
        for v in free:
            i = index[v]
            rows.append(i); cols.append(i); vals.append(float(len(nbrs[v])))
            for u in nbrs[v]:
                if u in index:
                    rows.append(i); cols.append(index[u]); vals.append(-1.0)
                else:
                    B[i] += fixed_val[u]
        L = sp.csc_matrix((vals, (rows, cols)), shape=(len(free), len(free)))
        solve = spla.factorized(L)
        for j in range(J):
            W[free, j] = solve(B[:, j])
    fixed = sorted(fixed_val)
    for c in {comp[v] for v in range(n)} - held:
        verts = [v for v in range(n) if comp[v] == c]
        best = min((((src[v] - src[u]) ** 2).sum(), u) for v in verts for u in fixed)
        for v in verts:
            W[v] = fixed_val[best[1]]
    return np.maximum(W, 0.0)


def raw_field(case):
    src = np.array(case["source"], dtype=float).reshape(-1, 2)
    tris = np.array(case["triangles"], dtype=int).reshape(-1, 3)
    bones = bones_of(case["joints"])
    method = case["method"]
    if method == "harmonic":
        return harmonic(src, tris, bones)
    if method == "nearestJoint":
        bones = [(j["bind"][4], j["bind"][5]) * 2 for j in case["joints"]]
    return np.stack([1.0 / (dist2(b, src) + BIAS) for b in bones], axis=1)


def step(row, k):
    """The per-vertex step: [(joint, weight)], strongest first."""
    total = 0.0
    for w in row:
        if w > 0:
            total += w
    order = sorted(range(len(row)), key=lambda j: (-row[j], j))
    kept = [(j, row[j]) for j in order if row[j] > 0 and row[j] >= EPS * total][:k]
    if not kept:
        return [(order[0] if row[order[0]] > 0 else 0, 1.0)]
    s = 0.0
    for _, w in kept:
        s += w
    return [(j, w / s) for j, w in kept]


# ---- the cases -----------------------------------------------------------------------------

def grid(w, h, step=1.0, keep=lambda x, y: True, jitter=0.0, seed=1):
    rng = np.random.default_rng(seed)
    used = np.zeros((h, w), dtype=bool)
    for y in range(h - 1):
        for x in range(w - 1):
            if keep(x, y):
                used[y:y + 2, x:x + 2] = True
    index, src = {}, []
    for y in range(h):
        for x in range(w):
            if used[y, x]:
                index[(x, y)] = len(index)
                dx, dy = rng.uniform(-jitter, jitter, 2) if jitter else (0.0, 0.0)
                src += [x * step + dx, y * step + dy]
    tris = []
    for y in range(h - 1):
        for x in range(w - 1):
            if keep(x, y):
                a, b = index[(x, y)], index[(x + 1, y)]
                c, d = index[(x, y + 1)], index[(x + 1, y + 1)]
                tris += [a, b, d, a, d, c]
    return src, tris


def bind(x, y, deg=0.0):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return [c, s, -s, c, x, y]


def L_case(method, k=4):
    src, tris = grid(13, 13, keep=lambda x, y: x < 4 or y < 4)
    return dict(source=src, triangles=tris, method=method, maxInfluences=k, joints=[
        dict(bind=bind(2.2, 5, 90), length=6.5),   # up the vertical leg
        dict(bind=bind(5, 1.8, 0), length=6.5)])   # along the horizontal one


def cases():
    for method in ("harmonic", "segment", "nearestJoint"):
        yield f"L-shaped grid, one bone per leg, {method}", L_case(method)
    src, tris = grid(12, 9, step=1.5, jitter=0.4, seed=3)
    chain = [dict(bind=bind(1, 1, 10)), dict(bind=bind(5, 2.5, 30), parent=0),
             dict(bind=bind(9, 5, 60), parent=1), dict(bind=bind(12, 10, 0), parent=2, length=3),
             dict(bind=bind(4, 9, 135), parent=1, length=2.5)]
    for method in ("harmonic", "segment"):
        yield f"jittered grid, a chain with a fork, {method}, k 3", dict(
            source=src, triangles=tris, method=method, maxInfluences=3, joints=chain)
    a_src, a_tris = grid(6, 5)
    b_src, b_tris = grid(3, 3)
    b_src = [v + 40 if i % 2 == 0 else v for i, v in enumerate(b_src)]
    off = len(a_src) // 2
    yield "two components, one without a fixed vertex; coincident joints, harmonic", dict(
        source=a_src + b_src, triangles=a_tris + [t + off for t in b_tris], method="harmonic",
        maxInfluences=2, joints=[dict(bind=bind(0.3, 0.2)), dict(bind=bind(0.3, 0.2)),
                                 dict(bind=bind(4.6, 3.7, 180), length=2),
                                 dict(bind=bind(2.5, 2.1))])


def close(name, got, want, scale):
    got, want = np.asarray(got, dtype=float).ravel(), np.asarray(want, dtype=float).ravel()
    if got.shape != want.shape:
        return f"{name}: shape {got.shape} against {want.shape}"
    err = np.abs(got - want)
    tol = 1e-9 * np.maximum(np.abs(want), scale)
    if not np.all(err <= tol):
        i = int(np.argmax(err / tol))
        return f"{name}: entry {i} is {got[i]!r}, the oracle's {want[i]!r} (|diff| {err[i]:.3g})"
    return None


def lists_of(got, n):
    off = [int(o) for o in got["offsets"]]
    return [[(int(got["joints"][i]), got["weights"][i]) for i in range(off[v], off[v + 1])]
            for v in range(n)]


def own_weight_at_far_ends(case, lists):
    """The least weight of its own bone over the far ends of the legs (9 or more from the
    corner along the leg): joint 0 owns y >= 9 on the vertical leg, joint 1 x >= 9."""
    src = np.array(case["source"]).reshape(-1, 2)
    least = 1.0
    for v, (x, y) in enumerate(src):
        own = 0 if y >= 9 else 1 if x >= 9 else None
        if own is not None:
            least = min(least, dict(lists[v]).get(own, 0.0))
    return least


def main():
    failures, far = 0, {}
    for title, case in cases():
        run = subprocess.run([DRIVER], input=json.dumps(case), capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL {title}: driver exit {run.returncode}: {run.stderr.strip()}")
            failures += 1
            continue
        got = json.loads(run.stdout)
        n, J, k = len(case["source"]) // 2, len(case["joints"]), case["maxInfluences"]
        problems = []
        p = close("bones", got["bones"], np.array(bones_of(case["joints"])), 1.0)
        problems += [p] if p else []
        want = raw_field(case)
        scale = 1.0 if case["method"] == "harmonic" else 0.0
        p = close("raw", got["raw"], want, scale)
        problems += [p] if p else []
        c_raw = np.array(got["raw"]).reshape(n, J)
        lists = lists_of(got, n)
        for v in range(n):
            mine = step(list(c_raw[v]), k)
            if lists[v] != mine:
                problems.append(f"vertex {v}: list {lists[v]}, the step of its raw row {mine}")
                break
            theirs = step(list(want[v]), k)
            if [j for j, _ in theirs] != [j for j, _ in mine] or any(
                    abs(a - b) > 1e-9 for (_, a), (_, b) in zip(theirs, mine)):
                problems.append(f"vertex {v}: list {mine}, the oracle's {theirs}")
                break
            total = 0.0
            for _, w in mine:
                total += w
            if len(mine) > k or abs(total - 1) > 64 * 2.0 ** -52 or any(w <= 0 for _, w in mine):
                problems.append(f"vertex {v}: list {mine} breaks the weights rule")
                break
        if title.startswith("L-shaped"):
            far[case["method"]] = own_weight_at_far_ends(case, lists)
        status = "ok  " if not problems else "FAIL"
        print(f"{status} {title}")
        for p in problems:
            print(f"     {p}")
        failures += bool(problems)
    h, s = far.get("harmonic", 0.0), far.get("segment", 1.0)
    ok = h >= 0.98 and h - s >= 0.05
    print(f"{'ok  ' if ok else 'FAIL'} L-shaped grid: least own-bone weight at the legs' far ends"
          f" {h:.6f} harmonic, {s:.6f} segment")
    failures += not ok
    print(f"test_auto_weights_oracle: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
