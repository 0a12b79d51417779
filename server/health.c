/* The probe listener of health.h. */
#include "server/health.h"

#include <microhttpd.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "api/http/exchange.h"
#include "api/http/problem.h"

/* Probes are tiny and come from a handful of checkers: a few connections,
 * each closed after a few idle seconds, are all this listener ever holds. */
#define HEALTH_MAX_CONNECTIONS 32
#define HEALTH_TIMEOUT_SECONDS 5

struct rig_health {
	struct MHD_Daemon *daemon;
	struct rig_app *app;
	unsigned port;
	atomic_ulong next_request;
};

static const char *lookup_header(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_HEADER_KIND, name);
}

static const char *lookup_query(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

static bool is_probe_path(const char *url)
{
	return !strcmp(url, "/healthz") || !strcmp(url, "/readyz");
}

static enum MHD_Result answer(struct MHD_Connection *conn, struct rig_resp *resp,
			      const char *request_id)
{
	struct MHD_Response *mr =
		MHD_create_response_from_buffer(resp->body_len, resp->body, MHD_RESPMEM_MUST_FREE);
	if (!mr)
		return MHD_NO;
	resp->body = NULL;
	if (resp->content_type)
		MHD_add_response_header(mr, "Content-Type", resp->content_type);
	for (size_t i = 0; i < resp->n_headers; i++)
		MHD_add_response_header(mr, resp->headers[i].name, resp->headers[i].value);
	MHD_add_response_header(mr, "X-Request-Id", request_id);
	enum MHD_Result ok = MHD_queue_response(conn, (unsigned)resp->status, mr);
	MHD_destroy_response(mr);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	(void)version;
	(void)upload;
	struct rig_health *h = cls;
	if (!*con_cls) { /* headers only: answer on the next call */
		*con_cls = h;
		return MHD_YES;
	}
	if (*upload_size) { /* probes have no body: drop it */
		*upload_size = 0;
		return MHD_YES;
	}
	char request_id[32];
	snprintf(request_id, sizeof request_id, "probe-%lx", atomic_fetch_add(&h->next_request, 1));
	struct rig_resp resp = {0};
	bool probe_method = !strcmp(method, "GET") || !strcmp(method, "HEAD");
	if (is_probe_path(url) && probe_method) {
		struct rig_req req = {.method = method,
				      .path = url,
				      .body = "",
				      .header = lookup_header,
				      .query = lookup_query,
				      .ctx = conn,
				      .request_id = request_id,
				      .query_string = "",
				      .app = h->app};
		rig_api_handle(&req, &resp);
	} else if (is_probe_path(url)) {
		rig_problem(&resp, RIG_METHOD_NOT_ALLOWED, json_pack("{s:s}", "method", method),
			    "method '%.10s' is not allowed here", method);
		rig_resp_header(&resp, "Allow", "GET, HEAD");
	} else {
		rig_problem(&resp, RIG_NOT_FOUND, NULL,
			    "the probe listener answers only /healthz and /readyz");
	}
	enum MHD_Result ok = answer(conn, &resp, request_id);
	rig_resp_release(&resp);
	return ok;
}

struct rig_health *rig_health_start(struct rig_app *app, const char *host, unsigned port, char *err,
				    size_t err_size)
{
	struct rig_health *h = calloc(1, sizeof *h);
	if (!h) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	h->app = app;
	atomic_init(&h->next_request, 1);
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICHOST | AI_PASSIVE};
	struct addrinfo *ai = NULL;
	char service[8];
	snprintf(service, sizeof service, "%u", port);
	if (getaddrinfo(host, service, &hints, &ai) != 0 || !ai) {
		snprintf(err, err_size,
			 "cannot parse health listen address '%s' (use a numeric IP)", host);
		free(h);
		return NULL;
	}
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->daemon = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HEALTH_TIMEOUT_SECONDS,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)HEALTH_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384, MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!h->daemon) {
		snprintf(err, err_size, "cannot listen on %s:%u for probes (in use, or not local)",
			 host, port);
		free(h);
		return NULL;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : port;
	return h;
}

unsigned rig_health_port(const struct rig_health *h)
{
	return h->port;
}

void rig_health_stop(struct rig_health *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon);
	free(h);
}
