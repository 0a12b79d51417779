"""The SQLite backend's test helper: what an e2e test may read or write directly
in the store, past rigd.

Every e2e test that pokes the store does it through this module, and nothing
else under tests/e2e/ imports sqlite3 (scripts/check-api-no-sql.sh checks it).
So a run against another backend knows exactly which tests those are — the
ones importing sqlite_store — and has this one module to implement for it.
Functions marked "SQLite only" check a fact of SQLite itself (its WAL file,
its journal mode, a database written by an old binary): another backend skips
the tests that call them.

Each function takes the database path of the store (Rigd.db_path: rigd runs
with --db PATH, the store sqlite:PATH) and opens a connection of its own.
"""
import glob
import json
import os
import sqlite3
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIGRATIONS = os.path.join(ROOT, "migrations", "sqlite")


# ---- the schema and its migrations ----

def migration_file_versions():
    """The version of every migration file, in order (what a fresh store records)."""
    return sorted(int(os.path.basename(f)[:4])
                  for f in glob.glob(os.path.join(MIGRATIONS, "[0-9]*.sql")))


def schema_versions(db_path):
    """The versions the store records as applied, in order."""
    conn = sqlite3.connect(db_path)
    try:
        return [v for (v,) in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
    finally:
        conn.close()


def newest_schema_version(db_path):
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
    finally:
        conn.close()


def record_future_migration(db_path, version, name="future"):
    """Records a migration newer than any rigd knows, as a newer binary would."""
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)", (version, name))
    conn.close()


def forget_newest_migration(db_path):
    """Deletes the record of the newest applied migration (the schema then reads as not
    current); returns its version."""
    db = sqlite3.connect(db_path, timeout=10, isolation_level=None)
    try:
        (newest,) = db.execute("SELECT max(version) FROM schema_migrations").fetchone()
        db.execute("DELETE FROM schema_migrations WHERE version = ?", (newest,))
        return newest
    finally:
        db.close()


def journal_mode(db_path):
    """SQLite only: the database's journal mode ("wal")."""
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        conn.close()


def v6_database(path):
    """SQLite only: a database exactly as schema version 6 left it, one shot at version 3,
    its three receipts with the random ids of that time, and a second shot's receipt in
    between. Returns s1's receipt ids, oldest first."""
    conn = sqlite3.connect(path)
    for f in sorted(glob.glob(os.path.join(MIGRATIONS, "*.sql"))):
        version = int(os.path.basename(f)[:4])
        if version > 6:
            break
        with open(f, encoding="utf-8") as sql:
            conn.executescript(sql.read())
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                     " name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT '')")
        conn.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)",
                     (version, os.path.basename(f)))
    conn.execute("INSERT INTO projects(id, name, created_at) VALUES ('p', 'p', 'x')")
    for sid in ("s1", "s2"):
        conn.execute("INSERT INTO shots(id, project_id, name, fps, frame_start, frame_end, version,"
                     " created_at) VALUES (?, 'p', ?, 24, 0, 24, 0, 'x')", (sid, sid))
    conn.execute("INSERT INTO layers VALUES ('s1', 'a', 0, 'a', 'group', NULL, 0, 0, 0, 1, 1, 0, 0,"
                 " 0, x'')")
    old = []
    for v, sid in ((1, "s1"), (1, "s2"), (2, "s1"), (3, "s1")):
        rid = f"r-{v:02x}{sid[-1]}0a1b2c3d4e5f6"
        body = {"receiptId": rid, "shotId": sid, "fromVersion": v - 1, "toVersion": v}
        conn.execute("INSERT INTO receipts(id, shot_id, to_version, body) VALUES (?, ?, ?, ?)",
                     (rid, sid, v, json.dumps(body)))
        conn.execute("UPDATE shots SET version = ? WHERE id = ?", (v, sid))
        if sid == "s1":
            old.append(rid)
    conn.commit()
    conn.close()
    return old


# ---- consistency ----

def integrity(db_path):
    """integrity_check and foreign_key_check of a killed store, read-only (no checkpoint:
    the WAL is left for rigd to recover). Returns (the integrity rows' first column, the
    foreign-key violations)."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
    try:
        ok = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        fk = conn.execute("PRAGMA foreign_key_check").fetchall()
        return ok, fk
    finally:
        conn.close()


def integrity_check(db_path):
    """The first row integrity_check answers ("ok"), on a connection that may write (as
    any client of the file would)."""
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


# ---- holding the write lock ----

class WriteLock:
    """Another writer of the store: take() holds its write lock (BEGIN IMMEDIATE on a
    connection of this object's) until release(); close() ends the connection."""

    def __init__(self, db_path, timeout=10):
        self.conn = sqlite3.connect(db_path, timeout=timeout, isolation_level=None)

    def take(self):
        self.conn.execute("BEGIN IMMEDIATE")

    def release(self):
        self.conn.execute("ROLLBACK")

    def close(self):
        self.conn.close()


# ---- rows ----

def shot_rows(db_path):
    """Every row of the shot-related tables (shots, layers, receipts and receipt_log,
    skins), read-only."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        out = {}
        for table, order in (("shots", "id"), ("layers", "shot_id, id"),
                             ("receipts", "shot_seq, to_version"), ("receipt_log", "key"),
                             ("skins", "shot_id, layer_id")):
            out[table] = conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
        return out
    finally:
        conn.close()


def shot_seq(db_path, shot_id):
    """The never-reused seq of shot shot_id's row."""
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("SELECT seq FROM shots WHERE id = ?", (shot_id,)).fetchone()[0]
    finally:
        conn.close()


def receipt_count(db_path):
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("SELECT (SELECT count(*) FROM receipts)"
                            " + (SELECT count(*) FROM receipt_log)").fetchone()[0]
    finally:
        conn.close()


def lock_ids(db_path):
    """The ids of the stored locks (expired or not), sorted, read-only."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    try:
        return sorted(r[0] for r in db.execute("SELECT id FROM locks"))
    finally:
        db.close()


# ---- idempotency keys ----

def age_idempotency_key(db_path, key, seconds, principal=None):
    """Moves the creation of the stored key (of principal, or of everyone) seconds back."""
    db = sqlite3.connect(db_path, timeout=10)
    try:
        with db:
            if principal is None:
                db.execute("UPDATE idempotency SET created_unix = created_unix - ?"
                           " WHERE key = ?", (seconds, key))
            else:
                db.execute("UPDATE idempotency SET created_unix = created_unix - ?"
                           " WHERE key = ? AND principal = ?", (seconds, key, principal))
    finally:
        db.close()


def unscope_idempotency_key(db_path, key):
    """Makes the stored key a row as stored before schema version 9 (principal '')."""
    db = sqlite3.connect(db_path, timeout=10)
    try:
        with db:
            db.execute("UPDATE idempotency SET principal = '' WHERE key = ?", (key,))
    finally:
        db.close()


def idempotency_keys(db_path):
    """The set of stored keys."""
    db = sqlite3.connect(db_path, timeout=10)
    try:
        return {k for (k,) in db.execute("SELECT key FROM idempotency")}
    finally:
        db.close()


def idempotency_principals(db_path, key):
    """The principal of each stored row of key."""
    db = sqlite3.connect(db_path, timeout=10)
    try:
        return [p for (p,) in db.execute("SELECT principal FROM idempotency WHERE key = ?",
                                         (key,))]
    finally:
        db.close()


# ---- history ----

def history_floor(db_path):
    """history_from of the (first) shot: its oldest readable version."""
    conn = sqlite3.connect(db_path, timeout=10)
    try:
        return conn.execute("SELECT history_from FROM shots").fetchone()[0]
    finally:
        conn.close()


def history_rows_until(db_path, version):
    """How many rows of layer and binding history end at or below version, by table;
    for layer_archive, which keeps a version's rows in one value, how many values."""
    conn = sqlite3.connect(db_path, timeout=10)
    try:
        return {table: conn.execute(f"SELECT count(*) FROM {table}"
                                    " WHERE key & 4294967295 <= ?", (version,)).fetchone()[0]
                if table == "layer_archive" else
                conn.execute(f"SELECT count(*) FROM {table} WHERE valid_to <= ?",
                             (version,)).fetchone()[0]
                for table in ("layer_history", "layer_archive", "binding_history")
                if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone()}
    finally:
        conn.close()


# layer_history as schema versions 12-18 left it: a rowid table beside its key.
_LAYER_HISTORY_ROWID_FORM = """
CREATE TABLE layer_history_18 (
  shot_seq INTEGER NOT NULL REFERENCES shots(seq) ON DELETE CASCADE,
  valid_to INTEGER NOT NULL, layer_id TEXT NOT NULL, valid_from INTEGER NOT NULL,
  ord INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, parent_id TEXT,
  position_x REAL NOT NULL, position_y REAL NOT NULL, rotation REAL NOT NULL,
  scale_x REAL NOT NULL, scale_y REAL NOT NULL, pivot_x REAL NOT NULL, pivot_y REAL NOT NULL,
  time_offset REAL NOT NULL, keys BLOB NOT NULL, keys_rows INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (shot_seq, valid_to, layer_id));
INSERT INTO layer_history_18 SELECT * FROM layer_history;
DROP TABLE layer_history;
ALTER TABLE layer_history_18 RENAME TO layer_history;
CREATE INDEX layer_history_by_from ON layer_history(shot_seq, valid_from, layer_id);
DROP TRIGGER keyed_rows_of_shot;
DROP TABLE layer_archive;
INSERT INTO receipts(shot_seq, to_version, id, body)
  SELECT key >> 32, key & 4294967295, id, body FROM receipt_log;
DROP TABLE receipt_log;
DELETE FROM schema_migrations WHERE version IN (19, 20, 21);
"""

_ARCHIVE_ROW, _ARCHIVE_KEYS_ROWS = 1, 4


def archive_entries(blob):
    """The entries of a layer_archive value (storage/layer_archive.h), each a dict:
    id and flags, and with a row (flags & 1) the row's columns."""
    out, at = [], 0

    def take(n):
        nonlocal at
        at += n
        return blob[at - n:at]

    def text(n):
        return take(n + 1)[:-1].decode()

    def varint():
        v, shift = 0, 0
        while True:
            (b,) = take(1)
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v

    defaults = (0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0)  # the channels, the time offset
    while at < len(blob):
        flags, id_len = take(2)
        e = {"id": text(id_len), "flags": flags}
        if flags & _ARCHIVE_ROW:
            e["valid_from"], e["ord"] = varint(), varint()
            e["kind"] = "mesh" if take(1)[0] else "group"
            e["name"] = text(varint())
            e["parent_id"] = text(take(1)[0]) or None
            (mask,) = take(1)
            e["statics"] = tuple(struct.unpack("<d", take(8))[0] if mask >> c & 1 else d
                                 for c, d in enumerate(defaults))
            e["keys"] = take(varint())
        out.append(e)
    return out


def history_to_schema_18(db_path):
    """SQLite only: the database as schema version 18 left it, the same history in
    its form of then: every row an archive entry holds becomes a layer_history row
    of the rowid table of versions 12-18, layer_archive goes, receipts move back
    from receipt_log, and migrations 19-21 are forgotten."""
    conn = sqlite3.connect(db_path)
    try:
        with conn:
            for seq, valid_to, blob in conn.execute(
                    "SELECT key >> 32, key & 4294967295, entries FROM layer_archive").fetchall():
                for e in archive_entries(blob):
                    if e["flags"] & _ARCHIVE_ROW:
                        conn.execute(
                            "INSERT INTO layer_history VALUES"
                            " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (seq, valid_to, e["id"], e["valid_from"], e["ord"], e["name"],
                             e["kind"], e["parent_id"], *e["statics"], e["keys"],
                             1 if e["flags"] & _ARCHIVE_KEYS_ROWS else 0))
        conn.executescript(_LAYER_HISTORY_ROWID_FORM)
    finally:
        conn.close()


def table_sql(db_path, table):
    """SQLite only: the CREATE statement the schema holds for table."""
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("SELECT sql FROM sqlite_master WHERE name = ?",
                            (table,)).fetchone()[0]
    finally:
        conn.close()

def empty_wal(db_path):
    """SQLite only: checkpoints the WAL into the database and truncates it; returns
    SQLite's busy flag (0 when the checkpoint completed)."""
    conn = sqlite3.connect(db_path, timeout=30)
    try:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return busy
    finally:
        conn.close()


def wal_bytes(db_path):
    """SQLite only: the size of the WAL file, what commits appended since it was emptied."""
    return os.path.getsize(db_path + "-wal")
