"""openapi.yaml stays in sync with the server.

Every check reads the document the real rigd serves, GET /v1/openapi.json: openapi.yaml as
converted when that rigd was built (scripts/openapi-to-json.py), so an edit of openapi.yaml counts
once rigd is rebuilt, as it is before ctest runs. It is compared with the sources and with the
server's own answers:
  - routes: every row of api/app.c's route table is a documented operation with exactly the query
    parameters the row lets through, and nothing else is documented (routes of SPEC.md that the
    router does not have yet must stay out);
  - ops: the op names of api/edit/op_table.c's table (and of the rows binding kinds keep in
    api/edit/) are the branches of the `Op` oneOf, and the server's decoder knows every one;
  - limits: GET /v1/limits answers exactly the `Limits` schema's members;
  - mesh data: the route answers exactly the `MeshDataKind` collections;
  - error codes: GET /v1/errors answers exactly `x-error-codes`. Both come from core/codes.h, the
    first compiled into rigd, the second written by scripts/gen-openapi-codes.py, whose check
    (ctest openapi_codes) also covers the `ErrorCode` enum and docs/errors.md's table: here the
    only question is whether the build ran on both.

Stdlib only.
"""
import json
import os
import re
import unittest

from rigd_harness import Rigd, main

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ROUTER = os.path.join(ROOT, "api", "app.c")
OPS_TABLE = os.path.join(ROOT, "api", "edit", "op_table.c")

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


# ---- what the document says --------------------------------------------------

def norm_path(path):
    return re.sub(r"\{[^}]*\}", "{}", path)


def operations(doc):
    """{(METHOD, normalised path): operation} of every documented operation."""
    ops = {}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in HTTP_METHODS:
                ops[(method.upper(), norm_path(path))] = (item, op)
    return ops


def schema_at(doc, ref):
    node = doc
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def op_mapping(doc):
    op = doc["components"]["schemas"]["Op"]
    return op["discriminator"]["mapping"], [b["$ref"] for b in op["oneOf"]]


# ---- what the sources say -----------------------------------------------------

def router_table():
    """The rows of api/app.c's rig_routes[]: (method, pattern, query parameters).

    A row is {method, pattern, handler, run (RIG_RUN_*), ...more columns}; the seventh
    column, when present, is the space-separated query parameters the route
    reads (string literals and #define'd string macros such as PAGED; NULL: none).
    """
    with open(ROUTER, encoding="utf-8") as f:
        src = f.read()
    table = re.search(r"const\s+struct\s+rig_route\s+rig_routes\[\]\s*=\s*\{(.*?)\n\};", src, re.S)
    assert table, "api/app.c: the routes[] table was not found"
    macros = {name: "".join(re.findall(r'"([^"]*)"', body))
              for name, body in re.findall(r'^#define\s+(\w+)\s+("[^\n]*)$', src, re.M)}
    rows = re.findall(r'\{\s*"([A-Z]+)"\s*,\s*"([^"]+)"\s*,\s*\w+\s*,\s*RIG_RUN_\w+\s*((?:,[^{}]*)?)\}',
                      table.group(1))
    assert rows, "api/app.c: no {method, pattern, handler, run, ...} rows in routes[]"
    out = []
    for method, pattern, rest in rows:
        fields = [f.strip() for f in rest.split(",")[1:]]
        query = fields[2] if len(fields) > 2 else "NULL"
        text = ""
        for lit, name in re.findall(r'"([^"]*)"|(\w+)', query):
            text += lit if not name else ("" if name == "NULL" else macros[name])
        out.append((method, pattern, sorted(text.split())))
    return out


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


# ---- the checks -----------------------------------------------------------------

class OpenApiSync(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rigd = Rigd().start()
        r = cls.rigd.get("/v1/openapi.json")
        assert r.status == 200, r
        cls.doc = json.loads(r.body)

    @classmethod
    def tearDownClass(cls):
        cls.rigd.cleanup()

    def assertProblem(self, r, status, code):
        self.assertEqual((r.status, r.json["code"]), (status, code), r)
        return r.json

    def test_every_route_is_documented_and_nothing_else(self):
        routes = {(m, p) for m, p, _ in router_table()}
        documented = set(operations(self.doc))
        self.assertEqual(sorted(f"{m} {p}" for m, p in routes - documented), [],
                         "routes in api/app.c missing from openapi.yaml paths")
        self.assertEqual(sorted(f"{m} {p}" for m, p in documented - routes), [],
                         "openapi.yaml documents operations api/app.c does not route "
                         "(routes of SPEC.md that do not exist yet must stay out)")

    def test_query_parameters_match_the_routing_table(self):
        """Each operation documents exactly the query parameters its row of
        routes[] lets through (the server refuses every other one)."""
        ops = operations(self.doc)
        for method, pattern, query in router_table():
            with self.subTest(route=f"{method} {pattern}"):
                item, op = ops[(method, pattern)]
                params = [schema_at(self.doc, p["$ref"]) if "$ref" in p else p
                          for p in (item.get("parameters") or []) + (op.get("parameters") or [])]
                self.assertEqual(sorted(p["name"] for p in params if p["in"] == "query"), query)

    def test_every_operation_has_an_id_and_a_4xx(self):
        ids = []
        for (method, path), (_, op) in operations(self.doc).items():
            with self.subTest(operation=f"{method} {path}"):
                self.assertIn("operationId", op)
                ids.append(op["operationId"])
                self.assertTrue(any(str(c).startswith("4") for c in op["responses"]))
        self.assertEqual(len(ids), len(set(ids)), "operationIds repeat")

    def test_op_oneof_matches_the_decoders_table(self):
        mapping, branches = op_mapping(self.doc)
        self.assertEqual(sorted(mapping), sorted(source_op_names()),
                         "Op discriminator mapping vs api/edit/op_table.c rig_op_types[]")
        self.assertEqual(sorted(branches), sorted(mapping.values()),
                         "Op oneOf branches vs discriminator mapping")
        for name, ref in mapping.items():
            branch = schema_at(self.doc, ref)
            self.assertEqual(branch["properties"]["op"].get("const"), name, ref)
            self.assertIn("op", branch.get("required", []), ref)

    def test_the_server_knows_every_documented_op(self):
        mapping, _ = op_mapping(self.doc)
        # one op a batch: an answer keeps at most 64 errors, fewer than the ops' together
        for name in sorted(mapping):
            r = self.rigd.post("/v1/shots/no-such-shot/edits", {"ops": [{"op": name}]})
            body = self.assertProblem(r, 422, "OP_INVALID")
            self.assertNotIn("OP_UNKNOWN", [e["code"] for e in body["errors"]], name)
        r = self.rigd.post("/v1/shots/no-such-shot/edits", {"ops": [{"op": "layer.not-an-op"}]})
        body = self.assertProblem(r, 422, "OP_UNKNOWN")

    def test_limits_schema_matches_the_server(self):
        r = self.rigd.get("/v1/limits")
        self.assertEqual(r.status, 200, r)
        limits = self.doc["components"]["schemas"]["Limits"]
        self.assertEqual(sorted(r.json), sorted(limits["properties"]))
        self.assertEqual(sorted(r.json), sorted(limits["required"]))

    def test_mesh_data_answers_exactly_the_documented_collections(self):
        """The route's collection names are the binding kinds' rows; MeshDataKind lists them
        (the clients are built from that list), and the 400 for any other name lists them in
        the contract's order."""
        kinds = self.doc["components"]["schemas"]["MeshDataKind"]["enum"]
        r = self.rigd.get("/v1/shots/no-such-shot/layers/l/mesh-data/not-a-collection")
        body = self.assertProblem(r, 400, "INVALID_QUERY")
        self.assertEqual(body["parameter"], "kind")
        self.assertEqual(body["detail"], "kind must be " + ", ".join(kinds[:-1]) + " or " + kinds[-1])
        for kind in kinds:
            with self.subTest(kind=kind):
                r = self.rigd.get(f"/v1/shots/no-such-shot/layers/l/mesh-data/{kind}")
                self.assertProblem(r, 404, "NOT_FOUND")  # past the kind check

    def test_error_codes_are_the_ones_the_server_was_built_with(self):
        r = self.rigd.get("/v1/errors")
        self.assertEqual(r.status, 200, r)
        served = [(e["code"], e["status"], e["retryable"], e["title"]) for e in r.json["errors"]]
        documented = [(code, v["status"], v["retryable"], v["title"])
                      for code, v in self.doc["x-error-codes"].items()]
        self.assertEqual(documented, served,
                         "x-error-codes is not what GET /v1/errors of this build answers: run "
                         "scripts/gen-openapi-codes.py --write and rebuild")


if __name__ == "__main__":
    main()
