"""Authentication and authorization end to end (issue 11, item 2).

rigd runs with auth on (its default). The bootstrap admin token comes from the file rigd
writes beside the database; the other identities are tokens the admin creates through
POST /v1/tokens. The matrix below pairs route families with scopes, projects, revoked and
expired tokens and answers each with the status and code it must get; lock theft, the
audit log, the project list, rate limiting, the `rigd token` command and the clients'
token lookup have their own cases.
"""
import json
import os
import socket
import stat
import subprocess
import tempfile
import time
import unittest

from rigd_harness import RIGD_BIN, Rigd, main

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(RIGD_BIN)))
RIGCTL = os.path.join(BUILD, "clients", "rigctl")


def bearer(secret):
    return {"Authorization": f"Bearer {secret}"}


class AuthServer:
    """One auth-on server with two projects, a shot in each and a set of tokens."""

    def __init__(self, extra_args=()):
        self.rigd = Rigd(auth=True, extra_args=extra_args).start()
        with open(self.rigd.db_path + ".token") as f:
            self.admin = f.read().strip()
        self.tokens = {}

    def as_(self, who):
        return bearer(self.admin if who == "admin" else self.tokens[who]["secret"])

    def call(self, who, method, path, body=None, headers=None):
        h = dict(self.as_(who)) if who else {}
        h.update(headers or {})
        return self.rigd.request(method, path, body, headers=h)

    def token(self, name, scopes, **extra):
        r = self.call("admin", "POST", "/v1/tokens", {"name": name, "scopes": scopes, **extra})
        assert r.status == 201, r
        self.tokens[name] = r.json
        return r.json

    def seed(self):
        for p, s in (("p1", "s1"), ("p2", "s2")):
            assert self.call("admin", "POST", "/v1/projects", {"projectId": p, "name": p}).status == 201
            r = self.call("admin", "POST", f"/v1/projects/{p}/shots", {"shotId": s, "name": s})
            assert r.status == 201, r
            r = self.call("admin", "POST", f"/v1/shots/{s}/edits", {"ops": [
                {"op": "layer.create", "layerId": "root", "name": "Root", "kind": "group"},
                {"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "group",
                 "parentId": "root"}]})
            assert r.status == 201, r
        for name, scopes in (("reader", ["read"]), ("editor", ["edit"]),
                             ("reader_p1", ["read:p1"]), ("editor_p1", ["edit:p1"]),
                             ("admin_p1", ["admin:p1"]), ("mixed", ["read", "edit:p1"]),
                             ("editor_b", ["edit:p1"]), ("revoked", ["admin"])):
            self.token(name, scopes)
        self.token("expiring", ["admin"], expiresInSeconds=1)
        r = self.call("admin", "DELETE", f"/v1/tokens/{self.tokens['revoked']['tokenId']}")
        assert r.status == 200 and r.json["revoked"] is True, r
        # A plan, a lock and a receipt in each project, for the per-kind lookups.
        self.plans, self.locks, self.receipts = {}, {}, {}
        for s in ("s1", "s2"):
            r = self.call("admin", "POST", f"/v1/shots/{s}/plans",
                          {"planId": f"plan-{s}", "ops": [
                              {"op": "layer.rename", "layerId": "root", "name": "R"}]})
            assert r.status == 201, r
            self.plans[s] = r.json["planId"]
            r = self.call("admin", "GET", f"/v1/shots/{s}/receipts")
            self.receipts[s] = r.json["receipts"][0]["receiptId"]

    def stop(self):
        self.rigd.cleanup()


EDIT = {"ops": [{"op": "layer.rename", "layerId": "arm", "name": "Renamed"}]}

# (case, who, method, path template, body, expected status, expected code or None)
MATRIX = [
    ("no token reads nothing", None, "GET", "/v1/projects", None, 401, "UNAUTHENTICATED"),
    ("no token writes nothing", None, "POST", "/v1/shots/s1/edits", EDIT, 401,
     "UNAUTHENTICATED"),
    ("revoked token", "revoked", "GET", "/v1/shots/s1", None, 401, "UNAUTHENTICATED"),
    ("expired token", "expiring", "GET", "/v1/shots/s1", None, 401, "UNAUTHENTICATED"),
    ("health is public", None, "GET", "/healthz", None, 200, None),
    ("readiness is public", None, "GET", "/readyz", None, 200, None),
    ("the error catalogue is public", None, "GET", "/v1/errors/SKIN_WEIGHTS", None, 200, None),
    ("the OpenAPI document is public", None, "GET", "/v1/openapi.yaml", None, 200, None),
    ("limits need a token", None, "GET", "/v1/limits", None, 401, "UNAUTHENTICATED"),
    ("a global reader reads p1", "reader", "GET", "/v1/shots/s1", None, 200, None),
    ("a global reader reads p2", "reader", "GET", "/v1/shots/s2/layers/arm", None, 200, None),
    ("a global reader cannot edit", "reader", "POST", "/v1/shots/s1/edits", EDIT, 403,
     "FORBIDDEN"),
    ("a global reader cannot lock", "reader", "POST", "/v1/shots/s1/locks",
     {"layerIds": ["arm"]}, 403, "FORBIDDEN"),
    ("a global reader evaluates frames", "reader", "GET", "/v1/shots/s2/frames/0", None, 200,
     None),
    ("a global editor edits p2", "editor", "POST", "/v1/shots/s2/edits", EDIT, 201, None),
    ("a global editor cannot create projects", "editor", "POST", "/v1/projects",
     {"projectId": "p9", "name": "x"}, 403, "FORBIDDEN"),
    ("a global editor cannot delete shots", "editor", "DELETE", "/v1/shots/s2", None, 403,
     "FORBIDDEN"),
    ("a global editor cannot list tokens", "editor", "GET", "/v1/tokens", None, 403,
     "FORBIDDEN"),
    ("a p1 reader reads p1", "reader_p1", "GET", "/v1/shots/s1", None, 200, None),
    ("a p1 reader does not see s2", "reader_p1", "GET", "/v1/shots/s2", None, 404, "NOT_FOUND"),
    ("a p1 reader does not see p2", "reader_p1", "GET", "/v1/projects/p2", None, 404,
     "NOT_FOUND"),
    ("a p1 reader does not see p2's shots", "reader_p1", "GET", "/v1/projects/p2/shots", None,
     404, "NOT_FOUND"),
    ("a p1 reader does not see s2's frames", "reader_p1", "GET", "/v1/shots/s2/frames/0", None,
     404, "NOT_FOUND"),
    ("a p1 reader does not see s2's mesh-data", "reader_p1", "GET",
     "/v1/shots/s2/layers/arm/mesh-data/joints", None, 404, "NOT_FOUND"),
    ("a p1 reader does not see s2's plan", "reader_p1", "GET", "/v1/plans/{plan_s2}", None, 404,
     "NOT_FOUND"),
    ("a p1 reader does not see s2's receipt", "reader_p1", "GET", "/v1/receipts/{receipt_s2}",
     None, 404, "NOT_FOUND"),
    ("a p1 reader reads s1's receipt", "reader_p1", "GET", "/v1/receipts/{receipt_s1}", None,
     200, None),
    ("a p1 reader cannot edit p1", "reader_p1", "POST", "/v1/shots/s1/edits", EDIT, 403,
     "FORBIDDEN"),
    ("a p1 reader may use the pure evaluator", "reader_p1", "POST", "/v1/skin/evaluate", {},
     422, "INVALID_FIELD"),
    ("a p1 editor edits p1", "editor_p1", "POST", "/v1/shots/s1/edits", EDIT, 201, None),
    ("a p1 editor cannot edit p2 (404)", "editor_p1", "POST", "/v1/shots/s2/edits", EDIT, 404,
     "NOT_FOUND"),
    ("a p1 editor cannot apply p2's plan", "editor_p1", "POST", "/v1/plans/{plan_s2}/apply",
     {"planVersion": 1}, 404, "NOT_FOUND"),
    ("a p1 editor creates shots in p1", "editor_p1", "POST", "/v1/projects/p1/shots",
     {"shotId": "s1b", "name": "b"}, 201, None),
    ("a p1 editor cannot create shots in p2", "editor_p1", "POST", "/v1/projects/p2/shots",
     {"shotId": "s2b", "name": "b"}, 404, "NOT_FOUND"),
    ("a p1 editor cannot delete p1's shot", "editor_p1", "DELETE", "/v1/shots/s1b", None, 403,
     "FORBIDDEN"),
    ("a p1 editor cannot delete project p1", "editor_p1", "DELETE", "/v1/projects/p1", None,
     403, "FORBIDDEN"),
    ("a p1 admin cannot delete project p2", "admin_p1", "DELETE", "/v1/projects/p2", None, 404,
     "NOT_FOUND"),
    ("a p1 admin cannot create tokens", "admin_p1", "POST", "/v1/tokens",
     {"name": "x", "scopes": ["admin"]}, 403, "FORBIDDEN"),
    ("a p1 admin cannot read the audit log", "admin_p1", "GET", "/v1/audit", None, 403,
     "FORBIDDEN"),
    ("a p1 admin deletes p1's shot", "admin_p1", "DELETE", "/v1/shots/s1b", None, 200, None),
    ("mixed scopes edit p1", "mixed", "POST", "/v1/shots/s1/edits", EDIT, 201, None),
    ("mixed scopes read p2 but cannot edit it", "mixed", "POST", "/v1/shots/s2/edits", EDIT,
     403, "FORBIDDEN"),
    ("a missing shot stays 404 for a global reader", "reader", "GET", "/v1/shots/nope", None,
     404, "NOT_FOUND"),
]


class Matrix(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = AuthServer()
        cls.srv.seed()
        time.sleep(1.2)  # the "expiring" token (1 s) is now expired

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_matrix(self):
        srv = self.srv
        fill = {"plan_s2": srv.plans["s2"], "receipt_s2": srv.receipts["s2"],
                "receipt_s1": srv.receipts["s1"]}
        self.assertGreaterEqual(len(MATRIX), 30)
        for case, who, method, path, body, status, code in MATRIX:
            with self.subTest(case):
                r = srv.call(who, method, path.format(**fill), body)
                self.assertEqual(r.status, status, (case, r))
                if code:
                    self.assertEqual(r.json["code"], code, (case, r))
                if status == 401:
                    self.assertTrue(r.header("WWW-Authenticate").startswith('Bearer realm="rigd"'),
                                    r.headers)

    def test_a_hidden_resource_answers_byte_for_byte_as_a_missing_one(self):
        srv = self.srv
        for hidden, missing in (("/v1/shots/s2", None), ("/v1/plans/" + srv.plans["s2"],
                                                         "/v1/plans/nope"),
                                ("/v1/receipts/" + srv.receipts["s2"], "/v1/receipts/r.999.1"),
                                ("/v1/projects/p2", "/v1/projects/nope")):
            with self.subTest(hidden):
                a = srv.call("reader_p1", "GET", hidden)
                self.assertEqual(a.status, 404)
                if missing:
                    b = srv.call("reader_p1", "GET", missing)
                    self.assertEqual(a.body, b.body)
        # The shot's 404 names the asked id, as the handler does for a missing shot.
        a = srv.call("reader_p1", "GET", "/v1/shots/s2").json
        b = srv.call("reader", "GET", "/v1/shots/zz").json
        self.assertEqual(a["detail"].replace("s2", "X"), b["detail"].replace("zz", "X"))

    def test_the_served_openapi_document_is_the_repository_file(self):
        r = self.srv.rigd.get("/v1/openapi.yaml")
        self.assertEqual(r.header("Content-Type"), "application/yaml")
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        with open(os.path.join(root, "openapi.yaml"), "rb") as f:
            self.assertEqual(r.body, f.read())

    def test_the_access_log_names_the_token_never_its_secret(self):
        srv = self.srv
        r = srv.call("reader", "GET", "/v1/shots/s1", headers={"X-Request-Id": "log-check-1"})
        self.assertEqual(r.status, 200)
        deadline = time.monotonic() + 10  # the line is written once the answer has gone
        while "log-check-1" not in (log := srv.rigd.read_log()) and time.monotonic() < deadline:
            time.sleep(0.05)
        line = next(json.loads(l) for l in log.splitlines() if "log-check-1" in l)
        self.assertEqual(line["tokenId"], srv.tokens["reader"]["tokenId"])
        for t in list(srv.tokens.values()):
            self.assertNotIn(t["secret"], log)
        self.assertNotIn(srv.admin, log)

    def test_forbidden_names_the_scope_and_project(self):
        r = self.srv.call("reader_p1", "POST", "/v1/shots/s1/edits", EDIT)
        self.assertEqual(r.json["requiredScope"], "edit")
        self.assertEqual(r.json["projectId"], "p1")

    def test_wrong_credentials_say_why(self):
        srv = self.srv
        r = srv.rigd.get("/v1/projects", headers={"Authorization": "Basic YWxhZGRpbjpvcGVu"})
        self.assertEqual(r.status, 401)
        self.assertIn('error="invalid_request"', r.header("WWW-Authenticate"))
        r = srv.rigd.get("/v1/projects", headers=bearer("rigd_notatoken"))
        self.assertIn('error="invalid_token"', r.header("WWW-Authenticate"))
        r = srv.call("revoked", "GET", "/v1/projects")
        self.assertIn("revoked", r.json["detail"])
        r = srv.call("expiring", "GET", "/v1/projects")
        self.assertIn("expired", r.json["detail"])

    def test_the_project_list_shows_only_readable_projects(self):
        ids = lambda who: [p["projectId"] for p in self.srv.call(who, "GET", "/v1/projects").json["projects"]]
        self.assertEqual(ids("reader_p1"), ["p1"])
        self.assertEqual(ids("reader"), ["p1", "p2"])
        # Paging a filtered list still ends.
        r = self.srv.call("reader_p1", "GET", "/v1/projects?pageSize=1").json
        self.assertEqual([p["projectId"] for p in r["projects"]], ["p1"])
        self.assertNotIn("nextPageToken", r)

    def test_the_actor_is_the_token_name_and_x_rigd_actor_is_ignored(self):
        r = self.srv.call("editor_p1", "POST", "/v1/shots/s1/edits", EDIT,
                          headers={"X-Rigd-Actor": "mallory"})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json["actor"], "editor_p1")
        self.assertEqual(r.json["tokenId"], self.srv.tokens["editor_p1"]["tokenId"])

    def test_token_listing_never_shows_secrets(self):
        r = self.srv.call("admin", "GET", "/v1/tokens?pageSize=100")
        self.assertEqual(r.status, 200, r)
        names = [t["name"] for t in r.json["tokens"]]
        self.assertIn("admin", names)
        self.assertIn("reader_p1", names)
        for t in self.srv.tokens.values():
            self.assertNotIn(t["secret"].encode(), r.body)
        one = self.srv.call("admin", "GET", f"/v1/tokens/{self.srv.tokens['reader']['tokenId']}")
        self.assertEqual(one.json["scopes"], ["read"])
        self.assertNotIn("secret", one.json)

    def test_token_bodies_are_checked(self):
        for body, pointer in (({"name": "x", "scopes": ["write"]}, "/scopes/0"),
                              ({"name": "x", "scopes": ["read", "edit:bad id"]}, "/scopes/1"),
                              ({"name": "x", "scopes": []}, "/scopes"),
                              ({"scopes": ["read"]}, "/name"),
                              ({"name": "x", "scopes": ["read"], "expiresInSeconds": 0},
                               "/expiresInSeconds")):
            with self.subTest(body):
                r = self.srv.call("admin", "POST", "/v1/tokens", body)
                self.assertEqual(r.status, 422, r)
                self.assertIn(pointer, [e["pointer"] for e in r.json["errors"]])


class BeforeTheBody(unittest.TestCase):
    """A caller without a live token is refused before its body is read, so it holds no
    memory budget (issue 11: authentication gates the memory a request may claim)."""

    def setUp(self):
        self.srv = AuthServer(extra_args=("--memory-budget", "256"))

    def tearDown(self):
        self.srv.stop()

    def open_upload(self, headers):
        s = socket.create_connection(("127.0.0.1", self.srv.rigd.port), timeout=10)
        s.sendall(("POST /v1/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   + headers + "Content-Length: 4194304\r\n\r\n").encode())
        return s

    def test_an_anonymous_large_upload_is_401_at_once_and_holds_nothing(self):
        held = []
        try:
            for headers in ("", "Authorization: Bearer rigd_wrong\r\n") * 5:
                s = self.open_upload(headers)
                held.append(s)
                answer = s.recv(4096)  # answered without sending a byte of the body
                self.assertTrue(answer.startswith(b"HTTP/1.1 401 "), answer[:200])
                self.assertIn(b"UNAUTHENTICATED", answer)
            # Ten refused uploads of 4 MiB each claim nothing: a small write still fits.
            r = self.srv.call("admin", "POST", "/v1/projects", {"projectId": "p1", "name": "p"})
            self.assertEqual(r.status, 201, r)
        finally:
            for s in held:
                s.close()

    def test_a_live_token_may_start_a_large_upload(self):
        s = self.open_upload(f"Authorization: Bearer {self.srv.admin}\r\n")
        try:
            s.settimeout(1)
            with self.assertRaises(socket.timeout):  # waiting for the body, not answered
                s.recv(4096)
        finally:
            s.close()

    def test_two_authorization_headers_are_refused(self):
        s = socket.create_connection(("127.0.0.1", self.srv.rigd.port), timeout=10)
        try:
            s.sendall((f"GET /v1/projects HTTP/1.1\r\nHost: x\r\n"
                       f"Authorization: Bearer {self.srv.admin}\r\n"
                       f"Authorization: Bearer rigd_other\r\n\r\n").encode())
            answer = s.recv(4096)
            self.assertTrue(answer.startswith(b"HTTP/1.1 400 "), answer[:200])
            self.assertIn(b"MALFORMED_REQUEST", answer)
        finally:
            s.close()

    def test_whitespace_around_the_token_is_not_part_of_it(self):
        r = self.srv.rigd.get("/v1/projects",
                              headers={"Authorization": f"bearer   {self.srv.admin} "})
        self.assertEqual(r.status, 200, r)

    def test_token_creation_refuses_an_idempotency_key(self):
        r = self.srv.call("admin", "POST", "/v1/tokens", {"name": "x", "scopes": ["read"]},
                          headers={"Idempotency-Key": "k1"})
        self.assertEqual((r.status, r.json["code"], r.json["parameter"]),
                         (400, "INVALID_QUERY", "Idempotency-Key"), r)
        names = [t["name"] for t in self.srv.call("admin", "GET", "/v1/tokens").json["tokens"]]
        self.assertNotIn("x", names)

    def test_a_missing_scope_says_insufficient_scope(self):
        self.srv.token("reader", ["read"])
        r = self.srv.call("reader", "POST", "/v1/projects", {"projectId": "p2", "name": "p"})
        self.assertEqual(r.status, 403, r)
        self.assertIn('error="insufficient_scope"', r.header("WWW-Authenticate"))


class LockTheft(unittest.TestCase):
    def setUp(self):
        self.srv = AuthServer()
        self.srv.seed()
        r = self.srv.call("editor_p1", "POST", "/v1/shots/s1/locks", {"layerIds": ["arm"]})
        self.assertEqual(r.status, 201, r)
        self.lock = r.json

    def tearDown(self):
        self.srv.stop()

    def test_another_identity_cannot_edit_release_or_force_the_lock(self):
        srv = self.srv
        self.assertEqual(self.lock["owner"], "editor_p1")
        # Naming yourself as the owner changes nothing: identity is the token.
        r = srv.call("editor_b", "POST", "/v1/shots/s1/edits", EDIT,
                     headers={"X-Rigd-Actor": "editor_p1"})
        self.assertEqual((r.status, r.json["code"]), (423, "LAYER_LOCKED"), r)
        for query in ("", "?force=true"):
            r = srv.call("editor_b", "DELETE", f"/v1/locks/{self.lock['lockId']}{query}")
            self.assertEqual((r.status, r.json["code"]), (403, "LOCK_NOT_OWNER"), r)
        r = srv.call("editor_b", "POST", f"/v1/locks/{self.lock['lockId']}/renew")
        self.assertEqual((r.status, r.json["code"]), (403, "LOCK_NOT_OWNER"), r)
        # A token of the same name is still another identity.
        srv.token("editor_p1", ["edit:p1"])  # replaces the entry: a second "editor_p1"
        r = srv.call("editor_p1", "POST", "/v1/shots/s1/edits", EDIT)
        self.assertEqual(r.status, 423, r)
        self.assertEqual(len(srv.call("admin", "GET", "/v1/shots/s1/locks").json["locks"]), 1)

    def test_the_owner_edits_through_its_lock(self):
        r = self.srv.call("editor_p1", "POST", "/v1/shots/s1/edits", EDIT)
        self.assertEqual(r.status, 201, r)

    def test_only_an_admin_breaks_it_and_the_break_is_audited(self):
        srv = self.srv
        r = srv.call("admin_p1", "DELETE", f"/v1/locks/{self.lock['lockId']}")
        self.assertEqual(r.status, 403, r)  # an admin must say force=true
        r = srv.call("admin_p1", "DELETE", f"/v1/locks/{self.lock['lockId']}?force=true")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json, {"lockId": self.lock["lockId"], "released": True, "broken": True})
        r = srv.call("editor_b", "POST", "/v1/shots/s1/edits", EDIT)
        self.assertEqual(r.status, 201, r)
        records = srv.call("admin", "GET", "/v1/audit").json["records"]
        broke = [a for a in records if a["action"] == "lock.break"]
        self.assertEqual(len(broke), 1, records)
        self.assertEqual(broke[0]["actor"], "admin_p1")
        self.assertEqual(broke[0]["tokenId"], srv.tokens["admin_p1"]["tokenId"])
        self.assertEqual(broke[0]["lockOwner"], "editor_p1")
        self.assertEqual(broke[0]["layerIds"], ["arm"])
        created = [(a["actor"], a["name"], a["scopes"]) for a in records
                   if a["action"] == "token.create"]
        self.assertIn(("bootstrap", "admin", ["admin"]), created)
        self.assertIn(("admin", "editor_b", ["edit:p1"]), created)
        self.assertIn("token.revoke", [a["action"] for a in records])

    def test_an_admin_of_another_project_cannot_see_the_lock(self):
        self.srv.token("admin_p2", ["admin:p2"])
        r = self.srv.call("admin_p2", "DELETE", f"/v1/locks/{self.lock['lockId']}?force=true")
        self.assertEqual((r.status, r.json["code"]), (404, "NOT_FOUND"), r)


class RateLimit(unittest.TestCase):
    def test_a_token_over_its_rate_gets_429_and_others_do_not(self):
        srv = AuthServer(extra_args=("--rate-limit", "2"))
        try:
            srv.token("a", ["read"])
            srv.token("b", ["read"])
            answers = [srv.call("a", "GET", "/v1/projects") for _ in range(12)]
            statuses = [r.status for r in answers]
            self.assertIn(429, statuses)
            self.assertEqual(statuses[0], 200)
            limited = next(r for r in answers if r.status == 429)
            self.assertEqual(limited.json["code"], "RATE_LIMITED")
            self.assertGreaterEqual(int(limited.header("Retry-After")), 1)
            self.assertEqual(srv.call("b", "GET", "/v1/projects").status, 200)
            time.sleep(1.1)
            self.assertEqual(srv.call("a", "GET", "/v1/projects").status, 200)
        finally:
            srv.stop()


class Bootstrap(unittest.TestCase):
    def test_first_start_writes_a_private_admin_token_once(self):
        rigd = Rigd(auth=True).start()
        try:
            path = rigd.db_path + ".token"
            mode = stat.S_IMODE(os.stat(path).st_mode)
            self.assertEqual(mode, 0o600)
            with open(path) as f:
                first = f.read()
            self.assertIn(path, rigd.read_log())
            rigd.stop()
            again = Rigd(db_path=rigd.db_path, auth=True).start()
            try:
                with open(path) as f:
                    self.assertEqual(f.read(), first)  # not rotated by a restart
                self.assertNotIn("bootstrap", again.read_log())
                self.assertEqual(again.get("/v1/projects", headers=bearer(first.strip())).status,
                                 200)
            finally:
                again.cleanup()
        finally:
            rigd.cleanup()

    def test_auth_off_logs_a_warning_and_trusts_the_actor_header(self):
        rigd = Rigd(auth=False).start()
        try:
            self.assertIn("authentication is off", rigd.read_log())
            self.assertFalse(os.path.exists(rigd.db_path + ".token"))
            rigd.make_shot()
            r = rigd.post("/v1/shots/s1/edits", {"ops": [
                {"op": "layer.create", "layerId": "a", "name": "A", "kind": "group"}]},
                headers={"X-Rigd-Actor": "ana"})
            self.assertEqual((r.status, r.json["actor"], r.json["tokenId"]), (201, "ana", None))
        finally:
            rigd.cleanup()


class TokenCommand(unittest.TestCase):
    def test_create_list_revoke_from_the_command_line(self):
        rigd = Rigd(auth=True).start()
        try:
            run = lambda *a: subprocess.run([RIGD_BIN, "token", *a, "--db", rigd.db_path],
                                            capture_output=True, text=True, timeout=30)
            p = run("create", "--name", "farm", "--scope", "read:p1", "--scope", "edit:p1")
            self.assertEqual(p.returncode, 0, p.stderr)
            secret = p.stdout.strip()
            self.assertTrue(secret.startswith("rigd_"), p.stdout)
            r = rigd.get("/v1/projects", headers=bearer(secret))
            self.assertEqual(r.status, 200, r)
            listing = run("list")
            self.assertIn("farm", listing.stdout)
            self.assertNotIn(secret, listing.stdout)
            token_id = next(l.split()[0] for l in listing.stdout.splitlines() if " farm " in l)
            self.assertEqual(run("revoke", token_id).returncode, 0)
            r = rigd.get("/v1/projects", headers=bearer(secret))
            self.assertEqual(r.status, 401, r)
            self.assertEqual(run("create", "--name", "x", "--scope", "write").returncode, 2)
            self.assertEqual(run("revoke", "t-nope").returncode, 1)
        finally:
            rigd.cleanup()


@unittest.skipUnless(os.path.exists(RIGCTL), "rigctl not built")
class Clients(unittest.TestCase):
    def test_rigctl_reads_the_token_from_the_environment_or_the_bootstrap_file(self):
        rigd = Rigd(auth=True).start()
        try:
            url = f"http://127.0.0.1:{rigd.port}"
            empty = tempfile.mkdtemp(prefix="rigd-e2e-cwd-")
            base = {k: v for k, v in os.environ.items() if not k.startswith("RIGD_")}
            run = lambda env: subprocess.run([RIGCTL, "--url", url, "--format", "json",
                                              "projects", "list"], capture_output=True,
                                             text=True, timeout=30, env={**base, **env},
                                             cwd=empty)
            p = run({})
            self.assertEqual(p.returncode, 1)  # no token anywhere
            self.assertIn("UNAUTHENTICATED", p.stdout + p.stderr)
            p = run({"RIGD_DB": rigd.db_path})
            self.assertEqual(p.returncode, 0, p.stderr)
            secret = open(rigd.db_path + ".token").read().strip()
            p = run({"RIGD_TOKEN": secret})
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(json.loads(p.stdout), [])
            p = run({"RIGD_TOKEN": "rigd_wrong"})
            self.assertEqual(p.returncode, 1)
            # A token that would inject a header is not sent at all.
            p = run({"RIGD_TOKEN": secret + "\r\nX-Rigd-Actor: mallory"})
            self.assertEqual(p.returncode, 1)
            self.assertIn("ignoring an API token", p.stderr)
        finally:
            rigd.cleanup()


if __name__ == "__main__":
    main()
