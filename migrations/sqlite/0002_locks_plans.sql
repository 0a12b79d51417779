-- rigd schema, version 2: layer locks with fencing tokens, and saved plans.

-- Each shot hands out fencing tokens from its own counter, so they increase
-- monotonically per shot.
ALTER TABLE shots ADD COLUMN fencing_counter INTEGER NOT NULL DEFAULT 0;

CREATE TABLE locks (
  id             TEXT PRIMARY KEY,
  shot_id        TEXT NOT NULL REFERENCES shots(id) ON DELETE CASCADE,
  owner          TEXT NOT NULL,
  fencing_token  INTEGER NOT NULL,
  ttl_seconds    INTEGER NOT NULL,
  expires_ms     INTEGER NOT NULL, -- Unix time in milliseconds
  created_at     TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX locks_by_shot ON locks(shot_id, expires_ms);
CREATE INDEX locks_by_expiry ON locks(expires_ms);

CREATE TABLE lock_layers (
  lock_id  TEXT NOT NULL REFERENCES locks(id) ON DELETE CASCADE,
  layer_id TEXT NOT NULL,
  pos      INTEGER NOT NULL, -- order of layerIds as acquired
  PRIMARY KEY (lock_id, layer_id)
) WITHOUT ROWID;

CREATE TABLE plans (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  id           TEXT NOT NULL UNIQUE,
  shot_id      TEXT NOT NULL REFERENCES shots(id) ON DELETE CASCADE,
  title        TEXT,
  ops          TEXT NOT NULL,          -- the JSON array of ops, as submitted
  base_version INTEGER,                -- NULL: applies to whatever version is current
  plan_version INTEGER NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('draft', 'applied')),
  author       TEXT NOT NULL,
  receipt_id   TEXT,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);
CREATE INDEX plans_by_shot ON plans(shot_id, seq);
