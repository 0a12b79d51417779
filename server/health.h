/* The probe listener (--health-listen): a second, small HTTP listener that
 * answers only GET/HEAD /healthz and /readyz, so a liveness or readiness probe
 * reaches rigd however many connections clients hold on the main listener —
 * past --max-connections, or from a proxy's one address past
 * --max-connections-per-ip. Other paths are 404. No auth (the probes are
 * public on the main listener too), no bodies, no CORS. Not here: the main
 * front (http.c).
 */
#ifndef RIG_HEALTH_H
#define RIG_HEALTH_H

#include <stddef.h>

struct rig_app;
struct rig_health;

/* Starts the listener on host:port (numeric host; port 0 picks a free one)
 * with its own thread. Returns it, or NULL with a message in err. The app is
 * borrowed until rig_health_stop. */
struct rig_health *rig_health_start(struct rig_app *app, const char *host, unsigned port, char *err,
				    size_t err_size);

/* The port it listens on. */
unsigned rig_health_port(const struct rig_health *h);

/* Stops the listener and frees it; NULL is a no-op. */
void rig_health_stop(struct rig_health *h);

#endif
