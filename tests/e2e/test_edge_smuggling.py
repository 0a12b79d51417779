"""Request smuggling at the edge (issue 11 item 1; RFC 9112 §5.1, §6.1, §3.2).

Each case sends, on one raw socket, a request whose framing or syntax is
ambiguous, followed by a second request (POST /v1/projects creating a project
named for the case). rigd must answer the first with 400 problem+json, close
the connection, and never execute the second: GET /v1/projects/<id> is 404
afterwards. Cases:

- whitespace before the colon: `Content-Length : N`, `Transfer-Encoding : chunked`,
  a tab before the colon                                     400 MALFORMED_REQUEST
- obs-fold (a header line starting with SP or HTAB)          400 MALFORMED_REQUEST
- NUL in the request line (in the target, in the method)     400 MALFORMED_REQUEST
- HTTP/1.1 without Host                                      400 MALFORMED_REQUEST
- Transfer-Encoding other than exactly `chunked` (`gzip` used to hang the
  connection; `gzip, chunked`; two Transfer-Encoding fields) 400 AMBIGUOUS_FRAMING

Before this change libmicrohttpd 0.9.75 kept `Content-Length ` (with the space)
as an unknown header, framed the request as bodiless and ran the body as a
second request; folded lines, NUL bytes and a missing Host were accepted and
`gzip` left the connection waiting forever. Controls: pipelined well-formed
requests are still all answered, and HTTP/1.0 without Host is still served.
"""
import json

from rigd_harness import exchange, RigdTestCase, main


def smuggled(project):
    body = json.dumps({"projectId": project, "name": project}).encode()
    return (b"POST /v1/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body) + body)


def responses(raw):
    """The status codes of the HTTP responses in raw (bodies skipped by Content-Length)."""
    statuses = []
    while raw.startswith(b"HTTP/1."):
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        statuses.append(int(lines[0].split()[1]))
        length = 0
        for line in lines[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v)
        raw = rest[length:]
    return statuses


def problem_of(raw):
    head, _, rest = raw.partition(b"\r\n\r\n")
    assert b"content-type: application/problem+json" in head.lower(), head
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            return json.loads(rest[:int(v)])
    raise AssertionError(head)


class Smuggling(RigdTestCase):
    def case(self, name, request, code):
        project = "smuggled-" + name
        out, closed = exchange(self.rigd.port, request + smuggled(project))
        with self.subTest(case=name):
            self.assertTrue(out.startswith(b"HTTP/1.1 400 "), f"{name}: {out[:200]!r}")
            self.assertEqual(problem_of(out)["code"], code, out)
            self.assertEqual(responses(out), [400], f"{name}: a second answer: {out!r}")
            self.assertTrue(closed, f"{name}: the connection stayed open after the 400")
            self.assertEqual(self.rigd.get(f"/v1/projects/{project}").status, 404,
                             f"{name}: the smuggled request was executed")

    def test_whitespace_before_the_colon(self):
        inner = smuggled("smuggled-inner-cl")
        self.case("cl-space", b"POST /v1/projects HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nContent-Length : %d\r\n\r\n" % len(inner)
                  + inner, "MALFORMED_REQUEST")
        inner = smuggled("smuggled-inner-te")
        chunked = b"%x\r\n" % len(inner) + inner + b"\r\n0\r\n\r\n"
        self.case("te-space", b"POST /v1/projects HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nTransfer-Encoding : chunked\r\n\r\n"
                  + chunked, "MALFORMED_REQUEST")
        self.case("tab", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note\t: 1\r\n\r\n",
                  "MALFORMED_REQUEST")
        for p in ("smuggled-inner-cl", "smuggled-inner-te"):
            self.assertEqual(self.rigd.get(f"/v1/projects/{p}").status, 404, p)

    def test_obs_fold(self):
        self.case("fold-space", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n b\r\n\r\n",
                  "MALFORMED_REQUEST")
        self.case("fold-tab", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n\tb\r\n\r\n",
                  "MALFORMED_REQUEST")
        self.case("fold-cl", b"POST /v1/projects HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nX-Note: a\r\n Content-Length: 5\r\n\r\n",
                  "MALFORMED_REQUEST")
        self.case("fold-host", b"GET /healthz HTTP/1.1\r\nHost: x\r\n y\r\n\r\n",
                  "MALFORMED_REQUEST")

    def test_nul_in_the_request_line(self):
        self.case("nul-end", b"GET /healthz\x00 HTTP/1.1\r\nHost: x\r\n\r\n", "MALFORMED_REQUEST")
        self.case("nul-mid", b"GET /v1/pro\x00jects HTTP/1.1\r\nHost: x\r\n\r\n",
                  "MALFORMED_REQUEST")
        self.case("nul-method", b"GET\x00 /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                  "MALFORMED_REQUEST")

    def test_http11_without_host(self):
        self.case("no-host", b"GET /healthz HTTP/1.1\r\n\r\n", "MALFORMED_REQUEST")

    def test_unsupported_transfer_coding(self):
        body = b'{"projectId":"x","name":"x"}'
        self.case("te-gzip", b"POST /v1/projects HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n" + body,
                  "AMBIGUOUS_FRAMING")
        self.case("te-gzip-chunked", b"POST /v1/projects HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                  b"0\r\n\r\n", "AMBIGUOUS_FRAMING")
        self.case("te-twice", b"POST /v1/projects HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "AMBIGUOUS_FRAMING")

    def test_well_formed_requests_still_pass(self):
        # pipelined requests are all answered, in order
        out, _ = exchange(self.rigd.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                          + smuggled("pipelined")
                          + b"GET /v1/projects/pipelined HTTP/1.1\r\nHost: x\r\n"
                            b"Connection: close\r\n\r\n")
        self.assertEqual(responses(out), [200, 201, 200], out)
        # HTTP/1.0 needs no Host; header values may hold spaces and tabs; no space after ':'
        out, _ = exchange(self.rigd.port, b"GET /healthz HTTP/1.0\r\n\r\n")
        self.assertEqual(responses(out), [200], out)
        out, _ = exchange(self.rigd.port, b"GET /healthz HTTP/1.1\r\nHost:x\r\n"
                          b"X-Note: a b\tc \r\nConnection: close\r\n\r\n")
        self.assertEqual(responses(out), [200], out)
        self.assertEqual(self.rigd.get("/healthz").status, 200)


if __name__ == "__main__":
    main()
