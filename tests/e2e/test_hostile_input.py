"""Hostile input never crashes rigd and never changes data (SPEC §1, §5, §7, §10;
issue 7). Extends test_bad_input.py (none of its cases are repeated here).

Every case asserts the status, the problem code and that the shot is exactly as
before (tree, every layer with its keys, receipts, and the skin's mesh-data),
and the server answers /healthz after it. Groups:

- malformed JSON variants and trailing garbage            400 MALFORMED_JSON
- invalid UTF-8 inside strings and keys, duplicate keys   400 MALFORMED_JSON
- NaN / Infinity / -Infinity / 1e400 / -1e400 literals in every numeric field of
  layer.create, layer.pose, layer.key.put, layer.skin (and the other ops'
  numbers)                                                400 MALFORMED_JSON
- "NaN" / "Infinity" / "-Infinity" strings in the same fields  422 OP_INVALID
- wrong types in every field of every op, data-driven     422 OP_INVALID, pointer
- negative and huge indices (vertexIndex -1, 2^31, 2^63 - 1, 2^63; triangle
  index 2^40)                                             422 / 400
- 10,000- and 100,000-deep nesting in other places and on other routes  400
- 136 MiB bodies, streamed with Content-Length and chunked 413 BODY_TOO_LARGE
- 100,000 ops (about 5 MB, under the 128 MiB body limit)   413 BATCH_TOO_LARGE
  (over --max-body the same batch is 413 BODY_TOO_LARGE: test_resource_limits)
- 2,000,000 weight lists / 2,000,000 source vertices       422 SKIN_WEIGHTS /
  MESH_GEOMETRY, never a crash (time and peak RSS printed)
- 10,000-character ids in bodies, paths and headers; path traversal
- HTTP framing: conflicting Content-Length headers, header floods (1,000
  headers; a 100 KB header; a 300 KB header)              4xx or closed
- slow clients (one byte per second) under --connection-timeout 2: closed by the
  timeout while other clients keep being served
"""
import copy
import json
import re
import socket
import threading
import time

from rigd_harness import RigdTestCase, main

E = "/v1/shots/s1/edits"
SKIN = {"source": [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 0, "y": 10}],
        "triangles": [[0, 1, 2]],
        "joints": [{"id": "j", "bind": [1, 0, 0, 1, 0, 0]}],
        "weights": [[{"jointId": "j", "weight": 1}]] * 3,
        "jointLayers": [{"jointId": "j", "layerId": "arm"}]}

# One valid op of each kind against the base shot (checked with dryRun where the
# op can apply at all). Wrong-type and literal cases mutate one field of these.
BASE_OPS = {
    "layer.create": {"op": "layer.create", "layerId": "n1", "name": "N", "kind": "group",
                     "parentId": "root", "timeOffset": 0,
                     "transform": {"position": [1, 2], "rotation": 3, "scale": [1, 1],
                                   "pivot": [0, 0]}},
    "layer.delete": {"op": "layer.delete", "layerId": "spare"},
    "layer.parent": {"op": "layer.parent", "layerId": "spare", "parentId": "root"},
    "layer.rename": {"op": "layer.rename", "layerId": "arm", "name": "Arm 2"},
    "layer.pose": {"op": "layer.pose", "layerId": "arm", "frame": 2,
                   "transform": {"position": [1, 1], "rotation": 5, "scale": [1, 1],
                                 "pivot": [0, 0]},
                   "interp": "bezier", "ease": [0.25, 0.1, 0.25, 1]},
    "layer.key.put": {"op": "layer.key.put", "layerId": "arm", "channel": "rotation",
                      "keys": [{"frame": 4, "value": 1, "interp": "bezier",
                                "ease": [0.42, 0, 0.58, 1]}]},
    "layer.key.delete": {"op": "layer.key.delete", "layerId": "arm", "channel": "rotation",
                         "frames": [1]},
    "layer.skin": {"op": "layer.skin", "layerId": "m", "skin": SKIN},
    "layer.skin.bind.capture": {"op": "layer.skin.bind.capture", "layerId": "m", "frame": 0},
    "layer.skin.weights.put": {"op": "layer.skin.weights.put", "layerId": "m", "vertexIndex": 1,
                               "influences": [{"jointId": "j", "weight": 1}]},
    "layer.mesh.key.put": {"op": "layer.mesh.key.put", "layerId": "m", "frame": 0,
                           "vertices": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}]},
    "layer.deformation.rest.apply": {"op": "layer.deformation.rest.apply", "layerId": "m",
                                     "frame": 0},
}
APPLICABLE = [k for k in BASE_OPS if k not in ("layer.mesh.key.put",
                                               "layer.deformation.rest.apply")]

ID = ("id", [1, True, None, [], {}, 1.5, ["arm"]])
OPT_ID = ("id", [1, True, [], {}, ["arm"]])          # null means "none" where allowed
STR = ("string", [1, True, None, [], {}, ["x"]])
NUM = ("number", ["1", True, None, [], {}, [1]])
PAIR = ("pair", ["1,2", 1, [1], [1, 2, 3], ["1", 2], [None, 1], {}, [[1], 2]])
OBJ = ("object", ["x", 1, [], True])
ARR = ("array", ["x", 1, {}, True, None])
EASE = ("ease", ["x", [0, 0, 1], [0, 0, 1, "1"], {}, [0, 0, 1, 1, 1]])
TRANSFORM = [(("transform", "position"), PAIR), (("transform", "rotation"), NUM),
             (("transform", "scale"), PAIR), (("transform", "pivot"), PAIR),
             (("transform",), OBJ)]

# op -> [(path, (kind, wrong values))]; every field of every op
WRONG_TYPES = {
    "layer.create": [(("op",), STR), (("layerId",), OPT_ID), (("name",), STR), (("kind",), STR),
                     (("parentId",), OPT_ID), (("timeOffset",), NUM), *TRANSFORM],
    "layer.delete": [(("layerId",), ID)],
    "layer.parent": [(("layerId",), ID), (("parentId",), OPT_ID)],
    "layer.rename": [(("layerId",), ID), (("name",), STR)],
    "layer.pose": [(("layerId",), ID), (("frame",), NUM), (("interp",), STR), (("ease",), EASE),
                   *TRANSFORM],
    "layer.key.put": [(("layerId",), ID), (("channel",), STR), (("keys",), ARR),
                      (("keys", 0), ("key", [1, "x", [], None, {"frame": 4}, {"value": 1}])),
                      (("keys", 0, "frame"), NUM), (("keys", 0, "value"), NUM),
                      (("keys", 0, "interp"), STR), (("keys", 0, "ease"), EASE)],
    "layer.key.delete": [(("layerId",), ID), (("channel",), STR), (("frames",), ARR),
                         (("frames", 0), NUM)],
    "layer.skin": [(("layerId",), ID), (("skin",), ("skin", ["x", 1, [], True])),
                   (("skin", "source"), ARR), (("skin", "source", 1), ("vertex", [1, [], "x", None, {"x": 1}])),
                   (("skin", "source", 1, "x"), NUM), (("skin", "source", 1, "y"), NUM),
                   (("skin", "triangles"), ARR), (("skin", "triangles", 0), ("tri", [1, "x", {}, [0, 1]])),
                   (("skin", "triangles", 0, 2), ("index", ["2", True, None, [2], {}])),
                   (("skin", "joints"), ARR), (("skin", "joints", 0), ("joint", [1, "j", [], None])),
                   (("skin", "joints", 0, "id"), ("jointid", [1, True, None, [], {}])),
                   (("skin", "joints", 0, "bind"), ("bind", ["x", 1, {}, [1, 0, 0, 1, 0]])),
                   (("skin", "joints", 0, "bind", 3), NUM),
                   (("skin", "weights"), ARR), (("skin", "weights", 1), ("list", [1, "x", {}, None])),
                   (("skin", "weights", 1, 0), ("influence", [1, "j", [], None])),
                   (("skin", "weights", 1, 0, "jointId"), ("jointid", [1, True, None, [], {}])),
                   (("skin", "weights", 1, 0, "weight"), NUM),
                   (("skin", "jointLayers"), ARR), (("skin", "jointLayers", 0), ("map", [1, "x", [], None])),
                   (("skin", "jointLayers", 0, "jointId"), ID),
                   (("skin", "jointLayers", 0, "layerId"), ID)],
    "layer.skin.bind.capture": [(("layerId",), ID), (("frame",), NUM)],
    "layer.skin.weights.put": [(("layerId",), ID),
                               (("vertexIndex",), ("index", ["1", True, None, [1], {}, 1.5])),
                               (("influences",), ARR),
                               (("influences", 0), ("influence", [1, "j", [], None])),
                               (("influences", 0, "jointId"), ID),
                               (("influences", 0, "weight"), NUM)],
    "layer.mesh.key.put": [(("layerId",), ID), (("frame",), NUM), (("vertices",), ARR)],
    "layer.deformation.rest.apply": [(("layerId",), ID), (("frame",), NUM)],
}

# Every numeric field of the ops: where the non-finite literals and strings go.
NUMERIC_FIELDS = {
    "layer.create": [("transform", "position", 0), ("transform", "position", 1),
                     ("transform", "rotation"), ("transform", "scale", 0),
                     ("transform", "scale", 1), ("transform", "pivot", 0),
                     ("transform", "pivot", 1), ("timeOffset",)],
    "layer.pose": [("frame",), ("transform", "position", 0), ("transform", "position", 1),
                   ("transform", "rotation"), ("transform", "scale", 0),
                   ("transform", "scale", 1), ("transform", "pivot", 0),
                   ("transform", "pivot", 1), ("ease", 0), ("ease", 1), ("ease", 2), ("ease", 3)],
    "layer.key.put": [("keys", 0, "frame"), ("keys", 0, "value"), ("keys", 0, "ease", 0),
                      ("keys", 0, "ease", 1), ("keys", 0, "ease", 2), ("keys", 0, "ease", 3)],
    "layer.skin": [("skin", "source", 1, "x"), ("skin", "source", 1, "y"),
                   *[("skin", "joints", 0, "bind", i) for i in range(6)],
                   ("skin", "weights", 1, 0, "weight")],
    "layer.skin.weights.put": [("vertexIndex",), ("influences", 0, "weight")],
    "layer.skin.bind.capture": [("frame",)],
    "layer.key.delete": [("frames", 0)],
}
LITERALS = [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400", b"nan", b"inf"]
STRINGS = ["NaN", "Infinity", "-Infinity", "nan", "1e400"]

CASES = {}  # group -> number of cases run


def set_path(doc, path, value):
    for p in path[:-1]:
        doc = doc[p]
    doc[path[-1]] = value


def pointer(path):
    return "/ops/0/" + "/".join(str(p) for p in path)


def within(ptr, path):
    """ptr names the mutated field, an element that contains it (at least the op's
    field) or a member inside the mutated value (a key missing its "value")."""
    want = pointer(path).split("/")
    got = ptr.split("/")
    return len(got) >= 4 and (got == want[:len(got)] or want == got[:len(want)])


def rss_kb(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out


def raw_http(port, data, timeout=10, read_all=False):
    """Sends raw bytes; returns (status or None, response bytes, closed)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    out, closed = b"", False
    try:
        try:
            s.sendall(data)
        except OSError:
            pass
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except OSError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            out += chunk
            head, sep, rest = out.partition(b"\r\n\r\n")
            if sep and not read_all:
                m = re.search(rb"content-length:\s*(\d+)", head, re.I)
                if m and len(rest) >= int(m.group(1)):
                    break
    finally:
        s.close()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", out)
    return (int(m.group(1)) if m else None), out, closed


def problem_of(raw):
    head, _, rest = raw.partition(b"\r\n\r\n")
    try:
        return json.loads(rest)
    except ValueError:
        return {}


class HostileBase(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", "s1")
        self.rigd.edit("s1", [
            {"op": "layer.create", "layerId": "root", "name": "Root", "kind": "group"},
            {"op": "layer.create", "layerId": "arm", "name": "Arm", "kind": "group",
             "parentId": "root"},
            {"op": "layer.create", "layerId": "spare", "name": "Spare", "kind": "group"},
            {"op": "layer.create", "layerId": "m", "name": "M", "kind": "mesh",
             "parentId": "root"},
            {"op": "layer.pose", "layerId": "arm", "frame": 1, "transform": {"rotation": 3}},
            {"op": "layer.skin", "layerId": "m", "skin": SKIN},
        ])
        self.before = self.snapshot()
        self.count = 0

    def tearDown(self):
        try:
            self.assertEqual(self.rigd.get("/healthz").status, 200)
            self.assertEqual(self.snapshot(), self.before)
            group = type(self).__name__ + "." + self._testMethodName
            CASES[group] = self.count
        finally:
            super().tearDown()

    def snapshot(self):
        snap = self.rigd.snapshot("s1")
        for kind in ("vertices", "weights", "joints", "triangles"):
            r = self.rigd.get(f"/v1/shots/s1/layers/m/mesh-data/{kind}")
            snap[kind] = r.json["items"] if r.status == 200 else r.status
        snap["projects"] = self.rigd.get("/v1/projects").json
        return snap

    def unchanged(self):
        self.assertEqual(self.rigd.get("/healthz").status, 200, "the server died")
        self.assertEqual(self.snapshot(), self.before, "the shot changed")

    def expect(self, r, status, code, path=None):
        """One case: status, code, (the pointer), the shot unchanged, the server alive."""
        self.count += 1
        body = self.assertProblem(r, status, code)
        if path is not None:
            ptrs = [e.get("pointer", "") for e in body.get("errors", [])]
            self.assertTrue(any(within(p, path) for p in ptrs),
                            f"no error points at {pointer(path)}: {ptrs}")
        self.unchanged()
        return body

    def raw(self, data, path=E, **kw):
        return self.rigd.post(path, raw=data, **kw)

    def ops_body(self, *ops):
        return json.dumps({"ops": list(ops)}).encode()


class MalformedJson(HostileBase):
    VALID = b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z"}]}'
    CASES = {
        "unterminated string": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z}]}',
        "unterminated object": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z"}]',
        "bad escape": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"\\q"}]}',
        "short unicode escape": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"\\u12"}]}',
        "raw control character in a string": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"a\x01b"}]}',
        "raw newline in a string": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"a\nb"}]}',
        "leading zero": b'{"ops":[{"op":"layer.pose","layerId":"arm","frame":01,"transform":{}}]}',
        "plus sign": b'{"ops":[{"op":"layer.pose","layerId":"arm","frame":+1,"transform":{}}]}',
        "bare fraction": b'{"ops":[{"op":"layer.pose","layerId":"arm","frame":.5,"transform":{}}]}',
        "trailing dot": b'{"ops":[{"op":"layer.pose","layerId":"arm","frame":1.,"transform":{}}]}',
        "hex number": b'{"ops":[{"op":"layer.pose","layerId":"arm","frame":0x10,"transform":{}}]}',
        "dangling exponent": b'{"ops":[{"op":"layer.pose","layerId":"arm","frame":1e,"transform":{}}]}',
        "double minus": b'{"ops":[{"op":"layer.pose","layerId":"arm","frame":--1,"transform":{}}]}',
        "block comment": b'{"ops":[/* c */{"op":"layer.rename","layerId":"arm","name":"z"}]}',
        "line comment": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z"}]} // c',
        "unquoted key": b'{ops:[{"op":"layer.rename","layerId":"arm","name":"z"}]}',
        "single-quoted value": b"{\"ops\":[{\"op\":'layer.rename',\"layerId\":\"arm\",\"name\":\"z\"}]}",
        "misspelled literal": b'{"ops":[{"op":"layer.parent","layerId":"spare","parentId":nul}]}',
        "missing colon": b'{"ops" [{"op":"layer.rename","layerId":"arm","name":"z"}]}',
        "missing comma": b'{"ops":[{"op":"layer.rename" "layerId":"arm","name":"z"}]}',
        "missing value": b'{"ops":}',
        "array closed by brace": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z"}}}',
        "whitespace only": b" \n\t ",
        "byte order mark only": b"\xef\xbb\xbf",
        "trailing brace": VALID + b"}",
        "trailing bracket": VALID + b"]",
        "trailing comma": VALID + b",",
        "trailing object": VALID + b"{}",
        "trailing string": VALID + b'"x"',
        "trailing number": VALID + b" 1",
        "trailing comment": VALID + b"/* c */",
        "trailing 0xff": VALID + b"\xff",
        "trailing nul bytes": VALID + b"\x00\x00\x00",
        "trailing request": VALID + b"\r\n\r\nGET /v1/limits HTTP/1.1\r\nHost: x\r\n\r\n",
    }

    def test_malformed_json_variants_are_400(self):
        for name, data in self.CASES.items():
            with self.subTest(case=name):
                self.expect(self.raw(data), 400, "MALFORMED_JSON")


class Utf8AndDuplicates(HostileBase):
    OP = b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z"}]}'
    INVALID_UTF8 = {
        "0xff in layerId": b'{"ops":[{"op":"layer.rename","layerId":"a\xffm","name":"z"}]}',
        "0xff in the op name": b'{"ops":[{"op":"layer.ren\xffame","layerId":"arm","name":"z"}]}',
        "truncated 2-byte at the end of a string": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z\xc3"}]}',
        "truncated 3-byte": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"\xe2\x82"}]}',
        "lone continuation byte": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"\x80"}]}',
        "code point above U+10FFFF": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"\xf4\x90\x80\x80"}]}',
        "5-byte sequence": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"\xf8\x88\x80\x80\x80"}]}',
        "overlong nul": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"\xc0\x80"}]}',
        "lone low surrogate escape": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"\\udc00"}]}',
        "reversed surrogate pair escape": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"\\udc00\\ud800"}]}',
        "0xff in a transform key": b'{"ops":[{"op":"layer.pose","layerId":"arm","transform":{"rot\xffation":1}}]}',
        "0xfe in a top-level key": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z"}],"\xfe":1}',
        "0xff in a skin jointId": json.dumps({"ops": [BASE_OPS["layer.skin"]]}).encode().replace(
            b'"jointId": "j"', b'"jointId": "j\xff"', 1),
        "0xff in a key's interp": b'{"ops":[{"op":"layer.key.put","layerId":"arm","channel":"rotation","keys":[{"frame":1,"value":1,"interp":"lin\xffear"}]}]}',
        "0xff in channel": b'{"ops":[{"op":"layer.key.delete","layerId":"arm","channel":"rot\xff","frames":[1]}]}',
        "latin-1 body": '{"ops":[{"op":"layer.rename","layerId":"arm","name":"caf\u00e9"}]}'.encode("latin-1"),
        "utf-16 body": '{"ops":[{"op":"layer.rename","layerId":"arm","name":"z"}]}'.encode("utf-16"),
    }
    DUPLICATES = {
        "in a transform": b'{"ops":[{"op":"layer.pose","layerId":"arm","transform":{"rotation":1,"rotation":2}}]}',
        "in a skin source vertex": json.dumps({"ops": [BASE_OPS["layer.skin"]]}).encode().replace(
            b'{"x": 10, "y": 0}', b'{"x": 10, "x": 11, "y": 0}', 1),
        "in a key": b'{"ops":[{"op":"layer.key.put","layerId":"arm","channel":"rotation","keys":[{"frame":1,"value":1,"frame":2}]}]}',
        "in an influence": b'{"ops":[{"op":"layer.skin.weights.put","layerId":"m","vertexIndex":1,"influences":[{"jointId":"j","weight":1,"weight":1}]}]}',
        "in a jointLayers entry": json.dumps({"ops": [BASE_OPS["layer.skin"]]}).encode().replace(
            b'"layerId": "arm"}', b'"layerId": "arm", "layerId": "root"}', 1),
        "expectedVersion twice": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z"}],"expectedVersion":1,"expectedVersion":1}',
        "op twice": b'{"ops":[{"op":"layer.rename","op":"layer.delete","layerId":"arm","name":"z"}]}',
        "spelled with an escape": b'{"ops":[{"op":"layer.rename","layerId":"arm","name":"z","na\\u006de":"y"}]}',
    }

    def test_invalid_utf8_in_strings_and_keys(self):
        for name, data in self.INVALID_UTF8.items():
            with self.subTest(case=name):
                self.expect(self.raw(data), 400, "MALFORMED_JSON")

    def test_duplicate_keys(self):
        for name, data in self.DUPLICATES.items():
            with self.subTest(case=name):
                self.expect(self.raw(data), 400, "MALFORMED_JSON")


class NonFiniteNumbers(HostileBase):
    def test_base_ops_are_valid(self):
        # the mutations below break exactly one field of an op that is otherwise fine
        for name in APPLICABLE:
            with self.subTest(op=name):
                r = self.rigd.post(E + "?dryRun=true", {"ops": [BASE_OPS[name]]})
                self.assertEqual(r.status, 200, r)

    def test_non_finite_literals_in_every_numeric_field(self):
        for name, paths in NUMERIC_FIELDS.items():
            for path in paths:
                for lit in LITERALS:
                    with self.subTest(op=name, field=pointer(path), literal=lit):
                        op = copy.deepcopy(BASE_OPS[name])
                        set_path(op, path, "@@LITERAL@@")
                        data = self.ops_body(op).replace(b'"@@LITERAL@@"', lit)
                        self.expect(self.raw(data), 400, "MALFORMED_JSON")

    def test_non_finite_strings_in_every_numeric_field(self):
        for name, paths in NUMERIC_FIELDS.items():
            for path in paths:
                for text in STRINGS:
                    with self.subTest(op=name, field=pointer(path), string=text):
                        op = copy.deepcopy(BASE_OPS[name])
                        set_path(op, path, text)
                        self.expect(self.rigd.post(E, {"ops": [op]}), 422, "OP_INVALID", path)


class WrongTypes(HostileBase):
    def test_wrong_types_in_every_field_of_every_op(self):
        self.assertEqual(set(WRONG_TYPES), set(BASE_OPS))
        for name, fields in WRONG_TYPES.items():
            for path, (kind, values) in fields:
                for value in values:
                    with self.subTest(op=name, field=pointer(path), value=value):
                        op = copy.deepcopy(BASE_OPS[name])
                        set_path(op, path, value)
                        r = self.rigd.post(E, {"ops": [op]})
                        if path == ("op",):
                            self.expect(r, 422, "OP_INVALID", ("op",))
                        else:
                            self.expect(r, 422, "OP_INVALID", path)

    def test_wrong_types_in_the_envelope(self):
        rename = BASE_OPS["layer.rename"]
        cases = [({"ops": {}}, "/ops"), ({"ops": 1}, "/ops"), ({"ops": None}, "/ops"),
                 ({"ops": []}, "/ops"), ({"ops": [1]}, "/ops/0"), ({"ops": [None]}, "/ops/0"),
                 ({"ops": [[rename]]}, "/ops/0"), ({"ops": [{}]}, "/ops/0"),
                 ({"ops": [rename], "expectedVersion": -1}, "/expectedVersion"),
                 ({"ops": [rename], "expectedVersion": 1.5}, "/expectedVersion"),
                 ({"ops": [rename], "expectedVersion": None}, "/expectedVersion"),
                 ({"ops": [rename], "expectedVersion": [1]}, "/expectedVersion"),
                 ({"ops": [rename], "lockId": 1, "fencingToken": 1}, "/lockId"),
                 ({"ops": [rename], "lockId": "l-1", "fencingToken": "1"}, "/fencingToken"),
                 ({"ops": [rename], "lockId": "l-1", "fencingToken": 0}, "/fencingToken"),
                 ({"ops": [rename], "lockId": "l-1"}, "/fencingToken"),
                 ({"ops": [rename], "Ops": []}, "/Ops")]
        for body, ptr in cases:
            with self.subTest(body=body):
                p = self.expect(self.rigd.post(E, body), 422, "OP_INVALID")
                ptrs = [e.get("pointer", "") for e in p["errors"]]
                self.assertTrue(any(q == ptr or q.startswith(ptr + "/") for q in ptrs),
                                f"no error points at {ptr}: {ptrs}")


class Indices(HostileBase):
    def weights_put(self, raw_index):
        return b'{"ops":[{"op":"layer.skin.weights.put","layerId":"m","vertexIndex":' + raw_index \
            + b',"influences":[{"jointId":"j","weight":1}]}]}'

    def test_negative_and_huge_vertex_indices(self):
        for text in (b"-1", b"2147483648", b"4294967296", b"9223372036854775807", b"1.5",
                     b"-9223372036854775808"):
            with self.subTest(vertexIndex=text):
                self.expect(self.raw(self.weights_put(text)), 422, "OP_INVALID", ("vertexIndex",))
        for text in (b"3", b"2147483647"):
            with self.subTest(vertexIndex=text):
                self.expect(self.raw(self.weights_put(text)), 422, "SKIN_WEIGHT_VERTEX")
        # integers JSON parsers cannot hold are numbers out of range: malformed (as 1e400)
        for text in (b"9223372036854775808", b"-9223372036854775809", b"1" + b"0" * 30):
            with self.subTest(vertexIndex=text):
                self.expect(self.raw(self.weights_put(text)), 400, "MALFORMED_JSON")

    def test_huge_triangle_indices(self):
        for index in (2 ** 40, 2 ** 32, 2 ** 32 - 1, 3, -1, 2 ** 63 - 1):
            with self.subTest(index=index):
                op = copy.deepcopy(BASE_OPS["layer.skin"])
                op["skin"]["triangles"] = [[0, 1, index]]
                body = self.expect(self.rigd.post(E, {"ops": [op]}), 422, "MESH_TOPOLOGY",
                                   ("skin", "triangles", 0))
                self.assertEqual(body["errors"][0].get("triangleIndex"), 0, body)

    def test_huge_counts_in_pages_and_frames(self):
        base = "/v1/shots/s1/layers/m/mesh-data/vertices"
        for q in ("pageSize=-1", "pageSize=0", "pageSize=abc", "maxBytes=-5", "frame=1e400",
                  "frame=NaN", "frame=inf"):
            with self.subTest(query=q):
                self.expect(self.rigd.get(f"{base}?{q}"), 400, "INVALID_QUERY")
        for path in ("/v1/shots/s1/frames/1e400", "/v1/shots/s1/frames/NaN",
                     "/v1/shots/s1/frames/-inf",
                     "/v1/shots/s1/layers/m/frames?from=0&to=1e400",
                     "/v1/shots/s1/layers/m/frames?from=0&to=1&step=0",
                     "/v1/shots/s1/layers/m/frames?from=0&to=1&step=-1",
                     "/v1/shots/s1/layers/m/frames?from=0&to=1e300&step=1e-300"):
            with self.subTest(path=path):
                self.expect(self.rigd.get(path), 400, "INVALID_QUERY")


class DeepNesting(HostileBase):
    def test_deep_nesting_elsewhere_and_on_other_routes(self):
        for depth in (10000, 100000):
            arrays = b"[" * depth + b"]" * depth
            objects = b'{"a":' * depth + b"1" + b"}" * depth
            cases = {
                "top-level arrays": (E, arrays),
                "top-level objects": (E, objects),
                "arrays in a skin source": (E, b'{"ops":[{"op":"layer.skin","layerId":"m","skin":{"source":'
                                            + arrays + b"}}]}"),
                "objects in a key": (E, b'{"ops":[{"op":"layer.key.put","layerId":"arm","channel":"rotation","keys":['
                                     + objects + b"]}]}"),
                "arrays in an unknown field": (E, b'{"ops":[],"x":' + arrays + b"}"),
                "objects in a project": ("/v1/projects", b'{"projectId":"q","name":' + objects + b"}"),
                "arrays in a shot": ("/v1/projects/p1/shots", b'{"shotId":"q","name":"q","fps":' + arrays + b"}"),
                "arrays in a plan": ("/v1/shots/s1/plans", b'{"ops":' + arrays + b"}"),
                "objects in a lock": ("/v1/shots/s1/locks", b'{"layerIds":["arm"],"x":' + objects + b"}"),
                "arrays in map-points": ("/v1/shots/s1/layers/m/map-points", b'{"frame":0,"points":' + arrays + b"}"),
                "arrays in skin/evaluate": ("/v1/skin/evaluate", b'{"skin":' + arrays + b"}"),
            }
            for name, (path, data) in cases.items():
                with self.subTest(depth=depth, case=name):
                    self.expect(self.raw(data, path=path), 400, "MALFORMED_JSON")


class HugeBodies(HostileBase):
    def stream(self, head, total, chunked):
        """Streams a total-byte body after head from a generator (never held in memory
        whole); a reader thread collects the answer. Returns (status, raw answer, sent)."""
        s = socket.create_connection(("127.0.0.1", self.rigd.port), timeout=30)
        got = []

        def reader():
            buf = b""
            try:
                while True:
                    d = s.recv(65536)
                    if not d:
                        break
                    buf += d
                    h, sep, rest = buf.partition(b"\r\n\r\n")
                    m = re.search(rb"content-length:\s*(\d+)", h, re.I)
                    if sep and m and len(rest) >= int(m.group(1)):
                        break
            except OSError:
                pass
            got.append(buf)

        t = threading.Thread(target=reader)
        t.start()
        sent = 0
        chunk = b" " * (1 << 20)
        try:
            s.sendall(head)
            while sent < total:
                part = chunk[:total - sent]
                s.sendall(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
                sent += len(part)
            if chunked:
                s.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered early and closed: fine
        t.join(60)
        s.close()
        ans = got[0] if got else b""
        m = re.match(rb"HTTP/1\.1 (\d{3})", ans)
        return (int(m.group(1)) if m else None), ans, sent

    def test_136_mib_bodies_are_413(self):
        total = 136 * 1024 * 1024  # past the default --max-body of 128 MiB
        head = (b"POST " + E.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
        t0 = time.monotonic()
        status, ans, sent = self.stream(head + b"Content-Length: %d\r\n\r\n" % total, total, False)
        t1 = time.monotonic()
        self.count += 1
        self.assertEqual(status, 413, ans[:300])
        p = problem_of(ans)
        self.assertEqual(p.get("code"), "BODY_TOO_LARGE", ans[:300])
        self.assertEqual(p.get("maxBodyBytes"), 128 << 20)
        self.unchanged()
        status, ans, sent2 = self.stream(head + b"Transfer-Encoding: chunked\r\n\r\n", total, True)
        t2 = time.monotonic()
        self.count += 1
        self.assertEqual(status, 413, ans[:300])
        self.assertEqual(problem_of(ans).get("code"), "BODY_TOO_LARGE")
        self.unchanged()
        mem = rss_kb(self.rigd.proc.pid)
        print(f"\n136 MiB body: Content-Length answered after {sent / 1e6:.0f} MB sent in "
              f"{(t1 - t0) * 1e3:.0f} ms; chunked answered after {sent2 / 1e6:.0f} MB in "
              f"{(t2 - t1) * 1e3:.0f} ms; rigd VmHWM {mem['VmHWM'] / 1024:.0f} MB", flush=True)
        self.assertLess(mem["VmHWM"], 512 * 1024, "a refused body must not be held in memory")

    def test_100000_ops_is_413_batch_too_large(self):
        ops = b",".join([b'{"op":"layer.rename","layerId":"arm","name":"x"}'] * 100000)
        data = b'{"ops":[' + ops + b"]}"
        self.assertLess(len(data), 128 << 20)  # under the body limit: the op limit answers
        body = self.expect(self.raw(data), 413, "BATCH_TOO_LARGE")
        self.assertEqual(body["opCount"], 100000)
        self.assertEqual(body["maxOpsPerBatch"], 10000)
        # the same under an idempotency key is not recorded: a fixed retry applies
        r = self.rigd.post(E, raw=data, headers={"Idempotency-Key": "big-1"})
        self.expect(r, 413, "BATCH_TOO_LARGE")

    def test_2000000_weights_and_vertices_are_rejected_cleanly(self):
        head = (b'{"ops":[{"op":"layer.skin","layerId":"m","skin":{"source":[{"x":0,"y":0},'
                b'{"x":1,"y":0},{"x":0,"y":1}],"triangles":[[0,1,2]],"joints":[{"id":"j",'
                b'"bind":[1,0,0,1,0,0]}],"jointLayers":[{"jointId":"j","layerId":"arm"}],'
                b'"weights":[')
        data = head + b",".join([b'[{"jointId":"j","weight":1}]'] * 2000000) + b"]}}]}"
        t0 = time.monotonic()
        r = self.raw(data)
        t1 = time.monotonic()
        mem = rss_kb(self.rigd.proc.pid)
        print(f"\n2,000,000 weight lists ({len(data) / 1e6:.0f} MB): {r.status} "
              f"{r.json.get('code')} in {(t1 - t0):.2f}s, rigd VmHWM {mem['VmHWM'] / 1024:.0f} MB",
              flush=True)
        self.assertIn(r.status, (413, 422), r)
        self.assertIn(r.json["code"], ("SKIN_WEIGHTS", "MESH_GEOMETRY", "BODY_TOO_LARGE"), r)
        body = self.expect(r, r.status, r.json["code"])
        # an agent corrects its request from the body: a count it quotes is the real one
        with self.subTest(case="the detail quotes the real count"):
            for m in re.finditer(r"(\d+) weight lists", body["detail"]):
                self.assertEqual(int(m.group(1)), 2000000, body["detail"])
        with self.subTest(case="peak RSS"):
            self.assertLess(mem["VmHWM"], 3 * 1024 * 1024, "peak RSS over 3 GB")

        src = b",".join(b'{"x":%d,"y":%d}' % (i % 1000, i // 1000) for i in range(2000000))
        data = (b'{"ops":[{"op":"layer.skin","layerId":"m","skin":{"source":[' + src
                + b'],"triangles":[[0,1,1000]],"joints":[{"id":"j","bind":[1,0,0,1,0,0]}],'
                b'"jointLayers":[{"jointId":"j","layerId":"arm"}],"weights":[]}}]}')
        t0 = time.monotonic()
        r = self.raw(data)
        t1 = time.monotonic()
        print(f"2,000,000 source vertices ({len(data) / 1e6:.0f} MB): {r.status} "
              f"{r.json.get('code')} in {(t1 - t0):.2f}s", flush=True)
        self.expect(r, 422, "MESH_GEOMETRY", ("skin", "source"))


class LongIdsAndTraversal(HostileBase):
    LONG = "a" * 10000

    def test_10000_character_ids_in_bodies(self):
        L = self.LONG
        skin_joint = copy.deepcopy(BASE_OPS["layer.skin"])
        skin_joint["skin"]["joints"][0]["id"] = L
        skin_map = copy.deepcopy(BASE_OPS["layer.skin"])
        skin_map["skin"]["jointLayers"][0]["layerId"] = L
        cases = [
            ({"op": "layer.create", "layerId": L, "name": "x", "kind": "group"}, "OP_INVALID", ("layerId",)),
            ({"op": "layer.create", "name": "x", "kind": "group", "parentId": L}, "OP_INVALID", ("parentId",)),
            ({"op": "layer.create", "name": L, "kind": "group"}, "OP_INVALID", ("name",)),
            ({"op": "layer.create", "name": "x", "kind": L}, "OP_INVALID", ("kind",)),
            ({"op": "layer.rename", "layerId": L, "name": "x"}, "OP_INVALID", ("layerId",)),
            ({"op": "layer.key.put", "layerId": "arm", "channel": L,
              "keys": [{"frame": 1, "value": 1}]}, "OP_INVALID", ("channel",)),
            ({"op": "layer.pose", "layerId": "arm", "frame": 1, "transform": {"rotation": 1},
              "interp": L}, "OP_INVALID", ("interp",)),
            (skin_joint, "SKIN_JOINTS", ("skin", "joints", 0)),
            (skin_map, "OP_INVALID", ("skin", "jointLayers", 0, "layerId")),
        ]
        for op, code, path in cases:
            with self.subTest(op=op["op"][:40], field=pointer(path)):
                self.expect(self.rigd.post(E, {"ops": [op]}), 422, code, path)
        with self.subTest(case="op name"):
            r = self.rigd.post(E, {"ops": [{"op": L, "layerId": "arm"}]})
            self.assertIn(r.json.get("code"), ("OP_UNKNOWN", "OP_INVALID"), r)
            self.expect(r, 422, r.json["code"], ("op",))
        with self.subTest(case="project id"):
            self.expect(self.rigd.post("/v1/projects", {"projectId": L, "name": "x"}), 422,
                        "INVALID_FIELD")
        with self.subTest(case="shot id"):
            self.expect(self.rigd.post("/v1/projects/p1/shots", {"shotId": L, "name": "x"}), 422,
                        "INVALID_FIELD")
        with self.subTest(case="lock layer id"):
            self.expect(self.rigd.post("/v1/shots/s1/locks", {"layerIds": [L], "ttlSeconds": 10}),
                        422, "INVALID_FIELD")

    def test_10000_character_ids_in_paths_and_headers(self):
        L = self.LONG
        for method, path in (("GET", f"/v1/shots/{L}"), ("GET", f"/v1/projects/{L}"),
                             ("DELETE", f"/v1/projects/{L}"), ("DELETE", f"/v1/shots/{L}"),
                             ("GET", f"/v1/shots/s1/layers/{L}"), ("GET", f"/v1/receipts/{L}"),
                             ("GET", f"/v1/plans/{L}"), ("POST", f"/v1/plans/{L}/apply"),
                             ("POST", f"/v1/locks/{L}/renew"), ("DELETE", f"/v1/locks/{L}"),
                             ("POST", f"/v1/shots/{L}/edits"),
                             ("GET", f"/v1/shots/s1/layers/m/mesh-data/{L}"),
                             ("GET", f"/v1/shots/s1/layers/{L}/frames"),
                             ("GET", f"/v1/shots/s1/frames/{'1' * 10000}")):
            with self.subTest(method=method, path=path[:60]):
                self.expect(self.rigd.request(method, path, body={"ops": [BASE_OPS["layer.rename"]]}),
                            400, "INVALID_QUERY")
        with self.subTest(case="layers query"):
            self.expect(self.rigd.get(f"/v1/shots/s1/frames/1?layers={L}"), 400, "INVALID_QUERY")
        with self.subTest(case="page token"):
            self.expect(self.rigd.get(f"/v1/shots/s1/layers/m/mesh-data/vertices?pageToken={L}"),
                        400, "PAGE_TOKEN_INVALID")
        ops = {"ops": [BASE_OPS["layer.rename"]]}
        for header, code in (("Idempotency-Key", "INVALID_QUERY"), ("X-Rigd-Actor", "INVALID_QUERY"),
                             ("If-Match", "PRECONDITION_INVALID")):
            with self.subTest(header=header):
                # past the 8 KiB header-field limit the front refuses it whole
                self.expect(self.rigd.post(E, ops, headers={header: L}), 431, "HEADERS_TOO_LARGE")
                # under it, the field's own rule answers
                self.expect(self.rigd.post(E, ops, headers={header: L[:1000]}), 400, code)

    def test_path_traversal_in_ids(self):
        for path in ("/v1/shots/%2e%2e%2fetc", "/v1/shots/s1/layers/%2e%2e%2f%2e%2e%2fs1",
                     "/v1/receipts/..%2f..%2fetc%2fpasswd", "/v1/shots/%2E%2E%2F%2E%2E%2Fv1%2Flimits",
                     "/v1/shots/s1/layers/m/mesh-data/..%2fvertices",
                     "/v1/shots/..%5c..%5cetc", "/v1/shots/%252e%252e%252f",
                     "/v1/shots/..\\..\\etc", "/v1/projects/p1%2f..%2f..%2fshots"):
            with self.subTest(path=path):
                self.expect(self.rigd.get(path), 400, "INVALID_QUERY")
        # dot segments are not resolved by the server: no route, or an id slot
        # holding '.' or '..', which are not ids (tests/e2e/test_query_params.py)
        for path, status, code in (("/v1/shots/s1/../../v1/limits", 404, "NOT_FOUND"),
                                   ("/v1/shots/s1/layers/../../s1", 404, "NOT_FOUND"),
                                   ("/v1/shots/..", 400, "INVALID_QUERY"),
                                   ("/v1/shots/%2e%2e", 400, "INVALID_QUERY"),
                                   ("/v1/shots/s1/layers/..", 400, "INVALID_QUERY"),
                                   ("/v1/shots/s1/layers/%2e%2e/frames", 400, "INVALID_QUERY")):
            with self.subTest(path=path):
                self.expect(self.rigd.get(path), status, code)
        for bad in ("../etc", "..\\etc", "../../v1/limits", "%2e%2e%2f", "/etc/passwd", "a/../b"):
            with self.subTest(layerId=bad):
                self.expect(self.rigd.post(E, {"ops": [{"op": "layer.create", "layerId": bad,
                                                        "name": "x", "kind": "group"}]}),
                            422, "OP_INVALID", ("layerId",))
            with self.subTest(projectId=bad):
                self.expect(self.rigd.post("/v1/projects", {"projectId": bad, "name": "x"}), 422,
                            "INVALID_FIELD")


class HttpFraming(HostileBase):
    def batch_request(self, extra_headers=b"", body=None):
        body = body or self.ops_body({"op": "layer.create", "layerId": "flood", "name": "x",
                                      "kind": "group"})
        return (b"POST " + E.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + extra_headers + b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def refused(self, status, raw, closed, what):
        """A 4xx answer, or the connection closed without applying anything."""
        self.count += 1
        try:
            self.assertTrue((status is not None and 400 <= status < 500)
                            or (status is None and closed), f"{what}: got {raw[:120]!r}")
            self.unchanged()
        finally:
            # a case that did apply its batch is reported once, not by every later case
            self.rigd.post(E, {"ops": [{"op": "layer.delete", "layerId": "flood"}]})
            self.rigd.post(E, {"ops": [{"op": "layer.delete", "layerId": "smuggled"}]})
            self.before = self.snapshot()

    def test_header_floods(self):
        port = self.rigd.port
        flood = b"".join(b"X-Flood-%d: value-%d\r\n" % (i, i) for i in range(1000))
        with self.subTest(case="1,000 headers"):
            self.refused(*raw_http(port, self.batch_request(flood)), "1,000 headers")
        with self.subTest(case="a 100 KB header"):
            self.refused(*raw_http(port, self.batch_request(b"X-Big: " + b"a" * 100000 + b"\r\n")),
                         "a 100 KB header")
        with self.subTest(case="a 300 KB header"):
            self.refused(*raw_http(port, self.batch_request(b"X-Big: " + b"a" * 300000 + b"\r\n")),
                         "a 300 KB header")
        with self.subTest(case="a 300 KB request line"):
            self.refused(*raw_http(port, b"GET /v1/shots/s1?" + b"a" * 300000 + b" HTTP/1.1\r\n\r\n"),
                         "a 300 KB request line")

    def test_conflicting_framing_is_refused(self):
        port = self.rigd.port
        body = self.ops_body({"op": "layer.create", "layerId": "smuggled", "name": "x",
                              "kind": "group"})
        n = len(body)
        cases = {
            "two Content-Length, the real one first": b"Content-Length: %d\r\nContent-Length: 3\r\n" % n,
            "two Content-Length, the real one last": b"Content-Length: 3\r\nContent-Length: %d\r\n" % n,
            "Content-Length with Transfer-Encoding": b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n" % n,
            "negative Content-Length": b"Content-Length: -1\r\n",
            "non-numeric Content-Length": b"Content-Length: 12abc\r\n",
        }
        for name, headers in cases.items():
            with self.subTest(case=name):
                req = (b"POST " + E.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                       b"Content-Type: application/json\r\n" + headers + b"\r\n" + body)
                self.refused(*raw_http(port, req, timeout=3), name)
        # Request smuggling: for a proxy that frames by the last Content-Length this is
        # one request whose body is "{}" plus text; a server that frames by the first
        # one runs the text as a second request.
        inner = (b"POST " + E.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                 b"\r\nContent-Length: %d\r\n\r\n" % n + body)
        outer = b"{}" + inner
        req = (b"POST /v1/skin/evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: 2\r\nContent-Length: %d\r\n\r\n" % len(outer) + outer)
        with self.subTest(case="a second request smuggled behind two Content-Length"):
            status, raw, closed = raw_http(port, req, timeout=3, read_all=True)
            self.refused(status, raw, closed, "smuggling")


class SlowClients(HostileBase):
    server_args = ("--connection-timeout", "2")
    TIMEOUT = 2

    def test_slow_clients_are_closed_while_others_are_served(self):
        body = self.ops_body({"op": "layer.create", "layerId": "slow", "name": "x",
                              "kind": "group"})
        head = (b"POST " + E.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body))
        trickles = {"body at one byte per second": (head, body),
                    "headers at one byte per second": (b"", head + body),
                    "idle after connecting": None}
        limit = 3 * self.TIMEOUT  # closed by then: well past the timeout, far from done
        give_up = limit + 2
        results = {}

        def slow(name, spec):
            s = socket.create_connection(("127.0.0.1", self.rigd.port), timeout=give_up)
            t0 = time.monotonic()
            closed_at, sent, answer = None, 0, b""
            try:
                if spec is None:
                    s.settimeout(give_up)
                    try:
                        answer = s.recv(100)
                        closed_at = time.monotonic() - t0
                    except socket.timeout:
                        pass
                else:
                    prefix, trickle = spec
                    s.sendall(prefix)
                    for b in trickle:
                        if time.monotonic() - t0 > give_up:
                            break
                        try:
                            s.sendall(bytes([b]))
                            sent += 1
                        except OSError:
                            closed_at = time.monotonic() - t0
                            break
                        s.settimeout(1.0)
                        try:
                            d = s.recv(4096)
                            if not d:
                                closed_at = time.monotonic() - t0
                                break
                            answer += d
                        except socket.timeout:
                            pass
                        except OSError:
                            closed_at = time.monotonic() - t0
                            break
            finally:
                s.close()
            results[name] = (closed_at, sent, answer)

        threads = [threading.Thread(target=slow, args=(n, spec)) for n, spec in trickles.items()]
        for t in threads:
            t.start()
        latencies = []
        t_end = time.monotonic() + give_up + 0.5
        while any(t.is_alive() for t in threads) and time.monotonic() < t_end + 5:
            t0 = time.monotonic()
            for path in ("/healthz", "/v1/shots/s1", "/v1/shots/s1/frames/0?layers=m"):
                self.assertEqual(self.rigd.get(path).status, 200)
            latencies.append((time.monotonic() - t0) / 3)
            time.sleep(0.2)
        for t in threads:
            t.join(30)
        print(f"\nslow clients (--connection-timeout {self.TIMEOUT}): " + "; ".join(
            f"{n}: " + (f"closed after {c:.1f}s ({s} bytes sent)" if c is not None
                        else f"still open after {give_up}s ({s} bytes sent)")
            for n, (c, s, _) in results.items())
            + f"; {len(latencies)} normal requests meanwhile, max {max(latencies) * 1e3:.1f} ms",
            flush=True)
        self.assertLess(max(latencies), 0.5, "other clients were not served promptly")
        for name, (closed_at, sent, answer) in results.items():
            with self.subTest(case=name):
                self.count += 1
                self.assertFalse(answer.startswith(b"HTTP/1.1 2"), answer[:100])
                self.assertIsNotNone(closed_at, f"{name}: the connection was not closed within "
                                                f"{give_up}s ({sent} bytes trickled)")
                self.assertLessEqual(closed_at, limit)
        self.unchanged()


def tearDownModule():
    total = sum(CASES.values())
    print(f"\nhostile input: {total} cases, " + ", ".join(
        f"{k.split('.')[1].replace('test_', '')} {v}" for k, v in sorted(CASES.items())),
        flush=True)


if __name__ == "__main__":
    main()
