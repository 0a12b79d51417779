-- rigd schema, version 19: layer_history keyed by its primary key alone
-- (issue 23). As a rowid table it was two b-trees, the rows and the
-- (shot_seq, valid_to, layer_id) index beside them, and every batch that
-- archived a layer wrote a page of each: a 1-op batch wrote 6.8 WAL frames
-- against 2.7 before history. Its rows are small (keys moved to layer_keys
-- in version 14), which is what WITHOUT ROWID is for; the rows a batch
-- archives share valid_to, so they land together on the table's last page.
CREATE TABLE layer_history_19 (
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
  keys_rows   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (shot_seq, valid_to, layer_id)
) WITHOUT ROWID;
INSERT INTO layer_history_19 SELECT shot_seq, valid_to, layer_id, valid_from, ord, name, kind,
  parent_id, position_x, position_y, rotation, scale_x, scale_y, pivot_x, pivot_y, time_offset,
  keys, keys_rows FROM layer_history;
DROP TABLE layer_history;
ALTER TABLE layer_history_19 RENAME TO layer_history;
CREATE INDEX layer_history_by_from ON layer_history(shot_seq, valid_from, layer_id);

