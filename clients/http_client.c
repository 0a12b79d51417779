/* The libcurl wrapper of http_client.h. */
#include "clients/http_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version/version.h"

/* The first line of the file at path (without its newline), or NULL with
 * the reason in *why (borrowed: a literal or strerror's text). */
static char *first_line(const char *path, const char **why)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		*why = errno == ENOENT ? "no such file" : strerror(errno);
		return NULL;
	}
	char line[256];
	char *out = NULL;
	*why = "its first line is empty";
	if (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] && !(out = strdup(line)))
			*why = "out of memory";
	}
	fclose(f);
	return out;
}

/* A token is "rigd_" and base64url characters: anything else (a CR or LF
 * above all, which would start another header) is not sent. */
static char *checked_token(char *t)
{
	if (t &&
	    (strlen(t) > 200 || strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					  "0123456789-_") != strlen(t))) {
		fprintf(stderr, "ignoring an API token with characters outside [A-Za-z0-9_-]\n");
		free(t);
		return NULL;
	}
	return t;
}

/* Appends "place (why)" to the list in out, comma-separated. */
static void note(char *out, size_t size, const char *place, const char *why)
{
	size_t len = strlen(out);
	if (len < size)
		snprintf(out + len, size - len, "%s%s (%s)", len ? ", " : "", place, why);
}

char *rig_http_find_token(char *out_searched, size_t searched_size)
{
	char *searched = out_searched;
	size_t size = searched_size;
	searched[0] = '\0';
	const char *env = getenv("RIGD_TOKEN");
	if (env && *env) {
		char *t = checked_token(strdup(env));
		if (!t)
			note(searched, size, "RIGD_TOKEN",
			     "ignored: characters outside [A-Za-z0-9_-]");
		return t;
	}
	note(searched, size, "RIGD_TOKEN", "not set");
	const char *file = getenv("RIGD_TOKEN_FILE");
	const char *db = getenv("RIGD_DB");
	char path[1100], place[2200], cwd[1024], reason[160];
	if (file && *file)
		snprintf(path, sizeof path, "%s", file);
	else
		snprintf(path, sizeof path, "%s.token", db && *db ? db : "./rigd.db");
	const char *why = NULL;
	char *line = first_line(path, &why);
	bool had_line = line != NULL;
	char *t = checked_token(line);
	if (t)
		return t;
	if (had_line)
		why = "ignored: characters outside [A-Za-z0-9_-]";
	/* A relative path is named with the folder it was looked for in. */
	const char *shown = strncmp(path, "./", 2) == 0 ? path + 2 : path;
	bool relative = path[0] != '/' && getcwd(cwd, sizeof cwd);
	snprintf(place, sizeof place, "%s%s%s%s", file && *file ? "RIGD_TOKEN_FILE " : "",
		 relative ? cwd : "", relative ? "/" : "", shown);
	if (!(file && *file)) {
		note(searched, size, "RIGD_TOKEN_FILE", "not set");
		snprintf(reason, sizeof reason, "%s; %s", why,
			 db && *db ? "the token file beside $RIGD_DB"
				   : "RIGD_DB is not set: the token file beside ./rigd.db");
		why = reason;
	}
	note(searched, size, place, why);
	return NULL;
}

int rig_http_init(struct rig_http *h, const char *base_url, const char *actor)
{
	memset(h, 0, sizeof *h);
	h->base_url = strdup(base_url);
	h->actor = actor ? strdup(actor) : NULL;
	h->token = rig_http_find_token(h->token_searched, sizeof h->token_searched);
	h->curl = curl_easy_init();
	if (!h->base_url || (actor && !h->actor) || !h->curl) {
		snprintf(h->error, sizeof h->error,
			 "cannot set up the HTTP client (out of memory)");
		return -1;
	}
	size_t len = strlen(h->base_url);
	while (len > 0 && h->base_url[len - 1] == '/')
		h->base_url[--len] = '\0';
	return 0;
}

void rig_http_release(struct rig_http *h)
{
	if (h->curl)
		curl_easy_cleanup(h->curl);
	free(h->base_url);
	free(h->actor);
	free(h->token);
	memset(h, 0, sizeof *h);
}

void rig_http_resp_init(struct rig_http_resp *resp)
{
	memset(resp, 0, sizeof *resp);
	rig_bytes_init(&resp->body);
}

void rig_http_resp_release(struct rig_http_resp *resp)
{
	rig_bytes_release(&resp->body);
}

bool rig_http_ok(const struct rig_http_resp *resp)
{
	return resp->status >= 200 && resp->status < 300;
}

struct transfer {
	struct rig_http *h;
	const struct rig_http_req *req;
	struct rig_http_resp *resp;
	bool oom;
};

static size_t on_data(char *data, size_t size, size_t n, void *ctx)
{
	struct transfer *t = ctx;
	size_t len = size * n;
	if (t->resp->status == 0)
		curl_easy_getinfo(t->h->curl, CURLINFO_RESPONSE_CODE, &t->resp->status);
	if (t->req->sink && rig_http_ok(t->resp)) {
		t->resp->sink_started = true;
		t->resp->sink_rc = t->req->sink(t->req->sink_ctx, data, len);
		return t->resp->sink_rc ? 0 : len;
	}
	if (rig_bytes_append(&t->resp->body, data, len) != 0) {
		t->oom = true;
		return 0;
	}
	return len;
}

/* Builds the header list; NULL when memory runs out. */
static struct curl_slist *headers_for(const struct rig_http *h, const struct rig_http_req *req)
{
	char line[1024];
	struct curl_slist *list = NULL, *next;
	const char *fixed[] = {"Accept: application/json, application/problem+json, */*",
			       "Expect:", req->body ? "Content-Type: application/json" : NULL};
	for (size_t i = 0; i < 3; i++) {
		if (!fixed[i])
			continue;
		if (!(next = curl_slist_append(list, fixed[i])))
			goto out_fail;
		list = next;
	}
	const char *names[] = {"X-Rigd-Actor", "Idempotency-Key", "If-Match"};
	const char *values[] = {h->actor, req->idempotency_key, req->if_match};
	if (h->token) {
		snprintf(line, sizeof line, "Authorization: Bearer %s", h->token);
		if (!(next = curl_slist_append(list, line)))
			goto out_fail;
		list = next;
	}
	for (size_t i = 0; i < 3; i++) {
		if (!values[i])
			continue;
		snprintf(line, sizeof line, "%s: %s", names[i], values[i]);
		if (!(next = curl_slist_append(list, line)))
			goto out_fail;
		list = next;
	}
	return list;
out_fail:
	curl_slist_free_all(list);
	return NULL;
}

/* Turns a curl failure into a sentence for people. */
static void describe_failure(struct rig_http *h, CURLcode cc, const char *detail,
			     const struct transfer *t)
{
	const char *what = detail[0] ? detail : curl_easy_strerror(cc);
	switch (cc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_OPERATION_TIMEDOUT:
		if (!t->resp->status) {
			snprintf(h->error, sizeof h->error,
				 "cannot reach rigd at %s: %s (is the server running? set --url or"
				 " RIGD_URL)",
				 h->base_url, what);
			return;
		}
		break;
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL:
		snprintf(h->error, sizeof h->error, "'%s' is not a usable server URL: %s",
			 h->base_url, what);
		return;
	default:
		break;
	}
	if (t->oom)
		snprintf(h->error, sizeof h->error, "out of memory reading the response");
	else if (t->resp->status)
		snprintf(h->error, sizeof h->error, "the response from %s broke off (HTTP %ld): %s",
			 h->base_url, t->resp->status, what);
	else
		snprintf(h->error, sizeof h->error, "request to %s failed: %s", h->base_url, what);
}

int rig_http_send(struct rig_http *h, const struct rig_http_req *req, struct rig_http_resp *resp)
{
	struct transfer t = {h, req, resp, false};
	char detail[CURL_ERROR_SIZE] = "";
	struct rig_bytes url;
	int rc = -1;
	rig_bytes_init(&url);
	rig_bytes_clear(&resp->body);
	resp->status = 0;
	resp->content_type[0] = '\0';
	resp->sink_rc = 0;
	resp->sink_started = false;
	resp->header[0] = '\0';
	h->error[0] = '\0';
	struct curl_slist *headers = headers_for(h, req);
	if (!headers || rig_bytes_printf(&url, "%s%s", h->base_url, req->target) != 0) {
		snprintf(h->error, sizeof h->error, "out of memory building the request");
		goto out;
	}
	CURL *c = h->curl;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url.data);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	char agent[64];
	snprintf(agent, sizeof agent, "rigd-clients/%s", rig_version());
	curl_easy_setopt(c, CURLOPT_USERAGENT, agent);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
	const char *method = req->method ? req->method : "GET";
	if (req->body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	}
	if (strcmp(method, "GET") != 0 && !(req->body && strcmp(method, "POST") == 0))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	CURLcode cc = curl_easy_perform(c);
	/* The error buffer is ours only during perform. */
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
	if (resp->status == 0)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	char *ct = NULL;
	if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
		snprintf(resp->content_type, sizeof resp->content_type, "%s", ct);
	/* curl_easy_header: libcurl 7.84 or later; -1 is the last request (no
	 * redirects are followed) */
	struct curl_header *kept = NULL;
	if (req->keep_header &&
	    curl_easy_header(c, req->keep_header, 0, CURLH_HEADER, -1, &kept) == CURLHE_OK)
		snprintf(resp->header, sizeof resp->header, "%s", kept->value);
	if (cc == CURLE_WRITE_ERROR && resp->sink_rc) {
		snprintf(h->error, sizeof h->error, "stopped reading the response");
		goto out;
	}
	if (cc != CURLE_OK) {
		describe_failure(h, cc, detail, &t);
		goto out;
	}
	rc = 0;
out:
	curl_slist_free_all(headers);
	rig_bytes_release(&url);
	return rc;
}
