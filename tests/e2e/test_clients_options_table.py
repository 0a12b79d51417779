"""The clients' options come from one table each (issue 22, item 4): mesh-data's
MESH_DATA_OPTIONS (clients/mesh_data.c) and rigctl's RIG_CTL_OPTIONS
(clients/rigctl_options.h). `--options-markdown` prints clients/README.md's option table of
each from it, which must hold exactly that table; each `--help` page lists the options of its
commands; a variable works as its flag; a value outside its row's shape or bounds, a required
option left out and an option of another command are usage errors (exit 2, nothing sent), by
flag and variable alike; a documented default is a value its row takes; and where two rows
share a name the command picks the row.

No server runs: the clients are pointed at a closed port, so a command line they accept ends
in exit 1 ("cannot reach rigd"), one they refuse in exit 2. The binaries are found next to
the server's build: <build>/clients/ for RIGD_BIN=<build>/server/rigd.
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from rigd_harness import RIGD_BIN, ROOT

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")
MESH_DATA = os.path.join(BUILD, "clients", "mesh-data")
README = os.path.join(ROOT, "clients", "README.md")
CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens there
HEADER = "| flag | env | default |"
ROW = re.compile(r"^\| `--([a-z-]+)(?: ([^`]*))?` \| (?:`(RIGD_[A-Z_]+)`|—) \| ([^|]*) \|"
                 r"(?: ([^|]*) \|)? ", re.M)


def run(argv, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("RIGD_")}
    e.update(env)
    return subprocess.run(argv, capture_output=True, text=True, env=e, timeout=60)


def readme_table(text, heading):
    """The option table of the README's section `heading` (up to the next `## `)."""
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    section = text[start:end if end >= 0 else len(text)]
    begin = section.index(HEADER)
    stop = section.find("\n\n", begin)
    return section[begin:stop if stop >= 0 else len(section)].rstrip("\n") + "\n"


def table_differences(readme, generated):
    """The lines of one table missing from the other, as a message; "" when they agree."""
    a, b = readme.splitlines(), generated.splitlines()
    if a == b:
        return ""
    only_readme = [line for line in a if line not in b]
    only_table = [line for line in b if line not in a]
    return ("clients/README.md has:\n  " + "\n  ".join(only_readme or ["(the same lines)"]) +
            "\nthe table prints:\n  " + "\n  ".join(only_table or ["(the same lines, in another order)"]))


PROGRAMS = (("mesh-data", MESH_DATA, "## `mesh-data`"), ("rigctl", RIGCTL, "## `rigctl`"))


@unittest.skipUnless(os.access(RIGCTL, os.X_OK) and os.access(MESH_DATA, os.X_OK),
                     "clients not built")
class ReadmeTables(unittest.TestCase):
    def generated(self, path):
        p = run([path, "--options-markdown"])
        self.assertEqual((p.returncode, p.stderr), (0, ""), p)
        self.assertTrue(p.stdout.startswith(HEADER), p.stdout)
        return p.stdout

    def test_the_readme_holds_each_generated_table(self):
        with open(README, encoding="utf-8") as f:
            text = f.read()
        for prog, path, heading in PROGRAMS:
            with self.subTest(prog=prog):
                diff = table_differences(readme_table(text, heading), self.generated(path))
                if diff:
                    self.fail(f"the {prog} options table of clients/README.md differs from "
                              f"`{prog} --options-markdown`:\n{diff}")

    def test_a_table_that_drifted_is_caught(self):
        # The comparison above, on a README whose table lost a word, a row or its order.
        table = self.generated(RIGCTL)
        lines = table.splitlines(keepends=True)
        for drifted in (table.replace("the lease in seconds", "the lease"),
                        "".join(lines[:-1]),
                        "".join(lines[:2] + lines[3:4] + lines[2:3] + lines[4:])):
            self.assertNotEqual(table_differences(drifted, table), "")
        self.assertEqual(table_differences(table, table), "")

    def test_every_row_is_in_the_help_of_its_commands(self):
        for prog, path, _ in PROGRAMS:
            rows = ROW.findall(self.generated(path))
            self.assertGreater(len(rows), 10, prog)
            overview = run([path, "--help"]).stdout
            for flag, _, env, _, commands in rows:
                with self.subTest(prog=prog, flag=flag):
                    pages = [overview]
                    if commands and commands.strip() != "every command":
                        # "plan create/revise, edit": the page of each command named
                        pages = [run([path, part.split()[0], "--help"]).stdout
                                 for part in commands.split(", ")]
                    for page in pages:
                        self.assertRegex(page, rf"\n  --{flag}\b")
                        if env:
                            self.assertIn("$" + env, page)


@unittest.skipUnless(os.access(RIGCTL, os.X_OK) and os.access(MESH_DATA, os.X_OK),
                     "clients not built")
class Values(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rigd-e2e-options-")
        self.out = os.path.join(self.tmp, "frames")
        self.ops = os.path.join(self.tmp, "ops.json")
        with open(self.ops, "w") as f:
            f.write('[{"op": "layer.rename", "layerId": "a", "name": "A"}]')
        self.mesh = [MESH_DATA, "--url", CLOSED, "--shot", "s", "--layer", "l", "--kind",
                     "joints"]

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def accepted(self, argv, **env):
        p = run(argv, **env)
        self.assertEqual(p.returncode, 1, (argv, p.stderr))
        self.assertIn("cannot reach rigd", p.stderr)
        return p

    def refused(self, argv, message, **env):
        p = run(argv, **env)
        self.assertEqual((p.returncode, p.stdout), (2, ""), (argv, p.stderr))
        self.assertIn(message, p.stderr)
        self.assertIn("--help", p.stderr)
        self.assertNotIn("cannot reach", p.stderr)

    def rigctl(self, *words):
        return [RIGCTL, "--url", CLOSED, *words]

    def base(self, command):
        """A command line of command that rigctl accepts, for the flags of the rows with a
        default to be added to: frames, tessellate, weights paint; else projects list."""
        bases = {
            "frames": ("frames", "--shot", "s", "--layer", "l", "--out", self.out),
            "tessellate": ("tessellate", "--width", "1", "--height", "1", "--density", "2"),
            "weights paint": ("weights", "paint", "--shot", "s", "--layer", "m", "--joint", "j",
                              "--mode", "add", "--center", "0,0", "--radius", "1",
                              "--strength", "1"),
        }
        return self.rigctl(*bases.get(command, ("projects", "list")))

    def test_values_at_and_past_their_bounds(self):
        frames = self.rigctl("frames", "--shot", "s", "--layer", "l", "--out", self.out)
        put = self.rigctl("constraint", "put", "s", "--id", "c", "--chain", "a", "--target", "t")
        diff = self.rigctl("diff", "s", "--from", "1", "--to", "2")
        pin_add = self.rigctl("pin", "add", "--shot", "s", "--layer", "m", "--id", "p", "--x",
                              "1", "--y", "2")
        pin_key = self.rigctl("pin", "key", "--shot", "s", "--layer", "m", "--id", "p",
                              "--channel", "rotation", "--frame", "1", "--value", "3")
        tess = self.base("tessellate")
        paint = self.base("weights paint")
        rig = self.rigctl("rig", "auto", "--shot", "s", "--layer", "m", "--width", "1",
                          "--height", "1", "--bones", "2")
        cases = [  # argv, flag, good, bad, what the message says
            (self.rigctl("lock", "acquire", "--shot", "s", "a"), "ttl", "1", "0",
             "is not a whole number of at least 1"),
            (self.rigctl("lock", "renew", "k"), "ttl", "3600", "x", "of at least 1"),
            (self.rigctl("edit", "--shot", "s", self.ops), "expected-version", "0", "-1",
             "is not a version number"),
            (self.rigctl("plan", "apply", "p"), "plan-version", "1", "0", "of at least 1"),
            (self.rigctl("plan", "apply", "p", "--plan-version", "1", "--lock-id", "k"),
             "fencing-token", "1", "0", "of at least 1"),
            (diff, "max-bytes", "1", "0", "of at least 1"),
            (self.rigctl("constraints", "s"), "version", "0", "-1", "is not a version number"),
            (self.rigctl("shots", "delete", "s"), "if-match", "-3", "3.5",
             "is not a version number"),
            (put, "order", "-5", "1.5", "is not a whole number"),
            (put, "mix", "0.5", "half", "is not a number"),
            (frames, "step", "0.5", "inf", "is not a number"),
            (frames, "space", "shot", "world", "is not local or shot"),
            (self.rigctl("projects", "list"), "format", "ndjson", "obj",
             "is not table, json or ndjson"),
            (self.rigctl("projects", "list"), "actor", "a" * 128, "",
             "--actor must be 1 to 128 characters"),
            (pin_add, "stiffness", "-1", "stiff", "is not a number"),
            (pin_add, "overlap-extent", "1e-9", "1e999", "is not a number"),
            (pin_key, "channel", "position.y", "position.z",
             "is not position.x, position.y, rotation, stiffness, scale or overlap"),
            (pin_key, "interp", "bezier", "smooth", "is not linear, hold or bezier"),
            (pin_key, "frame", "-2.5", "", "is not a number"),
            (self.rigctl("pin", "list", "--shot", "s", "--layer", "m"), "version", "0", "-1",
             "is not a version number"),
            (tess, "density", "100", "12.5", "is not a whole number"),
            (tess, "mode", "silhouette", "mesh", "is not grid or silhouette"),
            (tess, "pivot", "0,1", "0;1", "is not two numbers X,Y"),
            (tess, "expansion", "0", "wide", "is not a number"),
            (tess, "alpha-threshold", "255", "0x10", "is not a whole number"),
            (rig, "method", "nearest-joint", "nearest", "is not segment, nearest-joint or "
             "harmonic"),
            (rig, "method", "nearestJoint", "nearest_joint", "or harmonic"),
            (rig, "max-influences", "8", "four", "is not a whole number"),
            (rig, "frame", "-1.5", "first", "is not a number"),
            (paint, "feather", "0", "soft", "is not a number"),
            (paint, "center", "-1.5,2e3", "1", "is not two numbers X,Y"),
            (self.rigctl("weights", "set", "--shot", "s", "--layer", "m", "--joint", "j",
                         "--weight", "1"), "vertex", "0", "-1", "of at least 0"),
            (self.mesh, "page-size", "1", "0", "is not a whole number of at least 1"),
            (self.mesh, "max-bytes", "9223372036854775807", "9223372036854775808",
             "of at least 1"),
            (self.mesh, "frame", "-1.5e3", "soon", "is not a number"),
            (self.mesh, "space", "local", "world", "is not local or shot"),
            (self.mesh, "format", "csv", "xml", "is not table, json, ndjson or csv"),
            (self.mesh, "kind", "weights", "bones", "or keyframes"),
            (self.mesh, "kind", "pin-weights", "pin-Weights", "or keyframes"),
            (self.mesh, "kind", "pinWeights", "pinweights", "or keyframes"),
            (self.mesh, "page-token", "t", "", "--page-token must not be empty"),
        ]
        for argv, flag, good, bad, message in cases:
            with self.subTest(flag=flag, argv=argv[:4]):
                self.accepted(argv + [f"--{flag}", good])
                self.accepted(argv + [f"--{flag}={good}"])
                self.refused(argv + [f"--{flag}", bad], message)
                self.refused(argv + [f"--{flag}={bad}"], f"--{flag}")

    def test_a_variable_is_read_as_its_flag(self):
        # RIGD_URL names the server; an empty one is not set.
        self.accepted([RIGCTL, "projects", "list"], RIGD_URL=CLOSED)
        p = self.accepted([MESH_DATA, "--shot", "s", "--layer", "l", "--kind", "joints"],
                          RIGD_URL=CLOSED)
        self.assertIn(CLOSED, p.stderr)
        # the flag wins over the variable
        p = self.accepted([RIGCTL, "--url", CLOSED, "projects", "list"],
                          RIGD_URL="http://127.0.0.1:1")
        self.assertIn(CLOSED, p.stderr)
        # RIGD_ACTOR is checked as --actor is, and named when it is wrong.
        self.accepted(self.rigctl("projects", "list"), RIGD_ACTOR="a" * 128)
        self.accepted(self.rigctl("projects", "list"), RIGD_ACTOR="")
        self.refused(self.rigctl("projects", "list"), "RIGD_ACTOR must be 1 to 128 characters",
                     RIGD_ACTOR="a" * 129)
        self.accepted(self.rigctl("--actor", "ana", "projects", "list"), RIGD_ACTOR="a" * 129)

    def test_required_options_and_options_of_other_commands(self):
        self.refused([MESH_DATA, "--url", CLOSED, "--shot", "s", "--layer", "l"],
                     "--kind is required")
        self.refused(self.rigctl("diff", "s", "--from", "1"), "--to is required")
        self.refused(self.rigctl("frames", "--shot", "s", "--out", self.out),
                     "--layer is required")
        self.refused(self.rigctl("constraint", "delete", "s"), "--id is required")
        self.refused(self.rigctl("pin", "key", "--shot", "s", "--layer", "m", "--id", "p",
                                 "--channel", "scale", "--value", "1"), "--frame is required")
        self.accepted(self.rigctl("pin", "move", "--shot", "s", "--layer", "m", "--id", "p",
                                  "--x", "1", "--y", "1", "--frame", "2"))  # --frame optional here
        self.accepted(self.rigctl("receipts", "r.1.1"))  # --shot is not required here
        self.refused(self.rigctl("projects", "list", "--ttl", "5"),
                     "option '--ttl' does not apply to 'projects list'")
        self.refused(self.rigctl("lock", "release", "k", "--ttl", "5"),
                     "does not apply to 'lock release'")
        # tessellate needs its rectangle and density, not --shot; rig auto has a density
        self.refused(self.rigctl("tessellate", "--width", "1", "--height", "1"),
                     "--density is required")
        self.accepted(self.rigctl("tessellate", "--width", "1", "--height", "1", "--density",
                                  "2"))
        self.accepted(self.rigctl("rig", "auto", "--shot", "s", "--layer", "m", "--width", "1",
                                  "--height", "1", "--bones", "biped"))
        self.refused(self.rigctl("weights", "auto", "--shot", "s", "--layer", "m"),
                     "--method is required")

    def test_the_command_picks_the_row_of_a_shared_name(self):
        frames = self.rigctl("frames", "--shot", "s", "--layer", "l", "--out", self.out)
        self.accepted(frames + ["--format", "f32", "--from", "0.5", "--to", "2"])
        self.refused(frames + ["--format", "json"], "--format 'json' is not obj or f32")
        self.refused(self.rigctl("projects", "list", "--format", "f32"),
                     "--format 'f32' is not table, json or ndjson")
        self.refused(self.rigctl("diff", "s", "--from", "0.5", "--to", "2"),
                     "--from '0.5' is not a whole number of at least 0")
        # --mode: the tessellation's for tessellate and rig auto, the brush's for paint
        self.accepted(self.base("tessellate") + ["--mode", "silhouette"])
        self.refused(self.base("tessellate") + ["--mode", "add"],
                     "--mode 'add' is not grid or silhouette")
        paint = self.base("weights paint")
        self.accepted(paint[:paint.index("--mode")] + ["--mode", "smooth"] +
                      paint[paint.index("--mode") + 2:])
        self.refused(paint[:paint.index("--mode")] + ["--mode", "grid"] +
                     paint[paint.index("--mode") + 2:],
                     "--mode 'grid' is not add, subtract, smooth or set")
        # --format: the document's for import and export (passed on: the server decides),
        # --parent and --id-prefix the import's for import
        self.accepted(self.rigctl("export", "--shot", "s", "--format", "json"))
        self.accepted(self.rigctl("import", self.ops, "--shot", "s", "--format", "spine",
                                  "--parent", "rig", "--id-prefix", "a."))
        self.refused(self.rigctl("export", "--shot", "s", "--format", ""),
                     "--format must not be empty")
        self.refused(self.rigctl("import", self.ops, "--shot", "s", "--format", "rig2d",
                                 "--parent", ""), "--parent must not be empty")
        self.refused(self.rigctl("import", self.ops, "--shot", "s"), "--format is required")
        self.refused(self.rigctl("export", "--shot", "s", "--format", "rig2d", "--version",
                                 "-1"), "is not a version number")
        # --frame: the key's for pin key, the bind frame for rig auto
        self.accepted(self.rigctl("rig", "auto", "--shot", "s", "--layer", "m", "--width", "1",
                                  "--height", "1", "--bones", "2", "--frame", "2.5"))

    def test_every_documented_default_is_a_value_of_its_row(self):
        for prog, path, _ in PROGRAMS:
            table = run([path, "--options-markdown"]).stdout
            for flag, _, _, default, commands in ROW.findall(table):
                m = re.fullmatch(r"`([^`]*)`", default.strip())
                if not m:
                    continue  # said in words: the server's, computed, none
                with self.subTest(prog=prog, flag=flag, default=m.group(1)):
                    if prog == "mesh-data":
                        argv = self.mesh
                    else:  # the row's first command
                        argv = self.base(commands.split(", ")[0].strip())
                    self.accepted(argv + [f"--{flag}", m.group(1)])


if __name__ == "__main__":
    unittest.main(verbosity=2)
