-- rigd schema, version 21: receipts keyed by one integer, shot_seq * 2^32 +
-- to_version, as layer_archive is (migration 20), and for the same reason
-- (issue 23): clustered on (shot_seq, to_version) WITHOUT ROWID, the table
-- split its leaves half full on every append and spilled each receipt past
-- about 1,000 bytes onto an overflow page of its own, so a commit wrote 1.7
-- WAL frames of receipts for a 1-op batch and 3.4 for a 50-op one (its 2.9 KB
-- receipt). A rowid table appends into full pages (about 1.1 and 1.7). The
-- receipts of a shot's versions past what a key holds (to_version >= 2^32,
-- or a shot_seq >= 2^31) stay in receipts, read the same way
-- (storage/sqlite/receipts.c); so do none today, which the move below empties.
CREATE TABLE receipt_log (
  key  INTEGER PRIMARY KEY,
  id   TEXT NOT NULL,
  body TEXT NOT NULL
);
INSERT INTO receipt_log(key, id, body)
  SELECT shot_seq * 4294967296 + to_version, id, body FROM receipts
   WHERE to_version < 4294967296 AND shot_seq < 2147483648 ORDER BY shot_seq, to_version;
DELETE FROM receipts WHERE to_version < 4294967296 AND shot_seq < 2147483648;
-- the random ids of receipts written before schema version 7 (migration 7)
CREATE UNIQUE INDEX receipt_log_by_legacy_id ON receipt_log(id) WHERE id GLOB 'r-*';

-- A shot's receipts and archive values go with it (a key is no foreign key).
DROP TRIGGER layer_archive_of_shot;
CREATE TRIGGER keyed_rows_of_shot AFTER DELETE ON shots BEGIN
  DELETE FROM layer_archive
   WHERE key BETWEEN old.seq * 4294967296 AND old.seq * 4294967296 + 4294967295;
  DELETE FROM receipt_log
   WHERE key BETWEEN old.seq * 4294967296 AND old.seq * 4294967296 + 4294967295;
END;
