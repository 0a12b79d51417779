"""GET /v1/shots/{id}/layers/{layerId}/frames?from&to&step&format=json|f32|obj: the f32
layout of SPEC §7 decodes to the JSON route's numbers, OBJ parses back to the same vertices,
from/to/step semantics and defaults, invalid parameters, a streamed 10,000-frame range, and
evaluation errors: a 422 on the first frame, the format's terminator (JSON "error", OBJ
"# error", f32 version 2 error record) on a later one, read back by the bundled decoder
clients/rigd_frames.py. Expectations from the independent reference in test_skin_refmath.
"""
import http.client
import json
import math
import os
import struct
import subprocess
import sys

from rigd_harness import RigdTestCase, main

DECODER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients",
                       "rigd_frames.py")
sys.path.insert(0, os.path.dirname(DECODER))
import rigd_frames  # noqa: E402  the bundled decoder, found beside rigctl's sources
from test_frames_eval import hierarchy
from test_skin_refmath import (IDENTITY, Scene, ShotHelpers, apply, decode_f32, f32, fmt_frame,
                               max_diff, translate)


def parse_obj(text):
    """A tiny Wavefront OBJ reader: 'o', 'v', 'f' (and comments). Returns a list of objects
    {name, verts: [(x, y, z)], faces: [(i, j, k)] with global 1-based indices resolved}, and the
    total vertex count. Raises ValueError on anything it does not understand."""
    objects, n_verts = [], 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tag, *rest = line.split()
        if tag == "o":
            if len(rest) != 1:
                raise ValueError(f"line {lineno}: object name {rest!r}")
            objects.append({"name": rest[0], "verts": [], "faces": [], "first": n_verts + 1})
        elif tag == "v":
            if len(rest) not in (3, 4) or not objects:
                raise ValueError(f"line {lineno}: {raw!r}")
            v = tuple(float(t) for t in rest[:3])
            if not all(math.isfinite(c) for c in v):
                raise ValueError(f"line {lineno}: non-finite vertex")
            objects[-1]["verts"].append(v)
            n_verts += 1
        elif tag == "f":
            if len(rest) != 3 or not objects:
                raise ValueError(f"line {lineno}: {raw!r}")
            idx = []
            for tok in rest:
                i = int(tok.split("/")[0])
                i = i if i > 0 else n_verts + 1 + i
                if not 1 <= i <= n_verts:
                    raise ValueError(f"line {lineno}: index {i} outside 1..{n_verts}")
                idx.append(i)
            objects[-1]["faces"].append(tuple(idx))
        else:
            raise ValueError(f"line {lineno}: unknown statement {tag!r}")
    return objects, n_verts


def mirror_scene():
    """One joint whose scale.x goes 1 → −1 over frames 0..10: collapsed at 5, mirrored after."""
    s = Scene()
    s.layer("jA", position=(10, 0))
    s.keys("jA", "scale.x", [(0, 1), (10, -1)])
    s.layer("m", "mesh")
    s.skin("m", [(0, 0), (100, 0), (0, 100), (100, 100)], [(0, 1, 3), (0, 3, 2)],
           [("a", translate(10, 0))], [[("a", 1)]] * 4, {"a": "jA"})
    return s


def small_scene(n_frames):
    s = Scene()
    s.layer("root", position=(5, 5), rotation=10)
    s.layer("j1", parent="root")
    s.layer("j2", parent="root", position=(50, 0))
    s.keys("j2", "rotation", [(0, 0), (n_frames - 1, 30)])
    s.keys("j2", "position.y", [(0, 0, "hold"), (n_frames / 2, 7)])
    s.layer("small", "mesh", parent="root")
    s.skin("small", [(0, -5), (100, -5), (100, 5), (0, 5)], [(0, 1, 2), (0, 2, 3)],
           [("a", IDENTITY), ("b", translate(50, 0))],
           [[("a", 1)], [("b", 1)], [("b", 0.75), ("a", 0.25)], [("a", 1)]],
           {"a": "j1", "b": "j2"})
    return s


class RangeCase(ShotHelpers, RigdTestCase):
    def setUp(self):
        super().setUp()
        self.shot = self.rigd.make_shot("p", "s", frameStart=0, frameEnd=24)

    def range(self, layer, shot=None, headers=None, **q):
        qs = "&".join(f"{k}={v if isinstance(v, str) else fmt_frame(v)}" for k, v in q.items())
        path = f"/v1/shots/{shot or self.shot}/layers/{layer}/frames" + ("?" + qs if qs else "")
        return self.rigd.get(path, headers=headers)

    def json_range(self, layer, **q):
        r = self.range(layer, **q)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.header("Content-Type"), "application/json")
        body = r.json
        return body, [(fr["frame"], [tuple(v) for v in fr["vertices"]]) for fr in body["frames"]]


class Formats(RangeCase):
    def setUp(self):
        super().setUp()
        self.s = hierarchy()
        self.apply_ops(self.s.all_ops())

    def test_f32_range_decodes_to_the_json_route(self):
        body, frames = self.json_range("mesh", **{"from": -2.5, "to": 3, "step": 0.25})
        self.assertEqual(body["layerId"], "mesh")
        self.assertEqual(body["space"], "local")
        self.assertEqual(body["shotVersion"], 1)
        self.assertEqual(len(frames), 23)                         # floor(5.5 / 0.25) + 1
        self.assertEqual([f for f, _ in frames], [-2.5 + i * 0.25 for i in range(23)])
        for f, v in frames:
            self.assertVerts(v, self.s.evaluate("mesh", f), msg=f"frame {f}")
        r = self.range("mesh", **{"from": -2.5, "to": 3, "step": 0.25, "format": "f32"})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.header("Content-Type"), "application/octet-stream")
        version, nv, nf, bin_frames = decode_f32(r.body)
        self.assertEqual((version, nv, nf), (1, 12, 23))
        self.assertEqual(len(r.body), 16 + 23 * (8 + 8 * 12))
        for (fb, vb), (fj, vj) in zip(bin_frames, frames):
            self.assertEqual(fb, fj)
            self.assertEqual(vb, [(f32(x), f32(y)) for x, y in vj], f"frame {fj}")

    def test_json_range_equals_single_frame_route(self):
        _, frames = self.json_range("mesh", **{"from": -7.25, "to": 12, "step": 1.75})
        for f, v in frames:
            self.assertEqual(v, self.verts("mesh", f), f"frame {f}")

    def test_obj_parses_back_to_the_same_vertices(self):
        q = {"from": -1.5, "to": 2.5, "step": 0.5}
        _, frames = self.json_range("mesh", **q)
        r = self.range("mesh", format="obj", **q)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.header("Content-Type"), "model/obj")
        objects, total = parse_obj(r.body.decode("utf-8"))
        tris = self.s.skins["mesh"]["triangles"]
        self.assertEqual(len(objects), len(frames))
        self.assertEqual(total, 12 * len(frames))
        names = set()
        for obj, (f, v) in zip(objects, frames):
            self.assertTrue(obj["name"].startswith("frame_"), obj["name"])
            self.assertEqual(float(obj["name"][len("frame_"):]), f)
            names.add(obj["name"])
            self.assertEqual([(x, y) for x, y, _ in obj["verts"]], v, f"frame {f}")
            self.assertEqual({z for _, _, z in obj["verts"]}, {0.0})
            base = obj["first"]
            self.assertEqual([tuple(i - base for i in face) for face in obj["faces"]],
                             [tuple(t) for t in tris])
            for face in obj["faces"]:                       # faces use their own object's vertices
                self.assertTrue(all(base <= i < base + 12 for i in face), face)
        self.assertEqual(len(names), len(objects), "object names must be unique")

    def test_space_shot_range(self):
        _, frames = self.json_range("mesh", space="shot", **{"from": -3, "to": 3, "step": 1.5})
        for f, v in frames:
            world = self.s.world("mesh", f)
            self.assertVerts(v, [apply(world, x, y) for x, y in self.s.evaluate("mesh", f)],
                             msg=f"frame {f}")

    def test_parallel_range_is_deterministic(self):
        q = {"from": -12.5, "to": 25, "step": 0.125}
        for fmt in ("f32", "json", "obj"):
            a = self.range("mesh", format=fmt, **q)
            b = self.range("mesh", format=fmt, **q)
            self.assertEqual(a.status, 200, a)
            self.assertEqual(a.body, b.body, fmt)

    def test_range_etag(self):
        q = {"from": 0, "to": 4}
        r = self.range("mesh", **q)
        tag = r.header("ETag")
        self.assertTrue(tag, r)
        self.assertEqual(self.range("mesh", headers={"If-None-Match": tag}, **q).status, 304)
        r2 = self.range("mesh", **{"from": 0, "to": 5})
        self.assertNotEqual(r2.header("ETag"), tag)
        # f32 version 1 and version 2 are different bytes: different tags, no 304 across them
        v1 = self.range("mesh", format="f32", **q)
        v2 = self.range("mesh", format="f32", f32Version="2", **q)
        self.assertNotEqual(v1.header("ETag"), v2.header("ETag"))
        self.assertEqual(self.range("mesh", format="f32", f32Version="2",
                                    headers={"If-None-Match": v1.header("ETag")}, **q).status, 200)


class Semantics(RangeCase):
    def setUp(self):
        super().setUp()
        self.s = small_scene(100)
        self.apply_ops(self.s.all_ops())

    def frames_of(self, **q):
        _, frames = self.json_range("small", **q)
        return [f for f, _ in frames]

    def test_from_to_step(self):
        self.assertEqual(self.frames_of(**{"from": -1, "to": 1, "step": 0.25}),
                         [-1 + 0.25 * i for i in range(9)])
        self.assertEqual(self.frames_of(**{"from": 0, "to": 10, "step": 3}), [0, 3, 6, 9])
        self.assertEqual(self.frames_of(**{"from": 2.5, "to": 2.5}), [2.5])
        self.assertEqual(self.frames_of(**{"from": -3, "to": -1}), [-3, -2, -1])
        self.assertEqual(self.frames_of(**{"from": 0, "to": 1, "step": 0.375}), [0, 0.375, 0.75])

    def test_defaults_to_the_shot_range(self):
        self.assertEqual(self.frames_of(), [float(i) for i in range(25)])
        self.assertEqual(self.frames_of(**{"from": 20}), [20.0, 21.0, 22.0, 23.0, 24.0])
        self.assertEqual(self.frames_of(to=2), [0.0, 1.0, 2.0])
        self.assertEqual(self.frames_of(step=8), [0.0, 8.0, 16.0, 24.0])
        shot2 = self.rigd.make_shot("p", "s2", frameStart=-3, frameEnd=4.5)
        r = self.rigd.post(f"/v1/shots/{shot2}/edits", {"ops": self.s.all_ops()})
        self.assertEqual(r.status, 201, r)
        r = self.range("small", shot=shot2)
        self.assertEqual(r.status, 200, r)
        self.assertEqual([fr["frame"] for fr in r.json["frames"]], [float(i) for i in range(-3, 5)])

    def test_invalid_parameters(self):
        bad = [({"step": "0"}, "step"), ({"step": "-1"}, "step"), ({"step": "-0.25"}, "step"),
               ({"from": "5", "to": "4"}, "to"), ({"from": "abc"}, "from"),
               ({"to": "1x"}, "to"), ({"step": "nan"}, "step"), ({"to": "inf"}, "to"),
               ({"from": ""}, "from"), ({"format": "xml"}, "format"),
               ({"space": "camera"}, "space")]
        for q, param in bad:
            with self.subTest(q=q):
                r = self.range("small", **q)
                p = self.assertProblem(r, 400, "INVALID_QUERY")
                self.assertEqual(p.get("parameter"), param, p)
        self.assertProblem(self.range("ghost"), 404, "NOT_FOUND")
        self.assertProblem(self.range("j1"), 422, "MESH_BINDING_KIND")
        self.assertProblem(self.range("small", shot="nope"), 404, "NOT_FOUND")

    def test_values_match_reference(self):
        _, frames = self.json_range("small", **{"from": -5, "to": 120, "step": 12.5})
        for f, v in frames:
            self.assertVerts(v, self.s.evaluate("small", f), msg=f"frame {f}")


class Stream(RangeCase):
    def test_10000_frame_f32_range_streams_completely(self):
        s = small_scene(10000)
        self.apply_ops(s.all_ops())
        r = self.range("small", format="f32", **{"from": 0, "to": 9999})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(len(r.body), 16 + 10000 * (8 + 4 * 8))
        version, nv, nf, frames = decode_f32(r.body)
        self.assertEqual((version, nv, nf), (1, 4, 10000))
        self.assertEqual([f for f, _ in frames], [float(i) for i in range(10000)])
        for i in (0, 1, 2500, 4999, 5000, 7777, 9999):
            want = s.evaluate("small", float(i))
            got = frames[i][1]
            self.assertLessEqual(max_diff(got, want), 1e-4, f"frame {i}")
            self.assertEqual(got, [(f32(x), f32(y)) for x, y in self.verts("small", i)])

    def test_error_on_first_frame_is_422(self):
        s = mirror_scene()
        self.apply_ops(s.all_ops())
        for fmt in ("json", "f32", "obj"):
            with self.subTest(fmt=fmt):
                r = self.range("m", format=fmt, **{"from": 10, "to": 12})
                p = self.assertProblem(r, 422, "MESH_WINDING")
                e = p["errors"][0]
                self.assertEqual(e.get("layerId"), "m", e)
                self.assertEqual(e.get("triangleIndex"), 0, e)
                self.assertEqual(e.get("frame"), 10.0, e)
                r = self.range("m", format=fmt, **{"from": 5, "to": 6})
                e = self.assertProblem(r, 422, "MESH_COLLAPSED")["errors"][0]
                self.assertEqual(e.get("frame"), 5.0, e)

    def test_a_later_frame_ends_the_body_with_its_error(self):
        """Frames before 5 are fine, 5 collapses: a 200 stream cannot turn into a 422, so the
        body ends with the format's terminator after frames 0-4, each intact. Frames are
        evaluated in chunks of consecutive frames: from=-200 puts the failure in a later
        chunk than the first."""
        s = mirror_scene()
        self.apply_ops(s.all_ops())
        for fmt, start in (("json", 0), ("obj", 0), ("f32", 0), ("json", -200), ("obj", -200),
                           ("f32", -200)):
            with self.subTest(fmt=fmt, start=start):
                q = {"from": start, "to": 8, "format": fmt}
                if fmt == "f32":
                    q["f32Version"] = "2"
                r = self.range("m", **q)                 # a clean end: no IncompleteRead
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.header("X-Rigd-Frame-Count"), str(9 - start))
                good = self.range("m", **{**q, "to": 4})
                self.assertEqual(good.status, 200, good)
                with self.assertRaises(rigd_frames.RangeFailed) as failed:
                    rigd_frames.decode(r.body)
                e = failed.exception
                self.assertEqual(e.frame, 5.0)
                self.assertEqual(e.problem["code"], "MESH_COLLAPSED")
                self.assertEqual(e.problem["status"], 422)      # what a 422 would have said
                self.assertEqual(e.problem["errors"][0]["frame"], 5.0)
                self.assertEqual(e.problem["errors"][0]["layerId"], "m")
                self.assertIn("collapsed", e.problem["detail"])
                self.assertEqual(e.frames, rigd_frames.decode(good.body))
                self.assertEqual([f for f, _ in e.frames], list(range(start, 5)))
                if fmt == "json":
                    body = r.json                               # the whole body parses
                    self.assertEqual(list(body)[-1], "error")
                    self.assertEqual(body["error"]["frame"], 5)
                    self.assertEqual(len(body["frames"]), 5 - start)
                elif fmt == "obj":
                    after_header = good.body[good.body.index(b"\n"):]   # "<n> frames" differs
                    self.assertIn(after_header + b"# error {", r.body)
                    last = r.body.decode().rstrip("\n").split("\n")[-1]
                    self.assertTrue(last.startswith("# error {"), last)
                    self.assertEqual(r.body.count(b"# error"), 1)
                else:
                    header = struct.unpack_from("<4sIII", r.body, 0)
                    self.assertEqual(header, (b"RIGF", 2, 4, 9 - start))
                    self.assertEqual(r.body[16:len(good.body)], good.body[16:])
                    tag, length, frame = struct.unpack_from("<IId", r.body, len(good.body))
                    self.assertEqual((tag, frame), (2, 5.0))
                    self.assertEqual(len(r.body), len(good.body) + 8 + length)
                    problem = json.loads(r.body[len(good.body) + 16:])
                    self.assertEqual(problem, e.problem)

    def test_the_server_logs_a_range_that_failed_after_its_200(self):
        s = mirror_scene()
        self.apply_ops(s.all_ops())
        r = self.range("m", headers={"X-Request-Id": "range-fails-7"},
                       **{"from": 0, "to": 8, "format": "obj"})
        self.assertEqual(r.status, 200, r)
        lines = [json.loads(line) for line in self.rigd.read_log().splitlines()
                 if '"frame range failed"' in line]
        self.assertEqual(len(lines), 1, lines)
        line = lines[0]
        self.assertEqual(line["level"], "warn")
        self.assertEqual((line["shotId"], line["layerId"], line["frame"], line["code"]),
                         (self.shot, "m", 5, "MESH_COLLAPSED"))
        self.assertIn("collapsed", line["detail"])
        self.assertEqual(line["requestId"], "range-fails-7")

    def test_f32_version_1_stays_the_default_and_still_aborts(self):
        """Version 1 has no room for an error: its stream is aborted after frames 0-4 (a
        clean end would pass for a whole body); asking for version 1 is the default."""
        s = mirror_scene()
        self.apply_ops(s.all_ops())
        plain = self.range("m", **{"from": 0, "to": 4, "format": "f32"})
        one = self.range("m", **{"from": 0, "to": 4, "format": "f32", "f32Version": "1"})
        self.assertEqual(plain.body, one.body)
        self.assertEqual(decode_f32(plain.body)[0], 1)
        conn = self.rigd.connect()
        try:
            conn.request("GET", f"/v1/shots/{self.shot}/layers/m/frames?from=0&to=8&format=f32")
            resp = conn.getresponse()
            self.assertEqual(resp.status, 200)
            with self.assertRaises((http.client.IncompleteRead, ConnectionError)):
                resp.read()
        finally:
            conn.close()

    def test_f32_version_is_1_or_2_and_only_for_f32(self):
        s = mirror_scene()
        self.apply_ops(s.all_ops())
        for q in ({"format": "f32", "f32Version": "3"}, {"format": "f32", "f32Version": ""},
                  {"format": "json", "f32Version": "2"}, {"f32Version": "1"}):
            with self.subTest(q=q):
                p = self.assertProblem(self.range("m", **q), 400, "INVALID_QUERY")
                self.assertEqual(p["parameter"], "f32Version")

    def test_a_whole_version_2_range_is_frame_records_only(self):
        s = mirror_scene()
        self.apply_ops(s.all_ops())
        v1 = self.range("m", **{"from": 0, "to": 4, "step": 0.5, "format": "f32"}).body
        r = self.range("m", **{"from": 0, "to": 4, "step": 0.5, "format": "f32",
                               "f32Version": "2"})
        self.assertEqual(r.status, 200, r)
        n_verts, n_frames = struct.unpack_from("<II", r.body, 8)
        self.assertEqual((n_verts, n_frames), (4, 9))
        self.assertEqual(len(r.body), 16 + 9 * (8 + 8 + 8 * 4))
        for i in range(9):
            off = 16 + i * (16 + 8 * 4)
            self.assertEqual(struct.unpack_from("<II", r.body, off), (1, 8 + 8 * 4))
            self.assertEqual(r.body[off + 8:off + 16 + 8 * 4],
                             v1[16 + i * (8 + 8 * 4):16 + (i + 1) * (8 + 8 * 4)])
        self.assertEqual(rigd_frames.decode(r.body), rigd_frames.decode(v1))


class BundledDecoder(RangeCase):
    """clients/rigd_frames.py run on saved bodies, as a render farm would."""

    def run_decoder(self, body):
        return subprocess.run([sys.executable, DECODER, "-"], input=body, capture_output=True,
                              timeout=60)

    def test_a_failed_range_names_frame_code_and_detail_and_exits_1(self):
        s = mirror_scene()
        self.apply_ops(s.all_ops())
        for fmt in ("json", "obj", "f32"):
            with self.subTest(fmt=fmt):
                extra = "&f32Version=2" if fmt == "f32" else ""
                r = self.rigd.get(f"/v1/shots/{self.shot}/layers/m/frames"
                                  f"?from=0&to=8&format={fmt}{extra}")
                p = self.run_decoder(r.body)
                self.assertEqual(p.returncode, 1, p.stderr)
                err = p.stderr.decode()
                self.assertIn("the range failed at frame 5: MESH_COLLAPSED: triangle 0 "
                              "collapsed", err)
                self.assertEqual(p.stdout.decode().splitlines(),
                                 [f"frame {i}: 4 vertices" for i in range(5)])

    def test_a_whole_range_exits_0_and_a_cut_one_1(self):
        s = mirror_scene()
        self.apply_ops(s.all_ops())
        for fmt in ("json", "obj", "f32"):
            with self.subTest(fmt=fmt):
                r = self.rigd.get(f"/v1/shots/{self.shot}/layers/m/frames"
                                  f"?from=0&to=4&format={fmt}")
                p = self.run_decoder(r.body)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(len(p.stdout.decode().splitlines()), 5)
                p = self.run_decoder(r.body[:len(r.body) * 2 // 3])
                self.assertEqual(p.returncode, 1)
                self.assertTrue(p.stderr.startswith(b"rigd_frames: "), p.stderr)


if __name__ == "__main__":
    main()
