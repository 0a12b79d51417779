"""Health, readiness and a full disk (issue 11 item 3).

- /healthz and /readyz answer on the I/O thread, never queued behind the worker
  pool: with --workers 1 and that worker stuck in a write waiting for the
  SQLite write lock (held by the test) and more writes queued behind it, both
  probes answer 200 while the writes are still pending. (Before, the probes
  waited in the same queue: 16 clients evaluating 1M-vertex frames pushed
  /healthz to 1.8 s; here they would wait for the busy timeout.)
- /readyz probes cheaply: a read of the schema version (a database whose
  schema is not current is 503) and statvfs on the database's filesystem.
- A full disk, for real: rigd runs on a 24 MiB tmpfs (needs root to mount;
  skipped with the reason printed otherwise). With less than 8 MiB free
  /readyz is 503 STORAGE_UNAVAILABLE with freeBytes; with the disk full every
  write is 507 STORAGE_FULL (project create, edit batch through the group
  committer, lock acquire), logged as "storage full", and changes nothing;
  once space is freed, /readyz is 200 and the same writes succeed. (Before:
  /readyz said ready, writes were 503 "busy" with Retry-After or 500.)
"""
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

import sqlite_store
from rigd_harness import Rigd, RigdTestCase, main


class ProbesSkipTheQueue(RigdTestCase):
    server_args = ("--workers", "1")

    def test_probes_answer_while_the_only_worker_is_stuck(self):
        db = sqlite_store.WriteLock(self.rigd.db_path)
        results = {}

        def write(i):
            results[i] = self.rigd.post("/v1/projects", {"projectId": f"p{i}", "name": "x"})

        writers = [threading.Thread(target=write, args=(i,)) for i in range(3)]
        try:
            db.take()
            for t in writers:
                t.start()
            time.sleep(0.5)  # the first write holds the worker, the others queue
            for path in ("/healthz", "/readyz", "/healthz"):
                with self.subTest(path=path):
                    conn = self.rigd.connect(timeout=8)
                    r = self.rigd.get(path, conn=conn)
                    conn.close()
                    self.assertEqual(r.status, 200, r)
                    self.assertTrue(all(t.is_alive() for t in writers),
                                    f"{path} answered only after the queued writes")
        finally:
            db.release()
            db.close()
            for t in writers:
                t.join(30)
        self.assertEqual(sorted(r.status for r in results.values()), [201, 201, 201])

    def test_readyz_reports_a_schema_that_is_not_current(self):
        self.assertEqual(self.rigd.get("/readyz").json, {"status": "ready"})
        sqlite_store.forget_newest_migration(self.rigd.db_path)
        r = self.rigd.get("/readyz")
        self.assertEqual(r.status, 503, r)
        self.assertEqual(r.json["code"], "STORAGE_UNAVAILABLE")
        self.assertTrue(r.header("Retry-After"))
        self.assertEqual(self.rigd.get("/healthz").status, 200)


class FullDisk(unittest.TestCase):
    SIZE = 24 << 20

    def setUp(self):
        if os.geteuid() != 0:
            print("\nskipped: mounting a small tmpfs needs root", flush=True)
            self.skipTest("mounting a tmpfs needs root")
        self.mnt = tempfile.mkdtemp(prefix="rigd-full-")
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.SIZE}", "tmpfs", self.mnt],
                           capture_output=True, text=True)
        if r.returncode != 0:
            os.rmdir(self.mnt)
            print(f"\nskipped: cannot mount a tmpfs: {r.stderr.strip()}", flush=True)
            self.skipTest("cannot mount a tmpfs")
        self.rigd = Rigd(db_path=os.path.join(self.mnt, "rigd.db")).start()

    def tearDown(self):
        try:
            self.rigd.cleanup()
        finally:
            subprocess.run(["umount", "-l", self.mnt])
            shutil.rmtree(self.mnt, ignore_errors=True)

    def free(self):
        st = os.statvfs(self.mnt)
        return st.f_bavail * st.f_frsize

    def fill(self, name, leave):
        """Writes a file leaving about `leave` bytes free (0: until ENOSPC)."""
        with open(os.path.join(self.mnt, name), "wb", buffering=0) as f:
            try:
                while self.free() > leave + 65536:
                    f.write(b"\0" * 65536)
                if leave == 0:
                    while True:
                        f.write(b"\0" * 4096)
            except OSError:
                pass

    def test_low_and_full_disk(self):
        rigd = self.rigd
        rigd.make_shot()
        rigd.post("/v1/shots/s1/edits", {"ops": [{"op": "layer.create", "layerId": "arm",
                                                  "name": "arm", "kind": "group"}]})
        self.assertEqual(rigd.get("/readyz").status, 200)
        before = rigd.snapshot("s1")

        self.fill("low", 4 << 20)
        r = rigd.get("/readyz")
        self.assertEqual(r.status, 503, r)
        self.assertEqual(r.json["code"], "STORAGE_UNAVAILABLE")
        self.assertLess(r.json["freeBytes"], 8 << 20)
        self.assertEqual(rigd.get("/healthz").status, 200)

        self.fill("full", 0)
        ops = [{"op": "layer.create", "layerId": f"L{i}", "name": "n" * 50, "kind": "group"}
               for i in range(2000)]
        writes = (("project", "/v1/projects", {"projectId": "q1", "name": "x" * 100}, {}),
                  ("edit batch", "/v1/shots/s1/edits", {"ops": ops}, {}),
                  ("lock", "/v1/shots/s1/locks", {"layerIds": ["arm"]},
                   {"X-Rigd-Actor": "alice"}))
        for name, path, body, headers in writes:
            with self.subTest(write=name):
                r = rigd.post(path, body, headers=headers)
                self.assertEqual(r.status, 507, r)
                self.assertEqual(r.json["code"], "STORAGE_FULL")
                self.assertIsNone(r.header("Retry-After"))
        self.assertIn('"msg":"storage full"', rigd.read_log())
        self.assertEqual(rigd.snapshot("s1"), before)
        self.assertEqual([p["projectId"] for p in rigd.get("/v1/projects").json["projects"]],
                         ["p1"])
        self.assertEqual(rigd.get("/v1/shots/s1/locks").json["locks"], [])

        os.remove(os.path.join(self.mnt, "full"))
        os.remove(os.path.join(self.mnt, "low"))
        self.assertEqual(rigd.get("/readyz").status, 200)
        for name, path, body, headers in writes:
            with self.subTest(write=name, after="space freed"):
                self.assertEqual(rigd.post(path, body, headers=headers).status, 201)


if __name__ == "__main__":
    main()
