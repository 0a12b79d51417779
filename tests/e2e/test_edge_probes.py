"""Liveness behind a full front (issue 21, item 3), with real sockets:

- past --max-connections, a fresh connection's GET /healthz or /readyz is answered 200 (then
  closed); any other request there is still 503 TOO_MANY_CONNECTIONS;
- --health-listen gives the probes a listener of their own: with every connection one
  address may hold taken on the main listener (300 slow-header connections from a proxy's
  one address, say), the probe listener still answers /healthz and /readyz; it answers
  nothing else (404, 405 for other methods) and stops with the server.
"""
import json
import socket
import time

from rigd_harness import Rigd, RigdTestCase, main


def exchange(port, request, timeout=5):
    """Sends request on a fresh connection; returns everything read until it closes
    (or b"" when the connection was refused or reset unanswered)."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except OSError:
        return b""
    data = b""
    try:
        s.sendall(request)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, BrokenPipeError, socket.timeout):
        pass
    finally:
        s.close()
    return data


def probe(path, method="GET"):
    return f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()


def hold(port, n):
    """n connections that sent half a request line: each waits in its header phase."""
    held = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /v1/proj")
        held.append(s)
    return held


class ProbesPastTheGlobalCap(RigdTestCase):
    server_args = ("--max-connections", "4", "--max-connections-per-ip", "100",
                   "--header-timeout", "30")

    def test_a_probe_past_the_cap_is_answered_and_others_are_503(self):
        held = hold(self.rigd.port, 4)
        try:
            time.sleep(0.3)  # the server has accepted them all
            for path in ("/healthz", "/readyz"):
                raw = exchange(self.rigd.port, probe(path))
                self.assertTrue(raw.startswith(b"HTTP/1.1 200 "), (path, raw[:200]))
            raw = exchange(self.rigd.port, probe("/v1/projects"))
            self.assertTrue(raw.startswith(b"HTTP/1.1 503 "), raw[:200])
            self.assertEqual(json.loads(raw.partition(b"\r\n\r\n")[2])["code"],
                             "TOO_MANY_CONNECTIONS")
            # A probe that keeps its connection alive is still answered, then closed.
            raw = exchange(self.rigd.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertTrue(raw.startswith(b"HTTP/1.1 200 "), raw[:200])
            self.assertIn(b"connection: close", raw.lower())
        finally:
            for s in held:
                s.close()


class ProbeListener(RigdTestCase):
    server_args = ("--max-connections-per-ip", "8", "--header-timeout", "30",
                   "--health-listen", "127.0.0.1:0")

    def health_port(self):
        for line in self.rigd.read_log().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("msg") == "probes listening":
                return entry["port"]
        self.fail("no 'probes listening' line in the log")

    def test_probes_answer_while_the_address_is_at_its_cap(self):
        port = self.health_port()
        self.assertNotEqual(port, self.rigd.port)
        held = hold(self.rigd.port, 8)
        try:
            time.sleep(0.3)
            # The main listener refuses this address at accept ...
            self.assertEqual(exchange(self.rigd.port, probe("/healthz"), timeout=2)[:12],
                             b"")
            # ... the probe listener does not.
            for path in ("/healthz", "/readyz"):
                raw = exchange(port, probe(path))
                self.assertTrue(raw.startswith(b"HTTP/1.1 200 "), (path, raw[:200]))
                body = json.loads(raw.partition(b"\r\n\r\n")[2])
                self.assertIn(body["status"], ("ok", "ready"), body)
            raw = exchange(port, probe("/healthz", "HEAD"))
            self.assertTrue(raw.startswith(b"HTTP/1.1 200 "), raw[:200])
        finally:
            for s in held:
                s.close()

    def test_the_probe_listener_answers_nothing_else(self):
        port = self.health_port()
        raw = exchange(port, probe("/v1/projects"))
        self.assertTrue(raw.startswith(b"HTTP/1.1 404 "), raw[:200])
        self.assertEqual(json.loads(raw.partition(b"\r\n\r\n")[2])["code"], "NOT_FOUND")
        raw = exchange(port, probe("/healthz", "POST"))
        self.assertTrue(raw.startswith(b"HTTP/1.1 405 "), raw[:200])
        self.assertIn(b"allow: get, head", raw.lower())

    def test_a_bad_probe_address_is_a_usage_error(self):
        for bad in ("nowhere", "127.0.0.1:99999", "localhost:0"):
            r = Rigd(extra_args=["--health-listen", bad])
            try:
                with self.assertRaises(RuntimeError):
                    r.start(timeout=5)
            finally:
                r.cleanup()


if __name__ == "__main__":
    main()
