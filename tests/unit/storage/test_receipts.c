/* Stored idempotent responses (storage/receipts.c, rig_idem_*): keyed by
 * principal and key, rows from before schema version 9 carried over as legacy
 * rows that answer only their own fingerprint, expiry. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bare_tx.h" /* the backend's: tests/unit/storage/<backend>/ */
#include "core/codes.h"
#include "storage/receipts.h"
#include "storage/resources.h"

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

static int list_into(void *ctx, long long to_version, const char *body)
{
	char *out = ctx;
	size_t n = strlen(out);
	snprintf(out + n, 512 - n, "%lld=%s ", to_version - 4294967294LL, body);
	return 0;
}

/* Receipts are keyed by one integer per shot version (migration 21); the
 * versions past what a key holds (2^32 a shot) keep theirs in receipts, and
 * reading one, listing newest first and finding its project go on across the
 * edge, and deleting the shot deletes both kinds. */
Test(receipts, a_shot_past_2_to_the_32_versions_keeps_its_receipts)
{
	struct rig_tx *tx = bare_tx_with_shot();
	long long seq = bare_tx_int(tx, "SELECT seq FROM shots WHERE id = 's'");
	char id[RIG_RECEIPT_ID_MAX], body[32];
	for (long long v = 4294967294LL; v <= 4294967297LL; v++) {
		rig_receipt_id(id, seq, v);
		snprintf(body, sizeof body, "\"b%lld\"", v - 4294967294LL);
		cr_assert_eq(rig_receipt_insert(tx, id, seq, v, body), 0);
	}
	cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM receipt_log"), 2);
	cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM receipts"), 2);
	for (long long v = 4294967294LL; v <= 4294967297LL; v++) {
		rig_receipt_id(id, seq, v);
		char *got = NULL;
		cr_assert_eq(rig_receipt_get(tx, id, &got), 0, "%s", id);
		snprintf(body, sizeof body, "\"b%lld\"", v - 4294967294LL);
		cr_assert_str_eq(got, body);
		free(got);
		char project[RIG_ID_MAX + 1];
		cr_assert_eq(rig_resource_project(tx, RIG_RESOURCE_RECEIPT, id, project), 0, "%s",
			     id);
		cr_assert_str_eq(project, "p");
	}
	char *none = NULL;
	cr_assert_eq(rig_receipt_get(tx, "r.1.4294967298", &none), -RIG_NOT_FOUND);
	char listed[512] = "";
	cr_assert_eq(rig_receipt_list(tx, seq, 9223372036854775807LL, 3, list_into, listed), 0);
	cr_assert_str_eq(listed, "3=\"b3\" 2=\"b2\" 1=\"b1\" ");
	listed[0] = '\0';
	cr_assert_eq(rig_receipt_list(tx, seq, 4294967295LL, 3, list_into, listed), 0);
	cr_assert_str_eq(listed, "0=\"b0\" ");
	cr_assert_eq(rig_shot_delete(tx, "s", -1), 0);
	cr_assert_eq(bare_tx_int(tx, "SELECT (SELECT count(*) FROM receipt_log)"
				     " + (SELECT count(*) FROM receipts)"),
		     0);
	bare_tx_close(tx);
}
