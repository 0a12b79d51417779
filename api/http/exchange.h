/* One HTTP exchange as the API sees it: the request the server parsed and the
 * response the handler fills. The API knows nothing of libmicrohttpd; the server
 * adapts its connection to these structs (server/http.c).
 */
#ifndef RIG_EXCHANGE_H
#define RIG_EXCHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/util/sha256.h"
#include "core/err.h"
#include "storage/tokens.h"

struct rig_app;
struct rig_idem;
struct rig_bulk;
struct rig_mem_claim;

#define RIG_MAX_PATH_PARAMS 4
#define RIG_MAX_RESP_HEADERS 8

struct rig_req {
	const char *method;
	const char *path;
	const char *body; /* NUL-terminated; body_len bytes */
	size_t body_len;
	/* Header and query lookups; NULL when absent (a bare "?k" reads as ""). */
	const char *(*header)(void *ctx, const char *name);
	const char *(*query)(void *ctx, const char *name);
	void *ctx;
	const char *request_id;
	/* The query as the server decoded it, re-encoded canonically: "k=v&…" in
	 * the order sent, names and values percent-encoding every byte outside
	 * [A-Za-z0-9._~-], a bare "k" without "="; "" when none. */
	const char *query_string;
	bool arrived_draining; /* the request arrived after shutdown began */
	struct rig_app *app;
	/* The same buffer as body when the front lets the handler overwrite it
	 * (rig_api__parse_body blanks the large arrays it decodes itself); NULL
	 * otherwise. Written only after the idempotency fingerprint is taken. */
	char *body_scratch;
	/* The request's memory reservation (membudget.h), charged by the body's
	 * parse; NULL: nothing reserved, the parse draws on the budget alone. */
	struct rig_mem_claim *mem;
	/* Arrays of the body decoded by rig_api__parse_body (bulk.h); owned by
	 * the front and freed with the request. */
	struct rig_bulk *bulk;

	/* Filled by the router. */
	char params[RIG_MAX_PATH_PARAMS][RIG_ID_MAX + 1];
	char actor[RIG_ACTOR_MAX + 1]; /* the name receipts, plans and locks record */
	/* Who is calling, for ownership (locks) and for scoping idempotency keys:
	 * "token:<id>" when authenticated, "actor:<name>" under --auth off. */
	char principal[RIG_PRINCIPAL_MAX];
	char token_id[RIG_ID_MAX + 1];       /* the caller's API token, "" when none */
	char scopes[RIG_TOKEN_SCOPES_MAX];   /* its scopes (auth.h); "admin" under --auth off */
	int level;                           /* its enum rig_scope on the project the path names */
	const char *idem_key;                /* Idempotency-Key, NULL when none */
	char idem_hash[RIG_SHA256_HEX_SIZE]; /* hex SHA-256 of method, path, query, actor and body
					      */
	/* While a keyed write's handler runs: where rig_api__begin puts the
	 * response it finds stored for (principal, key) inside the write
	 * transaction, to be answered instead of the handler's (idempotency.h).
	 * Owned by the router; NULL otherwise. */
	struct rig_idem *idem_replay;
	/* Set by the front when the handler runs on an I/O thread (a light
	 * read, RIG_RUN_LIGHT): the handler asks rig_api_run_here before work
	 * that is not small. */
	bool on_io_thread;
	/* In and out: the rate limiter has counted this request. A light read
	 * handed back to a worker passes the gate again, and is counted once. */
	bool rate_counted;
};

struct rig_resp_header {
	char name[40];
	char value[200];
};

/* A response body is either a buffer (body, owned, malloc'd) or a stream: the
 * server calls stream(stream_ctx, pos, buf, max), which returns the bytes it
 * wrote (> 0, or 0 to be called again later), RIG_STREAM_END at the end, or
 * RIG_STREAM_ERROR to abort the connection; then stream_free(stream_ctx). */
#define RIG_STREAM_END (-1L)
#define RIG_STREAM_ERROR (-2L)

struct rig_resp {
	int status;
	const char *content_type;
	char *body;
	size_t body_len;
	struct rig_resp_header headers[RIG_MAX_RESP_HEADERS];
	size_t n_headers;
	long (*stream)(void *stream_ctx, uint64_t pos, char *buf, size_t max);
	void (*stream_free)(void *stream_ctx);
	void *stream_ctx;
	/* Set by rig_api_run_here: nothing was answered or changed; the front
	 * runs the request again on a worker. */
	bool deferred;
};

/* A route handler: fills resp (always) for req. */
typedef void (*rig_handler)(struct rig_req *req, struct rig_resp *resp);

/* Adds a response header (copied, truncated to the field sizes). */
void rig_resp_header(struct rig_resp *resp, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Frees the body and stream of a response and zeroes it. */
void rig_resp_release(struct rig_resp *resp);

/* Dispatches a request to its route and fills resp (always: errors become
 * problem+json). Never fails. */
void rig_api_handle(struct rig_req *req, struct rig_resp *resp);

/* Before a large body is read: true when req may send it (a public or
 * unknown route, --auth off, or a live token with a scope that reaches the
 * route's level on some project); false with resp filled (401 or 403 as
 * rig_auth_gate answers them). Only the headers of req are used. The project
 * the path names is checked after the body, by the usual gate. */
bool rig_api_admit_body(struct rig_req *req, struct rig_resp *resp);

/* Where the front may run a route's handler (server/http.c: runs_inline). */
enum rig_route_run {
	RIG_RUN_WORKER, /* on a worker thread */
	/* A write whose work is bounded by its body (creating a project or a
	 * shot, an edit batch, locks, storing a plan), as opposed to writes
	 * that evaluate meshes or apply stored plans: on the thread that read
	 * it when it is the only request in flight. */
	RIG_RUN_QUICK,
	/* A read whose handler knows its cost once it has looked at the read
	 * cache (one frame): on the thread that read it, handing itself back to
	 * a worker (rig_api_run_here) when the work is not small. */
	RIG_RUN_LIGHT,
};

/* The run class of the route answering method on path (RIG_RUN_WORKER when none). */
enum rig_route_run rig_api_route_run(const char *method, const char *path);

/* The most work a light read does on an I/O thread, in bytes of the prepared
 * evaluators it uses (their size is about proportional to a frame's cost):
 * 2 MiB is about 0.2 ms of a core, the time a large request body takes to
 * read, so the other connections an I/O thread serves wait no longer than
 * they would behind one of those. */
#define RIG_LIGHT_WORK_MAX ((size_t)2 << 20)

/* True when the handler may do `work` (bytes, as RIG_LIGHT_WORK_MAX) where it
 * runs: always on a worker; on an I/O thread when work ≤ RIG_LIGHT_WORK_MAX.
 * Otherwise false with resp->deferred set: the handler returns at once,
 * having changed nothing, and the front runs it again on a worker. */
bool rig_api_run_here(const struct rig_req *req, struct rig_resp *resp, size_t work);

#endif
