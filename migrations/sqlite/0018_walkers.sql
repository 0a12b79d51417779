-- rigd schema, version 18: walkers (issue 27 item 4), a third kind of
-- constraint. The kinds are core/constraint.c's table, checked where ops are
-- decoded and rows read; the store stops repeating them, so constraints is
-- rebuilt once more without the CHECK on kind and the next kind needs no
-- migration. A walker stores its body in target_id, an empty chain, and its
-- parameters in params: "threshold stepFrames height n" then per foot
-- "ikConstraintId restX restY group" (17 significant digits: exact).
CREATE TABLE constraints_18 (
  shot_id       TEXT NOT NULL REFERENCES shots(id) ON DELETE CASCADE,
  id            TEXT NOT NULL,
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
  limits        TEXT,
  params        TEXT,
  PRIMARY KEY (shot_id, id)
) WITHOUT ROWID;
INSERT INTO constraints_18 SELECT shot_id, id, kind, chain, target_id, pole_id, bend_positive,
  tip_length, mix, softness, stretch, compress, ord, keys, limits, params FROM constraints;
DROP TABLE constraints;
ALTER TABLE constraints_18 RENAME TO constraints;
