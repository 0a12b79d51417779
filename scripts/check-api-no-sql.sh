#!/usr/bin/env bash
# Fails when code outside storage/ reaches past the storage interface
# (storage/store.h and the repository headers beside it): a file that includes
# <sqlite3.h>, names a sqlite3 type or calls a sqlite3_ function, or spells
# SQL (an uppercase SQL keyword such as SELECT, BEGIN or SAVEPOINT) inside a
# string literal. The public headers storage/*.h are checked too: only
# storage/sqlite/ may know SQLite, and they describe a store, not SQLite's
# settings (no synchronous, busy_timeout, journal_mode, WAL, statvfs).
# The tests reach the store only through the SQLite backend's test helpers:
# under tests/e2e/ only sqlite_store.py imports sqlite3; under tests/unit/
# only the backends' folders of tests/unit/storage/ (sqlite/: the helpers
# bare_tx.h and store_fixture.h, the backend's own tests) name SQLite or
# include a backend's headers.
# Each finding is printed as file:line: text.
#   scripts/check-api-no-sql.sh [dir...]   default: api server
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(api server)
mapfile -t files < <( (find "${dirs[@]}" -name '*.c' -o -name '*.h'
	find storage -maxdepth 1 -name '*.h') | sort -u)
[ ${#files[@]} -gt 0 ] || { echo "no C sources under ${dirs[*]}" >&2; exit 1; }

sqlite_use='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]sqlite3\.h[>"]|(^|[^A-Za-z0-9_])sqlite3(_[A-Za-z0-9_]+)?([^A-Za-z0-9_]|$)'
# A C string literal (escapes included) that holds an SQL keyword as a word.
# "DELETE" alone is an HTTP method, so only "DELETE FROM" counts.
keywords='SELECT|INSERT|UPDATE|DELETE[[:space:]]+FROM|REPLACE[[:space:]]+INTO|CREATE|DROP|ALTER|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|VACUUM'
ch='([^"\\]|\\.)'         # one character of a literal, or one escape
edge='([^A-Za-z0-9_"\\]|\\.)' # a character that ends a word
sql_literal="\"($ch*$edge)?($keywords)($edge$ch*)?\""

found=$( (grep -HnE "$sql_literal" "${files[@]}" || true; grep -HnE "$sqlite_use" "${files[@]}" || true) |
	sort -t: -k1,1 -k2,2n -u)
if [ -n "$found" ]; then
	echo "only storage/ talks to the database: use storage/store.h (struct rig_tx) and the" \
	     "repository headers instead of SQLite or SQL here:" >&2
	echo "$found" >&2
	exit 1
fi

# The public headers speak of a store; a backend's settings live in its folder.
settings='synchronous|busy_timeout|journal_mode|(^|[^A-Za-z])WAL([^A-Za-z]|$)|statvfs'
found=$(grep -HnE "$settings" storage/*.h || true)
if [ -n "$found" ]; then
	echo "storage/*.h describe a store: say this in the backend's folder (storage/sqlite/):" >&2
	echo "$found" >&2
	exit 1
fi

# Tests poke the store only through the SQLite backend's test helpers.
mapfile -t unit < <(find tests/unit \( -name '*.c' -o -name '*.h' \) ! -path 'tests/unit/storage/*/*' |
	sort)
mapfile -t e2e < <(find tests/e2e -name '*.py' ! -path tests/e2e/sqlite_store.py | sort)
found=$( (grep -HnE "$sqlite_use"'|#[[:space:]]*include[[:space:]]*"storage/[a-z]+/' "${unit[@]}" || true
	grep -HnE '^[[:space:]]*(import[[:space:]]+sqlite3|from[[:space:]]+sqlite3[[:space:]]+import)' \
		"${e2e[@]}" || true) | sort -t: -k1,1 -k2,2n -u)
if [ -n "$found" ]; then
	echo "tests reach the store through rigd or the SQLite backend's test helpers" \
	     "(tests/e2e/sqlite_store.py, tests/unit/storage/sqlite/bare_tx.h), or are the" \
	     "backend's own (tests/unit/storage/sqlite/):" >&2
	echo "$found" >&2
	exit 1
fi
echo "no SQLite and no SQL in ${dirs[*]} and storage/*.h; tests reach the store through its helpers"
