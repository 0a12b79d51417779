"""Query parameters are checked on every route (issue 11, item 6).

Each route reads the parameters named in the `query` column of api/app.c's
table (the same lists openapi.yaml documents; test_openapi_sync.py keeps the
two equal). Anything else — an unknown name, a name given twice, however it is
percent-encoded — is 400 INVALID_PARAMETER with `parameter` and
`validParameters`, and changes nothing. `?dryRun` (bare) and `dryRun=` are not
`true`, so they are 400 INVALID_QUERY and never commit.

Before this check, `?dryRun`, `?dry_run=true` and `?dryRun=false&dryRun=true`
all committed the batch for real, and unknown parameters were ignored.
"""
from rigd_harness import RigdTestCase, main
from test_openapi_sync import router_table

S = "s1"
E = f"/v1/shots/{S}/edits"
RENAME = {"ops": [{"op": "layer.rename", "layerId": "a", "name": "Renamed"}]}


def body_for(method):
    return RENAME if method in ("POST", "PUT") else None


class QueryParams(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", S)
        r = self.rigd.edit(S, [{"op": "layer.create", "layerId": "a", "name": "A",
                                "kind": "group"}])
        self.receipt_id = r.json["receiptId"]

    def assertUnchanged(self, before):
        self.assertEqual(self.rigd.snapshot(S), before)

    def invalid_parameter(self, r, name, valid):
        body = self.assertProblem(r, 400, "INVALID_PARAMETER")
        self.assertEqual(body["parameter"], name, body)
        self.assertEqual(sorted(body["validParameters"]), sorted(valid), body)
        self.assertIn(f"'{name}'", body["detail"])
        return body

    # ---- edits: nothing but exactly one dryRun=true|false -------------------------

    def test_bare_or_empty_dry_run_is_refused_and_commits_nothing(self):
        before = self.rigd.snapshot(S)
        for query in ("?dryRun", "?dryRun=", "?dryRun=TRUE", "?dryRun=1", "?dryRun=yes",
                      "?dryRun=true%00", "?dryRun=%20true"):
            with self.subTest(query=query):
                body = self.assertProblem(self.rigd.post(E + query, RENAME), 400,
                                          "INVALID_QUERY")
                self.assertEqual(body["parameter"], "dryRun", body)
                self.assertUnchanged(before)

    def test_unknown_or_repeated_parameters_on_edits_commit_nothing(self):
        before = self.rigd.snapshot(S)
        cases = (("?dry_run=true", "dry_run"), ("?dryrun=true", "dryrun"),
                 ("?DryRun=true", "DryRun"), ("?dryRun=true&force=1", "force"),
                 ("?dryRun%00=true", "dryRun%00"),   # a NUL makes it another name
                 ("?dryRun=false&dryRun=true", "dryRun"),
                 ("?dryRun=true&dryRun=true", "dryRun"),
                 ("?dryRun=true&dry%52un=false", "dryRun"),  # the same name, encoded
                 ("?dry%52un=true&dryRun", "dryRun"))
        for query, name in cases:
            with self.subTest(query=query):
                self.invalid_parameter(self.rigd.post(E + query, RENAME), name, ["dryRun"])
                self.assertUnchanged(before)

    def test_refused_query_is_not_recorded_under_its_idempotency_key(self):
        before = self.rigd.snapshot(S)
        key = {"Idempotency-Key": "k-query-1"}
        self.invalid_parameter(self.rigd.post(E + "?dry_run=true", RENAME, headers=key),
                               "dry_run", ["dryRun"])
        self.assertUnchanged(before)
        r = self.rigd.post(E, RENAME, headers=key)
        self.assertEqual(r.status, 201, r)
        self.assertIsNone(r.header("Idempotency-Replayed"))

    def test_valid_dry_run_spellings_still_work(self):
        before = self.rigd.snapshot(S)
        for query in ("?dryRun=true", "?dry%52un=true", "?dryRun=true&", "?&dryRun=true"):
            with self.subTest(query=query):
                r = self.rigd.post(E + query, RENAME)
                self.assertEqual(r.status, 200, r)
                self.assertUnchanged(before)
        r = self.rigd.post(E + "?dryRun=false", RENAME)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json["toVersion"], before["shot"]["version"] + 1)

    # ---- every route ---------------------------------------------------------------

    def concrete_paths(self):
        """A real path for every row of the routing table (ids that exist)."""
        lock = self.rigd.post(f"/v1/shots/{S}/locks", {"layerIds": ["a"]})
        self.assertEqual(lock.status, 201, lock)
        plan = self.rigd.post(f"/v1/shots/{S}/plans", RENAME)
        self.assertEqual(plan.status, 201, plan)
        token = self.rigd.post("/v1/tokens", {"name": "t", "scopes": ["read"]})
        self.assertEqual(token.status, 201, token)
        ids = {"projects": "p1", "shots": S, "layers": "a", "receipts": self.receipt_id,
               "tokens": token.json["tokenId"],
               "plans": plan.json["planId"], "locks": lock.json["lockId"],
               "errors": "NOT_FOUND", "frames": "0", "mesh-data": "vertices"}
        out = []
        for method, pattern, valid in router_table():
            parts = pattern.split("/")
            path = "/".join(ids[parts[i - 1]] if p == "{}" else p for i, p in enumerate(parts))
            out.append((method, path, valid))
        return out

    def test_every_route_refuses_an_unknown_parameter_and_changes_nothing(self):
        routes = self.concrete_paths()
        self.assertGreaterEqual(len(routes), 30)
        before = self.rigd.snapshot(S)
        plans = self.rigd.get(f"/v1/shots/{S}/plans").json
        locks = self.rigd.get(f"/v1/shots/{S}/locks").json
        for method, path, valid in routes:
            for query, name in (("?bogus=1", "bogus"), ("?bogus", "bogus"),
                                ("?x%26y%3D=1", "x&y=")):
                with self.subTest(route=f"{method} {path}", query=query):
                    r = self.rigd.request(method, path + query, body=body_for(method))
                    self.invalid_parameter(r, name, valid)
        self.assertUnchanged(before)
        self.assertEqual(self.rigd.get("/v1/projects/p1").status, 200)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/plans").json, plans)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/locks").json, locks)

    def test_every_route_refuses_a_repeated_parameter(self):
        for method, path, valid in self.concrete_paths():
            for name in valid:
                with self.subTest(route=f"{method} {path}", parameter=name):
                    r = self.rigd.request(method, f"{path}?{name}=1&{name}=1",
                                          body=body_for(method))
                    body = self.invalid_parameter(r, name, valid)
                    self.assertIn("more than once", body["detail"])

    def test_a_route_reading_nothing_says_so(self):
        body = self.invalid_parameter(self.rigd.get("/v1/limits?verbose=true"), "verbose", [])
        self.assertEqual(body["validParameters"], [])
        self.assertEqual(self.rigd.get("/v1/limits").status, 200)
        self.assertEqual(self.rigd.get("/v1/limits?").status, 200)

    def test_head_is_checked_like_get(self):
        r = self.rigd.request("HEAD", "/v1/projects?bogus=1")
        self.assertEqual(r.status, 400, r)

    # ---- names as the server decodes them ----------------------------------------

    def test_percent_encoded_names_are_decoded_before_the_check(self):
        for i in range(2):
            self.rigd.post("/v1/projects", {"projectId": f"q{i}", "name": "q"})
        r = self.rigd.get("/v1/projects?page%53ize=1")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(len(r.json["projects"]), 1)
        self.invalid_parameter(self.rigd.get("/v1/projects?pageSize=1&page%53ize=2"),
                               "pageSize", ["pageSize", "pageToken"])
        self.invalid_parameter(self.rigd.get("/v1/projects?page+Size=1"), "page Size",
                               ["pageSize", "pageToken"])
        self.invalid_parameter(self.rigd.get("/v1/projects?%C3%A9=1"), "\u00e9",
                               ["pageSize", "pageToken"])
        self.invalid_parameter(self.rigd.get("/v1/projects?=1"), "", ["pageSize", "pageToken"])
        # a name that is not clean UTF-8 is named as it stands canonically
        self.invalid_parameter(self.rigd.get("/v1/projects?%FF=1"), "%FF",
                               ["pageSize", "pageToken"])

    def test_empty_segments_are_ignored(self):
        r = self.rigd.get("/v1/projects?&pageSize=1&&")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(len(r.json["projects"]), 1)

    def test_a_nul_in_a_value_is_refused(self):
        body = self.assertProblem(self.rigd.get("/v1/projects?pageSize=5%00junk"), 400,
                                  "INVALID_QUERY")
        self.assertEqual(body["parameter"], "pageSize")

    def test_a_bare_parameter_reads_as_empty_not_as_absent(self):
        body = self.assertProblem(self.rigd.get("/v1/projects?pageSize"), 400, "INVALID_QUERY")
        self.assertEqual(body["parameter"], "pageSize")
        body = self.assertProblem(self.rigd.get(f"/v1/shots/{S}/frames/0?space"), 400,
                                  "INVALID_QUERY")
        self.assertEqual(body["parameter"], "space")

    def test_an_empty_layers_list_is_refused(self):
        for query in ("?layers=", "?layers"):
            with self.subTest(query=query):
                body = self.assertProblem(self.rigd.get(f"/v1/shots/{S}/frames/0{query}"), 400,
                                          "INVALID_QUERY")
                self.assertEqual(body["parameter"], "layers")

    def test_the_catalogue_documents_the_code(self):
        r = self.rigd.get("/v1/errors/INVALID_PARAMETER")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["status"], 400)


if __name__ == "__main__":
    main()
