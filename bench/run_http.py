#!/usr/bin/env python3
"""HTTP benchmarks of rigd, each figure beside a baseline measured in the same run.

Run by scripts/bench.sh after bench_core. Builds a fixture through the real API
(a 10,000-vertex grid skinned to 64 joint layers with 4 influences per vertex,
and 50 plain layers for multi-op batches), then drives it with bench/loadgen:

  edits   one-op and 50-op layer.pose batches, 1 and 8 keep-alive clients,
          beside bench_sqlite (BEGIN IMMEDIATE, insert, version bump, COMMIT at
          the same synchronous setting, same disk)
  frame   one frame of the skinned layer as f32 and JSON under 8 keep-alive
          clients, beside the floor: the cores over bench_core's resolver frame
          plus static_server's cost per request (same libmicrohttpd setup,
          static body of the f32 frame's size); JSON beside f32
  range   a 1,000-frame f32 range, frames/s and MB/s, beside the core's
          single-thread skin-evaluate rate (from bench_core) times the cores
  check   checking the same 1,000 frames (GET /v1/shots/s/check, and an edit's
          checkFrames as a dry run touching a joint, less the same dry run
          without it), beside the f32 range of the same frames, rounds
          interleaved; target ≤ 1.5 × the range's time

Every server here runs housekeeping once, at its start, before the edit cases
(--housekeeping-interval 86400; the auth case's server starts right after the
fixture, idle until its case). At the default interval the sweep 60 s in lands
on whichever case runs then, and the edit cases leave tens of thousands of
versions past --history-versions: compacting them keeps a core busy and holds
the database's write lock for tens of seconds, so a rigd started then cannot
lock the database for its migrations (the auth case's "rigd did not start").

Exits non-zero when a case could not run: a server that does not start, a
request that fails or answers another status than the case expects, a case
that completes no request. Figures and targets are reported, never asserted.
"""
import contextlib
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(HERE), "build-bench")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "e2e"))
os.environ["RIGD_BIN"] = os.path.join(BUILD, "server", "rigd")
from rigd_harness import Rigd  # noqa: E402
SECONDS = float(os.environ.get("BENCH_SECONDS", "4"))
CORE_EVAL_US = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
# bench_core's resolver frame (µs, one core): with the static body's cost, the one-frame floor.
CORE_FRAME_US = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
CORES = os.cpu_count() or 2
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
LOADGEN = os.path.join(BUILD, "bench", "loadgen")
# Housekeeping once, at start, before the fixture: see the docstring.
SERVER_ARGS = ("--housekeeping-interval", "86400")
# The edit cases' batches (also the A/B scripts'): one layer posed, and the 50 plain layers.
EDIT_ONE = {"ops": [{"op": "layer.pose", "layerId": "p0", "transform": {"rotation": 1}}]}
# The same batch alternating between two poses: every commit changes the layer, so history
# archives its row each time (EDIT_ONE repeated changes it only the first time).
EDIT_ONE_CHANGING = (EDIT_ONE, {"ops": [{"op": "layer.pose", "layerId": "p0",
                                         "transform": {"rotation": 3}}]})
EDIT_FIFTY = {"ops": [{"op": "layer.pose", "layerId": f"p{i}", "transform": {"rotation": 2}}
                      for i in range(50)]}
EDIT_FIFTY_CHANGING = (EDIT_FIFTY, {"ops": [{"op": "layer.pose", "layerId": f"p{i}",
                                             "transform": {"rotation": 4}} for i in range(50)]})
FAILED = []  # the cases whose requests failed: the run exits non-zero


def serve(db, auth=False):
    """A started rigd on db. It waits longer than the store's 10 s busy timeout, so a
    server that cannot take the database's lock says so itself before it is given up."""
    r = Rigd(db_path=db, auth=auth, extra_args=SERVER_ARGS)
    try:
        return r.start(timeout=30)
    except BaseException:
        r.cleanup()
        raise


def loadgen(port, method, path, body=None, connections=1, expect=200, headers=(), seconds=None):
    """body: one JSON body, or a tuple of them that each connection sends in turn."""
    args = [LOADGEN, "127.0.0.1", str(port), method, path, "--connections", str(connections),
            "--seconds", str(seconds or SECONDS), "--expect", str(expect)]
    tmps = []
    try:
        for b in (() if body is None else body if isinstance(body, tuple) else (body,)):
            tmp = tempfile.NamedTemporaryFile("w", prefix="rigd-bench-", suffix=".json",
                                              delete=False)
            tmps.append(tmp.name)
            json.dump(b, tmp)
            tmp.close()
            args += ["--body", tmp.name]
        for h in headers:
            args += ["--header", h]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    finally:
        for name in tmps:
            os.unlink(name)
    result = json.loads(out)
    if result["errors"] or result["statusMismatches"] or not result["requests"]:
        print(f"  ! {method} {path}: {result['requests']} requests, {result['errors']} errors, "
              f"{result['statusMismatches']} statuses other than {expect}", file=sys.stderr,
              flush=True)
        FAILED.append(f"{method} {path}")
    return result


def grid_skin(side=100, joints=64, lattice=8):
    """A side × side grid, each vertex weighted to its 4 nearest lattice joints."""
    spacing = 10.0
    src = [{"x": x * spacing, "y": y * spacing} for y in range(side) for x in range(side)]
    tris = []
    for y in range(side - 1):
        for x in range(side - 1):
            a = y * side + x
            tris.append([a, a + 1, a + side + 1])
            tris.append([a, a + side + 1, a + side])
    step = (side - 1) * spacing / (lattice - 1)
    jpos = [(i % lattice * step, i // lattice * step) for i in range(joints)]
    weights = []
    for v in src:
        d = sorted(range(joints), key=lambda j: (v["x"] - jpos[j][0]) ** 2 + (v["y"] - jpos[j][1]) ** 2)[:4]
        w = [1.0 / (1.0 + math.hypot(v["x"] - jpos[j][0], v["y"] - jpos[j][1])) for j in d]
        s = sum(w)
        w = [x / s for x in w]
        w[-1] = 1.0 - sum(w[:-1])  # exact sum of 1 within the tolerance
        weights.append([{"jointId": f"j{j}", "weight": wj} for j, wj in zip(d, w)])
    return {
        "source": src, "triangles": tris,
        "joints": [{"id": f"j{j}", "bind": [1, 0, 0, 1, jpos[j][0], jpos[j][1]]} for j in range(joints)],
        "weights": weights,
        "jointLayers": [{"jointId": f"j{j}", "layerId": f"j{j}"} for j in range(joints)],
    }


def build_fixture(r):
    r.make_shot("bench", "s")
    ops = [{"op": "layer.create", "layerId": "rig", "name": "rig", "kind": "group"}]
    skin = grid_skin()
    for j, jt in enumerate(skin["joints"]):
        ops.append({"op": "layer.create", "layerId": f"j{j}", "name": f"j{j}", "kind": "group",
                    "parentId": "rig", "transform": {"position": jt["bind"][4:6]}})
        ops.append({"op": "layer.key.put", "layerId": f"j{j}", "channel": "rotation",
                    "keys": [{"frame": 0, "value": 0}, {"frame": 1000, "value": 1 + j % 3}]})
    ops.append({"op": "layer.create", "layerId": "mesh", "name": "mesh", "kind": "mesh", "parentId": "rig"})
    ops.append({"op": "layer.skin", "layerId": "mesh", "skin": skin})
    for i in range(50):
        ops.append({"op": "layer.create", "layerId": f"p{i}", "name": f"p{i}", "kind": "group"})
    r.edit("s", ops)


def row(name, value, unit, baseline=None, base_name="", ratio_target=None):
    text = f"  {name:<44} {value:>12,.1f} {unit:<10}"
    if baseline:
        ratio = value / baseline
        text += f" vs {base_name} {baseline:,.1f}  ratio {ratio:.2f}"
        if ratio_target is not None:
            text += "  (target ≥ %.2f: %s)" % (ratio_target, "met" if ratio >= ratio_target else "NOT met")
    print(text)


def bare_tps(tmp, seconds):
    out = subprocess.run([os.path.join(BUILD, "bench", "bench_sqlite"), os.path.join(tmp, "bare.db"),
                          "FULL", str(seconds)], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["tps"]


def main():
    tmp = tempfile.mkdtemp(prefix="rigd-bench-", dir=BUILD)
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILED:
        print(f"run_http.py: {len(FAILED)} case(s) did not run cleanly: {'; '.join(FAILED)}",
              file=sys.stderr)
        return 1
    return 0


def run(tmp):
    db = os.path.join(tmp, "bench.db")
    if os.environ.get("BENCH_ONLY") == "check":  # the frame-check rows alone
        with serve(db) as r:
            build_fixture(r)
            check_frames(r)
        return
    print(f"\nrigd HTTP benchmarks ({CORES} cores, {SECONDS:g} s per case, synchronous=FULL, "
          f"database under {tmp})")
    print(f"\nedit batches (commits/s; {ROUNDS} rounds per case, each the bare SQLite baseline then "
          "rigd,\n  for SECONDS/2 each, so a drifting disk affects both; medians shown)")
    with contextlib.ExitStack() as servers:
        r = servers.enter_context(serve(db))
        build_fixture(r)
        # The auth server starts now, idle until its case: started later, its start-up
        # sweep would compact the edit cases' versions during that case.
        a = servers.enter_context(serve(db, auth=True))
        bases = []
        for name, body in (("1-op batch", EDIT_ONE), ("1-op changing batch", EDIT_ONE_CHANGING),
                           ("50-op batch", EDIT_FIFTY)):
            for c in (1, 8):
                rates, base_rates, ratios = [], [], []
                for _ in range(ROUNDS):
                    base_rates.append(bare_tps(tmp, SECONDS / 2))
                    res = loadgen(r.port, "POST", "/v1/shots/s/edits", body, connections=c,
                                  expect=201, seconds=SECONDS / 2)
                    rates.append(res["rps"])
                    ratios.append(rates[-1] / base_rates[-1])
                bases += base_rates
                target = (0.5 if c == 1 else 1.0) if name.startswith("1-op") else None
                ratio = statistics.median(ratios)
                text = (f"  {name + ', ' + str(c) + ' client' + ('s' if c > 1 else ''):<44} "
                        f"{statistics.median(rates):>12,.1f} commits/s  vs bare SQLite tx/s "
                        f"{statistics.median(base_rates):,.1f}  ratio {ratio:.2f}")
                if target is not None:
                    text += "  (target ≥ %.2f: %s)" % (target, "met" if ratio >= target else "NOT met")
                print(text + f"  [rounds: {', '.join(f'{x:.2f}' for x in ratios)}]")
        bare = statistics.median(bases)
        print(f"  (bare SQLite transaction: {bare:,.1f} tx/s, {1000 / bare:.2f} ms per fsync'd commit)")

        print("\none frame, 10,000-vertex 64-joint 4-influence skin, 8 keep-alive clients")
        f32 = loadgen(r.port, "GET", "/v1/shots/s/frames/500?layers=mesh&format=f32", connections=8)
        js = loadgen(r.port, "GET", "/v1/shots/s/frames/500?layers=mesh", connections=8)
        static = subprocess.Popen([os.path.join(BUILD, "bench", "static_server"),
                                   str(f32["bytesPerResponse"]), str(CORES)],
                                  stdout=subprocess.PIPE, text=True)
        try:
            port = int(static.stdout.readline())
            st = loadgen(port, "GET", "/static", connections=8)
        finally:
            static.terminate()
            static.wait()
        row("static body (libmicrohttpd baseline)", st["rps"], "req/s")
        if CORE_FRAME_US:
            # What the cores could serve if a frame cost only the resolver's frame and the
            # static body's CPU (cores / static rate): issue 23's floor.
            floor = CORES / (CORE_FRAME_US * 1e-6 + CORES / st["rps"])
            row("floor: cores / (resolver frame + static)", floor, "req/s")
            row("frame f32", f32["rps"], "req/s", floor, "floor", 0.85)
        else:
            row("frame f32", f32["rps"], "req/s", st["rps"], "static")
        row("frame json", js["rps"], "req/s", f32["rps"], "f32", 0.35)
        for name, res in (("static", st), ("f32", f32), ("json", js)):
            print(f"    {name:<8} p50 {res['p50Ms']:.3f} ms  p99 {res['p99Ms']:.3f} ms  "
                  f"{res['bytesPerResponse']:,} bytes")

        print("\nthe same f32 frame through authentication (a token lookup per request), 8 clients")
        frame = "/v1/shots/s/frames/500?layers=mesh&format=f32"
        with open(db + ".token") as f:
            bearer = "Authorization: Bearer " + f.read().strip()
        on = loadgen(a.port, "GET", frame, connections=8, headers=(bearer,))
        off = loadgen(r.port, "GET", frame, connections=8)  # adjacent, same machine state
        a.cleanup()  # done with it (the stack's cleanup again is a no-op)
        row("frame f32, auth on", on["rps"], "req/s", off["rps"], "auth off")
        for name, res in (("auth on", on), ("auth off", off)):
            print(f"    {name:<8} p50 {res['p50Ms']:.3f} ms  p99 {res['p99Ms']:.3f} ms")

        print("\n1,000-frame f32 range of the same layer, 1 client")
        rng = loadgen(r.port, "GET", "/v1/shots/s/layers/mesh/frames?from=0&to=999&format=f32",
                      connections=1)
        fps = rng["rps"] * 1000
        core_fps = (1e6 / CORE_EVAL_US) * CORES if CORE_EVAL_US else None
        row("range frames/s", fps, "frames/s", core_fps, f"core evaluate × {CORES} cores", 0.5)
        print(f"    {rng['rps'] * rng['bytesPerResponse'] / 1e6:,.1f} MB/s, "
              f"{rng['requests']} ranges of {rng['bytesPerResponse']:,} bytes")

        check_frames(r)


def check_frames(r):
    """Checking 1,000 frames beside the f32 range of the same frames (ms per request, 1
    client, rounds interleaved so machine drift weighs on both; medians)."""
    print(f"\nframe check of the same 1,000 frames beside the f32 range, 1 client, {ROUNDS} rounds")
    pose = [{"op": "layer.pose", "layerId": "j0", "transform": {"rotation": 0}}]
    cases = (("f32 range", "GET", "/v1/shots/s/layers/mesh/frames?from=0&to=999&format=f32",
              None, 200),
             ("GET check", "GET", "/v1/shots/s/check?from=0&to=999", None, 200),
             ("dry run + checkFrames", "POST", "/v1/shots/s/edits?dryRun=true",
              {"ops": pose, "checkFrames": {"from": 0, "to": 999}}, 200),
             ("dry run alone", "POST", "/v1/shots/s/edits?dryRun=true", {"ops": pose}, 200))
    ms = {name: [] for name, *_ in cases}
    for _ in range(ROUNDS):
        for name, method, path, body, expect in cases:
            res = loadgen(r.port, method, path, body, connections=1, expect=expect,
                          seconds=SECONDS / 2)
            ms[name].append(1000 / res["rps"])
    med = {name: statistics.median(v) for name, v in ms.items()}
    rng = med["f32 range"]
    batch = med["dry run + checkFrames"] - med["dry run alone"]
    for name, value in (("f32 range", rng), ("GET check", med["GET check"]),
                        ("checkFrames in a dry run (less the dry run)", batch)):
        text = f"  {name:<44} {value:>12,.1f} ms/1,000 frames"
        if name != "f32 range":
            ratio = value / rng
            text += (f" vs f32 range {rng:,.1f}  ratio {ratio:.2f}  (target ≤ 1.50: "
                     f"{'met' if ratio <= 1.5 else 'NOT met'})")
        print(text)
    print("    rounds (ms): " + "; ".join(f"{n} " + ", ".join(f"{x:.1f}" for x in v)
                                         for n, v in ms.items()))


if __name__ == "__main__":
    # SIGTERM as SIGINT: the finally blocks and the harness's atexit stop every server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
