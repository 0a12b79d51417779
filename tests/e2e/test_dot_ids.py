"""Ids "." and ".." are invalid (issue 11, item 8).

HTTP clients remove "." and ".." path segments before sending (RFC 3986
§5.2.4), so a project, shot or layer named so could be created but never
addressed again. core/ids.c refuses exactly those two; other ids with dots
stay valid. Before the fix every create below answered 201.
"""
import socket

from rigd_harness import RigdTestCase, main

S = "s1"
E = f"/v1/shots/{S}/edits"
DOTS = (".", "..")

SKIN = {
    "source": [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 0, "y": 10}],
    "triangles": [[0, 1, 2]],
    "joints": [{"id": "j", "bind": [1, 0, 0, 1, 0, 0]}],
    "weights": [[{"jointId": "j", "weight": 1}]] * 3,
    "jointLayers": [{"jointId": "j", "layerId": "bone"}],
}


class DotIds(RigdTestCase):
    def setUp(self):
        super().setUp()
        self.rigd.make_shot("p1", S)
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "bone", "name": "Bone",
                            "kind": "group"},
                           {"op": "layer.create", "layerId": "mesh", "name": "Mesh",
                            "kind": "mesh"}])

    def raw_get(self, target):
        """GET with the target sent verbatim (no client-side normalisation)."""
        with socket.create_connection(("127.0.0.1", self.rigd.port), timeout=30) as s:
            s.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        return int(data.split(b" ", 2)[1])

    def test_projects_named_dot_are_refused(self):
        for pid in DOTS:
            with self.subTest(projectId=pid):
                body = self.assertProblem(self.rigd.post("/v1/projects",
                                                         {"projectId": pid, "name": "x"}),
                                          422, "INVALID_FIELD")
                self.assertEqual(body["errors"][0]["pointer"], "/projectId", body)
        ids = [p["projectId"] for p in self.rigd.get("/v1/projects").json["projects"]]
        self.assertEqual(ids, ["p1"])

    def test_shots_named_dot_are_refused(self):
        for sid in DOTS:
            with self.subTest(shotId=sid):
                self.assertProblem(self.rigd.post("/v1/projects/p1/shots",
                                                  {"shotId": sid, "name": "x"}),
                                   422, "INVALID_FIELD")
        shots = self.rigd.get("/v1/projects/p1/shots").json["shots"]
        self.assertEqual([s["shotId"] for s in shots], [S])

    def test_layers_and_joints_named_dot_are_refused(self):
        before = self.rigd.snapshot(S)
        for lid in DOTS:
            with self.subTest(layerId=lid):
                body = self.assertProblem(
                    self.rigd.post(E, {"ops": [{"op": "layer.create", "layerId": lid,
                                                "name": "x", "kind": "group"}]}),
                    422, "OP_INVALID")
                self.assertEqual(body["errors"][0]["pointer"], "/ops/0/layerId", body)
            with self.subTest(jointId=lid):
                skin = dict(SKIN, joints=[{"id": lid, "bind": [1, 0, 0, 1, 0, 0]}],
                            weights=[[{"jointId": lid, "weight": 1}]] * 3,
                            jointLayers=[{"jointId": lid, "layerId": "bone"}])
                r = self.rigd.post(E, {"ops": [{"op": "layer.skin", "layerId": "mesh",
                                                "skin": skin}]})
                self.assertProblem(r, 422, "SKIN_JOINTS")
            with self.subTest(lockLayer=lid):
                r = self.rigd.post(f"/v1/shots/{S}/locks", {"layerIds": [lid]})
                self.assertProblem(r, 422, "INVALID_FIELD")
        self.assertEqual(self.rigd.snapshot(S), before)

    def test_other_ids_with_dots_stay_valid(self):
        for pid in ("...", ".a", "a.", "v1.2", "..a"):
            with self.subTest(projectId=pid):
                r = self.rigd.post("/v1/projects", {"projectId": pid, "name": "x"})
                self.assertEqual(r.status, 201, r)
                self.assertEqual(self.rigd.get(f"/v1/projects/{pid}").status, 200)
        self.rigd.edit(S, [{"op": "layer.create", "layerId": "...", "name": "x",
                            "kind": "group"}])
        self.assertEqual(self.rigd.get(f"/v1/shots/{S}/layers/...").status, 200)

    def test_dot_segments_in_id_slots_are_invalid_ids(self):
        for target in ("/v1/projects/.", "/v1/projects/..", "/v1/shots/%2e",
                       "/v1/shots/%2E%2E", f"/v1/shots/{S}/layers/.."):
            with self.subTest(target=target):
                self.assertEqual(self.raw_get(target), 400)


if __name__ == "__main__":
    main()
