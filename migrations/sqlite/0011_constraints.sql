-- rigd schema, version 11: shot-level constraints on joint layers (issue 16).
-- One row per constraint; the chain is its layer ids root to tip separated by
-- single spaces (ids never contain one). Layer ids are not foreign keys: a
-- batch may delete a chain layer and repair the constraint later in the same
-- batch, and final validation (IK_CHAIN, IK_TARGET) keeps stored rows
-- consistent. keys is the layer keys BLOB layout (storage/blob.h) with the
-- mix keys in channel slot 0 and the softness keys in slot 1.
CREATE TABLE constraints (
  shot_id       TEXT NOT NULL REFERENCES shots(id) ON DELETE CASCADE,
  id            TEXT NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('ik')),
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
  PRIMARY KEY (shot_id, id)
) WITHOUT ROWID;
