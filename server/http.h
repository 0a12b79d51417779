/* The HTTP front: libmicrohttpd serving the API from a thread pool (poll(2)),
 * over TLS when the configuration names a certificate and key.
 *
 * It refuses malformed, ambiguous or oversized requests and non-JSON write
 * bodies before any handler runs, bounds connections (per client address and
 * in all) and slow clients, reads request bodies up to the configured limit
 * (413 past it), hands each complete request to rig_api_handle(), adds CORS
 * (for allow-listed origins only) and request-id headers, and logs one JSON
 * line per request. It counts requests in flight so shutdown can wait for them.
 */
#ifndef RIG_HTTP_H
#define RIG_HTTP_H

#include <stdbool.h>

#include "api/app.h"
#include "server/config.h"

struct rig_http;

/* Starts serving app on cfg's address (HTTPS when cfg names a certificate and
 * key, read here). Returns a new server, or NULL with a message in err. cfg is
 * borrowed (its CORS origins) until rig_http_stop(). */
struct rig_http *rig_http_start(struct rig_app *app, const struct rig_config *cfg, char *err,
				size_t err_size);

/* The port actually bound (useful with port 0). */
unsigned rig_http_port(const struct rig_http *h);

/* Stops accepting new connections; open ones are still served. */
void rig_http_quiesce(struct rig_http *h);

/* Requests currently being processed or answered. */
long rig_http_in_flight(const struct rig_http *h);

/* Closes connections whose request headers are not complete within the header
 * timeout (capped by the connection timeout; 2 s for a connection opened past
 * the connection cap), counted from the connection's start or its previous
 * answer, and requests whose body arrives slower than 1 KiB/s after the
 * connection timeout (slow-client attacks hold a connection open one byte at a
 * time). Called by the server's timer. */
void rig_http_sweep(struct rig_http *h);

/* Finishes the handlers still running, stops the daemon (closing every
 * connection) and frees h; NULL is a no-op. */
void rig_http_stop(struct rig_http *h);

#endif
