"""rigctl plan and rigctl lock (issue 6, SPEC §6 and §9) driven against the real
server: plans created from a file or stdin, shown and listed (json, ndjson,
table), validated (ok, and broken plans printing every error with its pointer
and op index, exit 1), revised under CAS (--plan-version sent as If-Match; a
stale one exits 1 with PLAN_VERSION_CONFLICT), applied (receipt printed,
version bumped; again: PLAN_APPLIED), pinned plans refused after someone
else's edit (VERSION_CONFLICT, nothing changed), deleted; locks acquired,
listed, renewed and released, blocking another actor's `rigctl edit`
(LAYER_LOCKED) and proving themselves with --lock-id/--fencing-token.

The binary is found next to the server's build: <build>/clients/rigctl for
RIGD_BIN=<build>/server/rigd.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from rigd_harness import RIGD_BIN, RigdTestCase, main

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")

S = "s1"
GOOD_OPS = [
    {"op": "layer.pose", "layerId": "a", "frame": 4, "transform": {"rotation": 30}},
    {"op": "layer.create", "layerId": "c", "name": "C", "kind": "group", "parentId": "a"},
    {"op": "layer.rename", "layerId": "b", "name": "Bee"},
]
# Three errors in two ops: a missing name (op 0), a bad frame and a missing
# transform (op 2).
BROKEN_OPS = [
    {"op": "layer.create", "layerId": "x", "kind": "group"},
    {"op": "layer.rename", "layerId": "a", "name": "Fine"},
    {"op": "layer.pose", "layerId": "a", "frame": "soon"},
]


class RigctlCase(RigdTestCase):
    """A server with shot s1 at version 1 holding group layers a and b."""

    def setUp(self):
        if not os.access(RIGCTL, os.X_OK):
            raise RuntimeError(f"rigctl is not built at {RIGCTL}")
        super().setUp()
        self.url = f"http://127.0.0.1:{self.rigd.port}"
        self.tmp = tempfile.mkdtemp(prefix="rigctl-plans-e2e-")
        self.rigd.make_shot("p1", S)
        self.rigd.edit(S, [
            {"op": "layer.create", "layerId": "a", "name": "A", "kind": "group"},
            {"op": "layer.create", "layerId": "b", "name": "B", "kind": "group"},
        ])

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        super().tearDown()

    def rigctl(self, *args, input=None, env=None, actor="agent-7"):
        e = {k: v for k, v in os.environ.items() if k not in ("RIGD_URL", "RIGD_ACTOR")}
        e.update(env or {})
        argv = [RIGCTL, "--url", self.url] + (["--actor", actor] if actor else []) + list(args)
        return subprocess.run(argv, capture_output=True, text=True, input=input, env=e,
                              timeout=120)

    def ok(self, *args, **kw):
        p = self.rigctl(*args, **kw)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def ok_json(self, *args, **kw):
        return json.loads(self.ok(*args, **kw))

    def fails(self, code, *args, exit_code=1, **kw):
        """Runs rigctl expecting exit_code and, for 1, the problem code on stderr."""
        p = self.rigctl(*args, **kw)
        self.assertEqual(p.returncode, exit_code, (p.stdout, p.stderr))
        if code:
            self.assertIn(code, p.stderr)
        return p

    def write(self, name, value):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(value, f)
        return path

    def version(self):
        return self.rigd.get(f"/v1/shots/{S}").json["version"]

    def plan(self, pid):
        r = self.rigd.get(f"/v1/plans/{pid}")
        self.assertEqual(r.status, 200, r)
        return r.json


# ================================= plans =================================


class PlanCommands(RigctlCase):
    def create(self, ops=GOOD_OPS, *extra, **kw):
        return self.ok_json("plan", "create", "--shot", S, self.write("plan.json", ops), *extra,
                            **kw)

    def test_create_show_and_list(self):
        p = self.create({"ops": GOOD_OPS}, "--id", "fix-1", "--title", "Fix the elbow")
        self.assertEqual((p["planId"], p["shotId"], p["planVersion"], p["status"]),
                         ("fix-1", S, 1, "draft"))
        self.assertEqual((p["title"], p["author"], p["ops"]), ("Fix the elbow", "agent-7",
                                                               GOOD_OPS))
        self.assertIsNone(p["baseVersion"])
        self.assertEqual(self.ok_json("plan", "show", "fix-1"), self.plan("fix-1"))
        # A bare op object from stdin, with the RIGD_ACTOR environment variable.
        one = json.loads(self.ok("plan", "create", "--shot", S, "-", actor=None,
                                 input=json.dumps(GOOD_OPS[2]), env={"RIGD_ACTOR": "bob"}))
        self.assertEqual((one["ops"], one["author"]), ([GOOD_OPS[2]], "bob"))
        self.assertTrue(one["planId"])
        # Lists parse back: json as one array, ndjson one plan per line, both
        # equal to the server's list; the table names both plans.
        listed = self.ok_json("plan", "list", "--shot", S)
        self.assertEqual(listed, self.rigd.get(f"/v1/shots/{S}/plans").json["plans"])
        self.assertEqual([x["planId"] for x in listed], ["fix-1", one["planId"]])
        lines = self.ok("plans", "list", "--shot", S, "--format", "ndjson").splitlines()
        self.assertEqual([json.loads(line) for line in lines], listed)
        table = self.ok("plan", "list", "--shot", S, "--format", "table")
        self.assertIn("fix-1", table)
        self.assertIn("Fix the elbow", table)
        shown = self.ok("plan", "show", "fix-1", "--format", "table")
        self.assertIn("plan     fix-1  version 1, draft", shown)
        self.assertIn("unpinned", shown)
        self.assertIn("layer.rename", shown)
        # Creating plans changed nothing about the shot.
        self.assertEqual(self.version(), 1)

    def test_create_pinned_by_version_or_to_the_current_version(self):
        pinned = self.create(GOOD_OPS, "--pin")
        self.assertEqual(pinned["baseVersion"], 1)
        self.assertEqual(self.create(GOOD_OPS, "--base-version", "0")["baseVersion"], 0)
        # A {"ops"} file may carry title and baseVersion; the flags win.
        p = self.create({"ops": GOOD_OPS, "title": "From the file", "baseVersion": 1,
                         "planVersion": 7, "status": "ignored"}, "--title", "From the flag")
        self.assertEqual((p["title"], p["baseVersion"], p["planVersion"]),
                         ("From the flag", 1, 1))
        table = self.ok("plan", "show", pinned["planId"], "--format", "table")
        self.assertIn("pinned to version 1", table)

    def test_validate_ok_previews_the_receipt_and_changes_nothing(self):
        p = self.create()
        before = self.rigd.snapshot(S)
        v = self.ok_json("plan", "validate", p["planId"])
        self.assertIs(v["ok"], True)
        self.assertEqual(v["errors"], [])
        self.assertEqual((v["receipt"]["fromVersion"], v["receipt"]["toVersion"]), (1, 2))
        self.assertEqual(v["shotVersion"], 1)
        table = self.ok("plan", "validate", p["planId"], "--format", "table")
        self.assertIn("result   ok", table)
        self.assertIn("version 1 → 2 (if applied)", table)
        self.assertIn("changed  a, c, b", table)
        self.assertEqual(self.rigd.snapshot(S), before)

    def test_validate_a_broken_plan_prints_every_error_and_exits_1(self):
        p = self.create(BROKEN_OPS)
        before = self.rigd.snapshot(S)
        # json: the whole result on stdout, one line on stderr.
        r = self.fails(None, "plan", "validate", p["planId"])
        v = json.loads(r.stdout)
        self.assertIs(v["ok"], False)
        self.assertIsNone(v["receipt"])
        got = sorted((e["code"], e["opIndex"], e["pointer"]) for e in v["errors"])
        self.assertEqual(got, [("OP_INVALID", 0, "/ops/0/name"),
                               ("OP_INVALID", 2, "/ops/2/frame"),
                               ("OP_INVALID", 2, "/ops/2/transform")])
        self.assertIn("would not apply: 3 errors", r.stderr)
        # table: each error with its code, pointer, op index and detail.
        r = self.fails(None, "plan", "validate", p["planId"], "--format", "table")
        self.assertIn("not ok: 3 errors", r.stdout)
        self.assertIn("error 1: OP_INVALID at /ops/0/name (op 0): field 'name' is required",
                      r.stdout)
        self.assertIn("at /ops/2/frame (op 2)", r.stdout)
        self.assertIn("at /ops/2/transform (op 2)", r.stdout)
        self.assertEqual(self.rigd.snapshot(S), before)
        # Applying it fails the same way and changes nothing either.
        r = self.fails("OP_INVALID", "plan", "apply", p["planId"], "--plan-version", "1")
        self.assertIn("/ops/0/name", r.stderr)
        self.assertEqual(self.rigd.snapshot(S), before)

    def test_revise_under_cas(self):
        p = self.create(GOOD_OPS, "--id", "fix-1", "--title", "Fix", "--pin")
        path = self.write("v2.json", GOOD_OPS[:2])
        revised = self.ok_json("plan", "revise", "fix-1", path, "--plan-version", "1")
        self.assertEqual(revised["planVersion"], 2)
        self.assertEqual(revised["ops"], GOOD_OPS[:2])
        # What the file and flags leave unsaid stays: title and pin.
        self.assertEqual((revised["title"], revised["baseVersion"]), ("Fix", 1))
        # A stale --plan-version is refused (If-Match: 412) and changes nothing.
        r = self.fails("PLAN_VERSION_CONFLICT", "plan", "revise", "fix-1", path,
                       "--plan-version", "1")
        self.assertIn("HTTP 412", r.stderr)
        self.assertIn("currentPlanVersion: 2", r.stderr)
        self.assertEqual(self.plan("fix-1"), revised)
        # The JSON of plan show edits and goes back; --title '' and --unpin clear.
        shown = self.ok_json("plan", "show", "fix-1")
        shown["ops"].append(GOOD_OPS[2])
        again = self.ok_json("plan", "revise", "fix-1", self.write("shown.json", shown),
                             "--plan-version", "2", "--title", "", "--unpin")
        self.assertEqual((again["planVersion"], again["ops"]), (3, GOOD_OPS))
        self.assertIsNone(again["title"])
        self.assertIsNone(again["baseVersion"])
        out = self.ok("plan", "revise", "fix-1", "-", "--plan-version", "3", "--title", "T",
                      "--base-version", "1", "--format", "table",
                      input=json.dumps(GOOD_OPS))
        self.assertIn("plan     fix-1  version 4, draft", out)
        self.assertIn("pinned to version 1", out)
        self.assertEqual(p["createdAt"], self.plan("fix-1")["createdAt"])

    def test_apply_prints_the_receipt_and_applying_again_fails(self):
        p = self.create(GOOD_OPS, "--id", "fix-1")
        self.ok("plan", "revise", "fix-1", self.write("v2.json", GOOD_OPS), "--plan-version",
                "1")
        # The version reviewed must be the current one.
        self.fails("PLAN_VERSION_CONFLICT", "plan", "apply", "fix-1", "--plan-version", "1")
        self.assertEqual(self.version(), 1)
        receipt = self.ok_json("plan", "apply", "fix-1", "--plan-version", "2")
        self.assertEqual((receipt["planId"], receipt["planVersion"]), ("fix-1", 2))
        self.assertEqual((receipt["fromVersion"], receipt["toVersion"]), (1, 2))
        self.assertEqual(receipt["actor"], "agent-7")
        self.assertEqual(self.version(), 2)
        self.assertEqual(self.rigd.get(f"/v1/receipts/{receipt['receiptId']}").json, receipt)
        applied = self.plan("fix-1")
        self.assertEqual((applied["status"], applied["receiptId"]),
                         ("applied", receipt["receiptId"]))
        # Again: PLAN_APPLIED naming the receipt, nothing changes.
        r = self.fails("PLAN_APPLIED", "plan", "apply", "fix-1", "--plan-version", "2")
        self.assertIn(receipt["receiptId"], r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(self.version(), 2)
        # An applied plan can no longer be revised or deleted.
        self.fails("PLAN_APPLIED", "plan", "revise", "fix-1", self.write("v3.json", GOOD_OPS),
                   "--plan-version", "2")
        self.fails("PLAN_APPLIED", "plan", "delete", "fix-1")
        # The table receipt says which plan it applied.
        other = self.create(GOOD_OPS[2:])
        out = self.ok("plan", "apply", other["planId"], "--plan-version", "1", "--format",
                      "table")
        self.assertIn("version 2 → 3", out)
        self.assertIn(f"plan     {other['planId']}  version 1", out)
        self.assertIn("changed  b", out)
        self.assertNotEqual(p["planId"], other["planId"])

    def test_pinned_plan_after_someone_elses_edit_is_refused(self):
        p = self.create(GOOD_OPS, "--pin")
        self.assertEqual(p["baseVersion"], 1)
        self.ok("edit", "--shot", S, "-", actor="bob",
                input=json.dumps({"op": "layer.rename", "layerId": "a", "name": "Bob's"}))
        before = self.rigd.snapshot(S)
        r = self.fails(None, "plan", "validate", p["planId"], "--format", "table")
        self.assertIn("VERSION_CONFLICT", r.stdout)
        self.assertIn("currentVersion: 2", r.stdout)
        r = self.fails("VERSION_CONFLICT", "plan", "apply", p["planId"], "--plan-version", "1")
        self.assertIn("HTTP 409", r.stderr)
        self.assertNotIn("PLAN_VERSION_CONFLICT", r.stderr)
        self.assertEqual(self.rigd.snapshot(S), before)
        self.assertEqual(self.plan(p["planId"]), p)
        # Unpinned, the same ops apply to the current version.
        u = self.create(GOOD_OPS)
        receipt = self.ok_json("plan", "apply", u["planId"], "--plan-version", "1")
        self.assertEqual((receipt["fromVersion"], receipt["toVersion"]), (2, 3))

    def test_apply_with_an_idempotency_key_applies_once(self):
        p = self.create()
        first = self.ok_json("plan", "apply", p["planId"], "--plan-version", "1",
                             "--idempotency-key", "apply-1")
        again = self.ok_json("plan", "apply", p["planId"], "--plan-version", "1",
                             "--idempotency-key", "apply-1")
        self.assertEqual(first, again)
        self.assertEqual(self.version(), 2)

    def test_delete_a_draft(self):
        p = self.create()
        self.assertEqual(self.ok_json("plan", "delete", p["planId"]),
                         {"planId": p["planId"], "deleted": True})
        self.fails("NOT_FOUND", "plan", "show", p["planId"])
        self.fails("NOT_FOUND", "plan", "validate", p["planId"])
        self.assertEqual(self.ok_json("plan", "list", "--shot", S), [])
        self.assertIn("(no plans)", self.ok("plan", "list", "--shot", S, "--format", "table"))

    def test_list_follows_pages_with_all(self):
        ids = [self.create()["planId"] for _ in range(5)]
        one_page = self.ok_json("plan", "list", "--shot", S, "--page-size", "2")
        self.assertEqual([x["planId"] for x in one_page], ids[:2])
        everything = self.ok_json("plan", "list", "--shot", S, "--page-size", "2", "--all")
        self.assertEqual([x["planId"] for x in everything], ids)
        table = self.ok("plan", "list", "--shot", S, "--page-size", "2", "--format", "table")
        self.assertIn("--all", table)

    def test_usage_errors_exit_2(self):
        p = self.create()
        path = self.write("ops.json", GOOD_OPS)
        for argv in (["plan", "frob"],
                     ["plan", "create", path],                                  # no --shot
                     ["plan", "create", "--shot", S, path, "--pin", "--base-version", "1"],
                     ["plan", "create", "--shot", S, path, "--unpin"],
                     ["plan", "create", "--shot", S, os.path.join(self.tmp, "missing.json")],
                     ["plan", "create", "--shot", S, "-"],                      # not JSON
                     ["plan", "revise", p["planId"], path],                     # no --plan-version
                     ["plan", "revise", p["planId"]],                           # no FILE
                     ["plan", "apply", p["planId"]],                            # no --plan-version
                     ["plan", "apply", p["planId"], "--plan-version", "0"],
                     ["plan", "apply", p["planId"], "--plan-version", "1", "--lock-id", "k"],
                     ["plan", "show", p["planId"], "--shot", S],
                     ["plan", "list"]):
            r = self.rigctl(*argv, input="not json")
            self.assertEqual(r.returncode, 2, (argv, r.stderr))
            self.assertTrue(r.stderr.startswith("rigctl: "), r.stderr)
        self.assertEqual(self.plan(p["planId"]), p)
        self.assertEqual(self.version(), 1)
        help_text = self.ok("plan", "--help")
        for verb in ("create", "show", "list", "validate", "revise", "apply", "delete"):
            self.assertIn(f"plan {verb}", help_text)
        self.assertIn("Examples:", help_text)


# ================================= locks =================================


class LockCommands(RigctlCase):
    def acquire(self, actor, *layers, ttl=None):
        extra = ["--ttl", str(ttl)] if ttl else []
        return self.ok_json("lock", "acquire", "--shot", S, *layers, *extra, actor=actor)

    def rename(self, layer, name, actor, *extra):
        return self.rigctl("edit", "--shot", S, "-", *extra, actor=actor,
                           input=json.dumps({"op": "layer.rename", "layerId": layer,
                                             "name": name}))

    def test_a_lock_blocks_another_actors_edit(self):
        lock = self.acquire("ana", "a")
        self.assertEqual((lock["owner"], lock["layerIds"], lock["shotId"]), ("ana", ["a"], S))
        self.assertTrue(lock["lockId"])
        self.assertGreaterEqual(lock["fencingToken"], 1)
        self.assertEqual(lock["ttlSeconds"], 60)
        # Bob's edit of the locked layer fails and changes nothing.
        r = self.rename("a", "Bob's", "bob")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("LAYER_LOCKED", r.stderr)
        self.assertIn(lock["lockId"], r.stderr)
        self.assertIn("/ops/0/layerId (op 0)", r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(self.version(), 1)
        # So does his plan, when applied.
        plan = self.ok_json("plan", "create", "--shot", S, "-", actor="bob",
                            input=json.dumps([{"op": "layer.rename", "layerId": "a",
                                               "name": "Plan"}]))
        self.fails("LAYER_LOCKED", "plan", "apply", plan["planId"], "--plan-version", "1",
                   actor="bob")
        # An unlocked layer is his to edit; the owner edits the locked one,
        # proving the lock with its id and fencing token.
        self.assertEqual(self.rename("b", "Bob's", "bob").returncode, 0)
        r = self.rename("a", "Ana's", "ana", "--lock-id", lock["lockId"], "--fencing-token",
                        str(lock["fencingToken"]))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["toVersion"], 3)
        # Overlapping acquire by another owner: LOCK_CONFLICT naming the lock.
        r = self.fails("LOCK_CONFLICT", "lock", "acquire", "--shot", S, "b", "a", actor="bob")
        self.assertIn(lock["lockId"], r.stderr)

    def test_a_stale_fencing_token_is_lock_lost(self):
        first = self.acquire("ana", "a")
        second = self.acquire("ana", "a")
        self.assertGreater(second["fencingToken"], first["fencingToken"])
        r = self.rename("a", "X", "ana", "--lock-id", second["lockId"], "--fencing-token",
                        str(first["fencingToken"]))
        self.assertEqual(r.returncode, 1)
        self.assertIn("LOCK_LOST", r.stderr)
        self.assertEqual(self.version(), 1)
        r = self.rename("a", "X", "ana", "--lock-id", second["lockId"])
        self.assertEqual(r.returncode, 2)

    def test_renew_and_release(self):
        lock = self.acquire("ana", "a", "b", ttl=30)
        self.assertEqual(lock["ttlSeconds"], 30)
        renewed = self.ok_json("lock", "renew", lock["lockId"], "--ttl", "600", actor="ana")
        self.assertEqual((renewed["lockId"], renewed["ttlSeconds"]), (lock["lockId"], 600))
        self.assertEqual(renewed["fencingToken"], lock["fencingToken"])
        self.assertGreater(renewed["expiresAt"], lock["expiresAt"])
        # Without --ttl the lease keeps its length.
        same = self.ok_json("lock", "renew", lock["lockId"], actor="ana")
        self.assertEqual(same["ttlSeconds"], 600)
        table = self.ok("lock", "renew", lock["lockId"], "--format", "table", actor="ana")
        self.assertIn(f"lock     {lock['lockId']}", table)
        self.assertIn(f"fencing  {lock['fencingToken']}", table)
        self.assertIn("layers   a, b", table)
        # Only the owner renews or releases.
        self.fails("LOCK_NOT_OWNER", "lock", "renew", lock["lockId"], actor="bob")
        self.fails("LOCK_NOT_OWNER", "lock", "release", lock["lockId"], actor="bob")
        self.assertEqual(self.ok_json("lock", "release", lock["lockId"], actor="ana"),
                         {"lockId": lock["lockId"], "released": True, "broken": False})
        self.assertEqual(self.ok_json("lock", "list", "--shot", S), [])
        self.assertIn("(no locks)", self.ok("lock", "list", "--shot", S, "--format", "table"))
        # Released: bob may edit, and the old fence no longer proves anything.
        self.assertEqual(self.rename("a", "Bob's", "bob").returncode, 0)
        r = self.rename("a", "Ana's", "ana", "--lock-id", lock["lockId"], "--fencing-token",
                        str(lock["fencingToken"]))
        self.assertEqual(r.returncode, 1)
        self.assertIn("LOCK_LOST", r.stderr)
        self.fails("NOT_FOUND", "lock", "release", lock["lockId"], actor="ana")

    def test_list_outputs_parse_back(self):
        ana = self.acquire("ana", "a", ttl=120)
        bob = self.acquire("bob", "b")
        server = self.rigd.get(f"/v1/shots/{S}/locks").json["locks"]
        listed = self.ok_json("lock", "list", "--shot", S)
        self.assertEqual(listed, server)
        self.assertEqual({x["lockId"] for x in listed}, {ana["lockId"], bob["lockId"]})
        lines = self.ok("locks", "--shot", S, "--format", "ndjson").splitlines()
        self.assertEqual([json.loads(line) for line in lines], server)
        table = self.ok("lock", "list", "--shot", S, "--format", "table").splitlines()
        self.assertEqual(table[0].split(), ["lock", "fencing", "owner", "expires", "ttl",
                                            "layers"])
        self.assertEqual(len(table), 3)
        self.assertTrue(any(ana["lockId"] in row and "ana" in row for row in table[1:]))
        # acquire as a table shows the values an owner passes on.
        out = self.ok("lock", "acquire", "--shot", S, "a", "--format", "table", actor="ana")
        self.assertRegex(out, r"^lock     k-\S+\nfencing  \d+\n")

    def test_lock_usage_errors_exit_2(self):
        for argv in (["lock", "acquire", "a"],                  # no --shot
                     ["lock", "acquire", "--shot", S],          # no layer
                     ["lock", "acquire", "--shot", S, "a", "--ttl", "0"],
                     ["lock", "renew"],
                     ["lock", "release", "k-1", "--ttl", "5"],
                     ["lock", "list"],
                     ["lock", "steal", "k-1"]):
            r = self.rigctl(*argv)
            self.assertEqual(r.returncode, 2, (argv, r.stderr))
        self.assertEqual(self.ok_json("lock", "list", "--shot", S), [])
        self.fails("LAYER_NOT_FOUND", "lock", "acquire", "--shot", S, "a", "nope")
        self.fails("INVALID_FIELD", "lock", "acquire", "--shot", S, "a", "--ttl", "4000")
        help_text = self.ok("lock", "--help")
        for verb in ("acquire", "renew", "release", "list"):
            self.assertIn(f"lock {verb}", help_text)
        self.assertIn("Examples:", help_text)


if __name__ == "__main__":
    main()
