"""Crash safety under SIGKILL (SPEC §6, §8, §10; issue 7).

Several client threads stream edit batches, each with its own Idempotency-Key,
while the server is killed with SIGKILL at a seeded random moment; the server
is restarted on the same database file and, after every round, the test checks:

- every batch that got a 2xx receipt is present, with that exact receipt
  (GET /v1/receipts/{id}) - "lost" counts the ones that are not;
- no batch is half applied: batch n creates the layers batch-n-a / -b / -c
  (a chain, a positioned at [n, -n], c a skinned mesh whose joint is a) and
  keys the pre-existing layer "anchor" at frame n with rotation n + 0.5, and
  writes one receipt; either all five effects exist or none - "torn" counts
  batches with some but not all;
- versions are gapless (toVersion 1..V, fromVersion = toVersion - 1) and V
  equals the number of receipts, one receipt per idempotency key;
- PRAGMA integrity_check is "ok" on the killed database (opened read-only
  before the restart, so rigd still recovers the WAL itself);
- a client that retries after the restart with its idempotency key gets its
  original receipt (same receiptId, Idempotency-Replayed: true) when the batch
  had been applied, or a clean first application when it had not; never a
  second application.

Rounds alternate --durability full and process (both survive a process crash).
The kill moments and the round parameters come from a seed that is printed;
RIG_CRASH_SEED=<seed> replays them (thread interleaving is up to the OS);
RIG_CRASH_ROUNDS=<n> runs more rounds. A fifth client hangs up right after
sending each batch, so "applied but never answered" is exercised every round.

History (issue 15): the server keeps only HISTORY versions and compacts every
second, so kills also land in history writes and compactions. After each
restart every retained version must read back (?version) with exactly the
batches whose receipts reached it (their layers, and the skin of each
sampled batch's mesh at that version), versions below the oldest retained one
answer 410 VERSION_COMPACTED, and the oldest retained one is within HISTORY of
the head.
"""
import http.client
import json
import os
import random
import shutil
import socket
import tempfile
import threading
import time
import unittest

from rigd_harness import Rigd, main
from sqlite_store import integrity

SHOT = "s1"
EDITS = f"/v1/shots/{SHOT}/edits"
CLIENTS = 4
ROUNDS = int(os.environ.get("RIG_CRASH_ROUNDS", "5"))
SEED = int(os.environ.get("RIG_CRASH_SEED") or random.SystemRandom().randrange(1, 2**31))

HISTORY = 40

SKIN_SOURCE = [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 0, "y": 10}]


def batch_ops(n):
    """The recognisable five-effect pattern of batch n."""
    a, b, c = f"batch-{n}-a", f"batch-{n}-b", f"batch-{n}-c"
    return [
        {"op": "layer.create", "layerId": a, "name": f"batch {n} a", "kind": "group",
         "transform": {"position": [n, -n]}},
        {"op": "layer.create", "layerId": b, "name": f"batch {n} b", "kind": "group",
         "parentId": a},
        {"op": "layer.create", "layerId": c, "name": f"batch {n} c", "kind": "mesh",
         "parentId": b},
        {"op": "layer.skin", "layerId": c, "skin": {
            "source": SKIN_SOURCE, "triangles": [[0, 1, 2]],
            "joints": [{"id": "j", "bind": [1, 0, 0, 1, 0, 0]}],
            "weights": [[{"jointId": "j", "weight": 1}]] * 3,
            "jointLayers": [{"jointId": "j", "layerId": a}]}},
        {"op": "layer.pose", "layerId": "anchor", "frame": n, "transform": {"rotation": n + 0.5}},
    ]


class Attempt:
    def __init__(self, n, client, rnd):
        self.n = n
        self.key = f"crash-{n}"
        self.actor = f"client-{client}"
        self.body = json.dumps({"ops": batch_ops(n)}).encode()
        self.round = rnd
        self.receipt = None      # the 2xx receipt, when acknowledged
        self.outcome = "unsent"  # acked | in-flight | error


def post(port, attempt, conn=None):
    """POSTs the attempt's batch (its key, actor and exact bytes). Returns (status, headers, body)."""
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", EDITS, body=attempt.body, headers={
            "Content-Type": "application/json", "Idempotency-Key": attempt.key,
            "X-Rigd-Actor": attempt.actor})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        if own:
            conn.close()


class CrashSafety(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rigd-crash-")
        self.db = os.path.join(self.tmp, "rigd.db")
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.cleanup()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, durability):
        s = Rigd(db_path=self.db, extra_args=["--durability", durability,
                                              "--history-versions", str(HISTORY),
                                              "--housekeeping-interval", "1"])
        self.servers.append(s)
        return s.start()

    # ---- the state of the shot after a restart ----
    def read_state(self, rigd):
        shot = rigd.get(f"/v1/shots/{SHOT}")
        self.assertEqual(shot.status, 200, shot)
        shot = shot.json
        receipts, token = [], None
        while True:
            q = f"/v1/shots/{SHOT}/receipts?pageSize=10000" + (f"&pageToken={token}" if token else "")
            page = rigd.get(q)
            self.assertEqual(page.status, 200, page)
            receipts += page.json["receipts"]
            token = page.json.get("nextPageToken")
            if not token:
                break
        anchor = rigd.get(f"/v1/shots/{SHOT}/layers/anchor")
        self.assertEqual(anchor.status, 200, anchor)
        keys = {k["frame"]: k["value"] for k in anchor.json["keys"].get("rotation", [])}
        layers = {l["layerId"]: l for l in shot["layers"]}
        return shot["version"], receipts, layers, keys

    @staticmethod
    def effects(n, layers, keys, receipt_by_key):
        """Which of batch n's five effects are present."""
        a, b, c = (layers.get(f"batch-{n}-{s}") for s in "abc")
        return [
            bool(a and a["parentId"] is None and a["transform"]["position"] == [float(n), float(-n)]),
            bool(b and b["parentId"] == f"batch-{n}-a"),
            bool(c and c["parentId"] == f"batch-{n}-b" and c["kind"] == "mesh"
                 and (c.get("binding") or {}).get("kind") == "skin"
                 and c["binding"].get("vertexCount") == 3),
            keys.get(float(n)) == n + 0.5,
            f"crash-{n}" in receipt_by_key,
        ]

    def check_history(self, rigd, version, receipt_by_key, rng, problems, rnd):
        """Retained versions read back with exactly the batches that reached them."""
        reached = {int(k[len("crash-"):]): r["toVersion"] for k, r in receipt_by_key.items()
                   if k.startswith("crash-")}
        # The start-up sweep compacts what the killed server left in steps, pausing
        # between them (docs/history.md): read the versions once it reached the window.
        deadline = time.monotonic() + 30
        below = f"/v1/shots/{SHOT}?version={version - HISTORY}"
        while version > HISTORY and rigd.get(below).status != 410:
            if time.monotonic() > deadline:
                problems.append(f"round {rnd}: the start-up sweep did not compact to the window")
                return 0
            time.sleep(0.02)
        oldest = None
        for v in range(max(0, version - HISTORY - 5), version + 1):
            r = rigd.get(f"/v1/shots/{SHOT}?version={v}")
            if r.status == 410 and r.json["code"] == "VERSION_COMPACTED":
                oldest = r.json["oldestVersion"]
                continue
            if r.status != 200:
                problems.append(f"round {rnd}: version {v}: {r}")
                return 0
            break
        else:
            problems.append(f"round {rnd}: no retained version up to the head {version}")
            return 0
        first = v
        if oldest is not None and oldest != first:
            problems.append(f"round {rnd}: oldestVersion {oldest}, but {first} is the first read")
        if version - first + 1 > HISTORY + 5:
            problems.append(f"round {rnd}: {version - first + 1} versions retained")
        checked = 0
        for v in sorted(set(rng.sample(range(first, version + 1),
                                       min(12, version - first + 1))) | {first, version}):
            shot = rigd.get(f"/v1/shots/{SHOT}?version={v}")
            if shot.status != 200 or shot.json["version"] != v:
                problems.append(f"round {rnd}: version {v} unreadable: {shot}")
                continue
            have = {l["layerId"] for l in shot.json["layers"]}
            for n, to in reached.items():
                want = to <= v
                got = [f"batch-{n}-{x}" in have for x in "abc"]
                if got != [want] * 3:
                    problems.append(f"round {rnd}: version {v}, batch {n} (version {to}): {got}")
            # the anchor's rotation keys (stored per channel) hold exactly the
            # keys of the batches that reached v
            anchor = rigd.get(f"/v1/shots/{SHOT}/layers/anchor?version={v}")
            got_keys = {k["frame"]: k["value"]
                        for k in (anchor.json or {}).get("keys", {}).get("rotation", [])} \
                if anchor.status == 200 else None
            want_keys = {float(n): n + 0.5 for n, to in reached.items() if to <= v}
            if got_keys != want_keys:
                problems.append(f"round {rnd}: anchor keys at version {v}: {anchor}")
            sample = [n for n, to in reached.items() if to <= v]
            for n in rng.sample(sample, min(2, len(sample))):
                # a batch's skin never changes after its batch: the head's
                sk = rigd.get(f"/v1/shots/{SHOT}/layers/batch-{n}-c/skin?version={v}")
                head = rigd.get(f"/v1/shots/{SHOT}/layers/batch-{n}-c/skin")
                if sk.status != 200 or head.status != 200 or sk.json["skin"] != head.json["skin"] \
                        or len(sk.json["skin"]["source"]) != len(SKIN_SOURCE):
                    problems.append(f"round {rnd}: skin of batch {n} at version {v}: {sk}")
            checked += 1
        return checked

    def test_sigkill_rounds_lose_nothing_and_tear_nothing(self):
        rng = random.Random(SEED)
        kill_times = [rng.uniform(0.25, 1.25) for _ in range(ROUNDS)]  # replayable from the seed
        print(f"\ncrash seed: {SEED} (replay with RIG_CRASH_SEED={SEED}), "
              f"{ROUNDS} rounds, {CLIENTS} clients", flush=True)
        t_start = time.monotonic()
        attempts = {}           # n -> Attempt
        counter = [0]
        lock = threading.Lock()
        figures = {"acked": 0, "in_flight": 0, "in_flight_applied": 0, "in_flight_not_applied": 0,
                   "verified": 0, "lost": 0, "torn": 0, "doubled": 0, "replays": 0,
                   "fresh_retries": 0, "integrity_ok": 0, "unexpected": 0,
                   "versions_checked": 0}
        problems = []

        rigd = self.start("full")
        rigd.make_shot("p1", SHOT)
        rigd.edit(SHOT, [{"op": "layer.create", "layerId": "anchor", "name": "anchor",
                          "kind": "group"}])
        base_version = 1  # the setup batch; every later version is one whole batch

        for rnd in range(ROUNDS):
            durability = "full" if rnd % 2 == 0 else "process"
            if rnd:
                rigd = self.start(durability)
            kill_after = kill_times[rnd]
            port = rigd.port
            stop = threading.Event()

            def client(cid, rnd=rnd, port=port, stop=stop):
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                while not stop.is_set():
                    with lock:
                        counter[0] += 1
                        att = Attempt(counter[0], cid, rnd)
                        attempts[att.n] = att
                    att.outcome = "in-flight"
                    try:
                        status, headers, body = post(port, att, conn)
                    except (OSError, http.client.HTTPException):
                        return  # the server died under us: the outcome is unknown
                    if status == 201:
                        att.receipt = json.loads(body)
                        att.outcome = "acked"
                    else:
                        att.outcome = "error"
                        problems.append(f"batch {att.n}: unexpected {status} {body[:200]!r}")

            def dropper(cid, rnd=rnd, port=port, stop=stop):
                # A client whose answers get lost (it hangs up before reading):
                # its batches are mostly applied without the client knowing.
                while not stop.is_set():
                    with lock:
                        counter[0] += 1
                        att = Attempt(counter[0], cid, rnd)
                        attempts[att.n] = att
                    att.outcome = "in-flight"
                    try:
                        s = socket.create_connection(("127.0.0.1", port), timeout=5)
                        s.sendall(b"POST " + EDITS.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                                  b"Content-Type: application/json\r\nIdempotency-Key: "
                                  + att.key.encode() + b"\r\nX-Rigd-Actor: " + att.actor.encode()
                                  + b"\r\nContent-Length: %d\r\n\r\n" % len(att.body) + att.body)
                        time.sleep(0.03)
                        s.close()
                    except OSError:
                        return
                    time.sleep(0.03)

            threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
            threads.append(threading.Thread(target=dropper, args=(CLIENTS,)))
            for t in threads:
                t.start()
            time.sleep(kill_after)
            rigd.kill()
            stop.set()
            for t in threads:
                t.join(30)
                self.assertFalse(t.is_alive(), "a client thread hung after the kill")

            # integrity of the killed database, before any restart
            ok, fk = integrity(self.db)
            wal = os.path.exists(self.db + "-wal")
            self.assertEqual(ok, ["ok"], f"round {rnd}: integrity_check")
            self.assertEqual(fk, [], f"round {rnd}: foreign_key_check")
            figures["integrity_ok"] += 1

            this_round = [a for a in attempts.values() if a.round == rnd]
            acked = [a for a in this_round if a.outcome == "acked"]
            unknown = [a for a in this_round if a.outcome == "in-flight"]
            figures["acked"] += len(acked)
            figures["in_flight"] += len(unknown)
            dropped = sum(1 for a in unknown if a.actor == f"client-{CLIENTS}")

            # restart on the same file and check everything ever attempted
            rigd = self.start(durability)
            version, receipts, layers, keys = self.read_state(rigd)
            receipt_by_key = {}
            for r in receipts:
                if r.get("idempotencyKey"):
                    if r["idempotencyKey"] in receipt_by_key:
                        figures["doubled"] += 1
                        problems.append(f"two receipts for key {r['idempotencyKey']}")
                    receipt_by_key[r["idempotencyKey"]] = r
            to_versions = sorted(r["toVersion"] for r in receipts)
            gapless = to_versions == list(range(1, version + 1)) and all(
                r["fromVersion"] == r["toVersion"] - 1 for r in receipts)
            self.assertTrue(gapless, f"round {rnd}: versions {to_versions[:5]}... "
                                     f"vs shot version {version}")
            self.assertEqual(version, len(receipts), f"round {rnd}: version vs receipt count")
            applied_now = set()
            round_lost = round_torn = 0
            for n, att in sorted(attempts.items()):
                present = self.effects(n, layers, keys, receipt_by_key)
                if any(present) and not all(present):
                    round_torn += 1
                    problems.append(f"round {rnd}: batch {n} torn: effects {present}")
                if all(present):
                    applied_now.add(n)
                if att.outcome == "acked":
                    if not all(present):
                        round_lost += 1
                        problems.append(f"round {rnd}: acknowledged batch {n} lost: {present}")
                        continue
                    got = rigd.get(f"/v1/receipts/{att.receipt['receiptId']}")
                    if got.status != 200 or got.json != att.receipt:
                        round_lost += 1
                        problems.append(f"round {rnd}: receipt of batch {n}: {got}")
                        continue
                    if receipt_by_key[att.key]["receiptId"] != att.receipt["receiptId"]:
                        round_lost += 1
                        problems.append(f"round {rnd}: batch {n} has another receipt")
                        continue
                    if att.round == rnd:
                        figures["verified"] += 1
            figures["lost"] += round_lost
            figures["torn"] += round_torn
            figures["versions_checked"] += self.check_history(rigd, version, receipt_by_key,
                                                              rng, problems, rnd)
            self.assertEqual(version - base_version, len(applied_now),
                             f"round {rnd}: every version is one whole batch")

            # clients retry the batches whose answer they never got ...
            for att in unknown:
                was_applied = att.n in applied_now
                status, headers, body = post(rigd.port, att)
                self.assertEqual(status, 201, f"retry of batch {att.n}: {status} {body[:300]!r}")
                rec = json.loads(body)
                replayed = headers.get("idempotency-replayed") == "true"
                if was_applied:
                    figures["in_flight_applied"] += 1
                    self.assertTrue(replayed, f"retry of applied batch {att.n} was not a replay")
                    self.assertEqual(rec["receiptId"], receipt_by_key[att.key]["receiptId"],
                                     f"retry of batch {att.n} got another receipt")
                    figures["replays"] += 1
                else:
                    figures["in_flight_not_applied"] += 1
                    self.assertFalse(replayed, f"batch {att.n} was not applied but replayed")
                    self.assertEqual(rec["fromVersion"], version, rec)
                    version += 1
                    figures["fresh_retries"] += 1
                att.receipt, att.outcome = rec, "acked"
            # ... and some acknowledged ones retry too: their original receipt, nothing applied
            for att in rng.sample(acked, min(15, len(acked))):
                status, headers, body = post(rigd.port, att)
                self.assertEqual(status, 201, body[:300])
                self.assertEqual(headers.get("idempotency-replayed"), "true")
                self.assertEqual(json.loads(body), att.receipt)
                figures["replays"] += 1
            after = rigd.get(f"/v1/shots/{SHOT}").json["version"]
            self.assertEqual(after, version, "a retry applied a batch twice")
            print(f"round {rnd + 1}: durability={durability} kill after {kill_after:.3f}s, "
                  f"wal-at-kill={wal}, acknowledged {len(acked)}, unanswered {len(unknown)} "
                  f"({dropped} hung up by the client), "
                  f"version {after}, lost {round_lost}, torn {round_torn}", flush=True)
            rigd.stop()

        # a clean shutdown leaves a database that checks out too
        ok, fk = integrity(self.db)
        self.assertEqual(ok, ["ok"])
        elapsed = time.monotonic() - t_start
        print(f"crash safety: seed {SEED}, rounds {ROUNDS}, batches attempted {len(attempts)}, "
              f"batches acknowledged {figures['acked']}, batches verified {figures['verified']}, "
              f"unanswered (in flight at the kill or hung up) {figures['in_flight']} (applied {figures['in_flight_applied']}, "
              f"not applied {figures['in_flight_not_applied']}), idempotent replays "
              f"{figures['replays']}, fresh retries {figures['fresh_retries']}, "
              f"integrity ok {figures['integrity_ok']}/{ROUNDS}, lost = {figures['lost']}, "
              f"torn = {figures['torn']}, doubled = {figures['doubled']}, "
              f"past versions read back {figures['versions_checked']}, "
              f"{elapsed:.1f}s", flush=True)
        self.assertEqual(problems, [])
        self.assertEqual(figures["lost"], 0)
        self.assertEqual(figures["torn"], 0)
        self.assertEqual(figures["doubled"], 0)
        self.assertEqual(figures["verified"], figures["acked"])
        self.assertGreater(figures["acked"], 0)


if __name__ == "__main__":
    main()
