/* Structured logging: one JSON object per line on stderr, written with a single
 * write(2) so lines from different threads never interleave.
 */
#ifndef RIG_LOG_H
#define RIG_LOG_H

#include <jansson.h>

/* Logs fields (reference stolen; may be NULL) with "ts", "level" and "msg" added. */
void rig_log(const char *level, const char *msg, json_t *fields);

/* The access log line of one request, as rig_log("info", "request", …) would
 * write it with these fields, formatted without building a JSON tree (it runs
 * between a response and the connection's next request). token_id "" or NULL:
 * no "tokenId" field (unauthenticated). terminated < 0: the
 * request completed normally (no "terminated" field). ran_on, the "ranOn"
 * field, names the thread that ran the route's handler: "io", the I/O
 * thread that read the request (server/http.c: runs_inline), or "worker";
 * NULL (no field) when the front answered without one. */
void rig_log_request(const char *method, const char *path, int status, double duration_ms,
		     const char *request_id, const char *token_id, long long request_bytes,
		     int terminated, const char *ran_on);

#endif
