"""Decoded shots and prepared skins are shared across reads (api/eval/read_cache.c), but a
read must always see the shot of its own snapshot. Every test reads frames first (so
both are cached), changes the skin or its surroundings through the API, and checks
the next read against the independent computation of test_skin_refmath; and the
bytes of a cached server equal those of a server that loads everything per request.
"""
from rigd_harness import Rigd, RigdTestCase, main
from test_frames_eval import hierarchy
from test_skin_refmath import ShotHelpers

FRAMES = [-3.5, 1, 7.9, 12]


class SkinCache(ShotHelpers, RigdTestCase):
    def setUp(self):
        super().setUp()
        self.shot = self.rigd.make_shot("p", "s", frameStart=0, frameEnd=24)
        self.scene = hierarchy()
        self.apply_ops(self.scene.all_ops())

    def check(self, msg):
        for f in FRAMES:
            self.assertVerts(self.verts("mesh", f), self.scene.evaluate("mesh", f),
                             msg=f"{msg} at frame {f}")
            # the second read is served from the cache: the same bytes
            a = self.frame(f, layers="mesh", fmt="f32")
            b = self.frame(f, layers="mesh", fmt="f32")
            self.assertEqual(a.status, 200, a)
            self.assertEqual(a.body, b.body, msg)

    def test_weights_put_is_seen_by_the_next_read(self):
        self.check("before")
        lst = [("b", 0.25), ("a", 0.75)]
        self.apply_ops([{"op": "layer.skin.weights.put", "layerId": "mesh", "vertexIndex": 5,
                         "influences": [{"jointId": j, "weight": w} for j, w in lst]}])
        self.scene.skins["mesh"]["weights"][5] = lst
        self.check("after weights.put")

    def test_bind_capture_and_a_replaced_skin_are_seen(self):
        self.check("before")
        self.apply_ops([{"op": "layer.skin.bind.capture", "layerId": "mesh", "frame": 7}])
        self.scene.capture("mesh", 7)
        self.check("after bind.capture")
        src = self.scene.skins["mesh"]["source"]
        self.scene.skins["mesh"]["source"] = [(x * 1.5, y - 2) for x, y in src]
        self.apply_ops(self.scene.skin_ops())
        self.check("after layer.skin")

    def test_posing_a_joint_changes_frames_without_touching_the_skin(self):
        self.check("before")
        self.apply_ops([{"op": "layer.pose", "layerId": "hand", "transform": {"rotation": 40}}])
        self.scene.set_static("hand", rotation=40)
        self.check("after layer.pose")

    def test_a_deleted_and_recreated_layer_or_shot_gets_its_new_skin(self):
        self.check("before")
        self.apply_ops([{"op": "layer.delete", "layerId": "mesh"}])
        src = self.scene.skins["mesh"]["source"]
        self.scene.skins["mesh"]["source"] = [(x + 3, y) for x, y in src]
        mesh_ops = [op for op in self.scene.create_ops() if op["layerId"] == "mesh"]
        self.apply_ops(mesh_ops + self.scene.skin_ops())
        self.check("after re-creating the layer")

        # The same shot id again, its skin written at the same version number as
        # the cached one of the deleted shot: only the shot's seq tells them apart.
        version = self.rigd.get("/v1/shots/s").json["version"]
        self.assertEqual(self.rigd.delete("/v1/shots/s").status, 200)
        self.rigd.make_shot("p", "s", frameStart=0, frameEnd=24)
        self.scene = hierarchy()
        self.scene.skins["mesh"]["source"] = [(x, y * 0.5) for x, y in
                                              self.scene.skins["mesh"]["source"]]
        self.apply_ops(self.scene.create_ops())
        while self.rigd.get("/v1/shots/s").json["version"] < version - 1:
            self.apply_ops([{"op": "layer.pose", "layerId": "outside", "transform": {}}])
        self.apply_ops(self.scene.skin_ops())
        self.assertEqual(self.rigd.get("/v1/shots/s").json["version"], version)
        self.check("after re-creating the shot")

    def test_a_server_without_the_cache_answers_the_same_bytes(self):
        cached = [self.frame(f, layers="mesh", fmt="f32").body for f in FRAMES]
        cached += [self.frame(f, layers="mesh", fmt="f32").body for f in FRAMES]
        self.rigd.stop()
        with Rigd(db_path=self.rigd.db_path, extra_args=["--read-cache-mb", "0"]) as plain:
            fresh = [self.frame(f, layers="mesh", fmt="f32", rigd=plain).body for f in FRAMES]
        self.assertEqual(cached, fresh + fresh)


class TinyCache(ShotHelpers, RigdTestCase):
    """A cache too small for one skin still answers every read correctly."""
    server_args = ("--read-cache-mb", "0")

    def test_reads_without_sharing(self):
        self.shot = self.rigd.make_shot("p", "s", frameStart=0, frameEnd=24)
        scene = hierarchy()
        self.apply_ops(scene.all_ops())
        for f in FRAMES:
            self.assertVerts(self.verts("mesh", f), scene.evaluate("mesh", f))


if __name__ == "__main__":
    main()
