/* libmicrohttpd glue of http.h.
 *
 * libmicrohttpd's thread pool does the I/O only. Once a request's body is in,
 * its connection is suspended and the handler runs on a worker (workers.h);
 * the worker resumes the connection with the response ready. So a long edit
 * batch never stalls the other connections an I/O thread serves.
 *
 * Guards against hostile clients, before any handler runs: a bounded number
 * and size of header fields (431), exactly one way of framing the body (400 and
 * the connection closed, so a smuggled second request is never read), the body
 * limit (413), a cap on connections (refused at accept), and a sweeper that
 * closes requests whose headers or body trickle in too slowly.
 */
#include "http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "exchange.h"
#include "ids.h"
#include "log.h"
#include "membudget.h"
#include "problem.h"
#include "textbuf.h"
#include "workers.h"

#define MAX_HEADER_FIELDS 100
#define MAX_HEADER_BYTES 8192
/* Each connection's libmicrohttpd pool: headers, read buffer, response head.
 * libmicrohttpd zeroes the whole pool between keep-alive requests, so a big
 * pool costs every request; 64 KiB holds the header limits above with room. */
#define CONNECTION_MEMORY ((size_t)64 * 1024)
#define INLINE_MAX_BODY (16 * 1024) /* see runs_inline() */
/* A body must arrive at this average rate once the connection timeout has passed. */
#define MIN_UPLOAD_BYTES_PER_SECOND 1024

struct request;

/* A connection, for the sweeper: when it last started waiting for a request. */
struct conn_state {
	struct conn_state *prev, *next; /* in http->conns */
	int fd;
	bool has_request;      /* a request line arrived and its request is not done */
	struct timespec idle_since;
};

struct rig_http {
	struct MHD_Daemon *daemon;
	struct rig_app *app;
	struct rig_workers *workers;
	size_t max_body;
	unsigned port;
	unsigned timeout_s;
	long max_connections;
	atomic_long connections;
	atomic_long in_flight;
	atomic_ulong next_request;
	pthread_mutex_t live_lock; /* guards both lists and every use of their fds */
	struct request *live;      /* requests not completed, for the sweeper */
	struct conn_state *conns;  /* open connections, for the sweeper */
};

/* One request's state across libmicrohttpd's calls and its worker. */
struct request {
	struct rig_http *http;
	struct MHD_Connection *conn;
	struct request *prev, *next; /* in http->live */
	int fd;
	char *body;
	size_t len, cap;
	size_t declared;              /* Content-Length, 0 when none */
	struct rig_mem_claim claim;   /* the body's share of the memory budget */
	bool too_large;
	bool memory_refused;          /* the budget could not hold the body: 503 */
	atomic_bool answered;   /* read by the sweeper */
	bool arrived_draining;
	atomic_bool headers_seen; /* the access handler ran once (headers complete) */
	bool encoded_slash;     /* the raw path hides a '/' or NUL in an escape */
	atomic_bool dispatched; /* handed to a worker; exempt from the sweeper */
	bool swept;             /* the sweeper shut its socket down (under live_lock) */
	atomic_bool response_ready;
	atomic_size_t received; /* body bytes so far, for the sweeper */
	struct rig_resp resp; /* filled by the worker */
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

static double seconds_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

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
				 struct rig_resp *resp, bool close_after)
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
	if (close_after)
		MHD_add_response_header(mr, "Connection", "close");
	r->status = resp->status;
	r->answered = true;
	enum MHD_Result ok = MHD_queue_response(conn, (unsigned)resp->status, mr);
	MHD_destroy_response(mr);
	return ok;
}

/* Answers a problem decided by the front itself (limits, framing). */
static enum MHD_Result send_problem(struct MHD_Connection *conn, struct request *r,
				    enum rig_code code, json_t *extra, const char *detail,
				    bool close_after)
{
	struct rig_resp resp = {0};
	rig_problem(&resp, code, extra, "%s", detail);
	enum MHD_Result ok = send_resp(conn, r, &resp, close_after);
	rig_resp_release(&resp);
	return ok;
}

static enum MHD_Result send_memory_busy(struct MHD_Connection *conn, struct request *r)
{
	struct rig_membudget *b = r->http->app->budget;
	return send_problem(conn, r, RIG_MEMORY_BUSY,
			    json_pack("{s:I}", "memoryBudgetBytes",
				      (json_int_t)rig_membudget_limit(b)),
			    "the server's memory budget cannot hold this request body now", true);
}

/* Reserves the budget a body of len bytes needs (membudget.h) on top of what
 * the request holds; false when the budget has no room. */
static bool reserve_body(struct request *r, size_t len)
{
	size_t need = len > SIZE_MAX / RIG_MEM_PARSE_FACTOR ? SIZE_MAX : len * RIG_MEM_PARSE_FACTOR;
	if (need <= r->claim.reserved)
		return true;
	return rig_membudget_reserve(r->http->app->budget, &r->claim, need - r->claim.reserved);
}

static enum MHD_Result send_too_large(struct MHD_Connection *conn, struct request *r)
{
	char detail[96];
	snprintf(detail, sizeof detail, "the request body is larger than %zu bytes",
		 r->http->max_body);
	return send_problem(conn, r, RIG_BODY_TOO_LARGE,
			    json_pack("{s:I}", "maxBodyBytes", (json_int_t)r->http->max_body),
			    detail, true);
}

/* ---- the live list and the sweeper ---- */

static void live_add(struct rig_http *h, struct request *r)
{
	pthread_mutex_lock(&h->live_lock);
	r->next = h->live;
	if (h->live)
		h->live->prev = r;
	h->live = r;
	pthread_mutex_unlock(&h->live_lock);
}

static void live_remove(struct rig_http *h, struct request *r)
{
	pthread_mutex_lock(&h->live_lock);
	if (r->prev)
		r->prev->next = r->next;
	else
		h->live = r->next;
	if (r->next)
		r->next->prev = r->prev;
	pthread_mutex_unlock(&h->live_lock);
}

void rig_http_sweep(struct rig_http *h)
{
	pthread_mutex_lock(&h->live_lock);
	/* A connection trickling its request line never reaches request_new, and
	 * each byte resets libmicrohttpd's idle timer: close it here. */
	for (struct conn_state *c = h->conns; c; c = c->next) {
		if (c->has_request || c->fd < 0 || seconds_since(&c->idle_since) <= h->timeout_s)
			continue;
		shutdown(c->fd, SHUT_RDWR);
		c->fd = -1;
	}
	for (struct request *r = h->live; r; r = r->next) {
		if (r->dispatched || r->answered || r->fd < 0)
			continue;
		double age = seconds_since(&r->started);
		if (age <= h->timeout_s)
			continue;
		bool slow_headers = !r->headers_seen;
		bool slow_body = r->headers_seen && (double)atomic_load(&r->received) <
							    (age - h->timeout_s) * MIN_UPLOAD_BYTES_PER_SECOND;
		if (slow_headers || slow_body) {
			/* The connection is still libmicrohttpd's (it leaves the live list
			 * under this lock first); shutting the socket down makes it close
			 * the connection on its own thread. */
			shutdown(r->fd, SHUT_RDWR);
			r->fd = -1;
			r->swept = true;
		}
	}
	pthread_mutex_unlock(&h->live_lock);
}

/* ---- connections ---- */

static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rig_http *h = cls;
	return atomic_load(&h->connections) < h->max_connections ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct rig_http *h = cls;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		atomic_fetch_add(&h->connections, 1);
		struct conn_state *c = calloc(1, sizeof *c);
		if (!c)
			return;
		const union MHD_ConnectionInfo *info =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		c->fd = info ? info->connect_fd : -1;
		clock_gettime(CLOCK_MONOTONIC, &c->idle_since);
		pthread_mutex_lock(&h->live_lock);
		c->next = h->conns;
		if (h->conns)
			h->conns->prev = c;
		h->conns = c;
		pthread_mutex_unlock(&h->live_lock);
		*socket_context = c;
		return;
	}
	atomic_fetch_sub(&h->connections, 1);
	struct conn_state *c = *socket_context;
	if (!c)
		return;
	pthread_mutex_lock(&h->live_lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&h->live_lock);
	free(c);
	*socket_context = NULL;
}

/* Marks the connection of conn busy with a request, or idle from now. */
static void connection_busy(struct rig_http *h, struct MHD_Connection *conn, bool busy)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn_state *c = info ? info->socket_context : NULL;
	if (!c)
		return;
	pthread_mutex_lock(&h->live_lock);
	c->has_request = busy;
	if (!busy)
		clock_gettime(CLOCK_MONOTONIC, &c->idle_since);
	pthread_mutex_unlock(&h->live_lock);
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
	r->conn = conn;
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	r->fd = info ? info->connect_fd : -1;
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
	live_add(h, r);
	connection_busy(h, conn, true);
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

struct header_census {
	size_t fields;
	size_t longest;
	int content_lengths;
	bool transfer_encoding;
};

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
				    const char *value)
{
	struct header_census *c = cls;
	size_t len = strlen(key) + (value ? strlen(value) : 0);
	c->fields++;
	if (len > c->longest)
		c->longest = len;
	if (!strcasecmp(key, "Content-Length"))
		c->content_lengths++;
	if (!strcasecmp(key, "Transfer-Encoding"))
		c->transfer_encoding = true;
	return MHD_YES;
}

/* Refuses oversized or ambiguously framed requests; returns true when answered. */
static bool refuse_headers(struct MHD_Connection *conn, struct request *r, enum MHD_Result *ok)
{
	struct header_census c = {0};
	MHD_get_connection_values(conn, MHD_HEADER_KIND, count_header, &c);
	if (c.fields > MAX_HEADER_FIELDS || c.longest > MAX_HEADER_BYTES) {
		*ok = send_problem(conn, r, RIG_HEADERS_TOO_LARGE,
				   json_pack("{s:i, s:i}", "maxHeaderFields", MAX_HEADER_FIELDS,
					     "maxHeaderBytes", MAX_HEADER_BYTES),
				   "the request has too many or too long header fields", true);
		return true;
	}
	if (c.content_lengths > 1 || (c.content_lengths && c.transfer_encoding)) {
		*ok = send_problem(conn, r, RIG_AMBIGUOUS_FRAMING, NULL,
				   "the request states its body length more than once", true);
		return true;
	}
	return false;
}

/* ---- handlers on the workers ---- */

/* Runs the request's handler; its answer is left in r->resp. */
static void handle(struct request *r)
{
	struct MHD_Connection *conn = r->conn;
	struct rig_buf query;
	rig_buf_init(&query);
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_arg, &query);
	rig_buf_put(&query, "", 1);
	struct rig_req req = {.method = r->method,
			      .path = r->path,
			      .body = r->body ? r->body : "",
			      .body_len = r->len,
			      .header = lookup_header,
			      .query = lookup_query,
			      .ctx = conn,
			      .request_id = r->request_id,
			      .query_string = query.oom ? "" : query.data,
			      .arrived_draining = r->arrived_draining,
			      .app = r->http->app,
			      .body_scratch = r->body,
			      .mem = &r->claim};
	rig_api_handle(&req, &r->resp);
	rig_buf_release(&query);
	r->response_ready = true;
}

static void run_handler(void *arg)
{
	struct request *r = arg;
	handle(r);
	MHD_resume_connection(r->conn);
}

/* A small quick write (rig_api_route_is_quick) from the only open connection,
 * with no other request in flight, runs on the I/O thread that read it: a lone
 * client (an agent, a script) then skips two thread hand-offs per edit. With
 * a second connection open, everything goes to the workers, so a slow request
 * never holds up another connection an I/O thread serves, and concurrent edits
 * keep meeting in group commits. Never while draining: after the drain the
 * workers refuse new requests (503, nothing applied), and an inline write
 * could be applied with its answer lost as the daemon stops. */
static bool runs_inline(struct rig_http *h, const struct request *r)
{
	return r->len <= INLINE_MAX_BODY && atomic_load(&h->connections) == 1 &&
	       atomic_load(&h->in_flight) == 1 && !atomic_load(&h->app->draining) &&
	       rig_api_route_is_quick(r->method, r->path);
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
		/* First call: headers only. Queue nothing for a good request yet, so
		 * the connection stays keep-alive. */
		request_headers(r, conn, url, method);
		enum MHD_Result ok;
		if (refuse_headers(conn, r, &ok))
			return ok;
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
		unsigned long long declared = cl ? strtoull(cl, NULL, 10) : 0;
		if (declared > h->max_body) {
			r->too_large = true;
			return send_too_large(conn, r);
		}
		r->declared = (size_t)declared;
		/* Admitted against the memory budget now, before any byte is read. */
		if (!reserve_body(r, r->declared)) {
			r->memory_refused = true;
			return send_memory_busy(conn, r);
		}
		return MHD_YES;
	}
	if (r->response_ready) {
		enum MHD_Result ok = send_resp(conn, r, &r->resp, false);
		rig_resp_release(&r->resp);
		return ok;
	}
	if (r->answered)
		return MHD_YES;
	if (*upload_size) {
		if (r->too_large || r->len + *upload_size > h->max_body) {
			r->too_large = true;
			*upload_size = 0;
			return MHD_YES;
		}
		/* A chunked body has no Content-Length: it is admitted as it grows. */
		if (r->memory_refused || !reserve_body(r, r->len + *upload_size)) {
			r->memory_refused = true;
			*upload_size = 0;
			return MHD_YES;
		}
		if (r->len + *upload_size + 1 > r->cap) {
			/* Sized from Content-Length once: no doubling copies of a large body. */
			size_t cap = r->declared >= r->len + *upload_size ? r->declared + 1
				     : r->cap				   ? r->cap
									   : 4096;
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
		atomic_store(&r->received, r->len);
		r->body[r->len] = '\0';
		*upload_size = 0;
		return MHD_YES;
	}
	if (r->too_large)
		return send_too_large(conn, r);
	if (r->memory_refused)
		return send_memory_busy(conn, r);
	if (r->encoded_slash)
		return send_problem(conn, r, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "path"),
				    "the path escapes a '/' or NUL inside an id; ids are 1-64"
				    " characters of [A-Za-z0-9_.:-]",
				    false);
	/* The whole request is in: run its handler on a worker — unless the
	 * sweeper already closed the socket (the handler's answer would be lost
	 * after its effects were applied). */
	pthread_mutex_lock(&h->live_lock);
	bool swept = r->swept;
	if (!swept)
		r->dispatched = true;
	pthread_mutex_unlock(&h->live_lock);
	if (swept)
		return MHD_NO;
	if (runs_inline(h, r)) {
		handle(r);
		enum MHD_Result ok = send_resp(conn, r, &r->resp, false);
		rig_resp_release(&r->resp);
		return ok;
	}
	MHD_suspend_connection(conn);
	if (rig_workers_submit(h->workers, run_handler, r) != 0) {
		/* Stopping (or out of memory): answer here once resumed. */
		rig_problem(&r->resp, RIG_SHUTTING_DOWN, NULL, "the server is shutting down");
		rig_resp_header(&r->resp, "Connection", "close");
		r->response_ready = true;
		MHD_resume_connection(conn);
	}
	return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct rig_http *h = cls;
	struct request *r = *con_cls;
	if (!r)
		return;
	live_remove(h, r);
	connection_busy(h, conn, false);
	rig_log_request(r->method, r->path, r->answered ? r->status : 0,
			seconds_since(&r->started) * 1e3, r->request_id, (long long)r->len,
			toe != MHD_REQUEST_TERMINATED_COMPLETED_OK ? (int)toe : -1);
	rig_resp_release(&r->resp);
	free(r->body);
	rig_membudget_settle(h->app->budget, &r->claim);
	if (r->len >= RIG_MEM_TRIM_AFTER_BYTES)
		rig_membudget_want_trim(h->app->budget); /* given back by the loop's timer */
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
	h->timeout_s = cfg->connection_timeout_s;
	h->max_connections = cfg->max_connections;
	atomic_init(&h->connections, 0);
	atomic_init(&h->in_flight, 0);
	atomic_init(&h->next_request, 1);
	pthread_mutex_init(&h->live_lock, NULL);
	h->workers = rig_workers_start(cfg->workers);
	if (!h->workers) {
		snprintf(err, err_size, "cannot start %u worker threads", cfg->workers);
		goto fail;
	}

	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICHOST | AI_PASSIVE};
	struct addrinfo *ai = NULL;
	char port[8];
	snprintf(port, sizeof port, "%u", cfg->port);
	if (getaddrinfo(cfg->host, port, &hints, &ai) != 0 || !ai) {
		snprintf(err, err_size, "cannot parse listen address '%s' (use a numeric IP)",
			 cfg->host);
		goto fail;
	}
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* libmicrohttpd's own limit sits above ours: at it, it stops accepting and
	 * clients wait in the backlog; below it, accept_policy closes them at once. */
	h->daemon = MHD_start_daemon(
		flags, 0, accept_policy, h, on_request, h, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
		MHD_OPTION_THREAD_POOL_SIZE, cfg->threads, MHD_OPTION_CONNECTION_TIMEOUT,
		cfg->connection_timeout_s, MHD_OPTION_CONNECTION_LIMIT, cfg->max_connections + 64,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_NOTIFY_CONNECTION,
		on_connection, h, MHD_OPTION_URI_LOG_CALLBACK, request_new, h,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONNECTION_MEMORY,
		MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!h->daemon) {
		snprintf(err, err_size, "cannot listen on %s:%u (in use, or not a local address)",
			 cfg->host, cfg->port);
		goto fail;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : cfg->port;
	return h;
fail:
	rig_workers_free(h->workers);
	pthread_mutex_destroy(&h->live_lock);
	free(h);
	return NULL;
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
	/* Finish every handler first: each resumes its connection, and
	 * libmicrohttpd can only stop with no connection suspended. Requests that
	 * complete meanwhile on kept-alive connections find the pool draining and
	 * are answered 503 on the I/O thread; the pool stays allocated until the
	 * daemon (and every callback that could submit) has stopped. */
	rig_workers_drain(h->workers);
	MHD_stop_daemon(h->daemon); /* every connection's CLOSED notice frees its state */
	rig_workers_free(h->workers);
	pthread_mutex_destroy(&h->live_lock);
	free(h);
}
