#!/usr/bin/env python3
"""History compaction after a burst of edits (docs/history.md "Retention and
compaction"), each figure beside a baseline measured in the same run.

Builds one shot of 50 group layers (10 of them keyed) through the real API and
gives it --versions versions of 12-op layer.pose batches (bench/loadgen, 4
keep-alive clients, --durability process to build it fast), so that
--history-versions 1000 leaves a backlog of versions - 1000. Then, per round,
starts a rigd on a fresh copy of that database (default durability), whose
start-up sweep compacts the backlog (at most 64 steps of 256 versions), and
measures while it runs and then at rest, on the same server:

  sweep   from the "listening" line to the sweep's "housekeeping" line, the
          versions it retired and the steps that took
  peer    a second connection (another process: a second rigd, its
          migrations) opening BEGIN IMMEDIATE every 20 ms with a 10 s busy
          timeout, as rigd's own connections wait: latency, and how many gave
          up with "database is locked"
  edits   one-op layer.pose batches through rigd's HTTP API, one after the
          other: latency

A sample counts in the sweep when it began before the sweep's end. The
figures at rest (--rest-seconds once the sweep is over, same server and
file) are the in-run baseline. --baseline-bin RIGD runs the same rounds with
another rigd (the main branch's, before this change) on its own copies,
alternating with this build's, round by round. The fixture is built by the
baseline's binary when there is one: an older rigd refuses a newer schema, and
this build migrates the copy at its start (the start-up time printed includes
that).

Usage: bench/history_compact.py [BUILD_DIR] [--versions N] [--rounds K]
       [--rest-seconds S] [--baseline-bin RIGD]
Reports, never asserts: exits non-zero only when the benchmark could not run.
"""
import argparse
import datetime
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

import rigd_harness  # noqa: E402

KEEP = 1000  # --history-versions of the measured servers
N_LAYERS, N_POSED, KEYED_EVERY = 50, 12, 5


def start(rigd_bin, db, args, timeout=120):
    rigd_harness.RIGD_BIN = rigd_bin  # read by start()
    r = rigd_harness.Rigd(db_path=db, extra_args=["--housekeeping-interval", "86400", *args])
    try:
        return r.start(timeout=timeout)
    except BaseException:
        r.cleanup()
        raise


def shot_version(rigd):
    r = rigd.get("/v1/shots/s")
    if r.status != 200:
        raise RuntimeError(f"GET shot: HTTP {r.status} {r.body[:200]!r}")
    return r.json["version"]


def build_fixture(rigd_bin, loadgen, db, versions):
    """A database whose shot s has `versions` versions, none compacted."""
    rigd = start(rigd_bin, db, ["--durability", "process", "--history-versions", str(10 * versions)])
    try:
        rigd.make_shot("p", "s")
        ops = [{"op": "layer.create", "layerId": f"p{i}", "name": f"p{i}", "kind": "group"}
               for i in range(N_LAYERS)]
        ops += [{"op": "layer.key.put", "layerId": f"p{i}", "channel": "rotation",
                 "keys": [{"frame": 0, "value": 0}, {"frame": 100, "value": 1}]}
                for i in range(0, N_LAYERS, KEYED_EVERY)]
        rigd.edit("s", ops)
        # Two poses in turn: every version changes its layers (one pose repeated would
        # change them once, and history would keep nothing of the rest).
        paths = []
        for k, rotation in enumerate((2, 3)):
            body = {"ops": [{"op": "layer.pose", "layerId": f"p{i}",
                             "transform": {"rotation": rotation}} for i in range(N_POSED)]}
            paths.append(os.path.join(os.path.dirname(db), f"pose{k}.json"))
            with open(paths[-1], "w") as f:
                json.dump(body, f)
        t0 = time.monotonic()
        burst, have = 1.0, shot_version(rigd)
        while have < versions:  # a first burst gives the rate; the next ones aim at the rest
            out = subprocess.run([loadgen, "127.0.0.1", str(rigd.port), "POST", "/v1/shots/s/edits",
                                  "--connections", "4", "--seconds", f"{burst:.2f}", "--expect",
                                  "201", "--body", paths[0], "--body", paths[1]],
                                 capture_output=True, text=True, check=True)
            res = json.loads(out.stdout)
            if res["errors"] or res["statusMismatches"] or not res["requests"]:
                raise RuntimeError(f"building the fixture: {out.stdout}")
            have = shot_version(rigd)
            burst = min(10.0, max(0.1, (versions - have) / res["rps"]))
        built = shot_version(rigd)
        took = time.monotonic() - t0
    finally:
        rigd.cleanup()
    if os.path.exists(db + "-wal"):
        raise RuntimeError("the fixture's WAL was not checkpointed on close")
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT count(*) FROM layer_history").fetchone()[0]
    archived = (conn.execute("SELECT count(*) FROM layer_archive").fetchone()[0]
                if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'layer_archive'")
                .fetchone() else 0)
    conn.close()
    print(f"fixture: {built} versions of {N_POSED}-op layer.pose batches on {N_LAYERS} layers "
          f"in {took:.1f} s; {rows:,} layer_history rows, {archived:,} layer_archive values, "
          f"{os.path.getsize(db) / 2**20:.0f} MiB", flush=True)
    return built


def log_time(rigd, msg):
    """The time (epoch seconds) of rigd's first log line `msg`, or None."""
    for line in rigd.read_log().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("msg") == msg:
            ts = datetime.datetime.strptime(entry["ts"], "%Y-%m-%dT%H:%M:%S.%fZ")
            return ts.replace(tzinfo=datetime.timezone.utc).timestamp()
    return None


class Probe(threading.Thread):
    """Runs fn every `every` seconds until stopped; records (start time, seconds, ok)."""

    def __init__(self, fn, every):
        super().__init__(daemon=True)
        self.fn, self.every = fn, every
        self.samples, self.stop = [], threading.Event()
        self.error = None

    def run(self):
        try:
            while not self.stop.is_set():
                t0 = time.time()
                ok = self.fn()
                self.samples.append((t0, time.time() - t0, ok))
                self.stop.wait(self.every)
        except Exception as e:  # reported by the round, not lost in the thread
            self.error = e


def peer_probe(db):
    conn = sqlite3.connect(db, timeout=10, isolation_level=None, check_same_thread=False)

    def begin():
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e):
                raise
            return False
        conn.execute("ROLLBACK")
        return True
    return begin, conn


def edit_probe(rigd):
    conn = rigd.connect(timeout=60)
    state = {"k": 0}

    def edit():
        state["k"] += 1
        r = rigd.post("/v1/shots/s/edits", {"ops": [{
            "op": "layer.pose", "layerId": f"p{N_LAYERS - 1}",
            "transform": {"rotation": state["k"] % 360}}]}, conn=conn)
        if r.status != 201:
            raise RuntimeError(f"edit: HTTP {r.status} {r.body[:200]!r}")
        return True
    return edit, conn


def history_from(db):
    conn = sqlite3.connect(db, timeout=30)
    try:
        return conn.execute("SELECT history_from FROM shots WHERE id = 's'").fetchone()[0]
    finally:
        conn.close()


def run_round(rigd_bin, fixture, tmp, rest_seconds, label):
    db = os.path.join(tmp, f"{label}.db")
    shutil.copyfile(fixture, db)
    before = history_from(db)
    t0 = time.monotonic()
    rigd = start(rigd_bin, db, ["--history-versions", str(KEEP)])
    started_s = time.monotonic() - t0
    peer_fn, peer_conn = peer_probe(db)
    edit_fn, edit_conn = edit_probe(rigd)
    probes = {"peer": Probe(peer_fn, 0.02), "edits": Probe(edit_fn, 0.0)}
    try:
        for p in probes.values():
            p.start()
        deadline = time.monotonic() + 300
        while log_time(rigd, "housekeeping") is None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"[{label}] the start-up sweep did not end in 300 s")
            if any(p.error for p in probes.values()):
                break
            time.sleep(0.05)
        swept = log_time(rigd, "housekeeping")
        time.sleep(rest_seconds + 0.2)
    finally:
        for p in probes.values():
            p.stop.set()
        for p in probes.values():
            p.join(30)
        peer_conn.close()
        edit_conn.close()
        listening = log_time(rigd, "listening")
        rigd.cleanup()
    for name, p in probes.items():
        if p.error:
            raise RuntimeError(f"[{label}] {name}: {p.error}")
    after = history_from(db)
    os.unlink(db)
    for side in ("-wal", "-shm"):
        if os.path.exists(db + side):
            os.unlink(db + side)

    def phase(samples, during):  # by when a sample began: one begun in the sweep counts there
        return [(s, ok) for t, s, ok in samples if (t < swept if during else t >= swept + 0.2)]
    out = {"start_s": started_s, "sweep_s": swept - listening, "retired": after - before}
    for name, p in probes.items():
        for during in (True, False):
            xs = phase(p.samples, during)
            out[(name, during)] = ([s for s, ok in xs if ok], sum(1 for _, ok in xs if not ok))
    return out


def ms(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return 1000 * (statistics.median(xs) if q == "med" else xs[min(len(xs) - 1, int(q * len(xs)))])


def report(label, rounds):
    steps = max(1, -(-rounds[0]["retired"] // 256))
    sweep = statistics.median(r["sweep_s"] for r in rounds)
    start_s = statistics.median(r["start_s"] for r in rounds)
    each = ", ".join(f"{r['sweep_s']:.2f}" for r in rounds)
    print(f"[{label}] start-up (migrations included) {start_s:.2f} s; sweep {sweep:.2f} s for "
          f"{rounds[0]['retired']:,} versions in {steps} steps ({1000 * sweep / steps:.1f} ms a "
          f"step)  [rounds: {each}]")
    for name, what in (("peer", "second connection's BEGIN IMMEDIATE"),
                       ("edits", "one-op edit batch")):
        for during in (True, False):
            xs = [x for r in rounds for x in r[(name, during)][0]]
            fails = sum(r[(name, during)][1] for r in rounds)
            print(f"[{label}]   {what:<38} {'during the sweep' if during else 'at rest':<16} "
                  f"n {len(xs):>5}  median {ms(xs, 'med'):8.1f} ms  p99 {ms(xs, 0.99):8.1f} ms  "
                  f"max {ms(xs, 1.0):8.1f} ms"
                  + (f"  gave up (database is locked): {fails}" if name == "peer" else ""))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--versions", type=int, default=40000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--rest-seconds", type=float, default=3.0)
    ap.add_argument("--baseline-bin", help="another rigd (the main branch's), in the same run")
    a = ap.parse_args()
    rigd_bin = os.path.join(a.build, "server", "rigd")
    loadgen = os.path.join(a.build, "bench", "loadgen")
    tmp = tempfile.mkdtemp(prefix="rigd-compact-", dir=a.build)
    try:
        fixture = os.path.join(tmp, "fixture.db")
        build_fixture(a.baseline_bin or rigd_bin, loadgen, fixture, a.versions)
        bins = ([("baseline", a.baseline_bin)] if a.baseline_bin else []) + [("this build", rigd_bin)]
        results = {label: [] for label, _ in bins}
        for k in range(a.rounds):  # alternating, so a drifting machine weighs on both
            for label, path in (bins if k % 2 == 0 else bins[::-1]):
                results[label].append(run_round(path, fixture, tmp, a.rest_seconds,
                                                label.replace(" ", "-")))
        print(f"\nhistory compaction: --history-versions {KEEP}, {a.rounds} round(s) each"
              f"{', alternating' if a.baseline_bin else ''}; the figures at rest are the same "
              "server's once the sweep is over")
        for label, _ in bins:
            report(label, results[label])
        if a.baseline_bin:
            base, new = (statistics.median(r["sweep_s"] for r in results[k])
                         for k in ("baseline", "this build"))
            print(f"sweep, this build / baseline: {new / base:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
