"""CORS at the edge (issue 11 item 4).

Off by default: no Access-Control-* header on any answer, preflights included
(rigd used to answer `Access-Control-Allow-Origin: *` to everything, DELETE
preflights too, so any web page could drive it from a visitor's browser).
With --cors-origin (repeatable) a request whose Origin equals a listed origin
gets that origin back with `Vary: Origin`, and a preflight also gets the
methods and request headers (Authorization included); any other origin gets no
CORS header at all.
"""
from rigd_harness import Rigd, RigdTestCase, main

APP = "https://app.example"
TOOLS = "http://tools.example:8081"
EVIL = "https://evil.example"


def preflight(rigd, origin, method="DELETE", path="/v1/projects/p1"):
    return rigd.request("OPTIONS", path, headers={
        "Origin": origin, "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "authorization, content-type, if-match"})


def cors_headers(r):
    return {k.lower(): v for k, v in r.headers if k.lower().startswith("access-control-")}


class CorsOff(RigdTestCase):
    def test_no_cors_headers_by_default(self):
        self.rigd.post("/v1/projects", {"projectId": "p1", "name": "p1"})
        for name, r in (("preflight", preflight(self.rigd, EVIL)),
                        ("get", self.rigd.get("/v1/projects", headers={"Origin": EVIL})),
                        ("error", self.rigd.get("/v1/nope", headers={"Origin": EVIL})),
                        ("no origin", self.rigd.get("/v1/projects"))):
            with self.subTest(case=name):
                self.assertEqual(cors_headers(r), {}, r.headers)
                self.assertIsNone(r.header("Vary"))


class CorsAllowList(RigdTestCase):
    server_args = ("--cors-origin", APP, "--cors-origin", TOOLS)

    def test_listed_origins_get_themselves_back(self):
        for origin in (APP, TOOLS):
            with self.subTest(origin=origin):
                r = self.rigd.get("/v1/projects", headers={"Origin": origin})
                self.assertEqual(r.status, 200)
                self.assertEqual(r.header("Access-Control-Allow-Origin"), origin)
                self.assertIn("Origin", r.header("Vary") or "")
                self.assertIn("etag", (r.header("Access-Control-Expose-Headers") or "").lower())
                self.assertIsNone(r.header("Access-Control-Allow-Methods"))
                p = preflight(self.rigd, origin)
                self.assertEqual(p.status, 204, p)
                self.assertEqual(p.header("Access-Control-Allow-Origin"), origin)
                self.assertIn("DELETE", p.header("Access-Control-Allow-Methods"))
                allowed = p.header("Access-Control-Allow-Headers").lower()
                for h in ("authorization", "content-type", "if-match", "idempotency-key"):
                    self.assertIn(h, allowed)
                self.assertIn("Origin", p.header("Vary") or "")

    def test_other_origins_get_nothing(self):
        for origin in (EVIL, APP + "/", APP.upper(), "null", APP + ".evil.example"):
            with self.subTest(origin=origin):
                for r in (self.rigd.get("/v1/projects", headers={"Origin": origin}),
                          preflight(self.rigd, origin)):
                    self.assertEqual(cors_headers(r), {}, r.headers)
                    # caches must still key on Origin
                    self.assertIn("Origin", r.header("Vary") or "")

    def test_bad_origin_flags_are_refused_at_start(self):
        for bad in ("*", "app.example", "https://app.example/path", "https://a.example, *"):
            with self.subTest(origin=bad):
                r = Rigd(extra_args=("--cors-origin", bad))
                try:
                    with self.assertRaises(RuntimeError):
                        r.start()
                finally:
                    r.cleanup()


if __name__ == "__main__":
    main()
