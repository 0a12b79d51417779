-- rigd schema, version 5: receipts number themselves with the plain rowid
-- instead of AUTOINCREMENT. AUTOINCREMENT rewrote a sqlite_sequence row in
-- every edit's transaction, one more page in every fsync'd commit. Receipts
-- are only ever deleted with their shot, so a rowid is never reused within a
-- shot's list and newest-first paging by seq keeps its meaning.
CREATE TABLE receipts_v5 (
  seq          INTEGER PRIMARY KEY,
  id           TEXT NOT NULL UNIQUE,
  shot_id      TEXT NOT NULL REFERENCES shots(id) ON DELETE CASCADE,
  to_version   INTEGER NOT NULL,
  body         TEXT NOT NULL
);
INSERT INTO receipts_v5 (seq, id, shot_id, to_version, body)
  SELECT seq, id, shot_id, to_version, body FROM receipts;
DROP TABLE receipts;
ALTER TABLE receipts_v5 RENAME TO receipts;
CREATE INDEX receipts_by_shot ON receipts(shot_id, seq);
