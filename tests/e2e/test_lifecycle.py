"""The rigd process: restart durability, SIGTERM/SIGINT drain, SIGKILL crash
safety, schema-version refusal, flags and RIGD_* variables, access log
(SPEC §8, §9, §10; issue 3)."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import rigd_harness
import sqlite_store
from rigd_harness import Rigd, main


_BIN = os.path.abspath(rigd_harness.RIGD_BIN)


def bin_path():
    return _BIN


def wait_listening(proc, log_path, timeout=10):
    """Waits for the "listening" log line; returns the port."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"rigd exited {proc.returncode}: {open(log_path).read()}")
        with open(log_path, "rb") as f:
            for line in f.read().decode("utf-8", "replace").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("msg") == "listening":
                    return entry["port"]
        time.sleep(0.02)
    raise AssertionError("rigd did not start")


def log_entries(rigd):
    out = []
    for line in rigd.read_log().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rigd-life-")
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.cleanup()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, db_path=None, extra_args=(), env=None):
        s = Rigd(db_path=db_path or os.path.join(self.tmp, "rigd.db"),
                 extra_args=extra_args, env=env)
        self.servers.append(s)
        return s.start()

    def run_rigd(self, args, env=None, cwd=None, timeout=20):
        e = dict(os.environ)
        if env:
            e.update(env)
        return subprocess.run([bin_path(), *args], capture_output=True, text=True, env=e,
                              cwd=cwd, timeout=timeout)


class Restart(Base):
    def test_restart_keeps_every_acknowledged_batch(self):
        a = self.start()
        a.make_shot("p1", "s1")
        acked = []
        for i in range(25):
            ops = [{"op": "layer.create", "layerId": f"l{i}", "name": f"n{i}", "kind": "group",
                    **({"parentId": f"l{i - 1}"} if i else {})},
                   {"op": "layer.pose", "layerId": f"l{i}", "frame": i,
                    "transform": {"rotation": i * 1.5, "position": [0.1 * i, -i]}}]
            acked.append(a.edit("s1", ops).json)
        before = a.snapshot("s1")
        projects = a.get("/v1/projects").json
        self.assertEqual(a.stop(), 0)
        b = self.start(db_path=a.db_path)
        self.assertEqual(b.snapshot("s1"), before)
        self.assertEqual(b.get("/v1/projects").json, projects)
        for rec in acked:
            got = b.get(f"/v1/receipts/{rec['receiptId']}")
            self.assertEqual(got.status, 200)
            self.assertEqual(got.json, rec)
        # it keeps working after the restart, at the next version
        r = b.edit("s1", [{"op": "layer.rename", "layerId": "l0", "name": "after"}])
        self.assertEqual(r.json["toVersion"], 26)
        self.assertEqual(b.get("/readyz").json, {"status": "ready"})

    def test_page_tokens_survive_restart(self):
        a = self.start()
        for i in range(3):
            a.post("/v1/projects", {"projectId": f"p{i}", "name": "x"})
        token = a.get("/v1/projects?pageSize=1").json["nextPageToken"]
        self.assertEqual(a.stop(), 0)
        b = self.start(db_path=a.db_path)
        r = b.get(f"/v1/projects?pageSize=1&pageToken={token}")
        self.assertEqual(r.status, 200, r)
        self.assertEqual([p["projectId"] for p in r.json["projects"]], ["p1"])

    def test_sigkill_mid_stream_keeps_acknowledged_receipts(self):
        a = self.start()
        a.make_shot("p1", "s1")
        acked, stop = [], threading.Event()

        def writer():
            conn = a.connect(timeout=5)
            i = 0
            while not stop.is_set():
                try:
                    r = a.post("/v1/shots/s1/edits", {"ops": [
                        {"op": "layer.create", "layerId": f"k{i}", "name": "x", "kind": "group"},
                        {"op": "layer.pose", "layerId": f"k{i}", "transform": {"rotation": i}}]},
                        conn=conn)
                except Exception:
                    return
                if r.status == 201:
                    acked.append(r.json)
                i += 1

        t = threading.Thread(target=writer)
        t.start()
        time.sleep(0.7)
        a.kill()
        stop.set()
        t.join(10)
        self.assertGreater(len(acked), 0)
        self.assertEqual(sqlite_store.integrity_check(a.db_path), "ok")
        b = self.start(db_path=a.db_path)
        shot = b.get("/v1/shots/s1").json
        receipts = b.get("/v1/shots/s1/receipts?pageSize=10000").json["receipts"]
        ids = {r["receiptId"] for r in receipts}
        for rec in acked:
            self.assertIn(rec["receiptId"], ids)
        # no partial batch: one receipt per version, every receipt's layer fully there
        self.assertEqual(shot["version"], len(receipts))
        layers = {l["layerId"] for l in shot["layers"]}
        self.assertEqual(len(layers), len(receipts))
        for rec in receipts:
            lid = rec["ops"][0]["layerId"]
            self.assertIn(lid, layers)
            i = int(lid[1:])
            self.assertEqual(b.get(f"/v1/shots/s1/layers/{lid}").json["transform"]["rotation"],
                             float(i))


class Drain(Base):
    BIG = [{"op": "layer.create", "layerId": f"L{i}", "name": "n", "kind": "group"}
           for i in range(10000)]

    def test_sigterm_drains_a_request_being_processed_and_exits_0(self):
        a = self.start()
        a.make_shot("p1", "s1")
        # warm up: how long the slow request takes here
        t0 = time.time()
        a.edit("s1", self.BIG)
        took = time.time() - t0
        big2 = [dict(op, layerId="M" + op["layerId"]) for op in self.BIG]
        holder = {}

        def slow():
            try:
                holder["r"] = a.post("/v1/shots/s1/edits", {"ops": big2})
            except Exception as e:
                holder["r"] = e

        t = threading.Thread(target=slow)
        t.start()
        time.sleep(max(0.05, min(0.3, took / 3)))
        a.proc.send_signal(signal.SIGTERM)
        t.join(30)
        code = a.proc.wait(30)
        r = holder["r"]
        self.assertNotIsInstance(r, Exception, r)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(code, 0)
        log = log_entries(a)
        self.assertTrue(any(e.get("msg") == "draining" for e in log), log)
        self.assertEqual(log[-1].get("msg"), "stopped", log[-1])
        a.stop()
        b = self.start(db_path=a.db_path)
        self.assertEqual(b.get("/v1/shots/s1").json["version"], 2)
        self.assertEqual(b.get(f"/v1/receipts/{r.json['receiptId']}").status, 200)

    def test_sigterm_waits_for_a_request_blocked_on_the_database(self):
        # Deterministic variant: an outside writer holds the SQLite write lock, so the
        # batch is surely inside its handler when SIGTERM arrives.
        a = self.start()
        a.make_shot("p1", "s1")
        db = sqlite_store.WriteLock(a.db_path)
        holder = {}
        try:
            db.take()
            t = threading.Thread(target=lambda: holder.setdefault("r", a.post(
                "/v1/shots/s1/edits", {"ops": [{"op": "layer.create", "layerId": "a",
                                                "name": "a", "kind": "group"}]})))
            t.start()
            time.sleep(0.5)
            a.proc.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            self.assertIsNone(a.proc.poll(), "rigd exited with a request in flight")
            db.release()
            t.join(30)
        finally:
            db.close()
        self.assertEqual(a.proc.wait(30), 0)
        self.assertEqual(holder["r"].status, 201, holder["r"])
        a.stop()
        b = self.start(db_path=a.db_path)
        self.assertEqual(b.get("/v1/shots/s1").json["version"], 1)

    def test_sigterm_finishes_a_request_whose_body_is_still_arriving(self):
        # A request already in flight when SIGTERM arrives (headers read, body still
        # uploading) is finished, not refused with 503.
        a = self.start()
        a.make_shot("p1", "s1")
        body = json.dumps({"ops": [{"op": "layer.create", "layerId": "a", "name": "a",
                                    "kind": "group"}]}).encode()
        s = socket.create_connection(("127.0.0.1", a.port), timeout=20)
        try:
            s.sendall(b"POST /v1/shots/s1/edits HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
            s.sendall(body[:10])
            time.sleep(0.3)
            a.proc.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            s.sendall(body[10:])
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        finally:
            s.close()
        status_line = data.split(b"\r\n", 1)[0]
        self.assertEqual(a.proc.wait(30), 0)
        self.assertIn(b" 201 ", status_line + b" ", data[:400])

    def test_new_requests_refused_while_draining(self):
        a = self.start()
        a.make_shot("p1", "s1")
        keep = a.connect()
        self.assertEqual(a.get("/healthz", conn=keep).status, 200)
        holder = {}
        t = threading.Thread(target=lambda: holder.setdefault(
            "r", a.post("/v1/shots/s1/edits", {"ops": self.BIG})))
        t.start()
        time.sleep(0.2)
        a.proc.send_signal(signal.SIGTERM)
        time.sleep(0.1)
        if a.proc.poll() is None:
            # a new connection is refused, or answered 503 SHUTTING_DOWN
            try:
                r = a.get("/v1/projects")
                self.assertEqual(r.status, 503, r)
                self.assertEqual(r.json["code"], "SHUTTING_DOWN")
            except (ConnectionError, OSError):
                pass
        t.join(30)
        self.assertEqual(a.proc.wait(30), 0)
        keep.close()

    def test_sigint_also_exits_0(self):
        a = self.start()
        a.make_shot("p1", "s1")
        self.assertEqual(a.stop(sig=signal.SIGINT), 0)
        b = self.start(db_path=a.db_path)
        self.assertEqual(b.get("/v1/shots/s1").status, 200)

    def test_idle_server_sigterm_exits_0_quickly(self):
        a = self.start()
        t0 = time.time()
        self.assertEqual(a.stop(), 0)
        self.assertLess(time.time() - t0, 5)


class Schema(Base):
    def test_fresh_database_is_migrated_and_recorded(self):
        a = self.start()
        self.assertEqual(a.get("/readyz").json, {"status": "ready"})
        versions = sqlite_store.schema_versions(a.db_path)
        mode = sqlite_store.journal_mode(a.db_path)
        self.assertGreaterEqual(len(versions), 1)
        # Every migration file is applied and recorded, in order (numbers may
        # skip while parallel branches each hold one; the lead renumbers).
        files = sqlite_store.migration_file_versions()
        self.assertEqual(versions, files)
        self.assertEqual(mode, "wal")

    def test_newer_schema_is_refused_with_clear_message(self):
        a = self.start()
        self.assertEqual(a.stop(), 0)
        sqlite_store.record_future_migration(a.db_path, 9999)
        res = self.run_rigd(["--db", a.db_path, "--listen", "127.0.0.1:0"], timeout=20)
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("9999", res.stderr)
        self.assertRegex(res.stderr.lower(), r"newer|schema")
        # and nothing was changed
        self.assertEqual(sqlite_store.newest_schema_version(a.db_path), 9999)


class Flags(Base):
    def test_help_documents_flags_and_env(self):
        res = self.run_rigd(["--help"])
        self.assertEqual(res.returncode, 0, res.stderr)
        out = res.stdout + res.stderr
        for flag in ("--db", "--listen", "--durability", "--max-body", "--read-cache-mb"):
            self.assertIn(flag, out)
        for env in ("RIGD_DB", "RIGD_LISTEN", "RIGD_DURABILITY", "RIGD_MAX_BODY",
                    "RIGD_READ_CACHE_MB"):
            self.assertIn(env, out)

    def test_invalid_flags_exit_2(self):
        for args in (["--bogus"], ["--bogus", "x"], ["--max-body", "abc"], ["--max-body", "-5"],
                     ["--durability", "fast"], ["--listen", "nope"], ["stray"], ["--db"],
                     ["--read-cache-mb", "abc"], ["--read-cache-mb", "-1"],
                     ["--read-cache-mb", "1048577"], ["--read-cache-mb", ""]):
            with self.subTest(args=args):
                res = self.run_rigd(args + (["--db", os.path.join(self.tmp, "x.db")]
                                            if "--db" not in args else []))
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertTrue(res.stderr.strip())
        res = self.run_rigd(["--listen", "127.0.0.1:0"], env={"RIGD_MAX_BODY": "lots"},
                            cwd=self.tmp)
        self.assertEqual(res.returncode, 2)
        self.assertIn("RIGD_MAX_BODY", res.stderr)

    def test_read_cache_mb_at_its_edges(self):
        for value in ("0", "1048576"):
            with self.subTest(value=value):
                a = self.start(env={"RIGD_READ_CACHE_MB": value})
                self.assertEqual(a.get("/readyz").json, {"status": "ready"})
                self.assertEqual(a.stop(), 0)

    def test_unknown_flag_message_names_it_unknown(self):
        res = self.run_rigd(["--bogus"])
        self.assertEqual(res.returncode, 2)
        self.assertIn("unknown option", res.stderr, res.stderr)

    def test_rigd_max_body_env_var(self):
        a = self.start(env={"RIGD_MAX_BODY": "5000"})
        self.assertEqual(a.get("/v1/limits").json["maxBodyBytes"], 5000)
        a.make_shot("p1", "s1")
        r = a.post("/v1/shots/s1/edits", raw=b'{"ops":[{"op":"layer.create","name":"a","kind":"group"}]'
                   + b" " * 5000 + b"}")
        self.assertEqual(r.status, 413, r)
        self.assertEqual(r.json["maxBodyBytes"], 5000)
        # a flag beats the variable
        b = self.start(env={"RIGD_MAX_BODY": "5000"}, extra_args=("--max-body", "7000"))
        self.assertEqual(b.get("/v1/limits").json["maxBodyBytes"], 7000)

    def test_env_only_configuration_and_default_db_path(self):
        cwd = os.path.join(self.tmp, "cwd")
        os.mkdir(cwd)
        for env, expect_db in (({"RIGD_LISTEN": "127.0.0.1:0"}, os.path.join(cwd, "rigd.db")),
                               ({"RIGD_LISTEN": "127.0.0.1:0",
                                 "RIGD_DB": os.path.join(self.tmp, "env.db"),
                                 "RIGD_DURABILITY": "process"},
                                os.path.join(self.tmp, "env.db"))):
            with self.subTest(env=env):
                log_path = os.path.join(self.tmp, "env.log")
                e = dict(os.environ)
                for k in list(e):
                    if k.startswith("RIGD_") and k != "RIGD_BIN":
                        del e[k]
                e.update(env)
                with open(log_path, "wb") as log:
                    proc = subprocess.Popen([bin_path()], cwd=cwd, env=e,
                                            stdout=subprocess.DEVNULL, stderr=log)
                try:
                    port = wait_listening(proc, log_path)
                    self.assertTrue(os.path.exists(expect_db))
                    import http.client
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    c.request("GET", "/readyz")
                    self.assertEqual(c.getresponse().status, 200)
                    c.close()
                    line = next(json.loads(l) for l in open(log_path) if '"listening"' in l)
                    if "RIGD_DURABILITY" in env:
                        self.assertEqual(line["durability"], "process")
                finally:
                    proc.send_signal(signal.SIGTERM)
                    self.assertEqual(proc.wait(15), 0)


class AccessLog(Base):
    def test_json_access_log_lines(self):
        a = self.start()
        a.make_shot("p1", "s1")
        r = a.get("/v1/shots/s1", headers={"X-Request-Id": "my-req-42"})
        self.assertEqual(r.header("X-Request-Id"), "my-req-42")
        r2 = a.get("/v1/nope")
        generated = r2.header("X-Request-Id")
        self.assertTrue(generated)
        a.post("/v1/shots/s1/edits", {"ops": [{"op": "layer.create", "name": "x",
                                               "kind": "group"}]})
        time.sleep(0.2)
        entries = [e for e in log_entries(a) if e.get("msg") == "request"]
        self.assertGreaterEqual(len(entries), 5)
        for e in entries:
            for field in ("method", "path", "status", "durationMs", "requestId"):
                self.assertIn(field, e)
            self.assertIsInstance(e["status"], int)
            self.assertIsInstance(e["durationMs"], (int, float))
            self.assertGreaterEqual(e["durationMs"], 0)
        mine = [e for e in entries if e["requestId"] == "my-req-42"]
        self.assertEqual(len(mine), 1)
        self.assertEqual((mine[0]["method"], mine[0]["path"], mine[0]["status"]),
                         ("GET", "/v1/shots/s1", 200))
        nf = [e for e in entries if e["requestId"] == generated]
        self.assertEqual(nf[0]["status"], 404)
        self.assertTrue(any(e["method"] == "POST" and e["path"] == "/v1/shots/s1/edits"
                            and e["status"] == 201 for e in entries))
        # every line of the log is JSON
        for line in a.read_log().splitlines():
            if line.strip():
                json.loads(line)

    def test_access_log_line_is_complete_for_a_non_utf8_path(self):
        a = self.start()
        r = a.get("/v1/%FF")
        rid = r.header("X-Request-Id")
        self.assertTrue(rid)
        time.sleep(0.2)
        mine = [e for e in log_entries(a) if e.get("requestId") == rid]
        self.assertEqual(len(mine), 1, [e for e in log_entries(a) if e.get("msg") == "request"])
        self.assertEqual((mine[0]["method"], mine[0]["status"]), ("GET", 404))
        self.assertIn("path", mine[0])
        self.assertIn("durationMs", mine[0])

    def test_health_and_readiness(self):
        a = self.start()
        self.assertEqual(a.get("/healthz").json, {"status": "ok"})
        self.assertEqual(a.get("/readyz").json, {"status": "ready"})


if __name__ == "__main__":
    main()
