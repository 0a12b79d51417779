/* The clients' one way to talk to rigd: a libcurl easy handle reused across
 * requests (so paging keeps its connection), the X-Rigd-Actor and
 * Idempotency-Key headers, bodies (binary-safe) either buffered or streamed
 * to a sink, and one response header kept on request.
 * What a response means, and printing it, is the caller's (report.h).
 *
 * The program calls curl_global_init/curl_global_cleanup once in main; this
 * module keeps no global state of its own.
 */
#ifndef RIG_HTTP_CLIENT_H
#define RIG_HTTP_CLIENT_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>

#include "clients/bytes.h"

/* The URL used when neither --url nor RIGD_URL is given. */
#define RIG_HTTP_DEFAULT_URL "http://127.0.0.1:8080"

/* The --url row both clients' option tables hold (a struct rig_arg_spec of
 * clients/args.h). */
#define RIG_HTTP_URL_OPTION                                                                        \
	.name = "url", .metavar = "URL", .env = "RIGD_URL", .def = RIG_HTTP_DEFAULT_URL,           \
	.help = "the server's URL"

struct rig_http {
	CURL *curl;                        /* owned */
	char *base_url;                    /* owned; no trailing '/' */
	char *actor;                       /* owned; NULL sends no X-Rigd-Actor */
	char *token;                       /* owned; NULL sends no Authorization */
	char token_searched[2048];         /* without a token: where rig_http_init looked for one */
	char error[CURL_ERROR_SIZE + 512]; /* the last transport failure, readable */
};

/* Receives a 2xx body as it arrives. Returns 0 to go on; anything else stops
 * the transfer and is kept in rig_http_resp.sink_rc. */
typedef int (*rig_http_sink)(void *ctx, const char *data, size_t len);

struct rig_http_req {
	const char *method; /* NULL means GET */
	const char *target; /* path and query from rig_url, starting with '/' */
	const char *body;   /* sent as application/json when not NULL */
	size_t body_len;
	const char *idempotency_key; /* Idempotency-Key header when not NULL */
	const char *if_match;        /* If-Match header when not NULL */
	rig_http_sink sink;          /* NULL buffers a 2xx body in resp.body */
	void *sink_ctx;
	const char *keep_header; /* a response header to keep in resp.header, or NULL */
};

struct rig_http_resp {
	long status;            /* 0 until a status line arrived */
	char content_type[128]; /* "" when the server sent none */
	struct rig_bytes body;  /* the body, unless a sink took a 2xx body */
	int sink_rc;            /* the sink's non-zero return when it stopped the transfer */
	bool sink_started;      /* the sink saw at least one byte */
	char header[256];       /* req.keep_header's value (its first); "" when absent */
};

/* Sets up a client for base_url (trailing slashes dropped) sending actor as
 * X-Rigd-Actor when not NULL, and the API token found by rig_http_find_token
 * as a bearer token. Copies both strings. Returns 0, or -1 with a message in
 * h->error (out of memory, no curl handle); release either way. */
int rig_http_init(struct rig_http *h, const char *base_url, const char *actor);

/* The API token to send: $RIGD_TOKEN, else the first line of the file
 * $RIGD_TOKEN_FILE, else of "$RIGD_DB.token", else of ./rigd.db.token (the
 * bootstrap token rigd writes beside its default database). Returns a new
 * string (free it), or NULL when there is none; then out_searched (of
 * searched_size bytes, at least 1) lists each place looked at and what it
 * held, for a message:
 * "RIGD_TOKEN (not set), RIGD_TOKEN_FILE (not set), /home/ana/rigd.db.token
 * (no such file; RIGD_DB is not set: the token file beside ./rigd.db)". */
char *rig_http_find_token(char *out_searched, size_t searched_size);

/* Frees the handle and the copies. Safe after a failed init. */
void rig_http_release(struct rig_http *h);

/* Empties resp for a request; release with rig_http_resp_release. */
void rig_http_resp_init(struct rig_http_resp *resp);

/* Frees the body. */
void rig_http_resp_release(struct rig_http_resp *resp);

/* Sends req and fills resp (which must be initialised; its body is cleared
 * first). Returns 0 when a whole response arrived, whatever its status, and -1
 * when the server could not be reached, the transfer broke off midway or the
 * sink stopped it (resp->sink_rc != 0); h->error then says what happened. */
int rig_http_send(struct rig_http *h, const struct rig_http_req *req, struct rig_http_resp *resp);

/* True for a 2xx status. */
bool rig_http_ok(const struct rig_http_resp *resp);

#endif
