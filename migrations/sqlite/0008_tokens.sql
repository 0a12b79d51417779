-- rigd schema, version 8: API tokens, the owner identity of locks, and an
-- audit log of security-relevant acts (token creation and revocation, an admin
-- breaking another identity's lock).
--
-- A token's secret is never stored: only the hex SHA-256 of the bearer string,
-- which carries 256 random bits, so a plain hash cannot be brute-forced and a
-- lookup by hash leaks nothing through timing. scopes is a space-separated
-- list of "read" | "edit" | "admin", each alone (every project) or as
-- "<scope>:<projectId>".
CREATE TABLE tokens (
  seq          INTEGER PRIMARY KEY,
  id           TEXT NOT NULL UNIQUE,
  name         TEXT NOT NULL,
  secret_hash  TEXT NOT NULL UNIQUE,
  scopes       TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  created_by   TEXT NOT NULL,          -- the creating token's id, or "cli"/"bootstrap"
  expires_unix INTEGER,                -- NULL: never
  revoked_at   TEXT                    -- NULL: live
);

-- Locks belong to an identity ("token:<id>", or "actor:<name>" when the server
-- runs with --auth off); owner stays the display name. Locks taken before this
-- version belonged to a bare actor name.
ALTER TABLE locks ADD COLUMN owner_id TEXT NOT NULL DEFAULT '';
UPDATE locks SET owner_id = 'actor:' || owner;

CREATE TABLE audit (
  seq      INTEGER PRIMARY KEY,
  at       TEXT NOT NULL,
  action   TEXT NOT NULL,              -- token.create | token.revoke | lock.break
  actor    TEXT NOT NULL,
  token_id TEXT,                       -- the acting token; NULL for the command line
  body     TEXT NOT NULL               -- the record as JSON
);
