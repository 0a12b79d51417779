/* Building request targets: path segments and query parameters
 * percent-encoded (RFC 3986 unreserved characters kept), so an id or a page
 * token from the command line can never change the shape of the path.
 */
#ifndef RIG_URL_H
#define RIG_URL_H

#include <stdbool.h>

#include "clients/bytes.h"

struct rig_url {
	struct rig_bytes text; /* the path and query built so far */
	bool has_query;
	bool oom; /* a step ran out of memory; text is incomplete */
};

/* Starts an empty target. Release with rig_url_release. */
void rig_url_init(struct rig_url *u);

/* Frees the text. */
void rig_url_release(struct rig_url *u);

/* Appends literal path text such as "/v1/shots" (not encoded; ours only). */
void rig_url_path(struct rig_url *u, const char *literal);

/* Appends "/" and the encoded segment. */
void rig_url_segment(struct rig_url *u, const char *segment);

/* Appends "?name=value" or "&name=value", both encoded; a NULL value adds
 * nothing, so optional parameters can be passed straight through. */
void rig_url_query(struct rig_url *u, const char *name, const char *value);

/* Returns the target text (borrowed until the next change or release), or
 * NULL when a step ran out of memory. */
const char *rig_url_get(const struct rig_url *u);

#endif
