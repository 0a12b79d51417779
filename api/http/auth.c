/* Tokens, scopes and the request gate of auth.h. */
#include "api/http/auth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/http/ratelimit.h"
#include "api/http/request.h"
#include "api/util/sha256.h"
#include "api/util/textbuf.h"
#include "core/ids.h"
#include "storage/resources.h"
#include "storage/store.h"

static const char *const scope_names[] = {"none", "read", "edit", "admin"};

const char *rig_scope_name(enum rig_scope s)
{
	return s <= RIG_SCOPE_ADMIN ? scope_names[s] : "none";
}

/* The level named by the len bytes at s, or RIG_SCOPE_NONE. */
static enum rig_scope level_named(const char *s, size_t len)
{
	for (int i = RIG_SCOPE_READ; i <= RIG_SCOPE_ADMIN; i++)
		if (strlen(scope_names[i]) == len && memcmp(s, scope_names[i], len) == 0)
			return (enum rig_scope)i;
	return RIG_SCOPE_NONE;
}

int rig_scopes_canonical(char out[RIG_TOKEN_SCOPES_MAX], const char *const *items, size_t n,
			 size_t *bad, char *err, size_t err_size)
{
	out[0] = '\0';
	*bad = 0;
	if (n < 1 || n > RIG_TOKEN_MAX_SCOPES) {
		snprintf(err, err_size, "a token has 1 to %d scopes", RIG_TOKEN_MAX_SCOPES);
		return -1;
	}
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		const char *item = items[i];
		const char *colon = strchr(item, ':');
		size_t len = colon ? (size_t)(colon - item) : strlen(item);
		if (level_named(item, len) == RIG_SCOPE_NONE ||
		    (colon && !rig_id_is_valid(colon + 1))) {
			*bad = i;
			snprintf(err, err_size,
				 "scope '%.80s' is not read, edit or admin, alone or as"
				 " <scope>:<projectId>",
				 item);
			return -1;
		}
		int w = snprintf(out + used, RIG_TOKEN_SCOPES_MAX - used, "%s%s", used ? " " : "",
				 item);
		used += (size_t)w;
	}
	return 0;
}

/* The highest level of scopes that applies to project_id (global scopes
 * always; with any_project, every project's scope too). */
static enum rig_scope best_level(const char *scopes, const char *project_id, bool any_project)
{
	enum rig_scope best = RIG_SCOPE_NONE;
	size_t n_project = project_id ? strlen(project_id) : 0;
	const char *scope;
	size_t len;
	for (const char *p = scopes; rig_words_next(&p, &scope, &len);) {
		const char *colon = memchr(scope, ':', len);
		size_t n_level = colon ? (size_t)(colon - scope) : len;
		bool applies = !colon || any_project ||
			       (project_id && len - n_level - 1 == n_project &&
				memcmp(colon + 1, project_id, n_project) == 0);
		enum rig_scope level = level_named(scope, n_level);
		if (applies && level > best)
			best = level;
	}
	return best;
}

enum rig_scope rig_scopes_level(const char *scopes, const char *project_id)
{
	return best_level(scopes, project_id, false);
}

/* Appends the audit record of a token created or revoked outside a request
 * (the bootstrap token, `rigd token`): actor is "bootstrap" or "cli". */
int rig_auth_audit_offline(struct rig_tx *tx, const char *action, const char *actor,
			   const struct rig_token *t)
{
	json_t *record = json_pack("{s:s, s:s, s:n, s:s, s:s, s:o}", "action", action, "actor",
				   actor, "tokenId", "subjectTokenId", t->id, "name", t->name,
				   "scopes", rig_api__words_json(t->scopes));
	char *text = record ? json_dumps(record, JSON_COMPACT) : NULL;
	json_decref(record);
	int rc = text ? rig_audit_insert(tx, action, actor, NULL, text, NULL) : -RIG_INTERNAL;
	free(text);
	return rc;
}

/* ---- secrets ---- */

static void base64url(char *out, const unsigned char *in, size_t n)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t o = 0, i = 0;
	for (; i + 3 <= n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
		out[o++] = abc[v >> 18 & 63];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = abc[v >> 6 & 63];
		out[o++] = abc[v & 63];
	}
	if (n - i == 2) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8;
		out[o++] = abc[v >> 18 & 63];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = abc[v >> 6 & 63];
	} else if (n - i == 1) {
		unsigned v = (unsigned)in[i] << 16;
		out[o++] = abc[v >> 18 & 63];
		out[o++] = abc[v >> 12 & 63];
	}
	out[o] = '\0';
}

/* Fills buf with n bytes from the kernel's CSPRNG; -1 when it cannot. */
static int random_bytes(unsigned char *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static void secret_hash(char out[RIG_SHA256_HEX_SIZE], const char *secret)
{
	rig_sha256_hex_of(out, secret, strlen(secret));
}

int rig_auth_token_create(struct rig_tx *tx, const char *name, const char *scopes, bool has_expiry,
			  long long expires_unix, const char *created_by, struct rig_token *out,
			  char secret[RIG_TOKEN_SECRET_MAX])
{
	memset(out, 0, sizeof *out);
	secret[0] = '\0';
	unsigned char raw[32], id_raw[6];
	if (random_bytes(raw, sizeof raw) || random_bytes(id_raw, sizeof id_raw))
		return -RIG_INTERNAL;
	char b64[48];
	base64url(b64, raw, sizeof raw);
	snprintf(secret, RIG_TOKEN_SECRET_MAX, "rigd_%s", b64);
	snprintf(out->id, sizeof out->id, "t-%02x%02x%02x%02x%02x%02x", id_raw[0], id_raw[1],
		 id_raw[2], id_raw[3], id_raw[4], id_raw[5]);
	rig_strlcpy(out->name, name, sizeof out->name);
	rig_strlcpy(out->scopes, scopes, sizeof out->scopes);
	rig_strlcpy(out->created_by, created_by, sizeof out->created_by);
	out->has_expiry = has_expiry;
	out->expires_unix = expires_unix;
	char hash[RIG_SHA256_HEX_SIZE];
	secret_hash(hash, secret);
	int rc = rig_token_insert(tx, out, hash);
	if (rc)
		secret[0] = '\0';
	return rc;
}

/* Writes secret to path with mode 0600, atomically (temporary file, rename). */
static int write_secret_file(const char *path, const char *secret, char *err, size_t err_size)
{
	char tmp[1200]; /* the path (rigd's are under 1108 bytes) and the suffix */
	snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
	/* O_EXCL | O_NOFOLLOW: a file or link planted under the temporary name
	 * never receives the secret. */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, err_size, "cannot create '%s': %s", tmp, strerror(errno));
		return -1;
	}
	size_t len = strlen(secret);
	bool ok = fchmod(fd, 0600) == 0 && write(fd, secret, len) == (ssize_t)len &&
		  write(fd, "\n", 1) == 1 && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		snprintf(err, err_size, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int rig_auth_bootstrap(struct rig_store *store, const char *token_file, bool *created, char *err,
		       size_t err_size)
{
	*created = false;
	struct rig_tx *tx;
	long long count = 0;
	int rc = rig_store_write(store, &tx);
	if (!rc)
		rc = rig_token_count(tx, &count);
	struct rig_token t;
	char secret[RIG_TOKEN_SECRET_MAX] = "";
	if (!rc && count == 0 && !(token_file && *token_file)) {
		snprintf(err, err_size,
			 "the store has no API token yet and no token file is set to write the"
			 " bootstrap admin token to");
		rc = -1;
	}
	if (!rc && count == 0)
		rc = rig_auth_token_create(tx, "admin", "admin", false, 0, "bootstrap", &t, secret);
	if (!rc && count == 0)
		rc = rig_auth_audit_offline(tx, "token.create", "bootstrap", &t);
	/* The file first: a token nobody can read would lock everyone out. */
	if (!rc && count == 0 && write_secret_file(token_file, secret, err, err_size) != 0)
		rc = -1;
	else if (!rc && count == 0 && (rc = rig_tx_commit(tx)) != 0)
		snprintf(err, err_size, "cannot store the bootstrap token: %s", rig_tx_errmsg(tx));
	else if (rc && rc != -1)
		snprintf(err, err_size, "cannot read the token table (%s)",
			 rig_code_name((enum rig_code) - rc));
	rig_tx_end(tx); /* rolls back whatever did not commit */
	explicit_bzero(secret, sizeof secret);
	if (rc)
		return -1;
	*created = count == 0;
	return 0;
}

/* ---- the gate ---- */

/* --auth off: the caller is whoever X-Rigd-Actor says (default "anonymous"). */
static int trust_actor_header(struct rig_req *req, struct rig_resp *resp)
{
	const char *actor = rig_api__header(req, "X-Rigd-Actor");
	if (!actor)
		actor = "anonymous";
	size_t len = strlen(actor);
	if (len < 1 || len >= sizeof req->actor || !rig_utf8_is_clean(actor)) {
		rig_problem(
			resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "X-Rigd-Actor"),
			"header 'X-Rigd-Actor' must be 1 to %d bytes of UTF-8 text", RIG_ACTOR_MAX);
		return -1;
	}
	memcpy(req->actor, actor, len + 1);
	snprintf(req->principal, sizeof req->principal, "actor:%s", req->actor);
	rig_strlcpy(req->scopes, "admin", sizeof req->scopes);
	req->level = RIG_SCOPE_ADMIN;
	return 0;
}

static int unauthenticated(struct rig_resp *resp, const char *error, const char *detail)
{
	rig_problem(resp, RIG_UNAUTHENTICATED, NULL, "%s", detail);
	if (error)
		rig_resp_header(resp, "WWW-Authenticate", "Bearer realm=\"rigd\", error=\"%s\"",
				error);
	else
		rig_resp_header(resp, "WWW-Authenticate", "Bearer realm=\"rigd\"");
	return -1;
}

/* Answers exactly what the route's handler answers for a missing resource. */
static int as_missing(struct rig_req *req, struct rig_resp *resp, int resource)
{
	static const char *const what[] = {[RIG_RESOURCE_PROJECT] = "project",
					   [RIG_RESOURCE_PLAN] = "plan",
					   [RIG_RESOURCE_LOCK] = "lock",
					   [RIG_RESOURCE_RECEIPT] = "receipt"};
	if (resource == RIG_RESOURCE_SHOT)
		rig_api__fail_shot(resp, -RIG_NOT_FOUND, req->params[0]);
	else
		rig_api__fail(resp, -RIG_NOT_FOUND, what[resource]);
	return -1;
}

static int forbidden(struct rig_resp *resp, enum rig_scope need, const char *project_id)
{
	rig_resp_header(resp, "WWW-Authenticate",
			"Bearer realm=\"rigd\", error=\"insufficient_scope\"");
	if (project_id)
		rig_problem(resp, RIG_FORBIDDEN,
			    json_pack("{s:s, s:s}", "requiredScope", rig_scope_name(need),
				      "projectId", project_id),
			    "this needs scope '%s' on project '%s'", rig_scope_name(need),
			    project_id);
	else
		rig_problem(resp, RIG_FORBIDDEN,
			    json_pack("{s:s}", "requiredScope", rig_scope_name(need)),
			    "this needs scope '%s'", rig_scope_name(need));
	return -1;
}

/* Finds the token of the request's bearer string and checks it is live. */
static int authenticate(struct rig_req *req, struct rig_resp *resp, struct rig_token *tok)
{
	const char *h = rig_api__header(req, "Authorization");
	if (!h)
		return unauthenticated(resp, NULL,
				       "this route needs an API token: send"
				       " 'Authorization: Bearer <token>'");
	if (strncasecmp(h, "Bearer ", 7) != 0)
		return unauthenticated(resp, "invalid_request",
				       "the Authorization header must be 'Bearer <token>'");
	const char *secret = h + 7;
	while (*secret == ' ' || *secret == '\t')
		secret++;
	size_t len = strcspn(secret, " \t");
	const char *rest = secret + len;
	while (*rest == ' ' ||
	       *rest == '\t') /* RFC 9110 §5.5: trailing whitespace is not the value */
		rest++;
	if (len == 0 || *rest || len >= RIG_TOKEN_SECRET_MAX)
		return unauthenticated(resp, "invalid_request",
				       "the Authorization header must be 'Bearer <token>'");
	char copy[RIG_TOKEN_SECRET_MAX], hash[RIG_SHA256_HEX_SIZE];
	memcpy(copy, secret, len);
	copy[len] = '\0';
	secret_hash(hash, copy);
	explicit_bzero(copy, sizeof copy);
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_token_by_hash(tx, hash, tok);
	rig_tx_end(tx);
	if (rc == -RIG_NOT_FOUND)
		return unauthenticated(resp, "invalid_token", "the token is not known");
	if (rc) {
		rig_api__fail(resp, rc, "checking the token");
		return -1;
	}
	if (tok->revoked)
		return unauthenticated(resp, "invalid_token", "the token was revoked");
	if (tok->has_expiry && tok->expires_unix <= (long long)time(NULL))
		return unauthenticated(resp, "invalid_token", "the token has expired");
	return 0;
}

int rig_auth_check_reach(struct rig_req *req, struct rig_resp *resp, enum rig_scope need)
{
	struct rig_token tok;
	if (req->app->limits.auth_off || need == RIG_SCOPE_NONE)
		return 0;
	if (authenticate(req, resp, &tok))
		return -1;
	return best_level(tok.scopes, NULL, true) >= need ? 0 : forbidden(resp, need, NULL);
}

static double monotonic_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int rig_auth_gate(struct rig_req *req, struct rig_resp *resp, enum rig_scope need, int resource)
{
	struct rig_app *app = req->app;
	if (app->limits.auth_off)
		return trust_actor_header(req, resp);
	if (need == RIG_SCOPE_NONE) {
		strcpy(req->actor, "anonymous");
		strcpy(req->principal, "anonymous");
		return 0;
	}
	struct rig_token tok;
	if (authenticate(req, resp, &tok))
		return -1;
	rig_strlcpy(req->actor, tok.name, sizeof req->actor);
	snprintf(req->principal, sizeof req->principal, "token:%s", tok.id);
	rig_strlcpy(req->token_id, tok.id, sizeof req->token_id);
	rig_strlcpy(req->scopes, tok.scopes, sizeof req->scopes);

	if (app->ratelimit && !req->rate_counted) {
		req->rate_counted = true;
		int wait = rig_ratelimit_take(app->ratelimit, tok.id, monotonic_seconds());
		if (wait) {
			rig_problem(resp, RIG_RATE_LIMITED,
				    json_pack("{s:s, s:f, s:i}", "tokenId", tok.id,
					      "requestsPerSecond", app->limits.rate_limit,
					      "retryAfterSeconds", wait),
				    "token '%s' sent more than %g requests per second", tok.id,
				    app->limits.rate_limit);
			rig_resp_header(resp, "Retry-After", "%d", wait);
			return -1;
		}
	}

	enum rig_scope global = rig_scopes_level(tok.scopes, NULL);
	req->level = (int)global;
	/* A token with only global scopes is decided without a lookup; one with a
	 * scope on some project needs the project the path's id belongs to. */
	if (resource >= 0 && strchr(tok.scopes, ':')) {
		char project[RIG_ID_MAX + 1];
		struct rig_tx *tx = rig_store_read(app->store);
		int rc = rig_resource_project(tx, (enum rig_resource)resource, req->params[0],
					      project);
		rig_tx_end(tx);
		if (rc == -RIG_NOT_FOUND)
			return global >= need ? 0 : as_missing(req, resp, resource);
		if (rc) {
			rig_api__fail(resp, rc, "checking the token's scopes");
			return -1;
		}
		enum rig_scope level = rig_scopes_level(tok.scopes, project);
		req->level = (int)level;
		if (level >= need)
			return 0;
		if (level >= RIG_SCOPE_READ)
			return forbidden(resp, need, project);
		return as_missing(req, resp, resource);
	}
	/* Lists and stateless routes need only some scope to read (the project
	 * list shows just the projects the token can read). */
	if (global >= need || (resource < 0 && need == RIG_SCOPE_READ))
		return 0;
	return forbidden(resp, need, NULL);
}
