/* The HTTP front: libmicrohttpd serving the API from a thread pool (epoll).
 *
 * It reads request bodies up to the configured limit (413 past it), hands each
 * complete request to rig_api_handle(), adds CORS and request-id headers, and
 * logs one JSON line per request. It counts requests in flight so shutdown can
 * wait for them.
 */
#ifndef RIG_HTTP_H
#define RIG_HTTP_H

#include <stdbool.h>

#include "app.h"
#include "config.h"

struct rig_http;

/* Starts serving app on cfg's address. Returns a new server, or NULL with a
 * message in err. Stop with rig_http_stop(). */
struct rig_http *rig_http_start(struct rig_app *app, const struct rig_config *cfg, char *err,
				size_t err_size);

/* The port actually bound (useful with port 0). */
unsigned rig_http_port(const struct rig_http *h);

/* Stops accepting new connections; open ones are still served. */
void rig_http_quiesce(struct rig_http *h);

/* Requests currently being processed or answered. */
long rig_http_in_flight(const struct rig_http *h);

/* Closes requests whose headers have not arrived within the connection timeout
 * or whose body arrives slower than 1 KiB/s after it (slow-client attacks hold
 * a connection open one byte at a time). Called by the server's timer. */
void rig_http_sweep(struct rig_http *h);

/* Finishes the handlers still running, stops the daemon (closing every
 * connection) and frees h; NULL is a no-op. */
void rig_http_stop(struct rig_http *h);

#endif
