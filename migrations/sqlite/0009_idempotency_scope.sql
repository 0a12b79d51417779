-- rigd schema, version 9: an idempotency key belongs to the principal that sent
-- it ("token:<id>", or "actor:<name>" under --auth off). The same key from two
-- principals names two independent writes, so rows are keyed by (principal, key).
--
-- Rows stored before this version do not record who sent them; they get the
-- principal '' (legacy). A legacy row answers only a request with exactly its
-- fingerprint (method, path, query, actor and body: the scope keys had when it
-- was stored) and is otherwise ignored; like every key it expires after 24 hours
-- (storage/receipts.c: rig_idem_get).
CREATE TABLE idempotency_scoped (
  principal    TEXT NOT NULL,
  key          TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status       INTEGER NOT NULL,
  response     TEXT NOT NULL,
  created_unix INTEGER NOT NULL,
  headers      TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (principal, key)
) WITHOUT ROWID;
INSERT INTO idempotency_scoped(principal, key, request_hash, status, response, created_unix,
                               headers)
  SELECT '', key, request_hash, status, response, created_unix, headers FROM idempotency;
DROP TABLE idempotency;
ALTER TABLE idempotency_scoped RENAME TO idempotency;
CREATE INDEX idempotency_by_age ON idempotency(created_unix);
