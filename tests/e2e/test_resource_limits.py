"""Resource limits: documented in GET /v1/limits and enforced at and just past
each edge; memory stays bounded while a 1,000,000-vertex layer is served to 32
concurrent clients (SPEC §2, §7, §10; issue 7).

Edges: body size (--max-body 4096: 4096 bytes accepted on every write route,
plain and chunked, 4097 -> 413 BODY_TOO_LARGE), ops per batch and per plan
(10,000 -> 201, 10,001 -> 413 BATCH_TOO_LARGE; over --max-body the body limit
answers first: 413 BODY_TOO_LARGE), vertices (3 and 1,048,576 accepted, 2 and
1,048,577 -> MESH_GEOMETRY), triangles (1 and 2,097,152 / 0 and 2,097,153 ->
MESH_TOPOLOGY), joints (256 / 257 -> SKIN_JOINTS), influences (8 / 9 ->
SKIN_WEIGHTS), page size (coerced down to 10,000; 0 and negative -> 400) and
page bytes, range length (100,000 frames / 100,001 -> 400 with maxRangeFrames),
connections (--max-connections 4: four keep-alive clients work, a fifth is
answered 503 TOO_MANY_CONNECTIONS and closed, not left hanging), and the idle
connection timeout.

Memory: a 1,000 x 1,000 grid (1,000,000 vertices, 1,996,002 triangles, one
joint) is stored through one edit; a fresh rigd on that database then serves one
f32 frame to each of 32 concurrent clients, then one evaluated mesh-data page to
each of 32 more. VmRSS is sampled from /proc/<pid>/status throughout and the
peak (with VmHWM) is printed and bounded.
"""
import http.client
import json
import socket
import struct
import threading
import time
import unittest

from rigd_harness import Rigd, RigdTestCase, main

E = "/v1/shots/s1/edits"
SKIN = {"source": [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 0, "y": 10}],
        "triangles": [[0, 1, 2]],
        "joints": [{"id": "j", "bind": [1, 0, 0, 1, 0, 0]}],
        "weights": [[{"jointId": "j", "weight": 1}]] * 3,
        "jointLayers": [{"jointId": "j", "layerId": "arm"}]}
RENAME = b'{"op":"layer.rename","layerId":"arm","name":"x"}'


def status_kb(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out


def skin_body(source, triangles, weights, joints=b'[{"id":"j","bind":[1,0,0,1,0,0]}]',
              maps=b'[{"jointId":"j","layerId":"arm"}]', layer=b"m"):
    """An edit body with one layer.skin op, from already-encoded JSON pieces."""
    return (b'{"ops":[{"op":"layer.skin","layerId":"' + layer + b'","skin":{"source":[' + source
            + b'],"triangles":[' + triangles + b'],"joints":' + joints + b',"jointLayers":' + maps
            + b',"weights":[' + weights + b"]}}]}")


def grid(n):
    """Encoded source, triangles and weights of an n x n grid with one joint "j"."""
    source = b",".join(b'{"x":%d,"y":%d}' % (i % n, i // n) for i in range(n * n))
    tris = b",".join(b"[%d,%d,%d],[%d,%d,%d]" % (i, i + 1, i + n + 1, i, i + n + 1, i + n)
                     for y in range(n - 1) for i in range(y * n, y * n + n - 1))
    weights = b",".join([b'[{"jointId":"j","weight":1}]'] * (n * n))
    return source, tris, weights


class LimitsBase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", "s1")
        self.rigd.edit("s1", [
            {"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "group"},
            {"op": "layer.create", "layerId": "m", "name": "M", "kind": "mesh"},
            {"op": "layer.skin", "layerId": "m", "skin": SKIN}])

    def version(self):
        return self.rigd.get("/v1/shots/s1").json["version"]

    def dry(self, data):
        return self.rigd.post(E + "?dryRun=true", raw=data)


class DocumentedLimits(LimitsBase):
    server_args = ("--max-body", "4096", "--max-connections", "4", "--connection-timeout", "7")

    def test_limits_document_every_limit(self):
        lim = self.rigd.get("/v1/limits").json
        print(f"\nGET /v1/limits: {json.dumps(lim, sort_keys=True)}", flush=True)
        expected = {"maxBodyBytes": 4096, "maxOpsPerBatch": 10000, "minVertices": 3,
                    "maxVertices": 1048576, "minTriangles": 1, "maxTriangles": 2097152,
                    "minJoints": 1, "maxJoints": 256, "minInfluences": 1, "maxInfluences": 8,
                    "defaultPageSize": 1000, "maxPageSize": 10000, "maxRangeFrames": 100000,
                    "defaultPageBytes": 1 << 20, "maxPageBytes": 16 << 20, "maxConnections": 4,
                    "connectionTimeoutSeconds": 7}
        for key, value in expected.items():
            with self.subTest(limit=key):
                self.assertEqual(lim.get(key), value)


class BodyAndOps(LimitsBase):
    server_args = ("--max-body", "4096")

    def padded(self, doc, size):
        data = json.dumps(doc).encode()
        self.assertLessEqual(len(data), size)
        return data + b" " * (size - len(data))

    def chunked(self, data):
        s = socket.create_connection(("127.0.0.1", self.rigd.port), timeout=10)
        try:
            s.sendall(b"POST " + E.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            for i in range(0, len(data), 1000):
                part = data[i:i + 1000]
                s.sendall(b"%x\r\n%s\r\n" % (len(part), part))
            s.sendall(b"0\r\n\r\n")
            out = b""
            while b"\r\n\r\n" not in out or not out.rstrip().endswith(b"}"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        finally:
            s.close()
        return int(out[9:12]), out

    def test_body_limit_at_and_past_the_edge_on_every_write_route(self):
        routes = [
            ("/v1/projects", lambda i: {"projectId": f"q{i}", "name": "q"}, 201),
            ("/v1/projects/p1/shots", lambda i: {"shotId": f"t{i}", "name": "t"}, 201),
            (E, lambda i: {"ops": [{"op": "layer.rename", "layerId": "arm", "name": f"n{i}"}]}, 201),
            ("/v1/shots/s1/plans", lambda i: {"ops": [{"op": "layer.rename", "layerId": "arm",
                                                        "name": f"n{i}"}]}, 201),
            ("/v1/shots/s1/locks", lambda i: {"layerIds": ["arm"], "ttlSeconds": 5 + i}, 201),
            ("/v1/skin/evaluate", lambda i: {**{k: v for k, v in SKIN.items()
                                                 if k != "jointLayers"},
                                             "poses": [{"jointId": "j",
                                                        "matrix": [1, 0, 0, 1, i, 0]}]}, 200),
            ("/v1/shots/s1/layers/m/map-points", lambda i: {"frame": i, "points": [[1, 1]]}, 200),
        ]
        for i, (path, make, ok) in enumerate(routes):
            with self.subTest(route=path):
                r = self.rigd.post(path, raw=self.padded(make(i), 4096))
                self.assertEqual(r.status, ok, r)
                if path.endswith("/locks"):
                    self.rigd.delete(f"/v1/locks/{r.json['lockId']}")
                r = self.rigd.post(path, raw=self.padded(make(i + 100), 4097))
                self.assertEqual(r.status, 413, r)
                self.assertEqual(r.json["code"], "BODY_TOO_LARGE")
                self.assertEqual(r.json["maxBodyBytes"], 4096)
        v = self.version()
        status, out = self.chunked(self.padded({"ops": [{"op": "layer.rename", "layerId": "arm",
                                                         "name": "c1"}]}, 4096))
        self.assertEqual(status, 201, out[:300])
        status, out = self.chunked(self.padded({"ops": [{"op": "layer.rename", "layerId": "arm",
                                                         "name": "c2"}]}, 4097))
        self.assertEqual(status, 413, out[:300])
        self.assertEqual(self.version(), v + 1)

    def test_too_many_ops_over_the_body_limit_is_body_too_large(self):
        data = b'{"ops":[' + b",".join([RENAME] * 10001) + b"]}"
        r = self.rigd.post(E, raw=data)
        self.assertEqual(r.status, 413, r)
        self.assertEqual(r.json["code"], "BODY_TOO_LARGE", r)


class OpsPerBatch(LimitsBase):
    def test_ops_per_batch_and_per_plan(self):
        for path, ok in ((E, 201), ("/v1/shots/s1/plans", 201)):
            with self.subTest(route=path):
                v = self.version()
                r = self.rigd.post(path, raw=b'{"ops":[' + b",".join([RENAME] * 10000) + b"]}")
                self.assertEqual(r.status, ok, r)
                r = self.rigd.post(path, raw=b'{"ops":[' + b",".join([RENAME] * 10001) + b"]}")
                self.assertEqual(r.status, 413, r)
                self.assertEqual(r.json["code"], "BATCH_TOO_LARGE")
                self.assertEqual((r.json["opCount"], r.json["maxOpsPerBatch"]), (10001, 10000))
                self.assertEqual(self.version(), v + (1 if path == E else 0))


class GeometryLimits(LimitsBase):
    def test_joints_influences_vertices_triangles_at_the_edges(self):
        joints = [{"id": f"j{i}", "bind": [1, 0, 0, 1, 0, 0]} for i in range(257)]

        def skin(**kw):
            s = dict(SKIN)
            s.update(kw)
            return {"ops": [{"op": "layer.skin", "layerId": "m", "skin": s}]}

        def maps(n):
            return [{"jointId": f"j{i}", "layerId": "arm"} for i in range(n)]

        cases = [
            ("256 joints", skin(joints=joints[:256], jointLayers=maps(256),
                                weights=[[{"jointId": "j0", "weight": 1}]] * 3), None),
            ("257 joints", skin(joints=joints, jointLayers=maps(257),
                                weights=[[{"jointId": "j0", "weight": 1}]] * 3), "SKIN_JOINTS"),
            ("8 influences", skin(joints=joints[:9], jointLayers=maps(9), weights=[
                [{"jointId": f"j{i}", "weight": 0.125} for i in range(8)]] * 3), None),
            ("9 influences", skin(joints=joints[:9], jointLayers=maps(9), weights=[
                [{"jointId": f"j{i}", "weight": 0.125} for i in range(8)]
                + [{"jointId": "j8", "weight": 0.125}]] * 3), "SKIN_WEIGHTS"),
            ("2 vertices", skin(source=SKIN["source"][:2], weights=SKIN["weights"][:2],
                                triangles=[[0, 1, 0]]), "MESH_GEOMETRY"),
            ("0 triangles", skin(triangles=[]), "MESH_TOPOLOGY"),
        ]
        for name, body, code in cases:
            with self.subTest(case=name):
                r = self.rigd.post(E + "?dryRun=true", body)
                if code is None:
                    self.assertEqual(r.status, 200, r)
                else:
                    self.assertEqual((r.status, r.json["code"]), (422, code), r)

        tri = b"[0,1,2]"
        for n, code in ((2097152, None), (2097153, "MESH_TOPOLOGY")):
            with self.subTest(triangles=n):
                r = self.dry(skin_body(b'{"x":0,"y":0},{"x":1,"y":0},{"x":0,"y":1}',
                                       b",".join([tri] * n), b",".join(
                                           [b'[{"jointId":"j","weight":1}]'] * 3)))
                if code is None:
                    self.assertEqual(r.status, 200, r)
                else:
                    self.assertEqual((r.status, r.json["code"]), (422, code), r)
        for n, code in ((1048576, None), (1048577, "MESH_GEOMETRY")):
            with self.subTest(vertices=n):
                source = b'{"x":0,"y":0},{"x":1,"y":0},{"x":0,"y":1},' + b",".join(
                    b'{"x":%d,"y":%d}' % (i % 1024, 2 + i // 1024) for i in range(n - 3))
                weights = b",".join([b'[{"jointId":"j","weight":1}]'] * n)
                r = self.dry(skin_body(source, tri, weights))
                if code is None:
                    self.assertEqual(r.status, 200, r)
                else:
                    self.assertEqual((r.status, r.json["code"]), (422, code), r)
                    self.assertEqual(r.json["errors"][0]["pointer"], "/ops/0/skin/source")
        self.assertEqual(self.version(), 1)


class Ranges(LimitsBase):
    def test_range_length_at_and_past_the_edge(self):
        base = "/v1/shots/s1/layers/m/frames"
        for query, frames in (("from=0&to=99999", 100000), ("from=0&to=9999.9&step=0.1", 100000)):
            with self.subTest(query=query):
                r = self.rigd.get(f"{base}?{query}&format=f32")
                self.assertEqual(r.status, 200, r)
                self.assertEqual(struct.unpack("<4sIII", r.body[:16]), (b"RIGF", 1, 3, frames))
                self.assertEqual(len(r.body), 16 + frames * (8 + 3 * 8))
        for query in ("from=0&to=100000", "from=0&to=10000&step=0.1", "from=-50000&to=50000",
                      "from=0&to=1e15"):
            with self.subTest(query=query):
                r = self.rigd.get(f"{base}?{query}&format=f32")
                self.assertEqual((r.status, r.json["code"]), (400, "INVALID_QUERY"), r)
                self.assertEqual(r.json["maxRangeFrames"], 100000)


class Connections(LimitsBase):
    server_args = ("--max-connections", "4", "--connection-timeout", "30")

    def held_connection(self, port):
        """A working keep-alive connection. The harness's own start-up probes may still count
        against the limit until the server has seen them close (slow under ASan and a loaded
        machine), so a retryable 503 is tried again on a new connection, as a client would.
        Not /healthz: a probe is answered on a connection past the cap too, and that
        connection is then closed, so it would pass for a held one it is not."""
        for _ in range(50):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/v1/limits")
            r = c.getresponse()
            r.read()
            if r.status == 200:
                return c
            self.assertEqual((r.status, r.getheader("Retry-After")), (503, "1"))
            c.close()
            time.sleep(0.1)
        self.fail("no connection accepted within 5 s")

    def test_fifth_connection_is_refused_while_four_work(self):
        port = self.rigd.port
        held = [self.held_connection(port) for _ in range(4)]
        fifth = socket.create_connection(("127.0.0.1", port), timeout=3)
        t0 = time.monotonic()
        answer, outcome = b"", None
        try:
            # not a probe: /healthz is answered past the cap (test_edge_probes.py)
            fifth.sendall(b"GET /v1/shots/s1 HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = fifth.recv(4096)
            outcome = "closed" if not answer else "answered"
        except socket.timeout:
            outcome = "hung"
        except OSError as e:
            outcome = f"refused ({e.errno})"
        waited = time.monotonic() - t0
        # the four keep working meanwhile
        t1 = time.monotonic()
        for c in held:
            c.request("GET", "/v1/shots/s1")
            r = c.getresponse()
            r.read()
            self.assertEqual(r.status, 200)
        four_ms = (time.monotonic() - t1) * 1e3
        fifth.close()
        print(f"\n--max-connections 4: the 5th connection {outcome} after {waited:.2f}s "
              f"{answer[:40]!r}; 4 requests on the held connections meanwhile {four_ms:.1f} ms",
              flush=True)
        # one of the four leaves: a new client gets in
        held.pop().close()
        time.sleep(0.2)
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("GET", "/healthz")
        self.assertEqual(c.getresponse().status, 200)
        c.close()
        for c in held:
            c.close()
        self.assertNotEqual(outcome, "hung", "the 5th connection was neither refused nor "
                                             "answered: it waits in the backlog for a free slot")
        self.assertEqual(outcome, "answered", "the 5th connection was not answered 503")
        if outcome == "answered":
            self.assertTrue(answer.startswith(b"HTTP/1.1 503"), answer[:100])
            self.assertIn(b"TOO_MANY_CONNECTIONS", answer)


class IdleTimeout(LimitsBase):
    server_args = ("--connection-timeout", "1")

    def test_idle_connection_closed_after_the_timeout(self):
        s = socket.create_connection(("127.0.0.1", self.rigd.port), timeout=5)
        t0 = time.monotonic()
        try:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            buf = b""
            while True:
                d = s.recv(4096)
                if not d:
                    break
                buf += d
        finally:
            s.close()
        closed = time.monotonic() - t0
        self.assertTrue(buf.startswith(b"HTTP/1.1 200"), buf[:100])
        self.assertGreaterEqual(closed, 0.9)
        self.assertLess(closed, 3.0, "an idle keep-alive connection outlived the timeout")


class MillionVertexMemory(unittest.TestCase):
    N = 1000
    CLIENTS = 32

    def setUp(self):
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.cleanup()

    def test_serving_a_million_vertex_layer_to_32_clients_stays_bounded(self):
        t0 = time.monotonic()
        source, tris, weights = grid(self.N)
        body = skin_body(source, tris, weights, maps=b'[{"jointId":"j","layerId":"joint"}]')
        gen_s = time.monotonic() - t0
        up = Rigd(extra_args=["--max-body", str(256 << 20)])
        self.servers.append(up)
        up.start()
        up.make_shot("p1", "s1")
        up.edit("s1", [{"op": "layer.create", "layerId": "joint", "name": "joint", "kind": "group",
                        "transform": {"position": [5, 7]}},
                       {"op": "layer.create", "layerId": "m", "name": "m", "kind": "mesh"}])
        t1 = time.monotonic()
        r = up.post(E, raw=body)
        upload_s = time.monotonic() - t1
        self.assertEqual(r.status, 201, r)
        upload_hwm = status_kb(up.proc.pid)["VmHWM"]
        del body, source, tris, weights
        self.assertEqual(up.stop(), 0)

        # a fresh process on that database: its memory is the serving alone
        rigd = Rigd(db_path=up.db_path)
        self.servers.append(rigd)
        rigd.start()
        pid = rigd.proc.pid
        idle = status_kb(pid)["VmRSS"]

        # page size edges on the big layer
        md = "/v1/shots/s1/layers/m/mesh-data/vertices"
        for q, count, by in (("", 1000, "pageSize"), ("?pageSize=10000", 10000, "pageSize"),
                             ("?pageSize=10001", 10000, "pageSize"),
                             ("?pageSize=100000000000000000000", 10000, "pageSize"),
                             ("?maxBytes=1", 1, "maxBytes"),
                             ("?pageSize=10000&maxBytes=4096", None, "maxBytes"),
                             ("?pageSize=10000&maxBytes=100000000000", 10000, "pageSize")):
            with self.subTest(query=q):
                p = rigd.get(md + q)
                self.assertEqual(p.status, 200, p)
                if count is not None:
                    self.assertEqual(p.json["count"], count)
                self.assertEqual(p.json["limitedBy"], by)
                self.assertEqual(p.json["total"], self.N * self.N)
        for q in ("?pageSize=0", "?pageSize=-1", "?maxBytes=0", "?maxBytes=-1"):
            with self.subTest(query=q):
                p = rigd.get(md + q)
                self.assertEqual((p.status, p.json["code"]), (400, "INVALID_QUERY"), p)

        samples, stop = [], threading.Event()

        def sampler():
            while not stop.is_set():
                try:
                    samples.append(status_kb(pid)["VmRSS"])
                except OSError:
                    return
                time.sleep(0.01)

        def wave(path, check):
            barrier = threading.Barrier(self.CLIENTS)
            results = [None] * self.CLIENTS

            def client(i):
                conn = http.client.HTTPConnection("127.0.0.1", rigd.port, timeout=120)
                try:
                    barrier.wait(30)
                    t = time.monotonic()
                    conn.request("GET", path)
                    resp = conn.getresponse()
                    data = resp.read()
                    results[i] = (resp.status, time.monotonic() - t, check(data))
                except Exception as e:
                    results[i] = (None, 0, repr(e))
                finally:
                    conn.close()

            threads = [threading.Thread(target=client, args=(i,)) for i in range(self.CLIENTS)]
            tw = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            return results, time.monotonic() - tw

        n = self.N * self.N
        probe = [0, 1, 999, 1000, 500500, n - 1]

        def check_f32(data):
            if len(data) != 24 + 8 * n or struct.unpack("<4sIII", data[:16]) != (b"RIGF", 1, n, 1):
                return f"bad f32 answer of {len(data)} bytes"
            for i in probe:
                x, y = struct.unpack_from("<ff", data, 24 + 8 * i)
                if (x, y) != (i % self.N + 5, i // self.N + 7):
                    return f"vertex {i} is {(x, y)}"
            return None

        def check_page(data):
            page = json.loads(data)
            first = page["items"][0]
            if page["count"] != 10000 or (first["x"], first["y"]) != (5.0, 507.0):
                return f"page {page['count']} {first}"
            return None

        th = threading.Thread(target=sampler)
        th.start()
        frames, frames_s = wave("/v1/shots/s1/frames/0?layers=m&format=f32", check_f32)
        # evaluated pages (frame=0), each starting half way through the mesh
        token = rigd.get(md + "?frame=0&pageSize=10000&maxBytes=16777216")
        for _ in range(49):
            token = rigd.get(md + "?frame=0&pageSize=10000&maxBytes=16777216&pageToken="
                             + token.json["nextPageToken"])
        pages, pages_s = wave(md + "?frame=0&pageSize=10000&maxBytes=16777216&pageToken="
                              + token.json["nextPageToken"], check_page)
        stop.set()
        th.join()
        hwm = status_kb(pid)["VmHWM"]
        peak = max(samples)
        f_lat = sorted(l for _, l, _ in frames)
        p_lat = sorted(l for _, l, _ in pages)
        print(f"\n1,000,000-vertex grid: body generated in {gen_s:.1f}s, stored in {upload_s:.1f}s "
              f"(uploading rigd VmHWM {upload_hwm / 1024:.0f} MB)", flush=True)
        print(f"32 concurrent f32 frames (8 MB each): {frames_s:.2f}s, latency p50 "
              f"{f_lat[len(f_lat) // 2] * 1e3:.0f} ms max {f_lat[-1] * 1e3:.0f} ms; "
              f"32 concurrent evaluated mesh-data pages: {pages_s:.2f}s, max "
              f"{p_lat[-1] * 1e3:.0f} ms", flush=True)
        print(f"serving rigd RSS: idle {idle / 1024:.0f} MB, peak sampled VmRSS "
              f"{peak / 1024:.0f} MB ({len(samples)} samples), VmHWM {hwm / 1024:.0f} MB",
              flush=True)
        for name, res in (("frame", frames), ("page", pages)):
            for status, _, problem in res:
                self.assertEqual((status, problem), (200, None), name)
        self.assertLess(hwm, 3 * 1024 * 1024, "peak RSS over 3 GB while serving")


if __name__ == "__main__":
    main()
