/* Stored idempotent responses (storage/receipts.c, rig_idem_*): keyed by
 * principal and key, rows from before schema version 9 carried over as legacy
 * rows that answer only their own fingerprint, expiry. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "bare_tx.h" /* the backend's: tests/unit/storage/<backend>/ */
#include "core/codes.h"
#include "storage/receipts.h"

static const long long NOW = 1700000000;

static void put(struct rig_tx *tx, const char *principal, const char *key, const char *hash,
		const char *response, long long created)
{
	cr_assert_eq(rig_idem_put(tx, principal, key, hash, 201, response, "[]", created), 0);
}

/* The response stored for (principal, key, hash), or "" when none. */
static const char *got(struct rig_tx *tx, const char *principal, const char *key, const char *hash)
{
	static char out[64];
	struct rig_idem idem;
	int rc = rig_idem_get(tx, principal, key, hash, NOW - 10, &idem);
	cr_assert(rc == 0 || rc == -RIG_NOT_FOUND, "rc %d", rc);
	snprintf(out, sizeof out, "%s", rc == 0 ? idem.response : "");
	rig_idem_release(&idem);
	return out;
}

Test(idem, a_key_belongs_to_its_principal)
{
	struct rig_tx *tx = bare_tx_latest(false);
	put(tx, "actor:alice", "k", "h1", "alice's", NOW);
	cr_assert_str_eq(got(tx, "actor:alice", "k", "h1"), "alice's");
	cr_assert_str_eq(got(tx, "actor:alice", "k", "other"), "alice's"); /* the caller compares */
	cr_assert_str_eq(got(tx, "actor:bob", "k", "h1"), "");
	put(tx, "actor:bob", "k", "h2", "bob's", NOW);
	cr_assert_str_eq(got(tx, "actor:bob", "k", "h1"), "bob's");
	cr_assert_str_eq(got(tx, "actor:alice", "k", "h1"), "alice's");
	bare_tx_close(tx);
}

Test(idem, expired_rows_are_absent_and_replaced)
{
	struct rig_tx *tx = bare_tx_latest(false);
	put(tx, "actor:alice", "k", "h1", "old", NOW - 11);
	cr_assert_str_eq(got(tx, "actor:alice", "k", "h1"), "");
	put(tx, "actor:alice", "k", "h1", "new", NOW);
	cr_assert_str_eq(got(tx, "actor:alice", "k", "h1"), "new");
	long long deleted = -1;
	cr_assert_eq(rig_idem_sweep(tx, NOW + 1, &deleted), 0);
	cr_assert_eq(deleted, 1);
	bare_tx_close(tx);
}

Test(idem, migration_keeps_old_rows_as_legacy_rows_that_answer_only_their_fingerprint)
{
	struct rig_tx *tx = bare_tx_open_below(8, false);
	bare_tx_exec(tx, "INSERT INTO idempotency(key, request_hash, status, response,"
			 " created_unix, headers) VALUES ('k', 'h1', 201, 'legacy', 1700000000,"
			 " '[[\"ETag\",\"\\\"3\\\"\"]]')");
	bare_tx_migrate(tx);
	const char *row = "SELECT principal, headers FROM idempotency WHERE key = 'k'";
	char text[64];
	cr_assert_str_eq(bare_tx_text(tx, row, 0, text, sizeof text), "");
	cr_assert_str_eq(bare_tx_text(tx, row, 1, text, sizeof text), "[[\"ETag\",\"\\\"3\\\"\"]]");
	/* the identical request (its fingerprint names the actor) gets it back,
	 * whoever asks; any other request ignores it */
	cr_assert_str_eq(got(tx, "actor:alice", "k", "h1"), "legacy");
	cr_assert_str_eq(got(tx, "actor:bob", "k", "h2"), "");
	/* a principal's own row wins over the legacy one */
	put(tx, "actor:alice", "k", "h3", "alice's", NOW);
	cr_assert_str_eq(got(tx, "actor:alice", "k", "h1"), "alice's");
	cr_assert_str_eq(got(tx, "actor:carol", "k", "h1"), "legacy");
	bare_tx_close(tx);
}
