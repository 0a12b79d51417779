"""Slow and greedy clients at the edge (issue 11 item 2).

- --header-timeout bounds the whole header phase: a client trickling its
  request line (libmicrohttpd's idle timer restarts on every byte) is closed
  within the timeout plus the sweeper's tick, while others are served.
- --max-connections-per-ip: a connection past the cap from one address is
  refused at accept (closed without an answer); another address (127.0.0.2) is
  served meanwhile, and the address is served again once it closes one.
- --max-connections: past the global cap a connection is answered
  503 TOO_MANY_CONNECTIONS with Retry-After and closed (it used to be reset).
- a request target with 1,000 query parameters is answered 414 URI_TOO_LONG
  and leaves nothing in flight: SIGTERM afterwards exits 0 promptly (it used to
  get no answer at all and hold the drain for the whole --drain-timeout).

Timing assertions are loose (several seconds of slack) for a loaded machine.
"""
import json
import socket
import time

from rigd_harness import Rigd, RigdTestCase, main


def read_until_closed(s, timeout):
    """Everything the server sends until it closes; (data, closed?)."""
    s.settimeout(timeout)
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                return out, True
            out += d
    except socket.timeout:
        return out, False
    except (ConnectionResetError, BrokenPipeError):
        return out, True


def get_from(port, source, path="/healthz", timeout=10):
    """GET path from the local address source; (status or None, raw)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
    try:
        s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        raw, _ = read_until_closed(s, timeout)
    except (ConnectionResetError, BrokenPipeError):
        raw = b""
    finally:
        s.close()
    status = int(raw.split()[1]) if raw.startswith(b"HTTP/1.1 ") else None
    return status, raw


class HeaderTimeout(RigdTestCase):
    server_args = ("--header-timeout", "2")

    def test_a_trickled_request_line_is_closed_within_the_header_timeout(self):
        s = socket.create_connection(("127.0.0.1", self.rigd.port), timeout=5)
        request = b"GET /v1/projects?" + b"a" * 200 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        t0 = time.monotonic()
        closed_at, sent = None, 0
        try:
            for b in request:
                if time.monotonic() - t0 > 20:
                    break
                try:
                    s.sendall(bytes([b]))
                    sent += 1
                except OSError:
                    closed_at = time.monotonic() - t0
                    break
                s.settimeout(0.25)
                try:
                    if s.recv(4096) == b"":
                        closed_at = time.monotonic() - t0
                        break
                except socket.timeout:
                    pass
                except OSError:
                    closed_at = time.monotonic() - t0
                    break
                # others are served meanwhile
                if sent % 8 == 0:
                    self.assertEqual(self.rigd.get("/healthz").status, 200)
        finally:
            s.close()
        print(f"\ntrickled request line closed after {closed_at} s ({sent} bytes)", flush=True)
        self.assertIsNotNone(closed_at, f"still open after 20 s ({sent} bytes trickled)")
        self.assertLess(closed_at, 10)

    def test_a_prompt_client_is_unaffected(self):
        # a keep-alive connection used within the timeout keeps working
        conn = self.rigd.connect()
        for _ in range(3):
            self.assertEqual(self.rigd.get("/healthz", conn=conn).status, 200)
            time.sleep(0.3)
        conn.close()


class PerAddressCap(RigdTestCase):
    server_args = ("--max-connections-per-ip", "3")

    def test_connections_past_the_per_address_cap_are_refused(self):
        port = self.rigd.port
        held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        try:
            # the three are open on the server before the fourth arrives
            for s in held:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                s.settimeout(10)
                self.assertTrue(s.recv(65536).startswith(b"HTTP/1.1 200"))
            status, raw = get_from(port, "127.0.0.1")
            self.assertIsNone(status, f"a fourth connection from 127.0.0.1 was served: {raw[:80]!r}")
            # another address is served meanwhile
            status, raw = get_from(port, "127.0.0.2")
            self.assertEqual(status, 200, raw)
        finally:
            held.pop().close()
        # once one closes, the address may connect again (the close is seen asynchronously)
        deadline = time.monotonic() + 10
        status = None
        while status != 200 and time.monotonic() < deadline:
            status, _ = get_from(port, "127.0.0.1")
            if status != 200:
                time.sleep(0.2)
        self.assertEqual(status, 200)
        for s in held:
            s.close()
        self.assertIn('"connection refused"', self.rigd.read_log())


class GlobalCap(RigdTestCase):
    server_args = ("--max-connections", "3", "--max-connections-per-ip", "100")

    def test_past_the_global_cap_a_connection_is_answered_503(self):
        port = self.rigd.port
        held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        try:
            for s in held:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                s.settimeout(10)
                self.assertTrue(s.recv(65536).startswith(b"HTTP/1.1 200"))
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            try:
                s.sendall(b"POST /v1/projects HTTP/1.1\r\nHost: x\r\n"
                          b"Content-Type: application/json\r\nContent-Length: 28\r\n\r\n"
                          b'{"projectId":"p","name":"p"}')
                raw, closed = read_until_closed(s, 10)
            finally:
                s.close()
            self.assertTrue(raw.startswith(b"HTTP/1.1 503 "), raw[:200])
            head, _, body = raw.partition(b"\r\n\r\n")
            self.assertIn(b"\r\nretry-after: 1", head.lower())
            self.assertIn(b"content-type: application/problem+json", head.lower())
            self.assertEqual(json.loads(body)["code"], "TOO_MANY_CONNECTIONS")
            self.assertTrue(closed, "the connection stayed open after the 503")
        finally:
            for s in held:
                s.close()
        # nothing was applied, and the server serves again once connections close
        deadline = time.monotonic() + 10
        r = None
        while time.monotonic() < deadline:
            r = self.rigd.get("/v1/projects/p")
            if r.status != 503:
                break
            time.sleep(0.2)
        self.assertEqual(r.status, 404, r)
        self.assertEqual(self.rigd.post("/v1/projects", {"projectId": "p", "name": "p"}).status, 201)


class QueryFlood(RigdTestCase):
    server_args = ("--drain-timeout", "30")

    def test_a_thousand_query_parameters_is_414_and_leaves_nothing_in_flight(self):
        query = "&".join(f"p{i}={i}" for i in range(1000))
        for target in (f"/v1/projects?{query}", f"/v1/shots/s1/frames/0?{query}"):
            with self.subTest(target=target[:30]):
                s = socket.create_connection(("127.0.0.1", self.rigd.port), timeout=10)
                try:
                    s.sendall(b"GET " + target.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n")
                    raw, closed = read_until_closed(s, 10)
                finally:
                    s.close()
                self.assertTrue(raw.startswith(b"HTTP/1.1 414 "), raw[:200])
                body = json.loads(raw.partition(b"\r\n\r\n")[2])
                self.assertEqual(body["code"], "URI_TOO_LONG")
                self.assertTrue(closed)
        # 100 parameters pass the front; the route then names the first it does not read
        q100 = "&".join(f"p{i}={i}" for i in range(99))
        r = self.rigd.get(f"/v1/projects?pageSize=5&{q100}")
        self.assertEqual((r.status, r.json["code"], r.json["parameter"]),
                         (400, "INVALID_PARAMETER", "p0"), r)
        t0 = time.monotonic()
        code = self.rigd.stop()
        took = time.monotonic() - t0
        self.assertEqual(code, 0)
        self.assertLess(took, 10, f"SIGTERM took {took:.1f} s: a request stayed in flight")
        self.assertNotIn("drain timeout", self.rigd.read_log())


if __name__ == "__main__":
    main()
