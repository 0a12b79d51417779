-- rigd schema, version 12: past versions of a shot stay readable (docs/history.md).
--
-- The head tables (layers, skins, bindings) keep the current state and stay the
-- only tables an ordinary read touches. What a batch replaces or deletes moves
-- to version-ranged history rows (valid for valid_from <= N < valid_to), and
-- binding arrays live in vertex-aligned chunks that a write stores only when
-- their bytes changed, so a small edit of a large binding writes one chunk.

-- The oldest version of the shot that can still be read. Versions before this
-- migration were never stored: they count as compacted.
ALTER TABLE shots ADD COLUMN history_from INTEGER NOT NULL DEFAULT 0;
UPDATE shots SET history_from = version;

-- The version that wrote the head row of a layer (0: before this migration).
ALTER TABLE layers ADD COLUMN since INTEGER NOT NULL DEFAULT 0;

-- 1: the binding's arrays live in binding_chunks at its revision and the head
-- row's array columns are empty; 0: a row written before this migration, its
-- arrays in the row (converted to chunks when it is first replaced).
ALTER TABLE skins ADD COLUMN chunked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE bindings ADD COLUMN chunked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE bindings ADD COLUMN mesh_bytes INTEGER NOT NULL DEFAULT 0;

-- A layer row as it was for versions valid_from <= N < valid_to. Keyed by
-- valid_to first: a read at N scans only rows replaced after N.
CREATE TABLE layer_history (
  shot_seq    INTEGER NOT NULL REFERENCES shots(seq) ON DELETE CASCADE,
  valid_to    INTEGER NOT NULL,
  layer_id    TEXT NOT NULL,
  valid_from  INTEGER NOT NULL,
  ord         INTEGER NOT NULL,
  name        TEXT NOT NULL,
  kind        TEXT NOT NULL,
  parent_id   TEXT,
  position_x  REAL NOT NULL,
  position_y  REAL NOT NULL,
  rotation    REAL NOT NULL,
  scale_x     REAL NOT NULL,
  scale_y     REAL NOT NULL,
  pivot_x     REAL NOT NULL,
  pivot_y     REAL NOT NULL,
  time_offset REAL NOT NULL,
  keys        BLOB NOT NULL,
  PRIMARY KEY (shot_seq, valid_to, layer_id)
);

-- A binding as it was for versions valid_from (its revision) <= N < valid_to:
-- counts and a generic kind's small head only; its arrays are the chunks of
-- revision valid_from.
CREATE TABLE binding_history (
  shot_seq   INTEGER NOT NULL REFERENCES shots(seq) ON DELETE CASCADE,
  valid_to   INTEGER NOT NULL,
  layer_id   TEXT NOT NULL,
  valid_from INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  n_verts    INTEGER NOT NULL,
  n_tris     INTEGER NOT NULL,
  n_joints   INTEGER NOT NULL,
  head       BLOB NOT NULL,
  mesh_bytes INTEGER NOT NULL,
  PRIMARY KEY (shot_seq, valid_to, layer_id)
);

-- One chunk of one part of a layer's binding arrays (part: 0 joints, 1 source,
-- 2 triangles, 3 weights, 4 a generic kind's mesh). The binding of revision R
-- has, at chunk index idx, the row with the greatest revision <= R; a write
-- adds a row only for a chunk whose bytes changed.
CREATE TABLE binding_chunks (
  shot_seq INTEGER NOT NULL REFERENCES shots(seq) ON DELETE CASCADE,
  layer_id TEXT NOT NULL,
  part     INTEGER NOT NULL,
  idx      INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  data     BLOB NOT NULL,
  UNIQUE (shot_seq, layer_id, part, idx, revision)
);
