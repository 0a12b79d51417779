-- rigd schema, version 20: a version's archived layer rows in one value
-- (issue 23; docs/history.md). Until now a batch copied each head row it
-- replaced or deleted into layer_history, a row and an index entry per layer:
-- a 50-op batch wrote about 7 of its 15 WAL frames there, and the copy cost
-- SQLite more per row than the update it preceded. Now each version that
-- writes layers stores one layer_archive value: an entry per layer it wrote,
-- with the head row replaced (storage/layer_archive.h), or none for a layer
-- it created, so that the changes in a version range are the entries of
-- that range alone. A value longer than about 900 bytes is stored in parts
-- (part 0, 1, ..., each whole entries): a WITHOUT ROWID leaf keeps about
-- 1,000 bytes of a row in its cell and sends the rest to an overflow page of
-- the row's own, so a 1.3 KB value cost a 4 KiB page on disk and a frame in
-- the WAL more than its bytes.
--
-- layer_history keeps the rows archived before this version and is no longer
-- written; reads take a layer's row valid at N from whichever holds it (the
-- head, a layer_history row, an archive entry), and compaction drops both.
CREATE TABLE layer_archive (
  shot_seq INTEGER NOT NULL REFERENCES shots(seq) ON DELETE CASCADE,
  valid_to INTEGER NOT NULL,
  part     INTEGER NOT NULL,
  entries  BLOB NOT NULL,
  PRIMARY KEY (shot_seq, valid_to, part)
) WITHOUT ROWID;
