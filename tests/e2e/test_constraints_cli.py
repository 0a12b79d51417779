"""rigctl constraints / constraint put / constraint delete (issue 16) against the real
server: a put built from options lands as the stored constraint (read back over HTTP,
field by field), the list follows every page token (json, ndjson, table) and reads past
versions with --version, --expected-version and --dry-run behave as for rigctl edit,
delete removes, and bad options are usage errors (exit 2) that send nothing while server
refusals (IK_CHAIN, CONSTRAINT_NOT_FOUND, VERSION_CONFLICT) exit 1 with their code.

The binary is found next to the server's build: <build>/clients/rigctl.
"""
import json
import os
import subprocess

from rigd_harness import RIGD_BIN, RigdTestCase, main

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")
S = "s1"
C = f"/v1/shots/{S}/constraints"


class ConstraintCliCase(RigdTestCase):
    def setUp(self):
        if not os.access(RIGCTL, os.X_OK):
            raise RuntimeError(f"rigctl is not built at {RIGCTL}")
        super().setUp()
        self.url = f"http://127.0.0.1:{self.rigd.port}"
        self.rigd.make_shot("p1", S)
        ops = [{"op": "layer.create", "layerId": lid, "name": lid, "kind": "group",
                "parentId": parent, "transform": {"position": pos}}
               for lid, parent, pos in [("root", None, [0, 0]), ("upper", "root", [1, 0]),
                                        ("lower", "upper", [3, 1]), ("target", None, [4, 2]),
                                        ("pole", None, [0, 9]), ("x0", None, [0, 0]),
                                        ("x1", None, [0, 0]), ("x2", None, [0, 0])]]
        self.rigd.edit(S, ops)

    def rigctl(self, *args):
        e = {k: v for k, v in os.environ.items() if k not in ("RIGD_URL", "RIGD_ACTOR")}
        return subprocess.run([RIGCTL, "--url", self.url, "--actor", "cli"] + list(args),
                              capture_output=True, text=True, env=e, timeout=120)

    def ok(self, *args):
        p = self.rigctl(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def fails(self, exit_code, code, *args):
        p = self.rigctl(*args)
        self.assertEqual(p.returncode, exit_code, (p.stdout, p.stderr))
        if code:
            self.assertIn(code, p.stderr)
        return p

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def stored(self):
        return {c["constraintId"]: c for c in self.rigd.get(C).json["constraints"]}

    def test_put_sends_every_option_as_the_stored_constraint(self):
        v = self.version()
        receipt = json.loads(self.ok(
            "constraint", "put", S, "--id", "arm", "--chain", "upper,lower", "--target",
            "target", "--pole", "pole", "--bend-negative", "--mix", "0.5", "--softness",
            "0.25", "--stretch", "--compress", "--order", "-3", "--tip-length", "2.5",
            "--limits", "30:45,-", "--expected-version", str(v), "--json"))
        self.assertEqual((receipt["fromVersion"], receipt["toVersion"]), (v, v + 1))
        self.assertEqual([o["op"] for o in receipt["ops"]], ["constraint.put"])
        self.assertEqual(receipt["ops"][0]["layerId"], "upper")
        self.assertEqual(receipt["actor"], "cli")
        self.assertEqual(self.stored()["arm"], {
            "constraintId": "arm", "kind": "ik", "chain": ["upper", "lower"],
            "target": "target", "pole": "pole", "bendPositive": False, "tipLength": 2.5,
            "mix": 0.5, "softness": 0.25, "stretch": True, "compress": True, "order": -3,
            "limits": [[30, 45], [180, 180]]})
        # the defaults: no pole, bend positive, mix 1, softness 0, no stretch, order 0
        self.ok("constraint", "put", S, "--id", "arm", "--chain", "lower", "--target", "target",
                "--tip-length", "1", "--json")
        self.assertEqual(self.stored()["arm"], {
            "constraintId": "arm", "kind": "ik", "chain": ["lower"], "target": "target",
            "pole": None, "bendPositive": True, "tipLength": 1.0, "mix": 1.0,
            "softness": 0.0, "stretch": False, "compress": False, "order": 0,
            "limits": None})
        table = self.ok("constraint", "put", S, "--id", "arm", "--chain", "lower",
                        "--target", "target", "--tip-length", "1", "--format", "table")
        self.assertIn("constraint.put", table)
        self.assertIn("receipt", table)

    def test_a_follow_chain_is_put_from_its_options(self):
        self.ok("constraint", "put", S, "--id", "tail", "--kind", "chain", "--chain",
                "upper,lower", "--target", "target", "--lengths", "3.5", "--smoothing", "0.25",
                "--substeps", "3", "--max-angle", "40", "--mix", "0.5", "--json")
        self.assertEqual(self.stored()["tail"], {
            "constraintId": "tail", "kind": "chain", "chain": ["upper", "lower"],
            "target": "target", "lengths": [3.5], "smoothing": 0.25, "substeps": 3,
            "maxAngleDeg": 40, "mix": 0.5, "order": 0})
        self.ok("constraint", "put", S, "--id", "tail", "--kind", "chain", "--chain",
                "upper,lower", "--target", "target", "--segment-length", "2", "--json")
        self.assertEqual(self.stored()["tail"]["lengths"], [2])
        table = self.ok("constraints", S, "--format", "table")
        self.assertEqual(table.splitlines()[1].split()[-1], "chain")
        # a field of the other kind is the server's refusal; a bad list is rigctl's
        v = self.version()
        self.fails(1, "OP_INVALID", "constraint", "put", S, "--id", "tail", "--kind", "chain",
                   "--chain", "upper,lower", "--target", "target", "--segment-length", "2",
                   "--tip-length", "1")
        self.fails(2, "--lengths", "constraint", "put", S, "--id", "tail", "--kind", "chain",
                   "--chain", "upper,lower", "--target", "target", "--lengths", "1,x")
        self.fails(2, "substeps", "constraint", "put", S, "--id", "tail", "--kind", "chain",
                   "--chain", "upper,lower", "--target", "target", "--lengths", "1",
                   "--substeps", "9")
        self.assertEqual(self.version(), v)

    def test_a_walker_is_put_from_its_options(self):
        self.ok("constraint", "put", S, "--id", "leg", "--chain", "upper,lower", "--target",
                "target", "--tip-length", "2")
        self.ok("constraint", "put", S, "--id", "arm", "--chain", "x1", "--target", "x2",
                "--tip-length", "2")
        self.ok("constraint", "put", S, "--id", "walk", "--kind", "footstep", "--body", "root",
                "--feet", "leg:-2:-3.5,arm:4:0", "--gait", "0/1", "--step-threshold", "5",
                "--step-frames", "4", "--step-height", "1.5", "--json")
        self.assertEqual(self.stored()["walk"], {
            "constraintId": "walk", "kind": "footstep", "body": "root",
            "feet": [{"ikConstraintId": "leg", "rest": [-2, -3.5]},
                     {"ikConstraintId": "arm", "rest": [4, 0]}],
            "gait": [[0], [1]], "stepThreshold": 5, "stepFrames": 4, "stepHeight": 1.5,
            "mix": 1, "order": 0})
        self.ok("constraint", "put", S, "--id", "walk", "--kind", "footstep", "--body", "root",
                "--feet", "leg:-2:-3.5,arm:4:0", "--gait", "1,0", "--step-threshold", "5",
                "--step-frames", "4", "--step-height", "1.5")
        self.assertEqual(self.stored()["walk"]["gait"], [[0, 1]])
        v = self.version()
        for bad, says in ((["--feet", "leg:-2"], "is not IK:X:Y"),
                          (["--feet", "leg:a:1"], "is not IK:X:Y"),
                          (["--gait", "0,x"], "--gait"),
                          (["--step-frames", "0"], "step-frames")):
            self.fails(2, says, "constraint", "put", S, "--id", "walk", "--kind", "footstep",
                       "--body", "root", "--feet", "leg:0:0", "--step-threshold", "5",
                       "--step-frames", "4", "--step-height", "1", *bad)
        self.fails(2, "--chain is required", "constraint", "put", S, "--id", "c", "--target",
                   "x2", "--tip-length", "1")
        self.fails(1, "CONSTRAINT_NOT_FOUND", "constraint", "put", S, "--id", "walk", "--kind",
                   "footstep", "--body", "root", "--feet", "nope:0:0", "--step-threshold", "5",
                   "--step-frames", "4", "--step-height", "1")
        self.assertEqual(self.version(), v)

    def test_list_follows_every_page_and_reads_past_versions(self):
        for k in range(3):
            self.ok("constraint", "put", S, "--id", f"c{k}", "--chain", f"x{k}", "--target",
                    "target", "--tip-length", "1", "--order", str(2 - k))
        before = self.version()
        listed = json.loads(self.ok("constraints", S, "--page-size", "1", "--json"))
        self.assertEqual([c["constraintId"] for c in listed], ["c0", "c1", "c2"])
        self.assertEqual(listed, [self.stored()[f"c{k}"] for k in range(3)])
        nd = self.ok("constraints", S, "--page-size", "2", "--format", "ndjson")
        self.assertEqual([json.loads(line)["constraintId"] for line in nd.splitlines()],
                         ["c0", "c1", "c2"])
        table = self.ok("constraints", S, "--page-size", "2", "--format", "table")
        self.assertIn("constraint", table.splitlines()[0])
        rows = [line.split() for line in table.splitlines()[1:] if line.strip()]
        self.assertEqual([(r[0], r[1], r[2]) for r in rows],
                         [("c0", "2", "x0"), ("c1", "1", "x1"), ("c2", "0", "x2")])
        self.assertNotIn("more constraints follow", table)
        # dry run: a receipt saying so, nothing written
        dry = json.loads(self.ok("constraint", "delete", S, "--id", "c1", "--dry-run",
                                 "--json"))
        self.assertTrue(dry["dryRun"])
        self.assertEqual(self.version(), before)
        # a stale --expected-version is refused and changes nothing
        self.fails(1, "VERSION_CONFLICT", "constraint", "delete", S, "--id", "c1",
                   "--expected-version", str(before - 1))
        self.assertEqual(self.version(), before)
        receipt = json.loads(self.ok("constraint", "delete", S, "--id", "c1",
                                     "--expected-version", str(before), "--json"))
        self.assertEqual(receipt["ops"][0]["op"], "constraint.delete")
        self.assertEqual(sorted(self.stored()), ["c0", "c2"])
        self.assertEqual([c["constraintId"] for c in
                          json.loads(self.ok("constraints", S, "--json"))], ["c0", "c2"])
        past = json.loads(self.ok("constraints", S, "--version", str(before), "--page-size",
                                  "1", "--json"))
        self.assertEqual([c["constraintId"] for c in past], ["c0", "c1", "c2"])
        self.assertEqual(json.loads(self.ok("constraints", S, "--version", "1", "--json")), [])
        self.fails(1, "CONSTRAINT_NOT_FOUND", "constraint", "delete", S, "--id", "c1")
        self.fails(1, "NOT_FOUND", "constraints", "no-such-shot", "--json")

    def test_bad_options_send_nothing_and_server_refusals_exit_1(self):
        v = self.version()
        base = ["constraint", "put", S, "--id", "arm", "--target", "target",
                "--tip-length", "1"]
        self.fails(2, "--chain is required", *base)
        self.fails(2, "--target is required", "constraint", "put", S, "--id", "a",
                   "--chain", "upper", "--tip-length", "1")
        self.fails(2, "--id is required", "constraint", "delete", S)
        self.fails(2, "not a number", *base, "--chain", "upper", "--mix", "half")
        self.fails(2, "exclude each other", *base, "--chain", "upper", "--bend-positive",
                   "--bend-negative")
        self.fails(2, "not a whole number", *base, "--chain", "upper", "--order", "1.5")
        self.fails(2, "is not CW:ACW", *base, "--chain", "upper", "--limits", "30")
        self.fails(2, "is not CW:ACW", *base, "--chain", "upper", "--limits", "30:x")
        self.fails(2, "disagree", "constraints", S, "--json", "--format", "ndjson")
        self.fails(2, "not a version number", "constraints", S, "--version", "-1")
        self.fails(2, "does not apply", "constraint", "delete", S, "--id", "a", "--chain",
                   "upper")
        self.fails(2, "needs a SHOT_ID", "constraint", "put")
        self.assertEqual(self.version(), v)
        # the server's own rules: a chain layer not the child of the one before it
        p = self.fails(1, "IK_CHAIN", *base, "--chain", "upper,target")
        self.assertIn("/ops/0/chain/1", p.stderr)
        self.fails(1, "OP_INVALID", *base, "--chain", "upper", "--mix", "2")
        p = self.fails(1, "OP_INVALID", *base, "--chain", "upper", "--limits", "30:200")
        self.assertIn("/ops/0/limits/0", p.stderr)
        self.assertEqual(self.version(), v)
        self.assertEqual(self.stored(), {})


if __name__ == "__main__":
    main()
