"""Writes require JSON (issue 11 item 5).

A POST, PUT or DELETE carrying a body whose Content-Type is not
application/json (parameters such as `; charset=utf-8` allowed, the media type
compared case-insensitively) is 415 UNSUPPORTED_MEDIA_TYPE and changes
nothing: browsers send text/plain, form-urlencoded and multipart cross-site
without a preflight, and rigd used to parse such bodies as JSON. A write with no
body needs no Content-Type.

A charset parameter other than UTF-8 (issue 21 item 4: `charset=utf-16` was
accepted and the body read as UTF-8) is 415 too, whatever its case and
whether it is quoted; `charset=utf-8` in any case, quoted or not, passes.
"""
import http.client
import json

from rigd_harness import RigdTestCase, main


class WritesRequireJson(RigdTestCase):
    def send(self, method, path, body, ctype):
        conn = self.rigd.connect()
        try:
            headers = {} if ctype is None else {"Content-Type": ctype}
            conn.request(method, path, body=body, headers=headers)
            r = conn.getresponse()
            return r.status, r.getheader("Content-Type"), r.read()
        finally:
            conn.close()

    def test_non_json_bodies_are_415_and_change_nothing(self):
        body = json.dumps({"projectId": "p1", "name": "p1"}).encode()
        for i, ctype in enumerate(("text/plain", "text/plain;charset=UTF-8",
                                   "application/x-www-form-urlencoded",
                                   "multipart/form-data; boundary=x", "application/jsonx",
                                   "application/json-patch+json", "", None)):
            with self.subTest(content_type=ctype):
                status, rtype, raw = self.send("POST", "/v1/projects", body, ctype)
                self.assertEqual(status, 415, raw)
                self.assertEqual(rtype, "application/problem+json")
                self.assertEqual(json.loads(raw)["code"], "UNSUPPORTED_MEDIA_TYPE")
        self.assertEqual(self.rigd.get("/v1/projects").json["projects"], [])
        # the same on the other writes
        self.rigd.make_shot()
        before = self.rigd.snapshot("s1")
        for method, path, payload in (
                ("POST", "/v1/shots/s1/edits",
                 {"ops": [{"op": "layer.create", "layerId": "x", "name": "x", "kind": "group"}]}),
                ("POST", "/v1/projects/p1/shots", {"shotId": "s2", "name": "s2"}),
                ("DELETE", "/v1/shots/s1", {})):
            with self.subTest(method=method, path=path):
                status, _, raw = self.send(method, path, json.dumps(payload).encode(),
                                           "text/plain")
                self.assertEqual(status, 415, raw)
        self.assertEqual(self.rigd.snapshot("s1"), before)
        self.assertEqual(self.rigd.get("/v1/shots/s2").status, 404)

    def test_json_with_parameters_and_bodiless_writes_pass(self):
        for i, ctype in enumerate(("application/json", "application/json; charset=utf-8",
                                   "Application/JSON", "application/json;charset=UTF-8")):
            with self.subTest(content_type=ctype):
                body = json.dumps({"projectId": f"p{i}", "name": "x"}).encode()
                status, _, raw = self.send("POST", "/v1/projects", body, ctype)
                self.assertEqual(status, 201, raw)
        # no body, no Content-Type: the route's own answer
        status, _, raw = self.send("DELETE", "/v1/projects/p3", None, None)
        self.assertIn(status, (200, 204), raw)
        status, _, raw = self.send("POST", "/v1/projects", b"", "text/plain")
        self.assertNotEqual(status, 415, raw)

    def test_a_charset_other_than_utf8_is_415(self):
        body = json.dumps({"projectId": "p1", "name": "p1"}).encode()
        for ctype in ("application/json; charset=utf-16", "application/json;charset=UTF-16LE",
                      'application/json; charset="utf-16"', "application/json; CHARSET=utf-16",
                      "application/json; charset=iso-8859-1", "application/json; charset=utf8",
                      "application/json; charset=", 'application/json; charset=""',
                      "application/json; charset", "application/json; charset = utf-8",
                      "application/json; charset=utf-8; charset=utf-16",
                      "application/json; charset=utf-8x", 'application/json; charset="utf-8"x',
                      'application/json; charset="utf-8'):
            with self.subTest(content_type=ctype):
                status, rtype, raw = self.send("POST", "/v1/projects", body, ctype)
                self.assertEqual(status, 415, raw)
                self.assertEqual(rtype, "application/problem+json")
                problem = json.loads(raw)
                self.assertEqual(problem["code"], "UNSUPPORTED_MEDIA_TYPE")
                self.assertEqual(problem["contentType"], ctype)
        # a body really in UTF-16 is refused for its label, not parsed as UTF-8
        status, _, raw = self.send("POST", "/v1/projects", json.dumps(
            {"projectId": "p1", "name": "p1"}).encode("utf-16"),
            "application/json; charset=utf-16")
        self.assertEqual((status, json.loads(raw)["code"]), (415, "UNSUPPORTED_MEDIA_TYPE"))
        self.assertEqual(self.rigd.get("/v1/projects").json["projects"], [])

    def test_utf8_charsets_pass_in_any_case_quoted_or_not(self):
        for i, ctype in enumerate(("application/json; charset=UTF-8",
                                   'application/json; charset="utf-8"',
                                   'application/json;charset="UTF-8"',
                                   "application/json; Charset=Utf-8",
                                   "application/json; foo=bar; charset=utf-8",
                                   'application/json; foo="a;charset=utf-16"; charset=utf-8',
                                   'application/json; charset="utf\\-8"',
                                   "application/json; version=2")):
            with self.subTest(content_type=ctype):
                body = json.dumps({"projectId": f"p{i}", "name": "x"}).encode()
                status, _, raw = self.send("POST", "/v1/projects", body, ctype)
                self.assertEqual(status, 201, raw)


if __name__ == "__main__":
    main()
