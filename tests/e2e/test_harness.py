"""The harness itself: it leaves no rigd behind. `with Rigd().start() as r` starts one
server, not two; a restart waits for the new server's "listening" line, not the last run's;
and a test process that dies with an exception still kills and reaps every server it started."""
import os
import subprocess
import sys
import textwrap
import time
import unittest

from rigd_harness import HERE, Rigd


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split()[2] != "Z"


class Harness(unittest.TestCase):
    def test_start_inside_with_starts_one_server(self):
        r = Rigd()
        try:
            with r.start() as same:
                self.assertIs(same, r)
                self.assertEqual(r.read_log().count('"msg":"listening"'), 1)
        finally:
            r.cleanup()

    def test_a_restart_waits_for_the_new_server(self):
        r = Rigd().start()
        try:
            first = r.port
            r.stop()
            r.start()
            self.assertEqual(r.read_log().count('"msg":"listening"'), 2)
            self.assertEqual(r.get("/healthz").status, 200)
            self.assertIsNotNone(first)
        finally:
            r.cleanup()

    def test_a_crashing_test_process_leaves_no_server(self):
        script = textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {HERE!r})
            from rigd_harness import Rigd
            r = Rigd().start()
            print(r.proc.pid, flush=True)
            raise SystemExit("the test failed before its cleanup")
            """)
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             timeout=30, env=dict(os.environ))
        self.assertNotEqual(out.returncode, 0)
        pid = int(out.stdout.split()[0])
        deadline = time.monotonic() + 5
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(alive(pid), f"rigd {pid} outlived the test process")


if __name__ == "__main__":
    unittest.main(verbosity=2)
