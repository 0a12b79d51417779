"""SIGTERM while keep-alive clients keep sending: every round exits 0 (no
abort from a connection left suspended, no use of the freed handler pool) and
every answer is either a normal one or a clean 503."""
import signal
import socket
import threading
import time

from rigd_harness import Rigd, RigdTestCase, main

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


def hammer(port, stop, statuses):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        return
    buf = b""
    try:
        while not stop.is_set():
            s.sendall(REQUEST)
            while b"\r\n\r\n" not in buf:
                data = s.recv(65536)
                if not data:
                    return
                buf += data
            head, _, buf = buf.partition(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            statuses.append(int(lines[0].split()[1]))
            length = next(int(l.split(b":")[1]) for l in lines if l.lower().startswith(b"content-length"))
            while len(buf) < length:
                data = s.recv(65536)
                if not data:
                    return
                buf += data
            buf = buf[length:]
    except OSError:
        pass
    finally:
        s.close()


class ShutdownRace(RigdTestCase):
    def setUp(self):
        pass  # each round starts its own server

    def tearDown(self):
        pass

    def test_sigterm_under_keep_alive_load_exits_cleanly(self):
        for round_ in range(5):
            rigd = Rigd(extra_args=["--drain-timeout", "2"]).start()
            stop = threading.Event()
            statuses = []
            threads = [threading.Thread(target=hammer, args=(rigd.port, stop, statuses))
                       for _ in range(16)]
            for t in threads:
                t.start()
            time.sleep(0.3)
            code = rigd.stop(signal.SIGTERM)
            stop.set()
            for t in threads:
                t.join()
            report = rigd.sanitizer_report()
            log = rigd.read_log()[-3000:]
            rigd.cleanup()
            self.assertEqual(code, 0, f"round {round_}: exit {code}; the server's log ends:\n{log}")
            self.assertFalse(report, report)
            self.assertTrue(statuses, "the clients were served before the stop")
            self.assertTrue(set(statuses) <= {200, 503}, sorted(set(statuses)))


if __name__ == "__main__":
    main()
