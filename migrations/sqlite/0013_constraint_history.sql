-- rigd schema, version 13: past versions read the constraints they had
-- (docs/history.md). A shot's constraints are written as one set, so a set
-- replaced by a batch moves whole to constraint_history, valid for
-- valid_from <= N < valid_to; constraints_since is the version that wrote the
-- head set (0: before this migration, so valid for every retained version).
ALTER TABLE shots ADD COLUMN constraints_since INTEGER NOT NULL DEFAULT 0;

CREATE TABLE constraint_history (
  shot_seq      INTEGER NOT NULL REFERENCES shots(seq) ON DELETE CASCADE,
  valid_to      INTEGER NOT NULL,
  id            TEXT NOT NULL,
  valid_from    INTEGER NOT NULL,
  kind          TEXT NOT NULL,
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
  PRIMARY KEY (shot_seq, valid_to, id)
);
