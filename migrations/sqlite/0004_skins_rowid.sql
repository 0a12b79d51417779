-- rigd schema, version 4: skins become an ordinary rowid table.
-- As a WITHOUT ROWID table the whole row (hundreds of KiB of arrays) was the
-- b-tree key, so even reading the small joints column moved every byte of the
-- arrays. With a rowid, small columns read without touching the arrays, and the
-- arrays stream straight into memory with incremental blob I/O.
CREATE TABLE skins_v4 (
  shot_id        TEXT NOT NULL,
  layer_id       TEXT NOT NULL,
  n_verts        INTEGER NOT NULL,
  n_tris         INTEGER NOT NULL,
  n_joints       INTEGER NOT NULL,
  joints         BLOB NOT NULL,
  source         BLOB NOT NULL,
  triangles      BLOB NOT NULL,
  weight_offsets BLOB NOT NULL,
  influences     BLOB NOT NULL,
  UNIQUE (shot_id, layer_id),
  FOREIGN KEY (shot_id, layer_id) REFERENCES layers(shot_id, id) ON DELETE CASCADE
);
INSERT INTO skins_v4 (shot_id, layer_id, n_verts, n_tris, n_joints, joints, source, triangles,
                      weight_offsets, influences)
  SELECT shot_id, layer_id, n_verts, n_tris, n_joints, joints, source, triangles,
         weight_offsets, influences FROM skins;
DROP TABLE skins;
ALTER TABLE skins_v4 RENAME TO skins;
