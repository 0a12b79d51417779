-- rigd schema, version 10: the generic stored form of a binding kind that has
-- no table of its own (core/binding.h: encode, decode). A kind's definition is
-- two byte strings of the kind's own layout: what a loaded shot keeps of it
-- (head) and its per-vertex arrays (mesh, read only when a request needs
-- them). Skins keep their own table.
CREATE TABLE bindings (
  shot_id  TEXT NOT NULL,
  layer_id TEXT NOT NULL,
  kind     TEXT NOT NULL,
  revision INTEGER NOT NULL,
  n_verts  INTEGER NOT NULL,
  n_tris   INTEGER NOT NULL,
  head     BLOB NOT NULL,
  mesh     BLOB NOT NULL,
  UNIQUE (shot_id, layer_id),
  FOREIGN KEY (shot_id, layer_id) REFERENCES layers(shot_id, id) ON DELETE CASCADE
);
