/* libmicrohttpd glue of http.h.
 *
 * libmicrohttpd's thread pool does the I/O only. Once a request's body is in,
 * its connection is suspended and the handler runs on a worker (workers.h);
 * the worker resumes the connection with the response ready. So a long edit
 * batch never stalls the other connections an I/O thread serves.
 *
 * Guards against hostile clients, before any handler runs (each answer that
 * leaves part of the request unread also closes the connection, so a smuggled
 * second request is never read):
 * - well-formed HTTP/1.1 (400 MALFORMED_REQUEST): no NUL in the request line,
 *   header names are tokens (no whitespace before the colon), no obs-fold
 *   continuation lines, Host on HTTP/1.1;
 * - exactly one way of framing the body (400 AMBIGUOUS_FRAMING), and no
 *   transfer coding but "chunked";
 * - a bounded request target (414), number and size of header fields (431),
 *   body (413), and JSON bodies on writes (415);
 * - connections: a cap per client address (refused at accept), a global cap
 *   past which a connection is answered 503 TOO_MANY_CONNECTIONS and closed,
 *   and a sweeper that closes connections whose header block takes longer than
 *   the header timeout or whose body trickles in too slowly.
 * /healthz and /readyz run on the I/O thread, never queued behind the workers.
 * CORS headers are sent only to origins on the --cors-origin list.
 *
 * The syntax checks themselves live in http_syntax.c.
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
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

#include "api/http/exchange.h"
#include "api/http/problem.h"
#include "api/util/membudget.h"
#include "api/util/textbuf.h"
#include "core/ids.h"
#include "server/http_syntax.h"
#include "server/log.h"
#include "server/workers.h"

/* Each connection's libmicrohttpd pool: headers, read buffer, response head.
 * libmicrohttpd zeroes the whole pool between keep-alive requests, so a big
 * pool costs every request; 64 KiB holds the header limits above with room. */
#define CONNECTION_MEMORY ((size_t)64 * 1024)
#define INLINE_MAX_BODY (16 * 1024) /* see runs_inline() */
/* A body in progress must bring --min-body-rate bytes a second over each
 * window of this many seconds (or end within it), else it is cut. */
#define BODY_RATE_WINDOW_SECONDS 5
/* The request target: longer or with more parameters is 414 (libmicrohttpd's
 * per-connection pool runs out near 700 parameters and then answers nothing). */
#define MAX_URI_BYTES 16384
#define MAX_QUERY_PARAMS 100
/* Connections accepted past --max-connections only to be answered 503. */
#define OVER_CAPACITY_SLACK 64
/* ... and the seconds one of them may take to send its request headers. */
#define OVER_CAPACITY_HEADER_SECONDS 2

struct request;

/* Open connections from one client address. */
struct ip_count {
	struct ip_count *next;
	unsigned char addr[16]; /* IPv4 as ::ffff:a.b.c.d */
	unsigned count;
};

/* A connection, for the sweeper: when it last started waiting for a request. */
struct conn_state {
	struct conn_state *prev, *next; /* in http->conns */
	int fd;
	bool has_request;   /* a request line arrived and its request is not done */
	bool headers_done;  /* its request's header block is complete */
	bool over_capacity; /* opened past --max-connections: answered 503 */
	bool has_addr;
	unsigned char addr[16];
	struct request *req;        /* its request in progress, until on_completed */
	struct timespec idle_since; /* start of the current header phase */
};

struct rig_http {
	struct MHD_Daemon *daemon;
	/* The listening socket rig_http_quiesce took back: libmicrohttpd's threads
	 * may still use it, so it is closed only after MHD_stop_daemon. -1: none. */
	int quiesced_fd;
	struct rig_app *app;
	struct rig_workers *workers;
	size_t max_body;
	unsigned port;
	unsigned timeout_s;
	unsigned header_timeout_s;
	unsigned max_per_ip;
	size_t min_body_rate; /* bytes per second a body must keep up, window by window */
	long max_connections;
	const struct rig_config *cfg;  /* CORS origins; outlives the server */
	char *tls_cert, *tls_key;      /* PEM, kept until the daemon stops */
	atomic_llong last_refusal_log; /* monotonic second of the last per-IP refusal logged */
	atomic_long connections;
	atomic_long in_flight;
	atomic_ulong next_request;
	pthread_mutex_t live_lock; /* guards both lists and every use of their fds */
	struct request *live;      /* requests not completed, for the sweeper */
	struct conn_state *conns;  /* open connections, for the sweeper */
	struct ip_count *ips;      /* connections per client address (under live_lock) */
};

/* One request's state across libmicrohttpd's calls and its worker. */
struct request {
	struct rig_http *http;
	struct MHD_Connection *conn;
	struct request *prev, *next; /* in http->live */
	int fd;
	char *body;
	size_t len, cap;
	size_t declared;            /* Content-Length, 0 when none (set by refuse_headers) */
	bool chunked;               /* the body comes chunked (set by refuse_headers) */
	struct rig_mem_claim claim; /* the body's share of the memory budget */
	bool too_large;
	bool memory_refused;  /* the budget could not hold the body: 503 */
	atomic_bool answered; /* read by the sweeper */
	bool arrived_draining;
	atomic_bool headers_seen; /* the access handler ran once (headers complete) */
	bool encoded_slash;       /* the raw path hides a '/' or NUL in an escape */
	bool uri_too_long;        /* past MAX_URI_BYTES or MAX_QUERY_PARAMS: 414 */
	bool over_capacity;       /* its connection is past --max-connections: 503 */
	uintptr_t raw_uri;        /* where libmicrohttpd parsed the raw target from */
	size_t raw_uri_len;       /* its length up to the first NUL */
	const char *bad_target;   /* why the raw target is malformed, or NULL */
	atomic_bool dispatched;   /* handed to a worker; exempt from the sweeper */
	bool swept;               /* the sweeper shut its socket down (under live_lock) */
	atomic_bool response_ready;
	bool on_io_thread;      /* a light read running on the I/O thread (runs_inline) */
	bool rate_counted;      /* the rate limiter counted it (kept when handed on) */
	bool ran_on_io;         /* answered by the I/O thread that read it (access log) */
	atomic_size_t received; /* body bytes so far, for the sweeper */
	/* The sweeper's current body-rate window: its start and the bytes
	 * received by then. Set by request_headers before headers_seen (whose
	 * atomic store publishes it), then only by the sweeper (under live_lock). */
	struct timespec window_start;
	size_t window_received;
	struct rig_resp resp; /* filled by the worker */
	int status;
	char method[16];
	char path[256];
	char request_id[80];
	char token_id[RIG_ID_MAX + 1]; /* the caller's API token, for the access log; "" none */
	struct timespec started;
};

static const char cors_allow_headers[] =
	"Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, X-Rigd-Actor,"
	" X-Request-Id";
static const char cors_expose_headers[] =
	"ETag, Location, Idempotency-Replayed, X-Request-Id, Retry-After, Allow, WWW-Authenticate,"
	" X-Rigd-Frame-Count, X-Rigd-Vertex-Count";

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

/* A query parameter by its decoded name. A bare "?name" (no '=') reads as
 * the empty value, so a handler cannot mistake it for an absent parameter. */
static const char *lookup_query(void *ctx, const char *name)
{
	const char *value = NULL;
	if (MHD_lookup_connection_value_n(ctx, MHD_GET_ARGUMENT_KIND, name, strlen(name), &value,
					  NULL) != MHD_YES)
		return NULL;
	return value ? value : "";
}

/* Appends n bytes percent-encoding every byte outside RFC 3986's unreserved
 * set, so '&', '=', '%' and NUL inside a decoded name or value cannot be
 * mistaken for structure. */
static void put_encoded(struct rig_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
		if (plain) {
			rig_buf_put(b, s + i, 1);
		} else {
			char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
			rig_buf_put(b, esc, 3);
		}
	}
}

struct canon_query {
	struct rig_buf buf;
	size_t n_args;
};

/* Appends one query argument to the canonical query string (order as sent):
 * name and value as libmicrohttpd decoded them, re-encoded by put_encoded;
 * a bare "?name" stays without '='. */
static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
			       const char *value, size_t value_size)
{
	struct canon_query *q = cls;
	struct rig_buf *b = &q->buf;
	if (q->n_args++)
		rig_buf_puts(b, "&");
	put_encoded(b, key ? key : "", key ? key_size : 0);
	if (value) {
		rig_buf_puts(b, "=");
		put_encoded(b, value, value_size);
	}
	return MHD_YES;
}

/* CORS: nothing unless the request's Origin is on the --cors-origin list; then
 * that origin (never "*"), and on a preflight the methods and headers. */
static void add_cors(const struct rig_http *h, struct MHD_Connection *conn, const struct request *r,
		     struct MHD_Response *mr)
{
	if (h->cfg->n_cors_origins == 0)
		return;
	MHD_add_response_header(mr, "Vary", "Origin");
	const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	bool allowed = false;
	for (unsigned i = 0; origin && i < h->cfg->n_cors_origins && !allowed; i++)
		allowed = strcmp(origin, h->cfg->cors_origins[i]) == 0;
	if (!allowed)
		return;
	MHD_add_response_header(mr, "Access-Control-Allow-Origin", origin);
	MHD_add_response_header(mr, "Access-Control-Expose-Headers", cors_expose_headers);
	if (!strcmp(r->method, "OPTIONS") &&
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Access-Control-Request-Method")) {
		MHD_add_response_header(mr, "Access-Control-Allow-Methods",
					"GET, HEAD, POST, PUT, DELETE, OPTIONS");
		MHD_add_response_header(mr, "Access-Control-Allow-Headers", cors_allow_headers);
		MHD_add_response_header(mr, "Access-Control-Max-Age", "600");
	}
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
	add_cors(r->http, conn, r, mr);
	if (resp->status == 507)
		rig_log("error", "storage full",
			json_pack("{s:s, s:s, s:s}", "method", r->method, "path", r->path,
				  "requestId", r->request_id));
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
	return send_problem(
		conn, r, RIG_MEMORY_BUSY,
		json_pack("{s:I}", "memoryBudgetBytes", (json_int_t)rig_membudget_limit(b)),
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
	/* The header phase runs from the connection's start (or its previous
	 * answer) to the end of the header block, whatever trickles meanwhile:
	 * each byte resets libmicrohttpd's own idle timer. */
	unsigned header_s = h->header_timeout_s < h->timeout_s ? h->header_timeout_s : h->timeout_s;
	for (struct conn_state *c = h->conns; c; c = c->next) {
		unsigned limit = c->over_capacity && header_s > OVER_CAPACITY_HEADER_SECONDS
					 ? OVER_CAPACITY_HEADER_SECONDS
					 : header_s;
		if (c->headers_done || c->fd < 0 || seconds_since(&c->idle_since) <= limit)
			continue;
		shutdown(c->fd, SHUT_RDWR);
		c->fd = -1;
		if (c->req) {
			c->req->fd = -1;
			c->req->swept = true;
		}
	}
	for (struct request *r = h->live; r; r = r->next) {
		/* The header phase is bounded above; a request without a body is
		 * dispatched as soon as its headers are in. */
		if (r->dispatched || r->answered || r->fd < 0 || !r->headers_seen)
			continue;
		if (seconds_since(&r->window_start) < BODY_RATE_WINDOW_SECONDS)
			continue;
		/* Each window must bring its share (a body that cannot arrive in the
		 * time its length allows is cut within one window of falling behind),
		 * unless what is left of a declared body is less. */
		size_t received = atomic_load(&r->received);
		size_t need = h->min_body_rate * BODY_RATE_WINDOW_SECONDS;
		size_t left = r->declared > received ? r->declared - received : 0;
		if (!r->chunked && r->declared && left < need)
			need = left;
		if (received - r->window_received < need) {
			/* The connection is still libmicrohttpd's (it leaves the live list
			 * under this lock first); shutting the socket down makes it close
			 * the connection on its own thread. */
			shutdown(r->fd, SHUT_RDWR);
			r->fd = -1;
			r->swept = true;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &r->window_start);
		r->window_received = received;
	}
	pthread_mutex_unlock(&h->live_lock);
}

/* ---- connections ---- */

/* The count of key's open connections (under live_lock); NULL when none. */
static struct ip_count *ip_find(struct rig_http *h, const unsigned char key[16])
{
	for (struct ip_count *e = h->ips; e; e = e->next)
		if (memcmp(e->addr, key, 16) == 0)
			return e;
	return NULL;
}

/* Logs a refused connection, at most once a second (an attack would flood the log). */
static void log_refusal(struct rig_http *h, const unsigned char key[16])
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long last = atomic_load(&h->last_refusal_log);
	if (now.tv_sec == last ||
	    !atomic_compare_exchange_strong(&h->last_refusal_log, &last, (long long)now.tv_sec))
		return;
	char text[INET6_ADDRSTRLEN] = "?";
	inet_ntop(AF_INET6, key, text, sizeof text);
	rig_log("warn", "connection refused",
		json_pack("{s:s, s:s, s:i}", "reason", "max-connections-per-ip", "client", text,
			  "maxConnectionsPerIp", (int)h->max_per_ip));
}

/* Refuses a connection from an address that already holds --max-connections-per-ip
 * (closed at once, nothing answered: answering would need the very slot the
 * address is not allowed). The global cap is answered 503 in on_request. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rig_http *h = cls;
	unsigned char key[16];
	if (!rig_http__addr_key(key, addr))
		return MHD_YES;
	pthread_mutex_lock(&h->live_lock);
	struct ip_count *e = ip_find(h, key);
	bool refuse = e && e->count >= h->max_per_ip;
	pthread_mutex_unlock(&h->live_lock);
	if (refuse)
		log_refusal(h, key);
	return refuse ? MHD_NO : MHD_YES;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct rig_http *h = cls;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		long before = atomic_fetch_add(&h->connections, 1);
		struct conn_state *c = calloc(1, sizeof *c);
		if (!c)
			return;
		const union MHD_ConnectionInfo *info =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		c->fd = info ? info->connect_fd : -1;
		c->over_capacity = before >= h->max_connections;
		info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		c->has_addr = info && rig_http__addr_key(c->addr, info->client_addr);
		clock_gettime(CLOCK_MONOTONIC, &c->idle_since);
		pthread_mutex_lock(&h->live_lock);
		c->next = h->conns;
		if (h->conns)
			h->conns->prev = c;
		h->conns = c;
		if (c->has_addr) {
			struct ip_count *e = ip_find(h, c->addr);
			if (!e && (e = calloc(1, sizeof *e))) {
				memcpy(e->addr, c->addr, 16);
				e->next = h->ips;
				h->ips = e;
			}
			if (e)
				e->count++;
			else
				c->has_addr = false;
		}
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
	if (c->has_addr) {
		for (struct ip_count **p = &h->ips; *p; p = &(*p)->next) {
			if (memcmp((*p)->addr, c->addr, 16) != 0)
				continue;
			struct ip_count *e = *p;
			if (--e->count == 0) {
				*p = e->next;
				free(e);
			}
			break;
		}
	}
	pthread_mutex_unlock(&h->live_lock);
	free(c);
	*socket_context = NULL;
}

static struct conn_state *conn_state_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return info ? info->socket_context : NULL;
}

/* Marks the connection of conn busy with request r, or idle from now (r NULL):
 * a new header phase starts. */
static void connection_busy(struct rig_http *h, struct MHD_Connection *conn, struct request *r)
{
	struct conn_state *c = conn_state_of(conn);
	if (!c)
		return;
	pthread_mutex_lock(&h->live_lock);
	c->has_request = r != NULL;
	c->req = r;
	if (r) {
		r->over_capacity = c->over_capacity;
	} else {
		c->headers_done = false;
		clock_gettime(CLOCK_MONOTONIC, &c->idle_since);
	}
	pthread_mutex_unlock(&h->live_lock);
}

/* Ends the header phase of r's connection. False when the sweeper has already
 * closed it (the request must not run: its answer would be lost). */
static bool headers_done(struct rig_http *h, struct MHD_Connection *conn, struct request *r)
{
	struct conn_state *c = conn_state_of(conn);
	pthread_mutex_lock(&h->live_lock);
	bool swept = r->swept;
	if (c && !swept)
		c->headers_done = true;
	pthread_mutex_unlock(&h->live_lock);
	return !swept;
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
	r->raw_uri = (uintptr_t)uri;
	r->raw_uri_len = strlen(uri);
	r->bad_target = rig_http__target_problem(uri);
	/* Ids never need escapes; an escaped '/' or NUL would smuggle a path
	 * separator into an id after decoding. */
	size_t path_len = strcspn(uri, "?");
	for (size_t i = 0; i + 2 < path_len; i++)
		if (uri[i] == '%' && uri[i + 1] == '2' && (uri[i + 2] == 'F' || uri[i + 2] == 'f'))
			r->encoded_slash = true;
		else if (uri[i] == '%' && uri[i + 1] == '0' && uri[i + 2] == '0')
			r->encoded_slash = true;
	size_t params = 0;
	if (uri[path_len] == '?')
		for (const char *p = uri + path_len; *p; p++)
			params += *p == '&' || *p == '?';
	if (r->raw_uri_len > MAX_URI_BYTES || params > MAX_QUERY_PARAMS) {
		/* libmicrohttpd splits the query into its connection pool right after
		 * this callback; with ~700 parameters the pool runs out, and 0.9.75
		 * then neither answers nor closes the connection. The buffer is
		 * libmicrohttpd's own writable copy of the request line (the const is
		 * the callback's API): ending the query at its '?' leaves nothing to
		 * split, and on_request answers 414. */
		r->uri_too_long = true;
		if (uri[path_len] == '?')
			((char *)uri)[path_len + 1] = '\0';
	}
	r->arrived_draining = atomic_load(&h->app->draining);
	atomic_fetch_add(&h->in_flight, 1);
	live_add(h, r);
	connection_busy(h, conn, r);
	return r;
}

/* Fills the request's method, path and id once the headers are complete. */
static void request_headers(struct request *r, struct MHD_Connection *conn, const char *url,
			    const char *method)
{
	clock_gettime(CLOCK_MONOTONIC, &r->window_start); /* the body's first rate window */
	r->headers_seen = true;                           /* publishes it to the sweeper */
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

/* A body larger than this, or chunked, is only read from a caller whose live
 * token reaches the route's level on some project: no one else may hold memory
 * budget or buffers while a body trickles in (small bodies go through the
 * normal gate after reading). */
#define PREAUTH_MIN_BODY INLINE_MAX_BODY

/* Answers 401 or 403 (and closes) before the body of a large or chunked write
 * is read when no live token was sent, or its scopes reach the route's level on
 * no project (rig_api_admit_body); returns true when answered. */
static bool refuse_body_before_reading(struct MHD_Connection *conn, struct request *r,
				       enum MHD_Result *ok)
{
	if (r->declared <= PREAUTH_MIN_BODY && !r->chunked)
		return false;
	struct rig_req req = {.method = r->method,
			      .path = r->path,
			      .header = lookup_header,
			      .ctx = conn,
			      .request_id = r->request_id,
			      .app = r->http->app};
	struct rig_resp resp = {0};
	if (rig_api_admit_body(&req, &resp))
		return false;
	*ok = send_resp(conn, r, &resp, true);
	rig_resp_release(&resp);
	return true;
}

/* Liveness and readiness answer on the I/O thread, never behind the workers
 * (a probe that waits for evaluation work reports a healthy server as hung),
 * and even on a connection past --max-connections: a full server is alive. */
static bool is_probe(const struct request *r)
{
	return (!strcmp(r->method, "GET") || !strcmp(r->method, "HEAD")) &&
	       (!strcmp(r->path, "/healthz") || !strcmp(r->path, "/readyz"));
}

/* Refuses malformed, oversized or ambiguously framed requests before any body
 * is read; returns true when answered (and the connection is then closed). */
static bool refuse_headers(struct MHD_Connection *conn, struct request *r, const char *method,
			   const char *version, enum MHD_Result *ok)
{
	struct rig_http *h = r->http;
	if (r->over_capacity && !is_probe(r)) {
		struct rig_resp resp = {0};
		rig_problem(&resp, RIG_TOO_MANY_CONNECTIONS,
			    json_pack("{s:i}", "maxConnections", (int)h->max_connections),
			    "the server has %ld connections open, its limit", h->max_connections);
		rig_resp_header(&resp, "Retry-After", "1");
		*ok = send_resp(conn, r, &resp, true);
		rig_resp_release(&resp);
		return true;
	}
	if (r->uri_too_long) {
		*ok = send_problem(conn, r, RIG_URI_TOO_LONG,
				   json_pack("{s:i, s:i}", "maxUriBytes", MAX_URI_BYTES,
					     "maxQueryParameters", MAX_QUERY_PARAMS),
				   "the request target is longer than 16384 bytes or has more than"
				   " 100 query parameters",
				   true);
		return true;
	}
	const char *bad_line =
		rig_http__request_line_problem(method, version, r->raw_uri, r->raw_uri_len);
	if (!bad_line)
		bad_line = r->bad_target;
	if (bad_line) {
		*ok = send_problem(conn, r, RIG_MALFORMED_REQUEST, NULL, bad_line, true);
		return true;
	}
	struct rig_header_census c;
	rig_http__census(&c, conn, method);
	if (c.fields > MAX_HEADER_FIELDS || c.longest > MAX_HEADER_BYTES) {
		*ok = send_problem(conn, r, RIG_HEADERS_TOO_LARGE,
				   json_pack("{s:i, s:i}", "maxHeaderFields", MAX_HEADER_FIELDS,
					     "maxHeaderBytes", MAX_HEADER_BYTES),
				   "the request has too many or too long header fields", true);
		return true;
	}
	if (c.folded || c.bad_name) {
		char detail[160];
		snprintf(detail, sizeof detail,
			 c.folded ? "a header line continues the one before it (obs-fold), near"
				    " header '%.40s'"
				  : "header name '%.40s' is not a token (whitespace before the "
				    "colon?)",
			 c.folded ? c.folded : c.bad_name);
		rig_utf8_scrub(detail);
		*ok = send_problem(conn, r, RIG_MALFORMED_REQUEST, NULL, detail, true);
		return true;
	}
	if (c.nul_in_value) {
		char detail[120];
		snprintf(detail, sizeof detail, "the value of header '%.40s' contains a NUL byte",
			 c.nul_in_value);
		rig_utf8_scrub(detail);
		*ok = send_problem(conn, r, RIG_MALFORMED_REQUEST, NULL, detail, true);
		return true;
	}
	if (!c.has_host && version && !strcasecmp(version, "HTTP/1.1")) {
		*ok = send_problem(conn, r, RIG_MALFORMED_REQUEST, NULL,
				   "an HTTP/1.1 request needs a Host header", true);
		return true;
	}
	if (c.authorizations > 1) {
		*ok = send_problem(conn, r, RIG_MALFORMED_REQUEST, NULL,
				   "the request carries more than one Authorization header", true);
		return true;
	}
	if (c.content_lengths > 1 || (c.content_lengths && c.transfer_encodings)) {
		*ok = send_problem(conn, r, RIG_AMBIGUOUS_FRAMING, NULL,
				   "the request states its body length more than once", true);
		return true;
	}
	if (c.transfer_encodings > 1 || (c.transfer_encodings && !c.te_chunked)) {
		*ok = send_problem(conn, r, RIG_AMBIGUOUS_FRAMING, NULL,
				   "the only transfer coding accepted is 'chunked', sent alone",
				   true);
		return true;
	}
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
	unsigned long long declared = cl ? strtoull(cl, NULL, 10) : 0;
	r->chunked = c.transfer_encodings > 0; /* exactly "chunked": refused above otherwise */
	if (declared > h->max_body) {
		r->too_large = true;
		*ok = send_too_large(conn, r);
		return true;
	}
	r->declared = (size_t)declared;
	if (rig_http__body_not_json(conn, method)) {
		const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
		char detail[120];
		snprintf(detail, sizeof detail,
			 "a request body must be application/json in UTF-8, not '%.60s'",
			 ct ? ct : "(no Content-Type)");
		rig_utf8_scrub(detail);
		*ok = send_problem(conn, r, RIG_UNSUPPORTED_MEDIA_TYPE,
				   json_pack("{s:s}", "contentType", ct ? ct : ""), detail, true);
		return true;
	}
	return false;
}

/* ---- handlers on the workers ---- */

/* Runs the request's handler; its answer is left in r->resp. */
static void handle(struct request *r)
{
	struct MHD_Connection *conn = r->conn;
	struct canon_query query = {.n_args = 0};
	rig_buf_init(&query.buf);
	MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, add_arg, &query);
	rig_buf_put(&query.buf, "", 1);
	struct rig_req req = {.method = r->method,
			      .path = r->path,
			      .body = r->body ? r->body : "",
			      .body_len = r->len,
			      .header = lookup_header,
			      .query = lookup_query,
			      .ctx = conn,
			      .request_id = r->request_id,
			      .query_string = query.buf.data,
			      .arrived_draining = r->arrived_draining,
			      .app = r->http->app,
			      .body_scratch = r->body,
			      .mem = &r->claim,
			      .on_io_thread = r->on_io_thread,
			      .rate_counted = r->rate_counted};
	/* Without its canonical query the request's parameters cannot be checked. */
	if (query.buf.oom)
		rig_problem(&r->resp, RIG_MEMORY_BUSY, NULL, "out of memory reading the query");
	else
		rig_api_handle(&req, &r->resp);
	rig_strlcpy(r->token_id, req.token_id, sizeof r->token_id);
	r->rate_counted = req.rate_counted;
	rig_buf_release(&query.buf);
	r->response_ready = true;
}

static void run_handler(void *arg)
{
	struct request *r = arg;
	handle(r);
	MHD_resume_connection(r->conn);
}

/* Which requests run on the I/O thread that read them, skipping two thread
 * hand-offs (a futex wake and a resume each way):
 * - a small quick write (RIG_RUN_QUICK) from the only open connection, with
 *   no other request in flight: a lone client (an agent, a script). With a
 *   second connection open it goes to the workers, so concurrent edits keep
 *   meeting in group commits;
 * - a light read (RIG_RUN_LIGHT, one frame) whose inputs are in the read
 *   cache and whose work is small; its handler hands anything else back
 *   (resp.deferred), so a slow request never holds up the other connections
 *   an I/O thread serves.
 * Never while draining: after the drain the workers refuse new requests
 * (503, nothing applied), and an inline write could be applied with its
 * answer lost as the daemon stops. Sets *light for a light read. */
static bool runs_inline(struct rig_http *h, const struct request *r, bool *light)
{
	*light = false;
	if (atomic_load(&h->app->draining))
		return false;
	switch (rig_api_route_run(r->method, r->path)) {
	case RIG_RUN_QUICK:
		return r->len <= INLINE_MAX_BODY && atomic_load(&h->connections) == 1 &&
		       atomic_load(&h->in_flight) == 1;
	case RIG_RUN_LIGHT:
		*light = true;
		return true;
	case RIG_RUN_WORKER:
		break;
	}
	return false;
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
		if (!headers_done(h, conn, r))
			return MHD_NO;
		enum MHD_Result ok;
		if (refuse_headers(conn, r, method, version, &ok))
			return ok;
		if (refuse_body_before_reading(conn, r, &ok))
			return ok;
		/* The body is admitted against the memory budget as it arrives, so
		 * a slow sender holds only what it has sent, never its declared length. */
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
		/* Admitted as it grows: the budget holds what has arrived (times the
		 * parse factor), not what the headers promise. */
		if (r->memory_refused || !reserve_body(r, r->len + *upload_size)) {
			r->memory_refused = true;
			*upload_size = 0;
			return MHD_YES;
		}
		if (r->len + *upload_size + 1 > r->cap) {
			/* Doubling, but never past Content-Length: the buffer, too, holds
			 * only about what has arrived. (A large buffer is its own mapping,
			 * which realloc moves without copying.) */
			size_t cap = r->cap ? r->cap : 4096;
			while (cap < r->len + *upload_size + 1)
				cap *= 2;
			if (r->declared >= r->len + *upload_size && cap > r->declared + 1)
				cap = r->declared + 1;
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
		return send_problem(conn, r, RIG_INVALID_QUERY,
				    json_pack("{s:s}", "parameter", "path"),
				    "the path escapes a '/' or NUL inside an id; ids are 1-64"
				    " characters of [A-Za-z0-9_.:-] other than '.' and '..'",
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
	bool light = false;
	if (is_probe(r) || runs_inline(h, r, &light)) {
		r->on_io_thread = light;
		handle(r);
		r->on_io_thread = false;
		if (!r->resp.deferred) {
			r->ran_on_io = true;
			/* A probe on a connection past the cap is answered, then closed. */
			enum MHD_Result ok = send_resp(conn, r, &r->resp, r->over_capacity);
			rig_resp_release(&r->resp);
			return ok;
		}
		rig_resp_release(&r->resp); /* handed back: nothing was answered */
		r->response_ready = false;
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
	connection_busy(h, conn, NULL);
	rig_log_request(r->method, r->path, r->answered ? r->status : 0,
			seconds_since(&r->started) * 1e3, r->request_id, r->token_id,
			(long long)r->len,
			toe != MHD_REQUEST_TERMINATED_COMPLETED_OK ? (int)toe : -1,
			!atomic_load(&r->dispatched) ? NULL
			: r->ran_on_io               ? "io"
						     : "worker");
	rig_resp_release(&r->resp);
	free(r->body);
	rig_membudget_settle(h->app->budget, &r->claim);
	if (r->len >= RIG_MEM_TRIM_AFTER_BYTES)
		rig_membudget_want_trim(h->app->budget); /* given back by the loop's timer */
	free(r);
	*con_cls = NULL;
	atomic_fetch_sub(&h->in_flight, 1);
}

/* Frees what a started (or half-started) front holds once no daemon runs. */
static void http_free(struct rig_http *h)
{
	rig_workers_free(h->workers);
	pthread_mutex_destroy(&h->live_lock);
	while (h->ips) { /* every CLOSED notice has run: normally empty already */
		struct ip_count *next = h->ips->next;
		free(h->ips);
		h->ips = next;
	}
	free(h->tls_cert);
	free(h->tls_key);
	free(h);
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
	h->quiesced_fd = -1;
	h->max_body = cfg->max_body_bytes;
	h->timeout_s = cfg->connection_timeout_s;
	h->header_timeout_s = cfg->header_timeout_s ? cfg->header_timeout_s : 10;
	h->max_per_ip = cfg->max_connections_per_ip ? cfg->max_connections_per_ip : 64;
	h->min_body_rate = cfg->min_body_rate;
	h->max_connections = cfg->max_connections;
	h->cfg = cfg;
	atomic_init(&h->last_refusal_log, 0);
	atomic_init(&h->connections, 0);
	atomic_init(&h->in_flight, 0);
	atomic_init(&h->next_request, 1);
	pthread_mutex_init(&h->live_lock, NULL);
	if (cfg->tls_cert[0]) {
		h->tls_cert = rig_http__read_pem(cfg->tls_cert, "certificate", err, err_size);
		h->tls_key =
			h->tls_cert ? rig_http__read_pem(cfg->tls_key, "key", err, err_size) : NULL;
		if (!h->tls_key)
			goto fail;
	}
	h->workers = rig_workers_start(cfg->workers);
	if (!h->workers) {
		snprintf(err, err_size, "cannot start %u worker threads", cfg->workers);
		goto fail;
	}

	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICHOST | AI_PASSIVE};
	struct addrinfo *ai = NULL;
	char port[8];
	snprintf(port, sizeof port, "%u", cfg->port);
	if (getaddrinfo(cfg->host, port, &hints, &ai) != 0 || !ai) {
		snprintf(err, err_size, "cannot parse listen address '%s' (use a numeric IP)",
			 cfg->host);
		goto fail;
	}
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (h->tls_cert)
		flags |= MHD_USE_TLS;
	/* libmicrohttpd's own limit sits above ours: between the two, connections
	 * are accepted only to be answered 503 TOO_MANY_CONNECTIONS; at it,
	 * libmicrohttpd stops accepting and clients wait in the backlog. */
	struct MHD_OptionItem options[] = {
		{MHD_OPTION_SOCK_ADDR, 0, ai->ai_addr},
		{MHD_OPTION_THREAD_POOL_SIZE, cfg->threads, NULL},
		{MHD_OPTION_CONNECTION_TIMEOUT, cfg->connection_timeout_s, NULL},
		{MHD_OPTION_CONNECTION_LIMIT, cfg->max_connections + OVER_CAPACITY_SLACK, NULL},
		{MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h},
		{MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, h},
		{MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)request_new, h},
		{MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONNECTION_MEMORY, NULL},
		{MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, NULL},
		{h->tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, h->tls_cert},
		{MHD_OPTION_HTTPS_MEM_KEY, 0, h->tls_key},
		{MHD_OPTION_END, 0, NULL},
	};
	h->daemon = MHD_start_daemon(flags, 0, accept_policy, h, on_request, h, MHD_OPTION_ARRAY,
				     options, MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!h->daemon) {
		if (h->tls_cert)
			snprintf(err, err_size,
				 "cannot serve HTTPS on %s:%u (address in use or not local, or the"
				 " certificate '%s' and key '%s' are not matching PEM)",
				 cfg->host, cfg->port, cfg->tls_cert, cfg->tls_key);
		else
			snprintf(err, err_size,
				 "cannot listen on %s:%u (in use, or not a local address)",
				 cfg->host, cfg->port);
		goto fail;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : cfg->port;
	return h;
fail:
	http_free(h);
	return NULL;
}

unsigned rig_http_port(const struct rig_http *h)
{
	return h->port;
}

void rig_http_quiesce(struct rig_http *h)
{
	MHD_socket s = MHD_quiesce_daemon(h->daemon);
	if (s == MHD_INVALID_SOCKET || h->quiesced_fd >= 0)
		return;
	/* Stop listening now (new connections are refused, not left waiting in
	 * the backlog through the drain), but keep the descriptor: closing it
	 * while libmicrohttpd's threads may still use it is a race (its manual). */
	shutdown(s, SHUT_RDWR);
	h->quiesced_fd = s;
}

long rig_http_in_flight(const struct rig_http *h)
{
	return atomic_load(&h->in_flight);
}

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
	if (h->quiesced_fd >= 0)
		close(h->quiesced_fd); /* only now: see quiesced_fd */
	http_free(h);
}
