"""Projects and shots (create, list paging, get, delete, cascade), the error
catalogue and the limits (SPEC §1, §2, §7; issue 3)."""
import re

from rigd_harness import RigdTestCase, main

ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")

# Every code a problem answered with in the e2e tests of this suite.
CODES_SEEN_IN_TESTS = [
    "LAYER_NOT_FOUND", "LAYER_EXISTS", "LAYER_CYCLE", "OP_UNKNOWN", "OP_INVALID",
    "BATCH_TOO_LARGE", "VERSION_CONFLICT", "IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_IN_PROGRESS",
    "PAGE_TOKEN_INVALID", "MALFORMED_JSON", "INVALID_QUERY", "INVALID_FIELD", "NOT_FOUND",
    "METHOD_NOT_ALLOWED", "UNSUPPORTED_MEDIA_TYPE", "PRECONDITION_INVALID", "BODY_TOO_LARGE",
    "SHUTTING_DOWN", "PROJECT_EXISTS", "SHOT_EXISTS",
]

# Codes SPEC §2–§7 names; the catalogue must hold them all.
SPEC_CODES = CODES_SEEN_IN_TESTS + [
    "MESH_GEOMETRY", "MESH_TOPOLOGY", "MESH_DEGENERATE", "MESH_WINDING", "MESH_COLLAPSED",
    "MESH_BINDING_KIND", "SKIN_JOINTS", "SKIN_BIND", "SKIN_WEIGHTS", "SKIN_WEIGHT_VERTEX",
    "SKIN_POSE", "SKIN_JOINT_LAYERS", "SKIN_DEFORMATION_BOUNDARY", "SKIN_LAYER_TRANSFORM",
    "SKIN_REST_REQUIRES_JOINT_KEYS", "LAYER_LOCKED", "LOCK_CONFLICT", "PLAN_APPLIED",
    "PAGE_TOKEN_STALE",
]


class Projects(RigdTestCase):
    def test_create_get_location(self):
        r = self.rigd.post("/v1/projects", {"projectId": "film-1", "name": "Film \u00e9"})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.header("Location"), "/v1/projects/film-1")
        self.assertEqual(r.json["projectId"], "film-1")
        self.assertEqual(r.json["name"], "Film \u00e9")
        self.assertIn("createdAt", r.json)
        got = self.rigd.get("/v1/projects/film-1")
        self.assertEqual(got.status, 200)
        self.assertEqual(got.json, r.json)

    def test_generated_ids(self):
        ids = []
        for i in range(3):
            r = self.rigd.post("/v1/projects", {"name": f"gen{i}"})
            self.assertEqual(r.status, 201, r)
            pid = r.json["projectId"]
            self.assertRegex(pid, ID_RE)
            self.assertEqual(r.header("Location"), f"/v1/projects/{pid}")
            ids.append(pid)
            s = self.rigd.post(f"/v1/projects/{pid}/shots", {"name": "sh"})
            self.assertEqual(s.status, 201, s)
            self.assertRegex(s.json["shotId"], ID_RE)
            self.assertEqual(s.header("Location"), f"/v1/shots/{s.json['shotId']}")
        self.assertEqual(len(set(ids)), 3)

    def test_duplicate_project_id(self):
        self.assertEqual(self.rigd.post("/v1/projects", {"projectId": "d", "name": "a"}).status, 201)
        r = self.rigd.post("/v1/projects", {"projectId": "d", "name": "b"})
        body = self.assertProblem(r, 409, "PROJECT_EXISTS")
        self.assertEqual((body["pointer"], body["projectId"]), ("/projectId", "d"), body)
        self.assertEqual(self.rigd.get("/v1/projects/d").json["name"], "a")
        self.assertEqual(len(self.rigd.get("/v1/projects").json["projects"]), 1)

    def test_project_field_validation(self):
        for body, pointer in (({}, "/name"), ({"name": ""}, "/name"), ({"name": 5}, "/name"),
                              ({"name": "x", "projectId": 7}, "/projectId"),
                              ({"name": "x", "extra": 1}, "/extra")):
            with self.subTest(body=body):
                r = self.rigd.post("/v1/projects", body)
                p = self.assertProblem(r, 422, "INVALID_FIELD")
                self.assertIn(pointer, [e.get("pointer") for e in p.get("errors", [p])])
        self.assertEqual(self.rigd.get("/v1/projects").json["projects"], [])

    def test_list_paging_every_item_once_in_order(self):
        made = [f"p{i:02d}" for i in range(7)]
        for pid in made:
            self.rigd.post("/v1/projects", {"projectId": pid, "name": pid})
        for size in (1, 2, 3, 7, 20000):
            with self.subTest(pageSize=size):
                seen, token, pages = [], None, 0
                while True:
                    q = f"/v1/projects?pageSize={size}" + (f"&pageToken={token}" if token else "")
                    r = self.rigd.get(q)
                    self.assertEqual(r.status, 200, r)
                    pages += 1
                    self.assertLessEqual(len(r.json["projects"]), size)
                    seen += [p["projectId"] for p in r.json["projects"]]
                    token = r.json.get("nextPageToken")
                    if not token:
                        break
                    self.assertLess(pages, 20)
                self.assertEqual(seen, made)
        self.assertEqual([p["projectId"] for p in self.rigd.get("/v1/projects").json["projects"]],
                         made)

    def test_no_next_page_token_on_the_last_page(self):
        # SPEC §7: nextPageToken is absent on the last page. With 4 items and pageSize 2
        # the second page is the last one.
        for i in range(4):
            self.rigd.post("/v1/projects", {"projectId": f"q{i}", "name": "x"})
        p1 = self.rigd.get("/v1/projects?pageSize=2").json
        p2 = self.rigd.get(f"/v1/projects?pageSize=2&pageToken={p1['nextPageToken']}").json
        self.assertEqual([p["projectId"] for p in p2["projects"]], ["q2", "q3"])
        self.assertNotIn("nextPageToken", p2)
        whole = self.rigd.get("/v1/projects?pageSize=4").json
        self.assertNotIn("nextPageToken", whole)

    def test_bad_page_size_and_tokens(self):
        self.rigd.post("/v1/projects", {"projectId": "a", "name": "a"})
        self.rigd.post("/v1/projects", {"projectId": "b", "name": "b"})
        for q in ("pageSize=0", "pageSize=-1", "pageSize=abc", "pageSize=1.5", "pageSize=",
                  "pageSize=1e3"):
            with self.subTest(q=q):
                body = self.assertProblem(self.rigd.get(f"/v1/projects?{q}"), 400,
                                          "INVALID_QUERY")
                self.assertEqual(body["parameter"], "pageSize")
        r = self.rigd.get("/v1/projects?pageSize=20000")
        self.assertEqual(r.status, 200)
        self.assertEqual(len(r.json["projects"]), 2)
        self.assertEqual(self.rigd.get("/v1/limits").json["maxPageSize"], 10000)
        token = self.rigd.get("/v1/projects?pageSize=1").json["nextPageToken"]
        for bad in ("garbage", token[:-2], token + "x", token.replace(".", ".%20")):
            with self.subTest(token=bad):
                self.assertProblem(self.rigd.get(f"/v1/projects?pageToken={bad}"), 400,
                                   "PAGE_TOKEN_INVALID")
        # a projects token is not a shots token
        self.assertProblem(self.rigd.get(f"/v1/projects/a/shots?pageToken={token}"), 400,
                           "PAGE_TOKEN_INVALID")

    def test_get_and_delete_missing(self):
        self.assertProblem(self.rigd.get("/v1/projects/nope"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.delete("/v1/projects/nope"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.get("/v1/projects/nope/shots"), 404, "NOT_FOUND")
        r = self.rigd.post("/v1/projects/nope/shots", {"name": "s"})
        self.assertProblem(r, 404, "NOT_FOUND")

    def test_delete_project_cascades(self):
        self.rigd.make_shot("p1", "s1")
        self.rigd.make_shot("p1", "s2")
        self.rigd.make_shot("p2", "t1")
        rec = self.rigd.edit("s1", [{"op": "layer.create", "layerId": "a", "name": "a",
                                     "kind": "group"}]).json
        r = self.rigd.delete("/v1/projects/p1")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json, {"projectId": "p1", "deleted": True})
        self.assertProblem(self.rigd.get("/v1/projects/p1"), 404, "NOT_FOUND")
        for sid in ("s1", "s2"):
            self.assertProblem(self.rigd.get(f"/v1/shots/{sid}"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.get("/v1/shots/s1/layers/a"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.get("/v1/shots/s1/receipts"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.get(f"/v1/receipts/{rec['receiptId']}"), 404, "NOT_FOUND")
        r = self.rigd.post("/v1/shots/s1/edits", {"ops": [{"op": "layer.create", "name": "x",
                                                           "kind": "group"}]})
        self.assertProblem(r, 404, "NOT_FOUND")
        self.assertEqual(self.rigd.get("/v1/shots/t1").status, 200)
        self.assertEqual([p["projectId"] for p in self.rigd.get("/v1/projects").json["projects"]],
                         ["p2"])
        self.assertProblem(self.rigd.delete("/v1/projects/p1"), 404, "NOT_FOUND")
        # the ids are free again
        self.rigd.make_shot("p1", "s1")
        self.assertEqual(self.rigd.get("/v1/shots/s1").json["version"], 0)
        self.assertEqual(self.rigd.get("/v1/shots/s1/receipts").json["receipts"], [])


class Shots(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.assertEqual(self.rigd.post("/v1/projects", {"projectId": "p1", "name": "P"}).status,
                         201)

    def test_create_defaults_and_get(self):
        r = self.rigd.post("/v1/projects/p1/shots", {"shotId": "s1", "name": "Shot 1"})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.header("Location"), "/v1/shots/s1")
        self.assertEqual(r.header("ETag"), '"0"')
        s = r.json
        self.assertEqual((s["shotId"], s["projectId"], s["name"], s["fps"], s["version"]),
                         ("s1", "p1", "Shot 1", 24.0, 0))
        self.assertLessEqual(s["frameStart"], s["frameEnd"])
        got = self.rigd.get("/v1/shots/s1")
        self.assertEqual(got.status, 200)
        self.assertEqual(got.header("ETag"), '"0"')
        g = got.json
        for k in ("shotId", "projectId", "name", "fps", "frameStart", "frameEnd", "version"):
            self.assertEqual(g[k], s[k], k)
        self.assertEqual(g["layers"], [])

    def test_create_with_fields(self):
        r = self.rigd.post("/v1/projects/p1/shots", {"shotId": "s2", "name": "n", "fps": 29.97,
                                                     "frameStart": -10.5, "frameEnd": 250})
        self.assertEqual(r.status, 201, r)
        g = self.rigd.get("/v1/shots/s2").json
        self.assertEqual((g["fps"], g["frameStart"], g["frameEnd"]), (29.97, -10.5, 250.0))
        r = self.rigd.post("/v1/projects/p1/shots", {"shotId": "s3", "name": "n",
                                                     "frameStart": 5, "frameEnd": 5})
        self.assertEqual(r.status, 201, r)

    def test_shot_field_validation(self):
        cases = [({"name": "n", "fps": 0}, "/fps"), ({"name": "n", "fps": -24}, "/fps"),
                 ({"name": "n", "fps": "24"}, "/fps"),
                 ({"name": "n", "frameStart": 10, "frameEnd": 5}, "/frameEnd"),
                 ({"name": "n", "frameEnd": -1}, "/frameEnd"),
                 ({"name": "n", "frameStart": "0"}, "/frameStart"),
                 ({}, "/name"), ({"name": 3}, "/name"),
                 ({"name": "n", "shotId": "a b"}, "/shotId"),
                 ({"name": "n", "layers": []}, "/layers")]
        for body, pointer in cases:
            with self.subTest(body=body):
                r = self.rigd.post("/v1/projects/p1/shots", body)
                p = self.assertProblem(r, 422, "INVALID_FIELD")
                self.assertIn(pointer, [e.get("pointer") for e in p.get("errors", [p])])
        self.assertEqual(self.rigd.get("/v1/projects/p1/shots").json["shots"], [])

    def test_duplicate_shot_id(self):
        self.rigd.post("/v1/projects", {"projectId": "p2", "name": "P2"})
        self.assertEqual(self.rigd.post("/v1/projects/p1/shots",
                                        {"shotId": "s1", "name": "a"}).status, 201)
        for pid in ("p1", "p2"):
            r = self.rigd.post(f"/v1/projects/{pid}/shots", {"shotId": "s1", "name": "b"})
            body = self.assertProblem(r, 409, "SHOT_EXISTS")
            self.assertEqual((body["pointer"], body["shotId"]), ("/shotId", "s1"), body)
        self.assertEqual(self.rigd.get("/v1/shots/s1").json["name"], "a")

    def test_shot_list_paging_scoped_to_project(self):
        self.rigd.post("/v1/projects", {"projectId": "p2", "name": "P2"})
        mine = []
        for i in range(5):
            self.rigd.post("/v1/projects/p1/shots", {"shotId": f"a{i}", "name": "x"})
            self.rigd.post("/v1/projects/p2/shots", {"shotId": f"b{i}", "name": "x"})
            mine.append(f"a{i}")
        seen, token = [], None
        for _ in range(10):
            q = "/v1/projects/p1/shots?pageSize=2" + (f"&pageToken={token}" if token else "")
            r = self.rigd.get(q)
            self.assertEqual(r.status, 200, r)
            for s in r.json["shots"]:
                self.assertEqual(s["projectId"], "p1")
            seen += [s["shotId"] for s in r.json["shots"]]
            token = r.json.get("nextPageToken")
            if not token:
                break
        self.assertEqual(seen, mine)
        t = self.rigd.get("/v1/projects/p1/shots?pageSize=1").json["nextPageToken"]
        self.assertProblem(self.rigd.get(f"/v1/projects/p2/shots?pageToken={t}"), 400,
                           "PAGE_TOKEN_INVALID")
        self.assertProblem(self.rigd.get("/v1/projects/p1/shots?pageSize=0"), 400,
                           "INVALID_QUERY")

    def test_shot_delete_with_if_match(self):
        self.rigd.make_shot("p1", "s1")
        self.rigd.edit("s1", [{"op": "layer.create", "layerId": "a", "name": "a",
                               "kind": "group"}])
        snap = self.rigd.snapshot("s1")
        r = self.rigd.delete("/v1/shots/s1", headers={"If-Match": '"0"'})
        body = self.assertProblem(r, 412, "VERSION_CONFLICT")
        self.assertEqual(body["currentVersion"], 1)
        self.assertProblem(self.rigd.delete("/v1/shots/s1", headers={"If-Match": "1"}), 400,
                           "PRECONDITION_INVALID")
        self.assertEqual(self.rigd.snapshot("s1"), snap)
        r = self.rigd.delete("/v1/shots/s1", headers={"If-Match": '"1"'})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json, {"shotId": "s1", "deleted": True})
        self.assertProblem(self.rigd.get("/v1/shots/s1"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.get("/v1/shots/s1/layers/a"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.delete("/v1/shots/s1"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.delete("/v1/shots/s1", headers={"If-Match": '"1"'}), 404,
                           "NOT_FOUND")
        self.assertEqual(self.rigd.get("/v1/projects/p1/shots").json["shots"], [])
        # unconditional delete
        self.rigd.make_shot("p1", "s9")
        self.assertEqual(self.rigd.delete("/v1/shots/s9").status, 200)

    def test_layer_get_missing(self):
        self.rigd.make_shot("p1", "s1")
        self.assertProblem(self.rigd.get("/v1/shots/s1/layers/nope"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.get("/v1/shots/nope/layers/a"), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.get("/v1/shots/nope"), 404, "NOT_FOUND")


class Catalogue(RigdTestCase):
    def test_errors_lists_every_code(self):
        r = self.rigd.get("/v1/errors")
        self.assertEqual(r.status, 200)
        entries = r.json["errors"]
        codes = [e["code"] for e in entries]
        self.assertEqual(len(codes), len(set(codes)))
        for code in SPEC_CODES:
            self.assertIn(code, codes)
        for e in entries:
            with self.subTest(code=e["code"]):
                self.assertRegex(e["code"], r"^[A-Z][A-Z0-9_]*$")
                self.assertEqual(e["type"], f"/v1/errors/{e['code']}")
                self.assertIsInstance(e["status"], int)
                self.assertTrue(400 <= e["status"] <= 599, e)
                for f in ("title", "rule", "fix"):
                    self.assertIsInstance(e[f], str)
                    self.assertTrue(e[f].strip(), (f, e))
                self.assertIsInstance(e["retryable"], bool)
                one = self.rigd.get(f"/v1/errors/{e['code']}")
                self.assertEqual(one.status, 200)
                self.assertEqual(one.json, e)

    def test_statuses_match_spec(self):
        entries = {e["code"]: e for e in self.rigd.get("/v1/errors").json["errors"]}
        expected = {"MALFORMED_JSON": 400, "INVALID_QUERY": 400, "PAGE_TOKEN_INVALID": 400,
                    "NOT_FOUND": 404, "VERSION_CONFLICT": 409, "IDEMPOTENCY_IN_PROGRESS": 409,
                    "LOCK_CONFLICT": 409, "PLAN_APPLIED": 409, "PAGE_TOKEN_STALE": 410,
                    "BODY_TOO_LARGE": 413, "IDEMPOTENCY_KEY_REUSED": 422, "OP_INVALID": 422,
                    "OP_UNKNOWN": 422, "LAYER_NOT_FOUND": 422, "LAYER_CYCLE": 422,
                    "LAYER_EXISTS": 422, "SKIN_WEIGHTS": 422, "MESH_GEOMETRY": 422,
                    "LAYER_LOCKED": 423, "SHUTTING_DOWN": 503}
        for code, status in expected.items():
            self.assertEqual(entries[code]["status"], status, code)

    def test_every_code_seen_in_tests_resolves(self):
        for code in CODES_SEEN_IN_TESTS:
            with self.subTest(code=code):
                r = self.rigd.get(f"/v1/errors/{code}")
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.json["code"], code)
                self.assertTrue(r.json["rule"] and r.json["fix"] and r.json["title"])

    def test_problem_types_resolve_and_titles_are_stable(self):
        self.rigd.make_shot("p1", "s1")
        problems = [
            self.rigd.get("/v1/nope"),
            self.rigd.post("/v1/shots/s1/edits", raw=b"{"),
            self.rigd.post("/v1/shots/s1/edits", {"ops": [{"op": "x"}]}),
            self.rigd.post("/v1/shots/s1/edits", {"ops": [{"op": "layer.delete", "layerId": "q"}]}),
            self.rigd.post("/v1/shots/s1/edits", {"ops": [{"op": "layer.delete", "layerId": "r"}]}),
            self.rigd.get("/v1/projects?pageSize=0"),
            self.rigd.request("PUT", "/v1/projects"),
        ]
        catalogue = {e["code"]: e for e in self.rigd.get("/v1/errors").json["errors"]}
        for p in problems:
            with self.subTest(problem=p.body[:80]):
                self.assertEqual(p.header("Content-Type"), "application/problem+json")
                body = p.json
                entry = catalogue[body["code"]]
                self.assertEqual(body["type"], entry["type"])
                self.assertEqual(body["title"], entry["title"])
                self.assertEqual(body["status"], p.status)
                self.assertEqual(body["retryable"], entry["retryable"])
                self.assertEqual(self.rigd.get(body["type"]).json["code"], body["code"])

    def test_unknown_code_is_404(self):
        self.assertProblem(self.rigd.get("/v1/errors/NO_SUCH_CODE"), 404, "NOT_FOUND")

    def test_limits(self):
        r = self.rigd.get("/v1/limits")
        self.assertEqual(r.status, 200)
        lim = r.json
        self.assertEqual(lim["maxBodyBytes"], 128 * 1024 * 1024)
        self.assertEqual(lim["maxOpsPerBatch"], 10000)
        self.assertEqual(lim["minVertices"], 3)
        self.assertEqual(lim["maxVertices"], 1048576)
        self.assertEqual(lim["minTriangles"], 1)
        self.assertEqual(lim["maxTriangles"], 2097152)
        self.assertEqual(lim["minJoints"], 1)
        self.assertEqual(lim["maxJoints"], 256)
        self.assertEqual(lim["minInfluences"], 1)
        self.assertEqual(lim["maxInfluences"], 8)
        self.assertEqual(lim["maxPageSize"], 10000)
        self.assertEqual(lim["idempotencyKeyTtlSeconds"], 86400)


if __name__ == "__main__":
    main()
