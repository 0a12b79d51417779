"""The store's address (issue 22, item 3): --store URL and RIGD_STORE, --db PATH
and RIGD_DB as the store sqlite:PATH, the rule for both spellings at once, the
refusal of a URL this build does not serve, `rigd token --store`; and the
bootstrap token's file, --token-file / RIGD_TOKEN_FILE, which the clients read
too (PATH.token beside a sqlite:PATH store by default)."""
import json
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import unittest

import rigd_harness
from rigd_harness import main

BIN = os.path.abspath(rigd_harness.RIGD_BIN)
RIGCTL = os.path.join(os.path.dirname(os.path.dirname(BIN)), "clients", "rigctl")


def wait_listening(proc, log_path, timeout=10):
    """rigd's "listening" log line, once it is written."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"rigd exited {proc.returncode}: {open(log_path).read()}")
        with open(log_path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("msg") == "listening":
                    return entry
        time.sleep(0.02)
    raise AssertionError("rigd did not start")


def serves_sqlite():
    r = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=20)
    return "sqlite:PATH" in r.stdout


@unittest.skipUnless(serves_sqlite(), "this rigd is built with another storage backend")
class StoreUrl(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rigd-store-")
        self.procs = []

    def tearDown(self):
        for proc, log in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(15)
            log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def env(self, **extra):
        e = {k: v for k, v in os.environ.items() if not k.startswith("RIGD_") or k == "RIGD_BIN"}
        e.update(extra)
        return e

    def run_rigd(self, args, **env):
        return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=self.tmp,
                              env=self.env(**env), timeout=20)

    def serve(self, args, auth="off", **env):
        """Starts rigd (auth off unless told, a free port) and returns its "listening" log
        line."""
        log_path = os.path.join(self.tmp, f"rigd{len(self.procs)}.log")
        log = open(log_path, "wb")
        proc = subprocess.Popen([BIN, "--listen", "127.0.0.1:0", "--auth", auth, *args],
                                cwd=self.tmp, env=self.env(**env), stdout=subprocess.DEVNULL,
                                stderr=log)
        self.procs.append((proc, log))
        return wait_listening(proc, log_path)

    def test_store_names_the_sqlite_file(self):
        path = os.path.join(self.tmp, "by-url.db")
        line = self.serve(["--store", f"sqlite:{path}"])
        self.assertTrue(os.path.exists(path))
        self.assertEqual(line["db"], path)

    def test_rigd_store_variable_and_a_relative_path(self):
        line = self.serve([], RIGD_STORE="sqlite:rel.db")
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "rel.db")))
        self.assertEqual(line["db"], "rel.db")

    def test_db_and_store_together_only_when_they_agree(self):
        path = os.path.join(self.tmp, "same.db")
        self.serve(["--db", path, "--store", f"sqlite:{path}"])
        other = os.path.join(self.tmp, "other.db")
        for args, env in ((["--db", path, "--store", f"sqlite:{other}"], {}),
                          (["--store", f"sqlite:{other}", "--db", path], {}),
                          ([], {"RIGD_DB": path, "RIGD_STORE": f"sqlite:{other}"})):
            with self.subTest(args=args, env=env):
                r = self.run_rigd(args, **env)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("name different stores", r.stderr)
                self.assertIn(f"sqlite:{path}", r.stderr)
                self.assertIn(f"sqlite:{other}", r.stderr)
        self.assertFalse(os.path.exists(other))

    def test_a_flag_overrides_either_variable(self):
        flag = os.path.join(self.tmp, "flag.db")
        for var in ({"RIGD_DB": os.path.join(self.tmp, "env.db")},
                    {"RIGD_STORE": "sqlite:" + os.path.join(self.tmp, "env.db")}):
            for args in (["--db", flag], ["--store", f"sqlite:{flag}"]):
                with self.subTest(var=var, args=args):
                    line = self.serve(args, **var)
                    self.assertEqual(line["db"], flag)
                    proc, _ = self.procs[-1]
                    proc.send_signal(signal.SIGTERM)
                    self.assertEqual(proc.wait(15), 0)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "env.db")))

    def test_other_schemes_are_refused_naming_the_forms_served(self):
        for args, env in ((["--store", "postgres://rig@db.example/rig"], {}),
                          (["--store", "postgresql:///rig"], {}),
                          ([], {"RIGD_STORE": "postgres://db/rig"}),
                          (["--store", "rigd.db"], {}),
                          (["--store", "sqlite:"], {})):
            with self.subTest(args=args, env=env):
                r = self.run_rigd(args, **env)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("sqlite:PATH", r.stderr)
                self.assertIn("RIGD_STORE" if env else "--store", r.stderr)
                self.assertEqual(r.stderr.count("\n"), 1, "one line, no usage dump")
        self.assertIn("unsupported scheme 'postgres'",
                      self.run_rigd(["--store", "postgres://db/rig"]).stderr)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_help_documents_the_store(self):
        r = self.run_rigd(["--help"])
        self.assertEqual(r.returncode, 0)
        for text in ("--store URL", "RIGD_STORE", "sqlite:PATH", "sqlite:./rigd.db", "--db PATH",
                     "RIGD_DB"):
            self.assertIn(text, r.stdout)
        self.assertNotIn("synchronous", r.stdout)

    def test_rigd_token_takes_the_store_too(self):
        path = os.path.join(self.tmp, "tokens.db")
        r = self.run_rigd(["token", "create", "--store", f"sqlite:{path}", "--name", "farm",
                           "--scope", "read"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for args, env in ((["--db", path], {}), ([], {"RIGD_STORE": f"sqlite:{path}"}),
                          ([], {"RIGD_DB": path}),
                          (["--db", path, "--store", f"sqlite:{path}"], {})):
            with self.subTest(args=args, env=env):
                r = self.run_rigd(["token", "list", *args], **env)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("farm", r.stdout)
        r = self.run_rigd(["token", "list", "--store", "postgres://db/rig"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("sqlite:PATH", r.stderr)
        r = self.run_rigd(["token", "list", "--db", path, "--store", "sqlite:elsewhere.db"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("name different stores", r.stderr)
        r = self.run_rigd(["token", "--help"])
        self.assertIn("--store URL", r.stdout)

    def logged(self, msg):
        """The last server's log line with this msg."""
        with open(os.path.join(self.tmp, f"rigd{len(self.procs) - 1}.log")) as f:
            return next(e for e in map(json.loads, f) if e.get("msg") == msg)

    def stop_last(self):
        proc, _ = self.procs[-1]
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(proc.wait(15), 0)

    def get_projects(self, port, secret):
        import http.client
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/v1/projects", headers={"Authorization": f"Bearer {secret}"})
        status = c.getresponse().status
        c.close()
        return status

    def assertPrivateToken(self, path):
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        with open(path) as f:
            secret = f.read()
        self.assertRegex(secret, r"^rigd_[A-Za-z0-9_-]+\n$")
        return secret.strip()

    def test_the_token_file_defaults_to_beside_a_sqlite_store(self):
        path = os.path.join(self.tmp, "beside.db")
        line = self.serve(["--store", f"sqlite:{path}"], auth="on")
        secret = self.assertPrivateToken(path + ".token")
        self.assertEqual(self.get_projects(line["port"], secret), 200)

    def test_token_file_option_and_variable(self):
        db = os.path.join(self.tmp, "rigd.db")
        for n, (args, env) in enumerate(((["--token-file", "flag.token"], {}),
                                         ([], {"RIGD_TOKEN_FILE": "env.token"}),
                                         (["--token-file", "flag.token"],
                                          {"RIGD_TOKEN_FILE": "env.token"}))):
            with self.subTest(args=args, env=env):
                fresh = f"{db}{n}"
                line = self.serve(["--db", fresh, *args], auth="on", **env)
                given = "flag.token" if args else "env.token"
                where = os.path.join(self.tmp, given)
                secret = self.assertPrivateToken(where)
                self.assertEqual(self.logged("bootstrap admin token written")["path"], given)
                self.assertFalse(os.path.exists(fresh + ".token"))
                self.assertEqual(self.get_projects(line["port"], secret), 200)
                self.stop_last()
                os.unlink(where)
        # a restart on a store that has its token writes no file, wherever it points
        line = self.serve(["--db", db + "0", "--token-file", "again.token"], auth="on")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "again.token")))
        r = self.run_rigd(["--token-file", ""])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--token-file", r.stderr)

    def test_auth_off_writes_no_token_file(self):
        self.serve(["--db", "off.db", "--token-file", "off.token"])
        self.stop_last()
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "off.token")))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "off.db.token")))

    @unittest.skipUnless(os.access(RIGCTL, os.X_OK), "rigctl not built")
    def test_server_and_clients_agree_on_the_token_file(self):
        """The server writes the bootstrap token where rigctl, in the same environment,
        looks for it: $RIGD_TOKEN_FILE, else beside $RIGD_DB."""
        for n, env in enumerate(({"RIGD_TOKEN_FILE": "shared.token"},
                                 {"RIGD_DB": "beside.db"},
                                 {"RIGD_DB": "both.db", "RIGD_TOKEN_FILE": "both.token"})):
            with self.subTest(env=env):
                line = self.serve(["--db", f"agree{n}.db"] if "RIGD_DB" not in env else [],
                                  auth="on", **env)
                p = subprocess.run([RIGCTL, "--url", line["url"], "projects", "list"],
                                   capture_output=True, text=True, cwd=self.tmp,
                                   env=self.env(**env), timeout=20)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.stop_last()

if __name__ == "__main__":
    main()
