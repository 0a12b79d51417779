"""One frame is a light read (api/http/exchange.h, RIG_RUN_LIGHT): the I/O thread that
read the request runs it when the shot and its bindings are in the read cache and the
evaluators it needs are small (RIG_LIGHT_WORK_MAX, 2 MiB); otherwise the handler hands
it back and a worker runs it again. Either way the answer is the same. The access log's
"ranOn" field tells which thread ran each handler (matched here by X-Request-Id).
"""
import json
import time
import unittest

from rigd_harness import Rigd, RigdTestCase, main
from test_auth import AuthServer


def grid_skin(side, spacing=1.0):
    """A side × side grid bound to one joint "j" (every weight 1)."""
    src = [{"x": x * spacing, "y": y * spacing} for y in range(side) for x in range(side)]
    tris = []
    for y in range(side - 1):
        for x in range(side - 1):
            a = y * side + x
            tris += [[a, a + 1, a + side + 1], [a, a + side + 1, a + side]]
    return {"source": src, "triangles": tris,
            "joints": [{"id": "j", "bind": [1, 0, 0, 1, 0, 0]}],
            "weights": [[{"jointId": "j", "weight": 1}] for _ in src],
            "jointLayers": [{"jointId": "j", "layerId": "j"}]}


# 10 × 10 vertices: a few KiB of evaluator; 250 × 250: about 6 MiB, past the bound.
SMALL, LARGE = 10, 250


def fixture_ops():
    ops = [{"op": "layer.create", "layerId": "j", "name": "j", "kind": "group"},
           {"op": "layer.key.put", "layerId": "j", "channel": "rotation",
            "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 30}]}]
    for name, side in (("small", SMALL), ("large", LARGE)):
        ops += [{"op": "layer.create", "layerId": name, "name": name, "kind": "mesh"},
                {"op": "layer.skin", "layerId": name, "skin": grid_skin(side)}]
    return ops


def ran_on(rigd, response):
    """The "ranOn" of the access log line of response (by its X-Request-Id)."""
    rid = response.header("X-Request-Id")
    for _ in range(100):  # the line is written once the response is sent
        for line in rigd.read_log().splitlines():
            if f'"requestId":"{rid}"' in line and '"msg":"request"' in line:
                return json.loads(line).get("ranOn")
        time.sleep(0.02)
    raise AssertionError(f"no access log line for {rid}")


class LightReads(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p", "s", frameStart=0, frameEnd=10)
        self.rigd.edit("s", fixture_ops())

    def frame(self, layer, f=5, fmt="f32"):
        r = self.rigd.get(f"/v1/shots/s/frames/{f}?layers={layer}&format={fmt}")
        self.assertEqual(r.status, 200, r)
        return r

    def test_a_small_cached_frame_runs_on_the_io_thread_with_the_same_bytes(self):
        first = self.frame("small")
        self.assertEqual(ran_on(self.rigd, first), "worker")  # loading the shot: a worker
        second = self.frame("small")
        self.assertEqual(ran_on(self.rigd, second), "io")
        self.assertEqual(first.body, second.body)
        js = self.frame("small", fmt="json")
        self.assertEqual(ran_on(self.rigd, js), "io")
        self.assertEqual(len(js.json["layers"][0]["vertices"]), SMALL * SMALL)

    def test_a_large_frame_is_handed_to_a_worker_every_time(self):
        first = self.frame("large")
        second = self.frame("large")
        self.assertEqual(ran_on(self.rigd, first), "worker")
        self.assertEqual(ran_on(self.rigd, second), "worker")  # cached, but past the bound
        self.assertEqual(first.body, second.body)
        self.assertEqual(len(first.body), 24 + 8 * LARGE * LARGE)
        # Every bound layer (no ?layers): the large one's evaluator counts too.
        both = self.rigd.get("/v1/shots/s/frames/5")
        self.assertEqual(both.status, 200, both)
        self.assertEqual(ran_on(self.rigd, both), "worker")

    def test_a_new_version_is_loaded_by_a_worker_then_served_on_the_io_thread(self):
        self.frame("small")
        before = self.frame("small", f=10, fmt="json").json["layers"][0]["vertices"]
        self.rigd.edit("s", [{"op": "layer.key.put", "layerId": "j", "channel": "rotation",
                              "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 90}]}])
        after = self.frame("small", f=10, fmt="json")
        self.assertEqual(ran_on(self.rigd, after), "worker")
        again = self.frame("small", f=10, fmt="json")
        self.assertEqual(ran_on(self.rigd, again), "io")
        self.assertEqual(after.body, again.body)
        v = after.json["layers"][0]["vertices"]
        # vertex 1 is (1, 0): rotated 30° before, 90° after
        self.assertNotEqual(before[1], v[1])
        self.assertAlmostEqual(v[1][0], 0.0, places=12)
        self.assertAlmostEqual(v[1][1], 1.0, places=12)

    def test_errors_answered_on_the_io_thread_are_the_usual_problems(self):
        self.frame("small")  # cached
        r = self.rigd.get("/v1/shots/s/frames/5?layers=nope")
        self.assertProblem(r, 404, "NOT_FOUND")
        self.assertEqual(ran_on(self.rigd, r), "io")
        r = self.rigd.get("/v1/shots/s/frames/5?layers=small,large&format=f32")
        self.assertProblem(r, 400, "INVALID_QUERY")
        r = self.rigd.get("/v1/shots/s/frames/5?layers=small&version=99")
        self.assertEqual(r.status, 404, r)
        r = self.rigd.get("/v1/shots/none/frames/5")
        self.assertProblem(r, 404, "NOT_FOUND")


class HandedOnRequestsAreRateCountedOnce(unittest.TestCase):
    def test_a_frame_handed_to_a_worker_takes_one_request_of_the_rate(self):
        srv = AuthServer(extra_args=("--rate-limit", "2"))  # a burst of 4 a token
        try:
            assert srv.call("admin", "POST", "/v1/projects", {"projectId": "p", "name": "p"}).status == 201
            assert srv.call("admin", "POST", "/v1/projects/p/shots",
                            {"shotId": "s", "name": "s", "frameStart": 0, "frameEnd": 10}).status == 201
            r = srv.call("admin", "POST", "/v1/shots/s/edits", {"ops": fixture_ops()})
            self.assertEqual(r.status, 201, r)
            srv.token("reader", ["read"])
            path = "/v1/shots/s/frames/5?layers=large&format=f32"
            answers = [srv.call("reader", "GET", path) for _ in range(4)]
            # counted twice, the third would be refused
            self.assertEqual([a.status for a in answers], [200] * 4, answers)
            self.assertEqual([ran_on(srv.rigd, a) for a in answers], ["worker"] * 4)
            self.assertEqual(srv.call("reader", "GET", path).status, 429)
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
