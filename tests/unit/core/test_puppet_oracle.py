#!/usr/bin/env python3
"""The puppet's math against an independent implementation (issue 24): harmonic pin weights,
LBS and ARAP with the same 4 iterations, written here from the issue's formulas with numpy and
scipy (Debian's python3-numpy, python3-scipy; SuperLU instead of LDL), compared with the C
code's (tests/unit/core/puppet_driver.c) to 1e-9 relative.

usage: test_puppet_oracle.py PUPPET_DRIVER     (numpy and scipy are required: install-deps.sh)
"""
import json
import math
import subprocess
import sys

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

DRIVER = sys.argv[1] if __name__ == "__main__" else None  # imported: the oracle alone
CHANNELS = ["position.x", "position.y", "rotation", "stiffness", "scale", "overlap"]
STATIC = {"position.x": ("x", 0.0), "position.y": ("y", 0.0), "rotation": ("rotation", 0.0),
          "stiffness": ("stiffness", 0.0), "scale": ("scale", 1.0), "overlap": ("overlap", 0.0)}


# ---- the oracle ----------------------------------------------------------------------------

def channel(pin, ch, frame):
    """Linear and hold keys only, clamped outside their range; else the static value."""
    field, default = STATIC[ch]
    keys = pin.get("keys", {}).get(ch)
    if not keys:
        return float(pin.get(field, default))
    keys = sorted(keys, key=lambda k: k["frame"])
    if frame <= keys[0]["frame"]:
        return keys[0]["value"]
    if frame >= keys[-1]["frame"]:
        return keys[-1]["value"]
    for a, b in zip(keys, keys[1:]):
        if a["frame"] <= frame < b["frame"]:
            if a.get("interp") == "hold":
                return a["value"]
            u = (frame - a["frame"]) / (b["frame"] - a["frame"])
            return a["value"] + (b["value"] - a["value"]) * u
    raise AssertionError


def oracle(case):
    src = np.array(case["source"], dtype=float).reshape(-1, 2)
    tris = np.array(case["triangles"], dtype=int).reshape(-1, 3)
    pins = case["pins"]
    n, P = len(src), len(pins)
    frame = case.get("frame", 0.0)
    max_rot = case.get("maxRotationDeg")

    # anchors: nearest vertex, ties to the lowest index (argmin keeps the first)
    anchor = [int(np.argmin(((src - [p["x"], p["y"]]) ** 2).sum(axis=1))) for p in pins]

    edges = set()
    for t in tris:
        for k in range(3):
            a, b = int(t[k]), int(t[(k + 1) % 3])
            edges.add((min(a, b), max(a, b)))
    edges = sorted(edges)
    nbrs = [[] for _ in range(n)]
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)

    # components by breadth-first search
    comp = [-1] * n
    for s in range(n):
        if comp[s] >= 0:
            continue
        comp[s], queue = s, [s]
        while queue:
            v = queue.pop()
            for u in nbrs[v]:
                if comp[u] < 0:
                    comp[u] = s
                    queue.append(u)
    pinned_comps = {comp[a] for a in anchor}
    fixed = set(anchor)
    free = [v for v in range(n) if v not in fixed and comp[v] in pinned_comps]
    loose = [v for v in range(n) if comp[v] not in pinned_comps]
    index = {v: i for i, v in enumerate(free)}

    def reduced(weight):
        rows, cols, vals = [], [], []
        for (a, b), w in zip(edges, weight):
            for i, j in ((a, b), (b, a)):
                if i in index:
                    rows.append(index[i]); cols.append(index[i]); vals.append(w)
                    if j in index:
                        rows.append(index[i]); cols.append(index[j]); vals.append(-w)
        return sp.csc_matrix((vals, (rows, cols)), shape=(len(free), len(free)))

    # harmonic weights
    W = np.zeros((n, P))
    if P:
        L = reduced([1.0] * len(edges))
        for p in range(P):
            b = np.zeros(len(free))
            for u in nbrs[anchor[p]]:
                if u in index:
                    b[index[u]] += 1
            if len(free):
                x = spla.spsolve(L, b) if len(free) > 1 else b / L.toarray()[0, 0]
                W[free, p] = x
        for p, a in enumerate(anchor):
            W[a, :] = 0
            W[a, p] = 1
        by_comp = {}
        for v in loose:
            for p, a in enumerate(anchor):
                d2 = ((src[v] - src[a]) ** 2).sum()
                best = by_comp.get(comp[v])
                if best is None or (d2, a) < (best[0], best[1]):
                    by_comp[comp[v]] = (d2, a, p)
        for v in loose:
            W[v, :] = 0
            W[v, by_comp[comp[v]][2]] = 1
        W = np.maximum(W, 0)
        W = W / W.sum(axis=1, keepdims=True)

    # poses
    pose = []
    for pin in pins:
        deg = channel(pin, "rotation", frame)
        if max_rot is not None:
            deg = max(-max_rot, min(max_rot, deg))
        pose.append(dict(cx=channel(pin, "position.x", frame), cy=channel(pin, "position.y", frame),
                         th=math.radians(deg), s=channel(pin, "scale", frame),
                         sigma=max(0.0, channel(pin, "stiffness", frame))))
    oriented = [pin.get("rotation", 0) != 0 or pin.get("scale", 1) != 1
                or bool(pin.get("keys", {}).get("rotation")) or bool(pin.get("keys", {}).get("scale"))
                for pin in pins]

    # LBS: Σp ωp(v) (cp + sp R(θp)(v − rp)), ω = W^(1+σ) renormalised
    lbs = src.copy()
    if P:
        sig = np.array([q["sigma"] for q in pose])
        om = W ** (1 + sig) if sig.any() else W
        om = om / om.sum(axis=1, keepdims=True)
        lbs = np.zeros_like(src)
        for p, (pin, q) in enumerate(zip(pins, pose)):
            c, s = q["s"] * math.cos(q["th"]), q["s"] * math.sin(q["th"])
            R = np.array([[c, -s], [s, c]])
            moved = np.array([q["cx"], q["cy"]]) + (src - [pin["x"], pin["y"]]) @ R.T
            lbs += om[:, [p]] * moved

    # ARAP
    if P < 2:
        return dict(anchor=anchor, W=W, lbs=lbs, arap=lbs, arap_ran="lbs-fallback")
    cot = np.zeros(len(edges))
    eidx = {e: i for i, e in enumerate(edges)}
    for t in tris:
        a, b, c = src[t[0]], src[t[1]], src[t[2]]
        cross = abs((b - a)[0] * (c - a)[1] - (b - a)[1] * (c - a)[0])
        for k in range(3):
            i, j, o = int(t[k]), int(t[(k + 1) % 3]), int(t[(k + 2) % 3])
            if cross == 0:
                term = 0.5
            else:
                u, v = src[i] - src[o], src[j] - src[o]
                term = min(1e3, max(1e-3, 0.5 * (u @ v) / cross))
            cot[eidx[(min(i, j), max(i, j))]] += term
    sig = np.array([q["sigma"] for q in pose])
    s_v = W @ sig
    w = np.array([cot[k] * (1 + 6 * (s_v[a] + s_v[b]) / 2) for k, (a, b) in enumerate(edges)])
    L = reduced(w).tocsc()
    solve = spla.factorized(L) if len(free) else None
    cur = lbs.copy()
    for p, pin in enumerate(pins):
        cur[anchor[p]] = src[anchor[p]] + [pose[p]["cx"] - pin["x"], pose[p]["cy"] - pin["y"]]
    wmap = {}
    for k, (a, b) in enumerate(edges):
        wmap[(a, b)] = wmap[(b, a)] = w[k]
    pin_at = {a: p for p, a in enumerate(anchor)}
    lim = math.radians(max_rot) if max_rot is not None else math.inf
    active = [v for v in range(n) if comp[v] in pinned_comps]
    for _ in range(4):
        R = {}
        for v in active:
            p = pin_at.get(v)
            if p is not None and oriented[p]:
                R[v] = pose[p]["s"] * np.array([[math.cos(pose[p]["th"]), -math.sin(pose[p]["th"])],
                                                [math.sin(pose[p]["th"]), math.cos(pose[p]["th"])]])
                continue
            S = np.zeros((2, 2))
            for u in nbrs[v]:
                S += wmap[(v, u)] * np.outer(cur[v] - cur[u], src[v] - src[u])
            th = max(-lim, min(lim, math.atan2(S[1, 0] - S[0, 1], S[0, 0] + S[1, 1])))
            R[v] = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
        bx = np.zeros((len(free), 2))
        for v in free:
            for u in nbrs[v]:
                bx[index[v]] += wmap[(v, u)] / 2 * (R[v] + R[u]) @ (src[v] - src[u])
                if u in fixed:
                    bx[index[v]] += wmap[(v, u)] * cur[u]
        if free:
            cur[free, 0] = solve(bx[:, 0])
            cur[free, 1] = solve(bx[:, 1])
    return dict(anchor=anchor, W=W, lbs=lbs, arap=cur, arap_ran="arap")


# ---- the cases -----------------------------------------------------------------------------

def grid(w, h, step=10.0, jitter=0.0, seed=1, x0=0.0):
    rng = np.random.default_rng(seed)
    src = []
    for y in range(h):
        for x in range(w):
            dx, dy = (rng.uniform(-jitter, jitter, 2) if jitter else (0.0, 0.0))
            src += [x0 + x * step + dx, y * step + dy]
    tris = []
    for y in range(h - 1):
        for x in range(w - 1):
            a = y * w + x
            b, c, d = a + 1, a + w, a + w + 1
            tris += [a, b, d, a, d, c]
    return src, tris


def cases():
    src, tris = grid(12, 12)
    yield "grid, three pins, one rotated", dict(
        source=src, triangles=tris, frame=0, pins=[
            dict(id="a", x=0, y=0), dict(id="b", x=110, y=110 - 0.4),
            dict(id="c", x=55, y=0, rotation=20)],
        _move={"b": (20, -15), "c": (5, 8)})
    src, tris = grid(10, 9, step=10, jitter=3.5, seed=7)
    yield "jittered mesh (obtuse corners, clamps), stiffness, scale, keys, maxRotationDeg", dict(
        source=src, triangles=tris, frame=5, maxRotationDeg=30, pins=[
            dict(id="p0", x=0, y=0, stiffness=1.5),
            dict(id="p1", x=90, y=80, stiffness=0.3, scale=1.2,
                 keys={"rotation": [dict(frame=0, value=0), dict(frame=10, value=80)],
                       "position.x": [dict(frame=0, value=90), dict(frame=10, value=110)]}),
            dict(id="p2", x=45, y=40, keys={"stiffness": [dict(frame=0, value=0),
                                                          dict(frame=10, value=4)]}),
            dict(id="p3", x=88, y=2, rotation=-50)])
    a_src, a_tris = grid(6, 5)
    b_src, b_tris = grid(4, 4, x0=100)
    off = len(a_src) // 2
    yield "two components, one without a pin; a pin between vertices", dict(
        source=a_src + b_src, triangles=a_tris + [t + off for t in b_tris], frame=0, pins=[
            dict(id="l", x=1.5, y=2.0), dict(id="r", x=48.0, y=37.0, rotation=30)],
        _move={"l": (-4, 3), "r": (10, 6)})
    src, tris = grid(11, 3)
    yield "candy wrap, lbs solver", dict(
        source=src, triangles=tris, frame=0, solver="lbs", pins=[
            dict(id="left", x=0, y=10, rotation=90), dict(id="right", x=100, y=10, rotation=-90)])
    src, tris = grid(5, 5)
    yield "one pin: lbs fallback", dict(
        source=src, triangles=tris, frame=0, pins=[dict(id="only", x=20, y=20, scale=0.8)],
        _move={"only": (3, 4)})


def with_moves(case):
    """_move: static displacements written as position keys (one key each)."""
    case = json.loads(json.dumps(case))
    for pin in case["pins"]:
        dx, dy = case.get("_move", {}).get(pin["id"], (0, 0))
        if dx or dy:
            keys = pin.setdefault("keys", {})
            keys["position.x"] = [dict(frame=0, value=pin["x"] + dx)]
            keys["position.y"] = [dict(frame=0, value=pin["y"] + dy)]
    case.pop("_move", None)
    return case


def close(name, got, want, scale):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float).ravel()
    if got.shape != want.shape:
        return f"{name}: shape {got.shape} against {want.shape}"
    err = np.abs(got - want)
    tol = 1e-9 * np.maximum(np.abs(want), scale)
    if not np.all(err <= tol):
        i = int(np.argmax(err / tol))
        return f"{name}: entry {i} is {got[i]!r}, the oracle's {want[i]!r} (|diff| {err[i]:.3g})"
    return None


def main():
    failures = 0
    for title, case in cases():
        case = with_moves(case)
        run = subprocess.run([DRIVER], input=json.dumps(case), capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL {title}: driver exit {run.returncode}: {run.stderr.strip()}")
            failures += 1
            continue
        got = json.loads(run.stdout)
        want = oracle(case)
        src = np.array(case["source"]).reshape(-1, 2)
        scale = float(np.linalg.norm(src.max(axis=0) - src.min(axis=0)))
        problems = []
        if [int(v) for v in got["pinVertices"]] != want["anchor"]:
            problems.append(f"anchors {got['pinVertices']} against {want['anchor']}")
        problems += [p for p in (
            close("weights", got["weights"], want["W"], 1.0),
            close("lbs", got["lbs"], want["lbs"], scale),
            close("arap", got["arap"], want["arap"], scale)) if p]
        if got["arapRan"] != want["arap_ran"]:
            problems.append(f"arap ran {got['arapRan']}, the oracle {want['arap_ran']}")
        W = np.array(got["weights"]).reshape(len(src), -1)
        if not np.all(np.isfinite(W)) or not np.allclose(W.sum(axis=1), 1, rtol=0, atol=1e-12):
            problems.append("weights: a row does not sum to 1")
        if not np.array_equal(np.array(got["deformed"]),
                              np.array(got["lbs"] if case.get("solver") == "lbs" else got["arap"])):
            problems.append("deformed is not the definition's solver's field")
        status = "ok  " if not problems else "FAIL"
        print(f"{status} {title}")
        for p in problems:
            print(f"     {p}")
        failures += bool(problems)
    print(f"test_puppet_oracle: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
