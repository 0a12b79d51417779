/* Paging (paging.h): pageSize, keyset cursors carried in signed, opaque page
 * tokens (base64url of a JSON payload and an HMAC-SHA-256 tag keyed by the
 * database's secret).
 */
#include "api/http/paging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/http/problem.h"
#include "api/http/request.h"
#include "api/util/sha256.h"

int rig_api__page_size(struct rig_req *req, struct rig_resp *resp, size_t *out)
{
	const char *s = rig_api__query(req, "pageSize");
	*out = RIG_DEFAULT_PAGE_SIZE;
	if (!s)
		return 0;
	unsigned long long n;
	if (rig_api__parse_count(&n, s) || n == 0) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "pageSize"),
			    "pageSize must be a positive integer");
		return -1;
	}
	*out = n > RIG_MAX_PAGE_SIZE ? RIG_MAX_PAGE_SIZE : (size_t)n;
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
	rig_hmac_sha256(mac, rig_store_secret(app->store), 32, text, strlen(text));
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
	bool canonical = again_text && again_sig && strlen(again_text) == (size_t)(dot - token) &&
			 memcmp(again_text, token, (size_t)(dot - token)) == 0 &&
			 strcmp(again_sig, dot + 1) == 0;
	free(again_text);
	free(again_sig);
	if (!canonical)
		goto out;
	unsigned char mac[RIG_SHA256_SIZE];
	rig_hmac_sha256(mac, rig_store_secret(app->store), 32, text, n_text);
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
		rig_problem(resp, RIG_PAGE_TOKEN_INVALID,
			    json_pack("{s:s}", "parameter", "pageToken"),
			    "pageToken was not issued for this list");
		return -1;
	}
	*after = json_integer_value(json_object_get(t, "c"));
	json_decref(t);
	return 0;
}

/* Answers the page; a full page gets a nextPageToken continuing after its last item. */
void rig_api__page_finish(struct rig_req *req, struct rig_resp *resp, const char *kind,
			  const char *scope, struct rig_page *p, const char *items_name,
			  json_t *body)
{
	if (!body)
		body = json_object();
	json_object_set_new(body, items_name, p->items);
	if (p->more) {
		json_t *t = json_pack("{s:s, s:s, s:I}", "k", kind, "s", scope, "c",
				      (json_int_t)p->last_seq);
		char *token = t ? rig_api__token_make(req->app, t) : NULL;
		json_decref(t);
		int rc =
			token ? json_object_set_new(body, "nextPageToken", json_string(token)) : -1;
		free(token);
		if (rc) { /* a full page without its token would read as the listing's end */
			json_decref(body);
			rig_problem(resp, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
			return;
		}
	}
	rig_resp_json(resp, 200, body, NULL);
}

int rig_api__pinned_page_open(struct rig_req *req, struct rig_resp *resp,
			      const struct rig_pinned_page *pp, size_t end, size_t *offset)
{
	return rig_api__pinned_page_open_token(req->app, resp, pp, rig_api__query(req, "pageToken"),
					       end, offset);
}

int rig_api__pinned_page_open_token(struct rig_app *app, struct rig_resp *resp,
				    const struct rig_pinned_page *pp, const char *token, size_t end,
				    size_t *offset)
{
	*offset = 0;
	if (!token)
		return 0;
	json_t *t = rig_api__token_open(app, token);
	const char *k = json_string_value(json_object_get(t, "k"));
	const char *s = json_string_value(json_object_get(t, "s"));
	const char *q = json_string_value(json_object_get(t, "q"));
	json_t *v = json_object_get(t, "v"), *o = json_object_get(t, "o");
	int rc = -1;
	if (!k || !s || !q || !json_is_integer(v) || !json_is_integer(o) || strcmp(k, pp->kind) ||
	    json_integer_value(o) < 0 || (unsigned long long)json_integer_value(o) > end) {
		rig_problem(resp, RIG_PAGE_TOKEN_INVALID,
			    json_pack("{s:s}", "parameter", "pageToken"),
			    "pageToken is not a token this server issued for this list");
	} else if (strcmp(s, pp->scope) || strcmp(q, pp->query)) {
		rig_problem(resp, RIG_PAGE_TOKEN_INVALID,
			    json_pack("{s:s}", "parameter", "pageToken"),
			    "pageToken was issued for another query; send the same %s",
			    pp->query_names);
	} else if (json_integer_value(v) != pp->version) {
		rig_problem(resp, RIG_PAGE_TOKEN_STALE,
			    json_pack("{s:I, s:I}", "tokenVersion", json_integer_value(v),
				      "shotVersion", (json_int_t)pp->version),
			    "the shot changed since this page token was issued (version %lld, now "
			    "%lld)",
			    (long long)json_integer_value(v), pp->version);
	} else {
		*offset = (size_t)json_integer_value(o);
		rc = 0;
	}
	json_decref(t);
	return rc;
}

char *rig_api__pinned_page_token(struct rig_app *app, const struct rig_pinned_page *pp,
				 size_t offset)
{
	json_t *t = json_pack("{s:s, s:s, s:s, s:I, s:I}", "k", pp->kind, "s", pp->scope, "q",
			      pp->query, "v", (json_int_t)pp->version, "o", (json_int_t)offset);
	char *token = t ? rig_api__token_make(app, t) : NULL;
	json_decref(t);
	return token;
}

void rig_api__pinned_page_answer(struct rig_req *req, struct rig_resp *resp,
				 const struct rig_pinned_page *pp, bool more, size_t next,
				 json_t *body)
{
	char *token = body && more ? rig_api__pinned_page_token(req->app, pp, next) : NULL;
	if (!body || (more && (!token || json_object_set_new(body, "nextPageToken",
							     json_string(token)) != 0))) {
		free(token);
		json_decref(body);
		rig_problem(resp, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
		return;
	}
	free(token);
	rig_resp_json(resp, 200, body, NULL);
}
