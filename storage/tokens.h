/* API tokens and the audit log (migrations/sqlite/0008_tokens.sql).
 *
 * A token row holds the SHA-256 of its bearer secret, never the secret; what a
 * token may do (its scopes) is decided in api/auth.c, not here. The audit log
 * records security-relevant acts as JSON, newest last. Functions run on the
 * caller's struct rig_tx (store.h) and return 0 or a negative enum rig_code.
 */
#ifndef RIG_TOKENS_H
#define RIG_TOKENS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "storage/store.h"

#define RIG_TOKEN_NAME_MAX RIG_ACTOR_MAX /* bytes of a token's name (the actor it acts as) */
#define RIG_TOKEN_SCOPES_MAX 1200        /* bytes of its space-separated scope list */

struct rig_token {
	long long seq; /* paging cursor */
	char id[RIG_ID_MAX + 1];
	char name[RIG_TOKEN_NAME_MAX + 1];
	char scopes[RIG_TOKEN_SCOPES_MAX];
	char created_at[RIG_TIMESTAMP_MAX];
	char created_by[RIG_ID_MAX + 1];
	bool has_expiry;
	long long expires_unix;
	bool revoked;
	char revoked_at[RIG_TIMESTAMP_MAX];
};

/* Inserts t (its seq, created_at and revocation are ignored) under
 * secret_hash (hex SHA-256 of the bearer string); -RIG_LAYER_EXISTS when the
 * id is taken. */
int rig_token_insert(struct rig_tx *tx, const struct rig_token *t, const char *secret_hash);

/* Loads the token whose secret hashes to secret_hash, revoked or expired
 * alike; -RIG_NOT_FOUND when none. */
int rig_token_by_hash(struct rig_tx *tx, const char *secret_hash, struct rig_token *out);

/* Loads one token by id; -RIG_NOT_FOUND when none. */
int rig_token_get(struct rig_tx *tx, const char *id, struct rig_token *out);

/* Marks a token revoked (a revoked token stays revoked: revoking it again
 * changes nothing); -RIG_NOT_FOUND when none. */
int rig_token_revoke(struct rig_tx *tx, const char *id);

/* Called once per token (borrowed for the call); non-zero stops the walk and
 * is returned. */
typedef int (*rig_token_fn)(void *ctx, const struct rig_token *t);

/* Walks up to limit tokens with seq > after_seq, oldest first. */
int rig_token_list(struct rig_tx *tx, long long after_seq, size_t limit, rig_token_fn fn,
		   void *ctx);

/* Sets *out to the number of tokens ever created (revoked ones count). */
int rig_token_count(struct rig_tx *tx, long long *out);

/* Appends an audit record; body is its JSON text. Sets *out_seq (may be NULL). */
int rig_audit_insert(struct rig_tx *tx, const char *action, const char *actor, const char *token_id,
		     const char *body, long long *out_seq);

/* Called once per audit record with its cursor and JSON text (borrowed). */
typedef int (*rig_audit_fn)(void *ctx, long long seq, const char *at, const char *body);

/* Walks up to limit audit records with seq > after_seq, oldest first. */
int rig_audit_list(struct rig_tx *tx, long long after_seq, size_t limit, rig_audit_fn fn,
		   void *ctx);

#endif
