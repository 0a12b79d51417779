"""Skin edits in pieces (issue 13 item 4), end to end through the real server and SQLite file:
GET .../layers/{layerId}/skin, layer.skin.weights.put over many vertices (normalize, one
pointer per entry), layer.skin.joint.add / .remove / .remap.

Expected vertices and weights come from the independent Python reference in
test_skin_refmath.py (and arithmetic written here), never from the server.
"""
import math

import test_skin_ops as base
from rigd_harness import main
from test_skin_refmath import IDENTITY, invert, mul, rotate, translate

TOL = 1e-9


def strip():
    return base.strip_scene()


class PiecesCase(base.SkinCase):
    def get_skin(self, layer="strip", query=""):
        r = self.rigd.get(f"/v1/shots/{self.shot}/layers/{layer}/skin{query}")
        return r

    def skin_of(self, layer="strip"):
        r = self.get_skin(layer)
        self.assertEqual(r.status, 200, r)
        return r.json

    def check_frames(self, scene, mesh="strip", frames=(0, 3, 7.5, 10, 14)):
        for f in frames:
            self.assertVerts(self.verts(mesh, f), scene.evaluate(mesh, f), msg=f"frame {f}")

    def set_scene_weights(self, scene, mesh, weights):
        """weights as GET skin answers them → the reference's list of [(jointId, w)]."""
        scene.skins[mesh]["weights"] = [[(i["jointId"], i["weight"]) for i in lst]
                                        for lst in weights]


class GetSkin(PiecesCase):
    def test_round_trip_gives_an_identical_skin(self):
        s = strip()
        self.build(s)
        got = self.skin_of()
        self.assertEqual(got["shotId"], self.shot)
        self.assertEqual(got["layerId"], "strip")
        version = got["shotVersion"]
        self.assertEqual(version, self.rigd.get(f"/v1/shots/{self.shot}").json["version"])
        # exactly the shape layer.skin takes, with the values sent
        self.assertEqual(got["skin"], s.skin_json("strip"))
        # send it back unchanged, pinned to the version it was read at
        _, r = self.post_edit([{"op": "layer.skin", "layerId": "strip", "skin": got["skin"]}],
                              expectedVersion=version)
        self.assertEqual(r.status, 201, r)
        again = self.skin_of()
        self.assertEqual(again["shotVersion"], version + 1)
        self.assertEqual(again["skin"], got["skin"])
        self.check_frames(s)

    def test_round_trip_of_an_edited_skin(self):
        s = strip()
        self.build(s)
        skin = self.skin_of()["skin"]
        skin["weights"][1] = [{"jointId": "fixed", "weight": 0.25},
                              {"jointId": "raise", "weight": 0.75}]
        self.apply_ops([{"op": "layer.skin", "layerId": "strip", "skin": skin}])
        self.assertEqual(self.skin_of()["skin"], skin)
        s.skins["strip"]["weights"][1] = [("fixed", 0.25), ("raise", 0.75)]
        self.check_frames(s)

    def test_over_max_bytes_points_to_mesh_data_paging(self):
        s = strip()
        self.build(s)
        r = self.get_skin(query="?maxBytes=100")
        self.assertEqual(r.status, 422, r)
        p = r.json
        self.assertEqual(p["code"], "RESPONSE_TOO_LARGE")
        self.assertEqual(p["maxBytes"], 100)
        self.assertEqual(p["maxPageBytes"], 16 * 1024 * 1024)
        self.assertEqual(p["layerId"], "strip")
        base_path = f"/v1/shots/{self.shot}/layers/strip/mesh-data/"
        self.assertEqual(p["pagedRoutes"],
                         [base_path + k for k in ("vertices", "triangles", "joints", "weights")])
        self.assertIn("mesh-data", p["detail"])
        self.assertIn("100", p["detail"])
        # each paged route answers
        for route in p["pagedRoutes"]:
            self.assertEqual(self.rigd.get(route).status, 200)
        # at the exact size it fits
        size = len(self.get_skin().body.split(b'"skin":', 1)[1]) - 1
        self.assertEqual(self.get_skin(query=f"?maxBytes={size}").status, 200)
        self.assertEqual(self.get_skin(query=f"?maxBytes={size - 1}").status, 422)
        # maxBytes itself is checked like mesh-data's
        for bad in ("0", "-3", "x", "1.5"):
            r = self.get_skin(query=f"?maxBytes={bad}")
            self.assertEqual(r.status, 400, r)
            self.assertEqual(r.json["code"], "INVALID_QUERY")
        self.assertEqual(self.get_skin(query="?maxBytes=99999999999").status, 200)

    def test_layers_without_a_skin(self):
        s = strip()
        s.layer("bare", "mesh")
        self.build(s)
        r = self.get_skin("bare")
        self.assertEqual(r.status, 422, r)
        self.assertEqual(r.json["code"], "MESH_BINDING_KIND")
        self.assertEqual(r.json["layerId"], "bare")
        r = self.get_skin("jFixed")
        self.assertEqual(r.status, 422, r)
        self.assertEqual(r.json["code"], "MESH_BINDING_KIND")
        r = self.get_skin("nope")
        self.assertEqual(r.status, 404, r)
        self.assertEqual(r.json["code"], "NOT_FOUND")
        r = self.rigd.get("/v1/shots/nope/layers/strip/skin")
        self.assertEqual(r.status, 404, r)

    def test_etag(self):
        self.build(strip())
        r = self.get_skin()
        tag = r.header("ETag")
        self.assertTrue(tag)
        r2 = self.rigd.get(f"/v1/shots/{self.shot}/layers/strip/skin",
                           headers={"If-None-Match": tag})
        self.assertEqual(r2.status, 304)


if __name__ == "__main__":
    main()
