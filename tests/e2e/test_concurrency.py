"""Compare-and-swap versions under concurrency, If-Match vs expectedVersion,
ETags and If-None-Match (SPEC §6, §7; issue 3)."""
import threading

from rigd_harness import RigdTestCase, main

E = "/v1/shots/s1/edits"


def race(rigd, n, make_request):
    """Runs make_request(i, conn) in n threads released together; returns results by i."""
    barrier = threading.Barrier(n)
    results = [None] * n
    conns = [rigd.connect() for _ in range(n)]

    def run(i):
        try:
            barrier.wait(timeout=10)
            results[i] = make_request(i, conns[i])
        except Exception as e:  # recorded, asserted by the caller
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for c in conns:
        c.close()
    return results


class Concurrency(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", "s1")
        self.rigd.edit("s1", [{"op": "layer.create", "layerId": "a", "name": "a",
                               "kind": "group"}])

    def version(self):
        return self.rigd.get("/v1/shots/s1").json["version"]

    def test_racing_same_expected_version_exactly_one_wins(self):
        threads, rounds = 8, 6
        for rnd in range(rounds):
            v = self.version()

            def req(i, conn, v=v, rnd=rnd):
                return self.rigd.post(E, {"ops": [{"op": "layer.pose", "layerId": "a",
                                                   "frame": rnd, "transform": {"rotation": i}}],
                                          "expectedVersion": v}, conn=conn)

            results = race(self.rigd, threads, req)
            for res in results:
                self.assertNotIsInstance(res, Exception, res)
            winners = [r for r in results if r.status == 201]
            losers = [r for r in results if r.status != 201]
            self.assertEqual(len(winners), 1, results)
            self.assertEqual(winners[0].json["fromVersion"], v)
            self.assertEqual(winners[0].json["toVersion"], v + 1)
            for r in losers:
                body = self.assertProblem(r, 409, "VERSION_CONFLICT")
                self.assertEqual(body["currentVersion"], v + 1, body)
                self.assertEqual(body["expectedVersion"], v, body)
                # resending the same stale request cannot succeed: rebuild it
                self.assertIs(body["retryable"], False)
            self.assertEqual(self.version(), v + 1)
            # the winner's value is what is stored
            key = self.rigd.get("/v1/shots/s1/layers/a").json["keys"]["rotation"]
            winner_i = next(i for i, r in enumerate(results) if r.status == 201)
            self.assertEqual([k["value"] for k in key if k["frame"] == rnd], [float(winner_i)])
        receipts = self.rigd.get("/v1/shots/s1/receipts").json["receipts"]
        self.assertEqual(len(receipts), rounds + 1)

    def test_racing_same_if_match_exactly_one_wins_with_412(self):
        for rnd in range(3):
            v = self.version()

            def req(i, conn, v=v):
                return self.rigd.post(E, {"ops": [{"op": "layer.rename", "layerId": "a",
                                                   "name": f"n{i}"}]},
                                      headers={"If-Match": f'"{v}"'}, conn=conn)

            results = race(self.rigd, 8, req)
            for res in results:
                self.assertNotIsInstance(res, Exception, res)
            self.assertEqual(sorted(r.status for r in results), [201] + [412] * 7, results)
            for r in results:
                if r.status == 412:
                    body = self.assertProblem(r, 412, "VERSION_CONFLICT")
                    self.assertEqual(body["currentVersion"], v + 1)
            self.assertEqual(self.version(), v + 1)

    def test_if_match_412_vs_body_expected_version_409(self):
        before = self.rigd.snapshot("s1")
        ops = [{"op": "layer.rename", "layerId": "a", "name": "x"}]
        r = self.rigd.post(E, {"ops": ops}, headers={"If-Match": '"7"'})
        body = self.assertProblem(r, 412, "VERSION_CONFLICT")
        self.assertEqual(body["currentVersion"], 1)
        self.assertEqual(body["expectedVersion"], 7)
        r = self.rigd.post(E, {"ops": ops, "expectedVersion": 7})
        body = self.assertProblem(r, 409, "VERSION_CONFLICT")
        self.assertEqual(body["currentVersion"], 1)
        self.assertEqual(body["expectedVersion"], 7)
        self.assertEqual(self.rigd.snapshot("s1"), before)
        # both matching: applied
        r = self.rigd.post(E, {"ops": ops}, headers={"If-Match": '"1"'})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.header("ETag"), '"2"')
        r = self.rigd.post(E, {"ops": ops, "expectedVersion": 2})
        self.assertEqual(r.status, 201, r)
        r = self.rigd.post(E, {"ops": ops, "expectedVersion": 3}, headers={"If-Match": '"3"'})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.version(), 4)

    def test_malformed_if_match_is_400(self):
        before = self.rigd.snapshot("s1")
        ops = [{"op": "layer.rename", "layerId": "a", "name": "x"}]
        for value in ("1", '"1', '1"', "W/1", '"1" "1"'):
            with self.subTest(value=value):
                r = self.rigd.post(E, {"ops": ops}, headers={"If-Match": value})
                self.assertProblem(r, 400, "PRECONDITION_INVALID")
        # entity tags that name no version are well formed and never match (RFC 9110
        # §13.1.1, strong comparison): 412 (test_if_match.py has the rest)
        for value in ('"x"', '""', '"-1"', '"1.5"', '"99999999999999999999"', 'W/"1"'):
            with self.subTest(value=value):
                r = self.rigd.post(E, {"ops": ops}, headers={"If-Match": value})
                self.assertProblem(r, 412, "VERSION_CONFLICT")
        self.assertEqual(self.rigd.snapshot("s1"), before)

    def test_etag_and_if_none_match(self):
        r = self.rigd.get("/v1/shots/s1")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.header("ETag"), '"1"')
        nm = self.rigd.get("/v1/shots/s1", headers={"If-None-Match": '"1"'})
        self.assertEqual(nm.status, 304)
        self.assertEqual(nm.body, b"")
        self.assertEqual(nm.header("ETag"), '"1"')
        self.assertEqual(self.rigd.get("/v1/shots/s1", headers={"If-None-Match": '"0"'}).status, 200)
        self.assertEqual(self.rigd.get("/v1/shots/s1/layers/a").header("ETag"), '"1"')
        self.rigd.edit("s1", [{"op": "layer.rename", "layerId": "a", "name": "y"}])
        r = self.rigd.get("/v1/shots/s1", headers={"If-None-Match": '"1"'})
        self.assertEqual(r.status, 200)
        self.assertEqual(r.header("ETag"), '"2"')
        self.assertEqual(r.json["version"], 2)

    def test_if_none_match_uses_weak_comparison(self):
        # RFC 9110 §13.1.2: If-None-Match compares weakly, so W/"1" matches "1".
        self.assertEqual(self.rigd.get("/v1/shots/s1", headers={"If-None-Match": 'W/"1"'}).status,
                         304)

    def test_head_on_shot_returns_headers_only(self):
        # RFC 9110 §9.1: general-purpose servers support HEAD wherever GET works, so
        # editors can revalidate the version (ETag) without the body.
        r = self.rigd.request("HEAD", "/v1/shots/s1")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.header("ETag"), '"1"')
        self.assertEqual(r.body, b"")

    def test_concurrent_unconditional_batches_gapless_versions(self):
        threads, per_thread = 8, 8

        def req(i, conn):
            out = []
            for k in range(per_thread):
                out.append(self.rigd.post(E, {"ops": [
                    {"op": "layer.create", "layerId": f"t{i}-{k}", "name": "x",
                     "kind": "group", "parentId": "a"}]}, conn=conn))
            return out

        results = race(self.rigd, threads, req)
        receipts = []
        for res in results:
            self.assertNotIsInstance(res, Exception, res)
            for r in res:
                self.assertEqual(r.status, 201, r)
                receipts.append(r.json)
        n = threads * per_thread
        self.assertEqual(sorted(r["toVersion"] for r in receipts), list(range(2, n + 2)))
        for r in receipts:
            self.assertEqual(r["fromVersion"], r["toVersion"] - 1)
        self.assertEqual(len({r["receiptId"] for r in receipts}), n)
        self.assertEqual(self.version(), n + 1)
        listed = self.rigd.get("/v1/shots/s1/receipts?pageSize=1000").json["receipts"]
        self.assertEqual(len(listed), n + 1)
        self.assertEqual([r["toVersion"] for r in listed], list(range(n + 1, 0, -1)))
        self.assertEqual({r["receiptId"] for r in listed[:n]}, {r["receiptId"] for r in receipts})
        tree = self.rigd.get("/v1/shots/s1").json["layers"]
        self.assertEqual(len(tree), n + 1)

    def test_racing_different_shots_do_not_conflict(self):
        self.rigd.post("/v1/projects/p1/shots", {"shotId": "s2", "name": "s2"})

        def req(i, conn):
            shot = "s1" if i % 2 else "s2"
            return self.rigd.post(f"/v1/shots/{shot}/edits", {"ops": [
                {"op": "layer.create", "layerId": f"x{i}", "name": "x", "kind": "group"}]},
                conn=conn)

        results = race(self.rigd, 8, req)
        for r in results:
            self.assertNotIsInstance(r, Exception, r)
            self.assertEqual(r.status, 201, r)
        self.assertEqual(self.version(), 5)
        self.assertEqual(self.rigd.get("/v1/shots/s2").json["version"], 4)


if __name__ == "__main__":
    main()
