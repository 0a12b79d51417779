-- rigd schema, version 17: follow chains (issue 27 item 1), a second kind of
-- constraint. SQLite cannot widen a CHECK in place, so constraints is rebuilt
-- with kind IN ('ik', 'chain') and its rows copied. params holds a chain's own
-- parameters as space-separated numbers (17 significant digits: exact),
-- "smoothing substeps maxAngleDeg length…" with maxAngleDeg -1 when the chain
-- has no angle limit; NULL for an IK constraint. An IK constraint's columns
-- that a chain has no use for hold their defaults (tip_length 0, no pole).
CREATE TABLE constraints_17 (
  shot_id       TEXT NOT NULL REFERENCES shots(id) ON DELETE CASCADE,
  id            TEXT NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('ik', 'chain')),
  chain         TEXT NOT NULL,
  target_id     TEXT NOT NULL,
  pole_id       TEXT,
  bend_positive INTEGER NOT NULL,
  tip_length    REAL NOT NULL,
  mix           REAL NOT NULL,
  softness      REAL NOT NULL,
  stretch       INTEGER NOT NULL,
  compress      INTEGER NOT NULL,
  ord           INTEGER NOT NULL,
  keys          BLOB NOT NULL,
  limits        TEXT,
  params        TEXT,
  PRIMARY KEY (shot_id, id)
) WITHOUT ROWID;
INSERT INTO constraints_17(shot_id, id, kind, chain, target_id, pole_id, bend_positive,
                           tip_length, mix, softness, stretch, compress, ord, keys, limits)
  SELECT shot_id, id, kind, chain, target_id, pole_id, bend_positive, tip_length, mix,
         softness, stretch, compress, ord, keys, limits FROM constraints;
DROP TABLE constraints;
ALTER TABLE constraints_17 RENAME TO constraints;
ALTER TABLE constraint_history ADD COLUMN params TEXT;
