-- rigd schema, version 20: a version's archived layer rows in one value
-- (issue 23; docs/history.md). Until now a batch copied each head row it
-- replaced or deleted into layer_history, a row and an index entry per layer:
-- a 50-op batch wrote about 7 of its 15 WAL frames there, and the copy cost
-- SQLite more per row than the update it preceded. Now each version that
-- writes layers stores one layer_archive value: an entry per layer it wrote,
-- with the head row replaced (storage/layer_archive.h), or none for a layer
-- it created, so that the changes in a version range are the entries of
-- that range alone.
--
-- Keyed by one integer, shot_seq * 2^32 + valid_to, so the table is a rowid
-- b-tree: a shot's values are appended in key order, which SQLite packs into
-- full pages without rebalancing, and a value longer than a leaf's share
-- fills whole overflow pages. Keyed as (shot_seq, valid_to) WITHOUT ROWID it
-- took 7.6 WAL frames a 50-layer commit (leaves split half full, each spilling
-- row on an overflow page of its own) against 3.5. The versions a key holds
-- (valid_to < 2^32, shot_seq < 2^31) are every version but those of a shot
-- past its 4,294,967,295th, whose rows go to layer_history as before
-- (storage/sqlite/archive.c).
--
-- layer_history keeps the rows archived before this version and is no longer
-- written otherwise; reads take a layer's row valid at N from whichever holds
-- it (the head, a layer_history row, an archive entry), and compaction drops
-- both.
CREATE TABLE layer_archive (
  key     INTEGER PRIMARY KEY,
  entries BLOB NOT NULL
);

-- A shot's values go with it (a key is no foreign key).
CREATE TRIGGER layer_archive_of_shot AFTER DELETE ON shots BEGIN
  DELETE FROM layer_archive
   WHERE key BETWEEN old.seq * 4294967296 AND old.seq * 4294967296 + 4294967295;
END;
