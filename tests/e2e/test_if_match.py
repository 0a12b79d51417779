"""If-Match as RFC 9110 §13.1.1 reads it (issue 21 item 4, part 4), on every route that
takes it: edits, receipt revert, shot delete and plan revise.

- `If-Match: *` matches any current representation: the shot (or plan) must exist and
  no version is expected. It used to be 400 PRECONDITION_INVALID. On a missing shot the
  answer is the route's 404, as without the header.
- A list of entity tags holds when any of them names the current version
  (`"4", "5"`); whitespace around commas and empty list elements are allowed.
- If-Match compares strongly, so a weak tag (`W/"5"`) and a tag that is no version
  (`"x"`, `"05"`, a frame query's `"5-ab12"`) never match: 412 VERSION_CONFLICT with
  `expectedVersions` (the versions the list names, maybe none) instead of
  `expectedVersion`, nothing applied.
- Only what is not `*` or a list of entity tags (`5`, `"5`, `W/5`, `*, "5"`, a tag with a
  space) or a list naming more than 16 versions is 400 PRECONDITION_INVALID.
- With `expectedVersion` in the body, If-Match must name that version (else 400).
"""
from rigd_harness import RigdTestCase, main

S = "s1"
E = f"/v1/shots/{S}/edits"
RENAME = [{"op": "layer.rename", "layerId": "a", "name": "x"}]


class IfMatch(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", S)
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "a", "name": "a", "kind": "group"}])

    def version(self, shot=S):
        return self.rigd.get(f"/v1/shots/{shot}").json["version"]

    def edit(self, if_match, body=None):
        return self.rigd.post(E, body or {"ops": RENAME}, headers={"If-Match": if_match})

    def test_star_matches_any_version_of_an_existing_shot(self):
        for i in range(3):
            r = self.edit("*")
            self.assertEqual(r.status, 201, r)
            self.assertEqual(r.header("ETag"), f'"{i + 2}"')
        self.assertEqual(self.edit(" * ").status, 201)
        # with expectedVersion, the body's expectation alone applies (409, not 412)
        body = self.assertProblem(self.edit("*", {"ops": RENAME, "expectedVersion": 0}), 409,
                                  "VERSION_CONFLICT")
        self.assertEqual(body["expectedVersion"], 0)
        self.assertEqual(self.edit("*", {"ops": RENAME, "expectedVersion": 5}).status, 201)
        # a missing shot is the route's 404, If-Match or not
        r = self.rigd.post("/v1/shots/nope/edits", {"ops": RENAME}, headers={"If-Match": "*"})
        self.assertProblem(r, 404, "NOT_FOUND")

    def test_a_list_matches_when_any_tag_names_the_version(self):
        self.assertEqual(self.version(), 1)
        for value in ('"7", "1"', '"1","7"', ' , "9" ,, "1" ,', 'W/"1", "1"', '"x", "1"'):
            with self.subTest(value=value):
                v = self.version()
                value = value.replace('"1"', f'"{v}"')
                r = self.edit(value)
                self.assertEqual(r.status, 201, r)
                self.assertEqual(self.version(), v + 1)
        v = self.version()
        body = self.assertProblem(self.edit(f'"{v + 5}", "{v + 6}"'), 412, "VERSION_CONFLICT")
        self.assertEqual(body["expectedVersions"], [v + 5, v + 6], body)
        self.assertEqual(body["currentVersion"], v)
        self.assertNotIn("expectedVersion", body)
        # one version named (even twice): expectedVersion, as before
        body = self.assertProblem(self.edit(f'"{v + 5}", "{v + 5}", W/"{v}"'), 412,
                                  "VERSION_CONFLICT")
        self.assertEqual(body["expectedVersion"], v + 5, body)
        self.assertEqual(self.version(), v)

    def test_weak_tags_and_tags_that_are_no_version_never_match(self):
        v = self.version()
        before = self.rigd.snapshot(S)
        for value in (f'W/"{v}"', '"x"', '""', f'"0{v}"', f'"{v}-ab12"', '"-1"', '"1.5"',
                      '"99999999999999999999"', f'W/"{v}", "{v}x"'):
            with self.subTest(value=value):
                body = self.assertProblem(self.edit(value), 412, "VERSION_CONFLICT")
                self.assertEqual(body["expectedVersions"], [], body)
                self.assertEqual(body["currentVersion"], v)
                self.assertIn("names no version", body["detail"])
        self.assertEqual(self.rigd.snapshot(S), before)

    def test_only_what_is_no_list_of_entity_tags_is_400(self):
        v = self.version()
        before = self.rigd.snapshot(S)
        too_many = ", ".join(f'"{i}"' for i in range(17))
        for value in (str(v), f'"{v}', f'{v}"', f'W/{v}', f'w/"{v}"', f'*, "{v}"', '**',
                      '"a b"', f'"{v}" "{v}"', f'"{v}";', "", ",", too_many):
            with self.subTest(value=value):
                body = self.assertProblem(self.edit(value), 400, "PRECONDITION_INVALID")
                self.assertEqual(body["parameter"], "If-Match")
        self.assertEqual(self.rigd.snapshot(S), before)
        # sixteen versions are fine
        sixteen = ", ".join(f'"{i}"' for i in range(v, v + 16))
        self.assertEqual(self.edit(sixteen).status, 201)

    def test_expected_version_must_be_one_if_match_names(self):
        v = self.version()
        r = self.edit(f'"{v + 3}", "{v + 4}"', {"ops": RENAME, "expectedVersion": v})
        self.assertProblem(r, 400, "PRECONDITION_INVALID")
        r = self.edit(f'"{v + 3}", "{v}"', {"ops": RENAME, "expectedVersion": v})
        self.assertEqual(r.status, 201, r)
        # both given and both stale: If-Match's 412
        r = self.edit(f'"{v}"', {"ops": RENAME, "expectedVersion": v})
        self.assertProblem(r, 412, "VERSION_CONFLICT")

    def test_receipt_revert_reads_it_the_same(self):
        rid = self.rigd.edit(S, RENAME).json["receiptId"]
        r = self.rigd.post(f"/v1/receipts/{rid}/revert", {}, headers={"If-Match": 'W/"2"'})
        self.assertProblem(r, 412, "VERSION_CONFLICT")
        r = self.rigd.post(f"/v1/receipts/{rid}/revert", {}, headers={"If-Match": "*"})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/a").json["name"], "a")

    def test_shot_delete_reads_it_the_same(self):
        self.rigd.make_shot("p1", "s2")
        self.rigd.make_shot("p1", "s3")
        r = self.rigd.delete("/v1/shots/s2", headers={"If-Match": '"4", W/"0"'})
        body = self.assertProblem(r, 412, "VERSION_CONFLICT")
        self.assertEqual((body["expectedVersion"], body["currentVersion"]), (4, 0), body)
        self.assertEqual(self.rigd.get("/v1/shots/s2").status, 200)
        self.assertEqual(self.rigd.delete("/v1/shots/s2", headers={"If-Match": '"4", "0"'}).status,
                         200)
        self.assertEqual(self.rigd.delete("/v1/shots/s3", headers={"If-Match": "*"}).status, 200)
        self.assertEqual(self.rigd.get("/v1/shots/s3").status, 404)
        r = self.rigd.delete("/v1/shots/s3", headers={"If-Match": "*"})
        self.assertProblem(r, 404, "NOT_FOUND")
        r = self.rigd.delete("/v1/shots/s3", headers={"If-Match": '"0"'})
        self.assertProblem(r, 404, "NOT_FOUND")

    def test_plan_revise_reads_it_the_same(self):
        r = self.rigd.post(f"/v1/shots/{S}/plans", {"planId": "pl", "ops": RENAME})
        self.assertEqual(r.status, 201, r)
        path = "/v1/plans/pl"
        r = self.rigd.put(path, {"ops": RENAME}, headers={"If-Match": "*"})
        self.assertEqual((r.status, r.json.get("planVersion")), (200, 2), r)
        r = self.rigd.put(path, {"ops": RENAME}, headers={"If-Match": '"1", W/"2"'})
        body = self.assertProblem(r, 412, "PLAN_VERSION_CONFLICT")
        self.assertEqual((body["expectedPlanVersion"], body["currentPlanVersion"]), (1, 2), body)
        r = self.rigd.put(path, {"ops": RENAME}, headers={"If-Match": 'W/"2"'})
        body = self.assertProblem(r, 412, "PLAN_VERSION_CONFLICT")
        self.assertEqual(body["expectedPlanVersions"], [], body)
        r = self.rigd.put(path, {"ops": RENAME}, headers={"If-Match": '"1", "2"'})
        self.assertEqual((r.status, r.json.get("planVersion")), (200, 3), r)
        r = self.rigd.put("/v1/plans/nope", {"ops": RENAME}, headers={"If-Match": "*"})
        self.assertProblem(r, 404, "NOT_FOUND")


if __name__ == "__main__":
    main()
