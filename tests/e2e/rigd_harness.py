"""End-to-end harness: starts the real rigd on a free loopback port with a
temporary SQLite database and talks HTTP to it (stdlib only).

Every test module does `from rigd_harness import Rigd, RigdTestCase`.
The rigd binary comes from $RIGD_BIN (set by ctest), else build/server/rigd.
"""
import atexit
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RIGD_BIN = os.environ.get("RIGD_BIN", os.path.join(ROOT, "build", "server", "rigd"))

# Every rigd this process started and has not reaped: a test that fails (or forgets its
# cleanup) still leaves no server behind, since the interpreter kills them on the way out.
_LIVE = set()


@atexit.register
def _reap_all():
    for proc in list(_LIVE):
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        _LIVE.discard(proc)


def exchange(port, data, timeout=10):
    """Sends raw bytes on a fresh loopback connection; returns (everything read until the
    server closed, closed?)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    out, closed = b"", False
    try:
        s.sendall(data)
        while True:
            d = s.recv(65536)
            if not d:
                closed = True
                break
            out += d
    except socket.timeout:
        pass
    except ConnectionResetError:
        closed = True
    finally:
        s.close()
    return out, closed


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def json(self):
        return json.loads(self.body)

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def __repr__(self):
        return f"<Response {self.status} {self.body[:300]!r}>"


class Rigd:
    """One rigd process. Use as a context manager or call start()/stop()."""

    def __init__(self, db_path=None, extra_args=(), env=None, auth=False):
        self.tmp = tempfile.mkdtemp(prefix="rigd-e2e-")
        self.db_path = db_path or os.path.join(self.tmp, "rigd.db")
        # Most suites test behaviour other than authentication and run with
        # --auth off; tests/e2e/test_auth*.py start rigd with auth=True.
        self.extra_args = ([] if auth else ["--auth", "off"]) + list(extra_args)
        self.env = env
        self.proc = None
        self.port = None
        self.log_path = os.path.join(self.tmp, "rigd.log")

    def start(self, timeout=10):
        """Starts the server (a no-op while it runs: `with Rigd().start() as r` starts one)
        and waits for its "listening" line. A server that exits or does not listen in time
        is reaped before the RuntimeError."""
        if self.proc and self.proc.poll() is None:
            return self
        env = dict(os.environ)
        if self.env:
            env.update(self.env)
        self.log = open(self.log_path, "ab")
        since = self.log.tell()  # a restart's log still holds the last run's "listening"
        self.proc = subprocess.Popen(
            [RIGD_BIN, "--db", self.db_path, "--listen", "127.0.0.1:0", *self.extra_args],
            stdout=subprocess.DEVNULL, stderr=self.log, env=env)
        _LIVE.add(self.proc)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self.stop()
                raise RuntimeError(f"rigd exited with {code}: {self.read_log()}")
            for line in self.read_log(since).splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("msg") == "listening":
                    self.port = entry["port"]
                    return self
            time.sleep(0.02)
        self.kill()
        raise RuntimeError("rigd did not start: " + self.read_log())

    def read_log(self, since=0):
        """The server's log (from byte `since`)."""
        with open(self.log_path, "rb") as f:
            f.seek(since)
            return f.read().decode("utf-8", "replace")

    def stop(self, sig=signal.SIGTERM, timeout=15):
        """Stops the server; returns its exit code."""
        if not self.proc:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        _LIVE.discard(self.proc)
        self.proc = None
        self.log.close()
        return code

    def kill(self):
        return self.stop(signal.SIGKILL)

    SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                       "WARNING: ThreadSanitizer")

    def sanitizer_report(self):
        """The sanitizer findings in the server's log (ASan/UBSan/TSan builds), or ""."""
        log = self.read_log() if os.path.exists(self.log_path) else ""
        hits = [i for i, line in enumerate(log.splitlines())
                if any(mark in line for mark in self.SANITIZER_MARKS)]
        return "" if not hits else "\n".join(log.splitlines()[hits[0]:hits[0] + 40])

    def cleanup(self):
        self.stop()
        report = self.sanitizer_report()
        shutil.rmtree(self.tmp, ignore_errors=True)
        if report:
            raise AssertionError("rigd reported a sanitizer finding:\n" + report)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()

    # ---- HTTP ----
    def connect(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None, raw=None):
        """body: a Python value sent as JSON, or raw bytes in `raw`."""
        own = conn is None
        conn = conn or self.connect()
        hdrs = {"Content-Type": "application/json"}
        if headers:
            hdrs.update(headers)
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        try:
            conn.request(method, path, body=data, headers=hdrs)
            r = conn.getresponse()
            out = Response(r.status, r.getheaders(), r.read())
        finally:
            if own:
                conn.close()
        return out

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.request("PUT", path, body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    # ---- conveniences ----
    def make_shot(self, project="p1", shot="s1", **fields):
        r = self.post("/v1/projects", {"projectId": project, "name": project})
        assert r.status in (201, 409), r  # 409 PROJECT_EXISTS: made by an earlier call
        body = {"shotId": shot, "name": shot}
        body.update(fields)
        r = self.post(f"/v1/projects/{project}/shots", body)
        assert r.status == 201, r
        return shot

    def edit(self, shot, ops, expect=201, **kw):
        r = self.post(f"/v1/shots/{shot}/edits", {"ops": ops, **kw.pop("extra", {})}, **kw)
        assert r.status == expect, r
        return r

    def snapshot(self, shot):
        """Everything observable about a shot: tree, every layer with keys, receipts."""
        s = self.get(f"/v1/shots/{shot}")
        assert s.status == 200, s
        tree = s.json
        layers = {l["layerId"]: self.get(f"/v1/shots/{shot}/layers/{l['layerId']}").json
                  for l in tree["layers"]}
        receipts = self.get(f"/v1/shots/{shot}/receipts?pageSize=10000").json["receipts"]
        return {"shot": tree, "layers": layers, "receipts": receipts}


class RigdTestCase(unittest.TestCase):
    """A test case with a fresh server (self.rigd) per test."""

    server_args = ()

    def setUp(self):
        self.rigd = Rigd(extra_args=self.server_args).start()

    def tearDown(self):
        self.rigd.cleanup()

    def assertProblem(self, r, status, code):
        self.assertEqual(r.status, status, r)
        self.assertEqual(r.header("Content-Type"), "application/problem+json", r)
        body = r.json
        self.assertEqual(body["code"], code, body)
        self.assertEqual(body["status"], status, body)
        self.assertEqual(body["type"], f"/v1/errors/{code}")
        return body


def main():
    unittest.main(verbosity=2)
