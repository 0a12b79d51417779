-- rigd schema, version 3: stored idempotent responses keep their headers
-- (Location, ETag), so a replay answers exactly as the first response did.
ALTER TABLE idempotency ADD COLUMN headers TEXT NOT NULL DEFAULT '[]';
