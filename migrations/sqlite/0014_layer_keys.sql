-- rigd schema, version 14: a layer's keys stored per channel (docs/history.md),
-- so a key edit stores the keys of the channel it changed and a layer edit that
-- leaves the keys alone (a rename) stores none; before, every layer row and
-- every layer_history row carried all of the layer's keys.
--
-- A layer row (head or history) with keys_rows = 1 keeps an empty keys BLOB;
-- its keys of channel c are the layer_keys row of (layer, c) with the greatest
-- revision <= the row's since (its valid_from in layer_history), none meaning
-- no keys. A save writes a channel's row only when its bytes differ from the
-- row visible before it; a channel emptied gets an empty row. Rows written
-- before this migration (keys_rows = 0) keep their keys in their keys BLOB.
-- data: the keys BLOB layout of 0001 (50-byte records), one channel's records.
ALTER TABLE layers ADD COLUMN keys_rows INTEGER NOT NULL DEFAULT 0;
ALTER TABLE layer_history ADD COLUMN keys_rows INTEGER NOT NULL DEFAULT 0;

CREATE TABLE layer_keys (
  shot_seq INTEGER NOT NULL REFERENCES shots(seq) ON DELETE CASCADE,
  layer_id TEXT NOT NULL,
  channel  INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  data     BLOB NOT NULL,
  UNIQUE (shot_seq, layer_id, channel, revision)
);
