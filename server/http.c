/* libmicrohttpd glue of http.h. */
#include "http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "exchange.h"
#include "ids.h"
#include "log.h"
#include "problem.h"
#include "textbuf.h"

struct rig_http {
	struct MHD_Daemon *daemon;
	struct rig_app *app;
	size_t max_body;
	unsigned port;
	atomic_long in_flight;
	atomic_ulong next_request;
};

/* One request's state across libmicrohttpd's calls. */
struct request {
	struct rig_http *http;
	char *body;
	size_t len, cap;
	bool too_large;
	bool answered;
	bool arrived_draining;
	bool headers_seen;  /* the access handler ran once (headers complete) */
	bool encoded_slash; /* the raw path hides a '/' or NUL in an escape */
	int status;
	char method[16];
	char path[256];
	char request_id[80];
	struct timespec started;
};

static const char cors_allow_headers[] =
	"Content-Type, If-Match, If-None-Match, Idempotency-Key, X-Rigd-Actor, X-Request-Id";
static const char cors_expose_headers[] =
	"ETag, Location, Idempotency-Replayed, X-Request-Id, Retry-After, Allow, X-Rigd-Frame-Count,"
	" X-Rigd-Vertex-Count";

static const char *lookup_header(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_HEADER_KIND, name);
}

static const char *lookup_query(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

/* Appends one query argument to the canonical query string (order as sent). */
static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key,
			       const char *value)
{
	struct rig_buf *b = cls;
	if (b->len)
		rig_buf_puts(b, "&");
	rig_buf_puts(b, key);
	rig_buf_puts(b, "=");
	rig_buf_puts(b, value ? value : "");
	return MHD_YES;
}

static enum MHD_Result send_resp(struct MHD_Connection *conn, struct request *r,
				 struct rig_resp *resp)
{
	struct MHD_Response *mr;
	if (resp->stream) {
		mr = MHD_create_response_from_callback(
			MHD_SIZE_UNKNOWN, 64 * 1024, (MHD_ContentReaderCallback)resp->stream,
			resp->stream_ctx, (MHD_ContentReaderFreeCallback)resp->stream_free);
		resp->stream = NULL;
		resp->stream_free = NULL;
	} else {
		mr = MHD_create_response_from_buffer(resp->body_len, resp->body,
						     MHD_RESPMEM_MUST_FREE);
		resp->body = NULL;
	}
	if (!mr)
		return MHD_NO;
	if (resp->content_type && resp->status != 204 && resp->status != 304)
		MHD_add_response_header(mr, "Content-Type", resp->content_type);
	for (size_t i = 0; i < resp->n_headers; i++)
		MHD_add_response_header(mr, resp->headers[i].name, resp->headers[i].value);
	MHD_add_response_header(mr, "X-Request-Id", r->request_id);
	MHD_add_response_header(mr, "Access-Control-Allow-Origin", "*");
	MHD_add_response_header(mr, "Access-Control-Allow-Methods",
				"GET, POST, PUT, DELETE, OPTIONS");
	MHD_add_response_header(mr, "Access-Control-Allow-Headers", cors_allow_headers);
	MHD_add_response_header(mr, "Access-Control-Expose-Headers", cors_expose_headers);
	MHD_add_response_header(mr, "Access-Control-Max-Age", "600");
	r->status = resp->status;
	r->answered = true;
	enum MHD_Result ok = MHD_queue_response(conn, (unsigned)resp->status, mr);
	MHD_destroy_response(mr);
	return ok;
}

static enum MHD_Result send_too_large(struct MHD_Connection *conn, struct request *r)
{
	struct rig_resp resp = {0};
	rig_problem(&resp, RIG_BODY_TOO_LARGE,
		    json_pack("{s:I}", "maxBodyBytes", (json_int_t)r->http->max_body),
		    "the request body is larger than %zu bytes", r->http->max_body);
	enum MHD_Result ok = send_resp(conn, r, &resp);
	rig_resp_release(&resp);
	return ok;
}

/* libmicrohttpd's URI log callback: the first sight of a request, with the
 * raw (still percent-encoded) URI. Its result becomes the request's state. */
static void *request_new(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct rig_http *h = cls;
	struct request *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->http = h;
	clock_gettime(CLOCK_MONOTONIC, &r->started);
	/* Ids never need escapes; an escaped '/' or NUL would smuggle a path
	 * separator into an id after decoding. */
	size_t path_len = strcspn(uri, "?");
	for (size_t i = 0; i + 2 < path_len; i++)
		if (uri[i] == '%' && uri[i + 1] == '2' && (uri[i + 2] == 'F' || uri[i + 2] == 'f'))
			r->encoded_slash = true;
		else if (uri[i] == '%' && uri[i + 1] == '0' && uri[i + 2] == '0')
			r->encoded_slash = true;
	r->arrived_draining = atomic_load(&h->app->draining);
	atomic_fetch_add(&h->in_flight, 1);
	(void)conn;
	return r;
}

/* Fills the request's method, path and id once the headers are complete. */
static void request_headers(struct request *r, struct MHD_Connection *conn, const char *url,
			    const char *method)
{
	r->headers_seen = true;
	rig_strlcpy(r->method, method, sizeof r->method);
	rig_strlcpy(r->path, url, sizeof r->path);
	rig_utf8_scrub(r->method);
	rig_utf8_scrub(r->path);
	const char *given = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Request-Id");
	if (given && rig_id_is_valid(given))
		rig_strlcpy(r->request_id, given, sizeof r->request_id);
	else
		snprintf(r->request_id, sizeof r->request_id, "req-%lx",
			 atomic_fetch_add(&r->http->next_request, 1));
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct rig_http *h = cls;
	struct request *r = *con_cls;
	if (!r)
		return MHD_NO; /* out of memory in request_new */
	if (!r->headers_seen) {
		/* First call: headers only. Queue nothing yet, so the connection stays
		 * keep-alive; refuse an announced oversized body right away. */
		request_headers(r, conn, url, method);
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
		if (cl && strtoull(cl, NULL, 10) > h->max_body) {
			r->too_large = true;
			return send_too_large(conn, r);
		}
		return MHD_YES;
	}
	if (r->answered)
		return MHD_YES;
	if (*upload_size) {
		if (r->too_large || r->len + *upload_size > h->max_body) {
			r->too_large = true;
			*upload_size = 0;
			return MHD_YES;
		}
		if (r->len + *upload_size + 1 > r->cap) {
			size_t cap = r->cap ? r->cap : 4096;
			while (cap < r->len + *upload_size + 1)
				cap *= 2;
			char *grown = realloc(r->body, cap);
			if (!grown)
				return MHD_NO;
			r->body = grown;
			r->cap = cap;
		}
		memcpy(r->body + r->len, upload, *upload_size);
		r->len += *upload_size;
		r->body[r->len] = '\0';
		*upload_size = 0;
		return MHD_YES;
	}
	if (r->too_large)
		return send_too_large(conn, r);
	if (r->encoded_slash) {
		struct rig_resp bad = {0};
		rig_problem(&bad, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "path"),
			    "the path escapes a '/' or NUL inside an id; ids are 1-64 characters of"
			    " [A-Za-z0-9_.:-]");
		enum MHD_Result ok = send_resp(conn, r, &bad);
		rig_resp_release(&bad);
		return ok;
	}
	struct rig_buf query;
	rig_buf_init(&query);
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_arg, &query);
	rig_buf_put(&query, "", 1);
	struct rig_req req = {.method = method,
			      .path = url,
			      .body = r->body ? r->body : "",
			      .body_len = r->len,
			      .header = lookup_header,
			      .query = lookup_query,
			      .ctx = conn,
			      .request_id = r->request_id,
			      .query_string = query.oom ? "" : query.data,
			      .arrived_draining = r->arrived_draining,
			      .app = h->app};
	struct rig_resp resp = {0};
	rig_api_handle(&req, &resp);
	rig_buf_release(&query);
	enum MHD_Result ok = send_resp(conn, r, &resp);
	rig_resp_release(&resp);
	return ok;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct rig_http *h = cls;
	struct request *r = *con_cls;
	if (!r)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double ms = (double)(now.tv_sec - r->started.tv_sec) * 1e3 +
		    (double)(now.tv_nsec - r->started.tv_nsec) / 1e6;
	json_t *fields = json_pack("{s:s, s:s, s:i, s:f, s:s, s:I}", "method", r->method, "path",
				   r->path, "status", r->answered ? r->status : 0, "durationMs", ms,
				   "requestId", r->request_id, "requestBytes", (json_int_t)r->len);
	if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
		json_object_set_new(fields, "terminated", json_integer(toe));
	rig_log("info", "request", fields);
	free(r->body);
	free(r);
	*con_cls = NULL;
	atomic_fetch_sub(&h->in_flight, 1);
}

struct rig_http *rig_http_start(struct rig_app *app, const struct rig_config *cfg, char *err,
				size_t err_size)
{
	struct rig_http *h = calloc(1, sizeof *h);
	if (!h) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	h->app = app;
	h->max_body = cfg->max_body_bytes;
	atomic_init(&h->in_flight, 0);
	atomic_init(&h->next_request, 1);

	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICHOST | AI_PASSIVE};
	struct addrinfo *ai = NULL;
	char port[8];
	snprintf(port, sizeof port, "%u", cfg->port);
	if (getaddrinfo(cfg->host, port, &hints, &ai) != 0 || !ai) {
		snprintf(err, err_size, "cannot parse listen address '%s' (use a numeric IP)",
			 cfg->host);
		free(h);
		return NULL;
	}
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
			 MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->daemon = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
		MHD_OPTION_THREAD_POOL_SIZE, cfg->threads, MHD_OPTION_CONNECTION_TIMEOUT,
		cfg->connection_timeout_s, MHD_OPTION_CONNECTION_LIMIT, cfg->max_connections,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_URI_LOG_CALLBACK,
		request_new, h, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)256 * 1024, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!h->daemon) {
		snprintf(err, err_size, "cannot listen on %s:%u (in use, or not a local address)",
			 cfg->host, cfg->port);
		free(h);
		return NULL;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : cfg->port;
	return h;
}

unsigned rig_http_port(const struct rig_http *h) { return h->port; }

void rig_http_quiesce(struct rig_http *h)
{
	MHD_socket s = MHD_quiesce_daemon(h->daemon);
	if (s != MHD_INVALID_SOCKET)
		close(s);
}

long rig_http_in_flight(const struct rig_http *h) { return atomic_load(&h->in_flight); }

void rig_http_stop(struct rig_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon);
	free(h);
}
