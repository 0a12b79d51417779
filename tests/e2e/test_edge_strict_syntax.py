"""HTTP syntax leniencies closed at the front (issue 21 item 4; RFC 9112 §3, RFC 9110 §5.5).

Each case goes over a raw socket, since an HTTP client would normalise it:

- request line with two spaces before or after the target
  (`GET  /healthz HTTP/1.1`, `GET /healthz  HTTP/1.1`), a control character
  inside the target, a method that is not a token         400 MALFORMED_REQUEST
  (the first was served 200, the others 404 for a path ending in a space)
- a NUL byte inside a header value (`Authorization: Bearer <token>\\0junk`,
  wherever the header sits, and in any other header)      400 MALFORMED_REQUEST
  (libmicrohttpd 0.9.75 cut the value at the NUL, so the token before it was
  accepted and the rest ignored; a lone NUL ending a value on a bare-LF line
  hides nothing and reads as a CR LF line end, so that one passes)

Each refusal is a problem, closes the connection and never runs the request
sent after it on the same connection. Controls: single-spaced request lines
with and without a query, escapes and `+` in the target, header values with
inner and trailing spaces, bare-LF line ends, pipelined requests.
"""
import json

from rigd_harness import exchange, Rigd, RigdTestCase, main


def responses(raw):
    """(status, body) of each HTTP response in raw."""
    out = []
    while raw.startswith(b"HTTP/1."):
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = 0
        for line in lines[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v)
        out.append((int(lines[0].split()[1]), rest[:length]))
        raw = rest[length:]
    return out


def create_project(project):
    body = json.dumps({"projectId": project, "name": project}).encode()
    return (b"POST /v1/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body) + body)


class Refusals:
    """Mixed into the test cases below: self.rigd and self.auth (headers bytes)."""

    auth = b""

    def refused(self, name, request, detail_part):
        """request is answered 400 MALFORMED_REQUEST and closed; a request
        pipelined after it (creating project <name>) never runs."""
        self.n_cases = getattr(self, "n_cases", 0) + 1
        project = f"after-{self.n_cases}"
        follow = create_project(project)
        follow = follow.replace(b"Host: x\r\n", b"Host: x\r\n" + self.auth)
        out, closed = exchange(self.rigd.port, request + follow)
        with self.subTest(case=name):
            got = responses(out)
            self.assertEqual([s for s, _ in got], [400], f"{name}: {out[:300]!r}")
            problem = json.loads(got[0][1])
            self.assertEqual(problem["code"], "MALFORMED_REQUEST", problem)
            self.assertIn(detail_part, problem["detail"], problem)
            self.assertTrue(closed, f"{name}: the connection stayed open after the 400")
            r = self.rigd.get(f"/v1/projects/{project}", headers=self.auth_headers())
            self.assertEqual(r.status, 404, f"{name}: the request after it ran")

    def auth_headers(self):
        return {}


class RequestLine(Refusals, RigdTestCase):
    def test_two_spaces_before_or_after_the_target(self):
        spaces = "separated by single spaces"
        self.refused("before", b"GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n", spaces)
        self.refused("after", b"GET /healthz  HTTP/1.1\r\nHost: x\r\n\r\n", spaces)
        self.refused("both", b"GET  /healthz  HTTP/1.1\r\nHost: x\r\n\r\n", spaces)
        self.refused("three", b"GET   /v1/projects HTTP/1.1\r\nHost: x\r\n\r\n", spaces)
        self.refused("after-query", b"GET /v1/projects?pageSize=5  HTTP/1.1\r\nHost: x\r\n\r\n",
                     spaces)
        self.refused("inside", b"GET /heal thz HTTP/1.1\r\nHost: x\r\n\r\n", spaces)

    def test_control_characters_in_the_target_and_a_method_not_a_token(self):
        self.refused("tab", b"GET /heal\tthz HTTP/1.1\r\nHost: x\r\n\r\n", "control character")
        self.refused("tab-end", b"GET /healthz\t HTTP/1.1\r\nHost: x\r\n\r\n", "control character")
        self.refused("del", b"GET /healthz\x7f HTTP/1.1\r\nHost: x\r\n\r\n", "control character")
        self.refused("esc", b"GET /v1/projects?x=\x1b HTTP/1.1\r\nHost: x\r\n\r\n",
                     "control character")
        self.refused("method", b"G(T /healthz HTTP/1.1\r\nHost: x\r\n\r\n", "not a token")

    def test_well_formed_request_lines_still_pass(self):
        out, _ = exchange(self.rigd.port,
                          b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                          b"GET /v1/projects?pageSize=5 HTTP/1.1\r\nHost: x\r\n\r\n"
                          b"GET /v1/projects/a%2Db HTTP/1.1\r\nHost: x\r\n\r\n"
                          + create_project("plus")
                          + b"GET /v1/projects/plus?x=a+b HTTP/1.1\r\nHost: x\r\n\r\n"
                          b"GET /healthz HTTP/1.0\r\n\r\n")
        self.assertEqual([s for s, _ in responses(out)], [200, 200, 404, 201, 400, 200], out)
        # (the 400 is INVALID_PARAMETER: ?x is not a parameter of the route)
        self.assertEqual(json.loads(responses(out)[4][1])["code"], "INVALID_PARAMETER")
        self.assertEqual(self.rigd.get("/healthz").status, 200)


class HeaderValueNul(Refusals, RigdTestCase):
    """With auth on: the token before a NUL is never taken for the header."""

    def setUp(self):
        self.rigd = Rigd(auth=True).start()
        with open(self.rigd.db_path + ".token") as f:
            self.token = f.read().strip().encode()
        self.auth = b"Authorization: Bearer " + self.token + b"\r\n"

    def auth_headers(self):
        return {"Authorization": "Bearer " + self.token.decode()}

    def get_projects(self, *headers, sep=b"\r\n"):
        return b"GET /v1/projects HTTP/1.1" + sep + sep.join(headers) + sep + sep

    def test_a_nul_after_the_token_is_refused_wherever_the_header_is(self):
        bearer = b"Authorization: Bearer " + self.token
        nul = "contains a NUL byte"
        for junk in (b"\x00junk", b"\x00", b"\x00\x00junk", b"\x00 junk", b"\x00\x00\x00\x00x"):
            self.refused(f"first-{junk!r}", self.get_projects(bearer + junk, b"Host: x"), nul)
            self.refused(f"middle-{junk!r}",
                         self.get_projects(b"Host: x", bearer + junk, b"X-Note: 1"), nul)
            self.refused(f"last-{junk!r}", self.get_projects(b"Host: x", bearer + junk), nul)
            if junk != b"\x00":  # with bare LFs, "\0\n" reads as CR LF: nothing hides
                self.refused(f"lf-{junk!r}",
                             self.get_projects(b"Host: x", bearer + junk, sep=b"\n"), nul)
        # in another header, before the token or in the value of a write
        self.refused("other", self.get_projects(b"Host: x", b"X-Note: a\x00b", bearer), nul)
        body = b'{"projectId":"nul","name":"nul"}'
        self.refused("write", b"POST /v1/projects HTTP/1.1\r\nHost: x\r\n" + bearer +
                     b"\r\nContent-Type: application/json\x00; x\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body, nul)
        self.assertEqual(self.rigd.get("/v1/projects/nul", headers=self.auth_headers()).status,
                         404)

    def test_the_token_alone_still_passes_and_junk_after_it_is_401(self):
        bearer = b"Authorization: Bearer " + self.token
        out, _ = exchange(self.rigd.port,
                          self.get_projects(b"Host: x", bearer)
                          + self.get_projects(bearer, b"Host: x")
                          + self.get_projects(b"Host: x", bearer + b"  ", b"X-Note: a b\t c ")
                          + self.get_projects(b"Host: x", b"X-Empty:", bearer)
                          + self.get_projects(b"Host: x", bearer, sep=b"\n")
                          + self.get_projects(b"Host: x", bearer + b" junk",
                                              b"Connection: close"))
        self.assertEqual([s for s, _ in responses(out)], [200, 200, 200, 200, 200, 401], out)


if __name__ == "__main__":
    main()
