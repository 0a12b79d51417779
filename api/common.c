/* Helpers shared by the handlers (see api.h): body parsing, storage failures,
 * write transactions with idempotent responses, paging, tokens, ids, ETags.
 * The idempotency keys themselves are in idempotency.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "api.h"
#include "idempotency.h"
#include "bulk.h"
#include "membudget.h"
#include "receipts.h"
#include "sha256.h"
#include "textbuf.h"

json_t *rig_api__parse_body(struct rig_req *req, struct rig_resp *resp)
{
	return rig_api__parse_body_bulk(req, resp, -1);
}

json_t *rig_api__parse_body_bulk(struct rig_req *req, struct rig_resp *resp, int mode)
{
	const char *ctype = rig_api__header(req, "Content-Type");
	/* Bodies are JSON whatever the label says (curl -d sends form-urlencoded);
	 * only a multipart upload is clearly something else. */
	if (ctype && strncasecmp(ctype, "multipart/", 10) == 0) {
		rig_problem(resp, RIG_UNSUPPORTED_MEDIA_TYPE,
			    json_pack("{s:s}", "contentType", ctype),
			    "content type '%.60s' is not application/json", ctype);
		return NULL;
	}
	if (mode >= 0 && req->body_scratch && !req->bulk &&
	    rig_bulk_extract(&req->bulk, req->body_scratch, req->body_len, (enum rig_bulk_mode)mode,
			     RIG_BULK_MIN_BYTES) != 0) {
		rig_problem(resp, RIG_MEMORY_BUSY, NULL,
			    "the server ran out of memory reading the request body");
		return NULL;
	}
	json_error_t jerr;
	rig_membudget_parse_begin(req->app ? req->app->budget : NULL, req->mem);
	json_t *doc = json_loadb(req->body ? req->body : "", req->body_len,
				 JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	bool starved = rig_membudget_parse_end();
	if (!doc && (starved || json_error_code(&jerr) == json_error_out_of_memory)) {
		rig_problem(resp, RIG_MEMORY_BUSY, NULL,
			    "the server ran out of memory parsing the request body");
		return NULL;
	}
	if (!doc) {
		rig_problem(resp, RIG_MALFORMED_JSON,
			    json_pack("{s:i, s:i, s:i}", "line", jerr.line, "column", jerr.column,
				      "position", jerr.position),
			    "%s at line %d column %d", jerr.text, jerr.line, jerr.column);
		return NULL;
	}
	if (!json_is_object(doc)) {
		json_decref(doc);
		rig_problem(resp, RIG_MALFORMED_JSON, json_pack("{s:s}", "pointer", ""),
			    "the request body must be a JSON object");
		return NULL;
	}
	return doc;
}

void rig_api__fail(struct rig_resp *resp, int rc, const char *what)
{
	enum rig_code code = rc < 0 ? (enum rig_code)-rc : RIG_INTERNAL;
	if (code <= RIG_OK || code >= RIG_CODE_COUNT)
		code = RIG_INTERNAL;
	if (code == RIG_NOT_FOUND)
		rig_problem(resp, code, NULL, "%s: not found", what);
	else if (code == RIG_STORAGE_UNAVAILABLE)
		rig_problem(resp, code, NULL, "%s: the database is busy", what);
	else if (code == RIG_STORAGE_FULL)
		rig_problem(resp, code, NULL, "%s: the database's disk is full; nothing was written",
			    what);
	else
		rig_problem(resp, code, NULL, "%s failed", what);
	/* A full disk stays full until an operator acts: no Retry-After hint; a
	 * memory refusal got its own from rig_problem. */
	if (rig_code_retryable(code) && code != RIG_STORAGE_FULL && code != RIG_MEMORY_BUSY)
		rig_resp_header(resp, "Retry-After", "1");
}

struct rig_errs *rig_api__errs_new(struct rig_resp *resp)
{
	struct rig_errs *errs = rig_errs_new();
	if (!errs)
		rig_problem(resp, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
	return errs;
}

void rig_api__fail_shot(struct rig_resp *resp, int rc, const char *shot_id)
{
	if (rc == -RIG_NOT_FOUND)
		rig_problem(resp, RIG_NOT_FOUND, json_pack("{s:s}", "shotId", shot_id),
			    "shot '%s' does not exist", shot_id);
	else
		rig_api__fail(resp, rc, "reading the shot");
}

int rig_api__begin(struct rig_req *req, sqlite3 *conn)
{
	int rc = rig_db_begin_write(req->app->db, conn);
	if (rc == 0 && (rc = rig_api__idem_recheck(req, conn)) != 0) {
		/* Recorded meanwhile (or unreadable): apply nothing. */
		rig_db_exec(conn, "ROLLBACK");
		rig_db_end_write(req->app->db, conn);
	}
	return rc;
}

int rig_api__commit(struct rig_req *req, sqlite3 *conn, struct rig_resp *resp)
{
	int rc = rig_api__store_response(req, conn, resp);
	if (rc == 0) {
		int s = rig_db_exec(conn, "COMMIT");
		rc = s == SQLITE_OK ? 0 : rig_db_fail(s);
	}
	if (rc) {
		rig_db_exec(conn, "ROLLBACK");
		free(resp->body);
		resp->body = NULL;
		resp->n_headers = 0;
		rig_api__fail(resp, rc, "committing the write");
	}
	return rc;
}

int rig_api__page_size(struct rig_req *req, struct rig_resp *resp, size_t *out)
{
	const char *s = rig_api__query(req, "pageSize");
	*out = RIG_DEFAULT_PAGE_SIZE;
	if (!s)
		return 0;
	char *end = NULL;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (!*s || *end || n <= 0) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "pageSize"),
			    "pageSize must be a positive integer");
		return -1;
	}
	*out = n > RIG_MAX_PAGE_SIZE || errno == ERANGE ? RIG_MAX_PAGE_SIZE : (size_t)n;
	return 0;
}

/* ---- base64url without padding ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *b64_encode(const unsigned char *p, size_t n)
{
	char *out = malloc(4 * (n / 3 + 1) + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		if (i + 1 < n)
			*o++ = b64[v >> 6 & 63];
		if (i + 2 < n)
			*o++ = b64[v & 63];
	}
	*o = '\0';
	return out;
}

static unsigned char *b64_decode(const char *s, size_t len, size_t *out_n)
{
	if (len % 4 == 1)
		return NULL;
	unsigned char *out = malloc(len * 3 / 4 + 1);
	if (!out)
		return NULL;
	size_t n = 0;
	unsigned acc = 0;
	int bits = 0;
	for (size_t i = 0; i < len; i++) {
		const char *c = memchr(b64, s[i], 64);
		if (!c || !s[i]) {
			free(out);
			return NULL;
		}
		acc = acc << 6 | (unsigned)(c - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	*out_n = n;
	return out;
}

/* token = base64url(payload JSON) "." base64url(HMAC-SHA-256(secret, payload)[0..16)) */
char *rig_api__token_make(struct rig_app *app, json_t *payload)
{
	char *text = json_dumps(payload, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		return NULL;
	unsigned char mac[RIG_SHA256_SIZE];
	rig_hmac_sha256(mac, rig_db_secret(app->db), 32, text, strlen(text));
	char *body = b64_encode((const unsigned char *)text, strlen(text));
	char *sig = b64_encode(mac, 16);
	char *token = NULL;
	if (body && sig && (token = malloc(strlen(body) + strlen(sig) + 2)))
		sprintf(token, "%s.%s", body, sig);
	free(text);
	free(body);
	free(sig);
	return token;
}

json_t *rig_api__token_open(struct rig_app *app, const char *token)
{
	const char *dot = strchr(token, '.');
	if (!dot || strlen(token) > 4096)
		return NULL;
	size_t n_text = 0, n_sig = 0;
	unsigned char *text = b64_decode(token, (size_t)(dot - token), &n_text);
	unsigned char *sig = b64_decode(dot + 1, strlen(dot + 1), &n_sig);
	json_t *payload = NULL;
	if (!text || !sig || n_sig != 16)
		goto out;
	/* Only the canonical spelling: unused low bits of the last character would
	 * otherwise let several strings carry one token. */
	char *again_text = b64_encode(text, n_text), *again_sig = b64_encode(sig, n_sig);
	bool canonical = again_text && again_sig &&
			 strlen(again_text) == (size_t)(dot - token) &&
			 memcmp(again_text, token, (size_t)(dot - token)) == 0 &&
			 strcmp(again_sig, dot + 1) == 0;
	free(again_text);
	free(again_sig);
	if (!canonical)
		goto out;
	unsigned char mac[RIG_SHA256_SIZE];
	rig_hmac_sha256(mac, rig_db_secret(app->db), 32, text, n_text);
	unsigned char diff = 0;
	for (int i = 0; i < 16; i++)
		diff |= (unsigned char)(mac[i] ^ sig[i]);
	if (diff)
		goto out;
	payload = json_loadb((const char *)text, n_text, 0, NULL);
	if (payload && !json_is_object(payload)) {
		json_decref(payload);
		payload = NULL;
	}
out:
	free(text);
	free(sig);
	return payload;
}

void rig_api__new_id(char out[RIG_ID_MAX + 1], const char *prefix)
{
	unsigned char raw[8] = {0};
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		/* Not a security token: fall back on the clock and address entropy. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		unsigned long long v = (unsigned long long)ts.tv_nsec ^
				       ((unsigned long long)ts.tv_sec << 20) ^ (uintptr_t)out;
		memcpy(raw, &v, sizeof raw);
	}
	snprintf(out, RIG_ID_MAX + 1, "%s%02x%02x%02x%02x%02x%02x%02x%02x", prefix, raw[0], raw[1],
		 raw[2], raw[3], raw[4], raw[5], raw[6], raw[7]);
}

void rig_api__etag(struct rig_resp *resp, long long version)
{
	rig_resp_header(resp, "ETag", "\"%lld\"", version);
}

int rig_api__if_match(struct rig_req *req, struct rig_resp *resp, long long *out, bool *present)
{
	const char *h = rig_api__header(req, "If-Match");
	*out = -1;
	*present = h != NULL;
	if (!h)
		return 0;
	size_t len = strlen(h);
	char *end = NULL;
	long long v = -1;
	if (len >= 3 && h[0] == '"' && isdigit((unsigned char)h[1]) && h[len - 1] == '"') {
		errno = 0;
		v = strtoll(h + 1, &end, 10);
		if (errno || end != h + len - 1)
			v = -1;
	}
	if (v < 0) {
		rig_problem(resp, RIG_PRECONDITION_INVALID, json_pack("{s:s}", "parameter", "If-Match"),
			    "If-Match must be one quoted version such as \"12\"");
		return -1;
	}
	*out = v;
	return 0;
}

void rig_api__iso8601(char out[RIG_TIMESTAMP_MAX], long long unix_ms)
{
	time_t secs = (time_t)(unix_ms / 1000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	snprintf(out, RIG_TIMESTAMP_MAX, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, unix_ms % 1000);
}

long long rig_api__now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- paging over seq cursors ---- */

/* Reads pageSize and pageToken for a list of kind `kind` scoped to `scope`;
 * *after is the cursor to continue from. Returns 0 or -1 with resp filled. */
int rig_api__page_start(struct rig_req *req, struct rig_resp *resp, const char *kind,
			const char *scope, struct rig_page *p, long long *after)
{
	if (rig_api__page_size(req, resp, &p->limit))
		return -1;
	p->items = json_array();
	p->last_seq = 0;
	p->more = false;
	*after = 0;
	const char *token = rig_api__query(req, "pageToken");
	if (!token)
		return 0;
	json_t *t = rig_api__token_open(req->app, token);
	const char *k = t ? json_string_value(json_object_get(t, "k")) : NULL;
	const char *s = t ? json_string_value(json_object_get(t, "s")) : NULL;
	if (!k || !s || strcmp(k, kind) || strcmp(s, scope) ||
	    !json_is_integer(json_object_get(t, "c"))) {
		json_decref(t);
		json_decref(p->items);
		rig_problem(resp, RIG_PAGE_TOKEN_INVALID, json_pack("{s:s}", "parameter", "pageToken"),
			    "pageToken was not issued for this list");
		return -1;
	}
	*after = json_integer_value(json_object_get(t, "c"));
	json_decref(t);
	return 0;
}

/* Answers the page; a full page gets a nextPageToken continuing after its last item. */
void rig_api__page_finish(struct rig_req *req, struct rig_resp *resp, const char *kind,
			  const char *scope, struct rig_page *p, const char *items_name, json_t *body)
{
	if (!body)
		body = json_object();
	json_object_set_new(body, items_name, p->items);
	if (p->more) {
		json_t *t = json_pack("{s:s, s:s, s:I}", "k", kind, "s", scope, "c",
				      (json_int_t)p->last_seq);
		char *token = rig_api__token_make(req->app, t);
		json_decref(t);
		if (token)
			json_object_set_new(body, "nextPageToken", json_string(token));
		free(token);
	}
	rig_resp_json(resp, 200, body, NULL);
}


bool rig_api__none_match(struct rig_req *req, const char *tag)
{
	const char *h = rig_api__header(req, "If-None-Match");
	if (!h)
		return false;
	size_t tag_len = strlen(tag);
	for (const char *p = h; *p;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '*')
			return true;
		if (p[0] == 'W' && p[1] == '/')
			p += 2;
		const char *end = p;
		if (*end == '"') {
			end = strchr(end + 1, '"');
			end = end ? end + 1 : p + strlen(p);
		} else {
			while (*end && *end != ',')
				end++;
		}
		if ((size_t)(end - p) == tag_len && memcmp(p, tag, tag_len) == 0)
			return true;
		p = end;
	}
	return false;
}

json_t *rig_api__words_json(const char *list)
{
	json_t *a = json_array();
	const char *word;
	size_t len;
	for (const char *p = list ? list : ""; rig_words_next(&p, &word, &len);)
		json_array_append_new(a, json_stringn(word, len));
	return a;
}
