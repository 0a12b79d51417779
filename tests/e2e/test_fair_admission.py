"""Fair admission of request bodies (issue 21, item 1), with real sockets:

- a token whose scopes reach no write anywhere (read-only) is answered 403 on the headers
  of a large write, before a byte of its body is read;
- a body is admitted against the memory budget as it arrives: one connection, or eight,
  declaring a 32 MiB body and trickling it (the issue's attack: 1 KiB every 0.5 s) hold
  almost nothing, so with --memory-budget 256 every other client's edits still commit;
- the slow-body floor is a rate over every 5-second window (--min-body-rate): a body that
  falls below it (or stalls) is cut within a window or two, while one that keeps it up is
  read and answered however long it takes.
"""
import os
import socket
import threading
import time
import unittest

from rigd_harness import Rigd, RigdTestCase, main
from test_auth import AuthServer

MiB = 1 << 20
E = "/v1/shots/s1/edits"


def head(path, length, token=None):
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{auth}"
            f"Content-Length: {length}\r\n\r\n").encode()


class Trickler:
    """Sends head then `chunk` bytes of body every `every` seconds from a thread, until
    the server closes the connection or stop()."""

    def __init__(self, port, data_head, chunk, every):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.sendall(data_head + b'{"ops":[')
        self.chunk, self.every = chunk, every
        self.sent = 0
        self.closed_at = None
        self.started = time.monotonic()
        self.halt = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.halt.wait(self.every):
            try:
                self.sock.sendall(b" " * self.chunk)
                self.sent += self.chunk
            except OSError:
                self.closed_at = time.monotonic() - self.started
                return

    def stop(self):
        self.halt.set()
        self.thread.join()
        self.sock.close()


class ScopeBeforeTheBody(unittest.TestCase):
    def setUp(self):
        self.srv = AuthServer(extra_args=("--memory-budget", "256"))
        self.srv.seed()
        self.srv.token("reader", ["read"])
        self.srv.token("p1-editor", ["edit:p1"])

    def tearDown(self):
        self.srv.stop()

    def answer_to_headers(self, who, length=8 * MiB):
        s = socket.create_connection(("127.0.0.1", self.srv.rigd.port), timeout=10)
        try:
            s.sendall(head("/v1/shots/s1/edits", length, self.srv.tokens[who]["secret"]))
            s.settimeout(2)
            try:
                return s.recv(4096)
            except socket.timeout:
                return None  # waiting for the body
        finally:
            s.close()

    def test_a_read_only_token_is_refused_before_its_body(self):
        answer = self.answer_to_headers("reader")
        self.assertIsNotNone(answer, "the server waited for the body of a read-only token")
        self.assertTrue(answer.startswith(b"HTTP/1.1 403 "), answer[:200])
        self.assertIn(b"FORBIDDEN", answer)
        self.assertIn(b'"requiredScope":"edit"', answer)

    def test_a_token_that_can_edit_somewhere_may_send_its_body(self):
        # Which project the path names is decided after the body, by the usual gate.
        self.assertIsNone(self.answer_to_headers("p1-editor"))


class BodiesAdmittedAsTheyArrive(RigdTestCase):
    server_args = ("--memory-budget", "256")  # bodies up to 32 MiB

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", "s1")
        self.rigd.edit("s1", [{"op": "layer.create", "layerId": "g", "name": "G",
                               "kind": "group"}])

    def edits_commit(self, rounds=5):
        for i in range(rounds):
            r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "g",
                                            "name": f"G{i}"}]})
            self.assertEqual(r.status, 201, r)

    def test_one_slow_upload_declared_at_the_body_limit_blocks_nobody(self):
        slow = Trickler(self.rigd.port, head(E, 32 * MiB - 1), 1024, 0.5)
        try:
            time.sleep(1)  # its headers are in and it has been sending
            self.edits_commit()
            # A large edit fits beside it too: 8 MiB reserves 64 MiB of the 256.
            big = json_rename(8 * MiB)
            r = self.rigd.post(E, raw=big)
            self.assertEqual(r.status, 201, r)
        finally:
            slow.stop()

    def test_eight_slow_uploads_block_nobody(self):
        slow = [Trickler(self.rigd.port, head(E, 32 * MiB - 1), 1024, 0.5) for _ in range(8)]
        try:
            time.sleep(1)
            self.edits_commit()
        finally:
            for t in slow:
                t.stop()


def json_rename(size):
    core = b'{"ops":[{"op":"layer.rename","layerId":"g","name":"big"}]}'
    return core[:-1] + b" " * (size - len(core)) + b"}"


class SlowBodyFloor(RigdTestCase):
    # 4 KiB/s over each 5 s window; the header timeout is out of the way.
    server_args = ("--min-body-rate", "4096", "--connection-timeout", "120")

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", "s1")
        self.rigd.edit("s1", [{"op": "layer.create", "layerId": "g", "name": "G",
                               "kind": "group"}])

    def wait_closed(self, t, limit):
        deadline = time.monotonic() + limit
        while t.closed_at is None and time.monotonic() < deadline:
            time.sleep(0.1)
        return t.closed_at

    def test_a_body_below_the_rate_is_cut_within_two_windows(self):
        # The trickle: 1 KiB every 0.5 s, 2 KiB/s, half the floor.
        t = Trickler(self.rigd.port, head(E, 32 * MiB), 1024, 0.5)
        try:
            closed = self.wait_closed(t, 15)
        finally:
            t.stop()
        self.assertIsNotNone(closed, "a body below --min-body-rate was not cut")
        self.assertGreaterEqual(closed, 4.5)
        self.assertLess(closed, 11.5)

    def test_a_stalled_body_is_cut_within_two_windows(self):
        t = Trickler(self.rigd.port, head(E, 1 * MiB), 1, 3600)  # nothing after its start
        try:
            deadline = time.monotonic() + 15
            t.sock.settimeout(15)
            try:
                data = t.sock.recv(100)
            except (ConnectionResetError, socket.timeout):
                data = None
            waited = time.monotonic() - t.started
        finally:
            t.stop()
        self.assertEqual(data, b"", "the stalled body's connection was not closed")
        self.assertLess(waited, 11.5)

    def test_a_body_that_keeps_up_the_rate_is_read_to_its_end(self):
        # 3 KiB every 0.5 s: 6 KiB/s for 12 s, past two windows, then the rest at once.
        size = 200 * 1024
        t = Trickler(self.rigd.port, head(E, size), 3072, 0.5)
        time.sleep(12)
        t.halt.set()
        t.thread.join()
        try:
            self.assertIsNone(t.closed_at, "a body above the floor was cut")
            body = b'{"op":"layer.rename","layerId":"g","name":"slow"}]}'
            pad = size - len(b'{"ops":[') - t.sent - len(body)
            t.sock.sendall(b" " * pad + body)
            t.sock.settimeout(10)
            answer = t.sock.recv(4096)
        finally:
            t.sock.close()
        self.assertTrue(answer.startswith(b"HTTP/1.1 201 "), answer[:300])
        self.assertEqual(self.rigd.get("/v1/shots/s1/layers/g").json["name"], "slow")

    def test_a_short_body_may_take_a_window_to_end(self):
        # Less is left than the window's share: it only has to end within the window.
        body = b'{"ops":[{"op":"layer.rename","layerId":"g","name":"short"}]}'
        s = socket.create_connection(("127.0.0.1", self.rigd.port), timeout=10)
        try:
            s.sendall(head(E, len(body)) + body[:10])
            time.sleep(3)
            s.sendall(body[10:])
            answer = s.recv(4096)
        finally:
            s.close()
        self.assertTrue(answer.startswith(b"HTTP/1.1 201 "), answer[:300])


if __name__ == "__main__":
    main()
