"""Bad input never crashes the server and never changes data: each case gets its
documented status and code and leaves the shot as it was (SPEC §1, §7, §10; issue 3)."""
import json
import socket

from rigd_harness import Rigd, RigdTestCase, main

E = "/v1/shots/s1/edits"
CREATE = b'{"op":"layer.create","name":"a","kind":"group"'


def op_body(extra=b""):
    return b'{"ops":[' + CREATE + extra + b"}]}"


class BadInputBase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", "s1")
        self.rigd.edit("s1", [
            {"op": "layer.create", "layerId": "root", "name": "Root", "kind": "group"},
            {"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "group",
             "parentId": "root"},
            {"op": "layer.pose", "layerId": "arm", "frame": 1, "transform": {"rotation": 3}},
        ])
        self.before = self.rigd.snapshot("s1")

    def tearDown(self):
        try:
            # the server is alive and the shot is untouched
            self.assertEqual(self.rigd.get("/healthz").status, 200)
            self.assertEqual(self.rigd.snapshot("s1"), self.before)
        finally:
            super().tearDown()

    def unchanged(self):
        self.assertEqual(self.rigd.snapshot("s1"), self.before)

    def raw(self, data, path=E, **kw):
        return self.rigd.post(path, raw=data, **kw)


class MalformedBodies(BadInputBase):
    CASES = {
        "truncated": b'{"ops":[' + CREATE,
        "not json": b"ops=1",
        "empty": b"",
        "trailing garbage": op_body() + b" x",
        "two documents": op_body() + op_body(),
        "single quotes": b"{'ops': []}",
        "trailing comma": b'{"ops":[' + CREATE + b"},]}",
        "invalid utf-8 in a string": b'{"ops":[{"op":"layer.create","name":"\xff\xfe","kind":"group"}]}',
        "overlong utf-8": b'{"ops":[{"op":"layer.create","name":"\xc0\xaf","kind":"group"}]}',
        "utf-8 surrogate bytes": b'{"ops":[{"op":"layer.create","name":"\xed\xa0\x80","kind":"group"}]}',
        "lone surrogate escape": b'{"ops":[{"op":"layer.create","name":"\\ud800","kind":"group"}]}',
        "invalid utf-8 in a key": b'{"ops":[{"op":"layer.create","n\xffme":"a","kind":"group"}]}',
        "duplicate keys top level": b'{"ops":[' + CREATE + b'}],"ops":[' + CREATE + b"}]}",
        "duplicate keys in op": b'{"ops":[{"op":"layer.create","name":"a","name":"b","kind":"group"}]}',
        "1e400": op_body(b',"timeOffset":1e400'),
        "-1e400": op_body(b',"timeOffset":-1e400'),
        "huge integer": op_body(b',"timeOffset":1' + b"0" * 400),
        "NaN literal": op_body(b',"timeOffset":NaN'),
        "Infinity literal": op_body(b',"timeOffset":Infinity'),
        "-Infinity literal": op_body(b',"timeOffset":-Infinity'),
        "10000-deep arrays": b'{"ops":' + b"[" * 10000 + b"]" * 10000 + b"}",
        "10000-deep objects": b'{"ops":[' + CREATE + b',"transform":' + b'{"a":' * 10000
        + b"1" + b"}" * 10000 + b"}]}",
        "nul byte outside string": b'{"ops":[]}\x00',
    }

    def test_malformed_json_is_400(self):
        for name, data in self.CASES.items():
            with self.subTest(case=name):
                r = self.raw(data)
                body = self.assertProblem(r, 400, "MALFORMED_JSON")
                self.assertTrue(body["detail"])
                self.unchanged()

    def test_malformed_json_reports_position(self):
        r = self.raw(b'{"ops": [\n  {"op": "layer.create",, }]}')
        body = self.assertProblem(r, 400, "MALFORMED_JSON")
        self.assertEqual(body["line"], 2)
        self.assertIn("column", body)

    def test_non_object_bodies(self):
        for data in (b"[]", b'[{"ops":[]}]', b'"ops"', b"42", b"null", b"true"):
            with self.subTest(body=data):
                r = self.raw(data)
                self.assertEqual(r.status, 400, r)
                self.assertIn(r.json["code"], ("MALFORMED_JSON",))
                self.unchanged()

    def test_malformed_bodies_on_other_writes(self):
        for path in ("/v1/projects", "/v1/projects/p1/shots"):
            for data in (b"{", b'{"name":"x"} y', b'{"name":"\xff"}', b'{"name":NaN}', b"[]"):
                with self.subTest(path=path, body=data):
                    r = self.raw(data, path=path)
                    self.assertProblem(r, 400, "MALFORMED_JSON")
        self.assertEqual(len(self.rigd.get("/v1/projects").json["projects"]), 1)
        self.assertEqual(len(self.rigd.get("/v1/projects/p1/shots").json["shots"]), 1)

    def test_multipart_is_415(self):
        r = self.raw(op_body(), headers={"Content-Type": "multipart/form-data; boundary=x"})
        self.assertProblem(r, 415, "UNSUPPORTED_MEDIA_TYPE")


class WrongTypes(BadInputBase):
    def test_nan_spelled_as_string_is_op_invalid(self):
        for field, value, pointer in (
                ("timeOffset", "NaN", "/ops/0/timeOffset"),
                ("timeOffset", "Infinity", "/ops/0/timeOffset"),
                ("timeOffset", "1", "/ops/0/timeOffset"),
                ("transform", {"rotation": "NaN"}, "/ops/0/transform/rotation"),
                ("transform", {"position": ["NaN", 0]}, "/ops/0/transform/position"),
                ("transform", {"scale": [1, "-Infinity"]}, "/ops/0/transform/scale")):
            with self.subTest(field=field, value=value):
                r = self.rigd.post(E, {"ops": [{"op": "layer.create", "name": "a", "kind": "group",
                                                field: value}]})
                body = self.assertProblem(r, 422, "OP_INVALID")
                self.assertIn(pointer, [e["pointer"] for e in body["errors"]])
                self.unchanged()
        r = self.rigd.post(E, {"ops": [{"op": "layer.pose", "layerId": "arm", "frame": "NaN",
                                        "transform": {"rotation": 1}}]})
        body = self.assertProblem(r, 422, "OP_INVALID")
        self.assertIn("/ops/0/frame", [e["pointer"] for e in body["errors"]])
        r = self.rigd.post(E, {"ops": [{"op": "layer.key.put", "layerId": "arm",
                                        "channel": "rotation",
                                        "keys": [{"frame": 0, "value": "NaN"}]}]})
        body = self.assertProblem(r, 422, "OP_INVALID")
        self.assertIn("/ops/0/keys/0/value", [e["pointer"] for e in body["errors"]])

    def test_wrong_types(self):
        cases = [
            ({"ops": "layer.create"}, "/ops"),
            ({"ops": [{"op": "layer.create", "name": ["a"], "kind": "group"}]}, "/ops/0/name"),
            ({"ops": [{"op": "layer.create", "name": "a", "kind": "group", "transform": [1, 2]}]},
             "/ops/0/transform"),
            ({"ops": [{"op": "layer.rename", "layerId": "arm", "name": None}]}, "/ops/0/name"),
            ({"ops": [{"op": "layer.pose", "layerId": "arm", "transform": {"rotation": {}}}]},
             "/ops/0/transform/rotation"),
            ({"ops": [{"op": "layer.key.put", "layerId": "arm", "channel": "rotation",
                       "keys": {"frame": 0, "value": 1}}]}, "/ops/0/keys"),
            ({"ops": [{"op": "layer.key.delete", "layerId": "arm", "channel": "rotation",
                       "frames": [True]}]}, "/ops/0/frames/0"),
            ({"ops": [{"op": "layer.delete", "layerId": "arm"}], "expectedVersion": True},
             "/expectedVersion"),
            ({"ops": [{"op": "layer.delete", "layerId": "arm"}], "expectedVersion": "1"},
             "/expectedVersion"),
            ({"ops": [{"op": "layer.delete", "layerId": "arm"}], "extra": {}}, "/extra"),
        ]
        for body, pointer in cases:
            with self.subTest(body=body):
                r = self.rigd.post(E, body)
                p = self.assertProblem(r, 422, "OP_INVALID")
                self.assertIn(pointer, [e["pointer"] for e in p["errors"]])
                self.unchanged()

    def test_unknown_ops(self):
        for name in ("layer.destroy", "LAYER.CREATE", "layer.create ", "", "skin", "layer"):
            with self.subTest(op=name):
                r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "arm",
                                                "name": "z"}, {"op": name, "layerId": "arm"}]})
                self.assertEqual(r.status, 422, r)
                self.assertIn(r.json["code"], ("OP_UNKNOWN", "OP_INVALID"))
                if name:
                    self.assertEqual(r.json["code"], "OP_UNKNOWN")
                    self.assertEqual(r.json["errors"][0]["pointer"], "/ops/1/op")
                self.assertEqual(r.json["errors"][0]["opIndex"], 1)
                self.unchanged()

    def test_nul_inside_strings(self):
        r = self.raw(b'{"ops":[{"op":"layer.create","name":"a\\u0000b","kind":"group"}]}')
        body = self.assertProblem(r, 422, "OP_INVALID")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/name")
        r = self.raw(b'{"ops":[{"op":"layer.create","layerId":"a\\u0000b","name":"a","kind":"group"}]}')
        body = self.assertProblem(r, 422, "OP_INVALID")
        self.assertEqual(body["errors"][0]["pointer"], "/ops/0/layerId")
        r = self.raw(b'{"ops":[{"op":"layer.rename\\u0000x","layerId":"arm","name":"a"}]}')
        self.assertEqual(r.status, 422, r)


class Ids(BadInputBase):
    BAD_IDS = ["a" * 65, "../etc", "a b", "", "a/b", "caf\u00e9", "x\ty", "a%20b", "a?b", "#"]

    def test_bad_ids_in_bodies(self):
        for bad in self.BAD_IDS:
            with self.subTest(id=bad):
                for op, field in (
                        ({"op": "layer.create", "layerId": bad, "name": "a", "kind": "group"}, "layerId"),
                        ({"op": "layer.create", "name": "a", "kind": "group", "parentId": bad}, "parentId"),
                        ({"op": "layer.rename", "layerId": bad, "name": "a"}, "layerId"),
                        ({"op": "layer.parent", "layerId": "arm", "parentId": bad}, "parentId")):
                    r = self.rigd.post(E, {"ops": [op]})
                    body = self.assertProblem(r, 422, "OP_INVALID")
                    self.assertEqual(body["errors"][0]["pointer"], f"/ops/0/{field}")
                r = self.rigd.post("/v1/projects", {"projectId": bad, "name": "x"})
                body = self.assertProblem(r, 422, "INVALID_FIELD")
                r = self.rigd.post("/v1/projects/p1/shots", {"shotId": bad, "name": "x"})
                self.assertProblem(r, 422, "INVALID_FIELD")
        self.assertEqual(len(self.rigd.get("/v1/projects").json["projects"]), 1)
        self.assertEqual(len(self.rigd.get("/v1/projects/p1/shots").json["shots"]), 1)
        # the longest valid id is fine
        r = self.rigd.post(E, {"ops": [{"op": "layer.create", "layerId": "A" * 64, "name": "x",
                                        "kind": "group"}]})
        self.assertEqual(r.status, 201, r)
        self.rigd.post(E, {"ops": [{"op": "layer.delete", "layerId": "A" * 64}]})
        self.before = self.rigd.snapshot("s1")

    def test_bad_ids_in_paths_are_400(self):
        for path in ("/v1/shots/" + "a" * 65, "/v1/shots/a%20b", "/v1/shots/caf%C3%A9",
                     "/v1/projects/a%20b", "/v1/shots/s1/layers/" + "b" * 65,
                     "/v1/receipts/a%3Bb", "/v1/shots/" + "a" * 65 + "/receipts"):
            with self.subTest(path=path):
                self.assertProblem(self.rigd.get(path), 400, "INVALID_QUERY")
        r = self.rigd.post("/v1/shots/" + "a" * 65 + "/edits",
                           {"ops": [{"op": "layer.create", "name": "a", "kind": "group"}]})
        self.assertProblem(r, 400, "INVALID_QUERY")
        r = self.rigd.delete("/v1/projects/a%20b")
        self.assertProblem(r, 400, "INVALID_QUERY")

    def test_non_utf8_path_gets_a_complete_problem(self):
        # Every problem has its detail, even when the path is not UTF-8 (%FF).
        r = self.rigd.get("/v1/%FF")
        body = self.assertProblem(r, 404, "NOT_FOUND")
        self.assertIsInstance(body.get("detail"), str, body)
        self.assertTrue(body["detail"])

    def test_encoded_slash_in_a_path_id_is_an_invalid_id(self):
        # "../etc" and "s1/receipts" sent as one encoded path segment are ids that break
        # the id rule (400); they must not be re-split into other routes.
        for path in ("/v1/shots/..%2Fetc", "/v1/shots/s1%2Freceipts",
                     "/v1/projects/p1%2Fshots"):
            with self.subTest(path=path):
                self.assertProblem(self.rigd.get(path), 400, "INVALID_QUERY")


class Routes(BadInputBase):
    def test_unknown_route_404(self):
        for path in ("/v1/nope", "/v2/projects", "/", "/v1/shots/s1/unknown", "/v1/projects/p1/x/y"):
            with self.subTest(path=path):
                self.assertProblem(self.rigd.get(path), 404, "NOT_FOUND")
        self.assertProblem(self.rigd.post("/v1/nope", {}), 404, "NOT_FOUND")

    def test_wrong_method_405_with_allow(self):
        cases = [("PUT", "/v1/shots/s1", {"GET", "DELETE"}),
                 ("PATCH", "/v1/projects", {"GET", "POST"}),
                 ("GET", "/v1/shots/s1/edits", {"POST"}),
                 ("DELETE", "/v1/receipts/r-1", {"GET"}),
                 ("POST", "/v1/errors", {"GET"})]
        for method, path, allowed in cases:
            with self.subTest(method=method, path=path):
                r = self.rigd.request(method, path, body={})
                self.assertProblem(r, 405, "METHOD_NOT_ALLOWED")
                allow = {m.strip() for m in (r.header("Allow") or "").split(",")}
                self.assertTrue(allowed <= allow, allow)
                self.assertNotIn(method, allow)

    def test_options_preflight_204_with_cors(self):
        # CORS is off unless --cors-origin lists the page's origin (test_edge_cors.py)
        origin = "https://editor.example"
        with Rigd(extra_args=("--cors-origin", origin)) as cors:
            for path in ("/v1/shots/s1/edits", "/v1/shots/s1", "/v1/projects"):
                with self.subTest(path=path):
                    r = cors.request("OPTIONS", path, headers={
                        "Origin": origin,
                        "Access-Control-Request-Method": "POST",
                        "Access-Control-Request-Headers": "content-type, if-match, idempotency-key"})
                    self.assertEqual(r.status, 204, r)
                    self.assertEqual(r.body, b"")
                    self.assertEqual(r.header("Access-Control-Allow-Origin"), origin)
                    methods = r.header("Access-Control-Allow-Methods") or ""
                    for m in ("GET", "POST", "DELETE"):
                        self.assertIn(m, methods)
                    allow_headers = (r.header("Access-Control-Allow-Headers") or "").lower()
                    for h in ("content-type", "if-match", "if-none-match", "idempotency-key",
                              "x-rigd-actor", "authorization"):
                        self.assertIn(h, allow_headers)
            # ordinary and error responses carry CORS and expose ETag
            r = cors.get("/v1/shots/s1", headers={"Origin": origin})
            self.assertEqual(r.header("Access-Control-Allow-Origin"), origin)
            self.assertIn("etag", (r.header("Access-Control-Expose-Headers") or "").lower())
            r = cors.get("/v1/nope", headers={"Origin": origin})
            self.assertEqual(r.header("Access-Control-Allow-Origin"), origin)


class Actor(BadInputBase):
    def test_actor_recorded_on_receipts(self):
        r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "arm", "name": "q"}]},
                           headers={"X-Rigd-Actor": "agent:planner-1"})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json["actor"], "agent:planner-1")
        rid = r.json["receiptId"]
        self.assertEqual(self.rigd.get(f"/v1/receipts/{rid}").json["actor"], "agent:planner-1")
        r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "arm", "name": "z"}]})
        self.assertEqual(r.json["actor"], "anonymous")
        listed = self.rigd.get("/v1/shots/s1/receipts").json["receipts"]
        self.assertEqual([x["actor"] for x in listed[:2]], ["anonymous", "agent:planner-1"])
        self.before = self.rigd.snapshot("s1")

    def test_overlong_actor_is_400(self):
        r = self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "arm", "name": "q"}]},
                           headers={"X-Rigd-Actor": "a" * 129})
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertEqual(body["parameter"], "X-Rigd-Actor")


    def test_invalid_utf8_in_actor_header_is_400(self):
        # A header the server cannot record is the client's error (400), never a 500.
        ops = {"ops": [{"op": "layer.rename", "layerId": "arm", "name": "q"}]}
        for path in (E, E + "?dryRun=true"):
            with self.subTest(path=path):
                r = self.rigd.post(path, ops, headers={"X-Rigd-Actor": b"agent-\xff\xfe"})
                body = self.assertProblem(r, 400, "INVALID_QUERY")
                self.assertEqual(body["parameter"], "X-Rigd-Actor")
                self.unchanged()

    def test_invalid_utf8_in_idempotency_key_is_400(self):
        ops = {"ops": [{"op": "layer.rename", "layerId": "arm", "name": "q"}]}
        r = self.rigd.post(E, ops, headers={"Idempotency-Key": b"key-\xff"})
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertEqual(body["parameter"], "Idempotency-Key")
        self.unchanged()


class BodyLimit(BadInputBase):
    server_args = ("--max-body", "4096")

    def test_body_over_max_body_is_413_with_limit(self):
        data = op_body() + b" " * (5000 - len(op_body()))
        self.assertEqual(len(data), 5000)
        r = self.raw(data)
        body = self.assertProblem(r, 413, "BODY_TOO_LARGE")
        self.assertEqual(body["maxBodyBytes"], 4096)
        self.assertEqual(self.rigd.get("/v1/limits").json["maxBodyBytes"], 4096)
        self.unchanged()

    def test_body_at_the_limit_is_accepted(self):
        data = op_body() + b" " * (4096 - len(op_body()))
        r = self.raw(data)
        self.assertEqual(r.status, 201, r)
        self.assertProblem(self.raw(data + b" "), 413, "BODY_TOO_LARGE")
        self.before = self.rigd.snapshot("s1")

    def test_chunked_body_over_limit_is_413(self):
        s = socket.create_connection(("127.0.0.1", self.rigd.port), timeout=10)
        try:
            s.sendall(b"POST /v1/shots/s1/edits HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            payload = op_body() + b" " * 6000
            for i in range(0, len(payload), 1000):
                part = payload[i:i + 1000]
                s.sendall(b"%x\r\n" % len(part) + part + b"\r\n")
            s.sendall(b"0\r\n\r\n")
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
                head, _, rest = data.partition(b"\r\n\r\n")
                if rest and b"}" in rest:
                    break
        finally:
            s.close()
        head, _, rest = data.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 413"), head)
        self.assertEqual(json.loads(rest)["maxBodyBytes"], 4096)
        self.unchanged()

    def test_announced_huge_content_length_is_413(self):
        s = socket.create_connection(("127.0.0.1", self.rigd.port), timeout=10)
        try:
            s.sendall(b"POST /v1/shots/s1/edits HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n")
            data = s.recv(65536)
        finally:
            s.close()
        self.assertTrue(data.startswith(b"HTTP/1.1 413"), data[:100])


if __name__ == "__main__":
    main()
