-- rigd schema, version 1: projects, shots, layers, skins, receipts,
-- idempotency keys and server metadata. Applied by storage/migrate.c.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value BLOB NOT NULL
) WITHOUT ROWID;

CREATE TABLE projects (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  id         TEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE shots (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  id          TEXT NOT NULL UNIQUE,
  project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  fps         REAL NOT NULL,
  frame_start REAL NOT NULL,
  frame_end   REAL NOT NULL,
  version     INTEGER NOT NULL DEFAULT 0,
  created_at  TEXT NOT NULL
);
CREATE INDEX shots_by_project ON shots(project_id, seq);

-- One row per layer. keys is a little-endian BLOB of 50-byte records
-- (u8 channel, u8 interp, f64 frame, f64 value, f64 ease[4]), see storage/blob.c.
CREATE TABLE layers (
  shot_id     TEXT NOT NULL REFERENCES shots(id) ON DELETE CASCADE,
  id          TEXT NOT NULL,
  ord         INTEGER NOT NULL,
  name        TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('group', 'mesh')),
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
  PRIMARY KEY (shot_id, id)
) WITHOUT ROWID;

-- A skin binding. Arrays are little-endian BLOBs: source f64 x,y pairs,
-- triangles u32 triples, weight_offsets u32 (n_verts + 1), influences
-- (u32 joint, f64 weight) records, joints 178-byte records (id and layer id as
-- NUL-padded 65-byte strings, then the bind's six f64).
CREATE TABLE skins (
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
  PRIMARY KEY (shot_id, layer_id),
  FOREIGN KEY (shot_id, layer_id) REFERENCES layers(shot_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE receipts (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  id           TEXT NOT NULL UNIQUE,
  shot_id      TEXT NOT NULL REFERENCES shots(id) ON DELETE CASCADE,
  to_version   INTEGER NOT NULL,
  body         TEXT NOT NULL
);
CREATE INDEX receipts_by_shot ON receipts(shot_id, seq);

-- Stored responses of applied writes, replayed for a repeated Idempotency-Key.
CREATE TABLE idempotency (
  key          TEXT PRIMARY KEY,
  request_hash TEXT NOT NULL,
  status       INTEGER NOT NULL,
  response     TEXT NOT NULL,
  created_unix INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX idempotency_by_age ON idempotency(created_unix);
