"""Finding one's way in rigd, rigctl and mesh-data (issue 21, item 6): `--version` on all
three (the version of CMakeLists.txt's project() and the build's git commit, one format);
`--help` on every rigctl command and verb and every `rigd token` subcommand (stdout, exit
0; a usage error stays stderr, exit 2); `rigd --help` naming the token command; a client
without a token saying where it looked and how to get one; rigd with port 0 saying its URL
in words and the `export RIGD_URL=…` line the clients need; mesh-data of a group layer a
clear LAYER_KIND error instead of an empty page; the SKIN_WEIGHTS catalogue naming
`normalize: true`.

The clients are found next to the server's build: <build>/clients/ for
RIGD_BIN=<build>/server/rigd.
"""
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from rigd_harness import RIGD_BIN, ROOT, Rigd, RigdTestCase, main

RIGD = os.path.abspath(RIGD_BIN)  # the tests run some commands in another folder
BUILD = os.path.dirname(os.path.dirname(RIGD))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")
MESH_DATA = os.path.join(BUILD, "clients", "mesh-data")
VERSION_LINE = re.compile(r"^(\S+) (\d+\.\d+\.\d+) \(commit ([0-9a-f]{7,40}(?:-dirty)?|unknown)\)\n$")

# Every rigctl command with its verbs (rigctl.c's command table).
RIGCTL_COMMANDS = [
    ("projects", "list"), ("projects", "create"), ("projects", "show"), ("projects", "delete"),
    ("shots", "list"), ("shots", "create"), ("shots", "show"), ("shots", "delete"),
    ("layers", None), ("edit", None), ("receipts", None), ("revert", None), ("frames", None),
    ("plan", "create"), ("plan", "show"), ("plan", "list"), ("plan", "validate"),
    ("plan", "revise"), ("plan", "apply"), ("plan", "delete"),
    ("lock", "acquire"), ("lock", "renew"), ("lock", "release"), ("lock", "list"),
    ("diff", None), ("constraints", None), ("constraint", "put"), ("constraint", "delete"),
    ("pin", "add"), ("pin", "move"), ("pin", "key"), ("pin", "delete"), ("pin", "list"),
    ("tessellate", None), ("weights", "auto"), ("weights", "paint"), ("weights", "set"),
    ("rig", "auto"), ("bones", "suggest"), ("import", None), ("export", None),
]


def clean_env(**extra):
    """The environment without RIGD_* (no token, no URL, no database), plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIGD_")}
    env.update(extra)
    return env


def run(argv, env=None, cwd=None):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          env=env if env is not None else clean_env(), cwd=cwd)


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        text = f.read()
    return re.search(r"project\(rigd VERSION (\d+\.\d+\.\d+)", text).group(1)


def git(*args):
    """git's output in ROOT, or None when git or the checkout is missing."""
    try:
        p = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    return p.stdout.strip() if p.returncode == 0 else None


@unittest.skipUnless(os.access(RIGCTL, os.X_OK) and os.access(MESH_DATA, os.X_OK),
                     "clients not built")
class Version(unittest.TestCase):
    def test_every_program_prints_its_version_and_commit_the_same_way(self):
        seen = set()
        for prog, path in (("rigd", RIGD), ("rigctl", RIGCTL), ("mesh-data", MESH_DATA)):
            with self.subTest(prog=prog):
                p = run([path, "--version"])
                self.assertEqual((p.returncode, p.stderr), (0, ""), p)
                m = VERSION_LINE.match(p.stdout)
                self.assertIsNotNone(m, p.stdout)
                self.assertEqual(m.group(1), prog)
                self.assertEqual(m.group(2), project_version())
                seen.add(m.group(3))
        self.assertEqual(len(seen), 1, seen)  # one build, one commit
        commit = seen.pop()
        if git("rev-parse", "--show-prefix") == "":  # built from this git checkout
            self.assertNotEqual(commit, "unknown")
            full = git("rev-parse", "--verify", "--quiet", commit.removesuffix("-dirty") + "^{commit}")
            self.assertTrue(full, f"{commit} is not a commit of {ROOT}")

    def test_rigctl_version_with_a_command_is_still_the_shot_version(self):
        # 'constraints SHOT_ID --version N' reads version N; without N it is a usage error.
        p = run([RIGCTL, "--url", "http://127.0.0.1:9", "constraints", "s1", "--version"])
        self.assertEqual(p.returncode, 2, p)
        self.assertIn("--version", p.stderr)


@unittest.skipUnless(os.access(RIGCTL, os.X_OK), "rigctl not built")
class Help(unittest.TestCase):
    def test_every_rigctl_command_and_verb_has_its_page(self):
        overview = run([RIGCTL, "--help"])
        self.assertEqual(overview.returncode, 0, overview)
        self.assertIn("--version", overview.stdout)
        for name, verb in RIGCTL_COMMANDS:
            words = [name] + ([verb] if verb else [])
            with self.subTest(command=" ".join(words)):
                p = run([RIGCTL, *words, "--help"])
                self.assertEqual((p.returncode, p.stderr), (0, ""), p)
                first = p.stdout.splitlines()[0]
                self.assertTrue(first.startswith("Usage: rigctl "), first)
                self.assertRegex(first, r"\b%s\b" % re.escape(name))
                self.assertIn(" ".join(words), p.stdout)  # the verb's own synopsis
                self.assertNotEqual(p.stdout, overview.stdout)
                self.assertIn("Examples:", p.stdout)
        # Options before the command, and -h, find the same page.
        edit = run([RIGCTL, "edit", "--help"]).stdout
        self.assertEqual(run([RIGCTL, "--format", "json", "-h", "edit"]).stdout, edit)
        self.assertIn("--check-frames", edit)

    def test_a_usage_error_stays_on_stderr_with_exit_2(self):
        p = run([RIGCTL, "edit", "f.json"])
        self.assertEqual((p.returncode, p.stdout), (2, ""), p)
        self.assertTrue(p.stderr.startswith("rigctl: --shot is required"), p.stderr)

    def test_mesh_data_help(self):
        p = run([MESH_DATA, "--help"])
        self.assertEqual((p.returncode, p.stderr), (0, ""), p)
        self.assertIn("--version", p.stdout)

    def test_rigd_help_lists_the_token_command(self):
        p = run([RIGD, "--help"])
        self.assertEqual((p.returncode, p.stderr), (0, ""), p)
        self.assertIn("rigd token create", p.stdout)
        self.assertIn("--version", p.stdout)

    def test_every_rigd_token_subcommand_has_help(self):
        tmp = tempfile.mkdtemp(prefix="rigd-e2e-help-")
        try:
            for argv in (["token", "--help"], ["token", "-h"], ["token", "create", "--help"],
                         ["token", "list", "--help"], ["token", "revoke", "--help"],
                         ["token", "create", "--name", "x", "-h"]):
                with self.subTest(argv=argv):
                    p = run([RIGD, *argv], cwd=tmp)
                    self.assertEqual((p.returncode, p.stderr), (0, ""), p)
                    self.assertTrue(p.stdout.startswith("usage: rigd token create"), p.stdout)
                    self.assertIn("Examples:", p.stdout)
            self.assertEqual(os.listdir(tmp), [])  # help opened no database
            for argv in (["token"], ["token", "create", "--bogus"], ["token", "frob"]):
                with self.subTest(argv=argv):
                    p = run([RIGD, *argv], cwd=tmp)
                    self.assertEqual((p.returncode, p.stdout), (2, ""), p)
                    self.assertIn("usage: rigd token", p.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


@unittest.skipUnless(os.access(RIGCTL, os.X_OK) and os.access(MESH_DATA, os.X_OK),
                     "clients not built")
class MissingToken(unittest.TestCase):
    def setUp(self):
        self.rigd = Rigd(auth=True).start()
        self.url = f"http://127.0.0.1:{self.rigd.port}"
        self.cwd = os.path.realpath(tempfile.mkdtemp(prefix="rigd-e2e-cwd-"))

    def tearDown(self):
        shutil.rmtree(self.cwd, ignore_errors=True)
        self.rigd.cleanup()

    def clients(self, **env):
        return [("rigctl", run([RIGCTL, "--url", self.url, "projects", "list"],
                               env=clean_env(**env), cwd=self.cwd)),
                ("mesh-data", run([MESH_DATA, "--url", self.url, "--shot", "s", "--layer", "l",
                                   "--kind", "weights"], env=clean_env(**env), cwd=self.cwd))]

    def assertSaysWhereItLooked(self, p, prog, *places):
        self.assertEqual(p.returncode, 1, p)
        self.assertIn("UNAUTHENTICATED", p.stderr)
        self.assertIn(f"{prog}: no API token was sent; looked in RIGD_TOKEN (not set)", p.stderr)
        for place in places:
            self.assertIn(place, p.stderr)
        self.assertIn("rigd token create", p.stderr)
        self.assertIn("export RIGD_TOKEN=", p.stderr)

    def test_without_any_token(self):
        for prog, p in self.clients():
            with self.subTest(prog=prog):
                self.assertSaysWhereItLooked(
                    p, prog, "RIGD_TOKEN_FILE (not set)",
                    os.path.join(self.cwd, "rigd.db.token") + " (no such file")

    def test_names_the_token_file_beside_rigd_db(self):
        db = os.path.join(self.cwd, "elsewhere.db")
        for prog, p in self.clients(RIGD_DB=db):
            with self.subTest(prog=prog):
                self.assertSaysWhereItLooked(p, prog, db + ".token (no such file")

    def test_names_rigd_token_file(self):
        path = os.path.join(self.cwd, "empty.token")
        open(path, "w").close()
        for prog, p in self.clients(RIGD_TOKEN_FILE=path):
            with self.subTest(prog=prog):
                self.assertSaysWhereItLooked(p, prog, f"RIGD_TOKEN_FILE {path} (its first line is empty)")

    def test_a_refused_token_is_not_called_missing(self):
        for prog, p in self.clients(RIGD_TOKEN="rigd_wrong"):
            with self.subTest(prog=prog):
                self.assertEqual(p.returncode, 1, p)
                self.assertIn("UNAUTHENTICATED", p.stderr)
                self.assertNotIn("no API token was sent", p.stderr)

    def test_the_bootstrap_file_it_names_works(self):
        for prog, p in self.clients(RIGD_DB=self.rigd.db_path):
            with self.subTest(prog=prog):
                self.assertNotIn("no API token", p.stderr)
                self.assertNotIn("UNAUTHENTICATED", p.stderr)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ListenUrl(unittest.TestCase):
    """rigd --listen 127.0.0.1:0 with its stderr a terminal (a pty), as a person starts it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rigd-e2e-pty-")
        self.proc = None

    def tearDown(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start_on_a_terminal(self, listen, until, timeout=10, linger=0.0):
        """Starts rigd with stderr on a pty; returns what it wrote there until `until`
        appeared and `linger` seconds more went by."""
        master, slave = pty.openpty()
        try:
            self.proc = subprocess.Popen(
                [RIGD, "--db", os.path.join(self.tmp, "rigd.db"), "--listen", listen,
                 "--auth", "off"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=slave, env=clean_env())
        finally:
            os.close(slave)
        out = b""
        deadline, found = time.monotonic() + timeout, False
        try:
            while time.monotonic() < deadline:
                if not found and until in out.decode("utf-8", "replace"):
                    found, deadline = True, time.monotonic() + linger
                    continue
                ready, _, _ = select.select([master], [], [], 0.05)
                if ready:
                    try:
                        out += os.read(master, 65536)
                    except OSError:  # the child closed the terminal
                        break
        finally:
            os.close(master)
        return out.decode("utf-8", "replace").replace("\r\n", "\n")

    def test_port_0_says_the_url_in_words_and_how_to_export_it(self):
        text = self.start_on_a_terminal("127.0.0.1:0", "export RIGD_URL=", linger=0.2)
        m = re.search(r"^rigd: listening on (http://127\.0\.0\.1:(\d+))\n"
                      r"export RIGD_URL=(\S+)\n", text, re.M)
        self.assertIsNotNone(m, text)
        url, port = m.group(1), int(m.group(2))
        self.assertEqual(m.group(3), url)
        self.assertNotEqual(port, 0)
        listening = [json.loads(l) for l in text.splitlines() if '"msg":"listening"' in l]
        self.assertEqual([(e["port"], e["url"]) for e in listening], [(port, url)])
        # The exported URL is the one the clients use.
        if os.access(RIGCTL, os.X_OK):
            p = run([RIGCTL, "--format", "json", "projects", "list"], env=clean_env(RIGD_URL=url))
            self.assertEqual((p.returncode, p.stdout), (0, "[]\n"), p)

    def test_a_port_the_operator_chose_is_not_repeated_in_words(self):
        port = free_port()
        text = self.start_on_a_terminal(f"127.0.0.1:{port}", '"msg":"listening"', linger=0.5)
        self.assertIn(f'"url":"http://127.0.0.1:{port}"', text)
        self.assertNotIn("rigd: listening on", text)
        self.assertNotIn("export RIGD_URL", text)

    def test_a_log_file_gets_json_lines_only(self):
        rigd = Rigd().start()  # --listen 127.0.0.1:0, stderr to a file
        try:
            rigd.get("/healthz")
            lines = rigd.read_log().splitlines()
            entries = [json.loads(line) for line in lines]  # every line is JSON
            self.assertIn(f"http://127.0.0.1:{rigd.port}",
                          [e.get("url") for e in entries if e["msg"] == "listening"])
        finally:
            rigd.cleanup()


@unittest.skipUnless(os.access(MESH_DATA, os.X_OK), "mesh-data not built")
class GroupLayerMeshData(RigdTestCase):
    KINDS = ("joints", "weights", "vertices", "triangles", "keyframes")

    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", "s")
        self.rigd.edit("s", [
            {"op": "layer.create", "layerId": "g", "name": "G", "kind": "group"},
            {"op": "layer.create", "layerId": "m", "name": "M", "kind": "mesh"}])

    def test_the_server_answers_layer_kind(self):
        for kind in self.KINDS:
            with self.subTest(kind=kind):
                r = self.rigd.get(f"/v1/shots/s/layers/g/mesh-data/{kind}")
                body = self.assertProblem(r, 422, "LAYER_KIND")
                self.assertEqual((body["shotId"], body["layerId"]), ("s", "g"))
                self.assertIn("not a mesh layer", body["detail"])
        # An unbound mesh layer still pages empty collections (it may get a binding).
        r = self.rigd.get("/v1/shots/s/layers/m/mesh-data/weights")
        self.assertEqual((r.status, r.json["total"], r.json["items"]), (200, 0, []), r)

    def test_mesh_data_says_it_is_not_a_mesh_layer(self):
        url = f"http://127.0.0.1:{self.rigd.port}"
        for fmt in ("table", "ndjson"):
            with self.subTest(format=fmt):
                p = run([MESH_DATA, "--url", url, "--shot", "s", "--layer", "g", "--kind",
                         "weights", "--format", fmt])
                self.assertEqual((p.returncode, p.stdout), (1, ""), p)
                self.assertIn("LAYER_KIND", p.stderr)
                self.assertIn("layer 'g' is a group layer, not a mesh layer", p.stderr)
                self.assertNotIn("of 0", p.stdout + p.stderr)


class Catalogue(RigdTestCase):
    def test_skin_weights_fix_names_normalize(self):
        r = self.rigd.get("/v1/errors/SKIN_WEIGHTS")
        self.assertEqual(r.status, 200, r)
        self.assertIn("layer.skin.weights.put", r.json["fix"])
        self.assertIn("normalize: true", r.json["fix"])


if __name__ == "__main__":
    main()
