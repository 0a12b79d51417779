-- rigd schema, version 7: a receipt is keyed by its shot and the version it
-- moved the shot to, which is what a receipt is: the record of one version.
-- The table is clustered on that key, so listing a shot's receipts newest first
-- and finding one by its id ("r.<shot seq>.<toVersion>") read the table alone,
-- and committing a batch writes one receipts page instead of three (the row,
-- an index by shot, a unique index by id). Receipts written before keep their
-- random ids ("r-<hex>"), found through a partial index that new rows, whose
-- ids start "r.", never touch. Deleting a shot deletes its receipts.
CREATE TABLE receipts_v7 (
  shot_seq   INTEGER NOT NULL REFERENCES shots(seq) ON DELETE CASCADE,
  to_version INTEGER NOT NULL,
  id         TEXT NOT NULL,
  body       TEXT NOT NULL,
  PRIMARY KEY (shot_seq, to_version)
) WITHOUT ROWID;
INSERT INTO receipts_v7 (shot_seq, to_version, id, body)
  SELECT s.seq, r.to_version, r.id, r.body FROM receipts r JOIN shots s ON s.id = r.shot_id;
DROP TABLE receipts;
ALTER TABLE receipts_v7 RENAME TO receipts;
CREATE UNIQUE INDEX receipts_by_legacy_id ON receipts(id) WHERE id GLOB 'r-*';
