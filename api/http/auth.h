/* Authentication and authorization: API tokens, their scopes, the gate every
 * routed request passes (rig_auth_gate) and the bootstrap admin token.
 *
 * A token is a bearer string "rigd_<43 base64url characters>" (256 random
 * bits); only its SHA-256 is stored (storage/tokens.h). Its scopes are "read",
 * "edit" and "admin" (each includes the ones before it), each on every project
 * ("edit") or on one ("edit:p1"). Who may call which route is the routing
 * table's (api/app.c); this file decides whether a token reaches that level.
 * Rate limiting per token is ratelimit.h's.
 */
#ifndef RIG_AUTH_H
#define RIG_AUTH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/http/exchange.h"
#include "storage/store.h"
#include "storage/tokens.h"

#define RIG_TOKEN_SECRET_MAX 64 /* "rigd_" + 43 characters + NUL, with room */
#define RIG_TOKEN_MAX_SCOPES 16
#define RIG_TOKEN_MAX_EXPIRES_IN_SECONDS (10LL * 366 * 24 * 3600)

enum rig_scope { RIG_SCOPE_NONE, RIG_SCOPE_READ, RIG_SCOPE_EDIT, RIG_SCOPE_ADMIN };

/* The name of a scope level ("read", …; "none"). */
const char *rig_scope_name(enum rig_scope s);

/* Checks the scope items ("read", "edit:p1", …; 1 to RIG_TOKEN_MAX_SCOPES) and
 * writes them space-separated into out. Returns 0, or -1 with the index of
 * the first bad item in *bad and a message in err. */
int rig_scopes_canonical(char out[RIG_TOKEN_SCOPES_MAX], const char *const *items, size_t n,
			 size_t *bad, char *err, size_t err_size);

/* The level a scope list grants on project_id: the highest of its global
 * scopes and its scopes on that project. NULL project_id: global scopes only. */
enum rig_scope rig_scopes_level(const char *scopes, const char *project_id);

/* Creates a token named name with canonical scopes (rig_scopes_canonical) and
 * writes it in tx's open transaction (or on its own when none is open).
 * created_by is the creating token's id, or "cli" / "bootstrap". The new
 * bearer string goes to secret (shown once, never stored) and the row to *out.
 * Returns 0 or a negative enum rig_code. */
int rig_auth_token_create(struct rig_tx *tx, const char *name, const char *scopes, bool has_expiry,
			  long long expires_unix, const char *created_by, struct rig_token *out,
			  char secret[RIG_TOKEN_SECRET_MAX]);

/* Appends the audit record of action ("token.create", "token.revoke") on t
 * done outside a request, by actor "bootstrap" or "cli", in tx's open
 * transaction. 0 or a negative enum rig_code. */
int rig_auth_audit_offline(struct rig_tx *tx, const char *action, const char *actor,
			   const struct rig_token *t);

/* On a store where no token was ever created, creates the bootstrap admin
 * token ("admin", scope admin) and writes its secret, one line, to the file
 * token_file (the configuration's) with mode 0600, replacing a stale file.
 * With token_file NULL or "" (none configured) such a store is refused rather
 * than given a token nobody can read. Sets *created. Returns 0, or -1 with a
 * message in err. */
int rig_auth_bootstrap(struct rig_store *store, const char *token_file, bool *created, char *err,
		       size_t err_size);

/* Whether req carries a live token whose scopes reach `need` on some project
 * (always true under --auth off): 0, or -1 with resp filled as rig_auth_gate
 * fills it — 401 for a missing, unknown, revoked or expired token, 403 when
 * no scope of the token reaches `need` anywhere. Reads no resource and takes
 * nothing from the rate limit, so it can run before a body is read; the full
 * gate runs after it. Sets nothing in req. */
int rig_auth_check_reach(struct rig_req *req, struct rig_resp *resp, enum rig_scope need);

/* The gate: establishes who is calling (req->actor, principal, token_id,
 * scopes, level) and whether they may reach `need` on the resource the path's
 * first id names (`resource`, an enum rig_resource, or -1 for none). On
 * refusal fills resp (401 with WWW-Authenticate, 403 for a missing scope on a
 * project the caller can read, 404 exactly as for a missing resource when the
 * caller cannot read its project, 429 when over the rate limit) and returns -1.
 * Under --auth off everyone passes as the X-Rigd-Actor header names. */
int rig_auth_gate(struct rig_req *req, struct rig_resp *resp, enum rig_scope need, int resource);

#endif
