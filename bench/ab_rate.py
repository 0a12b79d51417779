"""Compares rigd binaries by requests per second through bench/loadgen: every
binary on its own copy of run_http.py's fixture, all up at once, rounds
interleaved (the order flips every round) so load on the shared machine weighs
on each alike; medians of AB_ROUNDS rounds of AB_SECONDS each.

  AB_BINS="before=/path/a/server/rigd,after=build-bench/server/rigd" \
    python3 bench/ab_rate.py   # AB_ROUNDS=5 AB_SECONDS=2
                               # AB_CASES="1-op changing 50-op frame" (also: json)
                               # AB_ONLY="8 clients": the cases whose name has it

Issue 23 item 1 asks every edit batch shape, 1 and 8 clients, to be at least as
fast as the commit before history (38f30af): this is that comparison.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.argv = [sys.argv[0], os.path.join(os.path.dirname(HERE), "build-bench")]
sys.path.insert(0, HERE)
import run_http as rh  # noqa: E402
import rigd_harness  # noqa: E402

bins = dict(a.split("=") for a in os.environ["AB_BINS"].split(","))
rounds = int(os.environ.get("AB_ROUNDS", "5"))
seconds = float(os.environ.get("AB_SECONDS", "2"))
frame = "/v1/shots/s/frames/500?layers=mesh"
cases_all = [  # (name, method, path, body, clients, expected status)
    ("1-op batch, 1 client", "POST", "/v1/shots/s/edits", rh.EDIT_ONE, 1, 201),
    ("1-op batch, 8 clients", "POST", "/v1/shots/s/edits", rh.EDIT_ONE, 8, 201),
    ("changing 1-op batch, 1 client", "POST", "/v1/shots/s/edits", rh.EDIT_ONE_CHANGING, 1, 201),
    ("changing 1-op batch, 8 clients", "POST", "/v1/shots/s/edits", rh.EDIT_ONE_CHANGING, 8,
     201),
    ("50-op batch, 1 client", "POST", "/v1/shots/s/edits", rh.EDIT_FIFTY, 1, 201),
    ("50-op batch, 8 clients", "POST", "/v1/shots/s/edits", rh.EDIT_FIFTY, 8, 201),
    ("changing 50-op batch, 1 client", "POST", "/v1/shots/s/edits", rh.EDIT_FIFTY_CHANGING, 1,
     201),
    ("changing 50-op batch, 8 clients", "POST", "/v1/shots/s/edits", rh.EDIT_FIFTY_CHANGING,
     8, 201),
    ("frame f32, 8 clients", "GET", frame + "&format=f32", None, 8, 200),
    ("json frame, 8 clients", "GET", frame, None, 8, 200),
]
wanted = os.environ.get("AB_CASES", "1-op changing 50-op frame").split()
cases = [c for c in cases_all if c[0].split()[0] in wanted
         and os.environ.get("AB_ONLY", "") in c[0]]


def main():
    servers = {}
    tmp = tempfile.mkdtemp(prefix="rigd-ab-")
    try:
        for side, b in bins.items():
            rigd_harness.RIGD_BIN = b
            # A binary from before authentication has no --auth to turn off.
            old = "--auth" not in subprocess.run([b, "--help"], capture_output=True,
                                                 text=True).stdout
            r = rigd_harness.Rigd(db_path=os.path.join(tmp, side + ".db"),
                                  auth=old)
            servers[side] = r.__enter__()
            rh.build_fixture(r)
        rates = {(s, c[0]): [] for s in bins for c in cases}
        for i in range(rounds):
            for case in cases:
                name, method, path, body, clients, expect = case
                for side in (list(bins) if i % 2 == 0 else list(bins)[::-1]):
                    res = rh.loadgen(servers[side].port, method, path, body, connections=clients,
                                     expect=expect, seconds=seconds)
                    rates[(side, name)].append(res["rps"])
        sides = list(bins)
        print(f"{'case (req/s, medians of ' + str(rounds) + ' rounds)':<44}"
              + "".join(f"{s:>12}" for s in sides) + f"  {sides[-1]} / {sides[0]}")
        for case in cases:
            med = [statistics.median(rates[(s, case[0])]) for s in sides]
            print(f"{case[0]:<44}" + "".join(f"{m:>12,.0f}" for m in med)
                  + f"  {med[-1] / med[0]:.2f}")
    finally:
        for r in servers.values():
            r.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if rh.FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
