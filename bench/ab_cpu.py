"""Compares rigd binaries: server CPU time per request (utime + stime of the
server process from /proc), every binary on its own copy of run_http.py's
fixture, all up at once, requests interleaved round by round so other load
on the machine weighs on each alike.

  AB_BINS="before=/path/a/server/rigd,after=build-bench/server/rigd" \
    python3 bench/ab_cpu.py        # AB_ROUNDS=5, AB_CASES="range frame 50-op"
                                   # (also: 1-op, changing-1-op, changing-50-op,
                                   # mesh-data, shot)
"""
import os, statistics, subprocess, sys, tempfile, urllib.request, json
HERE = os.path.dirname(os.path.abspath(__file__))
sys.argv = [sys.argv[0], os.path.join(os.path.dirname(HERE), "build-bench")]
sys.path.insert(0, HERE)
import run_http as rh  # noqa: E402
import rigd_harness  # noqa: E402
TCK = os.sysconf("SC_CLK_TCK")
bins = dict(a.split("=") for a in os.environ["AB_BINS"].split(","))
servers = {}
for side, b in bins.items():
    rigd_harness.RIGD_BIN = b
    # Builds from before authentication have no --auth to turn off.
    has_auth = "--auth" in subprocess.run([b, "--help"], capture_output=True, text=True).stdout
    r = rigd_harness.Rigd(db_path=os.path.join(tempfile.mkdtemp(prefix="ab-"), "ab.db"),
                          auth=not has_auth)
    r.__enter__()
    rh.build_fixture(r)
    servers[side] = r

def cpu(r):
    f = open(f"/proc/{r.proc.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TCK

def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}") as resp:
        return len(resp.read())

def post(port, path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req) as resp:
        return resp.status

turns = [0]


def changing(bodies):
    """The bodies in turn: every batch changes what the one before set."""
    turns[0] += 1
    return bodies[turns[0] % len(bodies)]


cases_all = {
    "range 1000 f32 (ms CPU)": (lambda p: get(p, "/v1/shots/s/layers/mesh/frames?from=0&to=999&format=f32"), 4),
    "frame f32 (µs CPU)": (lambda p: get(p, "/v1/shots/s/frames/500?layers=mesh&format=f32"), 400),
    "1-op batch (µs CPU)": (lambda p: post(p, "/v1/shots/s/edits", rh.EDIT_ONE), 600),
    "50-op batch (µs CPU)": (lambda p: post(p, "/v1/shots/s/edits", rh.EDIT_FIFTY), 300),
    "changing-1-op batch (µs CPU)": (
        lambda p: post(p, "/v1/shots/s/edits", changing(rh.EDIT_ONE_CHANGING)), 600),
    "changing-50-op batch (µs CPU)": (
        lambda p: post(p, "/v1/shots/s/edits", changing(rh.EDIT_FIFTY_CHANGING)), 300),
    "mesh-data 1000 weights (µs CPU)": (lambda p: get(p, "/v1/shots/s/layers/mesh/mesh-data/weights?pageSize=1000"), 200),
    "mesh-data 1000 evaluated vertices (µs CPU)": (
        lambda p: get(p, "/v1/shots/s/layers/mesh/mesh-data/vertices?pageSize=1000&frame=500"), 200),
    "shot JSON (µs CPU)": (lambda p: get(p, "/v1/shots/s"), 400),
}
wanted = os.environ.get("AB_CASES", "range frame 50-op").split()
# "mesh-data" picks both mesh-data cases.
cases = {k: v for k, v in cases_all.items() if k.split()[0] in wanted}
res = {(s, c): [] for s in bins for c in cases}
for i in range(int(os.environ.get("AB_ROUNDS", "5"))):
    for side in (list(bins) if i % 2 == 0 else list(bins)[::-1]):
        r = servers[side]
        for name, (fn, n) in cases.items():
            t0 = cpu(r)
            for _ in range(n):
                fn(r.port)
            per = (cpu(r) - t0) / n
            res[(side, name)].append(per * (1e3 if "ms" in name else 1e6))
for name in cases:
    print(f"{name:<26}", "  ".join(f"{s} {statistics.median(res[(s, name)]):9.1f} [{', '.join(f'{x:.0f}' for x in res[(s, name)])}]" for s in bins))
for r in servers.values():
    r.__exit__(None, None, None)
