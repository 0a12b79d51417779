"""openapi.yaml stays in sync with the server.

Static checks read the sources: every route of api/app.c's table is a
documented operation and nothing else is (routes of SPEC.md that the router does
not have yet must not be documented as existing); every op name of
api/edit/op_table.c's table is one branch of the `Op` oneOf.

Live checks start the real rigd: every code of GET /v1/errors is documented in
`x-error-codes`, the `ErrorCode` enum and the error table of info.description,
with its status (and no other code is); GET /v1/limits answers exactly the
`Limits` schema's members; the server's decoder knows every documented op; the mesh-data
route answers exactly the `MeshDataKind` collections.

Stdlib only. openapi.yaml is read with PyYAML when it is installed, else with
the small block-YAML reader below (the subset openapi.yaml is written in); when
PyYAML is present the two readers are also checked against each other.
"""
import json
import os
import re
import unittest

from rigd_harness import RigdTestCase, main

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OPENAPI = os.path.join(ROOT, "openapi.yaml")
ROUTER = os.path.join(ROOT, "api", "app.c")
OPS_TABLE = os.path.join(ROOT, "api", "edit", "op_table.c")

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

try:
    import yaml  # type: ignore
except ImportError:  # a fresh Debian machine has no python3-yaml
    yaml = None


# ---- a reader for the block-YAML subset openapi.yaml is written in ----------
#
# Block mappings and sequences (indented by spaces), "- key: value" items,
# plain, 'single' and "double" (JSON-compatible) quoted scalars, flow sequences
# of scalars ([a, 'b', 3]), the empty flow mapping {}, literal block scalars
# (|, |-, |+) and full-line comments. Anything else raises ValueError with the line number.

_KEY_RE = re.compile(r"""^(?:'(?:[^']|'')*'|"(?:[^"\\]|\\.)*"|[^'"\[\]{}#&*!|>%@`\s-][^:]*?|-[^\s:][^:]*?)\s*:(?:\s+|$)""")


def _split_flow(inner):
    parts, cur, quote = [], "", None
    for ch in inner:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            cur += ch
        elif ch == ",":
            parts.append(cur)
            cur = ""
        elif ch in "[]{}":
            raise ValueError("nested flow collections are not supported")
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts]


def _scalar(text):
    s = text.strip()
    if s.startswith('"'):
        return json.loads(s)
    if s.startswith("'"):
        if not s.endswith("'") or len(s) < 2:
            raise ValueError("unterminated quoted scalar")
        return s[1:-1].replace("''", "'")
    if s.startswith("["):
        if not s.endswith("]"):
            raise ValueError("multi-line flow sequences are not supported")
        inner = s[1:-1].strip()
        return [_scalar(p) for p in _split_flow(inner)] if inner else []
    if s.startswith("{"):
        if re.fullmatch(r"\{\s*\}", s):
            return {}
        raise ValueError("flow mappings other than {} are not supported")
    s = re.sub(r"\s+#.*$", "", s)
    if s in ("", "~", "null", "Null", "NULL"):
        return None
    if s in ("true", "True", "TRUE"):
        return True
    if s in ("false", "False", "FALSE"):
        return False
    if re.fullmatch(r"[-+]?[0-9]+", s):
        return int(s)
    if re.fullmatch(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", s):
        return float(s)
    return s


class MiniYaml:
    def __init__(self, text):
        self.lines = text.split("\n")
        self.i = 0

    @staticmethod
    def load(text):
        p = MiniYaml(text)
        p._skip()
        doc = p._node(0)
        p._skip()
        if p.i < len(p.lines):
            p._fail("unexpected content")
        return doc

    def _fail(self, why):
        raise ValueError(f"openapi.yaml line {self.i + 1}: {why}")

    def _skip(self):
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            if s and not s.startswith("#"):
                return
            self.i += 1

    @staticmethod
    def _indent(line):
        return len(line) - len(line.lstrip(" "))

    @staticmethod
    def _is_item(s):
        return s == "-" or s.startswith("- ")

    def _node(self, indent):
        self._skip()
        if self.i >= len(self.lines):
            return None
        line = self.lines[self.i]
        ind = self._indent(line)
        if ind < indent:
            return None
        if self._is_item(line.strip()):
            return self._seq(ind)
        return self._map(ind)

    def _map(self, indent):
        out = {}
        while True:
            self._skip()
            if self.i >= len(self.lines):
                return out
            line = self.lines[self.i]
            ind = self._indent(line)
            s = line.strip()
            if ind < indent or (ind == indent and self._is_item(s)):
                return out
            if ind > indent:
                self._fail("unexpected indentation")
            m = _KEY_RE.match(s)
            if not m:
                self._fail("expected 'key: value'")
            key = _scalar(s[: m.end()].rstrip().rstrip(":").rstrip())
            rest = s[m.end():]
            self.i += 1
            if key in out:
                self._fail(f"duplicate key {key!r}")
            out[key] = self._value(rest, indent)

    def _seq(self, indent):
        out = []
        while True:
            self._skip()
            if self.i >= len(self.lines):
                return out
            line = self.lines[self.i]
            ind = self._indent(line)
            s = line.strip()
            if ind != indent or not self._is_item(s):
                if ind > indent:
                    self._fail("unexpected indentation")
                return out
            rest = s[1:].lstrip()
            if rest and _KEY_RE.match(rest) and not rest.startswith(("'", '"')):
                # "- key: value": a mapping whose keys sit two columns in.
                self.lines[self.i] = " " * (indent + 2) + rest
                out.append(self._map(indent + 2))
            else:
                self.i += 1
                out.append(self._value(rest, indent))

    def _value(self, rest, indent):
        rest = rest.strip()
        if rest.startswith("#"):
            rest = ""
        if rest in ("|", "|-", "|+"):
            return self._literal(rest, indent)
        if rest.startswith((">", "|", "&", "*", "!")):
            self._fail(f"unsupported YAML construct {rest[:10]!r}")
        if rest:
            return _scalar(rest)
        self._skip()
        if self.i >= len(self.lines):
            return None
        line = self.lines[self.i]
        ind = self._indent(line)
        if ind > indent or (ind == indent and self._is_item(line.strip())):
            return self._node(ind)
        return None

    def _literal(self, style, indent):
        body = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.strip() and self._indent(line) <= indent:
                break
            body.append(line)
            self.i += 1
        content = [l for l in body if l.strip()]
        if not content:
            return ""
        block = min(self._indent(l) for l in content[:1])
        text_lines = [l[block:] if l.strip() else "" for l in body]
        text = "\n".join(text_lines)
        if style == "|-":
            return text.rstrip("\n")
        if style == "|+":
            return text + "\n"
        return text.rstrip("\n") + "\n"


def load_openapi():
    with open(OPENAPI, encoding="utf-8") as f:
        text = f.read()
    if yaml is not None:
        return yaml.safe_load(text), text
    return MiniYaml.load(text), text


# ---- what the document says --------------------------------------------------

def norm_path(path):
    return re.sub(r"\{[^}]*\}", "{}", path)


def documented_operations(doc):
    ops = set()
    for path, item in (doc.get("paths") or {}).items():
        for method in item or {}:
            if method in HTTP_METHODS:
                ops.add((method.upper(), norm_path(path)))
    return ops


def op_mapping(doc):
    op = doc["components"]["schemas"]["Op"]
    return op["discriminator"]["mapping"], [b["$ref"] for b in op["oneOf"]]


def schema_at(doc, ref):
    node = doc
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def facts(doc):
    """Everything the sync checks read from the document, in plain types."""
    mapping, branches = op_mapping(doc)
    limits = doc["components"]["schemas"]["Limits"]
    return {
        "openapi": str(doc["openapi"]),
        "operations": sorted(documented_operations(doc)),
        "error_codes": {c: (v["status"], v["retryable"], v["title"])
                        for c, v in doc["x-error-codes"].items()},
        "enum": list(doc["components"]["schemas"]["ErrorCode"]["enum"]),
        "description": doc["info"]["description"],
        "op_mapping": dict(mapping),
        "op_branches": list(branches),
        "op_consts": {name: schema_at(doc, ref)["properties"]["op"]["const"]
                      for name, ref in mapping.items()},
        "limits": (sorted(limits["required"]), sorted(limits["properties"])),
    }


# ---- what the sources say -----------------------------------------------------

def router_table():
    """The rows of api/app.c's rig_routes[]: (method, pattern, query parameters).

    A row is {method, pattern, handler, quick, ...more columns}; the seventh
    column, when present, is the space-separated query parameters the route
    reads (string literals and #define'd string macros such as PAGED; NULL: none).
    """
    with open(ROUTER, encoding="utf-8") as f:
        src = f.read()
    table = re.search(r"const\s+struct\s+rig_route\s+rig_routes\[\]\s*=\s*\{(.*?)\n\};", src, re.S)
    assert table, "api/app.c: the routes[] table was not found"
    macros = {name: "".join(re.findall(r'"([^"]*)"', body))
              for name, body in re.findall(r'^#define\s+(\w+)\s+("[^\n]*)$', src, re.M)}
    rows = re.findall(r'\{\s*"([A-Z]+)"\s*,\s*"([^"]+)"\s*,\s*\w+\s*,\s*(?:true|false)\s*((?:,[^{}]*)?)\}',
                      table.group(1))
    assert rows, "api/app.c: no {method, pattern, handler, quick, ...} rows in routes[]"
    out = []
    for method, pattern, rest in rows:
        fields = [f.strip() for f in rest.split(",")[1:]]
        query = fields[2] if len(fields) > 2 else "NULL"
        text = ""
        for lit, name in re.findall(r'"([^"]*)"|(\w+)', query):
            text += lit if not name else ("" if name == "NULL" else macros[name])
        out.append((method, pattern, sorted(text.split())))
    return out


def router_routes():
    return [(m, p) for m, p, _ in router_table()]


def source_op_names():
    """The wire names of the rows of api/edit/op_table.c's rig_op_types[], then of the op
    rows binding kinds keep themselves (api/edit/*.c)."""
    with open(OPS_TABLE, encoding="utf-8") as f:
        src = f.read()
    table = re.search(r"const\s+struct\s+rig_op_type\s+rig_op_types\[\]\s*=\s*\{(.*?)\n\};",
                      src, re.S)
    assert table, "api/edit/op_table.c: the rig_op_types[] table was not found"
    names = re.findall(r'\{\s*"([a-z.]+)"\s*,\s*rig_op__\w+_decode\s*,', table.group(1))
    assert names, "api/edit/op_table.c: no rows in rig_op_types[]"
    # A binding kind may keep its ops' rows in its own row (struct rig_binding_kind.ops).
    edit = os.path.dirname(OPS_TABLE)
    for name in sorted(os.listdir(edit)):
        if name.endswith(".c") and name != "op_table.c":
            with open(os.path.join(edit, name), encoding="utf-8") as f:
                rows = re.search(r"struct\s+rig_op_type\s+\w+\[\]\s*=\s*\{(.*?)\n\};", f.read(),
                                 re.S)
            if rows:
                names += re.findall(r'\{\s*"([a-z.]+)"\s*,', rows.group(1))
    return names


# ---- static checks --------------------------------------------------------------

class OpenApiStatic(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.doc, cls.text = load_openapi()

    def test_is_openapi_3_1(self):
        self.assertRegex(str(self.doc["openapi"]), r"^3\.1\.\d+$")

    def test_every_route_is_documented(self):
        documented = documented_operations(self.doc)
        missing = [f"{m} {p}" for m, p in router_routes() if (m, p) not in documented]
        self.assertEqual(missing, [], "routes in api/app.c missing from openapi.yaml paths")

    def test_nothing_undocumented_as_existing(self):
        routes = set(router_routes())
        extra = sorted(f"{m} {p}" for m, p in documented_operations(self.doc) - routes)
        self.assertEqual(extra, [],
                         "openapi.yaml documents operations api/app.c does not route "
                         "(routes of SPEC.md that do not exist yet must stay out)")

    def test_query_parameters_match_the_routing_table(self):
        """Each operation documents exactly the query parameters its row of
        routes[] lets through (the server refuses every other one)."""
        ops = {}
        for path, item in self.doc["paths"].items():
            shared = item.get("parameters") or []
            for method, op in item.items():
                if method in HTTP_METHODS:
                    ops[(method.upper(), norm_path(path))] = shared + (op.get("parameters") or [])
        for method, pattern, query in router_table():
            with self.subTest(route=f"{method} {pattern}"):
                params = [schema_at(self.doc, p["$ref"]) if "$ref" in p else p
                          for p in ops[(method, pattern)]]
                documented = sorted(p["name"] for p in params if p["in"] == "query")
                self.assertEqual(documented, query)

    def test_every_operation_has_an_id_and_a_4xx(self):
        seen = set()
        for path, item in self.doc["paths"].items():
            for method, op in item.items():
                if method not in HTTP_METHODS:
                    continue
                where = f"{method.upper()} {path}"
                self.assertIn("operationId", op, where)
                self.assertNotIn(op["operationId"], seen, where)
                seen.add(op["operationId"])
                codes = [str(c) for c in op["responses"]]
                self.assertTrue(any(c.startswith("4") for c in codes), where)

    def test_op_oneof_matches_the_decoders_table(self):
        names = source_op_names()
        mapping, branches = op_mapping(self.doc)
        self.assertEqual(sorted(mapping), sorted(names),
                         "Op discriminator mapping vs api/edit/op_table.c rig_op_types[]")
        self.assertEqual(sorted(branches), sorted(mapping.values()),
                         "Op oneOf branches vs discriminator mapping")
        for name, ref in mapping.items():
            branch = schema_at(self.doc, ref)
            self.assertEqual(branch["properties"]["op"].get("const"), name, ref)
            self.assertIn("op", branch.get("required", []), ref)

    def test_fallback_reader_agrees_with_pyyaml(self):
        """Without PyYAML (a fresh Debian machine) the checks read openapi.yaml
        with MiniYaml: it must read the whole document exactly as PyYAML does.
        If this fails, keep openapi.yaml to the subset MiniYaml documents."""
        if yaml is None:
            self.skipTest("PyYAML not installed; the fallback reader is the only reader")
        mini = MiniYaml.load(self.text)
        self.assertEqual(facts(mini), facts(self.doc))
        self.assertEqual(mini, self.doc)


# ---- live checks against the real server -------------------------------------

class OpenApiLive(RigdTestCase):
    @classmethod
    def setUpClass(cls):
        cls.doc, _ = load_openapi()

    def test_every_error_code_is_documented_with_its_status(self):
        r = self.rigd.get("/v1/errors")
        self.assertEqual(r.status, 200, r)
        catalogue = r.json["errors"]
        self.assertTrue(catalogue)
        documented = self.doc["x-error-codes"]
        enum = self.doc["components"]["schemas"]["ErrorCode"]["enum"]
        table = self.doc["info"]["description"]
        for entry in catalogue:
            code = entry["code"]
            with self.subTest(code=code):
                self.assertIn(code, documented, "missing from x-error-codes")
                self.assertEqual(documented[code]["status"], entry["status"])
                self.assertEqual(documented[code]["retryable"], entry["retryable"])
                self.assertEqual(documented[code]["title"], entry["title"])
                self.assertIn(code, enum, "missing from components/schemas/ErrorCode enum")
                self.assertRegex(table, r"\|\s*`%s`\s*\|\s*%d\b" % (re.escape(code), entry["status"]),
                                 "missing from the error table in info.description")
        served = [e["code"] for e in catalogue]
        self.assertEqual(sorted(set(documented) - set(served)), [],
                         "x-error-codes lists codes the server does not have")
        self.assertEqual(sorted(set(enum) - set(served)), [],
                         "ErrorCode enum lists codes the server does not have")

    def test_limits_schema_matches_the_server(self):
        r = self.rigd.get("/v1/limits")
        self.assertEqual(r.status, 200, r)
        limits = self.doc["components"]["schemas"]["Limits"]
        self.assertEqual(sorted(r.json), sorted(limits["properties"]))
        self.assertEqual(sorted(r.json), sorted(limits["required"]))

    def test_the_server_knows_every_documented_op(self):
        mapping, _ = op_mapping(self.doc)
        ops = [{"op": name} for name in sorted(mapping)] + [{"op": "layer.not-an-op"}]
        r = self.rigd.post("/v1/shots/no-such-shot/edits", {"ops": ops})
        body = self.assertProblem(r, 422, "OP_INVALID")
        unknown = [e["opIndex"] for e in body["errors"] if e["code"] == "OP_UNKNOWN"]
        self.assertEqual(unknown, [len(ops) - 1], body)

    def test_mesh_data_answers_exactly_the_documented_collections(self):
        """The route's collection names are the binding kinds' rows; MeshDataKind lists them
        (the clients are built from that list), and the 400 for any other name lists them in
        the contract's order."""
        kinds = self.doc["components"]["schemas"]["MeshDataKind"]["enum"]
        r = self.rigd.get("/v1/shots/no-such-shot/layers/l/mesh-data/not-a-collection")
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertEqual(body["parameter"], "kind")
        listed = ", ".join(kinds[:-1]) + " or " + kinds[-1]
        self.assertEqual(body["detail"], "kind must be " + listed)
        for kind in kinds:
            with self.subTest(kind=kind):
                r = self.rigd.get(f"/v1/shots/no-such-shot/layers/l/mesh-data/{kind}")
                self.assertProblem(r, 404, "NOT_FOUND")  # past the kind check

if __name__ == "__main__":
    main()
